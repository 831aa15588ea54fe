"""meal_cooked without servings logs what the meal was for, as meal plans do: the meal's planned servings, else the
household's (the profile's adults and kids), else the recipe's as written; `servings_from` says which. Given servings
are logged as given. (Real client, real SQLite, the demo kitchen; households generated.)"""

from __future__ import annotations

from typing import Any

import pytest
from mcp import Client

from .helpers import call, eq

pytestmark = pytest.mark.anyio
HOUSEHOLDS = [(0, 0), (1, 0), (2, 1), (0, 3), (4, 2)]
"""(adults, kids) of the profile: nobody (the recipe's servings then), and households of every shape."""


async def _household(client: Client, adults: int, kids: int) -> None:
    (profile,) = (await call(client, "db_read", table="preferences"))["rows"]
    await call(client, "db_update", table="preferences", filters=[eq("id", profile["id"])],
               data={"household_adults": adults, "household_kids": kids})


async def _logged(client: Client, cooked: dict[str, Any]) -> int:
    (row,) = (await call(client, "db_read", table="cooking_log", filters=[eq("id", cooked["log"])]))["rows"]
    assert row["servings"] == cooked["servings"]
    return int(row["servings"])


@pytest.mark.parametrize(("adults", "kids"), HOUSEHOLDS)
async def test_a_recipe_cooked_without_servings_is_for_the_household_else_as_written(client: Client, adults: int, kids: int) -> None:
    await _household(client, adults, kids)
    (recipe,) = (await call(client, "db_read", table="recipes", columns=["servings"], limit=1))["rows"]
    cooked = await call(client, "meal_cooked", recipe=recipe["id"])
    if adults + kids:
        assert await _logged(client, cooked) == adults + kids
        assert cooked["servings_from"].startswith("the household: ")
    else:
        assert await _logged(client, cooked) == recipe["servings"] and cooked["servings_from"] == f"{recipe['id']} as written"


@pytest.mark.parametrize(("adults", "kids"), HOUSEHOLDS)
@pytest.mark.parametrize("planned", [None, 7])
async def test_a_meal_cooked_without_servings_is_for_its_planned_servings(client: Client, adults: int, kids: int, planned: int | None) -> None:
    await _household(client, adults, kids)
    (recipe,) = (await call(client, "db_read", table="recipes", columns=["servings"], limit=1))["rows"]
    data = {"date": "2026-02-02", "meal_type": "dinner", "recipe_id": recipe["id"], **({"servings": planned} if planned else {})}
    (meal,) = (await call(client, "db_create", table="meal_plans", data=data))["rows"]
    cooked = await call(client, "meal_cooked", meal=meal["id"])
    assert await _logged(client, cooked) == meal["servings"] == (planned or adults + kids or recipe["servings"])
    assert cooked["servings_from"] == f"{meal['id']}'s plan"


async def test_servings_given_are_logged_as_given_and_say_nothing_of_a_default(client: Client) -> None:
    (recipe,) = (await call(client, "db_read", table="recipes", limit=1))["rows"]
    cooked = await call(client, "meal_cooked", recipe=recipe["id"], servings=5)
    assert await _logged(client, cooked) == 5 and "servings_from" not in cooked
