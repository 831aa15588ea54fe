"""A shopping line's source (what it was listed for) and its extra amounts, read back as written, for any name."""

from __future__ import annotations

import re
from datetime import date

import pytest
from hypothesis import given
from hypothesis import strategies as st

from alfred_mcp.kitchen.bought_as import is_tap_water
from alfred_mcp.kitchen.measures import convert, dimension
from alfred_mcp.kitchen.shopping_lines import (
    covering,
    extra_amounts,
    joined_source,
    meal_entry,
    own_notes,
    parsed_amount,
    recipe_entry,
    shopping_text,
    shown_gain,
    source_entries,
    source_text,
    with_extra_amounts,
    with_pantry_held,
)

NAMES = st.text(alphabet="abcdefghijklmnopqrstuvwxyz -&'(),;", min_size=1, max_size=40).map(lambda name: " ".join(name.split())).filter(
    lambda name: any(c.isalpha() for c in name))
DAYS = st.dates(min_value=date(2020, 1, 1), max_value=date(2040, 12, 31))
MEAL_TYPES = st.sampled_from(["breakfast", "lunch", "dinner", "snack"])
SERVINGS = st.integers(min_value=1, max_value=1_000)


@given(st.lists(st.tuples(NAMES, DAYS, MEAL_TYPES, SERVINGS, st.booleans()), min_size=1, max_size=6))
def test_a_source_reads_back_as_the_uses_it_was_written_for(uses: list[tuple[str, date, str, int, bool]]) -> None:
    entries = [meal_entry(name, day, kind, n) if planned else recipe_entry(name, n) for name, day, kind, n, planned in uses]
    read = source_entries(joined_source(entries))
    assert [(entry.identity, entry.servings) for entry in read] == list(
        dict.fromkeys((entry.identity, entry.servings) for entry in entries))


@given(NAMES | st.sampled_from(["Chicken, Leek Pie", "Stew (Mom's)", "Salt; Pepper Steak"]), DAYS, MEAL_TYPES, SERVINGS)
def test_a_use_is_covered_by_its_own_entry_and_by_the_recipe_named_plainly(name: str, day: date, kind: str, n: int) -> None:
    meal = meal_entry(name, day, kind, n)
    plain = recipe_entry(name, None)
    assert covering([meal.text], meal.identity, plain.identity) == meal
    assert covering([plain.text], meal.identity, plain.identity) is not None  # a person's "Mushroom Risotto"
    assert covering([recipe_entry(name, n).text], meal.identity, plain.identity) is None  # listed on its own: another use


def test_sources_written_before_tracking_are_read_as_plain_recipe_names() -> None:
    entries = source_entries("Greek Lemon Chicken and Potatoes, Red Lentil Soup")
    assert [(entry.identity, entry.servings) for entry in entries] == [
        ("Greek Lemon Chicken and Potatoes", None), ("Red Lentil Soup", None)]


@given(st.lists(st.sampled_from(["1 cup", "200 g", "2 tbsp", "1 carton"]), max_size=3), st.none() | st.just("something dry"))
def test_extra_amounts_live_beside_a_persons_notes(amounts: list[str], notes: str | None) -> None:
    written = with_extra_amounts(notes, amounts)
    assert extra_amounts(written) == amounts and own_notes(written) == notes
    assert all(parsed_amount(amount) is not None for amount in amounts)


@pytest.mark.parametrize(("row", "text"), [
    ({"name": "buttermilk", "quantity": 1, "unit": "carton", "notes": "+ 1 cup"}, "1 carton + 1 cup buttermilk"),
    ({"name": "shallots", "quantity": 4.5, "unit": None}, "5 shallots"),
    ({"name": "salmon fillets", "quantity": 1, "unit": "fillet"}, "1 salmon fillet"),
    ({"name": "arugula", "quantity": None, "unit": None}, "arugula"),
    ({"name": "pecorino romano", "quantity": 0.5625, "unit": "cup"}, "1 wedge pecorino romano (need 2/3 cup)"),
])
def test_a_line_reads_as_a_shopper_writes_it(row: dict[str, object], text: str) -> None:
    assert shopping_text(row) == text


@pytest.mark.parametrize(("row", "text"), [
    ({"name": "thyme", "quantity": 0.75, "unit": "tsp", "notes": "+ 2 sprigs"}, "1 bunch thyme (need 3/4 tsp + 2 sprigs)"),
    ({"name": "buttermilk", "quantity": 1, "unit": "carton", "notes": "+ 1 cup"}, "1 carton + 1 cup buttermilk"),
    ({"name": "fresh ginger", "quantity": 1.5, "unit": "tsp"}, "1 piece fresh ginger (need 1 1/2 tsp)"),
])
def test_a_line_bought_as_the_shop_sells_it_keeps_every_amount_it_needs(row: dict[str, object], text: str) -> None:
    assert shopping_text(row) == text


@pytest.mark.parametrize(("row", "held", "text"), [
    ({"name": "cremini mushrooms", "quantity": 1, "unit": "oz"}, "8 oz",
     "1 pack cremini mushrooms (short 1 oz; the pantry has 8 oz)"),
    ({"name": "heavy cream", "quantity": 0.25, "unit": "cup"}, "1/4 cup",
     "1 carton heavy cream (short 1/4 cup; the pantry has 1/4 cup)"),
    ({"name": "spaghetti", "quantity": 8, "unit": "oz"}, "1 lb", "1 box spaghetti (short 8 oz; the pantry has 1 lb)"),
    ({"name": "spaghetti", "quantity": 1.5, "unit": "lb"}, "1 lb", "2 boxes spaghetti (short 1 1/2 lb; the pantry has 1 lb)"),
    ({"name": "lemons", "quantity": 1, "unit": None}, "3", "1 lemon (short 1; the pantry has 3)"),
    ({"name": "thyme", "quantity": 0.75, "unit": "tsp", "notes": "+ 2 sprigs"}, "1 tsp",
     "1 bunch thyme (short 3/4 tsp + 2 sprigs; the pantry has 1 tsp)"),
])
def test_a_line_listed_for_what_the_pantry_lacks_says_it_is_the_shortfall(row: dict[str, object], held: str, text: str) -> None:
    """'(need 1 oz)' would read as all the recipe needs: a line that is the pantry's shortfall says 'short' and what the
    pantry held, and keeps it out of the person's own notes."""
    noted = {**row, "notes": with_pantry_held(row.get("notes"), held)}  # type: ignore[arg-type]
    assert shopping_text(noted) == text
    assert own_notes(noted["notes"]) is None and with_pantry_held(noted["notes"], "2 lb") == noted["notes"]


@given(NAMES, st.lists(st.tuples(DAYS, MEAL_TYPES, SERVINGS, st.booleans()), min_size=1, max_size=4))
def test_a_topped_up_line_names_its_recipe_once(name: str, uses: list[tuple[date, str, int, bool]]) -> None:
    """A line a person listed for the recipe ('Carbonara'), topped up for a use of it, names the recipe once: the
    use ('Carbonara (for 12)'), not 'Carbonara; Carbonara (for 12)'."""
    plain = recipe_entry(name, None)
    used = [meal_entry(name, day, kind, n) if planned else recipe_entry(name, n) for day, kind, n, planned in uses]
    read = source_entries(joined_source([plain, *used]))
    assert [entry.text for entry in read] == list(dict.fromkeys(entry.text for entry in used))
    assert joined_source([plain]) == plain.text  # on its own, the plain name stays


TOPPED_NAMES = ["black pepper", "fresh thyme", "pancetta", "baby bok choy", "shallots", "buttermilk", "olive oil",
                "garlic", "parmesan", "vegetable broth", "ginger", "crushed tomatoes", "lemons", "eggs"]
TOPPED_UNITS = [None, "tsp", "tbsp", "cup", "oz", "lb", "g", "head", "clove"]


def _shown(row: dict[str, object]) -> tuple[float, str | None] | None:
    """The amount a line shows to take: '1 bunch', '1 1/2 tbsp', '3 heads' -> (quantity, unit)."""
    text = shopping_text(row)
    amount = text[: text.index(str(row["name"]))].strip() if str(row["name"]) in text else ""
    return parsed_amount(amount or text.split()[0]) if amount or text[0].isdigit() else None


@given(st.sampled_from(TOPPED_NAMES), st.sampled_from(TOPPED_UNITS),
       st.integers(min_value=1, max_value=48), st.integers(min_value=0, max_value=48))
def test_a_top_up_adds_the_difference_the_line_shows(name: str, unit: str | None, eighths: int, more: int) -> None:
    """What a top-up reports it adds is the shown amount after less the shown amount before, in words a cook reads (to
    the nearest amount a measure holds: '2 1/4 tsp' to '1/3 cup' adds '4 1/2 tbsp', not 4 7/12); a line whose shown
    amount to take does not change (a bunch of thyme needed for more thyme) adds nothing."""
    before = {"name": name, "quantity": eighths / 8, "unit": unit}
    after = {"name": name, "quantity": (eighths + more) / 8, "unit": unit}
    gain, was, now = shown_gain(before, after), _shown(before), _shown(after)
    if was is None or now is None:
        return
    if was == now:
        assert gain is None, (shopping_text(before), shopping_text(after), gain)
        return
    assert gain is not None, (shopping_text(before), shopping_text(after))
    added = parsed_amount(gain)
    assert added is not None, gain
    if dimension(was[1]) == dimension(now[1]) == dimension(added[1]):
        total = convert(was[0], was[1], now[1]) + convert(added[0], added[1], now[1])
        assert abs(total - now[0]) <= max(1e-6, 0.02 * now[0]), (shopping_text(before), shopping_text(after), gain)


RECIPES = ["Mushroom Risotto", "Red Lentil Soup", "Spaghetti Carbonara", "Miso-Glazed Salmon with Bok Choy"]


@given(st.lists(st.tuples(st.sampled_from(RECIPES), DAYS, MEAL_TYPES, SERVINGS, st.sampled_from(["meal", "recipe", "plain"])),
                min_size=1, max_size=6))
def test_what_a_line_is_for_names_each_recipe_once(uses: list[tuple[str, date, str, int, str]]) -> None:
    """'Mushroom Risotto (Fri Nov 27 dinner, for 3; Sun Nov 29 lunch, for 2)': however many uses, each recipe is
    named once, each use (occasion and servings) once, and a recipe named plainly gives way to its uses."""
    entries = [meal_entry(name, day, kind, n) if how == "meal" else recipe_entry(name, None if how == "plain" else n)
               for name, day, kind, n, how in uses]
    text = source_text(joined_source(entries)) or ""
    for name in {name for name, *_ in uses}:
        assert text.count(name) == 1, text
    for entry in entries:
        if entry.servings is not None:
            said = entry.text[len(entry.text.split(" (")[0]):].strip("() ")
            assert text.count(said) >= 1, (said, text)


@pytest.mark.parametrize("name", ["flour tortillas", "corn tortillas", "naan", "pita", "bagels", "hamburger buns",
                                  "english muffins"])
@pytest.mark.parametrize("count", [1, 6, 10, 31])
def test_counted_bread_is_listed_by_the_pack_it_is_bought_in(name: str, count: int) -> None:
    """'6 flour tortillas' is not how they are bought: '1 pack flour tortillas (need 6)', as the seeded lines say."""
    text = shopping_text({"name": name, "quantity": count, "unit": None})
    assert re.fullmatch(rf"\d+ packs? {name} \(need {count}\)", text)


@pytest.mark.parametrize(("name", "tap"), [
    ("water", True), ("cold water", True), ("warm water", True), ("boiling water", True), ("ice water", True),
    ("hot water, for soaking", True), ("Water", True), ("lukewarm tap water", True),
    ("sparkling water", False), ("coconut water", False), ("rose water", False), ("tonic water", False),
    ("watercress", False), ("water chestnuts", False), ("soda water", False),
])
def test_water_from_the_tap_is_told_apart_from_water_a_shop_sells(name: str, tap: bool) -> None:
    assert is_tap_water(name) is tap


_COUNTED_LINES = [("parsley", "bunch"), ("cabbage", "head"), ("lemons", None), ("shallots", "piece"), ("bok choy", "head"),
                  ("thyme", "bunch"), ("limes", None), ("red onions", None), ("baguettes", "loaf"), ("corn", "ear")]


@pytest.mark.parametrize(("name", "unit"), _COUNTED_LINES)
@pytest.mark.parametrize("part", [0.25, 0.5, 0.75, 1.25, 2.5])
@pytest.mark.parametrize("held", [1, 2, 3])
def test_a_shortfall_of_part_of_one_says_what_is_needed_in_all(name: str, unit: str | None, part: float, held: int) -> None:
    """Cook's QA 2 G22: '1 bunch parsley (short 1; the pantry has 1)' read as needing 2 where 1 1/4 bunches are needed.
    A counted line short of part of one says the whole need ('need 1 1/4 bunches; the pantry has 1'); short of whole
    ones it says 'short'; never a shortfall larger than what is short."""
    row = {"name": name, "quantity": part, "unit": unit, "notes": with_pantry_held(None, str(held))}
    text = shopping_text(row)
    said = re.search(r"\((short|need) ([\d /]+)(?: \w+)?; the pantry has (\d+)\)$", text)
    assert said is not None, text
    amount = parsed_amount(said.group(2))
    assert amount is not None and int(said.group(3)) == held, text
    if said.group(1) == "short":
        assert abs(amount[0] - part) < 1e-9, text
    else:
        assert abs(amount[0] - (held + part)) < 1e-9, text


@given(st.integers(min_value=1, max_value=12), st.integers(min_value=0, max_value=12), st.sampled_from(["yolk", "white"]))
def test_the_yolks_a_line_of_eggs_is_for_read_back_and_are_never_the_persons_note(eggs: int, yolks: int, part: str) -> None:
    """Cook's QA 2 G3: 'with the 3 yolks' is kept in the line's notes, read back as written, shown in the pantry note
    ('need 11 with the 3 yolks'), and never shown as a note the person wrote."""
    from alfred_mcp.kitchen.shopping_lines import egg_parts, with_egg_parts

    notes = with_egg_parts(with_pantry_held("bring a bag", "10"), {part: float(yolks)})
    assert egg_parts(notes) == ({part: float(yolks)} if yolks else {})
    assert own_notes(notes) == "bring a bag"
    text = shopping_text({"name": "eggs", "quantity": eggs, "unit": "piece", "notes": notes})
    if yolks:
        assert text.endswith(f"(need {10 + eggs} with the {yolks} {part}{'' if yolks == 1 else 's'}; the pantry has 10)"), text
    else:
        assert text.endswith(f"(short {eggs}; the pantry has 10)"), text
