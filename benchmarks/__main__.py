"""`python -m benchmarks`: run every benchmark and print one JSON object of ratios."""

from __future__ import annotations

import json
import sys

import anyio

from . import context, drafts, economy, foundation, http, loop, supabase


async def run_all() -> dict[str, object]:
    return {
        "read_overhead": await foundation.read_overhead(),
        "translate_10k": await foundation.translate_10k(),
        "registry_lookup_scaling": foundation.registry_lookup_scaling(),
        "session_save_scaling": await foundation.session_save_scaling(),
        "batch_save": await drafts.batch_save(),
        "context_growth": await context.context_growth(),
        "context_build": context.context_build(),
        "loop_overhead": await loop.loop_overhead(),
        "http_concurrency": await http.http_concurrency(),
        "supabase_vs_postgres": await supabase.supabase_vs_postgres(),
        "tools_list_bytes": await economy.tools_list_bytes(),
        "stage_turn_bytes": await economy.stage_turn_bytes(),
    }


def main() -> int:
    results = anyio.run(run_all)
    json.dump(results, sys.stdout, indent=2)
    sys.stdout.write("\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
