"""Rebuild complete tool calls from streamed deltas, checking the streaming protocol.

The protocol (as in vLLM's OpenAI server):

* every delta carries something: content, reasoning or at least one tool call fragment
  (a delta with only a ``role`` is accepted: it is the usual first chunk of a response);
* the first fragment of a call carries its ``index``, a non-empty ``id`` (unique in the response),
  ``type="function"`` and the full, non-empty ``function.name``, optionally with a first
  ``arguments`` fragment;
* later fragments of that call carry only ``index`` and a non-empty ``arguments`` fragment: never
  the ``id``, ``type`` or ``name`` again;
* indices start at 0 and each new call takes the next index (no skipping).

Any violation raises :class:`StreamingProtocolError` (a ``ValueError``), and the offending delta is
not applied: the reconstructor keeps the state it had before it.
"""

from __future__ import annotations

from typing import Any, Dict, Iterable, List, Mapping, Optional, Tuple, Union

from .models import DeltaMessage, ExtractedToolCallInformation, FunctionCall, ToolCall

__all__ = ["StreamingProtocolError", "StreamingToolReconstructor"]


class StreamingProtocolError(ValueError):
    """A streamed delta broke the tool-call streaming protocol."""


class StreamingToolReconstructor:
    """Accumulates :class:`~toolparse.models.DeltaMessage` objects into content, reasoning and
    complete :class:`~toolparse.models.ToolCall` objects, validating the protocol on the way.

    ``strict_order=True`` also rejects an arguments fragment for a call other than the latest
    started one (every call must be finished before the next one starts).
    """

    def __init__(self, strict_order: bool = False) -> None:
        self.strict_order = strict_order
        self._content: List[str] = []
        self._reasoning: List[str] = []
        self._ids: List[str] = []
        self._names: List[str] = []
        self._arguments: List[List[str]] = []
        self._id_set: Dict[str, int] = {}
        self.deltas_seen = 0

    # ------------------------------------------------------------------------------------------
    # results
    # ------------------------------------------------------------------------------------------

    @property
    def tool_calls(self) -> List[ToolCall]:
        """The tool calls so far, with their arguments concatenated (``""`` stays ``""``)."""
        return [
            ToolCall._fast(call_id, FunctionCall._fast(name, "".join(fragments)))
            for call_id, name, fragments in zip(self._ids, self._names, self._arguments)
        ]

    @property
    def other_content(self) -> str:
        """All content text so far (everything that is not a tool call or reasoning)."""
        return "".join(self._content)

    @property
    def reasoning(self) -> str:
        """All reasoning text so far."""
        return "".join(self._reasoning)

    def to_extracted(self) -> ExtractedToolCallInformation:
        """The accumulated result in the non-streaming shape (``content=None`` and
        ``reasoning=None`` when empty)."""
        calls = self.tool_calls
        return ExtractedToolCallInformation.model_validate(
            {
                "tools_called": bool(calls),
                "tool_calls": calls,
                "content": self.other_content or None,
                "reasoning": self.reasoning or None,
            }
        )

    # ------------------------------------------------------------------------------------------
    # input
    # ------------------------------------------------------------------------------------------

    def append_delta(self, delta: Union[DeltaMessage, Mapping[str, Any]]) -> None:
        """Check one delta against the protocol and add it.

        Raises :class:`StreamingProtocolError` (and leaves the state unchanged) on a violation.
        A mapping is validated into a :class:`DeltaMessage` first.
        """
        if not isinstance(delta, DeltaMessage):
            if not isinstance(delta, Mapping):
                raise TypeError(f"expected a DeltaMessage, got {type(delta).__name__}")
            delta = DeltaMessage.model_validate(delta)
        number = self.deltas_seen
        content = delta.content
        reasoning = delta.reasoning
        tool_calls = delta.tool_calls
        if not content and not reasoning and not tool_calls and delta.role is None:
            raise StreamingProtocolError(
                f"delta #{number} carries nothing (no content, no reasoning, no tool calls)"
            )

        # Validate every fragment before touching the state, so a bad delta changes nothing.
        started = len(self._ids)
        new_calls: List[Tuple[str, str]] = []  # (id, name) of calls this delta starts
        pending_ids: Dict[str, int] = {}  # their ids -> index
        fragments: List[Tuple[int, str]] = []  # (index, arguments fragment)
        for position, call in enumerate(tool_calls or ()):
            where = f"delta #{number}, tool call fragment {position}"
            index = call.index
            function = call.function
            name = function.name if function is not None else None
            arguments = function.arguments if function is not None else None
            if not isinstance(index, int) or isinstance(index, bool) or index < 0:
                raise StreamingProtocolError(
                    f"{where}: index must be a non-negative integer, got {index!r}"
                )
            total = started + len(new_calls)
            if index == total:  # a new call
                if not call.id:
                    raise StreamingProtocolError(
                        f"{where}: the first delta of tool call {index} has no id"
                    )
                if call.type != "function":
                    raise StreamingProtocolError(
                        f"{where}: the first delta of tool call {index} must have "
                        f"type='function', got {call.type!r}"
                    )
                if not name:
                    raise StreamingProtocolError(
                        f"{where}: the first delta of tool call {index} has no function name"
                    )
                first = self._id_set.get(call.id, pending_ids.get(call.id))
                if first is not None:
                    raise StreamingProtocolError(
                        f"{where}: tool call {index} reuses the id {call.id!r} of tool call {first}"
                    )
                pending_ids[call.id] = index
                new_calls.append((call.id, name))
                if arguments:
                    fragments.append((index, arguments))
            elif index > total:
                raise StreamingProtocolError(
                    f"{where}: tool call index {index} skips ahead; the next new call must have "
                    f"index {total} ({total} calls started so far)"
                )
            else:  # a later delta of a started call
                if call.id is not None:
                    raise StreamingProtocolError(
                        f"{where}: tool call {index} already has an id; a later delta carries "
                        f"another one ({call.id!r})"
                    )
                if call.type is not None:
                    raise StreamingProtocolError(
                        f"{where}: tool call {index} already started; a later delta carries "
                        f"type={call.type!r} again"
                    )
                if name is not None:
                    raise StreamingProtocolError(
                        f"{where}: tool call {index} already has a name; a later delta carries "
                        f"a name again ({name!r})"
                    )
                if not arguments:
                    raise StreamingProtocolError(
                        f"{where}: the delta for tool call {index} carries nothing "
                        f"(no function name, no arguments)"
                    )
                if self.strict_order and index != total - 1:
                    raise StreamingProtocolError(
                        f"{where}: arguments for tool call {index} after tool call {total - 1} "
                        f"started (strict_order)"
                    )
                fragments.append((index, arguments))

        # Apply.
        self.deltas_seen = number + 1
        if content:
            self._content.append(content)
        if reasoning:
            self._reasoning.append(reasoning)
        for call_id, name in new_calls:
            self._id_set[call_id] = len(self._ids)
            self._ids.append(call_id)
            self._names.append(name)
            self._arguments.append([])
        for index, fragment in fragments:
            self._arguments[index].append(fragment)

    def append_deltas(
        self, deltas: Iterable[Optional[Union[DeltaMessage, Mapping[str, Any]]]]
    ) -> StreamingToolReconstructor:
        """``append_delta`` each delta of an iterable, skipping ``None`` (``feed`` returns None
        when there is nothing to emit). Returns ``self``."""
        for delta in deltas:
            if delta is not None:
                self.append_delta(delta)
        return self

    def __repr__(self) -> str:
        return (
            f"StreamingToolReconstructor(deltas_seen={self.deltas_seen}, "
            f"tool_calls={len(self._ids)}, content_chars={sum(map(len, self._content))}, "
            f"reasoning_chars={sum(map(len, self._reasoning))})"
        )
