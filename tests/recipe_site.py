"""A loopback web server serving recipe pages written for the import tests (127.0.0.1, a free port).

Pages as real sites publish them: a WordPress/Yoast page whose JSON-LD is an `@graph` (WebPage,
Person, Recipe with HowToSection/HowToStep), a JSON-LD list, a microdata page, plain text, a page
that is no recipe, one larger than the import limit, a PNG, redirects (one, a chain of N `/hops/N`, and
`/to?location=URL` to any address), a slow page (the Yoast page after SLOW_SECONDS), and pages just
under the 5 MB limit that cost the most to read (`HEAVY_PAGES`: a flat `@graph` of millions of entries,
a page of deeply nested markup with its recipe at the end, JSON-LD nested 10,000 deep).
"""

from __future__ import annotations

import gzip
import io
import json
import threading
import time
import zipfile
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlsplit

YOAST_RECIPE = {
    "@type": "Recipe", "@id": "https://example.test/lemon-cod/#recipe", "name": "Lemon Garlic Cod &amp; Herbs",
    "author": {"@id": "https://example.test/#/schema/person/1"}, "description": "Flaky cod with <b>lemon</b>.",
    "recipeYield": ["4", "4 servings"], "prepTime": "PT10M", "cookTime": "PT15M", "totalTime": "PT25M",
    "recipeCuisine": ["Mediterranean"], "keywords": "fish, weeknight", "recipeCategory": ["Main Course"],
    "recipeIngredient": ["4 cod fillets, about 6 oz each", "1 1/2 tbsp olive oil", "3 cloves garlic, minced",
                         "½ tsp smoked paprika", "a pinch of salt", "1 lemon, juiced", "fresh parsley (optional)"],
    "recipeInstructions": [
        {"@type": "HowToSection", "name": "Prepare", "itemListElement": [
            {"@type": "HowToStep", "text": "Heat the oven to 200&deg;C."},
            {"@type": "HowToStep", "text": "Pat the cod dry."}]},
        {"@type": "HowToSection", "name": "Bake", "itemListElement": [
            {"@type": "HowToStep", "text": "Mix oil, garlic, paprika and salt; brush over the fish."},
            {"@type": "HowToStep", "text": "Bake 12-15 minutes; finish with lemon."}]},
    ],
}
_GRAPH = json.dumps({
    "@context": "https://schema.org",
    "@graph": [
        {"@type": "WebPage", "@id": "https://example.test/lemon-cod/", "name": "Lemon Garlic Cod"},
        {"@type": "Person", "@id": "https://example.test/#/schema/person/1", "name": "A Cook"},
        YOAST_RECIPE,
    ],
})
YOAST_PAGE = f"""<!doctype html><html><head><title>Lemon Garlic Cod</title>
<script type="application/ld+json" class="yoast-schema-graph">{_GRAPH}</script></head>
<body><article><h1>Lemon Garlic Cod</h1><p>A story about cod.</p></article></body></html>"""
LIST_JSONLD = json.dumps([
    {"@context": "https://schema.org", "@type": "BreadcrumbList", "itemListElement": []},
    {"@context": "https://schema.org", "@type": ["Recipe", "NewsArticle"], "name": "Tomato Soup", "recipeYield": 2,
     "cookTime": "P0DT0H30M", "recipeIngredient": ["800 g canned tomatoes", "1 onion, chopped", "500 ml stock"],
     "recipeInstructions": "Soften the onion.\nAdd tomatoes and stock; simmer 20 minutes.\nBlend."},
])
MICRODATA_PAGE = """<html><body><div itemscope itemtype="http://schema.org/Recipe">
<h1 itemprop="name">Lentil Soup</h1><span itemprop="recipeYield">Serves 6</span>
<meta itemprop="prepTime" content="PT15M"><meta itemprop="cookTime" content="PT1H">
<ul><li itemprop="recipeIngredient">2 cups red lentils</li><li itemprop="recipeIngredient">1.5 l water</li>
<li itemprop="recipeIngredient">1 tsp cumin</li></ul>
<ol><li itemprop="recipeInstructions">Rinse the lentils.</li><li itemprop="recipeInstructions">Simmer with water and cumin.</li></ol>
</div></body></html>"""
PLAIN_TEXT = """Weeknight Pancakes
Serves: 4
Prep time: 10 min
Cook time: 15 min

Ingredients
- 1 1/2 cups flour
- 2 eggs
- 3 tsp sugar
- 1 1/4 cups milk
- a pinch of salt

Instructions
1. Whisk everything together.
2. Fry ladlefuls in a hot pan.
"""
NO_RECIPE_PAGE = "<html><head><title>About us</title></head><body><p>We love food.</p></body></html>"
BIG_LIMIT = 5_000_000
SLOW_SECONDS = 3

PAGES: dict[str, tuple[str, bytes]] = {
    "/lemon-cod": ("text/html; charset=utf-8", YOAST_PAGE.encode()),
    "/soup.jsonld": ("application/ld+json", LIST_JSONLD.encode()),
    "/lentils": ("text/html", MICRODATA_PAGE.encode()),
    "/pancakes.txt": ("text/plain; charset=utf-8", PLAIN_TEXT.encode()),
    "/about": ("text/html", NO_RECIPE_PAGE.encode()),
    "/photo.png": ("image/png", b"\x89PNG\r\n\x1a\n" + b"\x00" * 64),
}


def _flat_graph_page() -> bytes:
    """A 4.9 MB page whose JSON-LD `@graph` holds 2.4 million entries and, last, the recipe."""
    entries = ",".join(["{}"] * 10_000 + ["1"] * 2_390_000)
    graph = f'{{"@context": "https://schema.org", "@graph": [{entries}, {json.dumps(YOAST_RECIPE)}]}}'
    return f'<html><head><script type="application/ld+json">{graph}</script></head><body></body></html>'.encode()


def _nested_markup_page() -> bytes:
    """A 4.9 MB page of nested markup and text (what a heavy site's page looks like), its recipe's JSON-LD at the end."""
    block = "<div class='c'><p>Story about the dish, with <b>bold</b> words &amp; entities.</p>" * 40 + "</div>" * 40
    body = block * (4_800_000 // len(block))
    return f"<html><body>{body}<script type='application/ld+json'>{_GRAPH}</script></body></html>".encode()


def _deep_json_ld() -> bytes:
    return ('{"@graph": ' + "[" * 10_000 + "]" * 10_000 + "}").encode()


HEAVY_PAGES = {"/flat-graph": _flat_graph_page, "/nested-markup": _nested_markup_page, "/deep.jsonld": _deep_json_ld}
"""Path -> how its body is built (once, when first asked for)."""
_heavy: dict[str, bytes] = {}


class _Handler(BaseHTTPRequestHandler):
    def do_GET(self) -> None:  # noqa: N802 (http.server's name)
        parts = urlsplit(self.path)
        if self.path == "/moved":
            self._redirect("/lemon-cod")
            return
        if parts.path.startswith("/hops/") and parts.path[len("/hops/"):].isdigit():
            left = int(parts.path[len("/hops/"):])  # redirects still to come before the recipe
            self._redirect(f"/hops/{left - 1}" if left > 1 else "/lemon-cod")
            return
        if parts.path == "/to":
            self._redirect(parse_qs(parts.query)["location"][0])
            return
        if self.path == "/huge":
            self._send("text/html", b"<html>" + b"x" * (BIG_LIMIT + 10), declare_length=False)
            return
        if self.path == "/slow":
            time.sleep(SLOW_SECONDS)
            self._send(*PAGES["/lemon-cod"])
            return
        if self.path in HEAVY_PAGES:
            if self.path not in _heavy:
                _heavy[self.path] = HEAVY_PAGES[self.path]()
            kind = "application/ld+json" if self.path.endswith(".jsonld") else "text/html"
            self._send(kind, _heavy[self.path])
            return
        page = PAGES.get(self.path)
        if page is None:
            self.send_error(404)
            return
        self._send(*page)

    def _redirect(self, location: str) -> None:
        self.send_response(302)
        self.send_header("Location", location)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def _send(self, content_type: str, body: bytes, *, declare_length: bool = True) -> None:
        try:  # the client may have given up already (a page over the size or time limit)
            self.send_response(200)
            self.send_header("Content-Type", content_type)
            if declare_length:
                self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)
        except (BrokenPipeError, ConnectionResetError):
            pass

    def log_message(self, format: str, *args: object) -> None:
        return


@contextmanager
def recipe_site() -> Iterator[str]:
    """The site on 127.0.0.1 at a free port, until the block ends; yields its base URL."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


def paprika_archive(*recipes: dict[str, object], raw: bytes | None = None) -> bytes:
    """A .paprikarecipes file as Paprika writes it: a zip of gzipped JSON, one per recipe."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for recipe in recipes:
            archive.writestr(f"{recipe['name']}.paprikarecipe", gzip.compress(json.dumps(recipe).encode()))
        if raw is not None:
            archive.writestr("broken.paprikarecipe", raw)
    return buffer.getvalue()


PAPRIKA_RECIPE = {
    "name": "Paprika Chili", "servings": "6 servings", "prep_time": "15 mins", "cook_time": "1 hr", "source_url": "https://x.test/chili",
    "ingredients": "1 lb ground beef\n2 cans kidney beans\n1 tbsp chili powder", "directions": "Brown the beef.\n\nAdd everything; simmer.",
    "categories": ["Dinner", "Spicy"], "photo_data": "iVBORw0KGgo=", "uid": "ABC",
}
