"""``toolparse bench`` with the real peers: vLLM's and SGLang's parsers run through the peers
harness beside toolparse on a tiny output, and give the call (what the bench times is real work).

Skipped when vLLM is not installed or the harness is not found (run by .ci/integrations under
../shared/peers with its torch stand-in on PYTHONPATH; the harness is the stand-in's parent
folder, or $TOOLPARSE_PEERS_DIR).
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Optional

import pytest

pytest.importorskip("vllm.tool_parsers")  # vLLM before SGLang under the torch stand-in

from toolparse import bench  # noqa: E402


def _harness_dir() -> Optional[str]:
    env = os.environ.get("TOOLPARSE_PEERS_DIR")
    if env:
        return env
    for entry in sys.path:
        p = Path(entry)
        if p.name == "faketorch" and (p.parent / "peers.py").is_file():
            return str(p.parent)
    shared = Path(__file__).resolve().parents[3] / "shared" / "peers"
    return str(shared) if (shared / "peers.py").is_file() else None


@pytest.fixture(scope="module")
def report():
    d = _harness_dir()
    if d is None:
        pytest.skip("no peers harness (set TOOLPARSE_PEERS_DIR)")
    saved = sys.modules.get("corpus")
    r = bench.run(["hermes", "qwen3_coder"], [256], repeat=1, peers_dir=d)
    assert sys.modules.get("corpus") is saved  # tests/corpus.py is still `corpus`
    return r


@pytest.mark.parametrize("fmt", ["hermes", "qwen3_coder"])
def test_both_servers_run_beside_toolparse(report, fmt: str) -> None:
    rows = {r["parser"]: r for r in report["results"] if r["format"] == fmt}
    assert list(rows) == [
        "toolparse:rust",
        "toolparse:python",
        f"vllm:{fmt}",
        f"sglang:{fmt}",
    ], report["unavailable"]
    for name, r in rows.items():
        assert r["correct"] is True, (name, r)
        assert r["seconds"] is not None and r["skipped"] is None, (name, r)
    assert report["servers"]["vllm"] and report["servers"]["sglang"]
