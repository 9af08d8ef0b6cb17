"""toolparse's formats as vLLM tool parsers: ``--tool-call-parser toolparse_<format>``.

Installing toolparse beside vLLM is enough: its ``vllm.general_plugins`` entry point
(:func:`toolparse.integrations.vllm_plugin`) registers every ``toolparse_<format>`` name *lazily*
(vLLM runs general plugins in every process, so the entry point imports nothing heavy). Importing
this module registers the parser classes eagerly, so ``--tool-parser-plugin
toolparse.integrations.vllm`` works where ``VLLM_PLUGINS`` leaves the entry point out.

Each ``toolparse_F`` is a subclass of vLLM's ``ToolParser`` that declares itself engine-based
(``engine_based_streaming = True``): vLLM then hands it only ``delta_text`` and never re-joins the
whole text per delta, and calls :meth:`finish_streaming` at the end, which flushes held-back text.
The parsing is toolparse's streaming machine; vLLM's delta objects are built straight from the
core's tuples. Nothing is left "parsed but unstreamed", so vLLM's end-of-stream step
(``get_remaining_unstreamed_args``) appends nothing, and ``prev_tool_call_arr`` /
``streamed_args_for_tool`` are filled in step with what was streamed when the stream finishes.
This module imports without vLLM; only :func:`register` and the parser classes need it.
"""

from __future__ import annotations

import importlib.util
import logging
from functools import cache
from typing import TYPE_CHECKING, Any, Dict, List, Optional, Sequence, Tuple

import toolparse
from toolparse import spec as _spec
from toolparse.integrations import VLLM_PREFIX as PREFIX
from toolparse.integrations import check_report, server_structural_tag
from toolparse.integrations import reasoning as _reasoning_common
from toolparse.integrations import vllm_class_name as class_name
from toolparse.integrations._vllm_deltas import (
    bind_classes,
    delta_message,
    stream_core,
    vllm_delta,
)
from toolparse.token_suffix import variant_for_tokenizer

logger = logging.getLogger(__name__)

PLUGIN_GROUP = "vllm.general_plugins"
PLUGIN_NAME = "toolparse"


def formats() -> List[str]:
    """The format names toolparse registers: every format and every alias."""
    return toolparse.list_formats(aliases=True)


_BY_CLASS_NAME: Dict[str, str] = {class_name(f): f for f in formats()}
_TOOL_PARSER_CLASSES: Dict[Tuple[str, str], type] = {}
_TOOL_PARSER_BASE: Any = None


# --------------------------------------------------------------------------------------------------
# Tools: vLLM gives ChatCompletionToolsParam (chat) or FunctionTool (responses); toolparse takes
# OpenAI tool dicts. Converted once per request, when vLLM builds the parser.
# --------------------------------------------------------------------------------------------------
def _tool_dicts(tools: Optional[Sequence[Any]]) -> List[Dict[str, Any]]:
    out: List[Dict[str, Any]] = []
    for tool in tools or ():
        fn = getattr(tool, "function", None)
        src = fn if fn is not None else tool
        name = getattr(src, "name", None)
        if not isinstance(name, str):
            continue
        function: Dict[str, Any] = {"name": name}
        params = getattr(src, "parameters", None)
        if isinstance(params, dict):
            function["parameters"] = params
        out.append({"type": "function", "function": function})
    return out


def _keeps_special_tokens(spec: Any, request: Any) -> bool:
    """Whether the request must keep special tokens in the output text, by the format's spec
    ("keep_special_tokens": always, with tools in play, or never)."""
    if not hasattr(request, "skip_special_tokens"):
        return False
    keep = spec.keep_special_tokens
    if keep == "with_tools":
        return bool(getattr(request, "tools", None)) and (
            getattr(request, "tool_choice", None) != "none"
        )
    return bool(keep == "always")


# --------------------------------------------------------------------------------------------------
# Strict tool calling: vLLM's DelegatingParser asks the tool parser for a structural tag
# (get_structural_tag) when the parser names a structural_tag_model; toolparse builds it from
# the same spec entry its parser runs on.
# --------------------------------------------------------------------------------------------------
# vLLM's ToolStrictLevel (AUTO=0, FUNCTION=1, PARAMETER=2) -> toolparse.structural_tag's strict
_STRICT_LEVELS = ("auto", "function", "parameter")


def _strict_of(level: Any) -> str:
    """toolparse's ``strict`` for vLLM's ``ToolStrictLevel`` (an IntEnum; None is AUTO)."""
    try:
        k = int(level) if level is not None else 0
    except (TypeError, ValueError):
        k = 0
    return _STRICT_LEVELS[min(max(k, 0), len(_STRICT_LEVELS) - 1)]


def _tool_choice_of(choice: Any) -> Any:
    """A request's ``tool_choice`` in toolparse's shapes: "auto" / "required" / "none", the chat
    named choice, or a Responses function (or custom, shown to the model as a function) choice."""
    if choice is None or isinstance(choice, str):
        return choice
    fn = getattr(choice, "function", None)
    name = getattr(fn, "name", None) if fn is not None else getattr(choice, "name", None)
    if isinstance(name, str) and getattr(choice, "type", None) in ("function", "custom"):
        return {"type": "function", "function": {"name": name}}
    dump = getattr(choice, "model_dump", None)
    return dump(exclude_none=True) if dump is not None else choice


def _request_tool_dicts(tools: Optional[Sequence[Any]]) -> List[Dict[str, Any]]:
    """The function tools vLLM shows the model for a request (its ``get_function_tools``:
    namespaces flattened, custom tools as their one-string shim), as plain tool dicts with their
    ``strict`` as the request gave it."""
    from vllm.tool_parsers.utils import get_function_tools

    out = []
    for tool in get_function_tools(list(tools or ())):
        dump = getattr(tool, "model_dump", None)
        out.append(dump(exclude_none=True) if dump is not None else dict(tool))
    return out


def structural_tag_for_request(
    fmt: str,
    request: Any,
    strict_level: Any = None,
    reasoning: Optional[str] = None,
    reasoning_started: Optional[bool] = None,
) -> Any:
    """The ``xgrammar.StructuralTag`` holding a model that writes ``fmt`` to well-formed calls of
    a vLLM request's tools (``toolparse.structural_tag`` with the request's function tools, their
    ``strict``, its ``tool_choice`` and ``parallel_tool_calls``, and vLLM's strict level), or None:
    nothing to constrain, ``VLLM_ENFORCE_STRICT_TOOL_CALLING=0``, or a request toolparse cannot
    build a tag for (logged; the request then runs unconstrained, never fails here)."""
    import vllm.envs as envs

    if not envs.VLLM_ENFORCE_STRICT_TOOL_CALLING:
        return None
    tools = getattr(request, "tools", None)
    if not tools:
        return None
    return server_structural_tag(
        fmt,
        _request_tool_dicts(tools),
        logger,
        tool_choice=_tool_choice_of(getattr(request, "tool_choice", None)),
        strict=_strict_of(strict_level),
        parallel_tool_calls=getattr(request, "parallel_tool_calls", True) is not False,
        reasoning=reasoning,
        reasoning_started=reasoning_started,
    )


def _toolparse_parser(fmt: str, backend: str, tools: Optional[Sequence[Any]]) -> Any:
    dicts = _tool_dicts(tools)
    try:
        return toolparse.get_parser(fmt, tools=dicts or None, backend=backend)
    except (TypeError, ValueError) as e:
        # A schema toolparse cannot read must not fail the request: parse untyped instead.
        logger.warning("toolparse_%s: request tools not usable (%s); parsing without them", fmt, e)
        return toolparse.get_parser(fmt, backend=backend)


if TYPE_CHECKING:
    _VllmClass = Any  # the vLLM class the methods below are mixed into
else:
    _VllmClass = object


class _ToolParserMethods(_VllmClass):
    """What every toolparse_F tool parser does: the methods of the class :func:`_tool_parser_base`
    makes over vLLM's ``ToolParser`` (kept here, at the module's top level, so that vLLM is
    imported only when the class is made)."""

    engine_based_streaming = True
    toolparse_format = ""
    toolparse_backend = "rust"

    def __init__(self, tokenizer: Any, tools: Optional[List[Any]] = None) -> None:
        super().__init__(tokenizer, tools)
        # a format whose special tokens carry the checkpoint's suffix (spec "token_suffix":
        # Hy3's <tool_calls:opensource>): the variant for the suffix in the tokenizer's vocabulary
        self.toolparse_format = variant_for_tokenizer(self.toolparse_format, tokenizer) or ""
        self._stream: Any = None  # the stream core (stream_core), made on first use
        self._finished = False
        # A toolparse reasoning parser built just before this one, in the same thread (vLLM's
        # Parser builds the two in a row): continue its machine (see _ReasonerToolPair).
        self._pair: Optional[_ReasonerToolPair] = _ReasonerToolPair.link(
            _reasoning_common.take(), self
        )
        self._plain: Any = None
        if self._pair is None:
            self._plain = _toolparse_parser(
                self.toolparse_format, self.toolparse_backend, self.tools
            )

    @property
    def toolparse(self) -> Any:
        """The toolparse parser for text without reasoning (made on first use when
        paired)."""
        if self._plain is None:
            self._plain = _toolparse_parser(
                self.toolparse_format, self.toolparse_backend, self.tools
            )
        return self._plain

    def new_id(self) -> str:
        pair = self._pair
        if pair is not None and pair.parser is not None:
            return pair.parser.new_id()  # type: ignore[no-any-return]
        return self.toolparse.new_id()  # type: ignore[no-any-return]

    # -- request ---------------------------------------------------------------------------
    def adjust_request(self, request: Any) -> Any:
        request = super().adjust_request(request)
        spec = _spec.get_spec(self.toolparse_format)
        if _keeps_special_tokens(spec, request):
            # The format's markers are special tokens (in some checkpoints): the detokenizer
            # must keep them, and (spec "spaces_between_special_tokens": false, kimi_k3) not
            # put spaces between them, or `<|open|>tools<|sep|>` reaches the parser as
            # `<|open|> tools <|sep|>`.
            request.skip_special_tokens = False
            if not spec.spaces_between_special_tokens and hasattr(
                request, "spaces_between_special_tokens"
            ):
                request.spaces_between_special_tokens = False
        return request

    def get_structural_tag(
        self, request: Any, *, reasoning: bool = False, strict_level: Any = None
    ) -> Any:
        """toolparse's structural tag for the request (see
        :func:`structural_tag_for_request`). vLLM's ``DelegatingParser`` asks with
        ``reasoning=False`` (its reasoning parser owns the think block); with
        ``reasoning=True`` the tag starts with the think block of the toolparse reasoning
        parser paired with this one, else of the reasoning format named as the tool format
        (:func:`toolparse.integrations.reasoning.own_reasoning`), else none."""
        reasoner = self._pair.reasoner if reasoning and self._pair is not None else None
        if reasoner is not None:
            r, started = reasoner.toolparse_reasoning, reasoner.started
        else:
            r = _reasoning_common.own_reasoning(self.toolparse_format) if reasoning else None
            started = None
        return structural_tag_for_request(self.toolparse_format, request, strict_level, r, started)

    # -- non-streaming ---------------------------------------------------------------------
    def extract_tool_calls(self, model_output: str, request: Any) -> Any:
        from vllm.entrypoints.generate.base.protocol import (
            ExtractedToolCallInformation,
            FunctionCall,
            ToolCall,
        )

        try:
            pair = self._pair
            info = pair.take_extracted(model_output) if pair is not None else None
            if info is None:
                info = self.toolparse.extract_tool_calls(model_output)
        except Exception:  # never raise into the serving loop
            logger.exception("toolparse_%s: extract_tool_calls failed", self.toolparse_format)
            return ExtractedToolCallInformation(
                tools_called=False, tool_calls=[], content=model_output
            )
        calls = [
            ToolCall(
                id=c.id,
                type="function",
                function=FunctionCall(name=c.function.name, arguments=c.function.arguments),
            )
            for c in info.tool_calls
        ]
        self.prev_tool_call_arr = [
            {"name": c.function.name, "arguments": c.function.arguments} for c in calls
        ]
        self.streamed_args_for_tool = [c.function.arguments for c in calls]
        return ExtractedToolCallInformation(
            tools_called=bool(calls), tool_calls=calls, content=info.content
        )

    # -- streaming -------------------------------------------------------------------------
    def extract_tool_calls_streaming(
        self,
        previous_text: str,
        current_text: str,
        delta_text: str,
        previous_token_ids: Sequence[int],
        current_token_ids: Sequence[int],
        delta_token_ids: Sequence[int],
        request: Any,
    ) -> Any:
        if self._pair is not None and self._pair.usable:
            return self._pair.tool_feed(delta_text)
        if self._finished or not delta_text:
            return None
        try:
            core = self._stream
            if core is None:
                core = self._stream = stream_core(self.toolparse)
            return core.feed_message(delta_text)
        except Exception:  # never raise into the serving loop: the text stays content
            logger.exception("toolparse_%s: feed failed", self.toolparse_format)
            self._finished = True
            return delta_message(delta_text, None, [])

    def finish_streaming(self) -> Any:
        """End of the stream: flushes held-back text (vLLM calls it once, at the end), and
        sets vLLM's record of the calls sent (also after a failure ended the stream early)."""
        delta = None
        pair = self._pair
        core = pair.core if pair is not None else self._stream
        if not self._finished:
            self._finished = True
            if pair is not None and pair.usable:
                d = pair.tool_finish()
                delta = None if d is None else self._delta(d)
            elif core is not None:
                try:
                    delta = core.finish_message()
                except Exception:
                    logger.exception("toolparse_%s: finish failed", self.toolparse_format)
        sent = (core.sent_calls if core is not None else None) or []
        self.streamed_args_for_tool = [a for _, a in sent]
        self.prev_tool_call_arr = [{"name": n, "arguments": a} for n, a in sent]
        return delta

    def get_remaining_unstreamed_args(self) -> str:
        # The machine streams every argument byte it has decided on; what it holds back is
        # flushed by finish_streaming. Nothing is ever parsed but unstreamed.
        return ""

    @property
    def truncated(self) -> bool:
        """Whether the output ended inside a call (after finish_streaming)."""
        if self._pair is not None and self._pair.usable:
            return self._pair.truncated
        s = self._stream
        return bool(s is not None and getattr(s, "truncated", False))

    def _delta(self, d: Any) -> Any:
        """vLLM's delta for a core delta the machine emitted on the reasoning side (the
        core recorded its calls)."""
        return vllm_delta(d, self.new_id)


def _tool_parser_base() -> Any:
    """The common base class of every toolparse_F parser (made once, when vLLM is present)."""
    global _TOOL_PARSER_BASE
    if _TOOL_PARSER_BASE is not None:
        return _TOOL_PARSER_BASE
    from vllm.entrypoints.generate.base.protocol import (
        DeltaFunctionCall,
        DeltaMessage,
        DeltaToolCall,
    )
    from vllm.tool_parsers.abstract_tool_parser import ToolParser

    bind_classes(DeltaMessage, DeltaToolCall, DeltaFunctionCall)

    class ToolparseToolParser(_ToolParserMethods, ToolParser):  # type: ignore[misc, valid-type]
        """A vLLM tool parser running toolparse's streaming machine for one format."""

    _TOOL_PARSER_BASE = ToolparseToolParser
    return _TOOL_PARSER_BASE


# --------------------------------------------------------------------------------------------------
# One machine for a toolparse reasoning parser and the toolparse tool parser built after it
# --------------------------------------------------------------------------------------------------
class _ReasonerToolPair:
    """The one-pass machine a ``toolparse_R`` reasoning parser and the ``toolparse_F`` tool parser
    vLLM's ``Parser`` builds right after it share for one response.

    vLLM feeds the reasoning parser until it reports the end of reasoning
    (``has_engine_confirmed_reasoning_end``), then feeds the tool parser what the reasoning
    parser returned as content (the raw rest, which vLLM's own ``tool_choice`` required/named
    parsing also reads), then each later delta. The reasoning parser feeds every delta to the
    machine and keeps what the machine emitted after the hand-over (content, calls) for the tool
    parser, whose first call returns it instead of parsing the raw rest again; later deltas go to
    the same machine. When vLLM skips the reasoning phase (the prompt closed the block), the tool
    parser feeds the machine from the start. Whichever side vLLM flushes at the end finishes the
    machine, once. Tool-call deltas are built by the tool parser (its ids and bookkeeping)
    whichever side the machine emitted them on."""

    def __init__(self, reasoner: Any, tool: Any) -> None:
        self.reasoner = reasoner
        self.tool = tool
        self.parser: Any = None  # the toolparse parser (format, tools, reasoning), made lazily
        self.core: Any = None  # its stream's core
        # what the machine emitted at the hand-over besides the reasoning, for the tool side: a
        # vLLM DeltaMessage (its content and calls) or None
        self.stash: Any = None
        self.extracted: Any = None  # (raw rest, ExtractedToolCallInformation), non-streaming
        self.tool_active = False  # the tool side drives the machine
        self.finished = False
        self.usable = True

    @classmethod
    def link(cls, reasoner: Any, tool: Any) -> Optional[_ReasonerToolPair]:
        if reasoner is None or getattr(reasoner, "_pair", None) is not None or reasoner._used:
            return None
        if getattr(reasoner, "toolparse_backend", None) != tool.toolparse_backend:
            return None
        if not _reasoning_common.pairs(reasoner.toolparse_reasoning, tool.toolparse_format):
            return None
        pair = cls(reasoner, tool)
        reasoner._pair = pair
        return pair

    # -- the machine ------------------------------------------------------------------------
    def get_parser(self) -> Any:
        if self.parser is None:
            tool, r = self.tool, self.reasoner
            dicts = _tool_dicts(tool.tools)
            kw = dict(backend=tool.toolparse_backend, reasoning=r.toolparse_reasoning)
            kw["reasoning_started"] = r.started
            try:
                self.parser = toolparse.get_parser(tool.toolparse_format, tools=dicts or None, **kw)
            except (TypeError, ValueError) as e:
                logger.warning(
                    "toolparse_%s: request tools not usable (%s); parsing without them",
                    tool.toolparse_format,
                    e,
                )
                self.parser = toolparse.get_parser(tool.toolparse_format, **kw)
        return self.parser

    def get_core(self) -> Any:
        if self.core is None:
            self.core = stream_core(self.get_parser())
        return self.core

    def fail(self, where: str) -> None:
        logger.exception("toolparse pair %s: %s failed", self.tool.toolparse_format, where)
        self.usable = False
        self.finished = True

    # -- the tool side ----------------------------------------------------------------------
    def tool_feed(self, text: str) -> Any:
        if self.finished:
            return None
        if not self.tool_active:
            self.tool_active = True
            if self.reasoner.has_engine_confirmed_reasoning_end():
                # vLLM hands over the raw rest, which the machine has already seen.
                m, self.stash = self.stash, None
                return m
        if not text:
            return None
        try:
            return self.get_core().feed_message(text)
        except Exception:  # never raise into the serving loop: the text stays content
            self.fail("feed")
            return delta_message(text, None, [])

    def tool_finish(self) -> Any:
        if self.finished or not self.tool_active:
            # Never driven by the tool side (vLLM parsed tool_choice required/named itself, or
            # the reasoning side finished the machine): nothing to flush here.
            return None
        return self.finish()

    def finish(self) -> Any:
        if self.finished:
            return None
        self.finished = True
        try:
            return self.get_core().finish()
        except Exception:
            logger.exception("toolparse pair %s: finish failed", self.tool.toolparse_format)
            return None

    @property
    def truncated(self) -> bool:
        return bool(self.core is not None and self.finished and self.core.truncated)

    # -- non-streaming ----------------------------------------------------------------------
    def take_extracted(self, text: str) -> Any:
        ex, self.extracted = self.extracted, None
        if ex is not None and (ex[0] is text or ex[0] == text):
            return ex[1]
        return None


class _ReasoningParserMethods(_VllmClass):
    """What every toolparse_R reasoning parser does: the methods of the class
    :func:`_reasoning_base` makes over vLLM's ``ReasoningParser`` (kept at the module's top level,
    so that vLLM is imported only when the class is made)."""

    engine_based_streaming = True
    toolparse_reasoning = ""
    toolparse_backend = "rust"

    def __init__(self, tokenizer: Any, *args: Any, **kwargs: Any) -> None:
        super().__init__(tokenizer, *args, **kwargs)
        # markers with the checkpoint's suffix (spec "token_suffix"): as the tool parser's
        self.toolparse_reasoning = (
            variant_for_tokenizer(self.toolparse_reasoning, tokenizer, reasoning=True) or ""
        )
        self._template_kwargs = kwargs.get("chat_template_kwargs")
        self._prompt: Optional[bool] = None
        self._pair: Optional[_ReasonerToolPair] = None
        self._solo: Any = None  # toolparse parser without a tool format, when unpaired
        self._core: Any = None
        self._handover: Any = None
        self._ended = False
        self._finished = False
        self._used = False  # parsed something: too late to pair
        self._counter: Any = None  # count_reasoning_tokens' state
        if "model_config" in kwargs:
            # Built by vLLM's Parser, which builds its tool parser next, in this thread.
            _reasoning_common.leave(self)

    # -- markers and token ids ------------------------------------------------------------
    @property
    def _ids(self) -> Any:
        return _reasoning_common.marker_ids(self.model_tokenizer, self.toolparse_reasoning)

    @property
    def reasoning_start_str(self) -> Optional[str]:
        s = _spec.REASONING[self.toolparse_reasoning]
        return s.start or None

    @property
    def reasoning_end_str(self) -> Optional[str]:
        s = _spec.REASONING[self.toolparse_reasoning]
        return s.end or None

    def _started_for(self, prompt: Optional[bool]) -> Optional[bool]:
        if prompt is not None:
            return prompt
        return _reasoning_common.kwargs_verdict(self._template_kwargs)

    @property
    def started(self) -> Optional[bool]:
        """True when the output starts inside reasoning, False when thinking is off, None for
        the format's default: the prompt's last turn first, then chat_template_kwargs."""
        return self._started_for(self._prompt)

    def is_reasoning_end(self, input_ids: Sequence[int]) -> bool:
        """On the prompt: whether the output starts after reasoning (thinking off, or the
        last turn's block ended, by its end marker or a call start)."""
        if _reasoning_common.transparent(self.toolparse_reasoning):
            return False
        try:
            verdict = _reasoning_common.prompt_verdict(self._ids, input_ids, self._tool_format())
            started = self._started_for(verdict)
        except Exception:  # noqa: BLE001 - never raise into the serving loop
            started = None
        if started is None:
            started = _reasoning_common.default_started(self.toolparse_reasoning)
        return not started

    def is_reasoning_end_streaming(self, input_ids: Sequence[int], delta_ids: Any) -> bool:
        """Per decode step in the engine core: the open block ended in this step, at the
        end marker's tokens or at a single-token call start that ends a block (the paired
        tool format's; built alone, as the engine core builds it, the reasoning format's
        own). Looks at ``delta_ids`` only (and the end marker's length before them)."""
        try:
            return _reasoning_common.end_in_delta(
                self._ids, input_ids, delta_ids, self._tool_format()
            )
        except Exception:  # noqa: BLE001
            return False

    def count_reasoning_tokens(self, token_ids: Sequence[int]) -> int:
        """The generated tokens inside the think block, markers excluded, by the front's
        rules as token ids tell them (see :class:`toolparse.integrations.reasoning.
        ReasoningTokens`); resumes from the last call when ``token_ids`` extends the ids it
        saw, as vLLM passes the whole sequence per delta. 0 for harmony (its channels) and
        formats without reasoning (``content_prefix``)."""
        rspec = _spec.REASONING[self.toolparse_reasoning]
        if _reasoning_common.transparent(self.toolparse_reasoning) or rspec.content_prefix:
            return 0
        try:
            started = self.started
            if started is None:
                started = _reasoning_common.default_started(self.toolparse_reasoning)
            if not started and rspec.markers_off_when_disabled:
                return 0  # thinking disabled turns the markers off: nothing is reasoning
            calls = self._ids.calls(self._tool_format())
            counter = self._counter
            if counter is None or counter.key != (started, calls):
                counter = _reasoning_common.ReasoningTokens(
                    self._ids, started, calls, self._decode_one, rspec.blocks_anywhere
                )
                counter.key = (started, calls)
                self._counter = counter
            return int(counter(token_ids))
        except Exception:  # noqa: BLE001 - never raise into the serving loop
            logger.exception("toolparse_%s: counting reasoning tokens", self.toolparse_reasoning)
            return 0

    def _decode_one(self, token_id: int) -> str:
        return str(self.model_tokenizer.decode([token_id]))

    def extract_content_ids(self, input_ids: List[int]) -> List[int]:
        end = self._ids.end
        if end is not None and end in input_ids:
            return list(input_ids[input_ids.index(end) + 1 :])
        return list(input_ids)

    def set_prompt_token_ids(self, prompt_token_ids: Sequence[int]) -> None:
        try:
            self._prompt = _reasoning_common.prompt_verdict(
                self._ids, prompt_token_ids, self._tool_format()
            )
        except Exception:  # noqa: BLE001
            self._prompt = None

    def adjust_request(self, request: Any) -> Any:
        request = super().adjust_request(request)
        special = set(getattr(self.model_tokenizer, "all_special_tokens", None) or ())
        s = _spec.REASONING[self.toolparse_reasoning]
        # A reasoning format whose tool format's machine separates it (harmony, muse) needs
        # that format's markers, which are special tokens, whether the request has tools or not.
        framed = s.tool_format is not None and _spec.get_spec(s.tool_format).special_tokens
        if ({s.start, s.end} & special or framed) and hasattr(request, "skip_special_tokens"):
            request.skip_special_tokens = False  # the markers are special tokens: keep them
        return request

    # -- the machine ----------------------------------------------------------------------
    def _tool_format(self) -> Optional[str]:
        return self._pair.tool.toolparse_format if self._pair is not None else None

    def _parser(self) -> Any:
        self._used = True
        if self._pair is not None and self._pair.usable:
            return self._pair.get_parser()
        if self._solo is None:
            self._solo = toolparse.get_parser(
                None,
                backend=self.toolparse_backend,
                reasoning=self.toolparse_reasoning,
                reasoning_started=self.started,
            )
        return self._solo

    def _start(self) -> Any:
        self._used = True
        if self._core is None:
            pair = self._pair
            if pair is not None and pair.usable:
                self._core = pair.get_core()
            else:
                self._core = stream_core(self._parser())
            self._handover = _reasoning_common.Handover(
                self._core, _reasoning_common.transparent(self.toolparse_reasoning)
            )
        return self._core

    def _message(self, d: Any, content: Optional[str] = None, whole: bool = True) -> Any:
        """vLLM's delta for core delta ``d``: its reasoning, ``content`` in place of the
        machine's content unless ``whole``, and (when ``whole``) its calls."""
        c, r, calls = d if d is not None else (None, None, None)
        if whole:
            if calls and self._pair is not None:
                return self._pair.tool._delta(d)
            if calls:
                return vllm_delta(d, self._parser().new_id)
            content = c
        if content is None and r is None:
            return None
        return delta_message(content, r, [])

    # -- non-streaming ---------------------------------------------------------------------
    def extract_reasoning(self, model_output: str, request: Any) -> Tuple[Any, Any]:
        try:
            info = self._parser().extract_tool_calls(model_output)
            if _reasoning_common.transparent(self.toolparse_reasoning):
                rest = info.content or ""
            else:
                rest = _reasoning_common.raw_rest(self._parser(), model_output)
        except Exception:  # noqa: BLE001 - never raise into the serving loop
            logger.exception("toolparse_%s: extract_reasoning failed", self.toolparse_reasoning)
            return None, model_output
        if self._pair is not None:
            self._pair.extracted = (rest, info)
        return (info.reasoning or None), (rest or None)

    # -- streaming -------------------------------------------------------------------------
    def extract_reasoning_streaming(
        self,
        previous_text: str,
        current_text: str,
        delta_text: str,
        previous_token_ids: Sequence[int],
        current_token_ids: Sequence[int],
        delta_token_ids: Sequence[int],
    ) -> Any:
        if self._ended or self._finished or not delta_text:
            return None
        try:
            core = self._start()
            # vLLM's DeltaMessage, built by the core (its calls' ids from the parser that
            # also builds the pair's tool deltas)
            m = core.feed_message(delta_text)
            rest = self._handover.feed(delta_text)
        except Exception:  # never raise into the serving loop: hand the text over
            logger.exception("toolparse_%s: feed failed", self.toolparse_reasoning)
            self._ended = True
            if self._pair is not None:
                self._pair.usable = False
            return delta_message(delta_text, None, [])
        if rest is None:
            return m
        # The block ended in this delta: the reasoning goes out here, the raw rest as
        # content (vLLM hands it to the tool phase); the machine's own content and calls
        # for it wait for the tool parser of the pair.
        self._ended = True
        r = None if m is None else m.reasoning
        if self._pair is not None and self._pair.usable and m is not None:
            if m.content is not None or m.tool_calls:
                self._pair.stash = delta_message(m.content, None, m.tool_calls)
        if rest or r is not None:
            return delta_message(rest or None, r, [])
        return None

    def has_engine_confirmed_reasoning_end(self) -> bool:
        return self._ended

    def finish_streaming(self) -> Any:
        """Flush: at the hand-over (nothing: the rest went on raw) or at the end of a stream
        whose reasoning never ended (the machine finishes here, once)."""
        if self._ended or self._finished or self._core is None:
            return None
        self._finished = True
        pair = self._pair
        try:
            if pair is not None and pair.usable:
                d = pair.finish()
                return self._message(d)
            d = self._core.finish()
            rest = self._handover.finish()
        except Exception:  # noqa: BLE001
            logger.exception("toolparse_%s: finish failed", self.toolparse_reasoning)
            return None
        if _reasoning_common.transparent(self.toolparse_reasoning):
            return self._message(d)
        return self._message(d, rest or None, whole=False)


def _reasoning_base() -> Any:
    """The common base class of every toolparse_R reasoning parser (made once)."""
    global _REASONING_PARSER_BASE
    if _REASONING_PARSER_BASE is not None:
        return _REASONING_PARSER_BASE
    _tool_parser_base()  # binds vLLM's delta types
    from vllm.reasoning import ReasoningParser

    class ToolparseReasoningParser(_ReasoningParserMethods, ReasoningParser):  # type: ignore[misc, valid-type]
        """A vLLM reasoning parser running toolparse's one-pass machine for one reasoning format
        (paired with a toolparse tool parser built right after it, the same machine parses the
        tool calls; see :class:`_ReasonerToolPair`)."""

    _REASONING_PARSER_BASE = ToolparseReasoningParser
    return _REASONING_PARSER_BASE


_REASONING_PARSER_BASE: Any = None
_REASONING_PARSER_CLASSES: Dict[Tuple[str, str], type] = {}
_BY_REASONING_CLASS: Dict[str, str] = {
    _reasoning_common.class_name(r, "Parser"): r for r in _reasoning_common.formats()
}


def reasoning_formats() -> List[str]:
    """The reasoning format names toolparse registers: every one and every alias."""
    return _reasoning_common.formats()


def reasoning_parser_class(name: str, backend: str = "rust") -> type:
    """The vLLM ``ReasoningParser`` subclass for toolparse reasoning format ``name``."""
    canon = _spec.reasoning_canonical(name)  # unknown names fail here, listing the known
    key = (canon, backend)
    cls = _REASONING_PARSER_CLASSES.get(key)
    if cls is None:
        if backend not in ("rust", "python"):
            raise ValueError(f"unknown backend {backend!r}; use 'rust' or 'python'")
        suffix = "" if backend == "rust" else "Python"
        cls = type(
            _reasoning_common.class_name(canon, "Parser") + suffix,
            (_reasoning_base(),),
            {"toolparse_reasoning": canon, "toolparse_backend": backend, "__module__": __name__},
        )
        _REASONING_PARSER_CLASSES[key] = cls
    return cls


def parser_class(fmt: str, backend: str = "rust") -> type:
    """The vLLM ``ToolParser`` subclass for toolparse format ``fmt`` (made once per process)."""
    key = (fmt, backend)
    cls = _TOOL_PARSER_CLASSES.get(key)
    if cls is None:
        toolparse.get_parser(fmt, backend=backend)  # unknown names fail here, listing the known
        suffix = "" if backend == "rust" else "Python"
        # Naming a structural_tag_model makes vLLM ask get_structural_tag for strict tool
        # calling; vLLM's ToolParser.__init_subclass__ then sets supports_required_and_named =
        # False when VLLM_ENFORCE_STRICT_TOOL_CALLING is on (the default), as for its own parsers:
        # required and named output is parsed in the format's own markup, not as a JSON list.
        cls = type(
            class_name(fmt) + suffix,
            (_tool_parser_base(),),
            {
                "toolparse_format": fmt,
                "toolparse_backend": backend,
                "structural_tag_model": PREFIX + fmt,
                "__module__": __name__,
            },
        )
        _TOOL_PARSER_CLASSES[key] = cls
    return cls


#: What the ``toolparse_auto`` log line adds in vLLM: where the template it detects from is read.
AUTO_WHERE = (
    "read from the tokenizer's chat_template: vLLM 0.33 does not show a parser a --chat-template "
    "file or a per-request template"
)


@cache
def _auto_classes(backend: str = "rust") -> Tuple[type, type]:
    """``toolparse_auto``'s tool and reasoning parser classes: constructing one detects the
    format from the tokenizer's template (:mod:`toolparse.integrations.auto`, cached) and returns
    the named parser's instance, so from then on it is that parser (strict tool calling too)."""
    from . import auto

    def tool_new(cls: Any, tokenizer: Any, tools: Any = None, *args: Any, **kw: Any) -> Any:
        r = auto.resolve_tokenizer(tokenizer, where=AUTO_WHERE)
        if r.format is None:
            raise ValueError(f"--tool-call-parser toolparse_auto: {r.line}")
        return parser_class(r.variant() or r.format, backend)(tokenizer, tools, *args, **kw)

    def reasoning_new(cls: Any, tokenizer: Any, *args: Any, **kw: Any) -> Any:
        r = auto.resolve_tokenizer(tokenizer, where=AUTO_WHERE)
        if r.reasoning is None:
            raise ValueError(
                f"--reasoning-parser toolparse_auto: {r.line}: no think block found in the chat "
                "template; pass --reasoning-parser toolparse_<name> (see `toolparse formats`) "
                "or none"
            )
        name = r.variant(reasoning=True) or r.reasoning
        return reasoning_parser_class(name, backend)(tokenizer, *args, **kw)

    suffix = "" if backend == "rust" else "Python"
    attrs = {"__new__": tool_new, "toolparse_backend": backend, "__module__": __name__}
    tool = type("ToolparseAutoToolParser" + suffix, (_tool_parser_base(),), attrs)
    attrs = {"__new__": reasoning_new, "toolparse_backend": backend, "__module__": __name__}
    reasoner = type("ToolparseAutoReasoningParser" + suffix, (_reasoning_base(),), attrs)
    return tool, reasoner


def __getattr__(name: str) -> Any:
    # vLLM's lazy registries import this module and look the class up by name.
    fmt = _BY_CLASS_NAME.get(name)
    if fmt is not None:
        return parser_class(fmt)
    rname = _BY_REASONING_CLASS.get(name)
    if rname is not None:
        return reasoning_parser_class(rname)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def register() -> List[str]:
    """Registers every ``toolparse_F`` in vLLM's ``ToolParserManager`` and every ``toolparse_R``
    in its ``ReasoningParserManager`` now (the formats of the files ``TOOLPARSE_FORMATS`` names
    first); returns the tool parser names."""
    from vllm.tool_parsers import ToolParserManager

    from toolparse.integrations import formats_from_env

    formats_from_env()

    names = []
    for fmt in formats():
        name = PREFIX + fmt
        ToolParserManager.register_module(name, force=True, module=parser_class(fmt))
        names.append(name)
    auto_tool, _ = _auto_classes()
    ToolParserManager.register_module(PREFIX + "auto", force=True, module=auto_tool)
    register_reasoning()
    return names


def register_reasoning() -> List[str]:
    """Registers every ``toolparse_R`` in vLLM's ``ReasoningParserManager``; returns the
    names."""
    from vllm.reasoning import ReasoningParserManager

    names = []
    for r in reasoning_formats():
        name = PREFIX + r
        ReasoningParserManager.register_module(name, force=True, module=reasoning_parser_class(r))
        names.append(name)
    ReasoningParserManager.register_module(PREFIX + "auto", force=True, module=_auto_classes()[1])
    return names


def check() -> Dict[str, Any]:
    """Whether vLLM is installed beside toolparse, and whether toolparse's entry point loads there
    through vLLM's own plugin loader: ``{"server", "installed", "version", "ok", "names",
    "reasoning_names", "error"}`` (``names``: ``--tool-call-parser``; ``reasoning_names``:
    ``--reasoning-parser``)."""
    out = check_report("vllm")
    if importlib.util.find_spec("vllm") is None:
        out["error"] = "vLLM is not installed"
        return out
    out["installed"] = True
    try:
        from importlib.metadata import version

        out["version"] = version("vllm")
        from vllm.plugins import load_plugins_by_group
        from vllm.tool_parsers import ToolParserManager

        plugins = load_plugins_by_group(PLUGIN_GROUP)
        if PLUGIN_NAME not in plugins:
            import vllm.envs as envs

            allowed = envs.VLLM_PLUGINS
            if allowed is not None and PLUGIN_NAME not in allowed:
                raise RuntimeError(
                    f"VLLM_PLUGINS={','.join(allowed)} leaves out {PLUGIN_NAME!r}: use "
                    "--tool-parser-plugin toolparse.integrations.vllm"
                )
            raise RuntimeError(f"no {PLUGIN_NAME!r} entry point in group {PLUGIN_GROUP}")
        plugins[PLUGIN_NAME]()
        registered = set(ToolParserManager.list_registered())
        out["names"] = [PREFIX + f for f in formats() if PREFIX + f in registered]
        missing = [PREFIX + f for f in formats() if PREFIX + f not in registered]
        from vllm.reasoning import ReasoningParserManager

        reasoners = set(ReasoningParserManager.list_registered())
        out["reasoning_names"] = [
            PREFIX + r for r in reasoning_formats() if PREFIX + r in reasoners
        ]
        missing += [PREFIX + r for r in reasoning_formats() if PREFIX + r not in reasoners]
        if missing:
            raise RuntimeError(f"not registered: {', '.join(missing)}")
        ToolParserManager.get_tool_parser(PREFIX + formats()[0])
        ReasoningParserManager.get_reasoning_parser(PREFIX + reasoning_formats()[0])
        out["ok"] = True
    except Exception as e:  # report in one line, never raise
        out["error"] = f"{type(e).__name__}: {e}".splitlines()[0]
    return out


if importlib.util.find_spec("vllm") is not None:
    try:
        import vllm.tool_parsers  # noqa: F401
    except Exception as e:  # vLLM present but not importable here: registering must wait
        logger.debug("toolparse.integrations.vllm: vLLM not importable (%s)", e)
    else:
        register()
