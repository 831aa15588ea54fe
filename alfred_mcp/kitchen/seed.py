"""The demo kitchen: a realistic household's catalog, recipes, pantry, plans and to-dos, as data.

`demo_kitchen(today)` lays it out around the given date (nothing here reads the clock), so
expiry dates, the week of meal plans and task due dates always sit near "now". Rows carry
only writable columns, with two keys the loader (`alfred_mcp/operations/seeding.py`) resolves:

- a recipe row's ``"parent"`` holds the name of the recipe it is a variation of
  (becomes ``parent_recipe_id``);
- a meal plan or task row's ``"recipe"`` holds a recipe name (becomes ``recipe_id``).

Recipe ingredient, inventory and shopping names are catalog names or aliases, so the
loader can link them to the catalog; recipe ingredient and inventory rows already carry the
catalog's category, as write-time enrichment would give them.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, timedelta
from typing import Any, NamedTuple

Row = dict[str, Any]


@dataclass(frozen=True)
class SeedRecipe:
    """A recipe row and its ingredient rows, in order (the loader adds recipe_id and position)."""

    row: Row
    ingredients: tuple[Row, ...]


@dataclass(frozen=True)
class DemoKitchen:
    """Everything the loader writes, table by table."""

    catalog: tuple[Row, ...]
    recipes: tuple[SeedRecipe, ...]
    inventory: tuple[Row, ...]
    shopping_list: tuple[Row, ...]
    preferences: Row
    meal_plans: tuple[Row, ...]
    tasks: tuple[Row, ...]


def demo_kitchen(today: date) -> DemoKitchen:
    """The demo kitchen with every date placed relative to `today`."""
    categories = _catalog_categories()
    return DemoKitchen(
        catalog=tuple(item.row() for item in _CATALOG),
        recipes=tuple(recipe.build(categories) for recipe in _RECIPES),
        inventory=tuple(item.row(today, categories) for item in _INVENTORY),
        shopping_list=tuple(item.row() for item in _SHOPPING),
        preferences=_preferences(),
        meal_plans=tuple(plan.row(today) for plan in _MEAL_PLANS),
        tasks=tuple(task.row(today) for task in _TASKS),
    )


def _catalog_categories() -> dict[str, str]:
    """Lowercased catalog names and aliases -> the catalog category."""
    found: dict[str, str] = {}
    for item in _CATALOG:
        for name in (item.name, *item.aliases):
            found.setdefault(name.lower(), item.category)
    return found


def _days(today: date, offset: int | None) -> str | None:
    return None if offset is None else (today + timedelta(days=offset)).isoformat()


# -- the catalog --------------------------------------------------------------------------------


def catalog_spellings() -> tuple[tuple[str, ...], ...]:
    """Each catalog ingredient's name and aliases: the names of one thing ('eggplant', 'aubergine')."""
    return tuple((item.name, *item.aliases) for item in _CATALOG)


class _Ingredient(NamedTuple):
    name: str
    category: str
    parent_category: str
    family: str
    default_unit: str
    tier: int
    cuisines: tuple[str, ...] = ()
    aliases: tuple[str, ...] = ()

    def row(self) -> Row:
        return {
            "name": self.name, "aliases": list(self.aliases), "category": self.category,
            "default_unit": self.default_unit, "parent_category": self.parent_category,
            "family": self.family, "cuisines": list(self.cuisines), "tier": self.tier,
        }


_I = _Ingredient
_CATALOG: tuple[_Ingredient, ...] = (
    # fish and shellfish
    _I(
        "cod", "fish", "protein", "white fish", "fillet", 2,
        ("british", "mediterranean", "spanish"), ("cod fillet", "cod fillets"),
    ),
    _I(
        "salmon", "fish", "protein", "oily fish", "fillet", 1,
        ("japanese", "american", "british"), ("salmon fillet", "salmon fillets"),
    ),
    _I("tilapia", "fish", "protein", "white fish", "fillet", 2, ("american", "mexican")),
    _I("sea bass", "fish", "protein", "white fish", "fillet", 3, ("mediterranean", "greek")),
    _I("tuna", "fish", "protein", "oily fish", "can", 1, ("italian", "japanese"), ("canned tuna", "tuna steak")),
    _I("anchovies", "fish", "protein", "oily fish", "can", 3, ("italian", "spanish"), ("anchovy", "anchovy fillets")),
    _I(
        "shrimp", "shellfish", "protein", "crustaceans", "lb", 1,
        ("chinese", "thai", "mexican", "spanish"), ("prawns",),
    ),
    # meat, eggs and tofu
    _I("chicken breast", "poultry", "protein", "chicken", "lb", 1, (), ("chicken breasts", "boneless chicken breast")),
    _I("chicken thighs", "poultry", "protein", "chicken", "lb", 1, (), ("chicken thigh", "boneless chicken thighs")),
    _I("ground turkey", "poultry", "protein", "turkey", "lb", 2, ("american",)),
    _I("ground beef", "red meat", "protein", "beef", "lb", 1, ("american", "mexican", "italian"), ("minced beef",)),
    _I("beef sirloin", "red meat", "protein", "beef", "lb", 2, ("american",), ("sirloin steak",)),
    _I("bacon", "pork", "protein", "cured pork", "slice", 1, ("american", "british")),
    _I("pancetta", "pork", "protein", "cured pork", "oz", 3, ("italian",)),
    _I("italian sausage", "pork", "protein", "sausage", "lb", 2, ("italian", "american")),
    _I("eggs", "eggs", "protein", "eggs", "piece", 1, (), ("egg", "large eggs")),
    _I(
        "tofu", "soy", "protein", "legumes", "oz", 2,
        ("chinese", "japanese", "thai", "korean"), ("firm tofu", "extra-firm tofu"),
    ),
    # dairy and cheese
    _I("butter", "dairy", "dairy", "butter", "tbsp", 1, (), ("unsalted butter", "salted butter")),
    _I("milk", "dairy", "dairy", "milk", "gallon", 1, (), ("whole milk",)),
    _I("heavy cream", "dairy", "dairy", "cream", "cup", 2, ("french", "italian"), ("double cream", "whipping cream")),
    _I(
        "greek yogurt", "dairy", "dairy", "cultured dairy", "oz", 2,
        ("greek", "middle-eastern"), ("plain yogurt", "yogurt"),
    ),
    _I("sour cream", "dairy", "dairy", "cultured dairy", "oz", 2, ("mexican", "american")),
    _I("buttermilk", "dairy", "dairy", "cultured dairy", "cup", 3, ("american", "british")),
    _I("parmesan", "cheese", "dairy", "hard cheese", "oz", 1, ("italian",), ("parmigiano-reggiano", "parmesan cheese")),
    _I("pecorino romano", "cheese", "dairy", "hard cheese", "oz", 3, ("italian",), ("pecorino",)),
    _I("mozzarella", "cheese", "dairy", "fresh cheese", "oz", 1, ("italian",), ("fresh mozzarella",)),
    _I(
        "cheddar", "cheese", "dairy", "hard cheese", "oz", 1,
        ("american", "british"), ("cheddar cheese", "sharp cheddar"),
    ),
    _I("feta", "cheese", "dairy", "brined cheese", "oz", 2, ("greek", "mediterranean"), ("feta cheese",)),
    _I("cotija", "cheese", "dairy", "hard cheese", "oz", 3, ("mexican",), ("cotija cheese",)),
    # alliums
    _I("onion", "alliums", "produce", "alliums", "piece", 1, (), ("onions", "yellow onion", "brown onion")),
    _I("red onion", "alliums", "produce", "alliums", "piece", 1, ("mexican", "mediterranean")),
    _I("garlic", "alliums", "produce", "alliums", "clove", 1, (), ("garlic clove", "garlic cloves")),
    _I("shallot", "alliums", "produce", "alliums", "piece", 2, ("french",), ("shallots",)),
    _I(
        "green onions", "alliums", "produce", "alliums", "bunch", 1,
        ("chinese", "japanese", "korean"), ("scallions", "spring onions", "green onion"),
    ),
    # leafy greens and brassicas
    _I("spinach", "leafy greens", "produce", "amaranths", "bag", 1, (), ("baby spinach",)),
    _I("kale", "leafy greens", "produce", "brassicas", "bunch", 2, (), ("lacinato kale", "curly kale")),
    _I("arugula", "leafy greens", "produce", "brassicas", "bag", 2, ("italian",), ("rocket",)),
    _I(
        "bok choy", "leafy greens", "produce", "brassicas", "head", 2,
        ("chinese", "japanese"), ("baby bok choy", "pak choi"),
    ),
    _I("broccoli", "cruciferous", "produce", "brassicas", "head", 1, (), ("broccoli florets",)),
    _I("cauliflower", "cruciferous", "produce", "brassicas", "head", 2, ("indian",)),
    _I("cabbage", "cruciferous", "produce", "brassicas", "head", 2, ("korean", "british"), ("green cabbage",)),
    # roots
    _I("carrots", "root vegetables", "produce", "umbellifers", "lb", 1, (), ("carrot",)),
    _I(
        "potatoes", "root vegetables", "produce", "nightshades", "lb", 1,
        (), ("potato", "yukon gold potatoes", "russet potatoes"),
    ),
    _I(
        "sweet potatoes", "root vegetables", "produce", "morning glories", "piece", 1,
        ("american", "caribbean"), ("sweet potato",),
    ),
    _I(
        "ginger", "spices", "produce", "gingers", "oz", 1,
        ("chinese", "indian", "japanese", "thai"), ("fresh ginger", "ginger root"),
    ),
    # other vegetables, squash and mushrooms
    _I(
        "tomatoes", "vegetables", "produce", "nightshades", "piece", 1,
        ("italian", "mexican"), ("tomato", "roma tomatoes"),
    ),
    _I("cherry tomatoes", "vegetables", "produce", "nightshades", "cup", 1, ("italian", "mediterranean")),
    _I(
        "canned tomatoes", "vegetables", "pantry", "nightshades", "can", 1,
        ("italian", "indian"), ("crushed tomatoes", "diced tomatoes"),
    ),
    _I("tomato paste", "vegetables", "pantry", "nightshades", "tbsp", 1, ("italian", "middle-eastern")),
    _I(
        "red bell pepper", "vegetables", "produce", "nightshades", "piece", 1,
        ("mexican", "spanish"), ("bell pepper", "red pepper"),
    ),
    _I("jalapeño", "vegetables", "produce", "nightshades", "piece", 2, ("mexican",), ("jalapeno", "jalapenos")),
    _I(
        "eggplant", "vegetables", "produce", "nightshades", "piece", 2,
        ("italian", "middle-eastern", "indian"), ("aubergine",),
    ),
    _I(
        "cucumber", "vegetables", "produce", "cucurbits", "piece", 1,
        ("greek", "middle-eastern"), ("english cucumber",),
    ),
    _I("celery", "vegetables", "produce", "umbellifers", "bunch", 1, (), ("celery stalks",)),
    _I("asparagus", "vegetables", "produce", "asparagus", "bunch", 2, ("french", "italian")),
    _I("corn", "vegetables", "produce", "grasses", "cup", 1, ("mexican", "american"), ("sweet corn", "corn kernels")),
    _I("green beans", "vegetables", "produce", "legumes", "lb", 1, (), ("string beans",)),
    _I("avocado", "vegetables", "produce", "laurels", "piece", 1, ("mexican",), ("avocados",)),
    _I("zucchini", "squash", "produce", "cucurbits", "piece", 1, ("italian",), ("courgette",)),
    _I(
        "cremini mushrooms", "mushrooms", "produce", "fungi", "oz", 2,
        ("italian", "french"), ("cremini", "baby bella mushrooms", "mushrooms"),
    ),
    _I("dried porcini mushrooms", "mushrooms", "pantry", "fungi", "oz", 3, ("italian",), ("porcini",)),
    # herbs
    _I("basil", "herbs", "produce", "mints", "bunch", 1, ("italian", "thai"), ("fresh basil",)),
    _I(
        "flat-leaf parsley", "herbs", "produce", "umbellifers", "bunch", 1,
        ("italian", "middle-eastern"), ("parsley", "italian parsley"),
    ),
    _I(
        "cilantro", "herbs", "produce", "umbellifers", "bunch", 1,
        ("mexican", "thai", "indian", "vietnamese"), ("fresh cilantro",),
    ),
    _I("mint", "herbs", "produce", "mints", "bunch", 2, ("middle-eastern", "vietnamese", "greek"), ("fresh mint",)),
    _I("dill", "herbs", "produce", "umbellifers", "bunch", 2, ("greek",), ("fresh dill",)),
    _I("thyme", "herbs", "produce", "mints", "bunch", 2, ("french",), ("fresh thyme",)),
    _I("rosemary", "herbs", "produce", "mints", "bunch", 2, ("italian",), ("fresh rosemary",)),
    _I("dried oregano", "herbs", "spices", "mints", "tsp", 1, ("greek", "italian", "mexican"), ("oregano",)),
    _I("bay leaves", "herbs", "spices", "laurels", "piece", 2, ("french", "indian"), ("bay leaf",)),
    # fruit
    _I("lemons", "citrus", "produce", "citrus", "piece", 1, ("mediterranean", "greek"), ("lemon",)),
    _I("limes", "citrus", "produce", "citrus", "piece", 1, ("mexican", "thai", "vietnamese"), ("lime",)),
    _I("blueberries", "berries", "produce", "heaths", "cup", 2, ("american",), ("blueberry",)),
    _I("strawberries", "berries", "produce", "roses", "cup", 2, (), ("strawberry",)),
    _I("bananas", "tropical fruit", "produce", "bananas", "piece", 1, (), ("banana",)),
    _I("apples", "fruit", "produce", "roses", "piece", 1, (), ("apple",)),
    # legumes
    _I(
        "chickpeas", "legumes", "pantry", "legumes", "can", 1,
        ("middle-eastern", "indian"), ("garbanzo beans", "canned chickpeas"),
    ),
    _I("black beans", "legumes", "pantry", "legumes", "can", 1, ("mexican", "caribbean"), ("canned black beans",)),
    _I("red lentils", "legumes", "pantry", "legumes", "cup", 2, ("indian", "middle-eastern")),
    _I("frozen peas", "legumes", "produce", "legumes", "cup", 1, ("british", "indian"), ("peas", "green peas")),
    # grains, pasta and bread
    _I("arborio rice", "grains", "grains", "grasses", "cup", 3, ("italian",), ("risotto rice",)),
    _I("jasmine rice", "grains", "grains", "grasses", "cup", 1, ("thai", "chinese", "vietnamese")),
    _I("basmati rice", "grains", "grains", "grasses", "cup", 1, ("indian", "middle-eastern")),
    _I("rolled oats", "grains", "grains", "grasses", "cup", 1, ("american", "british"), ("oats", "old-fashioned oats")),
    _I("quinoa", "grains", "grains", "amaranths", "cup", 2, ()),
    _I("spaghetti", "pasta", "grains", "durum wheat", "lb", 1, ("italian",)),
    _I("penne", "pasta", "grains", "durum wheat", "lb", 1, ("italian",)),
    _I("corn tortillas", "bread", "grains", "corn", "piece", 2, ("mexican",), ("corn tortilla",)),
    _I("flour tortillas", "bread", "grains", "wheat", "piece", 1, ("mexican",), ("flour tortilla",)),
    _I("naan", "bread", "grains", "wheat", "piece", 2, ("indian",), ("naan bread",)),
    _I("panko breadcrumbs", "bread", "pantry", "wheat", "cup", 2, ("japanese",), ("panko", "breadcrumbs")),
    # nuts and seeds
    _I("almonds", "nuts", "pantry", "roses", "cup", 2, ("mediterranean", "indian"), ("almond",)),
    _I("pine nuts", "nuts", "pantry", "pines", "oz", 3, ("italian", "middle-eastern"), ("pignoli",)),
    _I("peanuts", "nuts", "pantry", "legumes", "cup", 2, ("thai", "chinese", "african"), ("peanut",)),
    _I("peanut butter", "nuts", "pantry", "legumes", "tbsp", 1, ("american", "african")),
    _I("sesame seeds", "seeds", "pantry", "sesame", "tbsp", 2, ("japanese", "korean", "chinese")),
    # oils, condiments, sweeteners and baking
    _I(
        "olive oil", "oils", "pantry", "olives", "tbsp", 1,
        ("italian", "greek", "mediterranean", "spanish"), ("extra-virgin olive oil", "extra virgin olive oil"),
    ),
    _I("vegetable oil", "oils", "pantry", "seed oils", "tbsp", 1, (), ("neutral oil", "canola oil")),
    _I("sesame oil", "oils", "pantry", "sesame", "tsp", 2, ("chinese", "korean", "japanese"), ("toasted sesame oil",)),
    _I(
        "soy sauce", "condiments", "pantry", "fermented soy", "tbsp", 1,
        ("chinese", "japanese", "korean"), ("light soy sauce",),
    ),
    _I("white miso", "condiments", "pantry", "fermented soy", "tbsp", 3, ("japanese",), ("miso", "miso paste")),
    _I("fish sauce", "condiments", "pantry", "fermented fish", "tbsp", 2, ("thai", "vietnamese")),
    _I(
        "rice vinegar", "condiments", "pantry", "vinegars", "tbsp", 2,
        ("japanese", "chinese", "korean"), ("rice wine vinegar",),
    ),
    _I("red wine vinegar", "condiments", "pantry", "vinegars", "tbsp", 2, ("italian", "french", "greek")),
    _I("dijon mustard", "condiments", "pantry", "mustards", "tsp", 2, ("french",), ("dijon",)),
    _I("mirin", "condiments", "pantry", "rice wines", "tbsp", 3, ("japanese",)),
    _I("kalamata olives", "condiments", "pantry", "olives", "cup", 2, ("greek", "mediterranean"), ("olives",)),
    _I(
        "coconut milk", "dairy alternatives", "pantry", "palms", "can", 2,
        ("thai", "indian", "caribbean"), ("canned coconut milk",),
    ),
    _I("white wine", "alcohol", "pantry", "wines", "cup", 2, ("french", "italian"), ("dry white wine",)),
    _I("honey", "sweeteners", "pantry", "honey", "tbsp", 1, ()),
    _I("maple syrup", "sweeteners", "pantry", "syrups", "tbsp", 2, ("american",)),
    _I("granulated sugar", "sweeteners", "baking", "sugars", "cup", 1, (), ("sugar", "white sugar")),
    _I("brown sugar", "sweeteners", "baking", "sugars", "cup", 1, ()),
    _I("all-purpose flour", "baking", "baking", "wheat", "cup", 1, (), ("flour", "plain flour")),
    _I("baking powder", "baking", "baking", "leaveners", "tsp", 1, ()),
    _I("baking soda", "baking", "baking", "leaveners", "tsp", 1, (), ("bicarbonate of soda",)),
    _I("vanilla extract", "baking", "baking", "extracts", "tsp", 1, (), ("vanilla",)),
    _I("chicken broth", "broths", "pantry", "stocks", "cup", 1, (), ("chicken stock",)),
    _I("vegetable broth", "broths", "pantry", "stocks", "cup", 1, (), ("vegetable stock",)),
    # spices
    _I("kosher salt", "spices", "spices", "salts", "tsp", 1, (), ("salt", "sea salt")),
    _I("black pepper", "spices", "spices", "peppercorns", "tsp", 1, (), ("ground black pepper", "black peppercorns")),
    _I(
        "ground cumin", "spices", "spices", "umbellifers", "tsp", 1,
        ("indian", "mexican", "middle-eastern"), ("cumin",),
    ),
    _I("smoked paprika", "spices", "spices", "nightshades", "tsp", 2, ("spanish",), ("pimenton",)),
    _I("ground turmeric", "spices", "spices", "gingers", "tsp", 2, ("indian",), ("turmeric",)),
    _I("garam masala", "spices", "spices", "spice blends", "tsp", 2, ("indian",)),
    _I("chili powder", "spices", "spices", "spice blends", "tsp", 1, ("mexican", "american")),
    _I(
        "red pepper flakes", "spices", "spices", "nightshades", "tsp", 1,
        ("italian",), ("crushed red pepper", "chili flakes"),
    ),
    _I("ground cinnamon", "spices", "spices", "laurels", "tsp", 1, (), ("cinnamon",)),
)


# -- recipes ----------------------------------------------------------------------------------


class _Part(NamedTuple):
    """One recipe ingredient: name (a catalog name or alias), amount, unit, notes, optional."""

    name: str
    quantity: float | None
    unit: str | None
    notes: str | None = None
    is_optional: bool = False

    def row(self, categories: dict[str, str]) -> Row:
        row: Row = {"name": self.name, "is_optional": self.is_optional}
        optional = {
            "quantity": self.quantity, "unit": self.unit, "notes": self.notes,
            "category": categories.get(self.name.lower()),
        }
        row.update({key: value for key, value in optional.items() if value is not None})
        return row


class _Recipe(NamedTuple):
    row: Row
    parts: tuple[_Part, ...]

    def build(self, categories: dict[str, str]) -> SeedRecipe:
        row = {key: list(value) if isinstance(value, tuple) else value for key, value in self.row.items()}
        return SeedRecipe(row=row, ingredients=tuple(part.row(categories) for part in self.parts))


def _recipe(
    name: str, description: str, *, cuisine: str, difficulty: str, prep: int, cook: int, servings: int,
    steps: tuple[str, ...], parts: tuple[_Part, ...], tags: tuple[str, ...] = (),
    occasions: tuple[str, ...] = (), health: tuple[str, ...] = (), flavor: tuple[str, ...] = (),
    equipment: tuple[str, ...] = (), parent: str | None = None,
) -> _Recipe:
    row: Row = {
        "name": name, "description": description, "cuisine": cuisine, "difficulty": difficulty,
        "prep_time_minutes": prep, "cook_time_minutes": cook, "servings": servings, "instructions": steps,
        "tags": tags, "occasions": occasions, "health_tags": health, "flavor_tags": flavor, "equipment_tags": equipment,
    }
    if parent is not None:
        row["parent"] = parent
    return _Recipe(row, parts)


_P = _Part
_RECIPES: tuple[_Recipe, ...] = (
    _recipe(
        "Lemon Garlic Baked Cod",
        "Flaky cod baked under lemon, garlic and butter; on the table in 25 minutes.",
        cuisine="mediterranean", difficulty="easy", prep=10, cook=15, servings=4,
        tags=("fish", "sheet-pan", "quick"), occasions=("weeknight",),
        health=("high-protein", "low-carb", "gluten-free"), flavor=("tangy", "savory", "light"), equipment=("oven",),
        parts=(
            _P("cod fillets", 4, "fillet", "about 6 oz each, patted dry"),
            _P("olive oil", 3, "tbsp"),
            _P("butter", 2, "tbsp", "melted"),
            _P("garlic", 4, "clove", "minced"),
            _P("lemon", 1, "piece", "zested and juiced"),
            _P("smoked paprika", 0.5, "tsp"),
            _P("kosher salt", 1, "tsp"),
            _P("black pepper", 0.5, "tsp", "freshly ground"),
            _P("flat-leaf parsley", 2, "tbsp", "finely chopped"),
            _P("red pepper flakes", 0.25, "tsp", None, True),
        ),
        steps=(
            "Heat the oven to 400°F (200°C) and oil a baking dish.",
            "Season the cod on both sides with the salt, pepper and paprika and lay it in the dish.",
            "Stir together the olive oil, melted butter, garlic, lemon zest and lemon juice.",
            "Spoon the mixture over the fish.",
            "Bake 12-15 minutes, until the cod flakes easily with a fork.",
            "Scatter with parsley and the pepper flakes, if using, and serve with the pan juices.",
        ),
    ),
    _recipe(
        "Air-Fryer Lemon Garlic Cod",
        "The baked cod reworked for the air fryer, with a crisp parmesan-panko crust.",
        cuisine="mediterranean", difficulty="easy", prep=10, cook=10, servings=2, parent="Lemon Garlic Baked Cod",
        tags=("fish", "quick", "crispy"), occasions=("weeknight",),
        health=("high-protein",), flavor=("tangy", "savory"), equipment=("air-fryer",),
        parts=(
            _P("cod fillets", 2, "fillet", "about 6 oz each, patted dry"),
            _P("olive oil", 1, "tbsp"),
            _P("garlic", 2, "clove", "minced"),
            _P("lemon", 1, "piece", "zested, then cut into wedges"),
            _P("panko breadcrumbs", 0.5, "cup"),
            _P("parmesan", 2, "tbsp", "finely grated"),
            _P("smoked paprika", 0.5, "tsp"),
            _P("kosher salt", 0.5, "tsp"),
            _P("flat-leaf parsley", 1, "tbsp", "chopped, to serve", True),
        ),
        steps=(
            "Heat the air fryer to 400°F (200°C).",
            "Mix the panko, parmesan, lemon zest, paprika and salt.",
            "Rub the cod with the olive oil and garlic, then press the crumbs onto the top.",
            "Air-fry 8-10 minutes, until the crust is golden and the fish flakes.",
            "Serve with lemon wedges and parsley.",
        ),
    ),
    _recipe(
        "Miso-Glazed Salmon with Bok Choy",
        "Salmon broiled under a sweet-salty miso glaze, with garlicky bok choy.",
        cuisine="japanese", difficulty="easy", prep=10, cook=15, servings=2,
        tags=("fish", "quick"), occasions=("weeknight",),
        health=("high-protein", "dairy-free"), flavor=("umami", "savory", "sweet"), equipment=("oven", "stovetop"),
        parts=(
            _P("salmon fillets", 2, "fillet", "skin on"),
            _P("white miso", 2, "tbsp"),
            _P("mirin", 1, "tbsp"),
            _P("soy sauce", 1, "tbsp"),
            _P("honey", 1, "tsp"),
            _P("ginger", 1, "tsp", "finely grated"),
            _P("sesame oil", 1, "tsp"),
            _P("baby bok choy", 2, "head", "halved lengthwise"),
            _P("green onions", 2, "piece", "thinly sliced"),
            _P("sesame seeds", 1, "tsp", "toasted", True),
            _P("jasmine rice", 1, "cup", "cooked, to serve", True),
        ),
        steps=(
            "Heat the broiler and line a tray with foil.",
            "Whisk the miso, mirin, soy sauce, honey and ginger into a glaze.",
            "Lay the salmon skin-side down on the tray and spread the glaze over the top.",
            "Broil 8-10 minutes, until the glaze is caramelised and the salmon is just cooked.",
            "Meanwhile stir-fry the bok choy in the sesame oil for 3-4 minutes.",
            "Serve the salmon on the bok choy with rice, green onions and sesame seeds.",
        ),
    ),
    _recipe(
        "Chicken Tikka Masala",
        "Yogurt-marinated chicken in a spiced tomato and cream sauce.",
        cuisine="indian", difficulty="medium", prep=20, cook=35, servings=4,
        tags=("curry", "make-ahead"), occasions=("weekend", "comfort"),
        health=("high-protein", "gluten-free"), flavor=("spicy", "rich", "savory"), equipment=("stovetop",),
        parts=(
            _P("chicken thighs", 1.5, "lb", "boneless, cut into bite-size pieces"),
            _P("greek yogurt", 0.5, "cup"),
            _P("garam masala", 2, "tsp", "divided"),
            _P("ground cumin", 1, "tsp"),
            _P("ground turmeric", 0.5, "tsp"),
            _P("kosher salt", 1.5, "tsp"),
            _P("butter", 2, "tbsp"),
            _P("onion", 1, "piece", "finely chopped"),
            _P("garlic", 4, "clove", "minced"),
            _P("ginger", 1, "tbsp", "grated"),
            _P("crushed tomatoes", 14, "oz"),
            _P("heavy cream", 0.5, "cup"),
            _P("cilantro", 0.25, "cup", "chopped, to garnish", True),
            _P("basmati rice", 1.5, "cup", "cooked, to serve", True),
        ),
        steps=(
            "Toss the chicken with the yogurt, 1 tsp garam masala, the cumin, turmeric and 1 tsp salt;"
            " marinate 20 minutes or overnight.",
            "Sear the chicken in a hot pan in batches until charred in spots; set aside.",
            "Melt the butter and soften the onion for 8 minutes, then add the garlic and ginger for 1 minute.",
            "Add the tomatoes, the rest of the garam masala and salt, and simmer 10 minutes.",
            "Stir in the cream and the chicken and simmer 10 minutes more, until the chicken is cooked through.",
            "Garnish with cilantro and serve with rice.",
        ),
    ),
    _recipe(
        "Greek Lemon Chicken and Potatoes",
        "Chicken thighs and potato wedges roasted in one pan with lemon, garlic and oregano.",
        cuisine="greek", difficulty="easy", prep=15, cook=45, servings=4,
        tags=("sheet-pan", "family"), occasions=("weeknight", "batch-prep"),
        health=("high-protein", "gluten-free"), flavor=("tangy", "savory"), equipment=("oven", "one-pan"),
        parts=(
            _P("chicken thighs", 2, "lb", "bone-in, skin-on"),
            _P("potatoes", 1.5, "lb", "yukon gold, cut into wedges"),
            _P("lemon", 2, "piece", "juiced"),
            _P("olive oil", 0.25, "cup"),
            _P("garlic", 6, "clove", "smashed"),
            _P("dried oregano", 2, "tsp"),
            _P("chicken broth", 0.5, "cup"),
            _P("kosher salt", 2, "tsp"),
            _P("black pepper", 1, "tsp"),
            _P("feta", 0.25, "cup", "crumbled, to serve", True),
            _P("kalamata olives", 0.25, "cup", "halved", True),
        ),
        steps=(
            "Heat the oven to 425°F (220°C).",
            "Toss the chicken and potatoes with the olive oil, lemon juice, garlic, oregano, salt and pepper.",
            "Spread in a roasting pan, chicken skin-side up, and pour the broth around.",
            "Roast 40-45 minutes, until the skin is crisp and the potatoes are tender.",
            "Scatter with feta and olives, if using, and spoon the pan juices over.",
        ),
    ),
    _recipe(
        "Chicken Fajitas",
        "Spiced chicken strips seared with peppers and onions, wrapped in warm tortillas.",
        cuisine="mexican", difficulty="easy", prep=15, cook=15, servings=4,
        tags=("quick", "family"), occasions=("weeknight",),
        health=("high-protein",), flavor=("spicy", "savory", "tangy"), equipment=("cast-iron", "stovetop"),
        parts=(
            _P("chicken breast", 1.5, "lb", "sliced into thin strips"),
            _P("red bell pepper", 2, "piece", "sliced"),
            _P("red onion", 1, "piece", "sliced"),
            _P("vegetable oil", 2, "tbsp"),
            _P("chili powder", 2, "tsp"),
            _P("ground cumin", 1, "tsp"),
            _P("smoked paprika", 1, "tsp"),
            _P("kosher salt", 1, "tsp"),
            _P("lime", 1, "piece", "juiced"),
            _P("flour tortillas", 8, "piece", "warmed"),
            _P("sour cream", 0.5, "cup", None, True),
            _P("avocado", 1, "piece", "sliced", True),
            _P("cilantro", 2, "tbsp", "chopped", True),
        ),
        steps=(
            "Toss the chicken with the chili powder, cumin, paprika, salt and half the lime juice.",
            "Heat 1 tbsp oil in a cast-iron pan until smoking and sear the chicken 5-6 minutes; set aside.",
            "Add the rest of the oil and cook the peppers and onion 5 minutes, until charred but crisp.",
            "Return the chicken, add the remaining lime juice and toss.",
            "Serve in warm tortillas with sour cream, avocado and cilantro.",
        ),
    ),
    _recipe(
        "Black Bean and Sweet Potato Tacos",
        "Roasted sweet potato and smoky black beans in corn tortillas.",
        cuisine="mexican", difficulty="easy", prep=15, cook=25, servings=4,
        tags=("meatless", "family"), occasions=("weeknight",),
        health=("vegetarian", "gluten-free"), flavor=("savory", "spicy"), equipment=("oven", "stovetop"),
        parts=(
            _P("sweet potatoes", 2, "piece", "peeled and cut into 1/2-inch cubes"),
            _P("olive oil", 2, "tbsp"),
            _P("chili powder", 1, "tsp"),
            _P("ground cumin", 1, "tsp"),
            _P("kosher salt", 1, "tsp"),
            _P("black beans", 1, "can", "drained and rinsed"),
            _P("corn tortillas", 8, "piece", "warmed"),
            _P("red onion", 0.5, "piece", "finely diced"),
            _P("lime", 1, "piece", "cut into wedges"),
            _P("avocado", 1, "piece", "diced", True),
            _P("cotija", 0.25, "cup", "crumbled", True),
            _P("cilantro", 2, "tbsp", "chopped", True),
        ),
        steps=(
            "Heat the oven to 425°F (220°C).",
            "Toss the sweet potato with the oil, chili powder, cumin and salt and roast 25 minutes, turning once.",
            "Warm the black beans in a small pan with a splash of water and mash a few.",
            "Fill the tortillas with beans and sweet potato.",
            "Top with red onion, avocado, cotija and cilantro, and squeeze over lime.",
        ),
    ),
    _recipe(
        "Mushroom Risotto",
        "Creamy arborio rice with browned mushrooms, white wine and parmesan.",
        cuisine="italian", difficulty="medium", prep=15, cook=35, servings=4,
        tags=("meatless", "date-night"), occasions=("weekend", "comfort", "hosting"),
        health=("vegetarian", "gluten-free"), flavor=("umami", "rich", "savory"), equipment=("stovetop",),
        parts=(
            _P("arborio rice", 1.5, "cup"),
            _P("cremini mushrooms", 12, "oz", "sliced"),
            _P("dried porcini mushrooms", 0.5, "oz", "soaked in 1 cup hot water", True),
            _P("vegetable broth", 6, "cup", "kept at a simmer"),
            _P("shallot", 2, "piece", "finely chopped"),
            _P("garlic", 2, "clove", "minced"),
            _P("white wine", 0.5, "cup", "dry"),
            _P("butter", 3, "tbsp", "divided"),
            _P("olive oil", 1, "tbsp"),
            _P("parmesan", 0.75, "cup", "finely grated"),
            _P("thyme", 1, "tsp", "leaves only"),
            _P("kosher salt", 1, "tsp"),
            _P("black pepper", 0.5, "tsp"),
        ),
        steps=(
            "Brown the mushrooms in the oil and 1 tbsp butter over high heat; season and set aside.",
            "Soften the shallot in 1 tbsp butter for 3 minutes, then add the garlic and thyme.",
            "Stir in the rice and toast 2 minutes, then add the wine and stir until absorbed.",
            "Add the broth (and the strained porcini water, if using) a ladle at a time, stirring, for 18-20 minutes.",
            "When the rice is creamy but still has a little bite, stir in the mushrooms,"
            " the last butter and the parmesan.",
            "Rest 2 minutes, season and serve.",
        ),
    ),
    _recipe(
        "Red Lentil Soup",
        "A silky, lemony lentil soup that freezes well.",
        cuisine="middle-eastern", difficulty="easy", prep=10, cook=30, servings=6,
        tags=("soup", "freezer-friendly"), occasions=("batch-prep", "comfort", "weeknight"),
        health=("vegan", "vegetarian", "dairy-free", "gluten-free"), flavor=("savory", "mild"),
        equipment=("one-pot", "stovetop"),
        parts=(
            _P("red lentils", 1.5, "cup", "rinsed"),
            _P("onion", 1, "piece", "chopped"),
            _P("carrots", 2, "piece", "diced"),
            _P("garlic", 3, "clove", "minced"),
            _P("olive oil", 2, "tbsp"),
            _P("ground cumin", 2, "tsp"),
            _P("ground turmeric", 1, "tsp"),
            _P("tomato paste", 2, "tbsp"),
            _P("vegetable broth", 6, "cup"),
            _P("lemon", 1, "piece", "juiced"),
            _P("kosher salt", 1.5, "tsp"),
            _P("red pepper flakes", 0.25, "tsp", None, True),
            _P("flat-leaf parsley", 2, "tbsp", "chopped, to serve", True),
        ),
        steps=(
            "Soften the onion and carrots in the olive oil for 6-8 minutes.",
            "Add the garlic, cumin, turmeric and tomato paste and cook 1 minute.",
            "Add the lentils, broth and salt, bring to a boil and simmer 20 minutes, until the lentils collapse.",
            "Blend half the soup for a creamy texture, or all of it for a smooth one.",
            "Stir in the lemon juice and serve with parsley and pepper flakes.",
        ),
    ),
    _recipe(
        "Spaghetti Carbonara",
        "Roman pasta with crisp pancetta, eggs, pecorino and plenty of black pepper.",
        cuisine="italian", difficulty="medium", prep=10, cook=15, servings=4,
        tags=("pasta", "classic"), occasions=("weeknight", "comfort"),
        flavor=("rich", "savory"), equipment=("stovetop",),
        parts=(
            _P("spaghetti", 1, "lb"),
            _P("pancetta", 6, "oz", "cut into small cubes"),
            _P("eggs", 3, "piece", "large, plus 1 extra yolk"),
            _P("pecorino romano", 0.75, "cup", "finely grated"),
            _P("parmesan", 0.25, "cup", "finely grated"),
            _P("black pepper", 1.5, "tsp", "coarsely ground"),
            _P("kosher salt", 1, "tbsp", "for the pasta water"),
            _P("garlic", 1, "clove", "lightly smashed", True),
        ),
        steps=(
            "Boil the spaghetti in well-salted water until al dente; keep a cup of the pasta water.",
            "Meanwhile render the pancetta (with the garlic, if using) in a large pan until crisp; discard the garlic.",
            "Whisk the eggs, yolk, cheeses and pepper together.",
            "Take the pan off the heat, add the drained pasta and toss in the fat.",
            "Pour in the egg mixture with a splash of pasta water and toss quickly until glossy, not scrambled.",
            "Serve at once with more pecorino and pepper.",
        ),
    ),
    _recipe(
        "Blueberry Oat Pancakes",
        "Fluffy buttermilk pancakes with oats and bursting blueberries.",
        cuisine="american", difficulty="easy", prep=10, cook=20, servings=4,
        tags=("breakfast", "family"), occasions=("weekend",),
        health=("vegetarian",), flavor=("sweet",), equipment=("stovetop", "cast-iron"),
        parts=(
            _P("all-purpose flour", 1, "cup"),
            _P("rolled oats", 0.5, "cup"),
            _P("baking powder", 2, "tsp"),
            _P("granulated sugar", 1, "tbsp"),
            _P("kosher salt", 0.25, "tsp"),
            _P("buttermilk", 1.25, "cup"),
            _P("eggs", 1, "piece"),
            _P("butter", 2, "tbsp", "melted, plus more for the pan"),
            _P("vanilla extract", 1, "tsp"),
            _P("blueberries", 1, "cup", "fresh or frozen"),
            _P("maple syrup", None, None, "to serve", True),
        ),
        steps=(
            "Whisk the flour, oats, baking powder, sugar and salt in a bowl.",
            "Whisk the buttermilk, egg, melted butter and vanilla in another bowl,"
            " then fold into the dry mix and rest 5 minutes.",
            "Heat a buttered pan over medium heat and ladle in 1/4 cup of batter per pancake.",
            "Dot with blueberries and cook until bubbles form, then flip and cook 1-2 minutes more.",
            "Serve warm with maple syrup.",
        ),
    ),
)


# -- inventory, shopping list, preferences, plans and tasks -------------------------------------


class _Stock(NamedTuple):
    """An inventory item; expiry and purchase are offsets in days from today."""

    name: str
    quantity: float
    unit: str
    location: str
    expires_in: int | None = None
    bought_days_ago: int | None = None
    notes: str | None = None

    def row(self, today: date, categories: dict[str, str]) -> Row:
        row: Row = {"name": self.name, "quantity": self.quantity, "unit": self.unit, "location": self.location}
        optional = {
            "expiry_date": _days(today, self.expires_in),
            "purchase_date": _days(today, None if self.bought_days_ago is None else -self.bought_days_ago),
            "category": categories.get(self.name.lower()),
            "notes": self.notes,
        }
        row.update({key: value for key, value in optional.items() if value is not None})
        return row


_S = _Stock
_INVENTORY: tuple[_Stock, ...] = (
    # fridge
    _S("salmon fillets", 2, "fillet", "fridge", 1, 2),
    _S("chicken thighs", 2, "lb", "fridge", 2, 1),
    _S("eggs", 10, "piece", "fridge", 18, 4),
    _S("milk", 0.5, "gallon", "fridge", -1, 9, "smells a bit off"),
    _S("butter", 1, "lb", "fridge", 40, 10),
    _S("greek yogurt", 24, "oz", "fridge", 5, 6),
    _S("heavy cream", 1, "cup", "fridge", 4, 5),
    _S("sour cream", 8, "oz", "fridge", 7, 6),
    _S("parmesan", 6, "oz", "fridge", 30, 12),
    _S("feta", 4, "oz", "fridge", 6, 8),
    _S("white miso", 10, "oz", "fridge", 90, 30),
    _S("baby spinach", 1, "bag", "fridge", 3, 3),
    _S("cremini mushrooms", 8, "oz", "fridge", 3, 2),
    _S("red bell pepper", 2, "piece", "fridge", 5, 3),
    _S("carrots", 1, "lb", "fridge", 14, 3),
    _S("green onions", 1, "bunch", "fridge", 4, 3),
    _S("flat-leaf parsley", 1, "bunch", "fridge", 2, 5),
    _S("lemons", 3, "piece", "fridge", 12, 3),
    _S("limes", 2, "piece", "fridge", 9, 3),
    # freezer
    _S("cod fillets", 4, "fillet", "freezer", 60, 14),
    _S("shrimp", 1, "lb", "freezer", 90, 20, "raw, peeled"),
    _S("frozen peas", 1, "bag", "freezer", 180, 30),
    _S("blueberries", 2, "cup", "freezer", 200, 25, "frozen"),
    # pantry and cabinet
    _S("spaghetti", 1, "lb", "pantry", 365, 30),
    _S("arborio rice", 2, "lb", "pantry", 300),
    _S("jasmine rice", 3, "lb", "pantry", 300),
    _S("red lentils", 1, "lb", "pantry", 240),
    _S("black beans", 2, "can", "pantry", 500),
    _S("canned tomatoes", 3, "can", "pantry", 540),
    _S("coconut milk", 1, "can", "pantry", 400),
    _S("vegetable broth", 2, "carton", "pantry", 200),
    _S("all-purpose flour", 5, "lb", "pantry", 180),
    _S("rolled oats", 1, "bag", "pantry", 150),
    _S("panko breadcrumbs", 1, "bag", "pantry", 120),
    _S("olive oil", 1, "bottle", "cabinet"),
    _S("soy sauce", 1, "bottle", "cabinet"),
    _S("honey", 1, "bottle", "cabinet"),
    _S("kosher salt", 1, "box", "cabinet"),
    _S("ground cumin", 2, "oz", "cabinet"),
    _S("smoked paprika", 2, "oz", "cabinet"),
    _S("garam masala", 2, "oz", "cabinet"),
    _S("chili powder", 2, "oz", "cabinet"),
    # counter
    _S("onion", 4, "piece", "counter", None, 6),
    _S("garlic", 2, "head", "counter", None, 6),
    _S("potatoes", 3, "lb", "counter", 20, 6),
    _S("sweet potatoes", 2, "piece", "counter", 14, 6),
    _S("bananas", 5, "piece", "counter", 3, 4),
    _S("avocado", 2, "piece", "counter", 2, 3),
    _S("tomatoes", 4, "piece", "counter", 4, 3),
)


class _Buy(NamedTuple):
    name: str
    quantity: float | None
    unit: str | None
    category: str
    source: str | None = None
    is_purchased: bool = False
    notes: str | None = None

    def row(self) -> Row:
        row: Row = {"name": self.name, "category": self.category, "is_purchased": self.is_purchased}
        optional = {"quantity": self.quantity, "unit": self.unit, "source": self.source, "notes": self.notes}
        row.update({key: value for key, value in optional.items() if value is not None})
        return row


_SHOPPING: tuple[_Buy, ...] = (
    _Buy("pancetta", 6, "oz", "meat", "Spaghetti Carbonara"),
    _Buy("pecorino romano", 4, "oz", "dairy", "Spaghetti Carbonara"),
    _Buy("shallots", 3, "piece", "produce", "Mushroom Risotto"),
    _Buy("white wine", 1, "bottle", "beverages", "Mushroom Risotto", notes="something dry, e.g. pinot grigio"),
    _Buy("baby bok choy", 2, "head", "produce", "Miso-Glazed Salmon with Bok Choy"),
    _Buy("buttermilk", 1, "carton", "dairy", "Blueberry Oat Pancakes"),
    _Buy("milk", 1, "gallon", "dairy", "restock", notes="to replace the carton that went past its date"),
    _Buy("chicken breast", 1.5, "lb", "meat", "Chicken Fajitas", is_purchased=True),
    _Buy("flour tortillas", 1, "pack", "bakery", "Chicken Fajitas", is_purchased=True),
    _Buy("corn tortillas", 1, "pack", "bakery", "Black Bean and Sweet Potato Tacos"),
    _Buy("maple syrup", 1, "bottle", "condiments", "restock", is_purchased=True),
    _Buy("arugula", 1, "bag", "produce", None, notes="for a side salad"),
)


def _preferences() -> Row:
    return {
        "dietary_restrictions": [],
        "allergies": ["peanuts"],
        "favorite_cuisines": ["italian", "japanese", "mediterranean", "mexican"],
        "disliked_ingredients": ["olives", "blue cheese"],
        "nutrition_goals": ["high-protein", "more vegetables"],
        "available_equipment": ["oven", "stovetop", "air-fryer", "cast-iron", "blender", "microwave", "one-pan"],
        "planning_rhythm": ["plans dinners on Sunday", "cooks 4-5 nights a week", "leftovers for lunch"],
        "current_vibes": ["cozy soups", "quick weeknight dinners"],
        "cooking_skill_level": "intermediate",
        "cooking_frequency": "4-5 times a week",
        "time_budget_minutes": 45,
        "preferred_complexity": "moderate",
        "household_adults": 2,
        "household_kids": 1,
        "household_babies": 0,
    }


class _Meal(NamedTuple):
    day: int
    meal_type: str
    recipe: str | None
    servings: int
    notes: str | None = None

    def row(self, today: date) -> Row:
        row: Row = {"date": _days(today, self.day), "meal_type": self.meal_type, "servings": self.servings}
        if self.recipe is not None:
            row["recipe"] = self.recipe
        if self.notes is not None:
            row["notes"] = self.notes
        return row


_MEAL_PLANS: tuple[_Meal, ...] = (
    _Meal(0, "dinner", "Miso-Glazed Salmon with Bok Choy", 3, "use the salmon before it turns"),
    _Meal(1, "dinner", "Greek Lemon Chicken and Potatoes", 4, "double the potatoes for lunch leftovers"),
    _Meal(2, "lunch", None, 2, "leftover Greek chicken and potatoes"),
    _Meal(2, "dinner", "Chicken Fajitas", 3),
    _Meal(3, "lunch", "Red Lentil Soup", 6, "make the full pot and freeze half"),
    _Meal(3, "dinner", "Mushroom Risotto", 3),
    _Meal(4, "dinner", None, 3, "takeout night"),
    _Meal(5, "breakfast", "Blueberry Oat Pancakes", 3),
    _Meal(5, "dinner", "Spaghetti Carbonara", 3),
    _Meal(6, "dinner", "Lemon Garlic Baked Cod", 3),
)


class _Task(NamedTuple):
    title: str
    due_in: int | None
    category: str
    recipe: str | None = None
    completed: bool = False

    def row(self, today: date) -> Row:
        row: Row = {"title": self.title, "category": self.category, "completed": self.completed}
        if self.due_in is not None:
            row["due_date"] = _days(today, self.due_in)
        if self.recipe is not None:
            row["recipe"] = self.recipe
        return row


_TASKS: tuple[_Task, ...] = (
    _Task("Throw out the expired milk", 0, "cleanup"),
    _Task("Soak the dried porcini for the risotto", 3, "prep", "Mushroom Risotto"),
    _Task("Buy pancetta and pecorino for carbonara", 4, "shopping", "Spaghetti Carbonara"),
    _Task("Move the cod from the freezer to the fridge to thaw", 5, "prep", "Lemon Garlic Baked Cod"),
    _Task("Freeze half the lentil soup in portions", 3, "prep", "Red Lentil Soup"),
    _Task("Wipe down the fridge shelves", -1, "cleanup", completed=True),
)
