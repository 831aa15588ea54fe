"""Which tools this server serves: read-only mode and the tool allow-list (named toolsets included).

- `--read-only` / ALFRED_READ_ONLY=1: only tools whose readOnlyHint is true are listed and callable.
- `--tools a,b` / ALFRED_TOOLS: tool names and named toolsets (TOOLSETS); an unknown name fails at
  startup, naming it. With both, a tool must pass both. The agent's tool runner obeys the same controls.
- `--no-ui` / ALFRED_UI=0: tools only an MCP Apps view calls (shopping_list_check) are not served.
- `--listed a,b` / ALFRED_LISTED: what tools/list shows, as names and toolsets (a toolset's extras, EXTRA_TOOLS, only
  when named); it narrows the list, never what is served or what Act may call: every served tool stays callable by
  name. An unknown name fails at startup, naming it; so does a tool named that the other controls do not serve.
  Without it, tools/list is the default list (`lists`).
"""

from __future__ import annotations

import difflib
from collections.abc import Mapping
from dataclasses import dataclass

from alfred_mcp.config import Settings
from alfred_mcp.contracts import EXTRA_TOOLS, ToolContract, listed
from alfred_mcp.errors import ConfigError

TOOLSETS: dict[str, tuple[str, ...]] = {
    "core": ("db_read", "db_create", "db_update", "db_delete", "describe_table", "show_working_set", "session_start",
             "turn_begin", "turn_reply", "understanding_submit", "constraints_read", "recipes_search", "recipes_makeable",
             "entity_resolve"),
    "drafts": ("draft_create", "draft_read", "draft_revise", "draft_discard", "draft_save",
               "batch_open", "batch_status", "batch_skip", "batch_complete"),
    "stages": ("turn_start", "turn_context", "turn_submit", "turn_status", "turn_abandon"),
    "agent": ("chat",),
    "kitchen": ("recipes_import", "recipes_export", "recipes_scale", "shopping_list_from", "meal_cooked", "kitchen_undo"),
    "views": ("recipe_show", "meal_plan_show", "shopping_list_show", "shopping_list_check"),
}
"""Named toolsets for `--tools` (each tool is in exactly one; 'all' names every tool)."""


@dataclass(frozen=True)
class HostControls:
    """Which tools are served, and why a tool is not."""

    served: frozenset[str]
    reasons: Mapping[str, str]
    listing: frozenset[str] | None = None
    """The served tools tools/list shows (`--listed`); None: the default list (`lists`)."""
    allow_list: bool = False
    """An allow-list (`--tools`) was given: without a listing, tools/list shows exactly what it serves."""

    @classmethod
    def from_settings(cls, settings: Settings, contracts: Mapping[str, ToolContract]) -> HostControls:
        """Raises ConfigError naming an unknown tool or toolset in `settings.tools` or `settings.listed`, or a tool
        `settings.listed` names that is not served."""
        allowed = expand(settings.tools, contracts) if settings.tools else set(contracts)
        reasons = {name: "it is not in this server's tool allow-list (--tools)" for name in contracts if name not in allowed}
        if settings.read_only:
            reasons.update({name: "this server is read-only (--read-only)"
                            for name, c in contracts.items() if not c.hint("readOnlyHint")})
        if not settings.ui:
            reasons.update({name: "it serves MCP Apps views, which are off (--no-ui)" for name, c in contracts.items() if c.app_only})
        served = frozenset(name for name in contracts if name not in reasons)
        listing = _listing(settings.listed, contracts, served, reasons) if settings.listed else None
        return cls(served, reasons, listing, bool(settings.tools))

    def lists(self, contract: ToolContract, *, has_model: bool, renders_views: bool) -> bool:
        """Whether tools/list shows `contract`: the listing's tools; without one, what an allow-list serves, or the
        default list (no EXTRA_TOOLS, `chat` only with a model, a view-only tool only to a client that renders views)."""
        if contract.name not in self.served:
            return False
        if self.listing is not None:
            return contract.name in self.listing
        if self.allow_list:
            return True
        return listed(contract.name, everything=False, has_model=has_model) and (renders_views or not contract.app_only)

    def refusal(self, name: str) -> str | None:
        """Why `name` may not be called here (None: it may, or it is not a tool at all)."""
        reason = self.reasons.get(name)
        return f"{name} is not available: {reason}." if reason else None


def _listing(names: tuple[str, ...], contracts: Mapping[str, ToolContract], served: frozenset[str],
             reasons: Mapping[str, str]) -> frozenset[str]:
    """The served tools `--listed` names: a toolset gives its tools but the extras (EXTRA_TOOLS, listed when named).

    Raises:
        ConfigError: an unknown name, a tool named that is not served (saying why), or no served tool at all.
    """
    tools = expand(names, contracts, control="--listed / ALFRED_LISTED", field="listed")
    for name in names:
        if name in contracts and name not in served:
            raise ConfigError(f"--listed / ALFRED_LISTED names {name}, which is not served: {reasons[name]}.",
                              field="listed", value=name)
    named = {name for name in names if name in contracts} | (set(contracts) if "all" in names else set())
    listing = frozenset(name for name in tools if name in served and (name not in EXTRA_TOOLS or name in named))
    if not listing:  # `--tools core --listed stages`: a client would see no tool at all
        held = sorted(tools)[0]
        raise ConfigError(f"--listed / ALFRED_LISTED ({','.join(names)}) lists no tool this server serves: {held}, for one, "
                          f"is not served, as {reasons.get(held, 'it is not listed')}.", field="listed", value=",".join(names))
    return listing


def expand(names: tuple[str, ...], contracts: Mapping[str, ToolContract], *, control: str = "--tools / ALFRED_TOOLS",
           field: str = "tools") -> set[str]:
    """Tool names and toolsets as tool names.

    Raises:
        ConfigError: an unknown name, naming the `control` (the message lists the tools and toolsets).
    """
    tools: set[str] = set()
    for name in names:
        if name == "all":
            tools.update(contracts)
        elif name in TOOLSETS:
            tools.update(TOOLSETS[name])
        elif name in contracts:
            tools.add(name)
        else:
            close = difflib.get_close_matches(name, [*TOOLSETS, "all", *contracts], n=1, cutoff=0.75)
            hint = f" Did you mean {close[0]}?" if close else ""
            raise ConfigError(
                f"{control}: unknown tool or toolset '{name}'. Toolsets: {', '.join(TOOLSETS)}, all; "
                f"tools: {', '.join(sorted(contracts))}.{hint}",
                field=field, value=name,
            )
    return tools
