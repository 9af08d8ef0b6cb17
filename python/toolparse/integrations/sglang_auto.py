"""``--tool-call-parser toolparse_auto`` and ``--reasoning-parser toolparse_auto`` in SGLang.

SGLang resolves its own ``auto`` once, at engine start-up, in
``sglang.srt.parser.template_detection.resolve_auto_parsers`` (after plugins are loaded, before the
server arguments are published). :func:`install` wraps that function (and the engine module's
reference to it): when either parser is ``toolparse_auto``, the wrapper reads the template SGLang's
``auto`` reads (an explicit ``--chat-template`` Jinja file, else the tokenizer's), detects with
:mod:`toolparse.integrations.auto` and declares ``toolparse_<format>`` / ``toolparse_<reasoning>``
with SGLang's own ``declare_resolution``, then runs SGLang's function for the rest. Where this
hook is not reached (SGLang's parser classes built outside an engine, e.g. ``FunctionCallParser``
directly), ``toolparse_auto`` is not a detector name, and SGLang refuses it as an unknown parser.
"""

from __future__ import annotations

import importlib
import logging
import sys
from typing import Any, Callable, Optional

from toolparse.integrations import auto

__all__ = ["AUTO_NAME", "install", "resolve_server_args"]

logger = logging.getLogger("toolparse")

AUTO_NAME = "toolparse_auto"


def _template_and_tokenizer(cfg: Any) -> Any:
    # the template SGLang's auto reads: an explicit --chat-template Jinja file, else the tokenizer's
    chat_template_arg = getattr(cfg, "chat_template", None)
    template: Optional[str] = None
    if isinstance(chat_template_arg, str) and chat_template_arg.endswith(".jinja"):
        try:
            with open(chat_template_arg, encoding="utf-8") as f:
                template = f.read().replace("\\n", "\n")
        except OSError as e:
            logger.warning(
                "toolparse_auto: cannot read --chat-template %s: %s", chat_template_arg, e
            )
    tokenizer = None
    try:
        from sglang.srt.utils.hf_transformers_utils import get_tokenizer

        tokenizer = get_tokenizer(
            cfg.tokenizer_path,
            tokenizer_mode=cfg.tokenizer_mode,
            trust_remote_code=cfg.trust_remote_code,
            revision=cfg.revision,
            tokenizer_backend=cfg.tokenizer_backend,
        )
    except Exception as e:  # noqa: BLE001
        logger.warning("toolparse_auto: cannot load the tokenizer: %s", e)
    return template, tokenizer


def resolve_server_args(
    server_args: Any, load: Callable[[Any], Any] = _template_and_tokenizer
) -> None:
    """Declares what ``toolparse_auto`` stands for on ``server_args`` (nothing when neither
    parser is ``toolparse_auto``). Raises ValueError naming what to pass when nothing is found."""
    overrides = importlib.import_module("sglang.srt.arg_groups.overrides")
    view = importlib.import_module("sglang.srt.arg_groups.model_override_base")
    cfg = view.resolving_view(server_args)
    needs = [a for a in ("tool_call_parser", "reasoning_parser") if getattr(cfg, a) == AUTO_NAME]
    if not needs:
        return
    template, tokenizer = load(cfg)
    model = str(getattr(cfg, "model_path", "") or "")
    if template is None and tokenizer is not None:
        template, bos, eos = auto.template_of(tokenizer)
    else:
        _, bos, eos = auto.template_of(tokenizer) if tokenizer is not None else (None, "", "")
    r = auto.resolve(template, bos_token=bos, eos_token=eos, model=model)
    fields = {}
    if "tool_call_parser" in needs:
        if r.format is None:
            raise ValueError(f"--tool-call-parser {AUTO_NAME}: {r.line}")
        fields["tool_call_parser"] = "toolparse_" + r.format
    if "reasoning_parser" in needs:
        if r.reasoning is None:
            raise ValueError(
                f"--reasoning-parser {AUTO_NAME}: {r.line}: no think block found in the chat "
                "template; pass --reasoning-parser toolparse_<name> or none"
            )
        fields["reasoning_parser"] = "toolparse_" + r.reasoning
    overrides.declare_resolution(server_args, "toolparse-auto", **fields)


def _unresolved(self: Any, *args: Any, **kwargs: Any) -> None:
    raise ValueError(
        f"{AUTO_NAME} is resolved when the SGLang engine starts (resolve_auto_parsers); "
        "outside an engine pass --tool-call-parser / --reasoning-parser toolparse_<name>"
    )


def _register_names(tool_base: type, reasoning_base: type) -> None:
    """``toolparse_auto`` in the parser maps SGLang takes its argument choices from: a class that
    refuses to be built (the engine replaces the name before any parser is built)."""
    fcp = importlib.import_module("sglang.srt.function_call.function_call_parser")
    attrs = {"__init__": _unresolved, "__module__": __name__}
    fcp.FunctionCallParser.ToolCallParserEnum[AUTO_NAME] = type(
        "ToolparseAutoDetector", (tool_base,), attrs
    )
    rp = importlib.import_module("sglang.srt.parser.reasoning_parser")
    rp.ReasoningParser.DetectorMap[AUTO_NAME] = type(
        "ToolparseAutoReasoningDetector", (reasoning_base,), attrs
    )


def install(tool_base: type, reasoning_base: type) -> bool:
    """Adds ``toolparse_auto`` to the parser names ``--tool-call-parser`` and
    ``--reasoning-parser`` accept, and wraps SGLang's ``resolve_auto_parsers`` (once) so that it
    resolves them. False when that function is not there (another SGLang version, or its module
    not importable: then SGLang's engine cannot start either). ``tool_base`` and
    ``reasoning_base``: toolparse's SGLang detector classes the placeholder names derive from."""
    _register_names(tool_base, reasoning_base)
    for module, attr in (
        ("sglang.srt.function_call.parser_names", "TOOL_CALL_PARSER_NAMES"),
        ("sglang.srt.parser.reasoning_parser_names", "REASONING_PARSER_NAMES"),
    ):
        try:
            listed = getattr(importlib.import_module(module), attr)
        except (ImportError, AttributeError):
            continue
        if AUTO_NAME not in listed:
            listed.append(AUTO_NAME)
    try:
        td = importlib.import_module("sglang.srt.parser.template_detection")
    except ImportError as e:
        logger.debug("toolparse_auto: SGLang's template detection is not importable: %s", e)
        return False
    original = getattr(td, "resolve_auto_parsers", None)
    if original is None:
        return False
    if not getattr(original, "_toolparse_auto", False):

        def resolve_auto_parsers(server_args: Any) -> None:
            resolve_server_args(server_args)
            original(server_args)

        resolve_auto_parsers._toolparse_auto = True  # type: ignore[attr-defined]
        setattr(td, "resolve_auto_parsers", resolve_auto_parsers)  # noqa: B010
        engine = sys.modules.get("sglang.srt.entrypoints.engine")
        if engine is not None and getattr(engine, "resolve_auto_parsers", None) is original:
            setattr(engine, "resolve_auto_parsers", resolve_auto_parsers)  # noqa: B010
    return True
