"""The structural tags of a grid of requests, hashed: every format x tool choice x strict level x
parallel_tool_calls x reasoning (with reasoning_started None/True/False), on the tools of
tests/test_grammar.py (with its hostile schema), the conformance kit's tools and the bench's 100
tools. tests/fixtures/grammar/tag_hashes.json holds these hashes as the grammar builder made
them before it was made faster (generated with this script from main at 4eaec09, then again
after the grammar-residue merge at 7db7d51 changed 15 formats' tags on purpose, before the faster
builder was merged);
tests/test_grammar_speed.py checks the builder still makes exactly those tags.

    PYTHONPATH=python python tests/grammar_goldens.py > tests/fixtures/grammar/tag_hashes.json

A change that means to change tags regenerates the file (and says so in its commit)."""

from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path
from typing import Any, Dict, Iterator, List, Optional, Tuple

import toolparse
from toolparse import spec as tp_spec

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from test_grammar import HOSTILE as _HOSTILE  # noqa: E402

from benches.bench_grammar import tools as bench_tools  # noqa: E402


def _tool(name: str, params: Any, strict: Any = None) -> Dict[str, Any]:
    fn: Dict[str, Any] = {"name": name, "parameters": params}
    if strict is not None:
        fn["strict"] = strict
    return {"type": "function", "function": fn}


def _obj(props: Dict[str, Any]) -> Dict[str, Any]:
    return {"type": "object", "properties": props, "required": list(props)}


# test_grammar.py's hostile schema (a $ref, a dangling one, keywords the composed styles drop)
# with three more value types: a nullable string, a boolean, an integer-or-number
HOSTILE = {
    **_HOSTILE,
    "properties": {
        **_HOSTILE["properties"],
        "lit": {"type": ["string", "null"]},
        "flag": {"type": "boolean"},
        "n": {"type": ["integer", "number"]},
    },
}

SMALL: Dict[str, List[Dict[str, Any]]] = {
    "weather_time": [
        _tool("get_weather", _obj({"city": {"type": "string"}, "days": {"type": "integer"}})),
        _tool("get_time", _obj({"tz": {"type": "string"}}), strict=True),
    ],
    "hostile": [_tool("h", HOSTILE, strict=True), _tool("bare", None)],
}


def _kit_tools(fmt: str) -> List[List[Dict[str, Any]]]:
    """The distinct tool lists of the kit's cases of ``fmt``."""
    from toolparse.testing import cases
    from toolparse.testing.runner import subject_tools

    seen: Dict[str, List[Dict[str, Any]]] = {}
    for case in cases(fmt):
        ts = subject_tools(case)
        seen.setdefault(json.dumps(ts, sort_keys=True), ts)
    return list(seen.values())


def _digest(tag: Any) -> str:
    return hashlib.sha256(json.dumps(tag, ensure_ascii=False).encode()).hexdigest()[:16]


def _choices(tools: List[Dict[str, Any]]) -> List[Any]:
    first = tools[0]["function"]["name"]
    return ["auto", "required", "none", {"type": "function", "function": {"name": first}}]


REASONING: List[Optional[str]] = [None] + sorted(
    {tp_spec.reasoning_canonical(r) for r in tp_spec.REASONING}
)


def requests(
    fmt: str, tools: List[Dict[str, Any]], full: Optional[bool]
) -> Iterator[Tuple[str, Dict]]:
    reasonings = REASONING if full else [None, "qwen3"] if full is None else [None]
    for choice in _choices(tools):
        for strict in toolparse.grammar.STRICT_LEVELS:
            for parallel in (True, False):
                for reasoning in reasonings:
                    for started in (None, True, False) if reasoning else (None,):
                        args = dict(
                            tool_choice=choice,
                            strict=strict,
                            parallel_tool_calls=parallel,
                            reasoning=reasoning,
                            reasoning_started=started,
                        )
                        yield json.dumps(args), args


def digests(fmt: str, tools: List[Dict[str, Any]], full: Optional[bool]) -> str:
    """One hash over the tags of every request of the grid (in a fixed order)."""
    h = hashlib.sha256()
    for key, args in requests(fmt, tools, full):
        h.update(key.encode())
        h.update(_digest(toolparse.structural_tag(fmt, tools, **args)).encode())
    return h.hexdigest()[:20]


def tool_sets(fmt: str) -> Iterator[Tuple[str, List[Dict[str, Any]], Optional[bool]]]:
    """(name, tools, which reasoning formats are tried: True every one, None no reasoning and
    qwen3's, False no reasoning)."""
    yield "weather_time", SMALL["weather_time"], True
    yield "hostile", SMALL["hostile"], None
    for k, ts in enumerate(_kit_tools(fmt)):
        yield f"kit{k}", ts, False
    yield "bench100", bench_tools(), None


def main() -> int:
    out: Dict[str, Dict[str, str]] = {}
    for fmt in toolparse.list_formats():
        out[fmt] = {name: digests(fmt, ts, full) for name, ts, full in tool_sets(fmt)}
    json.dump(out, sys.stdout, indent=1, sort_keys=True)
    sys.stdout.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
