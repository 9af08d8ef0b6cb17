"""Drop-in parsers for inference servers: vllm.py and sglang.py.

This package's own namespace holds only what the servers' plugin entry points run in every process,
so it imports nothing heavy.
"""

from __future__ import annotations

import logging
import sys
from typing import Any, Dict, List, Sequence

VLLM_PREFIX = "toolparse_"
logger = logging.getLogger(__name__)


def formats_from_env() -> List[str]:
    """Registers the format files ``TOOLPARSE_FORMATS`` names (``path[:path...]``), as the
    servers' plugins do when they load, before they register ``toolparse_<format>`` for every
    format; returns the names. A file that cannot be registered is logged and left out."""
    import os

    from toolparse.register import ENV, register_format

    global _FROM_ENV
    names = []
    _FROM_ENV = True  # the plugin registers every name next
    try:
        for path in os.environ.get(ENV, "").split(os.pathsep):
            if path.strip():
                try:
                    names.append(register_format(path, replace=True))
                except (ValueError, TypeError) as e:
                    logger.error("toolparse: %s=%s: %s", ENV, path, e)
    finally:
        _FROM_ENV = False
    return names


_FROM_ENV = False


def _registered(fmt: Any, rsn: Any) -> None:
    """A format (and its reasoning format) registered at run time: the servers' parser classes
    made for its names, or for the names it replaced, are dropped, and where a server's registry
    is loaded the names point to the new classes (made when first used)."""
    names = [fmt.name, *fmt.aliases]
    rnames = [rsn.name, *rsn.aliases] if rsn is not None else []
    vllm = sys.modules.get("toolparse.integrations.vllm")
    if vllm is not None:
        from toolparse.integrations import reasoning as rsn_common

        vllm._BY_CLASS_NAME.update((vllm_class_name(n), n) for n in names)
        if rsn is not None:
            vllm._BY_REASONING_CLASS[rsn_common.class_name(rsn.name, "Parser")] = rsn.name
        for table, keys in (
            (vllm._TOOL_PARSER_CLASSES, names),
            (vllm._REASONING_PARSER_CLASSES, rnames),
        ):
            for key in [k for k in table if k[0] in keys]:
                del table[key]
    if "vllm.tool_parsers" in sys.modules:
        from vllm.tool_parsers import ToolParserManager

        for n in names:
            ToolParserManager.tool_parsers.pop(VLLM_PREFIX + n, None)
            ToolParserManager.register_lazy_module(
                VLLM_PREFIX + n, "toolparse.integrations.vllm", vllm_class_name(n)
            )
        if rsn is not None:
            vllm_reasoning_plugin()
    sglang = sys.modules.get("toolparse.integrations.sglang")
    if sglang is not None:
        for n in names:
            sglang._DETECTOR_CLASSES.pop(n, None)
        for n in rnames:
            sglang._REASONING_DETECTOR_CLASSES.pop(n, None)
        sglang.SGLANG_PEERS.pop(fmt.name, None)
        if fmt.peers.sglang is not None:
            sglang.SGLANG_PEERS[fmt.name] = fmt.peers.sglang
        if sglang._REGISTERED and not _FROM_ENV:
            sglang.register()


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

    formats_from_env()
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
