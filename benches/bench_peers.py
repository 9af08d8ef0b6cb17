"""toolparse vs vLLM's own hermes parser, streaming a 16 KB argument in ~4-character deltas.

Optional: runs only where vLLM is importable, with the peers harness read at run time from the
folder ``$TOOLPARSE_PEERS_DIR`` names; it skips with a message otherwise. Nothing from the harness
is part of toolparse.

    bash "$TOOLPARSE_PEERS_DIR/setup.sh"                # a venv with vLLM's parsers (~3 min)
    $HOME/peers-venv/bin/pip install '.[test]'
    $HOME/peers-venv/bin/python benches/bench_peers.py  # the ratio (--clock cpu: busy host)
    $HOME/peers-venv/bin/python -m pytest benches/bench_peers.py --benchmark-enable

vLLM's parser is driven the way vLLM's serving layer calls it (``extract_tool_calls_streaming``
per delta with the accumulated text and token ids); only that call is timed, not the building of
the accumulated text. toolparse is timed through its public API (``stream().feed`` producing
DeltaMessages). Both get the same text split into the same deltas (the harness's chunker: ~4
characters, marker strings whole).
"""

from __future__ import annotations

import importlib
import importlib.util
import logging
import os
import statistics
import sys
import time
from pathlib import Path
from typing import Any, List, Optional, Sequence, Tuple

import toolparse
from toolparse.bench.peers import _load_path

SIZE = 16 * 1024
FORMAT = "hermes"
# `--clock cpu` (script mode): this thread's CPU time, which a busy machine does not inflate
CLOCK = time.perf_counter


def peers_dir() -> Optional[Path]:
    """The peers harness folder, from ``$TOOLPARSE_PEERS_DIR`` (None when it is not set)."""
    env = os.environ.get("TOOLPARSE_PEERS_DIR")
    return Path(env) if env else None


def load_harness() -> Tuple[Optional[Any], str]:
    """(harness, "") where vLLM's parsers import, else (None, why not)."""
    d = peers_dir()
    if d is None:
        return None, "TOOLPARSE_PEERS_DIR is not set (the peers harness folder)"
    if not (d / "peers.py").is_file():
        return None, f"no peers harness at {d} (set TOOLPARSE_PEERS_DIR)"
    if importlib.util.find_spec("vllm") is None:
        return None, "vLLM is not installed in this environment"
    # The harness's stand-in for torch (a sitecustomize that installs an import hook), unless a
    # real torch is installed or the stand-in is already active through PYTHONPATH.
    fake = d / "faketorch" / "sitecustomize.py"
    if "torch" not in sys.modules and importlib.util.find_spec("torch") is None and fake.is_file():
        _load_path("toolparse_bench_faketorch", fake)
    try:
        importlib.import_module("vllm")
    except Exception as e:  # ImportError, or anything vLLM's import raises without its deps
        return None, f"vLLM is not importable here ({type(e).__name__}: {e})"
    try:
        logging.disable(logging.WARNING)
        # The harness's modules are called `corpus` and `peers`; the project's tests have a
        # `corpus` module too, so load the harness's by path and put the name back afterwards.
        saved = sys.modules.pop("corpus", None)
        try:
            corpus = _load_path("corpus", d / "corpus.py")
            peers = _load_path("toolparse_bench_peers_harness", d / "peers.py")
        finally:
            if saved is not None:
                sys.modules["corpus"] = saved
            else:
                sys.modules.pop("corpus", None)
        from vllm.entrypoints.openai.chat_completion.protocol import ChatCompletionRequest
        from vllm.tool_parsers import ToolParserManager
    except Exception as e:
        return None, f"the peers harness does not load ({type(e).__name__}: {e})"

    class Harness:
        pass

    h = Harness()
    h.corpus, h.peers = corpus, peers  # type: ignore[attr-defined]
    h.Request, h.Manager = ChatCompletionRequest, ToolParserManager  # type: ignore[attr-defined]
    return h, ""


def case(h: Any, size: int = SIZE) -> Tuple[str, List[str]]:
    text = h.corpus.large_case(FORMAT, size).text
    return text, h.corpus.chunk(text, h.corpus.MARKERS[FORMAT])


def time_vllm(h: Any, text: str, chunks: List[str]) -> float:
    """Seconds spent inside vLLM's hermes ``extract_tool_calls_streaming`` over all deltas."""
    tok = h.peers.MockTokenizer(h.corpus.MARKERS[FORMAT], name=f"mock-{FORMAT}")
    req = h.Request(
        model="m",
        messages=[{"role": "user", "content": "hi"}],
        tools=h.corpus.TOOLS,
        tool_choice="auto",
    )
    cls = h.Manager.get_tool_parser(FORMAT)
    try:
        parser = cls(tok, req.tools)
    except TypeError:
        parser = cls(tok)
    ids = tok.token_ids(chunks)
    prev, prev_ids, total = "", [], 0.0
    for c, i in zip(chunks, ids):
        cur, cur_ids = prev + c, prev_ids + [i]
        t0 = CLOCK()
        parser.extract_tool_calls_streaming(prev, cur, c, prev_ids, cur_ids, [i], req)
        total += CLOCK() - t0
        prev, prev_ids = cur, cur_ids
    return total


def time_toolparse(chunks: List[str], backend: str = "rust") -> float:
    """Seconds for toolparse's public API to stream all deltas (DeltaMessage per delta)."""
    t0 = CLOCK()
    s = toolparse.get_parser(FORMAT, tools=None, backend=backend).stream()
    feed = s.feed
    for c in chunks:
        feed(c)
    s.finish()
    return CLOCK() - t0


def check_same_result(text: str, chunks: List[str]) -> None:
    """toolparse streams the call the corpus rendered (so the comparison is like for like)."""
    rec = toolparse.StreamingToolReconstructor()
    s = toolparse.get_parser(FORMAT).stream()
    rec.append_deltas(s.feed(c) for c in chunks)
    rec.append_deltas([s.finish()])
    assert [c.function.name for c in rec.tool_calls] == ["write_file"], rec.tool_calls


def report(repeat: int = 3, sizes: Sequence[int] = (4096, SIZE, 65536)) -> int:
    h, why = load_harness()
    if h is None:
        print(f"bench_peers: skipped: {why}")
        return 0
    import vllm

    print(
        f"{FORMAT}: vLLM {getattr(vllm, '__version__', '?')} parser alone vs toolparse "
        f"{toolparse.__version__} public API, ~4-character deltas, median of {repeat}, "
        f"{CLOCK.__name__}"
    )
    print(f"{'size':>6} | {'deltas':>6} | {'vLLM ms':>9} | {'toolparse ms':>12} | {'ratio':>7}")
    for size in sizes:
        text, chunks = case(h, size)
        check_same_result(text, chunks)
        v = statistics.median([time_vllm(h, text, chunks) for _ in range(repeat)])
        t = statistics.median([time_toolparse(chunks) for _ in range(max(repeat, 5))])
        print(
            f"{size // 1024:>4}KB | {len(chunks):>6} | {v * 1e3:>9.1f} | {t * 1e3:>12.2f} | "
            f"{v / t:>6.0f}x"
        )
    print("target: >= 100x at 16KB")
    return 0


# ------------------------------------------------------------------------------------------------
# pytest
# ------------------------------------------------------------------------------------------------

try:
    import pytest
except ImportError:  # script mode needs no pytest
    pytest = None  # type: ignore[assignment]

if pytest is not None:

    @pytest.fixture(scope="module")
    def harness() -> Any:
        h, why = load_harness()
        if h is None:
            pytest.skip(f"bench_peers: {why}")
        return h

    @pytest.mark.benchmark(group="peers hermes 16KB stream")
    def test_vllm_hermes_16kb(benchmark: Any, harness: Any) -> None:
        _, chunks = case(harness)
        text = "".join(chunks)
        # one round: it takes seconds; the timing includes building the accumulated text, which
        # the script mode (and vLLM's own timing harness) leaves out
        benchmark.pedantic(time_vllm, args=(harness, text, chunks), rounds=1, iterations=1)

    @pytest.mark.benchmark(group="peers hermes 16KB stream")
    def test_toolparse_hermes_16kb(benchmark: Any, harness: Any) -> None:
        text, chunks = case(harness)
        check_same_result(text, chunks)
        benchmark(time_toolparse, chunks)


def main(argv: Optional[Sequence[str]] = None) -> int:
    import argparse

    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--repeat", type=int, default=3, help="runs per measurement (median)")
    p.add_argument("--clock", choices=("wall", "cpu"), default="wall")
    args = p.parse_args(argv)
    global CLOCK
    CLOCK = time.perf_counter if args.clock == "wall" else time.thread_time
    return report(args.repeat)


if __name__ == "__main__":
    sys.exit(main())
