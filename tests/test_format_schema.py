"""The format files' JSON Schema (``python/toolparse/formats/_schema.json``) holds for every file
(each format's, the reasoning formats'), and refuses what the readers refuse."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any, Dict, List

import pytest
import toolparse.spec

jsonschema = pytest.importorskip("jsonschema")

FOLDER = Path(__file__).resolve().parent.parent / "python" / "toolparse" / "formats"
if not FOLDER.is_dir():  # pragma: no cover - an installed package alone
    import toolparse.spec

    FOLDER = toolparse.spec.FOLDER
SCHEMA: Dict[str, Any] = json.loads((FOLDER / "_schema.json").read_text("utf-8"))
FILES = sorted(p for p in FOLDER.glob("*.json") if not p.name.startswith("_"))
REASONING_LIST: List[Dict[str, Any]] = json.loads((FOLDER / "_reasoning.json").read_text("utf-8"))
DOC: Dict[str, Any] = {
    "formats": [json.loads(p.read_text("utf-8"))["spec"] for p in FILES],
    "reasoning": REASONING_LIST,
}


def _validator(definition: str) -> Any:
    schema = dict(SCHEMA)
    schema.pop("oneOf")
    schema["$ref"] = f"#/$defs/{definition}"
    cls = jsonschema.validators.validator_for(SCHEMA)
    cls.check_schema(SCHEMA)
    return cls(schema)


FORMAT = _validator("format")
REASONING = _validator("reasoning")
FILE = _validator("format_file")


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.stem)
def test_every_format_file_matches_the_schema(path: Path) -> None:
    doc = json.loads(path.read_text("utf-8"))
    FILE.validate(doc)
    jsonschema.validate(doc, SCHEMA)
    assert doc["spec"]["name"] == path.stem, "a format file is named after its format"


def test_the_reasoning_file_matches_the_schema() -> None:
    _validator("reasoning_file").validate(REASONING_LIST)


@pytest.mark.parametrize("entry", DOC["formats"], ids=lambda e: e["name"])
def test_every_format_entry_matches_the_schema(entry: Dict[str, Any]) -> None:
    FORMAT.validate(entry)


@pytest.mark.parametrize("entry", DOC["reasoning"], ids=lambda e: e["name"])
def test_every_reasoning_entry_matches_the_schema(entry: Dict[str, Any]) -> None:
    REASONING.validate(entry)


def _entry(name: str) -> Dict[str, Any]:
    return copy.deepcopy(next(e for e in DOC["formats"] if e["name"] == name))


@pytest.mark.parametrize(
    "name,change",
    [
        ("hermes", lambda e: e.pop("markers")),
        ("hermes", lambda e: e.update(id_style="uuid")),
        ("hermes", lambda e: e.update(family="nope")),
        ("hermes", lambda e: e.update(markerz={})),
        ("hermes", lambda e: e["markers"].pop("call_start")),
        ("hermes", lambda e: e["markers"].update(call_end=1)),
        ("hermes", lambda e: e.update(keep_special_tokens="sometimes")),
        ("hermes", lambda e: e["grammar"].pop("trigger")),
        ("hermes", lambda e: e["call"].update(shape="circle")),
        ("pythonic", lambda e: e["markers"].clear()),
        ("cohere_command3", lambda e: e["span_markup"].update(max=0)),
        ("openai", lambda e: e["grammar"]["messages"].pop("separator")),
        ("openai", lambda e: e["grammar"]["messages"]["call"].update(headers="x")),
        ("muse", lambda e: e["grammar"]["messages"]["content"].update(begin=1)),
    ],
)
def test_the_schema_refuses_a_broken_entry(name: str, change: Any) -> None:
    """The schema refuses it, and so does the typed loader (toolparse.spec_types)."""
    entry = _entry(name)
    change(entry)
    with pytest.raises(jsonschema.ValidationError):
        FORMAT.validate(entry)
    with pytest.raises(ValueError, match=f"{name}.json: spec"):
        toolparse.spec.load({"formats": [entry]})


def test_the_schema_refuses_a_broken_format_file() -> None:
    doc = json.loads(FILES[0].read_text("utf-8"))
    for change in (
        lambda d: d.pop("spec"),
        lambda d: d.update(samples=[]),
        lambda d: d.update(sample="x"),
        lambda d: d.update(cases={"truncated": [["x"]]}),
        lambda d: d.update(cases={"malformd": []}),
        lambda d: d.update(peers={"vllm2": "x"}),
    ):
        broken = copy.deepcopy(doc)
        change(broken)
        with pytest.raises(jsonschema.ValidationError):
            FILE.validate(broken)


def test_the_schema_refuses_a_broken_reasoning_entry() -> None:
    entry = copy.deepcopy(DOC["reasoning"][0])
    entry["tool_format"] = "openai"
    with pytest.raises(jsonschema.ValidationError):
        REASONING.validate(entry)
    entry = copy.deepcopy(DOC["reasoning"][0])
    del entry["started"]
    with pytest.raises(jsonschema.ValidationError):
        REASONING.validate(entry)
