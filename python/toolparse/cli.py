"""The ``toolparse`` command.

    toolparse formats [--aliases]                       the registered formats, one per line
                                                        (--aliases: each followed by its aliases)
    toolparse formats --model ID                        the format model ID (a Hugging Face id
                                                        or a local path) emits
    toolparse parse  --format F [FILE|-]                ExtractedToolCallInformation as JSON
    toolparse stream --format F [--chunk-size N] [FILE|-]
                                                        one DeltaMessage as JSON per line
    toolparse stream --format F --events [FILE|-]      stream events as NDJSON: text_delta,
                                                        reasoning_delta, tool_calls (one per
                                                        completed call), error (truncated), done
    toolparse demo                                      every format on its bundled samples
    toolparse grammar --format F --tools FILE [--tool-choice C] ...
                                                        the structural tag for strict tool calling
                                                        (null, and why on stderr: nothing to
                                                        constrain; exit status 0)
    toolparse integrations [--json]                     do the installed vLLM / SGLang load it?
    toolparse bench [--format F ...] [--size N ...] [--json [PATH]] [--plot FILE.png]
                                                        time per delta: toolparse (both backends),
                                                        and vLLM's and SGLang's parsers where they
                                                        run (see toolparse.bench)

Every command that takes --format (and formats, demo) also takes --format-file PATH (repeatable): a
format file (the shape of toolparse/formats/<name>.json) registered first
(toolparse.register_format); without --format, the format is the one it registers.

Errors (unknown format, unreadable file, bad arguments) are one line on stderr and a non-zero exit
status (1, or 2 for command-line usage errors), never a traceback. One mistake gives one message,
whichever command meets it: a bad ``--tools`` file (missing, not JSON, not a list of tools) reads
the same from ``parse``, ``stream`` and ``grammar``, and an unknown format name suggests the
closest names.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import unicodedata
from typing import Any, Dict, List, NoReturn, Optional, Sequence, TextIO, Tuple

from .cli_detect import (
    DetectError,
    InferRefused,
    add_detect_parser,
    add_infer_parser,
    cmd_detect,
    cmd_infer,
)

__all__ = ["main"]

PROG = "toolparse"


class CliError(Exception):
    """An error reported as one line on stderr; ``code`` is the exit status."""

    def __init__(self, message: str, code: int = 1) -> None:
        super().__init__(message)
        self.code = code


class _ArgumentParser(argparse.ArgumentParser):
    """argparse, but usage errors are one line (no usage block) and do not exit the process."""

    def error(self, message: str) -> NoReturn:
        raise CliError(f"{message} (see '{self.prog} --help')", code=2)


def _one_line(text: str) -> str:
    return " ".join(str(text).split()) or "error"


class _Unreadable(Exception):
    """Why a file could not be read (``str``: the reason, no file name)."""


def _read_text(path: str) -> str:
    """The file's text (``-``: standard input), read exactly; ``_Unreadable`` with the reason."""
    try:
        if path == "-":
            buffer = getattr(sys.stdin, "buffer", None)
            if buffer is None:  # a text stream without bytes underneath (tests, embedding)
                return sys.stdin.read()
            return buffer.read().decode("utf-8")
        with open(path, encoding="utf-8", newline="") as f:
            return f.read()
    except UnicodeDecodeError as e:
        raise _Unreadable(f"not UTF-8 text ({e.reason} at byte {e.start})") from None
    except OSError as e:
        raise _Unreadable(str(e.strerror or e)) from None


def _read_input(path: str) -> str:
    try:
        return _read_text(path)
    except _Unreadable as e:
        where = "standard input" if path == "-" else path
        raise CliError(f"cannot read {where}: {e}") from None


def _json_kind(value: Any) -> str:
    kinds = {dict: "an object", str: "a string", bool: "a boolean", type(None): "null"}
    return kinds.get(type(value), "a number")


def _tools_problem(tools: Any) -> Optional[str]:
    """What is wrong with a parsed tools file, in the words of the one check every command
    runs (the parser's: a list of OpenAI function tools); None when nothing is."""
    from pydantic import ValidationError

    from .parser import _tool_models

    if not isinstance(tools, list):
        return f"expected a JSON list of tools, got {_json_kind(tools)}"
    for i, tool in enumerate(tools):
        if not isinstance(tool, dict):
            return f"tools[{i}]: expected a tool object, got {_json_kind(tool)}"
        try:
            _tool_models([tool])
        except ValidationError as e:
            first = e.errors()[0]
            where = "".join(f"[{x}]" if isinstance(x, int) else f".{x}" for x in first["loc"])
            if first["type"] in ("model_type", "dict_type"):  # not "instance of <a class>"
                msg = f"expected a JSON object, got {_json_kind(first['input'])}"
            else:
                msg = str(first["msg"]).removeprefix("Value error, ")
            return f"tools[{i}]{where}: {msg}"
        except (TypeError, ValueError) as e:
            return _one_line(str(e)).replace("tools[0]", f"tools[{i}]", 1)
    return None


def _read_tools(path: Optional[str]) -> Optional[List[Any]]:
    """The ``--tools`` file, checked once the same way for every command: a bad file is one
    message, ``--tools FILE: <what is wrong>``, whichever command reads it."""
    if path is None:
        return None
    problem: Optional[str]
    try:
        tools = json.loads(_read_text(path))
    except _Unreadable as e:
        problem = f"cannot read it: {e}"
    except json.JSONDecodeError as e:
        problem = f"not JSON ({e.msg} at line {e.lineno}, column {e.colno})"
    else:
        problem = _tools_problem(tools)
    if problem is not None:
        raise CliError(f"--tools {path}: {problem}")
    return list(tools)


def _unknown(kind: str, name: str, known: Sequence[str], listing: str) -> CliError:
    """An unknown name: the closest known ones, else where to find them all."""
    from .spec import closest

    near = closest(name, known)
    hint = f"did you mean {' or '.join(near)}?" if near else f"{listing} lists them"
    return CliError(f"unknown {kind} {name!r}; {hint}")


def _check_format(name: str) -> str:
    from .spec import list_formats

    if name not in list_formats(aliases=True):
        raise _unknown("tool-call format", name, list_formats(aliases=True), "'toolparse formats'")
    return name


def _check_reasoning(name: Optional[str]) -> Optional[str]:
    from .spec import list_reasoning_formats

    known = list_reasoning_formats(aliases=True)
    if name is not None and name not in known:
        raise _unknown("reasoning format", name, known, "toolparse.list_reasoning_formats()")
    return name


def _make_parser(args: argparse.Namespace, tools: Optional[List[Any]] = None) -> Any:
    import toolparse

    ids = toolparse.IdSource(args.seed) if getattr(args, "seed", None) is not None else None
    try:
        return toolparse.get_parser(
            _check_format(args.format), tools=tools, backend=args.backend, ids=ids
        )
    except (TypeError, ValueError, ImportError) as e:
        raise CliError(str(e)) from None


def _write(out: TextIO, line: str) -> None:
    out.write(line)
    out.write("\n")


# ------------------------------------------------------------------------------------------------
# commands
# ------------------------------------------------------------------------------------------------


def _cmd_formats(args: argparse.Namespace, out: TextIO) -> int:
    import toolparse
    from toolparse.spec import get_spec

    if args.model is not None:
        found = toolparse.format_for_model(args.model)
        if found is None:
            raise CliError(f"no known tool-call format for model {args.model!r}")
        _write(out, found)
        return 0
    for name in toolparse.list_formats():
        if args.aliases:
            _write(out, " ".join((name, *get_spec(name).aliases)))
        else:
            _write(out, name)
    return 0


def _cmd_parse(args: argparse.Namespace, out: TextIO) -> int:
    tools = _read_tools(args.tools)
    parser = _make_parser(args, tools)
    text = _read_input(args.file)
    info = parser.extract_tool_calls(text)
    _write(out, info.model_dump_json(exclude_none=True))
    return 0


def _cmd_stream(args: argparse.Namespace, out: TextIO) -> int:
    if args.chunk_size < 1:
        raise CliError(f"--chunk-size must be at least 1, got {args.chunk_size}", code=2)
    tools = _read_tools(args.tools)
    parser = _make_parser(args, tools)
    text = _read_input(args.file)
    stream = parser.stream()
    n = args.chunk_size
    if args.events:
        import toolparse

        chunks = (text[start : start + n] for start in range(0, len(text), n))
        for event in toolparse.events(stream, chunks):
            _write(out, event.model_dump_json(exclude_none=True))
        return 0
    for start in range(0, len(text), n):
        delta = stream.feed(text[start : start + n])
        if delta is not None:
            _write(out, delta.model_dump_json(exclude_none=True))
    delta = stream.finish()
    if delta is not None:
        _write(out, delta.model_dump_json(exclude_none=True))
    return 0


def _width(text: str) -> int:
    """Display width: East Asian wide and full-width characters take two columns."""
    return sum(2 if unicodedata.east_asian_width(ch) in "WF" else 1 for ch in text)


def _fit(text: str, width: int) -> str:
    """``text`` on one line (control characters shown escaped), cut with an ellipsis and padded
    to exactly ``width`` columns."""
    text = text.replace("\n", "\\n").replace("\r", "\\r").replace("\t", "\\t")
    if _width(text) > width:
        cut, used = [], 0
        for ch in text:
            w = _width(ch)
            if used + w > width - 1:
                break
            cut.append(ch)
            used += w
        text = "".join(cut) + "…"
    return text + " " * (width - _width(text))


def _calls_text(calls: Sequence[Tuple[str, str]]) -> List[str]:
    return [f"{name}({args})" for name, args in calls]


def _demo_one(
    format: str, text: str, backend: str, tools: List[Any], chunk_size: int
) -> Tuple[Optional[str], Optional[str], List[Tuple[str, str]], bool]:
    """(content, reasoning, [(name, arguments)], streaming == non-streaming) for one sample."""
    import toolparse

    parser = toolparse.get_parser(format, tools=tools, backend=backend)
    info = parser.extract_tool_calls(text)
    calls = [(c.function.name, c.function.arguments) for c in info.tool_calls]

    rec = toolparse.StreamingToolReconstructor()
    stream = parser.stream()
    for start in range(0, len(text), chunk_size):
        rec.append_deltas([stream.feed(text[start : start + chunk_size])])
    rec.append_deltas([stream.finish()])
    streamed = [(c.function.name, c.function.arguments) for c in rec.tool_calls]
    same = (rec.other_content or None) == info.content and streamed == calls
    return info.content, rec.reasoning or None, calls, same


def _cmd_demo(args: argparse.Namespace, out: TextIO) -> int:
    import toolparse
    from toolparse import samples

    if args.chunk_size < 1:
        raise CliError(f"--chunk-size must be at least 1, got {args.chunk_size}", code=2)
    ok_mark, bad_mark = _marks(out)
    tools = samples.tools()
    rows: List[Tuple[str, str, str, str]] = []
    missing: List[str] = []
    failures = 0
    for format in toolparse.list_formats():
        texts = samples.load(format)
        if not texts:
            missing.append(format)
            continue
        for text in texts:
            try:
                content, reasoning, calls, same = _demo_one(
                    format, text, args.backend, tools, args.chunk_size
                )
            except Exception as e:  # the demo reports every format, whatever one of them does
                rows.append((format, f"error: {_one_line(str(e))}", "", bad_mark))
                failures += 1
                continue
            shown = repr(content) if content is not None else "None"
            if reasoning:
                shown += f"  [reasoning: {reasoning!r}]"
            call_lines = _calls_text(calls) or ["-"]
            failures += not same
            mark = ok_mark if same else bad_mark
            for i, call in enumerate(call_lines):
                if i == 0:
                    rows.append((format, shown, call, mark))
                else:
                    rows.append(("", "", call, ""))

    header = ("format", "content", "tool calls name(args)", "stream==non-stream")
    widths = [
        max(_width(r[0]) for r in [header, *rows]),
        min(48, max(_width(r[1]) for r in [header, *rows])),
        min(64, max(_width(r[2]) for r in [header, *rows])),
    ]

    def line(cells: Tuple[str, str, str, str]) -> str:
        parts = [_fit(c, w) for c, w in zip(cells[:3], widths)]
        return " | ".join(parts + [cells[3]]).rstrip()

    _write(
        out,
        f"toolparse demo: {len(toolparse.list_formats())} formats, backend={args.backend}, "
        f"streamed in {args.chunk_size}-character deltas",
    )
    _write(out, line(header))
    _write(out, "-+-".join("-" * w for w in widths + [len(header[3])]))
    for row in rows:
        _write(out, line(row))
    for format in missing:
        _write(
            out,
            f"!! {format}: no bundled sample output (add samples to formats/{format}.json)",
        )
    if failures:
        _write(out, f"!! {failures} sample(s) gave a different result streaming and not")
        return 1
    return 0


def _marks(out: TextIO) -> Tuple[str, str]:
    encoding = getattr(out, "encoding", None) or "utf-8"
    try:
        "✓✗…".encode(encoding)
    except (UnicodeEncodeError, LookupError):
        return "ok", "MISMATCH"
    return "✓", "✗"


# ------------------------------------------------------------------------------------------------
# entry point
# ------------------------------------------------------------------------------------------------


def _cmd_bench(args: argparse.Namespace, out: TextIO) -> int:
    from . import bench
    from .bench import outputs
    from .spec import canonical

    try:
        formats = [canonical(_check_format(f)) for f in args.format or []]
        sizes = [bench.parse_size(s) for s in args.size or []] or list(bench.DEFAULT_SIZES)
    except ValueError as e:
        raise CliError(str(e), code=2) from None
    known = [f for f in _list_formats() if outputs.supported(f)]
    unsupported = [f for f in formats if f not in known]
    if unsupported:
        raise CliError(
            f"toolparse bench cannot generate output for {', '.join(unsupported)}; "
            f"it can for: {', '.join(known)}"
        )
    if args.repeat < 1:
        raise CliError(f"--repeat must be at least 1, got {args.repeat}", code=2)
    for format in formats or known:
        for size in sizes:
            try:  # a size whose content the format's layout would change (see outputs.render)
                outputs.model_output(format, size)
            except ValueError as e:
                raise CliError(str(e)) from None
    if args.plot:
        try:
            bench.require_plot()
        except ImportError as e:
            raise CliError(str(e)) from None
    report = bench.run(
        list(dict.fromkeys(formats)) or known,
        sizes,
        repeat=args.repeat,
        budget=args.budget,
        peers=not args.no_peers,
        peers_dir=args.peers_dir,
        clock=args.clock,
        progress=bench.Progress(0),
    )
    if args.json == "-":
        out.write(json.dumps(report, indent=2) + "\n")
    else:
        out.write(bench.table(report))
    if args.json not in (None, "-"):
        # the results file: the report, and when and where it was measured
        saved = dict(report, measured=bench.measured())
        try:
            with open(args.json, "w", encoding="utf-8") as f:
                f.write(json.dumps(saved, indent=2, ensure_ascii=False) + "\n")
        except OSError as e:
            raise CliError(f"cannot write {args.json}: {e.strerror or e}") from None
        print(f"{PROG} bench: wrote {args.json}", file=sys.stderr)
    if args.plot:
        bench.plot(report, args.plot)
        print(f"{PROG} bench: wrote {args.plot}", file=sys.stderr)
    return 0


def _list_formats() -> List[str]:
    import toolparse

    return toolparse.list_formats()


def _integration_checks() -> List[Dict[str, Any]]:
    from .integrations import sglang, vllm

    return [vllm.check(), sglang.check()]


def _nothing_to_constrain(tools: List[Any], choice: Any) -> str:
    """Why ``structural_tag`` gave None for this request, in one line."""
    if choice == "none":
        return "--tool-choice none: the model may not call a tool"
    if not any(t.get("type", "function") == "function" for t in tools):
        return "the tools file has no function tool"
    return (
        "--tool-choice auto and no tool marked strict, so the model may write text and any "
        "call; --strict function (or parameter) constrains its calls, --tool-choice required "
        "makes it call one"
    )


def _cmd_grammar(args: argparse.Namespace, out: TextIO) -> int:
    """Prints the structural tag. Nothing to constrain is an answer, not an error: ``null`` on
    stdout (valid JSON for a script), why on stderr, exit status 0."""
    import toolparse

    fmt = _check_format(args.format)
    reasoning = _check_reasoning(args.reasoning)
    tools = _read_tools(args.tools) or []
    choice: Any = args.tool_choice
    if choice not in ("auto", "required", "none"):
        choice = {"type": "function", "function": {"name": choice}}
    try:
        tag = toolparse.structural_tag(
            fmt,
            tools,
            tool_choice=choice,
            strict=args.strict,
            parallel_tool_calls=not args.no_parallel,
            reasoning=reasoning,
        )
    except ValueError as e:
        raise CliError(str(e)) from None
    _write(out, json.dumps(tag, ensure_ascii=False, indent=args.indent))
    if tag is None:
        print(f"{PROG} grammar: nothing to constrain: {_nothing_to_constrain(tools, choice)}",
              file=sys.stderr)  # fmt: skip
    return 0


def _cmd_integrations(args: argparse.Namespace, out: TextIO) -> int:
    """For each server installed beside toolparse: its version, whether toolparse's entry point
    loads there, and the ``toolparse_*`` names it then accepts (tool-call parsers and reasoning
    parsers). Non-zero exit status when a server is installed but the registration fails."""
    checks = _integration_checks()
    if args.json:
        out.write(json.dumps(checks, indent=2) + "\n")
    else:
        for c in checks:
            if not c["installed"]:
                out.write(f"{c['server']}: not installed\n")
                continue
            state = "ok" if c["ok"] else f"FAILED: {_one_line(str(c['error']))}"
            out.write(f"{c['server']} {c['version']}: {state}\n")
            if c["names"]:
                out.write(f"  --tool-call-parser {' | '.join(c['names'])}\n")
            if c.get("reasoning_names"):
                out.write(f"  --reasoning-parser {' | '.join(c['reasoning_names'])}\n")
    return 0 if all(c["ok"] or not c["installed"] for c in checks) else 1


def _argument_parser() -> argparse.ArgumentParser:
    from . import __version__

    p = _ArgumentParser(
        prog=PROG,
        description="Streaming tool-call parsers for LLM output (Rust core, Python twins).",
    )
    p.add_argument("--version", action="version", version=f"{PROG} {__version__}")
    sub = p.add_subparsers(dest="command", metavar="COMMAND", parser_class=_ArgumentParser)
    sub.required = True

    def format_file(sp: argparse.ArgumentParser) -> None:
        sp.add_argument(
            "--format-file",
            action="append",
            metavar="PATH",
            help="a format file (JSON, the shape of toolparse/formats/<name>.json) to register "
            "first; without --format, the format to use (repeatable)",
        )

    formats = sub.add_parser("formats", help="list the registered formats, one per line")
    format_file(formats)
    formats.add_argument(
        "--aliases",
        action="store_true",
        help="follow each format's name with the other names vLLM and SGLang use for it",
    )
    formats.add_argument(
        "--model", metavar="ID", help="print the format that model (HF id or local path) emits"
    )

    def common(sp: argparse.ArgumentParser) -> None:
        sp.add_argument("--format", "-f", help="format name (see 'toolparse formats')")
        format_file(sp)
        sp.add_argument("--backend", choices=("rust", "python"), default="rust")
        sp.add_argument(
            "--tools", metavar="JSON_FILE", help="OpenAI tools list (JSON), for typed formats"
        )
        sp.add_argument("--seed", type=int, help="seed for deterministic tool-call ids")
        sp.add_argument(
            "file", nargs="?", default="-", metavar="FILE", help="model output ('-' or none: stdin)"
        )

    parse = sub.add_parser(
        "parse", help="non-streaming: print the ExtractedToolCallInformation as JSON"
    )
    common(parse)
    stream = sub.add_parser("stream", help="streaming: print one DeltaMessage as JSON per line")
    common(stream)
    stream.add_argument(
        "--chunk-size", "-n", type=int, default=4, help="characters per delta (default 4)"
    )
    stream.add_argument(
        "--events",
        action="store_true",
        help="print stream events (text_delta, reasoning_delta, tool_calls, error, done) "
        "as NDJSON instead of deltas",
    )

    demo = sub.add_parser("demo", help="run every format on its bundled sample outputs")
    demo.add_argument("--backend", choices=("rust", "python"), default="rust")
    format_file(demo)
    demo.add_argument(
        "--chunk-size", "-n", type=int, default=4, help="characters per delta (default 4)"
    )
    bench = sub.add_parser(
        "bench",
        help="time per delta of toolparse and, where they run, vLLM's and SGLang's parsers",
    )
    bench.add_argument(
        "--format",
        "-f",
        nargs="+",
        action="extend",
        metavar="F",
        help="formats to time (default: every format the bench can generate)",
    )
    format_file(bench)
    bench.add_argument(
        "--size",
        "-s",
        nargs="+",
        action="extend",
        metavar="N",
        help="sizes of the call's content argument: 512, 4KB, ... (default: 1KB 4KB 16KB)",
    )
    bench.add_argument("--repeat", type=int, default=3, help="runs per measurement, best of")
    bench.add_argument(
        "--budget",
        type=float,
        default=20.0,
        metavar="SECONDS",
        help="a parser slower than this on a size is not run on the larger ones (default 20)",
    )
    bench.add_argument(
        "--clock",
        choices=("wall", "cpu"),
        default="wall",
        help="wall time (default) or this thread's CPU time (steadier on a busy machine)",
    )
    bench.add_argument(
        "--json",
        nargs="?",
        const="-",
        metavar="PATH",
        help="print the results as JSON instead of the table; with PATH, print the table and "
        "write the results to PATH (with the date and machine they were measured on)",
    )
    bench.add_argument("--plot", metavar="FILE.png", help="also draw the results (extra 'plot')")
    bench.add_argument("--no-peers", action="store_true", help="time toolparse only")
    bench.add_argument(
        "--peers-dir",
        metavar="DIR",
        help="the peers harness folder (default: $TOOLPARSE_PEERS_DIR, or 'peers' on the path)",
    )
    grammar = sub.add_parser(
        "grammar",
        help="print the xgrammar structural tag for strict tool calling (JSON; null: nothing "
        "to constrain)",
    )
    grammar.add_argument("--format", "-f", help="format name")
    format_file(grammar)
    grammar.add_argument("--tools", metavar="JSON_FILE", required=True, help="OpenAI tools list")
    grammar.add_argument(
        "--tool-choice",
        default="auto",
        metavar="CHOICE",
        help="auto (default), required, none, or a function name (that call only)",
    )
    grammar.add_argument(
        "--strict",
        choices=("auto", "function", "parameter"),
        default="auto",
        help="auto: schemas of tools marked strict (default); function: the call envelope "
        "always; parameter: every tool's schema",
    )
    grammar.add_argument(
        "--no-parallel", action="store_true", help="at most one call (parallel_tool_calls=false)"
    )
    grammar.add_argument("--reasoning", metavar="R", help="a reasoning format: its block first")
    grammar.add_argument("--indent", type=int, default=None, help="pretty-print with N spaces")
    integrations = sub.add_parser(
        "integrations",
        help="check the vLLM and SGLang installed beside toolparse: do they load its parsers?",
    )
    integrations.add_argument("--json", action="store_true", help="print the checks as JSON")
    add_detect_parser(sub)
    add_infer_parser(sub)
    return p


def _cmd_detect(args: argparse.Namespace, out: TextIO) -> int:
    try:
        return cmd_detect(args, out)
    except DetectError as e:
        raise CliError(str(e)) from None


def _cmd_infer(args: argparse.Namespace, out: TextIO) -> int:
    try:
        return cmd_infer(args, out)
    except DetectError as e:
        raise CliError(str(e)) from None
    except InferRefused as e:
        raise CliError(str(e), code=3) from None


def _silence_stdout() -> None:
    """After a broken pipe, point stdout at /dev/null so the flush at exit does not fail again."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError, AttributeError):
        pass


_COMMANDS = {
    "formats": _cmd_formats,
    "parse": _cmd_parse,
    "stream": _cmd_stream,
    "demo": _cmd_demo,
    "integrations": _cmd_integrations,
    "bench": _cmd_bench,
    "grammar": _cmd_grammar,
    "detect": _cmd_detect,
    "infer": _cmd_infer,
}


def _format_files(args: argparse.Namespace) -> None:
    """Registers the ``--format-file`` files; without ``--format``, the format is the (last)
    one they register. A command that needs a format and has neither is a usage error."""
    from toolparse.register import register_format

    names = []
    for path in getattr(args, "format_file", None) or []:
        try:
            names.append(register_format(path, replace=True))
        except (ValueError, TypeError) as e:
            raise CliError(f"--format-file {path}: {e}") from None
    if args.command == "bench":
        if names:
            args.format = [*(args.format or []), *names]
    elif args.command in ("parse", "stream", "grammar") and args.format is None:
        if not names:
            raise CliError("one of the arguments --format/-f or --format-file is required", 2)
        args.format = names[-1]


def main(argv: Optional[Sequence[str]] = None) -> int:
    """Runs the command; returns the exit status (the console script passes it to ``sys.exit``)."""
    out = sys.stdout
    try:
        parser = _argument_parser()
        try:
            args = parser.parse_args(list(argv) if argv is not None else None)
        except SystemExit as e:  # --help / --version
            return e.code if isinstance(e.code, int) else 0
        _format_files(args)
        return _COMMANDS[args.command](args, out)
    except CliError as e:
        print(f"{PROG}: error: {_one_line(str(e))}", file=sys.stderr)
        return e.code
    except BrokenPipeError:  # `toolparse stream ... | head`: stop quietly
        _silence_stdout()
        return 1
    except KeyboardInterrupt:
        print(f"{PROG}: interrupted", file=sys.stderr)
        return 130
    except Exception as e:  # a bug: still one line, never a traceback
        print(f"{PROG}: error: {type(e).__name__}: {_one_line(str(e))}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
