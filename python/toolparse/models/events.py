"""NDJSON/SSE stream events and :func:`parse_stream_event`."""

from __future__ import annotations

from typing import (
    TYPE_CHECKING,
    Annotated,
    Any,
    List,
    Literal,
    Mapping,
    Optional,
    Union,
)

from pydantic import (
    BaseModel,
    Field,
    TypeAdapter,
    model_validator,
)

if TYPE_CHECKING:  # the SDKs are optional (extras "openai", "anthropic"): for annotations only
    pass

from .calls import ToolCall

# ==================================================================================================
# Stream events (NDJSON / SSE)
# ==================================================================================================


class Usage(BaseModel):
    """Token usage of a response; ``total_tokens`` defaults to prompt + completion."""

    prompt_tokens: int = Field(default=0, ge=0)
    completion_tokens: int = Field(default=0, ge=0)
    total_tokens: Optional[int] = Field(default=None, ge=0)

    @model_validator(mode="after")
    def _fill_total(self) -> Usage:
        if self.total_tokens is None:
            self.total_tokens = self.prompt_tokens + self.completion_tokens
        return self


class TextDeltaEvent(BaseModel):
    """A piece of content text: ``{"type": "text_delta", "text": "..."}``."""

    type: Literal["text_delta"] = "text_delta"
    text: str


class ReasoningDeltaEvent(BaseModel):
    """A piece of reasoning text: ``{"type": "reasoning_delta", "text": "..."}``."""

    type: Literal["reasoning_delta"] = "reasoning_delta"
    text: str


class ToolCallsEvent(BaseModel):
    """Complete tool calls: ``{"type": "tool_calls", "tool_calls": [ToolCall, ...]}``."""

    type: Literal["tool_calls"] = "tool_calls"
    tool_calls: List[ToolCall] = Field(min_length=1)


class DoneEvent(BaseModel):
    """End of the stream: ``{"type": "done", "finish_reason": ..., "usage": {...}}``."""

    type: Literal["done"] = "done"
    finish_reason: Optional[str] = None
    usage: Optional[Usage] = None


class ErrorEvent(BaseModel):
    """An error that ended the stream: ``{"type": "error", "message": ..., "code": ...}``."""

    type: Literal["error"] = "error"
    message: str
    code: Optional[str] = None


StreamEvent = Annotated[
    Union[TextDeltaEvent, ReasoningDeltaEvent, ToolCallsEvent, DoneEvent, ErrorEvent],
    Field(discriminator="type"),
]
"""Any stream event; the ``type`` field selects the model."""

_STREAM_EVENT_ADAPTER: TypeAdapter[Any] = TypeAdapter(StreamEvent)


def parse_stream_event(
    line: Union[str, bytes, bytearray, Mapping[str, Any]],
) -> Union[TextDeltaEvent, ReasoningDeltaEvent, ToolCallsEvent, DoneEvent, ErrorEvent]:
    """Parse one NDJSON line (``str``/``bytes``) or an already-decoded dict into its event model.

    Raises ``pydantic.ValidationError`` for invalid JSON, an unknown ``type`` or bad fields.
    """
    if isinstance(line, (str, bytes, bytearray)):
        return _STREAM_EVENT_ADAPTER.validate_json(line)
    return _STREAM_EVENT_ADAPTER.validate_python(line)
