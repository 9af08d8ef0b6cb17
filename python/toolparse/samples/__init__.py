"""Sample model outputs bundled with toolparse, used by ``toolparse demo`` and the tests. They
live in each format's file (``toolparse/formats/<format>.json``, its ``samples``).
``tools.json`` is the OpenAI tool list the samples call (formats with typed parameters need it).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Dict, List

from toolparse.spec import SPECS

__all__ = ["formats", "load", "tools"]

_DIR = Path(__file__).resolve().parent


def formats() -> List[str]:
    """The formats that have samples, sorted."""
    return sorted(n for n, s in SPECS.items() if s.samples)


def load(format: str) -> List[str]:
    """The sample outputs for ``format`` ([] when it has none)."""
    spec = SPECS.get(format)
    return list(spec.samples) if spec is not None else []


def tools() -> List[Dict[str, Any]]:
    """The tools the samples call, as OpenAI tool dicts."""
    with (_DIR / "tools.json").open(encoding="utf-8") as f:
        return json.load(f)
