//! The registry of formats and the driver every format machine runs under.

use std::collections::HashMap;

use crate::event::{Delta, Emitter, Event, Extracted};
use crate::json::Calls;
use crate::Step;

mod llama3_json;
mod mistral;
mod openai;
mod pythonic;
mod qwen3_coder;
mod tagged_json;

/// A format state machine. `feed` consumes as much of `input` as can be decided now and returns
/// how many bytes it consumed; the unconsumed suffix is given again, with the next delta appended,
/// and must be bounded (a possible marker prefix). `finish` receives that suffix at end of text.
pub trait Machine: Send + Sync {
    fn feed(&mut self, input: &str, out: &mut Emitter) -> usize;
    fn finish(&mut self, rest: &str, out: &mut Emitter);
}

/// JSON Schema facts about the tools a request offers: function name -> parameter name -> type
/// (the schema's `type`, or "" when it has none).
#[derive(Debug, Clone, Default)]
pub struct Tools {
    pub functions: HashMap<String, HashMap<String, String>>,
}

type Ctor = fn(&Tools) -> Box<dyn Machine>;

/// Every format: its name and how to build its machine. One line per format.
const REGISTRY: &[(&str, Ctor)] = &[
    ("hermes", tagged_json::hermes),
    ("llama3_json", llama3_json::new),
    ("mistral", mistral::new),
    ("openai", openai::new),
    ("pythonic", pythonic::pythonic),
    ("llama4_pythonic", pythonic::llama4),
    ("qwen3_coder", qwen3_coder::new),
];

/// A known format.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Format(usize);

impl Format {
    pub fn from_name(name: &str) -> Option<Format> {
        REGISTRY.iter().position(|(n, _)| *n == name).map(Format)
    }

    pub fn name(self) -> &'static str {
        REGISTRY[self.0].0
    }

    pub fn all() -> impl Iterator<Item = Format> {
        (0..REGISTRY.len()).map(Format)
    }

    pub fn names() -> Vec<&'static str> {
        REGISTRY.iter().map(|(n, _)| *n).collect()
    }

    fn machine(self, tools: &Tools) -> Box<dyn Machine> {
        (REGISTRY[self.0].1)(tools)
    }
}

/// One response's parser: feed deltas, then finish.
pub struct Parser {
    machine: Box<dyn Machine>,
    held: String,
    out: Emitter,
    finished: bool,
}

impl Parser {
    pub fn new(format: Format, tools: &Tools) -> Parser {
        Parser {
            machine: format.machine(tools),
            held: String::new(),
            out: Emitter::new(),
            finished: false,
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
        Delta::from_events(self.feed(text))
    }

    pub fn finish_delta(&mut self) -> Option<Delta> {
        Delta::from_events(self.finish())
    }

    /// Whether the tool markup seen so far was malformed or (after finish) truncated.
    pub fn malformed(&self) -> bool {
        self.out.malformed
    }

    pub fn is_finished(&self) -> bool {
        self.finished
    }

    /// Streams `chunks` one delta at a time and returns what a client would have reconstructed
    /// (the per-delta work of a server, without making delta objects).
    pub fn replay<S: AsRef<str>>(format: Format, tools: &Tools, chunks: &[S]) -> Extracted {
        let mut p = Parser::new(format, tools);
        for c in chunks {
            p.push(c.as_ref());
        }
        p.into_extracted()
    }

    /// Finishes and returns everything emitted since the last `feed`/`take`, as one result
    /// (what a client reconstructs from the whole stream when fed with `push`).
    pub fn into_extracted(mut self) -> Extracted {
        self.end();
        Extracted::from_events(self.out.take(), self.malformed())
    }

    /// Non-streaming: the same machine fed the whole text at once.
    pub fn extract(format: Format, tools: &Tools, text: &str) -> Extracted {
        let mut p = Parser::new(format, tools);
        let mut events = p.feed(text);
        events.extend(p.finish());
        Extracted::from_events(events, p.malformed())
    }
}

/// A region of tool-call JSON after a start marker. Until the first call has started, the text
/// read is kept, so a region that turns out malformed (or, when `tentative`, not a call at all)
/// goes back to content whole.
#[derive(Debug)]
pub(crate) struct Region {
    calls: Calls,
    raw: String,
    tentative: bool,
}

/// What a region did with its input.
pub(crate) enum RegionStep {
    /// Everything consumed; more text needed.
    More,
    /// The region ended after `n` bytes of this input.
    Done(usize),
    /// The region failed; text from byte `n` on is not part of it and belongs to content.
    Failed(usize),
}

impl Region {
    /// `opener` is the markup already consumed for this region (it goes back to content too).
    pub(crate) fn new(calls: Calls, opener: &str, tentative: bool) -> Region {
        Region {
            calls,
            raw: opener.to_owned(),
            tentative,
        }
    }

    pub(crate) fn feed(&mut self, s: &str, out: &mut Emitter) -> RegionStep {
        let r = self.calls.feed(s, out);
        let used = match r {
            Step::NeedMore => s.len(),
            Step::Done(n) | Step::Error(n) => n,
        };
        if !self.calls.started() {
            self.raw.push_str(&s[..used]);
        } else {
            self.raw.clear();
        }
        match r {
            Step::NeedMore => RegionStep::More,
            Step::Done(n) if self.calls.is_call() => RegionStep::Done(n),
            Step::Done(n) if self.tentative => {
                // Plain JSON in text that is not a call: it was content all along.
                out.content(&std::mem::take(&mut self.raw));
                RegionStep::Done(n)
            }
            // JSON after a start marker that is not a call: malformed markup.
            Step::Done(n) | Step::Error(n) => {
                self.fail(out);
                RegionStep::Failed(n)
            }
        }
    }

    fn fail(&mut self, out: &mut Emitter) {
        if self.calls.started() {
            out.malformed = true;
        } else {
            if !self.tentative {
                out.malformed = true;
            }
            out.content(&std::mem::take(&mut self.raw));
        }
    }

    /// End of text inside the region.
    pub(crate) fn finish(&mut self, rest: &str, out: &mut Emitter) {
        self.raw.push_str(rest);
        self.fail(out);
    }

    pub(crate) fn is_call(&self) -> bool {
        self.calls.is_call()
    }
}

#[cfg(test)]
mod invariants;

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
        sorted.dedup();
        assert_eq!(sorted.len(), names.len());
        assert!(Format::from_name("nope").is_none());
    }
}
