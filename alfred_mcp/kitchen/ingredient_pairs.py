"""Names that join two ingredients on one line: 'salt and pepper' is salt and black pepper, each bought and held on
its own. A name is split only where every part is an ingredient the taxonomy knows ('half and half', 'sweet and sour
sauce' stay whole); a bare 'pepper' beside salt is black pepper. Pure."""

from __future__ import annotations

import re
from functools import cache

from alfred_mcp.kitchen.taxonomy import default_taxonomy

_JOINED = re.compile(r"\s+(?:and|&)\s+", re.IGNORECASE)
SAID_FOR = {"pepper": "black pepper", "ground pepper": "black pepper", "freshly ground pepper": "black pepper",
            "freshly ground black pepper": "black pepper", "ground black pepper": "black pepper"}
"""What a part of a joined name means ('salt and pepper': the pepper is black pepper)."""


@cache
def things_of(name: str) -> tuple[str, ...]:
    """The ingredients a name stands for: ('salt', 'black pepper') for 'salt and pepper', (name,) for one thing."""
    parts = [part.strip() for part in _JOINED.split(name) if part.strip()]
    if len(parts) < 2:
        return (name,)
    meant = [SAID_FOR.get(part.lower(), part) for part in parts]
    taxonomy = default_taxonomy()
    return tuple(meant) if all(taxonomy.categories_of(part) for part in meant) else (name,)
