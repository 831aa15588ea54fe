"""Finding UUID-shaped text: where a ref is expected it is refused, and on the way out the leak guard
asks whether each one found is a database id the request knows (`state/known_ids.py`).

Two shapes count as a raw id: the canonical 8-4-4-4-12 form and the compact form, the same id
without its dashes: a run of 32 or more hex characters holding both a digit and a letter. A run
of digits alone is a number someone typed (a card, an order, a phone number) and a run of letters
alone is a word ('deadbeef...'): neither is a UUID, whose version nibble is always a digit and
whose other 31 are letters as often as not. Both tests are closed under substrings (no word
boundaries): a clipped or folded piece of text that passed on the way in cannot grow an id on the
way out (a piece of an all-digit or all-letter run is one too).
"""

from __future__ import annotations

import re
from collections.abc import Iterator

# Anchored on a literal '-', which the regex engine finds with a fast scan; the 8 hex digits
# before it are checked only where the rest of a UUID follows (a class-first pattern is ~5x slower).
_UUID_TAIL = re.compile(r"-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}")
_HEX = frozenset("0123456789abcdefABCDEF")
_HEX_RUN = re.compile(r"[0-9a-fA-F]{32,}")
# A regex for 32 hex digits tries every position (~20x slower than the dash scan); mapping every
# byte to hex/not-hex and searching for 32 hex marks in a row is a C-speed pass over the text.
_HEX_MARKS = bytes(0x31 if chr(b) in _HEX else 0x30 for b in range(256))
_RUN_OF_32 = b"1" * 32

REDACTED = "[id]"
"""What a raw id becomes where a protocol error echoes a name the client sent (an unknown tool, prompt
argument or resource URI), which no leak guard checks: stable, readable, and never id-shaped itself."""


def find_raw_id(text: str) -> str | None:
    """The first raw-id-shaped substring of `text` (dashed, or a whole run of 32+ hex characters mixing
    digits and letters), or None."""
    for match in _UUID_TAIL.finditer(text):
        start = match.start() - 8
        if start >= 0 and _HEX.issuperset(text[start:match.start()]):
            return text[start:match.end()]
    if len(text) >= 32 and text.encode("utf-8", "surrogatepass").translate(_HEX_MARKS).find(_RUN_OF_32) >= 0:
        for run in _HEX_RUN.finditer(text):
            found = run.group()
            if not (found.isdigit() or found.isalpha()):
                return found
    return None


def raw_ids_in(text: str) -> Iterator[str]:
    """Every raw-id-shaped part of `text` (as `find_raw_id` finds the first), in no particular order."""
    if find_raw_id(text) is None:
        return
    for match in _UUID_TAIL.finditer(text):
        start = match.start() - 8
        if start >= 0 and _HEX.issuperset(text[start:match.start()]):
            yield text[start:match.end()]
    for run in _HEX_RUN.finditer(text):
        found = run.group()
        if not (found.isdigit() or found.isalpha()):
            yield found


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
