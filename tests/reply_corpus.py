"""A labelled corpus of replies generated from scenario ledgers, for the reply check (tests and benchmarks).

Each scenario is a turn's ledger: the things it wrote (action, table, ref, label) and the things an earlier
turn wrote. Replies are generated from templates x things x verbs x tables, each labelled truthful or not by
construction: true claims, false ones (things nothing wrote), partial ones (some of the things), claims on the
wrong table or with the wrong verb, claims about an earlier turn's things, and replies that claim nothing
(corrections, negations, paraphrases of what happened).
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass

from alfred_mcp.kitchen.ingredient_match import FORM_WORDS
from alfred_mcp.kitchen.taxonomy import singular
from alfred_mcp.state.reply_check import _MAKES, _TABLE, _VERB_OF, _VERB_TABLE, LIST, Fact, Item, ReplyFacts
from alfred_mcp.state.warning_words import person_sentence

Check = Callable[[str, ReplyFacts], list[str]]


@dataclass(frozen=True)
class Case:
    """One reply, the ledger it answers for, and whether it is truthful."""

    text: str
    facts: ReplyFacts
    truthful: bool
    kind: str


@dataclass(frozen=True)
class Place:
    """A table as a reply names it, with the verbs that write to it and what the ledger records for each."""

    table: str
    words: tuple[str, ...]
    things: tuple[str, ...]
    writes: tuple[tuple[str, str], ...]
    """(verb class, ledger action): add -> created, remove -> deleted, ..."""
    preposition: dict[str, str]


PLACES = (
    Place("shopping_list", ("shopping list", "list", "groceries"), ("Eggs", "Milk", "Arugula", "Pears", "Lemons", "Pancetta"),
          (("add", "created"), ("add", "updated"), ("remove", "deleted"), ("change", "updated")), {"add": "to", "remove": "from", "change": "on"}),
    Place("inventory", ("pantry", "fridge"), ("Cheddar", "Spinach", "Basmati Rice", "Chicken Thighs", "Greek Yogurt"),
          (("add", "created"), ("remove", "deleted"), ("change", "updated")), {"add": "to", "remove": "from", "change": "in"}),
    Place("recipes", ("recipes", "recipe box"), ("Honey Garlic Cod", "Thai Curry", "Mushroom Risotto", "Lemon Pasta"),
          (("save", "saved"), ("save", "created"), ("remove", "deleted"), ("change", "updated")), {"save": "to", "remove": "from", "change": "in"}),
    Place("tasks", ("to-do list", "tasks"), ("Defrost the salmon", "Buy bread", "Soak the beans"),
          (("add", "created"), ("remove", "deleted"), ("change", "updated")), {"add": "to", "remove": "from", "change": "on"}),
)
PREFIX = {"shopping_list": "shop", "inventory": "inv", "recipes": "recipe", "tasks": "task"}
PAST = {"add": ("added", "put"), "save": ("saved",), "remove": ("removed", "deleted"), "change": ("updated", "changed")}
ACTIVE = (
    "I {verb} {items} {prep} your {place}.",
    "Done! I've {verb} {items} {prep} your {place}.",
    "{Verb} {items} {prep} the {place}.",
    "Sure: I also {verb} {items} {prep} your {place}, as you asked.",
    "{Verb} {prep} your {place}: {items}.",
    "I went ahead and {verb} {items}; your {place} is up to date.",
    "I {verb} {items} {prep} your {place}; want me to do anything else?",
    "I've {verb} what you asked {prep} your {place}: {items}.",
    "Here's what I did: {verb} {items}.",
    "{Items} - {verb} {prep} your {place} just now.",
)
PASSIVE = ("{Items} {be} {verb} {prep} your {place}.", "Good news: {items} {be} now {verb}.")
PLAIN_NOW = {"add": "{Items} {is_} now on your {place}.", "remove": "{Items} {is_} no longer on your {place}."}
CORRECTIONS = (
    "I said I had {verb} {items}, but I had not.",
    "Correction: I told you {items} {be} {verb}; that was wrong.",
    "I was wrong earlier when I said {items} {be} {verb} {prep} your {place}.",
)
NEGATIONS = (
    "I did not {base} {items}.",
    "{Items} {be} not {verb} {prep} your {place}.",
    "I couldn't {base} {items}: the {place} refused them.",
    "Nothing was {verb} this time; {items} {be} unchanged.",
)
PARAPHRASES = (
    "Your {place} now has {items}.",
    "All set: {items} {be} on your {place} now.",
    "{Items}: done, you'll find them on your {place}.",
    "Here is your {place} with {items}.",
)
BASE = {"added": "add", "put": "put", "saved": "save", "removed": "remove", "deleted": "delete",
        "updated": "update", "changed": "change"}


def _join(items: Sequence[str]) -> str:
    names = [item.lower() if not item[0].isupper() or " " not in item else item for item in items]
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


def _fill(template: str, items: Sequence[str], verb: str, prep: str, place: str) -> str:
    joined = _join(items)
    text = template.format(items=joined, Items=joined[0].upper() + joined[1:], verb=verb, Verb=verb.capitalize(),
                           be="were" if len(items) > 1 else "was", is_="are" if len(items) > 1 else "is", base=BASE[verb], prep=prep, place=place)
    return text


def _facts(place: Place, action: str, things: Sequence[str], start: int = 1) -> list[Fact]:
    return [Fact(action, place.table, f"{PREFIX[place.table]}_{start + i}", thing) for i, thing in enumerate(things)]


def _other(place: Place) -> Place:
    return PLACES[(PLACES.index(place) + 1) % len(PLACES)]


def _templates(verb_class: str) -> Iterator[tuple[str, bool]]:
    """Claim templates for a verb class: (template, whether it claims a table)."""
    yield from ((template, "{place}" in template) for template in ACTIVE)
    yield from ((template, "{place}" in template) for template in PASSIVE)
    if verb_class in PLAIN_NOW:
        yield PLAIN_NOW[verb_class], True


def _claim(template: str, items: Sequence[str], verb_class: str, verb: str, place: Place, word: str) -> str:
    return _fill(template, items, verb, place.preposition.get(verb_class, "on"), word)


def corpus() -> list[Case]:
    """Every generated case (several hundred), in a stable order."""
    cases: list[Case] = []
    for place in PLACES:
        other = _other(place)
        written, absent = place.things[:2], place.things[2:4]
        for (verb_class, action), word in itertools.product(place.writes, place.words):
            for verb in PAST[verb_class]:
                this_turn = _facts(place, action, written)
                elsewhere = _facts(other, "created", other.things[:1], start=7)
                earlier = _facts(place, action, absent, start=20)
                facts = ReplyFacts(things=[*this_turn, *elsewhere], earlier=earlier)
                wrong_verb = "deleted" if verb_class != "remove" else "created"
                for template, names_table in _templates(verb_class):
                    def claim(items: Sequence[str], on: Place = place, at: str = word, template: str = template,
                              verb_class: str = verb_class, verb: str = verb) -> str:
                        return _claim(template, items, verb_class, verb, on, at)

                    cases.append(Case(claim(written), facts, True, "true"))
                    cases.append(Case(claim(written[:1]), facts, True, "true"))
                    cases.append(Case(claim(absent), ReplyFacts(things=[*this_turn, *elsewhere]), False, "false"))
                    cases.append(Case(claim([written[0], absent[0]]), ReplyFacts(things=[*this_turn, *elsewhere]), False, "partial"))
                    if template == PLAIN_NOW["remove"]:  # 'no longer on your list' says how things stand since a removal
                        cases.append(Case(claim(absent), facts, True, "no longer there since an earlier turn"))
                    else:
                        cases.append(Case(claim(absent), facts, False, "earlier turn"))
                    recap = ReplyFacts(earlier=earlier)  # a turn that wrote nothing, asked what an earlier one did
                    cases.append(Case(claim(absent), recap, True, "an earlier turn's doing, recapped"))
                    cases.append(Case(claim(written), recap, False, "a recap of what no turn did"))
                    cases.append(Case(claim(absent), ReplyFacts(earlier=_facts(place, wrong_verb, absent, start=20)), False,
                                      "a recap with the wrong verb"))
                    cases.append(Case(claim(written), ReplyFacts(things=[*_facts(place, wrong_verb, written), *elsewhere]), False,
                                      "wrong verb"))
                    if names_table:
                        cases.append(Case(claim(written, other, other.words[0]),
                                          ReplyFacts(things=this_turn), False, "wrong table"))
                        cases.append(Case(claim(other.things[:1], place, word), facts, False, "wrong table"))
                quiet = ReplyFacts(earlier=earlier)  # this turn wrote nothing
                for (kind, templates), ledger in itertools.product((("correction", CORRECTIONS), ("negation", NEGATIONS)), (facts, quiet)):
                    for template in templates:
                        cases.append(Case(_fill(template, absent, verb, place.preposition.get(verb_class, "on"), word), ledger, True, kind))
                cases.append(Case(f"Earlier I {verb} {_join(absent)} {place.preposition.get(verb_class, 'on')} your {word}; "
                                  f"this time I {verb} {_join(written)}.", facts, True, "earlier turn, said so"))
        for template in PARAPHRASES:
            for word in place.words:
                facts = ReplyFacts(things=_facts(place, place.writes[0][1], place.things[:2]))
                cases.append(Case(_fill(template, place.things[:2], "added", "to", word), facts, True, "paraphrase"))
        # generic claims: no thing named, the table's fact backs it (or nothing does)
        for verb_class, action in place.writes:
            verb = PAST[verb_class][0]
            prep = place.preposition.get(verb_class, "on")
            for text in (f"I {verb} them.", f"It's {verb}.", f"Done: {verb} everything {prep} your {place.words[0]}."):
                cases.append(Case(text, ReplyFacts(things=_facts(place, action, place.things[:1])), True, "true, generic"))
                cases.append(Case(text, ReplyFacts(things=_facts(other, "created", other.things[:1])) if "your" in text
                                  else ReplyFacts(), False, "false, generic"))
    cases.extend(_two_claims())
    cases.extend(whole_name_cases())
    cases.extend(labelled_thing_cases())
    cases.extend(draft_edit_cases())
    cases.extend(standing_cases())
    cases.extend(description_cases())
    cases.extend(shortened_name_cases())
    cases.extend(round_three_cases())
    cases.extend(round_four_cases())
    cases.extend(warned_cases())
    cases.extend(round_seven_cases())
    cases.extend(round_eight_cases())
    cases.extend(round_nine_cases())
    unique = {(case.text, case.kind, repr(case.facts)): case for case in cases}
    return list(unique.values())


def _two_claims() -> Iterator[Case]:
    """Two verbs in one sentence, each with its own things and table: both true, one false, the second on the wrong table."""
    recipes, shop = PLACES[2], PLACES[0]
    for recipe, (thing, other) in itertools.product(recipes.things, zip(shop.things, shop.things[1:])):
        facts = ReplyFacts(things=[*_facts(recipes, "saved", [recipe]), *_facts(shop, "created", [thing])])
        for template in ("I saved {recipe} and added {thing} to your shopping list.",
                         "{Recipe} is saved, and I added {thing} to your list.",
                         "Saved {recipe}; {thing} was added to your groceries."):
            def text(thing: str, template: str = template, recipe: str = recipe) -> str:
                return template.format(recipe=recipe, Recipe=recipe, thing=thing.lower())

            yield Case(text(thing), facts, True, "two claims")
            yield Case(text(other), facts, False, "two claims, one false")
            yield Case(text(thing).replace("shopping list", "pantry").replace("groceries", "fridge").replace("your list", "your pantry"),
                       facts, False, "two claims, wrong table")


def rates(check: Check, cases: Sequence[Case]) -> dict[str, object]:
    """False-accepted (an untruthful reply passed) and true-refused (a truthful one was refused) rates, with examples."""
    untrue = [case for case in cases if not case.truthful]
    true = [case for case in cases if case.truthful]
    false_accepted = [case for case in untrue if not check(case.text, case.facts)]
    true_refused = [case for case in true if check(case.text, case.facts)]
    return {
        "cases": len(cases), "truthful": len(true), "untruthful": len(untrue),
        "false_accepted": round(len(false_accepted) / len(untrue), 4), "true_refused": round(len(true_refused) / len(true), 4),
        "false_accepted_examples": [f"[{c.kind}] {c.text}" for c in false_accepted[:5]],
        "true_refused_examples": [f"[{c.kind}] {c.text}" for c in true_refused[:5]],
    }


# --- whole names: a claim about a thing names that thing, never a fragment of another label --------------------

PRODUCT_WORDS = ("oil", "vinegar", "paste", "powder", "sauce", "stock", "dressing", "butter", "flour", "tea", "juice", "syrup")
"""Words that, after an ingredient, make a label about another thing ('Rice Vinegar', 'Garlic Powder')."""
FRAGMENT_TEMPLATES = ("I added {item} to your shopping list.", "{Item} {be} added to your list.")


def _known_names() -> list[str]:
    """Every ingredient name the catalog (names, aliases) and the taxonomy (members) know, lowercase, sorted."""
    from datetime import date

    from alfred_mcp.kitchen.seed import demo_kitchen
    from alfred_mcp.kitchen.taxonomy import default_taxonomy

    taxonomy = default_taxonomy()
    names = {name.lower() for row in demo_kitchen(date(2026, 1, 12)).catalog for name in (row["name"], *(row.get("aliases") or ()))}
    names |= {member.lower() for category in taxonomy.categories() for member in taxonomy.category(category).members}
    return sorted(name for name in names if name.replace(" ", "").isalpha() and not any(p.search(name) for p, _ in _TABLE))


def _recipe_names() -> list[str]:
    """The demo kitchen's recipe names, and a few with '&' and 'and' in them."""
    from datetime import date

    from alfred_mcp.kitchen.seed import demo_kitchen

    return [recipe.row["name"] for recipe in demo_kitchen(date(2026, 1, 12)).recipes] + ["Mac & Cheese", "Sweet and Sour Chicken"]


def _shop(label: str, ref: str = "shop_1") -> ReplyFacts:
    return ReplyFacts(things=[Fact("created", "shopping_list", ref, label)])


def _fragment_claims(item: str) -> Iterator[str]:
    for template in FRAGMENT_TEMPLATES:
        yield template.format(item=item, Item=item[0].upper() + item[1:], be="was")


def whole_name_cases() -> list[Case]:
    """Generated from every known ingredient name: a one-word item never matches a label it is only a word of
    ('rice' in 'Rice Vinegar', false) or a piece of a word in ('pepper' in 'Peppermint Tea', false), while the
    thing itself, in either number, with its modifiers, or by its head word, is matched (true)."""
    names = _known_names()
    single = [name for name in names if " " not in name]
    cases: list[Case] = []
    for index, name in enumerate(single):
        for product in (PRODUCT_WORDS[index % len(PRODUCT_WORDS)],):  # each product word in turn
            if name.endswith(product) or product.endswith(name):
                continue
            label = f"{name} {product}".title()
            for text in _fragment_claims(name):
                cases.append(Case(text, _shop(label), False, "a word of another label"))
            for text in _fragment_claims(f"{name} {product}"):
                cases.append(Case(text, _shop(label), True, "whole name"))
    pieces = ((a, b) for a in single for b in single
              if singular(a) != singular(b) and len(a) >= 3 and (b.startswith(singular(a)) or singular(b).endswith(singular(a))))
    for part, whole in pieces:
        for text in _fragment_claims(part):
            cases.append(Case(text, _shop(whole.title()), False, "a piece of another word"))
    for name in names:
        if " " in name:  # 'kalamata olives': the thing by its head word, and whole
            head = next(word for word in reversed(name.split()) if singular(word) not in FORM_WORDS)
            for item in (name, head):
                for text in _fragment_claims(item):
                    cases.append(Case(text, _shop(name.title()), True, "whole name"))
    for item, label in (("pepper", "Peppermint Tea"), ("rice", "Rice Vinegar Dressing"), ("eggs", "Egg Noodles"),
                        ("lemons", "Lemon Curd"), ("chicken", "Chicken Stock")):
        for text in _fragment_claims(item):
            cases.append(Case(text, _shop(label), False, "a word of another label"))
        failed = ReplyFacts(failed=[Item("shop_2", item.rstrip("s").title(), "failed")], things=[Fact("created", "shopping_list", "shop_1", label)])
        cases.append(Case(f"I added {label.lower()} to your shopping list.", failed, False, "a failure named only inside another label"))
        cases.append(Case(f"I added {label.lower()} to your shopping list, but {item} failed.", failed, True, "a failure named"))
    for item, label, table, verb in (("the honey garlic one", "Honey Garlic Cod", "recipes", "saved"),
                                     ("your curry recipe", "Thai Green Curry", "recipes", "saved"),
                                     ("defrosting the salmon", "Defrost the salmon", "tasks", "added"),
                                     ("the chicken", "Chicken Thighs", "inventory", "added")):
        place = next(p for p in PLACES if p.table == table)
        facts = ReplyFacts(things=[Fact("saved" if verb == "saved" else "created", table, "x_1", label)])
        text = f"I {verb} {item} {place.preposition.get('save' if verb == 'saved' else 'add', 'to')} your {place.words[0]}."
        cases.append(Case(text, facts, True, "a name a person would use"))
        cases.append(Case(text, ReplyFacts(things=[Fact(facts.things[0].action, table, "x_2", "Rice Vinegar Dressing")]), False,
                          "a name of another thing"))
    recipes = _recipe_names()
    for index, name in enumerate(recipes):  # whole recipe names, 'and' and all ('Greek Lemon Chicken and Potatoes')
        other = recipes[(index + 1) % len(recipes)]
        for text in (f"I saved {name} to your recipes.", f"{name} was saved to your recipe box."):
            cases.append(Case(text, ReplyFacts(things=[Fact("saved", "recipes", "recipe_1", name)]), True, "a recipe by its name"))
            cases.append(Case(text, ReplyFacts(things=[Fact("saved", "recipes", "recipe_2", other)]), False, "another recipe's name"))
    unique = {(case.text, case.kind, repr(case.facts)): case for case in cases}
    return list(unique.values())


# --- a verb binds to its thing: words inside a label are no table; 'your list' is either list -------------------

LABELLED = (
    ("tasks", "task", ("Move the cod from the freezer to the fridge to thaw", "Wipe down the fridge shelves",
                       "Check the pantry for rice", "Add milk to the shopping list", "Put the chicken in the freezer")),
    ("recipes", "recipe", ("Freezer Breakfast Burritos", "Pantry Pasta", "Shopping Day Chili", "Fridge Pickles")),
)
"""Things whose labels hold another table's words (fridge, pantry, shopping list) or a verb (add, put)."""
TASK_CLAIMS = {
    "undone": ("No problem, I undid it: {label} is back on your list.", "I undid it: the task to {label} is open again.",
               "Reverted: '{Label}' is open again on your list.", "I restored the task '{Label}'."),
    "updated": ("I marked '{Label}' as done.", "Done: I marked the task to {label} as complete.",
                "I updated '{Label}' on your to-do list."),
    "created": ("I added '{Label}' to your tasks.", "I added a reminder to {label}.", "'{Label}' is now on your list."),
}
RECIPE_CLAIMS = {
    "undone": ("I undid that: {Label} is back in your recipes.", "I restored {Label}."),
    "saved": ("I saved {Label} to your recipe box.", "{Label} was saved to your recipes."),
}
OTHER_THINGS = (Fact("undone", "inventory", "inv_3", "Cod Fillets"), Fact("created", "inventory", "inv_4", "Chicken Thighs"),
                Fact("updated", "inventory", "inv_5", "Milk"), Fact("saved", "meal_plans", "meal_2", "Sat Nov 28 [dinner]"))


def labelled_thing_cases() -> list[Case]:
    """For every label holding another table's words or a verb, and every way a reply says what was done to it: true
    when this turn did that to the thing; false when it did something only to a row of another table (the other list
    too: a verb binds to the thing it is about), or nothing."""
    cases: list[Case] = []
    for table, prefix, labels in LABELLED:
        claims = TASK_CLAIMS if table == "tasks" else RECIPE_CLAIMS
        for index, label in enumerate(labels):
            for action, templates in claims.items():
                fact = Fact(action, table, f"{prefix}_{index + 6}", label)
                for template in templates:
                    text = template.format(label=label[0].lower() + label[1:], Label=label)
                    cases.append(Case(text, ReplyFacts(things=[fact]), True, "a label holding a table's words"))
                    other = next(o for o in OTHER_THINGS if o.action == action) if action in {o.action for o in OTHER_THINGS} \
                        else OTHER_THINGS[-1]
                    cases.append(Case(text, ReplyFacts(things=[other], earlier=[fact]), False,
                                      "a label's words are not the claim's table"))
                    cases.append(Case(text, ReplyFacts(earlier=[fact]), True, "an earlier turn's doing to a label, recapped"))
                    cases.append(Case(text, ReplyFacts(earlier=[other]), False, "a recap of what no turn did to a label"))
                    if table == "tasks":  # 'your list' is either list, but the claim is about this task, not a line of the other
                        line = Fact(action, "shopping_list", "shop_9", "Eggs")
                        cases.append(Case(text, ReplyFacts(things=[line], earlier=[fact]), False, "another list's thing"))
    return cases


# --- describing a draft is not a kitchen write -----------------------------------------------------------------

SWAPS = (("buttermilk", "oat milk"), ("butter", "olive oil"), ("sour cream", "greek yogurt"), ("pasta", "zucchini noodles"))
DRAFT_EDITS = ("I swapped the {a} for {b}.", "I replaced the {a} with {b}.", "I changed the {a} to {b}.",
               "I swapped that for {b}, which keeps it light.", "I reduced the {a} and added a little {b}.", "I removed the {a}.")
UNSAVED_SAID = ("This is a draft, not saved yet.", "The draft is not saved yet; want me to save it?",
                "This version isn't saved yet.", "{name} is a draft, not saved yet.")
DRAFT_NAMES = ("Blueberry Oat Pancakes with Oat Milk", "Lighter Chicken Fajitas", "Dairy-Free Mushroom Risotto")


def draft_edit_cases() -> list[Case]:
    """Every edit a reply describes in a draft of this turn, with every way it says the draft is unsaved (true); the
    same with a save or a shopping-list add claimed too, with the draft left unsaid, or with one of two drafts only
    pointed at (false)."""
    cases: list[Case] = []
    for (index, name), (a, b), edit in itertools.product(enumerate(DRAFT_NAMES), SWAPS, DRAFT_EDITS):
        draft = Item(f"gen_recipe_{index + 1}", name)
        facts = ReplyFacts(things=[Fact("generated", "recipes", draft.ref, name)], unsaved=[draft])
        said = edit.format(a=a, b=b)
        for unsaved in UNSAVED_SAID:
            cases.append(Case(f"Here it is for 6. {said} {unsaved.format(name=name)}", facts, True, "a draft's edits described"))
        cases.append(Case(f"{said} I saved it to your recipes.", facts, False, "a draft's edits with a save claimed"))
        cases.append(Case(f"{said} I also added {b} to your shopping list. It is a draft, not saved yet.", facts, False,
                          "a draft's edits with a list add claimed"))
        cases.append(Case(f"Here it is for 6. {said}", facts, False, "a draft's edits, the draft unsaid"))
        second = Item("gen_recipe_9", "Classic Pancakes")
        two = ReplyFacts(things=[*facts.things, Fact("generated", "recipes", second.ref, second.label)], unsaved=[draft, second])
        cases.append(Case(f"{said} This is a draft, not saved yet.", two, False, "one of two drafts pointed at"))
        cases.append(Case(f"{said} Both drafts are not saved yet.", two, True, "a draft's edits described"))
    return cases


# --- how things stood: a pluperfect, and what a planned meal or a saved recipe holds, claim nothing --------------

STANDING_PLACES = {
    "shopping_list": ("Eggs", "shopping list"), LIST: ("Milk", "list"), "inventory": ("Cheddar", "pantry"),
    "meal_plans": ("Thursday dinner", "meal plan"), "recipes": ("Thai Curry", "recipes"), "tasks": ("Buy bread", "to-do list"),
    "preferences": ("Shellfish", "preferences"), "cooking_log": ("Monday's fajitas", "cooking log"),
    "constraints": ("Vegetarian", "restrictions"),
}
"""Every table a reply can name (reply_check's _TABLES): a thing on it, and the words that name it."""
STANDING_PREP = {"add": "to", "save": "to", "create": "in", "plan": "on", "remove": "from", "change": "on", "undo": "on"}
HOLDING = ("with", "around", "from")
"""'Thursday dinner was planned with it': a planned meal, a saved or created thing holds what these name."""
DELETED = Fact("deleted", "recipes", "recipe_30", "Fish Pie")


def standing_cases() -> list[Case]:
    """For every verb the check knows and every table: a pluperfect ('had been added to your list') says how things
    stood and a past passive naming what a planned meal, a saved or created thing holds ('was planned with it') says
    what it holds (true, in a turn that only deleted Fish Pie); the same verbs as a past or present-perfect passive
    ('was added to your list', 'has been added'), and 'with it' after the verbs where it names what went along or took
    the thing's place ('removed with it', 'replaced with it'), still claim (false there)."""
    cases: list[Case] = []
    facts = ReplyFacts(things=[DELETED])
    for (word, verb), (thing, place) in itertools.product(sorted(_VERB_OF.items()), STANDING_PLACES.values()):
        prep = STANDING_PREP[verb]
        cases.append(Case(f"I deleted Fish Pie. {thing} had been {word} {prep} your {place}, so I left it as it was.", facts, True,
                          "how things stood before"))
        for be in ("was", "has been"):
            cases.append(Case(f"I deleted Fish Pie. {thing} {be} {word} {prep} your {place}.", facts, False, "a passive claim"))
        for holding, pronoun in itertools.product(HOLDING, ("it", "them")):
            text = f"I deleted Fish Pie. {thing} was {word} {holding} {pronoun}."
            holds = verb in _MAKES
            if holds or holding == "with":
                cases.append(Case(text, facts, holds, "what a thing holds" if holds else "what went along, claimed"))
    return cases


# --- descriptions: how a thing stands, what was done to it before, a name shortened as a person would -------------

BACKING = {"add": "created", "save": "saved", "create": "created", "plan": "created", "remove": "deleted", "change": "updated",
           "undo": "undone"}
"""The ledger action that backs each verb class (reply_check's _BACKED_BY)."""
STATIVE = ("is already partly", "is", "is still", "is fully", "is already")
"""How a present passive says how a thing stands ('Saturday is already partly planned')."""


def _thing_fact(action: str, table: str, thing: str, ref: str = "x_20") -> Fact:
    return Fact(action, "shopping_list" if table == LIST else table, ref, thing)


def description_cases() -> list[Case]:
    """For every verb the check knows and every table, in a turn that only deleted Fish Pie: a present passive with or
    without adverbs ('is already partly planned') says how the thing stands, and a relative clause about what the user
    did ('the Eggs you added to your list') describes it (true), while 'is now added' and a second verb of the sentence
    ('and added the Eggs') claim (false); a relative clause about what the assistant did ('the Eggs I added to your
    list') is true when an earlier turn did it and false when none did; 'no longer on your list' (also after 'which') is
    true when this turn or an earlier one removed the thing and false when none did."""
    cases: list[Case] = []
    facts = ReplyFacts(things=[DELETED])
    for index, ((word, verb), (table, (thing, place))) in enumerate(itertools.product(sorted(_VERB_OF.items()), STANDING_PLACES.items())):
        prep = STANDING_PREP[verb]
        state = STATIVE[index % len(STATIVE)]
        cases.append(Case(f"I deleted Fish Pie. {thing} {state} {word} {prep} your {place}.", facts, True, "how a thing stands"))
        cases.append(Case(f"I deleted Fish Pie. {thing} is now {word} {prep} your {place}.", facts, False, "a change said with now"))
        for said in (f"I deleted Fish Pie. The {thing} you {word} {prep} your {place} yesterday is still there.",
                     f"I deleted Fish Pie; the {thing} that you {word} {prep} your {place} is still there."):
            cases.append(Case(said, facts, True, "what the user did before"))
        cases.append(Case(f"I deleted Fish Pie and {word} the {thing} {prep} your {place}.", facts, False, "a claim beside a description"))
        mine = f"I deleted Fish Pie; the {thing} I {word} {prep} your {place} is still there."
        before = _thing_fact(BACKING[verb], table, thing)
        cases.append(Case(mine, ReplyFacts(things=[DELETED], earlier=[before]), True, "what an earlier turn did, described"))
        cases.append(Case(mine, facts, False, "a description of what no turn did"))
    for index, ((word, verb), (table, (thing, place))) in enumerate(itertools.product(sorted(_VERB_OF.items()), STANDING_PLACES.items())):
        described = (f"the {thing} you asked for", f"the {thing} that you wanted", f"the {thing}, which you need for Saturday,")
        said = f"I {word} {described[index % len(described)]} {STANDING_PREP[verb]} your {place}."
        done = _thing_fact(BACKING[verb], table, thing, ref="x_21")
        cases.append(Case(said, ReplyFacts(things=[done]), True, "a thing and a relative clause describing it"))
        cases.append(Case(said, facts, False, "a thing described by a relative clause, not done"))
        own, on = _VERB_TABLE.get(word), done.table
        # a constraint is claimed only as one ('the gluten restriction'): a bare name claims a kitchen write
        if (own is None or own == on) and (verb != "plan" or on in ("meal_plans", "tasks")) and on != "constraints":
            lime = Fact("updated", "inventory", "inv_4", "Limes")
            both = f"I {word} {thing} as you asked and took a lime out of your pantry."
            cases.append(Case(both, ReplyFacts(things=[done, lime]), True, "a claim beside another predicate's table"))
            cases.append(Case(both, ReplyFacts(things=[lime]), False, "a claim beside another predicate's table, not done"))
        opened = f"For the party I {word} {thing} {STANDING_PREP[verb]} your {place}."
        cases.append(Case(opened, ReplyFacts(things=[done]), True, "a claim after an opening phrase"))
        cases.append(Case(opened, facts, False, "a claim after an opening phrase, not done"))
        pointed = f"I {word} that {thing} {STANDING_PREP[verb]} your {place}."
        cases.append(Case(pointed, ReplyFacts(things=[done]), True, "a thing pointed at"))
        cases.append(Case(pointed, facts, False, "a thing pointed at, not done"))
    for table, (thing, place) in STANDING_PLACES.items():
        removed = _thing_fact("deleted", table, thing)
        for said in (f"{thing} is no longer on your {place}.", f"I deleted Fish Pie and kept the rest for {thing}, which is no longer "
                                                             f"in your {place}."):
            cases.append(Case(said, ReplyFacts(things=[DELETED], earlier=[removed]), True, "no longer there since an earlier turn"))
            cases.append(Case(said, ReplyFacts(things=[DELETED, removed]), True, "no longer there since this turn"))
            cases.append(Case(said, facts, False, "no longer there, though no turn removed it"))
    swap = Fact("updated", "meal_plans", "meal_3", "Fri Nov 27 [dinner]")
    eggs = Fact("created", "shopping_list", "shop_1", "Eggs")
    for said in ("I added eggs to your list for the salmon, which is no longer on tonight's plan.",
                 "I added eggs to your list, not for the salmon dinner you swapped out.",
                 "Your next three dinners are already partly planned, and I added eggs to your list."):
        cases.append(Case(said, ReplyFacts(things=[eggs], earlier=[swap]), True, "issue 24's honest descriptions"))
    cases.append(Case("I added eggs to your list and swapped out the salmon dinner.", ReplyFacts(things=[eggs], earlier=[swap]), False,
                      "a claim beside a description"))
    return cases


SHORTENED = (("Whipped Feta Dip with Lemon and Crudites", "the Whipped Feta Dip", "Whipped Feta Dip with Herbs"),
             ("Miso-Glazed Salmon with Bok Choy", "the miso-glazed salmon", "Miso-Glazed Salmon with Rice"),
             ("Greek Lemon Chicken and Potatoes", "the Greek lemon chicken", "Greek Lemon Chicken with Orzo"),
             ("Thai Green Curry with Jasmine Rice", "the Thai curry", "Thai Red Curry"),
             ("Spaghetti Carbonara with Peas", "the carbonara", "Chicken Carbonara"))
"""A label, the short name a person gives it, and another thing that answers to the same short name."""


def shortened_name_cases() -> list[Case]:
    """For every verb the check knows that a recipe's fact backs: a thing named by a short name (its leading words, or
    some of them with its head) is matched (true); the same short name when another thing of the turn or an earlier one
    answers to it too is not (false), while the whole label still is (true); the short name of a thing this turn did
    not touch is not (false)."""
    cases: list[Case] = []
    for (word, verb), (label, short, rival) in itertools.product(sorted(_VERB_OF.items()), SHORTENED):
        if verb == "plan" or word in _VERB_TABLE:
            continue  # a plan, a log, a restock are about their own tables, not a recipe
        fact = Fact(BACKING[verb], "recipes", "recipe_3", label)
        other = Fact("created", "recipes", "recipe_4", rival)
        for said in (f"{word.capitalize()}: {short}.", f"I {word} {short}."):
            cases.append(Case(said, ReplyFacts(things=[fact]), True, "a shortened name"))
            cases.append(Case(said, ReplyFacts(things=[fact], earlier=[other]), False, "a shortened name two things answer to"))
            cases.append(Case(said, ReplyFacts(things=[Fact(BACKING[verb], "recipes", "recipe_4", "Lemon Tart")]), False,
                              "a shortened name of another thing"))
        cases.append(Case(f"I {word} {label}.", ReplyFacts(things=[fact], earlier=[other]), True, "a whole name beside a similar one"))
    undone = Fact("undone", "recipes", "recipe_9", SHORTENED[0][0])
    cases.append(Case("Undone: the Whipped Feta Dip is no longer in your recipes. I still have it as a draft, not saved.",
                      ReplyFacts(things=[undone], earlier=[Fact("saved", "recipes", "recipe_9", SHORTENED[0][0])]), True,
                      "a shortened name"))
    return cases


# --- issue 24, round 3: what a client's model driving the stages wrote truthfully -------------------------------

STATUS_WORDS = ("done", "bought", "complete", "completed", "finished")
MARKED = ("Marked {status}: {thing}.", "I marked {thing} {status}.", "I marked {thing} as {status}.", "{thing} - marked {status}.")
MARKED_THINGS = {"tasks": ("Move the cod from the freezer to the fridge to thaw", "Buy bread", "Soak the beans"),
                 "shopping_list": ("Eggs", "Baby Bok Choy", "Pancetta")}


def status_word_cases() -> list[Case]:
    """Every status word a marking verb sets ('Marked done: …', 'marked the eggs as bought') on every marked thing: the
    status is the thing's new state (true when its update is this turn's); the same reply when another thing of the table
    was updated, or nothing was (false)."""
    cases: list[Case] = []
    for (table, things), status, template in itertools.product(MARKED_THINGS.items(), STATUS_WORDS, MARKED):
        thing, other = things[0], things[1]
        said = template.format(status=status, thing=f'"{thing}"' if table == "tasks" else thing.lower())
        said = said[0].upper() + said[1:]
        cases.append(Case(said, ReplyFacts(things=[Fact("updated", table, "x_7", thing)]), True, "a status word marked"))
        cases.append(Case(said, ReplyFacts(things=[Fact("updated", table, "x_8", other)], earlier=[Fact("created", table, "x_7", thing)]),
                          False, "a status word marked on another thing"))
        cases.append(Case(said, ReplyFacts(), False, "a status word marked, nothing updated"))
    return cases


MEALS_KEPT = ("Greek Lemon Chicken and Potatoes", "Chicken Fajitas", "Mushroom Risotto")


def already_state_cases() -> list[Case]:
    """For every verb the check knows, a participle set beside its thing with 'already' ('Chicken Fajitas (already planned,
    no fish)', 'Mushroom Risotto, already saved for Sunday, stays') says how the thing stands, in a turn that wrote nothing
    (true); the same beside a claim of this turn, or said by the assistant as its own doing, is checked (false there)."""
    cases: list[Case] = []
    for word, thing in itertools.product(sorted(_VERB_OF), MEALS_KEPT):
        for said in (f"- **Sat Nov 28:** {thing} (already {word}, no fish)", f"{thing}, already {word} for Sunday, stays as it is."):
            cases.append(Case(said, ReplyFacts(), True, "a state said with already"))
        cases.append(Case(f"{thing} (already {word}), and I {word} Thai Curry too.", ReplyFacts(), False,
                          "a claim beside a state said with already"))
        cases.append(Case(f"I already {word} {thing}.", ReplyFacts(), False, "already said of what no turn did"))
    for word, opener in itertools.product(sorted(_VERB_OF), ("Done, already", "Sure - already", "All set (already")):
        cases.append(Case(f"{opener} {word}.", ReplyFacts(), False, "already said of what no turn did"))
    return cases


DAYS = (("Friday", "Fri Nov 27 [dinner]"), ("Saturday's dinner", "Sat Nov 28 [dinner]"), ("Sunday", "Sun Nov 29 [dinner]"))
NO_LONGER_ON = ("The baby bok choy was for {thing} that is no longer on {day}.", "{Thing} is no longer on {day}.",
                "I kept the bok choy for {thing}, which is no longer on {day}.")


def no_longer_on_a_day_cases() -> list[Case]:
    """'the salmon dish … is no longer on Friday' says how the plan stands: true when this turn or an earlier one changed or
    removed that day's meal, false when only another day's meal changed or no meal did."""
    cases: list[Case] = []
    for (day, label), (_, other_label), template, thing in itertools.product(
            DAYS, DAYS, NO_LONGER_ON, ("the salmon dish", "the miso-glazed salmon", "the Thai curry")):
        said = template.format(thing=thing, Thing=thing[0].upper() + thing[1:], day=day)
        shop = Fact("created", "shopping_list", "shop_1", "black pepper")
        if other_label == label:
            for action in ("updated", "deleted"):
                cases.append(Case(said, ReplyFacts(earlier=[Fact(action, "meal_plans", "meal_1", label), shop]), True,
                                  "no longer on a day since an earlier turn"))
                cases.append(Case(said, ReplyFacts(things=[Fact(action, "meal_plans", "meal_1", label)]), True,
                                  "no longer on a day since this turn"))
            cases.append(Case(said, ReplyFacts(earlier=[shop]), False, "no longer on a day, though no meal changed"))
        else:
            cases.append(Case(said, ReplyFacts(earlier=[Fact("updated", "meal_plans", "meal_2", other_label), shop]), False,
                              "no longer on a day, though only another day's meal changed"))
    return cases


UNDONE_SAVES = (("Tzatziki with Crudités and Warm Pita", "tzatziki starter", "Tzatziki Sauce"),
                ("Miso-Glazed Salmon with Bok Choy", "miso salmon dish", "Miso Salmon Bowl"),
                ("Chicken Tikka Masala", "tikka masala main", "Paneer Tikka Masala"),
                ("Lemon Drizzle Cake", "lemon drizzle dessert", "Lemon Drizzle Cake with Berries"))
"""A saved recipe an undo removed, the name and kind word a person gives it, and another recipe the same words fit."""
UNDO_SAID = ("Undone: the {short} is no longer in your recipes.", "Done, I undid the save of the {short}.",
             "I undid the saving of the {short}; it is a draft again.", "Undone - the {short} was removed from your recipes.")


def undone_save_cases() -> list[Case]:
    """An undo of a save removes the recipe (the ledger records the removal beside the undo): 'the tzatziki starter is no
    longer in your recipes', 'I undid the save of the tzatziki starter' name it by a shortened name and a kind word (true);
    the same when another recipe of the turn or an earlier one fits the words too, when the undo removed another recipe, or
    when nothing was undone (false)."""
    cases: list[Case] = []
    for (label, short, rival), template in itertools.product(UNDONE_SAVES, UNDO_SAID):
        said = template.format(short=short)
        undo = [Fact("undone", "recipes", "recipe_8", label), Fact("deleted", "recipes", "recipe_8", label)]
        saved = Fact("saved", "recipes", "recipe_8", label)
        cases.append(Case(said, ReplyFacts(things=undo, earlier=[saved]), True, "an undone save named short"))
        cases.append(Case(said, ReplyFacts(things=undo, earlier=[saved, Fact("saved", "recipes", "recipe_9", rival)]), False,
                          "an undone save named by words another recipe fits"))
        other = UNDONE_SAVES[(UNDONE_SAVES.index((label, short, rival)) + 1) % len(UNDONE_SAVES)][0]
        cases.append(Case(said, ReplyFacts(things=[Fact("undone", "recipes", "recipe_5", other), Fact("deleted", "recipes", "recipe_5", other)]),
                          False, "an undo of another recipe"))
        cases.append(Case(said, ReplyFacts(earlier=[saved]), False, "an undo no turn did"))
    return cases


EXPLAINED = ("it's now an empty slot: the recipe it pointed to, {label}, was {word}.",
             "Saturday is empty now - {label} was {word}.", "the slot is still there: the recipe it used, {label}, was {word}.")


def explained_state_cases() -> list[Case]:
    """'Saturday's dinner is still on the plan, but it's now an empty slot: the recipe it pointed to, X, was deleted' tells
    what made a state so, about X (not the plan the sentence names): true when this turn or an earlier one removed X, false
    when no turn did (another recipe was); a past passive that explains no state claims this turn's doing (false when only
    an earlier turn did it)."""
    cases: list[Case] = []
    recipes = PLACES[2].things
    for label, template, word in itertools.product(recipes, EXPLAINED, PAST["remove"]):
        said = f"Saturday's dinner is still on the plan, but {template.format(label=label, word=word)}"
        gone = Fact("deleted", "recipes", "recipe_4", label)
        other = Fact("deleted", "recipes", "recipe_5", recipes[(recipes.index(label) + 1) % len(recipes)])
        cases.append(Case(said, ReplyFacts(earlier=[gone]), True, "a past passive explaining a state"))
        cases.append(Case(said, ReplyFacts(things=[gone]), True, "a past passive explaining a state"))
        cases.append(Case(said, ReplyFacts(earlier=[other]), False, "a past passive explaining a state, not done"))
        cases.append(Case(f"{label} was {word} from your recipes.", ReplyFacts(earlier=[gone]), True,
                          "a past passive of an earlier turn, recapped"))
        cases.append(Case(f"{label} was {word} from your recipes.", ReplyFacts(things=[Fact("created", "shopping_list", "shop_2", "Eggs")],
                                                                              earlier=[gone]), False,
                          "a past passive of an earlier turn, beside this turn's write"))
    return cases


ADJECTIVE_BEFORE = ("Your other", "Your only other", "A previously", "Your already")


def adjective_participle_cases() -> list[Case]:
    """For every verb the check knows: a participle between a determiner (and 'other', 'only', 'previously'...) and its noun
    ('your other saved chicken recipe, Chicken Fajitas, is already Sunday's dinner') describes a stored thing (true in a turn
    that only changed a meal); the same verb saying what was done to it ('I saved your other chicken recipe') claims (false)."""
    cases: list[Case] = []
    meal = Fact("updated", "meal_plans", "meal_2", "Sat Nov 28 [dinner]")
    for (word, verb), before in itertools.product(sorted(_VERB_OF.items()), ADJECTIVE_BEFORE):
        cases.append(Case(f"Done: Saturday is now Chicken Tikka Masala. {before} {word} chicken recipe, Chicken Fajitas, is already "
                          f"Sunday's dinner.", ReplyFacts(things=[meal]), True, "a participle describing a stored thing"))
        if word not in _VERB_TABLE and verb != "plan":
            cases.append(Case(f"Done: Saturday is now Chicken Tikka Masala. I {word} your other chicken recipe, Chicken Fajitas.",
                              ReplyFacts(things=[meal]), False, "a participle claiming a write"))
    return cases


def round_three_cases() -> list[Case]:
    """Issue 24's third round of false refusals, each class with its untrue twins."""
    return [*status_word_cases(), *already_state_cases(), *no_longer_on_a_day_cases(), *undone_save_cases(),
            *explained_state_cases(), *adjective_participle_cases()]


# --- issue 24, round 4: partial outcomes, and descriptions of how things stand -------------------------------------

SHORT_OF = (("panko breadcrumbs", "the panko", "not taken out of the pantry (not in the pantry)"),
            ("parmesan", "the parmesan", "not taken out of the pantry (2 tbsp more than the pantry had)"),
            ("smoked paprika", "the smoked paprika", "not taken out of the pantry (the recipe gives no quantity)"),
            ("peanuts", "the peanuts", "left off the shopping list: you are allergic to peanuts"))
"""A part of a call's work not done (an ingredient meal_cooked could not take, a line shopping_list_from left off), the
words a person names it by, and why."""
COOKED = (Fact("created", "cooking_log", "log_1", "Air-Fryer Lemon Garlic Cod"), Fact("updated", "inventory", "inv_3", "Cod Fillets"))
LISTED = (Fact("created", "shopping_list", "shop_4", "Rice Noodles"),)
WHOLE_SAID = ("I logged it as cooked and took what it used out of your pantry.", "Logged, and everything it used is out of your pantry.",
              "I added all the ingredients to your shopping list.", "Done: I logged it and deducted every ingredient.")
PART_SAID = ("I logged it as cooked and took the cod out of your pantry; {short} was not taken: {why}.",
             "Logged! The cod fillets were updated in your pantry, but not {short} ({why}).",
             "I added rice noodles to your shopping list. I left off {short}: {why}.")


def partial_outcome_cases() -> list[Case]:
    """For every part a call did not do: a reply naming it (by its name or the word a person uses) and why is true, also
    after words telling the work whole ('took what it used out of your pantry: …; I couldn't take the panko'); the same
    reply naming another part, or a reply telling the work as done whole and leaving the part out, is false; a reply
    telling the work as whole when nothing fell short is true."""
    cases: list[Case] = []
    for (label, short, why), template in itertools.product(SHORT_OF, PART_SAID):
        things = [*COOKED, *LISTED]
        facts = ReplyFacts(things=things, partial=[Item("", label, why)])
        said = template.format(short=short, why=why)
        cases.append(Case(said, facts, True, "a partial outcome, the part named"))
        other = SHORT_OF[(SHORT_OF.index((label, short, why)) + 1) % len(SHORT_OF)]
        cases.append(Case(template.format(short=other[1], why=other[2]), facts, False, "a partial outcome, another part named"))
        for whole in WHOLE_SAID:
            cases.append(Case(whole, facts, False, "a partial outcome told as whole"))
            cases.append(Case(f"{whole} {said}", facts, True, "a partial outcome told as whole, the part said too"))
            cases.append(Case(whole, ReplyFacts(things=things), True, "a whole outcome told as whole"))
    return cases


REOPENED = (("gen_recipe_3", "Greek Salad Skewers"), ("gen_recipe_5", "Whipped Feta Dip"), ("gen_recipe_7", "Lemon Drizzle Cake"))
REOPENED_SAID = ("Undone: the {label} are no longer in your recipes; they are a draft again, not saved.",
                 "I undid the save: {label} is back to an unsaved draft.",
                 "Undone: {label} is no longer in your recipes (it is still a draft if you want to save it again).")


def reopened_draft_cases() -> list[Case]:
    """An undo of a save reopens its draft: a reply saying the draft is open again, unsaved, is true; a reply that leaves
    the draft out (says only that the recipe is gone) is false, for every draft and every way of saying it."""
    cases: list[Case] = []
    for (ref, label), template in itertools.product(REOPENED, REOPENED_SAID):
        undo = [Fact("undone", "recipes", "recipe_6", label), Fact("deleted", "recipes", "recipe_6", label)]
        facts = ReplyFacts(things=undo, unsaved=[Item(ref, label)], earlier=[Fact("saved", "recipes", "recipe_6", label)])
        cases.append(Case(template.format(label=label), facts, True, "an undo's reopened draft said"))
        cases.append(Case(f"Undone: the {label} is no longer in your recipes. Your shopping list is unchanged.", facts, False,
                          "an undo's reopened draft left out"))
    return cases


def round_four_cases() -> list[Case]:
    """Issue 24's fourth round: partial outcomes and reopened drafts said (or not), each class with its twins."""
    return [*partial_outcome_cases(), *reopened_draft_cases(), *described_now_cases(), *now_holding_cases(), *cause_clause_cases(),
            *column_update_cases(), *constraint_cases(), *set_beside_cases()]


DESCRIBED_NOW = ("- Tonight: Spaghetti Carbonara (25 min), instead of the {thing} {word} now",
                 "Tonight could be the carbonara in place of the {thing} {word} currently.")
NOW_THINGS = ("Miso-Glazed Salmon", "Greek Lemon Chicken", "eggs", "Miso-Glazed Salmon with Bok Choy", "Greek Lemon Chicken and Potatoes")


def described_now_cases() -> list[Case]:
    """For every verb the check knows: a participle after its thing with 'now' or 'currently' ('instead of the Miso-Glazed
    Salmon planned now') says how the thing stands, in a turn that wrote nothing (true); the same verb said by the
    assistant as its doing ('I planned the Miso-Glazed Salmon now') claims (false)."""
    cases: list[Case] = []
    for word, thing in itertools.product(sorted(_VERB_OF), NOW_THINGS):
        for template in DESCRIBED_NOW:
            cases.append(Case(template.format(thing=thing, word=word), ReplyFacts(), True, "a thing described as it stands now"))
        cases.append(Case(f"I {word} the {thing} now.", ReplyFacts(), False, "a claim said with now"))
    return cases


HELD = {"meal_plans": ("Thursday's dinner", "Thu Dec 3 [dinner]", ("a recipe", "no recipe")),
        "recipes": ("Thai Curry", "Thai Curry", ("the peanuts", "no dairy"))}
"""A made thing, its label, and what it may now be without."""


def now_holding_cases() -> list[Case]:
    """For every verb that makes a thing (plan, save, create) and every table such a thing is on: 'is now planned without
    a recipe' says what the thing holds since a change (true when this turn unlinked or updated it); the same when only an
    earlier turn changed it, or this turn changed another thing, is false."""
    cases: list[Case] = []
    for (word, verb), (table, (thing, label, (without, no))) in itertools.product(sorted(_VERB_OF.items()), HELD.items()):
        if verb not in _MAKES or (word in _VERB_TABLE and _VERB_TABLE[word] != table) or (verb == "plan" and table != "meal_plans"):
            continue
        for said in (f"Deleted. {thing} is now {word} without {without}.", f"{thing} is now {word} with {no}."):
            for action in ("unlinked", "updated"):
                cases.append(Case(said, ReplyFacts(things=[Fact(action, table, "x_5", label)]), True, "what a made thing now holds"))
            cases.append(Case(said, ReplyFacts(earlier=[Fact("updated", table, "x_5", label)]), False,
                              "what a made thing now holds, an earlier turn's change"))
            cases.append(Case(said, ReplyFacts(things=[Fact("updated", "inventory", "inv_5", "Milk")]), False,
                              "what a made thing now holds, another thing changed"))
    return cases


CAUSES = ("{Owner} is still on your {place}, but since its {kind} was {word} it now has none.",
          "{Owner} has no {kind} now because the {kind} was {word}.")
CAUSED = {"recipe": ("Saturday dinner", "plan", "recipes", "Greek Lemon Chicken"),
          "task": ("The cod", "pantry", "tasks", "Defrost the salmon")}
"""A thing whose kind a passive names ('its recipe'), the owner it was linked to, and the table and label of the thing."""


def cause_clause_cases() -> list[Case]:
    """For every removal verb and every kind: a clause giving the cause ('since its recipe was deleted') is backed by this
    turn or an earlier one removing a thing of that kind (true); false when no turn did (another kind's thing was)."""
    cases: list[Case] = []
    for (word, verb), (kind, (owner, place, table, label)), template in itertools.product(
            sorted(_VERB_OF.items()), CAUSED.items(), CAUSES):
        if verb != "remove" or word in _VERB_TABLE:
            continue
        said = template.format(Owner=owner, place=place, kind=kind, word=word)
        gone = Fact("deleted", table, "x_4", label)
        cases.append(Case(said, ReplyFacts(earlier=[gone]), True, "a cause said in a passive, an earlier turn's"))
        cases.append(Case(said, ReplyFacts(things=[gone]), True, "a cause said in a passive, this turn's"))
        other = "tasks" if table == "recipes" else "recipes"
        cases.append(Case(said, ReplyFacts(earlier=[Fact("deleted", other, "x_6", "Lemon Tart")]), False,
                          "a cause said in a passive, no turn's doing"))
    return cases


COLUMN_OWNERS = {"meal_plans": (("Saturday's", "Sat Nov 28 [dinner]"), ("Sunday's", "Sun Nov 29 [dinner]")),
                 "shopping_list": (("the eggs'", "Eggs"), ("the milk's", "Milk")),
                 "inventory": (("the cheddar's", "Cheddar"), ("the spinach's", "Spinach")),
                 "tasks": (("the task's", "Buy bread"), ("the task's", "Buy bread")),
                 "recipes": (("Thai Curry's", "Thai Curry"), ("Lemon Pasta's", "Lemon Pasta"))}
"""A row of each table as a reply says whose column it is, its label, and another row."""
CLEARING = ("cleared", "removed", "deleted", "erased", "dropped")
CHANGING = ("changed", "updated", "adjusted", "edited", "modified")


def _columns(table: str) -> list[str]:
    from alfred_mcp.kitchen.schema import TABLES

    return [column.name for column in TABLES[table].columns if column.name not in ("id", "user_id", "ingredient_id", "source_url")
            and not column.name.endswith("_at") and not column.name.startswith("is_") and column.name != "completed"
            and not any(pattern.search(column.name.removesuffix("_id").replace("_", " ")) for pattern, _ in _TABLE)]
    # a link named as its table ('the task's meal plan') is a claim about that table: not told by its column here


def column_update_cases() -> list[Case]:
    """For every table and every column an update sets: 'I cleared Saturday's old note', 'I changed the eggs' quantity'
    tell an update by its column (true when this turn's update of that row set it: cleared for a removal); false when the
    column was set to a value rather than cleared, when only another column was set, or when another row's was."""
    cases: list[Case] = []
    for table, ((owner, label), (other_owner, other_label)) in COLUMN_OWNERS.items():
        columns = _columns(table)
        for index, column in enumerate(columns):
            named = column.removesuffix("_id").replace("_", " ")
            elsewhere = columns[(index + 1) % len(columns)]
            done = Fact("updated", table, "x_2", label, columns=(column,), cleared=(column,))
            for word in CLEARING:
                said = f"Done. I also {word} {owner} old {named}."
                cases.append(Case(said, ReplyFacts(things=[done]), True, "an update told by the column it cleared"))
                cases.append(Case(said, ReplyFacts(things=[Fact("updated", table, "x_2", label, columns=(column,))]), False,
                                  "a column said cleared that was set to a value"))
                cases.append(Case(said, ReplyFacts(things=[Fact("updated", table, "x_2", label, columns=(elsewhere,), cleared=(elsewhere,))]),
                                  False, "a column said cleared, another one was"))
                if other_label != label:
                    cases.append(Case(f"Done. I also {word} {other_owner} old {named}.", ReplyFacts(things=[done]), False,
                                      "another row's column said cleared"))
            for word in CHANGING:
                said = f"I {word} {owner} {named}."
                cases.append(Case(said, ReplyFacts(things=[Fact("updated", table, "x_2", label, columns=(column,))]), True,
                                  "an update told by the column it set"))
                cases.append(Case(said, ReplyFacts(things=[Fact("updated", table, "x_2", label, columns=(elsewhere,))]), False,
                                  "a column said set, another one was"))
    return cases


CONSTRAINT_SAID = ("that restriction", "the gluten restriction", "the no-gluten constraint", "your gluten restriction")
STATED = Fact("created", "constraints", "", "exclude gluten")
DROPPED = Fact("deleted", "constraints", "", "exclude gluten")


def constraint_cases() -> list[Case]:
    """For every verb that removes or adds and every way a reply names a constraint: 'I've dropped that restriction' is
    true when this turn dropped a constraint (a goal reset), false when none was dropped (only one stated, or nothing);
    'I added a gluten restriction' is true when one was stated; a constraint never backs a claim about a kitchen table
    ('I added gluten' when only 'exclude gluten' was stated)."""
    cases: list[Case] = []
    for (word, verb), said in itertools.product(sorted(_VERB_OF.items()), CONSTRAINT_SAID):
        if word in _VERB_TABLE or verb not in ("remove", "add"):
            continue
        text = f"Okay, gluten is back on the table: I've {word} {said}, so pasta is fine again."
        backing, other = (DROPPED, STATED) if verb == "remove" else (STATED, DROPPED)
        cases.append(Case(text, ReplyFacts(things=[backing]), True, "a constraint stated or dropped, said so"))
        cases.append(Case(text, ReplyFacts(things=[other]), False, "a constraint said dropped that was stated, or the other way"))
        cases.append(Case(text, ReplyFacts(), False, "a constraint said changed, none was"))
        cases.append(Case(f"I {word} gluten {'from' if verb == 'remove' else 'to'} your shopping list.", ReplyFacts(things=[backing]),
                          False, "a constraint does not back a write"))
    return cases


SET_BESIDE = ("{Thing}, {word} as its leftovers, has no recipe either.", "{Thing}, {word} for Saturday's leftovers, is still on your plan.",
              "{Thing}, {word} with the rest of the chicken, now has no recipe.")
SET_BESIDE_THINGS = ("Sunday lunch", "Thai Curry", "The Greek Lemon Chicken")
RECAP = ("Saturday dinner is still on your plan (Sat Nov 28, 4 servings), but it no longer has a recipe since the {label} was "
         "{word}. Sunday lunch, planned as its leftovers, has no recipe either.")
"""Round six's recap of an earlier turn's removal (a question about it, in a turn that wrote nothing)."""


def set_beside_cases() -> list[Case]:
    """For every verb that makes a thing (plan, save, create) and every thing: its participle set between commas beside
    the thing, before the sentence's own verb ('Sunday lunch, planned as its leftovers, has no recipe either'), says what
    the thing is, in a turn that wrote nothing (true); the same verb said as the assistant's doing, or after an opener
    ('Done, planned …'), claims (false). A recap naming the recipe an earlier turn removed is true; naming one no turn
    removed, false."""
    cases: list[Case] = []
    quiet = ReplyFacts(earlier=[Fact("deleted", "recipes", "recipe_2", "Greek Lemon Chicken and Potatoes")])
    for (word, verb), thing, template in itertools.product(sorted(_VERB_OF.items()), SET_BESIDE_THINGS, SET_BESIDE):
        if verb not in _MAKES:
            continue
        cases.append(Case(template.format(Thing=thing, word=word), quiet, True, "a participle set beside its thing"))
        cases.append(Case(f"I {word} {thing.lower()} as its leftovers, so it has no recipe either.", quiet, False,
                          "a made thing claimed, no turn made it"))
        cases.append(Case(f"Done, {word} {thing.lower()} as its leftovers, and it has no recipe.", quiet, False,
                          "a made thing claimed after an opener"))
    for (word, verb), label in itertools.product(sorted(_VERB_OF.items()), ("Greek Lemon Chicken", "Greek Lemon Chicken and Potatoes")):
        if verb != "remove" or word in _VERB_TABLE:
            continue
        said = RECAP.format(label=label, word=word)
        unlinked = Fact("unlinked", "meal_plans", "meal_2", "Sat Nov 28 [dinner]")
        cases.append(Case(said, ReplyFacts(earlier=[*quiet.earlier, unlinked]), True, "a recap of an earlier turn's removal"))
        cases.append(Case(said, ReplyFacts(earlier=[Fact("deleted", "recipes", "recipe_5", "Lemon Tart")]), False,
                          "a recap of a removal no turn did"))
    return cases


# --- warnings told: a reply with the state's sentences for its calls' warnings appended (a reply sent ahead) ---------

WARNINGS = (
    "meal_9: Fri 28 Nov [dinner] already has meal_3 (Salmon Tacos, recipe_2); this plans a second dinner that day",
    "gen_meal_1: Fri 28 Nov [dinner] already has meal_3 (no recipe); this plans a second dinner that day",
    "meal_9: Sat 6 Dec [dinner] makes 4 servings; the occasion (6 guests on Saturday) is for 6",
    "meal_4: Sat 6 Dec [lunch] keeps its note 'double the potatoes', written for Greek Chicken, its recipe before, not "
    "Chicken Tikka: tell the user, or change the note",
    "gen_recipe_1 (Prawn Curry): ingredient 'prawns' contains shellfish: the user is allergic to shellfish; draft_save will "
    "refuse it unless the user explicitly accepts it (allergy_override)",
    "data.recipe_id (recipe_2 Mushroom Risotto, ingredient) 'mushrooms' is mushroom: the user dislikes it",
    "data (Lasagna) takes 2 hr 10 min: the goal's time limit is 30 min",
    "+3 more warnings",
)
"""Warnings of each kind, as the operations write them (`state/warning_words.py` says each to a person)."""


def warned_cases() -> Iterator[Case]:
    """A true claim with the sentences of warnings appended stays true; a false one stays false: the sentences claim
    nothing the check reads as done (a second line 'on it twice now', a meal 'already had', a note 'still has')."""
    for place in PLACES:
        verb_class, action = place.writes[0]
        verb, prep = PAST[verb_class][0], place.preposition.get(verb_class, "on")
        written, absent = place.things[:1], place.things[2:3]
        facts = ReplyFacts(things=_facts(place, action, written))
        twice = [f"{written[0]} is already on the list: {PREFIX[place.table]}_9, 1 jar; a second line was added (merge them if one).",
                 f"{written[0]} is already in the fridge: {PREFIX[place.table]}_9, 2 pieces; a second row was added (merge them if one)."]
        for warning in [*WARNINGS, *twice]:
            sentence = person_sentence(warning, {"recipe_2": "Mushroom Risotto"}.get)
            assert sentence is not None, warning
            yield Case(f"I {verb} {_join(written)} {prep} your {place.words[0]}. {sentence}", facts, True, "warnings told")
            yield Case(f"I {verb} {_join(absent)} {prep} your {place.words[0]}. {sentence}", facts, False, "warnings told, a false claim")


# --- unsaved drafts named together, and what already was, said as it stands ------------------------------------------

DRAFT_SETS = (
    (("Chicken Tikka Masala with Basmati Rice", "Chicken Tikka Masala"),),
    (("Beef and Broccoli Stir-Fry with Jasmine Rice", "a beef stir-fry"), ("Mushroom Stroganoff over Egg Noodles", "a mushroom stroganoff")),
    (("Chicken Tikka Masala with Basmati Rice", "Chicken Tikka Masala"), ("Lamb Kofta with Tzatziki and Flatbread", "Lamb Kofta"),
     ("Creamy Tuscan Chicken Pasta Bake", "a Tuscan pasta")),
)
"""Drafts of one turn as (label, the shorter name a reply uses): one, two and three."""
COUNTS = {1: "one", 2: "two", 3: "three", 4: "four"}
TOGETHER = {1: ("Here is a fish-free dinner: {names}.", "One idea for tonight: {names}.", "This recipe fits: {names}."),
            0: ("Here are {count} fish-free dinners: {names}.", "These {count} dinner ideas work: {names}.",
                "Here are {count} suggestions: {names}.", "I came up with {count} options: {names}.", "Your {count} dinners: {names}.")}
"""How a reply names a turn's drafts all at once, by a kind of dish or of proposal (0: any count above one)."""
NOT_SAVED_SAID = {1: ("(not saved yet)", "I haven't saved it yet.", "I can save it if you like.", "Nothing is saved yet.",
                      "It isn't in your recipes yet.", "Want me to save it?", "Shall I keep it?"),
                  0: ("(not saved yet)", "I haven't saved them yet.", "I can save them if you like.", "Nothing is saved yet.",
                      "None of them are saved yet.", "They aren't in your recipes yet.", "Want me to save any of them?",
                      "Shall I keep them?", "I'll save whichever you pick.")}
"""How a reply says drafts are not saved yet, without the word 'draft'."""


def unsaved_drafts_said_cases() -> list[Case]:
    """For one, two and three drafts of a turn, every way of naming them together by a kind ('Here are three fish-free
    dinners') with every way of saying they are not saved (true, the drafts named by shorter names, in a turn that drafted
    and in one whose writes were only the drafts); false when the count leaves one out, when the unsaved part is left
    unsaid, or when a save is claimed that was not done ('I saved the three dinners')."""
    cases: list[Case] = []
    for drafts in DRAFT_SETS:
        unsaved = [Item(f"gen_recipe_{index + 1}", label) for index, (label, _) in enumerate(drafts)]
        drafted = ReplyFacts(things=[Fact("generated", "recipes", item.ref, item.label) for item in unsaved], unsaved=unsaved)
        quiet = ReplyFacts(unsaved=unsaved)
        n, names = len(drafts), _join([short for _, short in drafts])
        wrong = COUNTS[n + 1]
        for together, said in itertools.product(TOGETHER[min(n, 1) if n == 1 else 0], NOT_SAVED_SAID[min(n, 1) if n == 1 else 0]):
            intro = together.format(count=COUNTS[n], names=names)
            for facts in (drafted, quiet):
                cases.append(Case(f"{intro} {said}", facts, True, "unsaved drafts named together, not saved said"))
                cases.append(Case(f"{intro.format(names=names)}", facts, False, "unsaved drafts named together, not saved unsaid"))
            if n > 1:
                miscounted = together.format(count=wrong, names=names)
                cases.append(Case(f"{miscounted} {said}", drafted, False, "unsaved drafts miscounted"))
        what = "it" if n == 1 else f"the {COUNTS[n]} dinners"
        for facts in (drafted, quiet):
            cases.append(Case(f"Here {'is' if n == 1 else 'are'} {names}. I saved {what}.", facts, False, "unsaved drafts said saved"))
            cases.append(Case(f"I saved {what} to your recipes: {names}.", facts, False, "unsaved drafts said saved"))
    return cases


STANDING_DAYS = (("Saturday", "Sat Nov 28 [dinner]"), ("Sunday", "Sun Nov 29 [dinner]"), ("Friday", "Fri Nov 27 [dinner]"))
STANDING_THINGS = ("Greek Lemon Chicken and Potatoes", "Chicken Fajitas", "the Mushroom Risotto")
AS_IT_STANDS = ("{Day} already has {thing} {word}.", "{Day} already had {thing} {word}.", "{Day} has {thing} {word} for dinner.",
                "You have {thing} {word} for {day}.", "There is {thing} {word} for {day}.", "There's already {thing} {word} for {day}.",
                "{Thing} is already {word} for {day}.", "{Thing} is still {word} for {day}.", "{Thing} stays {word} for {day}.",
                "{Thing} remains {word} for {day}, as before.", "{Thing} was already {word} for {day}.", "{Day} is {thing}, still {word}.")
"""How a reply says what already was (before this turn), a thing made by any verb: what a day or the user has, there is,
is still, stays."""
DONE_NOW = ("I {word} {thing} for {day}.", "I've {word} {thing} for {day}.", "{Thing} has been {word} for {day}.",
            "There is now {thing} {word} for {day}.", "{Day} now has {thing} {word}.", "You now have {thing} {word} for {day}.")
"""The same verbs said as this turn's doing."""
NOW_HAS = ("{Day} now has {thing}.", "Done: {day} now has {thing} for dinner.")
"""A day's meal said changed this turn, without a verb."""


def standing_state_cases() -> list[Case]:
    """For every verb that makes a thing, every thing and every day: what already was said as it stands ('Saturday already
    has Greek Lemon Chicken planned', 'there is …', 'stays planned') passes in a turn that wrote nothing and in one that
    only noted a constraint (true); the same said as this turn's doing ('I planned …', 'Saturday now has … planned') is
    refused there (false). 'Saturday now has X' is true when this turn wrote that day's meal, false when it wrote another
    day's or nothing."""
    cases: list[Case] = []
    noted = ReplyFacts(things=[Fact("created", "constraints", "", "exclude shellfish")])
    for (word, verb), (day, _), thing in itertools.product(sorted(_VERB_OF.items()), STANDING_DAYS, STANDING_THINGS):
        if verb not in _MAKES:
            continue
        fill = {"Day": day, "day": day, "thing": thing, "Thing": thing[0].upper() + thing[1:], "word": word}
        for template, facts in itertools.product(AS_IT_STANDS, (ReplyFacts(), noted)):
            cases.append(Case(template.format(**fill), facts, True, "what already was, said as it stands"))
        for template, facts in itertools.product(DONE_NOW, (ReplyFacts(), noted)):
            cases.append(Case(template.format(**fill), facts, False, "what already was, said as this turn's doing"))
    for (day, label), thing, template in itertools.product(STANDING_DAYS, STANDING_THINGS, NOW_HAS):
        said = template.format(Day=day, day=day, thing=thing)
        other = next(other for _, other in STANDING_DAYS if other != label)
        cases.append(Case(said, ReplyFacts(things=[Fact("updated", "meal_plans", "meal_2", label)]), True, "a day said to have now, changed"))
        cases.append(Case(said, ReplyFacts(things=[Fact("created", "meal_plans", "meal_2", label)]), True, "a day said to have now, changed"))
        cases.append(Case(said, ReplyFacts(things=[Fact("updated", "meal_plans", "meal_3", other)]), False,
                          "a day said to have now, another day changed"))
        cases.append(Case(said, noted, False, "a day said to have now, nothing changed"))
    for place in PLACES[:2]:
        thing, absent = place.things[0], place.things[2]
        facts = ReplyFacts(things=_facts(place, "created", [thing]))
        cases.append(Case(f"Your {place.words[0]} now has {thing.lower()}.", facts, True, "a table said to have now"))
        cases.append(Case(f"Your {place.words[0]} now has {absent.lower()}.", facts, False, "a table said to have now, not added"))
    return cases


def round_seven_cases() -> list[Case]:
    """Issue 24's seventh round: unsaved drafts said without the word 'draft', and what already was said as it stands."""
    return [*unsaved_drafts_said_cases(), *standing_state_cases()]


# --- round eight: a label said whole is its own thing; a participle beside a thing says how it stands ---------------

EXTENDED_NAMES = (("Blueberry Oat Pancakes", "Blueberry Oat Pancakes (Oat Milk, for 6)", "the oat-milk version for 6"),
                  ("Lemony Chicken", "Lemony Chicken, Mushroom and Spinach Penne", "the spinach penne version"),
                  ("Beef Chili", "Beef Chili [Mild, Dairy-Free]", "the mild version"),
                  ("Tomato Soup", 'Tomato Soup "Deluxe" and Grilled Cheese', "the deluxe version"),
                  ("Roast Salmon", "Roast Salmon, Leeks & Potatoes (for 4)", "the leek version"))
"""(a name, a longer name that starts with it, how a reply names the longer one by what is new in it): the second a new
version of the first, with brackets, commas, 'and', quotes."""
SAID_WHOLE = ("I saved {name} to your recipes.", 'I saved "{name}" to your recipes.', "Done! I've saved {name}.",
              "Saved to your recipes: {name}.", "{name} was saved to your recipes.", "I saved {name}.")
"""How a reply says a recipe was saved, by its label."""


def whole_label_cases() -> list[Case]:
    """For every name and the longer name that extends it (brackets, commas, 'and', quotes in it), saved or created this
    turn, with the other one saved by an earlier turn or by none: the reply naming the saved one by its whole label is
    true; naming the other one an earlier turn saved (the shorter name the longer one starts with, or the longer one) is
    false."""
    cases: list[Case] = []
    for (short, long, new), action, template in itertools.product(EXTENDED_NAMES, ("saved", "created"), SAID_WHOLE):
        for saved, other, said in ((long, short, (long, new)), (short, long, (short,))):
            this = Fact(action, "recipes", "recipe_2", saved)
            before = ReplyFacts(things=[this], earlier=[Fact("saved", "recipes", "recipe_1", other)])
            cases.extend(Case(template.format(name=name), facts, True, "a label said whole, saved")
                         for name, facts in itertools.product(said, (ReplyFacts(things=[this]), before)))
            cases.extend(Case(template.format(name=name), before, False, "a label said whole, an earlier one's")
                         for name in ((short,) if saved == long else (long, new)))
    return cases


SET_BESIDE_FOR = ("for 4", "for 6 servings", "for Saturday", "for two people", "on Sunday")
"""Whom or when a made thing is for."""
BESIDE_IT = ("Saturday's {thing} ({word} {tail}) is still on.", "{Thing} ({word} {tail}) looks good.",
             "You have {thing} ({word} {tail}).", "{Thing}, {word} {tail}, stays as it is.", "{Thing} — {word} {tail} — is unchanged.")
"""A participle set beside its thing with whom or when it is for: how the thing stands."""
DOING_FOR = ("I {word} {thing} {tail}.", "I've {word} {thing} {tail}.", "Done, {word} {tail}.", "{Thing} has been {word} {tail}.")
"""The same participle said as this turn's doing."""


def participle_beside_cases() -> list[Case]:
    """For every verb that makes a thing, every thing and whom or when it is for: the participle set beside the thing in
    brackets, commas or dashes ('Saturday's Greek chicken (planned for 4)') is true in a turn that wrote nothing or only
    noted a constraint; the same said as this turn's doing ('I planned … for 4', 'Done, planned for 4') is false there."""
    cases: list[Case] = []
    noted = ReplyFacts(things=[Fact("created", "constraints", "", "exclude shellfish")])
    for (word, verb), thing, tail in itertools.product(sorted(_VERB_OF.items()), STANDING_THINGS, SET_BESIDE_FOR):
        if verb not in _MAKES:
            continue
        fill = {"thing": thing, "Thing": thing[0].upper() + thing[1:], "word": word, "tail": tail}
        for facts in (ReplyFacts(), noted):
            cases.extend(Case(template.format(**fill), facts, True, "a participle beside its thing") for template in BESIDE_IT)
            cases.extend(Case(template.format(**fill), facts, False, "a participle said as this turn's doing") for template in DOING_FOR)
    return cases


def round_eight_cases() -> list[Case]:
    """Issue 24's eighth round: labels said whole (never a shorter name inside them, never split at their own punctuation),
    and a participle set beside its thing with whom or when it is for."""
    return [*whole_label_cases(), *participle_beside_cases()]


# --- round nine: how a removed thing stood, a task named in another form of its words, the kitchen as the pantry --------

STOOD_TAILS = ("for dinner on Friday, Dec 4", "for Saturday", "for 4", "for tonight's dinner")
STOOD = ("Heads-up: it was {word} {tail}, so that dinner now has no recipe.",
         "Deleted {thing}. It was {word} {tail}, so that meal now has no recipe.",
         "{Thing} is gone from your recipes; it was {word} {tail}, and that meal now has no recipe.")
"""A past passive of a making verb telling how a thing this turn deleted stood (its meal now without a recipe)."""
NOT_STOOD = ("{Other} was {word} {tail}, so that dinner now has no recipe.",
             "Deleted {thing}. I {word} {other} {tail}, so that meal now has no recipe.")
"""The same words about a thing the turn did not remove, or said as this turn's doing."""


def stood_before_removal_cases() -> list[Case]:
    """For every verb that makes a thing, every recipe deleted and whom or when it was for: a past passive telling how the
    deleted thing stood ('it was planned for dinner on Friday, so that dinner now has no recipe') is true in the turn that
    deleted it; the same about another thing it did not remove, or said as this turn's doing, is false; and a plan said so
    in a turn that removed nothing (a line ticked) is false."""
    cases: list[Case] = []
    recipes = ("Lemon Garlic Baked Cod", "Mushroom Risotto", "Chicken Fajitas")
    for (word, verb), thing, tail in itertools.product(sorted(_VERB_OF.items()), recipes, STOOD_TAILS):
        if verb not in _MAKES:
            continue
        other = next(name for name in recipes if name != thing)
        meal = Item("meal_5", "Fri Dec 4 [dinner]", "left pointing at a removed row")
        removed = ReplyFacts(things=[Fact("deleted", "recipes", "recipe_2", thing), Fact("unlinked", "meal_plans", "meal_5", meal.label)],
                             unlinked=[meal])
        ticked = ReplyFacts(things=[Fact("updated", "shopping_list", "shop_1", "Eggs", columns=("is_purchased",))])
        fill = {"word": word, "tail": tail, "thing": thing, "Thing": thing, "other": other, "Other": other}
        cases.extend(Case(template.format(**fill), removed, True, "how a deleted thing stood") for template in STOOD)
        cases.extend(Case(template.format(**fill), removed, False, "how another thing stood, or this turn's doing")
                     for template in NOT_STOOD)
        if verb == "plan":  # a plan is backed by a write to the plan only (a save, by any update: not this class)
            cases.append(Case(STOOD[0].format(**fill), ticked, False, "how a thing stood, nothing removed"))
    return cases


TASK_FORMS = (("Move the cod from the freezer to the fridge to thaw", "moving the cod from the freezer to the fridge to thaw",
               "moving the salmon from the freezer to the fridge to thaw"),
              ("Bake the bread for Sunday", "baking the bread for Sunday", "baking the cake for Sunday"),
              ("Slice the onions", "slicing the onions", "slicing the peppers"),
              ("Marinate the chicken overnight", "marinating the chicken overnight", "marinating the tofu overnight"),
              ("Chop the parsley", "chopping the parsley", "chopping the basil"),
              ("Defrost the salmon", "defrosting the salmon", "defrosting the chicken"))
"""(a task's label, its words in another form, another task said in that form)."""
TASK_SAID = ("Marked done: {said}.", "I marked {said} done.", "I've marked {said} as done.", "Updated {said} on your to-do list.")


def other_form_cases() -> list[Case]:
    """For every task and how a reply says it in another form of its own words ('moving the cod …' for 'Move the cod …'):
    the update of that task backs it; a task the turn did not update, said in the same form, is not backed."""
    cases: list[Case] = []
    for (label, said, other), template in itertools.product(TASK_FORMS, TASK_SAID):
        facts = ReplyFacts(things=[Fact("updated", "tasks", "task_6", label, columns=("completed",))])
        cases.append(Case(template.format(said=said), facts, True, "a task in another form of its words"))
        cases.append(Case(template.format(said=other), facts, False, "another task in another form of its words"))
    return cases


KITCHEN_SAID = ("I checked the {thing} off your shopping list and added them to your kitchen.",
                "Ticked the {thing} as bought and put them in your kitchen.", "I added the {thing} to your kitchen.")


def kitchen_word_cases() -> list[Case]:
    """'your kitchen' names the pantry: a claim of adding there is true when the turn stocked the pantry, false when it only
    ticked the shopping line."""
    cases: list[Case] = []
    for thing, template in itertools.product(("eggs", "milk", "lemons"), KITCHEN_SAID):
        ticked = Fact("updated", "shopping_list", "shop_1", thing, columns=("is_purchased",))
        stocked = ReplyFacts(things=[ticked, Fact("created", "inventory", "inv_1", thing)])
        cases.append(Case(template.format(thing=thing), stocked, True, "added to the kitchen, stocked"))
        cases.append(Case(template.format(thing=thing), ReplyFacts(things=[ticked]), False, "added to the kitchen, only ticked"))
    return cases


def round_nine_cases() -> list[Case]:
    """Issue 24's ninth round: how a deleted thing stood, a task named in another form of its words, the kitchen as the
    pantry."""
    return [*stood_before_removal_cases(), *other_form_cases(), *kitchen_word_cases()]
