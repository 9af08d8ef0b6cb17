"""The reasoning of one think block as the reference emits it (``event.Label``, the twin of
rust/event.rs's ``Label``, whose cargo tests in rust/event/tests.rs check the same cases): shared
by the reasoning front and gemma4's blocks anywhere."""

from __future__ import annotations

from typing import Sequence

import pytest
from toolparse.reference.event import TRAIL_CAP, Emitter, Label


def label_reasoning(label: str, trim: bool, open: bool, parts: Sequence[str]) -> str:
    """The reasoning a ``Label`` emits for ``parts`` fed in a block it opened (or not), then
    closed."""
    e = Emitter()
    lab = Label(label, trim)
    if open:
        lab.open()
    for p in parts:
        lab.emit(p, e)
    lab.close(e)
    e.finish()
    events = e.take()
    assert all(ev[0] == "reasoning" for ev in events), events
    return "".join(ev[1] for ev in events)


def test_label_and_newline_at_the_start_are_markup() -> None:
    assert label_reasoning("thought", False, True, ["thou", "ght\nHi"]) == "Hi"
    assert label_reasoning("thought", False, True, ["thought", "\n", "A"]) == "A"


def test_label_alone_is_an_empty_block() -> None:
    assert label_reasoning("thought", False, True, ["thou", "ght"]) == ""


@pytest.mark.parametrize(
    "label, open, parts, want",
    [
        ("thought", True, ["tho", "se"], "those"),
        ("thought", True, ["thought", "x"], "thoughtx"),
        ("thought", True, ["thou"], "thou"),
        # not at the start of a block, or no label: nothing is markup
        ("thought", False, ["thought\nA"], "thought\nA"),
        ("", True, ["thought\nA"], "thought\nA"),
        # the label is markup once per block
        ("thought", True, ["thought\nthought\n"], "thought\n"),
    ],
)
def test_other_text_is_reasoning_as_written(
    label: str, open: bool, parts: Sequence[str], want: str
) -> None:
    assert label_reasoning(label, False, open, parts) == want


def test_trim_drops_the_ending_whitespace_only() -> None:
    assert label_reasoning("", True, True, ["a ", " \n"]) == "a"
    assert label_reasoning("", True, True, ["a  ", "b\n"]) == "a  b"
    assert label_reasoning("", False, True, ["a ", " \n"]) == "a  \n"
    long = " " * (TRAIL_CAP + 1)
    assert label_reasoning("", True, True, ["a", long]) == "a" + long


def test_label_and_trim_under_every_split() -> None:
    text = "thought\nA b \n"
    for i in range(len(text) + 1):
        for j in range(i, len(text) + 1):
            parts = [text[:i], text[i:j], text[j:]]
            assert label_reasoning("thought", True, True, parts) == "A b", parts
