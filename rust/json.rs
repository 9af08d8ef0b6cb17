//! Resumable JSON: a validating scanner that keeps its stack between deltas and a string decoder;
//! `call` reads a `{"name": ..., "arguments": ...}` tool-call object built on both.
//!
//! Nothing here recurses, so nesting depth is bounded by memory, not by the call stack.

use crate::scan::is_ws;

use crate::Step;

/// Length of the leading run of `bytes` that JSON needs no escape for (no `"`, `\\` or control
/// character) and that holds no `stop` byte; all stops are ASCII, so the run ends on a char
/// boundary. Eight bytes at a time while none of them stops the run.
#[inline]
pub fn safe_run(bytes: &[u8], stop: u8) -> usize {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGHS: u64 = 0x8080_8080_8080_8080;
    // a byte of `x` is zero exactly where this sets its high bit (no false positives below the
    // first real hit, so the lowest bit set marks the first hit)
    let zero_byte = |x: u64| x.wrapping_sub(ONES) & !x & HIGHS;
    let mut i = 0;
    while let Some(chunk) = bytes.get(i..i + 8) {
        let mut word = [0u8; 8];
        word.copy_from_slice(chunk);
        let x = u64::from_le_bytes(word);
        let hit = zero_byte(x ^ (ONES * u64::from(stop)))
            | zero_byte(x ^ (ONES * u64::from(b'\\')))
            | zero_byte(x ^ (ONES * u64::from(b'"')))
            | (x.wrapping_sub(ONES * 0x20) & !x & HIGHS);
        if hit != 0 {
            return i + (hit.trailing_zeros() / 8) as usize;
        }
        i += 8;
    }
    i + bytes[i..]
        .iter()
        .position(|&b| b == stop || b == b'\\' || b == b'"' || b < 0x20)
        .unwrap_or(bytes.len() - i)
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Ctx {
    Obj,
    Arr,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Num {
    Minus,
    Zero,
    Int,
    Dot,
    Frac,
    Exp,
    ExpSign,
    ExpDigits,
}

impl Num {
    fn complete(self) -> bool {
        matches!(self, Num::Zero | Num::Int | Num::Frac | Num::ExpDigits)
    }

    /// The next number state on byte `b`, or `None` when `b` is not part of the number.
    fn next(self, b: u8) -> Option<Num> {
        Some(match (self, b) {
            (Num::Minus, b'0') => Num::Zero,
            (Num::Minus, b'1'..=b'9') | (Num::Int, b'0'..=b'9') => Num::Int,
            (Num::Zero | Num::Int, b'.') => Num::Dot,
            (Num::Dot | Num::Frac, b'0'..=b'9') => Num::Frac,
            (Num::Zero | Num::Int | Num::Frac, b'e' | b'E') => Num::Exp,
            (Num::Exp, b'+' | b'-') => Num::ExpSign,
            (Num::Exp | Num::ExpSign | Num::ExpDigits, b'0'..=b'9') => Num::ExpDigits,
            _ => return None,
        })
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum JState {
    /// A value is expected (whitespace allowed).
    Value,
    /// After `[`: a value or `]`.
    ValueOrClose,
    /// After `{`: a key or `}`.
    KeyOrClose,
    /// After `,` in an object: a key.
    Key,
    Colon,
    /// After a value inside a container: `,` or the closing bracket.
    CommaOrClose,
    Str {
        key: bool,
    },
    Esc {
        key: bool,
    },
    Hex {
        key: bool,
        left: u8,
    },
    Number(Num),
    Literal {
        word: &'static [u8],
        at: u8,
    },
    Done,
}

/// Validates one JSON value fed in pieces; stops right after it.
#[derive(Debug, Clone)]
pub struct JsonScanner {
    stack: Vec<Ctx>,
    st: JState,
}

impl Default for JsonScanner {
    fn default() -> Self {
        Self::new()
    }
}

impl JsonScanner {
    pub fn new() -> Self {
        JsonScanner {
            stack: Vec::new(),
            st: JState::Value,
        }
    }

    /// Current nesting depth (0 at top level).
    pub fn depth(&self) -> usize {
        self.stack.len()
    }

    fn after_value(&self) -> JState {
        if self.stack.is_empty() {
            JState::Done
        } else {
            JState::CommaOrClose
        }
    }

    /// Feeds the next bytes. `Done(n)`: the value ended after `n` bytes of this input.
    pub fn feed(&mut self, s: &[u8]) -> Step {
        let n = s.len();
        let mut i = 0;
        while i < n {
            let b = s[i];
            match self.st {
                JState::Str { key } => {
                    i += safe_run(&s[i..], b'"');
                    if i == n {
                        return Step::NeedMore;
                    }
                    match s[i] {
                        b'"' => {
                            self.st = if key {
                                JState::Colon
                            } else {
                                self.after_value()
                            }
                        }
                        b'\\' => self.st = JState::Esc { key },
                        _ => return Step::Error(i),
                    }
                }
                JState::Esc { key } => {
                    self.st = match b {
                        b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't' => {
                            JState::Str { key }
                        }
                        b'u' => JState::Hex { key, left: 4 },
                        _ => return Step::Error(i),
                    }
                }
                JState::Hex { key, left } => {
                    if !b.is_ascii_hexdigit() {
                        return Step::Error(i);
                    }
                    self.st = if left == 1 {
                        JState::Str { key }
                    } else {
                        JState::Hex {
                            key,
                            left: left - 1,
                        }
                    };
                }
                JState::Number(num) => match num.next(b) {
                    Some(next) => self.st = JState::Number(next),
                    None if num.complete() => {
                        self.st = self.after_value();
                        if self.st == JState::Done {
                            return Step::Done(i);
                        }
                        continue; // look at `b` again in the new state
                    }
                    None => return Step::Error(i),
                },
                JState::Literal { word, at } => {
                    if word.get(at as usize) != Some(&b) {
                        return Step::Error(i);
                    }
                    self.st = if at as usize + 1 == word.len() {
                        self.after_value()
                    } else {
                        JState::Literal { word, at: at + 1 }
                    };
                }
                JState::Value | JState::ValueOrClose => {
                    if !matches!(b, b' ' | b'\t' | b'\n' | b'\r') {
                        if b == b']' && self.st == JState::ValueOrClose {
                            self.stack.pop();
                            self.st = self.after_value();
                        } else {
                            match self.start_value(b) {
                                Some(st) => self.st = st,
                                None => return Step::Error(i),
                            }
                        }
                    }
                }
                JState::KeyOrClose | JState::Key => match b {
                    b' ' | b'\t' | b'\n' | b'\r' => {}
                    b'"' => self.st = JState::Str { key: true },
                    b'}' if self.st == JState::KeyOrClose => {
                        self.stack.pop();
                        self.st = self.after_value();
                    }
                    _ => return Step::Error(i),
                },
                JState::Colon => match b {
                    b' ' | b'\t' | b'\n' | b'\r' => {}
                    b':' => self.st = JState::Value,
                    _ => return Step::Error(i),
                },
                JState::CommaOrClose => match (b, self.stack.last()) {
                    (b' ' | b'\t' | b'\n' | b'\r', _) => {}
                    (b',', Some(Ctx::Obj)) => self.st = JState::Key,
                    (b',', Some(Ctx::Arr)) => self.st = JState::Value,
                    (b'}', Some(Ctx::Obj)) | (b']', Some(Ctx::Arr)) => {
                        self.stack.pop();
                        self.st = self.after_value();
                    }
                    _ => return Step::Error(i),
                },
                JState::Done => return Step::Done(i),
            }
            i += 1;
            if self.st == JState::Done {
                return Step::Done(i);
            }
        }
        Step::NeedMore
    }

    fn start_value(&mut self, b: u8) -> Option<JState> {
        Some(match b {
            b'{' => {
                self.stack.push(Ctx::Obj);
                JState::KeyOrClose
            }
            b'[' => {
                self.stack.push(Ctx::Arr);
                JState::ValueOrClose
            }
            b'"' => JState::Str { key: false },
            b'-' => JState::Number(Num::Minus),
            b'0' => JState::Number(Num::Zero),
            b'1'..=b'9' => JState::Number(Num::Int),
            b't' => JState::Literal {
                word: b"true",
                at: 1,
            },
            b'f' => JState::Literal {
                word: b"false",
                at: 1,
            },
            b'n' => JState::Literal {
                word: b"null",
                at: 1,
            },
            _ => return None,
        })
    }

    /// End of text: a top-level number may end here.
    pub fn finish(&mut self) -> Step {
        match self.st {
            JState::Done => Step::Done(0),
            JState::Number(num) if num.complete() && self.stack.is_empty() => {
                self.st = JState::Done;
                Step::Done(0)
            }
            _ => Step::Error(0),
        }
    }

    pub fn is_done(&self) -> bool {
        self.st == JState::Done
    }
}

/// Whether `s` is exactly one JSON value (surrounding whitespace allowed).
pub fn is_json(s: &str) -> bool {
    let mut sc = JsonScanner::new();
    let end = match sc.feed(s.as_bytes()) {
        Step::Done(n) => n,
        Step::NeedMore => match sc.finish() {
            Step::Done(_) => s.len(),
            _ => return false,
        },
        Step::Error(_) => return false,
    };
    s[end..].trim_start_matches(is_ws).is_empty()
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum DState {
    Chars,
    Esc,
    Hex { left: u8, code: u32 },
}

/// Decodes the body of a JSON string (after its opening quote) piece by piece.
/// A lone surrogate escape decodes to U+FFFD.
#[derive(Debug, Clone)]
pub struct StrDecoder {
    st: DState,
    high: Option<u32>,
}

impl Default for StrDecoder {
    fn default() -> Self {
        Self::new()
    }
}

impl StrDecoder {
    pub fn new() -> Self {
        StrDecoder {
            st: DState::Chars,
            high: None,
        }
    }

    fn flush_high(&mut self, out: &mut String) {
        if self.high.take().is_some() {
            out.push('\u{FFFD}');
        }
    }

    /// Appends decoded text to `out`. `Done(n)`: the closing quote is byte `n - 1`.
    pub fn feed(&mut self, s: &str, out: &mut String) -> Step {
        let bytes = s.as_bytes();
        let n = bytes.len();
        let mut i = 0;
        while i < n {
            match self.st {
                DState::Chars => {
                    let start = i;
                    i += safe_run(&bytes[i..], b'"');
                    if i > start {
                        self.flush_high(out);
                        out.push_str(&s[start..i]);
                    }
                    if i == n {
                        return Step::NeedMore;
                    }
                    match bytes[i] {
                        b'"' => {
                            self.flush_high(out);
                            return Step::Done(i + 1);
                        }
                        b'\\' => self.st = DState::Esc,
                        _ => return Step::Error(i),
                    }
                }
                DState::Esc => {
                    let c = match bytes[i] {
                        b'"' => '"',
                        b'\\' => '\\',
                        b'/' => '/',
                        b'b' => '\u{8}',
                        b'f' => '\u{c}',
                        b'n' => '\n',
                        b'r' => '\r',
                        b't' => '\t',
                        b'u' => {
                            self.st = DState::Hex { left: 4, code: 0 };
                            i += 1;
                            continue;
                        }
                        _ => return Step::Error(i),
                    };
                    self.flush_high(out);
                    out.push(c);
                    self.st = DState::Chars;
                }
                DState::Hex { left, code } => {
                    let Some(d) = (bytes[i] as char).to_digit(16) else {
                        return Step::Error(i);
                    };
                    let code = code * 16 + d;
                    if left > 1 {
                        self.st = DState::Hex {
                            left: left - 1,
                            code,
                        };
                    } else {
                        self.st = DState::Chars;
                        self.push_code(code, out);
                    }
                }
            }
            i += 1;
        }
        Step::NeedMore
    }

    fn push_code(&mut self, code: u32, out: &mut String) {
        if (0xD800..0xDC00).contains(&code) {
            self.flush_high(out);
            self.high = Some(code);
        } else if (0xDC00..0xE000).contains(&code) {
            match self.high.take() {
                Some(h) => {
                    let c = 0x10000 + ((h - 0xD800) << 10) + (code - 0xDC00);
                    out.push(char::from_u32(c).unwrap_or('\u{FFFD}'));
                }
                None => out.push('\u{FFFD}'),
            }
        } else {
            self.flush_high(out);
            out.push(char::from_u32(code).unwrap_or('\u{FFFD}'));
        }
    }
}

mod call;
pub use call::{is_blank, CallKeys, CallObject, Calls, Member, CALL_KEYS};

#[cfg(test)]
mod tests;
