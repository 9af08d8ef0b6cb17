"""The documentation site (docs/, mkdocs.yml) stays true: its generated pages are current (the
formats page from the spec, the benchmark tables from the committed results file), its Python
examples run and print what they say, its navigation lists every page, and it points at the peers
harness only through TOOLPARSE_PEERS_DIR."""

from __future__ import annotations

import contextlib
import dataclasses
import html
import importlib.util
import io
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from types import ModuleType
from typing import List, Optional, Tuple

import pytest
import toolparse
import toolparse.spec
from toolparse.cli import main as cli_main

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
FENCE = re.compile(r"^```([\w-]*)\n(.*?)^```\n", re.S | re.M)

if not (DOCS / "gen_pages.py").is_file():  # pragma: no cover - an installed package alone
    pytest.skip("docs/ is not next to the tests", allow_module_level=True)


def gen_pages() -> ModuleType:
    spec = importlib.util.spec_from_file_location("gen_pages", DOCS / "gen_pages.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


GEN = gen_pages()


def pages() -> List[Path]:
    return sorted(DOCS.glob("*.md"))


# ------------------------------------------------------------------------------------------------
# generated pages
# ------------------------------------------------------------------------------------------------


def test_generated_pages_are_current():
    stale = [str(p.relative_to(ROOT)) for p in GEN.stale()]
    assert not stale, f"stale: {', '.join(stale)}; regenerate them with: {GEN.COMMAND}"


def test_formats_page_has_every_format_and_reasoning_format():
    page = (DOCS / "formats.md").read_text(encoding="utf-8")
    headings = re.findall(r"^### (\S+)$", page, re.M)
    assert headings == toolparse.list_formats()
    rows = re.findall(r"^\| <code>([^<]+)</code> \|", page.split("## Reasoning formats")[1], re.M)
    assert [html.unescape(r) for r in rows] == toolparse.list_reasoning_formats()


def test_a_format_of_a_new_family_is_listed_without_an_example():
    """A format whose family has no renderer in the kit yet still gets its section (from the
    spec alone): adding formats needs no edit of the generator."""
    fake = dataclasses.replace(
        toolparse.spec.get_spec("hermes"),
        name="brand_new",
        family="brand_new_family",
        aliases=("bn",),
        markers={"call_start": "<bn>", "call_end": "</bn>"},
        special_tokens=(),
        models=("org/BrandNew-*",),
    )
    section = "\n".join(GEN._format_section(fake, "A note."))
    assert section.startswith("### brand_new\n")
    assert GEN.code("brand_new_family") in section and GEN.code("<bn>") in section
    assert "A note." in section and "```text" not in section


def test_every_format_has_a_rendered_example():
    page = (DOCS / "formats.md").read_text(encoding="utf-8")
    for name, body in re.findall(r"^### (\S+)\n(.*?)(?=^### |^## |\Z)", page, re.S | re.M):
        if GEN.example(name) is not None:
            assert GEN.example(name) in body, name


def test_benchmark_tables_come_from_the_results_file():
    report = GEN.load_results()
    assert report.get("measured", {}).get("date"), "the results file says when it was measured"
    page = (DOCS / "benchmarks.md").read_text(encoding="utf-8")
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert GEN.bench_table(report) in page
    assert GEN.bench_table(report, GEN.README_SIZES) in readme
    assert report["measured"]["date"] in page and report["measured"]["date"] in readme


def test_bench_json_path_writes_a_results_file_the_tables_read(tmp_path, capsys):
    out = tmp_path / "results.json"
    argv = ["bench", "-f", "hermes", "--size", "200", "--repeat", "1", "--no-peers"]
    assert cli_main([*argv, "--json", str(out)]) == 0
    printed = capsys.readouterr().out
    assert "toolparse:rust" in printed  # the table still goes to stdout
    report = json.loads(out.read_text(encoding="utf-8"))
    assert set(report["measured"]) == {"date", "system", "cpu", "cpus"}
    table = GEN.bench_table(report)
    assert "| `hermes` | 200 B |" in table
    assert cli_main([*argv, "--json"]) == 0  # bare --json: JSON on stdout, no file
    assert "measured" not in json.loads(capsys.readouterr().out)


def test_check_mode_names_the_command(tmp_path, monkeypatch, capsys):
    stale = tmp_path / "formats.md"
    stale.write_text("old\n", encoding="utf-8")
    monkeypatch.setattr(GEN, "FORMATS_PAGE", stale)
    monkeypatch.setattr(GEN, "ROOT", tmp_path)
    monkeypatch.setattr(GEN, "expected", lambda: [(stale, "new\n")])
    assert GEN.main(["--check"]) == 1
    assert "formats.md is stale: run python docs/gen_pages.py" in capsys.readouterr().out
    assert stale.read_text(encoding="utf-8") == "old\n"


# ------------------------------------------------------------------------------------------------
# the pages' examples and text
# ------------------------------------------------------------------------------------------------


def python_examples() -> List[Tuple[str, str, Optional[str]]]:
    """(page:line, code, expected output or None) for every ```python block of the docs pages;
    the expected output is a ```text block that follows after at most a short word ("prints")."""
    out = []
    for page in pages():
        text = page.read_text(encoding="utf-8")
        blocks = list(FENCE.finditer(text))
        for i, m in enumerate(blocks):
            if m.group(1) != "python":
                continue
            expected = None
            if i + 1 < len(blocks) and blocks[i + 1].group(1) == "text":
                if len(text[m.end() : blocks[i + 1].start()].strip()) <= 20:
                    expected = blocks[i + 1].group(2)
            line = text.count("\n", 0, m.start()) + 1
            out.append((f"{page.name}:{line}", m.group(2), expected))
    return out


EXAMPLES = python_examples()


@pytest.mark.parametrize("where,code,expected", EXAMPLES, ids=[w for w, _, _ in EXAMPLES])
def test_python_example_runs_and_prints_what_the_page_says(where, code, expected):
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        exec(compile(code, where, "exec"), {"__name__": "__docs__"})
    if expected is not None:
        assert buf.getvalue() == expected


def test_the_pages_have_examples_with_output():
    assert sum(expected is not None for _, _, expected in EXAMPLES) >= 6


def test_adding_a_format_example_entry_is_accepted_by_the_spec_loader():
    page = (DOCS / "adding-a-format.md").read_text(encoding="utf-8")
    file = json.loads(re.search(r"```json\n(.*?)```", page, re.S).group(1))
    entry = file["spec"]
    data = toolparse.spec.read()
    data["formats"].append(entry)
    loaded = toolparse.spec.load(data, {entry["name"]: file})
    assert loaded[entry["name"]].family == entry["family"]
    assert loaded[entry["name"]].samples and loaded[entry["name"]].cases.malformed
    schema = toolparse.spec.FOLDER / "_schema.json"
    jsonschema = pytest.importorskip("jsonschema")
    jsonschema.validate(file, json.loads(schema.read_text("utf-8")))


FORBIDDEN = [
    (re.compile(r"\.\./shared"), "a path to the peers harness (say: set TOOLPARSE_PEERS_DIR)"),
    (re.compile(r"DESIGN(\.md)? section|DESIGN §|section \d+ of DESIGN"), "a DESIGN section"),
    (re.compile(r"\bissues? #?\d+"), "an issue number"),
]


@pytest.mark.parametrize("path", [ROOT / "README.md", *pages()], ids=lambda p: p.name)
def test_no_private_paths_or_references(path):
    text = path.read_text(encoding="utf-8")
    for pattern, what in FORBIDDEN:
        m = pattern.search(text)
        assert m is None, f"{path.name} names {what}: {m.group(0)!r}"


def test_readme_is_short():
    lines = (ROOT / "README.md").read_text(encoding="utf-8").count("\n")
    assert lines <= 300, f"README.md has {lines} lines; move detail to docs/"


def test_nav_lists_every_page():
    config = (ROOT / "mkdocs.yml").read_text(encoding="utf-8")
    nav = re.findall(r"^\s+- (?:[^:\n]+: )?(\S+\.md)$", config, re.M)
    assert sorted(nav) == sorted(p.name for p in pages())


def test_site_builds_strictly(tmp_path):
    """What .ci/run's docs step runs (skipped where the docs extra is not installed)."""
    pytest.importorskip("mkdocs")
    pytest.importorskip("material")
    pytest.importorskip("mkdocstrings")
    mkdocs = shutil.which("mkdocs") or str(Path(sys.executable).with_name("mkdocs"))
    run = subprocess.run(
        [mkdocs, "build", "--strict", "--site-dir", str(tmp_path / "site")],
        cwd=ROOT,
        capture_output=True,
        text=True,
        env={**os.environ, "NO_MKDOCS_2_WARNING": "1"},
    )
    assert run.returncode == 0, run.stderr[-3000:]
