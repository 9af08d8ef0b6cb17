"""FunctionGemma tool calls (twin of ``rust/formats/functiongemma.rs``; the rules are listed
there)::

    <start_function_call>call:NAME{key:<escape>text<escape>,n:42,o:{k:v},l:[1,2]}<end_function_call>

Arguments are converted to JSON text written like ``json.dumps(obj, ensure_ascii=False)`` as they
arrive: strings stream; a value that may still be a JSON number or literal is held (at most
``SCALAR_CAP`` characters) and written as that value when it is one; nested objects and arrays are
followed on an explicit stack. The call is complete at its closing ``}``; the end marker is
optional.
"""

from __future__ import annotations

import re
from typing import List, Optional

from . import params
from .between import GO, HOLD, Held, Machine, Next, after_call, text_until
from .event import Emitter
from .params import ToolTypes
from .scan import WS, Markers

# The longest function name or key accepted, in characters.
NAME_CAP = 256
# The longest value held back while it may still be a JSON number or literal.
SCALAR_CAP = 64

_NAME_STOP = re.compile(r"[ \t\n\r<>{}\[\],:\"']")
_KEY_STOP = re.compile(r"[ \t\n\r:,{}\[\]<]")
_KEY_STOP_SPACES = re.compile(r"[:,{}\[\]<]")  # key_spaces: a bare key may hold whitespace
_BARE_STOP = re.compile(r"[ \t\n\r,}\]<]")
_NUMBER_PREFIX = re.compile(r"-?(?:(?:0|[1-9][0-9]*)(?:\.[0-9]*)?(?:[eE][+-]?[0-9]*)?)?")


class Style:
    """The markers of one format of the family (built from its spec entry)."""

    def __init__(
        self,
        start: str,
        prefix: str,
        escape: str,
        end: str,
        escaped_strings: bool = False,
        key_spaces: bool = False,
    ) -> None:
        self.start = Markers([start])
        self.prefix = prefix
        self.escape = Markers([escape])
        self.end = Markers([end])
        # a value between escape markers is always a string (gemma4: its template escapes only
        # strings); otherwise it is typed like a bare word (functiongemma)
        self.escaped_strings = escaped_strings
        # a bare key may hold whitespace (gemma4); otherwise whitespace ends it (functiongemma)
        self.key_stop = _KEY_STOP_SPACES if key_spaces else _KEY_STOP


def scalar_prefix(s: str) -> bool:
    """Whether ``s`` may still grow into a JSON number, ``true``, ``false``, ``null`` or
    ``None``."""
    if any(lit.startswith(s) for lit in ("true", "false", "null", "None")):
        return True
    m = _NUMBER_PREFIX.match(s)
    return m is not None and m.end() == len(s)


# States (same names as the Rust enum): ("text",), ("head", raw), ("key", key), ("esc_key", key),
# ("value",),
# ("scalar", raw, streaming, escaped), ("next",), ("after", ws), ("fallback",)


class FunctionGemma(Machine):
    def __init__(self, style: Style, tools: ToolTypes) -> None:
        self.style = style
        self.tools = tools
        self.st: list = ["text"]
        # open objects (True) and arrays (False): [obj, members written]
        self.stack: List[list] = []
        # the current call's function name
        self.func = ""
        # the value being read belongs to a parameter the tool's schema types as a string only
        self.string_param = False

    def _scalar(self, escaped: bool, out: Emitter) -> None:
        """A scalar value starts: a string at once when its parameter is typed as a string, or
        when it is escaped and the style makes escaped values strings."""
        typed_string, self.string_param = self.string_param, False
        streaming = typed_string or (escaped and self.style.escaped_strings)
        if streaming:
            out.args('"')
        self.st = ["scalar", "", streaming, escaped]

    def _begin_value(self, out: Emitter) -> None:
        if self.stack:
            top = self.stack[-1]
            if not top[0]:
                if top[1] > 0:
                    out.args(", ")
                top[1] += 1

    def _close(self, out: Emitter) -> None:
        if self.stack:
            top = self.stack.pop()
            out.args("}" if top[0] else "]")
        if not self.stack:
            out.tool_end()
            self.st = ["after", Held()]
        else:
            self.st = ["next"]

    def _fail(self, out: Emitter) -> None:
        out.malformed = True
        self.st = ["fallback"]

    def _scalar_text(self, st: list, s: str, out: Emitter) -> None:
        if not s:
            return
        if st[2]:
            out.args(params.json_str_body(s))
            return
        st[1] += s
        if not scalar_prefix(st[1]) or len(st[1]) > SCALAR_CAP:
            st[2] = True
            held, st[1] = st[1], ""
            out.args('"' + params.json_str_body(held))

    @staticmethod
    def _scalar_end(st: list, out: Emitter) -> None:
        if st[2]:
            out.args('"')
            return
        if not st[3] and st[1] == "None":
            # Python's null, as Gemma 4's template writes a null value ({{ argument }}).
            out.args("null")
            return
        j: Optional[str] = params.normalize_json(st[1])
        out.args(j if j is not None else params.json_str(st[1]))

    def on_text(self, s: str, i: int, out: Emitter) -> Next:
        """Plain text up to the start marker."""
        start = self.style.start
        which, i = text_until(start, s, i, out)
        if which == -1:
            return i, HOLD
        self.st = ["head", start.list[which]]
        return i, GO

    def on_head(self, st: list, s: str, i: int, out: Emitter) -> Next:
        """After the start marker: the prefix and the name, up to the arguments' ``{``; anything
        else is malformed markup, sent as content."""
        style = self.style
        brace = s.find("{", i)
        take = (len(s) if brace == -1 else brace) - i
        st[1] += s[i : i + take]
        raw = st[1]
        body = raw[len(style.start.list[0]) :]
        np_ = len(style.prefix)
        if len(body) < np_:
            ok = style.prefix.startswith(body) and brace == -1
        else:
            name = body[np_:]
            ok = (
                body.startswith(style.prefix)
                and _NAME_STOP.search(name) is None
                and len(name) <= NAME_CAP
                and (brace == -1 or name != "")
            )
        if not ok:
            out.content(raw)
            self._fail(out)
            return i + take, HOLD
        if brace == -1:
            return len(s), HOLD
        self.func = body[np_:]
        out.tool_start(None, self.func)
        out.args("{")
        self.stack = [[True, 0]]
        self.st = ["key", ""]
        return i + take + 1, GO

    def on_key(self, st: list, s: str, i: int, out: Emitter) -> Next:
        """In an object, reading a key (leading whitespace skipped) up to its ``:``; ``}`` may
        close the object, and an escape marker opens a key written between escape markers."""
        style = self.style
        if st[1] == "" and s[i] in WS:
            # whitespace before a key is not part of it
            return i + 1, GO
        ks = style.key_stop.search(s, i)
        if ks is None:
            st[1] += s[i:]
            if len(st[1]) > NAME_CAP:
                self._fail(out)
            return len(s), HOLD
        p = ks.start()
        st[1] += s[i:p]
        c = s[p]
        key = st[1]
        if len(key) > NAME_CAP:
            self._fail(out)
            return p, GO
        if key == "" and c == "}":
            self._close(out)
            return p + 1, GO
        if key == "" and c == "<":
            which = style.escape.starts(s, p)
            if which != -1:
                self.st = ["esc_key", ""]
                return p + len(style.escape.list[which]), GO
            if style.escape.could_start(s[p:]):
                return p, HOLD
        if key == "" or c != ":":
            self._fail(out)
            return p, GO
        self._member(key, out)
        return p + 1, GO

    def _member(self, key: str, out: Emitter) -> None:
        """A key and its ``:`` are read: writes the key (its separator first), and whether the
        value is a parameter typed as a string only."""
        key = key.rstrip(WS)  # whitespace between a key and its ":" is not part of it
        if len(key) >= 2 and key[0] == '"' and key[-1] == '"':
            key = key[1:-1]
        sep = ""
        if self.stack:
            top = self.stack[-1]
            if top[1] > 0:
                sep = ", "
            top[1] += 1
        out.args(sep + params.json_str(key) + ": ")
        types = self.tools.get(self.func, {}).get(key)
        self.string_param = (
            len(self.stack) == 1 and types is not None and params.kind_of_types(types) == params.STR
        )
        self.st = ["value"]

    def on_esc_key(self, st: list, s: str, i: int, out: Emitter) -> Next:
        """A key written between escape markers, read whole up to its closing marker; then
        ``key`` again, holding it quoted."""
        escape = self.style.escape
        kind, take, which = escape.find(s, i)
        st[1] += s[i : i + take]
        i += take
        if len(st[1]) > NAME_CAP:
            self._fail(out)
            return i, GO
        if kind != "marker":
            return i, HOLD
        self.st = ["key", '"' + st[1] + '"']
        return i + len(escape.list[which]), GO

    def on_value(self, s: str, i: int, out: Emitter) -> Next:
        """A value is expected: an escaped string, a nested object or array, or a bare word (an
        array's first value may be ``]``)."""
        escape = self.style.escape
        c = s[i]
        if c in WS:
            return i + 1, GO
        if c == "<" and escape.starts(s, i) != -1:
            self._begin_value(out)
            self._scalar(True, out)
            return i + len(escape.list[0]), GO
        if c == "<" and escape.could_start(s[i : i + len(escape.list[0])]):
            return i, HOLD
        if c in "{[":
            self.string_param = False
            self._begin_value(out)
            obj = c == "{"
            out.args("{" if obj else "[")
            self.stack.append([obj, 0])
            self.st = ["key", ""] if obj else ["value"]
            return i + 1, GO
        if c == "]" and self.stack and not self.stack[-1][0] and self.stack[-1][1] == 0:
            self._close(out)
            return i + 1, GO
        if c in "<,}]:":
            self._fail(out)
        else:
            self._begin_value(out)
            self._scalar(False, out)
        return i, GO

    def on_scalar(self, st: list, s: str, i: int, out: Emitter) -> Next:
        """In a scalar value (escaped: between escape markers, else a bare word): its text up to
        its end, held or streamed (see ``_scalar_text``)."""
        escape = self.style.escape
        # the value's text ends at `at`, the value at `end`
        if st[3]:
            kind, at, which = escape.find(s, i)
            if kind != "marker":
                self._scalar_text(st, s[i : i + at], out)
                return i + at, HOLD
            end = at + len(escape.list[which])
        else:
            bs = _BARE_STOP.search(s, i)
            if bs is None:
                self._scalar_text(st, s[i:], out)
                return len(s), HOLD
            at = end = bs.start() - i
        self._scalar_text(st, s[i : i + at], out)
        self._scalar_end(st, out)
        self.st = ["next"]
        return i + end, GO

    def on_next(self, s: str, i: int, out: Emitter) -> Next:
        """After a value: ``,``, the close of the open object or array, or (in an object) a
        key."""
        c = s[i]
        obj = bool(self.stack) and self.stack[-1][0]
        if c in WS:
            return i + 1, GO
        if c == ",":
            self.st = ["key", ""] if obj else ["value"]
            return i + 1, GO
        if (obj and c == "}") or (not obj and c == "]"):
            self._close(out)
            return i + 1, GO
        if obj and self.style.key_stop.match(c) is None:
            # A missing comma: the next key.
            self.st = ["key", ""]
        else:
            self._fail(out)
        return i, GO

    def step(self, s: str, i: int, out: Emitter) -> Next:
        st = self.st
        kind = st[0]
        if kind == "text":
            return self.on_text(s, i, out)
        elif kind == "head":
            return self.on_head(st, s, i, out)
        elif kind == "key":
            return self.on_key(st, s, i, out)
        elif kind == "esc_key":
            return self.on_esc_key(st, s, i, out)
        elif kind == "value":
            return self.on_value(s, i, out)
        elif kind == "scalar":
            return self.on_scalar(st, s, i, out)
        elif kind == "next":
            return self.on_next(s, i, out)
        elif kind == "after":
            after, _, i = after_call(st[1], s, i, self.style.end, out)
            if after == "wait":
                return i, HOLD
            # The end marker; or none: the whitespace started the text.
            self.st = ["text"]
            return i, GO
        # fallback: the driver makes the rest content
        return i, HOLD

    def finish(self, rest: str, out: Emitter) -> None:
        st = self.st
        kind = st[0]
        if kind in ("text", "fallback"):
            out.content(rest)
        elif kind == "head":
            out.truncate(st[1] + rest)
        elif kind == "after":
            out.content("".join(st[1]) + rest)
        else:
            out.truncate("")
