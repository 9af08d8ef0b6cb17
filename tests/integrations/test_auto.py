"""``--tool-call-parser toolparse_auto`` and ``--reasoning-parser toolparse_auto`` in vLLM:
composed by vLLM's own ``ParserManager`` (whose startup check builds the first parser, which
detects), then the named parser from the template's detection on every request."""

from __future__ import annotations

import json
import logging
import subprocess
import sys
from pathlib import Path
from typing import Any, Optional

import pytest

pytest.importorskip("jinja2")
pytest.importorskip("vllm.tool_parsers")

from toolparse.integrations import auto as tp_auto  # noqa: E402
from toolparse.integrations import vllm as tp_vllm  # noqa: E402
from vllm.entrypoints.openai.chat_completion.protocol import ChatCompletionRequest  # noqa: E402
from vllm.parser.parser_manager import ParserManager  # noqa: E402
from vllm_requests import PermissiveTokenizer  # noqa: E402

TEMPLATES = Path(__file__).parent.parent / "fixtures" / "templates" / "llama.cpp"

TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "get_weather",
            "parameters": {"type": "object", "properties": {"city": {"type": "string"}}},
        },
    }
]


class TemplateTokenizer(PermissiveTokenizer):
    def __init__(self, template: Optional[str], name: str, bos: Any = "", eos: Any = "") -> None:
        super().__init__()
        self.chat_template = template
        self.name_or_path = name
        self.bos_token = bos
        self.eos_token = eos


def tokenizer(stem: str, name: str) -> TemplateTokenizer:
    return TemplateTokenizer((TEMPLATES / f"{stem}.jinja").read_text(), name, "<s>", "</s>")


def compose(tok: Any, reasoning: Optional[str] = None) -> Any:
    tp_vllm.register()
    return ParserManager.get_parser(
        tool_parser_name="toolparse_auto",
        reasoning_parser_name=reasoning,
        enable_auto_tools=True,
        model_name=tok.name_or_path,
        tokenizer=tok,
    )


def request() -> Any:
    return ChatCompletionRequest(
        model="m", messages=[{"role": "user", "content": "hi"}], tools=TOOLS, tool_choice="auto"
    )


@pytest.fixture(autouse=True)
def fresh_cache():
    tp_auto.clear_cache()
    yield
    tp_auto.clear_cache()


def test_auto_detects_and_is_the_named_parser(caplog):
    tok = tokenizer("Qwen3.5-4B", "local/my-model")  # an id format_for_model does not know
    with caplog.at_level(logging.WARNING, logger="toolparse"):
        cls = compose(tok, reasoning="toolparse_auto")
    lines = [r.getMessage() for r in caplog.records if r.getMessage().startswith("toolparse:")]
    assert len(lines) == 1, lines
    assert (
        "local/my-model writes qwen3_coder (+ qwen3; think block opened by the prompt: yes)"
        in (lines[0])
    )
    assert "--chat-template" in lines[0]  # says what vLLM does not show the parser
    parser = cls(tok, TOOLS)
    assert parser._tool_parser.toolparse_format == "qwen3_coder"
    assert parser._reasoning_parser.toolparse_reasoning == "qwen3"
    assert parser._tool_parser.structural_tag_model == "toolparse_qwen3_coder"
    text = (
        "<tool_call>\n<function=get_weather>\n<parameter=city>\nParis\n</parameter>\n"
        "</function>\n</tool_call>"
    )
    got = parser._tool_parser.extract_tool_calls(text, request())
    assert [(c.function.name, c.function.arguments) for c in got.tool_calls] == [
        ("get_weather", '{"city": "Paris"}')
    ]
    # cached: a second composition (and every request's parser) logs nothing new
    caplog.clear()
    with caplog.at_level(logging.WARNING, logger="toolparse"):
        cls(tok, TOOLS)
    assert not [r for r in caplog.records if r.getMessage().startswith("toolparse:")]


def test_auto_hermes_template_without_reasoning():
    tok = tokenizer("NousResearch-Hermes-2-Pro-Llama-3-8B-tool_use", "x/hermes-like")
    parser = compose(tok)(tok, TOOLS)
    assert parser._tool_parser.toolparse_format == "hermes"
    text = '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Oslo"}}\n</tool_call>'
    got = parser._tool_parser.extract_tool_calls(text, request())
    assert got.tool_calls[0].function.name == "get_weather"


def test_auto_without_template_falls_back_to_model_id(caplog):
    tok = TemplateTokenizer(None, "Qwen/Qwen3-Coder-30B-A3B-Instruct")
    with caplog.at_level(logging.WARNING, logger="toolparse"):
        parser = compose(tok)(tok, TOOLS)
    want = tp_vllm.toolparse.format_for_model("Qwen/Qwen3-Coder-30B-A3B-Instruct")
    assert want is not None
    assert parser._tool_parser.toolparse_format == want
    assert any("format_for_model" in r.getMessage() for r in caplog.records)


def test_auto_without_template_or_known_model_fails_at_startup():
    tok = TemplateTokenizer(None, "someone/unknown-model")
    with pytest.raises(TypeError, match="toolparse_<format>"):
        compose(tok)


def test_auto_reasoning_without_think_block_fails_at_startup():
    tok = tokenizer("meta-llama-Llama-3.1-8B-Instruct", "x/llama-like")
    with pytest.raises(TypeError, match="no think block"):
        compose(tok, reasoning="toolparse_auto")


def test_auto_template_ignoring_tools_uses_model_id():
    tok = tokenizer("google-gemma-2-2b-it", "meta-llama/Llama-3.1-8B-Instruct")
    parser = compose(tok)(tok, TOOLS)
    assert parser._tool_parser.toolparse_format == tp_vllm.toolparse.format_for_model(
        "meta-llama/Llama-3.1-8B-Instruct"
    )


_INFER_CHILD = """
import json, logging, sys
sys.path.insert(0, sys.argv[1])
import test_auto as t
text = (t.TEMPLATES / "Qwen-Qwen2.5-7B-Instruct.jinja").read_text()
text = text.replace("<tool_call>", "<invoke_x>").replace("</tool_call>", "</invoke_x>")
tok = t.TemplateTokenizer(text, "someone/renamed-markers", "<s>", "</s>")
lines = []
class Keep(logging.Handler):
    def emit(self, record):
        lines.append(record.getMessage())
logging.getLogger("toolparse").addHandler(Keep())
logging.getLogger("toolparse").setLevel(logging.WARNING)
parser = t.compose(tok)(tok, t.TOOLS)
out = '<invoke_x>\\n{"name": "get_weather", "arguments": {"city": "Oslo"}}\\n</invoke_x>'
got = parser._tool_parser.extract_tool_calls(out, t.request())
print(json.dumps({
    "lines": [x for x in lines if x.startswith("toolparse:")],
    "format": parser._tool_parser.toolparse_format,
    "calls": [[c.function.name, c.function.arguments] for c in got.tool_calls],
}))
"""


def test_auto_infers_a_template_no_registered_format_reads():
    # in a child process: the inferred format stays registered for the process it is made in,
    # and the other tests here count the registered formats
    proc = subprocess.run(
        [sys.executable, "-c", _INFER_CHILD, str(Path(__file__).parent)],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    got = json.loads(proc.stdout.strip().splitlines()[-1])
    lines = got["lines"]
    assert len(lines) == 1 and "inferred from its chat template" in lines[0], lines
    assert got["format"].startswith("inferred-"), got
    assert got["calls"] == [["get_weather", '{"city": "Oslo"}']]
