"""A recipe page read the way recipe managers read it: recipe-scrapers' site scrapers, then its schema.org reading.

recipe-scrapers (MIT; the library Mealie and Tandoor import with) has a scraper for each of about 600 sites that
reads the recipe from the page's own HTML where its JSON-LD is missing or incomplete, and a generic schema.org
reading (JSON-LD and microdata) for every other site. It reads the HTML it is given: nothing is fetched here
(`online=False`), the fetch stays `operations/fetching.py`'s, with its address checks and limits.

The result is a schema.org Recipe object, so `schema_org.draft_from_recipe` maps it like any other source.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from importlib.util import find_spec
from typing import Any

from alfred_mcp.kitchen.units import iso_duration

_TEXT_FIELDS: tuple[tuple[str, str], ...] = (
    ("name", "title"), ("description", "description"), ("recipeCuisine", "cuisine"), ("recipeCategory", "category"),
    ("keywords", "keywords"), ("url", "canonical_url"),
)
_NO_ADDRESS = "https://example.invalid/"
"""The address recipe-scrapers is given for pasted HTML (it needs one); never a recipe's source."""
_TIME_FIELDS: tuple[tuple[str, str], ...] = (("totalTime", "total_time"), ("prepTime", "prep_time"), ("cookTime", "cook_time"))


def available() -> bool:
    """recipe-scrapers is installed (it needs Python 3.11; on 3.10 pages are read from JSON-LD and microdata)."""
    return find_spec("recipe_scrapers") is not None


def has_site_scraper(url: str | None) -> bool:
    """True when recipe-scrapers has a scraper written for this page's site."""
    if not url or not available():
        return False
    from recipe_scrapers import SCRAPERS
    from recipe_scrapers._utils import get_host_name

    try:
        return get_host_name(url) in SCRAPERS  # type: ignore[no-untyped-call]
    except (ValueError, TypeError, AttributeError):  # not an address the library can read a host from
        return False


def scraped_recipe(page: str, url: str | None) -> dict[str, Any] | None:
    """The page's recipe as a schema.org Recipe, or None when neither a site scraper nor schema.org finds one
    (or recipe-scrapers is not installed)."""
    if not available():
        return None
    from recipe_scrapers._warnings import StaticValueWarning

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", StaticValueWarning)  # a site scraper's fixed value is a value, not news
        return _recipe_of(page, url)


def _recipe_of(page: str, url: str | None) -> dict[str, Any] | None:
    from recipe_scrapers import scrape_html

    try:
        scraper = scrape_html(page, org_url=url or _NO_ADDRESS, supported_only=False)
    except Exception:  # the library's own errors: no schema found, no scraper, a page it cannot read
        return None
    recipe: dict[str, Any] = {"@type": "Recipe"}
    for key, method in _TEXT_FIELDS:
        value = _field(getattr(scraper, method, None))
        if isinstance(value, str) and value.strip() and not (key == "url" and value.strip().rstrip("/") == _NO_ADDRESS.rstrip("/")):
            recipe[key] = value.strip()
    ingredients = _field(scraper.ingredients)
    steps = _field(scraper.instructions_list)
    if isinstance(ingredients, list):
        recipe["recipeIngredient"] = [line for line in ingredients if isinstance(line, str) and line.strip()]
    if isinstance(steps, list):
        recipe["recipeInstructions"] = [step for step in steps if isinstance(step, str) and step.strip()]
    servings = _field(scraper.yields)
    if isinstance(servings, str) and servings.strip():
        recipe["recipeYield"] = servings.strip()
    for key, method in _TIME_FIELDS:
        minutes = _field(getattr(scraper, method, None))
        if isinstance(minutes, (int, float)) and not isinstance(minutes, bool) and 0 < minutes <= 10_000:
            recipe[key] = iso_duration(int(minutes))
    if not recipe.get("name") or not recipe.get("recipeIngredient"):
        return None
    return recipe


def _field(method: Callable[[], Any] | None) -> Any:
    """One field of the scraper, or None where the page does not have it (each field fails on its own)."""
    if method is None:
        return None
    try:
        return method()
    except Exception:  # the library raises its own errors, and NotImplementedError, per missing field
        return None
