"""Compare toolparse's detect_format with SGLang 0.5.23's rule-based ``auto``
(``sglang.srt.parser.template_detection.detect_tool_call_parser``) on the vendored llama.cpp
templates whose model toolparse reads (tests/test_detect.py's EXPECTED table).

Run in the peers' venv: ``PYTHONPATH=<site>:/work/shared/peers/faketorch python
tests/integrations/compare_sglang_auto.py``. A right answer is the expected format, or a format
that reads the same wire syntax (one of detect_format's candidates); SGLang's names are mapped to
toolparse's through the spec's aliases.
"""

from __future__ import annotations

import sys
import types
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE.parent)]

try:
    import vllm.tool_parsers  # noqa: F401  (the torch stand-in needs vLLM first)
except Exception:  # noqa: BLE001
    pass
# SGLang's template_detection imports its sampling package, which imports dill (for custom logit
# processors, never used here); the peers' venv has no dill
try:
    import sglang.srt.arg_groups.muse_spark_hook  # noqa: F401
except Exception:  # noqa: BLE001
    # its import chain reaches model configs (sentencepiece, dill, kernels) the peers' venv lacks;
    # template detection takes one function from it, which the rules below never call
    _hook = types.ModuleType("sglang.srt.arg_groups.muse_spark_hook")
    _hook.muse_spark_chat_template_default = lambda server_args: None  # type: ignore[attr-defined]
    sys.modules["sglang.srt.arg_groups.muse_spark_hook"] = _hook

from sglang.srt.parser.template_detection import (  # noqa: E402
    detect_reasoning_pattern,
    detect_tool_call_parser,
)
from test_detect import EXPECTED, TEMPLATES  # noqa: E402
from toolparse import detect_format  # noqa: E402
from toolparse import spec as _spec  # noqa: E402


def canonical(name):
    try:
        return _spec.canonical(name)
    except (TypeError, ValueError):
        return None


def main() -> int:
    ours = theirs = 0
    rows = []
    for stem, (fmt, _, _) in sorted(EXPECTED.items()):
        text = (TEMPLATES / f"{stem}.jinja").read_text()
        d = detect_format(text, bos_token="<s>", eos_token="</s>", seed=7)
        same = set(d.candidates) | {fmt}
        force, config = detect_reasoning_pattern(text)
        sg = detect_tool_call_parser(text, None, config, force)
        ok_ours = fmt in d.candidates
        ok_theirs = canonical(sg) in same if sg else False
        ours += ok_ours
        theirs += ok_theirs
        rows.append((stem, fmt, d.format, sg))
        print(
            f"{stem:45s} expected={fmt:16s} toolparse={d.format!s:16s} sglang={sg!s:14s}"
            f" {'ok' if ok_ours else 'XX'} {'ok' if ok_theirs else 'XX'}",
            flush=True,
        )
    print(f"right: toolparse {ours}/{len(EXPECTED)}, SGLang auto {theirs}/{len(EXPECTED)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
