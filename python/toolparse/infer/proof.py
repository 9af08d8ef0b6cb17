"""The proof of an inferred format: every render parses back exactly, on both backends, whole and
streamed under random splits.

It runs in a child process (``python -m toolparse.infer.proof``, a JSON request on stdin, a JSON
answer on stdout), where each candidate is registered under a temporary name: the caller's
registry never sees a candidate.
"""

from __future__ import annotations

import json
import random
import sys
import uuid
from typing import Any, Dict, List, Optional, Sequence, Tuple

__all__ = ["check", "main"]

# (text, [(name, args)], content, reasoning, reasoning_started)
Check = Tuple[str, List[Tuple[str, Dict[str, Any]]], str, str, Optional[bool]]


def _result(got: Any) -> Tuple[List[Tuple[str, Any]], str, str]:
    calls = []
    for c in got.tool_calls:
        try:
            args = json.loads(c.function.arguments or "{}")
        except ValueError:
            args = c.function.arguments
        calls.append((c.function.name, args))
    return calls, (got.content or "").strip(), (got.reasoning or "").strip()


def _streamed(parser: Any, text: str, rng: random.Random) -> Any:
    from toolparse.reconstruct import StreamingToolReconstructor

    cuts = sorted(rng.sample(range(1, len(text)), min(len(text) - 1, rng.randint(1, 12))))
    pieces = [text[a:b] for a, b in zip([0, *cuts], [*cuts, len(text)])]
    stream = parser.stream()
    rec = StreamingToolReconstructor()
    for piece in pieces:
        delta = stream.feed(piece)
        if delta is not None:
            rec.append_delta(delta)
    delta = stream.finish()
    if delta is not None:
        rec.append_delta(delta)
    return rec.to_extracted()


def check(
    fmt: str, reasoning: Optional[str], tools: Any, checks: Sequence[Check], seed: int
) -> str:
    """ "" when ``fmt`` (with ``reasoning``) reads every check back, else what did not."""
    from toolparse.parser import ToolParser

    rng = random.Random(seed)
    parsers: Dict[Tuple[str, Optional[bool]], Any] = {}
    for text, calls, content, reasoning_text, mode in checks:
        want = ([(n, a) for n, a in calls], content.strip(), reasoning_text.strip())
        for backend in ("rust", "python"):
            key = (backend, mode)
            if key not in parsers:
                parsers[key] = ToolParser(
                    fmt, tools=tools, backend=backend, reasoning=reasoning, reasoning_started=mode
                )
            parser = parsers[key]
            got = _result(parser.extract_tool_calls(text))
            if got != want:
                return f"{backend} reads {text[:120]!r} as {got!r}, not {want!r}"
            for _ in range(3):
                streamed = _result(_streamed(parser, text, rng))
                if streamed != got:
                    return f"{backend} streams {text[:120]!r} as {streamed!r}, not {got!r}"
    return ""


def _prove(doc: Dict[str, Any], tools: Any, checks: Sequence[Check], seed: int) -> str:
    from toolparse import register_format

    doc = json.loads(json.dumps(doc))
    tag = uuid.uuid4().hex[:12]
    doc["spec"]["name"] = f"inferring-{tag}"
    doc["spec"]["aliases"] = []
    doc["spec"]["models"] = []
    reasoning = None
    if doc.get("reasoning"):
        doc["reasoning"]["name"] = reasoning = f"inferring-think-{tag}"
        doc["reasoning"]["aliases"] = []
        if "tool_format" in doc["reasoning"]:  # the channel families' entry names the format
            doc["reasoning"]["tool_format"] = doc["spec"]["name"]
    try:
        name = register_format(doc)
    except (ValueError, TypeError) as e:
        return f"not a valid format: {e}"
    try:
        return check(name, reasoning, tools, checks, seed)
    except Exception as e:  # noqa: BLE001 - any failure is a failed proof, reported
        return f"failed: {type(e).__name__}: {e}"


def main() -> None:
    request = json.load(sys.stdin)
    answers = [
        _prove(doc, request["tools"], request["checks"], request["seed"]) for doc in request["docs"]
    ]
    json.dump(answers, sys.stdout)


if __name__ == "__main__":
    main()
