"""The generated parts of the documentation.

- The formats page, ``formats.md``, from the format files (``python/toolparse/formats/``, read
  through ``toolparse.spec``): each format's spec entry and its hand-written ``notes``. It is made
  by the docs build, not kept in the tree: ``mkdocs.yml`` names this file as a hook, and
  :func:`on_files` adds the page to the site each time it is built (``mkdocs build``, ``mkdocs
  serve``). A format file added or edited is on the page at the next build, with no command to run.
- The benchmark tables in ``docs/benchmarks.md`` and ``README.md`` (between the
  ``<!-- bench-table ... -->`` comments), from ``docs/bench-results.json``, the results file
  ``toolparse bench --json PATH`` writes. They are committed (the README is read on GitHub) and
  change only when a benchmark is re-run and its results file replaced:

    python docs/gen_pages.py            # rewrite the tables that are stale
    python docs/gen_pages.py --check    # exit status 1 and the stale files' names, writes nothing

``tests/test_docs.py`` runs the check. A format added to the spec appears on the formats page
with no edit here (its example is rendered by the family's renderer in ``toolparse.testing``,
when the family has one).
"""

from __future__ import annotations

import argparse
import html
import json
import re
import sys
from pathlib import Path
from typing import Any, Dict, List, Optional, Sequence, Tuple

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
# The formats page's path in the site (docs_dir-relative); generated at build time, not a file.
FORMATS_PAGE = "formats.md"
BENCH_PAGE = DOCS / "benchmarks.md"
BENCH_RESULTS = DOCS / "bench-results.json"
README = ROOT / "README.md"
COMMAND = "python docs/gen_pages.py"

# The example call each format's renderer writes on the formats page.
EXAMPLE_CALL = ("get_weather", {"city": "Paris", "days": 3})

KB = 1024


# ------------------------------------------------------------------------------------------------
# helpers
# ------------------------------------------------------------------------------------------------


def visible(text: str) -> str:
    """Control characters written as escapes, so a marker's newlines show."""
    return text.replace("\\", "\\\\").replace("\n", "\\n").replace("\r", "\\r").replace("\t", "\\t")


def code(text: str) -> str:
    """An inline code span that is safe in a table cell and in a paragraph, on GitHub and in
    MkDocs alike (HTML: no backtick counting, ``|`` cannot split a cell). Text with whitespace
    at either end is quoted, so the whitespace shows."""
    shown = visible(text)
    if text != text.strip():
        shown = json.dumps(text, ensure_ascii=False)
    shown = html.escape(shown, quote=False)
    for ch in "|`*_[]\\":  # nothing Markdown could read as markup inside the HTML
        shown = shown.replace(ch, f"&#{ord(ch)};")
    return f"<code>{shown}</code>"


def codes(items: Sequence[str]) -> str:
    return ", ".join(code(i) for i in items) if items else "none"


def fence(text: str, lang: str = "text") -> str:
    """A fenced block longer than any backtick run in ``text``."""
    longest = max((len(m) for m in re.findall(r"`+", text)), default=0)
    ticks = "`" * max(3, longest + 1)
    return f"{ticks}{lang}\n{text}\n{ticks}"


def notes() -> Dict[str, str]:
    """The hand-written notes: each format file's ``notes``."""
    import toolparse.spec as spec

    return {n: s.notes for n, s in spec.SPECS.items() if s.notes}


def example(name: str) -> Optional[str]:
    """One call rendered by the format's renderer in the conformance kit (None: no renderer for
    its family yet)."""
    try:
        from toolparse.testing import renderer

        case = renderer(name).render([EXAMPLE_CALL])
    except (ValueError, AssertionError, KeyError, ImportError):
        return None
    return str(case.model_output)


# ------------------------------------------------------------------------------------------------
# the formats page
# ------------------------------------------------------------------------------------------------

ROLE_ORDER = ("section_start", "call_start", "function_start", "call_end", "section_end")


def _markers(markers: Dict[str, str]) -> str:
    roles = sorted(markers, key=lambda r: (ROLE_ORDER.index(r) if r in ROLE_ORDER else 99, r))
    return "; ".join(f"{r} {code(markers[r])}" for r in roles)


def _format_section(spec: Any, note: Optional[str]) -> List[str]:
    lines = [f"### {spec.name}", ""]
    facts = [
        ("family", code(spec.family)),
        ("markers", _markers(dict(spec.markers))),
        ("arguments", code(spec.arguments)),
        (
            "calls",
            code(spec.calls)
            + ("; the end marker may be missing at the end" if spec.end_optional else ""),
        ),
        ("content (non-streaming)", html.escape(spec.content, quote=False)),
        ("tool-call ids", code(spec.id_style)),
        ("aliases", codes(spec.aliases)),
        ("models", codes(spec.models)),
    ]
    trigger = spec.grammar.trigger
    facts.append(("grammar trigger", code(trigger) if trigger else "none (no tag under `auto`)"))
    if spec.special_tokens:
        facts.append(("special tokens", codes(spec.special_tokens)))
    if spec.default_reasoning:
        facts.append(("reasoning by default", code(spec.default_reasoning)))
    if spec.turn_end:
        facts.append(("turn-end tag (dropped)", code(spec.turn_end)))
    if spec.dropped:
        facts.append(("dropped from content", codes(spec.dropped)))
    lines += [f"- **{k}**: {v}" for k, v in facts]
    lines.append("")
    if note:
        lines += [note, ""]
    text = example(spec.name)
    if text is not None:
        lines += ["One call, as the conformance kit renders it from the spec entry:", ""]
        lines += [fence(text), ""]
    return lines


def _reasoning_row(r: Any) -> str:
    extra: List[str] = []
    if r.tool_format:
        extra.append(f"parsed by the {code(r.tool_format)} machine")
    if r.also_start or r.also_end:
        extra.append(f"also {codes([*r.also_start, *r.also_end])}")
    if r.trim:
        extra.append("trims the whitespace ending the reasoning")
    if r.turn_end:
        extra.append(f"turn end {code(r.turn_end)}")
    if r.content_end:
        extra.append(f"content ends at {code(r.content_end)}")
    if r.content_lstrip:
        extra.append(f"content's leading {code(r.content_lstrip)} dropped")
    if r.content_prefix:
        extra.append(f"content prefix {code(r.content_prefix)}")
    if r.label:
        extra.append(f"label {code(r.label)}")
    if r.markers_off_when_disabled:
        extra.append("markers off when thinking is disabled")
    if r.dropped:
        extra.append(f"drops {codes(r.dropped)}")
    if r.span_markup:
        sm = r.span_markup
        extra.append(f"span tags {code(sm.open)} ... {code(sm.close_start + '...' + sm.close_end)}")
    if r.stray_end_text:
        extra.append("an end marker outside a block is text unless it leads the output")
    if r.blocks_anywhere:
        extra.append("a block opens anywhere in the content")
    started = "yes" if r.started else "no"
    ends = "yes" if r.call_ends_block else "no"
    cells = [
        code(r.name),
        codes(r.aliases) if r.aliases else "",
        code(r.start) if r.start else "",
        code(r.end) if r.end else "",
        started,
        ends,
        "; ".join(extra),
    ]
    return "| " + " | ".join(cells) + " |"


def formats_page() -> str:
    import toolparse.spec as spec

    formats = spec.list_formats()
    reasoning = spec.list_reasoning_formats()
    hand = notes()
    out = [
        "<!-- Generated at build time by docs/gen_pages.py (an mkdocs hook) from the format",
        "files, python/toolparse/formats/: edit those. -->",
        "",
        "# Formats",
        "",
        f"toolparse parses {len(formats)} tool-call formats and {len(reasoning)} reasoning "
        "formats. Each tool-call format is one file, `python/toolparse/formats/<name>.json` "
        "(the reasoning formats are listed in `_reasoning.json` beside them): `build.rs` "
        "compiles its spec entry into the Rust registry, `toolparse.spec` reads it at import, "
        "and this page is generated from it. Names are vLLM's (SGLang's for the formats only "
        "SGLang registers); the other names the servers use are aliases, which `get_parser` "
        "and the `toolparse_<name>` server plugins accept too.",
        "",
        "```bash",
        "toolparse formats --aliases               # what your installed version knows",
        "toolparse formats --model Qwen/Qwen3-Coder-30B-A3B-Instruct  # the format a model emits",
        "```",
        "",
        "Tool-call ids are `chatcmpl-tool-` and 32 hex digits (`chatcmpl`), 9 alphanumerics "
        "(`mistral`), or the model's own (`model`; a model id an earlier call of the response "
        "already has is replaced by a generated one). *content* is what non-streaming returns as "
        "content; streaming sends the same text. The *grammar trigger* is the marker that tells "
        "a call from text for [strict tool calling](strict-tool-calling.md).",
        "",
        "## Tool-call formats",
        "",
        "| format | family | aliases | content |",
        "|---|---|---|---|",
    ]
    for name in formats:
        s = spec.get_spec(name)
        content = html.escape(s.content, quote=False).replace("|", "&#124;")
        out.append(
            f"| [{name}](#{name.replace('.', '')}) | {code(s.family)} | "
            f"{', '.join(code(a) for a in s.aliases)} | {content} |"
        )
    out.append("")
    for name in formats:
        out += _format_section(spec.get_spec(name), hand.get(name))
    out += [
        "## Reasoning formats",
        "",
        'Give `get_parser` a reasoning format (`reasoning="qwen3"`) and the same machine pass '
        "separates reasoning, content and tool calls; see [Reasoning](reasoning.md). "
        "*Starts inside*: whether the prompt opens the block by default (the output then starts "
        "inside reasoning; `reasoning_started=` overrides it). *Call ends block*: whether a "
        "tool-call start inside an open block ends the reasoning (the call is then parsed, not "
        "swallowed).",
        "",
        "| name | aliases | start | end | starts inside | call ends block | other |",
        "|---|---|---|---|---|---|---|",
    ]
    out += [_reasoning_row(spec.REASONING[name]) for name in reasoning]
    out.append("")
    return "\n".join(out)


# ------------------------------------------------------------------------------------------------
# the benchmark tables
# ------------------------------------------------------------------------------------------------

KINDS = (("toolparse:rust", "toolparse (Rust)"), ("toolparse:python", "toolparse (Python twin)"),
         ("vllm", "vLLM"), ("sglang", "SGLang"))  # fmt: skip


def size_label(n: int) -> str:
    return f"{n // KB} KB" if n % KB == 0 else f"{n} B"


def _us(row: Optional[Dict[str, Any]]) -> str:
    if row is None:
        return ""
    name = "" if row["parser"].startswith("toolparse") else row["parser"].split(":", 1)[1]
    if name == row["format"]:
        name = ""  # the server's parser of the same name: no need to say it
    if row["us_per_delta"] is None:
        cell = "error" if (row.get("skipped") or "").startswith("raised") else "not run (budget)"
    else:
        v = row["us_per_delta"]
        cell = f"{v:.2f}" if v < 10 else f"{v:.1f}" if v < 100 else f"{v:,.0f}"
        pieces, deltas = row.get("pieces"), row["deltas"]
        if pieces is not None and pieces * 8 < deltas:  # toolparse.bench.streams()
            cell += f" (held: {pieces} piece{'s' if pieces != 1 else ''})"
        if not row["correct"]:
            cell += " (wrong result)"
    return f"{cell} <sub>{name}</sub>" if name and cell else cell


def bench_meta(report: Dict[str, Any]) -> str:
    m = report.get("measured") or {}
    servers = ", ".join(f"{k} {v}" for k, v in report["servers"].items() if v) or "no peers"
    where = ", ".join(
        str(x) for x in (m.get("system"), m.get("cpu"), m.get("cpus") and f"{m['cpus']} CPUs") if x
    )
    return (
        f"Measured {m.get('date', 'on an unrecorded date')} on {where or 'an unrecorded machine'}"
        f" (toolparse {report['toolparse']}, Python {report['python']}, {servers}; "
        f"{report['clock']} clock, best of {report['repeat']}+ runs, "
        f"~{report['delta_chars']}-character deltas)."
    )


def bench_table(report: Dict[str, Any], sizes: Optional[Sequence[int]] = None) -> str:
    """µs per delta per format and size: toolparse's two backends and the servers' parsers, and
    toolparse's ratio to the fastest peer that streamed the argument."""
    sizes = [s for s in report["sizes"] if sizes is None or s in sizes]
    kinds = [
        (key, label)
        for key, label in KINDS
        if any(r["parser"] == key or r["parser"].startswith(key + ":") for r in report["results"])
    ]
    head = ["format", "size", *(label for _, label in kinds), "fastest streaming peer / toolparse"]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    ratios = {(r["format"], r["size"]): r for r in report.get("ratios", [])}
    for fmt in report["formats"]:
        for size in sizes:
            rows = [r for r in report["results"] if r["format"] == fmt and r["size"] == size]
            cells = [f"`{fmt}`", size_label(size)]
            for key, _ in kinds:
                found = [r for r in rows if r["parser"] == key or r["parser"].startswith(key + ":")]
                cells.append("<br>".join(_us(r) for r in found))
            ratio = ratios.get((fmt, size))
            if ratio and ratio.get("streaming_ratio"):
                cells.append(f"{ratio['streaming_ratio']:,.0f}x")
            else:
                cells.append("")
            lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def bench_block(report: Dict[str, Any], sizes: Optional[Sequence[int]] = None) -> str:
    return (
        f"{bench_meta(report)} CPU µs per delta (the whole stream over the number of deltas); "
        "_held_: the parser sent the argument in a few pieces instead of streaming it; "
        "_not run_: over the run's time budget, or predicted to be from the smaller size.\n\n"
        + bench_table(report, sizes)
    )


def replace_region(text: str, name: str, body: str) -> str:
    start, end = f"<!-- {name}: start", f"<!-- {name}: end -->"
    i = text.find(start)
    j = text.find(end)
    if i < 0 or j < 0:
        raise ValueError(f"no '{start} ... -->' ... '{end}' region")
    head_end = text.index("-->", i) + 3
    return text[:head_end] + "\n" + body + "\n" + text[j:]


def load_results() -> Dict[str, Any]:
    with BENCH_RESULTS.open(encoding="utf-8") as f:
        return dict(json.load(f))


README_SIZES = (16 * KB, 64 * KB)


def expected() -> List[Tuple[Path, str]]:
    """(file, its generated text) for every committed file with generated content: the two
    holding benchmark tables (the formats page is no file: see :func:`on_files`)."""
    report = load_results()
    bench_page = replace_region(
        BENCH_PAGE.read_text(encoding="utf-8"), "bench-table", bench_block(report)
    )
    readme = replace_region(
        README.read_text(encoding="utf-8"), "bench-table", bench_block(report, README_SIZES)
    )
    return [(BENCH_PAGE, bench_page), (README, readme)]


def stale() -> List[Path]:
    return [p for p, text in expected() if not p.is_file() or p.read_text("utf-8") != text]


# ------------------------------------------------------------------------------------------------
# the mkdocs hook
# ------------------------------------------------------------------------------------------------


def on_files(files: Any, config: Any) -> Any:
    """mkdocs hook (``hooks:`` in ``mkdocs.yml``): adds the formats page, generated from the
    format files the installed ``toolparse`` reads, to the site's files. A ``docs/formats.md``
    left in the tree (an old checkout's) is replaced, never built."""
    from mkdocs.structure.files import File

    old = files.get_file_from_path(FORMATS_PAGE)
    if old is not None:
        files.remove(old)
    files.append(File.generated(config, FORMATS_PAGE, content=formats_page()))
    return files


def main(argv: Optional[Sequence[str]] = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--check", action="store_true", help="report stale files, write nothing")
    args = p.parse_args(argv)
    if args.check:
        old = stale()
        for path in old:
            print(f"{path.relative_to(ROOT)} is stale: run {COMMAND}")
        return 1 if old else 0
    for path, text in expected():
        if not path.is_file() or path.read_text("utf-8") != text:
            path.write_text(text, encoding="utf-8")
            print(f"wrote {path.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
