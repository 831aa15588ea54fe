"""The deterministic entity resolver of seed 000 §5.6: a user's words -> refs, with a confidence.

Candidates come in two tiers: active (the session's working set: recent, retained, pending drafts)
and background (rows of the kitchen that are relevant but not in view: recent, related, named by
the user's words). The resolver splits the text into mentions (runs of content words; explicit
refs; ordinals such as "the second one") and matches each against the candidates' labels, by
whole words with plurals folded, or by ingredient category ("the fish one" finds "Lemon Cod").

One active match resolves with high confidence; no active but one background match, medium;
several matches are candidates to ask about (low: from every kind of thing that has the name, within a
kind the closest tier), unless exactly one of them is the conversation's own (created, saved, planned
or imported in it): that one wins. A run made only of category words
("the fish one") is a filter, never a single-entity answer: its matches are candidates; words that name a kind
or a place ("dairy-free", "fridge": `KIND_WORDS`) mention nothing, and a free-from word inside a name never matches a
row made of that thing ("dairy-free yogurt" is not the Greek yogurt). Ordinals
("the first one"; "the first two", "the last three", "both", "all three": one mention per ref) count
in the last list the user was shown; "it" / "that one" is the single thing
of the previous turn. None of these, unresolved. Same inputs, same answer.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from alfred_mcp.kitchen.allergens import allergen_of
from alfred_mcp.kitchen.ingredient_match import free_from_marks
from alfred_mcp.kitchen.schema import HEALTH_TAGS, LOCATIONS, PARENT_CATEGORIES
from alfred_mcp.kitchen.taxonomy import Taxonomy, default_taxonomy, ingredient_words
from alfred_mcp.state.refs import parse_ref

Tier = Literal["active", "background"]
Confidence = Literal["high", "medium", "low"]
Resolution = Literal["exact", "fuzzy", "ambiguous", "unresolved"]

MAX_CANDIDATES = 8
_REF = re.compile(r"\b(?:gen_)?[a-z]+_[1-9][0-9]*\b")
STOP_WORDS = frozenset(
    "a an the this that these those it its them they one ones some any all both each every other another "
    "and or with without for of to in on at by from into my our your me us we i you he she his her "
    "please pls just only also then now again really maybe let lets let's go do make made use save saved "
    "delete remove add plan planned pick choose want like love take get show find see keep cook cooking "
    "recipe dish meal item thing stuff option idea variation version what which how about instead "
    "is are was were be been do does did have has had can could would should will shall not no yes "
    "ok okay sure thanks thank good great nice day days week tonight today tomorrow".split()
)
KIND_WORDS = frozenset(word for name in (*LOCATIONS, *HEALTH_TAGS, *PARENT_CATEGORIES) for word in ingredient_words(name))
"""Words that name a kind or a place ('dairy-free', 'fridge', 'produce'): they say what is wanted or where it is, never
which row. A run made only of them is no mention, and they end no name ('the salmon dairy-free' is the salmon)."""
_TYPE_WORDS = {"recipe": "recipe", "dish": "recipe", "meal": "meal", "plan": "meal", "task": "task", "todo": "task",
               "item": None}
_ORDINALS = {"first": 1, "1st": 1, "second": 2, "2nd": 2, "third": 3, "3rd": 3, "fourth": 4, "4th": 4,
             "fifth": 5, "5th": 5, "last": -1, "latter": -1, "former": 1}
_COUNTS = {"two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8}
"""Counts after 'the first', 'the last' or 'all' ('the first two', 'all three'); digits count as well."""
_SEPARATORS = frozenset({"and", "or", "but", "plus", "then", "also", "not", "no"})
_CUES = frozenset({"the", "that", "this", "those", "these", "my", "your", "our"})


@dataclass(frozen=True)
class Candidate:
    """An entity the user may be talking about."""

    ref: str
    entity_type: str
    label: str
    tier: Tier
    reason: str = ""
    turn: int = 0
    """The turn it was last referred to (active) or 0 (background)."""
    own: bool = False
    """Created, saved, planned or imported in this conversation: a name prefers it to others."""

    def to_dict(self) -> dict[str, Any]:
        return {"ref": self.ref, "label": self.label, "tier": self.tier, "reason": self.reason}


CANDIDATES_SHOWN = 3
"""Candidates of an ambiguous mention shown with their labels in a role's context; the rest by ref only."""


@dataclass(frozen=True)
class Mention:
    """What one phrase of the text refers to."""

    text: str
    resolution: Resolution
    confidence: Confidence
    ref: str | None = None
    candidates: tuple[Candidate, ...] = field(default=())

    def to_dict(self) -> dict[str, Any]:
        return {"text": self.text, "ref": self.ref, "confidence": self.confidence, "resolution": self.resolution,
                "candidates": [c.to_dict() for c in self.candidates]}

    def line(self) -> str:
        """One line for a role's context."""
        if self.ref is not None:
            found = next((c for c in self.candidates if c.ref == self.ref), None)
            label = f" {found.label}" if found else ""
            return f'- "{self.text}" → {self.ref}{label} ({self.confidence}, {self.resolution})'
        if len(self.candidates) > CANDIDATES_SHOWN:
            others = [c.ref for c in self.candidates[CANDIDATES_SHOWN:]]
            rest = ", ".join(others[:CANDIDATES_SHOWN]) + (f" and {len(others) - CANDIDATES_SHOWN} more" if len(others) > CANDIDATES_SHOWN else "")
            listed = "; ".join(f"{c.ref} {c.label} ({c.tier})" for c in self.candidates[:CANDIDATES_SHOWN])
            return (f'- "{self.text}" → {len(self.candidates)} candidates, too many to pick from: {listed}; also {rest} '
                    "(ambiguous: pick by the conversation or ask which one)")
        if self.candidates:
            listed = "; ".join(f"{c.ref} {c.label} ({c.tier})" for c in self.candidates)
            count = f"{len(self.candidates)} candidate{'s' if len(self.candidates) > 1 else ''}"
            return f'- "{self.text}" → {count}: {listed} (low: pick by the conversation or ask)'
        return f'- "{self.text}" → nothing in the session or the kitchen matches'


def resolve(
    text: str, candidates: Sequence[Candidate], *, entity_type: str | None = None, taxonomy: Taxonomy | None = None,
    shown: Sequence[str] = (), previous: Sequence[str] = (),
) -> list[Mention]:
    """The mentions of `text`: explicit refs, ordinals, pronouns and word runs that match candidates.

    `shown`: the refs of the last list the user was shown, in its order ("the second one" counts in it;
    a ref of it missing from the candidates, e.g. deleted, leaves its position unresolved).
    `previous`: the refs the previous turn was about ("that one" / "it" is the single one of them).
    A text that mentions nothing resolvable gets one unresolved mention of itself.
    """
    taxonomy = taxonomy or default_taxonomy()
    pool = [c for c in candidates if entity_type is None or c.entity_type == entity_type]
    tokens = _tokens(text)
    hint = entity_type or next((_TYPE_WORDS[t] for t in tokens if _TYPE_WORDS.get(t)), None)
    typed = [c for c in pool if hint is None or c.entity_type == hint] or pool
    mentions = _explicit_refs(text, pool) + _ordinals(tokens, pool, shown) + _pronouns(text, pool, previous)
    for words, cued in _runs(tokens):
        run = _without_trailing_kind_words(words)
        mention = _match_run(run, typed, taxonomy, named_only=not cued) if run else None
        if mention is not None:
            mentions.append(mention)
    if not mentions:
        mentions.append(Mention(text=text.strip()[:80], resolution="unresolved", confidence="low"))
    return mentions


_MADE_WITHOUT = {"vegan": ("dairy", "egg", "fish", "shellfish", "meat", "poultry")}
"""What a free-from mark other than '<thing>-free' says its item is made without."""


def _contradicts(run: Sequence[str], label: str, taxonomy: Taxonomy) -> bool:
    """Whether a free-from word of the mention ('dairy-free', 'gluten-free', 'vegan') names what the row is made of: 'the
    dairy-free yogurt' is never the Greek yogurt, whatever words they share; a row saying it is free of it too stays."""
    missing = free_from_marks(" ".join(run)) - free_from_marks(label)
    things = [thing for mark in missing for thing in _MADE_WITHOUT.get(mark, (mark.removesuffix("-free"),))]
    return bool(things) and allergen_of(label, things, taxonomy) is not None


def _without_trailing_kind_words(run: tuple[str, ...]) -> tuple[str, ...]:
    """The run without the kind and place words that end it ('salmon dairy free' -> 'salmon'; 'fridge' -> nothing)."""
    end = len(run)
    while end and run[end - 1] in KIND_WORDS:
        end -= 1
    return run[:end]


def _tokens(text: str) -> list[str]:
    cleaned = _REF.sub(" ", text.lower())
    return list(ingredient_words(cleaned))


def _runs(tokens: Sequence[str]) -> list[tuple[tuple[str, ...], bool]]:
    """Maximal runs of content words that refer to something: a determiner shortly before ("the
    salmon one", "that curry", "the chicken and pasta ones") or "one(s)" right after. Words that
    only describe what is wanted ("I want fish recipes") are not references, unless they spell a
    name ("Chicken Fajitas"): each run comes with whether a cue marks it."""
    runs: list[tuple[tuple[str, ...], bool]] = []
    current: list[str] = []
    start = 0
    for index, token in enumerate([*tokens, "."]):
        if token in STOP_WORDS or token in _SEPARATORS or token in _ORDINALS or token in _COUNTS or token.isdigit() or token == ".":
            if current:
                runs.append((tuple(current), _refers(tokens, start, index)))
            current = []
        else:
            if not current:
                start = index
            current.append(token)
    return runs


def _refers(tokens: Sequence[str], start: int, end: int) -> bool:
    before = [t for t in tokens[max(start - 4, 0):start] if t not in _SEPARATORS]
    return any(t in _CUES for t in before[-3:]) or (end < len(tokens) and tokens[end] in ("one", "ones"))


def _explicit_refs(text: str, pool: Sequence[Candidate]) -> list[Mention]:
    by_ref = {c.ref: c for c in pool}
    found = []
    for ref in dict.fromkeys(_REF.findall(text.lower())):
        if parse_ref(ref) is None:
            continue
        candidate = by_ref.get(ref)
        found.append(Mention(text=ref, resolution="exact", confidence="high" if candidate else "low", ref=ref,
                             candidates=(candidate,) if candidate else ()))
    return found


def _ordinals(tokens: Sequence[str], pool: Sequence[Candidate], shown: Sequence[str] = ()) -> list[Mention]:
    """'the second one': the n-th entity of the last list shown, in its order (else of the latest group the
    session touched, in ref order); 'the first two', 'the last three': that many from its start or end; 'both' and
    'all three': the whole list when it has that many. Only a noun right after the words narrows the list ('the
    first recipe'; 'plan the first one' still counts in a list of recipes). A position whose ref is no longer a
    candidate is unresolved, never shifted onto the next row."""
    mentions = []
    for at, word in enumerate(tokens):
        count = _count(tokens, at + 1)
        if word not in _ORDINALS and word != "both" and not (word == "all" and count):
            continue
        after = at + (2 if count else 1)
        noun = _TYPE_WORDS.get(tokens[after]) if after < len(tokens) else None
        group = _ordered_group([c for c in pool if noun is None or c.entity_type == noun], shown)
        text = " ".join(["the" if word in _ORDINALS else "", word, *([tokens[at + 1]] if count else [])]).strip()
        positions = _positions(word, count, len(group))
        if not positions or not all(0 <= p < len(group) for p in positions):
            continue
        for position in positions:
            chosen = group[position]
            if chosen is None:
                mentions.append(Mention(text=text, resolution="unresolved", confidence="low"))
            else:
                mentions.append(Mention(text=text, resolution="fuzzy", confidence="medium", ref=chosen.ref, candidates=(chosen,)))
    return mentions


def _positions(word: str, count: int | None, size: int) -> list[int]:
    """Where in a list of `size` 'the second', 'the first two', 'the last three', 'both' or 'all three' point."""
    if word in ("both", "all"):
        wanted = count or 2
        return list(range(wanted)) if size == wanted else []
    if count is None:
        index = _ORDINALS[word]
        return [index - 1 if index > 0 else size + index]
    if word == "first":
        return list(range(count))
    if word == "last":
        return list(range(size - count, size))
    return []


def _count(tokens: Sequence[str], at: int) -> int | None:
    """The count word or digit at `at` ('two', '3'), if any."""
    if at >= len(tokens):
        return None
    token = tokens[at]
    return _COUNTS.get(token) or (int(token) if token.isdigit() and 1 < int(token) <= MAX_CANDIDATES else None)


def _ordered_group(pool: Sequence[Candidate], shown: Sequence[str]) -> list[Candidate | None]:
    """The list an ordinal counts in: the shown refs of the pool's types (None where one is gone), else the
    latest group of active candidates in ref order."""
    by_ref = {c.ref: c for c in pool}
    types = {c.entity_type for c in pool}
    group: list[Candidate | None] = [by_ref.get(ref) for ref in dict.fromkeys(shown) if _type_of(ref) in types]
    active = [c for c in pool if c.tier == "active"]
    if not group and active:
        latest = max(c.turn for c in active)
        group = [*sorted((c for c in active if c.turn == latest), key=_candidate_key)]
    return group


_PRONOUN = re.compile(
    r"\b(?:it|(?:that|this)\s+(?:one|recipe|dish|meal|plan|item|task)|(?:that|this)(?=\s*(?:[.!?,;]|$)))\b", re.IGNORECASE
)


def _pronouns(text: str, pool: Sequence[Candidate], previous: Sequence[str]) -> list[Mention]:
    """'it', 'that one', 'this recipe', 'save that': the single thing of the previous turn (several: candidates)."""
    found = _PRONOUN.search(text.replace("\u2019", "'"))
    if found is None:
        return []
    phrase = " ".join(found.group(0).lower().split())
    noun = _TYPE_WORDS.get(phrase.split()[-1])
    by_ref = {c.ref: c for c in pool if noun is None or c.entity_type == noun}
    things = [by_ref[ref] for ref in dict.fromkeys(previous) if ref in by_ref]
    if len(things) == 1:
        return [Mention(phrase, "fuzzy", "high", things[0].ref, (things[0],))]
    if things:
        return [Mention(phrase, "ambiguous", "low", None, tuple(things[:MAX_CANDIDATES]))]
    return []


def _match_run(run: tuple[str, ...], pool: Sequence[Candidate], taxonomy: Taxonomy, *, named_only: bool = False) -> Mention | None:
    """The run's best matches; `named_only`: only a run of 2+ words that a label holds whole counts.

    Words of a label beat category matches ("the fish tacos" is Fish Tacos before Cod Tacos). A run of
    category words only ("the fish one") is a filter: its matches are candidates, never one answer.
    """
    scored = [(score, c) for c in pool if (score := _score(run, c.label, taxonomy))[0] > 0 and not _contradicts(run, c.label, taxonomy)]
    if not scored:
        return None
    best = max(score for score, _ in scored)
    if named_only and (len(run) < 2 or best[0] < len(run)):
        return None
    categorical = all(taxonomy.resolve_category(token) is not None for token in run)
    matches = [c for score, c in scored if (score[0] == best[0] if categorical else score == best)]
    text = " ".join(run)
    active = [c for c in matches if c.tier == "active"]
    background = [c for c in matches if c.tier == "background"]
    own = [c for c in matches if c.own]
    exact = best[1] == len(run) and any(_content(c.label) == set(run) for c in matches)
    if not categorical:
        if len(own) == 1:
            return Mention(text, "exact" if exact else "fuzzy", "high", own[0].ref, (own[0],))
        if not own and len(active) == 1:
            return Mention(text, "exact" if exact else "fuzzy", "high", active[0].ref, (active[0],))
        if not own and not active and len(background) == 1:
            return Mention(text, "fuzzy", "medium", background[0].ref, (background[0],))
    ordered = sorted(_closest_per_kind(matches), key=lambda c: (not c.own, c.tier != "active", -c.turn, _ref_key(c.ref)))
    return Mention(text, "ambiguous", "low", None, tuple(ordered[:MAX_CANDIDATES]))


def match_name(name: str, candidates: Sequence[Candidate]) -> tuple[Resolution, tuple[Candidate, ...]]:
    """The candidates a name given where a ref is asked means: those whose label is the name (case and spacing aside:
    'exact'), else those whose label holds every word of it that names something, plurals folded ('pancakes' is Blueberry
    Oat Pancakes: 'fuzzy'), else none ('unresolved'). Several are for the caller to list, never to pick from."""
    wanted = " ".join(name.casefold().split())
    exact = tuple(c for c in candidates if " ".join(c.label.casefold().split()) == wanted)
    if exact:
        return "exact", exact
    words = name_words(name)
    held = tuple(c for c in candidates if words and words <= set(ingredient_words(c.label)))
    return ("fuzzy", held) if held else ("unresolved", ())


def name_words(name: str) -> set[str]:
    """The words of a name that name something ('the pancakes recipe' -> {'pancake'}), plurals folded."""
    return _content(name)


def _closest_per_kind(matches: Sequence[Candidate]) -> list[Candidate]:
    """The candidates from every kind of thing that has the name (the pantry's eggs and the shopping list's); within
    a kind, the conversation's own, else those in view, else the kitchen's."""
    closest: list[Candidate] = []
    for kind in dict.fromkeys(c.entity_type for c in matches):
        same = [c for c in matches if c.entity_type == kind]
        closest += [c for c in same if c.own] or [c for c in same if c.tier == "active"] or same
    return closest


def _score(run: tuple[str, ...], label: str, taxonomy: Taxonomy) -> tuple[int, int]:
    """How many words of the run the label holds (a category word counts when the label falls under it),
    and how many of them it holds as words."""
    words = ingredient_words(label)
    matched = literal = 0
    for token in run:
        if token in words:
            matched += 1
            literal += 1
            continue
        category = taxonomy.resolve_category(token)
        if category is not None and taxonomy.matches(label, category):
            matched += 1
    return matched, literal


def _content(label: str) -> set[str]:
    return {w for w in ingredient_words(label) if w not in STOP_WORDS}


def _candidate_key(candidate: Candidate) -> tuple[str, bool, int]:
    return _ref_key(candidate.ref)


def _type_of(ref: str) -> str | None:
    parsed = parse_ref(ref)
    return parsed.entity_type if parsed else None


def _ref_key(ref: str) -> tuple[str, bool, int]:
    parsed = parse_ref(ref)
    return (parsed.entity_type, parsed.generated, parsed.number) if parsed else (ref, False, 0)
