"""The fitter of the functiongemma family: ``START`` ``call:`` NAME ``{key:VALUE,...}`` ``END``,
string values between a string delimiter (Gemma 4's ``<|"|>``), other values bare."""

from __future__ import annotations

from typing import Any, Dict, List, Sequence

from .locate import NoFit, Turn, content_end, find_value, one

__all__ = ["fit_functiongemma"]


def fit_functiongemma(turns: Sequence[Turn]) -> List[Dict[str, Any]]:
    heads: List[str] = []
    tails: List[str] = []
    opens: List[str] = []
    delims: List[str] = []
    for turn in turns:
        if not turn.calls:
            continue
        text = turn.text
        at = content_end(turn)
        for i, (name, args) in enumerate(turn.calls):
            n = text.find(name, at)
            if n < 0:
                raise NoFit(f"{turn.name}: the name {name} is not in the render")
            if i == 0:
                heads.append(text[at:n].strip())
            at = n + len(name)
            opens.append(text[at : at + 1])
            for key, value in args.items():
                k = text.find(key + ":", at)
                if k < 0:
                    raise NoFit(f"{turn.name}: no '{key}:' in the render")
                v = find_value(text, value, k + len(key) + 1)
                if v is None:
                    raise NoFit(f"{turn.name}: the value of {key} is not in the render")
                if isinstance(value, str):
                    before = text[k + len(key) + 1 : v[0]]
                    if not text.startswith(before, v[1]):
                        raise NoFit(f"{turn.name}: {before!r} does not close the string")
                    delims.append(before)
                at = v[1]
        tail = text[at:]
        if turn.content and turn.content in tail:  # content after the calls
            tail = tail.replace(turn.content, "")
        tails.append(tail.strip())
    if one(opens, "the text after a name") != "{":
        raise NoFit("no '{' after the name")
    head = one(heads, "the text before the first call")
    cut = max(head.rfind(">"), head.rfind("]"))
    if cut < 0 or cut + 1 == len(head):
        raise NoFit(f"no call start then name start in {head!r}")
    call_start, name_start = head[: cut + 1], head[cut + 1 :]
    string = one(delims, "the string delimiter")
    if not string:
        raise NoFit("string values are not delimited")
    ends = {t[t.rfind("}") + 1 :].strip() if "}" in t else "" for t in tails}
    call_end = one(sorted(ends), "the text after the arguments")
    if not call_end:
        raise NoFit("no call end marker")
    markers = {
        "call_start": call_start,
        "call_end": call_end,
        "name_start": name_start,
        "string": string,
    }
    base = {
        "family": "functiongemma",
        "markers": markers,
        "calls": "repeated",
        "end_optional": True,
        "id_style": "chatcmpl",
        "content": "text outside the calls",
        "special_tokens": [],
        "grammar": {"trigger": call_start},
    }
    return [
        {
            **base,
            "call": {"shape": "call_name_object", "escaped": "string", "key_spaces": True},
            "arguments": "gemma4_values",
        },
        {**base, "call": {"shape": "call_name_object"}, "arguments": "functiongemma_values"},
    ]
