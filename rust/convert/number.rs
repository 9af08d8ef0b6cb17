//! Python number literals as JSON text: the grammar states of a literal being read, the
//! transition of `PyLiteral::step` that reads one, and the conversion of a complete one
//! (decimal, hex/octal/binary, float), within Python's own limits.

use std::fmt::Write as _;

use super::{is_ident, Flow, PyLiteral, State};

/// Python refuses to convert ints with more decimal digits than this (`sys.int_info`
/// `default_max_str_digits`): a longer decimal literal is a SyntaxError and `json.dumps` of a
/// larger hex/octal/binary value raises ValueError. Following it also bounds the quadratic
/// base conversion.
const MAX_INT_DIGITS: usize = 4300;
/// `10**4300 < 2**14285`, so an int of at least 14285 bits has more than 4300 decimal digits.
const MAX_INT_BITS: usize = 14285;

/// Where a number literal is, in Python's grammar for numbers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Num {
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
    /// `j` after a decimal number: an imaginary number (no JSON form)
    Imag,
    /// `..`: a third `.` makes `...`
    Dots,
    /// `...` (Ellipsis, no JSON form)
    Ellipsis,
}

/// A number literal being read (the data of `State::Number`).
#[derive(Debug)]
pub(super) struct Number {
    /// where it is in the grammar
    pub(super) part: Num,
    /// its text without `_` (for radix ints: the digits only)
    pub(super) buf: String,
    pub(super) radix: u32,
    pub(super) neg: bool,
    /// parentheses opened after the sign: they must close after it
    pub(super) groups: usize,
}

impl PyLiteral {
    /// A character while reading a number.
    pub(super) fn on_number(&mut self, mut n: Number, c: char, out: &mut String) -> Flow {
        let next = match (n.part, c) {
            (Num::Int | Num::IntUnder, '0'..='9') => Some(Num::Int),
            (Num::Int, '_') => Some(Num::IntUnder),
            (Num::Int, '.') => Some(Num::Dot),
            (Num::Int | Num::Dot | Num::Frac, 'e' | 'E') => Some(Num::Exp),
            (Num::Int, 'x' | 'X' | 'o' | 'O' | 'b' | 'B') if n.buf == "0" => {
                n.radix = match c {
                    'x' | 'X' => 16,
                    'o' | 'O' => 8,
                    _ => 2,
                };
                n.buf.clear();
                n.part = Num::Radix;
                self.state = State::Number(n);
                return Flow::Next;
            }
            (Num::Radix | Num::RadixDigits | Num::RadixUnder, d) if d.is_digit(n.radix) => {
                Some(Num::RadixDigits)
            }
            (Num::Radix | Num::RadixDigits, '_') => Some(Num::RadixUnder),
            (Num::Dot | Num::LeadDot | Num::Frac | Num::FracUnder, '0'..='9') => Some(Num::Frac),
            (Num::Frac, '_') => Some(Num::FracUnder),
            (Num::Exp, '+' | '-') => Some(Num::ExpSign),
            (Num::Exp | Num::ExpSign | Num::ExpDigits | Num::ExpUnder, '0'..='9') => {
                Some(Num::ExpDigits)
            }
            (Num::ExpDigits, '_') => Some(Num::ExpUnder),
            (Num::Int | Num::Dot | Num::Frac | Num::ExpDigits, 'j' | 'J') => Some(Num::Imag),
            (Num::LeadDot, '.') if n.buf == "." => Some(Num::Dots),
            (Num::Dots, '.') => Some(Num::Ellipsis),
            _ => None,
        };
        if let Some(part) = next {
            if c != '_' {
                n.buf.push(if c == 'E' { 'e' } else { c });
            }
            n.part = part;
            self.state = State::Number(n);
            return Flow::Next;
        }
        // `c` ends the number; a letter, digit, `_` or `.` glued to it is invalid
        // (`1x`, `1jj`, `0b12`, `1._5`, `1..real`, `....`).
        if is_ident(c) || c == '.' || !self.finish_number(&n, out) {
            return Flow::Fail;
        }
        self.state = if n.groups > 0 {
            State::CloseGroups { left: n.groups }
        } else {
            State::AfterValue
        };
        Flow::Again
    }

    /// Write a complete number's JSON text; false when Python would refuse it.
    pub(super) fn finish_number(&mut self, n: &Number, out: &mut String) -> bool {
        let text = match n.part {
            Num::Int | Num::RadixDigits | Num::Dot | Num::Frac | Num::ExpDigits => {
                match number_text(n.part, &n.buf, n.radix, n.neg) {
                    Some(text) => text,
                    // a float that overflows to infinity: valid, with no JSON form
                    None if n.part != Num::Int && n.part != Num::RadixDigits => {
                        self.no_json = true;
                        "null".to_string()
                    }
                    None => return false,
                }
            }
            // `1j`, `...`: valid, with no JSON form
            Num::Imag | Num::Ellipsis => {
                self.no_json = true;
                "null".to_string()
            }
            _ => return false,
        };
        self.emit_scalar(out, &text);
        true
    }
}

/// Decimal text of the hex/octal/binary `digits`, or None when it has more than
/// `MAX_INT_DIGITS` digits.
pub(super) fn radix_to_decimal(digits: &str, radix: u32) -> Option<String> {
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
        for limb in &mut limbs {
            let v = u64::from(*limb) * u64::from(radix) + carry;
            // `v % BASE` is below `BASE` (10^9), which fits a `u32`
            #[allow(clippy::cast_possible_truncation)]
            let low = (v % BASE) as u32;
            *limb = low;
            carry = v / BASE;
        }
        if carry > 0 {
            // the carry out of a limb is below the radix (at most 36)
            #[allow(clippy::cast_possible_truncation)]
            limbs.push(carry as u32);
        }
    }
    let mut s = String::with_capacity(limbs.len() * 9);
    let mut iter = limbs.iter().rev();
    if let Some(top) = iter.next() {
        s.push_str(&top.to_string());
    }
    for limb in iter {
        let _ = write!(s, "{limb:09}");
    }
    (s.len() <= MAX_INT_DIGITS).then_some(s)
}

/// JSON text of a complete number literal, or None when Python would refuse it (or it is not
/// finite: `1e400` is `inf`, which has no JSON form).
pub(super) fn number_text(part: Num, buf: &str, radix: u32, neg: bool) -> Option<String> {
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
