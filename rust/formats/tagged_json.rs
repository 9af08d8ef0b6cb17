//! JSON tool calls after a start marker: `START {call} END` (hermes, granite4, longcat,
//! internlm, gigachat3) or `START [{call}, ...] END` (jamba, hunyuan_a13b, granite,
//! phi4_mini_json). Formats that differ only in their markers, their shape and their call keys
//! share this machine, configured by [`Tags`] from the spec entry:
//! - `markers`: the start markers (roles `call_start`, `call_start_2`, ... in the spec: a format
//!   may have several spellings, e.g. granite's `<|tool_call|>` and `<tool_call>`), then the end
//!   marker (`call_end`) when the format closes its calls. The end marker may be missing; without
//!   one, text after the body is content.
//! - `array`: the body is a JSON array of call objects (`call.shape` = "array").
//! - `keys`: the keys that name the function and hold its arguments (`call.name_keys`,
//!   `call.args_keys`) and whether the arguments may be a JSON string holding the object
//!   (`arguments` = "json_object_or_json_string").
//! - `tentative` (`call.tentative`): the start marker is an ordinary word that prose may use
//!   (phi4_mini_json's `functools`): when what follows it is not a call list, the marker and
//!   what was read stay text instead of being malformed markup.
//!
//! After a body, whitespace and then a start marker begin another body (the previous end marker
//! missing); whitespace and then the end marker close it; anything else is content.

use super::{Machine, Region, RegionStep};
use crate::event::Emitter;
use crate::json::{CallKeys, Calls};
use crate::scan::{expect, Expect, Found, Markers};

/// How one tagged-JSON format writes its calls (built from its spec entry by `build.rs`).
#[derive(Debug)]
pub struct Tags {
    /// The start markers, then the end marker when the format closes its calls.
    pub markers: Markers,
    /// How many of `markers` are start markers.
    pub starts: usize,
    /// Whether the body is a JSON array of calls rather than one call object.
    pub array: bool,
    /// The call object's keys.
    pub keys: CallKeys,
    /// Whether a start marker not followed by calls is text (else malformed markup).
    pub tentative: bool,
}

#[derive(Debug)]
enum State {
    /// Plain text, looking for the start marker.
    Text,
    /// Inside the start marker's JSON.
    Body(Region),
    /// After a complete body: whitespace (kept: it is content if text follows without an end
    /// marker), then the end marker (which may be missing).
    After { ws: String },
    /// After malformed markup: everything is content.
    Fallback,
}

pub struct TaggedJson {
    tags: &'static Tags,
    start: Markers,
    st: State,
}

impl TaggedJson {
    pub fn new(tags: &'static Tags) -> Self {
        TaggedJson {
            tags,
            start: Markers::new(&tags.markers.list[..tags.starts]),
            st: State::Text,
        }
    }

    fn body(&self, opener: &str) -> State {
        let calls = if self.tags.array {
            Calls::array(self.tags.keys)
        } else {
            Calls::object(self.tags.keys, false)
        };
        State::Body(Region::new(calls, opener, self.tags.tentative))
    }
}

impl Machine for TaggedJson {
    fn feed(&mut self, input: &str, out: &mut Emitter) -> usize {
        let mut i = 0;
        while i < input.len() {
            let rest = &input[i..];
            match &mut self.st {
                State::Text => match self.start.find(rest) {
                    Found::Marker { at, which } => {
                        out.content(&rest[..at]);
                        let m = self.start.list[which];
                        i += at + m.len();
                        self.st = self.body(m);
                    }
                    Found::Partial { safe } => {
                        out.content(&rest[..safe]);
                        return i + safe;
                    }
                },
                State::Body(region) => match region.feed(rest, out) {
                    RegionStep::More => return input.len(),
                    RegionStep::Done(n) => {
                        i += n;
                        self.st = State::After { ws: String::new() };
                    }
                    RegionStep::Failed(n) => {
                        i += n;
                        self.st = State::Fallback;
                    }
                },
                State::After { ws } => match expect(rest, &self.tags.markers) {
                    Expect::Marker { which, end } if which < self.tags.starts => {
                        // Another call with the previous one's end marker missing.
                        let m = self.tags.markers.list[which];
                        i += end;
                        self.st = self.body(m);
                    }
                    Expect::Marker { end, .. } => {
                        i += end;
                        self.st = State::Text;
                    }
                    Expect::Wait { ws: n } => {
                        ws.push_str(&rest[..n]);
                        return i + n;
                    }
                    Expect::Other { at } => {
                        // No end marker: the whitespace starts the text.
                        ws.push_str(&rest[..at]);
                        out.content(ws);
                        i += at;
                        self.st = State::Text;
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
            State::Body(region) => region.finish(rest, out),
            // A truncated end marker: the call is complete, the rest is its markup.
            State::After { .. } => {}
        }
    }
}
