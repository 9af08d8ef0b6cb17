"""Tool calls: :class:`FunctionCall` and :class:`ToolCall`."""

from __future__ import annotations

import json
from typing import (
    TYPE_CHECKING,
    Any,
    Literal,
    Mapping,
    Optional,
    Type,
    Union,
    overload,
)

from pydantic import (
    BaseModel,
    Field,
    ValidationInfo,
    field_validator,
)

if TYPE_CHECKING:  # the SDKs are optional (extras "openai", "anthropic"): for annotations only
    from anthropic.types import ToolUseBlock, ToolUseBlockParam
    from openai.types.chat import (
        ChatCompletionMessageToolCall,
        ChatCompletionMessageToolCallParam,
    )

from ._base import (
    _STRICT_JSON,
    _Blank,
    _check_json_text,
    _check_name,
    _is_trusted,
    _ModelT,
    _new,
    _sdk,
    generate_tool_call_id,
)

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
        return _sdk().tool_call_to_openai(self, param)

    @classmethod
    def from_openai(cls, obj: Any) -> ToolCall:
        """From an OpenAI function tool call (SDK model or dict). A custom tool call or arguments
        that are not a JSON object raise ``ValueError`` naming the field."""
        return _sdk().tool_call_from_openai(obj)

    @overload
    def to_anthropic(self, param: Literal[False] = False) -> ToolUseBlock: ...
    @overload
    def to_anthropic(self, param: Literal[True]) -> ToolUseBlockParam: ...
    def to_anthropic(self, param: bool = False) -> Union[ToolUseBlock, ToolUseBlockParam]:
        """The Anthropic SDK's ``ToolUseBlock`` (``input`` = the arguments as a dict); with
        ``param=True`` the ``ToolUseBlockParam`` dict. ``ValueError`` when the arguments are
        not a JSON object."""
        return _sdk().tool_call_to_anthropic(self, param)

    @classmethod
    def from_anthropic(cls, obj: Any) -> ToolCall:
        """From a ``tool_use`` block (SDK model or dict); the arguments are
        ``json.dumps(input, ensure_ascii=False)``."""
        return _sdk().tool_call_from_anthropic(obj)

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
