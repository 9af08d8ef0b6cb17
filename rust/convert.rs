//! Incremental converters from non-JSON argument syntaxes to JSON text.
//!
//! [`PyLiteral`] reads ONE Python literal expression (the value of one keyword argument of a
//! `pythonic` tool call, or one element) and writes the JSON text that
//! `json.dumps(ast.literal_eval(src), ensure_ascii=False)` would write, while the text is still
//! arriving. Its pure-Python twin is `python/toolparse/reference/convert.py` (same states, same
//! names, same output per `feed` call).
//!
//! How it stays linear and split-invariant:
//! - every input character is handled once by `PyLiteral::step`; the only text kept between
//!   feeds is bounded: a pending escape (`\x4`), up to two quote characters that may close a
//!   triple-quoted string, an identifier of at most 5 characters (`True`, `None`, a string
//!   prefix), and the text of the number being read (numbers are written once complete);
//! - nesting uses an explicit stack of `Frame`s, never recursion;
//! - decoded string characters are written as soon as they are known.
//!
//! Where output waits: a `(` in value position may open a tuple (`(1,)` -> `[1]`) or only
//! group (`(1)` -> `1`), and a `{` may open a dict (`{1: 2}` -> `{"1": 2}`) or a set
//! (`{'urgent', 'bug'}` -> `["urgent", "bug"]`, in source order, as vLLM and SGLang write a set).
//! That is known once the first element is complete (the `,`, `:` or closing bracket after it),
//! so the output of that first element is held until then; the `[` or `{` (and, for a dict whose
//! first key is not a string, the quotes around that key) is then inserted at the recorded
//! positions. A group in key position (`{(1): 2}`) or after a sign (`-(1)`) can never be a tuple
//! and holds nothing.
//!
//! Beyond `ast.literal_eval` (what models write and the peers read): `null`, `true` and `false`
//! are JSON's `None`, `True` and `False` (vLLM reads them in every pythonic format, SGLang in
//! lfm2), and a raw line end inside a one-line string is kept as written (vLLM escapes it before
//! parsing) instead of ending the string.
//!
//! A literal whose syntax is valid but whose value has no JSON form (bytes `b'z'`, a complex
//! number `1j`, `...`, a float that overflows to infinity) is read to its end like any other, its
//! JSON text is nothing from there on, and [`PyLiteral::no_json`] says so: the caller drops the
//! call it belongs to (SGLang skips such a call and keeps the others).

use std::mem;

/// What a converter did with one call (the crate-wide sub-scanner outcome): `NeedMore`,
/// `Done(n)` (bytes `[0, n)` consumed, `input[n..]` is not part of the value) or `Error(n)`.
pub use crate::params;
use crate::Step;

mod number;
mod value;
use number::{Num, Number};
use value::new_number;

/// The string literal being read: its quote character, triple-quoted or not, raw or not.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Quote {
    q: char,
    triple: bool,
    raw: bool,
}

#[derive(Debug)]
enum State {
    /// Expecting a value (or the closing bracket of the enclosing container); skips whitespace.
    Value,
    /// After a unary `+`/`-`: only parentheses and then a number may follow.
    Signed { neg: bool, groups: usize },
    /// An identifier: `True`, `False`, `None` (or `true`, `false`, `null`), or a string prefix
    /// (`r`, `u`, and the bytes prefixes `b`, `br`, `rb`); `concat` when it
    /// follows a complete string (then only a prefix of the next concatenated string is valid).
    Name { buf: String, concat: bool },
    /// A number literal.
    Number(Number),
    /// After a signed number written inside parentheses (`-((1))`): `left` `)` still to come.
    CloseGroups { left: usize },
    /// One or two opening quotes seen: two may be an empty string or the start of a triple quote.
    StrOpen { q: char, raw: bool, quotes: u8 },
    /// Inside the body of a string literal.
    Str(Quote),
    /// Triple-quoted body: `quotes` (1 or 2) quote characters held back, they may close it.
    StrClose { quote: Quote, quotes: u8 },
    /// After a backslash in a string body.
    StrEscape(Quote),
    /// `\o`, `\oo`: an octal escape that may take more digits.
    StrOctal {
        quote: Quote,
        value: u32,
        digits: u8,
    },
    /// `\x`, `\u`, `\U`: `left` hex digits still required.
    StrHex { quote: Quote, value: u32, left: u8 },
    /// A string literal closed; another may follow (implicit concatenation). The closing `"` of
    /// the JSON string is written once something else follows.
    AfterString,
    /// A value is complete; skips whitespace, expects `,`, `:` or a closing bracket (or, at the
    /// top level, anything: the literal is done).
    AfterValue,
    /// The literal ended (`feed` returned `Done`).
    Done,
    /// The text is not a valid literal.
    Failed,
}

/// An open container (or a parenthesis) on the explicit stack.
#[derive(Debug)]
enum Frame {
    /// `[`; `sep`: an element was written, the next one needs `, `.
    List { sep: bool },
    /// A `(` known to be a tuple (a `,` was seen).
    Tuple { sep: bool },
    /// A `(` in value position before its first element is complete: tuple or grouping is not
    /// known yet. `mark`: where its `[` goes in `hold` if it turns out to be a tuple; `seq`: the
    /// order it was opened in (what is inserted at one position goes outermost first).
    Paren { mark: usize, seq: usize },
    /// A `(` in key position: grouping only (a tuple key is not JSON-serialisable).
    Group,
    /// `{` before its first element is complete: dict or set is not known yet. `mark`: where
    /// its `{` or `[` goes in `hold`; `key`: the span in `hold` of a first element that is a
    /// scalar other than a string, which a dict writes between quotes (`seq`: as for `Paren`).
    Brace {
        mark: usize,
        seq: usize,
        key: Option<(usize, usize)>,
    },
    /// `{`; `key`: expecting/reading a key (else a value).
    Dict { key: bool, sep: bool },
    /// A `{` known to be a set (a `,` or `}` followed its first element): written as a list.
    Set { sep: bool },
}

/// How a scalar is written where it stands.
enum KeyQuotes {
    /// as it is
    No,
    /// between quotes: a dict key (`json.dumps` writes keys as strings)
    Now,
    /// the first element of a `{` not known to be a dict or a set yet
    Pending,
}

/// What `step` did with a character.
enum Flow {
    /// consumed it
    Next,
    /// changed state without consuming it: handle it again
    Again,
    /// the literal ended before it
    Done,
    /// it is invalid
    Fail,
}

/// Incremental converter of one Python literal to JSON text (see the module docs).
///
/// Whitespace (space, tab, form feed, newlines, backslash-newline) after a complete literal is
/// consumed: `feed` returns `Done(n)` only when it sees the first other character after the
/// literal, at offset `n` (so the end of a number, of a string that another string could still
/// continue, and of a container is reported at the next token). A literal that ends at the end
/// of the text is completed by [`PyLiteral::finish`]. A letter right after a string literal is
/// read as the prefix of a concatenated string (`'a' r'b'`), so anything else there (`'a' x`)
/// is an `Error`, not a `Done`.
#[derive(Debug)]
pub struct PyLiteral {
    state: State,
    stack: Vec<Frame>,
    /// number of `Frame::Paren` on the stack (undecided parentheses); while > 0, output goes to
    /// `hold`
    undecided: usize,
    /// output held while a parenthesis is undecided
    hold: String,
    /// what must be inserted in `hold` once nothing is undecided: (position, order of the
    /// bracket it belongs to, text): the `[` of parentheses that became tuples, the `{` or `[`
    /// of braces that became dicts or sets, the quotes around a dict's first key
    inserts: Vec<(usize, usize, char)>,
    /// brackets opened undecided so far (orders what is inserted at one position)
    opened: usize,
    /// the literal (or a part of it) is valid but has no JSON form
    no_json: bool,
    /// a `\r` was read (as a newline); a `\n` right after it belongs to it
    skip_lf: bool,
    /// a backslash outside a string: a newline must follow (line continuation)
    line_cont: bool,
}

impl Default for PyLiteral {
    fn default() -> Self {
        Self::new()
    }
}

fn is_space(c: char) -> bool {
    matches!(c, ' ' | '\t' | '\x0c' | '\n')
}

fn is_ident(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_'
}

/// Length of the run of string-body bytes that need no decision and no JSON escaping: anything but
/// the quote, a backslash, `"` or a control character.
fn plain_run(bytes: &[u8], q: u8) -> usize {
    crate::json::safe_run(bytes, q)
}

/// The JSON text of a two-byte Python escape that a string body can take on its fast path
/// (`\n`, `\t`, `\\`, `\'`, `\"`), or None.
fn simple_escape(b: u8) -> Option<&'static str> {
    match b {
        b'n' => Some("\\n"),
        b't' => Some("\\t"),
        b'\\' => Some("\\\\"),
        b'\'' => Some("'"),
        b'"' => Some("\\\""),
        _ => None,
    }
}

impl PyLiteral {
    pub fn new() -> Self {
        PyLiteral {
            state: State::Value,
            stack: Vec::new(),
            undecided: 0,
            hold: String::new(),
            inserts: Vec::new(),
            opened: 0,
            no_json: false,
            skip_lf: false,
            line_cont: false,
        }
    }

    /// The literal read so far holds a value that has no JSON form (bytes, a complex number,
    /// `...`, an infinite float): its JSON text is not the value's, and the call it belongs to is
    /// not a call.
    pub fn no_json(&self) -> bool {
        self.no_json
    }

    /// Consume `input` (its start continues the text of the previous call) and append JSON text
    /// to `out`. `NeedMore`: all of `input` was consumed and the literal is not finished.
    /// `Done(n)`: the literal ended; `input[n..]` (starting with a non-whitespace character) is
    /// not part of it. `Error(n)`: invalid at byte `n` of `input`. After `Done`/`Error`, further
    /// calls return `Done(0)`/`Error(0)` and write nothing.
    pub fn feed(&mut self, input: &str, out: &mut String) -> Step {
        match self.state {
            State::Done => return Step::Done(0),
            State::Failed => return Step::Error(0),
            _ => {}
        }
        let bytes = input.as_bytes();
        let mut i = 0;
        while i < bytes.len() {
            if self.skip_lf {
                self.skip_lf = false;
                if bytes[i] == b'\n' {
                    i += 1;
                    continue;
                }
            }
            if let State::Str(quote) = self.state {
                // Fast path: plain runs, `"` and the common two-byte escapes, without a step
                // per character. Anything else (the quote, a split or rare escape, a control
                // character) takes the general path below.
                let q = quote.q as u8;
                let mut j = i;
                loop {
                    j += plain_run(&bytes[j..], q);
                    let (skip, json) = match bytes.get(j) {
                        Some(&b) if b == q => break,
                        Some(b'"') => (1, "\\\""),
                        Some(b'\\') if !quote.raw => {
                            match bytes.get(j + 1).copied().and_then(simple_escape) {
                                Some(json) => (2, json),
                                None => break,
                            }
                        }
                        _ => break,
                    };
                    self.emit(out, &input[i..j]);
                    self.emit(out, json);
                    j += skip;
                    i = j;
                }
                if j > i {
                    self.emit(out, &input[i..j]);
                    i = j;
                    continue;
                }
            }
            let Some(ch) = input[i..].chars().next() else {
                break;
            };
            // Python reads `\r\n` and a lone `\r` as `\n` (universal newlines); a raw line end
            // in a one-line string is kept as written.
            let one_line = matches!(
                self.state,
                State::Str(Quote { triple: false, .. }) | State::StrOpen { quotes: 1, .. }
            );
            let c = if ch == '\r' && !one_line {
                self.skip_lf = true;
                '\n'
            } else {
                ch
            };
            loop {
                match self.step(c, out) {
                    Flow::Next => break,
                    Flow::Again => {}
                    Flow::Done => return Step::Done(i),
                    Flow::Fail => {
                        self.state = State::Failed;
                        return Step::Error(i);
                    }
                }
            }
            i += ch.len_utf8();
        }
        Step::NeedMore
    }

    /// End of the text: `Done(0)` if the literal is complete (writing what was still pending,
    /// e.g. a trailing number or the closing `"` of a string), else `Error(0)`.
    pub fn finish(&mut self, out: &mut String) -> Step {
        let ok = !self.line_cont
            && match mem::replace(&mut self.state, State::Failed) {
                State::Done | State::AfterValue => true,
                State::Number(number) => number.groups == 0 && self.finish_number(&number, out),
                State::Name { buf, concat } => !concat && self.finish_name(&buf, out),
                State::AfterString | State::StrOpen { quotes: 2, .. } => {
                    self.emit(out, "\"");
                    true
                }
                _ => false,
            };
        if ok && self.stack.is_empty() {
            self.state = State::Done;
            Step::Done(0)
        } else {
            self.state = State::Failed;
            Step::Error(0)
        }
    }

    // ----- output -----

    /// Write JSON text, or string-body text that needs no JSON escaping (see `plain_run`): held
    /// back while a bracket is undecided; nothing once a value with no JSON form was read, so
    /// what was written depends only on where that value stands.
    fn emit(&mut self, out: &mut String, s: &str) {
        if self.no_json {
        } else if self.undecided > 0 {
            self.hold.push_str(s);
        } else {
            out.push_str(s);
        }
    }

    /// Write decoded string characters, escaped for a JSON string.
    fn emit_text(&mut self, out: &mut String, s: &str) {
        if self.no_json {
            return;
        }
        let dst = if self.undecided > 0 {
            &mut self.hold
        } else {
            out
        };
        params::push_json_str_body(dst, s);
    }

    fn emit_char(&mut self, out: &mut String, c: char) {
        let mut buf = [0u8; 4];
        self.emit_text(out, c.encode_utf8(&mut buf));
    }

    /// An undecided bracket is now known; `inserts` is what goes into `hold` for it.
    fn resolve(&mut self, inserts: &[(usize, usize, char)], out: &mut String) {
        self.inserts.extend_from_slice(inserts);
        self.undecided = self.undecided.saturating_sub(1);
        if self.undecided == 0 && self.no_json {
            self.hold.clear();
            self.inserts.clear();
        } else if self.undecided == 0 {
            self.inserts
                .sort_unstable_by_key(|&(pos, seq, _)| (pos, seq));
            let mut prev = 0;
            for &(pos, _, c) in &self.inserts {
                out.push_str(self.hold.get(prev..pos).unwrap_or(""));
                out.push(c);
                prev = pos;
            }
            out.push_str(self.hold.get(prev..).unwrap_or(""));
            self.hold.clear();
            self.inserts.clear();
        }
    }

    // ----- helpers -----

    /// Whitespace between tokens (a backslash starts a line continuation).
    fn space(&mut self, c: char) -> bool {
        if is_space(c) {
            true
        } else if c == '\\' {
            self.line_cont = true;
            true
        } else {
            false
        }
    }

    /// Must the value being read be hashable (a dict key, a set element)?
    fn in_key(&self) -> bool {
        matches!(
            self.stack.last(),
            Some(
                Frame::Group
                    | Frame::Dict { key: true, .. }
                    | Frame::Brace { .. }
                    | Frame::Set { .. }
            )
        )
    }

    /// How a scalar is written here (groups in key position are looked through).
    fn key_quotes(&self) -> KeyQuotes {
        for f in self.stack.iter().rev() {
            match f {
                Frame::Group => {}
                Frame::Dict { key: true, .. } => return KeyQuotes::Now,
                Frame::Brace { .. } => return KeyQuotes::Pending,
                _ => return KeyQuotes::No,
            }
        }
        KeyQuotes::No
    }

    /// A scalar's JSON text; keys are written as JSON strings, like `json.dumps` does.
    fn emit_scalar(&mut self, out: &mut String, text: &str) {
        match self.key_quotes() {
            KeyQuotes::Now => {
                self.emit(out, "\"");
                self.emit(out, text);
                self.emit(out, "\"");
            }
            KeyQuotes::Pending => {
                // (a brace holds its output: `emit` writes to `hold`)
                let start = self.hold.len();
                self.emit(out, text);
                let end = self.hold.len();
                if let Some(Frame::Brace { key, .. }) = self
                    .stack
                    .iter_mut()
                    .rev()
                    .find(|f| !matches!(f, Frame::Group))
                {
                    *key = Some((start, end));
                }
            }
            KeyQuotes::No => self.emit(out, text),
        }
    }

    fn finish_name(&mut self, name: &str, out: &mut String) -> bool {
        let text = match name {
            "True" | "true" => "true",
            "False" | "false" => "false",
            "None" | "null" => "null",
            _ => return false,
        };
        self.emit_scalar(out, text);
        true
    }

    // ----- the state machine -----

    /// One character in the current state: one `match` over the states, each arm a transition
    /// (the longer ones in `on_<state>`, named after the state they leave).
    fn step(&mut self, c: char, out: &mut String) -> Flow {
        if self.line_cont {
            self.line_cont = false;
            return if c == '\n' { Flow::Next } else { Flow::Fail };
        }
        match mem::replace(&mut self.state, State::Failed) {
            State::Value => {
                if self.space(c) {
                    self.state = State::Value;
                    return Flow::Next;
                }
                self.start_value(c, out)
            }
            State::Signed { neg, groups } => self.on_signed(neg, groups, c),
            State::Name { buf, concat } => self.on_name(buf, concat, c, out),
            State::Number(number) => self.on_number(number, c, out),
            State::CloseGroups { left } => {
                if self.space(c) {
                    self.state = State::CloseGroups { left };
                    return Flow::Next;
                }
                if c != ')' {
                    return Flow::Fail;
                }
                self.state = if left > 1 {
                    State::CloseGroups { left: left - 1 }
                } else {
                    State::AfterValue
                };
                Flow::Next
            }
            State::StrOpen { q, raw, quotes } => self.on_str_open(q, raw, quotes, c),
            State::Str(quote) => {
                if c == quote.q {
                    self.state = if quote.triple {
                        State::StrClose { quote, quotes: 1 }
                    } else {
                        State::AfterString
                    };
                } else if c == '\\' {
                    self.state = State::StrEscape(quote);
                } else if c == '\0' {
                    return Flow::Fail; // NUL is not allowed in source
                } else {
                    // (a raw line end in a one-line string is kept: see the module docs)
                    self.emit_char(out, c);
                    self.state = State::Str(quote);
                }
                Flow::Next
            }
            State::StrClose { quote, quotes } => self.on_str_close(quote, quotes, c, out),
            State::StrEscape(quote) => self.on_str_escape(quote, c, out),
            State::StrOctal {
                quote,
                value,
                digits,
            } => self.on_str_octal(quote, value, digits, c, out),
            State::StrHex { quote, value, left } => self.on_str_hex(quote, value, left, c, out),
            State::AfterString => self.on_after_string(c, out),
            State::AfterValue => {
                if self.space(c) {
                    self.state = State::AfterValue;
                    return Flow::Next;
                }
                self.after_value(c, out)
            }
            State::Done => {
                self.state = State::Done;
                Flow::Done
            }
            State::Failed => Flow::Fail,
        }
    }

    /// After a unary `+`/`-`: parentheses, then a number.
    fn on_signed(&mut self, neg: bool, groups: usize, c: char) -> Flow {
        if self.space(c) {
            self.state = State::Signed { neg, groups };
            return Flow::Next;
        }
        match c {
            '(' => {
                self.state = State::Signed {
                    neg,
                    groups: groups + 1,
                };
                Flow::Next
            }
            '0'..='9' | '.' => {
                self.state = new_number(c, neg, groups);
                Flow::Next
            }
            _ => Flow::Fail,
        }
    }

    /// An identifier: a name (`True`, `None`, ...) or the prefix of a string literal.
    fn on_name(&mut self, mut buf: String, concat: bool, c: char, out: &mut String) -> Flow {
        if is_ident(c) {
            if buf.len() >= 5 {
                return Flow::Fail; // longer than any name or prefix we accept
            }
            buf.push(c);
            self.state = State::Name { buf, concat };
            return Flow::Next;
        }
        if c == '\'' || c == '"' {
            let raw = match buf.as_str() {
                "r" | "R" => true,
                "u" | "U" => false,
                // bytes: valid, with no JSON form (mixed with a str when concatenated:
                // a SyntaxError)
                "b" | "B" if !concat => {
                    self.no_json = true;
                    false
                }
                "br" | "bR" | "Br" | "BR" | "rb" | "rB" | "Rb" | "RB" if !concat => {
                    self.no_json = true;
                    true
                }
                _ => return Flow::Fail, // f-strings, `True'x'`
            };
            if !concat {
                self.emit(out, "\"");
            }
            self.state = State::StrOpen {
                q: c,
                raw,
                quotes: 1,
            };
            return Flow::Next;
        }
        if concat || !self.finish_name(&buf, out) {
            return Flow::Fail;
        }
        self.state = State::AfterValue;
        Flow::Again
    }

    /// One or two opening quotes: a third makes a triple quote, anything else starts the body
    /// (or follows an empty string).
    fn on_str_open(&mut self, q: char, raw: bool, quotes: u8, c: char) -> Flow {
        if c == q {
            self.state = if quotes == 1 {
                State::StrOpen { q, raw, quotes: 2 }
            } else {
                State::Str(Quote {
                    q,
                    triple: true,
                    raw,
                })
            };
            Flow::Next
        } else {
            self.state = if quotes == 1 {
                State::Str(Quote {
                    q,
                    triple: false,
                    raw,
                })
            } else {
                State::AfterString // `''`: an empty string
            };
            Flow::Again
        }
    }

    /// Quote characters held in a triple-quoted body: a third closes it, anything else makes
    /// them text.
    fn on_str_close(&mut self, quote: Quote, quotes: u8, c: char, out: &mut String) -> Flow {
        if c == quote.q {
            self.state = if quotes == 2 {
                State::AfterString
            } else {
                State::StrClose { quote, quotes: 2 }
            };
            return Flow::Next;
        }
        for _ in 0..quotes {
            self.emit_char(out, quote.q);
        }
        self.state = State::Str(quote);
        Flow::Again
    }

    /// An octal escape: up to three digits.
    fn on_str_octal(
        &mut self,
        quote: Quote,
        value: u32,
        digits: u8,
        c: char,
        out: &mut String,
    ) -> Flow {
        if let Some(d) = c.to_digit(8) {
            let value = value * 8 + d;
            if digits >= 2 {
                self.emit_code(out, value);
                self.state = State::Str(quote);
            } else {
                self.state = State::StrOctal {
                    quote,
                    value,
                    digits: digits + 1,
                };
            }
            return Flow::Next;
        }
        self.emit_code(out, value);
        self.state = State::Str(quote);
        Flow::Again
    }

    /// A hex escape: exactly `left` more hex digits.
    fn on_str_hex(
        &mut self,
        quote: Quote,
        value: u32,
        left: u8,
        c: char,
        out: &mut String,
    ) -> Flow {
        let Some(d) = c.to_digit(16) else {
            return Flow::Fail; // truncated \xXX / \uXXXX / \UXXXXXXXX
        };
        let value = value * 16 + d; // at most 8 digits: fits in u32
        if left > 1 {
            self.state = State::StrHex {
                quote,
                value,
                left: left - 1,
            };
            return Flow::Next;
        }
        if value > u32::from(char::MAX) {
            return Flow::Fail; // illegal Unicode character
        }
        self.emit_code(out, value);
        self.state = State::Str(quote);
        Flow::Next
    }

    /// After a string literal: another string (or its prefix) continues it, anything else
    /// closes its JSON string.
    fn on_after_string(&mut self, c: char, out: &mut String) -> Flow {
        if self.space(c) {
            self.state = State::AfterString;
            Flow::Next
        } else if c == '\'' || c == '"' {
            self.state = State::StrOpen {
                q: c,
                raw: false,
                quotes: 1,
            };
            Flow::Next
        } else if is_ident(c) {
            self.state = State::Name {
                buf: c.to_string(),
                concat: true,
            };
            Flow::Next
        } else {
            self.emit(out, "\"");
            self.state = State::AfterValue;
            Flow::Again
        }
    }
}

#[cfg(test)]
mod tests;
