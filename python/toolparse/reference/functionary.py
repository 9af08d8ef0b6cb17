"""MeetKai Functionary's formats: a call is a header naming the function, then its JSON arguments;
one function's call may instead carry raw code, which becomes ``{KEY: "code"}`` (twin of
``rust/formats/functionary.rs``; the rules are in that file's doc):

* functionary_v31: ``<function=NAME>{...}</function>`` inside text, and ``<|python_tag|>``
  followed by raw code (the rest of the output) for the function ``python``;
* functionary_v32: recipient messages: the output starts with a recipient line (the prompt wrote
  ``>>>``): ``all\\n`` then text (content), ``NAME\\n{...}`` (a call) or ``python\\n`` then raw
  code; every later message starts with ``>>>``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Mapping, Optional

from .between import GO, HOLD, Held, Machine, Next, markup_after_call, stream_args, text_until
from .event import Emitter
from .json import JsonScanner
from .params import ToolTypes, json_str_body
from .scan import NAME_MAX, WS_MAX, Markers, ws_len

if TYPE_CHECKING:
    from ..spec_types import Call

RAW = 1


class Style:
    """One format of the family (built from its spec entry, as ``build.rs`` does)."""

    def __init__(
        self,
        call_start: str,
        name_end: str,
        call_end: Optional[str],
        raw_marker: Optional[str],
        raw_name: str,
        raw_key: str,
        raw_by_header: bool,
        content_recipient: Optional[str],
        starts_with_header: bool,
        loose_headers: bool,
    ) -> None:
        # in text: [call_start], then the raw marker if the format has one
        self.text = Markers([call_start] + ([raw_marker] if raw_marker is not None else []))
        self.call_start = call_start
        self.name_end = name_end
        # after the arguments: [call_end]; None when text follows a call
        self.call_end = Markers([call_end]) if call_end is not None else None
        self.raw_name, self.raw_key = raw_name, raw_key
        # a header naming raw_name followed by anything but `{` starts the raw code
        self.raw_by_header = raw_by_header
        self.content_recipient = content_recipient  # its messages are content (`all`)
        self.starts_with_header = starts_with_header  # the prompt wrote the call start
        self.loose_headers = loose_headers  # a header that is not one is text (else malformed)


def style_of(name: str, m: Mapping[str, str], call: Call) -> Style:
    """The style of a spec entry (the twin of ``build.rs``'s ``functionary_style``)."""

    def need(key: str) -> str:
        if key not in m:
            raise ValueError(f"format spec: {name}: no {key}")
        return m[key]

    # the loader checked the fields (toolparse.spec_types): bad_header is given
    raw = call.raw_code
    if call.bad_header is None:
        raise ValueError(f"format spec: {name}: no call.bad_header")
    raw_marker = m.get("call_start_raw")
    if raw is not None and raw.start == "marker" and raw_marker is None:
        raise ValueError(f"format spec: {name}: call.raw_code.start 'marker' without its marker")
    if raw is None and raw_marker is not None:
        raise ValueError(f"format spec: {name}: the marker call_start_raw without call.raw_code")
    # no raw_code: no function's call carries raw code (an inferred format, whose template's
    # renders cannot show one)
    raw_by_header = raw is not None and raw.start == "header"
    return Style(
        need("call_start"),
        need("name_end"),
        m.get("call_end"),
        raw_marker,
        raw.name if raw is not None else "",
        raw.key if raw is not None else "",
        raw_by_header,
        call.content_recipient,
        call.starts_with_header,
        call.bad_header == "text",
    )


def name_char(c: str) -> bool:
    """Whether ``c`` may stand in a function's name (ASCII letters, digits, ``_``, ``-``)."""
    return c.isascii() and (c.isalnum() or c in "_-")


class Functionary(Machine):
    def __init__(self, style: Style, _tools: ToolTypes) -> None:
        self.style = style
        # Text | Header | Open | RawOpen | Raw | Args | Close | Fallback
        self.st = "Header" if style.starts_with_header else "Text"
        self.raw = ""  # Header / Open / RawOpen: the markup read
        self.first = style.starts_with_header  # Header: the output's first line, no call start
        self.name = ""  # Open
        self.head = 0  # Open: where the header ends in raw
        self.sc: Optional[JsonScanner] = None  # Args
        self.ws = Held()  # Close: the markup read
        self.end: Optional[Markers] = None  # Close: the format's call_end

    def _not_a_header(self, raw: str, out: Emitter) -> None:
        """A header that is not one: text, or malformed markup."""
        if self.style.loose_headers:
            out.content(raw)
            self.st = "Text"
        else:
            self._fail(raw, out)

    def _fail(self, raw: str, out: Emitter) -> None:
        out.malformed = True
        out.content(raw)
        self.st = "Fallback"

    def _start_raw(self, code: str, out: Emitter) -> None:
        """Starts the raw-code call, its code beginning with ``code``."""
        out.tool_start(None, self.style.raw_name)
        out.args('{"' + json_str_body(self.style.raw_key) + '": "' + json_str_body(code))
        self.st = "Raw"

    def on_text(self, s: str, i: int, out: Emitter) -> Next:
        """Plain text up to a call start or the raw marker."""
        which, i = text_until(self.style.text, s, i, out)
        if which == -1:
            return i, HOLD
        self.raw = self.style.text.list[which]
        if which == RAW:
            self.st = "RawOpen"
        else:
            self.st, self.first = "Header", False
        return i, GO

    def on_header(self, s: str, i: int, out: Emitter) -> Next:
        """A header: the call start (or the output's start), the name, the name's end."""
        style = self.style
        if self.first and not self.raw:
            # (the output's start may repeat the call start the prompt wrote)
            if s.startswith(style.call_start, i):
                self.raw, self.first = style.call_start, False
                return i + len(style.call_start), GO
            if style.call_start.startswith(s[i:]):
                return i, HOLD
        start = 0 if self.first else len(style.call_start)
        chars = len(self.raw) - start
        k = i
        n = len(s)
        while k < n and name_char(s[k]) and chars < NAME_MAX:
            chars += 1
            k += 1
        if k == n:
            self.raw += s[i:]
            return n, HOLD
        self.raw += s[i:k]
        if not s.startswith(style.name_end, k):
            if chars < NAME_MAX and style.name_end.startswith(s[k:]):
                return k, HOLD  # the name's end may still come
            raw, self.raw = self.raw, ""
            self._not_a_header(raw, out)
            return k, GO
        name = self.raw[start:]
        self.raw += style.name_end
        if not name:
            raw, self.raw = self.raw, ""
            self._not_a_header(raw, out)
        elif name == style.content_recipient:
            self.raw, self.st = "", "Text"  # the header is markup
        else:
            self.st, self.name, self.head = "Open", name, len(self.raw)
        return k + len(style.name_end), GO

    def on_open(self, s: str, i: int, out: Emitter) -> Next:
        """After the header: whitespace, then the arguments object (or, for the raw-code
        function, its code)."""
        style = self.style
        w = ws_len(s, i)
        over = len(self.raw) - self.head + w > WS_MAX
        self.raw += s[i : i + w]
        i += w
        if i == len(s) and not over:
            return i, HOLD
        if i < len(s) and s[i] == "{" and not over:
            out.tool_start(None, self.name)
            self.st, self.sc, self.raw = "Args", JsonScanner(), ""
        elif style.raw_by_header and self.name == style.raw_name:
            code, self.raw = self.raw[self.head :], ""
            self._start_raw(code, out)
        else:
            raw, self.raw = self.raw, ""
            self._not_a_header(raw, out)
        return i, GO

    def on_close(self, s: str, i: int, out: Emitter) -> Next:
        """After the arguments: whitespace, then ``end`` (the format's ``call_end``)."""
        kind, _, i = markup_after_call(self.ws, s, i, self.end, out)  # type: ignore[arg-type]
        if kind == "wait":
            return i, HOLD
        self.st = "Text" if kind == "marker" else "Fallback"
        return i, GO

    def step(self, s: str, i: int, out: Emitter) -> Next:
        st = self.st
        if st == "Raw":
            out.args(json_str_body(s[i:]))
            return len(s), HOLD
        if st == "Text":
            return self.on_text(s, i, out)
        if st == "Header":
            return self.on_header(s, i, out)
        if st == "RawOpen":
            w = ws_len(s, i)
            self.raw += s[i : i + w]
            i += w
            code = self.raw[len(self.style.text.list[RAW]) :]
            if i == len(s) and len(code) <= WS_MAX:
                return i, HOLD
            self.raw = ""
            self._start_raw(code, out)
            return i, GO
        if st == "Open":
            return self.on_open(s, i, out)
        if st == "Args":
            how, k = stream_args(self.sc, s, i, out)  # type: ignore[arg-type]
            if how == "open":
                return len(s), HOLD
            if how == "broken":
                self.st = "Fallback"
            elif self.style.call_end is not None:
                self.st, self.ws, self.end = "Close", Held(), self.style.call_end
            else:
                self.st = "Text"
            return i + k, GO
        if st == "Close":
            return self.on_close(s, i, out)
        return i, HOLD  # Fallback: the driver makes the rest content

    def finish(self, rest: str, out: Emitter) -> None:
        st = self.st
        if st == "Header" and self.first:
            # The output's first line, no header after all: text.
            out.content(self.raw + rest)
        elif st in ("Header", "Open", "RawOpen"):
            out.truncate(self.raw + rest)
        elif st in ("Text", "Fallback"):
            out.content(rest)
        elif st == "Raw":
            out.args('"}')
            out.tool_end()
        elif st == "Args":
            out.truncate("")
        # Close: the call is complete; what is held is (part of) its end marker.
