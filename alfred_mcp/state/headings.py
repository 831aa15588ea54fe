"""No heading without content: a heading, or a bold lead-in ('**Steps:**'), that nothing follows.

A context is built from parts that may each come out empty (every entity of a group shown elsewhere, a
section whose lines were all sent before); the heading or lead-in that announced them must go with them, so
a model never reads a marker followed by nothing. Pure.
"""

from __future__ import annotations

import re

_HEADING = re.compile(r"^(#{1,6}) ")


def without_empty_headings(text: str) -> str:
    """`text` without each heading that no line of content follows before a heading of its level or above (or
    the end), and without each bold lead-in ('**Steps:**') that nothing follows before a heading."""
    lines = text.split("\n")
    keep = [True] * len(lines)
    for index in range(len(lines) - 1, -1, -1):
        level = _level(lines[index])
        if level is None and not _is_lead_in(lines[index]):
            continue
        following = (i for i in range(index + 1, len(lines)) if keep[i] and lines[i].strip())
        nxt = next(following, None)
        if level is None:
            empty = nxt is None or _level(lines[nxt]) is not None
        else:
            next_level = None if nxt is None else _level(lines[nxt])
            empty = nxt is None or (next_level is not None and next_level <= level)
        if empty:
            keep[index] = False
    if all(keep):
        return text
    kept = [line for line, kept_line in zip(lines, keep) if kept_line]
    return re.sub(r"\n{3,}", "\n\n", "\n".join(kept)).strip("\n")


def _level(line: str) -> int | None:
    found = _HEADING.match(line)
    return len(found.group(1)) if found else None


def _is_lead_in(line: str) -> bool:
    """A bold label alone on its line ('**Steps:**'): it announces the lines below it."""
    return _LEAD_IN.match(line.strip()) is not None


_LEAD_IN = re.compile(r"^\*\*[^*]+:\*\*$")
