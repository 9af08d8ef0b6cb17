"""Pure-Python reference twins of the Rust parsers (twin of ``rust/formats/mod.rs``).

Each ``reference/<name>.py`` mirrors ``rust/formats/<name>.rs``: same states, same events, same
deltas per feed. They are the oracle for the differential tests and the baseline of the benches.
"""

from __future__ import annotations

from typing import Callable, Dict, List, Optional, Protocol, Tuple

from .event import Delta, Emitter, Extracted, delta_from_events, extracted_from_events
from .json import DONE, ERROR, MORE, Calls

# function name -> parameter name -> JSON Schema type ("" when it has none)
ToolTypes = Dict[str, Dict[str, str]]


class Machine(Protocol):
    def feed(self, s: str, out: Emitter) -> int: ...

    def finish(self, rest: str, out: Emitter) -> None: ...


def _registry() -> Dict[str, Tuple[Callable[[ToolTypes], Machine], str]]:
    from . import llama3_json, mistral, tagged_json

    # One line per format, in the same order as rust/formats/mod.rs: the machine, and how the
    # caller makes ids for calls whose format does not carry one ("chatcmpl" or "mistral").
    return {
        "hermes": (tagged_json.hermes, "chatcmpl"),
        "llama3_json": (llama3_json.new, "chatcmpl"),
        "mistral": (mistral.new, "mistral"),
    }



def list_formats() -> List[str]:
    return list(REGISTRY)


def id_style(format: str) -> str:
    """How ids are made for calls of ``format`` that carry none."""
    return REGISTRY[format][1]


class Parser:
    """One response's parser (same interface as ``toolparse._core.Parser``)."""

    def __init__(self, format: str, tools: Optional[ToolTypes] = None) -> None:
        entry = REGISTRY.get(format)
        if entry is None:
            raise ValueError(
                f"toolparse[{format}]: unknown format; known formats: {', '.join(REGISTRY)}"
            )
        self.format = format
        self._machine = entry[0](tools or {})
        self._held = ""
        self._out = Emitter()
        self._finished = False
        self._fed = 0

    def feed(self, text: str) -> Optional[Delta]:
        if self._finished:
            raise ValueError(f"toolparse[{self.format}] at offset {self._fed}: feed() after finish()")
        self._fed += len(text.encode("utf-8", "surrogatepass"))
        buf = self._held + text if self._held else text
        n = self._machine.feed(buf, self._out)
        self._held = buf[n:]
        return delta_from_events(self._out.take())

    def finish(self) -> Optional[Delta]:
        if not self._finished:
            self._finished = True
            held, self._held = self._held, ""
            self._machine.finish(held, self._out)
            self._out.finish()
        return delta_from_events(self._out.take())

    @property
    def malformed(self) -> bool:
        return self._out.malformed


def extract(format: str, text: str, tools: Optional[ToolTypes] = None) -> Extracted:
    """Non-streaming: the same machine fed the whole text at once."""
    p = Parser(format, tools)
    m = p._machine
    out = p._out
    n = m.feed(text, out)
    m.finish(text[n:], out)
    out.finish()
    return extracted_from_events(out.take(), out.malformed)


class Region:
    """A region of tool-call JSON after a start marker. Until the first call has started, the
    text read is kept, so a region that turns out malformed (or, when ``tentative``, not a call at
    all) goes back to content whole. ``feed`` returns ("more", 0), ("done", n) or ("failed", n)."""

    def __init__(self, calls: Calls, opener: str, tentative: bool) -> None:
        self.calls = calls
        self.raw = [opener]
        self.tentative = tentative

    def feed(self, s: str, out: Emitter) -> tuple:
        r, n = self.calls.feed(s, out)
        used = len(s) if r == MORE else n
        if not self.calls.started():
            self.raw.append(s[:used])
        else:
            self.raw = []
        if r == MORE:
            return ("more", 0)
        if r == DONE:
            if not self.calls.is_call():
                # Plain JSON that is not a call: it was content all along.
                out.content("".join(self.raw))
                self.raw = []
            return ("done", n)
        assert r == ERROR
        self._fail(out)
        return ("failed", n)

    def _fail(self, out: Emitter) -> None:
        if self.calls.started():
            out.malformed = True
        else:
            if not self.tentative:
                out.malformed = True
            out.content("".join(self.raw))
            self.raw = []

    def finish(self, rest: str, out: Emitter) -> None:
        self.raw.append(rest)
        self._fail(out)

    def is_call(self) -> bool:
        return self.calls.is_call()


# Built last: the format modules import Region and ToolTypes from this package.
REGISTRY = _registry()
