"""The ``beam`` format (vLLM's and SGLang's ``beam``: SGLang ships the checkpoint's response
template as ``BEAM_RESPONSE_TEMPLATE``, vLLM reads the same template from the checkpoint) on text:
both backends, streaming and not.

Decisions this file pins down (see ``rust/formats/openai.rs``, whose harmony machine reads beam
with the spec switches ``name_prefix: ""``, ``reasoning_join: ""`` and XML parameters):

* reasoning is ``<|channel|>analysis<|message|>...<|end|>``, the answer
  ``<|channel|>final<|message|>...<|return|>`` (or ``<|end|>``); every message but the first opens
  with ``<|start|>assistant`` (the prompt ends with it);
* a call is the message `` to=NAME<|channel|>analysis <|constrain|>xml<|message|>`` whose body
  holds ``<rfl:parameter name="K">\\nV\\n</rfl:parameter>`` parameters (one newline each side is
  markup; the closing tag may be missing before the next parameter), ended by ``<|call|>`` or
  ``<|end|>``; values are typed by the tool schema; every recipient is a function;
* a call the text ends before its end marker is cut off (both peers report no call);
* malformed markup never raises; non-streaming falls back to the original text as content.
"""

from __future__ import annotations

import json
from typing import Any

import corpus
import helpers
import pytest
import toolparse

BACKENDS = ("rust", "python")
S = "<|start|>assistant"

WEATHER_TOOLS = [helpers.tool("get_weather", {"city": "string", "days": "integer"})]


def header(name: str) -> str:
    return f" to={name}<|channel|>analysis <|constrain|>xml<|message|>"


def param(k: str, v: str, close: bool = True) -> str:
    return f'<rfl:parameter name="{k}">\n{v}\n' + ("</rfl:parameter>" if close else "")


# A whole turn: reasoning, an answer, two calls (the first ended by <|end|>, the second by
# <|call|>); escapes and non-ASCII in the values.
_W = header("get_weather")
TURN = (
    '<|channel|>analysis<|message|>User wants weather; "quotes" & 東京 🎉.<|end|>'
    f"{S}<|channel|>final<|message|>Checking ✅<|end|>"
    + f"{S}{_W}"
    + param("city", 'Zürich "CH"')
    + param("days", "3")
    + f"<|end|>{S}{_W}"
    + param("city", "Tokyo")
    + "<|call|>"
)


result = corpus.extracted_message


def every_split(backend: str, text: str, tools: Any = WEATHER_TOOLS) -> Any:
    """Non-streaming result, checked equal to the stream for every split in two, one character
    at a time and all at once."""
    return corpus.check_splits_in_two(
        toolparse.get_parser("beam", tools=tools, backend=backend), text
    )


def dumps(args: Any) -> str:
    return json.dumps(args, ensure_ascii=False)


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_whole_turn(backend: str) -> None:
    info = every_split(backend, TURN)
    assert info.reasoning == 'User wants weather; "quotes" & 東京 🎉.'
    assert info.content == "Checking ✅"
    assert result(info)[2] == [
        ("get_weather", dumps({"city": 'Zürich "CH"', "days": 3})),
        ("get_weather", dumps({"city": "Tokyo"})),
    ]


@pytest.mark.parametrize("backend", BACKENDS)
def test_peer_cases(backend: str) -> None:
    """What SGLang's beam detector (the shared response-template parser) reads, checked here
    with the peers' results: typed values, a missing closing tag before the next parameter,
    whitespace kept inside values, an empty body, and nested JSON values."""
    tools = WEATHER_TOOLS + [
        {
            "type": "function",
            "function": {
                "name": "f",
                "parameters": {"type": "object", "properties": {"o": {"type": "object"}}},
            },
        }
    ]
    cases = [
        (
            header("get_weather") + param("city", "Paris", False) + param("days", "3") + "<|call|>",
            [("get_weather", {"city": "Paris", "days": 3})],
        ),
        (
            header("get_weather") + param("city", " Rome ") + "<|call|>",
            [("get_weather", {"city": " Rome "})],
        ),
        (
            header("get_weather") + param("city", "\nParis\n") + "<|call|>",
            [("get_weather", {"city": "\nParis\n"})],
        ),
        (header("get_weather") + "<|call|>", [("get_weather", {})]),
        (header("f") + param("o", '{"a": [1, "é"]}') + "<|call|>", [("f", {"o": {"a": [1, "é"]}})]),
        (
            header("get_weather") + param("days", "three") + "<|call|>",
            [("get_weather", {"days": "three"})],
        ),
    ]
    for text, want in cases:
        info = every_split(backend, text, tools)
        assert result(info)[2] == [(n, dumps(a)) for n, a in want], text
        assert info.content is None


@pytest.mark.parametrize("backend", BACKENDS)
def test_reasoning_name_parses_with_its_own_format(backend: str) -> None:
    """vLLM's and SGLang's --reasoning-parser ``beam``: the tool format's machine separates the
    reasoning itself (as harmony's), alone or paired with its format."""
    assert "beam" in toolparse.list_reasoning_formats()
    alone = toolparse.get_parser(None, reasoning="beam", tools=WEATHER_TOOLS, backend=backend)
    both = toolparse.get_parser("beam", reasoning="beam", tools=WEATHER_TOOLS, backend=backend)
    plain = toolparse.get_parser("beam", tools=WEATHER_TOOLS, backend=backend)
    want = result(plain.extract_tool_calls(TURN))
    for p in (alone, both):
        assert result(p.extract_tool_calls(TURN)) == want


@pytest.mark.parametrize("backend", BACKENDS)
def test_reasoning_messages_are_joined_with_nothing(backend: str) -> None:
    """Pinned: SGLang's beam reasoning joins two analysis messages as written ("ab"); harmony's
    ``openai`` puts "\\n" between them (vLLM's gpt-oss join), beam does not."""
    text = (
        f"<|channel|>analysis<|message|>a<|end|>{S}<|channel|>analysis<|message|>b<|end|>"
        f"{S}<|channel|>final<|message|>c<|return|>"
    )
    info = every_split(backend, text)
    assert (info.content, info.reasoning) == ("c", "ab")


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_call_without_its_end_marker_is_cut_off(backend: str) -> None:
    """Pinned, as both peers: without ``<|call|>`` (or ``<|end|>``) another parameter may still
    follow, so the call is not complete (SGLang reports no call for it). Earlier calls stay."""
    first = header("get_weather") + param("city", "Paris") + "<|end|>"
    text = first + S + header("get_weather") + param("city", "Rome")
    p = toolparse.get_parser("beam", tools=WEATHER_TOOLS, backend=backend)
    info = p.extract_tool_calls(text)
    assert result(info)[2] == [("get_weather", dumps({"city": "Paris"}))]
    assert result(p.extract_tool_calls(header("get_weather") + param("city", "Rome")))[2] == []


@pytest.mark.parametrize("backend", BACKENDS)
def test_any_recipient_is_a_function(backend: str) -> None:
    """Pinned: beam has no ``functions.`` prefix and no built-in tools; a recipient the request
    does not list is still a call (SGLang drops it, text and all; nothing is lost here)."""
    text = header("browser.search") + param("q", "x") + "<|call|>"
    info = every_split(backend, text)
    assert result(info)[2] == [("browser.search", dumps({"q": "x"}))]


@pytest.mark.parametrize("backend", BACKENDS)
def test_plain_text_is_content(backend: str) -> None:
    """Pinned: text with no markup is content (SGLang's beam reasoning parser returns neither
    reasoning nor content for it; vLLM's response parser drops text before a message)."""
    for text in ("plain answer", "pre<|channel|>final<|message|>hi<|return|>"):
        info = every_split(backend, text)
        assert result(info)[2] == []
        assert info.content in ("plain answer", "prehi")


@pytest.mark.parametrize("backend", BACKENDS)
def test_malformed_never_raises(backend: str) -> None:
    from toolparse.testing import _data

    p = toolparse.get_parser("beam", tools=WEATHER_TOOLS, backend=backend)
    for text in _data.MALFORMED["beam"]:
        info = p.extract_tool_calls(text)
        assert not info.tools_called and info.content == text, text
        corpus.facade_stream(p, list(text))  # streaming never raises either


def test_sglang_agrees_on_the_peer_cases() -> None:
    """The peers themselves, when their venv runs this file: SGLang's beam detector on TURN's
    calls."""
    pytest.importorskip("vllm")
    sglang = pytest.importorskip("sglang")
    del sglang
    from sglang.srt.entrypoints.openai.protocol import Tool
    from sglang.srt.function_call.function_call_parser import FunctionCallParser

    tools = [Tool.model_validate(t) for t in WEATHER_TOOLS]
    parser = FunctionCallParser(tools=tools, tool_call_parser="beam")
    _, items = parser.parse_non_stream(TURN)
    ours = result(toolparse.get_parser("beam", tools=WEATHER_TOOLS).extract_tool_calls(TURN))[2]
    assert [(it.name, json.loads(it.parameters)) for it in items] == [
        (n, json.loads(a)) for n, a in ours
    ]
