"""The conversations the scenario tests and the `stage_turns` and `prompt_tokens` benchmarks drive
(stage by stage, and through the bundled loop).

Seed 000's scenarios (§3.1-3.5) and the three conversations of issue 14, each a list of user turns
with the role outputs a capable model would give. An output that needs a ref assigned along the
way is a function of what the client was shown (`Seen.ref`), never of the database.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from .driver import Output, Seen, StageClient, TurnLog

TURN_BYTES_BUDGET = 24_000
"""Every stage-by-stage turn of these scenarios returns at most this many bytes to the model (the first
turn of a session included: it carries the instructions and output schemas)."""
TURN_CALLS_BUDGET = 14
READ_TURN_BYTES_BUDGET = 8_000
"""A one-step read turn after a session's first returns at most this many bytes ..."""
READ_TURN_CALLS_BUDGET = 6
"""... in at most this many calls: turn_start and one turn_submit per role output."""


@dataclass(frozen=True)
class Turn:
    message: str
    outputs: dict[str, list[Output]]

    @property
    def calls(self) -> int:
        """The calls of a client that follows the answers: turn_start, then one turn_submit per role output."""
        return 1 + sum(len(items) for items in self.outputs.values())

    @property
    def steps(self) -> int:
        """The steps of the longest plan the turn's Think outputs give (0: no plan)."""
        plans = [out for out in self.outputs.get("think", []) if isinstance(out, dict)]
        return max((len(p.get("steps", [])) for p in plans), default=1 if self.outputs.get("think") else 0)

    @property
    def one_step_read(self) -> bool:
        """Whether the plan is a single read step (the plan the targets of issue 24 name)."""
        plans = [out for out in self.outputs.get("think", []) if isinstance(out, dict)]
        return len(plans) == 1 and [s["step_type"] for s in plans[0].get("steps", [])] == ["read"]


@dataclass(frozen=True)
class Scenario:
    name: str
    turns: Sequence[Turn] = field(default_factory=tuple)


def act(decision: dict[str, Any]) -> dict[str, Any]:
    return {"decision": decision}


def tool(name: str, **arguments: Any) -> dict[str, Any]:
    return act({"action": "tool_call", "tool": name, "arguments": arguments})


def done(summary: str) -> dict[str, Any]:
    return act({"action": "step_complete", "result_summary": summary})


def reply(text: str, *, tone: str = "warm", expressed: str | None = None, next_step: str | None = None) -> dict[str, Any]:
    out: dict[str, Any] = {"response": text, "tone": tone}
    if expressed:
        out["user_expressed"] = expressed
    if next_step:
        out["next_step"] = next_step
    return out


def constraint(kind: str, name: str, value: Any) -> dict[str, Any]:
    return {"type": kind, "field": name, "value": value}


def plan(goal: str, *steps: dict[str, Any]) -> dict[str, Any]:
    return {"goal": goal, "decision": "plan_direct", "steps": list(steps)}


def step(kind: str, description: str, subdomain: str = "recipes", **extra: Any) -> dict[str, Any]:
    return {"description": description, "step_type": kind, "subdomain": subdomain, **extra}


def recipe(name: str, protein: str, *extra: str, parent: str | None = None, minutes: int | str = 12) -> dict[str, Any]:
    """A whole generated recipe, as a model hands it over."""
    parts = [{"name": f"{protein}", "quantity": 2, "unit": "fillet"}, {"name": "jasmine rice", "quantity": 1, "unit": "cup"},
             {"name": "olive oil", "quantity": 1, "unit": "tbsp"}, {"name": "lemon", "quantity": 1, "unit": "piece"},
             {"name": "garlic", "quantity": 2, "unit": "clove", "notes": "minced"},
             *({"name": item, "quantity": 1, "unit": "tsp"} for item in extra)]
    out: dict[str, Any] = {"name": name, "cuisine": "mediterranean", "difficulty": "easy", "servings": 2,
                           "prep_time_minutes": 10, "cook_time_minutes": minutes, "equipment_tags": ["air-fryer"],
                           "ingredients": parts, "instructions": ["Season the fish.", "Air-fry at 200C.", "Serve on the rice."]}
    if parent:
        out["parent_recipe"] = parent
    return out


# -- seed 000 §3.1 and §3.2: "Create 3 fish recipes and save them" --------------------------------

THREE_FISH = [recipe("Lemon Pepper Cod", "cod fillet", "black pepper"), recipe("Herb Salmon", "salmon fillet", "dill"),
              recipe("Chili Lime Tilapia", "tilapia fillet", "chili flakes", "lime zest")]
CREATE_AND_SAVE = Scenario("seed000_create_3_fish_and_save", [
    Turn("Create 3 fish recipes and save them", {
        "understand": [{"constraint_snapshot": {"new_constraints": [constraint("ingredient_required", "protein", "fish")],
                                                "goal_update": "3 fish recipes, saved", "goal_subdomain": "recipes"},
                        "processed_message": "create and save 3 fish recipes"}],
        "think": [plan("Create and save 3 fish recipes",
                       step("generate", "Generate 3 fish recipes", expected_count=3), step("write", "Save the 3 recipes"))],
        "act": [tool("draft_create", entity_type="recipe", items=THREE_FISH), done("Generated gen_recipe_1..3"),
                tool("draft_save", refs=["gen_recipe_1", "gen_recipe_2", "gen_recipe_3"]), done("Saved all 3")],
        "reply": [reply("Saved three fish recipes: Lemon Pepper Cod, Herb Salmon and Chili Lime Tilapia.",
                        next_step="plan them into the week?")],
    }),
])

# -- seed 000 §3.4: "Show me fish recipes" (category search) -----------------------------------------

CATEGORY_SEARCH = Scenario("seed000_fish_category_search", [
    Turn("Show me fish recipes", {
        "understand": [{"constraint_snapshot": {"goal_update": "browse fish recipes", "goal_subdomain": "recipes"}}],
        "think": [plan("Find fish recipes", step("read", "Search recipes in the fish category"))],
        "act": [tool("recipes_search", category="fish"), done("Found the fish recipes: cod and salmon")],
        "reply": [reply("Your fish recipes: Lemon Garlic Baked Cod, Air-Fryer Lemon Garlic Cod and Miso-Glazed Salmon "
                        "with Bok Choy.", next_step="want one for tonight?")],
    }),
])

# -- seed 000 §3.5: "What can I make?" (ambiguous: clarify, act on nothing) -------------------------

AMBIGUOUS = Scenario("seed000_what_can_i_make", [
    Turn("What can I make?", {
        "understand": [{}],
        "think": [{"goal": "Suggest something to cook", "decision": "clarify",
                   "clarification_questions": ["For which meal, and for how many people?"]}],
    }),
    Turn("Dinner for two, with what I have", {
        "understand": [{"constraint_snapshot": {"new_constraints": [constraint("meal_type", "meal", "dinner"),
                                                                    constraint("servings", "people", 2)]}}],
        "think": [plan("Dinner from the pantry", step("read", "Rank recipes by pantry coverage"))],
        "act": [tool("recipes_makeable", limit=5), done("Ranked the recipes the pantry covers")],
        "reply": [reply("With what you have, the Red Lentil Soup and the Mushroom Risotto are closest; each needs one or two "
                        "things.", expressed="dinner for two from the pantry", next_step="add what is missing to the list?")],
    }),
])

# -- issue 14, conversation 1: plan 3 days of dinners -----------------------------------------------


def _meals(seen: Seen) -> dict[str, Any]:
    chosen = [seen.ref("Chicken Fajitas"), seen.ref("Greek Lemon Chicken and Potatoes"), seen.ref("Spaghetti Carbonara")]
    items = [{"date": f"2026-02-0{n + 2}", "meal_type": "dinner", "recipe": ref, "servings": 3} for n, ref in enumerate(chosen)]
    return tool("draft_create", entity_type="meal", items=items)


def _chosen(seen: Seen) -> dict[str, Any]:
    refs = [seen.ref("Chicken Fajitas"), seen.ref("Greek Lemon Chicken and Potatoes"), seen.ref("Spaghetti Carbonara")]
    return {"referenced_refs": refs, "processed_message": "plan the two chicken recipes and the pasta"}


def _no_cod(seen: Seen) -> dict[str, Any]:
    cod = [seen.ref("Lemon Garlic Baked Cod"), seen.ref("Air-Fryer Lemon Garlic Cod")]
    return {"curation": {"demote": cod, "curation_summary": "no cod this week"},
            "constraint_snapshot": {"new_constraints": [constraint("ingredient_excluded", "protein", "cod"),
                                                        constraint("meal_type", "meal", "dinner")]}}


DINNERS = Scenario("issue14_three_days_of_dinners", [
    Turn("Plan 3 days of dinners", {
        "understand": [{"constraint_snapshot": {"new_constraints": [constraint("days", "days", 3)],
                                                "goal_update": "3 days of dinners", "goal_subdomain": "meal_plans"}}],
        "think": [plan("Offer dinner options for 3 days",
                       step("read", "Read the saved recipes"), step("analyze", "Pick dinner-friendly options"))],
        "act": [tool("db_read", table="recipes", columns=["name", "cuisine", "servings"], limit=20), done("Read the recipes"),
                done("Dinner options: all 11 recipes except the pancakes")],
        "reply": [reply("Here are your dinner options: the two cod recipes, Miso-Glazed Salmon, Chicken Tikka Masala, Greek "
                        "Lemon Chicken, Chicken Fajitas, the tacos, Mushroom Risotto, Red Lentil Soup and Spaghetti Carbonara.",
                        expressed="3 days of dinners", next_step="narrow them down?")],
    }),
    Turn("Dinners only, and no cod this week", {
        "understand": [_no_cod],
        "think": [plan("Narrow the options without cod", step("analyze", "Drop the cod recipes from the options"))],
        "act": [done("Options without cod: the chicken recipes, salmon, tacos, risotto, soup and carbonara")],
        "reply": [reply("Got it, no cod. That leaves the chicken recipes, the salmon, the tacos, the risotto, the soup and the "
                        "carbonara.", expressed="no cod this week", next_step="pick three?")],
    }),
    Turn("Go with the chicken and pasta ones", {
        "understand": [_chosen],
        "think": [plan("Plan 3 dinners: the two chicken recipes and the carbonara",
                       step("generate", "Draft 3 dinner entries", "meal_plans", expected_count=3),
                       step("write", "Save the 3 dinners", "meal_plans"))],
        "act": [_meals, done("Drafted 3 dinners"), tool("draft_save", refs=["gen_meal_1", "gen_meal_2", "gen_meal_3"]),
                done("Saved the 3 dinners")],
        "reply": [reply("Planned: Chicken Fajitas on Monday, Greek Lemon Chicken on Tuesday and Spaghetti Carbonara on "
                        "Wednesday, all saved.", expressed="the chicken and pasta ones", next_step="a shopping list for them?")],
    }),
])

# -- issue 14, conversation 2 (and seed 000 §3.3): fish for the air fryer ... delete the second ------

VARIATIONS = [recipe("Air-Fryer Cod with Rice", "cod fillet", "paprika"),
              recipe("Cajun Cod with Rice", "cod fillet", "cajun seasoning", parent="gen_recipe_1"),
              recipe("Miso Cod with Rice", "cod fillet", "white miso", parent="gen_recipe_1", minutes="15 min")]


def _delete_second(seen: Seen) -> dict[str, Any]:
    return tool("db_delete", table="recipes", filters=[{"field": "id", "op": "eq", "value": seen.ref("Cajun Cod with Rice")}])


def _second(seen: Seen) -> dict[str, Any]:
    return {"referenced_refs": [seen.ref("Cajun Cod with Rice")], "processed_message": "delete Cajun Cod with Rice"}


FISH = Scenario("issue14_fish_cod_rice_variations", [
    Turn("I want fish recipes for the air fryer", {
        "understand": [{"constraint_snapshot": {"new_constraints": [constraint("ingredient_required", "protein", "fish"),
                                                                    constraint("equipment", "appliance", "air-fryer")],
                                                "goal_update": "air-fryer fish recipes", "goal_subdomain": "recipes"}}],
        "think": [plan("Find air-fryer fish recipes", step("read", "Search fish recipes for the air fryer"))],
        "act": [tool("recipes_search", category="fish", equipment="air-fryer"), done("Found Air-Fryer Lemon Garlic Cod")],
        "reply": [reply("You have one: Air-Fryer Lemon Garlic Cod.", next_step="new ones?")],
    }),
    Turn("Use cod, and serve it with rice", {
        "understand": [{"constraint_snapshot": {"new_constraints": [constraint("ingredient_required", "protein", "cod"),
                                                                    constraint("ingredient_required", "side", "rice")]}}],
        "think": [{"goal": "Cod with rice for the air fryer", "decision": "propose",
                   "proposal_message": "Shall I create a few air-fryer cod recipes served with rice?"}],
    }),
    Turn("Make 3 variations", {
        "understand": [{"processed_message": "3 variations of air-fryer cod with rice"}],
        "think": [plan("3 variations of air-fryer cod with rice", step("generate", "Generate a base and 2 variations",
                                                                       expected_count=3))],
        "act": [tool("draft_create", entity_type="recipe", items=VARIATIONS[:1]),
                tool("draft_create", entity_type="recipe", items=VARIATIONS[1:]), done("Generated gen_recipe_1..3")],
        "reply": [reply("Three ideas, not saved yet: Air-Fryer Cod with Rice, and two variations of it, Cajun Cod with Rice "
                        "and Miso Cod with Rice.", next_step="save them?")],
    }),
    Turn("Save all 3", {
        "understand": [{"referenced_refs": ["gen_recipe_1", "gen_recipe_2", "gen_recipe_3"]}],
        "think": [plan("Save the 3 recipes", step("write", "Save gen_recipe_1..3", batch=[
            {"ref": "gen_recipe_1"}, {"ref": "gen_recipe_2"}, {"ref": "gen_recipe_3"}]))],
        "act": [tool("draft_save", refs=["gen_recipe_3", "gen_recipe_2", "gen_recipe_1"]), done("Saved all 3")],
        "reply": [reply("All three are saved: Air-Fryer Cod with Rice, Cajun Cod with Rice and Miso Cod with Rice.")],
    }),
    Turn("Delete the second one", {
        "understand": [_second],
        "think": [lambda seen: plan("Delete Cajun Cod with Rice", step("write", "Delete the second recipe",
                                                                      batch=[{"ref": seen.ref("Cajun Cod with Rice")}]))],
        "act": [_delete_second, done("Deleted it")],
        "reply": [reply("Deleted Cajun Cod with Rice; the other two stay.")],
    }),
])

# -- issue 14, conversation 3: allergies are inviolable --------------------------------------------

SCAMPI = {"name": "Garlic Shrimp Scampi", "servings": 2,
          "ingredients": [{"name": "shrimp", "quantity": 12, "unit": "oz"}, {"name": "linguine", "quantity": 8, "unit": "oz"},
                          {"name": "garlic", "quantity": 4, "unit": "clove"}, {"name": "butter", "quantity": 2, "unit": "tbsp"}],
          "instructions": ["Boil the pasta.", "Saute the shrimp with garlic and butter.", "Toss together."]}
PREFERENCES_ALL = {"table": "preferences", "all": True}

ALLERGY = Scenario("issue14_shellfish_allergy_and_black_pepper", [
    Turn("I'm allergic to shellfish", {
        "understand": [{"processed_message": "record a shellfish allergy"}],
        "think": [plan("Record the shellfish allergy", step("write", "Add shellfish to the allergies", "preferences"))],
        "act": [tool("db_update", **PREFERENCES_ALL, data={"allergies": ["shellfish"]}),  # refused: it would drop peanuts
                tool("db_update", **PREFERENCES_ALL, data={"allergies": {"add": ["shellfish"]}}), done("Allergies: peanuts, shellfish")],
        "reply": [reply("Noted: shellfish is now on your allergy list, next to peanuts.", next_step="anything else to avoid?")],
    }),
    Turn("Add black pepper to my list", {
        "understand": [{}],
        "think": [plan("Add black pepper to the shopping list", step("write", "Add black pepper", "shopping"))],
        "act": [tool("db_create", table="shopping_list", data={"name": "black pepper", "quantity": 1, "unit": "jar"}),
                done("Added black pepper")],
        "reply": [reply("Added black pepper to your shopping list.")],
    }),
    Turn("Make me a shrimp scampi and save it", {
        "understand": [{}],
        "think": [plan("Make and save a shrimp scampi", step("generate", "Draft the scampi", expected_count=1),
                       step("write", "Save the scampi")),
                  {"goal": "Offer a shellfish-free scampi", "decision": "propose",
                   "proposal_message": "You're allergic to shellfish, so I can't save a shrimp scampi. Shall I make a "
                                       "chicken scampi instead?"}],
        "act": [tool("draft_create", entity_type="recipe", items=[SCAMPI]), done("Drafted gen_recipe_1"),
                tool("draft_save", refs=["gen_recipe_1"]),  # refused: shrimp is shellfish
                act({"action": "blocked", "reason_code": "plan_invalid",
                     "reason": "The user is allergic to shellfish; a shrimp recipe cannot be saved."})],
    }),
])

SCENARIOS: tuple[Scenario, ...] = (CREATE_AND_SAVE, CATEGORY_SEARCH, AMBIGUOUS, DINNERS, FISH, ALLERGY)


async def drive(stage: StageClient, scenario: Scenario) -> list[TurnLog]:
    """Every turn of `scenario`, in order, stage by stage."""
    return [await stage.turn(turn.message, turn.outputs) for turn in scenario.turns]
