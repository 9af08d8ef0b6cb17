"""toolparse's reasoning parsers (``toolparse_R``) inside vLLM 0.33, through vLLM's own code.

* The pairs deployments run (qwen3 + hermes, qwen3 + qwen3_coder, deepseek_r1 + deepseek_v3,
  mistral + mistral), composed by vLLM's ``ParserManager`` from the names ``toolparse_R`` and
  ``toolparse_F``: streamed through ``ChatStreamProcessor.step`` (one delta, tokens, random
  groups, single characters) and parsed whole through ``Parser.parse``, equal
  ``toolparse.get_parser(F, tools, reasoning=R).extract_tool_calls(text)``: the one-pass result.
* The composition stays engine-based; the two parsers share one machine; the reasoning parser
  is built the three ways vLLM builds one; the prompt and chat_template_kwargs decide whether the
  output starts inside reasoning; the engine core's token checks.
* Startup in a fresh process accepts ``--reasoning-parser toolparse_qwen3 --tool-call-parser
  toolparse_hermes``.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from typing import Any, Dict, List, Optional, Tuple

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

pytest.importorskip("vllm.tool_parsers")

import corpus  # noqa: E402  (tests/ is on sys.path: tests/conftest.py)
import reasoning_pairs  # noqa: E402  (this folder is on sys.path: pytest's rootdir)
import toolparse  # noqa: E402
from reasoning_pairs import (  # noqa: E402
    BACKENDS,
    PAIRS,
    call_text,
    expected,
    fallback_texts,
    markers,
    one_pass_stream,
    tools_of,
)
from server_cases import splittings, tools_for  # noqa: E402
from toolparse.integrations import reasoning as rsn  # noqa: E402
from toolparse.integrations import vllm as tp_vllm  # noqa: E402
from vllm.entrypoints.openai.chat_completion.protocol import ChatCompletionRequest  # noqa: E402
from vllm.entrypoints.openai.chat_completion.stream_processor import (  # noqa: E402
    ChatStreamProcessor,
)
from vllm.parser.parser_manager import ParserManager  # noqa: E402
from vllm.reasoning import ReasoningParserManager  # noqa: E402
from vllm.tool_parsers import ToolParserManager  # noqa: E402

P = tp_vllm.PREFIX

# Token ids: markers are single tokens; 1 is a turn boundary (a special token); text is 0.
MARKERS = ["<think>", "</think>", "[THINK]", "[/THINK]"]
VOCAB = {"<unk>": 0, "<|im_start|>": 1, **{m: 10 + i for i, m in enumerate(MARKERS)}}


class Tokenizer:
    name_or_path = "mock"
    all_special_tokens = ["<|im_start|>"]
    all_special_ids = [1]

    def get_vocab(self) -> Dict[str, int]:
        return dict(VOCAB)

    def decode(self, ids: Any, **_: Any) -> str:
        return ""

    def encode(self, text: str, **_: Any) -> List[int]:
        return [VOCAB.get(text, 0)] if text in VOCAB else [0] * len(text)


TOKENIZER = Tokenizer()


def ids_of(*parts: str) -> List[int]:
    return [VOCAB.get(p, 0) for p in parts]


def texts(r: str, fmt: str) -> List[Tuple[str, str]]:
    """The pairs' texts, and two seams vLLM's engine-based composition meets."""
    start, end = markers(r)
    return reasoning_pairs.texts(r, fmt) + [
        ("stray_end", f"answer {end} more"),
        ("empty_block", f"{start}{end}content"),
    ]


def request_of(tools: List[Dict[str, Any]], **kw: Any) -> Any:
    return ChatCompletionRequest(
        model="m", messages=[{"role": "user", "content": "hi"}], tools=tools or None, **kw
    )


@pytest.fixture(params=BACKENDS)
def backend(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """Registers the parsers of one toolparse backend under the ``toolparse_*`` names."""
    for fmt in tp_vllm.formats():
        monkeypatch.setitem(
            ToolParserManager.tool_parsers, P + fmt, tp_vllm.parser_class(fmt, request.param)
        )
    for r in tp_vllm.reasoning_formats():
        monkeypatch.setitem(
            ReasoningParserManager.reasoning_parsers,
            P + r,
            tp_vllm.reasoning_parser_class(r, request.param),
        )
    return str(request.param)


def composed(r: str, fmt: Optional[str]) -> Any:
    cls = ParserManager.get_parser(
        tool_parser_name=(P + fmt) if fmt else None,
        reasoning_parser_name=P + r,
        enable_auto_tools=True,
        model_name="m",
        tokenizer=TOKENIZER,
    )
    assert cls is not None
    return cls


class Client:
    """Rebuilds the assistant message from vLLM's deltas as an OpenAI client does."""

    def __init__(self) -> None:
        self.reasoning = ""
        self.content = ""
        self.calls: List[Dict[str, Any]] = []

    def add(self, delta: Any) -> None:
        d = json.loads(delta.model_dump_json(exclude_unset=True))
        self.reasoning += d.get("reasoning") or ""
        self.content += d.get("content") or ""
        for tc in d.get("tool_calls") or []:
            index, fn = tc["index"], tc.get("function") or {}
            if index == len(self.calls):
                assert tc.get("type") == "function" and tc.get("id") and fn.get("name"), tc
                self.calls.append({"name": fn["name"], "args": ""})
            else:
                assert index == len(self.calls) - 1 and "name" not in fn, tc
            self.calls[index]["args"] += fn.get("arguments") or ""

    def result(self) -> Tuple[Optional[str], Optional[str], List[Tuple[str, str]]]:
        calls = [(c["name"], c["args"]) for c in self.calls]
        return self.reasoning or None, self.content or None, calls


def serve_stream(
    r: str,
    fmt: Optional[str],
    tools: List[Dict[str, Any]],
    chunks: List[str],
    prompt: Optional[List[int]] = None,
    kwargs: Optional[Dict[str, Any]] = None,
    **req: Any,
) -> Tuple[Client, Any, Any]:
    cls = composed(r, fmt)
    request = request_of(tools, **req)
    parser = cls(TOKENIZER, request.tools, chat_template_kwargs=kwargs, model_config=None)
    proc = ChatStreamProcessor(request, parser, enable_auto_tools=True, parser_cls=cls)
    client = Client()
    finish = None
    chunks = chunks or [""]
    for i, chunk in enumerate(chunks):
        last = i == len(chunks) - 1
        step = proc.step(chunk, [0] * len(chunk), "stop" if last else None, prompt or [0])
        if step.delta is not None:
            client.add(step.delta)
        if last:
            finish = step.finish_reason
    return client, finish, parser


# ==================================================================================================
# Registration and construction
# ==================================================================================================


def test_every_reasoning_format_is_registered() -> None:
    registered = set(ReasoningParserManager.list_registered())
    for r in toolparse.list_reasoning_formats(aliases=True):
        assert P + r in registered, r
        cls = ReasoningParserManager.get_reasoning_parser(P + r)
        assert cls.engine_based_streaming is True
        assert cls.toolparse_reasoning == toolparse.spec.reasoning_canonical(r)
        # the three ways vLLM builds one: at startup, per request, in the engine core
        cls(TOKENIZER)
        cls(TOKENIZER, model_config=None, chat_template_kwargs={"enable_thinking": False})
        p = cls(tokenizer=TOKENIZER, chat_template_kwargs=None)
        p.is_reasoning_end([0, 1, 0])
        p.is_reasoning_end_streaming([0, 0], [0])


@pytest.mark.parametrize("r", ["muse", "muse_glimmer", "openai_gptoss", "qwen3"])
def test_reasoning_of_a_framed_format_keeps_special_tokens(r: str) -> None:
    """A reasoning format the tool format's machine separates (harmony, muse) reads that format's
    markers, which are special tokens: the detokenizer must keep them even without tools (as
    vLLM's own muse reasoning parser sets). Think-block formats keep the default here (the test
    tokenizer has no special tokens)."""
    cls = ReasoningParserManager.get_reasoning_parser(P + r)
    default = ChatCompletionRequest(model="m", messages=[{"role": "user", "content": "hi"}])
    req = cls(TOKENIZER).adjust_request(
        ChatCompletionRequest(model="m", messages=[{"role": "user", "content": "hi"}])
    )
    framed = toolparse.spec.REASONING[r].tool_format is not None
    assert req.skip_special_tokens is (False if framed else default.skip_special_tokens)


def test_composition_is_engine_based_and_shares_one_machine(backend: str) -> None:
    cls = composed("qwen3", "hermes")
    parser = cls(TOKENIZER, request_of(tools_for(["f"])).tools, model_config=None)
    assert parser._engine_based is True
    rp, tp = parser.reasoning_parser, parser.tool_parser
    assert rp._pair is not None and rp._pair is tp._pair and rp._pair.tool is tp
    # a vLLM built-in tool parser beside a toolparse reasoning parser: each works alone
    alone = ParserManager.get_parser(
        tool_parser_name="hermes", reasoning_parser_name=P + "qwen3", enable_auto_tools=True
    )
    p2 = alone(TOKENIZER, None, model_config=None)
    assert p2.reasoning_parser._pair is None
    p2.parse("<think>a</think>b", request_of([]))  # in use: no tool parser pairs with it later
    assert tp_vllm.parser_class("hermes", backend)(TOKENIZER)._pair is None
    # reasoning parsers vLLM builds alone (startup, engine core) leave nothing to pair with
    tp_vllm.reasoning_parser_class("qwen3", backend)(TOKENIZER)
    tp_vllm.reasoning_parser_class("qwen3", backend)(tokenizer=TOKENIZER, chat_template_kwargs={})
    assert tp_vllm.parser_class("hermes", backend)(TOKENIZER)._pair is None


def test_harmony_reasoning_pairs_only_with_its_own_format(backend: str) -> None:
    p = composed("openai_gptoss", "hermes")(TOKENIZER, None, model_config=None)
    assert p.reasoning_parser._pair is None and p.tool_parser._pair is None
    p = composed("openai_gptoss", "openai")(TOKENIZER, None, model_config=None)
    assert p.reasoning_parser._pair is p.tool_parser._pair is not None


# ==================================================================================================
# The pairs, through vLLM's serving code: == the one-pass result
# ==================================================================================================


@pytest.mark.parametrize("r,fmt", PAIRS, ids=lambda p: str(p))
def test_pair_stream_equals_one_pass(r: str, fmt: str, backend: str) -> None:
    checked = 0
    for label, text in texts(r, fmt):
        tools = tools_of(fmt)
        exp = expected(r, fmt, backend, text, tools)
        for split, chunks in splittings(text, seed=len(text)).items():
            client, finish, parser = serve_stream(r, fmt, tools, chunks)
            where = f"{r}+{fmt}/{backend} {label} split={split}: {text!r}"
            assert client.result() == exp, where
            assert finish == ("tool_calls" if exp[2] else "stop"), where
            tp = parser.tool_parser
            assert [(a["name"], a["arguments"]) for a in tp.prev_tool_call_arr] == exp[2], where
            checked += 1
    assert checked == 4 * len(texts(r, fmt))


@pytest.mark.parametrize("r,fmt", PAIRS, ids=lambda p: str(p))
def test_pair_fallback_stream_equals_one_pass(r: str, fmt: str, backend: str) -> None:
    """Malformed or cut markup after a block (an empty one too): the stream is the one-pass
    machine's stream under every splitting (what was sent stays sent), and the message of a
    malformed output is the non-streaming one."""
    tools = tools_of(fmt)
    for label, text in fallback_texts(r, fmt):
        whole = one_pass_stream(r, fmt, backend, tools, [text])
        for split, chunks in splittings(text, seed=len(text)).items():
            client, _, _ = serve_stream(r, fmt, tools, chunks)
            where = f"{r}+{fmt}/{backend} {label} split={split}: {text!r}"
            assert client.result() == one_pass_stream(r, fmt, backend, tools, chunks), where
            assert client.result() == whole, where
        if "malformed" in label and not whole[2]:
            assert whole == expected(r, fmt, backend, text, tools), label


@pytest.mark.parametrize("r,fmt", PAIRS, ids=lambda p: str(p))
def test_pair_non_stream_equals_one_pass(r: str, fmt: str, backend: str) -> None:
    cls = composed(r, fmt)
    for label, text in texts(r, fmt) + fallback_texts(r, fmt):
        tools = tools_of(fmt)
        request = request_of(tools)
        parser = cls(TOKENIZER, request.tools, chat_template_kwargs=None, model_config=None)
        parser.set_prompt_token_ids([0])
        reasoning, content, calls = parser.parse(text, request, enable_auto_tools=True)
        got = (reasoning or None, content or None, [(c.name, c.arguments) for c in calls or []])
        assert got == expected(r, fmt, backend, text, tools), f"{r}+{fmt} {label}: {text!r}"


# (issue 30) gemma4's blocks anywhere, minimax_m3's stray end tag, cohere's response markup and
# framing newline: through vLLM's serving code, streamed under every splitting and parsed whole,
# as toolparse reads them (reasoning, content, calls)
G4CALL = '<|tool_call>call:get_weather{city:<|"|>Paris<|"|>}<tool_call|>'
ISSUE30 = [
    (
        "gemma4",
        "gemma4",
        "Before\n<|channel>thought\nabc<channel|>\nrest",
        ("abc", "Before\n\nrest", []),
    ),
    (
        "gemma4",
        "gemma4",
        f"a<|channel>thought\nplan {G4CALL}b<|channel>thought\nmore<channel|>c",
        ("planmore", "abc", [("get_weather", '{"city": "Paris"}')]),
    ),
    ("minimax_m3", "minimax_m3", "XXX</mm:think>YYY", (None, "XXX</mm:think>YYY", [])),
    ("minimax_m3", "minimax_m3", "</mm:think>YYY</mm:think>", (None, "YYY</mm:think>", [])),
    (
        "cohere_command3",
        "cohere_command3",
        "<|START_THINKING|>p<co>q</co: 0:[1]><|END_THINKING|>\n<|START_RESPONSE|>A<|END_RESPONSE|>",
        ("pq", "A", []),
    ),
]


@pytest.mark.parametrize("r,fmt,text,exp", ISSUE30, ids=lambda p: str(p)[:20])
def test_issue30_cases_through_vllm(r: str, fmt: str, text: str, exp: Any, backend: str) -> None:
    tools = tools_for(["get_weather"], None)
    for split, chunks in splittings(text, seed=len(text)).items():
        client, _, _ = serve_stream(r, fmt, tools, chunks)
        assert client.result() == exp, f"{r}+{fmt}/{backend} split={split}: {text!r}"
    request = request_of(tools)
    parser = composed(r, fmt)(
        TOKENIZER, request.tools, chat_template_kwargs=None, model_config=None
    )
    parser.set_prompt_token_ids([0])
    reasoning, content, calls = parser.parse(text, request, enable_auto_tools=True)
    got = (reasoning or None, content or None, [(c.name, c.arguments) for c in calls or []])
    assert got == exp, text


@pytest.mark.parametrize("r,fmt", PAIRS, ids=lambda p: str(p))
@settings(max_examples=15, deadline=None)
@given(data=st.data())
def test_pair_random_splits(r: str, fmt: str, data: st.DataObject) -> None:
    label, text = data.draw(st.sampled_from(texts(r, fmt)))
    cuts = data.draw(st.lists(st.integers(0, len(text)), max_size=30, unique=True))
    tools = tools_of(fmt)
    client, _, _ = serve_stream(r, fmt, tools, corpus.chunks_at(text, cuts))
    assert client.result() == expected(r, fmt, "rust", text, tools), (label, cuts)


def test_call_in_unclosed_block_is_not_lost(backend: str) -> None:
    one = call_text("hermes", [("get_weather", {"city": "Paris"})])
    text = f"<think>Let me check the weather. {one}"
    for chunks in splittings(text, seed=3).values():
        client, finish, _ = serve_stream("qwen3", "hermes", tools_for([]), chunks)
        assert client.result()[2] == [("get_weather", '{"city": "Paris"}')]
        assert client.result()[0] == "Let me check the weather. "
        assert finish == "tool_calls"


def test_think_markers_inside_an_argument_stay_there(backend: str) -> None:
    arg = "<think>not reasoning</think>"
    one = call_text("hermes", [("get_weather", {"city": arg})])
    text = f"<think>plan</think>{one}"
    for chunks in splittings(text, seed=5).values():
        client, _, _ = serve_stream("qwen3", "hermes", tools_for([]), chunks)
        (name, args), *_ = client.result()[2]
        assert json.loads(args) == {"city": arg} and client.result()[0] == "plan"


# ==================================================================================================
# The prompt and the thinking switch
# ==================================================================================================


def test_prompt_and_kwargs_decide_where_the_output_starts(backend: str) -> None:
    one = call_text("hermes", [("get_weather", {"city": "Oslo"})])
    tools = tools_for([])
    # thinking switched off in the prompt (a closed block in the last turn): starts as content
    text = f"Hello {one}"
    closed = ids_of("<|im_start|>", "x", "<think>", "x", "</think>")
    client, _, parser = serve_stream("qwen3", "hermes", tools, [text], prompt=closed)
    assert client.result() == expected("qwen3", "hermes", backend, text, tools, started=False)
    assert client.result()[1] == "Hello " and parser.reasoning_parser.started is False
    # the prompt's last turn opened the block: starts inside reasoning
    opened = ids_of("</think>", "<|im_start|>", "x", "<think>")
    text2 = "deepseek thinks</think>ok"
    client, _, parser = serve_stream("deepseek_r1", "deepseek_v3", tools, [text2], prompt=opened)
    assert client.result()[:2] == ("deepseek thinks", "ok")
    assert parser.reasoning_parser.started is True
    # a block in an earlier turn is not this turn's: the format's default
    earlier = ids_of("<think>", "x", "</think>", "<|im_start|>", "x")
    client, _, parser = serve_stream("qwen3", "hermes", tools, [text2], prompt=earlier)
    assert parser.reasoning_parser.started is None
    assert client.result() == expected("qwen3", "hermes", backend, text2, tools)
    # chat_template_kwargs: thinking off
    for kw in ({"enable_thinking": False}, {"thinking": False}):
        client, _, parser = serve_stream("qwen3", "hermes", tools, [text], kwargs=kw)
        assert parser.reasoning_parser.started is False
        assert client.result() == expected("qwen3", "hermes", backend, text, tools, started=False)


def test_engine_core_checks_on_token_ids() -> None:
    cls = tp_vllm.reasoning_parser_class("qwen3")
    core = cls(tokenizer=TOKENIZER, chat_template_kwargs={"enable_thinking": True})
    assert core.is_reasoning_end(ids_of("<|im_start|>", "x")) is False  # qwen3 starts inside
    assert core.is_reasoning_end(ids_of("<|im_start|>", "<think>", "x", "</think>")) is True
    off = cls(tokenizer=TOKENIZER, chat_template_kwargs={"enable_thinking": False})
    assert off.is_reasoning_end(ids_of("<|im_start|>", "x")) is True
    assert core.is_reasoning_end_streaming([0, 0, 11], [11]) is True
    assert core.is_reasoning_end_streaming([0, 11, 0], [0]) is False
    # deepseek_v3 starts outside reasoning unless the prompt opened the block
    v3 = tp_vllm.reasoning_parser_class("deepseek_v3")(tokenizer=TOKENIZER)
    assert v3.is_reasoning_end(ids_of("<|im_start|>", "x")) is True
    assert v3.is_reasoning_end(ids_of("<|im_start|>", "<think>")) is False
    # an end marker that is not one token: its token sequence, across the step boundary
    assert rsn.end_in_delta(rsn.MarkerIds(None, "qwen3"), [1, 2, 3], [3]) is False
    ids = rsn.MarkerIds(None, "qwen3")
    ids.end_seq = [5, 6, 7]
    assert rsn.end_in_delta(ids, [0, 5, 6, 7], [7]) is True
    assert rsn.end_in_delta(ids, [5, 6, 7, 0], [0]) is False


# A richer vocabulary: call starts, whitespace, text and a start marker of two tokens (gemma4's
# "<|channel>thought\n"); decode gives each token's text ("x" for the unknown token).
VOCAB2 = {
    **VOCAB,
    "<tool_call>": 20,
    "<｜tool▁calls▁begin｜>": 21,
    "[TOOL_CALLS]": 22,
    "\n": 30,
    "a": 31,
    "b": 32,
    "<|channel>": 33,
    "thought\n": 34,
    "<channel|>": 35,
}
TEXT_OF = {i: t for t, i in VOCAB2.items()}
TEXT_OF[0] = "x"


class Tokenizer2(Tokenizer):
    def get_vocab(self) -> Dict[str, int]:
        return dict(VOCAB2)

    def decode(self, ids: Any, **_: Any) -> str:
        return "".join(TEXT_OF.get(i, "x") for i in ids)


TOKENIZER2 = Tokenizer2()


def ids2(*parts: str) -> List[int]:
    return [VOCAB2.get(p, 0) for p in parts]


class OnlyTheTail(list):  # type: ignore[type-arg]
    """all_token_ids that fail if anything but a short slice of their end is read."""

    def __iter__(self) -> Any:
        raise AssertionError("all_token_ids re-scanned")

    def __getitem__(self, key: Any) -> Any:
        if not isinstance(key, slice) or key.start is None or key.start > 0 or key.start < -8:
            raise AssertionError(f"all_token_ids read at {key!r}")
        return super().__getitem__(key)


def test_engine_core_call_start_ends_an_open_block() -> None:
    """The engine core's per-step check follows the machine: a call start that ends an open
    block ends reasoning there (built alone, the reasoning format's own call starts; paired, the
    tool format's), a start marker inside does not; only the step's ids are read."""
    for r, call in [("qwen3", "<tool_call>"), ("deepseek_r1", "<｜tool▁calls▁begin｜>")]:
        core = tp_vllm.reasoning_parser_class(r)(tokenizer=TOKENIZER2, chat_template_kwargs={})
        big = OnlyTheTail([0] * 10_000)
        assert core.is_reasoning_end_streaming(big, ids2("a", call)) is True
        assert core.is_reasoning_end_streaming(big, ids2("a", "</think>")) is True
        assert core.is_reasoning_end_streaming(big, ids2("a", "<think>", "b")) is False
        assert core.is_reasoning_end_streaming(big, ids2("[TOOL_CALLS]")) is False
    m = tp_vllm.reasoning_parser_class("mistral")(tokenizer=TOKENIZER2)
    assert m.is_reasoning_end_streaming([0], ids2("[TOOL_CALLS]")) is True
    # the prompt's last turn: a call start after the opened block ended it
    core = tp_vllm.reasoning_parser_class("qwen3")(tokenizer=TOKENIZER2, chat_template_kwargs={})
    assert core.is_reasoning_end(ids2("<|im_start|>", "<think>", "a")) is False
    assert core.is_reasoning_end(ids2("<|im_start|>", "<think>", "a", "<tool_call>", "b")) is True
    assert core.is_reasoning_end(ids2("<think>", "<tool_call>", "<|im_start|>", "a")) is False
    # paired (vLLM's frontend): the tool format's call start
    parser = composed("deepseek_r1", "hermes")(
        TOKENIZER2, None, chat_template_kwargs=None, model_config=None
    )
    reasoner = parser._reasoning_parser
    assert reasoner.is_reasoning_end_streaming([0], ids2("<tool_call>")) is True
    assert reasoner.is_reasoning_end_streaming([0], ids2("<｜tool▁calls▁begin｜>")) is False


TOKENS = ["<think>", "</think>", "<tool_call>", "a", "b", "x"]


@settings(max_examples=60, deadline=None)
@given(toks=st.lists(st.sampled_from(TOKENS), max_size=12), fmt=st.sampled_from([None, "hermes"]))
def test_token_checks_agree_with_the_machine(toks: List[str], fmt: Optional[str]) -> None:
    """Per decode step (one token each), the first step ``is_reasoning_end_streaming`` reports
    is the token at which qwen3's machine (the prompt opened the block) hands the text over, and
    ``count_reasoning_tokens`` counts the tokens of the reasoning it emits."""
    ids = ids2(*toks)
    core = tp_vllm.reasoning_parser_class("qwen3")(tokenizer=TOKENIZER2, chat_template_kwargs={})
    first = next(
        (
            j
            for j in range(len(ids))
            if core.is_reasoning_end_streaming(ids[: j + 1], ids[j : j + 1])
        ),
        None,
    )
    text = "".join(TEXT_OF[i] for i in ids)
    stream = toolparse.get_parser(fmt, reasoning="qwen3", reasoning_started=True).stream()
    offsets, reasoning = [0], ""
    for i in ids:
        offsets.append(offsets[-1] + len(TEXT_OF[i]))
    for c in [TEXT_OF[i] for i in ids]:
        d = stream.feed(c)
        reasoning += (d.reasoning or "") if d else ""
    at = stream.machine_from
    d = stream.finish()
    reasoning += (d.reasoning or "") if d else ""
    if first is None:
        assert at is None, text
    else:
        assert at in (offsets[first], offsets[first + 1]), (text, first, at)
    counted = core.count_reasoning_tokens(tuple(ids))
    inside = [i for i in ids[: len(ids) if first is None else first] if TEXT_OF[i] != "<think>"]
    assert counted == len(inside)
    assert reasoning == "".join(TEXT_OF[i] for i in inside)


def test_count_reasoning_tokens() -> None:
    """vLLM's ``Parser.count_reasoning_tokens`` (the usage's ``reasoning_tokens``) through the
    composed parser: the tokens inside the block, markers excluded, by the machine's rules."""
    parser = composed("qwen3", "hermes")(
        TOKENIZER2, None, chat_template_kwargs=None, model_config=None
    )
    parser.set_prompt_token_ids(ids2("<|im_start|>", "a"))
    count = parser.count_reasoning_tokens
    assert count(tuple(ids2("<think>", "a", "b", "</think>", "x"))) == 2  # started: qwen3's default
    assert count(tuple(ids2("a", "b", "<tool_call>", "x", "</think>"))) == 2  # a call start ends
    assert count(tuple(ids2("a", "b"))) == 2  # never closed
    # grown one delta at a time, as vLLM passes it, equals counting afresh; another sequence resets
    ids = ids2("a", "<think>", "b", "x", "</think>", "a", "a")
    assert [count(tuple(ids[:n])) for n in range(len(ids) + 1)] == [0, 1, 1, 2, 3, 3, 3, 3]
    assert count(tuple(ids2("b", "</think>"))) == 1
    # thinking off: outside a block, one opens only at the beginning (after whitespace)
    off = composed("qwen3", "hermes")(
        TOKENIZER2, None, chat_template_kwargs={"enable_thinking": False}, model_config=None
    )
    assert off.count_reasoning_tokens(tuple(ids2("a", "<think>", "b", "</think>"))) == 0
    v3 = composed("deepseek_v3", "deepseek_v3")(
        TOKENIZER2, None, chat_template_kwargs=None, model_config=None
    )
    assert v3.count_reasoning_tokens(tuple(ids2("\n", "<think>", "a", "b", "</think>", "x"))) == 2
    # a start marker of two tokens (gemma4's), told by decoding the first tokens only
    g = tp_vllm.reasoning_parser_class("gemma4")(tokenizer=TOKENIZER2)
    assert g.count_reasoning_tokens(ids2("<|channel>", "thought\n", "a", "b", "<channel|>")) == 2
    # a block opens anywhere (the spec's blocks_anywhere), its label markup
    again = ("x", "<|channel>", "thought\n", "a", "<channel|>", "b", "<|channel>", "a", "b")
    for toks in [
        ("<|channel>", "a", "b", "<channel|>"),
        ("x", "<|channel>", "a", "<channel|>"),
        again,
    ]:
        text = "".join(toks)
        info = toolparse.get_parser(None, reasoning="gemma4").extract_tool_calls(text)
        assert g.count_reasoning_tokens(ids2(*toks)) == len(info.reasoning or "")  # 1 char/token
    # harmony reasons in channels: not counted from ids
    h = tp_vllm.reasoning_parser_class("openai_gptoss")(tokenizer=TOKENIZER2)
    assert h.count_reasoning_tokens(ids2("a", "b")) == 0


def test_tool_choice_required_is_parsed_in_the_formats_markup_after_the_block(
    backend: str,
) -> None:
    """tool_choice="required": toolparse_F names a structural_tag_model, so with strict tool
    calling on (vLLM's default) vLLM holds the output to toolparse's tag (the format's own
    markup, not vLLM's JSON array, which this test pinned before) and the pair parses it after
    the block, whatever the splitting."""
    tools = tools_for(["get_weather"])
    call = '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Rome"}}\n</tool_call>'
    text = f"<think>plan</think>{call}"
    for chunks in ([text], ["<think>pl", "an</think>" + call], ["<think>plan</think>", call]):
        client, _, _ = serve_stream("qwen3", "hermes", tools, chunks, tool_choice="required")
        reasoning, content, calls = client.result()
        assert reasoning == "plan" and content is None
        assert calls == [("get_weather", '{"city": "Rome"}')]


def test_bad_input_never_raises(backend: str) -> None:
    for text in ["</think></think><think>", "<tool_call>{bad</think>", "[THINK]<think>[/THINK]"]:
        for chunks in splittings(text, seed=1).values():
            serve_stream("qwen3", "hermes", tools_for([]), chunks)
            serve_stream("mistral", "mistral", tools_for([]), chunks)
            serve_stream("qwen3", None, tools_for([]), chunks)


def test_reasoning_parser_alone_passes_the_raw_rest_on(backend: str) -> None:
    """No toolparse tool parser after it: reasoning-only machine, the rest goes on raw."""
    one = call_text("hermes", [("get_weather", {"city": "Paris"})])
    text = f"<think>plan</think>\n\n{one}"
    for chunks in splittings(text, seed=2).values():
        client, _, _ = serve_stream("qwen3", None, tools_for([]), chunks)
        assert client.result() == ("plan", "\n\n" + one, [])
    cls = composed("qwen3", None)
    p = cls(TOKENIZER, None, model_config=None)
    assert p.parse(text, request_of([]))[:2] == ("plan", "\n\n" + one)


# ==================================================================================================
# Startup, in a fresh process
# ==================================================================================================

_STARTUP = textwrap.dedent(
    """
    import sys, types
    import vllm.tool_parsers
    from vllm.plugins import load_general_plugins
    load_general_plugins()
    from vllm.entrypoints.common.cli_args import init_parser_plugin, validate_api_server_args
    args = types.SimpleNamespace(
        enable_auto_tool_choice=True, tool_call_parser=sys.argv[2],
        tool_parser_plugin="", reasoning_parser_plugin=sys.argv[3] if len(sys.argv) > 3 else "",
        structured_outputs_config=types.SimpleNamespace(reasoning_parser=sys.argv[1]),
    )
    init_parser_plugin(args)
    validate_api_server_args(args)
    from vllm.parser.parser_manager import ParserManager
    cls = ParserManager.get_parser(
        tool_parser_name=sys.argv[2], reasoning_parser_name=sys.argv[1], enable_auto_tools=True
    )
    print("OK", cls.reasoning_parser_cls.__name__, cls.tool_parser_cls.__name__)
    """
)


def _startup(*argv: str, env: Optional[Dict[str, str]] = None) -> subprocess.CompletedProcess:
    e = dict(os.environ)
    e.update(env or {})
    return subprocess.run(
        [sys.executable, "-c", _STARTUP, *argv], capture_output=True, text=True, env=e, timeout=300
    )


def test_startup_accepts_the_pair() -> None:
    r = _startup("toolparse_qwen3", "toolparse_hermes")
    assert r.returncode == 0 and "OK ToolparseQwen3ReasoningParser" in r.stdout, r.stderr[-2000:]
    r = _startup("toolparse_nope", "toolparse_hermes")
    assert r.returncode != 0 and "invalid reasoning parser: toolparse_nope" in r.stderr
    # plugins disabled: --reasoning-parser-plugin toolparse.integrations.vllm brings them back
    off = {"VLLM_PLUGINS": ""}
    r = _startup("toolparse_qwen3", "hermes", env=off)
    assert r.returncode != 0 and "invalid reasoning parser" in r.stderr
    r = _startup("toolparse_qwen3", "hermes", "toolparse.integrations.vllm", env=off)
    assert r.returncode == 0 and "OK" in r.stdout, r.stderr[-2000:]


# The Rust path through vLLM's serving code (a pair streamed and parsed whole, the reasoning parser
# alone) never imports the pure-Python twin: the hand-over point comes from the core.
_NO_TWIN = textwrap.dedent(
    """
    import sys
    import vllm.tool_parsers
    from vllm.plugins import load_general_plugins
    load_general_plugins()
    from toolparse.integrations import vllm_plugin
    vllm_plugin()  # as the entry point does (idempotent)
    from vllm.entrypoints.openai.chat_completion.protocol import ChatCompletionRequest
    from vllm.entrypoints.openai.chat_completion.stream_processor import ChatStreamProcessor
    from vllm.parser.parser_manager import ParserManager

    class Tok:
        name_or_path = "mock"
        all_special_tokens = ["<|im_start|>"]
        all_special_ids = [1]
        def get_vocab(self):
            return {"<unk>": 0, "<|im_start|>": 1, "<think>": 10, "</think>": 11}
        def decode(self, ids, **_):
            return ""
        def encode(self, text, **_):
            return [0] * len(text)

    tok = Tok()
    tools = [{"type": "function", "function": {"name": "f", "parameters": {"type": "object"}}}]
    text = '<think>plan é</think>\\n<tool_call>{"name": "f", "arguments": {"a": 1}}</tool_call>'
    for tool in ("toolparse_hermes", None):
        cls = ParserManager.get_parser(
            tool_parser_name=tool, reasoning_parser_name="toolparse_qwen3",
            enable_auto_tools=True, model_name="m", tokenizer=tok,
        )
        request = ChatCompletionRequest(
            model="m", messages=[{"role": "user", "content": "hi"}], tools=tools
        )
        parser = cls(tok, request.tools, chat_template_kwargs=None, model_config=None)
        proc = ChatStreamProcessor(request, parser, enable_auto_tools=True, parser_cls=cls)
        chunks = [text[:9], text[9:17], text[17:40], text[40:]]
        for i, c in enumerate(chunks):
            proc.step(c, [0] * len(c), "stop" if i == len(chunks) - 1 else None, [0])
        parser = cls(tok, request.tools, chat_template_kwargs=None, model_config=None)
        parser.set_prompt_token_ids([0])
        reasoning, content, calls = parser.parse(text, request, enable_auto_tools=True)
        assert reasoning == "plan é", reasoning
    """
)


def test_rust_path_never_imports_the_twin() -> None:
    reasoning_pairs.check_never_imports_the_twin(_NO_TWIN)
