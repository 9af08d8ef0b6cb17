//! What a parser emits, and the one place that turns events into streamed deltas and into the
//! non-streaming result.

use crate::scan::is_ws;

/// One thing a format state machine found in the text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Event {
    Content(String),
    Reasoning(String),
    /// A call begins; `id` is set only when the format carries its own id (else the caller makes one).
    ToolStart {
        index: usize,
        id: Option<String>,
        name: String,
    },
    ToolArgs {
        index: usize,
        fragment: String,
    },
    ToolEnd {
        index: usize,
    },
    /// The open call is not a call after all, though its markup is well formed (a pythonic
    /// call with a value that has no JSON form): the non-streaming result leaves it out and
    /// keeps the calls around it; a stream has sent its start and arguments so far, and the
    /// call never ends.
    Dropped {
        index: usize,
    },
    /// The text ended inside a call: the markup that call left unemitted (its start marker, a
    /// header, JSON read before its name). A stream sends it as content (nothing is lost); the
    /// non-streaming result drops it, with the unfinished call, when a complete call precedes it.
    Unfinished(String),
}

/// Collects events for the format machines and applies the rules every format shares:
/// adjacent fragments are coalesced, call indices are assigned in order, and whitespace that only
/// separates or surrounds tool calls is not content (a whitespace-only run at the start of a
/// content segment is held until non-whitespace follows, a call starts, or the text ends; a run
/// longer than [`WS_MAX`](crate::scan::WS_MAX) is content from then on, so what is held stays bounded).
#[derive(Debug, Default)]
pub struct Emitter {
    pub events: Vec<Event>,
    /// Set when the tool markup was malformed: non-streaming then falls back to the original
    /// text as content.
    pub malformed: bool,
    /// Set when the text ended inside a call (see [`Emitter::truncate`]).
    pub truncated: bool,
    /// Set when the text ended with a bare call start (see [`Emitter::truncate`]): no call
    /// began, so the content emitted is the whole output without it (no fallback to the text).
    pub cut: bool,
    /// The calls dropped after their start was emitted (see [`Event::Dropped`]), in order.
    pub dropped: Vec<usize>,
    calls: usize,
    open: Option<usize>,
    ws: String,
    seg_text: bool,
    /// Markup dropped wherever the machine emits it as content (an end-of-reasoning marker met
    /// outside a block, a turn-end tag); set by the driver from the spec.
    drop: Vec<&'static str>,
    /// The end of the content so far that could still become one of `drop`.
    pending: String,
    /// The markers that begin a call (its format's `call_start` and `section_start` roles).
    starts: Vec<&'static str>,
    /// The ids the model gave earlier calls of this response.
    ids: std::collections::HashSet<String>,
    /// Spans whose tags are markup (the format's `span_markup`), if any.
    span: Option<SpanRule>,
    /// The span state of the content and of the reasoning.
    span_content: SpanState,
    span_reasoning: SpanState,
    /// Think blocks anywhere in the content (`BlockRule`), if the reasoning format has them.
    blocks: Option<Box<Blocks>>,
}

/// Spans whose tags are markup, dropped from content and reasoning (cohere's
/// `<co>X</co: 0:[1]>` is `X`): `open` is dropped wherever it stands; after an open, a close
/// (`close_start` ... `close_end`, at most `max` characters in all) is dropped; a close that does
/// not end within `max` characters is text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SpanRule {
    pub open: &'static str,
    pub close_start: &'static str,
    pub close_end: &'static str,
    pub max: usize,
}

/// One stream's place among spans: whether a span is open, and the end of the text so far that
/// could still become a tag (held back).
#[derive(Debug, Default)]
struct SpanState {
    open: bool,
    held: String,
}

impl SpanRule {
    /// Feeds `s` after the text held in `st`; returns the text that is not markup. At the `end`
    /// nothing is held.
    fn feed(&self, st: &mut SpanState, s: &str, end: bool) -> String {
        let buf = std::mem::take(&mut st.held) + s;
        let mut out = String::new();
        let mut pos = 0; // start of text not yet copied to out
        let mut i = 0;
        while i < buf.len() {
            let rest = &buf[i..];
            if rest.starts_with(self.open) {
                out.push_str(&buf[pos..i]);
                i += self.open.len();
                pos = i;
                st.open = true;
                continue;
            }
            if st.open && rest.starts_with(self.close_start) {
                let window = crate::scan::char_end(rest, self.max);
                let after = &rest[self.close_start.len().min(window)..window];
                if let Some(k) = after.find(self.close_end) {
                    out.push_str(&buf[pos..i]);
                    i += self.close_start.len() + k + self.close_end.len();
                    pos = i;
                    st.open = false;
                    continue;
                }
                if window == rest.len() && !end {
                    break; // may still end within the bound
                }
            } else if !end
                && rest.len() < self.open.len().max(self.close_start.len())
                && (self.open.starts_with(rest) || (st.open && self.close_start.starts_with(rest)))
            {
                break; // may still become a tag
            }
            i += rest.chars().next().map_or(1, char::len_utf8);
        }
        out.push_str(&buf[pos..i]);
        buf[i..].clone_into(&mut st.held);
        out
    }
}

/// The longest run of whitespace at the end of the reasoning that `trim` drops.
pub const TRAIL_CAP: usize = 64;

/// Reasoning text whose ending run of whitespace is dropped (`trim`): the open run of whitespace
/// at the end of the reasoning so far is held back, up to [`TRAIL_CAP`] bytes (a longer run is
/// reasoning, all of it), and dropped when the block closes. Shared with the machines that
/// separate reasoning themselves (inkling).
#[derive(Debug, Default)]
pub struct Trail {
    ws: String,
    /// The open run grew past [`TRAIL_CAP`]; it is reasoning.
    long: bool,
}

impl Trail {
    /// Emits reasoning, holding back the open run of whitespace at its end.
    pub fn emit(&mut self, s: &str, out: &mut Emitter) {
        if s.is_empty() {
            return;
        }
        let body = s.trim_end_matches(is_ws);
        if body.is_empty() {
            if self.long {
                out.reasoning(s);
            } else {
                self.ws.push_str(s);
                if self.ws.len() > TRAIL_CAP {
                    out.reasoning(&std::mem::take(&mut self.ws));
                    self.long = true;
                }
            }
            return;
        }
        out.reasoning(&std::mem::take(&mut self.ws));
        out.reasoning(body);
        self.long = false;
        self.emit(&s[body.len()..], out);
    }

    /// The block ended: the held run of whitespace at its end is dropped.
    pub fn close(&mut self) {
        self.ws.clear();
        self.long = false;
    }
}

/// The reasoning of one think block as it is emitted, the same in the front
/// (`crate::reasoning`) and in the blocks anywhere ([`BlockRule`]): at the start of a block
/// (`open`) the reasoning is held while it may still be the `label` and a newline, which are
/// markup (dropped); a block whose whole reasoning is the label is empty; other text is
/// reasoning as written. With `trim` the run of whitespace that ends the reasoning is dropped
/// ([`Trail`]).
#[derive(Debug, Default)]
pub struct Label {
    /// The label a block may begin with (gemma4's channel name; empty: none).
    name: &'static str,
    trim: bool,
    /// At the start of a block, while its reasoning may still be the label.
    fresh: bool,
    /// The reasoning held while it may still be the label and a newline.
    held: String,
    /// `trim`: the open run of whitespace at the end of the reasoning so far.
    trail: Trail,
}

impl Label {
    pub fn new(name: &'static str, trim: bool) -> Self {
        Label {
            name,
            trim,
            ..Self::default()
        }
    }

    /// A block opens: its reasoning may begin with the label.
    pub fn open(&mut self) {
        self.fresh = true;
    }

    /// Emits reasoning; at the start of a block, holds it while it may still be the label and a
    /// newline (dropped when it is); with `trim`, holds back the open run of whitespace at its
    /// end.
    pub fn emit(&mut self, s: &str, out: &mut Emitter) {
        let label = self.name;
        if !self.fresh || label.is_empty() {
            return self.body(s, out);
        }
        self.held.push_str(s);
        let held = self.held.as_str();
        if let Some(rest) = held.strip_prefix(label).and_then(|r| r.strip_prefix('\n')) {
            let rest = rest.to_owned();
            self.fresh = false;
            self.held.clear();
            return self.body(&rest, out);
        }
        let may = held.len() <= label.len() + 1
            && label
                .as_bytes()
                .iter()
                .chain(b"\n")
                .zip(held.as_bytes())
                .all(|(a, b)| a == b);
        if !may {
            self.fresh = false;
            let held = std::mem::take(&mut self.held);
            self.body(&held, out);
        }
    }

    /// Emits reasoning; with `trim`, holds back the open run of whitespace at its end.
    fn body(&mut self, s: &str, out: &mut Emitter) {
        if self.trim {
            self.trail.emit(s, out);
        } else {
            out.reasoning(s);
        }
    }

    /// The block ended: reasoning held as a possible label is reasoning unless it is the label
    /// (the whole block: empty); a held run of whitespace at its end is dropped (`trim`).
    pub fn close(&mut self, out: &mut Emitter) {
        if self.fresh {
            self.fresh = false;
            let held = std::mem::take(&mut self.held);
            if held != self.name {
                self.body(&held, out);
            }
        }
        self.trail.close();
    }
}

/// Think blocks anywhere in the content (a reasoning format's `blocks_anywhere`: gemma4's
/// channel, as vLLM's engine reads it), with the rules of the front's block
/// (`crate::reasoning`): outside a block a start marker opens one; inside, the text is reasoning,
/// an end marker closes the block, a start marker is markup, and a call start closes it (the
/// marker goes on as content; a call the machine starts closes it too). At the start of a block
/// its `label` and a newline are markup (the label alone: an empty block); with `trim` the run of
/// whitespace that ends the reasoning is dropped ([`Label`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BlockRule {
    /// `[ends..., starts..., call starts...]`: what ends a block, opens one, starts a call.
    pub scan: &'static [&'static str],
    /// How many of `scan` end a block.
    pub ends: usize,
    /// The markers that open a block.
    pub starts: &'static [&'static str],
    pub label: &'static str,
    pub trim: bool,
}

/// One stream's place among the blocks of a [`BlockRule`].
#[derive(Debug)]
struct Blocks {
    rule: BlockRule,
    open: bool,
    /// The end of the text so far that could still become a marker.
    held: String,
    /// The reasoning of the open block (its label and its trailing whitespace).
    label: Label,
}

impl Blocks {
    /// Feeds content text; at the `end` nothing is held (a marker a longer one might have
    /// extended is that marker).
    fn feed(&mut self, s: &str, end: bool, out: &mut Emitter) {
        let buf = std::mem::take(&mut self.held) + s;
        let mut pos = 0;
        loop {
            let list = if self.open {
                self.rule.scan
            } else {
                self.rule.starts
            };
            let (at, which) = match crate::scan::find_in(list, &buf[pos..]) {
                crate::scan::Found::Marker { at, which } => (at, Some(which)),
                crate::scan::Found::Partial { safe } if end => {
                    let rest = &buf[pos + safe..];
                    let longest = (0..list.len())
                        .filter(|&i| rest.starts_with(list[i]))
                        .max_by_key(|&i| list[i].len());
                    (safe, longest)
                }
                crate::scan::Found::Partial { safe } => (safe, None),
            };
            self.text(&buf[pos..pos + at], out);
            pos += at;
            let Some(which) = which else {
                if end {
                    self.text(&buf[pos..], out);
                } else {
                    self.held.push_str(&buf[pos..]);
                }
                return;
            };
            let len = list[which].len();
            if !self.open {
                self.open = true;
                self.label.open();
                pos += len;
            } else if which < self.rule.ends {
                self.close(out);
                pos += len;
            } else if which < self.rule.ends + self.rule.starts.len() {
                pos += len;
            } else {
                self.close(out); // a call start: content from the marker on
            }
        }
    }

    fn text(&mut self, s: &str, out: &mut Emitter) {
        if s.is_empty() {
        } else if self.open {
            self.label.emit(s, out);
        } else {
            out.content_plain(s);
        }
    }

    /// The block ends: what [`Label`] holds is what it is.
    fn close(&mut self, out: &mut Emitter) {
        self.label.close(out);
        self.open = false;
    }

    /// Something else follows (a call starts, the text ends): what is held is what it is, and an
    /// open block closes.
    fn end(&mut self, out: &mut Emitter) {
        self.feed("", true, out);
        if self.open {
            self.close(out);
        }
    }
}

impl Emitter {
    pub fn new() -> Self {
        Self::default()
    }

    /// The driver's rules from the spec: the markup dropped from content, and the markers that
    /// begin a call.
    pub fn with_rules(drop: Vec<&'static str>, starts: Vec<&'static str>) -> Self {
        Emitter {
            drop,
            starts,
            ..Self::default()
        }
    }

    /// The spans whose tags are markup in content and reasoning (the format's `span_markup`).
    pub fn set_span(&mut self, span: Option<SpanRule>) {
        self.span = span;
    }

    /// The think blocks that open anywhere in the content (a reasoning format's
    /// `blocks_anywhere`).
    pub fn set_blocks(&mut self, rule: Option<BlockRule>) {
        self.blocks = rule.map(|rule| {
            Box::new(Blocks {
                rule,
                open: false,
                held: String::new(),
                label: Label::new(rule.label, rule.trim),
            })
        });
    }

    /// The blocks' held text is what it is (something else follows), an open block closes.
    fn end_blocks(&mut self) {
        if let Some(mut b) = self.blocks.take() {
            b.end(self);
            self.blocks = Some(b);
        }
    }

    /// Reasoning held back as a possible span tag is reasoning after all.
    fn flush_reasoning(&mut self) {
        if let Some(rule) = self.span {
            if !self.span_reasoning.held.is_empty() {
                let r = rule.feed(&mut self.span_reasoning, "", true);
                self.push_reasoning(&r);
            }
        }
    }

    /// Plain content text. Markup of `drop` in it is dropped (held back while the end of the
    /// content could still become one), and span tags (`span`).
    pub fn content(&mut self, s: &str) {
        if s.is_empty() {
            return;
        }
        if let Some(mut b) = self.blocks.take() {
            b.feed(s, false, self);
            self.blocks = Some(b);
            return;
        }
        self.content_plain(s);
    }

    /// Content outside think blocks: the markup rules.
    fn content_plain(&mut self, s: &str) {
        self.flush_reasoning();
        if let Some(rule) = self.span {
            let t = rule.feed(&mut self.span_content, s, false);
            return self.content_dropping(&t);
        }
        self.content_dropping(s);
    }

    fn content_dropping(&mut self, s: &str) {
        if s.is_empty() {
            return;
        }
        if self.drop.is_empty() {
            return self.text(s);
        }
        let joined;
        let s = if self.pending.is_empty() {
            s
        } else {
            joined = std::mem::take(&mut self.pending) + s;
            joined.as_str()
        };
        let mut pos = 0;
        loop {
            match crate::scan::find_in(&self.drop, &s[pos..]) {
                crate::scan::Found::Marker { at, which } => {
                    self.text(&s[pos..pos + at]);
                    pos += at + self.drop[which].len();
                }
                crate::scan::Found::Partial { safe } => {
                    self.text(&s[pos..pos + safe]);
                    self.pending.push_str(&s[pos + safe..]);
                    return;
                }
            }
        }
    }

    /// Whether some markup is dropped from content.
    pub fn drops(&self) -> bool {
        !self.drop.is_empty()
    }

    /// Whether some markup is dropped from content (a dropped marker or span tags).
    pub fn drops_any(&self) -> bool {
        !self.drop.is_empty() || self.span.is_some()
    }

    /// `s` without the markup dropped from content (a whole text at once), and without its think
    /// blocks (`blocks_anywhere`).
    pub fn strip(&self, s: &str) -> String {
        if let Some(b) = &self.blocks {
            let mut e = Emitter::with_rules(self.drop.clone(), Vec::new());
            e.span = self.span;
            e.set_blocks(Some(b.rule));
            e.content(s);
            e.end_blocks();
            e.flush();
            let ws = std::mem::take(&mut e.ws);
            e.push_content(&ws);
            let mut out = String::new();
            for ev in e.events {
                if let Event::Content(c) = ev {
                    out.push_str(&c);
                }
            }
            return out;
        }
        let s = match self.span {
            Some(rule) => rule.feed(&mut SpanState::default(), s, true),
            None => s.to_owned(),
        };
        crate::scan::strip_all(&self.drop, &s)
    }

    /// Content held back as a possible dropped marker or span tag is content after all
    /// (something else follows it); so is reasoning held back as a possible span tag.
    fn flush(&mut self) {
        self.flush_reasoning();
        if let Some(rule) = self.span {
            if !self.span_content.held.is_empty() {
                let t = rule.feed(&mut self.span_content, "", true);
                self.content_dropping(&t);
            }
        }
        if !self.pending.is_empty() {
            let p = std::mem::take(&mut self.pending);
            self.text(&p);
        }
    }

    /// Content after the markup rules: the whitespace rule.
    fn text(&mut self, s: &str) {
        if s.is_empty() {
            return;
        }
        if !self.seg_text {
            let t = s.trim_start_matches(is_ws);
            if t.is_empty() {
                self.ws.push_str(s);
                if self.ws.len() > crate::scan::WS_MAX {
                    // past the cap the run is content
                    self.seg_text = true;
                    let ws = std::mem::take(&mut self.ws);
                    self.push_content(&ws);
                }
                return;
            }
            self.seg_text = true;
            if !self.ws.is_empty() {
                let ws = std::mem::take(&mut self.ws);
                self.push_content(&ws);
            }
        }
        self.push_content(s);
    }

    fn push_content(&mut self, s: &str) {
        if let Some(Event::Content(c)) = self.events.last_mut() {
            c.push_str(s);
        } else {
            self.events.push(Event::Content(s.to_owned()));
        }
    }

    pub fn reasoning(&mut self, s: &str) {
        if s.is_empty() {
            return;
        }
        self.flush_content();
        match self.span {
            Some(rule) => {
                let r = rule.feed(&mut self.span_reasoning, s, false);
                self.push_reasoning(&r);
            }
            None => self.push_reasoning(s),
        }
    }

    /// Content held back is content after all (reasoning follows).
    fn flush_content(&mut self) {
        let held = std::mem::take(&mut self.span_reasoning.held);
        self.flush();
        self.span_reasoning.held = held;
    }

    fn push_reasoning(&mut self, s: &str) {
        if s.is_empty() {
            return;
        }
        if let Some(Event::Reasoning(c)) = self.events.last_mut() {
            c.push_str(s);
        } else {
            self.events.push(Event::Reasoning(s.to_owned()));
        }
    }

    /// Starts a call and returns its index. Whitespace held before it is dropped.
    /// A call starts. `id` is the one the model gave it, if any: an id an earlier call of this
    /// response already has is not reused (ids tell calls apart), the call gets a generated one.
    pub fn tool_start(&mut self, id: Option<String>, name: String) -> usize {
        let id = id.filter(|i| self.ids.insert(i.clone()));
        self.end_blocks();
        self.flush();
        self.ws.clear();
        self.seg_text = false;
        let index = self.calls;
        self.calls += 1;
        self.open = Some(index);
        self.events.push(Event::ToolStart { index, id, name });
        index
    }

    /// An arguments fragment of the open call.
    pub fn args(&mut self, s: &str) {
        let Some(index) = self.open else { return };
        if s.is_empty() {
            return;
        }
        if let Some(Event::ToolArgs { index: i, fragment }) = self.events.last_mut() {
            if *i == index {
                fragment.push_str(s);
                return;
            }
        }
        self.events.push(Event::ToolArgs {
            index,
            fragment: s.to_owned(),
        });
    }

    /// An arguments fragment of the open call written by `write` straight into the event (no
    /// intermediate string), e.g. text escaped as JSON. `write` runs (and its result is returned)
    /// also when no call is open; what it writes is then dropped.
    pub fn args_with<R>(&mut self, write: impl FnOnce(&mut String) -> R) -> R {
        let Some(index) = self.open else {
            return write(&mut String::new());
        };
        match self.events.last_mut() {
            Some(Event::ToolArgs { index: i, fragment }) if *i == index => write(fragment),
            _ => {
                let mut fragment = String::new();
                let r = write(&mut fragment);
                if !fragment.is_empty() {
                    self.events.push(Event::ToolArgs { index, fragment });
                }
                r
            }
        }
    }

    /// The open call is dropped (see [`Event::Dropped`]): what is written for it from now on
    /// (arguments, its end) goes nowhere.
    pub fn drop_call(&mut self) {
        if let Some(index) = self.open.take() {
            self.events.push(Event::Dropped { index });
            self.dropped.push(index);
        }
        self.seg_text = false;
    }

    pub fn tool_end(&mut self) {
        if let Some(index) = self.open.take() {
            self.events.push(Event::ToolEnd { index });
        }
        self.seg_text = false;
    }

    /// End of text inside a call. `markup` is what the unfinished call has not emitted yet (empty
    /// once its start was emitted): with the whitespace held before it, it becomes
    /// [`Event::Unfinished`] (without the markup `drop` names). When no call is open and that is
    /// only call-start markers and whitespace, the text was cut before the call began: it is
    /// markup, and is dropped (`cut`).
    pub fn truncate(&mut self, markup: &str) {
        self.flush();
        self.truncated = true;
        let mut s = std::mem::take(&mut self.ws);
        s.push_str(markup);
        if self.open.is_none() && bare_starts(&s, &self.starts) {
            self.cut = true;
            return;
        }
        if !self.drop.is_empty() {
            s = crate::scan::strip_all(&self.drop, &s);
        }
        if !s.is_empty() {
            self.events.push(Event::Unfinished(s));
        }
    }

    /// End of text inside the start markup of a call that has not begun (a header naming a
    /// function, cut off): like a bare call start, it is markup, and is dropped (`cut`) with the
    /// whitespace held before it.
    pub fn truncate_start(&mut self) {
        self.flush();
        self.truncated = true;
        self.ws.clear();
        if self.open.is_none() {
            self.cut = true;
        }
    }

    /// End of text: whitespace-only output with no call is content; a call left open is truncated.
    pub fn finish(&mut self) {
        self.end_blocks();
        self.flush();
        if !self.ws.is_empty() && self.calls == 0 {
            let ws = std::mem::take(&mut self.ws);
            self.push_content(&ws);
        }
        self.ws.clear();
        if self.open.is_some() {
            self.truncated = true;
        }
    }

    /// The call that has started and not ended (after `finish`: the call the text ended inside).
    pub fn open_call(&self) -> Option<usize> {
        self.open
    }

    /// Takes the events emitted since the last call.
    pub fn take(&mut self) -> Vec<Event> {
        std::mem::take(&mut self.events)
    }

    /// The events emitted since the last call, leaving the emitter their buffer's capacity (a
    /// stream's per-delta path allocates no event list).
    pub fn drain(&mut self) -> std::vec::Drain<'_, Event> {
        self.events.drain(..)
    }
}

/// Whether `s` is one or more of `starts`, with only whitespace around and between them.
fn bare_starts(s: &str, starts: &[&str]) -> bool {
    let mut rest = s.trim_start_matches(is_ws);
    if rest.is_empty() {
        return false;
    }
    while !rest.is_empty() {
        let Some(m) = starts
            .iter()
            .filter(|m| !m.is_empty() && rest.starts_with(**m))
            .max_by_key(|m| m.len())
        else {
            return false;
        };
        rest = rest[m.len()..].trim_start_matches(is_ws);
    }
    true
}

/// A tool-call fragment of one streamed delta.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct DeltaCall {
    pub index: usize,
    /// `Some` on the first fragment of a call: (id given by the format, name).
    pub start: Option<(Option<String>, String)>,
    pub args: Option<String>,
}

/// Everything one `feed` produced, merged the way an OpenAI delta carries it.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Delta {
    pub content: Option<String>,
    pub reasoning: Option<String>,
    pub calls: Vec<DeltaCall>,
}

impl Delta {
    /// Merges one feed's events; `None` when there is nothing to send.
    pub fn from_events(events: impl IntoIterator<Item = Event>) -> Option<Delta> {
        let mut d = Delta::default();
        for ev in events {
            match ev {
                Event::Content(s) | Event::Unfinished(s) => append(&mut d.content, s),
                Event::Reasoning(s) => append(&mut d.reasoning, s),
                Event::ToolStart { index, id, name } => d.calls.push(DeltaCall {
                    index,
                    start: Some((id, name)),
                    args: None,
                }),
                Event::ToolArgs { index, fragment } => match d.calls.last_mut() {
                    Some(c) if c.index == index => append(&mut c.args, fragment),
                    _ => d.calls.push(DeltaCall {
                        index,
                        start: None,
                        args: Some(fragment),
                    }),
                },
                Event::ToolEnd { .. } | Event::Dropped { .. } => {}
            }
        }
        if d.content.is_none() && d.reasoning.is_none() && d.calls.is_empty() {
            None
        } else {
            Some(d)
        }
    }
}

fn append(slot: &mut Option<String>, s: String) {
    match slot {
        Some(t) => t.push_str(&s),
        None => *slot = Some(s),
    }
}

/// A complete call of the non-streaming result.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Call {
    pub id: Option<String>,
    pub name: String,
    pub arguments: String,
}

/// The non-streaming result, before the caller's fallback rule is applied: with `malformed`,
/// or with `truncated` and no call, the caller returns the original text as content.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Extracted {
    pub content: Option<String>,
    pub reasoning: Option<String>,
    /// The complete calls (a call the text ended inside is not one).
    pub calls: Vec<Call>,
    pub malformed: bool,
    /// The text ended inside a call.
    pub truncated: bool,
}

impl Extracted {
    pub fn from_events(events: Vec<Event>, malformed: bool, truncated: bool) -> Extracted {
        let mut x = Extracted {
            malformed,
            truncated,
            ..Extracted::default()
        };
        let mut ended = Vec::new();
        let mut dropped = Vec::new();
        for ev in events {
            match ev {
                Event::Content(s) => append(&mut x.content, s),
                Event::Reasoning(s) => append(&mut x.reasoning, s),
                Event::ToolStart { id, name, .. } => {
                    x.calls.push(Call {
                        id,
                        name,
                        arguments: String::new(),
                    });
                    ended.push(false);
                    dropped.push(false);
                }
                Event::ToolArgs { index, fragment } => match x.calls.get_mut(index) {
                    Some(c) if c.arguments.is_empty() => c.arguments = fragment,
                    Some(c) => c.arguments.push_str(&fragment),
                    None => x.malformed = true,
                },
                Event::ToolEnd { index } => match ended.get_mut(index) {
                    Some(e) => *e = true,
                    None => x.malformed = true,
                },
                Event::Dropped { index } => match dropped.get_mut(index) {
                    Some(d) => *d = true,
                    None => x.malformed = true,
                },
                // The markup of the call the text ended inside: not content.
                Event::Unfinished(_) => x.truncated = true,
            }
        }
        if dropped.iter().any(|&d| d) {
            let mut d = dropped.iter();
            x.calls.retain(|_| !d.next().copied().unwrap_or(false));
            let mut d = dropped.iter();
            ended.retain(|_| !d.next().copied().unwrap_or(false));
        }
        if ended.iter().any(|e| !e) {
            if x.truncated {
                let mut e = ended.iter();
                x.calls.retain(|_| e.next().copied().unwrap_or(false));
            } else {
                x.malformed = true;
            }
        }
        x
    }
}

#[cfg(test)]
mod tests;
