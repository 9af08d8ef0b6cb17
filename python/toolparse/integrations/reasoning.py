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
from typing import Any, Dict, FrozenSet, Iterable, List, Mapping, Optional, Sequence, Tuple

from toolparse import spec as _spec

PREFIX = "toolparse_"

# The most whitespace before a start marker at the beginning of the output (rust/reasoning.rs).
LEAD_CAP = 64


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


def own_reasoning(tool_format: str) -> Optional[str]:
    """The think-block reasoning format named as tool format ``tool_format`` (its name or one of
    its aliases: deepseek_v3, glm47 -> glm45, kimi_k2, minimax_m2, mistral, seed_oss, ...), for a
    structural tag that must hold the model's reasoning too when no reasoning parser is
    configured; None where no reasoning format has the name (hermes, qwen3_coder, ...: the tag
    then starts at the calls) and for the channel formats (their own machine and grammar carry
    the reasoning channel)."""
    s = _spec.get_spec(tool_format)
    for name in (s.name, *s.aliases):
        try:
            r = _spec.reasoning_canonical(name)
        except ValueError:
            continue
        if _spec.REASONING[r].tool_format is None and pairs(r, s.name):
            return r
    return None


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
    other special tokens (turn boundaries), the end marker's token sequence, and the single-token
    call-start markers that end an open block (per paired tool format, as the front scans for
    them: :meth:`toolparse.spec.ReasoningSpec.scan`)."""

    def __init__(self, tokenizer: Any, reasoning: str) -> None:
        rspec = _spec.REASONING[_spec.reasoning_canonical(reasoning)]
        vocab: Mapping[str, int] = {}
        try:
            vocab = tokenizer.get_vocab() if tokenizer is not None else {}
        except Exception:  # noqa: BLE001 - a tokenizer without a vocabulary: no ids
            vocab = {}
        self.start: Optional[int] = vocab.get(rspec.start) if rspec.start else None
        self.end: Optional[int] = vocab.get(rspec.end) if rspec.end else None
        self.starts: FrozenSet[int] = _token_ids_of(vocab, rspec.starts)
        # the end markers, without a turn-end tag: that ends every earlier turn of a prompt
        # (there it is a turn boundary); in the output it ends an open block too (``stops``)
        self.ends: FrozenSet[int] = _token_ids_of(
            vocab, [m for m in rspec.ends if m != rspec.turn_end]
        )
        self.turn_end: FrozenSet[int] = _token_ids_of(vocab, [rspec.turn_end])
        self.end_seq: List[int] = [self.end] if self.end is not None else []
        if not self.end_seq and rspec.end and tokenizer is not None:
            try:
                self.end_seq = list(tokenizer.encode(rspec.end, add_special_tokens=False))
            except Exception:  # noqa: BLE001
                self.end_seq = []
        markers = self.starts | self.ends
        # call starts: None (no tool format: the reasoning format's own) and each tool format
        self._calls: Dict[Optional[str], FrozenSet[int]] = {}
        self._stops: Dict[Optional[str], FrozenSet[int]] = {}  # ends | calls, per tool format
        fmts: List[Optional[str]] = [None, *_spec.list_formats()]
        for fmt in fmts:
            scan = rspec.scan(_spec.SPECS[fmt] if fmt is not None else None)
            ids = _token_ids_of(vocab, [m for m in scan if m not in rspec.starts + rspec.ends])
            self._calls[fmt] = ids
            markers |= ids
        self.starts_text: Tuple[str, ...] = tuple(m for m in rspec.starts if m)
        try:
            special = set(getattr(tokenizer, "all_special_ids", None) or ())
        except Exception:  # noqa: BLE001
            special = set()
        self.boundaries = frozenset(special - markers)

    def calls(self, tool_format: Optional[str]) -> FrozenSet[int]:
        """The single-token call starts that end an open block with ``tool_format`` paired
        (None: the reasoning format's own call starts)."""
        if tool_format is not None and tool_format not in self._calls:
            try:
                tool_format = _spec.canonical(tool_format)
            except (TypeError, ValueError):
                tool_format = None
        return self._calls.get(tool_format, self._calls[None])

    def stops(self, tool_format: Optional[str]) -> FrozenSet[int]:
        """The single tokens that end an open block: end markers and :meth:`calls`."""
        out = self._stops.get(tool_format)
        if out is None:
            out = self._stops[tool_format] = self.ends | self.turn_end | self.calls(tool_format)
        return out


def _token_ids_of(vocab: Mapping[str, int], markers: Iterable[str]) -> FrozenSet[int]:
    return frozenset(i for m in markers if m and (i := vocab.get(m)) is not None)


_MARKER_IDS_BY_TOKENIZER: Dict[int, Any] = {}
_MARKER_IDS_LOCK = threading.Lock()


def marker_ids(tokenizer: Any, reasoning: str) -> MarkerIds:
    """:class:`MarkerIds`, computed once per tokenizer object and format (a vocabulary is large;
    servers build a parser per request)."""
    key = id(tokenizer)
    with _MARKER_IDS_LOCK:
        entry = _MARKER_IDS_BY_TOKENIZER.get(key)
        if entry is None or entry[0]() is not tokenizer:
            try:
                ref: Any = weakref.ref(tokenizer)
            except TypeError:
                ref = (lambda t: lambda: t)(tokenizer)
            per_format: Dict[str, MarkerIds] = {}
            entry = (ref, per_format)
            _MARKER_IDS_BY_TOKENIZER[key] = entry
        table: Dict[str, MarkerIds] = entry[1]
        ids = table.get(reasoning)
        if ids is None:
            ids = table[reasoning] = MarkerIds(tokenizer, reasoning)
    return ids


def prompt_verdict(
    ids: MarkerIds, prompt_ids: Optional[Sequence[int]], tool_format: Optional[str] = None
) -> Optional[bool]:
    """True when the prompt's last turn opened the think block (a start marker after the last
    turn boundary with no end marker, and no call start that ends the block, after it), False
    when it closed one (thinking switched off by the template, or a call start ended it), None
    when the last turn has neither. Scans back from the end, stopping at the first special token
    that is not a reasoning or call-start marker."""
    if not prompt_ids:
        return None
    starts, ends, bounds = ids.starts, ids.ends, ids.boundaries
    calls = ids.calls(tool_format)
    called = False
    for i in range(len(prompt_ids) - 1, -1, -1):
        t = prompt_ids[i]
        if t in ends:
            return False
        if t in calls:
            called = True
        elif t in starts:
            return not called
        elif t in bounds:
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


def end_in_delta(
    ids: MarkerIds,
    input_ids: Sequence[int],
    delta_ids: Iterable[int],
    tool_format: Optional[str] = None,
) -> bool:
    """Whether an open think block ends within the last decode step's ``delta_ids`` (the tail
    of ``input_ids``): an end marker (its tokens ending in the step), or a single-token call
    start that ends an open block (the machine's rule). Looks at the delta, plus
    ``len(marker) - 1`` ids before it for a multi-token end marker: never at the rest."""
    delta = delta_ids if isinstance(delta_ids, (list, tuple)) else list(delta_ids)
    stops = ids.stops(tool_format)
    if stops and not stops.isdisjoint(delta):
        return True
    seq = ids.end_seq
    if len(seq) < 2:
        return False
    n = len(delta) + len(seq) - 1
    window = list(input_ids[-n:]) if n > 0 else []
    k = len(seq)
    return any(window[i : i + k] == seq for i in range(0, max(0, len(window) - k + 1)))


class ReasoningTokens:
    """Counts the reasoning tokens of a stream's generated ids by the front's rules where token
    ids tell them: starting inside the block (``started``) or, outside, after optional
    whitespace a start marker opens it; inside, every token is reasoning but start markers (with
    the tokens that continue one into a longer start marker: gemma4's ``<|channel>`` then
    ``thought\n``, told with ``decode``); an end marker or a call start (``calls``) ends the
    block, which never reopens, except with ``anywhere`` (the spec's ``blocks_anywhere``:
    gemma4), where a start marker opens a block again wherever it stands (in a call's arguments
    too: token ids do not tell them). Markers are not counted. Resumes where the last call stopped
    when the ids extend the ones it read (servers pass the whole sequence per delta; one C-level
    comparison tells), so Python looks at each id of a stream once, and not at all after the
    block ended."""

    BEFORE, INSIDE, AFTER, OUTSIDE = 0, 1, 2, 3

    def __init__(
        self,
        ids: MarkerIds,
        started: bool,
        calls: FrozenSet[int],
        decode: Any = None,
        anywhere: bool = False,
    ) -> None:
        self._ids = ids
        # the state after a block (or its chance to open at the beginning) is over
        self._over = self.OUTSIDE if anywhere else self.AFTER
        self._started = started
        self._calls = calls
        self._decode = decode
        self._longer = len(ids.starts_text) > 1  # a start marker may continue into another
        self._stops = ids.ends | ids.turn_end | calls
        self.key: Any = None  # what the owner built it for
        self._reset()

    def _reset(self) -> None:
        self.state = self.INSIDE if self._started else self.BEFORE
        self.count = 0
        self._pos = 0
        self._seen: Tuple[int, ...] = ()  # the ids read so far
        self._lead = ""  # text decoded before the block while it may still open one
        self._opening: Optional[str] = None  # a start marker that a longer one may continue

    def _text(self, t: int) -> str:
        if self._decode is None:
            return ""
        try:
            return str(self._decode(t) or "")
        except Exception:  # noqa: BLE001 - cannot tell
            return ""

    def __call__(self, token_ids: Sequence[int]) -> int:
        if not isinstance(token_ids, tuple):
            token_ids = tuple(token_ids)
        n = len(token_ids)
        if n < self._pos or token_ids[: self._pos] != self._seen:
            self._reset()  # not the ids read so far: count afresh
        if self.state == self.AFTER:
            return self.count
        i = self._pos
        ids, seq = self._ids, self._ids.end_seq
        k = len(seq)
        stops, starts = self._stops, ids.starts
        while i < n and self.state != self.AFTER:
            if self.state == self.INSIDE and self._opening is None and k < 2:
                # the common run: reasoning tokens up to a marker (no per-token attributes)
                count, j = self.count, i
                while j < n:
                    t = token_ids[j]
                    if t in stops or t in starts:
                        break
                    count += 1
                    j += 1
                self.count, i = count, j
                if i == n:
                    break
            t = token_ids[i]
            if self.state == self.BEFORE:
                self._before(t)
            elif self.state == self.OUTSIDE:
                if t in starts:
                    self._opened(self._text(t) if self._longer else "")
            elif self._opening is not None and self._continues(t):
                pass
            elif t in self._stops:
                self.state = self._over
            elif t in ids.starts:
                self._opened(self._text(t) if self._longer else "")
            else:
                self.count += 1
                if k > 1 and t == seq[-1] and i + 1 >= k:
                    if list(token_ids[i + 1 - k : i + 1]) == seq:  # a multi-token end marker
                        self.count = max(0, self.count - k)
                        self.state = self._over
            i += 1
        if i > self._pos:
            self._pos = i
            self._seen = token_ids[:i]
        return self.count

    def _opened(self, marker: str) -> None:
        """A start marker (``marker``: its text, "" when no longer one exists) was read."""
        self.state = self.INSIDE
        longer = marker and any(
            len(m) > len(marker) and m.startswith(marker) for m in self._ids.starts_text
        )
        self._opening = marker if longer else None

    def _continues(self, t: int) -> bool:
        """Whether token ``t`` continues the start marker just read into a longer one."""
        opening = self._opening or ""
        self._opening = None
        text = self._text(t)
        cand = opening + text
        if not text or not any(
            len(m) > len(opening) and m.startswith(cand) for m in self._ids.starts_text
        ):
            return False
        self._opened(cand)
        return True

    def _before(self, t: int) -> None:
        if t in self._ids.starts:
            self._opened(self._text(t) if self._longer else "")
            return
        text = self._text(t)
        full = self._lead + text
        lead = full.lstrip()
        ws = len(full.encode("utf-8", "replace")) - len(lead.encode("utf-8", "replace"))
        if text and ws <= LEAD_CAP:
            if not lead:  # whitespace before the block
                self._lead = full
                return
            if any(m.startswith(lead) for m in self._ids.starts_text):
                self._lead = full
                if lead in self._ids.starts_text:
                    self._opened(lead)
                return
        self.state = self._over


# --------------------------------------------------------------------------------------------------
# The hand-over from a reasoning parser to the tool parser built next in the same thread
# --------------------------------------------------------------------------------------------------
_HANDOVER_SLOT = threading.local()


def leave(reasoner: Any) -> None:
    """A reasoning parser built as part of a server's composed parser leaves itself here for the
    tool parser the server builds next, in the same thread."""
    _HANDOVER_SLOT.pending = weakref.ref(reasoner)


def take() -> Any:
    """The reasoning parser left by the last :func:`leave` in this thread, once; None if none
    (or it is gone)."""
    ref = getattr(_HANDOVER_SLOT, "pending", None)
    _HANDOVER_SLOT.pending = None
    return ref() if ref is not None else None
