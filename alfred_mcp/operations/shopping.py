"""shopping_list_from: what recipes (or the meal plans of a date range) need, less the pantry, onto the list.

One line per ingredient: amounts added up with units converted (g + kg, tbsp + cup), an amount that cannot be
(cups and grams of flour) kept on the same line beside it; amounts to buy as a person writes them (whole
shallots, cups above 4 tbsp: `measures.to_buy`). What the pantry holds is subtracted. Every line's source names
what it was listed for (`kitchen/shopping_lines.py`), so listing the same meals or recipes again adds nothing
(reported as already on the list), while a new meal, or more servings of one, still tops the line up.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date
from typing import Any

from alfred_mcp.errors import InputError
from alfred_mcp.kitchen.allergens import allergen_hits
from alfred_mcp.kitchen.bought_as import is_tap_water
from alfred_mcp.kitchen.dates import day_text, span_text
from alfred_mcp.kitchen.ingredient_kinds import Kind, same_kind, unnamed_cuts
from alfred_mcp.kitchen.ingredient_pairs import things_of
from alfred_mcp.kitchen.measures import (
    Amount,
    Shown,
    about_in,
    convert_for,
    dimension,
    ingredient_text,
    needed_text,
    quantity_text,
    sensible,
    to_buy,
)
from alfred_mcp.kitchen.measures import (
    held as held_text,
)
from alfred_mcp.kitchen.query import Filter, Query, Where
from alfred_mcp.kitchen.schema import INVENTORY, MEAL_PLANS, RECIPES, SHOPPING_LIST
from alfred_mcp.kitchen.sections import section_order, store_section
from alfred_mcp.kitchen.shopping_lines import (
    Listed,
    covering,
    egg_parts,
    extra_amounts,
    joined_source,
    meal_entry,
    pantry_held,
    parsed_amount,
    recipe_entry,
    shopping_text,
    shown_gain,
    shown_name,
    source_entries,
    with_egg_parts,
    with_extra_amounts,
    with_own_note,
    with_pantry_held,
)
from alfred_mcp.kitchen.taxonomy import default_taxonomy
from alfred_mcp.operations import allergies
from alfred_mcp.operations.allergies import AllergyOverride
from alfred_mcp.operations.conflicts import standing_constraints
from alfred_mcp.operations.crud import rows_to_refs
from alfred_mcp.operations.meal_week import cooked_meal_ids
from alfred_mcp.operations.recipe_rows import RecipeRows, load_recipes

__all__ = ["ShoppingOutcome", "Use", "add_to_list", "load_recipes", "recipe_use", "recipe_uses", "recipes_of_meals"]
from alfred_mcp.session import UnitOfWork
from alfred_mcp.state.call_log import CallRecord
from alfred_mcp.state.pantry import (
    EPSILON,
    Need,
    Stock,
    about_in_need_unit,
    estimated_apart,
    in_date,
    in_need_unit,
    name_key,
    needs_of,
    on_hand,
    past_its_date,
    row_kind,
)
from alfred_mcp.store.base import Row

MAX_MEALS = 200
TRACE_UNITS = frozenset({"pinch", "dash", "drop", "splash"})
"""A pinch of salt is covered by any salt in the pantry, whatever its unit."""
# A pantry row in a unit that does not compare (a bottle of olive oil against 2 tbsp, 5 lb of flour against
# 2 cups) counts as covering the need: it is listed under `covered` with a note to check, not bought again.


@dataclass
class ShoppingOutcome:
    lines: list[dict[str, Any]] = field(default_factory=list)
    covered: list[dict[str, Any]] = field(default_factory=list)
    already: list[dict[str, Any]] = field(default_factory=list)
    """Ingredients already on the list (or bought: note 'bought already') for these meals or recipes (nothing added)."""
    left_out: list[dict[str, Any]] = field(default_factory=list)
    """Lines not added because they hold an allergen, each saying which meals it was for and why."""
    left_out_said: list[str] = field(default_factory=list)
    """Why the lines of `left_out` were left out, once for the lines of one meal and allergen (naming them all)."""
    meals: int = 0
    already_of: list[tuple[str, Kind]] = field(default_factory=list)
    """The ingredient and kind of each entry of `already`, in its order."""
    optional: dict[str, list[str]] = field(default_factory=dict)
    """Optional ingredients not added, by the recipe they are in: what the result names, so the cook can choose."""

    def optional_said(self) -> str | None:
        """'Optional, not added: avocados, cotija (Chicken Tacos); feta (Greek Lemon Chicken).' or None."""
        if not self.optional:
            return None
        return "Optional, not added: " + "; ".join(f"{', '.join(names)} ({recipe})" for recipe, names in self.optional.items()) + "."

    def add_already(self, item: dict[str, Any], of: tuple[str, Kind]) -> None:
        self.already.append(item)
        self.already_of.append(of)


@dataclass(frozen=True)
class Use:
    """One recipe listed for one meal (or on its own), at a number of servings."""

    recipe: RecipeRows
    factor: float
    entry: Listed
    """How the line's source names this use; its identity is what makes listing it twice a no-op."""


def recipe_use(recipe: RecipeRows, servings: int | None) -> Use:
    """The recipe at `servings` (None: as the recipe is written)."""
    base = recipe.recipe.get("servings")
    factor = servings / base if servings and base else 1.0
    return Use(recipe, factor, recipe_entry(recipe.name, servings or (int(base) if base else None)))


async def recipe_uses(work: UnitOfWork, refs: list[str], servings: dict[str, int]) -> list[Use]:
    """The recipes `refs`, each at its servings in `servings` (by ref) or as written.

    Raises:
        InputError: a `servings` key that is not one of the refs listed, or a recipe given servings that does not say
            how many it serves (naming `servings`).
    """
    stray = sorted(set(servings) - set(refs))
    if stray:
        raise InputError(f"servings: {', '.join(stray)} is not in recipes; give servings only for the recipes listed.",
                         field="servings", value=stray)
    by_id = {work.session.registry.resolve(ref, expected_type="recipe", field="recipes"): n for ref, n in servings.items()}
    loaded = await load_recipes(work, refs, field="recipes")
    unscalable = [recipe.ref for recipe in loaded if recipe.recipe["id"] in by_id and not recipe.recipe.get("servings")]
    if unscalable:
        raise InputError(f"servings: {', '.join(unscalable)} does not say how many it serves, so it cannot be listed for more; "
                         "set its servings with db_update, or list it as written.", field="servings", value=unscalable)
    return [recipe_use(recipe, by_id.get(recipe.recipe["id"])) for recipe in loaded]


async def recipes_of_meals(work: UnitOfWork, start: date, end: date) -> tuple[list[Use], int, int]:
    """Each planned meal with a recipe from `start` to `end` not cooked yet, scaled to the meal's servings; the count of
    those meals, and of the meals left out as cooked already."""
    if end < start:
        raise InputError("meal_plans.to: the range ends before it starts.", field="meal_plans.to")
    where = Where(all_of=(Filter("date", "gte", start.isoformat()), Filter("date", "lte", end.isoformat()),
                          Filter("recipe_id", "is_null", False)))
    meals = await work.store.select(MEAL_PLANS, Query(where=where, limit=MAX_MEALS), user_id=work.user_id)
    if not meals:
        raise InputError(f"meal_plans: no planned meal with a recipe {_on(start, end)}.", field="meal_plans")
    cooked = await cooked_meal_ids(work.store, work.user_id, [meal["id"] for meal in meals])
    planned = len(meals)
    meals = [meal for meal in meals if meal["id"] not in cooked]
    if not meals:
        raise InputError(f"meal_plans: every planned meal with a recipe {_on(start, end)} was cooked already; nothing is "
                         "left to shop for.", field="meal_plans")
    views = await rows_to_refs(work, MEAL_PLANS, meals, action="read")
    refs = [view["recipe_id"] for view in views]
    loaded = {rows.ref: rows for rows in await load_recipes(work, refs, field="meal_plans")}
    uses = []
    for meal, ref in zip(meals, refs):
        recipe = loaded[ref]
        base = recipe.recipe.get("servings")
        servings = int(meal.get("servings") or base or 1)
        day = date.fromisoformat(str(meal["date"])[:10])
        uses.append(Use(recipe, servings / base if base else 1.0, meal_entry(recipe.name, day, str(meal["meal_type"]), servings)))
    return uses, len(meals), planned - len(meals)


async def add_to_list(
    work: UnitOfWork, uses: list[Use], allergy_override: AllergyOverride | None = None, *, preview: bool = False,
    today: date | None = None,
) -> ShoppingOutcome:
    """Add what the uses need and the pantry lacks; what a line already lists for the same use is not added again.
    With `preview`, the same lines are worked out and returned (without refs for lines not on the list yet) and
    nothing is written or recorded.

    An ingredient of a use whose entry is already in the source of a line of that ingredient (bought or not) is
    skipped and reported under `already`; listed for fewer servings before, only the difference is added. A line
    a person listed for the recipe (its entry says no servings) counts as what it holds, bought or not: short of
    what is needed, the gap is added (an open line topped up); in a unit that does not compare, both amounts are
    named; a bought one is reported as bought.
    Amounts join an open line of the ingredient: added up when the units convert, kept beside it otherwise.
    Water from the tap is never listed (it is under `covered`, 'from the tap').
    A line holding an allergen of the user or of the occasion's guests is left out (under `left_out`, saying
    which meals it was for and why) unless `allergy_override` names that allergen; every other line is added.
    Given `today`, a pantry row past its use-by date covers nothing: what it would have is bought, and the line says
    why ('the one in the pantry is past its date, Tue Jan 13').
    """
    every_line = Stock(await work.store.select(SHOPPING_LIST, Query(limit=5_000), user_id=work.user_id))
    wanted, outcome = _not_yet_listed(uses, every_line)
    replaced, held = wanted.replaced, wanted.held
    needs, earlier = needs_of(wanted.uses), needs_of(wanted.before)
    ref_of = {use.entry.text: use.recipe.ref for use in uses}
    pantry_rows = await work.store.select(INVENTORY, Query(limit=5_000), user_id=work.user_id)
    good, past = in_date(pantry_rows, today.isoformat()) if today is not None else (pantry_rows, [])
    pantry, expired = Stock(good), Stock(past)
    open_lines = Stock([row for row in every_line.rows if not row.get("is_purchased")])
    pending: dict[str, _Pending] = {}
    own_needs: dict[str, list[Need]] = {}
    drawn: dict[int, str] = {}
    """Pantry rows by the need that counted them: a row that does not say its cut counts for one cut, not for each."""
    for need in needs:
        recipes = list(dict.fromkeys(ref_of[label] for label in need.recipes))
        if is_tap_water(need.name):  # from the tap: a cook never lists it
            outcome.covered.append({"name": need.name, "recipes": recipes, "note": "from the tap"})
            continue
        matches = open_lines.matching(need.name, need.ingredient_id, need.kind)
        existing = next((row for row in matches if row.get("id") in held), next(iter(matches), None))
        listed_for = next((row for row in every_line.matching(need.name, need.ingredient_id, need.kind)
                           if row.get("id") in held), None)
        prior = next((other for other in earlier if _key(other) == _key(need)), None)
        if listed_for is None and existing is not None and any(
                entry.servings for entry in source_entries(existing.get("source")) if entry.text not in replaced.values()):
            missing, note, apart = need.quantity, None, None  # the pantry was counted when this line was listed
            prior_short = (prior.quantity or 0.0) if prior is not None else 0.0
        else:
            siblings = [other for other in needs if other is not need and _key(other) == _key(need)]
            stock = [row for row in pantry.matching(need.name, need.ingredient_id, need.kind)
                     if not any(in_need_unit(other, 1.0, row.get("unit")) is not None for other in siblings)
                     and drawn.setdefault(id(row), _key(need)) == _key(need)]
            missing, note, apart = _missing(need, stock)
            prior_short = max(0.0, _missing(prior, stock)[0] or 0.0) if prior is not None else 0.0
        had = need.quantity - missing if need.quantity is not None and missing is not None else None
        if missing is not None and missing <= EPSILON:
            outcome.covered.append({"name": need.name, "recipes": recipes, "note": note})
            continue
        if missing is not None and prior_short > EPSILON:  # listed before for fewer servings: only what that did not cover
            missing -= prior_short
            if missing <= EPSILON:
                outcome.add_already({"name": shown_name(existing) if existing is not None else need.name, "recipes": recipes},
                                    (need.key, need.kind))
                continue
        if listed_for is not None:
            missing, short = _beyond_line(need, missing, listed_for)
            if missing is None:
                short = short or ("bought already" if listed_for.get("is_purchased") else None)
                outcome.add_already({"name": shown_name(listed_for), "recipes": recipes, **({"note": short} if short else {})},
                                    (need.key, need.kind))
                continue
        line = pending.get(_key(need))
        if line is None:
            line = pending[_key(need)] = _Pending(existing, dict(existing) if existing else _new_line(need))
            if existing is not None and prior is not None and prior_short > EPSILON and all(
                    entry.text in replaced.values() for entry in source_entries(existing.get("source"))):
                line.exact = _unrounded(prior, prior_short, existing)
        stale = past_its_date(expired.matching(need.name, need.ingredient_id, need.kind), today)
        on_top = listed_for is None and existing is not None and existing.get("quantity") is not None and not any(
            entry.servings for entry in source_entries(existing.get("source")))
        own = await _own_need(work, existing, need, own_needs) if on_top and existing is not None else None
        line.add(need, missing, recipes, note or stale, replaced, had, apart, on_top=on_top, own=own,
                 prior_parts=prior.parts if prior is not None else None)
        if stale is not None:  # the list says why it is bought though the pantry has some, as a person notes it
            line.row["notes"] = with_own_note(line.row.get("notes"), stale)
    outcome.left_out, outcome.left_out_said = await _left_out(work, pending, allergy_override)
    topped = [(name_key(line.row["name"]), row_kind(line.row)) for line in pending.values()]
    kept = [(item, of) for item, of in zip(outcome.already, outcome.already_of)
            if not any(of[0] == key and same_kind(of[1], kind) for key, kind in topped)]
    outcome.already, outcome.already_of = [item for item, _ in kept], [of for _, of in kept]
    override_note = await allergies.check_rows(work, SHOPPING_LIST, [line.row for line in pending.values()], allergy_override)
    await _mark_dislikes(work, list(pending.values()))
    shown = [line for line in pending.values() if not _shows_the_same(line, outcome)]
    if preview:
        await _preview(work, outcome, shown)
        return outcome
    async with work.atomic():
        inserts = [line for line in pending.values() if line.existing is None]
        rows = await work.store.insert(SHOPPING_LIST, [_columns(line.row) for line in inserts], user_id=work.user_id) if inserts else []
        written: dict[int, Row] = {id(line): row for line, row in zip(inserts, rows)}
        for line in pending.values():
            changed = _changed(line.existing, line.row) if line.existing is not None else None
            if line.existing is not None and changed:
                (written[id(line)],) = await work.store.update(
                    SHOPPING_LIST, Where(all_of=(Filter("id", "eq", line.existing["id"]),)), changed, user_id=work.user_id)
        await _report(work, outcome, [(line, written[id(line)]) for line in shown if id(line) in written])
    for action in ("added", "updated"):  # new lines and lines topped up, each recorded as what was done to it
        refs = [line["ref"] for line in outcome.lines if line["action"] == action]
        if refs or action == "added":
            work.session.record_call(CallRecord(turn=work.session.turn, tool="shopping_list_from", table="shopping_list",
                                                action="created" if action == "added" else "updated", refs=refs, count=len(refs),
                                                note=override_note if action == "added" else None))
    return outcome


async def _mark_dislikes(work: UnitOfWork, lines: list[_Pending]) -> None:
    """A line of something the user dislikes says so, on the list and in the result ('you don't like olives'), as the
    recipe card marks it: the cook decides before buying a jar of it (an allergen is left out instead)."""
    if not lines:
        return
    standing = await standing_constraints(work)
    for line in lines:
        disliked = standing.disliked(str(line.row["name"]))
        if disliked is not None:
            said = f"you don't like {disliked}"
            line.row["notes"] = with_own_note(line.row.get("notes"), said)
            if said not in line.notes:
                line.notes.append(said)


def _shows_the_same(line: _Pending, outcome: ShoppingOutcome) -> bool:
    """True for an open line whose amount to buy reads the same after these uses ('1 bunch thyme' needed for more
    thyme): it is still written (its source names them), but reported as already on the list, never topped up."""
    if line.existing is None or shown_gain(line.existing, line.row) is not None:
        return False
    outcome.add_already({"name": shown_name(line.row), "recipes": line.recipes, "note": f"{shopping_text(line.row)} is enough"},
                        (name_key(line.row["name"]), row_kind(line.row)))
    return True


async def _left_out(
    work: UnitOfWork, pending: dict[str, _Pending], override: AllergyOverride | None,
) -> tuple[list[dict[str, Any]], list[str]]:
    """Take the lines holding an allergen the override does not name out of `pending`; each as the result reports it,
    with a `text` saying what it is and why. The reason of the lines left out of the same meals for the same allergen
    is said once, naming them all, in `ShoppingOutcome.left_out_said`."""
    held = await allergies.write_allergies(work)
    if not held.all():
        return [], []
    left: list[dict[str, Any]] = []
    for key, line in list(pending.items()):
        hits = [hit for hit in allergen_hits([(line.row["name"], line.row["name"])], held.all())
                if override is None or not override.allows(hit.allergen)]
        if not hits:
            continue
        del pending[key]
        left.append({"name": line.row["name"], "allergen": hits[0].allergen, "for": list(dict.fromkeys(line.labels)),
                     "recipes": line.recipes})
    groups: dict[tuple[str, tuple[str, ...]], list[dict[str, Any]]] = {}
    for item in left:
        groups.setdefault((item["allergen"], tuple(item["for"])), []).append(item)
    said: list[str] = []
    for (allergen, meals), items in groups.items():
        for item in items:
            item["text"] = _left_out_text([item["name"]], meals, allergen, held.whose([allergen], user="you are"))
        said.append(_left_out_text([item["name"] for item in items], meals, allergen, held.whose([allergen], user="you are")))
    return left, said


def _left_out_text(names: list[str], meals: tuple[str, ...], allergen: str, whose: str) -> str:
    """'Left out peanut butter and roasted peanuts, for Peanut Noodles (Fri Jan 16 lunch): they contain peanuts, and you
    are allergic to peanuts.'"""
    named = names[0] if len(names) == 1 else f"{', '.join(names[:-1])} and {names[-1]}"
    holds = "it contains" if len(names) == 1 else "they contain"
    return f"Left out {named}, for {', '.join(meals)}: {holds} {allergen}, and {whose}."


def _beyond_line(need: Need, missing: float | None, line: Row) -> tuple[float | None, str | None]:
    """What is still needed beyond a line a person listed (or bought) for the recipe (None: the line covers it),
    counting it as the pantry is counted (a carton of broth is about 4 cups), and, when its amount does not compare
    even so, a note naming both."""
    if missing is None or line.get("quantity") is None:
        return None, None
    have = about_in_need_unit(need, float(line["quantity"]), line.get("unit"))[0]
    if have is None:
        held = "bought" if line.get("is_purchased") else "the list has"
        return None, f"need {_needed(need, missing)}, {held} {shopping_text(line)}: check it is enough"
    return (missing - have, None) if missing - have > EPSILON else (None, None)


async def _own_need(work: UnitOfWork, line: Row, need: Need, cache: dict[str, list[Need]]) -> Amount | None:
    """What the recipes a person listed `line` for (its source names them, without servings) need of `need`'s
    ingredient as written, in the need's unit; None when the source names no saved recipe or they need none of it."""
    names = [entry.identity for entry in source_entries(line.get("source")) if entry.servings is None]
    key = "|".join(names)
    if key not in cache:
        rows = await work.store.select(RECIPES, Query(where=Where(all_of=(Filter("name", "in", names),)), limit=50),
                                       user_id=work.user_id) if names else []
        refs = [view["id"] for view in await rows_to_refs(work, RECIPES, rows, action="read")] if rows else []
        loaded = await load_recipes(work, refs, field="recipes") if refs else []
        cache[key] = needs_of((recipe.name, row, 1.0) for recipe in loaded for row in each_thing(recipe.ingredients))
    found = next((other for other in cache[key] if _key(other) == _key(need) and dimension(other.unit) == dimension(need.unit)), None)
    return None if found is None or found.quantity is None else found.amount()


def _unrounded(prior: Need, short: float, line: Row) -> Amount | None:
    """What a line listed only for `prior` held before it was rounded to what is bought (`short` of the need), in the
    line's unit, when the line still shows that rounding (a person did not change it): the new servings' amount is
    added to it and rounded once, as a fresh listing rounds it (None: the line's own amount counts)."""
    shown = to_buy(prior.amount(short), prior.name)
    if line.get("quantity") is None or abs(shown.quantity - float(line["quantity"])) > EPSILON or shown.unit != line.get("unit"):
        return None
    exact = prior.amount(short)
    held = convert_for(prior.name, exact.quantity, exact.unit, shown.unit)
    return None if held is None else Amount(held, shown.unit)


def _needed(need: Need, quantity: float) -> str:
    """'2 carrots', '2 3/4 quarts vegetable broth', '3/4 tsp thyme': `quantity` of the need rounded up as it is
    measured, with its name (not the bunch it is bought in: the note compares it with what the list holds)."""
    shown = to_buy(need.amount(quantity), need.name)
    return ingredient_text(shown.text, shown.quantity, shown.unit, need.name)


@dataclass(frozen=True)
class _Wanted:
    """What a listing still has to list, and what it replaces."""

    uses: list[tuple[str, Row, float]]
    """(entry text, ingredient row, factor) still to list; a use listed before for fewer servings at its new servings."""
    before: list[tuple[str, Row, float]]
    """The uses listed before for fewer servings, at those servings: what they need is on the list already, so a line
    adds the shortfall at the new servings less the shortfall at the old (counted whole each time: carbonara for 10
    then for 12 buys the 12 eggs less the pantry's 10, not 2 servings' eggs rounded up and the pantry forgotten)."""
    replaced: dict[str, str]
    """Entry texts now listed, by the entry (fewer servings) each replaces."""
    held: set[Any]
    """Ids of lines a person listed for one of these recipes (what they hold counts, bought or not)."""


def _not_yet_listed(uses: list[Use], lines: Stock) -> tuple[_Wanted, ShoppingOutcome]:
    """What is still to list (`_Wanted`), and the outcome with what is already listed (a bought line is reported as
    bought, never as on the list)."""
    wanted: list[tuple[str, Row, float]] = []
    before: list[tuple[str, Row, float]] = []
    replaced: dict[str, str] = {}
    already: dict[tuple[str, Kind], dict[str, Any]] = {}
    held: set[Any] = set()
    optional: dict[str, list[str]] = {}
    for use in uses:
        for row in each_thing(use.recipe.ingredients):
            if row.get("is_optional"):
                names = optional.setdefault(use.recipe.name, [])
                names += [] if row["name"] in names else [str(row["name"])]
                continue
            found, line = _listing(lines.matching(row["name"], row.get("ingredient_id"), row_kind(row)), use)
            listed = use.entry.servings or 0
            if found is not None and found.servings is None and line is not None:
                held.add(line.get("id"))
                wanted.append((use.entry.text, row, use.factor))
                continue
            if found is not None and (found.servings is None or found.servings >= listed):
                seen = already.setdefault((name_key(row["name"]), row_kind(row)),
                                          {"name": shown_name(line) if line is not None else row["name"], "recipes": []})
                if line is not None and line.get("is_purchased"):
                    seen["note"] = "bought already"
                if use.recipe.ref not in seen["recipes"]:
                    seen["recipes"].append(use.recipe.ref)
                continue
            if found is not None and found.servings is not None and listed:
                before.append((use.entry.text, row, use.factor * found.servings / listed))
                replaced[use.entry.text] = found.text
            wanted.append((use.entry.text, row, use.factor))
    outcome = ShoppingOutcome(already=list(already.values()), already_of=list(already), optional=optional)
    return _Wanted(wanted, before, replaced, held), outcome


def each_thing(rows: list[Row]) -> list[Row]:
    """The ingredient rows with a row that names two things ('salt and pepper') made one row for each (salt, black
    pepper), so the pantry and the list see each."""
    return [row if len(things_of(str(row["name"]))) == 1 else {**row, "name": thing, "ingredient_id": None}
            for row in rows for thing in things_of(str(row["name"]))]


def _listing(lines: list[Row], use: Use) -> tuple[Listed | None, Row | None]:
    """The entry that already lists `use` and its line (open or bought): an entry for this use or for the recipe
    in general; an open line first."""
    general = recipe_entry(use.recipe.name, None).identity
    for line in sorted(lines, key=lambda row: bool(row.get("is_purchased"))):
        found = covering([line.get("source")], use.entry.identity, general)
        if found is not None:
            return found, line
    return None, None


@dataclass
class _Pending:
    """A line being written: a new one, or an open line of the ingredient topped up."""

    existing: Row | None
    row: Row
    recipes: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    labels: list[str] = field(default_factory=list)
    """The uses (source entries) whose amounts it adds."""
    exact: Amount | None = None
    """What the line holds before rounding: amounts are added up first, in one unit, and rounded once to what is bought
    (half a lemon and a tablespoon of its juice are 1 lemon, not 1 rounded up and a third more: 2)."""

    def add(self, need: Need, missing: float | None, recipes: list[str], note: str | None, replaced: dict[str, str],
            had: float | None = None, held_apart: str | None = None, *, on_top: bool = False,
            own: Amount | None = None, prior_parts: dict[str, float] | None = None) -> None:
        """Add the need's missing amount to the line; `had`: what the pantry held of it, or `held_apart`: what it held
        as it holds it, in units counted as the shop sells them ('2 cartons'); the line then says so. The amount joins
        the line's own unit where it converts, exactly or as the shop sells it (a carton of broth is about 4 cups).
        `on_top`: the line holds an amount a person wrote that the need did not count (cook's QA 2 G16): the line is not
        the shortfall, so it does not say so, and pieces are kept beside a weight or volume ('1 lb + 2 lemons', never
        '1 1/2 lb lemons (short 1 1/2 lb; the pantry has 3)'); a container joins as the shop sells it ('2 cartons').
        `own`: what the recipes the person listed the line for need of it (cook's QA 2 G10): what the line holds beyond
        that covers the missing amount first, so a carton listed for pancakes' cup is not counted as needed in full."""
        entries = [entry for entry in source_entries(self.row.get("source")) if entry.text not in replaced.values()]
        self.row["source"] = joined_source(entries + [source_entries(label)[0] for label in need.recipes])
        self.recipes += [ref for ref in recipes if ref not in self.recipes]
        self.labels += need.recipes
        if note:
            self.notes.append(note)
        if missing is None:
            return
        if on_top:
            pass  # the line holds what a person wrote as well: its amount is not the shortfall, so it never says 'short'
        elif held_apart is not None:
            self.row["notes"] = with_pantry_held(self.row.get("notes"), held_apart)
        elif had is not None and had > EPSILON:
            held = sensible(need.amount(had), need.name)
            counted = dimension(held.unit).startswith("count")  # '(the pantry has 2)', the noun is the line's
            pieces = held.unit in (None, "piece")  # what is held by the one rule: 2 1/2 onions, not a recipe's 3
            said = held_text(need.amount(had), need.name) if pieces else quantity_text(held.quantity) if counted else held.text
            self.row["notes"] = with_pantry_held(self.row.get("notes"), said)
        if not on_top and (need.parts or prior_parts) and pantry_held(self.row.get("notes")) is not None:
            parts = egg_parts(self.row.get("notes"))  # why 11 eggs for a card's 8: 'need 11 with the 3 yolks' (G3)
            for part in set(parts) | set(need.parts) | set(prior_parts or {}):
                parts[part] = parts.get(part, 0.0) + need.parts.get(part, 0.0) - (prior_parts or {}).get(part, 0.0)
            self.row["notes"] = with_egg_parts(self.row.get("notes"), parts)
        amount = need.amount(missing)
        holds = None if own is None or self.exact is not None or self.row.get("quantity") is None else \
            about_in(need.name, float(self.row["quantity"]), self.row.get("unit"), amount.unit)
        if holds is not None and own is not None and (wanted := convert_for(need.name, own.quantity, own.unit, amount.unit)) is not None:
            if wanted + amount.quantity <= holds * (1 + 1e-9):
                return  # the line's spare holds it: '1 carton buttermilk' for pancakes' cup and a salad's 3/4 cup
            total = Amount(min(wanted, holds) + amount.quantity, amount.unit)  # never what its own recipes lack
            self._rounded_once(need.name, total, to_buy(total, need.name))
        elif self.row.get("quantity") is None:
            shown = to_buy(amount, need.name)
            self._rounded_once(need.name, amount, shown)
        elif (joined := joined_amount(need.name, self.exact or Amount(float(self.row["quantity"]), self.row.get("unit")), amount)) is not None \
                and not (on_top and dimension(self.row.get("unit")) in _MEASURES and dimension(amount.unit) == "count:piece"):
            self._rounded_once(need.name, joined, to_buy(joined, need.name))
        else:  # '1 lb + 2 lemons': a person's pound and the 2 lemons the pantry is short, never '1 1/2 lb' read as short
            self.row["notes"] = with_extra_amounts(self.row.get("notes"), _added_extra(self.row.get("notes"), amount, need.name))


    def _rounded_once(self, name: str, exact: Amount, shown: Shown) -> None:
        """The line says `shown` (what is bought) and keeps `exact` in its unit, for the next amount to add to."""
        self.row.update(quantity=shown.quantity, unit=shown.unit)
        held = convert_for(name, exact.quantity, exact.unit, shown.unit)
        self.exact = None if held is None else Amount(held, shown.unit)


def joined_amount(name: str, line: Amount, added: Amount) -> Amount | None:
    """A line's amount with `added` joined in one unit: the line's where it converts exactly; else a measure, converted
    as the shop sells it (a carton of broth listed and 6 cups more are 10 cups, bought as 3 cartons: kept in cups, an
    amount added later is not rounded up to a carton twice); None when even that does not compare."""
    if (exact := convert_for(name, added.quantity, added.unit, line.unit)) is not None:
        return Amount(line.quantity + exact, line.unit)
    if dimension(line.unit) not in _MEASURES and dimension(added.unit) in _MEASURES:
        if (mine := about_in(name, line.quantity, line.unit, added.unit)) is not None:
            return Amount(mine + added.quantity, added.unit)
    if (more := about_in(name, added.quantity, added.unit, line.unit)) is not None:
        return Amount(line.quantity + more, line.unit)
    return None


_MEASURES = frozenset({"volume", "mass"})



def _added_extra(notes: str | None, amount: Amount, name: str) -> list[str]:
    """The line's extra amounts with `amount` added to the one it converts to (or after them)."""
    extras, merged = [], False
    for text in extra_amounts(notes):
        parsed = parsed_amount(text)
        added = None if merged or parsed is None else convert_for(name, amount.quantity, amount.unit, parsed[1])
        if parsed is not None and added is not None:
            text, merged = to_buy(Amount(parsed[0] + added, parsed[1]), name).text, True
        extras.append(text)
    return extras if merged else extras + [to_buy(amount, name).text]


def _on(start: date, end: date) -> str:
    """'from Fri Nov 27 to Thu Dec 3', 'on Fri Nov 27'."""
    return f"on {day_text(start)}" if start == end else f"from {span_text(start, end)}"


def _key(need: Need) -> str:
    """One line per ingredient and kind: boneless and bone-in thighs, a can and fresh tomatoes, are two lines."""
    return f"{need.ingredient_id or need.key}|{need.kind.form}|{','.join(need.kind.cut_words)}"


def _columns(row: Row) -> Row:
    return {key: value for key, value in row.items() if value is not None}


def _changed(before: Row, after: Row) -> Row:
    return {key: after.get(key) for key in ("quantity", "unit", "source", "notes") if after.get(key) != before.get(key)}


def _missing(need: Need, stock: list[Row]) -> tuple[float | None, str | None, str | None]:
    """What is still needed after the pantry (None: an unmeasured need); a note on what could not count exactly:
    covered where what the pantry holds compares as the shop sells it, full (5 lb of flour is about 18 cups), else a
    check; and, for a shortfall even so, what the pantry holds as it says it ('2 cartons'). Full packs that leave the
    meals short leave them short whatever is left in them: the difference is bought ('1 carton vegetable broth (short
    2 1/2 cups; the pantry has 2 cartons)')."""
    have, apart = on_hand(need, stock)
    if need.quantity is None or need.shown_in in TRACE_UNITS:
        return (0.0 if have > 0 or apart else None), None, None
    missing = need.quantity - have
    if missing > EPSILON and apart:
        needed = need.amount(missing)  # rounded up, never down: '2 3/4 quarts', not '2 1/2'
        wanted = f"need {needed_text(needed.quantity, needed.unit, need.name)}, the pantry has {', '.join(apart)}"
        about = estimated_apart(need, stock)
        if about is None:
            return 0.0, f"{wanted}: check there is enough", None
        if about >= missing - EPSILON:
            said = "" if all(text.startswith("about ") for text in apart) else f" (about {sensible(need.amount(about), need.name).text})"
            return 0.0, f"{wanted}{said}: covered", None
        exact = [sensible(need.amount(have), need.name).text] if have > EPSILON else []
        return missing - about, None, ", ".join(exact + apart)
    return missing, None, None


def _new_line(need: Need) -> Row:
    row: Row = {"name": need.name, "source": None}
    if cut := unnamed_cuts(need.name, need.kind):
        row["notes"] = cut  # the cut the recipe's notes name, so the line is told apart (and matched) by it
    if need.ingredient_id:
        row["ingredient_id"] = need.ingredient_id
    return row


async def _report(work: UnitOfWork, outcome: ShoppingOutcome, written: list[tuple[_Pending, Row]]) -> None:
    """The written lines, by store section as a preview lists them, each with its ref."""
    added = [row for line, row in written if line.existing is None]
    updated = [row for line, row in written if line.existing is not None]
    views = iter(await rows_to_refs(work, SHOPPING_LIST, added, action="created") if added else [])
    changed = iter(await rows_to_refs(work, SHOPPING_LIST, updated, action="updated") if updated else [])
    outcome.lines += _by_section([{"ref": next(changed if line.existing is not None else views)["id"],
                                   **_line(line, row, "added" if line.existing is None else "updated")} for line, row in written])


async def _preview(work: UnitOfWork, outcome: ShoppingOutcome, pending: list[_Pending]) -> None:
    """The lines as they would be written: a line it would top up with its ref, a new line without one."""
    existing = [line.existing for line in pending if line.existing is not None]
    views = iter(await rows_to_refs(work, SHOPPING_LIST, existing, action="read"))
    outcome.lines = _by_section([{"ref": next(views)["id"], **_line(line, line.row, "updated")} if line.existing is not None
                                 else _line(line, line.row, "added") for line in pending])


def _by_section(lines: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The lines in the order a shopper walks the store's sections (as the list shows them), each section's lines in
    the order they were worked out (cook's QA F15: the preview was in meal order)."""
    return sorted(lines, key=lambda line: section_order(line["section"]))


def _line(pending: _Pending, row: Row, action: str) -> dict[str, Any]:
    """A written (or, in a preview, would-be) line as the result lists it."""
    cut = unnamed_cuts(row["name"], row_kind(row))
    text = shopping_text({**row, "name": f"{cut} {row['name']}"} if cut else row)  # '2 lb boneless chicken thighs'
    line = {"name": row["name"], "quantity": row.get("quantity"), "unit": row.get("unit"), "text": text,
            "recipes": pending.recipes, "action": action,
            "section": store_section(row["name"], row.get("category"), default_taxonomy(), row.get("unit"))}
    if pending.notes:
        line["note"] = "; ".join(pending.notes)
    if pending.existing is not None and (gain := shown_gain(pending.existing, row)):
        line["was"], line["adds"] = shopping_text(pending.existing), gain
    return line
