"""What a stage-by-stage client has already been sent, so turn_context does not send it again.

A client driving turns with its own model keeps its conversation: the role output schemas, the
role instructions and context sections it received stay in its model's context. `ClientMemo`
records a digest of each (with the turn it was sent); `elide_sections` leaves out the sections
unchanged since and names them in one closing line. `full=True` (the client's model has not seen it,
e.g. a new conversation) sends everything again. Pure: the digest is a hash of the text.
"""

from __future__ import annotations

import hashlib
import re

from pydantic import BaseModel, ConfigDict, Field

from alfred_mcp.state.table_columns import COLUMNS_HEADING

KEEP_TURNS = 6
"""Context sections sent more than this many turns ago are forgotten (schemas and instructions are kept)."""
_HEADING = re.compile(r"^## ", re.MULTILINE)
SESSION_SECTIONS = (COLUMNS_HEADING,)
"""Context sections sent once a session, like the schemas: a write step's table columns."""


class Sent(BaseModel):
    model_config = ConfigDict(extra="forbid")

    digest: str
    turn: int
    lines: list[str] = Field(default_factory=list)
    """For a context section: a short digest of each of its lines, so a section that only grew is sent as its new lines."""


class ClientMemo(BaseModel):
    """Digests of what the stage client was sent, by key: 'schema:<role>', 'instructions:<template>', '## <heading>'."""

    model_config = ConfigDict(extra="forbid")

    sent: dict[str, Sent] = Field(default_factory=dict)

    def seen(self, key: str, text: str) -> int | None:
        """The turn `text` was sent under `key`, if it is unchanged since; else None."""
        found = self.sent.get(key)
        return found.turn if found is not None and found.digest == digest(text) else None

    def remember(self, key: str, text: str, turn: int, *, lines: bool = False) -> None:
        self.sent[key] = Sent(digest=digest(text), turn=turn, lines=[digest(line)[:8] for line in text.splitlines()] if lines else [])

    def added_lines(self, key: str, text: str) -> list[int] | None:
        """The indexes of `text`'s lines that are new, when every line sent under `key` is still there in order
        (the section only grew); else None."""
        found = self.sent.get(key)
        if found is None or not found.lines:
            return None
        old = iter(found.lines)
        wanted = next(old, None)
        added = []
        for index, line in enumerate(text.splitlines()):
            if digest(line)[:8] == wanted:
                wanted = next(old, None)
            else:
                added.append(index)
        return added if wanted is None else None

    def pruned(self, turn: int) -> ClientMemo:
        """Without context sections older than KEEP_TURNS turns (a table's columns are kept: sent once a session)."""
        kept = {k: v for k, v in self.sent.items()
                if not k.startswith("## ") or k.startswith(SESSION_SECTIONS) or turn - v.turn <= KEEP_TURNS}
        return ClientMemo(sent=kept)


def digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


def split_sections(text: str) -> list[str]:
    """`text` cut before each '## ' heading (the first piece may have no heading)."""
    starts = [match.start() for match in _HEADING.finditer(text)]
    if not starts or starts[0] != 0:
        starts = [0, *starts]
    bounds = [*starts, len(text)]
    return [text[a:b].strip() for a, b in zip(bounds, bounds[1:]) if text[a:b].strip()]


def elide_sections(text: str, memo: ClientMemo, turn: int, *, full: bool) -> str:
    """`text` without the '## ' sections the client already has (unchanged): one closing line names them. A
    section that only grew since it was sent comes as its new lines, each under the '### ' heading it sits in."""
    out, unchanged = [], []
    for section in split_sections(text):
        heading, _, body = section.partition("\n")
        if not heading.startswith("## ") or not body.strip():
            out.append(section)
            continue
        sent = None if full else memo.seen(heading, body)
        if sent is not None:
            unchanged.append(heading[3:])
            continue
        added = None if full else memo.added_lines(heading, body)
        memo.remember(heading, body, turn, lines=True)
        out.append(section if added is None else _grown(heading, body.splitlines(), added))
    if unchanged:
        out.append(f"(As sent before, unchanged: {'; '.join(unchanged)}.)")
    return "\n\n".join(out)


def _grown(heading: str, lines: list[str], added: list[int]) -> str:
    """'## Heading (as sent before, with these lines added:)' and the new lines, each after its '### ' heading."""
    out = [f"{heading} (as sent before, with these lines added:)"]
    grouped = set(added)
    for index in added:  # a new '### ' group: every line under it (one may have moved there) is sent with it
        if lines[index].startswith("### "):
            grouped |= set(range(index, next((i for i in range(index + 1, len(lines)) if lines[i].startswith("### ")), len(lines))))
    shown_heading = None
    for index in sorted(grouped):
        above = next((lines[i] for i in range(index - 1, -1, -1) if lines[i].startswith("### ")), None)
        if above is not None and above != shown_heading and not lines[index].startswith("### "):
            out.append(above)
        shown_heading = lines[index] if lines[index].startswith("### ") else above
        out.append(lines[index])
    return "\n".join(out)
