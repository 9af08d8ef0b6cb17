"""XML-parameter tool calls (twin of ``rust/formats/xml_params.rs``; the formats, the style's
switches and the decisions on the loose points are listed there). Qwen3-Coder is the model::

    <tool_call>
    <function=NAME>
    <parameter=KEY>
    VALUE
    </parameter>
    </function>
    </tool_call>

and seed_oss, minimax_m2, glm45 / glm47, step3, deepseek_v32 / v4 / v41 (DSML) and the other
XML-like formats (qwen3_xml, step3p5, step5, mimo, poolside_v1, hy_v3, hy_v4, k2_horizon,
minicpm5) differ in their markers and a few switches, given by a :class:`Style` built from the
spec entry: several section starts, a tag that ends the function name (hy_v3's ``<tool_sep>``),
k2_horizon's optional value type ``<ifm|arg_type>T</ifm|arg_type>`` (the key is written when the
value opens), deepseek_v4's self-closing ``<｜DSML｜invoke name="N"/>``,
kimi_k3's XTML (attributes after the name skipped up to ``function_attrs_end``, several string
and JSON heads, attribute-escaped names and keys, channel markers around the content dropped,
a section required). The section wrapper may
be missing. String values stream as they arrive; typed values (and values of a union that admits
a string and another type) are sent when their parameter closes; ``{`` goes with the call start
and ``}`` with the function end. A parameter's closing tag (or the implicit end
``\n</function>``) closes a value only when the right markup or the end of the output follows it
after at most ``WS_CAP`` bytes of whitespace; otherwise it is value text. Value text is kept in
lists and joined once (linear).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, List, Mapping, Optional

from . import params
from .between import (
    GO,
    HOLD,
    Held,
    Machine,
    Next,
    after_call,
    finish_after_call,
    text_until,
    transitions,
)
from .convert import PyLiteral
from .event import Emitter
from .json import CallKeys, Calls, is_blank
from .params import ToolTypes
from .region import Region
from .scan import NAME_MAX, WS, WS_MAX, Markers, expect, expect_capped, trailing_ws

if TYPE_CHECKING:
    from ..spec_types import Call

# The longest run of whitespace allowed between a closing tag inside a value and what confirms it.
WS_CAP = 64

# How a function name ends: at a tag (consumed) that starts with one of the name's stop characters
# (">" for <function=N>, '">' for <invoke name="N">, hy_v3's "<tool_sep>"), or LINE: at a newline
# (consumed) or the "<" of the next markup (glm's <tool_call>N).
LINE = "\n"


@dataclass
class Style:
    """A format's markers and switches (built from the spec entry, as ``build.rs`` does)."""

    text: Markers  # [call_start, call_start_2.., function_start..] or [function_start..]
    sections: int  # how many of text.list are section starts
    function: Markers  # [function_start, function_start_alt?]: the spellings of a function start
    name_end: str  # the tag that ends a function name, or LINE
    self_close: Optional[str]  # what ends a name and the call at once (deepseek_v4's '"/>')
    body: Markers  # [parameter_start, function_end, call_end?]
    quoted: bool  # a parameter name ends at '"'
    heads: Markers  # what ends a parameter name
    string_attr: bool  # DSML: the first `strings` heads make a string, the others JSON
    strings: int  # how many of heads make a string when string_attr holds (DSML: 1)
    attrs_end: Optional[Markers]  # kimi_k3: what ends the attributes after the name (<|sep|>)
    wrappers: int  # how many of the last of text.list are content wrappers (dropped)
    unescape: bool  # names and keys are attribute-escaped (&quot;, &amp;)
    value_start: Optional[Markers]  # glm's <arg_value>, then k2_horizon's <ifm|arg_type>?
    value_type_end: Optional[Markers]  # k2_horizon's </ifm|arg_type>
    value: Markers  # a value's ends
    strip: bool  # one leading and one trailing newline of a value are stripped
    # what must follow ("\n" +) function_end in a value to close it and the call
    after_function: Markers
    end: Markers  # after the function end: [call_end?, item_end?, function_start?]
    item_end: Optional[str]  # step3's <｜tool_call_end｜>
    call_sep: Optional[str] = None  # markup that may stand between calls (step3's <｜tool_sep｜>)
    # the start of the function start after which the name may stand repeated (step3's
    # <｜tool_call_begin｜>function<｜tool_sep｜>; the last of `function`), and the rest of it
    lead: Optional[str] = None
    lead_tag: Optional[Markers] = None
    # the keys of a JSON call object a section may hold instead of functions (dots)
    json: Optional[CallKeys] = None
    typing: str = "schema"  # how a value is typed: SCHEMA, JSON or JSON_UNLESS_STRING
    doubled_names: bool = False  # a name written "f.f" is the tool "f" when only "f" is a tool
    cdata: bool = False  # a value that begins with <![CDATA[ is unwrapped (up to ]]>, as written)
    # a typed value that is not JSON may be a Python literal: an object or array the schema
    # admits is read as one ({'a': True}, as Jinja's {{ value }} writes it)
    python_values: bool = False


# How a value is typed (where the head does not say): by the tool's schema; JSON if it parses,
# else the raw text as a string (muse_glimmer); a string where the schema types the parameter as
# one, else as JSON (muse).
SCHEMA, JSON, JSON_UNLESS_STRING = "schema", "json", "json_unless_string"
# The spec's "arguments" values that pick them.
TYPINGS = {
    "xml_parameters_json_or_string": JSON,
    "xml_parameters_json_unless_schema_string": JSON_UNLESS_STRING,
}


def _loose_null(raw: str) -> bool:
    """Whether ``raw`` is a spelling of null other than "null" that ``params.convert`` reads as
    null ("None", "NULL", ...)."""
    t = raw.strip(WS)
    return t != "null" and params._ascii_lower(t) in ("null", "none")


def py_container(kind: params.Kind, raw: str) -> Optional[str]:
    """The JSON text of ``raw`` read as a Python literal (``{'units': 'metric', 'alerts': True}``,
    as the Seed-OSS and MiniCPM5 chat templates write a list or object with Jinja's
    ``{{ value }}``), if it is one whose value is an object or an array that ``kind`` admits (an
    object or array type, or a type we do not know); else None. Written like
    ``json.dumps(ast.literal_eval(raw), ensure_ascii=False)`` (``convert.PyLiteral``)."""
    if kind == params.JSON:
        obj = arr = True
    elif isinstance(kind, int):
        other = bool(kind & params.T_OTHER)
        obj, arr = other or bool(kind & params.T_OBJECT), other or bool(kind & params.T_ARRAY)
    else:
        return None
    t = raw.strip(WS)
    if not t.startswith(("{", "[", "(")):
        return None
    lit = PyLiteral()
    out: List[str] = []
    r, k = lit.feed(t, out)
    if not (r == "more" or (r == "done" and k == len(t))):
        return None
    if lit.finish(out)[0] != "done" or lit.no_json:
        return None
    j = "".join(out)
    return j if (obj and j.startswith("{")) or (arr and j.startswith("[")) else None


# The characters JSON text can start with (json.loads also reads NaN and Infinity).
JSON_STARTS = frozenset('{["-0123456789tfnNI')


def style_of(m: Mapping[str, str], call: Call, arguments: str = "") -> Style:
    """The style of a spec entry's markers, ``call`` object and ``arguments`` (the twin of
    ``build.rs``)."""
    section, section_end = m.get("call_start"), m.get("call_end")
    # other spellings of the section start (call_start_2, call_start_3, ...)
    sections = ([section] if section else []) + [
        m[r] for r in sorted(r for r in m if r.startswith("call_start_"))
    ]
    function, function_end = m["function_start"], m["function_end"]
    # another spelling of the function start (step3 without "function<｜tool_sep｜>")
    functions = [function] + ([m["function_start_alt"]] if "function_start_alt" in m else [])
    # the start of the function start after which the name may stand repeated (step3's
    # <｜tool_call_begin｜>function<｜tool_sep｜>NAME\n<steptml:invoke ...), and the rest of it
    lead = m.get("function_lead")
    lead_tag = None
    if lead is not None:
        if not lead or not function.startswith(lead) or function == lead:
            raise ValueError("function_lead is not a proper start of function_start")
        lead_tag = Markers([function[len(lead) :]])
        functions.append(lead)
    # markup that may stand between calls (step3's <｜tool_sep｜>)
    call_sep = m.get("call_sep")
    param, param_end = m["parameter_start"], m["parameter_end"]
    name_end = m["function_name_end"]
    if name_end != LINE and name_end[:1] not in "><{}\"' \t\r":
        raise ValueError(f"function_name_end {name_end!r}")
    if call.value_newlines is None or call.calls_per_section is None:
        raise ValueError("call.value_newlines and call.calls_per_section are required")
    strip = call.value_newlines == "strip_one"
    required = call.section_required
    if required and not sections:
        raise ValueError("call.section_required without call_start")
    many = call.calls_per_section == "many"
    head = m["parameter_name_end"]
    string_attr = "parameter_string" in m

    def spellings(role: str) -> List[str]:
        return [m[r] for r in sorted(r for r in m if r.startswith(role + "_"))]

    # the heads that make a string (parameter_string, parameter_string_2, ...), then JSON
    heads = [m["parameter_string"], *spellings("parameter_string")] if string_attr else []
    strings = len(heads)
    if string_attr:
        heads += [m["parameter_json"], *spellings("parameter_json")]
    if head not in heads:
        heads.append(head)
    # then the content's wrappers (kimi_k3's channel markers: dropped)
    wrappers = [m[r] for r in ("text_start", "text_end", "text_end_2") if r in m]
    if call.value_end_optional and strip:
        raise ValueError("call.value_end_optional is for value_newlines keep")
    if strip:
        value = [param_end, "\n" + param_end, "\n" + param, "\n" + function_end]
    elif call.value_end_optional:
        # glm47: a last value whose end is missing closes at the function end
        value = [param_end, function_end]
    else:
        value = [param_end]
    # what must follow a function end inside a value for it to close the value and the call
    if section_end:
        after_function = [section_end]
    else:
        after_function = [function_end] if strip else functions
    item_end = m.get("item_end")
    end = [x for x in (section_end, item_end, call_sep) if x is not None]
    if many:
        end += functions
    return Style(
        # a bare function starts a call too, unless the section is required (kimi_k3)
        text=Markers(sections + ([] if required else functions) + wrappers),
        sections=len(sections),
        function=Markers(functions),
        name_end=name_end,
        self_close=m.get("function_self_close"),
        body=Markers([param, function_end] + ([section_end] if section_end else [])),
        quoted=head.startswith('"'),
        heads=Markers(heads),
        string_attr=string_attr,
        strings=strings,
        attrs_end=Markers([m["function_attrs_end"]]) if "function_attrs_end" in m else None,
        wrappers=len(wrappers),
        unescape=call.unescape_attributes,
        value_start=(
            Markers([m["value_start"]] + [m[r] for r in ("value_type_start",) if r in m])
            if "value_start" in m
            else None
        ),
        value_type_end=Markers([m["value_type_end"]]) if "value_type_end" in m else None,
        value=Markers(value),
        strip=strip,
        after_function=Markers(after_function),
        end=Markers(end),
        item_end=item_end,
        call_sep=call_sep,
        lead=lead,
        lead_tag=lead_tag,
        # a section may hold one JSON call object instead of functions (dots)
        json=(
            CallKeys(call.name_keys, call.args_keys or (), strings=False)
            if call.name_keys is not None
            else None
        ),
        typing=TYPINGS.get(arguments, SCHEMA),
        doubled_names=call.doubled_names == "collapse",
        cdata=call.cdata,
        python_values=call.python_values,
    )


# Characters that end a function name (the name end completes it; the others make it not a call)
# and a parameter name (its head must follow; anything else is malformed).
_CDATA_START = "<![CDATA["
_CDATA_END = Markers(["]]>"])

_NAME_STOP = re.compile(r"[><{}\"' \t\n\r]")
_PARAM_STOP = re.compile(r"[><\n]")
_PARAM_STOP_QUOTED = re.compile(r"[><\n\"]")


def _find_any(s: str, stops: re.Pattern, start: int) -> int:
    """Offset (relative to ``start``) of the first stop character in ``s[start:]``, or -1."""
    m = stops.search(s, start)
    return -1 if m is None else m.start() - start


def unescape(s: str) -> str:
    """An attribute value with its escapes undone (``&quot;`` before ``&amp;``, as the peers do)."""
    return s.replace("&quot;", '"').replace("&amp;", "&")


# What an end marker of a value ends (Rust: ValueEnd): the parameter; the parameter, whose end
# is missing, as the next one starts; the parameter, whose end is missing, and the function.
PARAM, NEXT_PARAM, FUNCTION = "Param", "NextParam", "Function"


def value_role(style: Style, which: int) -> str:
    """What end marker ``which`` of ``style.value`` ends."""
    if which == 0 or (style.strip and which == 1):
        return PARAM
    if style.strip and which == 2:
        return NEXT_PARAM
    return FUNCTION


# closes() results
YES, NO, WAIT = "yes", "no", "wait"


def closes(s: str, at: int, follow: Markers, eof: bool) -> str:
    """Whether a closing tag followed by ``s[at:]`` closes the value: whitespace (at most WS_CAP)
    and then one of ``follow``, or (at the end of the output) whitespace and perhaps the cut-off
    start of one of ``follow``."""
    kind, a, b = expect(s, follow, at)
    if kind == "marker":
        return YES if b - len(follow.list[a]) <= WS_CAP else NO
    if kind == "wait" and a <= WS_CAP:
        return YES if eof else WAIT
    return NO


class XmlParams(Machine):
    def __init__(self, style: Style, tools: ToolTypes) -> None:
        self.style = style
        self.value_longest = max(len(m) for m in style.value.list)
        self.head_longest = max(len(m) for m in style.heads.list)
        self.tools = tools
        # Text | Wrapper | Name | Attrs | Body | Param | Open | Type | Value | After | Fallback
        self.st = "Text"
        self.raw: List[str] = []  # Wrapper, Lead, Name: the markup read so far
        self.name_parts: List[str] = []  # Name: the function name so far
        self.lead_n = 0  # Lead: the characters read after the lead
        self.region: Optional[Region] = None  # Json: the call object
        self.name: List[str] = []  # Param: the parameter name so far
        # Open, Type: the parameter's name (its key is written when the value opens)
        self.param = ""
        self.ty: List[str] = []  # Type: the value type so far
        self.kind: params.Kind = params.STR  # Open, Value
        # Value: where it stands with its optional leading newline: Start (not dealt with), Kept
        # (it starts with a candidate end marker, kept whole: if that turns out to be value text,
        # a newline it starts with is the leading newline and is stripped), Body (past it, or
        # the style keeps values verbatim)
        self.lead = "Start"
        self.cdata = "No"
        self.buf: List[str] = []  # Value: the raw text of a typed value
        # Value: its kind is JSON-or-string and its first non-whitespace character has not come
        # yet (one that cannot start JSON text makes it a string, streamed from then on)
        self.sniff = False
        self.ws = Held()  # After: the whitespace read, content if other text follows
        self.func = ""  # the current call's function name
        self.params = 0  # parameters written in the current call
        self.eof = False  # the end of the output was reached: a held closing tag is decided
        self.attrs = 0  # Attrs: the characters of the attributes read so far

    @staticmethod
    def _close(out: Emitter) -> None:
        out.args("}")
        out.tool_end()

    def _after(self) -> str:
        """The state after the function end."""
        self.ws = Held()
        return "After" if self.style.end.list else "Text"

    def _value_text(self, s: str, out: Emitter) -> None:
        """Sends value text: escaped at once for a string, kept for a typed value. A
        JSON-or-string value being sniffed becomes a string (its text so far sent) at its first
        non-whitespace character if that cannot start JSON text."""
        if not s:
            return
        if self.kind == params.STR:
            out.args(params.json_str_body(s))
            return
        self.buf.append(s)
        if not self.sniff:
            return
        t = s.lstrip(WS)
        if t:
            self.sniff = False
            if t[0] not in JSON_STARTS:
                self.kind = params.STR
                out.args('"' + params.json_str_body("".join(self.buf)))
                self.buf = []

    def _open_value(self, name: str, out: Emitter) -> None:
        """Writes parameter ``name``'s key (and the opening quote of a string) and starts its
        value (of kind ``self.kind``)."""
        frag = (", " if self.params > 0 else "") + params.json_str(name) + ": "
        if self.kind == params.STR:
            frag += '"'
        out.args(frag)
        self.params += 1
        self.st, self.buf = "Value", []
        self.lead = "Start" if self.style.strip else "Body"
        self.cdata = "Maybe" if self.style.cdata else "No"  # Maybe | In | No
        self.sniff = self.kind == params.JSON and self.style.typing != SCHEMA

    def _typed_kind(self, name: str, ty: str) -> params.Kind:
        """The kind of parameter ``name`` written with the value type ``ty`` (k2_horizon, as
        vLLM): the type picks one of the types of a union schema that admits it; a parameter the
        schema does not know takes the type's kind ("any": a string); otherwise the schema
        decides. The type's base is its text before any "[", trimmed, in lower case."""
        base = params._ascii_lower(ty.split("[", 1)[0].strip(params._ASCII_WS))
        types = self.tools.get(self.func, {}).get(name)
        if not base:
            return params.param_kind(self.tools, self.func, name)
        if types is None:
            return params.STR if base == "any" else params.kind_of_types([base])
        kind = params.kind_of_types(types)
        if isinstance(kind, int) and kind & params.type_bit(base):
            return params.kind_of_types([base])
        return kind

    def open(self, name: str, out: Emitter) -> None:
        """Starts a call of ``name`` whose parameters follow at once (beam: the function name is
        the recipient of the enclosing message, whose body holds only the parameters)."""
        self._start(name, out)
        self.st = "Body"

    def end_function(self, rest: str, out: Emitter) -> bool:
        """The enclosing message ends after ``rest`` (the text this machine held back): closes
        the call when it stands between parameters (a held closing tag is decided by the end);
        False when the call is cut off inside a parameter (its state then says how)."""
        self.eof = True
        if rest:
            k = self.feed(rest, out)
            if self.st != "Body" or k < len(rest):
                return False
        if self.st != "Body":
            return False
        self._close(out)
        self.st = "Text"
        return True

    def idle(self) -> bool:
        """Whether no call is open or being read (between calls, or in plain text): the text can
        end here."""
        return self.st in ("Text", "After")

    def _kind(self, name: str) -> params.Kind:
        """The kind of parameter ``name`` of the current call, by the style's typing."""
        typing = self.style.typing
        if typing == SCHEMA:
            return params.param_kind(self.tools, self.func, name)
        if typing == JSON:
            return params.JSON
        types = self.tools.get(self.func, {}).get(name)
        string = types is not None and params.kind_of_types(types) == params.STR
        return params.STR if string else params.JSON

    def _name_or_lead(self, start: str) -> None:
        """The state after function start ``start``: its name, or the repeated name when the
        start is the style's ``lead``."""
        if start == self.style.lead:
            self.st, self.lead_n = "Lead", 0
        else:
            self.st, self.name_parts = "Name", []

    def _tool_name(self, name: str) -> str:
        """The tool name for a function name as written (see ``Style.doubled_names``)."""
        if self.style.doubled_names and name not in self.tools:
            head, dot, tail = name.partition(".")
            if dot and head == tail and head in self.tools:
                return head
        return name

    def _start(self, name: str, out: Emitter) -> None:
        """Starts the call of function ``name`` (as written): ``{`` goes with its start."""
        self.func, self.params = self._tool_name(name), 0
        out.tool_start(None, self.func)
        out.args("{")

    def _fallback(self, i: int, out: Emitter) -> Next:
        """Malformed markup at ``i``: the rest is content."""
        out.malformed = True
        self.st = "Fallback"
        return i, GO

    def _no_marker(self, kind: str, j: int, out: Emitter) -> Next:
        """No marker after the whitespace (``expect``): only whitespace so far (wait at ``j``),
        or other text at ``j``: malformed."""
        return (j, HOLD) if kind == "wait" else self._fallback(j, out)

    def _not_a_call(self, i: int, out: Emitter) -> Next:
        """The markup read (``raw`` and the name so far) was not a call: it is content, and the
        text goes on at ``i``."""
        out.content("".join(self.raw) + "".join(self.name_parts))
        self.raw, self.name_parts = [], []
        self.st = "Text"
        return i, GO

    def step(self, s: str, i: int, out: Emitter) -> Next:
        return _STEPS[self.st](self, s, i, out)

    def on_json(self, s: str, i: int, out: Emitter) -> Next:
        """After the section start: dots' JSON call object, its call streamed as it comes."""
        assert self.region is not None
        r, k = self.region.feed(s, out, i)
        if r == "more":
            return len(s), HOLD
        # Done: the call's end; else not a call object: malformed markup (the region made it
        # content).
        self.st = self._after() if r == "done" else "Fallback"
        self.region = None
        return i + k, GO

    def on_fallback(self, s: str, i: int, out: Emitter) -> Next:
        """After malformed markup: the driver makes the rest content."""
        return i, HOLD

    def on_text(self, s: str, i: int, out: Emitter) -> Next:
        """Plain text, up to a section start or a function start (a content wrapper is
        dropped)."""
        text = self.style.text
        which, i = text_until(text, s, i, out)
        if which == -1:
            return i, HOLD
        if which >= len(text.list) - self.style.wrappers:
            return i, GO  # a wrapper of the content: markup, dropped
        m = text.list[which]
        self.raw = [m]
        if which < self.style.sections:
            self.st = "Wrapper"
        else:
            self._name_or_lead(m)
        return i, GO

    def on_wrapper(self, s: str, i: int, out: Emitter) -> Next:
        """After the section start: whitespace, then a function start (or dots' JSON call
        object)."""
        style = self.style
        kind, a, b = expect_capped(s, style.function, i, trailing_ws("".join(self.raw)))
        if kind == "marker":
            self.raw.append(s[i : i + b])
            self._name_or_lead(style.function.list[a])
            return i + b, GO
        self.raw.append(s[i : i + a])
        if kind == "wait":
            return i + a, HOLD
        i += a
        raw = "".join(self.raw)
        self.raw = []
        if style.json is not None and s.startswith("{", i) and trailing_ws(raw) <= WS_MAX:
            # A JSON call object.
            self.st = "Json"
            self.region = Region(Calls.object(style.json, False), raw, False)
            return i, GO
        # Not a call (other text, or whitespace past the cap): the wrapper was content.
        out.content(raw)
        self.st = "Text"
        return i, GO

    def on_lead(self, s: str, i: int, out: Emitter) -> Next:
        """After the style's ``lead``: the repeated name, then the rest of the function
        start."""
        lead_tag = self.style.lead_tag
        if lead_tag is None:
            # (a style with a lead has its tag: style_of checks)
            return self._not_a_call(i, out)
        kind, at, _ = lead_tag.find(s, i)
        piece = s[i : i + at]
        self.lead_n += len(piece)
        if "<" in piece or self.lead_n > NAME_MAX:
            # Not a call: the markup was content, the text after it is read again.
            return self._not_a_call(i, out)
        self.raw.append(piece)
        if kind != "marker":
            return i + at, HOLD
        self.raw.append(lead_tag.list[0])
        self.st, self.name_parts = "Name", []
        return i + at + len(lead_tag.list[0]), GO

    def on_name(self, s: str, i: int, out: Emitter) -> Next:
        """The function name, up to its end (the call starts) or a character that makes it not a
        call (its markup is content)."""
        style = self.style
        n = len(s)
        p = _find_any(s, _NAME_STOP, i)
        if p == -1:
            self.name_parts.append(s[i:])
            if sum(map(len, self.name_parts)) > NAME_MAX:
                # A name past the cap: not a call, the markup was content.
                self._not_a_call(n, out)
            return n, HOLD
        self.name_parts.append(s[i : i + p])
        t = i + p
        if sum(map(len, self.name_parts)) > NAME_MAX:
            return self._not_a_call(t, out)
        name = "".join(self.name_parts)
        close = style.self_close
        if close is not None:
            if n - t < len(close) and close.startswith(s[t:]):
                return t, HOLD
            if s.startswith(close, t) and not is_blank(name):
                # <invoke name="N"/>: a call without arguments.
                self.raw, self.name_parts = [], []
                self._start(name, out)
                self._close(out)
                self.st = self._after()
                return t + len(close), GO
        tag = style.name_end
        if tag == LINE:
            end = {"\n": 1, "<": 0}.get(s[t], -1)
        elif n - t < len(tag) and tag.startswith(s[t:]):
            # The start of the tag at the end of the input: the rest may follow.
            return t, HOLD
        else:
            end = len(tag) if s.startswith(tag, t) else -1
        if end == -1 or is_blank(name):
            # Not a call: the markup was content; text goes on at the stop character.
            return self._not_a_call(t, out)
        self.raw, self.name_parts = [], []
        self._start(unescape(name) if style.unescape else name, out)
        if style.attrs_end is not None:
            self.st, self.attrs = "Attrs", 0
        else:
            self.st = "Body"
        return t + end, GO

    def on_attrs(self, s: str, i: int, out: Emitter) -> Next:
        """After the function name: its other attributes, up to the style's ``attrs_end``."""
        ends = self.style.attrs_end
        assert ends is not None
        kind, at, which = ends.find(s, i)
        self.attrs += at
        lt = s.find("<", i, i + at)
        if self.attrs > NAME_MAX or lt != -1:
            # Attributes past the cap, or other markup: malformed.
            return self._fallback(lt if lt != -1 else i + at, out)
        if kind != "marker":
            return i + at, HOLD
        self.st = "Body"
        return i + at + len(ends.list[which]), GO

    def on_body(self, s: str, i: int, out: Emitter) -> Next:
        """Between parameters: the next parameter, or the function end."""
        kind, a, b = expect(s, self.style.body, i)
        if kind != "marker":
            return self._no_marker(kind, i + a, out)
        if a == 0:
            self.st, self.name = "Param", []
        else:
            # The function end, or the section end with the function end missing.
            self._close(out)
            self.st = self._after() if a == 1 else "Text"
        return i + b, GO

    def on_param(self, s: str, i: int, out: Emitter) -> Next:
        """A parameter name, up to its head's end (which may say the value's kind)."""
        style = self.style
        p = _find_any(s, _PARAM_STOP_QUOTED if style.quoted else _PARAM_STOP, i)
        if p == -1:
            self.name.append(s[i:])
            return len(s), HOLD
        self.name.append(s[i : i + p])
        t = i + p
        head = style.heads.starts(s, t)
        if head == -1:
            if style.heads.could_start(s[t : t + self.head_longest]):
                return t, HOLD
            return self._fallback(t, out)
        name = "".join(self.name)
        if style.unescape:
            name = unescape(name)
        self.name = []
        if not style.string_attr:
            self.kind = self._kind(name)
        else:
            self.kind = params.STR if head < style.strings else params.JSON
        if style.value_start is not None:
            self.st, self.param = "Open", name
        else:
            self._open_value(name, out)
        return t + len(style.heads.list[head]), GO

    def on_open(self, s: str, i: int, out: Emitter) -> Next:
        """After a parameter's head: whitespace, then the value start or a value type's
        start."""
        assert self.style.value_start is not None
        kind, a, b = expect(s, self.style.value_start, i)
        if kind != "marker":
            return self._no_marker(kind, i + a, out)
        if a == 0:
            self._open_value(self.param, out)
        else:
            # The value type's start.
            self.st, self.ty = "Type", []
        return i + b, GO

    def on_type(self, s: str, i: int, out: Emitter) -> Next:
        """A value type, up to its end (it gives the value its kind)."""
        close = self.style.value_type_end
        assert close is not None
        kind, at, which = close.find(s, i)
        self.ty.append(s[i : i + at])
        if sum(map(len, self.ty)) > NAME_MAX:
            # A type past the cap: malformed.
            return self._fallback(i + at, out)
        if kind != "marker":
            return i + at, HOLD
        self.kind = self._typed_kind(self.param, "".join(self.ty))
        self.st, self.ty = "Open", []
        return i + at + len(close.list[which]), GO

    def on_value(self, s: str, i: int, out: Emitter) -> Next:
        """Inside a value: a CDATA section, the leading newline, then the text up to an end
        marker."""
        ends = self.style.value
        if self.cdata == "Maybe" and self.lead != "Start":
            if s.startswith(_CDATA_START, i):
                self.cdata = "In"
                return i + len(_CDATA_START), GO
            if _CDATA_START.startswith(s[i : i + len(_CDATA_START)]):
                return i, HOLD  # a possible start: wait for more
            self.cdata = "No"
        if self.cdata == "In":
            # Everything up to "]]>" is the value, as written.
            kind, at, _ = _CDATA_END.find(s, i)
            self._value_text(s[i : i + at], out)
            if kind != "marker":
                return i + at, HOLD
            self.cdata, self.lead = "No", "Body"
            return i + at + 3, GO
        if self.lead == "Start":
            # One leading newline is stripped, unless it begins an end marker.
            if ends.starts(s, i) != -1:
                self.lead = "Kept"
                return i, GO
            if ends.could_start(s[i : i + self.value_longest]):
                return i, HOLD
            self.lead = "Body"
            return i + (s[i] == "\n"), GO
        kind, at, which = ends.find(s, i)
        self._value_text(s[i : i + at], out)
        if kind != "marker":
            return i + at, HOLD
        return self._value_end(s, i, at, which, out)

    def _value_end(self, s: str, i: int, at: int, which: int, out: Emitter) -> Next:
        """End marker ``which`` of the value stands at ``s[i + at:]``: it closes the value (and
        what it ends: the parameter, or the function), or is value text, or must wait for what
        follows."""
        style = self.style
        if at > 0:
            self.lead = "Body"
        m = style.value.list[which]
        after = i + at + len(m)
        role = value_role(style, which)
        if role == PARAM:
            close = closes(s, after, style.body, self.eof)
        elif role == FUNCTION:
            close = closes(s, after, style.after_function, self.eof)
        else:
            close = YES
        if close == WAIT:
            return i + at, HOLD
        if close == NO:
            # The tag is value text (less the leading newline, if it is one).
            if self.lead == "Kept" and m.startswith("\n"):
                m = m[1:]
            self._value_text(m, out)
            self.lead = "Body"
            return after, GO
        self._value_end_text(out)
        if role == PARAM:
            self.st = "Body"
        elif role == NEXT_PARAM:
            self.st, self.name = "Param", []
        else:
            self._close(out)
            self.st = self._after()
        return after, GO

    def _value_end_text(self, out: Emitter) -> None:
        """Sends the value's end: the closing quote of a string, or the typed value as JSON
        text."""
        raw = "".join(self.buf)
        self.buf = []
        if self.kind == params.STR:
            out.args('"')
        elif self.style.typing != SCHEMA and _loose_null(raw):
            # json.loads reads only "null" as null: "None", "NULL" are text.
            out.args(params.json_str(raw))
        else:
            j = params.convert(self.kind, raw)
            # A value that is not JSON may be a Python literal ({'a': True}): typed by the
            # schema, an object or array is read as one.
            if self.style.python_values and j.startswith('"'):
                j = py_container(self.kind, raw) or j
            out.args(j)

    def on_after(self, s: str, i: int, out: Emitter) -> Next:
        """After the function end: whitespace, then the section end, the next function, step3's
        item end, or text."""
        style = self.style
        kind, which, i = after_call(self.ws, s, i, style.end, out)
        if kind == "wait":
            return i, HOLD
        if kind == "text":
            # No section end (a bare call): the whitespace started the text.
            self.st = "Text"
            return i, GO
        m = style.end.list[which]
        if m == style.item_end or m == style.call_sep:
            # step3's item end, or the markup between calls: the section end or the next call
            # may follow.
            self.ws = Held()
        elif m in style.function.list:
            # The next call: the whitespace before it is content if it is not.
            self.raw, self.ws = self.ws, Held()
            self._name_or_lead(m)
        else:
            self.st, self.ws = "Text", Held()
        return i, GO

    def finish(self, rest: str, out: Emitter) -> None:
        # The end of the output decides a closing tag held inside a value: feed it once more.
        self.eof = True
        if self.st == "Value" and rest:
            k = self.feed(rest, out)
            rest = rest[k:]
        st = self.st
        if st in ("Text", "Fallback"):
            out.content(rest)
        elif st == "Json":
            assert self.region is not None
            self.region.finish(rest, out)
        elif st in ("Wrapper", "Lead", "Name"):
            # Cut off before the call started: its markup so far.
            out.truncate("".join(self.raw) + "".join(self.name_parts) + rest)
            self.raw, self.name_parts = [], []
        elif st in ("Attrs", "Body", "Param", "Open", "Type", "Value"):
            # Cut off inside the function (its end never came): the call is unfinished.
            out.truncate("")
        elif st == "After":
            # Whitespace after the last call, or a truncated section end: markup. The cut-off
            # start of the next function (and of nothing else) is a truncated call.
            finish_after_call(rest, self.style.end, self.style.function.list, out)


_STEPS = transitions(
    XmlParams, "Text Wrapper Json Lead Name Attrs Body Param Open Type Value After Fallback"
)
