//! Tool calls written as Python calls with keyword arguments: `[f(a=1, b='x'), g()]`
//! (`pythonic`), optionally between `<|python_start|>` and `<|python_end|>` (`llama4_pythonic`).
//! Formats that differ only in their markers and in how calls are separated share this machine,
//! configured by a [`Style`]: `<|tool_call_start|>[f(a=1), g()]<|tool_call_end|>` (lfm2) is a
//! list between required markers, `<function_calls>f(a=1)\ng(b='x')</function_calls>` (olmo3)
//! is newline-separated calls between required markers (see the tests for both).
//!
//! Each argument value is a Python literal converted to JSON text by [`PyLiteral`] as it arrives;
//! the arguments object is written like `json.dumps(dict, ensure_ascii=False)`:
//! `tool_start` once `name(` is read, `{"a": ` once the keyword `a=` is complete, the value's
//! JSON as the converter writes it (strings character by character), `, "b": ` and so on, and
//! `}` (or `{}` for a call without arguments) at `)`.
//!
//! Decisions (facts from vLLM's `pythonic` / `llama4_pythonic` and SGLang's `PythonicDetector`):
//! - A `[` anywhere in text may start a call list (SGLang; vLLM only at the very start), even
//!   right after a word (`x[f(a=1)]` is a call). The list is tentative: until `[name(` is read
//!   the raw text is kept, and text that turns out not to be a call list goes back to content
//!   unchanged (`[1] see`, `[link](url)`, `[O'Reilly]`). Several lists may follow one another;
//!   text around them is content.
//! - `<|python_start|>` is optional and may also stand anywhere; it must be followed by a list
//!   (else the markup is malformed). `<|python_end|>` after a list (whitespace allowed before
//!   it) is markup; it may be missing.
//! - Names and keywords are ASCII identifiers; a name may be dotted (`grocery.orderIngredients(
//!   ...)`, the name keeps its dots), as vLLM reads an attribute chain.
//! - Values are Python literals as [`PyLiteral`] reads them (sets as lists, JSON's `null`/`true`/
//!   `false` too, raw line ends in strings kept: vLLM reads these in every pythonic format).
//! - A call with a value that is valid literal syntax but has no JSON form (`b'z'`, `1j`, `...`,
//!   `1e400`) is dropped and the other calls of the list are kept (SGLang; the upstream tests):
//!   the non-streaming result leaves it out; a stream has sent its start and its arguments up to
//!   that value, and the call never ends (see `Event::Dropped`); the stream lists it in
//!   `Parser::dropped_calls`, so a client can discard it.
//! - Positional arguments, `*args`/`**kwargs`, a repeated keyword (a SyntaxError in Python) and
//!   values that are not literals are malformed; so are mismatched brackets, unclosed strings
//!   and truncation once a call has started. A syntax error anywhere makes the whole list
//!   malformed, a dropped call's included. Trailing commas (`f(a=1,)`, `[f(),]`) and
//!   whitespace between tokens are accepted, as Python does. An empty list `[]` is not a call.
//! - Malformed markup before the first call of a list started: a bare list goes back to
//!   content, a list after the start marker is malformed. After a call started: malformed, and
//!   everything from the offending character on is content (Fallback).
//!
//! - Hold-back is bounded (see `scan`): a name or keyword longer than [`NAME_MAX`] characters,
//!   or a run of more than [`WS_MAX`] whitespace characters between tokens (outside values), is
//!   malformed markup at the first character over the cap (a bare list before its first call
//!   goes back to content, as above). Past the cap after a list, the whitespace is text.
//!
//! Linear: each byte is handled once (names, keywords and whitespace in runs, values by the
//! converter); the only text held between feeds is a possible prefix of a marker.

use std::collections::HashSet;
use std::mem;

use super::between::{text_until, Next};
use super::Machine;
use crate::convert::PyLiteral;
use crate::event::Emitter;
use crate::scan::{ws_len, Markers, NAME_MAX, WS_MAX};
use crate::Step;

/// How one format writes its calls (built from its spec entry by `formats::config`, at run time).
#[derive(Debug)]
pub struct Style {
    /// What starts calls in text: the start marker (when the format has one) and `[` (when a
    /// bare list may stand in text).
    pub triggers: Markers,
    /// The start marker, if the format has one (it is one of `triggers`).
    pub start: Option<&'static str>,
    /// The end marker after the calls, if the format has one (it may be missing).
    pub end: Option<Markers>,
    /// The calls are a bracketed list `[f(), g()]`; else they are separated by newlines.
    pub list: bool,
}

#[derive(Debug, Clone, Copy)]
enum State {
    /// Plain text, looking for a trigger.
    Text,
    /// After the start marker of a list style: whitespace, then `[`.
    Open,
    /// Before a call: whitespace, then its name (or, after a trailing comma, `]`).
    Call { first: bool },
    /// Reading a call's name (into `buf`).
    Name,
    /// After a name and whitespace: `(` must follow.
    Paren,
    /// In a call, before a keyword: whitespace, then the keyword or `)`.
    Key,
    /// Reading a keyword (into `buf`).
    KeyName,
    /// After a keyword and whitespace: `=` must follow.
    Eq,
    /// Reading a keyword's value (by `lit`).
    Value,
    /// After a call's `)`: `,` or `]` (list style), or a newline and the next call or the end
    /// marker (newline style).
    AfterCall { newline: bool },
    /// After the list's `]`: whitespace (kept in `buf`) and the end marker, which may be missing.
    AfterList,
    /// After malformed markup: everything is content.
    Fallback,
}

pub struct Pythonic {
    style: &'static Style,
    st: State,
    /// The name (`Name`, `Paren`), the keyword (`KeyName`, `Eq`) or the whitespace
    /// (`AfterList`) being read.
    buf: String,
    /// The converter of the value being read (`Value`).
    lit: PyLiteral,
    /// The text of the current list read before its first call started (its opener included):
    /// it goes back to content if the list turns out not to be calls.
    raw: String,
    /// A call of the current list has started: failing now is malformed markup.
    started: bool,
    /// The current list began with the start marker: it is not tentative.
    marked: bool,
    /// Keywords of the open call.
    keys: HashSet<String>,
    /// The length of the whitespace run being read between tokens (capped by `WS_MAX`).
    ws: usize,
}

fn is_ident(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_'
}

fn is_ident_start(b: u8) -> bool {
    b.is_ascii_alphabetic() || b == b'_'
}

fn is_space(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\n' | b'\r')
}

/// Length of the run of identifier bytes at the start of `s` (ASCII: ends on a char boundary).
fn ident_len(s: &str) -> usize {
    s.bytes().take_while(|&b| is_ident(b)).count()
}

impl Pythonic {
    pub fn new(style: &'static Style) -> Self {
        Pythonic {
            style,
            st: State::Text,
            buf: String::new(),
            lit: PyLiteral::new(),
            raw: String::new(),
            started: false,
            marked: false,
            keys: HashSet::new(),
            ws: 0,
        }
    }

    /// The whitespace at the start of `rest`, a run between tokens: `Ok(its length)`, or
    /// `Err(k)` when the run passes `WS_MAX` at byte `k` of `rest`.
    fn space(&mut self, rest: &str) -> Result<usize, usize> {
        let w = ws_len(rest);
        let room = WS_MAX - self.ws;
        if w > room {
            return Err(room);
        }
        // the run ends here when something else follows
        self.ws = if w < rest.len() { 0 } else { self.ws + w };
        Ok(w)
    }

    /// Text read before the first call of the list started is kept.
    fn keep(&mut self, s: &str) {
        if !self.started {
            self.raw.push_str(s);
        }
    }

    /// Reads the whitespace run at `input[i..]` (kept while no call has started): `Ok(the
    /// position past it)`, or `Err(where to go on)` past the cap: the markup failed there.
    fn skip_space(&mut self, input: &str, i: usize, out: &mut Emitter) -> Result<usize, usize> {
        let rest = &input[i..];
        let (w, over) = match self.space(rest) {
            Ok(w) => (w, false),
            Err(k) => (k, true),
        };
        self.keep(&rest[..w]);
        if over {
            self.fail(i + w, out);
            return Err(i + w);
        }
        Ok(i + w)
    }

    /// The token after the whitespace between tokens at `input[i..]`: `(j, Some(b))`, byte `b`
    /// at `j`; `(j, None)`: go on from `j`, the input ended in the whitespace (the state stays)
    /// or the run passed the cap (the markup failed).
    fn token(&mut self, input: &str, i: usize, out: &mut Emitter) -> (usize, Option<u8>) {
        match self.skip_space(input, i, out) {
            Ok(j) => (j, input.as_bytes().get(j).copied()),
            Err(j) => (j, None),
        }
    }

    /// Reads the identifier at `input[i..]` into `buf` (at most one character past the cap is
    /// read: then the markup fails there): `(j, Some(b))`, byte `b` follows at `j`; `(j, None)`:
    /// go on from `j`, the input ended in the identifier or it was too long.
    fn ident(&mut self, input: &str, i: usize, out: &mut Emitter) -> (usize, Option<u8>) {
        let rest = &input[i..];
        let k = ident_len(rest).min(NAME_MAX + 1 - self.buf.len());
        self.buf.push_str(&rest[..k]);
        self.keep(&rest[..k]);
        if self.buf.len() > NAME_MAX {
            self.fail(i + k, out);
            return (i + k, None);
        }
        (i + k, rest.as_bytes().get(k).copied())
    }

    /// A list (or the start marker) begins with `opener`.
    fn open(&mut self, opener: &str) {
        self.raw.clear();
        self.raw.push_str(opener);
        self.started = false;
        self.ws = 0;
        self.marked = Some(opener) == self.style.start;
        self.st = if self.marked && self.style.list {
            State::Open
        } else {
            State::Call { first: true }
        };
    }

    /// The markup is not calls at byte `at`: where to go on is `at`.
    fn fail(&mut self, at: usize, out: &mut Emitter) -> Next {
        if self.started {
            out.malformed = true;
            self.st = State::Fallback;
        } else {
            out.content(&mem::take(&mut self.raw));
            if self.marked {
                out.malformed = true;
                self.st = State::Fallback;
            } else {
                // not a call list after all: the offending character is text again
                self.st = State::Text;
            }
        }
        Next::Go(at)
    }

    /// A name or a keyword starts at `at` (state `Name` or `KeyName`).
    fn read(&mut self, st: State, at: usize) -> Next {
        self.buf.clear();
        self.st = st;
        Next::Go(at)
    }

    /// The call named in `buf` opens; its arguments start at `at`.
    fn start_call(&mut self, at: usize, out: &mut Emitter) -> Next {
        out.tool_start(None, mem::take(&mut self.buf));
        self.started = true;
        self.raw.clear();
        self.keys.clear();
        self.st = State::Key;
        Next::Go(at)
    }

    /// `key=` is complete, the keyword in `buf`, its `=` at `at`: a repeated keyword fails there.
    fn key(&mut self, at: usize, out: &mut Emitter) -> Next {
        if self.keys.contains(&self.buf) {
            return self.fail(at, out);
        }
        out.args(if self.keys.is_empty() { "{\"" } else { ", \"" });
        out.args(&self.buf);
        out.args("\": ");
        self.keys.insert(mem::take(&mut self.buf));
        self.lit = PyLiteral::new();
        self.st = State::Value;
        Next::Go(at + 1)
    }

    /// The call's `)` ends at `at`.
    fn close_call(&mut self, at: usize, out: &mut Emitter) -> Next {
        out.args(if self.keys.is_empty() { "{}" } else { "}" });
        out.tool_end();
        self.st = State::AfterCall { newline: false };
        Next::Go(at)
    }

    /// The calls are complete.
    fn close_list(&mut self) {
        self.raw.clear();
        self.started = false;
        self.marked = false;
    }

    /// The list's `]` ends at `at`.
    fn after_list(&mut self, at: usize) -> Next {
        self.close_list();
        self.st = if self.style.end.is_some() {
            self.buf.clear();
            State::AfterList
        } else {
            State::Text
        };
        Next::Go(at)
    }

    /// Plain text up to a trigger, which opens a list.
    fn on_text(&mut self, input: &str, mut i: usize, out: &mut Emitter) -> Next {
        let Some(which) = text_until(&self.style.triggers, input, &mut i, out) else {
            return Next::Hold(i);
        };
        self.open(self.style.triggers.list[which]);
        Next::Go(i)
    }

    /// Reading a call's name: it may be dotted (`grocery.orderIngredients(...)`, the name keeps
    /// its dots); `(` or whitespace ends it.
    fn on_name(&mut self, input: &str, i: usize, out: &mut Emitter) -> Next {
        // after a dot, an identifier must follow (`a.b`, not `a.`, `a..b`, `a.1`)
        if self.buf.ends_with('.') && !is_ident_start(input.as_bytes()[i]) {
            return self.fail(i, out);
        }
        match self.ident(input, i, out) {
            (j, Some(b'.')) => {
                self.buf.push('.');
                self.keep(".");
                Next::Go(j + 1)
            }
            (j, Some(b'(')) => self.start_call(j + 1, out),
            (j, Some(b)) if is_space(b) => {
                self.st = State::Paren;
                Next::Go(j)
            }
            (j, Some(_)) => self.fail(j, out),
            (j, None) => Next::Go(j),
        }
    }

    /// Reading a keyword's value: the converter reads it and stops at the first character after
    /// it, `,` or `)`.
    fn on_value(&mut self, input: &str, i: usize, out: &mut Emitter) -> Next {
        let rest = &input[i..];
        // (the converter writes straight into the call's arguments: no copy)
        let lit = &mut self.lit;
        let r = out.args_with(|args| lit.feed(rest, args));
        if self.lit.no_json() {
            // valid, with no JSON form: the call is dropped, the list goes on
            out.drop_call();
        }
        match r {
            Step::NeedMore => Next::Hold(input.len()),
            Step::Done(n) => match rest.as_bytes().get(n) {
                Some(b',') => {
                    self.st = State::Key;
                    Next::Go(i + n + 1)
                }
                Some(b')') => self.close_call(i + n + 1, out),
                _ => self.fail(i + n, out),
            },
            Step::Error(n) => self.fail(i + n, out),
        }
    }

    /// After a call's `)`: list style, `,` and the next call or `]`; newline style, the end
    /// marker, or a newline and the next call.
    fn on_after_call(&mut self, newline: bool, input: &str, i: usize, out: &mut Emitter) -> Next {
        let style = self.style;
        let j = match self.skip_space(input, i, out) {
            Ok(j) => j,
            Err(j) => return Next::Go(j),
        };
        let newline = newline || input[i..j].contains(['\n', '\r']);
        self.st = State::AfterCall { newline };
        let next = &input[j..];
        let Some(&b) = next.as_bytes().first() else {
            return Next::Go(j);
        };
        if style.list {
            return match b {
                b',' => {
                    self.st = State::Call { first: false };
                    Next::Go(j + 1)
                }
                b']' => self.after_list(j + 1),
                _ => self.fail(j, out),
            };
        }
        if let Some(end) = &style.end {
            if let Some(which) = end.starts(next) {
                self.close_list();
                self.st = State::Text;
                return Next::Go(j + end.list[which].len());
            }
            if end.could_start(next) {
                return Next::Hold(j);
            }
        }
        if newline && is_ident_start(b) {
            self.read(State::Name, j)
        } else {
            self.fail(j, out)
        }
    }

    /// After the list's `]`: whitespace, then the end marker (markup) or other text (the
    /// whitespace is text).
    fn on_after_list(&mut self, input: &str, i: usize, out: &mut Emitter) -> Next {
        let (style, rest) = (self.style, &input[i..]);
        let (w, over) = match self.space(rest) {
            Ok(w) => (w, false),
            Err(k) => (k, true),
        };
        self.buf.push_str(&rest[..w]);
        let (j, next) = (i + w, &rest[w..]);
        let end = match &style.end {
            Some(end) if !over => end,
            // no end marker, or whitespace past the cap: the whitespace is text
            _ => return self.after_list_text(j, out),
        };
        if next.is_empty() {
            Next::Go(j)
        } else if let Some(which) = end.starts(next) {
            self.st = State::Text;
            Next::Go(j + end.list[which].len())
        } else if end.could_start(next) {
            Next::Hold(j)
        } else {
            // no end marker: the whitespace is text (content rules apply)
            self.after_list_text(j, out)
        }
    }

    /// The whitespace after a list is text; other text follows at `at`.
    fn after_list_text(&mut self, at: usize, out: &mut Emitter) -> Next {
        out.content(&self.buf);
        self.st = State::Text;
        Next::Go(at)
    }
}

impl Machine for Pythonic {
    fn step(&mut self, input: &str, i: usize, out: &mut Emitter) -> Next {
        match self.st {
            State::Text => self.on_text(input, i, out),
            State::Open => match self.token(input, i, out) {
                (j, Some(b'[')) => {
                    self.keep("[");
                    self.st = State::Call { first: true };
                    Next::Go(j + 1)
                }
                (j, Some(_)) => self.fail(j, out),
                (j, None) => Next::Go(j),
            },
            State::Call { first } => match self.token(input, i, out) {
                // `[f(),]`
                (j, Some(b']')) if !first && self.style.list => self.after_list(j + 1),
                (j, Some(b)) if is_ident_start(b) => self.read(State::Name, j),
                (j, Some(_)) => self.fail(j, out),
                (j, None) => Next::Go(j),
            },
            State::Name => self.on_name(input, i, out),
            State::Paren => match self.token(input, i, out) {
                (j, Some(b'(')) => self.start_call(j + 1, out),
                (j, Some(_)) => self.fail(j, out),
                (j, None) => Next::Go(j),
            },
            State::Key => match self.token(input, i, out) {
                (j, Some(b)) if is_ident_start(b) => self.read(State::KeyName, j),
                (j, Some(b')')) => self.close_call(j + 1, out),
                (j, Some(_)) => self.fail(j, out),
                (j, None) => Next::Go(j),
            },
            State::KeyName => match self.ident(input, i, out) {
                (j, Some(b'=')) => self.key(j, out),
                (j, Some(b)) if is_space(b) => {
                    self.st = State::Eq;
                    Next::Go(j)
                }
                (j, Some(_)) => self.fail(j, out),
                (j, None) => Next::Go(j),
            },
            State::Eq => match self.token(input, i, out) {
                (j, Some(b'=')) => self.key(j, out),
                (j, Some(_)) => self.fail(j, out),
                (j, None) => Next::Go(j),
            },
            State::Value => self.on_value(input, i, out),
            State::AfterCall { newline } => self.on_after_call(newline, input, i, out),
            State::AfterList => self.on_after_list(input, i, out),
            // The driver makes the rest content.
            State::Fallback => Next::Hold(i),
        }
    }

    fn finish(&mut self, rest: &str, out: &mut Emitter) {
        match mem::replace(&mut self.st, State::Fallback) {
            State::Text | State::Fallback => out.content(rest),
            // whitespace and a truncated end marker after complete calls are markup
            State::AfterList => {}
            State::AfterCall { .. } if !self.style.list => {}
            _ if !self.started => {
                // a list cut short before its first call started: after the start marker it is
                // an unfinished call; a bare list may have been text
                self.raw.push_str(rest);
                let raw = mem::take(&mut self.raw);
                if self.marked {
                    out.truncate(&raw);
                } else {
                    out.content(&raw);
                }
            }
            // cut off inside the calls
            _ => out.truncate(rest),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::event::{Event, Extracted};
    // The styles generated from the spec (lfm2: a list between markers; olmo3: newline-separated
    // calls between markers).
    use crate::formats::{
        LFM2_STYLE as LFM2, LLAMA4_PYTHONIC_STYLE as LLAMA4, OLMO3_STYLE as OLMO3,
        PYTHONIC_STYLE as PYTHONIC,
    };

    #[derive(Debug, PartialEq)]
    struct Run {
        content: Option<String>,
        calls: Vec<(String, String)>,
        malformed: bool,
        truncated: bool,
    }

    fn run(style: &'static Style, pieces: &[&str]) -> (Run, Vec<Vec<Event>>) {
        let mut m = Pythonic::new(style);
        let mut out = Emitter::new();
        let mut held = String::new();
        let mut per_feed = Vec::new();
        for p in pieces {
            held.push_str(p);
            let n = m.feed(&held, &mut out);
            held.drain(..n);
            assert!(held.len() <= 32, "held back {held:?}");
            per_feed.push(out.take());
        }
        m.finish(&held, &mut out);
        out.finish();
        per_feed.push(out.take());
        let x = Extracted::from_events(per_feed.concat(), out.malformed, out.truncated);
        let run = Run {
            content: x.content,
            calls: x.calls.into_iter().map(|c| (c.name, c.arguments)).collect(),
            malformed: x.malformed,
            truncated: x.truncated,
        };
        (run, per_feed)
    }

    /// Whole, every split in two, and one char at a time: the same result.
    fn check(style: &'static Style, text: &str) -> Run {
        let (whole, _) = run(style, &[text]);
        let chars: Vec<&str> = text
            .char_indices()
            .map(|(i, c)| &text[i..i + c.len_utf8()])
            .collect();
        assert_eq!(run(style, &chars).0, whole, "char by char: {text:?}");
        for (i, _) in text.char_indices().skip(1) {
            assert_eq!(
                run(style, &[&text[..i], &text[i..]]).0,
                whole,
                "split at {i}: {text:?}"
            );
        }
        whole
    }

    fn calls(list: &[(&str, &str)]) -> Vec<(String, String)> {
        list.iter()
            .map(|(n, a)| (n.to_string(), a.to_string()))
            .collect()
    }

    fn ok(content: Option<&str>, list: &[(&str, &str)]) -> Run {
        Run {
            content: content.map(str::to_string),
            calls: calls(list),
            malformed: false,
            truncated: false,
        }
    }

    fn content_only(text: &str, malformed: bool) -> Run {
        Run {
            content: (!text.is_empty()).then(|| text.to_string()),
            calls: Vec::new(),
            malformed,
            truncated: false,
        }
    }

    #[test]
    fn calls_and_types() {
        let cases: &[(&str, &[(&str, &str)])] = &[
            (
                "[get_weather(city='Tokyo')]",
                &[("get_weather", r#"{"city": "Tokyo"}"#)],
            ),
            ("[get_current_time()]", &[("get_current_time", "{}")]),
            (
                "[f(a=1, b=\"x\"), g(), h(c=None)]",
                &[("f", r#"{"a": 1, "b": "x"}"#), ("g", "{}"), ("h", r#"{"c": null}"#)],
            ),
            (
                "[f(s='a', i=-3, x=2.5e3, t=True, n=False, z=None, l=[1, (2, 3)], d={'k': {'j': []}}, e={})]",
                &[(
                    "f",
                    r#"{"s": "a", "i": -3, "x": 2500.0, "t": true, "n": false, "z": null, "l": [1, [2, 3]], "d": {"k": {"j": []}}, "e": {}}"#,
                )],
            ),
            (
                r#"[f(a='He said "hi"', b='C:\\Users', c='\n', d='東京 🎉')]"#,
                &[(
                    "f",
                    r#"{"a": "He said \"hi\"", "b": "C:\\Users", "c": "\n", "d": "東京 🎉"}"#,
                )],
            ),
            (
                "[\n  f( a = 1 ,\n b=2, ),\n  g ( ) ,\n]",
                &[("f", r#"{"a": 1, "b": 2}"#), ("g", "{}")],
            ),
        ];
        for (text, expected) in cases {
            assert_eq!(check(&PYTHONIC, text), ok(None, expected), "{text}");
            let marked = format!("<|python_start|>{text}<|python_end|>");
            assert_eq!(check(&LLAMA4, &marked), ok(None, expected), "{marked}");
            assert_eq!(check(&LLAMA4, text), ok(None, expected), "{text}");
        }
    }

    #[test]
    fn text_around_calls() {
        assert_eq!(
            check(&PYTHONIC, "Sure! [f(a=1)] Done."),
            ok(Some("Sure!  Done."), &[("f", r#"{"a": 1}"#)])
        );
        assert_eq!(check(&PYTHONIC, "  [f()]\n "), ok(None, &[("f", "{}")]));
        assert_eq!(
            check(&PYTHONIC, "[f()] and [g()]"),
            ok(Some(" and "), &[("f", "{}"), ("g", "{}")])
        );
        assert_eq!(
            check(&PYTHONIC, "[f()][g()] é[h()] [x] x[i()]"),
            ok(
                Some(" é [x] x"),
                &[("f", "{}"), ("g", "{}"), ("h", "{}"), ("i", "{}")]
            )
        );
        assert_eq!(
            check(&LLAMA4, "Hi <|python_start|> [f()] <|python_end|> bye"),
            ok(Some("Hi  bye"), &[("f", "{}")])
        );
        assert_eq!(
            check(&LLAMA4, "[f()] \nbye <|python_end|>"),
            ok(Some(" \nbye <|python_end|>"), &[("f", "{}")])
        );
    }

    #[test]
    fn brackets_in_text_stay_content() {
        for text in [
            "[1] see the reference",
            "[link](url) and [x]",
            "[O'Reilly] [ ] [] [a b(c)] [[ [a.(x=1)] [a..b()] [a.1()] [a .b()] [f ",
            "[get_weather",
            "[get_weather ",
            "nums [1, 2] and [f] and [f ,]",
            "[é(a=1)]",
            "",
            "  \n",
        ] {
            assert_eq!(check(&PYTHONIC, text), content_only(text, false), "{text}");
        }
    }

    #[test]
    fn malformed() {
        for text in [
            "[func(arg='val']",
            "[func(arg=undefined)]",
            "[func(a=1), g(b=[1, 2)]",
            "[f(1)]",
            "[f(x)]",
            "[f(**k)]",
            "[f(a=1, a=2)]",
            "[f(a=1 b=2)]",
            "[f(a=1), 2]",
            "[f(,)]",
        ] {
            let r = check(&PYTHONIC, text);
            assert!(r.malformed, "{text}: {r:?}");
        }
        for text in [
            "<|python_start|>[func(arg='val']<|python_end|>",
            "<|python_start|>print('hi')<|python_end|>",
            "<|python_start|>[1]",
        ] {
            let r = check(&LLAMA4, text);
            assert!(r.malformed, "{text}: {r:?}");
        }
        // before the first call started: the text is content, whatever the split
        let (r, _) = run(&LLAMA4, &["<|python_start|>[1]"]);
        assert_eq!(r.content.as_deref(), Some("<|python_start|>[1]"));
    }

    #[test]
    fn truncated_keeps_the_complete_calls() {
        for (style, text, complete) in [
            (&PYTHONIC, "[func(arg='val')", 1),
            (&PYTHONIC, "[func(arg='unterminated)]", 0),
            (&PYTHONIC, "[func(arg=", 0),
            (&PYTHONIC, "[f(a=1)", 1),
            (&PYTHONIC, "[f(a=1),", 1),
            (&PYTHONIC, "[f(a=1), g(b=", 1),
            (&PYTHONIC, "[f()] [g(", 1),
            (&LLAMA4, "<|python_start|>", 0),
            (&LLAMA4, "<|python_start|>[f(), g(", 1),
        ] {
            let r = check(style, text);
            assert!(r.truncated && !r.malformed, "{text}: {r:?}");
            assert_eq!(r.calls.len(), complete, "{text}: {r:?}");
        }
        // a bare list cut short before a call started may be text: content, not truncated
        let r = check(&PYTHONIC, "see [f");
        assert_eq!(r, content_only("see [f", false));
    }

    #[test]
    fn fallback_keeps_the_rest_as_content() {
        let (r, _) = run(&PYTHONIC, &["[f(a=1, 2) tail"]);
        assert!(r.malformed);
        assert_eq!(r.content.as_deref(), Some("2) tail"));
    }

    #[test]
    fn streams_arguments() {
        let pieces = ["[get", "_weather", "(city", "='Tokyo", "')]"];
        let (r, per_feed) = run(&PYTHONIC, &pieces);
        assert_eq!(r, ok(None, &[("get_weather", r#"{"city": "Tokyo"}"#)]));
        let frag = |evs: &Vec<Event>| -> String {
            evs.iter()
                .map(|e| match e {
                    Event::ToolStart { name, .. } => format!("<{name}>"),
                    Event::ToolArgs { fragment, .. } => fragment.clone(),
                    Event::ToolEnd { .. } => "</>".to_string(),
                    Event::Dropped { .. } => "<dropped>".to_string(),
                    Event::Content(c) | Event::Reasoning(c) | Event::Unfinished(c) => {
                        format!("[{c}]")
                    }
                })
                .collect()
        };
        let got: Vec<String> = per_feed.iter().map(frag).collect();
        assert_eq!(
            got,
            ["", "", "<get_weather>", "{\"city\": \"Tokyo", "\"}</>", ""]
        );
    }

    #[test]
    fn long_string_streams_in_small_deltas() {
        let body = "abc é漢😀 \\n \\' ".repeat(1200);
        let text = format!("[f(s='{body}')]");
        let mut pieces = Vec::new();
        let mut start = 0;
        while start < text.len() {
            let mut end = (start + 4).min(text.len());
            while !text.is_char_boundary(end) {
                end += 1;
            }
            pieces.push(&text[start..end]);
            start = end;
        }
        let (r, per_feed) = run(&PYTHONIC, &pieces);
        assert!(!r.malformed && r.calls.len() == 1);
        let silent = per_feed.iter().filter(|e| e.is_empty()).count();
        assert!(
            silent < per_feed.len() / 10,
            "{silent} of {}",
            per_feed.len()
        );
    }

    #[test]
    fn real_outputs_round_two() {
        // dotted names, sets, JSON's names, raw line ends in strings, dicts holding them
        assert_eq!(
            check(
                &PYTHONIC,
                "[grocery.orderIngredients(items={'urgent', 'bug'}, d={'k': null, 'on': true}, \
                 s='a\nb', f=false)]"
            ),
            ok(
                None,
                &[(
                    "grocery.orderIngredients",
                    r#"{"items": ["urgent", "bug"], "d": {"k": null, "on": true}, "s": "a\nb", "f": false}"#
                )]
            )
        );
        assert_eq!(
            check(
                &OLMO3,
                "<function_calls>a.b.c(x=null)\nf(y=true)</function_calls>"
            ),
            ok(
                None,
                &[("a.b.c", r#"{"x": null}"#), ("f", r#"{"y": true}"#)]
            )
        );
        // a call whose value has no JSON form is dropped; the others are kept
        for (text, kept) in [
            ("[f(a=b'z'), g(b=1)]", &[("g", r#"{"b": 1}"#)][..]),
            (
                "[g(b=1), f(a=1, c=[1, 1j]), h()]",
                &[("g", r#"{"b": 1}"#), ("h", "{}")],
            ),
            ("[f(a=...)]", &[]),
            ("[f(a=1e400), g()]", &[("g", "{}")]),
        ] {
            assert_eq!(check(&PYTHONIC, text), ok(None, kept), "{text}");
            let marked = format!("<|tool_call_start|>{text}<|tool_call_end|>");
            assert_eq!(check(&LFM2, &marked), ok(None, kept), "{marked}");
        }
        // a syntax error anywhere still makes the whole list malformed
        for text in [
            "[f(a=b'z'), g(b=[1, 2)]",
            "[f(a=1), g(b=[1, 2)]",
            "[f(a=b'z' 1)]",
        ] {
            assert!(check(&PYTHONIC, text).malformed, "{text}");
        }
    }

    #[test]
    fn lfm2_style() {
        assert_eq!(
            check(
                &LFM2,
                "Calling. <|tool_call_start|>[f(a=1), g()]<|tool_call_end|> ok"
            ),
            ok(Some("Calling.  ok"), &[("f", r#"{"a": 1}"#), ("g", "{}")])
        );
        // without the marker a list is plain text
        assert_eq!(check(&LFM2, "[f(a=1)]"), content_only("[f(a=1)]", false));
        assert!(check(&LFM2, "<|tool_call_start|>f(a=1)<|tool_call_end|>").malformed);
    }

    #[test]
    fn olmo3_style() {
        assert_eq!(
            check(
                &OLMO3,
                "Let me check.<function_calls>f(a=1)\ng(b='x')\n</function_calls>"
            ),
            ok(
                Some("Let me check."),
                &[("f", r#"{"a": 1}"#), ("g", r#"{"b": "x"}"#)]
            )
        );
        assert_eq!(
            check(&OLMO3, "<function_calls>\nf()\n"),
            ok(None, &[("f", "{}")])
        );
        assert_eq!(check(&OLMO3, "f(a=1)"), content_only("f(a=1)", false));
        for text in [
            "<function_calls>f(a=1) g()</function_calls>",
            "<function_calls>[f()]</function_calls>",
            "<function_calls>f(a=1)\nnot a call</function_calls>",
        ] {
            assert!(check(&OLMO3, text).malformed, "{text}");
        }
    }
}
