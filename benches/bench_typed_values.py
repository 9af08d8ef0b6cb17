"""JSON-typed XML parameter values: a qwen3_coder call whose one parameter the schema types as an
``array`` (of strings) or an ``object`` (of string values), with N or 8N members, parsed
non-streaming (``extract``) and streamed in 4-character deltas (``replay``: the per-delta work
without Python objects per delta), on the Rust core and the Python twin. Such a value is converted
when its parameter closes (``normalize_json``), one pass over it: 8x the members should cost
about 8x the time on both backends.

    python -m pytest benches/bench_typed_values.py --benchmark-enable
    python benches/bench_typed_values.py --report

Under pyproject's default ``--benchmark-disable`` each benchmark runs once, as a plain test.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any, Dict, List, Optional, Sequence

import benchlib as C
from toolparse import _core, reference
from toolparse.testing import renderer

FMT = "qwen3_coder"
MEMBERS = 500  # the 1x size: about 9 KB (array) or 14 KB (object) of value
# what the core parsers take: function name -> parameter name -> the JSON Schema types it admits
TYPES: Dict[str, Dict[str, List[str]]] = {"f": {"xs": ["array"], "o": ["object"]}}


def value(kind: str, members: int) -> Any:
    if kind == "array":
        return [f"item number {i}" for i in range(members)]
    return {f"k{i}": f"value number {i}" for i in range(members)}


def output(kind: str, members: int) -> str:
    """One call whose parameter (``xs`` an array, ``o`` an object) holds ``members`` strings."""
    param = "xs" if kind == "array" else "o"
    return renderer(FMT).render([("f", {param: value(kind, members)})]).model_output


def _mod(backend: str) -> Any:
    return _core if backend == "rust" else reference


def _check(result: Any, kind: str, members: int) -> None:
    content, _, calls, malformed, truncated = result
    assert content is None and not malformed and not truncated
    [(_, name, args)] = calls
    param = "xs" if kind == "array" else "o"
    assert name == "f" and json.loads(args) == {param: value(kind, members)}


try:
    import pytest

    @pytest.mark.parametrize("backend", ["rust", "python"])
    @pytest.mark.parametrize("mult", [1, 8])
    @pytest.mark.parametrize("kind", ["array", "object"])
    def test_typed_value_stream(benchmark: Any, backend: str, mult: int, kind: str) -> None:
        chunks = C.split(output(kind, MEMBERS * mult))
        result = benchmark(_mod(backend).replay, FMT, chunks, TYPES)
        _check(result, kind, MEMBERS * mult)

    @pytest.mark.parametrize("backend", ["rust", "python"])
    @pytest.mark.parametrize("mult", [1, 8])
    @pytest.mark.parametrize("kind", ["array", "object"])
    def test_typed_value_extract(benchmark: Any, backend: str, mult: int, kind: str) -> None:
        text = output(kind, MEMBERS * mult)
        result = benchmark(_mod(backend).extract, FMT, text, TYPES)
        _check(result, kind, MEMBERS * mult)

except ImportError:  # pragma: no cover - the report needs no pytest
    pass


def report(repeat: int, members: int = MEMBERS, out: Any = sys.stdout) -> None:
    for backend in ("rust", "python"):
        mod = _mod(backend)
        for kind in ("array", "object"):
            per: Dict[str, Dict[int, float]] = {"stream": {}, "extract": {}}
            for mult in (1, 8):
                text = output(kind, members * mult)
                per["stream"][mult] = C.best_of(mod.replay, repeat, FMT, C.split(text), TYPES)
                per["extract"][mult] = C.best_of(mod.extract, repeat, FMT, text, TYPES)
                print(
                    f"{backend:6} {kind:6} {mult}x ({len(text) // 1024:3d} KB): stream "
                    f"{per['stream'][mult] * 1e3:8.3f} ms, extract "
                    f"{per['extract'][mult] * 1e3:8.3f} ms",
                    file=out,
                )
            print(
                f"{backend:6} {kind:6} growth 8x/1x: stream "
                f"{per['stream'][8] / per['stream'][1]:.1f}, extract "
                f"{per['extract'][8] / per['extract'][1]:.1f} (linear: 8)",
                file=out,
            )


def main(argv: Optional[Sequence[str]] = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--report", action="store_true", help="print the measurements")
    p.add_argument("--repeat", type=int, default=5, help="runs per measurement (best of)")
    p.add_argument(
        "--members", type=int, default=MEMBERS, help="members of the 1x value (default %(default)s)"
    )
    args = p.parse_args(argv)
    if args.report:
        report(args.repeat, args.members)
    return 0


if __name__ == "__main__":
    sys.exit(main())
