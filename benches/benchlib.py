"""What the benchmarks share: the corpus (one large ``write_file`` call in each format's wire text,
written by the conformance kit's renderer through ``toolparse.bench.outputs``, as
``toolparse bench`` times it), the deltas it is streamed in, the ways of running a parser that
the benches compare, and the timing and command-line helpers of their ``--report`` modes.

A plain module (no pytest needed): the bench scripts import it as ``benchlib``, from this folder
(``python benches/bench_formats.py``) and under pytest alike.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple

import toolparse
from toolparse import _core, reference
from toolparse.bench.outputs import CALL_NAME, TOOLS, arguments, model_output
from toolparse.bench.outputs import formats as bench_formats

__all__ = [
    "CALL_NAME",
    "CLOCKS",
    "DELTA_CHARS",
    "EXTRACT",
    "IMPLS",
    "KB",
    "SIZES",
    "STREAM",
    "STREAM_IMPLS",
    "SERVER_FORMATS",
    "SERVER_SIZES",
    "TOOLS",
    "TYPES",
    "add_clock_option",
    "arguments",
    "bench_formats",
    "best_of",
    "check_same_call",
    "server_clock",
    "server_main",
    "server_tests",
    "median_per_delta",
    "model_output",
    "split",
    "streamed_result",
    "unrendered_formats",
]

KB = 1024
SIZES = {"1KB": 1 * KB, "16KB": 16 * KB, "64KB": 64 * KB}
DELTA_CHARS = 4
# the benches inside vLLM's and SGLang's serving code
SERVER_FORMATS = ("hermes", "mistral", "qwen3_coder")
SERVER_SIZES = {"16KB": 16 * KB, "64KB": 64 * KB}

# what the core parsers take: function name -> parameter name -> the JSON Schema types it admits
TYPES: Dict[str, Dict[str, List[str]]] = {CALL_NAME: {"path": ["string"], "content": ["string"]}}


def unrendered_formats() -> List[str]:
    """Registered formats the corpus cannot write (none: the kit renders every format)."""
    written = set(bench_formats())
    return [f for f in toolparse.list_formats() if f not in written]


def split(text: str, size: int = DELTA_CHARS) -> List[str]:
    return [text[i : i + size] for i in range(0, len(text), size)]


# ------------------------------------------------------------------------------------------------
# The ways of running a parser. Each takes pre-built inputs; nothing is split or rendered inside
# the timed call.
# ------------------------------------------------------------------------------------------------


def stream_core_rust(fmt: str, deltas: List[str]) -> None:
    """The Rust core alone: every delta fed to the state machine in turn (`_core.replay`), no
    Python object per delta."""
    _core.replay(fmt, deltas, TYPES)


def stream_core_python(fmt: str, deltas: List[str]) -> None:
    """The pure-Python twin alone, the same way (`reference.replay`)."""
    reference.replay(fmt, deltas, TYPES)


def _streamed(open_stream: Callable[[str], Any], doc: str) -> Callable[[str, List[str]], None]:
    """A way of streaming: ``open_stream(fmt)`` (outside the loop), ``feed`` per delta, then
    ``finish``."""

    def run(fmt: str, deltas: List[str]) -> None:
        s = open_stream(fmt)
        feed = s.feed
        for d in deltas:
            feed(d)
        s.finish()

    run.__doc__ = doc
    return run


def _feed(module: Any) -> Callable[[str, List[str]], None]:
    return _streamed(
        lambda fmt: module.Parser(fmt, TYPES),
        f"`{module.__name__}.Parser.feed` per delta, tuples out, no Pydantic.",
    )


def _stream_api(backend: str) -> Callable[[str, List[str]], None]:
    return _streamed(
        lambda fmt: toolparse.get_parser(fmt, tools=TOOLS, backend=backend).stream(),
        f"The public API, backend={backend!r}: DeltaMessage per delta.",
    )


def _extract_api(backend: str) -> Callable[[str, str], Any]:
    def run(fmt: str, text: str) -> Any:
        return toolparse.get_parser(fmt, tools=TOOLS, backend=backend).extract_tool_calls(text)

    return run


IMPLS = ("core_rust", "core_python", "api_rust", "api_python")
STREAM_IMPLS = ("core_rust", "core_python", "feed_rust", "feed_python", "api_rust", "api_python")
STREAM: Dict[str, Callable[[str, List[str]], None]] = {
    "core_rust": stream_core_rust,
    "core_python": stream_core_python,
    "feed_rust": _feed(_core),
    "feed_python": _feed(reference),
    "api_rust": _stream_api("rust"),
    "api_python": _stream_api("python"),
}
EXTRACT: Dict[str, Callable[[str, str], Any]] = {
    "core_rust": lambda fmt, text: _core.extract(fmt, text, TYPES),
    "core_python": lambda fmt, text: reference.extract(fmt, text, TYPES),
    "api_rust": _extract_api("rust"),
    "api_python": _extract_api("python"),
}


def streamed_result(
    fmt: str, deltas: List[str], backend: str
) -> Tuple[Optional[str], List[Tuple[str, str]]]:
    """(content, [(name, arguments)]) rebuilt from the public API's deltas (for checks)."""
    rec = toolparse.StreamingToolReconstructor()
    s = toolparse.get_parser(fmt, tools=TOOLS, backend=backend).stream()
    rec.append_deltas(s.feed(d) for d in deltas)
    rec.append_deltas([s.finish()])
    return rec.other_content or None, [
        (c.function.name, c.function.arguments) for c in rec.tool_calls
    ]


# ------------------------------------------------------------------------------------------------
# Timing and the --report command lines
# ------------------------------------------------------------------------------------------------

# wall: time.perf_counter; cpu: this thread's CPU time, which other processes on a busy machine
# do not inflate (wall-clock runs longer than a scheduler slice get preempted there)
CLOCKS: Dict[str, Callable[[], float]] = {"wall": time.perf_counter, "cpu": time.thread_time}


def add_clock_option(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--clock",
        choices=tuple(CLOCKS),
        default="wall",
        help="time.perf_counter (default) or time.thread_time (CPU time: for a busy machine)",
    )


def best_of(fn: Callable[..., Any], repeat: int, *args: Any) -> float:
    """The shortest of ``repeat`` timed calls ``fn(*args)``, in seconds."""
    best = float("inf")
    for _ in range(repeat):
        t = time.perf_counter()
        fn(*args)
        best = min(best, time.perf_counter() - t)
    return best


def median_per_delta(
    make: Callable[[], Callable[[str], Any]], deltas: List[str], repeat: int
) -> float:
    """Median over every delta of ``repeat`` runs (each on a fresh ``make()``) of the time of one
    call per delta, minus the cost of the clock itself, in µs."""
    clock = time.perf_counter_ns
    overhead = statistics.median([-(clock() - clock()) for _ in range(20001)])
    samples: List[int] = []
    for _ in range(repeat):
        feed = make()
        for d in deltas:
            t0 = clock()
            feed(d)
            samples.append(clock() - t0)
    return max(statistics.median(samples) - overhead, 0) / 1000.0


def server_tests(
    server: str,
    peer: str,
    run_stream: Callable[[str, List[str]], Tuple[float, int]],
    parser_names: Callable[[str], Dict[str, str]],
    streamed: Callable[[str, List[str]], Tuple[Any, Sequence[Sequence[str]]]],
    same_call_formats: Sequence[str] = SERVER_FORMATS,
) -> Tuple[Callable[..., None], Callable[..., None]]:
    """The pytest tests of a bench inside a server's serving code: (toolparse and the server's
    built-in parser ``peer`` find the same call, for ``same_call_formats``; the toolparse stream
    timed through the server's path, for every server format and size)."""
    import pytest

    @pytest.mark.parametrize("fmt", same_call_formats)
    def test_same_call(fmt: str) -> None:
        names = parser_names(fmt)
        check_same_call(streamed, names["toolparse"], names[peer], fmt)

    @pytest.mark.parametrize("size", list(SERVER_SIZES))
    @pytest.mark.parametrize("fmt", SERVER_FORMATS)
    def test_stream(benchmark: Any, fmt: str, size: str) -> None:
        benchmark.group = f"{server}-server-{fmt}-{size}"
        deltas = split(model_output(fmt, SERVER_SIZES[size]))
        _, fed = benchmark(run_stream, parser_names(fmt)["toolparse"], deltas)
        assert fed == len(deltas)

    return test_same_call, test_stream


def check_same_call(
    streamed: Callable[[str, List[str]], Tuple[Any, Sequence[Sequence[str]]]],
    ours: str,
    theirs: str,
    fmt: str,
) -> None:
    """Both parsers (server parser names) find the corpus's one call in a 1 KB output streamed in
    the bench's deltas, with the same arguments."""
    deltas = split(model_output(fmt, 1024))
    mine = streamed(ours, deltas)[1]
    other = streamed(theirs, deltas)[1]
    assert len(mine) == 1 and mine[0][0] == CALL_NAME
    assert json.loads(mine[0][1]) == arguments(1024)
    assert [n for n, _ in other] == [CALL_NAME]
    assert json.loads(other[0][1]) == json.loads(mine[0][1])


_SERVER_CLOCK = [CLOCKS["wall"]]


def server_clock() -> Callable[[], float]:
    """The clock the server benches time with (their ``--clock``)."""
    return _SERVER_CLOCK[0]


def server_main(
    argv: Optional[Sequence[str]],
    doc: Optional[str],
    server: str,
    page: str,
    installed: Callable[[], Any],
    report: Callable[[Sequence[str], float, int], Any],
) -> int:
    """The command line of a bench inside a server's serving code (``--report`` prints the table
    the documentation ``page`` quotes)."""
    p = argparse.ArgumentParser(description=(doc or "").splitlines()[0])
    p.add_argument("--report", action="store_true", help=f"print the table {page} quotes")
    p.add_argument("--formats", nargs="*", default=list(SERVER_FORMATS), choices=SERVER_FORMATS)
    p.add_argument("--budget", type=float, default=20.0, help="seconds per built-in run")
    p.add_argument("--repeat", type=int, default=3, help="toolparse runs (default 3)")
    add_clock_option(p)
    args = p.parse_args(argv)
    _SERVER_CLOCK[0] = CLOCKS[args.clock]
    if not args.report:
        p.print_help()
        return 2
    if not installed():
        print(f"{server} is not installed: nothing to measure", file=sys.stderr)
        return 2
    report(args.formats, args.budget, args.repeat)
    return 0
