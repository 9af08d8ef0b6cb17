"""The fitter of the xml_params family: a function marker with the name, then one tag (or tag
pair) per parameter holding the key and the value as text.

The pieces, found between the payloads (name, keys, values) of the renders: before the name
(call start and function start), after the name (function name end, then a parameter start or the
function end), between a key and its value (parameter name end, value start), after a value
(parameter end, then the next parameter start or the function end and call end).
"""

from __future__ import annotations

import json
import re
from typing import Any, Dict, List, Sequence, Tuple

from .locate import NoFit, Turn, common_suffix, content_end, find_value, marker_start, one, split_ws

__all__ = ["fit_xml_params"]

# (name start, name end, [(key start, key end, value start, value end)])
_Call = Tuple[int, int, List[Tuple[int, int, int, int]]]


def _calls(turn: Turn) -> List[_Call]:
    out: List[_Call] = []
    at = content_end(turn)
    for name, args in turn.calls:
        n = turn.text.find(name, at)
        if n < 0:
            raise NoFit(f"{turn.name}: the name {name} is not in the render")
        at = n + len(name)
        params = []
        for key, value in args.items():
            k = turn.text.find(key, at)
            if k < 0:
                raise NoFit(f"{turn.name}: the key {key} is not in the render")
            v = find_value(turn.text, value, k + len(key))
            if v is None:
                raise NoFit(f"{turn.name}: the value of {key} is not in the render")
            params.append((k, k + len(key), v[0], v[1]))
            at = v[1]
        out.append((n, n + len(name), params))
    return out


def _pair(text: str, what: str) -> Tuple[str, str]:
    """``text`` (two markers with whitespace between them) as its two markers."""
    parts = split_ws(text)
    if len(parts) != 2:
        raise NoFit(f"{what}: {text!r} is not two markers")
    return parts[0], parts[1]


#: stands for a call's position (1, 2, ...) in an attribute after its name (Kimi K3's index="1")
INDEX = "{index}"
#: the JSON Schema type names a typed parameter head may name (Kimi K3's type="number")
JSON_TYPES = ("string", "number", "integer", "boolean", "null", "object", "array")


def _markers(text: str) -> List[str]:
    """``text`` split into markers as :func:`split_ws` does, an attribute after a single space
    (`` tool="``) staying with the tag before it even where that tag's first token has closed
    (Kimi K3's ``<|open|>call tool="``)."""
    hold = "\x00"
    joined = re.sub(r" (?=[\w:-]+=[\"'])", hold, text)
    return [m.replace(hold, " ") for m in split_ws(joined)]


def _token_start(suffix: str, texts: Sequence[str]) -> str:
    """``suffix`` (a common suffix of ``texts``) from the first ``<`` or ``[`` that starts a
    token in every text: after whitespace or a token's end (``>``, ``]``). A ``<`` glued to the
    text before it closes a tag (Kimi K3's ``argument<|sep|>``) and is not a marker's start.
    :func:`marker_start`'s cut where no such token starts."""
    for j, c in enumerate(suffix):
        if c not in "<[":
            continue
        before = [t[len(t) - len(suffix) + j - 1 : len(t) - len(suffix) + j] for t in texts]
        if all(b == "" or b.isspace() or b in ">]" for b in before):
            return suffix[j:]
    return marker_start(suffix)


def _indexed(text: str, i: int) -> str:
    """``text`` with the call's position (``i`` + 1) in a quoted attribute value as
    :data:`INDEX`."""
    return re.sub(rf"(?<=[=][\"']){i + 1}(?=[\"'])", INDEX, text)


def _attributes(name_end: str) -> Tuple[str, str, str]:
    """The name's end split into the quote that ends it, attributes (`` index="{index}"``) and
    the tag's end: (quote, attributes, end); ("", "", name_end) when it holds no attribute."""
    m = re.fullmatch(r"([\"'])((?:\s+[\w:-]+=([\"'])[^\"']*\3)+)(\S+)", name_end)
    if not m:
        return "", "", name_end
    return m.group(1), m.group(2), m.group(4)


def _attrs_regex(attrs: str) -> str:
    """The grammar's regex of ``attrs``: the text as is, the call's position as digits."""
    out = ""
    for part in re.split(r"(\{index\})", attrs):
        out += "[0-9]+" if part == INDEX else re.sub(r"([.^$*+?()\[\]{}|\\])", r"\\\1", part)
    return out


def _typed_heads(kv_str: str, kv_json: str) -> Dict[str, str]:
    """Where the parameter heads name the value's JSON type (``type="string"``,
    ``type="number"``), the heads of the types the probes do not show, spelled the same way:
    ``parameter_json_2``, ... (empty where the heads are not type names)."""
    for seen in JSON_TYPES[1:3]:
        q = re.search(r"([\"'])string\1", kv_str)
        if not q or kv_str.replace(q.group(0), q.group(1) + seen + q.group(1)) != kv_json:
            continue
        others = [t for t in JSON_TYPES[1:] if t != seen]
        spell = [kv_str.replace(q.group(0), q.group(1) + t + q.group(1)) for t in others]
        return {f"parameter_json_{k}": h for k, h in enumerate(spell, 2)}
    return {}


def turn_args(turn: Turn, i: int) -> List[Any]:
    return list(turn.calls[i][1].values())


def _pieces(turns: Sequence[Turn]) -> Dict[str, List[str]]:
    p: Dict[str, List[str]] = {
        k: [] for k in ("head", "after_name", "bare", "kv", "vk", "tail", "gap")
    }
    p["raw_kv"] = []
    p["after_name_indexed"] = []
    p["kv_str"] = []
    p["kv_json"] = []
    for turn in turns:
        if not turn.calls:
            continue
        calls = _calls(turn)
        text = turn.text
        p["head"].append(text[content_end(turn) : calls[0][0]].strip())
        ends = []
        for i, (_n0, n1, params) in enumerate(calls):
            nxt = calls[i + 1][0] if i + 1 < len(calls) else len(text)
            if params:
                p["after_name"].append(text[n1 : params[0][0]])
                p["after_name_indexed"].append(_indexed(text[n1 : params[0][0]], i))
                for (_k0, k1, v0, _v1), value in zip(params, turn_args(turn, i)):
                    kind = "kv_str" if isinstance(value, str) else "kv_json"
                    p[kind].append(text[k1:v0].strip())
                    p["raw_kv"].append(text[k1:v0])
                for a, b in zip(params, params[1:]):
                    p["vk"].append(text[a[3] : b[0]])
                end = params[-1][3]
                rest = text[end:nxt]
                if i + 1 == len(calls):
                    p["tail"].append(rest.strip())
                ends.append(rest)
            else:
                p["bare"].append(text[n1:nxt] if i + 1 == len(calls) else "")
        p["gap"].extend(e.strip() for e in ends[:-1])
    return p


def fit_xml_params(turns: Sequence[Turn]) -> List[Dict[str, Any]]:
    """The spec, and its variants for what the probes the fit reads cannot show: values that
    may be Python literals (a template printing a dict with Jinja), and a name that ends at a
    line end where the template writes none between the name and the first parameter."""
    spec = _fit(turns)
    out = [spec]
    if not spec["markers"]["function_name_end"]:
        spec["markers"]["function_name_end"] = "\n"
    with_python = json.loads(json.dumps(spec))
    with_python["call"]["python_values"] = True
    out.append(with_python)
    with_cdata = json.loads(json.dumps(with_python))
    with_cdata["call"]["cdata"] = True  # a value holding markup written as <![CDATA[...]]>
    out.append(with_cdata)
    return out


def _fit(turns: Sequence[Turn]) -> Dict[str, Any]:
    p = _pieces(turns)
    if not p["after_name"] or not p["vk"]:
        raise NoFit("no render with a call of two parameters")
    head = one(p["head"], "the text before the calls")
    if len(set(p["after_name"])) > 1:  # an attribute counts the calls (Kimi K3's index="2")?
        after = one(p["after_name_indexed"], "the text after a name")
    else:
        after = p["after_name"][0]
    vk = one([v.strip() for v in p["vk"]], "the text between two parameters")
    kv_str = one(p["kv_str"], "the text between a key and a string value")
    kv_json = one(p["kv_json"], "the text between a key and a number") if p["kv_json"] else kv_str
    kv = kv_str
    tail = one(p["tail"], "the text after the last value")
    if len(split_ws(vk)) == 2:
        param_end, param_start = _pair(vk, "between two parameters")
    else:
        param_start = _token_start(common_suffix([vk, after.rstrip()]), [vk, after.rstrip()])
        param_end = vk[: len(vk) - len(param_start)]
    if not after.rstrip().endswith(param_start) or not param_end:
        raise NoFit(f"no parameter start in {after!r} and {vk!r}")
    name_end = after.rstrip()[: len(after.rstrip()) - len(param_start)]
    name_end = name_end.strip() or name_end  # only whitespace: the name ends at it (glm's "\n")
    quote, attrs, attrs_end = _attributes(name_end)
    if INDEX in name_end and not attrs:
        raise NoFit(f"the call's position stands outside an attribute: {name_end!r}")
    if kv_json != kv_str:
        name_close, value_start = kv_json, ""
    elif len(split_ws(kv)) == 2:
        name_close, value_start = _pair(kv, "between a key and its value")
    else:
        name_close, value_start = kv, ""
    if not tail.startswith(param_end):
        raise NoFit(f"the last value is not closed by {param_end!r}: {tail!r}")
    closing = _markers(tail[len(param_end) :])
    opening = _markers(head)
    markers: Dict[str, str] = {}
    if len(opening) == 2 and len(closing) == 2:
        markers.update(
            call_start=opening[0],
            function_start=opening[1],
            function_end=closing[0],
            call_end=closing[1],
        )
    elif len(opening) == 1 and len(closing) == 1:
        markers.update(function_start=opening[0], function_end=closing[0])
    else:
        raise NoFit(f"cannot tell the call and function markers in {head!r} / {tail!r}")
    markers.update(
        function_name_end=name_end,
        parameter_start=param_start,
        parameter_name_end=name_close,
        parameter_end=param_end,
    )
    if value_start:
        markers["value_start"] = value_start
    if kv_json != kv_str:
        # the parameter tag says the value's type (DSML's string="true" / string="false")
        markers.update(parameter_string=kv_str, parameter_json=kv_json, parameter_name_end=kv_json)
        markers.update(_typed_heads(kv_str, kv_json))
    grammar: Dict[str, Any] = {"trigger": markers.get("call_start", markers["function_start"])}
    if attrs:
        # attributes after the name (Kimi K3's index="1"): skipped up to the tag's end
        markers.update(function_name_end=quote, function_attrs_end=attrs_end)
        grammar["function_attrs"] = _attrs_regex(attrs)
    per_section = "many"
    if "call_start" in markers and p["gap"]:
        if all(markers["call_start"] in g for g in p["gap"]):
            per_section = "one"
    on_lines = all(r.endswith("\n") for r in p["raw_kv"])
    return {
        "family": "xml_params",
        "markers": markers,
        "call": {
            "shape": "xml_parameters",
            "value_newlines": "strip_one" if on_lines else "keep",
            "calls_per_section": per_section,
        },
        "arguments": "xml_parameters_typed_by_schema",
        "calls": "repeated",
        "end_optional": True,
        "id_style": "chatcmpl",
        "content": "text outside the calls",
        "special_tokens": [],
        "grammar": grammar,
    }
