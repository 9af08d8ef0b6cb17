"""vLLM requests of every tool-calling shape (chat completions and Responses; no tools, auto,
none, required, a named function), and a tokenizer vLLM's own parsers can be built with, for the
tests that compare toolparse's parsers with vLLM's parsers of the same name."""

from __future__ import annotations

from typing import Any, Dict, Iterator, List, Optional, Tuple

from toolparse.testing.adapters import _StubTokenizer
from vllm.entrypoints.openai.chat_completion.protocol import ChatCompletionRequest
from vllm.entrypoints.openai.responses.protocol import ResponsesRequest

MESSAGES = [{"role": "user", "content": "hi"}]
TOOL_CHOICES = ("auto", "none", "required", "named")


class Tokenizer(_StubTokenizer):
    """Just what vLLM's parser construction and streaming read of a tokenizer: toolparse parsers
    look at text only (the conformance kit's stub)."""

    name_or_path = "mock"


TOKENIZER = Tokenizer()


def chat_tools(tools: List[Dict[str, Any]]) -> List[Dict[str, Any]]:
    """OpenAI chat tools as given (``{"type": "function", "function": {...}}``)."""
    return [dict(t) for t in tools]


def responses_tools(tools: List[Dict[str, Any]]) -> List[Dict[str, Any]]:
    """The same tools as Responses function tools (``{"type": "function", "name": ...}``)."""
    return [{"type": "function", **t["function"]} for t in tools]


def chat_request(
    tools: Optional[List[Dict[str, Any]]], choice: str = "auto", **extra: Any
) -> ChatCompletionRequest:
    """A chat completion request; ``choice`` "named" names the first tool."""
    if not tools:
        return ChatCompletionRequest(model="m", messages=MESSAGES, **extra)
    tool_choice: Any = choice
    if choice == "named":
        tool_choice = {"type": "function", "function": {"name": tools[0]["function"]["name"]}}
    return ChatCompletionRequest(
        model="m", messages=MESSAGES, tools=chat_tools(tools), tool_choice=tool_choice, **extra
    )


def responses_request(
    tools: Optional[List[Dict[str, Any]]], choice: str = "auto", **extra: Any
) -> ResponsesRequest:
    """A Responses request; ``choice`` "named" is a ``ToolChoiceFunction`` naming the first
    tool."""
    if not tools:
        return ResponsesRequest(model="m", input="hi", **extra)
    tool_choice: Any = choice
    if choice == "named":
        tool_choice = {"type": "function", "name": tools[0]["function"]["name"]}
    return ResponsesRequest(
        model="m", input="hi", tools=responses_tools(tools), tool_choice=tool_choice, **extra
    )


def every_request(tools: List[Dict[str, Any]]) -> Iterator[Tuple[str, Any]]:
    """(label, fresh request) for both APIs: without tools, then every tool choice."""
    for api, make in (("chat", chat_request), ("responses", responses_request)):
        yield f"{api} without tools", make(None)
        for choice in TOOL_CHOICES:
            yield f"{api} {choice}", make(tools, choice)


class _AnyVocab(Dict[str, int]):
    """A vocabulary holding every token: vLLM's parsers look their markers up at construction."""

    def __missing__(self, key: str) -> int:
        return 7

    def __contains__(self, key: object) -> bool:
        return True

    def get(self, key: str, default: Any = None) -> int:  # type: ignore[override]
        return 7


class PermissiveTokenizer(Tokenizer):
    """Enough of a tokenizer for vLLM's own tool parsers to be built (they only look up their
    markers' ids); nothing is decoded."""

    def get_vocab(self) -> Dict[str, int]:
        return _AnyVocab()

    @property
    def vocab(self) -> Dict[str, int]:
        return _AnyVocab()

    def convert_tokens_to_ids(self, tokens: Any) -> Any:
        return [7] * len(tokens) if isinstance(tokens, list) else 7

    def convert_ids_to_tokens(self, ids: Any) -> Any:
        return ["x"] * len(ids) if isinstance(ids, list) else "x"
