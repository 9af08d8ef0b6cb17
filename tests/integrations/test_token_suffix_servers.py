"""Hy3's suffixed special tokens through vLLM and SGLang's own code: the cases of
``token_suffix_server_cases.py``."""

from __future__ import annotations

import importlib.util
import os

import pytest

if importlib.util.find_spec("vllm") is None:  # the servers' venv only (.ci/integrations)
    pytest.skip("vLLM is not installed", allow_module_level=True)

from helpers import pytest_in_fresh_interpreter  # noqa: E402


def test_token_suffix_servers_in_a_fresh_interpreter() -> None:
    # a variant (toolparse.with_token_suffix) stays registered for the process
    here = os.path.dirname(os.path.abspath(__file__))
    pytest_in_fresh_interpreter(os.path.join(here, "token_suffix_server_cases.py"))
