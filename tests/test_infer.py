"""infer_format: which family each vendored llama.cpp chat template is inferred in, or why it is
refused; inferred specs proved on renders they were not built from, on both backends; bad input;
the CLI; docs/infer.md's table (renamed-marker templates: tests/test_infer_synthetic.py).

Inferring all 70 templates takes a few minutes on one core: the full table runs under
``-m exhaustive``; the default run takes a sample of it.
"""

from __future__ import annotations

import json
import random
import re
import subprocess
import sys
from pathlib import Path
from typing import Any, Dict, List, Optional, Tuple

import pytest

pytest.importorskip("jinja2")

import toolparse  # noqa: E402
from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402
from toolparse import infer_format  # noqa: E402
from toolparse import probes as _probes  # noqa: E402

ROOT = Path(__file__).parent.parent
#: where the toolparse these tests import lives (the checkout's python/ in an editable install,
#: site-packages in an installed wheel): the child processes import the same one
PACKAGE_ROOT = str(Path(toolparse.__file__).resolve().parent.parent)
TEMPLATES = Path(__file__).parent / "fixtures" / "templates" / "llama.cpp"
sys.path.insert(0, str(Path(__file__).parent))
from test_detect import EXPECTED, OUT, RAISES  # noqa: E402

# template -> the family its calls are inferred in (written from the wire format each template
# writes, as tests/test_detect.py's table names it)
INFERRED = {
    "Apertus-8B-Instruct": "tagged_json",
    "Apriel-1.6-15b-Thinker-fixed": "tagged_json",
    "Bielik-11B-v3.0-Instruct": "tagged_json",
    "ByteDance-Seed-OSS": "xml_params",
    "Cohere2MoE": "tagged_json",
    "CohereForAI-c4ai-command-r-plus-tool_use": "tagged_json",
    "CohereForAI-c4ai-command-r7b-12-2024-tool_use": "tagged_json",
    "GLM-4.6": "xml_params",
    "GLM-4.7-Flash": "xml_params",
    # one call per turn: the two-call probe renders as its first call alone (probes.as_shown)
    "GigaChat3-10B-A1.8B": "tagged_json",
    "GigaChat3.1-10B-A1.8B": "tagged_json",
    "Kimi-K2-Instruct": "named_json",
    "Kimi-K2-Thinking": "named_json",
    "Kimi-K3": "xml_params",
    "LFM2.5-8B-A1B": "pythonic",
    "MiMo-VL": "tagged_json",
    "MiniMax-M1": "tagged_json",
    "MiniMax-M2": "xml_params",
    "MiniMax-M3": "xml_elements",
    "Mistral-Small-3.2-24B-Instruct-2506": "tagged_json",
    "NVIDIA-Nemotron-3-Nano-30B-A3B-BF16": "xml_params",
    "NVIDIA-Nemotron-Nano-v2": "tagged_json",
    "NousResearch-Hermes-2-Pro-Llama-3-8B-tool_use": "tagged_json",
    "NousResearch-Hermes-3-Llama-3.1-8B-tool_use": "tagged_json",
    "Qwen-QwQ-32B": "tagged_json",
    "Qwen-Qwen2.5-7B-Instruct": "tagged_json",
    "Qwen-Qwen3-0.6B": "tagged_json",
    "Qwen3-Coder": "xml_params",
    "Qwen3.5-4B": "xml_params",
    "Reka-Edge": "tagged_json",
    "Spark2.5": "xml_params",
    "StepFun3.5-Flash": "xml_params",
    "deepseek-ai-DeepSeek-V3.2": "xml_params",
    "deepseek-ai-DeepSeek-V4": "xml_params",
    "deepseek-ai-DeepSeek-V4-Flash-0731": "xml_params",
    "google-gemma-4-31B-it": "functiongemma",
    "google-gemma-4-31B-it-interleaved": "functiongemma",
    "ibm-granite-granite-4.0": "tagged_json",
    "ibm-granite-granite-4.1": "tagged_json",
    "inclusionai-ling-3.0-flash": "xml_params",
    "llama-cpp-deepseek-r1": "named_json",
    "meetkai-functionary-medium-v3.1": "functionary",
    "meetkai-functionary-medium-v3.2": "functionary",
    "meta-llama-Llama-3.1-8B-Instruct": "llama3_json",
    "meta-llama-Llama-3.2-3B-Instruct": "llama3_json",
    "meta-llama-Llama-3.3-70B-Instruct": "llama3_json",
    "mistralai-Ministral-3-14B-Reasoning-2512": "tagged_json",
    "mistralai-Mistral-Nemo-Instruct-2407": "tagged_json",
    "moonshotai-Kimi-K2": "named_json",
    "muse-glimmer": "muse",
    "openai-gpt-oss-120b": "openai",
    "openbmb-MiniCPM5-1B": "xml_params",
    "poolside-Laguna-S-2.1": "xml_params",
    "poolside-Laguna-XS-2.1": "xml_params",
    "poolside-Laguna-XS.2": "xml_params",
    "tencent-Hy3": "xml_params",
    "unsloth-Apriel-1.5": "tagged_json",
    "unsloth-mistral-Devstral-Small-2507": "tagged_json",
    "upstage-Solar-Open-100B": "named_json",
}

NO_TOOLS = "the template does not render tools"
NO_CALL = "the template renders no call in an assistant turn"
NO_FAMILY = "no family reproduces the template's calls"

# template -> (what the ValueError says, why the template is refused)
REFUSED: Dict[str, Tuple[str, str]] = {
    "HuggingFaceTB-SmolLM3-3B": (NO_TOOLS, "out: tools only through xml_tools"),
    "deepseek-ai-DeepSeek-R1-Distill-Llama-8B": (NO_TOOLS, "out: no tool syntax"),
    "deepseek-ai-DeepSeek-R1-Distill-Qwen-32B": (NO_TOOLS, "out: no tool syntax"),
    "deepseek-ai-DeepSeek-V3.1": (NO_TOOLS, "out: tools are the caller's system prompt"),
    "google-gemma-2-2b-it": (NO_TOOLS, "out: no tool syntax"),
    "llama-cpp-rwkv-world": (NO_TOOLS, "out: no tool syntax"),
    "microsoft-Phi-3.5-mini-instruct": (NO_TOOLS, "out: no tool syntax"),
    "LFM2-8B-A1B": (NO_CALL, "out: past calls are not rendered"),
    "LFM2.5-Instruct": (NO_CALL, "out: past calls are not rendered"),
    "ibm-granite-granite-3.3-2B-Instruct": (NO_CALL, "out: past calls are not rendered"),
    "fireworks-ai-llama-3-firefunction-v2": (
        "'functions' is undefined",
        "out: the template needs a `functions` variable",
    ),
}

#: the templates that render tool calls (the rest are out: no tools, no rendered call, raises)
RENDER_CALLS = sorted(
    n for n in set(INFERRED) | set(REFUSED) if not REFUSED.get(n, ("", "x"))[1].startswith("out:")
)

SAMPLE = [
    "Qwen-Qwen3-0.6B",
    "GLM-4.7-Flash",
    "moonshotai-Kimi-K2",
    "LFM2.5-8B-A1B",
    "meta-llama-Llama-3.2-3B-Instruct",
    "google-gemma-2-2b-it",
]


def _text(name: str) -> str:
    return (TEMPLATES / f"{name}.jinja").read_text()


def _infer(name: str, template: Optional[str] = None, seed: int = 7) -> Dict[str, Any]:
    return infer_format(
        template if template is not None else _text(name),
        name="inferred-test",
        bos_token="<s>",
        eos_token="</s>",
        seed=seed,
    )


# ---- reading texts with an inferred format, in a child process (the registry stays clean) ----

_CHILD = r"""
import json, sys
from toolparse import register_format
from toolparse.parser import ToolParser
req = json.load(sys.stdin)
doc = req["doc"]
name = register_format(doc)
rsn = doc.get("reasoning", {}).get("name")
out = []
for text, mode, tools in req["texts"]:
    row = []
    for backend in ("rust", "python"):
        p = ToolParser(name, tools=tools, backend=backend,
                       reasoning=rsn if mode is not None else None, reasoning_started=mode)
        got = p.extract_tool_calls(text)
        calls = [[c.function.name, json.loads(c.function.arguments or "{}")]
                 for c in got.tool_calls]
        row.append([calls, (got.content or "").strip(), (got.reasoning or "").strip()])
    out.append(row)
json.dump(out, sys.stdout)
"""


def _in_child(script: str, stdin: str) -> str:
    """What ``script`` writes, run by a fresh interpreter with ``stdin`` (what it registers
    stays out of this process's registry)."""
    import os

    done = subprocess.run(
        [sys.executable, "-c", script],
        input=stdin,
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": PACKAGE_ROOT},
        timeout=300,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout


def _read_with(doc: Dict[str, Any], texts: List[Tuple[str, Optional[bool], Any]]) -> List[Any]:
    """Each text read by ``doc`` on both backends: [[calls, content, reasoning] per backend]."""
    return json.loads(_in_child(_CHILD, json.dumps({"doc": doc, "texts": texts})))


_PROVE = (
    "import json,sys\nfrom toolparse.infer.proof import _prove\n"
    "r=json.load(sys.stdin)\n"
    "print(json.dumps([_prove(d,r['tools'],r['checks'],r['seed']) for d in r['docs']]))"
)


def _prove_in_child(
    docs: List[Dict[str, Any]], tools: Any, checks: Any, seed: int = 1
) -> List[str]:
    """The proof's answer for each doc on ``checks`` ("" where it proves, else why not)."""
    stdin = json.dumps({"docs": docs, "tools": tools, "checks": checks, "seed": seed})
    return json.loads(_in_child(_PROVE, stdin))


def _checks_of(rows: List[Any], reasoning: bool = True) -> List[Any]:
    """The proof's checks for the first six fresh renders: what each shows of its probe."""
    checks = []
    for probe, text, mode, _tools in rows[:6]:
        content = probe.content if probe.content and probe.content in text else ""
        shown = probe.reasoning if reasoning and probe.reasoning and probe.reasoning in text else ""
        checks.append([text, [list(c) for c in probe.calls], content, shown, mode])
    return checks


def _fresh_renders(
    name: str, doc: Dict[str, Any], seed: int
) -> List[Tuple[Any, Any, Optional[bool]]]:
    """Probe and held-out renders of ``name`` with other random names than the fit's."""
    rng = random.Random(seed)
    common = dict(bos_token="<s>", eos_token="</s>", enable_thinking=True, thinking=True)
    tools, rendered, _, _ = _probes.render_probes(_text(name), rng, common)
    more, held = _probes.held_out_probes(rng, tools)
    held_rendered, _ = _probes.render_all(_text(name), more, held, common, False)
    r = doc.get("reasoning")
    out = []
    for group_tools, group in ((tools, rendered), (more, held_rendered)):
        for probe, turn in group:
            mode = None
            if r and r.get("tool_format"):  # a channel family's entry names the format: no block
                mode = False
            elif r:
                # the turn starts inside the block: the prompt opened it and the turn closes it,
                # or the turn closes a block it never opens (the prompt wrote an empty block,
                # which the render fills: Hy3)
                end, start = turn.text.find(r["end"]), turn.text.find(r["start"])
                mode = end >= 0 and (r["started"] or start < 0 or end < start)
            out.append((probe, turn.text, mode, group_tools))
    return out


def _as_written(name: str, probe: Any, text: str, tools: Any) -> Any:
    """The probe a render shows: where the template writes ``probe`` exactly as it writes the probe
    with its first call only, or with its content given as reasoning (gpt-oss: one call per
    message, a call turn's content on the analysis channel), the text holds no more than that."""
    import dataclasses

    common = dict(bos_token="<s>", eos_token="</s>", enable_thinking=True, thinking=True)
    alts = []
    if len(probe.calls) > 1:
        alts.append(lambda p: dataclasses.replace(p, calls=p.calls[:1]))
    if probe.content and probe.calls and not probe.reasoning and probe.content in text:
        alts.append(lambda p: dataclasses.replace(p, content=None, reasoning=p.content))
    for alt in alts:
        simpler = alt(probe)
        if _probes.render(_text(name), simpler, tools, common).text == text:
            probe = simpler
    return probe


def _check_inferred(name: str) -> Dict[str, Any]:
    doc = _infer(name)
    assert doc["spec"]["family"] == INFERRED[name], (name, doc["spec"])
    assert doc["spec"]["name"] == "inferred-test"
    rows = _fresh_renders(name, doc, seed=123)
    got = _read_with(doc, [(text, mode, tools) for _, text, mode, tools in rows])
    for (probe, text, _, tools), per_backend in zip(rows, got):
        probe = _as_written(name, probe, text, tools)
        # a template that drops the calls of a turn with content shows none of them
        shown = any(n in text for n, _ in probe.calls)
        want_calls = [[n, a] for n, a in probe.calls] if shown else []
        want_content = probe.content.strip() if probe.content and probe.content in text else ""
        want_reasoning = (
            probe.reasoning.strip() if probe.reasoning and probe.reasoning in text else ""
        )
        for calls, content, reasoning in per_backend:
            assert calls == want_calls, (name, probe.name, text)
            assert content == want_content, (name, probe.name, text)
            assert reasoning == want_reasoning, (name, probe.name, text)
    return doc


def _check(name: str) -> None:
    """The row of the table: an inferred template's spec proved on fresh renders (and, where a
    registered format reads the template, read against that format's texts: one inference
    serves both checks), a refused one's ValueError."""
    if name in INFERRED:
        doc = _check_inferred(name)
        if name in EXPECTED:
            _cross(name, doc)
        return
    match = REFUSED[name][0]
    with pytest.raises(ValueError, match=re.escape(match)):
        _infer(name)


def test_table_covers_every_vendored_template():
    names = {p.stem for p in TEMPLATES.glob("*.jinja")}
    assert names == set(INFERRED) | set(REFUSED)
    assert not set(INFERRED) & set(REFUSED)
    # the out-of-scope rows are detect's: no tools, no rendered call, the template raises
    out = {n for n, (_, why) in REFUSED.items() if why.startswith("out:")}
    assert out == set(OUT) - {
        n for n, (r, _) in OUT.items() if r.startswith("no registered")
    } | set(RAISES)


@pytest.mark.parametrize("name", SAMPLE)
def test_sample(name):
    _check(name)


@pytest.mark.exhaustive
@pytest.mark.parametrize("name", sorted(set(INFERRED) | set(REFUSED)))
def test_every_template(name):
    _check(name)


def test_counts():
    inferred = [n for n in RENDER_CALLS if n in INFERRED]
    assert len(RENDER_CALLS) == 59 and len(inferred) == 59


# ---- the inferred spec reads the registered format's samples and kit cases the same way ----

#: templates whose detected format is checked against the inferred spec, besides SAMPLE's (which
#: test_sample checks so; all of them under exhaustive, in test_every_template)
CROSS_SAMPLE = ["Qwen3-Coder"]


#: template -> (a regex of the registered format's texts the inferred spec reads otherwise, why):
#: forms the registered parser also reads but the template never writes
CROSS_DIFFERS = {
    "mistralai-Ministral-3-14B-Reasoning-2512": (r"\[CALL_ID\]", "the template writes no call id"),
    "unsloth-mistral-Devstral-Small-2507": (r"\[CALL_ID\]", "the template writes no call id"),
    "mistralai-Mistral-Nemo-Instruct-2407": (
        r"\[TOOL_CALLS\](?!\[)",
        "the template writes a list after [TOOL_CALLS], never a name",
    ),
    "unsloth-Apriel-1.5": (r"\[BEGIN FINAL RESPONSE\]", "the template writes no response wrapper"),
    "Apriel-1.6-15b-Thinker-fixed": (
        r"\[BEGIN FINAL RESPONSE\]",
        "the template writes [BEGIN FINAL RESPONSE] only as the end of the reasoning (the inferred "
        "reasoning entry's end), never [END FINAL RESPONSE] around content",
    ),
    "CohereForAI-c4ai-command-r7b-12-2024-tool_use": (
        r"<\|END_RESPONSE\|>",
        "the template's turn ends at <|END_RESPONSE|>, the stop token, so no render shows it",
    ),
    **{
        name: (r"<\|python_tag\|>", "the template writes no <|python_tag|> before its JSON calls")
        for name in (
            "meta-llama-Llama-3.1-8B-Instruct",
            "meta-llama-Llama-3.2-3B-Instruct",
            "meta-llama-Llama-3.3-70B-Instruct",
        )
    },
    "CohereForAI-c4ai-command-r-plus-tool_use": (
        r"Action: ```",
        "the template writes Action: and the json fence on two lines, never on one",
    ),
    "GigaChat3-10B-A1.8B": (
        r"<\|function_call\|>|(?<!<\|message_sep\|>\n\n)function call<\|role_sep\|>|</s>(?!$)",
        "the template writes GigaChat 3's function call role after <|message_sep|> (never "
        "without it), never 3.1's <|function_call|>, and one call per turn: never the EOS "
        "token </s> between calls",
    ),
    "GigaChat3.1-10B-A1.8B": (
        r"function call<\|role_sep\|>|</s>(?!$)",
        "the template writes <|function_call|>, never GigaChat 3's function call role, and one "
        "call per turn: never the EOS token </s> between calls",
    ),
    "meetkai-functionary-medium-v3.1": (
        r"<\|python_tag\|>",
        "no render shows raw code: the template writes a call to python as <|python_tag|> then "
        "its JSON arguments, which the registered format would read as code",
    ),
    "meetkai-functionary-medium-v3.2": (
        r"(^|>>>)python\n(?!\{)",
        "no render shows raw code: the template writes a call to python as any other call",
    ),
    "ByteDance-Seed-OSS": (
        r"<parameter=[^>]*>\n",
        "the template writes values inline; the registered format drops a newline around them",
    ),
}


# templates that write the registered format's special tokens with a checkpoint suffix (detected
# as the format with Detection.token_suffix): the format's texts are read by the inferred spec with
# the suffix written into their tags
SUFFIXED = {"tencent-Hy3": ":opensource"}


def _suffixed(fmt: str, text: str, suffix: str) -> str:
    from toolparse.spec import get_spec

    s = get_spec(fmt)
    names = set(re.findall(r"</?(\w+)>", " ".join([*s.markers.values(), *s.special_tokens])))
    tag = re.compile("<(/?)(" + "|".join(sorted(names)) + ")>")
    return tag.sub(lambda m: f"<{m[1]}{m[2]}{suffix}>", text)


def _cross(name: str, doc: Optional[Dict[str, Any]] = None) -> None:
    from toolparse import get_parser
    from toolparse.spec import get_spec
    from toolparse.testing.patterns import cases

    fmt = EXPECTED[name][0]
    doc = doc if doc is not None else _infer(name)
    spec = get_spec(fmt)
    texts = list(spec.samples) + [c.model_output for c in cases(fmt) if c.kind == "well_formed"]
    # the EOS token (the tests' "</s>") ends the output, and renders are cut before it: both
    # formats read a text that ends with it without it (gigachat3's samples)
    texts = [t[: -len("</s>")] if t.endswith("</s>") else t for t in texts]
    if name in CROSS_DIFFERS:
        skip = re.compile(CROSS_DIFFERS[name][0])
        assert any(skip.search(t) for t in texts)
        texts = [t for t in texts if not skip.search(t)]
    assert texts
    suffix = SUFFIXED.get(name, "")
    got = _read_with(doc, [(_suffixed(fmt, t, suffix) if suffix else t, None, None) for t in texts])
    parser = get_parser(fmt)
    for text, per_backend in zip(texts, got):
        ref = parser.extract_tool_calls(text)
        want = [[c.function.name, json.loads(c.function.arguments or "{}")] for c in ref.tool_calls]
        for calls, content, _ in per_backend:
            assert calls == want, (name, fmt, text)
            assert content == (ref.content or "").strip(), (name, fmt, text)


@pytest.mark.parametrize("name", CROSS_SAMPLE)
def test_inferred_reads_the_registered_format(name):
    _cross(name)


# under -m exhaustive, test_every_template reads every inferred template that a registered format
# reads against that format (one inference per template serves both checks)


# ---- bad input ----


@pytest.mark.parametrize(
    ("template", "match"),
    [
        ("{% for %}", "invalid chat template"),
        ("{{ raise_exception('no') }}", "raised"),
        ("{% for m in messages %}{{ m.content }}{% endfor %}", NO_TOOLS),
    ],
)
def test_bad_templates(template, match):
    with pytest.raises(ValueError, match=re.escape(match)):
        infer_format(template, name="x")


# calls written as ``CALL NAME WITH key:value; END``: no family reads them
_UNREAD = (
    "{{ tools | tojson }}{% for m in messages %}{% if m.tool_calls %}{% for c in m.tool_calls %}"
    "CALL {{ c.function.name }} WITH {% for k, v in c.function.arguments.items() %}"
    "{{ k }}:{{ v }}; {% endfor %}END {% endfor %}{% else %}{{ m.role }}: {{ m.content }}\n"
    "{% endif %}{% endfor %}{% if add_generation_prompt %}assistant: {% endif %}"
)


def test_unread_calls_are_refused_with_the_reason():
    with pytest.raises(ValueError, match=NO_FAMILY) as e:
        _infer("unread", template=_UNREAD)
    for family in ("tagged_json", "xml_params", "named_json", "pythonic"):
        assert f"{family}:" in str(e.value)


def test_bad_arguments():
    with pytest.raises(TypeError):
        infer_format(None, name="x")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="not a format name"):
        infer_format(_text("Qwen-Qwen2.5-7B-Instruct"), name="Bad Name")


def test_seed_repeats():
    assert _infer("Qwen-Qwen2.5-7B-Instruct") == _infer("Qwen-Qwen2.5-7B-Instruct")


def test_reasoning_entry():
    doc = _infer("Qwen-Qwen3-0.6B")
    r = doc["reasoning"]
    assert (r["start"], r["end"], r["started"]) == ("<think>", "</think>", False)
    assert r["name"] == "inferred-test"
    assert "stray_end_text" not in r
    assert "reasoning" not in _infer("Qwen-Qwen2.5-7B-Instruct")


@pytest.mark.parametrize(
    "name, start, end, started",
    [
        # multi-word markers: the prompt's last line opens the block, the line between the
        # reasoning and the calls' markup closes it
        (
            "Apriel-1.6-15b-Thinker-fixed",
            "Here are my reasoning steps:",
            "[BEGIN FINAL RESPONSE]",
            True,
        ),
        # the prompt opens the block, no history turn shows it
        ("NVIDIA-Nemotron-Nano-v2", "<think>", "</think>", True),
        # a tag ends at its ">", not at the namespace after it
        ("MiniMax-M3", "<mm:think>", "</mm:think>", False),
    ],
)
def test_reasoning_markers(name, start, end, started):
    r = _infer(name)["reasoning"]
    assert (r["start"], r["end"], r["started"]) == (start, end, started)
    # MiniMax M3 closes an empty block before a turn without reasoning: markup where it leads
    assert r.get("stray_end_text", False) == (name == "MiniMax-M3")


def test_the_held_out_nested_probe_declares_its_schema():
    tools, _ = _probes.probes(random.Random(1))
    more, held = _probes.held_out_probes(random.Random(2), tools)
    (probe,) = [p for p in held if p.name == "nested values"]
    ((name, args),) = probe.calls
    (tool,) = [t for t in more if t["function"]["name"] == name]
    props = tool["function"]["parameters"]["properties"]
    obj, arr = list(args)
    # still a nested object holding an array, and an array parameter
    assert isinstance(args[obj], dict) and isinstance(args[arr], list)
    assert any(isinstance(v, list) for v in args[obj].values())
    # every value inside the object is typed by the schema
    inner = props[obj]["properties"]
    assert set(inner) == set(args[obj])
    for key, value in args[obj].items():
        assert inner[key]["type"] == ("array" if isinstance(value, list) else "string")
    assert props[arr]["type"] == "array"


@pytest.mark.parametrize("backend", ["rust", "python"])
def test_xml_elements_reads_an_item_list_as_an_array_only_where_the_schema_says_so(backend):
    # why the held-out probe declares its nested schema: MiniMax M3 writes an array as <item>
    # elements, which an untyped object reads back as an object of strings (as vLLM's and
    # SGLang's minimax_m3 parsers do), a typed one as the array
    from toolparse.chat_template import render_assistant
    from toolparse.parser import ToolParser

    ints = {"type": "array", "items": {"type": "integer"}}
    typed = {"type": "object", "properties": {"tags": {"type": "string"}, "nums": ints}}
    args = {"opts": {"tags": "red", "nums": [1, 2]}}
    for schema, want in (
        (typed, args),
        ({"type": "object"}, {"opts": {"tags": "red", "nums": {"item": ["1", "2"]}}}),
    ):
        tools = [
            {
                "type": "function",
                "function": {
                    "name": "set_opts",
                    "parameters": {"type": "object", "properties": {"opts": schema}},
                },
            }
        ]
        call = [{"function": {"name": "set_opts", "arguments": args}}]
        text = render_assistant(_text("MiniMax-M3"), tool_calls=call, tools=tools).text
        assert "<item>1" in text
        got = ToolParser("minimax_m3", tools=tools, backend=backend).extract_tool_calls(text)
        assert [json.loads(c.function.arguments) for c in got.tool_calls] == [want]


def test_a_multi_word_marker_is_one_line_of_words():
    from toolparse.infer.reasoning import words as _words

    assert _words("[BEGIN", "[BEGIN FINAL RESPONSE]") == "[BEGIN FINAL RESPONSE]"
    assert _words("steps:", "Here are my reasoning steps:", True) == "Here are my reasoning steps:"
    # not a line of single-spaced words, or not starting (ending) with the marker: the marker
    assert _words("</think>", "</think>") == "</think>"
    assert _words("[BEGIN", "[BEGIN  FINAL]") == "[BEGIN"
    assert _words("[BEGIN", "x [BEGIN FINAL]") == "[BEGIN"
    assert _words("steps:", "<|im_start|>assistant steps:", True) == "steps:"


def test_a_turn_written_as_two_is_read_as_two():
    from toolparse.probes import split_turns

    common = dict(bos_token="<s>", eos_token="</s>", enable_thinking=True, thinking=True)
    tools, turns = _probes.probes(random.Random(3))
    (probe,) = [p for p in turns if p.content and p.calls]
    turn = _probes.render(_text("NVIDIA-Nemotron-Nano-v2"), probe, tools, common)
    (first, one), (second, two) = split_turns([(probe, turn)])
    # the content turn, then the calls turn: the turn end and the header between them are
    # neither's text
    assert (first.content, first.calls, one.text.strip()) == (probe.content, (), probe.content)
    assert (second.content, second.calls) == (None, probe.calls)
    assert two.text.startswith("<TOOLCALL>") and "<SPECIAL_1" not in two.text
    assert "<SPECIAL_12>" in turn.text  # the render as the template writes it
    # a template that writes content and calls in one turn keeps it whole
    turn = _probes.render(_text("Qwen-Qwen2.5-7B-Instruct"), probe, tools, common)
    assert split_turns([(probe, turn)]) == [(probe, turn)]


# ---- property: an inferred spec reads random splits of its renders as the whole ----

_DOC: Dict[str, Any] = {}


@settings(max_examples=10, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.integers(0, 2**31 - 1))
def test_streaming_splits_property(seed):
    from toolparse.infer.proof import check

    if not _DOC:
        _DOC.update(_infer("GLM-4.6"))
    rows = _fresh_renders("GLM-4.6", _DOC, seed=seed % 1000)
    assert _prove_in_child([_DOC], rows[0][3], _checks_of(rows), seed) == [""]
    assert callable(check)


# ---- CLI ----


def test_cli_infer(capsys):
    from toolparse.cli import main

    path = TEMPLATES / "Qwen3-Coder.jinja"
    assert main(["infer", "--template", str(path), "--format-name", "qc", "--seed", "3"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["spec"]["name"] == "qc" and doc["spec"]["family"] == "xml_params"
    assert doc["samples"]


def test_cli_infer_refused_and_bad(tmp_path, capsys):
    from toolparse.cli import main

    path = TEMPLATES / "google-gemma-2-2b-it.jinja"
    assert main(["infer", "--template", str(path)]) == 3
    err = capsys.readouterr().err
    assert NO_TOOLS in err and len(err.strip().splitlines()) == 1
    bad = tmp_path / "bad.jinja"
    bad.write_text("{% if %}")
    assert main(["infer", "--template", str(bad)]) == 1
    assert "invalid chat template" in capsys.readouterr().err
    assert main(["infer"]) == 2


# ---- docs/infer.md's table ----


def table() -> str:
    """The markdown table of docs/infer.md: template, detected format, inferred family, or why
    the template is refused."""
    lines = ["| template | detected | inferred | refused: why |", "|---|---|---|---|"]
    for name in sorted(set(INFERRED) | set(REFUSED)):
        detected = EXPECTED[name][0] if name in EXPECTED else "-"
        inferred = INFERRED.get(name, "-")
        why = REFUSED[name][1] if name in REFUSED else ""
        lines.append(f"| {name} | {detected} | {inferred} | {why} |")
    return "\n".join(lines) + "\n"


def test_docs_table_is_current():
    page = (ROOT / "docs" / "infer.md").read_text()
    start = page.index("<!-- table -->\n") + len("<!-- table -->\n")
    end = page.index("<!-- /table -->")
    assert page[start:end] == table(), "regenerate: python tests/test_infer.py > table"


if __name__ == "__main__":
    sys.stdout.write(table())


# ---- toolparse_auto falls back to inference ----

_AUTO = r"""
import json, sys
from toolparse.integrations import auto
from toolparse.parser import ToolParser
template = sys.stdin.read()
found = auto.resolve(template, model="acme/unknown-model")
p = ToolParser(found.format, backend="rust")
got = p.extract_tool_calls('Hi <invoke_x>\n{"name": "f", "arguments": {"a": 1}}\n</invoke_x>')
names = [c.function.name for c in got.tool_calls]
print(json.dumps([found.line, found.format, names, got.content]))
"""


def test_auto_falls_back_to_inference():

    text = _text("Qwen-Qwen2.5-7B-Instruct")
    text = text.replace("<tool_call>", "<invoke_x>").replace("</tool_call>", "</invoke_x>")
    out = _in_child(_AUTO, text)
    line, fmt, names, content = json.loads(out.strip().splitlines()[-1])
    assert "inferred" in line and fmt.startswith("inferred-")
    assert names == ["f"] and content.strip() == "Hi"


# ---- the guards: probe strings in markers, a spec that misreads a render ----


def test_a_marker_holding_a_probe_string_is_refused():
    from toolparse.infer import _leaks

    spec = {"markers": {"call_start": "<call_kemubcrdlsb>"}, "call": {}}
    assert "kemubcrdlsb" in _leaks(spec, None, ["kemubcrdlsb", "other"])
    assert _leaks({"markers": {"call_start": "<tool_call>"}, "call": {}}, None, ["kemub"]) == ""


def test_the_proof_fails_a_spec_that_misreads_the_renders():

    doc = _infer("Qwen-Qwen2.5-7B-Instruct")
    rows = _fresh_renders("Qwen-Qwen2.5-7B-Instruct", doc, seed=9)
    bad = json.loads(json.dumps(doc))
    bad["spec"]["markers"]["call_end"] = "</tool_cal>"
    good, wrong = _prove_in_child([doc, bad], rows[0][3], _checks_of(rows, reasoning=False))
    assert good == "" and "reads" in wrong


def test_reasoning_of_an_empty_prompt_block_and_of_a_reopened_turn():
    # Hy3's prompt writes an empty block (thinking off): its markers, not started; Solar's turn
    # writes the generation prompt's "<|begin|>assistant" again after the block: the end's
    hy3 = _infer("tencent-Hy3")["reasoning"]
    assert (hy3["start"], hy3["end"], hy3["started"]) == (
        "<think:opensource>",
        "</think:opensource>",
        False,
    )
    solar = _infer("upstage-Solar-Open-100B")["reasoning"]
    assert (solar["start"], solar["end"], solar["started"]) == (
        "<|think|>",
        "<|end|><|begin|>assistant",
        False,
    )


def test_the_proof_fails_a_wrong_block_for_a_turn_that_starts_inside_it():
    # Hy3's turn with reasoning starts inside the block (its render shares the block's start
    # with the prompt): read as starting there, the inferred entry proves; one whose end is
    # another tag, or no entry at all, does not

    doc = _infer("tencent-Hy3")
    rows = _fresh_renders("tencent-Hy3", doc, seed=9)
    checks = _checks_of(rows)
    assert any(c[3] and c[4] and not c[0].startswith("<think") for c in checks)
    other_end = json.loads(json.dumps(doc))
    other_end["reasoning"]["end"] = "</think>"
    no_entry = json.loads(json.dumps(doc))
    del no_entry["reasoning"]
    good, wrong_end, none = _prove_in_child([doc, other_end, no_entry], rows[0][3], checks)
    assert good == "" and "reads" in wrong_end and "reads" in none


def test_solar_s_call_ids_are_the_model_s():
    # the id Solar's template writes before each name is read as the call's id (call.id_field)

    doc = _infer("upstage-Solar-Open-100B")
    assert doc["spec"]["call"].get("id_field") is True
    rows = _fresh_renders("upstage-Solar-Open-100B", doc, seed=5)
    text, tools = next((t, tl) for p, t, _, tl in rows if len(p.calls) == 2)
    assert "call00000" in text and "call00001" in text
    script = (
        "import json,sys\nfrom toolparse import register_format\n"
        "from toolparse.parser import ToolParser\nr=json.load(sys.stdin)\n"
        "n=register_format(r['doc'])\nprint(json.dumps([[c.id for c in ToolParser(n,"
        "tools=r['tools'],backend=b).extract_tool_calls(r['text']).tool_calls]"
        " for b in ('rust','python')]))"
    )
    out = _in_child(script, json.dumps({"doc": doc, "tools": tools, "text": text}))
    assert json.loads(out) == [["call00000", "call00001"]] * 2
