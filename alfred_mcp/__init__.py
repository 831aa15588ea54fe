"""alfred-mcp: a kitchen assistant MCP server whose truth lives in deterministic state."""

__version__ = "0.1.0"
__all__ = ["__version__"]
