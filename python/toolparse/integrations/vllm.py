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
from typing import Any, Dict, List, Optional, Sequence, Tuple

import toolparse
from toolparse import spec as _spec
from toolparse.integrations import VLLM_PREFIX as PREFIX
from toolparse.integrations import vllm_class_name as class_name

logger = logging.getLogger(__name__)

PLUGIN_GROUP = "vllm.general_plugins"
PLUGIN_NAME = "toolparse"


def formats() -> List[str]:
    """The format names toolparse registers: every format and every alias."""
    return toolparse.list_formats(aliases=True)


_BY_CLASS_NAME: Dict[str, str] = {class_name(f): f for f in formats()}
_CLASSES: Dict[Tuple[str, str], type] = {}
_BASE: Any = None


# --------------------------------------------------------------------------------------------------
# vLLM's delta objects, built without validation from data toolparse's core made (a validated
# DeltaMessage with one tool-call fragment costs ~5 us). The fields set are exactly the ones given,
# because vLLM dumps with exclude_unset=True: a field missing from the set is silently dropped.
# --------------------------------------------------------------------------------------------------
_new = object.__new__
_set = object.__setattr__
_VLLM: Dict[str, Any] = {}
_DM: Any = None  # vLLM's DeltaMessage, DeltaToolCall, DeltaFunctionCall (bound by _base())
_DTC: Any = None
_DFC: Any = None


def _delta_message(content: Optional[str], reasoning: Optional[str], calls: List[Any]) -> Any:
    cls = _VLLM["DeltaMessage"]
    obj = _new(cls)
    _set(
        obj,
        "__dict__",
        {"role": None, "content": content, "reasoning": reasoning, "tool_calls": calls},
    )
    fields = set()
    if content is not None:
        fields.add("content")
    if reasoning is not None:
        fields.add("reasoning")
    if calls:
        fields.add("tool_calls")
    _set(obj, "__pydantic_fields_set__", fields)
    _set(obj, "__pydantic_extra__", {})
    _set(obj, "__pydantic_private__", None)
    return obj


def _delta_call(index: int, id: Optional[str], name: Optional[str], args: Optional[str]) -> Any:
    fn = _new(_VLLM["DeltaFunctionCall"])
    if name is None:
        _set(fn, "__dict__", {"name": None, "arguments": args})
        _set(fn, "__pydantic_fields_set__", {"arguments"})
    else:
        _set(fn, "__dict__", {"name": name, "arguments": args})
        _set(fn, "__pydantic_fields_set__", {"name", "arguments"} if args is not None else {"name"})
    _set(fn, "__pydantic_extra__", None)
    _set(fn, "__pydantic_private__", None)
    call = _new(_VLLM["DeltaToolCall"])
    if name is None:
        _set(call, "__dict__", {"id": None, "type": None, "index": index, "function": fn})
        _set(call, "__pydantic_fields_set__", {"index", "function"})
    else:
        _set(call, "__dict__", {"id": id, "type": "function", "index": index, "function": fn})
        _set(call, "__pydantic_fields_set__", {"id", "type", "index", "function"})
    _set(call, "__pydantic_extra__", {})
    _set(call, "__pydantic_private__", None)
    return call


def _args_message(index: int, args: str) -> Any:
    """``_delta_message(None, None, [_delta_call(index, None, None, args)])`` in one call: the
    hottest delta (an arguments fragment of a started call)."""
    fn = _new(_DFC)
    _set(fn, "__dict__", {"name": None, "arguments": args})
    _set(fn, "__pydantic_fields_set__", {"arguments"})
    _set(fn, "__pydantic_extra__", None)
    _set(fn, "__pydantic_private__", None)
    call = _new(_DTC)
    _set(call, "__dict__", {"id": None, "type": None, "index": index, "function": fn})
    _set(call, "__pydantic_fields_set__", {"index", "function"})
    _set(call, "__pydantic_extra__", {})
    _set(call, "__pydantic_private__", None)
    obj = _new(_DM)
    _set(obj, "__dict__", {"role": None, "content": None, "reasoning": None, "tool_calls": [call]})
    _set(obj, "__pydantic_fields_set__", {"tool_calls"})
    _set(obj, "__pydantic_extra__", {})
    _set(obj, "__pydantic_private__", None)
    return obj


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


def _toolparse_parser(fmt: str, backend: str, tools: Optional[Sequence[Any]]) -> Any:
    dicts = _tool_dicts(tools)
    try:
        return toolparse.get_parser(fmt, tools=dicts or None, backend=backend)
    except (TypeError, ValueError) as e:
        # A schema toolparse cannot read must not fail the request: parse untyped instead.
        logger.warning("toolparse_%s: request tools not usable (%s); parsing without them", fmt, e)
        return toolparse.get_parser(fmt, backend=backend)


def _base() -> Any:
    """The common base class of every toolparse_F parser (made once, when vLLM is present)."""
    global _BASE, _DM, _DTC, _DFC
    if _BASE is not None:
        return _BASE
    from vllm.entrypoints.generate.base.protocol import (
        DeltaFunctionCall,
        DeltaMessage,
        DeltaToolCall,
        ExtractedToolCallInformation,
        FunctionCall,
        ToolCall,
    )
    from vllm.tool_parsers.abstract_tool_parser import ToolParser

    _VLLM.update(
        DeltaMessage=DeltaMessage, DeltaToolCall=DeltaToolCall, DeltaFunctionCall=DeltaFunctionCall
    )
    _DM, _DTC, _DFC = DeltaMessage, DeltaToolCall, DeltaFunctionCall

    class ToolparseToolParser(ToolParser):  # type: ignore[misc, valid-type]
        """A vLLM tool parser running toolparse's streaming machine for one format."""

        engine_based_streaming = True
        toolparse_format = ""
        toolparse_backend = "rust"

        def __init__(self, tokenizer: Any, tools: Optional[List[Any]] = None) -> None:
            super().__init__(tokenizer, tools)
            self.toolparse = _toolparse_parser(
                self.toolparse_format, self.toolparse_backend, self.tools
            )
            self._stream: Any = None
            self._finished = False
            self._fragments: List[List[str]] = []
            self._names: List[str] = []

        # -- request ---------------------------------------------------------------------------
        def adjust_request(self, request: Any) -> Any:
            request = super().adjust_request(request)
            if (
                getattr(request, "tools", None)
                and getattr(request, "tool_choice", None) != "none"
                and _spec.get_spec(self.toolparse_format).special_tokens
                and hasattr(request, "skip_special_tokens")
            ):
                # The format's markers are special tokens: the detokenizer must keep them.
                request.skip_special_tokens = False
            return request

        # -- non-streaming ---------------------------------------------------------------------
        def extract_tool_calls(self, model_output: str, request: Any) -> Any:
            try:
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
            if self._finished or not delta_text:
                return None
            stream = self._stream
            if stream is None:
                stream = self._stream = self.toolparse.stream()
            try:
                d = stream._core.feed(delta_text)
            except Exception:  # never raise into the serving loop: the text stays content
                logger.exception("toolparse_%s: feed failed", self.toolparse_format)
                self._finished = True
                return _delta_message(delta_text, None, [])
            return None if d is None else self._delta(d)

        def finish_streaming(self) -> Any:
            """End of the stream: flushes held-back text (vLLM calls it once, at the end)."""
            if self._finished:
                return None
            self._finished = True
            d = None
            if self._stream is not None:
                try:
                    d = self._stream._core.finish()
                except Exception:
                    logger.exception("toolparse_%s: finish failed", self.toolparse_format)
            delta = None if d is None else self._delta(d)
            self.streamed_args_for_tool = ["".join(f) for f in self._fragments]
            self.prev_tool_call_arr = [
                {"name": n, "arguments": a}
                for n, a in zip(self._names, self.streamed_args_for_tool)
            ]
            return delta

        def get_remaining_unstreamed_args(self) -> str:
            # The machine streams every argument byte it has decided on; what it holds back is
            # flushed by finish_streaming. Nothing is ever parsed but unstreamed.
            return ""

        @property
        def truncated(self) -> bool:
            """Whether the output ended inside a call (after finish_streaming)."""
            s = self._stream
            return bool(s is not None and getattr(s, "truncated", False))

        def _delta(self, d: Any) -> Any:
            content, reasoning, calls = d
            if calls is None:
                return _delta_message(content, reasoning, [])
            if len(calls) == 1 and content is None and reasoning is None:
                index, _, name, args = calls[0]
                if name is None:  # the hottest delta: an arguments fragment
                    self._fragments[index].append(args)
                    return _args_message(index, args)
            out = []
            for index, id, name, args in calls:
                if name is not None:
                    if id is None:
                        id = self.toolparse.new_id()
                    self._names.append(name)
                    self._fragments.append([])
                if args is not None:
                    self._fragments[index].append(args)
                out.append(_delta_call(index, id, name, args))
            return _delta_message(content, reasoning, out)

    _BASE = ToolparseToolParser
    return _BASE


def parser_class(fmt: str, backend: str = "rust") -> type:
    """The vLLM ``ToolParser`` subclass for toolparse format ``fmt`` (made once per process)."""
    key = (fmt, backend)
    cls = _CLASSES.get(key)
    if cls is None:
        toolparse.get_parser(fmt, backend=backend)  # unknown names fail here, listing the known
        suffix = "" if backend == "rust" else "Python"
        cls = type(
            class_name(fmt) + suffix,
            (_base(),),
            {"toolparse_format": fmt, "toolparse_backend": backend, "__module__": __name__},
        )
        _CLASSES[key] = cls
    return cls


def __getattr__(name: str) -> Any:
    # vLLM's lazy registry imports this module and looks the class up by name.
    fmt = _BY_CLASS_NAME.get(name)
    if fmt is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return parser_class(fmt)


def register() -> List[str]:
    """Registers every ``toolparse_F`` in vLLM's ``ToolParserManager`` now; returns the names."""
    from vllm.tool_parsers import ToolParserManager

    names = []
    for fmt in formats():
        name = PREFIX + fmt
        ToolParserManager.register_module(name, force=True, module=parser_class(fmt))
        names.append(name)
    return names


def check() -> Dict[str, Any]:
    """Whether vLLM is installed beside toolparse, and whether toolparse's entry point loads there
    through vLLM's own plugin loader: ``{"server", "installed", "version", "ok", "names",
    "error"}``."""
    out: Dict[str, Any] = {
        "server": "vllm",
        "installed": False,
        "version": None,
        "ok": False,
        "names": [],
        "error": None,
    }
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
        if missing:
            raise RuntimeError(f"not registered: {', '.join(missing)}")
        ToolParserManager.get_tool_parser(PREFIX + formats()[0])
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
