"""Write the migration set's files: `python -m alfred_mcp.store.postgres [folder]` (default `migrations`)."""

from __future__ import annotations

import sys
from pathlib import Path

from alfred_mcp.store.postgres.migrations import write_migrations

for path in write_migrations(Path(sys.argv[1] if len(sys.argv) > 1 else "migrations")):
    print(path)
