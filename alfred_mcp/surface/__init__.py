"""The MCP surface beyond tools: resources, prompts, completions and change notifications.

Each module has a `register(server)` that adds its handlers to an `AlfredServer` with the SDK's
decorators; `notify.py` is called by the server after a tool call succeeds.
"""
