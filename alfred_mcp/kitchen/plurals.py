"""Names and units agreeing with a number, as English says them: '2 lemons', '1/2 lemon', '2 inches', '2 baby bok choy'.

Rules for the last word of a name (or a unit): a plural is made from the singular ('tomato' -> 'tomatoes',
'berry' -> 'berries', 'leaf' -> 'leaves'), a singular from the plural; words that take no plural ('garlic',
'bok choy') are left as written. Pure.
"""

from __future__ import annotations

from alfred_mcp.kitchen.taxonomy import singular as fold_plural

UNCOUNTED_WORDS = frozenset({
    "garlic", "ginger", "rice", "flour", "salt", "sugar", "butter", "oil", "milk", "water", "cheese", "bread", "celery",
    "lettuce", "spinach", "kale", "parsley", "cilantro", "basil", "thyme", "rosemary", "dill", "mint", "broccoli",
    "cauliflower", "asparagus", "corn", "fish", "salmon", "cod", "tuna", "chocolate", "yogurt", "tofu", "pasta",
    "spaghetti", "choy", "cabbage", "sauce", "honey", "juice", "zest", "dough", "meat", "beef", "pork", "chicken",
})
"""Last words of names that do not take a plural ('2 baby bok choy', '3 garlic'): the name is left as written."""
_SINGULAR_TO_PLURAL = {"leaf": "leaves", "loaf": "loaves", "half": "halves"}


def counted_name(name: str, quantity: float) -> str:
    """The name agreeing with a count: its last word plural above 1 ('2 lemons'), singular at 1 or less ('1/2 lemon')."""
    head, _, last = name.rpartition(" ")
    if not last or not last[-1:].isalpha() or last.lower() in UNCOUNTED_WORDS:
        return name
    word = plural(singular(last)) if quantity > 1 + 1e-9 else singular(last)
    return f"{head} {word}" if head else word


def counted(count: int, noun: str) -> str:
    """A count with its noun agreeing, for text people and models read: '1 meal', '3 meals', '0 rows' (never 'meal(s)')."""
    return f"{count} {noun if count == 1 else plural(noun)}"


def singular(word: str) -> str:
    """'tomatoes' -> 'tomato', 'leaves' -> 'leaf', 'Lemons' -> 'Lemon'; a singular comes back as it is (the taxonomy's rule)."""
    folded = fold_plural(word.lower())
    return word if folded == word.lower() else _keep_case(word, folded)


def plural(word: str) -> str:
    """'tomato' -> 'tomatoes', 'berry' -> 'berries', 'inch' -> 'inches', 'leaf' -> 'leaves'; a plural comes back as it is."""
    lower = word.lower()
    if lower in _SINGULAR_TO_PLURAL:
        return _keep_case(word, _SINGULAR_TO_PLURAL[lower])
    if singular(word) != word:
        return word
    if lower.endswith(("s", "x", "z", "ch", "sh")) or lower.endswith(("tomato", "potato")):
        return word + "es"
    if lower.endswith("y") and len(lower) > 1 and lower[-2] not in "aeiou":
        return word[:-1] + "ies"
    return word + "s"


def _keep_case(original: str, replacement: str) -> str:
    return replacement.capitalize() if original[:1].isupper() else replacement
