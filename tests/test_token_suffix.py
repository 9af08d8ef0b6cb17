"""Special tokens with a per-checkpoint suffix (spec "token_suffix", Hy3's
<tool_calls:opensource>): the cases of ``token_suffix_cases.py``."""

from __future__ import annotations

import os

from helpers import pytest_in_fresh_interpreter


def test_token_suffix_in_a_fresh_interpreter() -> None:
    # a variant (toolparse.with_token_suffix) stays registered for the process
    here = os.path.dirname(os.path.abspath(__file__))
    pytest_in_fresh_interpreter(os.path.join(here, "token_suffix_cases.py"))
