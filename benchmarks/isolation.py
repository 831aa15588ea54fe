"""One user's imports against another user's reads, over streamable HTTP (`tests/import_load.py`).

`import_isolation`: one `alfred-mcp serve --http` process over a SQLite file; a reader times
`describe_table` calls (READS, 20 ms apart) alone, then while IMPORTERS users import, over and over,
the loopback site's heaviest pages just under the 5 MB limit (a 2.4-million-entry flat `@graph`,
deeply nested markup with a recipe, JSON-LD nested 10,000 deep). Reported: the reader's p50 and p99
(nearest rank) in both runs, how many imports were in flight at each read (the least), the imports
finished while the reader read, and internal errors of imports (must be 0).
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

READS = 100


async def import_isolation() -> dict[str, object]:
    from import_load import IMPORTERS, reader_under_load

    results: dict[str, object] = {"importers": IMPORTERS, "reads": READS}
    for name, importers in (("alone", 0), ("while_importing", IMPORTERS)):
        load = await reader_under_load(reads=READS, importers=importers)
        results[name] = {
            "p50_ms": round(load.percentile(0.5) * 1000, 1), "p99_ms": round(load.percentile(0.99) * 1000, 1),
            "max_ms": round(max(load.reads) * 1000, 1), "least_in_flight": min(load.in_flight),
            "imports_done": load.imports, "import_errors": len(load.import_errors),
        }
    return results
