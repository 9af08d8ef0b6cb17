"""The format spec's JSON Schema (``python/toolparse/formats/_schema.json``) holds for every entry,
and refuses what the readers refuse."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any, Dict

import pytest

jsonschema = pytest.importorskip("jsonschema")

PKG = Path(__file__).resolve().parent.parent / "python" / "toolparse"
SCHEMA: Dict[str, Any] = json.loads((PKG / "formats" / "_schema.json").read_text("utf-8"))
DOC: Dict[str, Any] = json.loads((PKG / "formats.json").read_text("utf-8"))


def _validator(definition: str) -> Any:
    schema = dict(SCHEMA)
    schema.pop("oneOf")
    schema["$ref"] = f"#/$defs/{definition}"
    cls = jsonschema.validators.validator_for(SCHEMA)
    cls.check_schema(SCHEMA)
    return cls(schema)


FORMAT = _validator("format")
REASONING = _validator("reasoning")


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
    ],
)
def test_the_schema_refuses_a_broken_entry(name: str, change: Any) -> None:
    entry = _entry(name)
    change(entry)
    with pytest.raises(jsonschema.ValidationError):
        FORMAT.validate(entry)


def test_the_schema_refuses_a_broken_reasoning_entry() -> None:
    entry = copy.deepcopy(DOC["reasoning"][0])
    entry["tool_format"] = "openai"
    with pytest.raises(jsonschema.ValidationError):
        REASONING.validate(entry)
    entry = copy.deepcopy(DOC["reasoning"][0])
    del entry["started"]
    with pytest.raises(jsonschema.ValidationError):
        REASONING.validate(entry)
