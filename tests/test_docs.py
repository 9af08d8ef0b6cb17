"""The documentation site (docs/, mkdocs.yml) stays true: the formats page is made by the docs
build from the spec (no file in the tree, nothing to regenerate when a format is added), the
committed benchmark tables match the committed results file, its Python examples run and print
what they say, its navigation lists every page, and it points at the peers harness only through
TOOLPARSE_PEERS_DIR."""

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
    """The written pages (a formats.md a checkout may hold is the build's, not one of them)."""
    return sorted(p for p in DOCS.glob("*.md") if p.name != GEN.FORMATS_PAGE)


# ------------------------------------------------------------------------------------------------
# generated pages
# ------------------------------------------------------------------------------------------------


def test_generated_pages_are_current():
    """The benchmark tables (README, benchmarks page): they change only when a benchmark is
    re-run and docs/bench-results.json replaced."""
    stale = [str(p.relative_to(ROOT)) for p in GEN.stale()]
    assert not stale, f"stale: {', '.join(stale)}; regenerate them with: {GEN.COMMAND}"


def formats_headings(page: str) -> List[str]:
    return re.findall(r"^### (\S+)$", page, re.M)


def test_formats_page_has_every_format_and_reasoning_format():
    page = GEN.formats_page()
    assert formats_headings(page) == toolparse.list_formats()
    rows = re.findall(r"^\| <code>([^<]+)</code> \|", page.split("## Reasoning formats")[1], re.M)
    assert [html.unescape(r) for r in rows] == toolparse.list_reasoning_formats()


def test_formats_page_is_made_by_the_docs_build_not_kept_in_the_tree():
    """mkdocs.yml runs gen_pages.py as a hook, which adds formats.md to the site; no file of that
    name is committed (one left in a checkout is replaced, not built), and the generator writes
    none."""
    config = (ROOT / "mkdocs.yml").read_text(encoding="utf-8")
    assert re.search(r"^hooks:\n  - docs/gen_pages\.py$", config, re.M), "the hook is registered"
    assert "- Formats: formats.md" in config
    tracked = subprocess.run(
        ["git", "ls-files", "docs/formats.md"], cwd=ROOT, capture_output=True, text=True
    )
    if tracked.returncode == 0:  # a git checkout
        assert tracked.stdout.strip() == "", "docs/formats.md is generated at build time"
    assert all(path.name != "formats.md" for path, _ in GEN.expected())


def _built_formats_page() -> Tuple[object, str]:
    """The site's files as ``mkdocs build`` gathers them from mkdocs.yml, after its plugins'
    and hooks' ``on_files`` (where the formats page is made): (the files, the page's text)."""
    for module in ("mkdocs", "material", "mkdocstrings"):
        pytest.importorskip(module)
    from mkdocs.config import load_config
    from mkdocs.structure.files import get_files

    config = load_config(str(ROOT / "mkdocs.yml"))
    files = config.plugins.on_files(get_files(config), config=config)
    page = files.get_file_from_path(GEN.FORMATS_PAGE)
    assert page is not None, "the docs build has no formats page"
    return files, str(page.content_string)


def test_the_docs_build_makes_the_formats_page():
    _, page = _built_formats_page()
    assert page == GEN.formats_page()
    assert formats_headings(page) == toolparse.list_formats()


def test_a_formats_md_left_in_the_tree_is_replaced(monkeypatch):
    pytest.importorskip("mkdocs")
    stale = type("Old", (), {"src_uri": GEN.FORMATS_PAGE})()
    added: List[object] = []
    files = type(
        "Files",
        (),
        {
            "get_file_from_path": lambda self, p: stale if p == GEN.FORMATS_PAGE else None,
            "remove": lambda self, f: added.append(("removed", f)),
            "append": lambda self, f: added.append(("added", f)),
        },
    )()
    from mkdocs.structure import files as mkdocs_files

    made = object()
    monkeypatch.setattr(mkdocs_files.File, "generated", lambda *a, **k: made)
    GEN.on_files(files, config=None)
    assert added == [("removed", stale), ("added", made)]


def _registry_with_copy(monkeypatch: pytest.MonkeyPatch, tmp_path: Path, new: str) -> None:
    """A folder of format files holding one more, a copy of hermes's file under ``new``, loaded
    as toolparse.spec loads its own and patched in as the registry."""
    folder = tmp_path / "formats"
    shutil.copytree(toolparse.spec.FOLDER, folder)
    doc = json.loads((folder / "hermes.json").read_text(encoding="utf-8"))
    doc["spec"].update(name=new, aliases=[], models=["zz-org/ZZ-*"])
    doc["model_ids"] = []
    doc.pop("peers", None)
    (folder / f"{new}.json").write_text(json.dumps(doc), encoding="utf-8")
    data = toolparse.spec.read(folder)
    specs = toolparse.spec.load(data, data["files"])
    names = {n: s.name for s in specs.values() for n in (s.name, *s.aliases)}
    monkeypatch.setattr(toolparse.spec, "SPECS", specs)
    monkeypatch.setattr(toolparse.spec, "_NAMES", names)
    # what the conformance kit builds at import from the registry, rebuilt from the patched one
    from toolparse.testing import renderers

    monkeypatch.setattr(renderers, "RENDERERS", renderers._build())


def test_adding_a_format_file_needs_no_second_command(monkeypatch, tmp_path):
    """A format file of an existing family added, nothing else run: the committed generated
    files are still current (so the suite stays green) and the docs build puts the new format on
    the formats page, with its notes and the example its family's renderer writes."""
    new = "zz_copy_of_hermes"
    _registry_with_copy(monkeypatch, tmp_path, new)
    assert new in toolparse.list_formats()
    assert GEN.stale() == [], "adding a format makes no committed file stale"
    _, page = _built_formats_page()
    assert new in formats_headings(page) and formats_headings(page) == toolparse.list_formats()
    section = page.split(f"### {new}\n", 1)[1].split("\n### ", 1)[0]
    assert toolparse.spec.get_spec(new).notes in section
    example = GEN.example(new)
    assert example is not None and example in section


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
    page = GEN.formats_page()
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
    stale = tmp_path / "benchmarks.md"
    stale.write_text("old\n", encoding="utf-8")
    monkeypatch.setattr(GEN, "ROOT", tmp_path)
    monkeypatch.setattr(GEN, "expected", lambda: [(stale, "new\n")])
    assert GEN.main(["--check"]) == 1
    assert "benchmarks.md is stale: run python docs/gen_pages.py" in capsys.readouterr().out
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
    """Every page in docs/, and the formats page the build generates."""
    config = (ROOT / "mkdocs.yml").read_text(encoding="utf-8")
    nav = re.findall(r"^\s+- (?:[^:\n]+: )?(\S+\.md)$", config, re.M)
    assert sorted(nav) == sorted([*(p.name for p in pages()), GEN.FORMATS_PAGE])


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
    api = (tmp_path / "site" / "api" / "index.html").read_text(encoding="utf-8")
    for name in PUBLIC_METHODS:
        assert f'id="toolparse.{name}"' in api, f"the API page lacks {name}"
    built = (tmp_path / "site" / "formats" / "index.html").read_text(encoding="utf-8")
    ids = re.findall(r'<h3 id="([^"]+)"', built)
    assert ids == [n.replace(".", "") for n in toolparse.list_formats()], "the hook's page"


# ------------------------------------------------------------------------------------------------
# the API page
# ------------------------------------------------------------------------------------------------

# The parser's and the stream's public methods and properties (mkdocstrings lists a member only
# when it has a docstring).
PUBLIC_METHODS = [
    f"{cls.__name__}.{name}"
    for cls in (toolparse.ToolParser, toolparse.ToolCallStream)
    for name in vars(cls)
    if not name.startswith("_")
    and (callable(vars(cls)[name]) or isinstance(vars(cls)[name], property))
]
# How the binding is built is no user's business: words the docstrings leave to the code.
BINDING_WORDS = re.compile(r"_core|PyO3|feed_message|finish_message|\bnative\b|\bthe core\b")


def test_the_api_page_documents_the_parser_and_the_stream():
    page = (DOCS / "api.md").read_text(encoding="utf-8")
    assert "::: toolparse.ToolParser\n" in page and "::: toolparse.ToolCallStream\n" in page
    assert "ToolParser.stream" in PUBLIC_METHODS and "ToolCallStream.feed" in PUBLIC_METHODS


@pytest.mark.parametrize("name", ["get_parser", "ToolParser", "ToolCallStream", *PUBLIC_METHODS])
def test_public_docstrings_say_what_a_user_gets(name):
    obj: object = toolparse
    for part in name.split("."):
        obj = getattr(obj, part) if not isinstance(obj, type) else vars(obj)[part]
    if isinstance(obj, property):
        obj = obj.fget
    doc = getattr(obj, "__doc__", None) or ""
    assert len(doc.split()) >= 8, f"{name} has no docstring worth the name"
    found = BINDING_WORDS.search(doc)
    assert found is None, f"{name}'s docstring talks about the binding: {found.group(0)!r}"
