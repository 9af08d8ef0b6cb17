"""``--tool-call-parser toolparse_auto`` and ``--reasoning-parser toolparse_auto`` in SGLang: a
fresh process starts as ``sglang serve`` does (plugins loaded, SGLang's own argument parser), and
SGLang's ``resolve_auto_parsers`` (which toolparse wraps) resolves them from the template."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

try:  # under the torch stand-in, SGLang imports only after vLLM
    import vllm.tool_parsers  # noqa: F401
except Exception:  # noqa: BLE001
    pass

pytest.importorskip("sglang")
pytest.importorskip("jinja2")

from sglang_serving import run_startup  # noqa: E402

TEMPLATES = Path(__file__).parent.parent / "fixtures" / "templates" / "llama.cpp"

_BODY = """
args = ["--model-path", sys.argv[1], "--chat-template", sys.argv[2],
        "--tool-call-parser", "toolparse_auto", "--reasoning-parser", sys.argv[3]]
ns = parser.parse_args(args)
server_args = ServerArgs.from_cli_args(ns)
from sglang.srt.arg_groups.model_override_base import resolving_view
from toolparse.integrations import sglang_auto
try:
    # SGLang's resolve_auto_parsers where its module imports (it needs dill, which the peers' venv
    # lacks); else the step toolparse's wrapper adds in front of it
    try:
        from sglang.srt.parser import template_detection as td
    except ImportError:
        sglang_auto.resolve_server_args(server_args)
    else:
        td.resolve_auto_parsers(server_args)
except ValueError as e:
    print(json.dumps({"error": str(e)}))
else:
    cfg = resolving_view(server_args)
    print(json.dumps([cfg.tool_call_parser, cfg.reasoning_parser]))
"""


def _run(stem: str, reasoning: str = "toolparse_auto", model: str = "/nonexistent/local-model"):
    template = str(TEMPLATES / f"{stem}.jinja")
    proc = run_startup(_BODY, model, template, reasoning)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return json.loads(proc.stdout.strip().splitlines()[-1]), proc.stderr


def test_auto_resolves_from_the_chat_template():
    got, err = _run("Qwen3.5-4B")
    assert got == ["toolparse_qwen3_coder", "toolparse_qwen3"]
    assert "writes qwen3_coder (+ qwen3; think block opened by the prompt: yes)" in err


def test_auto_without_think_block_names_what_to_pass():
    got, _ = _run("meta-llama-Llama-3.1-8B-Instruct")
    assert "no think block" in got["error"] and "toolparse_<name>" in got["error"]


def test_auto_tool_parser_alone():
    got, _ = _run("NousResearch-Hermes-2-Pro-Llama-3-8B-tool_use", reasoning="toolparse_qwen3")
    assert got == ["toolparse_hermes", "toolparse_qwen3"]


def test_auto_infers_a_template_no_registered_format_reads(tmp_path):
    text = (TEMPLATES / "Qwen-Qwen2.5-7B-Instruct.jinja").read_text()
    path = tmp_path / "renamed.jinja"
    path.write_text(
        text.replace("<tool_call>", "<invoke_x>").replace("</tool_call>", "</invoke_x>")
    )
    proc = run_startup(_BODY, "/nonexistent/local-model", str(path), "toolparse_qwen3")
    assert proc.returncode == 0, proc.stderr[-3000:]
    got = json.loads(proc.stdout.strip().splitlines()[-1])
    assert got[0].startswith("toolparse_inferred-") and got[1] == "toolparse_qwen3", got
    assert "inferred from its chat template" in proc.stderr


def test_auto_resolves_a_template_with_suffixed_tokens():
    # Hy3's template writes <tool_calls:opensource>...: detected as hy_v3 with the suffix;
    # SGLang gets the plain names, whose detectors read the suffix from the tokenizer it passes
    got, err = _run("tencent-Hy3", model="/nonexistent/tencent/Hy3")
    assert got == ["toolparse_hy_v3", "toolparse_hy_v3"]
    assert "writes hy_v3 with the token suffix ':opensource' (+ hy_v3;" in err
