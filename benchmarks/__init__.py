"""alfred-mcp benchmarks: ratios measured side by side in one run (`python -m benchmarks`)."""
