"""Hand-written model outputs per format: text with no call that looks a little like the
format's markup, malformed markup and truncated outputs (the peers' own cases among them). They
live in each format's file (``toolparse/formats/<format>.json``, its ``cases``); these are views of
them by format. The generators in :mod:`toolparse.testing.patterns` add cases made from the spec
entry.
"""

from __future__ import annotations

from typing import Dict, List, Tuple

from toolparse.spec import SPECS

NO_CALL_TEXTS = [
    "Hello, how can I help you?",
    "This is a regular response.",
    "",
    "   \n  ",
    "\n",
    "Unicode 日本語 🎉 and a backslash \\ and quotes \"'",
]

# Text that looks a little like a format's markup but holds no call: all of it is content.
NO_CALL_LOOKALIKES: Dict[str, List[str]] = {
    n: list(s.cases.no_call) for n, s in SPECS.items() if s.cases.no_call
}
# Malformed markup: no call, the text is content.
MALFORMED: Dict[str, List[str]] = {
    n: list(s.cases.malformed) for n, s in SPECS.items() if s.cases.malformed
}
# Outputs that end inside a call (max_tokens), with how many calls completed before it: those
# are kept; with none, non-streaming returns the text whole as content.
TRUNCATED: Dict[str, List[Tuple[str, int]]] = {
    n: list(s.cases.truncated) for n, s in SPECS.items() if s.cases.truncated
}
