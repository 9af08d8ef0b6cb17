"""The think block of a template's renders: its start and end markers, whether the generation
prompt opens it, and the turns' text without it.

The markers are read from the "reasoning then a call" render: the whitespace-free chunks on either
side of the probe's reasoning, grown to the words a multi-word marker holds (Apriel's "Here are my
reasoning steps:", "[BEGIN FINAL RESPONSE]"). Where no render shows reasoning, a tag the prompt
ends by opening and no turn writes (QwQ's ``<think>``) opens a block its closing tag ends.
"""

from __future__ import annotations

import re
from typing import Any, List, Tuple

from .. import probes as _probes
from .locate import NoFit, common_suffix, split_ws

__all__ = ["Rendered", "inside", "strip_block", "stray_end", "think_block", "words"]

Rendered = List[Tuple[_probes.Probe, Any]]


def think_block(rendered: Rendered) -> Tuple[str, str, bool]:
    """The think block's start and end markers and whether the prompt opens it, from the
    "reasoning then a call" render ("", "", False: the template shows no reasoning)."""
    prompt = rendered[0][1].prompt
    for probe, turn in rendered:
        if not probe.reasoning or probe.reasoning not in turn.text:
            continue
        at = turn.text.find(probe.reasoning)
        before = split_ws(turn.text[:at])
        after = split_ws(turn.text[at + len(probe.reasoning) :])
        if not after:
            raise NoFit("nothing closes the reasoning")
        # a tag ends at its ">" (MiniMax M3's "</mm:think>" before "]<]minimax[>[")
        tag = re.match(r"<[^<>]+>(?!\w)", after[0])
        end = tag.group(0) if tag else after[0]
        end = words(end, _closing(rendered, probe, turn.text[at + len(probe.reasoning) :]))
        opened = split_ws(prompt)
        at_end = turn.text.find(end, at + len(probe.reasoning))
        rest = turn.text[at_end + len(end) :]
        if opened and opened[-1] != end and rest.lstrip().startswith(opened[-1]):
            # the turn writes the generation prompt's last marker again after the block
            # (Solar's "<|end|><|begin|>assistant"): that is the block's end too
            end += rest[: len(rest) - len(rest.lstrip())] + opened[-1]
        if before:
            start = before[-1]
        else:
            opened = split_ws(prompt)
            if opened and opened[-1] == end:
                # the prompt writes an empty block (thinking off, Hy3), which the turn with
                # reasoning fills: the render shares its start with the prompt
                opened.pop()
            if not opened:
                raise NoFit("nothing opens the reasoning")
            # the prompt's last line, where it is words (Apriel's "Here are my reasoning steps:")
            start = words(opened[-1], prompt.rstrip().rsplit("\n", 1)[-1], True)
        started = prompt.rfind(start) > prompt.rfind(end) and prompt.rfind(start) >= 0
        return start, end, started
    # no render shows reasoning, but the prompt ends by opening a tag no turn writes (QwQ's
    # "<think>\n"): the output starts inside that block, which its closing tag ends
    opened = split_ws(prompt)
    tag = re.fullmatch(r"<([A-Za-z_][\w:.-]*)>", opened[-1]) if opened else None
    if tag and not any(opened[-1] in t.text for _, t in rendered):
        return opened[-1], f"</{tag.group(1)}>", True
    return "", "", False


def _plain(word: str) -> bool:
    return not any(c in word for c in "<>[]|")


def words(marker: str, line: str, backwards: bool = False) -> str:
    """``marker`` (one whitespace-free chunk) grown to the multi-word marker ``line`` holds
    around it: ``line`` itself where it is one line of words separated by single spaces, ends
    (``backwards``) or starts with ``marker``, and is markup (``[BEGIN FINAL RESPONSE]``: one
    bracketed token) or plain words; else ``marker``."""
    line = line.strip()
    words = line.split(" ")
    if len(words) < 2 or any(not w or w != w.strip() for w in words):
        return marker
    if (words[-1] if backwards else words[0]) != marker:
        return marker
    bracketed = line[0] in "[<" and line[-1] == {"[": "]", "<": ">"}[line[0]]
    if bracketed and all(_plain(w) for w in line[1:-1].split(" ")):
        return line
    return line if all(_plain(w) for w in words) else marker


def _closing(rendered: Rendered, probe: _probes.Probe, after: str) -> str:
    """The text that closes the reasoning in the "reasoning then a call" render: what follows the
    reasoning up to the calls, less what every render of calls alone writes before them (its
    call markup), one line at most; "" when it is not one line."""
    first = probe.calls[0][0] if probe.calls else ""
    if not first or first not in after:
        return ""
    leads = [after[: after.find(first)]]
    for p, t in rendered:
        if p.calls and not p.content and not p.reasoning and p.calls[0][0] in t.text:
            leads.append(t.text[: t.text.find(p.calls[0][0])])
    if len(leads) < 2:
        return ""
    closing = leads[0][: len(leads[0]) - len(common_suffix(leads))].strip()
    return closing if "\n" not in closing else ""


def inside(text: str, start: str, end: str, started: bool) -> bool:
    """Whether ``text`` starts inside the think block: the prompt opened it (``started``) and the
    text closes it, or the text closes a block it never opens (the prompt wrote an empty block
    the turn's render fills, Hy3's, so the render shares the block's start with the prompt)."""
    e = text.find(end)
    if started or e < 0:
        return started and e >= 0
    s = text.find(start) if start else -1
    return s < 0 or e < s


def strip_block(text: str, start: str, end: str, started: bool) -> str:
    """``text`` without a think block at its start."""
    if not end:
        return text
    s = text.find(start) if start else -1
    e = text.find(end)
    if s >= 0 and not text[:s].strip() and e > s:
        return text[e + len(end) :]
    if e >= 0 and (s < 0 or e < s) and inside(text, start, end, started):
        return text[e + len(end) :]
    if stray_end(text, start, end):
        return text[e + len(end) :]
    return text


def stray_end(text: str, start: str, end: str) -> bool:
    """Whether ``text`` begins with the block's end and never opens it: a template that closes
    an empty block the turn does not open (MiniMax M3 writes ``</mm:think>`` before a turn without
    reasoning); the reasoning entry then reads a leading end marker as markup
    (``stray_end_text``)."""
    return bool(end) and text.lstrip().startswith(end) and (not start or start not in text)
