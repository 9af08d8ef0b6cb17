"""The ``toolparse`` command: run in-process through ``main([...])`` (plus one subprocess run for
the exit status and stderr of an error)."""

from __future__ import annotations

import io
import json
import re
import subprocess
import sys
from pathlib import Path
from typing import List, Optional

import pytest
import toolparse
from toolparse import cli, samples
from toolparse.models import DeltaMessage, ExtractedToolCallInformation

BACKENDS = ["rust", "python"]
FORMATS = toolparse.list_formats()


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = cli.main(list(argv))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


@pytest.fixture
def sample_file(tmp_path):
    """format -> path of a file holding that format's first bundled sample."""

    def make(fmt: str, index: int = 0) -> str:
        path = tmp_path / f"{fmt}-{index}.txt"
        path.write_bytes(samples.load(fmt)[index].encode("utf-8"))
        return str(path)

    return make


def test_formats_lists_every_registered_format(capsys):
    code, out, err = run(capsys, "formats")
    assert code == 0 and err == ""
    assert out.splitlines() == FORMATS


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("fmt", FORMATS)
def test_parse_prints_extracted_information(capsys, sample_file, fmt, backend):
    text = samples.load(fmt)[0]
    code, out, err = run(
        capsys, "parse", "--format", fmt, "--backend", backend, "--seed", "7", sample_file(fmt)
    )
    assert code == 0 and err == ""
    assert out.count("\n") == 1
    expected = toolparse.get_parser(
        fmt, backend=backend, ids=toolparse.IdSource(7)
    ).extract_tool_calls(text)
    assert out == expected.model_dump_json(exclude_none=True) + "\n"
    ExtractedToolCallInformation.model_validate_json(out)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("chunk_size", [1, 4, 7, 100000])
@pytest.mark.parametrize("fmt", FORMATS)
def test_stream_prints_one_delta_per_line(capsys, sample_file, fmt, backend, chunk_size):
    text = samples.load(fmt)[0]
    path = sample_file(fmt)
    code, out, err = run(
        capsys, "stream", "-f", fmt, "--backend", backend, "--chunk-size", str(chunk_size), path
    )
    assert code == 0 and err == ""
    lines = out.splitlines()
    assert lines, "a sample produces at least one delta"
    rec = toolparse.StreamingToolReconstructor()
    for line in lines:
        delta = DeltaMessage.model_validate_json(line)
        assert line == delta.model_dump_json(exclude_none=True)
        rec.append_delta(delta)
    if chunk_size == 100000:
        assert len(lines) <= 2  # one feed and the finish
    # The streamed result is the non-streaming one.
    info = toolparse.get_parser(fmt, backend=backend).extract_tool_calls(text)
    assert (rec.other_content or None) == info.content
    got = [(c.function.name, c.function.arguments) for c in rec.tool_calls]
    assert got == [(c.function.name, c.function.arguments) for c in info.tool_calls]


def test_stream_default_chunk_size_is_four(capsys, tmp_path):
    path = tmp_path / "plain.txt"
    path.write_text("abcdefghij", encoding="utf-8")
    code, out, _ = run(capsys, "stream", "--format", "hermes", str(path))
    assert code == 0
    contents = [json.loads(line).get("content") for line in out.splitlines()]
    assert "".join(contents) == "abcdefghij"
    assert contents[0] == "abcd"


def test_stream_seed_makes_ids_deterministic(capsys, sample_file):
    path = sample_file("hermes")
    _, first, _ = run(capsys, "stream", "-f", "hermes", "--seed", "3", path)
    _, second, _ = run(capsys, "stream", "-f", "hermes", "--seed", "3", path)
    assert first == second and "chatcmpl-tool-" in first


def test_reads_stdin_when_file_is_dash_or_missing(capsys, monkeypatch):
    text = samples.load("hermes")[0]
    expected = toolparse.get_parser("hermes").extract_tool_calls(text)
    for argv in (["parse", "-f", "hermes", "-"], ["parse", "-f", "hermes"]):
        raw = io.TextIOWrapper(io.BytesIO(text.encode("utf-8")), encoding="utf-8")
        monkeypatch.setattr(sys, "stdin", raw)
        code, out, err = run(capsys, *argv)
        assert code == 0 and err == ""
        got = ExtractedToolCallInformation.model_validate_json(out)
        assert got.content == expected.content
        assert [c.function for c in got.tool_calls] == [c.function for c in expected.tool_calls]
    # a text stream without a byte buffer underneath
    monkeypatch.setattr(sys, "stdin", io.StringIO(text))
    code, out, _ = run(capsys, "parse", "-f", "hermes")
    assert code == 0 and json.loads(out)["tools_called"] is True


def test_file_is_read_exactly(capsys, tmp_path):
    """No newline translation: CRLF and a trailing newline reach the parser unchanged."""
    path = tmp_path / "crlf.txt"
    path.write_bytes(b"line one\r\nline two\r\n")
    code, out, _ = run(capsys, "parse", "-f", "hermes", str(path))
    assert code == 0
    assert json.loads(out)["content"] == "line one\r\nline two\r\n"


def test_tools_option(capsys, sample_file, tmp_path):
    tools = tmp_path / "tools.json"
    tools.write_text(json.dumps(samples.tools()), encoding="utf-8")
    code, out, err = run(
        capsys, "parse", "-f", "hermes", "--tools", str(tools), sample_file("hermes")
    )
    assert code == 0 and err == "" and json.loads(out)["tools_called"] is True
    tools.write_text("{not json", encoding="utf-8")
    code, out, err = run(
        capsys, "parse", "-f", "hermes", "--tools", str(tools), sample_file("hermes")
    )
    assert code == 1 and out == "" and err.count("\n") == 1 and "--tools" in err
    assert "not JSON" in err


# ------------------------------------------------------------------------------------------------
# demo
# ------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("fmt", FORMATS)
def test_every_registered_format_has_a_bundled_sample(fmt):
    """Adding a format means adding python/toolparse/samples/<format>.txt."""
    texts = samples.load(fmt)
    assert texts, f"no bundled sample for {fmt!r}: add python/toolparse/samples/{fmt}.txt"
    assert all(t.strip() for t in texts), f"an empty sample in samples/{fmt}.txt"


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("fmt", FORMATS)
def test_samples_call_tools_and_agree_streaming(fmt, backend):
    """Each format's samples show at least one tool call, and streaming equals non-streaming."""
    texts = samples.load(fmt)
    results = [cli._demo_one(fmt, t, backend, samples.tools(), 4) for t in texts]
    assert any(calls for _, _, calls, _ in results), f"no sample of {fmt!r} has a tool call"
    for text, (_, _, _, same) in zip(texts, results):
        assert same, f"{fmt}: streaming != non-streaming on sample {text!r}"


@pytest.mark.parametrize("backend", BACKENDS)
def test_demo_shows_every_format(capsys, backend):
    code, out, err = run(capsys, "demo", "--backend", backend)
    assert code == 0, out
    assert err == ""
    assert "!!" not in out
    lines = out.splitlines()
    header = next(line for line in lines if line.startswith("format"))
    assert [cell.strip() for cell in header.split(" | ")] == [
        "format",
        "content",
        "tool calls name(args)",
        "stream==non-stream",
    ]
    shown = {line.split(" | ")[0].strip() for line in lines[3:]}
    assert set(FORMATS) <= shown
    rows = [line for line in lines[3:] if line.split(" | ")[0].strip()]
    assert len(rows) == sum(len(samples.load(f)) for f in FORMATS)
    assert all(row.rstrip().endswith("✓") for row in rows)
    # the tool calls are shown as name(arguments)
    assert "get_weather({" in out


def test_demo_flags_a_format_without_sample(capsys, monkeypatch):
    real = samples.load
    missing = FORMATS[0]
    monkeypatch.setattr(samples, "load", lambda f: [] if f == missing else real(f))
    code, out, _ = run(capsys, "demo")
    assert f"!! {missing}: no bundled sample output" in out
    assert code == 0


def test_demo_flags_a_mismatch(capsys, monkeypatch):
    monkeypatch.setattr(cli, "_demo_one", lambda *a: ("x", None, [("f", "{}")], False))
    code, out, _ = run(capsys, "demo")
    assert code == 1
    assert "✗" in out and "!!" in out


def test_bundled_samples_cover_the_main_formats():
    for fmt in ("hermes", "mistral", "llama3_json", "qwen3_coder", "openai", "pythonic"):
        assert samples.load(fmt), fmt
    assert samples.load("no_such_format") == []


# ------------------------------------------------------------------------------------------------
# errors: one line on stderr, non-zero exit, no traceback
# ------------------------------------------------------------------------------------------------


def assert_one_line_error(code: int, out: str, err: str, *needles: str) -> None:
    assert code != 0
    assert out == ""
    assert err.count("\n") == 1 and err.startswith("toolparse: error: "), err
    assert "Traceback" not in err
    for needle in needles:
        assert needle in err


EXCEPTION_NAME = re.compile(r"\b[A-Z]\w*(Error|Exception|Warning)\b|Traceback|pydantic")


def _format_argv(command: str, name: str, path: str) -> List[str]:
    if command == "grammar":
        return ["grammar", "--format", name, "--tools", path]
    if command == "bench":
        return ["bench", "--format", name, "--size", "100", "--no-peers"]
    return [command, "--format", name, path]


@pytest.mark.parametrize("command", ["parse", "stream", "grammar", "bench"])
def test_unknown_format_suggests_the_closest_names(capsys, tmp_path, command):
    path = tmp_path / "x.json"
    path.write_text("[]", encoding="utf-8")
    code, out, err = run(capsys, *_format_argv(command, "hermas", str(path)))
    assert_one_line_error(code, out, err, "unknown tool-call format 'hermas'; did you mean hermes?")
    assert sum(f"{name}," in err or f" {name}\n" in err for name in FORMATS) <= 3, "no full list"
    code, out, err = run(capsys, *_format_argv(command, "qwen3coder", str(path)))
    assert_one_line_error(code, out, err, "did you mean qwen3_coder")
    # nothing close: where to find the names, not all of them
    code, out, err = run(capsys, *_format_argv(command, "zzzz", str(path)))
    assert_one_line_error(code, out, err, "unknown tool-call format 'zzzz'", "'toolparse formats'")
    assert not any(name in err for name in ("hermes", "mistral", "qwen3_coder"))


def test_unknown_reasoning_format_suggests_the_closest_names(capsys, tmp_path):
    path = tmp_path / "tools.json"
    path.write_text("[]", encoding="utf-8")
    code, out, err = run(
        capsys, "grammar", "-f", "hermes", "--tools", str(path), "--reasoning", "qwen"
    )
    assert_one_line_error(code, out, err, "unknown reasoning format 'qwen'; did you mean qwen3?")


def test_the_library_error_puts_the_closest_names_first():
    """The API's ValueError stays informative (every known name) but leads with the closest."""
    with pytest.raises(ValueError) as info:
        toolparse.get_parser("hermas")
    message = str(info.value)
    assert message.startswith("unknown tool-call format 'hermas'; did you mean 'hermes'? ")
    assert all(name in message for name in FORMATS)


GOOD_TOOL = {"type": "function", "function": {"name": "f", "parameters": {"type": "object"}}}
BAD_TOOLS = {
    "missing": (None, "cannot read it"),
    "a folder": ("<dir>", "cannot read it"),
    "not UTF-8": (b"[\xff]", "cannot read it: not UTF-8"),
    "not JSON": (b"{not json", "not JSON (Expecting property name"),
    "empty": (b"", "not JSON"),
    "an object": (b'{"type": "function"}', "expected a JSON list of tools, got an object"),
    "a list of numbers": (b"[1, 2]", "tools[0]: expected a tool object, got a number"),
    "no function": (b'[{"type": "function"}]', "tools[0].function: Field required"),
    "the second tool": (
        json.dumps([GOOD_TOOL, {"type": "function", "function": {"name": ""}}]).encode(),
        "tools[1].function.name: tool name must be a non-empty string",
    ),
    "parameters not an object": (
        b'[{"type": "function", "function": {"name": "f", "parameters": 3}}]',
        "tools[0].function.parameters: expected a JSON object, got a number",
    ),
}


@pytest.mark.parametrize("kind", list(BAD_TOOLS))
def test_a_bad_tools_file_is_one_message_from_every_command(capsys, tmp_path, kind):
    """The same file, the same line on stderr from parse, stream and grammar: the file's name,
    what is wrong with it, and no Python exception name."""
    content, needle = BAD_TOOLS[kind]
    path = tmp_path / "tools.json"
    if content == "<dir>":
        path.mkdir()
    elif content is not None:
        path.write_bytes(content)
    model_output = tmp_path / "out.txt"
    model_output.write_text("hi", encoding="utf-8")
    errors = set()
    for argv in (
        ["parse", "-f", "hermes", "--tools", str(path), str(model_output)],
        ["stream", "-f", "hermes", "--tools", str(path), str(model_output)],
        ["grammar", "-f", "hermes", "--tools", str(path), "--tool-choice", "required"],
    ):
        code, out, err = run(capsys, *argv)
        assert code == 1, (argv, err)
        assert_one_line_error(code, out, err, f"toolparse: error: --tools {path}: ", needle)
        assert not EXCEPTION_NAME.search(err), err
        errors.add(err)
    assert len(errors) == 1, errors


@pytest.mark.parametrize(
    "tools,argv,why",
    [
        ([GOOD_TOOL], [], "--tool-choice auto and no tool marked strict"),
        ([GOOD_TOOL], ["--tool-choice", "none"], "--tool-choice none"),
        ([], [], "no function tool"),
        ([], ["--tool-choice", "required"], "no function tool"),
    ],
)
def test_grammar_with_nothing_to_constrain_says_why_and_exits_zero(
    capsys, tmp_path, tools, argv, why
):
    """Not an error: null on stdout (JSON a script can read), the reason on stderr, status 0,
    exactly when the library's structural_tag gives None."""
    path = tmp_path / "tools.json"
    path.write_text(json.dumps(tools), encoding="utf-8")
    code, out, err = run(capsys, "grammar", "-f", "hermes", "--tools", str(path), *argv)
    choice = argv[1] if argv else "auto"
    assert toolparse.structural_tag("hermes", tools, tool_choice=choice) is None
    assert code == 0 and json.loads(out) is None
    assert err.count("\n") == 1 and err.startswith("toolparse grammar: nothing to constrain: ")
    assert why in err
    # with a tag to print, stderr stays empty
    strict = [{**GOOD_TOOL, "function": {**GOOD_TOOL["function"], "strict": True}}]
    path.write_text(json.dumps(strict), encoding="utf-8")
    code, out, err = run(capsys, "grammar", "-f", "hermes", "--tools", str(path))
    assert code == 0 and err == "" and json.loads(out)["type"] == "structural_tag"


@pytest.mark.parametrize("command", ["parse", "stream"])
def test_unreadable_file(capsys, tmp_path, command):
    missing = str(tmp_path / "missing.txt")
    assert_one_line_error(*run(capsys, command, "-f", "hermes", missing), "missing.txt")
    assert_one_line_error(*run(capsys, command, "-f", "hermes", str(tmp_path)))
    bad = tmp_path / "latin1.txt"
    bad.write_bytes(b"caf\xe9")
    assert_one_line_error(*run(capsys, command, "-f", "hermes", str(bad)), "UTF-8")


@pytest.mark.parametrize(
    "argv",
    [
        [],
        ["bogus"],
        ["parse"],
        ["parse", "-f", "hermes", "--backend", "java"],
        ["stream", "-f", "hermes", "--chunk-size", "0"],
        ["stream", "-f", "hermes", "--chunk-size", "x"],
    ],
)
def test_usage_errors_are_one_line(capsys, argv):
    code, out, err = run(capsys, *argv)
    assert code == 2
    assert_one_line_error(code, out, err)


def test_help_and_version(capsys):
    code, out, _ = run(capsys, "--help")
    assert code == 0 and "demo" in out
    code, out, _ = run(capsys, "--version")
    assert code == 0 and out.strip() == f"toolparse {toolparse.__version__}"


def test_unknown_format_subprocess(sample_file):
    """The real process: exit status 1, one line on stderr, nothing on stdout."""
    proc = subprocess.run(
        [sys.executable, "-m", "toolparse.cli", "parse", "--format", "nope", sample_file("hermes")],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 1
    assert proc.stdout == ""
    assert proc.stderr.count("\n") == 1, proc.stderr
    assert proc.stderr.startswith("toolparse: error: unknown tool-call format 'nope'")
    assert "Traceback" not in proc.stderr


def test_console_script_entry_point():
    from importlib import metadata

    try:
        dist = metadata.distribution("toolparse")
    except metadata.PackageNotFoundError:  # pragma: no cover - running from an uninstalled tree
        pytest.skip("toolparse is not installed")
    scripts = {ep.name: ep.value for ep in dist.entry_points if ep.group == "console_scripts"}
    assert scripts.get("toolparse") == "toolparse.cli:main"


# ------------------------------------------------------------------------------------------------
# toolparse integrations
# ------------------------------------------------------------------------------------------------


def _check(server: str, installed: bool, ok: bool, error: Optional[str] = None) -> dict:
    names = ["toolparse_hermes", "toolparse_qwen"] if ok else []
    return {
        "server": server,
        "installed": installed,
        "version": "1.0" if installed else None,
        "ok": ok,
        "names": names,
        "reasoning_names": ["toolparse_qwen3", "toolparse_deepseek_r1"] if ok else [],
        "error": error,
    }


def test_integrations_reports_each_server(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    checks = [_check("vllm", True, True), _check("sglang", False, False, "not installed")]
    monkeypatch.setattr(cli, "_integration_checks", lambda: checks)
    assert cli.main(["integrations"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0] == "vllm 1.0: ok"
    assert out[1].startswith("  --tool-call-parser ")
    assert "toolparse_hermes" in out[1] and "toolparse_qwen" in out[1]
    assert out[2] == "  --reasoning-parser toolparse_qwen3 | toolparse_deepseek_r1"
    assert out[3] == "sglang: not installed"
    assert cli.main(["integrations", "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == checks


def test_integrations_fails_when_an_installed_server_rejects_toolparse(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    error = "RuntimeError: SGLANG_PLUGINS=x leaves out 'toolparse'\nmore"
    bad = _check("sglang", True, False, error)
    monkeypatch.setattr(cli, "_integration_checks", lambda: [_check("vllm", True, True), bad])
    assert cli.main(["integrations"]) == 1
    out = capsys.readouterr().out.splitlines()
    # the reason in one line
    reason = "RuntimeError: SGLANG_PLUGINS=x leaves out 'toolparse' more"
    assert out[-1] == f"sglang 1.0: FAILED: {reason}"


def test_integrations_real_checks_never_raise(capsys: pytest.CaptureFixture[str]) -> None:
    # Whatever is installed here: one block per server, and the exit status says whether an
    # installed server failed to load toolparse.
    code = cli.main(["integrations", "--json"])
    checks = json.loads(capsys.readouterr().out)
    assert [c["server"] for c in checks] == ["vllm", "sglang"]
    assert code == (0 if all(c["ok"] or not c["installed"] for c in checks) else 1)
    for c in checks:
        if c["ok"]:
            assert "toolparse_hermes" in c["names"]
            assert "toolparse_qwen3" in c["reasoning_names"]
        assert isinstance(c["reasoning_names"], list)


@pytest.mark.parametrize("command", ["stream", "parse"])
def test_closed_stdout_ends_quietly(tmp_path: Path, command: str) -> None:
    """`toolparse stream ... | head -1`: the reader goes away; no exception name, no traceback."""
    big = tmp_path / "out.txt"
    body = "x" * 200_000
    big.write_text('<tool_call>{"name": "f", "arguments": {"a": "' + body + '"}}</tool_call>')
    chunking = "-n 2" if command == "stream" else ""
    run = f"{sys.executable} -m toolparse.cli {command} --format hermes {chunking} {big}"
    script = f"{run} | head -c 10; echo; echo status=${{PIPESTATUS[0]}}"
    r = subprocess.run(["bash", "-c", script], capture_output=True, text=True, timeout=120)
    assert r.stderr == "", r.stderr
    assert "status=1" in r.stdout or "status=0" in r.stdout, r.stdout[-200:]


def test_grammar_prints_the_structural_tag(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    tools = [
        {
            "type": "function",
            "function": {
                "name": "get_weather",
                "parameters": {"type": "object", "properties": {"city": {"type": "string"}}},
            },
        }
    ]
    path = tmp_path / "tools.json"
    path.write_text(json.dumps(tools))
    code, out, _ = run(
        capsys,
        "grammar",
        "--format",
        "hermes",
        "--tools",
        str(path),
        "--tool-choice",
        "required",
        "--strict",
        "parameter",
    )
    assert code == 0
    assert json.loads(out) == toolparse.structural_tag(
        "hermes", tools, tool_choice="required", strict="parameter"
    )
    code, out, _ = run(
        capsys,
        "grammar",
        "-f",
        "hermes",
        "--tools",
        str(path),
        "--tool-choice",
        "get_weather",
        "--no-parallel",
    )
    assert code == 0 and json.loads(out)["type"] == "structural_tag"
    # auto with no strict tool: nothing to constrain (null, and why on stderr)
    code, out, err = run(capsys, "grammar", "-f", "hermes", "--tools", str(path))
    assert code == 0 and json.loads(out) is None and "nothing to constrain" in err
    code, _, err = run(
        capsys, "grammar", "-f", "hermes", "--tools", str(path), "--tool-choice", "nope"
    )
    assert code != 0 and "tool_choice" in err
