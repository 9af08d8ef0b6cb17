"""Special tokens with a per-checkpoint suffix (spec "token_suffix", Hy3's
<tool_calls:opensource>): the cases of ``token_suffix_cases.py``."""

from __future__ import annotations

import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)  # the repository (its pyproject.toml configures pytest)


def test_token_suffix_in_a_fresh_interpreter() -> None:
    # a variant (toolparse.with_token_suffix) stays registered for the process, and the other
    # tests count the registered formats: the cases run in an interpreter of their own
    cases = os.path.join(HERE, "token_suffix_cases.py")
    cmd = [sys.executable, "-m", "pytest", cases, "-q", "-n", "0", "-p", "no:cacheprovider"]
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=1800, cwd=ROOT)
    tail = r.stdout[-6000:] + r.stderr[-3000:]
    assert r.returncode == 0, tail
    assert " passed" in r.stdout and " failed" not in r.stdout, tail
