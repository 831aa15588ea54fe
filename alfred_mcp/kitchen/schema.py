"""The kitchen schema: one definition of every table, from which all else is derived.

DDL (store backends), the JSON Schema that validates writes (`kitchen/jsonschema.py`), the
enums a model is told, row labels, FK graph and ref prefixes all come from `TABLES` below.
Nothing here does I/O.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import date
from functools import cached_property
from typing import Any, Literal

from alfred_mcp.errors import UnknownColumnError, UnknownTableError
from alfred_mcp.kitchen.dates import day_text

ColumnType = Literal["uuid", "text", "int", "numeric", "bool", "date", "timestamp", "text[]"]
OnDelete = Literal["cascade", "set_null"]

MAX_TEXT = 2_000
MAX_NAME = 200
MAX_ARRAY = 100


@dataclass(frozen=True)
class ForeignKey:
    """A reference to another kitchen table's `id`."""

    table: str
    on_delete: OnDelete


@dataclass(frozen=True)
class Column:
    """One column. `writable=False` columns are set by the server, never by a caller."""

    name: str
    type: ColumnType
    description: str = ""
    nullable: bool = True
    default: Any = None
    enum: tuple[Any, ...] | None = None
    suggested: tuple[str, ...] | None = None
    fk: ForeignKey | None = None
    minimum: float | None = None
    maximum: float | None = None
    max_length: int | None = None
    max_items: int = MAX_ARRAY
    writable: bool = True
    unique: bool = False

    @property
    def required_on_create(self) -> bool:
        """True when a create must name this column (NOT NULL and no default)."""
        return self.writable and not self.nullable and self.default is None


@dataclass(frozen=True)
class Table:
    """One kitchen table, with how its rows are named for a model."""

    name: str
    entity_type: str
    noun: str
    subdomain: str
    description: str
    columns: tuple[Column, ...]
    label_columns: tuple[str, ...]
    user_owned: bool = True
    default_order: tuple[str, ...] = ("created_at",)
    one_per_user: bool = False
    _by_name: dict[str, Column] = field(default_factory=dict, compare=False, repr=False)

    def __post_init__(self) -> None:
        self._by_name.update({column.name: column for column in self.columns})

    def column(self, name: str) -> Column:
        """The column called `name`, or an error listing the valid ones.

        Raises:
            UnknownColumnError: `name` is not a column of this table.
        """
        found = self._by_name.get(name)
        if found is None or found.name == "user_id":
            raise UnknownColumnError(
                f"Table '{self.name}' has no column '{name}'. Valid columns: {', '.join(self.visible_columns)}.",
                table=self.name,
                field=name,
                valid=list(self.visible_columns),
            )
        return found

    def has_column(self, name: str) -> bool:
        return name in self._by_name and name != "user_id"

    @cached_property
    def visible_columns(self) -> tuple[str, ...]:
        """Columns a caller may read or filter on (user_id is the server's business)."""
        return tuple(c.name for c in self.columns if c.name != "user_id")

    @cached_property
    def writable_columns(self) -> tuple[Column, ...]:
        return tuple(c for c in self.columns if c.writable)

    @cached_property
    def fk_columns(self) -> tuple[Column, ...]:
        return tuple(c for c in self.columns if c.fk is not None)


def _id() -> Column:
    return Column("id", "uuid", "Row ref, assigned by the server.", nullable=False, writable=False)


def _user() -> Column:
    return Column("user_id", "uuid", "Owner; set by the server.", nullable=False, writable=False)


def _created() -> Column:
    return Column("created_at", "timestamp", "When the row was created.", nullable=False, default="now", writable=False)


def _updated() -> Column:
    return Column("updated_at", "timestamp", "When the row last changed.", nullable=False, default="now", writable=False)


def _text(name: str, description: str, *, required: bool = False, max_length: int = MAX_TEXT, **kw: Any) -> Column:
    return Column(name, "text", description, nullable=not required, max_length=max_length, **kw)


def _tags(name: str, description: str, **kw: Any) -> Column:
    return Column(name, "text[]", description, nullable=False, default=(), **kw)


def _int(name: str, description: str, *, minimum: float | None = 0, maximum: float | None = None, **kw: Any) -> Column:
    return Column(name, "int", description, minimum=minimum, maximum=maximum, **kw)


def _fk(name: str, table: str, on_delete: OnDelete, description: str, *, required: bool = False) -> Column:
    return Column(name, "uuid", description, nullable=not required, fk=ForeignKey(table, on_delete))


CUISINES = (
    "italian", "mexican", "chinese", "indian", "american", "french", "japanese", "thai",
    "mediterranean", "korean", "vietnamese", "middle-eastern", "greek", "spanish", "caribbean",
    "african", "british", "other",
)
DIFFICULTIES = ("easy", "medium", "hard")
MEAL_TYPES = ("breakfast", "lunch", "dinner", "snack", "other")
TASK_CATEGORIES = ("prep", "shopping", "cleanup", "other")
LOCATIONS = ("pantry", "fridge", "freezer", "counter", "cabinet")
SKILL_LEVELS = ("beginner", "intermediate", "advanced")
PARENT_CATEGORIES = ("produce", "protein", "dairy", "grains", "pantry", "spices", "baking", "specialty")
OCCASIONS = ("weeknight", "batch-prep", "hosting", "weekend", "comfort")
HEALTH_TAGS = ("high-protein", "low-carb", "vegetarian", "vegan", "light", "gluten-free", "dairy-free", "keto")
FLAVOR_TAGS = ("spicy", "mild", "savory", "sweet", "tangy", "rich", "light", "umami", "other")
EQUIPMENT = (
    "air-fryer", "instant-pot", "one-pot", "one-pan", "grill", "no-cook", "slow-cooker", "oven",
    "stovetop", "microwave", "blender", "food-processor", "stand-mixer", "wok", "cast-iron",
)
UNITS = (
    "piece", "lb", "oz", "kg", "g", "ml", "l", "gallon", "carton", "bottle", "can", "box", "bag",
    "bunch", "head", "clove", "cup", "tbsp", "tsp", "pinch", "slice", "fillet",
)
SHOPPING_CATEGORIES = (
    "produce", "dairy", "meat", "seafood", "bakery", "frozen", "canned", "dry goods", "beverages",
    "snacks", "condiments", "spices", "baking", "oils & vinegars", "soups & broths",
)

INGREDIENTS = Table(
    name="ingredients",
    entity_type="ing",
    noun="catalog ingredient",
    subdomain="catalog",
    description="The global ingredient catalog (shared by all users, read-only to callers).",
    user_owned=False,
    label_columns=("name",),
    default_order=("name",),
    columns=(
        _id(),
        _text("name", "Canonical ingredient name.", required=True, max_length=MAX_NAME, unique=True),
        _tags("aliases", "Other names for the same ingredient."),
        _text("category", "Fine-grained category, e.g. 'fish', 'leafy greens'.", max_length=MAX_NAME),
        _text("default_unit", "Usual unit.", max_length=40, suggested=UNITS),
        Column("parent_category", "text", "Aisle-level category.", nullable=False, default="pantry", enum=PARENT_CATEGORIES),
        _text("family", "Botanical or culinary family, e.g. 'alliums'.", max_length=MAX_NAME),
        _tags("cuisines", "Cuisines the ingredient is typical of."),
        Column("tier", "int", "1 core, 2 standard, 3 niche.", nullable=False, default=2, enum=(1, 2, 3)),
        _created(),
    ),
)

RECIPES = Table(
    name="recipes",
    entity_type="recipe",
    noun="recipe",
    subdomain="recipes",
    description="Saved recipes. Ingredients live in recipe_ingredients, in order.",
    label_columns=("name",),
    default_order=("name",),
    columns=(
        _id(),
        _user(),
        _text("name", "Recipe name.", required=True, max_length=MAX_NAME),
        _text("description", "One or two sentences."),
        Column("cuisine", "text", "Cuisine.", enum=CUISINES),
        Column("difficulty", "text", "How hard it is.", enum=DIFFICULTIES),
        _int("prep_time_minutes", "Preparation time in minutes.", maximum=10_000),
        _int("cook_time_minutes", "Cooking time in minutes.", maximum=10_000),
        _int("servings", "How many it serves.", minimum=1, maximum=1_000),
        _tags("instructions", "Ordered steps, one per item.", max_length=MAX_TEXT),
        _tags("tags", "Free-form tags."),
        _text("source_url", "Where the recipe came from.", max_length=MAX_TEXT),
        Column("is_system", "bool", "A built-in recipe.", nullable=False, default=False, writable=False),
        _fk("parent_recipe_id", "recipes", "set_null", "The recipe this is a variation of."),
        _tags("occasions", "When it suits.", enum=OCCASIONS),
        _tags("health_tags", "Health properties.", enum=HEALTH_TAGS),
        _tags("flavor_tags", "Flavor profile.", enum=FLAVOR_TAGS),
        _tags("equipment_tags", "Equipment it needs.", suggested=EQUIPMENT),
        _created(),
        _updated(),
        _int("total_time_minutes", "Total time in minutes, when it is not prep + cook (resting, rising).", maximum=10_000),
    ),
)
"""`total_time_minutes` came after the first schema (migration 0006), so it is the last column in every database."""

RECIPE_INGREDIENTS = Table(
    name="recipe_ingredients",
    entity_type="ri",
    noun="recipe ingredient",
    subdomain="recipes",
    description="Ingredients of a recipe, ordered by position (child of recipes, deleted with it).",
    label_columns=("name",),
    default_order=("recipe_id", "position"),
    columns=(
        _id(),
        _user(),
        _fk("recipe_id", "recipes", "cascade", "The recipe this ingredient belongs to.", required=True),
        _fk("ingredient_id", "ingredients", "set_null", "The catalog ingredient it matches."),
        _int("position", "Order within the recipe, from 1.", minimum=1, maximum=1_000, nullable=False),
        _text("name", "Ingredient name, without prep words (those go in notes).", required=True, max_length=MAX_NAME),
        Column("quantity", "numeric", "Amount.", minimum=0),
        _text("unit", "Unit of the quantity.", max_length=40, suggested=UNITS),
        _text("notes", "Preparation, state or size, e.g. 'finely chopped'."),
        Column("is_optional", "bool", "Optional ingredient.", nullable=False, default=False),
        _text("category", "Category, copied from the catalog when matched.", max_length=MAX_NAME),
    ),
)

INVENTORY = Table(
    name="inventory",
    entity_type="inv",
    noun="pantry item",
    subdomain="inventory",
    description="What is in the kitchen: pantry, fridge, freezer.",
    label_columns=("name",),
    default_order=("name",),
    columns=(
        _id(),
        _user(),
        _fk("ingredient_id", "ingredients", "set_null", "The catalog ingredient it matches."),
        _text("name", "Item name.", required=True, max_length=MAX_NAME),
        Column("quantity", "numeric", "Amount on hand.", nullable=False, minimum=0),
        _text("unit", "Unit of the quantity.", required=True, max_length=40, suggested=UNITS),
        Column("location", "text", "Where it is kept.", enum=LOCATIONS),
        Column("expiry_date", "date", "Use-by date (YYYY-MM-DD)."),
        Column("purchase_date", "date", "When it was bought (YYYY-MM-DD)."),
        _text("category", "Category, e.g. 'dairy'.", max_length=MAX_NAME),
        _text("notes", "Anything else."),
        _created(),
        _updated(),
    ),
)

SHOPPING_LIST = Table(
    name="shopping_list",
    entity_type="shop",
    noun="shopping item",
    subdomain="shopping",
    description="Things to buy.",
    label_columns=("name",),
    default_order=("created_at",),
    columns=(
        _id(),
        _user(),
        _fk("ingredient_id", "ingredients", "set_null", "The catalog ingredient it matches."),
        _text("name", "Item name.", required=True, max_length=MAX_NAME),
        Column("quantity", "numeric", "Amount to buy.", minimum=0),
        _text("unit", "Unit of the quantity.", max_length=40, suggested=UNITS),
        _text("category", "Store section.", max_length=MAX_NAME, suggested=SHOPPING_CATEGORIES),
        Column("is_purchased", "bool", "Already bought.", nullable=False, default=False),
        _text("source", "Why it is on the list, e.g. a recipe or meal plan."),
        _text("notes", "Anything else."),
        _created(),
    ),
)

MEAL_PLANS = Table(
    name="meal_plans",
    entity_type="meal",
    noun="meal plan entry",
    subdomain="meal_plans",
    description="Planned meals by date and meal type.",
    label_columns=("date", "meal_type"),
    default_order=("date", "meal_type"),
    columns=(
        _id(),
        _user(),
        Column("date", "date", "Date of the meal (YYYY-MM-DD).", nullable=False),
        Column("meal_type", "text", "Which meal.", nullable=False, enum=MEAL_TYPES),
        _fk("recipe_id", "recipes", "set_null", "The recipe planned, if any."),
        _text("notes", "Anything else."),
        _int("servings", "Left out: the household's.", minimum=1, maximum=1_000, nullable=False, default=1),
        _created(),
    ),
)

TASKS = Table(
    name="tasks",
    entity_type="task",
    noun="task",
    subdomain="tasks",
    description="Kitchen to-dos, optionally tied to a recipe or meal plan entry.",
    label_columns=("title",),
    default_order=("due_date", "created_at"),
    columns=(
        _id(),
        _user(),
        _text("title", "What to do.", required=True, max_length=MAX_NAME),
        Column("due_date", "date", "When it is due (YYYY-MM-DD)."),
        Column("category", "text", "Kind of task.", enum=TASK_CATEGORIES),
        Column("completed", "bool", "Done.", nullable=False, default=False),
        _fk("recipe_id", "recipes", "set_null", "Related recipe."),
        _fk("meal_plan_id", "meal_plans", "set_null", "Related meal plan entry."),
        _created(),
        _updated(),
    ),
)

PREFERENCES = Table(
    name="preferences",
    entity_type="pref",
    noun="preferences",
    subdomain="preferences",
    description="The user's cooking profile: one row per user.",
    label_columns=(),
    default_order=("created_at",),
    one_per_user=True,
    columns=(
        _id(),
        _user(),
        _tags("dietary_restrictions", "e.g. vegetarian, halal."),
        _tags("allergies", "Ingredients that must never be used."),
        _tags("favorite_cuisines", "Cuisines the user likes."),
        _tags("disliked_ingredients", "Ingredients to avoid."),
        _tags("nutrition_goals", "e.g. high-protein."),
        _tags("available_equipment", "Equipment in the kitchen.", suggested=EQUIPMENT),
        _tags("planning_rhythm", "Free-form planning habits."),
        _tags("current_vibes", "Up to 5 free-form moods.", max_items=5),
        Column("cooking_skill_level", "text", "Skill.", nullable=False, default="intermediate", enum=SKILL_LEVELS),
        _text("cooking_frequency", "How often they cook.", max_length=MAX_NAME),
        _int("time_budget_minutes", "Usual time budget per meal.", maximum=10_000, nullable=False, default=30),
        _text("preferred_complexity", "e.g. simple, moderate, ambitious.", max_length=MAX_NAME),
        _int("household_adults", "Adults in the household.", maximum=50, nullable=False, default=1),
        _int("household_kids", "Kids in the household.", maximum=50, nullable=False, default=0),
        _int("household_babies", "Babies in the household.", maximum=50, nullable=False, default=0),
        _created(),
        _updated(),
    ),
)

COOKING_LOG = Table(
    name="cooking_log",
    entity_type="log",
    noun="cooking log entry",
    subdomain="history",
    description="What was cooked, when, and how it went.",
    label_columns=("cooked_at",),
    default_order=("cooked_at",),
    columns=(
        _id(),
        _user(),
        _fk("recipe_id", "recipes", "set_null", "The recipe cooked."),
        Column("cooked_at", "timestamp", "When it was cooked.", nullable=False, default="now"),
        _int("servings", "Servings made.", minimum=1, maximum=1_000),
        Column("rating", "int", "Rating from 1 to 5.", enum=(1, 2, 3, 4, 5)),
        _text("notes", "How it went."),
        _fk("from_meal_plan_id", "meal_plans", "set_null", "The meal plan entry it fulfilled."),
        _created(),
    ),
)

TABLES: dict[str, Table] = {
    t.name: t
    for t in (RECIPES, RECIPE_INGREDIENTS, INVENTORY, SHOPPING_LIST, MEAL_PLANS, TASKS, PREFERENCES, COOKING_LOG, INGREDIENTS)
}
TABLE_BY_ENTITY_TYPE: dict[str, Table] = {t.entity_type: t for t in TABLES.values()}
ENTITY_TYPES: tuple[str, ...] = tuple(TABLE_BY_ENTITY_TYPE)


def ref_pattern(entity_type: str, *, allow_generated: bool = False) -> str:
    """A regex (and JSON Schema `pattern`) accepting refs of one entity type: recipe_1, gen_recipe_1."""
    prefix = "(gen_)?" if allow_generated else ""
    return f"^{prefix}{entity_type}_[1-9][0-9]{{0,8}}$"


def get_table(name: str) -> Table:
    """The table called `name`.

    Raises:
        UnknownTableError: not a kitchen table; the message lists the valid ones.
    """
    table = TABLES.get(name)
    if table is None:
        raise UnknownTableError(
            f"Unknown table '{name}'. Valid tables: {', '.join(TABLES)}.", field="table", value=name, valid=list(TABLES)
        )
    return table


def table_for_entity_type(entity_type: str) -> Table:
    return TABLE_BY_ENTITY_TYPE[entity_type]


def children_of(table: str) -> list[tuple[Table, Column]]:
    """Every (child table, FK column) pointing at `table`, in schema order."""
    return [(t, c) for t in TABLES.values() for c in t.fk_columns if c.fk is not None and c.fk.table == table]


def row_label(table: Table, row: dict[str, Any], *, today: date | None = None) -> str:
    """The human label of a row: 'Thai Curry', 'Sat Jan 12 [dinner]', 'Preferences' (with `today`, a far day has its year)."""
    if table.name == "meal_plans":
        return f"{short_date(row.get('date'), today=today)} [{row.get('meal_type') or '?'}]"
    if table.name == "cooking_log":
        return f"Cooked {short_date(row.get('cooked_at'), today=today)}"
    if table.name == "preferences":
        return "Preferences"
    for name in table.label_columns:
        value = row.get(name)
        if value:
            return str(value)
    return table.noun


NOTE_CHARS = 60
"""A meal's note in a summary line is cut to this many characters (its ref reads the rest)."""


def meal_note(row: Mapping[str, Any]) -> str | None:
    """A meal row's note as a summary line shows it ('leftover Greek chicken and potatoes'): spaces collapsed, cut to
    NOTE_CHARS; None when it has none. A meal with a note and no recipe is planned: a line leaving the note out shows
    it as a free slot."""
    note = " ".join(str(row.get("notes") or "").split())
    if not note:
        return None
    return note if len(note) <= NOTE_CHARS else note[:NOTE_CHARS - 1].rstrip() + "…"


def short_date(value: Any, *, today: date | None = None) -> str:
    """'2026-01-12' or a timestamp -> 'Mon Jan 12' (`dates.day_text`; with `today`, a far day has its year)."""
    return day_text(value, today=today) if isinstance(value, str) else "?"
