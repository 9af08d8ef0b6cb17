"""Fitters for the JSON families: tagged_json (a marker, then a call object or an array of
them), llama3_json (bare call objects) and named_json (a name, then an arguments object).

Each fitter takes the rendered turns (:class:`~toolparse.infer.locate.Turn`) and returns the
spec's family fields, starting from a minimal skeleton of the family, or raises
:class:`~toolparse.infer.locate.NoFit`.
"""

from __future__ import annotations

import json
import re
from typing import Any, Dict, List, Optional, Sequence, Set, Tuple

from .locate import (
    NoFit,
    Turn,
    common_prefix,
    common_suffix,
    content_end,
    json_values,
    marker_end,
    marker_start,
    one,
)

__all__ = ["fit_llama3_json", "fit_named_json", "fit_tagged_json"]

_Span = Tuple[int, int, str, str, List[str], bool]  # start, end, name key, args key, id keys, str


def _is_args(value: Any, args: Dict[str, Any]) -> Optional[bool]:
    """True/False: ``value`` is ``args`` (as an object / as a JSON string); None: it is not."""
    if value == args:
        return False
    if isinstance(value, str):
        try:
            if json.loads(value) == args:
                return True
        except ValueError:
            return None
    return None


def _call_object(
    value: Any, name: str, args: Dict[str, Any]
) -> Optional[Tuple[str, str, List[str], bool]]:
    """The name key, args key, id keys and whether the args are a string, when ``value`` is a
    JSON object holding this call."""
    if not isinstance(value, dict):
        return None
    if list(value) == [name] and _is_args(value[name], args) is not None:
        return "", "", [], bool(_is_args(value[name], args))  # keyed by the name: {N: {...}}
    name_key = next((k for k, v in value.items() if v == name), None)
    args_key = next((k for k, v in value.items() if _is_args(v, args) is not None), None)
    if name_key is None or args_key is None or name_key == args_key:
        return None
    ids = [k for k in value if k not in (name_key, args_key)]
    return name_key, args_key, ids, bool(_is_args(value[args_key], args))


def _object_spans(turn: Turn) -> List[_Span]:
    spans: List[_Span] = []
    at = content_end(turn)
    for name, args in turn.calls:
        for start, end, value in json_values(turn.text, at):
            found = _call_object(value, name, args)
            if found is not None:
                spans.append((start, end, *found))
                at = end
                break
        else:
            raise NoFit(f"{turn.name}: no JSON object holds the call to {name}")
    return spans


def _skeleton(
    family: str, markers: Dict[str, str], call: Dict[str, Any], **kw: Any
) -> Dict[str, Any]:
    spec: Dict[str, Any] = {
        "family": family,
        "markers": markers,
        "call": call,
        "arguments": "json_object",
        "calls": "repeated",
        "end_optional": True,
        "id_style": "chatcmpl",
        "content": "text outside the calls",
        "special_tokens": [],
        "grammar": {"trigger": None},
    }
    spec.update(kw)
    return spec


def _args_keys(key: str) -> List[str]:
    """The arguments key the template writes, and its other common spelling (OpenAI's
    "arguments", Llama's "parameters"), which models of either lineage write."""
    if not key:
        return []
    other = {"arguments": "parameters", "parameters": "arguments"}.get(key)
    return [key, other] if other else [key]


def fit_tagged_json(turns: Sequence[Turn]) -> Dict[str, Any]:
    """A start marker, then one call object (``repeated``) or an array of them (``list``), and
    an end marker when the template writes one; or a start marker, the name, an arguments marker
    and the arguments object (Mistral's ``[TOOL_CALLS]N[ARGS]{...}``)."""
    try:
        return _fit_objects(turns)
    except NoFit as e:
        try:
            return _fit_name_then_args(turns)
        except NoFit as e2:
            raise NoFit(f"{e}; as a name then arguments: {e2}") from None


def _fit_name_then_args(turns: Sequence[Turn]) -> Dict[str, Any]:
    heads, mids, tails, gaps = _named_parts(turns)
    mids = [m.strip() for m in mids]
    if any(tails):
        raise NoFit(f"text after the arguments: {sorted(set(t for t in tails if t))[:3]!r}")
    head = one(heads, "the text before the calls")
    if any(g != head for g in gaps):
        raise NoFit(f"between two calls: {sorted(set(gaps))!r}, not the start marker")
    markers = {"call_start": head}
    ids = [re.fullmatch(r"(\[[A-Z_]+\])call\d{5}(\[[A-Z_]+\])", m) for m in mids]
    if all(ids):
        markers["call_id"] = one([m.group(1) for m in ids if m], "the call id marker")
        markers["args_start"] = one([m.group(2) for m in ids if m], "the arguments marker")
    else:
        markers["args_start"] = one(mids, "the text between a name and its arguments")
    if not head or not markers["args_start"]:
        raise NoFit("no start or arguments marker")
    return _skeleton(
        "tagged_json",
        markers,
        {"shape": "list_or_name_then_args", "name_keys": ["name"], "args_keys": ["arguments"]},
        calls="list_or_repeated",
        id_style="mistral",
        content=f"text before {head}",
        grammar={"trigger": head},
    )


def _fit_objects(turns: Sequence[Turn]) -> Dict[str, Any]:
    leads: List[str] = []
    tails: List[str] = []
    gaps: List[str] = []
    keys: Set[Tuple[str, str, Tuple[str, ...]]] = set()
    arrays: List[bool] = []
    for turn in turns:
        if not turn.calls:
            continue
        spans = _object_spans(turn)
        for s in spans:
            keys.add((s[2], s[3], tuple(s[4])))
        first, last = spans[0], spans[-1]
        lead = turn.text[content_end(turn) : first[0]]
        tail = turn.text[last[1] :]
        # an array around the calls: '[' before the first, ']' after the last
        in_array = lead.rstrip().endswith("[") and tail.lstrip().startswith("]")
        arrays.append(in_array)
        if in_array:
            lead = lead.rstrip()[:-1]
            tail = tail.lstrip()[1:]
        leads.append(lead.strip())
        tails.append(tail.strip())
        gaps.extend(turn.text[a[1] : b[0]].strip() for a, b in zip(spans, spans[1:]))
    if len(keys) != 1:
        raise NoFit(f"the call objects' keys differ: {sorted(keys)!r}")
    ((name_key, args_key, ids),) = keys
    start = one(leads, "the text before the calls")
    end = one(tails, "the text after the calls")
    array = one([str(a) for a in arrays], "an array around the calls") == "True"
    if not start:
        raise NoFit("no marker before the call objects (bare JSON)")
    markers = {"call_start": start}
    if end:
        markers["call_end"] = end
    if array:
        if any(g != "," for g in gaps):
            raise NoFit(f"the array's calls are separated by {sorted(set(gaps))!r}")
        calls = "list"
    elif gaps and not any(gaps):
        # a section of call objects one per line, no marker of their own (MiniMax-M1's
        # ``<tool_calls>\n{...}\n{...}\n</tool_calls>``)
        calls = "newline"
    else:
        for g in gaps:
            if g != (end + "\n" + start).strip() and not re.fullmatch(
                re.escape(end) + r"\s*" + re.escape(start), g
            ):
                raise NoFit(f"between two calls: {g!r}, not the end then the start marker")
        calls = "repeated"
    call: Dict[str, Any] = {
        "shape": "array" if array else "object",
        "name_keys": [name_key] if name_key else [],
        "args_keys": _args_keys(args_key),
    }
    if not name_key:
        call["keyed_by_name"] = True
    if ids:
        call["id_keys"] = list(ids)
    return _skeleton(
        "tagged_json",
        markers,
        call,
        calls=calls,
        arguments="json_object_or_json_string",  # as written, or a JSON string of it
        grammar={"trigger": start},
    )


def fit_llama3_json(turns: Sequence[Turn]) -> Dict[str, Any]:
    """Bare call objects, nothing before them (Llama 3.x's ``{"name": N, "parameters": {...}}``):
    the family's call start is then the empty marker (never found: a call starts at the object's
    ``{``), the separator the text between two calls, or the family's usual ``;`` when the
    template writes one call at most."""
    keys: Set[Tuple[str, str]] = set()
    gaps: List[str] = []
    for turn in turns:
        if not turn.calls:
            continue
        spans = _object_spans(turn)
        lead = turn.text[content_end(turn) : spans[0][0]].strip()
        tail = turn.text[spans[-1][1] :].strip()
        if lead or tail:
            raise NoFit(f"{turn.name}: text around the call objects ({lead!r}, {tail!r})")
        keys.update((s[2], s[3]) for s in spans)
        gaps.extend(turn.text[a[1] : b[0]].strip() for a, b in zip(spans, spans[1:]))
    if len(keys) != 1:
        raise NoFit(f"the call objects' keys differ: {sorted(keys)!r}")
    ((name_key, args_key),) = keys
    if name_key != "name" or args_key not in ("parameters", "arguments"):
        # the family's machine reads these keys only
        raise NoFit(f"call objects keyed {name_key!r} and {args_key!r}, not name and parameters")
    separator = one(gaps, "the text between two calls") if gaps else ";"
    if not separator:
        raise NoFit("nothing between two call objects")
    return _skeleton(
        "llama3_json",
        {"call_start": "", "object_start": "{", "separator": separator},
        {"shape": "object", "name_keys": ["name"], "args_keys": _args_keys(args_key)},
        calls="separated",
        content="text outside the calls",
    )


def _named_spans(turn: Turn) -> List[Tuple[int, int, int, int]]:
    """(name start, name end, args start, args end) of each call: the name as text, then the
    first JSON object after it equal to the arguments."""
    spans = []
    at = content_end(turn)
    for name, args in turn.calls:
        n = turn.text.find(name, at)
        if n < 0:
            raise NoFit(f"{turn.name}: the name {name} is not in the render")
        for start, end, value in json_values(turn.text, n + len(name)):
            if value == args:
                spans.append((n, n + len(name), start, end))
                at = end
                break
        else:
            raise NoFit(f"{turn.name}: no JSON object after {name} is its arguments")
    return spans


def _named_parts(turns: Sequence[Turn]) -> Tuple[List[str], List[str], List[str], List[str]]:
    """The marker text around the calls written as a name then an arguments object, over the
    turns with calls: before the first call (heads) and after the last (tails) of each turn,
    between each name and its arguments (mids, as written), and between two calls (gaps);
    heads, tails and gaps without the whitespace around them."""
    heads: List[str] = []
    mids: List[str] = []
    tails: List[str] = []
    gaps: List[str] = []
    for turn in turns:
        if not turn.calls:
            continue
        spans = _named_spans(turn)
        heads.append(turn.text[content_end(turn) : spans[0][0]].strip())
        tails.append(turn.text[spans[-1][3] :].strip())
        mids.extend(turn.text[s[1] : s[2]] for s in spans)
        gaps.extend(turn.text[a[3] : b[0]].strip() for a, b in zip(spans, spans[1:]))
    return heads, mids, tails, gaps


def fit_named_json(turns: Sequence[Turn]) -> Dict[str, Any]:
    """Section and call markers around ``NAME`` ``args_start`` ``{...}``: the section start and
    end from the text before the first and after the last call, the call markers from the text
    between two calls."""
    heads, mids, tails, gaps = _named_parts(turns)
    # a call id before the name (Solar's "<|tool_call:begin|>ID<|tool_call:name|>NAME"): the
    # renderer's ids (call00000, call00001, ...) then a marker, the header's first field
    before_name = [re.search(r"call\d{5}(\S+)$", t) for t in heads + gaps]
    name_start = ""
    if all(before_name):
        name_start = one([m.group(1) for m in before_name if m], "the text after a call id")
        heads = [h[: len(h) - len(name_start) - 9] for h in heads]
        gaps = [g[: len(g) - len(name_start) - 9] for g in gaps]
    head = one(heads, "the text before the calls")
    tail = one(tails, "the text after the calls")
    ids = all(re.match(r":\d+", m) for m in mids)
    mids = [re.sub(r"^:\d+", "", m) for m in mids] if ids else mids
    mid = one([m.strip() for m in mids], "the text between a name and its arguments")
    if not gaps:
        raise NoFit("no render with two calls to tell the call markers from the section's")
    gap = one(gaps, "the text between two calls")
    call_end = marker_end(common_prefix([gap, tail]))
    call_start = marker_start(common_suffix([gap, head]))
    fence = re.fullmatch(r"(```)\s*(\S.*)", call_end, re.S)
    typed = re.fullmatch(r"(<[^<>]+>)([A-Za-z_]+)(<[^<>]+>)", call_start)
    if fence and mid.startswith("```") and typed:
        # DeepSeek R1's call: START type SEP NAME ```json {...} ``` END
        markers = {
            "call_start": typed.group(1),
            "name_start": typed.group(3),
            "args_start": "\n" + mid,
            "args_end": fence.group(1),
            "call_end": fence.group(2).strip(),
        }
        section_start = head[: len(head) - len(call_start)].strip()
        section_end = tail[len(call_end) :].strip()
        if section_start:
            markers["section_start"] = section_start
        if section_end:
            markers["section_end"] = section_end
        return _skeleton(
            "named_json",
            markers,
            {"shape": "type_sep_name_fenced_args"},
            content="text outside the tool-calls section",
            grammar={"trigger": section_start or typed.group(1)},
        )
    prefix = ""
    if call_start and not call_start.endswith((">", "]")):
        # a name prefix after the call start (``functions.``)
        cut = max(call_start.rfind(">"), call_start.rfind("]"))
        prefix, call_start = call_start[cut + 1 :], call_start[: cut + 1]
    if not call_start or not call_end or not mid:
        raise NoFit(f"no call markers in {gap!r} (before {head!r}, after {tail!r})")
    section_start = head[: len(head) - len(call_start) - len(prefix)].strip()
    section_end = tail[len(call_end) :].strip()
    markers = {"call_start": call_start, "call_end": call_end, "args_start": mid}
    if name_start:
        markers["name_start"] = name_start  # the call id stands before it
    if section_start:
        markers["section_start"] = section_start
    if section_end:
        markers["section_end"] = section_end
    if ids:
        call: Dict[str, Any] = {"shape": "id_sep_args", "name_prefix": prefix}
    elif prefix:
        raise NoFit(f"text {prefix!r} before the name but no call index after it")
    else:
        call = {"shape": "name_sep_args"}
    if name_start:
        call["id_field"] = True
    return _skeleton(
        "named_json",
        markers,
        call,
        id_style="model" if ids else "chatcmpl",
        content="text outside the tool-calls section",
        grammar={"trigger": section_start or call_start},
    )
