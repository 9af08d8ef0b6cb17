"""The Rust backend's stream builds its DeltaMessages in the binding (``_core.Parser.feed_message``
/ ``finish_message``). They must be the very objects the Python fast constructors build
(``ToolCallStream._message`` over the core's tuples, ``DeltaMessage._fast`` / ``_fast_tool_args``):
same class, same ``__dict__`` in the same order, same fields set, equal, same repr and dumps,
copyable and picklable. Checked for every delta shape, on pydantic's minimum too (``wheel``)."""

from __future__ import annotations

import pickle
from typing import Any, List, Optional, Set, Tuple

import pytest
import toolparse
from pydantic import BaseModel
from toolparse import IdSource
from toolparse.models import DeltaFunctionCall, DeltaMessage, DeltaToolCall
from toolparse.parser import ToolCallStream, _core

pytestmark = [
    pytest.mark.wheel,
    pytest.mark.skipif(_core is None, reason="the Rust backend is not built"),
]

HERMES_CALL = '<tool_call>{"name": "get_weather", "arguments": {"city": "Paris"}}</tool_call>'
HERMES_CALL2 = '<tool_call>{"name": "search", "arguments": {"q": "pizza", "n": 5}}</tool_call>'
KIMI = (
    "Checking.<|tool_calls_section_begin|><|tool_call_begin|>functions.get_weather:0"
    '<|tool_call_argument_begin|>{"city": "Paris"}<|tool_call_end|><|tool_call_begin|>'
    'functions.search:1<|tool_call_argument_begin|>{"q": "pizza"}<|tool_call_end|>'
    "<|tool_calls_section_end|>"
)

# (format, reasoning, reasoning_started, text, chunk sizes: 0 = the whole text in one delta)
CASES: List[Tuple[str, Optional[str], Optional[bool], str, Tuple[int, ...]]] = [
    ("hermes", None, None, "Hello there, " + HERMES_CALL + HERMES_CALL2, (0, 1, 4, 9)),
    ("hermes", None, None, "Just text, no call at all.", (0, 3)),
    ("hermes", None, None, "Cut off: " + HERMES_CALL[:-20], (0, 4)),
    ("hermes", None, None, "Held back at the end: <tool_ca", (0, 4)),  # finish() flushes
    ("pythonic", None, None, '[get_weather(city="Paris"), search(q="pizza")]', (0, 1, 6)),
    ("hermes", "qwen3", True, "Let me think.</think>Sure. " + HERMES_CALL, (0, 4, 7)),
    ("hermes", "qwen3", True, "Still thinking", (0, 5)),
    ("kimi_k2", None, None, KIMI, (0, 4, 11)),
    (
        "qwen3_coder",
        None,
        None,
        "<tool_call>\n<function=f>\n<parameter=a>\n1\n</parameter>\n</function>\n</tool_call>",
        (0, 2, 5),
    ),
]


def _chunks(text: str, n: int) -> List[str]:
    return [text] if n == 0 else [text[i : i + n] for i in range(0, len(text), n)]


def _shape(m: DeltaMessage) -> Set[str]:
    """The delta shapes one message shows (to check every shape was compared)."""
    out = set()
    if m.content is not None and m.reasoning is not None:
        out.add("content+reasoning")
    elif m.content is not None:
        out.add("content")
    elif m.reasoning is not None:
        out.add("reasoning")
    if len(m.tool_calls) > 1:
        out.add("several calls")
    for c in m.tool_calls:
        if c.id is None:
            out.add("arguments fragment")
        elif c.function is not None and c.function.arguments is not None:
            out.add("call start with arguments")
        else:
            out.add("call start")
    return out


def _same(got: Any, want: Any) -> None:
    """Deep identity of two results: classes, __dict__ keys in order, values, fields sets and the
    private slots."""
    assert type(got) is type(want)
    if isinstance(want, BaseModel):
        assert list(got.__dict__) == list(want.__dict__)
        assert got.__pydantic_fields_set__ == want.__pydantic_fields_set__
        assert type(got.__pydantic_fields_set__) is set
        assert got.__pydantic_extra__ is None and want.__pydantic_extra__ is None
        assert got.__pydantic_private__ is None and want.__pydantic_private__ is None
        for key, value in want.__dict__.items():
            _same(got.__dict__[key], value)
    elif isinstance(want, list):
        assert len(got) == len(want)
        for g, w in zip(got, want):
            _same(g, w)
    else:
        assert got == want


def _check(got: Optional[DeltaMessage], want: Optional[DeltaMessage]) -> None:
    if want is None:
        assert got is None
        return
    assert got is not None
    _same(got, want)
    assert got == want
    assert repr(got) == repr(want)
    assert got.model_dump() == want.model_dump()
    assert got.model_dump(exclude_none=True) == want.model_dump(exclude_none=True)
    assert got.model_dump(exclude_unset=True) == want.model_dump(exclude_unset=True)
    assert got.model_dump_json() == want.model_dump_json()
    assert DeltaMessage.model_validate(got.model_dump()) == got
    copied = got.model_copy(update={"role": "assistant"})
    _same(copied, want.model_copy(update={"role": "assistant"}))
    assert got.role is None  # the copy did not touch the original
    _same(got.model_copy(deep=True), want)
    _same(pickle.loads(pickle.dumps(got)), want)


def _pair(fmt: str, reasoning: Optional[str], started: Optional[bool]) -> Tuple[Any, Any]:
    """(the public stream, a stream of the same parser setup whose core's tuples go through the
    Python fast constructors), with the same id sequence."""
    kw: Any = {"reasoning": reasoning, "reasoning_started": started}
    fast = toolparse.get_parser(fmt, ids=IdSource(7), **kw).stream()
    ref = toolparse.get_parser(fmt, ids=IdSource(7), **kw).stream()
    return fast, ref


def test_binding_builds_what_the_fast_constructors_build() -> None:
    shapes: Set[str] = set()
    for fmt, reasoning, started, text, sizes in CASES:
        for n in sizes:
            fast, ref = _pair(fmt, reasoning, started)
            for chunk in _chunks(text, n):
                got = fast.feed(chunk)
                d = ref._core.feed(chunk)
                want = None if d is None else ToolCallStream._message(ref, d)
                _check(got, want)
                if want is not None:
                    shapes |= _shape(want)
            d = ref._core.finish()
            want = None if d is None else ToolCallStream._message(ref, d)
            got = fast.finish()
            _check(got, want)
            if want is not None:
                shapes |= _shape(want)
                shapes.add("finish")
    assert shapes == {
        "content",
        "reasoning",
        "content+reasoning",
        "several calls",
        "arguments fragment",
        "call start",
        "call start with arguments",
        "finish",
    }


def test_ids_given_and_made() -> None:
    """hermes carries no ids (the parser's IdSource makes them, once per call, in order);
    kimi_k2's come from the text."""
    s = toolparse.get_parser("hermes", ids=IdSource(3)).stream()
    m = s.feed(HERMES_CALL + HERMES_CALL2)
    ids = IdSource(3)
    assert m is not None
    assert [c.id for c in m.tool_calls] == [ids.make("chatcmpl"), ids.make("chatcmpl")]
    m = toolparse.get_parser("kimi_k2").stream().feed(KIMI)
    assert m is not None
    assert [c.id for c in m.tool_calls] == ["functions.get_weather:0", "functions.search:1"]


def test_the_hottest_delta_matches_fast_tool_args() -> None:
    s = toolparse.get_parser("hermes").stream()
    s.feed('<tool_call>{"name": "f", "arguments": {"a": ')
    got = s.feed('"xyz"')
    _check(got, DeltaMessage._fast_tool_args(0, '"xyz"'))
    assert type(got.tool_calls[0]) is DeltaToolCall  # type: ignore[union-attr]
    assert type(got.tool_calls[0].function) is DeltaFunctionCall  # type: ignore[union-attr]


@pytest.mark.parametrize("backend", ["rust", "python"])
def test_feed_errors(backend: str) -> None:
    s = toolparse.get_parser("hermes", backend=backend).stream()
    with pytest.raises(TypeError, match=r"^delta_text must be a str, not int$"):
        s.feed(3)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match=r"^delta_text must be a str, not bytes$"):
        s.feed(b"x")  # type: ignore[arg-type]
    assert s.feed("hello") is not None
    s.finish()
    with pytest.raises(ValueError, match=r"feed\(\) after finish\(\)"):
        s.feed("more")


def test_feed_is_still_a_documented_method() -> None:
    assert callable(ToolCallStream.feed) and "delta" in (ToolCallStream.feed.__doc__ or "")
    assert "flushes" in (ToolCallStream.finish.__doc__ or "")
    # The Python backend runs the class's method; the Rust one binds the native method.
    py = toolparse.get_parser("hermes", backend="python").stream()
    assert py.feed.__func__ is ToolCallStream.feed  # type: ignore[attr-defined]
    rs = toolparse.get_parser("hermes").stream()
    assert rs.feed == rs._core.feed_message


def test_set_models_once() -> None:
    _core.set_models(DeltaMessage, DeltaToolCall, DeltaFunctionCall)  # the same: a no-op
    with pytest.raises(RuntimeError, match="already set"):
        _core.set_models(DeltaToolCall, DeltaMessage, DeltaFunctionCall)
    m = toolparse.get_parser("hermes").stream().feed("hi")
    assert type(m) is DeltaMessage


# ---- a server's own classes: _core.DeltaModels (vLLM's layout), Format.parser(record=True) ----
class _VFunction(BaseModel):
    """Stand-ins shaped as vLLM's delta classes: a call's fields are id, type, index, function;
    the message and the call allow extra fields."""

    name: Optional[str] = None
    arguments: Optional[str] = None


class _VCall(BaseModel, extra="allow"):
    id: Optional[str] = None
    type: Optional[str] = None
    index: int
    function: Optional[_VFunction] = None


class _VMessage(BaseModel, extra="allow"):
    role: Optional[str] = None
    content: Optional[str] = None
    reasoning: Optional[str] = None
    tool_calls: List[_VCall] = []


def _vllm_parser(fmt: str, record: bool = True) -> Any:
    models = _core.DeltaModels(_VMessage, _VCall, _VFunction, "vllm")
    ids = IdSource(5)
    return _core.Format(fmt).parser(lambda: ids.make("chatcmpl"), models, record)


def test_vllm_layout_builds_the_servers_classes() -> None:
    """Every delta shape in the server's classes, dumping as the facade's own deltas do."""
    shapes: Set[str] = set()
    for fmt, reasoning, started, text, sizes in CASES:
        for n in sizes:
            models = _core.DeltaModels(_VMessage, _VCall, _VFunction, "vllm")
            kw: Any = {"reasoning": reasoning, "reasoning_started": started}
            same_ids = toolparse.get_parser(fmt, ids=IdSource(7), **kw)
            p = same_ids._format.parser(same_ids.new_id, models)
            ref = toolparse.get_parser(fmt, ids=IdSource(7), **kw).stream()
            pairs = [(p.feed_message(c), ref.feed(c)) for c in _chunks(text, n)]
            pairs.append((p.finish_message(), ref.finish()))
            extras = []
            for got, want in pairs:
                if want is None:
                    assert got is None
                    continue
                shapes |= _shape(want)
                assert type(got) is _VMessage
                assert list(got.__dict__) == ["role", "content", "reasoning", "tool_calls"]
                assert got.model_dump(exclude_unset=True) == want.model_dump(exclude_unset=True)
                assert got.__pydantic_fields_set__ == want.__pydantic_fields_set__
                assert got.__pydantic_extra__ == {} and got.__pydantic_private__ is None
                extras.append(got.__pydantic_extra__)
                for c, w in zip(got.tool_calls, want.tool_calls):
                    assert type(c) is _VCall and type(c.function) is _VFunction
                    assert list(c.__dict__) == ["id", "type", "index", "function"]
                    assert c.__pydantic_fields_set__ == w.__pydantic_fields_set__
                    assert c.__pydantic_extra__ == {} and c.function.__pydantic_extra__ is None
                    extras.append(c.__pydantic_extra__)
                assert _VMessage.model_validate(got.model_dump()) == got
                assert pickle.loads(pickle.dumps(got)) == got
            # a new extra dict for each instance, never one shared
            assert len({id(e) for e in extras}) == len(extras)
    assert {"content", "reasoning", "several calls", "arguments fragment", "call start"} <= shapes


def test_unknown_layout_or_wrong_classes_are_value_errors() -> None:
    with pytest.raises(ValueError, match='unknown delta model layout "other"'):
        _core.DeltaModels(_VMessage, _VCall, _VFunction, "other")
    with pytest.raises(ValueError, match="the Sglang layout takes no function class"):
        _core.DeltaModels(_VMessage, _VCall, _VFunction, "sglang")
    with pytest.raises(ValueError, match="the Vllm layout takes a function class"):
        _core.DeltaModels(_VMessage, _VCall, None, "vllm")


class _SItem(BaseModel):
    """Stand-ins shaped as SGLang's ToolCallItem and StreamingParseResult."""

    tool_index: int
    name: Optional[str] = None
    parameters: str


class _SResult(BaseModel):
    normal_text: str = ""
    calls: List[_SItem] = []


def test_sglang_layout_gives_a_result_for_every_feed() -> None:
    """Every feed gives a StreamingParseResult (an empty one when nothing is new); items carry
    the name on a call's first fragment; reasoning is not part of it; the text and calls add up
    to the facade's."""
    models = _core.DeltaModels(_SResult, _SItem, None, "sglang")
    for fmt, reasoning, started, text, sizes in CASES:
        for n in sizes:
            kw: Any = {"reasoning": reasoning, "reasoning_started": started}
            p = toolparse.get_parser(fmt, **kw)._format.parser(None, models, True)
            ref = toolparse.get_parser(fmt, **kw).stream()
            pairs = [(p.feed_message(c), ref.feed(c)) for c in _chunks(text, n)]
            pairs.append((p.finish_message(), ref.finish()))
            for got, want in pairs:
                assert type(got) is _SResult
                assert list(got.__dict__) == ["normal_text", "calls"]
                assert got.__pydantic_fields_set__ == {"normal_text", "calls"}
                assert got.__pydantic_extra__ is None and got.__pydantic_private__ is None
                assert got.normal_text == ((want.content or "") if want is not None else "")
                wanted = want.tool_calls if want is not None else []
                assert len(got.calls) == len(wanted)
                for item, call in zip(got.calls, wanted):
                    assert type(item) is _SItem
                    assert list(item.__dict__) == ["tool_index", "name", "parameters"]
                    assert item.tool_index == call.index
                    assert item.name == (call.function.name if call.function else None)
                    assert item.parameters == (
                        (call.function.arguments or "") if call.function else ""
                    )
                    named = {"name"} if item.name is not None else set()
                    assert item.__pydantic_fields_set__ == {"tool_index", "parameters"} | named
                assert _SResult.model_validate(got.model_dump()) == got


def test_record_keeps_the_calls_sent() -> None:
    text = "Hi " + HERMES_CALL + HERMES_CALL2
    for n in (1, 4, 9, len(text)):
        p = _vllm_parser("hermes")
        assert p.sent_calls == []
        for chunk in _chunks(text, n):
            p.feed_message(chunk)
        p.finish_message()
        assert p.sent_calls == [
            ("get_weather", '{"city": "Paris"}'),
            ("search", '{"q": "pizza", "n": 5}'),
        ], n
        assert p.sent_count == 2
    # the tuple path records too; without record there is nothing
    p = _vllm_parser("hermes")
    p.feed(HERMES_CALL[:30])
    p.feed(HERMES_CALL[30:])
    assert p.sent_calls == [("get_weather", '{"city": "Paris"}')]
    p = _vllm_parser("hermes", record=False)
    p.feed_message(HERMES_CALL)
    assert p.sent_calls is None and p.sent_count == 0
