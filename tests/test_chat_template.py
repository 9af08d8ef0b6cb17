"""toolparse.chat_template: the Jinja environment transformers' apply_chat_template sets up, the
bounded render (time, memory and output limits, ValueError naming the problem), special tokens as
tokenizer_config AddedToken dicts, and the text an assistant turn adds."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

pytest.importorskip("jinja2")

from toolparse import chat_template as ct  # noqa: E402

TEMPLATES = Path(__file__).parent / "fixtures" / "templates" / "llama.cpp"
USER = [{"role": "user", "content": "hi"}]
RENDERERS = ("in_process", "bounded")


def run(how: str, template: str, messages=USER, **kwargs):
    if how == "bounded":
        return ct.render_bounded(template, messages, **kwargs)
    return ct.render(template, messages, **kwargs)


# ----- the environment -------------------------------------------------------------------------


@pytest.mark.parametrize("how", RENDERERS)
def test_environment_as_transformers_sets_it_up(how: str) -> None:
    template = (
        "{% for m in messages %}\n"
        "  {% if true %}{{ m.role }}:{{ m.content }}{% endif %}\n"
        "{% endfor %}"
        "{% for x in [1, 2, 3] %}{% if x == 2 %}{% break %}{% endif %}{{ x }}{% endfor %}"
        "{% for x in [1, 2, 3] %}{% if x == 2 %}{% continue %}{% endif %}{{ x }}{% endfor %}"
        "|{% generation %}G{% endgeneration %}"
        "|{{ {'b': 1, 'a': 'é'} | tojson }}"
        "|{{ {'b': 1, 'a': 'é'} | tojson(ensure_ascii=True, sort_keys=True) }}"
        "|{{ [1, 2] | tojson(indent=2) }}"
        "|{{ {'a': 1} | tojson(separators=(',', ':')) }}"
        "|{{ messages | map(attribute='role') | tojson }}"
        "|{% set ns = namespace(n=1) %}{% set ns.n = ns.n + 1 %}{{ ns.n }}"
        "|{% set l = [] %}{% set _ = l.append(7) %}{{ l | tojson }}"
        "|{{ strftime_now('%Y') | length }}"
        "|{{ bos_token }}{{ eos_token }}|{{ enable_thinking }}"
    )
    out = run(how, template, bos_token="<s>", eos_token="</s>", enable_thinking=False)
    assert out == (
        "user:hi113"
        '|G|{"b": 1, "a": "é"}|{"a": "\\u00e9", "b": 1}|[\n  1,\n  2\n]|{"a":1}|["user"]|2|[7]|4'
        "|<s></s>|False"
    )


@pytest.mark.parametrize("how", RENDERERS)
def test_messages_none_keys_dropped_and_reasoning_aliased(how: str) -> None:
    template = (
        "{% for m in messages %}{{ 'content' in m }},{{ m.reasoning_content }},{{ m.thinking }},"
        "{{ m.reasoning }}{% endfor %}"
    )
    messages = [{"role": "assistant", "content": None, "thinking": "T"}]
    assert run(how, template, messages) == "False,T,T,T"


def test_the_template_cannot_change_the_callers_data() -> None:
    messages = [{"role": "user", "content": "hi", "list": [1]}]
    ct.render("{% set _ = messages[0].list.append(2) %}{{ messages[0].list }}", messages)
    assert messages[0]["list"] == [1]


@pytest.mark.parametrize("how", RENDERERS)
@pytest.mark.parametrize(
    "bos, want",
    [
        ("<s>", "<s>"),
        ({"__type": "AddedToken", "content": "<|begin|>", "lstrip": False}, "<|begin|>"),
        (None, ""),
    ],
)
def test_special_tokens_as_strings_or_added_token_dicts(how: str, bos, want: str) -> None:
    assert run(how, "{{ bos_token }}", bos_token=bos) == want
    assert run(how, "{{ eos_token }}", eos_token=bos) == want


def test_token_text_rejects_what_is_not_a_token() -> None:
    with pytest.raises(TypeError, match="bos_token"):
        ct.render("{{ bos_token }}", USER, bos_token={"__type": "AddedToken"})
    with pytest.raises(TypeError, match="eos_token"):
        ct.render("{{ eos_token }}", USER, eos_token=5)


@pytest.mark.parametrize(
    "messages, tools, match",
    [
        ("hi", None, "messages"),
        ([{"content": "no role"}], None, r"messages\[0\]"),
        ([1], None, r"messages\[0\]"),
        (USER, "tools", "tools"),
        ([{"role": "user", "content": object()}], None, "not JSON data"),
    ],
)
def test_bad_arguments_name_the_argument(messages, tools, match: str) -> None:
    with pytest.raises(TypeError, match=match):
        ct.render("x", messages, tools=tools)
    with pytest.raises(TypeError, match=match):
        ct.render_bounded("x", messages, tools=tools)


# ----- problems with the template: ValueError naming them ---------------------------------------


@pytest.mark.parametrize("how", RENDERERS)
@pytest.mark.parametrize(
    "template, match",
    [
        ("{% if %}", "invalid chat template: line 1"),
        ("{% for x in y %}", "invalid chat template"),
        ("{% for x in [1] %}{% endfor %}{% break %}", "invalid chat template"),
        ("{{ raise_exception('no system role') }}", "raised: no system role"),
        ("{{ x.y.z }}", "raised: 'x' is undefined"),
        ("{{ ''.__class__.__mro__ }}", "raised"),
        ("{% set ns = namespace(_x=1) %}", "may not start with '_'"),
        ("{{ 1 / 0 }}", "failed: ZeroDivisionError"),
        ("{% macro f() %}{{ f() }}{% endmacro %}{{ f() }}", "recursed too deeply"),
        ("{{ messages | tojson(default=1) }}", "failed: TypeError"),
    ],
)
def test_template_problems_are_value_errors(how: str, template: str, match: str) -> None:
    with pytest.raises(ValueError, match=match):
        run(how, template)


@pytest.mark.parametrize("how", RENDERERS)
def test_output_cap(how: str) -> None:
    template = "{% for i in range(1000) %}0123456789{% endfor %}"
    assert len(run(how, template)) == 10_000
    with pytest.raises(ValueError, match="more than 9999 characters"):
        run(how, template, max_output=9_999)
    with pytest.raises(ValueError, match="more than 1000000 characters"):
        run(how, "{% for i in range(2000) %}{{ 'x' * 1000 }}{% endfor %}")


def test_bounded_memory_limit() -> None:
    for template in ("{{ 'x' * 10**9 }}", "{% set n = 10**9 %}{{ ('x' * n) | length }}"):
        start = time.monotonic()
        with pytest.raises(ValueError, match="memory"):
            ct.render_bounded(template, USER)
        assert time.monotonic() - start < 10
    # the worker serves the next render
    assert ct.render_bounded("{{ messages[0].content }}", USER) == "hi"


def test_bounded_timeout() -> None:
    slow = "{% for i in range(100000) %}{% for j in range(100000) %}{% endfor %}{% endfor %}"
    assert ct.render_bounded("{{ messages[0].content }}", USER) == "hi"
    worker = ct._worker
    start = time.monotonic()
    with pytest.raises(ValueError, match=r"took more than 0.3 s"):
        ct.render_bounded(slow, USER, timeout=0.3)
    assert time.monotonic() - start < 5
    assert ct.render_bounded("{{ messages[0].content }}", USER) == "hi"
    if ct._cpu_limit(1.0).on:  # the render's CPU time ran out: the worker answered, and serves on
        assert ct._worker is worker
    else:  # the wall clock ran out: the worker was killed and another one started
        assert ct._worker is not worker


@pytest.mark.parametrize(
    "kwargs, match",
    [
        ({"timeout": 0}, "timeout"),
        ({"timeout": float("inf")}, "timeout"),
        ({"max_memory": -1}, "max_memory"),
        ({"max_output": -1}, "max_output"),
        ({"x": float("nan")}, "finite JSON"),
    ],
)
def test_bounded_limits_are_checked(kwargs, match: str) -> None:
    with pytest.raises(ValueError, match=match):
        ct.render_bounded("x", USER, **kwargs)


# ----- the text an assistant turn adds ----------------------------------------------------------

CHATML = (
    "{% for m in messages %}<|im_start|>{{ m.role }}\n"
    "{% if m.reasoning_content %}<think>{{ m.reasoning_content }}</think>{% endif %}"
    "{{ m.content }}"
    "{% for c in m.tool_calls or [] %}<tool_call>{{ c.function | tojson }}</tool_call>{% endfor %}"
    "<|im_end|>\n{% endfor %}"
    "{% if add_generation_prompt %}<|im_start|>assistant\n{% endif %}"
)
CALL = {"function": {"name": "f", "arguments": {"a": [1, True, None], "b": "é"}}}


@pytest.mark.parametrize("bounded", [False, True])
def test_assistant_text_cuts_the_prompt_and_the_turn_end(bounded: bool) -> None:
    turn = ct.render_assistant(
        CHATML, content="Hi", reasoning="R", tool_calls=[CALL], bounded=bounded
    )
    assert turn.turn_end == "<|im_end|>\n"
    assert turn.prompt.endswith("<|im_start|>assistant\n")
    call = '{"name": "f", "arguments": {"a": [1, true, null], "b": "é"}}'
    assert turn.text == f"<think>R</think>Hi<tool_call>{call}</tool_call>"
    assert turn.arguments == "dict"


def test_assistant_text_eos_and_end_tokens() -> None:
    template = (
        "{% for m in messages %}{% if m.role == 'user' %}U:{{ m.content }}\n{% else %}"
        "{{ m.content }}{% if m.tool_calls %}CALL{{ m.tool_calls[0].id }}<|eom_id|>"
        "{% else %}{{ eos_token }}{% endif %}{% endif %}{% endfor %}"
    )
    # the plain turn ends with the EOS; a turn with calls with <|eom_id|>, a default end token
    text = ct.assistant_text(template, tool_calls=[CALL], eos_token={"content": "</s>"})
    assert text == "CALLcall00000"
    assert ct.assistant_text(template, content="x", eos_token="</s>") == "x"
    assert ct.assistant_text(template, content="x<END>", end_tokens=["<END>"]) == "x"


def test_assistant_text_stop_token_of_an_earlier_turn() -> None:
    """A template that writes its end-of-turn token after every turn but the conversation's last
    plain one (Hy3): the token after an earlier plain turn is cut from a turn with calls; a
    user turn's header right after a plain turn (already in the prompt) is not."""
    template = (
        "{% for m in messages %}{% if m.role == 'user' %}<|U|>{{ m.content }}{% else %}<|A|>"
        "{% if m.tool_calls %}<c>{{ m.tool_calls[0].function.name }}</c><|eos:x|>"
        "{% elif loop.last %}{{ m.content }}{% else %}{{ m.content }}<|eos:x|>{% endif %}"
        "{% endif %}{% endfor %}{% if add_generation_prompt %}<|A|>{% endif %}"
    )
    assert ct.assistant_text(template, tool_calls=[CALL]) == "<c>f</c>"
    assert ct.assistant_text(template, content="x<|eos:x|>") == "x"
    no_end = template.replace("<|eos:x|>", "")
    assert ct.assistant_text(no_end + "{{ '' }}", tool_calls=[CALL]) == "<c>f</c>"
    # without that token, a call turn's last tag is kept: the user header is no stop token
    header_last = no_end.replace("</c>", "</c><|U|>")
    assert ct.assistant_text(header_last, tool_calls=[CALL]) == "<c>f</c><|U|>"


def test_assistant_text_arguments_as_json_when_dicts_leak_or_raise() -> None:
    leaks = (
        "{% for m in messages %}{% for c in m.tool_calls or [] %}"
        "{{ c.function.name }}:{{ c.function.arguments }}{% endfor %}{% endfor %}"
    )
    turn = ct.render_assistant(leaks, tool_calls=[CALL])
    assert turn.arguments == "json"
    assert json.loads(turn.text.split(":", 1)[1]) == CALL["function"]["arguments"]
    raises = (
        "{% for m in messages %}{% for c in m.tool_calls or [] %}"
        "{% if c.function.arguments is mapping %}{{ raise_exception('strings only') }}{% endif %}"
        "{{ c.function.arguments }}{% endfor %}{% endfor %}"
    )
    assert ct.render_assistant(raises, tool_calls=[CALL]).arguments == "json"
    with pytest.raises(ValueError, match="strings only"):
        ct.render_assistant(raises, tool_calls=[CALL], arguments="dict")


def test_assistant_text_content_none_then_empty_string() -> None:
    needs_content = (
        "{% for m in messages %}{% if m.role == 'assistant' %}"
        "{{ m.content + '' }}{{ m.tool_calls | length }}{% endif %}{% endfor %}"
    )
    turn = ct.render_assistant(needs_content, tool_calls=[CALL])
    assert (turn.text, turn.content) == ("1", "")
    no_content_key = "{% for m in messages %}{{ 'content' in m }}{% endfor %}"
    turn = ct.render_assistant(no_content_key, tool_calls=[CALL])
    assert (turn.text, turn.content) == ("False", None)


def test_assistant_text_ids_and_descriptions() -> None:
    template = (
        "{% for t in tools %}{{ t.function.description }}|"
        "{% for k, v in t.function.parameters.properties.items() %}{{ v.description }}|{% endfor %}"
        "{% endfor %}{% for m in messages %}{% for c in m.tool_calls or [] %}{{ c.id }},"
        "{% endfor %}{% endfor %}"
    )
    tools = [
        {
            "type": "function",
            "function": {
                "name": "f",
                "parameters": {"type": "object", "properties": {"a": {"type": "array"}}},
            },
        }
    ]
    text = ct.render_assistant(template, tool_calls=[CALL, CALL], tools=tools, prefix="common").text
    ids = text.rstrip(",").split(",")
    assert len(ids) == 2 and len(set(ids)) == 2
    assert all(len(i) == 9 and i.isalnum() for i in ids)
    assert tools[0]["function"].get("description") is None  # the caller's tools are not changed
    full = ct.render(template, USER, tools=ct._with_descriptions(tools))
    assert full.count("|") == 2 and "||" not in full


def test_assistant_text_prompt_not_a_prefix() -> None:
    prefilled = (
        "{% for m in messages %}{{ m.content }}{% endfor %}"
        "{% if add_generation_prompt %}<think></think>{% endif %}"
    )
    with pytest.raises(ValueError, match="does not begin with its generation prompt"):
        ct.assistant_text(prefilled, content="Hello")
    assert ct.assistant_text(prefilled, content="Hello", prefix="common") == "Hello"


@pytest.mark.parametrize(
    "kwargs, match",
    [
        ({"arguments": "yaml"}, "arguments"),
        ({"prefix": "x"}, "prefix"),
        ({"tool_calls": [{"function": {"name": "f", "arguments": "[1]"}}]}, "JSON object"),
        ({"tool_calls": [{"function": {"name": "f", "arguments": "{"}}]}, "not JSON"),
    ],
)
def test_assistant_text_bad_arguments(kwargs, match: str) -> None:
    with pytest.raises(ValueError, match=match):
        ct.assistant_text(CHATML, **kwargs)


def test_a_vendored_template() -> None:
    template = (TEMPLATES / "Qwen-Qwen3-0.6B.jinja").read_text()
    text = ct.assistant_text(template, tool_calls=[CALL], content="")
    assert text.endswith("</tool_call>") and "<|im_end|>" not in text
    assert '"arguments": {"a": [1, true, null], "b": "é"}' in text


@pytest.mark.parametrize(
    "turn_end, stop",
    [
        ("<|im_end|>\n", "<|im_end|>"),
        ("<|close|>response<|sep|><|close|>message<|sep|><|end_of_msg|>", "<|end_of_msg|>"),
        ("<|END_TEXT|><|END_OF_TURN_TOKEN|>", "<|END_OF_TURN_TOKEN|>"),
        ("[e~[\n", "[e~["),
        ("[/INST]", "[/INST]"),
        ("\n\n", ""),
        ("", ""),
    ],
)
def test_stop_token(turn_end: str, stop: str) -> None:
    assert ct.stop_token(turn_end) == stop


def test_assistant_text_template_that_always_writes_the_generation_prompt() -> None:
    always = (
        "{% for m in messages %}<|{{ m.role }}|>{{ m.content }}"
        "{% for c in m.tool_calls or [] %}<call>{{ c.function.name }}</call>{% endfor %}"
        "<|end|>{% endfor %}<|assistant|>"
    )
    turn = ct.render_assistant(always, tool_calls=[CALL])
    assert turn.text == "<call>f</call>"
    assert turn.prompt.endswith("<|assistant|>")


def test_assistant_text_template_that_writes_text_after_every_conversation() -> None:
    # Command R+'s form: a system turn of instructions after the last message, then the
    # generation prompt; the turn comes before the instructions, which are not its text
    template = (
        "{% for m in messages %}<|START|><|{{ m.role }}|>{{ m.content }}"
        "{% for c in m.tool_calls or [] %}Action: {{ c.function.name }}\n{% endfor %}"
        "{% if not m.tool_calls %}<|END|>{% endif %}{% endfor %}"
        "<|START|><|system|>Write 'Action:' then the name.<|END|>"
        "{% if add_generation_prompt %}<|START|><|assistant|>{% endif %}"
    )
    turn = ct.render_assistant(template, content="Hi", tool_calls=[CALL], messages=USER)
    assert turn.text == "HiAction: f\n"
    assert turn.prompt.endswith("<|END|><|START|><|assistant|>")
    assert turn.turn_end == "<|END|>"  # the plain turn's end, the instructions cut from it
    assert ct.assistant_text(template, content="Hi", messages=USER) == "Hi"
    # a prompt that is not a prefix for another reason (a pre-filled block) is no trailer
    prefilled = template.replace("<|assistant|>{% endif %}", "<|assistant|><think>{% endif %}")
    with pytest.raises(ValueError, match="generation prompt"):
        ct.render_assistant(prefilled, content="Hi", messages=USER)


def test_assistant_text_auto_prefix_backs_off_to_a_token() -> None:
    # the prompt opens <think>; the turn without reasoning closes an empty block instead
    template = (
        "{% for m in messages %}{% if m.role == 'user' %}U{{ m.content }}"
        "{% else %}</think>{{ m.content }}<eot>{% endif %}{% endfor %}"
        "{% if add_generation_prompt %}<think>{% endif %}"
    )
    turn = ct.render_assistant(template, content="Hi", prefix="auto", messages=USER)
    assert (turn.text, turn.prompt, turn.shared) == ("</think>Hi", "Uhi<think>", 3)
    with pytest.raises(ValueError, match="generation prompt"):
        ct.render_assistant(template, content="Hi", messages=USER)
