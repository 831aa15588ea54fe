"""Build the configured model provider from flags, then environment: `ALFRED_MODEL=<provider>:<model>`.

    anthropic:claude-sonnet-4-5                          key: ALFRED_MODEL_API_KEY or ANTHROPIC_API_KEY
    openai:gpt-4.1-mini                                  key: ALFRED_MODEL_API_KEY or OPENAI_API_KEY
    openai-compatible:llama3@http://127.0.0.1:8080/v1    key: ALFRED_MODEL_API_KEY, optional
    scripted:path/to/script.json                         replays recorded role outputs (scripted:demo: the packaged demo)

`ALFRED_MODEL_BASE_URL` overrides the provider's URL; the rest of the model options (JSON mode, timeout,
streaming, token budgets) are `config.ModelOptions`. An openai-compatible server never gets OPENAI_API_KEY
by default: a local server has no business with it.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path

from alfred_mcp.agent.llm.anthropic import DEFAULT_BASE_URL as ANTHROPIC_BASE_URL
from alfred_mcp.agent.llm.anthropic import AnthropicLLM
from alfred_mcp.agent.llm.base import LLM
from alfred_mcp.agent.llm.openai_compat import OPENAI_BASE_URL, OpenAICompatibleLLM
from alfred_mcp.agent.llm.scripted import ScriptedLLM
from alfred_mcp.config import JSON_MODE_ENV, TIMEOUT_ENV, ModelOptions
from alfred_mcp.errors import ConfigError

MODEL_ENV = "ALFRED_MODEL"
BASE_URL_ENV = "ALFRED_MODEL_BASE_URL"
API_KEY_ENV = "ALFRED_MODEL_API_KEY"
FORMS = ("anthropic:<model>", "openai:<model>", "openai-compatible:<model>@<base url>", "scripted:<file.json>")
DEMO_SCRIPT = Path(__file__).with_name("demo.json")
"""`scripted:demo`: the packaged script that answers the README's two-message demo run."""


@dataclass(frozen=True)
class ModelSettings:
    """One provider's settings, flags already merged over the environment."""

    provider: str
    model: str
    base_url: str | None
    api_key: str | None
    options: ModelOptions
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
    options: ModelOptions | None = None,
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
    if options is None:
        flags = {JSON_MODE_ENV: json_mode, TIMEOUT_ENV: None if timeout is None else str(timeout)}
        options = ModelOptions.from_env(env, {key: value for key, value in flags.items() if value is not None})
    url = base_url or env.get(BASE_URL_ENV) or None
    if url is not None and not url.startswith(("http://", "https://")):
        raise ConfigError(f"{BASE_URL_ENV} takes an http:// or https:// URL (got {url!r}).", field=BASE_URL_ENV, value=url)
    return build(ModelSettings(provider, name, url, api_key, options, env))


def _anthropic(settings: ModelSettings) -> LLM:
    key = _required_key(settings, "ANTHROPIC_API_KEY")
    return AnthropicLLM(settings.model, key, base_url=settings.base_url or ANTHROPIC_BASE_URL, timeout=settings.options.timeout)


def _openai(settings: ModelSettings) -> LLM:
    key = _required_key(settings, "OPENAI_API_KEY")
    return OpenAICompatibleLLM(
        settings.model,
        base_url=settings.base_url or OPENAI_BASE_URL,
        api_key=key,
        json_mode=settings.options.json_mode,
        token_limit_field="max_completion_tokens",
        provider="openai",
        timeout=settings.options.timeout,
        stream=settings.options.stream,
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
    options = settings.options
    return OpenAICompatibleLLM(
        model, base_url=base_url, api_key=settings.key(None), json_mode=options.json_mode, timeout=options.timeout, stream=options.stream
    )


def _scripted(settings: ModelSettings) -> LLM:
    path = Path(settings.model).expanduser()
    return ScriptedLLM.from_file(DEMO_SCRIPT if settings.model in ("demo", "demo.json") and not path.exists() else path)


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
