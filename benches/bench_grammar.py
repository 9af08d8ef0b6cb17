"""Building a strict-tool-calling structural tag (``toolparse.structural_tag``): once per request,
for 100 tools with typed schemas, under auto (strict parameter) and required, for one format of
each family. The target is 1 ms (median) for 100 tools.

    python -m pytest benches/bench_grammar.py --benchmark-enable
    python benches/bench_grammar.py --report

Under pyproject's default ``--benchmark-disable`` each benchmark runs once, as a plain test.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from typing import Any, Dict, List, Optional, Sequence

import pytest
import toolparse
from toolparse import spec as tp_spec
from toolparse.grammar import _CACHE, _clear_caches

N_TOOLS = 100


def tools(n: int = N_TOOLS) -> List[Dict[str, Any]]:
    """``n`` function tools, each with a string, an integer, an optional enum and a nested
    object parameter."""
    return [
        {
            "type": "function",
            "function": {
                "name": f"tool_{i}",
                "description": f"tool number {i}",
                "strict": True,
                "parameters": {
                    "type": "object",
                    "properties": {
                        "query": {"type": "string"},
                        "limit": {"type": "integer", "minimum": 1},
                        "mode": {"enum": ["fast", "exact"]},
                        "where": {"type": "object", "properties": {"lat": {"type": "number"}}},
                    },
                    "required": ["query", "limit"],
                },
            },
        }
        for i in range(n)
    ]


def distinct_tools(n: int = N_TOOLS) -> List[Dict[str, Any]]:
    """``n`` function tools whose schemas all differ, as a real tool list's do: some parameters
    of one shape across the tools (a query string, a mode enum, a nested location object), the
    others each tool's own (a string of its own length, an integer with its own minimum, a list
    of tags on every third tool, a flag on every fourth), and a required list that varies."""
    out = []
    for i in range(n):
        props: Dict[str, Any] = {
            "query": {"type": "string"},
            f"extra_{i}": {"type": "string", "maxLength": 10 + i},
            "limit": {"type": "integer", "minimum": i},
            "mode": {"enum": ["fast", "exact"]},
            "where": {
                "type": "object",
                "properties": {"lat": {"type": "number"}, "lon": {"type": "number"}},
            },
        }
        if i % 3 == 0:
            props["tags"] = {"type": "array", "items": {"type": "string"}}
        if i % 4 == 1:
            props[f"flag_{i}"] = {"type": "boolean"}
        required = ["query", "limit"] + ([f"extra_{i}"] if i % 2 else [])
        out.append(
            {
                "type": "function",
                "function": {
                    "name": f"tool_{i}",
                    "description": f"tool number {i}",
                    "parameters": {"type": "object", "properties": props, "required": required},
                },
            }
        )
    return out


def one_per_family() -> List[str]:
    seen: Dict[str, str] = {}
    for name in toolparse.list_formats():
        seen.setdefault(tp_spec.get_spec(name).family, name)
    return list(seen.values())


FORMATS = one_per_family()
TOOLS = tools()
DISTINCT = distinct_tools()


def build(fmt: str, choice: str) -> Optional[Dict[str, Any]]:
    """A request seen before (its tools, choice and options): what a server pays per request."""
    return toolparse.structural_tag(fmt, TOOLS, tool_choice=choice, strict="parameter")


def build_cold(fmt: str, choice: str) -> Optional[Dict[str, Any]]:
    """A request never seen: the whole generator runs (every cache of the builder emptied)."""
    _clear_caches()
    return build(fmt, choice)


def build_seen(fmt: str, choice: str) -> Optional[Dict[str, Any]]:
    """A request never seen whose tools were (another tool choice, strict level or tool list
    around them): the tags are built again, the calls of single tools kept are reused."""
    _CACHE.clear()
    return build(fmt, choice)


def build_distinct(fmt: str, choice: str) -> Optional[Dict[str, Any]]:
    """A request never seen whose 100 tools all have different schemas (every cache emptied)."""
    _clear_caches()
    return toolparse.structural_tag(fmt, DISTINCT, tool_choice=choice, strict="parameter")


BUILDS = {
    "repeat": build,
    "first": build_cold,
    "seen_tools": build_seen,
    "distinct": build_distinct,
}


@pytest.mark.parametrize("kind", list(BUILDS))
@pytest.mark.parametrize("choice", ["auto", "required"])
@pytest.mark.parametrize("fmt", FORMATS)
def test_structural_tag_for_100_tools(benchmark: Any, fmt: str, choice: str, kind: str) -> None:
    benchmark.group = f"structural_tag {N_TOOLS} tools: {choice}, {kind}"
    tag = benchmark(BUILDS[kind], fmt, choice)
    assert tag is not None and tag["type"] == "structural_tag"
    assert all(f"tool_{i}" in json.dumps(tag) for i in (0, N_TOOLS - 1))


def report(formats: Sequence[str], repeat: int) -> None:
    print(f"structural_tag for {N_TOOLS} tools, median of {repeat} (CPU time), strict=parameter")
    print("first: a request never seen (the generator runs); repeat: the same request again;")
    print("seen tools: a request never seen whose tools were (single tools' calls reused);")
    print("distinct: a request never seen, 100 tools of different schemas (distinct_tools)")
    print(
        f"{'format':<18}{'family':<16}{'auto first':>12}{'required first':>16}{'repeat':>10}"
        f"{'seen tools':>12}{'distinct':>10}{'req distinct':>14}  (ms)"
    )
    for fmt in formats:
        row = []
        for choice, fn in (
            ("auto", build_cold),
            ("required", build_cold),
            ("required", build),
            ("required", build_seen),
            ("auto", build_distinct),
            ("required", build_distinct),
        ):
            fn(fmt, choice)  # warm
            times = []
            for _ in range(repeat):
                t0 = time.thread_time()
                fn(fmt, choice)
                times.append(time.thread_time() - t0)
            row.append(statistics.median(times) * 1e3)
        family = tp_spec.get_spec(fmt).family
        print(
            f"{fmt:<18}{family:<16}{row[0]:>12.3f}{row[1]:>16.3f}{row[2]:>10.3f}{row[3]:>12.3f}"
            f"{row[4]:>10.3f}{row[5]:>14.3f}"
        )


def main(argv: Optional[Sequence[str]] = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--report", action="store_true", help="print a table instead of pytest")
    p.add_argument("--all", action="store_true", help="every format, not one per family")
    p.add_argument("--repeat", type=int, default=51)
    p.add_argument("formats", nargs="*", help="these formats (default: one per family)")
    args = p.parse_args(argv)
    if args.report:
        chosen = args.formats or (toolparse.list_formats() if args.all else FORMATS)
        report(chosen, args.repeat)
        return 0
    return pytest.main([__file__, "--benchmark-enable"])


if __name__ == "__main__":
    sys.exit(main())
