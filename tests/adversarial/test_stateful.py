"""UUID-shaped free text mixed into random sequences of tools, prompts and resources.

A hypothesis state machine drives one server (the real client, a SQLite copy of the set-up
kitchen, a scripted model for `chat`) through turns, understandings, drafts, saves, writes,
prompts and resource reads, and the kitchen and view tools (recipes_import, recipes_export,
recipes_scale, shopping_list_from, shopping_list_check, meal_cooked, kitchen_undo, recipe_show,
meal_plan_show, shopping_list_show, entity_resolve), with text that carries UUIDs (dashed, 32 hex,
upper case, alone or inside words, up to the fields' limits). After every step: no internal error
and no database id (read from the database itself) in anything that came back; text written is read
back exactly as given. At the end, and after a restart, every resource and prompt renders.
"""

from __future__ import annotations

import json
import shutil
import tempfile
from pathlib import Path
from typing import Any

from anyio.from_thread import BlockingPortal, start_blocking_portal
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, rule, run_state_machine_as_test
from mcp import Client

from alfred_mcp.app import AlfredApp
from alfred_mcp.config import Settings
from alfred_mcp.server.mcp_server import build_server

from .corpus import DRAFT_ITEMS
from .harness import SESSION_RESOURCES, KitchenSnapshot, Outcome, call, db_ids, prompt, read, render_everything, scripted_model

_PLAIN = st.text(alphabet=st.characters(exclude_categories=["Cc", "Cs"]), min_size=1, max_size=40).filter(str.strip)
_IDS = st.uuids().map(str).flatmap(lambda u: st.sampled_from([u, u.upper(), u.replace("-", ""), f"{u}-{u[:4]}"]))
TEXT = st.one_of(
    _PLAIN,
    st.tuples(_PLAIN, _IDS, _PLAIN).map(lambda parts: f"{parts[0]} {parts[1]} {parts[2]}"),
    st.tuples(_IDS, _PLAIN).map(lambda parts: f"order {parts[0]}{parts[1]}"),
    _IDS,
    st.tuples(_PLAIN, _IDS).map(lambda parts: (parts[0] + " ") * 20 + parts[1]),
)
"""What a person might type: plain words, words around an id, ids glued to words, an id alone, long text."""
REFS = st.sampled_from(["recipe_1", "recipe_2", "inv_1", "meal_1", "gen_recipe_1", "gen_recipe_3", "task_1"])


class UuidTextMachine(RuleBasedStateMachine):
    """One server, driven at random; `problems` collects what broke."""

    template: Path

    def __init__(self) -> None:
        super().__init__()
        self.folder = tempfile.mkdtemp(prefix="alfred-stateful-")
        self.db = str(Path(self.folder) / "kitchen.db")
        shutil.copy(self.template, self.db)
        self.portal_cm = start_blocking_portal()
        self.portal: BlockingPortal = self.portal_cm.__enter__()
        self.app = self._open_app()
        self.client_cm = self.portal.wrap_async_context_manager(Client(build_server(self.app)))
        self.client: Client = self.client_cm.__enter__()
        self.last: Outcome | None = None

    def _open_app(self) -> AlfredApp:
        app = AlfredApp.from_settings(Settings(db=self.db, seed_demo=False, check_results=True))
        app.llm = scripted_model()
        self.portal.call(app.open)
        return app

    def _tool(self, tool: str, arguments: dict[str, Any]) -> None:
        self.last = self.portal.call(call, self.client, tool, arguments)

    def _ids(self) -> set[str]:
        snapshot = KitchenSnapshot(self.db)
        try:
            return db_ids(snapshot.take())
        finally:
            snapshot.close()

    def _written_as_given(self, column: str, text: str) -> None:
        """The last call wrote rows whose `column` must read back exactly as given."""
        if self.last is not None and self.last.ok:
            for row in self.last.structured["rows"]:
                assert row[column] == text, f"{column} came back as {row[column]!r}, given {text!r}"

    @initialize()
    def start(self) -> None:
        self._tool("turn_begin", {})

    # -- the agent turn, stage by stage -----------------------------------------------------------

    @rule(message=TEXT)
    def turn_start(self, message: str) -> None:
        self._tool("turn_start", {"message": message})

    @rule(summary=TEXT, reason=TEXT, goal=TEXT)
    def submit_understanding(self, summary: str, reason: str, goal: str) -> None:
        output = {"referenced_refs": ["recipe_1"], "processed_message": summary[:200],
                  "curation": {"retain_active": [{"ref": "recipe_1", "reason": reason[:200]}], "curation_summary": summary[:300]},
                  "constraint_snapshot": {"goal_update": goal[:200], "source_phrases": [goal]}}
        self._tool("turn_submit", {"role": "understand", "output": output})

    @rule(goal=TEXT, description=TEXT)
    def submit_plan(self, goal: str, description: str) -> None:
        output = {"goal": goal[:300], "decision": "plan_direct",
                  "steps": [{"description": description[:500], "step_type": "read", "subdomain": "recipes"}]}
        self._tool("turn_submit", {"role": "think", "output": output})

    @rule(summary=TEXT, note=TEXT)
    def complete_step(self, summary: str, note: str) -> None:
        output = {"action": "step_complete", "result_summary": (summary * 40)[:1000], "note_for_next_step": note[:500]}
        self._tool("turn_submit", {"role": "act", "output": output})

    @rule(text=TEXT)
    def act_read(self, text: str) -> None:
        arguments = {"table": "recipes", "filters": [{"field": "name", "op": "ilike", "value": f"%{text}%"}], "limit": 3}
        self._tool("turn_submit", {"role": "act", "output": {"action": "tool_call", "tool": "db_read", "arguments": arguments}})

    @rule(response=TEXT)
    def submit_reply(self, response: str) -> None:
        self._tool("turn_submit", {"role": "reply", "output": {"response": response}})

    @rule(reason=TEXT)
    def turn_abandon(self, reason: str) -> None:
        self._tool("turn_abandon", {"reason": reason[:500]})

    @rule(message=TEXT)
    def chat(self, message: str) -> None:
        self._tool("chat", {"message": message})

    @rule()
    def turn_status(self) -> None:
        self._tool("turn_status", {})

    @rule()
    def turn_context(self) -> None:
        self._tool("turn_context", {})

    # -- the session's other tools ---------------------------------------------------------------

    @rule(message=TEXT)
    def turn_begin(self, message: str) -> None:
        self._tool("turn_begin", {"message": message})

    @rule(message=TEXT, reason=TEXT, ref=REFS)
    def understanding_submit(self, message: str, reason: str, ref: str) -> None:
        self._tool("understanding_submit", {"message": message, "referenced": [ref],
                                            "curation": {"retain_active": [{"ref": ref, "reason": reason[:200]}]}})

    @rule(reply=TEXT)
    def turn_reply(self, reply: str) -> None:
        self._tool("turn_reply", {"reply": reply})

    @rule(name=TEXT, notes=TEXT, parent=REFS)
    def draft_create(self, name: str, notes: str, parent: str) -> None:
        item = {**DRAFT_ITEMS["recipe"], "name": name[:200], "notes": notes, "parent_recipe": parent}
        self._tool("draft_create", {"entity_type": "recipe", "items": [item]})

    @rule(description=TEXT, ref=REFS)
    def draft_revise(self, description: str, ref: str) -> None:
        self._tool("draft_revise", {"ref": ref, "patch": {"description": description}})

    @rule()
    def draft_save_all(self) -> None:
        pending = self.portal.call(call, self.client, "draft_read", {})
        refs = [d["ref"] for d in (pending.structured or {}).get("drafts", [])][:50]
        self._tool("draft_save", {"refs": refs or ["gen_recipe_1"]})

    @rule(name=TEXT, notes=TEXT)
    def db_create(self, name: str, notes: str) -> None:
        self._tool("db_create", {"table": "shopping_list", "data": {"name": name[:200], "notes": notes}})
        self._written_as_given("notes", notes)

    @rule(text=TEXT, ref=REFS)
    def db_update(self, text: str, ref: str) -> None:
        self._tool("db_update", {"table": "recipes", "filters": [{"field": "id", "op": "eq", "value": ref}], "data": {"notes": text}})
        self._written_as_given("notes", text)

    # -- the kitchen and view tools ----------------------------------------------------------------

    @rule(name=TEXT, step=TEXT, url=TEXT)
    def recipes_import(self, name: str, step: str, url: str) -> None:
        source = json.dumps({"@type": "Recipe", "name": name[:200], "url": f"https://example.test/r/{url.replace(' ', '-')}",
                             "recipeIngredient": ["1 cup lentils", "2 cups water"], "recipeInstructions": [step]})
        self._tool("recipes_import", {"source": source})

    @rule(ref=REFS, fmt=st.sampled_from(["schema.org", "markdown"]))
    def recipes_export(self, ref: str, fmt: str) -> None:
        self._tool("recipes_export", {"recipe": ref, "format": fmt})

    @rule(ref=REFS, servings=st.integers(1, 12))
    def recipes_scale(self, ref: str, servings: int) -> None:
        self._tool("recipes_scale", {"recipe": ref, "servings": servings})

    @rule(ref=REFS)
    def recipe_show(self, ref: str) -> None:
        self._tool("recipe_show", {"recipe": ref})

    @rule(ref=REFS)
    def shopping_list_from(self, ref: str) -> None:
        self._tool("shopping_list_from", {"recipes": [ref]})

    @rule(ref=st.sampled_from(["shop_1", "shop_2", "shop_3"]), bought=st.booleans())
    def shopping_list_check(self, ref: str, bought: bool) -> None:
        self._tool("shopping_list_check", {"items": [ref], "bought": bought})

    @rule()
    def shopping_list_show(self) -> None:
        self._tool("shopping_list_show", {})

    @rule()
    def meal_plan_show(self) -> None:
        self._tool("meal_plan_show", {"from": "2026-01-12", "to": "2026-01-18"})

    @rule(ref=st.sampled_from(["meal_1", "meal_2"]), servings=st.integers(1, 8))
    def meal_cooked(self, ref: str, servings: int) -> None:
        self._tool("meal_cooked", {"meal": ref, "servings": servings})

    @rule()
    def kitchen_undo(self) -> None:
        self._tool("kitchen_undo", {})

    @rule(text=TEXT)
    def entity_resolve(self, text: str) -> None:
        self._tool("entity_resolve", {"text": text[:500]})

    @rule(text=TEXT)
    def db_read(self, text: str) -> None:
        self._tool("db_read", {"table": "shopping_list", "filters": [{"field": "notes", "op": "eq", "value": text}]})

    @rule(reason=TEXT)
    def batch_skip(self, reason: str) -> None:
        self._tool("batch_skip", {"batch": "batch_1", "refs": ["gen_recipe_1"], "reason": reason[:500]})

    # -- prompts and resources --------------------------------------------------------------------

    @rule(name=st.sampled_from(["understand", "think"]), message=TEXT)
    def role_prompt(self, name: str, message: str) -> None:
        self.last = self.portal.call(prompt, self.client, name, {"message": message})

    @rule(description=TEXT)
    def act_prompt(self, description: str) -> None:
        self.last = self.portal.call(prompt, self.client, "act", {"step_type": "read", "description": description})

    @rule(kind=st.sampled_from([*SESSION_RESOURCES, "turns/current", "batches/latest"]))
    def session_resource(self, kind: str) -> None:
        self.last = self.portal.call(read, self.client, f"alfred://session/current/{kind}")

    @rule(ref=st.one_of(REFS, _IDS, TEXT.map(lambda text: text.replace("/", " "))))
    def ref_resource(self, ref: str) -> None:
        self.last = self.portal.call(read, self.client, f"alfred://session/current/ref/{ref}")

    # -- what must hold --------------------------------------------------------------------------

    @invariant()
    def nothing_internal_and_no_database_id(self) -> None:
        if self.last is not None:
            assert not self.last.internal, f"internal error: {self.last.text[:300]}"
            assert not self.last.leaked(self._ids()), f"a database id came back: {self.last.text[:300]}"

    def teardown(self) -> None:
        try:
            problems = self.portal.call(render_everything, self.client, self._ids())
            self.client_cm.__exit__(None, None, None)
            self.portal.call(self.app.close)
            self.app = self._open_app()  # a restart: everything stored must still render
            with self.portal.wrap_async_context_manager(Client(build_server(self.app))) as client:
                problems += [f"after a restart: {p}" for p in self.portal.call(render_everything, client, self._ids())]
            self.portal.call(self.app.close)
            assert not problems, problems
        finally:
            self.portal_cm.__exit__(None, None, None)
            shutil.rmtree(self.folder, ignore_errors=True)


def test_uuid_shaped_text_never_breaks_a_session_or_leaks(sqlite_template: tuple[Path, Any]) -> None:
    UuidTextMachine.template = sqlite_template[0]
    run_state_machine_as_test(UuidTextMachine, settings=settings(
        max_examples=12, stateful_step_count=20, deadline=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
    ))
