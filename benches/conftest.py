"""Benchmark corpus: one large tool call rendered in each format's wire text, the deltas it is
streamed in, and the four ways of running a parser that the benches compare.

Also imported (by path, as a plain module) by ``bench_formats.py --report``, so nothing here needs
pytest.
"""

from __future__ import annotations

import json
from typing import Any, Callable, Dict, List, Optional, Tuple

import toolparse
from toolparse import _core, reference

# the call, its tools and its content argument are the ones `toolparse bench` times
from toolparse.bench.outputs import CALL_NAME, PATH, TOOLS, argument_text

KB = 1024
SIZES = {"1KB": 1 * KB, "16KB": 16 * KB, "64KB": 64 * KB}
DELTA_CHARS = 4

# what the core parsers take: function name -> parameter name -> the JSON Schema types it admits
TYPES: Dict[str, Dict[str, List[str]]] = {CALL_NAME: {"path": ["string"], "content": ["string"]}}


def _j(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)


def _py(args: Dict[str, Any]) -> str:
    return ", ".join(f"{k}={v!r}" for k, v in args.items())


def _xml(value: Any) -> str:
    return value if isinstance(value, str) else _j(value)


Renderer = Callable[[str, Dict[str, Any]], str]

# The wire text of ONE call (name, arguments) for each format in the catalogue. Benches run for
# the registered formats that have a renderer here.
RENDER: Dict[str, Renderer] = {
    "hermes": lambda n, a: f"<tool_call>\n{_j({'name': n, 'arguments': a})}\n</tool_call>",
    "granite4": lambda n, a: f"<tool_call>\n{_j({'name': n, 'arguments': a})}\n</tool_call>",
    "longcat": lambda n, a: (
        f"<longcat_tool_call>{_j({'name': n, 'arguments': a})}</longcat_tool_call>"
    ),
    "mistral": lambda n, a: f"[TOOL_CALLS]{n}{_j(a)}",
    "llama3_json": lambda n, a: f"<|python_tag|>{_j({'name': n, 'parameters': a})}",
    "pythonic": lambda n, a: f"[{n}({_py(a)})]",
    "llama4_pythonic": lambda n, a: f"<|python_start|>[{n}({_py(a)})]<|python_end|>",
    "olmo3": lambda n, a: f"<function_calls>{n}({_py(a)})</function_calls>",
    "lfm2": lambda n, a: f"<|tool_call_start|>[{n}({_py(a)})]<|tool_call_end|>",
    "qwen3_coder": lambda n, a: (
        f"<tool_call>\n<function={n}>\n"
        + "".join(f"<parameter={k}>\n{_xml(v)}\n</parameter>\n" for k, v in a.items())
        + "</function>\n</tool_call>"
    ),
    "seed_oss": lambda n, a: (
        f"<seed:tool_call>\n<function={n}>\n"
        + "".join(f"<parameter={k}>{_xml(v)}</parameter>\n" for k, v in a.items())
        + "</function>\n</seed:tool_call>"
    ),
    "minimax_m2": lambda n, a: (
        f'<minimax:tool_call>\n<invoke name="{n}">\n'
        + "".join(f'<parameter name="{k}">{_xml(v)}</parameter>\n' for k, v in a.items())
        + "</invoke>\n</minimax:tool_call>"
    ),
    "glm45": lambda n, a: (
        f"<tool_call>{n}\n"
        + "".join(
            f"<arg_key>{k}</arg_key>\n<arg_value>{_xml(v)}</arg_value>\n" for k, v in a.items()
        )
        + "</tool_call>"
    ),
    "glm47": lambda n, a: (
        f"<tool_call>{n}"
        + "".join(f"<arg_key>{k}</arg_key><arg_value>{_xml(v)}</arg_value>" for k, v in a.items())
        + "</tool_call>"
    ),
    "openai": lambda n, a: (
        f"<|channel|>commentary to=functions.{n} <|constrain|>json<|message|>{_j(a)}<|call|>"
    ),
    "deepseek_v3": lambda n, a: (
        f"<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>{n}\n```json\n{_j(a)}"
        "\n```<｜tool▁call▁end｜><｜tool▁calls▁end｜>"
    ),
    "deepseek_v31": lambda n, a: (
        f"<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>{n}<｜tool▁sep｜>{_j(a)}"
        "<｜tool▁call▁end｜><｜tool▁calls▁end｜>"
    ),
    "deepseek_v32": lambda n, a: (
        f'<｜DSML｜function_calls><｜DSML｜invoke name="{n}">'
        + "".join(
            f'<｜DSML｜parameter name="{k}" string="true">{v}</｜DSML｜parameter>'
            for k, v in a.items()
        )
        + "</｜DSML｜invoke></｜DSML｜function_calls>"
    ),
    "kimi_k2": lambda n, a: (
        f"<|tool_calls_section_begin|><|tool_call_begin|>functions.{n}:0"
        f"<|tool_call_argument_begin|>{_j(a)}<|tool_call_end|><|tool_calls_section_end|>"
    ),
    "granite": lambda n, a: f"<|tool_call|>{_j([{'name': n, 'arguments': a}])}",
    "internlm": lambda n, a: (
        f"<|action_start|><|plugin|>\n{_j({'name': n, 'parameters': a})}<|action_end|>"
    ),
    "jamba": lambda n, a: f"<tool_calls>{_j([{'name': n, 'arguments': a}])}</tool_calls>",
    "hunyuan_a13b": lambda n, a: f"<tool_calls>{_j([{'name': n, 'arguments': a}])}</tool_calls>",
    "xlam": lambda n, a: _j([{"name": n, "arguments": a}]),
    "phi4_mini_json": lambda n, a: f"functools{_j([{'name': n, 'arguments': a}])}",
    "step3": lambda n, a: (
        "<｜tool_calls_begin｜><｜tool_call_begin｜>function<｜tool_sep｜>"
        f'<steptml:invoke name="{n}">'
        + "".join(f'<steptml:parameter name="{k}">{v}</steptml:parameter>' for k, v in a.items())
        + "</steptml:invoke><｜tool_call_end｜><｜tool_calls_end｜>"
    ),
    "gigachat3": lambda n, a: f"function call<|role_sep|>\n{_j({'name': n, 'arguments': a})}",
    "functiongemma": lambda n, a: (
        f"<start_function_call>call:{n}{{"
        + ",".join(f"{k}:<escape>{v}<escape>" for k, v in a.items())
        + "}<end_function_call>"
    ),
    # the JSON-like variant formats
    "qwen3_json": lambda n, a: f"<tool_call>\n{_j({'name': n, 'arguments': a})}\n</tool_call>",
    "llama4_json": lambda n, a: f"<|python_tag|>{_j({'name': n, 'parameters': a})}",
    "ernie45": lambda n, a: f"<tool_call>\n{_j({'name': n, 'arguments': a})}\n</tool_call>\n",
    "granite-20b-fc": lambda n, a: f"<function_call> {_j({'name': n, 'arguments': a})}",
    "apertus": lambda n, a: f"<|tools_prefix|>{_j([{n: a}])}<|tools_suffix|>",
    "apriel": lambda n, a: f"<tool_calls>{_j([{'name': n, 'arguments': a}])}</tool_calls>",
    "command_r": lambda n, a: (
        "Action:\n```json\n" + _j([{"tool_name": n, "parameters": a}]) + "\n```"
    ),
    "nemotron_nano_v2": lambda n, a: f"<TOOLCALL>{_j([{'name': n, 'arguments': a}])}</TOOLCALL>",
    "functionary_v31": lambda n, a: f"<function={n}>{_j(a)}</function>",
    "functionary_v32": lambda n, a: f"{n}\n{_j(a)}",
    "cohere_command3": lambda n, a: (
        "<|START_ACTION|>"
        + _j([{"tool_call_id": "0", "tool_name": n, "parameters": a}])
        + "<|END_ACTION|>"
    ),
    "cohere_command4": lambda n, a: (
        "<|START_ACTION|>"
        + _j([{"tool_call_id": "0", "tool_name": n, "parameters": a}])
        + "<|END_ACTION|>"
    ),
    "dots": lambda n, a: (
        f'<dots_function_call>\n<invoke name="{n}">\n'
        + "".join(f'<parameter name="{k}">{_xml(v)}</parameter>\n' for k, v in a.items())
        + "</invoke>\n</dots_function_call>"
    ),
    "gigachat35": lambda n, a: (
        f'<｜GCML｜tool_calls><｜GCML｜invoke name="{n}">'
        + "".join(
            f'<｜GCML｜parameter name="{k}" string="true">{v}</｜GCML｜parameter>'
            for k, v in a.items()
        )
        + "</｜GCML｜invoke></｜GCML｜tool_calls>"
    ),
}


# variant formats that are spec entries in existing families
_PL = "<|plamo:"
RENDER.update(
    {
        "gemma4": lambda n, a: (
            f"<|tool_call>call:{n}{{"
            + ",".join(f'{k}:<|"|>{v}<|"|>' for k, v in a.items())
            + "}<tool_call|>"
        ),
        "plamo3": lambda n, a: (
            f"{_PL}begin_tool_requests:plamo|>{_PL}begin_tool_request:plamo|>"
            f"{_PL}begin_tool_name:plamo|>{n}{_PL}end_tool_name:plamo|>"
            f"{_PL}begin_tool_arguments:plamo|>{_PL}constrain|>json{_PL}msg|>{_j(a)}"
            f"{_PL}end_tool_arguments:plamo|>{_PL}end_tool_request:plamo|>"
            f"{_PL}end_tool_requests:plamo|>"
        ),
        "ling3": RENDER["glm47"],
        "spark25": RENDER["glm47"],
        "iquest_q1": lambda n, a: (
            "<iquest_tool_call>" + RENDER["glm47"](n, a)[11:-12] + "</iquest_tool_call>"
        ),
        "trinity": RENDER["hermes"],
    }
)

# the XML-like variant formats
RENDER.update(
    {
        "qwen3_xml": RENDER["qwen3_coder"],
        "step3p5": RENDER["qwen3_coder"],
        "step5": RENDER["qwen3_coder"],
        "mimo": lambda n, a: (
            f"<tool_call>\n<function={n}>\n"
            + "".join(f"<parameter={k}>{_xml(v)}</parameter>\n" for k, v in a.items())
            + "</function>\n</tool_call>"
        ),
        "deepseek_v4": lambda n, a: (
            f'<｜DSML｜tool_calls><｜DSML｜invoke name="{n}">'
            + "".join(
                f'<｜DSML｜parameter name="{k}" string="true">{v}</｜DSML｜parameter>'
                for k, v in a.items()
            )
            + "</｜DSML｜invoke></｜DSML｜tool_calls>"
        ),
        "deepseek_v41": lambda n, a: (
            f'<｜DSML｜ calls><｜DSML｜ invoke name="{n}">'
            + "".join(
                f'<｜DSML｜ parameter name="{k}" string="true">{v}</｜DSML｜ parameter>'
                for k, v in a.items()
            )
            + "</｜DSML｜ invoke></｜DSML｜ calls>"
        ),
        "poolside_v1": RENDER["glm45"],
        "hy_v4": lambda n, a: f"<tool_calls>{RENDER['glm47'](n, a)}</tool_calls>",
        "hy_v3": lambda n, a: (
            f"<tool_calls>\n<tool_call>{n}<tool_sep>\n"
            + "".join(
                f"<arg_key>{k}</arg_key>\n<arg_value>{_xml(v)}</arg_value>\n" for k, v in a.items()
            )
            + "</tool_call>\n</tool_calls>"
        ),
        "k2_horizon": lambda n, a: (
            f"<ifm|tool_calls>\n<ifm|tool_call>{n}\n"
            + "".join(
                f"<ifm|arg_key>{k}</ifm|arg_key>\n<ifm|arg_type>string</ifm|arg_type>\n"
                f"<ifm|arg_value>{_xml(v)}</ifm|arg_value>\n"
                for k, v in a.items()
            )
            + "</ifm|tool_call>\n</ifm|tool_calls>"
        ),
        "minicpm5": lambda n, a: (
            f'<function name="{n}">'
            + "".join(f'<param name="{k}">{_xml(v)}</param>' for k, v in a.items())
            + "</function>"
        ),
    }
)

# kimi_k3's XTML: string arguments are raw text between the argument's blocks
RENDER["kimi_k3"] = lambda n, a: (
    f'<|open|>tools<|sep|><|open|>call tool="{n}" index="1"<|sep|>'
    + "".join(
        f'<|open|>argument key="{k}" type="string"<|sep|>{v}<|close|>argument<|sep|>'
        for k, v in a.items()
    )
    + "<|close|>call<|sep|><|close|>tools<|sep|>"
)


# minimax_m3: namespaced XML elements
_MM = "]<]minimax[>["
RENDER["minimax_m3"] = lambda n, a: (
    f'{_MM}<tool_call>\n{_MM}<invoke name="{n}">\n'
    + "".join(f"{_MM}<{k}>{_xml(v)}{_MM}</{k}>\n" for k, v in a.items())
    + f"{_MM}</invoke>\n{_MM}</tool_call>"
)


# inkling: a tool block after the header the prompt opened (its name key is "name", its
# arguments key "args")
RENDER["inkling"] = lambda n, a: (
    f"{n}<|content_invoke_tool_json|>{_j({'name': n, 'args': a})}<|end_message|>"
)
# muse, muse_glimmer: a tool message holding an ATEM call
RENDER.update(
    {
        "muse": lambda n, a: (
            f" to=self<|message|>Writing the file.<|eom|><|start|>assistant to=functions.{n}"
            f'<|message|><atem:function_calls>\n<atem:invoke name="{n}">\n'
            + "".join(f'<atem:parameter name="{k}">{v}</atem:parameter>\n' for k, v in a.items())
            + "</atem:invoke>\n</atem:function_calls><|eom|>"
        ),
    }
)
RENDER["muse_glimmer"] = RENDER["muse"]
# beam: reasoning, then a tool message holding XML parameters
RENDER["beam"] = lambda n, a: (
    "<|channel|>analysis<|message|>Writing the file.<|end|><|start|>assistant"
    f" to={n}<|channel|>analysis <|constrain|>xml<|message|>"
    + "".join(f'<rfl:parameter name="{k}">\n{v}\n</rfl:parameter>' for k, v in a.items())
    + "<|call|>"
)


def bench_formats() -> List[str]:
    """Registered formats that have a renderer, in registry order."""
    return [f for f in toolparse.list_formats() if f in RENDER]


def unrendered_formats() -> List[str]:
    return [f for f in toolparse.list_formats() if f not in RENDER]


def arguments(n_chars: int) -> Dict[str, str]:
    return {"path": PATH, "content": argument_text(n_chars)}


def model_output(fmt: str, n_chars: int) -> str:
    """The wire text of one ``write_file`` call whose ``content`` is ``n_chars`` long."""
    return RENDER[fmt](CALL_NAME, arguments(n_chars))


def split(text: str, size: int = DELTA_CHARS) -> List[str]:
    return [text[i : i + size] for i in range(0, len(text), size)]


# ------------------------------------------------------------------------------------------------
# The four ways of running a parser. Each takes pre-built inputs; nothing is split or rendered
# inside the timed call.
# ------------------------------------------------------------------------------------------------


def stream_core_rust(fmt: str, deltas: List[str]) -> None:
    """The Rust core alone: every delta fed to the state machine in turn (`_core.replay`), no
    Python object per delta."""
    _core.replay(fmt, deltas, TYPES)


def stream_core_python(fmt: str, deltas: List[str]) -> None:
    """The pure-Python twin alone, the same way (`reference.replay`)."""
    reference.replay(fmt, deltas, TYPES)


def stream_feed_rust(fmt: str, deltas: List[str]) -> None:
    """The Rust core through its binding: `_core.Parser.feed` per delta, tuples out, no Pydantic."""
    p = _core.Parser(fmt, TYPES)
    feed = p.feed
    for d in deltas:
        feed(d)
    p.finish()


def stream_feed_python(fmt: str, deltas: List[str]) -> None:
    """The pure-Python twin, `feed` per delta, tuples out."""
    p = reference.Parser(fmt, TYPES)
    feed = p.feed
    for d in deltas:
        feed(d)
    p.finish()


def _stream_api(backend: str) -> Callable[[str, List[str]], None]:
    def run(fmt: str, deltas: List[str]) -> None:
        s = toolparse.get_parser(fmt, tools=TOOLS, backend=backend).stream()
        feed = s.feed
        for d in deltas:
            feed(d)
        s.finish()

    run.__doc__ = f"The public API, backend={backend!r}: DeltaMessage per delta."
    return run


stream_api_rust = _stream_api("rust")
stream_api_python = _stream_api("python")


def extract_core_rust(fmt: str, text: str) -> Any:
    return _core.extract(fmt, text, TYPES)


def extract_core_python(fmt: str, text: str) -> Any:
    return reference.extract(fmt, text, TYPES)


def extract_api_rust(fmt: str, text: str) -> Any:
    return toolparse.get_parser(fmt, tools=TOOLS, backend="rust").extract_tool_calls(text)


def extract_api_python(fmt: str, text: str) -> Any:
    return toolparse.get_parser(fmt, tools=TOOLS, backend="python").extract_tool_calls(text)


IMPLS = ("core_rust", "core_python", "api_rust", "api_python")
STREAM_IMPLS = ("core_rust", "core_python", "feed_rust", "feed_python", "api_rust", "api_python")
STREAM: Dict[str, Callable[[str, List[str]], None]] = {
    "core_rust": stream_core_rust,
    "core_python": stream_core_python,
    "feed_rust": stream_feed_rust,
    "feed_python": stream_feed_python,
    "api_rust": stream_api_rust,
    "api_python": stream_api_python,
}
EXTRACT: Dict[str, Callable[[str, str], Any]] = {
    "core_rust": extract_core_rust,
    "core_python": extract_core_python,
    "api_rust": extract_api_rust,
    "api_python": extract_api_python,
}


def streamed_result(
    fmt: str, deltas: List[str], backend: str
) -> Tuple[Optional[str], List[Tuple[str, str]]]:
    """(content, [(name, arguments)]) rebuilt from the public API's deltas (for checks)."""
    rec = toolparse.StreamingToolReconstructor()
    s = toolparse.get_parser(fmt, tools=TOOLS, backend=backend).stream()
    rec.append_deltas(s.feed(d) for d in deltas)
    rec.append_deltas([s.finish()])
    return rec.other_content or None, [
        (c.function.name, c.function.arguments) for c in rec.tool_calls
    ]
