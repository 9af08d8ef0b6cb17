"""The code's shape: dependencies between modules point one way (no import circles, in Python or
between Rust's top-level modules), no module over 1,000 lines and no function over 150 lines in
any source folder (every folder holding Rust or Python code: ``rust/``, ``build.rs``,
``python/``, ``tests/``, ``benches/``, ``fuzz/``, ``docs/``), and the layout
docs/architecture.md draws is the tree's.

Read from the source tree (the repository this file sits in); nothing is imported or built.
"""

from __future__ import annotations

import ast
import re
import subprocess
from pathlib import Path
from typing import Dict, Iterator, List, Set, Tuple

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "python" / "toolparse"
RUST = ROOT / "rust"

if not (PACKAGE / "__init__.py").is_file() or not (RUST / "lib.rs").is_file():
    pytest.skip("not run from a source checkout", allow_module_level=True)

MODULE_MAX = 1000
FUNCTION_MAX = 150

# module -> {module it imports: where (path:line)}
Graph = Dict[str, Dict[str, str]]


# ------------------------------------------------------------------------------------------------
# Circles
# ------------------------------------------------------------------------------------------------
def cycles(graph: Graph) -> List[List[str]]:
    """The strongly connected components of more than one module (Tarjan), each sorted."""
    index: Dict[str, int] = {}
    low: Dict[str, int] = {}
    stack: List[str] = []
    on_stack: Set[str] = set()
    found: List[List[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in graph.get(v, {}):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


def describe(graph: Graph, component: List[str]) -> str:
    """The edges inside a circle, each with where the import is."""
    edges = [
        f"  {a} -> {b}  ({where})"
        for a in component
        for b, where in sorted(graph[a].items())
        if b in component
    ]
    return " <-> ".join(component) + "\n" + "\n".join(edges)


def python_modules() -> Dict[str, Tuple[Path, bool]]:
    """Dotted name -> (file, is a package) for every module of the toolparse package; the native
    module counts by its stub."""
    base = PACKAGE.parent
    out: Dict[str, Tuple[Path, bool]] = {}
    for path in sorted(PACKAGE.rglob("*.py*")):
        if path.suffix not in (".py", ".pyi"):
            continue
        parts = list(path.relative_to(base).with_suffix("").parts)
        package = parts[-1] == "__init__"
        if package:
            parts.pop()
        name = ".".join(parts)
        if path.suffix == ".py" or name not in out:
            out[name] = (path, package)
    return out


def python_graph() -> Graph:
    """Every import between toolparse's modules: at module level, in functions, and for type
    checking alike (an import a function makes later is a dependency all the same)."""
    modules = python_modules()
    graph: Graph = {name: {} for name in modules}
    for name, (path, package) in modules.items():
        if path.suffix != ".py":
            continue
        here = name if package else name.rpartition(".")[0]
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            targets: List[str] = []
            if isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                if node.level:
                    parts = here.split(".")
                    parts = parts[: len(parts) - node.level + 1]
                    base = ".".join(parts + ([node.module] if node.module else []))
                else:
                    base = node.module or ""
                # `from package import name`: the submodule if there is one, else the package
                targets = [f"{base}.{a.name}" if f"{base}.{a.name}" in modules else base
                           for a in node.names]  # fmt: skip
            for target in targets:
                while target and target not in modules:
                    target = target.rpartition(".")[0]
                if target and target != name:
                    where = f"{path.relative_to(ROOT)}:{node.lineno}"
                    graph[name].setdefault(target, where)
    return graph


# Circles known and not broken yet; the test fails when one is gone too (then drop it here).
# (toolparse.models <-> toolparse.sdk is gone: toolparse.sdk registers its converters with the
# models at import, see toolparse.models._base._register_sdk.)
KNOWN_PYTHON_CYCLES: List[List[str]] = []


def test_python_modules_import_one_way() -> None:
    graph = python_graph()
    found = cycles(graph)
    new = [c for c in found if c not in KNOWN_PYTHON_CYCLES]
    assert not new, "import circles between toolparse's modules:\n" + "\n".join(
        describe(graph, c) for c in new
    )
    gone = [c for c in KNOWN_PYTHON_CYCLES if c not in found]
    assert not gone, f"no longer circles (remove them from KNOWN_PYTHON_CYCLES): {gone}"


CHAR = re.compile(r"b?'(?:\\u\{[0-9a-fA-F]+\}|\\x[0-9a-fA-F]{2}|\\.|[^'\\\n])'")
RAW = re.compile(r'b?r(#*)"')


def rust_code(src: str) -> str:
    """Rust source with its comments, strings and char literals blanked out, lines kept (so
    braces and paths left are code)."""
    out: List[str] = []
    i, n = 0, len(src)
    while i < n:
        after_ident = i > 0 and (src[i - 1].isalnum() or src[i - 1] == "_")
        if src.startswith("//", i):
            end = src.find("\n", i)
            i = n if end < 0 else end
        elif src.startswith("/*", i):
            depth, j = 0, i
            while j < n:
                if src.startswith("/*", j):
                    depth, j = depth + 1, j + 2
                elif src.startswith("*/", j):
                    depth, j = depth - 1, j + 2
                    if depth == 0:
                        break
                else:
                    j += 1
            out.append("\n" * src.count("\n", i, j))
            i = j
        elif (m := RAW.match(src, i)) and not after_ident:
            close = '"' + m.group(1)
            j = src.find(close, m.end())
            j = n if j < 0 else j + len(close)
            out.append('""' + "\n" * src.count("\n", i, j))
            i = j
        elif src[i] == '"' or (src.startswith('b"', i) and not after_ident):
            j = i + (2 if src[i] == "b" else 1)
            while j < n and src[j] != '"':
                j += 2 if src[j] == "\\" else 1
            out.append('""' + "\n" * src.count("\n", i, j + 1))
            i = j + 1
        elif (m := CHAR.match(src, i)) and (src[i] == "'" or not after_ident):
            out.append("' '")
            i = m.end()
        else:
            out.append(src[i])
            i += 1
    return "".join(out)


def rust_graph() -> Graph:
    """Edges between the crate's top-level modules (`rust/<m>.rs` with its `rust/<m>/`): every
    `crate::m` path, `crate::Name` re-exported by lib.rs as its module, and `super::` in a
    top-level file (the crate root)."""
    lib = (RUST / "lib.rs").read_text(encoding="utf-8")
    tops = {p.stem for p in RUST.glob("*.rs")} - {"lib"} | {
        p.name for p in RUST.iterdir() if p.is_dir()
    }
    reexports = {
        name.strip(): m.group(1)
        for m in re.finditer(r"pub use (\w+)::\{?([\w, ]+)\}?;", lib)
        for name in m.group(2).split(",")
    }
    graph: Graph = {t: {} for t in tops}
    for path in sorted(RUST.rglob("*.rs")):
        rel = path.relative_to(RUST)
        if rel == Path("lib.rs"):
            continue
        top = rel.parts[0].removesuffix(".rs")
        at_top = len(rel.parts) == 1 or rel.parts[1:] == ("mod.rs",)
        pattern = r"\b(?:crate|super)::(\w+)" if at_top else r"\bcrate::(\w+)"
        for lineno, line in enumerate(rust_code(path.read_text(encoding="utf-8")).splitlines(), 1):
            for m in re.finditer(pattern, line):
                target = m.group(1) if m.group(1) in tops else reexports.get(m.group(1))
                if target and target != top:
                    graph[top].setdefault(target, f"rust/{rel}:{lineno}")
    return graph


def test_rust_modules_depend_one_way() -> None:
    graph = rust_graph()
    assert {"event", "scan", "formats", "params", "reasoning"} <= set(graph)
    found = cycles(graph)
    assert not found, "circles between the crate's top-level modules:\n" + "\n".join(
        describe(graph, c) for c in found
    )


def test_the_checks_find_a_circle() -> None:
    graph: Graph = {"a": {"b": "x:1"}, "b": {"c": "x:2"}, "c": {"a": "x:3"}, "d": {"a": "x:4"}}
    assert cycles(graph) == [["a", "b", "c"]]
    assert "a -> b  (x:1)" in describe(graph, ["a", "b", "c"])
    code = rust_code("let s = \"crate::x { \"; // crate::y {\nlet c = '{'; /* } */ b'}'")
    assert "crate" not in code and "{" not in code and "}" not in code
    assert code.count("\n") == 1


# ------------------------------------------------------------------------------------------------
# Sizes
# ------------------------------------------------------------------------------------------------
# Where Rust and Python code lives: every top-level file or folder holding any (the test below
# fails on one missing here).
SOURCE_ROOTS = ("build.rs", "rust", "python", "tests", "benches", "fuzz", "docs")
# Never source: version control, build outputs, virtual environments, caches.
NOT_SOURCE = re.compile(r"^(\.git|target|dist|site|\.venv.*|\..*cache|\.hypothesis|__pycache__)$")


def tree_files() -> List[Path]:
    """The repository's files (relative): as git sees them (tracked, and new files not ignored),
    or without git every file outside build outputs, environments and caches."""
    try:
        listed = subprocess.run(
            ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
            cwd=ROOT,
            capture_output=True,
            check=True,
        ).stdout.decode()
        return [Path(p) for p in listed.split("\0") if p and (ROOT / p).is_file()]
    except (OSError, subprocess.CalledProcessError):
        return [
            p.relative_to(ROOT)
            for p in ROOT.rglob("*")
            if p.is_file() and not any(NOT_SOURCE.match(part) for part in p.relative_to(ROOT).parts)
        ]


def code_files() -> List[Path]:
    """Every Rust or Python file of the tree (relative), fuzz's build outputs aside."""
    return sorted(
        p
        for p in tree_files()
        if p.suffix in (".rs", ".py") and not any(NOT_SOURCE.match(part) for part in p.parts)
    )


def sources() -> Iterator[Path]:
    for rel in code_files():
        if rel.parts[0] in SOURCE_ROOTS:
            yield ROOT / rel


def test_every_source_folder_is_checked() -> None:
    """A folder of code added at the top level is held to the limits too (add it to
    SOURCE_ROOTS); build.rs and the rest are."""
    roots = {p.parts[0] for p in code_files()}
    assert roots <= set(SOURCE_ROOTS), (
        f"code outside SOURCE_ROOTS: {sorted(roots - set(SOURCE_ROOTS))}"
    )
    checked = {p.relative_to(ROOT).parts[0] for p in sources()}
    assert {"build.rs", "rust", "python", "tests"} <= checked, checked
    assert any(p.name == "config.rs" and p.parent.name == "formats" for p in sources())


def functions(path: Path) -> Iterator[Tuple[str, int, int]]:
    """(name, first line, lines) of every function in a Rust or Python file; a Rust body is found
    by matching its braces, a Python one by `ast`."""
    text = path.read_text(encoding="utf-8")
    if path.suffix == ".py":
        for node in ast.walk(ast.parse(text)):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                assert node.end_lineno is not None
                yield node.name, node.lineno, node.end_lineno - node.lineno + 1
        return
    code = rust_code(text)
    for m in re.finditer(r"\bfn\s+(\w+)", code):
        brace, semi = code.find("{", m.end()), code.find(";", m.end())
        if brace < 0 or 0 <= semi < brace:  # a declaration without a body
            continue
        depth, j = 0, brace
        while j < len(code):
            depth += {"{": 1, "}": -1}.get(code[j], 0)
            if depth == 0:
                break
            j += 1
        yield m.group(1), code.count("\n", 0, m.start()) + 1, code.count("\n", m.start(), j) + 1


def test_no_module_over_the_limit() -> None:
    long = [
        f"{path.relative_to(ROOT)}: {n} lines"
        for path in sources()
        if (n := len(path.read_text(encoding="utf-8").splitlines())) > MODULE_MAX
    ]
    assert not long, f"modules over {MODULE_MAX} lines (split them by what they do):\n" + "\n".join(
        long
    )


def test_no_function_over_the_limit() -> None:
    long = [
        f"{path.relative_to(ROOT)}:{line} {name}: {size} lines"
        for path in sources()
        for name, line, size in functions(path)
        if size > FUNCTION_MAX
    ]
    assert not long, f"functions over {FUNCTION_MAX} lines (split them):\n" + "\n".join(long)


# ------------------------------------------------------------------------------------------------
# The layout docs/architecture.md draws
# ------------------------------------------------------------------------------------------------
ARCHITECTURE = ROOT / "docs" / "architecture.md"


def layout() -> List[str]:
    """The paths the architecture page's Layout block names (relative to the repository): a
    line's first column, split at commas; an indented entry is inside the last top-level one, a
    line indented further continues the description above."""
    page = ARCHITECTURE.read_text(encoding="utf-8")
    block = re.search(r"^## Layout\n\n```\n(.*?)^```", page, re.S | re.M)
    assert block, "docs/architecture.md has a Layout block"
    named: List[str] = []
    parent = ""
    for line in block.group(1).splitlines():
        indent = len(line) - len(line.lstrip(" "))
        if not line.strip() or indent > 2:
            continue
        entry = re.split(r" {2,}", line.strip())[0]
        paths = [e.strip() for e in entry.split(",")]
        if indent == 0:
            named.extend(paths)
            parent = next((e for e in paths if e.endswith("/")), "")
        else:
            named.extend(parent + e for e in paths)
    return named


def source_folders() -> List[str]:
    """Every top-level file or folder of code, and every folder directly inside the crate
    (``rust/``) and the package (``python/toolparse/``)."""
    folders = {p.parts[0] + ("/" if len(p.parts) > 1 else "") for p in code_files()}
    for base in ("rust", "python/toolparse"):
        depth = len(Path(base).parts)
        folders |= {
            "/".join(p.parts[: depth + 1]) + "/"
            for p in tree_files()
            if p.parts[:depth] == Path(base).parts and len(p.parts) > depth + 1
        }
    return sorted(folders - {"python/"} | {"python/toolparse/"})


def test_architecture_layout_names_only_what_exists() -> None:
    named = layout()
    assert "rust/" in named and "python/toolparse/parser.py" in named, named
    missing = [n for n in named if not (ROOT / n).exists()]
    assert not missing, f"docs/architecture.md's layout names what is not there: {missing}"


def test_architecture_layout_names_every_source_folder() -> None:
    named = set(layout())
    unnamed = [f for f in source_folders() if f not in named]
    assert not unnamed, f"docs/architecture.md's layout does not name {unnamed}"
    assert "rust/" in source_folders() and "rust/formats/" in source_folders()
