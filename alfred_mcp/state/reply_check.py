"""The reply check: Reply is a witness, so a reply that claims what did not happen, or leaves out
what the user must know, is refused with exactly what is wrong, never patched.

`ReplyFacts` is what the state recorded for the turn: each thing a call wrote (`Fact`: action,
table, ref, label), the things of earlier turns, failures, unsaved drafts and a stop. `check_reply`
reads the reply clause by clause. A claim ("I added the pears to your shopping list", "Eggs were
removed", "Milk is now on your list") is checked per thing: each thing it names must have a fact of
this turn whose action backs the verb, on the table the clause names; a claim naming no thing ("I
saved them") needs such a fact on that table. A negation ("I did not add…"), a condition or
question, a correction of what was said before ("I said I had added X, but I had not") and a sentence
saying how things stood ("Eggs had been added to your list", "Thursday dinner was planned with it": what
the meal held), a present passive ('is already partly planned'), a participle set beside its thing ('Sunday lunch, planned as its
leftovers, has none') and a relative clause about what the user did ('the
salmon dinner you swapped out') claim nothing; 'no longer on your list' and a relative clause about what the assistant
did ('the eggs I added') are backed by this turn or an earlier one, and so is, in a turn that wrote nothing, a claim naming
its things ('The Greek Lemon Chicken was deleted': a recap). Every failed item, every draft left unsaved and a stopped turn must be mentioned. A thing is
named by its ref or its label as a whole name (`names_whole`: the same head word, plurals folded), never
by a word of another label ('rice' is not 'Rice Vinegar Dressing') nor a piece of a word ('pepper' is not
'Peppermint Tea'); a shortened name ('the Whipped Feta Dip') counts only when no other thing of the turn or an earlier one
answers to it too. The check is literal (words, refs, labels), so it is the same every time.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from functools import lru_cache

from alfred_mcp.kitchen.ingredient_match import FORM_WORDS
from alfred_mcp.kitchen.schema import TABLES, UNITS
from alfred_mcp.kitchen.taxonomy import singular

_VERBS: dict[str, tuple[str, ...]] = {
    "add": ("added", "put", "restocked", "topped up", "logged", "recorded", "noted down"),
    "save": ("saved", "stored", "filed"),
    "create": ("created", "set up", "generated"),
    "plan": ("planned", "scheduled", "booked", "pencilled in", "penciled in"),
    "remove": ("removed", "deleted", "dropped", "cleared", "crossed off", "discarded", "erased", "unlinked"),
    "change": ("changed", "updated", "modified", "edited", "renamed", "moved", "replaced", "swapped", "marked", "checked off",
               "adjusted", "increased", "reduced", "bumped", "relinked", "re-linked", "linked again"),
    "undo": ("undid", "undone", "reverted", "restored"),
}
_BACKED_BY: dict[str, frozenset[str]] = {
    "add": frozenset({"created", "saved", "updated", "undone"}),
    "save": frozenset({"saved", "created", "updated"}),
    "create": frozenset({"created", "saved", "generated"}),
    "plan": frozenset({"created", "saved", "updated"}),
    "remove": frozenset({"deleted", "unlinked", "updated", "discarded", "cascaded", "undone"}),
    "change": frozenset({"updated", "unlinked", "relinked", "undone", "saved", "revised"}),
    "undo": frozenset({"undone", "relinked"}),
}
_WRITE_ACTIONS = frozenset().union(*_BACKED_BY.values())
_VERB_OF = {word: verb for verb, words in _VERBS.items() for word in words}
_VERB = re.compile(r"\b(" + "|".join(sorted((re.escape(w) for w in _VERB_OF), key=len, reverse=True)) + r")\b(?!\s+together)",
                   re.IGNORECASE)
_NAMED_BEFORE = re.compile(r"^(.*\S)\s*[-–—]\s*$")
"""'Eggs and milk - added to your list': the things come before the dash."""
_A_CLAUSE = re.compile(r"\b(?:is|are|was|were|has|have|had|will|can|do|does)\b", re.IGNORECASE)
"""What follows a colon is a clause, not a list of things, when it has a verb of its own."""
_NAME_WORD = r"(?!(?:is|are|was|were|been|be|and|with)\b)[a-z]+(?:-[a-z]+)*"
_DESCRIBES = re.compile(
    rf"\b(?:the|that|those|these|this|any|every)\s+{_NAME_WORD}(?:\s+{_NAME_WORD}){{0,2}}"
    rf"(?:\s+(?:with|and|&)\s+{_NAME_WORD}(?:\s+{_NAME_WORD}){{0,2}})?"
    r"(?:\s+(?:it|they|that|which)\s+(?:was|were|is|are))?(?:\s+(?:now|currently|still|already))?\s*$",
    re.IGNORECASE,
)
"""What comes before a participle that describes a thing ('the meals planned with them') rather than says what was done."""
_DESCRIBED_AFTER = re.compile(
    r"(?:\s+(?:now|currently|right\s+now|at\s+the\s+moment|at\s+present|for\s+now|so\s+far))?"
    r"(?:\s+(?:with|for|on|in|at|from)\b|\s*(?:[.,;!)]|$))", re.IGNORECASE)
"""What follows a participle that describes its thing ('the salmon planned now', 'the meals planned with them')."""
_DETERMINER = re.compile(
    r"(?:\b(?:its|their|your|my|our|his|her|the|a|an|each|every|this|that|these|those|all|both|some|several|many|no)|'s|\b\d+)"
    r"(?:\s+(?:\d+|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve))?"
    r"(?:\s+(?:other|only|own|old|last|first|remaining|favou?rite|previously|recently|newly|already))*\s+$", re.IGNORECASE)
"""What comes before a participle used as an adjective ('its planned dinner', "this week's 8 planned recipes", '3 saved ones',
'your other saved chicken recipe')."""
_APPOSITIVE_STATE = re.compile(r"\w\W*(?:[(,;—–]|\s-)\s*(?:\w+ly\s+)?(?:already|still)\s+(?:\w+ly\s+)?$", re.IGNORECASE)
"""'Greek Lemon Chicken (already planned, no fish)', 'Saturday is Chicken Fajitas, still planned': a participle set beside its
thing with 'already' or 'still' says how the thing stands, not what this turn did ('Done, already added.' says what was done)."""
_APPOSITIVE_OPENS = re.compile(r"\w\W*(?:[(,—–]|\s-)\s*$")
_SERVINGS_OR_DAY = re.compile(
    r"\s+(?:for|on)\s+(?:\d+|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|(?:mon|tues|wednes|thurs|fri|satur|sun)day|"
    r"tonight|tomorrow)\b(?:\s+(?:servings?|people|portions?|guests?|dinner|lunch|breakfast|night))?\s*(?:[),;.!—–]|\s-|$)",
    re.IGNORECASE)
"""'Saturday's Greek chicken (planned for 4)', 'the chili, saved for 6 servings, …': a participle set beside its thing with
only whom or when it is for says how the thing stands ('I planned it for 4' has a subject and an object: a doing)."""
_NOW_HAVE = re.compile(r"\bthere(?:'s|\s+(?:is|are))\s+now\b|\bnow\s+(?:has|have)\b", re.IGNORECASE)
"""'There is now the risotto planned for Saturday', 'you now have the risotto planned': what this turn did, though its
participle follows a thing as a description's does."""
_OPENER = re.compile(r"^\W*(?:(?:done|ok|okay|sure|yes|great|alright|perfect|good|all\s+set|and|then|so)\W*)*$", re.IGNORECASE)
_NO_OBJECT = re.compile(r"\s+(?:with|for|on|in|at|from|by|as|since|before)\b|\s*(?:[.,;!)]|$)", re.IGNORECASE)
"""What follows a participle that describes a thing rather than takes an object ('planned for Sunday', 'saved)')."""
_STATUS = re.compile(
    r"^\s*(?:(?:as|to)\s+)?(?:done|bought|purchased|complete|completed|finished|checked|ticked|open|cooked|got)\b(?:\s+off\b)?|"
    r"\s(?:(?:as|to)\s+)?(?:done|bought|purchased|complete|completed|finished|open|cooked|got)\W*$", re.IGNORECASE)
"""'Marked done: …', 'marked the eggs bought', 'checked off as complete': the status word is the new state of the thing
a marking verb updated, never a thing's name."""
_MARKING = frozenset({"marked", "checked off"})
_STATE = re.compile(
    r"\b(?:(?:what|whatever)(?:'s|\s+is|\s+are)|is|are)\s+"
    r"(?:(?:already|still|all|both|partly|partially|fully|mostly|largely|entirely|half|well|currently)\s+)*$",
    re.IGNORECASE)
"""'… are planned', 'is already partly planned', "the salmon is what's planned": a present passive says how things stand,
not what this turn did ('are now planned', 'are successfully planned' do)."""
_HAVE_STATE = re.compile(
    r"(?:\b(?!(?:I|still|already|also|now|just)\b)[a-z]+(?:\s+(?:still|already|also))*\s+(?:has|have|had)|\b(?:you|we|they)'ve)"
    r"\s+(?:got\s+)?(?!(?:(?:just|already|also|now|since|\w+ly)\s+)*(?:been|put|set|[a-z]+ed)\b)\S",
    re.IGNORECASE)
"""'Tonight you have the salmon planned', 'Saturday already has the chicken planned', 'Saturday had it planned': what a
thing or the user has, a participle after its object, says how things stand ('you now have…', 'Saturday now has…' say what
this turn did; 'I have the…' and 'has been planned' are no state)."""
_STANDING = re.compile(
    r"\bthere(?:'s|\s+(?:is|are|was|were))\s+(?!now\b)|"
    r"\b(?:stays?|stayed|remains?|remained|was|were)\s+(?:(?:still|already|originally|unchanged|as|it|they|was|were)\s+)*"
    r"(?:(?:still|already|originally)\s+)(?:\w+ly\s+)?$|\b(?:stays?|stayed|remains?|remained)\s+(?:\w+ly\s+)?$",
    re.IGNORECASE)
"""'There is Greek Lemon Chicken planned for Saturday', 'it stays planned', 'was already planned', 'were still saved': what
already was before this turn, not its doing ('there is now…' says what it did)."""
_PLUPERFECT = re.compile(r"\bhad\s+(?:already\s+|\w+ly\s+)?been\s+(?:\w+ly\s+)?$", re.IGNORECASE)
"""'The eggs had been added to your list': how things stood before this turn, not what it did."""
_WAS = re.compile(r"\b(?:was|were)\s+(?:\w+ly\s+|also\s+|all\s+|both\s+)?$", re.IGNORECASE)
_HOLDS = re.compile(r"\s+(?:with|around|using|from|for)\s+(?:it|them|that|this|those|these)\b\s*(?:[.,;!)]|and\b|$)", re.IGNORECASE)
_MAKES = frozenset({"plan", "save", "create"})
"""Verbs whose 'with it' says what their thing holds ('Thursday dinner was planned with it': its recipe, a sentence about how
the meal stands); after the others it says what went along or what took its place ('removed with it', 'replaced with it')."""
_NOW_HOLDS = re.compile(r"\s+(?:without|with\s+no|with\s+nothing|with\s+only|with\s+just|but\s+without)\b", re.IGNORECASE)
"""'Thursday's dinner is now planned without a recipe': what a made thing holds since a change (a recipe unlinked)."""
_FOR_WHEN = re.compile(r"\s+(?:for|on)\b", re.IGNORECASE)
"""What follows a made thing's participle to say when or whom it was for ('was planned for dinner on Friday')."""
_SET_BESIDE = re.compile(r"\w\s*,\s*$")
_SET_BESIDE_END = re.compile(r"\s+(?:as|with|around|using|for)\b[^,;:.!?]*,\s*(?:\w+ly\s+)?(?:has|have|had|is|are|was|were|still|now)\b",
                             re.IGNORECASE)
"""'Sunday lunch, planned as its leftovers, has no recipe either': a made thing's participle set between commas beside its
thing, before the sentence's own verb, says what the thing is (what it holds), not what a turn did."""
_VERB_TABLE = {"logged": "cooking_log", "planned": "meal_plans", "scheduled": "meal_plans", "booked": "meal_plans",
               "pencilled in": "meal_plans", "penciled in": "meal_plans", "restocked": "inventory", "crossed off": "shopping_list",
               "checked off": "shopping_list"}
"""The table a verb is about when the clause names none ('Logged tonight's fajitas': the cooking log)."""
_NOW_ON = re.compile(r"\b(?:is|are)\s+(now|no longer)\s+(?:on|in)\b", re.IGNORECASE)
"""A state claim without a verb: 'Milk is now on your list' (an add of this turn), 'no longer in your pantry' (a removal,
of this turn or an earlier one: how things stand since)."""
_EXPLAINED_STATE = re.compile(r"\b(?:now|still|empty|gone|no\s+longer)\b[^:—–]*(?::|—|–|\s-\s)\s*", re.IGNORECASE)
"""'it's now an empty slot: …', 'Saturday is empty now - …': how a thing stands, then (in a past passive) what made it so,
a turn's doing this one or an earlier one."""
_MEAL_NAMED = re.compile(
    r"\s+(?:the\s+|your\s+|this\s+|next\s+|the\s+plan\s+for\s+)?(?:(?P<day>(?:mon|tues?|wed(?:nes)?|thu(?:rs)?|fri|sat(?:ur)?|sun)"
    r"(?:day)?)|tonight|tomorrow|today)\b", re.IGNORECASE)
"""'no longer on Friday', "… on tonight's plan", 'on Saturday's dinner': a meal of the plan, and its day when named."""
_ANTECEDENT = re.compile(r"^(?:.*\b(?:to|from|onto|on|into|in|off|for|at|as|with|by|of|than|instead)\s+)?(.*?),?\s*(?:which|that|who)\s*$",
                         re.IGNORECASE | re.DOTALL)
"""'… for the salmon, which is no longer on tonight's plan': the thing a relative clause is about, just before 'which'."""
_RELATIVE_CLAUSE = re.compile(
    r"\b(?:the|your|my|our|that|this|those|these|a|an)\s+(?!(?:time|turn|round|day|week|morning|evening|night|once)\b)"
    r"(?P<thing>[\w'-]+(?:\s+[\w'-]+){0,5}?),?\s+(?:(?:that|which)\s+)?"
    r"(?P<who>you|we|I)(?:'ve|'d|\s+have|\s+had)?\s+(?:(?:just|already|also|\w+ly)\s+)*$",
    re.IGNORECASE)
_LEADING_PHRASE = re.compile(
    r"^\W*(?:(?:so|ok|okay|done|great|sure|alright|also|then|and|now)\W+)*"
    r"(?:for|on|in|at|to|with|by|from|after|before|since|during|as\s+for|along\s+with|besides|beside)\s+$", re.IGNORECASE)
"""'For the party I added…': a phrase that opens the clause, whose noun is no thing a relative clause describes."""
_RELATIVE_SUBJECT = re.compile(r",?\s+(?:(?:that|which)\s+)?(?:you|we|I)(?:'ve|'d|\s+have|\s+had)?(?:\s+(?:just|already|also|\w+ly))*\s*$",
                               re.IGNORECASE)
"""'the salmon dinner you swapped out', 'the curry that you saved yesterday', 'the eggs I added': a relative clause describes
its thing by what was done to it before; by the user ('you'), it claims nothing; by the assistant ('I', 'we'), it is backed
by this turn or an earlier one."""
CONSTRAINTS_TABLE = "constraints"
"""What the user stated the turn's work keeps to (no gluten, 30 minutes): not a kitchen table, but a reply tells of a
constraint stated or dropped as of a write ('I've dropped that restriction')."""
LIST = "list"
"""'your list', 'the list': the shopping list or the to-do list, whichever the thing it is about is on."""
_LIST_TABLES = frozenset({"shopping_list", "tasks"})
_TABLES: tuple[tuple[str, str], ...] = (
    (r"shopping(?:\s+list)?|grocer(?:y|ies)(?:\s+list)?", "shopping_list"),
    (r"(?:your|the|my)\s+list", LIST),
    (r"pantry|fridge|freezer|inventory|cupboard|larder|stock|(?:your|the|my)\s+kitchen", "inventory"),
    (r"meal\s+plans?|(?:your|the|[a-z]+'s)\s+plan|calendar|menu", "meal_plans"),
    (r"recipe\s+box|cookbook|(?:your|my|the)\s+recipes|recipe\s+collection", "recipes"),
    (r"to-?do(?:\s+list)?|tasks?|reminders?", "tasks"),
    (r"allerg(?:y|ies|ic)|preferences|dislikes|diet|dietary\s+restrictions?", "preferences"),
    (r"restrictions?|constraints?", CONSTRAINTS_TABLE),
    (r"cooking\s+log|log\s+of\s+what\s+you\s+cooked", "cooking_log"),
)
_TABLE = [(re.compile(rf"\b(?:{words})\b", re.IGNORECASE), table) for words, table in _TABLES]
_TABLE_LEVEL = frozenset({"preferences", "meal_plans", "cooking_log", CONSTRAINTS_TABLE})
"""Tables whose labels are not what a reply names (an allergy inside the one preferences row, a plan's date):
a claim on them is backed by a fact of the table, whatever it names."""
_PLAN_TABLES = frozenset({"meal_plans", "tasks"})
_HEDGE = re.compile(
    r"\b(not|no|never|nothing|nor|none|if|once|when|would|could|should|can|will|shall|want|wants|unless|until|"
    r"ready|yet|may|might|whether|\w+n't|cannot|unable|failed|about|going|let)\b",
    re.IGNORECASE,
)
_REPORTED = re.compile(
    r"\b(?:I|I've|I had)\s+(?:said|told you|claimed|mentioned|wrote|reported|stated)\b|\bcorrection\b|\bI was wrong\b|"
    r"\bmy mistake\b|\bmistakenly\b|\bwrongly\b|\bin error\b",
    re.IGNORECASE,
)
"""A clause correcting what was said earlier claims nothing of its own."""
_EARLIER = re.compile(r"\b(?:earlier|previously|before|yesterday|already|last\s+(?:time|turn|week|night)|the\s+other\s+day)\b",
                      re.IGNORECASE)
"""A clause about what an earlier turn did is backed by that turn's facts as well."""
_SENTENCE = re.compile(r"[^.!?\n]+[.!?]?")
_CLAUSE_BREAK = re.compile(
    r";|\bbut\b|\bwhile\b|\balthough\b|\bthough\b|\bhowever\b|\bbecause\b|\bsince\b|\bso\b|"
    r",\s*(?:and\s+|then\s+)?(?=(?:I|I've|I'd|we|it|they|that|this|you)\b)|\band\s+(?=(?:I|I've|I'd|we|it|they)\b)",
    re.IGNORECASE,
)
_PASSIVE = re.compile(r"\b(?:was|were|been|is|are|got|get)\s+(?:\w+ly\s+|also\s+|now\s+|all\s+|both\s+)?$", re.IGNORECASE)
_BOUNDARY = re.compile(r"\b(?:to|from|onto|on|into|in|off|for|at|as|under|with|by|so|too|this|today|now|again)\b|:", re.IGNORECASE)
_SPLIT_ITEMS = re.compile(r",|\band\b|&|\bplus\b|\bas well as\b", re.IGNORECASE)
_FILLER = frozenset((
    "the a an some your my our its their all both also just only now then i i've we've i have has have had it's "
    "another more extra new fresh few of few couple dozen half whole pack packs bag bags can cans jar jars bunch box "
    "oz g kg lb lbs ml l cup cups tbsp tsp pound pounds gram grams piece pieces quantity amount bit little lot lots "
    "successfully already back up out down over in on two three four five six seven eight nine ten eleven twelve "
    "first second third each every").split()) | {unit for unit in UNITS if unit not in FORM_WORDS} \
    | {f"{unit}s" for unit in UNITS if unit not in FORM_WORDS}
"""Words that say how much or which, never what: an amount's unit ('1 carton', 'two bottles') included."""
_ASIDE = re.compile(r"\([^()]*\)|\[[^\[\]]*\]")
"""An aside beside a thing ('the buttermilk (1 carton)'): how much, or a note, never part of its name."""
_GENERIC = frozenset((
    "it them they those these that this everything anything all both one ones rest item items thing things entry entries "
    "row rows recipe recipes dish dishes meal meals draft drafts change changes list lists plan plans task tasks ingredient "
    "ingredients food foods stuff everything else other others which what result results detail details note notes "
    "reminder reminders grocery groceries product products shopping pantry fridge freezer inventory"
).split())
_NUMBER = re.compile(r"^\d+(?:[.,/]\d+)?$")
_COUNTED_KIND = re.compile(
    r"\b(?:\d+|two|three|four|five|six|seven|eight|nine|ten|several|a few|some|all)\b.*\b(?:" + "|".join(
        ("recipes", "items", "dishes", "meals", "drafts", "tasks", "ingredients", "ideas", "options", "entries")) + r")\b",
    re.IGNORECASE)
"""'3 cod recipes', 'two fish dishes': a count of a kind describes the things, it does not name them."""
_DESCRIBING = re.compile(
    r"\s*(?:the\s+|a\s+)?(?:everything|anything|whatever|what|all|them|it|you|me|us|items?|things?|rest)\b",
    re.IGNORECASE)
"""'everything you need', 'the items you asked for', 'you': a phrase that describes, rather than names, things."""

_RELATIVE_START = r"(?:which|who|whom|that\s+(?=(?:you|we|they|it|I|is|are|was|were|has|have|had|will|would)\b)|(?=(?:you|we|they|it)\s))"
_RELATIVE_ASIDE = re.compile(rf",\s*{_RELATIVE_START}[^,]*(?:,|$)", re.IGNORECASE)
_RELATIVE_TAIL = re.compile(rf"{_RELATIVE_ASIDE.pattern}|\s+{_RELATIVE_START}[^,]*?(?=\s*,|\s+and\b|\s*$)", re.IGNORECASE)
"""'the eggs you wanted', 'the eggs that you asked for', 'the eggs, which you need': a relative clause after a thing
describes it and is no part of its name."""
_PREDICATE = re.compile(
    r"\band\s+(?:then\s+|also\s+)?(?:[a-z]+ed|took|put|made|kept|left|got|gave|set|brought|threw|found|held|sent|sold|ate|cooked)"
    r"\s+(?:the|a|an|your|my|it|them|some|one|two|three|\d+)\b", re.IGNORECASE)
"""'… and took a lime out of your pantry': a second predicate of the clause, whose table is its own."""
_LEFT_ALONE = re.compile(r"\s*(?:kept|left|skipped|ignored|held on to)\b", re.IGNORECASE)
"""'I deleted Fish Pie and kept the rest': what follows names what was left as it was, not a thing of the claim."""
_RELATIVE = re.compile(r"\b(?:that|which|who|you)\b.*$", re.IGNORECASE | re.DOTALL)
_GENERIC_HEAD = re.compile(
    r"\b(?:ingredients?|items?|things?|dishes|ones|rest|everything|groceries|bits|extras|essentials)\W*$", re.IGNORECASE)
"""'the carbonara's missing ingredients', 'dishes that work': a phrase whose head is a kind describes things, it names none."""

_UNLINKED = re.compile(
    r"without (?:a |its |their |any )?(?:recipe|meal)|no (?:longer )?(?:has |have )?(?:a )?recipe|unlinked|left empty|"
    r"(?:now|is|are) empty|emptied|still (?:names?|lists?|mentions?|says?)|no longer (?:linked|points?|has|have)",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class Item:
    """A ref, its label and (for a failure) why."""

    ref: str
    label: str = ""
    reason: str = ""

    def named_in(self, text: str, others: Iterable[str] = ()) -> bool:
        """The reply names this item: its ref, or its whole label as words (plurals folded), never inside another word
        nor inside one of the `others` labels ('Rice' is not named by 'rice vinegar dressing' when that is a label)."""
        if self.ref and re.search(rf"\b{re.escape(self.ref)}\b", text, re.IGNORECASE):
            return True
        label = _words_of(self.label)
        if not label:
            return False
        words = list(_words_of(text))
        for other in {_words_of(o) for o in others}:
            if len(other) > len(label) and _at(other, label) is not None:  # blank out a longer label holding this one
                while (start := _at(tuple(words), other)) is not None:
                    words[start:start + len(other)] = ["|"]
        return _at(tuple(words), label) is not None

    def show(self) -> str:
        return f"{self.ref} ({self.label})" if self.label and self.ref else self.label or self.ref


@dataclass(frozen=True)
class Fact:
    """One thing a call did: its action (created, updated, deleted, saved, unlinked, cascaded, relinked, discarded,
    generated, undone), the table, the row's ref and label."""

    action: str
    table: str | None = None
    ref: str = ""
    label: str = ""
    columns: tuple[str, ...] = ()
    """An update's columns set ('notes', 'date')."""
    cleared: tuple[str, ...] = ()
    """Of them, those set to nothing ('I cleared Saturday's note')."""

    def names(self, words: frozenset[str], text: str) -> bool:
        """True when an item (its content words, its text) names this thing: its ref, or its label as a whole name
        (`names_whole`); a meal, whose label is a date and a meal type, by a word of it ('Saturday's dinner')."""
        if self.ref and re.search(rf"\b{re.escape(self.ref)}\b", text, re.IGNORECASE):
            return True
        if _MEAL_LABEL.search(self.label):
            return bool(words & _content_words(self.label))
        return names_whole(text, self.label)

    def show(self) -> str:
        return self.label or self.ref or (self.table or "a row")


@dataclass(frozen=True)
class ReplyFacts:
    """What the state recorded for the turn, as far as the reply must honor it."""

    things: Sequence[Fact] = field(default_factory=tuple)
    """What this turn's successful calls did, one fact per row (reads are not facts)."""
    failed: Sequence[Item] = field(default_factory=tuple)
    unsaved: Sequence[Item] = field(default_factory=tuple)
    """Drafts generated this turn and still not saved."""
    stopped: str | None = None
    """Why the turn stopped before its plan was done (None: it was not stopped)."""
    unlinked: Sequence[Item] = field(default_factory=tuple)
    """Rows a removal of this turn left pointing at nothing (a meal without its recipe): the user must hear of them."""
    relinked: Sequence[Item] = field(default_factory=tuple)
    """Rows an undo of this turn pointed at a restored row again (a meal with its recipe back)."""
    earlier: Sequence[Fact] = field(default_factory=tuple)
    """What the calls of earlier turns did: beside this turn's writes a claim about one of those things must say so ('earlier
    I …'); in a turn that wrote nothing a claim naming the thing is a recap of what was done, backed by them."""
    partial: Sequence[Item] = field(default_factory=tuple)
    """What this turn's calls did less than asked (an ingredient not taken out of the pantry, a line left off the list),
    each with why: the user must hear of each, and a reply may not tell that work as done whole."""

    @property
    def done(self) -> frozenset[str]:
        return frozenset(fact.action for fact in self.things)


@dataclass(frozen=True)
class Claim:
    """One thing the reply asserts happened: a verb class, the items it names (none: 'them'), the table it names."""

    verb: str
    word: str
    items: tuple[str, ...]
    table: str | None
    clause: str
    earlier: bool = False
    day: str = ""
    sentence_table: bool = False
    """The table is the one another clause of the sentence names ('…is still on the plan, but …'), not the claim's own."""
    holding: bool = False
    """A made thing said by what it now holds ('is now planned without a recipe'): a change to it backs the claim too."""
    stood: bool = False
    """A past passive of a making verb with when or whom it was for ('it was planned for Friday's dinner'): beside a
    removal of its thing, how that thing stood before this turn removed it, not a doing of this turn."""
    """The day a claim about a meal names ('no longer on Friday': fri), when it names one."""


def claims(text: str, labels: Iterable[str] = ()) -> list[Claim]:
    """The assertions of what happened, clause by clause (negated, hedged, asked and corrected ones are not claims).
    Words inside the `labels` of the turn's things are that thing's name, never a verb or a table of their own ('the
    task to move the cod from the freezer' claims no move and names no pantry)."""
    found: list[Claim] = []
    known = [(label, words) for label in dict.fromkeys(labels) if (words := _stems(label))]
    for found_sentence in _SENTENCE.finditer(text):
        sentence = found_sentence.group(0)
        bare, runs = _without_labels(sentence, [words for _, words in known])
        clauses = [(sentence[start:end], bare[start:end], tuple(dict.fromkeys(known[k][0] for at, k in runs if start <= at < end)),
                    bool(_CAUSE.fullmatch(sentence[:start].rsplit(None, 1)[-1] if sentence[:start].strip() else "")))
                   for start, end in _clause_spans(sentence) if sentence[start:end].strip()]
        if sentence.strip().endswith("?"):
            clauses = clauses[:-1]  # the question asks; what comes before it still says what happened
        statements = [clause for clause in clauses if not _REPORTED.search(clause[1])]
        # a table named by a clause that claims nothing ('your list is up to date') is the sentence's
        in_sentence = next((table for _, plain, _, _ in statements if not _VERB.search(plain) and (table := _table_named(plain))), None)
        said = _labels_said(sentence, [label for label, _ in known])
        for clause, plain, things, cause in statements:
            found.extend(_clause_claims(clause, plain, in_sentence, things, cause=cause, labels=said))
    return found


def _labels_said(text: str, labels: Iterable[str]) -> tuple[str, ...]:
    """The labels the text says whole (across their own quotes, brackets and commas), longest first."""
    return tuple(sorted((label for label in labels if _label_pattern(label).search(text)), key=len, reverse=True))


@lru_cache(maxsize=8192)
def _label_pattern(label: str) -> re.Pattern[str]:
    """A label said whole: its words in order, with any punctuation or spacing between them, and its closing bracket."""
    words = _TOKEN.findall(label)
    close = re.escape(label.rstrip()[-1]) if label.rstrip()[-1:] in ")]" else ""
    pattern = r"\W+".join(re.escape(word) for word in words) + (rf"\W*?{close}" if close else "")
    return re.compile(rf"(?<!\w){pattern}(?!\w)" if words else r"(?!)", re.IGNORECASE)


def _clause_spans(sentence: str) -> list[tuple[int, int]]:
    """Where each clause of the sentence starts and ends (split at ';', 'but', ', I', ...)."""
    spans, start = [], 0
    for cut in _CLAUSE_BREAK.finditer(sentence):
        spans.append((start, cut.start()))
        start = cut.end()
    return [*spans, (start, len(sentence))]


_TOKEN = re.compile(r"[a-z0-9]+(?:'[a-z]+)?", re.IGNORECASE)


@lru_cache(maxsize=8192)
def _stems(text: str) -> tuple[str, ...]:
    """A text's words as their stems ('moving', 'move' -> mov; 'shelves' -> shelf), for finding a label in a reply."""
    return tuple(_stem(singular(token.lower().removesuffix("'s"))) for token in _TOKEN.findall(text))


def _stem(word: str) -> str:
    """A word without its 'ing', 'ed' or 'e' ('moving', 'move' -> mov): another form of the same word has the same stem."""
    return next((word[: -len(end)] for end in ("ing", "ed", "e") if word.endswith(end) and len(word) - len(end) >= 3), word)


_RUN_NAMES = 3
"""How many words of a longer label in a row are that label ('move the cod from the freezer' of 'Move the cod from the
freezer to the fridge to thaw')."""


def _without_labels(text: str, labels: Sequence[tuple[str, ...]]) -> tuple[str, list[tuple[int, int]]]:
    """The text with each run of words that is a label of the turn's things (whole, or `_RUN_NAMES` words of it in a
    row) blanked out (each letter an 'x': the same length and shape), so no word inside a thing's name is read as a
    verb or a table; and where a label of `_RUN_NAMES` words or more was found (its start, its index): a thing named."""
    tokens = list(_TOKEN.finditer(text))
    stems = [_stems(token.group(0))[0] for token in tokens]
    blank = list(text)
    runs: list[tuple[int, int]] = []
    for index, label in enumerate(labels):
        need = min(len(label), _RUN_NAMES)
        at: dict[str, list[int]] = {}
        for j, stem in enumerate(label):
            at.setdefault(stem, []).append(j)
        for i, j in ((i, j) for i, stem in enumerate(stems) for j in at.get(stem, ())):
            run = 0
            while i + run < len(stems) and j + run < len(label) and stems[i + run] == label[j + run]:
                run += 1
            if run >= need:
                for token in tokens[i: i + run]:
                    blank[token.start(): token.end()] = "x" * (token.end() - token.start())
                if len(label) >= _RUN_NAMES:
                    runs.append((tokens[i].start(), index))
    return "".join(blank), runs


_CAUSE = re.compile(r"since|because", re.IGNORECASE)
"""The word a clause giving a cause opens with ('…, but since its recipe was deleted it has none'): what made things so,
this turn's doing or an earlier one's."""
_KIND_TABLE = {"recipe": "recipes", "meal": "meal_plans", "dinner": "meal_plans", "lunch": "meal_plans", "breakfast": "meal_plans",
               "task": "tasks", "reminder": "tasks", "line": "shopping_list"}
"""A kind a passive's subject names its thing by ('its recipe was deleted'): the table the thing is on."""


def _clause_claims(clause: str, plain: str, in_sentence: str | None, things: tuple[str, ...] = (), *,
                   cause: bool = False, labels: tuple[str, ...] = ()) -> Iterable[Claim]:
    """The clause's claims (`plain`: the clause with the things' labels blanked out, where verbs and tables are read;
    the things a claim names are read from the clause itself, and a lone verb naming none is about the `things` whose
    long labels the clause holds: 'I undid it: the task to move the cod … is open again'). A verb's table is the one named after it, before the
    next verb ('I saved Thai Curry and added eggs to your list': the list is the eggs'); a clause of one verb may name
    it anywhere, and a clause naming none is about the one its sentence names ('…; your list is done')."""
    earlier = cause or bool(_EARLIER.search(plain))
    verbs = list(_VERB.finditer(plain))
    # '…, which is no longer in your list', '… and took a lime out of your pantry': that table is the state's or the other
    # predicate's, not a verb's before it
    limit = min([found.start() for found in (_NOW_ON.search(plain), _PREDICATE.search(plain)) if found] + [len(clause)])
    whole = _table_named(plain[:limit]) or in_sentence if len(verbs) == 1 else None
    for index, match in enumerate(verbs):
        end = verbs[index + 1].start() if index + 1 < len(verbs) else len(clause)
        end = min(end, limit) if match.start() < limit else end
        before, after = plain[: match.start()], plain[match.end():]
        own = _VERB_TABLE.get(match.group(1).lower())
        # a verb about one table ('logged': the cooking log) takes another only if its own phrase names it, not what a
        # later part of the clause names ('I logged the cod as cooked, and took the fillets out of your pantry')
        region = _RELATIVE_ASIDE.sub(" ", plain[match.end(): end])  # 'booked the milk, which you need, on your list'
        table = (_table_named(region.split(",", 1)[0]) or own) if own else _table_named(region) or whole
        if _HEDGE.search(before) or re.match(r"\s+(?:yet|not|nothing)\b", after, re.IGNORECASE):
            continue
        relative = _RELATIVE_CLAUSE.search(before)
        if relative and _LEADING_PHRASE.match(before[: relative.start()]):
            relative = None  # 'For the party I added chips': a phrase before the subject, not a thing described
        if relative and relative.group("who").lower() == "you":
            continue  # 'the salmon dinner you swapped out': what the user did before, no claim of this turn
        if not relative and _DESCRIBES.search(before) and _DESCRIBED_AFTER.match(after) and not _NOW_HAVE.search(before):
            continue  # 'the meals planned with them', 'with the garnish marked': describes a thing, claims nothing
        if not relative and _DETERMINER.search(before) and re.match(r"\s+[a-z]", after, re.IGNORECASE):
            continue  # 'its planned dinner', 'the saved recipe': an adjective, not a claim
        if not relative and (state := _APPOSITIVE_STATE.search(before)) and not _OPENER.match(before[: state.start() + 1]) \
                and _NO_OBJECT.match(after):
            continue  # 'Greek Lemon Chicken (already planned, no fish)': how the thing stands
        if _VERB_OF[match.group(1).lower()] in _MAKES and not relative and (opens := _APPOSITIVE_OPENS.search(before)) \
                and not _OPENER.match(before[: opens.start() + 1]) and _SERVINGS_OR_DAY.match(after):
            continue  # 'Saturday's Greek chicken (planned for 4)': how the thing stands
        if (_HAVE_STATE.search(before) or not relative and _STANDING.search(before)) and not re.search(r"\bnow\b", before, re.IGNORECASE):
            continue  # 'you have the salmon planned', 'Saturday already has it planned', 'it stays planned': how things stand
        if _STATE.search(before):
            continue  # 'Ten meals are planned, ...': how things stand (a change says 'now', or was/were)
        word = match.group(1).lower()
        if _PLUPERFECT.search(before):
            continue  # 'the eggs had been added to your list': how things stood before this turn
        if _VERB_OF[word] in _MAKES and _WAS.search(before) and _HOLDS.match(after):
            continue  # 'Thursday dinner was planned with it': what the meal holds, not a plan of this turn
        if _VERB_OF[word] in _MAKES and not relative and (beside := _SET_BESIDE.search(before)) \
                and not _OPENER.match(before[: beside.start() + 1]) and _SET_BESIDE_END.match(after):
            continue  # 'Sunday lunch, planned as its leftovers, has no recipe': what the meal is, set beside it
        passive = _PASSIVE.search(before)
        named_before = _NAMED_BEFORE.search(before)
        since = verbs[index - 1].end() if index else 0  # a passive's things come after the verb before it
        start, stop = (since, passive.start()) if passive else (0, named_before.end(1)) if named_before \
            else (match.end(), match.end() + _object_end(plain[match.end(): end]))
        if relative:  # 'the eggs I added': the thing is the one the clause describes
            start, stop = relative.span("thing")
        elif not passive and not named_before:  # 'Undone — the dip is removed', 'the dip you added': the next verb's
            stop = start + len(_RELATIVE_SUBJECT.sub("", _PASSIVE.sub("", plain[start:stop])))  # subject is not this object
        explained = None
        if passive and _WAS.search(before) and (explained := _last(_EXPLAINED_STATE.finditer(plain, start, stop))):
            start = explained.end()  # 'it's now an empty slot: the recipe it used, X, was deleted': the cause of a state
        elif passive and not index and (said := plain.rfind(":", start, stop)) >= 0:
            start = said + 1  # 'Heads-up: it was planned for …': the clause's first verb's subject comes after what opens it
        if word in _MARKING:  # 'Marked done: …', 'marked the eggs as bought': the status is no thing
            start, stop = _without_status(plain, start, stop)
        items = _items(clause[start:stop], plain[start:stop], labels)
        if passive and not items and (kind := _words_of(plain[start:stop])[-1:]) and kind[0] in _KIND_TABLE \
                and (table is None or table == in_sentence):
            table = _KIND_TABLE[kind[0]]  # 'its recipe was deleted': a recipe, whatever table the sentence names
        colon = after.find(":")
        listed = clause[match.end() + colon + 1:] if colon >= 0 else ""
        if not items and listed and not _A_CLAUSE.search(listed) and not _VERB.search(plain[match.end() + colon + 1:]):
            items = _items(listed, plain[match.end() + colon + 1:], labels)  # 'Added to your list: eggs', 'All three are saved: …'
        if not items and len(verbs) == 1:
            items = things
        yield Claim(_VERB_OF[word], word, items, table, clause.strip(), earlier or bool(relative) or explained is not None,
                    sentence_table=table is not None and table == in_sentence and _table_named(plain) is None,
                    holding=_VERB_OF[word] in _MAKES and bool(_NOW_HOLDS.match(after)),
                    stood=_VERB_OF[word] in _MAKES and bool(passive and _WAS.search(before) and _FOR_WHEN.match(after)))
    for match in _NOW_ON.finditer(plain):
        if not _HEDGE.search(plain[: match.start()]):
            verb = "add" if match.group(1).lower() == "now" else "remove"
            start = max([verb.end() for verb in verbs if verb.end() <= match.start()]  # past a verb or mark before it
                        + [at + len(mark) for mark in (":", " - ", "—", "–") if (at := plain.rfind(mark, 0, match.start())) >= 0]
                        + [0])
            stop = match.start()
            antecedent = _ANTECEDENT.match(plain[start:stop])
            if antecedent:  # '… for the salmon, which is no longer on tonight's plan': the salmon
                start, stop = start + antecedent.start(1), start + antecedent.end(1)
            table, day = _table_named(plain[match.end():]), ""
            meal = _MEAL_NAMED.match(plain[match.end():])
            if meal and (table is None or table == "meal_plans"):  # 'no longer on Friday': a meal of the plan, that day's
                table, day = "meal_plans", (meal.group("day") or "")[:3].lower()
            yield Claim(verb, match.group(0).lower(), _items(clause[start:stop], plain[start:stop], labels),
                        table, clause.strip(), earlier or verb == "remove", day)
    yield from _now_has_claims(clause, plain, verbs, earlier)


_NOW_HAS = re.compile(r"\bnow\s+(?:has|have|holds?|includes?|contains?|gets?)\b(?!\s+(?:no|none|nothing|neither)\b)", re.IGNORECASE)
"""'Saturday now has Greek Lemon Chicken', 'your list now has eggs': a state claim without a verb, what this turn put there
('now has no recipe' is what a removal left, told apart)."""
_DAY_NAMED = re.compile(
    r"\b(?:(?P<day>(?:mon|tues?|wed(?:nes)?|thu(?:rs)?|fri|sat(?:ur)?|sun)(?:day)?)|tonight|tomorrow|today)\b", re.IGNORECASE)


def _now_has_claims(clause: str, plain: str, verbs: Sequence[re.Match[str]], earlier: bool) -> Iterable[Claim]:
    """The claims of 'X now has Y': a meal of the plan whose day the subject names (a plan of that day, which a change to
    it backs too), or the table the subject names (an add of the things after it)."""
    for match in _NOW_HAS.finditer(plain):
        if _HEDGE.search(plain[: match.start()]):
            continue
        start = max([verb.end() for verb in verbs if verb.end() <= match.start()]
                    + [at + len(mark) for mark in (":", " - ", "—", "–") if (at := plain.rfind(mark, 0, match.start())) >= 0] + [0])
        subject, word = plain[start: match.start()], match.group(0).lower()
        if meal := _DAY_NAMED.search(subject):
            yield Claim("plan", word, (), "meal_plans", clause.strip(), earlier, (meal.group("day") or "")[:3].lower(), holding=True)
        elif table := _table_named(subject):
            stop = match.end() + _object_end(plain[match.end():])
            yield Claim("add", word, _items(clause[match.end():stop], plain[match.end():stop]), table, clause.strip(), earlier)


def _last(found: Iterable[re.Match[str]]) -> re.Match[str] | None:
    return next(iter(reversed(list(found))), None)


def _without_status(plain: str, start: int, stop: int) -> tuple[int, int]:
    """The object's span without the status words a marking verb set ('done', 'as bought') at either end."""
    while start < stop and (status := _STATUS.search(plain[start:stop])):
        start, stop = (start + status.end(), stop) if status.start() == 0 else (start, start + status.start())
    return start, stop


def _object_end(after: str) -> int:
    """Where the object after a verb ends (at 'to', 'from', ':', ...; a label's own words were blanked out before)."""
    boundary = _BOUNDARY.search(after)
    return boundary.start() if boundary else len(after)


def _table_named(clause: str) -> str | None:
    for pattern, table in _TABLE:
        if pattern.search(clause):
            return table
    return None


def _items(phrase: str, plain: str, labels: Sequence[str] = ()) -> tuple[str, ...]:
    """The things a phrase names ('the arugula, pears and lemons' -> arugula, pears, lemons); generic words name none,
    and a phrase naming a table (in `plain`, the phrase with the things' labels blanked out) names no thing. A thing's
    `labels` said whole (longest first) are one item each: their own brackets, commas and 'and' never split them."""
    if any(pattern.search(plain) for pattern, _ in _TABLE):
        return ()
    for tail in reversed(list(_RELATIVE_TAIL.finditer(plain))):  # found in `plain`: never inside a thing's own name
        phrase = phrase[: tail.start()] + phrase[tail.end():]
    kept: list[str] = []

    def keep(found: re.Match[str]) -> str:
        kept.append(found.group(0))
        return f"\uE000{len(kept) - 1}\uE001"

    for label in labels:  # longest first: 'Blueberry Oat Pancakes (Oat Milk, for 6)' before 'Blueberry Oat Pancakes'
        phrase = _label_pattern(label).sub(keep, phrase)
    items = []
    for masked in _SPLIT_ITEMS.split(_ASIDE.sub(" ", phrase)):
        part = re.sub(r"\uE000(\d+)\uE001", lambda found: kept[int(found.group(1))], masked)
        part = _ACTION_OF.sub("", part)  # 'undid the save of the dip': the dip
        if _ACTION_ALONE.match(part):
            continue  # 'I undid the save', 'reverted that change': the action, no thing
        words = _content_words(part)
        if words and not words <= _GENERIC and not _COUNTED_KIND.search(part) and not _DESCRIBING.match(part) \
                and not _LEFT_ALONE.match(part) \
                and not _GENERIC_HEAD.search(_RELATIVE.sub("", part)):
            items.append(part.strip(" \t.,!;:'\"-–—"))
    return tuple(items)


_ACTION_OF = re.compile(
    r"^\s*(?:the\s+|that\s+|this\s+|my\s+)?(?:save|saving|addition|adding|add|removal|removing|deletion|deleting|change|"
    r"changes|swap|swapping|plan|planning|update|updates|edit|edits|creation|import|restock|move)\s+(?:of|to)\s+", re.IGNORECASE)
"""'the save of the tzatziki starter': an action named as a noun, before the thing it was done to."""


_ACTION_ALONE = re.compile(
    r"^\s*(?:the|that|this|my|your|its|last)\s+(?:last\s+)?(?:save|saving|addition|removal|deletion|change|changes|swap|update|"
    r"edit|import|move|restock|write)\s*$", re.IGNORECASE)
"""'the save', 'that change': an action named as a noun with no thing after it."""


_MEAL_LABEL = re.compile(r"\[[a-z ]+\]\s*$", re.IGNORECASE)
"""A meal plan's label: 'Sat Jan 12 [dinner]'."""


@lru_cache(maxsize=8192)
def names_whole(item: str, label: str) -> bool:
    """True when `item` names the thing `label` names, as a whole: the two share their head word (the last, past
    form words: 'chicken thighs' is chicken) and one's words hold the other's in order ('defrosting' holds
    'defrost'). 'the curry' and 'Thai curry' name 'Thai Green Curry', 'rice' names 'Basmati Rice', and 'the honey
    garlic one' names 'Honey Garlic Cod'; 'rice' does not name 'Rice Vinegar Dressing', nor 'pepper' 'Peppermint
    Tea', nor 'chicken breasts' 'Chicken Thighs'."""
    item, label = _SERVES.sub("", item) or item, _SERVES.sub("", label) or label
    said, named = _name_words(item), _name_words(label)
    if not said or not named:
        return False
    if _head_of(item) != _head_of(label):  # 'the honey garlic one', 'the tzatziki starter': a head that only points, at a
        kind = _words_of(item)[-1:]  # thing these words name
        pointing = bool(kind) and kind[0] in _KIND_WORDS
        return pointing and bool(said := tuple(word for word in said if word != kind[0])) and _in_order(said, named)
    shorter, longer = sorted((said, named), key=len)
    return _in_order(shorter, longer)


_SERVES = re.compile(r"\s+for\s+(?:\d+|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve)(?:\s+(?:servings?|people|portions?))?"
                     r"[\s.,;:!?'\"]*$", re.IGNORECASE)
"""Whom a name says the thing serves, closing it outside brackets ('the oat-milk version for 6'): no word of its name."""
_KIND_WORDS = frozenset(("one recipe dish meal starter appetizer appetiser main side dessert pudding dip snack course "
                         "bake treat version variation variant").split())
"""Words after a shortened name that say what kind of thing it is ('the tzatziki starter', 'the honey garlic one'), not
its name: the name's other words pick the thing."""


def _in_order(shorter: tuple[str, ...], longer: tuple[str, ...]) -> bool:
    """Every word of `shorter` in `longer`, in order; a word also stands for its longer forms ('defrost': 'defrosting') and
    its other forms ('moving': 'move')."""
    rest = iter(longer)
    return all(any(other == word or len(word) >= 4 and other.startswith(word) or len(other) >= 4 and word.startswith(other)
                   or len(word) >= 4 and len(other) >= 4 and _stem(word) == _stem(other) for other in rest) for word in shorter)


def _at(words: tuple[str, ...], run: tuple[str, ...]) -> int | None:
    """Where `run` starts in `words` as whole words, or None."""
    return next((i for i in range(len(words) - len(run) + 1) if words[i:i + len(run)] == run), None)


@lru_cache(maxsize=8192)
def _name_words(text: str) -> tuple[str, ...]:
    """A name's words in order, as whole names are compared: singular, without filler, generic words or numbers."""
    return tuple(word for word in _words_of(text) if word not in _FILLER and word not in _GENERIC and not _NUMBER.match(word))


@lru_cache(maxsize=8192)
def _words_of(text: str) -> tuple[str, ...]:
    """Lowercase words in order, singular as the ingredient taxonomy folds them ('leaves' -> leaf), "'s" dropped."""
    return tuple(singular(word.removesuffix("'s")) for word in re.findall(r"[a-z0-9]+(?:'[a-z]+)?", text.lower()))


_WHAT_COMES_WITH = re.compile(r"\s(?:with|in|on|over|and|&)\s", re.IGNORECASE)
"""Where a name's head ends: 'Salmon with Bok Choy' is salmon, 'Chicken and Potatoes' chicken (then potatoes too)."""


@lru_cache(maxsize=8192)
def _head_of(text: str) -> str:
    """The head word of a name, the last of its first part ('Miso-Glazed Salmon with Bok Choy' -> salmon)."""
    first = _name_words(_WHAT_COMES_WITH.split(text, maxsplit=1)[0]) or _name_words(text)
    return _head(first) if first else ""


def _head(words: tuple[str, ...]) -> str:
    """The last word, past trailing form words ('chicken thighs' -> chicken)."""
    kept = list(words)
    while len(kept) > 1 and kept[-1] in FORM_WORDS:
        kept.pop()
    return kept[-1]


@lru_cache(maxsize=8192)
def _content_words(text: str) -> frozenset[str]:
    words = re.findall(r"[a-z][a-z'-]*|\d+", text.lower())
    return frozenset(_singular(w) for w in words if w not in _FILLER and not _NUMBER.match(w) and len(w) > 1)


def _singular(word: str) -> str:
    for ending, replacement in (("ies", "y"), ("oes", "o"), ("ches", "ch"), ("shes", "sh"), ("ses", "s"), ("s", "")):
        if word.endswith(ending) and len(word) > len(ending) + 2 and not word.endswith("ss"):
            return word[: -len(ending)] + replacement
    return word


def _backs(fact: Fact, claim: Claim) -> bool:
    if (fact.table == CONSTRAINTS_TABLE) != (claim.table == CONSTRAINTS_TABLE):
        return False  # a constraint backs only a claim about the constraints ('dropped that restriction'), never a write
    if fact.action not in _BACKED_BY[claim.verb] and not (claim.holding and fact.action in _BACKED_BY["change"]):
        return False
    if claim.table is not None:
        return _on(fact.table, claim.table)
    return claim.verb != "plan" or fact.table in _PLAN_TABLES


def _on_day(fact: Fact, day: str) -> bool:
    """True when a claim naming `day` ('fri') is about this fact's meal ('Fri Nov 27 [dinner]'), or names no day."""
    return not day or not _MEAL_LABEL.search(fact.label) or fact.label[:3].lower() == day


def _on(table: str | None, named: str) -> bool:
    """True when a row of `table` is on the table a reply named ('your list': either list)."""
    return table in _LIST_TABLES if named == LIST else table == named


_DRAFT_EDITS = frozenset({"add", "change", "remove"})
_DRAFTED = frozenset({"generated", "revised"})


def _describes_a_draft(claim: Claim, facts: ReplyFacts) -> bool:
    """'I swapped the buttermilk for oat milk', 'I cut the sugar' in a turn that drafted: an edit naming no kitchen table
    tells what the draft holds, not a write to the kitchen (whether the draft is said to be unsaved is checked apart)."""
    return claim.verb in _DRAFT_EDITS and claim.table is None and any(fact.action in _DRAFTED for fact in facts.things)


def _claim_problems(claim: Claim, facts: ReplyFacts) -> list[str]:
    claim = _on_its_things_table(claim, facts)
    known = [*facts.things, *facts.earlier] if claim.earlier or _a_recap(claim, facts) else facts.things
    backing = [fact for fact in known if _backs(fact, claim) and _on_day(fact, claim.day)]
    if not claim.items and claim.verb == "change" and claim.table is not None:  # 'I updated your list': any write to it
        backing = [fact for fact in known if _on(fact.table, claim.table) and fact.action in _WRITE_ACTIONS]
    if _describes_a_draft(claim, facts) or _stood_before_removal(claim, facts):
        return []
    where = f" on {'your list' if claim.table == LIST else claim.table.replace('_', ' ')}" if claim.table else ""
    if not claim.items or claim.table in _TABLE_LEVEL or (claim.verb == "plan" and claim.table is None):
        if [fact for fact in backing if not _another_column(" ".join(claim.items) or claim.clause, claim, fact)]:
            return []
        return [f"it says '{claim.word}'{where} ('{claim.clause}'), but nothing was {_past(claim)}{where} this turn "
                f"(what happened: {_happened(facts)}); {_SAY_IT_TRUE}"]
    problems = []
    all_backing = backing
    for item in _as_named(claim.items, [*backing, *facts.earlier]):
        words = _content_words(item)
        if _a_column_of(item, claim, known):
            continue  # 'I cleared Saturday's old note': a column an update of that row set
        backing = [fact for fact in all_backing if not _another_column(item, claim, fact)]
        if any(fact.names(words, item) for fact in backing):
            other = _also_named(item, words, backing, [*facts.things, *facts.earlier], claim.table)
            if other is None:
                continue
            problems.append(f"it says '{item}' was {_past(claim)}{where}, but that name also fits {other.show()}, which this turn "
                            f"did not {claim.verb}: name the thing as its label says")
            continue
        earlier = any(fact.names(words, item) for fact in facts.earlier)
        if earlier and not any(fact.names(words, item) for fact in facts.things):
            why, hint = "that was an earlier turn, not this one", _SAY_IT_EARLIER
        else:
            why, hint = f"what happened: {_happened(facts)}", _SAY_IT_TRUE
        turns = "neither this turn nor the ones before it did that" if claim.earlier else "this turn did not do that"
        problems.append(f"it says '{item}' was {_past(claim)}{where}, but {turns} ({why}); {hint}")
    return problems


_REMOVALS = frozenset({"deleted", "cascaded"})


def _stood_before_removal(claim: Claim, facts: ReplyFacts) -> bool:
    """True when a past passive of a making verb says how a thing this turn deleted stood ('Heads-up: it was planned for
    dinner on Friday, so that dinner now has no recipe'): it names no thing ('it') or only deleted things, and no fact of
    this turn backs it (then it is a claim as any other). A row the deletion left in place ('Thursday dinner was planned')
    is no thing that stood: that still claims a plan."""
    removed = [fact for fact in facts.things if fact.action in _REMOVALS]
    if not claim.stood or not removed or any(_backs(fact, claim) for fact in facts.things):
        return False
    return all(any(fact.names(_content_words(item), item) for fact in removed) for item in claim.items)


def _a_recap(claim: Claim, facts: ReplyFacts) -> bool:
    """True when the claim may tell what an earlier turn did to the things it names ('The Greek Lemon Chicken was deleted',
    answering what happened to Saturday's dinner): in a turn that wrote nothing, failed nothing and did not stop, a past
    claim naming its things one by one, or whose clause names whole a thing an earlier turn did it to ('I undid that: Pantry
    Pasta is back in your recipes'), is backed by an earlier turn that did that to them (never a table's rows by a word,
    nor what a thing now holds). Beside this turn's writes it stays refused unless said as earlier, so a reply never
    passes an earlier turn's work off as this one's."""
    if facts.things or facts.failed or facts.stopped or claim.holding or claim.table in _TABLE_LEVEL \
            or (claim.verb == "plan" and claim.table is None):
        return False
    return bool(claim.items) or any(_backs(fact, claim) and Item(fact.ref, fact.label).named_in(claim.clause)
                                    for fact in facts.earlier)


_ASIDE_WORDS = frozenset("old new current previous former extra original".split())
"""Words beside a column's name that say which value, not whose ('Saturday's old note')."""


def _a_column_of(item: str, claim: Claim, known: Sequence[Fact]) -> bool:
    """True when `item` names a column an update of `known` set ('the note', "Saturday's date", 'the eggs' quantity'), on
    the row it names (or on any, when it names none): cleared for a removal ('I cleared the note'), set for any other verb
    ('changed the date'); a remove claim about a column set to a value, or about another row's, is not backed."""
    words = _words_of(item)
    for fact in known:
        for column in fact.cleared if claim.verb == "remove" else fact.columns:
            named = _words_of(column.removesuffix("_id").replace("_", " "))
            at = _at(words, named)
            if at is None:
                continue
            owner = tuple(word for word in words[:at] if word not in _FILLER and word not in _ASIDE_WORDS and word not in _GENERIC)
            if not owner or _owned_by(fact, owner):
                return True
    return False


def _another_column(item: str, claim: Claim, fact: Fact) -> bool:
    """True when `item` names a column of the fact's row ('the eggs' unit') that its update did not set (or, for a
    removal, did not clear): the update backs a claim about the row, not about that column."""
    if not fact.columns or fact.table not in TABLES:
        return False
    words, label = _words_of(item), set(_words_of(fact.label))
    done = fact.cleared if claim.verb == "remove" else fact.columns
    return any(_at(words, named) is not None and not set(named) <= label
               for column in (column.name for column in TABLES[fact.table].columns) if column not in done
               if (named := _words_of(column.removesuffix("_id").replace("_", " "))) and column not in _NOT_SAID)


_NOT_SAID = frozenset({"id", "user_id", "created_at", "updated_at"})
"""Columns a reply never names as what it changed."""


def _owned_by(fact: Fact, owner: tuple[str, ...]) -> bool:
    """True when the words before a column's name ('saturday', 'egg') name the fact's row: a meal by its day, a thing
    by its name."""
    if _MEAL_LABEL.search(fact.label):
        return any(len(word) >= 3 and fact.label[:3].lower() == word[:3] for word in owner) or \
            bool(set(owner) & _content_words(fact.label))
    return names_whole(" ".join(owner), fact.label)


def _on_its_things_table(claim: Claim, facts: ReplyFacts) -> Claim:
    """A claim whose table another clause of its sentence named, on a table whose labels a reply does not name ('Saturday
    is still on the plan, but … Greek Lemon Chicken was deleted'), is about the table of the things it names whole."""
    if not claim.sentence_table or claim.table not in _TABLE_LEVEL or not claim.items:
        return claim
    known = [fact for fact in (*facts.things, *facts.earlier) if fact.table not in _TABLE_LEVEL]
    tables = {fact.table for item in _as_named(claim.items, known) for fact in known
              if _name_words(fact.label) and _name_words(fact.label) == _name_words(item)}
    return replace(claim, table=tables.pop()) if len(tables) == 1 else claim


def _also_named(item: str, words: frozenset[str], backing: Sequence[Fact], known: Sequence[Fact], table: str | None) -> Fact | None:
    """A thing of the turn or an earlier one (on the claim's table) that the item names as well as one it backs, when the
    claim does not back it too: a shortened name ('the Feta Dip') is that thing's only when no other thing answers to it
    ('Whipped Feta Dip' and 'Feta Dip with Herbs'). The item names one thing whole (its ref, or all its name's words) first."""
    named = [fact for fact in known if not _MEAL_LABEL.search(fact.label) and (table is None or _on(fact.table, table))
             and fact.names(words, item)]
    said = _name_words(item)
    whole = [fact for fact in named if _name_words(fact.label) == said
             or fact.ref and re.search(rf"\b{re.escape(fact.ref)}\b", item, re.IGNORECASE)]
    backed = {fact.label.casefold() for fact in backing if fact.names(words, item)}
    return next((fact for fact in whole or named if fact.label.casefold() not in backed), None)


def _as_named(items: tuple[str, ...], facts: Sequence[Fact]) -> list[str]:
    """The claim's items, with neighbours split at 'and' joined again where together they are the whole name of a
    thing whose name has parts ('mac', 'cheese' -> 'mac and cheese' when a fact is Mac & Cheese)."""
    grouped: list[str] = []
    start = 0
    while start < len(items):
        end = next((end for end in range(len(items), start + 1, -1)
                    if any(_WHAT_COMES_WITH.search(fact.label) and fact.names(_content_words(joined), joined) for fact in facts
                           if (joined := " and ".join(items[start:end])))), start + 1)
        grouped.append(" and ".join(items[start:end]))
        start = end
    return grouped


_SAY_IT_TRUE = ("keep every true fact: how a thing stands is said as it stands ('is on your list', 'already planned', 'no longer "
                "in your recipes'), a thing by its name as its label says; leave out only what did not happen")
_SAY_IT_EARLIER = "keep it if true, said as an earlier turn's doing ('earlier I …', 'had been …') or as how it stands now"
"""What a refusal tells the model to do: fix the words, never drop a true fact."""


def _past(claim: Claim) -> str:
    return {"add": "added", "save": "saved", "create": "created", "plan": "planned", "remove": "removed",
            "change": "changed", "undo": "undone"}[claim.verb]


def _happened(facts: ReplyFacts) -> str:
    shown = [f"{fact.action} {fact.show()}" + (f" ({fact.table.replace('_', ' ')})" if fact.table else "") for fact in facts.things]
    return "; ".join(dict.fromkeys(shown[:8])) or "nothing was written"


def check_reply(text: str, facts: ReplyFacts) -> list[str]:
    """Each way the reply contradicts or leaves out the state, as one sentence; empty when it is truthful."""
    return [problem for problem, _ in _problems(text, facts)]


def left_out_of_results(text: str, facts: ReplyFacts) -> list[str]:
    """The reply's problems when each is only a fact left out that the turn's calls' results reveal (a call that failed,
    a part not done, what a removal left pointing at nothing, a turn that stopped): a reply written before the calls ran
    could not know them. Empty when it is truthful, or when it claims anything untrue or leaves out what was known."""
    problems = _problems(text, facts)
    return [problem for problem, _ in problems] if all(revealed for _, revealed in problems) else []


def _problems(text: str, facts: ReplyFacts) -> list[tuple[str, bool]]:
    """`check_reply`'s problems in order, each with whether it is only a fact the calls' results revealed."""
    problems: list[str] = []
    revealed: set[str] = set()
    labels = _labels(facts)
    for claim in claims(text, [*labels, *(fact.label for fact in facts.earlier), *(item.label for item in facts.relinked)]):
        problems.extend(problem for problem in _claim_problems(claim, facts) if problem not in problems)
    for hint in (_SAY_IT_TRUE, _SAY_IT_EARLIER):  # each hint once, after the last problem it follows
        hinted = [index for index, problem in enumerate(problems) if problem.endswith(hint)]
        for index in hinted[:-1]:
            problems[index] = problems[index].removesuffix(f"; {hint}")
    for item in facts.failed:
        if not item.named_in(text, labels):
            problems.append(f"it leaves out {item.show()}, which failed: {item.reason or 'see the batch'}")
            revealed.add(problems[-1])
    unsaved, missing = _unsaved_missing(text, facts, labels)
    if missing:
        problems.append("it leaves out the drafts generated and not saved: " + ", ".join(item.show() for item in missing))
    elif unsaved and not _NOT_SAVED.search(text):
        problems.append("it must say that " + ", ".join(item.show() for item in unsaved) + " are not saved yet")
    if not unlinked_told(text, facts, labels):
        shown = ", ".join(item.show() + (f": {item.reason}" if item.reason else "") for item in facts.unlinked[:5])
        problems.append(f"it leaves out what the removal left pointing at nothing ({shown}); say so")
        revealed.add(problems[-1])
    left_out = [item for item in facts.partial if not _mentioned(item, text, labels)]
    problems.extend(f"it leaves out {item.show()}: {item.reason}; say what was not done" for item in left_out)
    revealed.update(problems[len(problems) - len(left_out):])
    if left_out and (whole := _WHOLE.search(text)):
        shown = ", ".join(item.show() for item in left_out[:5])
        problems.append(f"it says '{whole.group(0)}' as if all was done, but not all was ({shown}): say what was done, and what was not")
    if facts.stopped and not _STOPPED.search(text):
        problems.append(f"it must tell the user the turn stopped before finishing (the state says: {facts.stopped})")
        revealed.add(problems[-1])
    return [(problem, problem in revealed) for problem in problems]


def _labels(facts: ReplyFacts) -> list[str]:
    return [*(fact.label for fact in facts.things), *(item.label for item in (*facts.failed, *facts.unsaved, *facts.unlinked))]


def _unsaved_missing(text: str, facts: ReplyFacts, labels: Sequence[str]) -> tuple[list[Item], list[Item]]:
    """The drafts left unsaved (a failed one is told as failed), and those of them the reply does not name (none when it
    names them together: 'This is a draft', 'the drafts', 'here are three dinners')."""
    failed = {item.ref for item in facts.failed}
    unsaved = [item for item in facts.unsaved if item.ref not in failed]
    missing = [item for item in unsaved if not item.named_in(text, labels)]
    return unsaved, [] if missing and _drafts_named_together(text, len(unsaved)) else missing


def unsaved_told(text: str, facts: ReplyFacts) -> bool:
    """Whether the reply tells every draft left unsaved as such (named, and said not saved)."""
    unsaved, missing = _unsaved_missing(text, facts, _labels(facts))
    return not missing and (not unsaved or bool(_NOT_SAVED.search(text)))


def unlinked_told(text: str, facts: ReplyFacts, labels: Sequence[str] | None = None) -> bool:
    """Whether the reply tells what the turn's removals left pointing at nothing (or there is none): it says so ('now has
    no recipe', 'no longer linked') or names one of those rows."""
    if not facts.unlinked or _UNLINKED.search(text):
        return True
    return any(item.named_in(text, _labels(facts) if labels is None else labels) for item in facts.unlinked)


def _mentioned(item: Item, text: str, labels: Sequence[str]) -> bool:
    """A part not done is mentioned by its whole name, or by a word of it a person would say ('the panko' for 'panko
    breadcrumbs')."""
    return item.named_in(text, labels) or bool(set(_name_words(item.label)) & set(_words_of(text)))


_WHOLE = re.compile(
    r"\b(?:everything|all of (?:it|them)|all (?:the |its |of the )?ingredients|every ingredient|each ingredient|"
    r"(?:what(?:ever)?|all) (?:it|the recipe|they|you) (?:used|needed|called for|calls for|uses|needs))\b", re.IGNORECASE)
"""'took what it used out of your pantry', 'deducted everything': the work told as done whole."""


_COUNT = {"two": 2, "both": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9, "ten": 10}
_DRAFT_KINDS = r"(?:draft|version|variation|recipe|dinner|lunch|breakfast|dish|meal|idea|suggestion|option|main|dessert|starter|side)"
_ONE_DRAFT = re.compile(
    rf"\b(?:the|this|that|a|an|one|your|my|its)\s+(?:[a-z-]+\s+){{0,3}}?{_DRAFT_KINDS}\b|\bdraft(?:ed)?\b", re.IGNORECASE)
_ALL_DRAFTS = re.compile(
    r"\b(?:(?P<det>the|these|those|both|all|your|my)\s+(?:(?:the|of\s+the|of\s+these|of\s+those)\s+)?"
    r"(?:(?P<counted>\d+|two|three|four|five|six|seven|eight|nine|ten)\s+)?|(?P<count>\d+|two|three|four|five|six|seven|eight|nine|ten)\s+)"
    rf"(?:[a-z-]+\s+){{0,3}}?{_DRAFT_KINDS}(?:e?s)\b", re.IGNORECASE)
"""How a reply names the turn's drafts without their names: the one draft ('This is a draft', 'a fish-free dinner'), or
all of them together ('the drafts', 'these three dinners', 'both ideas'), by a kind of dish or of proposal."""


def _drafts_named_together(text: str, drafts: int) -> bool:
    """True when the reply points at all `drafts` at once: the one draft, or a plural kind with a determiner or a count,
    whose count (when said) is the number of drafts ('Here are three fish-free dinners' of three; not 'two dinners')."""
    if drafts == 1:
        return bool(_ONE_DRAFT.search(text))
    for found in _ALL_DRAFTS.finditer(text):
        if _table_named(found.group(0)):
            continue  # 'your recipes': the table, not the drafts
        det, count = (found.group("det") or "").lower(), (found.group("count") or found.group("counted") or "").lower()
        said = _COUNT.get(count) or (int(count) if count.isdigit() else None) or _COUNT.get(det)
        if said in (None, drafts):
            return True
    return False


_NOT_SAVED = re.compile(
    r"not (?:be |been |yet )?saved|unsaved|n't (?:be |been |yet )?saved|draft|"
    r"(?:nothing|none(?: of (?:them|these|those|it))?)(?:'s| is| are| has been| have been)? (?:yet )?saved|"
    r"(?:not|n't) (?:yet )?(?:in|added to|stored in) your recipes|"
    r"(?:want me to|shall i|should i|i can|i could|i'll|i will|happy to|like me to|ready to)\s+(?:save|keep|store)\b|"
    r"add (?:them|it|these|those|any|one) to your recipes|"
    r"save (?:them|it|these|those|any|all|one|some|whichever|the ones?|either|both)\b",
    re.IGNORECASE,
)
"""How a reply says the drafts are not saved yet: 'not saved yet', "I haven't saved them", 'nothing is saved', 'I can save
them if you like', 'not in your recipes yet'."""
_STOPPED = re.compile(
    r"couldn'?t|could not|can'?t|cannot|unable|didn'?t|did not|wasn'?t able|weren'?t able|not able|failed|stopped|"
    r"blocked|wasn'?t|not (?:yet )?(?:done|finished|complete)|ran into|problem|issue|went wrong",
    re.IGNORECASE,
)
