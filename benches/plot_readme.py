"""The benchmark plot and results file: ``toolparse bench`` for hermes, qwen3_coder and pythonic,
with vLLM's and SGLang's parsers beside toolparse's two backends, drawn to ``docs/bench.png`` and
written to ``docs/bench-results.json`` (from which ``docs/gen_pages.py`` generates the tables of
the README and the benchmarks page).

    bash "$TOOLPARSE_PEERS_DIR/setup.sh"              # vLLM + SGLang in $HOME/peers-venv (~3 min)
    $HOME/peers-venv/bin/pip install '.[plot]'        # toolparse and matplotlib beside them
    $HOME/peers-venv/bin/python benches/plot_readme.py
    python docs/gen_pages.py                          # the tables from the new results
    python benches/plot_readme.py --from-json docs/bench-results.json   # redraw only

The peers harness is read from ``$TOOLPARSE_PEERS_DIR``; without it (or without vLLM / SGLang)
the plot shows toolparse alone.
The same as ``toolparse bench -f hermes qwen3_coder pythonic -s 1KB 4KB 16KB 64KB --clock cpu
--json docs/bench-results.json --plot docs/bench.png`` with the harness folder given. Timings
differ from machine to machine; the shape does not.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path
from typing import Optional, Sequence

from toolparse import bench

ROOT = Path(__file__).resolve().parent.parent
FORMATS = ["hermes", "qwen3_coder", "pythonic"]
SIZES = [1024, 4096, 16384, 65536]


def main(argv: Optional[Sequence[str]] = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--out", default=str(ROOT / "docs" / "bench.png"), help="the PNG to write")
    p.add_argument(
        "--json",
        metavar="FILE",
        default=str(ROOT / "docs" / "bench-results.json"),
        help="the results file to write (with the date and machine)",
    )
    p.add_argument("--from-json", metavar="FILE", help="redraw from a results file, run nothing")
    p.add_argument("--budget", type=float, default=20.0, help="seconds per run at most")
    p.add_argument("--clock", choices=("wall", "cpu"), default="cpu")
    args = p.parse_args(argv)
    bench.require_plot()
    if args.from_json:
        saved = json.loads(Path(args.from_json).read_text(encoding="utf-8"))
        bench.plot(saved, args.out)
        print(f"wrote {args.out}")
        return 0
    peers_dir = os.environ.get("TOOLPARSE_PEERS_DIR")
    report = bench.run(
        FORMATS,
        SIZES,
        budget=args.budget,
        clock=args.clock,
        peers_dir=peers_dir,
        progress=bench.Progress(0),
    )
    sys.stdout.write(bench.table(report))
    bench.plot(report, args.out)
    print(f"wrote {args.out}")
    saved = dict(report, measured=bench.measured())
    Path(args.json).write_text(
        json.dumps(saved, indent=2, ensure_ascii=False) + "\n", encoding="utf-8"
    )
    print(f"wrote {args.json}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
