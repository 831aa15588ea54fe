"""Which kind of an ingredient a line means: its form (canned, dried, frozen, fresh) and its cut (boneless, skin-on).

Two lines of one ingredient are one purchase only when they are the same kind (`same_kind`): a can of chopped
tomatoes is not the pantry's fresh tomatoes, dried porcini are not fresh porcini, frozen peas are not peas, and
boneless chicken thighs are another purchase than bone-in, skin-on ones. What a line does not say matches any
kind ('chicken thighs' joins boneless ones), except that fresh produce is fresh unless the line says otherwise
(plain 'tomatoes' are fresh), and the herbs a recipe means dried (`DRIED_BY_DEFAULT`) are dried. The form is read
from the name, the notes and the unit (a can is canned). Pure and deterministic.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache

from alfred_mcp.kitchen.ingredient_match import free_from_marks
from alfred_mcp.kitchen.taxonomy import Taxonomy, Words, default_taxonomy, ingredient_words

CANNED, DRIED, FROZEN, FRESH = "canned", "dried", "frozen", "fresh"
FORMS = (CANNED, DRIED, FROZEN, FRESH)
FORM_WORDS: dict[str, str] = {"canned": CANNED, "tinned": CANNED, "dried": DRIED, "frozen": FROZEN, "fresh": FRESH}
"""A word of the name or notes that says the form."""
CANNED_UNITS = frozenset({"can", "tin"})
"""Units that say the thing is bought canned ('1 can black beans')."""
CANNED_PRODUCTS: tuple[str, ...] = (
    "tomato paste", "tomato puree", "tomato sauce", "crushed tomato", "diced tomato", "chopped tomato", "peeled tomato",
    "coconut milk", "coconut cream",
)
"""Names bought in a can (or jar) whatever the line says."""
DRIED_BY_DEFAULT: tuple[str, ...] = ("oregano", "bay leaf", "marjoram", "italian seasoning", "herbes de provence")
"""Herbs a recipe means dried unless it says fresh."""
FRESH_BY_DEFAULT: tuple[str, ...] = ("ginger", "galangal", "lemongrass", "turmeric root")
"""Spices a recipe means fresh (a piece, grated) unless it says ground or dried."""
GROUND_WORDS = frozenset({"ground", "powder", "powdered"})
PRODUCE = ("vegetables", "fruit", "herbs")
"""Taxonomy categories bought fresh unless the line says otherwise."""
NOT_PRODUCE = ("spices", "condiments", "oils", "broths", "baking", "sweeteners", "grains", "pasta", "bread")
"""Categories that win over produce ('paprika', 'salsa', 'corn tortillas' are not fresh produce)."""
CUT_AXES: dict[str, dict[str, str]] = {
    "bone": {"boneless": "boneless", "bone in": "bone-in", "bone-in": "bone-in", "with bone": "bone-in",
             "deboned": "boneless"},
    "skin": {"skinless": "skinless", "skin on": "skin-on", "skin-on": "skin-on", "with skin": "skin-on",
             "skin removed": "skinless"},
    "shape": {"whole": "whole", "ground": "ground", "minced": "ground", "thin cut": "thin-cut", "thick cut": "thick-cut"},
}
"""Cut words by the question they answer: two lines stay apart when both answer one question differently. Only
what is bought so: cutting into chunks or slices at home is preparation, not another purchase."""
KIND_ONLY = ("fresh", "dried", "frozen", "canned", "tinned", "boneless", "bone-in", "skinless", "skin-on")
"""Words of a name that say only its kind."""
CUT_CLASSES = ("meat", "seafood")
"""Only meat and seafood are bought by cut; 'diced onion' is an onion diced at home."""


@dataclass(frozen=True)
class Kind:
    """What a line says about which kind of the ingredient it is."""

    free_from: frozenset[str]
    form: str | None
    """canned, dried, frozen or fresh; None when the line does not say (and nothing implies it)."""
    cuts: tuple[tuple[str, str], ...]
    """(axis, cut) pairs the line states, e.g. (('bone', 'boneless'), ('skin', 'skin-on'))."""

    @property
    def cut_words(self) -> tuple[str, ...]:
        """The cuts as a butcher's label says them, in axis order: ('bone-in', 'skin-on')."""
        return tuple(cut for _, cut in self.cuts)


def kind_of(name: str, unit: str | None = None, notes: str | None = None, taxonomy: Taxonomy | None = None) -> Kind:
    """The kind a line (name, unit, notes) means."""
    if taxonomy is None:
        return _default_kind(name, unit, notes or "")
    return _kind(name, unit, notes or "", taxonomy)


@lru_cache(maxsize=8192)
def _default_kind(name: str, unit: str | None, notes: str) -> Kind:
    return _kind(name, unit, notes, default_taxonomy())


def _kind(name: str, unit: str | None, notes: str, taxonomy: Taxonomy) -> Kind:
    named, noted = ingredient_words(name), ingredient_words(notes)
    return Kind(free_from_marks(name), _form(name, named, noted, unit, taxonomy), _cuts(name, named, noted, taxonomy))


def same_kind(one: Kind, other: Kind) -> bool:
    """Whether two lines of one ingredient are one purchase: the same free-from variant, no two different forms,
    and no question of cut answered two ways."""
    if one.free_from != other.free_from:
        return False
    if one.form is not None and other.form is not None and one.form != other.form:
        return False
    theirs = dict(other.cuts)
    return all(theirs.get(axis, cut) == cut for axis, cut in one.cuts)


def rows_same_kind(name: str, unit: str | None, notes: str | None, row: dict[str, object]) -> bool:
    """`same_kind` of a line and a stored row (a pantry item, a shopping line, an ingredient)."""
    other = kind_of(str(row.get("name") or ""), _text(row.get("unit")), _text(row.get("notes")))
    return same_kind(kind_of(name, unit, notes), other)


def merged(one: Kind, other: Kind) -> Kind:
    """The kind two lines of one purchase state together (what either says)."""
    cuts = dict(other.cuts) | dict(one.cuts)
    order = list(CUT_AXES)
    return Kind(one.free_from, one.form or other.form, tuple(sorted(cuts.items(), key=lambda pair: order.index(pair[0]))))


def without_kind_words(words: Words, fold: Callable[[str], Words]) -> Words:
    """`words` (a name folded by `fold`) without what only says the kind ('fresh', 'boneless', 'skin-on'): lines of
    one ingredient share what is left, and `same_kind` then tells the kinds apart."""
    for phrase in KIND_ONLY:
        folded = fold(phrase)
        size = len(folded)
        at = next((start for start in range(len(words) - size + 1) if words[start:start + size] == folded), None)
        if at is not None and len(words) > size:
            words = words[:at] + words[at + size:]
    return words


def form_of(name: str, unit: str | None = None, notes: str | None = None, taxonomy: Taxonomy | None = None) -> str | None:
    """The line's form: canned, dried, frozen, fresh, or None when it does not say."""
    return kind_of(name, unit, notes, taxonomy).form


def is_produce(name: str, taxonomy: Taxonomy) -> bool:
    """Fresh produce by default: a vegetable, fruit or herb that no pantry category claims first, or a spice bought
    fresh ('ginger')."""
    words = ingredient_words(name)
    if _holds_any(words, FRESH_BY_DEFAULT) and not (set(words) & GROUND_WORDS):
        return True
    if any(taxonomy.matches(name, category) for category in NOT_PRODUCE):
        return False
    return any(taxonomy.matches(name, category) for category in PRODUCE)


def unnamed_cuts(name: str, kind: Kind) -> str | None:
    """The cuts the line states that its name does not say ('bone-in, skin-on' for 'chicken thighs'), or None."""
    words = set(ingredient_words(name))
    missing = [cut for cut in kind.cut_words if not set(ingredient_words(cut)) <= words]
    return ", ".join(missing) or None


def with_cuts(name: str, kind: Kind) -> str:
    """The name with the cuts its line states in front, when the name does not say them ('bone-in, skin-on chicken
    thighs'): how a butcher's label tells two lines of one meat apart."""
    cut = unnamed_cuts(name, kind)
    return f"{cut} {name}" if cut else name


def _form(name: str, named: Words, noted: Words, unit: str | None, taxonomy: Taxonomy) -> str | None:
    said = {FORM_WORDS[word] for word in (*named, *noted) if word in FORM_WORDS}
    if len(said) == 1:
        return said.pop()
    if said:
        return None  # 'fresh or frozen': either will do
    if unit in CANNED_UNITS or _holds_any(named, CANNED_PRODUCTS):
        return CANNED
    if _holds_any(named, DRIED_BY_DEFAULT) or _holds_any(named, FRESH_BY_DEFAULT) and set(named) & GROUND_WORDS:
        return DRIED
    return FRESH if is_produce(name, taxonomy) else None


def _cuts(name: str, named: Words, noted: Words, taxonomy: Taxonomy) -> tuple[tuple[str, str], ...]:
    if not any(taxonomy.matches(name, category) for category in CUT_CLASSES):
        return ()
    found = []
    for axis, words in CUT_AXES.items():
        cuts = {cut for phrase, cut in words.items() if _holds(named, ingredient_words(phrase))
                or _holds(noted, ingredient_words(phrase))}
        if len(cuts) == 1:
            found.append((axis, cuts.pop()))
    return tuple(found)


def _holds_any(words: Words, phrases: tuple[str, ...]) -> bool:
    return any(_holds(words, ingredient_words(phrase)) for phrase in phrases)


def _holds(words: Words, phrase: Words) -> bool:
    size = len(phrase)
    return size > 0 and any(words[start:start + size] == phrase for start in range(len(words) - size + 1))


def _text(value: object) -> str | None:
    return None if value is None else str(value)
