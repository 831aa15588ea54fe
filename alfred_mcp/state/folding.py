"""Folded history: older turns kept as one short line each, under a hard character cap.

Turn narratives and conversation history both keep their last few turns whole and fold the
rest into a `FoldedLines`: one line per turn, oldest dropped first (and counted) when the cap
is reached, so the folded text never grows with the session. A model-written summary can
replace everything folded so far (`replace_with_summary`); lines folded after it are appended.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

MIN_CAP = 80
ELLIPSIS = "…"


class FoldedLines(BaseModel):
    """The folded part of a history: an optional summary, then one line per later turn."""

    model_config = ConfigDict(extra="forbid")

    summary: str | None = Field(default=None, description="A model-written summary of the turns folded before `lines`.")
    summary_through: int | None = Field(default=None, description="The last turn the summary covers.")
    lines: list[str] = Field(default_factory=list, description="One line per folded turn, oldest first.")
    omitted: int = Field(default=0, description="Folded turns dropped to stay within the cap.")
    first_turn: int | None = Field(default=None, description="The first turn ever folded.")
    last_turn: int | None = Field(default=None, description="The last turn folded.")

    @property
    def is_empty(self) -> bool:
        return not (self.summary or self.lines or self.omitted)


def clip(text: str, width: int) -> str:
    """`text` on one line, cut to `width` characters with an ellipsis."""
    flat = " ".join(text.split())
    return flat if len(flat) <= width else flat[: max(width - 1, 0)].rstrip() + ELLIPSIS


def fold_line(folded: FoldedLines, text: str, *, turn: int, cap: int) -> FoldedLines:
    """Append 'T<turn>: <text>'; drop (and count) the oldest lines until the render fits `cap`."""
    cap = max(cap, MIN_CAP)
    lines = [*folded.lines, clip(f"T{turn}: {text}", cap // 2)]
    omitted = folded.omitted
    first = folded.first_turn if folded.first_turn is not None else turn
    draft = folded.model_copy(update={"lines": lines, "omitted": omitted, "first_turn": first, "last_turn": turn})
    while len(lines) > 1 and len(render_folded(draft)) > cap:
        lines = lines[1:]
        omitted += 1
        draft = draft.model_copy(update={"lines": lines, "omitted": omitted})
    return draft


def replace_with_summary(folded: FoldedLines, summary: str, *, through_turn: int, cap: int) -> FoldedLines:
    """Everything folded up to `through_turn` replaced by `summary` (cut to half the cap).

    Lines of later turns stay; the omitted count restarts, since the summary covers those turns.
    """
    later = [line for line in folded.lines if _line_turn(line) > through_turn]
    return folded.model_copy(
        update={
            "summary": clip(summary, max(cap, MIN_CAP) // 2),
            "summary_through": through_turn,
            "lines": later,
            "omitted": 0,
        }
    )


def _line_turn(line: str) -> int:
    """The turn a folded line starts with ('T12: ...' -> 12)."""
    head = line.split(":", 1)[0]
    return int(head[1:]) if head[1:].isdigit() else 0


def render_folded(folded: FoldedLines) -> str:
    """The folded history as text: summary, a note of dropped turns, then the lines."""
    parts: list[str] = []
    if folded.summary:
        parts.append(folded.summary)
    if folded.omitted:
        noun = "turn" if folded.omitted == 1 else "turns"
        parts.append(f"({folded.omitted} earlier {noun} not shown)")
    parts.extend(folded.lines)
    return "\n".join(parts)
