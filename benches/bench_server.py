"""toolparse inside vLLM: per-delta cost of vLLM's own serving step, ``ChatStreamProcessor.step``
(what its OpenAI server calls for every streamed chunk), with ``--tool-call-parser toolparse_F``,
vLLM's built-in parser for F, and an engine-based parser that does nothing (vLLM's own floor: the
cost of the step itself), plus the toolparse parser call alone.

One ``write_file`` call whose ``content`` argument is 16 KB or 64 KB of source code (the corpus of
``benchlib``), streamed in 4-character deltas, for hermes, mistral (``[TOOL_CALLS]N[ARGS]{...}``)
and qwen3_coder, in one run:

    python benches/bench_server.py --report     # the table docs/vllm.md quotes

vLLM's built-in parsers re-parse the accumulated text on every delta; a run of one is cut off after
``--budget`` seconds, and its per-delta cost (the mean so far, which only grows) is then a lower
bound, printed with ">=". Under pytest (``--benchmark-disable``: each benchmark runs once) the
toolparse runs are timed and a 1 KB run checks that toolparse and vLLM find the same call.

Skipped when vLLM is not installed (run with the peers harness's torch stand-in).
"""

from __future__ import annotations

import gc
import statistics
import sys
import time
from typing import Any, Dict, List, Optional, Sequence, Tuple

import benchlib as C

FORMATS = C.SERVER_FORMATS
SIZES = C.SERVER_SIZES
TARGET_STEP_US = 8.0  # toolparse through ChatStreamProcessor.step, per delta
TARGET_PARSER_US = 3.5  # the toolparse parser call alone
NULL = "toolparse_bench_null"


_VLLM: Dict[str, Any] = {}


class _Tokenizer:
    """What vLLM's parser construction reads of a tokenizer (the markers as vocabulary entries)."""

    name_or_path = "mock"
    all_special_tokens: List[str] = []
    all_special_ids: List[int] = []
    _vocab = {"<tool_call>": 1, "</tool_call>": 2, "[TOOL_CALLS]": 3, "[ARGS]": 4, "<unk>": 0}

    def get_vocab(self) -> Dict[str, int]:
        return dict(self._vocab)

    def decode(self, ids: Any, **_: Any) -> str:
        return ""

    def encode(self, text: str, **_: Any) -> List[int]:
        return [0] * len(text)

    def convert_tokens_to_ids(self, t: Any) -> Any:
        return self._vocab.get(t, 0) if isinstance(t, str) else [self._vocab.get(x, 0) for x in t]


def _vllm() -> bool:
    if _VLLM:
        return True
    try:
        from toolparse.integrations import vllm as tp_vllm
        from vllm.entrypoints.openai.chat_completion.protocol import ChatCompletionRequest
        from vllm.entrypoints.openai.chat_completion.stream_processor import ChatStreamProcessor
        from vllm.parser.parser_manager import ParserManager
        from vllm.tool_parsers import ToolParser, ToolParserManager
    except ImportError:
        return False

    class NullToolParser(ToolParser):  # type: ignore[misc]
        """Engine-based and does nothing: what is left is vLLM's own cost per step."""

        engine_based_streaming = True

        def extract_tool_calls(self, model_output: str, request: Any) -> Any:
            raise NotImplementedError

        def extract_tool_calls_streaming(self, *args: Any) -> None:
            return None

        def finish_streaming(self) -> None:
            return None

    ToolParserManager.register_module(NULL, force=True, module=NullToolParser)
    _VLLM.update(
        tp=tp_vllm,
        Request=ChatCompletionRequest,
        Processor=ChatStreamProcessor,
        ParserManager=ParserManager,
    )
    return True


def parser_names(fmt: str) -> Dict[str, str]:
    """impl -> the --tool-call-parser name."""
    return {"toolparse": _VLLM["tp"].PREFIX + fmt, "vllm": fmt, "floor": NULL}


TOK = _Tokenizer()


def new_processor(name: str) -> Tuple[Any, Any]:
    """(ChatStreamProcessor, the request's Parser) as vLLM's server makes them per request."""
    cls = _VLLM["ParserManager"].get_parser(
        tool_parser_name=name, enable_auto_tools=True, model_name="mock"
    )
    request = _VLLM["Request"](
        model="mock",
        messages=[{"role": "user", "content": "hi"}],
        tools=C.TOOLS,
        tool_choice="auto",
    )
    parser = cls(TOK, request.tools, chat_template_kwargs=None, model_config=None)
    return _VLLM["Processor"](request, parser, enable_auto_tools=True, parser_cls=cls), parser


def run_stream(name: str, deltas: List[str], budget: Optional[float] = None) -> Tuple[float, int]:
    """One ``step`` per delta (the engine's ``stop`` on the last); returns (seconds, deltas fed).
    With ``budget``, stops once that many seconds have passed."""
    proc, _ = new_processor(name)
    step = proc.step
    ids = [0]
    prompt = [0]
    last = len(deltas) - 1
    clock = C.server_clock()
    t0 = clock()
    deadline = None if budget is None else t0 + budget
    for i, d in enumerate(deltas):
        step(d, ids, "stop" if i == last else None, prompt)
        if deadline is not None and i % 64 == 63 and clock() > deadline:
            return clock() - t0, i + 1
    return clock() - t0, len(deltas)


def parser_alone(name: str, deltas: List[str]) -> float:
    """Seconds for the toolparse ToolParser's own calls (``extract_tool_calls_streaming`` per
    delta, ``finish_streaming``), as vLLM's engine-based path makes them."""
    _, parser = new_processor(name)
    tp = parser.tool_parser
    call = tp.extract_tool_calls_streaming
    request = None
    clock = C.server_clock()
    t0 = clock()
    for d in deltas:
        call("", "", d, (), (), (), request)
    tp.finish_streaming()
    return clock() - t0


def median_step(name: str, deltas: List[str], repeat: int) -> float:
    """Median over every delta of ``repeat`` runs of one ``step`` call, in µs."""
    clock = time.perf_counter_ns
    overhead = statistics.median([-(clock() - clock()) for _ in range(20001)])
    samples: List[int] = []
    for _ in range(repeat):
        step = new_processor(name)[0].step
        for d in deltas:
            t0 = clock()
            step(d, [0], None, [0])
            samples.append(clock() - t0)
    return max(statistics.median(samples) - overhead, 0) / 1000.0


def streamed(name: str, deltas: List[str]) -> Tuple[str, List[List[str]]]:
    """(content, [[name, arguments]]) a client rebuilds from the deltas."""
    proc, _ = new_processor(name)
    text, calls = "", []
    for i, d in enumerate(deltas):
        delta = proc.step(d, [0], "stop" if i == len(deltas) - 1 else None, [0]).delta
        if delta is None:
            continue
        text += delta.content or ""
        for tc in delta.tool_calls or []:
            fn = tc.function
            if fn is not None and fn.name:
                calls.append([fn.name, fn.arguments or ""])
            elif fn is not None:
                calls[tc.index][1] += fn.arguments or ""
    return text, calls


# ------------------------------------------------------------------------------------------------
# pytest
# ------------------------------------------------------------------------------------------------

try:
    import pytest
except ImportError:  # --report needs no pytest
    pytest = None  # type: ignore[assignment]

if pytest is not None and __name__ != "__main__":
    if not _vllm():
        pytest.skip("vLLM is not installed", allow_module_level=True)

    # vLLM's mistral parser needs Mistral's own tokenizer to find a call
    test_same_call_toolparse_and_vllm, test_step_toolparse = C.server_tests(
        "vllm", "vllm", run_stream, parser_names, streamed, ("hermes", "qwen3_coder")
    )


# ------------------------------------------------------------------------------------------------
# --report
# ------------------------------------------------------------------------------------------------


def report(formats: Sequence[str], budget: float, repeat: int, out: Any = sys.stdout) -> bool:
    from importlib import metadata

    print(
        f"vLLM {metadata.version('vllm')}: ChatStreamProcessor.step per {C.DELTA_CHARS}-character "
        f"delta, one write_file call; toolparse and the floor: mean per delta (best of {repeat}) "
        f"and median; built-in: one run, cut off after {budget:g} s; "
        f"{C.server_clock().__name__}",
        file=out,
    )
    head = (
        f"{'format':<12} {'size':>5} {'deltas':>6} | {'floor':>6} | {'toolparse':>9} "
        f"{'(median)':>8} {'parser':>6} | {'built-in':>9} | {'built-in/toolparse':>18}"
    )
    print(head + "\n" + "-" * len(head), file=out)
    ok = True
    for fmt in formats:
        names = parser_names(fmt)
        per = {}
        # A built-in that finds no call here (vLLM's mistral parser needs Mistral's own tokenizer)
        # is not timed: its cost would be that of passing text through.
        small = C.split(C.model_output(fmt, 1024))
        try:
            finds = [n for n, _ in streamed(names["vllm"], small)[1]] == [C.CALL_NAME]
        except Exception:  # noqa: BLE001 - a built-in that cannot run here
            finds = False
        for label, n in SIZES.items():
            deltas = C.split(C.model_output(fmt, n))
            gc.collect()
            floor = min(run_stream(names["floor"], deltas)[0] for _ in range(repeat))
            ours = min(run_stream(names["toolparse"], deltas)[0] for _ in range(repeat))
            alone = min(parser_alone(names["toolparse"], deltas) for _ in range(repeat))
            med = median_step(names["toolparse"], deltas, repeat)
            theirs: Optional[float] = None
            bound = "n/a"
            if finds:
                theirs_s, fed = run_stream(names["vllm"], deltas, budget=budget)
                theirs = theirs_s / fed * 1e6
                bound = ">=" if fed < len(deltas) else ""
            us = ours / len(deltas) * 1e6
            alone_us = alone / len(deltas) * 1e6
            per[label] = us
            met = us <= TARGET_STEP_US and alone_us <= TARGET_PARSER_US
            ok &= met
            ratio = "" if theirs is None else f"{bound}{theirs / us:.1f}x"
            shown = bound if theirs is None else f"{bound}{theirs:.1f}"
            print(
                f"{fmt:<12} {label:>5} {len(deltas):>6} | {floor / len(deltas) * 1e6:>6.2f} | "
                f"{us:>7.2f}{'' if met else ' !':>2} {med:>8.2f} {alone_us:>6.2f} | "
                f"{shown:>9} | {ratio:>18}",
                file=out,
            )
        growth = per["64KB"] / per["16KB"]
        ok &= growth <= 1.5
        print(f"{fmt:<12} per delta 64KB/16KB = {growth:.2f} (target <= 1.5)", file=out)
    print(
        f"targets: toolparse <= {TARGET_STEP_US} µs per step, the parser call alone <= "
        f"{TARGET_PARSER_US} µs; " + ("met" if ok else "'!' marks a miss"),
        file=out,
    )
    return ok


def main(argv: Optional[Sequence[str]] = None) -> int:
    return C.server_main(argv, __doc__, "vLLM", "docs/vllm.md", _vllm, report)


if __name__ == "__main__":
    sys.exit(main())
