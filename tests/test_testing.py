"""``toolparse.testing``, the conformance kit: its cases, case files, splittings, ``check`` (on
toolparse, and on broken parsers it must catch, each with the invariant and the smallest
splitting), and the pytest plugin. The vLLM/SGLang adapters are tested against the real peers in
tests/integrations/test_testing_kit.py."""

from __future__ import annotations

import importlib.metadata
import json
import os
import textwrap
from typing import Any, List, Optional

import pytest
import toolparse
import toolparse.spec
from toolparse import testing
from toolparse.testing import runner as check_mod
from toolparse.testing.renderers import FAMILIES

pytest_plugins = ["pytester"]

FORMATS = toolparse.list_formats()
BACKENDS = ("rust", "python")


# ----- cases -----


@pytest.mark.parametrize("fmt", FORMATS)
def test_cases_cover_every_pattern(fmt: str) -> None:
    cases = testing.cases(fmt)
    covered = {p for c in cases for p in c.patterns}
    want = {"1 no_call", "2 one_call", "3 parallel", "4 all_types", "5 no_arguments"}
    want |= {"7 escapes", "8 malformed", "8 truncated"}
    if testing.renderer(fmt).surround:
        want.add("6 text_around")
    assert want <= covered, sorted(want - covered)
    assert {c.kind for c in cases} == set(testing.KINDS)
    assert all(c.format == fmt for c in cases)
    # labels name the case uniquely (a failure names its case)
    labels = [c.label for c in cases]
    assert len(set(labels)) == len(labels)


@pytest.mark.parametrize("fmt", FORMATS)
def test_one_renderer_per_family_from_the_spec(fmt: str) -> None:
    """Every format's renderer is its family's, built from the spec entry alone: a new format
    in an existing family has cases with no code."""
    family = toolparse.spec.get_spec(fmt).family
    assert family in FAMILIES, f"add the {family!r} family's renderer to FAMILIES"
    fresh = FAMILIES[family](fmt)
    assert type(fresh) is type(testing.renderer(fmt))
    assert fresh.name == fmt
    case = fresh.render([("get_weather", {"city": "Tokyo"})])
    assert case.calls == [("get_weather", '{"city": "Tokyo"}')]


def test_every_registered_format_has_a_renderer() -> None:
    """The kit renders every format toolparse registers (the benchmarks, ``toolparse bench`` and
    the docs render their outputs with it too)."""
    assert sorted(testing.RENDERERS) == sorted(FORMATS)
    assert {"functionary_v31", "functionary_v32"} <= set(testing.RENDERERS)
    for fmt in FORMATS:
        assert testing.renderer(fmt).name == fmt


def test_k2_horizon_typed_form_writes_the_value_types() -> None:
    case = testing.renderer("k2_horizon").render(
        [("f", {"s": "x", "n": 2, "o": {"a": None}})], form="typed"
    )
    text = case.model_output
    types = ["string", "integer", "object"]
    assert [t for t in types if f"<ifm|arg_type>{t}</ifm|arg_type>" in text] == types
    info = toolparse.get_parser("k2_horizon", tools=case.tools).extract_tool_calls(text)
    assert [(c.function.name, c.function.arguments) for c in info.tool_calls] == case.calls


def test_aliases_find_the_renderer() -> None:
    for fmt in FORMATS:
        for alias in toolparse.spec.get_spec(fmt).aliases:
            assert testing.renderer(alias) is testing.renderer(fmt)
    with pytest.raises(ValueError):
        testing.renderer("no_such_format")


def test_cases_are_validated_models() -> None:
    for case in testing.cases("hermes")[:50]:
        again = testing.TestCase.model_validate(case.model_dump())
        assert again == case


# ----- case files -----


def test_case_file_round_trip(tmp_path: Any) -> None:
    cases = testing.cases("qwen3_coder")
    path = tmp_path / "cases.json"
    path.write_text(testing.dump_cases(cases), encoding="utf-8")
    assert testing.load_cases(path) == cases
    assert testing.load_cases(str(path)) == cases


def test_case_file_short_form() -> None:
    text = json.dumps(
        {
            "format": "hermes",
            "cases": [
                {
                    "label": "mine",
                    "model_output": '<tool_call>{"name": "f", "arguments": {"a": 1}}</tool_call>',
                    "tool_calls": [{"name": "f", "arguments": {"a": 1}}],
                }
            ],
        }
    )
    [case] = testing.load_cases(text)
    assert (case.format, case.calls, case.content) == ("hermes", [("f", '{"a": 1}')], None)
    assert testing.check("hermes", [case], strict=True).ok


@pytest.mark.parametrize(
    "raw, field",
    [
        ({"label": "x", "format": "hermes"}, "model_output"),
        ({"label": "x", "format": "hermes", "model_output": 1}, "model_output"),
        (
            {"label": "x", "format": "hermes", "model_output": "", "tool_calls": [{"name": ""}]},
            "tool_calls.0.name",
        ),
        (
            {
                "label": "x",
                "format": "hermes",
                "model_output": "",
                "tool_calls": [{"name": "f", "arguments": "{not json"}],
            },
            "tool_calls.0.arguments",
        ),
        (
            {
                "label": "x",
                "format": "hermes",
                "model_output": "",
                "tool_calls": [{"name": "f", "arguments": "[1]"}],
            },
            "tool_calls.0.arguments",
        ),
        ({"label": "x", "format": "hermes", "model_output": "", "kind": "odd"}, "kind"),
        ({"label": "x", "format": "hermes", "model_output": "", "contnet": "typo"}, "contnet"),
    ],
)
def test_bad_case_file_names_the_field_and_the_case(tmp_path: Any, raw: Any, field: str) -> None:
    good = {"label": "fine", "format": "hermes", "model_output": "hi", "content": "hi"}
    path = tmp_path / "bad.json"
    path.write_text(json.dumps([good, raw]), encoding="utf-8")
    with pytest.raises(testing.CaseFileError) as e:
        testing.load_cases(path)
    msg = str(e.value)
    assert "\n" not in msg
    assert str(path) in msg and "case 'x' (#1)" in msg and f"field {field!r}" in msg, msg


def test_bad_case_file_shapes(tmp_path: Any) -> None:
    path = tmp_path / "bad.json"
    path.write_text("{oops", encoding="utf-8")
    for source, words in (
        (path, "bad.json"),
        (tmp_path / "missing.json", "missing.json"),
        ('{"cases": 3}', "list of cases"),
        ("[3]", "case #0: not an object"),
    ):
        with pytest.raises(testing.CaseFileError) as e:
            testing.load_cases(source)
        assert words in str(e.value) and "\n" not in str(e.value), str(e.value)


# ----- splittings -----


def test_splittings() -> None:
    text = 'Hi <tool_call>{"name": "f"}</tool_call>'
    plans = testing.splittings(text, ["<tool_call>", "</tool_call>"], seed=1)
    assert {"whole", "chars", "markers", "random/0", "random/1", "random/2"} == set(plans)
    for chunks in plans.values():
        assert "".join(chunks) == text
    assert plans["whole"] == [text] and plans["chars"] == list(text)
    cuts = testing.marker_cuts(text, ["<tool_call>"])
    assert cuts == list(range(2, 3 + len("<tool_call>") + 2))
    assert plans == testing.splittings(text, ["<tool_call>", "</tool_call>"], seed=1)
    assert plans != testing.splittings(text, ["<tool_call>", "</tool_call>"], seed=2)
    assert testing.splittings("") == {"whole": [""], **testing.splittings("")}


# ----- check on toolparse -----


def sample(fmt: str) -> List[testing.TestCase]:
    """A few cases of every kind and pattern (the whole list runs in the slow test below)."""
    out, seen = [], set()
    for c in testing.cases(fmt):
        key = (c.kind, c.label.split("/")[0])
        if key not in seen:
            seen.add(key)
            out.append(c)
    return out


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("fmt", FORMATS)
def test_check_passes_toolparse(fmt: str, backend: str) -> None:
    report = testing.check(fmt, sample(fmt), backend=backend, strict=True, n_random=1)
    assert report.ok, str(report)
    assert report.cases == len(sample(fmt)) and report.runs > 4 * report.cases


@pytest.mark.skipif(
    not os.environ.get("TOOLPARSE_KIT_FULL"), reason="TOOLPARSE_KIT_FULL=1: every case (~1 min)"
)
@pytest.mark.parametrize("fmt", FORMATS)
def test_check_passes_toolparse_every_case(fmt: str) -> None:
    report = testing.check(fmt, testing.cases(fmt), strict=True)
    assert report.ok, str(report)


def test_check_takes_a_parser_or_a_factory() -> None:
    cases = sample("hermes")
    parser = toolparse.get_parser("hermes")
    assert testing.check(parser, cases).ok
    assert testing.check(lambda tools: toolparse.get_parser("hermes", tools=tools), cases).ok
    with pytest.raises(TypeError):
        testing.check(42, cases)


# ----- check catches broken parsers -----


class Wrapped:
    """toolparse's hermes parser with a bug put in by a subclass."""

    name = "wrapped"

    def __init__(self) -> None:
        self.inner = toolparse.get_parser("hermes")

    def extract_tool_calls(self, text: str) -> Any:
        return self.inner.extract_tool_calls(text)

    def stream(self) -> Any:
        outer = self

        class S:
            def __init__(self) -> None:
                self.s = outer.inner.stream()

            def feed(self, delta: str) -> Any:
                return outer.feed(self.s, delta)

            def finish(self) -> Any:
                return self.s.finish()

        return S()

    def feed(self, s: Any, delta: str) -> Any:
        return s.feed(delta)


def failures(parser: Any, cases: List[testing.TestCase], invariant: str) -> List[Any]:
    report = testing.check(parser, cases)
    return [f for f in report.failures if f.invariant == invariant]


ONE = testing.cases("hermes")
ONE_CALL = next(c for c in ONE if c.label == "one_call/plain/dumps")


def test_catches_a_raising_parser_and_goes_on() -> None:
    class Raises(Wrapped):
        def extract_tool_calls(self, text: str) -> Any:
            if "refresh" in text:
                raise RuntimeError("boom")
            return super().extract_tool_calls(text)

    cases = sample("hermes")
    report = testing.check(Raises(), cases)
    bad = [c for c in cases if "refresh" in c.text]
    assert bad and len(report.failures) == len(bad)
    for f in report.failures:
        assert f.invariant == "no exception" and f.splitting is None
        assert "RuntimeError: boom" in f.detail and "refresh" in f.case.text
    assert report.cases == len(cases)


def test_catches_a_stream_that_raises_with_the_smallest_splitting() -> None:
    class RaisesOnBrace(Wrapped):
        def feed(self, s: Any, delta: str) -> Any:
            if delta == "}":
                raise ValueError("lone brace")
            return s.feed(delta)

    [f] = failures(RaisesOnBrace(), [ONE_CALL], "no exception")
    assert "}" in f.splitting and len(f.splitting) <= 3, f.splitting
    assert "lone brace" in f.detail


def test_catches_split_dependence_with_the_smallest_splitting() -> None:
    class DropsLoneBrace(Wrapped):
        def feed(self, s: Any, delta: str) -> Any:
            return s.feed("" if delta == "}" else delta)

    [f] = failures(DropsLoneBrace(), [ONE_CALL], "split-invariance")
    # the chars splitting failed first; the smallest cuts the one brace out
    assert len(f.splitting) == 3 and f.splitting[1] == "}", f.splitting
    assert "".join(f.splitting) == ONE_CALL.text
    assert "one delta" in f.detail


def test_catches_stream_unequal_to_non_stream() -> None:
    class RenamesInExtract(Wrapped):
        def extract_tool_calls(self, text: str) -> Any:
            info = super().extract_tool_calls(text)
            for c in info.tool_calls:
                c.function.name = c.function.name.upper()
            return info

    found = failures(RenamesInExtract(), [ONE_CALL], "stream == non-stream")
    assert [f.splitting for f in found] == [[ONE_CALL.text]]
    assert failures(RenamesInExtract(), [ONE_CALL], "expected calls")


def test_catches_protocol_errors() -> None:
    class NoName(Wrapped):
        def feed(self, s: Any, delta: str) -> Any:
            d = s.feed(delta)
            if d is not None and d.tool_calls:
                for tc in d.tool_calls:
                    tc.function.name = None
            return d

    [f] = failures(NoName(), [ONE_CALL], "streaming protocol")
    assert "without its name" in f.detail and f.splitting == [ONE_CALL.text]


def test_catches_no_fallback_and_lost_truncated_calls() -> None:
    class NoCalls(Wrapped):
        def extract_tool_calls(self, text: str) -> Any:
            info = super().extract_tool_calls(text)
            info.tool_calls = []
            info.content = "?"
            return info

    malformed = [c for c in ONE if c.kind == "malformed"]
    truncated = [c for c in ONE if c.kind == "truncated" and c.complete]
    assert len(failures(NoCalls(), malformed, "content fallback")) == len(malformed)
    assert len(failures(NoCalls(), truncated, "truncated: complete calls kept")) == len(truncated)


def test_strict_compares_texts_exactly() -> None:
    class Respaces(Wrapped):
        def extract_tool_calls(self, text: str) -> Any:
            info = super().extract_tool_calls(text)
            for c in info.tool_calls:
                c.function.arguments = json.dumps(json.loads(c.function.arguments), indent=1)
            return info

    assert testing.check(Respaces(), [ONE_CALL]).ok
    strict = testing.check(Respaces(), [ONE_CALL], strict=True)
    assert {f.invariant for f in strict.failures} == {"expected calls", "stream == non-stream"}
    assert "2 failures" in strict.summary() and "expected calls" in str(strict)
    with pytest.raises(AssertionError):
        strict.assert_ok()


def test_report_on_a_case_file_case() -> None:
    [case] = testing.load_cases(
        [{"format": "hermes", "label": "wrong", "model_output": "hi", "content": "bye"}]
    )
    report = testing.check("hermes", [case])
    assert [f.invariant for f in report.failures] == ["expected content"]
    assert "hermes:wrong" in str(report.failures[0])


def test_subject_tools_name_every_call() -> None:
    tools = check_mod.subject_tools(ONE_CALL)
    names = {t["function"]["name"] for t in tools}
    assert "get_weather" in names and "f" in names
    typed = next(c for c in testing.cases("qwen3_coder") if c.tools)
    assert check_mod.subject_tools(typed) == typed.tools


# ----- the pytest plugin -----


def _plugin_args() -> List[str]:
    """``-p`` the plugin unless the installed distribution's entry point loads it already."""
    eps = importlib.metadata.entry_points()
    group = eps.select(group="pytest11") if hasattr(eps, "select") else eps.get("pytest11", [])
    loaded = any(ep.value == "toolparse.testing.plugin" for ep in group)
    return [] if loaded else ["-p", "toolparse.testing.plugin"]


def run_kit(pytester: pytest.Pytester, conftest: Optional[str], *args: str) -> Any:
    if conftest is not None:
        pytester.makeconftest(textwrap.dedent(conftest))
    return pytester.runpytest_inprocess(*_plugin_args(), "-p", "no:cacheprovider", *args)


def test_plugin_default_parser_is_toolparse(pytester: pytest.Pytester) -> None:
    result = run_kit(pytester, None, "--toolparse-format", "qwen3_coder", "-q")
    n = len(testing.cases("qwen3_coder"))
    result.assert_outcomes(passed=n)


def test_plugin_runs_the_fixture_parser(pytester: pytest.Pytester) -> None:
    conftest = """
        import pytest
        import toolparse

        class Broken:
            def __init__(self, tools):
                self.p = toolparse.get_parser("pythonic", tools=tools)
            def extract_tool_calls(self, text):
                if "refresh" in text:
                    raise RuntimeError("broken on purpose")
                return self.p.extract_tool_calls(text)
            def stream(self):
                return self.p.stream()

        @pytest.fixture
        def toolparse_parser(toolparse_format):
            assert toolparse_format == "pythonic"
            return Broken
    """
    result = run_kit(pytester, conftest, "--toolparse-format", "pythonic", "-q")
    cases = testing.cases("pythonic")
    bad = sum("refresh" in c.text for c in cases)
    result.assert_outcomes(passed=len(cases) - bad, failed=bad)
    result.stdout.fnmatch_lines(["*[[]no exception[]] pythonic:no_arguments*"])
    result.stdout.fnmatch_lines(["*RuntimeError: broken on purpose*"])


def test_plugin_in_a_subfolder_conftest_and_a_case_file(pytester: pytest.Pytester) -> None:
    sub = pytester.mkpydir("sub")
    (sub / "conftest.py").write_text(
        "import pytest\n\n@pytest.fixture\ndef toolparse_parser():\n    return 'hermes'\n"
    )
    cases = pytester.path / "mine.json"
    cases.write_text(
        json.dumps(
            [
                {"format": "hermes", "label": "ok", "model_output": "hi", "content": "hi"},
                {"format": "hermes", "label": "bad", "model_output": "hi", "content": "no"},
            ]
        )
    )
    result = run_kit(pytester, None, "--toolparse-cases", str(cases), "-q", "-rf")
    result.assert_outcomes(passed=1, failed=1)
    result.stdout.fnmatch_lines(["*sub/toolparse-kit*hermes:bad*"])


def test_plugin_is_off_without_the_option(pytester: pytest.Pytester) -> None:
    pytester.makepyfile("def test_x():\n    pass\n")
    run_kit(pytester, None, "-q").assert_outcomes(passed=1)


def test_plugin_entry_point_is_declared() -> None:
    from pathlib import Path

    pyproject = Path(__file__).resolve().parent.parent / "pyproject.toml"
    if not pyproject.is_file():  # pragma: no cover - an installed package run outside the repo
        pytest.skip("pyproject.toml is not next to the tests")
    text = pyproject.read_text()
    assert '[project.entry-points.pytest11]\ntoolparse = "toolparse.testing.plugin"' in text
