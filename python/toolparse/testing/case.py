"""``TestCase``: one model output and what a parser of its format must make of it.

A case is data: it loads from (and dumps to) JSON, so a project can keep its own cases in a file
beside the generated ones (:func:`load_cases`). A file that does not validate raises
:class:`CaseFileError` with a one-line message naming the case and the field.
"""

from __future__ import annotations

import json
from functools import cached_property
from pathlib import Path
from typing import Any, Dict, List, Optional, Tuple, Union

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

__all__ = ["KINDS", "CaseFileError", "ExpectedCall", "TestCase", "dump_cases", "load_cases"]

# What a case is, which decides the invariants ``check`` holds it to:
# * "well_formed": the expected calls and content, streaming == non-streaming;
# * "no_call": plain text, all of it content, no call;
# * "malformed": no exception, no call, the whole text as content (content fallback);
# * "truncated": the output ends inside a call; the ``complete`` calls before it are kept.
KINDS = ("well_formed", "no_call", "malformed", "truncated")


class CaseFileError(ValueError):
    """A case file that does not validate (the message is one line: file, case, field)."""


class ExpectedCall(BaseModel):
    """A call the parser must return: its name and its arguments as JSON text (an object given
    in a case file is written with ``json.dumps(..., ensure_ascii=False)``)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str = Field(min_length=1)
    arguments: str = "{}"

    @field_validator("arguments", mode="before")
    @classmethod
    def _arguments(cls, v: Any) -> Any:
        if isinstance(v, dict):
            return json.dumps(v, ensure_ascii=False)
        if isinstance(v, str):
            try:
                obj = json.loads(v)
            except ValueError as e:
                raise ValueError(f"not JSON text: {e}") from None
            if not isinstance(obj, dict):
                raise ValueError("not a JSON object")
        return v


class TestCase(BaseModel):
    """One model output (``model_output``) in ``format``, with what a parser must return for it:
    ``tool_calls`` (names and arguments text), ``content`` (the text outside the calls, by
    toolparse's whitespace rule: a whitespace-only segment next to a call is not content;
    ``None`` when nothing is left) and ``reasoning``. ``tools`` are OpenAI tool dicts (formats
    whose arguments are typed by the schema need them); ``patterns`` names the patterns of the
    conformance list the case covers (``one_call``, ``parallel``, ``malformed``, ...)."""

    __test__ = False  # not a pytest test class
    model_config = ConfigDict(extra="forbid", frozen=True, protected_namespaces=())

    format: str = Field(min_length=1)
    label: str = ""
    model_output: str
    tool_calls: List[ExpectedCall] = []
    content: Optional[str] = None
    reasoning: Optional[str] = None
    tools: Optional[List[Dict[str, Any]]] = None
    patterns: List[str] = []
    kind: str = "well_formed"
    complete: int = 0  # truncated cases: the calls complete before the cut
    # where content rendered before the first call sits in the text (for "nothing lost" checks)
    before: str = ""
    before_at: int = 0

    @field_validator("kind")
    @classmethod
    def _kind(cls, v: str) -> str:
        if v not in KINDS:
            raise ValueError(f"one of {', '.join(KINDS)}")
        return v

    # ----- short names the test suites use -----

    @property
    def fmt(self) -> str:
        return self.format

    @property
    def text(self) -> str:
        return self.model_output

    @cached_property
    def calls(self) -> List[Tuple[str, str]]:
        """``[(name, arguments text)]``."""
        return [(c.name, c.arguments) for c in self.tool_calls]

    @property
    def types(self) -> Dict[str, Dict[str, List[str]]]:
        """What toolparse's core is told of ``tools``: function -> parameter -> JSON types."""
        from toolparse.parser import _schema_types, _tool_models

        return _schema_types(_tool_models(self.tools))

    def __repr__(self) -> str:  # short ids in pytest output
        return f"TestCase({self.format}:{self.label} {self.model_output[:60]!r})"

    __str__ = __repr__


def _where(err: ValidationError) -> str:
    e = err.errors()[0]
    field = ".".join(str(p) for p in e["loc"]) or "(case)"
    return f"field {field!r}: {e['msg']}"


def load_cases(
    source: Union[str, Path, List[Any], Dict[str, Any]], format: Optional[str] = None
) -> List[TestCase]:
    """Cases from a JSON file (a path), a JSON text, or the parsed data: a list of case objects
    or ``{"format": F, "cases": [...]}`` (``format`` then defaults every case's format).

    Raises :class:`CaseFileError` (one line: the file, the case's label or number, the field).
    """
    name = "<cases>"
    data: Any = source
    if isinstance(source, Path) or (isinstance(source, str) and source.lstrip()[:1] not in "[{"):
        name = str(source)
        try:
            data = json.loads(Path(source).read_text(encoding="utf-8"))
        except (OSError, ValueError) as e:
            raise CaseFileError(f"{name}: {type(e).__name__}: {e}".replace("\n", " ")) from None
    elif isinstance(source, str):
        try:
            data = json.loads(source)
        except ValueError as e:
            raise CaseFileError(f"{name}: not JSON: {e}") from None
    if isinstance(data, dict):
        format = data.get("format", format)
        data = data.get("cases")
    if not isinstance(data, list):
        raise CaseFileError(f"{name}: expected a list of cases or {{'cases': [...]}}")
    out = []
    for i, raw in enumerate(data):
        label = raw.get("label") if isinstance(raw, dict) else None
        which = f"case {label!r} (#{i})" if label else f"case #{i}"
        if not isinstance(raw, dict):
            raise CaseFileError(f"{name}: {which}: not an object")
        if format is not None and "format" not in raw:
            raw = {**raw, "format": format}
        try:
            out.append(TestCase.model_validate(raw))
        except ValidationError as e:
            raise CaseFileError(f"{name}: {which}: {_where(e)}") from None
    return out


def dump_cases(cases: List[TestCase]) -> str:
    """JSON text :func:`load_cases` reads back into the same cases."""
    return json.dumps(
        [c.model_dump(exclude_defaults=True) for c in cases], ensure_ascii=False, indent=1
    )
