"""Hy3's suffixed special tokens through vLLM 0.33 and SGLang 0.5.23's own code: with a tokenizer
whose vocabulary holds ``<tool_calls:opensource>``, ``<think:opensource>``..., ``toolparse_hy_v3``
(tool and reasoning parser) runs the suffixed variant (toolparse.with_token_suffix): the calls are
read, the reasoning separated, and the structural tag admits the suffixed text (xgrammar 0.2.8).
A tokenizer with the bare tokens keeps hy_v3. ``toolparse_auto`` detects Hy3's template as hy_v3
with the suffix."""

from __future__ import annotations

import json
import logging
import types
from pathlib import Path
from typing import Any, Dict, List

import pytest

pytest.importorskip("vllm.tool_parsers")  # xgrammar needs torch; vLLM's import sets up the stand-in

import toolparse  # noqa: E402
import xgrammar  # noqa: E402
from server_cases import splittings  # noqa: E402
from toolparse.integrations import auto as tp_auto  # noqa: E402
from toolparse.integrations import vllm as tp_vllm  # noqa: E402
from vllm.entrypoints.openai.chat_completion.protocol import ChatCompletionRequest  # noqa: E402
from vllm.entrypoints.openai.chat_completion.stream_processor import (  # noqa: E402
    ChatStreamProcessor,
)
from vllm.parser.parser_manager import ParserManager  # noqa: E402
from xgrammar.testing import _is_grammar_accept_string  # noqa: E402

TEMPLATES = Path(__file__).parent.parent / "fixtures" / "templates" / "llama.cpp"
S = ":opensource"
TAGS = ("think", "tool_calls", "tool_call", "tool_sep", "arg_key", "arg_value")


def _vocab(suffix: str) -> Dict[str, int]:
    vocab = {"<unk>": 0, f"<｜hy_eos{suffix}｜>": 1}
    for tag in TAGS:
        for t in (f"<{tag}{suffix}>", f"</{tag}{suffix}>"):
            vocab[t] = 100 + len(vocab)
    return vocab


class Tokenizer:
    """A Hy3 tokenizer as far as the servers' parsers read one: its vocabulary (the structural
    tokens with the checkpoint's suffix), its special tokens, and text encoded per character."""

    def __init__(self, suffix: str = S, template: Any = None) -> None:
        self.vocab = _vocab(suffix)
        self.name_or_path = "tencent/Hy3"
        self.all_special_tokens = list(self.vocab)[1:]
        self.all_special_ids = [self.vocab[t] for t in self.all_special_tokens]
        self.chat_template = template
        self.bos_token = "<s>"
        self.eos_token = "</s>"

    def get_vocab(self) -> Dict[str, int]:
        return dict(self.vocab)

    def decode(self, ids: Any, **_: Any) -> str:
        back = {v: k for k, v in self.vocab.items()}
        return "".join(back.get(i) or chr(i) for i in ids)

    def encode(self, text: str, **_: Any) -> List[int]:
        if text in self.vocab:
            return [self.vocab[text]]
        return [ord(c) for c in text]

    def convert_tokens_to_ids(self, tokens: Any) -> Any:
        if isinstance(tokens, list):
            return [self.vocab.get(t, 0) for t in tokens]
        return self.vocab.get(tokens, 0)


TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "get_weather",
            "parameters": {
                "type": "object",
                "properties": {"city": {"type": "string"}, "days": {"type": "integer"}},
            },
        },
    }
]


def t(text: str, suffix: str = S) -> str:
    """``text`` with every Hy3 tag written with ``suffix``."""
    for tag in TAGS:
        for bare in (f"<{tag}>", f"</{tag}>"):
            text = text.replace(bare, bare[:-1] + suffix + ">")
    return text


CALL = (
    "<tool_calls>\n<tool_call>get_weather<tool_sep>\n<arg_key>city</arg_key>\n"
    "<arg_value>Paris</arg_value>\n<arg_key>days</arg_key>\n<arg_value>3</arg_value>\n"
    "</tool_call>\n</tool_calls>"
)
TEXT = t("<think>Which city?</think>Checking." + CALL)
WANT = ("Which city?", "Checking.", [("get_weather", {"city": "Paris", "days": 3})])
VARIANT = "hy_v3-opensource"


def _request(choice: str = "auto") -> Any:
    return ChatCompletionRequest(
        model="m", messages=[{"role": "user", "content": "hi"}], tools=TOOLS, tool_choice=choice
    )


def _accepts(tag: Dict[str, Any], text: str) -> bool:
    grammar = xgrammar.Grammar.from_structural_tag(json.dumps(tag))
    return bool(_is_grammar_accept_string(grammar, text))


# ==================================================================================================
# vLLM
# ==================================================================================================


def _vllm(tok: Any, tool: str = "toolparse_hy_v3", reasoning: Any = "toolparse_hy_v3") -> Any:
    tp_vllm.register()
    cls = ParserManager.get_parser(
        tool_parser_name=tool,
        reasoning_parser_name=reasoning,
        enable_auto_tools=True,
        model_name=tok.name_or_path,
        tokenizer=tok,
    )
    assert cls is not None
    return cls


def _vllm_parse(cls: Any, tok: Any, text: str) -> Any:
    request = _request()
    parser = cls(tok, request.tools, chat_template_kwargs=None, model_config=None)
    parser.set_prompt_token_ids([0])
    reasoning, content, calls = parser.parse(text, request, enable_auto_tools=True)
    calls = [(c.name, json.loads(c.arguments)) for c in calls or []]  # vLLM's FunctionCall
    return parser, (reasoning, content, calls)


def _vllm_stream(cls: Any, tok: Any, chunks: List[str]) -> Any:
    request = _request()
    parser = cls(tok, request.tools, chat_template_kwargs=None, model_config=None)
    proc = ChatStreamProcessor(request, parser, enable_auto_tools=True, parser_cls=cls)
    reasoning, content, calls = "", "", []
    for i, c in enumerate(chunks):
        last = i == len(chunks) - 1
        step = proc.step(c, tok.encode(c), "stop" if last else None, [0])
        d = step.delta
        if d is None:
            continue
        reasoning += d.reasoning or ""
        content += d.content or ""
        for tc in d.tool_calls or []:
            if tc.function and tc.function.name:
                calls.append([tc.function.name, ""])
            if tc.function and tc.function.arguments:
                calls[-1][1] += tc.function.arguments
    return reasoning, content, [(n, json.loads(a)) for n, a in calls]


@pytest.mark.parametrize("backend", ["rust", "python"])
def test_vllm_reads_the_suffixed_tokens(backend: str, monkeypatch: pytest.MonkeyPatch) -> None:
    from vllm.reasoning import ReasoningParserManager
    from vllm.tool_parsers import ToolParserManager

    tp_vllm.register()
    monkeypatch.setitem(
        ToolParserManager.tool_parsers, "toolparse_hy_v3", tp_vllm.parser_class("hy_v3", backend)
    )
    monkeypatch.setitem(
        ReasoningParserManager.reasoning_parsers,
        "toolparse_hy_v3",
        tp_vllm.reasoning_parser_class("hy_v3", backend),
    )
    tok = Tokenizer()
    cls = _vllm(tok)
    parser, got = _vllm_parse(cls, tok, TEXT)
    assert parser._tool_parser.toolparse_format == VARIANT
    assert parser._reasoning_parser.toolparse_reasoning == VARIANT
    assert got == WANT
    for split, chunks in splittings(TEXT, seed=5).items():
        assert _vllm_stream(cls, tok, chunks) == WANT, split


def test_vllm_with_bare_tokens_keeps_hy_v3() -> None:
    tok = Tokenizer(suffix="")
    parser, got = _vllm_parse(_vllm(tok), tok, "<think>Which city?</think>Checking." + CALL)
    assert parser._tool_parser.toolparse_format == "hy_v3"
    assert parser._reasoning_parser.toolparse_reasoning == "hy_v3"
    assert got == WANT


def test_vllm_structural_tag_admits_the_suffixed_call() -> None:
    tok = Tokenizer()
    cls = _vllm(tok, reasoning=None)
    parser = cls(tok, _request().tools, chat_template_kwargs=None, model_config=None)
    request = parser.adjust_request(_request("required"))
    tag = json.loads(request.structured_outputs.structural_tag)
    assert "<tool_calls:opensource>" in json.dumps(tag)
    assert _accepts(tag, t(CALL))
    assert not _accepts(tag, CALL)
    # the markers are special tokens of the checkpoint: the detokenizer keeps them
    assert request.skip_special_tokens is False


def test_vllm_auto_detects_hy3s_template(caplog: pytest.LogCaptureFixture) -> None:
    pytest.importorskip("jinja2")
    tp_auto.clear_cache()
    tok = Tokenizer(template=(TEMPLATES / "tencent-Hy3.jinja").read_text())
    try:
        with caplog.at_level(logging.WARNING, logger="toolparse"):
            cls = _vllm(tok, tool="toolparse_auto", reasoning="toolparse_auto")
        line = next(r.getMessage() for r in caplog.records if "writes" in r.getMessage())
        assert "writes hy_v3 with the token suffix ':opensource' (+ hy_v3;" in line
        parser, got = _vllm_parse(cls, tok, TEXT)
        assert parser._tool_parser.toolparse_format == VARIANT
        assert parser._reasoning_parser.toolparse_reasoning == VARIANT
        assert got == WANT
    finally:
        tp_auto.clear_cache()


# ==================================================================================================
# SGLang
# ==================================================================================================


@pytest.fixture
def sglang(monkeypatch: pytest.MonkeyPatch) -> Any:
    """SGLang's parser modules with toolparse registered, and a serving context started with
    ``--reasoning-parser toolparse_hy_v3 --tool-call-parser toolparse_hy_v3``."""
    pytest.importorskip("sglang")
    fcp = pytest.importorskip("sglang.srt.function_call.function_call_parser")
    rp = pytest.importorskip("sglang.srt.parser.reasoning_parser")
    runtime = pytest.importorskip("sglang.srt.runtime_context")
    from toolparse.integrations import sglang as tp_sglang

    tp_sglang.register()
    serving = types.SimpleNamespace(
        reasoning_parser="toolparse_hy_v3", tool_call_parser="toolparse_hy_v3"
    )
    monkeypatch.setattr(runtime, "get_serving", lambda: serving)
    return fcp, rp


def _sglang_tools() -> List[Any]:
    from sglang.srt.entrypoints.openai import protocol

    return [protocol.Tool.model_validate(x) for x in TOOLS]


@pytest.mark.parametrize("backend", ["rust", "python"])
def test_sglang_reads_the_suffixed_tokens(
    backend: str, sglang: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    from toolparse.integrations import sglang as tp_sglang

    fcp, rp = sglang
    enum, dmap = fcp.FunctionCallParser.ToolCallParserEnum, rp.ReasoningParser.DetectorMap
    monkeypatch.setitem(enum, "toolparse_hy_v3", tp_sglang.detector_class("hy_v3", backend))
    monkeypatch.setitem(
        dmap, "toolparse_hy_v3", tp_sglang.reasoning_detector_class("hy_v3", backend)
    )
    tok = Tokenizer()
    for split, chunks in {"whole": [TEXT], **splittings(TEXT, seed=6)}.items():
        # SGLang's serving layer: the reasoning parser first, its normal text to the tool parser
        reasoner = rp.ReasoningParser("toolparse_hy_v3", True, False, None, tokenizer=tok)
        assert reasoner.detector.toolparse_reasoning == VARIANT
        parser = fcp.FunctionCallParser(_sglang_tools(), "toolparse_hy_v3", tokenizer=tok)
        assert parser.detector.toolparse_format == VARIANT
        reasoning, content, calls = "", "", []
        for i, c in enumerate(chunks):
            r, normal = reasoner.parse_stream_chunk(c)
            if i == len(chunks) - 1:
                r2, n2 = reasoner.parse_stream_end()
                r, normal = (r or "") + (r2 or ""), (normal or "") + (n2 or "")
            reasoning += r or ""
            text, items = parser.parse_stream_chunk(normal or "")
            content += text or ""
            for item in items:
                if item.name:
                    calls.append([item.name, ""])
                calls[-1][1] += item.parameters or ""
        got = (reasoning, content, [(n, json.loads(a)) for n, a in calls])
        assert got == WANT, split
    # non-streaming
    reasoner = rp.ReasoningParser("toolparse_hy_v3", True, False, None, tokenizer=tok)
    reasoning, normal = reasoner.parse_non_stream(TEXT)
    parser = fcp.FunctionCallParser(_sglang_tools(), "toolparse_hy_v3", tokenizer=tok)
    content, items = parser.parse_non_stream(normal)
    assert (reasoning, content) == WANT[:2]
    assert [(i.name, json.loads(i.parameters)) for i in items] == WANT[2]


def test_sglang_with_bare_tokens_keeps_hy_v3(sglang: Any) -> None:
    fcp, rp = sglang
    tok = Tokenizer(suffix="")
    parser = fcp.FunctionCallParser(_sglang_tools(), "toolparse_hy_v3", tokenizer=tok)
    assert parser.detector.toolparse_format == "hy_v3"
    content, items = parser.parse_non_stream("Checking." + CALL)
    assert content == "Checking." and [i.name for i in items] == ["get_weather"]
    # no tokenizer passed (SGLang's GLM-only constraint path builds one so): the bare tokens
    assert fcp.FunctionCallParser(_sglang_tools(), "toolparse_hy_v3").detector.toolparse_format
    assert (
        rp.ReasoningParser("toolparse_hy_v3", tokenizer=None).detector.toolparse_reasoning
        == "hy_v3"
    )


def test_sglang_structural_tag_admits_the_suffixed_call(sglang: Any) -> None:
    fcp, rp = sglang
    parser = fcp.FunctionCallParser(_sglang_tools(), "toolparse_hy_v3", tokenizer=Tokenizer())
    got = parser.get_structure_constraint("required")
    assert got is not None and got[0] == "structural_tag"
    tag = got[1].model_dump(by_alias=True)
    assert _accepts(tag, t(CALL)) and not _accepts(tag, CALL)
    # the reasoning detector's end token (SGLang's scheduler gates grammars on it)
    reasoner = rp.ReasoningParser("toolparse_hy_v3", tokenizer=Tokenizer())
    assert reasoner.detector.get_think_end_token_ids(Tokenizer()) == [
        Tokenizer().vocab["</think:opensource>"]
    ]


def test_auto_resolution_keeps_the_plain_name_for_sglang() -> None:
    pytest.importorskip("jinja2")
    tp_auto.clear_cache()
    try:
        template = (TEMPLATES / "tencent-Hy3.jinja").read_text()
        r = tp_auto.resolve(template, bos_token="<s>", eos_token="</s>", model="tencent/Hy3")
        # SGLang declares toolparse_<format>: its detectors read the suffix from the tokenizer
        assert (r.format, r.reasoning, r.token_suffix) == ("hy_v3", "hy_v3", S)
        assert r.variant() == VARIANT and r.variant(reasoning=True) == VARIANT
        assert toolparse.get_parser(r.variant()).extract_tool_calls(t(CALL)).tool_calls
    finally:
        tp_auto.clear_cache()


def test_sglang_serving_reads_the_suffixed_tokens(sglang: Any) -> None:
    """SGLang's own serving steps (``_process_reasoning_stream``, then the tool-call step; and
    ``_build_chat_response``'s): they build the parsers with the server's tokenizer."""
    from test_sglang_reasoning import Serving, chat_request, serve_stream

    serving = Serving("toolparse_hy_v3", "toolparse_hy_v3")
    serving.tokenizer_manager.tokenizer = Tokenizer()
    request = chat_request(TOOLS)
    want = (WANT[0], WANT[1], [("get_weather", json.dumps({"city": "Paris", "days": 3}))])
    for split, chunks in splittings(TEXT, seed=7).items():
        assert serve_stream(serving, request, chunks).result() == want, split
    # _build_chat_response's steps: the reasoning parser with the server's tokenizer (as SGLang
    # builds it there), then SGLang's own _process_tool_calls
    rp = sglang[1]
    request = chat_request(TOOLS, stream=False)
    parser = rp.ReasoningParser(
        model_type=serving.reasoning_parser,
        stream_reasoning=False,
        force_reasoning=False,
        request=request,
        tokenizer=serving.tokenizer_manager.tokenizer,
        tool_call_parser_active=True,
    )
    reasoning, text = parser.parse_non_stream(TEXT)
    tool_calls, text, _ = serving._process_tool_calls(
        text, request.tools, {"type": "stop", "matched": None}, request.tool_choice
    )
    calls = [(c.function.name, c.function.arguments) for c in tool_calls or []]
    assert (reasoning, text, calls) == want
