"""Hy3's suffixed special tokens through vLLM and SGLang's own code: the cases of
``token_suffix_server_cases.py``."""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys

import pytest

if importlib.util.find_spec("vllm") is None:  # the servers' venv only (.ci/integrations)
    pytest.skip("vLLM is not installed", allow_module_level=True)

HERE = os.path.dirname(os.path.abspath(__file__))
# the repository (its pyproject.toml configures pytest)
ROOT = os.path.dirname(os.path.dirname(HERE))


def test_token_suffix_servers_in_a_fresh_interpreter() -> None:
    # a variant (toolparse.with_token_suffix) stays registered for the process, and the other
    # tests count the registered formats: the cases run in an interpreter of their own
    cases = os.path.join(HERE, "token_suffix_server_cases.py")
    cmd = [sys.executable, "-m", "pytest", cases, "-q", "-n", "0", "-p", "no:cacheprovider"]
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=1800, cwd=ROOT)
    tail = r.stdout[-6000:] + r.stderr[-3000:]
    assert r.returncode == 0, tail
    assert " passed" in r.stdout and " failed" not in r.stdout, tail
