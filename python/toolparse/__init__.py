"""toolparse: streaming tool-call parsers for LLM output.

``get_parser(format)`` gives a parser whose ``extract_tool_calls(text)`` parses a whole output and
whose ``stream()`` parses one as it streams in, with the same result however the text is split;
results are Pydantic models in the OpenAI wire format. Each format runs on a Rust state machine,
or on its pure-Python twin with ``backend="python"``.
"""

from __future__ import annotations

from typing import Any, List, Optional, Sequence

from . import sdk as _sdk  # noqa: F401  (registers the models' SDK conversions)
from . import spec as _spec
from .detect import Detection, detect_format
from .grammar import structural_tag
from .ids import IdSource
from .infer import infer_format
from .models import (
    DeltaFunctionCall,
    DeltaMessage,
    DeltaToolCall,
    DoneEvent,
    ErrorEvent,
    ExtractedToolCallInformation,
    FunctionCall,
    Message,
    ReasoningDeltaEvent,
    StreamEvent,
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
from .register import register_format
from .registry import ToolParserManager
from .stream_events import events
from .token_suffix import token_suffix_from_vocab, with_token_suffix

try:
    # One version source: Cargo.toml, which maturin also gives the wheel.
    from ._core import __version__
except ImportError:  # pragma: no cover - the extension is built by maturin
    __version__ = "0+unknown"


def list_formats(aliases: bool = False) -> List[str]:
    """The canonical names of the formats (vLLM's names for the built-in ones), in the spec's
    order, then those :func:`register_format` added; with ``aliases=True`` followed by every
    other name vLLM or SGLang uses for one of them, and the registered formats' aliases."""
    return _spec.list_formats(aliases=aliases)


def get_parser(
    name: Optional[str],
    tools: Optional[Sequence[Any]] = None,
    backend: str = "rust",
    ids: Optional[IdSource] = None,
    reasoning: Optional[str] = None,
    reasoning_started: Optional[bool] = None,
) -> ToolParser:
    """A parser for format ``name`` (a canonical name or an alias; ``parser.name`` is the
    canonical one). ``tools``: a list of ``Tool`` models or OpenAI tool dicts, validated and
    converted once here. ``backend`` is "rust" or "python" (the reference twin); ``ids`` an
    :class:`IdSource` for the ids of calls that carry none. An unknown name raises ValueError
    naming the closest known names, then all of them; arguments of the wrong type raise
    TypeError naming the argument.

    ``reasoning``: a reasoning format (:func:`list_reasoning_formats`; SGLang's names too)
    separated in the same pass: the think block goes to ``reasoning``. ``name`` may then be None
    (reasoning and content only). ``reasoning_started``: True when the prompt opened the block
    (the output starts inside reasoning), False when thinking is off (the output starts as
    content), None for the reasoning format's default."""
    return ToolParser(
        name,
        tools=tools,
        backend=backend,
        ids=ids,
        reasoning=reasoning,
        reasoning_started=reasoning_started,
    )


def list_reasoning_formats(aliases: bool = False) -> List[str]:
    """The reasoning format names (vLLM's ``--reasoning-parser`` names, SGLang's for the
    SGLang-only ones), in the spec's order; with ``aliases=True`` followed by SGLang's other
    names."""
    return _spec.list_reasoning_formats(aliases=aliases)


def format_for_model(model_id: str) -> Optional[str]:
    """The format a model's chat template emits, from a Hugging Face id
    (``"Qwen/Qwen3-Coder-30B-A3B-Instruct"`` -> ``"qwen3_coder"``) or a local path to the model
    (``"/models/Qwen3-Coder-30B-A3B-Instruct"``): the most specific of the spec's model patterns
    wins, case-insensitive, the organisation optional; None when the model is unknown."""
    return _spec.format_for_model(model_id)


__all__ = [
    "DeltaFunctionCall",
    "Detection",
    "DeltaMessage",
    "DeltaToolCall",
    "DoneEvent",
    "ErrorEvent",
    "ExtractedToolCallInformation",
    "FunctionCall",
    "IdSource",
    "Message",
    "ReasoningDeltaEvent",
    "StreamEvent",
    "StreamingProtocolError",
    "StreamingToolReconstructor",
    "structural_tag",
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
    "detect_format",
    "events",
    "format_for_model",
    "get_parser",
    "infer_format",
    "list_formats",
    "list_reasoning_formats",
    "register_format",
    "token_suffix_from_vocab",
    "with_token_suffix",
]
