"""Tool-call ids: ``chatcmpl-tool-`` + 32 hex digits (vLLM's style) or 9 alphanumerics
(Mistral's). Seed an :class:`IdSource` to make them deterministic."""

from __future__ import annotations

import random
import secrets
import string
from typing import Optional

_ALNUM = string.ascii_letters + string.digits


class IdSource:
    """Makes tool-call ids; ``IdSource(seed)`` repeats the same sequence for the same seed."""

    def __init__(self, seed: Optional[int] = None) -> None:
        self._rng: Optional[random.Random] = random.Random(seed) if seed is not None else None

    def make(self, style: str) -> str:
        if style == "mistral":
            if self._rng is None:
                return "".join(secrets.choice(_ALNUM) for _ in range(9))
            return "".join(self._rng.choice(_ALNUM) for _ in range(9))
        bits = self._rng.getrandbits(128) if self._rng is not None else secrets.randbits(128)
        return f"chatcmpl-tool-{bits:032x}"
