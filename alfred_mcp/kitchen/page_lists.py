"""A recipe's ingredients and steps read from a page's own lists, where its schema.org data leaves them out.

A cook sees the list under 'Ingredients' and the steps under 'Method' whatever the page's JSON-LD says: a list
(`ul`/`ol`) marked as ingredients or steps by its class, id or itemprop ('wprm-recipe-ingredients',
'recipe-directions'), else the first list (or, for steps, the paragraphs) after a heading that says so. The page is
parsed by lxml (as extruct parses it); nothing is fetched.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

_HEADING_TAGS = frozenset({"h1", "h2", "h3", "h4", "h5", "h6", "strong", "b", "p", "dt", "header", "span", "div", "summary"})
_HEADINGS = {
    "recipeIngredient": re.compile(r"^(?:the\s+)?(?:ingredients?|what you(?:'|’)?ll need|you will need|you need)\s*:?$", re.IGNORECASE),
    "recipeInstructions": re.compile(
        r"^(?:the\s+)?(?:instructions?|directions?|method|steps|preparation|procedure|how to make it)\s*:?$", re.IGNORECASE),
}
_MARKS = {
    "recipeIngredient": re.compile(r"ingredient", re.IGNORECASE),
    "recipeInstructions": re.compile(r"instruction|direction|method|preparation|steps?\b", re.IGNORECASE),
}
MAX_ITEMS = 200
MAX_ITEM_CHARS = 2_000


def lists_in_page(page: str) -> dict[str, list[str]]:
    """{'recipeIngredient': [...], 'recipeInstructions': [...]}: each found in the page's HTML (a key left out
    when the page has no such list), plus 'name' (its first h1, else its title) when it has one."""
    root = _parsed(page)
    if root is None:
        return {}
    found: dict[str, list[str]] = {}
    for key in ("recipeIngredient", "recipeInstructions"):
        items = _marked_list(root, key) or _list_after_heading(root, key)
        if items:
            found[key] = items
    title = next((text for text in (_text(node) for node in root.iter("h1")) if text), None)
    if title is None:
        title = next((text for text in (_text(node) for node in root.iter("title")) if text), None)
    if title:
        found["name"] = [title[:200]]
    return found


def _parsed(page: str) -> Any:
    import lxml.html
    from lxml.etree import ParserError

    try:
        return lxml.html.document_fromstring(page)
    except (ParserError, ValueError):
        return None


def _marked_list(root: Any, key: str) -> list[str]:
    """The items of the first list whose class, id or itemprop marks it as `key`'s (or whose items are marked)."""
    for node in root.iter("ul", "ol"):
        marks = " ".join(node.get(attribute) or "" for attribute in ("class", "id", "itemprop"))
        items = _items(node)
        if items and (_MARKS[key].search(marks) or _items_marked(node, key)):
            return items
    return []


def _items_marked(node: Any, key: str) -> bool:
    marked = [item for item in node.iterchildren("li") if _MARKS[key].search(item.get("class") or "")]
    return bool(marked)


def _list_after_heading(root: Any, key: str) -> list[str]:
    """The first list after a heading that reads as `key`'s, or for steps the paragraphs up to the next heading."""
    for heading in root.iter(*_HEADING_TAGS):
        if not _HEADINGS[key].match(_text(heading)) or len(heading) > 2:
            continue
        paragraphs: list[str] = []
        for node in _following(heading):
            if node.tag in ("ul", "ol"):
                return _items(node) or paragraphs
            if node.tag in ("h1", "h2", "h3", "h4") or (node is not heading and any(
                    pattern.match(_text(node)) for pattern in _HEADINGS.values())):
                break
            if node.tag == "p" and key == "recipeInstructions" and _text(node):
                paragraphs.append(_text(node)[:MAX_ITEM_CHARS])
        if paragraphs:
            return paragraphs[:MAX_ITEMS]
    return []


def _following(heading: Any) -> Iterator[Any]:
    """The elements after `heading` in document order (its own descendants skipped), climbing out of the blocks
    that wrap it ('<div class="mw-heading"><h2>Ingredients</h2><span>edit</span></div><ul>'); a bounded walk."""
    seen = 0
    node: Any = heading
    while node is not None and node.tag not in ("body", "html"):
        for sibling in node.itersiblings():
            for inner in sibling.iter():
                if not isinstance(inner.tag, str):
                    continue
                seen += 1
                if seen > 2_000:
                    return
                yield inner
        node = node.getparent()


def _items(node: Any) -> list[str]:
    items = [_text(item)[:MAX_ITEM_CHARS] for item in node.iterchildren("li")]
    return [item for item in items if item][:MAX_ITEMS]


def _text(node: Any) -> str:
    return " ".join(node.text_content().split()) if isinstance(node.tag, str) else ""
