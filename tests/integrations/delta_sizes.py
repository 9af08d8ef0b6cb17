"""Many tokens per delta, through the servers (the tests test_vllm_delta_sizes.py and
test_sglang_delta_sizes.py drive it, each through its server's own serving code).

A server hands its tool parser one delta per engine step, and an engine step can bring many tokens:
speculative decoding and multi-token prediction accept several draft tokens at once, and
``--stream-interval N`` sends N tokens per chunk; at the end of a fast stream one delta can hold
two whole calls. Here the conformance kit's texts with several calls are cut into deltas of 1, 2,
4, 8 and 32 "tokens" and whole, and every format's result through the server must be the server's
own non-streaming result each time.

No tokenizer can be downloaded, so a token is what a tokenizer of that model would plausibly make:
a special token of the format (its spec's ``special_tokens``) whole, else a word of up to four
characters, a run of up to four whitespace characters or up to two punctuation characters.
A second tokenization, "plain", knows no special tokens (a checkpoint whose markers are ordinary
text): the markers are cut like any text, so a delta boundary falls inside them.

Every text is measured once, fed to toolparse one character at a time: where each call's start is
streamed and where it ends (``stream.open_call`` moves on), and where the format's markers are.
From that, each test knows what its splittings cover, and asserts that they cover, for every
format, two calls in one delta, a call's end and the next call's start in one delta, an
empty-argument call's end and the next call's start in one delta, and a delta boundary inside a
marker (where the format has a marker of two characters or more).
"""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass
from typing import Callable, Dict, List, Optional, Sequence, Set, Tuple

import pytest
import toolparse
import toolparse.spec
from server_cases import tools_for
from toolparse.testing import TestCase, composite_case, renderer, standard_cases

SIZES = (1, 2, 4, 8, 32)  # tokens per delta; the whole output in one delta besides
# the kit's groups of cases with several calls (text_between only where text may surround calls)
GROUPS = ("parallel", "no_arguments_parallel", "text_between")
# what the splittings of every format must cover (see check_format)
TWO_CALLS = "two calls in one delta"
END_AND_START = "a call's end and the next call's start in one delta"
EMPTY_AND_NEXT = "an empty-argument call's end and the next call's start in one delta"
MARKER_SPLIT = "a marker split across deltas"
FEATURES = (TWO_CALLS, END_AND_START, EMPTY_AND_NEXT, MARKER_SPLIT)

# three calls as short as the format writes them: two of them fit in one delta of a few tokens
SHORT_CALLS = [("f", {}), ("g", {}), ("h", {"x": 1})]

_PLAIN = r"\w{1,4}|\s{1,4}|[^\w\s]{1,2}"


def tokens(text: str, special: Sequence[str] = ()) -> List[str]:
    """``text`` as tokens: each of ``special`` whole (the longest first), the rest in words of up
    to four characters, whitespace runs of up to four and punctuation runs of up to two."""
    pattern = _PLAIN
    if special:
        pattern = "|".join(re.escape(s) for s in sorted(special, key=len, reverse=True))
        pattern += "|" + _PLAIN
    out = re.findall(pattern, text, flags=re.DOTALL)
    assert "".join(out) == text, "the tokens must cover the text"
    return out


def deltas(toks: Sequence[str], size: int, phase: int = 0) -> List[str]:
    """``size`` tokens per delta, the first holding ``phase`` tokens when ``phase`` > 0 (the
    engine's steps need not start where the output does)."""
    cuts = ([phase] if phase else []) + list(range(phase + size, len(toks), size))
    bounds = [0, *cuts, len(toks)]
    return ["".join(toks[a:b]) for a, b in zip(bounds, bounds[1:]) if b > a]


def tokenizations(fmt: str, text: str) -> Dict[str, List[str]]:
    """The text as tokens of a tokenizer with the format's special tokens ("special") and, when
    it has any, of one without them ("plain")."""
    special = toolparse.spec.get_spec(fmt).special_tokens
    out = {"special": tokens(text, special)}
    if special:
        out["plain"] = tokens(text)
    return out


def texts(fmt: str, exhaustive: bool = False) -> List[TestCase]:
    """The kit's cases with several calls: one case of each group in ``GROUPS`` and of
    ``SHORT_CALLS`` (every form of the markup when ``exhaustive``, else one form, a different one
    for each group), the first JSON spelling of each, and the composite case."""
    out = []
    for g, group in enumerate(GROUPS):
        firsts: Dict[str, TestCase] = {}
        for case in standard_cases(fmt).get(group, []):
            firsts.setdefault(case.label.split("/")[1], case)
        forms = list(firsts.values())
        if forms:
            out += forms if exhaustive else [forms[g % len(forms)]]
    r = renderer(fmt)
    for form in r.forms if exhaustive else r.forms[-1:]:
        out.append(r.render(SHORT_CALLS, form=form, label=f"short_calls/{form}"))
    out.append(composite_case(fmt))
    return out


def case_tools(case: TestCase) -> List[Dict]:
    return tools_for([c.name for c in case.tool_calls], case.tools)


@dataclass(frozen=True)
class Landmarks:
    """Where things happen in a text, as counts of characters fed: ``starts[i]`` once call i's
    start is streamed, ``ends[i]`` once it is closed (None: only at the end of the output);
    ``markers``: the spans of the format's markers of two characters or more; ``empty[i]``:
    whether call i has no arguments."""

    starts: Tuple[int, ...]
    ends: Tuple[Optional[int], ...]
    markers: Tuple[Tuple[int, int], ...]
    empty: Tuple[bool, ...]


def landmarks(fmt: str, case: TestCase) -> Landmarks:
    """The text's landmarks, from toolparse fed one character at a time (where a call's start is
    streamed and where it ends do not depend on the splitting: the machine is split-invariant)."""
    stream = toolparse.get_parser(fmt, tools=case_tools(case)).stream()
    text = case.model_output
    starts: List[int] = []
    ends: Dict[int, int] = {}
    for fed, ch in enumerate(text, 1):
        d = stream.feed(ch)
        for tc in (d.tool_calls or []) if d is not None else []:
            if tc.function is not None and tc.function.name:
                starts.append(fed)
        for i in range(len(starts)):
            if i not in ends and stream.open_call != i:
                ends[i] = fed
    stream.finish()
    spans = set()
    for m in renderer(fmt).markers:
        at = text.find(m) if len(m) > 1 else -1
        while at != -1:
            spans.add((at, at + len(m)))
            at = text.find(m, at + 1)
    assert len(starts) == len(case.tool_calls), (fmt, case.label, starts)
    return Landmarks(
        tuple(starts),
        tuple(ends.get(i) for i in range(len(starts))),
        tuple(sorted(spans)),
        tuple(c.arguments == "{}" for c in case.tool_calls),
    )


def _offsets(pieces: Sequence[str]) -> List[int]:
    """Where each piece ends, in characters of the text."""
    out, at = [], 0
    for p in pieces:
        at += len(p)
        out.append(at)
    return out


def _piece_of(pieces: Sequence[str]) -> Callable[[int], int]:
    """The index of the piece (delta, token) whose feeding brings the count of characters fed to
    a given count."""
    ends_at = _offsets(pieces)
    return lambda fed: bisect.bisect_left(ends_at, fed)


def _gaps(lm: Landmarks, where: Callable[[int], int]) -> Dict[str, Tuple[int, int]]:
    """For each feature about calls: (how far apart, in units of ``where``, the two landmarks that
    make it are at their closest, where the first of them is)."""
    out: Dict[str, Tuple[int, int]] = {}

    def keep(feature: str, a: int, b: int) -> None:
        if feature not in out or where(b) - where(a) < out[feature][0]:
            out[feature] = (where(b) - where(a), where(a))

    for i in range(len(lm.starts) - 1):
        keep(TWO_CALLS, lm.starts[i], lm.starts[i + 1])
        end = lm.ends[i]
        if end is not None:
            keep(END_AND_START, end, lm.starts[i + 1])
            if lm.empty[i]:
                keep(EMPTY_AND_NEXT, end, lm.starts[i + 1])
    return out


def _marker_split(lm: Landmarks, pieces: Sequence[str]) -> bool:
    """Whether a boundary between ``pieces`` falls inside a marker."""
    return any(s < b < e for b in _offsets(pieces)[:-1] for s, e in lm.markers)


def features(lm: Landmarks, chunks: Sequence[str]) -> Set[str]:
    """Which of ``FEATURES`` the splitting ``chunks`` of the text has."""
    out = {f for f, (gap, _) in _gaps(lm, _piece_of(chunks)).items() if gap == 0}
    return out | ({MARKER_SPLIT} if _marker_split(lm, chunks) else set())


def reachable(lm: Landmarks, toks: Sequence[str], size: int) -> Set[str]:
    """The features some splitting of ``toks`` into deltas of ``size`` tokens has."""
    out = {f for f, (gap, _) in _gaps(lm, _piece_of(toks)).items() if gap < size}
    return out | ({MARKER_SPLIT} if _marker_split(lm, toks) else set())


def plans(
    fmt: str, case: TestCase, lm: Landmarks, exhaustive: bool = False
) -> Dict[str, Tuple[Optional[int], List[str]]]:
    """The splittings of the case's text by label ``tokenization/size/phase`` (and ``whole``), each
    with its size in tokens (None: the whole output).

    Exhaustive: both tokenizations, every size, every phase. Sampled (the default run): every size
    at phase 0 and at the phases that start a delta where each feature's first landmark is (so a
    feature within ``size`` tokens is in one delta), for the plain tokenization at phase 0 only.
    """
    text = case.model_output
    out: Dict[str, Tuple[Optional[int], List[str]]] = {"whole": (None, [text])}
    for name, toks in tokenizations(fmt, text).items():
        firsts = [t for _, t in _gaps(lm, _piece_of(toks)).values()]
        for size in SIZES:
            if exhaustive:
                phases = set(range(size))
            elif name == "special":
                phases = {0, *(t % size for t in firsts)}
            else:
                phases = {0}
            for phase in sorted(phases):
                out[f"{name}/{size}/{phase}"] = (size, deltas(toks, size, phase))
    return out


@dataclass
class Served:
    """What a client got from the server: content, the calls as ``(id, name, arguments)``, their
    indices and the finish_reason (None for a non-streamed result that has none)."""

    content: Optional[str]
    calls: List[Tuple[str, str, str]]
    indices: List[int]
    finish: Optional[str] = None

    def message(self) -> Tuple[Optional[str], List[Tuple[str, str]]]:
        return self.content, [(name, args) for _id, name, args in self.calls]


# (format, tools, chunks) -> what the server streamed; (format, tools, text) -> its non-streamed
StreamFn = Callable[[str, List[Dict], List[str]], Served]
ExtractFn = Callable[[str, List[Dict], str], Served]


def check_format(
    fmt: str, stream: StreamFn, extract: ExtractFn, exhaustive: bool = False
) -> Dict[str, Optional[int]]:
    """Every text of ``fmt`` under every splitting of ``plans``, through the server: the streamed
    message equals the server's non-streamed one (itself the kit's expected calls and content),
    ids present and unique (equal to the non-streamed ones where the server's are not random),
    indices 0, 1, ... and finish_reason "tool_calls".

    Coverage: for each text, every feature some splitting into at most 32 tokens per delta could
    have, one of its splittings has; for the format, every feature in some splitting (a marker
    split where a tokenization cuts inside one of its markers; the others at least in the whole
    output, where the calls are too long for two of them to fit in 32 tokens). Returns, per
    feature, the smallest delta size (tokens) that had it (None: only the whole output)."""
    seen: Dict[str, List[int]] = {}  # feature -> the sizes that had it (0: the whole output)
    required = {TWO_CALLS, END_AND_START, EMPTY_AND_NEXT}
    for case in texts(fmt, exhaustive):
        text, tools = case.model_output, case_tools(case)
        want = extract(fmt, tools, text)
        where = f"{fmt} {case.label}"
        expected = [(c.name, c.arguments) for c in case.tool_calls]
        assert want.message() == (case.content, expected), f"{where}: non-streamed != the kit"
        ids = [i for i, _, _ in want.calls]
        assert all(ids) and len(set(ids)) == len(ids), f"{where}: ids {ids}"
        fixed_ids = [i for i, _, _ in extract(fmt, tools, text).calls] == ids
        assert want.indices == list(range(len(ids))), f"{where}: indices {want.indices}"
        lm = landmarks(fmt, case)
        covered: Set[str] = set()
        for label, (size, chunks) in plans(fmt, case, lm, exhaustive).items():
            got = stream(fmt, tools, chunks)
            at = f"{where} {label} ({len(chunks)} deltas): {chunks!r}"
            assert got.message() == want.message(), at
            got_ids = [i for i, _, _ in got.calls]
            assert all(got_ids) and len(set(got_ids)) == len(got_ids), f"{at}: ids {got_ids}"
            if fixed_ids:
                assert got_ids == ids, f"{at}: ids {got_ids} != non-streamed {ids}"
            assert got.indices == want.indices, at
            assert got.finish == "tool_calls", at
            for feature in features(lm, chunks):
                seen.setdefault(feature, []).append(size or 0)
                if size is not None:
                    covered.add(feature)
        could = set().union(*(reachable(lm, t, 32) for t in tokenizations(fmt, text).values()))
        assert could <= covered, f"{where}: no splitting has {sorted(could - covered)}"
        required |= could & {MARKER_SPLIT}
    missing = sorted(required - set(seen))
    assert not missing, f"{fmt}: no splitting has {missing}"
    return {f: min((s for s in sizes if s), default=None) for f, sizes in seen.items()}


def server_tests(stream: StreamFn, extract: ExtractFn) -> Tuple[Callable[..., None], ...]:
    """The tests a server's file runs over its ``stream`` and ``extract``, for every format:
    ``test_many_tokens_per_delta`` (sampled phases and forms) and, under ``-m exhaustive``,
    ``test_many_tokens_per_delta_every_phase``. Each asks for the file's ``backend`` fixture (the
    toolparse backend the server's registry holds): the sampled test drives both backends, the
    every-phase sweep the Rust one the servers load (the Python twin's equality with it on every
    split offset is the core suite's exhaustive run; driving the sweep through the servers twice
    doubled the longest CI step)."""
    formats = toolparse.list_formats()

    @pytest.mark.parametrize("fmt", formats)
    def test_many_tokens_per_delta(fmt: str, backend: str) -> None:
        check_format(fmt, stream, extract)

    @pytest.mark.exhaustive
    @pytest.mark.parametrize("backend", ["rust"], indirect=True)
    @pytest.mark.parametrize("fmt", formats)
    def test_many_tokens_per_delta_every_phase(fmt: str, backend: str) -> None:
        check_format(fmt, stream, extract, exhaustive=True)

    return test_many_tokens_per_delta, test_many_tokens_per_delta_every_phase
