"""The format spec: one file per format in ``formats/`` (``<name>.json``, which the Rust core also
reads) and the reasoning formats (``formats/_reasoning.json``): names, aliases, id styles, markers,
the models each format serves, and each format's samples, hand-written test cases and notes.
Loaded once at import with the standard library; the Rust-backed path reads names from here, never
from the reference twin. The files' fields: ``formats/_about.md``; their schema:
``formats/_schema.json``; their typed model: ``toolparse.spec_types``."""

from __future__ import annotations

import difflib
import fnmatch
import json
import re
from pathlib import Path
from typing import Any, Dict, List, Mapping, Optional, Sequence, Tuple

from .spec_types import (
    ID_STYLES,
    KEEP_SPECIAL_TOKENS,
    Call,
    Cases,
    FormatSpec,
    Grammar,
    ReasoningSpec,
    format_spec,
    reasoning_spec,
)

__all__ = [
    "ID_STYLES",
    "KEEP_SPECIAL_TOKENS",
    "REASONING",
    "SPECS",
    "Call",
    "Cases",
    "FormatSpec",
    "Grammar",
    "ReasoningSpec",
    "canonical",
    "closest",
    "format_for_model",
    "get_spec",
    "list_formats",
    "list_reasoning_formats",
    "load",
    "read",
    "load_reasoning",
    "reasoning_canonical",
    "add",
]

FOLDER = Path(__file__).resolve().parent / "formats"
REASONING_FILE = "_reasoning.json"


def load(
    data: Mapping[str, Any], files: Optional[Mapping[str, Mapping[str, Any]]] = None
) -> Dict[str, FormatSpec]:
    """Validates a spec document (``{"formats": [spec entries]}``) and returns its entries by
    canonical name, in order. Refuses a name or alias given twice, as the Rust registry does.
    ``files`` (by name) are the formats' whole files, whose other fields (samples, cases...) are
    read too. A rule broken raises ``ValueError`` naming the file (``<name>.json``) and the
    field."""
    formats = data.get("formats")
    if not isinstance(formats, list):
        raise ValueError("format spec: no 'formats' list")
    out: Dict[str, FormatSpec] = {}
    seen: Dict[str, str] = {}
    for k, entry in enumerate(formats):
        name = entry.get("name") if isinstance(entry, dict) else None
        file = f"{name}.json" if isinstance(name, str) and name else f"entry {k}"
        doc = (files or {}).get(name) if isinstance(name, str) else None
        spec = format_spec(entry, doc, f"{file}: spec")
        for n in (spec.name, *spec.aliases):
            if n in seen:
                raise ValueError(
                    f"format spec: {file}: name or alias {n!r} is given twice "
                    f"(already used by {seen[n]})"
                )
            seen[n] = spec.name
        out[spec.name] = spec
    return out


def read(folder: Path = FOLDER) -> Dict[str, Any]:
    """The spec document of a folder of format files: ``{"formats": [spec entries], "reasoning":
    [...], "files": {name: file}}``, the formats in the order of their names (as the Rust
    registry reads them). A file's name is its format's name."""
    files: Dict[str, Dict[str, Any]] = {}
    for path in sorted(folder.glob("*.json"), key=lambda p: p.stem):
        if path.name.startswith("_"):
            continue
        with path.open(encoding="utf-8") as f:
            doc = json.load(f)
        entry = doc.get("spec") if isinstance(doc, dict) else None
        if not isinstance(entry, dict) or entry.get("name") != path.stem:
            raise ValueError(f"format spec: {path.name}: no 'spec' entry named {path.stem!r}")
        files[path.stem] = doc
    with (folder / REASONING_FILE).open(encoding="utf-8") as f:
        reasoning = json.load(f)
    return {"formats": [d["spec"] for d in files.values()], "reasoning": reasoning, "files": files}


def load_reasoning(
    data: Mapping[str, Any], formats: Mapping[str, FormatSpec]
) -> Dict[str, ReasoningSpec]:
    """Validates the spec's "reasoning" list (as the Rust registry does) and returns its entries by
    name, in order."""
    entries = data.get("reasoning")
    if not isinstance(entries, list):
        raise ValueError(f"format spec: {REASONING_FILE}: not a list")
    out: Dict[str, ReasoningSpec] = {}
    seen: Dict[str, str] = {}
    for k, e in enumerate(entries):
        r = reasoning_spec(e, f"{REASONING_FILE}: entry {k}", formats)
        for n in (r.name, *r.aliases):
            if n in seen:
                raise ValueError(
                    f"format spec: {REASONING_FILE}: reasoning {r.name}: {n!r} is given twice"
                )
            seen[n] = r.name
        out[r.name] = r
    return out


def closest(name: str, names: Sequence[str], n: int = 3) -> List[str]:
    """The names most like ``name`` (a misspelt or half-remembered one), best first, at most
    ``n``; case is ignored. Empty when none is close."""
    lower: Dict[str, str] = {}
    for known in names:
        lower.setdefault(known.lower(), known)
    found = difflib.get_close_matches(name.lower(), list(lower), n=n, cutoff=0.7)
    return [lower[f] for f in found]


def _did_you_mean(name: str, names: Sequence[str]) -> str:
    near = closest(name, names)
    return f"did you mean {' or '.join(repr(n) for n in near)}? " if near else ""


def _read() -> Tuple[Dict[str, FormatSpec], Dict[str, ReasoningSpec]]:
    data = read()
    specs = load(data, data["files"])
    return specs, load_reasoning(data, specs)


SPECS, REASONING = _read()
_REASONING_NAMES: Dict[str, str] = {
    n: s.name for s in REASONING.values() for n in (s.name, *s.aliases)
}


def list_reasoning_formats(aliases: bool = False) -> List[str]:
    """The reasoning format names (vLLM's --reasoning-parser names, SGLang's for SGLang-only
    ones), in spec order; with ``aliases=True`` followed by SGLang's other names."""
    names = list(REASONING)
    if aliases:
        names.extend(a for s in REASONING.values() for a in s.aliases)
    return names


def reasoning_canonical(name: object) -> str:
    """The canonical name of a reasoning format or alias. TypeError for a non-str, ValueError
    for an unknown one: the closest names first, then every known one."""
    if not isinstance(name, str):
        raise TypeError(f"reasoning must be a str or None, not {type(name).__name__}")
    found = _REASONING_NAMES.get(name)
    if found is None:
        known = list_reasoning_formats(aliases=True)
        raise ValueError(
            f"unknown reasoning format {name!r}; {_did_you_mean(name, known)}"
            f"known reasoning formats: {', '.join(known)}"
        )
    return found


# every name and alias -> canonical name
_NAMES: Dict[str, str] = {n: s.name for s in SPECS.values() for n in (s.name, *s.aliases)}


def list_formats(aliases: bool = False) -> List[str]:
    """The canonical format names, in spec order; with ``aliases=True`` followed by every alias."""
    names = list(SPECS)
    if aliases:
        names.extend(a for s in SPECS.values() for a in s.aliases)
    return names


def canonical(name: object) -> str:
    """The canonical name for a format name or alias. TypeError for a non-str, ValueError for an
    unknown one: the closest names first, then every known one."""
    if not isinstance(name, str):
        raise TypeError(f"format name must be a str, not {type(name).__name__}")
    found = _NAMES.get(name)
    if found is None:
        raise ValueError(
            f"unknown tool-call format {name!r}; {_did_you_mean(name, list(_NAMES))}"
            f"known formats: {', '.join(SPECS)} "
            f"(aliases: {', '.join(list_formats(aliases=True)[len(SPECS) :])})"
        )
    return found


def get_spec(name: str) -> FormatSpec:
    """The spec entry of a format, by name or alias."""
    return SPECS[canonical(name)]


def add(spec: FormatSpec, reasoning: Optional[ReasoningSpec] = None) -> None:
    """Adds a format registered at run time (``toolparse.register_format``, which validated it)
    to the tables above, replacing one of the same name (its aliases and model patterns go);
    with its reasoning format, if any, added first the same way."""
    if reasoning is not None:
        old_r = REASONING.get(reasoning.name)
        for n in (old_r.name, *old_r.aliases) if old_r is not None else ():
            _REASONING_NAMES.pop(n, None)
        REASONING[reasoning.name] = reasoning
        _REASONING_NAMES.update((n, reasoning.name) for n in (reasoning.name, *reasoning.aliases))
    old = SPECS.get(spec.name)
    for n in (old.name, *old.aliases) if old is not None else ():
        _NAMES.pop(n, None)
    SPECS[spec.name] = spec
    _NAMES.update((n, spec.name) for n in (spec.name, *spec.aliases))
    _PATTERNS[:] = _patterns()


def _model_parts(model_id: str) -> Tuple[Optional[str], str]:
    """(organisation or None, model name) of a Hugging Face id or a local path."""
    parts = [p for p in re.split(r"[/\\]+", model_id.strip()) if p]
    if not parts:
        return None, ""
    name = parts[-1]
    org = parts[-2] if len(parts) >= 2 else None
    return (org.lower() if org else None), name.lower()


def _literal_len(pattern: str) -> int:
    return sum(1 for c in pattern if c not in "*?[]")


def _patterns() -> List[Tuple[Optional[str], str, int, str]]:
    """(organisation, lower-case name pattern, specificity, format), most specific first."""
    return sorted(
        (
            (
                (p.split("/", 1)[0].lower() if "/" in p else None),
                p.split("/", 1)[-1].lower(),
                _literal_len(p.split("/", 1)[-1]),
                s.name,
            )
            for s in SPECS.values()
            for p in s.models
        ),
        key=lambda t: -t[2],
    )


_PATTERNS: List[Tuple[Optional[str], str, int, str]] = _patterns()


def format_for_model(model_id: str) -> Optional[str]:
    """The format a model's chat template emits, from the spec's model patterns: a Hugging Face id
    (``Qwen/Qwen3-Coder-30B-A3B-Instruct``) or a local path whose last component is the model's
    name (``/models/Qwen3-Coder-30B-A3B-Instruct``). Case-insensitive, the organisation optional;
    the most specific pattern (the most literal characters) wins, a matching organisation breaks
    ties. None when no pattern matches."""
    if not isinstance(model_id, str):
        raise TypeError(f"model_id must be a str, not {type(model_id).__name__}")
    org, name = _model_parts(model_id)
    if not name:
        return None
    best: Optional[Tuple[int, int, str]] = None
    for p_org, p_name, score, fmt in _PATTERNS:
        if best is not None and score < best[0]:
            break
        if fnmatch.fnmatchcase(name, p_name):
            key = (score, int(org is not None and org == p_org), fmt)
            if best is None or key[:2] > best[:2]:
                best = key
    return best[2] if best is not None else None
