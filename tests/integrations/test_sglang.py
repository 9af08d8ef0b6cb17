"""toolparse inside SGLang 0.5.23, driven through SGLang's own code.

* ``FunctionCallParser.parse_stream_chunk`` / ``parse_stream_end`` / ``parse_non_stream`` with
  every ``toolparse_F`` detector, on both toolparse backends.
* SGLang's serving layer for tool calls: ``serving_chat.py`` cannot be imported without torch (its
  imports reach model configs and kernels), so the methods that handle tool calls
  (``_process_tool_call_stream``, ``_check_for_unstreamed_tool_args``, ``_process_tool_calls``,
  ``_process_tool_call_id``, ...) are compiled here from the installed ``serving_chat.py`` source,
  unchanged, and run on SGLang's own protocol models; the SSE chunks they yield are rebuilt the way
  an OpenAI client does and compared with toolparse's own ``extract_tool_calls``. The
  finish_reason rule of ``_generate_chat_stream`` (``tool_calls`` when calls were made, the
  engine stopped on its own and no call is unfinished) is applied with SGLang's own
  ``_incomplete_tool_call_indices``.
* Startup, in fresh processes: SGLang's ``load_plugins()`` puts every ``toolparse_F`` into the
  ``--tool-call-parser`` choices of SGLang's own argument parser; an unknown name is rejected
  listing them; ``SGLANG_PLUGINS`` without ``toolparse`` leaves them out and ``register()`` (the
  ``python -m toolparse.integrations.sglang`` fallback) brings them back.

Skipped when SGLang is not installed. Under the peers harness's torch stand-in, vLLM must be
imported before SGLang, so it is imported first when present.
"""

from __future__ import annotations

import asyncio
import importlib.metadata
import importlib.util
import json
import os
import random
import subprocess
import sys
import textwrap
import types
from typing import Any, Dict, List, Optional, Tuple

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

try:  # under the torch stand-in, SGLang imports only after vLLM
    import vllm.tool_parsers  # noqa: F401
except Exception:  # noqa: BLE001 - vLLM absent or not importable: SGLang may still be
    pass

pytest.importorskip("sglang")
fcp = pytest.importorskip("sglang.srt.function_call.function_call_parser")

import corpus  # noqa: E402  (tests/ is on sys.path: tests/conftest.py)
import toolparse  # noqa: E402
from server_cases import (  # noqa: E402
    cases_of,
    same_model_object,
    splittings,
    token_chunks,
    toolparse_result,
    toolparse_streamed,
    tools_for,
)
from sglang.srt.entrypoints.openai import protocol  # noqa: E402
from sglang.srt.function_call.core_types import (  # noqa: E402
    StreamingParseResult,
    StructureInfo,
    ToolCallItem,
)
from sglang_serving import (  # noqa: E402
    TOOL_CALL_METHODS,
    load_serving_methods,
    run_startup,
    tool_call_chunks,
)
from toolparse.integrations import sglang as tp_sglang  # noqa: E402

FunctionCallParser = fcp.FunctionCallParser
FORMATS = tp_sglang.formats()
BACKENDS = ("rust", "python")
ENUM = FunctionCallParser.ToolCallParserEnum

tp_sglang.register()


# ==================================================================================================
# SGLang's serving-layer tool-call code, compiled from its installed source
# ==================================================================================================

ServingChatToolPath, incomplete_tool_call_indices = load_serving_methods(
    "ServingChatToolPath", TOOL_CALL_METHODS, {}
)


class Serving(ServingChatToolPath):  # type: ignore[misc, valid-type]
    """The state those methods read from an ``OpenAIServingChat``."""

    def __init__(self, tool_call_parser: str) -> None:
        self.tool_call_parser = tool_call_parser
        self.tokenizer_manager = types.SimpleNamespace(tokenizer=None)


def chat_request(tools: List[Dict[str, Any]], stream: bool = True) -> Any:
    return protocol.ChatCompletionRequest(
        model="m", messages=[{"role": "user", "content": "hi"}], tools=tools, stream=stream
    )


def sse_payloads(chunks: List[str]) -> List[Dict[str, Any]]:
    out = []
    for s in chunks:
        assert s.startswith("data: ") and s.endswith("\n\n"), s
        out.append(json.loads(s[len("data: ") :]))
    return out


class Client:
    """Rebuilds the assistant message from SSE chunks as an OpenAI client does, checking the
    protocol: a call's first delta carries index, id, type and its full name; later deltas only
    arguments; ids unique."""

    def __init__(self) -> None:
        self.content = ""
        self.calls: List[Dict[str, Any]] = []

    def add(self, payload: Dict[str, Any]) -> None:
        (choice,) = payload["choices"]
        assert choice["index"] == 0
        delta = choice["delta"]
        if delta.get("content"):
            self.content += delta["content"]
        for tc in delta.get("tool_calls") or []:
            index = tc["index"]
            fn = tc["function"]
            if index == len(self.calls):
                assert tc.get("id"), f"first delta of call {index} without id: {tc}"
                assert tc.get("type") == "function", tc
                assert fn.get("name"), f"first delta of call {index} without name: {tc}"
                self.calls.append(
                    {"id": tc["id"], "name": fn["name"], "arguments": fn.get("arguments") or ""}
                )
            else:
                assert 0 <= index < len(self.calls), f"delta for unknown call {index}: {tc}"
                assert not tc.get("id") and not fn.get("name"), f"later delta renames: {tc}"
                self.calls[index]["arguments"] += fn.get("arguments") or ""

    def result(self) -> Tuple[Optional[str], List[Tuple[str, str]]]:
        ids = [c["id"] for c in self.calls]
        assert len(set(ids)) == len(ids), f"duplicate ids {ids}"
        return self.content or None, [(c["name"], c["arguments"]) for c in self.calls]


def serve_stream(
    serving: Serving, request: Any, chunks: List[str], finish: str = "stop"
) -> Tuple[Client, str, Any]:
    """What ``_generate_chat_stream`` does with each engine chunk when a tool-call parser is
    active (``_generate_stream_content``'s tool branch), then its finish_reason rule."""
    parser_dict: Dict[int, Any] = {}
    has_tool_calls: Dict[int, bool] = {}
    sse: List[str] = []
    chunks = chunks or [""]

    async def run() -> None:
        for i, delta in enumerate(chunks):
            finish_reason_type = finish if i == len(chunks) - 1 else None
            sse.extend(
                await tool_call_chunks(
                    serving,
                    request,
                    delta,
                    (parser_dict, has_tool_calls),
                    {"meta_info": {"id": "chatcmpl-test"}},
                    finish=finish_reason_type is not None,
                    flush=finish_reason_type is not None and finish_reason_type != "abort",
                )
            )

    asyncio.run(run())
    final = finish
    if (
        has_tool_calls.get(0, False)
        and finish == "stop"
        and not incomplete_tool_call_indices(parser_dict.get(0))
    ):
        final = "tool_calls"
    client = Client()
    for payload in sse_payloads(sse):
        client.add(payload)
    return client, final, parser_dict.get(0)


# ==================================================================================================
# Cases and splittings
# ==================================================================================================


@pytest.fixture(params=BACKENDS)
def backend(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """Registers the detectors of one toolparse backend under the ``toolparse_F`` names."""
    for fmt in FORMATS:
        monkeypatch.setitem(
            ENUM, tp_sglang.PREFIX + fmt, tp_sglang.detector_class(fmt, request.param)
        )
    return request.param


# ==================================================================================================
# Through the serving layer: every format, every splitting, == toolparse
# ==================================================================================================


@pytest.mark.parametrize("fmt", FORMATS)
def test_serving_stream_equals_toolparse(fmt: str, backend: str) -> None:
    name = tp_sglang.PREFIX + fmt
    checked = 0
    for label, text, typed, names in cases_of(fmt):
        tools = tools_for(names, typed)
        request = chat_request(tools)
        expected = toolparse_result(fmt, backend, text, tools)
        for split, chunks in splittings(text, seed=len(text)).items():
            client, finish, parser = serve_stream(Serving(name), request, chunks)
            content, calls, unfinished = toolparse_streamed(fmt, backend, chunks, tools)
            where = f"{fmt}/{backend} {label} split={split}: {text!r}"
            assert client.result() == (content, calls), where
            if not label.startswith("malformed"):
                # well-formed output: streaming == non-streaming, through SGLang
                assert client.result() == expected, where
            assert finish == ("tool_calls" if calls and not unfinished else "stop"), where
            assert type(parser.detector) is ENUM[name]
            checked += 1
    assert checked >= 4 * 10


@pytest.mark.parametrize("fmt", FORMATS)
@settings(max_examples=25)
@given(data=st.data())
def test_serving_random_splits(fmt: str, data: st.DataObject) -> None:
    """Hypothesis picks the cuts (both backends): SGLang's serving path rebuilds exactly
    toolparse's non-streaming result for the composite case (content, several calls, escapes)."""
    case = corpus.composite_case(fmt)
    backend = data.draw(st.sampled_from(BACKENDS), label="backend")
    cuts = data.draw(
        st.lists(st.integers(0, len(case.text)), max_size=40, unique=True), label="cuts"
    )
    chunks = corpus.chunks_at(case.text, cuts)
    tools = tools_for([n for n, _ in case.calls], case.tools)
    name = tp_sglang.PREFIX + fmt
    saved = ENUM[name]
    ENUM[name] = tp_sglang.detector_class(fmt, backend)
    try:
        client, finish, _ = serve_stream(Serving(name), chat_request(tools), chunks)
    finally:
        ENUM[name] = saved
    assert client.result() == toolparse_result(fmt, backend, case.text, tools), chunks
    assert finish == "tool_calls"


@pytest.mark.parametrize("fmt", FORMATS)
def test_serving_non_stream_equals_toolparse(fmt: str, backend: str) -> None:
    serving = Serving(tp_sglang.PREFIX + fmt)
    for label, text, typed, names in cases_of(fmt):
        tools = tools_for(names, typed)
        request = chat_request(tools, stream=False)
        finish_reason = {"type": "stop", "matched": None}
        tool_calls, content, finish = serving._process_tool_calls(
            text, request.tools, finish_reason, request.tool_choice
        )
        exp_content, exp_calls = toolparse_result(fmt, backend, text, tools)
        got_calls = [(c.function.name, c.function.arguments) for c in tool_calls or []]
        where = f"{fmt}/{backend} {label}: {text!r}"
        assert (content or None, got_calls) == (exp_content, exp_calls), where
        assert [c.index for c in tool_calls or []] == list(range(len(exp_calls))), where
        ids = [c.id for c in tool_calls or []]
        assert len(set(ids)) == len(ids), where
        assert finish["type"] == ("tool_calls" if exp_calls else "stop"), where


@pytest.mark.parametrize("fmt", FORMATS)
def test_parse_stream_chunk_protocol(fmt: str, backend: str) -> None:
    """FunctionCallParser directly: tool_index is the call's ordinal, the first item of a call
    names it, the detector's bookkeeping equals what was streamed, and SGLang's
    unstreamed-arguments step has nothing left to send."""
    case = corpus.composite_case(fmt)
    names = [n for n, _ in case.calls]
    tools = [protocol.Tool.model_validate(t) for t in tools_for(names, case.tools)]
    for split, chunks in splittings(case.text, seed=7).items():
        parser = FunctionCallParser(tools, tp_sglang.PREFIX + fmt)
        normal, streamed = "", []
        results = [parser.parse_stream_chunk(c) for c in chunks] + [parser.parse_stream_end()]
        for text, items in results:
            normal += text
            for item in items:
                assert isinstance(item, ToolCallItem)
                if item.name is not None:
                    assert item.tool_index == len(streamed), (split, item)
                    streamed.append([item.name, item.parameters])
                else:
                    assert 0 <= item.tool_index < len(streamed), (split, item)
                    assert item.parameters, (split, item)
                    streamed[item.tool_index][1] += item.parameters
        exp_content, exp_calls = toolparse_result(
            fmt, backend, case.text, tools_for(names, case.tools)
        )
        assert (normal or None, [tuple(c) for c in streamed]) == (exp_content, exp_calls), split
        det = parser.detector
        assert det.streamed_args_for_tool == [a for _, a in exp_calls]
        assert det.prev_tool_call_arr == [{"name": n, "arguments": a} for n, a in exp_calls]
        assert det.current_tool_id == len(exp_calls) - 1
        assert (
            Serving("x")._check_for_unstreamed_tool_args(
                parser, {"meta_info": {"id": "c"}}, chat_request([]), 0, created=0
            )
            is None
        )


@pytest.mark.parametrize("fmt", FORMATS[: len(toolparse.list_formats())])
def test_rust_core_builds_sglangs_results_as_the_python_builder(fmt: str) -> None:
    """On the Rust backend the core builds SGLang's own StreamingParseResult / ToolCallItem
    (``_core.DeltaModels`` of layout "sglang"); they must be what the integration's Python
    builder (the twin's path) makes of the same core deltas, a result for every feed, and the
    calls it records what was sent."""
    for label, text, typed, call_names in cases_of(fmt):
        tools = tools_for(call_names, typed)
        for chunks in ([text], token_chunks(text), list(text)):
            core = tp_sglang._stream_core(toolparse.get_parser(fmt, tools=tools))
            raw = toolparse.get_parser(fmt, tools=tools)._format.parser()
            where = f"{fmt} {label} in {len(chunks)} chunks"
            results = [(core.feed_message(c), raw.feed(c)) for c in chunks]
            results.append((core.finish_message(), raw.finish()))
            sent: List[List[str]] = []
            for got, d in results:
                want = tp_sglang._sglang_result(d)
                same_model_object(got, want, where)
                assert isinstance(got, StreamingParseResult), where
                for item in got.calls:
                    if item.name is not None:
                        sent.append([item.name, ""])
                    sent[item.tool_index][1] += item.parameters
            assert core.sent_calls == [tuple(c) for c in sent], where


@pytest.mark.parametrize("fmt", FORMATS)
def test_parse_non_stream_and_has_tool_call(fmt: str, backend: str) -> None:
    """``has_tool_call`` is exact: True iff toolparse finds a call or reads the content apart from
    the raw text; ``parse_non_stream`` gives toolparse's result."""
    for label, text, typed, names in cases_of(fmt):
        tools = [protocol.Tool.model_validate(t) for t in tools_for(names, typed)]
        parser = FunctionCallParser(tools, tp_sglang.PREFIX + fmt)
        exp_content, exp_calls = toolparse_result(fmt, backend, text, tools_for(names, typed))
        assert parser.has_tool_call(text) == bool(exp_calls or (exp_content or "") != text), label
        normal, items = parser.parse_non_stream(text)
        assert (normal or None, [(i.name, i.parameters) for i in items]) == (
            (exp_content, exp_calls) if parser.has_tool_call(text) else (text or None, [])
        ), label
        assert [i.tool_index for i in items] == list(range(len(items)))


def test_has_tool_call_exact_without_markers(backend: str) -> None:
    """pythonic has no markers: text that only looks like a list is no call."""
    tools = [protocol.Tool.model_validate(t) for t in tools_for(["f"])]
    det = FunctionCallParser(tools, "toolparse_pythonic").detector
    for text in ("[1] see the footnote", "[]", "See [link](https://x.y)", "a[0] = b", "[f(a=1"):
        assert det.has_tool_call(text) is False, text
    for text in ("[f(a=1)]", "[f()]", " [f(a='x'), g(b=[1, 2])]\n"):
        assert det.has_tool_call(text) is True, text


@pytest.mark.parametrize("fmt", FORMATS)
def test_garbage_never_raises(fmt: str, backend: str) -> None:
    """Random bytes around the format's markers, split randomly: no exception into the serving
    loop, and SGLang's rebuilt message is toolparse's own streamed result."""
    rng = random.Random(fmt)
    case = corpus.composite_case(fmt)
    alphabet = list("{}[]()<>|\"'\\:,=; \n\tabc01") + ["<tool_call>", "[TOOL_CALLS]", "<|"]
    tools = tools_for([n for n, _ in case.calls], case.tools)
    request = chat_request(tools)
    for _ in range(25):
        cut = rng.randrange(len(case.text) + 1)
        noise = "".join(rng.choice(alphabet) for _ in range(rng.randrange(1, 20)))
        text = case.text[:cut] + noise + case.text[cut:]
        chunks = corpus.random_chunks(text, rng, max_cuts=15)
        client, _finish, _ = serve_stream(Serving(tp_sglang.PREFIX + fmt), request, chunks)
        content, calls, _ = toolparse_streamed(fmt, backend, chunks, tools)
        assert client.result() == (content, calls), text


COMPLETE = '<tool_call>{"name": "get_weather", "arguments": {"city": "Paris"}}</tool_call>\n'


@pytest.mark.parametrize(
    "text,unfinished",
    [
        # a call whose start was streamed never ended
        ('Hi <tool_call>{"name": "get_weather", "arguments": {"city": "Par', True),
        ("Hi " + COMPLETE + '<tool_call>{"name": "get_weather", "arguments": {"ci', True),
        # the output ended in markup whose call never started: every streamed call is complete
        ("Hi " + COMPLETE + '<tool_call>{"na', False),
    ],
)
def test_truncated_call_keeps_finish_reason(backend: str, text: str, unfinished: bool) -> None:
    """Output cut inside a call (max_tokens): the client still gets what was streamed; the
    finish_reason is 'tool_calls' only when toolparse says no streamed call was left
    unfinished."""
    tools = tools_for(["get_weather"])
    for finish in ("stop", "length"):
        client, final, _ = serve_stream(
            Serving("toolparse_hermes"), chat_request(tools), token_chunks(text), finish
        )
        content, calls, left = toolparse_streamed("hermes", backend, token_chunks(text), tools)
        assert left is unfinished
        assert client.result() == (content, calls)
        assert calls and calls[0][0] == "get_weather"
        assert final == ("tool_calls" if finish == "stop" and not unfinished else finish)


def test_internal_error_passes_text_through(monkeypatch: pytest.MonkeyPatch) -> None:
    """Should the parser ever fail, the serving loop gets the text as content, not an
    exception."""
    tools = [protocol.Tool.model_validate(t) for t in tools_for(["get_weather"])]
    parser = FunctionCallParser(tools, "toolparse_hermes")
    assert parser.parse_stream_chunk("Hello ") == ("Hello ", [])

    def boom(text: str) -> Any:
        raise RuntimeError("boom")

    parser.detector._tp_feed = boom
    assert parser.parse_stream_chunk("<tool_call>x") == ("<tool_call>x", [])
    assert parser.parse_stream_chunk(" more") == (" more", [])


def test_results_are_sglang_models() -> None:
    """The fast-built results are ordinary SGLang models: equal to validated ones, dumpable."""
    tools = [protocol.Tool.model_validate(t) for t in tools_for(["get_weather"])]
    det = FunctionCallParser(tools, "toolparse_hermes").detector
    r = det.parse_streaming_increment('<tool_call>{"name": "get_weather", "arguments": {"a"', tools)
    assert type(r) is StreamingParseResult and type(r.calls[0]) is ToolCallItem
    assert r == StreamingParseResult(
        calls=[ToolCallItem(tool_index=0, name="get_weather", parameters='{"a"')]
    )
    r2 = det.parse_streaming_increment(": 1", tools)
    assert r2.model_dump() == {
        "normal_text": "",
        "calls": [{"tool_index": 0, "name": None, "parameters": ": 1"}],
    }
    r2.calls[0].parameters = "changed"  # mutable like a validated model; the detector kept its own
    assert det.streamed_args_for_tool == ['{"a": 1']


# ==================================================================================================
# What SGLang inherits from its own detectors
# ==================================================================================================


def test_subclasses_sglang_detectors() -> None:
    for fmt, peer in tp_sglang.SGLANG_PEERS.items():
        if fmt in FORMATS:
            cls = tp_sglang.detector_class(fmt)
            assert issubclass(cls, ENUM[peer]) and ENUM[tp_sglang.PREFIX + fmt] is cls
    det = FunctionCallParser([], "toolparse_hermes").detector
    info = det.structure_info()("get_weather")
    assert isinstance(info, StructureInfo) and "get_weather" in info.begin
    assert info.trigger == "<tool_call>"
    tools = [protocol.Tool.model_validate(t) for t in tools_for(["get_weather"])]
    constraint = FunctionCallParser(tools, "toolparse_hermes").get_structure_constraint("required")
    assert constraint is not None and constraint[0] == "structural_tag"
    assert FunctionCallParser(
        tools, "toolparse_qwen3_coder"
    ).detector.get_structural_tag_name() == ("qwen_3_coder")


def test_register_is_idempotent() -> None:
    before = dict(ENUM)
    names = tp_sglang.register()
    assert names == [tp_sglang.PREFIX + f for f in FORMATS]
    assert tp_sglang.register() == names
    assert {n: ENUM[n] for n in names} == {n: before[n] for n in names}
    assert len(ENUM) == len(before)
    with pytest.raises(ValueError, match="hermes"):
        tp_sglang.detector_class("nope")


def test_check_reports_the_plugin() -> None:
    out = tp_sglang.check()
    assert out["server"] == "sglang" and out["installed"] is True
    assert out["version"] == importlib.metadata.version("sglang")
    assert out["ok"] is True, out["error"]
    assert sorted(out["names"]) == sorted(tp_sglang.PREFIX + f for f in FORMATS)
    reasoning = tp_sglang.reasoning_formats()
    assert sorted(out["reasoning_names"]) == sorted(tp_sglang.PREFIX + r for r in reasoning)


def test_fallback_main_runs_launch_server(monkeypatch: pytest.MonkeyPatch) -> None:
    seen: Dict[str, Any] = {}

    def run_module(name: str, run_name: str, alter_sys: bool) -> None:
        seen.update(name=name, run_name=run_name, argv=list(sys.argv))
        seen["registered"] = "toolparse_hermes" in ENUM

    monkeypatch.setattr(tp_sglang.runpy, "run_module", run_module)
    monkeypatch.setattr(sys, "argv", ["x"])
    tp_sglang.main(["--model-path", "m", "--tool-call-parser", "toolparse_hermes"])
    assert seen == {
        "name": "sglang.launch_server",
        "run_name": "__main__",
        "argv": [
            "sglang.launch_server",
            "--model-path",
            "m",
            "--tool-call-parser",
            "toolparse_hermes",
        ],
        "registered": True,
    }


# ==================================================================================================
# Startup, in fresh processes
# ==================================================================================================

_STARTUP = """
(action,) = [a for a in parser._actions if "--tool-call-parser" in a.option_strings]
ns = parser.parse_args(["--model-path", "m", "--tool-call-parser", sys.argv[2]])
print(json.dumps({"choices": list(action.choices), "parsed": ns.tool_call_parser}))
"""
_REGISTER = """
if sys.argv[1] == "register":
    from toolparse.integrations.sglang import register
    register()
"""


def startup(name: str, register: bool = False, **env: str) -> subprocess.CompletedProcess:
    mode = "register" if register else "plugins"
    return run_startup(_STARTUP, mode, name, before_args=_REGISTER, **env)


def test_startup_plugin_adds_every_name() -> None:
    proc = startup("toolparse_hermes")
    assert proc.returncode == 0, proc.stderr[-3000:]
    out = json.loads(proc.stdout.strip().splitlines()[-1])
    assert out["parsed"] == "toolparse_hermes"
    names = [tp_sglang.PREFIX + f for f in FORMATS]
    assert set(names) <= set(out["choices"])
    assert "hermes" in out["choices"]  # SGLang's own names stay


def test_startup_rejects_unknown_name() -> None:
    proc = startup("toolparse_nope")
    assert proc.returncode == 2, proc.stderr[-3000:]
    assert "invalid choice: 'toolparse_nope'" in proc.stderr
    for f in FORMATS:
        assert f"'{tp_sglang.PREFIX}{f}'" in proc.stderr


def test_startup_allowlist_and_fallback() -> None:
    """SGLANG_PLUGINS without toolparse: the names are not there; register() (what
    ``python -m toolparse.integrations.sglang`` does first) adds them."""
    proc = startup("hermes", SGLANG_PLUGINS="someone_else")
    assert proc.returncode == 0, proc.stderr[-3000:]
    out = json.loads(proc.stdout.strip().splitlines()[-1])
    assert not [c for c in out["choices"] if c.startswith(tp_sglang.PREFIX)]
    proc = startup("toolparse_qwen3_coder", register=True, SGLANG_PLUGINS="someone_else")
    assert proc.returncode == 0, proc.stderr[-3000:]
    out = json.loads(proc.stdout.strip().splitlines()[-1])
    assert out["parsed"] == "toolparse_qwen3_coder"


def test_check_reports_allowlist(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SGLANG_PLUGINS", "someone_else")
    out = tp_sglang.check()
    assert out["ok"] is False and "SGLANG_PLUGINS" in out["error"]
    assert "\n" not in out["error"]


def test_check_reports_a_plugin_that_does_not_load(monkeypatch: pytest.MonkeyPatch) -> None:
    """The entry point is loaded by SGLang's own loader: one that fails to import is reported."""
    plugins = pytest.importorskip("sglang.srt.plugins")
    from importlib.metadata import EntryPoint

    broken = EntryPoint(
        name=tp_sglang.PLUGIN_NAME,
        value="toolparse.integrations.no_such_module:register",
        group=tp_sglang.PLUGIN_GROUP,
    )
    monkeypatch.setattr(plugins, "entry_points", lambda group: [broken])
    monkeypatch.delenv("SGLANG_PLUGINS", raising=False)
    out = tp_sglang.check()
    assert out["installed"] is True and out["ok"] is False
    assert "did not load 'toolparse'" in out["error"] and "\n" not in out["error"]


def test_check_in_a_fresh_process() -> None:
    """What ``toolparse integrations`` sees before a server starts: nothing registered yet."""
    script = textwrap.dedent(
        """
        import json
        try:
            import vllm.tool_parsers  # the torch stand-in needs vLLM first
        except Exception:
            pass
        from toolparse.integrations import sglang
        print(json.dumps(sglang.check()))
        """
    )
    env = {k: v for k, v in os.environ.items() if k != "SGLANG_PLUGINS"}
    proc = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, env=env, timeout=300
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    out = json.loads(proc.stdout.strip().splitlines()[-1])
    assert out["ok"] is True, out
    assert sorted(out["names"]) == sorted(tp_sglang.PREFIX + f for f in FORMATS)
    assert "toolparse_qwen3" in out["reasoning_names"]


def test_format_without_an_sglang_detector(monkeypatch: pytest.MonkeyPatch) -> None:
    """A format SGLang has no detector of: a BaseFormatDetector without SGLang's structure info.
    ``tool_choice="required"`` is held by toolparse's structural tag (it pinned SGLang's
    JSON-schema fallback before toolparse built tags), and the detector parses it."""
    monkeypatch.setitem(tp_sglang.SGLANG_PEERS, "hermes", "no_such_sglang_parser")
    monkeypatch.setattr(tp_sglang, "_DETECTOR_CLASSES", {})
    cls = tp_sglang.detector_class("hermes")
    assert issubclass(cls, fcp.BaseFormatDetector)
    assert not issubclass(cls, ENUM["hermes"])
    monkeypatch.setitem(ENUM, "toolparse_test_nopeer", cls)
    xgrammar = pytest.importorskip("xgrammar")
    tools = [protocol.Tool.model_validate(t) for t in tools_for(["get_weather"])]
    parser = FunctionCallParser(tools, "toolparse_test_nopeer")
    assert parser.detector.supports_structural_tag() is True and parser.owns_tool_format()
    with pytest.raises(NotImplementedError):
        parser.detector.structure_info()
    constraint = parser.get_structure_constraint("required")
    assert constraint is not None and constraint[0] == "structural_tag"
    want = toolparse.structural_tag("hermes", tools_for(["get_weather"]), tool_choice="required")
    assert constraint[1].model_dump(by_alias=True) == (
        xgrammar.StructuralTag.model_validate(want).model_dump(by_alias=True)
    )
    text = 'Hi <tool_call>{"name": "get_weather", "arguments": {"city": "Oslo"}}</tool_call>'
    assert parser.parse_non_stream(text) == (
        "Hi ",
        [ToolCallItem(tool_index=0, name="get_weather", parameters='{"city": "Oslo"}')],
    )
