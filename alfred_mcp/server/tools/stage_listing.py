"""What a stage listing's tools/list carries: the roles' output shapes and a first turn's instructions, once.

A client whose host lists turn_start through `--listed` (e.g. `stages`: its model calls only the turn tools) reads
tools/list before its first call. turn_start's input schema then carries what the session's first answers would
otherwise send: each role's output shape (the `output_shapes` text of the answers) and the instructions of the roles
a first turn sends ahead or ends with (LISTED_INSTRUCTIONS), exactly as an answer words them; so a model can send
Understand's and Think's outputs with its FIRST turn_start. Every session counts them as sent before its first turn
(`count_as_sent`; stage_view.IN_TOOLS_LIST), so no answer sends them again while unchanged; `turn_context` with
`full: true` does. Act's instructions, by step type, still come with the first step that needs each.

It also carries, once, a catalog of the kitchen tools Act can call (`then`'s description: each tool's typed signature
and first clause, agent/prompting.py `tool_catalog`) and the columns of every table they write (one line a table, as a
write step's context gives them: state/table_columns.py), so Think can give any step its `call` before Act is reached,
and Act's steps name their tools without resending a signature (`in_catalog`).
"""

from __future__ import annotations

import copy
from functools import cache
from typing import Any

from alfred_mcp.agent.act_tools import act_callable
from alfred_mcp.agent.prompting import fixed_prompt, tool_catalog
from alfred_mcp.config import Settings
from alfred_mcp.contracts import ToolContract, load_contracts
from alfred_mcp.kitchen.schema import TABLES
from alfred_mcp.server.tools.stage_view import IN_TOOLS_LIST, instructions_sent, schema_digested
from alfred_mcp.server.toolsets import HostControls
from alfred_mcp.session import UnitOfWork
from alfred_mcp.session.documents import CLIENT_MEMO
from alfred_mcp.state.client_memo import ClientMemo, digest
from alfred_mcp.state.role_outputs import ROLE_OUTPUTS, output_schema
from alfred_mcp.state.schema_text import schema_text
from alfred_mcp.state.table_columns import columns_section, writable_tables_text

CARRIER = "turn_start"
"""The tool whose input schema carries the role texts."""
LISTED_INSTRUCTIONS = ("understand", "think", "reply")
"""Roles whose instructions a stage listing carries: a first turn_start sends Understand's and Think's outputs ahead,
and every turn but one answered (a lookup from its rows, a write by the state's account) ends with Reply."""


def carries_role_texts(host: HostControls) -> bool:
    """Whether tools/list carries the role texts: a `--listed` listing that lists turn_start."""
    return host.listing is not None and CARRIER in host.listing


def listed_schema(contract: ToolContract, host: HostControls) -> tuple[str, dict[str, Any]]:
    """`contract`'s description and inputSchema as tools/list shows them: under a stage listing, turn_start's `then`
    carries the role texts in its items' field descriptions (`output`: each role's shape; `role`: the instructions),
    and its description says so. The schema, not the description, since clients cut long tool descriptions (Claude
    Code at 2,048 characters) but pass the inputSchema whole; what it admits is unchanged."""
    if contract.name != CARRIER or not carries_role_texts(host):
        return contract.description, contract.input_schema
    schema = copy.deepcopy(contract.input_schema)
    item = schema["properties"]["then"]["items"]["properties"]
    item["output"]["description"] = shapes_text()
    item["role"]["description"] = instructions_text()
    schema["properties"]["then"]["description"] = catalog_text(in_catalog(host))
    return f"{contract.description} {IN_SCHEMA}", schema


IN_SCHEMA = ("Role output shapes (`then[].output`, also turn_submit's `output`), Understand, Think and Reply "
             "instructions (`then[].role`) and the kitchen tools a step calls are in this schema, once (turn_context "
             "full: true resends); Act's come with its first step of each type.")
"""What turn_start's description adds under a stage listing: where the role texts are."""


CATALOG_HEAD = ("Kitchen tools a Think step's `call` or Act's tool_call may name (not listed here; the server runs them; "
                "no `session`; a row's name works where one ref is asked, e.g. recipe: \"pancakes\"):")
"""What the catalog of Act's tools starts with."""
COLUMNS_HEAD = "Columns of db_create/db_update `data`, by table (* required on create):"
"""What the tables' columns, after the catalog, start with."""
COLUMNS_LEFT_OUT = {
    "recipe_ingredients": "a recipe's lines are written with it (draft_save) or by a write step, whose context gives them",
    "cooking_log": "meal_cooked writes it",
    "preferences": "one row, written by a step on preferences, whose context gives its columns",
}
"""Writable tables whose columns the catalog leaves out (it stays under half the default tools/list), each with why."""


def in_catalog(host: HostControls) -> frozenset[str]:
    """The tools whose signatures the host's tools/list carries in its catalog: every served tool Act may call, under
    a stage listing; none otherwise."""
    return frozenset(act_callable(host.served)) if carries_role_texts(host) else frozenset()


@cache
def catalog_text(names: frozenset[str]) -> str:
    """The catalog of `names`, in the order a write step lists its tools, then every writable table's columns (so a
    step's `call` names a meal's `recipe_id` without a describe_table first)."""
    tools = tool_catalog(name for name in act_callable() if name in names)
    return f"{CATALOG_HEAD}\n{tools}\n{COLUMNS_HEAD}\n{writable_tables_text(COLUMNS_LEFT_OUT, shown=tools)}"


@cache
def shapes_text() -> str:
    """Each role's output shape, as the answers' `output_shapes` give it, one role after another."""
    return "\n".join(f"{role}: {schema_text(output_schema(role))}" for role in ROLE_OUTPUTS)


@cache
def instructions_text() -> str:
    """The instructions of LISTED_INSTRUCTIONS' roles, word for word as the answers would send them."""
    return "\n\n".join(text for _, text in _instructions())


@cache
def _instructions() -> tuple[tuple[str, str], ...]:
    return tuple(part for role in LISTED_INSTRUCTIONS for part in instructions_sent(fixed_prompt(role)))


@cache
def carried_texts() -> dict[str, str]:
    """What tools/list carries, by the client memo's key ('schema:<role>', 'instructions:<template>'), as the memo
    digests it."""
    schemas = {f"schema:{role}": schema_digested(output_schema(role)) for role in ROLE_OUTPUTS}
    return {**schemas, **{f"instructions:{key}": text for key, text in _instructions()}}


def lists_role_texts(settings: Settings) -> bool:
    """Whether the host's tools/list carries the role texts (`carries_role_texts` of its controls)."""
    return bool(settings.listed) and carries_role_texts(HostControls.from_settings(settings, load_contracts()))


def count_as_sent(work: UnitOfWork, settings: Settings) -> None:
    """Under a stage listing, record in the session's client memo that its client has the role texts and the tables'
    columns the catalog carries (from tools/list), unless it has them already."""
    if not lists_role_texts(settings):
        return
    memo = work.session.read(CLIENT_MEMO) or ClientMemo()
    missing = {key: text for key, text in carried_texts().items() if memo.seen(key, text) is None}
    columns = [(heading, body) for heading, body in carried_columns()
               if not any(version.digest == digest(body) for version in memo.sections.get(heading, []))]
    if missing or columns:
        for key, text in missing.items():
            memo.remember(key, text, IN_TOOLS_LIST)
        for heading, body in columns:
            memo.remember_section(heading, body, IN_TOOLS_LIST, "")
        work.session.write(CLIENT_MEMO, memo)


@cache
def carried_columns() -> tuple[tuple[str, str], ...]:
    """The columns sections of a write step (heading, body) whose every line the catalog carries: a step's context
    names them as sent instead of sending them again."""
    carried = set(writable_tables_text(COLUMNS_LEFT_OUT).splitlines())
    sections = (columns_section(subdomain).partition("\n") for subdomain in sorted({table.subdomain for table in TABLES.values()}))
    return tuple((heading, body) for heading, _, body in sections
                 if heading and set(body.splitlines()) <= carried)
