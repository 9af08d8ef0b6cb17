"""Between calls: the arms the families share (twin of ``rust/formats/between.rs``). The text
outside calls, read up to the next marker (``text_until``, every family). The markup after a call,
read alike by xml_params, xml_elements, functiongemma and tagged_json (``after_call``): after a
call stand whitespace, then one of the family's markers (the next call's start, the block's end,
...); whitespace before other text is content, and so is that text. A run past ``WS_MAX`` is
content too, as if other text stood where it passes the cap. Where only markup may follow a call
(functionary, named_json), other text is malformed (``markup_after_call``). Every machine's
``feed`` is the same loop (``drive``) around its one transition, ``step``."""

from __future__ import annotations

import re
from typing import Callable, Dict, List, Sequence, Tuple

from .event import Emitter
from .json import DONE, MORE, JsonScanner
from .scan import Markers, expect_capped, trailing_ws

# after_call() results: ("marker", which, j), ("wait", -1, j) or ("text", -1, j)
After = Tuple[str, int, int]


# What one transition did (Rust's `Next`): `(j, GO)`, it read up to `j` and the loop goes on from
# there (in the state it left); `(j, HOLD)`, it can decide nothing more now: `s[j:]` is held back
# and given again with the next delta.
GO, HOLD = False, True
Next = Tuple[int, bool]


def drive(s: str, step: Callable[[str, int, Emitter], Next], out: Emitter) -> int:
    """The loop every machine's ``feed`` runs: ``step(s, i, out)`` is one transition from position
    ``i``, called until the input is used up or a transition holds; the result is how much of
    ``s`` was consumed."""
    i, n = 0, len(s)
    while i < n:
        i, hold = step(s, i, out)
        if hold:
            return i
    return n


class Machine:
    """The base of every machine (Rust's ``Machine`` trait): ``step`` is the machine's one
    transition, ``feed`` runs it under ``drive``; ``finish`` takes the text held at the end."""

    def step(self, s: str, i: int, out: Emitter) -> Next:
        raise NotImplementedError

    def feed(self, s: str, out: Emitter) -> int:
        return drive(s, self.step, out)

    def finish(self, rest: str, out: Emitter) -> None:
        raise NotImplementedError

    def start_in_reasoning(self) -> None:
        """The prompt opened a reasoning block of the machine's own wire format: the output
        starts inside it. Machines without such a block ignore it."""


def transitions(machine: type, states: str) -> Dict[str, Callable[..., Next]]:
    """The transition that leaves each of ``states`` (names separated by spaces): the machine's
    ``on_<state>``, the state's name in snake case. A machine whose ``step`` looks its state up
    in this table reads as Rust's ``step``, one ``match`` of them."""
    return {st: getattr(machine, "on_" + _CAMEL.sub("_", st).lower()) for st in states.split()}


_CAMEL = re.compile(r"(?<=.)(?=[A-Z])")


def text_until(markers: Markers, s: str, i: int, out: Emitter) -> Tuple[int, int]:
    """The text arm every machine opens ``feed`` with: sends the text of ``s[i:]`` before the next
    of ``markers`` as content; ``(which, j)``: marker ``which`` followed and ``j`` is past it, or
    ``which == -1``: no marker, ``j`` is past the text sent and ``s[j:]`` is held back (it may
    still become one)."""
    kind, at, which = markers.find(s, i)
    out.content(s[i : i + at])
    if kind != "marker":
        return -1, i + at
    return which, i + at + len(markers.list[which])


class Held(List[str]):
    """The text held after a call, as parts (no string re-join per feed); ``n``, its length
    (Rust's ``ws.len()``: the run ``after_call`` caps by ``WS_MAX``), and ``trailing``, the
    whitespace at its end (Rust's ``trailing_ws(ws)``: the run ``markup_after_call`` caps)."""

    __slots__ = ("n", "trailing")

    def __init__(self) -> None:
        super().__init__()
        self.n = 0
        self.trailing = 0


def after_call(ws: Held, s: str, i: int, markers: Markers, out: Emitter) -> After:
    """Reads the text after a call (``s[i:]``), ``ws`` holding the whitespace read since the call
    ended (a run past ``WS_MAX`` reads as other text where it passes the cap); ``j`` is past what
    was read:

    - ``("marker", which, j)``: marker ``which`` follows the whitespace, ``j`` is past it (the
      whitespace and the marker are now at the end of ``ws``: the markup of the next call, content
      if its name fails);
    - ``("wait", -1, j)``: only whitespace (or whitespace and a marker's prefix): the whitespace
      was read into ``ws``; wait for more;
    - ``("text", -1, j)``: other text at ``j``: the held whitespace and the text before ``j`` were
      sent as content (``ws`` is emptied); plain text follows.
    """
    return _read_after(ws, s, i, markers, ws.n, out)


def markup_after_call(ws: Held, s: str, i: int, markers: Markers, out: Emitter) -> After:
    """``after_call`` where only markup may follow the call (functionary, named_json): other
    text, or whitespace past the cap, is malformed markup. ``("text", -1, j)``: the held text and
    the text before ``j`` were sent as content and the output is malformed. The cap counts the
    whitespace at the end of ``ws`` (it may hold a marker read before, as named_json's fence)."""
    after = _read_after(ws, s, i, markers, ws.trailing, out)
    if after[0] == "text":
        out.malformed = True
    return after


def _read_after(ws: Held, s: str, i: int, markers: Markers, held: int, out: Emitter) -> After:
    kind, a, b = expect_capped(s, markers, i, held)
    n, which = (b, a) if kind == "marker" else (a, -1)
    piece = s[i : i + n]
    if kind == "other":
        out.content("".join(ws) + piece)
        ws.clear()
        ws.n = ws.trailing = 0
        return ("text", -1, i + n)
    ws.append(piece)
    ws.n += n
    w = trailing_ws(piece)
    ws.trailing = ws.trailing + w if w == n else w
    return (kind, which, i + n)


def finish_after_call(rest: str, markers: Markers, nxt: Sequence[str], out: Emitter) -> None:
    """The end of the output after a call, ``rest`` being what was held back: whitespace and a
    cut-off block end are markup; the cut-off start of the next call (one of ``nxt``, and of none
    of the other ``markers``) is a truncated call."""
    call = any(m.startswith(rest) for m in nxt)
    other = any(m not in nxt and m.startswith(rest) for m in markers.list)
    if rest and call and not other:
        out.truncate(rest)


def stream_args(sc: JsonScanner, s: str, i: int, out: Emitter) -> Tuple[str, int]:
    """Streams a call's arguments object from ``s[i:]`` through ``sc`` (tagged_json,
    named_json): what the scanner takes goes out as arguments, as it comes; its end ends the call,
    an error marks the output malformed. ("ended", k), ("open", len(s) - i) or ("broken", k)."""
    r, k = sc.feed(s, i)
    if r == DONE:
        out.args(s[i : i + k])
        out.tool_end()
        return "ended", k
    if r == MORE:
        out.args(s[i:])
        return "open", len(s) - i
    out.args(s[i : i + k])
    out.malformed = True
    return "broken", k
