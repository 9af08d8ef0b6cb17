"""The ``muse`` and ``muse_glimmer`` formats (Muse Spark / Muse Glimmer; vLLM's ``musespark1x``
is an alias of ``muse``) on text: both backends, streaming and not.

Decisions this file pins down (see ``rust/formats/muse.rs``):

* messages are ``<|start|>assistant to=RECIPIENT<|message|>BODY<|eom|>`` (or ``<|eot|>``); the
  first has no ``<|start|>assistant``; a ``to=NAME<|message|>`` written inside a reasoning or
  content body opens the next message (the model leaves reasoning so without ``<|eom|>``);
* muse: ``self``, ``developer`` and no recipient are reasoning, ``user`` and ``commentary``
  content; muse_glimmer: ``self`` is reasoning, ``user`` and no recipient content; every other
  recipient is a tool whose body holds ATEM ``<atem:invoke>`` calls (an invoke quoted in reasoning
  or content is text);
* values are JSON when they parse, else strings (muse keeps a value as written where the tool's
  schema types it as a string); ``f.f`` is the tool ``f`` when only ``f`` is registered;
* malformed markup never raises; non-streaming falls back to the original text as content.
"""

from __future__ import annotations

import json
from typing import Any, Dict, List

import corpus
import helpers
import pytest
import toolparse

BACKENDS = ("rust", "python")
FORMATS = ("muse", "muse_glimmer")
S = "<|start|>assistant"

WEATHER_TOOLS = [helpers.tool("get_weather", {"city": "string", "days": "integer"})]


def invoke(name: str, **params: str) -> str:
    body = "".join(f'<atem:parameter name="{k}">{v}</atem:parameter>\n' for k, v in params.items())
    return f'<atem:invoke name="{name}">\n{body}</atem:invoke>'


def calls_block(*invokes: str) -> str:
    return "<atem:function_calls>\n" + "\n".join(invokes) + "\n</atem:function_calls>"


# The model card's turn: reasoning, a call (to the doubled bare name the template invites), an
# answer; escapes and non-ASCII in the values.
TURN = (
    ' to=self<|message|>User wants weather; "quotes" & 東京 🎉.<|eom|>'
    f"{S} to=get_weather<|message|>"
    + calls_block(invoke("get_weather.get_weather", city='Zürich "CH"\\n', days="3"))
    + f"<|eom|>{S} to=user<|message|>It is sunny ✅<|eot|>"
)


result = corpus.extracted_message


def every_split(fmt: str, backend: str, text: str, tools: Any = None) -> Any:
    """Non-streaming result, checked equal to the stream for every split in two, one character
    at a time and all at once."""
    return corpus.check_splits_in_two(toolparse.get_parser(fmt, tools=tools, backend=backend), text)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("fmt", FORMATS)
def test_a_whole_turn(fmt: str, backend: str) -> None:
    info = every_split(fmt, backend, TURN, WEATHER_TOOLS)
    assert info.reasoning == 'User wants weather; "quotes" & 東京 🎉.'
    assert info.content == "It is sunny ✅"
    args = {"city": 'Zürich "CH"\\n', "days": 3}
    assert result(info)[2] == [("get_weather", json.dumps(args, ensure_ascii=False))]


@pytest.mark.parametrize("backend", BACKENDS)
def test_musespark1x_is_muse(backend: str) -> None:
    """vLLM registers musespark1x as muse's parser (tool and reasoning): an alias here."""
    assert toolparse.get_parser("musespark1x", backend=backend).name == "muse"
    assert "musespark1x" in toolparse.list_formats(aliases=True)
    a = toolparse.get_parser("musespark1x", tools=WEATHER_TOOLS, backend=backend)
    b = toolparse.get_parser("muse", tools=WEATHER_TOOLS, backend=backend)
    assert result(a.extract_tool_calls(TURN))[:2] == result(b.extract_tool_calls(TURN))[:2]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("reasoning", ["muse", "musespark1x", "muse_glimmer"])
def test_reasoning_names_parse_with_their_own_format(reasoning: str, backend: str) -> None:
    """vLLM's --reasoning-parser names for these models: the tool format's machine separates the
    reasoning itself (as harmony's), alone or paired with its format."""
    assert reasoning in toolparse.list_reasoning_formats() or reasoning == "musespark1x"
    fmt = "muse_glimmer" if reasoning == "muse_glimmer" else "muse"
    alone = toolparse.get_parser(None, reasoning=reasoning, tools=WEATHER_TOOLS, backend=backend)
    both = toolparse.get_parser(fmt, reasoning=reasoning, tools=WEATHER_TOOLS, backend=backend)
    plain = toolparse.get_parser(fmt, tools=WEATHER_TOOLS, backend=backend)
    want = result(plain.extract_tool_calls(TURN))
    assert [n for n, _ in want[2]] == ["get_weather"]
    for p in (alone, both):
        info = p.extract_tool_calls(TURN)
        assert (info.content, info.reasoning) == want[:2]
        assert [(c.function.name, c.function.arguments) for c in info.tool_calls] == want[2]


@pytest.mark.parametrize("backend", BACKENDS)
def test_sglang_muse_is_vllm_muse_glimmer(backend: str) -> None:
    """Name clash, pinned: SGLang registers its Muse Glimmer detector (tool and reasoning) as
    ``muse``; vLLM's ``muse`` is the Spark profile and its Glimmer one ``muse_glimmer``. We follow
    vLLM, so SGLang's ``muse`` users pick ``muse_glimmer`` here. The profiles differ: a message
    without a recipient is reasoning in muse and content in muse_glimmer."""
    text = f"<|message|>thinking<|eom|>{S} to=user<|message|>Done.<|eot|>"
    m = every_split("muse", backend, text)
    g = every_split("muse_glimmer", backend, text)
    assert (m.content, m.reasoning) == ("Done.", "thinking")
    assert (g.content, g.reasoning) == ("thinkingDone.", None)


@pytest.mark.parametrize("backend", BACKENDS)
def test_recipients_per_profile(backend: str) -> None:
    """muse (vLLM's channel rules): commentary is content; developer, which vLLM drops, is
    reasoning here (nothing is lost). muse_glimmer: commentary and developer are tool channels
    (vLLM's Glimmer list), whose text outside calls is content (vLLM drops it; SGLang's Glimmer
    makes commentary content too)."""
    text = (
        f"{S} to=commentary<|message|>Working.<|eom|>"
        f"{S} to=developer<|message|>dev note<|eom|>{S} to=user<|message|>Done.<|eot|>"
    )
    m = every_split("muse", backend, text)
    assert (m.content, m.reasoning) == ("Working.Done.", "dev note")
    g = every_split("muse_glimmer", backend, text)
    assert (g.content, g.reasoning) == ("Working.dev noteDone.", None)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("fmt", FORMATS)
def test_invokes_quoted_in_reasoning_or_answer_are_not_calls(fmt: str, backend: str) -> None:
    """vLLM's point of channel scoping: an ``<atem:invoke>`` echoed in reasoning or in the
    answer is not a call."""
    quoted = invoke("get_weather", city="Paris")
    text = f" to=self<|message|>I could call {quoted}<|eom|>{S} to=user<|message|>{quoted}<|eot|>"
    info = every_split(fmt, backend, text)
    assert (info.tools_called, info.tool_calls) == (False, [])
    assert info.content == quoted
    assert info.reasoning == f"I could call {quoted}"


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("fmt", FORMATS)
def test_reasoning_left_without_eom(fmt: str, backend: str) -> None:
    """vLLM's reasoning parser: the model sometimes leaves ``to=self`` without ``<|eom|>``,
    writing ``to=<tool><|message|>`` next; the call is still a call and the header is not
    reasoning."""
    text = " to=self<|message|>Look it up. to=functions.f<|message|>" + invoke("f", q="x")
    info = every_split(fmt, backend, text)
    assert info.reasoning == "Look it up."
    assert result(info)[2] == [("f", '{"q": "x"}')]


@pytest.mark.parametrize("backend", BACKENDS)
def test_values_json_or_string(backend: str) -> None:
    """A value is JSON when ``json.loads`` reads it (spaces around it too), else the text as a
    string; only ``null`` is null (``None`` is text, as json.loads says). muse keeps a value the
    schema types as a string as written (``"123"``); muse_glimmer decodes it (``123``)."""
    text = f"{S} to=get_weather<|message|>" + invoke(
        "get_weather", city="123", days=" 5 ", a="None", b="null", c='{"k":[1,2]}', d="free text"
    )
    rest = '"a": "None", "b": null, "c": {"k": [1, 2]}, "d": "free text"}'
    m = every_split("muse", backend, text, WEATHER_TOOLS)
    assert result(m)[2] == [("get_weather", '{"city": "123", "days": 5, ' + rest)]
    g = every_split("muse_glimmer", backend, text, WEATHER_TOOLS)
    assert result(g)[2] == [("get_weather", '{"city": 123, "days": 5, ' + rest)]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("fmt", FORMATS)
def test_doubled_names(fmt: str, backend: str) -> None:
    """vLLM's rule: ``get_weather.get_weather`` is ``get_weather`` when only that is registered;
    other names pass through (no leaf matching: SGLang's Glimmer maps a unique leaf, vLLM refuses
    it as unsafe, and we follow vLLM)."""
    text = f"{S} to=t<|message|>" + invoke("get_weather.get_weather") + invoke("x.get_weather")
    info = every_split(fmt, backend, text, WEATHER_TOOLS)
    assert [n for n, _ in result(info)[2]] == [
        "get_weather",
        "x.get_weather",
    ]
    no_tools = toolparse.get_parser(fmt, backend=backend).extract_tool_calls(text)
    assert [c.function.name for c in no_tools.tool_calls] == [
        "get_weather.get_weather",
        "x.get_weather",
    ]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("fmt", FORMATS)
def test_several_calls_and_messages(fmt: str, backend: str) -> None:
    text = (
        f"{S} to=functions.a<|message|>"
        + calls_block(invoke("a", x="1"), invoke("b"))
        + f"<|eom|>{S} to=functions.c<|message|>"
        + invoke("c", y="[true, null]")
        + "<|eom|>"
    )
    info = every_split(fmt, backend, text)
    assert result(info) == (
        None,
        None,
        [("a", '{"x": 1}'), ("b", "{}"), ("c", '{"y": [true, null]}')],
    )
    assert len({c.id for c in info.tool_calls}) == 3


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("fmt", FORMATS)
def test_unframed_text_is_content(fmt: str, backend: str) -> None:
    """No framing at all (vLLM's fallback too): the whole text is content. Text before the first
    header is content here as well, where vLLM drops it once a header is seen (nothing lost)."""
    for text in ["Just text, to be sure: t", "a to=b c", "  \n"]:
        info = every_split(fmt, backend, text)
        assert info.content == text
    info = every_split(fmt, backend, f"Hello {S} to=user<|message|>hi<|eot|>")
    assert info.content == "Hello hi"


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("fmt", FORMATS)
def test_malformed_and_truncated(fmt: str, backend: str) -> None:
    from toolparse.testing import _data

    for text in _data.MALFORMED[fmt]:
        p = toolparse.get_parser(fmt, backend=backend)
        info = p.extract_tool_calls(text)
        assert (info.tools_called, info.content) == (False, text), text
        for k in range(len(text) + 1):
            rec, deltas = corpus.facade_stream(p, [text[:k], text[k:]])
            reasoning = "".join(d.reasoning for d in deltas if d is not None and d.reasoning)
            # nothing lost: every character is somewhere (markup of calls aside)
            assert len(rec.other_content) + len(reasoning) > 0
    for text, complete in _data.TRUNCATED[fmt]:
        corpus.check_truncated_output(fmt, backend, text, complete)


@pytest.mark.parametrize("fmt", FORMATS)
def test_twins_agree(fmt: str) -> None:
    texts = [TURN, " to=self<|message|>a to=f<|message|>" + invoke("f", q="None")]
    for text in texts:
        corpus.twin_extract(fmt, text, _types())
        corpus.twin_stream(fmt, list(text), _types())


def _types() -> Dict[str, Dict[str, List[str]]]:
    return {"get_weather": {"city": ["string"], "days": ["integer"]}}


PEER_TEXTS = [
    TURN,
    f"<|message|>thinking<|eom|>{S} to=commentary<|message|>Working.<|eom|>"
    f"{S} to=user<|message|>Done.<|eot|>",
    " to=self<|message|>plan to=functions.f<|message|>" + invoke("f", q="None", r=" 5 "),
    f"{S} to=functions.a<|message|>" + calls_block(invoke("a", x="1"), invoke("b")) + "<|eom|>",
]


@pytest.mark.parametrize("fmt", FORMATS)
def test_agrees_with_vllm_on_well_formed_turns(fmt: str) -> None:
    """vLLM's parser on the same texts: the same calls and content (vLLM gives no reasoning in
    its tool parser's result; its reasoning parser splits it off first). Runs where vLLM is
    importable (the peers' venv)."""
    vllm = pytest.importorskip("vllm")
    assert vllm
    from vllm.entrypoints.openai.chat_completion.protocol import ChatCompletionRequest
    from vllm.tool_parsers.muse_glimmer_tool_parser import MuseGlimmerToolParser
    from vllm.tool_parsers.muse_tool_parser import MuseToolParser

    cls = MuseToolParser if fmt == "muse" else MuseGlimmerToolParser
    req = ChatCompletionRequest(
        model="m", messages=[{"role": "user", "content": "x"}], tools=WEATHER_TOOLS
    )
    peer = cls.__new__(cls)
    ours = toolparse.get_parser(fmt, tools=WEATHER_TOOLS)
    for text in PEER_TEXTS:
        want = cls.extract_tool_calls(peer, text, req)
        got = ours.extract_tool_calls(text)
        assert result(got)[2] == [(c.function.name, c.function.arguments) for c in want.tool_calls]
        if fmt == "muse_glimmer" and "to=commentary" in text:
            continue  # vLLM's Glimmer drops a commentary message: test_recipients_per_profile
        assert got.content == want.content, text
