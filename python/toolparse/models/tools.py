"""Tool definitions: :class:`Tool`, :class:`ToolFunction`, :class:`ToolParameters`,
:class:`ToolProperty` (parameters are a JSON Schema that round-trips unchanged)."""

from __future__ import annotations

from typing import (
    TYPE_CHECKING,
    Any,
    Dict,
    List,
    Literal,
    Mapping,
    Optional,
    Union,
    cast,
)

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    SerializationInfo,
    SerializerFunctionWrapHandler,
    field_validator,
    model_serializer,
)

if TYPE_CHECKING:  # the SDKs are optional (extras "openai", "anthropic"): for annotations only
    from anthropic.types import ToolParam
    from openai.types.chat import (
        ChatCompletionToolParam,
    )

from ._base import (
    _check_name,
    _sdk,
)

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
        return cast("ChatCompletionToolParam", _sdk().tool_to_openai(self))

    @classmethod
    def from_openai(cls, obj: Any) -> Tool:
        """From a ``ChatCompletionToolParam`` dict or a ``ChatCompletionFunctionTool``."""
        return _sdk().tool_from_openai(obj)

    def to_anthropic(self) -> ToolParam:
        """The Anthropic SDK's ``ToolParam`` (a dict: ``name``, ``description``,
        ``input_schema``, ``strict``)."""
        return cast("ToolParam", _sdk().tool_to_anthropic(self))

    @classmethod
    def from_anthropic(cls, obj: Any) -> Tool:
        """From a ``ToolParam`` dict; server tools raise ``ValueError`` naming ``type``."""
        return _sdk().tool_from_anthropic(obj)
