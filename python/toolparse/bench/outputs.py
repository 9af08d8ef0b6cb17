"""The outputs ``toolparse bench`` and the benchmarks in ``benches/`` time: one ``write_file`` call
whose ``content`` argument is N characters of source code, written in a format's wire text by the
format's renderer in the conformance kit (``toolparse.testing``, configured from the spec entry),
and the pseudo-token deltas it is streamed in.

Every parser of a run gets the same text split into the same deltas: about four characters each,
with every marker string of the format whole (as a tokenizer emits a special token).
"""

from __future__ import annotations

import re
from functools import cache
from typing import Any, Dict, List, Tuple

from ..spec import get_spec
from ..testing.renderers import renderer

__all__ = [
    "CALL_NAME",
    "DELTA_CHARS",
    "TOOLS",
    "arguments",
    "argument_text",
    "chunk",
    "formats",
    "markers",
    "model_output",
    "render",
    "supported",
]

DELTA_CHARS = 4
CALL_NAME = "write_file"
PATH = "src/app/handlers.py"
TOOLS: List[Dict[str, Any]] = [
    {
        "type": "function",
        "function": {
            "name": CALL_NAME,
            "description": "Write a text file.",
            "parameters": {
                "type": "object",
                "properties": {"path": {"type": "string"}, "content": {"type": "string"}},
                "required": ["path", "content"],
            },
        },
    }
]

_BLOCK = """\
def handle_{i}(request, retries={r}):
    \"\"\"Route #{i}: parse the body, call the backend, render the reply.\"\"\"
    body = request.json() or {{}}
    if "id" not in body:
        return {{"error": "missing 'id'", "route": {i}}}
    for attempt in range(retries):
        try:
            reply = backend.call("items/{i}", body, timeout={t})
            return render("<li class=\\"item\\">%s</li>", reply)
        except TimeoutError:
            log.info("retry\\t%d of %d", attempt, retries)
    return None

"""


def argument_text(n_chars: int) -> str:
    """Deterministic ASCII source code of exactly ``n_chars`` characters, with the quotes,
    backslashes and newlines that JSON and Python literals escape."""
    parts: List[str] = []
    total = i = 0
    while total < n_chars:
        block = _BLOCK.format(i=i, r=2 + i % 3, t=5 + i % 7)
        parts.append(block)
        total += len(block)
        i += 1
    return "".join(parts)[:n_chars]


def arguments(n_chars: int) -> Dict[str, str]:
    """The call's arguments: a path and ``n_chars`` characters of content."""
    return {"path": PATH, "content": argument_text(n_chars)}


# The conformance kit's form each format's output is written in, where it is not its renderer's
# first: the call after the ``<|python_tag|>`` llama3 writes before code and calls, mistral's
# ``[TOOL_CALLS]N[ARGS]{...}`` (which vLLM's and SGLang's parsers both read), inkling's
# function-name header, k2_horizon's value types.
FORMS: Dict[str, str] = {
    "llama3_json": "python_tag",
    "llama4_json": "python_tag",
    "mistral": "v11_args",
    "inkling": "headers",
}
# Formats whose call is the second message of the turn, after a reasoning message of this text.
REASONING = "Writing the file."
AFTER_REASONING = frozenset({"beam"})


def render(format: str, name: str, args: Dict[str, Any]) -> str:
    """One call in ``format``'s wire text, written by the format's renderer in the conformance
    kit (``toolparse.testing``). ValueError when the kit cannot write these arguments in it (a
    value its layout would change, such as a newline at either end of an inline XML value)."""
    r = renderer(format)
    reasoning = REASONING if r.name in AFTER_REASONING else None
    try:
        case = r.render([(name, args)], form=FORMS.get(r.name), reasoning=reasoning)
    except AssertionError:
        raise ValueError(f"toolparse bench cannot write these arguments in {format}") from None
    return case.model_output


def supported(format: str) -> bool:
    """Whether the generator can write ``format`` (every format the kit renders)."""
    try:
        render(format, CALL_NAME, {"path": "a", "content": "b"})
    except ValueError:
        return False
    return True


def formats() -> List[str]:
    """The registered formats the generator writes, in registry order."""
    import toolparse

    return [f for f in toolparse.list_formats() if supported(f)]


def model_output(format: str, n_chars: int) -> str:
    """The wire text of one ``write_file`` call whose ``content`` is ``n_chars`` long."""
    try:
        return render(format, CALL_NAME, arguments(n_chars))
    except ValueError:
        raise ValueError(
            f"toolparse bench cannot generate {format} output of {n_chars} characters"
        ) from None


def markers(format: str) -> Tuple[str, ...]:
    """The format's marker strings and special tokens, longest first (each one pseudo-token)."""
    s = get_spec(format)
    found = {m for m in (*s.markers.values(), *s.special_tokens) if len(m) > 1}
    return tuple(sorted(found, key=lambda m: (-len(m), m)))


@cache
def _chunk_re(ms: Tuple[str, ...]) -> re.Pattern[str]:
    if not ms:
        return re.compile(rf"[\s\S]{{1,{DELTA_CHARS}}}")
    alt = "|".join(re.escape(m) for m in ms)
    return re.compile(rf"(?:{alt})|(?:(?!{alt})[\s\S]){{1,{DELTA_CHARS}}}")


def chunk(format: str, text: str) -> List[str]:
    """``text`` in deltas of at most four characters, each marker string of ``format`` whole."""
    return _chunk_re(markers(format)).findall(text)
