"""Formats added at run time: :func:`register_format` takes a format file (the shape of
``formats/<name>.json``) and registers it in both backends, as the built-in formats are, without a
rebuild. Everything keyed by a format's name learns it here: the spec tables
(:mod:`toolparse.spec`), the Rust registry (``_core.register_format``), the reference twins, the
parser registry, the conformance kit's case tables, the structural-tag cache and the servers'
plugins when they are loaded."""

from __future__ import annotations

import copy
import json
import os
import sys
from pathlib import Path
from typing import Any, Dict, Mapping, Optional, Tuple, Union

from . import spec as _spec
from .spec_types import FormatSpec, ReasoningSpec, format_spec, reasoning_spec

__all__ = ["ENV", "register_format"]

# The servers' plugins register the formats of these files (``path[:path...]``) when they load.
ENV = "TOOLPARSE_FORMATS"

# the files registered at run time, by format name (what toolparse.with_token_suffix derives from)
_DOCS: Dict[str, Dict[str, Any]] = {}

SpecArg = Union[Mapping[str, Any], str, "os.PathLike[str]"]


def _document(spec: Any) -> Tuple[Dict[str, Any], Optional[str]]:
    """The format file as data, and its file name when it came from one."""
    if isinstance(spec, (str, os.PathLike)):
        path = Path(spec)
        try:
            with path.open(encoding="utf-8") as f:
                doc = json.load(f)
        except OSError as e:
            raise ValueError(f"format spec: {path}: cannot be read ({e.strerror or e})") from None
        except json.JSONDecodeError as e:
            raise ValueError(f"format spec: {path.name}: not JSON ({e})") from None
        if not isinstance(doc, dict):
            raise ValueError(f"format spec: {path.name}: must be an object")
        return doc, path.name
    if isinstance(spec, Mapping):
        return dict(spec), None
    raise TypeError(
        f"spec must be a dict (a format file's data) or the path of a format file, "
        f"not {type(spec).__name__}"
    )


def _validated(
    doc: Dict[str, Any], file: Optional[str], replace: bool
) -> Tuple[FormatSpec, Optional[ReasoningSpec]]:
    """The format (and its reasoning format) read from ``doc`` with the built-in files' rules,
    and checked against the names already registered: a ValueError names the file and field."""
    entry = doc.get("spec")
    name = entry.get("name") if isinstance(entry, dict) else None
    if file is None:
        file = f"{name}.json" if isinstance(name, str) and name else "<format file>"
    if "spec" not in doc:
        raise ValueError(f"format spec: {file}.spec: is required")
    rest = {k: v for k, v in doc.items() if k != "reasoning"}
    fmt = format_spec(entry, rest, f"{file}: spec")
    names = [*_spec.SPECS, fmt.name]
    rsn = None
    if "reasoning" in doc:
        rsn = reasoning_spec(doc["reasoning"], f"{file}: reasoning", names)
        _check_names(file, "reasoning", rsn.name, rsn.aliases, _spec._REASONING_NAMES, replace)
    _check_names(file, "spec", fmt.name, fmt.aliases, _spec._NAMES, replace)
    known = set(_spec.REASONING) | ({rsn.name} if rsn is not None else set())
    for field, value in (
        ("default_reasoning", fmt.default_reasoning),
        ("grammar.optional_reasoning", fmt.grammar.optional_reasoning),
    ):
        if value and value not in known:
            raise ValueError(
                f"format spec: {file}: spec.{field}: unknown reasoning format {value!r}"
            )
    return fmt, rsn


def _check_names(
    file: str, field: str, name: str, aliases: Any, taken: Mapping[str, str], replace: bool
) -> None:
    """A name or alias already used by another format (or by the same one, unless
    ``replace``) is refused."""
    for n in (name, *aliases):
        owner = taken.get(n)
        if owner is None or (replace and owner == name):
            continue
        key = "name" if n == name else "aliases"
        what = "the name" if n == owner else "an alias"
        hint = "" if owner != name else " (replace=True replaces it)"
        raise ValueError(
            f"format spec: {file}: {field}.{key}: {n!r} is already registered as {what} of "
            f"{owner!r}{hint}"
        )


def register_format(spec: SpecArg, *, replace: bool = False) -> str:
    """Registers a format at run time and returns its canonical name. ``spec`` is a format file's
    data (a dict shaped as ``toolparse/formats/<name>.json``: ``"spec"``, ``"samples"``,
    ``"cases"``...; optionally ``"reasoning"``, an entry shaped as one of ``_reasoning.json``,
    registered with it) or the path of such a file. It is validated as the built-in files are: a
    ValueError names the file and the field (an unknown field, a wrong type, a family rule
    broken). A name or alias that is already registered is a ValueError unless ``replace`` is
    True, which replaces the format of that name (its old aliases go) and drops what was cached
    for it; parsers already made keep the old one. A name or alias of another format is refused
    either way.

    From then on both backends parse it, and :func:`toolparse.list_formats`,
    :func:`toolparse.structural_tag`, :func:`toolparse.format_for_model`, the conformance kit and
    the servers' plugins know it."""
    if not isinstance(replace, bool):
        raise TypeError(f"replace must be True or False, not {type(replace).__name__}")
    doc, file = _document(spec)
    fmt, rsn = _validated(doc, file, replace)
    from . import _core

    # The Rust registry checks the family's rules again as it configures the machine.
    _core.register_format(doc["spec"], doc.get("reasoning"), replace)
    _spec.add(fmt, rsn)
    _DOCS[fmt.name] = copy.deepcopy(doc)
    _refresh(fmt, rsn)
    return fmt.name


def _refresh(fmt: FormatSpec, rsn: Optional[ReasoningSpec]) -> None:
    """Tells the modules that keep something per format name, where they are loaded."""
    for module in (
        "toolparse.registry",
        "toolparse.reference",
        "toolparse.grammar",
        "toolparse.testing.patterns",
        "toolparse.integrations",
    ):
        m = sys.modules.get(module)
        hook = getattr(m, "_registered", None)
        if hook is not None:
            hook(fmt, rsn)
