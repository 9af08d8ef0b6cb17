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

use super::between::{self, settle, text_until, Next};
use super::xml_params::{Style, XmlParams};
use super::{Machine, Tools};
use crate::event::Emitter;
use crate::json::{is_blank, JsonScanner};
use crate::scan::{expect, ws_len, Expect, Found, Markers, WS_MAX};
use crate::Step;

// The indices of the frame's markers: the spec's markers of the roles `start`, `channel`,
// `message`, `end`, `call`, `return` and `constrain`, in that order (`formats::config` puts them there).
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

/// What a format of this family changes (built from the spec entry by `formats::config`, at run time).
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
        cx: Cx {
            frame,
            tools: frame.xml.map(|_| tools.clone()),
            sep: Sep {
                join: frame.join,
                ..Sep::default()
            },
        },
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
    cx: Cx,
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

/// Where the text before the next of `markers` in `rest` ends, and that marker (`None`: none yet,
/// a marker's prefix may start there) (muse's too).
pub fn next_marker(markers: &Markers, rest: &str) -> (usize, Option<usize>) {
    match markers.find(rest) {
        Found::Marker { at, which } => (at, Some(which)),
        Found::Partial { safe } => (safe, None),
    }
}

/// What follows the whitespace outside messages (read by [`outside`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Opener {
    /// Marker `which` (not read yet).
    Marker(usize),
    /// Other text.
    Text,
    /// A run of whitespace past [`WS_MAX`]: it reads as text.
    Over,
}

/// Reads the whitespace outside messages (muse's too) from `input[*i..]` into `raw` and says what
/// follows it, with the whitespace taken out of `raw`; `None` while nothing can be decided yet
/// (whitespace or a marker's prefix up to the end: hold from `*i`). `maybe` is text that may
/// still open a header there (`to=` at the very start of harmony's output; `""`: none).
pub fn outside(
    raw: &mut String,
    input: &str,
    i: &mut usize,
    markers: &Markers,
    maybe: &str,
) -> Option<(Opener, String)> {
    let rest = &input[*i..];
    let ws = ws_len(rest);
    raw.push_str(&rest[..ws]);
    *i += ws;
    let r = &rest[ws..];
    // A run past the cap reads as text (`raw` is whitespace: bytes are chars).
    let opener = if raw.len() > WS_MAX {
        Opener::Over
    } else if r.is_empty() {
        return None;
    } else {
        match markers.starts(r) {
            Some(which) => Opener::Marker(which),
            None if markers.could_start(r) || (r.len() < maybe.len() && maybe.starts_with(r)) => {
                return None;
            }
            None => Opener::Text,
        }
    };
    Some((opener, std::mem::take(raw)))
}

/// Outside messages again (not at the start of the output).
fn outside_again() -> State {
    State::Outside {
        raw: String::new(),
        first: false,
    }
}

/// What a transition did, and the state it leads to (`None`: the state stays).
type Moved = between::Moved<State>;

/// What the transitions read besides the state.
struct Cx {
    frame: &'static Frame,
    /// The tools, for a body of XML parameters.
    tools: Option<Tools>,
    sep: Sep,
}

impl Cx {
    /// The state a routed header leads to.
    fn route(&mut self, out: &mut Emitter, r: Route) -> State {
        match r {
            Route::Tool(name) => match (self.frame.xml, &self.tools) {
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
                self.sep.fresh = true;
                State::Body { sink }
            }
        }
    }

    /// A header that is not one: back to content, or, when quoted, to its body.
    fn fail_header(&mut self, h: &Header, out: &mut Emitter) -> State {
        match h.quote {
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
        }
    }

    /// At the start of the output or after a tool call: whitespace, then a header opener.
    fn on_outside(
        &self,
        raw: &mut String,
        first: bool,
        input: &str,
        mut i: usize,
        out: &mut Emitter,
    ) -> Moved {
        let markers = &self.frame.markers;
        let maybe = if first { "to=" } else { "" };
        let Some((opener, raw)) = outside(raw, input, &mut i, markers, maybe) else {
            return (Next::Hold(i), None);
        };
        let st = match opener {
            Opener::Marker(w @ (START | CHANNEL)) => {
                i += markers.list[w].len();
                State::Header(Header::open(markers, raw, 0, w, None))
            }
            Opener::Text if first && input[i..].starts_with("to=") => State::Header(Header {
                text: raw.len(),
                raw,
                tentative: true,
                ..Header::default()
            }),
            Opener::Text | Opener::Over if first => {
                out.content(&raw);
                State::Text
            }
            // A stray marker: it goes to content with everything after it. Text after a tool
            // call: harmony allows only `<|start|>` there.
            _ => {
                out.malformed = true;
                out.content(&raw);
                State::Fallback
            }
        };
        (Next::Go(i), Some(st))
    }

    /// Plain text before the first message (or a `to=` that was not a header): content up to a
    /// marker, which starts the markup outside messages (it is read again there).
    fn on_text(&self, input: &str, mut i: usize, out: &mut Emitter) -> Moved {
        let markers = &self.frame.markers;
        let Some(which) = text_until(markers, input, &mut i, out) else {
            return (Next::Hold(i), None);
        };
        i -= markers.list[which].len();
        (Next::Go(i), Some(outside_again()))
    }

    /// A header, up to `<|message|>`, or up to where it shows to be none.
    fn on_header(&mut self, h: &mut Header, input: &str, mut i: usize, out: &mut Emitter) -> Moved {
        let markers = &self.frame.markers;
        let rest = &input[i..];
        let (at, which) = next_marker(markers, rest);
        let ok = h.push(&rest[..at]);
        i += at;
        if !ok || h.chars > HEADER_MAX {
            return (Next::Go(i), Some(self.fail_header(h, out)));
        }
        let st = match which {
            None => return (Next::Hold(i), None),
            // A marker that breaks a quoted header is looked at again.
            Some(w @ (CHANNEL | CONSTRAIN)) => {
                if h.push_marker(markers, w) {
                    return (Next::Go(i + markers.list[w].len()), None);
                }
                self.fail_header(h, out)
            }
            Some(MESSAGE) => {
                let m = markers.list[MESSAGE];
                i += m.len();
                match parse(&h.raw[h.text..], h.role, self.frame) {
                    Some(r) => self.route(out, r),
                    // Quoted: the header and its `<|message|>` are text.
                    None if h.quote.is_some() => {
                        h.raw.push_str(m);
                        self.fail_header(h, out)
                    }
                    None => {
                        h.raw.push_str(m);
                        out.malformed = true;
                        out.content(&h.raw);
                        State::Fallback
                    }
                }
            }
            // Another marker: the header is broken (a quote ends before it).
            Some(_) => self.fail_header(h, out),
        };
        (Next::Go(i), Some(st))
    }

    /// A message body: content, reasoning, or dropped.
    fn on_body(&mut self, sink: Sink, input: &str, mut i: usize, out: &mut Emitter) -> Moved {
        let markers = &self.frame.markers;
        let rest = &input[i..];
        let (at, which) = match markers.find(rest) {
            Found::Marker { at, which } => (at, which),
            Found::Partial { safe } => {
                body(out, &mut self.sep, sink, &rest[..safe]);
                return (Next::Hold(i + safe), None);
            }
        };
        body(out, &mut self.sep, sink, &rest[..at]);
        let m = markers.list[which];
        i += at + m.len();
        let st = match which {
            END | CALL | RETURN => State::Ended {
                sink,
                raw: m.to_owned(),
                end: m.len(),
            },
            // Maybe the next message begins (its end marker missing).
            START | CHANNEL => {
                State::Header(Header::open(markers, String::new(), 0, which, Some(sink)))
            }
            // `<|message|>`, `<|constrain|>`: body text.
            _ => {
                body(out, &mut self.sep, sink, m);
                return (Next::Go(i), None);
            }
        };
        (Next::Go(i), Some(st))
    }

    /// An end marker inside a body, then whitespace: the end of the body if a header (or the end
    /// of the text) follows, else body text.
    fn on_ended(
        &mut self,
        sink: Sink,
        raw: &mut String,
        end: usize,
        input: &str,
        mut i: usize,
        out: &mut Emitter,
    ) -> Moved {
        let markers = &self.frame.markers;
        let rest = &input[i..];
        let ws = ws_len(rest);
        raw.push_str(&rest[..ws]);
        i += ws;
        let r = &rest[ws..];
        let which = markers.starts(r);
        if raw.len() - end <= HEADER_MAX {
            if r.is_empty() {
                return (Next::Hold(input.len()), None);
            }
            if let Some(w @ (START | CHANNEL)) = which {
                i += markers.list[w].len();
                let h = Header::open(markers, std::mem::take(raw), end, w, Some(sink));
                return (Next::Go(i), Some(State::Header(h)));
            }
            if which.is_none() && markers.could_start(r) {
                return (Next::Hold(i), None);
            }
        }
        // Not followed by a header: the end marker was body text.
        body(out, &mut self.sep, sink, raw);
        (Next::Go(i), Some(State::Body { sink }))
    }

    /// A tool call's body before its arguments object.
    fn on_args_start(&self, input: &str, mut i: usize, out: &mut Emitter) -> Moved {
        let markers = &self.frame.markers;
        let rest = &input[i..];
        let st = match expect(rest, markers) {
            Expect::Marker { which, end } => {
                if matches!(which, END | CALL | RETURN) {
                    // No arguments at all.
                    out.args("{}");
                    out.tool_end();
                    i += end;
                    outside_again()
                } else {
                    out.malformed = true;
                    i += end - markers.list[which].len();
                    State::Fallback
                }
            }
            Expect::Wait { ws } => return (Next::Hold(i + ws), None),
            Expect::Other { at } => {
                i += at;
                if rest[at..].starts_with('{') {
                    State::Args(JsonScanner::new())
                } else {
                    out.malformed = true;
                    State::Fallback
                }
            }
        };
        (Next::Go(i), Some(st))
    }

    /// After the arguments: whitespace, then the end marker.
    fn on_args_end(&self, input: &str, mut i: usize, out: &mut Emitter) -> Moved {
        let markers = &self.frame.markers;
        let st = match expect(&input[i..], markers) {
            Expect::Marker { which, end } => {
                let m = markers.list[which].len();
                match which {
                    END | CALL | RETURN => {
                        out.tool_end();
                        i += end;
                        outside_again()
                    }
                    START | CHANNEL => {
                        out.tool_end();
                        i += end - m;
                        outside_again()
                    }
                    _ => {
                        out.malformed = true;
                        i += end - m;
                        State::Fallback
                    }
                }
            }
            Expect::Wait { ws } => return (Next::Hold(i + ws), None),
            Expect::Other { at } => {
                // Text after the arguments object.
                out.malformed = true;
                i += at;
                State::Fallback
            }
        };
        (Next::Go(i), Some(st))
    }

    /// A call's XML parameters (beam), up to the message's end (a marker inside a value ends it
    /// too).
    fn on_xml(&self, x: &mut XmlParams, input: &str, i: usize, out: &mut Emitter) -> Moved {
        let markers = &self.frame.markers;
        let rest = &input[i..];
        let (at, which) = next_marker(markers, rest);
        let k = x.feed(&rest[..at], out);
        if out.malformed {
            return (Next::Hold(i + k), Some(State::Fallback));
        }
        let Some(which) = which else {
            return (Next::Hold(i + k), None);
        };
        if matches!(which, MESSAGE | CONSTRAIN) || !x.end_function(&rest[k..at], out) {
            // The body ends inside a parameter, or a header marker in it: malformed.
            out.malformed = true;
            return (Next::Hold(i + k), Some(State::Fallback));
        }
        // An end marker ends the call; `<|start|>` or `<|channel|>` opens the next message.
        let mut j = i + at;
        if matches!(which, END | CALL | RETURN) {
            j += markers.list[which].len();
        }
        (Next::Go(j), Some(outside_again()))
    }
}

/// The arguments object, passed through as written: the JSON scanner alone decides where it
/// ends (marker text inside a string is argument text).
fn on_args(sc: &mut JsonScanner, input: &str, i: usize, out: &mut Emitter) -> Moved {
    let rest = &input[i..];
    match sc.feed(rest.as_bytes()) {
        Step::Done(n) => {
            out.args(cut(rest, n));
            (Next::Go(i + n), Some(State::ArgsEnd))
        }
        Step::NeedMore => {
            out.args(rest);
            (Next::Hold(input.len()), None)
        }
        Step::Error(n) => {
            let a = cut(rest, n);
            out.args(a);
            out.malformed = true;
            (Next::Go(i + a.len()), Some(State::Fallback))
        }
    }
}

impl Machine for Harmony {
    fn step(&mut self, input: &str, i: usize, out: &mut Emitter) -> Next {
        let cx = &mut self.cx;
        let moved = match &mut self.st {
            State::Outside { raw, first } => cx.on_outside(raw, *first, input, i, out),
            State::Text => cx.on_text(input, i, out),
            State::Header(h) => cx.on_header(h, input, i, out),
            State::Body { sink } => cx.on_body(*sink, input, i, out),
            State::Ended { sink, raw, end } => cx.on_ended(*sink, raw, *end, input, i, out),
            State::ArgsStart => cx.on_args_start(input, i, out),
            State::Args(sc) => on_args(sc, input, i, out),
            State::ArgsEnd => cx.on_args_end(input, i, out),
            State::Xml(x) => cx.on_xml(x, input, i, out),
            // The driver makes the rest content.
            State::Fallback => (Next::Hold(i), None),
        };
        settle(&mut self.st, moved)
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
                let to = format!("to={}", self.cx.frame.prefix);
                if h.tentative && h.raw[h.text..].contains(&to) {
                    // `to=` at the very start, maybe plain text: the stream sends it as content.
                    out.truncate(&h.raw[h.lead..]);
                } else if h.raw[h.text..].contains(&to) {
                    out.truncate_start();
                } else {
                    out.content(&h.raw[h.lead..]);
                }
            }
            State::Body { sink } => body(out, &mut self.cx.sep, *sink, rest),
            // A call with no arguments yet: truncated.
            State::ArgsStart => out.truncate(rest),
            State::Args(_) => out.truncate(""),
            // The end marker is missing (a stop token the server stripped): the call is complete.
            State::ArgsEnd => out.tool_end(),
            // Without its end marker a call of XML parameters is cut off (a further parameter may
            // follow), as both peers read it. A cut-off marker at the end is not value text.
            State::Xml(x) => {
                let (at, _) = next_marker(&self.cx.frame.markers, rest);
                x.finish(&rest[..at], out);
            }
        }
    }
}

#[cfg(test)]
mod tests;
