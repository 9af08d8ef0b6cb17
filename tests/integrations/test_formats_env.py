"""TOOLPARSE_FORMATS: the format files (``path[:path...]``) the servers' plugins register when
they load, before they register ``toolparse_<format>`` for every format; in fresh processes, as a
server starts. The format here is a copy of hermes whose markers are ``<call>``/``</call>``."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any, Dict

import pytest

try:  # under the torch stand-in, SGLang imports only after vLLM
    import vllm.tool_parsers  # noqa: F401
except Exception:  # noqa: BLE001 - vLLM absent or not importable: SGLang may still be
    pass

import toolparse  # noqa: E402

HERE = Path(__file__).resolve().parent
NAME = "env_angle"


def format_file(tmp_path: Path, name: str = NAME) -> Path:
    with (Path(toolparse.__file__).parent / "formats" / "hermes.json").open(encoding="utf-8") as f:
        doc: Dict[str, Any] = json.load(f)
    doc["spec"].update(name=name, aliases=[f"{name}-alias"], models=[])
    doc.pop("model_ids", None)
    text = json.dumps(doc, ensure_ascii=False).replace("tool_call>", "call>")
    path = tmp_path / f"{name}.json"
    path.write_text(text, encoding="utf-8")
    return path


def run(script: str, env: Dict[str, str]) -> subprocess.CompletedProcess:
    full = {k: v for k, v in os.environ.items() if k not in ("SGLANG_PLUGINS", "VLLM_PLUGINS")}
    full.update(env)
    full["PYTHONPATH"] = os.pathsep.join([str(HERE), full.get("PYTHONPATH", "")])
    return subprocess.run(
        [sys.executable, "-c", textwrap.dedent(script)],
        capture_output=True,
        text=True,
        env=full,
        timeout=300,
    )


_VLLM = """
    import json, sys
    import vllm.tool_parsers
    from vllm.plugins import load_general_plugins
    load_general_plugins()
    from vllm.entrypoints.openai.chat_completion.protocol import ChatCompletionRequest
    from vllm.tool_parsers import ToolParserManager
    from vllm_requests import TOKENIZER
    import toolparse
    from toolparse import samples
    import os
    doc = json.load(open(os.environ["FILE"]))
    out = {}
    for name in ("toolparse_env_angle", "toolparse_env_angle-alias"):
        cls = ToolParserManager.get_tool_parser(name)
        tools = samples.tools()
        request = ChatCompletionRequest(
            model="m", messages=[{"role": "user", "content": "hi"}], tools=tools
        )
        info = cls(TOKENIZER, tools).extract_tool_calls(doc["samples"][0], request)
        out[name] = [cls.toolparse_format, [c.function.name for c in info.tool_calls]]
    out["hermes"] = ToolParserManager.get_tool_parser("toolparse_hermes").toolparse_format
    print(json.dumps(out))
"""


def test_vllm_plugin_registers_the_files(tmp_path: Path) -> None:
    pytest.importorskip("vllm.tool_parsers")
    path = format_file(tmp_path)
    r = run(_VLLM, {"TOOLPARSE_FORMATS": f"{tmp_path / 'missing.json'}{os.pathsep}{path}",
                    "FILE": str(path)})  # fmt: skip
    assert r.returncode == 0, r.stderr[-3000:]
    out = json.loads(r.stdout.strip().splitlines()[-1])
    for name in ("toolparse_env_angle", "toolparse_env_angle-alias"):
        assert out[name] == [NAME if "alias" not in name else f"{NAME}-alias", ["get_weather"] * 2]
    assert out["hermes"] == "hermes"
    assert "missing.json" in r.stderr  # a file that cannot be registered is logged, not fatal


# The body run after SGLang's start (``sglang_serving.run_startup``: vLLM first for the torch
# stand-in, SGLang's plugins loaded, its argument parser built).
_SGLANG = """
    import json, os
    from sglang.srt.function_call.function_call_parser import FunctionCallParser
    import toolparse
    doc = json.load(open(os.environ["FILE"]))
    cls = FunctionCallParser.ToolCallParserEnum["toolparse_env_angle"]
    det = cls()
    info = toolparse.get_parser("env_angle").extract_tool_calls(doc["samples"][0])
    print(json.dumps({
        "format": cls.toolparse_format,
        "has_call": det.has_tool_call(doc["samples"][0]),
        "hermes_text": det.has_tool_call("<tool_call>{}</tool_call>"),
        "calls": [c.function.name for c in info.tool_calls],
    }))
"""


def test_sglang_plugin_registers_the_files(tmp_path: Path) -> None:
    pytest.importorskip("sglang.srt.function_call.function_call_parser")
    from sglang_serving import run_startup

    path = format_file(tmp_path)
    r = run_startup(_SGLANG, TOOLPARSE_FORMATS=str(path), FILE=str(path))
    assert r.returncode == 0, r.stderr[-3000:]
    out = json.loads(r.stdout.strip().splitlines()[-1])
    assert out == {
        "format": NAME,
        "has_call": True,
        "hermes_text": False,
        "calls": ["get_weather", "get_weather"],
    }
