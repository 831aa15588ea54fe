"""A model whose calls each run in an OpenTelemetry span `model.complete <role>`, with the model and the
token counts. Installed only when traces are exported (`server/tracing.py`); otherwise spans are no-ops."""

from __future__ import annotations

from opentelemetry import trace

from alfred_mcp.agent.llm.base import LLM, ModelRequest, ModelResponse

tracer = trace.get_tracer("alfred_mcp.agent")


class TracedModel:
    """An `LLM` whose calls each run in a span `model.complete <role>` with the model and token counts."""

    def __init__(self, model: LLM) -> None:
        self.model = model

    async def complete(self, request: ModelRequest) -> ModelResponse:
        with tracer.start_as_current_span(f"model.complete {request.role}", kind=trace.SpanKind.CLIENT,
                                          attributes={"gen_ai.operation.name": "chat", "alfred.role": request.role}) as span:
            response = await self.model.complete(request)
            span.set_attributes({
                "gen_ai.response.model": response.model, "alfred.model.requests": response.requests,
                **({"gen_ai.usage.input_tokens": response.usage.input_tokens} if response.usage.input_tokens else {}),
                **({"gen_ai.usage.output_tokens": response.usage.output_tokens} if response.usage.output_tokens else {}),
            })
            return response
