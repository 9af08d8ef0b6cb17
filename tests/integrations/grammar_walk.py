"""A seeded walk through a structural tag (toolparse's plain-data form): one random string the tag
describes, for the grammar-to-parser direction of the agreement tests. Each string is also checked
against xgrammar's compiled grammar by the tests, so a slip in this walk shows as a failure there
and not as a false agreement."""

from __future__ import annotations

import json
import random
import re
from typing import Any, Dict, List, Mapping

try:  # Python >= 3.11
    from re import _constants as sre_c  # type: ignore[attr-defined]
    from re import _parser as sre_parse  # type: ignore[attr-defined]
except ImportError:  # pragma: no cover - older Pythons
    import sre_constants as sre_c  # type: ignore[no-redef]
    import sre_parse  # type: ignore[no-redef]

from toolparse.grammar.schema import type_of

WORDS = ["alpha", "Tokyo", "x y", "日本", "🎉", "a'b", 'q"t', "back\\slash", "two\nlines", "42"]


class Unsupported(Exception):
    """A node this walk does not render (the test says which)."""


class Walk:
    def __init__(self, seed: int) -> None:
        self.r = random.Random(seed)

    # ----- regex -----
    def regex(self, pattern: str) -> str:
        return self._items(sre_parse.parse(pattern))

    def _items(self, items: Any) -> str:
        return "".join(self._item(op, av) for op, av in items)

    def _class(self, av: Any) -> str:
        negate = any(op == sre_c.NEGATE for op, _ in av)
        pool: List[str] = []
        for op, a in av:
            if op == sre_c.LITERAL:
                pool.append(chr(a))
            elif op == sre_c.RANGE:
                pool.extend(chr(c) for c in range(a[0], min(a[1], a[0] + 60) + 1))
            elif op == sre_c.CATEGORY:
                pool.extend("0123456789" if "DIGIT" in str(a) else " ")
        if negate:
            banned = set(pool)
            pool = [c for c in "abcXYZ09 _-.:,;!é日" if c not in banned]
        return self.r.choice(pool)

    def _item(self, op: Any, av: Any) -> str:
        if op == sre_c.LITERAL:
            return chr(av)
        if op == sre_c.NOT_LITERAL:
            return self.r.choice([c for c in "abcxyz0 _" if ord(c) != av])
        if op == sre_c.ANY:
            return self.r.choice("abc xyz")
        if op == sre_c.IN:
            return self._class(av)
        if op in (sre_c.MAX_REPEAT, sre_c.MIN_REPEAT):
            lo, hi, sub = av
            hi = min(hi, lo + 3)
            return "".join(self._items(sub) for _ in range(self.r.randint(lo, hi)))
        if op == sre_c.SUBPATTERN:
            return self._items(av[-1])
        if op == sre_c.BRANCH:
            return self._items(self.r.choice(av[1]))
        raise Unsupported(f"regex op {op}")

    # ----- JSON values for a schema -----
    def value(self, schema: Any, root: Mapping[str, Any], depth: int = 3) -> Any:
        if not isinstance(schema, Mapping):
            schema = {}
        while isinstance(schema.get("$ref"), str):
            node: Any = root
            for part in schema["$ref"][2:].split("/"):
                node = node[part]
            schema = node
        if "const" in schema:
            return schema["const"]
        if isinstance(schema.get("enum"), list):
            return self.r.choice(schema["enum"])
        for key in ("anyOf", "oneOf"):
            if isinstance(schema.get(key), list):
                return self.value(self.r.choice(schema[key]), root, depth)
        t = schema.get("type")
        if isinstance(t, list):
            t = self.r.choice(t)
        if t is None:
            t = self.r.choice(
                ["string", "integer", "boolean", "null"]
                + (["array", "object"] if depth > 0 else [])
            )
        if t == "string":
            return self.r.choice(WORDS)
        if t == "integer":
            return self.r.randint(-50, 1000)
        if t == "number":
            return self.r.choice([0.5, -2.25, 3, 1e-05, 12.0])
        if t == "boolean":
            return self.r.random() < 0.5
        if t == "null":
            return None
        if t == "array":
            if depth <= 0:
                return []
            return [
                self.value(schema.get("items", {}), root, depth - 1)
                for _ in range(self.r.randint(0, 3))
            ]
        props = schema.get("properties")
        if isinstance(props, Mapping):  # named properties: no others (xgrammar's reading)
            req = set(schema.get("required", []))
            return {
                k: self.value(v, root, depth - 1)
                for k, v in props.items()
                if k in req or self.r.random() < 0.6
            }
        if depth <= 0:
            return {}
        return {f"k{i}": self.value({}, root, depth - 1) for i in range(self.r.randint(0, 2))}

    # ----- the tag -----
    def text(self, node: Mapping[str, Any]) -> str:
        t = node["type"]
        if t == "structural_tag":
            return self.text(node["format"])
        if t == "const_string":
            return str(node["value"])
        if t == "regex":
            return self.regex(node["pattern"])
        if t == "sequence":
            return "".join(self.text(e) for e in node["elements"])
        if t == "or":
            # an alternative this walk cannot render (MiniMax M3's nested-element values, which
            # the template tests check) gives way to another
            first = self.r.choice(node["elements"])
            try:
                return self.text(first)
            except Unsupported:
                others = [e for e in node["elements"] if e is not first]
                if not others:
                    raise
                return self.text(others[0])
        if t == "optional":
            return self.text(node["content"]) if self.r.random() < 0.5 else ""
        if t == "star":
            return "".join(self.text(node["content"]) for _ in range(self.r.randint(0, 2)))
        if t == "tag":
            end = node["end"]
            return (
                str(node["begin"])
                + self.text(node["content"])
                + (self.r.choice(end) if isinstance(end, list) else end)
            )
        if t == "any_text":
            return self.free(node.get("excludes", []))
        if t == "triggered_tags":
            n = 1 if node.get("stop_after_first") else self.r.randint(1, 3)
            out = [self.free(node["triggers"] + node.get("excludes", []))]
            for _ in range(n):
                out.append(self.text(self.r.choice(node["tags"])))
                if not node.get("stop_after_first"):
                    out.append(self.free(node["triggers"] + node.get("excludes", [])))
            return "".join(out)
        if t == "json_schema":
            schema = node["json_schema"]
            root = schema if isinstance(schema, Mapping) else {}
            if node.get("style", "json") != "json":
                raise Unsupported(f"json_schema style {node['style']}")
            value = self.value(root, root)
            if root.get("type") == "object" or "properties" in root:
                value = value if isinstance(value, dict) else {}
            return json.dumps(value, ensure_ascii=self.r.random() < 0.3)
        raise Unsupported(f"node {t}")

    def free(self, excludes: List[str]) -> str:
        """Plain text that holds none of ``excludes`` (and no ``<`` or ``[`` to keep clear of
        markers and bare-list triggers)."""
        for _ in range(20):
            s = self.r.choice(["", "", "Sure.", "ok ", "Let me check.\n", "日本 🎉 "])
            if not any(e and e in s for e in excludes):
                return s
        return ""


def strip_ws_runs(s: str) -> str:
    return re.sub(r"\s+", " ", s)


def schema_for(calls: List[Any]) -> List[Dict[str, Any]]:
    """Tools typing every argument of ``calls`` (null as null; a key seen with several types gets
    all of them) and listing as required the keys every call of that function passes."""
    props: Dict[str, Dict[str, List[str]]] = {}
    seen: Dict[str, List[set]] = {}
    for name, args in calls:
        p = props.setdefault(name, {})
        seen.setdefault(name, []).append(set(args))
        for k, v in args.items():
            t = type_of(v)
            types = p.setdefault(k, [])
            if t not in types:
                types.append(t)
            if t == "integer" and "number" not in types and any(isinstance(x, float) for x in [v]):
                types.append("number")
    tools = []
    for name, p in props.items():
        required = sorted(set.intersection(*seen[name])) if seen[name] else []
        properties = {}
        for k, types in p.items():
            if "integer" in types and "number" in types:
                types = [t for t in types if t != "integer"]
            properties[k] = {"type": types[0] if len(types) == 1 else types}
        tools.append(
            {
                "type": "function",
                "function": {
                    "name": name,
                    "parameters": {
                        "type": "object",
                        "properties": properties,
                        "required": [k for k in p if k in required],
                    },
                },
            }
        )
    return tools
