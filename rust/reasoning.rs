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
//! - The end of the text inside a block: the block is reasoning (what was held back too).
//! - Alternates (`also_start`, `also_end`): other spellings of the start and end markers, with
//!   the same roles (granite's "Here's" for "Here is").
//! - Trim (`trim`, vLLM's engine parsers): the run of whitespace that ends the reasoning (before
//!   the end marker, a call start or the end of the text) is dropped as markup when it is at most
//!   [`TRAIL_CAP`] bytes; a longer run is reasoning. While a run is open it is held back.
//! - Prefix (`content_prefix`, minimax_m2_append_think): nothing is reasoning; the prefix is
//!   content before the whole output, which goes to the tool machine as it is.
//! - Framing (`content_end`, hunyuan_a13b's `\n</answer>`): the end marker may open a content
//!   wrapper (`\n</think>\n<answer>\n`); its closing marker is dropped from content by the driver,
//!   like an end marker outside a block.
//! - Lstrip (`content_lstrip`, granite_thinking_parser's newline): after the end marker the front
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

use crate::event::Emitter;
use crate::formats::Format;
use crate::scan::{is_ws, Found, Markers};

/// The most whitespace held before a start marker at the beginning of the output.
pub const LEAD_CAP: usize = 64;

/// The longest run of whitespace at the end of the reasoning that `trim` drops.
pub const TRAIL_CAP: usize = 64;

/// A reasoning format's spec entry (the spec's `"reasoning"` list, read by `build.rs`).
#[derive(Debug)]
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
    /// A tool format whose machine separates the reasoning itself (the front is transparent).
    pub tool_format: Option<&'static str>,
    /// Per tool format (its registry index + 1; 0 = none): what the front scans for inside a
    /// block: `[ends..., starts..., call starts...]`.
    pub scan: &'static [&'static [&'static str]],
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
    /// Other markup the reasoning format never puts in content (kimi_k3's
    /// `<|close|>response<|sep|>`): dropped from content in every state while it runs.
    pub dropped: &'static [&'static str],
}

// REASONING, generated from the spec by build.rs.
include!(concat!(env!("OUT_DIR"), "/reasoning.rs"));

/// A known reasoning format.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Reasoning(usize);

impl Reasoning {
    /// A reasoning format by its name or one of its aliases.
    pub fn lookup(name: &str) -> Option<Reasoning> {
        REASONING
            .iter()
            .position(|s| s.name == name)
            .or_else(|| REASONING.iter().position(|s| s.aliases.contains(&name)))
            .map(Reasoning)
    }

    pub fn spec(self) -> &'static ReasoningSpec {
        &REASONING[self.0]
    }

    pub fn name(self) -> &'static str {
        REASONING[self.0].name
    }

    pub fn names() -> Vec<&'static str> {
        REASONING.iter().map(|s| s.name).collect()
    }

    /// The tool format that parses when none is given (harmony's), if any.
    pub fn tool_format(self) -> Option<Format> {
        self.spec().tool_format.and_then(Format::from_name)
    }

    /// The front for this reasoning format paired with `format`; None when the front is
    /// transparent (the tool machine separates the reasoning itself).
    pub fn front(self, format: Option<Format>, started: Option<bool>) -> Option<Front> {
        let spec = self.spec();
        if spec.tool_format.is_some() || spec.start.is_empty() || spec.end.is_empty() {
            return None;
        }
        let k = format.map_or(0, |f| f.index() + 1);
        let list = spec.scan.get(k).copied().unwrap_or(&[]);
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
        Some(Front {
            markers: Markers::new(list),
            spec,
            state,
            held: String::new(),
            trail: Trail::default(),
            fresh: state == State::Inside,
            label: String::new(),
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
    /// `trim`: the open run of whitespace at the end of the reasoning so far.
    trail: Trail,
    /// At the start of a block, while its reasoning may still be the label (`label`).
    fresh: bool,
    /// The reasoning held while it may still be the label and a newline.
    label: String,
}

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
            .any(|s| s.len() > rest.len() && s.starts_with(rest))
        {
            // Whitespace, or whitespace and a proper prefix of a start marker: wait.
            self.held.push_str(buf);
            return None;
        }
        // The longest start marker the text begins with.
        let found = starts
            .iter()
            .filter(|s| rest.starts_with(**s))
            .max_by_key(|s| s.len());
        if let Some(s) = found {
            self.state = State::Inside;
            self.fresh = true;
            return self.inside(&rest[s.len()..], out);
        }
        Some(buf.to_owned())
    }

    fn inside(&mut self, buf: &str, out: &mut Emitter) -> Option<String> {
        let mut pos = 0;
        loop {
            match self.markers.find(&buf[pos..]) {
                Found::Marker { at, which } => {
                    self.emit(&buf[pos..pos + at], out);
                    let len = self.markers.list[which].len();
                    let ends = self.spec.ends.len();
                    if which < ends {
                        self.close(out);
                        return self.after(&buf[pos + at + len..]);
                    } else if which < ends + self.spec.starts.len() {
                        pos += at + len;
                    } else {
                        self.close(out);
                        return Some(buf[pos + at..].to_owned());
                    }
                }
                Found::Partial { safe } => {
                    self.emit(&buf[pos..pos + safe], out);
                    self.held.push_str(&buf[pos + safe..]);
                    return None;
                }
            }
        }
    }

    /// Emits reasoning; at the start of a block, holds it while it may still be the `label` and a
    /// newline (dropped when it is); with `trim`, holds back the open run of whitespace at its
    /// end.
    fn emit(&mut self, s: &str, out: &mut Emitter) {
        let label = self.spec.label;
        if !self.fresh || label.is_empty() {
            return self.emit_body(s, out);
        }
        self.label.push_str(s);
        let held = self.label.as_str();
        let marked = held.strip_prefix(label).and_then(|r| r.strip_prefix('\n'));
        if let Some(rest) = marked {
            let rest = rest.to_owned();
            self.fresh = false;
            self.label.clear();
            return self.emit_body(&rest, out);
        }
        if held.len() <= label.len() + 1
            && label
                .as_bytes()
                .iter()
                .chain(b"\n")
                .zip(held.as_bytes())
                .all(|(a, b)| a == b)
        {
            return; // may still be the label and a newline
        }
        self.fresh = false;
        let held = std::mem::take(&mut self.label);
        self.emit_body(&held, out);
    }

    /// Emits reasoning; with `trim`, holds back the open run of whitespace at its end.
    fn emit_body(&mut self, s: &str, out: &mut Emitter) {
        if self.spec.trim {
            self.trail.emit(s, out);
        } else {
            out.reasoning(s);
        }
    }

    /// The block ended: reasoning held as a possible label is reasoning unless it is the label
    /// (the whole block: empty); a held run of whitespace at its end is dropped (`trim`).
    fn close(&mut self, out: &mut Emitter) {
        if self.fresh {
            self.fresh = false;
            let held = std::mem::take(&mut self.label);
            if held != self.spec.label {
                self.emit_body(&held, out);
            }
        }
        self.trail.close();
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
                let found = self
                    .spec
                    .starts
                    .iter()
                    .filter(|s| rest.starts_with(**s))
                    .max_by_key(|s| s.len());
                let Some(s) = found else {
                    return held;
                };
                self.state = State::Inside;
                self.fresh = true;
                let inner = rest[s.len()..].to_owned();
                if let Some(after) = self.inside(&inner, out) {
                    return after;
                }
                self.finish(out)
            }
            State::Inside => {
                self.emit(&held, out);
                self.close(out);
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::event::Event;

    fn run(r: &str, f: Option<&str>, started: Option<bool>, chunks: &[&str]) -> (String, String) {
        let r = Reasoning::lookup(r).unwrap_or_else(|| panic!("{r}"));
        let f = f.map(|n| Format::from_name(n).unwrap_or_else(|| panic!("{n}")));
        let mut front = r.front(f, started).unwrap_or_else(|| panic!("front"));
        let mut out = Emitter::new();
        let mut machine = String::new();
        let mut done = false;
        for c in chunks {
            if done {
                machine.push_str(c);
            } else if let Some(rest) = front.feed(c, &mut out) {
                machine.push_str(&rest);
                done = true;
            }
        }
        if !done {
            machine.push_str(&front.finish(&mut out));
        }
        let reasoning: String = out
            .take()
            .into_iter()
            .map(|e| match e {
                Event::Reasoning(s) => s,
                other => panic!("{other:?}"),
            })
            .collect();
        (reasoning, machine)
    }

    #[test]
    fn block_then_text_under_every_split() {
        let text = "\n<think>a<b</think>\nc";
        for i in 0..=text.len() {
            if !text.is_char_boundary(i) {
                continue;
            }
            let parts = [&text[..i], &text[i..]];
            let (r, m) = run("qwen3", Some("hermes"), Some(false), &parts);
            assert_eq!((r.as_str(), m.as_str()), ("a<b", "\nc"), "split at {i}");
            let (r, m) = run("qwen3", Some("hermes"), Some(true), &parts);
            assert_eq!((r.as_str(), m.as_str()), ("\na<b", "\nc"), "split at {i}");
        }
    }

    #[test]
    fn call_start_ends_the_block() {
        let (r, m) = run(
            "qwen3",
            Some("hermes"),
            None,
            &["x<tool", "_call>{}</think>"],
        );
        assert_eq!((r.as_str(), m.as_str()), ("x", "<tool_call>{}</think>"));
        let (r, m) = run("qwen3", None, None, &["x<tool_call>y"]);
        assert_eq!((r.as_str(), m.as_str()), ("x", "<tool_call>y"));
    }

    #[test]
    fn no_block_and_unclosed_block() {
        let (r, m) = run("qwen3", Some("hermes"), Some(false), &["  hi</think>"]);
        assert_eq!((r.as_str(), m.as_str()), ("", "  hi</think>"));
        let (r, m) = run("deepseek_r1", None, None, &["<think>a<think>b</thi"]);
        assert_eq!((r.as_str(), m.as_str()), ("ab</thi", ""));
        let ws = " ".repeat(LEAD_CAP + 1);
        let (r, m) = run("mistral", None, None, &[&ws, "[THINK]"]);
        assert_eq!((r.as_str(), m), ("", format!("{ws}[THINK]")));
    }

    #[test]
    fn alternates_trim_and_prefix() {
        // granite's other spelling of both markers
        let (r, m) = run(
            "granite",
            None,
            None,
            &["Here's my thought process: a Here's my ", "response: b"],
        );
        assert_eq!((r.as_str(), m.as_str()), (" a ", " b"));
        // gemma4: the longer opener waits until the text shows which it is
        for parts in [
            &["<|channel>", "thought\nr<channel|>c"][..],
            &["<|channel>thought\nr<channel|>c"],
        ] {
            let (r, m) = run("gemma4", None, None, parts);
            assert_eq!((r.as_str(), m.as_str()), ("r", "c"));
        }
        // trim: a short run of whitespace that ends the reasoning is dropped, a longer one kept
        let (r, m) = run("kimi_k2", None, None, &["a \n", "\t</think>c"]);
        assert_eq!((r.as_str(), m.as_str()), ("a", "c"));
        let ws = " ".repeat(TRAIL_CAP + 1);
        let (r, m) = run(
            "kimi_k2",
            None,
            None,
            &["a", &ws[..10], &ws[10..], "</think>c"],
        );
        assert_eq!((r, m.as_str()), (format!("a{ws}"), "c"));
        let (r, m) = run("kimi_k2", None, None, &["a  b  "]);
        assert_eq!((r.as_str(), m.as_str()), ("a  b", ""));
        // prefix: nothing is reasoning; the prefix is content before the output
        let r = Reasoning::lookup("minimax-append-think").unwrap_or_else(|| panic!("alias"));
        let mut front = r.front(None, None).unwrap_or_else(|| panic!("front"));
        let mut out = Emitter::new();
        assert_eq!(
            front.feed("a</think>b", &mut out).as_deref(),
            Some("a</think>b")
        );
        assert_eq!(out.take(), vec![Event::Content("<think>".to_owned())]);
    }

    #[test]
    fn names_and_transparent_harmony() {
        assert_eq!(
            Reasoning::lookup("deepseek-r1").map(Reasoning::name),
            Some("deepseek_r1")
        );
        let gptoss = Reasoning::lookup("gpt-oss");
        assert_eq!(gptoss.map(Reasoning::name), Some("openai_gptoss"));
        assert!(gptoss.and_then(|r| r.front(None, None)).is_none());
        assert_eq!(
            gptoss.and_then(Reasoning::tool_format).map(Format::name),
            Some("openai")
        );
        assert!(Reasoning::lookup("nope").is_none());
        for s in REASONING {
            assert_eq!(Reasoning::lookup(s.name).map(Reasoning::name), Some(s.name));
            if s.tool_format.is_none() {
                assert_eq!(s.scan.len(), Format::names().len() + 1, "{}", s.name);
            }
        }
    }

    /// The driver with a front: every single cut and one char per delta give the whole text's
    /// result, which non-streaming gives too.
    #[test]
    fn driver_is_split_invariant() {
        use crate::formats::{Parser, Setup, Tools};
        let call = r#"<tool_call>{"name": "f", "arguments": {"a": 1}}</tool_call>"#;
        let texts = [
            format!("<think>a</think>\n{call}"),
            format!(" <think>é<b{call}x"),
            format!("plan</think>ok{call}</think>"),
            "<thi".to_owned(),
            "<think>never closed </th".to_owned(),
        ];
        for (fmt, r) in [
            (Some("hermes"), "qwen3"),
            (None, "deepseek_r1"),
            (Some("hermes"), "glm45"),
        ] {
            for started in [None, Some(true), Some(false)] {
                let setup = Setup {
                    format: fmt.and_then(Format::from_name),
                    reasoning: Reasoning::lookup(r),
                    started,
                };
                for text in &texts {
                    let tools = Tools::default();
                    let whole = Parser::replay_with(setup, &tools, &[text.as_str()]);
                    let chars: Vec<String> = text.chars().map(String::from).collect();
                    assert_eq!(
                        Parser::replay_with(setup, &tools, &chars),
                        whole,
                        "{text:?}"
                    );
                    for i in (0..=text.len()).filter(|&i| text.is_char_boundary(i)) {
                        let parts = [&text[..i], &text[i..]];
                        assert_eq!(
                            Parser::replay_with(setup, &tools, &parts),
                            whole,
                            "{text:?} {i}"
                        );
                    }
                    let x = Parser::extract_with(setup, &tools, text);
                    if !x.malformed && !x.truncated {
                        assert_eq!(x, whole, "{text:?}");
                    }
                }
            }
        }
    }

    /// Malformed or cut markup after a think block, empty or not: the fallback content is the
    /// text after the block (what a reasoning parser then a tool parser give), the reasoning kept.
    #[test]
    fn fallback_after_a_block_is_the_text_after_it() {
        use crate::formats::{Format, Parser, Setup, Tools};
        let setup = Setup {
            format: Format::from_name("hermes"),
            reasoning: Reasoning::lookup("qwen3"),
            started: None,
        };
        let bad = "<tool_call>{bad}</tool_call>";
        let cut = r#"<tool_call>{"name": "f", "arguments": {"a"#;
        for (block, reasoning) in [("<think></think>", None), ("<think>r</think>", Some("r"))] {
            for tail in [bad, cut] {
                let text = format!("{block}{tail}");
                let x = Parser::extract_with(setup, &Tools::default(), &text);
                assert!(x.malformed || x.truncated, "{text:?}");
                assert_eq!(x.content.as_deref(), Some(tail), "{text:?}");
                assert_eq!(x.reasoning.as_deref(), reasoning, "{text:?}");
            }
        }
        // no reasoning format: the caller gives back the original text; the core says malformed
        let x = Parser::extract_with(
            Setup {
                reasoning: None,
                ..setup
            },
            &Tools::default(),
            bad,
        );
        assert!(x.malformed && x.reasoning.is_none());
    }

    /// An end marker outside a block is markup, dropped from content; a bare call start at the
    /// end is a cut before the call began: not content, truncated. Streaming one char per delta
    /// gives the same.
    #[test]
    fn markup_outside_a_block_and_a_bare_call_start() {
        use crate::formats::{Parser, Setup, Tools};
        let call = r#"<tool_call>{"name": "f", "arguments": {}}</tool_call>"#;
        let done = format!("<think>I should check.\n{call}\n</think>\n\nDone.");
        let cases = [
            (
                Some("hermes"),
                Some("qwen3"),
                done.as_str(),
                Some("\n\n\nDone."),
                false,
            ),
            (
                None,
                Some("qwen3"),
                "reasoning</think>A</think>B",
                Some("AB"),
                false,
            ),
            (
                None,
                Some("minimax_m3"),
                "</mm:think>answer",
                Some("answer"),
                false,
            ),
            (
                Some("mistral"),
                None,
                "...check.[TOOL_CALLS]",
                Some("...check."),
                true,
            ),
            (
                Some("hermes"),
                Some("qwen3"),
                "r</think>\n\n<tool_call>",
                None,
                true,
            ),
            (
                Some("qwen3_coder"),
                None,
                "Hi <tool_call>\n",
                Some("Hi "),
                true,
            ),
        ];
        for (f, r, text, content, truncated) in cases {
            let setup = Setup {
                format: f.and_then(Format::from_name),
                reasoning: r.and_then(Reasoning::lookup),
                started: None,
            };
            let tools = Tools::default();
            let x = Parser::extract_with(setup, &tools, text);
            assert_eq!(x.content.as_deref(), content, "{text:?}");
            assert_eq!(x.truncated, truncated, "{text:?}");
            let chars: Vec<String> = text.chars().map(String::from).collect();
            let s = Parser::replay_with(setup, &tools, &chars);
            assert_eq!(s.content, x.content, "{text:?}");
        }
    }

    /// plamo3: the turn-end tag ends a block and is dropped from content in every state; with
    /// thinking disabled the markers are off (text), the turn end still dropped.
    #[test]
    fn turn_end_and_markers_off_when_disabled() {
        use crate::formats::{Parser, Setup, Tools};
        let (b, e, t) = (
            "<|plamo:begin_think:plamo|>",
            "<|plamo:end_think:plamo|>",
            "<|plamo:tag|>",
        );
        let cases = [
            (
                None,
                None,
                format!("r{t}c"),
                Some("c".to_owned()),
                Some("r"),
            ),
            (
                None,
                None,
                format!("r{e}a{t}b{t}"),
                Some("ab".to_owned()),
                Some("r"),
            ),
            (
                None,
                Some(false),
                format!("{b}t{e}c{t}"),
                Some(format!("{b}t{e}c")),
                None,
            ),
            (Some("plamo3"), None, format!("x{t}"), None, Some("x")),
            (
                Some("plamo3"),
                Some(false),
                format!("{e}x{t}"),
                Some(format!("{e}x")),
                None,
            ),
        ];
        for (f, started, text, content, reasoning) in cases {
            let setup = Setup {
                format: f.and_then(Format::from_name),
                reasoning: Reasoning::lookup("plamo3"),
                started,
            };
            let tools = Tools::default();
            let x = Parser::extract_with(setup, &tools, &text);
            assert_eq!(x.content, content, "{text:?}");
            assert_eq!(x.reasoning.as_deref(), reasoning, "{text:?}");
            let chars: Vec<String> = text.chars().map(String::from).collect();
            let s = Parser::replay_with(setup, &tools, &chars);
            assert_eq!(
                (s.content, s.reasoning),
                (x.content, x.reasoning),
                "{text:?}"
            );
        }
        // the tool format alone drops its turn end
        let plamo = Format::from_name("plamo3").unwrap_or_else(|| panic!("plamo3"));
        let x = Parser::extract(plamo, &Tools::default(), &format!("a{t}b"));
        assert_eq!(x.content.as_deref(), Some("ab"));
    }

    /// Framing as data: hunyuan_a13b's markers hold the `<answer>` wrapper and its closing marker
    /// is dropped; granite_thinking_parser drops the newlines that open the content after the
    /// end marker (the hand-over point is after them). Every split gives the same.
    #[test]
    fn content_end_and_content_lstrip() {
        use crate::formats::{Parser, Setup, Tools};
        let cases = [
            (
                "hunyuan_a13b",
                "<think>\nr\n</think>\n<answer>\nc\n</answer>",
                Some("c"),
                Some("r"),
                Some(28),
            ),
            (
                "hunyuan_a13b",
                "<think>\n\n</think>\n<answer>\nc\n</answer>",
                Some("c"),
                None,
                Some(27),
            ),
            (
                "granite_thinking_parser",
                "r</think>\n\nc\n",
                Some("c\n"),
                Some("r"),
                Some(11),
            ),
            (
                "granite_thinking_parser",
                "r</think>\n\n",
                None,
                Some("r"),
                Some(11),
            ),
            (
                "granite_thinking_parser",
                "r</think>\n c",
                Some(" c"),
                Some("r"),
                Some(10),
            ),
        ];
        for (r, text, content, reasoning, from) in cases {
            let setup = Setup {
                format: None,
                reasoning: Reasoning::lookup(r),
                started: None,
            };
            let tools = Tools::default();
            let x = Parser::extract_with(setup, &tools, text);
            assert_eq!(x.content.as_deref(), content, "{text:?}");
            assert_eq!(x.reasoning.as_deref(), reasoning, "{text:?}");
            for i in 0..=text.len() {
                let mut p = Parser::with(setup, &tools);
                p.push(&text[..i]);
                p.push(&text[i..]);
                let s = p.into_extracted();
                assert_eq!(
                    (&s.content, &s.reasoning),
                    (&x.content, &x.reasoning),
                    "{i}"
                );
            }
            let mut p = Parser::with(setup, &tools);
            p.push(text);
            p.finish();
            assert_eq!(p.machine_from(), from, "{text:?}");
        }
    }

    /// gemma4's label: `thought` and a newline at the start of a block are markup, and a block
    /// whose whole reasoning is `thought` is empty; other text is reasoning as written. Every
    /// split gives the same.
    #[test]
    fn label_at_the_start_of_a_block() {
        use crate::formats::{Parser, Setup, Tools};
        let cases = [
            (
                None,
                "<|channel>thought<channel|>Answer",
                Some("Answer"),
                None,
            ),
            (None, "<|channel>thought", None, None),
            (
                None,
                "<|channel>thoughtful<channel|>x",
                Some("x"),
                Some("thoughtful"),
            ),
            (Some(true), "thought\nr<channel|>x", Some("x"), Some("r")),
            (Some(true), "thought<channel|>x", Some("x"), None),
            (Some(true), "though<channel|>x", Some("x"), Some("though")),
        ];
        for (started, text, content, reasoning) in cases {
            let setup = Setup {
                format: None,
                reasoning: Reasoning::lookup("gemma4"),
                started,
            };
            let tools = Tools::default();
            let x = Parser::extract_with(setup, &tools, text);
            assert_eq!(x.content.as_deref(), content, "{text:?}");
            assert_eq!(x.reasoning.as_deref(), reasoning, "{text:?}");
            for i in (0..=text.len()).filter(|&i| text.is_char_boundary(i)) {
                let s = Parser::replay_with(setup, &tools, &[&text[..i], &text[i..]]);
                assert_eq!(
                    (&s.content, &s.reasoning),
                    (&x.content, &x.reasoning),
                    "{i}"
                );
            }
        }
    }

    /// The hand-over point: the byte offset where the machine's raw text starts, the same under
    /// every split, and `fed - handover_chars()` is that offset in characters.
    #[test]
    fn hand_over_point_under_every_split() {
        use crate::formats::{Parser, Setup, Tools};
        let call = r#"<tool_call>{"name": "f", "arguments": {"a": 1}}</tool_call>"#;
        let cases = [
            (
                format!("<think>é</think>\n{call}"),
                Some(false),
                Some("é</think>".len() + 7),
            ),
            (format!("ü ö<b{call}x"), Some(true), Some("ü ö<b".len())),
            ("plan</think>ok".to_owned(), None, Some(12)),
            ("  ×ok".to_owned(), Some(false), Some(0)),
            ("<think>never é closed </th".to_owned(), None, None),
        ];
        let setup = |started| Setup {
            format: Format::from_name("hermes"),
            reasoning: Reasoning::lookup("qwen3"),
            started,
        };
        let tools = Tools::default();
        for (text, started, want) in &cases {
            let splits = (0..=text.len()).filter(|&i| text.is_char_boundary(i));
            for i in splits {
                let mut p = Parser::with(setup(*started), &tools);
                let mut fed = (0, 0); // bytes, chars
                let mut at: Option<(usize, usize)> = None;
                for part in [&text[..i], &text[i..]] {
                    p.feed(part);
                    fed = (fed.0 + part.len(), fed.1 + part.chars().count());
                    if at.is_none() {
                        at = p.machine_from().map(|b| (b, fed.1 - p.handover_chars()));
                    }
                }
                assert_eq!(p.machine_from().is_some(), want.is_some(), "{text:?} {i}");
                p.finish();
                let at = at.or_else(|| p.machine_from().map(|b| (b, fed.1 - p.handover_chars())));
                let (b, c) = at.unwrap_or((usize::MAX, usize::MAX));
                let whole = want.unwrap_or(text.len());
                assert_eq!(b, whole, "{text:?} split at {i}");
                assert_eq!(c, text[..whole].chars().count(), "{text:?} split at {i}");
            }
        }
        let mut p = Parser::new(
            Format::from_name("hermes").unwrap_or_else(|| panic!()),
            &tools,
        );
        assert_eq!((p.machine_from(), p.handover_chars()), (Some(0), 0));
        p.feed("x");
        assert_eq!(p.machine_from(), Some(0));
    }
}

#[cfg(test)]
mod invariants;
