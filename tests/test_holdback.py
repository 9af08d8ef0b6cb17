"""Bounded hold-back after start markers: held-back text never grows with the input.

Where a machine must see a token whole before it can emit anything, the token is capped (the
constants of ``rust/scan.rs``, twinned in ``toolparse.reference.scan``):

* ``NAME_MAX`` characters for a function name, a pythonic keyword or a call-object key, as written;
* ``WS_MAX`` characters for one run of whitespace between markup tokens;
* ``HOLD_MAX`` characters for the text of a JSON call region read before its call starts (the
  start marker included; ``"arguments"`` may come before ``"name"``).

Past the cap the markup is malformed (a tentative call in text: not a call) and the text is
content, at the same place however the text was split, on both backends. At the cap the markup
still parses as a call.
"""

from __future__ import annotations

import random
from typing import List, NamedTuple

import corpus
import pytest
import toolparse
from toolparse.reference.scan import HOLD_MAX, NAME_MAX, WS_MAX

BACKENDS = ("rust", "python")
ARGS = '{"a": 1}'


class Probe(NamedTuple):
    """``before + filler * k + after``: a call at ``k == cap``, malformed markup past it."""

    fmt: str
    before: str
    filler: str
    cap: int
    after: str
    # the call has started before the filler (past the cap: malformed, its start already sent)
    started: bool = False
    # the call is tentative (a call found in plain text): past the cap it is content, not
    # malformed markup
    tentative: bool = False
    name: str = "f"
    args: str = ARGS

    def text(self, k: int) -> str:
        return self.before + self.filler * k + self.after

    def __repr__(self) -> str:
        return f"{self.fmt}:{self.before!r}+{self.filler!r}*{self.cap}+{self.after[:12]!r}"


def _probes() -> List[Probe]:
    long_name = "a" * NAME_MAX
    return [
        # mistral: after [TOOL_CALLS], around a name or an id, after [ARGS]
        Probe("mistral", "[TOOL_CALLS]", " ", WS_MAX, "f" + ARGS),
        Probe("mistral", "[TOOL_CALLS]", "a", NAME_MAX, ARGS, name=long_name),
        Probe("mistral", "[TOOL_CALLS]f", " ", WS_MAX, ARGS),
        Probe("mistral", "[TOOL_CALLS]f", " ", WS_MAX, "[ARGS]" + ARGS),
        Probe("mistral", "[TOOL_CALLS]f[ARGS]", " ", WS_MAX, ARGS),
        Probe("mistral", "[TOOL_CALLS]f[CALL_ID]", " ", WS_MAX, "abc123XYZ[ARGS]" + ARGS),
        Probe("mistral", "[TOOL_CALLS]f[CALL_ID]abc123XYZ", " ", WS_MAX, "[ARGS]" + ARGS),
        # mistral's JSON form: a Region over an array of call objects
        Probe("mistral", "[TOOL_CALLS]", " ", WS_MAX, '[{"name": "f", "arguments": ' + ARGS + "}]"),
        Probe("mistral", "[TOOL_CALLS][", " ", WS_MAX, '{"name": "f", "arguments": ' + ARGS + "}]"),
        Probe(
            "mistral",
            '[TOOL_CALLS][{"name": "',
            "a",
            NAME_MAX,
            '", "arguments": ' + ARGS + "}]",
            name=long_name,
        ),
        # llama3_json
        Probe(
            "llama3_json",
            "<|python_tag|>",
            " ",
            WS_MAX,
            '{"name": "f", "parameters": ' + ARGS + "}",
        ),
        Probe(
            "llama3_json",
            '{"name": "',
            "a",
            NAME_MAX,
            '", "parameters": ' + ARGS + "}",
            tentative=True,
            name=long_name,
        ),
        Probe(
            "llama3_json",
            '<|python_tag|>{"',
            "k",
            NAME_MAX,
            '": 1, "name": "f", "parameters": ' + ARGS + "}",
        ),
        Probe(
            "llama3_json",
            '<|python_tag|>{"name"',
            " ",
            WS_MAX,
            ': "f", "parameters": ' + ARGS + "}",
        ),
        Probe(
            "llama3_json", '<|python_tag|>{"name":', " ", WS_MAX, '"f", "parameters": ' + ARGS + "}"
        ),
        # pythonic: a bare list is tentative until its first call starts
        Probe("pythonic", "[", " ", WS_MAX, "f(a=1)]", tentative=True),
        Probe("pythonic", "[", "a", NAME_MAX, "(a=1)]", tentative=True, name=long_name),
        Probe("pythonic", "[f", " ", WS_MAX, "(a=1)]", tentative=True),
        Probe("pythonic", "[f(", " ", WS_MAX, "a=1)]", started=True),
        Probe(
            "pythonic",
            "[f(",
            "k",
            NAME_MAX,
            "=1)]",
            started=True,
            args='{"' + "k" * NAME_MAX + '": 1}',
        ),
        Probe("pythonic", "[f(a", " ", WS_MAX, "=1)]", started=True),
        Probe("pythonic", "[f(a=1)", " ", WS_MAX, "]", started=True),
        Probe("llama4_pythonic", "<|python_start|>", " ", WS_MAX, "[f(a=1)]<|python_end|>"),
        # hermes: the JSON call object in a Region
        Probe(
            "hermes",
            "<tool_call>",
            " ",
            WS_MAX,
            '{"name": "f", "arguments": ' + ARGS + "}</tool_call>",
        ),
        Probe(
            "hermes",
            '<tool_call>{"name": "',
            "a",
            NAME_MAX,
            '", "arguments": ' + ARGS + "}</tool_call>",
            name=long_name,
        ),
        # characters, not bytes: the same cap on both backends
        Probe(
            "hermes",
            '<tool_call>{"name": "',
            "é",
            NAME_MAX,
            '", "arguments": ' + ARGS + "}</tool_call>",
            name="é" * NAME_MAX,
        ),
        Probe(
            "hermes",
            "<tool_call>{",
            " ",
            WS_MAX,
            '"name": "f", "arguments": ' + ARGS + "}</tool_call>",
        ),
        # the name is read: the call has started (its name streams before its arguments)
        Probe(
            "hermes",
            '<tool_call>{"name": "f",',
            "\n",
            WS_MAX,
            '"arguments": ' + ARGS + "}</tool_call>",
            started=True,
        ),
    ]


PROBES = _probes()
# inkling: whitespace before the call object, a long name (its header cap: test_inkling.py)
_INK = "<|content_invoke_tool_json|>"
_INK_END = ', "args": ' + ARGS + "}<|end_message|>"
PROBES += [
    Probe("inkling", _INK, " ", WS_MAX, '{"name": "f"' + _INK_END),
    Probe("inkling", _INK + '{"name": "', "a", NAME_MAX, '"' + _INK_END, name="a" * NAME_MAX),
]
ARGS_FIRST = '<tool_call>{"arguments": {"a": "'
ARGS_FIRST_END = '"}, "name": "f"'
# Arguments before the name: the call starts at the name's closing quote, which must be within
# HOLD_MAX + 1 characters of the region (its start marker included).
HOLD = Probe(
    "hermes",
    ARGS_FIRST,
    "x",
    HOLD_MAX + 1 - len(ARGS_FIRST) - len(ARGS_FIRST_END),
    ARGS_FIRST_END + "}</tool_call>",
)


def plans(text: str, short: bool) -> List[List[str]]:
    """Whole, 1000-character deltas, 7-character deltas, a random split; one character at a
    time when the text is short."""
    out = [[text], [text[i : i + 1000] for i in range(0, len(text), 1000)]]
    out.append([text[i : i + 7] for i in range(0, len(text), 7)])
    out.append(corpus.random_chunks(text, random.Random(len(text)), 12))
    if short:
        out.append(list(text))
    return out


def extract(backend: str, fmt: str, text: str):
    """Non-streaming through the public API: (content, calls, malformed, truncated)."""
    info = toolparse.get_parser(fmt, backend=backend).extract_tool_calls(text)
    malformed = corpus.core_extract(backend, fmt, text)[3]
    calls = [(c.function.name, c.function.arguments) for c in info.tool_calls]
    return info.content, calls, malformed, info.truncated


def stream(backend: str, fmt: str, chunks: List[str]) -> corpus.Streamed:
    p = corpus.core_parser(backend, fmt)
    s = corpus.accumulate(corpus.core_feed_all(p, chunks))
    s.malformed, s.truncated = p.malformed, p.truncated
    return s


def fed_content(backend: str, fmt: str, chunks: List[str]) -> str:
    """The content the feeds emitted, before finish."""
    p = corpus.core_parser(backend, fmt)
    got = []
    for c in chunks:
        d = p.feed(c)
        if d is not None and d[0]:
            got.append(d[0])
    return "".join(got)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("probe", PROBES, ids=repr)
def test_at_the_cap_is_a_call(backend: str, probe: Probe) -> None:
    text = probe.text(probe.cap)
    content, calls, malformed, truncated = extract(backend, probe.fmt, text)
    assert calls == [(probe.name, probe.args)] and not malformed and not truncated, (content, calls)
    for chunks in plans(text, probe.cap == NAME_MAX):
        s = stream(backend, probe.fmt, chunks)
        assert (s.content or None, [(n, a) for _, n, a in s.calls]) == (content, calls), chunks[:3]
        assert not s.malformed


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("probe", PROBES, ids=repr)
def test_past_the_cap_is_content(backend: str, probe: Probe) -> None:
    text = probe.text(probe.cap + 1)
    content, calls, malformed, truncated = extract(backend, probe.fmt, text)
    assert (content, calls) == (text, [])
    assert malformed is not probe.tentative
    # (a call whose start was sent and that never ended is reported truncated as well)
    assert truncated is (probe.started and ")" not in probe.before)
    for chunks in plans(text, probe.cap == NAME_MAX):
        s = stream(backend, probe.fmt, chunks)
        assert (s.malformed, s.truncated) == (malformed, truncated)
        if probe.started:
            # the call's start was sent before the filler; what follows the cap is content
            # (a name's first character over the cap was read as part of it; whitespace over
            # the cap is content from its first character)
            assert [n for _, n, _ in s.calls] == ["f"]
            over = 0 if probe.filler.isspace() else 1
            assert s.content == text[len(probe.before) + probe.cap + over :]
        else:
            assert (s.content, s.calls) == (text, []), chunks[:3]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("probe", [p for p in PROBES if not p.started], ids=repr)
def test_past_the_cap_the_feeds_emit_it(backend: str, probe: Probe) -> None:
    """Nothing waits for the end of the text: long filler is emitted while it streams."""
    text = probe.before + probe.filler * 200_000
    for chunks in ([text], [text[i : i + 1000] for i in range(0, len(text), 1000)]):
        assert fed_content(backend, probe.fmt, chunks) == text
        content, calls, _, _ = extract(backend, probe.fmt, text)
        assert (content, calls) == (text, [])


@pytest.mark.parametrize("backend", BACKENDS)
def test_past_the_cap_inside_a_call_ends_it(backend: str) -> None:
    """After a call started, whitespace past the cap is malformed; the call's start was sent
    and what follows is content (``[f(`` followed by endless spaces)."""
    text = "[f(" + " " * 200_000
    chunks = [text[i : i + 1000] for i in range(0, len(text), 1000)]
    fed = fed_content(backend, "pythonic", chunks)
    assert fed == " " * (200_000 - WS_MAX)
    assert extract(backend, "pythonic", text) == (text, [], True, True)


@pytest.mark.parametrize("backend", BACKENDS)
def test_whitespace_after_a_list_past_the_cap_is_text(backend: str) -> None:
    """After a complete list, whitespace before the optional end marker past the cap is text:
    the call stays, the end marker that follows is content."""
    before = "<|python_start|>[f(a=1)]"
    for k, content in [(WS_MAX, None), (WS_MAX + 1, " " * (WS_MAX + 1) + "<|python_end|>")]:
        text = before + " " * k + "<|python_end|>"
        want = (content, [("f", ARGS)], False, False)
        assert extract(backend, "llama4_pythonic", text) == want
        for chunks in plans(text, False):
            s = stream(backend, "llama4_pythonic", chunks)
            assert (s.content or None, [(n, a) for _, n, a in s.calls]) == want[:2]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("fmt", ["hermes", "longcat"])
def test_whitespace_after_a_tagged_call_past_the_cap_is_text(backend: str, fmt: str) -> None:
    """After a complete call body, whitespace before its end marker past the cap is text: the
    call stays, the end marker that follows is content."""
    start = toolparse.spec.get_spec(fmt).markers["call_start"]
    end = toolparse.spec.get_spec(fmt).markers["call_end"]
    before = start + '{"name": "f", "arguments": {"a": 1}}'
    for k, content in [(WS_MAX, None), (WS_MAX + 1, " " * (WS_MAX + 1) + end)]:
        text = before + " " * k + end
        want = (content, [("f", ARGS)], False, False)
        assert extract(backend, fmt, text) == want
        for chunks in plans(text, False):
            s = stream(backend, fmt, chunks)
            assert (s.content or None, [(n, a) for _, n, a in s.calls]) == want[:2]


XML_CALL = "<function=f>\n<parameter=a>\nx\n</parameter>\n</function>\n</tool_call>"
DS_CALL = "<｜tool▁call▁begin｜>f<｜tool▁sep｜>" + ARGS + "<｜tool▁call▁end｜><｜tool▁calls▁end｜>"


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize(
    "fmt,before,filler,cap,after,past",
    [
        # whitespace after the wrapper past the cap: the wrapper is text, the bare function
        # after it is still a call (the wrapper may be missing)
        ("qwen3_coder", "<tool_call>", " ", WS_MAX, XML_CALL, "wrapper"),
        # a function name past the cap: not a call, the markup is text
        ("qwen3_coder", "<tool_call>\n<function=", "a", NAME_MAX, XML_CALL[11:], "text"),
        # whitespace in a section past the cap: malformed markup
        ("deepseek_v31", "<｜tool▁calls▁begin｜>", " ", WS_MAX, DS_CALL, "malformed"),
        # kimi_k2's section holds only calls: text in it outside a call, however long, is
        # dropped as it comes (nothing is held for it), and the call after it is kept
        (
            "kimi_k2",
            "<|tool_calls_section_begin|>",
            "\n",
            WS_MAX,
            "<|tool_call_begin|>functions.f:0<|tool_call_argument_begin|>"
            + ARGS
            + "<|tool_call_end|><|tool_calls_section_end|>",
            "dropped",
        ),
    ],
)
def test_section_and_wrapper_caps(
    backend: str, fmt: str, before: str, filler: str, cap: int, after: str, past: str
) -> None:
    """The XML and name-separator families: what a start marker is followed by is capped too."""
    for k in (cap, cap + 1):
        text = before + filler * k + after
        content, calls, malformed, truncated = extract(backend, fmt, text)
        if k == cap or past == "dropped":
            assert len(calls) == 1 and not malformed and not truncated, (content, calls)
        elif past == "wrapper":
            assert content == before + filler * k and len(calls) == 1 and not malformed
        else:
            assert (content, calls, malformed) == (text, [], past == "malformed")
        for chunks in plans(text, cap == NAME_MAX):
            s = stream(backend, fmt, chunks)
            if not malformed:
                assert (s.content or None, [(n, a) for _, n, a in s.calls]) == (content, calls)
            assert s.malformed == malformed
        # nothing waits for the end of the text
        long = before + filler * 200_000
        chunks = [long[i : i + 1000] for i in range(0, len(long), 1000)]
        if past == "dropped":
            p = corpus.core_parser(backend, fmt)
            for c in chunks:
                p.feed(c)
            d = p.feed(after)
            assert d is not None and [c[2] for c in d[2]] == ["f"]
            continue
        assert fed_content(backend, fmt, chunks) == long


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_call_region_holds_at_most_hold_max(backend: str) -> None:
    """Arguments before the name are held until the name arrives, up to ``HOLD_MAX``."""
    for k, ok in [(HOLD.cap, True), (HOLD.cap + 1, False)]:
        text = HOLD.text(k)
        content, calls, malformed, _ = extract(backend, "hermes", text)
        if ok:
            assert [n for n, _ in calls] == ["f"] and not malformed
        else:
            assert (content, calls, malformed) == (text, [], True)
        chunks = [text[i : i + 65536] for i in range(0, len(text), 65536)]
        s = stream(backend, "hermes", chunks)
        assert (s.content or None, [(n, a) for _, n, a in s.calls]) == (content, calls)


@pytest.mark.parametrize("probe", PROBES, ids=repr)
def test_twins_agree_at_the_cap(probe: Probe) -> None:
    for k in (probe.cap, probe.cap + 1):
        text = probe.text(k)
        corpus.twin_extract(probe.fmt, text)
        for chunks in plans(text, False)[1:]:
            corpus.twin_stream(probe.fmt, chunks)


def test_the_caps() -> None:
    """The documented values (README "Guarantees"); the Rust side agrees by the tests above."""
    assert (NAME_MAX, WS_MAX, HOLD_MAX) == (256, 4096, 1 << 20)


# Whitespace after a call (the families of ``between``), and around a named_json call's
# arguments: ``before + " " * k + after``.
QWEN_CALL = "<tool_call>\n<function=f>\n<parameter=a>\n1\n</parameter>\n</function>"
MM = "]<]minimax[>["
MM_CALL = (
    MM + "<tool_call>" + MM + '<invoke name="f">' + MM + "<a>1" + MM + "</a>" + MM + "</invoke>"
)
AFTER_CALL = [
    # (format, the call, what follows the whitespace: the block's end or the next call, how
    # many calls past the cap: qwen3_coder reads a bare function as a call, minimax_m3 needs its
    # block)
    ("qwen3_coder", QWEN_CALL, "</tool_call>", 1),
    ("qwen3_coder", QWEN_CALL, QWEN_CALL[len("<tool_call>\n") :], 2),
    ("minimax_m3", MM_CALL, MM + "</tool_call>", 1),
    ("minimax_m3", MM_CALL, MM_CALL[len(MM + "<tool_call>") :], 1),
    ("functiongemma", "<start_function_call>call:f{a:1}", "<end_function_call>", 1),
]
DS31 = "<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>f<｜tool▁sep｜>"
DS31_END = "<｜tool▁call▁end｜><｜tool▁calls▁end｜>"
KIMI = "<|tool_calls_section_begin|><|tool_call_begin|>functions.f:0<|tool_call_argument_begin|>"
KIMI_END = "<|tool_call_end|><|tool_calls_section_end|>"
DS3 = "<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>f\n```json"
AROUND_ARGS = [
    # (format, before, after, the call started before the whitespace)
    ("deepseek_v31", DS31, ARGS + DS31_END, False),
    ("kimi_k2", KIMI, ARGS + KIMI_END, False),
    ("deepseek_v3", DS3, ARGS + "\n```" + DS31_END, False),
    ("deepseek_v31", DS31 + ARGS, DS31_END, True),
    ("kimi_k2", KIMI + ARGS, KIMI_END, True),
    ("deepseek_v3", DS3 + ARGS + "\n```", DS31_END, True),
    ("deepseek_v3", DS3 + ARGS, "```" + DS31_END, True),
]


def _calls(s: corpus.Streamed) -> List[str]:
    return [n for _, n, _ in s.calls]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("fmt,call,after,past", AFTER_CALL, ids=lambda v: str(v)[-14:])
def test_whitespace_after_a_call_past_the_cap_is_text(
    backend: str, fmt: str, call: str, after: str, past: int
) -> None:
    """After a call (xml_params, xml_elements, functiongemma), whitespace past the cap reads as
    text, as after tagged_json's bodies: the call stays, the whitespace is content and so is a
    block end that follows (the next call's start is still a call: the wrapper may be missing).
    Stream == non-stream on every split; the feeds emit a long run as it streams."""
    nxt = call.endswith(after)
    for k in (WS_MAX, WS_MAX + 1):
        text = call + " " * k + after
        content, calls, malformed, truncated = extract(backend, fmt, text)
        want = (1 + nxt) if k == WS_MAX else past
        assert len(calls) == want and not malformed and not truncated, (content, calls)
        if k == WS_MAX:
            assert content is None
        elif k > WS_MAX:
            # the run is content from its first character, and so is a block end after it
            assert content is not None and content.startswith(" " * k)
            if past == 1:
                assert content == " " * k + after
        for chunks in plans(text, False):
            s = stream(backend, fmt, chunks)
            assert (s.content or None, [(n, a) for _, n, a in s.calls]) == (content, calls)
            assert (s.malformed, s.truncated) == (False, False)
    long = call + " " * (10 * WS_MAX)
    for chunks in ([long], [long[i : i + 7] for i in range(0, len(long), 7)], list(long)):
        # nothing waits for the end of the text: past the cap the run is content at once
        assert fed_content(backend, fmt, chunks) == " " * (10 * WS_MAX)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("fmt,before,after,started", AROUND_ARGS, ids=lambda v: str(v)[-14:])
def test_whitespace_around_named_json_arguments_past_the_cap(
    backend: str, fmt: str, before: str, after: str, started: bool
) -> None:
    """named_json: whitespace between the header's separator and the arguments, or between the
    arguments (or the fence) and the end marker, past the cap is malformed markup (as other text
    in a section is, and a header too long): content fallback. Before the arguments no call has
    started, so streaming agrees with non-streaming; after them the call was sent and what was
    held from its end on is content."""
    for k in (WS_MAX, WS_MAX + 1):
        text = before + " " * k + after
        content, calls, malformed, truncated = extract(backend, fmt, text)
        if k == WS_MAX:
            assert (content, calls, malformed) == (None, [("f", ARGS)], False)
        else:
            assert (content, calls, malformed, truncated) == (text, [], True, False)
        for chunks in plans(text, False):
            s = stream(backend, fmt, chunks)
            assert s.malformed == malformed
            if k == WS_MAX or not started:
                assert (s.content or None, [(n, a) for _, n, a in s.calls]) == (content, calls)
            else:
                # the call was sent; its end (the whitespace, the fence) is content
                assert _calls(s) == ["f"]
                assert s.content == text[text.index(ARGS) + len(ARGS) :]
    long = before + " " * (10 * WS_MAX)
    for chunks in ([long], [long[i : i + 7] for i in range(0, len(long), 7)], list(long)):
        fed = fed_content(backend, fmt, chunks)
        assert fed == (long[long.index(ARGS) + len(ARGS) :] if started else long)


# Whitespace between messages (muse, openai/harmony): held until the next header's marker,
# capped the same way (past the cap it reads as text).
MUSE_MSG = "<|start|>assistant to=commentary<|message|>Hi<|eom|>"
MUSE_NEXT = "<|start|>assistant to=user<|message|>Bye<|eot|>"
HARMONY_CALL = (
    "<|channel|>commentary to=functions.f <|constrain|>json<|message|>" + ARGS + "<|call|>"
)
HARMONY_NEXT = "<|start|>assistant<|channel|>final<|message|>Bye"
BETWEEN_MESSAGES = [
    ("muse", "", MUSE_MSG),
    ("muse", MUSE_MSG, MUSE_NEXT),
    ("openai", "", "<|channel|>final<|message|>Bye"),
    ("openai", HARMONY_CALL, HARMONY_NEXT),
]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("fmt,before,after", BETWEEN_MESSAGES, ids=lambda v: str(v)[-14:])
def test_whitespace_between_messages_is_capped(
    backend: str, fmt: str, before: str, after: str
) -> None:
    """Before the first message and between messages, a whitespace run past the cap reads as
    text: at the start of the output it is content; after a harmony tool call (where only
    ``<|start|>`` may follow) it is malformed. Where nothing is malformed, streaming agrees with
    non-streaming on every split; the feeds emit a long run while it streams."""
    for k in (WS_MAX, WS_MAX + 1):
        text = before + " " * k + after
        content, calls, malformed, truncated = extract(backend, fmt, text)
        assert not truncated
        if k == WS_MAX:
            assert not malformed
            assert not (content or "").startswith(" " * k), content
        elif before:
            assert malformed is (fmt == "openai")
        if k > WS_MAX and not before:
            assert content is not None and content.startswith(" " * k)
        for chunks in plans(text, False):
            s = stream(backend, fmt, chunks)
            assert s.malformed == malformed
            if not malformed:
                assert (s.content or None, [(n, a) for _, n, a in s.calls]) == (content, calls)
    long = before + " " * (10 * WS_MAX)
    for chunks in ([long], [long[i : i + 7] for i in range(0, len(long), 7)]):
        fed = fed_content(backend, fmt, chunks)
        # at most one capped run is held (muse's bodies keep a run before a possible " to=")
        assert fed.endswith(" " * (9 * WS_MAX - 1)), len(fed)


@pytest.mark.parametrize(
    "fmt,before,after",
    [(f, c, a) for f, c, a, _ in AFTER_CALL]
    + [(f, b, a) for f, b, a, _ in AROUND_ARGS]
    + BETWEEN_MESSAGES,
    ids=lambda v: str(v)[-14:],
)
def test_twins_agree_on_long_whitespace(fmt: str, before: str, after: str) -> None:
    """Every capped whitespace place above: the Rust core and its twin agree at, past and far
    past the cap, whole and on every split."""
    for k in (WS_MAX, WS_MAX + 1, 10 * WS_MAX):
        text = before + " " * k + after
        corpus.twin_extract(fmt, text)
        for chunks in plans(text, False)[1:]:
            corpus.twin_stream(fmt, chunks)
