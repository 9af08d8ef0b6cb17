//! JSON tool calls after a start marker: `START {call} END` (hermes, granite4, longcat,
//! internlm, gigachat3) or `START [{call}, ...] END` (jamba, hunyuan_a13b, granite,
//! phi4_mini_json, xlam). Formats that differ only in their markers, their shape and their call
//! keys share this machine, configured by [`Tags`] from the spec entry:
//! - `markers`: the end markers (roles `call_end`, `call_end_2`, ... in the spec), then the
//!   start markers (`call_start`, `call_start_2`, ...): a format may have several spellings,
//!   e.g. granite's `<|tool_call|>` and `<tool_call>`, xlam's ```` ```json ````, `[TOOL_CALLS]`
//!   and a bare `[`. An end marker may be missing; without one, text after the body is content.
//!   Where a string is both (xlam's ```` ``` ````), after a body it is the end marker. A start
//!   marker that is the body's own opening bracket (xlam's `[`) is left for the body to read.
//! - `array`: the body is a JSON array of call objects (`call.shape` = "array").
//! - `keys`: the keys that name the function and hold its arguments (`call.name_keys`,
//!   `call.args_keys`) and whether the arguments may be a JSON string holding the object
//!   (`arguments` = "json_object_or_json_string").
//! - `tentative` (`call.tentative`): a start marker is something prose may hold
//!   (phi4_mini_json's `functools`, xlam's `[` and fences): until a call has started, what
//!   follows it may turn out not to be calls, and then the marker and what was read are text
//!   (not malformed markup), an empty list included, and scanning goes on after them.
//!
//! After a body, whitespace and then a start marker begin another body (the previous end marker
//! missing); whitespace and then an end marker close it; anything else is content.

use super::{Machine, Region, RegionStep};
use crate::event::Emitter;
use crate::json::{CallKeys, Calls};
use crate::scan::{expect, Expect, Found, Markers};

/// How one tagged-JSON format writes its calls (built from its spec entry by `build.rs`).
#[derive(Debug)]
pub struct Tags {
    /// The end markers, then the start markers.
    pub markers: Markers,
    /// How many of `markers` are end markers.
    pub ends: usize,
    /// Whether the body is a JSON array of calls rather than one call object.
    pub array: bool,
    /// The call object's keys.
    pub keys: CallKeys,
    /// Whether a start marker not followed by calls is text (else malformed markup).
    pub tentative: bool,
}

#[derive(Debug)]
enum State {
    /// Plain text, looking for a start marker.
    Text,
    /// Inside the start marker's JSON.
    Body(Region),
    /// After a complete body: whitespace (kept: it is content if text follows without an end
    /// marker), then an end marker (which may be missing).
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
            start: Markers::new(&tags.markers.list[tags.ends..]),
            st: State::Text,
        }
    }

    /// How many bytes of start marker `m` the body does not read itself (its own `[` it does).
    fn skip(&self, m: &str) -> usize {
        if self.tags.array && m == "[" {
            0
        } else {
            m.len()
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
                        let k = self.skip(m);
                        i += at + k;
                        self.st = self.body(&m[..k]);
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
                        // A tentative body that held no call went back to content.
                        self.st = if region.is_call() {
                            State::After { ws: String::new() }
                        } else {
                            State::Text
                        };
                    }
                    RegionStep::Failed(n) => {
                        i += n;
                        // A tentative body that failed before a call started is text: scanning
                        // goes on from the offending character.
                        self.st = if out.malformed {
                            State::Fallback
                        } else {
                            State::Text
                        };
                    }
                },
                State::After { ws } => match expect(rest, &self.tags.markers) {
                    Expect::Marker { which, end } if which >= self.tags.ends => {
                        // Another call with the previous one's end marker missing.
                        let m = self.tags.markers.list[which];
                        let k = self.skip(m);
                        i += end - m.len() + k;
                        self.st = self.body(&m[..k]);
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
