"""Whether an ingredient name is a thing the user named: the one rule for dislikes, exclusions and allergies.

Two strengths, both through `ingredient_words` (case, plurals and punctuation folded):

- **the thing** (dislikes and excluded ingredients): the name *is* the term. The term must end the
  name's head, the words before any comma or parenthesis, each alternative of 'x and y' / 'x or y' on
  its own, with trailing form words ('fillets', 'leaves') and leading measures ('cloves of') set aside:
  'kalamata olives', 'olive', 'olives, pitted' are olives; 'olive oil' is oil, not olives. A name a
  taxonomy category keeps out of the category that lists the term is not the term either: 'peanut
  butter' and 'cocoa butter' are not the 'butter' of dairy, 'coconut milk' is not its 'milk'.
- **holds it** (allergies): the term's words appear anywhere in the name, so a derived product carries
  the allergen ('peanut oil' holds peanuts, 'sesame oil' sesame).

A term that names a taxonomy category ('dairy', 'shellfish', 'mushrooms') matches by the category, with
its members and excludes, at either strength; any other term also by the other names the ingredient
catalog gives the same ingredient ('aubergine' is eggplant, 'scallions' green onions). A free-from variant
('dairy-free yogurt', 'vegan butter', 'gluten-free pasta') is another item than the plain one (`same_variant`):
the pantry's Greek yogurt is no dairy-free yogurt. Whatever is the thing also holds it, so a dislike never
catches what the same word as an allergy would not. Pure and deterministic.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from functools import cache
from types import MappingProxyType

from alfred_mcp.kitchen.seed import catalog_spellings
from alfred_mcp.kitchen.taxonomy import Taxonomy, Words, ingredient_words

FORM_WORDS = frozenset({
    "fillet", "breast", "thigh", "leg", "wing", "drumstick", "steak", "chunk", "piece", "slice", "leaf", "sprig",
    "clove", "head", "stalk", "floret", "cube", "strip", "ball", "crumble", "round", "half", "wedge",
})
"""Words naming a cut or form of an ingredient rather than another ingredient."""
MEASURE_WORDS = FORM_WORDS | frozenset({
    "can", "jar", "tin", "bunch", "handful", "pinch", "dash", "bag", "pack", "package", "packet", "bottle", "box",
    "cup", "knob", "splash", "sprinkle",
})
"""Words that, before 'of', measure the thing after it ('cloves of garlic', 'a can of tomatoes')."""
_HEAD_ENDS = re.compile(r"[,(;\[]|\s[-–—]\s")
_ALTERNATIVES = re.compile(r"\s+(?:and|or|&)\s+|/|\+", re.IGNORECASE)


_FREE_FROM = re.compile(
    r"\b(?:(?P<free>dairy|gluten|egg|nut|peanut|lactose|soy|wheat|milk)[\s-]*free|(?P<non>non)[\s-]*dairy|(?P<vegan>vegan|plant[\s-]*based))\b",
    re.IGNORECASE,
)
_SAME_FREEDOM = {"milk": "dairy", "non": "dairy"}


def free_from_marks(name: str) -> frozenset[str]:
    """What a name says its item is made without: 'dairy-free yogurt' and 'non-dairy yogurt' -> {'dairy-free'},
    'vegan butter' -> {'vegan'}. Such a variant is another item than the plain one ('Greek yogurt')."""
    marks = set()
    for found in _FREE_FROM.finditer(name):
        if found.group("vegan"):
            marks.add("vegan")
        else:
            kind = (found.group("free") or found.group("non")).lower()
            marks.add(f"{_SAME_FREEDOM.get(kind, kind)}-free")
    return frozenset(marks)


def same_variant(name: str, other: str) -> bool:
    """Whether two names of one ingredient are the same variant: both plain, or free from the same things."""
    return free_from_marks(name) == free_from_marks(other)


def holds_words(name: str, term: str) -> bool:
    """True when the words of `term` appear in `name` in order ('cod' in 'Cod Fillets'), plurals folded."""
    words, needle = ingredient_words(name), ingredient_words(term)
    size = len(needle)
    return size > 0 and any(words[i : i + size] == needle for i in range(len(words) - size + 1))


def things_named(name: str) -> list[Words]:
    """The words of each thing `name` names: its head (before a comma or parenthesis), whole and split at
    'and' / 'or', each without a leading measure ('cloves of')."""
    head = _HEAD_ENDS.split(name, maxsplit=1)[0]
    if not ingredient_words(head):
        head = name
    parts = _ALTERNATIVES.split(head)
    things = []
    for part in [head, *parts] if len(parts) > 1 else parts:  # 'half and half' is one thing too
        words = ingredient_words(part)
        if "of" in words:
            at = words.index("of")
            if at and all(word in MEASURE_WORDS or word.isdigit() for word in words[:at]):
                words = words[at + 1 :]
        if words:
            things.append(words)
    return things


def heads_with(name: str, term: str) -> bool:
    """True when `term`'s words end one thing `name` names, allowing trailing form words ('fillets', 'crumbles')."""
    needle = ingredient_words(term)
    return len(needle) > 0 and any(_ends_with(list(words), needle) for words in things_named(name))


def _ends_with(words: list[str], needle: Words) -> bool:
    while words and words[-1] in FORM_WORDS and tuple(words[-len(needle) :]) != needle:
        words.pop()
    return tuple(words[-len(needle) :]) == needle


@cache
def _spellings_by_name() -> Mapping[Words, tuple[str, ...]]:
    """Each catalog name or alias, folded -> every name of that ingredient (the first ingredient to claim it)."""
    found: dict[Words, tuple[str, ...]] = {}
    for names in catalog_spellings():
        for name in names:
            found.setdefault(ingredient_words(name), names)
    return MappingProxyType(found)


def spellings(term: str) -> tuple[str, ...]:
    """`term`, and when the ingredient catalog knows it, every other name of that ingredient ('aubergine':
    eggplant too; 'scallions': green onions, spring onions...)."""
    words = ingredient_words(term)
    others = [name for name in _spellings_by_name().get(words, ()) if ingredient_words(name) != words]
    return (term, *others)


def term_matches(name: str, term: str, taxonomy: Taxonomy, *, strict: bool = False) -> bool:
    """`name` is, or belongs to, `term`: a taxonomy category ('peanuts', 'shellfish') or an ingredient.

    Strict (dislikes, excluded ingredients) asks for the thing (`heads_with`, and no category listing the
    term excludes the name); otherwise (allergies) the name need only hold the term's words.
    """
    category = taxonomy.resolve_category(term)
    if category is not None:
        return taxonomy.matches(name, category)
    if not strict:
        return any(holds_words(name, spelling) for spelling in spellings(term))
    return any(heads_with(name, spelling) and not taxonomy.excludes_from_member(name, spelling) for spelling in spellings(term))


def is_disliked(name: str, dislikes: tuple[str, ...], taxonomy: Taxonomy) -> str | None:
    """The first dislike (in the order given) that the ingredient name is the thing of, or None."""
    return next((dislike for dislike in dislikes if term_matches(name, dislike, taxonomy, strict=True)), None)
