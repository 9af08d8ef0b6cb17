"""Every list of the families agrees: a new family is added to all of them or the suite says
which one lacks it. The lists: the JSON Schema's ``family`` enum, ``spec_types.FAMILIES``, the
arms of ``rust/formats/config.rs``'s ``machine``, the machines ``rust/formats/mod.rs`` declares, the
twins in ``reference/`` and the arms of ``reference/__init__.py``, the grammar's and the
renderers' ``FAMILIES``, and the list on docs/adding-a-format.md, whose table of the files a new
family touches names every one of these files.

Read from the source tree (skipped outside a checkout)."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Callable, Dict, List

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "python" / "toolparse"
RUST_FORMATS = ROOT / "rust" / "formats"
DOC = ROOT / "docs" / "adding-a-format.md"

if not (RUST_FORMATS / "mod.rs").is_file() or not DOC.is_file():
    pytest.skip("not run from a source checkout", allow_module_level=True)


def _text(path: Path) -> str:
    return path.read_text(encoding="utf-8")


def schema() -> List[str]:
    spec = json.loads(_text(PACKAGE / "formats" / "_schema.json"))["$defs"]["format"]
    return list(spec["properties"]["family"]["enum"])


def spec_types() -> List[str]:
    from toolparse import spec_types

    return list(spec_types.FAMILIES)


def config_arms() -> List[str]:
    """The families ``machine`` in rust/formats/config.rs has an arm for (it configures a
    format's machine from its entry at run time, refusing a family it has no arm for)."""
    src = _text(RUST_FORMATS / "config.rs")
    body = src[src.index("pub fn machine(") :]
    body = body[: body.index("\n}\n")]
    return sorted(set(re.findall(r'^\s*"(\w+)"(?: if [^=]*)? =>', body, re.M)))


def rust_machines() -> List[str]:
    """The modules rust/formats/mod.rs declares whose file holds a machine (``impl Machine
    for``); a declared module of another name is a shared part (between, region...)."""
    declared = re.findall(r"^mod (\w+);", _text(RUST_FORMATS / "mod.rs"), re.M)
    return sorted(
        m
        for m in declared
        if (RUST_FORMATS / f"{m}.rs").is_file()
        and "impl Machine for" in _text(RUST_FORMATS / f"{m}.rs")
    )


def rust_files() -> List[str]:
    """rust/formats/*.rs files holding a machine, declared or not."""
    return sorted(
        p.stem
        for p in RUST_FORMATS.glob("*.rs")
        if p.name != "mod.rs" and "impl Machine for" in _text(p)
    )


def reference_twins() -> List[str]:
    """reference/*.py modules holding a subclass of the twins' ``Machine``."""
    return sorted(
        p.stem
        for p in (PACKAGE / "reference").glob("*.py")
        if p.name != "__init__.py" and re.search(r"^class \w+\(Machine\):", _text(p), re.M)
    )


def reference_arms() -> List[str]:
    """The families reference/__init__.py configures a twin for."""
    src = _text(PACKAGE / "reference" / "__init__.py")
    return sorted(set(re.findall(r'spec\.family == "(\w+)"', src)))


def grammar() -> List[str]:
    from toolparse.grammar import families

    return sorted(families.FAMILIES)


def renderers() -> List[str]:
    from toolparse.testing import renderers

    return sorted(renderers.FAMILIES)


def doc_list() -> List[str]:
    """The families named on docs/adding-a-format.md (its sentence "The families today: ...")."""
    m = re.search(r"The families today: (.*?)\.\s", _text(DOC), re.S)
    assert m, "docs/adding-a-format.md lists the families ('The families today: ...')"
    return re.findall(r"`(\w+)`", m.group(1))


LISTS: Dict[str, Callable[[], List[str]]] = {
    "python/toolparse/spec_types.py (FAMILIES)": spec_types,
    "rust/formats/config.rs (machine's arms)": config_arms,
    "rust/formats/mod.rs (mod <family>; of a machine)": rust_machines,
    "rust/formats/<family>.rs (impl Machine)": rust_files,
    "python/toolparse/reference/<family>.py (a Machine subclass)": reference_twins,
    "python/toolparse/reference/__init__.py (its arms)": reference_arms,
    "python/toolparse/grammar/families.py (FAMILIES)": grammar,
    "python/toolparse/testing/renderers.py (FAMILIES)": renderers,
    "docs/adding-a-format.md (The families today)": doc_list,
}


@pytest.mark.parametrize("where", list(LISTS))
def test_every_list_of_families_is_the_schemas(where: str) -> None:
    expected = sorted(schema())
    got = LISTS[where]()
    assert len(got) == len(set(got)), f"{where} names a family twice: {got}"
    missing = sorted(set(expected) - set(got))
    extra = sorted(set(got) - set(expected))
    assert not missing and not extra, (
        f"{where} disagrees with _schema.json's family enum: missing {missing}, not in the "
        f"schema {extra}"
    )


def test_the_doc_names_every_file_a_new_family_touches() -> None:
    """The checklist's table names each file holding a list above, and the other files a new
    family needs (its machines, _about.md, its tests)."""
    page = _text(DOC)
    table = page[page.index("The files it touches:") :]
    named = set(re.findall(r"^\s*\| `([^`]+)` \|", table, re.M))
    needed = {
        "python/toolparse/formats/_schema.json",
        "python/toolparse/formats/_about.md",
        "python/toolparse/spec_types.py",
        "rust/formats/<family>.rs",
        "rust/formats/mod.rs",
        "rust/formats/config.rs",
        "python/toolparse/reference/<family>.py",
        "python/toolparse/reference/__init__.py",
        "python/toolparse/grammar/families.py",
        "python/toolparse/testing/renderers.py",
        "tests/test_<family>.py",
    }
    assert not needed - named, f"adding-a-format.md's table lacks {sorted(needed - named)}"
    for path in named:
        if "<family>" not in path:
            assert (ROOT / path).is_file(), f"adding-a-format.md names {path}, which is not there"
    for where in LISTS:  # every list this test reads (but the page's own) is in the table
        file = where.split(" ")[0]
        assert file in named or file == "docs/adding-a-format.md", f"the table lacks {file}"


def test_a_missing_family_is_reported() -> None:
    """The check can fail: a list without one family, or with one more, disagrees."""
    families = sorted(schema())
    assert set(families[1:]) != set(families)
    assert set([*families, "brand_new"]) != set(families)
    assert "inkling" in doc_list() and "tagged_json" in config_arms()
