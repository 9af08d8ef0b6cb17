"""Conversions between toolparse's models and the OpenAI and Anthropic Python SDKs' types.

The models' methods call these functions (``ToolCall.to_openai()``, ``Message.from_anthropic(obj)``
...); the SDKs are optional dependencies, imported here only when a conversion needs one, with an
``ImportError`` naming the extra to install (``pip install 'toolparse[openai]'`` or
``'toolparse[anthropic]'``) when it is missing.

What converts to what::

    toolparse       OpenAI (to_openai / from_openai)            Anthropic (to_anthropic / ...)
    ToolCall        ChatCompletionMessageFunctionToolCall       ToolUseBlock
                    (param=True: the ...ToolCallParam dict)     (param=True: ToolUseBlockParam)
    Tool            ChatCompletionToolParam (a TypedDict)       ToolParam (a TypedDict)
    Message         ChatCompletionMessage (assistant); the      MessageParam (a TypedDict); a tool
                    ChatCompletionMessageParam dict for other   message is a user message with one
                    roles, or for every role with param=True    tool_result block
    DeltaMessage    ChoiceDelta (a streaming chunk's delta)     -
    DeltaToolCall   ChoiceDeltaToolCall                         -

``from_*`` accept the SDK's model objects, the SDK's request dicts (TypedDicts) and plain dicts of
the same shape (e.g. decoded JSON). Arguments: OpenAI carries them as JSON text, like toolparse;
Anthropic's ``input`` is an object, converted with ``json.loads`` / ``json.dumps(...,
ensure_ascii=False)``. Input that does not fit (a missing or mistyped field, arguments that are not
a JSON object, a custom or server tool, an image part) raises ``ValueError`` naming the field, such
as ``tool_call.function.arguments`` or ``message.content[1].type``; an object that is neither a
mapping nor a pydantic model raises ``TypeError``.
"""

from __future__ import annotations

import json
import sys
from typing import Any, Dict, List, Mapping, Tuple

from .models import (
    DeltaFunctionCall,
    DeltaMessage,
    DeltaToolCall,
    FunctionCall,
    Message,
    Tool,
    ToolCall,
)
from .models._base import _STRICT_JSON, _register_sdk

__all__ = [
    "delta_from_openai",
    "delta_to_openai",
    "delta_tool_call_from_openai",
    "delta_tool_call_to_openai",
    "message_from_anthropic",
    "message_from_openai",
    "message_to_anthropic",
    "message_to_openai",
    "messages_from_anthropic",
    "tool_call_from_anthropic",
    "tool_call_from_openai",
    "tool_call_to_anthropic",
    "tool_call_to_openai",
    "tool_from_anthropic",
    "tool_from_openai",
    "tool_to_anthropic",
    "tool_to_openai",
]


# --------------------------------------------------------------------------------------------------
# SDK imports (lazy) and input helpers
# --------------------------------------------------------------------------------------------------


def _openai_chat() -> Any:
    try:
        import openai.types.chat as chat
    except ImportError:
        raise ImportError(
            "this conversion needs the OpenAI SDK: pip install 'toolparse[openai]'"
        ) from None
    return chat


def _openai_chunk() -> Any:
    _openai_chat()  # the ImportError naming the extra
    from openai.types.chat import chat_completion_chunk

    return chat_completion_chunk


def _anthropic_types() -> Any:
    try:
        import anthropic.types as types
    except ImportError:
        raise ImportError(
            "this conversion needs the Anthropic SDK: pip install 'toolparse[anthropic]'"
        ) from None
    return types


def _as_dict(obj: Any, where: str) -> Dict[str, Any]:
    """A mapping or a pydantic model (the SDKs' types) as a dict; TypeError otherwise."""
    if isinstance(obj, Mapping):
        return dict(obj)
    dump = getattr(obj, "model_dump", None)
    if callable(dump):
        out = dump()
        if isinstance(out, dict):
            return out
    raise TypeError(f"{where} must be a mapping or an SDK model object, not {type(obj).__name__}")


def _sub_dict(obj: Any, where: str) -> Dict[str, Any]:
    """A nested object: like ``_as_dict`` but a ValueError naming the field."""
    try:
        return _as_dict(obj, where)
    except TypeError:
        raise ValueError(f"{where} must be an object, not {type(obj).__name__}") from None


_TYPE_NAMES = {str: "a string", int: "an integer", bool: "a boolean", list: "a list"}


def _get(d: Mapping[str, Any], key: str, kind: type, where: str, required: bool = True) -> Any:
    """``d[key]`` checked to be a ``kind``; a missing key (or None) is an error when required."""
    value = d.get(key)
    if value is None:
        if required:
            raise ValueError(f"{where}.{key} is missing")
        return None
    if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
        raise ValueError(
            f"{where}.{key} must be {_TYPE_NAMES.get(kind, kind.__name__)}, "
            f"not {type(value).__name__}"
        )
    return value


def _arguments_object(text: str, where: str) -> Dict[str, Any]:
    """JSON text of arguments as a dict (``""`` is ``{}``); ValueError naming ``where``."""
    if text == "":
        return {}
    try:
        obj = _STRICT_JSON.decode(text)
    except ValueError as exc:
        raise ValueError(f"{where} is not valid JSON: {exc}") from None
    if not isinstance(obj, dict):
        raise ValueError(f"{where} must be a JSON object, not a JSON {_json_kind(obj)}")
    return obj


def _json_kind(obj: Any) -> str:
    if isinstance(obj, list):
        return "array"
    if isinstance(obj, str):
        return "string"
    if isinstance(obj, bool):
        return "boolean"
    if obj is None:
        return "null"
    return "number"


def _json_text(obj: Dict[str, Any], where: str) -> str:
    try:
        return json.dumps(obj, ensure_ascii=False, allow_nan=False)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"{where} is not JSON-serialisable: {exc}") from None


def _text_parts(content: Any, where: str, text_types: Tuple[str, ...] = ("text",)) -> str:
    """A content list of text parts/blocks joined; ValueError naming the first other part."""
    parts = []
    for i, part in enumerate(content):
        p = _sub_dict(part, f"{where}[{i}]")
        kind = p.get("type")
        if kind not in text_types:
            raise ValueError(
                f"{where}[{i}].type: only text converts, not {kind!r}"
                if kind is not None
                else f"{where}[{i}].type is missing"
            )
        parts.append(_get(p, "text" if kind != "refusal" else "refusal", str, f"{where}[{i}]"))
    return "".join(parts)


def _model_kwargs(msg: Message) -> Dict[str, Any]:
    """The OpenAI message fields of a Message (no response metadata)."""
    out: Dict[str, Any] = {"role": msg.role, "content": msg.content}
    if msg.tool_calls is not None:
        out["tool_calls"] = [tool_call_to_openai(tc, param=True) for tc in msg.tool_calls]
    if msg.tool_call_id is not None:
        out["tool_call_id"] = msg.tool_call_id
    if msg.name is not None and msg.role != "tool":
        out["name"] = msg.name
    return out


# --------------------------------------------------------------------------------------------------
# OpenAI
# --------------------------------------------------------------------------------------------------


def tool_call_to_openai(tc: ToolCall, param: bool = False) -> Any:
    """A ``ChatCompletionMessageFunctionToolCall`` (``ChatCompletionMessageToolCall`` in SDKs
    before the custom-tool union), or with ``param=True`` the request dict
    ``{"id", "type": "function", "function": {"name", "arguments"}}``."""
    data = {
        "id": tc.id,
        "type": "function",
        "function": {"name": tc.function.name, "arguments": tc.function.arguments},
    }
    if param:
        return data
    chat = _openai_chat()
    cls = getattr(chat, "ChatCompletionMessageFunctionToolCall", None)
    if cls is None:  # pragma: no cover - SDKs older than the custom-tool union
        cls = chat.ChatCompletionMessageToolCall
    return cls.model_validate(data)


def tool_call_from_openai(obj: Any, where: str = "tool_call") -> ToolCall:
    """A ToolCall from an OpenAI function tool call (model or dict). A custom tool call
    (``type="custom"``, free-form input) has no function arguments: ValueError naming ``type``."""
    d = _as_dict(obj, where)
    kind = d.get("type")
    if kind not in (None, "function"):
        raise ValueError(f"{where}.type: only function tool calls convert, not {kind!r}")
    id = _get(d, "id", str, where)
    if not id:
        raise ValueError(f"{where}.id must be a non-empty string")
    fn = _sub_dict(_get(d, "function", object, where), f"{where}.function")
    name = _get(fn, "name", str, f"{where}.function")
    if not name.strip():
        raise ValueError(f"{where}.function.name must be a non-empty string")
    arguments = _get(fn, "arguments", str, f"{where}.function", required=False) or ""
    _arguments_object(arguments, f"{where}.function.arguments")
    return ToolCall(id=id, type="function", function=FunctionCall._fast(name, arguments))


def tool_to_openai(tool: Tool) -> Dict[str, Any]:
    """The ``ChatCompletionToolParam`` dict: ``{"type": "function", "function": {...}}``."""
    return tool.model_dump(exclude_none=True)


def tool_from_openai(obj: Any, where: str = "tool") -> Tool:
    """A Tool from a ``ChatCompletionToolParam`` dict or a ``ChatCompletionFunctionTool``."""
    d = _as_dict(obj, where)
    kind = d.get("type")
    if kind not in (None, "function"):
        raise ValueError(f"{where}.type: only function tools convert, not {kind!r}")
    fn = _sub_dict(_get(d, "function", object, where), f"{where}.function")
    name = _get(fn, "name", str, f"{where}.function")
    description = _get(fn, "description", str, f"{where}.function", required=False)
    parameters = _get(fn, "parameters", Mapping, f"{where}.function", required=False)
    strict = _get(fn, "strict", bool, f"{where}.function", required=False)
    return Tool.from_function(name, description, parameters, strict)


def message_to_openai(msg: Message, param: bool = False) -> Any:
    """An assistant message as a ``ChatCompletionMessage`` (the response type); a system, user
    or tool message, or any message with ``param=True``, as the ``ChatCompletionMessageParam``
    dict a request takes (``role``, ``content``, ``tool_calls``, ``tool_call_id``, ``name``).
    The response metadata (finish reason, token counts ...) is not part of OpenAI's message."""
    data = _model_kwargs(msg)
    if param or msg.role != "assistant":
        if data["content"] is None:
            del data["content"]
        return data
    data.pop("name", None)  # ChatCompletionMessage has no name
    return _openai_chat().ChatCompletionMessage.model_validate(data)


_OPENAI_ROLES = {"system": "system", "developer": "system", "user": "user"}


def message_from_openai(obj: Any, where: str = "message") -> Message:
    """A Message from a ``ChatCompletionMessage`` or a ``ChatCompletionMessageParam`` dict.

    A ``developer`` message becomes a system message; a content list must hold text parts only
    (joined); an assistant message's ``refusal`` is its content when it has none. Function-role
    messages and the legacy ``function_call`` are not converted."""
    d = _as_dict(obj, where)
    role = _get(d, "role", str, where)
    if role in _OPENAI_ROLES:
        role = _OPENAI_ROLES[role]
    elif role not in ("assistant", "tool"):
        raise ValueError(f"{where}.role: {role!r} does not convert (system, user, assistant, tool)")
    content = d.get("content")
    if isinstance(content, list):
        text_types = ("text", "refusal") if role == "assistant" else ("text",)
        content = _text_parts(content, f"{where}.content", text_types)
    elif content is not None and not isinstance(content, str):
        raise ValueError(
            f"{where}.content must be a string or a list of text parts, "
            f"not {type(content).__name__}"
        )
    refusal = d.get("refusal")
    if content is None and isinstance(refusal, str) and role == "assistant":
        content = refusal
    fields: Dict[str, Any] = {"role": role, "content": content}
    raw_calls = d.get("tool_calls")
    if raw_calls is not None:
        if not isinstance(raw_calls, (list, tuple)):
            raise ValueError(f"{where}.tool_calls must be a list, not {type(raw_calls).__name__}")
        if raw_calls:  # the SDK's [] means none
            fields["tool_calls"] = [
                tool_call_from_openai(tc, f"{where}.tool_calls[{i}]")
                for i, tc in enumerate(raw_calls)
            ]
    if role == "tool":
        fields["tool_call_id"] = _get(d, "tool_call_id", str, where)
    name = _get(d, "name", str, where, required=False)
    if name is not None:
        fields["name"] = name
    return Message(**fields)


def delta_tool_call_to_openai(call: DeltaToolCall) -> Any:
    """A ``ChoiceDeltaToolCall`` (a streaming chunk's tool call fragment)."""
    data: Dict[str, Any] = {"index": call.index}
    if call.id is not None:
        data["id"] = call.id
    if call.type is not None:
        data["type"] = call.type
    if call.function is not None:
        data["function"] = call.function.model_dump(exclude_none=True)
    return _openai_chunk().ChoiceDeltaToolCall.model_validate(data)


def delta_tool_call_from_openai(obj: Any, where: str = "tool_call") -> DeltaToolCall:
    """A DeltaToolCall from a ``ChoiceDeltaToolCall`` (or its dict)."""
    d = _as_dict(obj, where)
    index = _get(d, "index", int, where)
    if index < 0:
        raise ValueError(f"{where}.index must be >= 0, not {index}")
    id = _get(d, "id", str, where, required=False)
    kind = d.get("type")
    if kind not in (None, "function"):
        raise ValueError(f"{where}.type: only function tool calls convert, not {kind!r}")
    fn = d.get("function")
    function = None
    if fn is not None:
        f = _sub_dict(fn, f"{where}.function")
        function = DeltaFunctionCall._fast(
            _get(f, "name", str, f"{where}.function", required=False),
            _get(f, "arguments", str, f"{where}.function", required=False),
        )
    return DeltaToolCall._fast(index, id, kind, function)


def delta_to_openai(delta: DeltaMessage) -> Any:
    """A ``ChoiceDelta``. ``reasoning`` is not an SDK field: it is set as the extra field
    ``reasoning`` (vLLM's name), which ``ChoiceDelta`` keeps."""
    chunk = _openai_chunk()
    data: Dict[str, Any] = {}
    if delta.role is not None:
        data["role"] = delta.role
    if delta.content is not None:
        data["content"] = delta.content
    if delta.tool_calls:
        data["tool_calls"] = [delta_tool_call_to_openai(c) for c in delta.tool_calls]
    if delta.reasoning is not None:
        data["reasoning"] = delta.reasoning
    return chunk.ChoiceDelta.model_validate(data)


def delta_from_openai(obj: Any, where: str = "delta") -> DeltaMessage:
    """A DeltaMessage from a ``ChoiceDelta`` (or its dict); the reasoning comes from the extra
    field ``reasoning`` or ``reasoning_content`` (vLLM's and DeepSeek's names)."""
    d = _as_dict(obj, where)
    role = _get(d, "role", str, where, required=False)
    content = _get(d, "content", str, where, required=False)
    reasoning = _get(d, "reasoning", str, where, required=False)
    if reasoning is None:
        reasoning = _get(d, "reasoning_content", str, where, required=False)
    raw_calls = _get(d, "tool_calls", list, where, required=False) or []
    fields: Dict[str, Any] = {}
    if role is not None:
        fields["role"] = role
    if content is not None:
        fields["content"] = content
    if reasoning is not None:
        fields["reasoning"] = reasoning
    if raw_calls:
        fields["tool_calls"] = [
            delta_tool_call_from_openai(c, f"{where}.tool_calls[{i}]")
            for i, c in enumerate(raw_calls)
        ]
    return DeltaMessage(**fields)


# --------------------------------------------------------------------------------------------------
# Anthropic
# --------------------------------------------------------------------------------------------------


def tool_call_to_anthropic(tc: ToolCall, param: bool = False) -> Any:
    """A ``ToolUseBlock`` (``input`` = the arguments as a dict), or with ``param=True`` the
    ``ToolUseBlockParam`` dict. Arguments that are not a JSON object raise ValueError."""
    data = {
        "type": "tool_use",
        "id": tc.id,
        "name": tc.function.name,
        "input": _arguments_object(tc.function.arguments, "tool_call.function.arguments"),
    }
    if param:
        return data
    return _anthropic_types().ToolUseBlock.model_validate(data)


def tool_call_from_anthropic(obj: Any, where: str = "tool_use") -> ToolCall:
    """A ToolCall from a ``tool_use`` block (``ToolUseBlock`` or its dict): ``input`` becomes
    the arguments as ``json.dumps(input, ensure_ascii=False)``."""
    d = _as_dict(obj, where)
    kind = d.get("type")
    if kind != "tool_use":
        raise ValueError(f"{where}.type: only tool_use blocks convert, not {kind!r}")
    id = _get(d, "id", str, where)
    if not id:
        raise ValueError(f"{where}.id must be a non-empty string")
    name = _get(d, "name", str, where)
    if not name.strip():
        raise ValueError(f"{where}.name must be a non-empty string")
    raw = d.get("input")
    if raw is None:
        raw = {}
    if not isinstance(raw, Mapping):
        raise ValueError(f"{where}.input must be an object, not {type(raw).__name__}")
    arguments = _json_text(dict(raw), f"{where}.input")
    return ToolCall(id=id, type="function", function=FunctionCall._fast(name, arguments))


def tool_to_anthropic(tool: Tool) -> Dict[str, Any]:
    """The ``ToolParam`` dict: ``name``, ``description``, ``input_schema`` (the parameters
    schema; ``{"type": "object"}`` when the tool has none) and ``strict`` when set."""
    fn = tool.function
    out: Dict[str, Any] = {"name": fn.name}
    if fn.description is not None:
        out["description"] = fn.description
    if fn.parameters is not None:
        out["input_schema"] = fn.parameters.model_dump(exclude_none=True)
    else:
        out["input_schema"] = {"type": "object"}
    if fn.strict is not None:
        out["strict"] = fn.strict
    return out


def tool_from_anthropic(obj: Any, where: str = "tool") -> Tool:
    """A Tool from a ``ToolParam`` dict (or a model of that shape). Server tools (a ``type``
    other than ``custom``, e.g. ``bash_20250124``) do not convert."""
    d = _as_dict(obj, where)
    kind = d.get("type")
    if kind not in (None, "custom"):
        raise ValueError(f"{where}.type: only custom (client) tools convert, not {kind!r}")
    name = _get(d, "name", str, where)
    description = _get(d, "description", str, where, required=False)
    schema = _sub_dict(_get(d, "input_schema", object, where), f"{where}.input_schema")
    strict = _get(d, "strict", bool, where, required=False)
    return Tool.from_function(name, description, schema, strict)


def message_to_anthropic(msg: Message) -> Dict[str, Any]:
    """The ``MessageParam`` dict. A user message keeps its text as ``content``; an assistant
    message with tool calls has a text block (when it has content) then one ``tool_use`` block
    per call; a tool message is a user message with one ``tool_result`` block. A system message
    gives ``{"role": "system", ...}`` with SDKs that have ``SystemMessageParam``; older ones
    take the system prompt as ``system=`` only: ValueError naming ``role``."""
    role = msg.role
    if role == "tool":
        block: Dict[str, Any] = {
            "type": "tool_result",
            "tool_use_id": msg.tool_call_id,
            "content": msg.content or "",
        }
        return {"role": "user", "content": [block]}
    if role == "system" and not hasattr(_anthropic_types(), "SystemMessageParam"):
        raise ValueError(
            "message.role: this Anthropic SDK has no system messages; pass the text as system="
        )
    if not msg.tool_calls:
        return {"role": role, "content": msg.content or ""}
    blocks: List[Dict[str, Any]] = []
    if msg.content:
        blocks.append({"type": "text", "text": msg.content})
    blocks.extend(tool_call_to_anthropic(tc, param=True) for tc in msg.tool_calls)
    return {"role": role, "content": blocks}


_STOP_REASONS = {
    "end_turn": "stop",
    "stop_sequence": "stop",
    "tool_use": "tool_calls",
    "max_tokens": "length",
    "model_context_window_exceeded": "length",
    "refusal": "content_filter",
}
# Blocks that carry no text of the answer and no client tool call: left out.
_SKIPPED_BLOCKS = ("thinking", "redacted_thinking")


def messages_from_anthropic(obj: Any, where: str = "message") -> List[Message]:
    """The Messages one Anthropic message gives: a ``Message`` response object or a
    ``MessageParam`` dict. A user message holding ``tool_result`` blocks gives one tool message
    per block (``is_error`` is not kept), then a user message for its text blocks if any. Text
    blocks are joined; thinking blocks are left out; other blocks (images, documents, server
    tools) raise ValueError naming the block. A response's ``stop_reason``, ``model`` and
    ``usage`` fill ``finish_reason``, ``model`` and the token counts."""
    d = _as_dict(obj, where)
    role = _get(d, "role", str, where)
    if role not in ("user", "assistant", "system"):
        raise ValueError(f"{where}.role: {role!r} does not convert (user, assistant, system)")
    content = d.get("content")
    meta = _response_metadata(d, where)
    if isinstance(content, str):
        return [Message(role=role, content=content, **meta)]  # type: ignore[arg-type]
    if not isinstance(content, (list, tuple)):
        raise ValueError(
            f"{where}.content must be a string or a list of blocks, not {type(content).__name__}"
        )
    texts: List[str] = []
    calls: List[ToolCall] = []
    results: List[Message] = []
    for i, raw in enumerate(content):
        at = f"{where}.content[{i}]"
        block = _sub_dict(raw, at)
        kind = block.get("type")
        if kind == "text":
            texts.append(_get(block, "text", str, at))
        elif kind == "tool_use" and role == "assistant":
            calls.append(tool_call_from_anthropic(block, at))
        elif kind == "tool_result" and role == "user":
            results.append(_tool_result_message(block, at))
        elif kind in _SKIPPED_BLOCKS:
            continue
        else:
            raise ValueError(f"{at}.type: {kind!r} blocks do not convert in a {role} message")
    text = "".join(texts) if texts else None
    if results:
        if text is not None:
            results.append(Message(role="user", content=text))
        return results
    if calls:
        return [Message(role="assistant", content=text, tool_calls=calls, **meta)]
    return [Message(role=role, content=text if text is not None else "", **meta)]  # type: ignore[arg-type]


def message_from_anthropic(obj: Any, where: str = "message") -> Message:
    """The one Message an Anthropic message gives (see ``messages_from_anthropic``); a user
    message that gives several (several tool results, or results and text) raises ValueError:
    use ``Message.list_from_anthropic``."""
    out = messages_from_anthropic(obj, where)
    if len(out) != 1:
        raise ValueError(
            f"{where}.content: this Anthropic message gives {len(out)} messages "
            "(tool results and text); use Message.list_from_anthropic"
        )
    return out[0]


def _tool_result_message(block: Dict[str, Any], where: str) -> Message:
    tool_use_id = _get(block, "tool_use_id", str, where)
    content = block.get("content")
    if content is None:
        text = ""
    elif isinstance(content, str):
        text = content
    elif isinstance(content, (list, tuple)):
        text = _text_parts(content, f"{where}.content")
    else:
        raise ValueError(
            f"{where}.content must be a string or a list of text blocks, "
            f"not {type(content).__name__}"
        )
    return Message(role="tool", content=text, tool_call_id=tool_use_id)


def _response_metadata(d: Dict[str, Any], where: str) -> Dict[str, Any]:
    """finish_reason, model and token counts of an Anthropic ``Message`` response."""
    meta: Dict[str, Any] = {}
    stop = d.get("stop_reason")
    if isinstance(stop, str) and stop in _STOP_REASONS:
        meta["finish_reason"] = _STOP_REASONS[stop]
    model = d.get("model")
    if isinstance(model, str):
        meta["model"] = model
    usage = d.get("usage")
    if usage is not None:
        u = _sub_dict(usage, f"{where}.usage")
        prompt = _get(u, "input_tokens", int, f"{where}.usage", required=False)
        completion = _get(u, "output_tokens", int, f"{where}.usage", required=False)
        if prompt is not None:
            meta["prompt_tokens"] = prompt
        if completion is not None:
            meta["completion_tokens"] = completion
        if prompt is not None and completion is not None:
            meta["total_tokens"] = prompt + completion
    return meta


# The models' to_openai/from_openai/... methods call this module's converters through this hook
# (the models cannot import this module, which builds them).
_register_sdk(sys.modules[__name__])
