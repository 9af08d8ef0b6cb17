"""Which registered format a model writes, found from its chat template.

:func:`detect_format` renders probe conversations with the template (in the bounded worker process
of :mod:`toolparse.chat_template`) and keeps every registered format, with a reasoning format or
none, that parses each probe's assistant turn back exactly: the calls (names and argument JSON
values), the content and the reasoning. Nothing is inferred from the template's source text, and no
marker is learnt from the probes: the probes' names and values are random, and detection only
chooses among the formats already registered. The one thing read from the renders: where a
format's spec says its special tokens may carry a per-checkpoint suffix (``token_suffix``: Hy3's
``<tool_calls:opensource>``) and the renders write them so, the suffixed variant
(:func:`toolparse.with_token_suffix`) is registered and tried too; it is reported under the plain
name, with ``Detection.token_suffix``.

The probes: a turn with content and no call, one call, two calls, content then a call, reasoning
then a call, and a call with no arguments. Every probe is rendered with ``enable_thinking=True``
and ``thinking=True`` (the mode a reasoning deployment runs); a template that sets
``enable_thinking`` itself gives its own answer. How a probe is given to the template
(arguments as dicts or JSON strings, content "" or absent, reasoning under three keys, end-of-turn
tokens cut off) is :func:`toolparse.chat_template.render_assistant`'s.

Ties: formats that read the same wire syntax all read the probes (a Hermes render reads the same in
``qwen3_json`` and ``granite4``). ``candidates`` lists them all; ``format`` is
``format_for_model(model)`` when that is one of them, else the first of :data:`PREFERENCE` among
them, else the first in alphabetical order. Reasoning formats tie the same way (every ``<think>``
format reads a ``<think>`` block): the reasoning format with the chosen format's name wins, else the
one whose call-start markers include the chosen format's call start, else the first in the spec's
order.
"""

from __future__ import annotations

import json
import random
from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional, Sequence, Tuple

from . import spec as _spec
from .probes import Probe as _Probe
from .probes import as_shown as _as_shown
from .probes import render_probes as _render_probes

__all__ = ["Detection", "PREFERENCE", "detect_format"]

#: The formats preferred, in this order, when several read the probes back the same way: the
#: format each wire syntax was first written for (its other readers are later models' variants).
PREFERENCE: Tuple[str, ...] = (
    "hermes",
    "llama3_json",
    "mistral",
    "pythonic",
    "qwen3_coder",
    "deepseek_v3",
    "deepseek_v31",
    "kimi_k2",
    "glm45",
    "minimax_m2",
    "openai",
)


@dataclass(frozen=True)
class Detection:
    """What :func:`detect_format` found.

    ``format``: the registered format the template's calls read as, or None (then ``reason``
    says why). ``reasoning``: the reasoning format (or None: the template writes no think block).
    ``reasoning_started``: whether the generation prompt leaves the think block open (rendered with
    thinking on), None when there is no reasoning format. ``candidates``: every format that reads
    all probes back. ``evidence``: (probe, assistant text) for each probe rendered; ``skipped``:
    (probe, why) for each probe the template refused (e.g. two calls in a one-call template);
    ``lost``: (probe, what the template loses) for each probe whose render is exactly the render
    of a simpler probe (its first call only; its content as reasoning), read back as that probe.
    ``token_suffix``: the suffix the template writes the special tokens of ``format`` (and
    ``reasoning``) with (``":opensource"`` for Hy3: ``<tool_calls:opensource>``), "" when it
    writes them bare; ``format`` and ``reasoning`` are then the plain names (what
    ``--tool-call-parser toolparse_<format>`` takes: the servers' parsers read the suffix from the
    tokenizer), and :func:`toolparse.with_token_suffix` gives the variant that reads the renders.
    """

    format: Optional[str]
    reasoning: Optional[str] = None
    reasoning_started: Optional[bool] = None
    candidates: Tuple[str, ...] = ()
    reason: Optional[str] = None
    evidence: Tuple[Tuple[str, str], ...] = field(default=(), repr=False)
    skipped: Tuple[Tuple[str, str], ...] = field(default=(), repr=False)
    lost: Tuple[Tuple[str, str], ...] = field(default=(), repr=False)
    token_suffix: str = ""


def _opened(prompt: str, r: Any) -> Optional[bool]:
    """Whether ``prompt`` ends inside reasoning format ``r``'s think block (None: ``r`` has no
    markers of its own, its tool format separates the reasoning)."""
    if not r.start:
        return None
    start = max(prompt.rfind(m) for m in (r.start, *r.also_start))
    end = max(prompt.rfind(m) for m in (r.end, *r.also_end) if m) if r.end else -1
    return start >= 0 and start > end


def _reads(parser: Any, probe: _Probe, text: str) -> bool:
    """Whether ``parser`` reads ``text`` back as the probe's calls, content and reasoning."""
    try:
        got = parser.extract_tool_calls(text)
    except Exception:  # noqa: BLE001 - a parser that fails on a render does not read it
        return False
    if len(got.tool_calls) != len(probe.calls):
        return False
    for call, (name, args) in zip(got.tool_calls, probe.calls):
        if call.function.name != name:
            return False
        try:
            if json.loads(call.function.arguments or "{}") != args:
                return False
        except ValueError:
            return False
    want_reasoning = probe.reasoning if probe.reasoning and probe.reasoning in text else ""
    # a template may drop a turn's content or reasoning beside its calls: what it does not render
    # is not expected back
    want_content = probe.content if probe.content and probe.content in text else ""
    got_reasoning, got_content = (got.reasoning or "").strip(), (got.content or "").strip()
    return got_reasoning == want_reasoning.strip() and got_content == want_content.strip()


def _parser(fmt: str, tools: Any, reasoning: Optional[str], started: Optional[bool]) -> Any:
    from .parser import ToolParser

    try:
        return ToolParser(
            fmt, tools=tools, backend="rust", reasoning=reasoning, reasoning_started=started
        )
    except (ValueError, TypeError):
        return None


def _reads_all(
    fmt: str,
    tools: Any,
    reasoning: Optional[str],
    started: Optional[bool],
    rendered: Sequence[Tuple[_Probe, Any]],
    prompt: str = "",
) -> bool:
    """Whether ``fmt`` with ``reasoning`` reads every probe back. A turn whose render has no end
    of the think block the prompt opened is read as starting outside it: templates leave the block
    out of a turn in history that had no reasoning. A turn that closes a block it never opens,
    after a prompt that ends with an empty block, is read as starting inside it
    (:func:`_fills_empty_block`)."""
    parsers: Dict[Optional[bool], Any] = {}
    r = _spec.REASONING[reasoning] if reasoning else None
    end = r.end if r is not None else ""
    for probe, turn in rendered:
        mode = started if not (started and end and end not in turn.text) else False
        if started is False and _fills_empty_block(r, prompt, turn.text):
            mode = True
        if mode not in parsers:
            parsers[mode] = _parser(fmt, tools, reasoning, mode)
        if parsers[mode] is None or not _reads(parsers[mode], probe, turn.text):
            return False
    return True


def _fills_empty_block(r: Any, prompt: str, text: str) -> bool:
    """Whether ``text`` fills the empty think block the prompt ends with (thinking off): Hy3's
    prompt ends ``<think></think>`` and its turn with reasoning ``<think>R</think>...``, so the
    turn's render shares the block's start with the prompt and begins inside the block."""
    if r is None or not r.start or not r.end:
        return False
    head = prompt.rstrip()
    if not head.endswith(r.end) or not head[: -len(r.end)].rstrip().endswith(r.start):
        return False
    e = text.find(r.end)
    return e >= 0 and r.start not in text[:e]


def _pick(candidates: Sequence[str], model: Optional[str]) -> str:
    if model:
        mine = _spec.format_for_model(model)
        if mine is not None and mine in candidates:
            return mine
    for name in PREFERENCE:
        if name in candidates:
            return name
    return sorted(candidates)[0]


def _pick_reasoning(candidates: Sequence[str], fmt: str) -> str:
    if fmt in candidates:
        return fmt
    own = [n for n in candidates if _spec.REASONING[n].tool_format == fmt]
    if own:  # the reasoning format made for this tool format (gpt-oss's for openai)
        return own[0]
    starts = set(_spec.get_spec(fmt).call_starts())
    for name in candidates:
        if starts & set(_spec.REASONING[name].call_starts):
            return name
    return candidates[0]


def detect_format(
    chat_template: str,
    *,
    bos_token: Any = "",
    eos_token: Any = "",
    model: Optional[str] = None,
    seed: Optional[int] = None,
) -> Detection:
    """The registered format (and reasoning format) a chat template's tool calls read as.

    ``bos_token``/``eos_token``: strings or Hugging Face ``AddedToken`` dicts (``{"content":
    ...}``). ``model``: a model id or path, to break ties with :func:`toolparse.format_for_model`
    and to answer for a template that does not render tools. ``seed``: makes the random probe
    names and values repeatable.

    Raises ValueError for a template that is not valid Jinja, raises on a plain conversation,
    renders for longer than a second or writes more than a megabyte (the renderer's limits).
    """
    if not isinstance(chat_template, str):
        raise TypeError("chat_template must be a string")
    if model is not None and not isinstance(model, str):
        raise TypeError("model must be a string or None")
    rng = random.Random(seed)
    common: Dict[str, Any] = dict(
        bos_token=bos_token, eos_token=eos_token, enable_thinking=True, thinking=True
    )
    tools, rendered, skipped_list, refused = _render_probes(chat_template, rng, common)
    rendered, shown = _as_shown(chat_template, tools, rendered, common)
    evidence = tuple((p.name, r.text) for p, r in rendered)
    skipped = tuple(skipped_list)
    lost = tuple(shown)
    if refused:
        fallback = _spec.format_for_model(model) if model else None
        return Detection(fallback, reason=refused, evidence=evidence, skipped=skipped, lost=lost)
    if not any(name in r.text for p, r in rendered for name, _ in p.calls):
        return Detection(
            None,
            reason="the template renders no call in an assistant turn",
            evidence=evidence,
            skipped=skipped,
            lost=lost,
        )
    prompt = rendered[0][1].prompt
    _register_suffixed(prompt + "".join(r.text for _, r in rendered))
    options: List[Tuple[Optional[str], Optional[bool]]] = [(None, None)]
    opened_any = False
    for name, r in _spec.REASONING.items():
        started = _opened(prompt, r)
        opened_any = opened_any or bool(started)
        options.append((name, started))
    if opened_any:  # the prompt opens a block: the output starts inside it
        options = [(n, s) for n, s in options if s]
    found: Dict[str, List[Tuple[Optional[str], Optional[bool]]]] = {}
    for fmt in _spec.list_formats():
        for reasoning, started in options:
            if _reads_all(fmt, tools, reasoning, started, rendered, prompt):
                found.setdefault(fmt, []).append((reasoning, started))
    if not found:
        return Detection(
            None,
            reason="no registered format reads the rendered calls back",
            evidence=evidence,
            skipped=skipped,
            lost=lost,
        )
    found, suffix_of = _plain(found)
    candidates = tuple(dict.fromkeys(f for f in _spec.list_formats() if f in found))
    fmt = _pick(candidates, model)
    pairs = found[fmt]
    if (None, None) in pairs and not any(
        p.reasoning and p.reasoning in r.text for p, r in rendered
    ):
        reasoning, started = None, None
    else:
        names = [n for n, _ in pairs if n is not None]
        if not names:
            reasoning, started = None, None
        else:
            reasoning = _pick_reasoning(names, fmt)
            started = dict(pairs)[reasoning]
    suffix = suffix_of.get(fmt, "")
    return Detection(fmt, reasoning, started, candidates, None, evidence, skipped, lost, suffix)


def _register_suffixed(text: str) -> None:
    """Registers, for each format whose special tokens may carry a suffix (``token_suffix``) and
    that ``text`` (the renders) writes suffixed, the variant for that suffix: a candidate like
    any registered format."""
    from .token_suffix import token_suffix_from_text, with_token_suffix

    for name, s in list(_spec.SPECS.items()):
        if s.token_suffix:
            suffix = token_suffix_from_text(name, text)
            if suffix:
                with_token_suffix(name, suffix)


def _plain(
    found: Dict[str, List[Tuple[Optional[str], Optional[bool]]]],
) -> Tuple[Dict[str, List[Tuple[Optional[str], Optional[bool]]]], Dict[str, str]]:
    """``found`` with each suffixed variant (:func:`toolparse.with_token_suffix`), and the
    reasoning variants paired with it, under its plain format's name; and the suffix of each
    plain name that stands for a variant. A plain format that reads the renders itself wins."""
    from .token_suffix import variant_base

    out: Dict[str, List[Tuple[Optional[str], Optional[bool]]]] = {}
    suffix_of: Dict[str, str] = {}
    for name, pairs in found.items():
        base = variant_base(name)
        if base is None:
            out[name] = pairs
            suffix_of.pop(name, None)
            continue
        plain, suffix = base
        if plain in out and plain not in suffix_of:
            continue
        mapped = []
        for r, started in pairs:
            rb = variant_base(r) if r is not None else None
            mapped.append((rb[0] if rb is not None else r, started))
        out[plain] = mapped
        suffix_of[plain] = suffix
    return out, suffix_of
