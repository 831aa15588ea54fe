"""Every session document, declared once: its key (or key family) and the model it holds.

A session keeps its deterministic state beside the registry as JSON documents (drafts, batch
manifests, constraints, curation, narratives, conversation, the call log, agent turns), so a
restart or another replica sees the same state. Code reads and writes them only through these
declarations (`Session.read`, `Session.write`, `Session.read_family`), never by key strings.

The stored key strings are a persistence format: changing one orphans what users' sessions hold.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from pydantic import BaseModel

from alfred_mcp.state.agent_turn import TurnState
from alfred_mcp.state.batch import BatchManifest
from alfred_mcp.state.call_log import CallRecord, to_document
from alfred_mcp.state.client_memo import ClientMemo
from alfred_mcp.state.constraints import SessionConstraints
from alfred_mcp.state.conversation import ConversationHistory
from alfred_mcp.state.curation import CurationState
from alfred_mcp.state.drafts import Draft
from alfred_mcp.state.narrative import TurnExecutionSummary, TurnPlan
from alfred_mcp.state.understanding import NarrativeIndex, Understanding
from alfred_mcp.state.undo import UndoEntry

T = TypeVar("T")
M = TypeVar("M", bound=BaseModel)
Json = Any
"""A JSON value as stored (dicts, lists, str, int, float, bool, None)."""


@dataclass(frozen=True)
class Codec(Generic[T]):
    """How a document's value becomes JSON and back."""

    load: Callable[[Json], T]
    dump: Callable[[T], Json]
    immutable: bool = False
    """Values are never changed in place (frozen): a session may hand out the value it decoded or wrote last."""


def model_codec(model: type[M], *, exclude_defaults: bool = False) -> Codec[M]:
    """A pydantic model stored as its JSON dump."""
    return Codec(model.model_validate, lambda value: value.model_dump(mode="json", exclude_defaults=exclude_defaults))


def _int(value: Json) -> int:
    return int(value)


INT = Codec[int](_int, _int)


@dataclass(frozen=True)
class Document(Generic[T]):
    """One document of a session, under a fixed key."""

    key: str
    codec: Codec[T]


@dataclass(frozen=True)
class DocumentFamily(Generic[T]):
    """Documents of one kind, one per suffix (a turn number, a ref): `prefix` + suffix."""

    prefix: str
    codec: Codec[T]

    def at(self, suffix: str | int) -> Document[T]:
        return Document(f"{self.prefix}{suffix}", self.codec)

    def suffix_of(self, key: str) -> str:
        return key.removeprefix(self.prefix)


CURATION = Document("curation", Codec(CurationState.from_dict, CurationState.to_dict))
"""Understand's curation: retained and dropped refs, the decision log."""
CONSTRAINTS = Document("constraints", model_codec(SessionConstraints))
"""The session's merged constraints (the permanent part is re-read from preferences)."""
UNDERSTANDING = Document("understanding", model_codec(Understanding, exclude_defaults=True))
"""The latest understanding submitted (its `turn` says which)."""
CONVERSATION = Document("conversation", model_codec(ConversationHistory, exclude_defaults=True))
"""The last exchanges verbatim and the folded earlier ones."""
NARRATIVE_INDEX = Document("narrative_digest", model_codec(NarrativeIndex))
"""Which closed turns' narratives are kept whole, and the folded earlier ones."""
NARRATIVES = DocumentFamily("narrative:", model_codec(TurnExecutionSummary, exclude_defaults=True))
"""A closed turn's narrative, by turn number."""
PLANS = DocumentFamily("plan:", model_codec(TurnPlan, exclude_defaults=True))
"""Think's plan of a turn and its steps' outcomes, by turn number."""
DRAFTS = DocumentFamily("draft:", Codec(Draft.from_dict, Draft.to_dict, immutable=True))
"""Generated content held whole until saved or discarded, by gen ref."""
BATCHES = DocumentFamily("batch:", Codec(BatchManifest.from_dict, BatchManifest.to_dict))
"""Batch manifests, by batch ref."""
BATCH_COUNTER = Document("batch_counter", INT)
"""The last batch number assigned (batch refs are never reused)."""
CALLS = DocumentFamily("ledger:", Codec(CallRecord.model_validate, to_document))
"""The call log: one record per tool call, keyed `<turn>:<seq>` so keys sort in call order."""
AGENT_CURRENT_TURN = Document("agent:current", INT)
"""The number of the newest agent turn."""
AGENT_TURNS = DocumentFamily("agent:turn:", model_codec(TurnState))
"""An agent turn stage by stage, by turn number."""
UNDO = DocumentFamily("undo:", model_codec(UndoEntry, exclude_defaults=True))
"""The session's last kitchen writes (before/after images) for kitchen_undo, by entry number (bounded)."""
CLIENT_MEMO = Document("client_memo", model_codec(ClientMemo))
"""What turn_context already sent the stage client (schemas, instructions, context sections), as digests."""

ALL: tuple[Document[Any] | DocumentFamily[Any], ...] = (
    CURATION, CONSTRAINTS, UNDERSTANDING, CONVERSATION, NARRATIVE_INDEX, NARRATIVES, PLANS, DRAFTS, BATCHES,
    BATCH_COUNTER, CALLS, AGENT_CURRENT_TURN, AGENT_TURNS, UNDO, CLIENT_MEMO,
)


PER_TURN: tuple[DocumentFamily[Any], ...] = (CALLS, PLANS, AGENT_TURNS, NARRATIVES)
"""Families with documents per turn: kept for the retention window of turns (narratives kept whole stay too)."""
DEFERRABLE: tuple[DocumentFamily[Any], ...] = (CALLS,)
"""Families a read may leave unsaved for a moment (write-behind): the call log, never refs or state."""


def turn_of(family: DocumentFamily[Any], key: str) -> int | None:
    """The turn a per-turn document belongs to ('ledger:12:00003' -> 12), None when the key has none."""
    head = family.suffix_of(key).split(":", 1)[0]
    return int(head) if head.isdigit() else None


def call_key(turn: int, seq: int) -> Document[CallRecord]:
    """Call `seq` (from 1) of `turn` in the call log; keys sort in call order."""
    return CALLS.at(f"{turn}:{seq:05d}")


def calls_prefix(turn: int) -> DocumentFamily[CallRecord]:
    """The call records of one turn, as a family of their own."""
    return DocumentFamily(f"{CALLS.prefix}{turn}:", CALLS.codec)
