"""detect_format: the format of each vendored llama.cpp chat template whose model toolparse reads,
and why each other template is out.

The table is written from the models' documentation (which parser each model's server uses), not
from detect_format's output. Rendering all 70 templates takes about 90 s on one core: the full run
is ``-m exhaustive``; the default run takes a sample of the table.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

pytest.importorskip("jinja2")

from toolparse import Detection, detect_format, list_formats, list_reasoning_formats  # noqa: E402

TEMPLATES = Path(__file__).parent / "fixtures" / "templates" / "llama.cpp"

HERMES = "hermes"  # Hermes' <tool_call>{json}</tool_call>, read alike by its variants
GLM = "glm45"
QWEN_XML = "qwen3_coder"

# template -> (expected format, reasoning format or None, prompt opens the think block or None);
# the detected format must be the expected one or tie with it (in ``candidates``)
EXPECTED = {
    "Apertus-8B-Instruct": ("apertus", None, None),
    "Apriel-1.6-15b-Thinker-fixed": ("apriel", "apriel", True),
    "Bielik-11B-v3.0-Instruct": (HERMES, "qwen3", True),
    "ByteDance-Seed-OSS": ("seed_oss", "seed_oss", False),
    "Cohere2MoE": ("cohere_command4", "cohere_command4", True),
    # (the template writes its instructions after every conversation; the turn comes before them)
    "CohereForAI-c4ai-command-r-plus-tool_use": ("command_r", None, None),
    "CohereForAI-c4ai-command-r7b-12-2024-tool_use": ("cohere_command3", "cohere_command3", False),
    "Kimi-K3": ("kimi_k3", "kimi_k3", True),
    # both write a turn's first call only (the two-call probe is read as its first call)
    "GigaChat3-10B-A1.8B": ("gigachat3", None, None),
    "GigaChat3.1-10B-A1.8B": ("gigachat3", None, None),
    # writes a call turn's content in the analysis channel, which reads back as reasoning
    "openai-gpt-oss-120b": ("openai", "openai_gptoss", None),
    "google-gemma-4-31B-it": ("gemma4", "gemma4", False),
    "GLM-4.6": (GLM, GLM, False),
    "GLM-4.7-Flash": ("glm47", GLM, True),
    "Kimi-K2-Instruct": ("kimi_k2", None, None),
    "Kimi-K2-Thinking": ("kimi_k2", "kimi_k2", False),
    "LFM2.5-8B-A1B": ("lfm2", "deepseek_r1", False),
    "MiMo-VL": (HERMES, None, None),
    "MiniMax-M2": ("minimax_m2", "minimax_m2", True),
    "MiniMax-M3": ("minimax_m3", "minimax_m3", False),
    "Mistral-Small-3.2-24B-Instruct-2506": ("mistral", None, None),
    "NVIDIA-Nemotron-3-Nano-30B-A3B-BF16": (QWEN_XML, "qwen3", True),
    # the template writes a turn's content and its calls as two turns (probes.split_turns)
    "NVIDIA-Nemotron-Nano-v2": ("nemotron_nano_v2", "deepseek_r1", True),
    "NousResearch-Hermes-2-Pro-Llama-3-8B-tool_use": (HERMES, None, None),
    "NousResearch-Hermes-3-Llama-3.1-8B-tool_use": (HERMES, None, None),
    "Qwen-QwQ-32B": (HERMES, "qwen3", True),
    "Qwen-Qwen2.5-7B-Instruct": (HERMES, None, None),
    "Qwen-Qwen3-0.6B": (HERMES, "qwen3", False),
    "Qwen3-Coder": (QWEN_XML, None, None),
    "Qwen3.5-4B": ("qwen3_xml", "qwen3", True),
    "Reka-Edge": (HERMES, "qwen3", True),
    "Spark2.5": ("spark25", GLM, True),
    "StepFun3.5-Flash": ("step3p5", "qwen3", True),
    "deepseek-ai-DeepSeek-V3.2": ("deepseek_v32", "deepseek_r1", True),
    "deepseek-ai-DeepSeek-V4-Flash-0731": ("deepseek_v4", "deepseek_v4", True),
    "deepseek-ai-DeepSeek-V4": ("deepseek_v4", "deepseek_v4", True),
    "google-gemma-4-31B-it-interleaved": ("gemma4", "gemma4", False),
    "ibm-granite-granite-4.0": ("granite4", None, None),
    "ibm-granite-granite-4.1": ("granite4", None, None),
    "inclusionai-ling-3.0-flash": ("ling3", GLM, True),
    "meetkai-functionary-medium-v3.1": ("functionary_v31", None, None),
    "meetkai-functionary-medium-v3.2": ("functionary_v32", None, None),
    "meta-llama-Llama-3.1-8B-Instruct": ("llama3_json", None, None),
    "meta-llama-Llama-3.2-3B-Instruct": ("llama3_json", None, None),
    "meta-llama-Llama-3.3-70B-Instruct": ("llama3_json", None, None),
    "mistralai-Ministral-3-14B-Reasoning-2512": ("mistral", None, None),
    "mistralai-Mistral-Nemo-Instruct-2407": ("mistral", None, None),
    "moonshotai-Kimi-K2": ("kimi_k2", None, None),
    "muse-glimmer": ("muse_glimmer", "muse", None),
    "openbmb-MiniCPM5-1B": ("minicpm5", "deepseek_r1", True),
    "poolside-Laguna-S-2.1": ("poolside_v1", GLM, True),
    "poolside-Laguna-XS-2.1": ("poolside_v1", GLM, True),
    "poolside-Laguna-XS.2": ("poolside_v1", GLM, True),
    "unsloth-Apriel-1.5": ("apriel", None, None),
    "unsloth-mistral-Devstral-Small-2507": ("mistral", None, None),
    # every special token written with the checkpoint's suffix (<tool_calls:opensource>): read by
    # hy_v3's suffixed variant, reported as hy_v3 with token_suffix ":opensource"; the prompt
    # closes an empty block (thinking off by default)
    "tencent-Hy3": ("hy_v3", "hy_v3", False),
}

NO_TOOLS = "the template does not render tools"
NO_CALL = "the template renders no call in an assistant turn"
UNREAD = "no registered format reads the rendered calls back"

# template -> (the reason detect_format gives, why the template is out)
OUT = {
    "HuggingFaceTB-SmolLM3-3B": (NO_TOOLS, "tools only through xml_tools, not `tools`"),
    "deepseek-ai-DeepSeek-R1-Distill-Llama-8B": (NO_TOOLS, "no tool syntax"),
    "deepseek-ai-DeepSeek-R1-Distill-Qwen-32B": (NO_TOOLS, "no tool syntax"),
    "deepseek-ai-DeepSeek-V3.1": (NO_TOOLS, "tools are the caller's system prompt"),
    "google-gemma-2-2b-it": (NO_TOOLS, "no tool syntax"),
    "llama-cpp-rwkv-world": (NO_TOOLS, "no tool syntax"),
    "microsoft-Phi-3.5-mini-instruct": (NO_TOOLS, "no tool syntax"),
    "LFM2-8B-A1B": (NO_CALL, "past calls are not rendered"),
    "LFM2.5-Instruct": (NO_CALL, "past calls are not rendered"),
    "ibm-granite-granite-3.3-2B-Instruct": (NO_CALL, "past calls are not rendered"),
    "MiniMax-M1": (UNREAD, "MiniMax-M1's <tool_calls> format is not read"),
    "llama-cpp-deepseek-r1": (UNREAD, "llama.cpp's own R1 variant"),
    "upstage-Solar-Open-100B": (UNREAD, "a format toolparse does not read"),
}
RAISES = {"fireworks-ai-llama-3-firefunction-v2": "'functions' is undefined"}

SAMPLE = [
    "Qwen-Qwen3-0.6B",
    "Qwen3.5-4B",
    "meta-llama-Llama-3.1-8B-Instruct",
    "mistralai-Mistral-Nemo-Instruct-2407",
    "moonshotai-Kimi-K2",
    "google-gemma-2-2b-it",
]


# templates whose special tokens carry a checkpoint suffix: detecting them registers the suffixed
# variant of the format, which stays registered for the process (and the other tests count the
# registered formats), so they are detected in a fresh interpreter
SUFFIXED = {"tencent-Hy3"}

_DETECT = """
import dataclasses, json, sys
from toolparse import detect_format
kw = json.loads(sys.argv[1])
d = detect_format(sys.stdin.read(), bos_token="<s>", eos_token="</s>", seed=7, **kw)
print(json.dumps(dataclasses.asdict(d)))
"""


def _detect(name: str, **kw):
    text = (TEMPLATES / f"{name}.jinja").read_text()
    if name in SUFFIXED:
        import subprocess
        import sys

        r = subprocess.run(
            [sys.executable, "-c", _DETECT, json.dumps(kw)],
            input=text, capture_output=True, text=True, timeout=600,
        )  # fmt: skip
        assert r.returncode == 0, r.stderr[-3000:]
        d = json.loads(r.stdout)
        for key in ("candidates", "evidence", "skipped", "lost"):
            d[key] = tuple(tuple(x) if isinstance(x, list) else x for x in d[key])
        return Detection(**d)
    return detect_format(text, bos_token="<s>", eos_token="</s>", seed=7, **kw)


def _check(name: str) -> None:
    if name in RAISES:
        with pytest.raises(ValueError, match=RAISES[name]):
            _detect(name)
        return
    d = _detect(name)
    if name in OUT:
        assert d.format is None, (name, d)
        assert d.reason == OUT[name][0]
        return
    fmt, reasoning, started = EXPECTED[name]
    assert d.reason is None
    assert fmt in d.candidates, (name, d)
    assert d.format in d.candidates and d.format in list_formats()
    if reasoning is None:
        assert d.reasoning is None, (name, d)
    else:
        assert d.reasoning in list_reasoning_formats(), (name, d)
    assert d.reasoning_started is started, (name, d)
    # the chosen pair reads every probe back: the evidence holds a call in each call probe
    assert any("call" in probe for probe, _ in d.evidence)


def test_table_covers_every_vendored_template():
    names = {p.stem for p in TEMPLATES.glob("*.jinja")}
    table = set(EXPECTED) | set(OUT) | set(RAISES)
    assert names == table
    assert not set(EXPECTED) & set(OUT)


@pytest.mark.parametrize("name", SAMPLE)
def test_sample(name):
    _check(name)


@pytest.mark.exhaustive
@pytest.mark.parametrize("name", sorted(set(EXPECTED) | set(OUT) | set(RAISES)))
def test_every_template(name):
    _check(name)


def test_model_breaks_ties():
    d = _detect("Qwen-Qwen2.5-7B-Instruct", model="ibm-granite/granite-4.0-h-small")
    assert "granite4" in d.candidates
    assert d.format == "granite4"
    assert _detect("Qwen-Qwen2.5-7B-Instruct").format == "hermes"


def test_thinking_off_in_front():
    text = (TEMPLATES / "Qwen3.5-4B.jinja").read_text()
    on = detect_format(text, seed=1)
    off = detect_format("{% set enable_thinking = false %}" + text, seed=1)
    assert on.reasoning_started is True
    assert off.reasoning_started is False
    assert off.format == on.format


def test_seed_repeats_and_probe_names_vary():
    a = _detect("moonshotai-Kimi-K2")
    b = _detect("moonshotai-Kimi-K2")
    assert a.evidence == b.evidence
    c = detect_format((TEMPLATES / "moonshotai-Kimi-K2.jinja").read_text(), seed=8)
    assert c.evidence != a.evidence and c.format == a.format


def test_tools_ignored_gives_model_fallback():
    d = _detect("google-gemma-2-2b-it", model="Qwen/Qwen3-Coder-30B-A3B-Instruct")
    assert d.reason == NO_TOOLS
    assert d.format is not None and d.format == _model_format("Qwen/Qwen3-Coder-30B-A3B-Instruct")


def _model_format(model: str):
    from toolparse import format_for_model

    return format_for_model(model)


@pytest.mark.parametrize(
    ("template", "match"),
    [
        ("{% for %}", "invalid chat template"),
        ("{{ raise_exception('no') }}", "raised"),
        (
            "{% for i in range(99999) %}{% for j in range(99999) %}{% endfor %}{% endfor %}",
            "took more than",
        ),
        ("{{ 'x' * 2000000 }}", "more than"),
    ],
)
def test_bad_templates_raise(template, match):
    with pytest.raises(ValueError, match=match):
        detect_format(template)


def test_added_token_dicts():
    text = (TEMPLATES / "meta-llama-Llama-3.1-8B-Instruct.jinja").read_text()
    d = detect_format(
        text,
        bos_token={"content": "<|begin_of_text|>", "__type": "AddedToken"},
        eos_token={"content": "<|eot_id|>"},
        seed=3,
    )
    assert d.format == "llama3_json"


def test_cli_template(capsys):
    from toolparse.cli import main

    path = TEMPLATES / "meta-llama-Llama-3.1-8B-Instruct.jinja"
    assert main(["detect", "--template", str(path), "--json", "--seed", "2"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["format"] == "llama3_json" and "llama3_json" in doc["candidates"]
    assert set(doc["evidence"]) >= {"no call", "one call"}
    # Llama 3.1 raises on two calls: refused, not read as one
    assert list(doc["skipped"]) == ["two calls"] and doc["lost"] == {}


def test_cli_tokenizer_config_named_and_tokens(tmp_path, capsys):
    from toolparse.cli import main

    tool_use = (TEMPLATES / "NousResearch-Hermes-2-Pro-Llama-3-8B-tool_use.jinja").read_text()
    config = {
        "chat_template": [
            {"name": "default", "template": "{{ bos_token }}{{ messages[0].content }}"},
            {"name": "tool_use", "template": tool_use},
        ],
        "bos_token": {"content": "<|begin_of_text|>", "__type": "AddedToken"},
        "eos_token": "<|im_end|>",
    }
    path = tmp_path / "tokenizer_config.json"
    path.write_text(json.dumps(config))
    assert main(["detect", "--tokenizer-config", str(path), "--name", "tool_use"]) == 0
    assert "format: hermes" in capsys.readouterr().out
    # the default template shows no tools: no format, exit status 3
    assert main(["detect", "--tokenizer-config", str(path)]) == 3
    assert NO_TOOLS in capsys.readouterr().out
    assert main(["detect", "--tokenizer-config", str(path), "--name", "nope"]) == 1
    assert "no chat template named 'nope'" in capsys.readouterr().err


def test_cli_bad_template(tmp_path, capsys):
    from toolparse.cli import main

    path = tmp_path / "bad.jinja"
    path.write_text("{% if %}")
    assert main(["detect", "--template", str(path)]) == 1
    assert "invalid chat template" in capsys.readouterr().err


def test_a_template_writing_one_call_of_two_reads_that_probe_as_one_call():
    d = _detect("GigaChat3-10B-A1.8B")
    assert d.format == "gigachat3"
    assert d.skipped == ()
    assert d.lost == (("two calls", "writes the first call of a turn only"),)
    # every call probe is read back, the two-call one as the one call its render shows
    assert {"one call", "two calls", "content then a call", "no arguments"} <= {
        p for p, _ in d.evidence
    }
    # gpt-oss also writes a call turn's content on the analysis channel: read back as reasoning
    d = _detect("openai-gpt-oss-120b")
    assert d.format == "openai"
    assert dict(d.lost) == {
        "two calls": "writes the first call of a turn only",
        "content then a call": "writes a call turn's content as its reasoning",
    }
    # a template that writes every call keeps its probes
    assert _detect("Qwen-Qwen3-0.6B").lost == ()
