"""Peak memory of one large XML array value: a qwen3_coder call whose
array parameter is N MB of JSON, parsed non-streaming and streamed in 4 KB deltas, each run in a
fresh interpreter. The count that matters is the peak resident-set growth over the text's size
(it was 42-91x before the XML family's values were linear); it must stay a small constant, the same
at 2 MB and 8 MB. Not timed.

    python benches/bench_memory.py --report      # both backends, 2 and 10 MB; the twin's growth

The report also gives the growth of the twin's time on an object value (the twin was once
quadratic in qwen3_coder array and object values): a 4x longer value in 3-character deltas should
take about 4x as long (16x if quadratic). Reported, never asserted.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from typing import Dict, Tuple

import pytest

# Run in a child interpreter: ru_maxrss is the process's peak, so each measurement needs its own.
CHILD = r"""
import json, resource, sys, toolparse
backend, mode, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
arr = json.dumps(list(range(n // 6)))[:n]
arr = arr[: arr.rfind(",")] + "]"
text = ("<tool_call>\n<function=f>\n<parameter=a>\n" + arr
        + "\n</parameter>\n</function>\n</tool_call>")
schema = {"type": "object", "properties": {"a": {"type": "array"}}}
tools = [{"type": "function", "function": {"name": "f", "parameters": schema}}]
p = toolparse.get_parser("qwen3_coder", tools=tools, backend=backend)
base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
if mode == "extract":
    args = p.extract_tool_calls(text).tool_calls[0].function.arguments
else:
    s, parts = p.stream(), []
    for i in range(0, len(text), 4096):
        d = s.feed(text[i : i + 4096])
        if d is not None and d.tool_calls:
            parts += [c.function.arguments or "" for c in d.tool_calls]
    s.finish()
    args = "".join(parts)
assert json.loads(args) == {"a": json.loads(arr)}
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
print(json.dumps({"text": len(text), "growth": (peak - base) * 1024}))
"""


def measure(backend: str, mode: str, n: int) -> Tuple[int, int]:
    """(text size, peak RSS growth) in bytes."""
    out = subprocess.run(
        [sys.executable, "-c", CHILD, backend, mode, str(n)],
        capture_output=True,
        text=True,
        check=True,
    )
    r: Dict[str, int] = json.loads(out.stdout)
    return r["text"], r["growth"]


@pytest.mark.skipif(sys.platform == "win32", reason="resource.getrusage is POSIX")
@pytest.mark.parametrize("mode", ["extract", "stream"])
def test_peak_memory_is_a_small_constant_of_the_text(mode: str) -> None:
    ratios = []
    for n in (2_000_000, 8_000_000):
        size, growth = measure("rust", mode, n)
        ratios.append(growth / size)
    # A small constant: the text, the arguments string and the core's value buffer, a few times
    # over; and no worse for the larger text (linear, not quadratic).
    assert max(ratios) <= 12, ratios
    assert ratios[1] <= ratios[0] * 1.5 + 1, ratios


def twin_growth() -> float:
    """Time of the twin on a 320k-character object value over an 80k one, 3-character deltas."""
    import time

    from toolparse import reference

    types = {"f": {"o": ["object"]}}

    def run(n: int) -> float:
        text = '<tool_call>\n<function=f>\n<parameter=o>\n{"k": "' + "x" * n + '"}\n'
        text += "</parameter>\n</function>\n</tool_call>"
        chunks = [text[i : i + 3] for i in range(0, len(text), 3)]
        t = time.perf_counter()
        p = reference.Parser("qwen3_coder", types)
        for c in chunks:
            p.feed(c)
        p.finish()
        return time.perf_counter() - t

    small = min(run(80_000) for _ in range(3))
    large = min(run(320_000) for _ in range(3))
    return large / small


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--report", action="store_true", required=True)
    ap.parse_args()
    for backend in ("rust", "python"):
        for mode in ("extract", "stream"):
            for n in (2_000_000, 10_000_000):
                size, growth = measure(backend, mode, n)
                mb = growth / 1e6
                print(
                    f"{backend:6} {mode:7} {size / 1e6:5.1f} MB text: peak RSS +{mb:6.1f} MB"
                    f" ({growth / size:.1f}x)"
                )
    print(f"twin time, object value 320k / 80k characters: {twin_growth():.1f}x (linear: ~4)")


if __name__ == "__main__":
    main()
