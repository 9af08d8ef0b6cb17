"""The cases of the ten test patterns for any format in the spec.

1. no tool call (plain text, empty, whitespace; text that looks like the markup); 2. one call;
3. parallel calls; 4. every JSON type in arguments; 5. a call with no arguments; 6. text before /
after / between the calls; 7. escapes and non-ASCII kept exactly; 8. malformed markup (no
exception, content fallback) and truncated output; 9. streaming == non-streaming and 10. splits at
every critical point and every character offset: these two are what :func:`toolparse.testing.check`
does with every case, under :func:`toolparse.testing.splittings`.

Every case is rendered from the format's spec entry by its family's renderer (in every form of the
markup the family has and, for JSON-native formats, several JSON spellings of the same arguments),
plus the hand-written outputs of :mod:`toolparse.testing._data`.
"""

from __future__ import annotations

import json
from typing import Any, Dict, List, Sequence, Tuple

import toolparse
import toolparse.spec

from ._data import MALFORMED, NO_CALL_LOOKALIKES, NO_CALL_TEXTS, TRUNCATED
from .case import TestCase
from .render import JSON_STYLES, Call, RawJSON, Renderer, _case
from .renderers import FAMILIES, RENDERERS, TaggedJson, XmlParams, renderer

# Which of the ten patterns each generated group of cases covers (by number and name;
# 9 and 10 are what ``check`` does with every case).
PATTERNS_OF: Dict[str, List[str]] = {
    "no_call": ["1 no_call"],
    "one_call": ["2 one_call"],
    "parallel": ["3 parallel"],
    "all_types": ["4 all_types"],
    "no_arguments": ["5 no_arguments"],
    "no_arguments_parallel": ["3 parallel", "5 no_arguments"],
    "text_before": ["6 text_around"],
    "text_after": ["6 text_around"],
    "text_both": ["3 parallel", "6 text_around"],
    "text_unicode": ["6 text_around", "7 escapes"],
    "text_between": ["3 parallel", "6 text_around"],
    "whitespace_around": ["6 text_around"],
    "escapes": ["7 escapes"],
    "markers_in_strings": ["7 escapes"],
    "raw_escapes": ["7 escapes"],
    "reasoning": ["2 one_call"],
    "reasoning_text": ["2 one_call", "6 text_around"],
    "malformed": ["8 malformed"],
    "truncated": ["8 truncated"],
    "composite": ["3 parallel", "6 text_around", "7 escapes"],
}


WEATHER: Call = ("get_weather", {"city": "Tokyo"})
WEATHER2: Call = ("get_weather", {"city": "Paris", "unit": "celsius"})
TIME: Call = ("get_time", {"timezone": "Asia/Tokyo"})
SEARCH: Call = ("search", {"query": "best pizza in Naples", "limit": 5})
EMPTY: Call = ("refresh", {})
ALL_TYPES: Call = (
    "register",
    {
        "name": "John",
        "age": 30,
        "price": 19.99,
        "negative": -7,
        "small": 2.5e-07,
        "active": True,
        "inactive": False,
        "role": None,
        "tags": ["a", "b"],
        "address": {"city": "Tokyo", "zip": "100-0001", "geo": {"lat": 35.68, "lng": 139.69}},
        "items": [],
        "meta": {},
        "matrix": [[1, 2], [3, 4.5], [True, None, "x"]],
    },
)
ESCAPES: Call = (
    "write_file",
    {
        "text": 'He said "hello"',
        "path": "C:\\Users\\file.txt",
        "newline": "line1\nline2\r\n\ttabbed",
        "unicode": "emoji: 🎉👍🏽, CJK: 日本語中文, accents: héllo café",
        "backslash_n": "literal \\n not a newline",
        "braces": '{"not": "a call"} [1, 2] (x=1)',
        "quotes": "it's 'single' and \"double\"",
        "control": "bell\x07 nul\x00 esc\x1b",
    },
)
# Written by hand: escapes a parser must keep byte for byte (no re-serialisation).
RAW_ESCAPES = RawJSON(
    '{"s": "caf\\u00e9 \\u4e2d \\ud83c\\udf89 \\/ \\"q\\" \\\\ \\n\\t", "n": 1.50, '
    '"big": 12345678901234567890123, "e": 1E+2, "neg": -0.0, "u": "é🎉中"}'
)


def standard_cases(fmt: str) -> Dict[str, List[TestCase]]:
    """The cases of patterns 2-7 for ``fmt``, every form and JSON style the format has, by
    pattern."""
    r = renderer(fmt)
    key = (r.name, id(r))
    if key not in _STANDARD:
        _STANDARD[key] = {k: tuple(v) for k, v in _standard_cases(r).items()}
    return {k: list(v) for k, v in _STANDARD[key].items()}


# the cases are immutable (frozen models): rendered once per renderer
_STANDARD: Dict[Tuple[str, int], Dict[str, Tuple[TestCase, ...]]] = {}


def _standard_cases(r: Renderer) -> Dict[str, List[TestCase]]:
    styles = list(JSON_STYLES) if r.json_native else ["raw"]
    out: Dict[str, List[TestCase]] = {}

    def add(pattern: str, calls: Sequence[Call], **kw: Any) -> None:
        for form in r.forms:
            if kw.get("after") and form in r.forms_no_after:
                continue
            for style in styles:
                out.setdefault(pattern, []).append(
                    r.render(
                        calls,
                        form=form,
                        style=style,
                        label=f"{pattern}/{form}/{style}",
                        patterns=PATTERNS_OF[pattern],
                        **kw,
                    )
                )

    add("one_call", [WEATHER])
    add("parallel", [WEATHER2, TIME, SEARCH])
    add("all_types", [ALL_TYPES])
    add("no_arguments", [EMPTY])
    add("no_arguments_parallel", [EMPTY, WEATHER, EMPTY])
    if r.surround:
        add("text_before", [WEATHER], before="Let me check the weather for you.\n\n")
        add("text_after", [WEATHER], after="\n\nI asked the weather service.")
        add("text_both", [WEATHER, TIME], before="Sure! ", after=" Done.")
        add("text_unicode", [WEATHER], before="天気を調べます 🎉 ", after=" ✅ fin")
        add(
            "text_between",
            [WEATHER, TIME, EMPTY],
            before="First: ",
            between=["\n\nthen, ", "\n \n"],
            after="\nend",
        )
    add("whitespace_around", [WEATHER], before="\n\n  ", after="\n\n")
    add("escapes", [ESCAPES])
    if r.json_native and r.markers_in_strings and r.markers:
        add("markers_in_strings", [("write_file", {"text": " ".join(r.markers), r.markers[0]: 1})])
    if r.json_native:
        add("raw_escapes", [("raw", RAW_ESCAPES)])
    if r.reasoning:
        add("reasoning", [WEATHER], reasoning="The user wants the weather. 🤔\nCall the tool.")
        add("reasoning_text", [WEATHER], reasoning="think", before="Checking.", after="Done.")
    return out


def no_call_texts(fmt: str) -> List[str]:
    """Plain text with no tool call (pattern 1)."""
    return list(NO_CALL_TEXTS) + NO_CALL_LOOKALIKES.get(fmt, [])


def _tagged_json_cases(fmt: str) -> Tuple[List[str], List[Tuple[str, int]]]:
    """Malformed and truncated texts of a tagged-JSON format, from its spec entry."""
    r = renderer(fmt)
    assert isinstance(r, TaggedJson)
    s, e = r.opener(r.starts[0]), r.end
    key = json.dumps(r.args_keys[0]) if r.args_keys else ""
    nk = json.dumps(r.name_key)

    def wrap(obj: str) -> str:
        return f"[{obj}]" if r.array else obj

    def head(name: str) -> str:
        """A call object up to its arguments."""
        return f'{{"{name}": ' if r.by_name else f'{{{nk}: "{name}", {key}: '

    ok = wrap(head("ok") + "{}}")
    malformed = [
        s + wrap(head("func") + '{"a": 1]}') + e,
        s + wrap(head("func") + '{"a": undefined}}') + e,
        s + "not json at all" + e,
        f"{s}{ok}{e}\n{s}" + wrap(head("bad") + '{"x": tru}}') + e,
        s + wrap(head("f") + "[1, 2]}") + e,
        s + wrap(head("f") + '"not an object"}') + e,
    ]
    if r.by_name:
        # one key per call, and a name that is not blank
        malformed += [s + wrap(head("f") + '{}, "g": {}}') + e, s + wrap(head(" ") + "{}}") + e]
    else:
        malformed.append(s + wrap(f'{{{key}: {{"a": 1}}}}') + e)
    if "string_args" not in r.forms:
        # this format's arguments are an object, never a string holding one
        malformed.append(s + wrap(head("f") + '"{\\"a\\": 1}"}') + e)
    opening = "[" if r.array else ""
    truncated = [
        (f'{s}{opening}{head("func")}{{"a": 1}}', 0),
        (f'Text {s}{opening}{head("f")}{{"a": "unterminated}}}}]{e}', 0),
        (f'{s}{ok}{e}\n{s}{opening}{head("g")}{{"a"', 1),
    ]
    if not toolparse.spec.get_spec(fmt).call.tentative:
        # cut before a call started: truncated (with a tentative start marker, text)
        truncated += [
            (f"{s}{opening}{head('func')[:-6]}", 0),
            (f"Text {s}", 0),
            (f"{s}{ok}{e}\n{s}{opening}{head('g')[:-5]}", 1),
            (f"Hi {s}{ok}{e}\n{s}\n", 1),
        ]
    if r.array:
        truncated.append((f'{s}[{head("f")}{{}}}}, {head("g")}{{"a"', 1))
    return malformed, truncated


def _xml_cases(fmt: str) -> Tuple[List[str], List[Tuple[str, int]]]:
    """Malformed and truncated texts of an XML-parameter format, from its markers."""
    r = renderer(fmt)
    assert isinstance(r, XmlParams)
    m = r.m
    cs = m.get("call_start", "")
    ce = m.get("call_end", "")
    glm = "value_start" in m
    ne = "" if m["function_name_end"] == "\n" else m["function_name_end"]
    head = m["parameter_string"] if "parameter_string" in m else m["parameter_name_end"]
    head += m.get("value_start", "")
    ok = cs + r.function("get_time", {}) + ce
    opened = f"{cs}{m['function_start']}get_weather{ne or chr(10)}"
    malformed = [
        # text between parameters after the call started
        f"{opened}\njunk\n{m['function_end']}{ce}",
        f"Hi {ok}\n{opened}junk here{m['function_end']}{ce}",
    ]
    if glm:  # a key without its value tag
        malformed.append(
            f"{opened}{m['parameter_start']}city{m['parameter_name_end']}Tokyo{m['function_end']}{ce}"
        )
    if "parameter_string" in m:  # a head that is none of the three
        malformed.append(
            f'{opened}{m["parameter_start"]}a" strng="x">1{m["parameter_end"]}'
            f"{m['function_end']}{ce}"
        )
    truncated = [
        (f"{cs}{m['function_start']}get_wea", 0),
        (f"{opened}{m['parameter_start']}city{head}Tok", 0),
        (f"Hello {cs or m['function_start']}", 0),
        (f"{opened}{m['parameter_start']}ci", 0),
        (f"{ok}\n{opened}{m['parameter_start']}city{head}Pa", 1),
        (f"Hi {ok}\n{cs}{m['function_start']}g", 1),
    ]
    return malformed, truncated


def truncated_texts(fmt: str) -> List[Tuple[str, int]]:
    """Outputs that end inside a call, with how many calls completed before it: the hand-written
    ones and, for every format, two rendered from its spec entry (cut inside a string value, with
    no call and with one call complete before it)."""
    return TRUNCATED.get(fmt, []) + _cut_inside_a_value(fmt)


def _cut_inside_a_value(fmt: str) -> List[Tuple[str, int]]:
    r = renderer(fmt)
    out = []
    for calls, complete in (([WEATHER], 0), ([("get_time", {}), WEATHER], 1)):
        text = r.render(calls).model_output
        out.append((text[: text.rfind("Tokyo") + 3], complete))
    return out


def malformed_texts(fmt: str) -> List[str]:
    """Malformed markup: the hand-written outputs and, for JSON-native formats, a call rendered
    from the spec entry with invalid JSON arguments (an invalid literal, a mismatched bracket)."""
    return MALFORMED.get(fmt, []) + _bad_json_arguments(fmt)


def _bad_json_arguments(fmt: str) -> List[str]:
    r = renderer(fmt)
    if not r.json_native:
        return []
    out = []
    for raw in ('{"a": tru}', '{"a": 1]', '{"a": undefined}'):
        text = r.render([("f", RawJSON(raw))]).model_output
        if text not in out:
            out.append(text)
    return out


def composite_case(fmt: str) -> TestCase:
    """Content, several calls with escapes and non-ASCII: the text the every-offset split tests
    cut everywhere."""
    r = renderer(fmt)
    calls: List[Call] = [
        ("get_weather", {"city": 'Zürich "CH"', "days": 3, "ok": True}),
        ("get_time", {}),
        ("write_file", {"path": "a\\b.txt", "content": "x\ny 🎉 中", "tags": ["t", None, 1.5]}),
    ]
    if r.surround:
        return r.render(
            calls,
            before="Checking now... ",
            after=" All done ✅",
            label="composite",
            patterns=PATTERNS_OF["composite"],
        )
    return r.render(
        calls, before="\n", after="\n", label="composite", patterns=PATTERNS_OF["composite"]
    )


def _generated() -> None:
    """Malformed and truncated outputs generated from the spec for the formats of families that
    have a generator and no hand-written ones."""
    for fmt in toolparse.list_formats():
        family = toolparse.spec.get_spec(fmt).family
        if fmt in MALFORMED or fmt not in RENDERERS:
            continue
        if family == "tagged_json":
            MALFORMED[fmt], TRUNCATED[fmt] = _tagged_json_cases(fmt)
        elif family == "xml_params":
            MALFORMED[fmt], TRUNCATED[fmt] = _xml_cases(fmt)


_generated()


def _registered(spec: Any, _reasoning: Any) -> None:
    """A format registered at run time (``toolparse.register_format``): its hand-written cases
    and its renderer (and the cases generated for it), in place of those of a format it
    replaced."""
    name = spec.name
    for table, given in (
        (NO_CALL_LOOKALIKES, spec.cases.no_call),
        (MALFORMED, spec.cases.malformed),
        (TRUNCATED, spec.cases.truncated),
    ):
        table.pop(name, None)
        if given:
            table[name] = list(given)
    RENDERERS.pop(name, None)
    make = FAMILIES.get(spec.family)
    if make is not None:
        RENDERERS[name] = make(name)
        if name not in MALFORMED:
            if spec.family == "tagged_json":
                MALFORMED[name], TRUNCATED[name] = _tagged_json_cases(name)
            elif spec.family == "xml_params":
                MALFORMED[name], TRUNCATED[name] = _xml_cases(name)


def cases(fmt: str) -> List[TestCase]:
    """Every case of ``fmt`` (a format name or alias): no-call texts, the well-formed cases of
    patterns 2-7 in every form and JSON spelling, malformed and truncated outputs."""
    fmt = toolparse.spec.canonical(fmt)
    out = [
        _case(
            fmt,
            t,
            t or None,
            None,
            [],
            None,
            f"no_call/{i}",
            t,
            0,
            PATTERNS_OF["no_call"],
            "no_call",
        )
        for i, t in enumerate(no_call_texts(fmt))
    ]
    for group in standard_cases(fmt).values():
        out += group
    out.append(composite_case(fmt))
    for i, t in enumerate(malformed_texts(fmt)):
        out.append(
            _case(
                fmt,
                t,
                t,
                None,
                [],
                None,
                f"malformed/{i}",
                t,
                0,
                PATTERNS_OF["malformed"],
                "malformed",
            )
        )
    for i, (t, complete) in enumerate(truncated_texts(fmt)):
        out.append(
            _case(
                fmt,
                t,
                None,
                None,
                [],
                None,
                f"truncated/{i}",
                t,
                0,
                PATTERNS_OF["truncated"],
                "truncated",
                complete,
            )
        )
    return out
