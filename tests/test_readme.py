"""README.md stays true: its Python examples run and print what it says they print, its set-up
commands are the ones CI runs, and its links lead somewhere. (The pages under docs/ are checked by
tests/test_docs.py: their examples, and the generated formats and benchmark tables.)"""

from __future__ import annotations

import contextlib
import io
import re
from pathlib import Path
from typing import List, Optional, Tuple

import pytest

# Also run by .ci/wheel against the installed wheel.
pytestmark = pytest.mark.wheel

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"

FENCE = re.compile(r"^```([\w-]*)\n(.*?)^```\n", re.S | re.M)


def readme() -> str:
    if not README.is_file():  # pragma: no cover - an installed package run outside the repo
        pytest.skip("README.md is not next to the tests")
    return README.read_text(encoding="utf-8")


def python_examples() -> List[Tuple[int, str, Optional[str]]]:
    """(line number, code, expected output or None) for every ```python block; the expected
    output is a ```text block that follows with at most one short line of prose in between."""
    text = readme()
    blocks = list(FENCE.finditer(text))
    out = []
    for i, m in enumerate(blocks):
        if m.group(1) != "python":
            continue
        expected = None
        if i + 1 < len(blocks) and blocks[i + 1].group(1) == "text":
            between = text[m.end() : blocks[i + 1].start()].strip()
            if len(between) <= 20:  # e.g. "prints"
                expected = blocks[i + 1].group(2)
        out.append((text.count("\n", 0, m.start()) + 1, m.group(2), expected))
    return out


EXAMPLES = python_examples() if README.is_file() else []


def test_readme_has_a_streaming_and_a_non_streaming_example():
    codes = [code for _, code, _ in EXAMPLES]
    assert any(".stream()" in c and ".feed(" in c for c in codes)
    assert any(".extract_tool_calls(" in c for c in codes)
    assert sum(expected is not None for _, _, expected in EXAMPLES) >= 2


@pytest.mark.parametrize("line,code,expected", EXAMPLES, ids=[f"line{n}" for n, _, _ in EXAMPLES])
def test_python_example_runs_and_prints_what_the_readme_says(line, code, expected):
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        exec(compile(code, f"README.md:{line}", "exec"), {"__name__": "__readme__"})
    if expected is not None:
        assert buf.getvalue() == expected


def test_readme_points_to_the_format_files():
    """The formats page is made by the docs build (no file in the tree, so no docs/formats.md to
    link to on GitHub): the README points to the format files it is generated from."""
    text = readme()
    assert "](docs/formats.md)" not in text
    assert "](python/toolparse/formats/)" in text


def test_readme_links_only_to_files_that_exist():
    for target in re.findall(r"\]\(((?:docs/|python/|[A-Z]+\.md)[^)#]*)", readme()):
        assert (ROOT / target).exists(), f"README links to {target}, which does not exist"


SETUP = "pip install . && toolparse demo\n"
TEST = "pip install '.[test]' && python -m pytest -n auto\n"


def test_setup_commands():
    text = readme()
    assert SETUP in text
    assert TEST in text
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    # CI adds the SDK extras to the test one, so the SDK round trips run there too
    assert re.search(r"^pip install '\.\[test(,[a-z]+)*\]'$", ci, re.M), "CI installs .[test]"
    assert re.search(r"^python -m pytest -n auto$", ci, re.M), "CI runs the README's test command"


def _line(text: str, needle: str) -> int:
    assert needle in text, needle
    return text.count("\n", 0, text.index(needle)) + 1


def test_first_screen_says_what_it_is_how_to_set_up_and_shows_an_example():
    """What it is, the two set-up commands, then a short example that prints what the README
    says, all before the benchmarks (and the rest of the page)."""
    text = readme()
    benchmarks = _line(text, "\n## Benchmarks\n")
    setup, test = _line(text, SETUP), _line(text, TEST)
    first_python = EXAMPLES[0]
    assert setup < test < first_python[0] < benchmarks, (setup, test, first_python[0], benchmarks)
    assert first_python[0] < 60, "the example is on the first screen"
    assert text.index("Streaming tool-call parsers") < text.index("## ")  # what it is, first
    line, code, expected = first_python
    assert len(code.rstrip("\n").splitlines()) <= 10, "a ten-line example"
    assert expected is not None, "the example shows its output"
    assert ".stream()" in code and ".feed(" in code


def test_benchmark_commands_are_documented():
    """The README shows the bench command beside the plot; the suite's commands are on the
    benchmarks page."""
    assert "toolparse bench --format" in readme()
    page = (ROOT / "docs" / "benchmarks.md").read_text(encoding="utf-8")
    assert "python -m pytest benches --benchmark-enable --benchmark-group-by=group" in page
    assert "python benches/bench_formats.py --report" in page
