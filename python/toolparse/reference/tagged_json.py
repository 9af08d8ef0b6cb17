"""JSON tool calls after a start marker (twin of ``rust/formats/tagged_json.rs``): ``START {call}
END`` (hermes, granite4, longcat, internlm, gigachat3) or ``START [{call}, ...] END`` (jamba,
hunyuan_a13b, granite, phi4_mini_json, cohere_command3/4; ``{NAME: {...}}`` calls in apertus),
configured by :class:`Tags` from the spec entry (see the Rust module for the rules). With
``forms`` (mistral) the start marker may also be followed by ``NAME{...}``, ``NAME[ARGS]{...}`` or
``NAME[CALL_ID]ID[ARGS]{...}``, and calls have no end marker. With ``newline`` (``calls``
"newline") a section holds call objects one per line: ``START {call}\n{call}\n END``."""

from __future__ import annotations

import re
from typing import Optional, Sequence, Tuple

from .between import GO, HOLD, Held, Machine, Next, after_call, stream_args, text_until
from .event import Emitter
from .json import CallKeys, Calls, JsonScanner
from .region import Region
from .scan import NAME_MAX, WS_MAX, Markers, expect, ws_len

# The longest call id accepted in the name form, in characters.
ID_MAX = 64
# In ``after_name``: the call-id marker.
CALL_ID = 1

_NAME = re.compile(r"[A-Za-z0-9_.\-]*")
_ID = re.compile(r"[A-Za-z0-9]*")


def is_name_char(c: str) -> bool:
    return c.isascii() and (c.isalnum() or c in "_-.")


def args_open(s: str, at: int, args: Markers) -> Optional[Tuple[int, bool]]:
    """Where the arguments open after a name or an id (``s[at:]``: the text that follows it):
    None to wait for more text, else the characters up to ``{`` and whether ``{`` is there.
    Whitespace past ``WS_MAX`` (before or after the separator) is not: it ends right after the
    first character over the cap."""
    if ws_len(s, at) > WS_MAX:
        return WS_MAX + 1, False
    kind, a, b = expect(s, args, at)
    if kind == "marker":
        w = ws_len(s, at + b)
        if w > WS_MAX:
            return b + WS_MAX + 1, False
        if at + b + w == len(s):
            return None  # hold the separator and what follows until `{` is seen
        return b + w, s.startswith("{", at + b + w)
    if kind == "wait":
        return None
    return a, s.startswith("{", at + a)


class Tags:
    """How one tagged-JSON format writes its calls: the end markers then the start markers, how
    many are end markers, array or object body, the call keys, and whether a start marker not
    followed by calls is text."""

    def __init__(
        self,
        markers: Sequence[str],
        ends: int,
        array: bool,
        keys: CallKeys,
        tentative: bool = False,
        wrappers: Sequence[str] = (),
        forms: bool = False,
        args: Sequence[str] = (),
        call_id: Sequence[str] = (),
        newline: bool = False,
    ) -> None:
        self.markers = Markers(markers)
        self.ends = ends
        self.array = array
        self.keys = keys
        # a start marker not followed by calls is text (else malformed markup)
        self.tentative = tentative
        # what plain text is scanned for: the start markers, then the content's wrapper markers
        # (dropped)
        self.text = Markers(list(markers[ends:]) + list(wrappers))
        # a start marker may be followed by a list, an object or a name and its arguments (then
        # calls have no end marker); the name form's optional separator before the arguments, and
        # what may follow a name: the separator, then the call-id marker
        self.forms = forms
        self.args = Markers(args)
        self.after_name = Markers([*args, *call_id])
        # what is read after a body: the markers, then (``calls`` "newline": a section of call
        # objects one per line, no marker of their own) ``{``, another call object
        self.after = Markers([*markers, "{"]) if newline else self.markers


class TaggedJson(Machine):
    def __init__(self, tags: Tags) -> None:
        self.tags = tags
        self.st = "Text"  # Text | Form | Body | Name | Id | Args | After | Fallback
        self.ws = Held()  # After: whitespace read after the body
        self.region: Region | None = None
        self.raw = ""  # Form / Name / Id: the markup read so far
        self.name = ""  # Name, Id
        self.id = ""  # Id: the id the model gave the call
        self.sc: Optional[JsonScanner] = None  # Args
        self.n_ws = 0  # Form, Id: the whitespace read so far (capped by WS_MAX)

    def _skip(self, m: str) -> int:
        """How much of start marker ``m`` the body does not read itself (its own ``[`` it does)."""
        return 0 if self.tags.array and m == "[" else len(m)

    def _body(self, opener: str) -> None:
        keys = self.tags.keys
        calls = Calls.array_of(keys) if self.tags.array else Calls.object(keys, False)
        self.st, self.region = "Body", Region(calls, opener, self.tags.tentative)

    def _opened(self, m: str, i: int) -> Next:
        """After start marker ``m`` (``i`` is past it): what follows (its body, or with
        ``forms`` the choice of the call's form), from where."""
        if self.tags.forms:
            self.st, self.raw, self.n_ws = "Form", m, 0
            return i, GO
        k = self._skip(m)
        self._body(m[:k])
        return i - len(m) + k, GO

    def _fail(self, raw: str, out: Emitter) -> None:
        out.malformed = True
        out.content(raw)
        self.st = "Fallback"

    def _start_call(
        self, skipped: str, call: Optional[Tuple[Optional[str], str]], out: Emitter
    ) -> None:
        """The name form's arguments after a name or an id, ``skipped`` the text read before
        them: with ``call`` (the id and the name) the call starts and its arguments follow;
        without it (no ``{``, an empty name or id) the markup read is malformed."""
        if call is None:
            self.raw += skipped
            self._fail(self.raw, out)
            return
        self.name = self.id = ""
        out.tool_start(*call)
        self.st, self.sc = "Args", JsonScanner()

    def step(self, s: str, i: int, out: Emitter) -> Next:
        st = self.st
        if st == "Body":
            region = self.region
            r, k = region.feed(s, out, i)  # type: ignore[union-attr]
            if r == "more":
                return len(s), HOLD
            if r == "done":
                # A tentative body that held no call went back to content; after the forms'
                # calls (no end marker) what follows is text.
                call = region.is_call()  # type: ignore[union-attr]
                self.st = "After" if call and not self.tags.forms else "Text"
                self.ws = Held()
            else:
                # A tentative body that failed before a call started is text: scanning goes on
                # from the offending character.
                self.st = "Fallback" if out.malformed else "Text"
            return i + k, GO
        if st == "Text":
            return self.on_text(s, i, out)
        if st == "Fallback":
            return i, HOLD  # the driver makes the rest content
        if st == "After":
            kind, which, i = after_call(self.ws, s, i, self.tags.after, out)
            if kind == "marker" and which == len(self.tags.markers.list):
                # (newline sections) another call object: its ``{`` is read again, by the body
                self._body("")
                return i - 1, GO
            if kind == "marker" and which >= self.tags.ends:
                # Another call with the previous one's end marker missing.
                return self._opened(self.tags.markers.list[which], i)
            if kind == "wait":
                return i, HOLD
            # The end marker; or none (or whitespace past the cap): the whitespace starts the
            # text, and so does what follows.
            self.st = "Text"
            return i, GO
        if st == "Form":
            return self.on_form(s, i, out)
        if st == "Name":
            return self.on_name(s, i, out)
        if st == "Id":
            return self.on_id(s, i, out)
        # Args
        how, k = stream_args(self.sc, s, i, out)  # type: ignore[arg-type]
        if how != "open":
            self.st = "Text" if how == "ended" else "Fallback"
            return i + k, GO
        return len(s), HOLD

    def on_text(self, s: str, i: int, out: Emitter) -> Next:
        """Plain text up to a start marker; the content's wrappers in it are markup, dropped."""
        which, i = text_until(self.tags.text, s, i, out)
        if which == -1:
            return i, HOLD
        # (a wrapper of the content is markup, dropped)
        if which >= len(self.tags.markers.list) - self.tags.ends:
            return i, GO
        return self._opened(self.tags.text.list[which], i)

    def on_form(self, s: str, i: int, out: Emitter) -> Next:
        """``forms``: after the start marker and whitespace, the first character decides the
        call's form."""
        # (At most one character past the cap is read: then it is malformed.)
        ws = min(ws_len(s, i), WS_MAX + 1 - self.n_ws)
        self.raw += s[i : i + ws]
        i += ws
        self.n_ws += ws
        if self.n_ws > WS_MAX:
            c = " "
        elif i == len(s):
            return i, HOLD
        else:
            c = s[i]
        raw, self.raw = self.raw, ""
        keys = self.tags.keys
        if c == "[":
            self.st, self.region = "Body", Region(Calls.array_of(keys), raw, False)
        elif c == "{":
            self.st, self.region = "Body", Region(Calls.object(keys, False), raw, False)
        elif is_name_char(c):
            self.st, self.raw, self.name = "Name", raw, ""
        else:
            self._fail(raw, out)
        return i, GO

    def on_name(self, s: str, i: int, out: Emitter) -> Next:
        """The name form: the function's name, then the arguments (or the call-id marker)."""
        # (At most one character past the cap is read: then it is malformed.)
        k = _NAME.match(s, i).end() - i  # type: ignore[union-attr]
        k = min(k, NAME_MAX + 1 - len(self.name))
        self.name += s[i : i + k]
        self.raw += s[i : i + k]
        i += k
        if len(self.name) > NAME_MAX:
            self._fail(self.raw, out)
            return i, GO
        if i == len(s):
            return i, HOLD
        # Between the name and the arguments: whitespace and the optional separator, or the
        # call-id marker and the id (whitespace past the cap: see `args_open`).
        if ws_len(s, i) <= WS_MAX:
            kind, a, b = expect(s, self.tags.after_name, i)
            if kind == "marker" and a == CALL_ID and self.name:
                self.raw += s[i : i + b]
                self.st, self.id, self.n_ws = "Id", "", 0
                return i + b, GO
            if kind == "wait":
                return i, HOLD
        o = args_open(s, i, self.tags.args)
        if o is None:
            return i, HOLD
        skip, opened = o
        call = (None, self.name) if opened and self.name else None
        self._start_call(s[i : i + skip], call, out)
        return i + skip, GO

    def on_id(self, s: str, i: int, out: Emitter) -> Next:
        """The name form: the call's id after its marker, then the arguments."""
        if not self.id:
            w = min(ws_len(s, i), WS_MAX + 1 - self.n_ws)
            self.raw += s[i : i + w]
            i += w
            self.n_ws += w
            if self.n_ws > WS_MAX:
                self._fail(self.raw, out)
                return i, GO
        # (At most one character past the cap is read: then it is malformed.)
        k = min(_ID.match(s, i).end() - i, ID_MAX + 1 - len(self.id))  # type: ignore[union-attr]
        self.id += s[i : i + k]
        self.raw += s[i : i + k]
        i += k
        if len(self.id) <= ID_MAX and i == len(s):
            return i, HOLD
        # Between the id and the arguments: whitespace and the optional separator.
        if len(self.id) > ID_MAX:
            skip, opened = 0, False
        else:
            o = args_open(s, i, self.tags.args)
            if o is None:
                return i, HOLD
            skip, opened = o
        call = (self.id, self.name) if opened and self.id else None
        self._start_call(s[i : i + skip], call, out)
        return i + skip, GO

    def finish(self, rest: str, out: Emitter) -> None:
        if self.st in ("Text", "Fallback"):
            out.content(rest)
        elif self.st == "Body":
            self.region.finish(rest, out)  # type: ignore[union-attr]
        elif self.st in ("Form", "Name", "Id"):
            # Cut off before the arguments (in the name or the id): the call's markup so far.
            out.truncate(self.raw + rest)
        elif self.st == "Args":
            out.truncate("")
        # After: a truncated end marker; the call is complete, the rest is its markup.
