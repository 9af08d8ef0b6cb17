//! The registry of formats and the driver every format machine runs under.

use crate::event::{Delta, Emitter, Event, Extracted};
use crate::reasoning::{Front, Reasoning};

// The tools a request offers live with the parameter converters that read them.
pub use crate::params::{RawSchemaNode, SchemaNode, Tools};

mod between;
use between::{drive, Next};
mod config;
mod functionary;
mod functiongemma;
mod inkling;
mod llama3_json;
mod muse;
mod named_json;
mod openai;
mod pythonic;
mod region;
pub(crate) mod registry;
mod spec_check;
pub(crate) mod spec_file;
mod tagged_json;
mod xml_elements;
mod xml_params;

/// A format state machine. `feed` consumes as much of `input` as can be decided now and returns
/// how many bytes it consumed; the unconsumed suffix is given again, with the next delta appended,
/// and must be bounded (a possible marker prefix). `finish` receives that suffix at end of text.
pub trait Machine: Send + Sync {
    /// One transition from `input[i..]`: the machine's one `match` over its states.
    fn step(&mut self, input: &str, i: usize, out: &mut Emitter) -> Next;

    /// Every machine's `feed`: its transitions, run by [`drive`].
    fn feed(&mut self, input: &str, out: &mut Emitter) -> usize {
        drive(input, |i| self.step(input, i, out))
    }

    fn finish(&mut self, rest: &str, out: &mut Emitter);

    /// The prompt opened a reasoning block of the machine's own wire format (a reasoning format
    /// whose `tool_format` is this one, with `reasoning_started` true): the output starts inside
    /// it. Machines without such a block ignore it.
    fn start_in_reasoning(&mut self) {}
}

/// A format's entry in the spec (`python/toolparse/formats/<name>.json`, or one registered at run
/// time), as the registry keeps it.
#[derive(Debug)]
pub struct Spec {
    /// The canonical name (vLLM's).
    pub name: &'static str,
    /// The machine: `formats/<family>.rs`.
    pub family: &'static str,
    /// How ids are made for calls that carry none: "chatcmpl", "mistral" or "model".
    pub id_style: &'static str,
    /// The other names the peers register for this format.
    pub aliases: &'static [&'static str],
    /// The marker strings, by role (`call_start`, `call_end`, ...).
    pub markers: &'static [(&'static str, &'static str)],
    pub special_tokens: &'static [&'static str],
    /// Hugging Face id patterns of the models that emit this format.
    pub models: &'static [&'static str],
    /// The end-of-turn tag the model may write (empty: none): markup, dropped from content.
    pub turn_end: &'static str,
    /// Other markup the format never puts in content (`cohere_command4`'s `<|START_RESPONSE|>`):
    /// dropped.
    pub dropped: &'static [&'static str],
    /// The reasoning format that runs with this format when none is given (empty: none).
    pub default_reasoning: &'static str,
    /// Spans whose open and close tags are markup (cohere's `<co>X</co: 0:[1]>`), in content and
    /// reasoning (none: no such spans).
    pub span_markup: Option<crate::event::SpanRule>,
}

impl Spec {
    /// The markers that begin calls (the roles `call_start*` and `section_start*`): the end of
    /// the output after only these and whitespace is a cut before a call began.
    pub fn call_starts(&self) -> Vec<&'static str> {
        self.markers
            .iter()
            .filter(|(r, _)| r.starts_with("call_start") || r.starts_with("section_start"))
            .map(|(_, m)| *m)
            .collect()
    }

    /// The marker with this role, if the format has one.
    pub fn marker(&self, role: &str) -> Option<&'static str> {
        self.markers
            .iter()
            .find(|(r, _)| *r == role)
            .map(|(_, m)| *m)
    }
}

/// A known format: its position in the registry (`registry.rs`), built-in or registered, and
/// its entry there when it was looked up (a format replaced later keeps running on that one).
#[derive(Clone, Copy)]
pub struct Format {
    index: usize,
    entry: &'static registry::Registered,
}

impl PartialEq for Format {
    fn eq(&self, other: &Format) -> bool {
        self.index == other.index
    }
}

impl Eq for Format {}

impl std::fmt::Debug for Format {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Format({:?})", self.entry.spec.name)
    }
}

impl Format {
    fn at(reg: &registry::Registry, index: usize) -> Format {
        Format {
            index,
            entry: reg.formats[index],
        }
    }

    pub fn from_name(name: &str) -> Option<Format> {
        let reg = registry::read();
        let k = reg.formats.iter().position(|f| f.spec.name == name)?;
        Some(Format::at(&reg, k))
    }

    /// The tool format that parses when reasoning format `r` is given alone (harmony's), if any.
    pub fn of_reasoning(r: Reasoning) -> Option<Format> {
        r.spec().tool_format.and_then(Format::from_name)
    }

    /// A format by its name or one of its aliases.
    pub fn lookup(name: &str) -> Option<Format> {
        Format::from_name(name).or_else(|| {
            let reg = registry::read();
            let k = reg
                .formats
                .iter()
                .position(|f| f.spec.aliases.contains(&name))?;
            Some(Format::at(&reg, k))
        })
    }

    fn entry(self) -> &'static registry::Registered {
        self.entry
    }

    pub fn spec(self) -> &'static Spec {
        &self.entry.spec
    }

    pub fn name(self) -> &'static str {
        self.spec().name
    }

    /// Every format, in the registry's order.
    pub fn all() -> impl Iterator<Item = Format> {
        let reg = registry::read();
        let all: Vec<Format> = (0..reg.formats.len())
            .map(|k| Format::at(&reg, k))
            .collect();
        all.into_iter()
    }

    pub fn names() -> Vec<&'static str> {
        registry::read()
            .formats
            .iter()
            .map(|f| f.spec.name)
            .collect()
    }

    /// Its position in the registry.
    pub fn index(self) -> usize {
        self.index
    }

    /// Registers a format from its spec entry (and its reasoning entry, if any), configuring its
    /// machine once; `replace`: a format of the same name is replaced (parsers already built
    /// keep the old one), else a name or alias already taken is an error.
    ///
    /// # Errors
    /// The reason the entry is refused: a rule of the spec broken, a name taken.
    pub fn register(
        entry: spec_file::Entry,
        reasoning: Option<spec_file::Reasoning>,
        replace: bool,
    ) -> Result<Format, String> {
        let k = registry::register(entry, reasoning, replace)?;
        Ok(Format::at(&registry::read(), k))
    }

    fn machine(self, tools: &Tools) -> Box<dyn Machine> {
        (self.entry().ctor)(tools)
    }
}

/// The machine used when no tool format is given (reasoning and content only): all content.
struct Plain;

impl Machine for Plain {
    fn step(&mut self, input: &str, i: usize, out: &mut Emitter) -> Next {
        out.content(&input[i..]);
        Next::Hold(input.len())
    }

    fn finish(&mut self, rest: &str, out: &mut Emitter) {
        out.content(rest);
    }
}

/// What a parser is configured with: a tool format (or none), its tools, and a reasoning format
/// (or none) with whether the prompt opened the think block (None: the format's default).
#[derive(Debug, Clone, Copy, Default)]
pub struct Setup {
    pub format: Option<Format>,
    pub reasoning: Option<Reasoning>,
    pub started: Option<bool>,
}

impl Setup {
    /// A tool format alone.
    pub fn of(format: Format) -> Setup {
        Setup {
            format: Some(format),
            ..Setup::default()
        }
    }

    /// With the tool format's default reasoning format when no reasoning format is given.
    fn with_default_reasoning(self) -> Setup {
        let reasoning = self.reasoning.or_else(|| {
            self.format
                .map(|f| f.spec().default_reasoning)
                .filter(|r| !r.is_empty())
                .and_then(Reasoning::lookup)
        });
        Setup { reasoning, ..self }
    }

    /// The tool format that parses: the given one, else the reasoning format's own (harmony).
    fn tool_format(&self) -> Option<Format> {
        self.format
            .or_else(|| self.reasoning.and_then(Format::of_reasoning))
    }

    /// The markup dropped wherever the machine emits it as content: with a reasoning front
    /// (`front`), the markers that end a block (outside one, an end marker is markup, unless
    /// `stray_end_text`: then only where it leads the output, which the front drops) and the end
    /// of the content wrapper the end marker opens (not for a
    /// format that puts its own markers in content, nor while thinking is disabled for a format
    /// whose markers are then off: there is no front); the turn-end tags of the reasoning format
    /// and of the tool format, and the other `dropped` markup of both (the reasoning format's
    /// without the tool format's own markers, which its machine reads), in every state.
    fn dropped(&self, front: bool) -> Vec<&'static str> {
        let mut list = Vec::new();
        if let Some(r) = self.reasoning {
            let spec = r.spec();
            if front && spec.content_prefix.is_empty() {
                if !spec.stray_end_text {
                    list.extend(spec.ends);
                }
                list.push(spec.content_end);
            }
            list.push(spec.turn_end);
            // its other markup, but a marker of the paired tool format, which that format's
            // machine reads (cohere's response wrapper; in a call it is the call's text)
            let own = self.tool_format().map_or(&[][..], |f| f.spec().markers);
            list.extend(
                spec.dropped
                    .iter()
                    .filter(|m| !own.iter().any(|(_, v)| v == *m)),
            );
        }
        if let Some(f) = self.tool_format() {
            list.push(f.spec().turn_end);
            list.extend(f.spec().dropped);
        }
        let mut out: Vec<&'static str> = Vec::new();
        for m in list {
            if !m.is_empty() && !out.contains(&m) {
                out.push(m);
            }
        }
        out
    }
}

/// One response's parser: feed deltas, then finish.
pub struct Parser {
    machine: Box<dyn Machine>,
    held: String,
    out: Emitter,
    finished: bool,
    /// The think-block front while it has the text (None without a reasoning format, and
    /// once the block is over: then the hot path is the machine alone).
    front: Option<Box<Front>>,
    /// Bytes the front consumed before it handed the rest to the machine.
    front_used: usize,
    /// Where the machine's text starts in the output (known once the front handed over).
    machine_from: Option<usize>,
    /// Characters in the text the front handed to the machine (counted once, at the hand-over).
    handover_chars: usize,
}

impl Parser {
    pub fn new(format: Format, tools: &Tools) -> Parser {
        Parser::with(
            Setup {
                format: Some(format),
                ..Setup::default()
            },
            tools,
        )
    }

    /// A parser for a tool format and/or a reasoning format.
    pub fn with(setup: Setup, tools: &Tools) -> Parser {
        let setup = setup.with_default_reasoning();
        let format = setup.tool_format();
        let front = setup
            .reasoning
            .and_then(|r| r.front(format.map(Format::spec), setup.started))
            .map(Box::new);
        let mut machine: Box<dyn Machine> = match format {
            Some(f) => f.machine(tools),
            None => Box::new(Plain),
        };
        let own = setup.reasoning.and_then(Format::of_reasoning).is_some();
        if own && setup.started == Some(true) {
            machine.start_in_reasoning();
        }
        let mut out = Emitter::with_rules(
            setup.dropped(front.is_some()),
            format.map_or_else(Vec::new, |f| f.spec().call_starts()),
        );
        if front.is_some() {
            out.set_blocks(
                setup
                    .reasoning
                    .and_then(|r| r.blocks(format.map(Format::spec))),
            );
        }
        out.set_span(
            format
                .and_then(|f| f.spec().span_markup)
                .or_else(|| setup.reasoning.and_then(|r| r.spec().span_markup)),
        );
        Parser {
            machine,
            held: String::new(),
            out,
            finished: false,
            machine_from: if front.is_some() { None } else { Some(0) },
            front,
            front_used: 0,
            handover_chars: 0,
        }
    }

    /// Feeds one delta; returns the events it produced.
    pub fn feed(&mut self, text: &str) -> Vec<Event> {
        self.push(text);
        self.out.take()
    }

    /// Feeds one delta, leaving its events in the emitter (where they coalesce with earlier ones).
    /// Once the markup was malformed, everything after the point of failure is content: a
    /// machine that fails returns that point, and later text does not reach it.
    pub fn push(&mut self, text: &str) {
        if self.finished {
            return;
        }
        if let Some(front) = self.front.as_mut() {
            match front.feed(text, &mut self.out) {
                None => self.front_used += text.len(),
                Some(rest) => {
                    self.front = None;
                    self.machine_from = Some(self.front_used + text.len() - rest.len());
                    self.handover_chars = rest.chars().count();
                    self.push_machine(&rest);
                }
            }
            return;
        }
        self.push_machine(text);
    }

    fn push_machine(&mut self, text: &str) {
        if self.out.malformed {
            self.out.content(text);
        } else if self.held.is_empty() {
            let n = self.machine.feed(text, &mut self.out);
            self.keep(text, n);
        } else {
            self.held.push_str(text);
            let buf = std::mem::take(&mut self.held);
            let n = self.machine.feed(&buf, &mut self.out);
            self.keep(&buf, n);
        }
    }

    /// Holds `buf[n..]` for the next delta, or makes it content after malformed markup.
    fn keep(&mut self, buf: &str, n: usize) {
        if self.out.malformed {
            self.out.content(&buf[n..]);
        } else {
            self.held.push_str(&buf[n..]);
        }
    }

    /// End of text: flushes what was held back.
    pub fn finish(&mut self) -> Vec<Event> {
        self.end();
        self.out.take()
    }

    fn end(&mut self) {
        if let Some(mut front) = self.front.take() {
            let rest = front.finish(&mut self.out);
            self.machine_from = Some(self.front_used - rest.len());
            self.handover_chars = rest.chars().count();
            self.push_machine(&rest);
        }
        if !self.finished {
            self.finished = true;
            let held = std::mem::take(&mut self.held);
            if self.out.malformed {
                self.out.content(&held);
            } else {
                self.machine.finish(&held, &mut self.out);
            }
            self.out.finish();
        }
    }

    pub fn feed_delta(&mut self, text: &str) -> Option<Delta> {
        self.push(text);
        Delta::from_events(self.out.drain())
    }

    pub fn finish_delta(&mut self) -> Option<Delta> {
        self.end();
        Delta::from_events(self.out.drain())
    }

    /// Whether the tool markup seen so far was malformed.
    pub fn malformed(&self) -> bool {
        self.out.malformed
    }

    /// Whether the text ended inside a call (known after finish).
    pub fn truncated(&self) -> bool {
        self.out.truncated
    }

    /// The indices of the calls whose start was emitted and that were then dropped (a pythonic
    /// call with a value that has no JSON form), so far: the non-streaming result leaves them
    /// out, a stream sent their start and some arguments.
    pub fn dropped_calls(&self) -> &[usize] {
        &self.out.dropped
    }

    /// After finish: the index of the call the text ended inside, if its start was emitted.
    pub fn unfinished_call(&self) -> Option<usize> {
        self.finished.then(|| self.out.open_call()).flatten()
    }

    /// The call that has started and not ended yet (its start was emitted, its end not), at any
    /// time; after finish it is the unfinished call.
    pub fn open_call(&self) -> Option<usize> {
        self.out.open_call()
    }

    pub fn is_finished(&self) -> bool {
        self.finished
    }

    /// Where the tool machine's text starts in the output (after the think block; 0 without a
    /// reasoning format); known once the front handed over, at the latest after finish.
    pub fn machine_from(&self) -> Option<usize> {
        self.machine_from
    }

    /// The characters of the raw text the front handed to the machine when it handed over (the
    /// text fed from [`Parser::machine_from`] up to the end of that delta; 0 before, and without
    /// a front). A binding that counts the characters it fed gets the hand-over point in
    /// characters as `fed - handover_chars()`, without counting every delta.
    pub fn handover_chars(&self) -> usize {
        self.handover_chars
    }

    /// Streams `chunks` one delta at a time and returns what a client would have reconstructed
    /// (the per-delta work of a server, without making delta objects).
    pub fn replay<S: AsRef<str>>(format: Format, tools: &Tools, chunks: &[S]) -> Extracted {
        Parser::replay_with(Setup::of(format), tools, chunks)
    }

    /// As [`Parser::replay`], for any setup.
    pub fn replay_with<S: AsRef<str>>(setup: Setup, tools: &Tools, chunks: &[S]) -> Extracted {
        let mut p = Parser::with(setup, tools);
        for c in chunks {
            p.push(c.as_ref());
        }
        p.into_extracted()
    }

    /// Finishes and returns everything emitted since the last `feed`/`take`, as one result
    /// (what a client reconstructs from the whole stream when fed with `push`).
    pub fn into_extracted(mut self) -> Extracted {
        self.end();
        Extracted::from_events(self.out.take(), self.malformed(), self.truncated())
    }

    /// Non-streaming: the same machine fed the whole text at once.
    pub fn extract(format: Format, tools: &Tools, text: &str) -> Extracted {
        Parser::extract_with(Setup::of(format), tools, text)
    }

    /// Non-streaming for any setup, with the fallback applied: malformed markup, or text that
    /// ended inside a call before any completed (not a bare call start at the end, which is
    /// dropped, see [`Emitter::truncate`]), gives the original text as content. With a reasoning
    /// format that is the text after the think block, and the reasoning is kept: an empty block
    /// included, so the result is a reasoning parser's split followed by the tool format's own
    /// parse of the rest (the servers' way). Markup the parser drops from content (an end marker
    /// outside a block, a turn-end tag) is not in it either.
    pub fn extract_with(setup: Setup, tools: &Tools, text: &str) -> Extracted {
        let mut p = Parser::with(setup, tools);
        let mut events = p.feed(text);
        events.extend(p.finish());
        let mut x = Extracted::from_events(events, p.malformed(), p.truncated());
        if x.malformed || (x.truncated && x.calls.is_empty() && !p.out.cut) {
            let from = p.machine_from.unwrap_or(0).min(text.len());
            let rest = text.get(from..).unwrap_or_default();
            let rest = if p.out.drops_any() {
                p.out.strip(rest)
            } else {
                rest.to_owned()
            };
            x.content = (!rest.is_empty()).then_some(rest);
        }
        x
    }
}

#[cfg(test)]
mod invariants;
#[cfg(test)]
mod reasoning_invariants;
#[cfg(test)]
mod reasoning_tests;
#[cfg(test)]
mod test_styles;
#[cfg(test)]
pub(crate) use test_styles::*;
#[cfg(test)]
mod test_support;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn registry_names_are_unique_and_found() {
        let names = Format::names();
        for n in &names {
            let f = Format::from_name(n).map(Format::name);
            assert_eq!(f, Some(*n));
        }
        let mut sorted = names.clone();
        sorted.sort_unstable();
        sorted.dedup();
        assert_eq!(sorted.len(), names.len());
        assert!(Format::from_name("nope").is_none());
    }

    #[test]
    fn registry_is_the_spec() {
        // the built-in formats first (a test may have registered more after them)
        let specs: Vec<&Spec> = Format::all()
            .take(registry::BUILTIN.len())
            .map(Format::spec)
            .collect();
        assert_eq!(specs.len(), registry::BUILTIN.len());
        for ((name, _), spec) in registry::BUILTIN.iter().zip(&specs) {
            assert_eq!(*name, spec.name);
        }
        for (f, spec) in Format::all().zip(specs.iter().copied()) {
            assert_eq!(f.name(), spec.name);
            assert_eq!(f.spec().name, spec.name);
            assert_eq!(Format::lookup(spec.name), Some(f));
            for a in spec.aliases {
                assert_eq!(Format::lookup(a), Some(f), "alias {a}");
                assert_eq!(Format::from_name(a), None, "alias {a} is not a name");
            }
        }
        let all: Vec<_> = specs.iter().map(|s| (s.name, s.aliases.to_vec())).collect();
        assert_eq!(spec_check::duplicate(&all), None);
        assert_eq!(Format::lookup("gpt-oss").map(Format::name), Some("openai"));
        assert_eq!(Format::lookup("qwen25").map(Format::name), Some("hermes"));
    }

    #[test]
    fn spec_refuses_a_name_given_twice() {
        let entries = [("a", vec!["b", "c"]), ("d", vec!["e"]), ("f", vec!["c"])];
        assert_eq!(spec_check::duplicate(&entries), Some("c"));
        assert_eq!(spec_check::duplicate(&entries[..2]), None);
        assert_eq!(spec_check::duplicate(&[("a", vec!["a"])]), Some("a"));
        assert_eq!(
            spec_check::duplicate(&[("a", vec![]), ("a", vec![])]),
            Some("a")
        );
    }

    fn spec(name: &str) -> &'static Spec {
        Format::from_name(name)
            .map(Format::spec)
            .expect("known format")
    }

    fn markers(spec: &Spec, roles: &[&str]) -> Vec<&'static str> {
        roles
            .iter()
            .map(|r| {
                spec.marker(r)
                    .unwrap_or_else(|| panic!("{}: no {r}", spec.name))
            })
            .collect()
    }

    /// The markers each machine with fixed styles uses are the spec's (the machines that keep
    /// theirs in code cannot drift from it).
    #[test]
    fn fixed_styles_use_the_spec_markers() {
        let s = spec("llama3_json");
        assert_eq!(
            LLAMA3_JSON_STYLE.text.list,
            markers(s, &["call_start", "object_start"])
        );
        assert_eq!(LLAMA3_JSON_STYLE.separator, markers(s, &["separator"])[0]);
        let s = spec("mistral");
        assert_eq!(MISTRAL_TAGS.text.list, markers(s, &["call_start"]));
        assert_eq!(MISTRAL_TAGS.args.list, markers(s, &["args_start"]));
        assert_eq!(
            MISTRAL_TAGS.after_name.list,
            markers(s, &["args_start", "call_id"])
        );
        let s = spec("qwen3_coder");
        let st = &QWEN3_CODER_STYLE;
        assert_eq!(st.text.list, markers(s, &["call_start", "function_start"]));
        assert_eq!(st.function.list, markers(s, &["function_start"]));
        let body = ["parameter_start", "function_end", "call_end"];
        assert_eq!(st.body.list, markers(s, &body));
        assert_eq!(st.end.list, markers(s, &["call_end"]));
        let [p_end, f_end, p_start] = [
            s.marker("parameter_end"),
            s.marker("function_end"),
            s.marker("parameter_start"),
        ]
        .map(std::option::Option::unwrap_or_default);
        let value = [
            p_end.to_owned(),
            format!("\n{p_end}"),
            format!("\n{p_start}"),
            format!("\n{f_end}"),
        ];
        assert_eq!(st.value.list, value);
    }

    /// One whole call in the markup of a configurable family's format (built from its spec), or
    /// `None` for the families read by start marker and body.
    fn whole_call(spec: &Spec) -> Option<String> {
        let m = |role: &str| spec.marker(role).unwrap_or_default();
        match spec.family {
            "named_json" => {
                let head = match spec.marker("name_start") {
                    Some(sep) => format!("function{sep}f"),
                    None if spec.id_style == "model" => "functions.f:0".to_owned(),
                    None => "f".to_owned(),
                };
                Some(format!(
                    "a{}{}{head}{}{{}}{}{}{}b",
                    m("section_start"),
                    m("call_start"),
                    m("args_start"),
                    m("args_end"),
                    m("call_end"),
                    m("section_end")
                ))
            }
            "xml_params" => {
                let head = spec
                    .marker("parameter_string")
                    .unwrap_or(m("parameter_name_end"));
                Some(
                    [
                        m("call_start"),
                        m("function_start"),
                        "f",
                        m("function_name_end"),
                        m("function_attrs_end"),
                        m("parameter_start"),
                        "a",
                        head,
                        m("value_start"),
                        "1",
                        m("parameter_end"),
                        m("function_end"),
                        m("item_end"),
                        m("call_end"),
                    ]
                    .concat(),
                )
            }
            "xml_elements" => {
                let ns = m("namespace");
                Some(format!(
                    "a{}{}\"f\">{ns}<a>1{ns}</a>{}{}b",
                    m("call_start"),
                    m("invoke_start"),
                    m("invoke_end"),
                    m("call_end")
                ))
            }
            "functiongemma" => Some(format!(
                "a{}{}f{{a:{}x{}}}{}b",
                m("call_start"),
                m("name_start"),
                m("string"),
                m("string"),
                m("call_end")
            )),
            _ => None,
        }
    }

    /// The configurable machines are built from the spec: each reads one whole call written
    /// with its format's markers.
    #[test]
    fn built_machines_read_a_call_in_their_markers() {
        for f in Format::all() {
            if let Some(text) = whole_call(f.spec()) {
                let x = Parser::extract(f, &Tools::default(), &text);
                assert_eq!(x.calls.len(), 1, "{}: {text}", f.spec().name);
                assert!(!x.malformed, "{}: {text}", f.spec().name);
            }
        }
    }

    /// Each start marker opens calls; of the body shapes the family knows, exactly one is the
    /// format's (three where it has the forms shape).
    #[test]
    fn start_markers_read_their_bodies() {
        for f in Format::all() {
            let spec = f.spec();
            let (starts, bodies, end) = match spec.family {
                "tagged_json" => (
                    spec.markers
                        .iter()
                        .filter(|(r, _)| r.starts_with("call_start"))
                        .map(|(_, m)| *m)
                        // xlam's bare `[`: the body's own bracket
                        .map(|m| if m == "[" { "" } else { m })
                        .collect::<Vec<_>>(),
                    &[
                        r#"{"name": "f", "arguments": {}}"#,
                        r#"[{"name": "f", "arguments": {}}]"#,
                        // apertus' `{NAME: {...}}`, cohere's keys
                        r#"[{"f": {}}]"#,
                        r#"[{"tool_name": "f", "parameters": {}}]"#,
                        // mistral's name form
                        "f{}",
                    ][..],
                    spec.marker("call_end"),
                ),
                "pythonic" => (
                    vec![spec.marker("section_start").unwrap_or_default()],
                    &["[f(a=1)]", "f(a=1)"][..],
                    spec.marker("section_end"),
                ),
                _ => continue,
            };
            assert!(!starts.is_empty(), "{}", spec.name);
            // A format whose start marker may be followed by a list, an object or a name and
            // its arguments (it has the name form's separator) reads three of the bodies.
            let shapes = if spec.marker("args_start").is_some() {
                3
            } else {
                1
            };
            for start in starts {
                let ok = bodies
                    .iter()
                    .filter(|body| {
                        let text = format!("a{start}{body}{}b", end.unwrap_or_default());
                        let x = Parser::extract(f, &Tools::default(), &text);
                        x.calls.len() == 1 && !x.malformed
                    })
                    .count();
                assert_eq!(ok, shapes, "{}: {start}", spec.name);
            }
        }
    }

    /// `open_call` is the call between its start and its end, at every character; after
    /// finish it is `unfinished_call`.
    #[test]
    fn open_call_follows_the_calls() {
        let f = Format::from_name("hermes").expect("hermes");
        let text = "Hi <tool_call>{\"name\": \"f\", \"arguments\": {\"a\": 1}}</tool_call> \
                    <tool_call>{\"name\": \"g\", \"arguments\": {\"b\": ";
        let mut p = Parser::new(f, &Tools::default());
        let mut seen = Vec::new();
        for (i, ch) in text.char_indices() {
            p.feed(&text[i..i + ch.len_utf8()]);
            if seen.last() != Some(&p.open_call()) {
                seen.push(p.open_call());
            }
        }
        assert_eq!(seen, [None, Some(0), None, Some(1)]);
        assert_eq!(p.unfinished_call(), None);
        p.finish();
        assert_eq!(p.open_call(), Some(1));
        assert_eq!(p.unfinished_call(), Some(1));
    }
}
