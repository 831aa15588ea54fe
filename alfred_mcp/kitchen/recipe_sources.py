"""Recipes found in what a user hands over: a web page, JSON-LD, plain text, a Paprika archive.

Each reader returns schema.org Recipe objects (dicts), so one mapping (`schema_org.draft_from_recipe`)
turns every source into a draft. Pages: a site's own scraper (recipe-scrapers, `page_scrapers.py`) where there
is one, JSON-LD (WordPress/Yoast `@graph` documents and lists included) when it holds whole recipes,
recipe-scrapers' schema.org reading, then microdata read with `extruct`. Plain text: a title
line, an 'Ingredients' list and 'Instructions' steps (or, without headings, amount lines and numbered
lines). Paprika: the `.paprikarecipes` export, a zip of gzipped JSON recipes, read within budgets.

Everything here reads untrusted input within bounds: JSON within `json_bounds` (values, depth), pages'
JSON-LD scripts measured before extruct parses them, walks iterative or depth-checked, and an archive
read only as far as the entries a call asks for (its directory checked before it is read).
"""

from __future__ import annotations

import gzip
import io
import json
import re
import zipfile
from collections.abc import Mapping
from dataclasses import dataclass
from typing import IO, Any

from alfred_mcp.errors import ImportSourceError
from alfred_mcp.kitchen.json_bounds import MAX_DEPTH, check_shape, depth_within, loads_bounded, too_deep
from alfred_mcp.kitchen.page_lists import lists_in_page
from alfred_mcp.kitchen.page_scrapers import has_site_scraper, scraped_recipe
from alfred_mcp.kitchen.schema_org import READ_NOTES, find_recipes
from alfred_mcp.kitchen.units import iso_duration, parse_minutes

MAX_ARCHIVE_RECIPES = 2_000
"""How many entries a Paprika archive may hold (its directory is checked before it is read)."""
MAX_RECIPE_BYTES = 2_000_000
"""A Paprika recipe decompressed (photos included) may not exceed this: a guard against zip bombs."""
MAX_RECIPE_VALUES = 20_000
"""How many JSON values one Paprika entry may hold: a recipe has about twenty fields (a photo is one string)."""
MAX_INFLATED_PER_CALL = 50_000_000
"""How many decompressed bytes one call reads from an archive, all its entries together."""
MAX_FIELD_CHARS = 200_000
"""How much of one Paprika text field is read (a draft keeps 100 ingredients and 50 steps of 2,000 characters)."""
_MAX_DIRECTORY_BYTES = MAX_ARCHIVE_RECIPES * 1_024
"""The zip directory of MAX_ARCHIVE_RECIPES entries with generous names: a larger one is not read."""
_JSON_LD_TAG = re.compile(r"<script\b[^>]{0,500}?application/ld\+json[^>]{0,500}>", re.IGNORECASE)

_SECTION = {
    "ingredients": re.compile(r"^(?:ingredients?|what you(?:'|’)?ll need|you will need)\s*:?$", re.IGNORECASE),
    "steps": re.compile(r"^(?:instructions?|directions?|method|steps|preparation)\s*:?$", re.IGNORECASE),
}
_FACTS = {
    "recipeYield": re.compile(r"^(?:serves|servings|yield|yields|makes)\s*:?\s*(.+)$", re.IGNORECASE),
    "prepTime": re.compile(r"^prep(?:aration)?(?: time)?\s*:\s*(.+)$", re.IGNORECASE),
    "cookTime": re.compile(r"^cook(?:ing)?(?: time)?\s*:\s*(.+)$", re.IGNORECASE),
    "totalTime": re.compile(r"^total(?: time)?\s*:\s*(.+)$", re.IGNORECASE),
}
_BULLET = re.compile(r"^\s*(?:[-*•·▢☐◦‣]|\d+[.)]|step\s+\d+\s*[:.)-]?)\s*", re.IGNORECASE)
_NUMBERED = re.compile(r"^\s*(?:\d+[.)]|step\s+\d+\b)", re.IGNORECASE)
_INLINE_HEADING = re.compile(
    r"(?:^|(?<=[.;:!?])|(?<=\s))\s*(ingredients?|instructions?|directions?|method|steps|preparation)\s*:\s*", re.IGNORECASE,
)
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z0-9½⅓⅔¼¾⅛])")
_STARTS_WITH_AMOUNT = re.compile(
    r"^\s*(?:[-*•]\s*)?(?:\d|[½⅓⅔¼¾⅛]|(?:an?\s+|one\s+|a\s+few\s+|few\s+|some\s+)?(?:pinch|dash|handful|splash|sprig|knob|drizzle|"
    r"squeeze|sprinkle|bunch|clove|glug)(?:e?s)?\b|(?:the\s+)?(?:juice|zest|zest\s+and\s+juice|juice\s+and\s+zest)\s+of\b)"
    r"|\b(?:to\s+taste|as\s+needed|for\s+(?:serving|garnish|frying))\s*$|^\s*(?:salt|pepper|salt\s+and\s+pepper)\s*$",
    re.IGNORECASE,
)
"""A line that reads as an ingredient: it starts with an amount ('2 tbsp', 'a pinch of', 'juice of 1 lime') or says
'to taste', 'for serving'."""


def recipes_in_html(page: str, url: str | None = None) -> list[dict[str, Any]]:
    """schema.org Recipes of a page at `url` (None for pasted HTML).

    In order: the site's own scraper where recipe-scrapers has one (it reads what the site's JSON-LD leaves out);
    the page's JSON-LD when it holds whole recipes (every one of a page that has several); recipe-scrapers'
    schema.org reading (microdata included), its missing fields filled from the JSON-LD; then microdata.

    Raises:
        ImportSourceError: a JSON-LD script of the page over the bounds of `json_bounds`, or nested too deeply.
    """
    from extruct.jsonld import JsonLdExtractor

    for script in _json_ld_scripts(page):
        check_shape(script, what="the page's JSON-LD")
    if has_site_scraper(url):
        scraped = scraped_recipe(page, url)
        if scraped and _is_whole(scraped):
            return _bounded([scraped], "the page's recipe")
    try:
        documents = JsonLdExtractor().extract(page)
    except (ValueError, TypeError):
        documents = []
    except RecursionError:
        raise too_deep("the page's JSON-LD") from None
    found = _bounded(find_recipes(documents), "the page's JSON-LD")
    if found and all(_is_whole(recipe) for recipe in found):
        return found
    scraped = scraped_recipe(page, url)
    if scraped and _is_whole(scraped):
        return _bounded([{**found[0], **scraped} if found else scraped], "the page's recipe")
    partial = found or _recipes_in_microdata(page)
    if partial and all(_is_whole(recipe) for recipe in partial):
        return partial
    return _filled_from_lists(page, partial)


def _filled_from_lists(page: str, recipes: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Recipes missing their ingredients or steps given the page's own lists (`page_lists`); a page with no
    schema.org Recipe at all, a recipe of its title and lists when it has both."""
    lists = lists_in_page(page)
    if not recipes:
        if not all(lists.get(key) for key in ("name", "recipeIngredient", "recipeInstructions")):
            return []
        recipes = [{"@type": "Recipe", "name": lists["name"][0]}]
    if len(recipes) > 1:
        return recipes
    filled = {**{key: value for key, value in lists.items() if key != "name"}, **{k: v for k, v in recipes[0].items() if v}}
    return [filled]


def _is_whole(recipe: Mapping[str, Any]) -> bool:
    """A name, ingredients and steps: what a draft needs."""
    return all(recipe.get(key) for key in ("name", "recipeIngredient", "recipeInstructions"))


def _recipes_in_microdata(page: str) -> list[dict[str, Any]]:
    from extruct.w3cmicrodata import MicrodataExtractor

    try:
        items = MicrodataExtractor().extract(page)
        recipes = find_recipes([_from_microdata(item) for item in items])
    except (ValueError, TypeError):
        return []
    except RecursionError:
        raise too_deep("the page's microdata") from None
    return _bounded(recipes, "the page's microdata")


def _json_ld_scripts(page: str) -> list[str]:
    """The text of each JSON-LD script of a page, found by its tag and the next closing tag (one pass)."""
    scripts = []
    lowered = page.lower()
    for tag in _JSON_LD_TAG.finditer(page):
        end = lowered.find("</script", tag.end())
        scripts.append(page[tag.end():end if end >= 0 else len(page)])
    return scripts


def recipes_in_json(text: str) -> list[dict[str, Any]]:
    """schema.org Recipes of a JSON-LD document.

    Raises:
        ImportSourceError: the text is not JSON (naming the line and column), or over the bounds of `json_bounds`.
    """
    try:
        document = loads_bounded(text, what="the JSON-LD")
    except ValueError as error:
        where = f" (line {error.lineno}, column {error.colno}: {error.msg})" if isinstance(error, json.JSONDecodeError) else ""
        raise ImportSourceError(
            f"source: not valid JSON{where}; give a schema.org Recipe as JSON-LD, a URL, or the recipe as plain text.",
            field="source",
        ) from None
    return _bounded(find_recipes(document), "the JSON-LD")


def _bounded(recipes: list[dict[str, Any]], what: str) -> list[dict[str, Any]]:
    """`recipes` when each nests within MAX_DEPTH (what reads them may recurse), else refused naming `source`."""
    if not all(depth_within(recipe) for recipe in recipes):
        raise too_deep(what)
    return recipes


def recipe_in_text(text: str) -> dict[str, Any] | None:
    """A schema.org Recipe read from plain text, or None when the text has no ingredients or no steps.

    Lines with headings, lines without them, or one pasted paragraph ('Tacos. Serves 4. 1 can chickpeas; 2 tbsp
    oil. Steps: Roast ...'), whose sentences and semicolon lists are read as lines.
    """
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    if len(lines) <= 2:
        lines = _paragraph_lines(text)
    recipe: dict[str, Any] = {"@type": "Recipe"}
    sections: dict[str, list[str]] = {"head": [], "ingredients": [], "steps": [], "among": []}
    current = "head"
    for line in lines:
        heading = next((name for name, pattern in _SECTION.items() if pattern.match(line)), None)
        if heading:
            current = heading
            continue
        if _take_fact(recipe, line):
            continue
        sections[current].append(line)
    if not sections["ingredients"] and not sections["steps"]:
        _split_without_headings(sections)
    elif not sections["ingredients"]:
        _ingredients_from_head(sections)
    elif not sections["steps"]:
        _steps_out_of_ingredients(sections)
    if not sections["head"] or not sections["ingredients"] or not sections["steps"]:
        return None
    recipe["name"] = _title(recipe, sections["head"][0].lstrip("#").strip())
    if len(sections["head"]) > 1:
        recipe["description"] = " ".join(sections["head"][1:])
    if sections["among"]:
        recipe[READ_NOTES] = [f"'{line}' stands among the ingredients but does not read as one; it was kept in the description, "
                              "not as an ingredient: check it." for line in sections["among"]]
    recipe["recipeIngredient"] = [line for line in sections["ingredients"] if not line.endswith(":")]
    recipe["recipeInstructions"] = _whole_steps(sections["steps"])
    return recipe


_TITLE_YIELD = re.compile(r"^(?P<title>.+?)\s*\((?P<yield>(?:serves|makes|yields?|for)\s+[^()]+)\)\s*$", re.IGNORECASE)
"""'Banana Bread (makes 1 loaf)': the servings said in the title's closing parenthesis."""


def _title(recipe: dict[str, Any], line: str) -> str:
    """The title line without the servings it states in parentheses (taken as the yield when none was given)."""
    said = _TITLE_YIELD.match(line)
    if not said:
        return line
    if "recipeYield" not in recipe:
        _take_fact(recipe, said.group("yield"))
    return said.group("title")


def _take_fact(recipe: dict[str, Any], line: str) -> bool:
    for key, pattern in _FACTS.items():
        match = pattern.match(line)
        if match:
            value = match.group(1).strip()
            recipe[key] = value if key == "recipeYield" else _iso_or_text(value)
            return True
    return False


def _iso_or_text(value: str) -> str:
    try:
        return iso_duration(parse_minutes(value))
    except ValueError:
        return value


def _paragraph_lines(text: str) -> list[str]:
    """A recipe written as running text, as lines: headings ('Steps:') on lines of their own, then each sentence
    and each item of a semicolon list (its full stop left off), except in the steps: each step a sentence or a
    numbered step, a semicolon inside one kept ('Fill with chickpeas; squeeze lime over.' is one step)."""
    marked = _INLINE_HEADING.sub(lambda match: f"\n{match.group(1)}:\n", text)
    lines: list[str] = []
    in_steps = False
    for block in marked.splitlines():
        in_steps = in_steps or bool(_SECTION["steps"].match(block.strip()))
        for part in _STEP_NUMBER_AFTER_SEMICOLON.split(block) if in_steps else block.split(";"):
            lines.extend(sentence.strip() for sentence in _sentences(part) if sentence.strip(" .;"))
    steps = next((at for at, line in enumerate(lines) if _SECTION["steps"].match(line)), len(lines))
    head = [item for at, line in enumerate(lines[:steps]) for item in _listed_items(_without_stop(line, first=at == 0))]
    return head + [_sentence(line) for line in lines[steps:]]


def _without_stop(line: str, *, first: bool) -> str:
    """A head sentence without its full stop, except a sentence that reads as neither the title, a fact nor an
    ingredient: it keeps it, so it can read as a step ('Toast the bread.')."""
    bare = line.rstrip(".")
    if first or _STARTS_WITH_AMOUNT.search(bare) or _LEAD_IN.match(bare) or any(p.match(bare) for p in _FACTS.values()):
        return bare
    return line


_LEAD_IN = re.compile(
    r"^(?:(?:for\s+(?:this|it|these|them)\s*,?\s+)?you(?:'ll|’ll|\s+will)?\s+(?:need|want)|take|gather|the\s+ingredients\s+are|"
    r"ingredients\s+are)\s*:?\s+(?=\S)", re.IGNORECASE)
"""'You need 3 bananas, ...': the words that open a list of ingredients written as a sentence."""
_ITEM_START = re.compile(
    r"^(?:\d|[½⅓⅔¼¾⅛]|(?:a|an|one|a\s+few|a\s+couple\s+of|some)\s+(?:pinch|dash|handful|splash|sprig|knob|drizzle|squeeze|"
    r"sprinkle|bunch|clove|glug|cup|tablespoon|teaspoon|tbsp|tsp|can|tin|jar|few|couple|little|stick|slice|piece|head)"
    r"|(?:the\s+)?(?:juice|zest)\s+(?:and\s+(?:juice|zest)\s+)?of\b)", re.IGNORECASE)
"""The start of an ingredient inside a sentence's list: an amount ('1/3 cup', 'a pinch of', 'juice of')."""
_PART_OF_FRUIT = re.compile(r"^(?:the\s+)?(?:juice|zest)$", re.IGNORECASE)
"""'zest and juice of 2 lemons' is one ingredient: a bare part of a fruit is continued by what follows it."""
_LIST_JOINT = re.compile(r"(,\s+(?:and\s+)?|\s+and\s+)")


def _listed_items(sentence: str) -> list[str]:
    """A sentence that lists ingredients ('You need 3 ripe bananas, mashed, 1 egg, beaten, a pinch of salt and 1 1/2
    cups flour', 'Tomato Toast (serves 2): 2 slices bread, ...') as one line per ingredient: a comma or 'and' starts one
    only where an amount follows, so 'mashed' and 'salt and pepper' stay with their own; any other sentence as it is."""
    lead = _LEAD_IN.match(sentence)
    listed = sentence[lead.end():] if lead and _ITEM_START.match(sentence[lead.end():]) else sentence
    if not _ITEM_START.match(listed):
        said, colon, rest = sentence.partition(": ")
        return [said, *_listed_items(rest)] if colon and (_ITEM_START.match(rest) or _LEAD_IN.match(rest)) else [sentence]
    parts = _LIST_JOINT.split(listed)
    items = [parts[0]]
    for joint, part in zip(parts[1::2], parts[2::2]):
        if _ITEM_START.match(part) and not _PART_OF_FRUIT.match(items[-1]):
            items.append(part)
        else:
            items[-1] = f"{items[-1]}{joint}{part}"
    return [item.strip() for item in items if item.strip()] if lead or len(items) > 1 else [sentence]


def _sentences(text: str) -> list[str]:
    """The sentences of `text`; a step's number ('2.') stays with the sentence it numbers."""
    out: list[str] = []
    for sentence in _SENTENCE_END.split(text):
        if out and _BARE_NUMBER.match(out[-1]):
            out[-1] = f"{out[-1]} {sentence}"
        else:
            out.append(sentence)
    return out


_BARE_NUMBER = re.compile(r"^\s*(?:\d+[.)]|step\s+\d+\s*[:.)]?)\s*$", re.IGNORECASE)
_STEP_NUMBER_AFTER_SEMICOLON = re.compile(r";\s*(?=(?:\d+[.)]|step\s+\d+\b))", re.IGNORECASE)
"""'1. Roast; 2. Warm': a semicolon followed by a step's number ends a step; any other stays inside its step."""


def _whole_steps(lines: list[str]) -> list[str]:
    """Steps as written, each beginning with a capital: a line that goes on lower-case (not bulleted or numbered) is
    the rest of the step before it ('Fill with cabbage and' / 'sour cream.'); a numbered one is capitalized."""
    steps: list[str] = []
    for line in lines:
        step = _BULLET.sub("", line)
        if steps and step[:1].islower() and not _BULLET.match(line):
            steps[-1] = f"{steps[-1]} {step}"
        else:
            steps.append(step[:1].upper() + step[1:])
    return steps


def _sentence(line: str) -> str:
    """A step as a sentence: its full stop kept, or given when a semicolon ended it ('Warm the tortillas.')."""
    return line if _SECTION["steps"].match(line) or line.endswith((".", "!", "?", ":")) else f"{line}."


def _ingredients_from_head(sections: dict[str, list[str]]) -> None:
    """Steps under a heading but no ingredient heading: the lines after the title that begin with an amount."""
    title, *rest = sections["head"] or [""]
    sections["ingredients"] = [line for line in rest if _STARTS_WITH_AMOUNT.search(line)]
    sections["head"] = [title, *(line for line in rest if not _STARTS_WITH_AMOUNT.search(line))]
    sections["among"] = _among_ingredients(rest)


def _among_ingredients(lines: list[str]) -> list[str]:
    """The lines after the first that reads as an ingredient that do not read as one."""
    marked = [bool(_STARTS_WITH_AMOUNT.search(line)) for line in lines]
    first = marked.index(True) if True in marked else len(lines)
    return [line for line, is_one in zip(lines[first:], marked[first:]) if not is_one]


def _split_without_headings(sections: dict[str, list[str]]) -> None:
    """No headings: the first line is the title, amount lines are ingredients, numbered lines are steps."""
    head = sections["head"]
    if len(head) < 3:
        return
    title, rest = head[0], head[1:]
    sections["head"] = [title]
    for line in rest:
        if _NUMBERED.match(line):
            sections["steps"].append(line)
        elif _STARTS_WITH_AMOUNT.search(line) and not sections["steps"]:
            sections["ingredients"].append(line)
        elif sections["steps"]:
            sections["steps"].append(line)
        else:
            sections["head"].append(line)
    unnumbered = not sections["steps"] and _steps_after_ingredients(sections, title, rest)
    sections["among"] = _among_ingredients([line for line in rest if line not in sections["steps"]])
    if unnumbered:
        sections["steps"] = [_sentence(step) for step in sections["steps"]]


def _steps_after_ingredients(sections: dict[str, list[str]], title: str, rest: list[str]) -> bool:
    """No heading and no numbered step: the first sentence after the ingredient lines that does not read as an
    ingredient ('Cook the linguine in salted water.') begins the steps, as a person reads it; True when it found them."""
    ingredients: list[str] = []
    for at, line in enumerate(rest):
        if _STARTS_WITH_AMOUNT.search(line):
            ingredients.append(line)
        elif ingredients and _reads_as_step(line):
            sections["head"] = [title, *(other for other in rest[:at] if other not in ingredients)]
            sections["ingredients"] = ingredients
            sections["steps"] = rest[at:]
            return True
    return False


def _steps_out_of_ingredients(sections: dict[str, list[str]]) -> None:
    """An 'Ingredients' heading but none for the steps: the steps begin at the first numbered line, or the first
    sentence after an ingredient line that does not read as one."""
    lines = sections["ingredients"]
    for at, line in enumerate(lines):
        numbered = bool(_NUMBERED.match(line))
        if at and (numbered or (not _STARTS_WITH_AMOUNT.search(line) and _reads_as_step(line))):
            sections["ingredients"], steps = lines[:at], lines[at:]
            sections["steps"] = steps if numbered else [_sentence(step) for step in steps]
            return


def _reads_as_step(line: str) -> bool:
    """A sentence, not a stray label: it ends with a full stop, or it is four words or more beginning with a capital."""
    return line.endswith((".", "!", "?")) or (line[:1].isupper() and len(line.split()) >= 4)


@dataclass
class ArchiveRead:
    """The recipes a call read from a Paprika archive, and how many entries the archive holds in all."""

    recipes: list[dict[str, Any]]
    total: int


def recipes_in_paprika(archive_file: IO[bytes] | bytes, *, offset: int = 0, limit: int = MAX_ARCHIVE_RECIPES) -> ArchiveRead:
    """schema.org Recipes of a Paprika export (`.paprikarecipes`: a zip of gzipped JSON recipes), entries
    `offset` to `offset + limit` only: the others are counted, never decompressed or parsed.

    Budgets: MAX_ARCHIVE_RECIPES entries (read from the zip's end record before its directory is),
    MAX_RECIPE_BYTES and MAX_RECIPE_VALUES per entry, MAX_INFLATED_PER_CALL over the entries read.

    Raises:
        ImportSourceError: not a Paprika archive, over a budget, or an entry that is no recipe (naming the entry).
    """
    stream = io.BytesIO(archive_file) if isinstance(archive_file, bytes) else archive_file
    _check_directory(stream)
    try:
        archive = zipfile.ZipFile(stream)
        entries = [info for info in archive.infolist() if not info.is_dir()]
    except (zipfile.BadZipFile, zipfile.LargeZipFile, OSError, EOFError, ValueError):
        raise ImportSourceError("source: not a Paprika export (.paprikarecipes is a zip archive).", field="source") from None
    if len(entries) > MAX_ARCHIVE_RECIPES:
        raise ImportSourceError(f"source: the archive holds {len(entries)} files; at most {MAX_ARCHIVE_RECIPES}.", field="source")
    budget = [MAX_INFLATED_PER_CALL]
    recipes = [_paprika_recipe(archive, info, budget) for info in entries[offset:offset + limit]]
    return ArchiveRead(recipes, len(entries))


def _check_directory(stream: IO[bytes]) -> None:
    """Refuses an archive whose end record declares more entries, or a larger directory, than may be read."""
    size = stream.seek(0, io.SEEK_END)
    tail_size = min(size, 22 + 65_535)
    stream.seek(size - tail_size)
    tail = stream.read(tail_size)
    stream.seek(0)
    at = tail.rfind(b"PK\x05\x06")
    if at < 0 or len(tail) < at + 22:
        raise ImportSourceError("source: not a Paprika export (.paprikarecipes is a zip archive).", field="source")
    entries = int.from_bytes(tail[at + 10:at + 12], "little")
    directory = int.from_bytes(tail[at + 12:at + 16], "little")
    if entries > MAX_ARCHIVE_RECIPES or directory > _MAX_DIRECTORY_BYTES:
        shown = "more than 65,534" if entries == 0xFFFF else f"{entries:,}"
        raise ImportSourceError(
            f"source: the archive declares {shown} files ({directory:,} bytes of directory); at most {MAX_ARCHIVE_RECIPES}.",
            field="source",
        )


def _paprika_recipe(archive: zipfile.ZipFile, info: zipfile.ZipInfo, budget: list[int]) -> dict[str, Any]:
    """One entry as a Recipe; `budget` holds the bytes this call may still decompress, and is spent."""
    def refused(why: str = "is not a Paprika recipe") -> ImportSourceError:
        return ImportSourceError(f"source: the archive entry '{info.filename}' {why}.", field="source", entry=info.filename)

    if budget[0] <= 0:
        raise refused(f"is past the {MAX_INFLATED_PER_CALL:,} bytes one call decompresses; import fewer at a time (offset)")
    try:
        with archive.open(info) as raw:
            packed = raw.read(min(MAX_RECIPE_BYTES, budget[0]) + 1)
        budget[0] -= len(packed)
        body = _gunzip(packed, budget) if packed[:2] == b"\x1f\x8b" else packed
        if len(packed) > MAX_RECIPE_BYTES:
            raise OSError("too large")
        record = loads_bounded(body, what=f"the archive entry '{info.filename}'", max_values=MAX_RECIPE_VALUES)
    except (OSError, EOFError, ValueError, UnicodeDecodeError, zipfile.BadZipFile, NotImplementedError, RuntimeError):
        raise refused() from None
    if not isinstance(record, Mapping):
        raise refused()
    return _from_paprika(record)


def _gunzip(packed: bytes, budget: list[int]) -> bytes:
    with gzip.GzipFile(fileobj=io.BytesIO(packed)) as stream:
        body = stream.read(min(MAX_RECIPE_BYTES, max(budget[0], 0)) + 1)
    budget[0] -= len(body)
    if len(body) > MAX_RECIPE_BYTES or budget[0] < 0:
        raise OSError("too large")
    return body


def _from_paprika(record: Mapping[str, Any]) -> dict[str, Any]:
    """Paprika's fields (ingredients and directions as text, times as '10 mins') as a schema.org Recipe.

    Each text is read up to MAX_FIELD_CHARS (more than a draft keeps), so no field becomes a list of
    millions of lines."""
    def text(key: str) -> str:
        value = record.get(key)
        return value[:MAX_FIELD_CHARS].strip() if isinstance(value, str) else ""

    recipe: dict[str, Any] = {
        "@type": "Recipe", "name": text("name"),
        "recipeIngredient": [line for line in text("ingredients").splitlines() if line.strip()],
        "recipeInstructions": [line for line in text("directions").splitlines() if line.strip()],
    }
    for key, field in (("description", "description"), ("recipeYield", "servings"), ("url", "source_url")):
        if text(field):
            recipe[key] = text(field)
    for key, field in (("prepTime", "prep_time"), ("cookTime", "cook_time"), ("totalTime", "total_time")):
        if text(field):
            recipe[key] = _iso_or_text(text(field))
    categories = record.get("categories")
    if isinstance(categories, list):
        recipe["keywords"] = [c[:MAX_FIELD_CHARS] for c in categories[:100] if isinstance(c, str)]
    return recipe


def _from_microdata(item: Any, depth: int = 0) -> Any:
    """extruct's microdata item ({'type': IRI, 'properties': {...}}) as a JSON-LD-shaped object.

    Raises:
        ImportSourceError: items nested more than MAX_DEPTH deep.
    """
    if depth > MAX_DEPTH:
        raise too_deep("the page's microdata")
    if isinstance(item, list):
        return [_from_microdata(entry, depth + 1) for entry in item]
    if not isinstance(item, Mapping) or "properties" not in item:
        return item
    kinds = item.get("type")
    kinds = kinds if isinstance(kinds, list) else [kinds]
    node: dict[str, Any] = {"@type": [str(kind).rstrip("/").rsplit("/", 1)[-1] for kind in kinds if kind]}
    for key, value in item["properties"].items():
        node[key] = _from_microdata(value, depth + 1)
    return node
