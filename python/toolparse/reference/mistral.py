"""Mistral (twin of ``rust/formats/mistral.rs``): ``[TOOL_CALLS]`` followed by a JSON array of
calls (before v11), or by ``name{...}`` / ``name[ARGS]{...}`` (v11 and later), repeated."""

from __future__ import annotations

import re
from typing import Optional

from . import Region, ToolTypes
from .event import Emitter
from .json import CALL_KEYS, DONE, MORE, Calls, JsonScanner
from .scan import Markers, expect, ws_len

BOT = Markers(["[TOOL_CALLS]"])
ARGS = Markers(["[ARGS]"])

_NAME = re.compile(r"[A-Za-z0-9_.\-]*")


def is_name_char(c: str) -> bool:
    return c.isascii() and (c.isalnum() or c in "_-.")


def new(_: ToolTypes) -> Mistral:
    return Mistral()


class Mistral:
    def __init__(self) -> None:
        # Text | Form | Json | Name | Args | Fallback
        self.st = "Text"
        self.raw = ""  # Form / Name: the markup read so far
        self.name = ""  # Name
        self.region: Optional[Region] = None  # Json
        self.sc: Optional[JsonScanner] = None  # Args

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
                    self.st, self.raw = "Form", BOT.list[0]
                else:
                    return i + at
            elif st == "Form":
                ws = ws_len(s, i)
                self.raw += s[i : i + ws]
                i += ws
                if i == n:
                    return n
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
                k = _NAME.match(s, i).end() - i  # type: ignore[union-attr]
                self.name += s[i : i + k]
                self.raw += s[i : i + k]
                i += k
                if i == n:
                    return n
                # Between the name and the arguments: whitespace and an optional `[ARGS]`.
                kind, a, b = expect(s, ARGS, i)
                if kind == "marker":
                    w = ws_len(s, i + b)
                    if i + b + w == n:
                        return i  # hold `[ARGS]` and what follows until `{` is seen
                    skip, opened = b + w, s.startswith("{", i + b + w)
                elif kind == "wait":
                    return i
                else:
                    skip, opened = a, s.startswith("{", i + a)
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
        elif st in ("Form", "Name"):
            # Cut off before the arguments: the call's markup so far.
            out.truncate(self.raw + rest)
        elif st == "Json":
            self.region.finish(rest, out)  # type: ignore[union-attr]
        else:  # Args
            out.truncate("")
