"""Finding raw database ids (UUIDs) in text: redacted or refused on the way in, a bug on the way out.

Two shapes count as a raw id: the canonical 8-4-4-4-12 form and the compact 32-hex form (the
same id without its dashes). Both tests are closed under substrings (no word boundaries): a
clipped or folded piece of text that passed on the way in cannot grow an id on the way out.
"""

from __future__ import annotations

import re

# Anchored on a literal '-', which the regex engine finds with a fast scan; the 8 hex digits
# before it are checked only where the rest of a UUID follows (a class-first pattern is ~5x slower).
_UUID_TAIL = re.compile(r"-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}")
_HEX = frozenset("0123456789abcdefABCDEF")
_HEX_RUN = re.compile(r"[0-9a-fA-F]{32}")
# A regex for 32 hex digits tries every position (~20x slower than the dash scan); mapping every
# byte to hex/not-hex and searching for 32 hex marks in a row is a C-speed pass over the text.
_HEX_MARKS = bytes(0x31 if chr(b) in _HEX else 0x30 for b in range(256))
_RUN_OF_32 = b"1" * 32

REDACTED = "[id]"
"""What a raw id in typed text becomes: stable, readable, and never id-shaped itself."""


def find_raw_id(text: str) -> str | None:
    """The first raw-id-shaped substring of `text` (dashed, or 32 hex digits in a row), or None."""
    for match in _UUID_TAIL.finditer(text):
        start = match.start() - 8
        if start >= 0 and _HEX.issuperset(text[start:match.start()]):
            return text[start:match.end()]
    if len(text) >= 32 and text.encode("utf-8", "surrogatepass").translate(_HEX_MARKS).find(_RUN_OF_32) >= 0:
        found = _HEX_RUN.search(text)
        return found.group() if found else None
    return None


def redact_raw_ids(text: str, placeholder: str = REDACTED) -> str:
    """`text` with every raw-id-shaped part replaced by `placeholder` (typed or imported text may hold ids not ours)."""
    found = find_raw_id(text)
    while found is not None:
        text = text.replace(found, placeholder)
        found = find_raw_id(text)
    return text


def is_raw_id(text: str) -> bool:
    """True when `text`, stripped, is nothing but one raw id."""
    stripped = text.strip()
    return len(stripped) in (32, 36) and find_raw_id(stripped) == stripped
