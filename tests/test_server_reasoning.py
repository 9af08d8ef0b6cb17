"""toolparse.integrations.reasoning, without the servers: the raw rest the server integrations hand
from a reasoning parser to a tool parser is exactly where the one-pass machine's think block ends,
for every reasoning format, under every splitting; the one-pass result is the block's reasoning
plus the tool format's own parse of that rest (what SGLang's two detectors compute)."""

from __future__ import annotations

from typing import List, Optional

import pytest
import toolparse
from corpus import chunks_at
from hypothesis import given, settings
from hypothesis import strategies as st
from toolparse import spec
from toolparse.integrations import reasoning as rsn
from toolparse.reference.scan import Markers, strip_all

FRONTED = [r for r in toolparse.list_reasoning_formats() if not rsn.transparent(r)]
TOOLS = [None, "hermes", "qwen3_coder", "mistral", "deepseek_v3", "kimi_k2"]


def pieces(r: str, fmt: Optional[str]) -> List[str]:
    s = spec.REASONING[r]
    out = [s.start, s.end, s.end[:3], "a", " ", "\n", "é", *s.call_starts]
    if fmt is not None:
        f = spec.SPECS[fmt]
        out += [m for k, m in f.markers.items() if k.endswith("start")]
    return [p for p in out if p]


def streamed_rest(parser: toolparse.ToolParser, chunks: List[str]) -> str:
    """What a server integration hands on: the raw rest, from the stream's own core."""
    core = parser.stream()._core
    hand = rsn.Handover(core)
    out: List[str] = []
    for c in chunks:
        if hand.done:
            out.append(c)
            continue
        core.feed(c)
        rest = hand.feed(c)
        if rest is not None:
            assert hand.done
            out.append(rest)
    core.finish()
    out.append(hand.finish())
    return "".join(out)


def handover_points(
    r: str, fmt: Optional[str], started: Optional[bool], backend: str, chunks: List[str]
) -> List[Optional[int]]:
    """``machine_from`` after every feed and after finish, on ``backend``'s core parser."""
    core = (
        toolparse.get_parser(fmt, backend=backend, reasoning=r, reasoning_started=started)
        .stream()
        ._core
    )
    points = [core.machine_from]
    for c in chunks:
        core.feed(c)
        points.append(core.machine_from)
    core.finish()
    points.append(core.machine_from)
    return points


@pytest.mark.parametrize("r", FRONTED)
@pytest.mark.parametrize("fmt", TOOLS)
@settings(max_examples=12, deadline=None)
@given(data=st.data())
def test_the_twins_agree_on_the_hand_over_point(r: str, fmt: Optional[str], data: object) -> None:
    draw = data.draw  # type: ignore[attr-defined]
    text = "".join(draw(st.lists(st.sampled_from(pieces(r, fmt)), max_size=10)))
    started = draw(st.sampled_from([None, True, False]))
    cuts = draw(st.lists(st.integers(0, len(text)), max_size=6))
    for chunks in (chunks_at(text, cuts), list(text), [text]):
        rust = handover_points(r, fmt, started, "rust", chunks)
        assert rust == handover_points(r, fmt, started, "python", chunks)
        if started is False and spec.REASONING[r].markers_off_when_disabled:
            # thinking disabled turns the markers off (plamo3): no front, the machine has it all
            assert set(rust) == {0}
            continue
        assert rust[0] is None and rust[-1] is not None and 0 <= rust[-1] <= len(text)
        known = [p for p in rust if p is not None]
        assert len(set(known)) == 1  # set once, then kept
        assert known[0] == handover_points(r, fmt, started, "rust", [text])[-1]


@pytest.mark.parametrize("backend", ["rust", "python"])
def test_machine_from_counts_characters(backend: str) -> None:
    p = toolparse.get_parser("hermes", backend=backend, reasoning="qwen3").stream()
    assert p.machine_from is None
    p.feed("<think>ü€😀</th")
    assert p.machine_from is None
    p.feed("ink>\n<tool_call>")
    assert p.machine_from == len("<think>ü€😀</think>")
    p.finish()
    assert p.machine_from == len("<think>ü€😀</think>")
    q = toolparse.get_parser("hermes", backend=backend).stream()
    assert q.machine_from == 0
    g = toolparse.get_parser(None, backend=backend, reasoning="openai_gptoss").stream()
    assert g.machine_from == 0  # harmony: no think-block front
    h = toolparse.get_parser("hermes", backend=backend, reasoning="qwen3").stream()
    h.feed("😀 open <think>é</th")
    h.finish()
    assert h.machine_from is not None


def test_machine_from_with_a_lone_surrogate_agrees() -> None:
    """A lone surrogate is read as U+FFFD replacement characters on both backends; the count is
    theirs, and the same."""
    points = []
    for backend in ("rust", "python"):
        p = toolparse.get_parser("hermes", backend=backend, reasoning="qwen3").stream()
        p.feed("<think>a\ud800")
        p.feed("b</think>c")
        points.append(p.machine_from)
    assert (
        points[0] == points[1] and points[0] is not None and points[0] >= len("<think>a?b</think>")
    )


@pytest.mark.parametrize("backend", ["rust", "python"])
@pytest.mark.parametrize("r", FRONTED)
@pytest.mark.parametrize("fmt", TOOLS)
@settings(max_examples=8, deadline=None)
@given(data=st.data())
def test_raw_rest_is_where_the_machine_hands_over(
    backend: str, r: str, fmt: Optional[str], data: object
) -> None:
    draw = data.draw  # type: ignore[attr-defined]
    text = "".join(draw(st.lists(st.sampled_from(pieces(r, fmt)), max_size=10)))
    started = draw(st.sampled_from([None, True, False]))
    cuts = draw(st.lists(st.integers(0, len(text)), max_size=6))
    one = toolparse.get_parser(fmt, backend=backend, reasoning=r, reasoning_started=started)
    rest = rsn.raw_rest(one, text)
    assert text.endswith(rest)
    assert streamed_rest(one, chunks_at(text, cuts)) == rest
    assert streamed_rest(one, list(text)) == rest
    info = one.extract_tool_calls(text)
    # a content prefix (minimax_m2_append_think's <think>) is the parser's content, not the
    # output's: the rest handed over is without it
    prefix = spec.REASONING[r].content_prefix or ""
    content = info.content or ""
    # An end marker after the block is markup, dropped in every state (not where the format
    # puts its own markers in content): the rest is parsed without them.
    rs = spec.REASONING[r]
    ends = () if prefix or rs.stray_end_text else rs.ends
    kept = strip_all(Markers(ends), rest) if ends else rest
    dropped = kept != rest
    rest = kept
    # a format whose blocks open anywhere (gemma4) reads a block in the rest as reasoning too:
    # test_reasoning checks those contents case by case
    anywhere = rs.blocks_anywhere and any(m in rest for m in rs.starts)
    if fmt is None:
        if not anywhere:
            assert content == prefix + rest
        return
    plain = toolparse.get_parser(fmt, backend=backend).extract_tool_calls(rest)
    calls = [(c.function.name, c.function.arguments) for c in info.tool_calls]
    assert calls == [(c.function.name, c.function.arguments) for c in plain.tool_calls]
    if dropped or anywhere:
        # where a dropped end marker stood, the tool markup around it may read otherwise than
        # the text without it (qwen3_coder's `<tool_call></think>` is text, then `<tool_call>`);
        # test_reasoning checks those contents case by case
        return
    _c, _r, _calls, malformed, truncated = one._format.extract(text)
    if malformed:
        # Malformed markup (after an empty block too): the fallback content is the rest (the
        # output's own text: no content prefix), without the dropped end markers
        assert content == rest
        return
    if truncated and not calls:
        # Cut markup: the same fallback; or, where the text ended with a bare call start, the
        # content without it (the whitespace before it content or not as the whitespace rule
        # has it after the prefix)
        plain_text = prefix + (plain.content or "")
        assert content == rest or content.rstrip() == plain_text.rstrip()
        return
    assert content == prefix + (plain.content or "")


@pytest.mark.parametrize("backend", ["rust", "python"])
@pytest.mark.parametrize(
    "tail",
    [
        "<tool_call>{bad json}</tool_call>",
        '<tool_call>{"name": "f", "arguments": {"a": 1',
        "x <tool_call>{",
    ],
)
@pytest.mark.parametrize("block", ["<think></think>", "<think>\n</think>\n", "<think>r</think>"])
def test_fallback_after_a_block_is_the_rest(backend: str, block: str, tail: str) -> None:
    """Malformed or cut markup after a think block, empty or not: the one-pass result is the
    block's reasoning and the text after the block as content, what a server's reasoning parser
    then tool parser give (the rest parsed alone), streaming (every split) or not."""
    text = block + tail
    one = toolparse.get_parser("hermes", backend=backend, reasoning="qwen3")
    info = one.extract_tool_calls(text)
    rest = rsn.raw_rest(one, text)
    assert text.endswith(rest) and not rest.startswith("</think>")
    plain = toolparse.get_parser("hermes", backend=backend).extract_tool_calls(rest)
    assert not info.tool_calls and not plain.tool_calls
    assert info.content == plain.content == rest
    assert (info.reasoning or "") == block[len("<think>") : block.index("</think>")]
    if not info.truncated:  # malformed: every split streams the same content
        for chunks in ([text], list(text), chunks_at(text, [3, 9, 16, 20])):
            stream = one.stream()
            deltas = [stream.feed(c) for c in chunks] + [stream.finish()]
            assert "".join(d.content or "" for d in deltas if d) == info.content


def test_prompt_verdict_and_kwargs() -> None:
    ids = rsn.MarkerIds(None, "qwen3")
    ids.starts, ids.ends, ids.boundaries = frozenset({10}), frozenset({11}), frozenset({1})
    assert rsn.prompt_verdict(ids, [1, 5, 10]) is True
    assert rsn.prompt_verdict(ids, [1, 10, 5, 11, 5]) is False
    assert rsn.prompt_verdict(ids, [10, 5, 11, 1, 5]) is None
    assert rsn.prompt_verdict(ids, []) is None
    # a call start after the opened block ended it (qwen3's own, or the paired format's)
    ids._calls = {None: frozenset({12}), "hermes": frozenset({12}), "mistral": frozenset({13})}
    assert rsn.prompt_verdict(ids, [1, 10, 5, 12, 5]) is False
    assert rsn.prompt_verdict(ids, [1, 10, 5, 12, 5], "mistral") is True
    assert rsn.prompt_verdict(ids, [1, 5, 12, 5]) is None  # no block opened in the last turn


def test_marker_ids_from_a_vocabulary() -> None:
    class Tok:
        all_special_ids = [1, 20]

        def get_vocab(self) -> dict:
            return {
                "<|im_start|>": 1,
                "<think>": 10,
                "</think>": 11,
                "<tool_call>": 20,
                "[TOOL_CALLS]": 21,
            }

    ids = rsn.MarkerIds(Tok(), "qwen3")
    assert (ids.starts, ids.ends, ids.end_seq) == ({10}, {11}, [11])
    assert ids.calls(None) == {20} and ids.calls("hermes") == {20} and ids.calls("qwen25") == {20}
    assert ids.calls("mistral") == {21} and ids.calls("no_such_format") == {20}
    assert ids.boundaries == {1}  # a call start is not a turn boundary
    assert rsn.end_in_delta(ids, [0, 20], [20]) and not rsn.end_in_delta(ids, [0, 21], [21])
    assert rsn.end_in_delta(ids, [0, 21], [21], "mistral")
    assert rsn.kwargs_verdict({"enable_thinking": False}) is False
    assert rsn.kwargs_verdict({"thinking": False}) is False
    assert rsn.kwargs_verdict({"enable_thinking": True}) is None
    assert rsn.kwargs_verdict(None) is None


def test_slot_hands_over_once() -> None:
    class R:
        pass

    r = R()
    rsn.leave(r)
    assert rsn.take() is r
    assert rsn.take() is None
    rsn.leave(R())  # gone before anyone takes it
    assert rsn.take() is None


def test_pairs_and_names() -> None:
    assert rsn.pairs("qwen3", "hermes") and not rsn.pairs("qwen3", None)
    assert rsn.pairs("openai_gptoss", "openai") and not rsn.pairs("openai_gptoss", "hermes")
    assert rsn.tool_format_of("toolparse_qwen25") == "hermes"
    assert rsn.tool_format_of("hermes") is None and rsn.tool_format_of("toolparse_nope") is None
    assert set(rsn.formats()) == set(toolparse.list_reasoning_formats(aliases=True))
