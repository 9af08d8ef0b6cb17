"""Strict tool calling admits what the models' own chat templates write (issue 29): each text is
rendered from the vendored llama.cpp template where one exists (jinja2, as a server renders the
history), else written as the format's parsers and model card give it. For each: xgrammar admits
it under required (strict parameter) and named choice, and rejects it under named choice of
another function, with ``parallel_tool_calls=False`` when it holds two calls, and with the tools
retyped so its values break the schema; the parser reads it back into the calls the template was
given, streaming and not, on both backends."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Dict, List, NamedTuple, Optional, Tuple

import pytest

pytest.importorskip("vllm.tool_parsers")  # xgrammar needs torch; vLLM's import sets up the stand-in

import jinja2  # noqa: E402
import toolparse  # noqa: E402
import xgrammar  # noqa: E402
from toolparse import spec as tp_spec  # noqa: E402
from xgrammar.testing import _is_grammar_accept_string  # noqa: E402

TEMPLATES = Path(__file__).resolve().parents[1] / "fixtures" / "templates" / "llama.cpp"
BACKENDS = ("rust", "python")
Calls = List[Tuple[str, Dict[str, Any]]]


def render(template: str, calls: Calls, args_as_text: bool = False, **kw: Any) -> str:
    """The conversation a template writes for one assistant turn holding ``calls``."""
    env = jinja2.Environment(extensions=["jinja2.ext.loopcontrols"])
    env.filters["tojson"] = lambda v, **_: json.dumps(v, ensure_ascii=False)
    src = (TEMPLATES / f"{template}.jinja").read_text()
    for tag in ("{% generation %}", "{% endgeneration %}", "{%- generation -%}"):
        src = src.replace(tag, "")
    src = src.replace("{%- endgeneration -%}", "")

    def fail(msg: str) -> None:
        raise ValueError(msg)

    tool_calls = [
        {
            "type": "function",
            "function": {"name": n, "arguments": json.dumps(a) if args_as_text else a},
        }
        for n, a in calls
    ]
    messages = [
        {"role": "user", "content": "hello"},
        {"role": "assistant", "content": None if args_as_text else "", "tool_calls": tool_calls},
        *({"role": "tool", "content": "r"} for _ in calls),
    ]
    return env.from_string(src).render(
        messages=messages,
        tools=[tool(n, {}) for n, _ in calls],
        bos_token="<s>",
        eos_token="</s>",
        add_generation_prompt=False,
        raise_exception=fail,
        **kw,
    )


def between(text: str, start: str, end: str) -> str:
    """The assistant's turn: after the first ``start`` after the user's message, up to ``end``."""
    i = text.index(start, text.index("hello")) + len(start)
    return text[i : text.index(end, i)]


def tool(name: str, props: Dict[str, Any]) -> Dict[str, Any]:
    return {
        "type": "function",
        "function": {
            "name": name,
            "parameters": {"type": "object", "properties": props, "required": list(props)},
        },
    }


class Case(NamedTuple):
    fmt: str
    text: str
    calls: Calls
    props: Dict[str, Any]  # the schema of every called function's parameters
    reasoning: Optional[str] = None
    started: Optional[bool] = None
    auto: bool = True  # auto admits it too (a section left open: required and named only)


ARGS = {"a": "x\ny", "n": None, "d": {"k": None, "t": True}, "l": [1, None, True, "s"]}
ARGS_PROPS = {
    "a": {"type": "string"},
    "n": {"type": ["string", "null"]},
    "d": {"type": "object"},
    "l": {"type": "array"},
}
SIMPLE = {"a": "x", "n": None}
SIMPLE_PROPS = {"a": {"type": "string"}, "n": {"type": ["string", "null"]}}


def _dsml(fmt: str, args: Dict[str, Any]) -> str:
    """The DSML section as the DeepSeek-V3.2 template writes it, in ``fmt``'s markers."""
    m = tp_spec.get_spec(fmt).markers
    params = "".join(
        f"{m['parameter_start']}{k}"
        + (m["parameter_string"] + v if isinstance(v, str) else m["parameter_json"] + json.dumps(v))
        + f"{m['parameter_end']}\n"
        for k, v in args.items()
    )
    return (
        f"{m['call_start']}\n{m['function_start']}f{m['function_name_end']}\n{params}"
        f"{m['function_end']}\n{m['call_end']}"
    )


def _step3(two: bool) -> str:
    sep = "<｜tool_sep｜>"
    one = (
        f"<｜tool_call_begin｜>function{sep}f\n"
        '<steptml:invoke name="f">\n<steptml:parameter name="a">x\ny</steptml:parameter>\n'
        "</steptml:invoke><｜tool_call_end｜>"
    )
    return "<｜tool_calls_begin｜>" + (one + sep + one if two else one) + "<｜tool_calls_end｜>"


def _plamo3() -> str:
    m = tp_spec.get_spec("plamo3").markers
    call = (
        f"{m['call_start']}{m['name_start']}f{m['args_start']}"
        f'{{"a": "x", "n": null}}{m["args_end"]}{m["call_end"]}'
    )
    return m["section_start"] + call + m["section_end"] + "<|plamo:tag|>"


def _r1(args: Dict[str, Any]) -> str:
    return (
        "<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>f\n```json\n"
        + json.dumps(args)
        + "\n```<｜tool▁call▁end｜><｜tool▁calls▁end｜>"
    )


def cases() -> Dict[str, Case]:
    two = [("f", SIMPLE), ("f", {"a": "z", "n": "w"})]
    out = {
        "olmo3_json_literals": Case(
            "olmo3",
            "<function_calls>f(a=null, b=true, c=false)\nf(a='x', b=false, c=true)\n"
            "</function_calls>",
            [("f", {"a": None, "b": True, "c": False}), ("f", {"a": "x", "b": False, "c": True})],
            {"a": {"type": ["string", "null"]}, "b": {"type": "boolean"}, "c": {"type": "boolean"}},
        ),
        "lfm2_raw_string_and_tojson": Case(
            "lfm2",
            between(render("LFM2.5-8B-A1B", [("f", ARGS)]), "assistant\n", "<|im_end|>"),
            [("f", ARGS)],
            ARGS_PROPS,
        ),
        "plamo3_end_of_turn": Case("plamo3", _plamo3(), [("f", SIMPLE)], SIMPLE_PROPS),
        "step3_name_and_separator": Case(
            "step3", _step3(True), [("f", {"a": "x\ny"})] * 2, {"a": {"type": "string"}}
        ),
        "step3_name_one_call": Case(
            "step3", _step3(False), [("f", {"a": "x\ny"})], {"a": {"type": "string"}}
        ),
        "kimi_k3_channels": Case(
            "kimi_k3",
            between(render("Kimi-K3", [("f", ARGS)]), "<|close|>think<|sep|>", "<|end_of_msg|>"),
            [("f", ARGS)],
            ARGS_PROPS,
        ),
        "kimi_k3_channels_two_calls": Case(
            "kimi_k3",
            between(render("Kimi-K3", two), "<|close|>think<|sep|>", "<|end_of_msg|>"),
            two,
            SIMPLE_PROPS,
        ),
        "deepseek_v3_r1_distill_one_call": Case(
            "deepseek_v3",
            between(
                render("deepseek-ai-DeepSeek-R1-Distill-Llama-8B", [("f", SIMPLE)], True),
                "<｜Assistant｜>",
                "<｜tool▁outputs▁begin｜>",
            ),
            [("f", SIMPLE)],
            SIMPLE_PROPS,
            auto=False,
        ),
        "deepseek_v3_r1_distill_two_calls": Case(
            "deepseek_v3",
            between(
                render("deepseek-ai-DeepSeek-R1-Distill-Llama-8B", two, True),
                "<｜Assistant｜>",
                "<｜end▁of▁sentence｜>",
            ),
            two,
            SIMPLE_PROPS,
        ),
        # reasoning: an opener the template does not prefill, an empty block or a bare closer
        "qwen3_opener": Case(
            "hermes",
            "<think>\nplan\n</think>\n\n"
            + between(render("Qwen-Qwen3-0.6B", [("f", SIMPLE)]), "assistant\n", "<|im_end|>"),
            [("f", SIMPLE)],
            SIMPLE_PROPS,
            "qwen3",
        ),
        "kimi_k2_thinking_empty_block": Case(
            "kimi_k2",
            between(
                render("Kimi-K2-Thinking", [("f", SIMPLE)]), "<|im_middle|>", "<|im_end|><|im_sys"
            ),
            [("f", SIMPLE)],
            SIMPLE_PROPS,
            "kimi_k2",
        ),
        "deepseek_r1_0528_opener": Case(
            "deepseek_v3",
            "<think>\nplan\n</think>\n\n" + _r1(SIMPLE),
            [("f", SIMPLE)],
            SIMPLE_PROPS,
            "deepseek_r1",
        ),
        "glm46_empty_block_thinking_off": Case(
            "glm45",
            between(
                render("GLM-4.6", [("f", SIMPLE)], enable_thinking=False),
                "<|assistant|>",
                "<|observation|>",
            ),
            [("f", SIMPLE)],
            SIMPLE_PROPS,
            "glm45",
            False,
        ),
        "minimax_m3_bare_closer": Case(
            "minimax_m3",
            between(render("MiniMax-M3", [("f", {"a": "x"})]), "]~b]ai\n", "[e~["),
            [("f", {"a": "x"})],
            {"a": {"type": "string"}},
            "minimax_m3",
            False,
        ),
        "deepseek_v32_bare_closer": Case(
            "deepseek_v32",
            between(
                render("deepseek-ai-DeepSeek-V3.2", [("f", SIMPLE)]),
                "<｜Assistant｜>",
                "<｜end▁of▁sentence｜>",
            ),
            [("f", SIMPLE)],
            SIMPLE_PROPS,
            "deepseek_v3",
            False,
        ),
    }
    for fmt in ("deepseek_v32", "deepseek_v4", "deepseek_v41"):
        nulls = {"a": "x", "n": None, "i": None}
        props = {**SIMPLE_PROPS, "i": {"type": ["integer", "null"]}}
        out[f"{fmt}_nullable"] = Case(fmt, _dsml(fmt, nulls), [("f", nulls)], props)
    return out


CASES = cases()
OTHER = tool("other", {"z": {"type": "string"}})


def tools_of(case: Case, props: Optional[Dict[str, Any]] = None) -> List[Dict[str, Any]]:
    return [tool("f", props if props is not None else case.props), OTHER]


def admits(case: Case, tools: List[Dict[str, Any]], choice: Any, parallel: bool = True) -> bool:
    if choice not in ("auto", "required"):
        choice = {"type": "function", "function": {"name": choice}}
    tag = toolparse.structural_tag(
        case.fmt,
        tools,
        tool_choice=choice,
        strict="parameter",
        parallel_tool_calls=parallel,
        reasoning=case.reasoning,
        reasoning_started=case.started,
    )
    assert tag is not None
    grammar = xgrammar.Grammar.from_structural_tag(json.dumps(tag))
    return bool(_is_grammar_accept_string(grammar, case.text))


BROKEN = {"string": "integer", "null": "integer", "boolean": "integer", "object": "integer"}
BROKEN.update({"array": "integer", "integer": "boolean"})


def broken(props: Dict[str, Any]) -> Dict[str, Any]:
    """The properties retyped to types none of their values have."""
    out = {}
    for k, p in props.items():
        ty = p["type"]
        out[k] = {"type": "boolean" if isinstance(ty, list) else BROKEN[ty]}
    return out


@pytest.mark.parametrize("label", sorted(CASES))
def test_the_template_text_is_admitted_and_wrong_calls_rejected(label: str) -> None:
    case = CASES[label]
    tools = tools_of(case)
    assert admits(case, tools, "required"), f"required rejects {case.text!r}"
    if case.auto:
        assert admits(case, tools, "auto")
    assert not admits(case, tools, "other"), "named admits another function"
    one = len(case.calls) == 1
    assert admits(case, tools, "f") == one, "named choice: one call"
    assert admits(case, tools, "required", parallel=False) == one, "parallel_tool_calls=False"
    assert not admits(case, tools_of(case, broken(case.props)), "required"), "wrong types"


@pytest.mark.parametrize("label", sorted(CASES))
@pytest.mark.parametrize("backend", BACKENDS)
def test_the_parser_reads_the_template_text_back(label: str, backend: str) -> None:
    case = CASES[label]
    parser = toolparse.get_parser(
        case.fmt,
        tools=tools_of(case),
        backend=backend,
        reasoning=case.reasoning,
        reasoning_started=case.started,
    )
    info = parser.extract_tool_calls(case.text)
    calls = [(c.function.name, json.loads(c.function.arguments)) for c in info.tool_calls]
    assert calls == case.calls
    assert not (info.content or "").strip(), info.content
    for size in (1, 3, 7):
        rec = toolparse.StreamingToolReconstructor()
        stream = parser.stream()
        for i in range(0, len(case.text), size):
            d = stream.feed(case.text[i : i + size])
            if d is not None:
                rec.append_delta(d)
        d = stream.finish()
        if d is not None:
            rec.append_delta(d)
        streamed = [(c.function.name, json.loads(c.function.arguments)) for c in rec.tool_calls]
        assert streamed == case.calls, size


def test_the_rendered_texts_are_the_forms_the_issue_names() -> None:
    """The templates write the forms (a changed template would make these tests vacuous)."""
    assert "a='x\ny'" in CASES["lfm2_raw_string_and_tojson"].text
    assert 'd={"k": null, "t": true}' in CASES["lfm2_raw_string_and_tojson"].text
    k3 = CASES["kimi_k3_channels"].text
    assert k3.startswith("<|open|>response<|sep|><|close|>response<|sep|>")
    assert k3.endswith("<|close|>message<|sep|>")
    assert not CASES["deepseek_v3_r1_distill_one_call"].text.endswith("<｜tool▁calls▁end｜>")
    assert CASES["glm46_empty_block_thinking_off"].text.startswith("\n<think></think>")
    assert CASES["minimax_m3_bare_closer"].text.startswith("</mm:think>")
    assert CASES["deepseek_v32_bare_closer"].text.startswith("</think>")
    assert 'string="false">null' in CASES["deepseek_v32_bare_closer"].text
    assert CASES["kimi_k2_thinking_empty_block"].text.startswith("<think></think>")
