"""Drop-in parsers for inference servers: vllm.py and sglang.py.

This package's own namespace holds only what the servers' plugin entry points run in every process,
so it imports nothing heavy.
"""

from __future__ import annotations

import logging
from typing import Any, Dict, List, Sequence

VLLM_PREFIX = "toolparse_"


def server_structural_tag(
    fmt: str, tools: Sequence[Any], logger: logging.Logger, **options: Any
) -> Any:
    """``toolparse.structural_tag(fmt, tools, **options)`` as an ``xgrammar.StructuralTag``, for
    the servers' plugins; None when there is nothing to constrain, or for a request toolparse
    cannot build a tag for (a warning on ``logger``; the request then runs unconstrained)."""
    import toolparse

    try:
        tag = toolparse.structural_tag(fmt, tools, **options)
    except ValueError as e:
        logger.warning("toolparse_%s: no structural tag for this request (%s)", fmt, e)
        return None
    if tag is None:
        return None
    from xgrammar import StructuralTag

    return StructuralTag.model_validate(tag)


def vllm_class_name(fmt: str) -> str:
    """The name of format ``fmt``'s parser class in :mod:`toolparse.integrations.vllm`."""
    camel = "".join(part.capitalize() for part in fmt.replace("-", "_").split("_"))
    return f"Toolparse{camel}ToolParser"


def vllm_plugin() -> List[str]:
    """The ``vllm.general_plugins`` entry point: registers every ``toolparse_<format>`` name in
    vLLM's ``ToolParserManager`` lazily, by module and class name (vLLM runs general plugins in
    every process; the parser module is imported only when a server uses one of the names).
    Returns the names."""
    from vllm.tool_parsers import ToolParserManager

    import toolparse

    names = []
    for fmt in toolparse.list_formats(aliases=True):
        name = VLLM_PREFIX + fmt
        if name not in ToolParserManager.tool_parsers:
            ToolParserManager.register_lazy_module(
                name, "toolparse.integrations.vllm", vllm_class_name(fmt)
            )
        names.append(name)
    names.extend(vllm_reasoning_plugin())
    return names


def vllm_reasoning_plugin() -> List[str]:
    """Registers every ``toolparse_<reasoning format>`` in vLLM's ``ReasoningParserManager``
    lazily, as :func:`vllm_plugin` does the tool parsers (called by it). Returns the names."""
    from vllm.reasoning import ReasoningParserManager

    from toolparse import spec
    from toolparse.integrations import reasoning as rsn

    names = []
    for r in rsn.formats():
        name = VLLM_PREFIX + r
        if name not in ReasoningParserManager.reasoning_parsers:
            canon = spec.reasoning_canonical(r)
            ReasoningParserManager.register_lazy_module(
                name, "toolparse.integrations.vllm", rsn.class_name(canon, "Parser")
            )
        names.append(name)
    return names


def check_report(server: str) -> Dict[str, Any]:
    """The report an integration's ``check()`` fills in for ``server``, before anything is
    known: ``{"server", "installed", "version", "ok", "names", "reasoning_names", "error"}``."""
    return {
        "server": server,
        "installed": False,
        "version": None,
        "ok": False,
        "names": [],
        "reasoning_names": [],
        "error": None,
    }
