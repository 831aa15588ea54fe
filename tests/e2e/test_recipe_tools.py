"""recipes_import, recipes_export and recipes_scale through the real client (2026-07-28; test_era_parity.py proves the 2025-11-25 era answers the same).

Pages come from a loopback site written for these tests (`tests/recipe_site.py`); the round trip
export -> import is checked for every recipe of the demo kitchen, not for one example.
"""

from __future__ import annotations

import dataclasses
import json
import time
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest
from mcp import Client
from mcp.server.auth.middleware.auth_context import auth_context_var
from mcp.server.auth.middleware.bearer_auth import AuthenticatedUser
from mcp.server.auth.provider import AccessToken
from recipe_site import PLAIN_TEXT, SLOW_SECONDS, recipe_site
from stored_ids import ids_shown, stored_ids

from alfred_mcp.app import AlfredApp
from alfred_mcp.config import Settings
from alfred_mcp.operations.fetching import FetchPolicy
from alfred_mcp.server.mcp_server import build_server
from alfred_mcp.server.tools import recipes as recipe_tools

from .helpers import call, call_error, eq

pytestmark = pytest.mark.anyio


@pytest.fixture(scope="module")
def site() -> Iterator[str]:
    with recipe_site() as url:
        yield url


async def _drafts(client: Client) -> int:
    return int((await call(client, "draft_read"))["count"])


async def test_a_yoast_graph_page_becomes_a_recipe_draft(client: Client, site: str) -> None:
    """@graph JSON-LD: name decoded, servings from recipeYield, ISO times, sections flattened, lines parsed, source kept."""
    result = await call(client, "recipes_import", source=f"{site}/lemon-cod")
    assert result["count"] == 1 and result["source"] == {"kind": "url", "url": f"{site}/lemon-cod"}
    draft = result["drafts"][0]
    content = draft["content"]
    assert draft["ref"] == "gen_recipe_1" and draft["status"] == "pending"
    assert content["name"] == "Lemon Garlic Cod & Herbs" and content["description"] == "Flaky cod with lemon."
    assert (content["servings"], content["prep_time_minutes"], content["cook_time_minutes"]) == (4, 10, 15)
    assert content["instructions"][0] == "Heat the oven to 200°C." and len(content["instructions"]) == 4
    assert content["source_url"] == f"{site}/lemon-cod" and content["cuisine"] == "Mediterranean"
    lines = {i["name"]: i for i in content["ingredients"]}
    assert (lines["olive oil"]["quantity"], lines["olive oil"]["unit"]) == (1.5, "tbsp")
    assert (lines["garlic"]["quantity"], lines["garlic"]["unit"], lines["garlic"]["notes"]) == (3, "clove", "minced")
    assert (lines["smoked paprika"]["quantity"], lines["salt"]["quantity"], lines["salt"]["unit"]) == (0.5, 1, "pinch")
    assert lines["fresh parsley"]["is_optional"] is True
    saved = await call(client, "draft_save", refs=["gen_recipe_1"])
    assert saved["saved"] == 1


@pytest.mark.parametrize(
    ("path", "name", "servings", "first"),
    [("/soup.jsonld", "Tomato Soup", 2, ("canned tomatoes", 800, "g")),
     ("/lentils", "Lentil Soup", 6, ("red lentils", 2, "cup")),
     ("/pancakes.txt", "Weeknight Pancakes", 4, ("flour", 1.5, "cup"))],
    ids=["jsonld-list", "microdata", "plain-text"],
)
async def test_every_kind_of_page_imports(client: Client, site: str, path: str, name: str, servings: int, first: tuple[Any, ...]) -> None:
    content = (await call(client, "recipes_import", source=site + path))["drafts"][0]["content"]
    ingredient = content["ingredients"][0]
    assert (content["name"], content["servings"]) == (name, servings)
    assert (ingredient["name"], ingredient["quantity"], ingredient["unit"]) == first


async def test_pasted_text_and_json_ld_import_without_a_url(client: Client) -> None:
    text = await call(client, "recipes_import", source=PLAIN_TEXT)
    assert text["source"] == {"kind": "text"} and text["drafts"][0]["content"]["prep_time_minutes"] == 10
    recipe = {"@context": "https://schema.org", "@type": "Recipe", "name": "Toast", "recipeIngredient": ["2 slices bread"],
              "recipeInstructions": [{"@type": "HowToStep", "text": "Toast."}], "totalTime": "PT5M"}
    pasted = await call(client, "recipes_import", source=json.dumps(recipe))
    content = pasted["drafts"][0]["content"]
    assert (content["total_time_minutes"], content["cook_time_minutes"]) == (5, None)


@pytest.mark.parametrize(
    ("path", "words"),
    [("/about", "is not a recipe page"), ("/huge", "larger than"), ("/photo.png", "image/png"), ("/missing", "HTTP 404")],
    ids=["not-a-recipe", "too-large", "wrong-content-type", "not-found"],
)
async def test_a_source_that_is_not_a_recipe_is_refused_naming_source(client: Client, site: str, path: str, words: str) -> None:
    error = await call_error(client, "recipes_import", source=site + path)
    assert error["code"] == "import_failed" and error["field"] == "source" and words in error["message"]
    assert await _drafts(client) == 0


async def test_pasted_text_without_a_recipe_and_broken_json_are_refused(client: Client) -> None:
    text = await call_error(client, "recipes_import", source="just some thoughts about dinner")
    broken = await call_error(client, "recipes_import", source='{"@type": "Recipe", "name": ')
    assert "Ingredients" in text["message"] and "not valid JSON" in broken["message"]
    assert await _drafts(client) == 0


async def test_redirects_are_followed(client: Client, site: str) -> None:
    result = await call(client, "recipes_import", source=f"{site}/moved")
    assert result["source"]["url"].endswith("/lemon-cod") and result["count"] == 1


async def test_every_demo_recipe_exports_and_imports_back_the_same(client: Client, app: AlfredApp) -> None:
    """schema.org export -> recipes_import gives the same name, description, cuisine, servings, times,
    ingredients, steps, tags and source URL."""
    first = (await call(client, "db_read", table="recipes", limit=1))["rows"][0]["id"]
    await call(client, "db_update", table="recipes", filters=[{"field": "id", "op": "eq", "value": first}],
               data={"source_url": "https://cooking.example/recipes/first"})
    recipes = (await call(client, "db_read", table="recipes", limit=50))["rows"]
    assert len(recipes) >= 8 and any(recipe["source_url"] for recipe in recipes) and any(recipe["cuisine"] for recipe in recipes)
    for recipe in recipes:
        exported = (await call(client, "recipes_export", recipe=recipe["id"]))["content"]
        assert exported["@type"] == "Recipe" and exported["recipeInstructions"][0]["@type"] == "HowToStep"
        draft = (await call(client, "recipes_import", source=json.dumps(exported)))["drafts"][0]["content"]
        rows = (await call(client, "db_read", table="recipe_ingredients", filters=[{"field": "recipe_id", "op": "eq", "value": recipe["id"]}],
                           order_by=[{"field": "position"}], limit=100))["rows"]
        for key in ("name", "description", "cuisine", "servings", "prep_time_minutes", "cook_time_minutes", "instructions", "tags",
                    "source_url"):
            assert draft[key] == (recipe[key] or ([] if key == "tags" else None)), (recipe["name"], key)
        got = [(i["name"], i["quantity"], i["unit"], i["notes"], i["is_optional"]) for i in draft["ingredients"]]
        want = [(r["name"], r["quantity"], r["unit"], r["notes"], r["is_optional"]) for r in rows]
        assert got == want, recipe["name"]


async def test_markdown_export_is_for_people(client: Client) -> None:
    ref = (await call(client, "db_read", table="recipes", limit=1))["rows"][0]["id"]
    text = (await call(client, "recipes_export", recipe=ref, format="markdown"))["content"]
    assert text.startswith("# ") and "## Ingredients" in text and "\n1. " in text


async def test_scaling_uses_sensible_units_and_never_fractional_eggs(client: Client) -> None:
    created = await call(client, "draft_create", entity_type="recipe", items=[{
        "name": "Scale Test", "servings": 6, "instructions": ["Mix."],
        "ingredients": [{"name": "sugar", "quantity": 1, "unit": "tbsp"}, {"name": "eggs", "quantity": 2},
                        {"name": "flour", "quantity": 750, "unit": "g"}, {"name": "salt", "notes": "to taste"}]}])
    saved = await call(client, "draft_save", refs=[created["drafts"][0]["ref"]])
    ref = saved["items"][0]["saved_as"]
    up = {i["name"]: i for i in (await call(client, "recipes_scale", recipe=ref, servings=18))["ingredients"]}
    assert up["sugar"]["text"] == "3 tbsp sugar" and up["flour"]["text"] == "2.25 kg flour"
    down = await call(client, "recipes_scale", recipe=ref, servings=2)
    lines = {i["name"]: i for i in down["ingredients"]}
    assert down["factor"] == pytest.approx(1 / 3, abs=1e-4) and lines["sugar"]["text"] == "1 tsp sugar"
    assert lines["eggs"]["quantity"] == 1 and lines["eggs"]["rounded_from"] == pytest.approx(0.667, abs=1e-3)
    assert lines["eggs"]["text"] == "1 egg"
    assert lines["flour"]["text"] == "250 g flour" and lines["salt"]["quantity"] is None


async def test_scale_refuses_a_recipe_without_servings_and_writes_nothing(client: Client) -> None:
    created = await call(client, "db_create", table="recipes", data={"name": "No Servings"})
    error = await call_error(client, "recipes_scale", recipe=created["rows"][0]["id"], servings=4)
    assert error["field"] == "recipe" and "servings" in error["message"]


@pytest.mark.both_eras  # progress notifications are protocol framing
async def test_a_url_import_reports_progress(client: Client, site: str) -> None:
    seen: list[tuple[float, float | None, str | None]] = []

    async def progress(done: float, total: float | None, message: str | None) -> None:
        seen.append((done, total, message))

    result = await client.call_tool("recipes_import", {"source": f"{site}/lemon-cod"}, progress_callback=progress)
    assert not result.is_error
    assert [(done, total) for done, total, _ in seen] == [(0, 3), (1, 3)] and "fetched" in str(seen[1][2])


async def test_ids_of_the_source_site_come_back_as_given_and_no_row_id_leaks(client: Client, app: AlfredApp, site: str) -> None:
    """A page's own UUIDs (in a name, a step, a URL) are its text: imported, saved and read back as given,
    while no id of a row of ours reaches the client."""
    uuid = "123e4567-e89b-12d3-a456-426614174000"
    recipe = {"@type": "Recipe", "@id": f"https://x.test/{uuid}", "name": f"Soup {uuid}", "url": f"https://x.test/r/{uuid}",
              "recipeIngredient": f"1 cup lentils\n2 cups water ({uuid})", "recipeInstructions": [f"Simmer {uuid}."]}
    imported = await call(client, "recipes_import", source=json.dumps(recipe))
    content = imported["drafts"][0]["content"]
    assert content["name"] == f"Soup {uuid}" and content["source_url"] == f"https://x.test/r/{uuid}" and len(content["ingredients"]) == 2
    saved = await call(client, "draft_save", refs=[imported["drafts"][0]["ref"]])
    (row,) = (await call(client, "db_read", table="recipes", filters=[eq("id", saved["items"][0]["saved_as"])]))["rows"]
    assert (row["name"], row["source_url"], row["instructions"]) == (f"Soup {uuid}", f"https://x.test/r/{uuid}", [f"Simmer {uuid}."])
    assert ids_shown([imported, row], await stored_ids(app)) == []
    error = await call_error(client, "recipes_import", source=f"{site}/{uuid}")
    assert uuid in error["message"] and "404" in error["message"]


def test_the_fetch_limits_are_the_ones_the_readme_states() -> None:
    """README: a 20 s limit (5 s to connect), at most 5 MB, at most 5 redirects (the tests below lower only the time)."""
    policy = FetchPolicy()
    assert (policy.timeout, policy.connect_timeout, policy.max_bytes, policy.max_redirects) == (20.0, 5.0, 5_000_000, 5)
    assert not policy.block_private and policy.allowed_networks == ()


async def test_a_page_slower_than_the_time_limit_is_refused_naming_source(
    client: Client, site: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The site answers after SLOW_SECONDS; with the limit at 0.5 s the import gives up then, names `source`, drafts nothing."""
    served = recipe_tools.fetch_policy
    monkeypatch.setattr(recipe_tools, "fetch_policy", lambda app: dataclasses.replace(served(app), timeout=0.5))
    started = time.monotonic()
    error = await call_error(client, "recipes_import", source=f"{site}/slow")
    elapsed = time.monotonic() - started
    assert error["code"] == "import_failed" and error["field"] == "source"
    assert error["message"] == f"source: {site}/slow did not answer within 0.5 seconds."
    assert elapsed < SLOW_SECONDS - 1, f"the import waited {elapsed:.1f} s for a page it should have given up on"
    assert await _drafts(client) == 0


async def test_five_redirects_are_followed_and_a_sixth_is_refused_naming_source(client: Client, site: str) -> None:
    followed = await call(client, "recipes_import", source=f"{site}/hops/5")
    assert followed["count"] == 1 and followed["source"]["url"] == f"{site}/lemon-cod"
    error = await call_error(client, "recipes_import", source=f"{site}/hops/6")
    assert error["code"] == "import_failed" and error["field"] == "source"
    assert error["message"] == f"source: {site}/hops/6 redirected more than 5 times."
    assert await _drafts(client) == 1  # the draft of the five-redirect import only


@pytest.fixture
async def many_users_client(tmp_path: Path) -> AsyncIterator[Client]:
    """A server serving many users (as over HTTP) whose host allows only 127.0.0.1/32, the recipe site's address.

    The client's requests carry an authenticated token for "alice", as the HTTP transport's auth middleware
    sets it, so the server's own ActingUserMiddleware picks the user.
    """
    app = AlfredApp.from_settings(Settings(db=str(tmp_path / "k.db"), seed_demo=False, check_results=True,
                                           import_allow_networks=("127.0.0.1/32",)))
    server = build_server(app, many_users=True)
    await app.open()
    token = auth_context_var.set(AuthenticatedUser(AccessToken(token="t", client_id="alice", scopes=[], subject="alice")))
    try:
        async with Client(server) as client:
            yield client
    finally:
        auth_context_var.reset(token)
        await app.close()


@pytest.mark.parametrize(
    ("target", "address"),
    [("http://127.0.0.2:{port}/lemon-cod", "127.0.0.2"), ("http://[::1]:{port}/lemon-cod", "::1"),
     ("http://169.254.0.1/lemon-cod", "169.254.0.1"), ("http://10.0.0.1/lemon-cod", "10.0.0.1")],
    ids=["loopback-outside-the-allow-list", "loopback-ipv6", "link-local", "private"],
)
async def test_serving_many_users_a_redirect_to_a_non_public_address_is_refused(
    many_users_client: Client, site: str, target: str, address: str
) -> None:
    """The first address is allowed (the same page imports directly); the address a redirect names is checked
    again before any connection, and refused: the server is not a way into its own network. (Harmless targets:
    if the check ever regressed, the request must not go to a real service such as a cloud metadata endpoint.)"""
    client = many_users_client
    assert (await call(client, "recipes_import", source=f"{site}/lemon-cod"))["count"] == 1
    location = target.format(port=site.rsplit(":", 1)[1])
    error = await call_error(client, "recipes_import", source=f"{site}/to?location={quote(location, safe='')}")
    assert error["code"] == "import_failed" and error["field"] == "source"
    assert f"is a private or loopback address ({address})" in error["message"]
    assert "ALFRED_IMPORT_ALLOW_NETWORKS" in error["message"]
    assert await _drafts(client) == 1


@pytest.mark.parametrize(("servings", "yolks"), [(4, "plus 1 extra yolk"), (8, "plus 2 extra yolks"), (12, "plus 3 extra yolks")])
async def test_an_amount_in_a_lines_notes_scales_with_it(client: Client, servings: int, yolks: str) -> None:
    """The demo carbonara's eggs: '3 large eggs, plus 1 extra yolk' for 4 is three yolks for 12, never a card that contradicts itself."""
    (carbonara,) = (await call(client, "db_read", table="recipes", filters=[eq("name", "Spaghetti Carbonara")]))["rows"]
    scaled = await call(client, "recipes_scale", recipe=carbonara["id"], servings=servings)
    (eggs,) = [line for line in scaled["ingredients"] if line["name"] == "eggs"]
    assert (eggs["text"], eggs["notes"]) == (f"{eggs['quantity']:g} large eggs", yolks)  # the size before the name


@pytest.mark.parametrize("servings", [1, 9, 12])
async def test_every_seed_recipe_scaled_scales_its_steps_or_says_why_they_read_as_written(client: Client, servings: int) -> None:
    """recipes_scale on every demo recipe: its steps come back scaled ('Whisk the egg, yolk' for 1), or the result says
    why they read as written ('The steps name no amount of an ingredient ...'), and an amount left in a scaled step
    is named ('1/4 cup of batter per pancake' is left as written)."""
    recipes = (await call(client, "db_read", table="recipes", limit=50))["rows"]
    assert len(recipes) >= 11
    for recipe in recipes:
        if not recipe.get("instructions") or recipe.get("servings") in (None, servings):
            continue
        scaled = await call(client, "recipes_scale", recipe=recipe["id"], servings=servings)
        assert "steps" in scaled or "read as written" in scaled.get("steps_note", ""), (recipe["name"], scaled.get("steps_note"))
        if recipe["name"] == "Blueberry Oat Pancakes":
            assert "'1/4 cup of batter per pancake' is left as written" in scaled["steps_note"]


async def test_scaling_a_recipe_that_does_not_say_its_servings_names_the_tool_that_sets_them(client: Client) -> None:
    """Cook's QA 2 G4: a draft without servings pointed to db_update, which cannot reach a draft; a saved recipe
    without servings still points to db_update. Nothing is changed either way."""
    draft = (await call(client, "recipes_import", source="Quux Toast\nIngredients\n2 slices bread\n1 tbsp butter\n"
                                                           "Instructions\n1. Toast the bread and butter it."))["drafts"][0]
    assert draft["content"].get("servings") is None
    error = await call_error(client, "recipes_scale", recipe=draft["ref"], servings=4)
    assert error["field"] == "recipe" and "set its servings with draft_revise, then scale" in error["message"]
    saved = (await call(client, "db_create", table="recipes", data={"name": "Quux Loaf", "instructions": ["Bake."]}))["rows"][0]
    error = await call_error(client, "recipes_scale", recipe=saved["id"], servings=4)
    assert error["field"] == "recipe" and "set its servings with db_update, then scale" in error["message"]
