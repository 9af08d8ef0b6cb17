"""What a render shows, where the template writes a probe exactly as it writes a simpler one.

Some templates lose part of a turn: gpt-oss writes only the first of a turn's calls (one call per
message, "we assume max 1 tool call per message"), and writes the content of a turn with calls on
the analysis channel, where it writes reasoning. Such a render is the very text of a simpler
probe, and no format can read more out of it than that probe: a probe whose render equals the
render of the probe with its first call only, or with its content given as reasoning, is replaced
by that probe (checked by rendering it: never assumed). The proof then demands what the text
shows; a render that differs from every simpler probe's keeps its probe.
"""

from __future__ import annotations

import dataclasses
from typing import Any, Callable, Dict, List, Optional, Tuple

from .. import probes as _probes

__all__ = ["as_shown"]


def _first_call(probe: _probes.Probe, text: str) -> Optional[_probes.Probe]:
    if len(probe.calls) > 1:
        return dataclasses.replace(probe, calls=probe.calls[:1])
    return None


def _content_as_reasoning(probe: _probes.Probe, text: str) -> Optional[_probes.Probe]:
    if probe.content and probe.calls and not probe.reasoning and probe.content in text:
        return dataclasses.replace(probe, content=None, reasoning=probe.content)
    return None


#: the simpler probes a render may equal, with what the template loses, tried in turn
_SIMPLER: Tuple[Tuple[str, Callable[[_probes.Probe, str], Optional[_probes.Probe]]], ...] = (
    ("writes the first call of a turn only", _first_call),
    ("writes a call turn's content as its reasoning", _content_as_reasoning),
)


def as_shown(
    template: str, tools: Any, rendered: List[Tuple[_probes.Probe, Any]], common: Dict[str, Any]
) -> Tuple[List[Tuple[_probes.Probe, Any]], List[str]]:
    """``rendered`` with each probe replaced by the simpler probe the template renders the same,
    and what the template loses (one sentence each, in order)."""
    out = []
    lost: List[str] = []
    for probe, turn in rendered:
        for why, simpler in _SIMPLER:
            alt = simpler(probe, turn.text)
            if alt is None:
                continue
            try:
                again = _probes.render(template, alt, tools, common)
            except ValueError:
                continue
            if again.text == turn.text:
                probe = alt
                if why not in lost:
                    lost.append(why)
        out.append((probe, turn))
    return out, lost
