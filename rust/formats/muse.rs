//! Muse (Muse Spark, Muse Glimmer): the output is a sequence of messages, each a header naming a
//! recipient and a body, with ATEM tool calls (XML parameters) in the bodies addressed to a tool:
//!
//! ```text
//!  to=self<|message|>REASONING<|eom|>
//! <|start|>assistant to=TOOL<|message|><atem:function_calls>
//! <atem:invoke name="tool.fn">
//! <atem:parameter name="arg">VALUE</atem:parameter>
//! </atem:invoke>
//! </atem:function_calls><|eom|>
//! <|start|>assistant to=user<|message|>ANSWER<|eot|>
//! ```
//!
//! Headers: `<|start|>`, whitespace, the role (`assistant`), horizontal whitespace, an optional
//! `to=RECIPIENT` (letters, digits, `_`, `.`, `-`), then `<|message|>`. The first message has no
//! `<|start|>` (the prompt ends with `<|start|>assistant`), so its header is ` to=self<|message|>`
//! (or a bare `<|message|>`): inside any body that is not a tool's, a `<|message|>` opens a new
//! message, whose recipient is the `to=NAME` written right before it (with the horizontal
//! whitespace before that: header text); that is how the model also leaves a reasoning message
//! without `<|eom|>` (vLLM: "observed deterministically"). A body ends at `<|eom|>`, `<|eot|>`,
//! or the `<|start|>` of the next header.
//!
//! The route of a body is the format's [`Frame`] (the spec's `call.recipients`): recipients that
//! are reasoning (muse: none, `self`, and `developer`, which vLLM drops and we keep as reasoning;
//! `muse_glimmer`: `self`), recipients that are content (muse: `user`, `commentary`; `muse_glimmer`:
//! none, `user`); every other recipient is a tool, whose body is read by the ATEM
//! [`XmlParams`] machine (its text outside the calls is content). The call's name is the invoke's
//! `name` (not the recipient); values are JSON if they parse, else strings (muse keeps a value as
//! a string where the tool's schema types it as one), written like `json.dumps(obj,
//! ensure_ascii=False)`; `f.f` is the tool `f` when only `f` is a tool.
//!
//! Text before the first header (output without framing) is content, as is text after a message
//! end that is not a header (vLLM drops it once any header is seen; nothing is dropped here).
//! Reasoning of several messages is joined as written, content too (as vLLM's tool parser).
//!
//! Held back: a possible marker prefix, and the end of a body that could still be a header
//! (`[ \t]*` at most [`WS_MAX`] bytes, then `t`, `to`, or `to=` and at most [`NAME_MAX`]
//! recipient characters). Malformed markup (a header that is not one, a stray end marker between
//! messages, a tool body that ends inside a call, `<|message|>` in a tool body) sets `malformed`
//! and everything after is content; the end of the text inside a call is truncation.

use super::between::{self, settle, Next};
use super::openai::{finish_outside, next_marker, outside, Opener, HEADER_MAX};
use super::xml_params::{Style, XmlParams};
use super::{Machine, Tools};
use crate::event::Emitter;
use crate::scan::{is_ws, Found, Markers, NAME_MAX, WS_MAX};

const START: usize = 0;
const MESSAGE: usize = 1;
// 2 and 3: `<|eom|>` and `<|eot|>`, the message ends.

/// A format's framing (built at run time from the spec entry by `formats::config`).
#[derive(Debug)]
pub struct Frame {
    /// `[start, message, end, end_turn]`.
    pub markers: Markers,
    /// The role every header names (`assistant`).
    pub role: &'static str,
    /// Recipients whose bodies are reasoning (`""`: a header without a recipient).
    pub reasoning: &'static [&'static str],
    /// Recipients whose bodies are content.
    pub content: &'static [&'static str],
    /// The ATEM tool calls in a tool's body.
    pub atem: &'static Style,
}

pub fn new(frame: &'static Frame, tools: &Tools) -> Box<dyn Machine> {
    Box::new(Muse {
        st: State::Outside {
            raw: String::new(),
            first: true,
        },
        cx: Cx {
            frame,
            tools: tools.clone(),
        },
    })
}

enum State {
    /// At the start of the output or after a message end: whitespace (`raw`), then a header.
    Outside { raw: String, first: bool },
    /// A header after `<|start|>`.
    Header(Header),
    /// A reasoning or content body (or text outside messages: content); `tail` is its end that
    /// could still be a header.
    Body { reasoning: bool, tail: String },
    /// A tool's body.
    Tool(Box<XmlParams>),
    /// After malformed markup: everything is content.
    Fallback,
}

/// A header being read: `raw` is everything read for it (content if it fails), `raw[at..]` its
/// text, `chars` characters long.
struct Header {
    raw: String,
    at: usize,
    chars: usize,
}

pub struct Muse {
    st: State,
    cx: Cx,
}

fn is_recipient(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.' | b'-')
}

/// Where the end of body text `s` that could still become a header starts: the longest suffix
/// made of `[ \t]` (at most [`WS_MAX`] bytes) then `t`, `to`, or `to=` and at most [`NAME_MAX`]
/// recipient characters (each part may be empty).
fn tail_start(s: &str) -> usize {
    let b = s.as_bytes();
    let end = b.len();
    let mut q = end;
    while q > 0 && end - q <= NAME_MAX && is_recipient(b[q - 1]) {
        q -= 1;
    }
    let word = if end - q <= NAME_MAX && b[..q].ends_with(b"to=") {
        q - 3
    } else if b.ends_with(b"to") {
        end - 2
    } else if b.ends_with(b"t") {
        end - 1
    } else {
        end
    };
    let mut w = word;
    while w > 0 && word - w < WS_MAX && matches!(b[w - 1], b' ' | b'\t') {
        w -= 1;
    }
    w
}

/// At `<|message|>` after body text whose possible header is `tail`: how much of `tail` is body
/// text, and the header's recipient (`None`: a bare header).
fn tail_header(tail: &str) -> (usize, Option<&str>) {
    let word = tail.trim_start_matches([' ', '\t']);
    match word.strip_prefix("to=") {
        Some(r) if !r.is_empty() => (0, Some(r)),
        // Whitespace right before a bare `<|message|>` is header text.
        _ if word.is_empty() => (0, None),
        // `t`, `to`, `to=`: body text.
        _ => (tail.len(), None),
    }
}

/// The recipient of a complete header text (after `<|start|>`): `Some(None)` for none, `None`
/// when the text is not a header (the two "nothing"s mean different things).
#[allow(clippy::option_option)]
fn parse(h: &str, role: &str) -> Option<Option<String>> {
    let t = h.trim_start_matches(is_ws).strip_prefix(role)?;
    let t = t.trim_start_matches([' ', '\t']);
    if t.is_empty() {
        return Some(None);
    }
    let r = t.strip_prefix("to=")?;
    let ok = !r.is_empty() && r.len() <= NAME_MAX && r.bytes().all(is_recipient);
    ok.then(|| Some(r.to_owned()))
}

fn emit(out: &mut Emitter, reasoning: bool, s: &str) {
    if reasoning {
        out.reasoning(s);
    } else {
        out.content(s);
    }
}

/// Body text `s` after the held `tail`: sends all but the end that could still be a header.
fn body_text(out: &mut Emitter, reasoning: bool, tail: &mut String, s: &str) {
    if tail.is_empty() {
        let k = tail_start(s);
        emit(out, reasoning, &s[..k]);
        tail.push_str(&s[k..]);
    } else {
        tail.push_str(s);
        let k = tail_start(tail);
        if k > 0 {
            emit(out, reasoning, &tail[..k]);
            tail.drain(..k);
        }
    }
}

/// Whether a (possibly cut-off) header text names a tool.
fn names_tool(f: &Frame, h: &str) -> bool {
    let t = h.trim_start_matches(is_ws);
    let t = t.strip_prefix(f.role).unwrap_or(t);
    let t = t.trim_start_matches([' ', '\t']);
    t.strip_prefix("to=")
        .is_some_and(|r| !r.is_empty() && !f.reasoning.contains(&r) && !f.content.contains(&r))
}

/// A header starts after `raw` (what was read before it: whitespace, content if it fails).
fn header(mut raw: String, markers: &Markers) -> State {
    raw.push_str(markers.list[START]);
    let at = raw.len();
    State::Header(Header { raw, at, chars: 0 })
}

/// What a transition did, and the state it leads to (`None`: the state stays).
type Moved = between::Moved<State>;

/// What the transitions read besides the state.
struct Cx {
    frame: &'static Frame,
    tools: Tools,
}

impl Cx {
    /// The state a header with `recipient` leads to.
    fn route(&self, recipient: Option<&str>) -> State {
        let r = recipient.unwrap_or("");
        let f = self.frame;
        if f.reasoning.contains(&r) || f.content.contains(&r) {
            State::Body {
                reasoning: f.reasoning.contains(&r),
                tail: String::new(),
            }
        } else {
            State::Tool(Box::new(XmlParams::new(f.atem, &self.tools)))
        }
    }

    /// At the start of the output or after a message end: whitespace, then a header (or text).
    fn on_outside(&self, raw: &mut String, input: &str, mut i: usize, out: &mut Emitter) -> Moved {
        let markers = &self.frame.markers;
        let Some((opener, raw)) = outside(raw, input, &mut i, markers, "") else {
            return (Next::Hold(i), None);
        };
        let st = match opener {
            Opener::Marker(w @ (START | MESSAGE)) => {
                i += markers.list[w].len();
                if w == START {
                    header(raw, markers)
                } else {
                    self.route(None)
                }
            }
            Opener::Marker(_) => {
                // A stray end marker: it goes to content with everything after it.
                out.malformed = true;
                out.content(&raw);
                State::Fallback
            }
            // Text (perhaps the first header's `to=`): a content body.
            Opener::Text | Opener::Over => {
                let mut tail = String::new();
                body_text(out, false, &mut tail, &raw);
                State::Body {
                    reasoning: false,
                    tail,
                }
            }
        };
        (Next::Go(i), Some(st))
    }

    /// A header after `<|start|>`, up to `<|message|>`.
    fn on_header(&self, h: &mut Header, input: &str, i: usize, out: &mut Emitter) -> Moved {
        let markers = &self.frame.markers;
        let rest = &input[i..];
        let (m, which) = next_marker(markers, rest);
        h.raw.push_str(&rest[..m]);
        h.chars += rest[..m].chars().count();
        let parsed = match which {
            None if h.chars <= HEADER_MAX => return (Next::Hold(i + m), None),
            Some(MESSAGE) if h.chars <= HEADER_MAX => parse(&h.raw[h.at..], self.frame.role),
            _ => None,
        };
        match parsed {
            Some(r) => {
                let j = i + m + markers.list[MESSAGE].len();
                (Next::Go(j), Some(self.route(r.as_deref())))
            }
            // Not a header (or too long for one): its text and what follows are content.
            None => {
                out.malformed = true;
                out.content(&h.raw);
                (Next::Go(i + m), Some(State::Fallback))
            }
        }
    }

    /// A reasoning or content body (or text outside messages: content), up to its end.
    fn on_body(
        &self,
        reasoning: bool,
        tail: &mut String,
        input: &str,
        i: usize,
        out: &mut Emitter,
    ) -> Moved {
        let markers = &self.frame.markers;
        let rest = &input[i..];
        let (at, which) = match markers.find(rest) {
            Found::Marker { at, which } => (at, which),
            Found::Partial { safe } => {
                body_text(out, reasoning, tail, &rest[..safe]);
                return (Next::Hold(i + safe), None);
            }
        };
        body_text(out, reasoning, tail, &rest[..at]);
        let tail = std::mem::take(tail);
        let st = match which {
            MESSAGE => {
                let (text, recipient) = tail_header(&tail);
                emit(out, reasoning, &tail[..text]);
                self.route(recipient)
            }
            START => {
                emit(out, reasoning, &tail);
                header(String::new(), markers)
            }
            _ => {
                emit(out, reasoning, &tail);
                State::Outside {
                    raw: String::new(),
                    first: false,
                }
            }
        };
        (Next::Go(i + at + markers.list[which].len()), Some(st))
    }

    /// A tool's body: ATEM calls, up to the message's end.
    fn on_tool(&self, x: &mut XmlParams, input: &str, i: usize, out: &mut Emitter) -> Moved {
        let markers = &self.frame.markers;
        let rest = &input[i..];
        let (at, which) = next_marker(markers, rest);
        let seg = &rest[..at];
        let n = x.feed(seg, out);
        if out.malformed {
            // The ATEM machine fell back: the driver makes the rest content.
            return (Next::Hold(i + n), Some(State::Fallback));
        }
        let Some(which) = which else {
            return (Next::Hold(i + n), None);
        };
        if which == MESSAGE || !x.idle() {
            // A tool's body ends inside a call, or `<|message|>` in it: malformed.
            out.malformed = true;
            return (Next::Hold(i + n), Some(State::Fallback));
        }
        x.finish(&seg[n..], out);
        let st = if which == START {
            header(String::new(), markers)
        } else {
            State::Outside {
                raw: String::new(),
                first: false,
            }
        };
        (
            Next::Go(i + seg.len() + markers.list[which].len()),
            Some(st),
        )
    }
}

impl Machine for Muse {
    fn step(&mut self, input: &str, i: usize, out: &mut Emitter) -> Next {
        let cx = &self.cx;
        let moved = match &mut self.st {
            State::Outside { raw, .. } => cx.on_outside(raw, input, i, out),
            State::Header(h) => cx.on_header(h, input, i, out),
            State::Body { reasoning, tail } => cx.on_body(*reasoning, tail, input, i, out),
            State::Tool(x) => cx.on_tool(x, input, i, out),
            // The driver makes the rest content.
            State::Fallback => (Next::Hold(i), None),
        };
        settle(&mut self.st, moved)
    }

    fn finish(&mut self, rest: &str, out: &mut Emitter) {
        let frame = self.cx.frame;
        match &mut self.st {
            State::Outside { raw, first } => finish_outside(raw, *first, rest, out),
            // A header cut off by the end of the text: the markup of an unfinished call when it
            // names a tool; else content.
            State::Header(Header { raw, at, .. }) => {
                raw.push_str(rest);
                if names_tool(frame, &raw[*at..]) {
                    out.truncate(raw);
                } else {
                    out.content(raw);
                }
            }
            State::Body { reasoning, tail } => {
                tail.push_str(rest);
                emit(out, *reasoning, tail);
            }
            State::Tool(x) => x.finish(rest, out),
            State::Fallback => out.content(rest),
        }
    }
}

#[cfg(test)]
mod tests;
