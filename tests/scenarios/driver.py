"""A client whose own model drives alfred-mcp stage by stage: turn_start, then turn_submit per role output.

The model is scripted (its role outputs are fixtures); everything else is the real server over the
real `mcp` Client. The driver follows the answers, as tools/list tells a client to: each answer's
`next` carries what the expected role needs, so it never calls turn_context. It counts every call of
a turn and the bytes of every result the model reads (the text block: the result as JSON).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from mcp import Client

from alfred_mcp.server.dispatch import ERROR_META
from alfred_mcp.server.leak_guard import find_uuid
from tests.e2e.helpers import strings_in

Output = Mapping[str, Any] | Callable[["Seen"], Mapping[str, Any]]
"""A role output, or a function of what the client has been shown so far (for refs assigned on the way)."""


class Seen:
    """Everything the client's model has read in this session: it can only name refs it was shown."""

    def __init__(self) -> None:
        self.texts: list[str] = []

    def ref(self, label: str, prefix: str = "recipe", *, saved: bool = False) -> str:
        """The ref shown next to `label` most recently, e.g. 'recipe_7' for 'Chicken Fajitas' (`saved`: a row's, not
        the draft's it was saved from)."""
        pattern = re.compile(rf"\b({'' if saved else '(?:gen_)?'}(?<!gen_){prefix}_\d+)\b[:\s]+{re.escape(label)}")
        saved_as = re.compile(rf"{re.escape(label)} -> ({prefix}_\d+)\b")  # a save's notice: 'gen_recipe_1 Name -> recipe_7'
        for text in reversed(self.texts):
            found = pattern.findall(text) + saved_as.findall(text)
            if found:
                return str(found[-1])
        raise AssertionError(f"the client was never shown a {prefix} ref for {label!r}")


    def rows(self, prefix: str) -> list[tuple[str, str]]:
        """The rows of refs `prefix`_N of the latest card the model was shown, in order: (ref, the rest of its line)."""
        row = re.compile(rf"^\s*- ({re.escape(prefix)}_\d+) (.*)$")
        for text in reversed(self.texts):
            found = [match for line in text.splitlines() if (match := row.match(line))]
            if found:
                return list({match.group(1): (match.group(1), match.group(2)) for match in found}.values())
        raise AssertionError(f"the client was never shown a card of {prefix} rows")


@dataclass
class Call:
    tool: str
    bytes: int
    result: dict[str, Any] | None
    error: dict[str, Any] | None = None
    arguments: dict[str, Any] = field(default_factory=dict)


@dataclass
class TurnLog:
    """One user turn as the client saw it."""

    message: str
    calls: list[Call] = field(default_factory=list)

    @property
    def bytes(self) -> int:
        return sum(call.bytes for call in self.calls)

    @property
    def count(self) -> int:
        return len(self.calls)

    @property
    def final(self) -> dict[str, Any]:
        return next(c.result for c in reversed(self.calls) if c.result is not None and c.tool != "turn_context")

    @property
    def errors(self) -> list[dict[str, Any]]:
        return [call.error for call in self.calls if call.error is not None]

    def shown(self, needle: str) -> str:
        """The first answer (its notice and the next role's context) that mentions `needle`: what the model read."""
        for call in self.calls:
            if call.result is not None:
                text = "\n".join(filter(None, [call.result.get("notice"), (call.result.get("next") or {}).get("context")]))
                if needle in text:
                    return text
        raise AssertionError(f"no answer of {self.message!r} mentions {needle!r}")

    def contexts(self) -> list[dict[str, Any]]:
        """What each answer gave the next role (`next`), in order: Understand's first, Reply's last."""
        return [c.result["next"] for c in self.calls if c.result is not None and c.result.get("next")]


class StageClient:
    """Drives turns through the stage tools with scripted role outputs; logs calls and bytes."""

    def __init__(self, client: Client) -> None:
        self.client = client
        self.turns: list[TurnLog] = []
        self.seen = Seen()

    async def call(self, log: TurnLog, tool: str, **arguments: Any) -> Call:
        result = await self.client.call_tool(tool, arguments)
        text = "".join(block.text for block in result.content if block.type == "text")
        assert find_uuid(text) is None, f"{tool} showed a raw id"
        if result.is_error:
            call = Call(tool, len(text.encode()), None, dict((result.meta or {})[ERROR_META]), arguments)
        else:
            call = Call(tool, len(text.encode()), result.structured_content, arguments=arguments)
        log.calls.append(call)
        self.seen.texts.extend(strings_in(call.result if call.result is not None else text))
        return call

    async def turn(self, message: str, outputs: Mapping[str, Sequence[Output]]) -> TurnLog:
        """Run one user turn to its end with `outputs` (per role, in order; a refused one is followed by the next)."""
        log = TurnLog(message)
        self.turns.append(log)
        queues = {role: list(items) for role, items in outputs.items()}
        status = (await self.call(log, "turn_start", message=message)).result
        assert status is not None
        while role := status.get("expected_role") or ("reply" if "answered" in status and queues.get("reply") else None):
            # a lookup answered from its rows needs no reply; a script that has one sends it, as a client that always replies
            if "answered" in status and not queues.get(role):
                break
            assert "answered" in status or status["next"]["role"] == role, f"the answer gives {status['next']['role']} what {role} needs"
            assert queues.get(role), f"the script has no {role} output left for {message!r} (refused: {log.errors[-1:]}; status: {status})"
            output = queues[role].pop(0)
            submitted = await self.call(log, "turn_submit", role=role, output=dict(output(self.seen) if callable(output) else output))
            if submitted.result is not None:
                status = submitted.result
        leftover = {role: len(items) for role, items in queues.items() if items}
        assert not leftover, f"unused outputs for {message!r}: {leftover}"
        return log


_DELTA = re.compile(r"^## (.+?) \((?:as sent to (.+) in turn (\d+)|as sent before), with these lines (?:added|added or replacing the line with the same start):\)$")
_UNCHANGED = re.compile(r"^\(As sent before, unchanged: (.*)\.\)$")
_QUALIFIED = re.compile(r"^(.+), as sent to (.+) in turn (\d+)$")


def section_as_read(stage: StageClient, heading: str, *, until: tuple[int, str] | None = None) -> str:
    """The body of '## `heading`' as the client's model has it after every answer so far, read the way the answers
    say: a section sent whole is the new version ('- as sent before: refs' standing for those refs' earlier lines);
    one sent as new lines is the version it names (or the latest) with them added, a line replacing the one with the
    same start; one named unchanged is the version it names (or the latest). `until` (turn, role): read through the
    first answer of that turn for that role."""
    versions: list[tuple[str, int, list[str]]] = []  # (role, turn, lines), oldest first
    current: list[str] = []

    def named(role: str | None, turn: str | None) -> list[str]:
        if role is None or turn is None:
            return current
        return next(lines for r, t, lines in reversed(versions) if r == role and t == int(turn))

    for number, log in enumerate(stage.turns, start=1):
        for view in log.contexts():
            role = view["role"]
            for piece in re.split(r"(?m)^(?=## )|\n\n(?=\(As sent before)", view["context"]):
                if until is not None and number > until[0]:
                    break
                title, _, body = piece.strip().partition("\n")
                delta = _DELTA.match(title)
                if title == f"## {heading}":
                    current = _expanded(body.splitlines(), [line for _, _, lines in versions for line in lines])
                elif delta is not None and delta.group(1) == heading:
                    current = _with_lines(named(delta.group(2), delta.group(3)), body.splitlines())
                elif (unchanged := _UNCHANGED.match(title)) is not None:
                    for name in unchanged.group(1).split("; "):
                        qualified = _QUALIFIED.match(name)
                        if (qualified.group(1) if qualified else name) == heading:
                            current = named(qualified.group(2), qualified.group(3)) if qualified else current
                    continue
                else:
                    continue
                versions.append((role.split(" ")[0], number, current))
            if until == (number, role):
                return "\n".join(current)
    return "\n".join(current)


def _expanded(lines: list[str], known: list[str]) -> list[str]:
    out = []
    for line in lines:
        found = re.match(r"^(\s*)- as sent before: (.*)$", line)
        if found is None:
            out.append(line)
            continue
        for ref in found.group(2).split(", "):
            out.append(next(k for k in reversed(known) if k.startswith(f"{found.group(1)}- {ref}:") or k.startswith(f"{found.group(1)}- {ref} ")))
    return out


def _with_lines(base: list[str], added: list[str]) -> list[str]:
    out = list(base)
    group = None
    for line in added:
        if line.startswith("### "):
            group = line
            if line not in out:
                out.append(line)
            continue
        start = line.split(":", 1)[0] if ":" in line else None
        same = [i for i, old in enumerate(out) if start and old.split(":", 1)[0] == start and ":" in old]
        if len(same) == 1:
            out[same[0]] = line
            continue
        at = len(out)
        if group is not None and group in out:
            at = out.index(group) + 1
            while at < len(out) and not out[at].startswith("### "):
                at += 1
        out.insert(at, line)
    return out


def resent_characters(logs: Sequence[TurnLog]) -> int:
    """Characters of the lines (over 25 characters, headings aside) a session's answers sent again after the client's
    model had read them verbatim in an earlier answer (a notice, instructions or a context): bytes for no new information."""
    seen: set[str] = set()
    again = 0
    for log in logs:
        for call in log.calls:
            result = call.result or {}
            view = result.get("next") or {}
            for text in (result.get("notice"), view.get("instructions"), view.get("context")):
                for line in (text or "").splitlines():
                    key = line.strip()
                    if len(key) <= 25 or key.startswith("#"):
                        continue
                    if key in seen:
                        again += len(line)
                    seen.add(key)
    return again
