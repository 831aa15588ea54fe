"""How well real recipe pages import: drafted, leading quantity and unit of each line, servings, total time.

The corpus is a folder of saved pages, each `NAME.testhtml` beside `NAME.json` holding what a person reads on the
page (the layout of recipe-scrapers' test data: `title`, `ingredients`, `yields`, `total_time`, `canonical_url`).
Point `ALFRED_IMPORT_CORPUS` at such a folder; pages are not shipped with the repo (they are the sites' own text).
Each page goes through what `recipes_import` runs on a fetched page (`recipes_in_html` with the page's address, then
`draft_from_recipe`, then the draft model a saved recipe is compiled from), so the figures are the tool's, not a
library's. Times are judged on what the saved recipe reports: its total time as every read gives it
(`recipe_times.total_minutes`: the stored total, else prep + cook), its prep and cook times as stored; the pages
whose expected total is not their prep + cook (rising, resting, only a total given) are also scored apart, since
only they need the stored total.

The expected side is read independently of the importer: a line's leading amount (a number, a fraction, a mixed
number or the first of a range, in digits or Unicode fractions) and the word after it when that word is a unit.
"""

from __future__ import annotations

import json
import os
import re
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from alfred_mcp.errors import ImportSourceError, InvalidPayloadError
from alfred_mcp.kitchen.recipe_sources import recipes_in_html
from alfred_mcp.kitchen.recipe_times import total_minutes
from alfred_mcp.kitchen.schema_org import draft_from_recipe
from alfred_mcp.kitchen.units import is_known_unit, normalize_unit
from alfred_mcp.state.drafts import parse_draft

CORPUS_ENV = "ALFRED_IMPORT_CORPUS"
_UNICODE = {"½": 0.5, "⅓": 1 / 3, "⅔": 2 / 3, "¼": 0.25, "¾": 0.75, "⅛": 0.125, "⅜": 0.375, "⅝": 0.625, "⅞": 0.875,
            "⅕": 0.2, "⅖": 0.4, "⅗": 0.6, "⅘": 0.8, "⅙": 1 / 6, "⅚": 5 / 6}
_LEAD = re.compile(
    r"^\s*(?:[-*•▢]\s*)?(?:(?P<mixed>\d+)\s+(?P<mtop>\d+)/(?P<mbottom>\d+)|(?P<top>\d+)/(?P<bottom>\d+)"
    r"|(?P<number>\d+(?:[.,]\d+)?)?\s*(?P<glyph>[½⅓⅔¼¾⅛⅜⅝⅞⅕⅖⅗⅘⅙⅚])?)"
)
_WORD = re.compile(r"^\s*(?:(?:-|–|to|or)\s*\d+(?:[.,/]\d+)?\s*)?([A-Za-zéèäöüß.]+)")


def expected_amount(line: str) -> tuple[float | None, str | None]:
    """The leading amount and unit of a line as a person reads them ('1 1/2 cups flour' -> 1.5, 'cup')."""
    match = _LEAD.match(line)
    if not match or not any(match.group(key) for key in ("mixed", "top", "number", "glyph")):
        return None, None
    if match.group("mixed"):
        value = int(match.group("mixed")) + _ratio(match.group("mtop"), match.group("mbottom"))
    elif match.group("top"):
        value = _ratio(match.group("top"), match.group("bottom"))
    else:
        value = float(match.group("number").replace(",", ".")) if match.group("number") else 0.0
        value += _UNICODE.get(match.group("glyph") or "", 0.0)
    word = _WORD.match(line[match.end():])
    unit = normalize_unit(word.group(1).rstrip(".")) if word else None
    return value, unit if is_known_unit(unit) else None


def _ratio(top: str, bottom: str) -> float:
    return int(top) / int(bottom) if int(bottom) else 0.0


def _leading_number(quantity: Any) -> float | None:
    if isinstance(quantity, (int, float)):
        return float(quantity)
    if isinstance(quantity, str):
        value, _ = expected_amount(quantity)
        return value
    return None


def _minutes(expected: Mapping[str, Any]) -> int | None:
    total = expected.get("total_time")
    return int(total) if isinstance(total, (int, float)) and total > 0 else None


def _servings(expected: Mapping[str, Any]) -> int | None:
    found = re.search(r"\d+", str(expected.get("yields") or ""))
    return int(found.group()) if found else None


def score_page(page: str, expected: Mapping[str, Any]) -> dict[str, Any]:
    """One page's figures: drafted, lines checked and right, servings and total time right (None: not given)."""
    url = expected.get("canonical_url") or None
    try:
        recipes = recipes_in_html(page, url=url)
        if not recipes:
            return {"drafted": False, "why": "no recipe found"}
        item, _ = draft_from_recipe(recipes[0], source_url=url)
        saved = parse_draft("recipe", item).model_dump()
    except (ImportSourceError, InvalidPayloadError) as error:
        return {"drafted": False, "why": error.message.split(":", 1)[-1].strip()[:80]}
    ours = saved["ingredients"]
    lines = checked = right = 0
    for index, line in enumerate(expected.get("ingredients") or []):
        amount, unit = expected_amount(str(line))
        if amount is None:
            continue
        checked += 1
        mine = ours[index] if index < len(ours) else {}
        quantity = _leading_number(mine.get("quantity"))
        if quantity is not None and abs(quantity - amount) < 0.01 and (unit is None or normalize_unit(mine.get("unit")) == unit):
            right += 1
        lines += 1
    servings, minutes = _servings(expected), _minutes(expected)
    total = total_minutes(saved)
    given = [(expected.get(key), saved.get(column)) for key, column in (("prep_time", "prep_time_minutes"), ("cook_time", "cook_time_minutes"))
             if isinstance(expected.get(key), (int, float)) and expected.get(key)]
    parts = [expected.get(key) for key in ("prep_time", "cook_time")]
    beyond = minutes is not None and sum(part for part in parts if isinstance(part, (int, float))) != minutes
    return {
        "drafted": True, "lines": checked, "lines_right": right,
        "beyond_right": None if not beyond else total == minutes,
        "servings_right": None if servings is None else saved.get("servings") == servings,
        "total_time_right": None if minutes is None else total == minutes,
        "prep_cook_right": None if not given else all(mine == theirs for theirs, mine in given),
    }


def score_corpus(folder: Path) -> dict[str, Any]:
    pages = sorted(folder.rglob("*.testhtml"))
    started = time.perf_counter()
    drafted = lines = lines_right = 0
    servings = [0, 0]
    totals = [0, 0]
    prep_cook = [0, 0]
    beyond = [0, 0]
    failures: dict[str, int] = {}
    for path in pages:
        expected_path = path.with_suffix(".json")
        if not expected_path.exists():
            continue
        expected = json.loads(expected_path.read_text(encoding="utf-8"))
        result = score_page(path.read_text(encoding="utf-8", errors="replace"), expected)
        if not result["drafted"]:
            failures[result["why"]] = failures.get(result["why"], 0) + 1
            continue
        drafted += 1
        lines += result["lines"]
        lines_right += result["lines_right"]
        for key, tally in (("servings_right", servings), ("total_time_right", totals), ("prep_cook_right", prep_cook),
                           ("beyond_right", beyond)):
            if result[key] is not None:
                tally[0] += bool(result[key])
                tally[1] += 1
    share = lambda part, whole: round(part / whole, 4) if whole else None  # noqa: E731
    return {
        "pages": len(pages), "sites": len({path.parent.name for path in pages}),
        "drafted": share(drafted, len(pages)), "quantity_unit_right": share(lines_right, lines), "lines_checked": lines,
        "servings_right": share(*servings), "total_time_right": share(*totals),
        "total_time_right_where_not_prep_plus_cook": share(*beyond), "pages_where_total_is_not_prep_plus_cook": beyond[1],
        "prep_and_cook_time_right": share(*prep_cook),
        "seconds": round(time.perf_counter() - started, 1),
        "not_drafted": dict(sorted(failures.items(), key=lambda item: -item[1])[:8]),
        "targets": {"drafted": 0.99, "quantity_unit_right": 0.98, "servings_right": 0.98, "total_time_right": 0.97},
    }


async def import_pages() -> dict[str, Any]:
    folder = os.environ.get(CORPUS_ENV)
    if not folder or not Path(folder).is_dir():
        return {"skipped": f"set {CORPUS_ENV} to a folder of saved pages (NAME.testhtml + NAME.json, e.g. recipe-scrapers' "
                           "tests/test_data)"}
    return score_corpus(Path(folder))
