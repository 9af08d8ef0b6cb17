//! MeetKai Functionary's formats: a call is a header naming the function, then its JSON
//! arguments; one function's call may instead carry raw code, which becomes `{KEY: "code"}`.
//!
//! * `functionary_v31`: `<function=NAME>{...}</function>` inside text, and `<|python_tag|>` followed
//!   by raw code (the rest of the output) for the function `python`;
//! * `functionary_v32`: recipient messages. The prompt ends with `>>>`, so the output starts with a
//!   recipient line: `all\n` then text (content), `NAME\n{...}` (a call) or `python\n` then raw
//!   code; every later message starts with `>>>`.
//!
//! The rules (the same for every format of the family, configured by [`Style`]):
//!
//! * A header is the call start (`<function=`, `>>>`), a name of the characters an OpenAI
//!   function name may hold (ASCII letters, digits, `_`, `-`; at most [`NAME_MAX`]), then the
//!   name's end (`>`, a newline). With `starts_with_header` the output's start is a header
//!   position too (the prompt wrote the call start; a call start written there again is markup).
//! * The header names a call, whose arguments (after optional whitespace, at most [`WS_MAX`]) are
//!   a JSON object streamed as written; or the content recipient (`all`): its message is content,
//!   the header is markup; or, with `raw_by_header`, the raw-code function followed by anything
//!   but `{`: the rest of the output is its code (the whitespace after the header included).
//! * `raw_marker` (`<|python_tag|>`) in text starts the raw-code call: the rest of the output,
//!   as written (whitespace after the marker included), is its code. A marker with only
//!   whitespace after it at the end of the output is markup, dropped.
//! * After the arguments: with `call_end` (`</function>`), whitespace and that marker (missing at
//!   the end of the output: the call stands), anything else is malformed; without it, what
//!   follows is text.
//! * A header that is not one (a character outside the name, an empty or too long name, no `{`
//!   after it): with `loose_headers` the markup read is text; otherwise it is malformed.
//! * Text outside the calls is content. The text ending inside a header or the arguments is
//!   truncation (the output's first line with `starts_with_header`, no call start read yet, is
//!   content: it is not markup until its name ends).

use super::between::{self, markup_after_call, settle, stream_args, text_until, After, Args, Next};
use super::{Machine, Tools};
use crate::event::Emitter;
use crate::json::JsonScanner;
use crate::params::push_json_str_body;
use crate::scan::{ws_len, Markers, NAME_MAX, WS_MAX};

/// One format of the family (built from its spec entry by `formats::config`, at run time).
#[derive(Debug)]
pub struct Style {
    /// In text: `[call_start]`, then `raw_marker` if the format has one.
    pub text: Markers,
    /// The call start (`<function=`, `>>>`).
    pub call_start: &'static str,
    /// What ends a header's name (`>`, `\n`).
    pub name_end: &'static str,
    /// After the arguments: `[call_end]`; none when text follows a call.
    pub call_end: Option<Markers>,
    /// The raw-code call's function, and the argument key its code goes under.
    pub raw_name: &'static str,
    pub raw_key: &'static str,
    /// A header naming `raw_name` followed by anything but `{` starts the raw code.
    pub raw_by_header: bool,
    /// The recipient whose messages are content (`all`), if any.
    pub content_recipient: Option<&'static str>,
    /// The output begins at a header (the prompt wrote the call start).
    pub starts_with_header: bool,
    /// A header that is not one is text (else malformed markup).
    pub loose_headers: bool,
}

const RAW: usize = 1;

/// Whether `c` may stand in a function's name.
pub fn name_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_' || c == '-'
}

#[derive(Debug)]
enum State {
    /// Plain text, looking for a call start or the raw marker.
    Text,
    /// In a header: `raw` the markup read (the call start, the name so far); `first`: the
    /// output's first line, no call start read (`starts_with_header`).
    Header {
        raw: String,
        first: bool,
    },
    /// After the header: whitespace, then the arguments (or raw code). `head` is where the
    /// header ends in `raw`.
    Open {
        raw: String,
        name: String,
        head: usize,
    },
    /// After the raw marker: whitespace, then the code.
    RawOpen {
        raw: String,
    },
    /// The raw code, to the end of the output.
    Raw,
    /// The arguments object, streamed as written.
    Args(JsonScanner),
    /// After the arguments: whitespace, then `end` (the format's `call_end`).
    Close {
        ws: String,
        end: &'static Markers,
    },
    Fallback,
}

pub struct Functionary {
    style: &'static Style,
    st: State,
}

/// What a transition did: where the loop goes on, and the state it moves to (`None`: it stays).
type Moved = between::Moved<State>;

impl Functionary {
    pub fn new(style: &'static Style, _: &Tools) -> Self {
        let st = if style.starts_with_header {
            State::Header {
                raw: String::new(),
                first: true,
            }
        } else {
            State::Text
        };
        Functionary { style, st }
    }
}

/// A header that is not one: text, or malformed markup.
fn not_a_header(style: &Style, raw: &str, out: &mut Emitter) -> State {
    if style.loose_headers {
        out.content(raw);
        State::Text
    } else {
        fail(raw, out)
    }
}

/// Starts the raw-code call, its code beginning with `code`.
fn start_raw(style: &Style, code: &str, out: &mut Emitter) -> State {
    out.tool_start(None, style.raw_name.to_owned());
    out.args_with(|s| {
        s.push_str("{\"");
        push_json_str_body(s, style.raw_key);
        s.push_str("\": \"");
        push_json_str_body(s, code);
    });
    State::Raw
}

fn fail(raw: &str, out: &mut Emitter) -> State {
    out.malformed = true;
    out.content(raw);
    State::Fallback
}

/// Plain text up to a call start or the raw marker.
fn on_text(style: &Style, input: &str, mut i: usize, out: &mut Emitter) -> Moved {
    let Some(which) = text_until(&style.text, input, &mut i, out) else {
        return (Next::Hold(i), None);
    };
    let raw = style.text.list[which].to_owned();
    let st = if which == RAW {
        State::RawOpen { raw }
    } else {
        State::Header { raw, first: false }
    };
    (Next::Go(i), Some(st))
}

/// A header: the call start (or the output's start), the name, the name's end.
fn on_header(
    style: &Style,
    raw: &mut String,
    first: &mut bool,
    input: &str,
    i: usize,
    out: &mut Emitter,
) -> Moved {
    let rest = &input[i..];
    // (the output's start may repeat the call start the prompt wrote)
    if *first && raw.is_empty() {
        if rest.starts_with(style.call_start) {
            raw.push_str(style.call_start);
            *first = false;
            return (Next::Go(i + style.call_start.len()), None);
        }
        if style.call_start.starts_with(rest) {
            return (Next::Hold(i), None);
        }
    }
    // the name so far: after the call start, if any
    let start = if *first { 0 } else { style.call_start.len() };
    let mut chars = raw.len() - start;
    for (k, c) in rest.char_indices() {
        if name_char(c) && chars < NAME_MAX {
            chars += 1;
            continue;
        }
        raw.push_str(&rest[..k]);
        let after = &rest[k..];
        if !after.starts_with(style.name_end) {
            if chars < NAME_MAX && style.name_end.starts_with(after) {
                return (Next::Hold(i + k), None); // the name's end may still come
            }
            return (Next::Go(i + k), Some(not_a_header(style, raw, out)));
        }
        let name = raw[start..].to_owned();
        raw.push_str(style.name_end);
        let st = if name.is_empty() {
            not_a_header(style, raw, out)
        } else if style.content_recipient == Some(name.as_str()) {
            State::Text // the header is markup
        } else {
            let raw = std::mem::take(raw);
            State::Open {
                head: raw.len(),
                raw,
                name,
            }
        };
        return (Next::Go(i + k + style.name_end.len()), Some(st));
    }
    raw.push_str(rest);
    (Next::Hold(input.len()), None)
}

/// After the header: whitespace, then the arguments object (or, for the raw-code function, its
/// code).
fn on_open(
    style: &Style,
    raw: &mut String,
    name: &mut String,
    head: usize,
    input: &str,
    i: usize,
    out: &mut Emitter,
) -> Moved {
    let rest = &input[i..];
    let ws = ws_len(rest);
    let over = raw.len() - head + ws > WS_MAX;
    raw.push_str(&rest[..ws]);
    let after = &rest[ws..];
    if after.is_empty() && !over {
        return (Next::Hold(input.len()), None);
    }
    let st = if after.starts_with('{') && !over {
        out.tool_start(None, std::mem::take(name));
        State::Args(JsonScanner::new())
    } else if style.raw_by_header && name == style.raw_name {
        start_raw(style, &raw[head..], out)
    } else {
        not_a_header(style, raw, out)
    };
    (Next::Go(i + ws), Some(st))
}

/// After the arguments: whitespace, then `call_end`.
fn on_close(end: &Markers, ws: &mut String, input: &str, mut i: usize, out: &mut Emitter) -> Moved {
    match markup_after_call(ws, input, &mut i, end, out) {
        After::Marker(_) => (Next::Go(i), Some(State::Text)),
        After::Wait => (Next::Hold(i), None),
        After::Text => (Next::Go(i), Some(State::Fallback)),
    }
}

impl Machine for Functionary {
    fn step(&mut self, input: &str, i: usize, out: &mut Emitter) -> Next {
        let style = self.style;
        let moved = match &mut self.st {
            // The driver makes the rest content.
            State::Fallback => (Next::Hold(i), None),
            State::Text => on_text(style, input, i, out),
            State::Header { raw, first } => on_header(style, raw, first, input, i, out),
            State::Open { raw, name, head } => on_open(style, raw, name, *head, input, i, out),
            State::RawOpen { raw } => {
                let ws = ws_len(&input[i..]);
                raw.push_str(&input[i..i + ws]);
                let code = &raw[style.text.list[RAW].len()..];
                if i + ws == input.len() && code.len() <= WS_MAX {
                    (Next::Hold(i + ws), None)
                } else {
                    (Next::Go(i + ws), Some(start_raw(style, code, out)))
                }
            }
            State::Raw => {
                out.args_with(|s| push_json_str_body(s, &input[i..]));
                (Next::Hold(input.len()), None)
            }
            State::Args(sc) => match stream_args(sc, &input[i..], out) {
                Args::Ended(n) => {
                    let st = match &style.call_end {
                        Some(end) => State::Close {
                            ws: String::new(),
                            end,
                        },
                        None => State::Text,
                    };
                    (Next::Go(i + n), Some(st))
                }
                Args::Open => (Next::Hold(input.len()), None),
                Args::Broken(n) => (Next::Go(i + n), Some(State::Fallback)),
            },
            State::Close { ws, end } => on_close(end, ws, input, i, out),
        };
        settle(&mut self.st, moved)
    }

    fn finish(&mut self, rest: &str, out: &mut Emitter) {
        match &mut self.st {
            // The output's first line, no header after all: text.
            State::Header { raw, first: true } => {
                raw.push_str(rest);
                out.content(raw);
            }
            State::Header { raw, .. } | State::Open { raw, .. } | State::RawOpen { raw } => {
                raw.push_str(rest);
                out.truncate(raw);
            }
            State::Text | State::Fallback => out.content(rest),
            State::Raw => {
                out.args("\"}");
                out.tool_end();
            }
            State::Args(_) => out.truncate(""),
            // The call is complete: what is held is (part of) its end marker.
            State::Close { .. } => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::event::Extracted;
    use crate::formats::invariants::{
        extract_named as extract, format_named as format, stream_deltas, DeltaStreamed,
    };

    fn stream(name: &str, text: &str, cuts: &[usize]) -> DeltaStreamed {
        stream_deltas(format(name), &Tools::default(), text, cuts)
    }

    fn boundaries(s: &str) -> Vec<usize> {
        (0..=s.len()).filter(|&k| s.is_char_boundary(k)).collect()
    }

    fn calls(x: &Extracted) -> Vec<(&str, &str)> {
        x.calls
            .iter()
            .map(|c| (c.name.as_str(), c.arguments.as_str()))
            .collect()
    }

    const V31: &str = "Let me check.<function=get_weather>{\"city\": \"東京\"}</function>\n\
        <function=get_time>{}</function> Then<|python_tag|>print(\"hi\")\n";
    const V32: &str = "all\nHello, world!\nWhat's up?>>>get_weather\n{\"city\": \"東京\"}\n\
        >>>python\nimport os  # >>>all\n";

    #[test]
    fn the_two_formats() {
        let v31: &[(&str, &str)] = &[
            ("get_weather", "{\"city\": \"東京\"}"),
            ("get_time", "{}"),
            ("python", "{\"code\": \"print(\\\"hi\\\")\\n\"}"),
        ];
        let v32: &[(&str, &str)] = &[
            ("get_weather", "{\"city\": \"東京\"}"),
            ("python", "{\"code\": \"import os  # >>>all\\n\"}"),
        ];
        for (fmt, text, content, want) in [
            ("functionary_v31", V31, "Let me check. Then", v31),
            ("functionary_v32", V32, "Hello, world!\nWhat's up?", v32),
        ] {
            let x = extract(fmt, text);
            assert!(!x.malformed && !x.truncated, "{fmt}");
            assert_eq!(x.content.as_deref(), Some(content), "{fmt}");
            assert_eq!(calls(&x), want, "{fmt}");
        }
        // v3.2: the start may repeat the prompt's >>>; a first line that is no header is text
        let x = extract("functionary_v32", ">>>f\n{}>>>all\nok");
        assert_eq!(
            (x.content.as_deref(), calls(&x)),
            (Some("ok"), vec![("f", "{}")])
        );
        let x = extract("functionary_v32", "Hi there>>>x y");
        assert_eq!(
            (x.content.as_deref(), x.calls.len()),
            (Some("Hi there>>>x y"), 0)
        );
    }

    #[test]
    fn malformed_and_truncated() {
        for (fmt, bad) in [
            ("functionary_v31", "<function=f>{\"a\": 1]</function>"),
            ("functionary_v31", "<function=a b>{}</function>"),
            ("functionary_v31", "<function=f>x</function>"),
            ("functionary_v31", "<function=f>{} x</function>"),
            ("functionary_v32", "f\n{\"a\": tru}"),
        ] {
            let x = extract(fmt, bad);
            let s = stream(fmt, bad, &boundaries(bad));
            assert!(x.malformed && s.malformed, "{bad:?}");
        }
        let long = format!("<function={}>{{}}", "a".repeat(NAME_MAX + 1));
        assert!(extract("functionary_v31", &long).malformed);
        let at_cap = format!("<function={}>{{}}", "a".repeat(NAME_MAX));
        assert!(!extract("functionary_v31", &at_cap).malformed);
        for (fmt, cut, complete) in [
            ("functionary_v31", "<function=get_wea", 0),
            ("functionary_v31", "<function=f>{\"a\"", 0),
            (
                "functionary_v31",
                "<function=f>{}</function><function=g>{",
                1,
            ),
            ("functionary_v32", "f\n{\"a", 0),
            ("functionary_v32", "f\n{}>>>g\n", 1),
        ] {
            let x = extract(fmt, cut);
            assert!(x.truncated && !x.malformed, "{cut:?}");
            assert_eq!(x.calls.len(), complete, "{cut:?}");
        }
        // the raw marker with only whitespace after it: markup, no call
        let x = extract("functionary_v31", "a<|python_tag|>  ");
        assert_eq!((x.content.as_deref(), x.calls.len()), (Some("a"), 0));
    }

    #[test]
    fn every_split_agrees() {
        for (fmt, t) in [
            ("functionary_v31", V31),
            ("functionary_v32", V32),
            ("functionary_v32", ">>>python\n  x\n"),
            ("functionary_v32", "all\n>>>>x"),
            ("functionary_v31", "<function=f>{} x"),
        ] {
            let whole = stream(fmt, t, &[]);
            for k in boundaries(t) {
                assert_eq!(stream(fmt, t, &[k]), whole, "{t:?} cut at {k}");
            }
            assert_eq!(stream(fmt, t, &boundaries(t)), whole, "{t:?}");
        }
    }
}
