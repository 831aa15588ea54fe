"""The reply check: a reply is refused for what it claims without the state, or leaves out."""

from __future__ import annotations

import functools

import pytest
from reply_corpus import (
    STANDING_PLACES,
    corpus,
    description_cases,
    draft_edit_cases,
    labelled_thing_cases,
    rates,
    round_eight_cases,
    round_nine_cases,
    round_seven_cases,
    round_three_cases,
    shortened_name_cases,
    standing_cases,
)

from alfred_mcp.kitchen.ingredient_match import FORM_WORDS
from alfred_mcp.kitchen.schema import UNITS
from alfred_mcp.state.reply_check import (
    _BACKED_BY,
    _TABLES,
    _VERB_OF,
    _VERB_TABLE,
    Fact,
    Item,
    ReplyFacts,
    check_reply,
    claims,
    left_out_of_results,
    names_whole,
)

DRAFT = Item("gen_recipe_1", "Honey Garlic Cod")
FAILED = Item("gen_recipe_2", "Lemon Butter Cod", "name is required")
GENERATED = Fact("generated", "recipes", "gen_recipe_1", "Honey Garlic Cod")
SAVED = Fact("saved", "recipes", "recipe_4", "Honey Garlic Cod")
SHOP = [Fact("created", "shopping_list", "shop_1", "Eggs"), Fact("created", "shopping_list", "shop_2", "Milk")]


@pytest.mark.parametrize(
    ("text", "claimed"),
    [
        pytest.param("I saved your recipes.", ["saved"], id="plain-claim"),
        pytest.param("I said I had added the pears, but I had not.", [], id="correction"),
        pytest.param("Milk is now on your list.", ["is now on"], id="state-claim"),
        pytest.param("I saved Thai Curry; want me to add it to your list?", ["saved"], id="claim-before-a-question"),
        pytest.param("Done! I've added shellfish and removed the pears.", ["added", "removed"], id="two-claims"),
        pytest.param("I added shellfish and removed nothing else.", ["added"], id="removed-nothing"),
        pytest.param("Nothing was saved yet.", [], id="negated"),
        pytest.param("They are not saved yet.", [], id="not-yet"),
        pytest.param("Want me to save them? Once saved they stay.", [], id="question-and-conditional"),
        pytest.param("It couldn't be deleted.", [], id="contraction"),
        pytest.param("Here are 3 unsaved drafts.", [], id="unsaved-is-not-saved"),
        pytest.param("I deleted the tacos; the meals planned with them are now empty.", ["deleted"], id="participle-describes"),
        pytest.param("I deleted the tacos; the dinner it was planned for is now empty.", ["deleted"], id="relative-clause-describes"),
        pytest.param("The tacos are now planned for Friday.", ["planned"], id="now-passive-claims"),
        pytest.param("Ten meals are planned, from the salmon tonight to the cod next week.", [], id="present-passive-describes"),
        pytest.param("Here is what goes into it, with the optional garnish marked.", [], id="trailing-participle-describes"),
        pytest.param("I deleted it; its planned dinner stays on the plan without a recipe.", ["deleted"], id="adjective-participle"),
        pytest.param("The two tacos were planned for Friday.", ["planned"], id="passive-with-a-number-still-claims"),
    ],
)
def test_claims_are_past_tense_assertions_only(text: str, claimed: list[str]) -> None:
    assert [claim.word for claim in claims(text)] == claimed


@pytest.mark.parametrize(
    ("text", "facts", "problem"),
    [
        pytest.param("I saved Honey Garlic Cod.", ReplyFacts(things=[GENERATED], unsaved=[DRAFT]),
                     "it says 'Honey Garlic Cod' was saved, but this turn did not do that", id="false-save"),
        pytest.param("Saved two of them.", ReplyFacts(things=[SAVED], failed=[FAILED]),
                     "it leaves out gen_recipe_2 (Lemon Butter Cod), which failed: name is required", id="failure-left-out"),
        pytest.param("Here you go.", ReplyFacts(things=[GENERATED], unsaved=[DRAFT]),
                     "it leaves out the drafts generated and not saved: gen_recipe_1 (Honey Garlic Cod)", id="draft-left-out"),
        pytest.param("Here is Honey Garlic Cod.", ReplyFacts(things=[GENERATED], unsaved=[DRAFT]),
                     "it must say that gen_recipe_1 (Honey Garlic Cod) are not saved yet", id="draft-not-marked"),
        pytest.param("All done.", ReplyFacts(stopped="Step 1 failed twice"),
                     "it must tell the user the turn stopped before finishing", id="stop-left-out"),
        pytest.param("Deleted it.", ReplyFacts(), "nothing was removed this turn", id="false-delete"),
    ],
)
def test_a_reply_that_contradicts_or_omits_the_state_is_refused_with_what_is_wrong(text: str, facts: ReplyFacts, problem: str) -> None:
    problems = check_reply(text, facts)
    assert any(problem in found for found in problems), problems


@pytest.mark.parametrize(
    ("text", "facts"),
    [
        pytest.param("Honey Garlic Cod is ready, not saved yet. Want me to save it?",
                     ReplyFacts(things=[GENERATED], unsaved=[DRAFT]), id="draft-honest"),
        pytest.param("Saved Honey Garlic Cod; Lemon Butter Cod could not be saved.",
                     ReplyFacts(things=[SAVED], failed=[FAILED], unsaved=[FAILED]), id="partial-save"),
        pytest.param("I couldn't finish: the recipe was refused.", ReplyFacts(stopped="blocked"), id="stop-acknowledged"),
        pytest.param("Added shellfish to your allergies.", ReplyFacts(things=[Fact("updated", "preferences", "preferences_1", "Preferences")]), id="update-is-an-add"),
    ],
)
def test_a_truthful_reply_passes(text: str, facts: ReplyFacts) -> None:
    assert check_reply(text, facts) == []


@pytest.mark.parametrize(
    ("text", "facts", "problem"),
    [
        pytest.param("I also added the arugula, pears and lemons to your shopping list.", ReplyFacts(things=[SAVED]),
                     "it says 'the arugula' was added on shopping list, but this turn did not do that", id="issue-24-sample"),
        pytest.param("I added eggs and pears to your list.", ReplyFacts(things=SHOP),
                     "it says 'pears' was added on your list", id="one-of-two-things"),
        pytest.param("I added eggs to your pantry.", ReplyFacts(things=SHOP), "it says 'eggs' was added on inventory", id="wrong-table"),
        pytest.param("I saved Honey Garlic Cod and added eggs to your pantry.", ReplyFacts(things=[SAVED, *SHOP]),
                     "it says 'eggs' was added on inventory", id="the-second-verbs-table"),
        pytest.param("I removed 2 items from your pantry: spinach and pears.",
                     ReplyFacts(things=[Fact("deleted", "inventory", "inv_1", "Baby Spinach")]), "it says 'pears' was removed",
                     id="one-of-the-things-after-a-colon"),
        pytest.param("I added the pears to your list.", ReplyFacts(things=SHOP, earlier=[Fact("created", "shopping_list", "shop_0", "Pears")]),
                     "that was an earlier turn", id="an-earlier-turns-thing"),
        pytest.param("Thai Curry was removed from your plan.", ReplyFacts(things=[Fact("deleted", "recipes", "recipe_2", "Thai Curry")]),
                     "nothing was removed on meal plans", id="a-removal-claimed-on-another-table"),
    ],
)
def test_a_claim_is_checked_for_each_thing_it_names(text: str, facts: ReplyFacts, problem: str) -> None:
    problems = check_reply(text, facts)
    assert any(problem in found for found in problems), problems


@pytest.mark.parametrize(
    ("text", "facts"),
    [
        pytest.param("I said I had added the arugula, but I had not.", ReplyFacts(), id="correction"),
        pytest.param("I did not add the pears.", ReplyFacts(), id="negation"),
        pytest.param("Your shopping list now has eggs and milk.", ReplyFacts(things=SHOP), id="paraphrase"),
        pytest.param("Earlier I added the pears; this time eggs and milk were added to your list.",
                     ReplyFacts(things=SHOP, earlier=[Fact("created", "shopping_list", "shop_0", "Pears")]), id="earlier-said-so"),
        pytest.param("I've put together Honey Garlic Cod for you; it is a draft, not saved yet.",
                     ReplyFacts(things=[GENERATED], unsaved=[DRAFT]), id="put-together-is-no-add"),
        pytest.param("I generated 3 cod recipes for you; Honey Garlic Cod is a draft, not saved yet.",
                     ReplyFacts(things=[GENERATED], unsaved=[DRAFT]), id="a-counted-kind-names-no-thing"),
        pytest.param("I recorded that you're allergic to shellfish.",
                     ReplyFacts(things=[Fact("updated", "preferences", "preferences_1", "Preferences")]), id="allergic-is-preferences"),
        pytest.param("I removed 2 items from your pantry: spinach and rice.",
                     ReplyFacts(things=[Fact("deleted", "inventory", "inv_1", "Baby Spinach"), Fact("deleted", "inventory", "inv_2", "Rice")]),
                     id="things-after-a-colon"),
        pytest.param("I've put everything you need on your shopping list.", ReplyFacts(things=SHOP), id="a-describing-phrase"),
        pytest.param("I've updated you on your tasks: two are due today.", ReplyFacts(things=[Fact("updated", "tasks", "task_1", "Buy bread")]),
                     id="updated-you"),
        pytest.param("I saved Honey Garlic Cod and added eggs and milk to your shopping list.", ReplyFacts(things=[SAVED, *SHOP]),
                     id="each-verb-its-own-table"),
        pytest.param("I updated your shopping list with eggs and milk.", ReplyFacts(things=SHOP), id="a-list-updated-by-adding"),
        pytest.param("I marked the eggs as bought.", ReplyFacts(things=[Fact("updated", "shopping_list", "shop_1", "Eggs")]), id="marked"),
        pytest.param("I deleted Thai Curry and removed it from your meal plan.",
                     ReplyFacts(things=[Fact("deleted", "recipes", "recipe_2", "Thai Curry"),
                                        Fact("unlinked", "meal_plans", "meal_3", "Sat Jan 12 [dinner]")]), id="an-unlinked-row-is-a-removal"),
    ],
)
def test_a_truthful_claim_about_things_passes(text: str, facts: ReplyFacts) -> None:
    assert check_reply(text, facts) == []


_corpus = functools.cache(corpus)
"""Built once per worker for all its shards."""
CORPUS_SHARDS = 6
"""The corpus is judged in this many interleaved shards, so that xdist's workers share it (each shard within 2% each
way holds the whole corpus within 2% each way)."""


@pytest.mark.parametrize("shard", range(CORPUS_SHARDS))
def test_the_labelled_corpus_is_judged_within_two_percent_each_way(shard: int) -> None:
    """Replies generated from scenario ledgers (true, false, partial, wrong table or verb, earlier turn, corrections,
    negations, paraphrases): at most 2% of untruthful ones pass, at most 2% of truthful ones are refused."""
    cases = _corpus()
    kinds = {case.kind for case in cases}
    assert len(cases) >= 200 and {"true", "false", "partial", "wrong table", "earlier turn", "correction", "negation", "paraphrase", "two claims",
                                  "a word of another label", "a piece of another word", "whole name", "a name a person would use",
                                  "a failure named only inside another label", "a label holding a table's words",
                                  "a label's words are not the claim's table", "a draft's edits described",
                                  "a draft's edits with a save claimed", "one of two drafts pointed at", "another list's thing",
                                  "how things stood before", "a passive claim", "what a thing holds", "what went along, claimed",
                                  "how a thing stands", "a change said with now", "what the user did before", "a claim beside a description",
                                  "what an earlier turn did, described", "a description of what no turn did",
                                  "no longer there since an earlier turn", "no longer there, though no turn removed it",
                                  "a shortened name", "a shortened name two things answer to", "a shortened name of another thing",
                                  "a whole name beside a similar one", "a thing and a relative clause describing it",
                                  "a thing described by a relative clause, not done", "a thing pointed at, not done",
                                  "a claim beside another predicate's table", "a claim beside another predicate's table, not done",
                                  "a claim after an opening phrase", "a claim after an opening phrase, not done",
                                  "a status word marked", "a status word marked on another thing", "a state said with already",
                                  "a claim beside a state said with already", "no longer on a day since an earlier turn",
                                  "no longer on a day, though only another day's meal changed", "an undone save named short",
                                  "an undone save named by words another recipe fits", "a past passive explaining a state",
                                  "a past passive explaining a state, not done", "a participle describing a stored thing",
                                  "a participle claiming a write", "unsaved drafts named together, not saved said",
                                  "unsaved drafts said saved", "what already was, said as it stands",
                                  "what already was, said as this turn's doing", "a day said to have now, nothing changed"} <= kinds
    measured = rates(check_reply, cases[shard::CORPUS_SHARDS])
    assert measured["false_accepted"] <= 0.02, measured
    assert measured["true_refused"] <= 0.02, measured


@pytest.mark.parametrize(
    ("item", "label", "named"),
    [
        pytest.param("rice", "Rice Vinegar Dressing", False, id="a-word-of-another-label"),
        pytest.param("pepper", "Peppermint Tea", False, id="a-piece-of-another-word"),
        pytest.param("peppermint", "Pepper", False, id="a-longer-word"),
        pytest.param("chicken breasts", "Chicken Thighs", False, id="another-cut"),
        pytest.param("eggs", "Egg Noodles", False, id="a-modifier"),
        pytest.param("rice", "Basmati Rice", True, id="the-head"),
        pytest.param("the pears", "Pears", True, id="whole"),
        pytest.param("lemon", "Lemons", True, id="singular-for-plural"),
        pytest.param("thai curry", "Thai Green Curry", True, id="some-modifiers"),
        pytest.param("chicken", "Chicken Thighs", True, id="past-a-form-word"),
        pytest.param("the honey garlic one", "Honey Garlic Cod", True, id="a-pointing-head"),
        pytest.param("defrosting the salmon", "Defrost the salmon", True, id="another-form-of-a-word"),
        pytest.param("the miso-glazed salmon", "Miso-Glazed Salmon with Bok Choy", True, id="the-head-before-with"),
        pytest.param("bok choy", "Miso-Glazed Salmon with Bok Choy", False, id="what-comes-with-it"),
        pytest.param("mac and cheese", "Mac & Cheese", True, id="a-name-with-and"),
    ],
)
def test_a_claim_names_a_thing_as_a_whole_never_a_fragment_of_another(item: str, label: str, named: bool) -> None:
    assert names_whole(item, label) is named
    facts = ReplyFacts(things=[Fact("created", "shopping_list", "shop_1", label)])
    assert (check_reply(f"I added {item} to your shopping list.", facts) == []) is named


def test_a_failure_named_only_inside_another_label_is_not_named() -> None:
    facts = ReplyFacts(things=[Fact("created", "shopping_list", "shop_1", "Rice Vinegar")], failed=[Item("shop_2", "Rice", "failed")])
    assert check_reply("I added rice vinegar to your shopping list.", facts) != []
    assert check_reply("I added rice vinegar to your shopping list; the rice failed.", facts) == []
    assert check_reply("I added rice vinegar to your shopping list; shop_2 failed.", facts) == []


@pytest.mark.parametrize("unit", [unit for unit in UNITS if unit not in FORM_WORDS])
@pytest.mark.parametrize("amount", ["({n} {unit})", "[{n} {unit}]", "({n} {unit}, from the dairy aisle)"])
def test_an_amount_said_beside_a_thing_is_no_part_of_its_name(unit: str, amount: str) -> None:
    """'I removed the buttermilk (1 carton)': the aside says how much; the thing is still the buttermilk."""
    aside = amount.format(n=2, unit=f"{unit}s")
    facts = ReplyFacts(things=[Fact("deleted", "shopping_list", "shop_4", "buttermilk")])
    assert check_reply(f"I removed the buttermilk {aside} from your shopping list.", facts) == []
    assert check_reply(f"I removed the pears {aside} from your shopping list.", facts) != []


@pytest.mark.parametrize(("verb", "table"), [(verb, table) for verb, table in _VERB_TABLE.items()])
@pytest.mark.parametrize("later", ["took 2 cod fillets out of your pantry", "crossed the lemons off your shopping list",
                                   "left the rest of it in your freezer"])
def test_a_verb_about_one_table_keeps_it_past_a_later_phrase_naming_another(verb: str, table: str, later: str) -> None:
    """'I logged the cod as cooked, and took 2 fillets out of your pantry': the log is the cooking log's."""
    action = sorted(_BACKED_BY[_VERB_OF[verb]])[0]
    facts = ReplyFacts(things=[Fact(action, table, "row_1", "Air-Fryer Lemon Garlic Cod")])
    assert check_reply(f"I {verb} the Air-Fryer Lemon Garlic Cod for tonight, and {later}.", facts) == []


@pytest.mark.parametrize("cases", [labelled_thing_cases, draft_edit_cases, standing_cases],
                         ids=["labels-holding-table-words", "draft-edits", "how-things-stand"])
def test_a_verb_binds_to_its_thing_and_a_drafts_edits_are_no_kitchen_write(cases: object) -> None:
    """Every generated case of the class is judged as labelled: a word of a thing's label (fridge, pantry, shopping list,
    add, put) is no table and no verb, 'your list' is either list, and an edit told of this turn's draft is no write,
    while a save or a list add beside it is still checked and the draft must still be said to be unsaved; a sentence
    saying how things stood ('had been added', 'was planned with it') claims nothing, a passive of this turn does."""
    assert callable(cases)
    wrong = [(case.kind, case.text, check_reply(case.text, case.facts)) for case in cases()
             if (check_reply(case.text, case.facts) == []) is not case.truthful]
    assert wrong == []


@pytest.mark.parametrize(
    "text",
    [
        pytest.param("No problem, I undid it: moving the cod from the freezer to the fridge is back on your list, due Wednesday (Dec 2).",
                     id="back-on-your-list"),
        pytest.param("No problem, I undid it: the task to move the cod from the freezer to the fridge is open again, due Wednesday (Dec 2).",
                     id="freezer-inside-the-task"),
    ],
)
def test_an_undone_task_told_as_people_say_it_passes(text: str) -> None:
    facts = ReplyFacts(things=[Fact("undone", "tasks", "task_6", "Move the cod from the freezer to the fridge to thaw")])
    assert check_reply(text, facts) == []
    assert check_reply(text, ReplyFacts(things=[Fact("undone", "inventory", "inv_3", "Cod Fillets")],
                                        earlier=facts.things)) != []


@pytest.mark.parametrize("word", sorted(_VERB_OF))
@pytest.mark.parametrize("subject", ["you have", "Tonight you have", "you still have", "we have", "you've got"])
def test_what_the_user_has_done_to_a_thing_says_how_things_stand(word: str, subject: str) -> None:
    """'Tonight you have Miso-Glazed Salmon planned' claims nothing of this turn; 'you now have it planned' does."""
    assert claims(f"{subject} Miso-Glazed Salmon {word} for Saturday.") == []
    assert claims(f"You now have Miso-Glazed Salmon {word} for Saturday.") != []


def test_how_things_stand_is_generated_on_every_table_a_reply_names() -> None:
    assert set(STANDING_PLACES) == {table for _, table in _TABLES}


def test_a_meal_said_to_have_been_planned_with_a_deleted_recipe_is_no_plan_of_this_turn() -> None:
    """Issue 24: 'Thursday dinner was planned with it' says what the meal held; the meal left without its recipe is
    named, so the reply passes. 'Thursday dinner was planned' (with nothing it holds) still claims a plan."""
    meal = Item("meal_4", "Thu Jan 15 [dinner]")
    facts = ReplyFacts(things=[Fact("deleted", "recipes", "recipe_3", "Fish Pie"), Fact("unlinked", "meal_plans", meal.ref, meal.label)],
                       unlinked=[meal])
    assert check_reply("I deleted Fish Pie. Thursday dinner was planned with it, so it has no recipe now.", facts) == []
    assert check_reply("I deleted Fish Pie. Thursday dinner was planned, so it has no recipe now.", facts) != []


@pytest.mark.parametrize("cases", [description_cases, shortened_name_cases], ids=["descriptions", "shortened-names"])
def test_descriptions_and_shortened_names_are_judged_as_labelled_on_every_verb_and_table(cases: object) -> None:
    """A thing's standing ('is already partly planned', 'no longer on'), what was done to it before ('the dip you
    swapped out', 'the eggs I added'), and a name shortened as a person would: accepted when true, refused when the
    ledger does not back them or the short name fits another thing too."""
    assert callable(cases)
    wrong = [(case.kind, case.text, check_reply(case.text, case.facts)) for case in cases()
             if (check_reply(case.text, case.facts) == []) is not case.truthful]
    assert wrong == []


SWAPPED = Fact("updated", "meal_plans", "meal_3", "Fri Nov 27 [dinner]")
EGGS = Fact("created", "shopping_list", "shop_1", "Eggs")
DIP = Fact("undone", "recipes", "recipe_9", "Whipped Feta Dip with Lemon and Crudites")


@pytest.mark.parametrize(
    ("text", "facts", "truthful"),
    [
        pytest.param("Your next three dinners are already partly planned, and one has fish.", ReplyFacts(), True, id="already-partly-planned"),
        pytest.param("I added eggs to your list, not for the salmon dinner you swapped out.", ReplyFacts(things=[EGGS]), True,
                     id="what-you-swapped-out"),
        pytest.param("I added eggs to your list for the salmon, which is no longer on tonight's plan.",
                     ReplyFacts(things=[EGGS], earlier=[SWAPPED]), True, id="no-longer-on-tonights-plan"),
        pytest.param("I added eggs to your list for the salmon, which is no longer on tonight's plan.", ReplyFacts(things=[EGGS]), False,
                     id="no-longer-on-though-nothing-removed-it"),
        pytest.param("Undone: the Whipped Feta Dip is no longer in your recipes.", ReplyFacts(things=[DIP]), True, id="a-short-name"),
        pytest.param("Undone: the Feta Dip.", ReplyFacts(things=[DIP], earlier=[Fact("created", "recipes", "recipe_4", "Feta Dip with Herbs")]),
                     False, id="a-short-name-two-things-answer-to"),
        pytest.param("I added eggs to your list and swapped out the salmon dinner.", ReplyFacts(things=[EGGS], earlier=[SWAPPED]), False,
                     id="a-swap-claimed"),
    ],
)
def test_issue_24_honest_replies_pass_and_false_claims_beside_them_do_not(text: str, facts: ReplyFacts, truthful: bool) -> None:
    assert (check_reply(text, facts) == []) is truthful, check_reply(text, facts)


@pytest.mark.parametrize("word", sorted(_VERB_OF))
@pytest.mark.parametrize("before", ["this week's 8", "all 3", "your two", "Sunday's"])
def test_a_participle_before_its_noun_describes_it(word: str, before: str) -> None:
    """"this week's 8 planned recipes", 'all 3 saved ones': adjectives, no claim of this turn; 'I {word} 8 recipes' is one."""
    assert claims(f"Here is what {before} {word} recipes need.") == []
    assert claims(f"I {word} 8 recipes.") != []


@pytest.mark.parametrize("word", sorted(_VERB_OF))
@pytest.mark.parametrize("what", ["what's", "what is", "what's already"])
def test_what_is_done_to_a_thing_says_how_it_stands(word: str, what: str) -> None:
    """'That salmon is what's planned for tonight': how things stand; 'I {word} the salmon for tonight' claims."""
    assert claims(f"That salmon is {what} {word} for tonight.") == []
    assert claims(f"I {word} the salmon for tonight.") != []


def test_round_three_classes_are_judged_as_labelled_on_every_verb_status_day_and_name() -> None:
    """Issue 24's third round: a status word a marking verb sets, a state said with 'already', 'no longer on Friday', an
    undone save named short with a kind word, a past passive explaining a state, a participle describing a stored thing;
    each accepted when true and refused beside its untrue twins (one item listing every case judged wrong)."""
    wrong = [(case.kind, case.text, check_reply(case.text, case.facts)) for case in round_three_cases()
             if (check_reply(case.text, case.facts) == []) is not case.truthful]
    assert wrong == []


TASK = Fact("updated", "tasks", "task_7", "Move the cod from the freezer to the fridge to thaw")
TZATZIKI = "Tzatziki with Crudités and Warm Pita"
UNDONE_SAVE = ReplyFacts(things=[Fact("undone", "recipes", "recipe_8", TZATZIKI), Fact("deleted", "recipes", "recipe_8", TZATZIKI)],
                         earlier=[Fact("saved", "recipes", "recipe_8", TZATZIKI)])
GREEK = Fact("deleted", "recipes", "recipe_4", "Greek Lemon Chicken and Potatoes")


@pytest.mark.parametrize(
    ("text", "facts"),
    [
        pytest.param('Marked done: "Move the cod from the freezer to the fridge to thaw" (it was due Dec 2). That was the only open task '
                     'mentioning the fridge; "Wipe down the fridge shelves" was already done.', ReplyFacts(things=[TASK]), id="marked-done"),
        pytest.param("- **Sat Nov 28:** Greek Lemon Chicken and Potatoes (already planned, no fish)\n"
                     "- **Sun Nov 29:** Chicken Fajitas (already planned, no fish)\nNothing is changed yet.", ReplyFacts(), id="already-planned"),
        pytest.param("The baby bok choy was for the salmon dish that is no longer on Friday. Want me to take it off the list?",
                     ReplyFacts(earlier=[Fact("updated", "meal_plans", "meal_1", "Fri Nov 27 [dinner]")]), id="no-longer-on-friday"),
        pytest.param("Undone: the tzatziki starter is no longer in your recipes. I still have it as a draft (not saved).", UNDONE_SAVE,
                     id="undone-starter-no-longer-in-recipes"),
        pytest.param("Done, I undid the save of the tzatziki starter. I still have it as a draft (not saved).", UNDONE_SAVE,
                     id="undid-the-save-of-the-starter"),
        pytest.param("Saturday's dinner (Nov 28, 4 servings) is still on the plan, but it's now an empty slot: the recipe it pointed to, "
                     "Greek Lemon Chicken and Potatoes, was deleted.", ReplyFacts(earlier=[GREEK]), id="empty-slot-recipe-was-deleted"),
        pytest.param("Done: Saturday's dinner is now Chicken Tikka Masala. Your other saved chicken recipe, Chicken Fajitas, is already "
                     "Sunday's dinner.", ReplyFacts(things=[Fact("updated", "meal_plans", "meal_2", "Sat Nov 28 [dinner]")], earlier=[GREEK]),
                     id="your-other-saved-chicken-recipe"),
    ],
)
def test_issue_24_round_three_true_replies_pass(text: str, facts: ReplyFacts) -> None:
    assert check_reply(text, facts) == []


def test_a_refusal_says_how_to_keep_a_true_fact_once() -> None:
    """A refused claim's message says how a true fact is said (as it stands, as an earlier turn's doing), once per reply."""
    earlier = ReplyFacts(things=[Fact("created", "shopping_list", "shop_3", "Milk")],
                         earlier=[Fact("created", "shopping_list", "shop_1", "Pears"), Fact("created", "shopping_list", "shop_2", "Eggs")])
    problems = check_reply("I added pears to your list. I added eggs to your list.", earlier)
    assert len(problems) == 2 and "earlier turn's doing" not in problems[0] and "earlier turn's doing" in problems[1]
    assert "keep every true fact" in check_reply("Deleted it.", ReplyFacts())[0]


def test_a_turn_that_wrote_nothing_may_recap_what_an_earlier_turn_did_to_a_thing_and_nothing_else() -> None:
    """Round 6, b1 t3 ('what happened to Saturday's dinner?'): in a turn that wrote nothing, 'The Greek Lemon Chicken was
    deleted' is a recap backed by the earlier turn that deleted it; the wrong verb, a thing no turn touched, a turn that
    wrote something else, or a claim naming no thing are refused."""
    gone = Fact("deleted", "recipes", "recipe_2", "Greek Lemon Chicken and Potatoes")
    recap = "The Greek Lemon Chicken was deleted, so Saturday dinner has no recipe now."
    assert check_reply(recap, ReplyFacts(earlier=[gone])) == []
    assert check_reply(recap.replace("deleted", "saved"), ReplyFacts(earlier=[gone]))
    assert check_reply(recap.replace("Greek Lemon Chicken", "Thai Curry"), ReplyFacts(earlier=[gone]))
    assert "earlier turn" in check_reply(recap, ReplyFacts(things=[Fact("created", "shopping_list", "shop_1", "Eggs")], earlier=[gone]))[0]
    assert check_reply("I deleted it.", ReplyFacts(earlier=[gone]))


REVEALED = {
    "a failure": ReplyFacts(things=[SAVED], failed=[FAILED]),
    "a removal's emptied meal": ReplyFacts(things=[Fact("deleted", "recipes", "recipe_2", "Greek Chicken")],
                                           unlinked=[Item("meal_2", "Sat Nov 28 [dinner]", "recipe_id is now empty")]),
    "a part not done": ReplyFacts(things=[Fact("created", "cooking_log", "log_1", "Greek Chicken")],
                                  partial=[Item("inv_3", "oregano", "the pantry had none")]),
    "a stop": ReplyFacts(stopped="Step 2 failed twice"),
}
"""Facts only the calls' results show, each with a reply that tells only what its model knew before they ran."""
KNOWN_REPLY = {"a failure": "Saved Honey Garlic Cod.", "a removal's emptied meal": "Deleted Greek Chicken.",
               "a part not done": "Logged Greek Chicken as cooked.", "a stop": "Here is the plan."}


@pytest.mark.parametrize("case", REVEALED, ids=list(REVEALED))
def test_a_reply_leaving_out_only_what_the_results_revealed_is_told_apart_from_an_untrue_one(case: str) -> None:
    """left_out_of_results gives the problems when each is a fact the results revealed, left out; none once the reply
    also claims a write that was not made, or leaves out a draft its model generated (it knew that)."""
    facts, said = REVEALED[case], KNOWN_REPLY[case]
    assert left_out_of_results(said, facts) == check_reply(said, facts) != []
    untrue = f"{said} I also added pears to your shopping list."
    assert check_reply(untrue, facts) and left_out_of_results(untrue, facts) == []
    with_draft = ReplyFacts(**{**vars(facts), "unsaved": [DRAFT]})
    assert len(check_reply(said, with_draft)) > len(check_reply(said, facts)) and left_out_of_results(said, with_draft) == []
    assert left_out_of_results("", ReplyFacts()) == []


def test_round_seven_classes_are_judged_as_labelled_on_every_draft_count_verb_and_day() -> None:
    """Issue 24's seventh round: one, two or three drafts named together by a kind ('Here are three fish-free dinners') with
    every way of saying they are not saved, and what already was said as it stands ('Saturday already has … planned',
    'there is …', 'stays planned') for every verb that makes a thing and every day; each with its untrue twins (a count
    leaving one out, the unsaved part unsaid, a save claimed, the same verb said as this turn's doing, 'Saturday now has …'
    when nothing or another day changed)."""
    cases = round_seven_cases()
    kinds = {case.kind for case in cases}
    assert {"unsaved drafts named together, not saved said", "unsaved drafts named together, not saved unsaid",
            "unsaved drafts miscounted", "unsaved drafts said saved", "what already was, said as it stands",
            "what already was, said as this turn's doing", "a day said to have now, changed",
            "a day said to have now, another day changed", "a day said to have now, nothing changed", "a table said to have now",
            "a table said to have now, not added"} <= kinds
    measured = rates(check_reply, cases)
    assert (measured["false_accepted"], measured["true_refused"]) == (0.0, 0.0), measured


def test_round_eight_classes_are_judged_as_labelled_on_every_name_verb_and_servings() -> None:
    """Issue 24's eighth round: a label said whole (brackets, commas, 'and', quotes in it; plain, quoted, after a colon, in
    a passive; or by what is new in it, 'the oat-milk version') names its own thing, never the shorter name it starts with,
    nor splits at its own punctuation; and a participle set beside its thing with whom or when it is for ('Saturday's Greek
    chicken (planned for 4)') says how it stands. Each with its untrue twins: the other name an earlier turn saved, and the
    same participle said as this turn's doing ('I planned … for 4', 'Done, planned for 4')."""
    cases = round_eight_cases()
    assert {"a label said whole, saved", "a label said whole, an earlier one's", "a participle beside its thing",
            "a participle said as this turn's doing"} <= {case.kind for case in cases}
    measured = rates(check_reply, cases)
    assert (measured["false_accepted"], measured["true_refused"]) == (0.0, 0.0), measured


def test_round_nine_classes_are_judged_as_labelled_on_every_verb_thing_and_form() -> None:
    """Issue 24's ninth round: a past passive telling how a thing this turn deleted stood ('it was planned for dinner on
    Friday, so that dinner now has no recipe') describes; a task said in another form of its own words ('moving the cod …'
    for 'Move the cod …') is named; 'your kitchen' is the pantry. Each with its untrue twins: another thing, this turn's
    doing, a turn that removed nothing, another task in the same form, a kitchen nothing stocked."""
    cases = round_nine_cases()
    assert {"how a deleted thing stood", "how another thing stood, or this turn's doing", "how a thing stood, nothing removed",
            "a task in another form of its words", "another task in another form of its words", "added to the kitchen, stocked",
            "added to the kitchen, only ticked"} <= {case.kind for case in cases}
    measured = rates(check_reply, cases)
    assert (measured["false_accepted"], measured["true_refused"]) == (0.0, 0.0), measured


COD = "Lemon Garlic Baked Cod"
THAW = "Move the cod from the freezer to the fridge to thaw"
DELETED_COD = ReplyFacts(things=[Fact("deleted", "recipes", "recipe_2", COD), Fact("unlinked", "meal_plans", "meal_5", "Fri Dec 4 [dinner]"),
                                 Fact("unlinked", "tasks", "task_6", THAW)],
                         unlinked=[Item("meal_5", "Fri Dec 4 [dinner]"), Item("task_6", THAW)])


@pytest.mark.parametrize(
    ("text", "facts", "truthful"),
    [
        pytest.param("Deleted Lemon Garlic Baked Cod. Heads-up: it was planned for dinner on Friday, Dec 4, so that dinner now has no "
                     "recipe; the reminder to move the cod from the freezer to thaw is no longer tied to a recipe.", DELETED_COD, True,
                     id="how-the-deleted-recipe-stood"),
        pytest.param("Deleted Lemon Garlic Baked Cod. Heads-up: Chicken Fajitas was planned for dinner on Friday, so that dinner now has "
                     "no recipe.", DELETED_COD, False, id="another-recipe-said-planned"),
        pytest.param("Marked done: moving the cod from the freezer to the fridge to thaw.",
                     ReplyFacts(things=[Fact("updated", "tasks", "task_6", THAW, columns=("completed",))]), True, id="task-as-a-gerund"),
        pytest.param("Nice, I checked the eggs off your shopping list and added them to your kitchen.",
                     ReplyFacts(things=[Fact("updated", "shopping_list", "shop_1", "eggs", columns=("is_purchased",))]), False,
                     id="kitchen-nothing-stocked"),
    ],
)
def test_issue_24_round_nine_replies_are_judged_as_labelled(text: str, facts: ReplyFacts, truthful: bool) -> None:
    """The live replies of issue 24's ninth round, and their untrue twins."""
    assert (check_reply(text, facts) == []) is truthful, check_reply(text, facts)


PANCAKES = Fact("saved", "recipes", "recipe_2", "Blueberry Oat Pancakes (Oat Milk, for 6)")
PENNE = Fact("saved", "recipes", "recipe_3", "Lemony Chicken, Mushroom and Spinach Penne")
ORIGINAL = [Fact("saved", "recipes", "recipe_1", "Blueberry Oat Pancakes")]


@pytest.mark.parametrize(
    ("text", "facts", "truthful"),
    [
        pytest.param("I saved Blueberry Oat Pancakes (Oat Milk, for 6) to your recipes.", ReplyFacts(things=[PANCAKES], earlier=ORIGINAL),
                     True, id="new-version-by-its-whole-label"),
        pytest.param('I saved "Blueberry Oat Pancakes (Oat Milk, for 6)" to your recipes.', ReplyFacts(things=[PANCAKES], earlier=ORIGINAL),
                     True, id="new-version-quoted"),
        pytest.param("I saved the oat-milk version for 6.", ReplyFacts(things=[PANCAKES], earlier=ORIGINAL), True, id="new-version-by-what-is-new"),
        pytest.param("I saved Blueberry Oat Pancakes to your recipes.", ReplyFacts(things=[PANCAKES], earlier=ORIGINAL), False,
                     id="the-original-said-saved"),
        pytest.param("I saved Lemony Chicken, Mushroom and Spinach Penne.", ReplyFacts(things=[PENNE]), True, id="a-label-with-a-comma"),
        pytest.param("Saved: Lemony Chicken, Mushroom and Spinach Penne is now in your recipes.", ReplyFacts(things=[PENNE]), True,
                     id="a-label-with-a-comma-after-a-colon"),
        pytest.param("Saturday's Greek chicken (planned for 4) is still on.", ReplyFacts(), True, id="planned-for-4-beside-it"),
        pytest.param("Noted: 6 guests on Saturday, with shellfish and sesame allergies to avoid. Saturday dinner is already Greek Lemon "
                     "Chicken and Potatoes (planned for 4); it showed no shellfish or sesame conflict. Want me to scale it for 6?",
                     ReplyFacts(things=[Fact("created", "constraints", "", "exclude shellfish")]), True, id="planned-for-4-as-recorded"),
        pytest.param("I planned Greek chicken for 4.", ReplyFacts(), False, id="planned-for-4-as-a-doing"),
    ],
)
def test_issue_24_round_eight_replies_are_judged_as_labelled(text: str, facts: ReplyFacts, truthful: bool) -> None:
    """The live replies of issue 24's eighth round, and their untrue twins."""
    assert (check_reply(text, facts) == []) is truthful, check_reply(text, facts)


THREE_DRAFTS = [Item("gen_recipe_1", "Chicken Tikka Masala with Basmati Rice"), Item("gen_recipe_2", "Lamb Kofta with Tzatziki"),
                Item("gen_recipe_3", "Creamy Tuscan Chicken Pasta Bake")]
DRAFTED = ReplyFacts(things=[Fact("generated", "recipes", item.ref, item.label) for item in THREE_DRAFTS], unsaved=THREE_DRAFTS)
NOTED = ReplyFacts(things=[Fact("created", "constraints", "", "exclude shellfish")])


@pytest.mark.parametrize(
    ("text", "facts", "truthful"),
    [
        pytest.param("Here are three fish-free dinners (not saved yet): Chicken Tikka Masala, Lamb Kofta and a Tuscan pasta bake.",
                     DRAFTED, True, id="three-dinners-not-saved-yet"),
        pytest.param("Here are three dinners: Chicken Tikka Masala, Lamb Kofta and a Tuscan pasta bake. I haven't saved them.",
                     DRAFTED, True, id="havent-saved-them"),
        pytest.param("Three ideas: tikka masala, kofta, a pasta bake. I can save them if you like.", DRAFTED, True,
                     id="ideas-save-them-if-you-like"),
        pytest.param("Here are three dinners: Chicken Tikka Masala, Lamb Kofta and a Tuscan pasta bake.", DRAFTED, False,
                     id="not-saved-unsaid"),
        pytest.param("Here are two dinners (not saved yet): Chicken Tikka Masala and Lamb Kofta.", DRAFTED, False,
                     id="two-of-three-drafts"),
        pytest.param("I saved the three dinners: Chicken Tikka Masala, Lamb Kofta and a Tuscan pasta bake.", DRAFTED, False,
                     id="a-save-claimed"),
        pytest.param("Saturday already has Greek Lemon Chicken and Potatoes planned, so I noted no shellfish.", NOTED, True,
                     id="already-has-planned"),
        pytest.param("Greek Lemon Chicken and Potatoes is already planned for Saturday dinner.", NOTED, True, id="already-planned"),
        pytest.param("There is Greek Lemon Chicken planned for Saturday; it stays planned.", NOTED, True, id="there-is-stays"),
        pytest.param("I planned Greek Lemon Chicken and Potatoes for Saturday.", NOTED, False, id="a-plan-claimed"),
        pytest.param("Saturday now has Greek Lemon Chicken and Potatoes.", NOTED, False, id="now-has-nothing-changed"),
        pytest.param("Saturday now has Greek Lemon Chicken and Potatoes.",
                     ReplyFacts(things=[Fact("updated", "meal_plans", "meal_2", "Sat Nov 28 [dinner]")]), True, id="now-has-changed"),
    ],
)
def test_issue_24_unsaved_drafts_and_what_already_was_said_as_people_say_them(text: str, facts: ReplyFacts, truthful: bool) -> None:
    assert (check_reply(text, facts) == []) is truthful, check_reply(text, facts)
