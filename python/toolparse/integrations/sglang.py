"""toolparse's formats as SGLang tool-call parsers: ``--tool-call-parser toolparse_<format>``.

Installing toolparse beside SGLang is enough: its ``sglang.srt.plugins`` entry point calls
:func:`register`, which SGLang's ``load_plugins()`` runs before it builds its command line, so
``--tool-call-parser toolparse_hermes`` (or any ``toolparse_<format>``) is accepted. Where plugins
are disabled (``SGLANG_PLUGINS`` set without ``toolparse``), start the server through
``python -m toolparse.integrations.sglang <launch_server arguments>``: it registers, then runs
SGLang's own ``sglang.launch_server`` main.

Each ``toolparse_F`` is a subclass of SGLang's own detector for the same wire format where SGLang
has one (``structure_info`` comes from it) and of ``BaseFormatDetector`` otherwise; the structural
tags that constrain required and named calls, and automatic ones under strictness, are toolparse's
(``toolparse.structural_tag``, from the spec entry the parser runs on); the parsing is
toolparse's streaming machine, fed delta by delta (each byte is looked at a bounded number of
times, however long the response). Tool-call ids are
SGLang's (it makes them from the call's ordinal, ``tool_index``). Reasoning text a format carries
(harmony's ``analysis`` channel) is not part of SGLang's tool-call interface and is dropped, as
SGLang's own detectors do: use SGLang's ``--reasoning-parser`` for it. This module imports without
SGLang; only :func:`register` and the detectors need it.
"""

from __future__ import annotations

import importlib
import importlib.util
import logging
import os
import runpy
import sys
from typing import Any, Dict, List, Optional, Sequence, Tuple

from pydantic import BaseModel

import toolparse
from toolparse import spec as _spec
from toolparse.integrations import check_report, server_structural_tag
from toolparse.integrations import reasoning as _reasoning_common
from toolparse.integrations._twin import ServerModels
from toolparse.token_suffix import variant_for_tokenizer

logger = logging.getLogger(__name__)

PREFIX = "toolparse_"
PLUGIN_GROUP = "sglang.srt.plugins"
PLUGIN_NAME = "toolparse"

# toolparse format -> SGLang's parser name for the same wire format (its file's peers.sglang). The
# detector inherits from that parser's class everything but the parsing and the structural tags
# (structure_info, the template grammars of response-template detectors, the automatic-choice tags).
SGLANG_PEERS: Dict[str, str] = {
    n: s.peers.sglang for n, s in _spec.SPECS.items() if s.peers.sglang is not None
}

# fmt -> backend -> detector class (made once per process)
_DETECTOR_CLASSES: Dict[str, Dict[str, type]] = {}
# register() ran: a format registered later is added to SGLang's parsers at once
_REGISTERED = False


def formats() -> List[str]:
    """The names toolparse registers: every format and every alias."""
    return toolparse.list_formats(aliases=True)


# --------------------------------------------------------------------------------------------------
# SGLang's result types, built without validation (per delta, a validated StreamingParseResult
# plus ToolCallItem costs ~2.8 us; see toolparse/models/_base.py for the technique). The data
# comes from toolparse's core, so it is already of the right types. On the Rust backend the core
# builds the streamed ones the same way (`_SERVER_MODELS`, checked equal by
# tests/integrations/test_sglang.py); these serve the Python backend and the rarer paths.
# --------------------------------------------------------------------------------------------------
_object_new = object.__new__
_StreamingParseResult: Any = None  # sglang ... core_types.StreamingParseResult, set by _sglang()
_ToolCallItem: Any = None  # sglang ... core_types.ToolCallItem


class _Blank(BaseModel):
    """Allocation helper of the fast constructors; never escapes this module."""

    __setattr__ = object.__setattr__  # type: ignore[assignment]
    __delattr__ = object.__delattr__  # type: ignore[assignment]


def _tool_call_item(index: int, name: Optional[str], parameters: str) -> Any:
    obj: Any = _object_new(_Blank)
    obj.tool_index = index
    obj.name = name
    obj.parameters = parameters
    obj.__pydantic_fields_set__ = (
        {"tool_index", "parameters"} if name is None else {"tool_index", "name", "parameters"}
    )
    obj.__pydantic_extra__ = None
    obj.__pydantic_private__ = None
    obj.__class__ = _ToolCallItem
    return obj


def _parse_result(normal_text: str = "", calls: Optional[List[Any]] = None) -> Any:
    obj: Any = _object_new(_Blank)
    obj.normal_text = normal_text
    obj.calls = [] if calls is None else calls
    obj.__pydantic_fields_set__ = {"normal_text", "calls"}
    obj.__pydantic_extra__ = None
    obj.__pydantic_private__ = None
    obj.__class__ = _StreamingParseResult
    return obj


def _args_result(index: int, args: str) -> Any:
    """``_parse_result("", [_tool_call_item(index, None, args)])`` in one call: the hottest
    delta."""
    item: Any = _object_new(_Blank)
    item.tool_index = index
    item.name = None
    item.parameters = args
    item.__pydantic_fields_set__ = {"tool_index", "parameters"}
    item.__pydantic_extra__ = None
    item.__pydantic_private__ = None
    item.__class__ = _ToolCallItem
    obj: Any = _object_new(_Blank)
    obj.normal_text = ""
    obj.calls = [item]
    obj.__pydantic_fields_set__ = {"normal_text", "calls"}
    obj.__pydantic_extra__ = None
    obj.__pydantic_private__ = None
    obj.__class__ = _StreamingParseResult
    return obj


def _sglang_result(d: Any) -> Any:
    """SGLang's result for a core delta ``(content, reasoning, calls)`` or None (an empty result):
    what the Rust core's ``feed_message`` builds with ``_SERVER_MODELS``. SGLang's tool-call
    interface has no reasoning field."""
    if d is None:
        return _parse_result()
    content, _reasoning, calls = d
    if calls is None:
        return _parse_result(content or "")
    if content is None and len(calls) == 1 and calls[0][2] is None:
        return _args_result(calls[0][0], calls[0][3])
    return _parse_result(
        content or "", [_tool_call_item(i, name, args or "") for i, _id, name, args in calls]
    )


# SGLang's objects from a stream: the Rust core builds them (layout "sglang"), the twin's path above
_SERVER_MODELS = ServerModels(
    lambda: (_StreamingParseResult, _ToolCallItem, None),
    "sglang",
    lambda d, _new_id: _sglang_result(d),
)
_stream_core = _SERVER_MODELS.stream_core


def _sglang() -> Any:
    """Imports SGLang's function-call parser module (which ``--tool-call-parser`` reads its
    choices from once imported) and binds the result types."""
    global _StreamingParseResult, _ToolCallItem
    fcp = importlib.import_module("sglang.srt.function_call.function_call_parser")
    core_types = importlib.import_module("sglang.srt.function_call.core_types")
    _StreamingParseResult = core_types.StreamingParseResult
    _ToolCallItem = core_types.ToolCallItem
    return fcp


def _tool_models(tools: Optional[Sequence[Any]]) -> List[toolparse.Tool]:
    """SGLang's request tools as toolparse tools; a tool toolparse cannot read is left out (its
    calls still parse, with untyped parameters) rather than failing the request."""
    out: List[toolparse.Tool] = []
    for tool in tools or ():
        try:
            if isinstance(tool, BaseModel):
                tool = tool.model_dump(exclude_none=True)
            out.append(toolparse.Tool.model_validate(tool))
        except Exception as exc:  # noqa: BLE001 - a bad schema must not fail the request
            logger.warning("toolparse: ignoring a tool it cannot read: %s", exc)
    return out


class _DropMarkup:
    """Drops markup from content deltas as the one-pass machine's emitter does (every
    occurrence; a suffix that could still become one is held back until the next delta)."""

    def __init__(self, markers: Sequence[str]) -> None:
        self.markers = [m for m in markers if m]
        self.held = ""

    def feed(self, text: str) -> str:
        s = self.held + text
        for m in self.markers:
            s = s.replace(m, "")
        hold = 0
        for m in self.markers:
            for k in range(min(len(m) - 1, len(s)), hold, -1):
                if s.endswith(m[:k]):
                    hold = k
                    break
        self.held = s[len(s) - hold :] if hold else ""
        return s[: len(s) - hold] if hold else s

    def finish(self) -> str:
        out, self.held = self.held, ""
        return out


def _paired_markup(fmt: str) -> List[str]:
    """The markup a toolparse reasoning parser configured beside ``toolparse_F`` in this server
    drops from content in one pass (its end markers met outside a block): SGLang runs the two
    detectors apart, so this detector drops it from its content too."""
    name = _serving_parsers().get("reasoning")
    if not isinstance(name, str) or not name.startswith(_reasoning_common.PREFIX):
        return []
    try:
        r = _spec.reasoning_canonical(name[len(_reasoning_common.PREFIX) :])
    except (TypeError, ValueError):
        return []
    if _reasoning_common.transparent(r) or not _reasoning_common.pairs(r, fmt):
        return []
    s = _spec.REASONING[r]
    return [] if s.content_prefix else list(s.ends)


class _ToolparseDetector:
    """What every ``toolparse_F`` detector adds to SGLang's detector for F: the parsing.

    SGLang's serving layer reads ``prev_tool_call_arr`` and ``streamed_args_for_tool`` once the
    stream ends and sends ``prev[-1]["arguments"]`` minus what was streamed; both are derived here
    from what was really streamed, so that step sends nothing. ``incomplete_tool_call_indices``
    holds the unfinished call when the output ended inside it (finish_reason then stays as the
    engine gave it)."""

    toolparse_format = ""
    toolparse_backend = "rust"

    def __init__(self, *args: Any, tokenizer: Any = None, **kwargs: Any) -> None:
        # SGLang passes its tokenizer to a detector whose signature names one
        # (FunctionCallParser): a format whose special tokens carry the checkpoint's suffix
        # (spec "token_suffix": Hy3's <tool_calls:opensource>) runs the variant for the suffix
        # in the vocabulary. The peer detector is built as before, without it.
        self.toolparse_format = variant_for_tokenizer(self.toolparse_format, tokenizer) or ""
        super().__init__(*args, **kwargs)  # type: ignore[call-arg]
        self._tp_parser: Optional[toolparse.ToolParser] = None
        self._tp_core: Any = None  # the stream core (_stream_core): builds and records
        self._tp_feed: Any = None
        markup = _paired_markup(self.toolparse_format)
        self._tp_drop: Optional[_DropMarkup] = _DropMarkup(markup) if markup else None
        self._tp_finished = False

    # -- SGLang's bookkeeping, derived from what was streamed (the core records it) -----------
    def _tp_sent(self) -> List[Tuple[str, str]]:
        core = self._tp_core
        return (core.sent_calls if core is not None else None) or []

    def _tp_count(self) -> int:
        """How many calls were sent (no copy of their arguments)."""
        core = self._tp_core
        return 0 if core is None else int(core.sent_count)

    @property
    def streamed_args_for_tool(self) -> List[str]:
        return [args for _, args in self._tp_sent()]

    @streamed_args_for_tool.setter
    def streamed_args_for_tool(self, value: List[str]) -> None:
        self._tp_ignore("streamed_args_for_tool", value)

    @property
    def prev_tool_call_arr(self) -> List[Dict[str, Any]]:
        return [{"name": name, "arguments": args} for name, args in self._tp_sent()]

    @prev_tool_call_arr.setter
    def prev_tool_call_arr(self, value: List[Dict[str, Any]]) -> None:
        self._tp_ignore("prev_tool_call_arr", value)

    @property
    def current_tool_id(self) -> int:
        """The index of the last call started (-1 before the first)."""
        return self._tp_count() - 1

    @current_tool_id.setter
    def current_tool_id(self, value: int) -> None:
        self._tp_ignore("current_tool_id", value != -1)

    @property
    def current_tool_name_sent(self) -> bool:
        return self._tp_count() > 0

    @current_tool_name_sent.setter
    def current_tool_name_sent(self, value: bool) -> None:
        self._tp_ignore("current_tool_name_sent", value)

    def _tp_ignore(self, name: str, value: Any) -> None:
        # Only the detectors' __init__ assign these (their empty start); the state is the core's.
        if value:
            logger.debug("toolparse: ignoring an assignment to the detector's %s", name)

    @property
    def incomplete_tool_call_indices(self) -> set:
        core = self._tp_core
        if not self._tp_finished or core is None or not self._tp_count():
            return set()
        try:
            index = core.unfinished_call
        except Exception:  # noqa: BLE001
            index = None
        return set() if index is None else {index}

    @incomplete_tool_call_indices.setter
    def incomplete_tool_call_indices(self, value: Any) -> None:
        # A peer detector's __init__ may set it (SGLang's response-template detectors, beam's):
        # the machine's own answer above stands.
        if value:
            logger.debug("toolparse: ignoring an assignment to incomplete_tool_call_indices")

    # -- strict tool calling ------------------------------------------------------------------
    def supports_structural_tag(self) -> bool:
        """True: toolparse builds a structural tag for every format, so SGLang constrains
        required and named calls with it (never its JSON-array schema) and, through
        ``FunctionCallParser.owns_tool_format``, parses that output with this detector."""
        return True

    def get_required_tool_parser(self, tool_choice: Any) -> Any:
        """None: required and named output is held to toolparse's tag, the format's own markup,
        so this detector parses it (a peer's JSON parser for it, iquest_q1's, would not)."""
        return None

    def get_structural_tag(
        self,
        tools: Optional[List[Any]] = None,
        tool_choice: Any = "auto",
        thinking_mode: bool = False,
        parallel_tool_calls: bool = True,
        **kwargs: Any,
    ) -> Any:
        """toolparse's tag for the request (:func:`structural_tag_for`). Where toolparse has
        nothing to constrain (None: automatic choice without strictness, the per-turn framing
        SGLang asks a response-template detector for) or SGLang asks for a tag that covers the
        assistant message from its start (``message_start``, beam's template grammar), the
        answer of SGLang's own detector for the format stands."""
        tag = None
        if not kwargs.get("message_start"):
            tag = structural_tag_for(
                self.toolparse_format, tools, tool_choice, thinking_mode, parallel_tool_calls
            )
        if tag is not None:
            return tag
        peer = getattr(super(), "get_structural_tag", None)
        if peer is None:
            return None
        try:
            return peer(
                tools=tools,
                tool_choice=tool_choice,
                thinking_mode=thinking_mode,
                parallel_tool_calls=parallel_tool_calls,
                **kwargs,
            )
        except TypeError:  # a peer without the extra keywords
            return peer(
                tools=tools,
                tool_choice=tool_choice,
                thinking_mode=thinking_mode,
                parallel_tool_calls=parallel_tool_calls,
            )

    # -- parsing ------------------------------------------------------------------------------
    def _tp_parser_for(self, tools: Optional[Sequence[Any]]) -> toolparse.ToolParser:
        parser = self._tp_parser
        if parser is None:
            parser = toolparse.get_parser(
                self.toolparse_format, tools=_tool_models(tools), backend=self.toolparse_backend
            )
            self._tp_parser = parser
        return parser

    def has_tool_call(self, text: str) -> bool:
        """Exact: whether toolparse finds a call in ``text`` or reads its content differently from
        the raw text (harmony's channels), not a marker search."""
        try:
            info = toolparse.get_parser(
                self.toolparse_format, backend=self.toolparse_backend
            ).extract_tool_calls(text)
        except Exception:  # noqa: BLE001 - never raise into the serving loop
            logger.exception("toolparse: has_tool_call failed; treating the text as content")
            return False
        content = info.content or ""
        if self._tp_drop is not None:
            drop = _DropMarkup(self._tp_drop.markers)
            content = drop.feed(content) + drop.finish()
        return bool(info.tool_calls) or content != text

    def detect_and_parse(self, text: str, tools: List[Any]) -> Any:
        try:
            info = self._tp_parser_for(tools).extract_tool_calls(text)
        except Exception:  # noqa: BLE001 - never raise into the serving loop
            logger.exception("toolparse: parsing failed; returning the text as content")
            return _parse_result(text)
        calls = [
            _tool_call_item(i, call.function.name, call.function.arguments)
            for i, call in enumerate(info.tool_calls)
        ]
        content = info.content or ""
        if self._tp_drop is not None:
            drop = _DropMarkup(self._tp_drop.markers)
            content = drop.feed(content) + drop.finish()
        return _parse_result(content, calls)

    def parse_streaming_increment(self, new_text: str, tools: List[Any]) -> Any:
        feed = self._tp_feed
        if feed is None:
            feed = self._tp_begin(tools)
        try:
            res = feed(new_text)  # the core builds SGLang's StreamingParseResult
        except Exception:  # noqa: BLE001 - never raise into the serving loop
            return self._tp_fail(new_text)
        if self._tp_drop is not None:
            res.normal_text = self._tp_drop.feed(res.normal_text or "")
        return res

    def finish(self, tools: List[Any]) -> Any:
        """End of the stream: flushes what toolparse held back."""
        if self._tp_finished or self._tp_core is None:
            return _parse_result()
        self._tp_finished = True
        try:
            res = self._tp_core.finish_message()
        except Exception:  # noqa: BLE001
            logger.exception("toolparse: flushing the stream failed")
            res = _parse_result()
        if self._tp_drop is not None:
            res.normal_text = self._tp_drop.feed(res.normal_text or "") + self._tp_drop.finish()
        return res

    def _tp_begin(self, tools: Optional[Sequence[Any]]) -> Any:
        try:
            self._tp_core = _stream_core(self._tp_parser_for(tools))
            self._tp_feed = self._tp_core.feed_message
        except Exception:  # noqa: BLE001
            logger.exception("toolparse: could not start a stream; passing text through")
            self._tp_feed = _passthrough
        return self._tp_feed

    def _tp_fail(self, new_text: str) -> Any:
        logger.exception("toolparse: parsing a delta failed; passing the rest through as text")
        self._tp_feed = _passthrough
        return _parse_result(new_text)


# --------------------------------------------------------------------------------------------------
# Strict tool calling: SGLang's FunctionCallParser.get_structure_constraint asks the detector for
# a structural tag (tool_choice required or named; auto with a strict tool or
# SGLANG_TOOL_STRICT_LEVEL at function or above); toolparse builds it from the same spec entry its
# parser runs on.
# --------------------------------------------------------------------------------------------------
_STRICT_LEVELS = ("auto", "function", "parameter")  # SGLang's ToolStrictLevel OFF, FUNCTION, ...


def _strict_level() -> str:
    """toolparse's ``strict`` for the server's ``SGLANG_TOOL_STRICT_LEVEL`` (read as SGLang's
    FunctionCallParser reads it)."""
    try:
        from sglang.srt.environ import envs

        k = int(envs.SGLANG_TOOL_STRICT_LEVEL.get())
    except Exception:  # noqa: BLE001 - another SGLang: the level of a server that sets none
        k = 0
    return _STRICT_LEVELS[min(max(k, 0), len(_STRICT_LEVELS) - 1)]


def structural_tag_for(
    fmt: str,
    tools: Optional[Sequence[Any]],
    tool_choice: Any = "auto",
    thinking_mode: bool = False,
    parallel_tool_calls: bool = True,
) -> Any:
    """The ``xgrammar.StructuralTag`` holding a model that writes ``fmt`` to well-formed calls of
    SGLang's request ``tools`` (``strict`` as SGLang pinned it: every tool at the parameter
    level) and ``tool_choice``, or None (nothing to constrain, or a request toolparse cannot
    build a tag for: logged, never raised). ``thinking_mode`` (SGLang passes True only without
    ``--reasoning-parser``, when the tag must hold the reasoning too) puts the think block of
    the reasoning format named as the tool format first (:func:`toolparse.integrations.reasoning.
    own_reasoning`; none for formats without one, whose tag then starts at the calls)."""
    dicts = []
    for tool in tools or ():
        dicts.append(tool.model_dump(exclude_none=True) if isinstance(tool, BaseModel) else tool)
    choice = tool_choice
    if isinstance(choice, BaseModel):
        choice = choice.model_dump(exclude_none=True)
    reasoning = _reasoning_common.own_reasoning(fmt) if thinking_mode else None
    return server_structural_tag(
        fmt,
        dicts,
        logger,
        tool_choice=choice,
        strict=_strict_level(),
        parallel_tool_calls=parallel_tool_calls is not False,
        reasoning=reasoning,
    )


def _passthrough(text: str) -> Any:
    return _parse_result(text or "")


class _NoPeer:
    """For a format SGLang has no detector of: the structural tags are toolparse's alone
    (``_ToolparseDetector.get_structural_tag``); there is no legacy structure info."""

    def structure_info(self) -> Any:
        raise NotImplementedError(f"SGLang has no structure info for {self!r}")


def _plugin_class(name: str, bases: Tuple[type, ...], doc: str, **attrs: Any) -> type:
    """A class of this module made at run time: ``name``, ``bases``, ``doc`` and ``attrs``."""
    return type(
        name, bases, {"__module__": __name__, "__qualname__": name, "__doc__": doc, **attrs}
    )


def detector_class(fmt: str, backend: str = "rust") -> type:
    """The SGLang detector class for toolparse format ``fmt`` (made once per process)."""
    by_backend = _DETECTOR_CLASSES.setdefault(fmt, {})
    cls = by_backend.get(backend)
    if cls is not None:
        return cls
    if backend not in ("rust", "python"):
        raise ValueError(f"unknown backend {backend!r}; use 'rust' or 'python'")
    toolparse.get_parser(fmt, backend=backend)  # unknown names fail here, listing the known ones
    fcp = _sglang()
    enum = fcp.FunctionCallParser.ToolCallParserEnum
    canon = _spec.canonical(fmt)
    peer = enum.get(SGLANG_PEERS.get(canon, canon))
    if peer is None or getattr(peer, "__module__", "") == __name__:
        bases: tuple = (_ToolparseDetector, _NoPeer, fcp.BaseFormatDetector)
    else:
        bases = (_ToolparseDetector, peer)
    camel = "".join(part.capitalize() for part in fmt.replace("-", "_").split("_"))
    suffix = "" if backend == "rust" else "Python"
    name = f"Toolparse{camel}{suffix}Detector"
    cls = _plugin_class(
        name,
        bases,
        f"toolparse's {fmt!r} parser as an SGLang detector.",
        toolparse_format=fmt,
        toolparse_backend=backend,
    )
    by_backend[backend] = cls
    return cls


# --------------------------------------------------------------------------------------------------
# Reasoning: toolparse_R in SGLang's ReasoningParser.DetectorMap
# --------------------------------------------------------------------------------------------------
# R -> backend -> detector class (made once per process)
_REASONING_DETECTOR_CLASSES: Dict[str, Dict[str, type]] = {}


def reasoning_formats() -> List[str]:
    """The reasoning format names toolparse registers: every one and every alias."""
    return _reasoning_common.formats()


def _serving_parsers() -> Dict[str, Optional[str]]:
    """The parsers the server was started with, from SGLang's serving context (empty before the
    server publishes it, as in a bare ``FunctionCallParser``)."""
    try:
        serving = importlib.import_module("sglang.srt.runtime_context").get_serving()
        return {
            "tool": getattr(serving, "tool_call_parser", None),
            "reasoning": getattr(serving, "reasoning_parser", None),
        }
    except Exception:  # noqa: BLE001 - not published (no server) or another SGLang
        return {}


def _template_reasoning_config() -> Tuple[bool, Any]:
    """(known, config): the reasoning toggle SGLang's template detection found for the served
    chat template (``TemplateManager.reasoning_config``, None when it found none), read from the
    HTTP server's global state when the server has one; (False, None) otherwise."""
    server = sys.modules.get("sglang.srt.entrypoints.http_server")
    try:
        manager = getattr(getattr(server, "_global_state", None), "template_manager", None)
        if manager is None:
            return False, None
        return True, manager.reasoning_config
    except Exception:  # noqa: BLE001 - another SGLang: nothing known
        return False, None


def started_of(force_reasoning: Optional[bool]) -> Optional[bool]:
    """``reasoning_started`` for SGLang's ``force_reasoning``, which its serving computes per
    request as "the chat template opens the block, or the request's thinking switch is on"
    (``template_manager.force_reasoning or _get_reasoning_from_request``).

    True: the output starts inside reasoning. False: thinking is off where SGLang read a switch
    (with no toggle detected in the template, SGLang reads the request's ``enable_thinking``
    for a format that starts inside reasoning by default, ``thinking`` otherwise: the
    detector's ``reasoning_default``; a detected toggle, or Mistral's ``reasoning_effort``);
    then a block opens only at a start marker that begins the output. A False SGLang computed
    without a switch (a detected template with no toggle: SGLang cannot tell) and a missing
    ``force_reasoning`` (no request: ``/separate_reasoning``, probes) give None: the format's
    default."""
    if force_reasoning is None:
        return None
    if force_reasoning:
        return True
    known, config = _template_reasoning_config()
    if not known or config is None:
        return False  # SGLang read the request through the detector's reasoning_default
    if getattr(config, "special_case", None) == "mistral":
        return False
    if (
        getattr(config, "toggle_param", None)
        and getattr(config, "default_enabled", None) is not None
    ):
        return False
    return None


class _ToolparseReasoningDetector:
    """What every ``toolparse_R`` reasoning detector adds to SGLang's base detector: the think
    block of toolparse's one-pass machine for R paired with the server's tool parser.

    SGLang runs this detector first and hands its normal text to a tool detector built apart
    (one machine is not possible here). The detector reads the configured tool parser from
    SGLang's serving context: with ``toolparse_F``, the block ends where the (F, R) machine's
    does (F's call starts inside an open block included); otherwise at R's own call starts. The
    reasoning is the machine's; the normal text is the raw rest after the block, unchanged, which
    ``toolparse_F`` then parses from the state the one-pass machine's tool side starts in.
    Thinking on/off reaches the detector only as ``force_reasoning`` (see :func:`started_of`):
    True, the output starts inside reasoning; False read from a thinking switch, a block opens
    only at a start marker that begins the output; otherwise the format's default. Harmony (no
    front): the reasoning is its analysis channel; the normal text is the raw text for
    ``toolparse_openai``, the machine's content otherwise."""

    toolparse_reasoning = ""
    toolparse_backend = "rust"
    stream_reasoning = True  # set by SGLang's base detector

    def __init__(
        self,
        stream_reasoning: bool = True,
        force_reasoning: Optional[bool] = None,
        continue_final_message: bool = False,
        previous_content: str = "",
        force_nonempty_content: bool = False,
        tokenizer: Any = None,
        **_ignored: Any,
    ) -> None:
        # SGLang's ReasoningParser passes its tokenizer to a detector whose signature names
        # one: markers with the checkpoint's suffix (spec "token_suffix") run the variant
        self.toolparse_reasoning = (
            variant_for_tokenizer(self.toolparse_reasoning, tokenizer, reasoning=True) or ""
        )
        rspec = _spec.REASONING[self.toolparse_reasoning]
        super().__init__(  # type: ignore[call-arg]
            rspec.start or "",
            # the token that ends reasoning, which SGLang's scheduler encodes to gate grammars
            # on (the spec's end_token: the channel formats' end of a reasoning message)
            rspec.end_token,
            force_reasoning=bool(force_reasoning),
            stream_reasoning=stream_reasoning,
            continue_final_message=continue_final_message,
            previous_content=previous_content,
            force_nonempty_content=force_nonempty_content,
            reasoning_default="enable_thinking" if rspec.started else "explicit_thinking",
        )
        self._tp_started: Optional[bool] = started_of(force_reasoning)
        tool = _reasoning_common.tool_format_of(_serving_parsers().get("tool"))
        tool = variant_for_tokenizer(tool, tokenizer)
        self._tp_tool = tool if _reasoning_common.pairs(self.toolparse_reasoning, tool) else None
        self._tp_transparent = _reasoning_common.transparent(self.toolparse_reasoning)
        self._tp_core: Any = None
        self._tp_handover: Any = None
        self._tp_ended = False
        self._tp_finished = False
        self._tp_held: List[str] = []  # reasoning kept back when stream_reasoning is False

    def get_think_end_token_ids(self, tokenizer: Any) -> List[int]:
        """The ids of the token that ends reasoning: the spec's ``end_token_id`` where the
        token's printed name does not encode to it (inkling), else ``end_token`` encoded."""
        token_id = _spec.REASONING[self.toolparse_reasoning].end_token_id
        if token_id is not None:
            return [token_id]
        return list(super().get_think_end_token_ids(tokenizer))  # type: ignore[misc]

    def _tp_parser(self) -> Any:
        return toolparse.get_parser(
            self._tp_tool,
            backend=self.toolparse_backend,
            reasoning=self.toolparse_reasoning,
            reasoning_started=self._tp_started,
        )

    def _tp_out(self, reasoning: Optional[str], normal: Optional[str], last: bool) -> Any:
        rp = importlib.import_module("sglang.srt.parser.reasoning_parser")
        if reasoning and not self.stream_reasoning and not last:
            self._tp_held.append(reasoning)
            reasoning = None
        elif last and self._tp_held:
            reasoning = "".join(self._tp_held) + (reasoning or "")
            self._tp_held = []
        return rp.StreamingParseResult(normal_text=normal, reasoning_text=reasoning)

    def _tp_normal(self, raw: str, d: Any) -> Optional[str]:
        """Harmony: the raw text goes on to toolparse_openai; the machine's content otherwise."""
        if self._tp_tool is not None:
            return raw
        return d[0] if d is not None else None

    # -- non-streaming ------------------------------------------------------------------------
    def detect_and_parse(self, text: str) -> Any:
        rp = importlib.import_module("sglang.srt.parser.reasoning_parser")
        try:
            info = self._tp_parser().extract_tool_calls(text)
            if self._tp_transparent:
                normal = text if self._tp_tool is not None else (info.content or "")
            else:
                normal = _reasoning_common.raw_rest(self._tp_parser(), text)
            ret = rp.StreamingParseResult(normal_text=normal, reasoning_text=info.reasoning)
        except Exception:  # noqa: BLE001 - never raise into the serving loop
            logger.exception("toolparse_%s: reasoning parsing failed", self.toolparse_reasoning)
            ret = rp.StreamingParseResult(normal_text=text)
        return self._maybe_apply_force_nonempty_content(ret)  # type: ignore[attr-defined]

    # -- streaming ----------------------------------------------------------------------------
    def parse_streaming_increment(self, new_text: str) -> Any:
        if self._tp_ended or self._tp_finished:
            return self._tp_out(None, new_text, False)
        try:
            if self._tp_core is None:
                self._tp_core = self._tp_parser().stream()._core
                self._tp_handover = _reasoning_common.Handover(self._tp_core, self._tp_transparent)
            d = self._tp_core.feed(new_text)
            rest = None if self._tp_transparent else self._tp_handover.feed(new_text)
        except Exception:  # noqa: BLE001 - never raise into the serving loop: pass it through
            logger.exception("toolparse_%s: reasoning parsing failed", self.toolparse_reasoning)
            self._tp_ended = True
            return self._tp_out(None, new_text, True)
        reasoning = d[1] if d is not None else None
        if self._tp_transparent:
            return self._tp_out(reasoning, self._tp_normal(new_text, d), False)
        if rest is None:
            return self._tp_out(reasoning, None, False)
        self._tp_ended = True  # the block is over: the raw rest goes on, and every later delta
        return self._tp_out(reasoning, rest, True)

    def finish(self) -> Any:
        if self._tp_finished or self._tp_core is None:
            return self._tp_out(None, None, True)
        self._tp_finished = True
        if self._tp_ended:
            return self._tp_out(None, None, True)
        try:
            d = self._tp_core.finish()
            raw = "" if self._tp_transparent else self._tp_handover.finish()
        except Exception:  # noqa: BLE001
            logger.exception("toolparse_%s: flushing failed", self.toolparse_reasoning)
            return self._tp_out(None, None, True)
        reasoning = d[1] if d is not None else None
        normal = self._tp_normal(raw, d) if self._tp_transparent else raw
        return self._tp_out(reasoning, normal or None, True)


def reasoning_detector_class(name: str, backend: str = "rust") -> type:
    """The SGLang reasoning detector class for toolparse reasoning format ``name``."""
    canon = _spec.reasoning_canonical(name)  # unknown names fail here, listing the known ones
    by_backend = _REASONING_DETECTOR_CLASSES.setdefault(canon, {})
    cls = by_backend.get(backend)
    if cls is not None:
        return cls
    if backend not in ("rust", "python"):
        raise ValueError(f"unknown backend {backend!r}; use 'rust' or 'python'")
    rp = importlib.import_module("sglang.srt.parser.reasoning_parser")
    cname = _reasoning_common.class_name(canon, "Detector") + (
        "" if backend == "rust" else "Python"
    )
    cls = _plugin_class(
        cname,
        (_ToolparseReasoningDetector, rp.BaseReasoningFormatDetector),
        f"toolparse's {canon!r} reasoning format as an SGLang reasoning detector.",
        toolparse_reasoning=canon,
        toolparse_backend=backend,
    )
    by_backend[backend] = cls
    return cls


def register_reasoning() -> List[str]:
    """Adds ``toolparse_R`` for every toolparse reasoning format and alias R to SGLang's
    reasoning parsers (``ReasoningParser.DetectorMap`` and the name list ``--reasoning-parser``
    falls back on); returns the names. Idempotent."""
    rp = importlib.import_module("sglang.srt.parser.reasoning_parser")
    names = []
    for r in reasoning_formats():
        name = PREFIX + r
        rp.ReasoningParser.DetectorMap[name] = reasoning_detector_class(r)
        names.append(name)
    try:
        listed = importlib.import_module("sglang.srt.parser.reasoning_parser_names")
        for name in names:
            if name not in listed.REASONING_PARSER_NAMES:
                listed.REASONING_PARSER_NAMES.append(name)
    except (ImportError, AttributeError):
        pass
    return names


def register() -> List[str]:
    """Adds ``toolparse_F`` for every toolparse format F to SGLang's tool-call parsers, and every
    ``toolparse_R`` to its reasoning parsers (:func:`register_reasoning`); returns the tool-call
    parser names. Idempotent. SGLang's ``load_plugins()`` calls it through the entry point; the
    formats of the files ``TOOLPARSE_FORMATS`` names are registered first."""
    global _REGISTERED
    from toolparse.integrations import formats_from_env

    formats_from_env()
    _REGISTERED = True
    fcp = _sglang()
    enum = fcp.FunctionCallParser.ToolCallParserEnum
    names = []
    for fmt in formats():
        name = PREFIX + fmt
        enum[name] = detector_class(fmt)
        names.append(name)
    try:  # the dependency-free name list server_args falls back on
        listed = importlib.import_module("sglang.srt.function_call.parser_names")
        for name in names:
            if name not in listed.TOOL_CALL_PARSER_NAMES:
                listed.TOOL_CALL_PARSER_NAMES.append(name)
    except (ImportError, AttributeError):
        pass
    try:
        register_reasoning()
        from toolparse.integrations import sglang_auto

        # toolparse_auto, resolved where SGLang resolves its auto
        sglang_auto.install(
            detector_class(formats()[0]), reasoning_detector_class(reasoning_formats()[0])
        )
    except Exception as exc:  # noqa: BLE001 - the tool parsers stay registered
        logger.warning("toolparse: registering the reasoning parsers failed: %s", exc)
    return names


def _allowlist() -> Optional[set]:
    raw = os.environ.get("SGLANG_PLUGINS", "")
    names = {x.strip() for x in raw.split(",") if x.strip()}
    return names or None


def check() -> Dict[str, Any]:
    """Whether SGLang is installed, its version, whether toolparse's entry point loads there
    through SGLang's own ``load_plugins()``, and the ``toolparse_*`` names ``--tool-call-parser``
    (``names``) and ``--reasoning-parser`` (``reasoning_names``) then accept; ``error`` says in
    one line why not."""
    out = check_report("sglang")
    try:
        found = importlib.util.find_spec("sglang") is not None
    except (ImportError, ValueError):
        found = False
    if not found:
        out["error"] = "SGLang is not installed"
        return out
    out["installed"] = True
    from importlib import metadata

    try:
        out["version"] = metadata.version("sglang")
    except metadata.PackageNotFoundError:
        pass
    eps = [ep for ep in metadata.entry_points(group=PLUGIN_GROUP) if ep.name == PLUGIN_NAME]
    if not eps:
        out["error"] = f"toolparse's {PLUGIN_GROUP!r} entry point is not installed (reinstall it)"
        return out
    allowed = _allowlist()
    if allowed is not None and PLUGIN_NAME not in allowed:
        out["error"] = (
            f"SGLANG_PLUGINS={os.environ.get('SGLANG_PLUGINS')!r} leaves out {PLUGIN_NAME!r}: add"
            " it, or start with python -m toolparse.integrations.sglang"
        )
        return out
    try:
        plugins = importlib.import_module("sglang.srt.plugins")
        excluded = getattr(plugins, "_get_excluded_dists", lambda: None)()
        # SGLang's own loader: imports each allowed entry point, logging (not raising) failures
        loaded = plugins.load_plugins_by_group(PLUGIN_GROUP, excluded_dists=excluded)
        if PLUGIN_NAME not in loaded:
            out["error"] = (
                f"SGLang's plugin loader did not load {PLUGIN_NAME!r} from {PLUGIN_GROUP!r}"
                + (f" (SGLANG_PLATFORM excludes {sorted(excluded)})" if excluded else "")
                + ": see its log"
            )
            return out
        plugins.load_plugins()  # runs the general plugins, as the server does at startup
        fcp = importlib.import_module("sglang.srt.function_call.function_call_parser")
    except Exception as exc:  # noqa: BLE001 - reported, one line
        out["error"] = f"loading SGLang's plugins failed: {type(exc).__name__}: {exc}".replace(
            "\n", " "
        )
        return out
    enum = fcp.FunctionCallParser.ToolCallParserEnum
    names = [n for n in enum if n.startswith(PREFIX) and n != PREFIX + "auto"]
    out["names"] = names
    missing = [PREFIX + f for f in formats() if PREFIX + f not in enum]
    try:
        rp = importlib.import_module("sglang.srt.parser.reasoning_parser")
        dmap = rp.ReasoningParser.DetectorMap
    except Exception as exc:  # noqa: BLE001 - reported, one line
        out["error"] = f"importing SGLang's reasoning parsers failed: {type(exc).__name__}: {exc}"
        out["error"] = out["error"].replace("\n", " ")
        return out
    out["reasoning_names"] = [n for n in dmap if n.startswith(PREFIX) and n != PREFIX + "auto"]
    missing += [PREFIX + r for r in reasoning_formats() if PREFIX + r not in dmap]
    if missing:
        out["error"] = (
            f"SGLang's load_plugins() did not register {', '.join(missing)} (see SGLang's log)"
        )
        return out
    out["ok"] = True
    return out


def main(argv: Optional[Sequence[str]] = None) -> None:
    """``python -m toolparse.integrations.sglang <launch_server arguments>``: registers, then runs
    SGLang's ``sglang.launch_server`` as its own ``__main__``."""
    args = list(sys.argv[1:] if argv is None else argv)
    register()
    sys.argv = ["sglang.launch_server", *args]
    runpy.run_module("sglang.launch_server", run_name="__main__", alter_sys=True)


if __name__ == "__main__":
    # One module instance: the plugin loader imports toolparse.integrations.sglang by name.
    from toolparse.integrations.sglang import main as _main

    _main()
