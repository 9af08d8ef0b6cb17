"""Splittings: the ways a text is cut into the deltas a server streams.

A parser must give the same result under every splitting of its output.
:func:`splittings` gives the ones :func:`toolparse.testing.check` runs: the whole text in one delta,
one character per delta, cuts around every marker (inside it, at its edges), and seeded random
cuts.
"""

from __future__ import annotations

import random
from typing import Dict, Iterable, List, Sequence, Set

__all__ = ["chunks_at", "marker_cuts", "random_chunks", "split_plans", "splittings"]


def chunks_at(text: str, cuts: Iterable[int]) -> List[str]:
    """``text`` cut at the given character offsets (sorted; a repeated offset gives an empty
    delta)."""
    out = []
    prev = 0
    for c in sorted(cuts):
        out.append(text[prev:c])
        prev = c
    out.append(text[prev:])
    return out


def random_chunks(text: str, rng: random.Random, max_cuts: int = 8) -> List[str]:
    """Up to ``max_cuts`` random cuts."""
    k = rng.randint(0, min(max_cuts, len(text)))
    return chunks_at(text, rng.sample(range(len(text) + 1), k) if text else [])


def split_plans(text: str, rng: random.Random, n_random: int = 3) -> List[List[str]]:
    """Whole text, one character per delta, and some random multi-way splits."""
    plans = [[text], list(text)]
    for _ in range(n_random):
        plans.append(random_chunks(text, rng))
    return plans


def marker_cuts(text: str, markers: Sequence[str]) -> List[int]:
    """Every offset inside or at the edges of an occurrence of a marker (one character either
    side included): where a parser that matches markers has to hold text back."""
    cuts: Set[int] = set()
    for m in markers:
        if not m:
            continue
        start = text.find(m)
        while start != -1:
            cuts.update(range(max(start - 1, 0), min(start + len(m) + 1, len(text)) + 1))
            start = text.find(m, start + 1)
    cuts.discard(0)
    cuts.discard(len(text))
    return sorted(cuts)


def splittings(
    text: str,
    markers: Sequence[str] = (),
    seed: int = 0,
    n_random: int = 3,
    max_cuts: int = 12,
) -> Dict[str, List[str]]:
    """The splittings of ``text`` ``check`` runs, by label: ``whole``, ``chars`` (one character
    per delta), ``markers`` (a cut at every offset around every marker occurrence, see
    :func:`marker_cuts`) and ``random/K`` (seeded by ``seed`` and the text, so a run repeats)."""
    out: Dict[str, List[str]] = {"whole": [text]}
    if len(text) > 1:
        out["chars"] = list(text)
    cuts = marker_cuts(text, markers)
    if cuts:
        out["markers"] = chunks_at(text, cuts)
    rng = random.Random(f"{seed}:{text}")
    for k in range(n_random):
        out[f"random/{k}"] = random_chunks(text, rng, max_cuts)
    return out
