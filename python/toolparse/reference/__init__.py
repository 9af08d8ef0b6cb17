"""Pure-Python reference twins of the Rust parsers (twin of ``rust/formats/mod.rs``).

Each ``reference/<name>.py`` mirrors ``rust/formats/<name>.rs``: same states, same events, same
deltas per feed. They are the oracle for the differential tests and the baseline of the benches.
"""

from __future__ import annotations

from typing import Callable, Dict, List, Optional, Tuple

from ..spec import REASONING, SPECS, FormatSpec, ReasoningSpec
from .between import HOLD, Machine, Next
from .event import Delta, Emitter, Extracted, SpanRule, delta_from_events, extracted_from_events
from .json import CallKeys
from .params import SchemaTrees, ToolTypes
from .scan import Markers

# A format's spec entry and how its machine is built, as a parser's Format took them.
Entry = Tuple[FormatSpec, Callable[[ToolTypes], Machine]]


class _WithSchemas(dict):  # type: ignore[type-arg]
    """``ToolTypes`` that also carry the schema trees (``schemas``), as ``Tools`` does in Rust."""

    schemas: SchemaTrees


def _tools(tools: Optional[ToolTypes], schemas: Optional[SchemaTrees]) -> ToolTypes:
    if not schemas:
        return tools or {}
    t = _WithSchemas(tools or {})
    t.schemas = schemas
    return t


def _machine(spec: FormatSpec) -> Callable[[ToolTypes], Machine]:
    """How to build a format's machine from its spec entry (as ``build.rs`` does for Rust)."""
    from . import llama3_json, named_json, openai, pythonic, tagged_json, xml_params

    m = spec.markers
    if spec.family == "tagged_json":
        # The end markers (`call_end`, `call_end_2`, ...), then the start markers.
        def roles(prefix: str) -> List[str]:
            return [m[r] for r in sorted(r for r in m if r == prefix or r.startswith(prefix + "_"))]

        ends, starts = roles("call_end"), roles("call_start")
        call = spec.call
        forms = call.shape == "list_or_name_then_args"
        if forms and "args_start" not in m:
            raise ValueError(f"format spec: {spec.name}: no args_start")
        keys = _call_keys(spec)
        tags = tagged_json.Tags(
            ends + starts,
            len(ends),
            call.shape == "array",
            CallKeys(keys.name, keys.args, keys.strings, call.keyed_by_name, call.id_keys),
            tentative=call.tentative,
            wrappers=[m[r] for r in ("text_start", "text_end") if r in m],
            # a list, an object, or a name and its arguments (mistral)
            forms=forms,
            args=[m[r] for r in ("args_start",) if r in m],
            call_id=[m[r] for r in ("call_id",) if r in m],
            newline=spec.calls == "newline" and call.shape != "array",
        )
        return lambda _tools: tagged_json.TaggedJson(tags)
    if spec.family == "pythonic":
        start = m.get("section_start")
        triggers = [t for t in (start, m.get("list_start")) if t is not None]
        style = pythonic.Style(triggers, start, m.get("section_end"), list=spec.calls == "list")
        return lambda _tools: pythonic.Pythonic(style)
    if spec.family == "named_json":
        seps = [m[k] for k in ("name_start", "args_start") if k in m]
        named = named_json.Style(
            [m[k] for k in ("section_start", "section_start_alt") if k in m],
            [m[k] for k in ("section_end", "section_end_alt") if k in m],
            m["call_start"],
            m["call_end"],
            seps,
            m.get("args_end"),
            id=spec.id_style == "model",
            drop_between=named_json.drops_between(spec.call),
            id_field=spec.call.id_field,
        )
        return lambda tools: named_json.NamedJson(named, tools)
    if spec.family == "xml_params":
        xml_style = xml_params.style_of(m, spec.call, spec.arguments)
        return lambda tools: xml_params.XmlParams(xml_style, tools)
    if spec.family == "xml_elements":
        from . import xml_elements

        el_style = xml_elements.style_of(m)
        return lambda tools: xml_elements.XmlElements(el_style, tools)
    if spec.family == "muse":
        from . import muse

        atem = xml_params.style_of(m, spec.call, spec.arguments)
        frame = muse.frame_of(m, spec.call, atem)
        return lambda tools: muse.Muse(frame, tools)
    if spec.family == "openai":
        # beam: harmony messages whose tool bodies are XML parameters
        xml = xml_params.style_of(m, spec.call, spec.arguments) if "parameter_start" in m else None
        harmony = openai.frame_of(m, spec.call, xml)
        return lambda tools: openai.Harmony(harmony, tools)
    if spec.family == "functiongemma":
        from . import functiongemma

        fg = functiongemma.Style(
            m["call_start"],
            m["name_start"],
            m["string"],
            m["call_end"],
            spec.call.escaped == "string",
            spec.call.key_spaces,
        )
        return lambda tools: functiongemma.FunctionGemma(fg, tools)
    if spec.family == "functionary":
        from . import functionary

        fy = functionary.style_of(spec.name, m, spec.call)
        return lambda tools: functionary.Functionary(fy, tools)
    if spec.family == "inkling":
        from . import inkling

        kinds = (
            "message_start",
            "text_start",
            "tool_text_start",
            "tool_error_start",
            "thinking_start",
            "call_start",
            "end",
            "end_sampling",
        )
        ink = inkling.Style([m[r] for r in kinds], _call_keys(spec))
        return lambda _tools: inkling.Inkling(ink)
    if spec.family == "llama3_json":
        l3 = llama3_json.Style(Markers([m["call_start"], m["object_start"]]), m["separator"])
        return lambda tools: llama3_json.new(l3, tools)
    raise ValueError(f"format spec: {spec.name}: unknown family {spec.family!r}")


def _call_keys(spec: FormatSpec) -> CallKeys:
    """The keys of a format's JSON call objects (its ``call.name_keys`` and ``args_keys``; a JSON
    string may hold the arguments where ``arguments`` says so)."""
    call = spec.call
    if call.name_keys is None or call.args_keys is None:
        raise ValueError(f"format spec: {spec.name}: call.name_keys and call.args_keys are needed")
    strings = spec.arguments == "json_object_or_json_string"
    return CallKeys(call.name_keys, call.args_keys, strings=strings)


def _registry() -> Dict[str, Tuple[Callable[[ToolTypes], Machine], str]]:
    # Built from the spec, in its order, as rust/formats/mod.rs is: the machine, and how the
    # caller makes ids for calls whose format does not carry one.
    return {name: (_machine(spec), spec.id_style) for name, spec in SPECS.items()}


def list_formats() -> List[str]:
    return list(REGISTRY)


def id_style(format: str) -> str:
    """How ids are made for calls of ``format`` that carry none."""
    return REGISTRY[format][1]


class Plain(Machine):
    """The machine used when no tool format is given (reasoning and content only)."""

    def step(self, s: str, i: int, out: Emitter) -> Next:
        out.content(s[i:])
        return len(s), HOLD

    def finish(self, rest: str, out: Emitter) -> None:
        out.content(rest)


def _check_format(format: str) -> None:
    if format not in REGISTRY:
        raise ValueError(
            f"toolparse[{format}]: unknown format; known formats: {', '.join(REGISTRY)}"
        )


def _reasoning_name(reasoning: Optional[str]) -> Optional[str]:
    """The canonical reasoning name (as the binding's lookup: a name, else an alias)."""
    if reasoning is None:
        return None
    if reasoning in REASONING:
        return reasoning
    for s in REASONING.values():
        if reasoning in s.aliases:
            return s.name
    raise ValueError(
        f"toolparse: unknown reasoning format {reasoning!r}; known reasoning formats: "
        f"{', '.join(REASONING)}"
    )


def _dropped(
    rspec: Optional[ReasoningSpec], format: Optional[FormatSpec], front: bool
) -> List[str]:
    """The markup dropped wherever the machine emits it as content (as ``Setup::dropped``): with
    a reasoning front, the markers that end a block (outside one, an end marker is markup, unless
    ``stray_end_text``: then only where it leads the output, which the front drops) and the end
    of the content wrapper the end marker opens (not for a format that puts its own markers in
    content, nor while thinking is disabled for a format whose markers are then off: there is no
    front); the turn-end tags of the reasoning format and of the tool format, and the other
    ``dropped`` markup of both (the reasoning format's without the tool format's own markers,
    which its machine reads), in every state."""
    marks: List[str] = []
    if rspec is not None:
        if front and not rspec.content_prefix:
            if not rspec.stray_end_text:
                marks.extend(rspec.ends)
            marks.append(rspec.content_end)
        marks.append(rspec.turn_end)
        # its other markup, but a marker of the paired tool format, which that format's machine
        # reads (cohere's response wrapper; in a call it is the call's text)
        own = set(format.markers.values()) if format is not None else set()
        marks.extend(m for m in rspec.dropped if m not in own)
    if format is not None:
        marks.append(format.turn_end)
        marks.extend(format.dropped)
    out: List[str] = []
    for m in marks:
        if m and m not in out:
            out.append(m)
    return out


class Parser:
    """One response's parser (same interface as ``toolparse._core.Parser``). ``format`` None:
    no tool format (reasoning and content only, or the reasoning format's own tool format)."""

    def __init__(
        self,
        format: Optional[str],
        tools: Optional[ToolTypes] = None,
        reasoning: Optional[str] = None,
        reasoning_started: Optional[bool] = None,
        schemas: Optional[SchemaTrees] = None,
        entry: Optional[Entry] = None,
    ) -> None:
        from . import reasoning as _reasoning

        if format is not None and entry is None:
            _check_format(format)
        # The format's entry when the parser's Format was made (a format replaced since keeps
        # running on it, as in Rust), else the current one.
        fspec, make = entry if entry is not None else (None, None)
        if fspec is None and format is not None:
            fspec, make = SPECS[format], REGISTRY[format][0]
        if reasoning is None and fspec is not None and fspec.default_reasoning:
            # the reasoning format that runs with this tool format when none is given
            reasoning = fspec.default_reasoning
        rname = _reasoning_name(reasoning)
        rspec = REASONING[rname] if rname is not None else None
        if rspec is not None and rspec.tool_format is not None:
            if format is not None and format != rspec.tool_format:
                raise ValueError(
                    f"toolparse: reasoning format {rname!r} is parsed by the "
                    f"{rspec.tool_format!r} tool format, not {format!r}"
                )
        if format is None and rspec is not None:
            format = rspec.tool_format
            if format is not None:
                fspec, make = SPECS[format], REGISTRY[format][0]
        if format is None and rspec is None:
            raise ValueError("toolparse: neither a tool format nor a reasoning format given")
        self.format = format
        self._entry: Optional[Entry] = (
            (fspec, make) if fspec is not None and make is not None else None
        )
        self._machine: Machine = make(_tools(tools, schemas)) if make is not None else Plain()
        if rspec is not None and rspec.tool_format is not None and reasoning_started is True:
            # the prompt opened a reasoning block of the machine's own wire format
            self._machine.start_in_reasoning()
        self._front = (
            _reasoning.front(rspec, fspec, reasoning_started) if rspec is not None else None
        )
        self._front_used = 0
        self.machine_from: Optional[int] = None if self._front is not None else 0
        self._held = ""
        self._out = Emitter(
            _dropped(rspec, fspec, self._front is not None),
            fspec.call_starts() if fspec is not None else (),
        )
        if self._front is not None and rspec is not None:
            self._out.set_blocks(_reasoning.blocks(rspec, fspec))
        span = fspec.span_markup if fspec is not None else None
        if span is None and rspec is not None:
            span = rspec.span_markup
        if span is not None:
            self._out.set_span(SpanRule(span.open, span.close_start, span.close_end, span.max))
        self._finished = False
        self._fed = 0

    def feed(self, text: str) -> Optional[Delta]:
        if not isinstance(text, str):
            raise TypeError(f"argument 'text': expected str, not {type(text).__name__}")
        self._push(text)
        return delta_from_events(self._out.take())

    def _push(self, text: str) -> None:
        """Feeds one delta, leaving its events in the emitter (where they coalesce)."""
        if self._finished:
            raise ValueError(
                f"toolparse[{self.format}] at offset {self._fed}: feed() after finish()"
            )
        try:
            self._fed += len(text.encode("utf-8"))
        except UnicodeEncodeError:
            text = lossy(text)
            self._fed += len(text.encode("utf-8"))
        front = self._front
        if front is not None:
            rest = front.feed(text, self._out)
            if rest is None:
                self._front_used += len(text)
            else:
                self._front = None
                self.machine_from = self._front_used + len(text) - len(rest)
                self._push_machine(rest)
            return
        self._push_machine(text)

    def _push_machine(self, text: str) -> None:
        out = self._out
        if out.malformed:
            # After malformed markup everything is content: the machine is not fed again.
            out.content(text)
            return
        buf = self._held + text if self._held else text
        n = self._machine.feed(buf, out)
        if out.malformed:
            out.content(buf[n:])
            self._held = ""
        else:
            self._held = buf[n:]

    def feed_many(self, texts: List[str]) -> List[Optional[Delta]]:
        """Feeds several deltas in one call; one result per delta."""
        return [self.feed(t) for t in texts]

    def finish(self) -> Optional[Delta]:
        self._end()
        return delta_from_events(self._out.take())

    def _end(self) -> None:
        front, self._front = self._front, None
        if front is not None:
            rest = front.finish(self._out)
            self.machine_from = self._front_used - len(rest)
            self._push_machine(rest)
        if not self._finished:
            self._finished = True
            held, self._held = self._held, ""
            if self._out.malformed:
                self._out.content(held)
            else:
                self._machine.finish(held, self._out)
            self._out.finish()

    @property
    def malformed(self) -> bool:
        return self._out.malformed

    @property
    def truncated(self) -> bool:
        return self._out.truncated

    @property
    def dropped_calls(self) -> List[int]:
        return list(self._out.dropped)

    @property
    def unfinished_call(self) -> Optional[int]:
        return self._out.open_call() if self._finished else None

    @property
    def open_call(self) -> Optional[int]:
        return self._out.open_call()


class Format:
    """A format with a request's tools, kept once (twin of ``toolparse._core.Format``)."""

    def __init__(
        self,
        format: Optional[str],
        tools: Optional[ToolTypes] = None,
        reasoning: Optional[str] = None,
        reasoning_started: Optional[bool] = None,
        schemas: Optional[SchemaTrees] = None,
    ) -> None:
        # Checked here, once: the same errors as the binding.
        p = Parser(format, tools, reasoning, reasoning_started, schemas)
        self.name = format
        self._entry = p._entry
        self._schemas = schemas
        self._tools = tools or {}
        self._reasoning = reasoning
        self._started = reasoning_started

    def parser(self) -> Parser:
        return Parser(
            self.name, self._tools, self._reasoning, self._started, self._schemas, self._entry
        )

    def extract(self, text: str) -> Extracted:
        return extract(
            self.name, text, self._tools, self._reasoning, self._started, self._schemas, self._entry
        )


def lossy(text: str) -> str:
    """Lone surrogates (which UTF-8 cannot carry) become U+FFFD, as in the Rust binding."""
    return text.encode("utf-8", "surrogatepass").decode("utf-8", "replace")


def extract(
    format: Optional[str],
    text: str,
    tools: Optional[ToolTypes] = None,
    reasoning: Optional[str] = None,
    reasoning_started: Optional[bool] = None,
    schemas: Optional[SchemaTrees] = None,
    entry: Optional[Entry] = None,
) -> Extracted:
    """Non-streaming: the same machine fed the whole text at once, with the fallback applied (as
    ``Parser::extract_with``): malformed markup, or text that ended inside a call before any
    completed (not a bare call start at the end, which is dropped), gives the original text as
    content. With a reasoning format that is the text after the think block (an empty block
    included), and the reasoning is kept. Markup the parser drops from content is not in it."""
    if not isinstance(text, str):
        raise TypeError(f"argument 'text': expected str, not {type(text).__name__}")
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        text = lossy(text)
    p = Parser(format, tools, reasoning, reasoning_started, schemas, entry)
    p._push(text)
    p._end()
    x = extracted_from_events(p._out.take(), p.malformed, p.truncated)
    content, reasoning_text, calls, malformed, truncated = x
    if malformed or (truncated and not calls and not p._out.cut):
        rest = p._out.strip(text[min(p.machine_from or 0, len(text)) :])
        return (rest or None, reasoning_text, calls, malformed, truncated)
    return x


def replay(
    format: Optional[str],
    chunks: List[str],
    tools: Optional[ToolTypes] = None,
    reasoning: Optional[str] = None,
    reasoning_started: Optional[bool] = None,
    schemas: Optional[SchemaTrees] = None,
) -> Extracted:
    """Streams ``chunks`` one delta at a time and returns what a client would have
    reconstructed, in the shape of :func:`extract`."""
    p = Parser(format, tools, reasoning, reasoning_started, schemas)
    for c in chunks:
        p._push(c)
    p._end()
    return extracted_from_events(p._out.take(), p.malformed, p.truncated)


REGISTRY = _registry()


def _registered(spec: FormatSpec, _reasoning: Optional[ReasoningSpec]) -> None:
    """A format registered at run time (``toolparse.register_format``): its machine, built from
    its spec entry as the built-in ones are (replacing one of the same name)."""
    REGISTRY[spec.name] = (_machine(spec), spec.id_style)
