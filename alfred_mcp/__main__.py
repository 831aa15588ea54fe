"""`python -m alfred_mcp` is the `alfred-mcp` command."""

from alfred_mcp.cli import main

if __name__ == "__main__":
    raise SystemExit(main())
