"""Draft models and the Draft value: whole content kept, aliases accepted, errors that name the field."""

from __future__ import annotations

from typing import Any

import pytest

from alfred_mcp.errors import InvalidPayloadError, InvalidRefError, StateError
from alfred_mcp.state.drafts import (
    DRAFT_KINDS,
    MAX_INGREDIENTS,
    MAX_STEPS,
    Draft,
    RecipeDraft,
    discard_draft,
    draft_label,
    mark_draft_saved,
    new_draft,
    parse_draft,
    replace_draft,
    revise_draft,
)


def recipe(**overrides: Any) -> dict[str, Any]:
    content: dict[str, Any] = {
        "name": "Lemon Butter Cod",
        "ingredients": [
            {"name": "cod loin", "quantity": "1 1/2", "unit": "lbs", "notes": "cut into 4 portions"},
            {"name": "unsalted butter", "quantity": 4, "unit": "Tbsp", "notes": "cold, cubed"},
            {"name": "capers", "quantity": "2", "unit": "tbsp", "is_optional": True},
        ],
        "instructions": ["Pat the cod dry.", "Sear 3 minutes a side.", "Finish with butter and capers."],
    }
    return {**content, **overrides}


def error_of(entity_type: str, content: dict[str, Any]) -> InvalidPayloadError:
    with pytest.raises(InvalidPayloadError) as caught:
        parse_draft(entity_type, content)
    return caught.value


# -- parsing ----------------------------------------------------------------------------------


def test_recipe_draft_keeps_every_ingredient_and_step_in_order() -> None:
    """Nothing in a valid recipe is simplified by parsing."""
    parsed = parse_draft("recipe", recipe())
    assert isinstance(parsed, RecipeDraft)
    dumped = parsed.model_dump(mode="json")
    assert [i["name"] for i in dumped["ingredients"]] == ["cod loin", "unsalted butter", "capers"]
    assert dumped["ingredients"][0] == {
        "name": "cod loin", "quantity": "1 1/2", "unit": "lbs", "notes": "cut into 4 portions",
        "is_optional": False, "category": None,
    }
    assert dumped["ingredients"][1]["quantity"] == 4.0
    assert dumped["instructions"] == recipe()["instructions"]


@pytest.mark.parametrize(
    ("entity_type", "alias", "value", "field", "expected"),
    [
        pytest.param("recipe", "title", "Cod", "name", "Cod", id="recipe-title"),
        pytest.param("recipe", "prep_time", 15, "prep_time_minutes", 15, id="prep_time"),
        pytest.param("recipe", "cook_time", "1 hr 5 min", "cook_time_minutes", 65, id="cook_time-text"),
        pytest.param("recipe", "steps", ["Bake."], "instructions", ["Bake."], id="steps"),
        pytest.param("recipe", "directions", [{"step": 1, "text": "Bake."}], "instructions", ["Bake."], id="step-objects"),
        pytest.param("recipe", "diet_tags", ["veggie"], "health_tags", ["veggie"], id="diet_tags"),
        pytest.param("recipe", "equipment", ["oven"], "equipment_tags", ["oven"], id="equipment"),
        pytest.param("recipe", "parent_recipe_id", "gen_recipe_2", "parent_recipe", "gen_recipe_2", id="parent"),
        pytest.param("inv", "expiration_date", "2026-02-01", "expiry_date", "2026-02-01", id="expiration_date"),
        pytest.param("shop", "checked", True, "is_purchased", True, id="checked"),
        pytest.param("meal", "recipe_id", "recipe_3", "recipe", "recipe_3", id="meal-recipe_id"),
        pytest.param("task", "meal_plan_id", "gen_meal_1", "meal_plan", "gen_meal_1", id="task-meal_plan_id"),
    ],
)
def test_common_aliases_land_on_their_field(entity_type: str, alias: str, value: Any, field: str, expected: Any) -> None:
    """The names models often use instead of ours are accepted and stored under our name."""
    base: dict[str, dict[str, Any]] = {
        "recipe": recipe(),
        "inv": {"name": "milk", "quantity": 1, "unit": "carton"},
        "shop": {"name": "lemons"},
        "meal": {"date": "2026-01-12", "meal_type": "dinner"},
        "task": {"title": "Thaw the cod"},
    }
    content = {key: v for key, v in base[entity_type].items() if key != field}
    dumped = parse_draft(entity_type, {**content, alias: value}).model_dump(mode="json")
    assert dumped[field] == expected


@pytest.mark.parametrize(
    ("quantity", "stored"),
    [
        pytest.param(2, 2.0, id="int"),
        pytest.param(1.5, 1.5, id="float"),
        pytest.param("1 1/2", "1 1/2", id="mixed-number"),
        pytest.param("½", "½", id="unicode-fraction"),
        pytest.param("2-3", "2-3", id="range"),
        pytest.param("to taste", "to taste", id="words"),
        pytest.param("  ", None, id="blank"),
        pytest.param(None, None, id="none"),
    ],
)
def test_ingredient_quantity_accepts_numbers_and_text(quantity: object, stored: object) -> None:
    """Text quantities are kept as written for the compiler; numbers become floats."""
    parsed = parse_draft("recipe", recipe(ingredients=[{"name": "salt", "quantity": quantity}]))
    assert parsed.model_dump()["ingredients"][0]["quantity"] == stored


@pytest.mark.parametrize(
    "quantity",
    [
        pytest.param(True, id="bool"),
        pytest.param(-1, id="negative"),
        pytest.param(float("nan"), id="nan"),
        pytest.param([1], id="list"),
        pytest.param("x" * 41, id="too-long"),
    ],
)
def test_bad_ingredient_quantity_is_named_by_path(quantity: object) -> None:
    """The error points at the ingredient's quantity."""
    error = error_of("recipe", recipe(ingredients=[{"name": "salt"}, {"name": "cod", "quantity": quantity}]))
    assert error.fields["field"] == "ingredients[1].quantity"
    assert "ingredients[1].quantity" in error.message


def test_unknown_key_is_refused_with_the_valid_fields() -> None:
    """extra='forbid': a typo fails loudly and the message lists what is allowed."""
    error = error_of("recipe", recipe(cusine="thai"))
    assert error.fields["field"] == "cusine"
    assert "cuisine" in error.fields["valid"]
    assert "no field 'cusine'" in error.message


def test_unknown_ingredient_key_names_the_ingredient() -> None:
    """A nested unknown key names its ingredient and the ingredient fields."""
    error = error_of("recipe", recipe(ingredients=[{"name": "cod", "ingredient_id": "ing_1"}]))
    assert error.fields["field"] == "ingredients[0].ingredient_id"
    assert error.fields["valid"] == ["name", "quantity", "unit", "notes", "is_optional", "category"]


@pytest.mark.parametrize(
    ("content", "field"),
    [
        pytest.param({"ingredients": [{"name": "cod"}], "instructions": ["Bake."]}, "name", id="missing-name"),
        pytest.param(recipe(ingredients=[]), "ingredients", id="no-ingredients"),
        pytest.param(recipe(instructions=[]), "instructions", id="no-steps"),
        pytest.param(
            recipe(ingredients=[{"name": "cod"}] * (MAX_INGREDIENTS + 1)), "ingredients", id="too-many-ingredients"
        ),
        pytest.param(recipe(instructions=["Stir."] * (MAX_STEPS + 1)), "instructions", id="too-many-steps"),
        pytest.param(recipe(name="x" * 201), "name", id="long-name"),
        pytest.param(recipe(name="   "), "name", id="blank-name"),
        pytest.param(recipe(prep_time="20-25 min"), "prep_time", id="time-range"),
        pytest.param(recipe(servings=0), "servings", id="zero-servings"),
        pytest.param(recipe(tags=["t"] * 16), "tags", id="too-many-tags"),
        pytest.param(recipe(parent_recipe="Honey Garlic Cod"), "parent_recipe", id="parent-not-a-ref"),
        pytest.param(recipe(parent_recipe="inv_3"), "parent_recipe", id="parent-wrong-type"),
    ],
)
def test_invalid_recipe_is_refused_naming_the_field(content: dict[str, Any], field: str) -> None:
    """Each invalid recipe names the field at fault, never silently trimming it."""
    error = error_of("recipe", content)
    assert error.fields["field"] == field
    assert error.code == "invalid_payload"


def test_meal_recipe_must_be_a_recipe_ref() -> None:
    """A meal plan points at a recipe by ref (saved or draft), never by name."""
    assert parse_draft("meal", {"date": "2026-01-12", "meal_type": "Dinner", "recipe": "gen_recipe_2"})
    error = error_of("meal", {"date": "2026-01-12", "meal_type": "Dinner", "recipe": "Honey Garlic Cod"})
    assert error.fields["field"] == "recipe"
    assert "recipe_3 or gen_recipe_2" in error.message


def test_pantry_quantity_must_be_a_number() -> None:
    """An amount on hand is required and must read as a number."""
    assert parse_draft("inv", {"name": "milk", "quantity": "1 1/2", "unit": "l"})
    assert error_of("inv", {"name": "milk", "quantity": "some", "unit": "l"}).fields["field"] == "quantity"
    assert error_of("inv", {"name": "milk", "unit": "l"}).fields["field"] == "quantity"


def test_invalid_date_is_refused() -> None:
    """Dates are real calendar dates."""
    assert error_of("meal", {"date": "2026-02-30", "meal_type": "dinner"}).fields["field"] == "date"


def test_unknown_entity_type_lists_draft_types() -> None:
    """Only the five generated kinds have drafts."""
    error = error_of("ri", {"name": "cod"})
    assert error.fields["valid"] == ["recipe", "meal", "task", "shop", "inv"]


def test_content_must_be_an_object() -> None:
    """A list or string is not a draft."""
    with pytest.raises(InvalidPayloadError):
        parse_draft("recipe", ["cod"])  # type: ignore[arg-type]


@pytest.mark.parametrize("entity_type", list(DRAFT_KINDS))
def test_draft_json_schema_forbids_extras_and_describes_every_field(entity_type: str) -> None:
    """The JSON Schema a model reads is closed and every property says what it is."""
    schema = DRAFT_KINDS[entity_type].model_json_schema()
    models = [schema, *schema.get("$defs", {}).values()]
    for model in models:
        assert model["additionalProperties"] is False
        assert all(prop.get("description") for prop in model["properties"].values()), model["title"]


@pytest.mark.parametrize(
    ("entity_type", "content", "label"),
    [
        pytest.param("recipe", recipe(), "Lemon Butter Cod", id="recipe"),
        pytest.param("meal", {"date": "2026-01-12", "meal_type": "dinner"}, "Mon Jan 12 [dinner]", id="meal"),
        pytest.param("task", {"title": "Thaw the cod"}, "Thaw the cod", id="task"),
        pytest.param("shop", {"name": "lemons"}, "lemons", id="shop"),
        pytest.param("inv", {"name": "milk", "quantity": 1, "unit": "carton"}, "milk", id="inv"),
    ],
)
def test_draft_label_names_the_draft(entity_type: str, content: dict[str, Any], label: str) -> None:
    """Labels match how saved rows are labelled."""
    assert draft_label(entity_type, parse_draft(entity_type, content)) == label


# -- the Draft value --------------------------------------------------------------------------


def test_new_draft_keeps_the_validated_content_whole() -> None:
    """The stored content is the full model dump: every field, under canonical names."""
    content = {key: value for key, value in recipe().items() if key != "instructions"} | {"steps": ["A.", "B."]}
    draft = new_draft("gen_recipe_1", content, turn=2)
    assert (draft.ref, draft.entity_type, draft.turn_created, draft.turn_updated, draft.status, draft.saved_as) == (
        "gen_recipe_1", "recipe", 2, 2, "pending", None,
    )
    assert draft.content == parse_draft("recipe", content).model_dump(mode="json")
    assert set(draft.content) == set(RecipeDraft.model_fields)
    assert draft.content["instructions"] == ["A.", "B."]
    assert draft.label == "Lemon Butter Cod"


@pytest.mark.parametrize("ref", ["recipe_1", "gen_ri_1", "gen_recipe_0", "Lemon Cod"])
def test_new_draft_needs_a_gen_ref_of_a_draft_type(ref: str) -> None:
    """Saved refs, child tables and non-refs cannot name a draft."""
    with pytest.raises(InvalidRefError):
        new_draft(ref, recipe(), turn=1)


def test_revise_draft_merges_top_level_fields_and_keeps_the_ref() -> None:
    """A revision replaces the named fields, keeps the rest and the ref, and moves turn_updated."""
    draft = new_draft("gen_recipe_4", recipe(), turn=1)
    revised = revise_draft(draft, {"steps": ["Bake 12 minutes."], "cuisine": "French"}, turn=3)
    assert revised.ref == "gen_recipe_4"
    assert revised.content["instructions"] == ["Bake 12 minutes."]
    assert revised.content["cuisine"] == "French"
    assert revised.content["ingredients"] == draft.content["ingredients"]
    assert (revised.turn_created, revised.turn_updated) == (1, 3)


def test_invalid_revision_changes_nothing() -> None:
    """A revision that breaks validation raises, and the draft is untouched."""
    draft = new_draft("gen_recipe_1", recipe(), turn=1)
    before = draft.to_dict()
    with pytest.raises(InvalidPayloadError) as caught:
        revise_draft(draft, {"ingredients": []}, turn=2)
    assert caught.value.fields["field"] == "ingredients"
    assert draft.to_dict() == before


def test_revision_naming_a_field_twice_is_refused() -> None:
    """'steps' and 'instructions' together are ambiguous."""
    draft = new_draft("gen_recipe_1", recipe(), turn=1)
    with pytest.raises(InvalidPayloadError):
        revise_draft(draft, {"steps": ["A."], "instructions": ["B."]}, turn=2)


def test_replace_draft_replaces_the_whole_content() -> None:
    """Fields left out of a replacement go back to their defaults."""
    draft = new_draft("gen_recipe_1", recipe(cuisine="french", tags=["fish"]), turn=1)
    replaced = replace_draft(draft, recipe(name="Cod en Papillote"), turn=2)
    assert (replaced.ref, replaced.content["name"], replaced.content["cuisine"], replaced.content["tags"]) == (
        "gen_recipe_1", "Cod en Papillote", None, [],
    )


def test_saved_draft_cannot_be_revised_and_names_its_saved_ref() -> None:
    """Once saved, changes go to the saved row, so the entity never has two live versions."""
    saved = mark_draft_saved(new_draft("gen_recipe_1", recipe(), turn=1), "recipe_7")
    assert (saved.status, saved.saved_as) == ("saved", "recipe_7")
    assert mark_draft_saved(saved, "recipe_7") == saved
    with pytest.raises(StateError) as caught:
        revise_draft(saved, {"name": "Other"}, turn=2)
    assert "recipe_7" in caught.value.message
    with pytest.raises(StateError):
        mark_draft_saved(saved, "recipe_8")
    with pytest.raises(StateError):
        discard_draft(saved, turn=2)


def test_draft_is_saved_only_as_a_row_of_its_own_type() -> None:
    """A recipe draft cannot be marked saved as a pantry row or another draft."""
    draft = new_draft("gen_recipe_1", recipe(), turn=1)
    for bad in ("inv_3", "gen_recipe_2", "Lemon Cod"):
        with pytest.raises(InvalidRefError):
            mark_draft_saved(draft, bad)


def test_discarded_draft_cannot_be_revised_or_saved() -> None:
    """A discarded draft is final."""
    discarded = discard_draft(new_draft("gen_task_1", {"title": "Thaw cod"}, turn=1), turn=2)
    assert (discarded.status, discarded.turn_updated) == ("discarded", 2)
    with pytest.raises(StateError):
        revise_draft(discarded, {"title": "x"}, turn=3)
    with pytest.raises(StateError):
        mark_draft_saved(discarded, "task_1")


def test_draft_round_trips_through_a_dict() -> None:
    """to_dict/from_dict persist a draft exactly."""
    draft = mark_draft_saved(new_draft("gen_meal_2", {"date": "2026-01-12", "meal_type": "supper"}, turn=4), "meal_9")
    assert Draft.from_dict(draft.to_dict()) == draft


TASK_DRAFT = new_draft("gen_task_1", {"title": "Thaw the cod"}, turn=1).to_dict()


@pytest.mark.parametrize(
    "stored",
    [
        pytest.param({"ref": "gen_recipe_1"}, id="missing-keys"),
        pytest.param({**TASK_DRAFT, "ref": "task_1"}, id="not-a-gen-ref"),
        pytest.param({**TASK_DRAFT, "entity_type": "recipe"}, id="type-mismatch"),
        pytest.param({**TASK_DRAFT, "status": "done"}, id="bad-status"),
    ],
)
def test_malformed_stored_draft_is_a_state_error(stored: dict[str, Any]) -> None:
    """Corrupt persisted drafts are reported, not loaded."""
    with pytest.raises(StateError):
        Draft.from_dict(stored)
