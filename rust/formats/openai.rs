//! OpenAI harmony (gpt-oss): the output is a sequence of messages
//! `<|start|>{header}<|message|>{body}<|end|>` (or `<|call|>` / `<|return|>`). The first message
//! has no `<|start|>` (the prompt ends with `<|start|>assistant`), so the text usually begins with
//! `<|channel|>`. A header holds the role, the channel (`<|channel|>NAME`), an optional recipient
//! `to=RECIPIENT` (before `<|channel|>` or after the channel name) and an optional content type
//! (`<|constrain|>json` or a bare `json`).
//!
//! Routing of a body, decided when its header is complete:
//! - recipient `functions.NAME` (any channel): a tool call; the body is its JSON arguments object,
//!   streamed as written and validated (marker text inside a JSON string is argument text: the
//!   JSON scanner decides where the object ends). An empty body closed by an end marker is `{}`.
//!   The end marker may be missing at the end of the text (`<|call|>` is a stop token that servers
//!   strip): the call is complete when its object is.
//! - any other recipient (a built-in tool: `python`, `browser.search`, `browser.open`,
//!   `container.exec`, ...): never a function call. On the `analysis` channel it is reasoning (vLLM
//!   reads every `analysis` message as reasoning); on `commentary` or any other channel the message
//!   is dropped, neither content nor reasoning (vLLM ignores it; SGLang and llama.cpp drop it): it
//!   is the model addressing a tool the server does not run for it, not text for the user.
//! - no recipient: `analysis` is reasoning; `final`, `commentary` (a preamble for the user) or no
//!   channel at all are content. Another channel name is malformed.
//!
//! Every reasoning message whose text follows reasoning text of an earlier message starts with a
//! `"\n"` (vLLM's join), so a built-in call's code or query is not glued to the thought before it.
//!
//! Marker text inside a body (a quote: reasoning that writes `<|call|>`, `<|channel|>final` or
//! `<|start|>`) is body text unless it forms a real message boundary. openai-harmony reads special
//! tokens, which plain text cannot tell from their spelling; here, in a body:
//! - `<|message|>` and `<|constrain|>` are body text;
//! - an end marker (`<|end|>`, `<|call|>`, `<|return|>`) ends the body when whitespace and then the
//!   end of the text or the opener of a valid header follow; anything else makes it body text;
//! - `<|start|>` or `<|channel|>` (directly, or after an end marker) opens a header; when that
//!   header turns out invalid (by the rules of the header parser, checked as it arrives: a role
//!   other than `assistant`, a channel name other than the three, a second `<|channel|>`, more
//!   words than a header holds, another marker before `<|message|>`, more than [`HEADER_MAX`]
//!   characters) everything from the marker that opened it up to the point where it shows to be
//!   invalid is body text, and reading goes on from there: a marker that broke the header is
//!   looked at again, markers it had taken (its `<|channel|>`, `<|constrain|>`, `<|message|>`)
//!   stay in the quote.
//! - a header still open at the end of the text is taken as real, as a header cut off by the end
//!   of the text always is: the start markup of a call when it names a function (dropped, see
//!   below), else content.
//!
//! The reasoning keeps the quoted text. Held back meanwhile: the marker, at most [`HEADER_MAX`]
//! characters of whitespace and at most [`HEADER_MAX`] characters of header.
//!
//! Text before the first message (plain output with no markup at all) is content; whitespace
//! after an end marker is markup; after a tool call only whitespace and a header may follow (other
//! text there is malformed). Headers are kept in the state (bounded by [`HEADER_MAX`]); bodies
//! stream with only a possible marker prefix (or a quote being decided) held back, arguments with
//! nothing held back. Malformed markup (a stray marker outside a body, a bad or overlong header
//! outside a body, a call body that is not one JSON object) sets `malformed` and everything after
//! is content. A header cut off by the end of the text goes back to content, unless it names a
//! function: then it is the start markup of a call that never began, dropped (`truncated` is set)
//! while the messages before it keep their places (a finished analysis stays reasoning only).
//!
//! beam (a spec entry of this family, its [`Frame`]): every recipient names a function (no
//! `functions.` prefix, no built-in tools), a call's body is XML parameters
//! (`<rfl:parameter name="K">\nV\n</rfl:parameter>`, read by the [`XmlParams`] machine started
//! inside the function) up to the message's end marker, without which the call is cut off; its
//! reasoning messages are joined with nothing between them.

use super::between::text_until;
use super::xml_params::{Style, XmlParams};
use super::{Machine, Tools};
use crate::event::Emitter;
use crate::json::{is_blank, JsonScanner};
use crate::scan::{expect, ws_len, Expect, Found, Markers, WS_MAX};
use crate::Step;

// The indices of the frame's markers: the spec's markers of the roles `start`, `channel`,
// `message`, `end`, `call`, `return` and `constrain`, in that order (`build.rs` writes them).
const START: usize = 0;
const CHANNEL: usize = 1;
const MESSAGE: usize = 2;
const END: usize = 3;
const CALL: usize = 4;
const RETURN: usize = 5;
const CONSTRAIN: usize = 6;

/// The longest header accepted, in characters (markers inside it included).
pub const HEADER_MAX: usize = 512;

/// The channel names a header may give.
const CHANNELS: &[&str] = &["analysis", "commentary", "final"];
/// The role of every message the model writes.
const ROLES: &[&str] = &["assistant"];

/// What a format of this family changes (built from the spec entry by `build.rs`).
#[derive(Debug)]
pub struct Frame {
    /// The markers, in the order of the indices above (`START`, `CHANNEL`, ...).
    pub markers: Markers,
    /// What a recipient starts with when it names a function (`""`: any recipient does).
    pub prefix: &'static str,
    /// A call's body: XML parameters of this style (beam); `None`: a JSON object.
    pub xml: Option<&'static Style>,
    /// What goes between the texts of two reasoning messages.
    pub join: &'static str,
}

pub fn new(frame: &'static Frame, tools: &Tools) -> Box<dyn Machine> {
    Box::new(Harmony {
        st: State::Outside {
            raw: String::new(),
            first: true,
        },
        sep: Sep {
            join: frame.join,
            ..Sep::default()
        },
        frame,
        tools: frame.xml.map(|_| tools.clone()),
    })
}

/// A word of a quoted header whose spelling is checked as it arrives.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Word {
    Role,
    Channel,
}

impl Word {
    fn names(self) -> &'static [&'static str] {
        match self {
            Word::Role => ROLES,
            Word::Channel => CHANNELS,
        }
    }
}

/// What is known of a quoted header so far: enough to see, as it arrives, that [`parse`] will
/// reject it. Every check only rejects what `parse` rejects.
#[derive(Debug, Default)]
struct Checks {
    /// A `<|channel|>` was read.
    channel: bool,
    /// The channel name comes next.
    name_next: bool,
    /// Words read (runs of non-whitespace; markers end them).
    words: usize,
    in_word: bool,
    /// The word being checked, and its characters so far.
    check: Option<Word>,
    word: String,
}

impl Checks {
    /// Header text (no marker in it) was read; false when the header can no longer be valid.
    fn text(&mut self, s: &str, role: bool) -> bool {
        for c in s.chars() {
            if is_hws(c) {
                if self.name_next || !self.end_word() {
                    return false;
                }
                self.in_word = false;
                continue;
            }
            if !self.in_word {
                self.in_word = true;
                self.words += 1;
                // A channel name, a role, a recipient and one content type at most.
                if self.words > 3 + usize::from(role) {
                    return false;
                }
                if self.name_next {
                    self.name_next = false;
                    self.check = Some(Word::Channel);
                } else if role && self.words == 1 && !self.channel {
                    self.check = Some(Word::Role);
                }
            }
            // The channel name ends at `<` too.
            if c == '<' && self.check == Some(Word::Channel) {
                if !self.end_word() {
                    return false;
                }
                continue;
            }
            if let Some(w) = self.check {
                self.word.push(c);
                if !w.names().iter().any(|n| n.starts_with(self.word.as_str())) {
                    return false;
                }
            }
        }
        true
    }

    /// The checked word (if any) ended: it must be one of its names.
    fn end_word(&mut self) -> bool {
        match self.check.take() {
            Some(w) => {
                let ok = w.names().contains(&self.word.as_str());
                self.word.clear();
                ok
            }
            None => true,
        }
    }

    /// `<|channel|>` or `<|constrain|>` inside the header; false when the header can no longer be
    /// valid.
    fn marker(&mut self, which: usize) -> bool {
        if self.name_next || !self.end_word() {
            return false;
        }
        self.in_word = false;
        if which == CHANNEL {
            if self.channel {
                return false;
            }
            self.channel = true;
            self.name_next = true;
        }
        true
    }
}

/// A header being read, up to `<|message|>`.
#[derive(Debug, Default)]
struct Header {
    /// Everything read for this message so far (goes back to content, or to the quoting body, if
    /// it fails).
    raw: String,
    /// Bytes at the start of `raw` that are the quoting body's end marker (markup if the header
    /// is real, like whitespace after it).
    lead: usize,
    /// Byte offset in `raw` where the header text starts (after `<|start|>`).
    text: usize,
    /// Characters of header text so far.
    chars: usize,
    /// Opened by `<|start|>`: the header begins with the role.
    role: bool,
    /// Opened by `to=` at the very start of the output: maybe not a header at all.
    tentative: bool,
    /// Opened inside a body (`Some(sink)`: where it goes): if the header is invalid, it was
    /// quoted text of that body.
    quote: Option<Sink>,
    checks: Checks,
}

impl Header {
    /// Header text; false when a quoted header can no longer be valid.
    fn push(&mut self, s: &str) -> bool {
        self.raw.push_str(s);
        self.chars += s.chars().count();
        self.quote.is_none() || self.checks.text(s, self.role)
    }

    /// A marker inside the header (`<|channel|>` or `<|constrain|>`); false, and not taken, when
    /// it shows that a quoted header is not valid.
    fn push_marker(&mut self, markers: &Markers, which: usize) -> bool {
        if self.quote.is_some() && !self.checks.marker(which) {
            return false;
        }
        let m = markers.list[which];
        self.raw.push_str(m);
        self.chars += m.len();
        true
    }

    /// A header opened by marker `which` (`<|start|>` or `<|channel|>`) after `raw` (whitespace,
    /// or a quoting body's end marker and whitespace: `lead` bytes of it are that end marker).
    fn open(
        markers: &Markers,
        raw: String,
        lead: usize,
        which: usize,
        quote: Option<Sink>,
    ) -> Header {
        let mut h = Header {
            text: raw.len(),
            raw,
            lead,
            role: which == START,
            quote,
            ..Header::default()
        };
        if which == START {
            h.raw.push_str(markers.list[START]);
            h.text = h.raw.len();
        } else {
            h.push_marker(markers, CHANNEL);
        }
        h
    }
}

enum State {
    /// At the start of the output or after a tool call: whitespace, then a header opener.
    /// `raw` is the whitespace read so far.
    Outside {
        raw: String,
        first: bool,
    },
    /// Plain text before the first message (or a `to=` that was not a header): content.
    Text,
    Header(Header),
    /// A message body: content, reasoning, or dropped.
    Body {
        sink: Sink,
    },
    /// An end marker inside a body, then whitespace (`raw`; the marker is its first `end` bytes):
    /// the end of the body if a header (or the end of the text) follows, else body text.
    Ended {
        sink: Sink,
        raw: String,
        end: usize,
    },
    /// A tool call's body before its arguments object.
    ArgsStart,
    /// The arguments object, passed through as written.
    Args(JsonScanner),
    /// After the arguments: whitespace, then the end marker.
    ArgsEnd,
    /// A call's XML parameters (beam), up to the message's end.
    Xml(Box<XmlParams>),
    /// After malformed markup: everything is content.
    Fallback,
}

/// What the bodies said so far, for the separator between reasoning messages.
#[derive(Debug, Default)]
struct Sep {
    /// Some message's reasoning text was emitted.
    said: bool,
    /// The current body has emitted nothing yet.
    fresh: bool,
    /// What goes between the texts of two reasoning messages.
    join: &'static str,
}

pub struct Harmony {
    st: State,
    sep: Sep,
    frame: &'static Frame,
    /// The tools, for a body of XML parameters.
    tools: Option<Tools>,
}

/// Where the text of a message that is not a call goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Sink {
    Content,
    Reasoning,
    /// A message to a built-in tool outside the `analysis` channel: neither content nor
    /// reasoning.
    Dropped,
}

/// Where a message's body goes.
#[derive(Debug, PartialEq, Eq)]
enum Route {
    Body(Sink),
    Tool(String),
}

/// Whitespace that separates header words.
fn is_hws(c: char) -> bool {
    matches!(c, ' ' | '\t' | '\n' | '\r' | '\u{c}')
}

/// Routes a complete header (the text between `<|start|>` and `<|message|>`; `role`: it begins
/// with the role); `None` when it is malformed (a role other than `assistant`, a channel other
/// than `analysis`, `commentary`, `final`, two channels, two recipients, an empty recipient or
/// function name, more than one other word). A recipient starting with the frame's `prefix` names
/// a function.
fn parse(h: &str, role: bool, frame: &Frame) -> Option<Route> {
    let (markers, prefix) = (&frame.markers, frame.prefix);
    let ch = markers.list[CHANNEL];
    let mut channel = "";
    let (before, after) = match h.find(ch) {
        Some(p) => {
            let c = &h[p + ch.len()..];
            let end = c.find(|x: char| is_hws(x) || x == '<').unwrap_or(c.len());
            if !CHANNELS.contains(&&c[..end]) || c[end..].contains(ch) {
                return None;
            }
            channel = &c[..end];
            (&h[..p], &c[end..])
        }
        None => (h, ""),
    };
    let mut recipient: Option<&str> = None;
    let mut others = 0;
    let mut words = [before, after]
        .into_iter()
        .flat_map(|part| part.split(markers.list[CONSTRAIN]))
        .flat_map(|part| part.split(is_hws))
        .filter(|w| !w.is_empty());
    // The model writes assistant messages only.
    if role && words.next().is_none_or(|w| !ROLES.contains(&w)) {
        return None;
    }
    for w in words {
        if let Some(r) = w.strip_prefix("to=") {
            if recipient.is_some() {
                return None;
            }
            recipient = Some(r);
        } else {
            // The content type (`json`): at most one; the body is validated either way.
            others += 1;
            if others > 1 {
                return None;
            }
        }
    }
    match recipient {
        Some(r) => match r.strip_prefix(prefix) {
            Some(name) if is_blank(name) => None,
            Some(name) => Some(Route::Tool(name.to_owned())),
            None if r.is_empty() => None,
            // A built-in tool: reasoning on the analysis channel, dropped on any other.
            None if channel == "analysis" => Some(Route::Body(Sink::Reasoning)),
            None => Some(Route::Body(Sink::Dropped)),
        },
        None if channel == "analysis" => Some(Route::Body(Sink::Reasoning)),
        None => Some(Route::Body(Sink::Content)),
    }
}

/// Body text; a reasoning message's first text after earlier reasoning starts with `"\n"`; a
/// dropped message's text goes nowhere.
fn body(out: &mut Emitter, sep: &mut Sep, sink: Sink, s: &str) {
    if s.is_empty() {
        return;
    }
    match sink {
        Sink::Reasoning => {
            if sep.fresh && sep.said && !sep.join.is_empty() {
                out.reasoning(sep.join);
            }
            sep.said = true;
            out.reasoning(s);
        }
        Sink::Content => out.content(s),
        Sink::Dropped => return,
    }
    sep.fresh = false;
}

/// `s[..n]`, with `n` moved back to a character boundary.
fn cut(s: &str, mut n: usize) -> &str {
    n = n.min(s.len());
    while !s.is_char_boundary(n) {
        n -= 1;
    }
    &s[..n]
}

/// The text ends outside a message (muse's too; `raw`, the whitespace held, `first`: no message
/// came before): whitespace after the last message is markup; whitespace-only output is content.
pub fn finish_outside(raw: &str, first: bool, rest: &str, out: &mut Emitter) {
    if first || !rest.is_empty() {
        out.content(raw);
        out.content(rest);
    }
}

fn outside() -> State {
    State::Outside {
        raw: String::new(),
        first: false,
    }
}

/// The state a routed header leads to.
fn route(
    out: &mut Emitter,
    sep: &mut Sep,
    frame: &Frame,
    tools: Option<&Tools>,
    r: Route,
) -> State {
    match r {
        Route::Tool(name) => match (frame.xml, tools) {
            (Some(style), Some(tools)) => {
                let mut x = Box::new(XmlParams::new(style, tools));
                x.open(&name, out);
                State::Xml(x)
            }
            _ => {
                out.tool_start(None, name);
                State::ArgsStart
            }
        },
        Route::Body(sink) => {
            sep.fresh = true;
            State::Body { sink }
        }
    }
}

impl Harmony {
    /// A header that is not one: back to content, or, when quoted, to its body.
    fn fail_header(&mut self, out: &mut Emitter) {
        if let State::Header(h) = &self.st {
            self.st = match h.quote {
                Some(sink) => {
                    body(out, &mut self.sep, sink, &h.raw);
                    State::Body { sink }
                }
                None => {
                    out.content(&h.raw);
                    if h.tentative {
                        State::Text
                    } else {
                        out.malformed = true;
                        State::Fallback
                    }
                }
            };
        }
    }
}

impl Machine for Harmony {
    // One `match` over the states, each arm a transition: the project's size caps
    // (tests/test_code_structure.py) keep it from growing.
    #[allow(clippy::too_many_lines)]
    fn feed(&mut self, input: &str, out: &mut Emitter) -> usize {
        let frame: &'static Frame = self.frame;
        let markers = &frame.markers;
        let mut i = 0;
        while i < input.len() {
            let rest = &input[i..];
            match &mut self.st {
                State::Outside { raw, first } => {
                    let ws = ws_len(rest);
                    raw.push_str(&rest[..ws]);
                    i += ws;
                    let r = &rest[ws..];
                    // A run past the cap reads as text (`raw` is whitespace: bytes are chars).
                    let over = raw.len() > WS_MAX;
                    if r.is_empty() && !over {
                        return input.len();
                    }
                    let first = *first;
                    let which = if over { None } else { markers.starts(r) };
                    if which.is_none()
                        && !over
                        && (markers.could_start(r)
                            || (first && r.len() < 3 && "to=".starts_with(r)))
                    {
                        return i;
                    }
                    let raw = std::mem::take(raw);
                    self.st = match which {
                        Some(w @ (START | CHANNEL)) => {
                            i += markers.list[w].len();
                            State::Header(Header::open(markers, raw, 0, w, None))
                        }
                        Some(_) => {
                            // A stray marker: it goes to content with everything after it.
                            out.malformed = true;
                            out.content(&raw);
                            State::Fallback
                        }
                        None if first && !over && r.starts_with("to=") => State::Header(Header {
                            text: raw.len(),
                            raw,
                            tentative: true,
                            ..Header::default()
                        }),
                        None if first => {
                            out.content(&raw);
                            State::Text
                        }
                        // Text after a tool call: harmony allows only `<|start|>` there.
                        None => {
                            out.malformed = true;
                            out.content(&raw);
                            State::Fallback
                        }
                    };
                }
                State::Text => match text_until(markers, input, &mut i, out) {
                    Some(which) => {
                        // The marker starts the markup outside messages: read again there.
                        i -= markers.list[which].len();
                        self.st = outside();
                    }
                    None => return i,
                },
                State::Header(h) => match markers.find(rest) {
                    Found::Marker { at, which } => {
                        let ok = h.push(&rest[..at]);
                        i += at;
                        if !ok || h.chars > HEADER_MAX {
                            self.fail_header(out);
                            continue;
                        }
                        match which {
                            // A marker that breaks a quoted header is looked at again.
                            CHANNEL | CONSTRAIN => {
                                if h.push_marker(markers, which) {
                                    i += markers.list[which].len();
                                } else {
                                    self.fail_header(out);
                                }
                            }
                            MESSAGE => {
                                let m = markers.list[MESSAGE];
                                i += m.len();
                                self.st = match parse(&h.raw[h.text..], h.role, frame) {
                                    Some(r) => {
                                        route(out, &mut self.sep, frame, self.tools.as_ref(), r)
                                    }
                                    None => {
                                        h.raw.push_str(m);
                                        match h.quote {
                                            // Quoted: the header and its `<|message|>` are text.
                                            Some(sink) => {
                                                body(out, &mut self.sep, sink, &h.raw);
                                                State::Body { sink }
                                            }
                                            None => {
                                                out.malformed = true;
                                                out.content(&h.raw);
                                                State::Fallback
                                            }
                                        }
                                    }
                                };
                            }
                            // Another marker: the header is broken (a quote ends before it).
                            _ => self.fail_header(out),
                        }
                    }
                    Found::Partial { safe } => {
                        let ok = h.push(&rest[..safe]);
                        i += safe;
                        if !ok || h.chars > HEADER_MAX {
                            self.fail_header(out);
                            continue;
                        }
                        return i;
                    }
                },
                State::Body { sink } => {
                    let sink = *sink;
                    match markers.find(rest) {
                        Found::Marker { at, which } => {
                            body(out, &mut self.sep, sink, &rest[..at]);
                            i += at;
                            let m = markers.list[which];
                            match which {
                                END | CALL | RETURN => {
                                    i += m.len();
                                    self.st = State::Ended {
                                        sink,
                                        raw: m.to_owned(),
                                        end: m.len(),
                                    };
                                }
                                // Maybe the next message begins (its end marker missing).
                                START | CHANNEL => {
                                    i += m.len();
                                    let h =
                                        Header::open(markers, String::new(), 0, which, Some(sink));
                                    self.st = State::Header(h);
                                }
                                // `<|message|>`, `<|constrain|>`: body text.
                                _ => {
                                    body(out, &mut self.sep, sink, m);
                                    i += m.len();
                                }
                            }
                        }
                        Found::Partial { safe } => {
                            body(out, &mut self.sep, sink, &rest[..safe]);
                            return i + safe;
                        }
                    }
                }
                State::Ended { sink, raw, end } => {
                    let sink = *sink;
                    let ws = ws_len(rest);
                    raw.push_str(&rest[..ws]);
                    i += ws;
                    let r = &rest[ws..];
                    let which = markers.starts(r);
                    if raw.len() - *end <= HEADER_MAX {
                        if r.is_empty() {
                            return input.len();
                        }
                        if let Some(w @ (START | CHANNEL)) = which {
                            i += markers.list[w].len();
                            let h = Header::open(markers, std::mem::take(raw), *end, w, Some(sink));
                            self.st = State::Header(h);
                            continue;
                        }
                        if which.is_none() && markers.could_start(r) {
                            return i;
                        }
                    }
                    // Not followed by a header: the end marker was body text.
                    body(out, &mut self.sep, sink, raw);
                    self.st = State::Body { sink };
                }
                State::ArgsStart => match expect(rest, markers) {
                    Expect::Marker { which, end } => {
                        if matches!(which, END | CALL | RETURN) {
                            // No arguments at all.
                            out.args("{}");
                            out.tool_end();
                            i += end;
                            self.st = outside();
                        } else {
                            out.malformed = true;
                            i += end - markers.list[which].len();
                            self.st = State::Fallback;
                        }
                    }
                    Expect::Wait { ws } => return i + ws,
                    Expect::Other { at } => {
                        i += at;
                        self.st = if rest[at..].starts_with('{') {
                            State::Args(JsonScanner::new())
                        } else {
                            out.malformed = true;
                            State::Fallback
                        };
                    }
                },
                // The JSON scanner alone decides where the object ends: marker text inside a
                // string is argument text.
                State::Args(sc) => match sc.feed(rest.as_bytes()) {
                    Step::Done(n) => {
                        out.args(cut(rest, n));
                        i += n;
                        self.st = State::ArgsEnd;
                    }
                    Step::NeedMore => {
                        out.args(rest);
                        return input.len();
                    }
                    Step::Error(n) => {
                        let a = cut(rest, n);
                        out.args(a);
                        out.malformed = true;
                        i += a.len();
                        self.st = State::Fallback;
                    }
                },
                State::ArgsEnd => match expect(rest, markers) {
                    Expect::Marker { which, end } => {
                        let m = markers.list[which].len();
                        self.st = match which {
                            END | CALL | RETURN => {
                                out.tool_end();
                                i += end;
                                outside()
                            }
                            START | CHANNEL => {
                                out.tool_end();
                                i += end - m;
                                outside()
                            }
                            _ => {
                                out.malformed = true;
                                i += end - m;
                                State::Fallback
                            }
                        };
                    }
                    Expect::Wait { ws } => return i + ws,
                    Expect::Other { at } => {
                        // Text after the arguments object.
                        out.malformed = true;
                        i += at;
                        self.st = State::Fallback;
                    }
                },
                // XML parameters up to the message's end (a marker inside a value ends it too).
                State::Xml(x) => {
                    let (at, which) = match markers.find(rest) {
                        Found::Marker { at, which } => (at, Some(which)),
                        Found::Partial { safe } => (safe, None),
                    };
                    let k = x.feed(&rest[..at], out);
                    if out.malformed {
                        self.st = State::Fallback;
                        return i + k;
                    }
                    let Some(which) = which else {
                        return i + k;
                    };
                    if matches!(which, MESSAGE | CONSTRAIN) || !x.end_function(&rest[k..at], out) {
                        // The body ends inside a parameter, or a header marker in it: malformed.
                        out.malformed = true;
                        self.st = State::Fallback;
                        return i + k;
                    }
                    // An end marker ends the call; `<|start|>` or `<|channel|>` opens the next
                    // message.
                    i += at;
                    if matches!(which, END | CALL | RETURN) {
                        i += markers.list[which].len();
                    }
                    self.st = outside();
                }
                // The driver makes the rest content.
                State::Fallback => return i,
            }
        }
        input.len()
    }

    fn finish(&mut self, rest: &str, out: &mut Emitter) {
        match &mut self.st {
            State::Outside { raw, first } => finish_outside(raw, *first, rest, out),
            // The body's end marker was real (the text ends); what follows it is as after a
            // message.
            State::Ended { raw, end, .. } => {
                if !rest.is_empty() {
                    out.content(&raw[*end..]);
                    out.content(rest);
                }
            }
            State::Text | State::Fallback => out.content(rest),
            // A header cut off by the end of the text (a quoting body's end marker before it was
            // real): when it names a function recipient, the start markup of a call that never
            // began (dropped: the messages before it stand as they are); else it was never a
            // message.
            State::Header(h) => {
                h.raw.push_str(rest);
                let to = format!("to={}", self.frame.prefix);
                if h.tentative && h.raw[h.text..].contains(&to) {
                    // `to=` at the very start, maybe plain text: the stream sends it as content.
                    out.truncate(&h.raw[h.lead..]);
                } else if h.raw[h.text..].contains(&to) {
                    out.truncate_start();
                } else {
                    out.content(&h.raw[h.lead..]);
                }
            }
            State::Body { sink } => body(out, &mut self.sep, *sink, rest),
            // A call with no arguments yet: truncated.
            State::ArgsStart => out.truncate(rest),
            State::Args(_) => out.truncate(""),
            // The end marker is missing (a stop token the server stripped): the call is complete.
            State::ArgsEnd => out.tool_end(),
            // Without its end marker a call of XML parameters is cut off (a further parameter may
            // follow), as both peers read it. A cut-off marker at the end is not value text.
            State::Xml(x) => {
                let at = match self.frame.markers.find(rest) {
                    Found::Marker { at, .. } => at,
                    Found::Partial { safe } => safe,
                };
                x.finish(&rest[..at], out);
            }
        }
    }
}

#[cfg(test)]
mod tests;
