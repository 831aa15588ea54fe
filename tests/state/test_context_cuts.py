"""Cutting a role's context to its budget keeps what the message depends on: the last exchange, the goal and
every constraint (compacted, never dropped), the resolver's reading of the message, and an ambiguous pronoun is a
hint, not a list of every candidate."""

from __future__ import annotations

from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from alfred_mcp.state.constraints import (
    Constraint,
    ConstraintSnapshot,
    SessionConstraints,
    compile_constraints,
    merge_constraints,
)
from alfred_mcp.state.context import DEFAULT_BUDGETS, ContextInputs, Section, build_context, fit_budget
from alfred_mcp.state.conversation import ConversationHistory, record_reply, record_user_message
from alfred_mcp.state.entity_resolver import CANDIDATES_SHOWN, Candidate, Mention
from alfred_mcp.state.registry import RefEntry

WORDS = ["salmon", "gluten", "dairy", "shellfish", "cilantro", "mushrooms", "peanuts", "sesame", "olives", "anchovies",
         "pork", "lamb", "eggplant", "coconut"]
ROLES_WITH_TALK = ("understand", "think")

words = st.text(alphabet="abcdefghijklmnopqrstuvwxyz", min_size=1, max_size=12)
sentence = st.lists(words, min_size=3, max_size=60).map(" ".join)


def _talk(exchanges: list[tuple[str, str]], message: str) -> ConversationHistory:
    history = ConversationHistory()
    for turn, (user, reply) in enumerate(exchanges, start=1):
        history = record_reply(record_user_message(history, turn, user), turn, reply)
    return record_user_message(history, len(exchanges) + 1, message)


def _constraints(excluded: list[str], goal: str) -> SessionConstraints:
    snapshot = ConstraintSnapshot(
        new_constraints=[Constraint(type="ingredient_excluded", field="ingredient", value=word) for word in excluded],
        goal_update=goal, goal_subdomain="recipes")
    return merge_constraints(SessionConstraints(), snapshot, turn=1).constraints


def _inputs(exchanges: list[tuple[str, str]], message: str, excluded: list[str], goal: str, entities: int,
            candidates: int) -> ContextInputs:
    turn = len(exchanges) + 1
    entries = [RefEntry(f"shop_{n}", "shop", f"row-{n}", f"shopping line number {n} of the week", "read", 1, turn - 1, None)
               for n in range(1, entities + 1)]
    mention = Mention("it", "ambiguous", "low", candidates=tuple(
        Candidate(f"shop_{n}", "shop", f"shopping line number {n}", "active") for n in range(1, candidates + 1)))
    return ContextInputs(turn=turn, user_message=message, entries=entries, conversation=_talk(exchanges, message),
                         constraints=compile_constraints(_constraints(excluded, goal)), mentions=[mention] if candidates else [])


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow],
          phases=[Phase.explicit, Phase.reuse, Phase.generate])
@given(
    exchanges=st.lists(st.tuples(sentence, sentence), min_size=1, max_size=12),
    message=sentence,
    excluded=st.lists(st.sampled_from(WORDS), min_size=1, max_size=8, unique=True),
    goal=sentence.map(lambda text: text[:80].strip()),
    entities=st.integers(min_value=0, max_value=60),
    candidates=st.integers(min_value=0, max_value=12),
)
def test_a_cut_context_keeps_the_last_exchange_the_goal_and_every_constraint_within_budget(
    exchanges: list[tuple[str, str]], message: str, excluded: list[str], goal: str, entities: int, candidates: int,
) -> None:
    inputs = _inputs(exchanges, message, excluded, goal, entities, candidates)
    last_user, last_reply = exchanges[-1]
    for role in ROLES_WITH_TALK:
        context = build_context(role, inputs)
        text = context.text()
        assert context.size <= DEFAULT_BUDGETS[role], role
        conversation = context.section("conversation")
        assert "left out" not in conversation, (role, conversation)
        assert f"User: {last_user}"[:200] in conversation or f"User: {last_user[:120]}" in conversation, (role, conversation)
        assert last_reply[-120:] in conversation, (role, conversation)
        constraints = context.section("constraints")
        assert all(word in constraints for word in excluded), (role, constraints)
        assert goal[:60] in constraints, (role, constraints)
        assert f'"{message}"' in text, role
        if role == "understand" and candidates:
            assert context.section("resolver").startswith('## Resolver (what the words may refer to)\n- "it" →'), role


def test_the_conversation_is_cut_from_its_oldest_end() -> None:
    exchanges = [(f"question number {n} " + "words " * 40, f"answer number {n} " + "more " * 40) for n in range(1, 4)]
    exchanges.append(("make it again", "Which one: the salmon or the tacos?"))
    inputs = _inputs(exchanges, "the salmon", ["gluten"], "dinner tonight", 40, 0)
    conversation = build_context("understand", inputs).section("conversation")
    assert conversation.startswith("## Conversation\n")
    assert conversation.endswith("User: make it again\nAlfred: Which one: the salmon or the tacos?\nUser: the salmon\n"
                                 "→ (current turn, being processed)") or "Alfred: Which one: the salmon or the tacos?" in conversation
    assert "question number 1 " not in conversation


def test_a_section_is_compacted_rather_than_left_out_while_others_can_give_way() -> None:
    sections = [Section("task", "T" * 200, 0), Section("entities", "\n".join(["e" * 50] * 40), 1),
                Section("constraints", "## Constraints\n" + "c" * 900, 5, compact="## Constraints\n- Never use: gluten")]
    context = fit_budget("understand", sections, 1200)
    assert context.size <= 1200
    assert context.section("constraints") == "## Constraints\n- Never use: gluten"
    assert context.section("entities").endswith("[… entities cut to fit the 1200-character budget]")


def test_compact_forms_give_way_only_when_they_alone_exceed_the_budget() -> None:
    sections = [Section("task", "T" * 900, 0), Section("constraints", "## Constraints\n" + "c\n" * 600, 5, compact="x" * 400)]
    context = fit_budget("understand", sections, 1100)
    assert context.size <= 1100 and "constraints" in context.truncated


@given(count=st.integers(min_value=0, max_value=40))
def test_an_ambiguous_mention_shows_a_few_candidates_and_counts_the_rest(count: int) -> None:
    mention = Mention("it", "ambiguous", "low", candidates=tuple(
        Candidate(f"shop_{n}", "shop", f"item {n}", "active") for n in range(1, count + 1)))
    line = mention.line()
    labelled = sum(f"shop_{n} item {n} " in line for n in range(1, count + 1))
    assert labelled == min(count, CANDIDATES_SHOWN)
    assert f"{count} candidate{'s' if count > 1 else ''}" in line if count else "nothing" in line
    assert line.count("shop_") <= 2 * CANDIDATES_SHOWN
