"""Many tokens per delta: what toolparse costs per streamed delta when each delta carries 8 tokens
(speculative decoding, multi-token prediction, ``--stream-interval 8``) against one token, through
vLLM's ``ChatStreamProcessor.step``, SGLang's ``FunctionCallParser.parse_stream_chunk`` and
toolparse's public API (``stream.feed``, both backends).

One ``write_file`` call whose ``content`` argument is 16 KB of source code (the corpus of
``benchlib``), for hermes, mistral and qwen3_coder, streamed in deltas of one token (4 characters,
the other benches' delta) and of 8 tokens (32 characters), in one run:

    python benches/bench_delta_sizes.py --report --clock cpu  # the table docs/architecture.md has

The server paths are those of bench_server.py and bench_server_sglang.py (the same drivers), each
skipped when its server is not importable (run with the peers harness's torch stand-in). Under
pytest (``--benchmark-disable``: each benchmark runs once) every path is timed at both sizes and
its streamed result at 8 tokens per delta is checked against one token per delta.
"""

from __future__ import annotations

import argparse
import gc
import statistics
import sys
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple

import benchlib as C
import toolparse

FORMATS = C.SERVER_FORMATS
SIZE = 16 * C.KB
TOKENS = (1, 8)  # tokens per delta
TOKEN_CHARS = C.DELTA_CHARS  # a token: the other benches' 4-character delta


def _servers() -> Dict[str, Any]:
    """The server benches whose server imports here: "vllm" -> bench_server, "sglang" ->
    bench_server_sglang (imported only then: under pytest they skip their module otherwise)."""
    out: Dict[str, Any] = {}
    try:
        import vllm.tool_parsers  # noqa: F401
        from vllm.entrypoints.openai.chat_completion import stream_processor  # noqa: F401
    except Exception:  # noqa: BLE001 - vLLM absent or not importable (SGLang may still be)
        pass
    else:
        import bench_server

        if bench_server._vllm():
            out["vllm"] = bench_server
    try:
        from sglang.srt.function_call import function_call_parser  # noqa: F401
    except Exception:  # noqa: BLE001 - SGLang absent or not importable
        pass
    else:
        import bench_server_sglang

        out["sglang"] = bench_server_sglang
    return out


class Path:
    """One way a delta reaches toolparse: ``median`` (µs per delta, median over every delta of
    ``repeat`` runs), ``total`` (seconds for the whole stream, one run) and ``streamed``
    ((content, [(name, arguments)]) a client rebuilds)."""

    def __init__(
        self,
        median: Callable[[str, List[str], int], float],
        total: Callable[[str, List[str]], float],
        streamed: Callable[[str, List[str]], Tuple[Any, Sequence[Sequence[str]]]],
    ) -> None:
        self.median, self.total, self.streamed = median, total, streamed


def _api(backend: str) -> Path:
    def make(fmt: str) -> Callable[[str], Any]:
        return toolparse.get_parser(fmt, tools=C.TOOLS, backend=backend).stream().feed

    def total(fmt: str, deltas: List[str]) -> float:
        clock = C.server_clock()
        t0 = clock()
        C.STREAM[f"api_{backend}"](fmt, deltas)
        return clock() - t0

    return Path(
        lambda fmt, deltas, repeat: C.median_per_delta(lambda: make(fmt), deltas, repeat),
        total,
        lambda fmt, deltas: C.streamed_result(fmt, deltas, backend),
    )


def _server(bench: Any) -> Path:
    def name(fmt: str) -> str:
        return str(bench.parser_names(fmt)["toolparse"])

    median = getattr(bench, "median_step", None) or bench.median_per_delta
    return Path(
        lambda fmt, deltas, repeat: median(name(fmt), deltas, repeat),
        lambda fmt, deltas: bench.run_stream(name(fmt), deltas)[0],
        lambda fmt, deltas: bench.streamed(name(fmt), deltas),
    )


def paths() -> Dict[str, Path]:
    """label -> path: the servers that import here, then the public API on both backends."""
    out = {
        {"vllm": "vLLM step", "sglang": "SGLang chunk"}[k]: _server(b)
        for k, b in _servers().items()
    }
    out["API (rust)"] = _api("rust")
    out["API (python)"] = _api("python")
    return out


def deltas_of(fmt: str, tokens: int) -> List[str]:
    return C.split(C.model_output(fmt, SIZE), tokens * TOKEN_CHARS)


# ------------------------------------------------------------------------------------------------
# pytest
# ------------------------------------------------------------------------------------------------

try:
    import pytest
except ImportError:  # --report needs no pytest
    pytest = None  # type: ignore[assignment]

if pytest is not None and __name__ != "__main__":
    PATHS = paths()

    @pytest.mark.parametrize("tokens", TOKENS)
    @pytest.mark.parametrize("fmt", FORMATS)
    @pytest.mark.parametrize("path", list(PATHS))
    def test_stream(benchmark: Any, path: str, fmt: str, tokens: int) -> None:
        benchmark.group = f"delta-sizes-{path}-{fmt}"
        benchmark(PATHS[path].total, fmt, deltas_of(fmt, tokens))

    @pytest.mark.parametrize("fmt", FORMATS)
    @pytest.mark.parametrize("path", list(PATHS))
    def test_eight_tokens_stream_what_one_does(path: str, fmt: str) -> None:
        one = PATHS[path].streamed(fmt, deltas_of(fmt, 1))
        eight = PATHS[path].streamed(fmt, deltas_of(fmt, 8))
        assert [list(c) for c in eight[1]] == [list(c) for c in one[1]]
        assert [n for n, _ in one[1]] == [C.CALL_NAME]
        assert (eight[0] or None) == (one[0] or None)


# ------------------------------------------------------------------------------------------------
# --report
# ------------------------------------------------------------------------------------------------


def report(repeat: int, out: Any = sys.stdout) -> None:
    print(
        f"toolparse {toolparse.__version__}: a {SIZE // C.KB} KB write_file call streamed in "
        f"deltas of {' and '.join(str(t) for t in TOKENS)} tokens ({TOKEN_CHARS} characters "
        f"each); µs per delta: the median of {repeat} runs' medians over every delta; the whole "
        f"stream: the best of {repeat} runs; {C.server_clock().__name__} "
        f"(python {sys.version.split()[0]})",
        file=out,
    )
    head = (
        f"{'format':<12} {'path':<13} | {'1 token':>8} {'8 tokens':>9} {'ratio':>6} | "
        f"{'stream 1 (ms)':>13} {'stream 8 (ms)':>13} {'ratio':>6}"
    )
    print(head + "\n" + "-" * len(head), file=out)
    for fmt in FORMATS:
        for label, path in paths().items():
            deltas = {tokens: deltas_of(fmt, tokens) for tokens in TOKENS}
            runs: Dict[int, List[float]] = {tokens: [] for tokens in TOKENS}
            whole: Dict[int, float] = dict.fromkeys(TOKENS, float("inf"))
            # the sizes take turns, run after run: a machine that slows down slows both
            for _ in range(repeat):
                for tokens in TOKENS:
                    gc.collect()
                    runs[tokens].append(path.median(fmt, deltas[tokens], 1))
                    whole[tokens] = min(whole[tokens], path.total(fmt, deltas[tokens]) * 1e3)
            med = {tokens: statistics.median(r) for tokens, r in runs.items()}
            print(
                f"{fmt:<12} {label:<13} | {med[1]:>8.2f} {med[8]:>9.2f} {med[8] / med[1]:>5.2f}x"
                f" | {whole[1]:>13.2f} {whole[8]:>13.2f} {whole[8] / whole[1]:>5.2f}x",
                file=out,
            )


def main(argv: Optional[Sequence[str]] = None) -> int:
    p = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    p.add_argument("--report", action="store_true", help="print the table docs quote")
    p.add_argument("--repeat", type=int, default=5, help="runs per measurement (default 5)")
    C.add_clock_option(p)
    args = p.parse_args(argv)
    C._SERVER_CLOCK[0] = C.CLOCKS[args.clock]
    if not args.report:
        p.print_help()
        return 2
    report(args.repeat)
    return 0


if __name__ == "__main__":
    sys.exit(main())
