"""Stubs for the native module ``toolparse._core`` (built from ``rust/python.rs``)."""

from typing import Any, Callable, Dict, List, Optional, Tuple, final

from typing_extensions import Self

from .models import DeltaFunctionCall, DeltaMessage, DeltaToolCall

__version__: str
__all__ = [
    "DeltaModels",
    "Format",
    "Parser",
    "extract",
    "is_json",
    "list_formats",
    "list_reasoning_formats",
    "register_format",
    "replay",
    "set_models",
    "__version__",
]

# (index, id, name, arguments): name (and id, when the format carries one) on a call's first
# fragment only
_DeltaCall = Tuple[int, Optional[str], Optional[str], Optional[str]]
# (content, reasoning, calls)
_Delta = Tuple[Optional[str], Optional[str], Optional[List[_DeltaCall]]]
# (content, reasoning, [(id, name, arguments)] of the complete calls, malformed, truncated)
_Extracted = Tuple[Optional[str], Optional[str], List[Tuple[Optional[str], str, str]], bool, bool]
# function name -> parameter name -> the JSON Schema types it admits (empty when it has none)
_ToolTypes = Dict[str, Dict[str, List[str]]]
# function name -> its schema tree (the xml_elements family): nodes (types, container 0 scalar /
# 1 object / 2 array, property name -> node index, items or additionalProperties node or -1),
# node 0 the parameters object
_Schemas = Dict[str, List[Tuple[List[str], int, Dict[str, int], int]]]

class _Setup:
    """Stub only (not a runtime class): the constructor Parser and Format share."""

    def __new__(
        cls,
        format: Optional[str],
        tools: Optional[_ToolTypes] = None,
        reasoning: Optional[str] = None,
        reasoning_started: Optional[bool] = None,
        schemas: Optional[_Schemas] = None,
    ) -> Self: ...

@final
class Parser(_Setup):
    """A streaming parser for one response."""

    def feed(self, text: str) -> Optional[_Delta]:
        """Feeds one delta; None when there is nothing to emit yet. ValueError after finish()."""
    def feed_many(self, texts: List[str]) -> List[Optional[_Delta]]:
        """Feeds several deltas in one call; one result per delta."""
    def finish(self) -> Optional[_Delta]:
        """Flushes what was held back at the end of the text."""
    def feed_message(self, delta_text: Any) -> Any:
        """``feed``, as a ``DeltaMessage`` built here: the facade's (``set_models``) or the
        ``DeltaModels`` given to ``Format.parser``; None when there is nothing to emit yet. A call
        start without an id gets ``new_id()`` (``Format.parser``). TypeError for a non-str."""
    def finish_message(self) -> Any:
        """``finish``, as ``feed_message`` builds it."""
    @property
    def sent_calls(self) -> Optional[List[Tuple[str, str]]]:
        """With ``Format.parser(record=True)``: ``(name, arguments)`` of each call sent so far,
        its arguments as streamed; None without."""
    @property
    def sent_count(self) -> int:
        """With ``record=True``: how many calls were sent so far (without copying them); 0."""
    @property
    def malformed(self) -> bool:
        """The tool markup seen so far was malformed."""
    @property
    def truncated(self) -> bool:
        """The text ended inside a call (known after finish())."""
    @property
    def dropped_calls(self) -> List[int]:
        """The indices of the streamed calls dropped after their start was sent, so far."""
    @property
    def unfinished_call(self) -> Optional[int]:
        """After finish(): the index of the streamed call the text ended inside, if any."""
    @property
    def open_call(self) -> Optional[int]:
        """The call whose start was emitted and whose end was not (yet), at any time."""
    @property
    def machine_from(self) -> Optional[int]:
        """Where the tool machine's raw text starts, in characters of the text fed (0 without a
        think-block front); None while the think block is open, known at the latest after
        finish()."""
    @property
    def format(self) -> str: ...

@final
class Format(_Setup):
    """A format with a request's tools, converted once; every stream reuses it."""

    def parser(
        self,
        new_id: Optional[Callable[[], str]] = None,
        models: Optional[DeltaModels] = None,
        record: bool = False,
    ) -> Parser:
        """A new streaming parser for one response; ``new_id()`` makes the id of a call whose
        format gives none (for ``feed_message`` / ``finish_message``); ``models``: the classes
        those build (default: the facade's); ``record``: keep ``sent_calls``."""
    def extract(self, text: str) -> _Extracted:
        """Non-streaming: (content, reasoning, [(id, name, arguments)], malformed, truncated)."""
    @property
    def name(self) -> Optional[str]: ...

def extract(
    format: Optional[str],
    text: str,
    tools: Optional[_ToolTypes] = None,
    reasoning: Optional[str] = None,
    reasoning_started: Optional[bool] = None,
    schemas: Optional[_Schemas] = None,
) -> _Extracted:
    """Non-streaming: (content, reasoning, [(id, name, arguments)], malformed, truncated)."""

def replay(
    format: Optional[str],
    chunks: List[str],
    tools: Optional[_ToolTypes] = None,
    reasoning: Optional[str] = None,
    reasoning_started: Optional[bool] = None,
    schemas: Optional[_Schemas] = None,
) -> _Extracted:
    """Streams ``chunks`` one delta at a time; returns what a client would have reconstructed,
    in the shape of ``extract``."""

@final
class DeltaModels:
    """A server's delta classes and their layout, for ``Format.parser(models=...)``: its streams
    build those classes' instances without validation. ``"toolparse"`` / ``"vllm"``:
    DeltaMessage, DeltaToolCall, DeltaFunctionCall; ``"sglang"``: StreamingParseResult,
    ToolCallItem and no function class (every feed then gives a result, an empty one when there
    is nothing new). ValueError for another layout or a function class where it takes none."""

    def __new__(
        cls, message: type, call: type, function: Optional[type], layout: str
    ) -> DeltaModels: ...

def set_models(
    message: type[DeltaMessage], call: type[DeltaToolCall], function: type[DeltaFunctionCall]
) -> None:
    """The facade's delta model classes, handed over once (at import); again with the same
    classes is a no-op, with others a RuntimeError."""

def list_formats() -> List[str]: ...
def list_reasoning_formats() -> List[str]: ...
def is_json(text: str) -> bool: ...
def register_format(
    spec: Dict[str, Any], reasoning: Optional[Dict[str, Any]] = None, replace: bool = False
) -> str: ...
