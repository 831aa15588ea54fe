"""recipes_import: read recipes from a URL, JSON-LD, page HTML, plain text or a Paprika archive into drafts.

Reading happens before the unit of work (a slow page never holds the session's lock) and off the event
loop (`offload.off_loop`: parsing a large page never stalls other users' calls); the drafts are then created through the same path as draft_create (validated whole, named gen_recipe_N, not saved
until draft_save). A source that yields no recipe is an error naming `source`; nothing is written.
"""

from __future__ import annotations

import errno
import os
import re
import stat
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal, NoReturn

from opentelemetry import trace

from alfred_mcp.errors import ImportSourceError
from alfred_mcp.kitchen.plurals import counted
from alfred_mcp.kitchen.recipe_sources import ArchiveRead, recipe_in_text, recipes_in_html, recipes_in_json, recipes_in_paprika
from alfred_mcp.kitchen.schema_org import draft_from_recipe
from alfred_mcp.operations.drafting import create_drafts
from alfred_mcp.operations.fetching import FetchPolicy, fetch_page
from alfred_mcp.operations.offload import LARGE_SOURCE, off_loop
from alfred_mcp.operations.progress import report_progress
from alfred_mcp.session import Session
from alfred_mcp.state.drafts import Draft

tracer = trace.get_tracer("alfred_mcp.import")

SourceKind = Literal["url", "json", "html", "text", "paprika"]
MAX_PER_CALL = 20
MAX_ARCHIVE_BYTES = 200_000_000
_URL = re.compile(r"^https?://\S+$", re.IGNORECASE)
_PAPRIKA = re.compile(r"\.paprikarecipes?$", re.IGNORECASE)


@dataclass
class ReadRecipes:
    """What a source held: schema.org recipes, where they came from, and how many are left for a later call."""

    kind: SourceKind
    recipes: list[dict[str, Any]]
    url: str | None = None
    total: int = 0
    offset: int = 0
    warnings: list[str] = field(default_factory=list)


def source_kind(source: str) -> SourceKind:
    """url, paprika (a local .paprikarecipes path), json, html or text."""
    text = source.strip()
    if _URL.match(text):
        return "url"
    if "\n" not in text and _PAPRIKA.search(text):
        return "paprika"
    if text[:1] in "{[":
        return "json"
    if re.search(r"<(?:html|script|body|div|article)\b|itemscope", text[:20_000], re.IGNORECASE):
        return "html"
    return "text"


async def read_source(source: str, *, policy: FetchPolicy, local_files: bool, offset: int = 0, isolate: bool = False) -> ReadRecipes:
    """The recipes in `source` (up to MAX_PER_CALL, from `offset`); with `isolate` (a server for many users), a
    large source is parsed in a worker process (`offload.py`), any other in a worker thread.

    Raises:
        ImportSourceError: nothing that is a recipe, or a source that cannot be read; it names `source`.
    """
    kind = source_kind(source)
    url = None
    if kind == "url":
        await report_progress(0, 3, "fetching the page")
        with tracer.start_as_current_span("import.fetch", kind=trace.SpanKind.CLIENT):
            page = await fetch_page(source.strip(), policy)
        await report_progress(1, 3, f"fetched {len(page.text):,} characters")
        url = page.url
        found = await off_loop(_recipes_in_page, page.text, page.content_type, page.url,
                               isolate=isolate and len(page.text) >= LARGE_SOURCE)
    elif kind == "paprika":
        archive = await off_loop(_read_archive, source.strip(), local_files, offset, isolate=isolate)
        if archive.total and offset >= archive.total:
            raise _past_the_end(archive.total, offset)
        return ReadRecipes(kind, archive.recipes, total=archive.total, offset=offset) if archive.recipes else _nothing(kind, url)
    else:
        found = await off_loop(_recipes_in_text, kind, source, isolate=isolate and len(source) >= LARGE_SOURCE)
    if not found:
        _nothing(kind, url)
    if offset >= len(found):
        raise _past_the_end(len(found), offset)
    return ReadRecipes(kind, found[offset:offset + MAX_PER_CALL], url=url, total=len(found), offset=offset)


def _nothing(kind: SourceKind, url: str | None) -> NoReturn:
    raise ImportSourceError(_nothing_found(kind, url), field="source", kind=kind)


def _past_the_end(total: int, offset: int) -> ImportSourceError:
    return ImportSourceError(f"offset: the source holds {counted(total, 'recipe')}; offset {offset} is past the end.", field="offset")


def _recipes_in_text(kind: SourceKind, source: str) -> list[dict[str, Any]]:
    if kind == "json":
        return recipes_in_json(source)
    if kind == "html":
        return recipes_in_html(source)
    recipe = recipe_in_text(source)
    return [recipe] if recipe else []


def _recipes_in_page(text: str, content_type: str, url: str) -> list[dict[str, Any]]:
    if content_type in ("application/ld+json", "application/json"):
        return recipes_in_json(text)
    if content_type == "text/plain":
        recipe = recipe_in_text(text)
        return [recipe] if recipe else []
    return recipes_in_html(text, url)


def _nothing_found(kind: SourceKind, url: str | None) -> str:
    if kind == "url":
        return f"source: {url} is not a recipe page: it has no schema.org Recipe (JSON-LD or microdata)."
    if kind in ("json", "html"):
        return f"source: the {'JSON-LD' if kind == 'json' else 'HTML'} holds no schema.org Recipe (an object with \"@type\": \"Recipe\")."
    if kind == "paprika":
        return "source: the Paprika archive holds no recipes."
    return ("source: no recipe found in the text; give a title line, an 'Ingredients' list and 'Instructions' "
            "steps (or a URL, or schema.org JSON-LD).")


def _read_archive(path: str, local_files: bool, offset: int) -> ArchiveRead:
    """The recipes of a local Paprika archive from `offset`: a regular file only (no symlink, device or
    fifo), within MAX_ARCHIVE_BYTES, read from disk as the zip reader needs it, never whole."""
    if not local_files:
        raise ImportSourceError(
            "source: local files are read only when the server runs on stdio for one user; send a URL or the recipe text.",
            field="source",
        )
    try:
        descriptor = os.open(Path(path).expanduser(), os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except OSError as error:
        why = "it is a symbolic link; give the archive's own path" if error.errno == errno.ELOOP else (error.strerror or str(error))
        raise ImportSourceError(f"source: cannot read {path}: {why}.", field="source") from None
    facts = os.fstat(descriptor)
    if not stat.S_ISREG(facts.st_mode):
        os.close(descriptor)
        raise ImportSourceError(f"source: {path} is not a regular file; give a .paprikarecipes archive.", field="source")
    with os.fdopen(descriptor, "rb") as file:
        if facts.st_size > MAX_ARCHIVE_BYTES:
            raise ImportSourceError(
                f"source: {path} is {facts.st_size:,} bytes; archives over {MAX_ARCHIVE_BYTES:,} bytes are not read.", field="source"
            )
        try:
            return recipes_in_paprika(file, offset=offset, limit=MAX_PER_CALL)
        except OSError as error:
            raise ImportSourceError(f"source: cannot read {path}: {error.strerror or error}.", field="source") from None


async def draft_recipes(session: Session, read: ReadRecipes) -> tuple[list[Draft], list[str]]:
    """Each recipe as a pending recipe draft (all validated before any is held), and the import's warnings."""
    items, warnings = [], list(read.warnings)
    many = len(read.recipes) > 1
    for index, (item, notes) in enumerate(await off_loop(_drafts_from, read.recipes, read.url)):
        items.append(item)
        warnings.extend(f"{item['name']}: {note}" if many else note for note in notes)
        if many:
            await report_progress(index + 1, len(read.recipes), f"read {item['name']}")
    return create_drafts(session, "recipe", items), warnings


def _drafts_from(recipes: list[dict[str, Any]], url: str | None) -> list[tuple[dict[str, Any], list[str]]]:
    return [draft_from_recipe(recipe, source_url=url) for recipe in recipes]
