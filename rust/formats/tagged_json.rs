//! JSON tool calls between markers: `START {call} END` (hermes and its relatives) or
//! `START [{call}, ...] END`. Formats that differ only in their markers share this machine.

use super::{Machine, Region, RegionStep};
use crate::event::Emitter;
use crate::json::{Calls, CALL_KEYS};
use crate::scan::{expect, Expect, Found, Markers};

/// The markers of one tagged-JSON format (built from its spec entry by `build.rs`).
#[derive(Debug)]
pub struct Tags {
    /// `[start]`, or `[start, end]` when the format closes its calls.
    pub markers: Markers,
    /// Whether the body is a JSON array of calls rather than one call object.
    pub array: bool,
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
            start: Markers::new(&tags.markers.list[..1]),
            st: State::Text,
        }
    }

    fn body(&self, opener: &str) -> State {
        let calls = if self.tags.array {
            Calls::array(CALL_KEYS)
        } else {
            Calls::object(CALL_KEYS, false)
        };
        State::Body(Region::new(calls, opener, false))
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
                    Expect::Marker { which: 0, end } => {
                        // Another call with the previous one's end marker missing.
                        let m = self.tags.markers.list[0];
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
