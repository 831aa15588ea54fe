"""Generated artifacts held in the session until saved: one pydantic model per kind, and Draft.

The models are what a model writes when it generates a recipe, meal plan entry, task, shopping
item or pantry item; their JSON Schema (field descriptions included) is what it reads. They are
rich rather than schema-shaped: 'Tablespoons', 'Dinner' and '1 1/2' are accepted here and
normalized by `state/compiler.py`. A `Draft` keeps the validated content whole, under its gen ref,
until it is saved or discarded; revising it re-validates and keeps the ref.
"""

from __future__ import annotations

import datetime as dt
import typing
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from functools import cache, cached_property
from typing import Annotated, Any, Literal

from pydantic import (
    AfterValidator,
    AliasChoices,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    ValidationError,
    field_validator,
    model_validator,
)
from pydantic.json_schema import WithJsonSchema

from alfred_mcp.errors import InvalidPayloadError, InvalidRefError, StateError
from alfred_mcp.kitchen.jsonschema import describe_value, field_value
from alfred_mcp.kitchen.schema import MAX_NAME, MAX_TEXT, get_table, row_label, table_for_entity_type
from alfred_mcp.kitchen.units import parse_minutes, parse_quantity
from alfred_mcp.state.refs import parse_ref

MAX_INGREDIENTS = 100
MAX_STEPS = 50
MAX_TAGS = 15
MAX_TAG = 50
MAX_WORD = 50
MAX_NOTE = 1_000
MAX_INGREDIENT_NOTE = 500
MAX_UNIT = 20
MAX_QUANTITY_TEXT = 40
MAX_REF = 30


def _aliases(*names: str) -> AliasChoices:
    """The field's own name (first, so the JSON Schema shows it) and the aliases it also accepts."""
    return AliasChoices(*names)


def _check_quantity(value: object) -> float | str | None:
    if value is None or isinstance(value, str) and not value.strip():
        return None
    if isinstance(value, str):
        if len(value.strip()) > MAX_QUANTITY_TEXT:
            raise ValueError(f"must be at most {MAX_QUANTITY_TEXT} characters of text")
        return value.strip()
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        parsed = parse_quantity(value)
        if parsed.value is None:
            raise ValueError("must be a finite number, 0 or more")
        return parsed.value
    raise ValueError("must be a number or text such as '1 1/2' or '2-3'")


def _check_minutes(value: object) -> object:
    return parse_minutes(value) if isinstance(value, (int, float, str)) and not isinstance(value, bool) else value


def _step_text(value: object) -> object:
    """A step given as {'step': 1, 'text': '...'} becomes its text."""
    if isinstance(value, Mapping):
        for key in ("text", "instruction", "description", "step"):
            if isinstance(value.get(key), str):
                return value[key]
    return value


_REF_CHECKS: dict[Callable[[str | None], str | None], str] = {}
"""Each ref field's validator -> the entity type it takes (how `draft_refs` finds a draft's refs)."""


def _ref_of(entity_type: str) -> Callable[[str | None], str | None]:
    def check(value: str | None) -> str | None:
        parsed = parse_ref(value)
        if value is not None and (parsed is None or parsed.entity_type != entity_type):
            raise ValueError(
                f"takes a {table_for_entity_type(entity_type).noun} ref such as {entity_type}_3 "
                f"or gen_{entity_type}_2, got {describe_value(value)}"
            )
        return value

    _REF_CHECKS[check] = entity_type
    return check


Name = Annotated[str, Field(min_length=1, max_length=MAX_NAME)]
Word = Annotated[str, Field(min_length=1, max_length=MAX_WORD)]
Tag = Annotated[str, Field(min_length=1, max_length=MAX_TAG)]
Tags = Annotated[list[Tag], Field(max_length=MAX_TAGS)]
Step = Annotated[str, BeforeValidator(_step_text), Field(min_length=1, max_length=MAX_TEXT)]
Minutes = Annotated[
    int, BeforeValidator(_check_minutes), Field(ge=0, le=10_000),
    WithJsonSchema({"type": ["integer", "string"], "minimum": 0, "maximum": 10_000}),
]
"""Whole minutes, or text such as '1 hr 15 min' (read as 75): the published type says both."""
QuantityValue = Annotated[float | str | None, BeforeValidator(_check_quantity)]
Unit = Annotated[str, Field(min_length=1, max_length=MAX_UNIT)]
RecipeRef = Annotated[str | None, Field(max_length=MAX_REF), AfterValidator(_ref_of("recipe"))]
MealRef = Annotated[str | None, Field(max_length=MAX_REF), AfterValidator(_ref_of("meal"))]


class _DraftModel(BaseModel):
    model_config = ConfigDict(extra="forbid", str_strip_whitespace=True)

    @model_validator(mode="before")
    @classmethod
    def _blank_means_none(cls, data: Any) -> Any:
        """An empty optional text (`unit: ""` for 'salt, to taste') means none: it is left out, its default holds."""
        if not isinstance(data, dict):
            return data
        optional = _optional_keys(cls)
        return {key: value for key, value in data.items() if not (key in optional and isinstance(value, str) and not value.strip())}


@cache
def _optional_keys(model: type[BaseModel]) -> frozenset[str]:
    """The keys (names and aliases) of a model's fields that may be left out."""
    keys: set[str] = set()
    for name, field in model.model_fields.items():
        if field.is_required():
            continue
        keys.add(name)
        alias = field.validation_alias
        keys.update(choice for choice in getattr(alias, "choices", [alias]) if isinstance(choice, str))
    return frozenset(keys)


class IngredientDraft(_DraftModel):
    """One ingredient line, in recipe order."""

    name: Name = Field(
        validation_alias=_aliases("name", "ingredient_name", "ingredient", "item"),
        description="e.g. 'cod fillet'; preparation goes in notes.",
    )
    quantity: QuantityValue = Field(
        None,
        validation_alias=_aliases("quantity", "qty", "amount"),
        description=(
            "1.5, or text: '1 1/2', '½', '2-3'."
        ),
    )
    unit: Unit | None = Field(None, description="e.g. tbsp, cup, g, clove.")
    notes: str | None = Field(
        None,
        max_length=MAX_INGREDIENT_NOTE,
        validation_alias=_aliases("notes", "note", "preparation"),
        description="e.g. 'finely chopped', 'to taste'.",
    )
    is_optional: bool = Field(
        False, validation_alias=_aliases("is_optional", "optional"), description="Optional."
    )
    category: str | None = Field(None, max_length=100, description="e.g. fish, herbs.")


class RecipeDraft(_DraftModel):
    """A whole recipe: every ingredient and step."""

    name: Name = Field(validation_alias=_aliases("name", "title"), description="The recipe's name.")
    description: str | None = Field(None, max_length=MAX_TEXT, description="One or two sentences.")
    cuisine: Word | None = Field(None, description="e.g. italian, thai, middle-eastern.")
    difficulty: Word | None = Field(None, description="easy, medium or hard.")
    prep_time_minutes: Minutes | None = Field(
        None, validation_alias=_aliases("prep_time_minutes", "prep_time", "prep_minutes"),
        description="Minutes or '1 hr 15 min'.",
    )
    cook_time_minutes: Minutes | None = Field(
        None, validation_alias=_aliases("cook_time_minutes", "cook_time", "cook_minutes"),
        description="Minutes or '25 min'.",
    )
    total_time_minutes: Minutes | None = Field(
        None, validation_alias=_aliases("total_time_minutes", "total_time", "total_minutes"),
        description="When more than prep + cook (resting).",
    )
    servings: int | None = Field(
        None, ge=1, le=1_000, validation_alias=_aliases("servings", "serves"), description="People it serves; else the household's."
    )
    ingredients: list[IngredientDraft] = Field(
        min_length=1, max_length=MAX_INGREDIENTS, description="Every ingredient, in order."
    )
    instructions: list[Step] = Field(
        min_length=1, max_length=MAX_STEPS,
        validation_alias=_aliases("instructions", "steps", "directions", "method"),
        description="Every step, in order.",
    )
    tags: Tags = Field(default_factory=list, description="Free-form.")
    occasions: Tags = Field(
        default_factory=list, validation_alias=_aliases("occasions", "occasion"),
        description="weeknight, batch-prep, hosting, weekend, comfort.",
    )
    health_tags: Tags = Field(
        default_factory=list, validation_alias=_aliases("health_tags", "diet_tags", "dietary_tags"),
        description="high-protein, low-carb, vegetarian, vegan, light, gluten-free, dairy-free, keto.",
    )
    flavor_tags: Tags = Field(
        default_factory=list, validation_alias=_aliases("flavor_tags", "flavors"),
        description="spicy, mild, savory, sweet, tangy, rich, light, umami, other.",
    )
    equipment_tags: Tags = Field(
        default_factory=list, validation_alias=_aliases("equipment_tags", "equipment"),
        description="e.g. air-fryer, oven, one-pan.",
    )
    notes: str | None = Field(
        None, max_length=MAX_TEXT, validation_alias=_aliases("notes", "note"), description="Tips."
    )
    source_url: str | None = Field(
        None, max_length=MAX_TEXT, validation_alias=_aliases("source_url", "url"), description="Its source."
    )
    parent_recipe: RecipeRef = Field(
        None, validation_alias=_aliases("parent_recipe", "parent_recipe_id", "variation_of"),
        description="The recipe this varies: recipe_3 or gen_recipe_2.",
    )


class MealPlanDraft(_DraftModel):
    """A meal: its date, which meal, maybe a recipe."""

    date: dt.date = Field(description="YYYY-MM-DD.")
    meal_type: Word = Field(
        validation_alias=_aliases("meal_type", "meal"), description="breakfast, lunch, dinner, snack, other."
    )
    recipe: RecipeRef = Field(
        None, validation_alias=_aliases("recipe", "recipe_id", "recipe_ref"),
        description="recipe_3, or gen_recipe_2 (a draft, saved first).",
    )
    notes: str | None = Field(None, max_length=MAX_NOTE, description="Free text.")
    servings: int | None = Field(None, ge=1, le=1_000, description="Else the household's.")


class TaskDraft(_DraftModel):
    """A kitchen to-do, optionally tied to a recipe or meal."""

    title: Name = Field(validation_alias=_aliases("title", "name", "task"), description="What to do.")
    due_date: dt.date | None = Field(None, validation_alias=_aliases("due_date", "due"), description="YYYY-MM-DD.")
    category: Word | None = Field(None, description="prep, shopping, cleanup, other.")
    recipe: RecipeRef = Field(None, validation_alias=_aliases("recipe", "recipe_id"), description="A recipe ref.")
    meal_plan: MealRef = Field(None, validation_alias=_aliases("meal_plan", "meal_plan_id"), description="A meal ref, e.g. meal_2.")


class ShoppingItemDraft(_DraftModel):
    """One thing to buy."""

    name: Name = Field(validation_alias=_aliases("name", "ingredient_name", "item"), description="What to buy.")
    quantity: QuantityValue = Field(None, validation_alias=_aliases("quantity", "qty", "amount"), description="How much.")
    unit: Unit | None = Field(None, description="e.g. lb, bunch, can.")
    category: str | None = Field(None, max_length=100, description="Store section, e.g. produce.")
    notes: str | None = Field(None, max_length=MAX_NOTE, description="Free text.")
    source: str | None = Field(None, max_length=MAX_NAME, description="Why, e.g. a recipe name.")
    is_purchased: bool = Field(
        False, validation_alias=_aliases("is_purchased", "checked", "purchased"), description="Already bought."
    )


class InventoryItemDraft(_DraftModel):
    """One item in the kitchen: pantry, fridge or freezer."""

    name: Name = Field(validation_alias=_aliases("name", "ingredient_name", "item"), description="What it is.")
    quantity: QuantityValue = Field(validation_alias=_aliases("quantity", "qty", "amount"), description="On hand: 2 or '1 1/2'.")
    unit: Unit = Field(description="e.g. piece, lb, g, carton.")
    location: Word | None = Field(None, description="pantry, fridge, freezer, counter, cabinet.")
    expiry_date: dt.date | None = Field(
        None, validation_alias=_aliases("expiry_date", "expiration_date", "expires"), description="Use by, YYYY-MM-DD."
    )
    purchase_date: dt.date | None = Field(
        None, validation_alias=_aliases("purchase_date", "purchased_on"), description="Bought on, YYYY-MM-DD."
    )
    category: str | None = Field(None, max_length=100, description="e.g. dairy.")
    notes: str | None = Field(None, max_length=MAX_NOTE, description="Free text.")

    @field_validator("quantity")
    @classmethod
    def _quantity_is_a_number(cls, value: float | str | None) -> float | str | None:
        if parse_quantity(value).value is None:
            raise ValueError("must be a number such as 2 or '1 1/2' (the amount on hand)")
        return value


DRAFT_KINDS: dict[str, type[BaseModel]] = {
    "recipe": RecipeDraft,
    "meal": MealPlanDraft,
    "task": TaskDraft,
    "shop": ShoppingItemDraft,
    "inv": InventoryItemDraft,
}
"""The draft model of each entity type that can be generated."""


def parse_draft(entity_type: str, content: Mapping[str, Any]) -> BaseModel:
    """The validated draft model of `content`.

    Raises:
        InvalidPayloadError: unknown entity type, or the first problem in `content`, with its path
            (e.g. 'ingredients[2].quantity') in `field`.
    """
    model = _draft_model(entity_type)
    if not isinstance(content, Mapping):
        raise InvalidPayloadError(f"A {_noun(entity_type)} draft must be an object of fields.", field="content")
    try:
        return model.model_validate(dict(content))
    except ValidationError as error:
        raise _payload_error(entity_type, model, error) from None


def draft_refs(draft: BaseModel) -> list[tuple[str, str, str]]:
    """(field, entity type, ref) of every ref a validated draft names: the rows or drafts it points at."""
    found = []
    for name, entity_type in _ref_fields(type(draft)):
        value = getattr(draft, name)
        if isinstance(value, str):
            found.append((name, entity_type, value))
    return found


@cache
def _ref_fields(model: type[BaseModel]) -> tuple[tuple[str, str], ...]:
    """(field, entity type) of the fields of a draft model that hold a ref (worked out once per model)."""
    return tuple(
        (name, entity_type)
        for name, info in model.model_fields.items()
        for rule in info.metadata
        if (entity_type := _REF_CHECKS.get(getattr(rule, "func", None))) is not None  # type: ignore[arg-type]
    )


def draft_label(entity_type: str, draft: BaseModel) -> str:
    """How a draft is named to people: its name or title, or 'Sun Jan 12 [dinner]' for a meal."""
    table = table_for_entity_type(entity_type)
    return row_label(table, draft.model_dump(mode="json", include=set(_label_fields(type(draft), table.name))))


@cache
def _label_fields(model: type[BaseModel], table: str) -> frozenset[str]:
    """The fields a label is made of (the table's label columns): a recipe's name, not its 15 ingredients."""
    return frozenset(get_table(table).label_columns).intersection(model.model_fields)


def _draft_model(entity_type: str) -> type[BaseModel]:
    model = DRAFT_KINDS.get(entity_type)
    if model is None:
        raise InvalidPayloadError(
            f"Nothing of type '{entity_type}' can be generated. Draft types: {', '.join(DRAFT_KINDS)}.",
            field="entity_type", value=entity_type, valid=list(DRAFT_KINDS),
        )
    return model


def _noun(entity_type: str) -> str:
    return table_for_entity_type(entity_type).noun


# -- readable validation errors ---------------------------------------------------------------


def _payload_error(entity_type: str, model: type[BaseModel], error: ValidationError) -> InvalidPayloadError:
    first = error.errors(include_url=False)[0]
    loc = first["loc"]
    path = _path(loc)
    noun = _noun(entity_type)
    if first["type"] == "extra_forbidden":
        valid = list(_model_at(model, loc[:-1]).model_fields)
        where = f"{_path(loc[:-1])} has" if len(loc) > 1 else "there is"
        return InvalidPayloadError(
            f"Invalid {noun} draft: {where} no field '{loc[-1]}'. Valid fields: {', '.join(valid)}.",
            field=path, valid=valid,
        )
    if first["type"] == "missing":
        return InvalidPayloadError(f"Invalid {noun} draft: {path} is required.", field=path)
    reason = first["msg"].removeprefix("Value error, ")
    return InvalidPayloadError(
        f"Invalid {noun} draft: {path}: {reason}.", field=path or "content", value=field_value(first.get("input"))
    )


def _path(loc: tuple[int | str, ...]) -> str:
    """('ingredients', 2, 'quantity') -> 'ingredients[2].quantity'."""
    text = ""
    for part in loc:
        text += f"[{part}]" if isinstance(part, int) else f".{part}" if text else str(part)
    return text


def _model_at(model: type[BaseModel], loc: tuple[int | str, ...]) -> type[BaseModel]:
    """The nested model a location points into, e.g. IngredientDraft for ('ingredients', 2)."""
    for part in loc:
        if isinstance(part, str) and part in model.model_fields:
            inner = model.model_fields[part].annotation
            for candidate in (inner, *typing.get_args(inner)):
                if isinstance(candidate, type) and issubclass(candidate, BaseModel):
                    model = candidate
    return model


@cache
def _canonical_names(model: type[BaseModel]) -> dict[str, str]:
    """Every accepted key (field name or alias) -> field name."""
    names: dict[str, str] = {}
    for name, info in model.model_fields.items():
        names[name] = name
        if isinstance(info.validation_alias, AliasChoices):
            names.update({alias: name for alias in info.validation_alias.choices if isinstance(alias, str)})
    return names


def _canonical_keys(entity_type: str, patch: Mapping[str, Any]) -> dict[str, Any]:
    """`patch` with aliases ('steps') renamed to their field ('instructions'); unknown keys kept for the error."""
    names = _canonical_names(_draft_model(entity_type))
    renamed: dict[str, Any] = {}
    for key, value in patch.items():
        field = names.get(key, key)
        if field in renamed:
            raise InvalidPayloadError(f"Both '{field}' and an alias of it were given; give one.", field=field)
        renamed[field] = value
    return renamed


# -- the Draft value --------------------------------------------------------------------------

DraftStatus = Literal["pending", "saved", "discarded"]
_STATUSES: tuple[str, ...] = typing.get_args(DraftStatus)


@dataclass(frozen=True)
class Draft:
    """A generated artifact under its gen ref; `content` is the validated model's dict, whole."""

    ref: str
    entity_type: str
    content: dict[str, Any]
    turn_created: int
    turn_updated: int
    status: DraftStatus = "pending"
    saved_as: str | None = None
    """The ref of the row it was saved as, e.g. 'recipe_12'."""

    @cached_property
    def label(self) -> str:
        return draft_label(self.entity_type, self.parsed())

    def parsed(self) -> BaseModel:
        """The content as its draft model (parsed once per Draft object: drafts are immutable)."""
        return self._parsed

    @cached_property
    def _parsed(self) -> BaseModel:
        return parse_draft(self.entity_type, self.content)

    def to_dict(self) -> dict[str, Any]:
        return {
            "ref": self.ref, "entity_type": self.entity_type, "content": self.content,
            "turn_created": self.turn_created, "turn_updated": self.turn_updated,
            "status": self.status, "saved_as": self.saved_as,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Draft:
        """A draft from `to_dict` output.

        Raises:
            StateError: the stored draft is malformed.
        """
        try:
            draft = cls(**{key: data[key] for key in _DRAFT_KEYS})
        except (KeyError, TypeError):
            raise StateError("A stored draft is malformed.") from None
        parsed = parse_ref(draft.ref)
        consistent = parsed is not None and parsed.generated and parsed.entity_type == draft.entity_type
        if not consistent or draft.status not in _STATUSES:
            raise StateError(f"Stored draft '{draft.ref}' is malformed.", value=draft.ref)
        return draft


_DRAFT_KEYS = ("ref", "entity_type", "content", "turn_created", "turn_updated", "status", "saved_as")


def new_draft(ref: str, content: Mapping[str, Any], *, turn: int) -> Draft:
    """A pending draft of validated `content` under `ref` (a gen ref; its type is the draft's type).

    Raises:
        InvalidRefError: `ref` is not a gen ref of a type that can be generated.
        InvalidPayloadError: `content` does not fit the draft model.
    """
    parsed = parse_ref(ref)
    if parsed is None or not parsed.generated or parsed.entity_type not in DRAFT_KINDS:
        kinds = ", ".join(f"gen_{kind}_<n>" for kind in DRAFT_KINDS)
        raise InvalidRefError(
            f"{describe_value(ref)} is not a draft ref; drafts are named {kinds}.", field="ref", value=field_value(ref)
        )
    model = parse_draft(parsed.entity_type, content)
    return _primed(Draft(ref, parsed.entity_type, model.model_dump(mode="json"), turn_created=turn, turn_updated=turn), model)


def revise_draft(draft: Draft, patch: Mapping[str, Any], *, turn: int) -> Draft:
    """The draft with the top-level fields in `patch` replaced (lists replaced whole), re-validated.

    Raises:
        StateError: the draft was already saved or discarded.
        InvalidPayloadError: the revised content does not fit the draft model.
    """
    ensure_pending(draft)
    merged = {**draft.content, **_canonical_keys(draft.entity_type, patch)}
    return _with_content(draft, merged, turn)


def replace_draft(draft: Draft, content: Mapping[str, Any], *, turn: int) -> Draft:
    """The draft with its whole content replaced, re-validated; the ref stays.

    Raises:
        StateError: the draft was already saved or discarded.
        InvalidPayloadError: `content` does not fit the draft model.
    """
    ensure_pending(draft)
    return _with_content(draft, content, turn)


def mark_draft_saved(draft: Draft, saved_ref: str) -> Draft:
    """The draft marked saved as `saved_ref` (idempotent for the same ref).

    Raises:
        InvalidRefError: `saved_ref` is not a saved ref of the draft's type.
        StateError: the draft was discarded, or already saved as another ref.
    """
    parsed = parse_ref(saved_ref)
    if parsed is None or parsed.generated or parsed.entity_type != draft.entity_type:
        raise InvalidRefError(
            f"{describe_value(saved_ref)} is not a saved {_noun(draft.entity_type)} ref, "
            f"so {draft.ref} cannot be marked saved as it.",
            field="saved_ref", value=field_value(saved_ref),
        )
    if draft.status == "saved" and draft.saved_as == saved_ref:
        return draft
    ensure_pending(draft)
    return replace(draft, status="saved", saved_as=saved_ref)


def discard_draft(draft: Draft, *, turn: int) -> Draft:
    """The draft marked discarded (idempotent).

    Raises:
        StateError: the draft was already saved.
    """
    if draft.status == "discarded":
        return draft
    ensure_pending(draft)
    return replace(draft, status="discarded", turn_updated=turn)


def ensure_pending(draft: Draft, field: str = "ref") -> None:
    """Check that the draft can still be revised, saved or discarded; `field` names where it was given.

    Raises:
        StateError: the draft was already saved (naming its saved ref) or discarded.
    """
    if draft.status == "saved":
        raise StateError(
            f"{field}: {draft.ref} was already saved as {draft.saved_as}; change {draft.saved_as} instead.",
            field=field, value=draft.ref, saved_as=draft.saved_as,
        )
    if draft.status == "discarded":
        raise StateError(f"{field}: {draft.ref} was discarded; generate a new draft instead.", field=field, value=draft.ref)


def _with_content(draft: Draft, content: Mapping[str, Any], turn: int) -> Draft:
    model = parse_draft(draft.entity_type, content)
    return _primed(replace(draft, content=model.model_dump(mode="json"), turn_updated=turn), model)


def _primed(draft: Draft, model: BaseModel) -> Draft:
    """The draft with its parsed model already at hand: its content is that model's dump, which parses back to it."""
    draft.__dict__["_parsed"] = model
    return draft
