"""Argument values in the formats that do not write JSON, composed from the schema: Python
literals (the pythonic family), Gemma's bare values (functiongemma), and the key/value lists
both write (``f(a=1, b='x')``, ``{k:v}``). Types the schema gives become that type's syntax; what
it does not say becomes any value, nested to a bounded depth."""

from __future__ import annotations

import json
from dataclasses import dataclass, replace
from typing import Any, Callable, List, Mapping, Optional, Sequence, Set, Tuple

from . import nodes as n
from .schema import (
    STRING_ONLY,
    TYPES,
    Dropped,
    items_of,
    properties,
    resolve,
    scalar_choices,
    types_of,
    with_defs,
)

INT = r"-?(0|[1-9][0-9]*)"
# an exponent of at most two digits: a value the converters turn into a finite JSON number
NUMBER = r"-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][-+]?[0-9]{1,2})?"
ANY_DEPTH = 2  # nesting of a value the schema leaves open
# what a value's schema is read for before its "type" (a reference, a choice of values)
_READ_FIRST = frozenset(("$ref", "enum", "const"))


@dataclass(frozen=True)
class Syntax:
    """How a format writes literals."""

    string: Callable[[], n.Node]  # any string
    quote: Callable[[str], str]  # one given string
    true: str
    false: str
    null: str
    key: Callable[[str], str]  # a given object key
    any_key: str  # regex of any object key
    colon: str  # regex between key and value
    comma: str  # regex between items
    pad: str  # regex inside brackets and braces
    # other spellings of null (Gemma 4's template prints Python's None)
    other_nulls: Tuple[str, ...] = ()
    # an object with named keys may also come with its keys in Jinja's dictsort order (case
    # folded), as Gemma 4's template writes every mapping
    dictsort: bool = False
    json_literals: bool = False  # JSON's null/true/false too (olmo3)
    json_objects: bool = False  # an object value may be written as JSON (lfm2's tojson)


def _py_quote(s: str) -> str:
    return "'" + s.replace("\\", "\\\\").replace("'", "\\'").replace("\n", "\\n") + "'"


_PY_ESC = r"""\\([\\'"nrtbf0]|x[0-9a-fA-F]{2}|u[0-9a-fA-F]{4})"""
PY_STR = rf"""('([^'\\\n]|{_PY_ESC})*'|"([^"\\\n]|{_PY_ESC})*")"""
# a quoted string that may hold raw newlines (lfm2's template writes the text as it is)
PY_STR_RAW = rf"""('([^'\\]|{_PY_ESC})*'|"([^"\\]|{_PY_ESC})*")"""

PYTHON = Syntax(
    string=lambda: n.regex(PY_STR),
    quote=_py_quote,
    true="True",
    false="False",
    null="None",
    key=_py_quote,
    any_key=PY_STR,
    colon=n.ws_pattern(2) + ":" + n.ws_pattern(2),
    comma=n.ws_pattern(2) + "," + n.ws_pattern(2),
    pad=n.ws_pattern(2),
)


# A bare key as the gemma4 parser reads one (the template writes any key bare): no whitespace at
# its ends, none of ``:,{}[]<`` in it.
_GEMMA_KEY_CHAR = r"[^ \t\n\r:,{}\[\]<]"
GEMMA4_KEY = rf"{_GEMMA_KEY_CHAR}([^\t\n\r:,{{}}\[\]<]*{_GEMMA_KEY_CHAR})?"


def python_syntax(forms: Sequence[str]) -> Syntax:
    """Python's literals with the spec's ``grammar.value_forms`` added."""
    if not forms:
        return PYTHON
    string = PY_STR_RAW if "raw_strings" in forms else PY_STR
    return replace(
        PYTHON,
        string=lambda: n.regex(string),
        json_literals="json_literals" in forms,
        json_objects="json_objects" in forms,
    )


def gemma(escape: str, template: bool = False) -> Syntax:
    """Gemma's values: strings between ``escape`` markers, keys bare, no spaces needed. With
    ``template`` (Gemma 4), also as its chat template writes them: null as ``None``, a mapping's
    keys in dictsort order, any key bare."""
    return Syntax(
        string=lambda: n.tag(escape, n.any_text([escape]), escape),
        quote=lambda s: escape + s + escape,
        true="true",
        false="false",
        null="null",
        key=lambda k: k,
        any_key=GEMMA4_KEY if template else r"[A-Za-z_][A-Za-z0-9_]*",
        colon=": ?",
        comma=", ?",
        pad="",
        other_nulls=("None",) if template else (),
        dictsort=template,
    )


def _scalar(v: Any, syn: Syntax) -> n.Node:
    if v is None or isinstance(v, bool):
        return _literal(v, syn)
    if isinstance(v, str):
        return n.const(syn.quote(v))
    return n.const(json.dumps(v))


def _literal(v: Any, syn: Syntax) -> n.Node:
    """None, True or False in the syntax (and as JSON writes it, where the format may)."""
    own = syn.null if v is None else syn.true if v else syn.false
    spellings = [own, *(syn.other_nulls if v is None else ())]
    if syn.json_literals:
        spellings.append(json.dumps(v))
    return n.or_(*[n.const(x) for x in spellings])


class Values:
    """Builds value nodes of one syntax for one schema root."""

    def __init__(self, syn: Syntax, root: Mapping[str, Any], drop: Dropped, where: str) -> None:
        self.syn, self.root, self.drop, self.where = syn, root, drop, where
        # how the root object's parameters are made into ordered's items (Ctx.items, which
        # keeps them across tools): build, props, required names, separator, variant
        self.items: Optional[Callable[..., Tuple[List[Tuple[n.Node, bool]], List[Any]]]] = None

    def value(self, schema: Any, depth: int = 4) -> n.Node:
        syn = self.syn
        ty = schema.get("type") if isinstance(schema, dict) else None
        if ty.__class__ is str and ty in TYPES and not _READ_FIRST.intersection(schema):
            node, types = schema, [ty]  # the common case: one plain type, nothing to look up
        else:
            choices = scalar_choices(schema, self.root) if schema is not True else None
            if choices is not None:
                return n.or_(*[_scalar(v, syn) for v in choices])
            node = resolve(schema, self.root) if isinstance(schema, dict) else {}
            types = (
                types_of(node, self.root)
                if node
                else list(("string", "number", "boolean", "null", "array", "object"))
            )
        if "integer" in types and "number" in types:
            types.remove("integer")
        if depth <= 0:
            types = [t for t in types if t not in ("array", "object")] or ["string"]
        alts: List[n.Node] = []
        for t in types:
            if t == "string":
                for k in STRING_ONLY:
                    if k in node:
                        self.drop.add(self.where, k)
                alts.append(syn.string())
            elif t == "integer":
                alts.append(n.regex(INT))
            elif t == "number":
                alts.append(n.regex(NUMBER))
            elif t == "boolean":
                alts.append(n.or_(_literal(True, syn), _literal(False, syn)))
            elif t == "null":
                alts.append(_literal(None, syn))
            elif t == "array":
                alts.append(self.array(items_of(node, self.root), depth - 1))
            elif t == "object":
                alts.append(self.obj(node, depth - 1))
                if syn.json_objects:
                    whole = with_defs(node, self.root)
                    sub = {**(whole if isinstance(whole, dict) else {}), "type": "object"}
                    alts.append(n.json_schema(sub, "json", n.WS))
        return n.or_(*alts)

    def array(self, items: Any, depth: int) -> n.Node:
        item = self.value(items, depth)
        sep = n.regex(self.syn.comma)
        return n.seq(
            n.const("["),
            n.ws(2),
            n.optional(n.seq(item, n.star(n.seq(sep, item)))),
            n.ws(2),
            n.const("]"),
        )

    def obj(self, node: Any, depth: int) -> n.Node:
        props, req, named = properties(node, self.root)
        syn = self.syn
        if not named:
            pair = n.seq(
                n.regex(syn.any_key), n.regex(syn.colon), self.value(True, min(depth, ANY_DEPTH))
            )
            body = n.optional(n.seq(pair, n.star(n.seq(n.regex(syn.comma), pair))))
        else:

            def build(k: str, v: Any) -> n.Node:
                return n.seq(n.const(syn.key(k)), n.regex(syn.colon), self.value(v, depth))

            comma = n.regex(syn.comma)
            if self.items is not None and node is self.root:
                pairs, after = self.items(build, props, req, comma, depth)
            else:
                pairs = [(build(k, v), k in req) for k, v in props]
                after = [later(p, comma, r) for p, r in pairs]
            body = ordered(pairs, comma, after)
            # Jinja's dictsort: keys compared case folded, ties kept in the given order
            if syn.dictsort:
                order = sorted(range(len(props)), key=lambda i: props[i][0].lower())
                if order != list(range(len(props))):
                    by_key = ordered([pairs[i] for i in order], comma, [after[i] for i in order])
                    body = n.or_(body, by_key)
        pad = n.regex(syn.pad) if syn.pad else n.const("")
        return n.seq(n.const("{"), pad, body, pad, n.const("}"))


def later(node: n.Node, sep: n.Node, required: bool) -> Tuple[n.Node, ...]:
    """An item of ``ordered``'s list after the first it holds, as the elements it adds to the
    sequence: ``sep`` then ``node``, optional unless ``required``."""
    if required:
        return (sep, node)
    return ({"type": "optional", "content": {"type": "sequence", "elements": [sep, node]}},)


def ordered(
    items: Sequence[Tuple[n.Node, bool]],
    sep: n.Node,
    after: Optional[Sequence[Tuple[n.Node, ...]]] = None,
) -> n.Node:
    """Items in the given order, each ``(node, required)``, separated by ``sep``: optional items
    may be left out, required ones not. Built as the choice of the first item present (an item
    after it comes with its separator in front: ``after``, each item's ``later`` elements where
    the caller has them made already)."""
    if not items:
        return n.const("")
    if after is None:
        after = [later(node, sep, r) for node, r in items]
    alts: List[n.Node] = []
    for first, (node, required) in enumerate(items):
        alts.append(_run(node, after[first + 1 :], sep))
        if required:
            break  # a required item cannot be skipped
    else:
        alts.append(n.const(""))  # every item optional: none at all
    return alts[0] if len(alts) == 1 else {"type": "or", "elements": alts}


def _run(node: n.Node, rest: Sequence[Tuple[n.Node, ...]], sep: n.Node) -> n.Node:
    """``seq(node, *rest's items)``, made directly: what ``rest`` adds begins with ``sep`` or an
    optional item and ends before one, so no constant meets another but inside ``node`` (a
    sequence ``seq`` made has none)."""
    kind = node["type"]
    if sep["type"] == "const_string":  # constants could meet: seq merges them
        pairs = [{"type": "sequence", "elements": [*p]} if len(p) == 2 else p[0] for p in rest]
        return n.seq(node, *pairs)
    if kind == "sequence":
        out = [*node["elements"]]
    elif kind == "const_string" and not node["value"]:
        out = []
    else:
        out = [node]
    for part in rest:
        out += part
    if not out:
        return n.const("")
    return out[0] if len(out) == 1 else {"type": "sequence", "elements": out}


def required_names(schema: Any, root: Mapping[str, Any]) -> Set[str]:
    return properties(schema, root)[1]
