"""Many tokens per delta through SGLang 0.5.23's serving code (speculative decoding, multi-token
prediction, ``--stream-interval``): every format, deltas of 1, 2, 4, 8 and 32 tokens and the whole
output, texts with several calls (delta_sizes.py says which and how they are cut).

Streaming is test_sglang.py's drive of ``OpenAIServingChat``'s tool-call steps, compiled from
SGLang's installed ``serving_chat.py`` (``_process_tool_call_stream`` per engine chunk, then
``_check_for_unstreamed_tool_args`` and the finish_reason rule), its SSE chunks rebuilt by an
OpenAI-client stand-in; non-streaming is its ``_process_tool_calls``. Each splitting's message must
be the non-streamed one (content, names, arguments, ids where they are not random, indices) with
finish_reason "tool_calls".

The default run samples the phases of the deltas and one form of each kind of text;
``-m exhaustive`` runs every phase, every form and both tokenizations at every size.
"""

from __future__ import annotations

from typing import Any, Dict, List

import pytest

try:  # under the torch stand-in, SGLang imports only after vLLM
    import vllm.tool_parsers  # noqa: F401
except Exception:  # noqa: BLE001 - vLLM absent or not importable: SGLang may still be
    pass

pytest.importorskip("sglang.srt.function_call.function_call_parser")

import delta_sizes  # noqa: E402
import test_sglang as served  # noqa: E402  (its serving drive, OpenAI client and backend fixture)
from delta_sizes import Served  # noqa: E402
from toolparse.integrations import sglang as tp_sglang  # noqa: E402

backend = served.backend  # the fixture: SGLang's registry holds one toolparse backend's detectors


def stream(fmt: str, tools: List[Dict[str, Any]], chunks: List[str]) -> Served:
    name = tp_sglang.PREFIX + fmt
    client, finish, _ = served.serve_stream(
        served.Serving(name), served.chat_request(tools), chunks
    )
    calls = [(c["id"], c["name"], c["arguments"]) for c in client.calls]
    client.result()  # checks the ids are unique
    # the client stand-in checked that each call's first delta has the next index
    return Served(client.content or None, calls, list(range(len(calls))), finish)


def extract(fmt: str, tools: List[Dict[str, Any]], text: str) -> Served:
    serving = served.Serving(tp_sglang.PREFIX + fmt)
    request = served.chat_request(tools, stream=False)
    finish_reason = {"type": "stop", "matched": None}
    calls, content, finish = serving._process_tool_calls(
        text, request.tools, finish_reason, request.tool_choice
    )
    got = [(c.id, c.function.name, c.function.arguments) for c in calls or []]
    assert finish["type"] == ("tool_calls" if got else "stop"), text
    return Served(content or None, got, [c.index for c in calls or []])


test_many_tokens_per_delta, test_many_tokens_per_delta_every_phase = delta_sizes.server_tests(
    stream, extract
)
