"""Chat messages: :class:`Message`, with optional response metadata."""

from __future__ import annotations

from typing import (
    TYPE_CHECKING,
    Any,
    Dict,
    List,
    Literal,
    Optional,
    Union,
    cast,
    overload,
)

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    ValidationError,
    model_validator,
)

if TYPE_CHECKING:  # the SDKs are optional (extras "openai", "anthropic"): for annotations only
    from anthropic.types import MessageParam
    from openai.types.chat import (
        ChatCompletionMessage,
        ChatCompletionMessageParam,
    )

from ._base import (
    FinishReason,
    Role,
    _sdk,
    _set_dict,
    _set_fields_set,
)
from .calls import ToolCall

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
        return _sdk().message_to_openai(self, param)

    @classmethod
    def from_openai(cls, obj: Any) -> Message:
        """From a ``ChatCompletionMessage`` or a ``ChatCompletionMessageParam`` dict (developer
        messages become system messages; content parts must be text)."""
        return _sdk().message_from_openai(obj)

    def to_anthropic(self) -> MessageParam:
        """The Anthropic SDK's ``MessageParam`` dict: tool calls become ``tool_use`` blocks,
        a tool message a user message with one ``tool_result`` block."""
        return cast("MessageParam", _sdk().message_to_anthropic(self))

    @classmethod
    def from_anthropic(cls, obj: Any) -> Message:
        """From an Anthropic ``Message`` response or a ``MessageParam`` dict that gives one
        message (see :meth:`list_from_anthropic` for a user message with several tool results)."""
        return _sdk().message_from_anthropic(obj)

    @classmethod
    def list_from_anthropic(cls, obj: Any) -> List[Message]:
        """Every Message one Anthropic message gives: one tool message per ``tool_result``
        block, then a user message for its text, if any."""
        return _sdk().messages_from_anthropic(obj)
