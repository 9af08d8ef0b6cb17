"""Argument schemas as a content style can hold them. xgrammar's JSON converter takes nearly every
keyword; the composed styles (XML parameter values, Python literals, Gemma values) know only the
value's type, ``enum``/``const`` of scalars, and JSON for nested values. A keyword a style cannot
express is dropped for that value with one log line, and a ``$ref`` that points nowhere loosens
that value to any value: the tag never fails a request for a schema the parser accepts."""

from __future__ import annotations

import copy
import json
import logging
from typing import Any, Dict, List, Mapping, Optional, Set, Tuple, Union

log = logging.getLogger("toolparse.grammar")

Schema = Union[Mapping[str, Any], bool]
TYPES = ("string", "integer", "number", "boolean", "null", "array", "object")
# what a composed style writes of a string value itself: a string's own constraints go
STRING_ONLY = ("pattern", "format", "minLength", "maxLength")


class Dropped:
    """The keywords dropped while building one tag, logged once at the end."""

    def __init__(self) -> None:
        self.items: Set[Tuple[str, str]] = set()
        self.added: List[Tuple[str, str]] = []  # every add, in order (what a piece dropped)

    def add(self, where: str, keyword: str) -> None:
        self.items.add((where, keyword))
        self.added.append((where, keyword))

    def flush(self, fmt: str) -> None:
        if self.items:
            what = ", ".join(f"{k} ({w})" for w, k in sorted(self.items))
            log.info("structural tag for %s: schema keywords not enforced: %s", fmt, what)


def _defs(root: Mapping[str, Any]) -> Dict[str, Any]:
    out: Dict[str, Any] = {}
    for key in ("$defs", "definitions"):
        if isinstance(root.get(key), dict):
            out[key] = root[key]
    return out


def _lookup(ref: str, root: Mapping[str, Any]) -> Optional[Any]:
    if not ref.startswith("#/"):
        return None
    node: Any = root
    for part in ref[2:].split("/"):
        part = part.replace("~1", "/").replace("~0", "~")
        if not isinstance(node, dict) or part not in node:
            return None
        node = node[part]
    return node


def prepare(schema: Schema, drop: Dropped, where: str) -> Schema:
    """A copy of ``schema`` whose ``$ref``s all resolve (a dangling or remote one is dropped,
    loosening that value to any value)."""
    if not isinstance(schema, dict):
        return True if schema is not False else False
    if "$ref" not in json.dumps(schema):
        return schema  # nothing to resolve: used as it is (never modified)
    root = copy.deepcopy(schema)

    def walk(node: Any) -> Any:
        if isinstance(node, dict):
            ref = node.get("$ref")
            if isinstance(ref, str) and _lookup(ref, root) is None:
                drop.add(where, f"$ref {ref}")
                return {k: walk(v) for k, v in node.items() if k != "$ref"}
            return {k: walk(v) for k, v in node.items()}
        if isinstance(node, list):
            return [walk(v) for v in node]
        return node

    out = walk(root)
    assert isinstance(out, dict)
    return out


def resolve(node: Any, root: Mapping[str, Any], depth: int = 0) -> Mapping[str, Any]:
    """``node`` with a local ``$ref`` followed (a bounded number of times)."""
    while isinstance(node, dict) and isinstance(node.get("$ref"), str) and depth < 16:
        target = _lookup(node["$ref"], root)
        if not isinstance(target, dict):
            return {}
        node, depth = target, depth + 1
    return node if isinstance(node, dict) else {}


def with_defs(sub: Any, root: Mapping[str, Any]) -> Schema:
    """A sub-schema taken out of ``root`` as a schema of its own: root's definitions go along."""
    if not isinstance(sub, dict):
        return True
    defs = _defs(root)
    return {**defs, **sub} if defs else dict(sub)


def types_of(node: Any, root: Mapping[str, Any]) -> List[str]:
    """The JSON types a value of ``node`` may have (every type when the schema does not say)."""
    node = resolve(node, root)
    t = node.get("type")
    if isinstance(t, str) and t in TYPES:
        return [t]
    if isinstance(t, list):
        got = [x for x in t if x in TYPES]
        if got:
            return got
    for key in ("anyOf", "oneOf"):
        branches = node.get(key)
        if isinstance(branches, list) and branches:
            out: List[str] = []
            for b in branches:
                for x in types_of(b, root):
                    if x not in out:
                        out.append(x)
            return out
    for key in ("enum", "const"):
        if key in node:
            values = node["enum"] if key == "enum" else [node["const"]]
            if isinstance(values, list) and values:
                return sorted({type_of(v) for v in values}, key=TYPES.index)
    if isinstance(node.get("properties"), dict):
        return ["object"]
    if "items" in node:
        return ["array"]
    return list(TYPES)


def type_of(v: Any) -> str:
    """The JSON Schema type of a JSON value."""
    if v is None:
        return "null"
    if isinstance(v, bool):
        return "boolean"
    if isinstance(v, int):
        return "integer"
    if isinstance(v, float):
        return "number"
    if isinstance(v, str):
        return "string"
    return "array" if isinstance(v, list) else "object"


def scalar_choices(node: Any, root: Mapping[str, Any]) -> Optional[List[Any]]:
    """The values of an ``enum``/``const`` of scalars, else None."""
    node = resolve(node, root)
    if "const" in node:
        values = [node["const"]]
    elif isinstance(node.get("enum"), list) and node["enum"]:
        values = list(node["enum"])
    else:
        return None
    if all(v is None or isinstance(v, (str, int, float, bool)) for v in values):
        return values
    return None


def properties(node: Any, root: Mapping[str, Any]) -> Tuple[List[Tuple[str, Any]], Set[str], bool]:
    """An object schema's properties in schema order, its required names, and whether it names
    them (a ``properties`` map, even an empty one, allows no other keys, as xgrammar reads a
    schema; without one any keys are allowed)."""
    node = resolve(node, root)
    props = node.get("properties")
    required = node.get("required")
    req = {r for r in required if isinstance(r, str)} if isinstance(required, list) else set()
    if not isinstance(props, dict):
        return [], req, False
    if set(map(type, props)) <= _STR:  # JSON's keys (one set operation, not a test a key)
        return list(props.items()), req, True
    return [(k, v) for k, v in props.items() if isinstance(k, str)], req, True


_STR = {str}


def items_of(node: Any, root: Mapping[str, Any]) -> Any:
    node = resolve(node, root)
    items = node.get("items")
    return items if isinstance(items, dict) else True
