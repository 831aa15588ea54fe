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

KEEP_TURNS = 6
"""Context sections sent more than this many turns ago are forgotten (schemas and instructions are kept)."""
_HEADING = re.compile(r"^## ", re.MULTILINE)


class Sent(BaseModel):
    model_config = ConfigDict(extra="forbid")

    digest: str
    turn: int


class ClientMemo(BaseModel):
    """Digests of what the stage client was sent, by key: 'schema:<role>', 'instructions:<template>', '## <heading>'."""

    model_config = ConfigDict(extra="forbid")

    sent: dict[str, Sent] = Field(default_factory=dict)

    def seen(self, key: str, text: str) -> int | None:
        """The turn `text` was sent under `key`, if it is unchanged since; else None."""
        found = self.sent.get(key)
        return found.turn if found is not None and found.digest == digest(text) else None

    def remember(self, key: str, text: str, turn: int) -> None:
        self.sent[key] = Sent(digest=digest(text), turn=turn)

    def pruned(self, turn: int) -> ClientMemo:
        """Without context sections older than KEEP_TURNS turns."""
        kept = {k: v for k, v in self.sent.items() if not k.startswith("## ") or turn - v.turn <= KEEP_TURNS}
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
    """`text` without the '## ' sections the client already has (unchanged): one closing line names them."""
    out, unchanged = [], []
    for section in split_sections(text):
        heading, _, body = section.partition("\n")
        if not heading.startswith("## ") or not body.strip():
            out.append(section)
            continue
        sent = None if full else memo.seen(heading, body)
        if sent is None:
            memo.remember(heading, body, turn)
            out.append(section)
        else:
            unchanged.append(heading[3:])
    if unchanged:
        out.append(f"(As sent before, unchanged: {'; '.join(unchanged)}.)")
    return "\n\n".join(out)
