"""Sample model outputs bundled with toolparse, one file per format (``<format>.txt``), used by
``toolparse demo`` and the tests.

A file holds one or more samples separated by a line that is exactly ``----8<----``; the newline
that ends each sample's last line belongs to the file layout, not to the sample. ``tools.json`` is
the OpenAI tool list the samples call (formats with typed parameters need it).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Dict, List

__all__ = ["SEPARATOR", "formats", "load", "tools"]

SEPARATOR = "----8<----"
_DIR = Path(__file__).resolve().parent


def formats() -> List[str]:
    """The formats that have a sample file, sorted."""
    return sorted(p.stem for p in _DIR.glob("*.txt"))


def load(format: str) -> List[str]:
    """The sample outputs for ``format`` ([] when it has none)."""
    path = _DIR / f"{format}.txt"
    if not path.is_file():
        return []
    with path.open(encoding="utf-8", newline="") as f:
        text = f.read()
    samples = []
    for part in text.split("\n" + SEPARATOR + "\n"):
        if part.endswith("\n"):
            part = part[:-1]
        samples.append(part)
    return samples


def tools() -> List[Dict[str, Any]]:
    """The tools the samples call, as OpenAI tool dicts."""
    with (_DIR / "tools.json").open(encoding="utf-8") as f:
        return json.load(f)
