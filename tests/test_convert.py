"""Incremental Python-literal -> JSON converter (``PyLiteral``).

The oracle is ``json.dumps(ast.literal_eval(src), ensure_ascii=False)``. Only the pure-Python twin
is tested here for now (the Rust converter's unit tests, ``rust/convert/tests.rs``, read the same
case tables, ``tests/fixtures/convert_cases.json``; add the native class to ``BACKENDS`` once it
is bound).
"""

from __future__ import annotations

import ast
import json
import re
import warnings
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from toolparse.reference.convert import PyLiteral

BACKENDS = [PyLiteral]

_SURROGATE = re.compile("[\ud800-\udfff]")


def oracle(src: str) -> str | None:
    """What json.dumps(ast.literal_eval(src), ensure_ascii=False) writes for ``src`` as one
    literal inside brackets (where newlines are whitespace), or None when Python rejects it or
    the result is not valid JSON (inf). Lone surrogates become U+FFFD, as in both twins."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            value = ast.literal_eval("[" + src + " \n]")
        if not isinstance(value, list) or len(value) != 1:
            return None
        text = json.dumps(value[0], ensure_ascii=False, allow_nan=False)
    except Exception:
        return None
    return _SURROGATE.sub("\ufffd", text)


def run(cls, pieces):
    """Feed ``pieces`` then finish. Returns (output, status, global character offset)."""
    conv = cls()
    out: list[str] = []
    base = 0
    for piece in pieces:
        status, n = conv.feed(piece, out)
        assert status in ("more", "done", "error")
        if status != "more":
            return "".join(out), status, base + n
        assert n == 0
        base += len(piece)
    status, n = conv.finish(out)
    assert status in ("done", "error") and n == 0
    return "".join(out), status, base


def splits(src: str):
    """Whole, every split in two, and one character at a time."""
    yield [src]
    for i in range(1, len(src)):
        yield [src[:i], src[i:]]
    yield list(src)


# The case tables Rust's tests read too (rust/convert/tests.rs); the fixture's "about" says
# what each holds.
TABLES = json.loads((Path(__file__).parent / "fixtures" / "convert_cases.json").read_text("utf-8"))
# [source, the oracle's JSON]: sources accepted by literal_eval
EXPECTED = dict(TABLES["cases"])
CASES = list(EXPECTED)
# Sources that must be rejected: an error, or the literal ends before the end of the text; and
# the over-long ones (see test_big_ints).
_AT = TABLES["errors"].index("[.e5]") + 1  # where they stand (their test ids are by place)
ERRORS = TABLES["errors"][:_AT] + ["1" + "0" * 4300, "0x" + "f" * 3600] + TABLES["errors"][_AT:]
# Python accepts these; the converter rejects them (documented as unsupported).
UNSUPPORTED = TABLES["unsupported"]
# Documented deviations from the oracle.
DEVIATIONS = [tuple(d) for d in TABLES["deviations"]]
# Valid literals whose value has no JSON form: read to their end, flagged by ``no_json``.
NO_JSON = TABLES["no_json"]


def rejected(result, src: str) -> bool:
    out, status, n = result
    return status == "error" or (status == "done" and src[n:].strip() != "")


@pytest.mark.parametrize("cls", BACKENDS)
@pytest.mark.parametrize("src", CASES)
def test_cases(cls, src):
    expected = oracle(src)
    assert expected == EXPECTED[src], src
    for pieces in splits(src):
        assert run(cls, pieces) == (expected, "done", len(src)), pieces
    # the literal ends where the next token starts
    for pieces in ([src + ")"], [src, ")"], list(src + " )")):
        total = len("".join(pieces))
        assert run(cls, pieces) == (expected, "done", total - 1), pieces


@pytest.mark.parametrize("cls", BACKENDS)
@pytest.mark.parametrize("src", ERRORS)
def test_errors(cls, src):
    assert oracle(src) is None, src
    tries = splits(src) if len(src) < 200 else [[src], list(src)]  # long ones: see test_big_ints
    results = {run(cls, pieces)[1:] for pieces in tries}
    for result in results:
        assert rejected(("",) + result, src), (src, result)
    assert len(results) == 1, results  # same verdict and offset for every split


@pytest.mark.parametrize("cls", BACKENDS)
@pytest.mark.parametrize("src", UNSUPPORTED)
def test_unsupported(cls, src):
    assert oracle(src) is not None
    for pieces in splits(src):
        assert rejected(run(cls, pieces), src)


@pytest.mark.parametrize("cls", BACKENDS)
@pytest.mark.parametrize("src,expected", DEVIATIONS)
def test_deviations(cls, src, expected):
    for pieces in splits(src):
        assert run(cls, pieces) == (expected, "done", len(src))


@pytest.mark.parametrize("cls", BACKENDS)
@pytest.mark.parametrize("src", NO_JSON)
def test_no_json(cls, src):
    for pieces in splits(src):
        conv = cls()
        out: list[str] = []
        assert all(conv.feed(p, out) == ("more", 0) for p in pieces), pieces
        assert conv.finish(out) == ("done", 0)
        assert conv.no_json, pieces


@pytest.mark.parametrize("cls", BACKENDS)
@pytest.mark.parametrize("src", [c for c in CASES] + [d[0] for d in DEVIATIONS])
def test_json_values_are_not_flagged(cls, src):
    conv = cls()
    conv.feed(src, [])
    conv.finish([])
    assert not conv.no_json


@pytest.mark.parametrize("cls", BACKENDS)
def test_feed_after_end(cls):
    conv = cls()
    out: list[str] = []
    assert conv.feed("[1] , 2", out) == ("done", 4)
    assert conv.feed("xyz", out) == ("done", 0)
    assert conv.finish(out) == ("done", 0)
    assert "".join(out) == "[1]"
    conv = cls()
    assert conv.feed("[1 x", out) == ("error", 3)
    assert conv.feed("]", out) == ("error", 0)
    assert conv.finish(out) == ("error", 0)


@pytest.mark.parametrize("cls", BACKENDS)
def test_done_offsets(cls):
    out: list[str] = []
    conv = cls()
    assert conv.feed("'a' ", out) == ("more", 0)
    assert conv.feed(" \n", out) == ("more", 0)
    assert conv.feed("  )", out) == ("done", 2)
    assert "".join(out) == '"a"'
    out = []
    conv = cls()
    assert conv.feed("12", out) == ("more", 0)
    assert out == []  # a number is written once complete
    assert conv.feed("3,", out) == ("done", 1)
    assert "".join(out) == "123"


@pytest.mark.parametrize("cls", BACKENDS)
def test_strings_stream(cls):
    body = ("abc é漢😀 \\n \\x41 \\' " * 1000)[:16384]
    src = "'" + body + "'"
    expected = oracle(src)
    conv = cls()
    out: list[str] = []
    sizes = []
    for i in range(0, len(src), 4):
        before = len(out)
        assert conv.feed(src[i : i + 4], out) == ("more", 0)
        sizes.append(len(out) - before)
    assert conv.feed(")", out) == ("done", 0)
    assert "".join(out) == expected
    # every feed wrote something, except ones that ended inside an escape
    assert sum(1 for s in sizes if s == 0) < len(sizes) // 10
    text = "".join(out)
    assert text.startswith("\"abc é漢😀 \\n A ' ")


@pytest.mark.parametrize("cls", BACKENDS)
def test_undecided_paren_holds_only_until_known(cls):
    conv = cls()
    out: list[str] = []
    assert conv.feed("('abc", out) == ("more", 0)
    assert out == []  # tuple or group: not known yet
    assert conv.feed("def',", out) == ("more", 0)
    assert "".join(out) == '["abcdef"'
    assert conv.feed(" 'x", out) == ("more", 0)
    assert "".join(out) == '["abcdef", "x'  # known now: streams again


@pytest.mark.parametrize("cls", BACKENDS)
def test_deep_nesting(cls):
    n = 100_000
    cases = [
        ("[" * n + "]" * n, "[" * n + "]" * n),
        ("(" * n + "1" + ")" * n, "1"),
        ("(" * n + "1," + ")," * (n - 1) + ")", "[" * n + "1" + "]" * n),
        ("{'a': " * n + "1" + "}" * n, '{"a": ' * n + "1" + "}" * n),
        ("-" + "(" * n + "1" + ")" * n, "-1"),
    ]
    for src, expected in cases:
        assert run(cls, [src]) == (expected, "done", len(src))
        pieces = [src[i : i + 7] for i in range(0, len(src), 7)]
        assert run(cls, pieces) == (expected, "done", len(src))
    assert rejected(run(cls, ["[" * n + "]" * (n - 1) + ")"]), "")


@pytest.mark.parametrize("cls", BACKENDS)
def test_big_ints(cls):
    limit = 10**4300  # Python refuses ints with more than 4300 decimal digits
    ok = [
        "9" * 4300,
        "-" + "9" * 4300,
        "0" * 5000,
        hex(limit - 1),
        "-" + oct(limit - 1),
        bin(limit - 1),
        "0b" + "1" * 14284,
        "0x" + "0" * 5000 + "1",
    ]
    for src in ok:
        expected = oracle(src)
        assert expected is not None
        assert run(cls, [src]) == (expected, "done", len(src))
    too_big = [
        "9" * 4301,
        "1" + "0" * 4300,
        hex(limit),
        bin(limit),
        "0b" + "1" * 14285,
        "0x" + "f" * 9000,
    ]
    for src in too_big:
        assert oracle(src) is None
        assert run(cls, [src])[1] == "error"


# ----- property tests -----

WS = ["", "", " ", "  ", "\n", "\t", "\r\n", "\\\n", "\x0c", "\n  "]
FINITE = st.floats(allow_nan=False, allow_infinity=False)
SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.integers(min_value=-(10**80), max_value=10**80),
    FINITE,
    st.text(),
    st.text(alphabet="'\"\\\n\r\t\x00\x01 abc0178xuUN{}é漢😀", max_size=20),
)
KEYS = st.one_of(st.text(max_size=8), st.integers(), FINITE, st.booleans(), st.none())
VALUES = st.recursive(
    SCALARS,
    lambda children: st.one_of(
        st.lists(children, max_size=4),
        st.lists(children, max_size=4).map(tuple),
        st.dictionaries(KEYS, children, max_size=4),
    ),
    max_leaves=12,
)

_SIMPLE = {
    "\\": "\\\\",
    "\n": "\\n",
    "\r": "\\r",
    "\t": "\\t",
    "\x07": "\\a",
    "\x08": "\\b",
    "\x0c": "\\f",
    "\x0b": "\\v",
    "'": "\\'",
    '"': '\\"',
}
_NOT_ESCAPES = "cdeghijklmopqswyzABCDEFGHIJKLMOPQRSTVWXYZ"  # `\c` keeps its backslash


def _hexcase(draw, s: str) -> str:
    return s.upper() if draw(st.booleans()) else s


def _escape(draw, ch: str, nxt: str) -> str:
    cp = ord(ch)
    options = []
    if ch in _SIMPLE:
        options.append(_SIMPLE[ch])
    if cp < 256:
        options.append("\\x" + _hexcase(draw, f"{cp:02x}"))
    if cp < 512:
        # a shorter octal escape only when the next character cannot extend it
        width = 3 if nxt in "01234567" else draw(st.sampled_from([1, 2, 3]))
        options.append("\\" + f"{cp:0{width}o}")
    if cp < 0x10000:
        options.append("\\u" + _hexcase(draw, f"{cp:04x}"))
    options.append("\\U" + _hexcase(draw, f"{cp:08x}"))
    return draw(st.sampled_from(options))


def _render_str_part(draw, s: str) -> str:
    if draw(st.integers(0, 4)) == 0:
        return repr(s)
    q = draw(st.sampled_from(["'", '"']))
    triple = draw(st.booleans())
    raw_ok = (
        q not in s
        and "\r" not in s
        and "\x00" not in s
        and (triple or "\n" not in s)
        and (len(s) - len(s.rstrip("\\"))) % 2 == 0
    )
    if raw_ok and draw(st.booleans()):
        return (
            draw(st.sampled_from(["r", "R"]))
            + q * (3 if triple else 1)
            + s
            + q * (3 if triple else 1)
        )
    prefix = draw(st.sampled_from(["", "", "u", "U"]))
    body = []
    qrun = 0  # literal quote characters just written (triple-quoted bodies)
    force_literal = False
    for i, ch in enumerate(s):
        nxt = s[i + 1] if i + 1 < len(s) else ""
        if ch == q:
            literal_ok = triple and qrun < 2 and nxt != ""
        else:
            literal_ok = ch not in "\\\r\x00" and (triple or ch != "\n")
        if force_literal or (literal_ok and draw(st.integers(0, 3)) > 0):
            body.append(ch)
            force_literal = False
        elif ch == "\\" and nxt and nxt in _NOT_ESCAPES and draw(st.booleans()):
            body.append("\\")  # an unknown escape: the backslash stays
            force_literal = True
        else:
            body.append(_escape(draw, ch, nxt if nxt and nxt not in "\\\r\x00" else ""))
        qrun = qrun + 1 if body[-1] == q else 0
        if not force_literal and draw(st.integers(0, 20)) == 0:
            body.append("\\\n")  # line continuation inside the string
            qrun = 0
    quote = q * (3 if triple else 1)
    return prefix + quote + "".join(body) + quote


def _render_str(draw, s: str) -> str:
    cuts = sorted(set(draw(st.lists(st.integers(0, len(s)), max_size=3))))
    parts = [s[a:b] for a, b in zip([0] + cuts, cuts + [len(s)])]
    rendered = [_render_str_part(draw, p) for p in parts]
    text = rendered[0]
    for part in rendered[1:]:
        sep = draw(st.sampled_from(WS))
        if sep == "" and text[-1] == part[0]:
            sep = " "  # `''` + `''` would read as a triple quote
        text += sep + part
    return text


def _digits(draw, digits: str) -> str:
    out = digits[0]
    for d in digits[1:]:
        out += ("_" if draw(st.integers(0, 5)) == 0 else "") + d
    return out


def _render_int(draw, v: int) -> str:
    sign = "-" if v < 0 else draw(st.sampled_from(["", "", "+"]))
    v = abs(v)
    base = draw(st.sampled_from(["d", "d", "x", "o", "b"]))
    if base == "d":
        digits = _digits(draw, str(v))
    else:
        prefix = "0" + draw(st.sampled_from([base, base.upper()]))
        body = format(v, base)
        if base == "x":
            body = _hexcase(draw, body)
        digits = prefix + ("_" if draw(st.booleans()) else "") + _digits(draw, body)
    if sign and draw(st.integers(0, 4)) == 0:
        return sign + "(" + digits + ")"
    return sign + draw(st.sampled_from(["", "", " "])) + digits


def _render_float(draw, f: float) -> str:
    sign = "-" if str(f).startswith("-") else ""
    f = abs(f)
    text = draw(st.sampled_from([repr(f), format(f, ".17g"), format(f, ".17e")]))
    if "e" not in text and "." not in text:
        text += ".0"
    mant, _, exp = text.partition("e")
    if mant.startswith("0.") and draw(st.booleans()):
        mant = mant[1:]  # .5
    elif mant.endswith(".0") and draw(st.booleans()):
        mant = mant[:-1]  # 5.
    if "." in mant:
        a, b = mant.split(".")
        mant = (_digits(draw, a) if a else "") + "." + (_digits(draw, b) if b else "")
    if exp:
        e = exp.lstrip("+")
        if e.startswith("-"):
            e = "-" + _digits(draw, e[1:])
        else:
            e = draw(st.sampled_from(["", "+"])) + _digits(draw, e)
        mant += draw(st.sampled_from(["e", "E"])) + e
    return sign + mant


def _render(draw, value, key: bool = False) -> str:
    def ws() -> str:
        return draw(st.sampled_from(WS))

    if value is None or isinstance(value, bool):
        text = repr(value)
    elif isinstance(value, int):
        text = _render_int(draw, value)
    elif isinstance(value, float):
        text = _render_float(draw, value)
    elif isinstance(value, str):
        text = _render_str(draw, value)
    elif isinstance(value, dict):
        items = [
            ws() + _render(draw, k, key=True) + ws() + ":" + ws() + _render(draw, v) + ws()
            for k, v in value.items()
        ]
        trail = "," + ws() if items and draw(st.booleans()) else ""
        text = "{" + ",".join(items) + trail + ws() + "}"
    else:
        items = [ws() + _render(draw, v) + ws() for v in value]
        if isinstance(value, tuple):
            trail = "," + ws() if len(items) == 1 or (items and draw(st.booleans())) else ""
            text = "(" + ",".join(items) + trail + ws() + ")"
        else:
            trail = "," + ws() if items and draw(st.booleans()) else ""
            text = "[" + ",".join(items) + trail + ws() + "]"
    for _ in range(draw(st.sampled_from([0, 0, 0, 1, 2]))):
        text = "(" + ws() + text + ws() + ")"  # grouping parentheses
    return text


@st.composite
def sources(draw):
    value = draw(VALUES)
    return (
        draw(st.sampled_from(["", " ", "\n"]))
        + _render(draw, value)
        + draw(st.sampled_from(["", " ", "\n "]))
    )


@st.composite
def pieces_of(draw, src: str):
    cuts = sorted(set(draw(st.lists(st.integers(0, len(src)), max_size=12))))
    return [src[a:b] for a, b in zip([0] + cuts, cuts + [len(src)])]


@pytest.mark.parametrize("cls", BACKENDS)
@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_rendered_values(cls, data):
    src = data.draw(sources(), label="src")
    expected = oracle(src)
    assert expected is not None, "the renderer wrote an invalid literal"
    assert run(cls, [src]) == (expected, "done", len(src))
    assert run(cls, list(src)) == (expected, "done", len(src))
    assert run(cls, data.draw(pieces_of(src), label="pieces")) == (expected, "done", len(src))
    # the literal ends where the next token starts
    pieces = data.draw(pieces_of(src + ")"), label="pieces+)")
    assert run(cls, pieces) == (expected, "done", len(src))


@pytest.mark.parametrize("cls", BACKENDS)
@settings(max_examples=300, deadline=None)
@given(value=VALUES)
def test_repr_of_values(cls, value):
    src = repr(value)
    expected = oracle(src)
    assert expected is not None
    assert run(cls, [src]) == (expected, "done", len(src))
    assert run(cls, list(src + ")")) == (expected, "done", len(src))


def _has_duplicate_keys(src: str) -> bool:
    try:
        tree = ast.parse("[" + src + " \n]", mode="eval")
    except SyntaxError:
        return False
    for node in ast.walk(tree):
        if isinstance(node, ast.Dict):
            keys = []
            for k in node.keys:
                try:
                    keys.append(ast.literal_eval(k))
                except Exception:
                    return False
            try:
                if len(set(keys)) < len(keys):
                    return True
            except TypeError:
                return False
    return False


FUZZ = "[](){}:,'\"\\ \n\r\t.-+_0123456789xobejruUbfRNTrueFalsNone#a\x00é😀"


class _NoJson(Exception):
    pass


def _escape_line_ends(src: str) -> str:
    """Raw line ends inside one-line strings escaped (what the converter keeps as written)."""
    out = []
    i, n = 0, len(src)
    quote = ""
    while i < n:
        c = src[i]
        if not quote:
            if c in "'\"":
                quote = src[i : i + 3] if src[i : i + 3] == c * 3 else c
                out.append(quote)
                i += len(quote)
                continue
        elif c == "\\" and i + 1 < n:
            out.append(src[i : i + 2])
            i += 2
            continue
        elif src.startswith(quote, i):
            out.append(quote)
            i += len(quote)
            quote = ""
            continue
        elif len(quote) == 1 and c in "\r\n":
            out.append("\\r" if c == "\r" else "\\n")
            i += 1
            continue
        out.append(c)
        i += 1
    return "".join(out)


def _value(node: ast.AST):
    """A node as the converter reads it: ast.literal_eval plus sets as lists and JSON's names;
    _NoJson for a value with no JSON form."""
    if isinstance(node, ast.Constant):
        if isinstance(node.value, (bytes, complex)) or node.value is Ellipsis:
            raise _NoJson
        return node.value
    if isinstance(node, ast.Name) and node.id in ("null", "true", "false"):
        return {"null": None, "true": True, "false": False}[node.id]
    if isinstance(node, (ast.Set, ast.List, ast.Tuple)):
        items = [_value(e) for e in node.elts]
        return tuple(items) if isinstance(node, ast.Tuple) else items
    if isinstance(node, ast.Dict):
        return {_value(k): _value(v) for k, v in zip(node.keys, node.values)}  # type: ignore[arg-type]
    return ast.literal_eval(node)


def extended_oracle(src: str) -> str | None:
    """The oracle for what the converter reads beyond literal_eval; "no json" for a valid
    literal with no JSON form; None when it is not a literal."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            tree = ast.parse("[" + _escape_line_ends(src) + " \n]", mode="eval")
            value = _value(tree.body)
        if not isinstance(value, list) or len(value) != 1:
            return None
        text = json.dumps(value[0], ensure_ascii=False, allow_nan=False)
    except _NoJson:
        return "no json"
    except ValueError as e:
        return "no json" if "Out of range float" in str(e) else None
    except Exception:
        return None
    return _SURROGATE.sub("\ufffd", text)


def check_against_oracle(cls, src: str, pieces: list[str]) -> None:
    """Split-invariant, and agrees with literal_eval on what is a literal and what it means."""
    whole = run(cls, [src])
    assert run(cls, list(src)) == whole
    assert run(cls, pieces) == whole
    out, status, n = whole
    expected = oracle(src)
    if status == "done" and n == len(src) and expected is None:
        # beyond literal_eval: sets, JSON's names, raw line ends, values with no JSON form
        conv = cls()
        conv.feed(src, [])
        conv.finish([])
        extended = extended_oracle(src)
        assert extended == ("no json" if conv.no_json else out), (src, out, extended)
        return
    if status == "done" and n == len(src):
        assert expected is not None, src
        if out != expected:
            assert _has_duplicate_keys(src), (src, out, expected)
    elif expected is not None:
        # Python accepts it: we may only reject comments (unsupported) and a trailing top-level
        # comma (`1,` is a tuple to Python but the end of an argument to our caller)
        if "#" in src or src.rstrip().endswith(","):
            return
        pytest.fail(f"rejected a valid literal {src!r}: {whole}")


@pytest.mark.parametrize("cls", BACKENDS)
@settings(max_examples=1500, deadline=None)
@given(src=st.text(alphabet=FUZZ, max_size=24), data=st.data())
def test_fuzz_against_literal_eval(cls, src, data):
    check_against_oracle(cls, src, data.draw(pieces_of(src)))


@pytest.mark.parametrize("cls", BACKENDS)
@settings(max_examples=600, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_mutated_sources(cls, data):
    src = data.draw(sources(), label="src")
    for _ in range(data.draw(st.integers(1, 2))):
        i = data.draw(st.integers(0, len(src)))
        op = data.draw(st.sampled_from(["insert", "delete", "replace"]))
        ch = data.draw(st.sampled_from(FUZZ))
        if op == "insert":
            src = src[:i] + ch + src[i:]
        elif op == "delete":
            src = src[:i] + src[i + 1 :]
        else:
            src = src[:i] + ch + src[i + 1 :]
    check_against_oracle(cls, src, data.draw(pieces_of(src), label="pieces"))


@pytest.mark.parametrize("cls", BACKENDS)
@settings(max_examples=300, deadline=None)
@given(text=st.text(max_size=40), data=st.data())
def test_never_raises(cls, text, data):
    whole = run(cls, [text])
    assert run(cls, data.draw(pieces_of(text))) == whole
