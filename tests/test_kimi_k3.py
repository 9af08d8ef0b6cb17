"""``kimi_k3``: Kimi K3's XTML tool calls, a spec entry of the ``xml_params`` family. The peers'
own cases (vLLM 0.33 ``kimi_k3_tool_parser.py`` and its tests, SGLang 0.5.23
``kimik3_detector.py``), both backends, streaming and not, every split of short texts.

The wire format (vLLM's structural tag and K3's encoder)::

    <|open|>response<|sep|>TEXT<|close|>response<|sep|>
    <|open|>tools<|sep|><|open|>call tool="N" index="1"<|sep|>
    <|open|>argument key="K" type="T"<|sep|>V<|close|>argument<|sep|>...<|close|>call<|sep|>...
    <|close|>tools<|sep|><|close|>message<|sep|>

with nothing between the blocks (the layout above is for reading). Ids are ours
(``chatcmpl-tool-``): neither peer reads ``index`` as an id.

Decisions this file pins down, where they differ from a peer:

* text after the tools channel is content (both peers drop it), as for every format here;
* ``<|close|>message<|sep|>`` is dropped in streaming too (vLLM 0.33's streaming sends it; its
  newer test ``test_streaming_content_holds_split_message_close`` drops it, as SGLang does);
* a string value runs to the ``<|close|>argument<|sep|>`` that the next block (or the call's end)
  follows, so a value may hold that marker as text (both peers end it at the first one and drop
  the rest: their documented "known limitation");
* a ``type`` the encoder never writes (not string/number/integer/boolean/null/object/array) is
  malformed (the peers read it as JSON); ``index`` before ``tool``, an empty name and an empty
  tools channel are not calls: their text is content (the peers read them as a call, drop the
  call, and drop the channel);
* reasoning ``kimi_k3`` (``<|open|>think<|sep|>`` ... ``<|close|>think<|sep|>``, opened by the
  prompt): the tools channel ends an open block (SGLang; vLLM keeps it in the reasoning); a
  turn that skipped its think channel and ends ``<|close|>response<|sep|>`` stays reasoning
  (vLLM; SGLang reads it as content); without the ``kimi_k3`` tool format (no tool format, or
  another one) the closing channel markers ``<|close|>response<|sep|>`` and
  ``<|close|>message<|sep|>`` are still markup, dropped from content, as vLLM 0.33's kimi_k3
  reasoning parser strips them (the reasoning spec's ``dropped``);
* calls stream: a call starts at its name and string values are sent as they arrive (vLLM and
  SGLang send each call whole once its ``<|close|>call<|sep|>`` is there).
"""

from __future__ import annotations

from typing import Any, List, Optional, Tuple

import corpus
import helpers
import pytest
import toolparse
from toolparse import _core, reference

BACKENDS = ("rust", "python")
Calls = List[Tuple[str, str]]

RO, RC, MC = "<|open|>response<|sep|>", "<|close|>response<|sep|>", "<|close|>message<|sep|>"
TO, TC = "<|open|>tools<|sep|>", "<|close|>tools<|sep|>"


def arg(key: str, ty: Optional[str], value: str) -> str:
    head = "" if ty is None else f' type="{ty}"'
    return f'<|open|>argument key="{key}"{head}<|sep|>{value}<|close|>argument<|sep|>'


def call(name: str, index: int, *args: str) -> str:
    return f'<|open|>call tool="{name}" index="{index}"<|sep|>{"".join(args)}<|close|>call<|sep|>'


def tools(*calls: str) -> str:
    return TO + "".join(calls) + TC


# (text, content, [(name, arguments)])
CASES: List[Tuple[str, Optional[str], Calls]] = [
    # vLLM test_streaming_content_stops_at_message_close
    ("Hello" + MC, "Hello", []),
    (RO + "Hello" + RC + MC, "Hello", []),
    ("plain text", "plain text", []),
    # SGLang's docstring example
    (RO + "text" + RC + tools(call("name", 1, arg("k", "string", "raw text"))),
     "text", [("name", '{"k": "raw text"}')]),
    # the response channel's open marker consumed as the generation prefix
    ("Thinking done." + RC + tools(call("get_weather", 1, arg("city", "string", "北京 🎉")),
                                   call("get_time", 2)) + MC,
     "Thinking done.", [("get_weather", '{"city": "北京 🎉"}'), ("get_time", "{}")]),
    # typed values are JSON (re-written as json.dumps writes them), strings raw
    (tools(call("f", 1, arg("b", "boolean", "true"), arg("z", "null", "null"),
                arg("l", "array", '[1, "é", {"k": []}]'), arg("s", "string", "123"),
                arg("t", "string", 'a < b "q"\nline'))),
     None, [("f", '{"b": true, "z": null, "l": [1, "é", {"k": []}], "s": "123", '
                  '"t": "a < b \\"q\\"\\nline"}')]),
    (tools(call("f", 1, arg("n", "number", "1e2"), arg("m", "number", "-0.0"),
                arg("k", "number", " 7 "), arg("i", "integer", "1.50"))),
     None, [("f", '{"n": 100.0, "m": -0.0, "k": 7, "i": 1.5}')]),
    (tools(call("f", 1, arg("o", "object", '{"a":1,"b":{"c":"ü"}}'))),
     None, [("f", '{"o": {"a": 1, "b": {"c": "ü"}}}')]),
    # a typed value that is not JSON stays the raw text (both peers)
    (RO + "Hi" + RC + tools(call("f", 1, arg("a", "number", "1.50"), arg("b", "object", "{bad"))),
     "Hi", [("f", '{"a": 1.5, "b": "{bad"}')]),
    # no type attribute: a string (both peers)
    (tools(call("f", 1, arg("n", None, "5"))), None, [("f", '{"n": "5"}')]),
    # attribute escapes undone in names and keys (&quot; before &amp;)
    (tools(call("a&amp;b", 1, arg("k&quot;1", "string", "v"), arg("x&amp;quot;", "string", "w"))),
     None, [("a&b", '{"k\\"1": "v", "x&quot;": "w"}')]),
    # a call outside the tools channel is text (both peers)
    (call("f", 1), call("f", 1), []),
    # text after the channel: content (both peers drop it)
    (RO + "Hi" + RC + tools(call("f", 1)) + "after" + MC, "Hiafter", [("f", "{}")]),
]  # fmt: skip

MALFORMED = [
    tools(call("f", 1, "junk")),
    # a type the encoder never writes (the peers read it as JSON)
    tools(call("f", 1, arg("a", "weird", "[1,2]"))),
]


def streamed(backend: str, chunks: List[str]) -> Tuple[str, Calls, bool, bool]:
    """Streams through the facade: (content, [(name, arguments)], malformed, truncated)."""
    return corpus.stream_outcome(toolparse.get_parser("kimi_k3", backend=backend), chunks)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("text,content,calls", CASES)
def test_peer_cases(backend: str, text: str, content: Optional[str], calls: Calls) -> None:
    parser = toolparse.get_parser("kimi_k3", backend=backend)
    chunkings = helpers.plans(text, sample_over=200)
    info = helpers.check(parser, text, content, calls, exact=True, chunkings=chunkings)
    assert all(c.id.startswith("chatcmpl-tool-") for c in info.tool_calls)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("text", MALFORMED)
def test_malformed(backend: str, text: str) -> None:
    info = toolparse.get_parser("kimi_k3", backend=backend).extract_tool_calls(text)
    assert (info.tools_called, info.tool_calls, info.content) == (False, [], text)
    for chunks in ([text], list(text)):
        assert streamed(backend, chunks)[2]


@pytest.mark.parametrize("backend", BACKENDS)
def test_truncated(backend: str) -> None:
    for text, n in corpus.TRUNCATED["kimi_k3"]:
        corpus.check_truncated_output("kimi_k3", backend, text, n)


@pytest.mark.parametrize("backend", BACKENDS)
def test_message_close_split_anywhere(backend: str) -> None:
    """vLLM's test_streaming_content_holds_split_message_close: the end-of-turn marker never
    reaches the content, however the deltas cut it (vLLM 0.33's own streaming sends it)."""
    text = "Hello" + MC
    for size in (1, 3, 7, len(text)):
        chunks = [text[i : i + size] for i in range(0, len(text), size)]
        assert streamed(backend, chunks) == ("Hello", [], False, False), size


@pytest.mark.parametrize("backend", BACKENDS)
def test_value_may_hold_its_closing_marker(backend: str) -> None:
    """A string value's ``<|close|>argument<|sep|>`` closes it only when markup follows; the
    peers end the value at the first one and drop what follows (their known limitation)."""
    text = tools(call("f", 1, arg("s", "string", "a<|close|>argument<|sep|>b")))
    info = toolparse.get_parser("kimi_k3", backend=backend).extract_tool_calls(text)
    assert [c.function.arguments for c in info.tool_calls] == [
        '{"s": "a<|close|>argument<|sep|>b"}'
    ]


@pytest.mark.parametrize("backend", BACKENDS)
def test_not_calls_stay_text(backend: str) -> None:
    """An empty name, ``index`` before ``tool`` and an empty channel are not calls: their text is
    content (the peers drop the text, and read the call with its attributes in any order)."""
    swapped = TO + '<|open|>call index="1" tool="f"<|sep|><|close|>call<|sep|>' + TC
    for text in (tools(call("", 1)), TO + TC, swapped):
        info = toolparse.get_parser("kimi_k3", backend=backend).extract_tool_calls(text)
        assert (info.tool_calls, info.content) == ([], text)


@pytest.mark.parametrize("backend", BACKENDS)
def test_strings_stream_as_they_arrive(backend: str) -> None:
    """The call starts at its name; a string value is sent as it comes (the peers send each call
    whole at its end); a key with its value's start, a typed value once its argument closes."""
    p = corpus.core_parser(backend, "kimi_k3")
    assert p.feed(TO + '<|open|>call tool="f"') == (None, None, [(0, None, "f", "{")])
    assert p.feed(' index="1"<|sep|><|open|>argument key="s" type="string"<|sep|>ab') == (
        None,
        None,
        [(0, None, None, '"s": "ab')],
    )
    assert p.feed("c<|close|>argu") == (None, None, [(0, None, None, "c")])
    assert p.feed('ment<|sep|><|open|>argument key="n" type="number"<|sep|>4') == (
        None,
        None,
        [(0, None, None, '", "n": ')],
    )
    assert p.feed("2<|close|>argument<|sep|><|close|>call<|sep|>" + TC) == (
        None,
        None,
        [(0, None, None, "42}")],
    )
    assert p.finish() is None


EVERY_SPLIT = [
    CASES[4][0],
    CASES[10][0],
    RO + "A" + RC + tools(call("f", 1, arg("s", "string", "x<y"), arg("n", "number", "-1.5e3"))),
    MALFORMED[1],
    corpus.TRUNCATED["kimi_k3"][6][0],
]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("text", EVERY_SPLIT)
def test_every_split(backend: str, text: str) -> None:
    """Every single cut, and pairs of cuts (sampled), give the result of the whole text."""
    corpus.check_cuts(lambda chunks: streamed(backend, chunks), text)


@pytest.mark.parametrize(
    "text",
    [c[0] for c in CASES] + MALFORMED + [t for t, _ in corpus.TRUNCATED["kimi_k3"]],
)
def test_twins_agree(text: str) -> None:
    assert _core.extract("kimi_k3", text) == reference.extract("kimi_k3", text)


def test_registered() -> None:
    """The name vLLM and SGLang both register, Kimi K3's model ids, the ids of ``chatcmpl``."""
    assert "kimi_k3" in toolparse.list_formats()
    assert toolparse.format_for_model("moonshotai/Kimi-K3") == "kimi_k3"
    assert toolparse.format_for_model("moonshotai/Kimi-K2-Instruct") == "kimi_k2"
    assert reference.id_style("kimi_k3") == "chatcmpl"


THINK, THINK_END = "<|open|>think<|sep|>", "<|close|>think<|sep|>"
SECTION = tools(call("f", 1))

# (tool format, text, reasoning, content, call names): vLLM's and SGLang's kimi_k3 reasoning
REASONING_CASES = [
    ("kimi_k3", "plan it" + THINK_END + RO + "Hi" + RC + SECTION + MC, "plan it", "Hi", ["f"]),
    ("kimi_k3", THINK + "plan" + THINK_END + RO + "Hi" + RC + MC, "plan", "Hi", []),
    ("kimi_k3", "still thinking", "still thinking", None, []),
    # the tools channel ends an open block (SGLang; vLLM keeps it all as reasoning)
    ("kimi_k3", "plan" + SECTION, "plan", None, ["f"]),
    # a skipped think channel stays reasoning (vLLM; SGLang: content "Answer directly")
    ("kimi_k3", "Answer directly" + RC + MC, "Answer directly" + RC + MC, None, []),
    # no tool format: `<|open|>response<|sep|>` is a spelling of the reasoning's end, markup
    # outside the block too; the closing channel markers are markup as well, dropped from the
    # content (they were content before): vLLM 0.33's kimi_k3 reasoning parser strips them
    # (the reasoning spec's `dropped`)
    (None, "plan" + THINK_END + RO + "Hi" + RC + MC, "plan", "Hi", []),
    (None, "plan" + THINK_END + "Hi" + MC, "plan", "Hi", []),
    # and with another tool format too
    ("hermes", "plan" + THINK_END + RO + "Hi" + RC + MC, "plan", "Hi", []),
    (
        "hermes",
        "p" + THINK_END + RO + "A" + RC + '<tool_call>{"name": "f", "arguments": {}}'
        "</tool_call>" + MC,
        "p",
        "A",
        ["f"],
    ),
]


def _streamed_text(p: Any, chunks: List[str]) -> Tuple[str, str]:
    """The reasoning and the content a stream of ``p`` sends for ``chunks``."""
    s = p.stream()
    got_r, got_c = "", ""
    for d in [s.feed(c) for c in chunks] + [s.finish()]:
        if d is not None:
            got_r += d.reasoning or ""
            got_c += d.content or ""
    return got_r, got_c


def _splits(text: str) -> List[List[str]]:
    out = [[text], list(text)]
    out += [[text[:i], text[i:]] for i in range(1, len(text))]
    out += [
        [text[:i], text[i:j], text[j:]]
        for i in range(1, len(text), 3)
        for j in range(i + 1, len(text), 5)
    ]
    return out


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("fmt", (None, "hermes"))
def test_reasoning_alone_drops_channel_markers_under_every_split(
    backend: str, fmt: Optional[str]
) -> None:
    """With only the kimi_k3 reasoning format (or another tool format), the closing channel
    markers are dropped from content, streamed under every split as non-streaming."""
    text = "plan" + THINK_END + RO + "Hi <|close" + RC + "x" + MC + "<|close|>re"
    p = toolparse.get_parser(fmt, backend=backend, reasoning="kimi_k3")
    info = p.extract_tool_calls(text)
    assert (info.reasoning, info.content) == ("plan", "Hi <|closex<|close|>re")
    for chunks in _splits(text):
        assert _streamed_text(p, chunks) == (info.reasoning, info.content), chunks


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("fmt,text,reasoning,content,names", REASONING_CASES)
def test_reasoning(
    backend: str,
    fmt: Optional[str],
    text: str,
    reasoning: str,
    content: Optional[str],
    names: List[str],
) -> None:
    p = toolparse.get_parser(fmt, backend=backend, reasoning="kimi_k3")
    info = p.extract_tool_calls(text)
    assert (info.reasoning, info.content) == (reasoning, content)
    assert [c.function.name for c in info.tool_calls] == names
    for chunks in (list(text), [text[:7], text[7:]]):
        assert _streamed_text(p, chunks) == (reasoning, content or ""), chunks


# The model skipped the think channel: it answers on the response channel while the prompt had
# opened the think block. `<|open|>response<|sep|>` seen while reasoning ends the reasoning (a
# spelling of the reasoning format's end, `also_end`), and the response channel's markers are
# markup, not content (vLLM's kimi_k3 reasoning parser reads them so).
SKIPPED_THINK = [
    (
        "Thinking.<|open|>response<|sep|>Hello<|close|>response<|sep|><|close|>message<|sep|>",
        "Hello",
        "Thinking.",
        [],
    ),
    (
        "<|open|>response<|sep|>Hi" + tools(call("f", 0, arg("a", "integer", "1"))),
        "Hi",
        None,
        [("f", '{"a": 1}')],
    ),
    (
        "<|open|>think<|sep|>a<|close|>think<|sep|><|open|>response<|sep|>Hi"
        "<|close|>response<|sep|>",
        "Hi",
        "a",
        [],
    ),
]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("text,content,reasoning,calls", SKIPPED_THINK)
def test_response_channel_ends_reasoning(
    backend: str, text: str, content: str, reasoning: Optional[str], calls: Calls
) -> None:
    p = toolparse.get_parser("kimi_k3", backend=backend, reasoning="kimi_k3")
    info = p.extract_tool_calls(text)
    got = [(c.function.name, c.function.arguments) for c in info.tool_calls]
    assert (info.content, info.reasoning, got) == (content, reasoning, calls)
    for step in (1, 2, 5, len(text)):
        s = p.stream()
        ds = [s.feed(text[i : i + step]) for i in range(0, len(text), step)] + [s.finish()]
        assert "".join(d.content or "" for d in ds if d) == content
        assert "".join(d.reasoning or "" for d in ds if d) == (reasoning or "")
