"""Drafts compiled into schema-valid rows: deterministic, refs only, every loss reported.

How a draft value reaches its column:
- as written, when the column can hold it;
- through a synonym, silently ('Supper' -> dinner, 'Tablespoons' -> tbsp, 'veggie' -> vegetarian);
- to the closest allowed value, with a warning ('brunch' -> lunch);
- when nothing fits, to the column's fallback ('other', or nothing), with a warning, and the
  original kept in the row's free text: a recipe's tags, or the notes of a meal, pantry or
  shopping item. Nothing is dropped without a warning naming the field and the value.
Foreign keys stay refs ('gen_recipe_2', 'ing_5'); child rows leave out their parent's id, which
the saver fills in. The compiled rows are checked against the kitchen's JSON Schema before return.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from functools import cache, cached_property, lru_cache
from typing import Any, NamedTuple

from pydantic import BaseModel
from pydantic_core import to_json

from alfred_mcp.errors import InvalidPayloadError, InvalidRefError
from alfred_mcp.kitchen.jsonschema import describe_value, validate_row, validate_rows
from alfred_mcp.kitchen.raw_ids import find_raw_id
from alfred_mcp.kitchen.schema import (
    CUISINES,
    DIFFICULTIES,
    FLAVOR_TAGS,
    HEALTH_TAGS,
    LOCATIONS,
    MEAL_TYPES,
    OCCASIONS,
    SHOPPING_CATEGORIES,
    TASK_CATEGORIES,
    get_table,
)
from alfred_mcp.kitchen.taxonomy import default_taxonomy
from alfred_mcp.kitchen.units import is_known_unit, normalize_unit, parse_quantity
from alfred_mcp.state.drafts import (
    Draft,
    IngredientDraft,
    InventoryItemDraft,
    MealPlanDraft,
    RecipeDraft,
    ShoppingItemDraft,
    TaskDraft,
    ensure_pending,
)
from alfred_mcp.state.refs import parse_ref

_SHOWN = 80


class CompiledRow(NamedTuple):
    """One row to create, and the rows that belong to it (created after it, pointing at it).

    A named tuple, not a dataclass: a batch save makes hundreds, and a frozen dataclass costs more to build.
    """

    table: str
    data: dict[str, Any]
    children: tuple[CompiledRow, ...] = ()


@dataclass(frozen=True)
class Compiled:
    """A draft as rows (normally one root row with its children), and what did not carry over as written."""

    ref: str
    rows: tuple[CompiledRow, ...]
    warnings: tuple[str, ...]


# -- vocabularies: the words models use for the schema's closed sets --------------------------


def vocabulary_key(text: str) -> str:
    """'Middle Eastern' -> 'middle-eastern', 'gluten_free' -> 'gluten-free', ' Dry Goods ' -> 'dry-goods'."""
    return re.sub(r"[\s_]+", "-", text.strip().lower().replace("&", "and"))


def _words(meaning: str, *words: str) -> dict[str, str]:
    return dict.fromkeys(words, meaning)


@dataclass(frozen=True)
class Vocabulary:
    """The allowed values of one field, and the words that mean (or nearly mean) one of them."""

    field: str
    values: tuple[str, ...]
    synonyms: Mapping[str, str] = dataclasses.field(default_factory=dict)
    """Keys (see `vocabulary_key`) with the same meaning as a value: mapped silently."""
    nearest: Mapping[str, str] = dataclasses.field(default_factory=dict)
    """Keys close to a value but not the same: mapped with a warning."""

    @cached_property
    def _values_by_key(self) -> dict[str, str]:
        return {vocabulary_key(value): value for value in self.values}

    def lookup(self, text: str) -> tuple[str | None, bool]:
        """(value, approximate) for `text`; (None, False) when nothing fits."""
        key = vocabulary_key(text)
        exact = self._values_by_key.get(key) or self.synonyms.get(key)
        if exact is not None:
            return exact, False
        return self.nearest.get(key), key in self.nearest


CUISINE = Vocabulary("cuisine", CUISINES, synonyms={
    **_words("american", "new-american", "southern", "soul-food", "cajun", "creole", "bbq", "barbecue", "us"),
    **_words("mexican", "tex-mex", "mex"),
    **_words("chinese", "cantonese", "sichuan", "szechuan", "szechwan", "hunan"),
    **_words("italian", "tuscan", "sicilian", "neapolitan", "roman"),
    **_words("french", "provencal", "provençal"),
    **_words("middle-eastern", "middle-east", "mideast", "levantine", "lebanese", "syrian", "persian", "israeli"),
    **_words("british", "english", "scottish", "welsh", "uk"),
    **_words("african", "moroccan", "ethiopian", "west-african", "north-african", "nigerian"),
    **_words("caribbean", "jamaican", "cuban", "puerto-rican", "trinidadian"),
    **_words("indian", "south-indian", "north-indian", "punjabi"),
    **_words("japanese", "washoku"),
})
DIFFICULTY = Vocabulary("difficulty", DIFFICULTIES, synonyms={
    **_words("easy", "beginner", "simple", "very-easy", "basic"),
    **_words("medium", "intermediate", "moderate", "average"),
    **_words("hard", "advanced", "difficult", "challenging", "expert"),
})
MEAL_TYPE = Vocabulary("meal_type", MEAL_TYPES, synonyms={
    **_words("dinner", "supper", "evening-meal"),
    **_words("lunch", "luncheon"),
    **_words("snack", "snacks"),
    "prep": "other",  # the original schema's 'prep' meal type was renamed 'other'
}, nearest={"brunch": "lunch", "dessert": "snack", "appetizer": "snack", "tea": "snack"})
TASK_CATEGORY = Vocabulary("category", TASK_CATEGORIES, synonyms={
    **_words("prep", "preparation", "prep-work", "meal-prep", "cooking", "defrost", "thaw", "marinate"),
    **_words("shopping", "shop", "groceries", "grocery", "grocery-shopping"),
    **_words("cleanup", "clean-up", "clean", "cleaning", "dishes"),
})
LOCATION = Vocabulary("location", LOCATIONS, synonyms={
    **_words("fridge", "refrigerator", "refrigerated", "chiller"),
    **_words("freezer", "frozen", "deep-freeze"),
    **_words("cabinet", "cabinets", "cupboard", "cupboards"),
    **_words("pantry", "larder"),
    **_words("counter", "countertop", "counter-top", "kitchen-counter"),
}, nearest={"shelf": "pantry", "spice-rack": "cabinet", "fruit-bowl": "counter"})
OCCASION = Vocabulary("occasions", OCCASIONS, synonyms={
    **_words("weeknight", "weeknights", "weeknight-dinner", "weekday"),
    **_words("batch-prep", "meal-prep", "batch-cooking", "make-ahead", "batch"),
    **_words("hosting", "entertaining", "party", "dinner-party", "guests"),
    **_words("weekend", "weekends"),
    **_words("comfort", "comfort-food", "cozy", "cosy"),
})
HEALTH = Vocabulary("health_tags", HEALTH_TAGS, synonyms={
    **_words("vegetarian", "veggie", "veg"),
    **_words("high-protein", "protein-rich", "protein-packed", "protein"),
    **_words("low-carb", "low-carbohydrate"),
    **_words("gluten-free", "gf"),
    **_words("dairy-free", "df"),
    **_words("keto", "ketogenic", "keto-friendly"),
    **_words("light", "low-calorie", "low-cal", "lighter"),
}, nearest={"plant-based": "vegan"})
FLAVOR = Vocabulary("flavor_tags", FLAVOR_TAGS, synonyms={
    **_words("spicy", "hot", "fiery"),
    **_words("savory", "savoury"),
    **_words("tangy", "sour", "zesty", "tart"),
    **_words("rich", "creamy", "buttery", "indulgent"),
}, nearest={"citrusy": "tangy", "bright": "tangy", "meaty": "umami", "fresh": "light"})
SHOPPING_CATEGORY = Vocabulary("category", SHOPPING_CATEGORIES, synonyms={
    **_words("produce", "vegetables", "vegetable", "fruit", "fruits", "veg"),
    **_words("dairy", "dairy-and-eggs", "cheese", "eggs"),
    **_words("meat", "poultry", "meat-and-poultry", "butcher"),
    **_words("seafood", "fish"),
    **_words("bakery", "bread", "baked-goods"),
    **_words("frozen", "frozen-foods"),
    **_words("canned", "canned-goods"),
    **_words("dry goods", "pantry", "grains", "pasta"),
    **_words("baking", "baking-supplies", "baking-aisle"),
    **_words("oils & vinegars", "oils", "oil", "vinegars", "oils-and-vinegars"),
    **_words("soups & broths", "soups", "broths", "broth", "stock", "soups-and-broths"),
    **_words("beverages", "drinks", "beverage"),
    **_words("condiments", "condiment", "sauces"),
    **_words("spices", "spice", "seasonings", "herbs-and-spices"),
})
EQUIPMENT_SYNONYMS: dict[str, str] = {
    **_words("instant-pot", "instantpot", "pressure-cooker"),
    **_words("slow-cooker", "crockpot", "crock-pot"),
    **_words("air-fryer", "airfryer"),
    **_words("stovetop", "stove", "stove-top", "hob"),
    **_words("grill", "barbecue", "bbq"),
    **_words("cast-iron", "cast-iron-skillet", "cast-iron-pan"),
}
"""Equipment is free-form: keys are kept as written (hyphenated), these are merged into the suggested name."""


# -- the ingredient catalog -------------------------------------------------------------------


class CatalogMatch(NamedTuple):
    ref: str
    """The catalog ingredient's ref, e.g. 'ing_5'."""
    category: str | None


class CatalogIndex:
    """Catalog ingredients by name and alias, matched as whole words, case and plural folded.

    `match` takes the longest catalog name or alias found in the ingredient name
    ('boneless chicken thighs' -> 'chicken thigh' if listed, else 'chicken'); on a tie the
    rightmost wins, since English puts the head noun last. Names win over aliases, then the
    lowest ref, so the result never depends on row order. A compound the catalog has no entry
    for is never its part's entry when the taxonomy says it is another food than that part
    (`is_part_only`): 'rice milk' is not milk (nor rice), 'almond butter' not butter, 'apple
    cider vinegar' not apples; it is then unknown (None), matched by its name alone, and the
    taxonomy files it with its family ('dairy alternatives'), never with dairy.
    """

    def __init__(self, rows: Iterable[Mapping[str, Any]]) -> None:
        entries = sorted((_catalog_entry(row) for row in rows), key=lambda entry: entry[0])
        self._phrases: dict[tuple[str, ...], CatalogMatch] = {}
        self._texts: dict[tuple[str, ...], str] = {}
        for _, name, _, match in entries:
            self._add(name, match)
        for _, _, aliases, match in entries:
            for alias in aliases:
                self._add(alias, match)
        self._longest = max(map(len, self._phrases), default=0)
        self._matched: dict[str, CatalogMatch | None] = {}

    def _add(self, text: str, match: CatalogMatch) -> None:
        words = folded_words(text)
        if words:
            self._phrases.setdefault(words, match)
            self._texts.setdefault(words, text)

    def __len__(self) -> int:
        return len(self._phrases)

    def match(self, name: str) -> CatalogMatch | None:
        """The catalog ingredient `name` refers to, or None (remembered per name: batches repeat names)."""
        if name in self._matched:
            return self._matched[name]
        found = self._matched[name] = self._best(name)
        return found

    def _best(self, name: str) -> CatalogMatch | None:
        words = folded_words(name)
        best: tuple[tuple[int, int, int], CatalogMatch, tuple[str, ...]] | None = None
        for start in range(len(words)):
            for end in range(start + 1, min(len(words), start + self._longest) + 1):
                found = self._phrases.get(words[start:end])
                rank = (end - start, sum(map(len, words[start:end])), start)
                if found is not None and (best is None or rank > best[0]):
                    best = (rank, found, words[start:end])
        if best is None:
            return None
        entry, end = self._texts[best[2]], best[0][2] + best[0][0]
        head = len(folded_words(_HEAD_ENDS.split(name, maxsplit=1)[0]))
        if is_part_only(name, entry) or modifies_another_food(re.findall(r"[^\W_]+", name.lower())[end:head], entry):
            return None
        return best[1]


def is_part_only(name: str, entry: str) -> bool:
    """True when `name` holds the catalog entry's words but the taxonomy files it apart from every category the
    entry is in: a compound whose other word makes it another food ('rice milk' is no dairy 'milk', 'turkey bacon'
    no pork 'bacon', 'white wine vinegar' no 'white wine'). 'cheddar cheese', 'plum tomatoes', 'lemon juice' are
    still their entry."""
    taxonomy = default_taxonomy()
    own = taxonomy.categories_of(entry)
    return bool(own) and not set(own) <= set(taxonomy.categories_of(name))


def modifies_another_food(after: list[str], entry: str) -> bool:
    """True when a word after the entry's words in the name's head is a food of a category the entry is not in: the
    entry only says which kind ('almond milk' is no almonds, 'egg noodles' no eggs); 'cheddar cheese', 'lemon juice',
    'garlic powder' are still their entry."""
    taxonomy = default_taxonomy()
    own = set(taxonomy.categories_of(entry))
    return any((found := set(taxonomy.categories_of(word))) and not found <= own for word in after)


_HEAD_ENDS = re.compile(r"[,(;\[]|\s[-–—]\s")
"""Where a name's head ends: what follows a comma or parenthesis says how it is cut or prepared."""


def _catalog_entry(row: Mapping[str, Any]) -> tuple[int, str, tuple[str, ...], CatalogMatch]:
    ref = row.get("ref")
    parsed = parse_ref(ref)
    if parsed is None or parsed.generated or parsed.entity_type != "ing":
        raise InvalidRefError(
            f"Catalog rows need an ingredient ref such as ing_5, got {describe_value(ref)}.", field="ref"
        )
    name = row.get("name")
    if not isinstance(name, str):
        raise InvalidPayloadError(f"Catalog row {ref} has no name.", field="name", value=ref)
    aliases = tuple(alias for alias in row.get("aliases") or () if isinstance(alias, str))
    return parsed.number, name, aliases, CatalogMatch(str(ref), row.get("category"))


def folded_words(text: str) -> tuple[str, ...]:
    """'Boneless Chicken Thighs' -> ('boneless', 'chicken', 'thigh'): lowercase words, plurals folded."""
    return tuple(_fold(word) for word in re.findall(r"[^\W_]+", text.lower()))


def _fold(word: str) -> str:
    """A key shared by the singular and plural: berry/berries, cookie/cookies, olive/olives, peach/peaches."""
    stem = word
    if len(word) > 3 and not word.endswith(("ss", "us", "is")):
        if word.endswith("ies"):
            stem = word[:-3] + "i"
        elif word.endswith("es"):
            stem = word[:-2]
        elif word.endswith("s"):
            stem = word[:-1]
    if stem.endswith("ie"):
        return stem[:-2] + "i"
    if len(stem) > 2 and stem.endswith("y") and stem[-2] not in "aeiou":
        return stem[:-1] + "i"
    return stem[:-1] if len(stem) > 2 and stem.endswith("e") else stem


# -- compiling --------------------------------------------------------------------------------


@dataclass
class _Spill:
    """Free text that keeps what a column could not hold: a recipe's tags, or a row's notes."""

    column: str | None
    labelled: bool = False
    items: list[str] = dataclasses.field(default_factory=list)

    def keep(self, where: str, value: str) -> str:
        """Keep `value`; the clause a warning ends with."""
        if self.column is None:
            return ", and there is no free-text column to keep it in"
        self.items.append(f"{where}: {value}" if self.labelled else value)
        return f", kept in {self.column}"


@dataclass
class _Compilation:
    ref: str
    catalog: CatalogIndex | None
    warnings: list[str] = dataclasses.field(default_factory=list)

    def warn(self, text: str) -> None:
        self.warnings.append(f"{self.ref}: {text}")

    def match(self, name: str) -> CatalogMatch | None:
        return None if self.catalog is None else self.catalog.match(name)


def compile_draft(draft: Draft, catalog: CatalogIndex | None = None) -> Compiled:
    """The rows that save `draft`, with a warning for everything not carried over as written.

    Same draft and catalog, same result.

    Raises:
        StateError: the draft was already saved or discarded.
        InvalidPayloadError: the content no longer fits its draft model or a compiled row
            breaks the kitchen schema (named by column).
    """
    ensure_pending(draft)
    compilation = _Compilation(draft.ref, catalog)
    row = _COMPILERS[draft.entity_type](compilation, draft.parsed())
    # Compiled rows are made of the draft's text (and catalog refs): one scan of it for raw ids
    # stands for one per row; when it finds one, the rows are scanned so the error names the column.
    _check_row(row, draft.ref, raw_ids=find_raw_id(to_json(draft.content).decode()) is not None)
    return Compiled(draft.ref, (row,), tuple(compilation.warnings))


def _compile_recipe(c: _Compilation, draft: BaseModel) -> CompiledRow:
    assert isinstance(draft, RecipeDraft)
    spill = _Spill("tags")
    data = {
        "name": draft.name,
        "description": draft.description,
        "cuisine": _one_of(c, CUISINE, draft.cuisine, fallback="other", spill=spill),
        "difficulty": _one_of(c, DIFFICULTY, draft.difficulty, fallback=None, spill=spill),
        "prep_time_minutes": draft.prep_time_minutes,
        "cook_time_minutes": draft.cook_time_minutes,
        "total_time_minutes": draft.total_time_minutes,
        "servings": draft.servings,
        "instructions": list(draft.instructions),
        "occasions": _tags_of(c, OCCASION, draft.occasions, spill),
        "health_tags": _tags_of(c, HEALTH, draft.health_tags, spill),
        "flavor_tags": _tags_of(c, FLAVOR, draft.flavor_tags, spill),
        "equipment_tags": _equipment(draft.equipment_tags),
        "source_url": draft.source_url,
        "parent_recipe_id": draft.parent_recipe,
    }
    data["tags"] = _unique([*draft.tags, *spill.items])
    if draft.notes:
        c.warn(f"notes: recipes have no notes column, so these were not saved: {_shown(draft.notes)}")
    children = tuple(_compile_ingredient(c, i, ingredient) for i, ingredient in enumerate(draft.ingredients))
    return CompiledRow("recipes", _present(data), children)


def _compile_ingredient(c: _Compilation, index: int, ingredient: IngredientDraft) -> CompiledRow:
    # The hot path of a batch save (hundreds of lines): the row is built with only the columns that
    # have a value, and the place a warning names is spelled out only when there is a warning.
    name = ingredient.name
    quantity, unit, kept = _amount(c, lambda: f"ingredients[{index}] ({name!r})", ingredient.quantity, ingredient.unit)
    match = c.match(name)
    category = ingredient.category
    if match is not None and match.category:
        if category and category.lower() != match.category.lower():
            c.warn(f"ingredients[{index}] ({name!r}) category {category!r} replaced by the catalog's {match.category!r}.")
        category = match.category
    data: dict[str, Any] = {"position": index + 1, "name": name}
    if quantity is not None:
        data["quantity"] = quantity
    if unit is not None:
        data["unit"] = unit
    notes = _joined([kept, ingredient.notes]) if kept else ingredient.notes
    if notes:
        data["notes"] = notes
    data["is_optional"] = ingredient.is_optional
    if category is not None:
        data["category"] = category
    if match is not None:
        data["ingredient_id"] = match.ref
    return CompiledRow("recipe_ingredients", data)


def _compile_meal(c: _Compilation, draft: BaseModel) -> CompiledRow:
    assert isinstance(draft, MealPlanDraft)
    spill = _Spill("notes", labelled=True)
    data = {
        "date": draft.date.isoformat(),
        "meal_type": _one_of(c, MEAL_TYPE, draft.meal_type, fallback="other", spill=spill),
        "recipe_id": draft.recipe,
        "servings": draft.servings,
        "notes": _joined([draft.notes, *spill.items]),
    }
    return CompiledRow("meal_plans", _present(data))


def _compile_task(c: _Compilation, draft: BaseModel) -> CompiledRow:
    assert isinstance(draft, TaskDraft)
    data = {
        "title": draft.title,
        "due_date": draft.due_date.isoformat() if draft.due_date else None,
        "category": _one_of(c, TASK_CATEGORY, draft.category, fallback="other", spill=_Spill(None)),
        "recipe_id": draft.recipe,
        "meal_plan_id": draft.meal_plan,
    }
    return CompiledRow("tasks", _present(data))


def _compile_shopping(c: _Compilation, draft: BaseModel) -> CompiledRow:
    assert isinstance(draft, ShoppingItemDraft)
    quantity, unit, kept = _amount(c, None, draft.quantity, draft.unit)
    match = c.match(draft.name)
    data = {
        "name": draft.name,
        "quantity": quantity,
        "unit": unit,
        "category": _store_section(draft.category),
        "notes": _joined([kept, draft.notes]),
        "source": draft.source,
        "is_purchased": draft.is_purchased,
        "ingredient_id": match.ref if match else None,
    }
    return CompiledRow("shopping_list", _present(data))


def _compile_inventory(c: _Compilation, draft: BaseModel) -> CompiledRow:
    assert isinstance(draft, InventoryItemDraft)
    spill = _Spill("notes", labelled=True)
    quantity, unit, kept = _amount(c, None, draft.quantity, draft.unit)
    match = c.match(draft.name)
    data = {
        "name": draft.name,
        "quantity": quantity,
        "unit": unit,
        "location": _one_of(c, LOCATION, draft.location, fallback=None, spill=spill),
        "expiry_date": draft.expiry_date.isoformat() if draft.expiry_date else None,
        "purchase_date": draft.purchase_date.isoformat() if draft.purchase_date else None,
        "category": draft.category or (match.category if match else None),
        "notes": _joined([kept, draft.notes, *spill.items]),
        "ingredient_id": match.ref if match else None,
    }
    return CompiledRow("inventory", _present(data))


_COMPILERS: dict[str, Callable[[_Compilation, BaseModel], CompiledRow]] = {
    "recipe": _compile_recipe,
    "meal": _compile_meal,
    "task": _compile_task,
    "shop": _compile_shopping,
    "inv": _compile_inventory,
}


# -- values -----------------------------------------------------------------------------------


def _one_of(
    c: _Compilation, vocabulary: Vocabulary, value: str | None, *, fallback: str | None, spill: _Spill
) -> str | None:
    """`value` as one of the vocabulary's values, or the fallback; warns and spills what does not fit."""
    if value is None:
        return None
    found, approximate = vocabulary.lookup(value)
    if found is not None and not approximate:
        return found
    kept = spill.keep(vocabulary.field, value)
    if found is not None:
        c.warn(f"{vocabulary.field}: {value!r} saved as {found!r}, the closest allowed value{kept}.")
        return found
    outcome = f"saved as {fallback!r}" if fallback else "left out"
    c.warn(f"{vocabulary.field}: {value!r} is not one of {', '.join(vocabulary.values)}; {outcome}{kept}.")
    return fallback


def _tags_of(c: _Compilation, vocabulary: Vocabulary, values: list[str], spill: _Spill) -> list[str]:
    found = (_one_of(c, vocabulary, value, fallback=None, spill=spill) for value in values)
    return _unique(value for value in found if value is not None)


def _amount(
    c: _Compilation, where: Callable[[], str] | None, quantity: float | str | None, unit: str | None
) -> tuple[float | None, str | None, str | None]:
    """(quantity, unit, text kept in notes) from a draft's quantity and unit; `where` names the line in warnings."""
    amount = _read_amount(quantity, unit)
    if amount.issue is not None:
        saved = f"saved {amount.value:g}" if amount.value is not None else "saved no quantity"
        c.warn(f"{_place(where)}quantity {amount.issue}; {saved}, kept {amount.kept!r} in notes.")
    if amount.unknown_unit:
        c.warn(f"{_place(where)}unit {unit!r} is not a known unit; kept as {amount.unit!r}.")
    return amount.value, amount.unit, amount.kept


class _Amount(NamedTuple):
    value: float | None
    unit: str | None
    kept: str | None
    """The quantity as written, kept in notes when (value, unit) does not capture it."""
    issue: str | None
    unknown_unit: bool


@lru_cache(maxsize=4096, typed=True)
def _read_amount(quantity: float | str | None, unit: str | None) -> _Amount:
    """How a quantity and unit are saved (pure; a batch repeats the same few pairs)."""
    parsed = parse_quantity(quantity)
    normalized = normalize_unit(unit)
    issue = parsed.issue
    if issue is None and parsed.unit and normalized and parsed.unit != normalized:
        issue = f"{quantity!r} names the unit {parsed.unit!r} but unit is {unit!r}"
    final_unit = normalized or parsed.unit
    kept = str(quantity) if issue is not None else None
    return _Amount(parsed.value, final_unit, kept, issue, final_unit is not None and not is_known_unit(final_unit))


def _place(where: Callable[[], str] | None) -> str:
    return f"{where()} " if where is not None else ""


def _equipment(values: list[str]) -> list[str]:
    """Equipment spelled lowercase-hyphenated, with synonyms merged into the suggested names."""
    return _unique(EQUIPMENT_SYNONYMS.get(key, key) for key in map(vocabulary_key, values))


def _store_section(category: str | None) -> str | None:
    """A shopping category as a store section when one matches; other categories are kept as written."""
    if category is None:
        return None
    found, _ = SHOPPING_CATEGORY.lookup(category)
    return found or category


def _unique(values: Iterable[str]) -> list[str]:
    """Values in order, without repeats (case-insensitive)."""
    seen: dict[str, str] = {}
    for value in values:
        seen.setdefault(value.lower(), value)
    return list(seen.values())


def _joined(parts: Iterable[str | None]) -> str | None:
    text = "; ".join(part for part in parts if part)
    return text or None


def _present(data: Mapping[str, Any]) -> dict[str, Any]:
    """The columns that have a value (the database default applies to the rest)."""
    return {key: value for key, value in data.items() if value is not None}


def _shown(text: str) -> str:
    return repr(text if len(text) <= _SHOWN else text[: _SHOWN - 3] + "...")


def _check_row(row: CompiledRow, parent_ref: str, *, raw_ids: bool = True) -> None:
    """Validate the compiled rows as creates; children are checked as they will be written, pointing at their parent."""
    validate_row(get_table(row.table), row.data, "create", raw_ids=raw_ids)
    by_table: dict[str, list[dict[str, Any]]] = {}
    for child in row.children:
        by_table.setdefault(child.table, []).append(child.data)
    for name, rows in by_table.items():
        validate_rows(get_table(name), rows, "create", raw_ids=raw_ids, given={_parent_column(name, row.table): parent_ref})


@cache
def _parent_column(child: str, parent: str) -> str:
    return next(c.name for c in get_table(child).fk_columns if c.fk and c.fk.table == parent)


