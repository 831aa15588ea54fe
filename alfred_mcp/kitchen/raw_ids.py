"""Finding raw database ids (UUIDs) in text: refused on the way in, a bug on the way out."""

from __future__ import annotations

import re

# Anchored on a literal '-', which the regex engine finds with a fast scan; the 8 hex digits
# before it are checked only where the rest of a UUID follows (a class-first pattern is ~5x slower).
_UUID_TAIL = re.compile(r"-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}")
_HEX = frozenset("0123456789abcdefABCDEF")


def find_raw_id(text: str) -> str | None:
    """The first UUID-shaped substring of `text`, or None."""
    for match in _UUID_TAIL.finditer(text):
        start = match.start() - 8
        if start >= 0 and _HEX.issuperset(text[start:match.start()]):
            return text[start:match.end()]
    return None


def redact_raw_ids(text: str, placeholder: str = "[id]") -> str:
    """`text` with every UUID-shaped substring replaced (imported text may hold ids that are not ours)."""
    found = find_raw_id(text)
    while found is not None:
        text = text.replace(found, placeholder)
        found = find_raw_id(text)
    return text
