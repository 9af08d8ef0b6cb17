"""The renderers: one class per family, configured from the format's spec entry
(``toolparse.spec.get_spec(name)``), so a new format in an existing family gets its cases with no
code. ``RENDERERS`` holds one per registered format; :func:`renderer` finds it by name or alias.
"""

from __future__ import annotations

import json
import keyword
import os
import re
from typing import Any, Callable, Dict, List, Sequence, Tuple

import toolparse
import toolparse.spec

from .functionary import Functionary
from .render import (
    Call,
    RawJSON,
    Renderer,
    _finite,
    _obj,
    args_text,
    converted,
    json_type,
    py_lit,
)


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


# ----- Python calls (the pythonic family, configured from the spec) -----


class Pythonic(Renderer):
    """Python calls, as the format's spec entry says: a bare list ``[f(a=1, b='x'), g()]``
    (``list_start``), a list between section markers (llama4_pythonic, lfm2; with ``list_start``
    too, the markers are optional: form ``bare``), or one call per line between section markers
    (olmo3, ``calls: newline``). Text around the calls is content (a ``[`` anywhere may start a
    list, as in SGLang, so with a bare list content here has no ``[``)."""

    json_native = False
    extra_tokens = ("f(", "a=", "=1", "'x'", '"x"', "True", "False", "None", "\\n", "\\x00")
    keys_are_names = True

    def __init__(self, name: str) -> None:
        sp = toolparse.spec.get_spec(name)
        m = sp.markers
        self.name = name
        self.start, self.end = m.get("section_start", ""), m.get("section_end", "")
        self.bare_list = "list_start" in m
        self.list = sp.calls == "list"
        forms = ["spaced", "compact", "double_quotes"]
        if self.start and self.bare_list:
            forms.append("bare")
        if self.start:
            forms.append("newlines")
        self.forms = tuple(forms)
        self.markers = tuple(x for x in (m.get("list_start"), self.start, self.end) if x)

    def name_ok(self, name: str) -> bool:
        return name.isidentifier() and name.isascii() and not keyword.iskeyword(name)

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
        if not self.start or form == "bare":
            return before + self.list_text(calls, form) + after, expected
        nl = "\n" if form == "newlines" else ""
        if self.list:
            inner = self.list_text(calls, form)
        else:
            inner = "\n".join(self.list_text([c], form)[1:-1] for c in calls)
        return before + self.start + nl + inner + nl + self.end + after, expected


# ----- JSON between markers (the tagged_json family, configured from the spec) -----


class TaggedJson(Renderer):
    """``START {call} END``, ``START [{call}, ...] END`` or ``START {call}\n{call} END`` (a
    newline section) as the format's spec entry says: its
    start markers (every one gets a form), end marker (may be missing: form ``no_close``), shape,
    name and argument keys (the second argument key gets a form; apertus' calls are
    ``{NAME: {...}}``), whether the arguments may be a JSON string, and the content's wrapper
    markers (cohere's, dropped: content must not hold them)."""

    def __init__(self, name: str) -> None:
        sp = toolparse.spec.get_spec(name)
        m, call = sp.markers, sp.call
        self.name = name

        def roles(prefix: str) -> List[str]:
            return [m[r] for r in sorted(r for r in m if r == prefix or r.startswith(prefix + "_"))]

        self.starts, self.ends = roles("call_start"), roles("call_end")
        self.array = call.shape == "array"
        # a section of call objects one per line (``calls`` "newline"), but in form per_call
        self.lines = sp.calls == "newline" and not self.array
        self.end = self.end_for(self.starts[0])
        self.args_keys = list(call.args_keys or ())
        self.name_key = call.name_keys[0] if call.name_keys else ""
        self.by_name = call.keyed_by_name
        self.wrappers = tuple(m[r] for r in ("text_start", "text_end") if r in m)
        self.ids = 0  # the last call id rendered (form call_id)
        # the wrappers are markup: with them in the text, content is not every character outside
        # the calls
        self.plain_content = not self.wrappers
        forms = ["plain", "newlines", "per_call"]
        if not self.by_name:
            forms.append("args_first")
        if call.id_keys:
            forms.append("call_id")  # cohere's ``"tool_call_id": "0"`` before the name
        forms += [f"start_{k}" for k in range(2, len(self.starts) + 1)]
        if len(self.args_keys) > 1:
            forms.append("alt_key")
        if sp.arguments == "json_object_or_json_string":
            forms.append("string_args")
        if self.end:
            forms.append("no_close")
        self.forms = tuple(forms)
        self.forms_no_after = ("no_close",) if self.end else ()
        self.markers = tuple(self.starts) + tuple(self.ends) + self.wrappers
        self.id_key = call.id_keys[0] if call.id_keys else ""

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
            # the model's ids ("1", "2", ...): unique, as the model writes them in one response
            self.ids += 1
            return _obj([(json.dumps(self.id_key), f'"{self.ids}"'), (nk, n), (key, a)], style)
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
        elif self.lines and form != "per_call":
            groups = ["\n".join(objs)]
        else:
            groups = objs
        # without an end marker, whitespace after the body is the content's
        tail = nl + end if end else ""
        lead = start + nl if start else ""
        blocks = [f"{lead}{g}{tail}" for g in groups]
        if form == "no_close":
            blocks[-1] = blocks[-1][: len(blocks[-1]) - len(end)]
        return before + "\n".join(blocks) + after, expected


# ----- XML parameters typed by schema -----


def xml_value(v: Any) -> str:
    """A parameter value as the XML-parameter formats write it: strings raw, anything else as
    JSON."""
    return v if isinstance(v, str) else json.dumps(v, ensure_ascii=False)


# The glm-style formats' spec entries do not say how their calls are laid out (every layout
# parses): those written with a newline after the name and after each tag (glm45's), and those
# whose calls are joined with no newline between them (glm47's); the others: no newline after the
# tags, calls on their own lines.
XML_LINES = ("glm45", "poolside_v1", "hy_v3", "k2_horizon", "spark25")
GLM_JOINED = ("glm47", "ling3", "iquest_q1")


class XmlParams(Renderer):
    """The XML-parameter family (``rust/formats/xml_params.rs``), configured from the format's
    spec entry: qwen3_coder / seed_oss
    ``<tool_call>\\n<function=N>\\n<parameter=K>\\nV\\n</parameter>\\n</function>\\n</tool_call>``,
    minimax_m2 ``<invoke name="N">``,
    glm ``<tool_call>N<arg_key>K</arg_key><arg_value>V</arg_value>``,
    step3 ``<steptml:invoke name="N">``, deepseek_v32 DSML with ``string="true|false"``; values
    typed by the tool schema (DSML: by the ``string`` attribute). The section wrapper may be
    missing ("bare" form); where the format has a value-type element (k2_horizon's
    ``<ifm|arg_type>T</ifm|arg_type>`` before each value), the "typed" form writes it."""

    json_native = False
    typed = True
    name_pattern = r"[A-Za-z_][A-Za-z0-9_.\-]*"
    keys_are_names = True

    def __init__(self, name: str) -> None:
        spec = toolparse.spec.get_spec(name)
        self.name = name
        self.m = dict(spec.markers)
        self.strip = spec.call.value_newlines == "strip_one"
        self.many = spec.call.calls_per_section == "many"
        self.forms = ("wrapped", "bare") if "call_start" in self.m else ("plain",)
        if "value_type_start" in self.m:
            self.forms += ("typed",)
        self.markers = tuple(v for v in self.m.values() if len(v) > 2)
        # qwen3_coder's layout: a newline around every value and after every tag
        self.lines = self.m["function_name_end"] == ">" and self.strip

    def value_ok(self, value: Any) -> bool:
        if isinstance(value, str):
            if self.strip and not self.lines and (value.startswith("\n") or value.endswith("\n")):
                return False  # written inline, a leading/trailing newline would be stripped
            # "null" (any case) is null in every typed parameter, as in vLLM.
            return not any(m in value for m in self.markers) and value.lower() != "null"
        return _finite(value) and not any(
            m in json.dumps(value, ensure_ascii=False) for m in self.markers
        )

    def param(self, k: str, v: Any, typed: bool = False) -> str:
        m = self.m
        if "value_start" in m:  # glm
            sep = "\n" if self.name in XML_LINES else ""
            kind = ""
            if typed:  # the value's type element: the schema's type of the value
                t = "null" if v is None else json_type(v)
                kind = f"{m['value_type_start']}{t}{m['value_type_end']}{sep}"
            return (
                f"{m['parameter_start']}{k}{m['parameter_name_end']}{sep}"
                f"{kind}{m['value_start']}{xml_value(v)}{m['parameter_end']}{sep}"
            )
        if "parameter_string" in m:  # DSML
            head = m["parameter_string"] if isinstance(v, str) else m["parameter_json"]
            return f"{m['parameter_start']}{k}{head}{xml_value(v)}{m['parameter_end']}\n"
        value = f"\n{xml_value(v)}\n" if self.lines else xml_value(v)
        return f"{m['parameter_start']}{k}{m['parameter_name_end']}{value}{m['parameter_end']}\n"

    def function(self, name: str, args: Dict[str, Any], typed: bool = False) -> str:
        m = self.m
        params = "".join(self.param(k, v, typed) for k, v in args.items())
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
            fns.append(self.function(name, args, form == "typed"))
        sep = "" if self.name in GLM_JOINED else "\n"
        if form not in ("wrapped", "typed"):
            text = sep.join(fns)
        elif self.many:
            text = f"{m['call_start']}\n" + "\n".join(fns) + f"\n{m['call_end']}"
        else:
            text = "\n".join(f"{m['call_start']}\n{fn}\n{m['call_end']}" for fn in fns)
        expected = [(n, converted(a)) for n, a in calls]
        return before + text + after, expected


class XmlParamsXtml(XmlParams):
    """kimi_k3's XTML, in the XML-parameter family:
    ``<|open|>tools<|sep|><|open|>call tool="N" index="I"<|sep|>`` then
    ``<|open|>argument key="K" type="T"<|sep|>V<|close|>argument<|sep|>`` per parameter, then
    ``<|close|>call<|sep|>`` ... ``<|close|>tools<|sep|>``, nothing between the blocks; the type
    attribute types the value (strings raw, the rest JSON), no schema needed. Forms: the bare
    section ("wrapped"), or the whole message as the model writes it ("channel": the content in
    ``<|open|>response<|sep|>`` ... ``<|close|>response<|sep|>``, the section, then
    ``<|close|>message<|sep|>``)."""

    typed = False
    plain_content = False  # the channel markers around the content are dropped

    def __init__(self, name: str) -> None:
        super().__init__(name)
        self.forms = ("wrapped", "channel")

    def param(self, k: str, v: Any, typed: bool = False) -> str:
        m = self.m
        if isinstance(v, str):
            head = m["parameter_string"]
        else:
            # the template's types: integer collapses onto number
            t = "null" if v is None else json_type(v).replace("integer", "number")
            head = m["parameter_string"].replace('"string"', f'"{t}"')
        return f"{m['parameter_start']}{k}{head}{xml_value(v)}{m['parameter_end']}"

    def function(self, name: str, args: Dict[str, Any], index: int = 1) -> str:
        m = self.m
        params = "".join(self.param(k, v) for k, v in args.items())
        return (
            f'{m["function_start"]}{name}{m["function_name_end"]} index="{index}"'
            f"{m['function_attrs_end']}{params}{m['function_end']}"
        )

    def _body(self, calls, before, after, form, style, reasoning):
        m = self.m
        fns = "".join(self.function(n, a, i + 1) for i, (n, a) in enumerate(calls))
        section = f"{m['call_start']}{fns}{m['call_end']}"
        expected = [(n, converted(a)) for n, a in calls]
        if form == "channel":
            text = f"{m['text_start']}{before}{m['text_end']}{section}{m['text_end_2']}{after}"
            return text, expected, len(m["text_start"])
        return before + section + after, expected


def _xml_params(name: str) -> Renderer:
    """The XML-parameter family's renderer (kimi_k3's XTML has its own layout)."""
    if "function_attrs_end" in toolparse.spec.get_spec(name).markers:
        return XmlParamsXtml(name)
    return XmlParams(name)


class MessagesXmlParams(XmlParams):
    """XML parameters inside a message format (Muse, Beam): reasoning messages, message markup
    that is not content, markers never inside string values; the family's own forms."""

    reasoning = True
    plain_content = False
    markers_in_strings = False

    def __init__(self, name: str) -> None:
        super().__init__(name)
        self.forms = type(self).forms


# ----- muse -----


class Muse(MessagesXmlParams):
    """Muse / Muse Glimmer: messages ``<|start|>assistant to=RECIPIENT<|message|>BODY<|eom|>``
    (the first without ``<|start|>assistant``); reasoning in ``to=self``, content in ``to=user``,
    ATEM calls (XML parameters) in a tool recipient's body, wrapped in ``<atem:function_calls>``
    or bare. muse keeps a schema-string value as written; muse_glimmer decodes any value that is
    JSON, so its string values must not be."""

    forms = ("wrapped", "bare", "start_first", "no_end", "per_message")
    extra_tokens = (
        " to=self",
        " to=user",
        "to=functions.f",
        "<|start|>assistant",
        "assistant",
        "self",
        "user",
        "commentary",
        '<atem:invoke name="f">',
    )

    def __init__(self, name: str) -> None:
        super().__init__(name)
        self.glimmer = toolparse.spec.get_spec(name).arguments == "xml_parameters_json_or_string"

    def value_ok(self, value: Any) -> bool:
        if not super().value_ok(value):
            return False
        if self.glimmer and isinstance(value, str):
            try:
                json.loads(value)
            except ValueError:
                return True
            return False  # a string that is JSON text reads back as that JSON value
        return True

    def _joined(self, calls, before, between, after, form, style, reasoning):
        return self._body(calls, before, after, form, style, reasoning, between)

    def _body(self, calls, before, after, form, style, reasoning, between=()):
        m = self.m
        msgs: List[Tuple[str, str]] = []  # (recipient, body)
        before_msg = -1
        if reasoning is not None:
            msgs.append(("self", reasoning))
        if before:
            before_msg = len(msgs)
            msgs.append(("user", before))
        fns = [self.function(n, a) for n, a in calls]
        expected = [(n, converted(a)) for n, a in calls]

        def wrap(fs: List[str]) -> str:
            if form == "bare":
                return "\n".join(fs)
            return f"{m['call_start']}\n" + "\n".join(fs) + f"\n{m['call_end']}"

        if form == "per_message" or any(between):
            for i, (name, _) in enumerate(calls):
                if 0 < i <= len(between) and between[i - 1]:
                    msgs.append(("user", between[i - 1]))
                msgs.append((f"functions.{name}", wrap([fns[i]])))
        elif fns:
            msgs.append((f"functions.{calls[0][0]}", wrap(fns)))
        if after:
            msgs.append(("user", after))
        text = ""
        before_at = 0
        for i, (r, body) in enumerate(msgs):
            # The prompt ends with `<|start|>assistant`: the first header is ` to=R<|message|>`.
            first = i == 0 and form != "start_first"
            head = f" to={r}<|message|>" if first else f"<|start|>assistant to={r}<|message|>"
            if i == before_msg:
                before_at = len(text) + len(head)
            last = i == len(msgs) - 1
            # `no_end`: a message is ended by the next header alone.
            end = m["end_turn"] if last else ("" if form == "no_end" else m["end"])
            text += head + body + end
        return text, expected, before_at


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


class Beam(MessagesXmlParams):
    """beam: harmony messages (``<|channel|>analysis<|message|>R<|end|>``, then
    ``<|start|>assistant<|channel|>final<|message|>A<|return|>``); a call is the message
    `` to=N<|channel|>analysis <|constrain|>xml<|message|>`` with one
    ``<rfl:parameter name="K">\\nV\\n</rfl:parameter>`` per parameter (typed by the schema),
    closed by ``<|call|>`` (the last) or ``<|end|>``. Forms: closing tags missing before the next
    parameter ("no_close"), the first message opened by ``<|start|>assistant`` ("start_first")."""

    forms = ("standard", "no_close", "start_first")
    extra_tokens = (
        "analysis",
        "final",
        " to=get_weather",
        "assistant",
        "xml",
        "<|start|>assistant",
        '<rfl:parameter name="city">',
        "</rfl:parameter>",
        "\n",
    )

    def __init__(self, name: str) -> None:
        super().__init__(name)
        self.markers = tuple(v for v in self.m.values() if len(v) > 4) + ("to=",)

    def param(self, k: str, v: Any, close: bool = True) -> str:
        m = self.m
        end = m["parameter_end"] if close else ""
        return f"{m['parameter_start']}{k}{m['parameter_name_end']}\n{xml_value(v)}\n{end}"

    def _joined(self, calls, before, between, after, form, style, reasoning):
        return self._body(calls, before, after, form, style, reasoning, between)

    def _body(self, calls, before, after, form, style, reasoning, between=()):
        msgs: List[str] = []  # header + <|message|> + body + end
        before_msg = -1
        if reasoning is not None:
            msgs.append(f"<|channel|>analysis<|message|>{reasoning}<|end|>")
        if before:
            before_msg = len(msgs)
            msgs.append(f"<|channel|>final<|message|>{before}<|end|>")
        expected = [(n, converted(a)) for n, a in calls]
        for i, (name, args) in enumerate(calls):
            if 0 < i <= len(between) and between[i - 1]:
                msgs.append(f"<|channel|>final<|message|>{between[i - 1]}<|end|>")
            keys = list(args)
            body = "".join(
                self.param(k, args[k], form != "no_close" or j == len(keys) - 1)
                for j, k in enumerate(keys)
            )
            last = i == len(calls) - 1
            end = "<|call|>" if last else "<|end|>"
            msgs.append(f" to={name}<|channel|>analysis <|constrain|>xml<|message|>{body}{end}")
        if after:
            msgs.append(f"<|channel|>final<|message|>{after}<|return|>")
        text = ""
        before_at = 0
        for i, m in enumerate(msgs):
            # Every message but the first opens with `<|start|>assistant` (the prompt ends with
            # it).
            if i > 0 or form == "start_first":
                text += "<|start|>assistant"
            if i == before_msg:
                before_at = len(text) + m.index("<|message|>") + len("<|message|>")
            text += m
        return text, expected, before_at


class NamedJson(Renderer):
    """A section of calls, each a header (the name; deepseek_v3: a type, the separator and the
    name; kimi_k2: the call id ``functions.N:IDX``), a separator and the JSON arguments
    (deepseek_v3: in a fenced json block). Configured from the format's spec entry."""

    forms: Tuple[str, ...] = ("plain", "newlines", "open_section")
    forms_no_after = ("open_section",)

    def __init__(self, name: str) -> None:
        self.name = name
        spec = toolparse.spec.get_spec(name)
        m = spec.markers
        self.m = m
        self.model_ids = spec.id_style == "model"
        # plamo3: ``CALL_START NAME_START N ARGS_START {...} ARGS_END CALL_END``
        self.tagged = spec.call.shape == "tagged_name_tagged_args"
        # a section that holds only calls (kimi_k2): an empty one, and text in it outside a call,
        # are markup, not content
        self.plain_content = spec.call.between_calls != "dropped"
        if self.model_ids:
            self.forms = ("plain", "newlines", "spaced", "no_prefix", "open_section")
        seps = [m[k] for k in ("name_start", "args_start") if k in m]
        alts = [m[k] for k in ("section_start_alt", "section_end_alt") if k in m]
        self.markers = (m["section_start"], m["section_end"], m["call_start"], m["call_end"])
        self.markers += (*seps, *alts)
        self.extra_tokens = ("function", "functions.f:0", "get_weather", "```json", "```", "\n")
        if self.tagged:
            # the markers' shared prefix and suffix (plamo3's ``<|plamo:`` and ``|>``)
            pre = os.path.commonprefix(list(self.markers))
            suf = os.path.commonprefix([x[::-1] for x in self.markers])[::-1]
            self.extra_tokens = tuple(t for t in (pre, suf) if t)
            self.extra_tokens += ("get_weather", "json", "{", "}")

    def _call(self, k: int, name: str, a: str, form: str) -> str:
        m = self.m
        nl = "\n" if form == "newlines" else ""
        if self.model_ids:
            head = f"{name}:{k}" if form == "no_prefix" else f"functions.{name}:{k}"
            sp = " " if form == "spaced" else nl
            return f"{m['call_start']}{head}{sp}{m['args_start']}{a}{sp}{m['call_end']}"
        if self.tagged:
            return (
                f"{m['call_start']}{m['name_start']}{name}{m['args_start']}{a}{m['args_end']}"
                f"{m['call_end']}"
            )
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


class FunctionGemma(Renderer):
    """``<start_function_call>call:N{k:<escape>s<escape>,n:1,o:{k:v},l:[v]}<end_function_call>``:
    strings between escape markers, other values bare (nested objects and arrays in the same
    syntax). Configured from the format's spec entry."""

    forms = ("plain", "newlines", "spaced", "no_end")
    json_native = False

    def __init__(self, name: str) -> None:
        self.name = name
        spec = toolparse.spec.get_spec(name)
        m = spec.markers
        self.m = m
        # gemma4 (``call.escaped: "string"``): an escaped value is always a string, so any string
        # may be written; else a string that reads as a JSON number or literal is that value
        self.escaped_strings = spec.call.escaped == "string"
        self.markers = (m["call_start"], m["call_end"], m["string"])
        self.extra_tokens = (m["name_start"], "get_weather", "call:f{", "a:", "1", "[", "]")

    def key_ok(self, key: str) -> bool:
        return bool(re.fullmatch(r"[^\s:,{}\[\]<\"]{1,256}", key))

    def value_ok(self, value: Any) -> bool:
        if isinstance(value, str):
            if self.m["string"] in value:
                return False
            if self.escaped_strings:
                return True
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


# ----- namespaced XML elements (minimax_m3) -----


class XmlElements(Renderer):
    """The namespaced XML-element family (``rust/formats/xml_elements.rs``), configured from the
    format's spec entry: minimax_m3's
    ``NS<tool_call>\nNS<invoke name="N">NS<k>vNS</k>NS</invoke>\nNS</tool_call>``. Values are
    written as the XML-parameter formats write them (strings raw, others as JSON text typed by
    the schema); nested elements are the concern of ``tests/test_minimax_m3.py``, whose schemas
    type them. The function name is written double-quoted, single-quoted or bare."""

    json_native = False
    typed = True
    forms = ("double", "single", "bare")
    name_pattern = r"[A-Za-z_][A-Za-z0-9_.\-]*"
    keys_are_names = True

    def __init__(self, name: str) -> None:
        self.name = name
        m = toolparse.spec.get_spec(name).markers
        self.ns = m["namespace"]
        self.start, self.end = m["call_start"], m["call_end"]
        self.invoke, self.invoke_end = m["invoke_start"], m["invoke_end"]
        self.markers = (self.ns,)
        self.extra_tokens = (
            self.start,
            self.end,
            self.invoke + '"f">',
            self.invoke_end,
            self.ns + "<a>",
            self.ns + "</a>",
            self.ns + "<item>",
        )

    def value_ok(self, value: Any) -> bool:
        if isinstance(value, str):
            return self.ns not in value
        return _finite(value) and self.ns not in json.dumps(value, ensure_ascii=False)

    def _body(self, calls, before, after, form, style, reasoning):
        ns = self.ns
        nl = "" if form == "bare" else "\n"
        invokes = []
        for name, args in calls:
            assert not isinstance(args, RawJSON)
            quoted = {"double": f'"{name}">', "single": f"'{name}'>", "bare": f"{name}>"}[form]
            params = "".join(f"{ns}<{k}>{xml_value(v)}{ns}</{k}>{nl}" for k, v in args.items())
            invokes.append(f"{self.invoke}{quoted}{nl}{params}{self.invoke_end}")
        text = f"{self.start}{nl}" + nl.join(invokes) + f"{nl}{self.end}"
        return before + text + after, [(n, converted(a)) for n, a in calls]


class Inkling(Renderer):
    """Inkling's typed message blocks, each but the first opened by the message marker (the
    prompt ends with it): a thinking block (reasoning), text blocks (content), and one
    ``{"name": N, "args": {...}}`` tool block per call, each closed by the end marker. Forms: a
    function-name header before each call's kind marker (``headers``, dropped as metadata), the
    raw-tool-text and tool-error kinds for the content (``visible_kinds``), the last block closed
    by the end-of-sampling marker (``end_sampling``) or not at all (``no_close``), the arguments
    under the other keys, as a JSON string or before the name."""

    forms = (
        "plain",
        "headers",
        "visible_kinds",
        "end_sampling",
        "no_close",
        "alt_key",
        "string_args",
        "args_first",
    )
    reasoning = True
    plain_content = False  # the blocks' markers are markup

    def __init__(self, name: str) -> None:
        self.name = name
        m = toolparse.spec.get_spec(name).markers
        self.m = m
        self.args_keys = list(toolparse.spec.get_spec(name).call.args_keys or ())
        self.markers = tuple(m.values())
        self.extra_tokens = ('"args"', "get_weather", m["message_start"] + m["call_start"])

    def render(self, *args: Any, **kwargs: Any) -> Any:
        case = super().render(*args, **kwargs)
        if case.reasoning is None:
            return case
        # vLLM's engine trims the whitespace that ends a thinking block (up to 64 characters,
        # as the reasoning formats' ``trim``)
        body = case.reasoning.rstrip(" \t\n\r")
        if len(case.reasoning) - len(body) <= 64:
            return case.model_copy(update={"reasoning": body or None})
        return case

    def _joined(self, calls, before, between, after, form, style, reasoning):
        return self._body(calls, before, after, form, style, reasoning, between)

    def _body(self, calls, before, after, form, style, reasoning, between=()):
        m = self.m
        text_kind = m["tool_text_start"] if form == "visible_kinds" else m["text_start"]
        mid_kind = m["tool_error_start"] if form == "visible_kinds" else m["text_start"]
        blocks: List[str] = []  # each: kind marker, body, end marker
        before_block = -1
        if reasoning is not None:
            blocks.append(m["thinking_start"] + reasoning + m["end"])
        if before:
            before_block = len(blocks)
            blocks.append(text_kind + before + m["end"])
        expected = []
        for i, (name, args) in enumerate(calls):
            if 0 < i <= len(between) and between[i - 1]:
                blocks.append(mid_kind + between[i - 1] + m["end"])
            a = args_text(args, style)
            expected.append((name, a))
            key = json.dumps(self.args_keys[1] if form == "alt_key" else self.args_keys[0])
            value = json.dumps(a, ensure_ascii=False) if form == "string_args" else a
            pairs = [('"name"', json.dumps(name)), (key, value)]
            if form == "args_first":
                pairs.reverse()
            head = name if form == "headers" else ""
            blocks.append(head + m["call_start"] + _obj(pairs, style) + m["end"])
        if after:
            blocks.append(text_kind + after + m["end"])
        if form == "end_sampling":
            blocks[-1] = blocks[-1][: -len(m["end"])] + m["end_sampling"]
        elif form == "no_close":
            blocks[-1] = blocks[-1][: -len(m["end"])]
        text = ""
        before_at = 0
        for i, b in enumerate(blocks):
            if i > 0:
                text += m["message_start"]
            if i == before_block:
                before_at = len(text) + len(text_kind)
            text += b
        return text, expected, before_at


def _harmony(name: str) -> Renderer:
    """The harmony family's renderer, by its spec entry: JSON arguments (gpt-oss), or XML
    parameter bodies when the entry has a ``parameter_start`` marker (beam)."""
    if toolparse.spec.get_spec(name).marker("parameter_start"):
        return Beam(name)
    return OpenAIHarmony()


def _tagged_json(name: str) -> Renderer:
    """The tagged_json family's renderer, by its spec entry: mistral's list, object or
    ``NAME{...}`` forms (call shape ``list_or_name_then_args``), else JSON bodies after start
    markers."""
    if toolparse.spec.get_spec(name).call.shape == "list_or_name_then_args":
        return Mistral()
    return TaggedJson(name)


# The renderer class of each family: a format's renderer is its family's, configured from its spec
# entry. A new family adds its class here.
FAMILIES: Dict[str, Callable[[str], Renderer]] = {
    "tagged_json": _tagged_json,
    "named_json": NamedJson,
    "xml_params": _xml_params,
    "pythonic": Pythonic,
    "functiongemma": FunctionGemma,
    "xml_elements": XmlElements,
    "llama3_json": Llama3Json,
    "openai": _harmony,
    "inkling": Inkling,
    "muse": Muse,
    "functionary": Functionary,
}


def _build() -> Dict[str, Renderer]:
    out: Dict[str, Renderer] = {}
    for name in toolparse.list_formats():
        make = FAMILIES.get(toolparse.spec.get_spec(name).family)
        if make is not None:
            out[name] = make(name)
    return out


# One renderer per registered format (a format of an unknown family has none: add its family's
# class to FAMILIES).
RENDERERS: Dict[str, Renderer] = _build()


def renderer(fmt: str) -> Renderer:
    """The renderer of a format, by its name or one of its aliases."""
    name = toolparse.spec.canonical(fmt)
    try:
        return RENDERERS[name]
    except KeyError:
        raise ValueError(
            f"toolparse.testing has no renderer for {fmt!r} (family "
            f"{toolparse.spec.get_spec(name).family!r})"
        ) from None
