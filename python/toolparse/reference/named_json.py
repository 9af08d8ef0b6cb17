"""Calls written as a header, a separator and the JSON arguments, between call markers inside a
section (twin of ``rust/formats/named_json.rs``; the rules are in that file's doc):

* deepseek_v3: ``<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>NAME\\n```json\\n{...}\\n```<｜tool▁call▁end｜>...<｜tool▁calls▁end｜>``
* deepseek_v31: ``<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>NAME<｜tool▁sep｜>{...}<｜tool▁call▁end｜>...<｜tool▁calls▁end｜>``
* kimi_k2: ``<|tool_calls_section_begin|><|tool_call_begin|>functions.NAME:IDX<|tool_call_argument_begin|>{...}<|tool_call_end|>...<|tool_calls_section_end|>``
"""  # noqa: E501

from __future__ import annotations

from typing import TYPE_CHECKING, List, Optional, Sequence, Set, Tuple

from .between import GO, HOLD, Held, Machine, Next, markup_after_call, stream_args, text_until
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
        id_field: bool = False,
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
        # the header's first field (before name_start) is the model's call id (Solar's
        # `<|tool_call:begin|>ID<|tool_call:name|>NAME`, the spec's `call.id_field`)
        self.id_field = id_field
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


class NamedJson(Machine):
    def __init__(self, style: Style, tools: ToolTypes) -> None:
        self.style = style
        # Text | Section | Header | Open | Args | Close | Fallback
        self.st = "Text"
        self.raw = ""  # Section / Header / Open: the markup read and not yet emitted
        self.open = False  # Section: no call yet in this section
        self.field = 0  # Header: which field
        self.text = ""  # Header: the field's text so far
        self.first = ""  # Header: the first field's text, once read
        self.chars = 0  # Header: the header's length
        self.id: Optional[str] = None  # Open
        self.name = ""  # Open
        self.sc: Optional[JsonScanner] = None  # Args
        self.fence = False  # Close: the fence was seen
        self.ws = Held()  # Close: the markup read
        self.ids: Set[str] = set()  # the ids the model gave earlier calls
        # the request's only tool (names a kimi_k2 call whose id is a bare counter)
        self.only_tool: Optional[str] = next(iter(tools)) if len(tools) == 1 else None

    def field_id(self, field: str) -> Optional[str]:
        """The call's id from the header's first field (``id_field``): None (a generated id)
        when it is empty, holds whitespace, or an earlier call of the output has it."""
        h = field.strip(WS)
        if not h or any(c in WS for c in h) or h in self.ids:
            return None
        self.ids.add(h)
        return h

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

    def _to_section(self, raw: str, open: bool) -> None:
        """In a section, before a call, ``raw`` starting the markup a malformed call falls back
        to."""
        self.st, self.raw, self.open = "Section", raw, open

    def _to_header(self, raw: str) -> None:
        """In a call's header, ``raw`` its markup so far (the call's start marker last)."""
        self.st, self.raw, self.field, self.text, self.chars = "Header", raw, 0, "", 0
        self.first = ""

    def step(self, s: str, i: int, out: Emitter) -> Next:
        st = self.st
        if st == "Args":
            how, k = stream_args(self.sc, s, i, out)  # type: ignore[arg-type]
            if how == "open":
                return len(s), HOLD
            if how == "ended":
                self.st, self.fence, self.ws = "Close", False, Held()
            else:
                self.st = "Fallback"
            return i + k, GO
        if st == "Text":
            return self.on_text(s, i, out)
        if st == "Section":
            return self.on_section(s, i, out)
        if st == "Fallback":
            return i, HOLD  # the driver makes the rest content
        if st == "Header":
            return self.on_header(s, i, out)
        if st == "Open":
            return self.on_open(s, i, out)
        return self.on_close(s, i, out)  # Close

    def on_text(self, s: str, i: int, out: Emitter) -> Next:
        """Plain text up to a section's start."""
        which, i = text_until(self.style.section, s, i, out)
        if which == -1:
            return i, HOLD
        self._to_section(self.style.section.list[which], True)
        return i, GO

    def on_section(self, s: str, i: int, out: Emitter) -> Next:
        """In a section, between calls: whitespace, then the next call's start or the section's
        end. A section that holds only calls (``style.drop_between``) is read by
        ``drop_between``."""
        style = self.style
        if style.drop_between:
            return self.drop_between(s, i)
        kind, a, b = expect_capped(s, style.between, i, trailing_ws(self.raw))
        if kind == "marker" and a == 0:
            self._to_header(self.raw + s[i : i + b])
            return i + b, GO
        if kind == "marker":
            # The section's end. A section with no call in it is content.
            if self.open:
                out.content(self.raw + s[i : i + b])
            self.st = "Text"
            return i + b, GO
        self.raw += s[i : i + a]
        if kind == "wait":
            return i + a, HOLD
        # Other text, or whitespace past the cap: malformed markup.
        self._fail(self.raw, out)
        return i + a, GO

    def drop_between(self, s: str, i: int) -> Next:
        """In a section that holds only calls: text outside a call is dropped, up to the next
        call's start or the section's end."""
        kind, at, which = self.style.between.find(s, i)
        if kind != "marker":
            return i + at, HOLD  # a possible marker's start is held back
        m = self.style.between.list[which]
        if which != 0:
            self.st = "Text"
        else:
            # (the markup a malformed first call falls back to starts at the section's)
            self._to_header((self.raw if self.open else "") + m)
        return i + at + len(m), GO

    def on_header(self, s: str, i: int, out: Emitter) -> Next:
        """A call's header: its fields up to their separators, the last one naming the call."""
        style = self.style
        stops = style.fields[self.field]
        kind, at, which = stops.find(s, i)
        piece = s[i : i + at]
        self.text += piece
        self.raw += piece
        self.chars += len(piece)
        i += at
        if self.chars > HEADER_MAX:
            self._fail(self.raw, out)
            return i, GO
        if kind != "marker":
            return i, HOLD
        if which != 0:
            # Another call marker inside the header.
            self._fail(self.raw, out)
            return i, GO
        m = stops.list[0]
        self.raw += m
        i += len(m)
        if self.field + 1 < len(style.fields):
            if self.field == 0:
                self.first = self.text
            self.field += 1
            self.text = ""
            return i, GO
        raw, text = self.raw, self.text
        self.text = ""
        h = self.header(text)
        if h is None:
            self._fail(raw, out)
        else:
            self.st, self.raw, (self.id, self.name) = "Open", raw, h
            if style.id_field:
                self.id = self.field_id(self.first)
        return i, GO

    def on_open(self, s: str, i: int, out: Emitter) -> Next:
        """After the header: whitespace, then the arguments object, or the call's end (no
        arguments)."""
        w = ws_len(s, i)
        # (the header ends with its separator: the whitespace after it is the run)
        over = trailing_ws(self.raw) + w > WS_MAX
        self.raw += s[i : i + w]
        i += w
        if over:
            # Whitespace past the cap: malformed markup, as a header too long is.
            self._fail(self.raw, out)
            return i, GO
        if i == len(s):
            return i, HOLD
        if s[i] == "{":
            out.tool_start(self.id, self.name)
            self.st, self.sc = "Args", JsonScanner()
            return i, GO
        kind, a, b = expect(s, self.style.close, i)
        if kind == "marker" and a == CALL_END:
            # No arguments at all: an empty object.
            out.tool_start(self.id, self.name)
            out.args("{}")
            out.tool_end()
            self._to_section("", False)
            return i + b, GO
        if kind == "wait":
            return i, HOLD
        self._fail(self.raw, out)
        return i, GO

    def on_close(self, s: str, i: int, out: Emitter) -> Next:
        """After the arguments: whitespace, the fence, then the call's end (or the next call's
        start, or the section's end)."""
        kind, which, i = markup_after_call(self.ws, s, i, self.style.close, out)
        if kind == "wait":
            return i, HOLD
        if kind != "marker":
            self.st = "Fallback"
        elif which == CALL_END:
            self._to_section("", False)
        elif which == CALL_START:
            self._to_header("".join(self.ws))
        elif which == FENCE and self.style.fence:
            # (the fence stays in the held text)
            if self.fence:
                self._fail("".join(self.ws), out)  # a second fence
            else:
                self.fence = True
        else:  # the section's end
            self.st = "Text"
        return i, GO

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
