"""``toolparse bench``: time per delta of toolparse (both backends) and, where they run, vLLM's and
SGLang's parsers, streaming the same generated output in the same deltas, per format and size.

The output is one ``write_file`` call whose ``content`` argument is SIZE characters of source code
(``outputs.model_output``), streamed in deltas of about four characters with marker strings whole
(``outputs.chunk``). A parser's time is the whole stream (every delta, then the end of the
stream), best of ``repeat`` runs; ``us_per_delta`` is that time over the number of deltas.
Every parser first streams a 1 KB output (at most the smallest size) once, untimed: a warm-up, so
that the first format measured is not measured cold.
toolparse runs through its public API (``get_parser(format, backend=...).stream()``, one
DeltaMessage per delta); vLLM and SGLang run through their servers' streaming paths, as the peers
harness drives them (``peers.py``).

``run(...)`` returns a JSON-ready dict with these keys (``toolparse bench --json`` prints it;
``toolparse bench --json PATH`` writes it to PATH with one more key, ``measured``: ``measured()``,
the date and the machine):

    toolparse     toolparse's version            python     the interpreter's version
    servers       {"vllm": version or null, "sglang": version or null}
    delta_chars   4                              repeat     runs per measurement (best of)
    clock         "wall" (time.perf_counter) or "cpu" (time.thread_time)
    budget_seconds  a run is stopped after this long, and a size is not run when the last one's
                  time, grown quadratically, would pass it
    formats       [format, ...]                  sizes      [SIZE, ...] (characters of content)
    results       [{"format", "parser", "size", "output_chars", "deltas", "seconds",
                    "us_per_delta", "correct", "pieces", "skipped"}, ...]
                  parser: "toolparse:rust", "toolparse:python", "vllm:<name>", "sglang:<name>";
                  correct: the stream gave the one call with its arguments, and no content;
                  pieces: how many arguments fragments the stream sent: about one per delta for
                  a parser that streams the argument, a few for one that holds a value until it
                  ends (``streams(row)``: at least one piece per STREAMS_EVERY deltas)
                  skipped: null, or why it was not run (then seconds and us_per_delta are null)
    unavailable   [{"format", "parser", "reason"}, ...]: peers that could not run at all
    ratios        [{"format", "size", "toolparse", "peer", "peer_us", "ratio", "streaming_peer",
                    "streaming_peer_us", "streaming_ratio"}, ...]: toolparse:rust's µs per delta
                  against the fastest peer that returned the call (null when none did), and
                  against the fastest such peer that also streamed the argument (``pieces``)
"""

from __future__ import annotations

import contextlib
import io
import json
import platform
import signal
import sys
import threading
import time
from typing import Any, Callable, Dict, Iterator, List, Optional, Sequence, TextIO, Tuple

from . import outputs, servers
from .servers import MISREADS

__all__ = ["Progress", "measured", "parse_size", "plot", "require_plot", "run", "table"]

KB = 1024
DEFAULT_SIZES = (1 * KB, 4 * KB, 16 * KB)
PARSERS = ("toolparse:rust", "toolparse:python")

Result = Tuple[str, List[Tuple[str, str]]]
Stream = Callable[[List[str]], Result]


def parse_size(text: str) -> int:
    """``"16KB"``, ``"16k"``, ``"512"`` -> characters. ValueError for anything else."""
    t = text.strip().upper()
    scale = 1
    for suffix in ("KB", "K"):
        if t.endswith(suffix):
            t, scale = t[: -len(suffix)], KB
            break
    if not t.isdigit() or int(t) * scale < 1:
        raise ValueError(f"not a size: {text!r} (examples: 512, 4KB, 64KB)")
    return int(t) * scale


def size_label(n: int) -> str:
    return f"{n // KB}KB" if n % KB == 0 else f"{n}B"


def _toolparse_stream(format: str, backend: str) -> Tuple[Stream, Callable[[List[str]], Any]]:
    """(a stream that returns what it parsed, for the check; the same loop bare, for timing)."""
    import toolparse

    def timed(deltas: List[str]) -> None:
        s = toolparse.get_parser(format, tools=outputs.TOOLS, backend=backend).stream()
        feed = s.feed
        for d in deltas:
            feed(d)
        s.finish()

    def checked(deltas: List[str]) -> Result:
        rec = toolparse.StreamingToolReconstructor()
        s = toolparse.get_parser(format, tools=outputs.TOOLS, backend=backend).stream()
        sent = [s.feed(d) for d in deltas]
        sent.append(s.finish())
        servers.PIECES[0] += sum(
            1
            for m in sent
            if m is not None
            for c in m.tool_calls
            if c.function and c.function.arguments
        )
        rec.append_deltas(sent)
        return rec.other_content or "", [
            (c.function.name, c.function.arguments) for c in rec.tool_calls
        ]

    return checked, timed


def _correct(result: Result, size: int) -> bool:
    content, calls = result
    if content.strip() or len(calls) != 1 or calls[0][0] != outputs.CALL_NAME:
        return False
    try:
        return bool(json.loads(calls[0][1]) == outputs.arguments(size))
    except ValueError:
        return False


class Progress:
    """A one-line progress bar on stderr, drawn only when stderr is a terminal."""

    def __init__(self, total: int, stream: Optional[TextIO] = None, width: int = 24) -> None:
        self.stream = stream if stream is not None else sys.stderr
        self.total = max(total, 1)
        self.done = 0
        self.width = width
        isatty = getattr(self.stream, "isatty", None)
        self.enabled = bool(isatty and isatty())

    def step(self, label: str) -> None:
        """Shows the bar with ``label`` for the measurement about to run."""
        if not self.enabled:
            return
        filled = self.width * self.done // self.total
        bar = "#" * filled + "." * (self.width - filled)
        self.stream.write(f"\r\x1b[2K[{bar}] {self.done}/{self.total} {label}"[:200])
        self.stream.flush()

    def advance(self) -> None:
        self.done += 1

    def close(self) -> None:
        if self.enabled:
            self.stream.write("\r\x1b[2K")
            self.stream.flush()


CLOCKS: Dict[str, Callable[[], float]] = {
    "wall": time.perf_counter,
    # this thread's CPU time: what a busy machine's other processes do not inflate (the parsers
    # all run in the calling thread)
    "cpu": time.thread_time,
}
MIN_TOTAL = 0.2  # seconds: a fast measurement is repeated (best of) until its runs last this long


class OverBudget(BaseException):
    """Raised inside a run that has lasted past the budget (by a timer signal, where there is
    one: the main thread on POSIX). A BaseException: parsers that catch ``Exception`` around
    their work (vLLM's lfm2 logs it and goes on) must not swallow the timer."""


@contextlib.contextmanager
def _deadline(seconds: float, clock: str) -> Iterator[None]:
    """Raises OverBudget in the block after ``seconds`` of wall time (clock "wall") or of this
    process's CPU time (clock "cpu"); does nothing where there is no interval timer."""
    which = "ITIMER_VIRTUAL" if clock == "cpu" else "ITIMER_REAL"
    sig = "SIGVTALRM" if clock == "cpu" else "SIGALRM"
    usable = (
        hasattr(signal, "setitimer")
        and hasattr(signal, sig)
        and threading.current_thread() is threading.main_thread()
    )
    if not usable:
        yield
        return

    def expire(signum: int, frame: Any) -> None:
        raise OverBudget()

    previous = signal.signal(getattr(signal, sig), expire)
    signal.setitimer(getattr(signal, which), seconds)
    try:
        yield
    finally:
        signal.setitimer(getattr(signal, which), 0)
        signal.signal(getattr(signal, sig), previous)


def _time(
    fn: Callable[[List[str]], Any],
    deltas: List[str],
    repeat: int,
    budget: float,
    clock: Callable[[], float],
) -> float:
    """Best of at least ``repeat`` runs (more for a fast one, up to ``MIN_TOTAL`` seconds in all);
    a run longer than a tenth of the budget is not repeated."""
    best = float("inf")
    total = 0.0
    runs = 0
    while runs < max(repeat, 1) or (total < MIN_TOTAL and runs < 100):
        t0 = clock()
        fn(deltas)
        took = clock() - t0
        best = min(best, took)
        total += took
        runs += 1
        if took > budget / 10:
            break
    return best


WARM_UP_SIZE = 1 * KB


def _warm_up(
    plan: List[Tuple[str, Dict[str, Tuple[Stream, Callable[[List[str]], Any]]]]],
    sizes: List[int],
    budget: float,
    clock: str,
) -> None:
    """Streams a small output (``WARM_UP_SIZE``, or the smallest size asked for when that is
    smaller) through every parser of every format once, untimed, so that the
    first measurement does not pay for what the first use of a parser does once (imports, lazily
    built tables, the allocator's first pools). What a parser raises here is left to the timed
    runs, which report it."""
    for format, parsers in plan:
        size = min([WARM_UP_SIZE, *sizes])
        deltas = outputs.chunk(format, outputs.model_output(format, size))
        for _name, (checked, timed) in parsers.items():
            try:
                with _deadline(budget, clock):
                    checked(deltas)
                    timed(deltas)
            except (Exception, OverBudget):  # the timed runs will say so
                pass


def _measure(
    plan: List[Tuple[str, Dict[str, Tuple[Stream, Callable[[List[str]], Any]]]]],
    sizes: List[int],
    repeat: int,
    budget: float,
    clock: str,
    bar: Progress,
    results: List[Dict[str, Any]],
) -> None:
    """Runs the plan, appending a row per (format, parser, size) to ``results``."""
    tick = CLOCKS[clock]
    for format, parsers in plan:
        for name, (checked, timed) in parsers.items():
            last: Optional[Tuple[int, float]] = None  # (size, seconds) of the last size run
            over: Optional[str] = None
            for size in sizes:
                bar.step(f"{format} {size_label(size)} {name}")
                text = outputs.model_output(format, size)
                deltas = outputs.chunk(format, text)
                if over is None and last is not None and last[1] * (size / last[0]) ** 2 > budget:
                    over = f"predicted over the {budget:g} s budget from the smaller size"
                row: Dict[str, Any] = {
                    "format": format,
                    "parser": name,
                    "size": size,
                    "output_chars": len(text),
                    "deltas": len(deltas),
                    "seconds": None,
                    "us_per_delta": None,
                    "correct": None,
                    "pieces": None,
                    "skipped": over,
                }
                if over is None:
                    try:
                        with _deadline(budget, clock):
                            servers.PIECES[0] = 0
                            t0 = tick()
                            row["correct"] = _correct(checked(deltas), size)
                            first = tick() - t0
                            row["pieces"] = servers.PIECES[0]
                            # a slow parser's checked run is its (only) timed run
                            if first > budget / 10 and checked is timed:
                                seconds = first
                            else:
                                seconds = _time(timed, deltas, repeat, budget, tick)
                        row["seconds"] = seconds
                        row["us_per_delta"] = seconds / len(deltas) * 1e6
                        last = (size, seconds)
                    except OverBudget:
                        over = f"a run took over the {budget:g} s budget"
                        row["skipped"] = over
                    except Exception as e:  # a peer raising on this output is its result
                        row["correct"] = False
                        why = " ".join(str(e).split())[:160]
                        row["skipped"] = f"raised {type(e).__name__}: {why}"
                results.append(row)
                bar.advance()


def run(
    formats: Sequence[str],
    sizes: Sequence[int] = DEFAULT_SIZES,
    *,
    repeat: int = 3,
    budget: float = 20.0,
    peers: bool = True,
    peers_dir: Optional[str] = None,
    clock: str = "wall",
    progress: Optional[Progress] = None,
) -> Dict[str, Any]:
    """Times every parser on every (format, size); see the module docstring for the result."""
    import toolparse

    from . import peers as peers_mod

    sizes = sorted(set(sizes))
    if clock not in CLOCKS:
        raise ValueError(f"clock must be one of {', '.join(CLOCKS)}, not {clock!r}")
    bar = progress or Progress(0, stream=io.StringIO())
    harness, why = (None, "not asked for (--no-peers)")
    if peers:
        bar.step("loading vLLM's and SGLang's parsers")
        harness, why = peers_mod.load_harness(peers_dir)
    results: List[Dict[str, Any]] = []
    unavailable: List[Dict[str, str]] = []
    plan: List[Tuple[str, Dict[str, Tuple[Stream, Callable[[List[str]], Any]]]]] = []
    for format in formats:
        parsers = {f"toolparse:{b}": _toolparse_stream(format, b) for b in ("rust", "python")}
        if peers:
            found, missing = peers_mod.peer_streams(harness, format, why)
            parsers.update({name: (s, s) for name, s in found.items()})
            unavailable.extend(
                {"format": format, "parser": name, "reason": reason}
                for name, reason in missing.items()
            )
        plan.append((format, parsers))
    bar.total = max(sum(len(p) for _, p in plan) * len(sizes), 1)
    try:
        bar.step("warming up")
        _warm_up(plan, sizes, budget, clock)
        _measure(plan, sizes, repeat, budget, clock, bar, results)
    finally:
        bar.close()
    report: Dict[str, Any] = {
        "toolparse": toolparse.__version__,
        "python": platform.python_version(),
        "servers": peers_mod.versions(),
        "delta_chars": outputs.DELTA_CHARS,
        "repeat": repeat,
        "clock": clock,
        "budget_seconds": budget,
        "formats": list(formats),
        "sizes": sizes,
        "results": results,
        "unavailable": unavailable,
    }
    report["ratios"] = ratios(report)
    return report


def measured() -> Dict[str, Any]:
    """When and where a run was measured, for a results file: the date (UTC), the operating
    system, the CPU model (where the system says it) and the number of CPUs."""
    import datetime
    import os

    cpu = platform.processor() or ""
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as f:
            cpu = next(
                (ln.split(":", 1)[1].strip() for ln in f if ln.startswith("model name")), cpu
            )
    except OSError:
        pass
    return {
        "date": datetime.datetime.now(datetime.timezone.utc).date().isoformat(),
        "system": f"{platform.system()} {platform.machine()}",
        "cpu": cpu or None,
        "cpus": os.cpu_count(),
    }


STREAMS_EVERY = 8


def streams(row: Dict[str, Any]) -> bool:
    """Whether the parser streamed the argument: at least one arguments piece per
    ``STREAMS_EVERY`` deltas (a parser holding the 16 KB value until it ends sends 1-4)."""
    pieces = row.get("pieces")
    return pieces is not None and pieces * STREAMS_EVERY >= row["deltas"]


def ratios(report: Dict[str, Any]) -> List[Dict[str, Any]]:
    """Per (format, size): toolparse:rust against the fastest correct peer, and against the
    fastest correct peer that streamed the argument (see the module docstring's ``ratios``)."""
    out: List[Dict[str, Any]] = []
    for format in report["formats"]:
        for size in report["sizes"]:
            rows = [r for r in report["results"] if r["format"] == format and r["size"] == size]
            mine = next((r for r in rows if r["parser"] == "toolparse:rust"), None)
            if mine is None or not mine["us_per_delta"]:  # not run, or a clock that did not move
                continue
            peers = [
                r
                for r in rows
                if not r["parser"].startswith("toolparse:")
                and r["us_per_delta"] is not None
                and r["correct"]
            ]
            entry: Dict[str, Any] = {
                "format": format,
                "size": size,
                "toolparse": mine["us_per_delta"],
            }
            for key, pool in (("", peers), ("streaming_", [r for r in peers if streams(r)])):
                best = min(pool, key=lambda r: r["us_per_delta"], default=None)
                entry[f"{key}peer"] = best["parser"] if best else None
                entry[f"{key}peer_us"] = best["us_per_delta"] if best else None
                entry[f"{key}ratio"] = best["us_per_delta"] / mine["us_per_delta"] if best else None
            out.append(entry)
    return out


def _cell(row: Dict[str, Any]) -> str:
    if row["us_per_delta"] is None:
        return "error" if row["skipped"].startswith("raised") else "skipped"
    v = row["us_per_delta"]
    text = f"{v:.2f}" if v < 10 else f"{v:.1f}" if v < 1000 else f"{v:.0f}"
    held = "" if row.get("pieces") is None or streams(row) else " =" + str(row["pieces"])
    return text + ("" if row["correct"] else " !") + held


def table(report: Dict[str, Any]) -> str:
    """The report as text: per format, a row per size, a column per parser (µs per delta)."""
    servers = "".join(f", {k} {v}" for k, v in report["servers"].items() if v)
    lines = [
        f"toolparse bench: µs per delta (whole stream / deltas), ~{report['delta_chars']}-character"
        f" deltas, best of {report['repeat']}+, {report['clock']} clock; toolparse"
        f" {report['toolparse']}, python {report['python']}{servers}"
    ]
    bad = skipped = held = False
    errors: Dict[str, List[str]] = {}
    wrong: set = set()
    for format in report["formats"]:
        rows = [r for r in report["results"] if r["format"] == format]
        parsers = list(dict.fromkeys(r["parser"] for r in rows))
        cells = {(r["parser"], r["size"]): r for r in rows}
        head = ["size", "deltas", *parsers]
        body = []
        for size in report["sizes"]:
            first = cells.get((parsers[0], size)) if parsers else None
            line = [size_label(size), str(first["deltas"]) if first else ""]
            for p in parsers:
                r = cells[(p, size)]
                line.append(_cell(r))
                if r["us_per_delta"] is not None and not r["correct"]:
                    bad = True
                    wrong.add(p)
                skipped |= r["us_per_delta"] is None and _cell(r) == "skipped"
                if _cell(r) == "error":
                    place = f"{p} ({format} {size_label(size)})"
                    errors.setdefault(r["skipped"], []).append(place)
            body.append(line)
        widths = [max(len(row[i]) for row in [head, *body]) for i in range(len(head))]
        lines.append("")
        lines.append(f"{format}")
        lines.append("  " + " | ".join(h.rjust(w) for h, w in zip(head, widths)))
        lines.append("  " + "-+-".join("-" * w for w in widths))
        lines.extend("  " + " | ".join(c.rjust(w) for c, w in zip(row, widths)) for row in body)
        for r in report.get("ratios", []):
            if r["format"] == format and r["peer"] is not None:
                ratio = f"  {size_label(r['size'])}: toolparse:rust {r['ratio']:.1f}x {r['peer']}"
                if r["streaming_peer"] is None:
                    ratio += " (no peer streamed the argument)"
                elif r["streaming_peer"] != r["peer"]:
                    ratio += f", {r['streaming_ratio']:.1f}x {r['streaming_peer']} (streaming)"
                lines.append(ratio)
                held |= r["streaming_peer"] != r["peer"]
    notes = []
    if held:
        notes.append(
            "'=N': the parser sent the argument in N pieces, not as it streamed (it holds a value"
            " until the value ends: less work per delta, and its client sees nothing meanwhile);"
            " the ratios also name the fastest peer that streamed it"
        )
    if bad:
        notes.append("'!': the parser did not return the call (wrong or missing arguments)")
        notes.extend(f"'!' {p}: {MISREADS[p]}" for p in sorted(wrong) if p in MISREADS)
    if skipped:
        notes.append(
            f"skipped: over the {report['budget_seconds']:g} s budget (a run, or the last size's"
            " time grown quadratically)"
        )
    for reason, where in errors.items():
        notes.append(f"error: {', '.join(where)}: {reason}")
    missing = report["unavailable"]
    if missing:
        by_reason: Dict[str, List[str]] = {}
        for m in missing:
            by_reason.setdefault(m["reason"], []).append(f"{m['parser']} ({m['format']})")
        for reason, who in by_reason.items():
            notes.append(f"not run: {', '.join(who)}: {reason}")
    if notes:
        lines.append("")
        lines.extend(notes)
    return "\n".join(lines) + "\n"


PLOT_EXTRA = "plot"


def _pyplot() -> Any:
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        raise ImportError(
            "--plot needs matplotlib, which is not installed: "
            f"pip install 'toolparse[{PLOT_EXTRA}]'"
        ) from None
    return plt


def require_plot() -> None:
    """ImportError naming the ``plot`` extra when matplotlib is not installed (checked before a
    long run, not after it)."""
    _pyplot()


def plot(report: Dict[str, Any], path: str) -> None:
    """A PNG at ``path``: per format, µs per delta against the output size (both log scale), one
    line per parser. ImportError naming the ``plot`` extra when matplotlib is not installed."""
    plt = _pyplot()

    from matplotlib.ticker import FuncFormatter, NullFormatter

    formats = report["formats"]
    fig, axes = plt.subplots(
        1, len(formats), figsize=(4.2 * len(formats), 4.4), squeeze=False, sharey=True
    )
    styles = {"toolparse:rust": ("-o", "C0"), "toolparse:python": ("--o", "C1")}
    servers = {"vllm": ("-s", "C2"), "sglang": ("-^", "C3")}
    for ax, format in zip(axes[0], formats):
        rows = [r for r in report["results"] if r["format"] == format]
        for parser in dict.fromkeys(r["parser"] for r in rows):
            mine = [r for r in rows if r["parser"] == parser]
            pts = [(r["output_chars"], r["us_per_delta"]) for r in mine if r["seconds"] is not None]
            if not pts:
                continue
            label = parser
            stopped = [r for r in mine if r["seconds"] is None]
            if stopped:
                label += f" (not run from {size_label(stopped[0]['size'])}: too slow)"
            style, color = styles.get(parser) or servers.get(parser.split(":")[0], ("-x", "C4"))
            xs, ys = zip(*pts)
            ax.plot(xs, ys, style, color=color, label=label, markersize=4)
        ax.set_xscale("log")
        ax.set_yscale("log")
        ticks = sorted({r["output_chars"] for r in rows})
        ax.set_xticks(ticks)
        ax.xaxis.set_major_formatter(
            FuncFormatter(lambda x, _: f"{x / KB:.1f} KB" if x < 10 * KB else f"{x / KB:.0f} KB")
        )
        ax.xaxis.set_minor_formatter(NullFormatter())
        ax.set_title(format)
        ax.set_xlabel("output size (characters)", fontsize=9)
        ax.grid(True, which="major", alpha=0.3)
        ax.legend(fontsize=7, loc="upper center", bbox_to_anchor=(0.5, -0.2), ncol=1, frameon=False)
    clock = "CPU " if report.get("clock") == "cpu" else ""
    axes[0][0].set_ylabel(f"{clock}µs per delta")
    fig.suptitle(
        f"streaming one write_file call in ~{report['delta_chars']}-character deltas: {clock}time"
        " per delta against the output's size (log-log)",
        fontsize=10,
    )
    fig.tight_layout()
    fig.savefig(path, dpi=80)
    plt.close(fig)
