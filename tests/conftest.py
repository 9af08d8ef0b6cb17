"""Shared parametrisation for the cross-format tests.

* A test that takes ``fmt`` runs for every format in ``toolparse.list_formats()``: a format is
  tested as soon as it is registered.
* A test that takes ``backend`` runs on "rust" (``toolparse._core``) and "python" (the reference
  twins).
* Hypothesis runs derandomised by default (the same examples every run, so a failure reproduces);
  ``TOOLPARSE_HYPOTHESIS=explore`` searches with fresh random examples, ten times as many
  (``TOOLPARSE_EXAMPLES=<factor>`` scales the number of examples in either profile).
* ``KNOWN_BUGS`` marks the tests that fail because of a parser bug, with the bug, as
  ``xfail(strict=True)``: the test stays as it is and turns red (XPASS) once the bug is fixed.
"""

from __future__ import annotations

import os
import sys
from typing import Dict, Optional, Tuple

import pytest
from hypothesis import HealthCheck, Phase, settings

sys.path.insert(0, os.path.dirname(__file__))

import toolparse  # noqa: E402

FORMATS = toolparse.list_formats()
BACKENDS = ("rust", "python")

_common = dict(
    deadline=None,
    suppress_health_check=[
        HealthCheck.too_slow,
        HealthCheck.data_too_large,
        HealthCheck.filter_too_much,
    ],
    print_blob=True,
    # no "explain" phase: it reruns a failing example many times and adds little here
    phases=[Phase.explicit, Phase.reuse, Phase.generate, Phase.target, Phase.shrink],
)
settings.register_profile("toolparse", derandomize=True, database=None, **_common)
settings.register_profile("explore", **_common)
settings.load_profile(
    "explore" if os.environ.get("TOOLPARSE_HYPOTHESIS") == "explore" else "toolparse"
)


# Modules whose ``fmt`` / ``backend`` arguments are parametrised here; other test modules (the
# format-specific ones) opt in with a module attribute ``CROSS_FORMAT = True``.
_OWN = {"test_patterns", "test_properties", "test_api"}


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    module = metafunc.module
    if module.__name__.rsplit(".", 1)[-1] not in _OWN and not getattr(
        module, "CROSS_FORMAT", False
    ):
        return
    if "fmt" in metafunc.fixturenames:
        metafunc.parametrize("fmt", FORMATS)
    if "backend" in metafunc.fixturenames:
        metafunc.parametrize("backend", BACKENDS)


# (test function name, format, backend or None for both, test parameter or None) -> the parser
# bug that makes the test fail. Every entry has a minimal reproducer in its reason; the tests
# stay as they are and turn red (XPASS, strict) once the bug is fixed: then delete the entry.
KNOWN_BUGS: Dict[Tuple[str, str, Optional[str], Optional[str]], str] = {}

# In the "explore" profile the examples differ from run to run: a known bug may not be hit.
_STRICT = os.environ.get("TOOLPARSE_HYPOTHESIS") != "explore"


def pytest_collection_modifyitems(config: pytest.Config, items: list) -> None:
    for item in items:
        callspec = getattr(item, "callspec", None)
        if callspec is None:
            continue
        params = callspec.params
        fmt = params.get("fmt")
        backend = params.get("backend")
        name = getattr(item, "originalname", item.name)
        for (test, bug_fmt, bug_backend, param), reason in KNOWN_BUGS.items():
            if (
                test == name
                and bug_fmt == fmt
                and bug_backend in (None, backend)
                and (param is None or param in params.values())
            ):
                item.add_marker(pytest.mark.xfail(strict=_STRICT, reason=reason))
