"""``check(parser, cases) -> Report``: holds a parser to the cases and to toolparse's invariants.

The parser is anything with toolparse's parser contract: ``extract_tool_calls(text)``
returning an object with ``tool_calls`` (each with ``function.name`` / ``function.arguments``) and
``content``, and ``stream()`` returning an object with ``feed(delta)`` and ``finish()`` that return
a delta (``content``, ``tool_calls`` with ``index``, ``id``, ``function``) or ``None``. It can be
given as:

* a format name: toolparse's own parser for it (``backend="rust"`` or ``"python"``);
* a parser object: used for every case (its tools are whatever it was built with);
* a callable ``tools -> parser`` (a parser class taking the tools, say): called per case with
  the case's OpenAI tool dicts;
* ``from_vllm(parser_cls, tokenizer)`` / ``from_sglang(detector)``.

Every case runs non-streaming and under every splitting of :func:`splittings`; a failure names the
case, the invariant that broke and the smallest splitting found that shows it.
"""

from __future__ import annotations

import json
import traceback
from dataclasses import dataclass, field
from typing import Any, Callable, Dict, Iterable, List, Optional, Sequence, Tuple

import toolparse

from .case import TestCase
from .splits import chunks_at, marker_cuts, splittings

__all__ = [
    "INVARIANTS",
    "Failure",
    "Report",
    "Result",
    "check",
    "subject_tools",
]

NO_EXCEPTION = "no exception"
EXPECTED_CALLS = "expected calls"
EXPECTED_CONTENT = "expected content"
EXPECTED_REASONING = "expected reasoning"
STREAM_EQ = "stream == non-stream"
SPLIT = "split-invariance"
PROTOCOL = "streaming protocol"
FALLBACK = "content fallback"
TRUNCATION = "truncated: complete calls kept"
INVARIANTS = (
    NO_EXCEPTION,
    EXPECTED_CALLS,
    EXPECTED_CONTENT,
    EXPECTED_REASONING,
    STREAM_EQ,
    SPLIT,
    PROTOCOL,
    FALLBACK,
    TRUNCATION,
)

# Names the hand-written malformed/truncated outputs call: a subject that needs every called
# function among its tools (SGLang drops calls to unknown tools) is given these too.
GENERIC_NAMES = ("f", "g", "func", "ok", "bad", "foo", "get_weather", "get_time", "raw")


@dataclass(frozen=True)
class Result:
    """What a parser made of a text: content, reasoning and ``[(name, arguments)]``."""

    content: Optional[str]
    reasoning: Optional[str]
    calls: Tuple[Tuple[str, str], ...]
    # whether the parser reports reasoning at all (vLLM's non-streaming result has no field
    # for it: its reasoning parser runs apart)
    reasoning_known: bool = True

    def __str__(self) -> str:
        parts = [f"calls={list(self.calls)!r}", f"content={self.content!r}"]
        if self.reasoning is not None:
            parts.append(f"reasoning={self.reasoning!r}")
        return " ".join(parts)


@dataclass(frozen=True)
class Failure:
    """One broken invariant on one case. ``splitting`` is the smallest splitting found that shows
    it (``None``: non-streaming)."""

    case: TestCase
    invariant: str
    splitting: Optional[List[str]]
    detail: str

    def __str__(self) -> str:
        where = "non-streaming" if self.splitting is None else f"deltas {self.splitting!r}"
        return (
            f"[{self.invariant}] {self.case.format}:{self.case.label} ({where})\n"
            f"    text: {self.case.model_output!r}\n    {self.detail}"
        )


@dataclass
class Report:
    """The outcome of :func:`check`: ``failures`` (at most one per case and invariant)."""

    parser: str
    cases: int = 0
    runs: int = 0
    failures: List[Failure] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.failures

    def by_invariant(self) -> Dict[str, List[Failure]]:
        out: Dict[str, List[Failure]] = {}
        for f in self.failures:
            out.setdefault(f.invariant, []).append(f)
        return out

    def summary(self) -> str:
        head = f"{self.parser}: {self.cases} cases, {self.runs} runs, {len(self.failures)} failures"
        counts = ", ".join(f"{k}: {len(v)}" for k, v in self.by_invariant().items())
        return head + (f" ({counts})" if counts else "")

    def __str__(self) -> str:
        return "\n".join([self.summary(), *(str(f) for f in self.failures)])

    def assert_ok(self) -> None:
        """Raises ``AssertionError`` with the report when anything failed."""
        if self.failures:
            raise AssertionError(str(self))


# ----- subjects -----


class _Subject:
    """How ``check`` gets a parser for a case."""

    def __init__(self, parser: Any, backend: str) -> None:
        self.name: str
        self.needs_all_tools = bool(getattr(parser, "needs_all_tools", False))
        if isinstance(parser, str):
            fmt = parser
            self.name = f"toolparse {fmt} ({backend})"
            self._make: Callable[[Any], Any] = lambda tools: toolparse.get_parser(
                fmt, tools=tools, backend=backend
            )
        elif (
            not isinstance(parser, type)
            and hasattr(parser, "extract_tool_calls")
            and hasattr(parser, "stream")
        ):
            self.name = str(getattr(parser, "name", None) or type(parser).__name__)
            self._make = lambda tools: parser
        elif callable(parser):
            self.name = str(
                getattr(parser, "name", None) or getattr(parser, "__name__", repr(parser))
            )
            self._make = parser
        else:
            raise TypeError(
                "check() takes a format name, a parser (extract_tool_calls + stream), a callable "
                f"tools -> parser, or from_vllm/from_sglang; got {type(parser).__name__}"
            )

    def parser_for(self, case: TestCase) -> Any:
        tools = subject_tools(case) if self.needs_all_tools else case.tools
        return self._make(tools)


def subject_tools(case: TestCase) -> List[Dict[str, Any]]:
    """The case's tools, else tools naming every function the case may call (arguments of any
    shape): for parsers that drop calls to functions they were not told of."""
    if case.tools:
        return list(case.tools)
    names = dict.fromkeys([c.name for c in case.tool_calls] + list(GENERIC_NAMES))
    return [
        {
            "type": "function",
            "function": {"name": n, "description": n, "parameters": {"type": "object"}},
        }
        for n in names
    ]


# ----- reading results (duck-typed: toolparse's models, vLLM's, SGLang adapters' dicts) -----


def _get(obj: Any, name: str) -> Any:
    if obj is None:
        return None
    if isinstance(obj, dict):
        return obj.get(name)
    return getattr(obj, name, None)


class ProtocolError(Exception):
    pass


def _extract(parser: Any, text: str) -> Result:
    info = parser.extract_tool_calls(text)
    calls = []
    for tc in _get(info, "tool_calls") or []:
        fn = _get(tc, "function")
        calls.append((str(_get(fn, "name")), str(_get(fn, "arguments") or "")))
    known = ("reasoning" in info) if isinstance(info, dict) else hasattr(info, "reasoning")
    return Result(_get(info, "content"), _get(info, "reasoning"), tuple(calls), known)


def _stream(parser: Any, chunks: Sequence[str]) -> Result:
    """Streams ``chunks`` and rebuilds the message as an OpenAI client does, checking the protocol:
    a call's first delta carries the next index, an id and the full name; later ones the index
    of a started call and an arguments fragment."""
    s = parser.stream()
    deltas = [s.feed(c) for c in chunks]
    deltas.append(s.finish())
    content, reasoning = "", ""
    has_reasoning = False
    calls: List[List[str]] = []
    for d in deltas:
        if d is None:
            continue
        content += _get(d, "content") or ""
        r = _get(d, "reasoning")
        if r is not None:
            has_reasoning = True
            reasoning += r
        for tc in _get(d, "tool_calls") or []:
            index = _get(tc, "index")
            fn = _get(tc, "function")
            name, args = _get(fn, "name"), _get(fn, "arguments") or ""
            if index == len(calls):
                if not name:
                    raise ProtocolError(f"call {index} starts without its name: {tc!r}")
                if not _get(tc, "id"):
                    raise ProtocolError(f"call {index} starts without an id: {tc!r}")
                calls.append([name, args])
            elif isinstance(index, int) and 0 <= index < len(calls):
                if name and name != calls[index][0]:
                    raise ProtocolError(f"call {index} renamed {calls[index][0]!r} -> {name!r}")
                calls[index][1] += args
            else:
                raise ProtocolError(f"delta for call index {index!r} after {len(calls)} calls")
    return Result(
        content or None,
        reasoning if has_reasoning and reasoning else None,
        tuple((n, a) for n, a in calls),
    )


# ----- comparing -----


def _args_key(a: str, strict: bool) -> Any:
    if strict:
        return a
    try:
        return json.dumps(json.loads(a), sort_keys=True)
    except ValueError:
        return a


def _text_key(s: Optional[str], strict: bool) -> Optional[str]:
    if strict:
        return s or None
    return (s or "").strip() or None


def _calls_key(calls: Iterable[Tuple[str, str]], strict: bool) -> List[Tuple[str, Any]]:
    return [(n, _args_key(a, strict)) for n, a in calls]


def _same(a: Result, b: Result, strict: bool, complete: Optional[int] = None) -> bool:
    if complete is not None:
        return _calls_key(a.calls[:complete], strict) == _calls_key(b.calls[:complete], strict)
    return (
        _calls_key(a.calls, strict) == _calls_key(b.calls, strict)
        and _text_key(a.content, strict) == _text_key(b.content, strict)
        and (
            not (a.reasoning_known and b.reasoning_known)
            or _text_key(a.reasoning, strict) == _text_key(b.reasoning, strict)
        )
    )


def _one_line(e: BaseException) -> str:
    tb = traceback.extract_tb(e.__traceback__)
    at = f" at {tb[-1].filename.rsplit('/', 1)[-1]}:{tb[-1].lineno}" if tb else ""
    return f"{type(e).__name__}: {e}{at}".replace("\n", " ")


# ----- the smallest splitting -----


def _cuts_of(chunks: Sequence[str]) -> List[int]:
    out, at = [], 0
    for c in chunks[:-1]:
        at += len(c)
        out.append(at)
    return out


def _smallest(
    text: str,
    chunks: List[str],
    fails: Callable[[List[str]], bool],
    markers: Sequence[str],
    budget: int,
) -> List[str]:
    """A splitting that still fails with as few deltas as could be found: one cut anywhere near a
    marker, then anywhere; else the failing splitting's cuts dropped one by one while it still
    fails (at most ``budget`` runs)."""
    if len(chunks) <= 2:
        return chunks
    runs = 0
    near = marker_cuts(text, markers)
    for cut in near + [c for c in range(1, len(text)) if c not in set(near)]:
        if runs >= budget // 2:
            break
        runs += 1
        trial = chunks_at(text, [cut])
        if fails(trial):
            return trial
    cuts = _cuts_of(chunks)
    i = 0
    while i < len(cuts) and runs < budget:
        trial_cuts = cuts[:i] + cuts[i + 1 :]
        runs += 1
        if fails(chunks_at(text, trial_cuts)):
            cuts = trial_cuts
        else:
            i += 1
    return chunks_at(text, cuts)


# ----- check -----


def check(
    parser: Any,
    cases: Sequence[TestCase],
    *,
    backend: str = "rust",
    strict: bool = False,
    seed: int = 0,
    n_random: int = 3,
    markers: Optional[Sequence[str]] = None,
    budget: int = 200,
) -> Report:
    """Runs every case through ``parser`` (see the module's doc for what it may be) and reports
    what broke.

    Invariants: ``no exception`` (a parser that raises fails that case, the run goes on);
    non-streaming gives the ``expected calls`` / ``expected content`` / ``expected reasoning``
    (well-formed and no-call cases), the whole text as content and no call for malformed markup
    (``content fallback``), the calls complete before the cut for truncated output
    (``truncated: complete calls kept``); the ``streaming protocol`` holds; streaming the whole
    text in one delta gives the non-streaming result (``stream == non-stream``; truncated: the
    complete calls) and every splitting gives the same result as one delta
    (``split-invariance``).

    ``strict=False`` compares arguments as JSON values and content without the whitespace at its
    ends (parsers re-serialise arguments and keep whitespace differently); ``strict=True``
    compares the texts exactly, as toolparse promises. ``markers`` (default: the format's spec
    markers) are where the splittings cut; ``seed`` seeds the random ones; ``budget`` bounds the
    runs spent looking for the smallest failing splitting of each failure.
    """
    subject = _Subject(parser, backend)
    report = Report(subject.name)
    for case in cases:
        report.cases += 1
        _check_case(subject, case, report, strict, seed, n_random, markers, budget)
    return report


def _markers_of(fmt: str) -> Tuple[str, ...]:
    try:
        return tuple(v for v in toolparse.spec.get_spec(fmt).markers.values() if v)
    except (KeyError, ValueError):
        return ()


def _ends_with_bare_start(fmt: str, text: str, content: Optional[str]) -> bool:
    """Whether ``text`` ends with one of ``fmt``'s call-start markers and only whitespace after
    it, and ``content`` keeps that marker."""
    try:
        starts = toolparse.spec.get_spec(fmt).call_starts()
    except (KeyError, ValueError):
        return False
    tail = text.rstrip(" \t\n\r")
    return any(
        m and tail.endswith(m) and (content or "").rstrip(" \t\n\r").endswith(m) for m in starts
    )


def _check_case(
    subject: _Subject,
    case: TestCase,
    report: Report,
    strict: bool,
    seed: int,
    n_random: int,
    markers: Optional[Sequence[str]],
    budget: int,
) -> None:
    text = case.model_output
    fail = report.failures
    try:
        parser = subject.parser_for(case)
    except Exception as e:  # noqa: BLE001 - a parser that raises fails its case
        fail.append(Failure(case, NO_EXCEPTION, None, f"building the parser: {_one_line(e)}"))
        return
    # --- non-streaming
    report.runs += 1
    got: Optional[Result] = None
    try:
        got = _extract(parser, text)
    except Exception as e:  # noqa: BLE001
        fail.append(Failure(case, NO_EXCEPTION, None, f"extract_tool_calls: {_one_line(e)}"))
    if got is not None:
        _check_expected(case, got, report, strict)
    # --- streaming
    markers = _markers_of(case.format) if markers is None else tuple(markers)
    plans = splittings(text, markers, seed=seed, n_random=n_random)
    complete = case.complete if case.kind == "truncated" else None

    def run(chunks: List[str]) -> Tuple[Optional[Result], Optional[str], Optional[str]]:
        """(result, invariant broken by raising, detail)"""
        report.runs += 1
        try:
            return _stream(parser, chunks), None, None
        except ProtocolError as e:
            return None, PROTOCOL, str(e)
        except Exception as e:  # noqa: BLE001
            return None, NO_EXCEPTION, f"stream: {_one_line(e)}"

    whole, bad, detail = run([text])
    if bad is not None:
        fail.append(Failure(case, bad, [text], detail or ""))
        return
    assert whole is not None
    if got is not None and case.kind != "malformed" and not _same(whole, got, strict, complete):
        fail.append(Failure(case, STREAM_EQ, [text], f"stream: {whole}\n    extract: {got}"))
    seen = set()
    for label, chunks in plans.items():
        if label == "whole":
            continue
        res, bad, detail = run(chunks)
        if bad is not None:
            if bad in seen:
                continue
            seen.add(bad)

            def raises(ch: List[str], bad: str = bad) -> bool:
                return run(ch)[1] == bad

            small = _smallest(text, chunks, raises, markers, budget)
            fail.append(Failure(case, bad, small, run(small)[2] or detail or ""))
            continue
        assert res is not None
        if SPLIT not in seen and not _same(res, whole, strict, complete):
            seen.add(SPLIT)

            def differs(ch: List[str]) -> bool:
                r = run(ch)[0]
                return r is not None and not _same(r, whole, strict, complete)

            small = _smallest(text, chunks, differs, markers, budget)
            r_small = run(small)[0]
            fail.append(
                Failure(
                    case,
                    SPLIT,
                    small,
                    f"this splitting: {r_small if r_small is not None else res}\n"
                    f"    one delta:      {whole}",
                )
            )


def _check_expected(case: TestCase, got: Result, report: Report, strict: bool) -> None:
    fail = report.failures
    if case.kind == "malformed":
        if got.calls or got.content != case.model_output:
            fail.append(Failure(case, FALLBACK, None, f"got {got}; expected no call and the text"))
        return
    if case.kind == "truncated":
        if len(got.calls) != case.complete:
            fail.append(
                Failure(
                    case,
                    TRUNCATION,
                    None,
                    f"got {len(got.calls)} calls ({got}); {case.complete} complete before the cut",
                )
            )
        elif _ends_with_bare_start(case.format, case.model_output, got.content):
            fail.append(
                Failure(
                    case,
                    TRUNCATION,
                    None,
                    f"got {got}; a call-start marker with only whitespace after it at the end is "
                    "a cut before the call began, not content",
                )
            )
        return
    want = case.calls
    if _calls_key(got.calls, strict) != _calls_key(want, strict):
        fail.append(
            Failure(
                case, EXPECTED_CALLS, None, f"got      {list(got.calls)!r}\n    expected {want!r}"
            )
        )
    if _text_key(got.content, strict) != _text_key(case.content, strict):
        fail.append(
            Failure(
                case,
                EXPECTED_CONTENT,
                None,
                f"got {got.content!r}, expected {case.content!r}",
            )
        )
    if got.reasoning_known and _text_key(got.reasoning, strict) != _text_key(
        case.reasoning, strict
    ):
        fail.append(
            Failure(
                case,
                EXPECTED_REASONING,
                None,
                f"got {got.reasoning!r}, expected {case.reasoning!r}",
            )
        )
