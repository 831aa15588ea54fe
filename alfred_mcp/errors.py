"""Every error alfred-mcp raises on purpose, with fields a client can act on.

    AlfredError
    ├── InputError                 the caller asked for something invalid; nothing was changed
    │   ├── UnknownTableError      table not in the kitchen schema
    │   ├── UnknownColumnError     column not in the table
    │   ├── InvalidFilterError     bad operator, value or shape in a filter
    │   ├── InvalidPayloadError    a row fails the table's JSON Schema
    │   ├── InvalidRefError        a ref of the wrong type or grammar where a ref is required
    │   ├── UnknownRefError        a well-formed ref this session never assigned
    │   ├── DeletedRefError        a ref whose row was deleted (says in which turn)
    │   ├── PendingDraftError      a gen_* ref used where a saved row is required
    │   ├── UnscopedWriteError     update/delete without filters and without all=true
    │   ├── UnknownSessionError    a session name the user does not have
    │   ├── ImportSourceError      a recipe source that cannot be read: not a recipe, too large, refused address
    │   ├── UnitMismatchError      a quantity whose unit cannot be converted to the one needed
    │   └── RoleOutputError        a role's output fails its contract (the validation errors say how)
    ├── StateError                 the request is valid but the state forbids it
    │   ├── BatchIncompleteError   a batch step cannot complete: items pending, or failed when all-or-nothing
    │   ├── OutOfOrderError        a turn stage submitted when another one is expected
    │   ├── UndoConflictError      the write to undo was changed since, or there is nothing to undo
    │   ├── DeclinedError          the user declined (or cancelled) a confirmation; nothing was changed
    │   ├── AllergenError          a write holds an allergen of the user (or would drop an allergy) without consent
    │   └── SessionConflictError   another call (another replica) changed the session first; retry
    ├── StoreError                 the database refused or failed (mapped from the driver)
    │   └── ConstraintViolationError  a NOT NULL / CHECK / UNIQUE / FK rule was broken
    ├── ModelError                 the model provider refused the request (API error message, status)
    │   ├── ModelUnavailableError  no answer: timeout, connection failure, retries exhausted, script ran out
    │   └── ModelOutputError       an answer that is not the JSON object that was asked for
    └── ConfigError                bad settings (path, URL, flag)

Messages never contain UUIDs, SQL or stack traces; `fields` carries the same facts as data.
"""

from __future__ import annotations

import sys
from collections.abc import Mapping
from typing import Any, ClassVar


class AlfredError(Exception):
    """Base class: `message` is for people and models, `fields` for programs."""

    code = "alfred_error"
    protocol_slip: ClassVar[bool] = False
    """A client's slip in driving the protocol (a stage out of order, a role output of the wrong shape): answered
    as an error, never a fact or failure of the turn (not in its call log)."""

    def __init__(self, message: str, **fields: Any) -> None:
        super().__init__(message)
        self.message = message
        self.fields = {key: value for key, value in fields.items() if value is not None}

    def to_dict(self) -> dict[str, Any]:
        """The error as structured content: code, message and its fields."""
        return {"code": self.code, "message": self.message, **self.fields}

    def __reduce__(self) -> tuple[Any, ...]:
        """Pickled whole, fields included (an error raised in a worker process arrives as it was raised)."""
        return (_rebuilt, (type(self), self.message, self.fields))


def _rebuilt(kind: type[AlfredError], message: str, fields: dict[str, Any]) -> AlfredError:
    return kind(message, **fields)


class InputError(AlfredError):
    code = "invalid_input"


class UnknownTableError(InputError):
    code = "unknown_table"


class UnknownColumnError(InputError):
    code = "unknown_column"


class InvalidFilterError(InputError):
    code = "invalid_filter"


class InvalidPayloadError(InputError):
    code = "invalid_payload"


class InvalidRefError(InputError):
    code = "invalid_ref"


class UnknownRefError(InputError):
    code = "unknown_ref"


class DeletedRefError(InputError):
    code = "deleted_ref"


class PendingDraftError(InputError):
    code = "pending_draft"


class UnmatchedNameError(InputError):
    """A name given where a ref is asked that means no single row (none, several, or only by some words for a
    call that changes rows): its candidates are listed with their refs."""

    code = "unmatched_name"


class UnscopedWriteError(InputError):
    code = "unscoped_write"


class UnknownSessionError(InputError):
    code = "unknown_session"


class ImportSourceError(InputError):
    code = "import_failed"


class UnitMismatchError(InputError):
    code = "unit_mismatch"


class RoleOutputError(InputError):
    code = "role_output_invalid"
    protocol_slip = True


class StateError(AlfredError):
    code = "state_error"


class BatchIncompleteError(StateError):
    code = "batch_incomplete"


class StoreError(AlfredError):
    code = "store_error"


class ConstraintViolationError(StoreError):
    code = "constraint_violation"


class ModelError(AlfredError):
    """`message` says in one sentence which model failed and how; `fields["hint"]`, when set, what to try."""

    code = "model_error"
    remote = ""
    """The server's own words (an error body), for the log at -v and for telling refusals apart; never shown."""


class ModelUnavailableError(ModelError):
    code = "model_unavailable"


class ModelOutputError(ModelError):
    code = "model_output"


class ConfigError(AlfredError):
    code = "config_error"

    @classmethod
    def unreadable_json(cls, setting: str, file: object, error: OSError | ValueError) -> ConfigError:
        """The JSON file a setting names cannot be read or is not JSON: the setting, the file and why, in one line."""
        why = error.strerror or str(error) if isinstance(error, OSError) else f"not JSON ({error})"
        return cls(f"{setting}={file}: cannot read it: {why}.", field=setting, value=str(file))

    @classmethod
    def missing_extra(cls, what: str, extra: str, setting: str) -> ConfigError:
        """`what` needs the optional dependencies `extra`: the install command for the Python this server runs on (a
        bare `pip` may be another Python's, and the server would still lack it), from the checkout or as a package."""
        python = sys.executable or "python3"
        return cls(f"{what} needs the {extra} extra, which this alfred-mcp lacks: run `{python} -m pip install -e '.[{extra}]'` "
                   f"in the checkout (pipx: `pipx install --force '.[{extra}]'`).", field=setting)


class AllergenError(StateError):
    code = "allergen_conflict"


class KeptRowError(StateError):
    """A write would remove what the user said stays ('leave the chicken'); nothing was changed."""

    code = "kept_row"


class OutOfOrderError(StateError):
    code = "out_of_order"
    protocol_slip = True


class SessionConflictError(StateError):
    """Another call saved the session since this one loaded it; nothing of this call was saved."""

    code = "session_conflict"


class UndoConflictError(StateError):
    """The kitchen write to undo cannot be reverted as it was (rows changed since), or there is none."""

    code = "undo_conflict"


class DeclinedError(StateError):
    """The user answered a confirmation with decline or cancel; the call changed nothing."""

    code = "declined"


def require_one_of(arguments: Mapping[str, Any], described: dict[str, str]) -> None:
    """Exactly one of two alternative arguments (`described`: each one's name and what it is) is in `arguments`
    (absent or None: not sent).

    Raises:
        InputError: neither or both were given (naming the first alternative as the field).
    """
    sent = [name for name in described if arguments.get(name) is not None]
    if len(sent) == 1:
        return
    first, second = (f"'{name}' ({what})" for name, what in described.items())
    tail = "not both" if sent else "one of them"
    raise InputError(f"Give either {first} or {second}, {tail}.", field=next(iter(described)))
