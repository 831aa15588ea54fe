"""Who a user is, by where they come from: the handle a user is stored under names its origin.

Each way in has its own namespace, so two origins can never name the same kitchen by accident:

- `token:<user>`: a static bearer token's user (ALFRED_TOKENS / ALFRED_TOKENS_FILE);
- `local:<user>`: the local user of stdio, `chat` and `run` (--user, ALFRED_USER; 'local' by default);
- `oauth:<issuer>#<sub>`: a JWT's subject at the issuer that signed it (an issuer URL has no fragment);
- `legacy:<handle>`: a user of a database made before namespacing (the migration renamed every user so).

A static token's user or the local user who is new under this scheme takes over the legacy user of the
same name, kitchen and all, the first time they come (`former_handle`). An OAuth subject never does:
the operator maps identities on purpose (`ALFRED_USER_MAP_FILE`, see `load_user_map`).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from alfred_mcp.errors import ConfigError

TOKEN, LOCAL, OAUTH, LEGACY = "token:", "local:", "oauth:", "legacy:"
USER_MAP_FILE_ENV = "ALFRED_USER_MAP_FILE"


def static_user(name: str) -> str:
    """The handle of a static bearer token's user."""
    return TOKEN + _named(name)


def local_user(name: str) -> str:
    """The handle of the local (stdio, chat, run) user."""
    return LOCAL + _named(name)


def issuer_user(issuer: str, subject: str) -> str:
    """The handle of the JWT subject `subject` of `issuer`.

    Raises:
        ValueError: an issuer with a fragment ('#') or an empty subject: neither can name a user.
    """
    if "#" in issuer:
        raise ValueError(f"An OAuth issuer URL has no fragment ('#'): {issuer!r}.")
    return f"{OAUTH}{issuer}#{_named(subject)}"


def former_handle(handle: str) -> str | None:
    """The legacy handle a new user of `handle` takes over if it exists (static tokens and the local user only)."""
    for origin in (TOKEN, LOCAL):
        if handle.startswith(origin):
            return LEGACY + handle.removeprefix(origin)
    return None


def is_handle(text: str) -> bool:
    """`text` is a handle of one of the origins, with a name."""
    if text.startswith(OAUTH):
        issuer, sep, subject = text.removeprefix(OAUTH).partition("#")
        return bool(issuer) and bool(sep) and bool(subject.strip())
    return any(text.startswith(origin) and text.removeprefix(origin).strip() for origin in (TOKEN, LOCAL, LEGACY))


def load_user_map(file: str | None) -> dict[str, str]:
    """The operator's map of identities that share a kitchen on purpose: {"<handle>": "<handle it uses>"}.

    E.g. {"oauth:https://login.example.com#alice": "token:alice"} gives the issuer's alice the static
    token user alice's kitchen; {"token:alice": "legacy:alice"} names a pre-namespacing user explicitly.

    Raises:
        ConfigError: an unreadable file, not a JSON object of strings, or a key or value that is not a handle.
    """
    if not file:
        return {}
    try:
        data: Any = json.loads(Path(file).read_text(encoding="utf-8"))
    except (OSError, ValueError) as error:
        raise ConfigError.unreadable_json(USER_MAP_FILE_ENV, file, error) from error
    if not isinstance(data, dict) or not all(isinstance(k, str) and isinstance(v, str) for k, v in data.items()):
        raise ConfigError(f'{USER_MAP_FILE_ENV} must be a JSON object {{"<handle>": "<handle>"}}.', field=USER_MAP_FILE_ENV)
    return {_checked(key, "key"): _checked(value, "value") for key, value in data.items()}


def mapped(user_map: Mapping[str, str], handle: str) -> str:
    """The handle `handle` uses: the operator's mapping for it, else itself."""
    return user_map.get(handle, handle)


def _checked(text: str, role: str) -> str:
    if not is_handle(text):
        raise ConfigError(
            f"{USER_MAP_FILE_ENV}: the {role} {text!r} is not a user handle; write token:<user>, local:<user>, "
            "oauth:<issuer>#<sub> or legacy:<old handle>.", field=USER_MAP_FILE_ENV, value=text,
        )
    return text


def _named(name: str) -> str:
    if not name.strip():
        raise ValueError("A user handle needs a name.")
    return name
