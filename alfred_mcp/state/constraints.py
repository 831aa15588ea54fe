"""The session's constraint store: permanent constraints, the active goal, the occasion, and their merge.

Understand emits a `ConstraintSnapshot` each turn; `merge_constraints` folds it into the
session's `SessionConstraints` with no model in the loop (seed 000, §5.7 "B+C hybrid").
`compile_constraints` flattens the result into the view Think and Act read. Everything here is
a pure function of its arguments: same inputs, same output.

Each constraint has a scope and a lifetime. Scope: `about` a ref ("make it dairy-free") applies to
that one thing only and never filters anything else; without it, the whole goal. Lifetime: `goal`
ends with the goal (a reset, a new area, staleness); `occasion` (the guests' allergies, the servings,
the date) lasts until the occasion is done or dropped, whatever happens to goals. A new goal area
carries the old goal's exclusions over, and `replaced` says what changed, for Think to read.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import date
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, StrictFloat, StrictInt, StrictStr, ValidationInfo, field_validator
from pydantic.json_schema import SkipJsonSchema

from alfred_mcp.errors import ConfigError
from alfred_mcp.kitchen.allergens import allergen_of
from alfred_mcp.kitchen.schema import MEAL_TYPES
from alfred_mcp.state.folding import clip
from alfred_mcp.state.refs import parse_ref

ConstraintType = Literal[
    "ingredient_required",
    "ingredient_excluded",
    "equipment",
    "cuisine",
    "difficulty",
    "time_limit",
    "servings",
    "flavor",
    "days",
    "meal_type",
    "allergy",
    "keep",
]
Lifetime = Literal["goal", "occasion"]
Subdomain = Literal["recipes", "inventory", "shopping", "meal_plans", "tasks", "preferences", "catalog", "history"]
ResetReason = Literal["reset_all", "trigger_phrase", "reset_subdomain", "new_subdomain", "stale"]
ConstraintValue = StrictStr | StrictInt | StrictFloat | list[StrictStr]

NUMERIC_TYPES: frozenset[str] = frozenset({"time_limit", "servings"})
SINGLE_VALUED_TYPES: frozenset[str] = frozenset({"time_limit", "servings", "difficulty", "days"})
"""A newer value for the same (type, field) replaces the older one instead of accumulating."""

DEFAULT_TRIGGER_PHRASES: tuple[str, ...] = (
    "never mind",
    "nevermind",
    "start over",
    "start fresh",
    "forget that",
    "forget those",
    "scratch that",
)
_NEGATION = re.compile(r"(?:\bdon'?t|\bdo not|\bdid not|\bdidn'?t|\bnever|\bnot)\s*$")
_MAX_TEXT = 200

_TYPE_GUIDE = (
    "time_limit: minutes; servings: people; days: a count, names ('monday'), "
    f"dates (each a day) or 'DATE to DATE'; meal_type: {', '.join(MEAL_TYPES)}; allergy: a guest's; keep: what stays"
)
EXCLUSION_TYPES: frozenset[str] = frozenset({"ingredient_excluded", "allergy"})
"""Exclusions stand: a new goal area carries them over instead of dropping them."""
CARRIED_TYPES: frozenset[str] = EXCLUSION_TYPES | {"keep"}
"""What a new goal area carries over: the exclusions, and what the user said stays ('leave the chicken')."""
_WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
DAY_WORDS: frozenset[str] = frozenset({*_WEEKDAYS, "today", "tomorrow", "weekend", "weekdays", "weeknights"})


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid")


def normalize_text(text: str) -> str:
    """Trim, collapse inner whitespace and lower-case: 'Air  Fryer ' -> 'air fryer'."""
    return " ".join(text.split()).lower()


def _normalize_texts(values: Iterable[str]) -> list[str]:
    """Normalized, de-duplicated and sorted, with blanks dropped."""
    return sorted({normalize_text(v) for v in values} - {""})


class Constraint(_Model):
    """e.g. ingredient_required protein=cod."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    type: ConstraintType = Field(description=_TYPE_GUIDE)
    field: str = Field(
        min_length=1, max_length=64, description="'protein', 'side'."
    )
    value: ConstraintValue = Field(
        description="Text, a list, or a number."
    )
    confidence: float = Field(default=1.0, ge=0.0, le=1.0, description="0 to 1.")
    about: str | None = Field(
        default=None, max_length=64,
        description="Only this ref ('make it dairy-free').",
    )
    lifetime: Lifetime = Field(
        default="goal",
        description="occasion: guests' allergies etc., until done.",
    )
    source_turn: SkipJsonSchema[int | None] = Field(default=None, description="The turn it was stated in (set by the server).")

    @field_validator("field")
    @classmethod
    def _normalize_field(cls, field: str) -> str:
        normalized = re.sub(r"[\s\-]+", "_", field.strip().lower())
        if not normalized:
            raise ValueError("field must name what the constraint is about")
        return normalized

    @field_validator("value", mode="before")
    @classmethod
    def _days_range(cls, value: Any, info: ValidationInfo) -> Any:
        """A range of days given as {"from": DATE, "to": DATE} is the text 'DATE to DATE' (a list is separate days)."""
        if info.data.get("type") == "days" and isinstance(value, Mapping):
            first, last = value.get("from", value.get("start")), value.get("to", value.get("end"))
            if not (isinstance(first, str) and isinstance(last, str)) or set(value) - {"from", "to", "start", "end"}:
                raise ValueError('a range of days is {"from": "YYYY-MM-DD", "to": "YYYY-MM-DD"}')
            return f"{first} to {last}"
        return value

    @field_validator("value")
    @classmethod
    def _check_value(cls, value: ConstraintValue, info: ValidationInfo) -> ConstraintValue:
        kind = info.data.get("type")
        if kind in NUMERIC_TYPES:
            return _number_value(kind, value)
        if kind == "days" and isinstance(value, (int, float)):
            return _number_value("days", int(value) if float(value).is_integer() else value)
        texts = _text_value(value)
        if kind == "meal_type":
            _check_words(texts, frozenset(MEAL_TYPES), "meal_type takes breakfast, lunch, dinner, snack or other")
        if kind == "days":
            return _days_value(texts)
        return texts

    @field_validator("about")
    @classmethod
    def _check_about(cls, about: str | None) -> str | None:
        if about is not None and parse_ref(about.strip()) is None:
            raise ValueError(f"about takes a ref such as recipe_3 or gen_recipe_1, got {about!r}")
        return about.strip() if about is not None else None


def _check_words(texts: str | list[str], allowed: frozenset[str], hint: str) -> None:
    for text in [texts] if isinstance(texts, str) else texts:
        if text not in allowed:
            raise ValueError(f"{hint}, got {text!r}")


def _days_value(texts: str | list[str]) -> str | list[str]:
    """Day words, real dates (a list holds separate days) and ranges, a range written 'DATE to DATE' in order."""
    days = [_day_value(text) for text in ([texts] if isinstance(texts, str) else texts)]
    return days[0] if isinstance(texts, str) else sorted(set(days))


_DAYS_HINT = ("days takes a number of days, weekday names, today/tomorrow/weekend, YYYY-MM-DD dates (a list is that many "
              "separate days) or a range 'YYYY-MM-DD to YYYY-MM-DD' (or {\"from\": ..., \"to\": ...})")
_DAY_RANGE = re.compile(r"(\d{4}-\d{2}-\d{2})\s*(?:to|through|until|\.\.|-|–|—)\s*(\d{4}-\d{2}-\d{2})")


def _day_value(text: str) -> str:
    if text in DAY_WORDS:
        return text
    span = _DAY_RANGE.fullmatch(text)
    try:
        if span is None:
            if re.fullmatch(r"\d{4}-\d{2}-\d{2}", text):
                return date.fromisoformat(text).isoformat()
        else:
            first, last = sorted(date.fromisoformat(day) for day in span.groups())
            return first.isoformat() if first == last else f"{first.isoformat()} to {last.isoformat()}"
    except ValueError:
        raise ValueError(f"{_DAYS_HINT}; {text!r} is not a date") from None
    raise ValueError(f"{_DAYS_HINT}, got {text!r}")


def _number_value(kind: str, value: ConstraintValue) -> int | float:
    if isinstance(value, (str, list)) or value <= 0:
        raise ValueError(f"{kind} needs a positive number, e.g. 30")
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    if kind in ("servings", "days") and not isinstance(value, int):
        raise ValueError(f"{kind} needs a whole number")
    return value


def _text_value(value: ConstraintValue) -> str | list[str]:
    if not isinstance(value, (str, list)):
        raise ValueError("this constraint type needs text, not a number")
    texts = _normalize_texts([value] if isinstance(value, str) else value)
    if not texts:
        raise ValueError("value must not be empty")
    if any(len(text) > _MAX_TEXT for text in texts):
        raise ValueError(f"each value must be at most {_MAX_TEXT} characters")
    return texts[0] if len(texts) == 1 else texts


def constraint_key(constraint: Constraint) -> tuple[str, str, str | None]:
    """What an override replaces: the (type, field) pair, within its scope (a ref, or None for the goal)."""
    return (constraint.type, constraint.field, constraint.about)


def constraint_values(constraint: Constraint) -> list[str]:
    """A text constraint's values as a list (numbers give their text form)."""
    value = constraint.value
    return list(value) if isinstance(value, list) else [str(value)]


class ActiveGoal(_Model):
    """What the user is working towards now, with the constraints gathered for it."""

    description: str = Field(description="The goal in a short phrase, e.g. '3 fish recipes for the air fryer'.")
    subdomain: Subdomain | None = Field(default=None, description="The kitchen area the goal is about.")
    started_turn: int = Field(description="The turn the goal began.")
    constraints: list[Constraint] = Field(default_factory=list, description="The goal's constraints, oldest first.")


class Occasion(_Model):
    """An event the user is cooking for (a dinner party, a picnic): its constraints outlive goals."""

    description: str = Field(description="The occasion in a short phrase, e.g. 'Saturday dinner, 6 guests'.")
    started_turn: int = Field(description="The turn it was first stated.")
    constraints: list[Constraint] = Field(default_factory=list, description="Its constraints (guests' allergies, servings, date), oldest first.")


class GoalChange(_Model):
    """What a reset or a new goal area did to the previous goal this turn, for Think to read."""

    turn: int
    reason: ResetReason
    previous: str = Field(description="The previous goal's description.")
    dropped: list[Constraint] = Field(default_factory=list, description="The previous goal's constraints that ended with it.")
    carried: list[Constraint] = Field(default_factory=list, description="Exclusions carried into the new goal.")


class Dropped(_Model):
    """The constraints a turn dropped by name (`ConstraintSnapshot.drop`), the rest of the goal kept."""

    turn: int
    constraints: list[Constraint] = Field(default_factory=list)


class PermanentConstraints(_Model):
    """Standing facts from the user's preferences; a turn's snapshot can never change them."""

    allergies: list[str] = Field(default_factory=list, description="Ingredients that must never be used.")
    dietary_restrictions: list[str] = Field(default_factory=list, description="e.g. vegetarian, halal.")
    equipment: list[str] = Field(default_factory=list, description="Equipment the kitchen has.")
    dislikes: list[str] = Field(default_factory=list, description="Ingredients the user prefers to avoid.")

    @field_validator("allergies", "dietary_restrictions", "equipment", "dislikes")
    @classmethod
    def _normalize(cls, values: list[str]) -> list[str]:
        return _normalize_texts(values)


def permanent_from_preferences(row: Mapping[str, Any]) -> PermanentConstraints:
    """The permanent constraints held in a `preferences` row (missing columns count as empty)."""
    return PermanentConstraints(
        allergies=_text_list(row.get("allergies")),
        dietary_restrictions=_text_list(row.get("dietary_restrictions")),
        equipment=_text_list(row.get("available_equipment")),
        dislikes=_text_list(row.get("disliked_ingredients")),
    )


def _text_list(value: Any) -> list[str]:
    if value is None:
        return []
    if isinstance(value, str):
        return [value]
    return [str(item) for item in value]


class ConstraintSnapshot(_Model):
    """What this turn's message states."""

    new_constraints: list[Constraint] = Field(
        default_factory=list, description="Added this turn."
    )
    overrides: list[Constraint] = Field(
        default_factory=list,
        description="Corrections: replace the same type, field and about.",
    )
    drop: list[str] = Field(
        default_factory=list, max_length=50, description="Constraints the user drops, as shown ('gluten')."
    )
    reset_all: bool = Field(default=False, description="Drop the whole goal ('never mind').")
    reset_subdomain: Subdomain | None = Field(
        default=None, description="Drop a goal of this area."
    )
    goal_update: str | None = Field(
        default=None, max_length=_MAX_TEXT, description="The goal in a short phrase, if stated."
    )
    goal_subdomain: Subdomain | None = Field(
        default=None, description="A new area starts a new goal."
    )
    source_phrases: list[str] = Field(
        default_factory=list, description="The user's words."
    )
    occasion_update: str | None = Field(
        default=None, max_length=_MAX_TEXT,
        description="e.g. 'Saturday dinner, 6 guests'.",
    )
    occasion_done: bool = Field(
        default=False, description="It is over or dropped."
    )


class SessionConstraints(_Model):
    """The canonical constraint store of one session, persisted between turns."""

    permanent: PermanentConstraints = Field(default_factory=PermanentConstraints)
    active_goal: ActiveGoal | None = None
    last_touched_turn: int = Field(default=0, description="The last turn that added to the goal or referred to its entities.")
    occasion: Occasion | None = Field(default=None, description="The occasion in force, if any.")
    replaced: GoalChange | None = Field(default=None, description="What the latest merge did to the previous goal, if it ended one.")
    dropped: Dropped | None = Field(default=None, description="The constraints the latest merge dropped by name, if any.")


class RejectedConstraint(_Model):
    """A snapshot constraint the merge refused, and why."""

    constraint: Constraint
    allergen: str = Field(description="The allergy it conflicts with.")
    reason: str


class MergeResult(_Model):
    """The merged store, the constraints refused, and what (if anything) reset the goal."""

    constraints: SessionConstraints
    rejected: list[RejectedConstraint] = Field(default_factory=list)
    reset_reason: ResetReason | None = None


@dataclass(frozen=True)
class ResetConfig:
    """When the active goal is dropped without an explicit reset; `stale_after_turns=None` disables staleness."""

    stale_after_turns: int | None = 3
    trigger_phrases: tuple[str, ...] = DEFAULT_TRIGGER_PHRASES

    def __post_init__(self) -> None:
        if self.stale_after_turns is not None and self.stale_after_turns < 0:
            raise ConfigError("stale_after_turns must be 0 or more, or None to disable.", value=self.stale_after_turns)
        if any(not phrase.strip() for phrase in self.trigger_phrases):
            raise ConfigError("Reset trigger phrases must not be blank.", field="trigger_phrases")


DEFAULT_RESET_CONFIG = ResetConfig()


def find_trigger_phrase(message: str, phrases: Sequence[str]) -> str | None:
    """The first reset phrase said in `message` (whole words, any case), ignoring "don't forget that"."""
    text = message.replace("\u2019", "'")
    for phrase in phrases:
        pattern = r"\b" + r"\s+".join(re.escape(word) for word in phrase.split()) + r"\b"
        for match in re.finditer(pattern, text, flags=re.IGNORECASE):
            if not _NEGATION.search(text[: match.start()].lower()):
                return phrase
    return None


def merge_constraints(
    session: SessionConstraints,
    snapshot: ConstraintSnapshot,
    *,
    turn: int,
    config: ResetConfig = DEFAULT_RESET_CONFIG,
    user_message: str | None = None,
    entities_referenced: bool = False,
) -> MergeResult:
    """Fold one turn's snapshot into the session's constraints.

    Order: (1) a reset (see `find_reset_reason`) ends the active goal; a new goal area carries its
    exclusions (goal-wide `ingredient_excluded` and `allergy`) into the new goal, and `replaced`
    records what ended and what was carried; (2) constraints that require an allergen of the user
    are rejected (one of a guest's is blocked by `compile_constraints` while the guest's allergy holds); (3) `occasion_done` ends the occasion; constraints of lifetime occasion
    go to the occasion, the others to the goal; (4) overrides replace the constraints with the same
    (type, field, about), after the constraints `drop` names are dropped (`drop_matches`); (5) new constraints are added next to their group unless one with the same
    value exists (for single-valued types a different value replaces the old one); (6) the goal text
    and subdomain are updated. A goal (an occasion) is created only when the snapshot contributes to
    it. Permanent constraints are never changed. `entities_referenced` (the user referred to session
    entities) keeps the goal from going stale. Merging the same snapshot twice equals merging it once.
    """
    reason = find_reset_reason(
        session, snapshot, turn=turn, config=config, user_message=user_message, entities_referenced=entities_referenced
    )
    occasion = None if snapshot.occasion_done else session.occasion
    kept, change = _after_reset(session, reason, turn=turn)
    overrides, refused_overrides = screen_allergens(snapshot.overrides, session.permanent, turn=turn)
    additions, refused_additions = screen_allergens(snapshot.new_constraints, session.permanent, turn=turn)
    kept, occasion, dropped = _drop_named(kept, occasion, snapshot.drop, session.dropped, turn=turn)
    goal = _apply_snapshot(kept, snapshot, _lived(overrides, "goal"), _lived(additions, "goal"), turn=turn)
    occasion = _apply_occasion(occasion, snapshot, _lived(overrides, "occasion"), _lived(additions, "occasion"), turn=turn)
    contributed = bool(overrides or additions or snapshot.goal_update or snapshot.goal_subdomain)
    touched = goal is not None and (contributed or entities_referenced)
    if change is None and session.replaced is not None and session.replaced.turn == turn:
        change = session.replaced  # merged again in the same turn: the change it made still stands
    merged = session.model_copy(update={
        "active_goal": goal, "occasion": occasion, "replaced": change, "dropped": dropped,
        "last_touched_turn": turn if touched else session.last_touched_turn,
    })
    return MergeResult(constraints=merged, rejected=refused_overrides + refused_additions, reset_reason=reason)


def _after_reset(session: SessionConstraints, reason: ResetReason | None, *, turn: int) -> tuple[ActiveGoal | None, GoalChange | None]:
    """The goal left after a reset (a new area keeps the exclusions), and what the reset changed.

    A goal this very turn made (the merge runs again, or a client that never moves the turn on) keeps
    what this turn carried into it, and only what it carries adds to this turn's change: merging the
    same snapshot again changes nothing."""
    goal = session.active_goal
    if reason is None or goal is None:
        return goal, None
    earlier = session.replaced if session.replaced is not None and session.replaced.turn == turn else None
    dropped_by_user = reason in ("reset_all", "trigger_phrase")  # 'never mind' ends the goal whole, whatever came before
    carried = [] if dropped_by_user else [c for c in goal.constraints if _outlives(c, reason) or (earlier is not None and c in earlier.carried)]
    kept = ActiveGoal(description=goal_label(carried), started_turn=turn, constraints=carried) if carried else None
    if goal.started_turn != turn:
        dropped = [c for c in goal.constraints if c not in carried]
        return kept, GoalChange(turn=turn, reason=reason, previous=goal.description, dropped=dropped, carried=carried)
    if earlier is not None:
        return kept, earlier.model_copy(update={"carried": [*earlier.carried, *(c for c in carried if c not in earlier.carried)]})
    return kept, GoalChange(turn=turn, reason=reason, previous=goal.description, carried=carried) if carried else None


def _outlives(constraint: Constraint, reason: ResetReason) -> bool:
    """Whether a constraint outlives a goal that went stale or gave way to a new area: one about a ref lives as long as
    that thing ('make it dairy-free', 'oat milk instead of milk'); a new area also carries the exclusions and what stays.
    A goal the user dropped (a reset, its area reset) ends whole."""
    if reason == "stale":
        return constraint.about is not None
    return reason == "new_subdomain" and (constraint.about is not None or constraint.type in CARRIED_TYPES)


def drop_matches(constraint: Constraint, name: str) -> bool:
    """Whether `name` names `constraint` as a context shows it: a value ('gluten'), the field, the phrase ('exclude
    gluten') or the key ('goal:gluten'), any case or plural; one about a ref also as 'recipe_1: exclude gluten'."""
    said = fold_words(name)
    phrase = describe_constraint(constraint)
    names = [*constraint_values(constraint), constraint.field, phrase, f"goal:{constraint.field}"]
    if constraint.about is not None:
        names.append(f"{constraint.about}: {phrase}")
    return bool(said) and any(fold_words(text) == said for text in names)


def held_constraints(session: SessionConstraints) -> list[Constraint]:
    """The occasion's constraints, then the goal's: what a turn may drop by name."""
    return [*(session.occasion.constraints if session.occasion else []), *(session.active_goal.constraints if session.active_goal else [])]


def _drop_named(
    goal: ActiveGoal | None, occasion: Occasion | None, names: Sequence[str], earlier: Dropped | None, *, turn: int,
) -> tuple[ActiveGoal | None, Occasion | None, Dropped | None]:
    """The goal and the occasion without the constraints `names` name, and what this turn dropped (with what an earlier
    merge of the same turn dropped: merging again changes nothing)."""
    before = earlier.constraints if earlier is not None and earlier.turn == turn else []
    if not names:
        return goal, occasion, Dropped(turn=turn, constraints=before) if before else None
    named = [c for c in [*(occasion.constraints if occasion else []), *(goal.constraints if goal else [])]
             if any(drop_matches(c, name) for name in names)]
    if goal is not None:
        kept = [c for c in goal.constraints if c not in named]
        goal = goal.model_copy(update={"constraints": kept, "description": _relabelled(goal, kept)})
    if occasion is not None:
        occasion = occasion.model_copy(update={"constraints": [c for c in occasion.constraints if c not in named]})
    dropped = [*before, *(c for c in named if c not in before)]
    return goal, occasion, Dropped(turn=turn, constraints=dropped) if dropped else None


def _lived(constraints: list[Constraint], lifetime: Lifetime) -> list[Constraint]:
    return [c for c in constraints if c.lifetime == lifetime]


def guest_allergies(session: SessionConstraints) -> list[str]:
    """The allergies of the occasion's guests (and any stated for the goal: goal-wide `allergy` constraints in
    force), enforced on writes like the user's own."""
    held = held_constraints(session)
    return _normalize_texts(v for c in held if c.type == "allergy" and c.about is None for v in constraint_values(c))


def _apply_occasion(
    occasion: Occasion | None, snapshot: ConstraintSnapshot, overrides: list[Constraint], additions: list[Constraint], *, turn: int,
) -> Occasion | None:
    if occasion is None:
        if not (overrides or additions or snapshot.occasion_update):
            return None
        occasion = Occasion(description=snapshot.occasion_update or "The occasion", started_turn=turn)
    return occasion.model_copy(update={
        "constraints": _folded(occasion.constraints, overrides, additions),
        "description": snapshot.occasion_update or occasion.description,
    })


def find_reset_reason(
    session: SessionConstraints,
    snapshot: ConstraintSnapshot,
    *,
    turn: int,
    config: ResetConfig = DEFAULT_RESET_CONFIG,
    user_message: str | None = None,
    entities_referenced: bool = False,
) -> ResetReason | None:
    """Why this turn ends the active goal, or None (also None when there is no goal to end)."""
    goal = session.active_goal
    if goal is None:
        return None
    if snapshot.reset_all:
        return "reset_all"
    if user_message and find_trigger_phrase(user_message, config.trigger_phrases):
        return "trigger_phrase"
    if snapshot.reset_subdomain and goal.subdomain in (None, snapshot.reset_subdomain):
        return "reset_subdomain"
    if snapshot.goal_subdomain and goal.subdomain and goal.subdomain != snapshot.goal_subdomain:
        return "new_subdomain"
    if _is_stale(session, turn=turn, config=config, entities_referenced=entities_referenced):
        return "stale"
    return None


def _is_stale(session: SessionConstraints, *, turn: int, config: ResetConfig, entities_referenced: bool) -> bool:
    """Not mentioned for more turns than the limit; a goal holding only constraints about refs never goes stale (they
    last as long as what they are about)."""
    limit = config.stale_after_turns
    goal = session.active_goal
    lasting = goal is not None and bool(goal.constraints) and all(c.about is not None for c in goal.constraints)
    return limit is not None and not entities_referenced and not lasting and turn - session.last_touched_turn > limit


def screen_allergens(
    constraints: Iterable[Constraint], permanent: PermanentConstraints, *, turn: int
) -> tuple[list[Constraint], list[RejectedConstraint]]:
    """Split constraints into accepted (stamped with `turn`) and those requiring an allergen of the user.

    A guest's allergy is no reason to refuse: the requirement is kept and `compile_constraints` blocks it
    while the allergy is in force (it comes back when the occasion is done)."""
    accepted: list[Constraint] = []
    rejected: list[RejectedConstraint] = []
    for constraint in constraints:
        stamped = constraint.model_copy(update={"source_turn": turn})
        allergen = required_allergen(stamped, permanent.allergies)
        if allergen is None:
            accepted.append(stamped)
        else:
            reason = f"'{_display(stamped.value)}' contains '{allergen}', which the user is allergic to."
            rejected.append(RejectedConstraint(constraint=stamped, allergen=allergen, reason=reason))
    return accepted, rejected


def required_allergen(constraint: Constraint, allergies: Iterable[str]) -> str | None:
    """The allergy an ingredient_required constraint would violate, or None."""
    if constraint.type != "ingredient_required":
        return None
    for value in constraint_values(constraint):
        allergen = matching_allergen(value, allergies)
        if allergen is not None:
            return allergen
    return None


def matching_allergen(ingredient: str, allergies: Iterable[str]) -> str | None:
    """The first allergy `ingredient` falls under: through its taxonomy category ('shellfish' covers
    'shrimp'), else by its words ('peanut' in 'peanut sauce'), case- and plural-insensitive."""
    allergies = list(allergies)
    found = allergen_of(ingredient, allergies)
    if found is not None:
        return found
    words = fold_words(ingredient)
    for allergy in sorted(allergies):
        needle = fold_words(allergy)
        if needle and _contains_run(words, needle):
            return allergy
    return None


def fold_words(text: str) -> tuple[str, ...]:
    """Lower-case words with simple English plurals folded: 'Peanuts' -> ('peanut',)."""
    return tuple(_singular(word) for word in re.findall(r"[a-z0-9]+", text.lower()))


def _singular(word: str) -> str:
    if len(word) <= 3:
        return word
    if word.endswith("ies"):
        return word[:-3] + "y"
    if word.endswith(("ches", "shes", "xes", "sses", "zes", "oes")):
        return word[:-2]
    if word.endswith("s") and not word.endswith(("ss", "us", "is")):
        return word[:-1]
    return word


def holds_phrase(text: str, phrase: str) -> bool:
    """Whether `text` holds the words of `phrase` in a run, any case or plural: 'Greek Lemon Chicken' holds 'chicken'."""
    needle = fold_words(phrase)
    return bool(needle) and _contains_run(fold_words(text), needle)


def _contains_run(words: tuple[str, ...], needle: tuple[str, ...]) -> bool:
    size = len(needle)
    return any(words[i : i + size] == needle for i in range(len(words) - size + 1))


def _apply_snapshot(
    goal: ActiveGoal | None,
    snapshot: ConstraintSnapshot,
    overrides: list[Constraint],
    additions: list[Constraint],
    *,
    turn: int,
) -> ActiveGoal | None:
    if goal is None:
        if not (overrides or additions or snapshot.goal_update):
            return None
        goal = ActiveGoal(description=snapshot.goal_update or goal_label([*overrides, *additions]), subdomain=snapshot.goal_subdomain,
                          started_turn=turn)
    constraints = _folded(goal.constraints, overrides, additions)
    return goal.model_copy(
        update={
            "constraints": constraints,
            "description": snapshot.goal_update or _relabelled(goal, constraints),
            "subdomain": goal.subdomain or snapshot.goal_subdomain,
        }
    )


def _relabelled(goal: ActiveGoal, constraints: Sequence[Constraint]) -> str:
    """A goal no one named keeps being called by what it now keeps to (after a drop, an override); a named one keeps its name."""
    return goal_label(constraints) if goal.description == goal_label(goal.constraints) else goal.description


def _folded(constraints: Sequence[Constraint], overrides: list[Constraint], additions: list[Constraint]) -> list[Constraint]:
    """`constraints` with the overrides put in place, then the additions accumulated."""
    folded = list(constraints)
    for override in overrides:
        folded = _replace(folded, override)
    for addition in additions:
        folded = _accumulate(folded, addition)
    return folded


def _replace(constraints: list[Constraint], new: Constraint) -> list[Constraint]:
    """Put `new` where the first constraint with its (type, field) was, dropping the others."""
    key = constraint_key(new)
    positions = [i for i, c in enumerate(constraints) if constraint_key(c) == key]
    if not positions:
        return [*constraints, new]
    kept = [c for i, c in enumerate(constraints) if i not in positions[1:]]
    kept[positions[0]] = new
    return kept


def _accumulate(constraints: list[Constraint], new: Constraint) -> list[Constraint]:
    """Add `new` after the last constraint of its (type, field), so each pair stays one group.

    Grouping is what makes a re-merge idempotent: an override collapses its group to one
    constraint in place, and the same additions then land in the same spots again.
    """
    key = constraint_key(new)
    if any(constraint_key(c) == key and c.value == new.value for c in constraints):
        return constraints
    if new.type in SINGLE_VALUED_TYPES:
        return _replace(constraints, new)
    positions = [i for i, c in enumerate(constraints) if constraint_key(c) == key]
    at = positions[-1] + 1 if positions else len(constraints)
    return [*constraints[:at], new, *constraints[at:]]


def _display(value: ConstraintValue) -> str:
    return ", ".join(value) if isinstance(value, list) else str(value)


class CompiledItem(_Model):
    """One ingredient in the compiled view, with where it comes from."""

    value: str
    why: list[str] = Field(description="Sources: 'allergy', 'dislike', or 'goal:<field>'.")


class CompiledConstraints(_Model):
    """The flat, sorted view of a session's constraints that Think and Act read (goal-wide ones only:
    a constraint about one ref is listed under `about` and filters nothing)."""

    goal: str | None = None
    subdomain: Subdomain | None = None
    occasion: str | None = Field(default=None, description="The occasion in force; its constraints last until it is done.")
    must_include: list[CompiledItem] = Field(default_factory=list)
    must_exclude: list[CompiledItem] = Field(default_factory=list)
    blocked: list[CompiledItem] = Field(
        default_factory=list, description="Goal ingredients dropped because they contain an allergen."
    )
    guest_allergies: list[str] = Field(default_factory=list, description="The guests' allergies, refused on writes like the user's.")
    dietary: list[str] = Field(default_factory=list)
    equipment: list[str] = Field(default_factory=list, description="Equipment the goal asks for.")
    available_equipment: list[str] = Field(default_factory=list, description="Equipment the kitchen has.")
    cuisine: list[str] = Field(default_factory=list)
    difficulty: list[str] = Field(default_factory=list)
    flavor: list[str] = Field(default_factory=list)
    max_minutes: int | float | None = Field(default=None, description="The tightest time limit stated.")
    servings: int | None = Field(default=None, description="The largest number of servings asked for.")
    meal_types: list[str] = Field(default_factory=list, description="Which meals the goal is about, e.g. dinner.")
    days: list[str] = Field(default_factory=list, description="Which days, or how many ('3 days').")
    keep: list[str] = Field(default_factory=list, description="What the user said stays ('leave the chicken'): deleting it is refused.")
    about: dict[str, list[str]] = Field(
        default_factory=dict, description="Constraints about one ref only ('recipe_3': ['exclude dairy']), by ref."
    )
    replaced: str | None = Field(default=None, description="What this turn's new goal or reset ended, and what it carried over.")
    dropped: list[str] = Field(default_factory=list, description="The constraints this turn dropped by name ('ref: phrase' if about one).")


def compile_constraints(session: SessionConstraints) -> CompiledConstraints:
    """Flatten the store: allergies and dislikes join must_exclude; order never depends on input order.

    The goal's and the occasion's goal-wide constraints count together; those about one ref are only
    listed under `about`. An explicit goal requirement beats a dislike (the dislike leaves
    must_exclude) but never an allergy, the user's or a guest's (the requirement moves to `blocked`).
    """
    permanent = session.permanent
    held = held_constraints(session)
    constraints = [c for c in held if c.about is None]
    guests = guest_allergies(session)
    allergies = [*permanent.allergies, *guests]
    wanted = _items(_sourced(constraints, "ingredient_required"))
    include = [item for item in wanted if matching_allergen(item.value, allergies) is None]
    blocked = [_blocked(item, allergies) for item in wanted if item not in include]
    included = {fold_words(item.value) for item in include}
    dislikes = [(d, "dislike") for d in permanent.dislikes if fold_words(d) not in included]
    excluded = [(a, "allergy") for a in permanent.allergies] + [(a, GUEST_ALLERGY) for a in guests] + dislikes
    return CompiledConstraints(
        goal=session.active_goal.description if session.active_goal else None,
        subdomain=session.active_goal.subdomain if session.active_goal else None,
        occasion=session.occasion.description if session.occasion else None,
        must_include=include,
        must_exclude=_items(excluded + _sourced(constraints, "ingredient_excluded")),
        blocked=blocked,
        guest_allergies=guests,
        dietary=list(permanent.dietary_restrictions),
        equipment=_texts(constraints, "equipment"),
        available_equipment=list(permanent.equipment),
        cuisine=_texts(constraints, "cuisine"),
        difficulty=_texts(constraints, "difficulty"),
        flavor=_texts(constraints, "flavor"),
        max_minutes=min(_numbers(constraints, "time_limit"), default=None),
        servings=max((int(n) for n in _numbers(constraints, "servings")), default=None),
        meal_types=_texts(constraints, "meal_type"),
        days=_day_texts(constraints),
        keep=_texts(constraints, "keep"),
        about=_about(held),
        replaced=_describe_change(session.replaced),
        dropped=[_scoped(c) for c in session.dropped.constraints] if session.dropped else [],
    )


GUEST_ALLERGY = "guest allergy"
ALLERGY_REASONS = frozenset({"allergy", GUEST_ALLERGY})
"""Why an exclusion is an allergy (the user's or a guest's): matched broadly, apart from dislikes and goal exclusions."""


def _about(constraints: Iterable[Constraint]) -> dict[str, list[str]]:
    """Constraints scoped to one ref, each as a short phrase, by ref (sorted)."""
    scoped: dict[str, set[str]] = {}
    for constraint in constraints:
        if constraint.about is not None:
            scoped.setdefault(constraint.about, set()).add(describe_constraint(constraint))
    return {ref: sorted(phrases) for ref, phrases in sorted(scoped.items())}


def _scoped(constraint: Constraint) -> str:
    phrase = describe_constraint(constraint)
    return f"{constraint.about}: {phrase}" if constraint.about is not None else phrase


def describe_constraint(constraint: Constraint) -> str:
    """'ingredient_excluded dairy' -> 'exclude dairy'; others as 'type: value'."""
    words = {"ingredient_excluded": "exclude", "ingredient_required": "include", "allergy": "allergy:", "keep": "keep"}
    verb = words.get(constraint.type, f"{constraint.type.replace('_', ' ')}:")
    return f"{verb} {_display(constraint.value)}"


GOAL_LABEL_PHRASES = 3


def goal_label(constraints: Sequence[Constraint]) -> str:
    """A goal no one named is called by what it keeps to ('Exclude dairy; time limit: 30'), never by a placeholder:
    its goal-wide constraints, at most three phrases, in a fixed order. Those about one ref never name it (the Goal line
    would read as session-wide): with no others it is 'About recipe_1', the constraints listed once under their ref."""
    general = [c for c in constraints if c.about is None]
    if not general:
        return _about_refs(sorted({c.about for c in constraints if c.about is not None}))
    return _label({describe_constraint(c) for c in general})


def _about_refs(refs: Sequence[str]) -> str:
    """The name of a goal made only of constraints about refs."""
    return f"About {', '.join(refs)}" if refs else ""


def _label(phrases: Iterable[str]) -> str:
    """Phrases as a goal's label: sorted (the same constraints name it the same in any order), at most three."""
    ordered = sorted(set(phrases))
    text = "; ".join(ordered[:GOAL_LABEL_PHRASES]) + ("; …" if len(ordered) > GOAL_LABEL_PHRASES else "")
    return clip(text[:1].upper() + text[1:], 200)


def _only_per_ref(compiled: CompiledConstraints) -> bool:
    """Whether the goal says nothing the 'Only for' lines do not: no one named it, its constraints are all about refs
    (`goal_label` named it by them), and it has no area."""
    return bool(compiled.about) and compiled.subdomain is None and compiled.goal == _about_refs(sorted(compiled.about))


def _describe_change(change: GoalChange | None) -> str | None:
    if change is None:
        return None
    why = {"new_subdomain": "a new goal area", "reset_all": "the user dropped it", "trigger_phrase": "the user dropped it",
           "reset_subdomain": "the user dropped its area", "stale": "not mentioned for several turns"}[change.reason]
    parts = [f"Ended goal '{change.previous}' ({why})"]
    if change.dropped:
        parts.append("dropped: " + "; ".join(describe_constraint(c) for c in change.dropped))
    if change.carried:
        parts.append("kept: " + "; ".join(describe_constraint(c) for c in change.carried))
    return ", ".join(parts)


def _day_texts(constraints: Iterable[Constraint]) -> list[str]:
    latest = [c for c in constraints if c.type == "days"][-1:]
    return [f"{v} days" if isinstance(c.value, int) else v for c in latest for v in constraint_values(c)]


def _sourced(constraints: Iterable[Constraint], kind: str) -> list[tuple[str, str]]:
    return [(value, f"goal:{c.field}") for c in constraints if c.type == kind for value in constraint_values(c)]


def _items(sourced: Iterable[tuple[str, str]]) -> list[CompiledItem]:
    """Group (value, why) pairs by folded value; each group shows its smallest spelling."""
    groups: dict[tuple[str, ...], tuple[set[str], set[str]]] = {}
    for value, why in sourced:
        spellings, reasons = groups.setdefault(fold_words(value) or (value,), (set(), set()))
        spellings.add(value)
        reasons.add(why)
    items = [
        CompiledItem(value=min(spellings), why=sorted(reasons, key=_why_order)) for spellings, reasons in groups.values()
    ]
    return sorted(items, key=lambda item: (item.value, item.why))


def _why_order(why: str) -> tuple[int, str]:
    return ({"allergy": 0, GUEST_ALLERGY: 1, "dislike": 2}.get(why, 3), why)


def _blocked(item: CompiledItem, allergies: Iterable[str]) -> CompiledItem:
    return CompiledItem(value=item.value, why=[f"allergy:{matching_allergen(item.value, allergies)}"])


def _texts(constraints: Iterable[Constraint], kind: str) -> list[str]:
    return sorted({value for c in constraints if c.type == kind for value in constraint_values(c)})


def _numbers(constraints: Iterable[Constraint], kind: str) -> list[int | float]:
    return [c.value for c in constraints if c.type == kind and isinstance(c.value, (int, float))]


def render_constraints(compiled: CompiledConstraints, *, compact: bool = False) -> str:
    """Short Markdown for a role prompt; empty sections are left out, order is fixed.

    `compact`: every constraint still, without where each came from and with the goal's texts clipped,
    for a context that has no room for the whole (a constraint is state: it is compacted, never dropped).
    """
    lines = ["## Constraints"]
    if compiled.goal and not _only_per_ref(compiled):  # a goal named by its per-ref constraints is said once, below
        area = f" ({compiled.subdomain})" if compiled.subdomain else ""
        lines.append(f"- Goal: {_clipped(compiled.goal, compact)}{area}")
    if compiled.replaced:
        lines.append(f"- Replaced: {_clipped(compiled.replaced, compact)}")
    if compiled.dropped:
        lines.append(f"- Dropped: {'; '.join(compiled.dropped)}")
    if compiled.occasion:
        lines.append(f"- Occasion (lasts until done): {_clipped(compiled.occasion, compact)}")
    lines += _item_line("Never use", compiled.must_exclude, compact=compact)
    lines += _item_line("Must include", compiled.must_include, compact=compact)
    lines += _item_line("Refused (allergy)", compiled.blocked, compact=compact)
    for label, values in (
        ("Dietary", compiled.dietary),
        ("Equipment required", compiled.equipment),
        ("Equipment available", compiled.available_equipment),
        ("Cuisine", compiled.cuisine),
        ("Difficulty", compiled.difficulty),
        ("Flavor", compiled.flavor),
    ):
        if values:
            lines.append(f"- {label}: {', '.join(values)}")
    if compiled.max_minutes is not None:
        lines.append(f"- Time limit: {compiled.max_minutes} min")
    if compiled.servings is not None:
        lines.append(f"- Servings: {compiled.servings}")
    if compiled.meal_types:
        lines.append(f"- Meals: {', '.join(compiled.meal_types)} only")
    if compiled.days:
        lines.append(f"- Days: {', '.join(compiled.days)}")
    if compiled.keep:
        lines.append(f"- Keep (never delete): {', '.join(compiled.keep)}")
    for ref, phrases in compiled.about.items():
        lines.append(f"- Only for {ref}: {'; '.join(phrases)}")
    if len(lines) == 1:
        lines.append("- None yet.")
    return "\n".join(lines)


def _item_line(label: str, items: list[CompiledItem], *, compact: bool = False) -> list[str]:
    if not items:
        return []
    if compact:
        return [f"- {label}: " + ", ".join(item.value for item in items)]
    return [f"- {label}: " + ", ".join(f"{item.value} ({', '.join(item.why)})" for item in items)]


_COMPACT_TEXT = 100
"""Characters of a goal, occasion or replaced-goal text in the compact constraints."""


def _clipped(text: str, compact: bool) -> str:
    return clip(text, _COMPACT_TEXT) if compact else text
