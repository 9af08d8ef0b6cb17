"""Tool calls written as Python calls with keyword arguments (twin of
``rust/formats/pythonic.rs``): ``[f(a=1, b='x'), g()]`` (``pythonic``), optionally between
``<|python_start|>`` and ``<|python_end|>`` (``llama4_pythonic``). One machine configured by a
``Style``; lfm2 (a list between required markers) and olmo3 (newline-separated calls between
required markers) are styles of it too.

Each argument value is a Python literal converted to JSON text by ``PyLiteral`` as it arrives; the
arguments object is written like ``json.dumps(dict, ensure_ascii=False)``. The decisions (a ``[``
anywhere in text starts a tentative list, ASCII names (dotted too), keyword arguments only, a
repeated keyword is malformed, a call with a value that has no JSON form dropped
while the list goes on, ...) are listed in the Rust module's docs.

The twin works on offsets into the text it is given (the converter gets doubling windows of it),
so a long delta with many calls or lists stays linear.
"""

from __future__ import annotations

import re
from typing import List, Optional, Sequence, Set, Tuple

from .between import GO, HOLD, Machine, Next, text_until
from .convert import PyLiteral
from .event import Emitter
from .json import DONE, MORE
from .scan import NAME_MAX, WS_MAX, Markers, ws_len

_IDENT = re.compile(r"[A-Za-z0-9_]*")
_IDENT_START = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ_")
_WS = frozenset(" \t\n\r")

# First window of text handed to the converter (which takes no start offset); it doubles while
# the value goes on.
_WINDOW = 256


class Style:
    """How one format writes its calls (see ``rust/formats/pythonic.rs``)."""

    def __init__(
        self, triggers: Sequence[str], start: Optional[str], end: Optional[str], list: bool
    ) -> None:
        self.triggers = Markers(triggers)  # the start marker and/or "["
        self.start = start  # the start marker, if the format has one
        self.end = Markers([end]) if end is not None else None  # the end marker, optional
        self.list = list  # "[f(), g()]", else calls separated by newlines


class Pythonic(Machine):
    def __init__(self, style: Style) -> None:
        self.style = style
        # Text | Open | Call | Name | Paren | Key | KeyName | Eq | Value | AfterCall | AfterList
        # | Fallback
        self.st = "Text"
        self.first = False  # Call: before the first call of the list
        # Name, Paren: the name; KeyName, Eq: the keyword; AfterList: whitespace (a list of parts)
        self.buf: List[str] = []
        self.buflen = 0  # Name, KeyName: the characters in buf
        self.lit: Optional[PyLiteral] = None  # Value
        self.newline = False  # AfterCall: a newline was read
        # the text of the current list read before its first call started (opener included)
        self.raw: list = []
        self.started = False  # a call of the current list has started
        self.marked = False  # the current list began with the start marker
        self.keys: Set[str] = set()  # keywords of the open call
        self.ws = 0  # the whitespace run being read between tokens (capped by WS_MAX)

    def _space(self, s: str, i: int) -> Tuple[int, bool]:
        """The whitespace at ``s[i:]``, a run between tokens: (its length, False), or (k, True)
        when the run passes ``WS_MAX`` at ``s[i + k]``."""
        w = ws_len(s, i)
        room = WS_MAX - self.ws
        if w > room:
            return room, True
        # the run ends here when something else follows
        self.ws = 0 if i + w < len(s) else self.ws + w
        return w, False

    def _keep(self, s: str) -> None:
        if not self.started and s:
            self.raw.append(s)

    def _skip_space(self, s: str, i: int, out: Emitter) -> Tuple[int, bool]:
        """Reads the whitespace run at ``s[i:]`` (kept while no call has started): (past it,
        True), or past the cap (where to go on, False): the markup failed there."""
        ws, over = self._space(s, i)
        self._keep(s[i : i + ws])
        if over:
            return self._fail(i + ws, out)[0], False
        return i + ws, True

    def _token(self, s: str, i: int, out: Emitter) -> Tuple[int, str]:
        """The token after the whitespace between tokens at ``s[i:]``: ``(j, c)``, character
        ``c`` at ``j``; ``(j, "")``: go on from ``j``, the input ended in the whitespace (the
        state stays) or the run passed the cap (the markup failed)."""
        j, ok = self._skip_space(s, i, out)
        return j, s[j] if ok and j < len(s) else ""

    def _ident(self, s: str, i: int, out: Emitter) -> Tuple[int, str]:
        """Reads the identifier at ``s[i:]`` into ``buf`` (at most one character past the cap is
        read: then the markup fails there): ``(j, c)``, character ``c`` follows at ``j``;
        ``(j, "")``: go on from ``j``, the input ended in the identifier or it was too long."""
        k = _IDENT.match(s, i).end()  # type: ignore[union-attr]
        k = min(k, i + NAME_MAX + 1 - self.buflen)
        if k > i:
            self.buf.append(s[i:k])
        self.buflen += k - i
        self._keep(s[i:k])
        if self.buflen > NAME_MAX:
            return self._fail(k, out)[0], ""
        return k, s[k] if k < len(s) else ""

    def _open(self, opener: str) -> None:
        self.raw = [opener]
        self.started = False
        self.ws = 0
        self.marked = opener == self.style.start
        if self.marked and self.style.list:
            self.st = "Open"
        else:
            self.st, self.first = "Call", True

    def _fail(self, at: int, out: Emitter) -> Next:
        """The markup is not calls at ``at``: where to go on is ``at``."""
        if self.started:
            out.malformed = True
            self.st = "Fallback"
        else:
            out.content("".join(self.raw))
            self.raw = []
            if self.marked:
                out.malformed = True
                self.st = "Fallback"
            else:
                # not a call list after all: the offending character is text again
                self.st = "Text"
        return at, GO

    def _read(self, st: str, at: int) -> Next:
        """A name or a keyword starts at ``at`` (state ``Name`` or ``KeyName``)."""
        self.st, self.buf, self.buflen = st, [], 0
        return at, GO

    def _start_call(self, at: int, out: Emitter) -> Next:
        """The call named in ``buf`` opens; its arguments start at ``at``."""
        out.tool_start(None, "".join(self.buf))
        self.started = True
        self.raw = []
        self.keys = set()
        self.st = "Key"
        return at, GO

    def _key(self, at: int, out: Emitter) -> Next:
        """``key=`` is complete, the keyword in ``buf``, its ``=`` at ``at``: a repeated keyword
        fails there."""
        key = "".join(self.buf)
        if key in self.keys:
            return self._fail(at, out)
        out.args('{"' if not self.keys else ', "')
        out.args(key)
        out.args('": ')
        self.keys.add(key)
        self.st, self.lit = "Value", PyLiteral()
        return at + 1, GO

    def _close_call(self, at: int, out: Emitter) -> Next:
        """The call's ``)`` ends at ``at``."""
        out.args("}" if self.keys else "{}")
        out.tool_end()
        self.st, self.newline = "AfterCall", False
        return at, GO

    def _close_list(self) -> None:
        self.raw = []
        self.started = False
        self.marked = False

    def _after_list(self, at: int) -> Next:
        """The list's ``]`` ends at ``at``."""
        self._close_list()
        if self.style.end is not None:
            self.st, self.buf = "AfterList", []
        else:
            self.st = "Text"
        return at, GO

    def _literal(self, s: str, i: int, out: Emitter) -> Tuple[str, int]:
        """Feeds ``s[i:]`` to the converter in doubling windows; the step with an offset into s."""
        lit = self.lit
        assert lit is not None
        n = len(s)
        w = _WINDOW
        while True:
            end = min(n, i + w)
            frags: list = []
            r, k = lit.feed(s[i:end], frags)
            out.args("".join(frags))
            if lit.no_json:
                # valid, with no JSON form: the call is dropped, the list goes on
                out.drop_call()
            if r != MORE:
                return (r, i + k)
            if end == n:
                return (MORE, n)
            i = end
            w *= 2

    def _after_list_text(self, at: int, out: Emitter) -> Next:
        """The whitespace after a list is text; other text follows at ``at``."""
        out.content("".join(self.buf))
        self.st = "Text"
        return at, GO

    def on_text(self, s: str, i: int, out: Emitter) -> Next:
        """Plain text up to a trigger, which opens a list."""
        which, i = text_until(self.style.triggers, s, i, out)
        if which == -1:
            return i, HOLD
        self._open(self.style.triggers.list[which])
        return i, GO

    def on_name(self, s: str, i: int, out: Emitter) -> Next:
        """Reading a call's name: it may be dotted (``grocery.orderIngredients(...)``, the name
        keeps its dots); ``(`` or whitespace ends it."""
        # after a dot, an identifier must follow (a.b, not a., a..b, a.1)
        if self.buf and self.buf[-1] == "." and s[i] not in _IDENT_START:
            return self._fail(i, out)
        j, c = self._ident(s, i, out)
        if c == ".":
            self.buf.append(".")
            self.buflen += 1
            self._keep(".")
            return j + 1, GO
        if c == "(":
            return self._start_call(j + 1, out)
        if c in _WS:
            self.st = "Paren"
        elif c:
            return self._fail(j, out)
        return j, GO

    def on_value(self, s: str, i: int, out: Emitter) -> Next:
        """Reading a keyword's value: the converter reads it and stops at the first character
        after it, ``,`` or ``)``."""
        r, k = self._literal(s, i, out)
        if r == MORE:
            return len(s), HOLD
        if r != DONE:
            return self._fail(k, out)
        c = s[k]
        if c == ",":
            self.st = "Key"
            return k + 1, GO
        if c == ")":
            return self._close_call(k + 1, out)
        return self._fail(k, out)

    def on_after_call(self, newline: bool, s: str, i: int, out: Emitter) -> Next:
        """After a call's ``)``: list style, ``,`` and the next call or ``]``; newline style, the
        end marker, or a newline and the next call."""
        style = self.style
        j, ok = self._skip_space(s, i, out)
        if not ok:
            return j, GO
        newline = newline or "\n" in s[i:j] or "\r" in s[i:j]
        self.newline = newline
        if j == len(s):
            return j, GO
        c = s[j]
        if style.list:
            if c == ",":
                self.st, self.first = "Call", False
                return j + 1, GO
            if c == "]":
                return self._after_list(j + 1)
            return self._fail(j, out)
        end = style.end
        if end is not None:
            which = end.starts(s, j)
            if which != -1:
                self._close_list()
                self.st = "Text"
                return j + len(end.list[which]), GO
            if end.could_start(s[j : j + len(end.list[0])]):
                return j, HOLD
        if newline and c in _IDENT_START:
            return self._read("Name", j)
        return self._fail(j, out)

    def on_after_list(self, s: str, i: int, out: Emitter) -> Next:
        """After the list's ``]``: whitespace, then the end marker (markup) or other text (the
        whitespace is text)."""
        ws, over = self._space(s, i)
        self.buf.append(s[i : i + ws])
        j = i + ws
        end = self.style.end
        if end is None or over:
            # no end marker, or whitespace past the cap: the whitespace is text
            return self._after_list_text(j, out)
        if j == len(s):
            return j, GO
        which = end.starts(s, j)
        if which != -1:
            self.st = "Text"
            return j + len(end.list[which]), GO
        if end.could_start(s[j : j + len(end.list[0])]):
            return j, HOLD
        # no end marker: the whitespace is text (content rules apply)
        return self._after_list_text(j, out)

    def step(self, s: str, i: int, out: Emitter) -> Next:
        st, c = self.st, ""
        if st == "Text":
            return self.on_text(s, i, out)
        elif st == "Open":
            i, c = self._token(s, i, out)
            if c == "[":
                self._keep("[")
                self.st, self.first = "Call", True
                return i + 1, GO
        elif st == "Call":
            i, c = self._token(s, i, out)
            if c == "]" and not self.first and self.style.list:
                return self._after_list(i + 1)  # "[f(),]"
            if c in _IDENT_START:
                return self._read("Name", i)
        elif st == "Name":
            return self.on_name(s, i, out)
        elif st == "Paren":
            i, c = self._token(s, i, out)
            if c == "(":
                return self._start_call(i + 1, out)
        elif st == "Key":
            i, c = self._token(s, i, out)
            if c in _IDENT_START:
                return self._read("KeyName", i)
            if c == ")":
                return self._close_call(i + 1, out)
        elif st == "KeyName":
            i, c = self._ident(s, i, out)
            if c in _WS:
                self.st = "Eq"
                return i, GO
            if c == "=":
                return self._key(i, out)
        elif st == "Eq":
            i, c = self._token(s, i, out)
            if c == "=":
                return self._key(i, out)
        elif st == "Value":
            return self.on_value(s, i, out)
        elif st == "AfterCall":
            return self.on_after_call(self.newline, s, i, out)
        elif st == "AfterList":
            return self.on_after_list(s, i, out)
        else:  # Fallback: the driver makes the rest content
            return i, HOLD
        # a token the state does not take is malformed markup; none: the input ended in
        # whitespace or a name (the state stays), or the markup already failed
        return self._fail(i, out) if c else (i, GO)

    def finish(self, rest: str, out: Emitter) -> None:
        st = self.st
        self.st = "Fallback"
        if st in ("Text", "Fallback"):
            out.content(rest)
        elif st == "AfterList" or (st == "AfterCall" and not self.style.list):
            # whitespace and a truncated end marker after complete calls are markup
            pass
        elif not self.started:
            # a list cut short before its first call started: after the start marker it is an
            # unfinished call; a bare list may have been text
            self.raw.append(rest)
            raw = "".join(self.raw)
            self.raw = []
            if self.marked:
                out.truncate(raw)
            else:
                out.content(raw)
        else:
            # cut off inside the calls
            out.truncate(rest)
