"""Ingredients against the pantry: what a plan needs in total, what is missing, what a cooked meal uses up.

Pure arithmetic over rows. The same ingredient is recognised by its catalog ingredient, else by its
name with plurals folded ('Eggs' = 'egg'), and only in the same variant ('dairy-free yogurt' is not yogurt). Amounts add up within a dimension (g + kg, tsp + cup) and
stay apart across dimensions (cups and grams of flour are two needs: no density is assumed).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import date
from typing import Any

from alfred_mcp.kitchen.dates import day_text
from alfred_mcp.kitchen.egg_counts import EGGS, egg_part, eggs_needed, parts_needed
from alfred_mcp.kitchen.ingredient_kinds import Kind, kind_of, merged, same_kind, without_kind_words
from alfred_mcp.kitchen.measures import (
    Amount,
    about_in,
    base_unit,
    convert,
    convert_for,
    dimension,
    held,
    held_inside,
    ingredient_text,
    sensible,
)
from alfred_mcp.kitchen.plurals import counted_name
from alfred_mcp.kitchen.units import normalize_unit
from alfred_mcp.state.compiler import folded_words

Row = dict[str, Any]
EPSILON = 1e-9


def name_key(name: str) -> str:
    """'Cod Fillets' and 'cod fillet' share a key, and so do 'fresh cilantro' and 'cilantro', 'boneless chicken
    thighs' and 'chicken thighs' (what says only the kind is left out: `row_kind` tells those apart)."""
    return " ".join(without_kind_words(folded_words(name), folded_words))


def row_kind(row: Row) -> Kind:
    """The kind of ingredient a row means (its form and cut, read from its name, unit and notes)."""
    notes = row.get("notes")
    return kind_of(str(row.get("name") or ""), row.get("unit"), None if notes is None else str(notes))


@dataclass
class Need:
    """One ingredient in one dimension, summed over recipes, in its base unit (ml, g, or the count unit)."""

    name: str
    ingredient_id: str | None
    unit: str | None
    quantity: float | None
    recipes: list[str] = field(default_factory=list)
    """What it came from, in first-seen order: recipe refs (cooking), or the uses a shopping line lists (shopping)."""
    shown_in: str | None = None
    """The unit the first recipe wrote it in (cups stay cups, grams stay grams, when shown)."""
    kind: Kind = field(default_factory=lambda: kind_of(""))
    """Which kind of the ingredient (form, cut) its rows state: rows of another kind are another need."""
    parts: dict[str, float] = field(default_factory=dict)
    """Of eggs, the yolks and whites they are bought for ({'yolk': 3.0}): why 11 eggs for a card's 8."""

    @property
    def key(self) -> str:
        return name_key(self.name)

    def amount(self, quantity: float | None = None) -> Amount:
        """`quantity` (default: the need's) of the base unit, in the unit the recipe wrote it in."""
        value = self.quantity if quantity is None else quantity
        return Amount(convert(value or 0.0, self.unit, self.shown_in), self.shown_in)

    def text(self) -> str:
        if self.quantity is None:
            return self.name
        shown = sensible(self.amount(), self.name)
        return ingredient_text(shown.text, shown.quantity, shown.unit, self.name)


def needs_of(uses: Iterable[tuple[str, Row, float]]) -> list[Need]:
    """Ingredient rows (recipe ref, row, factor) merged: one Need per ingredient, dimension and kind (a row of the same
    name joins it with or without a catalog id; a free-from variant, 'dairy-free yogurt', a can against fresh, or
    another cut, 'boneless' against 'bone-in', is another); optional ones left out."""
    merged_needs: dict[tuple[str, str], list[Need]] = {}
    named: dict[tuple[str, str], tuple[str, str]] = {}
    for recipe_ref, row, factor in uses:
        if row.get("is_optional"):
            continue
        eggs = eggs_needed(row["name"], row.get("quantity"), row.get("unit"), row.get("notes"), factor)
        parts = parts_needed(row["name"], row.get("quantity"), row.get("unit"), row.get("notes"), factor)
        if eggs is not None:  # yolks and whites are bought as eggs; each use in whole eggs, as its card says
            row, factor = {**row, "name": EGGS if egg_part(row["name"]) != "egg" else row["name"], "quantity": eggs, "unit": "piece"}, 1.0
        unit = row.get("unit")
        kind = row_kind(row)
        by_name = (name_key(row["name"]), dimension(unit))
        key = (str(row.get("ingredient_id") or by_name[0]), by_name[1])
        if key not in merged_needs and by_name in named and len(
                ({need.ingredient_id for need in merged_needs[named[by_name]]} | {row.get("ingredient_id")}) - {None}) <= 1:
            key = named[by_name]  # the same name with and without its catalog id: one ingredient
        named.setdefault(by_name, key)
        quantity = None if row.get("quantity") is None else convert(float(row["quantity"]) * factor, unit, base_unit(unit))
        need = next((need for need in merged_needs.get(key, []) if same_kind(need.kind, kind)), None)
        if need is None:
            merged_needs.setdefault(key, []).append(
                Need(row["name"], row.get("ingredient_id"), base_unit(unit), quantity, [recipe_ref], shown_in=unit, kind=kind,
                     parts=parts))
            continue
        for part, count in parts.items():
            need.parts[part] = need.parts.get(part, 0.0) + count
        if quantity is not None:
            need.quantity = quantity if need.quantity is None else need.quantity + quantity
        need.ingredient_id = need.ingredient_id or row.get("ingredient_id")
        need.kind = merged(need.kind, kind)
        if recipe_ref not in need.recipes:
            need.recipes.append(recipe_ref)
    return [need for needs in merged_needs.values() for need in needs]


class Stock:
    """Rows (pantry items or shopping lines) indexed by catalog ingredient and by name key."""

    def __init__(self, rows: Sequence[Row]) -> None:
        self.rows = list(rows)
        self._by_id: dict[str, list[Row]] = {}
        self._by_name: dict[str, list[Row]] = {}
        for row in self.rows:
            if row.get("ingredient_id"):
                self._by_id.setdefault(str(row["ingredient_id"]), []).append(row)
            self._by_name.setdefault(name_key(str(row.get("name") or "")), []).append(row)

    def matching(self, name: str, ingredient_id: str | None, kind: Kind | None = None) -> list[Row]:
        """Rows of the same ingredient and kind: by catalog ingredient when it has one, plus rows of the same name
        ('dairy-free yogurt' is not the pantry's Greek yogurt, a can of chopped tomatoes not its fresh tomatoes,
        boneless thighs not bone-in ones). `kind` defaults to what the name alone says."""
        wanted = kind_of(name) if kind is None else kind
        found = list(self._by_id.get(str(ingredient_id), [])) if ingredient_id else []
        found += [row for row in self._by_name.get(name_key(name), []) if row not in found]
        return [row for row in found if same_kind(row_kind(row), wanted)]


def in_date(rows: Sequence[Row], today: str) -> tuple[list[Row], list[Row]]:
    """The rows still good on `today` (ISO date; no use-by date, or one not passed yet), and those past their use-by
    date: what is past it does not cover a need."""
    good = [row for row in rows if not row.get("expiry_date") or str(row["expiry_date"])[:10] >= today]
    return good, [row for row in rows if row.get("expiry_date") and str(row["expiry_date"])[:10] < today]


def past_its_date(rows: Sequence[Row], today: date | None) -> str | None:
    """Why rows of the pantry past their use-by date did not count: 'the one in the pantry is past its date, Tue Jan 13'
    (the latest date of several); None for no row."""
    if not rows:
        return None
    day = day_text(max(str(row["expiry_date"])[:10] for row in rows), today=today)
    return (f"the one in the pantry is past its date, {day}" if len(rows) == 1
            else f"the {len(rows)} in the pantry are past their date, the last {day}")


def in_need_unit(need: Need, quantity: float, unit: str | None) -> float | None:
    """`quantity` of `unit` in the need's unit, or None when they do not compare.

    Besides conversions (a pack of its pieces too: a head of garlic is 10 cloves), a count names the same thing as a count of the unit the name says:
    '4 cod fillets' (pieces) and '4 fillet' of cod fillets are the same four fillets.
    """
    return in_unit(need.name, quantity, unit, need.unit)


def in_unit(name: str, quantity: float, unit: str | None, to: str | None) -> float | None:
    """`quantity` of `unit` of `name` in `to` (`in_need_unit`), or None when they do not compare; a row saved before
    units had one spelling ('count', 'each') compares as the unit it means ('piece')."""
    unit, to = normalize_unit(unit), normalize_unit(to)
    converted = convert_for(name, quantity, unit, to)
    if converted is not None:
        return converted
    kinds = {dimension(unit), dimension(to)}
    named = set(folded_words(name))
    if "count:piece" in kinds and len(kinds) == 2 and all(k.startswith("count:") for k in kinds):
        other = next(k for k in kinds if k != "count:piece").removeprefix("count:")
        if set(folded_words(other)) <= named:
            return quantity
    return None


def about_in_need_unit(need: Need, quantity: float, unit: str | None) -> tuple[float | None, bool]:
    """`quantity` of `unit` in the need's unit, and whether that is an estimate: exactly where it converts
    (`in_need_unit`), else as the shop sells the ingredient, full (`measures.about_in`: a bottle of olive oil is about
    2 cups, 2 oz of paprika a jar, about 1/2 cup); (None, False) when even that does not compare. The one conversion
    shopping_list_from counts the pantry by and meal_cooked takes from it by."""
    exact = in_need_unit(need, quantity, unit)
    if exact is not None:
        return exact, False
    about = about_in(need.name, quantity, unit, need.unit)
    return about, about is not None


def on_hand(need: Need, rows: Sequence[Row]) -> tuple[float, list[str]]:
    """How much of `need` the rows hold in its unit, and what they hold that cannot be compared."""
    total, apart = 0.0, []
    for row in rows:
        quantity = row.get("quantity")
        if quantity is None:
            continue
        converted = in_need_unit(need, float(quantity), row.get("unit"))
        if converted is None:
            apart.append(held_inside(Amount(float(quantity), row.get("unit")), need.name))
        else:
            total += converted
    return total, apart


def estimated_apart(need: Need, rows: Sequence[Row]) -> float | None:
    """About how much of `need` (in its unit) the rows that `on_hand` cannot compare hold, counting each as the shop
    sells it, full (`measures.about_in`: 5 lb of flour is about 18 cups). A row that does not compare even so is left
    out when the others cover the need (as meal_cooked takes it from them); None when they do not."""
    total, exact, unknown = 0.0, 0.0, False
    for row in rows:
        quantity = row.get("quantity")
        if quantity is None:
            continue
        about, estimated = about_in_need_unit(need, float(quantity), row.get("unit"))
        if about is None:
            unknown = True
        elif estimated:
            total += about
        else:
            exact += about
    return None if unknown and exact + total < (need.quantity or 0.0) - EPSILON else total


def held_apart(amount: Amount, name: str) -> str:
    """What a row holds in a unit that does not compare with a need, as a cook writes it (`measures.held`:
    'about 1 3/4 cups of the bottle', 'used up'); a count names the thing ('3 eggs', never a bare '3')."""
    text = held(amount, name)
    return f"{text} {counted_name(name, amount.quantity)}" if amount.unit in (None, "piece") and amount.quantity > 0 else text


@dataclass(frozen=True)
class Deduction:
    """How much to take from one pantry row, in the row's unit."""

    row: Row
    used: float
    left: float
    estimated: bool = False
    """The row's unit does not convert to the need's: the row was counted as the shop sells it, full."""


@dataclass
class DeductPlan:
    deductions: list[Deduction]
    shortfall: float
    """What the rows could not cover, in the need's unit (0 when covered)."""
    apart: list[str]
    """What the rows hold in a unit that cannot be compared with the need's, even as the shop sells it."""


def plan_deduction(need: Need, rows: Sequence[Row], today: str | None = None) -> DeductPlan:
    """Take `need` from the rows, soonest expiry first, converting units (else estimating as the shop sells it, as
    shopping_list_from counts the pantry: `about_in_need_unit`); never below zero. Given `today` (ISO date), rows past
    their use-by date come last: a cook uses the good ones first."""
    remaining = need.quantity or 0.0
    deductions, apart = [], []
    past = {id(row) for row in in_date(rows, today)[1]} if today is not None else set()
    ordered = sorted(rows, key=lambda row: (id(row) in past, row.get("expiry_date") is None, str(row.get("expiry_date") or "")))
    for row in ordered:
        quantity = row.get("quantity")
        if quantity is None or remaining <= EPSILON:
            continue
        have, estimated = about_in_need_unit(need, float(quantity), row.get("unit"))
        if have is None:
            apart.append(held_apart(Amount(float(quantity), row.get("unit")), need.name))
            continue
        take = min(have, remaining)
        if take <= EPSILON:
            continue
        remaining -= take
        used = take * float(quantity) / have if have else 0.0
        deductions.append(Deduction(row, used, max(0.0, float(quantity) - used), estimated))
    return DeductPlan(deductions, max(0.0, remaining), apart)
