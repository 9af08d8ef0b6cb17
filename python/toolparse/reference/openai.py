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
- any other recipient (a built-in tool: ``python``, ``browser.search``, ``browser.open``,
  ``container.exec``, ...): never a function call. On the ``analysis`` channel it is reasoning (vLLM
  reads every ``analysis`` message as reasoning); on ``commentary`` or any other channel the message
  is dropped, neither content nor reasoning (vLLM ignores it; SGLang and llama.cpp drop it): it
  is the model addressing a tool the server does not run for it, not text for the user.
- no recipient: ``analysis`` is reasoning; ``final``, ``commentary`` (a preamble for the user) or no
  channel at all are content. Another channel name is malformed.

Every reasoning message whose text follows reasoning text of an earlier message starts with a
``"\\n"`` (vLLM's join), so a built-in call's code or query is not glued to the thought before it.

Marker text inside a body (a quote: reasoning that writes ``<|call|>``, ``<|channel|>final`` or
``<|start|>``) is body text unless it forms a real message boundary. openai-harmony reads special
tokens, which plain text cannot tell from their spelling; here, in a body:

- ``<|message|>`` and ``<|constrain|>`` are body text;
- an end marker (``<|end|>``, ``<|call|>``, ``<|return|>``) ends the body when whitespace and then
  the end of the text or the opener of a valid header follow; anything else makes it body text;
- ``<|start|>`` or ``<|channel|>`` (directly, or after an end marker) opens a header; when that
  header turns out invalid (by the rules of the header parser, checked as it arrives: a role other
  than ``assistant``, a channel name other than the three, a second ``<|channel|>``, more words
  than a header holds, another marker before ``<|message|>``, more than ``HEADER_MAX``
  characters) everything from the marker that opened it up to the point where it shows to be
  invalid is body text, and reading goes on from there: a marker that broke the header is looked
  at again, markers it had taken (its ``<|channel|>``, ``<|constrain|>``, ``<|message|>``) stay in
  the quote.
- a header still open at the end of the text is taken as real, as a header cut off by the end of
  the text always is: the start markup of a call when it names a function (dropped, see below),
  else content.

The reasoning keeps the quoted text. Held back meanwhile: the marker, at most ``HEADER_MAX``
characters of whitespace and at most ``HEADER_MAX`` characters of header.

Text before the first message (plain output with no markup at all) is content; whitespace after an
end marker is markup; after a tool call only whitespace and a header may follow (other text there
is malformed). Headers are kept in the state (bounded by ``HEADER_MAX``); bodies stream with only a
possible marker prefix (or a quote being decided) held back, arguments with nothing held back.
Malformed markup (a stray marker outside a body, a bad or overlong header outside a body, a call
body that is not one JSON object) sets ``malformed`` and everything after is content. A header cut
off by the end of the text goes back to content, unless it names a function: then it is the start
markup of a call that never began, dropped (``truncated`` is set) while the messages before it keep
their places (a finished analysis stays reasoning only).

beam (a spec entry of this family, its :class:`Frame`): every recipient names a function (no
``functions.`` prefix, no built-in tools), a call's body is XML parameters
(``<rfl:parameter name="K">\\nV\\n</rfl:parameter>``, read by the :class:`XmlParams` machine
started inside the function) up to the message's end marker, without which the call is cut off;
its reasoning messages are joined with nothing between them.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, List, Mapping, Optional, Tuple

from .between import GO, HOLD, Machine, Next, transitions
from .event import Emitter
from .json import DONE, MORE, JsonScanner, is_blank
from .params import ToolTypes
from .scan import WS_MAX, Markers, ws_len
from .xml_params import Style, XmlParams

if TYPE_CHECKING:
    from ..spec_types import Call

# The marker roles of the family's spec entries, in the order of the frame's markers (their
# indices below).
ROLES_OF_MARKERS = ("start", "channel", "message", "end", "call", "return", "constrain")
START, CHANNEL, MESSAGE, END, CALL, RETURN, CONSTRAIN = range(7)
_ENDS = (END, CALL, RETURN)

# The longest header accepted, in characters (markers inside it included).
HEADER_MAX = 512

# The channel names a header may give.
CHANNELS = ("analysis", "commentary", "final")
# The role of every message the model writes.
ROLES = ("assistant",)
_HWS = " \t\n\r\f"

_CHANNEL_END = re.compile(r"[ \t\n\r\f<]")
_WINDOW = 1 << 16


@dataclass
class Frame:
    """What a format of this family changes (built from the spec entry, as ``build.rs`` does)."""

    markers: Markers  # the spec's markers of the roles ROLES_OF_MARKERS, in that order
    prefix: str  # what a recipient starts with when it names a function ("" for any recipient)
    xml: Optional[Style]  # a call's body: XML parameters of this style (None: a JSON object)
    join: str  # what goes between the texts of two reasoning messages
    # made from the markers: the longest; the first character every marker shares (None when
    # they differ); what splits a header into words (whitespace and the constrain marker)
    longest: int = field(init=False)
    first: Optional[str] = field(init=False)
    words: re.Pattern = field(init=False)

    def __post_init__(self) -> None:
        ms = self.markers.list
        self.longest = max(len(m) for m in ms)
        self.first = ms[0][0] if len({m[0] for m in ms}) == 1 else None
        self.words = re.compile(re.escape(ms[CONSTRAIN]) + r"|[ \t\n\r\f]+")

    def could_start(self, s: str, at: int) -> bool:
        """``markers.could_start(s[at:])``, copying only a short rest."""
        return len(s) - at < self.longest and self.markers.could_start(s[at:])

    def find(self, s: str, start: int) -> tuple:
        """``markers.find(s[start:])`` with absolute positions: ("marker", at, which) or
        ("partial", safe, -1)."""
        markers, first = self.markers, self.first
        while True:
            at = s.find(first, start) if first else markers._next_candidate(s, start)
            if at == -1:
                return ("partial", len(s), -1)
            which = markers.starts(s, at)
            if which != -1:
                return ("marker", at, which)
            if self.could_start(s, at):
                return ("partial", at, -1)
            start = at + 1

    def expect(self, s: str, start: int) -> tuple:
        """``expect(s[start:], markers)`` with absolute positions: ("marker", which, end),
        ("wait", end of the whitespace, -1) or ("other", at, -1)."""
        j = start + ws_len(s, start)
        if j == len(s):
            return ("wait", j, -1)
        which = self.markers.starts(s, j)
        if which != -1:
            return ("marker", which, j + len(self.markers.list[which]))
        if self.could_start(s, j):
            return ("wait", j, -1)
        return ("other", j, -1)


def frame_of(m: Mapping[str, str], call: Call, xml: Optional[Style]) -> Frame:
    """The frame of a spec entry's markers and ``call`` object (the twin of ``build.rs``)."""
    missing = [r for r in ROLES_OF_MARKERS if not m.get(r)]
    if missing:
        raise ValueError(f"an openai format needs the marker {missing[0]}")
    markers = Markers([m[r] for r in ROLES_OF_MARKERS])
    prefix = "functions." if call.name_prefix is None else call.name_prefix
    return Frame(markers, prefix, xml, call.reasoning_join)


class Checks:
    """What is known of a quoted header so far: enough to see, as it arrives, that ``parse`` will
    reject it. Every check only rejects what ``parse`` rejects."""

    def __init__(self) -> None:
        self.channel = False  # a `<|channel|>` was read
        self.name_next = False  # the channel name comes next
        self.words = 0  # words read (runs of non-whitespace; markers end them)
        self.in_word = False
        self.check: Optional[Tuple[str, ...]] = None  # the names the word being checked may be
        self.word = ""  # its characters so far

    def text(self, s: str, role: bool) -> bool:
        """Header text (no marker in it) was read; False when the header can no longer be
        valid."""
        for c in s:
            if c in _HWS:
                if self.name_next or not self.end_word():
                    return False
                self.in_word = False
                continue
            if not self.in_word:
                self.in_word = True
                self.words += 1
                # A channel name, a role, a recipient and one content type at most.
                if self.words > 3 + role:
                    return False
                if self.name_next:
                    self.name_next = False
                    self.check = CHANNELS
                elif role and self.words == 1 and not self.channel:
                    self.check = ROLES
            # The channel name ends at `<` too.
            if c == "<" and self.check is CHANNELS:
                if not self.end_word():
                    return False
                continue
            if self.check is not None:
                self.word += c
                if not any(n.startswith(self.word) for n in self.check):
                    return False
        return True

    def end_word(self) -> bool:
        """The checked word (if any) ended: it must be one of its names."""
        names, self.check = self.check, None
        if names is None:
            return True
        ok = self.word in names
        self.word = ""
        return ok

    def marker(self, which: int) -> bool:
        """``<|channel|>`` or ``<|constrain|>`` inside the header; False when the header can no
        longer be valid."""
        if self.name_next or not self.end_word():
            return False
        self.in_word = False
        if which == CHANNEL:
            if self.channel:
                return False
            self.channel = True
            self.name_next = True
        return True


# outside() results besides a marker's index: other text; a run of whitespace past WS_MAX (it
# reads as text); nothing decided yet
TEXT, OVER, WAIT = -1, -2, -3


def outside(markers: Markers, s: str, i: int, held: int, maybe: str) -> Tuple[int, int]:
    """What follows the whitespace outside messages (muse's too): ``(what, j)``, ``s[i:j]`` being
    the whitespace (the caller holds it, after the ``held`` characters held before) and ``what``
    the index of the marker at ``j`` (not read yet), ``TEXT`` (other text), ``OVER`` (the
    whitespace ran past ``WS_MAX``: it reads as text) or ``WAIT`` (whitespace or a marker's prefix
    up to the end: nothing can be decided yet, hold from ``j``). ``maybe`` is text that may still
    open a header there (``to=`` at the very start of harmony's output; ``""``: none)."""
    j = i + ws_len(s, i)
    n = len(s)
    if held + j - i > WS_MAX:
        return OVER, j
    if j == n:
        return WAIT, j
    which = markers.starts(s, j)
    if which != -1:
        return which, j
    # (a rest as long as the longest marker is no marker's prefix: only that much is copied)
    r = s[j : j + max(map(len, markers.list))]
    if markers.could_start(r) or (n - j < len(maybe) and maybe.startswith(r)):
        return WAIT, j
    return TEXT, j


def finish_outside(raw: str, first: bool, rest: str, out: Emitter) -> None:
    """The text ends outside a message (muse's too; ``raw``, the whitespace held, ``first``: no
    message came before): whitespace after the last message is markup; whitespace-only output is
    content."""
    if first or rest:
        out.content(raw)
        out.content(rest)


def parse(h: str, role: bool, frame: Frame) -> Optional[tuple]:
    """Routes a complete header (the text between ``<|start|>`` and ``<|message|>``; ``role``: it
    begins with the role): ``("content",)``, ``("reasoning",)``, ``("dropped",)`` or
    ``("tool", name)``; None when it
    is malformed (a role other than ``assistant``, a channel other than ``analysis``,
    ``commentary``, ``final``, two channels, two recipients, an empty recipient or function
    name, more than one other word). A recipient starting with the frame's ``prefix`` names a
    function."""
    prefix = frame.prefix
    ch = frame.markers.list[CHANNEL]
    channel = ""
    before, after = h, ""
    p = h.find(ch)
    if p != -1:
        c = h[p + len(ch) :]
        m = _CHANNEL_END.search(c)
        end = m.start() if m else len(c)
        if c[:end] not in CHANNELS or ch in c[end:]:
            return None
        channel = c[:end]
        before, after = h[:p], c[end:]
    words = [w for part in (before, after) for w in frame.words.split(part) if w]
    # The model writes assistant messages only.
    if role:
        if not words or words[0] not in ROLES:
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
        if recipient.startswith(prefix):
            name = recipient[len(prefix) :]
            return None if is_blank(name) else ("tool", name)
        if not recipient:
            return None
        # A built-in tool: reasoning on the analysis channel, dropped on any other.
        return ("reasoning",) if channel == "analysis" else ("dropped",)
    return ("reasoning",) if channel == "analysis" else ("content",)


class Harmony(Machine):
    def __init__(self, frame: Frame, tools: ToolTypes) -> None:
        self.frame = frame
        self.tools = tools
        self.x: Optional[XmlParams] = None  # Xml: the parameters' machine
        # Outside | Text | Header | Body | Ended | ArgsStart | Args | ArgsEnd | Xml | Fallback
        self.st = "Outside"
        self.first = True  # Outside: at the start of the output
        # Outside: the whitespace read so far; Header: everything read for this message (after
        # what `lead` counts); Ended: the end marker and the whitespace after it
        self.raw: List[str] = []
        self.held = 0  # Outside: the whitespace characters in `raw` (Rust's `raw.len()`)
        # Header: index in `raw` where the header text starts
        self.text = 0
        # Header: characters of header text so far; Ended: of whitespace
        self.chars = 0
        self.role = False  # Header: opened by `<|start|>`, it begins with the role
        self.tentative = False  # Header: opened by `to=` at the very start of the output
        # Header: opened inside a body (its sink): invalid, it was quoted text
        self.quote: Optional[str] = None
        # Header: characters at the start of `raw` that are the quoting body's end marker;
        # Ended: the length of the end marker
        self.lead = 0
        self.checks = Checks()  # Header, quoted
        # Body, Ended: where the text goes: "content", "reasoning" or "dropped" (a message to a
        # built-in tool outside the analysis channel)
        self.sink = "content"
        self.sc: Optional[JsonScanner] = None  # Args
        # the separator between reasoning messages: some message's reasoning text was emitted;
        # the current body has emitted nothing yet
        self.said = False
        self.fresh = False

    def _outside(self) -> None:
        self.st, self.first, self.raw, self.held = "Outside", False, [], 0

    def _body(self, out: Emitter, sink: str, s: str) -> None:
        """Body text; a reasoning message's first text after earlier reasoning starts with
        ``"\\n"``; a dropped message's text goes nowhere."""
        if not s:
            return
        if sink == "reasoning":
            if self.fresh and self.said and self.frame.join:
                out.reasoning(self.frame.join)
            self.said = True
            out.reasoning(s)
        elif sink == "content":
            out.content(s)
        else:
            return
        self.fresh = False

    def _route(self, out: Emitter, route: tuple) -> None:
        """Goes to the state a routed header leads to."""
        if route[0] == "tool":
            if self.frame.xml is not None:
                self.x = XmlParams(self.frame.xml, self.tools)
                self.x.open(route[1], out)
                self.st = "Xml"
                return
            out.tool_start(None, route[1])
            self.st = "ArgsStart"
        else:
            self.fresh = True
            self.st, self.sink = "Body", route[0]

    def _open(self, raw: str, lead: int, which: int, quote: Optional[str]) -> None:
        """A header opened by marker ``which`` (``<|start|>`` or ``<|channel|>``) after ``raw``
        (whitespace, or a quoting body's end marker and whitespace: ``lead`` characters of it are
        that end marker)."""
        self.st, self.raw, self.lead, self.quote = "Header", [raw], lead, quote
        self.chars, self.tentative, self.role = 0, False, which == START
        self.checks = Checks()
        if which == START:
            self.raw.append(self.frame.markers.list[START])
            self.text = 2
        else:
            self.text = 1
            self._push_marker(CHANNEL)

    def _push(self, s: str) -> bool:
        """Header text; False when a quoted header can no longer be valid."""
        self.raw.append(s)
        self.chars += len(s)
        return self.quote is None or self.checks.text(s, self.role)

    def _push_marker(self, which: int) -> bool:
        """A marker inside the header (``<|channel|>`` or ``<|constrain|>``); False, and not
        taken, when it shows that a quoted header is not valid."""
        if self.quote is not None and not self.checks.marker(which):
            return False
        m = self.frame.markers.list[which]
        self.raw.append(m)
        self.chars += len(m)
        return True

    def _fail_header(self, out: Emitter) -> None:
        """A header that is not one: back to content, or, when quoted, to its body."""
        raw, self.raw = "".join(self.raw), []
        if self.quote is not None:
            self._body(out, self.quote, raw)
            self.st, self.sink = "Body", self.quote
            return
        out.content(raw)
        if self.tentative:
            self.st = "Text"
        else:
            out.malformed = True
            self.st = "Fallback"

    def step(self, s: str, i: int, out: Emitter) -> Next:
        # The transition that leaves the state (the arms of Rust's `match`). Positions are
        # absolute in `s` (`frame.find(s, i)` is `markers.find(s[i:])` shifted by i).
        return _STEPS[self.st](self, s, i, out)

    def on_outside(self, s: str, i: int, out: Emitter) -> Next:
        """At the start of the output or after a tool call: whitespace, then a header opener."""
        markers, first = self.frame.markers, self.first
        what, j = outside(markers, s, i, self.held, "to=" if first else "")
        self.raw.append(s[i:j])
        self.held += j - i
        if what == WAIT:
            return j, HOLD
        raw, self.raw = "".join(self.raw), []
        if what in (START, CHANNEL):
            self._open(raw, 0, what, None)
            return j + len(markers.list[what]), GO
        if what == TEXT and first and s.startswith("to=", j):
            self.st, self.raw, self.chars, self.tentative = "Header", [raw], 0, True
            self.text, self.role, self.quote, self.lead = 1, False, None, 0
        elif what in (TEXT, OVER) and first:
            out.content(raw)
            self.st = "Text"
        else:
            # A stray marker: it goes to content with everything after it. Text after a tool
            # call: harmony allows only `<|start|>` there.
            out.malformed = True
            out.content(raw)
            self.st = "Fallback"
        return j, GO

    def on_text(self, s: str, i: int, out: Emitter) -> Next:
        """Plain text before the first message (or a ``to=`` that was not a header): content up
        to a marker, which starts the markup outside messages (it is read again there)."""
        kind, at, _ = self.frame.find(s, i)
        out.content(s[i:at])
        if kind != "marker":
            return at, HOLD
        self._outside()
        return at, GO

    def on_header(self, s: str, i: int, out: Emitter) -> Next:
        """A header, up to ``<|message|>``, or up to where it shows to be none."""
        markers = self.frame.markers
        kind, at, which = self.frame.find(s, i)
        ok = self._push(s[i:at])
        if not ok or self.chars > HEADER_MAX:
            self._fail_header(out)
            return at, GO
        if kind != "marker":
            return at, HOLD
        if which in (CHANNEL, CONSTRAIN):
            # A marker that breaks a quoted header is looked at again.
            if self._push_marker(which):
                return at + len(markers.list[which]), GO
            self._fail_header(out)
            return at, GO
        if which != MESSAGE:
            # Another marker: the header is broken (a quote ends before it).
            self._fail_header(out)
            return at, GO
        m = markers.list[MESSAGE]
        route = parse("".join(self.raw[self.text :]), self.role, self.frame)
        if route is not None:
            self.raw = []
            self._route(out, route)
        elif self.quote is not None:
            # Quoted: the header and its `<|message|>` are text.
            self.raw.append(m)
            self._fail_header(out)
        else:
            self.raw.append(m)
            out.malformed = True
            out.content("".join(self.raw))
            self.raw = []
            self.st = "Fallback"
        return at + len(m), GO

    def on_body(self, s: str, i: int, out: Emitter) -> Next:
        """A message body: content, reasoning, or dropped."""
        kind, at, which = self.frame.find(s, i)
        sink = self.sink
        self._body(out, sink, s[i:at])
        if kind != "marker":
            return at, HOLD
        m = self.frame.markers.list[which]
        if which in _ENDS:
            self.st, self.raw, self.lead, self.chars = "Ended", [m], len(m), 0
        elif which in (START, CHANNEL):
            # Maybe the next message begins (its end marker missing).
            self._open("", 0, which, sink)
        else:
            # `<|message|>`, `<|constrain|>`: body text.
            self._body(out, sink, m)
        return at + len(m), GO

    def on_ended(self, s: str, i: int, out: Emitter) -> Next:
        """An end marker inside a body, then whitespace: the end of the body if a header (or the
        end of the text) follows, else body text."""
        markers, sink = self.frame.markers, self.sink
        j = i + ws_len(s, i)
        self.raw.append(s[i:j])
        self.chars += j - i
        if self.chars <= HEADER_MAX:
            if j == len(s):
                return j, HOLD
            which = markers.starts(s, j)
            if which in (START, CHANNEL):
                self._open("".join(self.raw), self.lead, which, sink)
                return j + len(markers.list[which]), GO
            if which == -1 and self.frame.could_start(s, j):
                return j, HOLD
        # Not followed by a header: the end marker was body text.
        raw, self.raw = "".join(self.raw), []
        self._body(out, sink, raw)
        self.st = "Body"
        return j, GO

    def on_args_start(self, s: str, i: int, out: Emitter) -> Next:
        """A tool call's body before its arguments object."""
        kind, a, b = self.frame.expect(s, i)
        if kind == "wait":
            return a, HOLD
        if kind == "other":
            if s.startswith("{", a):
                self.st, self.sc = "Args", JsonScanner()
            else:
                out.malformed = True
                self.st = "Fallback"
            return a, GO
        if a in _ENDS:
            # No arguments at all.
            out.args("{}")
            out.tool_end()
            self._outside()
            return b, GO
        out.malformed = True
        self.st = "Fallback"
        return b - len(self.frame.markers.list[a]), GO

    def on_args(self, s: str, i: int, out: Emitter) -> Next:
        """The arguments object, passed through as written: the JSON scanner alone decides where
        it ends (marker text inside a string is argument text)."""
        # (Fed in windows: copying the whole rest of a long input per call is quadratic.)
        piece = s[i : i + _WINDOW]
        r, k = self.sc.feed(piece)  # type: ignore[union-attr]
        if r == DONE:
            out.args(piece[:k])
            self.st = "ArgsEnd"
            return i + k, GO
        if r == MORE:
            out.args(piece)
            return i + len(piece), GO
        out.args(s[i : i + k])
        out.malformed = True
        self.st = "Fallback"
        return i + k, GO

    def on_args_end(self, s: str, i: int, out: Emitter) -> Next:
        """After the arguments: whitespace, then the end marker."""
        kind, a, b = self.frame.expect(s, i)
        if kind == "wait":
            return a, HOLD
        if kind == "other":
            # Text after the arguments object.
            out.malformed = True
            self.st = "Fallback"
            return a, GO
        if a in _ENDS:
            out.tool_end()
            self._outside()
            return b, GO
        mlen = len(self.frame.markers.list[a])
        if a in (START, CHANNEL):
            out.tool_end()
            self._outside()
        else:
            out.malformed = True
            self.st = "Fallback"
        return b - mlen, GO

    def on_xml(self, s: str, i: int, out: Emitter) -> Next:
        """A call's XML parameters (beam), up to the message's end (a marker inside a value ends
        it too)."""
        x = self.x
        assert x is not None
        kind, at, which = self.frame.find(s, i)
        k = x.feed(s[i:at], out)
        if out.malformed:
            self.st = "Fallback"
            return i + k, HOLD
        if kind != "marker":
            return i + k, HOLD
        if which in (MESSAGE, CONSTRAIN) or not x.end_function(s[i + k : at], out):
            # The body ends inside a parameter, or a header marker in it: malformed.
            out.malformed = True
            self.st = "Fallback"
            return i + k, HOLD
        self.x = None
        # An end marker ends the call; `<|start|>` or `<|channel|>` opens the next message.
        self._outside()
        return (at + len(self.frame.markers.list[which]) if which in _ENDS else at), GO

    def on_fallback(self, s: str, i: int, out: Emitter) -> Next:
        """After malformed markup: the driver makes the rest content."""
        return i, HOLD

    def finish(self, rest: str, out: Emitter) -> None:
        st = self.st
        if st == "Outside":
            finish_outside("".join(self.raw), self.first, rest, out)
        elif st == "Ended":
            # The body's end marker was real (the text ends); what follows it is as after a
            # message.
            if rest:
                out.content("".join(self.raw)[self.lead :])
                out.content(rest)
        elif st == "Header":
            # A header cut off by the end of the text (a quoting body's end marker before it was
            # real): when it names a function recipient, the start markup of a call that never
            # began (dropped: the messages before it stand as they are); else it was never a
            # message.
            self.raw.append(rest)
            named = "to=" + self.frame.prefix in "".join(self.raw[self.text :])
            if named and self.tentative:
                # `to=` at the very start, maybe plain text: the stream sends it as content.
                out.truncate("".join(self.raw)[self.lead :])
            elif named:
                out.truncate_start()
            else:
                out.content("".join(self.raw)[self.lead :])
        elif st in ("Text", "Fallback"):
            out.content(rest)
        elif st == "Body":
            self._body(out, self.sink, rest)
        elif st == "ArgsStart":
            out.truncate(rest)
        elif st == "Args":
            out.truncate("")
        elif st == "Xml":
            # Without its end marker a call of XML parameters is cut off (a further parameter
            # may follow), as both peers read it. A cut-off marker at the end is not value text.
            assert self.x is not None
            _, at, _ = self.frame.find(rest, 0)
            self.x.finish(rest[:at], out)
        else:  # ArgsEnd: the end marker is missing (a stop token the server stripped)
            out.tool_end()


_STEPS = transitions(Harmony, "Outside Text Header Body Ended ArgsStart Args ArgsEnd Xml Fallback")
