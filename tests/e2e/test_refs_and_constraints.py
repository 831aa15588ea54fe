"""References and constraints as people mean them, through the real `mcp` client and a real SQLite kitchen.

"The first one" counts in the list the user was shown, whatever single rows were read, deleted or restored
since; "that one" is the single thing of the previous turn; "the tacos" prefers the conversation's own.
A constraint about one recipe filters nothing else; the guests' allergies outlive a new goal and are refused
on writes for the occasion (accepted with the override) until the occasion is done. Every test checks the
rows the database holds at the end.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

import pytest
from mcp import Client

from alfred_mcp.app import AlfredApp
from alfred_mcp.kitchen.query import Filter, Query, Where
from alfred_mcp.kitchen.schema import TABLES
from alfred_mcp.operations.entities import NAMED_TABLES
from alfred_mcp.server.dispatch import ERROR_META
from alfred_mcp.server.mcp_server import AlfredServer

from .helpers import call, call_error, eq

pytestmark = pytest.mark.anyio


@pytest.fixture
async def client(server: AlfredServer) -> AsyncIterator[Client]:
    """One protocol era: these tests are about the session's state, not the transport."""
    async with Client(server, mode="auto") as connected:
        yield connected


async def names(app: AlfredApp, table: str) -> list[str]:
    rows = await app.store.select(TABLES[table], Query(limit=500), user_id=app.user_id)
    return sorted(str(row["name"]) for row in rows)


async def resolve_one(client: Client, text: str, **extra: Any) -> dict[str, Any]:
    (mention,) = [m for m in (await call(client, "entity_resolve", text=text, **extra))["mentions"] if m["ref"] or m["candidates"]]
    return mention


# --- ordinals: the last list shown -----------------------------------------------------------------

Step = tuple[str, int]
SEQUENCES: dict[str, list[Step]] = {
    "delete-restore": [("delete", 0), ("restore", 0)],
    "read-delete-restore": [("read", 2), ("delete", 0), ("restore", 0)],
    "delete-restore-read": [("delete", 1), ("restore", 0), ("read", 1)],
    "read-read": [("read", 1), ("read", 2)],
    "delete-the-last": [("delete", 2)],
    "delete-read-restore": [("delete", 0), ("read", 2), ("restore", 0)],
}


@pytest.mark.parametrize("table", ["recipes", "inventory", "shopping_list"])
@pytest.mark.parametrize("steps", list(SEQUENCES.values()), ids=list(SEQUENCES))
async def test_the_first_one_counts_in_the_last_list_shown(client: Client, app: AlfredApp, table: str, steps: list[Step]) -> None:
    """A list of three is shown; single rows are read, deleted and restored in later turns; 'the first one' is
    still the list's first row, and deleting it removes exactly that row."""
    await call(client, "turn_begin", message=f"show me three {table}")
    listed = (await call(client, "db_read", table=table, order_by=[{"field": "name", "direction": "asc"}], limit=3))["rows"]
    refs, labels = [row["id"] for row in listed], [row["name"] for row in listed]
    gone: set[int] = set()
    deleted_in = 0
    for action, index in steps:
        turn = (await call(client, "turn_begin", message=f"{action} that"))["turn"]
        if action == "read":
            await call(client, "db_read", table=table, filters=[eq("id", refs[index])])
        elif action == "delete":
            await call(client, "db_delete", table=table, filters=[eq("id", refs[index])])
            gone.add(index)
            deleted_in = turn
        else:
            await call(client, "kitchen_undo", turn=deleted_in)  # named: a read turn may come between (undo_that tests)
            gone.clear()
    await call(client, "turn_begin", message="delete the first one")
    first = await resolve_one(client, "delete the first one")
    last = (await call(client, "entity_resolve", text="and the last one"))["mentions"]
    assert first["ref"] == refs[0] and first["resolution"] == "fuzzy"
    if 2 in gone:
        assert last[0]["ref"] is None and last[0]["resolution"] == "unresolved", "a row gone from the list is never shifted"
    else:
        assert last[0]["ref"] == refs[2]
    before = await names(app, table)
    await call(client, "db_delete", table=table, filters=[eq("id", first["ref"])])
    after = await names(app, table)
    assert labels[0] in before and sorted(before) == sorted([*after, labels[0]])


# --- "that one": the single thing of the previous turn ------------------------------------------------

Single = Callable[[Client, str], Awaitable[Any]]
SINGLE_TURNS: dict[str, Single] = {
    "recipe_show": lambda client, ref: call(client, "recipe_show", recipe=ref),
    "db_read-one": lambda client, ref: call(client, "db_read", table="recipes", filters=[eq("id", ref)]),
    "db_update-one": lambda client, ref: call(client, "db_update", table="recipes", filters=[eq("id", ref)], data={"difficulty": "easy"}),
}


@pytest.mark.parametrize("pronoun", ["make that one spicier", "make it spicier", "make this recipe spicier"])
@pytest.mark.parametrize("single", list(SINGLE_TURNS.values()), ids=list(SINGLE_TURNS))
async def test_that_one_is_the_recipe_the_previous_turn_showed(client: Client, app: AlfredApp, single: Single, pronoun: str) -> None:
    await call(client, "turn_begin", message="what recipes do I have?")
    listed = (await call(client, "db_read", table="recipes", order_by=[{"field": "name", "direction": "asc"}], limit=5))["rows"]
    chosen = listed[3]
    await call(client, "turn_begin", message=f"tell me about {chosen['name']}")
    await single(client, chosen["id"])
    await call(client, "turn_begin", message=pronoun)
    mention = await resolve_one(client, pronoun)
    assert (mention["ref"], mention["confidence"]) == (chosen["id"], "high")
    await call(client, "db_update", table="recipes", filters=[eq("id", mention["ref"])], data={"flavor_tags": ["spicy"]})
    spicy = await app.store.select(TABLES["recipes"], Query(where=Where(all_of=(Filter("name", "eq", chosen["name"]),))), user_id=app.user_id)
    assert [row["flavor_tags"] for row in spicy] == [["spicy"]]


async def test_that_one_after_a_turn_that_showed_a_list_is_a_question(client: Client) -> None:
    await call(client, "turn_begin", message="what recipes do I have?")
    listed = (await call(client, "db_read", table="recipes", limit=3))["rows"]
    await call(client, "turn_begin", message="make that one spicier")
    mention = await resolve_one(client, "make that one spicier")
    assert mention["ref"] is None and [c["ref"] for c in mention["candidates"]] == [row["id"] for row in listed]


# --- "the tacos": the conversation's own ---------------------------------------------------------------

TACO = {"name": "Fish Tacos", "cuisine": "mexican", "difficulty": "easy", "servings": 2, "prep_time_minutes": 10,
        "cook_time_minutes": 10, "ingredients": [{"name": "cod fillet", "quantity": 2, "unit": "fillet"},
                                                 {"name": "corn tortillas", "quantity": 6, "unit": "piece"}],
        "instructions": ["Cook the fish.", "Fill the tortillas."]}


async def made_by_draft(client: Client, app: AlfredApp) -> None:
    await call(client, "draft_create", entity_type="recipe", items=[TACO])
    await call(client, "draft_save", refs=["gen_recipe_1"])


async def made_by_create(client: Client, app: AlfredApp) -> None:
    await call(client, "db_create", table="recipes", data={"name": "Fish Tacos", "instructions": ["Cook."]})


async def planned_only(client: Client, app: AlfredApp) -> None:
    await app.store.insert(TABLES["recipes"], [{"name": "Fish Tacos", "instructions": ["Cook."]}], user_id=app.user_id)
    (row,) = (await call(client, "db_read", table="recipes", filters=[eq("name", "Fish Tacos")]))["rows"]
    await call(client, "db_create", table="meal_plans", data={"date": "2026-04-02", "meal_type": "dinner", "recipe_id": row["id"]})


@pytest.mark.parametrize("made", [made_by_draft, made_by_create, planned_only], ids=["imported-and-saved", "created", "planned"])
@pytest.mark.parametrize("text", ["plan the tacos for friday", "the taco one"])
async def test_the_tacos_prefers_the_conversations_own(
    client: Client, app: AlfredApp, made: Callable[[Client, AlfredApp], Awaitable[None]], text: str,
) -> None:
    """Two taco recipes in view, one made, saved or planned in this conversation: 'the tacos' is that one."""
    await app.store.insert(TABLES["recipes"], [{"name": "Beef Tacos", "instructions": ["Brown the beef."]}], user_id=app.user_id)
    await call(client, "turn_begin", message="bring in my fish tacos")
    await made(client, app)
    await call(client, "turn_begin", message="which tacos do I have?")
    both = (await call(client, "db_read", table="recipes", filters=[{"field": "name", "op": "ilike", "value": "%tacos%"}]))["rows"]
    own = next(row["id"] for row in both if row["name"] == "Fish Tacos")
    await call(client, "turn_begin", message=text)
    mention = await resolve_one(client, text, entity_type="recipe")
    assert (mention["ref"], mention["confidence"]) == (own, "high")
    await call(client, "db_create", table="meal_plans", data={"date": "2026-04-03", "meal_type": "dinner", "recipe_id": mention["ref"]})
    plans = await app.store.select(TABLES["meal_plans"], Query(where=Where(all_of=(Filter("date", "eq", "2026-04-03"),))), user_id=app.user_id)
    recipes = {row["id"]: row["name"] for row in await app.store.select(TABLES["recipes"], Query(limit=500), user_id=app.user_id)}
    assert [recipes[row["recipe_id"]] for row in plans] == ["Fish Tacos"]


async def test_the_fish_is_a_filter_not_an_answer(client: Client) -> None:
    await call(client, "turn_begin", message="fish recipes?")
    await call(client, "recipes_search", category="fish")
    await call(client, "turn_begin", message="the fish one")
    mention = await resolve_one(client, "the fish one")
    assert mention["ref"] is None and mention["resolution"] == "ambiguous" and len(mention["candidates"]) >= 2


# --- a constraint about one recipe ----------------------------------------------------------------------

@pytest.mark.parametrize("tool", ["recipes_makeable", "recipes_search"])
async def test_a_one_recipe_constraint_does_not_filter_the_next_search(client: Client, app: AlfredApp, tool: str) -> None:
    """'Make the carbonara dairy-free' (about it), then 'what can I cook tonight?': nothing is excluded for
    dairy; the same constraint stated goal-wide would exclude the recipes with cheese."""
    await call(client, "turn_begin", message="show me the carbonara")
    (carbonara,) = (await call(client, "db_read", table="recipes", filters=[eq("name", "Spaghetti Carbonara")]))["rows"]
    dairy = {"type": "ingredient_excluded", "field": "diet", "value": "dairy"}
    await call(client, "turn_begin", message="make it dairy-free")
    submitted = await call(client, "understanding_submit", referenced_refs=[carbonara["id"]], constraint_snapshot={
        "new_constraints": [{**dairy, "about": carbonara["id"]}], "goal_update": "a dairy-free carbonara", "goal_subdomain": "recipes"})
    assert "dairy" not in [item["value"] for item in submitted["constraints"]["must_exclude"]]
    assert submitted["constraints"]["about"] == {carbonara["id"]: ["exclude dairy"]}
    await call(client, "turn_begin", message="what can I cook tonight?")
    arguments: dict[str, Any] = {"limit": 20} if tool == "recipes_makeable" else {"category": "pasta"}
    scoped = await call(client, tool, **arguments)
    assert not [e for e in scoped["excluded"] if "dairy" in str(e)]
    await call(client, "understanding_submit", constraint_snapshot={"new_constraints": [dairy]})
    wide = await call(client, tool, **arguments)
    assert [e for e in wide["excluded"] if "dairy" in str(e)], "the goal-wide exclusion does filter"
    assert "Spaghetti Carbonara" in await names(app, "recipes")


async def test_a_constraint_about_an_unknown_ref_is_refused_and_changes_nothing(client: Client) -> None:
    before = await call(client, "constraints_read")
    error = await call_error(client, "understanding_submit", constraint_snapshot={
        "new_constraints": [{"type": "ingredient_excluded", "field": "diet", "value": "dairy", "about": "recipe_999"}]})
    assert "constraint_snapshot.new_constraints[0].about" in error["message"]
    assert (await call(client, "constraints_read"))["constraints"] == before["constraints"]


# --- the guests' allergies --------------------------------------------------------------------------------

GUESTS = {"occasion_update": "Saturday dinner, 6 guests", "goal_update": "a menu for Saturday", "goal_subdomain": "recipes",
          "new_constraints": [{"type": "allergy", "field": "guests", "value": ["shellfish", "sesame"], "lifetime": "occasion"},
                              {"type": "servings", "field": "people", "value": 6, "lifetime": "occasion"}]}
OVERRIDE = {"allergens": ["shellfish"], "reason": "the guest with the allergy cancelled; the host confirmed"}
SHRIMP = {**TACO, "name": "Garlic Shrimp", "ingredients": [{"name": "shrimp", "quantity": 300, "unit": "g"}]}


async def write_shopping(client: Client, override: dict[str, Any] | None) -> dict[str, Any]:
    extra = {"allergy_override": override} if override else {}
    return await client_call(client, "db_create", table="shopping_list", data={"name": "shrimp"}, **extra)


async def write_rename(client: Client, override: dict[str, Any] | None) -> dict[str, Any]:
    (row,) = (await call(client, "db_read", table="recipes", filters=[eq("name", "Spaghetti Carbonara")]))["rows"]
    extra = {"allergy_override": override} if override else {}
    return await client_call(client, "db_update", table="recipes", filters=[eq("id", row["id"])], data={"name": "Shrimp Carbonara"}, **extra)


async def write_draft(client: Client, override: dict[str, Any] | None) -> dict[str, Any]:
    drafts = (await call(client, "draft_read"))["drafts"] if override else []
    ref = next((d["ref"] for d in drafts if d.get("status") == "pending"), None)
    if ref is None:
        ref = (await call(client, "draft_create", entity_type="recipe", items=[SHRIMP]))["drafts"][0]["ref"]
    extra = {"allergy_override": override} if override else {}
    return await client_call(client, "draft_save", refs=[ref], policy="all_or_nothing", **extra)


async def client_call(client: Client, tool: str, **arguments: Any) -> dict[str, Any]:
    """The tool's result, or its error (code, message) when it refused."""
    result = await client.call_tool(tool, arguments)
    if result.is_error:
        return {"error": dict((result.meta or {})[ERROR_META])}
    assert result.structured_content is not None
    return dict(result.structured_content)


WRITES = {"db_create-shopping": (write_shopping, "shopping_list", "shrimp"),
          "db_update-recipe": (write_rename, "recipes", "Shrimp Carbonara"),
          "draft_save-recipe": (write_draft, "recipes", "Garlic Shrimp")}


@pytest.mark.parametrize(("write", "table", "name"), list(WRITES.values()), ids=list(WRITES))
async def test_the_guests_shellfish_survives_a_new_goal_and_is_refused_on_writes(
    client: Client, app: AlfredApp, write: Callable[[Client, dict[str, Any] | None], Awaitable[dict[str, Any]]], table: str, name: str,
) -> None:
    await call(client, "turn_begin", message="six friends on Saturday, one is allergic to shellfish, another to sesame")
    await call(client, "understanding_submit", constraint_snapshot=GUESTS)
    await call(client, "turn_begin", message="now the shopping list")
    moved = await call(client, "understanding_submit", constraint_snapshot={"goal_update": "the shopping", "goal_subdomain": "shopping"})
    assert moved["reset_reason"] == "new_subdomain"
    assert moved["constraints"]["guest_allergies"] == ["sesame", "shellfish"] and moved["constraints"]["servings"] == 6
    assert moved["constraints"]["replaced"].startswith("Ended goal 'a menu for Saturday' (a new goal area)")
    assert "- Occasion (lasts until done): Saturday dinner, 6 guests" in (await call(client, "constraints_read"))["markdown"]
    before = await names(app, table)
    refused = await write(client, None)
    assert refused["error"]["code"] == "allergen_conflict", refused
    assert "the guests (Saturday dinner, 6 guests) are allergic to shellfish" in refused["error"]["message"]
    assert await names(app, table) == before, "a refused write writes nothing"
    accepted = await write(client, OVERRIDE)
    assert "error" not in accepted, accepted
    assert name in await names(app, table)


async def test_the_occasion_done_ends_the_guests_allergies(client: Client, app: AlfredApp) -> None:
    await call(client, "understanding_submit", constraint_snapshot=GUESTS)
    assert (await write_shopping(client, None))["error"]["code"] == "allergen_conflict"
    await call(client, "turn_begin", message="the party is over")
    done = await call(client, "understanding_submit", constraint_snapshot={"occasion_done": True})
    assert done["constraints"]["guest_allergies"] == [] and done["constraints"]["occasion"] is None
    assert "error" not in await write_shopping(client, None)
    assert "shrimp" in await names(app, "shopping_list")


async def test_a_name_is_looked_up_in_every_table_people_name(client: Client) -> None:
    """'the quuxberries': a recipe, a pantry item, a shopping line and a task of that name, none seen in this session,
    are each a candidate (egg: the pantry's eggs were left out when only recipes were searched)."""
    other = (await call(client, "session_start"))["session"]
    for table in NAMED_TABLES:
        (column,) = table.label_columns
        required = [c for c in table.writable_columns if c.required_on_create and c.name != column]
        row = {column: "quuxberry", **{c.name: c.enum[0] if c.enum else {"int": 2, "numeric": 2}.get(c.type, "x") for c in required}}
        await call(client, "db_create", table=table.name, data=row, session=other)
    (mention,) = (await call(client, "entity_resolve", text="the quuxberries"))["mentions"]
    kinds = {candidate["ref"].rsplit("_", 1)[0] for candidate in mention["candidates"]}
    assert mention["ref"] is None and kinds == {table.entity_type for table in NAMED_TABLES}
