"""Build the configured model provider from flags, then environment: `ALFRED_MODEL=<provider>:<model>`.

    anthropic:claude-sonnet-4-5                          key: ALFRED_MODEL_API_KEY or ANTHROPIC_API_KEY
    openai:gpt-4.1-mini                                  key: ALFRED_MODEL_API_KEY or OPENAI_API_KEY
    openai-compatible:llama3@http://127.0.0.1:8080/v1    key: ALFRED_MODEL_API_KEY, optional
    scripted:path/to/script.json                         replays recorded role outputs

`ALFRED_MODEL_BASE_URL` overrides the provider's URL; `ALFRED_MODEL_JSON_MODE` picks the OpenAI JSON
mode (json_schema, json_object, prompt); `ALFRED_MODEL_TIMEOUT` is seconds per call. An
openai-compatible server never gets OPENAI_API_KEY by default: a local server has no business with it.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path

from alfred_mcp.agent.llm.anthropic import DEFAULT_BASE_URL as ANTHROPIC_BASE_URL
from alfred_mcp.agent.llm.anthropic import AnthropicLLM
from alfred_mcp.agent.llm.base import LLM
from alfred_mcp.agent.llm.openai_compat import JSON_MODES, OPENAI_BASE_URL, JsonMode, OpenAICompatibleLLM
from alfred_mcp.agent.llm.scripted import ScriptedLLM
from alfred_mcp.errors import ConfigError

MODEL_ENV = "ALFRED_MODEL"
BASE_URL_ENV = "ALFRED_MODEL_BASE_URL"
API_KEY_ENV = "ALFRED_MODEL_API_KEY"
JSON_MODE_ENV = "ALFRED_MODEL_JSON_MODE"
TIMEOUT_ENV = "ALFRED_MODEL_TIMEOUT"
DEFAULT_TIMEOUT = 120.0
FORMS = ("anthropic:<model>", "openai:<model>", "openai-compatible:<model>@<base url>", "scripted:<file.json>")


@dataclass(frozen=True)
class ModelSettings:
    """One provider's settings, flags already merged over the environment."""

    provider: str
    model: str
    base_url: str | None
    api_key: str | None
    json_mode: str | None
    timeout: float
    env: Mapping[str, str]

    def key(self, fallback_env: str | None) -> str | None:
        """The flag, else ALFRED_MODEL_API_KEY, else the provider's own variable."""
        return self.api_key or self.env.get(API_KEY_ENV) or (self.env.get(fallback_env) if fallback_env else None) or None


def llm_from_settings(
    model: str | None = None,
    base_url: str | None = None,
    api_key: str | None = None,
    *,
    json_mode: str | None = None,
    timeout: float | None = None,
    env: Mapping[str, str] | None = None,
) -> LLM:
    """The provider named by `model` (else ALFRED_MODEL), configured from the arguments, then the environment.

    Raises:
        ConfigError: no model, an unknown provider, or a missing key / base URL / bad option.
    """
    env = os.environ if env is None else env
    spec = model or env.get(MODEL_ENV)
    if not spec:
        raise ConfigError(f"No model configured: set {MODEL_ENV} to one of {', '.join(FORMS)}", field=MODEL_ENV, valid=list(FORMS))
    provider, _, name = spec.partition(":")
    build = BUILDERS.get(provider)
    if build is None or not name:
        raise ConfigError(
            f"{MODEL_ENV}={spec!r} is not a model: use one of {', '.join(FORMS)}", field=MODEL_ENV, value=spec, valid=list(FORMS)
        )
    settings = ModelSettings(
        provider, name, base_url or env.get(BASE_URL_ENV) or None, api_key, json_mode or env.get(JSON_MODE_ENV), _timeout(timeout, env), env
    )
    return build(settings)


def _anthropic(settings: ModelSettings) -> LLM:
    key = _required_key(settings, "ANTHROPIC_API_KEY")
    return AnthropicLLM(settings.model, key, base_url=settings.base_url or ANTHROPIC_BASE_URL, timeout=settings.timeout)


def _openai(settings: ModelSettings) -> LLM:
    key = _required_key(settings, "OPENAI_API_KEY")
    return OpenAICompatibleLLM(
        settings.model,
        base_url=settings.base_url or OPENAI_BASE_URL,
        api_key=key,
        json_mode=_json_mode(settings),
        token_limit_field="max_completion_tokens",
        provider="openai",
        timeout=settings.timeout,
    )


def _compatible(settings: ModelSettings) -> LLM:
    model, _, url = settings.model.partition("@")
    base_url = url or settings.base_url
    if not model or not base_url:
        raise ConfigError(
            f"{settings.provider}:{settings.model} needs a model and a base URL: write "
            f"openai-compatible:<model>@http://127.0.0.1:8080/v1 or set {BASE_URL_ENV}",
            field=BASE_URL_ENV,
        )
    if not base_url.startswith(("http://", "https://")):
        raise ConfigError(f"Base URL {base_url!r} must start with http:// or https://", field=BASE_URL_ENV, value=base_url)
    return OpenAICompatibleLLM(
        model, base_url=base_url, api_key=settings.key(None), json_mode=_json_mode(settings), timeout=settings.timeout
    )


def _scripted(settings: ModelSettings) -> LLM:
    return ScriptedLLM.from_file(Path(settings.model).expanduser())


BUILDERS: dict[str, Callable[[ModelSettings], LLM]] = {
    "anthropic": _anthropic,
    "openai": _openai,
    "openai-compatible": _compatible,
    "scripted": _scripted,
}


def _required_key(settings: ModelSettings, fallback_env: str) -> str:
    key = settings.key(fallback_env)
    if not key:
        raise ConfigError(
            f"{settings.provider}:{settings.model} needs an API key: set {API_KEY_ENV} or {fallback_env}", field=API_KEY_ENV
        )
    return key


def _json_mode(settings: ModelSettings) -> JsonMode:
    mode = settings.json_mode or "json_schema"
    if mode not in JSON_MODES:
        raise ConfigError(
            f"{JSON_MODE_ENV}={mode!r} is not a JSON mode: use one of {', '.join(JSON_MODES)}",
            field=JSON_MODE_ENV,
            value=mode,
            valid=list(JSON_MODES),
        )
    return mode  # type: ignore[return-value]


def _timeout(timeout: float | None, env: Mapping[str, str]) -> float:
    raw = timeout if timeout is not None else env.get(TIMEOUT_ENV)
    if raw is None or raw == "":
        return DEFAULT_TIMEOUT
    try:
        seconds = float(raw)
    except ValueError:
        seconds = 0.0
    if not seconds > 0:  # also rejects nan
        raise ConfigError(f"{TIMEOUT_ENV}={raw!r} must be a positive number of seconds", field=TIMEOUT_ENV, value=str(raw))
    return seconds
