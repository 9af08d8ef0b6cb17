"""toolparse inside SGLang: per-delta cost of SGLang's own ``FunctionCallParser.parse_stream_chunk``
(what its serving layer calls for every streamed chunk) with ``--tool-call-parser toolparse_F``
against SGLang's built-in parser for the same format F.

One ``write_file`` call whose ``content`` argument is 16 KB or 64 KB of source code (the corpus of
``benchlib``), streamed in 4-character deltas, for hermes, mistral (``[TOOL_CALLS]N[ARGS]{...}``,
a form both parse) and qwen3_coder, in one run:

    python benches/bench_server_sglang.py --report     # the table docs/sglang.md quotes

SGLang's built-in parsers re-parse the whole text on every delta (O(n^2)); a run of one is cut off
after ``--budget`` seconds, and its per-delta cost (the mean so far, which only grows) is then a
lower bound, printed with ">=". Under pytest (``--benchmark-disable``: each benchmark runs once) the
toolparse runs are timed and a 1 KB run checks that both parsers find the same call.

Skipped when SGLang is not installed. Under the peers harness's torch stand-in vLLM is imported
first.
"""

from __future__ import annotations

import gc
import sys
from typing import Any, Dict, List, Optional, Sequence, Tuple

import benchlib as C

try:  # under the torch stand-in, SGLang imports only after vLLM
    import vllm.tool_parsers  # noqa: F401
except Exception:  # noqa: BLE001
    pass

FORMATS = C.SERVER_FORMATS
SIZES = C.SERVER_SIZES
TARGET_US = 3.5  # toolparse through parse_stream_chunk, per delta


def _sglang() -> Optional[Tuple[Any, Any, Any]]:
    """(FunctionCallParser, SGLang's Tool model, toolparse.integrations.sglang), or None."""
    try:
        from sglang.srt.entrypoints.openai.protocol import Tool
        from sglang.srt.function_call.function_call_parser import FunctionCallParser
        from toolparse.integrations import sglang as tp_sglang
    except ImportError:
        return None
    tp_sglang.register()
    return FunctionCallParser, Tool, tp_sglang


def parser_names(fmt: str) -> Dict[str, str]:
    """impl -> the --tool-call-parser name."""
    sg = _sglang()
    assert sg is not None
    return {"toolparse": sg[2].PREFIX + fmt, "sglang": sg[2].SGLANG_PEERS[fmt]}


def new_parser(name: str) -> Any:
    sg = _sglang()
    assert sg is not None
    FunctionCallParser, Tool, _ = sg
    return FunctionCallParser([Tool.model_validate(t) for t in C.TOOLS], name)


def run_stream(name: str, deltas: List[str], budget: Optional[float] = None) -> Tuple[float, int]:
    """Feeds every delta to a fresh parser's ``parse_stream_chunk``, then ``parse_stream_end``;
    returns (seconds, deltas fed). With ``budget``, stops once that many seconds have passed."""
    parser = new_parser(name)
    chunk = parser.parse_stream_chunk
    clock = C.server_clock()
    t0 = clock()
    if budget is None:
        for d in deltas:
            chunk(d)
        parser.parse_stream_end()
        return clock() - t0, len(deltas)
    deadline = t0 + budget
    fed = 0
    for d in deltas:
        chunk(d)
        fed += 1
        if fed % 64 == 0 and clock() > deadline:
            return clock() - t0, fed
    parser.parse_stream_end()
    return clock() - t0, fed


def median_per_delta(name: str, deltas: List[str], repeat: int) -> float:
    """Median over every delta of ``repeat`` runs of one ``parse_stream_chunk`` call, in µs."""
    return C.median_per_delta(lambda: new_parser(name).parse_stream_chunk, deltas, repeat)


def streamed(name: str, deltas: List[str]) -> Tuple[str, List[Tuple[str, str]]]:
    """(normal text, [(name, arguments)]) a client rebuilds from the parser's items."""
    parser = new_parser(name)
    text, calls = "", []
    for normal, items in [parser.parse_stream_chunk(d) for d in deltas] + [
        parser.parse_stream_end()
    ]:
        text += normal
        for item in items:
            if item.name:
                calls.append([item.name, item.parameters])
            else:
                calls[item.tool_index][1] += item.parameters
    return text, [(n, a) for n, a in calls]


# ------------------------------------------------------------------------------------------------
# pytest
# ------------------------------------------------------------------------------------------------

try:
    import pytest
except ImportError:  # --report needs no pytest
    pytest = None  # type: ignore[assignment]

if pytest is not None and __name__ != "__main__":
    if _sglang() is None:
        pytest.skip("SGLang is not installed", allow_module_level=True)

    test_same_call_both_parsers, test_stream_toolparse = C.server_tests(
        "sglang", "sglang", run_stream, parser_names, streamed
    )


# ------------------------------------------------------------------------------------------------
# --report
# ------------------------------------------------------------------------------------------------


def report(formats: Sequence[str], budget: float, repeat: int, out: Any = sys.stdout) -> bool:
    from importlib import metadata

    print(
        f"SGLang {metadata.version('sglang')}: FunctionCallParser.parse_stream_chunk per "
        f"{C.DELTA_CHARS}-character delta (then parse_stream_end), one write_file call; "
        f"toolparse: mean per delta (best of {repeat} runs) and median per delta; built-in: one "
        f"run, cut off after {budget:g} s; {C.server_clock().__name__} "
        f"(python {sys.version.split()[0]})",
        file=out,
    )
    head = (
        f"{'format':<12} {'size':>5} {'deltas':>6} | {'toolparse µs/delta':>18} "
        f"{'(median)':>8} | {'built-in µs/delta':>17} | {'built-in/toolparse':>18}"
    )
    print(head, file=out)
    print("-" * len(head), file=out)
    ok = True
    for fmt in formats:
        names = parser_names(fmt)
        for label, n in SIZES.items():
            deltas = C.split(C.model_output(fmt, n))
            gc.collect()  # the built-in's garbage from the previous row is not toolparse's cost
            ours_s = min(run_stream(names["toolparse"], deltas)[0] for _ in range(repeat))
            ours = ours_s / len(deltas) * 1e6
            med = median_per_delta(names["toolparse"], deltas, repeat)
            theirs_s, fed = run_stream(names["sglang"], deltas, budget=budget)
            theirs = theirs_s / fed * 1e6
            bound = ">=" if fed < len(deltas) else ""
            met = ours <= TARGET_US
            ok &= met
            print(
                f"{fmt:<12} {label:>5} {len(deltas):>6} | {ours:>16.2f}{'' if met else ' !':>2} "
                f"{med:>8.2f} | {bound + f'{theirs:.1f}':>17} | "
                f"{bound + f'{theirs / ours:.0f}x':>18}",
                file=out,
            )
    print(
        f"target: toolparse <= {TARGET_US} µs per delta (mean) through parse_stream_chunk; "
        + ("met" if ok else "'!' marks a miss"),
        file=out,
    )
    return ok


def main(argv: Optional[Sequence[str]] = None) -> int:
    return C.server_main(
        argv, __doc__, "SGLang", "docs/sglang.md", lambda: _sglang() is not None, report
    )


if __name__ == "__main__":
    sys.exit(main())
