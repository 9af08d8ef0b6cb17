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
//! The one place where output waits: a `(` in value position may open a tuple (`(1,)` -> `[1]`)
//! or only group (`(1)` -> `1`). That is known once its first element is complete (the `,` or
//! the `)` after it), so the output of that first element is held until then; the `[` is then
//! inserted at the recorded position. A group in key position (`{(1): 2}`) or after a sign
//! (`-(1)`) can never be a tuple and holds nothing.

use std::mem;

/// What a converter did with one call (the crate-wide sub-scanner outcome): `NeedMore`,
/// `Done(n)` (bytes `[0, n)` consumed, `input[n..]` is not part of the value) or `Error(n)`.
pub use crate::params;
use crate::Step;

/// Python refuses to convert ints with more decimal digits than this (`sys.int_info`
/// `default_max_str_digits`): a longer decimal literal is a SyntaxError and `json.dumps` of a
/// larger hex/octal/binary value raises ValueError. Following it also bounds the quadratic
/// base conversion.
const MAX_INT_DIGITS: usize = 4300;
/// `10**4300 < 2**14285`, so an int of at least 14285 bits has more than 4300 decimal digits.
const MAX_INT_BITS: usize = 14285;

/// The string literal being read: its quote character, triple-quoted or not, raw or not.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Quote {
    q: char,
    triple: bool,
    raw: bool,
}

/// Where a number literal is, in Python's grammar for numbers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Num {
    /// decimal digits (the last character read is a digit)
    Int,
    /// `_` after decimal digits: a digit must follow
    IntUnder,
    /// `0x` / `0o` / `0b`: `_` or a digit must follow
    Radix,
    /// digits of a hex/octal/binary int
    RadixDigits,
    /// `_` inside a hex/octal/binary int
    RadixUnder,
    /// `1.`: complete, may go on with digits or an exponent
    Dot,
    /// `.` with no digit before it: a digit must follow
    LeadDot,
    /// digits after the `.`
    Frac,
    /// `_` after fraction digits
    FracUnder,
    /// `e`: sign or digit must follow
    Exp,
    /// `e+` / `e-`: a digit must follow
    ExpSign,
    /// exponent digits
    ExpDigits,
    /// `_` after exponent digits
    ExpUnder,
}

#[derive(Debug)]
enum State {
    /// Expecting a value (or the closing bracket of the enclosing container); skips whitespace.
    Value,
    /// After a unary `+`/`-`: only parentheses and then a number may follow.
    Signed { neg: bool, groups: usize },
    /// An identifier: `True`, `False`, `None`, or a string prefix (`r`, `u`); `concat` when it
    /// follows a complete string (then only a prefix of the next concatenated string is valid).
    Name { buf: String, concat: bool },
    /// A number literal; `buf` is its text without `_` (for radix ints: the digits only);
    /// `groups` parentheses opened after the sign must close after it.
    Number {
        part: Num,
        buf: String,
        radix: u32,
        neg: bool,
        groups: usize,
    },
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
    /// known yet. `mark`: where its `[` goes in `hold` if it turns out to be a tuple.
    Paren { mark: usize },
    /// A `(` in key position: grouping only (a tuple key is not JSON-serialisable).
    Group,
    /// `{`; `key`: expecting/reading a key (else a value).
    Dict { key: bool, sep: bool },
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
    /// positions in `hold` where a `[` must be inserted (parentheses that became tuples)
    inserts: Vec<usize>,
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

/// Decimal text of the hex/octal/binary `digits`, or None when it has more than
/// `MAX_INT_DIGITS` digits.
fn radix_to_decimal(digits: &str, radix: u32) -> Option<String> {
    const BASE: u64 = 1_000_000_000;
    let digits = digits.trim_start_matches('0');
    if digits.is_empty() {
        return Some("0".to_string());
    }
    let bits = match radix {
        16 => 4,
        8 => 3,
        _ => 1,
    };
    if (digits.len() - 1) * bits >= MAX_INT_BITS {
        return None;
    }
    let mut limbs: Vec<u32> = Vec::new(); // base 10**9, least significant first
    for c in digits.chars() {
        let mut carry = u64::from(c.to_digit(radix)?);
        for limb in limbs.iter_mut() {
            let v = u64::from(*limb) * u64::from(radix) + carry;
            *limb = (v % BASE) as u32;
            carry = v / BASE;
        }
        if carry > 0 {
            limbs.push(carry as u32);
        }
    }
    let mut s = String::with_capacity(limbs.len() * 9);
    let mut iter = limbs.iter().rev();
    if let Some(top) = iter.next() {
        s.push_str(&top.to_string());
    }
    for limb in iter {
        s.push_str(&format!("{limb:09}"));
    }
    (s.len() <= MAX_INT_DIGITS).then_some(s)
}

/// JSON text of a complete number literal, or None when Python would refuse it (or it is not
/// finite: `1e400` is `inf`, which has no JSON form).
fn number_text(part: Num, buf: &str, radix: u32, neg: bool) -> Option<String> {
    let digits = match part {
        Num::Int => {
            if buf.bytes().all(|b| b == b'0') {
                "0".to_string()
            } else if buf.starts_with('0') || buf.len() > MAX_INT_DIGITS {
                return None; // `0123` is a SyntaxError; so are over-long ints
            } else {
                buf.to_string()
            }
        }
        Num::RadixDigits => radix_to_decimal(buf, radix)?,
        _ => {
            let x: f64 = buf.parse().ok()?;
            if !x.is_finite() {
                return None;
            }
            return Some(crate::params::float_repr(if neg { -x } else { x }));
        }
    };
    if neg && digits != "0" {
        Some(format!("-{digits}"))
    } else {
        Some(digits)
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
            skip_lf: false,
            line_cont: false,
        }
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
                    self.emit_plain(out, &input[i..j]);
                    self.emit_plain(out, json);
                    j += skip;
                    i = j;
                }
                if j > i {
                    self.emit_plain(out, &input[i..j]);
                    i = j;
                    continue;
                }
            }
            let Some(ch) = input[i..].chars().next() else {
                break;
            };
            // Python reads `\r\n` and a lone `\r` as `\n` (universal newlines).
            let c = if ch == '\r' {
                self.skip_lf = true;
                '\n'
            } else {
                ch
            };
            loop {
                match self.step(c, out) {
                    Flow::Next => break,
                    Flow::Again => continue,
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
                State::Number {
                    part,
                    buf,
                    radix,
                    neg,
                    groups,
                } => groups == 0 && self.finish_number(part, &buf, radix, neg, out),
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

    /// Write JSON text (held back while a parenthesis is undecided).
    fn emit(&mut self, out: &mut String, s: &str) {
        if self.undecided > 0 {
            self.hold.push_str(s);
        } else {
            out.push_str(s);
        }
    }

    /// Write decoded string characters, escaped for a JSON string.
    fn emit_text(&mut self, out: &mut String, s: &str) {
        let dst = if self.undecided > 0 {
            &mut self.hold
        } else {
            out
        };
        params::push_json_str_body(dst, s);
    }

    /// Text that needs no JSON escaping (see `plain_run`).
    fn emit_plain(&mut self, out: &mut String, s: &str) {
        if self.undecided > 0 {
            self.hold.push_str(s);
        } else {
            out.push_str(s);
        }
    }

    fn emit_char(&mut self, out: &mut String, c: char) {
        let mut buf = [0u8; 4];
        self.emit_text(out, c.encode_utf8(&mut buf));
    }

    /// An undecided parenthesis is now known: a tuple (its `[` goes at `mark`) or a group.
    fn resolve_paren(&mut self, tuple_mark: Option<usize>, out: &mut String) {
        if let Some(mark) = tuple_mark {
            self.inserts.push(mark);
        }
        self.undecided = self.undecided.saturating_sub(1);
        if self.undecided == 0 {
            self.inserts.sort_unstable();
            let mut prev = 0;
            for &pos in &self.inserts {
                out.push_str(self.hold.get(prev..pos).unwrap_or(""));
                out.push('[');
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

    /// Is the value being read a dict key?
    fn in_key(&self) -> bool {
        matches!(
            self.stack.last(),
            Some(Frame::Group | Frame::Dict { key: true, .. })
        )
    }

    /// A scalar's JSON text; keys are written as JSON strings, like `json.dumps` does.
    fn emit_scalar(&mut self, out: &mut String, text: &str) {
        if self.in_key() {
            self.emit(out, "\"");
            self.emit(out, text);
            self.emit(out, "\"");
        } else {
            self.emit(out, text);
        }
    }

    fn finish_name(&mut self, name: &str, out: &mut String) -> bool {
        let text = match name {
            "True" => "true",
            "False" => "false",
            "None" => "null",
            _ => return false,
        };
        self.emit_scalar(out, text);
        true
    }

    fn finish_number(
        &mut self,
        part: Num,
        buf: &str,
        radix: u32,
        neg: bool,
        out: &mut String,
    ) -> bool {
        if !matches!(
            part,
            Num::Int | Num::RadixDigits | Num::Dot | Num::Frac | Num::ExpDigits
        ) {
            return false;
        }
        match number_text(part, buf, radix, neg) {
            Some(text) => {
                self.emit_scalar(out, &text);
                true
            }
            None => false,
        }
    }

    // ----- the state machine -----

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
            State::Signed { neg, groups } => {
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
            State::Name { mut buf, concat } => {
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
                        _ => return Flow::Fail, // bytes, f-strings, `True'x'`
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
            State::Number {
                part,
                mut buf,
                mut radix,
                neg,
                groups,
            } => {
                let next = match (part, c) {
                    (Num::Int | Num::IntUnder, '0'..='9') => Some(Num::Int),
                    (Num::Int, '_') => Some(Num::IntUnder),
                    (Num::Int, '.') => Some(Num::Dot),
                    (Num::Int | Num::Dot | Num::Frac, 'e' | 'E') => Some(Num::Exp),
                    (Num::Int, 'x' | 'X' | 'o' | 'O' | 'b' | 'B') if buf == "0" => {
                        radix = match c {
                            'x' | 'X' => 16,
                            'o' | 'O' => 8,
                            _ => 2,
                        };
                        buf.clear();
                        self.state = State::Number {
                            part: Num::Radix,
                            buf,
                            radix,
                            neg,
                            groups,
                        };
                        return Flow::Next;
                    }
                    (Num::Radix | Num::RadixDigits | Num::RadixUnder, d) if d.is_digit(radix) => {
                        Some(Num::RadixDigits)
                    }
                    (Num::Radix | Num::RadixDigits, '_') => Some(Num::RadixUnder),
                    (Num::Dot | Num::LeadDot | Num::Frac | Num::FracUnder, '0'..='9') => {
                        Some(Num::Frac)
                    }
                    (Num::Frac, '_') => Some(Num::FracUnder),
                    (Num::Exp, '+' | '-') => Some(Num::ExpSign),
                    (Num::Exp | Num::ExpSign | Num::ExpDigits | Num::ExpUnder, '0'..='9') => {
                        Some(Num::ExpDigits)
                    }
                    (Num::ExpDigits, '_') => Some(Num::ExpUnder),
                    _ => None,
                };
                if let Some(part) = next {
                    if c != '_' {
                        buf.push(if c == 'E' { 'e' } else { c });
                    }
                    self.state = State::Number {
                        part,
                        buf,
                        radix,
                        neg,
                        groups,
                    };
                    return Flow::Next;
                }
                // `c` ends the number; a letter, digit, `_` or `.` glued to it is invalid
                // (`1x`, `1j`, `0b12`, `1._5`, `1..real`).
                if is_ident(c) || c == '.' || !self.finish_number(part, &buf, radix, neg, out) {
                    return Flow::Fail;
                }
                self.state = if groups > 0 {
                    State::CloseGroups { left: groups }
                } else {
                    State::AfterValue
                };
                Flow::Again
            }
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
            State::StrOpen { q, raw, quotes } => {
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
            State::Str(quote) => {
                if c == quote.q {
                    self.state = if quote.triple {
                        State::StrClose { quote, quotes: 1 }
                    } else {
                        State::AfterString
                    };
                } else if c == '\\' {
                    self.state = State::StrEscape(quote);
                } else if (c == '\n' && !quote.triple) || c == '\0' {
                    return Flow::Fail; // unterminated string; NUL is not allowed in source
                } else {
                    self.emit_char(out, c);
                    self.state = State::Str(quote);
                }
                Flow::Next
            }
            State::StrClose { quote, quotes } => {
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
            State::StrEscape(quote) => self.escape(quote, c, out),
            State::StrOctal {
                quote,
                value,
                digits,
            } => {
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
            State::StrHex { quote, value, left } => {
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
                if value > 0x10FFFF {
                    return Flow::Fail; // illegal Unicode character
                }
                self.emit_code(out, value);
                self.state = State::Str(quote);
                Flow::Next
            }
            State::AfterString => {
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

    /// A character after a backslash in a string body.
    fn escape(&mut self, quote: Quote, c: char, out: &mut String) -> Flow {
        if c == '\0' {
            return Flow::Fail;
        }
        self.state = State::Str(quote);
        if quote.raw {
            // raw strings keep the backslash and the character after it (which cannot close
            // the string)
            self.emit_text(out, "\\");
            self.emit_char(out, c);
            return Flow::Next;
        }
        let decoded = match c {
            '\n' => return Flow::Next, // line continuation: nothing
            '\\' | '\'' | '"' => c,
            'a' => '\x07',
            'b' => '\x08',
            'f' => '\x0c',
            'n' => '\n',
            'r' => '\r',
            't' => '\t',
            'v' => '\x0b',
            '0'..='7' => {
                self.state = State::StrOctal {
                    quote,
                    value: c as u32 - '0' as u32,
                    digits: 1,
                };
                return Flow::Next;
            }
            'x' | 'u' | 'U' => {
                let left = match c {
                    'x' => 2,
                    'u' => 4,
                    _ => 8,
                };
                self.state = State::StrHex {
                    quote,
                    value: 0,
                    left,
                };
                return Flow::Next;
            }
            'N' => return Flow::Fail, // \N{NAME} is not supported
            _ => {
                // an unknown escape keeps its backslash, as Python does
                self.emit_text(out, "\\");
                c
            }
        };
        self.emit_char(out, decoded);
        Flow::Next
    }

    /// A code point from an escape; lone surrogates (which Python keeps) become U+FFFD.
    fn emit_code(&mut self, out: &mut String, value: u32) {
        self.emit_char(out, char::from_u32(value).unwrap_or('\u{FFFD}'));
    }

    /// Write the separator before a container's next element (or note that one is needed).
    fn separator(&mut self, out: &mut String) {
        if let Some(Frame::List { sep } | Frame::Tuple { sep } | Frame::Dict { key: true, sep }) =
            self.stack.last_mut()
        {
            if *sep {
                self.emit(out, ", ");
            } else {
                *sep = true;
            }
        }
    }

    /// First non-whitespace character in `Value`: a closing bracket or the start of a value.
    fn start_value(&mut self, c: char, out: &mut String) -> Flow {
        if matches!(c, ']' | ')' | '}') {
            // closing right after the opening bracket or after a trailing comma
            match (c, self.stack.last()) {
                (']', Some(Frame::List { .. })) | (')', Some(Frame::Tuple { .. })) => {
                    self.stack.pop();
                    self.emit(out, "]");
                }
                (')', Some(&Frame::Paren { mark })) => {
                    self.stack.pop();
                    self.resolve_paren(Some(mark), out); // `()` is an empty tuple
                    self.emit(out, "]");
                }
                ('}', Some(Frame::Dict { key: true, .. })) => {
                    self.stack.pop();
                    self.emit(out, "}");
                }
                _ => return Flow::Fail,
            }
            self.state = State::AfterValue;
            return Flow::Next;
        }
        let key = self.in_key();
        self.separator(out);
        self.state = State::Value;
        match c {
            '[' | '{' if key => return Flow::Fail, // unhashable key (or set element)
            '[' => {
                self.emit(out, "[");
                self.stack.push(Frame::List { sep: false });
            }
            '{' => {
                self.emit(out, "{");
                self.stack.push(Frame::Dict {
                    key: true,
                    sep: false,
                });
            }
            '(' if key => self.stack.push(Frame::Group),
            '(' => {
                self.stack.push(Frame::Paren {
                    mark: self.hold.len(),
                });
                self.undecided += 1;
            }
            '\'' | '"' => {
                self.emit(out, "\"");
                self.state = State::StrOpen {
                    q: c,
                    raw: false,
                    quotes: 1,
                };
            }
            '+' | '-' => {
                self.state = State::Signed {
                    neg: c == '-',
                    groups: 0,
                }
            }
            '0'..='9' | '.' => self.state = new_number(c, false, 0),
            _ if c.is_ascii_alphabetic() || c == '_' => {
                self.state = State::Name {
                    buf: c.to_string(),
                    concat: false,
                }
            }
            _ => return Flow::Fail,
        }
        Flow::Next
    }

    /// First non-whitespace character after a complete value.
    fn after_value(&mut self, c: char, out: &mut String) -> Flow {
        self.state = State::AfterValue;
        let Some(top) = self.stack.last_mut() else {
            self.state = State::Done;
            return Flow::Done;
        };
        match (top, c) {
            (Frame::List { .. } | Frame::Tuple { .. }, ',') => self.state = State::Value,
            (Frame::Dict { key, .. }, ',') if !*key => {
                *key = true;
                self.state = State::Value;
            }
            (Frame::Dict { key, .. }, ':') if *key => {
                *key = false;
                self.emit(out, ": ");
                self.state = State::Value;
            }
            (Frame::Paren { mark }, ',') => {
                let mark = *mark;
                self.stack.pop();
                self.stack.push(Frame::Tuple { sep: true });
                self.resolve_paren(Some(mark), out); // `(x, ...` is a tuple
                self.state = State::Value;
            }
            (Frame::Paren { .. }, ')') => {
                self.stack.pop();
                self.resolve_paren(None, out); // `(x)` is just x
            }
            (Frame::Group, ')') => {
                self.stack.pop();
            }
            (Frame::List { .. }, ']') | (Frame::Tuple { .. }, ')') => {
                self.stack.pop();
                self.emit(out, "]");
            }
            (Frame::Dict { key: false, .. }, '}') => {
                self.stack.pop();
                self.emit(out, "}");
            }
            _ => return Flow::Fail,
        }
        Flow::Next
    }
}

fn new_number(c: char, neg: bool, groups: usize) -> State {
    State::Number {
        part: if c == '.' { Num::LeadDot } else { Num::Int },
        buf: c.to_string(),
        radix: 10,
        neg,
        groups,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Feed `pieces` then finish: the output and `Ok(offset)` of the end of the literal (or of
    /// the whole text) / `Err(offset)` of the error, as byte offsets into the whole text.
    fn run(pieces: &[&str]) -> (String, Result<usize, usize>) {
        let mut conv = PyLiteral::new();
        let mut out = String::new();
        let mut base = 0;
        for piece in pieces {
            match conv.feed(piece, &mut out) {
                Step::NeedMore => base += piece.len(),
                Step::Done(n) => return (out, Ok(base + n)),
                Step::Error(n) => return (out, Err(base + n)),
            }
        }
        match conv.finish(&mut out) {
            Step::Done(0) => (out, Ok(base)),
            Step::Error(0) => (out, Err(base)),
            other => panic!("finish returned {other:?}"),
        }
    }

    /// Whole, every split in two at a char boundary, and one char at a time.
    fn splits(src: &str) -> Vec<Vec<&str>> {
        let mut all = vec![vec![src]];
        for (i, _) in src.char_indices().skip(1) {
            all.push(vec![&src[..i], &src[i..]]);
        }
        let mut chars = Vec::new();
        let mut rest = src;
        while let Some(c) = rest.chars().next() {
            let (a, b) = rest.split_at(c.len_utf8());
            chars.push(a);
            rest = b;
        }
        all.push(chars);
        all
    }

    fn chunks(src: &str, size: usize) -> Vec<&str> {
        let mut pieces = Vec::new();
        let mut start = 0;
        while start < src.len() {
            let mut end = (start + size).min(src.len());
            while !src.is_char_boundary(end) {
                end += 1;
            }
            pieces.push(&src[start..end]);
            start = end;
        }
        pieces
    }

    /// Rejected: an error, or the literal ends before non-whitespace text.
    fn rejected(src: &str, result: &Result<usize, usize>) -> bool {
        match result {
            Err(_) => true,
            Ok(n) => !src[*n..].trim().is_empty(),
        }
    }

    /// Sources accepted by `ast.literal_eval`, with the oracle's JSON (generated from
    /// `CASES` in tests/test_convert.py).
    const CASES: &[(&str, &str)] = &[
        ("0", "0"),
        ("1", "1"),
        ("-1", "-1"),
        ("+1", "1"),
        ("- 1", "-1"),
        ("-\n1", "-1"),
        ("-(1)", "-1"),
        ("-((1))", "-1"),
        ("-( (1) )", "-1"),
        ("+(0x10)", "16"),
        ("1_000_000", "1000000"),
        ("00", "0"),
        ("0_0", "0"),
        ("-0", "0"),
        ("007.5", "7.5"),
        ("0x_1f", "31"),
        ("0XdeadBEEF", "3735928559"),
        ("-0x10", "-16"),
        ("0o17", "15"),
        ("0O1_7", "15"),
        ("0b1_01", "5"),
        ("-0b0", "0"),
        (
            "123456789012345678901234567890",
            "123456789012345678901234567890",
        ),
        (
            "0xffffffffffffffffffffffffffffffffffffffff",
            "1461501637330902918203684832716283019655932542975",
        ),
        (
            "-0o77777777777777777777777777777777777777777777777777",
            "-1427247692705959881058285969449495136382746623",
        ),
        ("1.5", "1.5"),
        ("1.", "1.0"),
        (".5", "0.5"),
        ("-.5", "-0.5"),
        ("1e5", "100000.0"),
        ("1E5", "100000.0"),
        ("1e+5", "100000.0"),
        ("1e-5", "1e-05"),
        ("1_0.5e-3", "0.0105"),
        ("1.5E-3_0", "1.5e-30"),
        ("-0.0", "-0.0"),
        ("0.0", "0.0"),
        ("1e16", "1e+16"),
        ("1.5e16", "1.5e+16"),
        ("9999999999999998.0", "9999999999999998.0"),
        ("0.0001", "0.0001"),
        ("0.00001", "1e-05"),
        ("123456789012345678.0", "1.2345678901234568e+17"),
        ("1e308", "1e+308"),
        ("5e-324", "5e-324"),
        ("2.2250738585072014e-308", "2.2250738585072014e-308"),
        ("0e0", "0.0"),
        ("1.e5", "100000.0"),
        ("0_1.5", "1.5"),
        ("0123e1", "1230.0"),
        ("-1.5e-7", "-1.5e-07"),
        ("3.141592653589793", "3.141592653589793"),
        ("0.1", "0.1"),
        ("1e22", "1e+22"),
        ("1e23", "1e+23"),
        ("1_000.000_1", "1000.0001"),
        ("-(1.5)", "-1.5"),
        ("True", "true"),
        ("False", "false"),
        ("None", "null"),
        ("(True)", "true"),
        ("'abc'", "\"abc\""),
        ("\"abc\"", "\"abc\""),
        ("''", "\"\""),
        ("\"\"", "\"\""),
        ("''''''", "\"\""),
        ("\"\"\"\"\"\"", "\"\""),
        ("'a\"b'", "\"a\\\"b\""),
        ("\"a'b\"", "\"a'b\""),
        ("'''a''b'''", "\"a''b\""),
        ("\"\"\"x\"y\"\"z\"\"\"", "\"x\\\"y\\\"\\\"z\""),
        ("'''a\nb'''", "\"a\\nb\""),
        ("'''a\r\nb\rc'''", "\"a\\nb\\nc\""),
        ("'''\\''''", "\"'\""),
        ("r'''\\''''", "\"\\\\'\""),
        ("'a' 'b'", "\"ab\""),
        ("'a''b'", "\"ab\""),
        ("'a' \"b\"", "\"ab\""),
        ("'a'\n'b'", "\"ab\""),
        ("'a'\\\n'b'", "\"ab\""),
        ("'a' r'\\d'", "\"a\\\\d\""),
        ("'a'r'b'", "\"ab\""),
        ("u'x'", "\"x\""),
        ("U'x'", "\"x\""),
        ("R'\\n'", "\"\\\\n\""),
        ("r'\\\\'", "\"\\\\\\\\\""),
        ("r'a\\'b'", "\"a\\\\'b\""),
        ("r\"\\\"\"", "\"\\\\\\\"\""),
        ("r'''a\nb\\\n'''", "\"a\\nb\\\\\\n\""),
        ("'é漢😀'", "\"é漢😀\""),
        ("'\u{2028}\u{85}'", "\"\u{2028}\u{85}\""),
        (
            "'\\t\\n\\r\\b\\f\\v\\a'",
            "\"\\t\\n\\r\\b\\f\\u000b\\u0007\"",
        ),
        ("'\\\\'", "\"\\\\\""),
        ("'\\''", "\"'\""),
        ("'\\\"'", "\"\\\"\""),
        ("\"\\'\"", "\"'\""),
        ("'\u{1}\u{1f}\u{7f}\t'", "\"\\u0001\\u001f\u{7f}\\t\""),
        ("'\\x41\\xe9\\xFF'", "\"Aéÿ\""),
        ("'\\u00e9\\u20AC'", "\"é€\""),
        ("'\\U0001F600\\U0010FFFF'", "\"😀\u{10ffff}\""),
        ("'\\101\\0\\1234\\777'", "\"A\\u0000S4ǿ\""),
        ("'\\08'", "\"\\u00008\""),
        ("'\\7\\77\\777\\7777'", "\"\\u0007?ǿǿ7\""),
        ("'\\d\\8\\9\\z\\ '", "\"\\\\d\\\\8\\\\9\\\\z\\\\ \""),
        ("'a\\\nb'", "\"ab\""),
        ("'a\\\r\nb'", "\"ab\""),
        ("'\\ud83d\\ude00'", "\"��\""),
        ("'\\udfff'", "\"�\""),
        ("'\"'", "\"\\\"\""),
        ("'\\x00'", "\"\\u0000\""),
        ("'}]),:'", "\"}]),:\""),
        ("('a' 'b')", "\"ab\""),
        ("['a'\n'b', 'c']", "[\"ab\", \"c\"]"),
        ("{'a' 'b': 'c'}", "{\"ab\": \"c\"}"),
        ("'''''' ''", "\"\""),
        ("'' ''", "\"\""),
        ("'' '''x'''", "\"x\""),
        ("[]", "[]"),
        ("[1]", "[1]"),
        ("[1, 2, 3]", "[1, 2, 3]"),
        ("[1, 2,]", "[1, 2]"),
        ("[ 1 , 2 , ]", "[1, 2]"),
        ("[\n 1 ,\n\t2\n]", "[1, 2]"),
        ("[1,\\\n2]", "[1, 2]"),
        ("[1,\u{c}2]", "[1, 2]"),
        ("[[[]]]", "[[[]]]"),
        ("[[1, [2]], [3]]", "[[1, [2]], [3]]"),
        ("()", "[]"),
        ("(1)", "1"),
        ("(1,)", "[1]"),
        ("(1, 2)", "[1, 2]"),
        ("(1, 2,)", "[1, 2]"),
        ("((1, 2), 3)", "[[1, 2], 3]"),
        ("((1), 2)", "[1, 2]"),
        ("(((1)))", "1"),
        ("((1,),)", "[[1]]"),
        ("[()]", "[[]]"),
        ("[(), (1,), ((),)]", "[[], [1], [[]]]"),
        ("(('a',),)", "[[\"a\"]]"),
        ("( 'x' )", "\"x\""),
        ("(\n'long' 'string'\n)", "\"longstring\""),
        ("([1], {'a': (2)})", "[[1], {\"a\": 2}]"),
        ("{}", "{}"),
        ("{ }", "{}"),
        ("{'a': 1}", "{\"a\": 1}"),
        ("{'a': 1,}", "{\"a\": 1}"),
        ("{'a':1,'b':[2,3]}", "{\"a\": 1, \"b\": [2, 3]}"),
        (
            "{1: 2, 1.5: 3, None: 5, -1: 6, False: 7}",
            "{\"1\": 2, \"1.5\": 3, \"null\": 5, \"-1\": 6, \"false\": 7}",
        ),
        ("{(1): 2}", "{\"1\": 2}"),
        ("{('a'): 1}", "{\"a\": 1}"),
        ("{((-1)): 2}", "{\"-1\": 2}"),
        ("{-(1): 2}", "{\"-1\": 2}"),
        ("{-0.0: 1}", "{\"-0.0\": 1}"),
        ("{0x10: 'a'}", "{\"16\": \"a\"}"),
        ("{'k': ()}", "{\"k\": []}"),
        ("{'a': [1, {'b': (2,)}],}", "{\"a\": [1, {\"b\": [2]}]}"),
        ("{'a':{'b':{}}}", "{\"a\": {\"b\": {}}}"),
        ("{'\\n\"': '\\t'}", "{\"\\n\\\"\": \"\\t\"}"),
        ("[True, False, None]", "[true, false, null]"),
        ("{True: None}", "{\"true\": null}"),
        ("[-1, +2, -3.5, - 4]", "[-1, 2, -3.5, -4]"),
        ("[1,(2),((3,)),(((4),),)]", "[1, 2, [3], [[4]]]"),
        ("(-1)", "-1"),
        ("(-1,)", "[-1]"),
    ];

    /// Sources that must be rejected (`ERRORS` in tests/test_convert.py, without the
    /// over-long ones, which `big_ints` covers).
    const ERRORS: &[&str] = &[
        "",
        " ",
        "x",
        "f()",
        "true",
        "none",
        "inf",
        "nan",
        "[inf]",
        "Truex",
        "True'x'",
        "1+2",
        "[1+2]",
        "[1 - 2]",
        "[1 2]",
        "1j",
        "[1j]",
        "[1.5J]",
        "[1+2j]",
        "...",
        "[...]",
        "[*x]",
        "{1, 2}",
        "{1}",
        "{(1, 2)}",
        "{1: 2, 3}",
        "{[1]: 2}",
        "{{}: 2}",
        "{(1, 2): 3}",
        "{(): 1}",
        "{(1,): 2}",
        "{'a' 1}",
        "{'a':}",
        "{'a': 1 'b': 2}",
        "{,}",
        "[,]",
        "(,)",
        "[1,,2]",
        "(1,,)",
        "[1, 2",
        "[1, 2)",
        "(1]",
        "{'a': 1]",
        "]",
        ")",
        "}",
        "()()",
        "(1)(2)",
        "[1][0]",
        "[1 if 1 else 2]",
        "b'x'",
        "B'x'",
        "rb'x'",
        "br'x'",
        "f'x'",
        "F'x'",
        "rf'x'",
        "ur'x'",
        "'a' b'x'",
        "'a' f'x'",
        "'a' x",
        "'a' ru'x'",
        "[True x]",
        "[None.x]",
        "[1 .real]",
        "[x.y]",
        "'abc",
        "'abc\n'",
        "'''abc''",
        "'''abc",
        "\"abc'",
        "'\\",
        "'\\x4'",
        "'\\x4g'",
        "'\\u00e'",
        "'\\U0011000'",
        "'\\U00110000'",
        "'\\N{DASH}'",
        "'\\N'",
        "'a\0'",
        "r'a\0'",
        "'\\\0'",
        "'a\rb'",
        "r'\\'",
        "r'''\\'''",
        "--1",
        "-+1",
        "-(-1)",
        "-True",
        "-None",
        "-'a'",
        "-[1]",
        "-(1,)",
        "-(1",
        "-((1)",
        "- x",
        "0123",
        "0_1",
        "1__0",
        "1_",
        "1_.5",
        "1._5",
        "1.5_",
        "1e",
        "1e+",
        "1e_5",
        "1e5_",
        "0x",
        "0x_",
        "0x1_",
        "0x__1",
        "0b2",
        "0b12",
        "0o8",
        "0xg",
        "1x",
        "1..5",
        "1.5.5",
        "[1.e]",
        "[.]",
        "[.e5]",
        "1e400",
        "-1e400",
        "[1e999]",
        "[1,\\ 2]",
        "1 \\ 2",
        "[\\]",
        "\\",
        "[1]\\",
        "[\u{b}1]",
        "[\u{a0}1]",
        "(1 2)",
    ];

    /// Python accepts these; the converter rejects them (comments are not supported).
    const UNSUPPORTED: &[&str] = &["[1 # comment\n]", "[1, # c\n 2]", "# c\n1"];

    /// Duplicate keys are written as they come (Python merges equal keys first).
    const DEVIATIONS: &[(&str, &str)] = &[
        ("{1: 'a', 1: 'b'}", "{\"1\": \"a\", \"1\": \"b\"}"),
        ("{1: 'a', True: 'b'}", "{\"1\": \"a\", \"true\": \"b\"}"),
    ];

    /// `(f64 bits, Python's repr)` (generated with Python).
    const FLOATS: &[(u64, &str)] = &[
        (0x0000000000000000, "0.0"),
        (0x8000000000000000, "-0.0"),
        (0x3ff0000000000000, "1.0"),
        (0x3fb999999999999a, "0.1"),
        (0x4341c37937e08000, "1e+16"),
        (0x3ee4f8b588e368f1, "1e-05"),
        (0x3f1a36e2eb1c432d, "0.0001"),
        (0x4341c37937e07fff, "9999999999999998.0"),
        (0x4480f0cf064dd592, "1e+22"),
        (0x44b52d02c7e14af6, "1e+23"),
        (0x0000000000000001, "5e-324"),
        (0x7fefffffffffffff, "1.7976931348623157e+308"),
        (0x0010000000000000, "2.2250738585072014e-308"),
        (0x437b69b4ba630f35, "1.2345678901234568e+17"),
        (0x3fd3333333333334, "0.30000000000000004"),
        (0x3fd5555555555555, "0.3333333333333333"),
        (0x3fe5555555555555, "0.6666666666666666"),
        (0x4059000000000000, "100.0"),
        (0x430c6bf526340000, "1000000000000000.0"),
        (0x3e8421f5f40d8376, "1.5e-07"),
        (0x40c81cd6c8b43958, "12345.678"),
        (0xf2a74de452e6b438, "-1.989032661366619e+244"),
        (0x6513270e269e0d37, "7.761117632285041e+178"),
        (0x0c5c7fd0a6a3a450, "3.980498358697587e-249"),
        (0xd23f0824128b2f33, "-1.5432835417340557e+88"),
        (0x1818e811892f902b, "1.3647584518757569e-192"),
        (0x9531985d5d9dc9f8, "-1.3701135617873088e-206"),
        (0xe8e25d940ed90475, "-1.7160537630466207e+197"),
        (0x36f675cc81e74ef5, "6.294675241195386e-44"),
        (0x1600a35a099950d8, "1.0613447212142254e-202"),
        (0x6b0d549b6f03675a, "4.708325160387546e+207"),
        (0x3d9c172411e20b8f, "6.387016158513563e-12"),
        (0x8d116ece1738f7d9, "-9.973130378568733e-246"),
        (0x0f21ddb66cad4a26, "8.779753225680271e-236"),
        (0x90c192cfd3ac94af, "-5.795503248498993e-228"),
        (0xf28c105d1fb17c23, "-5.988180159386011e+243"),
        (0xa170b33839263059, "-1.306052388527796e-147"),
        (0x953f48f1a09f76b5, "-2.436117699484841e-206"),
        (0x0fd630f1f29d0da9, "2.233386999150174e-232"),
        (0x95e60af593bd04cf, "-3.51527970626667e-203"),
        (0x0cb1e29c658cda14, "1.5987381841032883e-247"),
        (0x3898d190f9ebdacc, "4.6678633181812096e-36"),
        (0x8e81973e0becd7b0, "-8.441872792105456e-239"),
        (0x2217beaddbc496cb, "1.9015657400796622e-144"),
        (0x6b4cb2424a23d596, "7.370437700706684e+208"),
        (0x8a6a63ec24ede6a4, "-1.7163996725272777e-258"),
        (0x922766581e27a1c0, "-3.2367190832119987e-221"),
        (0x8f6d05584ef8aa38, "-2.2818334634712625e-234"),
        (0xae97ba94d0eda82f, "-3.0536383926309363e-84"),
        (0x1a61dbe22e44158b, "1.3449551894627777e-181"),
        (0x923a736994e3bf91, "-7.317495976062606e-221"),
        (0x301850c5a38fd547, "5.249822308814304e-77"),
        (0x18f135d25f557203, "1.5450754142984396e-188"),
        (0xb64ce4228c38fb29, "-3.953625698224792e-47"),
        (0x907a70c31012f037, "-2.72491267476498e-229"),
        (0x9e7769b10f4205b4, "-6.505141861548772e-162"),
        (0x7f15052434b9b5df, "1.441484839555994e+304"),
        (0x881ed162ae2eb154, "-1.4583679262758548e-269"),
        (0xc6f877186d76b07e, "-7.939416668807721e+33"),
        (0x7731af10506bf2ef, "1.4255183989699612e+266"),
        (0xec66a78795e761d1, "-1.525315701232403e+214"),
        (0x5c90a9587403e430, "7.750545741548908e+137"),
        (0x3f98e2774cbd87ad, "0.024301399287089676"),
        (0x2e05319acb5c7427, "5.326960081783017e-87"),
        (0xc7a2ea20b2f14c94, "-1.2570882301712172e+37"),
        (0x14f4733f3e7d1bfb, "9.952684009002448e-208"),
        (0x4cdd2055930d6eaf, "1.8721667527122837e+62"),
        (0x7ebff20686734721, "3.422978398947072e+302"),
        (0x57ee05cde00902c7, "3.6967297937384553e+115"),
        (0x72e6cc3ababced20, "3.113284956169447e+245"),
        (0x9be4bcfc49b64a08, "-2.6202582260546103e-174"),
        (0x12bd4acefaecbd38, "2.0745096302730225e-218"),
        (0x830e07bc1e398f10, "-5.877500503097409e-294"),
        (0x2a3af4d46b0a18e8, "2.938345597354166e-105"),
        (0x5790f82ec1d3fcff, "6.529598674765832e+113"),
        (0xeeeacbe226e87555, "-1.9837344250050814e+226"),
        (0x6bf46c697d2caf82, "1.0743030475716402e+212"),
        (0xf646e1f40a097c97, "-5.629271400715247e+261"),
        (0x13deef86ab1031d0, "5.743310614918485e-213"),
        (0x8ede0d7ac3baea9e, "-4.61515470702556e-237"),
        (0xca02135e92b1d3f2, "-3.302201168194502e+48"),
        (0xd17f9acae01f5057, "-3.8373366379117136e+84"),
        (0x571242425051c1cc, "2.7444240984593666e+111"),
        (0x59a54a7bb1fee08f, "7.037254769664525e+123"),
        (0x7f26144b98289fcd, "3.0282415270685036e+304"),
        (0xcc011cdd9474031b, "-1.3427313830183207e+58"),
        (0x119a72d174c9df6a, "7.145365052251808e-224"),
        (0x17f5e837d70820fe, "3.0010119427191346e-193"),
        (0x451abd81f1d69ed6, "8.08174890787967e+24"),
        (0xb2715945795e8229, "-1.029599445714058e-65"),
        (0x10a3d6b2aa05e11a, "1.6356324386913733e-228"),
        (0xbb2d420f0f88080b, "-1.210084267904234e-23"),
        (0x4f426dcbb394fb36, "6.512205859834416e+73"),
        (0x93f448b3a5aa3c81, "-1.5063173670565552e-212"),
        (0xae658f33fe3b890b, "-3.468068334360956e-85"),
        (0x72158370d269a9a5, "3.5862982565236525e+241"),
        (0xb774eb5248db40af, "-1.500880737539812e-41"),
        (0xe315128862c33a4f, "-1.9881605394901064e+169"),
        (0x58d5563dab2cd31e, "8.608929980762736e+119"),
        (0xf0ce583505c6af07, "-2.412056419517317e+235"),
        (0x5affb2297631a992, "2.1970596639628e+130"),
        (0x9c6539382b0537e6, "-6.864829614150003e-172"),
        (0x7e62aa0a1df9fd78, "6.249646571111859e+300"),
        (0x37dc76fb0f17a300, "1.3070380624806793e-39"),
        (0x49952399c4aaeac1, "3.0170681842882087e+46"),
        (0xbd0561e6211c70cf, "-9.495701001087435e-15"),
        (0x65dc9f503f63af83, "4.750750204750985e+182"),
        (0xeab477d26415479c, "-1.0267710304426359e+206"),
        (0x7f1b103cdf1582b0, "1.8559166032057722e+304"),
        (0x2a96fb1a14a0f9e7, "1.6032007377980954e-103"),
        (0x66d2287672fdf202, "1.9751801151887592e+187"),
        (0x4720771f8ca81811, "4.274642804177215e+34"),
        (0x230d977ee2257159, "7.765387138513795e-140"),
        (0x6e36aab0d1bc52d9, "8.193439767873551e+222"),
        (0x8cdb305fdd2e1609, "-9.721565446084252e-247"),
        (0xb4d66a3a47469a4d, "-3.6566096214330605e-54"),
        (0xfc891b4a6a50df4d, "-7.829495745681799e+291"),
        (0xaec6f0245bd86d40, "-2.361499160522349e-83"),
        (0x616499c9e25a7605, "1.448139668433268e+161"),
        (0x3b1287fff52ddf5d, "3.8321725482165366e-24"),
        (0x153e7c2a26a2c0bd, "2.373829056313949e-206"),
        (0x26bb7dbd2d1c9af0, "4.1586747791282524e-122"),
        (0xa8948c893b618676, "-3.337733639824717e-113"),
        (0x0316909e3bbbe9ea, "8.832790543982714e-294"),
        (0xd4c28c2e7c26847f, "-2.0284108606212458e+100"),
        (0x2eae05cf96d0cc5f, "7.7271785554382585e-84"),
        (0x482c9cbc43435cc5, "4.868121678598285e+39"),
        (0x254b0c4e010c4759, "4.877621251706118e-129"),
        (0x88daf4016b4013ef, "-5.224362650831876e-266"),
        (0x9c1caaf75e8766ed, "-2.8977267740353203e-173"),
        (0x519088f590fbbd11, "8.030506098092244e+84"),
        (0x20203626f3fe39c0, "6.045556425707975e-154"),
        (0xdbf4a8b2b0c4312d, "-9.38484012349791e+134"),
        (0xf341e07a83f73f16, "-1.5624204901097633e+247"),
        (0xa7abe1c29e1a8ef4, "-1.3820816268679183e-117"),
        (0xbd628881ad1b72db, "-5.267460409693142e-13"),
        (0x74e69a5d0dd27a65, "1.3257208647146701e+255"),
        (0xdef88334e647cb8f, "-3.1343387564175544e+149"),
        (0xf3aed0b6c7ac1491, "-1.7236642596087033e+249"),
        (0xae3a2b7fdfe01893, "-5.26215508230537e-86"),
        (0x8f2c6ec8cc4169a3, "-1.3972441246414233e-235"),
        (0x65e7e4236472f1a3, "7.930940904982885e+182"),
        (0x64e50cad66237a04, "1.0662269838816983e+178"),
        (0x7b45145c1a81682c, "6.269123622077618e+285"),
        (0x66836886a260cd0b, "6.597432204635068e+185"),
        (0x30cbc97d0fef7928, "1.2286657182299287e-73"),
        (0xfc132d0d113db17d, "-4.671898820796292e+289"),
        (0x70ccec313571810a, "2.2990284766219708e+235"),
        (0x1c2442f9298cb3a5, "4.0960622500000236e-173"),
        (0x99c94309570dc195, "-1.8578815093690756e-184"),
        (0x1a358ca00d75985d, "2.028598735161868e-182"),
        (0x9118bb16000f49c8, "-2.6098858497543247e-226"),
        (0x895fd7b326b94c7f, "-1.5800543282391385e-263"),
        (0xf2ee4e4519f9919c, "-4.138580468110595e+245"),
        (0x9d1de2a05d158a2f, "-1.979700384530873e-168"),
        (0x1200339d068739fa, "5.602624368784844e-222"),
        (0x353c631cdfd43f37, "2.9637577225244357e-52"),
        (0x6050914a9d33a01c, "8.885378326057658e+155"),
        (0xa268aa872607679d, "-6.321104805376388e-143"),
        (0xf4998d7c4093f6de, "-4.683524268002167e+253"),
        (0x9a2ef80f58ee8571, "-1.4576712926495294e-182"),
        (0x7961fd925d39d0a8, "4.982985442018492e+276"),
        (0x1d87cec31f7296ab, "2.018688023533605e-166"),
        (0x7cf20724d953ee26, "7.19616430630608e+293"),
        (0xfa529ba3fe3bfada, "-1.6888652122551737e+281"),
        (0x7afb2c68774b15d7, "2.5254629938390568e+284"),
        (0x4fd58dbe7bdc968b, "3.899603970996924e+76"),
        (0x24e4e25a15fc899e, "5.884498686465263e-131"),
        (0xbfeaa1551a28f7b3, "-0.8321939001977995"),
        (0xbd87a86557b6fb7e, "-2.6895800563014877e-12"),
        (0x7a86f7a243c71b9a, "1.667616833822443e+282"),
        (0xb12aa1f6d42fddbb, "-7.536779240929748e-72"),
        (0x842e7fc229540a6e, "-1.564806243429316e-288"),
        (0x3488f87605e999f3, "1.2729722444358082e-55"),
        (0xf3b7a50df373ca53, "-2.6451545124100877e+249"),
        (0x5c9bcf35873be078, "1.2936292141064353e+138"),
        (0xb0a844e52587be6b, "-2.6827804666270476e-74"),
        (0xea0575438b0d590b, "-5.256027060419438e+202"),
        (0xc215a82a06ec41ad, "-23253909947.064137"),
        (0x4c4f9b0687322e25, "3.967827360139949e+59"),
        (0xa49636a2fa7f0eab, "-1.9559485635143812e-132"),
        (0x174c77a2dd02de92, "1.9041429903692674e-196"),
        (0xd86f40f6b239f3c7, "-9.851688112218029e+117"),
        (0x84b5a81842d87208, "-5.688985253318455e-286"),
        (0xe883a1d45de00997, "-2.866256113753001e+195"),
        (0x5b0ee76f2ac34446, "4.284334760083779e+130"),
        (0x3908f227c59db916, "6.0055116385069545e-34"),
        (0x8aa4248c8857f9a4, "-2.0961043337155302e-257"),
        (0x80b0c08bc7702420, "-2.3855829055394437e-305"),
        (0xa2eddbbd5464ecc2, "-1.9588354272108557e-140"),
        (0x9cfc865239194242, "-4.7239295389576093e-169"),
        (0xc9d488b1cfbf3360, "-4.689128253227445e+47"),
        (0xc2216b02fc241d0b, "-37404900882.056725"),
        (0x31f51707da45e18a, "4.8891889123485164e-68"),
        (0x3d4882a5ce5b2a92, "1.7415645814351736e-13"),
        (0x66934036d17e4497, "1.3087808816820187e+186"),
        (0xcda6c6fdbd685167, "-1.1993653182754763e+66"),
        (0x332dd3313a0b9965, "3.62502428300625e-62"),
        (0x7e26f36a8483f8b8, "4.8031302683796236e+299"),
        (0xbb2313f55b06258e, "-7.890460386087061e-24"),
        (0xc12cbfaf65a40e36, "-942039.6985172692"),
        (0x3ce929d9db87374d, "2.7937075422064473e-15"),
        (0xc0eb1bfc0004cd20, "-55519.875002289424"),
        (0x417277a8e99ed8c2, "19364494.601280935"),
        (0x412bdd0c4e2c6c74, "913030.1526826755"),
        (0x45e21039ce64da43, "4.472276777667234e+28"),
        (0x411b3cbfb045460c, "446255.9221392579"),
        (0x3e62c3c2fc1c239b, "3.4951966222376096e-08"),
        (0xc1299a177f7fe8d7, "-838923.7490227473"),
        (0x3fba26f887425228, "0.10215714742873472"),
        (0xc12282f758a89b44, "-606587.6731613656"),
        (0x41a85cfae68d6d1b, "204373363.27622303"),
        (0x412d9e03fcfe8a2a, "970497.9941294838"),
        (0x39a8c1530f930455, "6.1026214689340835e-31"),
        (0xc0e40ba4b8218670, "-41053.147476923536"),
        (0x4441b2f2032b4212, "6.52978042841009e+20"),
        (0x411178e8c6b6ea78, "286266.19405714376"),
        (0x3b242e39d3e635ec, "8.34648807798219e-24"),
        (0x412902c48cda5bde, "819554.2751034459"),
        (0x43a5b698a812dc48, "7.8230288409809e+17"),
        (0xc1225a2262dcb7a2, "-601361.1930901895"),
        (0x3f4d21909848816e, "0.0008890110044071206"),
        (0x4121a5bdb95d611c, "578270.8620405528"),
        (0x4432069a678675a4, "3.325171998646099e+20"),
        (0x412b3b5561b004a4, "892330.6907960367"),
        (0x3fb27a8cf1444559, "0.07218247309017069"),
        (0xc1081352ea038e9c, "-197226.36426459707"),
        (0x4340d188c8394571, "9467970064648930.0"),
        (0xc124d25fcc57b62c, "-682287.8991066865"),
        (0x39e92daaef133875, "9.931123564171668e-30"),
        (0xc1254ac532cf31da, "-697698.5992370204"),
        (0x444886ac357a8fbe, "9.048520957332394e+20"),
        (0x411306918507fe4c, "311716.3799133047"),
        (0x418d297eadc5d6a7, "61157333.72160082"),
        (0x412d50c7c616fa76, "960611.886894061"),
        (0x3e3c3abdc61ea759, "6.572682927360199e-09"),
        (0xc125005e4c0d05fb, "-688175.1485368604"),
        (0x39dbcd274a16f0c4, "5.4828555979567644e-30"),
        (0xc12da5f43f540180, "-971514.1236877888"),
        (0x42369af4d77bc6c5, "97089017723.77644"),
        (0xc1283eafc92fa57c, "-794455.8929416384"),
        (0x3b56a6f23991e637, "7.494962284984053e-23"),
        (0xc10028e9030a9530, "-132381.12648502877"),
        (0x447d892a23f24d1a, "8.717429279894041e+21"),
        (0x4126d24b68d8312a, "747813.7047744144"),
        (0x3c14a7dd82046bbe, "2.7993725626429993e-19"),
        (0xc11945cac754d614, "-414066.6946595621"),
        (0x41425a08f67983dc, "2405393.925583346"),
        (0xc1153dd58968db38, "-348021.38418905763"),
        (0x44a70de26f3bb861, "5.443527655229907e+22"),
        (0xc12684794b42abbe, "-737852.6469930334"),
        (0x3e438adf260ed16a, "9.100170563155566e-09"),
        (0x41284620013bb87e, "795408.0024087576"),
        (0x4476720d9ea61916, "6.624748303245661e+21"),
        (0x4128ad2319218c6a, "808593.5490840797"),
        (0x45ab2eb604e95deb, "4.2062827070906517e+27"),
        (0x412714e31f190878, "756337.5607378623"),
        (0x3b63c2a897930b2e, "1.307632590221238e-22"),
        (0x40e6f4a57a429820, "47013.17117433273"),
        (0x3f28844feb29147b, "0.0001870486790542003"),
        (0x4120e068a0dd21f0, "553012.3141871076"),
        (0x43d51d0d0cb6cd7c, "6.085546389515137e+18"),
        (0x41224289cd4dd53c, "598340.9009844433"),
        (0x3fc60f750243d354, "0.17234671221344888"),
        (0x410d13d3d3b21288, "238202.47836698988"),
        (0x3a23116ed12b2557, "1.2033661124464591e-28"),
        (0xc1153e0ecaa6e4a6, "-348035.6979022719"),
        (0x40e94f5be172428a, "51834.87127030369"),
        (0xc0e11a3f1d977c50, "-35025.97236227302"),
        (0x45500eb4513f25cb, "7.764901005186842e+25"),
        (0x40fd71044651da40, "120592.26716790441"),
        (0x3d1bfa5c7526a3ac, "2.4849432104309e-14"),
        (0xc12bf1246bd0cd74, "-915602.210577412"),
        (0x3f5003bbe1701f9f, "0.0009774527331973604"),
        (0x40fe242c5f7d6700, "123458.77331295237"),
        (0x45b88e8414229550, "7.599931425900165e+27"),
        (0xc12aa65ca608a7ce, "-873262.3242847861"),
        (0x404047dac4540b6b, "32.56136373618832"),
        (0x4109e99ae8d442f0, "212275.36368610663"),
        (0x3d167367fca725a5, "1.9940320918508615e-14"),
        (0xc0f744c6a5c40f68, "-95308.41547018068"),
        (0x3fe110ac9f3abd24, "0.5332854375791709"),
        (0x40ce47dbfa57a400, "15503.718577342108"),
        (0x406ef4fc4eacdf1a, "247.65579923404658"),
        (0x4126fb5ded57e452, "753070.9635611868"),
        (0x3d05374d227b3106, "9.421805883035757e-15"),
        (0x4129ce00da8acce6, "845568.4268402129"),
        (0x3c3077ea7feadc0c, "8.927549417560328e-19"),
        (0x4124c07f2231d41c, "679999.5667864117"),
        (0x3afa86917ff0aab5, "1.3713443589685148e-24"),
        (0xc10a4739f14e73d8, "-215271.24282541755"),
        (0x4252647741c81371, "315979794208.3038"),
        (0xc11fa909eeb00d53, "-518722.48309346027"),
        (0x423106565bfcaca1, "73120766972.67433"),
        (0xc118131f65e27ffe, "-394439.8494968413"),
        (0x43b0fabdbe27a4d3, "1.2234988731910602e+18"),
        (0xc12517458142c7ac, "-691106.7524626157"),
        (0x4264d78247848647, "716119882788.1962"),
        (0xc11055c5af2f3d02, "-267633.42107863736"),
        (0x3b3e994ee3533fbe, "2.5310783745968957e-23"),
        (0x412c896321734bea, "935089.5653327678"),
        (0x46062c365f02ba70, "2.1958783080191967e+29"),
        (0xc128c5ca38244791, "-811749.109651791"),
        (0x3bc4e5174ddcd140, "8.849328792636154e-21"),
        (0x412de63dd1a87c7a, "979742.909488573"),
        (0x3bc3a7d1bbca25db, "8.324446694829475e-21"),
        (0x41192f9c6b3f21cc, "412647.10473301704"),
        (0x3ee4d8e2fecfe64b, "9.940726124912878e-06"),
        (0xc113a39ed864e388, "-321767.7113223602"),
        (0x3db585b8f7ff2378, "1.9574466613393117e-11"),
        (0xc128e3f7e53e8c96, "-815611.9477428372"),
        (0x3df925e79b5a1dd3, "3.6595251425715484e-10"),
        (0x40fa6447ee0bbb10, "108100.49561665603"),
        (0x39d655791986fe4d, "4.4045810180270206e-30"),
        (0xc10c3c7712cfac40, "-231310.88418516703"),
        (0x3d6234a13db1363a, "5.174338566059401e-13"),
        (0x40d7f324694c6b40, "24524.568926911103"),
        (0x45809e6863fda735, "6.429079259075188e+26"),
        (0x412199ac3971a4ec, "576726.1121951616"),
        (0x3af2cb9af7188c0b, "9.71695958647074e-25"),
    ];

    #[test]
    fn cases() {
        for &(src, expected) in CASES {
            for pieces in splits(src) {
                assert_eq!(
                    run(&pieces),
                    (expected.to_string(), Ok(src.len())),
                    "{pieces:?}"
                );
            }
            // the literal ends where the next token starts
            let with_paren = format!("{src})");
            let spaced = format!("{src} )");
            for pieces in [
                vec![with_paren.as_str()],
                vec![src, ")"],
                splits(&spaced).pop().unwrap(),
            ] {
                let total: usize = pieces.iter().map(|p| p.len()).sum();
                assert_eq!(
                    run(&pieces),
                    (expected.to_string(), Ok(total - 1)),
                    "{pieces:?}"
                );
            }
        }
    }

    #[test]
    fn errors() {
        for &src in ERRORS {
            let first = run(&[src]).1;
            assert!(rejected(src, &first), "{src:?} accepted: {first:?}");
            for pieces in splits(src) {
                // the same verdict at the same offset for every split
                assert_eq!(run(&pieces).1, first, "{pieces:?}");
            }
        }
    }

    #[test]
    fn unsupported_and_deviations() {
        for &src in UNSUPPORTED {
            for pieces in splits(src) {
                assert!(rejected(src, &run(&pieces).1), "{pieces:?}");
            }
        }
        for &(src, expected) in DEVIATIONS {
            for pieces in splits(src) {
                assert_eq!(run(&pieces), (expected.to_string(), Ok(src.len())));
            }
        }
    }

    #[test]
    fn feed_after_end() {
        let mut out = String::new();
        let mut conv = PyLiteral::new();
        assert_eq!(conv.feed("[1] , 2", &mut out), Step::Done(4));
        assert_eq!(conv.feed("xyz", &mut out), Step::Done(0));
        assert_eq!(conv.finish(&mut out), Step::Done(0));
        assert_eq!(out, "[1]");
        let mut conv = PyLiteral::default();
        assert_eq!(conv.feed("[1 x", &mut out), Step::Error(3));
        assert_eq!(conv.feed("]", &mut out), Step::Error(0));
        assert_eq!(conv.finish(&mut out), Step::Error(0));
    }

    #[test]
    fn done_offsets_are_bytes() {
        let mut out = String::new();
        let mut conv = PyLiteral::new();
        assert_eq!(conv.feed("'é' ", &mut out), Step::NeedMore);
        assert_eq!(conv.feed(" \n", &mut out), Step::NeedMore);
        assert_eq!(conv.feed("\u{a0})", &mut out), Step::Done(0)); // U+00A0 is not whitespace
        assert_eq!(out, "\"é\"");
        let mut out = String::new();
        let mut conv = PyLiteral::new();
        assert_eq!(conv.feed("12", &mut out), Step::NeedMore);
        assert_eq!(out, ""); // a number is written once complete
        assert_eq!(conv.feed("3,", &mut out), Step::Done(1));
        assert_eq!(out, "123");
        let mut conv = PyLiteral::new();
        assert_eq!(conv.feed("['漢', x]", &mut out), Step::Error(9));
    }

    #[test]
    fn strings_stream() {
        let body: String = "abc é漢😀 \\n \\x41 \\' ".repeat(1000);
        let src = format!("'{body}'");
        let mut conv = PyLiteral::new();
        let mut out = String::new();
        let mut silent = 0;
        let pieces = chunks(&src, 4);
        for piece in &pieces {
            let before = out.len();
            assert_eq!(conv.feed(piece, &mut out), Step::NeedMore);
            if out.len() == before {
                silent += 1;
            }
        }
        assert_eq!(conv.feed(")", &mut out), Step::Done(0));
        // every feed wrote something, except ones that ended inside an escape
        assert!(silent < pieces.len() / 10, "{silent} of {}", pieces.len());
        let expected = "abc é漢😀 \\n A ' ".repeat(1000);
        assert_eq!(out, format!("\"{expected}\""));
    }

    #[test]
    fn undecided_paren_holds_only_until_known() {
        let mut conv = PyLiteral::new();
        let mut out = String::new();
        assert_eq!(conv.feed("('abc", &mut out), Step::NeedMore);
        assert_eq!(out, ""); // tuple or group: not known yet
        assert_eq!(conv.feed("def',", &mut out), Step::NeedMore);
        assert_eq!(out, "[\"abcdef\"");
        assert_eq!(conv.feed(" 'x", &mut out), Step::NeedMore);
        assert_eq!(out, "[\"abcdef\", \"x"); // known now: streams again
    }

    #[test]
    fn deep_nesting() {
        let n = 100_000;
        let cases = [
            (
                "[".repeat(n) + &"]".repeat(n),
                "[".repeat(n) + &"]".repeat(n),
            ),
            ("(".repeat(n) + "1" + &")".repeat(n), "1".to_string()),
            (
                "(".repeat(n) + "1," + &"),".repeat(n - 1) + ")",
                "[".repeat(n) + "1" + &"]".repeat(n),
            ),
            (
                "{'a': ".repeat(n) + "1" + &"}".repeat(n),
                "{\"a\": ".repeat(n) + "1" + &"}".repeat(n),
            ),
            (
                "-".to_string() + &"(".repeat(n) + "1" + &")".repeat(n),
                "-1".to_string(),
            ),
        ];
        for (src, expected) in &cases {
            assert_eq!(run(&[src]), (expected.clone(), Ok(src.len())));
            assert_eq!(run(&chunks(src, 7)), (expected.clone(), Ok(src.len())));
        }
        let bad = "[".repeat(n) + &"]".repeat(n - 1) + ")";
        assert!(rejected(&bad, &run(&[&bad]).1));
    }

    #[test]
    fn big_ints() {
        let nines = "9".repeat(4300);
        let ok = [
            (nines.clone(), nines.clone()),
            (format!("-{nines}"), format!("-{nines}")),
            ("0".repeat(5000), "0".to_string()),
            (format!("0x{}1", "0".repeat(5000)), "1".to_string()),
            (
                "0xffffffffffffffffffffffffffffffff".to_string(),
                u128::MAX.to_string(),
            ),
            (
                format!("0b{}", "1".repeat(127)),
                (u128::MAX >> 1).to_string(),
            ),
            (
                "-0o1777777777777777777777".to_string(),
                format!("-{}", u64::MAX),
            ),
            (
                "0x1_0000_0000_0000_0000".to_string(),
                "18446744073709551616".to_string(),
            ),
        ];
        for (src, expected) in &ok {
            assert_eq!(run(&[src]), (expected.clone(), Ok(src.len())), "{src}");
        }
        // 2**14284 - 1 < 10**4300 <= 2**14285 - 1
        let (out, end) = run(&[&format!("0b{}", "1".repeat(14284))]);
        assert_eq!((out.len(), end.is_ok()), (4300, true));
        let too_big = [
            "9".repeat(4301),
            format!("1{}", "0".repeat(4300)),
            format!("0b{}", "1".repeat(14285)),
            format!("0x{}", "f".repeat(9000)),
        ];
        for src in &too_big {
            assert!(run(&[src]).1.is_err(), "{src}");
        }
    }

    #[test]
    fn floats_like_python_repr() {
        for &(bits, repr) in FLOATS {
            let x = f64::from_bits(bits);
            assert_eq!(crate::params::float_repr(x), repr, "{x:e}");
            // reading Python's repr gives it back
            let expected = if repr.starts_with('-') && x == 0.0 {
                "-0.0"
            } else {
                repr
            };
            assert_eq!(
                run(&[repr]),
                (expected.to_string(), Ok(repr.len())),
                "{repr}"
            );
        }
    }

    #[test]
    fn never_panics_on_prefixes_and_bytes() {
        // every prefix of every case, fed whole and char by char, gives an answer
        for &(src, _) in CASES {
            for (i, _) in src.char_indices() {
                let prefix = &src[..i];
                let whole = run(&[prefix]);
                assert_eq!(run(&splits(prefix).pop().unwrap()), whole, "{prefix:?}");
            }
        }
        let weird = [
            "\u{0}",
            "'\u{0}'",
            "\u{feff}1",
            "[\u{2028}]",
            "'\\",
            "(",
            "-(",
            "{(",
            "r",
            "u'",
        ];
        for src in weird {
            for pieces in splits(src) {
                let _ = run(&pieces);
            }
        }
    }
}
