"""Which allergy an ingredient name falls under, through the ingredient taxonomy.

An allergy that names a taxonomy category ('shellfish', 'peanuts', 'tree nuts', 'dairy') covers
every name the category holds (shrimp, prawns, crab, lobster ...; peanut butter, satay ...),
with the category's excludes honored ('oyster mushroom' is not shellfish, 'peanut-free' is not
peanuts). Any other allergy ('strawberries') matches names holding its words, or those of another name the
ingredient catalog gives the same ingredient ('aubergine' holds for 'eggplant': `kitchen/ingredient_match.py`). Pure and
deterministic; the taxonomy is the packaged one unless another is given.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from alfred_mcp.kitchen.ingredient_match import holds_words, spellings
from alfred_mcp.kitchen.taxonomy import Taxonomy, default_taxonomy, ingredient_words


@dataclass(frozen=True)
class AllergenHit:
    """One piece of content that an allergy forbids: where it is, what it says, which allergy."""

    allergen: str
    ingredient: str
    where: str

    def describe(self) -> str:
        return f"{self.where} '{self.ingredient}' contains {self.allergen}"


_KNOWN: dict[tuple[str, tuple[str, ...]], str | None] = {}
"""Answers already worked out with the packaged taxonomy (a batch of drafts asks about the same names again and again)."""
_KNOWN_MAX = 50_000


def allergen_of(name: str, allergies: Iterable[str], taxonomy: Taxonomy | None = None) -> str | None:
    """The first allergy (in sorted order) that `name` falls under, or None."""
    return _first_allergen(name, _normalized(allergies), taxonomy)


def _normalized(allergies: Iterable[str]) -> tuple[str, ...]:
    """Allergies as they are matched: trimmed, without blanks or repeats, sorted."""
    return tuple(sorted({a.strip() for a in allergies if a and a.strip()}))


def _first_allergen(name: str, wanted: tuple[str, ...], taxonomy: Taxonomy | None) -> str | None:
    if taxonomy is not None and taxonomy is not default_taxonomy():
        return _allergen_of(name, wanted, taxonomy)
    key = (name, wanted)
    if key in _KNOWN:
        return _KNOWN[key]
    if len(_KNOWN) >= _KNOWN_MAX:
        _KNOWN.clear()
    found = _KNOWN[key] = _allergen_of(name, wanted, default_taxonomy())
    return found


def _allergen_of(name: str, allergies: tuple[str, ...], taxonomy: Taxonomy) -> str | None:
    words = ingredient_words(name)
    if not words:
        return None
    for allergy in allergies:
        category = taxonomy.resolve_category(allergy)
        if category is not None:
            if taxonomy.matches(name, category):
                return allergy
            continue
        if any(holds_words(name, spelling) for spelling in spellings(allergy)):
            return allergy
    return None


def allergen_hits(
    named: Iterable[tuple[str, str]], allergies: Iterable[str], taxonomy: Taxonomy | None = None
) -> list[AllergenHit]:
    """Every (where, text) pair that falls under an allergy, in the order given."""
    wanted = _normalized(allergies)
    if not wanted:
        return []
    hits = []
    for where, text in named:
        if isinstance(text, str) and text.strip():
            allergen = _first_allergen(text, wanted, taxonomy)
            if allergen is not None:
                hits.append(AllergenHit(allergen, text, where))
    return hits
