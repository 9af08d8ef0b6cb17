"""Stream events: a parser's output as the events an NDJSON or SSE client consumes.

``toolparse.events(stream, deltas)`` feeds the model's text deltas to a toolparse stream and
yields, in the order the text has them:

* :class:`TextDeltaEvent` / :class:`ReasoningDeltaEvent`: content and reasoning text (adjacent
  pieces of one delta are merged into one event);
* :class:`ToolCallsEvent`: one per tool call, holding that call complete (id, name, whole
  arguments), as soon as its end is seen in the text (its end marker, the end of its JSON, the end
  of the output);
* then, at the end, :class:`ErrorEvent` (``code="truncated"``) when the output ended inside a call
  (max_tokens): that call never completes, so it has no ToolCallsEvent;
* and last :class:`DoneEvent`, ``finish_reason`` "tool_calls" when a call completed, "length"
  after a truncation, "stop" otherwise (or the one the caller gives).

The events are the same whatever the splitting of the text into deltas (only how the text is cut
into text events differs; joined, the text is the same): each delta is fed to the parser one
character at a time, and a call is complete when the parser closes it (``stream.open_call``
moves on), which happens at the same character of the text however it was split.
"""

from __future__ import annotations

from typing import Any, Dict, Iterable, Iterator, List, Optional, Union

from .models import (
    DoneEvent,
    ErrorEvent,
    FunctionCall,
    ReasoningDeltaEvent,
    TextDeltaEvent,
    ToolCall,
    ToolCallsEvent,
)
from .parser import ToolCallStream, ToolParser

__all__ = ["Event", "events"]

Event = Union[TextDeltaEvent, ReasoningDeltaEvent, ToolCallsEvent, DoneEvent, ErrorEvent]

_tool_call_fast = ToolCall._fast
_function_call_fast = FunctionCall._fast


class _Calls:
    """The calls of one stream as they build up: id, name and argument fragments per index."""

    def __init__(self, stream: ToolCallStream) -> None:
        self.new_id = stream.parser.new_id
        self.calls: Dict[int, List[Any]] = {}
        self.completed = 0

    def add(self, fragments: List[Any]) -> None:
        for index, id, name, args in fragments:
            call = self.calls.get(index)
            if call is None:
                # A call's first fragment carries its name (the streaming protocol).
                call = [id if id is not None else self.new_id(), name or "", []]
                self.calls[index] = call
            if args:
                call[2].append(args)

    def complete(self, index: int) -> ToolCallsEvent:
        id, name, parts = self.calls.pop(index)
        self.completed += 1
        tc = _tool_call_fast(id, _function_call_fast(name, "".join(parts)))
        return ToolCallsEvent.model_construct(type="tool_calls", tool_calls=[tc])

    def name(self, index: int) -> str:
        call = self.calls.get(index)
        return call[1] if call is not None else ""


def events(
    stream: Union[ToolCallStream, ToolParser],
    deltas: Iterable[str],
    *,
    finish_reason: Optional[str] = None,
) -> Iterator[Event]:
    """Feeds ``deltas`` (the model output's text, in pieces) to ``stream`` and yields the stream
    events (see the module docstring), then finishes the stream.

    ``stream``: a new :class:`ToolCallStream` (``parser.stream()``), or a :class:`ToolParser`
    to make one from; it must not have been fed yet. The events of a delta are yielded once that
    delta is fed, so a client sees them as the text arrives. ``finish_reason``: the
    :class:`DoneEvent`'s, instead of the one derived from the calls and the truncation.

    Raises ``TypeError`` for a ``stream`` of the wrong type or a delta that is not a ``str``.
    """
    if isinstance(stream, ToolParser):
        stream = stream.stream()
    elif not isinstance(stream, ToolCallStream):
        raise TypeError(
            f"stream must be a toolparse ToolCallStream or ToolParser, not {type(stream).__name__}"
        )
    if finish_reason is not None and not isinstance(finish_reason, str):
        raise TypeError(f"finish_reason must be a str or None, not {type(finish_reason).__name__}")
    return _events(stream, deltas, finish_reason)


def _events(
    stream: ToolCallStream, deltas: Iterable[str], finish_reason: Optional[str]
) -> Iterator[Event]:
    core = stream._core
    feed = core.feed
    calls = _Calls(stream)
    open_call: Optional[int] = None
    out: List[Any] = []  # the events of the current delta; text as ["text"|"reasoning", parts]

    def text(kind: str, s: str) -> None:
        if out and isinstance(out[-1], list) and out[-1][0] == kind:
            out[-1][1].append(s)
        else:
            out.append([kind, [s]])

    def apply(d: Any, now_open: Optional[int]) -> None:
        nonlocal open_call
        content, reasoning, fragments = d if d is not None else (None, None, None)
        if fragments:
            calls.add(fragments)
        if open_call is not None and now_open != open_call:
            out.append(calls.complete(open_call))
        open_call = now_open
        # Text after the call that just ended; reasoning comes before content (think first).
        if reasoning:
            text("reasoning", reasoning)
        if content:
            text("text", content)

    for delta in deltas:
        if not isinstance(delta, str):
            raise TypeError(f"every delta must be a str, not {type(delta).__name__}")
        for ch in delta:
            d = feed(ch)
            now_open = core.open_call
            if d is not None or now_open != open_call:
                apply(d, now_open)
        if out:
            yield from _flush(out)
    d = core.finish()
    unfinished = core.unfinished_call
    apply(d, unfinished)
    yield from _flush(out)
    truncated = bool(core.truncated)
    if truncated:
        if unfinished is not None:
            name = calls.name(unfinished)
            message = f"the output ended inside tool call {unfinished} ({name}): it never completed"
        else:
            message = "the output ended inside tool-call markup; no started call was cut off"
        yield ErrorEvent(message=message, code="truncated")
    if finish_reason is None:
        finish_reason = "length" if truncated else ("tool_calls" if calls.completed else "stop")
    yield DoneEvent(finish_reason=finish_reason)


def _flush(out: List[Any]) -> Iterator[Event]:
    for ev in out:
        if isinstance(ev, list):
            kind, parts = ev
            s = "".join(parts)
            if kind == "text":
                yield TextDeltaEvent.model_construct(type="text_delta", text=s)
            else:
                yield ReasoningDeltaEvent.model_construct(type="reasoning_delta", text=s)
        else:
            yield ev
    out.clear()
