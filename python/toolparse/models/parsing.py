"""Parser results (vLLM-compatible names): :class:`ExtractedToolCallInformation`,
:class:`DeltaMessage`, :class:`DeltaToolCall`, :class:`DeltaFunctionCall`."""

from __future__ import annotations

from typing import (
    TYPE_CHECKING,
    Any,
    List,
    Literal,
    Optional,
)

from pydantic import (
    BaseModel,
    Field,
    SerializerFunctionWrapHandler,
    model_serializer,
    model_validator,
)

if TYPE_CHECKING:  # the SDKs are optional (extras "openai", "anthropic"): for annotations only
    from openai.types.chat.chat_completion_chunk import ChoiceDelta, ChoiceDeltaToolCall

from ._base import (
    _HAS_EXCLUDE_IF,
    _Blank,
    _is_empty,
    _new,
    _sdk,
)
from .calls import ToolCall

# ==================================================================================================
# Parser results (vLLM-compatible)
# ==================================================================================================


class ExtractedToolCallInformation(BaseModel):
    """The non-streaming result of a parser: ``tools_called == bool(tool_calls)`` always holds."""

    tools_called: bool
    tool_calls: List[ToolCall] = Field(default_factory=list)
    content: Optional[str] = None
    #: Reasoning text the format carries apart from content (harmony's analysis channel);
    #: None when there is none. An addition to vLLM's shape, omitted from the dump when None.
    reasoning: Optional[str] = None
    #: The output ended inside a call (max_tokens): the calls completed before it are kept, the
    #: unfinished one and its markup are not in the result. An addition to vLLM's shape.
    truncated: bool = False

    @model_validator(mode="after")
    def _tools_called_matches(self) -> ExtractedToolCallInformation:
        if self.tools_called != bool(self.tool_calls):
            raise ValueError(
                f"tools_called must be True exactly when tool_calls is non-empty "
                f"(tools_called={self.tools_called}, {len(self.tool_calls)} tool calls)"
            )
        return self


class DeltaFunctionCall(BaseModel):
    """The function part of a streamed tool call delta (name on the first delta only)."""

    name: Optional[str] = None
    arguments: Optional[str] = None

    @classmethod
    def _fast(
        cls, name: Optional[str] = None, arguments: Optional[str] = None
    ) -> DeltaFunctionCall:
        """Build without validation (trusted data only; see the module docstring)."""
        obj: Any = _new(_Blank)
        obj.name = name
        obj.arguments = arguments
        if name is None:
            obj.__pydantic_fields_set__ = {"arguments"} if arguments is not None else set()
        elif arguments is None:
            obj.__pydantic_fields_set__ = {"name"}
        else:
            obj.__pydantic_fields_set__ = {"name", "arguments"}
        obj.__pydantic_extra__ = None
        obj.__pydantic_private__ = None
        obj.__class__ = cls
        return obj  # type: ignore[no-any-return]


class DeltaToolCall(BaseModel):
    """One tool call fragment in a streamed delta.

    The first delta of a call carries ``index``, ``id``, ``type="function"`` and the full
    ``function.name``; later ones carry ``index`` and an ``arguments`` fragment.
    """

    index: int = Field(ge=0)
    id: Optional[str] = None
    type: Optional[Literal["function"]] = None
    function: Optional[DeltaFunctionCall] = None

    @classmethod
    def _fast(
        cls,
        index: int,
        id: Optional[str] = None,
        type: Optional[str] = None,
        function: Optional[DeltaFunctionCall] = None,
    ) -> DeltaToolCall:
        """Build without validation (trusted data only; see the module docstring)."""
        obj: Any = _new(_Blank)
        obj.index = index
        obj.id = id
        obj.type = type
        obj.function = function
        if id is None and type is None:
            # the common case: an arguments fragment of a started call
            obj.__pydantic_fields_set__ = (
                {"index", "function"} if function is not None else {"index"}
            )
        else:
            fields_set = {"index"}
            if id is not None:
                fields_set.add("id")
            if type is not None:
                fields_set.add("type")
            if function is not None:
                fields_set.add("function")
            obj.__pydantic_fields_set__ = fields_set
        obj.__pydantic_extra__ = None
        obj.__pydantic_private__ = None
        obj.__class__ = cls
        return obj  # type: ignore[no-any-return]

    def to_openai(self) -> ChoiceDeltaToolCall:
        """The OpenAI SDK's ``ChoiceDeltaToolCall`` (toolparse.sdk; extra "openai")."""
        return _sdk().delta_tool_call_to_openai(self)

    @classmethod
    def from_openai(cls, obj: Any) -> DeltaToolCall:
        """From a ``ChoiceDeltaToolCall`` (or its dict)."""
        return _sdk().delta_tool_call_from_openai(obj)


class DeltaMessage(BaseModel):
    """A streamed delta: content, reasoning and/or tool call fragments.

    ``tool_calls`` defaults to an empty list and is left out of every dump while it is empty, so
    ``DeltaMessage(content="x").model_dump(exclude_none=True) == {"content": "x"}``.
    """

    role: Optional[str] = None
    content: Optional[str] = None
    reasoning: Optional[str] = None
    if _HAS_EXCLUDE_IF:  # pydantic >= 2.11: nearly free
        tool_calls: List[DeltaToolCall] = Field(default_factory=list, exclude_if=_is_empty)
    else:  # older pydantic: a wrap serializer (~0.6-1 us per dump)
        tool_calls: List[DeltaToolCall] = Field(default_factory=list)  # type: ignore[no-redef]

        @model_serializer(mode="wrap")
        def _serialize(self, handler: SerializerFunctionWrapHandler):  # no return annotation
            out = handler(self)
            if not self.tool_calls:
                out.pop("tool_calls", None)
            return out

    @classmethod
    def _fast(
        cls,
        content: Optional[str] = None,
        reasoning: Optional[str] = None,
        tool_calls: Optional[List[DeltaToolCall]] = None,
    ) -> DeltaMessage:
        """Build without validation (trusted data only; see the module docstring).

        An empty ``tool_calls`` list counts as not given (it is not in the fields set).
        """
        obj: Any = _new(_Blank)
        if not tool_calls:  # None or [] (the facade passes [] for "no tool calls"): not set
            if tool_calls is None:
                tool_calls = []
            if reasoning is None:
                fields_set = {"content"} if content is not None else set()
            elif content is None:
                fields_set = {"reasoning"}
            else:
                fields_set = {"content", "reasoning"}
        elif content is None and reasoning is None:
            fields_set = {"tool_calls"}
        else:
            fields_set = {"tool_calls"}
            if content is not None:
                fields_set.add("content")
            if reasoning is not None:
                fields_set.add("reasoning")
        obj.role = None
        obj.content = content
        obj.reasoning = reasoning
        obj.tool_calls = tool_calls
        obj.__pydantic_fields_set__ = fields_set
        obj.__pydantic_extra__ = None
        obj.__pydantic_private__ = None
        obj.__class__ = cls
        return obj  # type: ignore[no-any-return]

    @classmethod
    def _fast_tool_args(cls, index: int, arguments: str) -> DeltaMessage:
        """``_fast`` for the hottest delta: one arguments fragment of a started call.

        Same result as ``DeltaMessage._fast(None, None, [DeltaToolCall._fast(index, None, None,
        DeltaFunctionCall._fast(None, arguments))])`` with two Python calls fewer.
        """
        function: Any = _new(_Blank)
        function.name = None
        function.arguments = arguments
        function.__pydantic_fields_set__ = {"arguments"}
        function.__pydantic_extra__ = None
        function.__pydantic_private__ = None
        function.__class__ = DeltaFunctionCall
        call: Any = _new(_Blank)
        call.index = index
        call.id = None
        call.type = None
        call.function = function
        call.__pydantic_fields_set__ = {"index", "function"}
        call.__pydantic_extra__ = None
        call.__pydantic_private__ = None
        call.__class__ = DeltaToolCall
        obj: Any = _new(_Blank)
        obj.role = None
        obj.content = None
        obj.reasoning = None
        obj.tool_calls = [call]
        obj.__pydantic_fields_set__ = {"tool_calls"}
        obj.__pydantic_extra__ = None
        obj.__pydantic_private__ = None
        obj.__class__ = cls
        return obj  # type: ignore[no-any-return]

    def to_openai(self) -> ChoiceDelta:
        """The OpenAI SDK's ``ChoiceDelta`` (a streaming chunk's delta); ``reasoning`` goes in
        its extra field ``reasoning`` (toolparse.sdk; extra "openai")."""
        return _sdk().delta_to_openai(self)

    @classmethod
    def from_openai(cls, obj: Any) -> DeltaMessage:
        """From a ``ChoiceDelta`` (or its dict); reasoning from its ``reasoning`` or
        ``reasoning_content`` extra field."""
        return _sdk().delta_from_openai(obj)
