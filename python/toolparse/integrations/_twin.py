"""A server's delta objects from a toolparse stream, on either backend: the Rust core builds them
itself (``Format.parser(new_id, models, record=True)``); on the ``python`` backend ``TwinCore``
gives the twin's stream core the same surface (``feed_message`` / ``finish_message`` built by the
integration's Python builder, and the calls sent so far, ``sent_calls``)."""

from __future__ import annotations

from typing import Any, Callable, List, Optional, Tuple


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

    @property
    def sent_count(self) -> int:
        return len(self.sent_calls)

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


class ServerModels:
    """A server's delta classes, its layout (``_core.DeltaModels``) and the integration's Python
    builder ``build(d, new_id)`` of the same objects (for the ``python`` backend)."""

    def __init__(
        self,
        classes: Callable[[], Tuple[Any, Any, Any]],
        layout: str,
        build: Callable[[Any, Callable[[], str]], Any],
    ) -> None:
        self._classes = classes  # called once, when the server's classes are bound
        self._layout = layout
        self._build = build
        self._models: Optional[Any] = None

    def models(self) -> Any:
        """The ``_core.DeltaModels`` (made once)."""
        if self._models is None:
            from toolparse import _core

            self._models = _core.DeltaModels(*self._classes(), self._layout)
        return self._models

    def stream_core(self, parser: Any) -> Any:
        """A stream core for one response of toolparse parser ``parser`` that builds the
        server's objects and records the calls it sent."""
        if parser.backend == "rust":
            return parser._format.parser(parser.new_id, self.models(), True)
        new_id, build = parser.new_id, self._build
        return TwinCore(parser._new_parser(), lambda d: build(d, new_id))
