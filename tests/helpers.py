"""The checks the format tests share: the ways of splitting a text into deltas, a stream rebuilt
as a client rebuilds it, and the check that the non-streaming result and every splitting agree
(content, reasoning, calls).

``tests/`` is on ``sys.path`` (``tests/conftest.py``): ``import helpers`` from any test module,
``tests/integrations/`` included, and from the installed-wheel run (``.ci/wheel``).
"""

from __future__ import annotations

import functools
import json
import random
from typing import Any, Dict, Iterator, List, Optional, Sequence, Tuple

import corpus
import toolparse
from pydantic import TypeAdapter
from toolparse import _core, reference

# [(name, arguments)]: the arguments as their exact JSON text, or as the value it must parse to
Calls = Sequence[Tuple[str, Any]]


def dumps(obj: Any) -> str:
    """JSON as the converted formats write it: ``json.dumps(obj, ensure_ascii=False)``."""
    return json.dumps(obj, ensure_ascii=False)


def plans(
    text: str, *, thirds: bool = True, cuts: bool = True, sample_over: Optional[int] = None
) -> List[List[str]]:
    """Whole, one character per delta, 3-character deltas (``thirds``) and every cut in two
    (``cuts``); past ``sample_over`` characters, a sample of about a hundred cuts."""
    out = [[text], list(text)]
    if thirds:
        out.append([text[i : i + 3] for i in range(0, len(text), 3)])
    if cuts:
        step = 1 if sample_over is None or len(text) <= sample_over else len(text) // 97
        out += [[text[:i], text[i:]] for i in range(1, len(text), step)]
    return out


def unit_splittings(units: Sequence[str]) -> Iterator[List[str]]:
    """Every way of cutting the concatenated ``units`` into deltas at unit boundaries."""
    n = len(units)
    for mask in range(1 << (n - 1)):
        chunks, cur = [], units[0]
        for k in range(1, n):
            if mask >> (k - 1) & 1:
                chunks.append(cur)
                cur = ""
            cur += units[k]
        chunks.append(cur)
        yield chunks


def stream(parser: Any, chunks: Sequence[str]) -> Tuple[Any, Any]:
    """``parser.stream()`` fed ``chunks`` then finished: the client's reconstructor (which checks
    the protocol) and the stream (``malformed``, ``truncated``)."""
    s = parser.stream()
    rec = toolparse.StreamingToolReconstructor(strict_order=True)
    for d in [s.feed(c) for c in chunks] + [s.finish()]:
        if d is not None:
            rec.append_delta(d)
    return rec, s


def calls_of(message: Any) -> List[Tuple[str, str]]:
    """[(name, arguments)] of a non-streaming result or a reconstructor."""
    return [(c.function.name, c.function.arguments) for c in message.tool_calls]


def check(
    parser: Any,
    text: str,
    content: Optional[str],
    calls: Calls,
    *,
    reasoning: Optional[str] = None,
    exact: bool = False,
    chunkings: Optional[List[List[str]]] = None,
) -> Any:
    """Non-streaming, then streaming under every plan of ``chunkings`` (default :func:`plans`):
    the same content, reasoning and calls, byte for byte; nothing malformed or truncated, every
    call's arguments a JSON object, call ids unique. With ``exact`` the arguments are the given
    strings (a value: its :func:`dumps`), else they parse to the given values. Returns the
    non-streaming result."""
    info = parser.extract_tool_calls(text)
    got = calls_of(info)
    if exact:
        assert got == [(n, a if isinstance(a, str) else dumps(a)) for n, a in calls]
    else:
        assert [(n, json.loads(a)) for n, a in got] == list(calls)
    assert info.tools_called == bool(calls)
    assert (info.content, info.reasoning) == (content, reasoning)
    assert not info.truncated
    assert all(isinstance(json.loads(a), dict) for _, a in got), "arguments are JSON objects"
    ids = [c.id for c in info.tool_calls]
    assert len(set(ids)) == len(ids), ids
    for chunks in plans(text) if chunkings is None else chunkings:
        rec, s = stream(parser, chunks)
        assert not s.malformed and not s.truncated, chunks
        assert calls_of(rec) == got, chunks
        assert (rec.other_content, rec.reasoning) == (content or "", reasoning or ""), chunks
    return info


def check_converted(
    fmt: str,
    backend: str,
    text: str,
    content: Optional[str],
    calls: Calls,
    every_split: bool = True,
    tools: Any = None,
) -> Any:
    """:func:`check` for a format whose arguments are converted to JSON (``calls``' values as
    :func:`dumps` writes them): whole, per character, in 3-character deltas and (``every_split``)
    cut in two at every offset."""
    parser = toolparse.get_parser(fmt, tools=tools, backend=backend)
    return check(parser, text, content, calls, exact=True, chunkings=plans(text, cuts=every_split))


def check_malformed(parser: Any, text: str, chunkings: Optional[List[List[str]]] = None) -> None:
    """Malformed markup: non-streaming gives the text back as content and no calls; every
    streaming of it is flagged malformed."""
    info = parser.extract_tool_calls(text)
    assert (info.tools_called, info.tool_calls, info.content) == (False, [], text)
    for chunks in plans(text) if chunkings is None else chunkings:
        assert stream(parser, chunks)[1].malformed, chunks


def twin_feeds(
    fmt: str, text: str, cuts: Sequence[int], types: Any = None
) -> Tuple[List[Any], List[Any]]:
    """The per-feed results of the Rust parser and its Python twin (given the tools' ``types``)
    fed ``text`` cut at ``cuts``, then finished, then (malformed, truncated)."""
    out = []
    for p in (_core.Parser(fmt, types), reference.Parser(fmt, types)):
        prev, feeds = 0, []
        for c in [*cuts, len(text)]:
            feeds.append(p.feed(text[prev:c]))
            prev = c
        feeds.append(p.finish())
        feeds.append((p.malformed, p.truncated))
        out.append(feeds)
    return out[0], out[1]


def check_twins_per_feed(fmt: str, text: str, step: int = 1) -> None:
    """The twins agree on ``extract`` and feed by feed: cut once at every ``step``-th offset, and
    one character per delta."""
    assert _core.extract(fmt, text) == reference.extract(fmt, text)
    for cuts in [[k] for k in range(0, len(text) + 1, step)] + [list(range(1, len(text)))]:
        rust, python = twin_feeds(fmt, text, cuts)
        assert rust == python, cuts


def random_edits(rnd: random.Random, text: str, pieces: Sequence[str]) -> str:
    """``text`` after up to nine random edits, each at a random place: one time in four the
    character there is removed, else one of ``pieces`` is inserted."""
    for _ in range(rnd.randrange(10)):
        at = rnd.randrange(len(text) + 1)
        if rnd.randrange(4) == 0:
            text = text[:at] + text[at + 1 :]
        else:
            text = text[:at] + rnd.choice(pieces) + text[at:]
    return text


def check_twins_on_random_cuts(
    fmt: str, text: str, types: Any, rnd: random.Random, times: int
) -> None:
    """The twins agree on ``text`` (given the tools' ``types``): ``extract``, and feed by feed
    cut at four random offsets, ``times`` times."""
    assert _core.extract(fmt, text, types) == reference.extract(fmt, text, types), text
    for _ in range(times):
        cuts = sorted(rnd.sample(range(len(text) + 1), min(len(text) + 1, 4)))
        rust, python = twin_feeds(fmt, text, cuts, types)
        assert rust == python, (text, cuts)


def core_outcome(p: Any, chunks: Sequence[str]) -> Tuple[str, str, List[Tuple[str, str, str]]]:
    """The core parser ``p`` fed ``chunks`` then finished, its per-feed tuples concatenated (the
    protocol checked): (content, reasoning, [(id, name, arguments)])."""
    s = corpus.accumulate(corpus.core_feed_all(p, chunks))
    return s.content, s.reasoning, [(i, n, a) for i, n, a in s.calls]


def tool(name: str, properties: Dict[str, Any], described: bool = False) -> Dict[str, Any]:
    """An OpenAI tool ``name`` taking an object with ``properties`` (described by its name). A
    property given as a type name (or a list of them) is the schema of that type."""
    props = {k: v if isinstance(v, dict) else {"type": v} for k, v in properties.items()}
    fn: Dict[str, Any] = {"name": name}
    if described:
        fn["description"] = name
    fn["parameters"] = {"type": "object", "properties": props}
    return {"type": "function", "function": fn}


@functools.cache
def sdk_adapter(t: Any) -> TypeAdapter:
    """One TypeAdapter per SDK type, kept alive: building one is slow, and a lazily validated
    ``Iterable`` field must not outlive its adapter."""
    return TypeAdapter(t)


def sdk_valid(sdk_type: Any, value: Any) -> Any:
    """``value`` validated as the SDK's TypedDict ``sdk_type`` (its lazily validated ``Iterable``
    fields consumed, so every nested item is checked), as plain dicts and lists."""
    return _materialise(sdk_adapter(sdk_type).validate_python(value))


def _materialise(x: Any) -> Any:
    if isinstance(x, dict):
        return {k: _materialise(v) for k, v in x.items()}
    if isinstance(x, (str, bytes)):
        return x
    if hasattr(x, "__iter__"):
        return [_materialise(v) for v in x]
    return x


def dsml(block: str, key: str) -> str:
    """The peers' DeepSeek DSML sample (vLLM's and SGLang's deepseek_v32 / v4 tests): one
    ``<｜DSML｜{block}>`` holding get_weather({key}: "杭州", days: 5), typed by ``string``."""
    return (
        f"<｜DSML｜{block}>\n"
        '<｜DSML｜invoke name="get_weather">\n'
        f'<｜DSML｜parameter name="{key}" string="true">杭州</｜DSML｜parameter>\n'
        '<｜DSML｜parameter name="days" string="false">5</｜DSML｜parameter>\n'
        "</｜DSML｜invoke>\n"
        f"</｜DSML｜{block}>"
    )


def pytest_in_fresh_interpreter(cases: str) -> None:
    """Run the test file ``cases`` with pytest in an interpreter of its own, from the repository
    (its pyproject.toml configures pytest), and fail with its output unless every case passed:
    for cases that register formats, which stay registered for the process while other tests
    count the registered formats."""
    import os
    import subprocess
    import sys

    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    cmd = [sys.executable, "-m", "pytest", cases, "-q", "-n", "0", "-p", "no:cacheprovider"]
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=1800, cwd=root)
    tail = r.stdout[-6000:] + r.stderr[-3000:]
    assert r.returncode == 0, tail
    assert " passed" in r.stdout and " failed" not in r.stdout, tail
