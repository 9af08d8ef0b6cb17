"""toolparse's conformance kit: the cases every tool-call parser of a format must pass, and a check
that holds any parser to them (toolparse's own, a vLLM ``ToolParser``, an SGLang detector, yours).

    from toolparse import testing

    cases = testing.cases("hermes")              # the ten test patterns, from the spec
    report = testing.check("hermes", cases)      # toolparse's own parser
    assert report.ok, report

    report = testing.check(testing.from_vllm(Hermes2ProToolParser), cases)
    for failure in report.failures:              # case, invariant, smallest splitting
        print(failure)

* :class:`TestCase`: a model output with the calls, content and reasoning a parser must return,
  the tools it needs and the patterns it covers; :func:`load_cases` reads cases from JSON.
* :func:`cases`: every case of a format, rendered from its spec entry by its family's renderer.
* :func:`splittings`: the whole text, every character, cuts around every marker, random cuts.
* :func:`check` -> :class:`Report`: ``report.failures``, each a :class:`Failure`.
* :func:`from_vllm` / :func:`from_sglang`: the peers' parsers under toolparse's contract.
* A pytest plugin: ``pytest --toolparse-format hermes`` runs the kit on the parser the
  ``toolparse_parser`` fixture returns (see :mod:`toolparse.testing.plugin`).
"""

from __future__ import annotations

from .adapters import from_sglang, from_vllm
from .case import KINDS, CaseFileError, ExpectedCall, TestCase, dump_cases, load_cases
from .patterns import PATTERNS_OF, cases, composite_case, standard_cases
from .renderers import RENDERERS, renderer
from .runner import INVARIANTS, Failure, Report, Result, check
from .splits import chunks_at, marker_cuts, random_chunks, splittings

__all__ = [
    "INVARIANTS",
    "KINDS",
    "PATTERNS_OF",
    "RENDERERS",
    "CaseFileError",
    "ExpectedCall",
    "Failure",
    "Report",
    "Result",
    "TestCase",
    "cases",
    "check",
    "chunks_at",
    "composite_case",
    "dump_cases",
    "from_sglang",
    "from_vllm",
    "load_cases",
    "marker_cuts",
    "random_chunks",
    "renderer",
    "splittings",
    "standard_cases",
]
