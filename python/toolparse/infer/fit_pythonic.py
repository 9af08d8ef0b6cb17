"""The fitter of the pythonic family: calls written as Python, ``name(key=value, ...)``, in a
list (``[f(a=1), g()]``) or one a line, with a section's markers around them when the template
writes them."""

from __future__ import annotations

import ast
from typing import Any, Dict, List, Optional, Sequence, Tuple

from .locate import NoFit, Turn, content_end, one

__all__ = ["fit_pythonic"]


def _literal(node: ast.AST) -> Any:
    return ast.literal_eval(node)


def _is_call(source: str, name: str, args: Dict[str, Any]) -> bool:
    try:
        tree = ast.parse(source, mode="eval")
    except SyntaxError:
        return False
    call = tree.body
    if not isinstance(call, ast.Call) or call.args:
        return False
    if not isinstance(call.func, ast.Name) or call.func.id != name:
        return False
    try:
        got = {k.arg: _literal(k.value) for k in call.keywords}
    except ValueError:
        return False
    return got == args


def _span(text: str, name: str, args: Dict[str, Any], at: int) -> Optional[Tuple[int, int]]:
    start = text.find(name + "(", at)
    while start >= 0:
        end = text.find(")", start)
        while end >= 0:
            if _is_call(text[start : end + 1], name, args):
                return start, end + 1
            end = text.find(")", end + 1)
        start = text.find(name + "(", start + 1)
    return None


def fit_pythonic(turns: Sequence[Turn]) -> Dict[str, Any]:
    leads: List[str] = []
    tails: List[str] = []
    gaps: List[str] = []
    for turn in turns:
        if not turn.calls:
            continue
        spans = []
        at = content_end(turn)
        for name, args in turn.calls:
            found = _span(turn.text, name, args, at)
            if found is None:
                raise NoFit(f"{turn.name}: no Python call {name}(...) with its arguments")
            spans.append(found)
            at = found[1]
        leads.append(turn.text[content_end(turn) : spans[0][0]].strip())
        tails.append(turn.text[spans[-1][1] :].strip())
        gaps.extend(turn.text[a[1] : b[0]] for a, b in zip(spans, spans[1:]))
    lead = one(leads, "the text before the calls")
    tail = one(tails, "the text after the calls")
    markers: Dict[str, str] = {}
    if lead.endswith("[") and tail.startswith("]"):
        if any(g.strip() != "," for g in gaps):
            raise NoFit(f"the list's calls are separated by {sorted(set(gaps))!r}")
        calls = "list"
        lead, tail = lead[:-1].strip(), tail[1:].strip()
        if not lead:
            markers["list_start"] = "["
    elif all(g.strip() == "" and "\n" in g for g in gaps):
        calls = "newline"
    else:
        raise NoFit(f"the calls are neither a list nor one a line: {lead!r} ... {tail!r}")
    if lead:
        markers["section_start"] = lead
    if tail:
        markers["section_end"] = tail
    if not markers:
        raise NoFit("no marker or list around the calls")
    return {
        "family": "pythonic",
        "markers": markers,
        "call": {"shape": "python_call"},
        "arguments": "python_literals",
        "calls": calls,
        "end_optional": True,
        "id_style": "chatcmpl",
        "content": "text outside the call sections",
        "special_tokens": [],
        "grammar": {"trigger": markers.get("section_start")},
    }
