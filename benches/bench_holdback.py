"""Hold-back after a start marker (held-back text stays bounded): endless whitespace or
a very long name after a start marker, streamed in 1000-character deltas.

The count that matters is the most text a stream has been fed and not yet emitted ("pending", in
characters, the largest over the feeds): it must not grow with the filler. Each case asserts that
the pending count is the same for 100k and 200k characters of filler and within the cap (plus the
marker and one delta); pytest-benchmark times the 200k stream (never asserted).

    python -m pytest benches/bench_holdback.py --benchmark-enable
"""

from __future__ import annotations

from typing import List, Tuple

import pytest
from toolparse import _core, reference
from toolparse.reference.scan import NAME_MAX, WS_MAX

DELTA = 1000

# (format, start markup, filler, cap)
CASES: List[Tuple[str, str, str, int]] = [
    ("mistral", "[TOOL_CALLS]", " ", WS_MAX),
    ("mistral", "[TOOL_CALLS]", "a", NAME_MAX),
    ("mistral", "[TOOL_CALLS]f", " ", WS_MAX),
    ("llama3_json", "<|python_tag|>", " ", WS_MAX),
    ("llama3_json", '{"name": "', "a", NAME_MAX),
    ("pythonic", "[", " ", WS_MAX),
    ("pythonic", "[", "a", NAME_MAX),
    ("hermes", "<tool_call>", " ", WS_MAX),
    ("hermes", '<tool_call>{"name": "', "a", NAME_MAX),
    ("hermes", "<tool_call>{", " ", WS_MAX),
]


def pending(backend: str, fmt: str, text: str) -> int:
    """The most characters fed and not yet emitted as content, over the feeds."""
    p = _core.Parser(fmt, {}) if backend == "rust" else reference.Parser(fmt, {})
    fed = emitted = most = 0
    for i in range(0, len(text), DELTA):
        chunk = text[i : i + DELTA]
        fed += len(chunk)
        d = p.feed(chunk)
        if d is not None and d[0]:
            emitted += len(d[0])
        most = max(most, fed - emitted)
    p.finish()
    return most


@pytest.mark.parametrize("backend", ["rust", "python"])
@pytest.mark.parametrize("case", CASES, ids=lambda c: f"{c[0]}:{c[1]!r}+{c[2]!r}")
def test_holdback_does_not_grow(benchmark, backend: str, case: Tuple[str, str, str, int]) -> None:
    fmt, start, filler, cap = case
    small = pending(backend, fmt, start + filler * 100_000)
    text = start + filler * 200_000
    large = benchmark(pending, backend, fmt, text)
    benchmark.extra_info["pending"] = large
    assert large == small
    assert large <= len(start) + cap + 1 + DELTA
