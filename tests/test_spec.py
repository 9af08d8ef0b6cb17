"""The format spec (``python/toolparse/formats/``, one file per format): names, aliases, id styles,
markers and model detection; the twin off the production path; the trust boundary (tools converted
once, arguments validated where they enter, blank names are malformed markup). Every behaviour on
both backends."""

from __future__ import annotations

import json
import subprocess
import sys
from typing import Any, Dict, List

import corpus
import pytest
import toolparse
from hypothesis import given, settings
from hypothesis import strategies as st
from toolparse import ToolCall, ToolParser, ToolParserManager, _core, spec
from toolparse.cli import main as cli_main

CROSS_FORMAT = True  # ``fmt`` and ``backend`` are parametrised by conftest.py


def _doc() -> Dict[str, Any]:
    return spec.read()


# ------------------------------------------------------------------------------------------------
# The spec and the registries built from it
# ------------------------------------------------------------------------------------------------


def test_list_formats_is_the_spec_and_the_rust_registry() -> None:
    names = [e["name"] for e in _doc()["formats"]]
    assert toolparse.list_formats() == names
    # build.rs generated the Rust registry from the same file, in the same order
    assert _core.list_formats() == names


def test_every_spec_entry_has_both_backends_tests_and_a_benchmark() -> None:
    """A format is its file (spec entry, samples, hand-written cases): each entry must build on the
    Rust core and on the twin, have a case renderer (the cross-format pattern and property
    suites), malformed and truncated cases, and a benchmark renderer."""
    from pathlib import Path

    from toolparse import reference

    root = Path(__file__).resolve().parent
    import importlib.util

    mspec = importlib.util.spec_from_file_location(
        "toolparse_spec_bench_conftest", root.parent / "benches" / "conftest.py"
    )
    assert mspec is not None and mspec.loader is not None
    bench = importlib.util.module_from_spec(mspec)
    mspec.loader.exec_module(bench)
    missing = []
    for fmt in toolparse.list_formats():
        _core.Parser(fmt).finish()
        reference.Parser(fmt).finish()
        if fmt not in corpus.RENDERERS:
            missing.append(f"{fmt}: no case renderer")
        if not corpus.malformed_texts(fmt):
            missing.append(f"{fmt}: no malformed cases")
        if not corpus.truncated_texts(fmt):
            missing.append(f"{fmt}: no truncated cases")
        if fmt not in bench.bench_formats():
            missing.append(f"{fmt}: no benchmark renderer")
    assert not missing, missing


def test_list_formats_with_aliases() -> None:
    names = toolparse.list_formats()
    with_aliases = toolparse.list_formats(aliases=True)
    assert with_aliases[: len(names)] == names
    aliases = [a for e in _doc()["formats"] for a in e["aliases"]]
    assert with_aliases[len(names) :] == aliases
    assert len(set(with_aliases)) == len(with_aliases)
    assert not set(aliases) & set(names)


def _make_doc(entries: List[Dict[str, Any]]) -> Dict[str, Any]:
    base = {"family": "tagged_json", "id_style": "chatcmpl", "markers": {"call_start": "<c>"}}
    base["grammar"] = {"trigger": "<c>"}
    base["call"] = {"shape": "object", "name_keys": ["name"], "args_keys": ["arguments"]}
    base.update(arguments="json_object", calls="repeated", content="text before the calls")
    return {"formats": [{**base, "special_tokens": [], "models": [], **e} for e in entries]}


@pytest.mark.parametrize(
    "entries,twice",
    [
        ([{"name": "a", "aliases": []}, {"name": "a", "aliases": []}], "a"),
        ([{"name": "a", "aliases": ["b"]}, {"name": "c", "aliases": ["b"]}], "b"),
        ([{"name": "a", "aliases": []}, {"name": "c", "aliases": ["a"]}], "a"),
        ([{"name": "a", "aliases": ["c"]}, {"name": "c", "aliases": []}], "c"),
        ([{"name": "a", "aliases": ["b", "b"]}], "b"),
        ([{"name": "a", "aliases": ["a"]}], "a"),
    ],
)
def test_spec_refuses_a_name_or_alias_given_twice(
    entries: List[Dict[str, Any]], twice: str
) -> None:
    with pytest.raises(ValueError, match=f"name or alias '{twice}' is given twice"):
        spec.load(_make_doc(entries))


def test_spec_loader_accepts_unique_names_and_rejects_bad_entries() -> None:
    ok = spec.load(_make_doc([{"name": "a", "aliases": ["b"]}, {"name": "c", "aliases": []}]))
    assert list(ok) == ["a", "c"]
    assert ok["a"].aliases == ("b",)
    with pytest.raises(ValueError, match="id_style"):
        spec.load(_make_doc([{"name": "a", "aliases": [], "id_style": "uuid"}]))
    with pytest.raises(ValueError, match="aliases"):
        spec.load(_make_doc([{"name": "a", "aliases": "b"}]))
    with pytest.raises(ValueError, match="name"):
        spec.load(_make_doc([{"name": "", "aliases": []}]))
    with pytest.raises(ValueError, match="call_start"):
        spec.load(_make_doc([{"name": "a", "aliases": [], "markers": {"call_end": "x"}}]))
    pythonic = {"family": "pythonic", "markers": {"section_end": "x"}}
    with pytest.raises(ValueError, match="section or list start"):
        spec.load(_make_doc([{"name": "a", "aliases": [], **pythonic}]))
    # the strict-tool-calling grammar's field: a trigger (or null) is required
    for grammar in (
        None,
        {},
        {"trigger": ""},
        {"trigger": 1},
        {"trigger": None, "parser_only_forms": "x"},
        {"trigger": None, "template_forms_not_admitted": ["no_close"]},
        {"trigger": None, "template_forms_not_admitted": {"no_close": ""}},
    ):
        with pytest.raises(ValueError, match="grammar"):
            spec.load(_make_doc([{"name": "a", "aliases": [], "grammar": grammar}]))
    assert spec.load(_make_doc([{"name": "a", "aliases": [], "grammar": {"trigger": None}}]))
    g = {"trigger": None, "template_forms_not_admitted": {"no_close": "why"}}
    loaded = spec.load(_make_doc([{"name": "a", "aliases": [], "grammar": g}]))
    assert loaded["a"].grammar.template_forms_not_admitted == (("no_close", "why"),)


def test_keep_special_tokens_defaults_from_the_special_tokens_and_is_checked() -> None:
    specs = spec.load(
        _make_doc(
            [
                {"name": "plain", "aliases": []},
                {"name": "special", "aliases": [], "special_tokens": ["<c>"]},
                {"name": "set", "aliases": [], "keep_special_tokens": "always"},
            ]
        )
    )
    assert specs["plain"].keep_special_tokens == "never"
    assert specs["special"].keep_special_tokens == "with_tools"
    assert specs["set"].keep_special_tokens == "always"
    with pytest.raises(ValueError, match="keep_special_tokens"):
        spec.load(_make_doc([{"name": "a", "aliases": [], "keep_special_tokens": True}]))


def test_the_shipped_spec_is_valid() -> None:
    specs = spec.load(_doc())
    assert list(specs) == toolparse.list_formats()
    for s in specs.values():
        assert s.family and s.markers and s.id_style in spec.ID_STYLES
        assert s.models or s.name in NO_MODELS, f"{s.name}: no model patterns"
        assert s.call.shape and s.arguments and s.calls and s.content, s.name
        assert set(s.special_tokens) <= set(s.markers.values()), s.name


def test_reference_markers_are_the_spec_markers() -> None:
    """The twin's machines that keep their markers in code use exactly the spec's (the Rust
    machines are checked by `cargo test machines_use_the_spec_markers`)."""
    from toolparse.reference import _machine, xml_params

    def m(fmt: str, *roles: str) -> tuple:
        return tuple(spec.get_spec(fmt).markers[r] for r in roles)

    l3 = _machine(spec.get_spec("llama3_json"))({}).style  # type: ignore[attr-defined]
    assert l3.text.list == m("llama3_json", "call_start", "object_start")
    assert l3.separator == m("llama3_json", "separator")[0]
    # mistral's tags, as the twin builds them from the spec entry (tagged_json, the forms shape)
    tags = _machine(spec.get_spec("mistral"))({}).tags  # type: ignore[attr-defined]
    assert tags.forms
    assert tuple(tags.text.list) == m("mistral", "call_start")
    assert tuple(tags.args.list) == m("mistral", "args_start")
    assert tuple(tags.after_name.list) == m("mistral", "args_start", "call_id")
    roles = ("start", "channel", "message", "end", "call", "return", "constrain")
    for fmt in ("openai", "beam"):
        frame = _machine(spec.get_spec(fmt))({}).frame  # type: ignore[attr-defined]
        assert frame.markers.list == m(fmt, *roles)
    q = spec.get_spec("qwen3_coder")
    style = xml_params.style_of(q.markers, q.call)
    assert style.text.list == m("qwen3_coder", "call_start", "function_start")
    assert style.body.list == m("qwen3_coder", "parameter_start", "function_end", "call_end")
    assert style.end.list == m("qwen3_coder", "call_end")


def test_id_styles_come_from_the_spec(fmt: str, backend: str) -> None:
    p = toolparse.get_parser(fmt, backend=backend, ids=toolparse.IdSource(1))
    new_id = p.new_id()
    if spec.get_spec(fmt).id_style == "mistral":
        assert len(new_id) == 9 and new_id.isalnum()
    else:
        assert new_id.startswith("chatcmpl-tool-")


ALIASES = [(a, s.name) for s in spec.SPECS.values() for a in s.aliases]


@pytest.mark.parametrize("alias,name", ALIASES)
def test_get_parser_by_alias_parses_as_the_canonical_format(
    alias: str, name: str, backend: str
) -> None:
    case = corpus.composite_case(name)
    by_alias = toolparse.get_parser(alias, tools=case.tools, backend=backend)
    by_name = toolparse.get_parser(name, tools=case.tools, backend=backend)
    assert by_alias.name == name
    a, b = by_alias.extract_tool_calls(case.text), by_name.extract_tool_calls(case.text)
    assert [(c.function.name, c.function.arguments) for c in a.tool_calls] == case.calls
    assert (a.content, a.tools_called) == (b.content, b.tools_called)
    # streamed, cut at every offset
    for cut in range(len(case.text) + 1):
        rec, _ = corpus.facade_stream(by_alias, [case.text[:cut], case.text[cut:]])
        assert [(c.function.name, c.function.arguments) for c in rec.tool_calls] == case.calls


def test_tool_parser_manager_registers_names_and_aliases() -> None:
    for s in spec.SPECS.values():
        cls = ToolParserManager.get_tool_parser(s.name)
        for a in s.aliases:
            assert ToolParserManager.get_tool_parser(a) is cls
        assert cls().name == s.name


def test_unknown_parser_name_is_a_key_error_and_a_value_error() -> None:
    for exc in (KeyError, ValueError):
        with pytest.raises(exc, match="unknown tool parser 'nope'; known: .*hermes"):
            ToolParserManager.get_tool_parser("nope")


def test_register_module_keeps_vllms_semantics() -> None:
    before = dict(ToolParserManager.tool_parsers)
    try:

        class Mine(ToolParser):
            format_name = "hermes"

        class Other(ToolParser):
            format_name = "mistral"

        # force=False refuses a registered name with vLLM's KeyError and leaves it alone
        with pytest.raises(KeyError, match="hermes is already registered at toolparse"):
            ToolParserManager.register_module("hermes", force=False, module=Mine)
        assert ToolParserManager.get_tool_parser("hermes") is before["hermes"]
        with pytest.raises(KeyError, match="qwen25 is already registered"):
            ToolParserManager.register_module(["new_name", "qwen25"], force=False)(Mine)
        assert "new_name" not in ToolParserManager.tool_parsers
        # force=False registers a new name; force=True (the default) overwrites
        ToolParserManager.register_module("mine", force=False, module=Mine)
        assert ToolParserManager.get_tool_parser("mine") is Mine
        ToolParserManager.register_module("mine", module=Other)
        assert ToolParserManager.get_tool_parser("mine") is Other
        ToolParserManager.register_module("hermes", force=True, module=Mine)
        assert ToolParserManager.get_tool_parser("hermes") is Mine
        # vLLM's TypeErrors
        with pytest.raises(TypeError, match="force must be a boolean"):
            ToolParserManager.register_module("x", force=1, module=Mine)  # type: ignore[arg-type]
        with pytest.raises(TypeError, match="module_name must be str"):
            ToolParserManager.register_module(5, module=Mine)  # type: ignore[arg-type]
        with pytest.raises(TypeError, match="subclass of ToolParser"):
            ToolParserManager.register_module("x", module=dict)
    finally:
        ToolParserManager.tool_parsers.clear()
        ToolParserManager.tool_parsers.update(before)


# ------------------------------------------------------------------------------------------------
# format_for_model
# ------------------------------------------------------------------------------------------------

# Real model ids (each format file's model_ids), each checked against vLLM's tool-calling docs and
# the models' chat templates. A format without model patterns has none: no ids guessed where
# neither peer names the checkpoints that emit it.
MODELS = [(m, s.name) for s in spec.SPECS.values() for m in s.model_ids]
NO_MODELS = {s.name for s in spec.SPECS.values() if not s.models}


@pytest.mark.parametrize("model,expected", MODELS)
def test_format_for_model(model: str, expected: str) -> None:
    assert toolparse.format_for_model(model) == expected
    name = model.split("/", 1)[1]
    # the organisation is optional, case does not matter, a local path names the model last
    assert toolparse.format_for_model(name) == expected
    assert toolparse.format_for_model(model.upper()) == expected
    assert toolparse.format_for_model(f"/models/{name}") == expected
    assert toolparse.format_for_model(f"/models/{name}/") == expected
    assert toolparse.format_for_model(f"C:\\models\\{name}") == expected


def test_format_for_model_covers_every_format() -> None:
    assert {fmt for _, fmt in MODELS} == set(toolparse.list_formats()) - NO_MODELS
    assert all(not spec.get_spec(f).model_ids for f in NO_MODELS)


def test_format_for_model_most_specific_wins() -> None:
    # "Qwen3-*" (qwen3_json) and "Qwen3-Coder-*" (qwen3_coder) both match: the longer pattern wins
    assert toolparse.format_for_model("unsloth/Qwen3-Coder-30B-A3B-Instruct-GGUF") == "qwen3_coder"
    assert toolparse.format_for_model("unsloth/Qwen3-30B-A3B-GGUF") == "qwen3_json"
    # a name merely containing another family's name is not that family
    assert toolparse.format_for_model("NousResearch/Hermes-3-Llama-3.1-8B") == "hermes"


@pytest.mark.parametrize(
    "model", ["", "/", "gpt2", "google/gemma-2-9b-it", "Qwen/Qwen-7B-Chat", "my-Qwen3-8B"]
)
def test_format_for_model_unknown_is_none(model: str) -> None:
    assert toolparse.format_for_model(model) is None


def test_format_for_model_refuses_a_non_str() -> None:
    with pytest.raises(TypeError, match="model_id"):
        toolparse.format_for_model(5)  # type: ignore[arg-type]


def test_cli_formats_model_and_aliases(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli_main(["formats", "--model", "/models/Qwen3-Coder-30B-A3B-Instruct"]) == 0
    assert capsys.readouterr().out == "qwen3_coder\n"
    assert cli_main(["formats", "--model", "nobody/unknown-model"]) != 0
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "unknown-model" in err
    assert cli_main(["formats", "--aliases"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert [ln.split()[0] for ln in lines] == toolparse.list_formats()
    assert "hermes qwen qwen25" in lines
    assert cli_main(["formats"]) == 0
    assert capsys.readouterr().out.split() == toolparse.list_formats()


# ------------------------------------------------------------------------------------------------
# The twin off the production path
# ------------------------------------------------------------------------------------------------

_RUST_PATH = """
import sys
import toolparse
from toolparse import ToolParserManager
toolparse.list_formats(aliases=True)
toolparse.format_for_model("Qwen/Qwen3-8B")
for name in toolparse.list_formats(aliases=True):
    p = toolparse.get_parser(name, tools=[{"type": "function", "function": {"name": "f"}}])
    p.extract_tool_calls('<tool_call>{"name": "f", "arguments": {}}</tool_call>')
    s = p.stream()
    s.feed('<tool_call>{"name": "f", "arguments": {"a": 1}}')
    s.finish()
    p.new_id()
ToolParserManager.get_tool_parser("hermes")().stream().feed("x")
# The servers' reasoning path (toolparse.integrations.reasoning, as vLLM's and SGLang's
# toolparse_R parsers use it): the hand-over point comes from the core, not from the twin.
from toolparse.integrations import reasoning as rsn
for r in toolparse.list_reasoning_formats(aliases=True):
    p = toolparse.get_parser("hermes" if rsn.pairs(r, "hermes") else None, reasoning=r)
    rsn.raw_rest(p, "<think>a</think>x")
    core = p.stream()._core
    hand = rsn.Handover(core, rsn.transparent(r))
    for delta in ("<think>a</th", "ink>x", "y"):
        core.feed(delta)
        hand.feed(delta)
    core.finish()
    hand.finish()
loaded = sorted(m for m in sys.modules if m.startswith("toolparse.reference"))
assert not loaded, loaded
print("ok")
"""


def test_rust_path_never_imports_the_reference_twin() -> None:
    r = subprocess.run(
        [sys.executable, "-c", _RUST_PATH], capture_output=True, text=True, timeout=120
    )
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "ok"


def test_python_backend_imports_the_twin_lazily() -> None:
    code = (
        "import sys, toolparse\n"
        "assert 'toolparse.reference' not in sys.modules\n"
        "toolparse.get_parser('hermes', backend='python')\n"
        "assert 'toolparse.reference' in sys.modules\n"
    )
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr


# ------------------------------------------------------------------------------------------------
# Trust boundary
# ------------------------------------------------------------------------------------------------


def test_tools_are_converted_once_per_parser(
    fmt: str, backend: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    case = corpus.composite_case(fmt)
    tools = list(case.tools or [])
    p = toolparse.get_parser(fmt, tools=tools, backend=backend)

    def summary(info: Any) -> Any:
        calls = [(c.function.name, c.function.arguments) for c in info.tool_calls]
        return (info.content, info.reasoning, info.tools_called, calls)

    expected = summary(p.extract_tool_calls(case.text))
    assert expected[3] == case.calls

    def boom(*_: Any, **__: Any) -> Any:
        raise AssertionError("tools converted again after get_parser")

    # Neither the facade nor the core converts the tools again: streams and extracts reuse the
    # Format the parser holds.
    import toolparse.parser as facade

    monkeypatch.setattr(facade, "_schema_types", boom)
    monkeypatch.setattr(facade, "_tool_models", boom)
    monkeypatch.setattr(_core, "Parser", boom)
    monkeypatch.setattr(_core, "extract", boom)
    tools.clear()  # the caller's list is not looked at again either
    assert summary(p.extract_tool_calls(case.text)) == expected
    rec, _ = corpus.facade_stream(
        p, [case.text[: len(case.text) // 2], case.text[len(case.text) // 2 :]]
    )
    assert [(c.function.name, c.function.arguments) for c in rec.tool_calls] == case.calls
    if backend == "rust":
        assert isinstance(p._format, _core.Format) and p._format.name == fmt


BLANK_NAMES = {
    "hermes": [
        '<tool_call>{"name": " ", "arguments": {}}</tool_call>',
        '<tool_call>{"name": "\\u3000\\t", "arguments": {"a": 1}}</tool_call>',
        '<tool_call>{"arguments": {}, "name": ""}</tool_call>',
        '<tool_call>{"name": "\\u001f", "arguments": {}}</tool_call>',
    ],
    "llama3_json": ['<|python_tag|>{"name": "  ", "parameters": {}}'],
    "mistral": ['[TOOL_CALLS][{"name": "\\n", "arguments": {}}]'],
    "qwen3_coder": ["<tool_call>\n<function=\u3000>\n</function>\n</tool_call>"],
    "openai": ["<|channel|>commentary to=functions.\u3000 <|constrain|>json<|message|>{}<|call|>"],
}
BLANK_CASES = [(f, t) for f, texts in BLANK_NAMES.items() for t in texts]


@pytest.mark.parametrize("fmt_,text", BLANK_CASES)
def test_blank_function_name_is_malformed_markup(fmt_: str, text: str, backend: str) -> None:
    """A blank name is not a call that then fails validation: no tool call, the text is content,
    in both modes and for every split."""
    p = toolparse.get_parser(fmt_, backend=backend)
    info = p.extract_tool_calls(text)
    assert (info.tools_called, info.tool_calls) == (False, [])
    assert info.content == text
    for cut in range(len(text) + 1):
        rec, deltas = corpus.facade_stream(p, [text[:cut], text[cut:]])
        assert rec.tool_calls == []
        assert "".join(d.content for d in deltas if d is not None and d.content) == text


BLANK_NAME_CHARS = st.sampled_from([" ", "\t", "\n", "\u3000", "\u00a0", "\u001c", "\u2028"])


@settings(max_examples=60)
@given(
    blank=st.text(BLANK_NAME_CHARS, max_size=4),
    cuts=st.lists(st.integers(min_value=0, max_value=200), max_size=8),
    backend=st.sampled_from(corpus.BACKENDS),
    before=st.sampled_from(["", "Hi. "]),
)
def test_blank_names_under_random_splits(
    blank: str, cuts: List[int], backend: str, before: str
) -> None:
    """Any blank name (empty, or only whitespace as str.strip sees it) in the JSON call reader,
    qwen3_coder and harmony: content fallback, the same for every split and in both modes."""
    esc = json.dumps(blank)
    texts = {
        "hermes": f'{before}<tool_call>{{"name": {esc}, "arguments": {{"a": 1}}}}</tool_call>',
        "llama3_json": f'{before}<|python_tag|>{{"name": {esc}, "parameters": {{}}}}',
        "mistral": f'{before}[TOOL_CALLS][{{"name": {esc}, "arguments": {{}}}}]',
    }
    if blank and "\n" not in blank and "\t" not in blank and " " not in blank:
        texts["qwen3_coder"] = f"{before}<tool_call>\n<function={blank}>\n</function>\n</tool_call>"
    for fmt, text in texts.items():
        p = toolparse.get_parser(fmt, backend=backend)
        info = p.extract_tool_calls(text)
        assert (info.tool_calls, info.content) == ([], text), fmt
        rec, deltas = corpus.facade_stream(p, corpus.chunks_at(text, cuts))
        assert rec.tool_calls == [], fmt
        assert "".join(d.content for d in deltas if d is not None and d.content) == text, fmt


def _space_like() -> List[str]:
    import unicodedata

    return [
        chr(c)
        for c in range(0x110000)
        if not 0xD800 <= c <= 0xDFFF
        and (chr(c).isspace() or unicodedata.category(chr(c)) in ("Zs", "Zl", "Zp", "Cc", "Cf"))
    ]


def test_blank_means_what_str_strip_means(backend: str) -> None:
    """A name is blank exactly when the ToolCall model would refuse it (``not name.strip()``): the
    Rust reader and the twin agree with Python for every space-like or control character."""
    p = toolparse.get_parser("hermes", backend=backend)
    for c in _space_like():
        text = f'<tool_call>{{"name": {json.dumps(c)}, "arguments": {{}}}}</tool_call>'
        info = p.extract_tool_calls(text)
        assert info.tools_called == bool(c.strip()), f"U+{ord(c):04X}"


def test_everything_returned_validates_as_its_own_model(fmt: str, backend: str) -> None:
    case = corpus.composite_case(fmt)
    p = toolparse.get_parser(fmt, tools=case.tools, backend=backend)
    info = p.extract_tool_calls(case.text)
    assert info.tool_calls
    for tc in info.tool_calls:
        assert ToolCall.model_validate(tc.model_dump()) == tc
    type(info).model_validate(info.model_dump())
    rec, deltas = corpus.facade_stream(
        p, [case.text[i : i + 3] for i in range(0, len(case.text), 3)]
    )
    for d in deltas:
        if d is not None:
            assert type(d).model_validate(d.model_dump()) == d


# A lone surrogate in the tools
SURROGATE_TOOLS = [
    ("f\ud800", {"type": "object", "properties": {"a": {"type": "string"}}}),
    ("g", {"type": "object", "properties": {"a\udfff": {"type": "string"}}}),
    ("h", {"type": "object", "properties": {"a": {"type": "string", "description": "x\ud83d"}}}),
]


@pytest.mark.parametrize("name,params", SURROGATE_TOOLS)
def test_tools_with_a_lone_surrogate_are_refused_at_get_parser(
    fmt: str, backend: str, name: str, params: Dict[str, Any]
) -> None:
    good = {"type": "function", "function": {"name": "ok", "parameters": {"type": "object"}}}
    bad = {"type": "function", "function": {"name": name, "parameters": params}}
    with pytest.raises(ValueError, match=r"tools\[1\] \(.*\) holds a lone surrogate"):
        toolparse.get_parser(fmt, tools=[good, bad], backend=backend)


# Wrong argument types, raised where the mistake is made, the same on both backends
BAD_GET_PARSER: List[tuple] = [
    ((5,), {}, TypeError, "format name must be a str"),
    ((None,), {}, ValueError, r"name \(the tool-call format\) and reasoning .* are both None"),
    ((b"hermes",), {}, TypeError, "format name must be a str"),
    (("nope",), {}, ValueError, "unknown tool-call format 'nope'; known formats: .*hermes"),
    # the closest names first, then every known one
    (
        ("hermas",),
        {},
        ValueError,
        r"format 'hermas'; did you mean 'hermes'\? known formats: .*xlam",
    ),
    ((None,), {"reasoning": "qwen"}, ValueError, r"'qwen'; did you mean 'qwen3'\? known reas"),
    (("hermes",), {"tools": "x"}, TypeError, "tools must be a list"),
    (("hermes",), {"tools": 5}, TypeError, "tools must be a list"),
    (("hermes",), {"tools": {"type": "function"}}, TypeError, "tools must be a list"),
    (("hermes",), {"tools": [5]}, TypeError, r"tools\[0\] must be a Tool"),
    (("hermes",), {"tools": [{"type": "function"}]}, ValueError, "function"),
    (("hermes",), {"ids": 3}, TypeError, "ids must be a toolparse.IdSource"),
    (("hermes",), {"ids": "seed"}, TypeError, "ids must be a toolparse.IdSource"),
    (("hermes",), {"backend": 3}, TypeError, "backend must be a str"),
    (("hermes",), {"backend": None}, TypeError, "backend must be a str"),
    (("hermes",), {"backend": "c"}, ValueError, "unknown backend 'c'"),
]


@pytest.mark.parametrize("args,kwargs,exc,match", BAD_GET_PARSER)
def test_get_parser_refuses_bad_arguments(
    args: tuple, kwargs: Dict[str, Any], exc: type, match: str, backend: str
) -> None:
    kwargs = {"backend": backend, **kwargs}
    with pytest.raises(exc, match=match):
        toolparse.get_parser(*args, **kwargs)


BAD_TEXT: List[Any] = [5, None, b"x", ["x"]]


@pytest.mark.parametrize("value", BAD_TEXT, ids=repr)
def test_feed_and_extract_refuse_a_non_str(fmt: str, backend: str, value: Any) -> None:
    p = toolparse.get_parser(fmt, backend=backend)
    s = p.stream()
    with pytest.raises(TypeError, match=f"delta_text must be a str, not {type(value).__name__}"):
        s.feed(value)
    # the stream is still usable after the refused call
    assert s.feed("hello") is not None or s.finish() is not None
    with pytest.raises(TypeError, match=f"model_output must be a str, not {type(value).__name__}"):
        p.extract_tool_calls(value)


def test_core_feed_refuses_a_non_str_on_both_backends(backend: str) -> None:
    p = corpus.core_parser(backend, "hermes")
    with pytest.raises(TypeError, match="'text'"):
        p.feed(5)


@pytest.mark.parametrize(
    "change,field",
    [
        (lambda e: e["call"].update(shape="circle"), r"spec\.call\.shape"),
        (lambda e: e["call"].update(tentative="yes"), r"spec\.call\.tentative"),
        (lambda e: e["call"].update(colour="red"), r"spec\.call: unknown field 'colour'"),
        (lambda e: e["grammar"].update(parser_only_forms="x"), r"spec\.grammar\.parser_only"),
        (lambda e: e["grammar"].update(value_forms=["yaml"]), r"spec\.grammar\.value_forms"),
        (lambda e: e["grammar"].update(open_last_block="x"), r"spec\.grammar\.open_last_block"),
        (lambda e: e.update(arguments="yaml"), r"spec\.arguments"),
        (lambda e: e.update(end_optional=1), r"spec\.end_optional"),
        (lambda e: e["markers"].update(Bad="x"), r"spec\.markers: 'Bad' is not a role"),
        (lambda e: e.pop("content"), r"spec\.content: is required"),
        (lambda e: e.update(span_markup={"open": "<a>"}), r"spec\.span_markup\.close_start"),
    ],
)
def test_the_loader_names_the_file_and_the_field(change: Any, field: str) -> None:
    """A rule of the schema broken: ValueError naming the format's file and the field."""
    data = spec.read()
    entry = json.loads(json.dumps(data["files"]["hermes"]["spec"]))
    change(entry)
    data["formats"] = [entry]
    with pytest.raises(ValueError, match="hermes.json: " + field):
        spec.load(data)


def test_a_spec_entry_is_typed() -> None:
    """Every field of an entry is an attribute of a typed object (no raw JSON is kept)."""
    q = spec.get_spec("qwen3_coder")
    assert not hasattr(q, "raw")
    assert q.call.shape == "xml_parameters" and q.call.value_newlines == "strip_one"
    assert q.grammar.trigger == "<tool_call>" and q.arguments.startswith("xml_parameters")
    o = spec.get_spec("openai").grammar.messages
    assert o is not None and o.reasoning is not None and o.content.begin
    sm = spec.get_spec("cohere_command3").span_markup
    assert sm is not None and sm.max > 0
    assert spec.get_spec("functionary_v32").call.raw_code is not None
