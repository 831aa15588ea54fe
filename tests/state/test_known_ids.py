"""The ids a request knows, in every form a leak could take, and UUID-shaped text it does not know."""

from __future__ import annotations

import uuid

import pytest

from alfred_mcp.server.leak_guard import find_uuid
from alfred_mcp.state.known_ids import KnownIds, knowing_ids, note_ids

ROW = str(uuid.UUID("01936f5e-7b1c-7d2e-8f3a-4b5c6d7e8f90"))
TYPED = "123e4567-e89b-12d3-a456-426614174000"


@pytest.mark.parametrize("form", [ROW, ROW.upper(), ROW.replace("-", ""), ROW.replace("-", "").upper(),
                                  f"ab{ROW.replace('-', '')}cd", f"{TYPED.replace('-', '')}{ROW.replace('-', '')}"],
                         ids=["dashed", "upper", "compact", "compact-upper", "inside-hex", "after-another-id"])
def test_a_noted_id_is_known_in_every_form(form: str) -> None:
    known = KnownIds()
    known.note([ROW, None, 3])
    assert known.knows(form)


def test_uuid_shaped_text_no_request_handled_is_not_an_id() -> None:
    known = KnownIds()
    known.note([ROW])
    assert not known.knows(TYPED) and not known.knows(TYPED.replace("-", ""))


def test_a_source_is_asked_only_about_what_was_not_noted_and_in_its_dashed_form() -> None:
    asked: list[list[str]] = []
    known = KnownIds()
    known.add_source(lambda ids: asked.append(ids) or ROW in ids)
    assert known.knows(ROW.replace("-", "").upper()) and asked == [[ROW]]
    assert not known.knows(TYPED)


def test_the_guard_outside_a_request_counts_every_uuid_and_inside_only_known_ids() -> None:
    payload = {"notes": f"see https://x.test/{TYPED}", "id": "recipe_1"}
    assert find_uuid(payload) == TYPED
    with knowing_ids():
        note_ids([ROW])
        assert find_uuid(payload) is None
        assert find_uuid({**payload, "leak": ROW}) == ROW
        with knowing_ids() as inner:  # a request inside a request shares its ids
            assert inner.knows(ROW)
