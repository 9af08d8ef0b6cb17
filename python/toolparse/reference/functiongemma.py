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
from .between import Held, after_call, text_until
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
    """Whether ``s`` may still grow into a JSON number, ``true``, ``false`` or ``null``."""
    if any(lit.startswith(s) for lit in ("true", "false", "null")):
        return True
    m = _NUMBER_PREFIX.match(s)
    return m is not None and m.end() == len(s)


# States (same names as the Rust enum): ("text",), ("head", raw), ("key", key), ("esc_key", key),
# ("value",),
# ("scalar", raw, streaming, escaped), ("next",), ("after", ws), ("fallback",)


class FunctionGemma:
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
        j: Optional[str] = params.normalize_json(st[1])
        out.args(j if j is not None else params.json_str(st[1]))

    def feed(self, s: str, out: Emitter) -> int:
        style = self.style
        i = 0
        n = len(s)
        while i < n:
            st = self.st
            kind = st[0]
            if kind == "text":
                which, i = text_until(style.start, s, i, out)
                if which == -1:
                    return i
                self.st = ["head", style.start.list[which]]
            elif kind == "head":
                brace = s.find("{", i)
                take = (n if brace == -1 else brace) - i
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
                    i += take
                    self._fail(out)
                    return i
                if brace == -1:
                    return n
                i += take + 1
                self.func = body[np_:]
                out.tool_start(None, self.func)
                out.args("{")
                self.stack = [[True, 0]]
                self.st = ["key", ""]
            elif kind == "key":
                if st[1] == "" and s[i] in WS:
                    # whitespace before a key is not part of it
                    i += 1
                    continue
                ks = style.key_stop.search(s, i)
                if ks is None:
                    st[1] += s[i:]
                    if len(st[1]) > NAME_CAP:
                        self._fail(out)
                    return n
                p = ks.start() - i
                st[1] += s[i : i + p]
                c = s[i + p]
                key = st[1]
                if len(key) > NAME_CAP:
                    i += p
                    self._fail(out)
                    return i
                if key == "" and c == "}":
                    i += p + 1
                    self._close(out)
                    continue
                if key == "" and c == "<":
                    which = style.escape.starts(s, i + p)
                    if which != -1:
                        i += p + len(style.escape.list[which])
                        self.st = ["esc_key", ""]
                        continue
                    if style.escape.could_start(s[i + p :]):
                        return i + p
                if key == "" or c != ":":
                    i += p
                    self._fail(out)
                    return i
                i += p + 1
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
                    len(self.stack) == 1
                    and types is not None
                    and params.kind_of_types(types) == params.STR
                )
                self.st = ["value"]
            elif kind == "esc_key":
                # a key between escape markers; then "key" again, holding it quoted
                f = style.escape.find(s, i)
                st[1] += s[i : i + f[1]]
                i += f[1]
                if len(st[1]) > NAME_CAP:
                    self._fail(out)
                    return i
                if f[0] != "marker":
                    return i
                i += len(style.escape.list[f[2]])
                self.st = ["key", '"' + st[1] + '"']
            elif kind == "value":
                c = s[i]
                if c in WS:
                    i += 1
                    continue
                if c == "<":
                    if style.escape.starts(s, i) != -1:
                        i += len(style.escape.list[0])
                        self._begin_value(out)
                        self._scalar(True, out)
                    elif style.escape.could_start(s[i : i + len(style.escape.list[0])]):
                        return i
                    else:
                        self._fail(out)
                        return i
                elif c in "{[":
                    i += 1
                    self.string_param = False
                    self._begin_value(out)
                    obj = c == "{"
                    out.args("{" if obj else "[")
                    self.stack.append([obj, 0])
                    self.st = ["key", ""] if obj else ["value"]
                elif c == "]" and self.stack and not self.stack[-1][0] and self.stack[-1][1] == 0:
                    i += 1
                    self._close(out)
                elif c in ",}]:":
                    self._fail(out)
                    return i
                else:
                    self._begin_value(out)
                    self._scalar(False, out)
            elif kind == "scalar":
                if st[3]:
                    f = style.escape.find(s, i)
                    if f[0] == "marker":
                        at = f[1]
                        self._scalar_text(st, s[i : i + at], out)
                        self._scalar_end(st, out)
                        i += at + len(style.escape.list[f[2]])
                        self.st = ["next"]
                    else:
                        self._scalar_text(st, s[i : i + f[1]], out)
                        return i + f[1]
                else:
                    bs = _BARE_STOP.search(s, i)
                    if bs is None:
                        self._scalar_text(st, s[i:], out)
                        return n
                    p = bs.start() - i
                    self._scalar_text(st, s[i : i + p], out)
                    self._scalar_end(st, out)
                    i += p
                    self.st = ["next"]
            elif kind == "next":
                c = s[i]
                obj = bool(self.stack) and self.stack[-1][0]
                if c in WS:
                    i += 1
                elif c == ",":
                    i += 1
                    self.st = ["key", ""] if obj else ["value"]
                elif (obj and c == "}") or (not obj and c == "]"):
                    i += 1
                    self._close(out)
                elif obj and style.key_stop.match(c) is None:
                    # A missing comma: the next key.
                    self.st = ["key", ""]
                else:
                    self._fail(out)
                    return i
            elif kind == "after":
                after, _, i = after_call(st[1], s, i, style.end, out)
                if after == "wait":
                    return i
                # The end marker; or none: the whitespace started the text.
                self.st = ["text"]
            else:
                # fallback: the driver makes the rest content
                return i
        return n

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
