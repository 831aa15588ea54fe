"""schema.org Recipe <-> a recipe draft: the one mapping both import and export use.

Import reads what sites publish (recipeYield '4 servings' or ['4', '4 servings'], HowToStep and
HowToSection instructions, ISO 8601 durations, HTML entities and tags in text) into the fields of a
recipe draft, with a warning for everything it could not carry over. Export writes a saved recipe as a
Recipe object that reads back to the same recipe: name, description, cuisine, servings, times,
ingredients (quantity, unit, name, notes, optional), steps, tags and the source URL.
"""

from __future__ import annotations

import html
import re
from collections import deque
from collections.abc import Mapping, Sequence
from itertools import islice
from typing import Any

from alfred_mcp.errors import ImportSourceError
from alfred_mcp.kitchen.ingredient_lines import ingredient_line, parse_ingredient_line
from alfred_mcp.kitchen.measures import amount_text
from alfred_mcp.kitchen.recipe_times import duration_text, total_minutes
from alfred_mcp.kitchen.text import sanitize
from alfred_mcp.kitchen.units import iso_duration, iso_minutes

Json = Any
MAX_STEPS = 50
MAX_INGREDIENTS = 100
MAX_TEXT = 2_000
MAX_READ = 1_000
"""How many ingredient lines or steps of one Recipe are read (a draft keeps MAX_INGREDIENTS and MAX_STEPS)."""
MAX_READ_CHARS = 200_000
"""How much of one text of a Recipe is read."""
MAX_NODES = 10_000
"""How many nodes of a JSON-LD document are looked at for Recipes."""
_NESTING_KEYS = frozenset(("@graph", "mainEntity", "itemListElement", "item"))
_TAG = re.compile(r"<[^>]{0,500}>")
_BLOCK_TAG = re.compile(r"<(?:br|/?p|/?li|/?div|/?h[1-6]|/?tr|/?td)\b[^>]{0,500}>", re.IGNORECASE)
_INTEGER = re.compile(r"\d+")


READ_NOTES = "alfredReadNotes"
"""A Recipe's key (set by the plain-text reader) for what the reading could not place: the draft's warnings."""

def is_recipe(node: Json) -> bool:
    """True for a schema.org Recipe object (`@type` 'Recipe', ['Recipe', ...], 'schema:Recipe' or the full IRI)."""
    if not isinstance(node, Mapping):
        return False
    kinds = node.get("@type")
    kinds = kinds if isinstance(kinds, list) else [kinds]
    return any(isinstance(kind, str) and re.split(r"[/:#]", kind)[-1] == "Recipe" for kind in kinds)


def find_recipes(document: Json) -> list[dict[str, Any]]:
    """Every Recipe in a JSON-LD document: top level, in a list, in `@graph`, or nested (mainEntity).

    Breadth first over at most MAX_NODES nodes: a graph of millions of entries costs what 10,000 do.
    """
    found: list[dict[str, Any]] = []
    queue: deque[Json] = deque([document])
    seen = 0
    while queue and seen < MAX_NODES:
        node = queue.popleft()
        seen += 1
        if is_recipe(node):
            found.append(dict(node))
            continue
        room = MAX_NODES - seen - len(queue)
        if room <= 0:
            continue
        if isinstance(node, list):
            queue.extend(islice(node, room))
        elif isinstance(node, Mapping):
            queue.extend(islice((value for key, value in node.items() if key in _NESTING_KEYS), room))
    return found


def draft_from_recipe(recipe: Mapping[str, Any], *, source_url: str | None) -> tuple[dict[str, Any], list[str]]:
    """A recipe draft's fields from a Recipe object, and warnings for what did not carry over.

    Raises:
        ImportSourceError: the Recipe has no name, no ingredients or no steps (naming which).
    """
    warnings: list[str] = [note for note in _as_list(recipe.get(READ_NOTES)) if isinstance(note, str)]
    name = _text(recipe.get("name")) or _text(recipe.get("headline"))
    if not name:
        raise ImportSourceError("source: the Recipe has no name.", field="source")
    raw = _as_list(recipe.get("recipeIngredient") or recipe.get("ingredients"))
    parts = islice((part for value in raw for part in (_lines(value) if isinstance(value, str) else [value])), MAX_READ)
    lines = [line for line in map(_text, parts) if line]
    if not lines:
        raise ImportSourceError(f"source: the Recipe '{name}' lists no recipeIngredient.", field="source")
    steps = steps_from(recipe.get("recipeInstructions"))
    if not steps:
        raise ImportSourceError(f"source: the Recipe '{name}' has no recipeInstructions.", field="source")
    item: dict[str, Any] = {"name": name[:200], "ingredients": _ingredients(lines, warnings), "instructions": _steps(steps, warnings)}
    description = _text(recipe.get("description"))
    if description:
        item["description"] = description[:MAX_TEXT]
    _put_servings(item, recipe.get("recipeYield") or recipe.get("yield"), warnings)
    _put_times(item, recipe, warnings)
    cuisine = next((c for c in map(_text, _as_list(recipe.get("recipeCuisine"))) if c), None)
    if cuisine:
        item["cuisine"] = cuisine[:50]
    tags = _tags(recipe.get("keywords"), recipe.get("recipeCategory"))
    if tags:
        item["tags"] = tags
    url = source_url or _text(recipe.get("url"))
    if url:
        item["source_url"] = url[:MAX_TEXT]
    return item, warnings


def recipe_from_rows(recipe: Mapping[str, Any], ingredients: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """A saved recipe (its row and its ingredient rows, in order) as a schema.org Recipe object."""
    out: dict[str, Any] = {"@context": "https://schema.org", "@type": "Recipe", "name": recipe["name"]}
    if recipe.get("description"):
        out["description"] = recipe["description"]
    if recipe.get("cuisine"):
        out["recipeCuisine"] = recipe["cuisine"]
    if recipe.get("servings"):
        out["recipeYield"] = f"{recipe['servings']} servings"
    prep, cook = recipe.get("prep_time_minutes"), recipe.get("cook_time_minutes")
    if prep is not None:
        out["prepTime"] = iso_duration(prep)
    if cook is not None:
        out["cookTime"] = iso_duration(cook)
    total = total_minutes(recipe)
    if total is not None:
        out["totalTime"] = iso_duration(total)
    out["recipeIngredient"] = [
        ingredient_line(row["name"], row.get("quantity"), row.get("unit"), row.get("notes"), bool(row.get("is_optional")))
        for row in ingredients
    ]
    out["recipeInstructions"] = [
        {"@type": "HowToStep", "position": i, "text": text} for i, text in enumerate(recipe.get("instructions") or [], start=1)
    ]
    if recipe.get("tags"):
        out["keywords"] = ", ".join(recipe["tags"])
    if recipe.get("source_url"):
        out["url"] = recipe["source_url"]
    return out


def markdown_from_rows(recipe: Mapping[str, Any], ingredients: Sequence[Mapping[str, Any]]) -> str:
    """The recipe for people: title, facts line, ingredients, numbered steps, source."""
    facts = [f"Serves {recipe['servings']}" if recipe.get("servings") else None,
             f"Prep {duration_text(recipe['prep_time_minutes'])}" if recipe.get("prep_time_minutes") is not None else None,
             f"Cook {duration_text(recipe['cook_time_minutes'])}" if recipe.get("cook_time_minutes") is not None else None,
             f"Total {duration_text(recipe['total_time_minutes'])}" if recipe.get("total_time_minutes") is not None else None,
             str(recipe["cuisine"]).title() if recipe.get("cuisine") else None]
    parts = [f"# {recipe['name']}"]
    if recipe.get("description"):
        parts.append(str(recipe["description"]))
    if any(facts):
        parts.append(" · ".join(f for f in facts if f))
    lines = [f"- {_markdown_line(row)}" for row in ingredients]
    parts.append("## Ingredients\n\n" + "\n".join(lines))
    steps = [f"{i}. {text}" for i, text in enumerate(recipe.get("instructions") or [], start=1)]
    parts.append("## Steps\n\n" + "\n".join(steps))
    if recipe.get("source_url"):
        parts.append(f"Source: {recipe['source_url']}")
    return "\n\n".join(parts) + "\n"


def _markdown_line(row: Mapping[str, Any]) -> str:
    amount = amount_text(row.get("quantity"), row.get("unit"))
    line = f"{amount} {row['name']}".strip() if amount else str(row["name"])
    if row.get("notes"):
        line += f", {row['notes']}"
    return line + (" (optional)" if row.get("is_optional") else "")


def steps_from(value: Json) -> list[str]:
    """Instruction texts in order, from a string, a list of strings, HowToStep or HowToSection objects;
    at most MAX_READ of them (a draft keeps MAX_STEPS), sections walked without recursion."""
    steps: list[str] = []
    pending: list[Json] = list(reversed(_as_list(value)))
    while pending and len(steps) < MAX_READ:
        node = pending.pop()
        if isinstance(node, str):
            steps.extend(line for line in (_text(part) for part in islice(_lines(node), MAX_READ)) if line)
        elif isinstance(node, Mapping):
            if node.get("itemListElement") is not None:
                pending.extend(reversed(_as_list(node["itemListElement"])))
            else:
                text = _text(node.get("text")) or _text(node.get("name"))
                if text:
                    steps.append(text)
    return steps[:MAX_READ]


def _lines(text: str) -> list[str]:
    """The non-empty lines of `text`, read up to MAX_READ_CHARS."""
    return [line for line in text[:MAX_READ_CHARS].splitlines() if line.strip()]


def _ingredients(lines: list[str], warnings: list[str]) -> list[dict[str, Any]]:
    if len(lines) > MAX_INGREDIENTS:
        warnings.append(f"recipeIngredient: {len(lines)} lines; the first {MAX_INGREDIENTS} were kept.")
    items = []
    for index, line in enumerate(lines[:MAX_INGREDIENTS]):
        parsed = parse_ingredient_line(line)
        if parsed.issue:
            warnings.append(f"recipeIngredient[{index}]: {parsed.issue}; kept as the name.")
        items.append(parsed.as_item())
    return items


def _steps(steps: list[str], warnings: list[str]) -> list[str]:
    if len(steps) > MAX_STEPS:
        warnings.append(f"recipeInstructions: {len(steps)} steps; the last {len(steps) - MAX_STEPS + 1} were joined into step {MAX_STEPS}.")
        steps = [*steps[: MAX_STEPS - 1], " ".join(steps[MAX_STEPS - 1:])]
    return [step[:MAX_TEXT] for step in steps]


_RANGE_AFTER = re.compile(r"^\s*(?:-|–|—|to|or)\s*(\d+)")
"""'-6' after the 4 of 'Serves 4-6': the yield is a range."""


def _put_servings(item: dict[str, Any], value: Json, warnings: list[str]) -> None:
    texts = [_text(v) if not isinstance(v, (int, float)) else str(int(v)) for v in _as_list(value)]
    for text in texts:
        found = _INTEGER.search(text or "")
        if found and 1 <= int(found.group()) <= 1_000:
            item["servings"] = int(found.group())
            ranged = _RANGE_AFTER.match((text or "")[found.end():])
            if ranged:
                warnings.append(f"recipeYield: {(text or '').strip()!r} is a range ({found.group()} to {ranged.group(1)}); saved as "
                                f"{found.group()} servings, which the amounts are for.")
            return
    if texts:
        warnings.append(f"recipeYield: {texts[0]!r} gives no number of servings; left out.")


def _put_times(item: dict[str, Any], recipe: Mapping[str, Any], warnings: list[str]) -> None:
    """Each time the recipe gives, as it gives it: a total is kept apart (resting or rising make it more than
    prep + cook), never spread into a cook time the page did not state; a total of 0 means none was given."""
    for key, column in _TIMES:
        minutes = _minutes(recipe.get(key), key, warnings)
        if minutes is not None and (minutes or key != "totalTime"):
            item[column] = minutes


_TIMES = (("prepTime", "prep_time_minutes"), ("cookTime", "cook_time_minutes"), ("totalTime", "total_time_minutes"))


def _minutes(value: Json, key: str, warnings: list[str]) -> int | None:
    text = _text(value[0] if isinstance(value, list) and value else value)
    if not text:
        return None
    try:
        minutes = iso_minutes(text)
    except ValueError as error:
        warnings.append(f"{key}: {error}; left out.")
        return None
    if minutes > 10_000:
        warnings.append(f"{key}: {text!r} is longer than a cooking time can be; left out.")
        return None
    return minutes


def _tags(*values: Json) -> list[str]:
    tags: list[str] = []
    for value in values:
        for entry in _as_list(value):
            tags.extend(part.strip() for part in (_text(entry) or "").split(",") if part.strip())
    unique = list(dict.fromkeys(tag[:50] for tag in tags))
    return unique[:15]


def _as_list(value: Json) -> list[Json]:
    if value is None:
        return []
    return list(value) if isinstance(value, (list, tuple)) else [value]


def _text(value: Json) -> str | None:
    """Plain text of a schema.org value: HTML entities decoded, tags and control characters removed, whitespace
    collapsed."""
    if isinstance(value, Mapping):
        value = value.get("@value", value.get("text", value.get("name")))
    if isinstance(value, list):
        value = next((v for v in value if isinstance(v, str) and v.strip()), None)
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        value = str(value)
    if not isinstance(value, str):
        return None
    unescaped = html.unescape(value[:MAX_READ_CHARS])
    text = " ".join(sanitize(html.unescape(_TAG.sub("", _BLOCK_TAG.sub(" ", unescaped)))).split())
    return text or None
