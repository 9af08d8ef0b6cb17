"""The ``mistral`` format with model-given call ids: both backends, streaming and not.

Decisions this file pins down (see ``rust/formats/mistral.rs``):

* ``[TOOL_CALLS]name[CALL_ID]id[ARGS]{...}`` (mistral-common's v11 form with call ids, repeated for
  parallel calls): the id the model wrote is the call's id, in non-streaming results and on the
  first streamed delta of the call; no id is generated for it;
* an id is ASCII letters and digits, 1 to ``ID_MAX`` (64) of them; whitespace may surround it and
  ``[ARGS]`` after it may be missing, as for the name;
* an empty id, a longer one, or another character in it is malformed markup: non-streaming gives
  the original text as content;
* an id an earlier call already has is not reused: that call gets a generated one;
* without ``[CALL_ID]`` nothing changes: ids are generated (9 alphanumerics).

The rest of the format is tested by the cross-format suites (``test_patterns``,
``test_properties``).
"""

from __future__ import annotations

from typing import List, Optional, Tuple

import corpus
import helpers
import pytest
import toolparse
from toolparse import _core, reference

BACKENDS = ("rust", "python")
FMT = "mistral"
ID_MAX = 64

# mistral-common's chat-template test renders `[TOOL_CALLS]get_weather[CALL_ID]abc123def[ARGS]`.
ONE = '[TOOL_CALLS]get_weather[CALL_ID]abc123def[ARGS]{"city": "Paris", "unit": "celsius"}'
TWO = (
    "Let me check both.[TOOL_CALLS]get_weather[CALL_ID]abc123DEF"
    '[ARGS]{"city": "東京", "q": "say \\"hi\\" 🎉"}'
    "[TOOL_CALLS]get_time[CALL_ID]Z9y8X7w6V[ARGS]{}"
)
TWO_CALLS = [
    ("abc123DEF", "get_weather", '{"city": "東京", "q": "say \\"hi\\" 🎉"}'),
    ("Z9y8X7w6V", "get_time", "{}"),
]

BAD_IDS = [
    "[TOOL_CALLS]f[CALL_ID][ARGS]{}",
    "[TOOL_CALLS]f[CALL_ID]{}",
    "[TOOL_CALLS]f[CALL_ID]ab-cd[ARGS]{}",
    "[TOOL_CALLS]f[CALL_ID]ab_cd[ARGS]{}",
    "[TOOL_CALLS]f[CALL_ID]ab cd[ARGS]{}",
    "[TOOL_CALLS]f[CALL_ID]abé[ARGS]{}",
    '[TOOL_CALLS]f[CALL_ID]"abc"[ARGS]{}',
    "[TOOL_CALLS][CALL_ID]abc[ARGS]{}",
    f"[TOOL_CALLS]f[CALL_ID]{'a' * (ID_MAX + 1)}[ARGS]{{}}",
    # a good call, then a bad id
    ONE + "[TOOL_CALLS]g[CALL_ID]x.y[ARGS]{}",
]

# cut off by the end of the text in or after the id: truncated
CUT_IDS = ["[TOOL_CALLS]f[CALL_ID]", "[TOOL_CALLS]f[CALL_ID]abc", "[TOOL_CALLS]f[CALL_ID]abc[ARGS]"]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("text", CUT_IDS)
def test_cut_ids_are_truncated(backend: str, text: str) -> None:
    corpus.check_truncated_output(FMT, backend, text, 0)
    corpus.check_truncated_output(FMT, backend, ONE + text, 1)
    info = parser(backend).extract_tool_calls(ONE + text)
    assert info.content is None


def parser(backend: str) -> toolparse.ToolParser:
    return toolparse.get_parser(FMT, backend=backend)


def streamed(backend: str, chunks: List[str]) -> Tuple[str, List[Tuple[str, str, str]], bool]:
    """Streams through the facade: (content, [(id, name, arguments)], malformed)."""
    rec, s = helpers.stream(parser(backend), chunks)
    calls = [(c.id, c.function.name, c.function.arguments) for c in rec.tool_calls]
    return rec.other_content, calls, s.malformed


def check(backend: str, text: str, content: Optional[str], calls: List[Tuple[str, str, str]]):
    info = helpers.check(parser(backend), text, content, [(n, a) for _, n, a in calls], exact=True)
    assert [c.id for c in info.tool_calls] == [i for i, _, _ in calls]
    for chunks in ([text], list(text)):
        assert streamed(backend, chunks) == (content or "", calls, False)


@pytest.mark.parametrize("backend", BACKENDS)
def test_one_call_with_its_id(backend: str) -> None:
    check(
        backend, ONE, None, [("abc123def", "get_weather", '{"city": "Paris", "unit": "celsius"}')]
    )


@pytest.mark.parametrize("backend", BACKENDS)
def test_parallel_calls_with_their_ids(backend: str) -> None:
    check(backend, TWO, "Let me check both.", TWO_CALLS)


@pytest.mark.parametrize("backend", BACKENDS)
def test_the_first_delta_of_a_call_carries_the_model_id(backend: str) -> None:
    s = parser(backend).stream()
    starts = []
    for d in [s.feed(c) for c in TWO] + [s.finish()]:
        for tc in (d.tool_calls if d is not None else None) or []:
            if tc.function is not None and tc.function.name is not None:
                starts.append((tc.index, tc.id, tc.function.name))
            else:
                assert tc.id is None
    assert starts == [(0, "abc123DEF", "get_weather"), (1, "Z9y8X7w6V", "get_time")]


@pytest.mark.parametrize("backend", BACKENDS)
def test_ids_are_not_generated_for_model_given_ones(backend: str) -> None:
    # a seeded id source would give the same ids to both parsers: the model's ids win
    p = toolparse.get_parser(FMT, backend=backend, ids=toolparse.IdSource(7))
    info = p.extract_tool_calls(TWO)
    assert [c.id for c in info.tool_calls] == ["abc123DEF", "Z9y8X7w6V"]


@pytest.mark.parametrize("backend", BACKENDS)
def test_mixed_calls_with_and_without_ids(backend: str) -> None:
    text = "[TOOL_CALLS]f[ARGS]{}[TOOL_CALLS]g[CALL_ID]Ab1[ARGS]{}[TOOL_CALLS]h{}"
    info = parser(backend).extract_tool_calls(text)
    ids = [c.id for c in info.tool_calls]
    assert [c.function.name for c in info.tool_calls] == ["f", "g", "h"]
    assert ids[1] == "Ab1"
    for generated in (ids[0], ids[2]):
        assert len(generated) == 9 and generated.isalnum() and generated.isascii()
    assert len(set(ids)) == 3


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_repeated_id_is_not_reused(backend: str) -> None:
    text = "[TOOL_CALLS]f[CALL_ID]Same12345{}[TOOL_CALLS]g[CALL_ID]Same12345[ARGS]{}"
    for ids in (
        [c.id for c in parser(backend).extract_tool_calls(text).tool_calls],
        [i for i, _, _ in streamed(backend, list(text))[1]],
    ):
        assert ids[0] == "Same12345"
        assert ids[1] != "Same12345" and len(ids[1]) == 9 and ids[1].isalnum()
    core = (_core.extract if backend == "rust" else reference.extract)(FMT, text)
    assert [c[0] for c in core[2]] == ["Same12345", None]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize(
    "text,calls",
    [
        # whitespace around the id, as around the name
        ("[TOOL_CALLS]f [CALL_ID] a1 [ARGS] {}", [("a1", "f", "{}")]),
        # `[ARGS]` missing after the id, as after a name
        ('[TOOL_CALLS]f[CALL_ID]b2{"a": 1}', [("b2", "f", '{"a": 1}')]),
        # mistral-common's tokenizer test shape (3 characters), and ids at the cap
        ("[TOOL_CALLS]a_a_a[CALL_ID]ABC[ARGS]{}", [("ABC", "a_a_a", "{}")]),
        (f"[TOOL_CALLS]f[CALL_ID]{'z' * ID_MAX}[ARGS]{{}}", [("z" * ID_MAX, "f", "{}")]),
        # `[CALL_ID]` text inside the arguments is argument text
        (
            '[TOOL_CALLS]f[CALL_ID]x1[ARGS]{"s": "[CALL_ID]y[ARGS]"}',
            [("x1", "f", '{"s": "[CALL_ID]y[ARGS]"}')],
        ),
    ],
)
def test_id_shapes(backend: str, text: str, calls: List[Tuple[str, str, str]]) -> None:
    check(backend, text, None, calls)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("text", BAD_IDS)
def test_bad_ids_are_malformed(backend: str, text: str) -> None:
    info = parser(backend).extract_tool_calls(text)
    assert info.tools_called is False
    assert info.content == text
    x = (_core.extract if backend == "rust" else reference.extract)(FMT, text)
    assert x[3] is True
    for chunks in ([text], list(text)):
        content, calls, malformed = streamed(backend, chunks)
        assert malformed is True
        # every character is somewhere: content, or a call streamed before the bad one
        assert content.endswith(text[text.rindex("[TOOL_CALLS]") :])


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("text", [ONE, TWO, "[TOOL_CALLS]f [CALL_ID] a1 [ARGS] {}", BAD_IDS[2]])
def test_every_split(backend: str, text: str) -> None:
    """Every single cut, and every pair of cuts inside the call markup, give one result."""
    whole = streamed(backend, [text])
    for a in range(len(text) + 1):
        assert streamed(backend, [text[:a], text[a:]]) == whole, a
    start = text.index("[TOOL_CALLS]")
    end = min(len(text), text.index("[ARGS]", start) + 8) if "[ARGS]" in text else len(text)
    for a in range(start, end + 1):
        for b in range(a, end + 1):
            assert streamed(backend, [text[:a], text[a:b], text[b:]]) == whole, (a, b)


@pytest.mark.parametrize("text", [ONE, TWO, *BAD_IDS])
def test_twins_agree_per_feed(text: str) -> None:
    helpers.check_twins_per_feed(FMT, text)


@pytest.mark.parametrize("backend", BACKENDS)
def test_every_splitting_at_unit_boundaries(backend: str) -> None:
    """The text as units (markers, pieces of names, ids and arguments): every way of cutting it
    into deltas at unit boundaries gives one result on the core parser."""
    units = ["Hi", "[TOOL_CALLS]", "get", "_x", "[CALL_ID]", "ab", "12", " ", "[ARGS]"]
    units += ['{"a"', ": 1}", "[TOOL_CALLS]g[CALL_ID]", "Z9{}"]
    expected = ("Hi", [("ab12", "get_x", '{"a": 1}'), ("Z9", "g", "{}")])
    for chunks in helpers.unit_splittings(units):
        p = corpus.core_parser(backend, FMT)
        content, reasoning, calls = helpers.core_outcome(p, chunks)
        assert (content, calls) == expected and reasoning == "", chunks
        assert p.malformed is False
