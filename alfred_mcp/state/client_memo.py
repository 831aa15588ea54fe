"""What a stage-by-stage client has already been sent, so no answer sends it again.

A client driving turns with its own model keeps its conversation: the role output schemas, the
role instructions, the context sections and the notices' rows it received stay in its model's
context, whichever role they were sent for. `ClientMemo` records a digest of each (with the turn and
role it was sent for); it is a session document, so it holds across the server's processes.
`elide_sections` leaves out the sections the client has verbatim (named in one closing line, with the
role and turn when a later answer sent another version of that heading), sends a section that only
grew, or changed lines after their start, as those lines, and names the ref lines of a changed one it has by
their refs. `full=True` (the client's model has not seen it, e.g. a new conversation) sends
everything again. Pure: the digest is a hash of the text.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable

from pydantic import BaseModel, ConfigDict, Field

from alfred_mcp.state.context import DASHBOARD_HEADING
from alfred_mcp.state.headings import without_empty_headings
from alfred_mcp.state.table_columns import COLUMNS_HEADING

KEEP_TURNS = 6
"""Context sections and rows sent more than this many turns ago are forgotten (schemas and instructions are kept)."""
KEEP_VERSIONS = 4
"""Versions of one heading remembered (each role's context may carry its own)."""
_HEADING = re.compile(r"^## ", re.MULTILINE)
SESSION_SECTIONS = (COLUMNS_HEADING, DASHBOARD_HEADING)
"""Context sections sent once a session, like the schemas: a write step's table columns, and Think's kitchen dashboard
(later versions go as the lines that changed, however many turns later)."""


class Sent(BaseModel):
    model_config = ConfigDict(extra="forbid")

    digest: str
    turn: int
    lines: list[str] = Field(default_factory=list)
    """Unused since sections are kept as `Version`s (read for sessions saved before)."""


class Version(BaseModel):
    """One version of a '## ' section as the client has it: sent whole, or as new lines of an earlier version."""

    model_config = ConfigDict(extra="forbid")

    digest: str
    turn: int
    role: str
    lines: list[str]
    """A short digest of each line, so a section that only grew is sent as its new lines."""
    starts: list[str] = Field(default_factory=list)
    """A short digest of each line's start (before its first ':'; '' for none), so a line that changed after its
    start is sent as a replacement of the line that starts the same."""


class ClientMemo(BaseModel):
    """What the stage client was sent: schemas and instructions by key ('schema:<role>', 'instructions:<template>'),
    the versions of each '## ' section by heading (oldest first), and the rows its notices showed."""

    model_config = ConfigDict(extra="forbid")

    sent: dict[str, Sent] = Field(default_factory=dict)
    sections: dict[str, list[Version]] = Field(default_factory=dict)
    rows: dict[str, int] = Field(default_factory=dict)
    """A digest of each row line a notice showed (stripped), with the turn."""
    row_refs: dict[str, int] = Field(default_factory=dict)
    """The ref of each row a notice showed, with the turn."""

    def seen(self, key: str, text: str) -> int | None:
        """The turn `text` was sent under `key`, if it is unchanged since; else None."""
        found = self.sent.get(key)
        return found.turn if found is not None and found.digest == digest(text) else None

    def remember(self, key: str, text: str, turn: int) -> None:
        self.sent[key] = Sent(digest=digest(text), turn=turn)

    def remember_section(self, heading: str, body: str, turn: int, role: str) -> None:
        """The client now has `body` under `heading` (its newest version of it)."""
        key = digest(body)
        kept = [v for v in self.sections.get(heading, []) if v.digest != key]
        version = Version(digest=key, turn=turn, role=role, lines=_line_digests(body), starts=[_start(line) for line in body.splitlines()])
        self.sections[heading] = [*kept, version][-KEEP_VERSIONS:]

    def remember_rows(self, rows: Iterable[str], turn: int) -> None:
        for row in rows:
            if row.strip():
                self.rows[digest(row.strip())] = turn
                if (ref := row_ref(row)) is not None:
                    self.row_refs[ref] = turn

    def row_sent(self, row: str) -> bool:
        return digest(row.strip()) in self.rows

    def shown_in_notice(self, ref: str, turn: int) -> bool:
        """Whether a notice of `turn` showed the row of `ref`."""
        return self.row_refs.get(ref) == turn

    def pruned(self, turn: int) -> ClientMemo:
        """Without context sections and rows older than KEEP_TURNS turns (a table's columns are kept: sent once a session)."""
        sent = {k: v for k, v in self.sent.items() if not k.startswith("## ") or k.startswith(SESSION_SECTIONS)}
        sections = {h: kept for h, versions in self.sections.items()
                    if (kept := [v for v in versions if h.startswith(SESSION_SECTIONS) or turn - v.turn <= KEEP_TURNS])}
        rows = {k: t for k, t in self.rows.items() if turn - t <= KEEP_TURNS}
        return ClientMemo(sent=sent, sections=sections, rows=rows, row_refs={k: t for k, t in self.row_refs.items() if t == turn})


_ROW_REF = re.compile(r"\b(?<!gen_)([a-z]+_\d+)\b")
_NOT_ROW_WORDS = re.compile(r"\b[\w.]+:|[^a-zA-Z]+")


def row_ref(line: str) -> str | None:
    """The ref whose row a notice's line shows, in any of the notices' forms ('- shop_1 | salmon fillets | …',
    '  [ ] 1 bag arugula (shop_17) - …', 'removed.ref: recipe_8; …label: Tzatziki'): its first ref (a saved row's,
    not a draft's), when the line says more than refs and labels ('recipes: recipe_5, recipe_4' shows no row)."""
    found = _ROW_REF.search(line)
    if found is None:
        return None
    return found.group(1) if _NOT_ROW_WORDS.sub("", _ROW_REF.sub("", line)) else None


def digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


def _line_digests(text: str) -> list[str]:
    return [digest(line)[:8] for line in text.splitlines()]


def _start(line: str) -> str:
    """A digest of the line's start, the text before its first ':' ('- Shopping list', '- recipe_1'); '' for none."""
    start = line.split(":", 1)[0] if ":" in line else ""
    return digest(start)[:8] if start.strip() and len(start) <= 40 else ""


def split_sections(text: str) -> list[str]:
    """`text` cut before each '## ' heading (the first piece may have no heading)."""
    starts = [match.start() for match in _HEADING.finditer(text)]
    if not starts or starts[0] != 0:
        starts = [0, *starts]
    bounds = [*starts, len(text)]
    return [text[a:b].strip() for a, b in zip(bounds, bounds[1:]) if text[a:b].strip()]


ONCE_A_TURN = frozenset({"## Conversation"})
"""Sections a client is sent once a turn: a later role's version (cut to another budget) says nothing new to the model
that holds the conversation itself."""

QUIET = frozenset({"## Current task", "## Conversation flow"})
"""Sections whose unchanged copy goes unnamed in the closing line: for a stage client they hold only the day and the
conversation's phase, which stay as sent until they change (then the section is sent again)."""


def elide_sections(text: str, memo: ClientMemo, turn: int, *, full: bool, role: str = "", held: frozenset[str] = frozenset()) -> str:
    """`text` without the '## ' sections the client already has verbatim (any version it was sent, for any role):
    one closing line names them. A section that only grew from a version it has, or changed lines after their start,
    comes as those lines (each under the '### ' heading it sits in) when that is shorter; else whole, each run of ref
    lines it has verbatim named by its refs. Where the client was sent another version of the heading since, the
    version meant is named by role and turn (a `QUIET` one goes unnamed); where that would not tell them apart, it is
    not relied on. The `held`
    lines (stripped) the client has in another form (the rows a notice showed) are not sent but count as sent: a later
    version that still has them does not send them either; a section left with nothing else is left out."""
    out, unchanged = [], []
    for section in split_sections(text):
        heading, _, body = section.partition("\n")
        if not heading.startswith("## ") or not body.strip():
            out.append(section)
            continue
        versions = [] if full else memo.sections.get(heading, [])
        exact = next((v for v in reversed(versions) if v.digest == digest(body)), None)
        if exact is not None and (named := _which(exact, versions)) is not None:
            if heading not in QUIET and not _all_held(body, held):  # rows only a notice showed were never sent here
                unchanged.append(heading[3:] + named)
            continue
        same_turn = next((v for v in reversed(versions) if v.turn == turn and v.role), None) if heading in ONCE_A_TURN else None
        if same_turn is not None:  # the conversation is the client's own: one version of it a turn is enough
            unchanged.append(f"{heading[3:]}, as sent to {same_turn.role} this turn")
            continue
        grown = _grown_from(body, versions)
        known = {line for v in versions for line in v.lines}
        memo.remember_section(heading, body, turn, role)
        lines = body.splitlines()
        if heading in ONCE_A_TURN and versions and (said := _said_since(lines, versions, known)) is not None:
            if said:
                out.append(_grown(f"{heading} (as sent before, with these lines added:)", lines, said))
            else:
                unchanged.append(heading[3:])
            continue
        if grown is not None:
            grown = (grown[0], [index for index in grown[1] if lines[index].strip() not in held], grown[2])
        if grown is not None and not grown[1]:  # only blank lines or lines the client holds differ
            unchanged.append(heading[3:] + grown[0])
            continue
        rest = "\n".join([heading, *lines])
        if any(line.strip() in held for line in lines):  # what the client holds goes, and any heading left empty
            rest = without_empty_headings("\n".join([heading, *(line for line in lines if line.strip() not in held)]))
            if rest.strip() == heading:
                continue
        whole = "\n".join(_known_refs_named(rest.splitlines(), known))
        if grown is not None:
            what = "added or replacing the line with the same start" if grown[2] else "added"
            new_lines = _grown(f"{heading} ({grown[0][2:] or 'as sent before'}, with these lines {what}:)", lines, grown[1])
            whole = new_lines if len(new_lines) < len(whole) else whole
        out.append(whole)
    if unchanged:
        out.append(f"(As sent before, unchanged: {'; '.join(unchanged)}.)")
    return "\n\n".join(out)


def _all_held(body: str, held: frozenset[str]) -> bool:
    """Whether every line of a section's body but its '### ' headings is a row the client holds from a notice: such a
    version was left out whole, so it is not 'as sent before'."""
    rows = [line.strip() for line in body.splitlines() if line.strip() and not line.startswith("### ")]
    return bool(rows) and all(row in held for row in rows)


_FOLD = re.compile(r"^T(\d+): ")
"""A conversation turn folded into one line ('T3: User: "…" / Alfred: "…"') when it leaves the recent ones."""


def _said_since(lines: list[str], versions: list[Version], known: set[str]) -> list[int] | None:
    """For the conversation, which the client's model holds itself: the indexes of the lines it was not sent, when
    the rest are lines it has (in any version) or the folds of turns it was sent whole (a version sent in that turn
    or later: the split between earlier and recent turns shifted, nothing was said); None when a fold is of a turn it
    was never sent, so the section is compared as any other."""
    said = [index for index, line in enumerate(lines) if line.strip() and not line.startswith("### ") and digest(line)[:8] not in known]
    folds = [found for index in said if (found := _FOLD.match(lines[index])) is not None]
    if any(not any(v.turn >= int(found.group(1)) for v in versions) for found in folds):
        return None
    return [index for index in said if _FOLD.match(lines[index]) is None]


def _which(version: Version, versions: list[Version]) -> str | None:
    """'' for the newest version of a heading; ', as sent to think in turn 3' for an older one; None when another
    version sent since has the same role and turn (the words would not tell them apart)."""
    later = versions[versions.index(version) + 1:]
    if not later:
        return ""
    if any(v.role == version.role and v.turn == version.turn for v in later):
        return None
    return f", as sent to {version.role} in turn {version.turn}" if version.role else None


def _grown_from(body: str, versions: list[Version]) -> tuple[str, list[int], bool] | None:
    """The version `body` grew from (every line of it still there in order, or replaced by a line with the same
    start) with the fewest new lines: how it is named, the indexes of the new or replacing lines that are not blank,
    and whether any replaces one; None when it grew from none."""
    lines = body.splitlines()
    best: tuple[str, list[int], bool] | None = None
    for version in versions:
        found = _added_lines(lines, version)
        named = _which(version, versions)
        if found is None or named is None:
            continue
        added = [index for index in found[0] if lines[index].strip()]
        if best is None or len(added) <= len(best[1]):
            best = (named, added, found[1])
    return best


def _added_lines(lines: list[str], version: Version) -> tuple[list[int], bool] | None:
    """The indexes of `lines` that are new or replace a line of `version` with the same start (unique in it), when
    every line of it is still there in order or so replaced, and whether one is replaced; else None."""
    starts = version.starts if len(version.starts) == len(version.lines) else [""] * len(version.lines)
    at, added, replaced = 0, [], False
    for index, line in enumerate(lines):
        if at < len(version.lines) and digest(line)[:8] == version.lines[at]:
            at += 1
            continue
        start = _start(line)
        if at < len(version.lines) and start and start == starts[at] and starts.count(start) == 1:
            at, replaced = at + 1, True
        added.append(index)
    return (added, replaced) if at == len(version.lines) else None


_REF_LINE = re.compile(r"^(\s*)- ((?:gen_)?[a-z]+_\d+)\b")


def _known_refs_named(lines: list[str], known: set[str]) -> list[str]:
    """`lines` with each run of ref lines the client has verbatim (from a version of the same heading) named by
    their refs on one line: '- as sent before: meal_1, meal_2'."""
    out: list[str] = []
    run: list[str] = []
    indent = ""
    for line in [*lines, ""]:
        found = _REF_LINE.match(line)
        if found is not None and digest(line)[:8] in known and (not run or found.group(1) == indent):
            indent = found.group(1)
            run.append(found.group(2))
            continue
        if run:
            out.append(f"{indent}- as sent before: {', '.join(run)}")
            run = []
        found = _REF_LINE.match(line)
        if found is not None and digest(line)[:8] in known:
            indent, run = found.group(1), [found.group(2)]
            continue
        out.append(line)
    return out[:-1]


def _grown(title: str, lines: list[str], added: list[int]) -> str:
    """`title` and the new lines, each after its '### ' heading."""
    out = [title]
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
