"""The facade: picks a backend and turns core deltas into DeltaMessage and
ExtractedToolCallInformation. Both backends return the same plain tuples, which this module makes
model objects from; on the Rust backend a stream's DeltaMessages are built by the binding instead
(``_core.Parser.feed_message``, the same objects as ``ToolCallStream._message`` makes)."""

from __future__ import annotations

import json
from typing import Any, Dict, List, Optional, Sequence, Tuple, Type, Union

from pydantic import BaseModel

from .ids import IdSource
from .models import (
    DeltaFunctionCall,
    DeltaMessage,
    DeltaToolCall,
    ExtractedToolCallInformation,
    FunctionCall,
    Tool,
    ToolCall,
    ToolProperty,
)
from .spec import REASONING, canonical, get_spec, reasoning_canonical

try:
    from . import _core
except ImportError:  # pragma: no cover - the extension is built by maturin
    _core = None  # type: ignore[assignment]

BACKENDS = ("rust", "python")

if _core is not None:
    # The Rust backend builds the stream's DeltaMessages itself (``Parser.feed_message``), the
    # same objects as the fast constructors below make.
    _core.set_models(DeltaMessage, DeltaToolCall, DeltaFunctionCall)

# Bound once: attribute lookups on pydantic model classes are slow (see toolparse.models).
_message_fast = DeltaMessage._fast
_args_fast = DeltaMessage._fast_tool_args
_call_fast = DeltaToolCall._fast
_function_fast = DeltaFunctionCall._fast
_tool_call_fast = ToolCall._fast
_function_call_fast = FunctionCall._fast
ToolsArg = Optional[Sequence[Union[Tool, Dict[str, Any]]]]


def _tool_models(tools: ToolsArg) -> List[Tool]:
    """Validates the caller's tools once: a list (or tuple) of ``Tool`` models or OpenAI tool
    dicts. TypeError/ValueError naming the argument (and the tool) otherwise."""
    if tools is None:
        return []
    if not isinstance(tools, (list, tuple)):
        raise TypeError(
            f"tools must be a list of Tool models or OpenAI tool dicts, not {type(tools).__name__}"
        )
    out = []
    for i, t in enumerate(tools):
        if not isinstance(t, (Tool, dict)):
            raise TypeError(
                f"tools[{i}] must be a Tool model or an OpenAI tool dict, not {type(t).__name__}"
            )
        try:
            tool = t if isinstance(t, Tool) else Tool.model_validate(t)
            # Everything the core is handed must be UTF-8: a lone surrogate is refused here, the
            # same on both backends, not at the first call. A dict holds every string its model
            # does, and dumping it is cheaper than dumping the model (this runs per request).
            raw = tool.model_dump() if t is tool else t
            json.dumps(raw, ensure_ascii=False, default=str, skipkeys=True).encode("utf-8")
        except UnicodeEncodeError:
            raise ValueError(
                f"tools[{i}] ({_tool_name(t)!r}) holds a lone surrogate, which UTF-8 cannot carry"
            ) from None
        out.append(tool)
    return out


def _tool_name(t: Any) -> Any:
    if isinstance(t, Tool):
        return t.function.name
    fn = t.get("function")
    return fn.get("name") if isinstance(fn, dict) else None


def _schema_types(tools: List[Tool]) -> Dict[str, Dict[str, List[str]]]:
    """function name -> parameter name -> the JSON Schema types it admits, in schema order
    without repeats: its ``type`` (a string or a list) and the types of its ``anyOf`` /
    ``oneOf`` branches (nested ones too), a local ``$ref`` (``#/$defs/Location``) read as the
    schema it points to; empty when the schema gives none. What both backends are told."""
    out: Dict[str, Dict[str, List[str]]] = {}
    for tool in tools:
        fn = tool.function
        params: Dict[str, List[str]] = {}
        props = fn.parameters.properties if fn.parameters is not None else None
        for pname, prop in (props or {}).items():
            params[pname] = _prop_types(prop, fn.parameters)
        out[fn.name] = params
    return out


# A chain of references longer than this is not followed (a cycle, or a schema built to be slow).
_REF_MAX = 64


def _member(node: Any, key: str) -> Any:
    """``node[key]`` for a dict, a model's field or extra keyword; None when absent."""
    if isinstance(node, dict):
        return node.get(key)
    if isinstance(node, list):
        return node[int(key)] if key.isdigit() and int(key) < len(node) else None
    if isinstance(node, BaseModel):
        if key in type(node).model_fields:
            return getattr(node, key)
        return (node.model_extra or {}).get(key)
    return None


def _ref(node: Any) -> Optional[str]:
    """A node's ``$ref`` if it is a local JSON pointer (``#/...``)."""
    if isinstance(node, dict):
        ref = node.get("$ref")
    elif isinstance(node, BaseModel):
        ref = (node.model_extra or {}).get("$ref")
    else:
        return None
    return ref if isinstance(ref, str) and ref.startswith("#") else None


def _deref(root: Any, node: Any) -> Any:
    """``node`` with its local ``$ref`` followed (through ``root``, the parameters schema), as
    many times as it takes, up to ``_REF_MAX``; the node itself when it has none, or when the
    reference does not resolve."""
    for _ in range(_REF_MAX):
        ref = _ref(node)
        if ref is None or root is None:
            return node
        target = root
        for part in ref[1:].split("/")[1:]:
            target = _member(target, part.replace("~1", "/").replace("~0", "~"))
            if target is None:
                return node
        node = target
    return node


def _prop_types(prop: Any, root: Any = None) -> List[str]:
    """The types one property schema admits (see ``_schema_types``); no recursion, so a deeply
    nested schema cannot hit the recursion limit."""
    if not isinstance(prop, dict):
        t = getattr(prop, "type", None)
        if isinstance(t, str) and not getattr(prop, "model_extra", None):
            return [t]  # the common case, one type and no union (this runs per request)
    types: List[str] = []
    nodes: List[Any] = [prop]
    seen = 0
    while nodes and seen < _TREE_MAX:
        seen += 1
        node = _deref(root, nodes.pop())
        if isinstance(node, dict):
            t, extra = node.get("type"), node
        else:
            t, extra = getattr(node, "type", None), (getattr(node, "model_extra", None) or {})
        for x in t if isinstance(t, list) else [t]:
            if isinstance(x, str) and x not in types:
                types.append(x)
        for key in ("oneOf", "anyOf"):
            branches = extra.get(key)
            if isinstance(branches, list):
                nodes.extend(reversed(branches))
    return types


# Schema trees: at most this many nodes per function (a schema is a tree as JSON; shared Python
# objects could make it a much larger one).
_TREE_MAX = 10_000


def _schema_trees(
    tools: List[Tool],
) -> Dict[str, List[Tuple[List[str], int, Dict[str, int], int]]]:
    """function name -> its schema tree, for the formats whose parameters nest (the xml_elements
    family): a list of nodes ``(types, container, children, other)``, node 0 the parameters
    object. ``types`` as ``_prop_types``; ``container`` 0 (a scalar), 1 (an object) or 2 (an
    array): the first ``array`` or ``object`` alternative of the schema (its ``type``, else
    ``items`` / ``properties`` / ``additionalProperties``, else its ``anyOf`` / ``oneOf`` branches
    in order), as vLLM's minimax_m3 parser decides; ``children`` the object's properties (node
    indices); ``other`` the array's ``items`` or the object's ``additionalProperties`` (-1: none).
    Built with explicit stacks (no recursion)."""
    out: Dict[str, List[Tuple[List[str], int, Dict[str, int], int]]] = {}
    for tool in tools:
        fn = tool.function
        nodes: List[Tuple[List[str], int, Dict[str, int], int]] = []
        root_children: Dict[str, int] = {}
        nodes.append(([], 1, root_children, -1))
        # (schema, where its index goes: (children dict, key) or (node position, None))
        work: List[Tuple[Any, Any, Any]] = []
        props = fn.parameters.properties if fn.parameters is not None else None
        if props:
            for k, v in reversed(list(props.items())):
                work.append((v, root_children, k))
        while work:
            schema, slot, key = work.pop()
            if len(nodes) >= _TREE_MAX:
                continue
            schema = _deref(fn.parameters, schema)
            plain = _plain_type(schema)
            branch: Dict[str, Any]
            if plain is not None:  # the common case: one type, nothing nested
                types, container, branch = [plain], _CONTAINERS.get(plain, 0), {}
            else:
                schema = _schema_dict(schema)
                if not isinstance(schema, dict):
                    continue
                container, branch = _container(schema, fn.parameters)
                types = _prop_types(schema, fn.parameters)
            children: Dict[str, int] = {}
            index = len(nodes)
            nodes.append((types, container, children, -1))
            if isinstance(slot, dict):
                slot[key] = index
            else:
                t, c, ch, _ = nodes[slot]
                nodes[slot] = (t, c, ch, index)
            other = branch.get("items") if container == 2 else branch.get("additionalProperties")
            if container:
                work.append((other, index, None))
            if container == 1:
                bprops = branch.get("properties")
                if isinstance(bprops, dict):
                    for k, v in reversed(list(bprops.items())):
                        work.append((v, children, k))
        out[fn.name] = nodes
    return out


_PROPERTY_FIELDS = tuple(ToolProperty.model_fields)


_CONTAINERS = {"array": 2, "object": 1}


def _plain_type(node: Any) -> Optional[str]:
    """The type of a ``ToolProperty`` that names one type and has no keyword that nests or
    branches (``items``, ``properties``, any extra keyword); None otherwise."""
    if (
        isinstance(node, ToolProperty)
        and isinstance(node.type, str)
        and node.items is None
        and node.properties is None
        and not node.__pydantic_extra__
    ):
        return node.type
    return None


def _schema_dict(node: Any) -> Any:
    """A schema node as ``model_dump(exclude_none=True)`` writes it, one level deep: a
    ``ToolProperty``'s keywords that are not None and its extra keywords (None ones too); nested
    models stay models until they are visited. Anything else as it is. (Dumping the whole
    parameters model runs a Python serializer per node; this runs per request.)"""
    if isinstance(node, ToolProperty):
        out = {k: v for k in _PROPERTY_FIELDS if (v := getattr(node, k)) is not None}
        extra = node.__pydantic_extra__
        if extra:
            out.update(extra)
        return out
    if isinstance(node, BaseModel):
        return node.model_dump(exclude_none=True)
    return node


def _container(schema: Dict[str, Any], root: Any = None) -> Tuple[int, Dict[str, Any]]:
    """(2, branch) for an array, (1, branch) for an object, (0, schema) otherwise (local
    ``$ref``s followed through ``root``)."""
    todo = [schema]
    seen = 0
    while todo and seen < _TREE_MAX:
        seen += 1
        s = _schema_dict(_deref(root, todo.pop()))
        if not isinstance(s, dict):
            continue
        t = s.get("type")
        for code, kind in ((2, "array"), (1, "object")):
            if t == kind or (isinstance(t, list) and kind in t):
                return code, s
        if t is None:
            if "items" in s:
                return 2, s
            if "properties" in s or "additionalProperties" in s:
                return 1, s
        branches: List[Dict[str, Any]] = []
        for key in ("anyOf", "oneOf"):
            listed = s.get(key)
            if isinstance(listed, list):
                branches.extend(listed)
        todo.extend(reversed(branches))
    return 0, schema


class ToolParser:
    """A tool-call parser for one format, made by :func:`toolparse.get_parser` (which documents
    its arguments). Make one per set of tools and reuse it: :meth:`extract_tool_calls` parses a
    whole model output, :meth:`stream` starts the streaming state of one response. Both give the
    same calls and content for the same text.

    Attributes:
        name: the format's canonical name (an alias given to ``get_parser`` is resolved).
        reasoning: the reasoning format's canonical name, or None.
        backend: ``"rust"`` or ``"python"`` (the pure-Python twin, same results).
        tools: the tools, as validated ``Tool`` models.
    """

    format_name: str = ""

    def __init__(
        self,
        name: Optional[str] = None,
        tools: ToolsArg = None,
        backend: str = "rust",
        ids: Optional[IdSource] = None,
        *,
        reasoning: Optional[str] = None,
        reasoning_started: Optional[bool] = None,
    ) -> None:
        # Every argument is validated here, once, the same way on both backends; a name may be
        # an alias (the parser's ``name`` is the canonical one). With a reasoning format, None
        # as the name parses reasoning and content only (or harmony, for openai_gptoss).
        rname = reasoning_canonical(reasoning) if reasoning is not None else None
        if reasoning_started is not None and not isinstance(reasoning_started, bool):
            raise TypeError(
                "reasoning_started must be True, False or None, "
                f"not {type(reasoning_started).__name__}"
            )
        if name is None and not self.format_name and rname is None:
            # None is a str-or-None argument's accepted type: a missing format is a bad value.
            raise ValueError(
                "a format name is required when reasoning is None: name (the tool-call format) "
                "and reasoning (the reasoning format) are both None; pass a format name "
                "(toolparse.list_formats()) or a reasoning format to parse reasoning and content "
                "only (toolparse.list_reasoning_formats())"
            )
        if name is None and not self.format_name and rname is not None:
            name = REASONING[rname].tool_format
            fmt: Optional[str] = canonical(name) if name is not None else None
        else:
            fmt = canonical(name if name is not None else (self.format_name or None))
        if not isinstance(backend, str):
            raise TypeError(
                f"backend must be a str ('rust' or 'python'), not {type(backend).__name__}"
            )
        if backend not in BACKENDS:
            raise ValueError(f"unknown backend {backend!r}; use 'rust' or 'python'")
        if ids is not None and not isinstance(ids, IdSource):
            raise TypeError(f"ids must be a toolparse.IdSource or None, not {type(ids).__name__}")
        if backend == "rust" and _core is None:
            raise ImportError("toolparse._core is not built; use backend='python' or install it")
        self.name = fmt
        self.reasoning = rname
        self.reasoning_started = reasoning_started
        self.backend = backend
        self.tools = _tool_models(tools)
        self._types = _schema_types(self.tools)
        spec = get_spec(fmt) if fmt is not None else None
        schemas = (
            _schema_trees(self.tools)
            if spec is not None and spec.family == "xml_elements"
            else None
        )
        self._ids = ids if ids is not None else IdSource()
        self._id_style = get_spec(fmt).id_style if fmt is not None else "chatcmpl"
        # The format with its tools, converted once; every stream and extract reuses it.
        if backend == "rust":
            if schemas is not None:
                self._format: Any = _core.Format(
                    fmt, self._types, rname, reasoning_started, schemas
                )
            elif rname is None:
                self._format = _core.Format(fmt, self._types)
            else:
                self._format = _core.Format(fmt, self._types, rname, reasoning_started)
        else:
            from . import reference  # the twin: never imported on the Rust path

            self._format = reference.Format(fmt, self._types, rname, reasoning_started, schemas)

    def __reduce__(self) -> Tuple[Any, ...]:
        """Pickles (and ``copy.deepcopy``s) as what the parser was made from: its class, format
        name, tools and options (ids, reasoning, reasoning_started, backend); the native format
        is rebuilt from them, never pickled. Other attributes (a subclass's) are kept as they
        are."""
        args = (
            type(self),
            self.name,
            self.tools,
            self.backend,
            self._ids,
            self.reasoning,
            self.reasoning_started,
        )
        state = {k: v for k, v in self.__dict__.items() if k not in _REBUILT}
        return (_rebuild_parser, args, state or None)

    def _new_parser(self) -> Any:
        return self._format.parser()

    def new_id(self) -> str:
        """A new tool-call id in the format's style (``chatcmpl-tool-`` and 32 hex digits, or
        Mistral's 9 alphanumerics), from the parser's :class:`IdSource`: what a call that
        carries no id of its own is given."""
        return self._ids.make(self._id_style)

    def extract_tool_calls(
        self, model_output: str, request: Any = None
    ) -> ExtractedToolCallInformation:
        """Parses a whole model output at once: the same calls and content as streaming it.

        Args:
            model_output: the text the model generated.
            request: ignored; accepted for vLLM's signature.

        Returns:
            The calls (``tool_calls``, each with its id, name and arguments as a JSON object's
            text), ``tools_called``, the ``content`` left (None when only whitespace is) and,
            with a reasoning format, the ``reasoning``. Malformed tool markup gives
            ``tools_called=False`` and the original text as content. Output that ends inside a
            call (``max_tokens``) keeps the calls completed before it, drops the unfinished one
            and its markup, and sets ``truncated=True``; with no complete call it is the
            original text, less a bare call-start marker at its very end. With a reasoning
            format, "the original text" is the text after the think block (the reasoning is
            kept), as a server's reasoning parser then tool parser give it, without the markup
            the format drops (an end marker outside a block).

        Raises:
            TypeError: ``model_output`` is not a str.
        """
        if not isinstance(model_output, str):
            raise TypeError(f"model_output must be a str, not {type(model_output).__name__}")
        content, reasoning, calls, malformed, truncated = self._format.extract(model_output)
        if malformed or (truncated and not calls):
            return ExtractedToolCallInformation(
                tools_called=False,
                tool_calls=[],
                content=content,
                reasoning=reasoning,
                truncated=truncated,
            )
        tool_calls = [
            _tool_call_fast(id or self.new_id(), _function_call_fast(name, args))
            for id, name, args in calls
        ]
        return ExtractedToolCallInformation(
            tools_called=bool(tool_calls),
            tool_calls=tool_calls,
            content=content,
            reasoning=reasoning,
            truncated=truncated,
        )

    def stream(self) -> ToolCallStream:
        """Starts streaming one response: feed the returned :class:`ToolCallStream` each delta
        of the model's text as it arrives (``feed`` returns the :class:`DeltaMessage` to send,
        or None), then call its ``finish``. Make a new stream for every response; the parser
        (its format, tools and ids) is shared and stays unchanged.

        Returns:
            A new stream, in the state before any text (or inside the think block, when the
            reasoning format says the prompt opened it).
        """
        return ToolCallStream(self)


# The attributes ``ToolParser.__init__`` sets: rebuilt from its arguments when unpickled.
_REBUILT = frozenset(
    (
        "name",
        "reasoning",
        "reasoning_started",
        "backend",
        "tools",
        "_types",
        "_ids",
        "_id_style",
        "_format",
    )
)


def _rebuild_parser(
    cls: Type[ToolParser],
    name: Optional[str],
    tools: List[Tool],
    backend: str,
    ids: IdSource,
    reasoning: Optional[str],
    reasoning_started: Optional[bool],
) -> ToolParser:
    """An unpickled ``ToolParser``: ``ToolParser.__init__`` on what the parser was made from (a
    subclass's own ``__init__`` may take other arguments; its other attributes are restored
    after)."""
    parser: ToolParser = cls.__new__(cls)
    ToolParser.__init__(
        parser,
        name,
        tools=tools,
        backend=backend,
        ids=ids,
        reasoning=reasoning,
        reasoning_started=reasoning_started,
    )
    return parser


class ToolCallStream:
    """One response's streaming state, made by :meth:`ToolParser.stream`. ``feed`` each delta,
    then ``finish``. The deltas follow vLLM's protocol: a call's first delta carries its
    ``index``, ``id``, ``type`` and whole ``name``, later ones its ``index`` and a piece of its
    ``arguments``. However the text is split, the concatenated deltas are the same. A stream is
    not picklable (pickle its parser and start a new stream)."""

    def __init__(self, parser: ToolParser) -> None:
        self.parser = parser
        if parser.backend == "rust":
            self._core = parser._format.parser(parser.new_id)
            # The per-delta path without a Python frame: the instance's ``feed`` and ``finish``
            # are the core's, which build the same DeltaMessage as the methods below (and raise
            # the same errors).
            self.feed = self._core.feed_message  # type: ignore[method-assign]
            self.finish = self._core.finish_message  # type: ignore[method-assign]
        else:
            self._core = parser._new_parser()

    def __reduce__(self) -> Any:
        # The native one would say "cannot pickle 'toolparse._core.Parser'" on one backend only.
        raise TypeError(
            f"cannot pickle {type(self).__qualname__!r} object: a stream is one response's "
            "state; pickle its parser and start a new stream()"
        )

    def feed(self, delta_text: str) -> Optional[DeltaMessage]:
        """Feeds the next piece of the model's text.

        Args:
            delta_text: the text the model generated since the last ``feed``.

        Returns:
            The delta to send (content, reasoning, call starts and argument pieces decided so
            far), or None when there is nothing new yet: text that may be the start of a marker
            is held back until the next piece decides it.

        Raises:
            TypeError: ``delta_text`` is not a str.
            ValueError: the stream is finished.
        """
        try:
            d = self._core.feed(delta_text)
        except TypeError:
            # Only a wrong argument type raises TypeError here: checked after the fact, so the
            # hot path pays nothing.
            raise TypeError(f"delta_text must be a str, not {type(delta_text).__name__}") from None
        return None if d is None else self._message(d)

    def finish(self) -> Optional[DeltaMessage]:
        """Ends the response and flushes the text still held back (a possible marker that never
        completed), sent as what it turned out to be. Afterwards ``truncated``,
        ``unfinished_call`` and ``dropped_calls`` are final.

        Returns:
            The last delta, or None when nothing was held back.
        """
        d = self._core.finish()
        return None if d is None else self._message(d)

    @property
    def malformed(self) -> bool:
        """Whether the tool markup seen so far was malformed."""
        return bool(self._core.malformed)

    @property
    def truncated(self) -> bool:
        """Whether the output ended inside a call (known after ``finish()``): its start and some
        arguments were streamed, but it never completed. A server reports
        ``finish_reason="length"``; a client may discard that call."""
        return bool(self._core.truncated)

    @property
    def dropped_calls(self) -> List[int]:
        """The indices of the streamed calls that were dropped after their start was sent, so
        far: a pythonic call with a value that has no JSON form (``b'z'``, ``1j``, ``...``) is
        left out of the non-streaming result while the others are kept, but its start and its
        arguments up to that value were already streamed, and it never ends. A client discards
        those calls (the non-streaming result numbers the remaining calls without them)."""
        return list(self._core.dropped_calls)

    @property
    def unfinished_call(self) -> Optional[int]:
        """After ``finish()``: the index of the streamed call the output ended inside (its start
        was sent, its end never came), or None. ``truncated`` can be True with no such call: the
        output ended in the markup of a call whose start was not sent yet."""
        return self._core.unfinished_call  # type: ignore[no-any-return]

    @property
    def open_call(self) -> Optional[int]:
        """The index of the call whose start was streamed and whose end has not been seen yet,
        or None between calls; after ``finish()`` it is ``unfinished_call``."""
        return self._core.open_call  # type: ignore[no-any-return]

    @property
    def machine_from(self) -> Optional[int]:
        """With a reasoning format: where the think block handed the text over, in characters of
        the text fed (the raw text from there on is what the tool markup is parsed from); None
        while the block is open, known at the latest after ``finish()``. 0 without a think block
        (no reasoning format, or one whose tool format separates the reasoning itself)."""
        return self._core.machine_from  # type: ignore[no-any-return]

    def _message(self, d: Any) -> DeltaMessage:
        content, reasoning, calls = d
        if calls is None:
            return _message_fast(content, reasoning, [])
        if len(calls) == 1 and content is None and reasoning is None:
            index, id, name, args = calls[0]
            if name is None:
                # The hottest delta: an arguments fragment of a started call.
                return _args_fast(index, args)
        tool_calls = []
        for index, id, name, args in calls:
            if name is None:
                tool_calls.append(_call_fast(index, None, None, _function_fast(None, args)))
            else:
                if id is None:
                    id = self.parser.new_id()
                tool_calls.append(_call_fast(index, id, "function", _function_fast(name, args)))
        return _message_fast(content, reasoning, tool_calls)
