"""recipes_export: a saved recipe as schema.org Recipe JSON-LD (which recipes_import reads back the same) or Markdown."""

from __future__ import annotations

from typing import Any, Literal

from alfred_mcp.kitchen.schema_org import markdown_from_rows, recipe_from_rows
from alfred_mcp.operations.recipe_rows import load_recipes
from alfred_mcp.session import UnitOfWork

ExportFormat = Literal["schema.org", "markdown"]


async def export_recipe(work: UnitOfWork, ref: str, fmt: ExportFormat) -> tuple[str, Any]:
    """(the recipe's ref, the export: a JSON-LD object or a Markdown string)."""
    (loaded,) = await load_recipes(work, [ref], field="recipe")
    if fmt == "markdown":
        return loaded.ref, markdown_from_rows(loaded.recipe, loaded.ingredients)
    return loaded.ref, recipe_from_rows(loaded.recipe, loaded.ingredients)
