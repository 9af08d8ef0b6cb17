"""Reasoning in the same pass: a think block of 4, 16 or 64 KB followed by one hermes call,
streamed in 4-character deltas through the core (``replay``: the per-delta work without Python
objects per delta), on the Rust core and the Python twin; and what the front costs when the
output has no think block.

    python -m pytest benches/bench_reasoning.py --benchmark-enable
    python benches/bench_reasoning.py --report

Under pyproject's default ``--benchmark-disable`` each benchmark runs once, as a plain test.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any, Callable, Optional, Sequence

import benchlib as C
from toolparse import _core, reference
from toolparse.testing import renderer

KB = 1024
# one hermes call, written by the conformance kit's renderer
CALL = renderer("hermes").render([("f", {"path": "a.py", "mode": "w"})]).model_output
_LINE = "The user wants the file; first check the path, then <write> it.\n"


def output(size: int) -> str:
    """A think block of ``size`` bytes (the prompt opened it) and a call after it."""
    body = (_LINE * (size // len(_LINE) + 1))[:size]
    return body + "</think>\n" + CALL


def _replay(backend: str) -> Callable[..., Any]:
    return _core.replay if backend == "rust" else reference.replay


try:
    import pytest

    @pytest.mark.parametrize("backend", ["rust", "python"])
    @pytest.mark.parametrize("size", [4 * KB, 16 * KB])
    def test_think_block_then_call(benchmark: Any, backend: str, size: int) -> None:
        chunks = C.split(output(size))
        content, reasoning, calls, malformed, _ = benchmark(
            _replay(backend), "hermes", chunks, {}, "qwen3", None
        )
        assert reasoning == output(size)[:size] and content is None and not malformed
        assert [n for _, n, _ in calls] == ["f"]

except ImportError:  # pragma: no cover - the report needs no pytest
    pass


def report(repeat: int, out: Any = sys.stdout) -> None:
    for backend in ("rust", "python"):
        replay = _replay(backend)
        per = {}
        for size in (4 * KB, 16 * KB, 64 * KB):
            chunks = C.split(output(size))
            t = C.best_of(replay, repeat, "hermes", chunks, {}, "qwen3", None)
            per[size] = t
            print(
                f"{backend:6} think {size // KB:2d} KB + call: {t * 1e3:8.3f} ms, "
                f"{t / len(chunks) * 1e6:.3f} µs/delta ({len(chunks)} deltas)",
                file=out,
            )
        print(
            f"{backend:6} growth 64/4 KB: {per[64 * KB] / per[4 * KB]:.1f} (linear: 16)", file=out
        )
        # no think block: the front hands over at the first delta
        chunks = C.split(CALL + ("x" * 16 * KB))
        plain = C.best_of(replay, repeat, "hermes", chunks, {})
        front = C.best_of(replay, repeat, "hermes", chunks, {}, "qwen3", False)
        print(
            f"{backend:6} no think block, 16 KB: without reasoning {plain / len(chunks) * 1e6:.3f}"
            f" µs/delta, with qwen3 (off) {front / len(chunks) * 1e6:.3f} µs/delta",
            file=out,
        )


def main(argv: Optional[Sequence[str]] = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--report", action="store_true", help="print the measurements")
    p.add_argument("--repeat", type=int, default=7, help="runs per measurement (best of)")
    args = p.parse_args(argv)
    if args.report:
        report(args.repeat)
    return 0


if __name__ == "__main__":
    sys.exit(main())
