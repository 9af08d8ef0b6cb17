"""The ``pythonic`` and ``llama4_pythonic`` formats: both backends, streaming and not.

Decisions this file pins down (see ``rust/formats/pythonic.rs``):

* ``[f(a=1, b='x'), g()]``: keyword arguments whose values are Python literals, converted to
  ``json.dumps(args, ensure_ascii=False)`` (tuples become lists); ``{}`` for no arguments;
* ``tool_start`` once ``name(`` is read; ``{"a": `` once ``a=`` is read; values stream as the
  converter writes them (strings character by character); ``}`` at ``)``;
* a ``[`` anywhere in text may start a list, tentatively: a ``[`` that does not turn out to be
  ``[name(`` goes back to content unchanged; text before/after the list is content (even right
  after a word: ``x[f(a=1)]`` is a call);
* ``<|python_start|>`` / ``<|python_end|>`` (llama4_pythonic) are optional markup; after the start
  marker a list must follow;
* dotted names are calls (the name keeps its dots); sets are lists, JSON's ``null``/``true``/
  ``false`` are read beside Python's, a raw line end in a string is kept (as vLLM reads them in
  every pythonic format);
* a call with a value that is valid literal syntax but has no JSON form (``b'z'``, ``1j``,
  ``...``, ``1e400``) is dropped and the other calls are kept (SGLang and the upstream tests);
* positional arguments, ``**kwargs``, repeated keywords, non-literal values, mismatched
  brackets, unclosed strings and truncation after a call started are malformed (a syntax error
  anywhere, in a dropped call too): non-streaming returns the original text as content with
  ``tools_called=False``.
"""

from __future__ import annotations

from typing import Any, Dict, List, Optional, Tuple

import corpus
import helpers
import pytest
import toolparse
from toolparse import StreamingToolReconstructor, _core, reference

BACKENDS = ("rust", "python")
FORMATS = ("pythonic", "llama4_pythonic")
START, END = "<|python_start|>", "<|python_end|>"

Expected = List[Tuple[str, Dict[str, Any]]]


def forms(fmt: str, body: str) -> List[str]:
    """The ways ``fmt`` writes a call list: bare, and for llama4 between (or after) markers."""
    if fmt == "pythonic":
        return [body]
    return [body, START + body + END, START + body, f"{START}\n{body}\n{END}"]


def parser(fmt: str, backend: str) -> toolparse.ToolParser:
    return toolparse.get_parser(fmt, backend=backend)


def check(fmt: str, backend: str, text: str, content: Optional[str], calls: Expected) -> None:
    helpers.check_converted(fmt, backend, text, content, calls)


def check_malformed(fmt: str, backend: str, text: str) -> None:
    helpers.check_malformed(parser(fmt, backend), text)


params = pytest.mark.parametrize("backend", BACKENDS)
fmts = pytest.mark.parametrize("fmt", FORMATS)


# ----- 1. no tool call -----


@params
@fmts
@pytest.mark.parametrize(
    "text",
    [
        "",
        "   \n ",
        "Just text.",
        "[1] see the reference",
        "[link](url) and [another](x)",
        "Read [O'Reilly] or [a b] or [] or [ x ] or [f] or [f ,] or [[1]]",
        "[get_weather",
        "A list: [1, 2, 3]. A dict: {'a': 1}.",
        "[é(a=1)] [a-b(c=1)]",
    ],
)
def test_no_call(fmt: str, backend: str, text: str) -> None:
    check(fmt, backend, text, text or None, [])


# ----- 2. one call, 5. no arguments -----


@params
@fmts
def test_one_call(fmt: str, backend: str) -> None:
    for text in forms(fmt, "[get_weather(city='Tokyo')]"):
        check(fmt, backend, text, None, [("get_weather", {"city": "Tokyo"})])


@params
@fmts
def test_no_arguments(fmt: str, backend: str) -> None:
    for text in forms(fmt, "[get_current_time()]"):
        check(fmt, backend, text, None, [("get_current_time", {})])


# ----- 3. parallel calls -----


@params
@fmts
def test_parallel_calls(fmt: str, backend: str) -> None:
    body = "[get_weather(city='Paris', unit=\"celsius\"), get_time(), search(q='x', n=3)]"
    want = [
        ("get_weather", {"city": "Paris", "unit": "celsius"}),
        ("get_time", {}),
        ("search", {"q": "x", "n": 3}),
    ]
    for text in forms(fmt, body):
        check(fmt, backend, text, None, want)


@params
@fmts
def test_layout_python_accepts(fmt: str, backend: str) -> None:
    """Whitespace and newlines between tokens, trailing commas."""
    body = "[\n  f( a = 1 ,\n    b = 'x', ),\n  g ( ) ,\n]"
    for text in forms(fmt, body):
        check(fmt, backend, text, None, [("f", {"a": 1, "b": "x"}), ("g", {})])


# ----- 4. every type -----


# (the text of one call's list, its arguments)
EVERY_TYPE = (
    "[f(s='single', d=\"double\", i=42, neg=-7, fl=3.14, e=2.5e3, t=True, fa=False, "
    "n=None, l=[1, 'two', [3]], tu=(1, 2), one=(1,), nested={'a': {'b': [1, {'c': None}]}}, "
    "el=[], ed={}, hx=0x1F, big=12345678901234567890)]",
    {
        "s": "single",
        "d": "double",
        "i": 42,
        "neg": -7,
        "fl": 3.14,
        "e": 2500.0,
        "t": True,
        "fa": False,
        "n": None,
        "l": [1, "two", [3]],
        "tu": [1, 2],
        "one": [1],
        "nested": {"a": {"b": [1, {"c": None}]}},
        "el": [],
        "ed": {},
        "hx": 31,
        "big": 12345678901234567890,
    },
)


# ----- 6. text before / after -----


@params
@fmts
def test_text_around(fmt: str, backend: str) -> None:
    check(fmt, backend, "Let me check. [f(a=1)]", "Let me check. ", [("f", {"a": 1})])
    check(fmt, backend, "[f(a=1)] Done.", " Done.", [("f", {"a": 1})])
    check(fmt, backend, "  \n[f(a=1)]\n  ", None, [("f", {"a": 1})])
    check(fmt, backend, "A [f()] B [g()] C", "A  B  C", [("f", {}), ("g", {})])
    check(fmt, backend, "see [1] then [f()]", "see [1] then ", [("f", {})])
    check(fmt, backend, "Go![f()][g()]", "Go!", [("f", {}), ("g", {})])
    check(fmt, backend, "0[A()]", "0", [("A", {})])


@params
def test_llama4_markers_around_text(backend: str) -> None:
    fmt = "llama4_pythonic"
    check(fmt, backend, f"Hi {START}[f()]{END} bye", "Hi  bye", [("f", {})])
    check(fmt, backend, f"{START} [f()] \n{END}", None, [("f", {})])
    # an end marker not right after a list is text
    check(fmt, backend, f"[f()] so {END}", f" so {END}", [("f", {})])
    # pythonic does not know the markers: they are text, the list is still a call
    check("pythonic", backend, f"{START}[f()]{END}", START + END, [("f", {})])


# ----- 7. escapes and non-ASCII -----


ESCAPES_AND_NON_ASCII = (
    "[f(q='He said \"hi\"', p='C:\\\\Users', nl='\\n', tab='a\\tb', cjk='東京', "
    "emoji='🎉', dq=\"it's\", u='\\u00e9\\U0001F600', x='\\x41', raw=r'\\d+', "
    "tri='''a\n\"b\"''')]",
    {
        "q": 'He said "hi"',
        "p": "C:\\Users",
        "nl": "\n",
        "tab": "a\tb",
        "cjk": "東京",
        "emoji": "🎉",
        "dq": "it's",
        "u": "é😀",
        "x": "A",
        "raw": "\\d+",
        "tri": 'a\n"b"',
    },
)


@params
@fmts
@pytest.mark.parametrize(
    "case", [EVERY_TYPE, ESCAPES_AND_NON_ASCII], ids=["every_type", "escapes_and_non_ascii"]
)
def test_argument_values(fmt: str, backend: str, case: Tuple[str, Dict[str, Any]]) -> None:
    body, want = case
    for text in forms(fmt, body):
        check(fmt, backend, text, None, [("f", want)])


# ----- 8. malformed -----


TRUNCATED = [
    ("[func(arg='val')", 1),
    ("[func(arg=", 0),
    ("[func(arg='unterminated)]", 0),
    ("[f(a=1),", 1),
    ("[f(a=1)] and [g(", 1),
]


@params
@fmts
@pytest.mark.parametrize("text,complete", TRUNCATED)
def test_truncated(fmt: str, backend: str, text: str, complete: int) -> None:
    corpus.check_truncated_output(fmt, backend, text, complete)


@params
@pytest.mark.parametrize("text,complete", [(START, 0), (f"{START}[f(a=1), g(", 1)])
def test_truncated_after_start_marker(backend: str, text: str, complete: int) -> None:
    corpus.check_truncated_output("llama4_pythonic", backend, text, complete)


MALFORMED = [
    "[func(arg='val']",
    "[func(arg=undefined)]",
    "[func(a=1), g(b=[1, 2)]",
    "[f(1)]",
    "[f(x)]",
    "[f(**kw)]",
    "[f(*a)]",
    "[f(a=1, a=2)]",
    "[f(a=1 b=2)]",
    "[f(a=1), 2]",
    "[f(,)]",
    "[f(a=g())]",
    "[f(a=1+2)]",
    "[f(a=x.y)]",
    "[f(a=b'x' 1)]",
    "[f(a=b'x'), g(b=[1, 2)]",
    "[f(a=1jx), g(b=1)]",
    "[f(a=1), g(b=[1, 2)]",
]


@params
@fmts
@pytest.mark.parametrize("text", MALFORMED)
def test_malformed(fmt: str, backend: str, text: str) -> None:
    check_malformed(fmt, backend, text)


@params
@pytest.mark.parametrize(
    "text",
    [
        f"{START}[func(arg='val']{END}",
        f"{START}[func(arg=undefined)]{END}",
        f"{START}print('hello'){END}",
        f"{START}[1, 2]{END}",
        f"{START}[]{END}",
    ],
)
def test_malformed_after_start_marker(backend: str, text: str) -> None:
    check_malformed("llama4_pythonic", backend, text)


@params
@fmts
def test_dotted_names(fmt: str, backend: str) -> None:
    # vLLM reads an attribute chain as a dotted name (its own test: grocery.orderIngredients);
    # the rule replaces "dotted names are not calls"
    for body in forms(fmt, "[grocery.orderIngredients(items=['eggs'], urgent=True), a.b.c()]"):
        check(
            fmt,
            backend,
            body,
            None,
            [("grocery.orderIngredients", {"items": ["eggs"], "urgent": True}), ("a.b.c", {})],
        )
    for text in ["[a.(x=1)]", "[a..b()]", "[a.1()]", "[a. b()]"]:
        check(fmt, backend, text, text, [])
    check_malformed(fmt, backend, "[f(), mod.()]")


@params
@fmts
def test_sets_json_names_and_raw_line_ends(fmt: str, backend: str) -> None:
    text = (
        "[create_issue(labels={'urgent', 'bug'}, meta={'done': false, 'owner': null, "
        "'tags': {1}, 'ok': true}, body='line 1\nline 2', empty={})]"
    )
    want = {
        "labels": ["urgent", "bug"],
        "meta": {"done": False, "owner": None, "tags": [1], "ok": True},
        "body": "line 1\nline 2",
        "empty": {},
    }
    for body in forms(fmt, text):
        check(fmt, backend, body, None, [("create_issue", want)])


# (valid literal syntax, no JSON form): the call is dropped, the others are kept; this replaces
# the rule that made the whole list content (which the bytes and 1e400 cases above pinned)
DROPPED = [
    ("[f(a=b'z'), g(b=1)]", [("g", {"b": 1})]),
    ("[g(b=1), f(a=1, c=[1, 1j]), h()]", [("g", {"b": 1}), ("h", {})]),
    ("[f(a=...), g(x={'k': rb'\\x'})]", []),
    ("[f(a=1e400), g()]", [("g", {})]),
]


@params
@fmts
@pytest.mark.parametrize("text,calls", DROPPED)
def test_call_without_json_form_is_dropped(
    fmt: str, backend: str, text: str, calls: Expected
) -> None:
    want = [(n, helpers.dumps(a)) for n, a in calls]
    for body in forms(fmt, text):
        info = parser(fmt, backend).extract_tool_calls(body)
        assert [(c.function.name, c.function.arguments) for c in info.tool_calls] == want
        assert info.content is None and info.tools_called == bool(want)
        # a stream has sent the dropped call's start and its arguments up to the value; what
        # it sends is the same under every splitting, and it names the dropped calls: without
        # them the streamed calls are the non-streaming ones
        results = set()
        for chunks in helpers.plans(body):
            rec, s = helpers.stream(parser(fmt, backend), chunks)
            assert not s.malformed and not s.truncated
            got = tuple((c.function.name, c.function.arguments) for c in rec.tool_calls)
            results.add((got, rec.other_content, tuple(s.dropped_calls)))
        assert len(results) == 1
        ((got, content, dropped),) = results
        assert content == ""
        assert dropped and all(not got[i][1].endswith("}") for i in dropped)
        assert [c for i, c in enumerate(got) if i not in dropped] == want


@params
def test_nothing_dropped_is_no_dropped_calls(backend: str) -> None:
    s = toolparse.get_parser("pythonic", backend=backend).stream()
    assert s.dropped_calls == []
    s.feed("[f(a=1), g(b=[1, 2")
    assert s.dropped_calls == []
    s.feed("]), h(c=b'x'), k()]")
    assert s.dropped_calls == [2]
    s.finish()
    assert s.dropped_calls == [2]


@params
@fmts
def test_fallback_keeps_the_rest_as_content(fmt: str, backend: str) -> None:
    rec, s = helpers.stream(parser(fmt, backend), ["[f(a=1, ", "2) and more"])
    assert s.malformed
    assert rec.other_content == "2) and more"


# ----- 9. streaming reconstruction equals non-streaming, 10. splits -----


@params
@fmts
def test_named_split(fmt: str, backend: str) -> None:
    chunks = ["[get", "_weather", "(city", "='Tokyo", "')]"]
    s = toolparse.get_parser(fmt, backend=backend).stream()
    deltas = [s.feed(c) for c in chunks] + [s.finish()]
    assert deltas[0] is None and deltas[1] is None
    first = deltas[2].tool_calls[0]
    assert first.index == 0 and first.id and first.function.name == "get_weather"
    assert not first.function.arguments
    assert deltas[3].tool_calls[0].function.arguments == '{"city": "Tokyo'
    assert deltas[4].tool_calls[0].function.arguments == '"}'
    assert deltas[5] is None


def composite(fmt: str) -> str:
    body = (
        "[get_weather(city='Zürich \"CH\"', days=3, ok=True, tags=['a', \"b\"], "
        "meta={'k': (1, 2.5), 'e': {}}), get_time(), note(text='東京 🎉\\n\\\\ end')]"
    )
    if fmt == "llama4_pythonic":
        return f"Sure.\n{START}{body}{END}\nDone."
    return f"Sure.\n{body}\nDone."


COMPOSITE_CALLS: Expected = [
    (
        "get_weather",
        {
            "city": 'Zürich "CH"',
            "days": 3,
            "ok": True,
            "tags": ["a", "b"],
            "meta": {"k": [1, 2.5], "e": {}},
        },
    ),
    ("get_time", {}),
    ("note", {"text": "東京 🎉\n\\ end"}),
]


@params
@fmts
def test_every_split_offset(fmt: str, backend: str) -> None:
    check(fmt, backend, composite(fmt), "Sure.\n\nDone.", COMPOSITE_CALLS)


@params
@fmts
def test_one_char_per_delta_streams_arguments(fmt: str, backend: str) -> None:
    text = "[f(s='abcdef')]"
    s = toolparse.get_parser(fmt, backend=backend).stream()
    args = []
    for c in text:
        d = s.feed(c)
        for tc in d.tool_calls if d is not None else []:
            if tc.function is not None and tc.function.arguments:
                args.append(tc.function.arguments)
    assert s.finish() is None
    # a string's closing quote is written once the next token shows no string continues it
    assert args == ['{"s": ', '"', "a", "b", "c", "d", "e", "f", '"}']


# ----- twins agree per feed -----


TWIN_TEXTS = [
    "[get_weather(city='Tokyo')]",
    "x [1] [f(a=1.5, b=[None, (True,)], c={'k': 'v'})] [link](u) [g()] y",
    f"{START} [f(a='\\u00e9\\n', b=0b101)] {END} after",
    "[func(arg='val']",
    "[func(arg=undefined)] tail",
    f"{START}[1]{END} rest",
    "[f(a='''x''' 'y', b=r\"\\q\")]",
]


def feeds(p: Any, chunks: List[str]) -> List[Any]:
    return [p.feed(c) for c in chunks] + [p.finish(), p.malformed]


@fmts
@pytest.mark.parametrize("text", TWIN_TEXTS + ["<composite>"])
def test_twins_agree_per_feed(fmt: str, text: str) -> None:
    if text == "<composite>":
        text = composite(fmt)
    for chunks in [[text], list(text)] + [[text[:i], text[i:]] for i in range(1, len(text))]:
        a = feeds(_core.Parser(fmt), chunks)
        b = feeds(reference.Parser(fmt), chunks)
        assert a == b, chunks
    assert _core.extract(fmt, text) == reference.extract(fmt, text)


# ----- long arguments stream -----


@params
@fmts
def test_16kb_string_streams_in_small_deltas(fmt: str, backend: str) -> None:
    value = ('The quick brown fox é漢 🎉 "q" \\ ' * 600)[: 16 * 1024]
    text = "[write(path='a.txt', content=" + repr(value) + ")]"
    chunks = [text[i : i + 4] for i in range(0, len(text), 4)]
    s = toolparse.get_parser(fmt, backend=backend).stream()
    rec = StreamingToolReconstructor()
    with_args = 0
    for c in chunks:
        d = s.feed(c)
        if d is not None:
            rec.append_delta(d)
            if any(tc.function is not None and tc.function.arguments for tc in d.tool_calls or ()):
                with_args += 1
    d = s.finish()
    if d is not None:
        rec.append_delta(d)
    assert [(c.function.name, c.function.arguments) for c in rec.tool_calls] == [
        ("write", helpers.dumps({"path": "a.txt", "content": value}))
    ]
    # every feed inside the string carries argument text (a few end inside an escape)
    assert with_args >= 0.95 * len(chunks), (with_args, len(chunks))
