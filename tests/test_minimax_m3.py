"""minimax_m3 (the ``xml_elements`` family): MiniMax-M3's namespaced XML elements, nested and
typed by the tool's schema tree. The peers' own cases (vLLM ``tests/parser/engine/
test_minimax_m3.py``, SGLang's ``MinimaxM3Detector``), both backends, streaming and not, every
split of short texts.

Both peers parse the same wire format (SGLang registers it as ``minimax-m3``, our alias). Where
toolparse differs from them, a test below pins it and says why:

* a string-typed parameter streams as it arrives (the invariants forbid arguments in one lump);
  so a parameter written twice at the top level is written twice (a JSON parser keeps the last;
  both peers collect the values into a list, which needs the whole call first), and an element
  inside a streaming string parameter is malformed (vLLM makes it an object; SGLang fails too and
  returns the text as content);
* malformed markup inside a call (text between parameters, a closing tag of another element, the
  namespace not followed by a tag, an element deeper than 128) makes the output content, as for
  every format (vLLM keeps the parameters before it, SGLang skips the text);
* text after the tool-call block is content (SGLang too; vLLM drops it);
* a call the output ends inside is unfinished (vLLM converts the parameters it has);
* a typed value ``None`` (any case) is null, as in every XML-parameter format (both peers keep
  the string "None" for an integer parameter), and typed leaves follow those formats' stricter
  rules (vLLM falls back to ``json.loads`` of any text);
* the namespace followed by whitespace before a tag is not markup (SGLang drops the whitespace;
  vLLM finds no call either).
"""

from __future__ import annotations

import json
import random
from typing import Any, List, Optional, Tuple

import corpus
import helpers
import pytest
import toolparse
from corpus import split_plans
from toolparse import _core, reference
from toolparse.parser import _schema_trees, _tool_models

BACKENDS = ("rust", "python")
Calls = List[Tuple[str, str]]
NS = "]<]minimax[>["
START, END = NS + "<tool_call>", NS + "</tool_call>"

TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "create_order",
            "parameters": {
                "type": "object",
                "properties": {
                    "user_id": {"type": "integer"},
                    "note": {"type": "string"},
                    "tags": {"type": "array", "items": {"type": "string"}},
                    "shipping": {"type": "object", "properties": {"zip": {"type": "integer"}}},
                    "either": {
                        "anyOf": [
                            {"type": "array", "items": {"type": "integer"}},
                            {"type": "string"},
                        ]
                    },
                    "free": {"type": "object"},
                    "extra": {"type": "object", "additionalProperties": {"type": "number"}},
                },
            },
        },
    }
]


def el(name: str, body: str) -> str:
    return f"{NS}<{name}>{body}{NS}</{name}>"


def invoke(name: str, params: str, quote: str = '"') -> str:
    return f"{NS}<invoke name={quote}{name}{quote}>{params}{NS}</invoke>"


def block(*invokes: Tuple[str, str]) -> str:
    return START + "\n" + "\n".join(invoke(n, p) for n, p in invokes) + "\n" + END


def streamed(backend: str, chunks: List[str], tools: Any = TOOLS) -> Tuple[Any, ...]:
    """Streams through the facade: (content, [(name, arguments)], malformed, truncated)."""
    parser = toolparse.get_parser("minimax_m3", tools=tools, backend=backend)
    return corpus.stream_outcome(parser, chunks)


def extracted(backend: str, text: str, tools: Any = TOOLS) -> Tuple[Any, ...]:
    info = toolparse.get_parser("minimax_m3", tools=tools, backend=backend).extract_tool_calls(text)
    assert info.tools_called == bool(info.tool_calls)
    return info.content, [(c.function.name, c.function.arguments) for c in info.tool_calls]


NESTED = (
    el("tags", el("item", "a") + el("item", "b"))
    + el("shipping", el("zip", "018956"))
    + el("either", el("item", "1") + el("item", "2"))
    + el("free", el("t", "x") + el("t", "y"))
)

# (text, content, [(name, arguments)]): vLLM's cases, the arguments as its tests expect them
CASES: List[Tuple[str, Optional[str], Calls]] = [
    (block(("create_order", NESTED)), None, [("create_order", json.dumps({
        "tags": ["a", "b"], "shipping": {"zip": 18956}, "either": [1, 2],
        "free": {"t": ["x", "y"]}}))]),
    # the template writes [] and {} as empty elements
    (block(("create_order", el("tags", "") + el("shipping", "") + el("note", "")
                            + el("either", ""))), None,
     [("create_order", '{"tags": [], "shipping": {}, "note": "", "either": ""}')]),
    # a tool the request does not declare: text stays text, nested elements are objects
    (block(("other", el("n", "1") + el("list", el("item", "a") + el("item", "b")))), None,
     [("other", '{"n": "1", "list": {"item": ["a", "b"]}}')]),
    # mixed text under a reserved field that no element uses
    (block(("create_order", el("free", "hi " + el("k", "v") + " there")
                            + el("extra", "x" + el("$text", "2")))), None,
     [("create_order", '{"free": {"k": "v", "$text": "hi  there"}, '
                       '"extra": {"$text": 2, "$$text": "x"}}')]),
    # leaf text is verbatim for strings, trimmed and typed otherwise
    (block(("create_order", el("note", "\n  a <b> & c\n") + el("user_id", " 7 "))), None,
     [("create_order", '{"note": "\\n  a <b> & c\\n", "user_id": 7}')]),
    # an element named like a block marker is an argument
    (block(("create_order", el("free", el("tool_call", "v")))), None,
     [("create_order", '{"free": {"tool_call": "v"}}')]),
    ("Checking.\n" + block(("create_order", el("user_id", "1")),
                           ("create_order", el("user_id", "2"))), "Checking.\n",
     [("create_order", '{"user_id": 1}'), ("create_order", '{"user_id": 2}')]),
    ("a" + block(("create_order", el("shipping", el("zip", "1"))),
                 ("create_order", el("note", "x"))), "a",
     [("create_order", '{"shipping": {"zip": 1}}'), ("create_order", '{"note": "x"}')]),
    ("Sure. " + block(("create_order", el("user_id", "42") + el("tags", ""))), "Sure. ",
     [("create_order", '{"user_id": 42, "tags": []}')]),
    # an invoke outside a block is content
    (invoke("create_order", ""), invoke("create_order", ""), []),
    # the name single-quoted or bare (vLLM's other spellings; SGLang reads only "N")
    (START + invoke("create_order", el("user_id", "1"), "'") + END, None,
     [("create_order", '{"user_id": 1}')]),
    (START + invoke("create_order", el("user_id", "1"), "") + END, None,
     [("create_order", '{"user_id": 1}')]),
    # a block whose end is missing keeps its calls (vLLM)
    ("pre" + START + invoke("create_order", el("user_id", "1")), "pre",
     [("create_order", '{"user_id": 1}')]),
    # additionalProperties types the members an object's properties do not name
    (block(("create_order", el("extra", el("a", "1.50") + el("b", "2")))), None,
     [("create_order", '{"extra": {"a": 1.5, "b": 2}}')]),
    # no arguments
    (block(("create_order", "")), None, [("create_order", "{}")]),
    (block(("create_order", "\n")), None, [("create_order", "{}")]),
]  # fmt: skip


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("text,content,calls", CASES)
def test_peer_cases(backend: str, text: str, content: Optional[str], calls: Calls) -> None:
    assert extracted(backend, text) == (content, calls)
    parser = toolparse.get_parser("minimax_m3", tools=TOOLS, backend=backend)
    helpers.check(
        parser, text, content, calls, exact=True, chunkings=helpers.plans(text, sample_over=200)
    )


@pytest.mark.parametrize("backend", BACKENDS)
def test_the_sample_parses(backend: str) -> None:
    from toolparse import samples

    (text,) = samples.load("minimax_m3")
    content, calls = extracted(backend, text, samples.tools())
    assert content == "I'll write the file and check the weather.\n"
    assert [json.loads(a) for _, a in calls] == [
        {"path": "notes/todo.md", "content": '- buy milk\n- call "Bob"'},
        {"city": "Paris", "days": 3},
    ]


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_string_parameter_streams_and_the_others_follow_when_they_close(backend: str) -> None:
    """vLLM sends the arguments at ``</invoke>``; here ``{`` goes with the call start, a string
    parameter as it arrives, a typed one when it closes."""
    s = toolparse.get_parser("minimax_m3", tools=TOOLS, backend=backend).stream()
    head = START + f'{NS}<invoke name="create_order">'
    pieces = [head, f"{NS}<note>he", "llo", f"{NS}</note>{NS}<user_id>4", f"2{NS}</user_id>"]
    got = []
    for piece in pieces:
        d = s.feed(piece)
        got.append(None if d is None else [c.function.arguments for c in d.tool_calls or []])
    assert got == [["{"], ['"note": "he'], ["llo"], ['"'], [', "user_id": 42']]
    d = s.feed(f"{NS}</invoke>")
    assert d is not None and [c.function.arguments for c in d.tool_calls or []] == ["}"]


# Short texts split at every cut and at sampled pairs of cuts.
EVERY_SPLIT = [
    "Hi " + block(("create_order", el("note", 'a"b') + el("either", el("item", "1")))),
    START + invoke("create_order", el("shipping", el("zip", "1")), "'") + "\n after",
    block(("create_order", el("user_id", "1") + "junk")),
]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("text", EVERY_SPLIT)
def test_every_split(backend: str, text: str) -> None:
    """Every single cut, and pairs of cuts (sampled), give the result of the whole text."""
    corpus.check_cuts(lambda chunks: streamed(backend, chunks), text)


@pytest.mark.parametrize("text", [c[0] for c in CASES] + EVERY_SPLIT)
def test_twins_agree_per_feed_with_the_schema_tree(text: str) -> None:
    types = corpus.schema_types(TOOLS)
    trees = _schema_trees(_tool_models(TOOLS))
    assert _core.extract("minimax_m3", text, types, None, None, trees) == reference.extract(
        "minimax_m3", text, types, None, None, trees
    )
    for k in range(0, len(text) + 1, 5):
        out = []
        for make in (_core.Parser, reference.Parser):
            p = make("minimax_m3", types, None, None, trees)
            out.append([p.feed(text[:k]), p.feed(text[k:]), p.finish(), p.malformed])
        assert out[0] == out[1], k


# ----- where toolparse differs from the peers -----


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_parameter_written_twice_is_written_twice(backend: str) -> None:
    """Both peers collect a top-level parameter written twice into a list, which they can only do
    once the whole call is read. A string parameter streams here, so the value already sent
    stays: the key is written again (``json.loads`` keeps the last value). Below the top level,
    names given twice still collect into a list."""
    text = block(("create_order", el("note", "a") + el("note", "b")))
    assert extracted(backend, text) == (None, [("create_order", '{"note": "a", "note": "b"}')])
    text = block(("create_order", el("free", el("t", "a") + el("t", "b"))))
    assert extracted(backend, text) == (None, [("create_order", '{"free": {"t": ["a", "b"]}}')])


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize(
    "params",
    [
        el("note", "hi " + el("k", "v")),  # vLLM: {"note": {"k": "v", "$text": "hi "}}
        el("user_id", "1") + "junk" + el("note", "x"),  # vLLM {"user_id": 1}; SGLang both
        el("user_id", "1") + f"{NS}<note>a{NS}</other>",  # vLLM: {"user_id": 1}
        el("user_id", "1") + f"{NS}<note>a{NS}b{NS}</note>",  # vLLM: {"user_id": 1}
    ],
)
def test_malformed_markup_in_a_call_makes_the_output_content(backend: str, params: str) -> None:
    """vLLM keeps the parameters before malformed markup (and reads an element inside a string
    parameter as an object); toolparse follows its rule for every format: malformed markup in the
    middle of the output gives the original text as content (an element inside a string that is
    already streaming cannot become an object)."""
    text = "pre " + block(("create_order", params))
    assert extracted(backend, text) == (text, [])
    for chunks in ([text], list(text)):
        content, calls, malformed, _ = streamed(backend, chunks)
        assert malformed and content.startswith("pre ")


@pytest.mark.parametrize("backend", BACKENDS)
def test_depth_limit(backend: str) -> None:
    """128 levels of elements parse (vLLM's MAX_ELEMENT_DEPTH); one more is malformed (vLLM drops
    that parameter and keeps the others)."""

    def nested(depth: int) -> str:
        body = "v"
        for _ in range(depth - 1):
            body = el("n", body)
        return el("free", body)

    content, calls = extracted(backend, block(("create_order", nested(128))))
    assert content is None and len(calls) == 1 and "free" in json.loads(calls[0][1])
    text = block(("create_order", el("user_id", "1") + nested(129)))
    assert extracted(backend, text) == (text, [])


@pytest.mark.parametrize("backend", BACKENDS)
def test_text_after_the_block_is_content(backend: str) -> None:
    """vLLM drops the text after ``</tool_call>`` ("the tool block ends the message"); SGLang and
    toolparse keep it: nothing the model wrote is lost."""
    text = "pre" + block(("create_order", "")) + "post"
    assert extracted(backend, text) == ("prepost", [("create_order", "{}")])


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_truncated_invoke_is_unfinished(backend: str) -> None:
    """vLLM converts the parameters of an invoke the output ends inside; toolparse reports the
    output as truncated with the calls completed before it (none here: the text is content)."""
    whole = block(("create_order", el("user_id", "1") + el("note", "x")))
    text = whole[: whole.index(f"{NS}</note>")]
    info = toolparse.get_parser("minimax_m3", tools=TOOLS, backend=backend).extract_tool_calls(text)
    assert (info.tools_called, info.content, info.truncated) == (False, text, True)
    content, calls, malformed, truncated = streamed(backend, list(text))
    assert (content, malformed, truncated) == ("", False, True)
    assert calls == [("create_order", '{"user_id": 1, "note": "x')]


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_typed_none_is_null(backend: str) -> None:
    """Both peers keep "None" as a string for an integer parameter; toolparse's XML-parameter
    rule (``rust/params.rs``) reads null/none (any case) as null where the type is not a string.
    A string parameter keeps "null"."""
    text = block(("create_order", el("user_id", "None") + el("note", "null")))
    assert extracted(backend, text) == (
        None,
        [("create_order", '{"user_id": null, "note": "null"}')],
    )


@pytest.mark.parametrize("backend", BACKENDS)
def test_typed_leaves_follow_the_xml_parameter_rules(backend: str) -> None:
    """A leaf is converted by toolparse's XML-parameter rules (``rust/params.rs``), stricter than
    vLLM's, which falls back to ``json.loads`` of any text: an integer parameter's ``true`` stays
    the string (vLLM: true), a union of an array and a string takes ``1`` as the string (vLLM: 1,
    though neither type admits a number)."""
    text = block(("create_order", el("user_id", "true") + el("either", "1")))
    assert extracted(backend, text) == (
        None,
        [("create_order", '{"user_id": "true", "either": "1"}')],
    )


@pytest.mark.parametrize("backend", BACKENDS)
def test_namespace_then_whitespace_is_not_markup(backend: str) -> None:
    """SGLang removes whitespace between the namespace and a tag before parsing; vLLM reads no call
    there either. The text stays content."""
    text = f"{START}\n{NS} " + invoke("create_order", "")[len(NS) :] + END
    assert extracted(backend, text) == (text, [])


# ----- reasoning, aliases, the schema tree -----


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_call_ends_an_open_think_block(backend: str) -> None:
    """With the minimax_m3 reasoning format (``<mm:think>``), a tool-call block inside an open think
    block ends the reasoning and is parsed as calls, whether the tool format is given or not."""
    text = "<mm:think>Need the order." + block(("create_order", el("user_id", "5")))
    for fmt in ("minimax_m3", None):
        p = toolparse.get_parser(fmt, tools=TOOLS, backend=backend, reasoning="minimax_m3")
        info = p.extract_tool_calls(text)
        assert info.reasoning == "Need the order."
        if fmt is None:
            assert info.content == block(("create_order", el("user_id", "5")))
            continue
        assert [(c.function.name, c.function.arguments) for c in info.tool_calls] == [
            ("create_order", '{"user_id": 5}')
        ]
        s = p.stream()
        rec = toolparse.StreamingToolReconstructor(strict_order=True)
        reasoning = ""
        for d in [s.feed(c) for c in text] + [s.finish()]:
            if d is not None:
                reasoning += d.reasoning or ""
                rec.append_delta(d)
        assert reasoning == "Need the order."
        assert [c.function.arguments for c in rec.tool_calls] == ['{"user_id": 5}']


# (issue 30) an end tag with no block open is text unless it leads the output (the reasoning
# entry's `stray_end_text`): vLLM's minimax_m3 reasoning parser drops only a leading closer (its
# non-streaming path) and SGLang's MiniMaxM3Detector only one after leading whitespace; both keep
# a later one in content. With the tool format paired, the same, and calls still parse.
STRAY_END = [
    ("XXX</mm:think>YYY", None, "XXX</mm:think>YYY", False),
    ("</mm:think>YYY", None, "YYY", False),
    ("\n </mm:think>YYY</mm:think>", None, "YYY</mm:think>", False),
    ("<mm:think>r</mm:think>a</mm:think>b", "r", "a</mm:think>b", False),
    ("a</mm:think>b", None, "a</mm:think>b", True),
    ("</mm:think>a", None, "a", True),
    ("<mm:think>r</mm:think>a</mm:think>", "r", "a</mm:think>", True),
]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("text,reasoning,content,call", STRAY_END)
def test_a_stray_end_tag_is_text_unless_it_leads(
    backend: str, text: str, reasoning: Optional[str], content: str, call: bool
) -> None:
    calls = [("create_order", {"user_id": 5})] if call else []
    text += block(("create_order", el("user_id", "5"))) if call else ""
    chunkings = helpers.plans(text) + split_plans(text, random.Random(text), n_random=10)
    for fmt in ("minimax_m3", None) if not call else ("minimax_m3",):
        p = toolparse.get_parser(fmt, tools=TOOLS, backend=backend, reasoning="minimax_m3")
        helpers.check(p, text, content, calls, reasoning=reasoning, chunkings=chunkings)


def test_the_sglang_name_is_an_alias() -> None:
    assert toolparse.get_parser("minimax-m3").name == "minimax_m3"
    assert toolparse.format_for_model("MiniMaxAI/MiniMax-M3") == "minimax_m3"


def test_schema_trees() -> None:
    """The facade's schema tree: the first array or object alternative decides the container
    (``either``: its anyOf array branch), and ``items`` / ``properties`` /
    ``additionalProperties`` give the nodes below."""
    (nodes,) = _schema_trees(_tool_models(TOOLS)).values()
    root = nodes[0]
    assert root[1] == 1 and sorted(root[2]) == sorted(
        TOOLS[0]["function"]["parameters"]["properties"]
    )

    def node(name: str) -> Tuple[Any, ...]:
        return nodes[root[2][name]]

    assert node("user_id") == (["integer"], 0, {}, -1)
    assert node("tags")[:3] == (["array"], 2, {}) and nodes[node("tags")[3]][0] == ["string"]
    assert node("either")[:2] == (["array", "string"], 2)
    assert nodes[node("either")[3]][0] == ["integer"]
    assert nodes[node("shipping")[2]["zip"]][0] == ["integer"]
    assert node("free") == (["object"], 1, {}, -1)
    assert nodes[node("extra")[3]][0] == ["number"]


@pytest.mark.parametrize("backend", BACKENDS)
def test_without_the_tree_the_parameter_types_type_the_top_level(backend: str) -> None:
    """The raw core told only the parameter types (no ``schemas``): top-level values typed, nested
    elements untyped objects."""
    text = block(("create_order", el("user_id", "3") + el("tags", el("item", "a"))))
    x = corpus.core_extract(backend, "minimax_m3", text, corpus.schema_types(TOOLS))
    assert x[2] == [(None, "create_order", '{"user_id": 3, "tags": {"item": "a"}}')]


@pytest.mark.parametrize("backend", BACKENDS)
def test_truncated(backend: str) -> None:
    for text, n in corpus.TRUNCATED["minimax_m3"]:
        corpus.check_truncated_output("minimax_m3", backend, text, n)


def _dumped_trees(tool: Any) -> List[Any]:
    """The schema tree walked over ``model_dump(exclude_none=True)`` (how the facade built it
    before it walked the models), recursively and in preorder (a node, its properties in order,
    then its ``items`` or ``additionalProperties``): the reference for
    ``test_schema_trees_walk_the_models``."""
    from toolparse.parser import _container, _prop_types

    fn = tool.function
    params = fn.parameters.model_dump(exclude_none=True) if fn.parameters is not None else {}
    nodes: List[Any] = []

    def add(types: List[str], container: int, branch: Any) -> int:
        index = len(nodes)
        nodes.append(None)
        children: dict = {}
        props = branch.get("properties") if container == 1 else None
        for key, value in props.items() if isinstance(props, dict) else ():
            if isinstance(value, dict):
                children[key] = add(_prop_types(value), *_container(value))
        other = branch.get("items") if container == 2 else branch.get("additionalProperties")
        after = -1
        if container and isinstance(other, dict):
            after = add(_prop_types(other), *_container(other))
        nodes[index] = (types, container, children, after)
        return index

    add([], 1, {"properties": params.get("properties")})
    return nodes


def test_schema_trees_walk_the_models() -> None:
    """get_parser walks the tool models one level at a time (dumping them runs a Python
    serializer per node, per request): the trees are the ones the dumped schema gives, for
    schemas with None keywords, boolean and list ``items``, union branches that are not objects,
    ``additionalProperties`` and nesting."""
    import random

    from toolparse.models import Tool
    from toolparse.parser import _schema_trees

    rnd = random.Random(7)
    kinds = ["string", "array", "object", "integer", None, ["string", "array"], ["object", "null"]]

    def schema(depth: int) -> Any:
        s: dict = {}
        if rnd.random() < 0.8:
            s["type"] = rnd.choice(kinds)
        if depth < 4 and rnd.random() < 0.25:
            s["items"] = rnd.choice([schema(depth + 1), None, True, [schema(depth + 1)]])
        if depth < 4 and rnd.random() < 0.25:
            n = rnd.randint(0, 3)
            s["properties"] = rnd.choice([{f"p{i}": schema(depth + 1) for i in range(n)}, None])
        if depth < 4 and rnd.random() < 0.15:
            s["additionalProperties"] = rnd.choice([schema(depth + 1), False, None])
        for key in ("anyOf", "oneOf"):
            if depth < 4 and rnd.random() < 0.15:
                branches = [rnd.choice([schema(depth + 1), None, 3]) for _ in range(3)]
                s[key] = branches[: rnd.randint(0, 3)]
        if rnd.random() < 0.1:
            s["default"] = None
        return s

    nested = 0
    for _ in range(400):
        props = {f"a{j}": schema(1) for j in range(rnd.randint(0, 4))}
        params = {"type": "object", "properties": props} if rnd.random() < 0.9 else None
        fn = {"name": "f", "parameters": params}
        tool = Tool.model_validate({"type": "function", "function": fn})
        want = _dumped_trees(tool)
        nested += len(want) > len(props) + 1
        assert _schema_trees([tool]) == {"f": want}, params
    assert nested > 50  # the schemas did nest
