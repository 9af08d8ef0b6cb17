"""Hand-written model outputs per format: text with no call that looks a little like the
format's markup, malformed markup and truncated outputs (the peers' own cases among them).
The generators in :mod:`toolparse.testing.patterns` add cases made from the spec entry.
"""

from __future__ import annotations

from typing import Dict, List, Tuple

NO_CALL_TEXTS = [
    "Hello, how can I help you?",
    "This is a regular response.",
    "",
    "   \n  ",
    "\n",
    "Unicode 日本語 🎉 and a backslash \\ and quotes \"'",
]


# Text that looks a little like a format's markup but holds no call: all of it is content.
NO_CALL_LOOKALIKES: Dict[str, List[str]] = {
    "pythonic": [
        "[1] see the footnote",
        "See [link](https://x.y) and [O'Reilly].",
        "[]",
        "a[0] = b",
    ],
    "llama4_pythonic": ["[1] see the footnote", "See [link](https://x.y)", "[]"],
    "llama3_json": ['Use {braces} and {"name": "Bob"} here', "{}", "{ not json"],
    "hermes": ["I use <tool> tags and <tool_call without closing", "a < b > c"],
    "mistral": ["[TOOL] and [CALLS] and [TOOL_CALL]", "[1, 2]"],
    "qwen3_coder": ["<function> tags and <parameter> words", "a < b"],
    "seed_oss": ["<seed:think> is not a call", "<function> and a < b"],
    "minimax_m2": ["<invoke> and <parameter name> words", "a < b", "<minimax:tool_call>x"],
    "glm45": ["<tool_call> {json}", "<tool_call>a b", "<arg_key>k</arg_key>"],
    "glm47": ["<tool_call> {json}", "<tool_call>a b", "<arg_value>v</arg_value>"],
    "step3": ["<｜tool_call_begin｜> and <steptml:invoke> words"],
    "deepseek_v32": ["<｜DSML｜> words", "<｜DSML｜invoke name=x>"],
    "openai": ["<|not a marker|> and <| or |>", "to=functions.f is just text"],
    "deepseek_v3": ['```json\n{"a": 1}\n```', "<｜tool▁sep｜> and <｜tool▁call▁begin｜>f"],
    "deepseek_v31": ["<｜tool▁call▁begin｜>f<｜tool▁sep｜>{}", "<｜tool▁calls▁end｜>"],
    "kimi_k2": ["functions.f:0 {}", "<|tool_call_begin|>functions.f:0", "<|tool_calls_section"],
    "xlam": [
        "[1] see the footnote",
        "See [link](https://x.y) and []",
        "```python\nprint([1, 2])\n```",
        '```json\n{"a": [1]}\n```',
        "[TOOL_CALLS] and <tool_call> words",
    ],
    "phi4_mini_json": ["import functools; functools.partial(f)", "functools[] and functools[1]"],
    "functiongemma": ["call:f{a:1}", "<escape>x<escape>", "<end_function_call> and {a:1}"],
}


MALFORMED: Dict[str, List[str]] = {
    "hermes": [
        '<tool_call>{"name": "func", "arguments": {</tool_call>',
        '<tool_call>{"name": "func", "arguments": {"a": 1]}</tool_call>',
        '<tool_call>{"name": "func", "arguments": {"a": undefined}}</tool_call>',
        "<tool_call>not json at all</tool_call>",
        '<tool_call>{"name": "ok", "arguments": {}}</tool_call>\n<tool_call>{"name": "bad", '
        '"arguments": {"x": tru}}</tool_call>',
        '<tool_call>{"name": "f", "arguments": "not an object"}</tool_call>',
        '<tool_call>{"name": "f", "arguments": [1, 2]}</tool_call>',
    ],
    "mistral": [
        '[TOOL_CALLS][{"name": "func", "arguments": {]',
        '[TOOL_CALLS]func{"a": tru}',
        '[TOOL_CALLS]func{"a": 1]',
        'Sure [TOOL_CALLS][{"name": "f", "arguments": {"a": "x"}}, {"name": }]',
        "[TOOL_CALLS]( bad",
    ],
    "llama3_json": [
        '<|python_tag|>{"name": "func", "parameters": {"a": }}',
        "<|python_tag|>not json",
        '{"name": "func", "parameters": {"a": [1, 2}}',
    ],
    "pythonic": [
        "[func(arg='val']",
        "[func(arg=undefined)]",
        "[func(a=1), g(b=[1, 2)]",
        # a call with no JSON form (bytes) is dropped, but a syntax error anywhere is malformed
        "[f(a=b'z'), g(b=[1, 2)]",
    ],
    "llama4_pythonic": [
        "<|python_start|>[func(arg='val']<|python_end|>",
        "<|python_start|>[func(arg=undefined)]<|python_end|>",
        "[func(arg='val']",
    ],
    "qwen3_coder": [
        "<function=get_weather>\nstray text\n</function>",
        "<tool_call>\n<function=get_weather>\njunk\n</function>\n</tool_call>",
    ],
    "seed_oss": [
        "<seed:tool_call>\n<function=get_weather>\njunk\n</function>\n</seed:tool_call>",
        "<function=get_weather>\n<parameter=a\nb>\n1\n</parameter>\n</function>",
    ],
    "minimax_m2": [
        '<minimax:tool_call>\n<invoke name="f">\njunk\n</invoke>\n</minimax:tool_call>',
        '<minimax:tool_call>\n<invoke name="f">\n<parameter name="a\nb">1</parameter></invoke>',
        '<minimax:tool_call><invoke name="f"><parameter name="a"b>1</parameter></invoke>',
    ],
    "glm45": [
        "<tool_call>get_weather\njunk\n</tool_call>",
        "<tool_call>get_weather\n<arg_key>city</arg_key>\nTokyo\n</tool_call>",
    ],
    "glm47": [
        "<tool_call>get_weather<arg_key>city</arg_key>Tokyo</tool_call>",
        "<tool_call>f<arg_key>a\nb</arg_key><arg_value>1</arg_value></tool_call>",
    ],
    "step3": [
        '<｜tool_calls_begin｜><｜tool_call_begin｜>function<｜tool_sep｜><steptml:invoke name="f">'
        "junk</steptml:invoke><｜tool_call_end｜><｜tool_calls_end｜>",
    ],
    "deepseek_v32": [
        '<｜DSML｜function_calls>\n<｜DSML｜invoke name="f">\njunk\n</｜DSML｜invoke>',
        '<｜DSML｜function_calls><｜DSML｜invoke name="f"><｜DSML｜parameter name="a" '
        'strng="x">1</｜DSML｜parameter></｜DSML｜invoke></｜DSML｜function_calls>',
    ],
    "openai": [
        '<|channel|>commentary to=functions.f <|constrain|>json<|message|>{"a": }<|call|>',
        "<|channel|>commentary to=functions.f <|constrain|>json<|message|>[1, 2]<|call|>",
        '<|channel|>commentary to=functions.f <|constrain|>json<|message|>{"a": tru}<|call|>',
    ],
    "deepseek_v3": [
        # vLLM's own malformed cases: unclosed JSON; no call-begin marker in the section
        "<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>get_weather\n```json\n"
        '{"city": "Tokyo"\n```<｜tool▁call▁end｜><｜tool▁calls▁end｜>',
        '<｜tool▁calls▁begin｜>function<｜tool▁sep｜>get_weather\n```json\n{"city": "Tokyo"}\n'
        "```<｜tool▁calls▁end｜>",
        "<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>f\n```json\n[1]\n```"
        "<｜tool▁call▁end｜>",
    ],
    "deepseek_v31": [
        '<｜tool▁calls▁begin｜>foo<｜tool▁sep｜>{"x":1}<｜tool▁calls▁end｜>',
        '<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>foo<｜tool▁sep｜>{"x": tru}<｜tool▁call▁end｜>',
        "<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>a b<｜tool▁sep｜>{}<｜tool▁call▁end｜>",
        '<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>f<｜tool▁sep｜>{"a": 1} x<｜tool▁call▁end｜>',
    ],
    "kimi_k2": [
        "<|tool_calls_section_begin|><|tool_call_begin|>functions.invalid.0"
        '<|tool_call_argument_begin|>{"city": "Beijing"}<|tool_call_end|>'
        "<|tool_calls_section_end|>",
        "<|tool_calls_section_begin|><|tool_call_begin|>functions.f:0<|tool_call_argument_begin|>"
        '{"a": 1]<|tool_call_end|><|tool_calls_section_end|>',
        # (text in the section outside a call is not malformed: kimi_k2 drops it)
    ],
    "functiongemma": [
        "<start_function_call>call:f{a:}<end_function_call>",
        "<start_function_call>call:f{a:1]}<end_function_call>",
        "<start_function_call>get_weather{a:1}<end_function_call>",
        "<start_function_call>call:get weather{}<end_function_call>",
        "<start_function_call>call:f{a:<oops>}<end_function_call>",
        "<start_function_call>call:f{a:<escape>x<escape>}<end_function_call>"
        "<start_function_call>call:g{b:1 2}<end_function_call>",
    ],
}

# Outputs that end inside a call (max_tokens), with how many calls completed before it: those
# are kept; with none, non-streaming returns the text whole as content (nothing is lost).
TRUNCATED: Dict[str, List[Tuple[str, int]]] = {
    "hermes": [
        ('<tool_call>{"name": "func", "arguments": {"a": 1}', 0),
        ('<tool_call>{"name": "func", "argu', 0),
        ("Text <tool_call>", 0),
        # the string never closes: the end tag is inside it, as far as anyone can tell
        ('Text <tool_call>{"name": "f", "arguments": {"a": "unterminated}}</tool_call>', 0),
        ('<tool_call>{"name": "f", "arguments": {}}</tool_call>\n<tool_call>{"name": "g", "ar', 1),
        ('Hi <tool_call>{"name": "f", "arguments": {}}</tool_call>\n<tool_call>\n', 1),
    ],
    "mistral": [
        ('[TOOL_CALLS][{"name": "func", "arguments": {"a": 1}}', 1),
        ('[TOOL_CALLS][{"name": "f", "arguments": {}}, {"name": "g", "arguments": {"a"', 1),
        ('[TOOL_CALLS]func[ARGS]{"a": 1', 0),
        ("[TOOL_CALLS]", 0),
        ("[TOOL_CALLS]func", 0),
        ("[TOOL_CALLS] bad", 0),
        ('[TOOL_CALLS]f{"a": 1}[TOOL_CALLS]g{"b', 1),
        ('[TOOL_CALLS]f{"a": 1}[TOOL_CALLS]g', 1),
    ],
    "llama3_json": [
        ('<|python_tag|>{"name": "func", "parameters": {"a": 1}', 0),
        (
            '<|python_tag|>{"name": "func", "parameters": {"a": 1}}; '
            '{"name": "g", "parameters": {"',
            1,
        ),
        ('<|python_tag|>{"name": "f", "parameters": {}}; {"na', 1),
    ],
    "pythonic": [
        ("[func(arg='val')", 1),
        ("[func(arg=", 0),
        ("[func(arg='unterminated)]", 0),
        ("[f(a=1), g(b=", 1),
    ],
    "llama4_pythonic": [
        ("<|python_start|>[func(arg='val')", 1),
        ("<|python_start|>", 0),
        ("<|python_start|>[f(), g(a='x", 1),
    ],
    "qwen3_coder": [
        ("<tool_call>\n<function=get_weath", 0),
        ("<tool_call>\n<function=get_weather>\n<parameter=city>\nTok", 0),
        ("<tool_call>\n<function=get_weather>\n<parameter=ci", 0),
        ("Hello <tool_call>", 0),
        (
            "<tool_call>\n<function=get_time>\n</function>\n</tool_call>\n<tool_call>\n"
            "<function=get_weather>\n<parameter=city>\nPa",
            1,
        ),
        ("<tool_call>\n<function=get_time>\n</function>\n</tool_call>\n<tool_call>\n<func", 1),
    ],
    "seed_oss": [
        ("<seed:tool_call>\n<function=get_weath", 0),
        ("<seed:tool_call>\n<function=get_weather>\n<parameter=city>\nTok", 0),
        ("Hello <seed:tool_call>", 0),
        (
            "<seed:tool_call>\n<function=get_time>\n</function>\n</seed:tool_call>\n"
            "<seed:tool_call>\n<function=get_weather>\n<parameter=city>\nPa",
            1,
        ),
    ],
    "minimax_m2": [
        ('<minimax:tool_call>\n<invoke name="get_weath', 0),
        ('<minimax:tool_call>\n<invoke name="get_weather">\n<parameter name="city">Tok', 0),
        ('Hi <minimax:tool_call>\n<invoke name="get_weather"', 0),
        (
            '<minimax:tool_call>\n<invoke name="get_time">\n</invoke>\n'
            '<invoke name="get_weather">\n<parameter name="ci',
            1,
        ),
        ('<minimax:tool_call>\n<invoke name="get_time">\n</invoke>\n<invoke name="g', 1),
    ],
    "glm45": [
        ("<tool_call>get_weath", 0),
        ("<tool_call>get_weather\n<arg_key>city</arg_key>\n<arg_value>Tok", 0),
        ("Hi <tool_call>get_weather\n<arg_key>ci", 0),
        ("<tool_call>get_time\n</tool_call>\n<tool_call>get_weather\n<arg_key>city</arg_key>", 1),
        ("<tool_call>get_time\n</tool_call>\n<tool_call>get_wea", 1),
    ],
    "glm47": [
        ("<tool_call>get_weather<arg_key>city</arg_key><arg_value>Tok", 0),
        ("Hi <tool_call>", 0),
        ("<tool_call>get_time</tool_call><tool_call>get_weather<arg_key>city</arg_key><arg_v", 1),
    ],
    "step3": [
        ("<｜tool_calls_begin｜><｜tool_call_begin｜>function<｜tool_sep｜><steptml:inv", 0),
        (
            "<｜tool_calls_begin｜><｜tool_call_begin｜>function<｜tool_sep｜>"
            '<steptml:invoke name="f">\n<steptml:parameter name="city">Tok',
            0,
        ),
        (
            "<｜tool_calls_begin｜><｜tool_call_begin｜>function<｜tool_sep｜>"
            '<steptml:invoke name="f"></steptml:invoke><｜tool_call_end｜>'
            "<｜tool_call_begin｜>function<｜tool_sep｜>",
            1,
        ),
    ],
    "deepseek_v32": [
        ('<｜DSML｜function_calls>\n<｜DSML｜invoke name="get_wea', 0),
        (
            '<｜DSML｜function_calls>\n<｜DSML｜invoke name="f">\n<｜DSML｜parameter name="city" '
            'string="true">Tok',
            0,
        ),
        ('Hi <｜DSML｜function_calls>\n<｜DSML｜invoke name="f">\n<｜DSML｜parameter name="ci', 0),
        (
            '<｜DSML｜function_calls>\n<｜DSML｜invoke name="f">\n</｜DSML｜invoke>\n'
            '<｜DSML｜invoke name="g">\n<｜DSML｜parameter name="a" string="fal',
            1,
        ),
    ],
    "openai": [
        ('<|channel|>commentary to=functions.f <|constrain|>json<|message|>{"a": 1', 0),
        ("<|channel|>commentary to=functions.f", 0),
        (
            "<|channel|>commentary to=functions.f<|message|>{}<|call|><|start|>assistant"
            "<|channel|>commentary to=functions.g <|constrain|>json<|message|>{",
            1,
        ),
    ],
    "deepseek_v3": [
        ("Let me look.<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>get_wea", 0),
        (
            "<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>f\n```json\n"
            '{"a": 1}\n```<｜tool▁call▁end｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>g\n'
            '```json\n{"b',
            1,
        ),
    ],
    "deepseek_v31": [
        # vLLM's case: cut off part way through the block
        ("Let me look that up.<｜tool▁calls▁begin｜>", 0),
        ('<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>foo<｜tool▁sep｜>{"x"', 0),
        (
            "<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>f<｜tool▁sep｜>{}<｜tool▁call▁end｜>"
            "<｜tool▁call▁begin｜>g<｜tool▁s",
            1,
        ),
    ],
    "kimi_k2": [
        (
            "I'll check. <|tool_calls_section_begin|><|tool_call_begin|>functions.get_weather:0 "
            '<|tool_call_argument_begin|>{"city": "Bei',
            0,
        ),
        ("<|tool_calls_section_begin|><|tool_call_begin|>functions.get_wea", 0),
        (
            "<|tool_calls_section_begin|><|tool_call_begin|>functions.f:0<|tool_call_argument_begin|>"
            "{}<|tool_call_end|><|tool_call_begin|>functions.g:1<|tool_call_argument_begin|>{",
            1,
        ),
    ],
    "functiongemma": [
        ("<start_function_call>call:get_weather{location:<escape>Lon", 0),
        ("Let me check. <start_function_call>call:get_wea", 0),
        ("<start_function_call>", 0),
        ("<start_function_call>call:f{a:12", 0),
        ("<start_function_call>call:f{a:1}<end_function_call><start_function_call>call:g{b:[1,", 1),
        ("<start_function_call>call:f{}<end_function_call>\n<start_function_call>call:g", 1),
    ],
}

MALFORMED["olmo3"] = [
    "<function_calls>func(arg='val'</function_calls>",
    "<function_calls>func(arg=undefined)</function_calls>",
    "<function_calls>f(a=1) g()</function_calls>",
    "<function_calls>[f()]</function_calls>",
    "<function_calls>f(a=1)\nnot a call</function_calls>",
]
TRUNCATED["olmo3"] = [
    ("<function_calls>func(arg='val'", 0),
    ("<function_calls>func(arg=", 0),
    ("Hi <function_calls>", 0),
    ("<function_calls>f(a=1)\ng(b=", 1),
]
MALFORMED["lfm2"] = [
    "<|tool_call_start|>[func(arg='val']<|tool_call_end|>",
    "<|tool_call_start|>[func(arg=undefined)]<|tool_call_end|>",
    "<|tool_call_start|>func(a=1)<|tool_call_end|>",
    "<|tool_call_start|>[f(a=1), g(b=[1, 2)]<|tool_call_end|>",
]
TRUNCATED["lfm2"] = [
    ("<|tool_call_start|>[func(arg='val')", 1),
    ("<|tool_call_start|>", 0),
    ("Hi <|tool_call_start|>[f(), g(a='x", 1),
    ("<|tool_call_start|>[func(arg=", 0),
]

# ----- variant formats (spec entries in existing families) -----

# llama4_json is llama3_json's wire format
MALFORMED["llama4_json"] = list(MALFORMED["llama3_json"])
TRUNCATED["llama4_json"] = list(TRUNCATED["llama3_json"])

# dots and gigachat35: XML parameters in their own wrappers
MALFORMED["dots"] = [
    '<dots_function_call>\n<invoke name="f">\njunk\n</invoke>\n</dots_function_call>',
    '<dots_function_call>\n<invoke name="f">\n<parameter name="a\nb">1</parameter></invoke>',
    '<dots_function_call><invoke name="f"><parameter name="a"b>1</parameter></invoke>',
]
TRUNCATED["dots"] = [
    ('<dots_function_call>\n<invoke name="get_weath', 0),
    ('<dots_function_call>\n<invoke name="get_weather">\n<parameter name="city">Tok', 0),
    ('Hi <dots_function_call>\n<invoke name="get_weather"', 0),
    (
        '<dots_function_call>\n<invoke name="get_time">\n</invoke>\n'
        '<invoke name="get_weather">\n<parameter name="ci',
        1,
    ),
    ('<dots_function_call>\n<invoke name="get_time">\n</invoke>\n<invoke name="g', 1),
]
MALFORMED["gigachat35"] = [
    '<｜GCML｜tool_calls>\n<｜GCML｜invoke name="f">\njunk\n</｜GCML｜invoke>',
    '<｜GCML｜tool_calls><｜GCML｜invoke name="f"><｜GCML｜parameter name="a" '
    'strng="x">1</｜GCML｜parameter></｜GCML｜invoke></｜GCML｜tool_calls>',
]
TRUNCATED["gigachat35"] = [
    ('<｜GCML｜tool_calls>\n<｜GCML｜invoke name="get_wea', 0),
    (
        '<｜GCML｜tool_calls>\n<｜GCML｜invoke name="f">\n<｜GCML｜parameter name="city" '
        'string="true">Tok',
        0,
    ),
    ('Hi <｜GCML｜tool_calls>\n<｜GCML｜invoke name="f">\n<｜GCML｜parameter name="ci', 0),
    (
        '<｜GCML｜tool_calls>\n<｜GCML｜invoke name="f">\n</｜GCML｜invoke>\n'
        '<｜GCML｜invoke name="g">\n<｜GCML｜parameter name="a" string="fal',
        1,
    ),
]

# gemma4: functiongemma's syntax with its own markers
_G4S, _G4E, _G4Q = "<|tool_call>", "<tool_call|>", '<|"|>'
MALFORMED["gemma4"] = [
    f"{_G4S}call:f{{a:}}{_G4E}",
    f"{_G4S}call:f{{a:1]}}{_G4E}",
    f"{_G4S}get_weather{{a:1}}{_G4E}",
    f"{_G4S}call:get weather{{}}{_G4E}",
    f"{_G4S}call:f{{a:<oops>}}{_G4E}",
    f"{_G4S}call:f{{a:{_G4Q}x{_G4Q}}}{_G4E}{_G4S}call:g{{b:1 2}}{_G4E}",
]
TRUNCATED["gemma4"] = [
    (f"{_G4S}call:get_weather{{location:{_G4Q}Lon", 0),
    (f"Let me check. {_G4S}call:get_wea", 0),
    (f"{_G4S}", 0),
    (f"{_G4S}call:f{{a:12", 0),
    (f"{_G4S}call:f{{a:1}}{_G4E}{_G4S}call:g{{b:[1,", 1),
    (f"{_G4S}call:f{{}}{_G4E}\n{_G4S}call:g", 1),
]

# plamo3 (named_json, a tagged name and tagged arguments)
_PL = "<|plamo:"
_PL_SEC, _PL_SEC_END = _PL + "begin_tool_requests:plamo|>", _PL + "end_tool_requests:plamo|>"
_PL_CALL, _PL_CALL_END = _PL + "begin_tool_request:plamo|>", _PL + "end_tool_request:plamo|>"
_PL_NAME = _PL + "begin_tool_name:plamo|>"
_PL_ARGS = (
    _PL
    + "end_tool_name:plamo|>"
    + _PL
    + "begin_tool_arguments:plamo|>"
    + _PL
    + "constrain|>json"
    + _PL
    + "msg|>"
)
_PL_ARGS_END = _PL + "end_tool_arguments:plamo|>"


def plamo3_call(name: str, args: str, fence: bool = True) -> str:
    """One plamo3 call (``fence``: with its end-of-arguments marker)."""
    end = _PL_ARGS_END if fence else ""
    return f"{_PL_CALL}{_PL_NAME}{name}{_PL_ARGS}{args}{end}{_PL_CALL_END}"


MALFORMED["plamo3"] = [
    _PL_SEC + plamo3_call("f", '{"a": 1]') + _PL_SEC_END,
    _PL_SEC + plamo3_call("f", "[1, 2]") + _PL_SEC_END,
    _PL_SEC + plamo3_call("a b", "{}") + _PL_SEC_END,
    _PL_SEC + " noise " + plamo3_call("f", "{}") + _PL_SEC_END,
    _PL_SEC + plamo3_call("f", '{"a": 1} x') + _PL_SEC_END,
]
TRUNCATED["plamo3"] = [
    (_PL_SEC + _PL_CALL + _PL_NAME + "get_wea", 0),
    ("Let me look." + _PL_SEC, 0),
    (_PL_SEC + _PL_CALL + _PL_NAME + "f" + _PL_ARGS + '{"city": "Tok', 0),
    (_PL_SEC + plamo3_call("f", "{}") + _PL_CALL + _PL_NAME + "g" + _PL_ARGS + '{"b', 1),
]

# ling3, spark25, iquest_q1: glm-style XML parameters
for _fmt, _s, _e in (
    ("ling3", "<tool_call>", "</tool_call>"),
    ("spark25", "<tool_call>", "</tool_call>"),
    ("iquest_q1", "<iquest_tool_call>", "</iquest_tool_call>"),
):
    MALFORMED[_fmt] = [
        f"{_s}get_weather<arg_key>city</arg_key>Tokyo{_e}",
        f"{_s}f<arg_key>a\nb</arg_key><arg_value>1</arg_value>{_e}",
        f"{_s}get_weather\njunk\n{_e}",
    ]
    TRUNCATED[_fmt] = [
        (f"{_s}get_weather<arg_key>city</arg_key><arg_value>Tok", 0),
        (f"Hi {_s}", 0),
        (f"{_s}get_wea", 0),
        (f"{_s}get_time{_e}{_s}get_weather<arg_key>city</arg_key><arg_v", 1),
        (f"{_s}get_time{_e}\n{_s}get_wea", 1),
    ]

# kimi_k3: XTML (<|open|>NAME<|sep|> ... <|close|>NAME<|sep|> blocks with attributes)
_K3_T, _K3_TE = "<|open|>tools<|sep|>", "<|close|>tools<|sep|>"
_K3_CE = "<|close|>call<|sep|>"


def _k3_call(name: str, index: int, args: str = "") -> str:
    return f'<|open|>call tool="{name}" index="{index}"<|sep|>{args}{_K3_CE}'


def _k3_arg(key: str, ty: str, value: str) -> str:
    return f'<|open|>argument key="{key}" type="{ty}"<|sep|>{value}<|close|>argument<|sep|>'


NO_CALL_LOOKALIKES["kimi_k3"] = [
    _k3_call("f", 1),  # a call outside the tools channel is text (both peers)
    "<|open|> and <|sep|> and <|close|> words",
    "<|open|>tool<|sep|>x<|close|>tool<|sep|>",
]
MALFORMED["kimi_k3"] = [
    # text between arguments after the call started
    f"{_K3_T}{_k3_call('get_weather', 1, 'junk')}{_K3_TE}",
    # a type the template never writes
    f"{_K3_T}{_k3_call('f', 1, _k3_arg('a', 'weird', '1'))}{_K3_TE}",
    # the call's attributes run into the next block (no <|sep|>)
    f'{_K3_T}<|open|>call tool="f" index="1"{_k3_arg("a", "string", "x")}{_K3_CE}{_K3_TE}',
    f"Hi {_K3_T}{_k3_call('get_time', 1)}{_k3_call('g', 2, 'junk here')}{_K3_TE}",
]
_K3_W = _K3_T + '<|open|>call tool="get_weather" index="1"<|sep|>'
_K3_G = _K3_T + _k3_call("get_time", 1) + '<|open|>call tool="g'
TRUNCATED["kimi_k3"] = [
    (f'{_K3_T}<|open|>call tool="get_wea', 0),
    (f'{_K3_T}<|open|>call tool="get_weather" ind', 0),
    (f'{_K3_W}<|open|>argument key="ci', 0),
    (f'{_K3_W}<|open|>argument key="city" type="string"<|sep|>Tok', 0),
    (f"Hello {_K3_T}", 0),
    (
        f"<|open|>response<|sep|>Let me check<|close|>response<|sep|>{_K3_W}"
        '<|open|>argument key="days" type="number"<|sep|>3',
        0,
    ),
    (f'{_K3_G}" index="2"<|sep|><|open|>argument key="city" type="string"<|sep|>Pa', 1),
    (f"<|open|>response<|sep|>Hi<|close|>response<|sep|>{_K3_G}", 1),
]


# minimax_m3 (namespaced XML elements)
_MM = "]<]minimax[>["
_MM_S, _MM_E = _MM + "<tool_call>", _MM + "</tool_call>"


def minimax_m3_invoke(name: str, params: str) -> str:
    """One minimax_m3 invoke; ``params`` written with :func:`minimax_m3_el`."""
    return f'{_MM}<invoke name="{name}">{params}{_MM}</invoke>'


def minimax_m3_el(name: str, body: str) -> str:
    return f"{_MM}<{name}>{body}{_MM}</{name}>"


MALFORMED["minimax_m3"] = [
    _MM_S + minimax_m3_invoke("f", "junk" + minimax_m3_el("a", "1")) + _MM_E,
    _MM_S + minimax_m3_invoke("f", f"{_MM}<a>1{_MM}</b>") + _MM_E,
    _MM_S + minimax_m3_invoke("f", f"{_MM}<a>1{_MM}x") + _MM_E,
    _MM_S + minimax_m3_invoke("f", f"{_MM}< >1{_MM}</ >") + _MM_E,
    _MM_S + minimax_m3_invoke("f", minimax_m3_el("a", f"{_MM}</invoke>")) + _MM_E,
    _MM_S + minimax_m3_invoke("f", f"{_MM}<a>1{_MM}</a>{_MM}</tool_call>"),
]
TRUNCATED["minimax_m3"] = [
    (f'{_MM_S}\n{_MM}<invoke name="get_wea', 0),
    (f"Let me check. {_MM_S}", 0),
    (_MM_S + f'{_MM}<invoke name="f">' + minimax_m3_el("city", "Paris") + f"{_MM}<unit>cel", 0),
    (_MM_S + f'{_MM}<invoke name="f">{_MM}<a>{_MM}<b>1{_MM}</b>{_MM}</', 0),
    (_MM_S + minimax_m3_invoke("f", "") + f'\n{_MM}<invoke name="g">{_MM}<a', 1),
    (_MM_S + minimax_m3_invoke("f", minimax_m3_el("a", "1")) + "\n" + _MM + "<invo", 1),
]
NO_CALL_LOOKALIKES["minimax_m3"] = [
    "<tool_call> and <invoke name=f> words",
    minimax_m3_invoke("f", ""),
    f"{_MM} alone, {_MM}<tool_call>x",
]

# inkling: typed message blocks (the prompt ends with <|message_model|>)
_INK_M, _INK_E = "<|message_model|>", "<|end_message|>"
_INK_J, _INK_X = "<|content_invoke_tool_json|>", "<|content_text|>"
NO_CALL_LOOKALIKES["inkling"] = [
    '{"name": "f", "args": {}}',
    "<|content_text and <|end_message are not markers",
    "message_model content_invoke_tool_json",
]
# a complete call, then the message marker of the next block
_INK_F = _INK_J + '{"name": "f", "args": {}}' + _INK_E + _INK_M
MALFORMED["inkling"] = [
    _INK_J + '{"name": "f", "args": {' + _INK_E,
    _INK_J + '{"name": "f", "args": {"a": 1]}' + _INK_E,
    _INK_J + '{"name": "f", "args": {"a": tru}}' + _INK_E,
    _INK_J + "not json at all" + _INK_E,
    _INK_J + _INK_E,
    _INK_J + '{"name": "f", "args": [1]}' + _INK_E,
    _INK_J + '{"name": "f", "args": "not an object"}' + _INK_E,
    _INK_J + '{"args": {"a": 1}}' + _INK_E,
    _INK_X + "Hi" + _INK_E + _INK_M + _INK_F + _INK_J + '{"name": "bad", "args": {"x": tru}}',
]
TRUNCATED["inkling"] = [
    (_INK_J + '{"name": "get_weather", "args": {"city": "Tok', 0),
    (_INK_X + "Let me check." + _INK_E + _INK_M + _INK_J + '{"name": "get_wea', 0),
    (_INK_J, 0),
    (_INK_F + _INK_J + '{"name": "g", "args": {"b": [1,', 1),
    (_INK_F + "g" + _INK_J + '{"na', 1),
]
# muse, muse_glimmer: recipient headers around ATEM calls (XML parameters)
_MU_TOOL = "<|start|>assistant to=functions.f<|message|>"
_MU_INV = '<atem:invoke name="f"><atem:parameter name="a">1</atem:parameter></atem:invoke>'
for _fmt in ("muse", "muse_glimmer"):
    NO_CALL_LOOKALIKES[_fmt] = [
        "to=self is just text",
        "<atem:invoke> and <|not a marker|>",
        "a <| b |> c <atem:function_calls>",
    ]
    MALFORMED[_fmt] = [
        # a header with another role
        "<|start|>user<|message|>hi<|eom|>" + _MU_TOOL + _MU_INV + "<|eom|>",
        # a tool body that ends inside a call
        _MU_TOOL + '<atem:invoke name="f"><atem:parameter name="a">1<|eom|>',
        # text between parameters
        _MU_TOOL + '<atem:invoke name="f">junk</atem:invoke><|eom|>',
        # a stray end marker between messages
        " to=self<|message|>x<|eom|> <|eot|>" + _MU_TOOL + _MU_INV,
    ]
    TRUNCATED[_fmt] = [
        (_MU_TOOL + '<atem:invoke name="f"><atem:parameter name="a">To', 0),
        (" to=self<|message|>Let me look.<|eom|><|start|>assistant to=functions.get_wea", 0),
        (_MU_TOOL + '<atem:function_calls>\n<atem:invoke name="get_wea', 0),
        (_MU_TOOL + _MU_INV + '\n<atem:invoke name="g"><atem:parameter name="b', 1),
        (_MU_TOOL + _MU_INV + "<|eom|>" + _MU_TOOL + '<atem:invoke name="g">', 1),
    ]
# beam: harmony messages; a call's body holds XML parameters
_BM_TOOL = "<|start|>assistant to=get_weather<|channel|>analysis <|constrain|>xml<|message|>"
_BM_P = '<rfl:parameter name="city">\nTokyo\n</rfl:parameter>'
NO_CALL_LOOKALIKES["beam"] = [
    "to=get_weather is just text",
    '<rfl:parameter name="city"> and <|not a marker|>',
    "a <| b |> c </rfl:parameter>",
]
MALFORMED["beam"] = [
    # a header with another role
    "<|start|>user<|channel|>final<|message|>hi<|end|>" + _BM_TOOL + _BM_P + "<|call|>",
    # a call body that ends inside a value
    _BM_TOOL + '<rfl:parameter name="city">\nTokyo<|call|>',
    # text between parameters
    _BM_TOOL + "junk" + _BM_P + "<|call|>",
    # a stray end marker before any message
    "<|call|>" + _BM_TOOL + _BM_P,
]
TRUNCATED["beam"] = [
    (_BM_TOOL + '<rfl:parameter name="city">\nTo', 0),
    ("<|channel|>analysis<|message|>Let me look.<|end|><|start|>assistant to=get_wea", 0),
    (_BM_TOOL + '<rfl:parameter name="ci', 0),
    (_BM_TOOL + _BM_P + "<|end|>" + _BM_TOOL + '<rfl:parameter name="city">\nOsa', 1),
    (_BM_TOOL + _BM_P + "<|end|><|start|>assistant to=get_weather<|chan", 1),
]

# ----- the formats llama.cpp reads that neither server registers (tagged_json entries) -----

# apriel: a list in <tool_calls>; the final response's wrapper is markup
NO_CALL_LOOKALIKES["apriel"] = [
    "[BEGIN RESPONSE] and [END FINAL] are not markers; the list [1, 2] is short.",
    "<tool_call> and <tool_calls words",
]
MALFORMED["apriel"] = [
    '<tool_calls>[{"name": "f", "arguments": {"a": 1}]</tool_calls>',
    '<tool_calls>{"name": "f", "arguments": {}}</tool_calls>',
    '<tool_calls>[{"name": "f", "arguments": {}} {"name": "g", "arguments": {}}]</tool_calls>',
]
TRUNCATED["apriel"] = [
    ('<tool_calls>[{"name": "get_weather", "arguments": {"city": "Pa', 0),
    ('[BEGIN FINAL RESPONSE]\n<tool_calls>[{"name": "get_wea', 0),
    ('<tool_calls>[{"name": "f", "arguments": {}}, {"name": "g", "arguments": {"a', 1),
]
# command_r: Command R+'s Action list in a json fence
NO_CALL_LOOKALIKES["command_r"] = [
    "Action: none needed.",
    'Here is JSON:\n```json\n[{"tool_name": "f"}]\n```',
]
MALFORMED["command_r"] = [
    'Action:\n```json\n[{"tool_name": "f", "parameters": {"a": 1]}]\n```',
    'Action: ```json\n{"tool_name": "f", "parameters": {}}\n```',
    'Action:\n```json\n[{"name": "f", "arguments": {}}]\n```',
]
TRUNCATED["command_r"] = [
    ('Plan: check.\nAction:\n```json\n[\n    {\n        "tool_name": "get_wea', 0),
    ('Action: ```json\n[{"tool_name": "f", "parameters": {}}, {"tool_name": "g", "param', 1),
]
# nemotron_nano_v2: a list in <TOOLCALL>
NO_CALL_LOOKALIKES["nemotron_nano_v2"] = ["<TOOL_RESPONSE>[1]</TOOL_RESPONSE> is not a call"]
MALFORMED["nemotron_nano_v2"] = [
    '<TOOLCALL>[{"name": "f", "arguments": {"a": tru}}]</TOOLCALL>',
    '<TOOLCALL>[{"name": "f", "arguments": 3}]</TOOLCALL>',
]
TRUNCATED["nemotron_nano_v2"] = [
    ('<TOOLCALL>[{"name": "get_weather", "arguments": {"city": "To', 0),
    ('<TOOLCALL>[{"name": "f", "arguments": {}}, {"name": "g", "arguments": "{\\"a', 1),
]

# ----- MeetKai Functionary (the functionary family) -----

# functionary_v31: <function=NAME>{...}</function> in text; <|python_tag|> then raw code
NO_CALL_LOOKALIKES["functionary_v31"] = [
    "The <function> tag and <function name=f> are HTML-ish, </function> too.",
    "a <|python_tag without its end",
]
MALFORMED["functionary_v31"] = [
    '<function=get_weather>{"city": "Paris"]</function>',
    '<function=get weather>{"city": "Paris"}</function>',
    "<function=get_weather>city=Paris</function>",
    '<function=f>{"a": 1}</function><function=g>{"b": tru}</function>',
    '<function=f>{"a": 1} trailing</function>',
]
TRUNCATED["functionary_v31"] = [
    ('<function=get_weather>{"city": "Pa', 0),
    ("Let me check. <function=get_wea", 0),
    ('<function=f>{}</function><function=g>{"a": [1', 1),
]
# functionary_v32: recipient messages after the prompt's ">>>" (all = content)
NO_CALL_LOOKALIKES["functionary_v32"] = [
    "Type >>> print(1) in the REPL; a >> b and c->d.",
    'Result:\n{"a": 1}',
    "all the best\nfrom us",
]
MALFORMED["functionary_v32"] = [
    'get_weather\n{"city": "Paris"]',
    'all\nChecking.>>>get_weather\n{"city": tru}',
    'f\n{"a": 1}>>>g\n{"b": [1}',
]
TRUNCATED["functionary_v32"] = [
    ('get_weather\n{"city": "Pa', 0),
    ('all\nChecking.>>>get_weather\n{"ci', 0),
    ('f\n{}>>>g\n{"a": [1', 1),
]
