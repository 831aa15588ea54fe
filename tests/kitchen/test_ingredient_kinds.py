"""Kinds of one ingredient: a can is not the fresh thing, dried and frozen are not fresh, and cuts named apart stay apart,
in the pantry match (`Stock.matching`), the needs a list is made from (`needs_of`) and makeable's coverage."""

from __future__ import annotations

import itertools

import pytest
from hypothesis import given
from hypothesis import strategies as st

from alfred_mcp.kitchen.ingredient_kinds import (
    CUT_AXES,
    DRIED,
    DRIED_BY_DEFAULT,
    FORM_WORDS,
    FORMS,
    FRESH,
    KIND_ONLY,
    NOT_PRODUCE,
    PRODUCE,
    kind_of,
    same_kind,
    with_cuts,
)
from alfred_mcp.kitchen.plurals import plural as plural_of
from alfred_mcp.kitchen.taxonomy import default_taxonomy
from alfred_mcp.operations.search import pantry_coverage
from alfred_mcp.state.pantry import Stock, name_key, needs_of

TAXONOMY = default_taxonomy()
PRODUCE_ITEMS = sorted({member for category in PRODUCE for member in TAXONOMY.expand(category)
                        if not any(TAXONOMY.matches(member, other) for other in NOT_PRODUCE)
                        and not TAXONOMY.resolve_category(member)})
MEATS = sorted(member for category in ("poultry", "red meat", "pork", "fish") for member in TAXONOMY.category(category).members
               if not TAXONOMY.resolve_category(member))
CUTS = [(axis, phrase) for axis, phrases in CUT_AXES.items() for phrase in phrases]


def _written(form: str, item: str) -> tuple[str, str | None]:
    """(name, unit) of a line of `item` in `form`: 'canned tomatoes', or a can of it."""
    return (item, "can") if form == "can" else (f"{form} {item}", None)


@pytest.mark.parametrize("item", PRODUCE_ITEMS)
def test_every_produce_item_in_another_form_is_not_the_pantrys_plain_one(item: str) -> None:
    """The pantry's plain item is fresh (dried for the herbs a recipe means dried): a line in another form never
    draws on it, nor the reverse; a line in the same form does."""
    plain = {"name": item, "quantity": 2}
    assert kind_of(item).form == (DRIED if item in DRIED_BY_DEFAULT else FRESH)
    for form in ("canned", "can", "dried", "frozen", "fresh"):
        name, unit = _written(form, item)
        other = {"name": name, "quantity": 1, "unit": unit}
        same = kind_of(name, unit).form == kind_of(item).form
        assert (Stock([plain]).matching(name, None, kind_of(name, unit)) == [plain]) is same, (form, item)
        assert (Stock([other]).matching(item, None) == [other]) is same, (form, item)
        assert Stock([other]).matching(name, None, kind_of(name, unit)) == [other], (form, item)
        needs = needs_of([("a", {"name": item, "quantity": 1}, 1.0), ("b", {"name": name, "quantity": 1, "unit": unit}, 1.0)])
        assert len(needs) == (1 if same else 2), (form, item)
        assert (pantry_coverage([other], [plain]).missing == ()) is same
        assert (pantry_coverage([plain], [other]).missing == ()) is same


@pytest.mark.parametrize(("one", "other"), list(itertools.combinations(FORMS, 2)))
def test_two_forms_said_are_two_kinds_and_a_line_that_says_none_goes_with_either(one: str, other: str) -> None:
    assert not same_kind(kind_of(f"{one} black beans"), kind_of(f"{other} black beans"))
    assert same_kind(kind_of("black beans"), kind_of(f"{one} black beans"))
    assert same_kind(kind_of(f"{one} or {other} black beans"), kind_of(f"{one} black beans"))


@pytest.mark.parametrize("meat", MEATS)
@pytest.mark.parametrize(("axis", "phrase"), CUTS)
def test_every_cut_word_keeps_a_line_apart_from_another_answer_and_joins_an_unsaid_one(meat: str, axis: str, phrase: str) -> None:
    """'boneless' against 'bone-in' is two purchases (in the name or the notes); a line that does not say joins either."""
    cut = CUT_AXES[axis][phrase]
    others = {value for value in CUT_AXES[axis].values() if value != cut}
    said = kind_of(meat, "lb", phrase)
    assert dict(said.cuts)[axis] == cut
    assert same_kind(said, kind_of(meat, "lb")) and same_kind(said, kind_of(f"{phrase} {meat}", "lb"))
    for value in others:
        assert not same_kind(said, kind_of(meat, "lb", value))
        needs = needs_of([("a", {"name": meat, "quantity": 1, "unit": "lb", "notes": phrase}, 1.0),
                          ("b", {"name": meat, "quantity": 2, "unit": "lb", "notes": value}, 1.0)])
        assert [need.quantity for need in needs] == [pytest.approx(453.59237, rel=1e-6), pytest.approx(907.18474, rel=1e-6)]
        assert len({with_cuts(need.name, need.kind) for need in needs}) == 2


def test_cutting_at_home_is_not_another_purchase() -> None:
    """Chunks or slices are preparation: 'chicken thighs, cut into chunks' joins 'chicken thighs, sliced'."""
    needs = needs_of([("a", {"name": "chicken thighs", "quantity": 1, "unit": "lb", "notes": "cut into chunks"}, 1.0),
                      ("b", {"name": "chicken thighs", "quantity": 1, "unit": "lb", "notes": "sliced"}, 1.0)])
    assert len(needs) == 1


def test_boneless_and_bone_in_thighs_are_two_lines_each_named_for_its_cut() -> None:
    needs = needs_of([("tikka", {"name": "boneless chicken thighs", "quantity": 2, "unit": "lb"}, 1.0),
                      ("greek", {"name": "chicken thighs", "quantity": 4, "unit": "lb", "notes": "bone-in, skin-on"}, 1.0),
                      ("stew", {"name": "chicken thighs", "quantity": 1, "unit": "lb"}, 1.0)])
    assert [(with_cuts(need.name, need.kind), need.recipes) for need in needs] == [
        ("boneless chicken thighs", ["tikka", "stew"]), ("bone-in, skin-on chicken thighs", ["greek"])]


@given(st.sampled_from(KIND_ONLY), st.sampled_from(PRODUCE_ITEMS), st.sampled_from(MEATS), st.booleans())
def test_a_word_that_only_says_the_kind_does_not_hide_the_same_thing(word: str, produce: str, meat: str, many: bool) -> None:
    """'fresh cilantro' is the pantry's cilantro, 'boneless chicken thighs' its chicken thighs noted boneless (by name,
    without a catalog id): words that only say the kind are not part of the name, whether in the name or the notes."""
    item = produce if word in FORM_WORDS else meat
    named = plural_of(item) if many and name_key(plural_of(item)) == name_key(item) else item
    row = {"name": named, "quantity": 1, "notes": word}
    assert Stock([row]).matching(f"{word} {item}", None) == [row]


SEASONINGS = ["salt", "black pepper", "olive oil", "lemon", "garlic", "butter"]


@pytest.mark.parametrize(("one", "other"), list(itertools.combinations(SEASONINGS, 2)))
@pytest.mark.parametrize("joined", [" and ", " & "])
def test_a_line_naming_two_things_is_in_the_pantry_when_each_is(one: str, other: str, joined: str) -> None:
    """'Salt and pepper, to taste' is covered by the pantry's kosher salt and black pepper; with one missing, it is missing."""
    name = f"{one.split()[-1]}{joined}{other.split()[-1]}"
    both = [{"name": f"good {one}"}, {"name": other}]
    assert pantry_coverage([{"name": name}], both).missing == ()
    assert pantry_coverage([{"name": name}], both[:1]).missing == (name,)
