//! The think-block front every format machine shares: one state machine run by the driver
//! (`formats::Parser`) in the same pass as the tool machine. While a block is open it emits
//! reasoning and looks for the block's end marker and for the paired tool format's call-start
//! markers; once the block is over, the rest of the text goes to the tool machine unchanged.
//!
//! Rules (the twin `python/toolparse/reference/reasoning.py` has the same):
//! - Not started (`started = false`): optional whitespace and the start marker at the beginning
//!   open a block (that whitespace and the marker are markup); anything else ends the front and
//!   the whole text goes to the tool machine (a stray end marker is then content). Whitespace
//!   before the marker is held up to [`LEAD_CAP`] bytes, past which the output is content. While
//!   a longer start marker may still follow, the text is held (gemma4's `<|channel>thought\n`).
//! - Started (the prompt opened the block): the output starts inside the block.
//! - Inside: the end marker ends the block (markup); a start marker is markup (repeated or
//!   nested openings, as vLLM absorbs them); a call-start marker ends the block and the text from
//!   the marker on goes to the tool machine, so the call is parsed, not swallowed. Held back: only
//!   a suffix that could still become one of those markers.
//! - The end of the text inside a block: the block is reasoning (what was held back too), but a
//!   marker held because a longer one might have extended it is that marker (hunyuan's
//!   `</think>` at the end, not reasoning).
//! - Stray end (`stray_end_text`, `minimax_m3`): an end marker outside a block is text, except one
//!   that leads the output (after whitespace, held up to [`LEAD_CAP`] bytes), which is markup;
//!   without it the driver drops an end marker outside a block wherever it stands.
//! - Anywhere (`blocks_anywhere`, gemma4): once the front handed over, a start marker in the
//!   content opens a block again, with the same rules; the driver's emitter reads those blocks
//!   (`crate::event::BlockRule`), so markers inside a call's arguments stay there.
//! - Alternates (`also_start`, `also_end`): other spellings of the start and end markers, with
//!   the same roles (granite's "Here's" for "Here is").
//! - Trim (`trim`, vLLM's engine parsers): the run of whitespace that ends the reasoning (before
//!   the end marker, a call start or the end of the text) is dropped as markup when it is at most
//!   [`TRAIL_CAP`] bytes; a longer run is reasoning. While a run is open it is held back.
//! - Prefix (`content_prefix`, `minimax_m2_append_think)`: nothing is reasoning; the prefix is
//!   content before the whole output, which goes to the tool machine as it is.
//! - Framing (`content_end`, `hunyuan_a13b`'s `\n</answer>`): the end marker may open a content
//!   wrapper (`\n</think>\n<answer>\n`); its closing marker is dropped from content by the driver,
//!   like an end marker outside a block.
//! - Lstrip (`content_lstrip`, `granite_thinking_parser`'s newline): after the end marker the front
//!   keeps the text while it is only those characters (state `After`), and drops them: the rest
//!   goes to the tool machine from the first other character.
//! - Label (`label`, gemma4's `thought`): at the start of a block the reasoning is held while it
//!   may still be the label and a newline (dropped, as markup); a block whose whole reasoning is
//!   the label is empty (`<|channel>thought<channel|>`); other text is reasoning as written.
//! - Turn end (`turn_end`, plamo3's `<|plamo:tag|>`): one of the `ends`: it ends a block; outside
//!   one the driver drops it from content, like every end marker.
//! - Markers off (`off_when_disabled`, plamo3): with thinking disabled there is no front at all
//!   (vLLM's configuration without thinking has no think markers): the output goes to the tool
//!   machine whole, a think block in it is content.

pub use crate::event::Trail;
use crate::event::{Emitter, Label};
use crate::scan::{is_ws, Found, Markers};

/// The most whitespace held before a start marker at the beginning of the output.
pub const LEAD_CAP: usize = 64;

pub use crate::event::TRAIL_CAP;

/// A reasoning format's spec entry (`_reasoning.json`, or one registered with a format), as the
/// registry (`formats/registry.rs`) keeps it.
#[derive(Debug, Default)]
pub struct ReasoningSpec {
    /// vLLM's `--reasoning-parser` name (SGLang's for SGLang-only formats).
    pub name: &'static str,
    /// SGLang's other names for the same markers.
    pub aliases: &'static [&'static str],
    pub start: &'static str,
    pub end: &'static str,
    /// Whether the prompt opens the block by default.
    pub started: bool,
    /// Call-start markers that end an open block when no tool format is paired.
    pub call_starts: &'static [&'static str],
    /// Whether a call-start marker ends an open block (the paired format's, else
    /// `call_starts`).
    pub call_ends_block: bool,
    /// A tool format whose machine separates the reasoning itself (the front is transparent).
    pub tool_format: Option<&'static str>,
    /// `[end, also_end...]`: the markers that end a block.
    pub ends: &'static [&'static str],
    /// `[start, also_start...]`: the markers that open a block.
    pub starts: &'static [&'static str],
    /// Whether a short run of whitespace ending the reasoning is dropped.
    pub trim: bool,
    /// Content put before the output; nothing is reasoning (empty: none).
    pub content_prefix: &'static str,
    /// The end-of-turn tag (empty: none): it ends a block (it is in `ends`) and is dropped from
    /// content in every state, with thinking disabled too.
    pub turn_end: &'static str,
    /// With thinking disabled (not started), the markers are off: no front, a block is content.
    pub off_when_disabled: bool,
    /// The end of the content wrapper the end marker opens (empty: none): markup, dropped from
    /// content like an end marker.
    pub content_end: &'static str,
    /// The characters dropped from the start of the content after the end marker (empty: none).
    pub content_lstrip: &'static str,
    /// The label a block may begin with (gemma4's channel name `thought`; empty: none): at the
    /// start of a block, the label and a newline, or the label as the whole block, are markup.
    pub label: &'static str,
    /// Other markup the reasoning format never puts in content (`kimi_k3`'s
    /// `<|close|>response<|sep|>`): dropped from content in every state while it runs.
    pub dropped: &'static [&'static str],
    /// An end marker outside a block is text, except where it leads the output (after
    /// whitespace): there it is markup, dropped (`minimax_m3`'s stray closer).
    pub stray_end_text: bool,
    /// A start marker opens a block wherever it stands in the content, not only at the start of
    /// the output (gemma4's channel): the driver's emitter reads those blocks (`BlockRule`).
    pub blocks_anywhere: bool,
    /// Spans whose tags are markup in content and reasoning (cohere's citations), when the tool
    /// format names none.
    pub span_markup: Option<crate::event::SpanRule>,
}

/// A known reasoning format: its position in the registry (`formats/registry.rs`, which has
/// its methods: `lookup`, `spec`, `name`, `names`, `front`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Reasoning(pub(crate) usize);

impl Front {
    /// The front of reasoning format `spec` scanning for `scan` inside a block (the paired tool
    /// format's, see `formats::registry::scan_list`); None when it is transparent (the tool
    /// machine separates the reasoning itself) or off (thinking disabled for a format whose
    /// markers are then off).
    pub fn new(
        spec: &'static ReasoningSpec,
        scan: impl FnOnce() -> &'static [&'static str],
        started: Option<bool>,
    ) -> Option<Front> {
        if spec.tool_format.is_some() || spec.start.is_empty() || spec.end.is_empty() {
            return None;
        }
        let started = started.unwrap_or(spec.started);
        if !started && spec.off_when_disabled {
            return None;
        }
        let state = if !spec.content_prefix.is_empty() {
            State::Prefix
        } else if started {
            State::Inside
        } else {
            State::Lead
        };
        let mut label = Label::new(spec.label, spec.trim);
        if state == State::Inside {
            label.open();
        }
        Some(Front {
            markers: Markers::new(scan()),
            spec,
            state,
            held: String::new(),
            label,
        })
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    /// At the beginning of an output whose block the prompt did not open.
    Lead,
    /// Inside the think block.
    Inside,
    /// Before the output of a format that puts a content prefix before it.
    Prefix,
    /// After the end marker, while the content has shown only characters `content_lstrip`
    /// drops.
    After,
}

/// The front's state for one response.
#[derive(Debug)]
pub struct Front {
    markers: Markers,
    spec: &'static ReasoningSpec,
    state: State,
    held: String,
    /// The reasoning of the block: its `label` and, with `trim`, its trailing whitespace.
    label: Label,
}

/// The longest of `markers` that `text` begins with.
fn longest(markers: &[&'static str], text: &str) -> Option<&'static str> {
    markers
        .iter()
        .copied()
        .filter(|m| text.starts_with(m))
        .max_by_key(|m| m.len())
}

impl Front {
    /// Feeds one delta. Returns None while the front keeps the text (reasoning emitted, a bounded
    /// suffix held back); `Some(rest)` once the block is over (or never opened): `rest` and
    /// everything after it goes to the tool machine.
    pub fn feed(&mut self, text: &str, out: &mut Emitter) -> Option<String> {
        if self.held.is_empty() {
            self.step(text, out)
        } else {
            let mut buf = std::mem::take(&mut self.held);
            buf.push_str(text);
            self.step(&buf, out)
        }
    }

    fn step(&mut self, buf: &str, out: &mut Emitter) -> Option<String> {
        match self.state {
            State::Lead => self.lead(buf, out),
            State::Inside => self.inside(buf, out),
            State::Prefix => {
                out.content(self.spec.content_prefix);
                Some(buf.to_owned())
            }
            State::After => self.after(buf),
        }
    }

    /// After the end marker: the characters `content_lstrip` drops at the start of the content
    /// are consumed; the rest, from the first other character, goes to the tool machine.
    fn after(&mut self, buf: &str) -> Option<String> {
        let strip = self.spec.content_lstrip;
        if strip.is_empty() {
            return Some(buf.to_owned());
        }
        let rest = buf.trim_start_matches(|c| strip.contains(c));
        if rest.is_empty() {
            self.state = State::After;
            return None;
        }
        Some(rest.to_owned())
    }

    fn lead(&mut self, buf: &str, out: &mut Emitter) -> Option<String> {
        let rest = buf.trim_start_matches(is_ws);
        let ws = buf.len() - rest.len();
        if ws > LEAD_CAP {
            return Some(buf.to_owned());
        }
        let starts = self.spec.starts;
        if starts
            .iter()
            .chain(self.leading_ends())
            .any(|s| s.len() > rest.len() && s.starts_with(rest))
        {
            // Whitespace, or whitespace and a proper prefix of a start marker (or of an end
            // marker that is markup only here): wait.
            self.held.push_str(buf);
            return None;
        }
        if let Some(s) = longest(starts, rest) {
            self.state = State::Inside;
            self.label.open();
            return self.inside(&rest[s.len()..], out);
        }
        if let Some(e) = longest(self.leading_ends(), rest) {
            // `stray_end_text`: the end marker that leads the output is markup
            return Some(rest[e.len()..].to_owned());
        }
        Some(buf.to_owned())
    }

    /// The end markers that are markup where they lead the output, outside a block
    /// (`stray_end_text`; elsewhere outside a block they are text).
    fn leading_ends(&self) -> &'static [&'static str] {
        if self.spec.stray_end_text {
            self.spec.ends
        } else {
            &[]
        }
    }

    fn inside(&mut self, buf: &str, out: &mut Emitter) -> Option<String> {
        let mut pos = 0;
        loop {
            match self.markers.find(&buf[pos..]) {
                Found::Marker { at, which } => {
                    self.label.emit(&buf[pos..pos + at], out);
                    let len = self.markers.list[which].len();
                    let ends = self.spec.ends.len();
                    if which < ends {
                        self.label.close(out);
                        return self.after(&buf[pos + at + len..]);
                    } else if which < ends + self.spec.starts.len() {
                        pos += at + len;
                    } else {
                        self.label.close(out);
                        return Some(buf[pos + at..].to_owned());
                    }
                }
                Found::Partial { safe } => {
                    self.label.emit(&buf[pos..pos + safe], out);
                    self.held.push_str(&buf[pos + safe..]);
                    return None;
                }
            }
        }
    }

    /// End of text: returns what the tool machine still gets (the held text when no block
    /// opened); a block left open is reasoning, what was held back too. Text held at the
    /// beginning because a longer start marker might follow opens a block when it begins with a
    /// shorter one (`<|channel>thought` at the end of the output).
    pub fn finish(&mut self, out: &mut Emitter) -> String {
        let held = std::mem::take(&mut self.held);
        match self.state {
            State::Lead => {
                let rest = held.trim_start_matches(is_ws);
                let Some(s) = longest(self.spec.starts, rest) else {
                    return match longest(self.leading_ends(), rest) {
                        Some(e) => rest[e.len()..].to_owned(),
                        None => held,
                    };
                };
                self.state = State::Inside;
                self.label.open();
                let inner = rest[s.len()..].to_owned();
                if let Some(after) = self.inside(&inner, out) {
                    return after;
                }
                self.finish(out)
            }
            State::Inside => {
                if let Some(which) = self.markers.starts(&held) {
                    // A marker held because a longer one might have extended it (hunyuan's
                    // `</think>` before `\n<answer>`) is that marker at the end of the text.
                    let len = self.markers.list[which].len();
                    let ends = self.spec.ends.len();
                    if which < ends {
                        self.label.close(out);
                        return self.after(&held[len..]).unwrap_or_default();
                    }
                    if which >= ends + self.spec.starts.len() {
                        self.label.close(out);
                        return held;
                    }
                    return match self.inside(&held[len..], out) {
                        Some(after) => after,
                        None => self.finish(out),
                    };
                }
                self.label.emit(&held, out);
                self.label.close(out);
                String::new()
            }
            State::Prefix => {
                out.content(self.spec.content_prefix);
                held
            }
            State::After => String::new(),
        }
    }
}
