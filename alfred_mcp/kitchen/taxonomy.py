"""The ingredient taxonomy: which categories an ingredient name belongs to, decided by words.

The data is `resources/taxonomy.json`. A name belongs to a category when the words of one of
its members appear in it as whole words, in order, or when it belongs to a category the
category includes; either way, no phrase in the category's excludes may appear in the name.
Names and phrases are compared as `ingredient_words` gives them, so 'Cod Fillets' holds 'cod',
'spring onions' holds 'onion', 'eggplant' does not hold 'egg', and 'peanut butter' is kept
out of dairy by an exclude. Lookups are pure and deterministic; only `load_taxonomy()` with
no argument reads the packaged file.
"""

from __future__ import annotations

import json
import re
import unicodedata
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from functools import cache, lru_cache
from pathlib import Path
from types import MappingProxyType
from typing import Any

from alfred_mcp.errors import ConfigError, InvalidFilterError

Words = tuple[str, ...]

TAXONOMY_FILE = "taxonomy.json"
_PACKAGE = Path(__file__).resolve().parents[1]
_WORD = re.compile(r"[a-z0-9]+")
_APOSTROPHE = re.compile(r"'")
_IRREGULAR_PLURALS = {
    "leaves": "leaf", "loaves": "loaf", "halves": "half", "veggies": "veggie",
    "cookies": "cookie", "brownies": "brownie", "smoothies": "smoothie",
}
_NOT_PLURAL_ENDINGS = ("ss", "us")
_ES_PLURAL_ENDINGS = ("sses", "ches", "shes", "xes", "oes")
_TOP_LEVEL_KEYS = frozenset({"version", "about", "categories", "aliases"})
_CATEGORY_KEYS = frozenset({"description", "members", "includes", "excludes"})


_LOOK_ALIKES = str.maketrans(
    "аеорсухіјѕԁԛԝһӏёїАВЕКМНОРСТХУІЈЅ"  # Cyrillic
    "αοριυνκΑΒΕΖΗΙΚΜΝΟΡΤΥΧ"  # Greek
    "ı",
    "aeopcyxijsdqwhleiABEKMHOPCTXYIJS"
    "aopiuvkABEZHIKMNOPTYX"
    "i",
)
"""Letters of other scripts that look like Latin ones ('pеanut' with a Cyrillic е): read as those, so a
look-alike cannot hide an ingredient from matching (an allergy above all). Accents and compatibility
forms (fullwidth, ligatures) are folded by NFKD; what is left outside ASCII is dropped."""


@lru_cache(maxsize=8192)
def ingredient_words(text: str) -> Words:
    """`text` as matching sees it: lowercase ASCII words, punctuation dropped, look-alike letters read as Latin,
    plurals folded. Remembered per text (a pure function, asked about the same names over and over)."""
    plain = unicodedata.normalize("NFKD", text).translate(_LOOK_ALIKES).encode("ascii", "ignore").decode().lower()
    return tuple(singular(word) for word in _WORD.findall(_APOSTROPHE.sub("", plain)))


def singular(word: str) -> str:
    """Fold a simple English plural: 'fillets' -> 'fillet', 'berries' -> 'berry', 'tomatoes' -> 'tomato'."""
    if word in _IRREGULAR_PLURALS:
        return _IRREGULAR_PLURALS[word]
    if len(word) <= 3 or not word.endswith("s") or word.endswith(_NOT_PLURAL_ENDINGS):
        return word
    if word.endswith("ies") and len(word) > 4:
        return word[:-3] + "y"
    if word.endswith(_ES_PLURAL_ENDINGS):
        return word[:-2]
    return word[:-1]


def _holds(words: Words, phrase: Words) -> bool:
    """True when `phrase` appears in `words` as a run of whole words."""
    size = len(phrase)
    return any(words[start : start + size] == phrase for start in range(len(words) - size + 1))


PhraseIndex = Mapping[str, tuple[Words, ...]]
"""Phrases by their first word: a phrase can only start where the words hold its first word."""


def _by_first_word(phrases: tuple[Words, ...]) -> PhraseIndex:
    index: dict[str, tuple[Words, ...]] = {}
    for phrase in phrases:
        index[phrase[0]] = (*index.get(phrase[0], ()), phrase)
    return MappingProxyType(index)


def _holds_any(words: Words, index: PhraseIndex) -> bool:
    """True when one of the indexed phrases appears in `words` as a run of whole words (as `_holds` for each phrase,
    looking only at the phrases that start with a word of `words`)."""
    return any(words[start : start + len(phrase)] == phrase
               for start, word in enumerate(words) for phrase in index.get(word, ()))


@dataclass(frozen=True)
class Category:
    """One category as the taxonomy file defines it."""

    name: str
    description: str
    members: tuple[str, ...]
    includes: tuple[str, ...] = ()
    excludes: tuple[str, ...] = ()


@dataclass(frozen=True)
class Taxonomy:
    """Ingredient categories with their members, sub-categories, excludes and aliases.

    Raises (on construction):
        ConfigError: an include or alias names an unknown category, includes form a cycle,
            a category has neither members nor includes, or two names fold to the same words.
    """

    version: int
    entries: Mapping[str, Category]
    aliases: Mapping[str, str]
    _lookup: Mapping[Words, str] = field(init=False, repr=False, compare=False)
    _members: Mapping[str, tuple[Words, ...]] = field(init=False, repr=False, compare=False)
    _excludes: Mapping[str, tuple[Words, ...]] = field(init=False, repr=False, compare=False)
    _member_index: Mapping[str, PhraseIndex] = field(init=False, repr=False, compare=False)
    _exclude_index: Mapping[str, PhraseIndex] = field(init=False, repr=False, compare=False)
    _listed_in: Mapping[Words, tuple[str, ...]] = field(init=False, repr=False, compare=False)
    _holds_name: Callable[[Words, str], bool] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        _check_includes(self.entries)
        object.__setattr__(self, "_lookup", MappingProxyType(_build_lookup(self.entries, self.aliases)))
        object.__setattr__(self, "_members", _phrases(self.entries, "members"))
        object.__setattr__(self, "_excludes", _phrases(self.entries, "excludes"))
        object.__setattr__(self, "_member_index", _indexed(self._members))
        object.__setattr__(self, "_exclude_index", _indexed(self._excludes))
        object.__setattr__(self, "_listed_in", _categories_listing(self._members))
        # Whether a name's words belong to a category, remembered per (words, category): the shopping code asks the
        # same names of the same categories again and again.
        object.__setattr__(self, "_holds_name", lru_cache(maxsize=65536)(self._words_belong))

    def categories(self) -> list[str]:
        """Every category name, sorted."""
        return sorted(self.entries)

    def category(self, name: str) -> Category:
        """The category called `name` (or one of its aliases, in any plural).

        Raises:
            InvalidFilterError: no such category; the error lists the known ones.
        """
        return self.entries[self._require(name)]

    def resolve_category(self, word: str) -> str | None:
        """The category `word` names, through aliases and plurals ('greens' -> 'leafy greens'), or None."""
        return self._lookup.get(ingredient_words(word))

    def expand(self, category: str) -> tuple[str, ...]:
        """Every member term of `category` and of the categories it includes, sorted.

        Raises:
            InvalidFilterError: no such category.
        """
        terms: set[str] = set()
        pending = [self._require(category)]
        while pending:
            entry = self.entries[pending.pop()]
            terms.update(entry.members)
            pending.extend(entry.includes)
        return tuple(sorted(terms))

    def categories_of(self, ingredient_name: str) -> tuple[str, ...]:
        """Every category the ingredient name belongs to, sorted ('cod fillets' -> fish, seafood)."""
        words = ingredient_words(ingredient_name)
        return tuple(name for name in sorted(self.entries) if self._holds_name(words, name))

    def matches(self, ingredient_name: str, category: str) -> bool:
        """True when the ingredient name belongs to `category` (a name or alias).

        Raises:
            InvalidFilterError: no such category.
        """
        return self._holds_name(ingredient_words(ingredient_name), self._require(category))

    def excludes_from_member(self, ingredient_name: str, member: str) -> bool:
        """True when a category that lists `member` excludes the name: 'peanut butter' is not the 'butter' of
        dairy, 'coconut milk' not its 'milk'."""
        words, wanted = ingredient_words(ingredient_name), ingredient_words(member)
        return any(_holds_any(words, self._exclude_index[name]) for name in self._listed_in.get(wanted, ()))

    def _words_belong(self, words: Words, category: str) -> bool:
        """The words hold no exclude of `category` and a member of it or of a category it includes."""
        if _holds_any(words, self._exclude_index[category]):
            return False
        if _holds_any(words, self._member_index[category]):
            return True
        return any(self._holds_name(words, sub) for sub in self.entries[category].includes)

    def _require(self, category: str) -> str:
        found = self.resolve_category(category)
        if found is None:
            raise InvalidFilterError(
                f"Unknown ingredient category {category!r}. Known categories: {', '.join(self.categories())}.",
                field="category", value=category, valid=self.categories(),
            )
        return found


# -- building and checking ----------------------------------------------------------------------


def _phrases(entries: Mapping[str, Category], kind: str) -> Mapping[str, tuple[Words, ...]]:
    built: dict[str, tuple[Words, ...]] = {}
    for name, entry in entries.items():
        phrases = tuple(ingredient_words(term) for term in getattr(entry, kind))
        if not all(phrases):
            raise ConfigError(f"Taxonomy category {name!r} has a {kind} entry with no words.", field=name)
        built[name] = phrases
    return MappingProxyType(built)


def _indexed(phrases: Mapping[str, tuple[Words, ...]]) -> Mapping[str, PhraseIndex]:
    return MappingProxyType({name: _by_first_word(listed) for name, listed in phrases.items()})


def _categories_listing(members: Mapping[str, tuple[Words, ...]]) -> Mapping[Words, tuple[str, ...]]:
    """Member phrase -> the categories that list it, in the taxonomy's order."""
    listing: dict[Words, tuple[str, ...]] = {}
    for name, phrases in members.items():
        for phrase in dict.fromkeys(phrases):
            listing[phrase] = (*listing.get(phrase, ()), name)
    return MappingProxyType(listing)


def _build_lookup(entries: Mapping[str, Category], aliases: Mapping[str, str]) -> dict[Words, str]:
    """Folded category names and aliases -> category name; two names may not fold alike."""
    lookup: dict[Words, str] = {}
    named = [(name, name) for name in entries] + [(alias, target) for alias, target in aliases.items()]
    for word, target in named:
        if target not in entries:
            raise ConfigError(f"Taxonomy alias {word!r} points at unknown category {target!r}.", field=word)
        key = ingredient_words(word)
        if not key or key in lookup:
            raise ConfigError(f"Taxonomy name {word!r} is empty or clashes with another name.", field=word)
        lookup[key] = target
    return lookup


def _check_includes(entries: Mapping[str, Category]) -> None:
    for name, entry in entries.items():
        if not entry.members and not entry.includes:
            raise ConfigError(f"Taxonomy category {name!r} has neither members nor includes.", field=name)
        for sub in entry.includes:
            if sub not in entries:
                raise ConfigError(f"Taxonomy category {name!r} includes unknown category {sub!r}.", field=name)
        if _reaches(entries, name, name):
            raise ConfigError(f"Taxonomy category {name!r} includes itself.", field=name)


def _reaches(entries: Mapping[str, Category], start: str, target: str) -> bool:
    seen: set[str] = set()
    pending = list(entries[start].includes)
    while pending:
        current = pending.pop()
        if current == target:
            return True
        if current in seen or current not in entries:
            continue
        seen.add(current)
        pending.extend(entries[current].includes)
    return False


# -- loading ----------------------------------------------------------------------------------


def load_taxonomy(data: Mapping[str, Any] | None = None) -> Taxonomy:
    """A taxonomy from parsed JSON data, or from the packaged `taxonomy.json` when `data` is None.

    Raises:
        ConfigError: the data does not have the taxonomy's shape, or the file is missing.
    """
    if data is None:
        data = json.loads(taxonomy_path().read_text(encoding="utf-8"))
    if not isinstance(data, Mapping) or data.get("version") != 1:
        raise ConfigError("A taxonomy must be an object with version 1.", field="version")
    _reject_unknown_keys(data, _TOP_LEVEL_KEYS, "taxonomy")
    categories = _mapping(data.get("categories"), "categories")
    entries = {name: _parse_category(name, body) for name, body in categories.items()}
    aliases = {str(alias): str(target) for alias, target in _mapping(data.get("aliases", {}), "aliases").items()}
    return Taxonomy(1, MappingProxyType(entries), MappingProxyType(aliases))


@cache
def default_taxonomy() -> Taxonomy:
    """The packaged taxonomy, loaded once."""
    return load_taxonomy()


def taxonomy_path() -> Path:
    """The packaged taxonomy file: the wheel's copy, else the repository's `resources/` folder.

    Raises:
        ConfigError: neither exists.
    """
    for folder in (_PACKAGE / "contracts" / "resources", _PACKAGE.parent / "resources"):
        candidate = folder / TAXONOMY_FILE
        if candidate.is_file():
            return candidate
    raise ConfigError("alfred-mcp is missing resources/taxonomy.json; reinstall the package.", field="taxonomy")


def _parse_category(name: str, body: Any) -> Category:
    body = _mapping(body, f"category {name!r}")
    _reject_unknown_keys(body, _CATEGORY_KEYS, f"category {name!r}")
    return Category(
        name=name,
        description=str(body.get("description", "")),
        members=_strings(body.get("members", []), f"{name}.members"),
        includes=_strings(body.get("includes", []), f"{name}.includes"),
        excludes=_strings(body.get("excludes", []), f"{name}.excludes"),
    )


def _mapping(value: Any, where: str) -> Mapping[str, Any]:
    if not isinstance(value, Mapping):
        raise ConfigError(f"Taxonomy {where} must be an object.", field=where)
    return value


def _strings(value: Any, where: str) -> tuple[str, ...]:
    if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
        raise ConfigError(f"Taxonomy {where} must be a list of strings.", field=where)
    return tuple(value)


def _reject_unknown_keys(body: Mapping[str, Any], allowed: frozenset[str], where: str) -> None:
    unknown = sorted(set(body) - allowed)
    if unknown:
        raise ConfigError(
            f"Taxonomy {where} has unknown keys: {', '.join(unknown)}.", field=where, valid=sorted(allowed)
        )
