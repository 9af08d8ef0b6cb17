"""Many tokens per delta through vLLM 0.33's serving code (speculative decoding, multi-token
prediction, ``--stream-interval``): every format, deltas of 1, 2, 4, 8 and 32 tokens and the whole
output, texts with several calls (delta_sizes.py says which and how they are cut).

Streaming is test_vllm.py's drive of vLLM's ``ChatStreamProcessor.step`` (one step per delta, the
engine's ``stop`` on the last), rebuilt by its OpenAI-client stand-in; non-streaming is vLLM's
``Parser.parse``. Each splitting's message must be the non-streamed one (content, names, arguments,
ids where they are not random, indices), finish_reason "tool_calls", and vLLM's end-of-stream
bookkeeping what was streamed (nothing appended twice).

The default run samples the phases of the deltas (where the engine's steps start relative to the
calls) and one form of each kind of text; ``-m exhaustive`` runs every phase, every form and both
tokenizations at every size.
"""

from __future__ import annotations

from typing import Any, Dict, List

import pytest

pytest.importorskip("vllm.tool_parsers")

import delta_sizes  # noqa: E402
import test_vllm as served  # noqa: E402  (its serving drive, OpenAI client and backend fixture)
from delta_sizes import Served  # noqa: E402
from toolparse.integrations import vllm as tp_vllm  # noqa: E402
from vllm_requests import TOKENIZER  # noqa: E402

backend = served.backend  # the fixture: vLLM's registry holds one toolparse backend's parsers


def stream(fmt: str, tools: List[Dict[str, Any]], chunks: List[str]) -> Served:
    client, finish, parser = served.serve_stream(tp_vllm.PREFIX + fmt, tools, chunks)
    calls = [(c["id"], c["name"], c["args"]) for c in client.calls]
    tp = parser.tool_parser
    assert tp.prev_tool_call_arr == [{"name": n, "arguments": a} for _, n, a in calls], chunks
    assert tp.streamed_args_for_tool == [a for _, _, a in calls], chunks
    # the client stand-in checked that each call's first delta has the next index
    return Served(client.content or None, calls, list(range(len(calls))), finish)


def extract(fmt: str, tools: List[Dict[str, Any]], text: str) -> Served:
    cls = served.parser_cls(tp_vllm.PREFIX + fmt)
    request = served.chat_request(tools)
    parser = cls(TOKENIZER, request.tools, chat_template_kwargs=None, model_config=None)
    _reasoning, content, calls = parser.parse(text, request, enable_auto_tools=True)
    got = [(c.id, c.name, c.arguments) for c in calls or []]
    return Served(content or None, got, list(range(len(got))))


test_many_tokens_per_delta, test_many_tokens_per_delta_every_phase = delta_sizes.server_tests(
    stream, extract
)
