"""The format spec: one file per format in ``formats/`` (``<name>.json``, which ``build.rs`` also
reads) and the reasoning formats (``formats/_reasoning.json``): names, aliases, id styles, markers,
the models each format serves, and each format's samples, hand-written test cases and notes.
Loaded once at import with the standard library; the Rust-backed path reads names from here, never
from the reference twin. The files' fields: ``formats/_about.md``; their schema:
``formats/_schema.json``."""

from __future__ import annotations

import fnmatch
import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Dict, List, Mapping, Optional, Tuple

__all__ = [
    "REASONING",
    "SPECS",
    "FormatSpec",
    "ReasoningSpec",
    "canonical",
    "format_for_model",
    "get_spec",
    "list_formats",
    "list_reasoning_formats",
    "load",
    "read",
    "load_reasoning",
    "reasoning_canonical",
]

ID_STYLES = ("chatcmpl", "mistral", "model")
# when the vLLM integration keeps special tokens in the output text (the spec's "about")
KEEP_SPECIAL_TOKENS = ("always", "with_tools", "never")
FOLDER = Path(__file__).resolve().parent / "formats"
REASONING_FILE = "_reasoning.json"


@dataclass(frozen=True)
class Cases:
    """A format's hand-written outputs for the conformance kit (its file's ``cases``)."""

    # text that looks a little like the markup but holds no call: all of it is content
    no_call: Tuple[str, ...] = ()
    # malformed markup: no call, the text is content
    malformed: Tuple[str, ...] = ()
    # outputs that end inside a call, with how many calls completed before it
    truncated: Tuple[Tuple[str, int], ...] = ()


@dataclass(frozen=True)
class FormatSpec:
    """One format's entry in the spec."""

    name: str
    family: str
    id_style: str
    aliases: Tuple[str, ...]
    markers: Mapping[str, str]
    special_tokens: Tuple[str, ...]
    models: Tuple[str, ...]
    raw: Mapping[str, Any]
    keep_special_tokens: str = "never"
    # the end-of-turn tag the model may write ("": none): markup, dropped from content
    turn_end: str = ""
    # other markup the format never puts in content (gemma4's "<channel|>"): dropped
    dropped: Tuple[str, ...] = ()
    # spans whose tags are markup (cohere's citations): (open, close_start, close_end, max)
    span_markup: Optional[Tuple[str, str, str, int]] = None
    # the reasoning format that runs with this format when none is given ("": none)
    default_reasoning: str = ""
    # the rest of the format's file: real checkpoint ids format_for_model maps to it, the
    # servers' own parser names for the same wire format ({"sglang": ...}), sample outputs (what
    # `toolparse demo` runs), hand-written test cases, the notes of the formats page ("": none)
    model_ids: Tuple[str, ...] = ()
    peers: Mapping[str, str] = field(default_factory=dict)
    samples: Tuple[str, ...] = ()
    cases: Cases = Cases()
    notes: str = ""

    def marker(self, role: str) -> Optional[str]:
        return self.markers.get(role)

    def call_starts(self) -> Tuple[str, ...]:
        """The markers that begin calls (the roles ``call_start*`` and ``section_start*``): the end
        of the output after only these and whitespace is a cut before a call began."""
        return tuple(
            m for r, m in self.markers.items() if r.startswith(("call_start", "section_start"))
        )


def _strings(entry: Dict[str, Any], key: str, where: str) -> Tuple[str, ...]:
    value = entry.get(key)
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ValueError(f"format spec: {where}: {key!r} must be a list of strings")
    return tuple(value)


def _check_grammar(g: Any, name: str) -> None:
    """The ``grammar`` field the strict-tool-calling generator reads (see the spec's "about")."""
    if not isinstance(g, dict) or "trigger" not in g:
        raise ValueError(f"format spec: {name}: 'grammar' must be an object with a 'trigger'")
    if g["trigger"] is not None and (not isinstance(g["trigger"], str) or not g["trigger"]):
        raise ValueError(f"format spec: {name}: grammar 'trigger' must be a marker or null")
    forms = g.get("parser_only_forms", [])
    if not isinstance(forms, list) or not all(isinstance(f, str) for f in forms):
        raise ValueError(f"format spec: {name}: grammar 'parser_only_forms' must list strings")


def _check_functionary(entry: Dict[str, Any], markers: Dict[str, str], name: str) -> None:
    """A functionary format's markers and ``call`` fields (``build.rs`` checks the same)."""
    for role in ("call_start", "name_end"):
        if not markers.get(role):
            raise ValueError(f"format spec: {name}: a functionary format needs a {role}")
    call = entry.get("call")
    raw = call.get("raw_code") if isinstance(call, dict) else None
    if not isinstance(call, dict) or not isinstance(raw, dict):
        raise ValueError(f"format spec: {name}: a functionary format needs call.raw_code")
    if not all(isinstance(raw.get(k), str) and raw[k] for k in ("name", "key")):
        raise ValueError(f"format spec: {name}: call.raw_code needs a name and a key")
    if raw.get("start") not in ("marker", "header") or (
        raw["start"] == "marker" and "call_start_raw" not in markers
    ):
        raise ValueError(f"format spec: {name}: call.raw_code.start {raw.get('start')!r}")
    if call.get("bad_header") not in ("text", "malformed"):
        raise ValueError(f"format spec: {name}: call.bad_header must be 'text' or 'malformed'")
    if not isinstance(call.get("starts_with_header", False), bool):
        raise ValueError(f"format spec: {name}: call.starts_with_header must be a bool")
    recipient = call.get("content_recipient", "x")
    if not isinstance(recipient, str) or not recipient:
        raise ValueError(f"format spec: {name}: call.content_recipient must be a string")


def load(
    data: Mapping[str, Any], files: Optional[Mapping[str, Mapping[str, Any]]] = None
) -> Dict[str, FormatSpec]:
    """Validates a spec document (``{"formats": [spec entries]}``) and returns its entries by
    canonical name, in order. Refuses a name or alias given twice, as ``build.rs`` does. ``files``
    (by name) are the formats' whole files, whose other fields (samples, cases...) are kept."""
    formats = data.get("formats")
    if not isinstance(formats, list):
        raise ValueError("format spec: no 'formats' list")
    out: Dict[str, FormatSpec] = {}
    seen: Dict[str, str] = {}
    for k, entry in enumerate(formats):
        if not isinstance(entry, dict):
            raise ValueError(f"format spec: entry {k} is not an object")
        name, family, id_style = (entry.get(f) for f in ("name", "family", "id_style"))
        for key, value in (("name", name), ("family", family), ("id_style", id_style)):
            if not isinstance(value, str) or not value:
                raise ValueError(f"format spec: entry {k}: {key!r} must be a non-empty string")
        assert isinstance(name, str) and isinstance(family, str) and isinstance(id_style, str)
        if id_style not in ID_STYLES:
            raise ValueError(f"format spec: {name}: unknown id_style {id_style!r}")
        aliases = _strings(entry, "aliases", name)
        for n in (name, *aliases):
            if n in seen:
                raise ValueError(
                    f"format spec: {name}: name or alias {n!r} is given twice "
                    f"(already used by {seen[n]})"
                )
            seen[n] = name
        markers = entry.get("markers")
        if not isinstance(markers, dict) or not all(isinstance(v, str) for v in markers.values()):
            raise ValueError(f"format spec: {name}: 'markers' must map roles to strings")
        if family == "tagged_json" and "call_start" not in markers:
            raise ValueError(f"format spec: {name}: a tagged_json format needs a call_start")
        if family == "pythonic" and not {"section_start", "list_start"} & set(markers):
            raise ValueError(
                f"format spec: {name}: a pythonic format needs a section or list start"
            )
        if family == "functionary":
            _check_functionary(entry, markers, name)
        _check_grammar(entry.get("grammar"), name)
        special_tokens = _strings(entry, "special_tokens", name)
        keep = entry.get("keep_special_tokens", "with_tools" if special_tokens else "never")
        if keep not in KEEP_SPECIAL_TOKENS:
            raise ValueError(
                f"format spec: {name}: 'keep_special_tokens' must be one of "
                f"{', '.join(KEEP_SPECIAL_TOKENS)}, not {keep!r}"
            )
        turn_end = entry.get("turn_end", "")
        if not isinstance(turn_end, str) or ("turn_end" in entry and not turn_end):
            raise ValueError(f"format spec: {name}: 'turn_end' must be a non-empty string")
        dropped = _strings(entry, "dropped", name) if "dropped" in entry else ()
        if not all(dropped):
            raise ValueError(f"format spec: {name}: 'dropped' holds an empty string")
        default_reasoning = entry.get("default_reasoning", "")
        if not isinstance(default_reasoning, str) or (
            "default_reasoning" in entry and not default_reasoning
        ):
            raise ValueError(f"format spec: {name}: 'default_reasoning' must be a non-empty string")
        span_markup = None
        if "span_markup" in entry:
            sm = entry["span_markup"]
            keys = ("open", "close_start", "close_end")
            if not isinstance(sm, dict) or not all(
                isinstance(sm.get(k), str) and sm.get(k) for k in keys
            ):
                raise ValueError(f"format spec: {name}: 'span_markup' needs non-empty strings")
            mx = sm.get("max")
            if not isinstance(mx, int) or isinstance(mx, bool) or mx <= 0:
                raise ValueError(f"format spec: {name}: span_markup.max must be a positive int")
            span_markup = (sm["open"], sm["close_start"], sm["close_end"], mx)
        out[name] = FormatSpec(
            name=name,
            family=family,
            id_style=id_style,
            aliases=aliases,
            markers=dict(markers),
            special_tokens=special_tokens,
            models=_strings(entry, "models", name),
            raw=entry,
            keep_special_tokens=keep,
            turn_end=turn_end,
            dropped=dropped,
            default_reasoning=default_reasoning,
            span_markup=span_markup,
            **_file_fields((files or {}).get(name, {})),
        )
    return out


def _file_fields(f: Mapping[str, Any]) -> Dict[str, Any]:
    """The fields of a format's file beside its spec entry (their schema: ``_schema.json``)."""
    cases = f.get("cases", {})
    return {
        "model_ids": tuple(f.get("model_ids", ())),
        "peers": dict(f.get("peers", {})),
        "samples": tuple(f.get("samples", ())),
        "cases": Cases(
            no_call=tuple(cases.get("no_call", ())),
            malformed=tuple(cases.get("malformed", ())),
            truncated=tuple((str(t), int(n)) for t, n in cases.get("truncated", ())),
        ),
        "notes": f.get("notes", ""),
    }


def read(folder: Path = FOLDER) -> Dict[str, Any]:
    """The spec document of a folder of format files: ``{"formats": [spec entries], "reasoning":
    [...], "files": {name: file}}``, the formats in the order of their names (as ``build.rs``
    reads them). A file's name is its format's name."""
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


@dataclass(frozen=True)
class ReasoningSpec:
    """One reasoning format's entry in the spec (its "reasoning" list; see the spec's "about")."""

    name: str
    aliases: Tuple[str, ...]
    start: str
    end: str
    started: bool
    call_ends_block: bool
    call_starts: Tuple[str, ...]
    tool_format: Optional[str]
    also_start: Tuple[str, ...] = ()
    also_end: Tuple[str, ...] = ()
    trim: bool = False
    content_prefix: str = ""
    end_token: str = ""
    end_token_id: Optional[int] = None
    # the end-of-turn tag ("": none): it ends a block and is dropped from content in every state
    turn_end: str = ""
    # with thinking disabled (not started) the markers are off: no front, a block is content
    markers_off_when_disabled: bool = False
    # the end of the content wrapper the end marker opens ("": none): dropped from content
    content_end: str = ""
    # the characters dropped from the start of the content after the end marker ("": none)
    content_lstrip: str = ""
    # the label a block may begin with ("": none): the label and a newline, or the label as the
    # whole block, at the start of a block are markup
    label: str = ""
    # other markup the format never puts in content (kimi_k3's "<|close|>response<|sep|>"):
    # dropped from content in every state while it runs
    dropped: Tuple[str, ...] = ()

    @property
    def starts(self) -> Tuple[str, ...]:
        """The markers that open a block: ``start`` and its alternates."""
        return (self.start, *self.also_start)

    @property
    def ends(self) -> Tuple[str, ...]:
        """The markers that end a block: ``end``, its alternates and the turn-end tag."""
        ends = (self.end, *self.also_end)
        if self.turn_end and self.turn_end not in ends:
            ends = (*ends, self.turn_end)
        return ends

    def scan(self, format: Optional[FormatSpec]) -> Tuple[str, ...]:
        """What the front scans for inside a block when paired with ``format`` (None: no tool
        format): ``(ends..., starts..., call starts...)``, as ``build.rs`` generates it."""
        calls: List[str] = []
        if self.call_ends_block:
            if format is None:
                calls = list(self.call_starts)
            else:
                roles = ("call_start", "section_start", "function_start")
                calls = [m for r in roles if (m := format.marker(r))]
        out = [*self.ends, *self.starts]
        for c in calls:
            if c and c not in out:
                out.append(c)
        return tuple(out)


def load_reasoning(
    data: Mapping[str, Any], formats: Mapping[str, FormatSpec]
) -> Dict[str, ReasoningSpec]:
    """Validates the spec's "reasoning" list (as ``build.rs`` does) and returns its entries by
    name, in order."""
    entries = data.get("reasoning")
    if not isinstance(entries, list):
        raise ValueError("format spec: no 'reasoning' list")
    out: Dict[str, ReasoningSpec] = {}
    seen: Dict[str, str] = {}
    for k, e in enumerate(entries):
        name = e.get("name") if isinstance(e, dict) else None
        if not isinstance(e, dict) or not isinstance(name, str) or not name:
            raise ValueError(f"format spec: reasoning entry {k}: 'name' must be a non-empty string")
        aliases = _strings(e, "aliases", name)
        for n in (name, *aliases):
            if n in seen:
                raise ValueError(f"format spec: reasoning {name}: {n!r} is given twice")
            seen[n] = name
        end_token = e.get("end_token", e.get("end", ""))
        end_token_id = e.get("end_token_id")
        if not isinstance(end_token, str) or not end_token:
            raise ValueError(
                f"format spec: reasoning {name}: 'end_token' (by default 'end') must be a "
                "non-empty string"
            )
        if end_token_id is not None and (
            not isinstance(end_token_id, int) or isinstance(end_token_id, bool)
        ):
            raise ValueError(f"format spec: reasoning {name}: 'end_token_id' must be an int")
        tool_format = e.get("tool_format")
        if tool_format is not None:
            if tool_format not in formats:
                raise ValueError(f"format spec: reasoning {name}: unknown tool_format")
            out[name] = ReasoningSpec(
                name,
                aliases,
                "",
                "",
                False,
                False,
                (),
                tool_format,
                end_token=end_token,
                end_token_id=end_token_id,
            )
            continue
        fields = ("start", "end", "started", "call_ends_block")
        start, end, started, ends = (e.get(f) for f in fields)
        if not (isinstance(start, str) and start and isinstance(end, str) and end):
            raise ValueError(f"format spec: reasoning {name}: 'start' and 'end' must be strings")
        if not isinstance(started, bool) or not isinstance(ends, bool):
            raise ValueError(f"format spec: reasoning {name}: 'started', 'call_ends_block': bools")
        if e.get("unclosed") != "reasoning":
            raise ValueError(f"format spec: reasoning {name}: 'unclosed' must be 'reasoning'")
        calls = _strings(e, "call_starts", name)
        also_start = _strings(e, "also_start", name) if "also_start" in e else ()
        also_end = _strings(e, "also_end", name) if "also_end" in e else ()
        if not all((*also_start, *also_end)):
            raise ValueError(f"format spec: reasoning {name}: an empty alternate marker")
        trim = e.get("trim", False)
        if not isinstance(trim, bool):
            raise ValueError(f"format spec: reasoning {name}: 'trim' must be a bool")
        prefix = e.get("content_prefix", "")
        if not isinstance(prefix, str):
            raise ValueError(f"format spec: reasoning {name}: 'content_prefix' must be a string")
        turn_end = e.get("turn_end", "")
        if not isinstance(turn_end, str) or ("turn_end" in e and not turn_end):
            raise ValueError(
                f"format spec: reasoning {name}: 'turn_end' must be a non-empty string"
            )
        framing = []
        for key in ("content_end", "content_lstrip", "label"):
            v = e.get(key, "")
            if not isinstance(v, str) or (key in e and not v):
                raise ValueError(
                    f"format spec: reasoning {name}: {key!r} must be a non-empty string"
                )
            framing.append(v)
        dropped = _strings(e, "dropped", name) if "dropped" in e else ()
        if not all(dropped):
            raise ValueError(f"format spec: reasoning {name}: 'dropped' holds an empty string")
        off = e.get("markers_off_when_disabled", False)
        if not isinstance(off, bool):
            raise ValueError(
                f"format spec: reasoning {name}: 'markers_off_when_disabled' must be a bool"
            )
        out[name] = ReasoningSpec(
            name,
            aliases,
            start,
            end,
            started,
            ends,
            calls,
            None,
            also_start,
            also_end,
            trim,
            prefix,
            end_token,
            end_token_id,
            turn_end,
            off,
            content_end=framing[0],
            content_lstrip=framing[1],
            label=framing[2],
            dropped=dropped,
        )
    return out


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
    listing the known names for an unknown one."""
    if not isinstance(name, str):
        raise TypeError(f"reasoning must be a str or None, not {type(name).__name__}")
    found = _REASONING_NAMES.get(name)
    if found is None:
        raise ValueError(
            f"unknown reasoning format {name!r}; known reasoning formats: "
            f"{', '.join(list_reasoning_formats(aliases=True))}"
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
    """The canonical name for a format name or alias. TypeError for a non-str, ValueError listing
    the known names for an unknown one."""
    if not isinstance(name, str):
        raise TypeError(f"format name must be a str, not {type(name).__name__}")
    found = _NAMES.get(name)
    if found is None:
        raise ValueError(
            f"unknown tool-call format {name!r}; known formats: {', '.join(SPECS)} "
            f"(aliases: {', '.join(list_formats(aliases=True)[len(SPECS) :])})"
        )
    return found


def get_spec(name: str) -> FormatSpec:
    """The spec entry of a format, by name or alias."""
    return SPECS[canonical(name)]


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


# (organisation, lower-case name pattern, specificity, format), most specific first
_PATTERNS: List[Tuple[Optional[str], str, int, str]] = sorted(
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
