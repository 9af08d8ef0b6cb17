"""Adapters that give a vLLM ``ToolParser`` class or an SGLang detector toolparse's contract
(``extract_tool_calls(text)``, ``stream().feed(delta)`` / ``finish()``), so
:func:`toolparse.testing.check` runs the same cases on them.

Both are callables ``tools -> parser`` (a fresh peer parser per case and per stream: the peers'
parsers keep per-request state). vLLM and SGLang are imported when an adapter is first used, never
by ``import toolparse.testing``.
"""

from __future__ import annotations

import copy
from typing import Any, Dict, List, Optional

__all__ = ["from_sglang", "from_vllm"]


class _StubTokenizer:
    """What vLLM's parsers read of a tokenizer when no real one is given (text-only parsers):
    an empty vocabulary, one token per character."""

    name_or_path = "toolparse-testing"
    all_special_tokens: List[str] = []
    all_special_ids: List[int] = []

    def get_vocab(self) -> Dict[str, int]:
        return {"<unk>": 0}

    def decode(self, ids: Any, **_: Any) -> str:
        return ""

    def encode(self, text: str, **_: Any) -> List[int]:
        return [1] * len(text)

    def __len__(self) -> int:
        return 1


def _token_ids(tokenizer: Any, text: str) -> List[int]:
    try:
        return list(tokenizer.encode(text, add_special_tokens=False))
    except Exception:  # noqa: BLE001 - token ids are a best effort for text-only parsers
        return [1] * len(text)


class _VLLMStream:
    def __init__(self, owner: _VLLMParser) -> None:
        self.owner = owner
        self.parser = owner.new_parser()
        self.text = ""
        self.ids: List[int] = []
        self.last: Any = None

    def feed(self, delta: str) -> Any:
        prev_text, prev_ids = self.text, self.ids
        delta_ids = _token_ids(self.owner.tokenizer, delta)
        self.text, self.ids = prev_text + delta, prev_ids + delta_ids
        out = self.parser.extract_tool_calls_streaming(
            prev_text, self.text, delta, prev_ids, self.ids, delta_ids, self.owner.request
        )
        self.last = out
        return out

    def finish(self) -> Any:
        # vLLM's Parser at the end of a stream: a parser with ``finish_streaming`` (engine-based)
        # flushes what it held back; then the serving layer appends the arguments a parser parsed
        # but did not stream to the last delta's last call (``finalize_generation``).
        flush = getattr(self.parser, "finish_streaming", None)
        flushed = flush() if flush is not None else None
        if flushed is not None:
            self.last = flushed
        last = self.last
        remaining = getattr(self.parser, "get_remaining_unstreamed_args", None)
        if last is not None and getattr(last, "tool_calls", None) and remaining is not None:
            fn = last.tool_calls[-1].function
            if fn is not None:
                fn.arguments = (fn.arguments or "") + remaining()
        return flushed


class _VLLMParser:
    def __init__(self, cls: Any, tokenizer: Any, tools: Optional[List[Dict[str, Any]]]) -> None:
        from vllm.entrypoints.openai.chat_completion.protocol import ChatCompletionRequest

        self.cls, self.tokenizer = cls, tokenizer
        request = ChatCompletionRequest(
            model="toolparse-testing",
            messages=[{"role": "user", "content": "hi"}],
            tools=tools or None,
            tool_choice="auto" if tools else "none",
        )
        self.request = self.new_parser().adjust_request(request)

    def new_parser(self) -> Any:
        tools = getattr(getattr(self, "request", None), "tools", None)
        try:
            return self.cls(self.tokenizer, tools)
        except TypeError:  # vLLM before tools reached the constructor
            return self.cls(self.tokenizer)

    def extract_tool_calls(self, text: str) -> Any:
        return self.new_parser().extract_tool_calls(text, self.request)

    def stream(self) -> _VLLMStream:
        return _VLLMStream(self)


class from_vllm:  # noqa: N801 - reads as a function at the call site
    """``check(from_vllm(Hermes2ProToolParser, tokenizer), cases)``: a vLLM ``ToolParser`` class
    driven as vLLM's serving loop drives it (``extract_tool_calls(text, request)``;
    ``extract_tool_calls_streaming`` per delta with the previous/current texts and token ids; the
    unstreamed arguments appended to the last delta at the end). ``tokenizer`` defaults to a stub
    for parsers that read text only; parsers that match token ids need the model's."""

    needs_all_tools = True  # requests carry the tools the case calls

    def __init__(self, parser_cls: Any, tokenizer: Any = None) -> None:
        self.parser_cls = parser_cls
        self.tokenizer = tokenizer if tokenizer is not None else _StubTokenizer()
        self.name = f"vLLM {parser_cls.__name__}"

    def __call__(self, tools: Optional[List[Dict[str, Any]]] = None) -> _VLLMParser:
        return _VLLMParser(self.parser_cls, self.tokenizer, tools)


# ----- SGLang -----


class _Delta:
    """A delta in the shape ``check`` reads (as toolparse's ``DeltaMessage``)."""

    def __init__(self, content: Optional[str], tool_calls: List[Dict[str, Any]]) -> None:
        self.content = content
        self.tool_calls = tool_calls

    def __repr__(self) -> str:
        return f"Delta(content={self.content!r}, tool_calls={self.tool_calls!r})"


class _Info:
    def __init__(self, content: Optional[str], tool_calls: List[Dict[str, Any]]) -> None:
        self.content = content
        self.tool_calls = tool_calls
        self.tools_called = bool(tool_calls)


class _SGLangStream:
    def __init__(self, owner: _SGLangParser) -> None:
        self.owner = owner
        self.detector = owner.new_detector()
        self.started: Dict[int, int] = {}  # SGLang's tool_index -> call index

    def _delta(self, result: Any) -> Optional[_Delta]:
        calls: List[Dict[str, Any]] = []
        for item in result.calls or []:
            if item.name:
                index = len(self.started)
                self.started[item.tool_index] = index
                calls.append(
                    {
                        "index": index,
                        "id": f"call_{index}",
                        "type": "function",
                        "function": {"name": item.name, "arguments": item.parameters or ""},
                    }
                )
            elif item.parameters:
                index = self.started.get(item.tool_index, item.tool_index)
                calls.append({"index": index, "function": {"arguments": item.parameters}})
        if not result.normal_text and not calls:
            return None
        return _Delta(result.normal_text or None, calls)

    def feed(self, delta: str) -> Optional[_Delta]:
        return self._delta(self.detector.parse_streaming_increment(delta, self.owner.tools))

    def finish(self) -> Optional[_Delta]:
        finish = getattr(self.detector, "finish", None)
        return None if finish is None else self._delta(finish(self.owner.tools))


class _SGLangParser:
    def __init__(self, detector: Any, tools: Optional[List[Dict[str, Any]]]) -> None:
        from sglang.srt.entrypoints.openai.protocol import Tool

        self.detector = detector
        self.tools = [Tool.model_validate(t) for t in tools or []]

    def new_detector(self) -> Any:
        if isinstance(self.detector, type):
            return self.detector()
        return copy.deepcopy(self.detector)

    def extract_tool_calls(self, text: str) -> _Info:
        result = self.new_detector().detect_and_parse(text, self.tools)
        calls = [
            {"function": {"name": c.name, "arguments": c.parameters}} for c in result.calls or []
        ]
        return _Info(result.normal_text or None, calls)

    def stream(self) -> _SGLangStream:
        return _SGLangStream(self)


class from_sglang:  # noqa: N801
    """``check(from_sglang(Qwen25Detector), cases)``: an SGLang format detector (a class, or an
    instance that is copied fresh per case and per stream) driven as SGLang's
    ``FunctionCallParser`` drives it (``detect_and_parse`` / ``parse_streaming_increment`` and
    ``finish``); a call's id is made up (``call_N``) as SGLang's server does after the detector."""

    needs_all_tools = True  # SGLang drops calls to functions not among the tools

    def __init__(self, detector: Any) -> None:
        self.detector = detector
        cls = detector if isinstance(detector, type) else type(detector)
        self.name = f"SGLang {cls.__name__}"

    def __call__(self, tools: Optional[List[Dict[str, Any]]] = None) -> _SGLangParser:
        return _SGLangParser(self.detector, tools)
