"""toolparse inside vLLM 0.33, driven through vLLM's own serving code.

* Streaming: vLLM's ``ChatStreamProcessor.step`` per delta (the serving loop's per-chunk call, with
  its end-of-stream steps: ``finalize_generation``'s unstreamed-arguments append and the flush of
  engine-based parsers), on a ``Parser`` composed by vLLM's own ``ParserManager`` from the name
  ``toolparse_F``; the deltas are rebuilt the way an OpenAI client does and compared with
  toolparse's own result, under one delta, token-like chunks, single characters and random groups.
* Non-streaming: vLLM's ``Parser.parse``.
* Startup, in fresh processes: vLLM's plugin loading (the ``vllm.general_plugins`` entry point)
  then its argument validation accepts ``--enable-auto-tool-choice --tool-call-parser
  toolparse_hermes``; an unknown name is rejected listing the registered ones; with the entry point
  disabled (``VLLM_PLUGINS``), ``--tool-parser-plugin toolparse.integrations.vllm`` brings the names
  back. vLLM's own ``make_arg_parser`` builds engine configs that need real torch, so the
  validation runs on the parsed-arguments namespace it would produce.

Skipped when vLLM is not installed (run by .ci/integrations with the peers harness's torch
stand-in).
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
from toolparse.integrations import _vllm_deltas as tp_vllm_deltas  # noqa: E402
from toolparse.integrations import vllm as tp_vllm  # noqa: E402
from vllm.entrypoints.openai.chat_completion.protocol import ChatCompletionRequest  # noqa: E402
from vllm.entrypoints.openai.chat_completion.stream_processor import (  # noqa: E402
    ChatStreamProcessor,
)
from vllm.parser.parser_manager import ParserManager  # noqa: E402
from vllm.tool_parsers import ToolParserManager  # noqa: E402
from vllm_requests import TOKENIZER, PermissiveTokenizer, every_request  # noqa: E402

FORMATS = tp_vllm.formats()
BACKENDS = ("rust", "python")


def chat_request(tools: List[Dict[str, Any]]) -> Any:
    return ChatCompletionRequest(
        model="m", messages=[{"role": "user", "content": "hi"}], tools=tools, tool_choice="auto"
    )


def parser_cls(name: str) -> Any:
    cls = ParserManager.get_parser(
        tool_parser_name=name, enable_auto_tools=True, model_name="m", tokenizer=TOKENIZER
    )
    assert cls is not None
    return cls


class Client:
    """Rebuilds the assistant message from vLLM's deltas (dumped as the server sends them, with
    ``exclude_unset=True``) as an OpenAI client does, checking the protocol: a call's first delta
    carries index, id, type and its full name; later deltas only index and arguments."""

    def __init__(self) -> None:
        self.content = ""
        self.calls: List[Dict[str, Any]] = []

    def add(self, delta: Any) -> None:
        d = json.loads(delta.model_dump_json(exclude_unset=True))
        self.content += d.get("content") or ""
        for tc in d.get("tool_calls") or []:
            index, fn = tc["index"], tc.get("function") or {}
            if index == len(self.calls):
                assert tc.get("type") == "function" and tc.get("id"), tc
                assert fn.get("name"), tc
                self.calls.append({"id": tc["id"], "name": fn["name"], "args": ""})
            else:
                assert index == len(self.calls) - 1, (index, len(self.calls))
                assert "id" not in tc and "name" not in fn, tc
            self.calls[index]["args"] += fn.get("arguments") or ""

    def result(self) -> Tuple[Optional[str], List[Tuple[str, str]]]:
        return self.content or None, [(c["name"], c["args"]) for c in self.calls]


def serve_stream(name: str, tools: List[Dict[str, Any]], chunks: List[str]) -> Tuple[Any, Any, Any]:
    """vLLM's serving loop for one streamed choice: one ``ChatStreamProcessor.step`` per chunk,
    the engine's ``stop`` on the last."""
    cls = parser_cls(name)
    request = chat_request(tools)
    parser = cls(TOKENIZER, request.tools, chat_template_kwargs=None, model_config=None)
    proc = ChatStreamProcessor(request, parser, enable_auto_tools=True, parser_cls=cls)
    client = Client()
    finish = None
    chunks = chunks or [""]  # the engine's last chunk carries finish_reason, even when empty
    for i, chunk in enumerate(chunks):
        last = i == len(chunks) - 1
        step = proc.step(chunk, [1] * len(chunk), "stop" if last else None, [0])
        if step.delta is not None:
            client.add(step.delta)
        if last:
            finish = step.finish_reason
    return client, finish, parser


@pytest.fixture(params=BACKENDS)
def backend(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """Registers the parsers of one toolparse backend under the ``toolparse_F`` names."""
    for fmt in FORMATS:
        monkeypatch.setitem(
            ToolParserManager.tool_parsers,
            tp_vllm.PREFIX + fmt,
            tp_vllm.parser_class(fmt, request.param),
        )
    return str(request.param)


# ==================================================================================================
# Registration
# ==================================================================================================


def test_import_registers_every_format_and_alias() -> None:
    registered = set(ToolParserManager.list_registered())
    assert FORMATS == toolparse.list_formats(aliases=True)
    for fmt in FORMATS:
        assert tp_vllm.PREFIX + fmt in registered
        cls = ToolParserManager.get_tool_parser(tp_vllm.PREFIX + fmt)
        assert cls.engine_based_streaming is True
        assert cls.toolparse_format == fmt
        assert cls.__module__ == "toolparse.integrations.vllm"
        # what vLLM does at startup, then per request
        cls(TOKENIZER)
        cls(TOKENIZER, chat_request(tools_for(["f"])).tools)


def test_aliases_parse_as_their_format() -> None:
    text = corpus.composite_case("hermes").text
    tools = tools_for([n for n, _ in corpus.composite_case("hermes").calls])
    ours = serve_stream(tp_vllm.PREFIX + "qwen25", tools, token_chunks(text))[0].result()
    assert ours == toolparse_result("hermes", "rust", text, tools)


def test_tools_are_converted_once_per_request(monkeypatch: pytest.MonkeyPatch) -> None:
    cls = parser_cls(tp_vllm.PREFIX + "qwen3_coder")  # vLLM's startup check builds one, untyped
    calls = []
    real = toolparse.get_parser

    def counting(*a: Any, **k: Any) -> Any:
        calls.append(k.get("tools"))
        return real(*a, **k)

    monkeypatch.setattr(toolparse, "get_parser", counting)
    tools = corpus.composite_case("qwen3_coder").tools or []
    parser = cls(TOKENIZER, chat_request(tools).tools, chat_template_kwargs=None, model_config=None)
    assert len(calls) == 1 and calls[0] and calls[0][0]["function"]["name"]
    proc = ChatStreamProcessor(chat_request(tools), parser, enable_auto_tools=True, parser_cls=cls)
    for chunk in token_chunks(corpus.composite_case("qwen3_coder").text):
        proc.step(chunk, [1], None, [0])
    assert len(calls) == 1


def test_unsupported_tool_schema_falls_back_to_untyped(caplog: pytest.LogCaptureFixture) -> None:
    bad = [{"type": "function", "function": {"name": "f", "parameters": {"type": 5}}}]
    p = tp_vllm.parser_class("qwen3_coder")(TOKENIZER, chat_request(bad).tools)
    info = p.extract_tool_calls(
        "<tool_call>\n<function=f>\n<parameter=a>\n1\n</parameter>\n</function>\n</tool_call>",
        chat_request(bad),
    )
    assert info.tools_called and info.tool_calls[0].function.arguments == '{"a": "1"}'


# toolparse's names that vLLM also registers, for its own parser of the same wire format
VLLM_SAME_NAMES = [f for f in FORMATS if f in ToolParserManager.lazy_parsers]


@pytest.mark.parametrize("fmt", VLLM_SAME_NAMES)
def test_adjust_request_keeps_special_tokens_wherever_vllms_parser_does(fmt: str) -> None:
    """A checkpoint whose markers are special tokens loses every call if the detokenizer skips
    them: toolparse_F keeps special tokens (and, kimi_k3, drops the spaces between them) at least
    for every request vLLM's own parser F does, chat and Responses, with and without tools, for
    every tool choice. The rule is the spec's "keep_special_tokens", not a list in code."""
    vllms = ToolParserManager.get_tool_parser(fmt)(PermissiveTokenizer())
    ours = tp_vllm.parser_class(fmt)(TOKENIZER)
    tools = tools_for(["f"])
    kept = 0
    for (label, theirs_req), (_, ours_req) in zip(every_request(tools), every_request(tools)):
        try:
            theirs_req = vllms.adjust_request(theirs_req)
        except Exception:  # noqa: BLE001 - vLLM refuses this request (kimi_k3: a named choice)
            continue
        ours_req = ours.adjust_request(ours_req)
        if theirs_req.skip_special_tokens is False:
            kept += 1
            assert ours_req.skip_special_tokens is False, f"{fmt}: {label}"
        if theirs_req.spaces_between_special_tokens is False:
            assert ours_req.spaces_between_special_tokens is False, f"{fmt}: {label}"
    keep = toolparse.spec.get_spec(fmt).keep_special_tokens
    assert kept or keep != "always", f"{fmt}: the spec keeps special tokens where vLLM never does"


@pytest.mark.parametrize("fmt", ["llama3_json", "hermes", "kimi_k3", "pythonic", "iquest_q1"])
def test_adjust_request_follows_the_spec_keep_special_tokens(fmt: str) -> None:
    p = tp_vllm.parser_class(fmt)(TOKENIZER)
    keep = toolparse.spec.get_spec(fmt).keep_special_tokens
    no_spaces = not toolparse.spec.get_spec(fmt).spaces_between_special_tokens
    for label, request in every_request(tools_for(["f"])):
        default = request.skip_special_tokens
        with_tools = bool(request.tools) and request.tool_choice != "none"
        kept = keep == "always" or (keep == "with_tools" and with_tools)
        got = p.adjust_request(request)
        assert got.skip_special_tokens is (False if kept else default), f"{fmt}: {label}"
        assert got.spaces_between_special_tokens is not (kept and no_spaces), f"{fmt}: {label}"


@pytest.mark.parametrize("fmt", FORMATS[: len(toolparse.list_formats())])
def test_rust_core_builds_vllms_deltas_as_the_python_builder(fmt: str) -> None:
    """On the Rust backend the core builds vLLM's own DeltaMessage / DeltaToolCall /
    DeltaFunctionCall (``_core.DeltaModels`` of layout "vllm"); they must be what the integration's
    Python builder (the twin's path) makes of the same core deltas, and the calls it records what
    was sent."""
    tp_vllm._tool_parser_base()
    for label, text, typed, call_names in cases_of(fmt):
        tools = tools_for(call_names, typed)
        for chunks in ([text], token_chunks(text), list(text)):
            parser = toolparse.get_parser(fmt, tools=tools, ids=toolparse.IdSource(7))
            twin = toolparse.get_parser(fmt, tools=tools, ids=toolparse.IdSource(7))
            core = tp_vllm_deltas.stream_core(parser)
            raw = twin._format.parser()
            where = f"{fmt} {label} in {len(chunks)} chunks"
            sent: Dict[int, List[str]] = {}
            names: List[str] = []
            results = [(core.feed_message(c), raw.feed(c)) for c in chunks]
            results.append((core.finish_message(), raw.finish()))
            for got, d in results:
                if d is None:
                    assert got is None, where
                    continue
                want = tp_vllm_deltas.vllm_delta(d, twin.new_id)
                same_model_object(got, want, where)
                assert got.model_dump(exclude_unset=True) == want.model_dump(exclude_unset=True)
                for index, _id, name, args in d[2] or ():
                    if name is not None:
                        names.append(name)
                    sent.setdefault(index, []).append(args or "")
            assert core.sent_calls == [
                (n, "".join(sent.get(i, []))) for i, n in enumerate(names)
            ], where


@pytest.mark.parametrize("backend_name", BACKENDS)
def test_internal_error_passes_text_through(backend_name: str) -> None:
    """Should the core ever fail mid-stream, the serving loop gets that delta's text as content,
    later deltas nothing, and the calls sent before it stay in vLLM's bookkeeping."""
    tp = tp_vllm.parser_class("hermes", backend_name)(TOKENIZER, None)

    def feed(text: str) -> Any:
        return tp.extract_tool_calls_streaming("", "", text, [], [], [], None)

    first = feed('<tool_call>{"name": "get_weather", "arguments": {"a": 1}}</tool_call>')
    assert first.tool_calls[0].function.name == "get_weather"

    real = tp._stream

    class Broken:
        """The stream core, failing from now on (its record of the calls sent stays)."""

        sent_calls = property(lambda self: real.sent_calls)

        def feed_message(self, text: str) -> Any:
            raise RuntimeError("boom")

        def finish_message(self) -> Any:
            raise RuntimeError("boom")

    tp._stream = Broken()
    got = feed("Hello <tool_call>")
    assert got.model_dump(exclude_unset=True) == {"content": "Hello <tool_call>"}
    assert feed(" more") is None
    assert tp.finish_streaming() is None
    assert tp.streamed_args_for_tool == ['{"a": 1}']
    assert tp.prev_tool_call_arr == [{"name": "get_weather", "arguments": '{"a": 1}'}]


def test_check_reports_the_entry_point() -> None:
    out = tp_vllm.check()
    assert out["server"] == "vllm" and out["installed"] and out["version"]
    assert out["ok"], out["error"]
    assert sorted(out["names"]) == sorted(tp_vllm.PREFIX + f for f in FORMATS)
    reasoning = toolparse.list_reasoning_formats(aliases=True)
    assert sorted(out["reasoning_names"]) == sorted(tp_vllm.PREFIX + r for r in reasoning)


# ==================================================================================================
# Through the serving code: every format, every splitting, == toolparse
# ==================================================================================================


@pytest.mark.parametrize("fmt", FORMATS[: len(toolparse.list_formats())])
def test_serving_stream_equals_toolparse(fmt: str, backend: str) -> None:
    name = tp_vllm.PREFIX + fmt
    checked = 0
    for label, text, typed, names in cases_of(fmt):
        tools = tools_for(names, typed)
        expected = toolparse_result(fmt, backend, text, tools)
        for split, chunks in splittings(text, seed=len(text)).items():
            client, finish, parser = serve_stream(name, tools, chunks)
            where = f"{fmt}/{backend} {label} split={split}: {text!r}"
            got = client.result()
            assert got == toolparse_streamed(fmt, backend, chunks, tools)[:2], where
            if not label.startswith("malformed"):
                assert got == expected, where  # streaming == non-streaming, through vLLM
            assert finish == ("tool_calls" if got[1] else "stop"), where
            ids = [c["id"] for c in client.calls]
            assert len(set(ids)) == len(ids), where
            # vLLM's end-of-stream bookkeeping matches what was streamed: nothing appended twice
            tp = parser.tool_parser
            assert [(c["name"], c["args"]) for c in client.calls] == [
                (a["name"], a["arguments"]) for a in tp.prev_tool_call_arr
            ], where
            assert tp.streamed_args_for_tool == [c["args"] for c in client.calls], where
            checked += 1
    assert checked >= 4 * 10


@pytest.mark.parametrize("fmt", FORMATS[: len(toolparse.list_formats())])
def test_serving_non_stream_equals_toolparse(fmt: str, backend: str) -> None:
    cls = parser_cls(tp_vllm.PREFIX + fmt)
    for label, text, typed, names in cases_of(fmt):
        tools = tools_for(names, typed)
        request = chat_request(tools)
        parser = cls(TOKENIZER, request.tools, chat_template_kwargs=None, model_config=None)
        _reasoning, content, calls = parser.parse(text, request, enable_auto_tools=True)
        exp_content, exp_calls = toolparse_result(fmt, backend, text, tools)
        got = [(c.name, c.arguments) for c in calls or []]
        where = f"{fmt}/{backend} {label}: {text!r}"
        assert got == exp_calls, where
        assert (content or None) == exp_content, where
        ids = [c.id for c in calls or []]
        assert all(ids) and len(set(ids)) == len(ids), where


@pytest.mark.parametrize("fmt", FORMATS[: len(toolparse.list_formats())])
@settings(max_examples=20, deadline=None)
@given(data=st.data())
def test_serving_random_splits(fmt: str, data: st.DataObject) -> None:
    case = corpus.composite_case(fmt)
    cuts = data.draw(st.lists(st.integers(0, len(case.text)), max_size=40, unique=True))
    chunks = corpus.chunks_at(case.text, cuts)
    tools = tools_for([n for n, _ in case.calls], case.tools)
    client, finish, _ = serve_stream(tp_vllm.PREFIX + fmt, tools, chunks)
    assert client.result() == toolparse_result(fmt, "rust", case.text, tools), chunks
    assert finish == "tool_calls"


@pytest.mark.parametrize("fmt", FORMATS[: len(toolparse.list_formats())])
@settings(max_examples=25, deadline=None)
@given(text=st.text(alphabet="<>[]{}()\"',:;=/|_ \nabcfnt0123456789", max_size=80), data=st.data())
def test_garbage_never_raises_into_the_serving_loop(
    fmt: str, text: str, data: st.DataObject
) -> None:
    cuts = data.draw(st.lists(st.integers(0, len(text)), max_size=10, unique=True))
    chunks = corpus.chunks_at(text, cuts) or [""]
    client, _, _ = serve_stream(tp_vllm.PREFIX + fmt, tools_for([]), chunks)
    # nothing lost: whatever is not a call is content
    assert client.result() == toolparse_streamed(fmt, "rust", chunks, tools_for([]))[:2]


# ==================================================================================================
# Startup, in fresh processes
# ==================================================================================================

_STARTUP = textwrap.dedent(
    """
    import sys, types
    import vllm.tool_parsers
    from vllm.plugins import load_general_plugins
    load_general_plugins()
    from vllm.entrypoints.common.cli_args import init_parser_plugin, validate_api_server_args
    args = types.SimpleNamespace(
        enable_auto_tool_choice=True, tool_call_parser=sys.argv[1],
        tool_parser_plugin=sys.argv[2] if len(sys.argv) > 2 else "",
        reasoning_parser_plugin="",
        structured_outputs_config=types.SimpleNamespace(reasoning_parser=None),
    )
    init_parser_plugin(args)
    validate_api_server_args(args)
    import toolparse.integrations.vllm as m
    from vllm.tool_parsers import ToolParserManager
    print("OK", ToolParserManager.get_tool_parser(sys.argv[1]).__name__)
    """
)


def _startup(*argv: str, env: Optional[Dict[str, str]] = None) -> subprocess.CompletedProcess:
    e = dict(os.environ)
    e.update(env or {})
    return subprocess.run(
        [sys.executable, "-c", _STARTUP, *argv],
        capture_output=True,
        text=True,
        env=e,
        timeout=300,
    )


def test_startup_accepts_toolparse_names_with_no_flag() -> None:
    r = _startup("toolparse_hermes")
    assert r.returncode == 0 and "OK" in r.stdout, r.stderr[-2000:]


def test_startup_rejects_unknown_names_listing_the_registered() -> None:
    r = _startup("toolparse_nope")
    assert r.returncode != 0
    assert "invalid tool call parser: toolparse_nope" in r.stderr
    assert "toolparse_hermes" in r.stderr and "toolparse_qwen3_coder" in r.stderr


def test_startup_with_plugins_disabled_needs_the_plugin_flag() -> None:
    off = {"VLLM_PLUGINS": ""}
    r = _startup("toolparse_qwen3_coder", env=off)
    assert r.returncode != 0 and "invalid tool call parser" in r.stderr
    r = _startup("toolparse_qwen3_coder", "toolparse.integrations.vllm", env=off)
    assert r.returncode == 0 and "OK" in r.stdout, r.stderr[-2000:]
