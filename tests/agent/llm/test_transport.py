"""The shared HTTP transport: backoff arithmetic, unreachable servers, odd bodies, key scrubbing."""

from __future__ import annotations

import json

import pytest
from ports import free_port

from alfred_mcp.agent.llm.transport import ModelEndpoint, RetryPolicy
from alfred_mcp.errors import ModelError, ModelUnavailableError

from .replay_server import ReplayServer, Reply

KEY = "local-secret-4f9a8b7c"


def _endpoint(url: str, attempts: int = 3) -> ModelEndpoint:
    headers = {"authorization": f"Bearer {KEY}"}
    retry = RetryPolicy(attempts=attempts, base_delay=0.001, max_delay=0.01)
    return ModelEndpoint("test-api", url, headers, secret=KEY, timeout=2.0, retry=retry, client=None)


@pytest.mark.parametrize(
    ("retry_number", "retry_after", "expected"),
    [
        pytest.param(1, None, 1.0, id="first-retry-base"),
        pytest.param(3, None, 4.0, id="doubles"),
        pytest.param(10, None, 30.0, id="capped"),
        pytest.param(1, 7.0, 7.0, id="retry-after-wins"),
        pytest.param(1, 120.0, 30.0, id="retry-after-capped"),
        pytest.param(1, -3.0, 0.0, id="never-negative"),
    ],
)
def test_retry_delay(retry_number: int, retry_after: float | None, expected: float) -> None:
    """Exponential backoff from base_delay, retry-after preferred, both capped at max_delay."""
    assert RetryPolicy(base_delay=1.0, max_delay=30.0).delay(retry_number, retry_after) == expected


@pytest.mark.anyio
async def test_unreachable_server_is_unavailable_after_every_attempt() -> None:
    """Connection refused is retried, then reported as ModelUnavailableError with the URL."""
    url = f"http://127.0.0.1:{free_port()}/v1/messages"
    with pytest.raises(ModelUnavailableError, match=r"test-api at .*/v1/messages could not be reached \(ConnectError, 2 tries\)") as caught:
        await _endpoint(url, attempts=2).post({"model": "m"})
    assert caught.value.fields["attempts"] == 2 and "server is running" in caught.value.fields["hint"]


@pytest.mark.anyio
async def test_success_status_with_a_non_json_body_is_a_model_error() -> None:
    """A 200 whose body is not a JSON object (a proxy's HTML page) says so; the page itself stays out of the message."""
    page = Reply(200, "<html>Bad gateway</html>", {"content-type": "text/html"})
    with ReplayServer(page) as server:
        with pytest.raises(ModelError, match=r"answered HTTP 200 with a body that is not a JSON object \(text/html\)") as caught:
            await _endpoint(f"{server.url}/x").post({})
    assert caught.value.fields["status"] == 200 and caught.value.remote == "<html>Bad gateway</html>"


@pytest.mark.anyio
async def test_echoed_key_is_scrubbed_from_error_messages() -> None:
    """An API that echoes the key verbatim does not get it into the error."""
    echo = Reply(403, {"error": {"message": f"key {KEY} is not allowed here", "type": "permission_error"}})
    with ReplayServer(echo) as server:
        with pytest.raises(ModelError) as caught:
            await _endpoint(f"{server.url}/x").post({})
    assert KEY not in json.dumps(caught.value.to_dict())
    assert "refused the request (HTTP 403: key [api key] is not allowed here)" in caught.value.message
    assert KEY not in caught.value.remote and caught.value.fields["hint"] == "check the API key (ALFRED_MODEL_API_KEY)"
    assert caught.value.fields["error_type"] == "permission_error"


@pytest.mark.anyio
async def test_http_date_retry_after_falls_back_to_backoff() -> None:
    """A retry-after given as an HTTP date is ignored in favour of the policy's backoff."""
    delays: list[float] = []

    async def sleep(seconds: float) -> None:
        delays.append(seconds)

    busy = Reply(503, {"error": "busy"}, {"content-type": "application/json", "retry-after": "Wed, 21 Oct 2026 07:28:00 GMT"})
    with ReplayServer(busy, Reply(200, {"ok": True})) as server:
        retry = RetryPolicy(attempts=2, base_delay=0.25)
        endpoint = ModelEndpoint("test-api", server.url, {}, secret=None, timeout=2.0, retry=retry, client=None, sleep=sleep)
        delivered = await endpoint.post({})
    assert (delivered.value, delivered.requests) == ({"ok": True}, 2)
    assert delays == [0.25]
