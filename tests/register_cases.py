"""The checks of ``toolparse.register_format``, each run in a fresh interpreter by
``test_register_format.py`` (a registered format stays registered for the process: the other
tests' view of the built-in formats must not see it)."""

from __future__ import annotations

import copy
import io
import json
import os
import random
import sys
import tempfile
from typing import Any, Dict, List, Optional, Tuple

import toolparse
from toolparse import samples, spec, testing
from toolparse.cli import main as cli_main

FOLDER = os.path.join(os.path.dirname(toolparse.__file__), "formats")
BACKENDS = ("rust", "python")


def file_of(name: str) -> Dict[str, Any]:
    with open(os.path.join(FOLDER, f"{name}.json"), encoding="utf-8") as f:
        return json.load(f)  # type: ignore[no-any-return]


def renamed(name: str, new: str, **spec_fields: Any) -> Dict[str, Any]:
    """A copy of built-in format ``name``'s file under the name ``new`` (no aliases, no model
    patterns: those are the original's)."""
    doc = file_of(name)
    doc["spec"].update({"name": new, "aliases": [], "models": [], **spec_fields})
    doc.pop("model_ids", None)
    return doc


def remarked(doc: Dict[str, Any], old: str, new: str) -> Dict[str, Any]:
    """``doc`` with marker text ``old`` spelled ``new`` everywhere: markers, grammar, samples,
    cases."""
    text = json.dumps(doc, ensure_ascii=False)
    return json.loads(text.replace(json.dumps(old)[1:-1], json.dumps(new)[1:-1]))  # type: ignore[no-any-return]


def outcome(
    fmt: str,
    text: str,
    backend: str,
    chunks: Optional[List[str]] = None,
    reasoning: Optional[str] = None,
) -> Tuple:
    """(content, reasoning, [(name, arguments)], truncated) non-streaming, or streamed in
    ``chunks`` (the concatenated deltas)."""
    p = toolparse.get_parser(fmt, tools=samples.tools(), backend=backend, reasoning=reasoning)
    if chunks is None:
        info = p.extract_tool_calls(text)
        calls = [(c.function.name, c.function.arguments) for c in info.tool_calls]
        return info.content, info.reasoning, calls, info.truncated
    rec = toolparse.StreamingToolReconstructor()
    thought = ""
    s = p.stream()
    for d in [*(s.feed(c) for c in chunks), s.finish()]:
        if d is not None:
            rec.append_delta(d)
            thought += d.reasoning or ""
    calls = [(c.function.name, c.function.arguments) for c in rec.tool_calls]
    return rec.other_content or None, thought or None, calls, s.truncated


def splits(text: str, seed: int) -> List[List[str]]:
    rnd = random.Random(seed)
    out = [[text], list(text)]
    for _ in range(3):
        cuts = sorted(rnd.sample(range(1, len(text)), min(5, len(text) - 1)))
        out.append([text[a:b] for a, b in zip([0, *cuts], [*cuts, len(text)])])
    return out


def same_as(original: str, copy_name: str, copy_texts: List[str], texts: List[str]) -> None:
    """The copy parses its texts as the original parses the original's, on both backends,
    non-streaming and streamed under several splittings; the twins agree."""
    assert texts, original
    for k, (text, ctext) in enumerate(zip(texts, copy_texts)):
        want = outcome(original, text, "rust")
        for backend in BACKENDS:
            assert outcome(copy_name, ctext, backend) == want, (copy_name, backend, k)
            for chunks in splits(ctext, k):
                got = outcome(copy_name, ctext, backend, chunks)
                assert got[:3] == want[:3], (copy_name, backend, chunks)


def check_copies() -> None:
    """A copy of formats of several families under a new name parses their samples as they do."""
    for name in ("hermes", "qwen3_coder", "pythonic", "deepseek_v3", "openai", "kimi_k2"):
        new = toolparse.register_format(renamed(name, f"copy_{name}"))
        assert new == f"copy_{name}"
        assert new in toolparse.list_formats()
        assert new in toolparse._core.list_formats()
        texts = samples.load(name)
        same_as(name, new, texts, texts)
        assert samples.load(new) == texts


def check_modified_marker() -> None:
    """A copy of hermes whose markers are `<call>`/`</call>` parses the samples written with them
    as hermes parses its own; the hermes markers are then plain text."""
    doc = remarked(renamed("hermes", "angle"), "tool_call>", "call>")
    assert doc["spec"]["markers"] == {"call_start": "<call>", "call_end": "</call>"}
    toolparse.register_format(doc)
    same_as("hermes", "angle", doc["samples"], samples.load("hermes"))
    hermes_text = samples.load("hermes")[0]
    for backend in BACKENDS:
        info = toolparse.get_parser("angle", backend=backend).extract_tool_calls(hermes_text)
        assert not info.tools_called and info.content == hermes_text


def check_path_alias_model_and_registry() -> None:
    """A format file given by its path; its alias and model patterns; the parser registry."""
    doc = renamed("hermes", "pathy", aliases=["pathy-alias"], models=["acme/Pathy-*"])
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "whatever.json")
        with open(path, "w", encoding="utf-8") as f:
            json.dump(doc, f)
        assert toolparse.register_format(path) == "pathy"
    assert "pathy-alias" in toolparse.list_formats(aliases=True)
    assert toolparse.get_parser("pathy-alias").name == "pathy"
    assert toolparse.format_for_model("acme/Pathy-7B-Instruct") == "pathy"
    assert toolparse.format_for_model("/models/pathy-7b") == "pathy"
    cls = toolparse.ToolParserManager.get_tool_parser("pathy-alias")
    assert cls is toolparse.ToolParserManager.get_tool_parser("pathy")
    text = doc["samples"][0]
    assert cls().extract_tool_calls(text).tool_calls[0].function.name == "get_weather"


def check_structural_tag() -> None:
    """structural_tag knows a registered format: a copy's tag is the original's."""
    tools = samples.tools()
    for name in ("hermes", "qwen3_coder", "kimi_k2"):
        toolparse.register_format(renamed(name, f"st_{name}"))
        for choice in ("auto", "required"):
            want = toolparse.structural_tag(name, tools, tool_choice=choice, strict="function")
            got = toolparse.structural_tag(
                f"st_{name}", tools, tool_choice=choice, strict="function"
            )
            assert got is not None and got == want, (name, choice)
    doc = remarked(renamed("hermes", "st_angle"), "tool_call>", "call>")
    toolparse.register_format(doc)
    tag = json.dumps(toolparse.structural_tag("st_angle", tools, tool_choice="required"))
    assert "<call>" in tag and "<tool_call>" not in tag


def check_kit() -> None:
    """The conformance kit renders cases for a registered format and both backends pass them."""
    for name in ("hermes", "qwen3_coder"):
        new = toolparse.register_format(renamed(name, f"kit_{name}"))
        cases = testing.cases(new)
        assert len(cases) == len(testing.cases(name)) > 10
        for backend in BACKENDS:
            report = testing.check(new, cases, backend=backend, n_random=1)
            assert report.ok, report


def check_cli() -> None:
    """--format-file registers a file for parse, stream, grammar and formats; without --format
    the format is the file's."""
    doc = remarked(renamed("hermes", "cli_angle"), "tool_call>", "call>")
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "f.json")
        text_path = os.path.join(d, "out.txt")
        tools_path = os.path.join(d, "tools.json")
        with open(path, "w", encoding="utf-8") as f:
            json.dump(doc, f)
        with open(text_path, "w", encoding="utf-8") as f:
            f.write(doc["samples"][0])
        with open(tools_path, "w", encoding="utf-8") as f:
            json.dump(samples.tools(), f)

        def run(*argv: str) -> Tuple[int, str]:
            out, saved = io.StringIO(), sys.stdout
            sys.stdout = out
            try:
                code = cli_main(list(argv))
            finally:
                sys.stdout = saved
            return code, out.getvalue()

        code, out = run("parse", "--format-file", path, text_path)
        assert code == 0, out
        parsed = json.loads(out)
        assert [c["function"]["name"] for c in parsed["tool_calls"]] == ["get_weather"] * 2
        code, out = run("stream", "--format-file", path, "--format", "cli_angle", text_path)
        assert code == 0 and out.count("get_weather") == 2, out
        code, out = run(
            "grammar", "--format-file", path, "--tools", tools_path, "--tool-choice", "required"
        )
        assert code == 0 and "<call>" in out, out
        code, out = run("formats", "--format-file", path)
        assert code == 0 and "cli_angle" in out.split(), out
        bad = os.path.join(d, "bad.json")
        with open(bad, "w", encoding="utf-8") as f:
            json.dump({"spec": {**doc["spec"], "nope": 1}, "samples": ["x"]}, f)
        assert run("parse", "--format-file", bad, text_path)[0] == 1
        assert run("parse", text_path)[0] == 2  # neither --format nor --format-file


def check_plugin() -> None:
    """pytest --toolparse-format-file FILE registers the file and runs its format's cases (twice
    in one process: the second session registers the same file again); a bad file is a usage
    error naming it."""
    import importlib.metadata

    import pytest

    eps = importlib.metadata.entry_points()
    group = eps.select(group="pytest11") if hasattr(eps, "select") else eps.get("pytest11", [])
    loaded = any(ep.value == "toolparse.testing.plugin" for ep in group)
    plugin = [] if loaded else ["-p", "toolparse.testing.plugin"]
    doc = remarked(renamed("hermes", "plug_angle"), "tool_call>", "call>")

    class Count:
        def __init__(self) -> None:
            self.passed, self.failed, self.names = 0, 0, []

        def pytest_runtest_logreport(self, report: Any) -> None:
            if report.when == "call":
                self.passed += report.passed
                self.failed += report.failed
                self.names.append(report.nodeid)

    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "plug_angle.json")
        with open(path, "w", encoding="utf-8") as f:
            json.dump(doc, f)
        for _ in range(2):
            count = Count()
            args = [*plugin, "-p", "no:cacheprovider", "-q", "--rootdir", d, d]
            code = pytest.main([*args, "--toolparse-format-file", path], plugins=[count])
            assert code == 0, code
            n = len(testing.cases("plug_angle"))
            assert count.passed == n > 10 and count.failed == 0, (count.passed, n)
            assert all("plug_angle" in name for name in count.names), count.names
        bad = os.path.join(d, "bad.json")
        with open(bad, "w", encoding="utf-8") as f:
            json.dump({"spec": {**doc["spec"], "name": "plug_bad", "nope": 1}}, f)
        code = pytest.main([*args, "--toolparse-format-file", bad])
        assert code == pytest.ExitCode.USAGE_ERROR, code


def raises(doc: Any, *needles: str, replace: bool = False) -> None:
    before = (toolparse.list_formats(aliases=True), toolparse._core.list_formats())
    try:
        toolparse.register_format(doc, replace=replace)
    except ValueError as e:
        for n in needles:
            assert n in str(e), (n, str(e))
    else:
        raise AssertionError(f"no ValueError for {needles}")
    # nothing was registered, in either backend
    assert (toolparse.list_formats(aliases=True), toolparse._core.list_formats()) == before


def check_refused() -> None:
    """Unknown fields, wrong types, family rules and names already taken are ValueErrors naming
    the file and the field; nothing is registered."""
    base = renamed("hermes", "refused")
    raises({**base, "extra": 1}, "refused.json", "unknown field 'extra'")
    raises(dict(base, spec={**base["spec"], "colour": "red"}), "refused.json", "'colour'")
    raises(dict(base, spec={**base["spec"], "aliases": "x"}), "refused.json", "aliases")
    raises(dict(base, spec={**base["spec"], "markers": {"call_start": 3}}), "markers")
    raises(dict(base, spec={**base["spec"], "family": "nope"}), "family")
    raises(dict(base, spec={**base["spec"], "call": {**base["spec"]["call"], "tentative": 1}}),
           "call.tentative")  # fmt: skip
    raises(dict(base, samples="x"), "samples")
    raises({"samples": ["x"]}, "spec")
    # a family rule the Rust configuration checks: an xml_params format without parameter_end
    xml = renamed("qwen3_coder", "refused_xml")
    del xml["spec"]["markers"]["parameter_end"]
    raises(xml, "parameter_end")
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "mine.json")
        with open(path, "w", encoding="utf-8") as f:
            json.dump({**base, "extra": 1}, f)
        raises(path, "mine.json", "extra")
        raises(os.path.join(d, "missing.json"), "missing.json")
    # a name or alias already registered
    raises(renamed("hermes", "hermes"), "hermes.json", "'hermes'")
    raises(renamed("hermes", "qwen25"), "'qwen25'", "alias", "'hermes'")
    raises(renamed("hermes", "fresh", aliases=["mistral"]), "aliases", "'mistral'")
    toolparse.register_format(renamed("hermes", "twice"))
    raises(renamed("hermes", "twice"), "replace=True")
    raises(renamed("hermes", "other", aliases=["twice"]), "'twice'", replace=True)
    try:
        toolparse.register_format(base, replace="yes")  # type: ignore[arg-type]
    except TypeError:
        pass
    else:
        raise AssertionError("replace='yes' accepted")


def check_replace() -> None:
    """replace=True: new parsers, tags and classes use the new entry; a parser made before keeps
    the old one; the old aliases go."""
    tools = samples.tools()
    old = renamed("hermes", "swap", aliases=["swap-old"])
    toolparse.register_format(old)
    before = {b: toolparse.get_parser("swap", backend=b) for b in BACKENDS}
    tag_before = toolparse.structural_tag("swap", tools, tool_choice="required")
    cls_before = toolparse.ToolParserManager.get_tool_parser("swap")
    new = remarked(renamed("hermes", "swap", aliases=["swap-new"]), "tool_call>", "call>")
    assert toolparse.register_format(new, replace=True) == "swap"
    assert toolparse.list_formats().count("swap") == 1
    assert toolparse._core.list_formats().count("swap") == 1
    assert "swap-old" not in toolparse.list_formats(aliases=True)
    assert "swap-new" in toolparse.list_formats(aliases=True)
    old_text, new_text = old["samples"][0], new["samples"][0]
    for b in BACKENDS:
        assert before[b].extract_tool_calls(old_text).tools_called, b  # made before: the old one
        p = toolparse.get_parser("swap-new", backend=b)
        assert p.extract_tool_calls(new_text).tools_called, b
        assert not p.extract_tool_calls(old_text).tools_called, b
    tag = toolparse.structural_tag("swap", tools, tool_choice="required")
    assert tag != tag_before and "<call>" in json.dumps(tag)
    assert toolparse.ToolParserManager.get_tool_parser("swap-new") is cls_before
    try:
        toolparse.ToolParserManager.get_tool_parser("swap-old")
    except KeyError:
        pass
    else:
        raise AssertionError("the replaced alias is still registered")


def check_reasoning_entry() -> None:
    """A reasoning entry registered with a format: both backends separate its think block, as
    the parser of the built-in reasoning format with the same markers does."""
    doc = renamed("hermes", "thinker", default_reasoning="thinker_think")
    reasoning = copy.deepcopy(spec.REASONING["qwen3"])
    doc["reasoning"] = {
        "name": "thinker_think",
        "aliases": [],
        "start": "<reflect>",
        "end": "</reflect>",
        "started": False,
        "unclosed": "reasoning",
        "call_ends_block": True,
        "call_starts": ["<tool_call>"],
    }
    toolparse.register_format(doc)
    assert "thinker_think" in toolparse.list_reasoning_formats()
    assert "thinker_think" in toolparse._core.list_reasoning_formats()
    call = doc["samples"][0]
    text = "<reflect>let me think</reflect>" + call
    want = outcome("hermes", "<think>let me think</think>" + call, "rust", reasoning="qwen3")
    assert reasoning.start == "<think>" and want[1] == "let me think"
    for backend in BACKENDS:
        # the format's default reasoning, and the reasoning format named
        assert outcome("thinker", text, backend) == want, backend
        p = toolparse.get_parser("thinker", backend=backend, reasoning="thinker_think")
        info = p.extract_tool_calls(text)
        assert info.reasoning == "let me think" and len(info.tool_calls) == 2
        for chunks in splits(text, 1):
            assert outcome("thinker", text, backend, chunks)[:3] == want[:3], (backend, chunks)
    bad = renamed("hermes", "thinker2")
    bad["reasoning"] = {**doc["reasoning"], "name": "thinker_2", "start": 5}
    raises(bad, "thinker2.json", "reasoning", "start")
    clash = renamed("hermes", "thinker3")
    clash["reasoning"] = {**doc["reasoning"], "name": "qwen3"}
    raises(clash, "reasoning.name", "'qwen3'")


def check_newline_section() -> None:
    """tagged_json with ``calls`` "newline": a section of call objects one per line and no
    marker of their own (MiniMax-M1's ``<tool_calls>``), on both backends, whole and streamed;
    the same text read as ``repeated`` calls holds one call, the second object being text."""
    doc = remarked(renamed("hermes", "lines"), "tool_call>", "tool_calls>")
    doc["spec"]["calls"] = "newline"
    toolparse.register_format(doc)
    toolparse.register_format(remarked(renamed("hermes", "one_each"), "tool_call>", "tool_calls>"))
    a = '{"name": "get_weather", "arguments": {"city": "Paris"}}'
    b = '{"name": "search", "arguments": {"query": "x {y}"}}'
    calls = [("get_weather", '{"city": "Paris"}'), ("search", '{"query": "x {y}"}')]
    cases = [
        (f"<tool_calls>\n{a}\n{b}\n</tool_calls>", None, calls),
        (f"Hi <tool_calls>\n{a}\n  {b}", "Hi", calls),  # the end marker missing
        (f"<tool_calls>{a}{b}</tool_calls>", None, calls),  # no whitespace between them
        # after the section's end a JSON object is text
        (f"<tool_calls>\n{a}\n</tool_calls>\n{b}", b, calls[:1]),
        (f"<tool_calls>\n{a}\n</tool_calls> then <tool_calls>\n{b}\n</tool_calls>", "then", calls),
    ]
    for text, content, want in cases:
        for backend in BACKENDS:
            got = outcome("lines", text, backend)
            assert (got[0] or "").strip() == (content or ""), (text, backend, got)
            assert got[2] == want, (text, backend, got)
            for chunks in splits(text, len(text)):
                streamed = outcome("lines", text, backend, chunks)
                assert streamed[2] == want and streamed[0] == got[0], (chunks, backend, streamed)
    # a JSON object that is not a call, in the section: malformed markup, as after any start
    # marker (the whole output is then content)
    bad = f"<tool_calls>\n{a}\n" + '{"x": 1}\n</tool_calls>'
    for backend in BACKENDS:
        assert outcome("lines", bad, backend)[::2] == (bad, []), backend
    # read as repeated calls, the second object is not a call
    for backend in BACKENDS:
        got = outcome("one_each", cases[0][0], backend)
        assert got[2] == calls[:1] and b in (got[0] or ""), got
    # the kit writes the format's sections with several calls one per line, and both pass them
    kit = testing.cases("lines")
    assert any("}\n{" in c.model_output and c.model_output.count("<tool_calls>") == 1 for c in kit)
    for backend in BACKENDS:
        report = testing.check("lines", kit, backend=backend, n_random=1)
        assert report.ok, report


def check_functionary_without_raw_code() -> None:
    """A functionary format without call.raw_code (an inferred one: no render shows raw code)
    reads no function's call as raw code, on both backends; the raw marker without it is
    refused."""
    v31 = renamed("functionary_v31", "no_raw_v31")
    del v31["spec"]["call"]["raw_code"], v31["spec"]["markers"]["call_start_raw"]
    v32 = renamed("functionary_v32", "no_raw_v32")
    del v32["spec"]["call"]["raw_code"]
    toolparse.register_format(v31)
    toolparse.register_format(v32)
    call = [("python", '{"code": "x"}')]
    cases = [
        # (format, text, content, calls): the raw forms are text, a JSON call to python a call
        ("no_raw_v31", "Run <|python_tag|>print(1)", "Run <|python_tag|>print(1)", []),
        ("no_raw_v31", '<function=python>{"code": "x"}</function>', None, call),
        ("no_raw_v32", "python\nprint(1)", "python\nprint(1)", []),
        ("no_raw_v32", 'python\n{"code": "x"}', None, call),
        ("no_raw_v32", 'all\nHi>>>python\n{"code": "x"}', "Hi", call),
    ]
    for k, (fmt, text, content, calls) in enumerate(cases):
        for backend in BACKENDS:
            got = outcome(fmt, text, backend)
            assert (got[0], got[2]) == (content, calls), (fmt, text, backend, got)
            for chunks in splits(text, k):
                assert outcome(fmt, text, backend, chunks)[:3] == got[:3], (fmt, chunks)
    # the registered formats still read raw code
    assert outcome("functionary_v31", "<|python_tag|>print(1)", "rust")[2] == [
        ("python", '{"code": "print(1)"}')
    ]
    marker_only = renamed("functionary_v31", "raw_marker_only")
    del marker_only["spec"]["call"]["raw_code"]
    raises(marker_only, "call_start_raw")


def check_named_json_id_field() -> None:
    """A named_json format whose header's first field is the call's id (call.id_field, an
    inferred Solar's): the id is the call's, on both backends, whole and streamed; an empty or
    repeated id gets a generated one; the field without name_start is refused."""
    doc = renamed("deepseek_v3", "id_first")
    doc["spec"]["markers"] = {
        "section_start": "<|calls|>",
        "section_end": "<|/calls|>",
        "call_start": "<|call|>",
        "name_start": "<|name|>",
        "args_start": "<|args|>",
        "call_end": "<|/call|>",
    }
    doc["spec"]["call"] = {"shape": "name_sep_args", "id_field": True}
    doc["spec"]["grammar"] = {"trigger": "<|calls|>"}
    doc["spec"]["special_tokens"] = []
    doc["samples"], doc["cases"] = [], {}
    toolparse.register_format(doc)

    def call(cid: str, name: str, args: str) -> str:
        return f"<|call|>{cid}<|name|>{name}<|args|>{args}<|/call|>"

    text = (
        "Hi <|calls|>"
        + call("ab12", "get_weather", '{"city": "Paris"}')
        + call(" ", "get_time", "{}")
        + call("ab12", "get_time", '{"tz": "UTC"}')
        + "<|/calls|>"
    )
    for backend in BACKENDS:
        p = toolparse.get_parser("id_first", tools=samples.tools(), backend=backend)
        info = p.extract_tool_calls(text)
        assert info.content == "Hi " and len(info.tool_calls) == 3, (backend, info)
        ids = [c.id for c in info.tool_calls]
        assert ids[0] == "ab12" and ids[1] != " " and ids[2] != "ab12", (backend, ids)
        assert [c.function.name for c in info.tool_calls] == ["get_weather", "get_time", "get_time"]
        for chunks in splits(text, 3):
            rec = toolparse.StreamingToolReconstructor()
            s = p.stream()
            for d in [*(s.feed(c) for c in chunks), s.finish()]:
                if d is not None:
                    rec.append_delta(d)
            assert rec.tool_calls[0].id == "ab12", (backend, chunks)
            got = [(c.function.name, c.function.arguments) for c in rec.tool_calls]
            assert got == [(c.function.name, c.function.arguments) for c in info.tool_calls]
    bad = copy.deepcopy(doc)
    bad["spec"]["name"] = "id_first_bad"
    del bad["spec"]["markers"]["name_start"]
    raises(bad, "id_field")


CHECKS = {
    f.__name__: f
    for f in (
        check_copies,
        check_modified_marker,
        check_path_alias_model_and_registry,
        check_structural_tag,
        check_kit,
        check_cli,
        check_plugin,
        check_refused,
        check_replace,
        check_reasoning_entry,
        check_newline_section,
        check_functionary_without_raw_code,
        check_named_json_id_field,
    )
}

if __name__ == "__main__":
    CHECKS[sys.argv[1]]()
    print("ok")
