"""Qwen3-Coder XML tool calls (twin of ``rust/formats/qwen3_coder.rs``; the decisions on the loose
points of the format are listed there)::

    <tool_call>
    <function=NAME>
    <parameter=KEY>
    VALUE
    </parameter>
    </function>
    </tool_call>

The wrapper may be missing. String values stream as they arrive; typed values (and values of a
union that admits a string and another type) are sent when their parameter closes; ``{`` goes
with the call start and ``}`` with ``</function>``. A ``</parameter>`` (or the implicit end
``\n</function>``) closes a value only when the right markup or the end of the output follows it
after at most ``WS_CAP`` bytes of whitespace; otherwise it is value text.
"""

from __future__ import annotations

import re
from typing import List

from . import ToolTypes, params
from .event import Emitter
from .json import is_blank
from .scan import Markers, expect

# The longest run of whitespace allowed between a closing tag inside a value and what confirms it.
WS_CAP = 64

TEXT = Markers(["<tool_call>", "<function="])
FUNCTION = Markers(["<function="])
BODY = Markers(["<parameter=", "</function>", "</tool_call>"])
VALUE = Markers(["</parameter>", "\n</parameter>", "\n<parameter=", "\n</function>"])
# What must follow a </parameter> (after whitespace) for it to close the value.
AFTER_PARAM = Markers(["<parameter=", "</function>", "</tool_call>"])
# What must follow a \n</function> inside a value for it to close the value and the call.
AFTER_FUNCTION = Markers(["</tool_call>"])
END = Markers(["</tool_call>"])

# Characters that end a function name (">" completes it; the others make it not a call) and a
# parameter name (">" completes it; the others are malformed).
_NAME_STOP = re.compile(r"[><{}\"' \t\n\r]")
_PARAM_STOP = re.compile(r"[><\n]")


def new(tools: ToolTypes) -> Qwen3Coder:
    return Qwen3Coder(tools)


def _find_any(s: str, stops: re.Pattern, start: int) -> int:
    """Offset (relative to ``start``) of the first stop character in ``s[start:]``, or -1."""
    m = stops.search(s, start)
    return -1 if m is None else m.start() - start


_VALUE_LONGEST = max(len(m) for m in VALUE.list)

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


class Qwen3Coder:
    def __init__(self, tools: ToolTypes) -> None:
        self.tools = tools
        # Text | Wrapper | Name | Body | Param | Value | After | Fallback
        self.st = "Text"
        self.raw = ""  # Wrapper, Name: the markup read so far
        self.at = 0  # Name: where the name starts in raw
        self.name = ""  # Param: the parameter name so far
        self.kind: params.Kind = params.STR  # Value
        # Value: where it stands with its optional leading newline: Start (not dealt with), Kept
        # (it starts with a candidate end marker, kept whole: if that turns out to be value text,
        # a newline it starts with is the leading newline and is stripped), Body
        self.lead = "Start"
        self.buf: List[str] = []  # Value: the raw text of a typed value
        self.ws = ""  # After: the whitespace read, content if other text follows
        self.func = ""  # the current call's function name
        self.params = 0  # parameters written in the current call
        self.eof = False  # the end of the output was reached: a held closing tag is decided

    @staticmethod
    def _close(out: Emitter) -> None:
        out.args("}")
        out.tool_end()

    def _value_text(self, s: str, out: Emitter) -> None:
        if not s:
            return
        if self.kind == params.STR:
            out.args(params.json_str_body(s))
        else:
            self.buf.append(s)

    def feed(self, s: str, out: Emitter) -> int:
        i = 0
        n = len(s)
        while i < n:
            st = self.st
            if st == "Text":
                kind, at, which = TEXT.find(s, i)
                out.content(s[i : i + at])
                if kind != "marker":
                    return i + at
                m = TEXT.list[which]
                i += at + len(m)
                self.raw = m
                if which == 0:
                    self.st = "Wrapper"
                else:
                    self.st, self.at = "Name", len(m)
            elif st == "Wrapper":
                kind, a, b = expect(s, FUNCTION, i)
                if kind == "marker":
                    self.raw += s[i : i + b]
                    self.at = len(self.raw)
                    i += b
                    self.st = "Name"
                elif kind == "wait":
                    self.raw += s[i : i + a]
                    return i + a
                else:
                    # Not a call: the wrapper was content.
                    self.raw += s[i : i + a]
                    out.content(self.raw)
                    self.raw = ""
                    i += a
                    self.st = "Text"
            elif st == "Name":
                p = _find_any(s, _NAME_STOP, i)
                if p == -1:
                    self.raw += s[i:]
                    return n
                self.raw += s[i : i + p]
                if s[i + p] == ">" and not is_blank(self.raw[self.at :]):
                    self.func = self.raw[self.at :]
                    self.raw = ""
                    self.params = 0
                    i += p + 1
                    out.tool_start(None, self.func)
                    out.args("{")
                    self.st = "Body"
                else:
                    # Not a call: the markup was content; text goes on at the stop character.
                    out.content(self.raw)
                    self.raw = ""
                    i += p
                    self.st = "Text"
            elif st == "Body":
                kind, a, b = expect(s, BODY, i)
                if kind == "marker" and a == 0:
                    i += b
                    self.st, self.name = "Param", ""
                elif kind == "marker":
                    # </function>, or </tool_call> with </function> missing.
                    i += b
                    self._close(out)
                    self.st, self.ws = ("After", "") if a == 1 else ("Text", "")
                elif kind == "wait":
                    return i + a
                else:
                    i += a
                    out.malformed = True
                    self.st = "Fallback"
            elif st == "Param":
                p = _find_any(s, _PARAM_STOP, i)
                if p == -1:
                    self.name += s[i:]
                    return n
                self.name += s[i : i + p]
                if s[i + p] != ">":
                    i += p
                    out.malformed = True
                    self.st = "Fallback"
                    continue
                i += p + 1
                name, self.name = self.name, ""
                self.kind = params.param_kind(self.tools, self.func, name)
                frag = (", " if self.params > 0 else "") + params.json_str(name) + ": "
                if self.kind == params.STR:
                    frag += '"'
                out.args(frag)
                self.params += 1
                self.st, self.lead, self.buf = "Value", "Start", []
            elif st == "Value":
                if self.lead == "Start":
                    # One leading newline is stripped, unless it begins an end marker.
                    if VALUE.starts(s, i) != -1:
                        self.lead = "Kept"
                        continue
                    if VALUE.could_start(s[i : i + _VALUE_LONGEST]):
                        return i
                    if s[i] == "\n":
                        i += 1
                    self.lead = "Body"
                    continue
                kind, at, which = VALUE.find(s, i)
                self._value_text(s[i : i + at], out)
                if kind != "marker":
                    return i + at
                if at > 0:
                    self.lead = "Body"
                m = VALUE.list[which]
                after = i + at + len(m)
                if which in (0, 1):
                    close = closes(s, after, AFTER_PARAM, self.eof)
                elif which == 3:
                    close = closes(s, after, AFTER_FUNCTION, self.eof)
                else:
                    close = YES
                if close == WAIT:
                    return i + at
                if close == NO:
                    # The tag is value text (less the leading newline, if it is one).
                    if self.lead == "Kept" and m.startswith("\n"):
                        m = m[1:]
                    self._value_text(m, out)
                    self.lead = "Body"
                    i = after
                    continue
                if self.kind == params.STR:
                    out.args('"')
                else:
                    out.args(params.convert(self.kind, "".join(self.buf)))
                self.buf = []
                i += at + len(VALUE.list[which])
                if which in (0, 1):
                    self.st = "Body"
                elif which == 2:
                    self.st, self.name = "Param", ""
                else:
                    self._close(out)
                    self.st, self.ws = "After", ""
            elif st == "After":
                kind, a, b = expect(s, END, i)
                if kind == "marker":
                    i += b
                    self.st, self.ws = "Text", ""
                elif kind == "wait":
                    self.ws += s[i : i + a]
                    return i + a
                else:
                    # No </tool_call> (a bare call): the whitespace starts the text.
                    out.content(self.ws + s[i : i + a])
                    i += a
                    self.st, self.ws = "Text", ""
            else:  # Fallback: the driver makes the rest content
                return i
        return n

    def finish(self, rest: str, out: Emitter) -> None:
        # The end of the output decides a closing tag held inside a value: feed it once more.
        self.eof = True
        if self.st == "Value" and rest:
            n = self.feed(rest, out)
            rest = rest[n:]
        st = self.st
        if st in ("Text", "Fallback"):
            out.content(rest)
        elif st in ("Wrapper", "Name"):
            # Cut off before the call started: its markup so far.
            out.truncate(self.raw + rest)
            self.raw = ""
        elif st in ("Body", "Param", "Value"):
            # Cut off inside the function (</function> never came): the call is unfinished.
            out.truncate("")
        # After: whitespace after the last call, or a truncated </tool_call>: markup.
