"""The benchmarks' shared code is ``benchlib.py`` (a plain module the bench scripts import); their
corpus is ``toolparse.bench.outputs`` (one large call per format, written by the conformance kit's
renderer). This file holds what is asked of the folder from outside it."""

from __future__ import annotations

from typing import List

from toolparse.bench.outputs import formats


def bench_formats() -> List[str]:
    """Registered formats the benchmarks run, in registry order (every one the kit renders)."""
    return formats()
