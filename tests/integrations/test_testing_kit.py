"""``toolparse.testing`` on the peers' own parsers: ``from_vllm`` / ``from_sglang`` adapters.

* vLLM's hermes parser: ``check`` reports its known stream != non-stream failures (a call whose
  ``"arguments"`` come before its ``"name"`` streams the rest of the object as arguments; a tag
  inside a JSON string ends the call early), never an exception; toolparse on the same cases
  reports none.
* toolparse's own parser classes as vLLM and SGLang load them (``toolparse.integrations``), driven
  through the adapters, pass the kit: the adapters drive the peers' APIs faithfully.
* SGLang's Qwen25Detector (the same ``<tool_call>`` JSON): failures are reported, the run goes on.

Skipped when vLLM / SGLang are not importable (run by .ci/integrations, with the peers harness).
"""

from __future__ import annotations

from typing import Any, List

import pytest
import toolparse
from toolparse import testing

try:  # under the torch stand-in, SGLang imports only after vLLM
    import vllm.tool_parsers  # noqa: F401
except Exception:  # noqa: BLE001 - vLLM absent or not importable: SGLang may still be
    pass

BACKENDS = ("rust", "python")


def sample(fmt: str, forms: Any = None, per_form: bool = True) -> List[testing.TestCase]:
    """One case per kind, pattern and (``per_form``) form: the first JSON spelling."""
    out, seen = [], set()
    for c in testing.cases(fmt):
        parts = c.label.split("/")
        form = parts[1] if per_form and len(parts) > 1 and c.kind == "well_formed" else ""
        key = (c.kind, parts[0], form)
        if forms is not None and len(parts) == 3 and parts[1] not in forms:
            continue
        if key not in seen:
            seen.add(key)
            out.append(c)
    return out


def by_label(report: testing.Report, invariant: str) -> dict:
    return {f.case.label: f for f in report.failures if f.invariant == invariant}


# ----- vLLM -----


def test_vllm_hermes_known_stream_failures() -> None:
    pytest.importorskip("vllm.tool_parsers")
    from vllm.tool_parsers.hermes_tool_parser import Hermes2ProToolParser

    cases = sample("hermes", forms={"plain", "args_first", "newlines"})
    report = testing.check(testing.from_vllm(Hermes2ProToolParser), cases)
    assert not by_label(report, "no exception"), str(report)
    unequal = by_label(report, "stream == non-stream")
    # "arguments" before "name": the stream sends `{...}, "name": "get_weather"` as arguments
    f = unequal["one_call/args_first/dumps"]
    assert f.splitting == [f.case.text]
    assert '"name": "get_weather"' in f.detail.split("extract:")[0]
    # a tag inside a JSON string ends the streamed call there; non-streaming falls back to text
    assert "markers_in_strings/plain/dumps" in unequal
    # toolparse on the same cases: nothing
    for backend in BACKENDS:
        ours = testing.check("hermes", cases, backend=backend, strict=True)
        assert ours.ok, str(ours)


@pytest.mark.parametrize("backend", BACKENDS)
def test_toolparse_through_the_vllm_adapter(backend: str) -> None:
    pytest.importorskip("vllm.tool_parsers")
    from toolparse.integrations import vllm as tp_vllm

    for fmt in toolparse.list_formats():
        cls = tp_vllm.parser_class(fmt, backend)
        report = testing.check(testing.from_vllm(cls), sample(fmt, per_form=False), n_random=1)
        assert report.ok, str(report)


# ----- SGLang -----


def _sglang() -> Any:
    return pytest.importorskip("sglang.srt.function_call.function_call_parser")


@pytest.mark.parametrize("backend", BACKENDS)
def test_toolparse_through_the_sglang_adapter(backend: str) -> None:
    _sglang()
    from toolparse.integrations import sglang as tp_sglang

    for fmt in toolparse.list_formats():
        report = testing.check(
            testing.from_sglang(tp_sglang.detector_class(fmt, backend)),
            sample(fmt, per_form=False),
            n_random=1,
        )
        assert report.ok, str(report)


def test_sglang_qwen25_detector_failures_are_reported() -> None:
    _sglang()
    from sglang.srt.function_call.qwen25_detector import Qwen25Detector

    cases = sample("hermes", forms={"plain", "newlines"})
    report = testing.check(testing.from_sglang(Qwen25Detector()), cases)
    assert report.cases == len(cases)
    assert not by_label(report, "no exception"), str(report)
    # Qwen 2.5 writes `<tool_call>\n{...}\n</tool_call>`: that form parses ...
    assert "one_call/newlines/dumps" not in by_label(report, "expected calls")
    # ... without the newlines the call stays text
    assert "one_call/plain/dumps" in by_label(report, "expected calls")
