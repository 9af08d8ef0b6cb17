"""Pydantic v2 models for toolparse, in the OpenAI wire format.

``model_dump(exclude_none=True)`` (and ``model_dump_json(exclude_none=True)``) of every model gives
exactly what the OpenAI API sends and accepts::

    >>> Message.assistant("Test").model_dump_json(exclude_none=True)
    '{"role":"assistant","content":"Test"}'

Groups of models:

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
per-field Python loop (see ``_Blank`` below for how). The result compares equal to the validated
instance, has the same ``repr``, dumps the same (``exclude_unset`` included: the fields set holds
exactly the arguments given as non-None) and supports ``model_copy``, ``copy`` and ``pickle``.
Callers must pass values of the declared types; nothing is checked.

Looking up an attribute on a pydantic model class is slow (~0.1 us: pydantic's metaclass defines
``__getattr__``, which keeps CPython from specialising the lookup), so hot loops should bind the
constructors once at import time (``_dm_fast = DeltaMessage._fast``) rather than writing
``DeltaMessage._fast(...)`` per delta.
"""

from __future__ import annotations

import inspect
import json
import uuid
from typing import (
    TYPE_CHECKING,
    Annotated,
    Any,
    Dict,
    List,
    Literal,
    Mapping,
    Optional,
    Type,
    TypeVar,
    Union,
    cast,
    overload,
)

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    SerializationInfo,
    SerializerFunctionWrapHandler,
    TypeAdapter,
    ValidationError,
    ValidationInfo,
    field_validator,
    model_serializer,
    model_validator,
)
from pydantic_core import to_jsonable_python

if TYPE_CHECKING:  # the SDKs are optional (extras "openai", "anthropic"): for annotations only
    from anthropic.types import MessageParam, ToolParam, ToolUseBlock, ToolUseBlockParam
    from openai.types.chat import (
        ChatCompletionMessage,
        ChatCompletionMessageParam,
        ChatCompletionMessageToolCall,
        ChatCompletionMessageToolCallParam,
        ChatCompletionToolParam,
    )
    from openai.types.chat.chat_completion_chunk import ChoiceDelta, ChoiceDeltaToolCall

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

_ModelT = TypeVar("_ModelT", bound=BaseModel)

Role = Literal["system", "user", "assistant", "tool"]
FinishReason = Literal["stop", "length", "tool_calls", "content_filter", "function_call"]

TOOL_CALL_ID_PREFIX = "chatcmpl-tool-"

# --------------------------------------------------------------------------------------------------
# Fast constructors (see the module docstring).
#
# A pydantic instance needs its field values in ``__dict__`` and three more slots filled:
# ``__pydantic_fields_set__``, ``__pydantic_extra__`` and ``__pydantic_private__``. Models define
# ``__setattr__`` in Python, so ``obj.attr = v`` is slow on them, and ``object.__setattr__`` or the
# slot descriptors cost a C call each. Instead the fast constructors allocate a ``_Blank`` (a
# field-less BaseModel subclass with the same memory layout as every model here, whose
# ``__setattr__``/``__delattr__`` are object's), store the field values and the three slots with
# plain attribute stores (CPython 3.11+ specialises them to direct writes), then give the object
# its real class with ``obj.__class__ = cls`` (allowed because the layouts match; CPython then
# turns the stored values into the instance ``__dict__``). The result is an ordinary instance of
# ``cls``: ``type(obj) is cls``, it compares equal to a validated instance, has the same repr,
# dumps, copies and pickles like one. It costs about half of ``object.__setattr__`` x 4.
# --------------------------------------------------------------------------------------------------
_new = object.__new__
_set_dict = BaseModel.__dict__["__dict__"].__set__
_set_fields_set = BaseModel.__dict__["__pydantic_fields_set__"].__set__


class _Blank(BaseModel):
    """Allocation helper of the fast constructors; never escapes this module."""

    __setattr__ = object.__setattr__  # type: ignore[assignment]
    __delattr__ = object.__delattr__  # type: ignore[assignment]


def generate_tool_call_id() -> str:
    """A new random tool call id in vLLM's format: ``chatcmpl-tool-`` + 32 hex characters."""
    return TOOL_CALL_ID_PREFIX + uuid.uuid4().hex


# ``Field(exclude_if=...)`` exists from pydantic 2.11; older versions use a wrap serializer.
_HAS_EXCLUDE_IF = "exclude_if" in inspect.signature(Field).parameters


def _is_empty(value: Any) -> bool:
    return not value


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not valid JSON")


# A strict decoder: NaN / Infinity / -Infinity are not JSON (json.loads accepts them by default).
_STRICT_JSON = json.JSONDecoder(parse_constant=_reject_constant)


def _check_json_text(value: str) -> None:
    try:
        _STRICT_JSON.decode(value)
    except ValueError as exc:  # json.JSONDecodeError is a ValueError
        raise ValueError(f"arguments must be JSON text (or an empty string): {exc}") from None


def _check_name(value: str, what: str) -> str:
    if not value.strip():
        raise ValueError(f"{what} must be a non-empty string (got {value!r})")
    return value


def _is_trusted(info: ValidationInfo) -> bool:
    context = info.context
    return context is not None and bool(context.get("trusted"))


# ==================================================================================================
# Tool calls
# ==================================================================================================


class FunctionCall(BaseModel):
    """The function a model called: its name and its arguments as JSON text.

    ``arguments`` must be JSON text or ``""`` (some parsers report a call without arguments as
    ``""``). The JSON check is skipped when validating with ``context={"trusted": True}`` (for
    producers that already know the text is JSON, e.g. toolparse's own parsers).
    """

    name: str
    arguments: str

    @field_validator("name")
    @classmethod
    def _name_not_empty(cls, value: str) -> str:
        return _check_name(value, "function name")

    @field_validator("arguments")
    @classmethod
    def _arguments_are_json(cls, value: str, info: ValidationInfo) -> str:
        if value and not _is_trusted(info):
            _check_json_text(value)
        return value

    def parse_arguments(self, model: Optional[Type[_ModelT]] = None) -> Any:
        """The arguments as a dict (``""`` gives ``{}``), or validated into ``model``.

        Raises ``ValueError`` when the arguments are not JSON or not a JSON object, and
        ``pydantic.ValidationError`` when they do not fit ``model``.
        """
        text = self.arguments
        if text == "":
            obj: Any = {}
        else:
            try:
                obj = _STRICT_JSON.decode(text)
            except ValueError as exc:
                raise ValueError(
                    f"arguments of function {self.name!r} are not valid JSON: {exc}"
                ) from None
            if not isinstance(obj, dict):
                raise ValueError(
                    f"arguments of function {self.name!r} must be a JSON object, "
                    f"got {type(obj).__name__}"
                )
        if model is None:
            return obj
        return model.model_validate(obj)

    @classmethod
    def _fast(cls, name: str, arguments: str) -> FunctionCall:
        """Build without validation (trusted data only; see the module docstring)."""
        obj: Any = _new(_Blank)
        obj.name = name
        obj.arguments = arguments
        obj.__pydantic_fields_set__ = {"name", "arguments"}
        obj.__pydantic_extra__ = None
        obj.__pydantic_private__ = None
        obj.__class__ = cls
        return obj  # type: ignore[no-any-return]


class ToolCall(BaseModel):
    """A tool call in the OpenAI format.

    ``model_dump(exclude_none=True)`` gives
    ``{"id": ..., "type": "function", "function": {"name": ..., "arguments": ...}}``.
    """

    id: str = Field(min_length=1)
    type: Literal["function"] = "function"
    function: FunctionCall

    @classmethod
    def create(
        cls,
        name: str,
        arguments: Union[str, Mapping[str, Any]] = "{}",
        id: Optional[str] = None,
    ) -> ToolCall:
        """Build a validated tool call.

        A mapping of arguments is serialised with ``json.dumps(..., ensure_ascii=False)``; a missing
        ``id`` is generated as ``chatcmpl-tool-`` + 32 hex characters.
        """
        trusted = False
        if not isinstance(arguments, str):
            # allow_nan=False: NaN/Infinity are not JSON; json.dumps raises ValueError for them
            arguments = json.dumps(dict(arguments), ensure_ascii=False, allow_nan=False)
            trusted = True
        return cls.model_validate(
            {
                "id": generate_tool_call_id() if id is None else id,
                "type": "function",
                "function": {"name": name, "arguments": arguments},
            },
            context={"trusted": trusted},
        )

    @property
    def name(self) -> str:
        """Shortcut for ``self.function.name``."""
        return self.function.name

    @property
    def arguments(self) -> str:
        """Shortcut for ``self.function.arguments``."""
        return self.function.arguments

    def parse_arguments(self, model: Optional[Type[_ModelT]] = None) -> Any:
        """Shortcut for ``self.function.parse_arguments(model)``."""
        return self.function.parse_arguments(model)

    # ---- SDK conversions (toolparse.sdk; the SDKs are the extras "openai" / "anthropic") ----

    @overload
    def to_openai(self, param: Literal[False] = False) -> ChatCompletionMessageToolCall: ...
    @overload
    def to_openai(self, param: Literal[True]) -> ChatCompletionMessageToolCallParam: ...
    def to_openai(
        self, param: bool = False
    ) -> Union[ChatCompletionMessageToolCall, ChatCompletionMessageToolCallParam]:
        """The OpenAI SDK's ``ChatCompletionMessageFunctionToolCall``; with ``param=True`` the
        request dict ``{"id", "type": "function", "function": {"name", "arguments"}}``."""
        from . import sdk

        return sdk.tool_call_to_openai(self, param)

    @classmethod
    def from_openai(cls, obj: Any) -> ToolCall:
        """From an OpenAI function tool call (SDK model or dict). A custom tool call or arguments
        that are not a JSON object raise ``ValueError`` naming the field."""
        from . import sdk

        return sdk.tool_call_from_openai(obj)

    @overload
    def to_anthropic(self, param: Literal[False] = False) -> ToolUseBlock: ...
    @overload
    def to_anthropic(self, param: Literal[True]) -> ToolUseBlockParam: ...
    def to_anthropic(self, param: bool = False) -> Union[ToolUseBlock, ToolUseBlockParam]:
        """The Anthropic SDK's ``ToolUseBlock`` (``input`` = the arguments as a dict); with
        ``param=True`` the ``ToolUseBlockParam`` dict. ``ValueError`` when the arguments are
        not a JSON object."""
        from . import sdk

        return sdk.tool_call_to_anthropic(self, param)

    @classmethod
    def from_anthropic(cls, obj: Any) -> ToolCall:
        """From a ``tool_use`` block (SDK model or dict); the arguments are
        ``json.dumps(input, ensure_ascii=False)``."""
        from . import sdk

        return sdk.tool_call_from_anthropic(obj)

    @classmethod
    def _fast(cls, id: str, function: FunctionCall) -> ToolCall:
        """Build without validation (trusted data only; see the module docstring)."""
        obj: Any = _new(_Blank)
        obj.id = id
        obj.type = "function"
        obj.function = function
        obj.__pydantic_fields_set__ = {"id", "function"}
        obj.__pydantic_extra__ = None
        obj.__pydantic_private__ = None
        obj.__class__ = cls
        return obj  # type: ignore[no-any-return]


# ==================================================================================================
# Tool definitions (JSON Schema parameters)
# ==================================================================================================


def _restore_none_extras(
    model: BaseModel, out: Dict[str, Any], info: SerializationInfo
) -> Dict[str, Any]:
    """Put back extra keys whose value is ``None`` that ``exclude_none`` dropped.

    In a JSON Schema, ``"default": null`` or ``"const": null`` mean something, so a schema must
    survive ``model_dump(exclude_none=True)`` unchanged.
    """
    extra = model.__pydantic_extra__
    if extra and info.exclude_none:
        exclude = info.exclude
        for key, value in extra.items():
            if value is None and key not in out and not (exclude and key in exclude):
                out[key] = None
    return out


class ToolProperty(BaseModel):
    """One JSON Schema node of a tool's parameters.

    The common keywords are typed; every other keyword (``$ref``, ``anyOf``, ``default``,
    ``minimum``, ``additionalProperties``...) is kept as-is (``extra="allow"``), so a schema
    round-trips through ``model_dump(exclude_none=True)`` unchanged.
    """

    model_config = ConfigDict(extra="allow")

    type: Optional[Union[str, List[str]]] = None
    description: Optional[str] = None
    enum: Optional[List[Any]] = None
    items: Optional[Union[ToolProperty, List[ToolProperty], bool]] = None
    properties: Optional[Dict[str, ToolProperty]] = None
    required: Optional[List[str]] = None

    @model_serializer(mode="wrap")
    def _serialize(  # no return annotation: it would replace the serialization JSON schema
        self, handler: SerializerFunctionWrapHandler, info: SerializationInfo
    ):
        return _restore_none_extras(self, handler(self), info)


class ToolParameters(BaseModel):
    """The ``parameters`` JSON Schema of a function tool (always ``"type": "object"``).

    ``properties`` and ``required`` read as ``{}`` / ``[]`` when absent, but are only dumped when
    they were given, so ``{"type": "object"}`` round-trips unchanged. Other keywords
    (``additionalProperties``, ``$defs``...) are kept as-is.
    """

    model_config = ConfigDict(extra="allow")

    type: Literal["object"] = "object"
    properties: Dict[str, ToolProperty] = Field(default_factory=dict)
    required: List[str] = Field(default_factory=list)

    @model_serializer(mode="wrap")
    def _serialize(  # no return annotation: it would replace the serialization JSON schema
        self, handler: SerializerFunctionWrapHandler, info: SerializationInfo
    ):
        out = handler(self)
        fields_set = self.__pydantic_fields_set__
        if "properties" not in fields_set:
            out.pop("properties", None)
        if "required" not in fields_set:
            out.pop("required", None)
        return _restore_none_extras(self, out, info)


class ToolFunction(BaseModel):
    """The ``function`` part of a tool definition."""

    name: str
    description: Optional[str] = None
    parameters: Optional[ToolParameters] = None
    strict: Optional[bool] = None

    @field_validator("name")
    @classmethod
    def _name_not_empty(cls, value: str) -> str:
        return _check_name(value, "tool name")


class Tool(BaseModel):
    """A function tool definition, as in an OpenAI request's ``tools`` list.

    ``Tool.model_validate({"type": "function", "function": {...}})`` accepts the OpenAI dict.
    """

    type: Literal["function"] = "function"
    function: ToolFunction

    @classmethod
    def from_function(
        cls,
        name: str,
        description: Optional[str] = None,
        parameters: Optional[Mapping[str, Any]] = None,
        strict: Optional[bool] = None,
    ) -> Tool:
        """Build a tool from a name, a description and a JSON Schema dict of parameters."""
        function: Dict[str, Any] = {"name": name}
        if description is not None:
            function["description"] = description
        if parameters is not None:
            function["parameters"] = parameters
        if strict is not None:
            function["strict"] = strict
        return cls.model_validate({"type": "function", "function": function})

    @property
    def name(self) -> str:
        """Shortcut for ``self.function.name``."""
        return self.function.name

    # ---- SDK conversions (toolparse.sdk) ----

    def to_openai(self) -> ChatCompletionToolParam:
        """The OpenAI SDK's ``ChatCompletionToolParam`` (a dict)."""
        from . import sdk

        return cast("ChatCompletionToolParam", sdk.tool_to_openai(self))

    @classmethod
    def from_openai(cls, obj: Any) -> Tool:
        """From a ``ChatCompletionToolParam`` dict or a ``ChatCompletionFunctionTool``."""
        from . import sdk

        return sdk.tool_from_openai(obj)

    def to_anthropic(self) -> ToolParam:
        """The Anthropic SDK's ``ToolParam`` (a dict: ``name``, ``description``,
        ``input_schema``, ``strict``)."""
        from . import sdk

        return cast("ToolParam", sdk.tool_to_anthropic(self))

    @classmethod
    def from_anthropic(cls, obj: Any) -> Tool:
        """From a ``ToolParam`` dict; server tools raise ``ValueError`` naming ``type``."""
        from . import sdk

        return sdk.tool_from_anthropic(obj)


# ==================================================================================================
# Tool results
# ==================================================================================================


class ToolError(BaseModel):
    """Why a tool failed: a machine-readable ``code`` and a human-readable ``message``."""

    code: str
    message: str
    details: Optional[Dict[str, Any]] = None

    @field_validator("code")
    @classmethod
    def _code_not_empty(cls, value: str) -> str:
        return _check_name(value, "error code")


class ToolResult(BaseModel):
    """The outcome of running a tool: a success or a failure, never both.

    * success: ``error`` is ``None``; ``output`` (text) and/or ``data`` (any JSON-able value) carry
      the result. A success with neither is allowed (a tool that returns nothing).
    * failure: ``error`` is set, and ``output`` and ``data`` are both ``None``.

    A result with ``error`` and ``output``/``data`` together raises ``ValidationError``.
    ``duration_ms`` and ``retries`` are optional execution metadata.
    """

    output: Optional[str] = None
    data: Any = None
    error: Optional[ToolError] = None
    tool_call_id: Optional[str] = None
    duration_ms: Optional[float] = Field(default=None, ge=0)
    retries: int = Field(default=0, ge=0)

    @model_validator(mode="after")
    def _success_xor_error(self) -> ToolResult:
        if self.error is not None and (self.output is not None or self.data is not None):
            raise ValueError(
                "a ToolResult is either a success (output/data) or a failure (error), never both"
            )
        return self

    @property
    def is_success(self) -> bool:
        """True when the tool succeeded (no error)."""
        return self.error is None

    @property
    def ok(self) -> bool:
        """Alias of :attr:`is_success`."""
        return self.error is None

    @classmethod
    def success(cls, output: Optional[str] = None, data: Any = None, **meta: Any) -> ToolResult:
        """A successful result; ``meta`` may hold ``tool_call_id``, ``duration_ms``, ``retries``."""
        return cls(output=output, data=data, **meta)

    @classmethod
    def failure(
        cls,
        code: str,
        message: str,
        details: Optional[Dict[str, Any]] = None,
        **meta: Any,
    ) -> ToolResult:
        """A failed result; ``meta`` may hold ``tool_call_id``, ``duration_ms``, ``retries``."""
        return cls(error=ToolError(code=code, message=message, details=details), **meta)

    def content_text(self) -> str:
        """The text a tool message carries for this result.

        ``output`` if set; else ``data`` as JSON; else, for a failure,
        ``{"error": {"code": ..., "message": ..., "details": ...}}``; else ``""``.
        """
        if self.error is not None:
            return json.dumps(
                {"error": self.error.model_dump(mode="json", exclude_none=True)},
                ensure_ascii=False,
            )
        if self.output is not None:
            return self.output
        if self.data is not None:
            return json.dumps(self.data, ensure_ascii=False, default=to_jsonable_python)
        return ""

    def to_message(self, tool_call_id: Optional[str] = None, name: Optional[str] = None) -> Message:
        """A ``tool`` :class:`Message` answering ``tool_call_id`` (default: the result's own)."""
        call_id = self.tool_call_id if tool_call_id is None else tool_call_id
        if call_id is None:
            raise ValueError("to_message needs a tool_call_id (none given and none on the result)")
        return Message.tool_result(call_id, self.content_text(), name=name)


# ==================================================================================================
# Messages
# ==================================================================================================


class Message(BaseModel):
    """A chat message in the OpenAI format, with optional response metadata.

    The role is fixed once constructed (assigning ``role`` raises ``ValidationError``); other
    fields may be assigned and are validated (a failed assignment leaves the message unchanged).

    Rules (``ValidationError`` otherwise):

    * ``system``/``user``/``tool`` messages have ``content`` (a string, possibly empty);
    * an ``assistant`` message has ``content`` or ``tool_calls`` (or both);
    * ``tool_calls`` appear only on ``assistant`` messages and are never an empty list;
    * a ``tool`` message has a non-empty ``tool_call_id``; other roles have none.

    The metadata fields (``finish_reason``, ``model``, ``created``, token counts, sampling
    settings) are not part of OpenAI's message object; they are ``None`` by default and so absent
    from ``model_dump(exclude_none=True)``.
    """

    model_config = ConfigDict(validate_assignment=True)

    role: Role = Field(frozen=True)
    content: Optional[str] = None
    tool_calls: Optional[List[ToolCall]] = None
    tool_call_id: Optional[str] = None
    name: Optional[str] = None

    # ---- response metadata ----
    finish_reason: Optional[FinishReason] = None
    model: Optional[str] = None
    created: Optional[int] = Field(default=None, ge=0)
    prompt_tokens: Optional[int] = Field(default=None, ge=0)
    completion_tokens: Optional[int] = Field(default=None, ge=0)
    total_tokens: Optional[int] = Field(default=None, ge=0)
    # ---- sampling settings ----
    temperature: Optional[float] = Field(default=None, ge=0, le=2)
    top_p: Optional[float] = Field(default=None, ge=0, le=1)
    max_tokens: Optional[int] = Field(default=None, ge=0)
    seed: Optional[int] = None
    stream: Optional[bool] = None
    logprobs: Optional[int] = Field(default=None, ge=0)
    response_format_type: Optional[str] = None

    @model_validator(mode="after")
    def _check_role_rules(self) -> Message:
        role = self.role
        if self.tool_calls is not None:
            if role != "assistant":
                raise ValueError(f"tool_calls are only allowed on assistant messages, not {role}")
            if not self.tool_calls:
                raise ValueError("tool_calls must not be an empty list (omit it instead)")
        if role == "tool":
            if not self.tool_call_id:
                raise ValueError("a tool message needs a non-empty tool_call_id")
        elif self.tool_call_id is not None:
            raise ValueError(f"tool_call_id is only allowed on tool messages, not {role}")
        if self.content is None:
            if role != "assistant":
                raise ValueError(f"a {role} message needs content")
            if self.tool_calls is None:
                raise ValueError("an assistant message needs content or tool_calls")
        return self

    def __setattr__(self, name: str, value: Any) -> None:
        # pydantic runs the after-validator once the new value is already stored; undo the
        # assignment when it fails so a message never stays invalid.
        if name in Message.model_fields:
            saved_dict = dict(self.__dict__)
            saved_set = set(self.__pydantic_fields_set__)
            try:
                super().__setattr__(name, value)
            except ValidationError:
                _set_dict(self, saved_dict)
                _set_fields_set(self, saved_set)
                raise
        else:
            super().__setattr__(name, value)

    @classmethod
    def system(cls, text: str) -> Message:
        return cls(role="system", content=text)

    @classmethod
    def user(cls, text: str) -> Message:
        return cls(role="user", content=text)

    @classmethod
    def assistant(cls, text: str) -> Message:
        return cls(role="assistant", content=text)

    @classmethod
    def assistant_with_tools(
        cls,
        tool_calls: List[Union[ToolCall, Dict[str, Any]]],
        content: Optional[str] = None,
    ) -> Message:
        return cls(role="assistant", content=content, tool_calls=tool_calls)  # type: ignore[arg-type]

    @classmethod
    def tool_result(cls, tool_call_id: str, content: str, name: Optional[str] = None) -> Message:
        return cls(role="tool", content=content, tool_call_id=tool_call_id, name=name)

    # ---- SDK conversions (toolparse.sdk) ----

    @overload
    def to_openai(
        self, param: Literal[False] = False
    ) -> Union[ChatCompletionMessage, ChatCompletionMessageParam]: ...
    @overload
    def to_openai(self, param: Literal[True]) -> ChatCompletionMessageParam: ...
    def to_openai(
        self, param: bool = False
    ) -> Union[ChatCompletionMessage, ChatCompletionMessageParam]:
        """An assistant message as the OpenAI SDK's ``ChatCompletionMessage``; other roles, or
        any role with ``param=True``, as the ``ChatCompletionMessageParam`` dict of a request.
        The response metadata is left out (not part of OpenAI's message)."""
        from . import sdk

        return sdk.message_to_openai(self, param)

    @classmethod
    def from_openai(cls, obj: Any) -> Message:
        """From a ``ChatCompletionMessage`` or a ``ChatCompletionMessageParam`` dict (developer
        messages become system messages; content parts must be text)."""
        from . import sdk

        return sdk.message_from_openai(obj)

    def to_anthropic(self) -> MessageParam:
        """The Anthropic SDK's ``MessageParam`` dict: tool calls become ``tool_use`` blocks,
        a tool message a user message with one ``tool_result`` block."""
        from . import sdk

        return cast("MessageParam", sdk.message_to_anthropic(self))

    @classmethod
    def from_anthropic(cls, obj: Any) -> Message:
        """From an Anthropic ``Message`` response or a ``MessageParam`` dict that gives one
        message (see :meth:`list_from_anthropic` for a user message with several tool results)."""
        from . import sdk

        return sdk.message_from_anthropic(obj)

    @classmethod
    def list_from_anthropic(cls, obj: Any) -> List[Message]:
        """Every Message one Anthropic message gives: one tool message per ``tool_result``
        block, then a user message for its text, if any."""
        from . import sdk

        return sdk.messages_from_anthropic(obj)


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
        from . import sdk

        return sdk.delta_tool_call_to_openai(self)

    @classmethod
    def from_openai(cls, obj: Any) -> DeltaToolCall:
        """From a ``ChoiceDeltaToolCall`` (or its dict)."""
        from . import sdk

        return sdk.delta_tool_call_from_openai(obj)


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
        from . import sdk

        return sdk.delta_to_openai(self)

    @classmethod
    def from_openai(cls, obj: Any) -> DeltaMessage:
        """From a ``ChoiceDelta`` (or its dict); reasoning from its ``reasoning`` or
        ``reasoning_content`` extra field."""
        from . import sdk

        return sdk.delta_from_openai(obj)


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
