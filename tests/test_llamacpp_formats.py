"""The formats llama.cpp's chat parser reads that neither vLLM nor SGLang registers, as spec
entries of existing families; the cases are the shapes of llama.cpp's own tests
(``tests/test-chat*.cpp``) and of each model's chat template:

* ``apriel`` (tagged_json): ``<tool_calls>[{"name": N, "arguments": {...}}, ...]</tool_calls>``;
  the final response's ``[BEGIN FINAL RESPONSE]``/``[END FINAL RESPONSE]`` wrapper is markup,
  dropped from content; the reasoning format ``apriel`` reads ``Here are my reasoning steps:``
  (Apriel 1.6's prompt writes it, 1.5 writes it itself: the block is open from the start) up to
  ``[BEGIN FINAL RESPONSE]``. An ``"id"`` the template writes into earlier turns' calls comes
  after the arguments, too late for a stream's first delta: the call gets a generated id;
* ``command_r`` (tagged_json): Command R+'s ``Action:`` then a ``json`` fence holding
  ``[{"tool_name": N, "parameters": {...}}, ...]`` (the template writes ``Action:`` and the fence
  on two lines, the model's own outputs often on one); the plan before it and the grounded answer
  after it are content; Command R7B's ``<|START_ACTION|>`` is ``cohere_command3``;
* ``nemotron_nano_v2`` (tagged_json): ``<TOOLCALL>[{"name": N, "arguments": {...}}]</TOOLCALL>``;
  the system prompt shows the arguments as a string, so a JSON string holding an object is read;
* FireFunction v2's `` functools[...]`` is ``phi4_mini_json``'s wire format (the space before it
  is whitespace around the calls): its model ids sit on that entry;
* ``functionary_v31`` (the functionary family, MeetKai Functionary v3.1):
  ``<function=NAME>{...}</function>`` inside text (text around and between the calls is content;
  the end tag may be missing at the end of the output, as llama.cpp's partial test reads it);
  ``<|python_tag|>`` then raw code, to the end of the output, is a call to ``python`` with
  ``{"code": "..."}`` (the text before the tag is content);
* ``functionary_v32`` (the functionary family, MeetKai Functionary v3.2): the prompt ends with
  ``>>>``, so the output starts with a recipient line: ``all\n`` then text (content, the header
  dropped), ``NAME\n{...}`` (a call; whitespace after it is not content) or ``python\n`` then raw
  code (a call to ``python`` with ``{"code": "..."}``, to the end of the output); later messages
  start with ``>>>``. A ``>>>`` written again at the start is markup; a ``>>>`` that starts no
  message, and a first line that is no header, are text (llama.cpp then reads the whole output
  as content; toolparse still reads the messages after it).
"""

from __future__ import annotations

from typing import Any, Dict, List, Optional, Tuple

import helpers
import pytest
import toolparse

BACKENDS = ("rust", "python")
params = pytest.mark.parametrize("backend", BACKENDS)

Expected = List[Tuple[str, Dict[str, Any]]]
ARG1 = {"arg1": 1}


def check(
    fmt: str,
    backend: str,
    text: str,
    content: Optional[str],
    calls: Expected,
    reasoning: Optional[str] = None,
    think: Optional[str] = None,
) -> None:
    """Non-streaming, and streaming whole, a character at a time, in 3-character deltas and split
    in two everywhere: the same calls (arguments the model's own text) and content."""
    parser = toolparse.get_parser(fmt, backend=backend, reasoning=reasoning)
    helpers.check(parser, text, content, calls, reasoning=think)


# ----- apriel -----

_APRIEL_CALL = '<tool_calls>[{"name": "special_function", "arguments": {"arg1": 1}}]</tool_calls>'


@params
def test_apriel_calls_and_content(backend: str) -> None:
    check("apriel", backend, _APRIEL_CALL, None, [("special_function", ARG1)])
    check(
        "apriel",
        backend,
        "Let me check.\n" + _APRIEL_CALL.replace("]<", ', {"name": "g", "arguments": {}}]<'),
        "Let me check.\n",
        [("special_function", ARG1), ("g", {})],
    )
    # the template's earlier turns carry an "id" after the arguments: read, not the call's id
    text = '<tool_calls>[{"name": "f", "arguments": {}, "id": "call_7"}]</tool_calls>'
    check("apriel", backend, text, None, [("f", {})])
    info = toolparse.get_parser("apriel", backend=backend).extract_tool_calls(text)
    assert info.tool_calls[0].id.startswith("chatcmpl-tool-")


@params
def test_apriel_final_response_wrapper_is_markup(backend: str) -> None:
    check(
        "apriel",
        backend,
        "[BEGIN FINAL RESPONSE]\nHello, world!\n[END FINAL RESPONSE]",
        "\nHello, world!\n",
        [],
    )


@params
def test_apriel_reasoning(backend: str) -> None:
    # Apriel 1.6: the prompt ends with the reasoning header; 1.5 writes it itself
    for head in ("", "Here are my reasoning steps:\n"):
        check(
            "apriel",
            backend,
            head + "I need the tool.\n[BEGIN FINAL RESPONSE]\n" + _APRIEL_CALL,
            None,
            [("special_function", ARG1)],
            reasoning="apriel",
            think=("\n" if head else "") + "I need the tool.",
        )
        check(
            "apriel",
            backend,
            head + "Easy.\n[BEGIN FINAL RESPONSE]\nParis.\n[END FINAL RESPONSE]",
            "\nParis.\n",
            [],
            reasoning="apriel",
            think=("\n" if head else "") + "Easy.",
        )
    # a call inside the open block ends it
    check(
        "apriel",
        backend,
        "thinking " + _APRIEL_CALL,
        None,
        [("special_function", ARG1)],
        reasoning="apriel",
        think="thinking",
    )
    assert "apriel" in toolparse.list_reasoning_formats()


# ----- command_r -----


@params
def test_command_r_action_lists(backend: str) -> None:
    # the template's layout: "Action:" and the fence on two lines, "]```" closing it
    template = (
        '\nAction:\n```json\n[\n    {\n        "tool_name": "special_function",\n'
        '        "parameters": {\n            "arg1": 1\n        }\n    }\n]```\n'
    )
    check("command_r", backend, template, None, [("special_function", ARG1)])
    # the model's own one-line form, a plan before it, two calls
    text = (
        "Plan: I will search twice.\nAction: ```json\n[\n"
        '    {"tool_name": "internet_search", "parameters": {"query": "a"}},\n'
        '    {"tool_name": "internet_search", "parameters": {"query": "b"}}\n]\n```'
    )
    check(
        "command_r",
        backend,
        text,
        "Plan: I will search twice.\n",
        [("internet_search", {"query": "a"}), ("internet_search", {"query": "b"})],
    )
    # the directly-answer tool is a call like any other; the answer after the list is content
    text = (
        'Action: ```json\n[{"tool_name": "directly_answer", "parameters": {}}]\n```\n'
        "Grounded answer: Hi."
    )
    check("command_r", backend, text, "\nGrounded answer: Hi.", [("directly_answer", {})])


@params
def test_command_r7b_is_cohere_command3(backend: str) -> None:
    assert toolparse.format_for_model("CohereLabs/c4ai-command-r7b-12-2024") == "cohere_command3"
    assert toolparse.format_for_model("CohereForAI/c4ai-command-r-plus") == "command_r"
    text = (
        '<|START_ACTION|>[{"tool_call_id": "0", "tool_name": "special_function", '
        '"parameters": {"arg1": 1}}]<|END_ACTION|>'
    )
    check("cohere_command3", backend, text, None, [("special_function", ARG1)])


# ----- nemotron_nano_v2 -----


@params
def test_nemotron_nano_v2(backend: str) -> None:
    call = '<TOOLCALL>[{"name": "special_function", "arguments": {"arg1": 1}}]</TOOLCALL>'
    check("nemotron_nano_v2", backend, call, None, [("special_function", ARG1)])
    check("nemotron_nano_v2", backend, "Hello, world!\nWhat's up?", "Hello, world!\nWhat's up?", [])
    check(
        "nemotron_nano_v2",
        backend,
        "Checking.\n\n" + call.replace('{"arg1": 1}', '"{\\"arg1\\": 1}"'),
        "Checking.\n\n",
        [("special_function", ARG1)],
    )
    # the prompt opens the think block: with a think-block reasoning format, the call ends it
    check(
        "nemotron_nano_v2",
        backend,
        "Let me call it.\n</think>\n\n" + call,
        None,
        [("special_function", ARG1)],
        reasoning="deepseek_r1",
        think="Let me call it.\n",
    )


# ----- FireFunction v2 (phi4_mini_json) -----


@params
def test_firefunction_v2_is_phi4_mini_json(backend: str) -> None:
    assert toolparse.format_for_model("fireworks-ai/llama-3-firefunction-v2") == "phi4_mini_json"
    text = ' functools[{"name": "special_function", "arguments": {"arg1": 1}}]'
    check("phi4_mini_json", backend, text, None, [("special_function", ARG1)])
    check("phi4_mini_json", backend, "Hello, world!\nWhat's up?", "Hello, world!\nWhat's up?", [])


# ----- functionary_v31 -----

_FN_CALL = '<function=special_function>{"arg1": 1}</function>'


@params
def test_functionary_v31_calls_and_content(backend: str) -> None:
    assert toolparse.format_for_model("meetkai/functionary-medium-v3.1") == "functionary_v31"
    # llama.cpp's test-chat.cpp cases (the template's one-call reply; a partial end tag)
    check("functionary_v31", backend, _FN_CALL, None, [("special_function", ARG1)])
    text = '<function=special_function>{"arg1": 1}<'
    check("functionary_v31", backend, text, None, [("special_function", ARG1)])
    check("functionary_v31", backend, "Hello, world!\nWhat's up?", "Hello, world!\nWhat's up?", [])
    # text before, between and after the calls is content
    text = "Let me check.\n" + _FN_CALL + " and " + '<function=g>{"a": [1, "x"]}</function> Done.'
    check(
        "functionary_v31",
        backend,
        text,
        "Let me check.\n and  Done.",
        [("special_function", ARG1), ("g", {"a": [1, "x"]})],
    )
    # whitespace between the calls and around the arguments is not content
    text = '<function=f> {"a": 1} </function>\n<function=g>{}</function>\n'
    check("functionary_v31", backend, text, None, [("f", {"a": 1}), ("g", {})])


@params
def test_functionary_v31_python_tag_is_raw_code(backend: str) -> None:
    code = "# This is a program:\nprint('hey')\ns = \"<function=f>{}</function> \\\\ \"\n"
    check(
        "functionary_v31",
        backend,
        "I will run it.\n<|python_tag|>" + code,
        "I will run it.\n",
        [("python", {"code": code})],
    )
    # after a call; the whitespace after the tag is code too
    check(
        "functionary_v31",
        backend,
        _FN_CALL + "<|python_tag|>\n  x = 1",
        None,
        [("special_function", ARG1), ("python", {"code": "\n  x = 1"})],
    )
    info = toolparse.get_parser("functionary_v31", backend=backend).extract_tool_calls(
        "<|python_tag|>print(1)"
    )
    assert info.tool_calls[0].function.arguments == '{"code": "print(1)"}'
    # a tag with nothing after it: a cut before the call began, markup
    info = toolparse.get_parser("functionary_v31", backend=backend).extract_tool_calls(
        "Hi <|python_tag|> \n"
    )
    assert (info.content, info.tool_calls) == ("Hi ", [])


@params
def test_functionary_v31_malformed_and_truncated(backend: str) -> None:
    parser = toolparse.get_parser("functionary_v31", backend=backend)
    for bad in (
        '<function=f>{"a": 1]</function>',
        '<function=a b>{"a": 1}</function>',
        "<function=f>a=1</function>",
        '<function=f>{"a": 1} x</function>',
    ):
        info = parser.extract_tool_calls(bad)
        assert (info.tools_called, info.content) == (False, bad), bad
    text = _FN_CALL + '<function=g>{"a": "unterminated'
    info = parser.extract_tool_calls(text)
    assert info.truncated and [c.function.name for c in info.tool_calls] == ["special_function"]


# ----- functionary_v32 -----


@params
def test_functionary_v32_llamacpp_cases(backend: str) -> None:
    assert toolparse.format_for_model("meetkai/functionary-small-v3.2") == "functionary_v32"
    # llama.cpp's test-chat.cpp cases for the v3.2 template
    check(
        "functionary_v32",
        backend,
        'all\nHello, world!\nnono\nWhat\'s up?>>>special_function\n{"arg1": 1}\n',
        "Hello, world!\nnono\nWhat's up?",
        [("special_function", ARG1)],
    )
    check(
        "functionary_v32",
        backend,
        "python\n# This is a program:\nprint('hey')",
        None,
        [("python", {"code": "# This is a program:\nprint('hey')"})],
    )
    check(
        "functionary_v32",
        backend,
        'special_function\n{"arg1": 1} \n                    ',
        None,
        [("special_function", ARG1)],
    )
    check(
        "functionary_v32",
        backend,
        "all\nHello, world!\nWhat's up?",
        "Hello, world!\nWhat's up?",
        [],
    )


@params
def test_functionary_v32_messages(backend: str) -> None:
    # the template's layout: every later message starts with >>>, a content message too
    text = 'special_function\n{"arg1": 1}>>>g\n{}>>>all\nDone.'
    check("functionary_v32", backend, text, "Done.", [("special_function", ARG1), ("g", {})])
    # >>> written again at the start is markup
    text = '>>>all\nSure.>>>special_function\n{"arg1": 1}'
    check("functionary_v32", backend, text, "Sure.", [("special_function", ARG1)])
    # text after a call is content; a >>> that starts no message is text
    text = 'f\n{"a": 1}\nIn the REPL type >>> print(1) or >>>x y'
    check(
        "functionary_v32",
        backend,
        text,
        "\nIn the REPL type >>> print(1) or >>>x y",
        [("f", {"a": 1})],
    )
    # a first line that is no header is text; the messages after it are still read
    text = "Sure!\n>>>f\n{}"
    check("functionary_v32", backend, text, "Sure!\n", [("f", {})])
    check("functionary_v32", backend, "Hello\nthere", "Hello\nthere", [])
    # python with a JSON object is a JSON call; after a call, raw code to the end
    check(
        "functionary_v32",
        backend,
        'python\n{"code": "print(1)"}',
        None,
        [("python", {"code": "print(1)"})],
    )
    code = "import os\nprint(os.getcwd())  # >>>all\n"
    check(
        "functionary_v32",
        backend,
        'get_weather\n{"city": "Paris"}>>>python\n' + code,
        None,
        [("get_weather", {"city": "Paris"}), ("python", {"code": code})],
    )


@params
def test_functionary_v32_malformed_and_truncated(backend: str) -> None:
    parser = toolparse.get_parser("functionary_v32", backend=backend)
    for bad in ('f\n{"a": 1]', 'all\nx>>>f\n{"a": tru}'):
        info = parser.extract_tool_calls(bad)
        assert (info.tools_called, info.content) == (False, bad), bad
    info = parser.extract_tool_calls('f\n{}>>>g\n{"a": [1')
    assert info.truncated and [c.function.name for c in info.tool_calls] == ["f"]
