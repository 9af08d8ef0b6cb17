"""``toolparse bench`` (toolparse.bench): the generated outputs, the command's table, JSON and plot,
its errors, and how it drives peers (a stand-in harness here; the real one runs in
benches/plot_readme.py). No timed assertions: only what the run reports, never how fast."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any, Dict, List, Tuple

import pytest
import toolparse
from toolparse import bench, cli, testing
from toolparse.bench import outputs, servers
from toolparse.bench import peers as bench_peers
from toolparse.spec import get_spec

BACKENDS = ["rust", "python"]
TINY = ["--size", "200", "--repeat", "1", "--no-peers"]

TOP_KEYS = {
    "toolparse",
    "python",
    "servers",
    "delta_chars",
    "repeat",
    "clock",
    "budget_seconds",
    "formats",
    "sizes",
    "results",
    "unavailable",
    "ratios",
}
ROW_KEYS = {
    "format",
    "parser",
    "size",
    "output_chars",
    "deltas",
    "seconds",
    "us_per_delta",
    "correct",
    "pieces",
    "skipped",
}


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> Tuple[int, str, str]:
    code = cli.main(list(argv))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


# ------------------------------------------------------------------------------------------------
# the generated outputs
# ------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("fmt", toolparse.list_formats())
def test_every_format_is_generated_by_the_kit_renderer(fmt: str) -> None:
    """The bench writes every registered format, with the conformance kit's renderer."""
    assert outputs.supported(fmt), f"{fmt}: toolparse.testing has no renderer for it"
    form = outputs.FORMS.get(fmt)
    reasoning = outputs.REASONING if fmt in outputs.AFTER_REASONING else None
    args = outputs.arguments(100)
    case = testing.renderer(fmt).render([(outputs.CALL_NAME, args)], form=form, reasoning=reasoning)
    assert outputs.model_output(fmt, 100) == case.model_output


def test_a_value_the_kit_cannot_write_is_a_clear_error() -> None:
    """minimax_m2 writes values inline and its parser strips a newline at either end: content
    ending with one cannot be written (the kit refuses it, the bench says so)."""
    n = next(n for n in range(1, 200) if outputs.argument_text(n).endswith("\n"))
    with pytest.raises(ValueError, match=f"cannot generate minimax_m2 output of {n} characters"):
        outputs.model_output("minimax_m2", n)
    assert outputs.model_output("hermes", n)
    assert not outputs.supported("no_such_format")


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("fmt", [f for f in toolparse.list_formats() if outputs.supported(f)])
def test_generated_output_is_one_complete_call(fmt: str, backend: str) -> None:
    """What the bench times is real work: one write_file call with the generated arguments, no
    content, the same streamed in the bench's deltas as parsed whole."""
    text = outputs.model_output(fmt, 300)
    parser = toolparse.get_parser(fmt, tools=outputs.TOOLS, backend=backend)
    info = parser.extract_tool_calls(text)
    assert info.tools_called and not info.content
    assert [c.function.name for c in info.tool_calls] == [outputs.CALL_NAME]
    assert json.loads(info.tool_calls[0].function.arguments) == outputs.arguments(300)
    checked, _ = bench._toolparse_stream(fmt, backend)
    content, calls = checked(outputs.chunk(fmt, text))
    assert content == ""
    assert calls == [(c.function.name, c.function.arguments) for c in info.tool_calls]


@pytest.mark.parametrize("fmt", [f for f in toolparse.list_formats() if outputs.supported(f)])
def test_deltas_are_short_and_keep_markers_whole(fmt: str) -> None:
    text = outputs.model_output(fmt, 500)
    deltas = outputs.chunk(fmt, text)
    assert "".join(deltas) == text
    ms = set(outputs.markers(fmt))
    assert all(len(d) <= outputs.DELTA_CHARS or d in ms for d in deltas)
    for m in ms:  # every marker in the text is one delta of its own
        assert sum(d == m for d in deltas) == text.count(m) or any(
            m in other and m != other for other in ms
        ), m


def test_argument_text_is_exact_and_deterministic() -> None:
    for n in (1, 100, 5000):
        assert len(outputs.argument_text(n)) == n
    assert outputs.argument_text(777) == outputs.argument_text(777)
    assert {'"', "'", "\\", "\n"} <= set(outputs.argument_text(2000))


@pytest.mark.parametrize(
    "text,expected", [("512", 512), ("4KB", 4096), ("16k", 16384), (" 2Kb ", 2048)]
)
def test_parse_size(text: str, expected: int) -> None:
    assert bench.parse_size(text) == expected


@pytest.mark.parametrize("text", ["", "0", "-1", "1x", "KB", "1.5KB"])
def test_parse_size_refuses(text: str) -> None:
    with pytest.raises(ValueError, match="not a size"):
        bench.parse_size(text)


# ------------------------------------------------------------------------------------------------
# the command
# ------------------------------------------------------------------------------------------------


def test_table_on_a_tiny_size_has_both_backends(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "bench", "--format", "hermes", *TINY)
    assert code == 0, err
    assert "hermes" in out
    header = next(line for line in out.splitlines() if "toolparse:rust" in line)
    assert "toolparse:python" in header
    row = next(line for line in out.splitlines() if line.strip().startswith("200B"))
    assert "!" not in row and "error" not in row and "skipped" not in row
    assert err == ""  # no progress bar: stderr is not a terminal


def test_json_has_the_documented_keys(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "bench", "-f", "qwen3_coder", "-f", "pythonic", "--json", *TINY)
    assert code == 0
    report = json.loads(out)
    assert set(report) == TOP_KEYS
    assert report["formats"] == ["qwen3_coder", "pythonic"]
    assert report["sizes"] == [200]
    assert report["delta_chars"] == outputs.DELTA_CHARS
    assert report["clock"] == "wall"
    assert set(report["servers"]) == {"vllm", "sglang"}
    rows = report["results"]
    assert [(r["format"], r["parser"]) for r in rows] == [
        (f, f"toolparse:{b}") for f in ("qwen3_coder", "pythonic") for b in BACKENDS
    ]
    for r in rows:
        assert set(r) == ROW_KEYS
        assert r["size"] == 200 and r["correct"] is True and r["skipped"] is None
        assert r["seconds"] > 0 and r["us_per_delta"] > 0
        text = outputs.model_output(r["format"], 200)
        assert r["output_chars"] == len(text)
        assert r["deltas"] == len(outputs.chunk(r["format"], text))
    assert report["unavailable"] == []  # --no-peers: none asked for


def test_an_alias_names_its_format(capsys: pytest.CaptureFixture[str]) -> None:
    alias = get_spec("hermes").aliases[0]
    code, out, _ = run(capsys, "bench", "-f", alias, "--json", *TINY)
    assert code == 0
    assert json.loads(out)["formats"] == ["hermes"]


def test_unknown_format_suggests_the_closest_names(capsys: pytest.CaptureFixture[str]) -> None:
    """As every command says it (tests/test_cli.py): the closest names, else where to find them;
    the exit status of parse and stream for the same mistake."""
    code, out, err = run(capsys, "bench", "-f", "hermes", "-f", "no_such_format", *TINY)
    assert code == 1 and out == ""
    assert err.count("\n") == 1 and "no_such_format" in err and "'toolparse formats'" in err
    code, out, err = run(capsys, "bench", "-f", "pythonc", *TINY)
    assert code == 1 and out == "" and "did you mean pythonic?" in err


def test_format_without_a_generator_errors(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    real = outputs.supported
    monkeypatch.setattr(outputs, "supported", lambda f: f != "pythonic" and real(f))
    code, out, err = run(capsys, "bench", "-f", "pythonic", *TINY)
    assert code == 1 and out == ""
    assert "cannot generate output for pythonic" in err and "hermes" in err


def test_a_size_the_format_cannot_be_written_in_errors(capsys: pytest.CaptureFixture[str]) -> None:
    n = next(n for n in range(1, 200) if outputs.argument_text(n).endswith("\n"))
    code, out, err = run(capsys, "bench", "-f", "minimax_m2", "-s", str(n), "--no-peers")
    assert code == 1 and out == ""
    assert f"cannot generate minimax_m2 output of {n} characters" in err


@pytest.mark.parametrize("argv", [["-s", "12x"], ["-s", "0"], ["--repeat", "0"]])
def test_bad_options_are_usage_errors(capsys: pytest.CaptureFixture[str], argv: List[str]) -> None:
    code, out, err = run(capsys, "bench", "-f", "hermes", *argv)
    assert code == 2 and out == "" and err.count("\n") == 1


def test_plot_without_matplotlib_names_the_extra(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setitem(sys.modules, "matplotlib", None)  # import matplotlib -> ImportError
    png = tmp_path / "bench.png"
    code, out, err = run(capsys, "bench", "-f", "hermes", "--plot", str(png), *TINY)
    assert code == 1
    assert out == ""  # refused before the run, not after it
    assert "matplotlib" in err and "toolparse[plot]" in err and err.count("\n") == 1
    assert not png.exists()


def test_plot_writes_a_png(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    pytest.importorskip("matplotlib")
    png = tmp_path / "bench.png"
    code, _, err = run(capsys, "bench", "-f", "hermes", "-s", "300", "--plot", str(png), *TINY)
    assert code == 0, err
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


# ------------------------------------------------------------------------------------------------
# the progress bar
# ------------------------------------------------------------------------------------------------


class _Tty:
    def __init__(self, tty: bool) -> None:
        self.tty = tty
        self.written: List[str] = []

    def write(self, s: str) -> int:
        self.written.append(s)
        return len(s)

    def flush(self) -> None:
        pass

    def isatty(self) -> bool:
        return self.tty


def test_progress_bar_only_on_a_terminal() -> None:
    quiet = _Tty(False)
    p = bench.Progress(4, stream=quiet)
    p.step("hermes 1KB toolparse:rust")
    p.advance()
    p.close()
    assert quiet.written == []

    tty = _Tty(True)
    p = bench.Progress(4, stream=tty, width=8)
    p.step("a")
    p.advance()
    p.advance()
    p.step("b")
    p.close()
    assert tty.written[0].startswith("\r") and "[........] 0/4 a" in tty.written[0]
    assert "[####....] 2/4 b" in tty.written[1]
    assert tty.written[-1] == "\r\x1b[2K"  # the bar is cleared, the table follows alone


def test_every_parser_is_warmed_up_before_the_first_timed_run(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    calls: List[Tuple[str, str, int]] = []

    def parser(name: str, fail: bool = False) -> Tuple[Any, Any]:
        def run(kind: str) -> Any:
            def go(deltas: List[str]) -> Any:
                calls.append((name, kind, len(deltas)))
                if fail:
                    raise RuntimeError("a peer that raises")
                return "", []

            return go

        return run("checked"), run("timed")

    plan = [("hermes", {"a": parser("a"), "b": parser("b", fail=True)})]
    bench._warm_up(plan, [300, 4096], 5.0, "wall")  # what "b" raises is not the warm-up's
    n = len(outputs.chunk("hermes", outputs.model_output("hermes", 300)))
    assert calls == [("a", "checked", n), ("a", "timed", n), ("b", "checked", n)]

    order: List[str] = []
    monkeypatch.setattr(bench, "_warm_up", lambda *a: order.append("warm-up"))
    monkeypatch.setattr(bench, "_measure", lambda *a: order.append("measure"))
    bench.run(["hermes"], [200], repeat=1, peers=False)
    assert order == ["warm-up", "measure"]


def test_deadline_stops_a_run_that_does_not_end() -> None:
    with pytest.raises(bench.OverBudget):
        with bench._deadline(0.05, "wall"):
            while True:
                pass


def test_deadline_is_not_swallowed_by_a_parser_catching_exception() -> None:
    """vLLM's lfm2 catches Exception around its work and logs it: the budget must still stop it."""
    with pytest.raises(bench.OverBudget):
        with bench._deadline(0.05, "wall"):
            while True:
                try:
                    sum(range(1000))
                except Exception:
                    pass


# ------------------------------------------------------------------------------------------------
# peers, through a stand-in harness
# ------------------------------------------------------------------------------------------------

_HARNESS = """
import json
from toolparse.bench import outputs

VLLM_PEERS = {"hermes": "hermes", "pythonic": "pythonic"}
SGLANG_PEERS = {"qwen25": "hermes", "hermes": "hermes", "pythonic": "pythonic"}


class Peer:
    def __init__(self, stream):
        self.stream = stream


def make_vllm_peer(name, fmt):
    def stream(chunks):
        text = "".join(chunks)
        for size in range(len(text)):  # the size whose text this is
            if outputs.model_output(fmt, size) == text:
                return "", [("write_file", json.dumps(outputs.arguments(size)))]
        return text, []
    return Peer(stream)


def make_sglang_peer(name, fmt):
    if fmt == "pythonic":
        raise RuntimeError("cannot load\\nhere")
    def stream(chunks):
        return "", [("write_file", "{}")]  # a wrong result
    return Peer(stream)
"""


@pytest.fixture
def harness_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    (tmp_path / "peers.py").write_text(_HARNESS, encoding="utf-8")
    (tmp_path / "corpus.py").write_text("", encoding="utf-8")
    monkeypatch.setattr(bench_peers, "versions", lambda: {"vllm": "0.0", "sglang": "0.0"})
    monkeypatch.delenv("TOOLPARSE_PEERS_DIR", raising=False)
    return tmp_path


def _rows(report: Dict[str, Any], parser: str) -> List[Dict[str, Any]]:
    return [r for r in report["results"] if r["parser"] == parser]


def test_peers_run_beside_toolparse(capsys: pytest.CaptureFixture[str], harness_dir: Path) -> None:
    saved = sys.modules.get("corpus")
    code, out, _ = run(
        capsys, "bench", "-f", "hermes", "-s", "120", "--repeat", "1", "--json",
        "--peers-dir", str(harness_dir),
    )  # fmt: skip
    assert code == 0
    assert sys.modules.get("corpus") is saved  # the harness's `corpus` was set aside again
    report = json.loads(out)
    assert [r["parser"] for r in report["results"]] == [
        "toolparse:rust",
        "toolparse:python",
        "vllm:hermes",
        "sglang:hermes",  # the format's own name before another of the server's names
    ]
    (v,) = _rows(report, "vllm:hermes")
    assert v["correct"] is True and v["seconds"] is not None
    (s,) = _rows(report, "sglang:hermes")
    assert s["correct"] is False and s["seconds"] is not None  # timed, and flagged
    assert report["unavailable"] == []


def test_peers_that_do_not_load_are_listed(
    capsys: pytest.CaptureFixture[str], harness_dir: Path
) -> None:
    code, out, _ = run(
        capsys, "bench", "-f", "pythonic", "-f", "qwen3_coder", "-s", "120", "--repeat", "1",
        "--peers-dir", str(harness_dir),
    )  # fmt: skip
    assert code == 0
    assert "vllm:pythonic" in out
    assert "sglang:pythonic (pythonic): RuntimeError: cannot load here" in out
    assert "the peers harness has no vllm parser for qwen3_coder" in out


def test_a_missing_harness_is_a_note_not_an_error(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(bench_peers, "versions", lambda: {"vllm": None, "sglang": None})
    code, out, _ = run(
        capsys, "bench", "-f", "hermes", "-s", "120", "--repeat", "1", "--json",
        "--peers-dir", str(tmp_path / "nowhere"),
    )  # fmt: skip
    assert code == 0
    report = json.loads(out)
    assert {r["parser"] for r in report["results"]} == {"toolparse:rust", "toolparse:python"}
    assert [(u["parser"], "no peers harness" in u["reason"]) for u in report["unavailable"]] == [
        ("vllm", True),
        ("sglang", True),
    ]


def test_a_slow_size_stops_the_larger_ones(
    harness_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A peer over the budget on one size is not run on the larger ones (a fake clock: the
    stand-in vLLM peer 'takes' 1 s per delta)."""
    now = [0.0]

    def clock() -> float:
        return now[0]

    monkeypatch.setitem(bench.CLOCKS, "fake", clock)
    harness, _ = bench_peers.load_harness(str(harness_dir))
    assert harness is not None
    slow = harness.make_vllm_peer("hermes", "hermes").stream

    def stream(chunks: List[str]) -> Any:
        now[0] += len(chunks)
        return slow(chunks)

    monkeypatch.setattr(harness, "make_vllm_peer", lambda n, f: harness.Peer(stream))
    monkeypatch.setattr(bench_peers, "load_harness", lambda d: (harness, ""))
    report = bench.run(["hermes"], [60, 120, 240], repeat=1, budget=90.0, clock="fake")
    rows = _rows(report, "vllm:hermes")
    assert [r["seconds"] is None for r in rows] == [False, True, True]
    assert "budget" in rows[1]["skipped"] and rows[1]["correct"] is None
    assert all(r["seconds"] is not None for r in _rows(report, "toolparse:rust"))


# ------------------------------------------------------------------------------------------------
# the servers' own parsers for the formats the harness does not know (bench/servers.py)
# ------------------------------------------------------------------------------------------------


def _installed(module: str) -> bool:
    import importlib.util

    try:
        return importlib.util.find_spec(module) is not None
    except (ImportError, ValueError):
        return False


@pytest.mark.skipif(_installed("vllm") or _installed("sglang"), reason="a server is installed")
def test_servers_not_installed_is_a_clean_note(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(servers, "_REGISTERED", {})
    found, missing = servers.server_streams("seed_oss")
    assert found == {}
    assert missing == {"vllm": "vllm is not installed", "sglang": "sglang is not installed"}


@pytest.mark.skipif(_installed("vllm"), reason="vLLM is installed")
def test_the_bench_notes_a_server_that_is_not_installed(
    capsys: pytest.CaptureFixture[str], harness_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A format the harness has no parser for falls to servers.py, which says why it cannot run
    (after the harness's own reason)."""
    monkeypatch.setattr(servers, "_REGISTERED", {})
    code, out, _ = run(
        capsys, "bench", "-f", "seed_oss", "-s", "120", "--repeat", "1", "--json",
        "--peers-dir", str(harness_dir),
    )  # fmt: skip
    assert code == 0
    report = json.loads(out)
    assert {r["parser"] for r in report["results"]} == {"toolparse:rust", "toolparse:python"}
    reasons = {u["parser"]: u["reason"] for u in report["unavailable"]}
    assert reasons["vllm"] == (
        "the peers harness has no vllm parser for seed_oss; vllm is not installed"
    )


@pytest.mark.parametrize(
    "server, name, expected",
    [
        ("vllm", "hermes", "hermes"),
        ("sglang", "qwen25", "hermes"),  # an alias
        ("sglang", "deepseekv32", "deepseek_v32"),
        ("vllm", "muse", "muse"),
        ("vllm", "musespark1x", "muse"),
        ("sglang", "muse", "muse_glimmer"),  # SGLang's `muse` is vLLM's muse_glimmer
        ("vllm", "hf", None),  # response-template parsers: no fixed wire format
        ("sglang", "response_template", None),
    ],
)
def test_a_server_name_maps_to_its_format(server: str, name: str, expected: Any) -> None:
    assert servers.format_of(server, name) == expected


def test_the_formats_own_name_is_preferred() -> None:
    assert servers.peer_name("sglang", "hermes", ["qwen25", "qwen", "hermes"]) == "hermes"
    assert servers.peer_name("sglang", "hermes", ["qwen25", "qwen"]) == "qwen"  # spec order
    assert servers.peer_name("sglang", "muse_glimmer", ["muse", "hermes"]) == "muse"
    assert servers.peer_name("sglang", "muse", ["muse", "hermes"]) is None
    assert servers.peer_name("vllm", "seed_oss", ["hermes"]) is None


def test_the_driver_serves_what_the_harness_lacks(
    harness_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The harness's formats keep the harness's parser; another format gets the server's own
    parser, named by its registered name, on the bench's deltas."""
    seen: List[Tuple[str, str, int]] = []

    def maker(server: str) -> Any:
        def make(name: str, fmt: str) -> Any:
            def stream(deltas: List[str]) -> Any:
                seen.append((server, name, len(deltas)))
                size = len(outputs.argument_text(120))
                return "", [("write_file", json.dumps(outputs.arguments(size)))]

            return stream

        return make

    registered = {"vllm": (["hermes", "seed_oss"], ""), "sglang": (None, "sglang is not here")}
    monkeypatch.setattr(servers, "_REGISTERED", registered)
    monkeypatch.setattr(servers, "_MAKERS", {s: maker(s) for s in servers.SERVERS})
    report = bench.run(["hermes", "seed_oss"], [120], repeat=1, peers_dir=str(harness_dir))
    parsers = [(r["format"], r["parser"]) for r in report["results"]]
    assert ("hermes", "vllm:hermes") in parsers and ("seed_oss", "vllm:seed_oss") in parsers
    assert {s[:2] for s in seen} == {("vllm", "seed_oss")}  # hermes ran through the harness
    deltas = len(outputs.chunk("seed_oss", outputs.model_output("seed_oss", 120)))
    assert seen[0][2] == deltas
    (row,) = [r for r in report["results"] if r["parser"] == "vllm:seed_oss"]
    assert row["correct"] is True and row["deltas"] == deltas
    missing = {(u["format"], u["parser"]): u["reason"] for u in report["unavailable"]}
    assert missing[("seed_oss", "sglang")].endswith("; sglang is not here")


def test_a_known_misread_is_explained_in_the_table() -> None:
    row = {
        "format": "xlam", "parser": "vllm:xlam", "size": 120, "output_chars": 1, "deltas": 1,
        "seconds": 1e-3, "us_per_delta": 1000.0, "correct": False, "skipped": None,
    }  # fmt: skip
    report = {
        "toolparse": "0", "python": "3", "servers": {}, "delta_chars": 4, "repeat": 1,
        "clock": "cpu", "budget_seconds": 20.0, "formats": ["xlam"], "sizes": [120],
        "results": [row], "unavailable": [],
    }  # fmt: skip
    text = bench.table(report)
    assert "1000 !" in text
    assert f"'!' vllm:xlam: {servers.MISREADS['vllm:xlam']}" in text


def test_bench_tokenizer_gives_markers_ids_of_their_own() -> None:
    tok = servers.BenchTokenizer("hermes")
    vocab = tok.get_vocab()
    assert "<tool_call>" in vocab and "</tool_call>" in vocab
    text = outputs.model_output("hermes", 40)
    deltas = outputs.chunk("hermes", text)
    ids = tok.encode(text)
    assert len(ids) == len(deltas)  # one id per delta
    assert tok.decode(ids) == text
    assert tok.convert_ids_to_tokens(ids) == deltas
    assert tok.convert_tokens_to_ids("<tool_call>") == vocab["<tool_call>"]
    assert tok.all_special_ids == []


def test_readme_shows_the_plot_and_the_command() -> None:
    root = Path(__file__).resolve().parent.parent
    readme = root / "README.md"
    if not readme.is_file():  # pragma: no cover - an installed package run outside the repo
        pytest.skip("README.md is not next to the tests")
    text = readme.read_text(encoding="utf-8")
    section = text[text.index("## Benchmarks") :]
    assert "](docs/bench.png)" in section and "toolparse bench --format" in section
    png = root / "docs" / "bench.png"
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert png.stat().st_size < 200_000
    assert (root / "benches" / "plot_readme.py").is_file()


def _row(parser: str, us: float, pieces: int, correct: bool = True) -> Dict[str, Any]:
    return {
        "format": "qwen3_coder", "parser": parser, "size": 4096, "output_chars": 4200,
        "deltas": 1000, "seconds": us * 1e-3, "us_per_delta": us, "correct": correct,
        "pieces": pieces, "skipped": None,
    }  # fmt: skip


def test_ratios_name_the_fastest_peer_and_the_fastest_that_streamed() -> None:
    """A peer that sends the argument in a few pieces (it holds the value until it ends) does
    less work per delta than one that streams it: the ratios name both, the table marks it."""
    rows = [
        _row("toolparse:rust", 2.0, 990),
        _row("toolparse:python", 5.0, 990),
        _row("sglang:qwen3_coder", 6.0, 4),  # held: 4 pieces for 1000 deltas
        _row("vllm:qwen3_coder", 40.0, 990),
        _row("vllm:other", 3.0, 990, correct=False),  # wrong: never the reference
    ]
    report = {
        "toolparse": "0", "python": "3", "servers": {}, "delta_chars": 4, "repeat": 1,
        "clock": "cpu", "budget_seconds": 20.0, "formats": ["qwen3_coder"], "sizes": [4096],
        "results": rows, "unavailable": [],
    }  # fmt: skip
    assert [bench.streams(r) for r in rows] == [True, True, False, True, True]
    (r,) = bench.ratios(report)
    assert (r["peer"], r["ratio"]) == ("sglang:qwen3_coder", 3.0)
    assert (r["streaming_peer"], r["streaming_ratio"]) == ("vllm:qwen3_coder", 20.0)
    report["ratios"] = [r]
    text = bench.table(report)
    assert "6.00 =4" in text and "40.0 " in text
    assert "3.0x sglang:qwen3_coder, 20.0x vllm:qwen3_coder (streaming)" in text
    assert "'=N': the parser sent the argument in N pieces" in text


def test_toolparse_streams_the_argument_and_counts_its_pieces(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, out, _ = run(capsys, "bench", "-f", "hermes", "--json", "--size", "1KB", "--repeat", "1",
                       "--no-peers")  # fmt: skip
    assert code == 0
    for row in json.loads(out)["results"]:
        assert bench.streams(row), row
        assert row["pieces"] <= row["deltas"]
