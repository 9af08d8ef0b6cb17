"""The Python twin's stream core with what the Rust core gives the server integrations
(``Format.parser(new_id, models, record=True)``): the server's own delta objects from
``feed_message`` / ``finish_message`` (built here by the integration's Python builder) and the
calls sent so far (``sent_calls``). Used on the ``python`` backend only."""

from __future__ import annotations

from typing import Any, Callable, List, Tuple


class TwinCore:
    """Wraps a twin stream core; ``build(d)`` makes the server's object of a core delta ``d``
    (None included: what the server expects when there is nothing new)."""

    def __init__(self, core: Any, build: Callable[[Any], Any]) -> None:
        self._twin = core
        self._build = build
        self.sent_calls: List[Tuple[str, str]] = []

    def feed(self, text: str) -> Any:
        return self._record(self._twin.feed(text))

    def finish(self) -> Any:
        return self._record(self._twin.finish())

    def feed_message(self, text: str) -> Any:
        return self._build(self.feed(text))

    def finish_message(self) -> Any:
        return self._build(self.finish())

    def __getattr__(self, name: str) -> Any:  # malformed, truncated, unfinished_call, ...
        return getattr(self._twin, name)

    def _record(self, d: Any) -> Any:
        if d is not None and d[2]:
            for index, _id, name, args in d[2]:
                if name is not None:
                    self.sent_calls.append((name, ""))
                if args is not None and index < len(self.sent_calls):
                    n, a = self.sent_calls[index]
                    self.sent_calls[index] = (n, a + args)
        return d
