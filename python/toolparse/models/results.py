"""Tool execution results: :class:`ToolResult` and :class:`ToolError`."""

from __future__ import annotations

import json
from typing import (
    TYPE_CHECKING,
    Any,
    Dict,
    Optional,
)

from pydantic import (
    BaseModel,
    Field,
    field_validator,
    model_validator,
)
from pydantic_core import to_jsonable_python

if TYPE_CHECKING:  # the SDKs are optional (extras "openai", "anthropic"): for annotations only
    pass

from ._base import (
    _check_name,
)
from .messages import Message

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
