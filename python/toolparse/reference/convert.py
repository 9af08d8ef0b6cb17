"""Incremental converter from one Python literal to JSON text: the twin of ``rust/convert.rs``.

``PyLiteral`` reads ONE Python literal expression (the value of one keyword argument of a
``pythonic`` tool call, or one element) and writes the JSON text that
``json.dumps(ast.literal_eval(src), ensure_ascii=False)`` would write, while the text is still
arriving. It has the same states (same names) as the Rust machine and writes the same text per
``feed`` call.

How it stays linear and split-invariant:

- every input character is handled once by ``_step``; the only text kept between feeds is
  bounded: a pending escape, up to two quote characters that may close a triple-quoted string, an
  identifier of at most 5 characters (``True``, ``None``, a string prefix), and the text of the
  number being read (numbers are written once complete);
- nesting uses an explicit stack of frames, never recursion;
- decoded string characters are written as soon as they are known.

Where output waits: a ``(`` in value position may open a tuple (``(1,)`` -> ``[1]``) or only
group (``(1)`` -> ``1``), and a ``{`` may open a dict or a set (``{'urgent', 'bug'}`` ->
``["urgent", "bug"]``, in source order, as vLLM and SGLang write a set). That is known once the
first element is complete, so the output of that first element is held until then; the ``[`` or
``{`` (and, for a dict whose first key is not a string, the quotes around that key) is then
inserted at the recorded positions. A group in key position (``{(1): 2}``) or after a sign
(``-(1)``) holds nothing.

Beyond ``ast.literal_eval`` (what models write and the peers read): ``null``, ``true`` and
``false`` are JSON's ``None``, ``True`` and ``False``, and a raw line end inside a one-line string
is kept as written instead of ending the string.

A literal whose syntax is valid but whose value has no JSON form (bytes ``b'z'``, a complex number
``1j``, ``...``, a float that overflows to infinity) is read to its end like any other, nothing is
written from there on, and ``no_json`` says so: the caller drops the call it belongs to.

Whitespace after a complete literal is consumed: ``feed`` returns ``("done", n)`` only when it sees
the first other character after the literal, at character offset ``n`` (so the end of a number, of
a string that another string could still continue, and of a container is reported at the next
token). A letter right after a string literal is read as the prefix of a concatenated string
(``'a' r'b'``), so anything else there (``'a' x``) is an error, not the end.
"""

from __future__ import annotations

import re
from typing import Callable

__all__ = ["PyLiteral"]

# Python refuses ints with more decimal digits than this (sys.int_info.default_max_str_digits).
MAX_INT_DIGITS = 4300
_INT_LIMIT = 10**MAX_INT_DIGITS

# What ``_step`` did with a character.
NEXT = 0  # consumed it
AGAIN = 1  # changed state without consuming it: handle it again
DONE = 2  # the literal ended before it
FAIL = 3  # it is invalid

_SPACE = " \t\x0c\n"
# What ``_space`` takes (whitespace, and the backslash of a line continuation), and the states
# that skip it before their next token.
_BETWEEN = _SPACE + "\\"
_SKIPS_SPACE = frozenset(("Value", "Signed", "CloseGroups", "AfterString", "AfterValue"))
_IDENT = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_")
_DIGITS = "0123456789"
_OCTAL = "01234567"
_HEX = "0123456789abcdefABCDEF"
_RADIX_DIGITS = {16: _HEX, 8: _OCTAL, 2: "01"}

# A run of string-body characters that need no decision (anything but the quote, a backslash,
# a line end or NUL).
_PLAIN = {
    "'": re.compile(r"[^'\\\n\r\x00]+"),
    '"': re.compile(r'[^"\\\n\r\x00]+'),
}

# Escaping of a JSON string's content, as json.dumps(s, ensure_ascii=False); lone surrogates
# (which cannot be UTF-8 encoded) become U+FFFD, as in the Rust twin.
_JSON_ESCAPE = {i: f"\\u{i:04x}" for i in range(0x20)}
_JSON_ESCAPE.update(
    {
        ord('"'): '\\"',
        ord("\\"): "\\\\",
        ord("\n"): "\\n",
        ord("\r"): "\\r",
        ord("\t"): "\\t",
        0x08: "\\b",
        0x0C: "\\f",
    }
)
_JSON_ESCAPE.update({i: "\ufffd" for i in range(0xD800, 0xE000)})

_SIMPLE_ESCAPES = {
    "\\": "\\",
    "'": "'",
    '"': '"',
    "a": "\x07",
    "b": "\x08",
    "f": "\x0c",
    "n": "\n",
    "r": "\r",
    "t": "\t",
    "v": "\x0b",
}

_NAMES = {
    "True": "true",
    "False": "false",
    "None": "null",
    "true": "true",
    "false": "false",
    "null": "null",
}
_BYTES_RAW = {"b": False, "B": False}
_BYTES_RAW.update({p: True for p in ("br", "bR", "Br", "BR", "rb", "rB", "Rb", "RB")})

# Number parts whose text is a complete number.
_COMPLETE = ("Int", "RadixDigits", "Dot", "Frac", "ExpDigits")


def _number_text(part: str, buf: str, radix: int, neg: bool) -> str | None:
    """JSON text of a complete number literal, or None when Python would refuse it (or it is
    not finite: ``1e400`` is ``inf``, which has no JSON form; the caller tells these apart)."""
    if part == "Int":
        if buf.strip("0") == "":
            digits = "0"
        elif buf.startswith("0") or len(buf) > MAX_INT_DIGITS:
            return None  # ``0123`` is a SyntaxError; so are over-long ints
        else:
            digits = buf
    elif part == "RadixDigits":
        value = int(buf, radix)
        if value >= _INT_LIMIT:
            return None
        digits = str(value)
    else:
        x = float(buf)
        if x in (float("inf"), float("-inf")):
            return None
        return repr(-x if neg else x)
    if neg and digits != "0":
        return "-" + digits
    return digits


class PyLiteral:
    """Incremental converter of one Python literal to JSON text (see the module docstring)."""

    def __init__(self) -> None:
        self.state = "Value"
        # state data (which fields are meaningful depends on the state, as in the Rust enum)
        self.neg = False  # Signed, Number
        self.groups = 0  # Signed, Number: parentheses opened after the sign
        self.buf: list[str] = []  # Name, Number: characters read (a list: appending is O(1))
        self.concat = False  # Name: follows a complete string
        self.part = "Int"  # Number: where it is in Python's number grammar
        self.radix = 10  # Number
        self.left = 0  # CloseGroups, StrHex
        self.q = "'"  # string states: the quote character
        self.triple = False
        self.raw = False
        self.quotes = 0  # StrOpen, StrClose
        self.value = 0  # StrOctal, StrHex
        self.digits = 0  # StrOctal
        # explicit stack of frames: ["List", sep], ["Tuple", sep], ["Paren", mark, seq],
        # ["Group"], ["Brace", mark, seq, key], ["Dict", key, sep], ["Set", sep]
        self.stack: list[list] = []
        self.undecided = 0  # Paren/Brace frames on the stack; while > 0 output goes to ``hold``
        self.hold: list[str] = []
        # (index in ``hold``, order of its bracket, text) inserted once nothing is undecided
        self.inserts: list[tuple[int, int, str]] = []
        self.opened = 0  # brackets opened undecided so far
        self.no_json = False  # a value read has no JSON form
        self.skip_lf = False  # a "\r" was read (as a newline); a "\n" right after belongs to it
        self.line_cont = False  # a backslash outside a string: a newline must follow

    # ----- public interface -----

    def feed(self, text: str, out: list[str]) -> tuple[str, int]:
        """Consume ``text`` (continuing the previous call) and append JSON text to ``out``.

        Returns ("more", 0) when all of ``text`` was consumed and the literal is not finished,
        ("done", n) when the literal ended and ``text[n:]`` (starting with a non-whitespace
        character) is not part of it, ("error", n) when ``text[n]`` is invalid.
        """
        if self.state == "Done":
            return ("done", 0)
        if self.state == "Failed":
            return ("error", 0)
        i = 0
        n = len(text)
        while i < n:
            if self.skip_lf:
                self.skip_lf = False
                if text[i] == "\n":
                    i += 1
                    continue
            if self.state == "Str":
                m = _PLAIN[self.q].match(text, i)
                if m:
                    self._emit_text(out, m.group())
                    i = m.end()
                    continue
            c = text[i]
            # Python reads "\r\n" and a lone "\r" as "\n"; a raw line end in a one-line
            # string is kept as written
            one_line = (self.state == "Str" and not self.triple) or (
                self.state == "StrOpen" and self.quotes == 1
            )
            if c == "\r" and not one_line:
                self.skip_lf = True
                c = "\n"
            while True:
                flow = self._step(c, out)
                if flow == NEXT:
                    break
                if flow == DONE:
                    return ("done", i)
                if flow == FAIL:
                    self.state = "Failed"
                    return ("error", i)
            i += 1
        return ("more", 0)

    def finish(self, out: list[str]) -> tuple[str, int]:
        """End of the text: ("done", 0) if the literal is complete, else ("error", 0)."""
        state = self.state
        self.state = "Failed"
        if self.line_cont:
            ok = False
        elif state in ("Done", "AfterValue"):
            ok = True
        elif state == "Number":
            ok = self.groups == 0 and self._finish_number(out)
        elif state == "Name":
            ok = not self.concat and self._finish_name(out)
        elif state == "AfterString" or (state == "StrOpen" and self.quotes == 2):
            self._emit(out, '"')
            ok = True
        else:
            ok = False
        if ok and not self.stack:
            self.state = "Done"
            return ("done", 0)
        return ("error", 0)

    # ----- output -----

    def _emit(self, out: list[str], s: str) -> None:
        """Write JSON text (held back while a parenthesis is undecided)."""
        if self.no_json:
            pass  # nothing once a value with no JSON form was read
        elif self.undecided:
            self.hold.append(s)
        else:
            out.append(s)

    def _emit_text(self, out: list[str], s: str) -> None:
        """Write decoded string characters, escaped for a JSON string."""
        self._emit(out, s.translate(_JSON_ESCAPE))

    def _emit_code(self, out: list[str], value: int) -> None:
        """A code point from an escape (lone surrogates become U+FFFD in ``_emit_text``)."""
        self._emit_text(out, chr(value))

    def _resolve(self, inserts: list[tuple[int, int, str]], out: list[str]) -> None:
        """An undecided bracket is now known; ``inserts`` is what goes into ``hold`` for it."""
        self.inserts.extend(inserts)
        self.undecided -= 1
        if self.undecided == 0 and self.no_json:
            self.hold = []
            self.inserts = []
        elif self.undecided == 0:
            self.inserts.sort(key=lambda x: (x[0], x[1]))
            prev = 0
            for pos, _, c in self.inserts:
                out.extend(self.hold[prev:pos])
                out.append(c)
                prev = pos
            out.extend(self.hold[prev:])
            self.hold = []
            self.inserts = []

    # ----- helpers -----

    def _space(self, c: str) -> bool:
        """Whitespace between tokens (a backslash starts a line continuation)."""
        if c in _SPACE:
            return True
        if c == "\\":
            self.line_cont = True
            return True
        return False

    def _in_key(self) -> bool:
        """Must the value being read be hashable (a dict key, a set element)?"""
        if not self.stack:
            return False
        top = self.stack[-1]
        return top[0] in ("Group", "Brace", "Set") or (top[0] == "Dict" and top[1])

    def _key_frame(self) -> list | None:
        """The frame that decides how a scalar is written (groups are looked through)."""
        for f in reversed(self.stack):
            if f[0] != "Group":
                return f
        return None

    def _emit_scalar(self, out: list[str], text: str) -> None:
        """A scalar's JSON text; keys are written as JSON strings, like json.dumps does."""
        f = self._key_frame()
        if f is not None and f[0] == "Dict" and f[1]:
            self._emit(out, '"')
            self._emit(out, text)
            self._emit(out, '"')
        elif f is not None and f[0] == "Brace":
            # the first element of a brace: quoted only if it is a dict (a brace holds output)
            start = len(self.hold)
            self._emit(out, text)
            f[3] = (start, len(self.hold))
        else:
            self._emit(out, text)

    def _finish_name(self, out: list[str]) -> bool:
        text = _NAMES.get("".join(self.buf))
        if text is None:
            return False
        self._emit_scalar(out, text)
        return True

    def _finish_number(self, out: list[str]) -> bool:
        if self.part in ("Imag", "Ellipsis"):
            # ``1j``, ``...``: valid, with no JSON form
            self.no_json = True
            text: str | None = "null"
        elif self.part not in _COMPLETE:
            return False
        else:
            text = _number_text(self.part, "".join(self.buf), self.radix, self.neg)
            if text is None and self.part not in ("Int", "RadixDigits"):
                # a float that overflows to infinity: valid, with no JSON form
                self.no_json = True
                text = "null"
        if text is None:
            return False
        self._emit_scalar(out, text)
        return True

    def _new_number(self, c: str, neg: bool, groups: int) -> None:
        self.state = "Number"
        self.part = "LeadDot" if c == "." else "Int"
        self.buf = [c]
        self.radix = 10
        self.neg = neg
        self.groups = groups

    # ----- the state machine -----

    def _step(self, c: str, out: list[str]) -> int:
        """One character in the current state. Whitespace between tokens is skipped here for
        the states that skip it (the Rust twin's arms skip it each); the short transitions are
        inline, the others are ``_TRANSITIONS``' (``_on_<state>``, named after the state they
        leave, as in the Rust twin)."""
        if self.line_cont:
            self.line_cont = False
            return NEXT if c == "\n" else FAIL
        state = self.state
        if c in _BETWEEN and state in _SKIPS_SPACE and self._space(c):
            return NEXT  # whitespace between tokens: the state stays
        self.state = "Failed"  # each branch sets the next state
        if state == "CloseGroups":
            if c != ")":
                return FAIL
            self.left -= 1
            self.state = "CloseGroups" if self.left > 0 else "AfterValue"
            return NEXT
        if state == "Str":
            if c == self.q:
                if self.triple:
                    self.quotes = 1
                    self.state = "StrClose"
                else:
                    self.state = "AfterString"
            elif c == "\\":
                self.state = "StrEscape"
            elif c == "\x00":
                return FAIL  # NUL is not allowed in source (a raw line end is kept)
            else:
                self._emit_text(out, c)
                self.state = "Str"
            return NEXT
        if state == "Done":
            self.state = "Done"
            return DONE
        on = _TRANSITIONS.get(state)
        return FAIL if on is None else on(self, c, out)

    def _on_signed(self, c: str, out: list[str]) -> int:
        """After a unary "+"/"-": parentheses, then a number."""
        if c == "(":
            self.groups += 1
            self.state = "Signed"
            return NEXT
        if c in _DIGITS or c == ".":
            self._new_number(c, self.neg, self.groups)
            return NEXT
        return FAIL

    def _on_name(self, c: str, out: list[str]) -> int:
        """An identifier: a name (``True``, ``None``, ...) or the prefix of a string literal."""
        if c in _IDENT:
            if len(self.buf) >= 5:
                return FAIL  # longer than any name or prefix we accept
            self.buf.append(c)
            self.state = "Name"
            return NEXT
        if c in "'\"":
            prefix = "".join(self.buf)
            if prefix in ("r", "R"):
                raw = True
            elif prefix in ("u", "U"):
                raw = False
            elif prefix in _BYTES_RAW and not self.concat:
                # bytes: valid, with no JSON form (mixed with a str: a SyntaxError)
                self.no_json = True
                raw = _BYTES_RAW[prefix]
            else:
                return FAIL  # f-strings, ``True'x'``
            if not self.concat:
                self._emit(out, '"')
            self.state = "StrOpen"
            self.q = c
            self.raw = raw
            self.quotes = 1
            return NEXT
        if self.concat or not self._finish_name(out):
            return FAIL
        self.state = "AfterValue"
        return AGAIN

    def _on_str_open(self, c: str, out: list[str]) -> int:
        """One or two opening quotes: a third makes a triple quote, anything else starts the body
        (or follows an empty string)."""
        if c == self.q:
            if self.quotes == 1:
                self.quotes = 2
                self.state = "StrOpen"
            else:
                self.triple = True
                self.state = "Str"
            return NEXT
        if self.quotes == 1:
            self.triple = False
            self.state = "Str"
        else:
            self.state = "AfterString"  # '': an empty string
        return AGAIN

    def _on_str_close(self, c: str, out: list[str]) -> int:
        """Quote characters held in a triple-quoted body: a third closes it, anything else makes
        them text."""
        if c == self.q:
            if self.quotes == 2:
                self.state = "AfterString"
            else:
                self.quotes = 2
                self.state = "StrClose"
            return NEXT
        self._emit_text(out, self.q * self.quotes)
        self.state = "Str"
        return AGAIN

    def _on_str_octal(self, c: str, out: list[str]) -> int:
        """An octal escape: up to three digits."""
        if c in _OCTAL:
            self.value = self.value * 8 + int(c)
            if self.digits >= 2:
                self._emit_code(out, self.value)
                self.state = "Str"
            else:
                self.digits += 1
                self.state = "StrOctal"
            return NEXT
        self._emit_code(out, self.value)
        self.state = "Str"
        return AGAIN

    def _on_str_hex(self, c: str, out: list[str]) -> int:
        """A hex escape: exactly ``left`` more hex digits."""
        if c not in _HEX:
            return FAIL  # truncated \xXX / \uXXXX / \UXXXXXXXX
        self.value = self.value * 16 + int(c, 16)
        if self.left > 1:
            self.left -= 1
            self.state = "StrHex"
            return NEXT
        if self.value > 0x10FFFF:
            return FAIL  # illegal Unicode character
        self._emit_code(out, self.value)
        self.state = "Str"
        return NEXT

    def _on_after_string(self, c: str, out: list[str]) -> int:
        """After a string literal: another string (or its prefix) continues it, anything else
        closes its JSON string."""
        if c in "'\"":
            self.state = "StrOpen"
            self.q = c
            self.raw = False
            self.quotes = 1
            return NEXT
        if c in _IDENT:
            self.state = "Name"
            self.buf = [c]
            self.concat = True
            return NEXT
        self._emit(out, '"')
        self.state = "AfterValue"
        return AGAIN

    def _on_number(self, c: str, out: list[str]) -> int:
        """A character while reading a number."""
        part = self.part
        nxt = None
        if part in ("Int", "IntUnder") and c in _DIGITS:
            nxt = "Int"
        elif part == "Int" and c == "_":
            nxt = "IntUnder"
        elif part == "Int" and c == ".":
            nxt = "Dot"
        elif part in ("Int", "Dot", "Frac") and c in "eE":
            nxt = "Exp"
        elif part == "Int" and c in "xXoObB" and self.buf == ["0"]:
            self.radix = {"x": 16, "o": 8, "b": 2}[c.lower()]
            self.buf = []
            self.part = "Radix"
            self.state = "Number"
            return NEXT
        elif part in ("Radix", "RadixDigits", "RadixUnder") and c in _RADIX_DIGITS[self.radix]:
            nxt = "RadixDigits"
        elif part in ("Radix", "RadixDigits") and c == "_":
            nxt = "RadixUnder"
        elif part in ("Dot", "LeadDot", "Frac", "FracUnder") and c in _DIGITS:
            nxt = "Frac"
        elif part == "Frac" and c == "_":
            nxt = "FracUnder"
        elif part == "Exp" and c in "+-":
            nxt = "ExpSign"
        elif part in ("Exp", "ExpSign", "ExpDigits", "ExpUnder") and c in _DIGITS:
            nxt = "ExpDigits"
        elif part == "ExpDigits" and c == "_":
            nxt = "ExpUnder"
        elif part in ("Int", "Dot", "Frac", "ExpDigits") and c in "jJ":
            nxt = "Imag"
        elif part == "LeadDot" and c == "." and self.buf == ["."]:
            nxt = "Dots"
        elif part == "Dots" and c == ".":
            nxt = "Ellipsis"
        if nxt is not None:
            if c != "_":
                self.buf.append("e" if c == "E" else c)
            self.part = nxt
            self.state = "Number"
            return NEXT
        # ``c`` ends the number; a letter, digit, "_" or "." glued to it is invalid
        # (1x, 1jj, 0b12, 1._5, 1..real, ....).
        if c in _IDENT or c == "." or not self._finish_number(out):
            return FAIL
        if self.groups > 0:
            self.left = self.groups
            self.state = "CloseGroups"
        else:
            self.state = "AfterValue"
        return AGAIN

    def _on_str_escape(self, c: str, out: list[str]) -> int:
        """A character after a backslash in a string body."""
        if c == "\x00":
            return FAIL
        self.state = "Str"
        if self.raw:
            # raw strings keep the backslash and the character after it (which cannot close
            # the string)
            self._emit_text(out, "\\" + c)
            return NEXT
        if c == "\n":
            return NEXT  # line continuation: nothing
        decoded = _SIMPLE_ESCAPES.get(c)
        if decoded is not None:
            self._emit_text(out, decoded)
        elif c in _OCTAL:
            self.value = int(c)
            self.digits = 1
            self.state = "StrOctal"
        elif c in "xuU":
            self.value = 0
            self.left = {"x": 2, "u": 4, "U": 8}[c]
            self.state = "StrHex"
        elif c == "N":
            return FAIL  # \N{NAME} is not supported
        else:
            self._emit_text(out, "\\" + c)  # an unknown escape keeps its backslash
        return NEXT

    def _separator(self, out: list[str]) -> None:
        """Write the separator before a container's next element (or note that one is needed)."""
        if not self.stack:
            return
        top = self.stack[-1]
        if top[0] in ("List", "Tuple", "Set") or (top[0] == "Dict" and top[1]):
            if top[-1]:
                self._emit(out, ", ")
            else:
                top[-1] = True

    def _close(self, c: str, key: bool, out: list[str]) -> bool:
        """Does ``c`` close the innermost container: a list, tuple or set (written as a JSON
        list), or a dict expecting a key (``key``: after a trailing comma) or not (after a
        value)? Then it is closed."""
        if not self.stack:
            return False
        top = self.stack[-1]
        kind = top[0]
        if (
            (c == "]" and kind == "List")
            or (c == ")" and kind == "Tuple")
            or (c == "}" and kind == "Set")
        ):
            json = "]"
        elif c == "}" and kind == "Dict" and top[1] == key:
            json = "}"
        else:
            return False
        self.stack.pop()
        self._emit(out, json)
        return True

    def _start_value(self, c: str, out: list[str]) -> int:
        """First non-whitespace character in Value: a closing bracket or the start of a value."""
        if c in "])}":
            # closing right after the opening bracket or after a trailing comma
            kind = self.stack[-1][0] if self.stack else None
            if c == ")" and kind == "Paren":
                _, mark, seq = self.stack.pop()
                self._resolve([(mark, seq, "[")], out)  # () is an empty tuple
                self._emit(out, "]")
            elif c == "}" and kind == "Brace":
                f = self.stack.pop()
                self._resolve([(f[1], f[2], "{")], out)  # {} is an empty dict
                self._emit(out, "}")
            elif not self._close(c, True, out):
                return FAIL
            self.state = "AfterValue"
            return NEXT
        key = self._in_key()
        self._separator(out)
        self.state = "Value"
        if c in "[{" and key:
            return FAIL  # unhashable key (or set element)
        if c == "[":
            self._emit(out, "[")
            self.stack.append(["List", False])
        elif c == "{":
            self.stack.append(["Brace", len(self.hold), self.opened, None])
            self.opened += 1
            self.undecided += 1
        elif c == "(" and key:
            self.stack.append(["Group"])
        elif c == "(":
            self.stack.append(["Paren", len(self.hold), self.opened])
            self.opened += 1
            self.undecided += 1
        elif c in "'\"":
            self._emit(out, '"')
            self.state = "StrOpen"
            self.q = c
            self.raw = False
            self.quotes = 1
        elif c in "+-":
            self.state = "Signed"
            self.neg = c == "-"
            self.groups = 0
        elif c in _DIGITS or c == ".":
            self._new_number(c, False, 0)
        elif c in _IDENT:  # a letter or "_" (digits were handled above)
            self.state = "Name"
            self.buf = [c]
            self.concat = False
        else:
            return FAIL
        return NEXT

    def _after_value(self, c: str, out: list[str]) -> int:
        """First non-whitespace character after a complete value."""
        self.state = "AfterValue"
        if not self.stack:
            self.state = "Done"
            return DONE
        top = self.stack[-1]
        kind = top[0]
        if kind in ("List", "Tuple", "Set") and c == ",":
            self.state = "Value"
        elif kind == "Dict" and c == "," and not top[1]:
            top[1] = True
            self.state = "Value"
        elif kind == "Dict" and c == ":" and top[1]:
            top[1] = False
            self._emit(out, ": ")
            self.state = "Value"
        elif kind == "Paren" and c == ",":
            self.stack[-1] = ["Tuple", True]
            self._resolve([(top[1], top[2], "[")], out)  # (x, ... is a tuple
            self.state = "Value"
        elif kind == "Paren" and c == ")":
            self.stack.pop()
            self._resolve([], out)  # (x) is just x
        elif kind == "Brace" and c == ":":
            # a dict: "{", and quotes around a first key that is not a string
            self.stack[-1] = ["Dict", False, True]
            self._emit(out, ": ")
            inserts = [(top[1], top[2], "{")]
            if top[3] is not None:
                start, end = top[3]
                inserts += [(start, self.opened, '"'), (end, self.opened, '"')]
            self._resolve(inserts, out)
            self.state = "Value"
        elif kind == "Brace" and c in ",}":
            # a set: written as a list
            if c == ",":
                self.stack[-1] = ["Set", True]
                self.state = "Value"
            else:
                self.stack.pop()
                self._emit(out, "]")
            self._resolve([(top[1], top[2], "[")], out)
        elif kind == "Group" and c == ")":
            self.stack.pop()
        elif not self._close(c, False, out):
            return FAIL
        return NEXT


# The transitions ``_step`` hands a character over to, by state (the other states' are inline
# there); each takes the character and the output, whether it writes or not.
_TRANSITIONS: dict[str, Callable[[PyLiteral, str, list[str]], int]] = {
    "Value": PyLiteral._start_value,
    "Signed": PyLiteral._on_signed,
    "Name": PyLiteral._on_name,
    "Number": PyLiteral._on_number,
    "StrOpen": PyLiteral._on_str_open,
    "StrClose": PyLiteral._on_str_close,
    "StrEscape": PyLiteral._on_str_escape,
    "StrOctal": PyLiteral._on_str_octal,
    "StrHex": PyLiteral._on_str_hex,
    "AfterString": PyLiteral._on_after_string,
    "AfterValue": PyLiteral._after_value,
}
