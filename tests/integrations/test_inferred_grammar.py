"""An inferred format's grammar admits what its template writes, checked with xgrammar 0.2.8: the
calls-only probe turns (one call, two calls, a call with no arguments) of templates inferred in
forms the registered formats' grammar tests do not cover (functionary's headers, Solar's call id
before the name, Hy3's suffixed markers), under tool_choice required at strict "parameter".

Each template runs in a child process: the inferred format stays registered for the process it
is registered in, and the other integration tests count the registered formats.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("vllm.tool_parsers")  # xgrammar needs torch; vLLM's import sets up the stand-in
pytest.importorskip("jinja2")

import toolparse  # noqa: E402

TEMPLATES = Path(__file__).parent.parent / "fixtures" / "templates" / "llama.cpp"
PACKAGE_ROOT = str(Path(toolparse.__file__).resolve().parent.parent)

_CHILD = r"""
import json, random, sys
import vllm.tool_parsers  # noqa: F401 - the torch stand-in before xgrammar
import xgrammar
from xgrammar.testing import _is_grammar_accept_string
import toolparse
from toolparse import probes
template = open(sys.argv[1], encoding="utf-8").read()
doc = toolparse.infer_format(template, name="inferred-grammar", bos_token="<s>",
                             eos_token="</s>", seed=3)
fmt = toolparse.register_format(doc)
common = dict(bos_token="<s>", eos_token="</s>", enable_thinking=True, thinking=True)
tools, rendered, _, _ = probes.render_probes(template, random.Random(11), common)
tag = toolparse.structural_tag(fmt, tools, tool_choice="required", strict="parameter")
grammar = xgrammar.Grammar.from_structural_tag(json.dumps(tag))
out = []
for probe, turn in rendered:
    if probe.calls and not probe.content and not probe.reasoning:
        out.append([probe.name, turn.text, bool(_is_grammar_accept_string(grammar, turn.text))])
json.dump({"family": doc["spec"]["family"], "turns": out}, sys.stdout)
"""


@pytest.mark.parametrize(
    "name, family",
    [
        ("meetkai-functionary-medium-v3.1", "functionary"),
        ("meetkai-functionary-medium-v3.2", "functionary"),
        ("upstage-Solar-Open-100B", "named_json"),
        ("tencent-Hy3", "xml_params"),
    ],
)
def test_inferred_grammar_admits_the_template_s_calls(name: str, family: str) -> None:
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([PACKAGE_ROOT, os.environ.get("PYTHONPATH", "")]),
    }
    done = subprocess.run(
        [sys.executable, "-c", _CHILD, str(TEMPLATES / f"{name}.jinja")],
        capture_output=True,
        text=True,
        env=env,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    got = json.loads(done.stdout)
    assert got["family"] == family
    assert len(got["turns"]) == 3  # one call, two calls, no arguments
    for probe, text, admitted in got["turns"]:
        assert admitted, (name, probe, text)
