//! A region of tool-call JSON after a start marker, read by the JSON-calls families.

use crate::event::Emitter;
use crate::json::Calls;
use crate::scan::{char_end, HOLD_MAX};
use crate::Step;

/// First window of text (bytes) a region reads before its call starts; it doubles while none starts.
const WINDOW: usize = 256;

/// A region of tool-call JSON after a start marker. Until the first call has started, the text
/// read is kept, so a region that turns out malformed (or, when `tentative`, not a call at all)
/// goes back to content whole. At most [`HOLD_MAX`] characters are kept: a region whose call has
/// not started by then fails there.
#[derive(Debug)]
pub(crate) struct Region {
    calls: Calls,
    raw: String,
    /// The characters in `raw`.
    held: usize,
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
            held: opener.chars().count(),
            tentative,
        }
    }

    pub(crate) fn feed(&mut self, s: &str, out: &mut Emitter) -> RegionStep {
        let mut i = 0;
        // Before the call starts, read no more than one character past the cap, in doubling
        // windows of the text (so a long text with many calls is not counted whole for each).
        let mut w = WINDOW;
        while !self.calls.started() {
            let rest = &s[i..];
            let mut end = w.min(rest.len());
            while !rest.is_char_boundary(end) {
                end -= 1;
            }
            let end = char_end(&rest[..end], (HOLD_MAX + 1).saturating_sub(self.held));
            let piece = &rest[..end];
            let r = self.calls.feed(piece, out);
            let used = match r {
                Step::NeedMore => end,
                Step::Done(n) | Step::Error(n) => n,
            };
            if self.calls.started() {
                self.raw.clear();
            } else {
                self.raw.push_str(&piece[..used]);
                self.held += piece[..used].chars().count();
            }
            if let Step::Done(n) | Step::Error(n) = r {
                return self.end(r, i + n, out);
            }
            i += end;
            if !self.calls.started() && self.held > HOLD_MAX {
                self.fail(out);
                return RegionStep::Failed(i);
            }
            if i == s.len() {
                return RegionStep::More;
            }
            w = w.saturating_mul(2);
        }
        // The call started: the rest is read uncapped.
        match self.calls.feed(&s[i..], out) {
            Step::NeedMore => RegionStep::More,
            r @ (Step::Done(n) | Step::Error(n)) => self.end(r, i + n, out),
        }
    }

    /// The calls ended (`r`: done or error) after `n` bytes of this input.
    fn end(&mut self, r: Step, n: usize, out: &mut Emitter) -> RegionStep {
        match r {
            Step::Done(_) if self.is_call() => RegionStep::Done(n),
            Step::Done(_) if self.tentative => {
                // Plain JSON in text that is not a call: it was content all along.
                out.content(&std::mem::take(&mut self.raw));
                RegionStep::Done(n)
            }
            // JSON after a start marker that is not a call: malformed markup.
            _ => {
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

    /// End of text inside the region: the call it holds is truncated. A tentative region whose
    /// call has not started may be plain text: it stays content.
    pub(crate) fn finish(&mut self, rest: &str, out: &mut Emitter) {
        self.raw.push_str(rest);
        if self.tentative && !self.calls.started() {
            out.content(&std::mem::take(&mut self.raw));
        } else {
            out.truncate(&std::mem::take(&mut self.raw));
        }
    }

    /// Whether the region held calls. An empty list holds none: after a start marker it is
    /// malformed markup (its text is not lost), in a tentative region it was text.
    pub(crate) fn is_call(&self) -> bool {
        self.calls.is_call() && self.calls.started()
    }
}
