"""Model outputs for every format, written exactly as the model emits them, with the result a
parser must give for them; and the drivers the cross-format tests share.

A renderer turns ``[(name, args)]`` plus optional content around the calls into the text a model of
that format writes (DESIGN section 6) and the expected result:

* ``content``: the text outside the calls, by the whitespace rule of invariant 3 (a segment of
  content that is only whitespace and sits next to a call is not content; any other segment is kept
  exactly; ``None`` when nothing is left). With no call at all, the whole text is content.
* ``reasoning``: the reasoning text (harmony's ``analysis`` channel), else ``None``.
* ``calls``: ``[(name, arguments_text)]``. JSON-native formats pass the model's own JSON text of
  the arguments through unchanged, so the expected text is the text rendered into the output (this
  module renders it several ways: ``json.dumps`` defaults, ``ensure_ascii=False``, compact,
  indented). Formats that are not JSON (Python literals, XML parameters) convert to
  ``json.dumps(args, ensure_ascii=False)``.

Every format in ``toolparse.list_formats()`` must have a renderer here (test_api checks it), so a
format is tested by every cross-format test as soon as it is registered.
"""

from __future__ import annotations

import json
import keyword
import random
import re
from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional, Sequence, Tuple, Union

import toolparse
from toolparse import _core, reference
from toolparse.parser import _schema_types, _tool_models

# ==================================================================================================
# Cases
# ==================================================================================================


@dataclass(frozen=True)
class RawJSON:
    """Arguments given as JSON text, rendered into the output unchanged (JSON-native formats)."""

    text: str


Args = Union[Dict[str, Any], RawJSON]
Call = Tuple[str, Args]


@dataclass
class Case:
    """One model output and what every parser of its format must make of it."""

    fmt: str
    text: str
    content: Optional[str]
    reasoning: Optional[str]
    calls: List[Tuple[str, str]]  # (name, arguments JSON text)
    tools: Optional[List[Dict[str, Any]]] = None  # OpenAI tool dicts (typed formats)
    label: str = ""
    before: str = ""  # content rendered before the first call (for "nothing lost" checks)
    before_at: int = 0  # where ``before`` starts in ``text``

    @property
    def types(self) -> Dict[str, Dict[str, str]]:
        return schema_types(self.tools)

    def __repr__(self) -> str:  # short ids in pytest output
        return f"Case({self.fmt}:{self.label} {self.text[:60]!r})"


# JSON text styles for JSON-native formats: (separators, ensure_ascii, indent)
JSON_STYLES: Dict[str, Dict[str, Any]] = {
    "dumps": {},  # json.dumps defaults: ", " ": ", ensure_ascii=True
    "raw": {"ensure_ascii": False},
    "compact": {"ensure_ascii": False, "separators": (",", ":")},
    "indent": {"ensure_ascii": False, "indent": 2},
}


def dumps(value: Any, style: str = "raw") -> str:
    return json.dumps(value, **JSON_STYLES[style])


def args_text(args: Args, style: str) -> str:
    return args.text if isinstance(args, RawJSON) else dumps(args, style)


def converted(args: Args) -> str:
    """The arguments text of formats that are not JSON: json.dumps(obj, ensure_ascii=False)."""
    assert not isinstance(args, RawJSON), "raw JSON arguments only exist in JSON-native formats"
    return json.dumps(args, ensure_ascii=False)


def is_ws(s: str) -> bool:
    return not s.strip(" \t\n\r")


def expected_content(segments: Sequence[str], n_calls: int) -> Optional[str]:
    """The whitespace rule of invariant 3 over the content segments between/around the calls."""
    if n_calls == 0:
        text = "".join(segments)
        return text or None
    kept = "".join(s for s in segments if s and not is_ws(s))
    return kept or None


def json_type(v: Any) -> str:
    """The JSON Schema type of a value (as the typed XML formats are told in TOOLS)."""
    if isinstance(v, bool):
        return "boolean"
    if isinstance(v, int):
        return "integer"
    if isinstance(v, float):
        return "number"
    if isinstance(v, str):
        return "string"
    if isinstance(v, list):
        return "array"
    # dict, and None: "null" in any typed parameter is null (and json.loads("null") too)
    return "object"


def tools_for(calls: Sequence[Call]) -> List[Dict[str, Any]]:
    """OpenAI tool dicts typing every parameter of ``calls`` (raises on conflicting types)."""
    props: Dict[str, Dict[str, Any]] = {}
    for name, args in calls:
        assert not isinstance(args, RawJSON)
        p = props.setdefault(name, {})
        for k, v in args.items():
            t = json_type(v)
            if p.setdefault(k, {"type": t})["type"] != t:
                raise ValueError(f"{name}.{k}: conflicting types")
    return [
        {
            "type": "function",
            "function": {
                "name": name,
                "description": f"test tool {name}",
                "parameters": {"type": "object", "properties": p},
            },
        }
        for name, p in props.items()
    ]


def schema_types(tools: Optional[Sequence[Any]]) -> Dict[str, Dict[str, List[str]]]:
    """What the facade passes to the core for ``tools`` (function -> parameter -> the types it
    admits)."""
    return _schema_types(_tool_models(tools))


# ==================================================================================================
# Renderers
# ==================================================================================================


class Renderer:
    """Renders calls in one format. Subclasses set the class attributes and ``_body``."""

    name = ""
    forms: Tuple[str, ...] = ("plain",)
    forms_no_after: Tuple[str, ...] = ()  # forms after which no content may follow
    json_native = True
    surround = True  # content may stand before/after the calls (else only whitespace)
    typed = False  # the format needs TOOLS to type the arguments
    markers: Tuple[str, ...] = ()  # content must not contain these
    extra_tokens: Tuple[str, ...] = ()  # more tokens for garbage text
    reasoning = False  # the format has a reasoning channel
    # Every character outside the calls is content (so with no call and no malformed markup,
    # content == the text). Not so where the format has other markup (harmony's channels).
    plain_content = True
    # A marker inside a JSON string of the arguments is still text (the JSON scanner knows it is
    # inside a string). Not so where markers are special tokens that end a message (harmony).
    markers_in_strings = True

    # ----- what may be rendered -----

    def content_ok(self, s: str, where: str = "before") -> bool:
        """Whether ``s`` can stand as content before/after the calls and read back as itself."""
        if not self.surround and not is_ws(s):
            return False
        return not any(m in s for m in self.markers)

    def name_ok(self, name: str) -> bool:
        return bool(re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", name))

    def key_ok(self, key: str) -> bool:
        return self.markers_in_strings or not self._has_marker(key)

    def value_ok(self, value: Any) -> bool:
        return self.markers_in_strings or not self._has_marker(value)

    def _has_marker(self, v: Any) -> bool:
        if isinstance(v, str):
            return any(m in v for m in self.markers)
        if isinstance(v, list):
            return any(self._has_marker(x) for x in v)
        if isinstance(v, dict):
            return any(self._has_marker(k) or self._has_marker(x) for k, x in v.items())
        return False

    def calls_ok(self, calls: Sequence[Call]) -> bool:
        for name, args in calls:
            if not self.name_ok(name):
                return False
            if isinstance(args, RawJSON):
                if not self.json_native:
                    return False
                continue
            if not all(self.key_ok(k) and self.value_ok(v) for k, v in args.items()):
                return False
        if self.typed:
            try:
                tools_for(calls)
            except ValueError:
                return False
        return True

    # ----- rendering -----

    def render(
        self,
        calls: Sequence[Call],
        before: str = "",
        after: str = "",
        form: Optional[str] = None,
        style: str = "raw",
        reasoning: Optional[str] = None,
        label: str = "",
        between: Optional[Sequence[str]] = None,
    ) -> Case:
        """``between[i]`` is content between call ``i`` and call ``i + 1``."""
        form = form or self.forms[0]
        assert form in self.forms, (self.name, form)
        between = list(between or [])
        if calls:
            assert len(between) <= len(calls) - 1, (self.name, between)
            between += [""] * (len(calls) - 1 - len(between))
            assert self.content_ok(before, "before"), (self.name, before)
            assert self.content_ok(after, "after"), (self.name, after)
            for mid in between:
                assert self.content_ok(mid, "after"), (self.name, mid)
            assert not (after and form in self.forms_no_after), (self.name, form, after)
            assert self.calls_ok(calls), (self.name, calls)
        if reasoning is not None:
            assert self.reasoning, self.name
        tools = tools_for(calls) if self.typed else None
        if not calls and reasoning is None:
            text = before + after
            return Case(self.name, text, expected_content([text], 0), None, [], tools, label, text)
        if any(between):
            body = self._joined(calls, before, between, after, form, style, reasoning)
        else:
            body = self._body(calls, before, after, form, style, reasoning)
        text, expected_calls = body[0], body[1]
        before_at = body[2] if len(body) > 2 else 0
        assert text[before_at:].startswith(before)
        content = expected_content([before, *between, after], len(calls))
        return Case(
            self.name,
            text,
            content,
            reasoning or None,
            expected_calls,
            tools,
            label or form,
            before,
            before_at,
        )

    def _joined(
        self,
        calls: Sequence[Call],
        before: str,
        between: Sequence[str],
        after: str,
        form: str,
        style: str,
        reasoning: Optional[str],
    ) -> Tuple[Any, ...]:
        """Calls rendered one by one with content between them (each call's markup complete)."""
        text = before
        expected: List[Tuple[str, str]] = []
        for i, call in enumerate(calls):
            last = i == len(calls) - 1
            f = form if last or form not in self.forms_no_after else self.forms[0]
            body = self._body([call], "", "", f, style, None)
            text += body[0] + ("" if last else between[i])
            expected += body[1]
        return text + after, expected

    def _body(
        self,
        calls: Sequence[Call],
        before: str,
        after: str,
        form: str,
        style: str,
        reasoning: Optional[str],
    ) -> Tuple[Any, ...]:
        """(text, expected calls[, where ``before`` starts in the text when not at 0])."""
        raise NotImplementedError

    def expected_args(self, args: Args, style: str) -> str:
        return args_text(args, style) if self.json_native else converted(args)

    def garbage_tokens(self) -> List[str]:
        """Tokens garbage text is made of: the markers, their pieces and JSON/Python punctuation."""
        toks = set(self.markers) | set(self.extra_tokens)
        for m in self.markers:
            toks.update(m)
            toks.add(m[: len(m) // 2])
            toks.add(m[len(m) // 2 :])
        toks.update(
            [
                "{",
                "}",
                "[",
                "]",
                "(",
                ")",
                '"',
                "'",
                ":",
                ",",
                ";",
                "=",
                "\\",
                " ",
                "\n",
                "\t",
                "a",
                "f",
                "1",
                "-",
                ".",
                "e",
                "é",
                "🎉",
                "中",
                '"name"',
                '"arguments"',
                '"parameters"',
                "true",
                "null",
                "True",
                "None",
                '\\"',
                "\\u00e9",
                "\\ud83c",
            ]
        )
        return sorted(toks)


def _obj(pairs: Sequence[Tuple[str, str]], style: str) -> str:
    """A JSON object from already-rendered member values, spaced like ``style``."""
    if style == "compact":
        return "{" + ",".join(f"{k}:{v}" for k, v in pairs) + "}"
    return "{" + ", ".join(f"{k}: {v}" for k, v in pairs) + "}"


class Hermes(Renderer):
    """``<tool_call>{"name": N, "arguments": {...}}</tool_call>``, one block per call."""

    name = "hermes"
    forms = ("plain", "newlines", "args_first", "string_args", "no_close")
    forms_no_after = ("no_close",)
    markers = ("<tool_call>", "</tool_call>")
    open, close = "<tool_call>", "</tool_call>"

    def call_object(self, name: str, a: str, form: str, style: str) -> str:
        n = json.dumps(name)
        if form == "args_first":
            return _obj([('"arguments"', a), ('"name"', n)], style)
        if form == "string_args":
            return _obj([('"name"', n), ('"arguments"', json.dumps(a, ensure_ascii=False))], style)
        return _obj([('"name"', n), ('"arguments"', a)], style)

    def _body(self, calls, before, after, form, style, reasoning):
        blocks = []
        expected = []
        for i, (name, args) in enumerate(calls):
            a = args_text(args, style)
            obj = self.call_object(name, a, form, style)
            if form == "newlines":
                blocks.append(f"{self.open}\n{obj}\n{self.close}")
            elif form == "no_close" and i == len(calls) - 1:
                blocks.append(f"{self.open}{obj}")
            else:
                blocks.append(f"{self.open}{obj}{self.close}")
            expected.append((name, a))
        return before + "\n".join(blocks) + after, expected


class Mistral(Renderer):
    """pre-v11 ``[TOOL_CALLS][{...}, ...]``; v11 ``[TOOL_CALLS]N{...}``; also
    ``[TOOL_CALLS]N[ARGS]{...}`` and, with the model's call ids,
    ``[TOOL_CALLS]N[CALL_ID]ID[ARGS]{...}``."""

    name = "mistral"
    forms = ("array", "v11", "v11_args", "v11_call_id")
    markers = ("[TOOL_CALLS]",)
    extra_tokens = ("[ARGS]", "[CALL_ID]", "[TOOL_CALLS]f", "get_weather")

    def _body(self, calls, before, after, form, style, reasoning):
        expected = [(n, args_text(a, style)) for n, a in calls]
        if form == "array":
            objs = [
                _obj([('"name"', json.dumps(n)), ('"arguments"', a)], style) for n, a in expected
            ]
            sep = "," if style == "compact" else ", "
            body = "[TOOL_CALLS][" + sep.join(objs) + "]"
        elif form == "v11":
            body = "".join(f"[TOOL_CALLS]{n}{a}" for n, a in expected)
        elif form == "v11_args":
            body = "".join(f"[TOOL_CALLS]{n}[ARGS]{a}" for n, a in expected)
        else:
            # ids as Mistral's (9 letters and digits), one per call
            body = "".join(
                f"[TOOL_CALLS]{n}[CALL_ID]Call{k:05d}[ARGS]{a}" for k, (n, a) in enumerate(expected)
            )
        return before + body + after, expected


class Llama3Json(Renderer):
    """Optional ``<|python_tag|>``, then ``{"name": N, "parameters": {...}}`` joined by ``; ``."""

    name = "llama3_json"

    def __init__(self, name: str = "llama3_json") -> None:
        self.name = name

    forms = ("plain", "python_tag", "arguments_key")
    markers = ("<|python_tag|>", "{", "}")
    extra_tokens = ("; ", "<|eom_id|>")

    def content_ok(self, s: str, where: str = "before") -> bool:
        # A `;` right after a call separates it from the next one, so text after the calls must
        # not begin with one.
        if where == "after" and s.lstrip(" \t\n\r").startswith(";"):
            return False
        return super().content_ok(s, where)

    def _body(self, calls, before, after, form, style, reasoning):
        key = '"arguments"' if form == "arguments_key" else '"parameters"'
        expected = [(n, args_text(a, style)) for n, a in calls]
        objs = [_obj([('"name"', json.dumps(n)), (key, a)], style) for n, a in expected]
        tag = "<|python_tag|>" if form == "python_tag" else ""
        return before + tag + "; ".join(objs) + after, expected


# ----- Python literals -----


def py_str(s: str, quote: str = "'") -> str:
    """A Python string literal for ``s``: ``repr`` for single quotes, or double quotes with the
    escapes Python reads (``\\xNN``, ``\\uNNNN`` for non-printable characters)."""
    if quote == "'":
        return repr(s)
    out = ['"']
    for c in s:
        if c == '"':
            out.append('\\"')
        elif c == "\\":
            out.append("\\\\")
        elif c == "\n":
            out.append("\\n")
        elif c == "\r":
            out.append("\\r")
        elif c == "\t":
            out.append("\\t")
        elif not c.isprintable():
            o = ord(c)
            out.append(
                f"\\x{o:02x}" if o < 0x100 else f"\\u{o:04x}" if o < 0x10000 else f"\\U{o:08x}"
            )
        else:
            out.append(c)
    out.append('"')
    return "".join(out)


def py_lit(v: Any, quote: str = "'", compact: bool = False) -> str:
    sep = "," if compact else ", "
    colon = ":" if compact else ": "
    if v is True:
        return "True"
    if v is False:
        return "False"
    if v is None:
        return "None"
    if isinstance(v, str):
        return py_str(v, quote)
    if isinstance(v, (int, float)):
        return repr(v)
    if isinstance(v, list):
        return "[" + sep.join(py_lit(x, quote, compact) for x in v) + "]"
    if isinstance(v, dict):
        return (
            "{"
            + sep.join(
                f"{py_lit(k, quote, compact)}{colon}{py_lit(x, quote, compact)}"
                for k, x in v.items()
            )
            + "}"
        )
    raise TypeError(type(v))


def _finite(v: Any) -> bool:
    if isinstance(v, float):
        return v == v and v not in (float("inf"), float("-inf"))
    if isinstance(v, list):
        return all(_finite(x) for x in v)
    if isinstance(v, dict):
        return all(_finite(x) for x in v.values())
    return True


class Pythonic(Renderer):
    """``[f(a=1, b='x'), g()]``. Usually the whole output (content None); text around the list is
    content (a ``[`` anywhere may start a list, as in SGLang), so content here has no ``[``."""

    name = "pythonic"
    forms = ("spaced", "compact", "double_quotes")
    json_native = False
    markers = ("[",)
    extra_tokens = ("f(", "a=", "=1", "'x'", '"x"', "True", "False", "None", "\\n", "\\x00")

    def name_ok(self, name: str) -> bool:
        return name.isidentifier() and name.isascii() and not keyword.iskeyword(name)

    key_ok = name_ok

    def value_ok(self, value: Any) -> bool:
        return _finite(value)

    def list_text(self, calls: Sequence[Call], form: str) -> str:
        compact = form == "compact"
        quote = '"' if form == "double_quotes" else "'"
        sep = "," if compact else ", "
        items = []
        for name, args in calls:
            assert not isinstance(args, RawJSON)
            kw = sep.join(f"{k}={py_lit(v, quote, compact)}" for k, v in args.items())
            items.append(f"{name}({kw})")
        return "[" + sep.join(items) + "]"

    def _body(self, calls, before, after, form, style, reasoning):
        expected = [(n, converted(a)) for n, a in calls]
        return before + self.list_text(calls, form) + after, expected


class Llama4Pythonic(Pythonic):
    """``<|python_start|>[f(a=1)]<|python_end|>`` (markers optional)."""

    name = "llama4_pythonic"
    forms = ("markers", "bare", "markers_compact")
    markers = ("[", "<|python_start|>", "<|python_end|>")

    def _body(self, calls, before, after, form, style, reasoning):
        expected = [(n, converted(a)) for n, a in calls]
        lst = self.list_text(calls, "compact" if form == "markers_compact" else "spaced")
        if form == "bare":
            return before + lst + after, expected
        return before + "<|python_start|>" + lst + "<|python_end|>" + after, expected


# ----- JSON between markers (the tagged_json family, configured from the spec) -----


class TaggedJson(Renderer):
    """``START {call} END`` or ``START [{call}, ...] END`` as the format's spec entry says: its
    start markers (every one gets a form), end marker (may be missing: form ``no_close``), shape,
    name and argument keys (the second argument key gets a form; apertus' calls are
    ``{NAME: {...}}``), whether the arguments may be a JSON string, and the content's wrapper
    markers (cohere's, dropped: content must not hold them)."""

    def __init__(self, name: str) -> None:
        sp = toolparse.spec.get_spec(name)
        m, call = sp.markers, sp.raw["call"]
        self.name = name

        def roles(prefix: str) -> List[str]:
            return [m[r] for r in sorted(r for r in m if r == prefix or r.startswith(prefix + "_"))]

        self.starts, self.ends = roles("call_start"), roles("call_end")
        self.array = call["shape"] == "array"
        self.end = self.end_for(self.starts[0])
        self.args_keys = list(call["args_keys"])
        self.name_key = call["name_keys"][0] if call["name_keys"] else ""
        self.by_name = call.get("keyed_by_name") is True
        self.wrappers = tuple(m[r] for r in ("text_start", "text_end") if r in m)
        self.ids = 0  # the last call id rendered (form call_id)
        # the wrappers are markup: with them in the text, content is not every character outside
        # the calls
        self.plain_content = not self.wrappers
        forms = ["plain", "newlines", "per_call"]
        if not self.by_name:
            forms.append("args_first")
        if self.name_key == "tool_name":
            forms.append("call_id")  # cohere's ``"tool_call_id": "0"`` before the name
        forms += [f"start_{k}" for k in range(2, len(self.starts) + 1)]
        if len(self.args_keys) > 1:
            forms.append("alt_key")
        if sp.raw["arguments"] == "json_object_or_json_string":
            forms.append("string_args")
        if self.end:
            forms.append("no_close")
        self.forms = tuple(forms)
        self.forms_no_after = ("no_close",) if self.end else ()
        self.markers = tuple(self.starts) + tuple(self.ends) + self.wrappers

    def end_for(self, start: str) -> str:
        """The end marker a call opened by ``start`` is written with: the format's one, or of
        several the one that pairs with ``start`` (```` ``` ```` with fences, ``</x>`` with
        ``<x>``), or none."""
        if len(self.ends) == 1:
            return self.ends[0]
        for e in self.ends:
            if start.startswith(e) or e == start[:1] + "/" + start[1:]:
                return e
        return ""

    def opener(self, start: str) -> str:
        """The text ``start`` is written as before the body: nothing where it is the body's own
        ``[`` (xlam's bare list)."""
        return "" if self.array and start == "[" else start

    def call_object(self, name: str, a: str, form: str, style: str) -> str:
        n = json.dumps(name)
        if self.by_name:
            return _obj([(n, a)], style)
        key = json.dumps(self.args_keys[1] if form == "alt_key" else self.args_keys[0])
        nk = json.dumps(self.name_key)
        if form == "args_first":
            return _obj([(key, a), (nk, n)], style)
        if form == "string_args":
            a = json.dumps(a, ensure_ascii=False)
        if form == "call_id":
            # the model's ids ("0", "1", ...): unique, as the model writes them in one response
            self.ids += 1
            return _obj([('"tool_call_id"', f'"{self.ids}"'), (nk, n), (key, a)], style)
        return _obj([(nk, n), (key, a)], style)

    def _body(self, calls, before, after, form, style, reasoning):
        start = self.starts[int(form[6:]) - 1] if form.startswith("start_") else self.starts[0]
        end = self.end_for(start)
        start = self.opener(start)
        nl = "\n" if form == "newlines" else ""
        objs = [self.call_object(n, args_text(a, style), form, style) for n, a in calls]
        expected = [(n, args_text(a, style)) for n, a in calls]
        if self.array and form != "per_call":
            sep = ",\n" if nl else ", "
            groups = ["[" + nl + sep.join(objs) + nl + "]"]
        elif self.array:
            groups = ["[" + o + "]" for o in objs]
        else:
            groups = objs
        # without an end marker, whitespace after the body is the content's
        tail = nl + end if end else ""
        lead = start + nl if start else ""
        blocks = [f"{lead}{g}{tail}" for g in groups]
        if form == "no_close":
            blocks[-1] = blocks[-1][: len(blocks[-1]) - len(end)]
        return before + "\n".join(blocks) + after, expected


TAGGED_JSON = (
    "granite4",
    "longcat",
    "jamba",
    "hunyuan_a13b",
    "internlm",
    "phi4_mini_json",
    "granite",
    "gigachat3",
    "xlam",
)
# issue 12's JSON-between-markers formats
TAGGED_JSON_12 = (
    "qwen3_json",
    "ernie45",
    "granite-20b-fc",
    "apertus",
    "cohere_command3",
    "cohere_command4",
)


class PythonicSection(Pythonic):
    """Python calls between a section's markers (lfm2: a list; olmo3: one call per line), as the
    format's spec entry says."""

    forms = ("spaced", "compact", "newlines")

    def __init__(self, name: str) -> None:
        sp = toolparse.spec.get_spec(name)
        self.name = name
        self.start, self.end = sp.markers["section_start"], sp.markers["section_end"]
        self.list = sp.raw["calls"] == "list"
        self.markers = (self.start, self.end)

    def _body(self, calls, before, after, form, style, reasoning):
        expected = [(n, converted(a)) for n, a in calls]
        nl = "\n" if form == "newlines" else ""
        if self.list:
            inner = self.list_text(calls, "compact" if form == "compact" else "spaced")
        else:
            inner = "\n".join(self.list_text([c], form)[1:-1] for c in calls)
        return before + self.start + nl + inner + nl + self.end + after, expected


# ----- XML parameters typed by schema -----


def xml_value(v: Any) -> str:
    """A parameter value as the XML-parameter formats write it: strings raw, anything else as
    JSON."""
    return v if isinstance(v, str) else json.dumps(v, ensure_ascii=False)


class XmlParams(Renderer):
    """The XML-parameter family (``rust/formats/xml_params.rs``), configured from the format's
    spec entry: qwen3_coder / seed_oss
    ``<tool_call>\\n<function=N>\\n<parameter=K>\\nV\\n</parameter>\\n</function>\\n</tool_call>``,
    minimax_m2 ``<invoke name="N">``,
    glm ``<tool_call>N<arg_key>K</arg_key><arg_value>V</arg_value>``,
    step3 ``<steptml:invoke name="N">``, deepseek_v32 DSML with ``string="true|false"``; values
    typed by the tool schema (DSML: by the ``string`` attribute). The section wrapper may be
    missing ("bare" form)."""

    json_native = False
    typed = True

    def __init__(self, name: str) -> None:
        spec = toolparse.spec.get_spec(name)
        self.name = name
        self.m = dict(spec.markers)
        call = spec.raw["call"]
        self.strip = call["value_newlines"] == "strip_one"
        self.many = call["calls_per_section"] == "many"
        self.forms = ("wrapped", "bare") if "call_start" in self.m else ("plain",)
        self.markers = tuple(v for v in self.m.values() if len(v) > 2)
        # qwen3_coder's layout: a newline around every value and after every tag
        self.lines = self.m["function_name_end"] == ">" and self.strip

    def name_ok(self, name: str) -> bool:
        return bool(re.fullmatch(r"[A-Za-z_][A-Za-z0-9_.\-]*", name))

    key_ok = name_ok

    def value_ok(self, value: Any) -> bool:
        if isinstance(value, str):
            if self.strip and not self.lines and (value.startswith("\n") or value.endswith("\n")):
                return False  # written inline, a leading/trailing newline would be stripped
            # "null" (any case) is null in every typed parameter, as in vLLM.
            return not any(m in value for m in self.markers) and value.lower() != "null"
        return _finite(value) and not any(
            m in json.dumps(value, ensure_ascii=False) for m in self.markers
        )

    def param(self, k: str, v: Any) -> str:
        m = self.m
        if "value_start" in m:  # glm
            sep = "\n" if self.name in XML_LINES else ""
            return (
                f"{m['parameter_start']}{k}{m['parameter_name_end']}{sep}"
                f"{m['value_start']}{xml_value(v)}{m['parameter_end']}{sep}"
            )
        if "parameter_string" in m:  # DSML
            head = m["parameter_string"] if isinstance(v, str) else m["parameter_json"]
            return f"{m['parameter_start']}{k}{head}{xml_value(v)}{m['parameter_end']}\n"
        value = f"\n{xml_value(v)}\n" if self.lines else xml_value(v)
        return f"{m['parameter_start']}{k}{m['parameter_name_end']}{value}{m['parameter_end']}\n"

    def function(self, name: str, args: Dict[str, Any]) -> str:
        m = self.m
        params = "".join(self.param(k, v) for k, v in args.items())
        if "value_start" in m:  # glm
            sep = "\n" if self.name in XML_LINES else ""
            tag = m["function_name_end"].strip("\n")  # hy_v3's <tool_sep>
            return f"{m['function_start']}{name}{tag}{sep}{params}{m['function_end']}"
        fn = f"{m['function_start']}{name}{m['function_name_end']}\n{params}{m['function_end']}"
        return fn + m.get("item_end", "")

    def _body(self, calls, before, after, form, style, reasoning):
        m = self.m
        fns = []
        for name, args in calls:
            assert not isinstance(args, RawJSON)
            fns.append(self.function(name, args))
        sep = "" if self.name in GLM_JOINED else "\n"
        if form != "wrapped":
            text = sep.join(fns)
        elif self.many:
            text = f"{m['call_start']}\n" + "\n".join(fns) + f"\n{m['call_end']}"
        else:
            text = "\n".join(f"{m['call_start']}\n{fn}\n{m['call_end']}" for fn in fns)
        expected = [(n, converted(a)) for n, a in calls]
        return before + text + after, expected


# ----- harmony -----


class OpenAIHarmony(Renderer):
    """gpt-oss harmony: ``analysis`` is reasoning, ``final`` is content, a call is
    ``<|channel|>commentary to=functions.N <|constrain|>json<|message|>{...}<|call|>``."""

    name = "openai"
    forms = (
        "standard",
        "recipient_first",
        "start_first",
        "no_constrain",
        "bare_json",
        "preamble",
    )
    reasoning = True
    plain_content = False
    markers_in_strings = False
    markers = (
        "<|start|>",
        "<|end|>",
        "<|message|>",
        "<|channel|>",
        "<|constrain|>",
        "<|call|>",
        "<|return|>",
    )
    extra_tokens = (
        "analysis",
        "commentary",
        "final",
        " to=functions.f",
        "assistant",
        "json",
        "<|start|>assistant",
        "to=browser.search",
    )

    def _joined(self, calls, before, between, after, form, style, reasoning):
        return self._body(calls, before, after, form, style, reasoning, between)

    def _body(self, calls, before, after, form, style, reasoning, between=()):
        msgs: List[str] = []  # header (after <|start|>assistant) + <|message|> + body + end
        before_msg = -1
        if reasoning is not None:
            msgs.append(f"<|channel|>analysis<|message|>{reasoning}<|end|>")
        if before:
            # content: a `final` message, or a `commentary` preamble (no recipient)
            channel = "commentary" if form == "preamble" else "final"
            before_msg = len(msgs)
            msgs.append(f"<|channel|>{channel}<|message|>{before}<|end|>")
        expected = []
        for i, (name, args) in enumerate(calls):
            if 0 < i <= len(between) and between[i - 1]:
                msgs.append(f"<|channel|>final<|message|>{between[i - 1]}<|end|>")
            a = args_text(args, style)
            expected.append((name, a))
            if form == "recipient_first":
                head = f" to=functions.{name}<|channel|>commentary <|constrain|>json"
            elif form == "no_constrain":
                head = f"<|channel|>commentary to=functions.{name}"
            elif form == "bare_json":
                head = f"<|channel|>commentary to=functions.{name} json"
            else:
                head = f"<|channel|>commentary to=functions.{name} <|constrain|>json"
            msgs.append(f"{head}<|message|>{a}<|call|>")
        if after:
            msgs.append(f"<|channel|>final<|message|>{after}<|return|>")
        text = ""
        before_at = 0
        for i, m in enumerate(msgs):
            # Every message but the first opens with `<|start|>assistant` (the prompt ends with
            # it); a recipient in the header (before `<|channel|>`) always follows it.
            if i > 0 or form == "start_first" or m.startswith(" to="):
                text += "<|start|>assistant"
            if i == before_msg:
                before_at = len(text) + m.index("<|message|>") + len("<|message|>")
            text += m
        return text, expected, before_at


class NamedJson(Renderer):
    """A section of calls, each a header (the name; deepseek_v3: a type, the separator and the
    name; kimi_k2: the call id ``functions.N:IDX``), a separator and the JSON arguments
    (deepseek_v3: in a fenced json block). Configured from the format's spec entry."""

    forms = ("plain", "newlines", "open_section")
    forms_no_after = ("open_section",)

    def __init__(self, name: str) -> None:
        self.name = name
        spec = toolparse.spec.get_spec(name)
        m = spec.markers
        self.m = m
        self.model_ids = spec.id_style == "model"
        if self.model_ids:
            self.forms = ("plain", "newlines", "spaced", "no_prefix", "open_section")
        seps = [m[k] for k in ("name_start", "args_start") if k in m]
        alts = [m[k] for k in ("section_start_alt", "section_end_alt") if k in m]
        self.markers = (m["section_start"], m["section_end"], m["call_start"], m["call_end"])
        self.markers += (*seps, *alts)
        self.extra_tokens = ("function", "functions.f:0", "get_weather", "```json", "```", "\n")

    def _call(self, k: int, name: str, a: str, form: str) -> str:
        m = self.m
        nl = "\n" if form == "newlines" else ""
        if self.model_ids:
            head = f"{name}:{k}" if form == "no_prefix" else f"functions.{name}:{k}"
            sp = " " if form == "spaced" else nl
            return f"{m['call_start']}{head}{sp}{m['args_start']}{a}{sp}{m['call_end']}"
        if "name_start" in m:
            body = f"function{m['name_start']}{name}{m['args_start']}\n{a}\n{m['args_end']}"
        else:
            body = f"{name}{m['args_start']}{nl}{a}"
        return f"{m['call_start']}{body}{m['call_end']}"

    def _body(self, calls, before, after, form, style, reasoning):
        expected = [(n, args_text(a, style)) for n, a in calls]
        nl = "\n" if form == "newlines" else ""
        body = nl.join(self._call(k, n, a, form) for k, (n, a) in enumerate(expected))
        end = "" if form == "open_section" else nl + self.m["section_end"]
        return before + self.m["section_start"] + nl + body + end + after, expected


XML_FORMATS = ("qwen3_coder", "seed_oss", "minimax_m2", "glm45", "glm47", "step3", "deepseek_v32")
XML_FORMATS_12 = ("dots", "gigachat35")  # issue 12's (fmt-json helper)
# issue 12: the XML-like formats added to the family
XML_FORMATS += (
    "qwen3_xml",
    "step3p5",
    "step5",
    "mimo",
    "deepseek_v4",
    "deepseek_v41",
    "poolside_v1",
    "hy_v4",
    "hy_v3",
    "k2_horizon",
    "minicpm5",
)
# glm-like formats written with a newline after the name and after each tag
XML_LINES = ("glm45", "poolside_v1", "hy_v3", "k2_horizon", "spark25")
# glm-style formats whose calls are joined with no newline (glm47)
GLM_JOINED = ("glm47", "ling3", "iquest_q1")


class FunctionGemma(Renderer):
    """``<start_function_call>call:N{k:<escape>s<escape>,n:1,o:{k:v},l:[v]}<end_function_call>``:
    strings between escape markers, other values bare (nested objects and arrays in the same
    syntax). Configured from the format's spec entry."""

    forms = ("plain", "newlines", "spaced", "no_end")
    json_native = False

    def __init__(self, name: str) -> None:
        self.name = name
        m = toolparse.spec.get_spec(name).markers
        self.m = m
        self.markers = (m["call_start"], m["call_end"], m["string"])
        self.extra_tokens = (m["name_start"], "get_weather", "call:f{", "a:", "1", "[", "]")

    def key_ok(self, key: str) -> bool:
        return bool(re.fullmatch(r"[^\s:,{}\[\]<\"]{1,256}", key))

    def value_ok(self, value: Any) -> bool:
        if isinstance(value, str):
            if self.m["string"] in value:
                return False
            try:
                # a string that reads as a JSON number or literal is that value (as in vLLM)
                return isinstance(json.loads(value), (str, dict, list))
            except ValueError:
                return True
        if isinstance(value, list):
            return all(self.value_ok(v) for v in value)
        if isinstance(value, dict):
            return all(self.key_ok(k) and self.value_ok(v) for k, v in value.items())
        return _finite(value)

    def value(self, v: Any, form: str) -> str:
        sep, colon = (", ", ": ") if form == "spaced" else (",", ":")
        if isinstance(v, str):
            return f"{self.m['string']}{v}{self.m['string']}"
        if isinstance(v, dict):
            return "{" + sep.join(f"{k}{colon}{self.value(x, form)}" for k, x in v.items()) + "}"
        if isinstance(v, list):
            return "[" + sep.join(self.value(x, form) for x in v) + "]"
        return json.dumps(v)

    def _body(self, calls, before, after, form, style, reasoning):
        m = self.m
        end = "" if form == "no_end" else m["call_end"]
        blocks = []
        for name, args in calls:
            assert not isinstance(args, RawJSON)
            blocks.append(f"{m['call_start']}{m['name_start']}{name}{self.value(args, form)}{end}")
        nl = "\n" if form == "newlines" else ""
        return before + nl.join(blocks) + after, [(n, converted(a)) for n, a in calls]


RENDERERS: Dict[str, Renderer] = {
    r.name: r
    for r in (
        Hermes(),
        Mistral(),
        Llama3Json(),
        Pythonic(),
        Llama4Pythonic(),
        *(XmlParams(n) for n in XML_FORMATS),
        OpenAIHarmony(),
        NamedJson("deepseek_v3"),
        NamedJson("deepseek_v31"),
        NamedJson("kimi_k2"),
        *(TaggedJson(n) for n in TAGGED_JSON),
        *(TaggedJson(n) for n in TAGGED_JSON_12),
        *(XmlParams(n) for n in XML_FORMATS_12),
        Llama3Json("llama4_json"),
        PythonicSection("olmo3"),
        PythonicSection("lfm2"),
        FunctionGemma("functiongemma"),
    )
}


def renderer(fmt: str) -> Renderer:
    """The renderer of a format, by its name or one of its aliases."""
    return RENDERERS[toolparse.spec.canonical(fmt)]


def formats() -> List[str]:
    """The registered formats (every one must have a renderer)."""
    return toolparse.list_formats()


# ==================================================================================================
# The standard cases (DESIGN section 7)
# ==================================================================================================

WEATHER: Call = ("get_weather", {"city": "Tokyo"})
WEATHER2: Call = ("get_weather", {"city": "Paris", "unit": "celsius"})
TIME: Call = ("get_time", {"timezone": "Asia/Tokyo"})
SEARCH: Call = ("search", {"query": "best pizza in Naples", "limit": 5})
EMPTY: Call = ("refresh", {})
ALL_TYPES: Call = (
    "register",
    {
        "name": "John",
        "age": 30,
        "price": 19.99,
        "negative": -7,
        "small": 2.5e-07,
        "active": True,
        "inactive": False,
        "role": None,
        "tags": ["a", "b"],
        "address": {"city": "Tokyo", "zip": "100-0001", "geo": {"lat": 35.68, "lng": 139.69}},
        "items": [],
        "meta": {},
        "matrix": [[1, 2], [3, 4.5], [True, None, "x"]],
    },
)
ESCAPES: Call = (
    "write_file",
    {
        "text": 'He said "hello"',
        "path": "C:\\Users\\file.txt",
        "newline": "line1\nline2\r\n\ttabbed",
        "unicode": "emoji: 🎉👍🏽, CJK: 日本語中文, accents: héllo café",
        "backslash_n": "literal \\n not a newline",
        "braces": '{"not": "a call"} [1, 2] (x=1)',
        "quotes": "it's 'single' and \"double\"",
        "control": "bell\x07 nul\x00 esc\x1b",
    },
)
# Written by hand: escapes a parser must keep byte for byte (no re-serialisation).
RAW_ESCAPES = RawJSON(
    '{"s": "caf\\u00e9 \\u4e2d \\ud83c\\udf89 \\/ \\"q\\" \\\\ \\n\\t", "n": 1.50, '
    '"big": 12345678901234567890123, "e": 1E+2, "neg": -0.0, "u": "é🎉中"}'
)


def standard_cases(fmt: str) -> Dict[str, List[Case]]:
    """The cases of patterns 2-7 for ``fmt``, every form and JSON style the format has."""
    r = renderer(fmt)
    styles = list(JSON_STYLES) if r.json_native else ["raw"]
    out: Dict[str, List[Case]] = {}

    def add(pattern: str, calls: Sequence[Call], **kw: Any) -> None:
        for form in r.forms:
            if kw.get("after") and form in r.forms_no_after:
                continue
            for style in styles:
                out.setdefault(pattern, []).append(
                    r.render(calls, form=form, style=style, label=f"{pattern}/{form}/{style}", **kw)
                )

    add("one_call", [WEATHER])
    add("parallel", [WEATHER2, TIME, SEARCH])
    add("all_types", [ALL_TYPES])
    add("no_arguments", [EMPTY])
    add("no_arguments_parallel", [EMPTY, WEATHER, EMPTY])
    if r.surround:
        add("text_before", [WEATHER], before="Let me check the weather for you.\n\n")
        add("text_after", [WEATHER], after="\n\nI asked the weather service.")
        add("text_both", [WEATHER, TIME], before="Sure! ", after=" Done.")
        add("text_unicode", [WEATHER], before="天気を調べます 🎉 ", after=" ✅ fin")
        add(
            "text_between",
            [WEATHER, TIME, EMPTY],
            before="First: ",
            between=["\n\nthen, ", "\n \n"],
            after="\nend",
        )
    add("whitespace_around", [WEATHER], before="\n\n  ", after="\n\n")
    add("escapes", [ESCAPES])
    if r.json_native and r.markers_in_strings and r.markers:
        add("markers_in_strings", [("write_file", {"text": " ".join(r.markers), r.markers[0]: 1})])
    if r.json_native:
        add("raw_escapes", [("raw", RAW_ESCAPES)])
    if r.reasoning:
        add("reasoning", [WEATHER], reasoning="The user wants the weather. 🤔\nCall the tool.")
        add("reasoning_text", [WEATHER], reasoning="think", before="Checking.", after="Done.")
    return out


NO_CALL_TEXTS = [
    "Hello, how can I help you?",
    "This is a regular response.",
    "",
    "   \n  ",
    "\n",
    "Unicode 日本語 🎉 and a backslash \\ and quotes \"'",
]


# Text that looks a little like a format's markup but holds no call: all of it is content.
NO_CALL_LOOKALIKES: Dict[str, List[str]] = {
    "pythonic": [
        "[1] see the footnote",
        "See [link](https://x.y) and [O'Reilly].",
        "[]",
        "a[0] = b",
    ],
    "llama4_pythonic": ["[1] see the footnote", "See [link](https://x.y)", "[]"],
    "llama3_json": ['Use {braces} and {"name": "Bob"} here', "{}", "{ not json"],
    "hermes": ["I use <tool> tags and <tool_call without closing", "a < b > c"],
    "mistral": ["[TOOL] and [CALLS] and [TOOL_CALL]", "[1, 2]"],
    "qwen3_coder": ["<function> tags and <parameter> words", "a < b"],
    "seed_oss": ["<seed:think> is not a call", "<function> and a < b"],
    "minimax_m2": ["<invoke> and <parameter name> words", "a < b", "<minimax:tool_call>x"],
    "glm45": ["<tool_call> {json}", "<tool_call>a b", "<arg_key>k</arg_key>"],
    "glm47": ["<tool_call> {json}", "<tool_call>a b", "<arg_value>v</arg_value>"],
    "step3": ["<｜tool_call_begin｜> and <steptml:invoke> words"],
    "deepseek_v32": ["<｜DSML｜> words", "<｜DSML｜invoke name=x>"],
    "openai": ["<|not a marker|> and <| or |>", "to=functions.f is just text"],
    "deepseek_v3": ['```json\n{"a": 1}\n```', "<｜tool▁sep｜> and <｜tool▁call▁begin｜>f"],
    "deepseek_v31": ["<｜tool▁call▁begin｜>f<｜tool▁sep｜>{}", "<｜tool▁calls▁end｜>"],
    "kimi_k2": ["functions.f:0 {}", "<|tool_call_begin|>functions.f:0", "<|tool_calls_section"],
    "xlam": [
        "[1] see the footnote",
        "See [link](https://x.y) and []",
        "```python\nprint([1, 2])\n```",
        '```json\n{"a": [1]}\n```',
        "[TOOL_CALLS] and <tool_call> words",
    ],
    "phi4_mini_json": ["import functools; functools.partial(f)", "functools[] and functools[1]"],
    "functiongemma": ["call:f{a:1}", "<escape>x<escape>", "<end_function_call> and {a:1}"],
}


def no_call_texts(fmt: str) -> List[str]:
    """Plain text with no tool call (pattern 1)."""
    return list(NO_CALL_TEXTS) + NO_CALL_LOOKALIKES.get(fmt, [])


# Malformed markup (pattern 8): no exception, tools_called False, content == the text.
MALFORMED: Dict[str, List[str]] = {
    "hermes": [
        '<tool_call>{"name": "func", "arguments": {</tool_call>',
        '<tool_call>{"name": "func", "arguments": {"a": 1]}</tool_call>',
        '<tool_call>{"name": "func", "arguments": {"a": undefined}}</tool_call>',
        "<tool_call>not json at all</tool_call>",
        '<tool_call>{"name": "ok", "arguments": {}}</tool_call>\n<tool_call>{"name": "bad", '
        '"arguments": {"x": tru}}</tool_call>',
        '<tool_call>{"name": "f", "arguments": "not an object"}</tool_call>',
        '<tool_call>{"name": "f", "arguments": [1, 2]}</tool_call>',
    ],
    "mistral": [
        '[TOOL_CALLS][{"name": "func", "arguments": {]',
        '[TOOL_CALLS]func{"a": tru}',
        '[TOOL_CALLS]func{"a": 1]',
        'Sure [TOOL_CALLS][{"name": "f", "arguments": {"a": "x"}}, {"name": }]',
        "[TOOL_CALLS]( bad",
    ],
    "llama3_json": [
        '<|python_tag|>{"name": "func", "parameters": {"a": }}',
        "<|python_tag|>not json",
        '{"name": "func", "parameters": {"a": [1, 2}}',
    ],
    "pythonic": [
        "[func(arg='val']",
        "[func(arg=undefined)]",
        "[func(a=1), g(b=[1, 2)]",
    ],
    "llama4_pythonic": [
        "<|python_start|>[func(arg='val']<|python_end|>",
        "<|python_start|>[func(arg=undefined)]<|python_end|>",
        "[func(arg='val']",
    ],
    "qwen3_coder": [
        "<function=get_weather>\nstray text\n</function>",
        "<tool_call>\n<function=get_weather>\njunk\n</function>\n</tool_call>",
    ],
    "seed_oss": [
        "<seed:tool_call>\n<function=get_weather>\njunk\n</function>\n</seed:tool_call>",
        "<function=get_weather>\n<parameter=a\nb>\n1\n</parameter>\n</function>",
    ],
    "minimax_m2": [
        '<minimax:tool_call>\n<invoke name="f">\njunk\n</invoke>\n</minimax:tool_call>',
        '<minimax:tool_call>\n<invoke name="f">\n<parameter name="a\nb">1</parameter></invoke>',
        '<minimax:tool_call><invoke name="f"><parameter name="a"b>1</parameter></invoke>',
    ],
    "glm45": [
        "<tool_call>get_weather\njunk\n</tool_call>",
        "<tool_call>get_weather\n<arg_key>city</arg_key>\nTokyo\n</tool_call>",
    ],
    "glm47": [
        "<tool_call>get_weather<arg_key>city</arg_key>Tokyo</tool_call>",
        "<tool_call>f<arg_key>a\nb</arg_key><arg_value>1</arg_value></tool_call>",
    ],
    "step3": [
        '<｜tool_calls_begin｜><｜tool_call_begin｜>function<｜tool_sep｜><steptml:invoke name="f">'
        "junk</steptml:invoke><｜tool_call_end｜><｜tool_calls_end｜>",
    ],
    "deepseek_v32": [
        '<｜DSML｜function_calls>\n<｜DSML｜invoke name="f">\njunk\n</｜DSML｜invoke>',
        '<｜DSML｜function_calls><｜DSML｜invoke name="f"><｜DSML｜parameter name="a" '
        'strng="x">1</｜DSML｜parameter></｜DSML｜invoke></｜DSML｜function_calls>',
    ],
    "openai": [
        '<|channel|>commentary to=functions.f <|constrain|>json<|message|>{"a": }<|call|>',
        "<|channel|>commentary to=functions.f <|constrain|>json<|message|>[1, 2]<|call|>",
        '<|channel|>commentary to=functions.f <|constrain|>json<|message|>{"a": tru}<|call|>',
    ],
    "deepseek_v3": [
        # vLLM's own malformed cases: unclosed JSON; no call-begin marker in the section
        "<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>get_weather\n```json\n"
        '{"city": "Tokyo"\n```<｜tool▁call▁end｜><｜tool▁calls▁end｜>',
        '<｜tool▁calls▁begin｜>function<｜tool▁sep｜>get_weather\n```json\n{"city": "Tokyo"}\n'
        "```<｜tool▁calls▁end｜>",
        "<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>f\n```json\n[1]\n```"
        "<｜tool▁call▁end｜>",
    ],
    "deepseek_v31": [
        '<｜tool▁calls▁begin｜>foo<｜tool▁sep｜>{"x":1}<｜tool▁calls▁end｜>',
        '<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>foo<｜tool▁sep｜>{"x": tru}<｜tool▁call▁end｜>',
        "<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>a b<｜tool▁sep｜>{}<｜tool▁call▁end｜>",
        '<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>f<｜tool▁sep｜>{"a": 1} x<｜tool▁call▁end｜>',
    ],
    "kimi_k2": [
        "<|tool_calls_section_begin|><|tool_call_begin|>functions.invalid.0"
        '<|tool_call_argument_begin|>{"city": "Beijing"}<|tool_call_end|>'
        "<|tool_calls_section_end|>",
        "<|tool_calls_section_begin|><|tool_call_begin|>functions.f:0<|tool_call_argument_begin|>"
        '{"a": 1]<|tool_call_end|><|tool_calls_section_end|>',
        "<|tool_calls_section_begin|> spurious noise <|tool_call_begin|>functions.f:0"
        "<|tool_call_argument_begin|>{}<|tool_call_end|><|tool_calls_section_end|>",
    ],
    "functiongemma": [
        "<start_function_call>call:f{a:}<end_function_call>",
        "<start_function_call>call:f{a:1]}<end_function_call>",
        "<start_function_call>get_weather{a:1}<end_function_call>",
        "<start_function_call>call:get weather{}<end_function_call>",
        "<start_function_call>call:f{a:<oops>}<end_function_call>",
        "<start_function_call>call:f{a:<escape>x<escape>}<end_function_call>"
        "<start_function_call>call:g{b:1 2}<end_function_call>",
    ],
}

# Outputs that end inside a call (max_tokens), with how many calls completed before it: those
# are kept; with none, non-streaming returns the text whole as content (DESIGN invariant 4).
TRUNCATED: Dict[str, List[Tuple[str, int]]] = {
    "hermes": [
        ('<tool_call>{"name": "func", "arguments": {"a": 1}', 0),
        ('<tool_call>{"name": "func", "argu', 0),
        ("Text <tool_call>", 0),
        # the string never closes: the end tag is inside it, as far as anyone can tell
        ('Text <tool_call>{"name": "f", "arguments": {"a": "unterminated}}</tool_call>', 0),
        ('<tool_call>{"name": "f", "arguments": {}}</tool_call>\n<tool_call>{"name": "g", "ar', 1),
        ('Hi <tool_call>{"name": "f", "arguments": {}}</tool_call>\n<tool_call>\n', 1),
    ],
    "mistral": [
        ('[TOOL_CALLS][{"name": "func", "arguments": {"a": 1}}', 1),
        ('[TOOL_CALLS][{"name": "f", "arguments": {}}, {"name": "g", "arguments": {"a"', 1),
        ('[TOOL_CALLS]func[ARGS]{"a": 1', 0),
        ("[TOOL_CALLS]", 0),
        ("[TOOL_CALLS]func", 0),
        ("[TOOL_CALLS] bad", 0),
        ('[TOOL_CALLS]f{"a": 1}[TOOL_CALLS]g{"b', 1),
        ('[TOOL_CALLS]f{"a": 1}[TOOL_CALLS]g', 1),
    ],
    "llama3_json": [
        ('<|python_tag|>{"name": "func", "parameters": {"a": 1}', 0),
        (
            '<|python_tag|>{"name": "func", "parameters": {"a": 1}}; '
            '{"name": "g", "parameters": {"',
            1,
        ),
        ('<|python_tag|>{"name": "f", "parameters": {}}; {"na', 1),
    ],
    "pythonic": [
        ("[func(arg='val')", 1),
        ("[func(arg=", 0),
        ("[func(arg='unterminated)]", 0),
        ("[f(a=1), g(b=", 1),
    ],
    "llama4_pythonic": [
        ("<|python_start|>[func(arg='val')", 1),
        ("<|python_start|>", 0),
        ("<|python_start|>[f(), g(a='x", 1),
    ],
    "qwen3_coder": [
        ("<tool_call>\n<function=get_weath", 0),
        ("<tool_call>\n<function=get_weather>\n<parameter=city>\nTok", 0),
        ("<tool_call>\n<function=get_weather>\n<parameter=ci", 0),
        ("Hello <tool_call>", 0),
        (
            "<tool_call>\n<function=get_time>\n</function>\n</tool_call>\n<tool_call>\n"
            "<function=get_weather>\n<parameter=city>\nPa",
            1,
        ),
        ("<tool_call>\n<function=get_time>\n</function>\n</tool_call>\n<tool_call>\n<func", 1),
    ],
    "seed_oss": [
        ("<seed:tool_call>\n<function=get_weath", 0),
        ("<seed:tool_call>\n<function=get_weather>\n<parameter=city>\nTok", 0),
        ("Hello <seed:tool_call>", 0),
        (
            "<seed:tool_call>\n<function=get_time>\n</function>\n</seed:tool_call>\n"
            "<seed:tool_call>\n<function=get_weather>\n<parameter=city>\nPa",
            1,
        ),
    ],
    "minimax_m2": [
        ('<minimax:tool_call>\n<invoke name="get_weath', 0),
        ('<minimax:tool_call>\n<invoke name="get_weather">\n<parameter name="city">Tok', 0),
        ('Hi <minimax:tool_call>\n<invoke name="get_weather"', 0),
        (
            '<minimax:tool_call>\n<invoke name="get_time">\n</invoke>\n'
            '<invoke name="get_weather">\n<parameter name="ci',
            1,
        ),
        ('<minimax:tool_call>\n<invoke name="get_time">\n</invoke>\n<invoke name="g', 1),
    ],
    "glm45": [
        ("<tool_call>get_weath", 0),
        ("<tool_call>get_weather\n<arg_key>city</arg_key>\n<arg_value>Tok", 0),
        ("Hi <tool_call>get_weather\n<arg_key>ci", 0),
        ("<tool_call>get_time\n</tool_call>\n<tool_call>get_weather\n<arg_key>city</arg_key>", 1),
        ("<tool_call>get_time\n</tool_call>\n<tool_call>get_wea", 1),
    ],
    "glm47": [
        ("<tool_call>get_weather<arg_key>city</arg_key><arg_value>Tok", 0),
        ("Hi <tool_call>", 0),
        ("<tool_call>get_time</tool_call><tool_call>get_weather<arg_key>city</arg_key><arg_v", 1),
    ],
    "step3": [
        ("<｜tool_calls_begin｜><｜tool_call_begin｜>function<｜tool_sep｜><steptml:inv", 0),
        (
            "<｜tool_calls_begin｜><｜tool_call_begin｜>function<｜tool_sep｜>"
            '<steptml:invoke name="f">\n<steptml:parameter name="city">Tok',
            0,
        ),
        (
            "<｜tool_calls_begin｜><｜tool_call_begin｜>function<｜tool_sep｜>"
            '<steptml:invoke name="f"></steptml:invoke><｜tool_call_end｜>'
            "<｜tool_call_begin｜>function<｜tool_sep｜>",
            1,
        ),
    ],
    "deepseek_v32": [
        ('<｜DSML｜function_calls>\n<｜DSML｜invoke name="get_wea', 0),
        (
            '<｜DSML｜function_calls>\n<｜DSML｜invoke name="f">\n<｜DSML｜parameter name="city" '
            'string="true">Tok',
            0,
        ),
        ('Hi <｜DSML｜function_calls>\n<｜DSML｜invoke name="f">\n<｜DSML｜parameter name="ci', 0),
        (
            '<｜DSML｜function_calls>\n<｜DSML｜invoke name="f">\n</｜DSML｜invoke>\n'
            '<｜DSML｜invoke name="g">\n<｜DSML｜parameter name="a" string="fal',
            1,
        ),
    ],
    "openai": [
        ('<|channel|>commentary to=functions.f <|constrain|>json<|message|>{"a": 1', 0),
        ("<|channel|>commentary to=functions.f", 0),
        (
            "<|channel|>commentary to=functions.f<|message|>{}<|call|><|start|>assistant"
            "<|channel|>commentary to=functions.g <|constrain|>json<|message|>{",
            1,
        ),
    ],
    "deepseek_v3": [
        ("Let me look.<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>get_wea", 0),
        (
            "<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>f\n```json\n"
            '{"a": 1}\n```<｜tool▁call▁end｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>g\n'
            '```json\n{"b',
            1,
        ),
    ],
    "deepseek_v31": [
        # vLLM's case: cut off part way through the block
        ("Let me look that up.<｜tool▁calls▁begin｜>", 0),
        ('<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>foo<｜tool▁sep｜>{"x"', 0),
        (
            "<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>f<｜tool▁sep｜>{}<｜tool▁call▁end｜>"
            "<｜tool▁call▁begin｜>g<｜tool▁s",
            1,
        ),
    ],
    "kimi_k2": [
        (
            "I'll check. <|tool_calls_section_begin|><|tool_call_begin|>functions.get_weather:0 "
            '<|tool_call_argument_begin|>{"city": "Bei',
            0,
        ),
        ("<|tool_calls_section_begin|><|tool_call_begin|>functions.get_wea", 0),
        (
            "<|tool_calls_section_begin|><|tool_call_begin|>functions.f:0<|tool_call_argument_begin|>"
            "{}<|tool_call_end|><|tool_call_begin|>functions.g:1<|tool_call_argument_begin|>{",
            1,
        ),
    ],
    "functiongemma": [
        ("<start_function_call>call:get_weather{location:<escape>Lon", 0),
        ("Let me check. <start_function_call>call:get_wea", 0),
        ("<start_function_call>", 0),
        ("<start_function_call>call:f{a:12", 0),
        ("<start_function_call>call:f{a:1}<end_function_call><start_function_call>call:g{b:[1,", 1),
        ("<start_function_call>call:f{}<end_function_call>\n<start_function_call>call:g", 1),
    ],
}


def _tagged_json_cases(fmt: str) -> Tuple[List[str], List[Tuple[str, int]]]:
    """Malformed and truncated texts of a tagged-JSON format, from its spec entry."""
    r = RENDERERS[fmt]
    assert isinstance(r, TaggedJson)
    s, e = r.opener(r.starts[0]), r.end
    key = json.dumps(r.args_keys[0]) if r.args_keys else ""
    nk = json.dumps(r.name_key)

    def wrap(obj: str) -> str:
        return f"[{obj}]" if r.array else obj

    def head(name: str) -> str:
        """A call object up to its arguments."""
        return f'{{"{name}": ' if r.by_name else f'{{{nk}: "{name}", {key}: '

    ok = wrap(head("ok") + "{}}")
    malformed = [
        s + wrap(head("func") + '{"a": 1]}') + e,
        s + wrap(head("func") + '{"a": undefined}}') + e,
        s + "not json at all" + e,
        f"{s}{ok}{e}\n{s}" + wrap(head("bad") + '{"x": tru}}') + e,
        s + wrap(head("f") + "[1, 2]}") + e,
        s + wrap(head("f") + '"not an object"}') + e,
    ]
    if r.by_name:
        # one key per call, and a name that is not blank
        malformed += [s + wrap(head("f") + '{}, "g": {}}') + e, s + wrap(head(" ") + "{}}") + e]
    else:
        malformed.append(s + wrap(f'{{{key}: {{"a": 1}}}}') + e)
    if "string_args" not in r.forms:
        # this format's arguments are an object, never a string holding one
        malformed.append(s + wrap(head("f") + '"{\\"a\\": 1}"}') + e)
    opening = "[" if r.array else ""
    truncated = [
        (f'{s}{opening}{head("func")}{{"a": 1}}', 0),
        (f'Text {s}{opening}{head("f")}{{"a": "unterminated}}}}]{e}', 0),
        (f'{s}{ok}{e}\n{s}{opening}{head("g")}{{"a"', 1),
    ]
    if not toolparse.spec.get_spec(fmt).raw["call"].get("tentative"):
        # cut before a call started: truncated (with a tentative start marker, text)
        truncated += [
            (f"{s}{opening}{head('func')[:-6]}", 0),
            (f"Text {s}", 0),
            (f"{s}{ok}{e}\n{s}{opening}{head('g')[:-5]}", 1),
            (f"Hi {s}{ok}{e}\n{s}\n", 1),
        ]
    if r.array:
        truncated.append((f'{s}[{head("f")}{{}}}}, {head("g")}{{"a"', 1))
    return malformed, truncated


for _fmt in TAGGED_JSON + TAGGED_JSON_12:
    MALFORMED[_fmt], TRUNCATED[_fmt] = _tagged_json_cases(_fmt)


def _xml_cases(fmt: str) -> Tuple[List[str], List[Tuple[str, int]]]:
    """Malformed and truncated texts of an XML-parameter format (issue 12), from its markers."""
    r = RENDERERS[fmt]
    assert isinstance(r, XmlParams)
    m = r.m
    cs = m.get("call_start", "")
    ce = m.get("call_end", "")
    glm = "value_start" in m
    ne = "" if m["function_name_end"] == "\n" else m["function_name_end"]
    head = m["parameter_string"] if "parameter_string" in m else m["parameter_name_end"]
    head += m.get("value_start", "")
    ok = cs + r.function("get_time", {}) + ce
    opened = f"{cs}{m['function_start']}get_weather{ne or chr(10)}"
    malformed = [
        # text between parameters after the call started
        f"{opened}\njunk\n{m['function_end']}{ce}",
        f"Hi {ok}\n{opened}junk here{m['function_end']}{ce}",
    ]
    if glm:  # a key without its value tag
        malformed.append(
            f"{opened}{m['parameter_start']}city{m['parameter_name_end']}Tokyo{m['function_end']}{ce}"
        )
    if "parameter_string" in m:  # a head that is none of the three
        malformed.append(
            f'{opened}{m["parameter_start"]}a" strng="x">1{m["parameter_end"]}'
            f"{m['function_end']}{ce}"
        )
    truncated = [
        (f"{cs}{m['function_start']}get_wea", 0),
        (f"{opened}{m['parameter_start']}city{head}Tok", 0),
        (f"Hello {cs or m['function_start']}", 0),
        (f"{opened}{m['parameter_start']}ci", 0),
        (f"{ok}\n{opened}{m['parameter_start']}city{head}Pa", 1),
        (f"Hi {ok}\n{cs}{m['function_start']}g", 1),
    ]
    return malformed, truncated


for _fmt in XML_FORMATS[7:]:
    MALFORMED[_fmt], TRUNCATED[_fmt] = _xml_cases(_fmt)

MALFORMED["olmo3"] = [
    "<function_calls>func(arg='val'</function_calls>",
    "<function_calls>func(arg=undefined)</function_calls>",
    "<function_calls>f(a=1) g()</function_calls>",
    "<function_calls>[f()]</function_calls>",
    "<function_calls>f(a=1)\nnot a call</function_calls>",
]
TRUNCATED["olmo3"] = [
    ("<function_calls>func(arg='val'", 0),
    ("<function_calls>func(arg=", 0),
    ("Hi <function_calls>", 0),
    ("<function_calls>f(a=1)\ng(b=", 1),
]
MALFORMED["lfm2"] = [
    "<|tool_call_start|>[func(arg='val']<|tool_call_end|>",
    "<|tool_call_start|>[func(arg=undefined)]<|tool_call_end|>",
    "<|tool_call_start|>func(a=1)<|tool_call_end|>",
    "<|tool_call_start|>[f(a=1), g(b=[1, 2)]<|tool_call_end|>",
]
TRUNCATED["lfm2"] = [
    ("<|tool_call_start|>[func(arg='val')", 1),
    ("<|tool_call_start|>", 0),
    ("Hi <|tool_call_start|>[f(), g(a='x", 1),
    ("<|tool_call_start|>[func(arg=", 0),
]

# issue 12 (fmt-json helper): llama4_json is llama3_json's wire format; dots and gigachat35 are
# XML parameters in their own wrappers
MALFORMED["llama4_json"] = list(MALFORMED["llama3_json"])
TRUNCATED["llama4_json"] = list(TRUNCATED["llama3_json"])
MALFORMED["dots"] = [
    '<dots_function_call>\n<invoke name="f">\njunk\n</invoke>\n</dots_function_call>',
    '<dots_function_call>\n<invoke name="f">\n<parameter name="a\nb">1</parameter></invoke>',
    '<dots_function_call><invoke name="f"><parameter name="a"b>1</parameter></invoke>',
]
TRUNCATED["dots"] = [
    ('<dots_function_call>\n<invoke name="get_weath', 0),
    ('<dots_function_call>\n<invoke name="get_weather">\n<parameter name="city">Tok', 0),
    ('Hi <dots_function_call>\n<invoke name="get_weather"', 0),
    (
        '<dots_function_call>\n<invoke name="get_time">\n</invoke>\n'
        '<invoke name="get_weather">\n<parameter name="ci',
        1,
    ),
    ('<dots_function_call>\n<invoke name="get_time">\n</invoke>\n<invoke name="g', 1),
]
MALFORMED["gigachat35"] = [
    '<｜GCML｜tool_calls>\n<｜GCML｜invoke name="f">\njunk\n</｜GCML｜invoke>',
    '<｜GCML｜tool_calls><｜GCML｜invoke name="f"><｜GCML｜parameter name="a" '
    'strng="x">1</｜GCML｜parameter></｜GCML｜invoke></｜GCML｜tool_calls>',
]
TRUNCATED["gigachat35"] = [
    ('<｜GCML｜tool_calls>\n<｜GCML｜invoke name="get_wea', 0),
    (
        '<｜GCML｜tool_calls>\n<｜GCML｜invoke name="f">\n<｜GCML｜parameter name="city" '
        'string="true">Tok',
        0,
    ),
    ('Hi <｜GCML｜tool_calls>\n<｜GCML｜invoke name="f">\n<｜GCML｜parameter name="ci', 0),
    (
        '<｜GCML｜tool_calls>\n<｜GCML｜invoke name="f">\n</｜GCML｜invoke>\n'
        '<｜GCML｜invoke name="g">\n<｜GCML｜parameter name="a" string="fal',
        1,
    ),
]


# ----- issue 12: gemma4, plamo3, ling3, spark25, iquest_q1, trinity (spec entries in existing
# families; tests/test_issue12_other.py has the peers' own cases) -----


class Gemma4(FunctionGemma):
    """gemma4: functiongemma's syntax with ``<|tool_call>`` / ``<tool_call|>`` and ``<|"|>``; an
    escaped value is always a string (its template escapes only strings), so any string may be
    written."""

    def value_ok(self, value: Any) -> bool:
        if isinstance(value, str):
            return self.m["string"] not in value
        if isinstance(value, list):
            return all(self.value_ok(v) for v in value)
        if isinstance(value, dict):
            return all(self.key_ok(k) and self.value_ok(v) for k, v in value.items())
        return _finite(value)


class Plamo3(NamedJson):
    """plamo3: ``<|plamo:begin_tool_requests:plamo|>`` around calls, each
    ``<|plamo:begin_tool_request:plamo|><|plamo:begin_tool_name:plamo|>N<|plamo:end_tool_name:plamo|>``
    ``<|plamo:begin_tool_arguments:plamo|><|plamo:constrain|>json<|plamo:msg|>{...}``
    ``<|plamo:end_tool_arguments:plamo|><|plamo:end_tool_request:plamo|>``."""

    def __init__(self, name: str) -> None:
        super().__init__(name)
        self.extra_tokens = ("get_weather", "<|plamo:", ":plamo|>", "json", "{", "}")

    def _call(self, k: int, name: str, a: str, form: str) -> str:
        m = self.m
        return (
            f"{m['call_start']}{m['name_start']}{name}{m['args_start']}{a}{m['args_end']}"
            f"{m['call_end']}"
        )


OTHER_FORMATS = ("gemma4", "plamo3", "ling3", "spark25", "iquest_q1", "trinity")
RENDERERS["gemma4"] = Gemma4("gemma4")
RENDERERS["plamo3"] = Plamo3("plamo3")
for _fmt in ("ling3", "spark25", "iquest_q1"):
    RENDERERS[_fmt] = XmlParams(_fmt)
RENDERERS["trinity"] = TaggedJson("trinity")
MALFORMED["trinity"], TRUNCATED["trinity"] = _tagged_json_cases("trinity")

_G4S, _G4E, _G4Q = "<|tool_call>", "<tool_call|>", '<|"|>'
MALFORMED["gemma4"] = [
    f"{_G4S}call:f{{a:}}{_G4E}",
    f"{_G4S}call:f{{a:1]}}{_G4E}",
    f"{_G4S}get_weather{{a:1}}{_G4E}",
    f"{_G4S}call:get weather{{}}{_G4E}",
    f"{_G4S}call:f{{a:<oops>}}{_G4E}",
    f"{_G4S}call:f{{a:{_G4Q}x{_G4Q}}}{_G4E}{_G4S}call:g{{b:1 2}}{_G4E}",
]
TRUNCATED["gemma4"] = [
    (f"{_G4S}call:get_weather{{location:{_G4Q}Lon", 0),
    (f"Let me check. {_G4S}call:get_wea", 0),
    (f"{_G4S}", 0),
    (f"{_G4S}call:f{{a:12", 0),
    (f"{_G4S}call:f{{a:1}}{_G4E}{_G4S}call:g{{b:[1,", 1),
    (f"{_G4S}call:f{{}}{_G4E}\n{_G4S}call:g", 1),
]

_PL = "<|plamo:"
_PL_SEC, _PL_SEC_END = _PL + "begin_tool_requests:plamo|>", _PL + "end_tool_requests:plamo|>"
_PL_CALL, _PL_CALL_END = _PL + "begin_tool_request:plamo|>", _PL + "end_tool_request:plamo|>"
_PL_NAME = _PL + "begin_tool_name:plamo|>"
_PL_ARGS = (
    _PL
    + "end_tool_name:plamo|>"
    + _PL
    + "begin_tool_arguments:plamo|>"
    + _PL
    + "constrain|>json"
    + _PL
    + "msg|>"
)
_PL_ARGS_END = _PL + "end_tool_arguments:plamo|>"


def plamo3_call(name: str, args: str, fence: bool = True) -> str:
    """One plamo3 call (``fence``: with its end-of-arguments marker)."""
    end = _PL_ARGS_END if fence else ""
    return f"{_PL_CALL}{_PL_NAME}{name}{_PL_ARGS}{args}{end}{_PL_CALL_END}"


MALFORMED["plamo3"] = [
    _PL_SEC + plamo3_call("f", '{"a": 1]') + _PL_SEC_END,
    _PL_SEC + plamo3_call("f", "[1, 2]") + _PL_SEC_END,
    _PL_SEC + plamo3_call("a b", "{}") + _PL_SEC_END,
    _PL_SEC + " noise " + plamo3_call("f", "{}") + _PL_SEC_END,
    _PL_SEC + plamo3_call("f", '{"a": 1} x') + _PL_SEC_END,
]
TRUNCATED["plamo3"] = [
    (_PL_SEC + _PL_CALL + _PL_NAME + "get_wea", 0),
    ("Let me look." + _PL_SEC, 0),
    (_PL_SEC + _PL_CALL + _PL_NAME + "f" + _PL_ARGS + '{"city": "Tok', 0),
    (_PL_SEC + plamo3_call("f", "{}") + _PL_CALL + _PL_NAME + "g" + _PL_ARGS + '{"b', 1),
]

for _fmt, _s, _e in (
    ("ling3", "<tool_call>", "</tool_call>"),
    ("spark25", "<tool_call>", "</tool_call>"),
    ("iquest_q1", "<iquest_tool_call>", "</iquest_tool_call>"),
):
    MALFORMED[_fmt] = [
        f"{_s}get_weather<arg_key>city</arg_key>Tokyo{_e}",
        f"{_s}f<arg_key>a\nb</arg_key><arg_value>1</arg_value>{_e}",
        f"{_s}get_weather\njunk\n{_e}",
    ]
    TRUNCATED[_fmt] = [
        (f"{_s}get_weather<arg_key>city</arg_key><arg_value>Tok", 0),
        (f"Hi {_s}", 0),
        (f"{_s}get_wea", 0),
        (f"{_s}get_time{_e}{_s}get_weather<arg_key>city</arg_key><arg_v", 1),
        (f"{_s}get_time{_e}\n{_s}get_wea", 1),
    ]


def truncated_texts(fmt: str) -> List[Tuple[str, int]]:
    return TRUNCATED.get(fmt, [])


def malformed_texts(fmt: str) -> List[str]:
    return MALFORMED.get(fmt, [])


def composite_case(fmt: str) -> Case:
    """Content, several calls with escapes and non-ASCII: the text the every-offset split tests
    cut everywhere."""
    r = renderer(fmt)
    calls: List[Call] = [
        ("get_weather", {"city": 'Zürich "CH"', "days": 3, "ok": True}),
        ("get_time", {}),
        ("write_file", {"path": "a\\b.txt", "content": "x\ny 🎉 中", "tags": ["t", None, 1.5]}),
    ]
    if r.surround:
        return r.render(calls, before="Checking now... ", after=" All done ✅", label="composite")
    return r.render(calls, before="\n", after="\n", label="composite")


# ==================================================================================================
# Drivers
# ==================================================================================================

BACKENDS = ("rust", "python")


def core_parser(
    backend: str, fmt: str, types: Optional[Dict[str, Dict[str, List[str]]]] = None
) -> Any:
    """The core parser of ``backend`` (``_core.Parser`` or its reference twin)."""
    if backend == "rust":
        return _core.Parser(fmt, types or {})
    return reference.Parser(fmt, types or {})


def core_extract(
    backend: str, fmt: str, text: str, types: Optional[Dict[str, Dict[str, List[str]]]] = None
) -> Any:
    if backend == "rust":
        return _core.extract(fmt, text, types or {})
    return reference.extract(fmt, text, types or {})


def chunks_at(text: str, cuts: Sequence[int]) -> List[str]:
    """``text`` cut at the given character offsets (sorted, duplicates give empty deltas)."""
    out = []
    prev = 0
    for c in sorted(cuts):
        out.append(text[prev:c])
        prev = c
    out.append(text[prev:])
    return out


def random_chunks(text: str, rng: random.Random, max_cuts: int = 8) -> List[str]:
    k = rng.randint(0, min(max_cuts, len(text)))
    return chunks_at(text, rng.sample(range(len(text) + 1), k) if text else [])


def split_plans(text: str, rng: random.Random, n_random: int = 3) -> List[List[str]]:
    """Whole text, one character per delta, and some random multi-way splits."""
    plans = [[text], list(text)]
    for _ in range(n_random):
        plans.append(random_chunks(text, rng))
    return plans


def core_feed_all(p: Any, chunks: Sequence[str]) -> List[Any]:
    """Per-feed results (each ``feed`` then ``finish``)."""
    out = [p.feed(c) for c in chunks]
    out.append(p.finish())
    return out


@dataclass
class Streamed:
    content: str = ""
    reasoning: str = ""
    calls: List[List[Any]] = field(default_factory=list)  # [id, name, args]
    malformed: bool = False
    truncated: bool = False

    def result(self) -> Tuple[Optional[str], Optional[str], List[Tuple[str, str]]]:
        return (
            self.content or None,
            self.reasoning or None,
            [(n, a) for _, n, a in self.calls],
        )


def accumulate(deltas: Sequence[Any]) -> Streamed:
    """Concatenates core per-feed tuples, checking the protocol on the way: a call's first
    fragment carries its name (and the next index), later ones a non-empty arguments fragment."""
    s = Streamed()
    for d in deltas:
        if d is None:
            continue
        content, reasoning, calls = d
        assert content is not None or reasoning is not None or calls, f"empty delta {d!r}"
        assert content != "" and reasoning != "", f"empty text in delta {d!r}"
        s.content += content or ""
        s.reasoning += reasoning or ""
        for index, id_, name, args in calls or ():
            if name is not None:
                assert index == len(s.calls), f"call index {index} after {len(s.calls)} calls"
                assert name, "empty name"
                s.calls.append([id_, name, args or ""])
            else:
                assert id_ is None, f"id on a later fragment: {d!r}"
                assert 0 <= index < len(s.calls), f"fragment for unknown call {index}"
                assert args, f"empty arguments fragment {d!r}"
                s.calls[index][2] += args
    return s


def core_stream(
    backend: str, fmt: str, chunks: Sequence[str], types=None
) -> Tuple[List[Any], Streamed]:
    deltas = core_feed_all(core_parser(backend, fmt, types), chunks)
    return deltas, accumulate(deltas)


def twin_stream(fmt: str, chunks: Sequence[str], types=None) -> Tuple[List[Any], Streamed]:
    """Feeds both twins the same deltas; asserts identical per-feed output (invariant 5)."""
    a = core_parser("rust", fmt, types)
    b = core_parser("python", fmt, types)
    deltas = []
    for i, c in enumerate(list(chunks) + [None]):
        da = a.feed(c) if c is not None else a.finish()
        db = b.feed(c) if c is not None else b.finish()
        assert da == db, (
            f"twins differ at feed #{i} ({'finish' if c is None else repr(c)}) of {list(chunks)!r}:"
            f"\n  rust:   {da!r}\n  python: {db!r}"
        )
        deltas.append(da)
    assert a.malformed == b.malformed, (fmt, list(chunks), a.malformed, b.malformed)
    assert a.truncated == b.truncated, (fmt, list(chunks), a.truncated, b.truncated)
    s = accumulate(deltas)
    s.malformed, s.truncated = a.malformed, a.truncated
    return deltas, s


def twin_extract(fmt: str, text: str, types=None) -> Any:
    xa = _core.extract(fmt, text, types or {})
    xb = reference.extract(fmt, text, types or {})
    assert xa == xb, (
        f"twins differ on extract({fmt!r}, {text!r}):\n  rust:   {xa!r}\n  python: {xb!r}"
    )
    return xa


def facade_stream(parser: Any, chunks: Sequence[str]) -> Tuple[Any, List[Any]]:
    """Streams through the public API; returns the reconstructor (protocol checked) and deltas."""
    rec = toolparse.StreamingToolReconstructor(strict_order=True)
    stream = parser.stream()
    deltas = []
    for c in chunks:
        d = stream.feed(c)
        deltas.append(d)
    deltas.append(stream.finish())
    for d in deltas:
        if d is not None:
            rec.append_delta(d)
    return rec, deltas


def check_truncated_output(
    fmt: str, backend: str, text: str, complete: int, tools: Any = None
) -> None:
    """Text that ends inside a call: non-streaming keeps the ``complete`` calls before it and
    says ``truncated``; none complete: the text whole as content. A stream says ``truncated``
    (not ``malformed``), and its complete calls are the non-streaming ones."""
    parser = toolparse.get_parser(fmt, tools=tools, backend=backend)
    info = parser.extract_tool_calls(text)
    assert info.truncated, (text, info)
    assert len(info.tool_calls) == complete, (text, info)
    if complete == 0:
        assert (info.tools_called, info.content) == (False, text), (text, info)
    got = [(c.function.name, c.function.arguments) for c in info.tool_calls]
    for chunks in ([text], list(text), [text[i : i + 3] for i in range(0, len(text), 3)]):
        rec, deltas = facade_stream(parser, chunks)
        stream_ = parser.stream()
        for c in chunks:
            stream_.feed(c)
        stream_.finish()
        assert stream_.truncated and not stream_.malformed, (text, chunks)
        streamed = [(c.function.name, c.function.arguments) for c in rec.tool_calls]
        assert streamed[:complete] == got, (text, chunks, streamed, got)
        assert len(streamed) - complete in (0, 1), (text, chunks, streamed)
        # the streamed call the output ended inside, if its start was sent
        want = complete if len(streamed) > complete else None
        assert stream_.unfinished_call == want, (text, chunks, stream_.unfinished_call)


def without_ws(s: Optional[str]) -> str:
    return re.sub(r"[ \t\n\r]", "", s or "")
