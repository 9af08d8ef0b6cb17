"""Cases, splittings and toolparse's own results for the tests that run toolparse inside vLLM and
SGLang (tests/integrations/): one copy for both servers."""

from __future__ import annotations

import random
import re
from typing import Any, Dict, List, Optional, Tuple

import corpus
import toolparse


def tools_for(names: List[str], typed: Optional[List[Dict[str, Any]]] = None) -> List[Dict]:
    """OpenAI tools naming every called function (servers pass text through without tools)."""
    tools = [dict(t) for t in typed or []]
    have = {t["function"]["name"] for t in tools}
    for n in dict.fromkeys(names + ["get_weather"]):
        if n not in have:
            tools.append(
                {
                    "type": "function",
                    "function": {"name": n, "parameters": {"type": "object", "properties": {}}},
                }
            )
    return tools


def token_chunks(text: str) -> List[str]:
    """Token-like deltas: words, runs of punctuation and whitespace, at most 4 characters."""
    out = []
    for m in re.finditer(r"\w+|\s+|[^\w\s]+", text):
        piece = m.group(0)
        out.extend(piece[i : i + 4] for i in range(0, len(piece), 4))
    return out


def splittings(text: str, seed: int) -> Dict[str, List[str]]:
    rng = random.Random(seed)
    return {
        "one_delta": [text],
        "tokens": token_chunks(text),
        "chars": list(text),
        "random": corpus.random_chunks(text, rng, max_cuts=12),
    }


def cases_of(fmt: str) -> List[Tuple[str, str, Any, List[str]]]:
    """One case of every pattern and form (the JSON styles are the parser's concern, tested in
    the core suite), the composite case, no-call texts and malformed ones."""
    out = []
    for cases in corpus.standard_cases(fmt).values():
        seen = set()
        for case in cases:
            form = case.label.split("/")[1]
            if form not in seen:
                seen.add(form)
                out.append((case.label, case.text, case.tools, [n for n, _ in case.calls]))
    c = corpus.composite_case(fmt)
    out.append(("composite", c.text, c.tools, [n for n, _ in c.calls]))
    for i, text in enumerate(corpus.no_call_texts(fmt)):
        out.append((f"no_call/{i}", text, None, []))
    for i, text in enumerate(corpus.malformed_texts(fmt)):
        out.append((f"malformed/{i}", text, None, re.findall(r"\w+", text)[:8]))
    return out


def toolparse_result(
    fmt: str, backend: str, text: str, tools: List[Dict[str, Any]]
) -> Tuple[Optional[str], List[Tuple[str, str]]]:
    info = toolparse.get_parser(fmt, tools=tools, backend=backend).extract_tool_calls(text)
    return info.content or None, [(c.function.name, c.function.arguments) for c in info.tool_calls]


def toolparse_streamed(
    fmt: str, backend: str, chunks: List[str], tools: List[Dict[str, Any]]
) -> Tuple[Optional[str], List[Tuple[str, str]], bool]:
    """toolparse's own public streaming API on the same deltas: (content, calls, whether a
    streamed call was left unfinished)."""
    stream = toolparse.get_parser(fmt, tools=tools, backend=backend).stream()
    rec = toolparse.StreamingToolReconstructor()
    for c in chunks:
        d = stream.feed(c)
        if d is not None:
            rec.append_delta(d)
    d = stream.finish()
    if d is not None:
        rec.append_delta(d)
    calls = [(c.function.name, c.function.arguments) for c in rec.tool_calls]
    return rec.other_content or None, calls, stream.unfinished_call is not None


def same_model_object(got: Any, want: Any, where: str) -> None:
    """Deep identity of two of a server's pydantic delta objects (the Rust core's and the Python
    builder's): class, ``__dict__`` order and values, fields set, extra (equal, and a dict of its
    own where there is one) and private slots."""
    assert type(got) is type(want), where
    if hasattr(want, "__pydantic_fields_set__"):
        assert list(got.__dict__) == list(want.__dict__), where
        assert got.__pydantic_fields_set__ == want.__pydantic_fields_set__, where
        assert got.__pydantic_extra__ == want.__pydantic_extra__, where
        if want.__pydantic_extra__ is not None:
            assert type(got.__pydantic_extra__) is dict, where
        assert got.__pydantic_private__ is None and want.__pydantic_private__ is None, where
        for key, value in want.__dict__.items():
            same_model_object(got.__dict__[key], value, where)
    elif isinstance(want, list):
        assert len(got) == len(want), where
        for g, w in zip(got, want):
            same_model_object(g, w, where)
    else:
        assert got == want, where
