//! XML-parameter tool calls: one machine for the formats that write a call as a function tag
//! holding one tag per parameter, configured by a [`Style`] that `formats::config` builds from the
//! format's spec entry (`python/toolparse/formats/<name>.json`). Qwen3-Coder is the model:
//!
//! ```text
//! <tool_call>
//! <function=NAME>
//! <parameter=KEY>
//! VALUE
//! </parameter>
//! </function>
//! </tool_call>
//! ```
//!
//! and the others differ only in their markers and in a few switches of the style:
//! - `seed_oss`: `<seed:tool_call>` / `</seed:tool_call>` around the same function;
//! - `minimax_m2`: `<minimax:tool_call>` around several `<invoke name="N">` ... `</invoke>`, each
//!   holding `<parameter name="K">V</parameter>`;
//! - glm45 / glm47: `<tool_call>N` (the name ends at a newline or at the first `<`), then
//!   `<arg_key>K</arg_key>` (whitespace) `<arg_value>V</arg_value>`, then `</tool_call>`;
//! - step3: `<｜tool_calls_begin｜>` around several
//!   `<｜tool_call_begin｜>function<｜tool_sep｜><steptml:invoke name="N">` ... `</steptml:invoke>`
//!   each followed by `<｜tool_call_end｜>`, parameters `<steptml:parameter name="K">V</steptml:parameter>`;
//! - `deepseek_v32` (DSML): `<｜DSML｜function_calls>` around several `<｜DSML｜invoke name="N">` ...
//!   `</｜DSML｜invoke>`, parameters `<｜DSML｜parameter name="K" string="true|false">V</｜DSML｜parameter>`:
//!   `string="true"` makes V a string, `string="false"` (or no attribute) JSON (text that is not
//!   JSON stays a string); the tool schema is not consulted (as in vLLM). `deepseek_v4` wraps the
//!   same in `<｜DSML｜tool_calls>` (or the spellings `<｜DSML｜toolcalls>`, `<｜DSML｜tool>`: the
//!   spec's `call_start_2`, `call_start_3`), `deepseek_v41` writes `<｜DSML｜ calls>`,
//!   `<｜DSML｜ invoke name="N">`, ... with a space;
//! - `qwen3_xml`, step3p5, step5: `qwen3_coder`'s markers; mimo: the same, values kept verbatim;
//! - `poolside_v1`: glm45's; `hy_v4`: glm47's in `<tool_calls>` ... `</tool_calls>`; `hy_v3`: the same
//!   with the name ended by `<tool_sep>` (a tag as `function_name_end`);
//! - `k2_horizon`: glm45's layout with `<ifm|...>` tags in `<ifm|tool_calls>`, and an optional
//!   value type `<ifm|arg_type>T</ifm|arg_type>` before `<ifm|arg_value>` (the spec's
//!   `value_type_start` / `value_type_end`): T (its text before any `[`, trimmed, lower case)
//!   picks its type out of a union schema that admits it, and types a parameter the schema does
//!   not know (`any`: a string); a single-type schema decides alone (vLLM's rule). A key is
//!   written when its value opens, so a type can still change its kind; a type longer than
//!   [`NAME_MAX`] characters is malformed.
//!
//! - `kimi_k3` (XTML): `<|open|>tools<|sep|>` around several
//!   `<|open|>call tool="N" index="I"<|sep|>` ... `<|close|>call<|sep|>`, parameters
//!   `<|open|>argument key="K" type="T"<|sep|>V<|close|>argument<|sep|>`: the name ends at its
//!   `"`, the other attributes are skipped up to `<|sep|>` (the spec's `function_attrs_end`; at
//!   most [`NAME_MAX`] characters without `<`, else malformed); `type="string"` (or no type)
//!   makes V a string, the JSON types JSON (text that is not JSON stays a string), any other
//!   type is malformed; names and keys are attribute-escaped (`&quot;`, `&amp;`, the spec's
//!   `call.unescape_attributes`); the content's channel markers `<|open|>response<|sep|>`,
//!   `<|close|>response<|sep|>` and `<|close|>message<|sep|>` (roles `text_start`, `text_end`,
//!   `text_end_2`) are markup, dropped wherever they stand in the text; a call starts only
//!   inside `<|open|>tools<|sep|>` (`call.section_required`, as both peers).
//!
//! A bare function (without the section wrapper) starts a call too, unless the section is
//! required. Arguments are written like
//! `json.dumps(obj, ensure_ascii=False)`, keys in the order they appear, values typed by the
//! tool's schema ([`crate::params`]).
//!
//! Streaming: the call starts at the end of the function name and `{` is sent with it; a
//! string-typed value is sent character by character as it arrives (only a possible end marker,
//! which includes the stripped trailing newline, and what must follow it, is held back); a typed
//! value is kept in the state and sent once its parameter closes; `}` is sent at the function end.
//! A parameter whose schema admits a string and another type (`["string", "null"]`, `anyOf
//! [integer, string]`) cannot be typed before its value is complete, so it is kept whole until
//! its parameter closes, like a typed value: that hold is not bounded (the value's length), which
//! we accept only because the peers do the same; a value of a single string type streams.
//!
//! Decisions on the loose points of the format (following vLLM's Qwen3 parser where it is
//! well-defined), written for `qwen3_coder`'s markers (each format has its own):
//! - styles that strip newlines (`value_newlines: "strip_one"`: `qwen3_coder`, `seed_oss`,
//!   `minimax_m2`, ...) strip one leading and one trailing newline of a value (only one each);
//!   the others (glm, DSML, step3: `"keep"`) keep a value verbatim, as vLLM does for glm and
//!   DSML (its step3 parser strips all whitespace; we keep what the model wrote, a trailing
//!   newline in code being part of the value);
//! - (the spec's `call.python_values`: `seed_oss`, minicpm5) a typed value that is not JSON but a Python literal whose value is an
//!   object or array the schema admits (`{'units': 'metric', 'alerts': True}`, as the Seed-OSS
//!   and `MiniCPM5` templates write one with Jinja's `{{ value }}`) is read as that value;
//! - a value may contain its own closing tag (a file being written that holds `</parameter>`):
//!   a `</parameter>` closes the value only when what follows it, after at most [`WS_CAP`] bytes
//!   of whitespace, is `<parameter=`, `</function>`, `</tool_call>` (a missing `</function>`, as
//!   between parameters) or the end of the output; otherwise its text is part of the value. The
//!   same holds for the implicit end `\n</function>` (below), which closes only before
//!   `</tool_call>` or the end of the output. Until that is decided the tag, the whitespace and a
//!   possible prefix of what follows are held back (at most 13 + 64 + 11 bytes); a longer run of
//!   whitespace makes the tag part of the value. At the end of the output a held tag closes the
//!   value, also when the start of the markup after it was cut off (and the call is then cut off
//!   if `</function>` never came), so what was streamed stays a prefix of the likely whole;
//! - (newline-stripping styles) a missing `</parameter>` is tolerated when the next
//!   `\n<parameter=` or `\n</function>` arrives (at the start of a line, as vLLM requires of an
//!   implicit end); `\n<parameter=` always ends a value, so a value cannot contain it literally;
//! - (glm47, the spec's `call.value_end_optional`) a missing `</arg_value>` is tolerated in the
//!   last value when `</tool_call>` arrives: it closes the value and the call when what follows
//!   it, after at most [`WS_CAP`] bytes of whitespace, is the next `<tool_call>` or the end of
//!   the output (else it is value text);
//! - a missing `</function>` is tolerated when `</tool_call>` arrives; a missing `</tool_call>` is
//!   tolerated (the call is complete at `</function>`);
//! - end of text inside a function (between parameters, in a parameter name or value) is
//!   truncation: the call is cut off (never reported complete), so the arguments streamed for a
//!   truncated text are always a prefix of those of the whole text;
//! - `<tool_call>` not followed by `<function=`, and `<function=` whose name is empty or holds
//!   whitespace, quotes, `<`, `{` or `}` (vLLM's name rule), are not calls: their text is content;
//!   end of text inside them is truncated markup;
//! - other text between parameters, or `<`/newline inside a parameter name, after the call
//!   started is malformed: the rest is content;
//! - a parameter named twice is written twice (`json.loads` keeps the last value, like vLLM);
//! - step3's function start may lack `function<｜tool_sep｜>` (the spec's `function_start_alt`),
//!   or repeat the name after it, `<｜tool_call_begin｜>function<｜tool_sep｜>NAME\n<steptml:invoke
//!   name="NAME">` (the spec's `function_lead`: after it, up to the rest of the function start,
//!   at most [`NAME_MAX`] characters without `<` are markup, not checked against the name, as
//!   the peers skip them; anything else and the markup is content); a `<｜tool_sep｜>` between
//!   calls (the spec's `call_sep`) is markup;
//! - dots: a section may hold one JSON call object instead of functions,
//!   `<dots_function_call>{"name": N, "arguments": {...}}</dots_function_call>` (the spec's
//!   `call.name_keys` and `call.args_keys`, as SGLang's dots detector reads it): read like
//!   `tagged_json`'s bodies (arguments streamed as written, a JSON object), then the section end;
//!   JSON there that is not a call object is malformed;
//! - formats whose section holds several calls (`minimax_m2`, step3, DSML; glm's calls follow each
//!   other) accept the next function start after a function end (whitespace between is markup).

use super::between::{after_call, finish_after_call, settle, text_until, After, Moved, Next};
use super::region::{Region, RegionStep};
use super::{Machine, Tools};
use crate::event::Emitter;
use crate::json::{is_blank, CallKeys, Calls};
use crate::params::{self, Kind};
use crate::scan::{expect, expect_capped, trailing_ws, Expect, Found, Markers, NAME_MAX, WS_MAX};

/// The longest run of whitespace allowed between a closing tag inside a value and what confirms
/// it; a longer run makes the tag part of the value (bounds what is held back).
pub const WS_CAP: usize = 64;

/// How a function name ends.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NameEnd {
    /// At a tag (consumed) that starts with one of the [`NAME_STOPS`]: `>` (`<function=N>`),
    /// `">` (`<invoke name="N">`), `hy_v3`'s `<tool_sep>`.
    Tag(&'static str),
    /// At a newline (consumed) or the `<` of the next markup (glm's `<tool_call>N\n`).
    Line,
}

/// A format's markers and switches (built at run time from the spec entry by `formats::config`).
#[derive(Debug)]
pub struct Style {
    /// Plain text: where a call starts (`[call_start, call_start_2.., function_start..]`, or
    /// `[function_start..]` when the format has no section wrapper, or `[call_start..]` when the
    /// spec's `call.section_required` holds), then the content's wrappers.
    pub text: Markers,
    /// How many of `text.list` are section starts (the spellings of the wrapper; 0: none).
    pub sections: usize,
    /// After the section start: `[function_start, function_start_alt?]` (the spellings of a
    /// function start).
    pub function: Markers,
    pub name_end: NameEnd,
    /// What ends a function name and the call at once (`deepseek_v4`'s `"/>` for a call without
    /// arguments), if anything.
    pub self_close: Option<&'static str>,
    /// Between parameters: `[parameter_start, function_end, call_end?]`; also what must follow a
    /// parameter's closing tag for it to close the value.
    pub body: Markers,
    /// Whether a parameter name ends at a `"` (`<parameter name="K">`).
    pub quoted: bool,
    /// What ends a parameter name (`>`, `">`, `</arg_key>`; DSML: `" string="true">`,
    /// `" string="false">`, `">`).
    pub heads: Markers,
    /// DSML: the head decides the value's kind (the first [`Style::strings`]: a string; the
    /// others: JSON).
    pub string_attr: bool,
    /// How many of `heads` make a string when `string_attr` holds (DSML: 1).
    pub strings: usize,
    /// `kimi_k3`: what ends the function's other attributes after its name (`<|sep|>`), if any.
    pub attrs_end: Option<Markers>,
    /// How many of the last of `text.list` are content wrappers (markup, dropped).
    pub wrappers: usize,
    /// Names and keys are attribute-escaped (`&quot;`, `&amp;`).
    pub unescape: bool,
    /// What opens a value after its head, after whitespace (glm's `<arg_value>`), then
    /// `k2_horizon`'s `<ifm|arg_type>` that may come before it.
    pub value_start: Option<Markers>,
    /// What ends the value-type element (`</ifm|arg_type>`), if the format has one.
    pub value_type_end: Option<Markers>,
    /// Inside a value: its ends. Newline-stripping styles: `[parameter_end, \n parameter_end,
    /// \n parameter_start, \n function_end]` (a newline right before an end marker is the
    /// stripped trailing one); others: `[parameter_end]`, or `[parameter_end, function_end]`
    /// where a last value may lack its end (glm47, the spec's `call.value_end_optional`). See
    /// [`Style::value_role`].
    pub value: Markers,
    /// One leading and one trailing newline of a value are stripped.
    pub strip: bool,
    /// What must follow a (`\n`) `function_end` inside a value for it to close the value and the
    /// call: the section end (newline-stripping styles without a section: the function end);
    /// without a section, the next function start. The end of the output closes it too.
    pub after_function: Markers,
    /// After the function end: `[call_end?, item_end?, function_start?]` (`function_start` for the
    /// formats whose calls follow each other); if empty, plain text follows.
    pub end: Markers,
    /// step3's `<｜tool_call_end｜>` after each function, if any.
    pub item_end: Option<&'static str>,
    /// Markup that may stand between calls (step3's `<｜tool_sep｜>`), if any: dropped.
    pub call_sep: Option<&'static str>,
    /// The start of the function start after which the function's name may stand repeated
    /// (step3's `<｜tool_call_begin｜>function<｜tool_sep｜>`, the spec's `function_lead`); it is
    /// the last of [`Style::function`].
    pub lead: Option<&'static str>,
    /// The rest of the function start after [`Style::lead`] (`<steptml:invoke name="`).
    pub lead_tag: Option<Markers>,
    /// The keys of a JSON call object a section may hold instead of functions (dots:
    /// `<dots_function_call>{"name": N, "arguments": {...}}</dots_function_call>`; the spec's
    /// `call.name_keys` and `call.args_keys`), if the format has one.
    pub json: Option<CallKeys>,
    /// How a value is typed (where the head does not say: `string_attr`).
    pub typing: Typing,
    /// A function name written twice (`f.f`, as muse's template invites for a bare tool name)
    /// is the tool's name `f` when `f` is a tool and `f.f` is not (vLLM's rule).
    pub doubled_names: bool,
    /// A value that begins with `<![CDATA[` is unwrapped: the text up to `]]>` is the value as
    /// written (end markers in it included), as vLLM's minicpm5 parser reads it (the spec's
    /// `call.cdata`).
    pub cdata: bool,
    /// A typed value that is not JSON may be a Python literal: where the schema admits an
    /// object or array, one written in Python (`{'units': 'metric', 'alerts': True}`, as the
    /// Seed-OSS and `MiniCPM5` chat templates write it with Jinja's `{{ value }}`) is read as that
    /// value (the spec's `call.python_values`; vLLM's minicpm5 parser falls back to
    /// `ast.literal_eval` too).
    pub python_values: bool,
}

/// What an end marker of a value (one of [`Style::value`]) ends.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ValueEnd {
    /// The parameter (`</parameter>`, `\n</parameter>`).
    Param,
    /// The parameter, whose end is missing, as the next one starts (`\n<parameter=`).
    NextParam,
    /// The parameter, whose end is missing, and the function (`\n</function>`, glm47's
    /// `</tool_call>`).
    Function,
}

impl Style {
    /// What end marker `which` of [`Style::value`] ends.
    pub(crate) fn value_role(&self, which: usize) -> ValueEnd {
        match (self.strip, which) {
            (_, 0) | (true, 1) => ValueEnd::Param,
            (true, 2) => ValueEnd::NextParam,
            _ => ValueEnd::Function,
        }
    }
}

/// How a value is typed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Typing {
    /// By the tool's schema ([`crate::params`]).
    Schema,
    /// JSON if it parses, else the raw text as a string (`muse_glimmer`).
    Json,
    /// A string where the tool's schema types the parameter as one, else as `Json` (muse).
    JsonUnlessString,
}

pub fn new(style: &'static Style, tools: &Tools) -> Box<dyn Machine> {
    Box::new(XmlParams::new(style, tools))
}

#[derive(Debug)]
enum State {
    /// Plain text, looking for a section start or a function start.
    Text,
    /// After the section start: whitespace, then the function start. `raw` is the markup read
    /// so far (content if no call follows).
    Wrapper { raw: String },
    /// After the section start: a JSON call object (the style's `json`), its call streamed as
    /// it comes.
    Json(Region),
    /// After the style's `lead`: the repeated name (markup, `n` characters so far, no `<`),
    /// then the rest of the function start. `raw` is the markup read so far (content if no call
    /// follows).
    Lead { raw: String, n: usize },
    /// Reading the function name; `raw[at..]` is the name so far.
    Name { raw: String, at: usize },
    /// After the function name (the call started): its other attributes, `n` characters so
    /// far, up to the style's `attrs_end`.
    Attrs { n: usize },
    /// Inside the function, between parameters.
    Body,
    /// Reading a parameter name.
    Param { name: String },
    /// After a parameter's head: whitespace, then the value start (glm's `<arg_value>`) or a
    /// value type; the key is written when the value opens (a type may change its kind).
    Open { name: String, kind: Kind },
    /// Reading a value type (`<ifm|arg_type>T</ifm|arg_type>`) of parameter `name`.
    Type { name: String, ty: String },
    /// Inside a value.
    Value(Value),
    /// After the function end: whitespace, then the optional section end (or the next function,
    /// or step3's item end). `ws`: the whitespace read, content if other text follows.
    After { ws: String },
    /// After malformed markup: everything is content.
    Fallback,
}

/// What a transition did: the step's [`Next`] and, when the state changes, the new state. A
/// transition reads `rest`, the input from where the step starts; its positions are offsets in
/// `rest`.
type Outcome = Moved<State>;

/// Read up to `n`, in the same state.
fn stay(n: usize) -> Outcome {
    (Next::Go(n), None)
}

/// Read up to `n`, then in state `st`.
fn go(n: usize, st: State) -> Outcome {
    (Next::Go(n), Some(st))
}

/// Nothing more to decide now: `rest[n..]` is held back.
fn hold(n: usize) -> Outcome {
    (Next::Hold(n), None)
}

/// Malformed markup at `n`: the rest is content.
fn fallback(n: usize, out: &mut Emitter) -> Outcome {
    out.malformed = true;
    go(n, State::Fallback)
}

/// The text before the next of `markers` in `rest`: its length and, if a marker follows, the
/// offset past it.
fn until(markers: &Markers, rest: &str) -> (usize, Option<usize>) {
    match markers.find(rest) {
        Found::Marker { at, which } => (at, Some(at + markers.list[which].len())),
        Found::Partial { safe } => (safe, None),
    }
}

pub struct XmlParams {
    st: State,
    call: Call,
}

/// What the transitions read besides the state: the style, the tools and the current call.
struct Call {
    style: &'static Style,
    tools: Tools,
    /// The current call's function name.
    func: String,
    /// Parameters written in the current call.
    params: usize,
    /// The end of the output was reached (`finish`): a held closing tag is decided by it.
    eof: bool,
}

impl XmlParams {
    pub fn new(style: &'static Style, tools: &Tools) -> XmlParams {
        XmlParams {
            st: State::Text,
            call: Call {
                style,
                tools: tools.clone(),
                func: String::new(),
                params: 0,
                eof: false,
            },
        }
    }

    /// Starts a call of `name` whose parameters follow at once (beam: the function name is the
    /// recipient of the enclosing message, whose body holds only the parameters).
    pub fn open(&mut self, name: &str, out: &mut Emitter) {
        self.call.start(name, out);
        self.st = State::Body;
    }

    /// The enclosing message ends after `rest` (the text this machine held back): closes the
    /// call when it stands between parameters (a held closing tag is decided by the end);
    /// false when the call is cut off inside a parameter (its state then says how).
    pub fn end_function(&mut self, rest: &str, out: &mut Emitter) -> bool {
        self.call.eof = true;
        if !rest.is_empty() {
            let n = self.feed(rest, out);
            if !matches!(self.st, State::Body) || n < rest.len() {
                return false;
            }
        }
        if !matches!(self.st, State::Body) {
            return false;
        }
        Call::close(out);
        self.st = State::Text;
        true
    }

    /// Whether no call is open or being read (between calls, or in plain text): the text can
    /// end here.
    pub fn idle(&self) -> bool {
        matches!(self.st, State::Text | State::After { .. })
    }
}

impl Call {
    /// Starts the call of function `name` (as written): `{` goes with its start.
    fn start(&mut self, name: &str, out: &mut Emitter) {
        self.func = tool_name(self.style, &self.tools, name);
        self.params = 0;
        out.tool_start(None, self.func.clone());
        out.args("{");
    }

    /// Closes the current call's arguments and the call.
    fn close(out: &mut Emitter) {
        out.args("}");
        out.tool_end();
    }

    /// The kind of parameter `name` written with the value type `ty` (`k2_horizon`, as vLLM):
    /// the type picks one of the types of a union schema that admits it; a parameter the schema
    /// does not know takes the type's kind (`any`: a string); otherwise the schema decides.
    /// The type's base is its text before any `[` (`array[string]`), trimmed, in lower case.
    fn typed_kind(&self, name: &str, ty: &str) -> Kind {
        let base = ty.split('[').next().unwrap_or_default();
        let base = base
            .trim_matches(|c: char| c.is_ascii_whitespace())
            .to_ascii_lowercase();
        let schema = self
            .tools
            .functions
            .get(&self.func)
            .and_then(|p| p.get(name));
        match schema {
            _ if base.is_empty() => params::param_kind(&self.tools, &self.func, name),
            Some(&Kind::Union(mask)) if mask & params::type_bit(&base) != 0 => {
                params::kind_of_types(&[base])
            }
            Some(&kind) => kind,
            None if base == "any" => Kind::Str,
            None => params::kind_of_types(&[base]),
        }
    }

    /// The kind of parameter `name` of the current call, by the style's typing.
    fn kind(&self, name: &str) -> Kind {
        match self.style.typing {
            Typing::Schema => params::param_kind(&self.tools, &self.func, name),
            Typing::Json => Kind::Json,
            Typing::JsonUnlessString => {
                let schema = self.tools.functions.get(&self.func);
                match schema.and_then(|p| p.get(name)) {
                    Some(Kind::Str) => Kind::Str,
                    _ => Kind::Json,
                }
            }
        }
    }

    /// The state after the function end.
    fn after(&self) -> State {
        if self.style.end.list.is_empty() {
            State::Text
        } else {
            State::After { ws: String::new() }
        }
    }
}

/// The state after a function start (the markup read, `raw`, ends with it): its name, or the
/// repeated name when the start is the style's `lead`.
fn name_or_lead(style: &Style, raw: String) -> State {
    match style.lead {
        Some(lead) if raw.ends_with(lead) => State::Lead { raw, n: 0 },
        _ => {
            let at = raw.len();
            State::Name { raw, at }
        }
    }
}

/// Characters that end a function name (the name end completes it; the others make it not a
/// call).
const NAME_STOPS: [char; 10] = ['>', '<', '{', '}', '"', '\'', ' ', '\t', '\n', '\r'];

/// Whether `tail` is a proper prefix of `tag` (the start of the tag at the end of the input: the
/// rest may follow).
fn cut(tail: &str, tag: &str) -> bool {
    tail.len() < tag.len() && tag.starts_with(tail)
}

/// The transitions through the call's markup (the value's are in `value.rs`).
impl Call {
    /// Plain text, up to a section start or a function start (a content wrapper is dropped).
    fn on_text(&mut self, rest: &str, out: &mut Emitter) -> Outcome {
        let text = &self.style.text;
        let mut n = 0;
        let Some(which) = text_until(text, rest, &mut n, out) else {
            return hold(n);
        };
        if which >= text.list.len() - self.style.wrappers {
            return stay(n); // a wrapper of the content: markup, dropped
        }
        let m = text.list[which].to_owned();
        if which < self.style.sections {
            go(n, State::Wrapper { raw: m })
        } else {
            go(n, name_or_lead(self.style, m))
        }
    }

    /// After the section start: whitespace, then a function start (or dots' JSON call object).
    fn on_wrapper(&mut self, raw: &mut String, rest: &str, out: &mut Emitter) -> Outcome {
        let style = self.style;
        match expect_capped(rest, &style.function, trailing_ws(raw)) {
            Expect::Marker { end, .. } => {
                raw.push_str(&rest[..end]);
                go(end, name_or_lead(style, std::mem::take(raw)))
            }
            Expect::Wait { ws } => {
                raw.push_str(&rest[..ws]);
                hold(ws)
            }
            Expect::Other { at } => {
                raw.push_str(&rest[..at]);
                if let Some(keys) = style.json {
                    if rest[at..].starts_with('{') && trailing_ws(raw) <= WS_MAX {
                        // A JSON call object.
                        let calls = Calls::object(keys, false);
                        return go(at, State::Json(Region::new(calls, raw, false)));
                    }
                }
                // Not a call (other text, or whitespace past the cap): the wrapper was content.
                out.content(raw);
                go(at, State::Text)
            }
        }
    }

    /// After the style's `lead`: the repeated name, then the rest of the function start.
    fn on_lead(
        &mut self,
        raw: &mut String,
        n: &mut usize,
        rest: &str,
        out: &mut Emitter,
    ) -> Outcome {
        let Some(tag) = &self.style.lead_tag else {
            // (a style with a lead has its tag: build.rs checks)
            out.content(raw);
            return go(0, State::Text);
        };
        let (take, end) = until(tag, rest);
        let piece = &rest[..take];
        *n += piece.chars().count();
        if piece.contains('<') || *n > NAME_MAX {
            // Not a call: the markup was content, the text after it is read again.
            out.content(raw);
            return go(0, State::Text);
        }
        let Some(end) = end else {
            raw.push_str(piece);
            return hold(take);
        };
        raw.push_str(&rest[..end]);
        let raw = std::mem::take(raw);
        let at = raw.len();
        go(end, State::Name { raw, at })
    }

    /// The function name, up to its end (the call starts) or a character that makes it not a
    /// call (its markup is content).
    fn on_name(&mut self, raw: &mut String, at: usize, rest: &str, out: &mut Emitter) -> Outcome {
        let style = self.style;
        let Some(p) = rest.find(NAME_STOPS) else {
            raw.push_str(rest);
            if raw[at..].chars().count() > NAME_MAX {
                // A name past the cap: not a call, the markup was content.
                out.content(raw);
                return (Next::Hold(rest.len()), Some(State::Text));
            }
            return hold(rest.len());
        };
        raw.push_str(&rest[..p]);
        let (name, tail) = (&raw[at..], &rest[p..]);
        if name.chars().count() > NAME_MAX {
            out.content(raw);
            return go(p, State::Text);
        }
        if let Some(tag) = style.self_close {
            if cut(tail, tag) {
                return hold(p);
            }
            if tail.starts_with(tag) && !is_blank(name) {
                // `<invoke name="N"/>`: a call without arguments.
                self.start(name, out);
                Self::close(out);
                return go(p + tag.len(), self.after());
            }
        }
        let end = match style.name_end {
            NameEnd::Tag(tag) if cut(tail, tag) => return hold(p),
            NameEnd::Tag(tag) => tail.starts_with(tag).then_some(tag.len()),
            NameEnd::Line => match tail.bytes().next() {
                Some(b'\n') => Some(1),
                Some(b'<') => Some(0),
                _ => None,
            },
        };
        match end {
            Some(n) if !is_blank(name) => {
                if style.unescape {
                    self.start(&unescape(name), out);
                } else {
                    self.start(name, out);
                }
                let attrs = style.attrs_end.is_some();
                go(
                    p + n,
                    if attrs {
                        State::Attrs { n: 0 }
                    } else {
                        State::Body
                    },
                )
            }
            _ => {
                // Not a call: the markup was content; text goes on at the stop character.
                out.content(raw);
                go(p, State::Text)
            }
        }
    }

    /// After the function name: its other attributes, up to the style's `attrs_end`.
    fn on_attrs(&mut self, n: &mut usize, rest: &str, out: &mut Emitter) -> Outcome {
        let Some(ends) = &self.style.attrs_end else {
            return hold(0);
        };
        let (at, end) = until(ends, rest);
        *n += rest[..at].chars().count();
        if *n > NAME_MAX || rest[..at].contains('<') {
            // Attributes past the cap, or other markup: malformed.
            return fallback(rest[..at].find('<').unwrap_or(at), out);
        }
        match end {
            Some(end) => go(end, State::Body),
            None => hold(at),
        }
    }

    /// Between parameters: the next parameter, or the function end.
    fn on_body(&mut self, rest: &str, out: &mut Emitter) -> Outcome {
        match expect(rest, &self.style.body) {
            Expect::Marker { which: 0, end } => go(
                end,
                State::Param {
                    name: String::new(),
                },
            ),
            Expect::Marker { which, end } => {
                // The function end, or the section end with the function end missing.
                Self::close(out);
                go(
                    end,
                    if which == 1 {
                        self.after()
                    } else {
                        State::Text
                    },
                )
            }
            Expect::Wait { ws } => hold(ws),
            Expect::Other { at } => fallback(at, out),
        }
    }

    /// A parameter name, up to its head's end (which may say the value's kind).
    fn on_param(&mut self, name: &mut String, rest: &str, out: &mut Emitter) -> Outcome {
        let style = self.style;
        let stops: &[char] = if style.quoted {
            &['>', '<', '\n', '"']
        } else {
            &['>', '<', '\n']
        };
        let Some(p) = rest.find(stops) else {
            name.push_str(rest);
            return hold(rest.len());
        };
        name.push_str(&rest[..p]);
        let tail = &rest[p..];
        let Some(head) = style.heads.starts(tail) else {
            if style.heads.could_start(tail) {
                return hold(p);
            }
            return fallback(p, out);
        };
        let end = p + style.heads.list[head].len();
        let mut name = std::mem::take(name);
        if style.unescape {
            name = unescape(&name);
        }
        let kind = if !style.string_attr {
            self.kind(&name)
        } else if head < style.strings {
            Kind::Str
        } else {
            Kind::Json
        };
        if style.value_start.is_some() {
            go(end, State::Open { name, kind })
        } else {
            go(end, self.open_value(&name, kind, out))
        }
    }

    /// After a parameter's head: whitespace, then the value start or a value type's start.
    fn on_open(&mut self, name: &mut String, kind: Kind, rest: &str, out: &mut Emitter) -> Outcome {
        let Some(open) = &self.style.value_start else {
            return hold(0);
        };
        match expect(rest, open) {
            Expect::Marker { which: 0, end } => go(end, self.open_value(name, kind, out)),
            // The value type's start.
            Expect::Marker { end, .. } => go(
                end,
                State::Type {
                    name: std::mem::take(name),
                    ty: String::new(),
                },
            ),
            Expect::Wait { ws } => hold(ws),
            Expect::Other { at } => fallback(at, out),
        }
    }

    /// A value type, up to its end (it gives the value its kind).
    fn on_type(
        &mut self,
        name: &mut String,
        ty: &mut String,
        rest: &str,
        out: &mut Emitter,
    ) -> Outcome {
        let Some(close) = &self.style.value_type_end else {
            return hold(0);
        };
        let (at, end) = until(close, rest);
        ty.push_str(&rest[..at]);
        if ty.chars().count() > NAME_MAX {
            // A type past the cap: malformed.
            return fallback(at, out);
        }
        let Some(end) = end else {
            return hold(at);
        };
        let (name, ty) = (std::mem::take(name), std::mem::take(ty));
        let kind = self.typed_kind(&name, &ty);
        go(end, State::Open { name, kind })
    }

    /// After the function end: whitespace, then the section end, the next function, step3's
    /// item end, or text.
    fn on_after(&mut self, ws: &mut String, rest: &str, out: &mut Emitter) -> Outcome {
        let style = self.style;
        let mut n = 0;
        match after_call(ws, rest, &mut n, &style.end, out) {
            After::Marker(which) => {
                let m = style.end.list[which];
                if style.item_end == Some(m) || style.call_sep == Some(m) {
                    // step3's item end, or the markup between calls: the section end or the
                    // next call may follow.
                    ws.clear();
                    stay(n)
                } else if style.function.list.contains(&m) {
                    // The next call: the whitespace before it is content if it is not.
                    go(n, name_or_lead(style, std::mem::take(ws)))
                } else {
                    go(n, State::Text)
                }
            }
            After::Wait => hold(n),
            // No section end (a bare call): the whitespace started the text.
            After::Text => go(n, State::Text),
        }
    }
}

impl Machine for XmlParams {
    fn step(&mut self, input: &str, i: usize, out: &mut Emitter) -> Next {
        let rest = &input[i..];
        let c = &mut self.call;
        let moved = match &mut self.st {
            State::Text => c.on_text(rest, out),
            State::Wrapper { raw } => c.on_wrapper(raw, rest, out),
            State::Json(region) => match region.feed(rest, out) {
                RegionStep::More => hold(rest.len()),
                RegionStep::Done(n) => go(n, c.after()),
                // Not a call object: malformed markup (the region made it content).
                RegionStep::Failed(n) => go(n, State::Fallback),
            },
            State::Lead { raw, n } => c.on_lead(raw, n, rest, out),
            State::Name { raw, at } => c.on_name(raw, *at, rest, out),
            State::Attrs { n } => c.on_attrs(n, rest, out),
            State::Body => c.on_body(rest, out),
            State::Param { name } => c.on_param(name, rest, out),
            State::Open { name, kind } => c.on_open(name, *kind, rest, out),
            State::Type { name, ty } => c.on_type(name, ty, rest, out),
            State::Value(v) => c.on_value(v, rest, out),
            State::After { ws } => c.on_after(ws, rest, out),
            // The driver makes the rest content.
            State::Fallback => hold(0),
        };
        // (the transition's positions are offsets from `i`)
        match settle(&mut self.st, moved) {
            Next::Go(n) => Next::Go(i + n),
            Next::Hold(n) => Next::Hold(i + n),
        }
    }

    fn finish(&mut self, rest: &str, out: &mut Emitter) {
        // The end of the output decides a closing tag held inside a value: feed it once more.
        self.call.eof = true;
        let mut rest = rest;
        if matches!(self.st, State::Value(_)) && !rest.is_empty() {
            let n = self.feed(rest, out);
            rest = &rest[n..];
        }
        let style = self.call.style;
        match &mut self.st {
            State::Text | State::Fallback => out.content(rest),
            // Cut off before the call started: its markup so far.
            State::Wrapper { raw } | State::Lead { raw, .. } | State::Name { raw, .. } => {
                raw.push_str(rest);
                out.truncate(raw);
            }
            State::Json(region) => region.finish(rest, out),
            // Cut off inside the function (its end never came): the call is unfinished.
            State::Attrs { .. }
            | State::Body
            | State::Param { .. }
            | State::Open { .. }
            | State::Type { .. }
            | State::Value(_) => out.truncate(""),
            // Whitespace after the last call, or a truncated section end: markup. The cut-off
            // start of the next function (and of nothing else) is a truncated call.
            State::After { .. } => finish_after_call(rest, &style.end, style.function.list, out),
        }
    }
}

mod text;
use text::{tool_name, unescape};
mod value;
use value::Value;

#[cfg(test)]
mod tests;
