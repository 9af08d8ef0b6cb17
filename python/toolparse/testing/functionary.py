"""The renderer of the functionary family (MeetKai Functionary v3.1 and v3.2), configured from
the format's spec entry like the other families' renderers in ``renderers.py``."""

from __future__ import annotations

from typing import Tuple

import toolparse
import toolparse.spec

from .render import Renderer, args_text


class Functionary(Renderer):
    """A header naming the function, then the JSON arguments (``rust/formats/functionary.rs``),
    configured from the format's spec entry: functionary_v31's ``<function=N>{...}</function>``
    in text; functionary_v32's recipient messages (the output starts after the prompt's ``>>>``:
    ``all\\n`` before the content, ``N\\n{...}`` for a call, ``>>>`` before every later message).
    The raw-code calls (``<|python_tag|>``, ``python\\n`` then code) are not rendered: they hold
    one function's code, not the kit's calls."""

    def __init__(self, name: str) -> None:
        self.name = name
        spec = toolparse.spec.get_spec(name)
        m = spec.markers
        self.start, self.name_end = m["call_start"], m["name_end"]
        self.end = m.get("call_end", "")
        self.recipient = spec.call.content_recipient
        # the output starts at a header (the prompt wrote the call start)
        self.messages = spec.call.starts_with_header
        self.markers = tuple(v for v in m.values() if v.strip())
        # the content recipient's header (``all\n``) is markup
        self.plain_content = self.recipient is None
        if self.messages:
            self.forms: Tuple[str, ...] = ("plain", "newlines", "start_marker")
            self.forms_no_after: Tuple[str, ...] = ()
        else:
            self.forms, self.forms_no_after = ("plain", "newlines", "no_close"), ("no_close",)
        self.extra_tokens = ("get_weather", self.name_end, "all", "python", "{", "}")

    def content_ok(self, s: str, where: str = "before") -> bool:
        # (v3.2: text before a message start must not end with one of its characters)
        if self.messages and s.endswith(self.start[-1]):
            return False
        return super().content_ok(s, where)

    def _body(self, calls, before, after, form, style, reasoning):
        return self._joined(calls, before, [""] * (len(calls) - 1), after, form, style, reasoning)

    def _joined(self, calls, before, between, after, form, style, reasoning):
        expected = [(n, args_text(a, style)) for n, a in calls]
        nl = "\n" if form == "newlines" else ""
        if self.messages:
            text = self.start if form == "start_marker" else ""
            before_at = 0
            if before:
                text += f"{self.recipient}{self.name_end}"
                before_at = len(text)
                text += before + self.start
            for i, (n, a) in enumerate(expected):
                if i:
                    text += (between[i - 1] or nl) + self.start
                text += f"{n}{self.name_end}{a}"
            return text + after, expected, before_at
        text = before
        for i, (n, a) in enumerate(expected):
            if i:
                text += between[i - 1] or nl
            last = i == len(expected) - 1
            end = "" if last and form == "no_close" else self.end
            text += f"{self.start}{n}{self.name_end}{a}{end}"
        return text + after, expected
