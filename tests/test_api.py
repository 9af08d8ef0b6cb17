"""The Python API contract, for every registered format on both backends."""

from __future__ import annotations

import json
import random
from typing import Any, List, Optional

import corpus
import pytest
import toolparse
from toolparse import (
    DeltaMessage,
    ExtractedToolCallInformation,
    Tool,
    ToolParser,
    ToolParserManager,
    _core,
    reference,
)

# Also run by .ci/wheel against the installed wheel.
pytestmark = pytest.mark.wheel

# ----- the registries -----


def test_list_formats() -> None:
    names = toolparse.list_formats()
    assert isinstance(names, list) and names
    assert all(isinstance(n, str) and n for n in names)
    assert len(set(names)) == len(names)
    for required in ("hermes", "mistral", "llama3_json"):
        assert required in names


def test_both_registries_list_the_same_formats_in_the_same_order() -> None:
    assert reference.list_formats() == _core.list_formats()
    assert toolparse.list_formats() == _core.list_formats()


def test_every_format_has_a_renderer() -> None:
    """No registered format is silently left out of the cross-format tests."""
    missing = [f for f in toolparse.list_formats() if f not in corpus.RENDERERS]
    assert not missing, f"add a renderer to toolparse.testing.renderers.FAMILIES for: {missing}"


def test_every_format_has_malformed_cases() -> None:
    missing = [f for f in toolparse.list_formats() if not corpus.malformed_texts(f)]
    assert not missing, f"add malformed cases to corpus.MALFORMED for: {missing}"


def test_renderers_render_what_they_claim(fmt: str) -> None:
    """Self-check of the corpus: every standard case renders, and its expected arguments are
    JSON objects (for formats that convert: exactly json.dumps(args, ensure_ascii=False))."""
    cases = corpus.standard_cases(fmt)
    assert "one_call" in cases and "parallel" in cases
    for cs in cases.values():
        for c in cs:
            assert c.fmt == fmt and c.text
            for _, args in c.calls:
                assert isinstance(json.loads(args), dict)


# ----- get_parser -----


def test_get_parser_defaults_to_rust(fmt: str) -> None:
    p = toolparse.get_parser(fmt)
    assert isinstance(p, ToolParser)
    assert p.backend == "rust"
    assert p.name == fmt


def test_get_parser_backends(fmt: str, backend: str) -> None:
    p = toolparse.get_parser(fmt, tools=None, backend=backend)
    assert p.backend == backend
    case = corpus.standard_cases(fmt)["one_call"][0]
    p = toolparse.get_parser(fmt, tools=case.tools, backend=backend)
    info = p.extract_tool_calls(case.text)
    assert [(c.function.name, c.function.arguments) for c in info.tool_calls] == case.calls


def test_unknown_format_raises_value_error_listing_known_names() -> None:
    for make in (
        lambda: toolparse.get_parser("no_such_format"),
        lambda: toolparse.get_parser("no_such_format", backend="python"),
        lambda: ToolParser("no_such_format"),
        lambda: _core.Parser("no_such_format"),
        lambda: reference.Parser("no_such_format"),
    ):
        with pytest.raises(ValueError) as e:
            make()
        msg = str(e.value)
        assert "no_such_format" in msg
        for name in toolparse.list_formats():
            assert name in msg, f"{name!r} not listed in {msg!r}"
    with pytest.raises(ValueError):
        _core.extract("no_such_format", "x")
    with pytest.raises(ValueError):
        reference.extract("no_such_format", "x")


def test_no_format_and_no_reasoning_raises_value_error_naming_both(backend: str) -> None:
    # None is an accepted type for both arguments; both None is a bad value, not a bad type
    for make in (
        lambda: toolparse.get_parser(None, backend=backend),
        lambda: toolparse.get_parser(None, backend=backend, reasoning=None),
        lambda: toolparse.get_parser(None, tools=[], backend=backend, reasoning_started=True),
        lambda: ToolParser(backend=backend),
    ):
        with pytest.raises(ValueError) as e:
            make()
        msg = str(e.value)
        assert "name" in msg and "format" in msg and "reasoning" in msg, msg
    # either one alone is enough
    assert toolparse.get_parser(None, backend=backend, reasoning="qwen3").name is None
    assert toolparse.get_parser("hermes", backend=backend).reasoning is None


def test_unknown_backend_raises_value_error(fmt: str) -> None:
    for bad in ("go", "", "Rust", "reference"):
        with pytest.raises(ValueError, match="backend"):
            toolparse.get_parser(fmt, backend=bad)


# ----- extract_tool_calls -----


def test_extract_returns_extracted_information(fmt: str, backend: str) -> None:
    p = toolparse.get_parser(fmt, backend=backend)
    cases = corpus.standard_cases(fmt)
    texts = [c.text for c in cases["one_call"] + cases["parallel"]]
    texts += corpus.no_call_texts(fmt) + corpus.malformed_texts(fmt)
    for text in texts:
        tools = None
        for cs in cases.values():
            for c in cs:
                if c.text == text:
                    tools = c.tools
        info = toolparse.get_parser(fmt, tools=tools, backend=backend).extract_tool_calls(text)
        assert isinstance(info, ExtractedToolCallInformation)
        assert info.tools_called == bool(info.tool_calls)
        assert info.content is None or isinstance(info.content, str)
        for c in info.tool_calls:
            assert c.type == "function" and c.id and c.function.name
            assert isinstance(json.loads(c.function.arguments), dict)
    # a request object is accepted (vLLM passes one) and ignored
    assert p.extract_tool_calls("hi", None).content == "hi"


# ----- stream() -----


def _feed_all(stream: Any, chunks: List[str]) -> List[Optional[DeltaMessage]]:
    return [stream.feed(c) for c in chunks] + [stream.finish()]


def _rebuild(deltas: List[Optional[DeltaMessage]]) -> Any:
    rec = toolparse.StreamingToolReconstructor()
    rec.append_deltas(deltas)
    return (rec.other_content, [(c.function.name, c.function.arguments) for c in rec.tool_calls])


def test_streams_are_independent(fmt: str, backend: str) -> None:
    """Each ``stream()`` has its own state: interleaving two responses changes neither."""
    cases = corpus.standard_cases(fmt)
    a = cases["parallel"][0]
    b = (cases.get("text_both") or cases["one_call"])[0]
    tools = (a.tools or []) + (b.tools or []) or None
    p = toolparse.get_parser(fmt, tools=tools, backend=backend)
    alone_a = _rebuild(_feed_all(p.stream(), list(a.text)))
    alone_b = _rebuild(_feed_all(p.stream(), list(b.text)))
    sa, sb = p.stream(), p.stream()
    da: List[Optional[DeltaMessage]] = []
    db: List[Optional[DeltaMessage]] = []
    for i in range(max(len(a.text), len(b.text))):
        if i < len(a.text):
            da.append(sa.feed(a.text[i]))
        if i < len(b.text):
            db.append(sb.feed(b.text[i]))
    da.append(sa.finish())
    db.append(sb.finish())
    assert _rebuild(da) == alone_a
    assert _rebuild(db) == alone_b
    assert alone_a[1] == a.calls and alone_b[1] == b.calls


def test_feed_returns_none_or_a_non_empty_delta(fmt: str, backend: str) -> None:
    """``feed`` returns None when there is nothing to emit, never an empty DeltaMessage."""
    rng = random.Random(5)
    cases = [c for cs in corpus.standard_cases(fmt).values() for c in corpus.spread(cs)]
    texts = [(c.text, c.tools) for c in cases]
    texts += [(t, None) for t in corpus.malformed_texts(fmt) + corpus.no_call_texts(fmt)]
    nones = 0
    for text, tools in texts:
        p = toolparse.get_parser(fmt, tools=tools, backend=backend)
        for chunks in (list(text), corpus.random_chunks(text, rng)):
            for d in _feed_all(p.stream(), chunks):
                if d is None:
                    nones += 1
                    continue
                assert isinstance(d, DeltaMessage)
                assert d.content or d.reasoning or d.tool_calls, f"empty delta {d!r}"
                assert d.content != "" and d.reasoning != ""
                for tc in d.tool_calls:
                    fn = tc.function
                    assert fn is not None and (fn.name or fn.arguments), f"empty tool call {tc!r}"
    assert nones > 0, "feeding one character at a time must sometimes have nothing to emit"


def test_feed_of_empty_text_returns_none(fmt: str, backend: str) -> None:
    s = toolparse.get_parser(fmt, backend=backend).stream()
    assert s.feed("") is None
    assert s.feed("Hello") is not None or s.finish() is not None


def _marker_prefix(fmt: str) -> Optional[str]:
    r = corpus.renderer(fmt)
    for m in r.markers:
        if len(m) > 1:
            return m[:-1]
    return None


def test_finish_flushes_held_back_text(fmt: str, backend: str) -> None:
    """A possible marker prefix at the end of a delta is held; at finish it is content."""
    prefix = _marker_prefix(fmt)
    if prefix is None:
        pytest.skip(f"{fmt} has no multi-character start marker")
    text = "Hello " + prefix
    s = toolparse.get_parser(fmt, backend=backend).stream()
    d = s.feed(text)
    fed = d.content if d is not None else ""
    assert text.startswith(fed or "")
    assert fed != text, f"{prefix!r} could start a marker: it must be held back"
    end = s.finish()
    assert end is not None and end.content is not None
    assert (fed or "") + end.content == text
    assert not end.tool_calls


def test_hermes_partial_tag_at_end() -> None:
    for backend in corpus.BACKENDS:
        s = toolparse.get_parser("hermes", backend=backend).stream()
        d = s.feed("Hello <tool_")
        assert d is not None and d.content == "Hello "
        assert s.feed("") is None
        end = s.finish()
        assert end is not None and end.content == "<tool_" and not end.tool_calls
        info = toolparse.get_parser("hermes", backend=backend).extract_tool_calls("Hello <tool_")
        assert info.content == "Hello <tool_" and not info.tools_called


def test_feed_after_finish_raises_naming_the_format(fmt: str, backend: str) -> None:
    s = toolparse.get_parser(fmt, backend=backend).stream()
    s.feed("Hello")
    s.finish()
    with pytest.raises(ValueError) as e:
        s.feed("more")
    assert fmt in str(e.value)
    assert s.finish() is None  # finishing again is harmless and emits nothing


# ----- the streaming protocol -----


def test_streaming_protocol(fmt: str, backend: str) -> None:
    """First delta of a call: index, id, type "function", full name; later deltas: only index and
    an arguments fragment; indices start at 0 and increase by one."""
    rng = random.Random(11)
    for cs in corpus.standard_cases(fmt).values():
        for case in corpus.spread(cs):
            p = toolparse.get_parser(fmt, tools=case.tools, backend=backend)
            names = [n for n, _ in case.calls]
            for chunks in ([case.text], list(case.text), corpus.random_chunks(case.text, rng)):
                started: List[str] = []
                for d in _feed_all(p.stream(), chunks):
                    for tc in d.tool_calls if d is not None else []:
                        fn = tc.function
                        assert fn is not None
                        if tc.index == len(started):
                            assert tc.id and tc.type == "function", tc
                            assert fn.name == names[tc.index], (fn.name, names)
                            started.append(tc.id)
                        else:
                            assert 0 <= tc.index < len(started), (tc.index, started)
                            assert tc.id is None and tc.type is None and fn.name is None, tc
                            assert fn.arguments, tc
                        dumped = tc.model_dump(exclude_none=True)
                        assert set(dumped) <= {"index", "id", "type", "function"}
                assert len(started) == len(names), (case.label, chunks)
                assert len(set(started)) == len(started)


# ----- tools -----


def test_tools_as_models_or_dicts(fmt: str, backend: str) -> None:
    cases = corpus.standard_cases(fmt)
    for case in cases["all_types"] + cases["parallel"]:
        tool_dicts = case.tools or corpus.tools_for([(n, json.loads(a)) for n, a in case.calls])
        models = [Tool.model_validate(t) for t in tool_dicts]
        results = []
        for tools in (tool_dicts, models, models[:1] + tool_dicts[1:]):
            info = toolparse.get_parser(fmt, tools=tools, backend=backend).extract_tool_calls(
                case.text
            )
            results.append([(c.function.name, c.function.arguments) for c in info.tool_calls])
        assert results[0] == results[1] == results[2] == case.calls, case.label


# ----- pickling and copying -----

_HERMES_CALL = '<tool_call>{"name": "get_weather", "arguments": {"city": "Paris"}}</tool_call>'


def _pickle_cases() -> List[Any]:
    """(format, get_parser options, model outputs): a JSON format, one with Mistral's ids, two
    typed by their tools (xml_params, and xml_elements with its schema trees), reasoning with and
    without a tool format."""
    typed = [corpus.standard_cases(f)["all_types"][0] for f in ("qwen3_coder", "minimax_m3")]
    return [
        ("hermes", {}, [f"Sure. {_HERMES_CALL}", f"{_HERMES_CALL}\n{_HERMES_CALL}", "no call"]),
        ("mistral", {}, ['[TOOL_CALLS][{"name": "f", "arguments": {"a": 1}}]']),
        ("qwen3_coder", {"tools": typed[0].tools}, [typed[0].text]),
        ("minimax_m3", {"tools": typed[1].tools}, [typed[1].text]),
        (
            "hermes",
            {"reasoning": "qwen3", "reasoning_started": True},
            [f"let me see</think>Sure. {_HERMES_CALL}", "still thinking"],
        ),
        (None, {"reasoning": "deepseek_r1"}, ["<think>r</think>the answer"]),
    ]


def _results(parser: ToolParser, texts: List[str]) -> List[Any]:
    """Everything ``parser`` gives for ``texts``: extract, and the deltas of a stream in
    4-character pieces."""
    out: List[Any] = []
    for text in texts:
        out.append(parser.extract_tool_calls(text))
        _, deltas = corpus.facade_stream(parser, [text[i : i + 4] for i in range(0, len(text), 4)])
        out.append(deltas)
    return out


@pytest.mark.parametrize("how", ["pickle", "deepcopy"])
def test_a_parser_pickles_and_deep_copies_to_one_giving_the_same_results(
    backend: str, how: str
) -> None:
    import copy
    import pickle

    for fmt, options, texts in _pickle_cases():
        # a seeded id source: the copy continues from the same state, so even ids are the same
        p = toolparse.get_parser(fmt, backend=backend, ids=toolparse.IdSource(7), **options)
        q = pickle.loads(pickle.dumps(p)) if how == "pickle" else copy.deepcopy(p)
        assert type(q) is ToolParser and q is not p
        assert (q.name, q.backend, q.reasoning, q.reasoning_started, q.tools) == (
            p.name,
            p.backend,
            p.reasoning,
            p.reasoning_started,
            p.tools,
        )
        assert q._ids is not p._ids
        # the copy is used first: ids the same afterwards on the original show the two are
        # independent (a shared id source would have moved on)
        got, want = _results(q, texts), _results(p, texts)
        assert got == want, (fmt, options)
    # the tools came through: typed values are converted by their schema
    fmt, options, texts = _pickle_cases()[2]
    q = pickle.loads(pickle.dumps(toolparse.get_parser(fmt, backend=backend, **options)))
    assert json.loads(q.extract_tool_calls(texts[0]).tool_calls[0].function.arguments)["age"] == 30


def test_a_registered_parser_class_pickles_as_itself(backend: str) -> None:
    import copy
    import pickle

    for name in ("hermes", "qwen3_coder", "granite-20b-fc"):
        cls = ToolParserManager.get_tool_parser(name)
        p = cls(backend=backend)
        for q in (pickle.loads(pickle.dumps(p)), copy.deepcopy(p)):
            assert type(q) is cls and (q.name, q.backend) == (p.name, backend)
            text = "hi " + _HERMES_CALL
            assert q.extract_tool_calls(text).content == p.extract_tool_calls(text).content


def test_a_stream_refuses_pickling_with_a_type_error_naming_its_class(backend: str) -> None:
    import copy
    import pickle

    stream = toolparse.get_parser("hermes", backend=backend).stream()
    stream.feed("<tool_call>")
    with pytest.raises(TypeError, match=r"^cannot pickle 'ToolCallStream' object"):
        pickle.dumps(stream)
    with pytest.raises(TypeError, match=r"^cannot pickle 'ToolCallStream' object"):
        copy.deepcopy(stream)
    # the refused attempt left the stream usable
    d = stream.feed('{"name": "f", "arguments": {}}</tool_call>')
    assert d is not None and d.tool_calls[0].function.name == "f"


def test_a_parser_runs_in_a_spawned_process_pool() -> None:
    """Both backends in one small pool: each task gets the parser pickled as it was (chunksize
    1), so it gives what a fresh copy gives here, ids included."""
    import copy
    import multiprocessing

    tasks = []
    for backend in ("rust", "python"):
        for fmt, options, texts in _pickle_cases()[2:5]:
            p = toolparse.get_parser(fmt, backend=backend, ids=toolparse.IdSource(1), **options)
            tasks += [(p, text) for text in texts]
    want = [copy.deepcopy(p).extract_tool_calls(text) for p, text in tasks]
    with multiprocessing.get_context("spawn").Pool(1) as pool:
        got = pool.starmap(ToolParser.extract_tool_calls, tasks, chunksize=1)
    assert got == want
    assert all(info.tools_called for info in got[:2])


# ----- ToolParserManager -----


def test_tool_parser_manager_builtins(fmt: str, backend: str) -> None:
    cls = ToolParserManager.get_tool_parser(fmt)
    assert issubclass(cls, ToolParser)
    assert fmt in ToolParserManager.list_registered()
    case = corpus.standard_cases(fmt)["one_call"][0]
    p = cls(tools=case.tools, backend=backend)
    assert p.name == fmt
    info = p.extract_tool_calls(case.text)
    assert [(c.function.name, c.function.arguments) for c in info.tool_calls] == case.calls


def test_tool_parser_manager_unknown_name() -> None:
    with pytest.raises((ValueError, KeyError)):
        ToolParserManager.get_tool_parser("no_such_parser")


def test_tool_parser_manager_register_module() -> None:
    before = dict(ToolParserManager.tool_parsers)
    try:

        @ToolParserManager.register_module("my_hermes")
        class MyHermes(ToolParser):
            format_name = "hermes"

        assert ToolParserManager.get_tool_parser("my_hermes") is MyHermes
        assert "my_hermes" in ToolParserManager.list_registered()
        info = MyHermes().extract_tool_calls(
            '<tool_call>{"name": "f", "arguments": {}}</tool_call>'
        )
        assert info.tool_calls[0].function.name == "f"

        @ToolParserManager.register_module(["alias_a", "alias_b"])
        class Aliased(ToolParser):
            format_name = "mistral"

        assert ToolParserManager.get_tool_parser("alias_a") is Aliased
        assert ToolParserManager.get_tool_parser("alias_b") is Aliased

        class ByName(ToolParser):
            format_name = "llama3_json"

        ToolParserManager.register_module(module=ByName)
        assert ToolParserManager.get_tool_parser("ByName") is ByName
    finally:
        ToolParserManager.tool_parsers.clear()
        ToolParserManager.tool_parsers.update(before)
    assert "my_hermes" not in ToolParserManager.list_registered()
