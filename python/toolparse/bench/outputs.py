"""The outputs ``toolparse bench`` times: one ``write_file`` call whose ``content`` argument is N
characters of source code, written in a format's wire text from the format's spec entry (its
family, call shape and markers), and the pseudo-token deltas it is streamed in.

Every parser of a run gets the same text split into the same deltas: about four characters each,
with every marker string of the format whole (as a tokenizer emits a special token).
"""

from __future__ import annotations

import json
import re
from functools import cache
from typing import Any, Dict, List, Optional, Tuple

from ..spec import FormatSpec, get_spec

__all__ = [
    "CALL_NAME",
    "DELTA_CHARS",
    "TOOLS",
    "arguments",
    "argument_text",
    "chunk",
    "markers",
    "model_output",
    "supported",
]

DELTA_CHARS = 4
CALL_NAME = "write_file"
PATH = "src/app/handlers.py"
TOOLS: List[Dict[str, Any]] = [
    {
        "type": "function",
        "function": {
            "name": CALL_NAME,
            "description": "Write a text file.",
            "parameters": {
                "type": "object",
                "properties": {"path": {"type": "string"}, "content": {"type": "string"}},
                "required": ["path", "content"],
            },
        },
    }
]

_BLOCK = """\
def handle_{i}(request, retries={r}):
    \"\"\"Route #{i}: parse the body, call the backend, render the reply.\"\"\"
    body = request.json() or {{}}
    if "id" not in body:
        return {{"error": "missing 'id'", "route": {i}}}
    for attempt in range(retries):
        try:
            reply = backend.call("items/{i}", body, timeout={t})
            return render("<li class=\\"item\\">%s</li>", reply)
        except TimeoutError:
            log.info("retry\\t%d of %d", attempt, retries)
    return None

"""


def argument_text(n_chars: int) -> str:
    """Deterministic ASCII source code of exactly ``n_chars`` characters, with the quotes,
    backslashes and newlines that JSON and Python literals escape."""
    parts: List[str] = []
    total = i = 0
    while total < n_chars:
        block = _BLOCK.format(i=i, r=2 + i % 3, t=5 + i % 7)
        parts.append(block)
        total += len(block)
        i += 1
    return "".join(parts)[:n_chars]


def arguments(n_chars: int) -> Dict[str, str]:
    """The call's arguments: a path and ``n_chars`` characters of content."""
    return {"path": PATH, "content": argument_text(n_chars)}


def _j(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)


def _tagged_json(s: FormatSpec, name: str, args: Dict[str, Any]) -> Optional[str]:
    call = s.raw.get("call", {})
    if call.get("shape") == "list_or_name_then_args":  # mistral v11+: NAME[ARGS]{...}
        return f"{s.markers['call_start']}{name}{s.markers['args_start']}{_j(args)}"
    obj: Dict[str, Any]
    if call.get("keyed_by_name"):  # apertus: {NAME: {...}}
        obj = {name: args}
    else:
        obj = {call["name_keys"][0]: name, call["args_keys"][0]: args}
    body = _j([obj]) if call.get("shape") == "array" else _j(obj)
    start, end = s.markers["call_start"], s.markers.get("call_end", "")
    if start == "[" and body.startswith("["):  # the call list is its own start (xlam)
        return body
    return f"{start}{body}{end}"


def _llama3_json(s: FormatSpec, name: str, args: Dict[str, Any]) -> Optional[str]:
    return f"{s.markers['call_start']}{_j({'name': name, 'parameters': args})}"


def _openai(s: FormatSpec, name: str, args: Dict[str, Any]) -> Optional[str]:
    m = s.markers
    prefix = s.raw.get("call", {}).get("name_prefix", "functions.")
    if "parameter_start" in m:
        # beam: reasoning, then a tool message holding XML parameters
        params = "".join(
            f"{m['parameter_start']}{k}{m['parameter_name_end']}\n{v}\n{m['parameter_end']}"
            for k, v in args.items()
        )
        return (
            f"{m['channel']}analysis{m['message']}Writing the file.{m['end']}{m['start']}"
            f"assistant to={prefix}{name}{m['channel']}analysis {m['constrain']}xml"
            f"{m['message']}{params}{m['call']}"
        )
    return (
        f"{m['channel']}commentary to={prefix}{name} {m['constrain']}json"
        f"{m['message']}{_j(args)}{m['call']}"
    )


def _pythonic(s: FormatSpec, name: str, args: Dict[str, Any]) -> Optional[str]:
    m = s.markers
    call = f"{name}({', '.join(f'{k}={v!r}' for k, v in args.items())})"
    if "list_start" in m or s.raw.get("calls") == "list":
        call = f"{m.get('list_start', '[')}{call}]"
    return f"{m.get('section_start', '')}{call}{m.get('section_end', '')}"


# Formats whose template writes a value inline, `<parameter name="K">V</parameter>`, though the
# parser strips one newline around it (MiniMax's tool-calling guide for M2/M2.5)
_INLINE_VALUES = frozenset({"minimax_m2"})


def _xml_params(s: FormatSpec, name: str, args: Dict[str, Any]) -> Optional[str]:
    m = s.markers
    nl = "\n" if s.raw.get("call", {}).get("value_newlines") == "strip_one" else ""
    vnl = "" if s.name in _INLINE_VALUES else nl
    value_start = m.get("parameter_string", m["parameter_name_end"]) + m.get("value_start", "")
    params = "".join(
        f"{m['parameter_start']}{k}{value_start}{vnl}{v}{vnl}{m['parameter_end']}\n"
        for k, v in args.items()
    )
    return (
        f"{m.get('call_start', '')}{nl}{m['function_start']}{name}{m['function_name_end']}"
        f"{m.get('function_attrs_end', '')}{nl}"
        f"{params}{m['function_end']}{m.get('item_end', '')}{nl}{m.get('call_end', '')}"
    )


def _named_json(s: FormatSpec, name: str, args: Dict[str, Any]) -> Optional[str]:
    m = s.markers
    shape = s.raw.get("call", {}).get("shape")
    if shape == "type_sep_name_fenced_args":
        call = f"function{m['name_start']}{name}{m['args_start']}\n{_j(args)}\n{m['args_end']}"
    elif shape == "name_sep_args":
        call = f"{name}{m['args_start']}{_j(args)}"
    elif shape == "id_sep_args":
        prefix = s.raw.get("call", {}).get("name_prefix", "")
        call = f"{prefix}{name}:0{m['args_start']}{_j(args)}"
    elif shape == "tagged_name_tagged_args":  # plamo3
        call = f"{m['name_start']}{name}{m['args_start']}{_j(args)}{m['args_end']}"
    else:
        return None
    return f"{m['section_start']}{m['call_start']}{call}{m['call_end']}{m['section_end']}"


def _functiongemma(s: FormatSpec, name: str, args: Dict[str, Any]) -> Optional[str]:
    m = s.markers
    esc = m["string"]
    body = ",".join(f"{k}:{esc}{v}{esc}" for k, v in args.items())
    return f"{m['call_start']}{m['name_start']}{name}{{{body}}}{m['call_end']}"


def _xml_elements(s: FormatSpec, name: str, args: Dict[str, Any]) -> Optional[str]:
    m = s.markers
    ns = m["namespace"]
    params = "".join(f"{ns}<{k}>{v}{ns}</{k}>\n" for k, v in args.items())
    return (
        f'{m["call_start"]}\n{m["invoke_start"]}"{name}">\n{params}{m["invoke_end"]}\n'
        f"{m['call_end']}"
    )


def _inkling(s: FormatSpec, name: str, args: Dict[str, Any]) -> Optional[str]:
    m = s.markers
    key = s.raw["call"]["args_keys"][0]
    return f"{name}{m['call_start']}{_j({'name': name, key: args})}{m['end']}"


def _muse(s: FormatSpec, name: str, args: Dict[str, Any]) -> Optional[str]:
    """A tool message holding the ATEM call (XML parameters)."""
    m = s.markers
    body = _xml_params(s, name, args)
    return f"{m['start']}assistant to=functions.{name}{m['message']}{body}{m['end']}"


_FAMILIES = {
    "tagged_json": _tagged_json,
    "llama3_json": _llama3_json,
    "openai": _openai,
    "pythonic": _pythonic,
    "xml_params": _xml_params,
    "named_json": _named_json,
    "functiongemma": _functiongemma,
    "xml_elements": _xml_elements,
    "inkling": _inkling,
    "muse": _muse,
}


def _render(format: str, name: str, args: Dict[str, Any]) -> Optional[str]:
    s = get_spec(format)
    family = _FAMILIES.get(s.family)
    if family is None:
        return None
    try:
        return family(s, name, args)
    except (KeyError, IndexError, TypeError):  # a spec entry of a shape this does not know
        return None


def supported(format: str) -> bool:
    """Whether the generator can write ``format`` (a format of a family or call shape it does not
    know is left out of the bench, not guessed)."""
    return _render(format, CALL_NAME, {"path": "a", "content": "b"}) is not None


def model_output(format: str, n_chars: int) -> str:
    """The wire text of one ``write_file`` call whose ``content`` is ``n_chars`` long."""
    text = _render(format, CALL_NAME, arguments(n_chars))
    if text is None:
        raise ValueError(f"toolparse bench cannot generate {format} output")
    return text


def markers(format: str) -> Tuple[str, ...]:
    """The format's marker strings and special tokens, longest first (each one pseudo-token)."""
    s = get_spec(format)
    found = {m for m in (*s.markers.values(), *s.special_tokens) if len(m) > 1}
    return tuple(sorted(found, key=lambda m: (-len(m), m)))


@cache
def _chunk_re(ms: Tuple[str, ...]) -> re.Pattern[str]:
    if not ms:
        return re.compile(rf"[\s\S]{{1,{DELTA_CHARS}}}")
    alt = "|".join(re.escape(m) for m in ms)
    return re.compile(rf"(?:{alt})|(?:(?!{alt})[\s\S]){{1,{DELTA_CHARS}}}")


def chunk(format: str, text: str) -> List[str]:
    """``text`` in deltas of at most four characters, each marker string of ``format`` whole."""
    return _chunk_re(markers(format)).findall(text)
