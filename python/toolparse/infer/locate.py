"""Finding the probes' payloads in a render, and the marker text around them.

A render's calls are found by their payload (the probe's random name, argument keys and values),
never by a marker: what lies between the payloads is the marker text the fitters split.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any, Dict, Iterator, List, Optional, Sequence, Tuple

__all__ = [
    "NoFit",
    "Turn",
    "common_prefix",
    "common_suffix",
    "json_values",
    "marker_end",
    "marker_start",
    "one",
    "split_ws",
    "value_texts",
]


class NoFit(Exception):
    """A family's fields cannot be filled from the renders (the message says why)."""


@dataclass(frozen=True)
class Turn:
    """One rendered probe as the fitters see it: ``text`` (what the model writes, the think block
    removed), the probe's ``content`` when the render shows it, and its ``calls`` ((name,
    arguments) pairs)."""

    name: str
    text: str
    content: str
    calls: Tuple[Tuple[str, Dict[str, Any]], ...]
    json_arguments: bool  # the template was given the arguments as JSON strings
    # for the channel families, whose machines read the reasoning messages themselves: the render
    # with its think block, the probe's reasoning where the render shows it, and what the template
    # ends a plain turn with (its stop token: gpt-oss's <|return|>, Muse's <|eot|>)
    raw: str = ""
    reasoning: str = ""
    turn_end: str = ""


def one(values: Sequence[str], what: str) -> str:
    """The one value every render agrees on (``what`` names it in the NoFit when they differ)."""
    distinct = sorted(set(values))
    if len(distinct) != 1:
        raise NoFit(f"{what} differs between renders: {distinct[:3]!r}")
    return distinct[0]


def json_values(text: str, at: int = 0) -> Iterator[Tuple[int, int, Any]]:
    """Every JSON object or array in ``text`` from ``at``: (start, end, value), in order of
    start (nested ones too)."""
    decoder = json.JSONDecoder()
    for m in re.finditer(r"[\[{]", text[at:]):
        start = at + m.start()
        try:
            value, end = decoder.raw_decode(text, start)
        except ValueError:
            continue
        yield start, end, value


def common_prefix(items: Sequence[str]) -> str:
    if not items:
        return ""
    first = items[0]
    n = len(first)
    for s in items[1:]:
        n = min(n, len(s))
        for i in range(n):
            if s[i] != first[i]:
                n = i
                break
    return first[:n]


def common_suffix(items: Sequence[str]) -> str:
    return common_prefix([s[::-1] for s in items])[::-1]


_CLOSERS = (">", "]", "|", "}")


def marker_end(prefix: str) -> str:
    """``prefix`` (a common prefix of marker texts) cut back to the end of its last whole token:
    after its last ``>`` or ``]``, or to its last whitespace."""
    cut = max(prefix.rfind(">"), prefix.rfind("]"))
    if cut >= 0:
        return prefix[: cut + 1]
    ws = [i for i, c in enumerate(prefix) if c.isspace()]
    return prefix[: ws[-1]] if ws else prefix


def marker_start(suffix: str) -> str:
    """``suffix`` (a common suffix of marker texts) cut forward to the start of its first whole
    token: at its first ``<`` or ``[``, or after its first whitespace."""
    cuts = [i for i in (suffix.find("<"), suffix.find("[")) if i >= 0]
    if cuts:
        return suffix[min(cuts) :]
    ws = [i for i, c in enumerate(suffix) if c.isspace()]
    return suffix[ws[0] + 1 :] if ws else suffix


def split_ws(text: str) -> List[str]:
    """``text`` split into markers: at runs of whitespace (not a single space inside a ``<...``
    tag that has not closed: ``<invoke name="``), and between two adjacent tokens (``><``,
    ``][``, ``>[``, ``]<``)."""
    chunks: List[str] = []
    cur = ""
    i = 0
    while i < len(text):
        c = text[i]
        if c.isspace():
            j = i
            while j < len(text) and text[j].isspace():
                j += 1
            inside = cur.rfind("<") > cur.rfind(">")
            if inside and text[i:j] == " " and j < len(text):
                cur += " "
            else:
                if cur:
                    chunks.append(cur)
                cur = ""
            i = j
            continue
        cur += c
        i += 1
    if cur:
        chunks.append(cur)
    out: List[str] = []
    for chunk in chunks:
        out.extend(p for p in re.split(r"(?<=[>\]])(?=[<\[])", chunk) if p)
    return out


def value_texts(value: Any) -> List[str]:
    """How a template may write an argument value: as is for a string, else JSON (compact or
    spaced, escaped or not) or Python."""
    if isinstance(value, str):
        return [value]
    out = [
        json.dumps(value, ensure_ascii=False),
        json.dumps(value),
        json.dumps(value, ensure_ascii=False, separators=(",", ":")),
        str(value),
    ]
    return list(dict.fromkeys(out))


def find_value(text: str, value: Any, at: int) -> Optional[Tuple[int, int]]:
    """The first place from ``at`` where ``value`` is written (see :func:`value_texts`)."""
    best: Optional[Tuple[int, int]] = None
    for t in value_texts(value):
        i = text.find(t, at)
        if i >= 0 and (best is None or i < best[0] or (i == best[0] and i + len(t) > best[1])):
            best = (i, i + len(t))
    return best


def content_end(turn: Turn) -> int:
    """Where the content the render shows before the calls ends (0 when it shows none there:
    no content, or content after the calls, as Gemma 4 writes it)."""
    if turn.content:
        at = turn.text.find(turn.content)
        first = turn.text.find(turn.calls[0][0]) if turn.calls else -1
        if at >= 0 and (first < 0 or at < first):
            return at + len(turn.content)
    return 0
