"""toolparse.register_format: a format added at run time, on both backends (the checks are in
``register_cases.py``; each runs in a fresh interpreter, as a registered format stays registered
for the process and the other tests count the built-in formats)."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest
from register_cases import CHECKS

HERE = os.path.dirname(os.path.abspath(__file__))


@pytest.mark.parametrize("check", sorted(CHECKS))
def test_register_format(check: str) -> None:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([HERE, os.environ.get("PYTHONPATH", "")])}
    r = subprocess.run(
        [sys.executable, os.path.join(HERE, "register_cases.py"), check],
        capture_output=True,
        text=True,
        env=env,
        timeout=600,
    )
    assert r.returncode == 0 and r.stdout.strip().endswith("ok"), r.stdout + r.stderr
