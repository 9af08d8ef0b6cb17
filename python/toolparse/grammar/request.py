"""What a structural-tag request asks for, validated where it enters: the function tools (name,
argument schema, whether the schema is enforced), the tool choice and the call count."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping, NamedTuple, Optional, Sequence, Tuple, Union

STRICT_LEVELS = ("auto", "function", "parameter")
CHOICES = ("auto", "required", "none")


class FunctionTool(NamedTuple):
    """One function the grammar lets the model call: ``schema`` is its argument schema when the
    arguments are held to it, ``True`` (any JSON object) when only the envelope is. (A named
    tuple: a tag for 100 tools makes 100 of them.)"""

    name: str
    schema: Union[Mapping[str, Any], bool]


@dataclass(frozen=True)
class Request:
    tools: Tuple[FunctionTool, ...]
    mode: str  # "auto" | "required" | "forced"
    single: bool  # parallel_tool_calls=False


def _tool_fields(tool: Any, k: int) -> Optional[Tuple[str, Any, Any]]:
    """(name, parameters, strict) of a function tool, None for a tool of another kind."""
    if tool.__class__ is not dict and hasattr(tool, "model_dump"):
        tool = tool.model_dump(exclude_none=True)
    if not isinstance(tool, dict):
        raise ValueError(
            f"tools[{k}]: expected a tool dict or a toolparse Tool, got {type(tool).__name__}"
        )
    if tool.get("type", "function") != "function":
        return None  # custom and built-in tools are left unconstrained
    fn = tool.get("function")
    if isinstance(fn, dict):  # chat completions shape
        name, params, strict = fn.get("name"), fn.get("parameters"), fn.get("strict")
        if strict is None:
            strict = tool.get("strict")
    else:  # Responses shape
        name, params, strict = tool.get("name"), tool.get("parameters"), tool.get("strict")
    if not isinstance(name, str) or not name:
        raise ValueError(f"tools[{k}]: a function tool needs a non-empty 'name'")
    if params is not None and not isinstance(params, dict):
        raise ValueError(f"tools[{k}] ({name}): 'parameters' must be a JSON Schema object")
    return name, params, strict


def _named(tool_choice: Mapping[str, Any]) -> str:
    if tool_choice.get("type") != "function":
        raise ValueError(f"tool_choice: unknown type {tool_choice.get('type')!r}")
    fn = tool_choice.get("function")
    name = fn.get("name") if isinstance(fn, dict) else tool_choice.get("name")
    if not isinstance(name, str) or not name:
        raise ValueError("tool_choice: a named tool choice needs the function's name")
    return name


def resolve(
    tools: Optional[Sequence[Any]],
    tool_choice: Any,
    strict: str,
    parallel_tool_calls: bool,
) -> Optional[Request]:
    """The request, or None when there is nothing to constrain (no tools, choice "none", or auto
    with strict "auto" and no strict tool)."""
    if strict not in STRICT_LEVELS:
        raise ValueError(f"strict: expected one of {', '.join(STRICT_LEVELS)}, got {strict!r}")
    if not isinstance(parallel_tool_calls, bool):
        raise ValueError("parallel_tool_calls: expected a bool")
    named: Optional[str] = None
    if tool_choice is None:
        tool_choice = "auto"
    if isinstance(tool_choice, str):
        if tool_choice not in CHOICES:
            raise ValueError(
                f"tool_choice: expected one of {', '.join(CHOICES)} or a named function, "
                f"got {tool_choice!r}"
            )
    elif isinstance(tool_choice, dict):
        named = _named(tool_choice)
    elif hasattr(tool_choice, "model_dump"):
        named = _named(tool_choice.model_dump(exclude_none=True))
    else:
        raise ValueError(
            f"tool_choice: expected a string or a dict, got {type(tool_choice).__name__}"
        )
    if tools is not None and not isinstance(tools, (list, tuple)):
        raise ValueError("tools: expected a list of tools")
    fields = [f for k, t in enumerate(tools or ()) if (f := _tool_fields(t, k)) is not None]
    names = [f[0] for f in fields]
    if len(set(names)) != len(names):
        dup = sorted({n for n in names if names.count(n) > 1})
        raise ValueError(f"tools: function names given twice: {', '.join(dup)}")
    if named is not None and named not in names:
        raise ValueError(
            f"tool_choice: function {named!r} is not in tools ({', '.join(names) or 'none'})"
        )
    if tool_choice == "none" or not fields:
        return None
    mode = "forced" if named is not None else str(tool_choice)
    any_strict = any(s is True for _, _, s in fields)
    if mode == "auto" and strict == "auto" and not any_strict:
        return None
    chosen = [f for f in fields if named is None or f[0] == named]
    out = []
    for name, params, is_strict in chosen:
        enforce = strict == "parameter" or is_strict is True
        schema: Union[Mapping[str, Any], bool] = True
        if enforce and params is not None:
            schema = params
        out.append(FunctionTool(name, schema))
    return Request(tuple(out), mode, not parallel_tool_calls)
