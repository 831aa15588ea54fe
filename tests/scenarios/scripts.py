"""The conversations the scenario tests and the `stage_turns` and `prompt_tokens` benchmarks drive
(stage by stage, and through the bundled loop).

Seed 000's scenarios (§3.1-3.5) and the three conversations of issue 14, each a list of user turns
with the role outputs a capable model would give. An output that needs a ref assigned along the
way is a function of what the client was shown (`Seen.ref`), never of the database.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import date, timedelta
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
    return tool("db_delete", table="recipes", filters=[{"field": "id", "op": "eq", "value": seen.ref("Cajun Cod with Rice", saved=True)}])


def _second(seen: Seen) -> dict[str, Any]:
    return {"referenced_refs": [seen.ref("Cajun Cod with Rice", saved=True)], "processed_message": "delete Cajun Cod with Rice"}


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

# -- issue 24: the conversations a client model drove stage by stage ------------------------------
# Act cannot reach kitchen_undo, recipes_import, shopping_list_from or meal_cooked yet (act-tools widens
# Act's tool lists): undo, import, shopping and cooking are done here with the tools a step has.


def next_weekday(weekday: int) -> str:
    """The date of the next `weekday` (0 Monday ... 6 Sunday) after today, as the role contexts are built."""
    today = date.today()
    return (today + timedelta(days=(weekday - today.weekday() - 1) % 7 + 1)).isoformat()


def read(table: str, *filters: dict[str, Any], **options: Any) -> dict[str, Any]:
    return tool("db_read", table=table, filters=list(filters), **options)


def where(name: str, op: str, value: Any) -> dict[str, Any]:
    return {"field": name, "op": op, "value": value}


INGREDIENT_COLUMNS = ["name", "quantity", "unit", "is_optional", "notes"]


def _tikka_ingredients(seen: Seen) -> dict[str, Any]:
    return read("recipe_ingredients", where("recipe_id", "eq", seen.ref("Chicken Tikka Masala")), columns=INGREDIENT_COLUMNS,
                order_by=[{"field": "position"}])


def _carbonara_ingredients(seen: Seen) -> dict[str, Any]:
    return read("recipe_ingredients", where("recipe_id", "eq", seen.ref("Spaghetti Carbonara")), columns=INGREDIENT_COLUMNS)


READ_RECIPE = Scenario("issue24_read_a_recipes_ingredients", [
    Turn("What goes into the chicken tikka masala?", {
        "understand": [{"constraint_snapshot": {"goal_update": "the tikka masala's ingredients", "goal_subdomain": "recipes"}}],
        "think": [plan("List the tikka masala's ingredients", step("read", "Read the recipe and its ingredients"))],
        "act": [read("recipes", where("name", "ilike", "%tikka%"), columns=["name", "servings"]), _tikka_ingredients,
                done("Read the 14 ingredients of the tikka masala")],
        "reply": [reply("The Chicken Tikka Masala takes 14 ingredients, from the chicken thighs and yogurt to the cilantro to "
                        "finish.", next_step="add what is missing to the list?")],
    }),
    Turn("And what does the carbonara need?", {
        "understand": [lambda seen: {"referenced_refs": [seen.ref("Spaghetti Carbonara")]}],
        "think": [plan("List the carbonara's ingredients", step("read", "Read the carbonara's ingredients"))],
        "act": [_carbonara_ingredients, done("Read the carbonara's 8 ingredients")],
        "reply": [reply("The carbonara needs spaghetti, pancetta, eggs, pecorino and black pepper, among 8 ingredients.")],
    }),
])

SATURDAY = next_weekday(5)
VEGETARIAN_LASAGNA = {"name": "Roasted Vegetable Lasagna", "servings": 6, "cuisine": "italian",
                      "ingredients": [{"name": "lasagna sheets", "quantity": 12, "unit": "piece"},
                                      {"name": "zucchini", "quantity": 2, "unit": "piece"},
                                      {"name": "ricotta", "quantity": 500, "unit": "g"},
                                      {"name": "marinara sauce", "quantity": 3, "unit": "cup"},
                                      {"name": "basil", "quantity": 1, "unit": "bunch", "is_optional": True}],
                      "instructions": ["Roast the vegetables.", "Layer sheets, sauce, vegetables and ricotta.", "Bake 45 minutes."]}

GUESTS = Scenario("issue24_guests_on_saturday", [
    Turn("I'm having 6 friends over for dinner on Saturday, one of them is vegetarian", {
        "understand": [{"constraint_snapshot": {"new_constraints": [constraint("servings", "people", 6),
                                                                    constraint("meal_type", "meal", "dinner"),
                                                                    constraint("days", "days", ["saturday"])],
                                                "goal_update": "a vegetarian-friendly dinner for 6 on Saturday",
                                                "goal_subdomain": "meal_plans"}}],
        "think": [plan("A vegetarian main for 6", step("generate", "Draft a vegetarian main for 6", expected_count=1))],
        "act": [tool("draft_create", entity_type="recipe", items=[VEGETARIAN_LASAGNA]), done("Drafted gen_recipe_1")],
        "reply": [reply("How about a Roasted Vegetable Lasagna for the six of you? It is not saved yet.", next_step="save it?")],
    }),
    Turn("Perfect, save it and put it on Saturday's dinner", {
        "understand": [{"referenced_refs": ["gen_recipe_1"]}],
        "think": [plan("Save the lasagna and plan it for Saturday", step("generate", "Draft Saturday's dinner", "meal_plans",
                                                                          expected_count=1),
                       step("write", "Save the lasagna and the dinner", "meal_plans"))],
        "act": [tool("draft_create", entity_type="meal",
                     items=[{"date": SATURDAY, "meal_type": "dinner", "recipe": "gen_recipe_1", "servings": 6}]),
                done("Drafted gen_meal_1"), tool("draft_save", refs=["gen_meal_1", "gen_recipe_1"]), done("Saved both")],
        "reply": [reply("Saved the Roasted Vegetable Lasagna and put it on Saturday's dinner for 6.")],
    }),
])


def _undo_additions(seen: Seen) -> dict[str, Any]:
    added = [seen.ref("eggs", "shop"), seen.ref("unsalted butter", "shop")]
    return tool("db_delete", table="shopping_list", filters=[where("id", "in", added)])


UNDO = Scenario("issue24_undo_a_change", [
    Turn("Add eggs and unsalted butter to my shopping list", {
        "understand": [{}],
        "think": [plan("Add eggs and butter to the list", step("write", "Add eggs and butter", "shopping"))],
        "act": [tool("db_create", table="shopping_list", data=[{"name": "eggs", "quantity": 12, "unit": "piece"},
                                                                {"name": "unsalted butter", "quantity": 1, "unit": "pack"}]),
                done("Added eggs and unsalted butter")],
        "reply": [reply("Added eggs and unsalted butter to your shopping list.")],
    }),
    Turn("Actually, undo that", {
        "understand": [lambda seen: {"referenced_refs": [seen.ref("eggs", "shop"), seen.ref("unsalted butter", "shop")]}],
        "think": [plan("Take the two items off the list again", step("write", "Remove eggs and butter", "shopping"))],
        "act": [_undo_additions, done("Removed eggs and unsalted butter")],
        "reply": [reply("Done: eggs and unsalted butter are off your shopping list again.")],
    }),
])

TOMATO_SOUP = {"name": "Quick Tomato Soup", "servings": 2,
               "ingredients": [{"name": "canned tomatoes", "quantity": 1, "unit": "can"}, {"name": "onion", "quantity": 1},
                               {"name": "vegetable stock", "quantity": 2, "unit": "cup"}],
               "instructions": ["Soften the onion.", "Add the tomatoes and stock; simmer 20 minutes.", "Blend."]}

IMPORT = Scenario("issue24_import_a_pasted_recipe", [
    Turn("Save this recipe: Quick Tomato Soup. 1 can of tomatoes, 1 onion, 2 cups of vegetable stock. Soften the onion, "
         "add the tomatoes and stock, simmer 20 minutes, blend.", {
        "understand": [{"processed_message": "save the pasted tomato soup recipe"}],
        "think": [plan("Save the pasted recipe", step("generate", "Take the recipe as a draft", expected_count=1),
                       step("write", "Save it"))],
        "act": [tool("draft_create", entity_type="recipe", items=[TOMATO_SOUP]), done("Drafted gen_recipe_1"),
                tool("draft_save", refs=["gen_recipe_1"]), done("Saved it")],
        "reply": [reply("Saved Quick Tomato Soup with its 3 ingredients and 3 steps.")],
    }),
])


def _missing_for_carbonara(seen: Seen) -> dict[str, Any]:
    listed = {rest.split(" (")[0] for _, rest in seen.rows("shop")}
    needed = [rest.split(" (")[0] for _, rest in seen.rows("ri")]
    return tool("db_create", table="shopping_list", data=[{"name": name, "quantity": 1} for name in needed if name not in listed])


SHOPPING = Scenario("issue24_shop_for_a_recipe", [
    Turn("Put what I need for the spaghetti carbonara on my shopping list", {
        "understand": [{"constraint_snapshot": {"goal_update": "shop for the carbonara", "goal_subdomain": "shopping"}}],
        "think": [plan("Shop for the carbonara", step("read", "Read the carbonara's ingredients and the list"),
                       step("write", "Add what is not on the list yet", "shopping"))],
        "act": [read("recipes", where("name", "eq", "Spaghetti Carbonara")), _carbonara_ingredients,
                read("shopping_list", columns=["name", "quantity"], limit=50), done("Read 8 ingredients and the list"),
                _missing_for_carbonara, done("Added what was missing")],
        "reply": [reply("Added the carbonara's missing ingredients to your list; pancetta and pecorino were on it already.")],
    }),
])


def _fajitas(seen: Seen) -> dict[str, Any]:
    return tool("db_create", table="cooking_log", data={"recipe_id": seen.ref("Chicken Fajitas"), "rating": 5, "servings": 4,
                                                        "notes": "great"})


COOKING = Scenario("issue24_log_a_cooked_meal", [
    Turn("I made the chicken fajitas tonight, it was great: 5 stars", {
        "understand": [{"processed_message": "log the fajitas, rated 5"}],
        "think": [plan("Log the fajitas", step("read", "Find the fajitas recipe"), step("write", "Log the cook, 5 stars", "history"))],
        "act": [read("recipes", where("name", "ilike", "%fajitas%"), columns=["name"]), done("Found it"), _fajitas, done("Logged it")],
        "reply": [reply("Logged tonight's Chicken Fajitas with 5 stars.")],
    }),
    Turn("How often have I cooked it?", {
        "understand": [lambda seen: {"referenced_refs": [seen.ref("Chicken Fajitas")]}],
        "think": [plan("Count the fajitas cooks", step("read", "Read the fajitas' log", "history"))],
        "act": [lambda seen: read("cooking_log", where("recipe_id", "eq", seen.ref("Chicken Fajitas")), columns=["rating", "recipe_id"]),
                done("One cook logged")],
        "reply": [reply("Once so far: tonight, rated 5 stars.")],
    }),
])


def _delete_risotto(seen: Seen) -> dict[str, Any]:
    return tool("db_delete", table="recipes", filters=[where("id", "eq", seen.ref("Mushroom Risotto"))])


DELETE_PLANNED = Scenario("issue24_delete_a_planned_recipe", [
    Turn("What's on my meal plan?", {
        "understand": [{"constraint_snapshot": {"goal_update": "review the meal plan", "goal_subdomain": "meal_plans"}}],
        "think": [plan("Show the meal plan", step("read", "Read the planned meals", "meal_plans"))],
        "act": [read("meal_plans", columns=["date", "meal_type", "recipe_id"], order_by=[{"field": "date"}], limit=20),
                done("Read 10 planned meals")],
        "reply": [reply("Ten meals are planned, from the salmon tonight to the baked cod next week.")],
    }),
    Turn("Delete the mushroom risotto recipe", {
        "understand": [lambda seen: {"referenced_refs": [seen.ref("Mushroom Risotto")]}],
        "think": [lambda seen: plan("Delete the risotto", step("write", "Delete Mushroom Risotto",
                                                               batch=[{"ref": seen.ref("Mushroom Risotto")}]))],
        "act": [_delete_risotto, done("Deleted Mushroom Risotto")],
        "reply": [reply("Deleted the Mushroom Risotto; its planned dinner stays on the plan without a recipe.")],
    }),
])

FRIDAY = next_weekday(4)


def _second_chicken(seen: Seen) -> str:
    """'The second one': the second row of the chicken search, as the client was shown it."""
    return seen.rows("recipe")[1][0]


ORDINALS = Scenario("issue24_ordinals_and_that_one", [
    Turn("Show me my chicken recipes", {
        "understand": [{"constraint_snapshot": {"goal_update": "chicken recipes", "goal_subdomain": "recipes"}}],
        "think": [plan("Find chicken recipes", step("read", "Search recipes with chicken"))],
        "act": [tool("recipes_search", ingredient="chicken"), done("Found the chicken recipes")],
        "reply": [reply("You have three chicken recipes: Chicken Fajitas, Chicken Tikka Masala and Greek Lemon Chicken.")],
    }),
    Turn("Tell me more about the second one", {
        "understand": [lambda seen: {"referenced_refs": [_second_chicken(seen)], "processed_message": "details of the second"}],
        "think": [plan("Show the second recipe", step("read", "Read its ingredients"))],
        "act": [lambda seen: read("recipe_ingredients", where("recipe_id", "eq", _second_chicken(seen)), columns=INGREDIENT_COLUMNS),
                done("Read its ingredients")],
        "reply": [reply("Here is what goes into it, with the optional garnish marked.")],
    }),
    Turn("Plan that one for Friday dinner", {
        "understand": [lambda seen: {"referenced_refs": [_second_chicken(seen)]}],
        "think": [plan("Plan it for Friday", step("generate", "Draft Friday's dinner", "meal_plans", expected_count=1),
                       step("write", "Save Friday's dinner", "meal_plans"))],
        "act": [lambda seen: tool("draft_create", entity_type="meal",
                                  items=[{"date": FRIDAY, "meal_type": "dinner", "recipe": _second_chicken(seen)}]),
                done("Drafted gen_meal_1"), tool("draft_save", refs=["gen_meal_1"]), done("Saved Friday's dinner")],
        "reply": [reply("It's on Friday's dinner.")],
    }),
])

NO_DAIRY = Scenario("issue24_a_constraint_noted", [
    Turn("No dairy from now on.", {
        "understand": [{"constraint_snapshot": {"new_constraints": [constraint("ingredient_excluded", "dairy", "dairy")],
                                                "source_phrases": ["no dairy from now on"]}, "nothing_to_do": True}],
        "reply": [reply("Got it: no dairy from now on.", next_step="want ideas without it?")],
    }),
    Turn("What can I cook tonight?", {
        "understand": [{"quick_mode": True, "quick_mode_confidence": 0.9,
                        "quick_read": {"tool": "recipes_makeable", "arguments": {"limit": 5}}}],
        "reply": [reply("A few dairy-free ideas from what you have.")],
    }),
])

SCENARIOS: tuple[Scenario, ...] = (CREATE_AND_SAVE, CATEGORY_SEARCH, AMBIGUOUS, DINNERS, FISH, ALLERGY, READ_RECIPE, GUESTS, UNDO,
                                   IMPORT, SHOPPING, COOKING, DELETE_PLANNED, ORDINALS, NO_DAIRY)


async def drive(stage: StageClient, scenario: Scenario) -> list[TurnLog]:
    """Every turn of `scenario`, in order, stage by stage."""
    return [await stage.turn(turn.message, turn.outputs) for turn in scenario.turns]
