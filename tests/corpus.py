"""Model outputs for every format, and the drivers the cross-format tests share.

The cases live in the public kit, ``toolparse.testing`` (its renderers, one per family configured
from the spec entry; the ten test patterns; the hand-written no-call, malformed and truncated
outputs; the splittings): this module re-exports them under the names the tests use and adds the
drivers that reach into toolparse's internals (the core parsers, the twins).

Every format in ``toolparse.list_formats()`` must have a renderer (test_api checks it): a format
in an existing family has one from its spec entry; a new family adds its renderer class to
``toolparse.testing.renderers.FAMILIES``. Hand-written MALFORMED / TRUNCATED / NO_CALL_LOOKALIKES
entries go into ``toolparse/testing/_data.py`` (the dicts here are the same objects, so an entry
added here works too).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple

import toolparse
import toolparse.spec
from toolparse import _core, reference
from toolparse.testing import TestCase
from toolparse.testing._data import MALFORMED, NO_CALL_LOOKALIKES, NO_CALL_TEXTS, TRUNCATED
from toolparse.testing.patterns import (
    ALL_TYPES,
    EMPTY,
    ESCAPES,
    RAW_ESCAPES,
    SEARCH,
    TIME,
    WEATHER,
    WEATHER2,
    composite_case,
    malformed_texts,
    no_call_texts,
    standard_cases,
    truncated_texts,
)
from toolparse.testing.render import (
    JSON_STYLES,
    Args,
    Call,
    RawJSON,
    Renderer,
    args_text,
    converted,
    dumps,
    expected_content,
    is_ws,
    json_type,
    py_lit,
    py_str,
    schema_types,
    tools_for,
)
from toolparse.testing.renderers import (
    FAMILIES,
    RENDERERS,
    FunctionGemma,
    Llama3Json,
    Mistral,
    NamedJson,
    OpenAIHarmony,
    Pythonic,
    TaggedJson,
    XmlParams,
    renderer,
)
from toolparse.testing.splits import chunks_at, marker_cuts, random_chunks, split_plans

Case = TestCase  # the name the tests use

__all__ = [
    "ALL_TYPES",
    "BACKENDS",
    "EMPTY",
    "ESCAPES",
    "FAMILIES",
    "JSON_STYLES",
    "MALFORMED",
    "NO_CALL_LOOKALIKES",
    "NO_CALL_TEXTS",
    "OTHER_FORMATS",
    "RAW_ESCAPES",
    "RENDERERS",
    "SEARCH",
    "TAGGED_JSON",
    "TIME",
    "TRUNCATED",
    "WEATHER",
    "WEATHER2",
    "XML_FORMATS",
    "Args",
    "Call",
    "Case",
    "FunctionGemma",
    "Llama3Json",
    "Mistral",
    "NamedJson",
    "OpenAIHarmony",
    "Pythonic",
    "RawJSON",
    "Renderer",
    "TaggedJson",
    "XmlParams",
    "args_text",
    "chunks_at",
    "composite_case",
    "converted",
    "dumps",
    "expected_content",
    "is_ws",
    "json_type",
    "malformed_texts",
    "marker_cuts",
    "no_call_texts",
    "py_lit",
    "py_str",
    "random_chunks",
    "renderer",
    "sample_offsets",
    "spread",
    "schema_types",
    "split_plans",
    "standard_cases",
    "tools_for",
    "truncated_texts",
]


def _family(family: str) -> Tuple[str, ...]:
    return tuple(f for f in toolparse.list_formats() if toolparse.spec.get_spec(f).family == family)


TAGGED_JSON = _family("tagged_json")
XML_FORMATS = _family("xml_params")
# variant formats that are spec entries in other families (tests/test_variant_formats.py)
OTHER_FORMATS = ("gemma4", "plamo3", "ling3", "spark25", "iquest_q1", "trinity")


def formats() -> List[str]:
    """The registered formats (every one must have a renderer)."""
    return toolparse.list_formats()


# Where a split lands mid-escape or at a string's edge.
_PUNCT = set('"\\')


def spread(cases: List[Any], k: int = 4) -> List[Any]:
    """A spread sample of a list of cases (the first, the last and every ``len/k``-th): the
    default run's sample where every variant of a pattern times every splitting would be slow."""
    if len(cases) <= k:
        return list(cases)
    step = max(1, len(cases) // k)
    return list(cases[::step]) + ([cases[-1]] if (len(cases) - 1) % step else [])


def sample_offsets(fmt: str, text: str, every: int = 7) -> List[int]:
    """The split (or cut) offsets the default run tries on a long text: within two characters of
    every occurrence of the format's markers (both ends), next to quotes and backslashes, and every
    ``every``-th offset; the exhaustive tests try every offset."""
    n = len(text)
    picked = set(range(0, n + 1, every)) | {n}
    for m in set(toolparse.spec.get_spec(fmt).markers.values()):
        if not m:
            continue
        at = text.find(m)
        while at >= 0:
            for edge in (at, at + len(m)):
                picked.update(range(max(0, edge - 2), min(n, edge + 2) + 1))
            at = text.find(m, at + 1)
    for i, c in enumerate(text):
        if c in _PUNCT:
            picked.update((i, i + 1))
    return sorted(picked)


# ==================================================================================================
# Drivers
# ==================================================================================================

BACKENDS = ("rust", "python")


def core_parser(
    backend: str, fmt: str, types: Optional[Dict[str, Dict[str, List[str]]]] = None
) -> Any:
    """The core parser of ``backend`` (``_core.Parser`` or its reference twin)."""
    if backend == "rust":
        return _core.Parser(fmt, types or {})
    return reference.Parser(fmt, types or {})


def core_extract(
    backend: str, fmt: str, text: str, types: Optional[Dict[str, Dict[str, List[str]]]] = None
) -> Any:
    if backend == "rust":
        return _core.extract(fmt, text, types or {})
    return reference.extract(fmt, text, types or {})


def core_feed_all(p: Any, chunks: Sequence[str]) -> List[Any]:
    """Per-feed results (each ``feed`` then ``finish``)."""
    out = [p.feed(c) for c in chunks]
    out.append(p.finish())
    return out


@dataclass
class Streamed:
    content: str = ""
    reasoning: str = ""
    calls: List[List[Any]] = field(default_factory=list)  # [id, name, args]
    malformed: bool = False
    truncated: bool = False

    def result(self) -> Tuple[Optional[str], Optional[str], List[Tuple[str, str]]]:
        return (
            self.content or None,
            self.reasoning or None,
            [(n, a) for _, n, a in self.calls],
        )


def accumulate(deltas: Sequence[Any]) -> Streamed:
    """Concatenates core per-feed tuples, checking the protocol on the way: a call's first
    fragment carries its name (and the next index), later ones a non-empty arguments fragment."""
    s = Streamed()
    for d in deltas:
        if d is None:
            continue
        content, reasoning, calls = d
        assert content is not None or reasoning is not None or calls, f"empty delta {d!r}"
        assert content != "" and reasoning != "", f"empty text in delta {d!r}"
        s.content += content or ""
        s.reasoning += reasoning or ""
        for index, id_, name, args in calls or ():
            if name is not None:
                assert index == len(s.calls), f"call index {index} after {len(s.calls)} calls"
                assert name, "empty name"
                s.calls.append([id_, name, args or ""])
            else:
                assert id_ is None, f"id on a later fragment: {d!r}"
                assert 0 <= index < len(s.calls), f"fragment for unknown call {index}"
                assert args, f"empty arguments fragment {d!r}"
                s.calls[index][2] += args
    return s


def core_stream(
    backend: str, fmt: str, chunks: Sequence[str], types=None
) -> Tuple[List[Any], Streamed]:
    deltas = core_feed_all(core_parser(backend, fmt, types), chunks)
    return deltas, accumulate(deltas)


def twin_stream(fmt: str, chunks: Sequence[str], types=None) -> Tuple[List[Any], Streamed]:
    """Feeds both twins the same deltas; asserts identical per-feed output (the twins agree)."""
    a = core_parser("rust", fmt, types)
    b = core_parser("python", fmt, types)
    deltas = []
    for i, c in enumerate(list(chunks) + [None]):
        da = a.feed(c) if c is not None else a.finish()
        db = b.feed(c) if c is not None else b.finish()
        assert da == db, (
            f"twins differ at feed #{i} ({'finish' if c is None else repr(c)}) of {list(chunks)!r}:"
            f"\n  rust:   {da!r}\n  python: {db!r}"
        )
        deltas.append(da)
    assert a.malformed == b.malformed, (fmt, list(chunks), a.malformed, b.malformed)
    assert a.truncated == b.truncated, (fmt, list(chunks), a.truncated, b.truncated)
    s = accumulate(deltas)
    s.malformed, s.truncated = a.malformed, a.truncated
    return deltas, s


def twin_extract(fmt: str, text: str, types=None) -> Any:
    xa = _core.extract(fmt, text, types or {})
    xb = reference.extract(fmt, text, types or {})
    assert xa == xb, (
        f"twins differ on extract({fmt!r}, {text!r}):\n  rust:   {xa!r}\n  python: {xb!r}"
    )
    return xa


def facade_stream(parser: Any, chunks: Sequence[str]) -> Tuple[Any, List[Any]]:
    """Streams through the public API; returns the reconstructor (protocol checked) and deltas."""
    rec = toolparse.StreamingToolReconstructor(strict_order=True)
    stream = parser.stream()
    deltas = []
    for c in chunks:
        d = stream.feed(c)
        deltas.append(d)
    deltas.append(stream.finish())
    for d in deltas:
        if d is not None:
            rec.append_delta(d)
    return rec, deltas


# (content, reasoning, [(name, arguments)]), as a client rebuilds a message
Message = Tuple[Optional[str], Optional[str], List[Tuple[str, str]]]


def extracted_message(info: Any) -> Message:
    """The message of a non-streaming result: (content, reasoning, [(name, arguments)])."""
    calls = [(c.function.name, c.function.arguments) for c in info.tool_calls]
    return info.content, info.reasoning, calls


def streamed_message(parser: Any, chunks: Sequence[str]) -> Message:
    """The message a client rebuilds from ``parser.stream()`` fed ``chunks`` (as
    :func:`extracted_message`; empty texts are None)."""
    rec, deltas = facade_stream(parser, chunks)
    reasoning = "".join(d.reasoning for d in deltas if d is not None and d.reasoning)
    calls = [(c.function.name, c.function.arguments) for c in rec.tool_calls]
    return rec.other_content or None, reasoning or None, calls


def check_splits_in_two(parser: Any, text: str) -> Any:
    """The non-streaming result of ``text``, checked equal to the stream for every split in two,
    one character at a time and all at once."""
    info = parser.extract_tool_calls(text)
    want = extracted_message(info)
    for k in range(len(text) + 1):
        assert streamed_message(parser, [text[:k], text[k:]]) == want, (text, k)
    assert streamed_message(parser, list(text)) == want, text
    return info


def stream_outcome(parser: Any, chunks: Sequence[str]) -> Tuple[Any, ...]:
    """Streams ``chunks`` through the facade: (content, [(name, arguments)], malformed,
    truncated), as a client rebuilds them."""
    s = parser.stream()
    rec = toolparse.StreamingToolReconstructor(strict_order=True)
    for d in [s.feed(c) for c in chunks] + [s.finish()]:
        if d is not None:
            rec.append_delta(d)
    calls = [(c.function.name, c.function.arguments) for c in rec.tool_calls]
    return rec.other_content, calls, s.malformed, s.truncated


def check_cuts(streamed: Callable[[List[str]], Any], text: str) -> None:
    """Every single cut of ``text``, and pairs of cuts (sampled), give ``streamed`` the result
    of the whole text."""
    whole = streamed([text])
    for a in range(len(text) + 1):
        assert streamed([text[:a], text[a:]]) == whole, a
    step = max(3, len(text) // 25)
    for a in range(0, len(text) + 1, step):
        for b in range(a, len(text) + 1, step + 2):
            assert streamed([text[:a], text[a:b], text[b:]]) == whole, (a, b)


def bare_start_at_end(fmt: str, text: str) -> bool:
    """Whether ``text`` ends with one of ``fmt``'s call-start markers (the roles ``call_start*``
    and ``section_start*``) followed by whitespace only."""
    ws = " \t\n\r"
    return any(
        m and text.rstrip(ws).endswith(m.rstrip(ws))
        for m in toolparse.spec.get_spec(fmt).call_starts()
    )


def header_cut_at_end(fmt: str, text: str) -> bool:
    """Whether ``text`` ends inside a harmony-family header that names a recipient (a ``to=``
    after the last ``<|message|>``, not at the very start of the output): the start markup of a
    call that never began."""
    if toolparse.spec.get_spec(fmt).family != "openai":
        return False
    to = text.rfind("to=")
    return to > 0 and to > text.rfind("<|message|>") and text[:to].strip() != ""


def dropped_section_at_end(fmt: str, text: str) -> bool:
    """Whether ``text`` ends inside a section of a format that holds only calls there (the spec's
    ``call.between_calls: "dropped"``, kimi_k2) with no call started after its start: what
    follows the start is dropped, so the start stands bare at the end (a cut before a call)."""
    spec = toolparse.spec.get_spec(fmt)
    if spec.call.between_calls != "dropped":
        return False
    m = spec.markers
    ends = [m[k] for k in ("section_end", "section_end_alt") if k in m]
    at = max(
        (
            text.rfind(s) + len(s)
            for k in ("section_start", "section_start_alt")
            if (s := m.get(k)) and s in text
        ),
        default=-1,
    )
    if at < 0 or at < max((text.rfind(s) for s in ends), default=-1):
        return False
    return m["call_start"] not in text[at:]


def truncated_content_ok(
    fmt: str, text: str, content: Optional[str], streamed: Optional[str]
) -> bool:
    """The non-streaming content of ``text``, which ends inside a call before any completed: the
    text whole; or, where the text ends with a bare call start or inside a header naming a
    recipient (a cut before the call began, not content), what the stream sent as content (no
    fallback: the output without that start)."""
    if content == text:
        return True
    cut = (
        bare_start_at_end(fmt, text)
        or header_cut_at_end(fmt, text)
        or dropped_section_at_end(fmt, text)
    )
    return cut and (content or "") == (streamed or "")


def check_truncated_output(
    fmt: str, backend: str, text: str, complete: int, tools: Any = None
) -> None:
    """Text that ends inside a call: non-streaming keeps the ``complete`` calls before it and
    says ``truncated``; none complete: the text whole as content (without a bare call start at
    its end: :func:`truncated_content`). A stream says ``truncated`` (not ``malformed``), and its
    complete calls are the non-streaming ones."""
    parser = toolparse.get_parser(fmt, tools=tools, backend=backend)
    info = parser.extract_tool_calls(text)
    assert info.truncated, (text, info)
    assert len(info.tool_calls) == complete, (text, info)
    if complete == 0:
        assert not info.tools_called, (text, info)
        streamed_content = facade_stream(parser, [text])[0].other_content
        assert truncated_content_ok(fmt, text, info.content, streamed_content), (text, info)
    got = [(c.function.name, c.function.arguments) for c in info.tool_calls]
    for chunks in ([text], list(text), [text[i : i + 3] for i in range(0, len(text), 3)]):
        rec, deltas = facade_stream(parser, chunks)
        stream_ = parser.stream()
        for c in chunks:
            stream_.feed(c)
        stream_.finish()
        assert stream_.truncated and not stream_.malformed, (text, chunks)
        streamed = [(c.function.name, c.function.arguments) for c in rec.tool_calls]
        assert streamed[:complete] == got, (text, chunks, streamed, got)
        assert len(streamed) - complete in (0, 1), (text, chunks, streamed)
        # the streamed call the output ended inside, if its start was sent
        want = complete if len(streamed) > complete else None
        assert stream_.unfinished_call == want, (text, chunks, stream_.unfinished_call)


def without_ws(s: Optional[str]) -> str:
    return re.sub(r"[ \t\n\r]", "", s or "")
