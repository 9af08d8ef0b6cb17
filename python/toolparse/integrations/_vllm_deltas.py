"""vLLM's delta objects built from toolparse's core deltas, without validation (a validated
DeltaMessage with one tool-call fragment costs ~5 us). Imports nothing from vLLM: the parsers'
base class binds vLLM's classes (:func:`bind_classes`) when it is made."""

from __future__ import annotations

from typing import Any, Dict, List, Optional

from toolparse.integrations._twin import ServerModels

# --------------------------------------------------------------------------------------------------
# vLLM's delta objects, built without validation from data toolparse's core made (a validated
# DeltaMessage with one tool-call fragment costs ~5 us). The fields set are exactly the ones given,
# because vLLM dumps with exclude_unset=True: a field missing from the set is silently dropped.
# On the Rust backend the core builds the streamed ones the same way (`SERVER_MODELS`, checked
# equal by tests/integrations/test_vllm.py); these serve the Python backend and the rarer paths.
# --------------------------------------------------------------------------------------------------
_object_new = object.__new__
_setattr = object.__setattr__
_VLLM_CLASSES: Dict[str, Any] = {}
# vLLM's DeltaMessage, DeltaToolCall, DeltaFunctionCall (bound by bind_classes)
_VllmDeltaMessage: Any = None
_VllmDeltaToolCall: Any = None
_VllmDeltaFunctionCall: Any = None


def bind_classes(message: type, tool_call: type, function_call: type) -> None:
    """Binds vLLM's delta classes (imported by the parsers' base class, once vLLM is present)."""
    global _VllmDeltaMessage, _VllmDeltaToolCall, _VllmDeltaFunctionCall
    _VLLM_CLASSES.update(
        DeltaMessage=message,
        DeltaToolCall=tool_call,
        DeltaFunctionCall=function_call,
    )
    _VllmDeltaMessage, _VllmDeltaToolCall, _VllmDeltaFunctionCall = (
        message,
        tool_call,
        function_call,
    )


def delta_message(content: Optional[str], reasoning: Optional[str], calls: List[Any]) -> Any:
    cls = _VLLM_CLASSES["DeltaMessage"]
    obj = _object_new(cls)
    _setattr(
        obj,
        "__dict__",
        {"role": None, "content": content, "reasoning": reasoning, "tool_calls": calls},
    )
    fields = set()
    if content is not None:
        fields.add("content")
    if reasoning is not None:
        fields.add("reasoning")
    if calls:
        fields.add("tool_calls")
    _setattr(obj, "__pydantic_fields_set__", fields)
    _setattr(obj, "__pydantic_extra__", {})
    _setattr(obj, "__pydantic_private__", None)
    return obj


def delta_call(index: int, id: Optional[str], name: Optional[str], args: Optional[str]) -> Any:
    fn = _object_new(_VLLM_CLASSES["DeltaFunctionCall"])
    if name is None:
        _setattr(fn, "__dict__", {"name": None, "arguments": args})
        _setattr(fn, "__pydantic_fields_set__", {"arguments"})
    else:
        _setattr(fn, "__dict__", {"name": name, "arguments": args})
        _setattr(
            fn, "__pydantic_fields_set__", {"name", "arguments"} if args is not None else {"name"}
        )
    _setattr(fn, "__pydantic_extra__", None)
    _setattr(fn, "__pydantic_private__", None)
    call = _object_new(_VLLM_CLASSES["DeltaToolCall"])
    if name is None:
        _setattr(call, "__dict__", {"id": None, "type": None, "index": index, "function": fn})
        _setattr(call, "__pydantic_fields_set__", {"index", "function"})
    else:
        _setattr(call, "__dict__", {"id": id, "type": "function", "index": index, "function": fn})
        _setattr(call, "__pydantic_fields_set__", {"id", "type", "index", "function"})
    _setattr(call, "__pydantic_extra__", {})
    _setattr(call, "__pydantic_private__", None)
    return call


def args_message(index: int, args: str) -> Any:
    """``delta_message(None, None, [delta_call(index, None, None, args)])`` in one call: the
    hottest delta (an arguments fragment of a started call)."""
    fn = _object_new(_VllmDeltaFunctionCall)
    _setattr(fn, "__dict__", {"name": None, "arguments": args})
    _setattr(fn, "__pydantic_fields_set__", {"arguments"})
    _setattr(fn, "__pydantic_extra__", None)
    _setattr(fn, "__pydantic_private__", None)
    call = _object_new(_VllmDeltaToolCall)
    _setattr(call, "__dict__", {"id": None, "type": None, "index": index, "function": fn})
    _setattr(call, "__pydantic_fields_set__", {"index", "function"})
    _setattr(call, "__pydantic_extra__", {})
    _setattr(call, "__pydantic_private__", None)
    obj = _object_new(_VllmDeltaMessage)
    _setattr(
        obj, "__dict__", {"role": None, "content": None, "reasoning": None, "tool_calls": [call]}
    )
    _setattr(obj, "__pydantic_fields_set__", {"tool_calls"})
    _setattr(obj, "__pydantic_extra__", {})
    _setattr(obj, "__pydantic_private__", None)
    return obj


def vllm_delta(d: Any, new_id: Any) -> Any:
    """vLLM's delta for a core delta ``(content, reasoning, calls)``; ``new_id()`` for a call start
    without an id. What the Rust core's ``feed_message`` builds with ``SERVER_MODELS``."""
    content, reasoning, calls = d
    if calls is None:
        return delta_message(content, reasoning, [])
    if len(calls) == 1 and content is None and reasoning is None and calls[0][2] is None:
        return args_message(calls[0][0], calls[0][3])
    out = []
    for index, id, name, args in calls:
        if name is not None and id is None:
            id = new_id()
        out.append(delta_call(index, id if name is not None else None, name, args))
    return delta_message(content, reasoning, out)


# vLLM's objects from a stream: the Rust core builds them (layout "vllm"), the twin's path above
SERVER_MODELS = ServerModels(
    lambda: (_VllmDeltaMessage, _VllmDeltaToolCall, _VllmDeltaFunctionCall),
    "vllm",
    lambda d, new_id: None if d is None else vllm_delta(d, new_id),
)
stream_core = SERVER_MODELS.stream_core
