"""SGLang's serving-layer tool-call (and reasoning) code, compiled from its installed source, for
the tests that drive it: ``serving_chat.py`` cannot be imported without torch (its imports reach
model configs and kernels), so the ``OpenAIServingChat`` methods a test names, and
``_incomplete_tool_call_indices``, are compiled here from the installed ``serving_chat.py``
source, unchanged (line numbers kept for tracebacks), and run on SGLang's own protocol models.

Import it after SGLang is known to be importable (``pytest.importorskip``)."""

from __future__ import annotations
import __future__

import ast
import importlib.util
import json
import logging
import os
import subprocess
import sys
import textwrap
import uuid
from typing import Any, Dict, List, Sequence, Tuple

import orjson
from sglang.srt.entrypoints.openai import protocol
from sglang.srt.function_call.core_types import ToolCallItem
from sglang.srt.function_call.function_call_parser import FunctionCallParser
from sglang.srt.function_call.json_array_parser import JsonArrayParser
from sglang.srt.parser.response_template import grammar_holds_calls

# The protocol models those methods name.
_PROTOCOL_NAMES = (
    "ChatCompletionMessageGenericParam",
    "ChatCompletionResponseStreamChoice",
    "ChatCompletionStreamResponse",
    "DeltaMessage",
    "FunctionResponse",
    "ToolCall",
    "ToolCallProcessingResult",
    "ToolChoice",
)

# The ``OpenAIServingChat`` methods of the tool-call path (streaming and not), which the tests
# drive: test_sglang.py these alone, test_sglang_reasoning.py with the reasoning path's.
TOOL_CALL_METHODS = (
    "_process_tool_call_stream",
    "_check_for_unstreamed_tool_args",
    "_process_tool_calls",
    "_process_tool_call_id",
    "_effective_tools",
    "_get_history_tool_calls_cnt",
)


def load_serving_methods(
    class_name: str, methods: Sequence[str], names: Dict[str, Any]
) -> Tuple[type, Any]:
    """A class ``class_name`` holding ``OpenAIServingChat``'s ``methods``, and
    ``_incomplete_tool_call_indices``, compiled from SGLang's ``serving_chat.py`` as they are;
    ``names``: the module globals they read beyond the tool-call path's."""
    spec = importlib.util.find_spec("sglang.srt.entrypoints.openai.serving_chat")
    assert spec is not None and spec.origin
    with open(spec.origin, encoding="utf-8") as f:
        tree = ast.parse(f.read(), spec.origin)
    funcs = [
        n
        for n in tree.body
        if isinstance(n, ast.FunctionDef) and n.name == "_incomplete_tool_call_indices"
    ]
    cls = next(
        n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == "OpenAIServingChat"
    )
    found = [
        n
        for n in cls.body
        if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)) and n.name in methods
    ]
    assert len(funcs) == 1 and {m.name for m in found} == set(methods), (
        "SGLang's serving_chat.py changed shape"
    )
    new_cls = ast.ClassDef(name=class_name, bases=[], keywords=[], body=found, decorator_list=[])
    if "type_params" in ast.ClassDef._fields:  # Python >= 3.12
        new_cls.type_params = []
    module = ast.Module(body=[*funcs, new_cls], type_ignores=[])
    ast.fix_missing_locations(module)
    code = compile(
        module, spec.origin, "exec", flags=__future__.annotations.compiler_flag, dont_inherit=True
    )
    ns: Dict[str, Any] = {
        "__name__": f"sglang_serving_chat_{class_name}",
        "json": json,
        "uuid": uuid,
        "orjson": orjson,
        "logger": logging.getLogger("sglang.srt.entrypoints.openai.serving_chat"),
        "FunctionCallParser": FunctionCallParser,
        "JsonArrayParser": JsonArrayParser,
        "grammar_holds_calls": grammar_holds_calls,
        "ToolCallItem": ToolCallItem,
        **{name: getattr(protocol, name) for name in _PROTOCOL_NAMES},
        **names,
    }
    exec(code, ns)
    return ns[class_name], ns["_incomplete_tool_call_indices"]


# A fresh process's start, as ``sglang serve`` starts: vLLM first (the torch stand-in needs it),
# SGLang's plugins loaded; then what ``before_args`` does, then SGLang's own argument parser
# (``parser``, ``ServerArgs``'s options); then the script's body.
_PRELUDE = textwrap.dedent(
    """
    import argparse, json, sys
    try:
        import vllm.tool_parsers  # the torch stand-in needs vLLM first
    except Exception:
        pass
    import torch
    if getattr(torch, "__file__", None) is None:
        # the peers harness's torch stand-in: server_args' imports subclass (nn.Module, ABC), which
        # needs a metaclass compatible with ABCMeta. Real torch is left alone.
        import abc, torch.nn
        meta = type("StandInABCMeta", (type(torch.nn.Module), abc.ABCMeta), {})
        torch.nn.Module = meta("Module", (), {"__init__": lambda self, *a, **k: None})
    from sglang.srt.plugins import load_plugins
    load_plugins()
    """
)
_SERVER_ARGS = textwrap.dedent(
    """
    from sglang.srt.server_args import ServerArgs
    parser = argparse.ArgumentParser(prog="sglang serve")
    ServerArgs.add_cli_args(parser)
    """
)


def run_startup(
    body: str, *argv: str, before_args: str = "", **env: str
) -> subprocess.CompletedProcess:
    """``body`` run in a fresh process after SGLang's start (see above), with ``argv`` and the
    environment without ``SGLANG_PLUGINS`` plus ``env``."""
    full_env = {k: v for k, v in os.environ.items() if k != "SGLANG_PLUGINS"}
    full_env.update(env)
    script = _PRELUDE + textwrap.dedent(before_args) + _SERVER_ARGS + textwrap.dedent(body)
    return subprocess.run(
        [sys.executable, "-c", script, *argv],
        capture_output=True,
        text=True,
        env=full_env,
        timeout=300,
    )


async def tool_call_chunks(
    serving: Any,
    request: Any,
    delta: str,
    streams: Tuple[Dict[int, Any], Dict[int, bool]],
    content: Dict[str, Any],
    finish: bool,
    flush: bool,
) -> List[str]:
    """The SSE chunks ``_generate_stream_content``'s tool-call step sends for one engine chunk of
    choice 0: ``_process_tool_call_stream`` (``flush`` at a finish that is not an abort), then,
    at the finish, ``_check_for_unstreamed_tool_args``. ``streams``: the parsers and
    has-tool-calls dicts the serving keeps across chunks."""
    parser_dict, has_tool_calls = streams
    sse: List[str] = []
    async for chunk in serving._process_tool_call_stream(
        0, delta, parser_dict, content, request, has_tool_calls, created=0, flush=flush
    ):
        if chunk:
            sse.append(chunk)
    if finish and 0 in parser_dict:
        rest = serving._check_for_unstreamed_tool_args(
            parser_dict[0], content, request, 0, created=0
        )
        if rest:
            sse.append(rest)
    return sse
