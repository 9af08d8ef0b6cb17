"""OpenAI harmony, as used by gpt-oss (twin of ``rust/formats/openai.rs``).

The output is a sequence of messages ``<|start|>{header}<|message|>{body}<|end|>`` (or
``<|call|>`` / ``<|return|>``). The first message has no ``<|start|>`` (the prompt ends with
``<|start|>assistant``), so the text usually begins with ``<|channel|>``. A header holds the role,
the channel (``<|channel|>NAME``), an optional recipient ``to=RECIPIENT`` (before ``<|channel|>``
or after the channel name) and an optional content type (``<|constrain|>json`` or a bare ``json``).

Routing of a body, decided when its header is complete:

- recipient ``functions.NAME`` (any channel): a tool call; the body is its JSON arguments object,
  streamed as written and validated (marker text inside a JSON string is argument text: the JSON
  scanner decides where the object ends). An empty body closed by an end marker is ``{}``. The end
  marker may be missing at the end of the text (``<|call|>`` is a stop token that servers strip):
  the call is complete when its object is.
- any other recipient (built-in tools: ``browser.search``, ``python``, ``container.exec``):
  reasoning. vLLM never reports these as function calls; their text stays in the reasoning slot.
- no recipient: ``analysis`` is reasoning; ``final``, ``commentary`` (a preamble for the user) or no
  channel at all are content. Another channel name is malformed.

Text before the first message (plain output with no markup at all) is content; whitespace between
and after messages is markup, other text there is malformed. A message whose end marker is missing
is ended by the next ``<|start|>`` or ``<|channel|>``. Headers are kept in the state (bounded by
``HEADER_MAX``); bodies stream with only a possible marker prefix held back (arguments with nothing
held back). Malformed markup (a stray marker, a bad or overlong header, a call body that is not one
JSON object) sets ``malformed`` and everything after is content; a header cut off by the end of the
text goes back to content.
"""

from __future__ import annotations

import re
from typing import List, Optional

from . import ToolTypes
from .event import Emitter
from .json import DONE, MORE, JsonScanner, is_blank
from .scan import Markers, ws_len

START, CHANNEL, MESSAGE, END, CALL, RETURN, CONSTRAIN = range(7)
MARKERS = Markers(
    [
        "<|start|>",
        "<|channel|>",
        "<|message|>",
        "<|end|>",
        "<|call|>",
        "<|return|>",
        "<|constrain|>",
    ]
)
_ENDS = (END, CALL, RETURN)
# The recipient prefix of a function call (``to=functions.NAME``).
FUNCTION_RECIPIENT = "to=functions."

# The longest header accepted, in characters (markers inside it included).
HEADER_MAX = 512

_CHANNEL_END = re.compile(r"[ \t\n\r\f<]")
_WORDS = re.compile(r"<\|constrain\|>|[ \t\n\r\f]+")


_LONGEST = max(len(m) for m in MARKERS.list)
_WINDOW = 1 << 16


def _could_start(s: str, at: int) -> bool:
    """``MARKERS.could_start(s[at:])``, copying only a short rest."""
    return len(s) - at < _LONGEST and MARKERS.could_start(s[at:])


def _find(s: str, start: int) -> tuple:
    """``MARKERS.find(s[start:])`` with absolute positions: ("marker", at, which) or
    ("partial", safe, -1). Every marker begins with ``<``."""
    while True:
        at = s.find("<", start)
        if at == -1:
            return ("partial", len(s), -1)
        which = MARKERS.starts(s, at)
        if which != -1:
            return ("marker", at, which)
        if _could_start(s, at):
            return ("partial", at, -1)
        start = at + 1


def _expect(s: str, start: int) -> tuple:
    """``expect(s[start:], MARKERS)`` with absolute positions: ("marker", which, end),
    ("wait", end of the whitespace, -1) or ("other", at, -1)."""
    j = start + ws_len(s, start)
    if j == len(s):
        return ("wait", j, -1)
    which = MARKERS.starts(s, j)
    if which != -1:
        return ("marker", which, j + len(MARKERS.list[which]))
    if _could_start(s, j):
        return ("wait", j, -1)
    return ("other", j, -1)


def new(_: ToolTypes) -> Harmony:
    return Harmony()


def parse(h: str, role: bool) -> Optional[tuple]:
    """Routes a complete header (the text between ``<|start|>`` and ``<|message|>``; ``role``: it
    begins with the role): ``("content",)``, ``("reasoning",)`` or ``("tool", name)``; None when it
    is malformed (a role other than ``assistant``, a channel other than ``analysis``,
    ``commentary``, ``final``, two channels, two recipients, an empty recipient or function
    name, more than one other word)."""
    ch = MARKERS.list[CHANNEL]
    channel = ""
    before, after = h, ""
    p = h.find(ch)
    if p != -1:
        c = h[p + len(ch) :]
        m = _CHANNEL_END.search(c)
        end = m.start() if m else len(c)
        if c[:end] not in ("analysis", "commentary", "final") or ch in c[end:]:
            return None
        channel = c[:end]
        before, after = h[:p], c[end:]
    words = [w for part in (before, after) for w in _WORDS.split(part) if w]
    # The model writes assistant messages only.
    if role:
        if not words or words[0] != "assistant":
            return None
        words = words[1:]
    recipient: Optional[str] = None
    others = 0
    for w in words:
        if w.startswith("to="):
            if recipient is not None:
                return None
            recipient = w[3:]
        else:
            # The content type (`json`): at most one; the body is validated anyway.
            others += 1
            if others > 1:
                return None
    if recipient is not None:
        if recipient.startswith(FUNCTION_RECIPIENT[3:]):
            name = recipient[len(FUNCTION_RECIPIENT) - 3 :]
            return None if is_blank(name) else ("tool", name)
        return ("reasoning",) if recipient else None
    return ("reasoning",) if channel == "analysis" else ("content",)


def _body(out: Emitter, reasoning: bool, s: str) -> None:
    if reasoning:
        out.reasoning(s)
    else:
        out.content(s)


class Harmony:
    def __init__(self) -> None:
        # Outside | Text | Header | Body | ArgsStart | Args | ArgsEnd | Fallback
        self.st = "Outside"
        self.first = True  # Outside: at the start of the output
        # Outside: the whitespace read so far; Header: everything read for this message
        self.raw: List[str] = []
        # Header: index in `raw` where the header text starts (2: after `<|start|>`, which means
        # the header begins with the role)
        self.text = 0
        self.chars = 0  # Header: characters of header text so far
        self.tentative = False  # Header: opened by `to=` at the very start of the output
        self.reasoning = False  # Body
        self.sc: Optional[JsonScanner] = None  # Args

    def _outside(self) -> None:
        self.st, self.first, self.raw = "Outside", False, []

    def _push(self, s: str) -> None:
        self.raw.append(s)
        self.chars += len(s)

    def _fail_header(self, out: Emitter) -> None:
        """A header that is not one: back to content."""
        out.content("".join(self.raw))
        self.raw = []
        if self.tentative:
            self.st = "Text"
        else:
            out.malformed = True
            self.st = "Fallback"

    def feed(self, s: str, out: Emitter) -> int:
        # Positions are absolute in `s` (no copy of the rest of the input per step); `_find` and
        # `_expect` are `MARKERS.find(s[i:])` and `expect(s[i:], MARKERS)` shifted by `i`.
        i = 0
        n = len(s)
        while i < n:
            st = self.st
            if st == "Outside":
                j = i + ws_len(s, i)
                self.raw.append(s[i:j])
                i = j
                if j == n:
                    return n
                which = MARKERS.starts(s, j)
                if which == -1 and (
                    _could_start(s, j) or (self.first and n - j < 3 and "to=".startswith(s[j:]))
                ):
                    return i
                raw, self.raw = "".join(self.raw), []
                if which in (START, CHANNEL):
                    m = MARKERS.list[which]
                    i += len(m)
                    self.st, self.raw, self.chars, self.tentative = "Header", [raw], 0, False
                    if which == START:
                        self.raw.append(m)
                        self.text = 2
                    else:
                        self.text = 1
                        self._push(m)
                elif which != -1:
                    # A stray marker: it goes to content with everything after it.
                    out.malformed = True
                    out.content(raw)
                    self.st = "Fallback"
                elif self.first and s.startswith("to=", j):
                    self.st, self.raw, self.chars, self.tentative = "Header", [raw], 0, True
                    self.text = 1
                elif self.first:
                    out.content(raw)
                    self.st = "Text"
                else:
                    # Text after a message: harmony allows only `<|start|>` there.
                    out.malformed = True
                    out.content(raw)
                    self.st = "Fallback"
            elif st == "Text":  # plain text before the first message: content
                kind, at, _ = _find(s, i)
                out.content(s[i:at])
                i = at
                if kind == "marker":
                    self._outside()
                else:
                    return i
            elif st == "Header":
                kind, at, which = _find(s, i)
                self._push(s[i:at])
                i = at
                if self.chars > HEADER_MAX:
                    self._fail_header(out)
                    continue
                if kind != "marker":
                    return i
                m = MARKERS.list[which]
                if which in (CHANNEL, CONSTRAIN):
                    self._push(m)
                    i += len(m)
                elif which == MESSAGE:
                    i += len(m)
                    route = parse("".join(self.raw[self.text :]), self.text == 2)
                    if route is None:
                        self.raw.append(m)
                        out.malformed = True
                        out.content("".join(self.raw))
                        self.st = "Fallback"
                    elif route[0] == "tool":
                        out.tool_start(None, route[1])
                        self.st = "ArgsStart"
                    else:
                        self.st, self.reasoning = "Body", route[0] == "reasoning"
                    self.raw = []
                else:
                    self._fail_header(out)
            elif st == "Body":
                kind, at, which = _find(s, i)
                _body(out, self.reasoning, s[i:at])
                i = at
                if kind != "marker":
                    return i
                if which in _ENDS:
                    i += len(MARKERS.list[which])
                    self._outside()
                elif which in (START, CHANNEL):
                    # The end marker is missing: the next message begins.
                    self._outside()
                else:
                    out.malformed = True
                    self.st = "Fallback"
            elif st == "ArgsStart":
                kind, a, b = _expect(s, i)
                if kind == "marker":
                    if a in _ENDS:
                        # No arguments at all.
                        out.args("{}")
                        out.tool_end()
                        i = b
                        self._outside()
                    else:
                        out.malformed = True
                        i = b - len(MARKERS.list[a])
                        self.st = "Fallback"
                elif kind == "wait":
                    return a
                else:
                    i = a
                    if s.startswith("{", a):
                        self.st, self.sc = "Args", JsonScanner()
                    else:
                        out.malformed = True
                        self.st = "Fallback"
            elif st == "Args":
                # The JSON scanner alone decides where the object ends: marker text inside a
                # string is argument text.
                # (Fed in windows: copying the whole rest of a long input per call is quadratic.)
                piece = s[i : i + _WINDOW]
                r, k = self.sc.feed(piece)  # type: ignore[union-attr]
                if r == DONE:
                    out.args(piece[:k])
                    i += k
                    self.st = "ArgsEnd"
                elif r == MORE:
                    out.args(piece)
                    i += len(piece)
                else:
                    out.args(s[i : i + k])
                    out.malformed = True
                    i += k
                    self.st = "Fallback"
            elif st == "ArgsEnd":
                kind, a, b = _expect(s, i)
                if kind == "marker":
                    mlen = len(MARKERS.list[a])
                    if a in _ENDS:
                        out.tool_end()
                        i = b
                        self._outside()
                    elif a in (START, CHANNEL):
                        out.tool_end()
                        i = b - mlen
                        self._outside()
                    else:
                        out.malformed = True
                        i = b - mlen
                        self.st = "Fallback"
                elif kind == "wait":
                    return a
                else:
                    # Text after the arguments object.
                    out.malformed = True
                    i = a
                    self.st = "Fallback"
            else:  # Fallback: the driver makes the rest content
                return i
        return n

    def finish(self, rest: str, out: Emitter) -> None:
        st = self.st
        if st == "Outside":
            # Whitespace after the last message is markup; whitespace-only output is content.
            if self.first or rest:
                out.content("".join(self.raw))
                out.content(rest)
        elif st == "Header":
            # A header cut off by the end of the text: the markup of an unfinished call when it
            # names a function recipient; else it was never a message.
            self.raw.append(rest)
            if FUNCTION_RECIPIENT in "".join(self.raw[self.text :]):
                out.truncate("".join(self.raw))
            else:
                out.content("".join(self.raw))
        elif st in ("Text", "Fallback"):
            out.content(rest)
        elif st == "Body":
            _body(out, self.reasoning, rest)
        elif st == "ArgsStart":
            out.truncate(rest)
        elif st == "Args":
            out.truncate("")
        else:  # ArgsEnd: the end marker is missing (a stop token the server stripped)
            out.tool_end()
