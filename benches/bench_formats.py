"""Rust core vs Python twin, alone and through the public API, streaming and not.

For every registered format (``benchlib``'s corpus, written by the conformance kit's renderers):
one ``write_file`` call whose ``content`` argument is 1 KB, 16 KB or 64 KB of source code, parsed
  * non-streaming (``extract``), and
  * streaming in 4-character deltas (split before timing),
each on the Rust core alone (``toolparse._core``), the Python twin alone (``toolparse.reference``),
and the public API (``get_parser(fmt, backend=...)``, DeltaMessage per delta) on both backends.

    python -m pytest benches --benchmark-enable --benchmark-group-by=group   # pytest-benchmark
    python benches/bench_formats.py --report                                # the targets' table

Under pyproject's default ``--benchmark-disable`` each benchmark runs once, as a plain test.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from typing import Any, Callable, Dict, List, Optional, Sequence

import benchlib as C
import toolparse
from toolparse import _core, reference

# ------------------------------------------------------------------------------------------------
# pytest-benchmark
# ------------------------------------------------------------------------------------------------

try:
    import pytest
except ImportError:  # --report needs no pytest
    pytest = None  # type: ignore[assignment]

if pytest is not None:
    _INPUTS: Dict[Any, Any] = {}

    def _inputs(fmt: str, size: str) -> Any:
        key = (fmt, size)
        if key not in _INPUTS:
            text = C.model_output(fmt, C.SIZES[size])
            _INPUTS[key] = (text, C.split(text))
        return _INPUTS[key]

    def _cases(mode: str) -> List[Any]:
        return [
            pytest.param(
                fmt,
                size,
                marks=pytest.mark.benchmark(group=f"{mode} {fmt} {size}"),
                id=f"{fmt}-{size}",
            )
            for fmt in C.bench_formats()
            for size in C.SIZES
        ]

    @pytest.mark.parametrize("impl", C.STREAM_IMPLS)
    @pytest.mark.parametrize("fmt,size", _cases("stream"))
    def test_stream(benchmark: Any, fmt: str, size: str, impl: str) -> None:
        """Streaming in 4-character deltas."""
        _, deltas = _inputs(fmt, size)
        benchmark.extra_info["deltas"] = len(deltas)
        benchmark(C.STREAM[impl], fmt, deltas)

    @pytest.mark.parametrize("impl", C.IMPLS)
    @pytest.mark.parametrize("fmt,size", _cases("extract"))
    def test_extract(benchmark: Any, fmt: str, size: str, impl: str) -> None:
        """Non-streaming: the whole text at once."""
        text, _ = _inputs(fmt, size)
        benchmark.extra_info["bytes"] = len(text.encode("utf-8"))
        benchmark(C.EXTRACT[impl], fmt, text)

    @pytest.mark.parametrize("backend", ["rust", "python"])
    @pytest.mark.parametrize("fmt", C.bench_formats())
    def test_corpus_parses(fmt: str, backend: str) -> None:
        """The benchmarked text is one complete call with the expected arguments, streaming and
        not (so the benches time real work, not an early fallback)."""
        sizes = C.SIZES if backend == "rust" else {"1KB": C.SIZES["1KB"]}
        for n in sizes.values():
            text = C.model_output(fmt, n)
            expected = C.arguments(n)
            info = C.EXTRACT[f"api_{backend}"](fmt, text)
            assert info.tools_called, (fmt, n)
            assert [c.function.name for c in info.tool_calls] == [C.CALL_NAME]
            assert json.loads(info.tool_calls[0].function.arguments) == expected
            content, calls = C.streamed_result(fmt, C.split(text), backend)
            assert content == info.content
            assert calls == [(c.function.name, c.function.arguments) for c in info.tool_calls]

    @pytest.mark.parametrize("delta_chars", [1, 4, 13])
    @pytest.mark.parametrize("fmt", C.bench_formats())
    def test_hold_back_is_bounded(fmt: str, delta_chars: int) -> None:
        """Held-back text is bounded: what a parser holds back between deltas is a possible
        marker prefix, not a buffer that grows with the text (checked on the twin, whose feed
        consumes what the Rust machine's does)."""
        p = reference.Parser(fmt, C.TYPES)
        held = 0
        for d in C.split(C.model_output(fmt, C.SIZES["16KB"]), delta_chars):
            p.feed(d)
            held = max(held, len(p._held))
        p.finish()
        # a possible marker prefix: at most the longest marker (plamo3's arguments marker is 100
        # characters), else 64
        bound = max([64, *(len(m) for m in toolparse.spec.get_spec(fmt).markers.values())])
        assert held <= bound, f"{fmt}: {held} characters held back between deltas"

    def test_every_format_is_benchmarked() -> None:
        missing = C.unrendered_formats()
        assert not missing, f"the conformance kit renders no large call for: {missing}"


# ------------------------------------------------------------------------------------------------
# --report: the performance targets' numbers, with time.perf_counter only
# ------------------------------------------------------------------------------------------------

REPORT_SIZES = {"4KB": 4 * C.KB, "16KB": 16 * C.KB, "64KB": 64 * C.KB}


STAT: Callable[[List[float]], float] = statistics.median  # --stat min: the best of the runs


# --clock cpu: this thread's CPU time, which a busy machine does not inflate
CLOCK: Callable[[], float] = time.perf_counter


MIN_SAMPLE = 0.02  # seconds: a short call is looped until one sample lasts this long


def _median_time(fn: Callable[..., Any], *args: Any, repeat: int = 5) -> float:
    """The statistic over ``repeat`` samples of the time of one call; a sample loops a short
    call enough times to last ``MIN_SAMPLE`` (timer resolution and scheduler noise otherwise
    swamp the small sizes and distort growth ratios)."""
    clock = CLOCK
    t0 = clock()
    fn(*args)
    once = max(clock() - t0, 1e-7)
    loops = max(1, int(MIN_SAMPLE / once))
    times = []
    for _ in range(repeat):
        t0 = clock()
        for _ in range(loops):
            fn(*args)
        times.append((clock() - t0) / loops)
    return STAT(times)


def _core_feed(fmt: str) -> Callable[[], Callable[[str], Any]]:
    return lambda: _core.Parser(fmt, C.TYPES).feed


def _api_feed(fmt: str) -> Callable[[], Callable[[str], Any]]:
    return lambda: toolparse.get_parser(fmt, tools=C.TOOLS, backend="rust").stream().feed


def report_format(fmt: str, repeat: int) -> Dict[str, float]:
    r: Dict[str, float] = {}
    stream: Dict[str, Dict[str, float]] = {impl: {} for impl in C.STREAM_IMPLS}
    inputs = {}
    for label, n in REPORT_SIZES.items():
        text = C.model_output(fmt, n)
        inputs[label] = (text, C.split(text))
        for impl in C.STREAM_IMPLS:
            stream[impl][label] = _median_time(C.STREAM[impl], fmt, inputs[label][1], repeat=repeat)
    deltas16 = inputs["16KB"][1]
    r["deltas_16KB"] = len(deltas16)
    r["ratio_core_16KB"] = stream["core_python"]["16KB"] / stream["core_rust"]["16KB"]
    r["ratio_feed_16KB"] = stream["feed_python"]["16KB"] / stream["feed_rust"]["16KB"]
    r["ratio_api_16KB"] = stream["api_python"]["16KB"] / stream["api_rust"]["16KB"]
    for impl in C.STREAM_IMPLS:
        r[f"ms_{impl}_16KB"] = stream[impl]["16KB"] * 1e3
        r[f"growth_{impl}"] = stream[impl]["64KB"] / stream[impl]["4KB"]
    r["mean_delta_api_us"] = stream["api_rust"]["16KB"] / len(deltas16) * 1e6
    r["mean_delta_core_us"] = stream["core_rust"]["16KB"] / len(deltas16) * 1e6
    r["mean_delta_feed_us"] = stream["feed_rust"]["16KB"] / len(deltas16) * 1e6
    r["median_delta_api_us"] = C.median_per_delta(_api_feed(fmt), deltas16, repeat)
    r["median_delta_core_us"] = C.median_per_delta(_core_feed(fmt), deltas16, repeat)
    text64 = inputs["64KB"][0]
    nbytes = len(text64.encode("utf-8"))
    for impl in ("api_rust", "core_rust", "api_python"):
        t = _median_time(C.EXTRACT[impl], fmt, text64, repeat=repeat)
        r[f"mbps_{impl}"] = nbytes / t / 1e6
    return r


TARGETS = [
    # (key, label, target text, passes)
    ("ratio_core_16KB", "core rust/twin 16KB stream", ">= 20x", lambda v: v >= 20),
    ("ratio_feed_16KB", "feed() tuples rust/twin 16KB stream", "", None),
    ("ratio_api_16KB", "API rust/python 16KB stream", "", None),
    ("growth_core_rust", "growth 64/4KB core rust", "<= 17", lambda v: v <= 17),
    ("growth_core_python", "growth 64/4KB core twin", "<= 17", lambda v: v <= 17),
    ("growth_feed_rust", "growth 64/4KB feed() rust", "<= 17", lambda v: v <= 17),
    ("growth_feed_python", "growth 64/4KB feed() twin", "<= 17", lambda v: v <= 17),
    ("growth_api_rust", "growth 64/4KB API rust", "<= 17", lambda v: v <= 17),
    ("growth_api_python", "growth 64/4KB API python", "<= 17", lambda v: v <= 17),
    ("median_delta_api_us", "median µs/delta API rust", "<= 3", lambda v: v <= 3),
    ("mean_delta_api_us", "mean µs/delta API rust", "", None),
    ("median_delta_core_us", "median µs/delta feed() rust", "<= 0.5", lambda v: v <= 0.5),
    ("mean_delta_core_us", "mean µs/delta core rust (replay)", "", None),
    ("mean_delta_feed_us", "mean µs/delta feed() rust", "", None),
    ("mbps_api_rust", "non-stream MB/s API rust 64KB", ">= 500", lambda v: v >= 500),
    ("mbps_core_rust", "non-stream MB/s core rust 64KB", "", None),
    ("mbps_api_python", "non-stream MB/s API python", "", None),
    ("ms_core_rust_16KB", "ms core rust 16KB stream", "", None),
    ("ms_core_python_16KB", "ms core twin 16KB stream", "", None),
    ("ms_api_rust_16KB", "ms API rust 16KB stream", "", None),
    ("ms_api_python_16KB", "ms API python 16KB stream", "", None),
]


def report(formats: Sequence[str], repeat: int, out: Any = sys.stdout) -> bool:
    """Prints the table; returns whether every target was met."""
    # An untimed pass first: otherwise the first format measured pays for what the first use of
    # the parsers does once (lazily built tables, the allocator's first pools, cold caches) and
    # misses targets it meets when measured second.
    report_format(formats[0], 1)
    results = {fmt: report_format(fmt, repeat) for fmt in formats}
    label_w = max(len(t[1]) for t in TARGETS)
    col_w = max(9, *(len(f) for f in formats))
    print(
        f"toolparse benchmarks: one {C.CALL_NAME} call, {C.DELTA_CHARS}-character deltas, "
        f"{STAT.__name__} of {repeat}, {CLOCK.__name__} (python {sys.version.split()[0]})",
        file=out,
    )
    print(
        f"{'metric'.ljust(label_w)} | {'target'.ljust(7)} | "
        + " | ".join(f.rjust(col_w) for f in formats),
        file=out,
    )
    print("-" * (label_w + 13 + (col_w + 3) * len(formats)), file=out)
    all_ok = True
    for key, label, target, passes in TARGETS:
        cells = []
        for fmt in formats:
            v = results[fmt][key]
            ok = passes is None or passes(v)
            all_ok &= ok
            text = f"{v:.1f}" if v >= 10 else f"{v:.2f}"
            cells.append((text + ("" if ok else " !")).rjust(col_w))
        print(f"{label.ljust(label_w)} | {target.ljust(7)} | " + " | ".join(cells), file=out)
    print(
        "deltas at 16KB: " + ", ".join(f"{f}={int(results[f]['deltas_16KB'])}" for f in formats),
        file=out,
    )
    print("all targets met" if all_ok else "'!' marks a missed target", file=out)
    return all_ok


def main(argv: Optional[Sequence[str]] = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--report", action="store_true", help="print the performance targets' table")
    p.add_argument(
        "--formats", nargs="*", help="formats to measure (default: every benchmarked one)"
    )
    p.add_argument("--repeat", type=int, default=5, help="runs per measurement (default 5)")
    p.add_argument(
        "--stat",
        choices=("median", "min"),
        default="median",
        help="statistic of the runs (default median; min resists a busy machine)",
    )
    C.add_clock_option(p)
    args = p.parse_args(argv)
    global STAT, CLOCK
    STAT = statistics.median if args.stat == "median" else min
    CLOCK = C.CLOCKS[args.clock]
    if not args.report:
        p.print_help()
        return 2
    formats = args.formats or C.bench_formats()
    unknown = [f for f in formats if f not in C.bench_formats()]
    if unknown:
        print(f"not benchmarkable here: {', '.join(unknown)}", file=sys.stderr)
        return 2
    report(formats, args.repeat)
    return 0


if __name__ == "__main__":
    sys.exit(main())
