"""README.md stays true: its Python examples run and print what it says they print, its formats
table lists exactly the registered formats, and its set-up commands are the ones CI runs."""

from __future__ import annotations

import contextlib
import io
import re
from pathlib import Path
from typing import List, Optional, Tuple

import pytest
import toolparse

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


def formats_table() -> List[str]:
    text = readme()
    section = text.split("\n## Formats\n", 1)[1].split("\n## ", 1)[0]
    return re.findall(r"^\| `([a-z0-9_.-]+)` \|", section, re.M)  # vLLM names may hold "-"


def test_formats_table_lists_every_registered_format():
    table = formats_table()
    missing = [f for f in toolparse.list_formats() if f not in table]
    assert not missing, f"add a row to the README formats table for: {', '.join(missing)}"


def test_formats_table_lists_only_registered_formats():
    extra = [f for f in formats_table() if f not in toolparse.list_formats()]
    assert not extra, f"the README formats table lists formats that are not registered: {extra}"


def test_setup_commands():
    text = readme()
    assert "pip install . && toolparse demo\n" in text
    assert "pip install '.[test]' && python -m pytest -n auto\n" in text
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    # CI adds the SDK extras to the test one, so the SDK round trips run there too
    assert re.search(r"^pip install '\.\[test(,[a-z]+)*\]'$", ci, re.M), "CI installs .[test]"
    assert re.search(r"^python -m pytest -n auto$", ci, re.M), "CI runs the README's test command"


def test_benchmark_command_is_documented():
    text = readme()
    assert "python -m pytest benches --benchmark-enable --benchmark-group-by=group" in text
    assert "python benches/bench_formats.py --report" in text
