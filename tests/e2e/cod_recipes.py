"""Generated recipes as a model would hand them over: three cod recipes with 12+ ingredients each."""

from __future__ import annotations


def cod_recipe(name: str, extra: list[str], cuisine: str = "Mediterranean") -> dict:
    """A generated recipe with 12+ ingredients, as a model would hand it over."""
    base = [
        {"name": "cod fillet", "quantity": 4, "unit": "fillets", "notes": "skinless, 6 oz each"},
        {"name": "olive oil", "quantity": 2, "unit": "tablespoons"},
        {"name": "garlic", "quantity": 3, "unit": "cloves", "notes": "minced"},
        {"name": "lemon", "quantity": 1, "unit": "piece", "notes": "zested and juiced"},
        {"name": "cherry tomatoes", "quantity": 1.5, "unit": "cups", "notes": "halved"},
        {"name": "kalamata olives", "quantity": "1/3", "unit": "cup", "notes": "pitted"},
        {"name": "capers", "quantity": 1, "unit": "tbsp", "notes": "rinsed"},
        {"name": "red onion", "quantity": 0.5, "unit": "piece", "notes": "thinly sliced"},
        {"name": "dried oregano", "quantity": 1, "unit": "tsp"},
        {"name": "smoked paprika", "quantity": 0.5, "unit": "tsp"},
        {"name": "salt", "quantity": 1, "unit": "tsp"},
        {"name": "black pepper", "quantity": 0.5, "unit": "tsp", "notes": "freshly ground"},
        {"name": "fresh parsley", "quantity": 2, "unit": "tbsp", "notes": "chopped", "optional": True},
    ]
    return {
        "name": name,
        "description": f"{name}, generated for the air fryer.",
        "cuisine": cuisine,
        "difficulty": "Easy",
        "prep_time": 15,
        "cook_time": "12 min",
        "servings": 4,
        "ingredients": base + [{"name": item, "quantity": 1, "unit": "tbsp"} for item in extra],
        "steps": ["Heat the air fryer to 200C.", "Season the cod.", "Toss the vegetables with oil.", "Cook 10-12 minutes.", "Finish with lemon and parsley."],
        "equipment": ["Air Fryer"],
        "health_tags": ["high-protein", "Gluten Free"],
    }


THREE_COD = [
    cod_recipe("Honey Garlic Cod", ["honey", "soy sauce"]),
    cod_recipe("Lemon Butter Cod", ["butter"]),
    cod_recipe("Cajun Cod Bites", ["cajun seasoning", "cornstarch", "lime"], cuisine="American"),
]
