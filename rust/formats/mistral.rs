//! Mistral: `[TOOL_CALLS]` followed by a JSON array of calls (before v11), or by
//! `name{...}` / `name[ARGS]{...}` (v11 and later), repeated.

use super::{Machine, Region, RegionStep, Tools};
use crate::event::Emitter;
use crate::json::{Calls, JsonScanner, CALL_KEYS};
use crate::scan::{expect, ws_len, Expect, Found, Markers};
use crate::Step;

pub(super) const BOT: Markers = Markers::new(&["[TOOL_CALLS]"]);
pub(super) const ARGS: Markers = Markers::new(&["[ARGS]"]);

pub fn new(_: &Tools) -> Box<dyn Machine> {
    Box::new(Mistral { st: State::Text })
}

#[derive(Debug)]
enum State {
    Text,
    /// After `[TOOL_CALLS]`: which form follows? (`raw` is the markup read so far.)
    Form {
        raw: String,
    },
    /// Pre-v11: a JSON array (or a single object) of calls.
    Json(Region),
    /// v11+: the function name.
    Name {
        raw: String,
        name: String,
    },
    /// v11+: the arguments object, streamed as written.
    Args(JsonScanner),
    Fallback,
}

pub struct Mistral {
    st: State,
}

fn is_name_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.')
}

impl Machine for Mistral {
    fn feed(&mut self, input: &str, out: &mut Emitter) -> usize {
        let mut i = 0;
        while i < input.len() {
            let rest = &input[i..];
            match &mut self.st {
                State::Text => match BOT.find(rest) {
                    Found::Marker { at, .. } => {
                        out.content(&rest[..at]);
                        i += at + BOT.list[0].len();
                        self.st = State::Form {
                            raw: BOT.list[0].to_owned(),
                        };
                    }
                    Found::Partial { safe } => {
                        out.content(&rest[..safe]);
                        return i + safe;
                    }
                },
                State::Form { raw } => {
                    let ws = ws_len(rest);
                    raw.push_str(&rest[..ws]);
                    i += ws;
                    let Some(c) = rest[ws..].chars().next() else {
                        return input.len();
                    };
                    let raw = std::mem::take(raw);
                    self.st = match c {
                        '[' => State::Json(Region::new(Calls::array(CALL_KEYS), &raw, false)),
                        '{' => {
                            State::Json(Region::new(Calls::object(CALL_KEYS, false), &raw, false))
                        }
                        c if is_name_char(c) => State::Name {
                            raw,
                            name: String::new(),
                        },
                        _ => {
                            out.malformed = true;
                            out.content(&raw);
                            State::Fallback
                        }
                    };
                }
                State::Json(region) => match region.feed(rest, out) {
                    RegionStep::More => return input.len(),
                    RegionStep::Done(n) => {
                        i += n;
                        self.st = State::Text;
                    }
                    RegionStep::Failed(n) => {
                        i += n;
                        self.st = State::Fallback;
                    }
                },
                State::Name { raw, name } => {
                    let n = rest.len() - rest.trim_start_matches(is_name_char).len();
                    name.push_str(&rest[..n]);
                    raw.push_str(&rest[..n]);
                    i += n;
                    let after = &rest[n..];
                    if after.is_empty() {
                        return input.len();
                    }
                    // Between the name and the arguments: whitespace and an optional `[ARGS]`.
                    let (skip, open) = match expect(after, &ARGS) {
                        Expect::Marker { end, .. } => {
                            let w = ws_len(&after[end..]);
                            if end + w == after.len() {
                                return i; // hold `[ARGS]` and what follows until `{` is seen
                            }
                            (end + w, after[end + w..].starts_with('{'))
                        }
                        Expect::Wait { .. } => return i,
                        Expect::Other { at } => (at, after[at..].starts_with('{')),
                    };
                    if !open || name.is_empty() {
                        raw.push_str(&after[..skip]);
                        out.malformed = true;
                        out.content(raw);
                        i += skip;
                        self.st = State::Fallback;
                        continue;
                    }
                    out.tool_start(None, std::mem::take(name));
                    i += skip;
                    self.st = State::Args(JsonScanner::new());
                }
                State::Args(sc) => match sc.feed(rest.as_bytes()) {
                    Step::Done(n) => {
                        out.args(&rest[..n]);
                        out.tool_end();
                        i += n;
                        self.st = State::Text;
                    }
                    Step::NeedMore => {
                        out.args(rest);
                        return input.len();
                    }
                    Step::Error(n) => {
                        out.args(&rest[..n]);
                        out.malformed = true;
                        i += n;
                        self.st = State::Fallback;
                    }
                },
                // The driver makes the rest content.
                State::Fallback => return i,
            }
        }
        input.len()
    }

    fn finish(&mut self, rest: &str, out: &mut Emitter) {
        match &mut self.st {
            State::Text | State::Fallback => out.content(rest),
            // Cut off before the arguments: the call's markup so far.
            State::Form { raw } | State::Name { raw, .. } => {
                raw.push_str(rest);
                out.truncate(raw);
            }
            State::Json(region) => region.finish(rest, out),
            State::Args(_) => out.truncate(""),
        }
    }
}
