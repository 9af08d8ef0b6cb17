"""Reasoning in the same pass as tool calls: the think-block front (rust/reasoning.rs and its
twin reference/reasoning.py) under every reasoning format, paired with tool formats.

Every case runs on both backends' cores fed in lockstep (identical per feed), under every
single cut, one character per delta and random multi-way splits, and non-streaming."""

from __future__ import annotations

import os
import random
from typing import Any, List, Optional, Sequence, Tuple

import helpers
import pytest
import toolparse
from corpus import accumulate, chunks_at, split_plans
from hypothesis import given, settings
from hypothesis import strategies as st
from toolparse import _core, reference

BACKENDS = ("rust", "python")
# the texts of vLLM's reasoning parser tests
R = "This is a reasoning section"
REST = "This is the rest"
CALL = '<tool_call>{"name": "f", "arguments": {"a": 1}}</tool_call>'
QCALL = "<tool_call>\n<function=f>\n<parameter=a>\n1\n</parameter>\n</function>\n</tool_call>"
MCALL = '[TOOL_CALLS]f[ARGS]{"a": 1}'
# the formats that separate a think block (not harmony's, nor minimax_m2_append_think's prefix)
THINKS = [
    r for r, s in toolparse.spec.REASONING.items() if s.tool_format is None and not s.content_prefix
]

Result = Tuple[Optional[str], Optional[str], List[Tuple[str, str]]]


def _parser(backend: str, fmt: Optional[str], r: str, started: Optional[bool]) -> Any:
    mod: Any = _core if backend == "rust" else reference
    return mod.Parser(fmt, {}, r, started)


def _extract(backend: str, fmt: Optional[str], r: str, started: Optional[bool], text: str) -> Any:
    mod: Any = _core if backend == "rust" else reference
    return mod.extract(fmt, text, {}, r, started)


def stream_twins(
    fmt: Optional[str], r: str, started: Optional[bool], chunks: Sequence[str]
) -> Result:
    """Both cores fed the same deltas; identical per feed; the accumulated result."""
    a, b = _parser("rust", fmt, r, started), _parser("python", fmt, r, started)
    deltas = []
    for c in list(chunks) + [None]:
        da = a.feed(c) if c is not None else a.finish()
        db = b.feed(c) if c is not None else b.finish()
        assert da == db, (fmt, r, list(chunks), da, db)
        deltas.append(da)
    s = accumulate(deltas)
    return s.result()


def check(fmt: Optional[str], r: str, started: Optional[bool], text: str, expected: Result) -> None:
    """Every single cut, one character per delta, random splits; and non-streaming."""
    rng = random.Random(text)
    plans = [chunks_at(text, [i]) for i in range(len(text) + 1)]
    plans += split_plans(text, rng, n_random=10)
    for chunks in plans:
        assert stream_twins(fmt, r, started, chunks) == expected, (fmt, r, chunks)
    for backend in BACKENDS:
        content, reasoning, calls, malformed, _ = _extract(backend, fmt, r, started, text)
        assert not malformed
        assert (content, reasoning, [(n, a) for _, n, a in calls]) == expected, (backend, text)


# --- the peers' cases (the shapes of vLLM's tests/reasoning/ for think-tag parsers) ---------


def _peer_cases(
    start: str, end: str, started: bool, trim: bool = False, lstrip: str = "", stray: bool = False
) -> List[Tuple[str, Result]]:
    # vLLM's engine parsers (spec "trim") drop the whitespace that ends the reasoning; granite's
    # thinking parser (spec "content_lstrip") the newlines that open the content after the block
    nl = "" if trim else "\n"
    rest = f"\n{REST}".lstrip(lstrip) if lstrip else f"\n{REST}"
    cases = [
        (f"{start}{R}{end}{REST}", ((REST, R, []))),
        (f"{start}{R}{end}", (None, R, [])),
        (f"{start}{R}", (None, R, [])),
        (f"{start}{end}{REST}", (REST, None, [])),
        (f"{start}{R}\n{end}\n{REST}", (rest, f"{R}{nl}", [])),
        (f"{start}Reasoning with {start} inside{end}x", ("x", "Reasoning with  inside", [])),
    ]
    if started:
        # the prompt opened the block: the output need not repeat the start marker
        cases += [
            (f"{R}{end}{REST}", (REST, R, [])),
            (R, (None, R, [])),
        ]
    else:
        cases += [
            (REST, (REST, None, [])),
            # an end marker with no block open is markup, dropped (vLLM's engine parsers absorb
            # it in content); it was content before. With `stray_end_text` (minimax_m3, as
            # vLLM's and SGLang's parsers read it) it is text unless it leads the output.
            (f"no block{end}rest", (f"no block{end}rest" if stray else "no blockrest", None, [])),
            (f"{end}rest", ("rest", None, [])),
        ]
    return cases


@pytest.mark.parametrize("r", THINKS)
def test_peer_cases(r: str) -> None:
    spec = toolparse.spec.REASONING[r]
    cases = _peer_cases(
        spec.start, spec.end, spec.started, spec.trim, spec.content_lstrip, spec.stray_end_text
    )
    for text, expected in cases:
        check(None, r, None, text, expected)


@pytest.mark.parametrize("r", THINKS)
def test_started_overrides_the_default(r: str) -> None:
    spec = toolparse.spec.REASONING[r]
    check(None, r, True, f"abc{spec.end}rest", ("rest", "abc", []))
    if spec.markers_off_when_disabled:
        # thinking disabled turns the markers off (plamo3): they are text
        for text in (f"abc{spec.end}rest", f"  {spec.start}abc{spec.end}rest"):
            check(None, r, False, text, (text, None, []))
        return
    # no block open: the end marker is markup, dropped (it was content before); with
    # `stray_end_text` only where it leads the output
    stray = f"abc{spec.end}rest" if spec.stray_end_text else "abcrest"
    check(None, r, False, f"abc{spec.end}rest", (stray, None, []))
    check(None, r, False, f"{spec.end}answer", ("answer", None, []))
    check(None, r, False, f"  {spec.start}abc{spec.end}rest", ("rest", "abc", []))


# plamo3 (vLLM's plamo3 engine configuration): the end-of-turn tag is a terminal in every state
# (inside the think block it ends the block, elsewhere it is dropped); with thinking disabled
# the configuration has no think terminals, so a think block is content
PB, PE, PT = "<|plamo:begin_think:plamo|>", "<|plamo:end_think:plamo|>", "<|plamo:tag|>"
PCALL = (
    "<|plamo:begin_tool_requests:plamo|><|plamo:begin_tool_request:plamo|>"
    "<|plamo:begin_tool_name:plamo|>f<|plamo:end_tool_name:plamo|>"
    '<|plamo:begin_tool_arguments:plamo|><|plamo:constrain|>json<|plamo:msg|>{"a": 1}'
    "<|plamo:end_tool_arguments:plamo|><|plamo:end_tool_request:plamo|>"
    "<|plamo:end_tool_requests:plamo|>"
)
PLAMO3_CASES = [
    (None, None, f"r{PT}c", ("c", "r", [])),
    (None, None, f"r{PE}c{PT}", ("c", "r", [])),
    (None, None, f"r{PE}a{PT}b{PT}", ("ab", "r", [])),
    ("plamo3", None, f"r{PE}{PCALL}{PT}", (None, "r", [("f", '{"a": 1}')])),
    ("plamo3", None, f"r{PCALL}{PT}", (None, "r", [("f", '{"a": 1}')])),
    ("hermes", None, f"r{PE}c{PT}", ("c", "r", [])),
    # thinking disabled: the markers are text, the turn end is still dropped
    (None, False, f"{PB}t{PE}c{PT}", (f"{PB}t{PE}c", None, [])),
    ("plamo3", False, f"{PB}t{PE}{PCALL}{PT}", (f"{PB}t{PE}", None, [("f", '{"a": 1}')])),
    ("plamo3", False, f"c{PE}{PT}", (f"c{PE}", None, [])),
]


@pytest.mark.parametrize("case", PLAMO3_CASES, ids=lambda c: repr(c[2]))
def test_plamo3_turn_end_and_thinking_off(case: tuple) -> None:
    fmt, started, text, expected = case
    check(fmt, "plamo3", started, text, expected)
    # the tool format alone drops its turn end too
    if fmt == "plamo3" and started is None:
        check("plamo3", "qwen3", True, text.replace(PE, "</think>"), expected)


# --- the seams ---------------------------------------------------------------------------------


def test_qwen3_hermes_seams() -> None:
    call = ("f", '{"a": 1}')
    # end marker and the call in one delta, and split at every point
    check("hermes", "qwen3", None, f"<think>plan</think>{CALL}", (None, "plan", [call]))
    check("hermes", "qwen3", None, f"<think>plan</think>\n\nok {CALL}", ("\n\nok ", "plan", [call]))
    # a call inside an open block ends the reasoning; the call is parsed, not swallowed
    check("hermes", "qwen3", None, f"<think>plan{CALL}", (None, "plan", [call]))
    # the end marker after the call is outside any block: markup, dropped (it was content)
    check("hermes", "qwen3", False, f"<think>plan\n{CALL}</think>", (None, "plan\n", [call]))
    check(
        "hermes",
        "qwen3",
        None,
        f"<think>I should check.\n{CALL}\n</think>\n\nDone.",
        ("\n\n\nDone.", "I should check.\n", [call]),
    )
    # a stray second end marker is dropped too
    check(None, "qwen3", None, "reasoning</think>A</think>B", ("AB", "reasoning", []))
    # no think block at all (thinking off)
    check("hermes", "qwen3", False, f"hi {CALL}", ("hi ", None, [call]))
    # a stray end marker with no start (thinking off): markup, dropped (it was content before)
    check("hermes", "qwen3", False, f"x</think>{CALL}", ("x", None, [call]))
    # repeated blocks: the second start marker is content; its end marker, outside a block, is
    # dropped
    check("hermes", "qwen3", None, "<think>a</think>b<think>c</think>", ("b<think>c", "a", []))


def test_qwen3_qwen3_coder_seams() -> None:
    call = ("f", '{"a": "1"}')  # no tool schema: the value is a string
    check("qwen3_coder", "qwen3", None, f"<think>x</think>\n{QCALL}", (None, "x", [call]))
    check("qwen3_coder", "qwen3", None, f"<think>x\n{QCALL}", (None, "x\n", [call]))


def test_deepseek_r1_mistral_like_seams() -> None:
    call = ("f", '{"a": 1}')
    check("mistral", "deepseek_r1", None, f"plan</think>{MCALL}", (None, "plan", [call]))
    check("mistral", "deepseek_r1", None, f"plan{MCALL}", (None, "plan", [call]))
    check("mistral", "mistral", None, f"[THINK]plan[/THINK]{MCALL}", (None, "plan", [call]))
    check("mistral", "mistral", None, f"[THINK]plan{MCALL}", (None, "plan", [call]))


def test_no_tool_format_call_start_is_content() -> None:
    # without a paired tool format, the reasoning format's own call starts end the block
    check(None, "qwen3", None, f"<think>x{CALL}", (CALL, "x", []))


@pytest.mark.parametrize("backend", BACKENDS)
def test_gpt_oss_front_is_transparent(backend: str) -> None:
    text = (
        "<|channel|>analysis<|message|>think<|end|><|start|>assistant<|channel|>final"
        "<|message|>done<|return|>"
    )
    for r in (None, "openai_gptoss", "gpt-oss"):
        p = toolparse.get_parser("openai" if r is None else None, backend=backend, reasoning=r)
        info = p.extract_tool_calls(text)
        assert (info.content, info.reasoning) == ("done", "think")
    with pytest.raises(
        ValueError, match="'openai_gptoss' is parsed by the 'openai' tool format, not 'hermes'"
    ):
        toolparse.get_parser("hermes", backend=backend, reasoning="openai_gptoss")
    plain = toolparse.get_parser("openai", backend=backend).extract_tool_calls(text)
    paired = toolparse.get_parser("openai", backend=backend, reasoning="openai_gptoss")
    assert paired.extract_tool_calls(text) == plain


def test_truncated_and_malformed_after_reasoning() -> None:
    for backend in BACKENDS:
        p = toolparse.get_parser("hermes", backend=backend, reasoning="qwen3")
        info = p.extract_tool_calls('<think>r</think>a<tool_call>{"name": "f", "argu')
        assert info.truncated and not info.tools_called
        assert (info.content, info.reasoning) == ('a<tool_call>{"name": "f", "argu', "r")
        info = p.extract_tool_calls("<think>r</think>a<tool_call>[1]</tool_call>")
        assert not info.tools_called
        assert (info.content, info.reasoning) == ("a<tool_call>[1]</tool_call>", "r")


# --- the API ---------------------------------------------------------------------------------


def test_list_and_unknown_names() -> None:
    names = toolparse.list_reasoning_formats()
    assert names == _core.list_reasoning_formats()
    for n in ("deepseek_r1", "qwen3", "mistral", "openai_gptoss", "seed_oss", "kimi_k2"):
        assert n in names
    assert "deepseek-r1" in toolparse.list_reasoning_formats(aliases=True)
    for backend in BACKENDS:
        with pytest.raises(ValueError, match="known reasoning formats: .*qwen3"):
            toolparse.get_parser("hermes", backend=backend, reasoning="nope")
        with pytest.raises(ValueError, match="name .* and reasoning .* are both None"):
            toolparse.get_parser(None, backend=backend)
        with pytest.raises(TypeError):
            toolparse.get_parser("hermes", backend=backend, reasoning="qwen3", reasoning_started=1)
        p = toolparse.get_parser(None, backend=backend, reasoning="deepseek-r1")
        assert p.reasoning == "deepseek_r1" and p.name is None
    with pytest.raises(ValueError, match="unknown reasoning"):
        _core.Format("hermes", {}, "nope")
    with pytest.raises(ValueError, match="unknown reasoning"):
        reference.Format("hermes", {}, "nope")


@pytest.mark.parametrize("backend", BACKENDS)
def test_stream_and_reconstructor_keep_reasoning(backend: str) -> None:
    p = toolparse.get_parser("hermes", backend=backend, reasoning="qwen3")
    text = f"<think>let me see</think>Sure. {CALL}"
    rec, _ = helpers.stream(p, [text[i : i + 5] for i in range(0, len(text), 5)])
    x = rec.to_extracted()
    assert x.reasoning == "let me see" and x.content == "Sure. "
    assert [c.function.arguments for c in x.tool_calls] == ['{"a": 1}']
    y = p.extract_tool_calls(text)
    assert (y.reasoning, y.content) == (x.reasoning, x.content)


def test_bounded_hold_back() -> None:
    # a long block holds back at most a marker prefix
    for backend in BACKENDS:
        p = _parser(backend, "hermes", "qwen3", None)
        got = ""
        for _ in range(200):
            d = p.feed("abc <")
            got += (d[1] or "") if d else ""
        assert len("abc <" * 200) - len(got) <= len("<tool_call>")


# --- property: random splits of reasoning + call outputs ---------------------------------------

_piece = st.sampled_from(["<think>", "</think>", "<tool", "_call>", CALL, "a", " ", "\n", "<", "é"])


@given(
    pieces=st.lists(_piece, max_size=12),
    cuts=st.lists(st.integers(0, 400), max_size=6),
    started=st.sampled_from([None, True, False]),
    fmt=st.sampled_from(["hermes", "qwen3_coder", None]),
)
def test_property_random_splits(
    pieces: List[str], cuts: List[int], started: Optional[bool], fmt: Optional[str]
) -> None:
    text = "".join(pieces)
    cuts = [c for c in cuts if c <= len(text)]
    whole = stream_twins(fmt, "qwen3", started, [text])
    assert stream_twins(fmt, "qwen3", started, chunks_at(text, cuts)) == whole
    assert stream_twins(fmt, "qwen3", started, list(text)) == whole
    # nothing lost: every character is content, reasoning or inside a call (markers are markup)
    content, reasoning, calls = whole
    kept = len(content or "") + len(reasoning or "") + sum(len(a) for _, a in calls)
    assert kept <= len(text)
    if "<" not in text:
        assert (content or "") + (reasoning or "") == text


# vLLM tests/reasoning/test_qwen3_reasoning_parser.py: (output, reasoning, content); thinking on
# (the default: the prompt opened the block) and off.
_TOOL = (
    "<tool_call>\n<function=bash>\n<parameter=command>\ncat /etc/hosts\n</parameter>\n"
    "</function>\n</tool_call>"
)
QWEN3_VLLM = [
    (f"{R}</think>{REST}", R, REST),
    (f"{R}</think>", R, None),
    (f"<think>{R}</think>{REST}", R, REST),
    (REST, REST, None),
    (f"<think>{R}</think>", R, None),
    (
        f"<think>This is a reasoning\nsection</think>{REST}\nThat",
        "This is a reasoning\nsection",
        f"{REST}\nThat",
    ),
    (f"<think>{R}", R, None),
    ("I need to read the file.\n\n" + _TOOL, "I need to read the file.\n\n", _TOOL),
    ("<think>I need to read the file.\n\n" + _TOOL, "I need to read the file.\n\n", _TOOL),
]
QWEN3_VLLM_OFF = [
    ("This is plain content", None, "This is plain content"),
    ("I need to read the file.\n\n" + _TOOL, None, "I need to read the file.\n\n" + _TOOL),
]


@pytest.mark.parametrize("case", QWEN3_VLLM + [(*c, False) for c in QWEN3_VLLM_OFF])
def test_qwen3_vllm_cases(case: tuple) -> None:
    output, reasoning, content = case[:3]
    started = case[3] if len(case) > 3 else None
    # reasoning and content only (vLLM's reasoning parser alone): the call stays content
    check(None, "qwen3", started, output, (content, reasoning, []))


def test_qwen3_vllm_cases_with_the_tool_parser() -> None:
    # the same outputs with qwen3_coder paired: the call is parsed, whitespace around it dropped
    call = ("bash", '{"command": "cat /etc/hosts"}')
    check(
        "qwen3_coder",
        "qwen3",
        None,
        "<think>I need to read the file.\n\n" + _TOOL,
        (None, "I need to read the file.\n\n", [call]),
    )
    check(
        "qwen3_coder",
        "qwen3",
        False,
        "I need to read the file.\n\n" + _TOOL,
        ("I need to read the file.\n\n", None, [call]),
    )


# vLLM tests/reasoning/test_mistral_reasoning_parser.py: (output, reasoning, content). vLLM 0.33
# starts Mistral output as content (its parser's initial state), so the cases that assume the
# prompt opened the block run with reasoning_started=True.
MISTRAL_VLLM = [
    (f"[THINK]{R}[/THINK]{REST}", None, R, REST),
    (f"[THINK]{R}[/THINK]", None, R, None),
    (f"[THINK]This\nThat[/THINK]{REST}\nThat", None, "This\nThat", f"{REST}\nThat"),
    (f"[THINK]{R}", None, R, None),
    (f"\n[THINK]{R}[/THINK]\n{REST}", None, R, f"\n{REST}"),
    ("", None, None, None),
    (f"{R}[/THINK]{REST}", True, R, REST),
    (f"{R}[/THINK]", True, R, None),
    ("This is content", True, "This is content", None),
    (f"This\nThat[/THINK]{REST}\nThat", True, "This\nThat", f"{REST}\nThat"),
    (f"[/THINK]{REST}", True, None, REST),
]


@pytest.mark.parametrize("case", MISTRAL_VLLM)
def test_mistral_vllm_cases(case: tuple) -> None:
    output, started, reasoning, content = case
    check(None, "mistral", started, output, (content, reasoning, []))


# Other pairs: the reasoning format's markers and the paired format's call, cut anywhere.
_PAIRS = [
    ("mistral", "mistral", ["[THINK]", "[/THINK]", "[/TH", MCALL, "[TOOL_CALLS]"]),
    ("mistral", "deepseek_r1", ["<think>", "</think>", MCALL, "[TOOL"]),
    ("hermes", "seed_oss", ["<seed:think>", "</seed:think>", "</seed:", CALL]),
    (None, "kimi", ["◁think▷", "◁/think▷", "◁/"]),
]


@pytest.mark.parametrize("pair", _PAIRS, ids=lambda p: f"{p[0]}+{p[1]}")
@given(data=st.data())
def test_property_pairs(pair: Tuple[Optional[str], str, List[str]], data: Any) -> None:
    fmt, r, markers = pair
    check_splits(fmt, r, [*markers, "a", " ", "\n", "é"], data)


def check_splits(fmt: Optional[str], r: str, pieces: List[str], data: Any) -> Tuple[str, Any]:
    """A text drawn from ``pieces`` streams the same whole, cut anywhere and one character at a
    time, on both backends; where its markup is well formed, as it extracts. The text and its
    streamed whole."""
    piece = st.sampled_from(pieces)
    text = "".join(data.draw(st.lists(piece, max_size=10)))
    started = data.draw(st.sampled_from([None, True, False]))
    cuts = data.draw(st.lists(st.integers(0, len(text)), max_size=6))
    whole = stream_twins(fmt, r, started, [text])
    assert stream_twins(fmt, r, started, chunks_at(text, cuts)) == whole
    assert stream_twins(fmt, r, started, list(text)) == whole
    for backend in BACKENDS:
        content, reasoning, calls, malformed, truncated = _extract(backend, fmt, r, started, text)
        if not malformed and not truncated:
            assert (content, reasoning, [(n, a) for _, n, a in calls]) == whole
    return text, whole


# --- the pairs deployments run, with the tool formats of the families ----------------------------

PAIRED = [
    ("deepseek_v3", "deepseek_r1"),
    ("deepseek_v3", "deepseek_v3"),
    ("deepseek_v31", "deepseek_v3"),
    ("glm45", "glm45"),
    ("glm47", "glm45"),
    ("kimi_k2", "kimi_k2"),
    ("minimax_m2", "minimax_m2"),
    ("seed_oss", "seed_oss"),
    ("step3", "step3"),
    ("cohere_command3", "cohere_command3"),
    ("cohere_command4", "cohere_command4"),
    ("hy_v3", "hy_v3"),
    ("hy_v4", "hy_v4"),
]


@pytest.mark.parametrize("fmt,r", PAIRED, ids=lambda p: str(p))
def test_paired_seams(fmt: str, r: str) -> None:
    """A think block then a call of the paired tool format: the end marker and the call in one
    delta or split anywhere; a call inside a block never closed ends the reasoning and is parsed;
    the block opened by the prompt."""
    import corpus

    case = corpus.renderer(fmt).render([("f", {"a": "x"})])
    call = case.text.strip()
    calls = [(n, a) for n, a in case.calls]
    start, end = toolparse.spec.REASONING[r].start, toolparse.spec.REASONING[r].end
    check(fmt, r, None, f"{start}plan{end}{call}", (None, "plan", calls))
    check(fmt, r, None, f"{start}plan{end}\n\n{call}", (None, "plan", calls))
    check(fmt, r, None, f"{start}plan{call}", (None, "plan", calls))
    check(fmt, r, True, f"plan{end}{call}", (None, "plan", calls))


# --- every reasoning format the peers register -------------------------------------------------

# vLLM 0.33's --reasoning-parser names (vllm/reasoning/__init__.py) and SGLang 0.5.23's
# (ReasoningParser.DetectorMap): each is registered, as a name or an alias, or listed in
# NOT_REGISTERED with the reason. (muse, musespark1x, muse_glimmer: the muse formats' machines;
# SGLang's "muse" is vLLM's muse_glimmer, a clash pinned in test_muse.py.)
VLLM_NAMES = (
    "deepseek_r1 deepseek_v3 deepseek_v4 deepseek_v41 poolside_v1 cohere_command3 cohere_command4 "
    "ernie45 gemma4 glm45 glm47 ling3 openai_gptoss granite granite_thinking_parser hf beam holo2 "
    "hunyuan_a13b hy_v3 hy_v4 kimi_k2 kimi_k3 k2_horizon mimo minicpmv minimax_m2 "
    "minimax_m2_append_think minimax_m3 mistral nemotron_v3 olmo3 plamo3 muse muse_glimmer "
    "musespark1x qwen3 seed_oss step3 step3p5 step5 inkling"
).split()
SGLANG_NAMES = (
    "apertus2509 beam deepseek-r1 deepseek-v3 deepseek-v4 deepseek-v41 dots glm45 ling3 hunyuan "
    "gpt-oss k2_horizon kimi kimi_k2 kimi_k3 mimo muse poolside_v1 qwen3 qwen3-thinking minimax "
    "minimax-append-think minimax-m3 nanbeige step3 step3p5 mistral nemotron_3 "
    "granite_thinking_parser interns1 gemma4 gigachat35 inkling iquest_q1 cohere_command4 "
    "response_template"
).split()
NOT_REGISTERED = {
    "hf": "parses with the checkpoint's own chat template",
    "response_template": "parses with the checkpoint's own chat template",
}


def test_every_peer_name_is_known_or_listed() -> None:
    known = set(toolparse.list_reasoning_formats(aliases=True))
    for name in VLLM_NAMES + SGLANG_NAMES:
        assert name in known or name in NOT_REGISTERED, name
        assert not (name in known and name in NOT_REGISTERED), name
    for alias, canonical in [
        ("step5", "deepseek_r1"),
        ("gigachat35", "deepseek_r1"),
        ("glm47", "glm45"),
        ("ling3", "glm45"),
        ("hunyuan", "hunyuan_a13b"),
        ("minimax-append-think", "minimax_m2_append_think"),
        ("deepseek-v4", "deepseek_v4"),
        ("deepseek-v41", "deepseek_v41"),
        ("nemotron_3", "nemotron_v3"),
        ("minimax-m3", "minimax_m3"),
    ]:
        for backend in BACKENDS:
            p = toolparse.get_parser(None, backend=backend, reasoning=alias)
            assert p.reasoning == canonical


# vLLM tests/reasoning/test_granite_reasoning_parser.py (thinking is not opened by the prompt;
# "Here's" is the other spelling vLLM's parser accepts)
GR, GE = "Here is my thought process:", "Here is my response:"
GRANITE_VLLM = [
    (f"{GR}{R}{GE}{REST}", R, REST),
    (f"{GR}{R}{GE}", R, None),
    ("This is content", None, "This is content"),
    (f"{GR}This\nThat{GE}{REST}\nThat", "This\nThat", f"{REST}\nThat"),
    ("Here is my thought failure", None, "Here is my thought failure"),
    (f"{GR} foo Here is my response: bar", " foo ", " bar"),
    (f"{GR} foo Here is Here was", " foo Here is Here was", None),
    ("Here's my thought process: a Here's my response: b", " a ", " b"),
    (f"{GR} a Here's my response: b", " a ", " b"),
]


@pytest.mark.parametrize("case", GRANITE_VLLM)
def test_granite_vllm_cases(case: tuple) -> None:
    output, reasoning, content = case
    check(None, "granite", None, output, (content, reasoning, []))


def test_granite_with_its_tool_format() -> None:
    call = '<|tool_call|>[{"name": "f", "arguments": {"a": 1}}]'
    check("granite", "granite", None, f"{GR}plan{GE}{call}", (None, "plan", [("f", '{"a": 1}')]))
    check("granite", "granite", None, f"{GR}plan{call}", (None, "plan", [("f", '{"a": 1}')]))


# The think-tag formats added from the peers' tests (vLLM tests/reasoning/test_<x>_reasoning_
# parser.py, SGLang's detectors): (format, started, output, reasoning, content).
THINK_TAG_CASES = [
    # olmo3: the prompt may open the block; <think> optional
    ("olmo3", None, f"<think>{R}</think>{REST}", R, REST),
    ("olmo3", None, f"{R}</think>{REST}", R, REST),
    ("olmo3", None, f"<think>This\nThat</think>{REST}\nThat", "This\nThat", f"{REST}\nThat"),
    # ernie45: abc\n</think>\n\n<response>... (the response wrapper stays content)
    ("ernie45", None, "abc\n</think>\ndef", "abc\n", "\ndef"),
    ("ernie45", None, "<think>abc</think>def", "abc", "def"),
    # hunyuan_a13b (vLLM's hunyuan_a13b reasoning parser: its markers are "<think>\n",
    # "\n</think>\n<answer>\n" and "\n</answer>", so reasoning and content come without that
    # framing and without the <answer> wrapper; this pinned SGLang's hunyuan detector before,
    # which splits at the bare think tags and keeps the wrapper in content)
    ("hunyuan_a13b", None, "<think>\nr\n</think>\n<answer>\nc\n</answer>", "r", "c"),
    # the fast-think form: an empty block
    ("hunyuan_a13b", None, "<think>\n\n</think>\n<answer>\nc\n</answer>", None, "c"),
    ("hunyuan_a13b", None, "<think>\nr\n</think>\n<answer>\nc", "r", "c"),
    (
        "hunyuan_a13b",
        None,
        "<think>\nr1\nr2\n</think>\n<answer>\nc1\nc2\n</answer>",
        "r1\nr2",
        "c1\nc2",
    ),
    ("hunyuan_a13b", None, "<think>\nr", "r", None),
    ("hunyuan_a13b", None, "no think", None, "no think"),
    # the bare tags (other spellings) still separate a block
    ("hunyuan_a13b", None, "<think>r</think>c", "r", "c"),
    ("hunyuan_a13b", None, "<think>\nr</think>\n<answer>\nc", "r", "c"),
    # apertus2509 (SGLang): inner prefix / suffix
    ("apertus2509", None, "<|inner_prefix|>r<|inner_suffix|>c", "r", "c"),
    ("apertus2509", None, "c", None, "c"),
    # gemma4: the channel opener with or without its "thought" label; thinking off by default
    ("gemma4", None, f"<|channel>thought\n{R}<channel|>{REST}", R, REST),
    ("gemma4", None, f"<|channel>{R}<channel|>{REST}", R, REST),
    ("gemma4", None, REST, None, REST),
    # gemma4 (vLLM's gemma4 parser): the channel's "thought" label is markup; an empty thought
    # channel is empty reasoning, not reasoning "thought" (it was "thought" before)
    ("gemma4", None, "<|channel>thought<channel|>Answer", None, "Answer"),
    ("gemma4", None, "<|channel>thought", None, None),
    ("gemma4", None, "<|channel>thoughtful<channel|>x", "thoughtful", "x"),
    ("gemma4", None, "<|channel>thought\n\n<channel|>x", None, "x"),
    ("gemma4", True, "thought\nr<channel|>x", "r", "x"),
    ("gemma4", True, "thought<channel|>x", None, "x"),
    ("gemma4", None, "<|channel>thought<channel|>x<channel|>y", None, "xy"),
    # gemma4 (spec `blocks_anywhere`, as vLLM's gemma4 engine reads it): a thought block is
    # reasoning wherever it stands, its label markup and the whitespace ending it trimmed; the
    # content around it is kept as written
    ("gemma4", None, "Before\n<|channel>thought\nabc<channel|>\nrest", "abc", "Before\n\nrest"),
    ("gemma4", None, "Before\n<|channel>thought\nabc \n<channel|>\nrest", "abc", "Before\n\nrest"),
    ("gemma4", None, "a<|channel>x<channel|>b", "x", "ab"),
    ("gemma4", None, "a<|channel>thought<channel|>b", None, "ab"),
    ("gemma4", None, "a<|channel>thoughtful<channel|>b", "thoughtful", "ab"),
    # every block's label is markup (vLLM strips only the first block's)
    (
        "gemma4",
        None,
        "a<|channel>thought\nx<channel|>b<|channel>thought\ny<channel|>c",
        "xy",
        "abc",
    ),
    ("gemma4", None, "<|channel>thought\nx<channel|>b<|channel>thought\ny<channel|>c", "xy", "bc"),
    # a block the output never closes is reasoning; a repeated opener inside is markup; an end
    # marker outside a block is still dropped
    ("gemma4", None, "a<|channel>thought\nx <|channel>y \n", "x y", "a"),
    ("gemma4", None, "a<|channel>thought", None, "a"),
    ("gemma4", None, "a<|channel", None, "a<|channel"),
    ("gemma4", None, "a<channel|>b<|channel>x<channel|><channel|>c", "x", "abc"),
    # with no tool format paired, a call start ends the block and stays content
    ("gemma4", None, "a<|channel>x <|tool_call>y", "x", "a<|tool_call>y"),
    # deepseek_v4 / v41: vLLM's default is thinking on (the prompt opened the block)
    ("deepseek_v4", None, "<think>r</think>c", "r", "c"),
    ("deepseek_v4", None, "r</think>c", "r", "c"),
    ("deepseek_v41", None, "plain", "plain", None),
    ("deepseek_v41", False, "plain", None, "plain"),
    # minimax_m3: no trim (vLLM keeps the whitespace before </mm:think>)
    ("minimax_m3", None, "<mm:think>r \n</mm:think>c", "r \n", "c"),
    # holo2: deepseek_v3 with thinking on by default
    ("holo2", None, f"{R}</think>{REST}", R, REST),
    # plamo3, minimax_m3: their own tags
    ("plamo3", None, "r<|plamo:end_think:plamo|>c", "r", "c"),
    ("minimax_m3", None, "<mm:think>r</mm:think>c", "r", "c"),
    # minimax_m3 (spec `stray_end_text`, as vLLM's and SGLang's minimax_m3 parsers read it): an
    # end marker with no block open is text, except where it leads the output (after
    # whitespace): the stray closer earlier non-thinking turns leave is dropped
    ("minimax_m3", None, "r</mm:think>c", None, "r</mm:think>c"),
    ("minimax_m3", None, "XXX</mm:think>YYY", None, "XXX</mm:think>YYY"),
    ("minimax_m3", None, "</mm:think>answer", None, "answer"),
    ("minimax_m3", None, " \n</mm:think>answer</mm:think>", None, "answer</mm:think>"),
    ("minimax_m3", None, "</mm:think>", None, None),
    ("minimax_m3", None, "</mm:thin", None, "</mm:thin"),
    ("minimax_m3", None, "<mm:think>r</mm:think>a</mm:think>b", "r", "a</mm:think>b"),
    ("minimax_m3", None, "a<mm:think>r", None, "a<mm:think>r"),
    # with the block opened by the prompt, the first end marker closes it; later ones are text
    ("minimax_m3", True, "r</mm:think>a</mm:think>b", "r", "a</mm:think>b"),
    ("minimax_m3", True, "</mm:think>a</mm:think>", None, "a</mm:think>"),
    # nemotron_v3, step3p5, granite_thinking_parser, mimo, minicpmv, poolside_v1: qwen3's tags
    ("nemotron_v3", None, f"{R}</think>{REST}", R, REST),
    ("step3p5", None, "r\n</think>\nc", "r", "\nc"),
    ("granite_thinking_parser", None, "r</think>c", "r", "c"),
    # granite_thinking_parser (vLLM's): the template writes "\n</think>\n", and the newlines
    # that open the content after the end marker are dropped (only newlines, only there)
    ("granite_thinking_parser", None, "r\n</think>\nc", "r", "c"),
    ("granite_thinking_parser", None, "r</think>\n\nc\n\nd\n", "r", "c\n\nd\n"),
    ("granite_thinking_parser", None, "r</think>\n", "r", None),
    ("granite_thinking_parser", None, "r</think>\n c", "r", " c"),
    ("granite_thinking_parser", False, "\nc", None, "\nc"),
    ("nemotron_v3", None, "r</think>\nc", "r", "\nc"),
    ("mimo", None, "r</think>c", "r", "c"),
    ("minicpmv", None, "<think>r</think>c", "r", "c"),
    # k2_horizon: the markers of each reasoning_effort; the prompt opened the block
    ("k2_horizon", None, "r</ifm|think>c", "r", "c"),
    ("k2_horizon", None, "<ifm|think_fast>r</ifm|think_fast>c", "r", "c"),
    ("k2_horizon", None, "r<ifm|tool_calls>x", "r", "<ifm|tool_calls>x"),
    ("poolside_v1", None, "<think>r</think>c", "r", "c"),
    ("poolside_v1", None, "c", None, "c"),
    # cohere_command3/4 (vLLM runs cohere_melody): the thinking block is reasoning; the response
    # wrapper is markup, dropped, without the paired tool format too (the reasoning entry's
    # `dropped`), and the newline the model writes between the block's end and the response's
    # start is framing (an `also_end`)
    (
        "cohere_command3",
        None,
        "<|START_THINKING|>r<|END_THINKING|><|START_RESPONSE|>c<|END_RESPONSE|>",
        "r",
        "c",
    ),
    ("cohere_command4", None, "plain", None, "plain"),
    # hy_v3: vLLM's default reasoning_effort is no_think (the output is content); with thinking
    # on the prompt opened the block. hy_v4: thinking on by default. Only the unsuffixed
    # markers (vLLM reads a per-checkpoint suffix from the tokenizer's vocabulary)
    ("hy_v3", None, "plain", None, "plain"),
    ("hy_v3", None, "<think>r</think>c", "r", "c"),
    ("hy_v3", True, "r</think>c", "r", "c"),
    ("hy_v4", None, "r</think>c", "r", "c"),
    ("hy_v4", False, "plain", None, "plain"),
]


@pytest.mark.parametrize("case", THINK_TAG_CASES, ids=lambda c: c[0])
def test_think_tag_cases(case: tuple) -> None:
    r, started, output, reasoning, content = case
    check(None, r, started, output, (content, reasoning, []))


G4CALL = "<|tool_call>call:f{a:1}<tool_call|>"


@pytest.mark.parametrize(
    "text,expected",
    [
        # a block between content and calls; one the call start ends (its trailing space trimmed)
        (f"a<|channel>thought\nr<channel|>b{G4CALL}", ("ab", "r", [("f", '{"a": 1}')])),
        (f"a<|channel>thought\nplan {G4CALL}c", ("ac", "plan", [("f", '{"a": 1}')])),
        # after a call, a block is reasoning again; markers inside an argument stay there
        (
            f"{G4CALL}x<|channel>thought\nr<channel|>y",
            ("xy", "r", [("f", '{"a": 1}')]),
        ),
        (
            '<|tool_call>call:f{a:<|"|>p<|channel>q<channel|><|"|>}<tool_call|>',
            (None, None, [("f", '{"a": "p<|channel>q<channel|>"}')]),
        ),
    ],
)
def test_gemma4_blocks_anywhere_with_the_tool_format(text: str, expected: Result) -> None:
    check("gemma4", "gemma4", None, text, expected)


def test_minimax_m2_append_think() -> None:
    # vLLM tests/reasoning/test_minimax_m2_append_reasoning_parser.py: nothing is reasoning; the
    # output is content with the <think> the prompt opened put back before it
    for text in ["abc</think>def", "<think>abc</think>def", "plain", "a"]:
        check(None, "minimax_m2_append_think", None, text, ("<think>" + text, None, []))
    case = corpus_renderer("minimax_m2").render([("f", {"a": "x"})])
    calls = [(n, a) for n, a in case.calls]
    check(
        "minimax_m2",
        "minimax_m2_append_think",
        None,
        "plan</think>" + case.text,
        ("<think>plan</think>" + _lead_content(case.text), None, calls),
    )


def corpus_renderer(fmt: str) -> Any:
    import corpus

    return corpus.renderer(fmt)


def _lead_content(call_text: str) -> str:
    """The content a rendered call text carries before its markup (whitespace the renderer puts
    before the call, if any)."""
    return call_text[: len(call_text) - len(call_text.lstrip())]


# --- trim: the whitespace that ends the reasoning (vLLM's engine parsers) ----------------------


def test_trim_drops_a_short_run_that_ends_the_reasoning() -> None:
    # kimi_k2, mistral, glm45, minimax_m2 (and the engine-backed new formats) trim; qwen3 doesn't
    assert toolparse.spec.REASONING["kimi_k2"].trim and not toolparse.spec.REASONING["qwen3"].trim
    check(None, "kimi_k2", None, "<think>a  b \n\t</think> c", (" c", "a  b", []))
    check(None, "kimi_k2", None, "<think>a \n", (None, "a", []))  # never closed
    check(None, "kimi_k2", None, "<think> \n</think>c", ("c", None, []))
    check(None, "kimi_k2", None, "<think>a \n</thi", (None, "a \n</thi", []))
    check(None, "kimi_k2", None, "<think>a <think> b\n</think>c", ("c", "a  b", []))
    check(None, "qwen3", None, "<think>a \n</think>c", ("c", "a \n", []))
    ws = " " * 64
    check(None, "mistral", None, f"[THINK]a{ws}[/THINK]c", ("c", "a", []))
    check(None, "mistral", None, f"[THINK]a{ws} [/THINK]c", ("c", f"a{ws} ", []))
    check(None, "mistral", None, f"[THINK]a{ws} b{ws}[/THINK]c", ("c", f"a{ws} b", []))


def test_trim_before_a_call_start() -> None:
    case = corpus_renderer("kimi_k2").render([("f", {"a": "x"})])
    calls = [(n, a) for n, a in case.calls]
    call = case.text.strip()
    check("kimi_k2", "kimi_k2", None, f"<think>plan \n{call}", (None, "plan", calls))
    check("kimi_k2", "kimi_k2", None, f"plan\n\n</think>\n\n{call}", (None, "plan", calls))


@pytest.mark.parametrize("backend", BACKENDS)
def test_trim_hold_back_is_bounded(backend: str) -> None:
    p = _parser(backend, None, "kimi_k2", True)
    got = ""
    for _ in range(100):
        d = p.feed("a" + " " * 10)
        got += (d[1] or "") if d else ""
    assert len(("a" + " " * 10) * 100) - len(got) <= 10
    p = _parser(backend, None, "kimi_k2", True)
    d = p.feed("a" + " " * 100)
    assert d is not None and d[1] == "a" + " " * 100


# --- property: random splits of reasoning + tool outputs, every reasoning format ---------------


def _pairs_for(r: str) -> List[Optional[str]]:
    """The tool formats a reasoning format is tried with: none, and its namesake if registered."""
    out: List[Optional[str]] = [None]
    names = {"glm45": "glm45", "deepseek_r1": "deepseek_v3", "holo2": "deepseek_v3"}
    fmt = names.get(r, r)
    if fmt in toolparse.list_formats():
        out.append(fmt)
    return out


ALL_PAIRS = [
    (r, f) for r in toolparse.spec.REASONING if r != "openai_gptoss" for f in _pairs_for(r)
]


def _examples(n: int) -> int:
    """``n`` scaled by ``TOOLPARSE_EXAMPLES`` (a factor, default 1)."""
    return max(5, int(n * float(os.environ.get("TOOLPARSE_EXAMPLES", "1"))))


@pytest.mark.parametrize("r,fmt", ALL_PAIRS, ids=lambda x: str(x))
@settings(max_examples=_examples(30))
@given(data=st.data())
def test_property_every_reasoning_format(r: str, fmt: Optional[str], data: Any) -> None:
    spec = toolparse.spec.REASONING[r]
    markers = [*spec.starts, *spec.ends, spec.end[:-1], *spec.call_starts]
    if fmt is not None:
        case = corpus_renderer(fmt).render([("f", {"a": "x"})])
        markers += [case.text, case.text[: len(case.text) // 2]]
    text, whole = check_splits(fmt, r, [*markers, "a", " ", "\n", "é", "<", "|"], data)
    if fmt is None and not spec.content_prefix:
        # nothing lost: without a tool format, the text is reasoning and content but markup
        content, reasoning, _ = whole
        assert len(content or "") + len(reasoning or "") <= len(text)


def test_spec_refuses_bad_new_fields() -> None:
    from toolparse import spec as spec_mod

    formats = spec_mod.load(spec_mod.read())
    good = {
        "name": "x",
        "aliases": [],
        "start": "<a>",
        "end": "</a>",
        "started": False,
        "unclosed": "reasoning",
        "call_ends_block": True,
        "call_starts": [],
    }
    ok = spec_mod.load_reasoning(
        {"reasoning": [dict(good, also_start=["<b>"], trim=True)]}, formats
    )
    assert ok["x"].starts == ("<a>", "<b>") and ok["x"].trim
    assert ok["x"].scan(None) == ("</a>", "<a>", "<b>")
    ok = spec_mod.load_reasoning(
        {"reasoning": [dict(good, turn_end="<t>", markers_off_when_disabled=True)]}, formats
    )
    assert ok["x"].ends == ("</a>", "<t>") and ok["x"].markers_off_when_disabled
    bads = (
        {"trim": "yes"},
        {"also_end": [""]},
        {"also_start": "<b>"},
        {"content_prefix": 1},
        {"turn_end": ""},
        {"markers_off_when_disabled": "yes"},
        {"content_end": ""},
        {"content_lstrip": 1},
    )
    for bad in bads:
        with pytest.raises(ValueError):
            spec_mod.load_reasoning({"reasoning": [dict(good, **bad)]}, formats)


# the framing rules with the paired tool format: hunyuan_a13b's calls sit in the <answer> wrapper
# (its closing marker is dropped, the call is parsed); granite_thinking_parser's newlines after
# the end marker go before a call too
HCALL = '<tool_calls>[{"name": "f", "arguments": {"a": 1}}]</tool_calls>'
FRAMING_PAIRED = [
    (
        "hunyuan_a13b",
        "hunyuan_a13b",
        f"<think>\nr\n</think>\n<answer>\n{HCALL}\n</answer>",
        (None, "r", [("f", '{"a": 1}')]),
    ),
    (
        "hunyuan_a13b",
        "hunyuan_a13b",
        f"<think>\nr\n</think>\n<answer>\nLet me check.{HCALL}\n</answer>",
        ("Let me check.", "r", [("f", '{"a": 1}')]),
    ),
    (
        "qwen3_coder",
        "granite_thinking_parser",
        f"r\n</think>\n\n{QCALL}",
        (None, "r", [("f", '{"a": "1"}')]),
    ),
    (
        "qwen3_coder",
        "granite_thinking_parser",
        f"r\n</think>\n\nOK.\n{QCALL}",
        ("OK.\n", "r", [("f", '{"a": "1"}')]),
    ),
]


@pytest.mark.parametrize("case", FRAMING_PAIRED, ids=lambda c: c[1])
def test_framing_with_the_tool_format(case: tuple) -> None:
    fmt, r, text, expected = case
    check(fmt, r, None, text, expected)


G4CALL = "<|tool_call>call:f{key with space:1}<tool_call|>"


@pytest.mark.parametrize(
    "text,expected",
    [
        # an empty thought channel, then a call (vLLM's gemma4 parser: reasoning "thought" is none)
        (f"<|channel>thought<channel|>{G4CALL}", (None, None, [("f", '{"key with space": 1}')])),
        (f"<|channel>thought{G4CALL}", (None, None, [("f", '{"key with space": 1}')])),
        (
            f"<|channel>thought\nr<channel|>{G4CALL}<channel|>",
            (None, "r", [("f", '{"key with space": 1}')]),
        ),
    ],
)
def test_gemma4_with_its_tool_format(text: str, expected: Result) -> None:
    check("gemma4", "gemma4", None, text, expected)
