"""What a parser emits (twin of ``rust/event.rs``).

Events are tuples: ``("content", text)``, ``("reasoning", text)``,
``("tool_start", index, id, name)``, ``("tool_args", index, fragment)``, ``("tool_end", index)``,
``("dropped", index)`` (the open call is not a call after all, though its markup is well formed:
the non-streaming result leaves it out; a stream has sent its start and arguments so far),
``("unfinished", markup)`` (the text ended inside a call: what that call left unemitted).
"""

from __future__ import annotations

from typing import Any, List, Optional, Sequence, Set, Tuple

from .scan import WS, WS_MAX, Markers, strip_all

Event = Tuple[Any, ...]
# (index, id, name, arguments) with name set only on a call's first fragment
DeltaCall = Tuple[int, Optional[str], Optional[str], Optional[str]]
Delta = Tuple[Optional[str], Optional[str], Optional[List[DeltaCall]]]
Call = Tuple[Optional[str], str, str]
Extracted = Tuple[Optional[str], Optional[str], List[Call], bool, bool]


class SpanRule:
    """Spans whose tags are markup, dropped from content and reasoning (twin of ``SpanRule``):
    ``open`` is dropped wherever it stands; after an open, a close (``close_start`` ...
    ``close_end``, at most ``max`` characters in all) is dropped; a close that does not end within
    ``max`` characters is text."""

    def __init__(self, open: str, close_start: str, close_end: str, max: int) -> None:
        self.open, self.close_start, self.close_end, self.max = open, close_start, close_end, max

    def feed(self, st: List[Any], s: str, end: bool) -> str:
        """Feeds ``s`` after the text held in ``st`` (``[open, held]``); returns the text that is
        not markup. At the ``end`` nothing is held."""
        buf = st[1] + s
        out: List[str] = []
        pos = i = 0
        n = len(buf)
        while i < n:
            if buf.startswith(self.open, i):
                out.append(buf[pos:i])
                i += len(self.open)
                pos = i
                st[0] = True
                continue
            if st[0] and buf.startswith(self.close_start, i):
                window = min(n, i + self.max)
                k = buf.find(self.close_end, min(i + len(self.close_start), window), window)
                if k >= 0:
                    out.append(buf[pos:i])
                    i = k + len(self.close_end)
                    pos = i
                    st[0] = False
                    continue
                if window == n and not end:
                    break
            elif (
                not end
                and n - i < max(len(self.open), len(self.close_start))
                and (
                    self.open.startswith(buf[i:])
                    or (st[0] and self.close_start.startswith(buf[i:]))
                )
            ):
                break
            i += 1
        out.append(buf[pos:i])
        st[1] = buf[i:]
        return "".join(out)


# The longest run of whitespace at the end of the reasoning that ``trim`` drops.
TRAIL_CAP = 64


class Trail:
    """Reasoning text whose ending run of whitespace is dropped (``trim``): the open run of
    whitespace at the end of the reasoning so far is held back, up to TRAIL_CAP (a longer run is
    reasoning, all of it), and dropped when the block closes. Shared with the machines that
    separate reasoning themselves (inkling)."""

    def __init__(self) -> None:
        self.ws = ""
        self.long = False  # the open run grew past TRAIL_CAP; it is reasoning

    def emit(self, s: str, out: Emitter) -> None:
        if not s:
            return
        body = s.rstrip(WS)
        if not body:
            if self.long:
                out.reasoning(s)
            else:
                self.ws += s
                if len(self.ws) > TRAIL_CAP:
                    out.reasoning(self.ws)
                    self.ws = ""
                    self.long = True
            return
        out.reasoning(self.ws)
        self.ws = ""
        out.reasoning(body)
        self.long = False
        self.emit(s[len(body) :], out)

    def close(self) -> None:
        """The block ended: the held run of whitespace at its end is dropped."""
        self.ws = ""
        self.long = False


class Label:
    """The reasoning of one think block as it is emitted, the same in the front (``reasoning``)
    and in the blocks anywhere (``BlockRule``; twin of ``Label``): at the start of a block
    (``open``) the reasoning is held while it may still be the ``label`` and a newline, which are
    markup (dropped); a block whose whole reasoning is the label is empty; other text is
    reasoning as written. With ``trim`` the run of whitespace that ends the reasoning is dropped
    (``Trail``)."""

    def __init__(self, name: str, trim: bool) -> None:
        self.name = name  # the label a block may begin with (gemma4's channel name; empty: none)
        self.trim = trim
        self.fresh = False  # at the start of a block, while its reasoning may be the label
        self.held = ""  # the reasoning held while it may still be the label and a newline
        self.trail = Trail()  # trim: the open run of whitespace at the end of the reasoning

    def open(self) -> None:
        """A block opens: its reasoning may begin with the label."""
        self.fresh = True

    def emit(self, s: str, out: Emitter) -> None:
        """Emits reasoning; at the start of a block, holds it while it may still be the label and
        a newline (dropped when it is); with ``trim``, holds back the open run of whitespace at
        its end."""
        label = self.name
        if not self.fresh or not label:
            self._body(s, out)
            return
        self.held += s
        held = self.held
        if held.startswith(label + "\n"):
            self.fresh = False
            self.held = ""
            self._body(held[len(label) + 1 :], out)
            return
        if not (label + "\n").startswith(held):
            self.fresh = False
            self.held = ""
            self._body(held, out)

    def _body(self, s: str, out: Emitter) -> None:
        """Emits reasoning; with ``trim``, holds back the open run of whitespace at its end."""
        if self.trim:
            self.trail.emit(s, out)
        else:
            out.reasoning(s)

    def close(self, out: Emitter) -> None:
        """The block ended: reasoning held as a possible label is reasoning unless it is the
        label (the whole block: empty); a held run of whitespace at its end is dropped
        (``trim``)."""
        if self.fresh:
            self.fresh = False
            held, self.held = self.held, ""
            if held != self.name:
                self._body(held, out)
        self.trail.close()


class BlockRule:
    """Think blocks anywhere in the content (a reasoning format's ``blocks_anywhere``; twin of
    ``BlockRule``): outside a block a start marker opens one; inside, the text is reasoning, an
    end marker closes the block, a start marker is markup, and a call start closes it (the marker
    goes on as content; a call the machine starts closes it too). At the start of a block its
    ``label`` and a newline are markup (the label alone: an empty block); with ``trim`` the run
    of whitespace that ends the reasoning is dropped (``Label``)."""

    def __init__(
        self, scan: Sequence[str], ends: int, starts: Sequence[str], label: str, trim: bool
    ) -> None:
        self.scan = Markers(scan)  # ends, starts, call starts
        self.ends = ends
        self.starts = Markers(starts)
        self.nstarts = len(starts)
        self.label = label
        self.trim = trim


class _Blocks:
    """One stream's place among the blocks of a ``BlockRule`` (twin of ``Blocks``)."""

    def __init__(self, rule: BlockRule) -> None:
        self.rule = rule
        self.open = False
        self.held = ""  # the end of the text so far that could still become a marker
        self.label = Label(rule.label, rule.trim)  # the reasoning of the open block

    def feed(self, s: str, end: bool, out: Emitter) -> None:
        """Feeds content text; at the ``end`` nothing is held (a marker a longer one might have
        extended is that marker)."""
        buf, self.held = self.held + s, ""
        pos = 0
        while True:
            markers = self.rule.scan if self.open else self.rule.starts
            kind, at, which = markers.find(buf, pos)
            if kind != "marker":
                which = markers.starts(buf, pos + at) if end else -1
            self._text(buf[pos : pos + at], out)
            pos += at
            if which < 0:
                if end:
                    self._text(buf[pos:], out)
                else:
                    self.held = buf[pos:]
                return
            n = len(markers.list[which])
            if not self.open:
                self.open = True
                self.label.open()
                pos += n
            elif which < self.rule.ends:
                self._close(out)
                pos += n
            elif which < self.rule.ends + self.rule.nstarts:
                pos += n
            else:
                self._close(out)  # a call start: content from the marker on

    def _text(self, s: str, out: Emitter) -> None:
        if not s:
            return
        if self.open:
            self.label.emit(s, out)
        else:
            out._content_plain(s)

    def _close(self, out: Emitter) -> None:
        """The block ends: what ``Label`` holds is what it is."""
        self.label.close(out)
        self.open = False

    def end(self, out: Emitter) -> None:
        """Something else follows (a call starts, the text ends): what is held is what it is, and
        an open block closes."""
        self.feed("", True, out)
        if self.open:
            self._close(out)


class Emitter:
    """Collects events and applies the rules every format shares: adjacent fragments coalesce,
    call indices are assigned in order, and whitespace that only separates or surrounds tool calls
    is not content (a whitespace-only run at the start of a content segment is held until
    non-whitespace follows, a call starts, or the text ends; a run longer than ``WS_MAX`` is
    content from then on, so what is held stays bounded)."""

    def __init__(self, drop: Sequence[str] = (), starts: Sequence[str] = ()) -> None:
        self.events: List[list] = []
        self.malformed = False
        self.truncated = False
        # the calls dropped after their start was emitted, in order
        self.dropped: List[int] = []
        # the text ended with a bare call start (see truncate): no call began, so the content
        # emitted is the whole output without it (no fallback to the text)
        self.cut = False
        self._calls = 0
        self._open: Optional[int] = None
        self._ws = ""
        self._seg_text = False
        # markup dropped wherever the machine emits it as content (an end-of-reasoning marker
        # met outside a block, a turn-end tag); set by the driver from the spec
        self._drop = Markers(drop) if drop else None
        # the end of the content so far that could still become one of the dropped markers
        self._pending = ""
        # the markers that begin a call (its format's call_start and section_start roles)
        self._starts = tuple(m for m in starts if m)
        self._ids: Set[str] = set()  # the ids the model gave earlier calls of this response
        # spans whose tags are markup (the format's span_markup), if any, and the span state
        # ([open, held]) of the content and of the reasoning
        self._span: Optional[SpanRule] = None
        self._span_content: List[Any] = [False, ""]
        self._span_reasoning: List[Any] = [False, ""]
        # think blocks anywhere in the content (BlockRule), if the reasoning format has them
        self._blocks: Optional[_Blocks] = None

    def set_span(self, span: Optional[SpanRule]) -> None:
        """The spans whose tags are markup in content and reasoning."""
        self._span = span

    def set_blocks(self, rule: Optional[BlockRule]) -> None:
        """The think blocks that open anywhere in the content (``blocks_anywhere``)."""
        self._blocks = _Blocks(rule) if rule is not None else None

    def _end_blocks(self) -> None:
        """The blocks' held text is what it is (something else follows), an open block
        closes."""
        b, self._blocks = self._blocks, None
        if b is not None:
            b.end(self)
            self._blocks = b

    def _flush_reasoning(self) -> None:
        """Reasoning held back as a possible span tag is reasoning after all."""
        if self._span is not None and self._span_reasoning[1]:
            self._push_reasoning(self._span.feed(self._span_reasoning, "", True))

    def drops_any(self) -> bool:
        """Whether some markup is dropped from content (a dropped marker or span tags)."""
        return self._drop is not None or self._span is not None

    def drops(self) -> bool:
        """Whether some markup is dropped from content."""
        return self._drop is not None

    def strip(self, s: str) -> str:
        """``s`` without the markup dropped from content (a whole text at once), and without its
        think blocks (``blocks_anywhere``)."""
        if self._blocks is not None:
            e = Emitter(self._drop.list if self._drop is not None else ())
            e._span = self._span
            e.set_blocks(self._blocks.rule)
            e.content(s)
            e._end_blocks()
            e._flush()
            ws, e._ws = e._ws, ""
            e._push_content(ws)
            return "".join("".join(ev[1]) for ev in e.events if ev[0] == "content")
        if self._span is not None:
            s = self._span.feed([False, ""], s, True)
        return strip_all(self._drop, s) if self._drop is not None else s

    def content(self, s: str) -> None:
        """Plain content text. Dropped markup in it is dropped (held back while the end of the
        content could still become one), and span tags."""
        if not s:
            return
        b, self._blocks = self._blocks, None
        if b is not None:
            b.feed(s, False, self)
            self._blocks = b
            return
        self._content_plain(s)

    def _content_plain(self, s: str) -> None:
        """Content outside think blocks: the markup rules."""
        self._flush_reasoning()
        if self._span is not None:
            s = self._span.feed(self._span_content, s, False)
        self._content_dropping(s)

    def _content_dropping(self, s: str) -> None:
        if not s:
            return
        drop = self._drop
        if drop is None:
            self._text(s)
            return
        if self._pending:
            s, self._pending = self._pending + s, ""
        pos = 0
        while True:
            kind, at, which = drop.find(s, pos)
            self._text(s[pos : pos + at])
            if kind == "marker":
                pos += at + len(drop.list[which])
                continue
            self._pending = s[pos + at :]
            return

    def _flush(self) -> None:
        """Content held back as a possible dropped marker or span tag is content after all; so
        is reasoning held back as a possible span tag."""
        self._flush_reasoning()
        if self._span is not None and self._span_content[1]:
            self._content_dropping(self._span.feed(self._span_content, "", True))
        if self._pending:
            p, self._pending = self._pending, ""
            self._text(p)

    def _text(self, s: str) -> None:
        """Content after the markup rules: the whitespace rule."""
        if not s:
            return
        if not self._seg_text:
            if not s.lstrip(WS):
                self._ws += s
                if len(self._ws) > WS_MAX:
                    # past the cap the run is content
                    self._seg_text = True
                    ws, self._ws = self._ws, ""
                    self._push_content(ws)
                return
            self._seg_text = True
            if self._ws:
                ws, self._ws = self._ws, ""
                self._push_content(ws)
        self._push_content(s)

    def _push_content(self, s: str) -> None:
        ev = self.events
        if ev and ev[-1][0] == "content":
            ev[-1][1].append(s)
        else:
            ev.append(["content", [s]])

    def reasoning(self, s: str) -> None:
        if not s:
            return
        held, self._span_reasoning[1] = self._span_reasoning[1], ""
        self._flush()
        self._span_reasoning[1] = held
        if self._span is not None:
            s = self._span.feed(self._span_reasoning, s, False)
        self._push_reasoning(s)

    def _push_reasoning(self, s: str) -> None:
        if not s:
            return
        ev = self.events
        if ev and ev[-1][0] == "reasoning":
            ev[-1][1].append(s)
        else:
            ev.append(["reasoning", [s]])

    def tool_start(self, id: Optional[str], name: str) -> int:
        """A call starts. ``id`` is the one the model gave it, if any: an id an earlier call of
        this response already has is not reused (ids tell calls apart), the call gets a generated
        one."""
        if id is not None:
            if id in self._ids:
                id = None
            else:
                self._ids.add(id)
        self._end_blocks()
        self._flush()
        self._ws = ""
        self._seg_text = False
        index = self._calls
        self._calls += 1
        self._open = index
        self.events.append(["tool_start", index, id, name])
        return index

    def args(self, s: str) -> None:
        index = self._open
        if index is None or not s:
            return
        ev = self.events
        if ev and ev[-1][0] == "tool_args" and ev[-1][1] == index:
            ev[-1][2].append(s)
        else:
            ev.append(["tool_args", index, [s]])

    def drop_call(self) -> None:
        """The open call is dropped: what is written for it from now on goes nowhere."""
        if self._open is not None:
            self.events.append(["dropped", self._open])
            self.dropped.append(self._open)
            self._open = None
        self._seg_text = False

    def tool_end(self) -> None:
        if self._open is not None:
            self.events.append(["tool_end", self._open])
            self._open = None
        self._seg_text = False

    def truncate(self, markup: str) -> None:
        """End of text inside a call. ``markup`` is what the unfinished call has not emitted yet
        (empty once its start was emitted): with the whitespace held before it, it becomes an
        ``unfinished`` event (without the dropped markup). When no call is open and that is only
        call-start markers and whitespace, the text was cut before the call began: it is markup,
        and is dropped (``cut``)."""
        self._flush()
        self.truncated = True
        s, self._ws = self._ws + markup, ""
        if self._open is None and _bare_starts(s, self._starts):
            self.cut = True
            return
        s = self.strip(s)
        if s:
            self.events.append(["unfinished", [s]])

    def truncate_start(self) -> None:
        """End of text inside the start markup of a call that has not begun (a header naming a
        function, cut off): like a bare call start, it is markup, and is dropped (``cut``) with
        the whitespace held before it."""
        self._flush()
        self.truncated = True
        self._ws = ""
        if self._open is None:
            self.cut = True

    def finish(self) -> None:
        self._end_blocks()
        self._flush()
        if self._ws and self._calls == 0:
            ws, self._ws = self._ws, ""
            self._push_content(ws)
        self._ws = ""
        if self._open is not None:
            self.truncated = True

    def open_call(self) -> Optional[int]:
        """The call that has started and not ended (after ``finish``: the call the text ended
        inside)."""
        return self._open

    def take(self) -> List[list]:
        """Takes the events emitted since the last call (text fragments are kept as lists of
        parts while they coalesce, so accumulating is linear; they are joined here)."""
        ev, self.events = self.events, []
        for e in ev:
            if e[0] == "tool_args":
                e[2] = "".join(e[2])
            elif e[0] in ("content", "reasoning", "unfinished"):
                e[1] = "".join(e[1])
        return ev


def _bare_starts(s: str, starts: Tuple[str, ...]) -> bool:
    """Whether ``s`` is one or more of ``starts``, with only whitespace around and between them."""
    rest = s.lstrip(WS)
    if not rest:
        return False
    while rest:
        m = max((m for m in starts if rest.startswith(m)), key=len, default=None)
        if m is None:
            return False
        rest = rest[len(m) :].lstrip(WS)
    return True


def delta_from_events(events: List[list]) -> Optional[Delta]:
    """Merges one feed's events the way an OpenAI delta carries them; None when empty."""
    content: Optional[str] = None
    reasoning: Optional[str] = None
    calls: List[list] = []
    for ev in events:
        kind = ev[0]
        if kind == "content" or kind == "unfinished":
            content = ev[1] if content is None else content + ev[1]
        elif kind == "reasoning":
            reasoning = ev[1] if reasoning is None else reasoning + ev[1]
        elif kind == "tool_start":
            calls.append([ev[1], ev[2], ev[3], None])
        elif kind == "tool_args":
            if calls and calls[-1][0] == ev[1]:
                last = calls[-1]
                last[3] = ev[2] if last[3] is None else last[3] + ev[2]
            else:
                calls.append([ev[1], None, None, ev[2]])
    if content is None and reasoning is None and not calls:
        return None
    return (content, reasoning, [tuple(c) for c in calls] if calls else None)  # type: ignore[misc]


def extracted_from_events(events: List[list], malformed: bool, truncated: bool) -> Extracted:
    """The non-streaming result, before the caller's fallback rule is applied: with
    ``malformed``, or with ``truncated`` and no call, the caller returns the original text as
    content. A call the text ended inside is not one, and its markup is not content."""
    content: List[str] = []
    reasoning: List[str] = []
    calls: List[list] = []
    ended: List[bool] = []
    dropped: List[bool] = []
    for ev in events:
        kind = ev[0]
        if kind == "content":
            content.append(ev[1])
        elif kind == "reasoning":
            reasoning.append(ev[1])
        elif kind == "tool_start":
            calls.append([ev[2], ev[3], []])
            ended.append(False)
            dropped.append(False)
        elif kind == "tool_args":
            if ev[1] < len(calls):
                calls[ev[1]][2].append(ev[2])
            else:
                malformed = True
        elif kind == "tool_end":
            if ev[1] < len(ended):
                ended[ev[1]] = True
            else:
                malformed = True
        elif kind == "dropped":
            if ev[1] < len(dropped):
                dropped[ev[1]] = True
            else:
                malformed = True
        elif kind == "unfinished":
            truncated = True
    if any(dropped):
        calls = [c for c, d in zip(calls, dropped) if not d]
        ended = [e for e, d in zip(ended, dropped) if not d]
    if not all(ended):
        if truncated:
            calls = [c for c, e in zip(calls, ended) if e]
        else:
            malformed = True
    return (
        "".join(content) if content else None,
        "".join(reasoning) if reasoning else None,
        [(c[0], c[1], "".join(c[2])) for c in calls],
        malformed,
        truncated,
    )  # type: ignore[misc]
