"""Rendering calls into a format's text: the shared helpers and the ``Renderer`` base class.

A renderer turns ``[(name, args)]`` plus optional content around the calls into the text a model of
its format writes, and the result a parser must give for it (a :class:`TestCase`):

* ``content``: the text outside the calls, by the whitespace rule (a segment of
  content that is only whitespace and sits next to a call is not content; any other segment is kept
  exactly; ``None`` when nothing is left). With no call at all, the whole text is content.
* ``reasoning``: the reasoning text (harmony's ``analysis`` channel), else ``None``.
* ``calls``: ``[(name, arguments_text)]``. JSON-native formats pass the model's own JSON text of
  the arguments through unchanged, so the expected text is the text rendered into the output
  (rendered several ways: ``json.dumps`` defaults, ``ensure_ascii=False``, compact, indented).
  Formats that are not JSON (Python literals, XML parameters) convert to
  ``json.dumps(args, ensure_ascii=False)``.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any, Dict, List, Optional, Sequence, Tuple, Union

from ..grammar.schema import type_of
from .case import ExpectedCall, TestCase


@dataclass(frozen=True)
class RawJSON:
    """Arguments given as JSON text, rendered into the output unchanged (JSON-native formats)."""

    text: str


Args = Union[Dict[str, Any], RawJSON]
Call = Tuple[str, Args]


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
    """The whitespace rule over the content segments between/around the calls."""
    if n_calls == 0:
        text = "".join(segments)
        return text or None
    kept = "".join(s for s in segments if s and not is_ws(s))
    return kept or None


def json_type(v: Any) -> str:
    """The JSON Schema type of a value (as the typed XML formats are told in TOOLS); None is
    "object": "null" in any typed parameter is null (and json.loads("null") too)."""
    return "object" if v is None else type_of(v)


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
    from toolparse.parser import _schema_types, _tool_models

    return _schema_types(_tool_models(tools))


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


def _case(
    fmt: str,
    text: str,
    content: Optional[str],
    reasoning: Optional[str],
    calls: Sequence[Tuple[str, str]],
    tools: Optional[List[Dict[str, Any]]],
    label: str,
    before: str,
    before_at: int,
    patterns: Sequence[str],
    kind: str,
    complete: int = 0,
) -> TestCase:
    """A generated case (the renderer's own data: built without re-validating)."""
    return TestCase.model_construct(
        format=fmt,
        label=label,
        model_output=text,
        tool_calls=[ExpectedCall.model_construct(name=n, arguments=a) for n, a in calls],
        content=content,
        reasoning=reasoning,
        tools=tools,
        patterns=list(patterns),
        kind=kind,
        complete=complete,
        before=before,
        before_at=before_at,
    )


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

    # the tool names the format's markup can carry, and whether its argument keys are written
    # where names are (so the same rule holds for them)
    name_pattern = r"[A-Za-z_][A-Za-z0-9_]*"
    keys_are_names = False

    def name_ok(self, name: str) -> bool:
        return bool(re.fullmatch(self.name_pattern, name))

    def key_ok(self, key: str) -> bool:
        if self.keys_are_names:
            return self.name_ok(key)
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
        patterns: Sequence[str] = (),
    ) -> TestCase:
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
            return _case(
                self.name,
                text,
                expected_content([text], 0),
                None,
                [],
                tools,
                label,
                text,
                0,
                patterns,
                "no_call",
            )
        if any(between):
            body = self._joined(calls, before, between, after, form, style, reasoning)
        else:
            body = self._body(calls, before, after, form, style, reasoning)
        text, expected_calls = body[0], body[1]
        before_at = body[2] if len(body) > 2 else 0
        assert text[before_at:].startswith(before)
        content = expected_content([before, *between, after], len(calls))
        return _case(
            self.name,
            text,
            content,
            reasoning or None,
            expected_calls,
            tools,
            label or form,
            before,
            before_at,
            patterns,
            "well_formed",
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
