"""toolparse: streaming tool-call parsers for LLM output.

Rust state machines (``toolparse._core``) with pure-Python reference twins
(``toolparse.reference``): linear in the text, split-invariant, the same result streaming or not.
"""

from __future__ import annotations

from typing import Any, List, Optional, Sequence

from . import reference
from .ids import IdSource
from .models import (
    DeltaFunctionCall,
    DeltaMessage,
    DeltaToolCall,
    DoneEvent,
    ErrorEvent,
    ExtractedToolCallInformation,
    FunctionCall,
    Message,
    TextDeltaEvent,
    Tool,
    ToolCall,
    ToolCallsEvent,
    ToolFunction,
    ToolParameters,
    ToolProperty,
    ToolResult,
)
from .parser import ToolCallStream, ToolParser
from .reconstruct import StreamingProtocolError, StreamingToolReconstructor
from .registry import ToolParserManager

__version__ = "0.1.0"


def list_formats() -> List[str]:
    """The names of the built-in formats."""
    return reference.list_formats()


def get_parser(
    name: str,
    tools: Optional[Sequence[Any]] = None,
    backend: str = "rust",
    ids: Optional[IdSource] = None,
) -> ToolParser:
    """A parser for format ``name``; ``backend`` is "rust" or "python" (the reference twin).
    Unknown names raise ValueError listing the known names."""
    if name not in reference.REGISTRY:
        known = ", ".join(list_formats())
        raise ValueError(f"unknown tool-call format {name!r}; known formats: {known}")
    return ToolParser(name, tools=tools, backend=backend, ids=ids)


__all__ = [
    "DeltaFunctionCall",
    "DeltaMessage",
    "DeltaToolCall",
    "DoneEvent",
    "ErrorEvent",
    "ExtractedToolCallInformation",
    "FunctionCall",
    "IdSource",
    "Message",
    "StreamingProtocolError",
    "StreamingToolReconstructor",
    "TextDeltaEvent",
    "Tool",
    "ToolCall",
    "ToolCallStream",
    "ToolCallsEvent",
    "ToolFunction",
    "ToolParameters",
    "ToolParser",
    "ToolParserManager",
    "ToolProperty",
    "ToolResult",
    "__version__",
    "get_parser",
    "list_formats",
]
