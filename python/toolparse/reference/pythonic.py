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

from .between import text_until
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


class Pythonic:
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
            return self._fail(i + ws, out), False
        return i + ws, True

    def _open(self, opener: str) -> None:
        self.raw = [opener]
        self.started = False
        self.ws = 0
        self.marked = opener == self.style.start
        if self.marked and self.style.list:
            self.st = "Open"
        else:
            self.st, self.first = "Call", True

    def _fail(self, at: int, out: Emitter) -> int:
        """The markup is not calls at ``at``; returns where to go on."""
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
        return at

    def _start_call(self, out: Emitter) -> None:
        out.tool_start(None, "".join(self.buf))
        self.started = True
        self.raw = []
        self.keys = set()
        self.st = "Key"

    def _key(self, out: Emitter) -> bool:
        """``key=`` is complete: False if the keyword is repeated."""
        key = "".join(self.buf)
        if key in self.keys:
            return False
        out.args('{"' if not self.keys else ', "')
        out.args(key)
        out.args('": ')
        self.keys.add(key)
        self.st, self.lit = "Value", PyLiteral()
        return True

    def _close_call(self, out: Emitter) -> None:
        out.args("}" if self.keys else "{}")
        out.tool_end()
        self.st, self.newline = "AfterCall", False

    def _close_list(self) -> None:
        self.raw = []
        self.started = False
        self.marked = False

    def _after_list(self) -> None:
        self._close_list()
        if self.style.end is not None:
            self.st, self.buf = "AfterList", []
        else:
            self.st = "Text"

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

    def feed(self, s: str, out: Emitter) -> int:
        style = self.style
        i = 0
        n = len(s)
        while i < n:
            st = self.st
            if st == "Text":
                which, i = text_until(style.triggers, s, i, out)
                if which == -1:
                    return i
                self._open(style.triggers.list[which])
            elif st == "Open":
                i, ok = self._skip_space(s, i, out)
                if not ok or i == n:
                    continue
                if s[i] == "[":
                    self._keep("[")
                    i += 1
                    self.st, self.first = "Call", True
                else:
                    i = self._fail(i, out)
            elif st == "Call":
                i, ok = self._skip_space(s, i, out)
                if not ok or i == n:
                    continue
                c = s[i]
                if c in _IDENT_START:
                    self.st, self.buf, self.buflen = "Name", [], 0
                elif c == "]" and not self.first and style.list:
                    # "[f(),]"
                    i += 1
                    self._after_list()
                else:
                    i = self._fail(i, out)
            elif st == "Name":
                # after a dot, an identifier must follow (a.b, not a., a..b, a.1)
                if self.buf and self.buf[-1] == "." and s[i] not in _IDENT_START:
                    i = self._fail(i, out)
                    continue
                # (At most one character past the cap is read: then it is malformed.)
                k = _IDENT.match(s, i).end()  # type: ignore[union-attr]
                k = min(k, i + NAME_MAX + 1 - self.buflen)
                if k > i:
                    self.buf.append(s[i:k])
                self.buflen += k - i
                self._keep(s[i:k])
                i = k
                if self.buflen > NAME_MAX:
                    i = self._fail(i, out)
                    continue
                if i == n:
                    break
                c = s[i]
                if c == ".":
                    # a dotted name: grocery.orderIngredients(...)
                    self.buf.append(".")
                    self.buflen += 1
                    self._keep(".")
                    i += 1
                elif c == "(":
                    i += 1
                    self._start_call(out)
                elif c in _WS:
                    self.st = "Paren"
                else:
                    i = self._fail(i, out)
            elif st == "Paren":
                i, ok = self._skip_space(s, i, out)
                if not ok or i == n:
                    continue
                if s[i] == "(":
                    i += 1
                    self._start_call(out)
                else:
                    i = self._fail(i, out)
            elif st == "Key":
                i, ok = self._skip_space(s, i, out)
                if not ok or i == n:
                    continue
                c = s[i]
                if c in _IDENT_START:
                    self.st, self.buf, self.buflen = "KeyName", [], 0
                elif c == ")":
                    i += 1
                    self._close_call(out)
                else:
                    i = self._fail(i, out)
            elif st == "KeyName":
                k = _IDENT.match(s, i).end()  # type: ignore[union-attr]
                k = min(k, i + NAME_MAX + 1 - self.buflen)
                self.buf.append(s[i:k])
                self.buflen += k - i
                i = k
                if self.buflen > NAME_MAX:
                    i = self._fail(i, out)
                    continue
                if i == n:
                    break
                c = s[i]
                if c == "=":
                    if self._key(out):
                        i += 1
                    else:
                        i = self._fail(i, out)
                elif c in _WS:
                    self.st = "Eq"
                else:
                    i = self._fail(i, out)
            elif st == "Eq":
                i, ok = self._skip_space(s, i, out)
                if not ok or i == n:
                    continue
                if s[i] == "=":
                    if self._key(out):
                        i += 1
                    else:
                        i = self._fail(i, out)
                else:
                    i = self._fail(i, out)
            elif st == "Value":
                r, k = self._literal(s, i, out)
                if r == MORE:
                    return n
                if r == DONE:
                    # the converter stops at the first character after the value
                    c = s[k]
                    if c == ",":
                        i = k + 1
                        self.st = "Key"
                    elif c == ")":
                        i = k + 1
                        self._close_call(out)
                    else:
                        i = self._fail(k, out)
                else:
                    i = self._fail(k, out)
            elif st == "AfterCall":
                j, ok = self._skip_space(s, i, out)
                if not ok:
                    i = j
                    continue
                if "\n" in s[i:j] or "\r" in s[i:j]:
                    self.newline = True
                i = j
                if i == n:
                    break
                c = s[i]
                if style.list:
                    if c == ",":
                        i += 1
                        self.st, self.first = "Call", False
                    elif c == "]":
                        i += 1
                        self._after_list()
                    else:
                        i = self._fail(i, out)
                    continue
                end = style.end
                if end is not None:
                    which = end.starts(s, i)
                    if which != -1:
                        i += len(end.list[which])
                        self._close_list()
                        self.st = "Text"
                        continue
                    if end.could_start(s[i : i + len(end.list[0])]):
                        return i
                if self.newline and c in _IDENT_START:
                    self.st, self.buf, self.buflen = "Name", [], 0
                else:
                    i = self._fail(i, out)
            elif st == "AfterList":
                ws, over = self._space(s, i)
                self.buf.append(s[i : i + ws])
                i += ws
                end = style.end
                assert end is not None
                if over:
                    # whitespace past the cap: it is text
                    out.content("".join(self.buf))
                    self.st = "Text"
                    continue
                if i == n:
                    break
                which = end.starts(s, i)
                if which != -1:
                    i += len(end.list[which])
                    self.st = "Text"
                elif end.could_start(s[i : i + len(end.list[0])]):
                    return i
                else:
                    # no end marker: the whitespace is text (content rules apply)
                    out.content("".join(self.buf))
                    self.st = "Text"
            else:  # Fallback: the driver makes the rest content
                return i
        return n

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
