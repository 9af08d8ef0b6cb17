"""Adding a format of an existing family is one file (docs/adding-a-format.md): a copy of the
repository with one more format file, built and installed into a fresh venv, where every consumer
of the spec must know the new format with no other edit -- the format list and model detection,
the conformance kit on both backends, ``toolparse demo``, the formats page, the structural tag
and the server integrations' names -- and the wheel built from it must carry the format files.

Marked ``exhaustive`` (a build of the extension: about a minute, more the first time, when the
Rust dependencies are compiled into ``target/add-a-format``, which later runs reuse)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path
from typing import Dict, List

import pytest
from test_code_structure import tree_files

pytestmark = pytest.mark.exhaustive

ROOT = Path(__file__).resolve().parents[1]
NAME = "zz_test_tagged"
MODEL_ID = "zz-org/ZZ-Test-7B"
START, END = "<zz_call>", "</zz_call>"

# a hermes-like tagged_json format: only its markers, alias and model are new
FORMAT_FILE = {
    "spec": {
        "name": NAME,
        "family": "tagged_json",
        "markers": {"call_start": START, "call_end": END},
        "call": {"shape": "object", "name_keys": ["name"], "args_keys": ["arguments"]},
        "arguments": "json_object",
        "calls": "repeated",
        "end_optional": True,
        "id_style": "chatcmpl",
        "content": "text outside the calls",
        "special_tokens": [START, END],
        "grammar": {"trigger": START, "parser_only_forms": ["no_close"]},
        "aliases": ["zz_test_alias"],
        "models": ["zz-org/ZZ-Test-*"],
    },
    "model_ids": [MODEL_ID],
    "samples": [
        f'Let me look.\n{START}{{"name": "get_weather", "arguments": {{"city": "Paris"}}}}{END}'
    ],
    "cases": {
        "no_call": ["<zz_call is not a tag", "a </zz_call> alone"],
        "malformed": [f'{START}{{"name": "f", "arguments": {{]}}{END}'],
        "truncated": [
            [f'{START}{{"name": "f", "arguments": {{"a": 1', 0],
            [f'{START}{{"name": "f", "arguments": {{}}}}{END}{START}{{"name": "g"', 1],
        ],
    },
    "notes": f'`{START}{{"name": N, "arguments": {{...}}}}{END}`: a throwaway test format',
}

# Run by the new venv's Python, outside the copy: every consumer sees the format.
CHECKS = r"""
import contextlib, importlib.util, io, json, pathlib, sys
import toolparse, toolparse.cli, toolparse.testing as kit
from toolparse.integrations import sglang, vllm

name, alias, model_id, copy = sys.argv[1:5]
assert pathlib.Path(toolparse.__file__).is_relative_to(copy), toolparse.__file__
assert name in toolparse.list_formats() and alias in toolparse.list_formats(aliases=True)
assert toolparse.format_for_model(model_id) == name, toolparse.format_for_model(model_id)
cases = kit.cases(name)
kinds = {c.kind for c in cases}
assert {"well_formed", "no_call", "malformed", "truncated"} <= kinds, kinds
for backend in ("rust", "python"):
    report = kit.check(name, cases, backend=backend, strict=True)
    assert report.ok, f"{backend}: {report}"
    info = toolparse.get_parser(alias, backend=backend).extract_tool_calls(
        toolparse.spec.get_spec(name).samples[0])
    assert [c.function.name for c in info.tool_calls] == ["get_weather"], info
out = io.StringIO()
with contextlib.redirect_stdout(out):
    assert toolparse.cli.main(["demo"]) == 0
rows = [r for r in out.getvalue().splitlines() if r.startswith(name + " ")]
assert rows and all(r.rstrip().endswith("✓") for r in rows), rows
gen = importlib.util.spec_from_file_location("gen_pages", f"{copy}/docs/gen_pages.py")
pages = importlib.util.module_from_spec(gen)
gen.loader.exec_module(pages)
assert f"### {name}\n" in pages.formats_page()
tools = [{"type": "function", "function": {"name": "get_weather", "parameters": {
    "type": "object", "properties": {"city": {"type": "string"}}}}}]
tag = toolparse.structural_tag(name, tools, tool_choice="required")
assert tag is not None and json.dumps(tag).count("<zz_call>") >= 1, tag
for server in (vllm, sglang):
    names = [server.PREFIX + f for f in server.formats()]
    assert "toolparse_" + name in names and "toolparse_" + alias in names, server.__name__
print("ok")
"""


def _copy_repository(dst: Path) -> None:
    """The repository's files (``tree_files``: as git sees them, or without git every file
    outside build outputs, environments and caches), built extensions aside."""
    for rel in tree_files():
        if rel.suffix == ".so":
            continue
        (dst / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(ROOT / rel, dst / rel)


def _venv(path: Path) -> Path:
    """A fresh venv whose dependencies (pydantic...) are this environment's: its site-packages
    is a plain path entry (its .pth files, this checkout's editable install among them, are not
    read)."""
    subprocess.run([sys.executable, "-m", "venv", str(path)], check=True)
    python = path / "bin" / "python"
    site = subprocess.run(
        [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    ours = [p for p in sys.path if p.endswith("site-packages")]
    Path(site, "zz_dependencies.pth").write_text("\n".join(ours) + "\n", encoding="utf-8")
    return python


def _run(cmd: List[str], cwd: Path, env: Dict[str, str]) -> str:
    done = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True)
    assert done.returncode == 0, f"{' '.join(cmd)}:\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
    return done.stdout


def test_a_new_format_file_reaches_every_consumer(tmp_path: Path) -> None:
    maturin = shutil.which("maturin")
    if maturin is None or shutil.which("cargo") is None:
        pytest.skip("needs maturin and cargo on PATH")
    copy = tmp_path / "repo"
    _copy_repository(copy)
    (copy / "python/toolparse/formats" / f"{NAME}.json").write_text(
        json.dumps(FORMAT_FILE, indent=2) + "\n", encoding="utf-8"
    )
    python = _venv(tmp_path / "venv")
    # the Rust dependencies are compiled once into a target directory of their own (the copy's
    # crate is another path's: sharing the checkout's target/ would overwrite its artifacts)
    target = Path(os.environ.get("CARGO_TARGET_DIR") or ROOT / "target") / "add-a-format"
    env = dict(os.environ, VIRTUAL_ENV=str(python.parent.parent), CARGO_TARGET_DIR=str(target))
    env["PATH"] = f"{python.parent}{os.pathsep}{env['PATH']}"
    env.pop("PYTHONPATH", None)
    _run([maturin, "develop", "--quiet"], copy, env)
    args = [NAME, "zz_test_alias", MODEL_ID, str(copy)]
    assert _run([str(python), "-c", CHECKS, *args], tmp_path, env).endswith("ok\n")
    # a wheel (not an editable install) carries the format files, the new one included
    wheels = tmp_path / "wheels"
    _run([maturin, "build", "--profile", "dev", "-i", str(python), "--out", str(wheels)], copy, env)
    (wheel,) = wheels.glob("toolparse-*.whl")
    names = set(zipfile.ZipFile(wheel).namelist())
    shipped = {p.name for p in (ROOT / "python/toolparse/formats").iterdir() if p.is_file()}
    for file in sorted(shipped | {f"{NAME}.json"}):
        assert f"toolparse/formats/{file}" in names, f"{wheel.name} lacks formats/{file}"
