"""Mistral (twin of ``rust/formats/mistral.rs``): ``[TOOL_CALLS]`` followed by a JSON array of
calls (before v11), or by ``name{...}`` / ``name[ARGS]{...}`` (v11 and later), repeated.

Newer tokenizers (v11 with call ids: Mistral Small 3.2, Magistral, Devstral) let the model write
the call's id: ``[TOOL_CALLS]name[CALL_ID]id[ARGS]{...}`` (mistral-common's
``_decode_tool_call_v11_with_call_id``; its chat templates render ``name + '[CALL_ID]' + id +
'[ARGS]' + arguments``). That id is the call's id (no id is generated for it). An id is ASCII
letters and digits (mistral-common and vLLM accept 9 of them; any length from 1 to ``ID_MAX`` is
taken here); whitespace may surround it as it may the name, and ``[ARGS]`` after it may be missing
as after a name. An empty id, a longer one, or another character before ``[ARGS]``/``{`` is
malformed markup: the output falls back to content. An id an earlier call of the output already
has is not reused (ids must tell calls apart): that call gets a generated one.

Hold-back is bounded (see ``scan``): a name longer than ``NAME_MAX`` characters, or a run of more
than ``WS_MAX`` whitespace characters after ``[TOOL_CALLS]``, around a name or an id, or after
``[ARGS]``, is malformed markup (the output falls back to content). The JSON form is a ``Region``.
"""

from __future__ import annotations

import re
from typing import Optional, Set, Tuple

from . import Region, ToolTypes
from .event import Emitter
from .json import CALL_KEYS, DONE, MORE, Calls, JsonScanner
from .scan import NAME_MAX, WS_MAX, Markers, expect, ws_len

BOT = Markers(["[TOOL_CALLS]"])
ARGS = Markers(["[ARGS]"])
# What may follow a name: `[ARGS]`, or `[CALL_ID]` and the id.
AFTER_NAME = Markers(["[ARGS]", "[CALL_ID]"])
CALL_ID = 1

# The longest call id accepted, in characters.
ID_MAX = 64

_NAME = re.compile(r"[A-Za-z0-9_.\-]*")
_ID = re.compile(r"[A-Za-z0-9]*")


def is_name_char(c: str) -> bool:
    return c.isascii() and (c.isalnum() or c in "_-.")


def args_open(s: str, at: int) -> Optional[Tuple[int, bool]]:
    """Where the arguments open after a name or an id (``s[at:]``: the text that follows it):
    None to wait for more text, else the characters up to ``{`` and whether ``{`` is there.
    Whitespace past ``WS_MAX`` (before or after ``[ARGS]``) is not: it ends right after the first
    character over the cap."""
    if ws_len(s, at) > WS_MAX:
        return WS_MAX + 1, False
    kind, a, b = expect(s, ARGS, at)
    if kind == "marker":
        w = ws_len(s, at + b)
        if w > WS_MAX:
            return b + WS_MAX + 1, False
        if at + b + w == len(s):
            return None  # hold `[ARGS]` and what follows until `{` is seen
        return b + w, s.startswith("{", at + b + w)
    if kind == "wait":
        return None
    return a, s.startswith("{", at + a)


def new(_: ToolTypes) -> Mistral:
    return Mistral()


class Mistral:
    def __init__(self) -> None:
        # Text | Form | Json | Name | Id | Args | Fallback
        self.st = "Text"
        self.raw = ""  # Form / Name / Id: the markup read so far
        self.name = ""  # Name, Id
        self.id = ""  # Id: the id the model gave the call
        self.ids: Set[str] = set()  # the ids the model gave earlier calls
        self.region: Optional[Region] = None  # Json
        self.sc: Optional[JsonScanner] = None  # Args
        self.ws = 0  # Form, Id: the whitespace read so far (capped by WS_MAX)

    def feed(self, s: str, out: Emitter) -> int:
        i = 0
        n = len(s)
        while i < n:
            st = self.st
            if st == "Text":
                kind, at, _ = BOT.find(s, i)
                out.content(s[i : i + at])
                if kind == "marker":
                    i += at + len(BOT.list[0])
                    self.st, self.raw, self.ws = "Form", BOT.list[0], 0
                else:
                    return i + at
            elif st == "Form":
                # (At most one character past the cap is read: then it is malformed.)
                ws = min(ws_len(s, i), WS_MAX + 1 - self.ws)
                self.raw += s[i : i + ws]
                i += ws
                self.ws += ws
                if self.ws > WS_MAX:
                    c = " "
                elif i == n:
                    return n
                else:
                    c = s[i]
                raw, self.raw = self.raw, ""
                if c == "[":
                    self.st, self.region = "Json", Region(Calls.array_of(CALL_KEYS), raw, False)
                elif c == "{":
                    self.st, self.region = (
                        "Json",
                        Region(Calls.object(CALL_KEYS, False), raw, False),
                    )
                elif is_name_char(c):
                    self.st, self.raw, self.name = "Name", raw, ""
                else:
                    out.malformed = True
                    out.content(raw)
                    self.st = "Fallback"
            elif st == "Json":
                r, k = self.region.feed(s, out, i)  # type: ignore[union-attr]
                if r == "more":
                    return n
                i += k
                self.st = "Text" if r == "done" else "Fallback"
            elif st == "Name":
                # (At most one character past the cap is read: then it is malformed.)
                k = _NAME.match(s, i).end() - i  # type: ignore[union-attr]
                k = min(k, NAME_MAX + 1 - len(self.name))
                self.name += s[i : i + k]
                self.raw += s[i : i + k]
                i += k
                if len(self.name) > NAME_MAX:
                    out.malformed = True
                    out.content(self.raw)
                    self.st = "Fallback"
                    continue
                if i == n:
                    return n
                # Between the name and the arguments: whitespace and an optional `[ARGS]`,
                # or `[CALL_ID]` and the id (whitespace past the cap: see `args_open`).
                if ws_len(s, i) <= WS_MAX:
                    kind, a, b = expect(s, AFTER_NAME, i)
                    if kind == "marker" and a == CALL_ID and self.name:
                        self.raw += s[i : i + b]
                        i += b
                        self.st, self.id, self.ws = "Id", "", 0
                        continue
                    if kind == "wait":
                        return i
                o = args_open(s, i)
                if o is None:
                    return i
                skip, opened = o
                if not opened or not self.name:
                    self.raw += s[i : i + skip]
                    out.malformed = True
                    out.content(self.raw)
                    i += skip
                    self.st = "Fallback"
                    continue
                name, self.name = self.name, ""
                out.tool_start(None, name)
                i += skip
                self.st, self.sc = "Args", JsonScanner()
            elif st == "Id":
                if not self.id:
                    w = min(ws_len(s, i), WS_MAX + 1 - self.ws)
                    self.raw += s[i : i + w]
                    i += w
                    self.ws += w
                    if self.ws > WS_MAX:
                        out.malformed = True
                        out.content(self.raw)
                        self.st = "Fallback"
                        continue
                # (At most one character past the cap is read: then it is malformed.)
                k = min(_ID.match(s, i).end() - i, ID_MAX + 1 - len(self.id))  # type: ignore[union-attr]
                self.id += s[i : i + k]
                self.raw += s[i : i + k]
                i += k
                if len(self.id) <= ID_MAX and i == n:
                    return n
                # Between the id and the arguments: whitespace and an optional `[ARGS]`.
                if len(self.id) > ID_MAX:
                    skip, opened = 0, False
                else:
                    o = args_open(s, i)
                    if o is None:
                        return i
                    skip, opened = o
                if not opened or not self.id:
                    self.raw += s[i : i + skip]
                    out.malformed = True
                    out.content(self.raw)
                    i += skip
                    self.st = "Fallback"
                    continue
                name, self.name, call_id, self.id = self.name, "", self.id, ""
                if call_id in self.ids:
                    out.tool_start(None, name)
                else:
                    self.ids.add(call_id)
                    out.tool_start(call_id, name)
                i += skip
                self.st, self.sc = "Args", JsonScanner()
            elif st == "Args":
                r, k = self.sc.feed(s, i)  # type: ignore[union-attr]
                if r == DONE:
                    out.args(s[i : i + k])
                    out.tool_end()
                    i += k
                    self.st = "Text"
                elif r == MORE:
                    out.args(s[i:])
                    return n
                else:
                    out.args(s[i : i + k])
                    out.malformed = True
                    i += k
                    self.st = "Fallback"
            else:  # Fallback: the driver makes the rest content
                return i
        return n

    def finish(self, rest: str, out: Emitter) -> None:
        st = self.st
        if st in ("Text", "Fallback"):
            out.content(rest)
        elif st in ("Form", "Name", "Id"):
            # Cut off before the arguments (in the name or the id): the call's markup so far.
            out.truncate(self.raw + rest)
        elif st == "Json":
            self.region.finish(rest, out)  # type: ignore[union-attr]
        else:  # Args
            out.truncate("")
