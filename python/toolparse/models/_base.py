"""Shared pieces of the models: type aliases, ids, the fast-constructor helpers, validators."""

from __future__ import annotations

import inspect
import json
import uuid
from typing import (
    TYPE_CHECKING,
    Any,
    Literal,
    TypeVar,
)

from pydantic import (
    BaseModel,
    Field,
    ValidationInfo,
)

if TYPE_CHECKING:  # the SDKs are optional (extras "openai", "anthropic"): for annotations only
    pass


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


# --------------------------------------------------------------------------------------------------
# The SDK conversions. toolparse.sdk builds the models, so the models do not import it: the models'
# to_openai/from_openai/... methods call the converters that module registers here when it is
# imported (toolparse's package imports it, so it is there before any model is used).
# --------------------------------------------------------------------------------------------------
_sdk_converters: Any = None


def _register_sdk(converters: Any) -> None:
    """Called once by toolparse.sdk at import with its module (the converters' namespace)."""
    global _sdk_converters
    _sdk_converters = converters


def _sdk() -> Any:
    """toolparse.sdk's converters (see ``_register_sdk``)."""
    if _sdk_converters is None:  # pragma: no cover - toolparse's package imports toolparse.sdk
        raise ImportError("the SDK conversions need toolparse.sdk imported: import toolparse.sdk")
    return _sdk_converters


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
