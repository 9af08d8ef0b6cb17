"""Resumable JSON (twin of ``rust/json.rs``): a validating scanner that keeps its stack between
deltas, a string decoder, and the reader of ``{"name": ..., "arguments": ...}`` call objects.

Results of ``feed`` are ``(MORE, 0)``, ``(DONE, n)`` (the value ended after ``n`` characters of
this input) or ``(ERROR, n)`` (invalid at character ``n``). Nothing recurses.
"""

from __future__ import annotations

import re
from typing import List, Optional, Sequence, Tuple

from .event import Emitter
from .scan import NAME_MAX, WS, WS_MAX, ws_len

MORE, DONE, ERROR = "more", "done", "error"
Step = Tuple[str, int]

_PLAIN = re.compile(r'[^"\\\x00-\x1f]*')
_HEX = "0123456789abcdefABCDEF"

# number states: the next state on a character class, and which states are complete
_NUM_NEXT = {
    ("Minus", "0"): "Zero",
    ("Minus", "d"): "Int",
    ("Int", "0"): "Int",
    ("Int", "d"): "Int",
    ("Zero", "."): "Dot",
    ("Int", "."): "Dot",
    ("Dot", "0"): "Frac",
    ("Dot", "d"): "Frac",
    ("Frac", "0"): "Frac",
    ("Frac", "d"): "Frac",
    ("Zero", "e"): "Exp",
    ("Int", "e"): "Exp",
    ("Frac", "e"): "Exp",
    ("Exp", "+"): "ExpSign",
    ("Exp", "0"): "ExpDigits",
    ("Exp", "d"): "ExpDigits",
    ("ExpSign", "0"): "ExpDigits",
    ("ExpSign", "d"): "ExpDigits",
    ("ExpDigits", "0"): "ExpDigits",
    ("ExpDigits", "d"): "ExpDigits",
}
_NUM_COMPLETE = {"Zero", "Int", "Frac", "ExpDigits"}
_NUM_CLASS = {c: "d" for c in "123456789"}
_NUM_CLASS.update({"0": "0", ".": ".", "e": "e", "E": "e", "+": "+", "-": "+"})
_LITERALS = {"t": "true", "f": "false", "n": "null"}


class JsonScanner:
    """Validates one JSON value fed in pieces; stops right after it."""

    def __init__(self) -> None:
        self.stack: List[str] = []  # "Obj" | "Arr"
        self.st = "Value"
        self.key = False  # inside Str/Esc/Hex: is it an object key?
        self.left = 0  # Hex: digits still expected
        self.num = ""  # Number: its state
        self.word = ""  # Literal: the word
        self.at = 0  # Literal: next position in it

    def depth(self) -> int:
        return len(self.stack)

    def _after_value(self) -> str:
        return "CommaOrClose" if self.stack else "Done"

    def feed(self, s: str, start: int = 0) -> Step:
        """Feeds ``s[start:]``; offsets in the result are relative to ``start``."""
        n = len(s)
        i = start
        while i < n:
            st = self.st
            c = s[i]
            if st == "Str":
                i = _PLAIN.match(s, i).end()  # type: ignore[union-attr]
                if i == n:
                    return (MORE, 0)
                c = s[i]
                if c == '"':
                    self.st = "Colon" if self.key else self._after_value()
                elif c == "\\":
                    self.st = "Esc"
                else:
                    return (ERROR, i - start)
            elif st == "Esc":
                if c in '"\\/bfnrt':
                    self.st = "Str"
                elif c == "u":
                    self.st, self.left = "Hex", 4
                else:
                    return (ERROR, i - start)
            elif st == "Hex":
                if c not in _HEX:
                    return (ERROR, i - start)
                self.left -= 1
                if self.left == 0:
                    self.st = "Str"
            elif st == "Number":
                nxt = _NUM_NEXT.get((self.num, _NUM_CLASS.get(c, "")))
                if c == "-" and self.num != "Exp":
                    nxt = None
                if nxt is not None:
                    self.num = nxt
                elif self.num in _NUM_COMPLETE:
                    self.st = self._after_value()
                    if self.st == "Done":
                        return (DONE, i - start)
                    continue  # look at `c` again in the new state
                else:
                    return (ERROR, i - start)
            elif st == "Literal":
                if self.at >= len(self.word) or self.word[self.at] != c:
                    return (ERROR, i - start)
                self.at += 1
                if self.at == len(self.word):
                    self.st = self._after_value()
            elif st == "Value" or st == "ValueOrClose":
                if c not in WS:
                    if c == "]" and st == "ValueOrClose":
                        self.stack.pop()
                        self.st = self._after_value()
                    elif not self._start_value(c):
                        return (ERROR, i - start)
            elif st == "KeyOrClose" or st == "Key":
                if c in WS:
                    pass
                elif c == '"':
                    self.st, self.key = "Str", True
                elif c == "}" and st == "KeyOrClose":
                    self.stack.pop()
                    self.st = self._after_value()
                else:
                    return (ERROR, i - start)
            elif st == "Colon":
                if c == ":":
                    self.st = "Value"
                elif c not in WS:
                    return (ERROR, i - start)
            elif st == "CommaOrClose":
                top = self.stack[-1] if self.stack else ""
                if c in WS:
                    pass
                elif c == "," and top == "Obj":
                    self.st = "Key"
                elif c == "," and top == "Arr":
                    self.st = "Value"
                elif (c == "}" and top == "Obj") or (c == "]" and top == "Arr"):
                    self.stack.pop()
                    self.st = self._after_value()
                else:
                    return (ERROR, i - start)
            else:  # Done
                return (DONE, i - start)
            i += 1
            if self.st == "Done":
                return (DONE, i - start)
        return (MORE, 0)

    def _start_value(self, c: str) -> bool:
        if c == "{":
            self.stack.append("Obj")
            self.st = "KeyOrClose"
        elif c == "[":
            self.stack.append("Arr")
            self.st = "ValueOrClose"
        elif c == '"':
            self.st, self.key = "Str", False
        elif c == "-":
            self.st, self.num = "Number", "Minus"
        elif c == "0":
            self.st, self.num = "Number", "Zero"
        elif c in "123456789":
            self.st, self.num = "Number", "Int"
        elif c in _LITERALS:
            self.st, self.word, self.at = "Literal", _LITERALS[c], 1
        else:
            return False
        return True

    def finish(self) -> Step:
        if self.st == "Done":
            return (DONE, 0)
        if self.st == "Number" and self.num in _NUM_COMPLETE and not self.stack:
            self.st = "Done"
            return (DONE, 0)
        return (ERROR, 0)

    def is_done(self) -> bool:
        return self.st == "Done"


def is_json(s: str) -> bool:
    """Whether ``s`` is exactly one JSON value (surrounding whitespace allowed)."""
    sc = JsonScanner()
    r, n = sc.feed(s)
    if r == MORE:
        if sc.finish()[0] != DONE:
            return False
        n = len(s)
    elif r == ERROR:
        return False
    return not s[n:].lstrip(WS)


class StrDecoder:
    """Decodes the body of a JSON string (after its opening quote) piece by piece.
    A lone surrogate escape decodes to U+FFFD."""

    def __init__(self) -> None:
        self.st = "Chars"  # Chars | Esc | Hex
        self.left = 0
        self.code = 0
        self.high: Optional[int] = None

    def _flush_high(self, out: List[str]) -> None:
        if self.high is not None:
            self.high = None
            out.append("\ufffd")

    def feed(self, s: str, out: List[str], start: int = 0, end: Optional[int] = None) -> Step:
        """Decodes ``s[start:end]``; offsets in the result are relative to ``start``."""
        n = len(s) if end is None else end
        i = start
        while i < n:
            if self.st == "Chars":
                j = _PLAIN.match(s, i, n).end()  # type: ignore[union-attr]
                if j > i:
                    self._flush_high(out)
                    out.append(s[i:j])
                i = j
                if i == n:
                    return (MORE, 0)
                c = s[i]
                if c == '"':
                    self._flush_high(out)
                    return (DONE, i + 1 - start)
                if c != "\\":
                    return (ERROR, i - start)
                self.st = "Esc"
            elif self.st == "Esc":
                c = s[i]
                if c == "u":
                    self.st, self.left, self.code = "Hex", 4, 0
                    i += 1
                    continue
                ch = _ESCAPES.get(c)
                if ch is None:
                    return (ERROR, i - start)
                self._flush_high(out)
                out.append(ch)
                self.st = "Chars"
            else:  # Hex
                c = s[i]
                if c not in _HEX:
                    return (ERROR, i - start)
                self.code = self.code * 16 + int(c, 16)
                self.left -= 1
                if self.left == 0:
                    self.st = "Chars"
                    self._push_code(self.code, out)
            i += 1
        return (MORE, 0)

    def _push_code(self, code: int, out: List[str]) -> None:
        if 0xD800 <= code < 0xDC00:
            self._flush_high(out)
            self.high = code
        elif 0xDC00 <= code < 0xE000:
            if self.high is not None:
                h, self.high = self.high, None
                out.append(chr(0x10000 + ((h - 0xD800) << 10) + (code - 0xDC00)))
            else:
                out.append("\ufffd")
        else:
            self._flush_high(out)
            out.append(chr(code))


_ESCAPES = {'"': '"', "\\": "\\", "/": "/", "b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t"}


class CallKeys:
    """Keys that name the function and its arguments (a format's spec entry gives them: ``call``'s
    ``name_keys`` and ``args_keys``, and ``arguments``, which says whether the arguments may be a
    JSON string holding the object; when not, a string there is malformed)."""

    def __init__(
        self,
        name: Sequence[str],
        args: Sequence[str],
        strings: bool = True,
        by_name: bool = False,
        id: Sequence[str] = (),
    ) -> None:
        self.name = tuple(name)
        self.args = tuple(args)
        self.strings = strings
        # ``{NAME: {...}}`` (apertus): the one key is the function's name, its value the
        # arguments; a second key is malformed
        self.by_name = by_name
        # the keys that hold the call's own id (a JSON string; anything else there is skipped)
        self.id = tuple(id)

    def member(self, key: str) -> str:
        if key in self.name:
            return "Name"
        if key in self.args:
            return "Args"
        if key in self.id:
            return "Id"
        return "Other"


# the states that read whitespace between tokens (the run counted in ``ws``)
_BETWEEN_TOKENS = frozenset(("Open", "KeyOrClose", "Key", "CommaOrClose", "Colon", "Value"))
# the states that read a JSON string into ``buf``: a key, the name, the id
_STRINGS = frozenset(("KeyStr", "Name", "Id"))
# What one transition did (Rust's ``Flow``): ``(GO, j)``, the object goes on at ``j``; else the
# feed ends with that step (its offset absolute: ``feed`` makes it relative).
GO = "go"
Flow = Step


def is_blank(name: str) -> bool:
    """Whether a function name is blank (empty or whitespace only, as ``str.strip`` sees it): a
    blank name is malformed markup, not a call (the ``ToolCall`` model refuses it)."""
    return not name.strip()


CALL_KEYS = CallKeys(["name"], ["arguments", "parameters"])


def _feed_name(obj: CallObject, s: str, i: int) -> Step:
    """Feeds a key or a name (a JSON string body) from ``s[i:]``; ``obj.read`` counts its
    characters as written. Past ``NAME_MAX`` of them without the closing quote it is an error,
    right after the first character over the cap, wherever the text was split."""
    end = min(len(s), i + NAME_MAX + 1 - obj.read)
    r, k = obj.dec.feed(s, obj.buf, i, end)  # type: ignore[union-attr]
    if r == MORE:
        obj.read += end - i
        if obj.read > NAME_MAX:
            return (ERROR, end - i)
    return (r, k)


class CallObject:
    """Reads one ``{"name": N, "arguments": {...}}`` object (keys in any order, other keys
    skipped) and emits the call: its start as soon as the name is read (see ``_name_starts``;
    otherwise once the name is known and the arguments begin), the arguments as they arrive, its
    end when the object closes. Arguments seen before the name are held until the name arrives.
    Keys and the name are capped at ``NAME_MAX`` characters as written, a whitespace run between
    tokens at ``WS_MAX`` (see ``rust/json.rs``)."""

    def __init__(self, keys: CallKeys, require_args: bool) -> None:
        self.st = "Open"
        self.keys = keys
        self.require_args = require_args
        self.name: Optional[str] = None
        # the call's own id, when the object gave one before the call started
        self.id: Optional[str] = None
        self.seen_args = False
        self.held_args: List[str] = []
        self._started = False
        self.is_call = False
        # data of the current state
        self.member = ""  # Colon / Value: which member
        self.dec: Optional[StrDecoder] = None  # KeyStr / Name / ArgsStr
        self.buf: List[str] = []  # KeyStr / Name: decoded so far
        self.sc: Optional[JsonScanner] = None  # ArgsRaw / ArgsStr / Skip
        self.opened = False  # ArgsStr: has the decoded object begun?
        self.ws = 0  # the whitespace run being read between tokens (capped by WS_MAX)
        self.read = 0  # KeyStr / Name: characters read as written (capped by NAME_MAX)

    def started(self) -> bool:
        return self._started

    def _name_starts(self) -> bool:
        # The call may start as soon as its name is read: when the object is a call whatever
        # follows and its id (where the format writes one) came first (see rust/json/call.rs).
        return not self.require_args and (not self.keys.id or self.id is not None)

    def _start(self, out: Emitter) -> None:
        if not self._started and self.name is not None:
            self._started = True
            out.tool_start(self.id, self.name)
            self.id = None
            held, self.held_args = "".join(self.held_args), []
            out.args(held)

    def _args_out(self, s: str, out: Emitter) -> None:
        if self._started:
            out.args(s)
        else:
            self.held_args.append(s)

    def feed(self, s: str, out: Emitter, start: int = 0) -> Step:
        """Reads ``s[start:]``: one transition per state, until one ends the feed; offsets in the
        result are relative to ``start``."""
        n = len(s)
        i = start
        while i < n:
            st = self.st
            if st in _BETWEEN_TOKENS:
                r, i = self.on_token(s[i], i, out)
            elif st in _STRINGS:
                r, k = _feed_name(self, s, i)
                r, i = self.on_string(i + k, out) if r == DONE else (r, i + k)
            elif st == "ArgsRaw":
                r, i = self.on_args_raw(s, i, out)
            elif st == "ArgsStr":
                r, i = self.on_args_str(s, i, out)
            elif st == "BadStr":
                r, k = self.dec.feed(s, [], i)  # type: ignore[union-attr]
                r, i = (r if r == MORE else ERROR), i + k
            elif st == "Skip":
                r, k = self.sc.feed(s, i)  # type: ignore[union-attr]
                r, i = self._go("CommaOrClose", i + k) if r == DONE else (r, i + k)
            else:  # Done
                r = DONE
            if r != GO:
                return (MORE, 0) if r == MORE else (r, i - start)
        return (MORE, 0)

    def _go(self, st: str, j: int) -> Flow:
        """Moves to ``st``, going on at ``j``."""
        self.st = st
        return GO, j

    def _string(self, st: str, j: int) -> Flow:
        """Begins reading a JSON string (in state ``st``: a key, the name or the id)."""
        self.dec, self.buf, self.read = StrDecoder(), [], 0
        return self._go(st, j)

    def on_token(self, c: str, i: int, out: Emitter) -> Flow:
        """States Open, KeyOrClose, Key, Colon, Value and CommaOrClose: whitespace (one run,
        capped by WS_MAX), then the token the state expects at ``i`` (``c``)."""
        if c in WS:
            self.ws += 1
            if self.ws > WS_MAX:
                return ERROR, i
            return GO, i + 1
        self.ws = 0
        st = self.st
        if st == "Open" and c == "{":
            return self._go("KeyOrClose", i + 1)
        if st in ("KeyOrClose", "Key") and c == '"':
            return self._string("KeyStr", i + 1)
        if st == "CommaOrClose" and c == ",":
            return self._go("Key", i + 1)
        if st in ("KeyOrClose", "CommaOrClose") and c == "}":
            return self._close(i + 1, out)
        if st == "Colon" and c == ":":
            return self._go("Value", i + 1)
        if st == "Value":
            return self.on_value(c, i, out)
        return ERROR, i

    def on_value(self, c: str, i: int, out: Emitter) -> Flow:
        """State Value: the value of member ``self.member`` begins at ``i`` (with ``c``)."""
        m = self.member
        if m == "Name" and c == '"':
            return self._string("Name", i + 1)
        if m == "Args" and c == "{":
            self.seen_args = True
            self._start(out)
            self.sc = JsonScanner()
            return self._go("ArgsRaw", i)
        if m == "Args" and c == '"' and self.keys.strings:
            self.seen_args = True
            self._start(out)
            self.dec, self.sc, self.opened = StrDecoder(), JsonScanner(), False
            return self._go("ArgsStr", i + 1)
        if m == "Id" and c == '"':
            return self._string("Id", i + 1)
        if m in ("Id", "Other"):
            self.sc = JsonScanner()
            return self._go("Skip", i)
        return ERROR, i

    def on_string(self, j: int, out: Emitter) -> Flow:
        """States KeyStr, Name and Id: the string (in ``buf``) ended at ``j``."""
        if self.st == "KeyStr":
            return self.on_key_str(j)
        if self.st == "Name":
            return self.on_name(j, out)
        return self.on_id(j)

    def on_key_str(self, j: int) -> Flow:
        """State KeyStr: the key names a member (or, ``{NAME: {...}}``, the function)."""
        key = "".join(self.buf)
        if self.keys.by_name:
            # ``{NAME: {...}}``: the key names the function, once; a blank one is malformed (at
            # the end of the key, wherever the text was split).
            if self.name is not None or is_blank(key):
                return ERROR, j
            self.name, self.member = key, "Args"
            return self._go("Colon", j)
        m = self.keys.member(key)
        if (m == "Name" and self.name is not None) or (m == "Args" and self.seen_args):
            # at the end of the key, wherever the text was split
            return ERROR, j
        self.member = m
        return self._go("Colon", j)

    def on_name(self, j: int, out: Emitter) -> Flow:
        """State Name: the function's name; a blank one is malformed."""
        name = "".join(self.buf)
        if is_blank(name):
            return ERROR, j
        self.name = name
        self.st = "CommaOrClose"
        if self.seen_args or self._name_starts():
            self._start(out)
        return GO, j

    def on_id(self, j: int) -> Flow:
        """State Id: before the call started it is the call's id (the first one given; a blank
        one is none); after, it is too late to say."""
        call_id = "".join(self.buf)
        if not self._started and self.id is None and not is_blank(call_id):
            self.id = call_id
        return self._go("CommaOrClose", j)

    def on_args_raw(self, s: str, i: int, out: Emitter) -> Flow:
        """State ArgsRaw: the arguments object, sent (or held) as it comes."""
        r, k = self.sc.feed(s, i)  # type: ignore[union-attr]
        if r == MORE:
            self._args_out(s[i:], out)
            return MORE, 0
        self._args_out(s[i : i + k], out)
        if r == DONE:
            return self._go("CommaOrClose", i + k)
        return ERROR, i + k

    def on_args_str(self, s: str, i: int, out: Emitter) -> Flow:
        """State ArgsStr: string arguments, decoded and checked as one JSON object. What was
        valid is emitted before any error, and the error takes the rest of the string with it,
        so the result does not depend on where the text was split."""
        buf: List[str] = []
        r, k = self.dec.feed(s, buf, i)  # type: ignore[union-attr]
        text = "".join(buf)
        bad = self._first_bad(text)
        opened, done = self.opened, self.sc.is_done()  # type: ignore[union-attr]
        if bad is not None:
            self._args_out(text[:bad], out)
            if r == MORE:
                self.st = "BadStr"
                return MORE, 0
            return ERROR, i + k
        self._args_out(text, out)
        if r != DONE:
            return r, i + k
        if opened and not done:
            return ERROR, i + k - 1
        if not opened:
            self._args_out("{}", out)
        return self._go("CommaOrClose", i + k)

    def _first_bad(self, text: str) -> Optional[int]:
        """Checks decoded string-argument text as (part of) one JSON object with optional
        surrounding whitespace; returns the offset of the first character that breaks it."""
        if not self.opened:
            lead = ws_len(text)
            if lead == len(text):
                return None
            if text[lead] != "{":
                return lead
            self.opened = True
        sc = self.sc
        assert sc is not None
        if sc.is_done():
            tail = 0
        else:
            r, k = sc.feed(text)
            if r == MORE:
                return None
            if r == ERROR:
                return k
            tail = k
        ws = ws_len(text, tail)
        return tail + ws if tail + ws < len(text) else None

    def _close(self, i: int, out: Emitter) -> Step:
        self.st = "Done"
        if self.name is None or (self.require_args and not self.seen_args):
            self.is_call = False
            if self._started:
                return (ERROR, i - 1)
            return (DONE, i)
        self.is_call = True
        self._start(out)
        if not self.seen_args:
            out.args("{}")
        out.tool_end()
        return (DONE, i)


class Calls:
    """Reads tool-call objects: one object, or a JSON array of them."""

    def __init__(self, array: bool, keys: CallKeys, require_args: bool = False) -> None:
        self.array = array
        self.keys = keys
        self.require_args = require_args
        self._started = False
        self.ws = 0  # the whitespace run being read between calls (capped by WS_MAX)
        self.item: Optional[CallObject] = None
        if array:
            self.st = "Open"
        else:
            self.st, self.item = "Item", CallObject(keys, require_args)

    @classmethod
    def object(cls, keys: CallKeys, require_args: bool) -> Calls:
        return cls(False, keys, require_args)

    @classmethod
    def array_of(cls, keys: CallKeys) -> Calls:
        return cls(True, keys)

    def started(self) -> bool:
        return self._started or (
            self.st == "Item" and self.item is not None and self.item.started()
        )

    def is_call(self) -> bool:
        return self.array or self._started

    def feed(self, s: str, out: Emitter, start: int = 0) -> Step:
        """Reads ``s[start:]``; offsets in the result are relative to ``start``."""
        n = len(s)
        i = start
        while i < n:
            st = self.st
            if st == "Item":
                obj = self.item
                assert obj is not None
                r, k = obj.feed(s, out, i)
                if r == DONE:
                    i += k
                    self._started = self._started or obj.is_call
                    if not obj.is_call and self.array:
                        return (ERROR, i - 1 - start)
                    if self.array:
                        self.st = "CommaOrClose"
                        continue
                    self.st = "Done"
                    return (DONE, i - start)
                self._started = self._started or obj.started()
                return (ERROR, i + k - start) if r == ERROR else (MORE, 0)
            if st == "Done":
                return (DONE, i - start)
            c = s[i]
            i += 1
            if c in WS:
                self.ws += 1
                if self.ws > WS_MAX:
                    return (ERROR, i - 1 - start)
                continue
            self.ws = 0
            if st == "Open" and c == "[":
                self.st = "ItemOrClose"
            elif st in ("ItemOrClose", "CommaOrClose") and c == "]":
                self.st = "Done"
                return (DONE, i - start)
            elif (st == "ItemOrClose" and c == "{") or (st == "CommaOrClose" and c == ","):
                if c == "{":
                    i -= 1
                self.st, self.item = "Item", CallObject(self.keys, self.require_args)
            else:
                return (ERROR, i - 1 - start)
        return (MORE, 0)
