"""The ``inkling`` format (Thinking Machines' Inkling): vLLM's own test cases
(``tests/parser/engine/test_inkling.py``), both backends, streaming and not, every split, with the
reasoning its thinking blocks hold.

The output is a sequence of typed message blocks (``rust/formats/inkling.rs`` has the rules): the
prompt ends with ``<|message_model|>``; a block is an optional header, a content kind, its body
and ``<|end_message|>``. Thinking blocks are reasoning whether or not a reasoning format is given
(the ``inkling`` reasoning format names the same machine, as ``openai_gptoss`` names harmony's).

Decisions this file pins down, where they differ from vLLM 0.33's engine parser (its results were
taken from ``ParserManager.get_parser(tool_parser_name="inkling", ...)`` on these texts):

* thinking blocks are reasoning and a header before a block's kind is dropped with or without the
  reasoning format (vLLM's non-streaming path without ``--reasoning-parser`` drops the thinking
  and returns ``get_weatherhi`` for ``get_weather<|content_text|>hi``);
* the whitespace that ends each thinking block is dropped in both modes (vLLM's streaming trims
  each block, ``onetwo``; its non-streaming path trims only the end, ``one \\ntwo``), and only a
  run of at most 64 characters, as every ``trim`` reasoning format;
* a call body that is not one JSON object whose arguments are an object (invalid JSON, ``args``
  a list, no name, no JSON at all) is malformed markup: no call, the text is content (vLLM reports
  a call with the invalid text as arguments, or loses the block);
* ``arguments`` and ``parameters`` hold the arguments as ``args`` does (vLLM reports ``{}`` for
  them although its parser lists them), and a JSON string holding the object is decoded (vLLM:
  decoded without streaming, ``""`` streamed);
* marker text inside a JSON string is argument text (vLLM cuts the call at it);
* the call ends with its object: a missing end marker loses nothing (vLLM swallows the next
  blocks, or the next call, into the call), and text between the object and the end marker is
  content (vLLM drops it);
* an output that ends inside a call is truncated: the calls complete before it are kept; with
  none, non-streaming returns the text whole (vLLM reports the partial call);
* a list of calls after the call marker is malformed (vLLM reads it): the format writes one
  object per block;
* a header longer than 256 characters is content (a bare answer streams after that many
  characters; vLLM holds any header to its end marker);
* a ``<|content_invoke_tool_text|>`` block is content, as in vLLM (SGLang 0.5.23's detector makes
  it a call with an empty name and ``{"text": ...}`` arguments, which no client can run).
"""

from __future__ import annotations

import json
from typing import List, Optional, Tuple

import corpus
import pytest
import toolparse

BACKENDS = ("rust", "python")
FMT = "inkling"
M, X, T = "<|message_model|>", "<|content_text|>", "<|content_thinking|>"
J, TT, ER = "<|content_invoke_tool_json|>", "<|content_invoke_tool_text|>", "<|content_tool_error|>"
E, ES = "<|end_message|>", "<|content_model_end_sampling|>"


def tool(name: str, args: str, end: str = E) -> str:
    return f'{J}{{"name":"{name}","args":{args}}}{end}'


# (text, reasoning, content, [(name, arguments)])
CASES = [
    # vLLM TestNonStreaming
    ("hello world", None, "hello world", []),
    ("hello world" + E, None, "hello world", []),
    ("hello world" + ES, None, "hello world", []),
    (f"{X}hello world{E}", None, "hello world", []),
    (f"{T}I should check the weather.{E}{M}{X}Let me check.{E}{M}"
     + tool("get_weather", '{"city":"SF"}'),
     "I should check the weather.", "Let me check.", [("get_weather", '{"city":"SF"}')]),
    ("get_weather" + tool("get_weather", '{"city":"SF"}'), None, None,
     [("get_weather", '{"city":"SF"}')]),
    (tool("a", "{}") + M + tool("b", '{"x":[1,2]}'), None, None,
     [("a", "{}"), ("b", '{"x":[1,2]}')]),
    (tool("f", '{"q":{"deep":{"list":[{"k":"v"}]}},"s":"a}b"}'), None, None,
     [("f", '{"q":{"deep":{"list":[{"k":"v"}]}},"s":"a}b"}')]),
    (f"{TT}do something{E}", None, "do something", []),
    (f"{ER}boom{E}", None, "boom", []),
    (f"{T}hm{E}{M}{X}hi{ES}", "hm", "hi", []),
    (f"{T}one{E}{M}{X}mid{E}{M}{T}two{E}", "onetwo", "mid", []),
    (tool("f", "{}") + f"{M}{X}done{E}", None, "done", [("f", "{}")]),
    # vLLM TestStreaming / TestDelegatingTwoPass (whole text here; split below)
    (f"{X}Check this.{E}{M}" + tool("get_weather", '{"city":"San Francisco"}'), None,
     "Check this.", [("get_weather", '{"city":"San Francisco"}')]),
    (f"{T}thinking...{E}{M}{X}answer{E}", "thinking...", "answer", []),
    (tool("f", '{"a":1}') + M + tool("g", '{"b":[2]}'), None, None,
     [("f", '{"a":1}'), ("g", '{"b":[2]}')]),
    (tool("f", "{}") + M + tool("g", "{}") + f"{M}{X}after{E}", None, "after",
     [("f", "{}"), ("g", "{}")]),
    (f'{J}{{"name":"f","args":{{}}}}{ES}', None, None, [("f", "{}")]),
    (f"{T} context.{E}{M}search_documents_by_keyword"
     + tool("search_documents_by_keyword", "{}"),
     " context.", None, [("search_documents_by_keyword", "{}")]),
    (f"{TT}let me check{E}{M}" + tool("get_weather", '{"city":"SF"}'), None, "let me check",
     [("get_weather", '{"city":"SF"}')]),
    (f"{ER}let me check{E}{M}" + tool("get_weather", '{"city":"SF"}'), None, "let me check",
     [("get_weather", '{"city":"SF"}')]),
    ("someFn" + tool("get_weather", '{"city":"Seattle"}'), None, None,
     [("get_weather", '{"city":"Seattle"}')]),
    (f"{X}intro{E}" + tool("get_weather", '{"city":"Seattle"}'), None, "intro",
     [("get_weather", '{"city":"Seattle"}')]),
    (f"{T}plan{E}{M}" + tool("f", '{"x":1}'), "plan", None, [("f", '{"x":1}')]),
    # vLLM's converter cases (through a call): whitespace, a key named like the arguments key
    (J + '{ "name" : "x" , "args" : {"a": 1} }' + E, None, None,
     [("x", '{"a": 1}')]),
    (tool("args", '{"k":1}'), None, None, [("args", '{"k":1}')]),
    (f'{J}{{"name":"x"}}{E}', None, None, [("x", "{}")]),
    # probed on vLLM 0.33 (same results)
    (f"{T}plan \n{E}{M}{X}hi{E}", "plan", "hi", []),
    (f"{T}a{X}b{E}", f"a{X}b", None, []),
    (f"{T}a{M}b{E}", f"a{M}b", None, []),
    (f"{T}abc  ", "abc", None, []),
    (f"{T}{T}a{E}", "a", None, []),
    (f"{X}a{T}b{E}c", "b", "ac", []),
    ("abc" + E + "def", None, "abcdef", []),
    (f"{X}a{E}\n{M}{X}b{E}", None, "a\nb", []),
    (f"{X}hi \n{E}{M}" + tool("f", "{}"), None, "hi \n", [("f", "{}")]),
    (f"{X} \n{E}{M}" + tool("f", "{}"), None, None, [("f", "{}")]),
    (tool("f", "{}") + f"{M}{X}  done {E}", None, "  done ", [("f", "{}")]),
    ("  " + tool("f", "{}"), None, None, [("f", "{}")]),
    (f'{J}{{"args":{{"a":1}},"name":"f"}}{E}', None, None, [("f", '{"a":1}')]),
    (f'{J}{{"name":"f","args":{{"a":1}},"x":2}}{E}', None, None, [("f", '{"a":1}')]),
    (tool("f", "{}") + M, None, None, [("f", "{}")]),
    (tool("f", "{}") + M + "f", None, "f", [("f", "{}")]),
    (f"{X}hi{E}{M}name", None, "hiname", []),
    (f"{M}{E}x", None, "x", []),
    ("", None, None, []),
]  # fmt: skip


def run(
    backend: str, chunks: List[str], reasoning: Optional[str] = None
) -> Tuple[Optional[str], Optional[str], List[Tuple[str, str]], bool, bool]:
    """Streams through the facade: (reasoning, content, [(name, arguments)], malformed,
    truncated), as a client reconstructs them."""
    fmt = None if reasoning else FMT
    s = toolparse.get_parser(fmt, backend=backend, reasoning=reasoning).stream()
    rec = toolparse.StreamingToolReconstructor(strict_order=True)
    thought = []
    for d in [s.feed(c) for c in chunks] + [s.finish()]:
        if d is not None:
            rec.append_delta(d)
            if d.reasoning:
                thought.append(d.reasoning)
    calls = [(c.function.name, c.function.arguments) for c in rec.tool_calls]
    return "".join(thought) or None, rec.other_content or None, calls, s.malformed, s.truncated


def extract(backend: str, text: str, reasoning: Optional[str] = None):
    fmt = None if reasoning else FMT
    info = toolparse.get_parser(fmt, backend=backend, reasoning=reasoning).extract_tool_calls(text)
    calls = [(c.function.name, c.function.arguments) for c in info.tool_calls]
    return info.reasoning, info.content, calls, info.truncated


def splits(text: str) -> List[List[str]]:
    """Whole, one character at a time, and every cut in two."""
    return [[text], list(text)] + [[text[:i], text[i:]] for i in range(1, len(text))]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("reasoning", [None, "inkling"])
@pytest.mark.parametrize("text,thought,content,calls", CASES)
def test_peer_cases(
    backend: str,
    reasoning: Optional[str],
    text: str,
    thought: Optional[str],
    content: Optional[str],
    calls: List[Tuple[str, str]],
) -> None:
    """Non-streaming gives vLLM's result; every split streams the same, byte for byte."""
    assert extract(backend, text, reasoning) == (thought, content, calls, False)
    for c in calls:
        assert isinstance(json.loads(c[1]), dict)
    for chunks in splits(text):
        assert run(backend, chunks, reasoning) == (thought, content, calls, False, False), chunks


# (text, reasoning, content, calls, malformed, truncated): where vLLM differs (module doc)
PINNED = [
    # without a reasoning parser vLLM drops the thinking and keeps the header as content
    (f"{T}plan{E}{M}get_weather{X}hi{E}", "plan", "hi", [], False, False),
    # each thinking block loses the whitespace that ends it, in both modes; a longer run stays
    (f"{T}one \n{E}{M}{X}mid{E}{M}{T}two {E}", "onetwo", "mid", [], False, False),
    (f"{T}one{' ' * 65}{E}", "one" + " " * 65, None, [], False, False),
    # the other argument keys, and arguments as a JSON string
    (f'{J}{{"name":"f","arguments":{{"a":1}}}}{E}', None, None, [("f", '{"a":1}')], False, False),
    (f'{J}{{"name":"f","parameters":{{"a":1}}}}{E}', None, None, [("f", '{"a":1}')], False, False),
    (f'{J}{{"name":"f","args":"{{\\"a\\":1}}"}}{E}', None, None, [("f", '{"a":1}')], False, False),
    # marker text in a JSON string is argument text
    (tool("f", '{"a":"' + E + '"}'), None, None, [("f", '{"a":"' + E + '"}')], False, False),
    # the call ends with its object: the next block and the next call are read
    (f'{J}{{"name":"f","args":{{}}}}{M}{X}x{E}', None, "x", [("f", "{}")], False, False),
    (f'{J}{{"name":"f","args":{{}}}}{J}{{"name":"g","args":{{}}}}{E}', None, None,
     [("f", "{}"), ("g", "{}")], False, False),
    # text between the object and the end marker is content
    (f'{J}{{"name":"f","args":{{}}}} xyz{E}', None, " xyz", [("f", "{}")], False, False),
    # a header longer than 256 characters is content
    ("h" * 257 + tool("f", "{}"), None, "h" * 257, [("f", "{}")], False, False),
    ("h" * 256 + tool("f", "{}"), None, None, [("f", "{}")], False, False),
]  # fmt: skip


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("case", PINNED)
def test_pinned_differences(backend: str, case: tuple) -> None:
    """Where vLLM differs (see the module doc for what it does and why we do not)."""
    text, thought, content, calls, malformed, truncated = case
    assert extract(backend, text) == (thought, content, calls, truncated)
    for chunks in ([text], list(text), [text[: len(text) // 2], text[len(text) // 2 :]]):
        assert run(backend, chunks) == (thought, content, calls, malformed, truncated)


BAD = [
    tool("f", '{"a":tru}'),
    tool("f", "[1]"),
    f"{J}not json{E}",
    f"{J}{E}",
    f'{J}[{{"name":"f","args":{{}}}}]{E}',
    f'{J}{{"name":"","args":{{}}}}{E}',
    f'{J}{{"name":1,"args":{{}}}}{E}',
    f'{J}{{"name":"f","args":{{"a":1}}{E}',
    f"{X}Hi{E}{M}" + tool("ok", "{}") + M + tool("bad", '{"x":tru}'),
]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("text", BAD)
def test_malformed_is_content(backend: str, text: str) -> None:
    """A call body that is not one call object: no call, the text whole as content; the stream
    loses nothing after the bad markup either."""
    # (a call whose start was sent and that never ended is reported truncated as well)
    assert extract(backend, text)[:3] == (None, text, [])
    for chunks in ([text], list(text)):
        _, content, calls, malformed, _ = run(backend, chunks)
        assert malformed
        assert (content or "").endswith(E)
        if not calls:
            assert content == text


@pytest.mark.parametrize("backend", BACKENDS)
def test_truncated_keeps_complete_calls(backend: str) -> None:
    """vLLM reports a call cut off by the end of the output; we keep only complete calls (the
    stream has sent the cut call's start and says ``truncated``)."""
    text = f'{J}{{"name":"d","args":{{"k":"v"'
    assert extract(backend, text) == (None, text, [], True)
    assert run(backend, list(text)) == (None, None, [("d", '{"k":"v"')], False, True)
    text = tool("f", "{}") + M + f'{J}{{"name":"g","args":{{"b":[1,'
    assert extract(backend, text) == (None, None, [("f", "{}")], True)
    _, _, calls, _, truncated = run(backend, list(text))
    assert calls == [("f", "{}"), ("g", '{"b":[1,')] and truncated


@pytest.mark.parametrize("backend", BACKENDS)
def test_reasoning_format_names_the_same_machine(backend: str) -> None:
    """``reasoning="inkling"`` parses with the inkling tool format (no think-block front), alone
    or paired with it; any other tool format is refused."""
    text = f"{T}plan{E}{M}{X}Let me check.{E}{M}" + tool("f", '{"a":1}')
    want = ("plan", "Let me check.", [("f", '{"a":1}')], False)
    for fmt in (None, FMT):
        p = toolparse.get_parser(fmt, backend=backend, reasoning="inkling")
        assert p.name == FMT and p.reasoning == "inkling"
        info = p.extract_tool_calls(text)
        got = (
            info.reasoning,
            info.content,
            [(c.function.name, c.function.arguments) for c in info.tool_calls],
            info.truncated,
        )
        assert got == want
    with pytest.raises(ValueError, match="'inkling' is parsed by the 'inkling' tool format"):
        toolparse.get_parser("hermes", backend=backend, reasoning="inkling")
    assert "inkling" in toolparse.list_reasoning_formats()
    assert toolparse.format_for_model("thinkingmachines/Inkling") == FMT


@pytest.mark.parametrize("backend", BACKENDS)
def test_header_hold_back_is_bounded(backend: str) -> None:
    """A header is held until its kind marker shows, at most 256 characters: a bare answer
    streams from there on, and the header's 257th character makes it content however split."""
    p = corpus.core_parser(backend, FMT)
    assert p.feed("h" * 256) is None
    d = p.feed("h")
    assert d is not None and d[0] == "h" * 257
    assert p.feed(" more") is not None
    text = "x" * 10_000
    assert run(backend, [text[i : i + 7] for i in range(0, len(text), 7)])[1] == text


def test_twins_agree_on_the_generated_cases() -> None:
    """The Rust machine and its Python twin: the same events for every generated case, whole
    and one character at a time."""
    generated = [c.model_output for group in corpus.standard_cases(FMT).values() for c in group]
    texts = generated + BAD + [c[0] for c in CASES + PINNED]
    assert len(texts) > 40
    for text in texts:
        for chunks in ([text], list(text)):
            corpus.twin_stream(FMT, chunks)


@pytest.mark.parametrize("backend", BACKENDS)
def test_prompt_opened_thinking(backend: str) -> None:
    """vLLM seeds its state from the prompt: a prompt ending with ``<|content_thinking|>`` starts
    the output in reasoning. Here ``reasoning_started=True`` says so (with the ``inkling``
    reasoning format); by default the output starts in a header, where that text would be a bare
    answer."""
    text = f"abc {E}{M}{X}hello{E}"
    for fmt in (None, FMT):
        p = toolparse.get_parser(fmt, backend=backend, reasoning="inkling", reasoning_started=True)
        info = p.extract_tool_calls(text)
        assert (info.reasoning, info.content) == ("abc", "hello")
        for chunks in splits(text):
            s = p.stream()
            ds = [s.feed(c) for c in chunks] + [s.finish()]
            got = [
                "".join(getattr(d, k) or "" for d in ds if d is not None)
                for k in ("reasoning", "content")
            ]
            assert got == ["abc", "hello"], chunks
    for started in (None, False):
        p = toolparse.get_parser(
            FMT, backend=backend, reasoning="inkling", reasoning_started=started
        )
        info = p.extract_tool_calls(text)
        assert (info.reasoning, info.content) == (None, "abc hello")
    # without the reasoning format the flag has no block to open (as harmony's)
    assert toolparse.get_parser(FMT, backend=backend).extract_tool_calls(text).reasoning is None
