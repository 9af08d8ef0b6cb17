//! Inkling (Thinking Machines): the output is a sequence of typed message blocks, every marker a
//! special token. A block is `<|message_model|>`, an optional header (a function name, metadata),
//! a content-kind marker, its body, and `<|end_message|>` (or `<|content_model_end_sampling|>`):
//! - `<|content_thinking|>`: the body is reasoning;
//! - `<|content_text|>`, `<|content_invoke_tool_text|>`, `<|content_tool_error|>`: content;
//! - `<|content_invoke_tool_json|>`: a tool call, `{"name": N, "args": {...}}` (`arguments` and
//!   `parameters` are read as the arguments too; the arguments may be a JSON string holding the
//!   object).
//!
//! The prompt ends with `<|message_model|>`, so the output starts in a header (in a thinking block
//! when the prompt opened one: `reasoning_started`). Blocks repeat in any order. Rules (vLLM 0.33's `vllm/parser/inkling.py` transition table, where it is not lossy; the
//! twin `python/toolparse/reference/inkling.py` has the same):
//! - Header: text before a content-kind marker is metadata, dropped; the text is held (at most
//!   [`NAME_MAX`] characters: past that it is content and the block is a text block). An end
//!   marker or the end of the output makes the header text content (a bare answer). A repeated
//!   `<|message_model|>` is markup.
//! - Content (a visible block, or between blocks): text is content; `<|message_model|>` opens a
//!   header; a content-kind marker opens its block (visible kinds: content again); end markers
//!   are markup.
//! - Thinking: text is reasoning, and so is every marker but `<|content_thinking|>` (markup), the
//!   end markers (the block ends) and `<|content_invoke_tool_json|>` (the block ends and a call
//!   starts). The run of whitespace that ends a block is dropped (at most
//!   [`TRAIL_CAP`](crate::reasoning::TRAIL_CAP) bytes, as vLLM's engine trims it). A block the
//!   output never closes is reasoning.
//! - Call: the JSON object is read by the shared call reader (marker text inside its strings is
//!   argument text); the call ends with its object. What follows is read as content, where the end
//!   marker is markup, so a missing end marker loses nothing; whitespace between calls is not
//!   content. A body that is not one call object is malformed markup: everything from there on is
//!   content (non-streaming: the original text); the output ending inside it is truncated.

use super::between::{self, settle, text_until, Next};
use super::region::{Region, RegionStep};
use super::Machine;
use crate::event::Emitter;
use crate::event::Trail;
use crate::json::{CallKeys, Calls};
use crate::scan::{Found, Markers, NAME_MAX};

/// `Style::blocks` positions.
const MESSAGE: usize = 0;
const THINKING: usize = 4;
const CALL: usize = 5;
const END: usize = 6;
const END_SAMPLING: usize = 7;

/// The markers and call keys of one format of the family (built from its spec entry by
/// `formats::config`, at run time).
#[derive(Debug)]
pub struct Style {
    /// What a header and content are scanned for: `message_start`, `text_start`,
    /// `tool_text_start`, `tool_error_start`, `thinking_start`, `call_start`, `end`,
    /// `end_sampling`.
    pub blocks: Markers,
    /// What a thinking block is scanned for: `thinking_start`, `call_start`, `end`,
    /// `end_sampling`.
    pub thinking: Markers,
    pub keys: CallKeys,
}

/// `Style::thinking` positions (the others are end markers).
const T_THINKING: usize = 0;
const T_CALL: usize = 1;

#[derive(Debug)]
enum State {
    /// After `<|message_model|>`: the header text so far (held) and its characters.
    Header { held: String, chars: usize },
    /// A visible block, or between blocks.
    Content,
    /// A thinking block (the run of whitespace at its end held back).
    Thinking(Trail),
    /// A tool call's JSON.
    Call(Region),
    /// After malformed markup: everything is content.
    Fallback,
}

pub struct Inkling {
    style: &'static Style,
    st: State,
}

impl Inkling {
    pub fn new(style: &'static Style) -> Self {
        Inkling {
            style,
            st: State::Header {
                held: String::new(),
                chars: 0,
            },
        }
    }
}

/// What a transition did, and the state it leads to (`None`: the state stays).
type Moved = between::Moved<State>;

/// The state marker `which` of `blocks` opens (from content, or ending a header).
fn open(style: &Style, which: usize) -> State {
    match which {
        MESSAGE => State::Header {
            held: String::new(),
            chars: 0,
        },
        THINKING => State::Thinking(Trail::default()),
        CALL => call(style),
        _ => State::Content,
    }
}

fn call(style: &Style) -> State {
    let opener = style.blocks.list[CALL];
    State::Call(Region::new(Calls::object(style.keys, false), opener, false))
}

/// After `<|message_model|>`: metadata up to a content-kind marker (dropped), or content.
fn on_header(
    style: &Style,
    held: &mut String,
    chars: &mut usize,
    input: &str,
    i: usize,
    out: &mut Emitter,
) -> Moved {
    let rest = &input[i..];
    let (text, marker) = match style.blocks.find(rest) {
        Found::Marker { at, which } => (&rest[..at], Some(which)),
        Found::Partial { safe } => (&rest[..safe], None),
    };
    let n = *chars + text.chars().count();
    if n > NAME_MAX {
        // Too long for a header: a text block without its markers.
        out.content(held);
        out.content(text);
        return (Next::Go(i + text.len()), Some(State::Content));
    }
    let Some(which) = marker else {
        held.push_str(text);
        *chars = n;
        return (Next::Hold(i + text.len()), None);
    };
    let j = i + text.len() + style.blocks.list[which].len();
    let st = match which {
        MESSAGE => {
            held.push_str(text);
            *chars = n;
            return (Next::Go(j), None);
        }
        END | END_SAMPLING => {
            out.content(held);
            out.content(text);
            State::Content
        }
        _ => open(style, which),
    };
    (Next::Go(j), Some(st))
}

/// A thinking block: reasoning up to its end (or a call).
fn on_thinking(
    style: &Style,
    trail: &mut Trail,
    input: &str,
    i: usize,
    out: &mut Emitter,
) -> Moved {
    let thinking = &style.thinking;
    let rest = &input[i..];
    let (at, which) = match thinking.find(rest) {
        Found::Marker { at, which } => (at, which),
        Found::Partial { safe } => {
            trail.emit(&rest[..safe], out);
            return (Next::Hold(i + safe), None);
        }
    };
    trail.emit(&rest[..at], out);
    let j = i + at + thinking.list[which].len();
    if which == T_THINKING {
        return (Next::Go(j), None);
    }
    trail.close();
    let st = if which == T_CALL {
        call(style)
    } else {
        State::Content
    };
    (Next::Go(j), Some(st))
}

impl Machine for Inkling {
    fn step(&mut self, input: &str, mut i: usize, out: &mut Emitter) -> Next {
        let style = self.style;
        let moved = match &mut self.st {
            State::Header { held, chars } => on_header(style, held, chars, input, i, out),
            State::Content => match text_until(&style.blocks, input, &mut i, out) {
                Some(which) => (Next::Go(i), Some(open(style, which))),
                None => (Next::Hold(i), None),
            },
            State::Thinking(trail) => on_thinking(style, trail, input, i, out),
            State::Call(region) => match region.feed(&input[i..], out) {
                RegionStep::More => (Next::Hold(input.len()), None),
                RegionStep::Done(n) => (Next::Go(i + n), Some(State::Content)),
                RegionStep::Failed(n) => (Next::Go(i + n), Some(State::Fallback)),
            },
            // The driver makes the rest content.
            State::Fallback => (Next::Hold(i), None),
        };
        settle(&mut self.st, moved)
    }

    /// The prompt ended with `<|content_thinking|>`: the output starts in a thinking block.
    fn start_in_reasoning(&mut self) {
        self.st = State::Thinking(Trail::default());
    }

    fn finish(&mut self, rest: &str, out: &mut Emitter) {
        match &mut self.st {
            State::Header { held, .. } => {
                out.content(held);
                out.content(rest);
            }
            State::Content | State::Fallback => out.content(rest),
            State::Thinking(trail) => {
                trail.emit(rest, out);
                trail.close();
            }
            State::Call(region) => region.finish(rest, out),
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::event::Extracted;
    use crate::formats::{Format, Parser, Tools, INKLING_STYLE};

    const M: &str = "<|message_model|>";
    const X: &str = "<|content_text|>";
    const T: &str = "<|content_thinking|>";
    const J: &str = "<|content_invoke_tool_json|>";
    const E: &str = "<|end_message|>";

    /// (reasoning, content, calls, malformed, truncated)
    type Run = (
        Option<String>,
        Option<String>,
        Vec<(String, String)>,
        bool,
        bool,
    );

    fn run(pieces: &[&str]) -> Run {
        let f = Format::from_name("inkling").expect("registered");
        let x: Extracted = Parser::replay(f, &Tools::default(), pieces);
        let calls = x.calls.into_iter().map(|c| (c.name, c.arguments)).collect();
        (x.reasoning, x.content, calls, x.malformed, x.truncated)
    }

    /// The same whole, cut anywhere in two, and one char at a time.
    fn check(text: &str) -> Run {
        let whole = run(&[text]);
        let chars: Vec<&str> = text
            .char_indices()
            .map(|(i, c)| &text[i..i + c.len_utf8()])
            .collect();
        assert_eq!(run(&chars), whole, "char by char: {text:?}");
        for (i, _) in text.char_indices().skip(1) {
            assert_eq!(run(&[&text[..i], &text[i..]]), whole, "at {i}: {text:?}");
        }
        whole
    }

    // the shape of the results it is compared with
    #[allow(clippy::unnecessary_wraps)]
    fn s(v: &str) -> Option<String> {
        Some(v.to_owned())
    }

    #[test]
    fn generated_style() {
        assert_eq!(INKLING_STYLE.blocks.list.len(), 8);
        assert_eq!(INKLING_STYLE.blocks.list[super::CALL], J);
        assert_eq!(
            INKLING_STYLE.thinking.list,
            [T, J, E, "<|content_model_end_sampling|>"]
        );
        assert_eq!(INKLING_STYLE.keys.args, ["args", "arguments", "parameters"]);
    }

    #[test]
    fn blocks_reasoning_content_and_calls() {
        let text = format!(
            "{T}Check the weather. \n{E}{M}{X}Let me look.{E}{M}get_weather{J}\
             {{\"name\":\"get_weather\",\"args\":{{\"city\":\"SF\"}}}}{E}{M}{X}Done.{E}"
        );
        let call = ("get_weather".to_owned(), r#"{"city":"SF"}"#.to_owned());
        assert_eq!(
            check(&text),
            (
                s("Check the weather."),
                s("Let me look.Done."),
                vec![call],
                false,
                false
            )
        );
        // a bare answer, a header ended by the end marker, a thinking block left open
        assert_eq!(
            check("hello world"),
            (None, s("hello world"), vec![], false, false)
        );
        assert_eq!(
            check(&format!("hi{E}")),
            (None, s("hi"), vec![], false, false)
        );
        assert_eq!(
            check(&format!("{T}a{X}b  ")),
            (s(&format!("a{X}b")), None, vec![], false, false)
        );
    }

    #[test]
    fn a_call_ends_with_its_object() {
        let text = format!("{J}{{\"name\":\"f\",\"args\":{{\"a\":\"{E}\"}}}}{J}{{\"name\":\"g\"}}");
        let r = check(&text);
        assert_eq!(
            r.2,
            [
                ("f".to_owned(), format!("{{\"a\":\"{E}\"}}")),
                ("g".to_owned(), "{}".to_owned())
            ]
        );
        assert!(!r.3 && !r.4);
        // not a call object: malformed, the text is content
        let text = format!("{J}{{\"args\":[1],\"name\":\"f\"}}{E}");
        assert_eq!(check(&text), (None, s(&text), vec![], true, false));
        // once the name is read the call has started (its name was sent): what follows the
        // error is content, and the call that never ended is truncated
        let text = format!("{J}{{\"name\":\"f\",\"args\":[1]}}{E}");
        assert_eq!(
            check(&text),
            (None, s(&format!("[1]}}{E}")), vec![], true, true)
        );
    }

    #[test]
    fn a_prompt_opened_thinking_block() {
        use crate::formats::Setup;
        use crate::reasoning::Reasoning;
        let text = format!("abc {E}{M}{X}hello{E}");
        for started in [Some(true), None, Some(false)] {
            let setup = Setup {
                format: None,
                reasoning: Reasoning::lookup("inkling"),
                started,
            };
            let x = Parser::replay_with(setup, &Tools::default(), &[&text[..5], &text[5..]]);
            let want = if started == Some(true) {
                (s("abc"), s("hello"))
            } else {
                (None, s("abc hello"))
            };
            assert_eq!((x.reasoning, x.content), want, "{started:?}");
        }
    }

    #[test]
    fn a_header_is_capped() {
        let call = format!("{J}{{\"name\":\"f\",\"args\":{{}}}}{E}");
        let at = "h".repeat(crate::scan::NAME_MAX);
        assert_eq!(run(&[&at, &call]).1, None);
        let past = "h".repeat(crate::scan::NAME_MAX + 1);
        assert_eq!(run(&[&past, &call]).1, Some(past.clone()));
        assert_eq!(run(&[&format!("{past}{call}")]).1, Some(past));
    }
}
