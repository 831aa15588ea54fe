"""Model providers behind one small protocol: Anthropic, OpenAI-compatible, scripted (MCP sampling: server/sampling.py).

`llm_from_settings` builds one from `ALFRED_MODEL` & co. The sampling provider lives apart in
`alfred_mcp.server.sampling` (import it only where a tool's Context is at hand).
"""

from __future__ import annotations

from alfred_mcp.agent.llm.anthropic import AnthropicLLM
from alfred_mcp.agent.llm.base import LLM, Message, ModelRequest, ModelResponse, Usage
from alfred_mcp.agent.llm.factory import llm_from_settings
from alfred_mcp.agent.llm.openai_compat import OpenAICompatibleLLM
from alfred_mcp.agent.llm.scripted import ScriptedLLM
from alfred_mcp.agent.llm.transport import RetryPolicy

__all__ = [
    "LLM",
    "AnthropicLLM",
    "Message",
    "ModelRequest",
    "ModelResponse",
    "OpenAICompatibleLLM",
    "RetryPolicy",
    "ScriptedLLM",
    "Usage",
    "llm_from_settings",
]
