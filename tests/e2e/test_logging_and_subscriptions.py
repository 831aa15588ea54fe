"""`logging/setLevel` and `resources/subscribe` for 2025-11-25 clients, and the per-request log level of 2026-07-28."""

from __future__ import annotations

import logging
from typing import Any

import pytest
from mcp import Client, MCPError
from mcp.types import INVALID_PARAMS, LOG_LEVEL_META_KEY, LoggingMessageNotificationParams, ResourceUpdatedNotification

from alfred_mcp.server.mcp_server import AlfredServer
from alfred_mcp.server.resources import DASHBOARD_URI

pytestmark = [pytest.mark.anyio, pytest.mark.filterwarnings("ignore::mcp.MCPDeprecationWarning")]
WORKING_SET = "alfred://session/current/working-set"


async def test_a_legacy_client_sees_the_capabilities_it_can_use(server: AlfredServer) -> None:
    async with Client(server, mode="legacy") as client:
        capabilities = client.server_capabilities
    assert capabilities.logging is not None and capabilities.resources is not None and capabilities.resources.subscribe


@pytest.mark.parametrize("mode", ["legacy", "auto"], ids=["2025-11-25", "2026-07-28"])
async def test_the_server_log_of_a_request_reaches_a_client_that_asked_for_it(
    server: AlfredServer, mode: str, caplog: pytest.LogCaptureFixture
) -> None:
    """After setLevel (2025) or with the request's log level (2026), a refusal logged at info reaches the client."""
    caplog.set_level(logging.INFO, logger="alfred_mcp")
    received: list[LoggingMessageNotificationParams] = []

    async def on_log(params: LoggingMessageNotificationParams) -> None:
        received.append(params)

    async with Client(server, mode=mode, logging_callback=on_log) as client:
        await client.call_tool("db_read", {"table": "nope"})
        assert received == [], "no level chosen: nothing is sent"
        meta: Any = None
        if mode == "legacy":
            await client.set_logging_level("info")
        else:
            meta = {LOG_LEVEL_META_KEY: "info"}
        await client.call_tool("db_read", {"table": "nope"}, meta=meta)
        await client.call_tool("db_read", {"table": "recipes", "limit": 1}, meta=meta)
    assert [(m.level, m.logger) for m in received] == [("info", "alfred_mcp.server.dispatch")]
    assert "refused (invalid_input): db_read: table must be one of" in str(received[0].data)


async def test_a_legacy_subscriber_hears_about_changes_to_its_own_uris_until_it_unsubscribes(server: AlfredServer) -> None:
    updates: list[str] = []

    async def on_message(message: Any) -> None:
        if isinstance(message, ResourceUpdatedNotification):
            updates.append(message.params.uri)

    async with Client(server, mode="legacy", message_handler=on_message) as client:
        await client.subscribe_resource(DASHBOARD_URI)
        await client.subscribe_resource(WORKING_SET)
        await client.call_tool("db_create", {"table": "recipes", "data": {"name": "Soup"}})
        heard = list(updates)
        await client.unsubscribe_resource(DASHBOARD_URI)
        await client.unsubscribe_resource(WORKING_SET)
        await client.call_tool("db_create", {"table": "recipes", "data": {"name": "Stew"}})
        assert server.subscriptions.watching(server.app.user_id) == 0
    assert sorted(heard) == sorted([DASHBOARD_URI, WORKING_SET]) and updates == heard


async def test_subscribing_to_a_resource_the_server_lacks_is_invalid_params(server: AlfredServer) -> None:
    async with Client(server, mode="legacy") as client:
        with pytest.raises(MCPError) as refused:
            await client.subscribe_resource("test://watched-resource")
        await client.subscribe_resource("alfred://session/session_1/ref/recipe_1")
    assert refused.value.error.code == INVALID_PARAMS and "Unknown resource: test://watched-resource" in refused.value.error.message



async def test_a_shopping_list_preview_announces_no_kitchen_change_and_adding_does(server: AlfredServer) -> None:
    """preview writes nothing, so a dashboard subscriber hears nothing of it; the same call without it changes the list."""
    updates: list[str] = []

    async def on_message(message: Any) -> None:
        if isinstance(message, ResourceUpdatedNotification):
            updates.append(message.params.uri)

    week = {"from": "2026-01-12", "to": "2026-01-18"}
    async with Client(server, mode="legacy", message_handler=on_message) as client:
        await client.subscribe_resource(DASHBOARD_URI)
        previewed = await client.call_tool("shopping_list_from", {"meal_plans": week, "preview": True})
        assert not previewed.is_error and DASHBOARD_URI not in updates
        added = await client.call_tool("shopping_list_from", {"meal_plans": week})
        assert not added.is_error and DASHBOARD_URI in updates
        await client.unsubscribe_resource(DASHBOARD_URI)
