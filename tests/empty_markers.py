"""The tests' own reading of a marker without content, independent of state/headings.py that removes them."""

from __future__ import annotations

import re

HEADING = re.compile(r"^(#{1,6}) ")
LEAD_IN = re.compile(r"^\*\*[^*]+:\*\*$")


def empty_markers(text: str) -> list[str]:
    """Each heading (or bold lead-in alone on its line) that no content line follows before a heading of its level
    or above, or the end."""
    lines = [line for line in text.split("\n") if line.strip()]
    empty = []
    for index, line in enumerate(lines):
        level = len(found.group(1)) if (found := HEADING.match(line)) else (7 if LEAD_IN.match(line) else None)
        if level is None:
            continue
        following = lines[index + 1] if index + 1 < len(lines) else None
        next_level = None if following is None else (len(f.group(1)) if (f := HEADING.match(following)) else None)
        if following is None or (next_level is not None and next_level <= level):
            empty.append(line)
    return empty
