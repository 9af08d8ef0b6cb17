"""Pydantic v2 models for toolparse, in the OpenAI wire format.

``model_dump(exclude_none=True)`` (and ``model_dump_json(exclude_none=True)``) of every model gives
exactly what the OpenAI API sends and accepts::

    >>> Message.assistant("Test").model_dump_json(exclude_none=True)
    '{"role":"assistant","content":"Test"}'

Groups of models (one submodule each; everything is importable from ``toolparse.models``):

* chat messages: :class:`Message` (with optional response metadata);
* tool definitions: :class:`Tool`, :class:`ToolFunction`, :class:`ToolParameters`,
  :class:`ToolProperty` (parameters are a JSON Schema that round-trips unchanged);
* tool calls: :class:`ToolCall`, :class:`FunctionCall` (``arguments`` is JSON text);
* tool execution results: :class:`ToolResult`, :class:`ToolError`;
* parser results (vLLM-compatible names): :class:`ExtractedToolCallInformation`,
  :class:`DeltaMessage`, :class:`DeltaToolCall`, :class:`DeltaFunctionCall`;
* NDJSON/SSE stream events: :class:`TextDeltaEvent`, :class:`ReasoningDeltaEvent`,
  :class:`ToolCallsEvent`, :class:`DoneEvent`, :class:`ErrorEvent`, the discriminated union
  :data:`StreamEvent` and :func:`parse_stream_event`.

Fast constructors
-----------------
The streaming facade builds one :class:`DeltaMessage` per delta from data the library produced
itself, so it skips validation with the private ``_fast`` classmethods
(``DeltaMessage._fast``, ``DeltaMessage._fast_tool_args``, ``DeltaToolCall._fast``,
``DeltaFunctionCall._fast``, ``FunctionCall._fast``, ``ToolCall._fast``). They fill what
pydantic's ``BaseModel`` keeps per instance (``__dict__``, ``__pydantic_fields_set__``,
``__pydantic_extra__``, ``__pydantic_private__``) as ``model_construct`` does, but without its
per-field Python loop (see ``_Blank`` in ``toolparse.models._base`` for how). The result
compares equal to the validated instance, has the same ``repr``, dumps the same
(``exclude_unset`` included: the fields set holds exactly the arguments given as non-None) and
supports ``model_copy``, ``copy`` and ``pickle``.
Callers must pass values of the declared types; nothing is checked.

Looking up an attribute on a pydantic model class is slow (~0.1 us: pydantic's metaclass defines
``__getattr__``, which keeps CPython from specialising the lookup), so hot loops should bind the
constructors once at import time (``_dm_fast = DeltaMessage._fast``) rather than writing
``DeltaMessage._fast(...)`` per delta.
"""

from __future__ import annotations

from ._base import FinishReason, Role, generate_tool_call_id
from .calls import FunctionCall, ToolCall
from .events import (
    DoneEvent,
    ErrorEvent,
    ReasoningDeltaEvent,
    StreamEvent,
    TextDeltaEvent,
    ToolCallsEvent,
    Usage,
    parse_stream_event,
)
from .messages import Message
from .parsing import DeltaFunctionCall, DeltaMessage, DeltaToolCall, ExtractedToolCallInformation
from .results import ToolError, ToolResult
from .tools import Tool, ToolFunction, ToolParameters, ToolProperty

__all__ = [
    "DeltaFunctionCall",
    "DeltaMessage",
    "DeltaToolCall",
    "DoneEvent",
    "ErrorEvent",
    "ExtractedToolCallInformation",
    "FinishReason",
    "FunctionCall",
    "Message",
    "ReasoningDeltaEvent",
    "Role",
    "StreamEvent",
    "TextDeltaEvent",
    "Tool",
    "ToolCall",
    "ToolCallsEvent",
    "ToolError",
    "ToolFunction",
    "ToolParameters",
    "ToolProperty",
    "ToolResult",
    "Usage",
    "generate_tool_call_id",
    "parse_stream_event",
]
