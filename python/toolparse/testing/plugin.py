"""The pytest plugin (entry point ``pytest11``: loaded wherever toolparse is installed).

``pytest --toolparse-format hermes`` adds one test per case of the format (``toolparse.testing
.cases``), each running :func:`toolparse.testing.check` on the parser the ``toolparse_parser``
fixture returns. Without a fixture of that name in the user's conftest, the parser is toolparse's
own; a conftest can return anything ``check`` takes::

    # conftest.py
    import pytest
    from toolparse.testing import from_vllm

    @pytest.fixture
    def toolparse_parser(toolparse_format):
        from vllm.tool_parsers.hermes_tool_parser import Hermes2ProToolParser
        return from_vllm(Hermes2ProToolParser)

``--toolparse-cases FILE.json`` adds the cases of a case file (``toolparse.testing.load_cases``);
``--toolparse-format-file FORMAT.json`` registers a format file (``toolparse.register_format``)
and adds that format's cases, as ``--toolparse-format`` does for a built-in one;
``--toolparse-strict`` compares texts exactly (``check(strict=True)``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Dict, List

import pytest

OPTION = "--toolparse-format"
FILE_OPTION = "--toolparse-format-file"

#: the format files this plugin registered (resolved path -> format name): a second session in
#: the same process (pytester's in-process runs) registers the same file again in its place
_REGISTERED: Dict[str, str] = {}


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("toolparse", "toolparse conformance kit")
    group.addoption(
        OPTION,
        action="append",
        default=[],
        metavar="FORMAT",
        help="run toolparse.testing's cases of FORMAT on the toolparse_parser fixture's parser",
    )
    group.addoption(
        "--toolparse-cases",
        action="append",
        default=[],
        metavar="FILE",
        help="also run the cases of this JSON case file (toolparse.testing.load_cases)",
    )
    group.addoption(
        FILE_OPTION,
        action="append",
        default=[],
        metavar="FILE",
        help="register this format file (toolparse.register_format) and run its format's cases",
    )
    group.addoption(
        "--toolparse-strict",
        action="store_true",
        default=False,
        help="compare arguments and content texts exactly",
    )


def _run_case(toolparse_parser: Any, toolparse_case: Any, pytestconfig: pytest.Config) -> None:
    """One case of the kit on the ``toolparse_parser`` fixture's parser."""
    from toolparse.testing import check

    report = check(
        toolparse_parser, [toolparse_case], strict=pytestconfig.getoption("--toolparse-strict")
    )
    if report.failures:
        pytest.fail(str(report), pytrace=False)


class _Kit(pytest.Collector):
    """The kit's cases of one format or case file, as test items."""

    def __init__(self, *, cases: List[Any], **kw: Any) -> None:
        super().__init__(**kw)
        self.cases = cases

    def collect(self) -> List[pytest.Item]:
        items: List[pytest.Item] = []
        for i, case in enumerate(self.cases):
            item = pytest.Function.from_parent(
                self, name=f"{case.format}:{case.label or i}", callobj=_run_case
            )
            item.toolparse_case = case  # type: ignore[attr-defined]
            items.append(item)
        return items


def _base(session: pytest.Session) -> str:
    """Where the kit's tests sit in the test tree: beside the deepest conftest.py that defines
    ``toolparse_parser`` (a conftest's fixtures are visible only below its folder)."""
    root = session.config.rootpath
    bases = []
    for plugin in session.config.pluginmanager.get_plugins():
        path = getattr(plugin, "__file__", None) or ""
        if path.endswith("conftest.py") and hasattr(plugin, "toolparse_parser"):
            try:
                rel = Path(path).parent.resolve().relative_to(root.resolve())
            except ValueError:
                continue
            bases.append("" if str(rel) == "." else rel.as_posix())
    return max(bases, key=len) if bases else ""


def pytest_collection_modifyitems(
    session: pytest.Session, config: pytest.Config, items: List[pytest.Item]
) -> None:
    formats = list(config.getoption(OPTION))
    files = config.getoption("--toolparse-cases")
    format_files = config.getoption(FILE_OPTION)
    if not formats and not files and not format_files:
        return
    from toolparse.testing import cases, load_cases

    formats += [_register(path) for path in format_files]
    base = _base(session)
    groups = [(f"toolparse-kit[{f}]", cases(f)) for f in formats]
    groups += [(f"toolparse-kit[{p}]", load_cases(p)) for p in files]
    for name, group in groups:
        nodeid = f"{base}/{name}" if base else name
        kit = _Kit.from_parent(session, name=name, nodeid=nodeid, cases=group)
        items.extend(kit.collect())


def _register(path: str) -> str:
    """Registers a format file, once per file: the same file given again replaces its own
    registration, and a clash with any other format is a usage error naming the file."""
    from toolparse import register_format

    key = str(Path(path).resolve())
    try:
        name = register_format(path, replace=key in _REGISTERED)
    except (OSError, ValueError, TypeError) as e:
        raise pytest.UsageError(f"{FILE_OPTION} {path}: {e}") from None
    _REGISTERED[key] = name
    return name


@pytest.fixture
def toolparse_case(request: pytest.FixtureRequest) -> Any:
    """The kit's case being run."""
    return request.node.toolparse_case


@pytest.fixture
def toolparse_format(toolparse_case: Any) -> str:
    """The format of the kit's case being run."""
    return str(toolparse_case.format)


@pytest.fixture
def toolparse_parser(toolparse_format: str) -> Any:
    """The parser the kit checks (default: toolparse's own for the case's format). Override it in
    your conftest.py: return anything ``toolparse.testing.check`` takes."""
    return toolparse_format
