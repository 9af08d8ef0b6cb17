"""A format file inferred from a chat template: :func:`infer_format`.

The probe conversations of :mod:`toolparse.probes` (random names, parameters and values) are
rendered with the template; each call's payload (its name, argument keys and values) is found in
the renders, and the text between payloads is the marker text a family's fitter splits into that
family's fields (``fit_json``, ``fit_xml``). The registered formats are not consulted: every
marker comes from the renders. A fitted spec is then proved in a child process (``proof``): every
probe render, and the held-out probes' (three calls, nested values, unicode, a value that looks
like a marker), must parse back exactly on both backends, whole and streamed under random splits.
The first family whose spec proves is returned; when none does, ValueError says, per family, what
did not fit or round-trip.
"""

from __future__ import annotations

import dataclasses
import json
import os
import random
import re
import subprocess
import sys
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple

from .. import probes as _probes
from .fit_functionary import fit_functionary
from .fit_gemma import fit_functiongemma
from .fit_json import fit_llama3_json, fit_named_json, fit_tagged_json
from .fit_muse import fit_muse
from .fit_openai import fit_openai
from .fit_pythonic import fit_pythonic
from .fit_xml import fit_xml_params
from .fit_xml_elements import fit_xml_elements
from .locate import NoFit, Turn, split_ws
from .reasoning import Rendered, inside, stray_end, strip_block, think_block

__all__ = ["FAMILIES", "infer_format"]

#: The families inference fills, in the order they are tried.
FAMILIES: Tuple[Tuple[str, Callable[[Sequence[Turn]], Any]], ...] = (
    ("tagged_json", fit_tagged_json),
    ("xml_params", fit_xml_params),
    ("named_json", fit_named_json),
    ("llama3_json", fit_llama3_json),
    ("pythonic", fit_pythonic),
    ("functiongemma", fit_functiongemma),
    ("xml_elements", fit_xml_elements),
    ("functionary", fit_functionary),
    ("muse", fit_muse),
    ("openai", fit_openai),
)


#: the families whose machine separates the reasoning messages itself
CHANNELS = ("muse", "openai")


def _shown_calls(probe: _probes.Probe, text: str) -> Tuple[Tuple[str, Dict[str, Any]], ...]:
    """The probe's calls, or none when the render shows none of them (a template that drops the
    calls of a turn with content writes only the content)."""
    if probe.calls and not any(name in text for name, _ in probe.calls):
        return ()
    return probe.calls


def _turns(rendered: Rendered, block: Tuple[str, str, bool]) -> List[Turn]:
    from ..chat_template import stop_token  # imported with jinja2's renderer, not at import

    out = []
    for probe, turn in rendered:
        text = strip_block(turn.text, *block)
        content = probe.content if probe.content and probe.content in text else ""
        calls = _shown_calls(probe, text)
        shown = probe.reasoning if probe.reasoning and probe.reasoning in turn.text else ""
        out.append(
            Turn(
                probe.name,
                text,
                content,
                calls,
                turn.arguments == "json",
                turn.text,
                shown,
                stop_token(turn.turn_end),
            )
        )
    return out


def _wrapper(turns: Sequence[Turn]) -> Tuple[str, str]:
    """The markers a turn's content is wrapped in (Cohere's ``<|START_TEXT|>...<|END_TEXT|>``),
    from the turn with content and no call; ("", "") when the content stands bare, (start, "")
    when only a start is written (the end is the turn's stop token, cut)."""
    for turn in turns:
        if turn.calls or not turn.content:
            continue
        at = turn.text.find(turn.content)
        before = split_ws(turn.text[:at])
        after = split_ws(turn.text[at + len(turn.content) :])
        if before:
            return before[-1], after[0] if after else ""
    return "", ""


def _wrapper_ends(turns: Sequence[Turn], start: str) -> List[str]:
    """Every marker after the content of the turn with content and no call whose content
    ``start`` opens (Kimi K3's ``<|close|>response<|sep|>`` then ``<|close|>message<|sep|>``):
    the end of the wrapper, then markup that closes the turn; two at most."""
    for turn in turns:
        if turn.calls or not turn.content:
            continue
        at = turn.text.find(turn.content)
        before = split_ws(turn.text[:at])
        if before and before[-1] == start:
            return split_ws(turn.text[at + len(turn.content) :])[:2]
    return []


def _unwrapped(turns: Sequence[Turn], markers: Sequence[str]) -> List[Turn]:
    """The turns without the content wrapper's markers (markup the parser drops wherever they
    stand), for a family whose spec drops them (``text_start``, ``text_end``, ``text_end_2``):
    the fitter then reads the calls' markers alone."""
    out = []
    for t in turns:
        text = t.text
        for m in markers:
            text = text.replace(m, "")
        out.append(dataclasses.replace(t, text=text))
    return out


#: the families whose spec can drop a content wrapper that has an end (text_start, text_end and,
#: for xml_params, text_end_2), besides tagged_json, which is fitted on the turns as rendered
_UNWRAP = ("xml_params",)


def _fits(
    family: str, fit: Callable[[Sequence[Turn]], Any], turns: Sequence[Turn], ends: List[str]
) -> List[Dict[str, Any]]:
    """The family's specs fitted on the turns as rendered, then (where the content has a closed
    wrapper and the family can drop it) on the turns without the wrapper's markers."""
    specs: List[Dict[str, Any]] = []
    why = ""
    try:
        got = fit(turns)
        specs = got if isinstance(got, list) else [got]
    except NoFit as e:
        why = str(e)
    if family in _UNWRAP and len(ends) > 1:
        try:
            got = fit(_unwrapped(turns, ends))
        except NoFit:
            got = []
        for spec in got if isinstance(got, list) else [got]:
            spec = json.loads(json.dumps(spec))
            roles = ("text_start", "text_end", "text_end_2")
            spec["markers"].update(zip(roles, ends))
            specs.append(spec)
    if not specs:
        raise NoFit(why)
    return specs


def _wrapped(spec: Dict[str, Any], wrapper: Tuple[str, str]) -> Dict[str, Any]:
    out = json.loads(json.dumps(spec))
    if wrapper[1]:
        out["markers"]["text_start"], out["markers"]["text_end"] = wrapper
    else:  # a start marker alone: markup dropped from the content
        out["dropped"] = [wrapper[0]]
    return out


def _checks(rendered: Rendered, block: Tuple[str, str, bool]) -> List[Any]:
    start, end, started = block
    out = []
    for probe, turn in rendered:
        text = turn.text
        content = probe.content if probe.content and probe.content in text else ""
        reasoning = probe.reasoning if probe.reasoning and probe.reasoning in text else ""
        if not end:
            mode: Optional[bool] = None
        else:
            # a turn whose render lacks the end of the block the prompt opened reads as starting
            # outside it: templates leave an empty block out of the history
            mode = inside(text, start, end, started)
        calls = _shown_calls(probe, text)
        out.append([text, [list(c) for c in calls], content, reasoning, mode])
    return out


def _probe_strings(rendered: Rendered) -> List[str]:
    words: List[str] = []
    for probe, _ in rendered:
        for name, args in probe.calls:
            words.append(name)
            for k, v in args.items():
                words.append(k)
                if isinstance(v, str):
                    words.extend(v.split())
        for text in (probe.content, probe.reasoning):
            words.extend(w.strip(".").lower() for w in (text or "").split())
    # five letters at least: a shorter random word may be part of a marker by chance
    return [w for w in words if len(w) >= 5]


def _leaks(spec: Dict[str, Any], reasoning: Optional[Dict[str, Any]], words: List[str]) -> str:
    kept = list(spec["markers"].values()) + [spec["call"].get("name_prefix") or ""]
    kept += [spec["call"].get("role") or ""]  # the channel families' role and recipients
    kept += [r for rs in (spec["call"].get("recipients") or {}).values() for r in rs]
    if reasoning:
        kept += [reasoning.get("start", ""), reasoning.get("end", "")]
    for marker in kept:
        for w in words:
            if w in marker.lower():
                return f"the marker {marker!r} holds the probe text {w!r}"
    return ""


def _special(markers: Dict[str, str]) -> List[str]:
    """The markers that read as special tokens (``<|...|>``, ``<｜...｜>``, ``[UPPER]``)."""
    out = []
    for m in markers.values():
        if (m.startswith("<|") and m.endswith("|>")) or (m.startswith("<｜") and m.endswith("｜>")):
            out.append(m)
        elif m.startswith("[") and m.endswith("]") and m[1:-1].replace("_", "").isupper():
            out.append(m)
    return sorted(set(out))


def _document(
    name: str,
    spec: Dict[str, Any],
    block: Tuple[str, str, bool],
    rendered: Rendered,
) -> Dict[str, Any]:
    spec = {"name": name, **spec, "aliases": [], "models": []}
    special = _special(spec["markers"])
    if special:
        spec["special_tokens"] = special
        spec["keep_special_tokens"] = "always"
    samples = [t.text for p, t in rendered if p.calls and t.text.strip()]
    no_call = [t.text for p, t in rendered if not p.calls and t.text.strip()]
    doc: Dict[str, Any] = {
        "spec": spec,
        "samples": samples,
        "notes": "Inferred by toolparse.infer_format from the chat template's renders.",
    }
    if no_call:
        doc["cases"] = {"no_call": no_call}
    start, end, started = block
    if end and spec["family"] in CHANNELS:
        # the family's machine reads the reasoning messages itself (harmony's analysis channel,
        # Muse's to=self): the reasoning entry names the format, as openai_gptoss and muse do
        doc["reasoning"] = {
            "name": name,
            "aliases": [],
            "tool_format": name,
            "end_token": spec["markers"]["end"],
        }
    elif end:
        doc["reasoning"] = {
            "name": name,
            "aliases": [],
            "start": start,
            "end": end,
            "started": started,
            "unclosed": "reasoning",
            "call_ends_block": True,
            "call_starts": [spec["grammar"]["trigger"] or ""],
        }
        if not doc["reasoning"]["call_starts"][0]:
            doc["reasoning"]["call_starts"] = []
        if not started and any(stray_end(t.text, start, end) for _, t in rendered):
            doc["reasoning"]["stray_end_text"] = True
    return doc


def _prove(docs: List[Dict[str, Any]], tools: Any, checks: List[Any], seed: int) -> List[str]:
    """Each document's proof failure ("" where it proves), from the child process."""
    if not docs:
        return []
    package_root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (package_root, env.get("PYTHONPATH")) if p)
    request = json.dumps({"docs": docs, "tools": tools, "checks": checks, "seed": seed})
    try:
        done = subprocess.run(
            [sys.executable, "-m", "toolparse.infer.proof"],
            input=request,
            capture_output=True,
            text=True,
            timeout=300,
            env=env,
        )
    except subprocess.TimeoutExpired:
        return ["the proof took more than 300 s"] * len(docs)
    if done.returncode != 0:
        err = done.stderr.strip().splitlines()[-1:] or ["no output"]
        return [f"the proof process failed: {err[0]}"] * len(docs)
    answers: List[str] = json.loads(done.stdout)
    return answers


def infer_format(
    chat_template: str,
    *,
    name: str,
    bos_token: Any = "",
    eos_token: Any = "",
    seed: Optional[int] = None,
) -> Dict[str, Any]:
    """A whole format file (a dict :func:`toolparse.register_format` accepts) for a chat template's
    tool calls, in one of the families in :data:`FAMILIES`, its markers taken from the template's
    renders of random probe conversations, and proved: every probe render (and held-out ones the
    fit did not see) parses back exactly on both backends, whole and streamed under random splits.

    ``name``: the format's name (and its reasoning entry's, when the template shows a think block).
    ``bos_token``/``eos_token``: strings or ``AddedToken`` dicts. ``seed``: repeatable probes.

    Raises ValueError for a template that is not valid Jinja, raises on a plain conversation,
    ignores the tools, renders no call, or whose calls no family reproduces (the message names
    what did not fit or round-trip, per family).
    """
    from ..spec_types import NAME

    if not isinstance(chat_template, str):
        raise TypeError("chat_template must be a string")
    if not isinstance(name, str) or not NAME.fullmatch(name):
        raise ValueError(f"name {name!r} is not a format name (lower case, digits, '_', '.', '-')")
    rng = random.Random(seed)
    proof_seed = rng.randrange(2**31)
    common: Dict[str, Any] = dict(
        bos_token=bos_token, eos_token=eos_token, enable_thinking=True, thinking=True
    )
    tools, rendered, _, refused = _probes.render_probes(chat_template, rng, common)
    if refused:
        raise ValueError(f"cannot infer a format: {refused}")
    if not any(n in t.text for p, t in rendered for n, _ in p.calls):
        raise ValueError("cannot infer a format: the template renders no call in an assistant turn")
    rendered, shown = _probes.as_shown(chat_template, tools, rendered, common)
    lost = list(dict.fromkeys(why for _, why in shown))
    try:
        block = think_block(rendered)
    except NoFit as e:
        raise ValueError(f"cannot infer a format: the think block: {e}") from None
    turns = _turns(rendered, block)
    wrapper = _wrapper(turns)
    words = _probe_strings(rendered)
    reasons: List[str] = []
    fitted: List[Tuple[str, Dict[str, Any]]] = []
    ends = [wrapper[0], *_wrapper_ends(turns, wrapper[0])] if wrapper[1] else []
    for family, fit in FAMILIES:
        try:
            specs = _fits(family, fit, turns, ends)
        except NoFit as e:
            reasons.append(f"{family}: {e}")
            continue
        if wrapper[0] and family == "tagged_json":
            specs = [_wrapped(s, wrapper) for s in specs] + specs
        elif not wrapper[1] and re.fullmatch(r"<[^<>]+>|\[[^\[\]]+\]", wrapper[0]):
            # a start tag alone (Solar's "<|content|>"): markup dropped, in any family (a
            # word, as functionary's "all" header, is no markup to drop everywhere)
            specs = [_wrapped(s, wrapper) for s in specs] + specs
        for spec in specs:
            doc = _document(name, spec, block, rendered)
            leak = _leaks(doc["spec"], doc.get("reasoning"), words)
            if leak:
                reasons.append(f"{family}: {leak}")
                break
            fitted.append((family, doc))
    if fitted:
        more_tools, held = _probes.held_out_probes(rng, tools, ())
        held_rendered, _ = _probes.render_all(chat_template, more_tools, held, common, False)
        held_rendered, _ = _probes.as_shown(chat_template, more_tools, held_rendered, common)
        checks = _checks(rendered, block)
        held_checks = _checks(held_rendered, block)
        answers = _prove([d for _, d in fitted], tools, checks, proof_seed)
        held_answers = _prove([d for _, d in fitted], more_tools, held_checks, proof_seed)
        failed: Dict[str, str] = {}
        for (family, doc), a, b in zip(fitted, answers, held_answers):
            if not a and not b:
                if lost:  # what no render can show, so no proof demands
                    doc["notes"] += " The template " + "; ".join(lost) + "."
                return doc
            failed[family] = a or "held-out probes: " + b  # the last variant tried
        reasons.extend(f"{family}: {why}" for family, why in failed.items())
    raise ValueError("no family reproduces the template's calls: " + "; ".join(reasons))
