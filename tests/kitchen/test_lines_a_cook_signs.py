"""The lines a cook found that nobody writes, by class, each over every case it has: every seed recipe scaled by the
benchmark's factors and for 1 to 12 servings, every canned good at every quarter of a can, every spoon amount from a
teaspoon to a cup, every weight from a pound to three, every dry class by the quart, 'each' said of one, and the
names that join two things. One test per class lists every failing case."""

from __future__ import annotations

import re
from fractions import Fraction

from alfred_mcp.kitchen.bought_as import DRY_CLASSES, can_size
from alfred_mcp.kitchen.card_lines import card_line
from alfred_mcp.kitchen.ingredient_kinds import CANNED_PRODUCTS
from alfred_mcp.kitchen.ingredient_pairs import things_of
from alfred_mcp.kitchen.measures import Amount, convert, line_text, needed, sensible, to_buy
from alfred_mcp.kitchen.odd_amounts import CUTS, oddities
from alfred_mcp.kitchen.taxonomy import default_taxonomy
from alfred_mcp.operations.scaling import scaled_line
from benchmarks.kitchen_lines import _scaled_lines

CANNED = [*CANNED_PRODUCTS, "canned black beans", "canned chickpeas", "canned corn", "canned tuna"]


def test_every_seed_recipe_scaled_and_at_1_to_12_servings_reads_as_a_cook_writes_it() -> None:
    odd = [(line["text"], line["rules"]) for line in _scaled_lines() if line["rules"]]
    assert odd == []


def test_spoons_are_one_measure_never_spoons_added_to_spoons() -> None:
    """From 1/8 tsp to 2 cups by sixteenths of a teaspoon: one measure, the nearest a spoon or cup holds."""
    odd = [(tsp, shown.text, rules) for tsp in (n / 16 for n in range(2, 16 * 96 + 1))
           if (rules := oddities((shown := sensible(Amount(tsp, "tsp"), "olive oil")).text, shown.quantity, shown.unit,
                                 "olive oil", shopping=False, exact=shown.rounded_from))]
    assert odd == []


def test_weights_past_a_pound_are_pounds_and_canned_goods_quarter_cans_with_their_size() -> None:
    """Every half ounce from 1 to 48 oz, of meat and of every canned good: pounds (and ounces) past a pound, canned
    goods in quarter cans from half a can; every quarter of a can written in cans says which can."""
    odd = []
    for name in ["potatoes", "chicken thighs", *CANNED]:
        for ounces in (n / 2 for n in range(2, 97)):
            shown = sensible(Amount(ounces, "oz"), name)
            text = line_text(ounces, "oz", name)
            notes = card_line(text, shown.quantity, shown.unit, name, None).notes  # a part can says what to use of it
            odd += [(name, ounces, text, rules) for rules in [oddities(text, shown.quantity, shown.unit, name, shopping=False,
                                                                        exact=shown.rounded_from, notes=notes)] if rules]
    for name in CANNED:
        size = can_size(name)
        for quarters in range(1, 13):
            line = scaled_line({"name": name, "quantity": 1, "unit": "can"}, quarters / 4)
            if quarters % 4 and f"({size:g}-oz)" not in line["text"]:
                odd.append((name, quarters, line["text"], ["part of a can without its size"]))
    assert odd == []


def test_what_is_measured_dry_is_never_in_quarts() -> None:
    """Six members of every dry class and the solid fats, from 5 to 24 cups, in a recipe and on a list: cups, never
    quarts."""
    taxonomy = default_taxonomy()
    names = [member for category in DRY_CLASSES for member in taxonomy.category(category).members[:6]] \
        + ["butter", "unsalted butter", "ghee", "vegetable shortening"]  # solid fats too: '4 1/2 quarts butter' is 18 cups
    odd = [(name, cups, shown.text) for name in names for cups in (5, 9, 12.5, 18, 24)
           for shown in (sensible(Amount(cups, "cup"), name), to_buy(Amount(cups, "cup"), name))
           if "quart" in shown.text and "dry goods by the quart" in oddities(f"{shown.text} {name}", shown.quantity,
                                                                                 shown.unit, name, shopping=False)]
    assert odd == []


def test_each_is_never_said_of_one() -> None:
    """'about 6 oz each' on a line of one fillet (or one of anything) loses its 'each'; on more it stays."""
    odd = []
    for unit, name in ((None, "chicken breasts"), ("fillet", "cod fillets"), ("piece", "sweet potatoes"), ("slice", "bacon")):
        for quantity in (0.5, 1.0, 2.0, 3.0):
            shown = card_line(line_text(quantity, unit, name), quantity, unit, name, "about 6 oz each; patted dry")
            says_each = "each" in f"{shown.text}, {shown.notes}"
            if says_each != (quantity > 1):
                odd.append((quantity, unit, shown))
    assert odd == []


def test_a_name_that_joins_two_things_is_two_things() -> None:
    """'salt and pepper' is salt and black pepper; a name that is one thing ('half and half') stays whole."""
    cases = {"salt and pepper": ("salt", "black pepper"), "Salt & pepper": ("Salt", "black pepper"),
             "salt and freshly ground black pepper": ("salt", "black pepper"), "half and half": ("half and half",),
             "sweet and sour sauce": ("sweet and sour sauce",), "olive oil": ("olive oil",)}
    assert {name: things_of(name) for name in cases} == cases


WHOLE_PRODUCE = ["onion", "red onion", "lemon", "lime", "carrots", "avocado", "shallot", "tomatoes", "sweet potatoes", "bell pepper"]


def test_part_of_a_piece_is_the_cut_nearest_the_exact_amount_and_says_what_it_was_rounded_from() -> None:
    """Every whole vegetable or fruit, 1/2 to 3 of them in a recipe for 1 to 12, scaled to 1 to 12 servings: below one
    piece the line is the cut (1/4, 1/3, 1/2, 2/3, 3/4) nearest the exact amount ('1/3 onion' for a third, not '1/4'),
    and `rounded_from` gives the exact amount whenever the cut is more than 2% from it."""
    odd = []
    for name in WHOLE_PRODUCE:
        for quantity in (0.5, 1, 2, 3):
            for base in range(1, 13):
                for servings in range(1, 13):
                    exact = quantity * servings / base
                    line = scaled_line({"name": name, "quantity": quantity, "unit": "piece"}, servings / base)
                    nearest = min(abs(cut - exact) for cut in CUTS)  # a tie (7/8) may go either way
                    said = line.get("rounded_from", line["quantity"])
                    if exact < 1 - 1e-9 and (abs(line["quantity"] - exact) > nearest + 1e-3 or abs(said - exact) > 0.02 * exact + 1e-3):
                        odd.append((name, quantity, base, servings, line["text"], line.get("rounded_from")))
                    rules = oddities(line["text"], line["quantity"], line["unit"], name, shopping=False,
                                     exact=line.get("rounded_from"), notes=line.get("notes"))
                    odd += [(name, quantity, base, servings, line["text"], rules)] if rules else []
    assert odd == []


CARTON_LIQUIDS = ["vegetable broth", "chicken broth", "chicken stock", "beef broth", "milk", "heavy cream", "buttermilk"]


def test_a_liquid_sold_by_the_carton_is_cups_or_whole_quarts_never_quarter_quarts() -> None:
    """Broth, stock, milk and cream from 1/4 cup to 24 cups by quarter cups, in a recipe, on a list and as a need:
    cups, or quarts when they are whole ('9 cups', '3 quarts'), never '2 1/4 quarts'; above 12 cups whole quarts and
    the cups left ('3 quarts 1 1/2 cups', not '13 1/2 cups'), which read back as the amount."""
    odd = []
    for name in CARTON_LIQUIDS:
        for cups in (n / 4 for n in range(1, 97)):
            for buying, shown in ((False, sensible(Amount(cups, "cup"), name)), (True, to_buy(Amount(cups, "cup"), name)),
                                  (False, needed(Amount(cups, "cup"), name))):
                text = line_text(cups, "cup", name, buying=True) if buying else f"{shown.text} {name}"
                rules = oddities(text, shown.quantity, shown.unit, name, shopping=buying, exact=None if buying else shown.rounded_from)
                if rules or (shown.unit == "quart" and not float(shown.quantity).is_integer()):
                    odd.append((name, cups, buying, text, rules))
                if (said := _quarts_and_cups_said(shown.text)) is not None and abs(said - convert(shown.quantity, shown.unit, "cup")) > 1e-9:
                    odd.append((name, cups, buying, text, ["reads back as another amount"]))
    assert odd == []


def _quarts_and_cups_said(text: str) -> float | None:
    """The cups '3 quarts 1 1/2 cups' says (None: another form)."""
    found = re.match(r"^(\d+) quarts? (\d+ \d+/\d+|\d+/\d+|\d+) cups?$", text)
    return None if found is None else 4 * int(found.group(1)) + float(sum(Fraction(part) for part in found.group(2).split()))


def test_part_of_a_can_says_what_to_open_and_measure() -> None:
    """Every canned good at every quarter of a can up to six cans, in a recipe: a part can says what to use of it
    ('open 3 cans: 2 and about 1/2 cup of the third', 'about 1/2 cup of the can'); whole cans say nothing more."""
    odd = []
    for name in CANNED:
        for quarters in range(1, 25):
            line = scaled_line({"name": name, "quantity": 1, "unit": "can"}, quarters / 4)
            rules = oddities(line["text"], line["quantity"], line["unit"], name, shopping=False, notes=line.get("notes"))
            opens = f"open {quarters // 4 + 1} cans: {quarters // 4} and about " if quarters > 4 else "about "
            says = quarters % 4 == 0 or opens in (line.get("notes") or "")
            if rules or not says or (quarters % 4 == 0 and "cup of" in (line.get("notes") or "")):
                odd.append((name, quarters, line["text"], line.get("notes"), rules))
    assert odd == []
