"""Settings: where the database is, who the local user is, who gets the demo kitchen, how HTTP is served,
and how the agent uses its model.

No I/O beyond reading env; a bad value is a ConfigError naming the flag or variable.
"""

from __future__ import annotations

import ipaddress
import math
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TypeVar

from platformdirs import user_data_dir

from alfred_mcp.errors import ConfigError
from alfred_mcp.store.user_origins import USER_MAP_FILE_ENV, load_user_map

DB_ENV = "ALFRED_DB"
USER_ENV = "ALFRED_USER"
CHECK_RESULTS_ENV = "ALFRED_CHECK_RESULTS"
MODEL_ENV = "ALFRED_MODEL"
NumberT = TypeVar("NumberT", int, float)
LEDGER_TURNS_ENV = "ALFRED_LEDGER_TURNS"
DEFAULT_LEDGER_TURNS = 20
SUPABASE_URL_ENV = "SUPABASE_URL"
SUPABASE_KEY_ENVS = ("SUPABASE_KEY", "SUPABASE_ANON_KEY")
SUPABASE_JWT_SECRET_ENV = "SUPABASE_JWT_SECRET"
SUPABASE_SERVICE_KEY_ENV = "SUPABASE_SERVICE_KEY"
READ_ONLY_ENV = "ALFRED_READ_ONLY"
TOOLS_ENV = "ALFRED_TOOLS"
LISTED_ENV = "ALFRED_LISTED"
IMPORT_NETWORKS_ENV = "ALFRED_IMPORT_ALLOW_NETWORKS"
UI_ENV = "ALFRED_UI"
SESSION_IDLE_TIMEOUT_ENV = "ALFRED_HTTP_SESSION_IDLE_TIMEOUT"
MAX_SESSIONS_ENV = "ALFRED_HTTP_MAX_SESSIONS"
PUBLIC_URL_ENV = "ALFRED_PUBLIC_URL"
OAUTH_ISSUER_ENV = "ALFRED_OAUTH_ISSUER"
OAUTH_JWKS_URL_ENV = "ALFRED_OAUTH_JWKS_URL"
OAUTH_AUDIENCE_ENV = "ALFRED_OAUTH_AUDIENCE"
OAUTH_SCOPES_ENV = "ALFRED_OAUTH_SCOPES"
DEFAULT_SESSION_IDLE_TIMEOUT = 600.0
DEFAULT_MAX_SESSIONS = 1000
TURN_RETENTION_ENV = "ALFRED_TURN_RETENTION"
CONVERSATION_TURNS_ENV = "ALFRED_CONVERSATION_TURNS"
COMPRESS_OLDER_TURNS_ENV = "ALFRED_COMPRESS_OLDER_TURNS"
QUICK_MODE_THRESHOLD_ENV = "ALFRED_QUICK_MODE_THRESHOLD"
JSON_MODE_ENV = "ALFRED_MODEL_JSON_MODE"
TIMEOUT_ENV = "ALFRED_MODEL_TIMEOUT"
STREAM_ENV = "ALFRED_MODEL_STREAM"
MAX_TOKENS_ENV = "ALFRED_MODEL_MAX_TOKENS"
TURN_CALLS_ENV = "ALFRED_TURN_MAX_CALLS"
TURN_SECONDS_ENV = "ALFRED_TURN_MAX_SECONDS"
ON_WORDS = ("1", "true", "yes", "on")
OFF_WORDS = ("0", "false", "no", "off")
JSON_MODES = ("auto", "json_schema", "json_object", "prompt")
"""auto: json_schema, and on a server's refusal json_object (with the schema), then prompt."""
MODEL_ROLES = ("understand", "think", "act", "reply")
DEFAULT_MAX_TOKENS: Mapping[str, int] = {"understand": 1024, "think": 1536, "act": 3072, "reply": 1024}
"""Output tokens per role, sized to its output: Act may carry whole recipes, Reply is a few paragraphs."""


def default_db_path() -> Path:
    """The per-user data dir's kitchen.db (e.g. ~/.local/share/alfred-mcp/kitchen.db)."""
    return Path(user_data_dir("alfred-mcp", appauthor=False)) / "kitchen.db"


@dataclass(frozen=True)
class Settings:
    """What the server needs to start; built from flags, then env, then defaults."""

    db: str = field(default_factory=lambda: str(default_db_path()))
    """A SQLite file path or a postgresql:// URL (kept as text: a Path would mangle the URL)."""
    user: str = "local"
    seed_demo: bool = True
    """The local user (stdio, chat, run) starts with the demo kitchen on first run (off: --no-seed)."""
    demo: bool = False
    """Every new user starts with the demo kitchen, HTTP token users included (--demo); else they start empty."""
    check_results: bool = False
    """Validate every tool result against its published outputSchema on the server too (tests, debugging)."""
    model: str | None = None
    """The agent loop's model, e.g. 'anthropic:claude-sonnet-4-5' (None: no server-side model)."""
    supabase: SupabaseSettings | None = None
    """When set, the store is Supabase (PostgREST + row-level security) instead of `db`."""
    read_only: bool = False
    """Serve only the tools whose readOnlyHint is true (`--read-only`, ALFRED_READ_ONLY=1)."""
    tools: tuple[str, ...] = ()
    """An allow-list of tool names and toolsets (`--tools`, ALFRED_TOOLS); empty: every tool is served, and
    tools/list advertises the default list (contracts.EXTRA_TOOLS left out; `chat` only with a model)."""
    listed: tuple[str, ...] = ()
    """What tools/list shows, as tool names and toolsets (`--listed`, ALFRED_LISTED; e.g. `stages`), without narrowing
    what is served or what Act may call; empty: the default list (server/toolsets.py)."""
    import_allow_networks: tuple[str, ...] = ()
    """Private networks recipes_import may fetch from when serving many users (CIDRs, e.g. 10.0.0.0/8)."""
    http: HttpSettings = field(default_factory=lambda: HttpSettings())
    """How `serve --http` serves: session limits, the public URL, OAuth."""
    turns: TurnSettings = field(default_factory=lambda: TurnSettings())
    """How much history the roles see, and when quick mode may answer."""
    ui: bool = True
    """Offer MCP Apps views to clients that declare the extension (`--no-ui`, ALFRED_UI=0: never)."""
    model_overrides: Mapping[str, str] = field(default_factory=dict)
    """Model options given as flags, keyed by their environment variable; they win over the environment."""
    user_map: Mapping[str, str] = field(default_factory=dict)
    """Identities that share a kitchen on purpose, user handle → the handle it uses (ALFRED_USER_MAP_FILE;
    store/user_origins.py): without it static tokens, the local user and each OAuth issuer never do."""
    ledger_turns: int = DEFAULT_LEDGER_TURNS
    """Turns of per-turn session records a session keeps (call log, plans, agent turns, narratives already
    folded into the digest): ALFRED_LEDGER_TURNS; 0 keeps them all."""

    @classmethod
    def from_env(
        cls, db: str | None = None, user: str | None = None, seed_demo: bool = True, model: str | None = None,
        supabase_url: str | None = None, supabase_key: str | None = None, read_only: bool = False, tools: str | None = None,
        demo: bool = False, http: HttpSettings | None = None, ui: bool = True, listed: str | None = None,
    ) -> Settings:
        """Flags first, then env, then defaults.

        Raises:
            ConfigError: an unusable value, naming the setting (--demo with --no-seed, a bad Supabase, HTTP or network setting).
        """
        if demo and not seed_demo:
            raise ConfigError("--demo and --no-seed contradict each other: pass one of them.", field="demo")
        location = db or os.environ.get(DB_ENV)
        return cls(
            db=location if location else str(default_db_path()),
            user=(user or os.environ.get(USER_ENV) or "").strip() or "local",
            seed_demo=seed_demo,
            demo=demo,
            check_results=_env_flag(CHECK_RESULTS_ENV, False),
            model=model or os.environ.get(MODEL_ENV) or None,
            supabase=SupabaseSettings.from_env(supabase_url, supabase_key),
            read_only=read_only or _env_flag(READ_ONLY_ENV, False),
            tools=_names(tools if tools is not None else os.environ.get(TOOLS_ENV, "")),
            listed=_names(listed if listed is not None else os.environ.get(LISTED_ENV, "")),
            import_allow_networks=_networks(os.environ.get(IMPORT_NETWORKS_ENV, "")),
            http=http if http is not None else HttpSettings.from_env(),
            turns=TurnSettings.from_env(),
            ui=ui and _env_flag(UI_ENV, True),
            ledger_turns=_ledger_turns(),
            user_map=load_user_map(os.environ.get(USER_MAP_FILE_ENV)),
        )


def _names(text: str) -> tuple[str, ...]:
    return tuple(dict.fromkeys(part.strip() for part in text.split(",") if part.strip()))


def _networks(text: str) -> tuple[str, ...]:
    """CIDRs from a comma-separated list, each checked.

    Raises:
        ConfigError: a value that is not a network, naming it.
    """
    networks = _names(text)
    for network in networks:
        try:
            ipaddress.ip_network(network, strict=False)
        except ValueError:
            raise ConfigError(
                f"{IMPORT_NETWORKS_ENV}: {network!r} is not a network; give CIDRs such as 10.0.0.0/8,127.0.0.1/32.",
                field=IMPORT_NETWORKS_ENV, value=network,
            ) from None
    return networks


@dataclass(frozen=True)
class HttpSettings:
    """Streamable HTTP: how long an idle legacy (2025-11-25) session lives, how many may be open, who issues tokens."""

    session_idle_timeout: float = DEFAULT_SESSION_IDLE_TIMEOUT
    """Seconds without a request after which a handshake-era session is closed and forgotten."""
    max_sessions: int = DEFAULT_MAX_SESSIONS
    """Open handshake-era sessions allowed at once; past it a new session gets 503 until one ends or expires."""
    public_url: str | None = None
    """The URL clients reach the server at (behind a proxy, or bound to 0.0.0.0); default http://HOST:PORT."""
    oauth: OAuthSettings | None = None
    """An external OAuth authorization server whose JWT access tokens are accepted (None: static tokens only)."""

    @classmethod
    def from_env(
        cls, session_idle_timeout: float | None = None, max_sessions: int | None = None, public_url: str | None = None,
        oauth_issuer: str | None = None,
    ) -> HttpSettings:
        """Flags first, then env (ALFRED_HTTP_*, ALFRED_PUBLIC_URL, ALFRED_OAUTH_*), then defaults.

        Raises:
            ConfigError: a timeout or limit that is not a positive number, or a URL that is not http(s).
        """
        timeout = session_idle_timeout if session_idle_timeout is not None else _number(SESSION_IDLE_TIMEOUT_ENV, float)
        limit = max_sessions if max_sessions is not None else _number(MAX_SESSIONS_ENV, int)
        named = (("--session-idle-timeout" if session_idle_timeout is not None else SESSION_IDLE_TIMEOUT_ENV, timeout),
                 ("--max-sessions" if max_sessions is not None else MAX_SESSIONS_ENV, limit))
        for name, value in named:
            if value is not None and not value > 0:
                raise ConfigError(f"{name} takes a positive number (got {value}).", field=name.lstrip("-"))
        url = public_url or os.environ.get(PUBLIC_URL_ENV) or None
        if url is not None:
            url = _http_url(url, "--public-url" if public_url else PUBLIC_URL_ENV).rstrip("/")
        return cls(
            session_idle_timeout=float(timeout) if timeout is not None else DEFAULT_SESSION_IDLE_TIMEOUT,
            max_sessions=int(limit) if limit is not None else DEFAULT_MAX_SESSIONS,
            public_url=url,
            oauth=OAuthSettings.from_env(oauth_issuer),
        )


@dataclass(frozen=True)
class OAuthSettings:
    """A real, external OAuth 2.1 authorization server: its access tokens are JWTs checked against its JWKS."""

    issuer: str
    """The authorization server's issuer URL, as its tokens' `iss` claim and its metadata name it."""
    jwks_url: str | None = None
    """Where its signing keys are published (None: read `jwks_uri` from the issuer's metadata)."""
    audience: str | None = None
    """The `aud` a token must carry (None: this server's resource URL, .../mcp)."""
    scopes: tuple[str, ...] = ()
    """Scopes every token must have (403 insufficient_scope otherwise)."""

    @classmethod
    def from_env(cls, issuer: str | None = None) -> OAuthSettings | None:
        """None unless an issuer is given (--oauth-issuer or ALFRED_OAUTH_ISSUER).

        Raises:
            ConfigError: an issuer or JWKS URL that is not http(s).
        """
        issuer = issuer or os.environ.get(OAUTH_ISSUER_ENV) or None
        if issuer is None:
            return None
        jwks = os.environ.get(OAUTH_JWKS_URL_ENV) or None
        if "#" in issuer:
            raise ConfigError(f"{OAUTH_ISSUER_ENV} is an issuer URL, which has no fragment ('#') (got {issuer!r}).",
                              field=OAUTH_ISSUER_ENV)
        return cls(
            issuer=_http_url(issuer, OAUTH_ISSUER_ENV),
            jwks_url=_http_url(jwks, OAUTH_JWKS_URL_ENV) if jwks else None,
            audience=os.environ.get(OAUTH_AUDIENCE_ENV) or None,
            scopes=tuple(os.environ.get(OAUTH_SCOPES_ENV, "").replace(",", " ").split()),
        )


def _number(env: str, kind: type[float] | type[int]) -> float | int | None:
    text = os.environ.get(env, "").strip()
    if not text:
        return None
    try:
        return kind(text)
    except ValueError:
        raise ConfigError(f"{env} takes a positive {'whole ' if kind is int else ''}number (got {text!r}).", field=env) from None


def _http_url(url: str, name: str) -> str:
    if not url.startswith(("http://", "https://")) or len(url.split("://", 1)[1]) == 0:
        raise ConfigError(f"{name} must be an http:// or https:// URL (got {url!r}).", field=name)
    return url


@dataclass(frozen=True)
class TurnSettings:
    """The context windows of seed 001 and the quick-mode gate of seed 000.

    `turn_retention`: turns whose entities and narratives the roles see in full (the entity window);
    `conversation_turns`: exchanges kept word for word; `compress_older_turns`: older turns are
    folded into a one-line-per-turn digest (False: they are left out); `quick_mode_threshold`:
    the confidence Understand must give for a quick lookup to skip planning.
    """

    turn_retention: int = 2
    conversation_turns: int = 3
    compress_older_turns: bool = True
    quick_mode_threshold: float = 0.8

    def __post_init__(self) -> None:
        if not 0 <= self.turn_retention <= 50:
            raise ConfigError(f"{TURN_RETENTION_ENV} takes a whole number from 0 to 50 (got {self.turn_retention}).",
                              field="turn_retention")
        if not 1 <= self.conversation_turns <= 50:
            raise ConfigError(f"{CONVERSATION_TURNS_ENV} takes a whole number from 1 to 50 (got {self.conversation_turns}).",
                              field="conversation_turns")
        if not 0 <= self.quick_mode_threshold <= 1:
            raise ConfigError(f"{QUICK_MODE_THRESHOLD_ENV} takes a number from 0 to 1 (got {self.quick_mode_threshold}).",
                              field="quick_mode_threshold")

    @classmethod
    def from_env(cls) -> TurnSettings:
        """Defaults, overridden by ALFRED_TURN_RETENTION, ALFRED_CONVERSATION_TURNS, ALFRED_COMPRESS_OLDER_TURNS
        and ALFRED_QUICK_MODE_THRESHOLD.

        Raises:
            ConfigError: a value that is not a number (or true/false), or out of range.
        """
        default = cls()
        return cls(
            turn_retention=_env_number(TURN_RETENTION_ENV, default.turn_retention, int),
            conversation_turns=_env_number(CONVERSATION_TURNS_ENV, default.conversation_turns, int),
            compress_older_turns=_env_flag(COMPRESS_OLDER_TURNS_ENV, default.compress_older_turns),
            quick_mode_threshold=_env_number(QUICK_MODE_THRESHOLD_ENV, default.quick_mode_threshold, float),
        )


def _env_number(name: str, default: NumberT, kind: type[NumberT]) -> NumberT:
    text = os.environ.get(name, "").strip()
    if not text:
        return default
    try:
        return kind(text)
    except ValueError:
        what = "a whole number" if kind is int else "a number"
        raise ConfigError(f"{name} takes {what} (got {text!r}).", field=name) from None


def _ledger_turns() -> int:
    """ALFRED_LEDGER_TURNS: turns of per-turn session records kept, a whole number >= 0 (0 keeps them all).

    Raises:
        ConfigError: not a whole number, or negative.
    """
    turns = _env_number(LEDGER_TURNS_ENV, DEFAULT_LEDGER_TURNS, int)
    if turns < 0:
        raise ConfigError(f"{LEDGER_TURNS_ENV} takes a whole number, 0 (keep all) or more (got {turns}).", field=LEDGER_TURNS_ENV)
    return turns


def _env_flag(name: str, default: bool) -> bool:
    return _on_off(os.environ, name, default)


@dataclass(frozen=True)
class SupabaseSettings:
    """A Supabase project: its URL, the anon key, and how user JWTs are signed (never a service-key fallback)."""

    url: str
    key: str
    jwt_secret: str | None = field(default=None, repr=False)
    service_key: str | None = field(default=None, repr=False)
    """Only for writes to the shared ingredient catalog (seeding); user calls always carry the user's JWT."""

    @classmethod
    def from_env(cls, url: str | None = None, key: str | None = None) -> SupabaseSettings | None:
        """None unless a Supabase URL is given (flag or SUPABASE_URL).

        Raises:
            ConfigError: a URL without the anon key or the JWT secret.
        """
        url = url or os.environ.get(SUPABASE_URL_ENV)
        if not url:
            return None
        key = key or next((os.environ[name] for name in SUPABASE_KEY_ENVS if os.environ.get(name)), None)
        secret = os.environ.get(SUPABASE_JWT_SECRET_ENV)
        if not key or not secret:
            raise ConfigError(
                f"Supabase needs the project's anon key ({' or '.join(SUPABASE_KEY_ENVS)} or --supabase-key) and its JWT secret "
                f"({SUPABASE_JWT_SECRET_ENV}) so every user call carries that user's own token.",
                field="supabase",
            )
        return cls(url=url, key=key, jwt_secret=secret, service_key=os.environ.get(SUPABASE_SERVICE_KEY_ENV))


@dataclass(frozen=True)
class ModelOptions:
    """How the agent talks to its model, and what one turn may spend on it."""

    json_mode: str = "auto"
    timeout: float = 120.0
    """Seconds for one model call, the whole answer included; a call past it is cancelled."""
    stream: bool = True
    """Ask OpenAI-compatible servers to stream, so a cancelled or cut-off answer stops the server's work."""
    max_tokens: Mapping[str, int] = field(default_factory=lambda: dict(DEFAULT_MAX_TOKENS))
    turn_calls: int = 30
    """Model calls one turn may make, retries of invalid outputs included."""
    turn_seconds: float = 600.0
    """Wall-clock seconds one turn may spend before it ends with what it has."""

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None, overrides: Mapping[str, str] | None = None) -> ModelOptions:
        """Options from `overrides` (flags, keyed by environment variable), then the environment, then defaults.

        Raises:
            ConfigError: a value that is not valid, naming the variable and what it accepts.
        """
        source = {**(os.environ if env is None else env), **(overrides or {})}
        json_mode = source.get(JSON_MODE_ENV) or "auto"
        if json_mode not in JSON_MODES:
            raise ConfigError(
                f"{JSON_MODE_ENV}={json_mode!r} is not a JSON mode: use one of {', '.join(JSON_MODES)}",
                field=JSON_MODE_ENV, value=json_mode, valid=list(JSON_MODES),
            )
        return cls(
            json_mode=json_mode,
            timeout=_positive(source, TIMEOUT_ENV, 120.0),
            stream=_on_off(source, STREAM_ENV, True),
            max_tokens=_max_tokens(source.get(MAX_TOKENS_ENV)),
            turn_calls=int(_positive(source, TURN_CALLS_ENV, 30, whole=True)),
            turn_seconds=_positive(source, TURN_SECONDS_ENV, 600.0),
        )


def _positive(source: Mapping[str, str], name: str, default: float, *, whole: bool = False) -> float:
    raw = source.get(name)
    if raw is None or raw == "":
        return default
    try:
        value = float(raw)
    except ValueError:
        value = math.nan
    if not (value > 0 and math.isfinite(value)) or (whole and not value.is_integer()):
        kind = "a positive whole number" if whole else "a positive number of seconds"
        raise ConfigError(f"{name}={raw!r} must be {kind}", field=name, value=raw)
    return value


def _on_off(source: Mapping[str, str], name: str, default: bool) -> bool:
    """A yes/no setting: 1, true, yes, on or 0, false, no, off (any case); empty or unset is `default`.

    Raises:
        ConfigError: anything else, naming the variable, the value and what it takes.
    """
    raw = source.get(name, "")
    word = raw.strip().lower()
    if word == "":
        return default
    if word in ON_WORDS:
        return True
    if word in OFF_WORDS:
        return False
    raise ConfigError(f"{name} takes {', '.join(ON_WORDS)} or {', '.join(OFF_WORDS)} (got {raw!r}).", field=name, value=raw,
                      valid=[*ON_WORDS, *OFF_WORDS])


def _max_tokens(raw: str | None) -> dict[str, int]:
    """`2048` (every role) or `act=4096,reply=512` (those roles; the others keep their defaults)."""
    budgets = dict(DEFAULT_MAX_TOKENS)
    if not raw:
        return budgets
    for part in raw.split(","):
        role, _, number = part.strip().rpartition("=")
        if role and role not in MODEL_ROLES:
            raise ConfigError(
                f"{MAX_TOKENS_ENV}: {role!r} is not a role; use {', '.join(MODEL_ROLES)}", field=MAX_TOKENS_ENV, value=raw
            )
        if not number.isdigit() or int(number) < 16:
            raise ConfigError(
                f"{MAX_TOKENS_ENV}={raw!r}: write a number of tokens (16 or more), or role=N pairs such as act=4096,reply=512",
                field=MAX_TOKENS_ENV, value=raw,
            )
        for name in [role] if role else MODEL_ROLES:
            budgets[name] = int(number)
    return budgets
