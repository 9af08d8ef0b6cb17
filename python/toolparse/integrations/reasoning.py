"""What toolparse's reasoning parsers share inside vLLM and SGLang (``toolparse_R``), whatever the
server: where the think block hands the raw text over, whether the prompt opened the block, and
the hand-over from a reasoning parser to the tool parser built right after it.

Servers run a reasoning parser in front of a tool parser and pass the reasoning parser's "normal
text" on. toolparse separates reasoning, content and tool calls in one machine, whose think-block
front hands the rest of the text to the tool machine. The servers need that rest *raw* (vLLM's
own ``tool_choice`` required/named parsing and SGLang's tool detector read it), and the one-pass
machine reports only what it emits, so :class:`Handover` reads where the machine's front handed
over (the core parser's ``machine_from``, in characters) and cuts the rest from the deltas fed.
Nothing else reads the text: the machine alone parses it, once.

This module imports nothing from the servers.
"""

from __future__ import annotations

import threading
import weakref
from typing import Any, Dict, Iterable, List, Mapping, Optional, Sequence

from toolparse import spec as _spec

PREFIX = "toolparse_"


def formats(aliases: bool = True) -> List[str]:
    """The reasoning format names registered in the servers as ``toolparse_<name>``."""
    return _spec.list_reasoning_formats(aliases=aliases)


def class_name(name: str, kind: str) -> str:
    """``Toolparse<Camel>Reasoning<kind>`` for reasoning format ``name``."""
    camel = "".join(part.capitalize() for part in name.replace("-", "_").split("_"))
    return f"Toolparse{camel}Reasoning{kind}"


def transparent(name: str) -> bool:
    """Whether reasoning format ``name`` has no think-block front: its tool format's machine
    separates the reasoning itself (harmony), so there is no point where the text is handed over."""
    s = _spec.REASONING[_spec.reasoning_canonical(name)]
    return s.tool_format is not None or not s.start or not s.end


def default_started(name: str) -> bool:
    """Whether the output of reasoning format ``name`` starts inside reasoning by default."""
    s = _spec.REASONING[_spec.reasoning_canonical(name)]
    return bool(s.started)


def tool_format_of(server_name: Optional[str]) -> Optional[str]:
    """The toolparse format of a server's tool-parser name ``toolparse_F`` (canonical), else
    None."""
    if not isinstance(server_name, str) or not server_name.startswith(PREFIX):
        return None
    try:
        return _spec.canonical(server_name[len(PREFIX) :])
    except (TypeError, ValueError):
        return None


def pairs(reasoning: str, tool_format: Optional[str]) -> bool:
    """Whether reasoning format ``reasoning`` and tool format ``tool_format`` make one machine
    (harmony's reasoning goes only with its own tool format)."""
    if tool_format is None:
        return False
    s = _spec.REASONING[_spec.reasoning_canonical(reasoning)]
    return s.tool_format is None or s.tool_format == _spec.canonical(tool_format)


class Handover:
    """Where the think block of one stream hands the raw text over, read from the stream's own
    core parser (``machine_from``: the hand-over point in characters, None while the block is
    open), whichever the backend. ``feed`` (after the core's ``feed`` of the same delta) returns
    None while the block is open, then, once, the raw rest: the text fed from the hand-over point
    on (what was held back before this delta included); ``finish`` (after the core's
    ``finish``) the raw text from that point if the block was still open. The deltas are kept
    while the block is open (a reference each, no copy) and only the rest is joined, once. A
    ``transparent`` format (no think-block front) never hands over."""

    def __init__(self, core: Any, transparent: bool = False) -> None:
        self._core = core
        self._parts: List[str] = []
        self._fed = 0
        self.done = transparent

    def feed(self, text: str) -> Optional[str]:
        if self.done:
            return None
        self._parts.append(text)
        self._fed += len(text)
        return self._rest()

    def finish(self) -> str:
        if self.done:
            return ""
        rest = self._rest()
        self.done = True
        self._parts = []
        return rest or ""

    def _rest(self) -> Optional[str]:
        at = self._core.machine_from
        if at is None:
            return None
        self.done = True
        need = max(0, self._fed - at)  # the rest's characters: the last ones fed
        parts, tail, n = self._parts, [], 0
        for i in range(len(parts) - 1, -1, -1):
            if n >= need:
                break
            tail.append(parts[i])
            n += len(parts[i])
        self._parts = []
        tail.reverse()
        joined = "".join(tail)
        return joined[len(joined) - need :] if need else ""


def raw_rest(parser: Any, text: str) -> str:
    """Non-streaming: the raw text after the think block of ``text`` for toolparse parser
    ``parser`` (its reasoning format, tool format and thinking switch): "" when the block never
    ends; ``text`` itself for a transparent format."""
    core = parser.stream()._core
    core.feed(text)
    core.finish()
    at = core.machine_from
    return text[at:] if at is not None else ""


# --------------------------------------------------------------------------------------------------
# Whether the prompt opened the think block
# --------------------------------------------------------------------------------------------------
class MarkerIds:
    """A tokenizer's ids for a reasoning format's markers (each a single token, or None), its
    other special tokens (turn boundaries), and the end marker's token sequence."""

    def __init__(self, tokenizer: Any, reasoning: str) -> None:
        rspec = _spec.REASONING[_spec.reasoning_canonical(reasoning)]
        vocab: Mapping[str, int] = {}
        try:
            vocab = tokenizer.get_vocab() if tokenizer is not None else {}
        except Exception:  # noqa: BLE001 - a tokenizer without a vocabulary: no ids
            vocab = {}
        self.start: Optional[int] = vocab.get(rspec.start) if rspec.start else None
        self.end: Optional[int] = vocab.get(rspec.end) if rspec.end else None
        self.end_seq: List[int] = [self.end] if self.end is not None else []
        if not self.end_seq and rspec.end and tokenizer is not None:
            try:
                self.end_seq = list(tokenizer.encode(rspec.end, add_special_tokens=False))
            except Exception:  # noqa: BLE001
                self.end_seq = []
        markers = {i for i in (self.start, self.end) if i is not None}
        try:
            special = set(getattr(tokenizer, "all_special_ids", None) or ())
        except Exception:  # noqa: BLE001
            special = set()
        self.boundaries = frozenset(special - markers)


_IDS: Dict[int, Any] = {}
_IDS_LOCK = threading.Lock()


def marker_ids(tokenizer: Any, reasoning: str) -> MarkerIds:
    """:class:`MarkerIds`, computed once per tokenizer object and format (a vocabulary is large;
    servers build a parser per request)."""
    key = id(tokenizer)
    with _IDS_LOCK:
        entry = _IDS.get(key)
        if entry is None or entry[0]() is not tokenizer:
            try:
                ref: Any = weakref.ref(tokenizer)
            except TypeError:
                ref = (lambda t: lambda: t)(tokenizer)
            per_format: Dict[str, MarkerIds] = {}
            entry = (ref, per_format)
            _IDS[key] = entry
        table: Dict[str, MarkerIds] = entry[1]
        ids = table.get(reasoning)
        if ids is None:
            ids = table[reasoning] = MarkerIds(tokenizer, reasoning)
    return ids


def prompt_verdict(ids: MarkerIds, prompt_ids: Optional[Sequence[int]]) -> Optional[bool]:
    """True when the prompt's last turn opened the think block (a start marker after the last
    turn boundary with no end marker after it), False when it closed one (thinking switched off
    by the template), None when the last turn has neither. Scans back from the end, stopping at
    the first special token that is not a reasoning marker."""
    if not prompt_ids:
        return None
    start, end, bounds = ids.start, ids.end, ids.boundaries
    for i in range(len(prompt_ids) - 1, -1, -1):
        t = prompt_ids[i]
        if t == end and end is not None:
            return False
        if t == start and start is not None:
            return True
        if t in bounds:
            return None
    return None


def kwargs_verdict(chat_template_kwargs: Optional[Mapping[str, Any]]) -> Optional[bool]:
    """False when the request switched thinking off (``enable_thinking`` or ``thinking`` false),
    else None: a request switching it on leaves the prompt and the format to decide."""
    kw = chat_template_kwargs or {}
    if not isinstance(kw, Mapping):
        return None
    for key in ("enable_thinking", "thinking"):
        if key in kw and kw[key] is not None and not kw[key]:
            return False
    return None


def end_in_delta(ids: MarkerIds, input_ids: Sequence[int], delta_ids: Iterable[int]) -> bool:
    """Whether the end marker's tokens end within the last decode step's ``delta_ids`` (the tail
    of ``input_ids``); looks at ``len(delta) + len(marker) - 1`` ids only."""
    seq = ids.end_seq
    if not seq:
        return False
    delta = delta_ids if isinstance(delta_ids, (list, tuple)) else list(delta_ids)
    if len(seq) == 1:
        return seq[0] in delta
    n = len(delta) + len(seq) - 1
    window = list(input_ids[-n:]) if n > 0 else []
    k = len(seq)
    return any(window[i : i + k] == seq for i in range(0, max(0, len(window) - k + 1)))


# --------------------------------------------------------------------------------------------------
# The hand-over from a reasoning parser to the tool parser built next in the same thread
# --------------------------------------------------------------------------------------------------
_SLOT = threading.local()


def leave(reasoner: Any) -> None:
    """A reasoning parser built as part of a server's composed parser leaves itself here for the
    tool parser the server builds next, in the same thread."""
    _SLOT.pending = weakref.ref(reasoner)


def take() -> Any:
    """The reasoning parser left by the last :func:`leave` in this thread, once; None if none
    (or it is gone)."""
    ref = getattr(_SLOT, "pending", None)
    _SLOT.pending = None
    return ref() if ref is not None else None
