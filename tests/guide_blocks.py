"""The fenced blocks of a Markdown guide, each with what a test must do with it.

A guide that a test runs says what each block is by its fence's language:

- `sh`: commands, run in order in one shell (variables and background processes carry over);
- `text` right after an `sh` block: that block's output (a line `...` stands for any number of lines, `...`
  within a line for any text);
- a configuration file (`yaml`, `haproxy`) whose first line is `# <file name>`: written to that file;
- `json`: example log lines, each checked against a line the servers really logged.

Any other fence is an error, so no block is ever passed over: `GuideError` names its line.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

Kind = Literal["command", "output", "file", "log"]
FILE_LANGUAGES = ("yaml", "haproxy")
_FENCE = re.compile(r"^\s*```(\S*)\s*$")
_OTHER_FENCE = re.compile(r"^\s*(~~~|```.*\s\S)")
_FILE_NAME = re.compile(r"^# ([\w.-]+)\s*$")
_VARIABLE_ROW = re.compile(r"^\|((?:\s*`[A-Z][A-Z0-9_]*`,?)+)\s*\|")
ELLIPSIS = "..."


class GuideError(ValueError):
    """A block the guide's test cannot classify, or a malformed fence."""


@dataclass(frozen=True)
class Block:
    """One fenced block: its kind, its text (without the fences) and the 1-based line of its opening fence."""

    kind: Kind
    language: str
    text: str
    line: int
    prose: str
    """The paragraph just before the block (conditions a test sets up are keyed on it)."""

    @property
    def file_name(self) -> str:
        """The name a configuration block is saved as (its first line, `# <name>`)."""
        found = _FILE_NAME.match(self.text.splitlines()[0]) if self.text else None
        if found is None:
            raise GuideError(f"line {self.line}: a {self.language} block must start with '# <file name>'")
        return found.group(1)


def blocks(markdown: str) -> list[Block]:
    """Every fenced block of `markdown`, in order, classified.

    Raises:
        GuideError: an unclosed fence, a fence of an unknown language, a `text` block after anything
            but commands, or a configuration block without its file name.
    """
    found: list[Block] = []
    lines = markdown.splitlines()
    index = 0
    prose: list[str] = []
    since_block = 0
    blank = False
    while index < len(lines):
        opening = _FENCE.match(lines[index])
        if opening is None and _OTHER_FENCE.match(lines[index]):
            raise GuideError(f"line {index + 1}: open a block with ``` and one word for its language, nothing else")
        if opening is None:
            stripped = lines[index].strip()
            if stripped:
                prose = [stripped] if blank else [*prose, stripped]
                since_block += 1
            blank = not stripped
            index += 1
            continue
        language = opening.group(1)
        end = next((at for at in range(index + 1, len(lines)) if lines[at].strip() == "```"), None)
        if end is None:
            raise GuideError(f"line {index + 1}: the block opened here is never closed")
        text = "\n".join(lines[index + 1:end])
        previous = found[-1] if found and since_block == 0 else None
        block = Block(_kind(language, previous, index + 1), language, text, index + 1, " ".join(prose))
        if block.kind == "file":
            _ = block.file_name
        found.append(block)
        index, prose, since_block, blank = end + 1, [], 0, False
    return found


def _kind(language: str, previous: Block | None, line: int) -> Kind:
    if language == "sh":
        return "command"
    if language == "text":
        if previous is None or previous.kind != "command":
            raise GuideError(f"line {line}: a text block shows the output of the sh block right before it, and there is none")
        return "output"
    if language in FILE_LANGUAGES:
        return "file"
    if language == "json":
        return "log"
    raise GuideError(f"line {line}: a {language or 'plain'} block is neither commands (sh), their output (text), "
                     f"a file ({', '.join(FILE_LANGUAGES)}) nor log lines (json); the guide's test would not know what to do with it")


def declared_variables(markdown: str, heading: str) -> list[str]:
    """The variable names in the first column of the table under `heading` (a `## ` heading), in order."""
    section = markdown.split(f"\n## {heading}\n", 1)
    if len(section) < 2:
        raise GuideError(f"the guide has no '## {heading}' section declaring its variables")
    names: list[str] = []
    for line in section[1].split("\n## ", 1)[0].splitlines():
        row = _VARIABLE_ROW.match(line)
        if row:
            names += re.findall(r"`([A-Z][A-Z0-9_]*)`", row.group(1))
    return names


def output_matches(expected: str, actual: str) -> bool:
    """`actual` has `expected`'s lines, where a line `...` stands for any number of lines and `...` within a line
    for any text (trailing blanks ignored)."""
    want = [line.rstrip() for line in expected.strip("\n").splitlines()]
    have = [line.rstrip() for line in actual.strip("\n").splitlines()]
    return _match(want, have)


def _match(want: list[str], have: list[str]) -> bool:
    if not want:
        return not have
    if want[0] == ELLIPSIS:
        return any(_match(want[1:], have[skip:]) for skip in range(len(have) + 1))
    return bool(have) and _line_matches(want[0], have[0]) and _match(want[1:], have[1:])


def _line_matches(want: str, have: str) -> bool:
    """Equal, where `...` inside a line stands for any text."""
    return re.fullmatch(".*".join(re.escape(part) for part in want.split(ELLIPSIS)), have) is not None
