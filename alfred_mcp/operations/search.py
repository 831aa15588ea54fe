"""Recipe search and "what can I make": deterministic matching over the store's current rows.

Every call sees the kitchen as it is now: recipes, ingredients and pantry come from the user's
`RecipeIndex` (`recipe_index.py`), memoized only while the stamps of the tables it reads say nothing changed,
so a recipe saved a minute ago is found and a search of 10,000 recipes costs what one of 100
does once the index is built. Categories expand through the ingredient taxonomy ("fish" finds
cod and salmon), and the session's compiled constraints can be honored: allergens, dislikes and
excluded ingredients, dietary restrictions, required ingredients, equipment, cuisine, difficulty
and time. Every match is decided per distinct ingredient name, once per index. Results come
back as refs, registered in the session.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import date
from functools import lru_cache
from typing import Any, TypedDict, TypeVar

from alfred_mcp.kitchen.ingredient_kinds import Kind, kind_of, same_kind, without_kind_words
from alfred_mcp.kitchen.ingredient_match import holds_words, term_matches
from alfred_mcp.kitchen.recipe_times import duration_text, total_minutes
from alfred_mcp.kitchen.schema import DIFFICULTIES, RECIPES
from alfred_mcp.kitchen.taxonomy import Taxonomy, default_taxonomy, ingredient_words
from alfred_mcp.operations import crud
from alfred_mcp.operations.recipe_index import RecipeIndex, recipe_index
from alfred_mcp.session import Session, UnitOfWork
from alfred_mcp.state.call_log import CallRecord
from alfred_mcp.state.constraints import GUEST_ALLERGY, CompiledConstraints, CompiledItem
from alfred_mcp.store.base import Row

T = TypeVar("T")
MAX_EXPANDED_SHOWN = 40
STYLE_TAGS = frozenset({"one pot", "one pan", "no cook", "sheet pan"})
"""Equipment tags that describe a method, not something a kitchen must own."""
DIETARY_EXCLUDES: dict[str, tuple[str, ...]] = {
    "vegetarian": ("meat", "seafood"),
    "vegan": ("meat", "seafood", "dairy", "eggs"),
    "pescatarian": ("meat",),
    "gluten free": ("gluten",),
    "dairy free": ("dairy",),
    "nut free": ("nuts",),
    "halal": ("pork", "alcohol"),
    "kosher": ("pork", "shellfish"),
    "no pork": ("pork",),
}
DIFFICULTY_WORDS = {"simple": "easy", "basic": "easy", "beginner": "easy", "moderate": "medium",
                    "intermediate": "medium", "challenging": "hard", "advanced": "hard"}


@dataclass(frozen=True)
class RecipeQuery:
    """What to look for; every given field must hold."""

    category: str | None = None
    ingredient: str | None = None
    cuisine: str | None = None
    max_minutes: int | None = None
    equipment: str | None = None
    honor_constraints: bool = True
    limit: int = 20


@dataclass
class Candidate:
    """A recipe row with its ingredients, and what matching found."""

    row: Row
    ingredients: list[Row]
    matched: list[str] = field(default_factory=list)
    reasons: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    @property
    def total_minutes(self) -> int | None:
        return total_minutes(self.row)


@dataclass(frozen=True)
class SearchOutcome:
    """Matching recipes (refs), those the constraints excluded, and what the category expanded to."""

    recipes: list[RecipeHit]
    excluded: list[ExcludedRecipe]
    truncated: bool
    category: str | None = None
    expanded: tuple[str, ...] = ()


class _RecipeHitFields(TypedDict):
    ref: str
    name: str
    cuisine: str | None
    difficulty: str | None
    total_minutes: int | None
    servings: int | None
    equipment_tags: list[str]
    matched: list[str]


class RecipeHit(_RecipeHitFields, total=False):
    """A recipe a search found, as a client sees it (refs only)."""

    notes: list[str]


class MakeableHit(RecipeHit):
    """A recipe ranked by pantry coverage: what share of its ingredients the pantry holds, and what is missing."""

    coverage: float
    have: int
    need: int
    missing: list[str]


class ExcludedRecipe(TypedDict):
    """A recipe the constraints excluded, with every reason."""

    ref: str
    name: str
    reasons: list[str]


@dataclass(frozen=True)
class MakeableOutcome:
    """Recipes ranked by pantry coverage, those the constraints excluded, and how many pantry items were counted."""

    recipes: list[MakeableHit]
    excluded: list[ExcludedRecipe]
    pantry_items: int


class Verdicts:
    """Matching answers per ingredient name, kept in a `RecipeIndex` (or computed each time without one).

    A query asks the same few questions of every ingredient of thousands of recipes, so each
    question is a predicate over names (`category`, `words`, `term`), made once per question with
    its own table of answers; a name missing there is taken from the index (or worked out) once.
    """

    def __init__(self, taxonomy: Taxonomy, index: RecipeIndex | None = None) -> None:
        self.taxonomy = taxonomy
        self._index = index if taxonomy is default_taxonomy() else None  # kept answers hold for the packaged one
        self._tests: dict[tuple[Hashable, ...], Callable[[str], bool]] = {}

    def category(self, category: str) -> Callable[[str], bool]:
        """Does an ingredient name fall under `category`?"""
        return self._test(("category", category), lambda name: self.taxonomy.matches(name, category))

    def words(self, term: str) -> Callable[[str], bool]:
        """Does an ingredient name hold the words of `term`?"""
        return self._test(("words", term), lambda name: holds_words(name, term))

    def term(self, term: str, *, strict: bool) -> Callable[[str], bool]:
        """Is an ingredient name, or does it belong to, `term` (`term_matches`)?"""
        return self._test(("term", term, strict), lambda name: term_matches(name, term, self.taxonomy, strict=strict))

    def _test(self, question: tuple[Hashable, ...], compute: Callable[[str], bool]) -> Callable[[str], bool]:
        test = self._tests.get(question)
        if test is None:
            test = self._tests[question] = self._answers(question, compute)
        return test

    def _answers(self, question: tuple[Hashable, ...], compute: Callable[[str], bool]) -> Callable[[str], bool]:
        answers: dict[str, bool] = {}
        index = self._index

        def test(name: str) -> bool:
            found = answers.get(name)
            if found is None:
                key = (question[0], name, *question[1:])
                found = answers[name] = compute(name) if index is None else index.verdict(key, lambda: compute(name))
            return found

        return test


# -- search -----------------------------------------------------------------------------------


async def search_recipes(
    work: UnitOfWork, query: RecipeQuery, compiled: CompiledConstraints | None,
    *, taxonomy: Taxonomy | None = None,
) -> SearchOutcome:
    """Recipes matching `query` (and `compiled`, when given), sorted by name.

    Raises:
        InvalidFilterError: the category is not in the taxonomy (the message lists the known ones).
    """
    taxonomy = taxonomy or default_taxonomy()
    category = taxonomy.category(query.category).name if query.category else None
    index = await recipe_index(work)
    key = ("search", query, category, _constraints_key(compiled))
    shown, excluded, truncated = _kept(index, taxonomy, key, lambda: _search(index, query, category, compiled, Verdicts(taxonomy, index)))
    refs = await _register(work, [c.row for c in shown + excluded])
    results = [_recipe_result(c, refs[c.row["id"]]) for c in shown]
    dropped = [ExcludedRecipe(ref=refs[c.row["id"]], name=c.row["name"], reasons=c.reasons) for c in excluded]
    _record(work.session, "recipes_search", [r["ref"] for r in results], note=_query_note(query, category))
    expanded = taxonomy.expand(category) if category else ()
    return SearchOutcome(results, dropped, truncated, category, expanded)


def _search(
    index: RecipeIndex, query: RecipeQuery, category: str | None, compiled: CompiledConstraints | None, verdicts: Verdicts,
) -> tuple[list[Candidate], list[Candidate], bool]:
    """(shown, excluded, truncated): the first `limit` kept by name, the first `limit` excluded in store order."""
    found = []
    for row, parts in index.recipes:
        if query.cuisine and row.get("cuisine") != query.cuisine:
            continue
        if query.equipment and query.equipment not in (row.get("equipment_tags") or ()):
            continue
        candidate = Candidate(row, parts)
        if _matches_query(candidate, query, category, verdicts):
            found.append(candidate)
    if compiled is not None:
        for candidate in found:
            _check_constraints(candidate, compiled, verdicts)
    kept = sorted((c for c in found if not c.reasons), key=lambda c: (c.row["name"].lower(), c.row["name"]))
    excluded = [c for c in found if c.reasons]
    return kept[: query.limit], excluded[: query.limit], len(kept) > query.limit


def matches_query(candidate: Candidate, query: RecipeQuery, category: str | None, taxonomy: Taxonomy) -> bool:
    """True when the recipe fits every field of the query; the ingredients that matched are noted."""
    return _matches_query(candidate, query, category, Verdicts(taxonomy))


def _matches_query(candidate: Candidate, query: RecipeQuery, category: str | None, verdicts: Verdicts) -> bool:
    names = [part["name"] for part in candidate.ingredients]
    if category is not None:
        in_category = verdicts.category(category)
        hits = [name for name in names if in_category(name)]
        if not hits:
            return False
        candidate.matched += hits
    if query.ingredient:
        holds = verdicts.words(query.ingredient)
        hits = [name for name in names if holds(name)]
        if not hits:
            return False
        candidate.matched += [name for name in hits if name not in candidate.matched]
    if query.max_minutes is not None:
        total = candidate.total_minutes
        return total is not None and total <= query.max_minutes
    return True


# -- constraints ------------------------------------------------------------------------------


def check_constraints(candidate: Candidate, compiled: CompiledConstraints, taxonomy: Taxonomy) -> None:
    """Record on the candidate every reason the compiled constraints exclude it, and notes to omit optional items."""
    _check_constraints(candidate, compiled, Verdicts(taxonomy))


def _check_constraints(candidate: Candidate, compiled: CompiledConstraints, verdicts: Verdicts) -> None:
    required = [p["name"] for p in candidate.ingredients if not p.get("is_optional")]
    optional = [p["name"] for p in candidate.ingredients if p.get("is_optional")]
    for item in compiled.must_exclude:
        _exclusion(candidate, item, required, optional, verdicts)
    for restriction in compiled.dietary:
        for category in DIETARY_EXCLUDES.get(_plain(restriction), ()):
            in_category = verdicts.category(category)
            hits = [name for name in required if in_category(name)]
            if hits:
                candidate.reasons.append(f"not {restriction}: {', '.join(hits)}")
    for item in compiled.must_include:
        names = verdicts.term(item.value, strict=False)
        if not any(names(name) for name in required + optional):
            candidate.reasons.append(f"has no {item.value} ({', '.join(item.why)})")
    candidate.reasons += _recipe_field_reasons(candidate, compiled)


def _exclusion(candidate: Candidate, item: CompiledItem, required: list[str], optional: list[str], verdicts: Verdicts) -> None:
    """Allergies match broadly (any ingredient holding the words); dislikes and goal exclusions by head word."""
    why = f"you don't like {item.value}" if item.why == ["dislike"] else f"{item.value}: {', '.join(item.why)}"
    strict = not any(reason in ("allergy", GUEST_ALLERGY) for reason in item.why)
    is_term = verdicts.term(item.value, strict=strict)
    hits = [name for name in required if is_term(name)]
    if hits:
        candidate.reasons.append(f"contains {', '.join(hits)} ({why})")
    for name in optional:
        if is_term(name):
            candidate.notes.append(f"leave out the optional {name} ({why})")


def _recipe_field_reasons(candidate: Candidate, compiled: CompiledConstraints) -> list[str]:
    row = candidate.row
    reasons: list[str] = []
    tags = {_plain(tag): tag for tag in row.get("equipment_tags") or ()}
    for wanted in compiled.equipment:
        if _plain(wanted) not in tags:
            reasons.append(f"does not use the {wanted}")
    available = {_plain(tag) for tag in compiled.available_equipment}
    missing = sorted(tags[tag] for tag in tags.keys() - STYLE_TAGS - available) if available else []
    if missing:
        reasons.append(f"needs equipment the kitchen lacks: {', '.join(missing)}")
    if compiled.cuisine and _plain(row.get("cuisine") or "") not in {_plain(c) for c in compiled.cuisine}:
        reasons.append(f"cuisine is {row.get('cuisine') or 'not set'}, not {' or '.join(compiled.cuisine)}")
    levels = {DIFFICULTY_WORDS.get(_plain(d), _plain(d)) for d in compiled.difficulty} & set(DIFFICULTIES)
    if levels and row.get("difficulty") not in levels:
        reasons.append(f"difficulty is {row.get('difficulty') or 'not set'}, not {' or '.join(sorted(levels))}")
    if compiled.max_minutes is not None:
        total = candidate.total_minutes
        if total is None or total > compiled.max_minutes:
            taken = duration_text(total) if total is not None else "an unknown time"
            reasons.append(f"takes {taken} (limit {duration_text(int(compiled.max_minutes))})")
    flavors = {_plain(tag) for tag in row.get("flavor_tags") or ()}
    for flavor in compiled.flavor:
        avoided = _negated(flavor)
        if avoided and avoided in flavors:
            reasons.append(f"is {avoided} (wanted {flavor})")
    return reasons


@lru_cache(maxsize=4096)
def _plain(text: str) -> str:
    """Lowercase words, '-' and '_' as spaces (memoized: every recipe's tags go through it on every query)."""
    return " ".join(text.lower().replace("-", " ").replace("_", " ").split())


def _negated(flavor: str) -> str | None:
    words = _plain(flavor).split()
    return " ".join(words[1:]) if len(words) > 1 and words[0] in ("not", "no", "non") else None


# -- what can I make --------------------------------------------------------------------------


@dataclass(frozen=True)
class Coverage:
    """How much of a recipe's required ingredients the pantry holds."""

    have: int
    need: int
    missing: tuple[str, ...]

    @property
    def share(self) -> float:
        return 1.0 if self.need == 0 else self.have / self.need


def pantry_coverage(ingredients: Sequence[Row], pantry: Sequence[Row]) -> Coverage:
    """Required ingredients found in the pantry, by catalog ingredient or by name words."""
    catalog_ids = _catalog_ids(pantry)
    pantry_words = _pantry_words(pantry)
    required = [part for part in ingredients if not part.get("is_optional")]
    missing = tuple(part["name"] for part in required if not _in_pantry(part, catalog_ids, pantry_words))
    return Coverage(have=len(required) - len(missing), need=len(required), missing=missing)


_PantryWords = list[tuple[tuple[str, ...], Kind]]


def _catalog_ids(pantry: Sequence[Row]) -> dict[str, list[Kind]]:
    """The pantry's catalog ingredients, each with the kinds it holds ('dairy-free' yogurt is not yogurt, a can of
    tomatoes not fresh ones)."""
    kinds: dict[str, list[Kind]] = {}
    for item in pantry:
        if item.get("ingredient_id"):
            kinds.setdefault(str(item["ingredient_id"]), []).append(_kind(item))
    return kinds


def _kind(row: Row) -> Kind:
    return kind_of(str(row["name"]), row.get("unit"), None if row.get("notes") is None else str(row["notes"]))


def _pantry_words(pantry: Sequence[Row]) -> _PantryWords:
    return [(_base_words(item["name"]), _kind(item)) for item in pantry]


def _base_words(name: str) -> tuple[str, ...]:
    """The name's words without those that only say its kind ('fresh cilantro' is cilantro, in its kind)."""
    return without_kind_words(ingredient_words(name), ingredient_words)


def _by_catalog(part: Row, catalog_ids: dict[str, list[Kind]]) -> bool:
    kind = _kind(part)
    return bool(part.get("ingredient_id")) and any(same_kind(kind, held) for held in catalog_ids.get(str(part["ingredient_id"]), ()))


_BOTH = re.compile(r"\s+(?:and|&)\s+", re.IGNORECASE)
"""'salt and pepper': two things, each of which the pantry must hold."""


def _in_pantry(part: Row, catalog_ids: dict[str, list[Kind]], pantry_words: _PantryWords) -> bool:
    """The part is in the pantry: itself, or each of the things it names ('salt and pepper': salt and pepper)."""
    if _one_in_pantry(part, catalog_ids, pantry_words):
        return True
    both = [thing for thing in _BOTH.split(str(part["name"])) if thing.strip()]
    return len(both) > 1 and all(_one_in_pantry({**part, "name": thing, "ingredient_id": None}, catalog_ids, pantry_words)
                                 for thing in both)


def _one_in_pantry(part: Row, catalog_ids: dict[str, list[Kind]], pantry_words: _PantryWords) -> bool:
    if _by_catalog(part, catalog_ids):
        return True
    kind = _kind(part)
    wanted = _base_words(part["name"])
    size = len(wanted)
    # A pantry item covers an ingredient whose words it holds ('baby spinach' covers 'spinach'),
    # never the reverse ('milk' must not cover 'coconut milk'), and only in its kind ('vegan butter' is no butter,
    # a can of chopped tomatoes is not the pantry's fresh tomatoes).
    return size > 0 and any(words[i : i + size] == wanted for words, held in pantry_words if same_kind(kind, held)
                            for i in range(len(words) - size + 1))


def rank_by_coverage(candidates: Iterable[tuple[Candidate, Coverage]]) -> list[tuple[Candidate, Coverage]]:
    """Most covered first; then fewer missing items, then name, then row order (deterministic)."""
    return sorted(candidates, key=lambda pair: (-pair[1].share, len(pair[1].missing), pair[0].row["name"].lower(), pair[0].row["name"]))


async def makeable_recipes(
    work: UnitOfWork, compiled: CompiledConstraints | None, *, min_coverage: float = 0.0, limit: int = 10,
    taxonomy: Taxonomy | None = None, flag_only: bool = False, today: date | None = None,
) -> MakeableOutcome:
    """Recipes ranked by pantry coverage, the excluded ones, and the pantry item count. With `flag_only` (constraints
    not honored), none is excluded: what a constraint would exclude it for is a note on it (a dislike, an allergen).
    Given `today`, a pantry row past its use-by date covers nothing."""
    taxonomy = taxonomy or default_taxonomy()
    index = await recipe_index(work, pantry=True, today=today)
    pantry = index.pantry or []
    key = ("makeable", _constraints_key(compiled), flag_only, min_coverage, limit)
    ranked, excluded = _kept(index, taxonomy, key, lambda: _makeable(index, pantry, compiled, min_coverage, limit, Verdicts(taxonomy, index),
                                                                     flag_only=flag_only), pantry=True)
    refs = await _register(work, [c.row for c, _ in ranked] + [c.row for c in excluded])
    results = [
        MakeableHit(**_recipe_result(c, refs[c.row["id"]]), coverage=round(cov.share, 3), have=cov.have, need=cov.need,
                    missing=list(cov.missing))
        for c, cov in ranked
    ]
    dropped = [ExcludedRecipe(ref=refs[c.row["id"]], name=c.row["name"], reasons=c.reasons) for c in excluded]
    _record(work.session, "recipes_makeable", [r["ref"] for r in results], note=f"{len(pantry)} pantry items")
    return MakeableOutcome(results, dropped, len(pantry))


def _makeable(
    index: RecipeIndex, pantry: Sequence[Row], compiled: CompiledConstraints | None, min_coverage: float, limit: int,
    verdicts: Verdicts, *, flag_only: bool = False,
) -> tuple[list[tuple[Candidate, Coverage]], list[Candidate]]:
    candidates = [Candidate(row, parts) for row, parts in index.recipes]
    if compiled is not None:
        for candidate in candidates:
            _check_constraints(candidate, compiled, verdicts)
            if flag_only:  # said on the recipe, never a reason to leave it out
                candidate.notes[:0], candidate.reasons = candidate.reasons, []
    stocked = _Stocked(pantry, index)
    scored = [(c, stocked.coverage(c.ingredients)) for c in candidates if not c.reasons]
    ranked = [pair for pair in rank_by_coverage(scored) if pair[1].share >= min_coverage][:limit]
    return ranked, [c for c in candidates if c.reasons][:limit]


class _Stocked:
    """The pantry as coverage asks it: by catalog id, or by the words of each ingredient name (memoized)."""

    def __init__(self, pantry: Sequence[Row], index: RecipeIndex) -> None:
        self._catalog_ids = _catalog_ids(pantry)
        self._words = _pantry_words(pantry)
        self._index = index
        self._by_name: dict[tuple[str, Kind], bool] = {}
        """The index's pantry answers as this query has asked them (one lookup per name, not per line)."""

    def coverage(self, ingredients: Sequence[Row]) -> Coverage:
        required = [part for part in ingredients if not part.get("is_optional")]
        missing = tuple(part["name"] for part in required if not self._holds(part))
        return Coverage(have=len(required) - len(missing), need=len(required), missing=missing)

    def _holds(self, part: Row) -> bool:
        if _by_catalog(part, self._catalog_ids):
            return True
        key = (str(part["name"]), _kind(part))
        found = self._by_name.get(key)
        if found is None:
            found = self._by_name[key] = self._index.verdict(key, lambda: _in_pantry(part, {}, self._words), pantry=True)
        return found


def _kept(index: RecipeIndex, taxonomy: Taxonomy, key: Hashable, compute: Callable[[], T], *, pantry: bool = False) -> T:
    """A query's outcome from the index's memo (worked out once per key), for the packaged taxonomy only."""
    return index.outcome(key, compute, pantry=pantry) if taxonomy is default_taxonomy() else compute()


def _constraints_key(compiled: CompiledConstraints | None) -> str | None:
    return None if compiled is None else compiled.model_dump_json()


# -- shared -----------------------------------------------------------------------------------


async def _register(work: UnitOfWork, rows: Sequence[Row]) -> dict[str, str]:
    """Row id -> ref for `rows`, assigning and persisting refs as a read does."""
    unique = list({row["id"]: row for row in rows}.values())
    out = await crud.rows_to_refs(work, RECIPES, [dict(row) for row in unique], action="read")
    return {row["id"]: ref["id"] for row, ref in zip(unique, out)}


def _recipe_result(candidate: Candidate, ref: str) -> RecipeHit:
    row = candidate.row
    result = RecipeHit(
        ref=ref, name=row["name"], cuisine=row.get("cuisine"), difficulty=row.get("difficulty"),
        total_minutes=candidate.total_minutes, servings=row.get("servings"),
        equipment_tags=list(row.get("equipment_tags") or ()), matched=candidate.matched,
    )
    if candidate.notes:
        result["notes"] = candidate.notes
    return result


def _record(session: Session, tool: str, refs: list[str], *, note: str | None) -> None:
    session.record_call(CallRecord(turn=session.turn, tool=tool, table="recipes", action="read", refs=refs,
                                   count=len(refs), note=note))


def _query_note(query: RecipeQuery, category: str | None) -> str | None:
    parts = [f"{name} {value}" for name, value in (("category", category), ("ingredient", query.ingredient),
             ("cuisine", query.cuisine), ("max minutes", query.max_minutes), ("equipment", query.equipment)) if value]
    return ", ".join(parts) or None


def constraints_summary(compiled: CompiledConstraints) -> Mapping[str, Any]:
    """The parts of the compiled constraints a search applied, for the result."""
    return {
        "must_exclude": [item.value for item in compiled.must_exclude],
        "must_include": [item.value for item in compiled.must_include],
        "dietary": list(compiled.dietary), "equipment": list(compiled.equipment),
        "cuisine": list(compiled.cuisine), "difficulty": list(compiled.difficulty), "max_minutes": compiled.max_minutes,
    }
