"""The reasoning pairs both servers' integration tests drive (``test_vllm_reasoning.py``,
``test_sglang_reasoning.py``): the texts, and what toolparse's one-pass machine makes of them (the
results the servers' streams and parses must equal)."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from typing import Any, Dict, List, Optional, Tuple

import corpus  # tests/ is on sys.path: tests/conftest.py
import toolparse
from server_cases import tools_for

BACKENDS = ("rust", "python")
# The pairs deployments run.
PAIRS = [("qwen3", "hermes"), ("qwen3", "qwen3_coder"), ("deepseek_r1", "deepseek_v3")]
PAIRS += [("mistral", "mistral")]

# (reasoning, content, calls), as a client rebuilds a message
Message = Tuple[Optional[str], Optional[str], List[Tuple[str, str]]]


def markers(r: str) -> Tuple[str, str]:
    s = toolparse.spec.REASONING[r]
    return s.start, s.end


def call_text(fmt: str, calls: List[Tuple[str, Dict[str, Any]]]) -> str:
    return corpus.renderer(fmt).render(calls).text


def tools_of(fmt: str) -> List[Dict[str, Any]]:
    """The tools of ``fmt``'s composite case, and get_weather."""
    case = corpus.composite_case(fmt)
    return tools_for([n for n, _ in case.calls] + ["get_weather"], case.tools)


def texts(r: str, fmt: str) -> List[Tuple[str, str]]:
    """(label, model output): a think block then content and calls; the seams."""
    start, end = markers(r)
    comp = corpus.composite_case(fmt).text
    one = call_text(fmt, [("get_weather", {"city": "Paris"})])
    inner = call_text(fmt, [("get_weather", {"city": f"{start}x{end} y"})])
    return [
        ("block+composite", f"{start}I should call.{end}\n\n{comp}"),
        ("block+call", f"{start}plan{end}{one}"),
        ("prompt_opened", f"plan{end}\n{one}"),
        ("call_in_unclosed_block", f"{start}plan then {one}"),
        ("markers_in_argument", f"{start}p{end}{inner}"),
        ("never_closed", f"{start}a long thought that never ends"),
        ("no_block", "Just an answer."),
        ("nested", f"{start}a{start}b{end}c{end}d"),
    ]


def fallback_texts(r: str, fmt: str) -> List[Tuple[str, str]]:
    """Malformed markup, and output cut inside its only call, after a think block (empty or
    not): the text after the block is content, as the server's two parsers give it."""
    start, end = markers(r)
    bad = corpus.malformed_texts(fmt)
    cut = corpus.truncated_texts(fmt)[0][0]
    return [
        ("empty_block_malformed", f"{start}{end}{bad[0]}"),
        ("block_malformed", f"{start}plan{end}\n{bad[-1]}"),
        ("empty_block_cut", f"{start}{end}{cut}"),
        ("block_cut", f"{start}p{end}{cut}"),
    ]


def one_pass_stream(
    r: str, fmt: str, backend: str, tools: Any, chunks: List[str], started: Optional[bool] = None
) -> Message:
    """What a client rebuilds from ``get_parser(F, tools, reasoning=R).stream()`` fed ``chunks``:
    the one-pass result where streaming cannot take back what it sent (malformed markup)."""
    stream = toolparse.get_parser(
        fmt, tools=tools, backend=backend, reasoning=r, reasoning_started=started
    ).stream()
    reasoning, content, calls = "", "", []
    for d in [stream.feed(c) for c in chunks] + [stream.finish()]:
        if d is None:
            continue
        content += d.content or ""
        reasoning += d.reasoning or ""
        for tc in d.tool_calls or []:
            if tc.index == len(calls):
                calls.append([tc.function.name, tc.function.arguments or ""])
            else:
                calls[tc.index][1] += tc.function.arguments or ""
    return reasoning or None, content or None, [(n, a) for n, a in calls]


def expected(
    r: str, fmt: str, backend: str, text: str, tools: Any, started: Optional[bool] = None
) -> Message:
    """The one-pass parse of ``text``."""
    info = toolparse.get_parser(
        fmt, tools=tools, backend=backend, reasoning=r, reasoning_started=started
    ).extract_tool_calls(text)
    calls = [(c.function.name, c.function.arguments) for c in info.tool_calls]
    return info.reasoning or None, info.content or None, calls


def check_never_imports_the_twin(script: str) -> None:
    """``script``, run in a fresh process on the Rust path, never imports the pure-Python twin
    (``toolparse.reference``)."""
    script += textwrap.dedent(
        """
        loaded = sorted(m for m in sys.modules if m.startswith("toolparse.reference"))
        assert not loaded, loaded
        print("OK")
        """
    )
    r = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=300)
    assert r.returncode == 0 and r.stdout.strip().endswith("OK"), r.stderr[-3000:]
