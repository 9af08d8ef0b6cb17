"""toolparse's reasoning detectors (``toolparse_R``) inside SGLang 0.5.23, through SGLang's code.

SGLang runs the reasoning detector first and hands its normal text to a tool detector built apart,
so one machine is not possible; the two read the configured pair from SGLang's serving context.
Streaming runs ``OpenAIServingChat``'s own ``_process_reasoning_stream`` (with
``_get_reasoning_from_request`` and ``_tool_call_parsing_active``) and tool-call path, compiled
from the installed ``serving_chat.py`` as ``tests/integrations/test_sglang.py`` does, per delta
as ``_generate_stream_content`` calls them; non-streaming SGLang's ``ReasoningParser`` then
``_process_tool_calls``, as ``_build_chat_response`` does. For the pairs qwen3 + hermes, qwen3 +
qwen3_coder, deepseek_r1 + deepseek_v3 and mistral + mistral the rebuilt message (reasoning,
content, calls) equals ``toolparse.get_parser(F, tools, reasoning=R).extract_tool_calls(text)``
under one delta, tokens, random groups and single characters.
"""

from __future__ import annotations

import asyncio
import json
import sys
import textwrap
import types
from typing import Any, Dict, List, Optional, Tuple

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

try:  # under the torch stand-in, SGLang imports only after vLLM
    import vllm.tool_parsers  # noqa: F401
except Exception:  # noqa: BLE001
    pass

pytest.importorskip("sglang")
fcp = pytest.importorskip("sglang.srt.function_call.function_call_parser")
rp = pytest.importorskip("sglang.srt.parser.reasoning_parser")

import corpus  # noqa: E402
import reasoning_pairs  # noqa: E402  (this folder is on sys.path: pytest's rootdir)
import toolparse  # noqa: E402
from reasoning_pairs import (  # noqa: E402
    BACKENDS,
    PAIRS,
    call_text,
    fallback_texts,
    one_pass_stream,
    texts,
    tools_of,
)
from server_cases import splittings  # noqa: E402
from sglang.srt.entrypoints.openai import protocol  # noqa: E402
from sglang_serving import (  # noqa: E402
    TOOL_CALL_METHODS,
    load_serving_methods,
    run_startup,
    tool_call_chunks,
)
from toolparse.integrations import sglang as tp_sglang  # noqa: E402

FunctionCallParser = fcp.FunctionCallParser
ReasoningParser = rp.ReasoningParser
ENUM = FunctionCallParser.ToolCallParserEnum
DMAP = ReasoningParser.DetectorMap
P = tp_sglang.PREFIX

tp_sglang.register()

_METHODS = (
    "_process_reasoning_stream",
    "_get_reasoning_from_request",
    "_tool_call_parsing_active",
    *TOOL_CALL_METHODS,
)


ServingChatPaths, incomplete_tool_call_indices = load_serving_methods(
    "ServingChatPaths",
    _METHODS,
    {"ReasoningParser": ReasoningParser, "IQuestQ1ReasoningDetector": rp.IQuestQ1ReasoningDetector},
)


class Serving(ServingChatPaths):  # type: ignore[misc, valid-type]
    """The state those methods read from an ``OpenAIServingChat``."""

    def __init__(self, reasoning: str, tool: str) -> None:
        self.reasoning_parser = reasoning
        self.tool_call_parser = tool
        self.tokenizer_manager = types.SimpleNamespace(tokenizer=None)
        self.template_manager = types.SimpleNamespace(force_reasoning=False, reasoning_config=None)
        self._reasoning_detector = ReasoningParser(model_type=reasoning).detector


@pytest.fixture
def context(monkeypatch: pytest.MonkeyPatch) -> Any:
    """SGLang's serving context as a server started with ``--reasoning-parser R
    --tool-call-parser F`` publishes it."""
    runtime = pytest.importorskip("sglang.srt.runtime_context")
    current: Dict[str, Any] = {}
    monkeypatch.setattr(runtime, "get_serving", lambda: types.SimpleNamespace(**current))

    def set_pair(reasoning: str, tool: str) -> Serving:
        current.update(reasoning_parser=reasoning, tool_call_parser=tool)
        return Serving(reasoning, tool)

    return set_pair


@pytest.fixture(params=BACKENDS)
def backend(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    for fmt in tp_sglang.formats():
        monkeypatch.setitem(ENUM, P + fmt, tp_sglang.detector_class(fmt, request.param))
    for r in tp_sglang.reasoning_formats():
        monkeypatch.setitem(DMAP, P + r, tp_sglang.reasoning_detector_class(r, request.param))
    return str(request.param)


def chat_request(tools: List[Dict[str, Any]], stream: bool = True, **kw: Any) -> Any:
    return protocol.ChatCompletionRequest(
        model="m", messages=[{"role": "user", "content": "hi"}], tools=tools, stream=stream, **kw
    )


class Client:
    def __init__(self) -> None:
        self.reasoning = ""
        self.content = ""
        self.calls: List[Dict[str, Any]] = []

    def add_sse(self, chunk: str) -> None:
        assert chunk.startswith("data: ") and chunk.endswith("\n\n"), chunk
        (choice,) = json.loads(chunk[len("data: ") :])["choices"]
        delta = choice["delta"]
        self.content += delta.get("content") or ""
        self.reasoning += delta.get("reasoning_content") or ""
        for tc in delta.get("tool_calls") or []:
            index, fn = tc["index"], tc["function"]
            if index == len(self.calls):
                assert tc.get("id") and fn.get("name"), tc
                self.calls.append({"name": fn["name"], "args": fn.get("arguments") or ""})
            else:
                assert not fn.get("name"), tc
                self.calls[index]["args"] += fn.get("arguments") or ""

    def result(self) -> Tuple[Optional[str], Optional[str], List[Tuple[str, str]]]:
        calls = [(c["name"], c["args"]) for c in self.calls]
        return self.reasoning or None, self.content or None, calls


def serve_stream(serving: Serving, request: Any, chunks: List[str]) -> Client:
    """``_generate_stream_content`` for one choice: the reasoning step, then the tool-call step
    on its normal text (or the text as content when tool parsing is off), per engine chunk."""
    parser_dict: Dict[int, Any] = {}
    rdict: Dict[int, Any] = {}
    has_tool_calls: Dict[int, bool] = {}
    client = Client()
    chunks = chunks or [""]

    async def run() -> None:
        for i, delta in enumerate(chunks):
            finish = "stop" if i == len(chunks) - 1 else None
            content = {"meta_info": {"id": "chatcmpl-test"}}
            reasoning_text, delta = serving._process_reasoning_stream(
                0, delta, rdict, content, request, finish
            )
            client.reasoning += reasoning_text or ""
            if serving._tool_call_parsing_active(request):
                for chunk in await tool_call_chunks(
                    serving,
                    request,
                    delta,
                    (parser_dict, has_tool_calls),
                    content,
                    finish=finish is not None,
                    flush=finish is not None,
                ):
                    client.add_sse(chunk)
            else:
                client.content += delta or ""

    asyncio.run(run())
    return client


def non_stream(serving: Serving, request: Any, text: str) -> Tuple[Any, Any, Any]:
    """``_build_chat_response``'s reasoning then tool-call steps."""
    parser = ReasoningParser(
        model_type=serving.reasoning_parser,
        stream_reasoning=False,
        force_reasoning=serving.template_manager.force_reasoning
        or serving._get_reasoning_from_request(request),
        request=request,
        tokenizer=None,
        tool_call_parser_active=serving._tool_call_parsing_active(request),
    )
    reasoning, text = parser.parse_non_stream(text)
    tool_calls, text, _ = serving._process_tool_calls(
        text, request.tools, {"type": "stop", "matched": None}, request.tool_choice
    )
    calls = [(c.function.name, c.function.arguments) for c in tool_calls or []]
    return reasoning or None, text or None, calls


def expected(r: str, fmt: str, backend: str, text: str, started: Optional[bool]) -> Any:
    return reasoning_pairs.expected(r, fmt, backend, text, tools_of(fmt), started)


def started_of(serving: Serving, request: Any) -> bool:
    """What SGLang's serving passes as force_reasoning, which toolparse_R takes as
    ``reasoning_started``."""
    return bool(
        serving.template_manager.force_reasoning or serving._get_reasoning_from_request(request)
    )


# ==================================================================================================


def test_every_reasoning_format_is_registered() -> None:
    from sglang.srt.parser.reasoning_parser_names import REASONING_PARSER_NAMES

    for r in toolparse.list_reasoning_formats(aliases=True):
        assert P + r in DMAP and P + r in REASONING_PARSER_NAMES, r
        det = ReasoningParser(model_type=P + r).detector
        assert det.toolparse_reasoning == toolparse.spec.reasoning_canonical(r)
        assert isinstance(det, rp.BaseReasoningFormatDetector)
    assert "qwen3" in DMAP  # SGLang's own names stay


# SGLang's own reasoning parser for the same channel format (the spec entries with a tool_format)
CHANNEL_PEERS = {
    "openai_gptoss": "gpt-oss",
    "inkling": "inkling",
    "muse": "muse",
    "muse_glimmer": "muse",
    "beam": "beam",
}


class SpecialTokenizer:
    """Encodes every marker of toolparse's spec as one id (as a checkpoint whose markers are
    special tokens does) and other text character by character."""

    def __init__(self) -> None:
        marks = {m for s in toolparse.spec.SPECS.values() for m in s.special_tokens}
        self.ids = {m: 300000 + k for k, m in enumerate(sorted(marks))}

    def encode(self, text: str, add_special_tokens: bool = False) -> List[int]:
        out: List[int] = []
        i = 0
        while i < len(text):
            mark = next((m for m in self.ids if text.startswith(m, i)), None)
            out.append(self.ids[mark] if mark else ord(text[i]))
            i += len(mark) if mark else 1
        return out

    def decode(self, ids: Any, **_: Any) -> str:
        back = {v: k for k, v in self.ids.items()}
        return "".join(back.get(i) or chr(i) for i in ids)


def test_channel_formats_are_every_spec_entry_with_a_tool_format() -> None:
    spec = toolparse.spec.REASONING
    assert set(CHANNEL_PEERS) == {r for r, s in spec.items() if s.tool_format is not None}


@pytest.mark.parametrize("r", sorted(CHANNEL_PEERS))
def test_channel_formats_name_the_token_that_ends_reasoning(r: str) -> None:
    """SGLang's scheduler gates grammars on the reasoning detector's ``think_end_token``
    (``get_think_end_token_ids``); an empty one "could not be encoded" and turns grammar-gated
    reasoning off. toolparse_R reports the token SGLang's own detector for the format does (the
    spec's end_token; inkling's by its id), built as the scheduler builds it (its grammar backend,
    ``ReasonerGrammarBackend``, asks the same and imports only with real torch)."""
    tok = SpecialTokenizer()
    ours = ReasoningParser(model_type=P + r, stream_reasoning=False, tokenizer=tok).detector
    theirs = ReasoningParser(
        model_type=CHANNEL_PEERS[r], stream_reasoning=False, tokenizer=tok
    ).detector
    assert ours.think_end_token == theirs.think_end_token != ""
    ids = ours.get_think_end_token_ids(tok)
    assert ids and ids == theirs.get_think_end_token_ids(tok)
    # the spec's end (what toolparse parses by) is unchanged: the channels separate reasoning
    assert toolparse.spec.REASONING[r].end == ""


def test_other_formats_end_reasoning_at_their_end_token() -> None:
    """SGLang's think_end_token is the spec's end_token: the end marker, or the one token of it
    SGLang's own parser stops on where the marker is longer (hunyuan_a13b's framed end)."""
    for r, s in toolparse.spec.REASONING.items():
        if s.tool_format is None:
            assert DMAP[P + r]().think_end_token == s.end_token, r
            assert s.end_token in s.end, r


@pytest.mark.parametrize("r,fmt", PAIRS, ids=lambda p: str(p))
def test_pair_stream_equals_one_pass(r: str, fmt: str, backend: str, context: Any) -> None:
    serving = context(P + r, P + fmt)
    request = chat_request(tools_of(fmt))
    started = started_of(serving, request)
    for label, text in texts(r, fmt):
        exp = expected(r, fmt, backend, text, started)
        for split, chunks in splittings(text, seed=len(text)).items():
            got = serve_stream(serving, request, chunks).result()
            assert got == exp, f"{r}+{fmt}/{backend} {label} split={split}: {text!r}"


@pytest.mark.parametrize("r,fmt", PAIRS, ids=lambda p: str(p))
def test_pair_fallback_stream_equals_one_pass(r: str, fmt: str, backend: str, context: Any) -> None:
    """Malformed or cut markup after a block (an empty one too): the stream is the one-pass
    machine's stream under every splitting (what was sent stays sent), and the message of a
    malformed output is the non-streaming one."""
    serving = context(P + r, P + fmt)
    request = chat_request(tools_of(fmt))
    started = started_of(serving, request)
    for label, text in fallback_texts(r, fmt):
        whole = one_pass_stream(r, fmt, backend, tools_of(fmt), [text], started)
        for split, chunks in splittings(text, seed=len(text)).items():
            got = serve_stream(serving, request, chunks).result()
            where = f"{r}+{fmt}/{backend} {label} split={split}: {text!r}"
            assert got == one_pass_stream(r, fmt, backend, tools_of(fmt), chunks, started), where
            assert got == whole, where
        if "malformed" in label and not whole[2]:
            assert whole == expected(r, fmt, backend, text, started), label


@pytest.mark.parametrize("r,fmt", PAIRS, ids=lambda p: str(p))
def test_pair_non_stream_equals_one_pass(r: str, fmt: str, backend: str, context: Any) -> None:
    serving = context(P + r, P + fmt)
    request = chat_request(tools_of(fmt), stream=False)
    started = started_of(serving, request)
    for label, text in texts(r, fmt) + fallback_texts(r, fmt):
        got = non_stream(serving, request, text)
        assert got == expected(r, fmt, backend, text, started), f"{r}+{fmt} {label}: {text!r}"


@pytest.mark.parametrize("r,fmt", PAIRS, ids=lambda p: str(p))
@settings(max_examples=15, deadline=None)
@given(data=st.data())
def test_pair_random_splits(r: str, fmt: str, data: st.DataObject) -> None:
    runtime = pytest.importorskip("sglang.srt.runtime_context")
    saved = runtime.get_serving
    runtime.get_serving = lambda: types.SimpleNamespace(  # type: ignore[assignment]
        reasoning_parser=P + r, tool_call_parser=P + fmt
    )
    try:
        serving = Serving(P + r, P + fmt)
        request = chat_request(tools_of(fmt))
        label, text = data.draw(st.sampled_from(texts(r, fmt)))
        cuts = data.draw(st.lists(st.integers(0, len(text)), max_size=30, unique=True))
        got = serve_stream(serving, request, corpus.chunks_at(text, cuts)).result()
    finally:
        runtime.get_serving = saved  # type: ignore[assignment]
    assert got == expected(r, fmt, "rust", text, started_of(serving, request)), (label, cuts)


def test_force_reasoning_is_the_thinking_switch(backend: str, context: Any) -> None:
    """SGLang's only switch: ``enable_thinking`` false in the request (read by SGLang's
    ``_get_reasoning_from_request`` through the detector's ``reasoning_default``) gives
    force_reasoning False: the output is content unless it opens a block itself."""
    serving = context(P + "qwen3", P + "hermes")
    one = call_text("hermes", [("get_weather", {"city": "Oslo"})])
    on = chat_request(tools_of("hermes"))
    off = chat_request(tools_of("hermes"), chat_template_kwargs={"enable_thinking": False})
    assert started_of(serving, on) is True and started_of(serving, off) is False
    text = f"Hello {one}"
    assert serve_stream(serving, off, [text]).result() == (
        None,
        "Hello ",
        [("get_weather", '{"city": "Oslo"}')],
    )
    assert serve_stream(serving, on, [text]).result()[0] == "Hello "
    # not given at all (SGLang's /separate_reasoning, its probes): the format's default
    det = tp_sglang.reasoning_detector_class("qwen3", backend)()
    assert det._tp_started is None
    assert ReasoningParser(model_type=P + "deepseek_v3").detector._tp_started is None


def toggle(**fields: Any) -> Any:
    """SGLang's ``ReasoningToggleConfig`` (its module needs torch): the fields serving reads."""
    base = {"toggle_param": None, "default_enabled": None, "special_case": None}
    return types.SimpleNamespace(**{**base, **fields, "effort_kwarg": None})


def _server_state(monkeypatch: pytest.MonkeyPatch, serving: Serving) -> None:
    """What a running SGLang server holds: its template manager in the HTTP server's state."""
    state = types.SimpleNamespace(template_manager=serving.template_manager)
    module = sys.modules.get("sglang.srt.entrypoints.http_server")
    if module is not None:
        monkeypatch.setattr(module, "_global_state", state, raising=False)
    else:
        stand_in = types.SimpleNamespace(_global_state=state)
        monkeypatch.setitem(sys.modules, "sglang.srt.entrypoints.http_server", stand_in)


def test_force_reasoning_false_without_a_switch_is_the_format_default(
    backend: str, context: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """What SGLang can tell is honoured, otherwise the format's default (README "Reasoning with
    vLLM/SGLang"). Through SGLang's ``_get_reasoning_from_request`` with the template toggle its
    template detection would find: a toggle read (the request's or the template's default)
    gives False = thinking off; a template with no toggle SGLang understands for this parser
    (here a Hunyuan effort template) gives False without a switch: qwen3's default applies (the
    prompt opened the block), so the text before the call is reasoning; a template that opens
    the block gives True."""
    serving = context(P + "qwen3", P + "hermes")
    _server_state(monkeypatch, serving)
    one = call_text("hermes", [("get_weather", {"city": "Oslo"})])
    text = f"Hello {one}"
    call = [("get_weather", '{"city": "Oslo"}')]
    tools = tools_of("hermes")
    toggle_on = toggle(toggle_param="enable_thinking", default_enabled=True)
    toggle_off = toggle(toggle_param="thinking", default_enabled=False)
    effort = toggle(special_case="hunyuan_effort")
    cases = [
        # (template config, template forces, chat_template_kwargs, reasoning)
        (toggle_on, False, {"enable_thinking": False}, None),
        (toggle_on, False, None, "Hello "),
        (toggle_off, False, None, None),
        (toggle_off, False, {"thinking": True}, "Hello "),
        (effort, False, None, "Hello "),  # SGLang cannot tell: qwen3 starts inside
        (None, True, {"enable_thinking": False}, "Hello "),  # the template opens the block
    ]
    for config, forces, kwargs, reasoning in cases:
        serving.template_manager = types.SimpleNamespace(
            force_reasoning=forces, reasoning_config=config
        )
        _server_state(monkeypatch, serving)
        for stream in (True, False):
            request = chat_request(tools, stream=stream, chat_template_kwargs=kwargs)
            content = None if reasoning else "Hello "
            want = (reasoning, content, call)
            if stream:
                got = serve_stream(serving, request, list(text)).result()
            else:
                got = non_stream(serving, request, text)
            assert got == want, (config, forces, kwargs, stream)
    # deepseek_r1 (starts inside by default) under a template SGLang cannot read: its default
    context(P + "deepseek_r1", P + "deepseek_v3")
    serving = Serving(P + "deepseek_r1", P + "deepseek_v3")
    serving.template_manager = types.SimpleNamespace(force_reasoning=False, reasoning_config=effort)
    _server_state(monkeypatch, serving)
    request = chat_request(tools_of("deepseek_v3"), stream=False)
    assert started_of(serving, request) is False
    assert non_stream(serving, request, "plan</think>answer") == ("plan", "answer", [])


def test_call_in_unclosed_block_is_not_lost(backend: str, context: Any) -> None:
    serving = context(P + "qwen3", P + "hermes")
    one = call_text("hermes", [("get_weather", {"city": "Paris"})])
    text = f"<think>Let me check. {one}"
    for chunks in splittings(text, seed=3).values():
        got = serve_stream(serving, chat_request(tools_of("hermes")), chunks).result()
        assert got[0] == "Let me check. " and got[2] == [("get_weather", '{"city": "Paris"}')]


def test_without_a_toolparse_tool_parser_the_block_ends_at_its_own_call_starts(
    backend: str, context: Any
) -> None:
    """With SGLang's own hermes detector after it, toolparse_qwen3 ends an open block at
    qwen3's call start and hands the raw rest to it."""
    context(P + "qwen3", "hermes")
    one = call_text("hermes", [("get_weather", {"city": "Paris"})])
    for chunks in splittings(f"<think>hm {one}", seed=4).values():
        det = ReasoningParser(model_type=P + "qwen3").detector
        assert det._tp_tool is None
        outs = [det.parse_streaming_increment(c) for c in chunks] + [det.finish()]
        assert "".join(o.reasoning_text for o in outs) == "hm "
        assert "".join(o.normal_text for o in outs) == one


def test_bad_input_never_raises(backend: str, context: Any) -> None:
    serving = context(P + "qwen3", P + "hermes")
    for text in ["</think></think><think>", "<tool_call>{bad</think>", "<think><think>"]:
        for chunks in splittings(text, seed=1).values():
            serve_stream(serving, chat_request(tools_of("hermes")), chunks)
            non_stream(serving, chat_request(tools_of("hermes"), stream=False), text)


def test_stream_reasoning_false_holds_the_reasoning_back(backend: str, context: Any) -> None:
    serving = context(P + "qwen3", P + "hermes")
    det = ReasoningParser(model_type=P + "qwen3", stream_reasoning=False).detector
    assert det.parse_streaming_increment("<think>ab").reasoning_text == ""
    out = det.parse_streaming_increment("c</think>rest")
    assert (out.reasoning_text, out.normal_text) == ("abc", "rest")
    assert serving is not None


_STARTUP = """
args = ["--model-path", "m", "--reasoning-parser", sys.argv[1], "--tool-call-parser", sys.argv[2]]
ns = parser.parse_args(args)
print(json.dumps([ns.reasoning_parser, ns.tool_call_parser]))
"""


def test_startup_accepts_the_pair() -> None:
    proc = run_startup(_STARTUP, "toolparse_qwen3", "toolparse_hermes")
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert json.loads(proc.stdout.strip().splitlines()[-1]) == [
        "toolparse_qwen3",
        "toolparse_hermes",
    ]


# The Rust path of SGLang's reasoning parser (streamed and whole) never imports the pure-Python
# twin: the hand-over point comes from the core.
_NO_TWIN = textwrap.dedent(
    """
    import sys
    try:
        import vllm.tool_parsers  # the torch stand-in needs vLLM first
    except Exception:
        pass
    from sglang.srt.parser.reasoning_parser import ReasoningParser
    from toolparse.integrations import sglang as tp_sglang
    tp_sglang.register()
    text = '<think>plan é</think>\\n<tool_call>{"name": "f", "arguments": {"a": 1}}</tool_call>'
    for name in ("toolparse_qwen3", "toolparse_deepseek_r1"):
        p = ReasoningParser(model_type=name, stream_reasoning=True)
        reasoning, normal = p.parse_non_stream(text)
        assert reasoning == "plan é" and normal.startswith("\\n<tool_call>"), (reasoning, normal)
        p = ReasoningParser(model_type=name, stream_reasoning=True)
        got = ["", ""]
        for c in (text[:9], text[9:17], text[17:40], text[40:]):
            r, n = p.parse_stream_chunk(c)
            got[0] += r or ""
            got[1] += n or ""
        assert got == [reasoning, normal], got
    """
)


def test_rust_path_never_imports_the_twin() -> None:
    reasoning_pairs.check_never_imports_the_twin(_NO_TWIN)
