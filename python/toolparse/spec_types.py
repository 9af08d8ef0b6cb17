"""The typed model of the format files (``formats/<name>.json``, ``formats/_reasoning.json``):
one frozen dataclass per object the JSON Schema (``formats/_schema.json``) defines, read and
validated once, at import, by :func:`format_spec` and :func:`reasoning_spec`. A file that breaks
a rule of the schema (or one of the family rules ``rust/formats/config.rs`` also checks) raises a
``ValueError`` naming the file and the field. What each field means: ``formats/_about.md``."""

from __future__ import annotations

import re
from dataclasses import dataclass, fields
from typing import Any, Iterable, List, Mapping, Optional, Tuple

ID_STYLES = ("chatcmpl", "mistral", "model")
# when the vLLM integration keeps special tokens in the output text (``_about.md``)
KEEP_SPECIAL_TOKENS = ("always", "with_tools", "never")
FAMILIES = (
    "tagged_json",
    "xml_params",
    "pythonic",
    "named_json",
    "llama3_json",
    "openai",
    "functiongemma",
    "muse",
    "functionary",
    "xml_elements",
    "inkling",
)
SHAPES = (
    "object",
    "array",
    "list_or_name_then_args",
    "call_name_object",
    "id_sep_args",
    "name_sep_args",
    "python_call",
    "recipient",
    "recipient_messages",
    "recipient_xml_parameters",
    "tagged_header_args",
    "tagged_name_tagged_args",
    "type_sep_name_fenced_args",
    "xml_elements",
    "xml_parameters",
)
ARGUMENTS = (
    "json_object",
    "json_object_or_json_string",
    "python_literals",
    "xml_parameters_typed_by_schema",
    "xml_parameters_json_unless_schema_string",
    "xml_parameters_json_or_string",
    "xml_elements_typed_by_schema",
    "string_attribute_or_json",
    "functiongemma_values",
    "gemma4_values",
)
CALLS = ("repeated", "list", "separated", "list_or_repeated", "newline")
NAME = re.compile(r"[a-z0-9][a-z0-9_.-]*")  # a format's name or alias
ROLE = re.compile(r"[a-z][a-z0-9_]*")  # a marker's role
_REQUIRED: Any = object()  # a default that says the field must be given


class Fields:
    """One JSON object of a format file being read: its keys are checked against the ones the
    schema allows, and every read names the file and the field when the value breaks a rule."""

    def __init__(self, value: Any, where: str, allowed: Iterable[str]) -> None:
        if not isinstance(value, dict):
            raise ValueError(f"format spec: {where}: must be an object")
        unknown = sorted(set(value) - set(allowed))
        if unknown:
            raise ValueError(f"format spec: {where}: unknown field {unknown[0]!r}")
        self.d: Mapping[str, Any] = value
        self.where = where

    def error(self, key: str, rule: str) -> ValueError:
        return ValueError(f"format spec: {self.where}.{key}: {rule}")

    def has(self, key: str) -> bool:
        return key in self.d

    def _get(self, key: str, default: Any) -> Any:
        if key in self.d:
            return self.d[key]
        if default is _REQUIRED:
            raise self.error(key, "is required")
        return default

    def text(self, key: str, default: Any = None) -> Any:
        """A non-empty string (``default`` when absent; required when it is ``_REQUIRED``)."""
        v = self._get(key, default)
        if key in self.d and (not isinstance(v, str) or not v):
            raise self.error(key, "must be a non-empty string")
        return v

    def string(self, key: str, default: str = "") -> str:
        """Any string, the empty one included."""
        v = self._get(key, default)
        if not isinstance(v, str):
            raise self.error(key, "must be a string")
        return v

    def flag(self, key: str, default: bool = False) -> bool:
        v = self._get(key, default)
        if not isinstance(v, bool):
            raise self.error(key, "must be true or false")
        return v

    def choice(self, key: str, values: Tuple[str, ...], default: Any = None) -> Any:
        v = self._get(key, default)
        if key in self.d and v not in values:
            raise self.error(key, f"must be one of {', '.join(map(repr, values))}, not {v!r}")
        return v

    def strings(self, key: str, default: Any = (), texts: bool = False) -> Any:
        """A list of strings, as a tuple (``texts``: each non-empty)."""
        v = self._get(key, default)
        if key not in self.d:
            return v
        if not isinstance(v, list) or not all(isinstance(s, str) for s in v):
            raise self.error(key, "must be a list of strings")
        if texts and not all(v):
            raise self.error(key, "holds an empty string")
        return tuple(v)

    def texts_or_text(self, key: str) -> Tuple[str, ...]:
        """A string or a list of strings, as a tuple."""
        v = self._get(key, _REQUIRED)
        return (v,) if isinstance(v, str) else self.strings(key)  # type: ignore[no-any-return]

    def integer(self, key: str, minimum: int, default: Any = _REQUIRED) -> Any:
        v = self._get(key, default)
        if key in self.d and (not isinstance(v, int) or isinstance(v, bool) or v < minimum):
            raise self.error(key, f"must be an integer >= {minimum}")
        return v

    def obj(self, key: str, allowed: Iterable[str], required: bool = False) -> Optional[Fields]:
        if key not in self.d:
            if required:
                raise self.error(key, "is required")
            return None
        return Fields(self.d[key], f"{self.where}.{key}", allowed)


def _names(cls: type) -> List[str]:
    return [f.name for f in fields(cls)]


# ----- the call object -----


@dataclass(frozen=True)
class RawCode:
    """A functionary call that may carry raw code instead of JSON arguments."""

    name: str  # the function whose call may (``python``)
    key: str  # the argument key the code goes under (``code``)
    start: str  # "marker" (the marker call_start_raw) or "header" (a header naming it, no "{")


@dataclass(frozen=True)
class Recipients:
    """A muse format's recipients whose messages are reasoning, or content."""

    reasoning: Tuple[str, ...]
    content: Tuple[str, ...]


@dataclass(frozen=True)
class Call:
    """Where a call's name and arguments sit, and the family's switches (the entry's ``call``).
    Optional fields the spec leaves out are ``None`` where the family picks the default."""

    shape: str  # one of SHAPES
    # the keys of a JSON call object that hold the name / the arguments (None: not JSON)
    name_keys: Optional[Tuple[str, ...]] = None
    args_keys: Optional[Tuple[str, ...]] = None
    id_keys: Tuple[str, ...] = ()  # a key holding the call's own id (cohere's tool_call_id)
    tentative: bool = False  # a start marker prose may hold
    keyed_by_name: bool = False  # calls written {N: {...}} (apertus)
    name_prefix: Optional[str] = None  # what a recipient naming a function starts with
    value_newlines: Optional[str] = None  # "strip_one" | "keep" (XML parameter values)
    value_end_optional: bool = False  # a last value may lack parameter_end before function_end
    python_values: bool = False  # a typed XML value may be a Python literal ({'a': True})
    calls_per_section: Optional[str] = None  # "one" | "many"
    between_calls: str = "whitespace"  # "whitespace" | "dropped" (named_json sections)
    cdata: bool = False
    escaped: str = "typed"  # "typed" | "string" (functiongemma)
    key_spaces: bool = False
    unescape_attributes: bool = False
    section_required: bool = False
    role: Optional[str] = None  # muse: the role of the model's messages
    recipients: Optional[Recipients] = None  # muse
    doubled_names: Optional[str] = None  # "collapse"
    reasoning_join: str = "\n"  # "\n" | "": between the texts of two reasoning messages
    raw_code: Optional[RawCode] = None  # functionary
    bad_header: Optional[str] = None  # functionary: "text" | "malformed"
    content_recipient: Optional[str] = None  # functionary v3.2's "all"
    starts_with_header: bool = False  # functionary: the output begins at a header
    id_field: bool = False  # named_json: the header's first field is the call's id (Solar)


def _call(f: Fields) -> Call:
    rc = f.obj("raw_code", _names(RawCode))
    raw_code = None
    if rc is not None:
        start = rc.choice("start", ("marker", "header"), _REQUIRED)
        raw_code = RawCode(rc.text("name", _REQUIRED), rc.text("key", _REQUIRED), start)
    rs = f.obj("recipients", _names(Recipients))
    recipients = None
    if rs is not None:
        recipients = Recipients(
            rs.strings("reasoning", _REQUIRED), rs.strings("content", _REQUIRED)
        )
    return Call(
        shape=f.choice("shape", SHAPES, _REQUIRED),
        name_keys=f.strings("name_keys", None),
        args_keys=f.strings("args_keys", None),
        id_keys=f.strings("id_keys"),
        tentative=f.flag("tentative"),
        keyed_by_name=f.flag("keyed_by_name"),
        name_prefix=f.string("name_prefix") if f.has("name_prefix") else None,
        value_newlines=f.choice("value_newlines", ("strip_one", "keep")),
        value_end_optional=f.flag("value_end_optional"),
        python_values=f.flag("python_values"),
        calls_per_section=f.choice("calls_per_section", ("one", "many")),
        between_calls=f.choice("between_calls", ("whitespace", "dropped"), "whitespace"),
        cdata=f.flag("cdata"),
        escaped=f.choice("escaped", ("typed", "string"), "typed"),
        key_spaces=f.flag("key_spaces"),
        unescape_attributes=f.flag("unescape_attributes"),
        section_required=f.flag("section_required"),
        role=f.text("role"),
        recipients=recipients,
        doubled_names=f.choice("doubled_names", ("collapse",)),
        reasoning_join=f.choice("reasoning_join", ("", "\n"), "\n"),
        raw_code=raw_code,
        bad_header=f.choice("bad_header", ("text", "malformed")),
        content_recipient=f.text("content_recipient"),
        starts_with_header=f.flag("starts_with_header"),
        id_field=f.flag("id_field"),
    )


# ----- the grammar object -----


@dataclass(frozen=True)
class Message:
    """A kind of message the chat template writes: the headers that begin it, what ends it."""

    begin: Tuple[str, ...]
    end: Tuple[str, ...]


@dataclass(frozen=True)
class CallMessage:
    """A call message: its headers (``{name}`` stands for the function) and ends."""

    headers: Tuple[str, ...]
    end: Tuple[str, ...]


@dataclass(frozen=True)
class Messages:
    """A channel format's messages, as the strict-tool-calling grammar writes them."""

    separator: str  # what starts every message but the first
    call: CallMessage
    content: Message
    reasoning: Optional[Message] = None


def _message(f: Optional[Fields]) -> Optional[Message]:
    if f is None:
        return None
    return Message(f.texts_or_text("begin"), f.strings("end", _REQUIRED))


def _messages(f: Fields) -> Messages:
    call = f.obj("call", _names(CallMessage), required=True)
    content = _message(f.obj("content", _names(Message), required=True))
    assert call is not None and content is not None
    return Messages(
        separator=f.text("separator", _REQUIRED),
        call=CallMessage(
            call.strings("headers", _REQUIRED, texts=True), call.strings("end", _REQUIRED)
        ),
        content=content,
        reasoning=_message(f.obj("reasoning", _names(Message))),
    )


@dataclass(frozen=True)
class Grammar:
    """What the strict-tool-calling grammar needs beyond the markers (the entry's ``grammar``)."""

    trigger: Optional[str]  # the marker that tells a call from text (None: none does)
    # the kit's forms the parser reads but the chat template never writes
    parser_only_forms: Tuple[str, ...] = ()
    # the kit's forms a chat template writes that the grammar cannot admit: (form, why) pairs
    template_forms_not_admitted: Tuple[Tuple[str, str], ...] = ()
    messages: Optional[Messages] = None  # channel formats
    function_attrs: str = ""  # a regex of the attributes after a function's name
    # an element's closing tag repeats its key (a grammar cannot tie it without a schema)
    unbound_keys_without_schema: bool = False
    # what else may end a call besides its end marker ("": nothing, the marker being an
    # end-of-sequence token)
    call_ends: Tuple[str, ...] = ()
    # a call's parameters may come sorted by name as well as in schema order
    sorted_parameters: bool = False
    # literal spellings a pythonic template writes besides Python's (VALUE_FORMS)
    value_forms: Tuple[str, ...] = ()
    # the template may leave the last block open when the turn ends (required and named admit it)
    open_last_block: bool = False
    # the reasoning format whose think block the template writes before the calls: required and
    # named admit it (whole, empty, or only its end, the prompt having opened it) when no
    # reasoning format is given ("": none)
    optional_reasoning: str = ""
    # keys of a call id a template writes last in a JSON call object (Mistral Nemo's "id"), which
    # the parser passes over
    trailing_id_keys: Tuple[str, ...] = ()


# "json_literals": null/true/false; "raw_strings": quoted strings holding raw newlines;
# "json_objects": object values written as JSON; "nested_elements" (xml_elements): object and
# array values written as nested elements (xgrammar's minimax_m3_xml style); "python_booleans"
# (XML parameters): a boolean value written True/False, as Jinja prints Python's booleans
VALUE_FORMS = ("json_literals", "raw_strings", "json_objects", "nested_elements", "python_booleans")


def _form_reasons(f: Fields, key: str) -> Tuple[Tuple[str, str], ...]:
    """An object of form names, each with a non-empty reason, as (form, reason) pairs."""
    v = f.d.get(key, {})
    if not isinstance(v, dict) or not all(isinstance(r, str) and r for r in v.values()):
        raise f.error(key, "must be an object of form names, each with a non-empty reason")
    return tuple(v.items())


def _grammar(f: Fields) -> Grammar:
    if not f.has("trigger"):
        raise f.error("trigger", "is required (a marker, or null)")
    trigger = f.d["trigger"]
    if trigger is not None and (not isinstance(trigger, str) or not trigger):
        raise f.error("trigger", "must be a marker or null")
    messages = f.obj("messages", _names(Messages))
    return Grammar(
        trigger=trigger,
        parser_only_forms=f.strings("parser_only_forms"),
        template_forms_not_admitted=_form_reasons(f, "template_forms_not_admitted"),
        messages=_messages(messages) if messages is not None else None,
        function_attrs=f.string("function_attrs"),
        unbound_keys_without_schema=f.flag("unbound_keys_without_schema"),
        call_ends=f.strings("call_ends"),
        sorted_parameters=f.flag("sorted_parameters"),
        value_forms=_value_forms(f),
        open_last_block=f.flag("open_last_block"),
        optional_reasoning=f.text("optional_reasoning", ""),
        trailing_id_keys=f.strings("trailing_id_keys"),
    )


def _value_forms(f: Fields) -> Tuple[str, ...]:
    forms = f.strings("value_forms")
    for v in forms:
        if v not in VALUE_FORMS:
            raise f.error("value_forms", f"unknown form {v!r} (one of {', '.join(VALUE_FORMS)})")
    return forms


@dataclass(frozen=True)
class SpanMarkup:
    """A span whose tags are markup in content and reasoning (cohere's citations)."""

    open: str
    close_start: str
    close_end: str
    max: int  # the longest close, in characters


# ----- the rest of a format's file -----


@dataclass(frozen=True)
class Cases:
    """A format's hand-written outputs for the conformance kit (its file's ``cases``)."""

    # text that looks a little like the markup but holds no call: all of it is content
    no_call: Tuple[str, ...] = ()
    # malformed markup: no call, the text is content
    malformed: Tuple[str, ...] = ()
    # outputs that end inside a call, with how many calls completed before it
    truncated: Tuple[Tuple[str, int], ...] = ()


@dataclass(frozen=True)
class Peers:
    """The servers' own parser names for the same wire format (the file's ``peers``)."""

    sglang: Optional[str] = None  # SGLang's detector, which the SGLang plugin builds on


@dataclass(frozen=True)
class FormatSpec:
    """One format: its spec entry (what the Rust registry configures its machine from) and the
    rest of its file. Every field of the schema is an attribute; none is read as raw JSON."""

    name: str
    family: str  # one of FAMILIES: the machine that runs it
    id_style: str  # one of ID_STYLES: how ids are made for calls that carry none
    aliases: Tuple[str, ...]
    # role -> exact marker string (the roles are the family's; ``_about.md``)
    markers: Mapping[str, str]
    special_tokens: Tuple[str, ...]
    models: Tuple[str, ...]  # Hugging Face id patterns format_for_model matches
    call: Call = Call("object")
    arguments: str = "json_object"  # one of ARGUMENTS: how arguments are written
    calls: str = "repeated"  # one of CALLS: list or repeated calls
    content: str = ""  # what non-streaming returns as content (prose, for the docs)
    end_optional: bool = False  # the end marker may be missing at the end of the output
    grammar: Grammar = Grammar(None)
    keep_special_tokens: str = "never"  # one of KEEP_SPECIAL_TOKENS
    # False: no spaces between special tokens whenever they are kept (kimi_k3)
    spaces_between_special_tokens: bool = True
    # the end-of-turn tag the model may write ("": none): markup, dropped from content
    turn_end: str = ""
    # other markup the format never puts in content (cohere_command4's "<|START_RESPONSE|>"):
    # dropped
    dropped: Tuple[str, ...] = ()
    # spans whose tags are markup (cohere's citations)
    span_markup: Optional[SpanMarkup] = None
    # the reasoning format that runs with this format when none is given ("": none)
    default_reasoning: str = ""
    # the special tokens may carry a per-checkpoint suffix (``<tool_call:opensource>``):
    # toolparse.with_token_suffix derives and registers the suffixed variant
    token_suffix: bool = False
    # the rest of the format's file: real checkpoint ids format_for_model maps to it, the
    # servers' own parser names for the same wire format, sample outputs (what
    # `toolparse demo` runs), hand-written test cases, the notes of the formats page ("": none)
    model_ids: Tuple[str, ...] = ()
    peers: Peers = Peers()
    samples: Tuple[str, ...] = ()
    cases: Cases = Cases()
    notes: str = ""

    def marker(self, role: str) -> Optional[str]:
        return self.markers.get(role)

    def call_starts(self) -> Tuple[str, ...]:
        """The markers that begin calls (the roles ``call_start*`` and ``section_start*``): the end
        of the output after only these and whitespace is a cut before a call began."""
        return tuple(
            m for r, m in self.markers.items() if r.startswith(("call_start", "section_start"))
        )


ENTRY_FIELDS = (
    *(
        f
        for f in _names(FormatSpec)
        if f not in ("model_ids", "peers", "samples", "cases", "notes")
    ),
)
FILE_FIELDS = ("spec", "model_ids", "peers", "samples", "cases", "notes")


def _name(f: Fields, key: str) -> str:
    name = f.text(key, _REQUIRED)
    if not NAME.fullmatch(name):
        raise f.error(key, f"{name!r} is not a name (lower case, digits, '_', '.', '-')")
    return name  # type: ignore[no-any-return]


def _aliases(f: Fields) -> Tuple[str, ...]:
    aliases: Tuple[str, ...] = f.strings("aliases", _REQUIRED)
    for a in aliases:
        if not NAME.fullmatch(a):
            raise f.error("aliases", f"{a!r} is not a name (lower case, digits, '_', '.', '-')")
    return aliases


def _markers(f: Fields) -> Mapping[str, str]:
    markers = f.d.get("markers")
    if not isinstance(markers, dict) or not all(
        isinstance(k, str) and isinstance(v, str) for k, v in markers.items()
    ):
        raise f.error("markers", "must map roles to strings")
    bad = [r for r in markers if not ROLE.fullmatch(r)]
    if bad:
        raise f.error("markers", f"{bad[0]!r} is not a role (lower case, digits, '_')")
    family = f.d.get("family")
    if family == "tagged_json" and "call_start" not in markers:
        raise f.error("markers", "a tagged_json format needs a call_start")
    if family == "pythonic" and not {"section_start", "list_start"} & set(markers):
        raise f.error("markers", "a pythonic format needs a section or list start")
    if family == "functionary":
        for role in ("call_start", "name_end"):
            if not markers.get(role):
                raise f.error("markers", f"a functionary format needs a {role}")
    return dict(markers)


def _check_functionary(f: Fields, call: Call, markers: Mapping[str, str]) -> None:
    """A functionary format's ``call`` fields (``rust/formats/config.rs`` checks the same)."""
    # no raw_code: no function's call carries raw code (an inferred format)
    raw = call.raw_code
    if raw is None and "call_start_raw" in markers:
        raise f.error("markers", "the marker call_start_raw needs call.raw_code")
    if raw is not None and raw.start == "marker" and "call_start_raw" not in markers:
        raise f.error("call.raw_code.start", "'marker' needs the marker call_start_raw")
    if call.bad_header is None:
        raise f.error("call.bad_header", "a functionary format needs it ('text' or 'malformed')")


def _span_markup(f: Optional[Fields]) -> Optional[SpanMarkup]:
    if f is None:
        return None
    return SpanMarkup(
        open=f.text("open", _REQUIRED),
        close_start=f.text("close_start", _REQUIRED),
        close_end=f.text("close_end", _REQUIRED),
        max=f.integer("max", 1),
    )


def _file_fields(doc: Mapping[str, Any], file: str) -> Mapping[str, Any]:
    """The fields of a format's file beside its spec entry."""
    f = Fields(dict(doc), file, FILE_FIELDS)
    model_ids = f.strings("model_ids")
    if not all("/" in m for m in model_ids):
        raise f.error("model_ids", "must be Hugging Face ids (organisation/name)")
    samples = f.strings("samples")
    if not all(s.strip() for s in samples):
        raise f.error("samples", "holds a blank sample")
    peers = f.obj("peers", _names(Peers))
    c = f.obj("cases", _names(Cases))
    cases = Cases()
    if c is not None:
        truncated = c.d.get("truncated", [])
        if not isinstance(truncated, list) or not all(
            isinstance(t, list)
            and len(t) == 2
            and isinstance(t[0], str)
            and isinstance(t[1], int)
            and not isinstance(t[1], bool)
            and t[1] >= 0
            for t in truncated
        ):
            raise c.error("truncated", "must list [text, completed calls] pairs")
        cases = Cases(
            c.strings("no_call"), c.strings("malformed"), tuple((t, n) for t, n in truncated)
        )
    return {
        "model_ids": model_ids,
        "peers": Peers(peers.text("sglang")) if peers is not None else Peers(),
        "samples": samples,
        "cases": cases,
        "notes": f.text("notes", ""),
    }


def format_spec(entry: Any, doc: Optional[Mapping[str, Any]], where: str) -> FormatSpec:
    """Reads and validates one spec entry (``where``: the file, ``hermes.json: spec``) and the
    rest of its file (``doc``; None: an entry alone, with no samples or cases)."""
    f = Fields(entry, where, ENTRY_FIELDS)
    name = _name(f, "name")
    family = f.choice("family", FAMILIES, _REQUIRED)
    markers = _markers(f)
    call_fields = f.obj("call", _names(Call), required=True)
    grammar = f.obj("grammar", _names(Grammar), required=True)
    assert call_fields is not None and grammar is not None
    call = _call(call_fields)
    if family == "functionary":
        _check_functionary(f, call, markers)
    if call.id_field and (family != "named_json" or "name_start" not in markers):
        raise f.error("call.id_field", "a named_json format with the marker name_start only")
    special_tokens = f.strings("special_tokens", _REQUIRED, texts=True)
    keep = "with_tools" if special_tokens else "never"
    spaces = f.d.get("spaces_between_special_tokens", True)
    if spaces is not True and spaces is not False:
        raise f.error("spaces_between_special_tokens", "must be false when given")
    file = where.split(":", 1)[0]
    return FormatSpec(
        name=name,
        family=family,
        id_style=f.choice("id_style", ID_STYLES, _REQUIRED),
        aliases=_aliases(f),
        markers=markers,
        special_tokens=special_tokens,
        models=f.strings("models", _REQUIRED, texts=True),
        call=call,
        arguments=f.choice("arguments", ARGUMENTS, _REQUIRED),
        calls=f.choice("calls", CALLS, _REQUIRED),
        content=f.text("content", _REQUIRED),
        end_optional=f.flag("end_optional"),
        grammar=_grammar(grammar),
        keep_special_tokens=f.choice("keep_special_tokens", KEEP_SPECIAL_TOKENS, keep),
        spaces_between_special_tokens=spaces,
        turn_end=f.text("turn_end", ""),
        dropped=f.strings("dropped", texts=True),
        span_markup=_span_markup(f.obj("span_markup", _names(SpanMarkup))),
        default_reasoning=f.text("default_reasoning", ""),
        token_suffix=f.flag("token_suffix"),
        **(_file_fields(doc, file) if doc is not None else {}),
    )


# ----- reasoning formats -----


@dataclass(frozen=True)
class ReasoningSpec:
    """One reasoning format's entry (``_reasoning.json``; ``_about.md``): its think-block markers,
    or the tool format whose machine separates the reasoning itself (``tool_format``)."""

    name: str
    aliases: Tuple[str, ...]
    start: str  # "": a tool_format entry
    end: str
    started: bool  # the prompt opens the block by default
    call_ends_block: bool  # a call-start marker inside an open block ends it
    call_starts: Tuple[str, ...]  # those markers when no tool format is paired
    tool_format: Optional[str]
    also_start: Tuple[str, ...] = ()
    also_end: Tuple[str, ...] = ()
    trim: bool = False
    content_prefix: str = ""
    end_token: str = ""  # the token text that ends a reasoning message (SGLang's)
    end_token_id: Optional[int] = None
    # the end-of-turn tag ("": none): it ends a block and is dropped from content in every state
    turn_end: str = ""
    # with thinking disabled (not started) the markers are off: no front, a block is content
    markers_off_when_disabled: bool = False
    # the end of the content wrapper the end marker opens ("": none): dropped from content
    content_end: str = ""
    # the characters dropped from the start of the content after the end marker ("": none)
    content_lstrip: str = ""
    # the label a block may begin with ("": none): the label and a newline, or the label as the
    # whole block, at the start of a block are markup
    label: str = ""
    # other markup the format never puts in content (kimi_k3's "<|close|>response<|sep|>"):
    # dropped from content in every state while it runs
    dropped: Tuple[str, ...] = ()
    # an end marker outside a block is text, except where it leads the output (after whitespace):
    # there it is markup, dropped (minimax_m3's stray closer)
    stray_end_text: bool = False
    # a start marker opens a block wherever it stands in the content (gemma4's channel)
    blocks_anywhere: bool = False
    # spans whose tags are markup in content and reasoning, when the tool format names none
    span_markup: Optional[SpanMarkup] = None
    # the markers may carry a per-checkpoint suffix, as on a format (toolparse.with_token_suffix)
    token_suffix: bool = False

    @property
    def starts(self) -> Tuple[str, ...]:
        """The markers that open a block: ``start`` and its alternates."""
        return (self.start, *self.also_start)

    @property
    def ends(self) -> Tuple[str, ...]:
        """The markers that end a block: ``end``, its alternates and the turn-end tag."""
        ends = (self.end, *self.also_end)
        if self.turn_end and self.turn_end not in ends:
            ends = (*ends, self.turn_end)
        return ends

    def scan(self, format: Optional[FormatSpec]) -> Tuple[str, ...]:
        """What the front scans for inside a block when paired with ``format`` (None: no tool
        format): ``(ends..., starts..., call starts...)``, as ``rust/formats/registry.rs``
        works it out."""
        calls: List[str] = []
        if self.call_ends_block:
            if format is None:
                calls = list(self.call_starts)
            else:
                roles = ("call_start", "section_start", "function_start")
                calls = [m for r in roles if (m := format.marker(r))]
        out = [*self.ends, *self.starts]
        for c in calls:
            if c and c not in out:
                out.append(c)
        return tuple(out)


REASONING_FIELDS = (*_names(ReasoningSpec), "unclosed")
_MARKER_FIELDS = ("start", "end", "started", "call_starts", "unclosed", "call_ends_block")


def reasoning_spec(e: Any, where: str, formats: Iterable[str]) -> ReasoningSpec:
    """Reads and validates one entry of ``_reasoning.json`` (``where``: ``_reasoning.json: entry
    3``); ``formats``: the tool formats' names, which ``tool_format`` must be one of."""
    f = Fields(e, where, REASONING_FIELDS)
    name = _name(f, "name")
    f.where = f"{where} ({name})"
    end_token = f.text("end_token", f.d.get("end", ""))
    if not end_token:
        raise f.error("end_token", "(by default 'end') must be a non-empty string")
    common = {
        "name": name,
        "aliases": _aliases(f),
        "end_token": end_token,
        "end_token_id": f.integer("end_token_id", -(2**63), None),
    }
    tool_format = f.text("tool_format")
    if tool_format is not None:
        if tool_format not in formats:
            raise f.error("tool_format", f"unknown tool format {tool_format!r}")
        given = [k for k in _MARKER_FIELDS if f.has(k)]
        if given:
            raise f.error(given[0], "a tool_format entry has no markers")
        return ReasoningSpec(
            start="", end="", started=False, call_ends_block=False, call_starts=(),
            tool_format=tool_format, **common,
        )  # fmt: skip
    if f.choice("unclosed", ("reasoning",), _REQUIRED) != "reasoning":
        raise f.error("unclosed", "must be 'reasoning'")
    return ReasoningSpec(
        start=f.text("start", _REQUIRED),
        end=f.text("end", _REQUIRED),
        started=f.flag("started", _REQUIRED),
        call_ends_block=f.flag("call_ends_block", _REQUIRED),
        call_starts=f.strings("call_starts", _REQUIRED),
        tool_format=None,
        also_start=f.strings("also_start", texts=True),
        also_end=f.strings("also_end", texts=True),
        trim=f.flag("trim"),
        content_prefix=f.string("content_prefix"),
        turn_end=f.text("turn_end", ""),
        markers_off_when_disabled=f.flag("markers_off_when_disabled"),
        content_end=f.text("content_end", ""),
        content_lstrip=f.text("content_lstrip", ""),
        label=f.text("label", ""),
        dropped=f.strings("dropped", texts=True),
        stray_end_text=f.flag("stray_end_text"),
        blocks_anywhere=f.flag("blocks_anywhere"),
        span_markup=_span_markup(f.obj("span_markup", _names(SpanMarkup))),
        token_suffix=f.flag("token_suffix"),
        **common,
    )


__all__ = [
    "ARGUMENTS",
    "CALLS",
    "FAMILIES",
    "ID_STYLES",
    "KEEP_SPECIAL_TOKENS",
    "SHAPES",
    "Call",
    "CallMessage",
    "Cases",
    "FormatSpec",
    "Grammar",
    "Message",
    "Messages",
    "Peers",
    "RawCode",
    "ReasoningSpec",
    "Recipients",
    "SpanMarkup",
    "format_spec",
    "reasoning_spec",
]
