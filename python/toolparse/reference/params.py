"""Values of XML-style tool parameters, typed by the tool's JSON Schema (twin of
``rust/params.rs``; same names, same output).

The format machine finds where a value starts and ends; this module decides the value's kind from
the schema type, escapes string values as they stream, and converts a complete typed value to the
JSON text ``json.dumps(value, ensure_ascii=False)`` would write. The rules are listed in
``rust/params.rs``. Nothing here recurses (``json.loads`` would, and hits the recursion limit on
deep values), so JSON values are parsed into a flat arena and written with an explicit stack.
"""

from __future__ import annotations

import math
from json.encoder import encode_basestring  # type: ignore[attr-defined]
from typing import Dict, List, Optional, Sequence, Tuple, Union

from .json import DONE, StrDecoder

# The tools a request offers, as the converters see them (Rust: ``params::Tools``):
# function name -> parameter name -> the JSON Schema types it admits (empty when it has none)
ToolTypes = Dict[str, Dict[str, List[str]]]
# function name -> its schema tree (the xml_elements family's nested elements; see there)
SchemaTrees = Dict[str, List[Tuple[List[str], int, Dict[str, int], int]]]

# Kinds
STR = "str"
INTEGER = "integer"
NUMBER = "number"
BOOL = "bool"
JSON = "json"
# A parameter admitting several types is a union: an int, the set of the T_* bits below.
Kind = Union[str, int]

# Union bits, one per admitted type, in the order they are tried.
T_NULL = 1
T_INTEGER = 2
T_NUMBER = 4
T_BOOL = 8
T_OBJECT = 16
T_ARRAY = 32
T_OTHER = 64  # a type name we do not know: any JSON value
T_STRING = 128

_ASCII_WS = " \t\n\r\x0c"
_JSON_WS = " \t\n\r"
_DIGITS = "0123456789"


def _ascii_lower(s: str) -> str:
    return s.encode("utf-8", "surrogatepass").lower().decode("utf-8", "surrogatepass")


def kind_of(ty: str) -> str:
    """The kind of a JSON Schema type string ("" when the schema gives none)."""
    t = _ascii_lower(ty.strip(_ASCII_WS))
    if t in ("", "string", "str", "text", "varchar", "char", "enum"):
        return STR
    if t in ("boolean", "bool", "binary"):
        return BOOL
    if t.startswith(("int", "uint", "long", "short", "unsigned")):
        return INTEGER
    if t.startswith(("num", "float")):
        return NUMBER
    return JSON


def type_bit(ty: str) -> int:
    """The union bit of a JSON Schema type string."""
    t = _ascii_lower(ty.strip(_ASCII_WS))
    k = kind_of(t)
    if k == STR:
        return T_STRING
    if k == INTEGER:
        return T_INTEGER
    if k == NUMBER:
        return T_NUMBER
    if k == BOOL:
        return T_BOOL
    if t == "null":
        return T_NULL
    if t == "object" or t.startswith("dict"):
        return T_OBJECT
    if t in ("array", "arr") or t.startswith("list"):
        return T_ARRAY
    return T_OTHER


_SINGLE = {0: STR, T_STRING: STR, T_INTEGER: INTEGER, T_NUMBER: NUMBER, T_BOOL: BOOL}


def kind_of_types(types: Sequence[str]) -> Kind:
    """The kind of a parameter whose schema admits ``types`` (empty: no type information)."""
    mask = 0
    for t in types:
        mask |= type_bit(t)
    if mask in _SINGLE:
        return _SINGLE[mask]
    if bin(mask).count("1") == 1:
        return JSON
    return mask


def param_kind(tools: Dict[str, Dict[str, List[str]]], func: str, param: str) -> Kind:
    """The kind of parameter ``param`` of ``func``; STR when the schema does not know it."""
    types = tools.get(func, {}).get(param)
    return STR if types is None else kind_of_types(types)


def json_str_body(s: str) -> str:
    """``s`` escaped as the body of a JSON string, as ``json.dumps(ensure_ascii=False)`` does."""
    return encode_basestring(s)[1:-1]


def json_str(s: str) -> str:
    return encode_basestring(s)


def convert(kind: Kind, raw: str) -> str:
    """The JSON text of a complete raw value of ``kind``."""
    if isinstance(kind, int):
        r = _union_text(kind, raw)
        return json_str(raw) if r is None else r
    if kind != STR:
        t = raw.strip(_JSON_WS)
        low = _ascii_lower(t)
        if low in ("null", "none"):
            return "null"
        if kind == INTEGER:
            r = _integer_text(t)
        elif kind == NUMBER:
            r = _number_text(t)
        elif kind == BOOL:
            r = low if low in ("true", "false") else None
        else:
            r = normalize_json(t)
        if r is not None:
            return r
    return json_str(raw)


def _union_text(mask: int, raw: str) -> Optional[str]:
    """The JSON text of ``raw`` as the first admitted type of ``mask`` it parses as; None: the
    string."""
    t = raw.strip(_JSON_WS)
    low = _ascii_lower(t)
    if low in ("null", "none") and (mask & T_NULL or not mask & T_STRING):
        return "null"
    if mask & T_INTEGER:
        r = _integer_text(t)
        if r is not None:
            return r
    if mask & T_NUMBER:
        r = _number_text(t)
        if r is not None:
            return r
    if mask & T_BOOL and low in ("true", "false"):
        return low
    if mask & (T_OBJECT | T_ARRAY | T_OTHER):
        r = normalize_json(t)
        if r is None:
            return None
        fits = (
            (mask & T_OBJECT and r.startswith("{"))
            or (mask & T_ARRAY and r.startswith("["))
            or mask & T_OTHER
        )
        return r if fits else None
    return None


def _digits(s: str, i: int) -> int:
    j = i
    n = len(s)
    while j < n and s[j] in _DIGITS:
        j += 1
    return j - i


def _exponent(t: str, i: int) -> int:
    """The length of the exponent (``e``, a sign, digits) at ``t[i:]``: 0 where none stands, -1
    where it has no digits."""
    n = len(t)
    if i == n or t[i] not in "eE":
        return 0
    j = i + 1
    if j < n and t[j] in "+-":
        j += 1
    e = _digits(t, j)
    if e == 0:
        return -1
    return j + e - i


def _integer_text(t: str) -> Optional[str]:
    neg = t[:1] == "-"
    body = t[1:] if t[:1] in ("-", "+") else t
    if not body or _digits(body, 0) != len(body):
        return None
    d = body.lstrip("0") or "0"
    return "-" + d if neg and d != "0" else d


def _number_text(t: str) -> Optional[str]:
    r = _integer_text(t)
    if r is not None:
        return r
    n = len(t)
    i = 1 if t[:1] in ("+", "-") else 0
    ints = _digits(t, i)
    i += ints
    frac = 0
    if i < n and t[i] == ".":
        i += 1
        frac = _digits(t, i)
        i += frac
    if ints + frac == 0:
        return None
    e = _exponent(t, i)
    if e < 0:
        return None
    i += e
    if i != n:
        return None
    f = float(t)
    return float_repr(f) if math.isfinite(f) else None


def float_repr(f: float) -> str:
    """Python's ``repr(float)`` (the Rust twin lays it out by hand)."""
    return repr(f)


def _skip_ws(t: str, i: int) -> int:
    n = len(t)
    while i < n and t[i] in _JSON_WS:
        i += 1
    return i


def _json_string(t: str, i: int) -> Optional[Tuple[str, int]]:
    """A JSON string whose quote is ``t[i]``: (decoded, index after the closing quote). Decoded
    in place from ``i + 1`` (the Rust twin's ``t.get(i + 1..)`` is a view; a slice here would copy
    the rest of the text for every string, quadratic in a value of many strings)."""
    out: List[str] = []
    r, n = StrDecoder().feed(t, out, i + 1)
    if r != DONE:
        return None
    return "".join(out), i + 1 + n


def _json_number(t: str, i: int) -> Optional[Tuple[str, int]]:
    n = len(t)
    j = i + 1 if t[i : i + 1] == "-" else i
    ints = _digits(t, j)
    if ints == 0 or (ints > 1 and t[j] == "0"):
        return None
    j += ints
    is_float = False
    if j < n and t[j] == ".":
        f = _digits(t, j + 1)
        if f == 0:
            return None
        j += 1 + f
        is_float = True
    e = _exponent(t, j)
    if e < 0:
        return None
    if e:
        j += e
        is_float = True
    text = t[i:j]
    if is_float:
        x = float(text)
        if not math.isfinite(x):
            return None
        return float_repr(x), j
    return ("0" if text == "-0" else text), j


# Arena nodes: ["atom", text] | ["str", text] | ["arr", [child...]] | ["obj", [[key, child]...]]


def _object_key(t: str, i: int) -> Optional[Tuple[str, int]]:
    if t[i : i + 1] != '"':
        return None
    r = _json_string(t, i)
    if r is None:
        return None
    k, j = r
    j = _skip_ws(t, j)
    if t[j : j + 1] != ":":
        return None
    return k, j + 1


def normalize_json(t: str) -> Optional[str]:
    """``json.dumps(json.loads(t), ensure_ascii=False)``, or None when ``t`` is not one JSON value
    (or holds a number Python would write as ``Infinity``). Lone surrogate escapes become U+FFFD."""
    nodes: List[list] = []
    # open containers: [node, pending key or None, {key: entry position}]
    stack: List[list] = []
    n = len(t)
    i = 0
    while True:
        # A value is expected at i.
        i = _skip_ws(t, i)
        if i >= n:
            return None
        c = t[i]
        node = -1
        if c in "{[":
            obj = c == "{"
            nodes.append(["obj" if obj else "arr", []])
            node = len(nodes) - 1
            i = _skip_ws(t, i + 1)
            if t[i : i + 1] == ("}" if obj else "]"):
                i += 1
            else:
                key = None
                if obj:
                    r = _object_key(t, i)
                    if r is None:
                        return None
                    key, i = r
                stack.append([node, key, {}])
                continue
        elif c == '"':
            r = _json_string(t, i)
            if r is None:
                return None
            nodes.append(["str", r[0]])
            node, i = len(nodes) - 1, r[1]
        elif c in "tfn":
            word = next((w for w in ("true", "false", "null") if t.startswith(w, i)), None)
            if word is None:
                return None
            nodes.append(["atom", word])
            node, i = len(nodes) - 1, i + len(word)
        else:
            r = _json_number(t, i)
            if r is None:
                return None
            nodes.append(["atom", r[0]])
            node, i = len(nodes) - 1, r[1]
        # A value is complete: attach it, then read "," or closing brackets.
        done = node
        while True:
            if not stack:
                if _skip_ws(t, i) != n:
                    return None
                return _write_json(nodes, done)
            top = stack[-1]
            parent = nodes[top[0]]
            obj = parent[0] == "obj"
            if obj:
                k = top[1]
                top[1] = None
                at = top[2].get(k)
                if at is None:
                    top[2][k] = len(parent[1])
                    parent[1].append([k, done])
                else:
                    parent[1][at][1] = done
            else:
                parent[1].append(done)
            i = _skip_ws(t, i)
            c = t[i : i + 1]
            if c == ",":
                i += 1
                if obj:
                    r = _object_key(t, _skip_ws(t, i))
                    if r is None:
                        return None
                    top[1], i = r
                break
            if c != ("}" if obj else "]"):
                return None
            i += 1
            done = top[0]
            stack.pop()


def _write_json(nodes: List[list], root: int) -> str:
    out: List[str] = []
    stack: List[list] = []  # [container node, next child position]
    nxt: Optional[int] = root
    while True:
        if nxt is not None:
            kind, val = nodes[nxt]
            if kind == "atom":
                out.append(val)
            elif kind == "str":
                out.append(json_str(val))
            elif not val:
                out.append("[]" if kind == "arr" else "{}")
            else:
                out.append("[" if kind == "arr" else "{")
                stack.append([nxt, 0])
            nxt = None
        if not stack:
            return "".join(out)
        top = stack[-1]
        kind, val = nodes[top[0]]
        pos = top[1]
        if pos < len(val):
            if pos > 0:
                out.append(", ")
            if kind == "obj":
                out.append(json_str(val[pos][0]))
                out.append(": ")
                nxt = val[pos][1]
            else:
                nxt = val[pos]
            top[1] = pos + 1
        else:
            out.append("}" if kind == "obj" else "]")
            stack.pop()
