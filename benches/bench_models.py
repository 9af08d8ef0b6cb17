"""What one streamed delta's result object costs: a validated ``DeltaMessage`` against the fast
constructors the facade uses for data the core made (the hottest delta: one arguments fragment
of a started call).

    python -m pytest benches/bench_models.py --benchmark-enable --benchmark-group-by=group

Under pyproject's default ``--benchmark-disable`` each benchmark runs once, as a plain test; the
assertions check that every way builds the same object.
"""

from __future__ import annotations

from typing import Any, Callable

import pytest
from toolparse.models import DeltaFunctionCall, DeltaMessage, DeltaToolCall


def validated() -> DeltaMessage:
    return DeltaMessage(
        tool_calls=[DeltaToolCall(index=0, function=DeltaFunctionCall(arguments="abcd"))]
    )


def fast() -> DeltaMessage:
    return DeltaMessage._fast(
        None, None, [DeltaToolCall._fast(0, None, None, DeltaFunctionCall._fast(None, "abcd"))]
    )


def fast_tool_args() -> DeltaMessage:
    return DeltaMessage._fast_tool_args(0, "abcd")


@pytest.mark.benchmark(group="args-fragment delta")
@pytest.mark.parametrize("build", [validated, fast, fast_tool_args], ids=lambda f: f.__name__)
def test_args_fragment_delta(benchmark: Any, build: Callable[[], DeltaMessage]) -> None:
    made = benchmark(build)
    assert made == validated()
    assert made.model_fields_set == validated().model_fields_set
    assert made.model_dump(exclude_none=True) == {
        "tool_calls": [{"index": 0, "function": {"arguments": "abcd"}}]
    }
