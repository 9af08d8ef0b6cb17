"""The template test's data (tests/test_templates.py, tests/integrations/test_template_grammar.py):
which toolparse format (and reasoning format) each vendored llama.cpp chat template's model writes,
or why it is out of scope; the assistant turns rendered through each; the known failures.

A turn's text is what :func:`toolparse.chat_template.render_assistant` says the template adds for
it: the conversation with the turn past the conversation up to its generation prompt, less the
stop token. The shapes cover one and two calls, nested objects, arrays, numbers, booleans, null,
unicode, an empty argument list, content before the call and reasoning before the call.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any, Dict, List, Optional, Tuple

from toolparse import chat_template as ct
from toolparse import spec as tp_spec

FOLDER = Path(__file__).parent / "fixtures" / "templates" / "llama.cpp"


@dataclass(frozen=True)
class InScope:
    """A template whose model writes ``fmt`` (with the reasoning format ``reasoning``).

    ``eos`` is the tokenizer's EOS (for templates that write ``eos_token``), ``prefix`` the
    render_assistant prefix mode ("common" where the generation prompt pre-fills text the turn
    does not repeat), ``kwargs`` template variables."""

    fmt: str
    reasoning: Optional[str] = None
    eos: str = ""
    prefix: str = "auto"
    kwargs: Tuple[Tuple[str, Any], ...] = ()
    end_tokens: Tuple[str, ...] = ()  # stop tokens past the defaults


@dataclass(frozen=True)
class OutOfScope:
    reason: str


NO_TOOLS = "the template has no tool-call syntax"
NO_CALL = "the template renders no call for an assistant turn with tool_calls"

# every vendored template: the format its model writes, or why it is out of scope
TEMPLATES: Dict[str, Any] = {
    "Apertus-8B-Instruct": InScope("apertus", "apertus2509"),
    "Apriel-1.6-15b-Thinker-fixed": InScope("apriel", "apriel"),
    "Bielik-11B-v3.0-Instruct": InScope("hermes", "qwen3"),
    "ByteDance-Seed-OSS": InScope("seed_oss", "seed_oss"),
    "Cohere2MoE": InScope("cohere_command4", "cohere_command4"),
    "CohereForAI-c4ai-command-r-plus-tool_use": InScope("command_r"),
    "CohereForAI-c4ai-command-r7b-12-2024-tool_use": InScope("cohere_command3", "cohere_command3"),
    "GLM-4.6": InScope("glm45", "glm45"),
    "GLM-4.7-Flash": InScope("glm47", "glm45"),
    "GigaChat3-10B-A1.8B": InScope("gigachat3"),
    "GigaChat3.1-10B-A1.8B": InScope("gigachat3"),
    "HuggingFaceTB-SmolLM3-3B": OutOfScope(NO_CALL),
    "Kimi-K2-Instruct": InScope("kimi_k2"),
    "Kimi-K2-Thinking": InScope("kimi_k2", "kimi_k2"),
    "Kimi-K3": InScope("kimi_k3", "kimi_k3"),
    "LFM2-8B-A1B": OutOfScope(NO_CALL),
    "LFM2.5-8B-A1B": InScope("lfm2", "qwen3"),
    "LFM2.5-Instruct": OutOfScope(NO_CALL),
    "MiMo-VL": InScope("hermes", "qwen3"),
    "MiniMax-M1": OutOfScope(
        "MiniMax-M1's <tool_calls> JSON lines: a format toolparse does not read"
    ),
    "MiniMax-M2": InScope("minimax_m2", "minimax_m2"),
    "MiniMax-M3": InScope("minimax_m3", "minimax_m3"),
    "Mistral-Small-3.2-24B-Instruct-2506": InScope("mistral", eos="</s>"),
    "NVIDIA-Nemotron-3-Nano-30B-A3B-BF16": InScope("qwen3_coder", "nemotron_v3"),
    "NVIDIA-Nemotron-Nano-v2": InScope("nemotron_nano_v2", "qwen3"),
    "NousResearch-Hermes-2-Pro-Llama-3-8B-tool_use": InScope("hermes"),
    "NousResearch-Hermes-3-Llama-3.1-8B-tool_use": InScope("hermes"),
    "Qwen-QwQ-32B": InScope("hermes", "qwen3"),
    "Qwen-Qwen2.5-7B-Instruct": InScope("hermes"),
    "Qwen-Qwen3-0.6B": InScope("hermes", "qwen3"),
    "Qwen3-Coder": InScope("qwen3_coder"),
    "Qwen3.5-4B": InScope("qwen3_xml", "qwen3"),
    "Reka-Edge": InScope("hermes", "qwen3"),
    "Spark2.5": InScope("spark25", "glm45"),
    "StepFun3.5-Flash": InScope("step3p5", "step3p5"),
    "deepseek-ai-DeepSeek-R1-Distill-Llama-8B": OutOfScope(NO_TOOLS),
    "deepseek-ai-DeepSeek-R1-Distill-Qwen-32B": InScope(
        "deepseek_v3",
        "deepseek_r1",
        eos="<｜end▁of▁sentence｜>",
        end_tokens=("<｜Assistant｜>",),  # written after a turn with calls
    ),
    "deepseek-ai-DeepSeek-V3.1": InScope("deepseek_v31", "deepseek_v3"),
    "deepseek-ai-DeepSeek-V3.2": OutOfScope(
        "uses llama.cpp's from_json filter, which transformers' environment does not have"
    ),
    "deepseek-ai-DeepSeek-V4-Flash-0731": InScope("deepseek_v4", "deepseek_v4"),
    "deepseek-ai-DeepSeek-V4": InScope("deepseek_v4", "deepseek_v4"),
    "fireworks-ai-llama-3-firefunction-v2": InScope(
        "phi4_mini_json", kwargs=(("functions", ""), ("datetime", "2024-01-01"))
    ),
    "google-gemma-2-2b-it": OutOfScope(NO_TOOLS),
    "google-gemma-4-31B-it-interleaved": InScope(
        "gemma4", "gemma4", kwargs=(("enable_thinking", True),)
    ),
    "google-gemma-4-31B-it": InScope("gemma4", "gemma4", kwargs=(("enable_thinking", True),)),
    "ibm-granite-granite-3.3-2B-Instruct": OutOfScope(NO_CALL),
    "ibm-granite-granite-4.0": InScope("granite4"),
    "ibm-granite-granite-4.1": InScope("granite4"),
    "inclusionai-ling-3.0-flash": InScope("ling3", "glm45"),
    "llama-cpp-deepseek-r1": InScope("deepseek_v3", "deepseek_r1", eos="<｜end▁of▁sentence｜>"),
    "llama-cpp-rwkv-world": OutOfScope(NO_TOOLS),
    "meetkai-functionary-medium-v3.1": InScope("functionary_v31"),
    "meetkai-functionary-medium-v3.2": InScope("functionary_v32"),
    "meta-llama-Llama-3.1-8B-Instruct": InScope("llama3_json"),
    "meta-llama-Llama-3.2-3B-Instruct": InScope("llama3_json"),
    "meta-llama-Llama-3.3-70B-Instruct": InScope("llama3_json"),
    "microsoft-Phi-3.5-mini-instruct": OutOfScope(NO_TOOLS),
    "mistralai-Ministral-3-14B-Reasoning-2512": InScope("mistral", "mistral", eos="</s>"),
    "mistralai-Mistral-Nemo-Instruct-2407": InScope("mistral", eos="</s>"),
    "moonshotai-Kimi-K2": InScope("kimi_k2"),
    "muse-glimmer": InScope("muse_glimmer", "muse_glimmer"),
    "openai-gpt-oss-120b": InScope("openai", "openai_gptoss"),
    "openbmb-MiniCPM5-1B": InScope("minicpm5", "qwen3"),
    "poolside-Laguna-S-2.1": InScope("poolside_v1", "poolside_v1"),
    "poolside-Laguna-XS-2.1": InScope("poolside_v1", "poolside_v1"),
    "poolside-Laguna-XS.2": InScope("poolside_v1", "poolside_v1"),
    "tencent-Hy3": InScope("hy_v3", "hy_v3", end_tokens=("<｜hy_eos:opensource｜>",)),
    "unsloth-Apriel-1.5": InScope("apriel", "apriel"),
    "unsloth-mistral-Devstral-Small-2507": InScope("mistral", eos="</s>"),
    "upstage-Solar-Open-100B": OutOfScope(
        "Solar Open's <|tool_call:begin|> calls: a format toolparse does not read"
    ),
}


def _tool(name: str, properties: Dict[str, Any], required: Tuple[str, ...] = ()) -> Dict[str, Any]:
    params = {"type": "object", "properties": properties, "required": list(required)}
    return {
        "type": "function",
        "function": {"name": name, "description": f"The {name} tool.", "parameters": params},
    }


def _described(schema: Dict[str, Any], what: str) -> Dict[str, Any]:
    return {**schema, "description": what}


TOOLS: List[Dict[str, Any]] = [
    _tool(
        "get_weather",
        {
            "city": _described({"type": "string"}, "The city."),
            "days": _described({"type": "integer"}, "How many days."),
        },
        ("city",),
    ),
    _tool("get_time", {}),
    _tool(
        "search",
        {
            "query": _described({"type": "string"}, "What to look for."),
            "filters": _described(
                {
                    "type": "object",
                    "properties": {
                        "price": {
                            "type": "object",
                            "properties": {"min": {"type": "number"}, "max": {"type": "number"}},
                        },
                        "in_stock": {"type": "boolean"},
                    },
                    "additionalProperties": False,  # command-r's template reads it
                },
                "Filters.",
            ),
            "tags": _described({"type": "array", "items": {"type": "string"}}, "Tags."),
            "scores": _described({"type": "array", "items": {"type": "number"}}, "Scores."),
            "limit": _described({"type": "integer"}, "The most results."),
            "ratio": _described({"type": "number"}, "A ratio."),
            "offset": _described({"type": "integer"}, "Where to start."),
            "exact": _described({"type": "boolean"}, "Exact match."),
            "fuzzy": _described({"type": "boolean"}, "Fuzzy match."),
            # not ["string", "null"]: Hermes' template recurses forever on a list of types
            "cursor": _described(
                {"anyOf": [{"type": "string"}, {"type": "null"}]}, "The page cursor or null."
            ),
        },
        ("query",),
    ),
]

Call = Tuple[str, Dict[str, Any]]


@dataclass(frozen=True)
class Shape:
    calls: Tuple[Call, ...]
    content: Optional[str] = None
    reasoning: Optional[str] = None
    needs_reasoning: bool = field(default=False)


WEATHER: Call = ("get_weather", {"city": "Paris", "days": 3})
SHAPES: Dict[str, Shape] = {
    "one_call": Shape((WEATHER,)),
    "two_calls": Shape((WEATHER, ("get_time", {}))),
    "nested": Shape(
        (("search", {"query": "shoes", "filters": {"price": {"min": 10, "max": 99.5}}}),)
    ),
    "arrays": Shape((("search", {"query": "x", "tags": ["red", "green"], "scores": [1, 2.5]}),)),
    "numbers": Shape((("search", {"query": "n", "limit": 10, "ratio": 0.25, "offset": -3}),)),
    "booleans": Shape((("search", {"query": "b", "exact": True, "fuzzy": False}),)),
    "null": Shape((("search", {"query": "z", "cursor": None}),)),
    "unicode": Shape((("get_weather", {"city": 'Zürich — 東京 🌧 "q"'}),)),
    "empty_args": Shape((("get_time", {}),)),
    "content_before": Shape((WEATHER,), content="Let me check the weather."),
    "reasoning_before": Shape(
        (WEATHER,), reasoning="The user wants the weather in Paris.", needs_reasoning=True
    ),
}


def shapes_for(name: str) -> List[str]:
    entry = TEMPLATES[name]
    return [s for s, shape in SHAPES.items() if entry.reasoning or not shape.needs_reasoning]


def in_scope() -> List[str]:
    return [n for n, e in TEMPLATES.items() if isinstance(e, InScope)]


def template_text(name: str) -> str:
    return (FOLDER / f"{name}.jinja").read_text(encoding="utf-8")


@cache
def rendered(name: str, shape_name: str) -> ct.RenderedTurn:
    """The turn of ``shape_name`` as the template ``name`` writes it (in this process: the
    templates are ours; the bounded render is tested in tests/test_chat_template.py)."""
    entry: InScope = TEMPLATES[name]
    shape = SHAPES[shape_name]
    calls = [{"type": "function", "function": {"name": n, "arguments": a}} for n, a in shape.calls]
    return ct.render_assistant(
        template_text(name),
        content=shape.content,
        reasoning=shape.reasoning,
        tool_calls=calls,
        tools=TOOLS,
        eos_token=entry.eos,
        end_tokens=(*ct.DEFAULT_END_TOKENS, *entry.end_tokens),
        prefix=entry.prefix,
        bounded=False,
        **dict(entry.kwargs),
    )


def reasoning_started(name: str, turn: ct.RenderedTurn) -> Optional[bool]:
    """Whether the generation prompt opens the reasoning block (None: no reasoning format, or one
    whose tool format separates the reasoning itself)."""
    entry: InScope = TEMPLATES[name]
    if entry.reasoning is None:
        return None
    start = tp_spec.REASONING[tp_spec.reasoning_canonical(entry.reasoning)].start
    if not start:
        return None
    return turn.prompt.rstrip().endswith(start.strip())


def expected_calls(shape_name: str) -> List[Tuple[str, Any]]:
    return [(n, json.loads(json.dumps(a))) for n, a in SHAPES[shape_name].calls]


def expected_text(given: Optional[str], turn: ct.RenderedTurn) -> str:
    """The content or reasoning the parser should find: what the turn was given, if the template
    wrote it (templates drop the content of a turn with calls, or its reasoning), else none."""
    return given if given and given in turn.text else ""
