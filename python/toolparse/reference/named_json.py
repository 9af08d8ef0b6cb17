"""Calls written as a header, a separator and the JSON arguments, between call markers inside a
section (twin of ``rust/formats/named_json.rs``; the rules are in that file's doc):

* deepseek_v3: ``<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>NAME\\n```json\\n{...}\\n```<｜tool▁call▁end｜>...<｜tool▁calls▁end｜>``
* deepseek_v31: ``<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>NAME<｜tool▁sep｜>{...}<｜tool▁call▁end｜>...<｜tool▁calls▁end｜>``
* kimi_k2: ``<|tool_calls_section_begin|><|tool_call_begin|>functions.NAME:IDX<|tool_call_argument_begin|>{...}<|tool_call_end|>...<|tool_calls_section_end|>``
"""  # noqa: E501

from __future__ import annotations

from typing import TYPE_CHECKING, List, Optional, Sequence, Set, Tuple

from .between import Held, markup_after_call, stream_args, text_until
from .event import Emitter
from .json import JsonScanner
from .params import ToolTypes
from .scan import WS, WS_MAX, Markers, expect, expect_capped, trailing_ws, ws_len

if TYPE_CHECKING:
    from ..spec_types import Call

# The longest call header accepted, in characters.
HEADER_MAX = 256

CALL_END, CALL_START, FENCE = 0, 1, 2


class Style:
    """The markers of one format of the family (built from its spec entry, as ``build.rs``
    does)."""

    def __init__(
        self,
        section_starts: Sequence[str],
        section_ends: Sequence[str],
        call_start: str,
        call_end: str,
        separators: Sequence[str],
        fence: Optional[str],
        id: bool,
        drop_between: bool = False,
    ) -> None:
        # the section's start markers (its spelling, and the alternative one some checkpoints
        # write: kimi_k2's singular `<|tool_call_section_begin|>`)
        self.section = Markers(section_starts)
        self.between = Markers([call_start, *section_ends])
        self.fields: List[Markers] = [
            Markers([sep, call_start, call_end, *section_ends]) for sep in separators
        ]
        close = [call_end, call_start]
        if fence is not None:
            close.append(fence)
        self.close = Markers([*close, *section_ends])
        self.fence = fence is not None
        self.id = id
        # the section holds only calls: text in it outside a call is dropped, and a section with
        # no call in it is markup (the spec's `call.between_calls: "dropped"`)
        self.drop_between = drop_between


def drops_between(call: Call) -> bool:
    """The spec's ``call.between_calls``: ``"dropped"`` (text in a section outside a call is
    dropped) or ``"whitespace"`` (the default: only whitespace may stand there)."""
    return call.between_calls == "dropped"


def valid_name(name: str) -> bool:
    return bool(name) and not any(c in WS for c in name)


def is_index(s: str) -> bool:
    return bool(s) and all("0" <= c <= "9" for c in s)


class NamedJson:
    def __init__(self, style: Style, tools: ToolTypes) -> None:
        self.style = style
        # Text | Section | Header | Open | Args | Close | Fallback
        self.st = "Text"
        self.raw = ""  # Section / Header / Open: the markup read and not yet emitted
        self.open = False  # Section: no call yet in this section
        self.field = 0  # Header: which field
        self.text = ""  # Header: the field's text so far
        self.chars = 0  # Header: the header's length
        self.id: Optional[str] = None  # Open
        self.name = ""  # Open
        self.sc: Optional[JsonScanner] = None  # Args
        self.fence = False  # Close: the fence was seen
        self.ws = Held()  # Close: the markup read
        self.ids: Set[str] = set()  # the ids the model gave earlier calls
        # the request's only tool (names a kimi_k2 call whose id is a bare counter)
        self.only_tool: Optional[str] = next(iter(tools)) if len(tools) == 1 else None

    def header(self, field: str) -> Optional[Tuple[Optional[str], str]]:
        """The call's id and name from the header's last field; None when it is not one."""
        h = field.strip(WS)
        if not self.style.id:
            return (None, h) if valid_name(h) else None
        pre, colon, idx = h.partition(":")
        if colon and is_index(idx):
            name = pre[len("functions.") :] if pre.startswith("functions.") else pre
            if not valid_name(name):
                return None
        elif not colon and is_index(h) and self.only_tool is not None:
            name = self.only_tool
        else:
            return None
        if h in self.ids:
            return (None, name)
        self.ids.add(h)
        return (h, name)

    def _fail(self, raw: str, out: Emitter) -> None:
        out.malformed = True
        out.content(raw)
        self.st = "Fallback"

    def _section(self, raw: str, open: bool) -> None:
        self.st, self.raw, self.open = "Section", raw, open

    def _header(self, raw: str) -> None:
        self.st, self.raw, self.field, self.text, self.chars = "Header", raw, 0, "", 0

    def feed(self, s: str, out: Emitter) -> int:
        style = self.style
        i = 0
        n = len(s)
        while i < n:
            st = self.st
            if st == "Text":
                which, i = text_until(style.section, s, i, out)
                if which == -1:
                    return i
                self._section(style.section.list[which], True)
            elif st == "Section" and style.drop_between:
                kind, at, which = style.between.find(s, i)
                if kind != "marker":
                    # text outside a call is dropped; a possible marker's start is held back
                    return i + at
                m = style.between.list[which]
                i += at + len(m)
                if which == 0:
                    # (the markup a malformed first call falls back to starts at the section's)
                    self._header((self.raw if self.open else "") + m)
                else:
                    self.st = "Text"
            elif st == "Section":
                kind, a, b = expect_capped(s, style.between, i, trailing_ws(self.raw))
                if kind == "marker" and a == 0:
                    self._header(self.raw + s[i : i + b])
                    i += b
                elif kind == "marker":
                    # The section's end. A section with no call in it is content.
                    if self.open:
                        out.content(self.raw + s[i : i + b])
                    i += b
                    self.st = "Text"
                elif kind == "wait":
                    self.raw += s[i : i + a]
                    return i + a
                else:
                    # Other text, or whitespace past the cap: malformed markup.
                    self.raw += s[i : i + a]
                    i += a
                    self._fail(self.raw, out)
            elif st == "Header":
                stops = style.fields[self.field]
                kind, at, which = stops.find(s, i)
                piece = s[i : i + at]
                self.text += piece
                self.raw += piece
                self.chars += len(piece)
                i += at
                if self.chars > HEADER_MAX:
                    self._fail(self.raw, out)
                    continue
                if kind != "marker":
                    return i
                if which == 0:
                    m = stops.list[0]
                    self.raw += m
                    i += len(m)
                    if self.field + 1 < len(style.fields):
                        self.field += 1
                        self.text = ""
                        continue
                    raw, text = self.raw, self.text
                    self.text = ""
                    h = self.header(text)
                    if h is None:
                        self._fail(raw, out)
                    else:
                        self.st, self.raw, (self.id, self.name) = "Open", raw, h
                else:
                    # Another call marker inside the header.
                    self._fail(self.raw, out)
            elif st == "Open":
                w = ws_len(s, i)
                # (the header ends with its separator: the whitespace after it is the run)
                over = trailing_ws(self.raw) + w > WS_MAX
                self.raw += s[i : i + w]
                i += w
                if over:
                    # Whitespace past the cap: malformed markup, as a header too long is.
                    self._fail(self.raw, out)
                    continue
                if i == n:
                    return n
                if s[i] == "{":
                    out.tool_start(self.id, self.name)
                    self.st, self.sc = "Args", JsonScanner()
                    continue
                kind, a, b = expect(s, style.close, i)
                if kind == "marker" and a == CALL_END:
                    # No arguments at all: an empty object.
                    out.tool_start(self.id, self.name)
                    out.args("{}")
                    out.tool_end()
                    i += b
                    self._section("", False)
                elif kind == "wait":
                    return i
                else:
                    self._fail(self.raw, out)
            elif st == "Args":
                how, k = stream_args(self.sc, s, i, out)  # type: ignore[arg-type]
                if how == "open":
                    return n
                i += k
                if how == "ended":
                    self.st, self.fence, self.ws = "Close", False, Held()
                else:
                    self.st = "Fallback"
            elif st == "Close":
                kind, which, i = markup_after_call(self.ws, s, i, style.close, out)
                if kind == "marker":
                    if which == CALL_END:
                        self._section("", False)
                    elif which == CALL_START:
                        self._header("".join(self.ws))
                    elif which == FENCE and style.fence:
                        # (the fence stays in the held text)
                        if self.fence:
                            self._fail("".join(self.ws), out)  # a second fence
                        else:
                            self.fence = True
                    else:  # the section's end
                        self.st = "Text"
                elif kind == "wait":
                    return i
                else:
                    self.st = "Fallback"
            else:  # Fallback: the driver makes the rest content
                return i
        return n

    def finish(self, rest: str, out: Emitter) -> None:
        st = self.st
        if st in ("Text", "Fallback"):
            out.content(rest)
        elif st == "Section":
            # A section left open after complete calls keeps them; the text ending inside its
            # start or the next call's start marker is truncation.
            next_call = bool(rest) and self.style.between.list[0].startswith(rest)
            if self.open or next_call:
                out.truncate(self.raw + rest)
        elif st in ("Header", "Open"):
            out.truncate(self.raw + rest)
        elif st == "Args":
            out.truncate("")
        # Close: the call is complete; what is held is (part of) its end marker.
