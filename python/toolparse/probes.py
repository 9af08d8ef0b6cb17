"""The probe conversations detection and inference render with a chat template.

Tools and probe turns have random names, parameters and values (from a seeded
:class:`random.Random`), so nothing in a render is mistaken for a marker. :func:`render_probes`
renders each probe's assistant turn with :func:`toolparse.chat_template.render_assistant` (in its
bounded worker process): strictly, the turn being the render past the generation prompt, or,
where the generation prompt pre-fills text the turn does not write, past the prefix both share,
backed off to a boundary (``prefix="boundary"``, with the registered reasoning formats' think
markers as the blocks a turn may reopen: they only place the turn's start, they are never kept).

The base probes (:func:`probes`): a turn with content and no call, one call, two calls, content
then a call, reasoning then a call, and a call with no arguments. :func:`held_out_probes` adds
turns inference does not fit from and checks a spec on: three calls, nested object and array
values, unicode, and a string value that looks like a marker.
"""

from __future__ import annotations

import random
import string
from dataclasses import dataclass, replace
from typing import Any, Callable, Dict, List, Optional, Tuple

from . import spec as _spec

__all__ = [
    "FATAL",
    "Probe",
    "as_shown",
    "held_out_probes",
    "is_fatal",
    "probes",
    "render",
    "render_probes",
    "split_turns",
]

#: Errors from the renderer that are about the template as a whole, not one probe.
FATAL = (
    "invalid chat template",
    "took more than",
    "too much memory",
    "wrote more than",
    "recursed too deeply",
    "render process failed",
    "bad answer from the render process",
)

NO_TOOLS = "the template does not render tools"


@dataclass(frozen=True)
class Probe:
    """One assistant turn: its content, reasoning and calls ((name, arguments) pairs)."""

    name: str
    content: Optional[str]
    reasoning: Optional[str]
    calls: Tuple[Tuple[str, Dict[str, Any]], ...]


def _word(rng: random.Random, n: int) -> str:
    return "".join(rng.choice(string.ascii_lowercase) for _ in range(n))


def _tool(name: str, props: Dict[str, Any], required: List[str]) -> Dict[str, Any]:
    return {
        "type": "function",
        "function": {
            "name": name,
            "parameters": {"type": "object", "properties": props, "required": required},
        },
    }


def probes(rng: random.Random) -> Tuple[List[Dict[str, Any]], List[Probe]]:
    """Three tools with random names and parameters, and the six probe turns using them."""
    f1, f2, f3 = (f"{_word(rng, 5)}_{_word(rng, 6)}" for _ in range(3))
    p1, p2, p3 = (_word(rng, 7) for _ in range(3))
    tools = [
        _tool(f1, {p1: {"type": "string"}, p2: {"type": "integer"}}, [p1]),
        _tool(f2, {p3: {"type": "string"}}, [p3]),
        _tool(f3, {}, []),
    ]

    def text() -> str:
        return " ".join(_word(rng, rng.randint(3, 8)) for _ in range(4)).capitalize() + "."

    def args1() -> Dict[str, Any]:
        return {p1: f"{_word(rng, 5)} {_word(rng, 4)}", p2: rng.randint(10, 999)}

    turns = [
        Probe("no call", text(), None, ()),
        Probe("one call", None, None, ((f1, args1()),)),
        Probe("two calls", None, None, ((f1, args1()), (f2, {p3: _word(rng, 6)}))),
        Probe("content then a call", text(), None, ((f2, {p3: _word(rng, 6)}),)),
        Probe("reasoning then a call", None, text(), ((f1, args1()),)),
        Probe("no arguments", None, None, ((f3, {}),)),
    ]
    return tools, turns


def held_out_probes(
    rng: random.Random, tools: List[Dict[str, Any]], markers: Tuple[str, ...] = ()
) -> Tuple[List[Dict[str, Any]], List[Probe]]:
    """More tools and turns, for checking a spec on renders it was not fitted from: three calls,
    nested object and array values, unicode text and values, and a string value that holds
    ``markers`` (text that looks like a marker; ``<tool_call>`` when none is given)."""
    f1 = tools[0]["function"]["name"]
    p1, p2 = list(tools[0]["function"]["parameters"]["properties"])
    f2 = tools[1]["function"]["name"]
    (p3,) = list(tools[1]["function"]["parameters"]["properties"])
    f4 = f"{_word(rng, 5)}_{_word(rng, 6)}"
    q1, q2, q3 = (_word(rng, 7) for _ in range(3))
    f5 = _word(rng, 8)
    k1, v1, k2 = _word(rng, 4), _word(rng, 5), _word(rng, 4)
    # the nested object's schema is declared, as real tools declare theirs: a template that
    # writes values as untyped text (MiniMax M3's elements, an array as <item> elements) loses
    # what an untyped value was, and the schema is what tells an array (and 1 from "1") back
    ints = {"type": "array", "items": {"type": "integer"}}
    inner = {"type": "object", "properties": {k1: {"type": "string"}, k2: ints}}
    more = [
        *tools,
        _tool(f4, {q1: inner, q2: ints}, [q1]),
        _tool(f5, {q3: {"type": "boolean"}}, []),
    ]
    look = " ".join(markers[:3]) if markers else "<tool_call>"
    nested = {q1: {k1: v1, k2: [1, 2]}, q2: [3, 5, 8]}
    turns = [
        Probe(
            "three calls",
            None,
            None,
            (
                (f1, {p1: _word(rng, 6), p2: rng.randint(10, 99)}),
                (f2, {p3: _word(rng, 6)}),
                (f1, {p1: _word(rng, 6), p2: rng.randint(10, 99)}),
            ),
        ),
        Probe("nested values", None, None, ((f4, nested),)),
        Probe("unicode", "Voilà, 東京 🚀.", None, ((f2, {p3: f"{_word(rng, 4)} — 東京 é"}),)),
        Probe("marker-like value", None, None, ((f2, {p3: f"see {look} here"}),)),
    ]
    return more, turns


def is_fatal(e: ValueError) -> bool:
    """Whether a render error is about the template as a whole (not one probe)."""
    return any(s in str(e) for s in FATAL)


def _blocks() -> Tuple[Tuple[str, str], ...]:
    return tuple((r.start, r.end) for r in _spec.REASONING.values() if r.start)


def render(template: str, probe: Probe, tools: Any, common: Dict[str, Any]) -> Any:
    """One probe's assistant turn (a :class:`toolparse.chat_template.RenderedTurn`): strictly
    past the generation prompt, else past the shared prefix backed off to a boundary."""
    from .chat_template import render_assistant

    calls = [{"function": {"name": n, "arguments": a}} for n, a in probe.calls]
    kwargs = dict(
        content=probe.content, reasoning=probe.reasoning, tool_calls=calls, tools=tools, **common
    )
    try:
        return render_assistant(template, **kwargs)
    except ValueError as e:
        if is_fatal(e):
            raise
    # the generation prompt pre-fills text the turn does not write (an opened think block the
    # history form leaves out): the turn is what follows the prefix both renders share
    return render_assistant(template, prefix="boundary", blocks=_blocks(), **kwargs)


def split_turns(rendered: List[Tuple[Probe, Any]]) -> List[Tuple[Probe, Any]]:
    """Each render, or two where the template writes a turn's content and its calls as two
    assistant turns (Nemotron Nano v2 ends the turn after the content and opens another for the
    calls: ``CONTENT<stop token>HEADER<calls>``, the header a line of the generation prompt): the
    model writes each of them as a turn of its own (it stops after the first), so each is read as
    one, the content turn with no call and the calls turn with no content."""
    from .chat_template import stop_token

    out: List[Tuple[Probe, Any]] = []
    for probe, turn in rendered:
        stop = stop_token(turn.turn_end)
        at = turn.text.find(stop) if stop and probe.content and probe.calls else -1
        head, rest = turn.text[:at], turn.text[at + len(stop) :].lstrip()
        line = rest.split("\n", 1)[0]
        if (
            at < 0
            or probe.content not in head
            or any(name in head or name not in rest for name, _ in probe.calls)
            or not line.strip()
            or line + "\n" not in turn.prompt
        ):
            out.append((probe, turn))
            continue
        first = Probe(probe.name + " (its content)", probe.content, None, ())
        second = Probe(probe.name + " (its calls)", None, probe.reasoning, probe.calls)
        out.append((first, replace(turn, text=head)))
        out.append((second, replace(turn, text=rest[len(line) + 1 :])))
    return out


def render_all(
    template: str, tools: Any, turns: List[Probe], common: Dict[str, Any], first_fatal: bool
) -> Tuple[List[Tuple[Probe, Any]], List[Tuple[str, str]]]:
    """Each turn rendered, or skipped with the reason (the template refused it: two calls in a
    one-call template). A fatal error raises; so does any error of the first turn when
    ``first_fatal``. A turn the template writes as two is two (:func:`split_turns`)."""
    rendered: List[Tuple[Probe, Any]] = []
    skipped: List[Tuple[str, str]] = []
    for i, probe in enumerate(turns):
        try:
            rendered.append((probe, render(template, probe, tools, common)))
        except ValueError as e:
            if (first_fatal and i == 0) or is_fatal(e):
                raise
            skipped.append((probe.name, str(e)))
    return split_turns(rendered), skipped


def render_probes(
    template: str, rng: random.Random, common: Dict[str, Any]
) -> Tuple[Any, List[Tuple[Probe, Any]], List[Tuple[str, str]], str]:
    """The tools, the rendered probes, the skipped ones, and "" or :data:`NO_TOOLS` when the
    prompt is the same without the tools."""
    from .chat_template import render_bounded

    tools, turns = probes(rng)
    rendered, skipped = render_all(template, tools, turns, common, True)
    # does the template show the tools at all? the first probe's prompt with and without them
    history = [{"role": "user", "content": "What is the weather in Paris?"}]
    try:
        shown = rendered[0][1].prompt != render_bounded(
            template, history, add_generation_prompt=True, **common
        )
    except ValueError as e:  # a template that needs its tools (iterates them unchecked)
        if is_fatal(e):
            raise
        shown = True
    return tools, rendered, skipped, "" if shown else NO_TOOLS


def _first_call(probe: Probe, text: str) -> Optional[Probe]:
    if len(probe.calls) > 1:
        return replace(probe, calls=probe.calls[:1])
    return None


def _content_as_reasoning(probe: Probe, text: str) -> Optional[Probe]:
    if probe.content and probe.calls and not probe.reasoning and probe.content in text:
        return replace(probe, content=None, reasoning=probe.content)
    return None


#: the simpler probes a render may equal, with what the template loses, tried in turn
_SIMPLER: Tuple[Tuple[str, Callable[[Probe, str], Optional[Probe]]], ...] = (
    ("writes the first call of a turn only", _first_call),
    ("writes a call turn's content as its reasoning", _content_as_reasoning),
)


def as_shown(
    template: str, tools: Any, rendered: List[Tuple[Probe, Any]], common: Dict[str, Any]
) -> Tuple[List[Tuple[Probe, Any]], List[Tuple[str, str]]]:
    """What a render shows, where the template writes a probe exactly as it writes a simpler one.

    Some templates lose part of a turn: gpt-oss and GigaChat 3 write only the first of a turn's
    calls, and gpt-oss writes the content of a turn with calls on the analysis channel, where it
    writes reasoning. Such a render is the very text of a simpler probe, and no format can read
    more out of it than that probe: ``rendered`` comes back with each probe whose render equals
    the render of its first call only, or of its content given as reasoning, replaced by that
    probe (checked by rendering it: never assumed), and (probe, what the template loses) for each
    one replaced. A render that differs from every simpler probe's keeps its probe."""
    out = []
    lost: List[Tuple[str, str]] = []
    for probe, turn in rendered:
        for why, simpler in _SIMPLER:
            alt = simpler(probe, turn.text)
            if alt is None:
                continue
            try:
                again = render(template, alt, tools, common)
            except ValueError:
                continue
            if again.text == turn.text:
                lost.append((probe.name, why))
                probe = alt
        out.append((probe, turn))
    return out, lost
