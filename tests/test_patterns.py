"""The ten test patterns, for every registered format on both backends.

Every case comes from ``corpus.py`` (each form of the format's markup and, for JSON-native formats,
several JSON spellings of the same arguments); a test checks all of a format's cases and reports
every failing one, not only the first.

Checked for each well-formed case, through the public API:
* non-streaming: ``tools_called``, names, arguments text (exact), content (exact, whitespace rule),
  ids (unique, in the format's id style), arguments are JSON objects;
* reasoning (core level: the facade's ExtractedToolCallInformation has no reasoning field);
* streaming (whole text in one delta, one character per delta, ~4-character deltas): the
  reconstructed result equals the expected one and the non-streaming one (pattern 9), and the
  streaming protocol holds (``StreamingToolReconstructor(strict_order=True)``).
"""

from __future__ import annotations

import json
import random
import re
from typing import Callable, List

import corpus
import pytest
import toolparse
from corpus import Case
from toolparse import IdSource, reference

# The wheel run (.ci/wheel, -m wheel) checks the installed package on the patterns themselves;
# the splitting and twin invariants are the engine's, checked by the source build's run.

ID_PATTERNS = {
    "chatcmpl": re.compile(r"chatcmpl-tool-[0-9a-f]{32}"),
    "mistral": re.compile(r"[A-Za-z0-9]{9}"),
    # the model's own id (kimi_k2: `functions.NAME:IDX`, `NAME:IDX`), or a generated one for a
    # call whose id an earlier call already had
    "model": re.compile(r"(?:functions\.)?[^\s:]+:[0-9]+|[0-9]+|chatcmpl-tool-[0-9a-f]{32}"),
}


def id_pattern(fmt: str) -> re.Pattern:
    return ID_PATTERNS[reference.id_style(fmt)]


def chunk4(text: str) -> List[str]:
    return [text[i : i + 4] for i in range(0, len(text), 4)] or [""]


def run_all(cases: List[Case], check: Callable[[Case], None]) -> None:
    """Checks every case and reports all failures together."""
    assert cases, "no cases"
    failures = []
    for case in cases:
        try:
            check(case)
        except AssertionError as e:
            failures.append(f"--- {case.label}\n    text: {case.text!r}\n    {e}")
    if failures:
        pytest.fail(f"{len(failures)}/{len(cases)} cases fail:\n" + "\n".join(failures), False)


def need(ok: bool, msg: str) -> None:
    """An assertion whose message is only ``msg`` (no pytest diff), for collected failures."""
    if not ok:
        raise AssertionError(msg)


def check_ids(fmt: str, ids: List[str]) -> None:
    pat = id_pattern(fmt)
    for i in ids:
        need(bool(pat.fullmatch(i)), f"id {i!r} is not in the {reference.id_style(fmt)} style")
    need(len(set(ids)) == len(ids), f"ids not unique: {ids}")


def check_case(fmt: str, backend: str, case: Case, per_char: bool = True) -> None:
    """Non-streaming, then streaming in one delta, in 4-character deltas and (``per_char``) one
    character per delta, against the case's expected result."""
    parser = toolparse.get_parser(fmt, tools=case.tools, backend=backend)
    # --- non-streaming
    info = parser.extract_tool_calls(case.text)
    got = [(c.function.name, c.function.arguments) for c in info.tool_calls]
    need(
        got == case.calls, f"extract calls:\n      got      {got!r}\n      expected {case.calls!r}"
    )
    need(info.tools_called == bool(case.calls), f"tools_called {info.tools_called}")
    need(
        info.content == case.content,
        f"extract content: got {info.content!r}, expected {case.content!r}",
    )
    for c in info.tool_calls:
        assert c.type == "function"
        assert isinstance(json.loads(c.function.arguments), dict)
    check_ids(fmt, [c.id for c in info.tool_calls])
    x = corpus.core_extract(backend, fmt, case.text, case.types)
    need(x[1] == case.reasoning, f"reasoning: got {x[1]!r}, expected {case.reasoning!r}")
    need(
        info.reasoning == case.reasoning,
        f"extract reasoning: got {info.reasoning!r}, expected {case.reasoning!r}",
    )
    # --- streaming == non-streaming (pattern 9)
    plans = [("whole", [case.text]), ("4", chunk4(case.text))]
    if per_char:
        plans.append(("chars", list(case.text)))
    for label, chunks in plans:
        rec, _ = corpus.facade_stream(parser, chunks)
        streamed = [(c.function.name, c.function.arguments) for c in rec.tool_calls]
        need(streamed == got, f"stream[{label}] calls: {streamed!r} != extract {got!r}")
        need(
            rec.other_content == (info.content or ""),
            f"stream[{label}] content {rec.other_content!r} != extract {info.content!r}",
        )
        need(
            rec.reasoning == (case.reasoning or ""),
            f"stream[{label}] reasoning {rec.reasoning!r} != {case.reasoning!r}",
        )
        check_ids(fmt, [c.id for c in rec.tool_calls])


PATTERNS = [
    "one_call",  # 2
    "parallel",  # 3
    "all_types",  # 4
    "no_arguments",  # 5
    "no_arguments_parallel",  # 5
    "text_before",  # 6
    "text_after",  # 6
    "text_both",  # 6
    "text_unicode",  # 6
    "text_between",  # 6
    "whitespace_around",  # 6
    "escapes",  # 7
    "markers_in_strings",  # 7 (markers inside JSON strings are text)
    "raw_escapes",  # 7 (JSON-native: escapes kept byte for byte)
    "reasoning",  # formats with a reasoning channel
    "reasoning_text",
]


def pattern_cases(fmt: str, pattern: str) -> List[Case]:
    cases = corpus.standard_cases(fmt).get(pattern)
    if not cases:
        pytest.skip(f"{fmt} has no {pattern} case")
    return cases


# ----- pattern 1: no tool call -----


@pytest.mark.wheel
def test_no_tool_call(fmt: str, backend: str) -> None:
    parser = toolparse.get_parser(fmt, backend=backend)
    failures = []
    for text in corpus.no_call_texts(fmt):
        info = parser.extract_tool_calls(text)
        ok = (
            info.tools_called is False
            and info.tool_calls == []
            and (info.content == text or (text == "" and info.content is None))
        )
        if not ok:
            failures.append(f"extract {text!r} -> {info!r}")
        for chunks in ([text], list(text)):
            rec, _ = corpus.facade_stream(parser, chunks)
            if rec.tool_calls or rec.other_content != text:
                failures.append(f"stream {chunks!r} -> {rec.other_content!r} {rec.tool_calls!r}")
    assert not failures, "\n".join(failures)


# ----- patterns 2-7 and 9 -----


@pytest.mark.wheel
@pytest.mark.parametrize("pattern", PATTERNS)
def test_pattern(fmt: str, backend: str, pattern: str) -> None:
    """Every variant of the pattern (the renderer's spellings); one character per delta for a
    spread sample of them (every variant under ``-m exhaustive``)."""
    cases = pattern_cases(fmt, pattern)
    per_char = {id(c) for c in corpus.spread(cases)}
    run_all(cases, lambda case: check_case(fmt, backend, case, per_char=id(case) in per_char))


@pytest.mark.exhaustive
@pytest.mark.parametrize("pattern", PATTERNS)
def test_pattern_every_variant_per_char(fmt: str, backend: str, pattern: str) -> None:
    run_all(pattern_cases(fmt, pattern), lambda case: check_case(fmt, backend, case))


@pytest.mark.wheel
def test_parallel_ids_unique_and_indexed(fmt: str, backend: str) -> None:
    """Pattern 3: parallel calls get unique ids, and indices 0, 1, 2 in order when streamed."""
    case = pattern_cases(fmt, "parallel")[0]
    parser = toolparse.get_parser(fmt, tools=case.tools, backend=backend)
    info = parser.extract_tool_calls(case.text)
    assert len(info.tool_calls) == 3
    check_ids(fmt, [c.id for c in info.tool_calls])
    for chunks in ([case.text], list(case.text)):
        stream = parser.stream()
        seen = []
        for d in [stream.feed(c) for c in chunks] + [stream.finish()]:
            for tc in d.tool_calls if d is not None else []:
                if tc.id is not None:
                    seen.append(tc.index)
        assert seen == [0, 1, 2]


# ----- ids -----


@pytest.mark.wheel
def test_id_style(fmt: str, backend: str) -> None:
    """``chatcmpl-tool-`` + 32 hex digits (vLLM style) or 9 alphanumerics (mistral)."""
    assert reference.id_style(fmt) in ID_PATTERNS
    if fmt == "mistral":
        assert reference.id_style(fmt) == "mistral"
    elif fmt in (
        "hermes",
        "llama3_json",
        "pythonic",
        "llama4_pythonic",
        "openai",
        *corpus.XML_FORMATS,
    ):
        assert reference.id_style(fmt) == "chatcmpl"
    elif fmt == "kimi_k2":
        assert reference.id_style(fmt) == "model"
    case = pattern_cases(fmt, "parallel")[0]
    info = toolparse.get_parser(fmt, tools=case.tools, backend=backend).extract_tool_calls(
        case.text
    )
    check_ids(fmt, [c.id for c in info.tool_calls])


def test_ids_deterministic_with_seed(fmt: str, backend: str) -> None:
    case = pattern_cases(fmt, "parallel")[0]

    def ids(seed: int, stream: bool) -> List[str]:
        p = toolparse.get_parser(fmt, tools=case.tools, backend=backend, ids=IdSource(seed))
        if not stream:
            return [c.id for c in p.extract_tool_calls(case.text).tool_calls]
        rec, _ = corpus.facade_stream(p, chunk4(case.text))
        return [c.id for c in rec.tool_calls]

    for stream in (False, True):
        a, b, c = ids(1, stream), ids(1, stream), ids(2, stream)
        assert a == b, "IdSource(1) must repeat the same ids"
        if reference.id_style(fmt) != "model":  # (the model's own ids do not depend on it)
            assert a != c, "different seeds should give different ids"
        check_ids(fmt, a)
    # the two backends make the same ids from the same seed
    other = "python" if backend == "rust" else "rust"
    p1 = toolparse.get_parser(fmt, tools=case.tools, backend=backend, ids=IdSource(7))
    p2 = toolparse.get_parser(fmt, tools=case.tools, backend=other, ids=IdSource(7))
    assert [c.id for c in p1.extract_tool_calls(case.text).tool_calls] == [
        c.id for c in p2.extract_tool_calls(case.text).tool_calls
    ]


# ----- pattern 8: malformed markup -----


@pytest.mark.wheel
def test_malformed(fmt: str, backend: str) -> None:
    texts = corpus.malformed_texts(fmt)
    assert texts, f"no malformed cases for {fmt}: add some to corpus.MALFORMED"
    parser = toolparse.get_parser(fmt, backend=backend)
    failures = []
    for text in texts:
        info = parser.extract_tool_calls(text)
        if info.tools_called or info.tool_calls or info.content != text:
            failures.append(f"extract {text!r}\n      -> {info!r}")
        for chunks in ([text], list(text), chunk4(text)):
            stream = parser.stream()
            rec = toolparse.StreamingToolReconstructor()
            for d in [stream.feed(c) for c in chunks] + [stream.finish()]:
                if d is not None:
                    rec.append_delta(d)  # the protocol holds even on malformed markup
            if rec.tool_calls and not stream.malformed:
                failures.append(f"stream {chunks!r}: calls streamed but malformed not reported")
    assert not failures, "\n".join(failures)


def test_every_format_has_truncated_cases() -> None:
    for fmt in toolparse.list_formats():
        cases = corpus.truncated_texts(fmt)
        assert any(n == 0 for _, n in cases), f"{fmt}: add a cut with no complete call"
        assert any(n > 0 for _, n in cases), f"{fmt}: add a cut after a complete call"


@pytest.mark.wheel
def test_truncated(fmt: str, backend: str) -> None:
    """Output that ends inside a call (max_tokens) keeps the calls completed before it."""
    for text, complete in corpus.truncated_texts(fmt):
        corpus.check_truncated_output(fmt, backend, text, complete)


# ----- pattern 10: splits everywhere -----


def _expected(case: Case):
    return (case.content, case.reasoning, case.calls)


def _whole(backend: str, fmt: str, case: Case):
    """The result of the whole text in one delta: the reference for split invariance (whether it
    is also the expected result is what the pattern tests check)."""
    _, s = corpus.core_stream(backend, fmt, [case.text], case.types)
    need(s.result()[2] == case.calls, f"whole-text calls {s.result()[2]!r} != {case.calls!r}")
    return s.result()


def _check_splits(fmt: str, backend: str, offsets: List[int]) -> None:
    """Every two-way split at ``offsets``, and every three-way split there with a middle piece of
    1-3 characters (mid-marker, mid-name, mid-key, mid-value, mid-escape, between calls), gives
    the same result as the whole text in one delta."""
    case = corpus.composite_case(fmt)
    text = case.text
    want = _whole(backend, fmt, case)
    failures = []
    for k in offsets:
        plans = [[text[:k], text[k:]]]
        plans += [[text[:k], text[k:j], text[j:]] for j in range(k + 1, min(k + 4, len(text) + 1))]
        for chunks in plans:
            _, s = corpus.core_stream(backend, fmt, chunks, case.types)
            if s.result() != want:
                failures.append(f"{chunks!r}\n      -> {s.result()!r}")
                break
        if len(failures) > 5:
            break
    assert not failures, f"whole text gives {want!r}; failing splits:\n" + "\n".join(failures)


def test_split_near_markers(fmt: str, backend: str) -> None:
    """Splits near every marker of the format and at a spread sample of the other offsets."""
    text = corpus.composite_case(fmt).text
    _check_splits(fmt, backend, corpus.sample_offsets(fmt, text))


@pytest.mark.exhaustive
def test_split_at_every_offset(fmt: str, backend: str) -> None:
    """Splits at every offset of the composite case."""
    _check_splits(fmt, backend, list(range(len(corpus.composite_case(fmt).text) + 1)))


def test_split_one_char(fmt: str, backend: str) -> None:
    for case in [corpus.composite_case(fmt)] + pattern_cases(fmt, "escapes"):
        want = _whole(backend, fmt, case)
        _, s = corpus.core_stream(backend, fmt, list(case.text), case.types)
        assert s.result() == want, (case.label, case.text)


def _random_multiway(fmt: str, backend: str, cases: List[Case]) -> None:
    rng = random.Random(1234)
    for case in cases:
        want = _whole(backend, fmt, case)
        for _ in range(5):
            chunks = corpus.random_chunks(case.text, rng, max_cuts=12)
            _, s = corpus.core_stream(backend, fmt, chunks, case.types)
            assert s.result() == want, (case.label, chunks)


def _twins_on(fmt: str, cases: List[Case]) -> None:
    rng = random.Random(99)
    texts = [(c.text, c.types) for c in cases]
    texts += [(t, {}) for t in corpus.malformed_texts(fmt) + corpus.no_call_texts(fmt)]
    for text, types in texts:
        corpus.twin_extract(fmt, text, types)
        for chunks in [[text], list(text), corpus.random_chunks(text, rng)]:
            corpus.twin_stream(fmt, chunks, types)


def _cases(fmt: str, every_variant: bool) -> List[Case]:
    std = corpus.standard_cases(fmt).values()
    return [c for cs in std for c in (cs if every_variant else corpus.spread(cs))]


def test_split_random_multiway(fmt: str, backend: str) -> None:
    """Random multi-way splits of a spread sample of each pattern's variants."""
    _random_multiway(fmt, backend, _cases(fmt, False))


def test_twins_agree_on_patterns(fmt: str) -> None:
    """The twins agree on a spread sample of each pattern's variants and every malformed and
    no-call text: per-feed identical output for the same splits."""
    _twins_on(fmt, _cases(fmt, False))


@pytest.mark.exhaustive
def test_split_random_multiway_every_variant(fmt: str, backend: str) -> None:
    _random_multiway(fmt, backend, _cases(fmt, True))


@pytest.mark.exhaustive
def test_twins_agree_on_every_variant(fmt: str) -> None:
    _twins_on(fmt, _cases(fmt, True))


# ----- held-back text is bounded -----


def test_held_back_text_is_bounded(fmt: str, backend: str) -> None:
    """Fed one character at a time, a long run of plain content and a long string argument come
    out as they arrive: inside them no more than a few consecutive feeds emit nothing (only a
    possible marker prefix may be held, never a growing buffer)."""
    r = corpus.renderer(fmt)
    long_content = "word, " * 300
    long_arg = "xyz " * 500
    before = long_content if r.surround else ""
    case = r.render([("write_file", {"path": "a.txt", "content": long_arg})], before=before)
    text = case.text
    regions = [(text.index(long_arg), text.index(long_arg) + len(long_arg))]
    if before:
        regions.append((case.before_at, case.before_at + len(before)))
    p = corpus.core_parser(backend, fmt, case.types)
    silent = 0
    worst = 0
    for i, ch in enumerate(text):
        d = p.feed(ch)
        if any(a + 8 <= i < b for a, b in regions):
            silent = 0 if d is not None else silent + 1
            worst = max(worst, silent)
    p.finish()
    assert worst <= 4, f"{worst} consecutive silent feeds inside plain text / a string argument"
