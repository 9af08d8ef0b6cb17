//! Values of XML-style tool parameters (`<parameter=K>V</parameter>` and its relatives), typed by
//! the tool's JSON Schema and written as JSON text the way
//! `json.dumps(value, ensure_ascii=False)` writes it. Format-independent: the format machine finds
//! where a value starts and ends (and strips what its format strips); this module decides the
//! value's [`Kind`] from the schema type, escapes string values as they stream, and converts a
//! complete typed value.
//!
//! Its pure-Python twin is `python/toolparse/reference/params.py` (same names, same output).
//!
//! Conversion rules (facts from vLLM's and SGLang's Qwen3-Coder parsers, made strict where they
//! would produce invalid JSON or silently change a value):
//! - string types (`string`, `str`, `text`, `varchar`, `char`, `enum`), an empty (unknown) type,
//!   or a parameter the schema does not know: the raw text as a JSON string (`null` stays the
//!   string "null");
//! - any other type: the value trimmed of JSON whitespace; `null` / `none` (any case) -> `null`;
//! - integer types (`int*`, `uint*`, `long*`, `short*`, `unsigned*`): an optional sign and ASCII
//!   digits, written as Python's `int()` would (no `+`, no leading zeros, `-0` -> `0`);
//! - number types (`num*`, `float*`): an integer as above, or a decimal number with a fraction
//!   and/or an exponent (`.5`, `5.`, `+1e5` accepted), written as Python's `repr(float(text))`;
//!   a value that overflows to infinity is not a number;
//! - boolean types (`boolean`, `bool`, `binary`): `true` / `false` in any case;
//! - every other type (`object`, `array`, `dict*`, `list*`, or a type name we do not know): any
//!   JSON value, re-written like `json.dumps(json.loads(text), ensure_ascii=False)` (duplicate
//!   keys: the last value at the first key's position; numbers normalised as Python does;
//!   `NaN`/`Infinity` rejected);
//! - anything that does not fit its type: the raw text as a JSON string.
//!
//! A parameter whose schema admits several types (`"type": ["integer", "null"]`, or `anyOf` /
//! `oneOf` branches with types) is a union ([`Kind::Union`]): its text is tried, among the types
//! admitted, in vLLM's order null, integer, number, boolean, object, array, and takes the first
//! it parses as (object and array only accept a JSON object or array; a type name we do not
//! know accepts any JSON value, tried after array); else it is the raw text as a JSON string.
//! `null` / `none` (any case) is null where null is admitted, or where string is not (as for a
//! single typed parameter); where string is admitted and null is not, it is the string. A list
//! whose names all map to one type (`["int", "integer"]`) is that single type, and keeps the
//! single-type rules above; an empty list (no type information) is a string.
//!
//! Nothing here recurses: JSON values are parsed into a flat arena and written with an explicit
//! stack, so a deeply nested value cannot overflow the call stack (nor can dropping it).

use std::collections::HashMap;

use crate::json::StrDecoder;
use crate::scan::{At, Found, Markers};
use crate::Step;

mod tools;
pub use tools::{RawSchemaNode, SchemaNode, Tools};

/// How a parameter's value is converted, decided by its schema type.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// A JSON string of the raw text; streams as it arrives.
    Str,
    Integer,
    Number,
    Bool,
    /// Any JSON value (objects, arrays, and types we do not know).
    Json,
    /// Several admitted types: a set of the `T_*` bits, tried in the module's order.
    Union(u8),
}

/// Bits of a [`Kind::Union`], one per admitted type, in the order they are tried.
pub const T_NULL: u8 = 1;
pub const T_INTEGER: u8 = 2;
pub const T_NUMBER: u8 = 4;
pub const T_BOOL: u8 = 8;
pub const T_OBJECT: u8 = 16;
pub const T_ARRAY: u8 = 32;
/// A type name we do not know: any JSON value.
pub const T_OTHER: u8 = 64;
pub const T_STRING: u8 = 128;

/// The kind of a JSON Schema type string ("" when the schema gives none).
pub fn kind_of(ty: &str) -> Kind {
    let t = ty
        .trim_matches(|c: char| c.is_ascii_whitespace())
        .to_ascii_lowercase();
    let starts = |ps: &[&str]| ps.iter().any(|p| t.starts_with(p));
    match t.as_str() {
        "" | "string" | "str" | "text" | "varchar" | "char" | "enum" => Kind::Str,
        "boolean" | "bool" | "binary" => Kind::Bool,
        _ if starts(&["int", "uint", "long", "short", "unsigned"]) => Kind::Integer,
        _ if starts(&["num", "float"]) => Kind::Number,
        _ => Kind::Json,
    }
}

/// The union bit of a JSON Schema type string.
pub fn type_bit(ty: &str) -> u8 {
    let t = ty
        .trim_matches(|c: char| c.is_ascii_whitespace())
        .to_ascii_lowercase();
    match kind_of(&t) {
        Kind::Str => T_STRING,
        Kind::Integer => T_INTEGER,
        Kind::Number => T_NUMBER,
        Kind::Bool => T_BOOL,
        _ if t == "null" => T_NULL,
        _ if t == "object" || t.starts_with("dict") => T_OBJECT,
        _ if t == "array" || t == "arr" || t.starts_with("list") => T_ARRAY,
        _ => T_OTHER,
    }
}

/// The kind of a parameter whose schema admits `types` (empty: no type information, a string).
pub fn kind_of_types<S: AsRef<str>>(types: &[S]) -> Kind {
    let mask = types.iter().fold(0u8, |m, t| m | type_bit(t.as_ref()));
    match mask {
        0 | T_STRING => Kind::Str,
        T_INTEGER => Kind::Integer,
        T_NUMBER => Kind::Number,
        T_BOOL => Kind::Bool,
        _ if mask.is_power_of_two() => Kind::Json,
        _ => Kind::Union(mask),
    }
}

/// The kind of parameter `param` of function `func`; `Str` when the schema does not know it.
pub fn param_kind(tools: &Tools, func: &str, param: &str) -> Kind {
    match tools.functions.get(func).and_then(|p| p.get(param)) {
        Some(&kind) => kind,
        None => Kind::Str,
    }
}

/// Appends `s` escaped as the body of a JSON string (no quotes), as `json.dumps(s,
/// ensure_ascii=False)` escapes it: `"` `\` and control characters; everything else raw.
pub fn push_json_str_body(out: &mut String, s: &str) {
    let bytes = s.as_bytes();
    // one allocation for the common case (a few escapes); escapes beyond it grow as usual
    out.reserve(s.len() + s.len() / 8);
    let mut start = 0;
    let mut i = 0;
    loop {
        i += crate::json::safe_run(&bytes[i..], b'"');
        let Some(&b) = bytes.get(i) else { break };
        out.push_str(&s[start..i]);
        push_escape(out, b);
        i += 1;
        start = i;
    }
    out.push_str(&s[start..]);
}

/// Appends the JSON escape of byte `b` (`"`, `\` or a control character).
#[inline]
fn push_escape(out: &mut String, b: u8) {
    match b {
        b'"' => out.push_str("\\\""),
        b'\\' => out.push_str("\\\\"),
        b'\n' => out.push_str("\\n"),
        b'\r' => out.push_str("\\r"),
        b'\t' => out.push_str("\\t"),
        0x08 => out.push_str("\\b"),
        0x0c => out.push_str("\\f"),
        _ => {
            const HEX: &[u8; 16] = b"0123456789abcdef";
            out.push_str("\\u00");
            out.push(HEX[(b >> 4) as usize] as char);
            out.push(HEX[(b & 15) as usize] as char);
        }
    }
}

/// Whether JSON escapes byte `b` inside a string.
#[inline]
fn escaped(b: u8) -> bool {
    b == b'"' || b == b'\\' || b < 0x20
}

/// The input length from which [`escape_to_marker`] finds, then escapes, when no marker starts
/// with a byte JSON escapes.
const FIND_MIN: usize = 64;

/// [`Markers::find`] on `input` that also appends the text before what it finds (the marker,
/// or the held-back tail) to `out`, escaped as by [`push_json_str_body`]: a string value streamed
/// up to its end marker. In one pass over the text when a marker starts with a byte JSON escapes
/// (a newline, which a search for first bytes would stop at on every line).
pub fn escape_to_marker(input: &str, markers: &Markers, out: &mut String) -> Found {
    // The scan stops at the bytes JSON escapes and at one more byte: it must stop wherever a
    // marker may start.
    let mut stop = b'"';
    let mut stops_differ = false;
    // whether a marker starts with a byte JSON escapes (a newline): checked there too, and the
    // second byte of every such marker if they share it (a quick no at most newlines)
    let mut escaped_first = false;
    let mut second: Option<u8> = None;
    let mut seconds_differ = false;
    for m in markers.list.iter().map(|m| m.as_bytes()) {
        let Some(b) = m.first() else { continue };
        if escaped(*b) {
            escaped_first = true;
            match (m.get(1), second) {
                (Some(&c), None) if !seconds_differ => second = Some(c),
                (Some(&c), Some(d)) if c == d => {}
                _ => {
                    second = None;
                    seconds_differ = true;
                }
            }
        } else if stop != b'"' && stop != *b {
            stops_differ = true;
        } else {
            stop = *b;
        }
    }
    if stops_differ || (!escaped_first && input.len() >= FIND_MIN) {
        // Find, then escape: where no marker starts with a byte JSON escapes, on a long input,
        // `Markers::find` (a vectorised search for the first bytes) and then the escape are
        // quicker than stopping the escape scan at one more byte (measured on source-code values,
        // `<` or `]` first; on a streamed delta of a few bytes the one pass is); where two first
        // bytes are not escaped, one stop byte cannot catch both.
        let found = markers.find(input);
        let (Found::Marker { at: end, .. } | Found::Partial { safe: end }) = found;
        push_json_str_body(out, &input[..end]);
        return found;
    }
    let bytes = input.as_bytes();
    if input.len() >= FIND_MIN {
        // one allocation for the common case, as in `push_json_str_body` (not for a delta)
        out.reserve(input.len() + input.len() / 8);
    }
    let mut start = 0;
    let mut i = 0;
    loop {
        i += crate::json::safe_run(&bytes[i..], stop);
        let Some(&b) = bytes.get(i) else { break };
        let candidate = if b == stop {
            true
        } else if escaped_first {
            match (second, bytes.get(i + 1)) {
                (Some(c), Some(&next)) if next != c => false,
                _ => markers.starts_with_byte(b),
            }
        } else {
            false
        };
        if candidate {
            let found = match markers.at(&bytes[i..]) {
                At::Marker(which) => Some(Found::Marker { at: i, which }),
                At::Partial => Some(Found::Partial { safe: i }),
                At::None => None,
            };
            if let Some(found) = found {
                out.push_str(&input[start..i]);
                return found;
            }
        }
        if escaped(b) {
            out.push_str(&input[start..i]);
            push_escape(out, b);
            start = i + 1;
        }
        i += 1;
    }
    out.push_str(&input[start..]);
    Found::Partial { safe: input.len() }
}

/// Appends `s` as a quoted JSON string.
pub fn push_json_str(out: &mut String, s: &str) {
    out.push('"');
    push_json_str_body(out, s);
    out.push('"');
}

/// Appends the JSON text of a complete raw value of kind `kind` (see the module rules).
pub fn convert(kind: Kind, raw: &str, out: &mut String) {
    if let Kind::Union(mask) = kind {
        match union_text(mask, raw) {
            Some(s) => out.push_str(&s),
            None => push_json_str(out, raw),
        }
        return;
    }
    if kind != Kind::Str {
        let t = raw.trim_matches(crate::scan::is_ws);
        if t.eq_ignore_ascii_case("null") || t.eq_ignore_ascii_case("none") {
            out.push_str("null");
            return;
        }
        let done = match kind {
            Kind::Integer => integer_text(t).map(|s| out.push_str(&s)).is_some(),
            Kind::Number => number_text(t).map(|s| out.push_str(&s)).is_some(),
            Kind::Bool => {
                if t.eq_ignore_ascii_case("true") {
                    out.push_str("true");
                    true
                } else if t.eq_ignore_ascii_case("false") {
                    out.push_str("false");
                    true
                } else {
                    false
                }
            }
            Kind::Json | Kind::Str | Kind::Union(_) => {
                normalize_json(t).map(|s| out.push_str(&s)).is_some()
            }
        };
        if done {
            return;
        }
    }
    push_json_str(out, raw);
}

/// The JSON text of `raw` as the first admitted type of `mask` it parses as; `None`: the string.
fn union_text(mask: u8, raw: &str) -> Option<String> {
    let t = raw.trim_matches(crate::scan::is_ws);
    let has = |bit: u8| mask & bit != 0;
    if (t.eq_ignore_ascii_case("null") || t.eq_ignore_ascii_case("none"))
        && (has(T_NULL) || !has(T_STRING))
    {
        return Some("null".to_owned());
    }
    if has(T_INTEGER) {
        if let Some(s) = integer_text(t) {
            return Some(s);
        }
    }
    if has(T_NUMBER) {
        if let Some(s) = number_text(t) {
            return Some(s);
        }
    }
    if has(T_BOOL) {
        if t.eq_ignore_ascii_case("true") {
            return Some("true".to_owned());
        }
        if t.eq_ignore_ascii_case("false") {
            return Some("false".to_owned());
        }
    }
    if has(T_OBJECT | T_ARRAY | T_OTHER) {
        let s = normalize_json(t)?;
        let fits = (has(T_OBJECT) && s.starts_with('{'))
            || (has(T_ARRAY) && s.starts_with('['))
            || has(T_OTHER);
        return fits.then_some(s);
    }
    None
}

fn digits(s: &str) -> usize {
    s.bytes().take_while(u8::is_ascii_digit).count()
}

/// Where an optional exponent `[eE][+-]?[0-9]+` at `t[i..]` ends (`i` when there is none), or
/// `None` when it is cut short (`1e`, `1e+`).
fn exponent_end(t: &str, mut i: usize) -> Option<usize> {
    let b = t.as_bytes();
    if !matches!(b.get(i), Some(b'e' | b'E')) {
        return Some(i);
    }
    i += 1;
    if matches!(b.get(i), Some(b'+' | b'-')) {
        i += 1;
    }
    let e = digits(&t[i..]);
    (e > 0).then_some(i + e)
}

/// `[+-]?[0-9]+` written as Python's `int()` then `json.dumps` would write it.
fn integer_text(t: &str) -> Option<String> {
    let (neg, body) = match t.as_bytes().first() {
        Some(b'-') => (true, &t[1..]),
        Some(b'+') => (false, &t[1..]),
        _ => (false, t),
    };
    if body.is_empty() || digits(body) != body.len() {
        return None;
    }
    let d = body.trim_start_matches('0');
    let d = if d.is_empty() { "0" } else { d };
    Some(if neg && d != "0" {
        format!("-{d}")
    } else {
        d.to_owned()
    })
}

/// An integer, or `[+-]?(D+(.D*)?|.D+)([eE][+-]?D+)?` written as `repr(float(t))`.
fn number_text(t: &str) -> Option<String> {
    if let Some(s) = integer_text(t) {
        return Some(s);
    }
    let b = t.as_bytes();
    let mut i = usize::from(matches!(b.first(), Some(b'+' | b'-')));
    let int = digits(&t[i..]);
    i += int;
    let mut frac = 0;
    if b.get(i) == Some(&b'.') {
        i += 1;
        frac = digits(&t[i..]);
        i += frac;
    }
    if int + frac == 0 {
        return None;
    }
    i = exponent_end(t, i)?;
    if i != b.len() {
        return None;
    }
    let f: f64 = t.parse().ok()?;
    f.is_finite().then(|| float_repr(f))
}

/// Python's `repr(f)` for a finite float: the shortest digits that round-trip, positional when
/// the decimal exponent is in [-4, 16), else `d.ddde+XX` (at least two exponent digits); an
/// integral positional value ends in `.0`. Non-finite values give Python's `inf`/`-inf`/`nan`.
pub fn float_repr(f: f64) -> String {
    if f.is_nan() {
        return "nan".to_owned();
    }
    if f.is_infinite() {
        return if f < 0.0 { "-inf" } else { "inf" }.to_owned();
    }
    let sign = if f.is_sign_negative() { "-" } else { "" };
    if f == 0.0 {
        return format!("{sign}0.0");
    }
    // `{:e}` gives the shortest round-trip digits: `d[.ddd]e[-]x`. When several strings of that
    // length round-trip, Python picks the correctly rounded one (ties to even), which `{:.N e}`
    // gives exactly; Rust's shortest mode may pick another (e.g. 1801514316094494.25).
    let mut sci = format!("{:e}", f.abs());
    let n = sci
        .split('e')
        .next()
        .map_or(0, |m| m.chars().filter(char::is_ascii_digit).count());
    if n > 1 {
        let exact = format!("{:.*e}", n - 1, f.abs());
        if exact != sci && exact.parse::<f64>() == Ok(f.abs()) {
            sci = exact;
        }
    }
    let (mant, exp) = sci.split_once('e').unwrap_or((&sci, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    let digits: String = mant.chars().filter(char::is_ascii_digit).collect();
    // a float's repr has at most 17 significant digits
    let n = i32::try_from(digits.len()).unwrap_or(i32::MAX);
    let mut out = String::from(sign);
    if (-4..16).contains(&exp) {
        if exp < 0 {
            out.push_str("0.");
            for _ in 0..(-exp - 1) {
                out.push('0');
            }
            out.push_str(&digits);
        } else if n <= exp + 1 {
            out.push_str(&digits);
            for _ in 0..(exp + 1 - n) {
                out.push('0');
            }
            out.push_str(".0");
        } else {
            // 0 <= exp < 16 here, and n > exp + 1
            let (a, b) = digits.split_at(usize::try_from(exp + 1).unwrap_or(0));
            out.push_str(a);
            out.push('.');
            out.push_str(b);
        }
    } else {
        let (a, b) = digits.split_at(1);
        out.push_str(a);
        if !b.is_empty() {
            out.push('.');
            out.push_str(b);
        }
        out.push('e');
        out.push(if exp < 0 { '-' } else { '+' });
        let e = exp.unsigned_abs();
        if e < 10 {
            out.push('0');
        }
        out.push_str(&e.to_string());
    }
    out
}

/// A node of a parsed JSON value; children are indices into the arena.
#[derive(Debug)]
enum Node {
    /// `null`, `true`, `false`, or a number already normalised.
    Atom(String),
    Str(String),
    Arr(Vec<usize>),
    Obj(Vec<(String, usize)>),
}

/// An open container while parsing.
struct Open {
    node: usize,
    /// Object only: the key whose value is being parsed, and key -> entry position.
    key: Option<String>,
    seen: HashMap<String, usize>,
}

fn skip_ws(b: &[u8], mut i: usize) -> usize {
    while matches!(b.get(i), Some(b' ' | b'\t' | b'\n' | b'\r')) {
        i += 1;
    }
    i
}

/// A JSON string starting at the quote `t[i]`: (decoded, index after the closing quote).
fn json_string(t: &str, i: usize) -> Option<(String, usize)> {
    let mut s = String::new();
    match StrDecoder::new().feed(t.get(i + 1..)?, &mut s) {
        Step::Done(n) => Some((s, i + 1 + n)),
        _ => None,
    }
}

/// A JSON number starting at `t[i]`, normalised as Python writes `json.loads` of it.
fn json_number(t: &str, i: usize) -> Option<(String, usize)> {
    let b = t.as_bytes();
    let mut j = i + usize::from(b.get(i) == Some(&b'-'));
    let int = digits(&t[j..]);
    if int == 0 || (int > 1 && b[j] == b'0') {
        return None;
    }
    j += int;
    let mut float = false;
    if b.get(j) == Some(&b'.') {
        let f = digits(&t[j + 1..]);
        if f == 0 {
            return None;
        }
        j += 1 + f;
        float = true;
    }
    let end = exponent_end(t, j)?;
    float |= end != j;
    j = end;
    let text = &t[i..j];
    let s = if float {
        let f: f64 = text.parse().ok()?;
        if !f.is_finite() {
            return None;
        }
        float_repr(f)
    } else if text == "-0" {
        "0".to_owned()
    } else {
        text.to_owned()
    };
    Some((s, j))
}

/// `json.dumps(json.loads(t), ensure_ascii=False)`, or `None` when `t` is not one JSON value
/// (or holds a number Python would write as `Infinity`). Lone surrogate escapes become U+FFFD.
pub fn normalize_json(t: &str) -> Option<String> {
    let b = t.as_bytes();
    let mut nodes: Vec<Node> = Vec::new();
    let mut stack: Vec<Open> = Vec::new();
    let mut i = 0;
    let root;
    'value: loop {
        // A value is expected at `i`.
        i = skip_ws(b, i);
        let node = match b.get(i)? {
            b'{' | b'[' => {
                let obj = b[i] == b'{';
                nodes.push(if obj {
                    Node::Obj(Vec::new())
                } else {
                    Node::Arr(Vec::new())
                });
                let node = nodes.len() - 1;
                i = skip_ws(b, i + 1);
                if b.get(i) == Some(if obj { &b'}' } else { &b']' }) {
                    i += 1;
                    node
                } else {
                    let key = if obj {
                        let (k, j) = object_key(t, i)?;
                        i = j;
                        Some(k)
                    } else {
                        None
                    };
                    stack.push(Open {
                        node,
                        key,
                        seen: HashMap::new(),
                    });
                    continue 'value;
                }
            }
            b'"' => {
                let (s, j) = json_string(t, i)?;
                i = j;
                nodes.push(Node::Str(s));
                nodes.len() - 1
            }
            b't' | b'f' | b'n' => {
                let word = ["true", "false", "null"]
                    .into_iter()
                    .find(|w| t[i..].starts_with(w))?;
                i += word.len();
                nodes.push(Node::Atom(word.to_owned()));
                nodes.len() - 1
            }
            _ => {
                let (s, j) = json_number(t, i)?;
                i = j;
                nodes.push(Node::Atom(s));
                nodes.len() - 1
            }
        };
        // A value is complete: attach it, then read `,` or closing brackets.
        let mut done = node;
        loop {
            let Some(open) = stack.last_mut() else {
                root = done;
                break 'value;
            };
            match (&mut nodes[open.node], open.key.take()) {
                (Node::Obj(entries), Some(k)) => match open.seen.get(&k) {
                    Some(&at) => entries[at].1 = done,
                    None => {
                        open.seen.insert(k.clone(), entries.len());
                        entries.push((k, done));
                    }
                },
                (Node::Arr(items), _) => items.push(done),
                _ => return None,
            }
            let obj = matches!(nodes[open.node], Node::Obj(_));
            i = skip_ws(b, i);
            match b.get(i)? {
                b',' => {
                    i += 1;
                    if obj {
                        let (k, j) = object_key(t, skip_ws(b, i))?;
                        i = j;
                        open.key = Some(k);
                    }
                    continue 'value;
                }
                b'}' if obj => {}
                b']' if !obj => {}
                _ => return None,
            }
            i += 1;
            done = open.node;
            stack.pop();
        }
    }
    if skip_ws(b, i) != b.len() {
        return None;
    }
    Some(write_json(&nodes, root))
}

/// `"key"` then `:` at `t[i]`; returns the key and the index after the colon.
fn object_key(t: &str, i: usize) -> Option<(String, usize)> {
    if t.as_bytes().get(i) != Some(&b'"') {
        return None;
    }
    let (k, j) = json_string(t, i)?;
    let j = skip_ws(t.as_bytes(), j);
    (t.as_bytes().get(j) == Some(&b':')).then_some((k, j + 1))
}

/// Writes the arena value `root` with `", "` / `": "` separators, without recursion.
fn write_json(nodes: &[Node], root: usize) -> String {
    let mut out = String::new();
    // (container node, next child position)
    let mut stack: Vec<(usize, usize)> = Vec::new();
    let mut next = Some(root);
    loop {
        if let Some(n) = next.take() {
            match &nodes[n] {
                Node::Atom(s) => out.push_str(s),
                Node::Str(s) => push_json_str(&mut out, s),
                Node::Arr(items) if items.is_empty() => out.push_str("[]"),
                Node::Obj(entries) if entries.is_empty() => out.push_str("{}"),
                Node::Arr(_) => {
                    out.push('[');
                    stack.push((n, 0));
                }
                Node::Obj(_) => {
                    out.push('{');
                    stack.push((n, 0));
                }
            }
        }
        let Some((n, pos)) = stack.last_mut() else {
            return out;
        };
        let (child, len) = match &nodes[*n] {
            Node::Arr(items) => (items.get(*pos).map(|&c| (None, c)), items.len()),
            Node::Obj(entries) => (
                entries.get(*pos).map(|(k, c)| (Some(k.as_str()), *c)),
                entries.len(),
            ),
            _ => (None, 0),
        };
        match child {
            Some((key, c)) => {
                if *pos > 0 {
                    out.push_str(", ");
                }
                if let Some(k) = key {
                    push_json_str(&mut out, k);
                    out.push_str(": ");
                }
                *pos += 1;
                next = Some(c);
            }
            None => {
                out.push(if matches!(nodes[*n], Node::Obj(_)) {
                    '}'
                } else {
                    ']'
                });
                debug_assert!(*pos == len);
                stack.pop();
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn conv(kind: Kind, raw: &str) -> String {
        let mut s = String::new();
        convert(kind, raw, &mut s);
        s
    }

    #[test]
    fn kinds() {
        assert_eq!(kind_of(""), Kind::Str);
        assert_eq!(kind_of(" String "), Kind::Str);
        assert_eq!(kind_of("enum"), Kind::Str);
        assert_eq!(kind_of("integer"), Kind::Integer);
        assert_eq!(kind_of("uint64"), Kind::Integer);
        assert_eq!(kind_of("number"), Kind::Number);
        assert_eq!(kind_of("float"), Kind::Number);
        assert_eq!(kind_of("BOOLEAN"), Kind::Bool);
        assert_eq!(kind_of("object"), Kind::Json);
        assert_eq!(kind_of("array"), Kind::Json);
        assert_eq!(kind_of("null"), Kind::Json);
        let tools = Tools::new(
            [(
                "f".to_owned(),
                [
                    ("n".to_owned(), vec!["integer".to_owned()]),
                    (
                        "u".to_owned(),
                        vec!["integer".to_owned(), "null".to_owned()],
                    ),
                ]
                .into_iter()
                .collect(),
            )]
            .into_iter()
            .collect(),
        );
        assert_eq!(param_kind(&tools, "f", "n"), Kind::Integer);
        assert_eq!(
            param_kind(&tools, "f", "u"),
            Kind::Union(T_INTEGER | T_NULL)
        );
        assert_eq!(param_kind(&tools, "f", "x"), Kind::Str);
        assert_eq!(param_kind(&tools, "g", "n"), Kind::Str);
    }

    #[test]
    fn union_kinds() {
        let none: [&str; 0] = [];
        assert_eq!(kind_of_types(&none), Kind::Str);
        assert_eq!(kind_of_types(&["string", "str"]), Kind::Str);
        assert_eq!(kind_of_types(&["int", "integer"]), Kind::Integer);
        assert_eq!(kind_of_types(&["null"]), Kind::Json);
        assert_eq!(kind_of_types(&["object", "dict"]), Kind::Json);
        assert_eq!(
            kind_of_types(&["string", "null"]),
            Kind::Union(T_STRING | T_NULL)
        );
        assert_eq!(
            kind_of_types(&["object", "array", "foo"]),
            Kind::Union(T_OBJECT | T_ARRAY | T_OTHER)
        );
    }

    #[test]
    fn unions() {
        let u = |types: &[&str], raw: &str| conv(kind_of_types(types), raw);
        // ["integer", "null"]
        assert_eq!(u(&["integer", "null"], " 42\n"), "42");
        assert_eq!(u(&["integer", "null"], "null"), "null");
        assert_eq!(u(&["integer", "null"], "None"), "null");
        assert_eq!(u(&["integer", "null"], "abc"), "\"abc\"");
        // string admitted: null only where null is admitted too
        assert_eq!(u(&["integer", "string"], "5"), "5");
        assert_eq!(u(&["integer", "string"], "x5"), "\"x5\"");
        assert_eq!(u(&["integer", "string"], "null"), "\"null\"");
        assert_eq!(u(&["string", "null"], "null"), "null");
        assert_eq!(u(&["string", "null"], " a b "), "\" a b \"");
        // order: integer before number, number before boolean
        assert_eq!(u(&["number", "integer"], "07"), "7");
        assert_eq!(u(&["number", "integer"], "1.50"), "1.5");
        assert_eq!(u(&["number", "boolean"], "TRUE"), "true");
        assert_eq!(u(&["number", "boolean"], "2e1"), "20.0");
        assert_eq!(u(&["number", "boolean"], "yes"), "\"yes\"");
        // without string or null, null is null as for a single typed parameter
        assert_eq!(u(&["number", "boolean"], "null"), "null");
        // object and array accept only their own shape; an unknown name accepts any JSON
        assert_eq!(u(&["object", "array"], "{\"a\":[1]}"), "{\"a\": [1]}");
        assert_eq!(u(&["object", "array"], "[1,2]"), "[1, 2]");
        assert_eq!(u(&["object", "array"], "5"), "\"5\"");
        assert_eq!(u(&["object", "string"], "[1]"), "\"[1]\"");
        assert_eq!(u(&["array", "null"], "[]"), "[]");
        assert_eq!(u(&["object", "foo"], "5"), "5");
        assert_eq!(u(&["object", "string"], "{bad"), "\"{bad\"");
    }

    #[test]
    fn strings() {
        assert_eq!(conv(Kind::Str, "null"), "\"null\"");
        assert_eq!(
            conv(Kind::Str, "a\"b\\c\nd\re\tf\u{8}\u{c}\u{1}\u{1f}\u{7f}é🎉"),
            "\"a\\\"b\\\\c\\nd\\re\\tf\\b\\f\\u0001\\u001f\u{7f}é🎉\""
        );
    }

    #[test]
    fn escape_to_marker_is_find_then_escape() {
        // every short text over an alphabet of marker pieces, escapes and plain bytes, against
        // marker sets that take each path of the scan (newline markers sharing their second
        // byte or not, two plain first bytes, a marker a longer one extends)
        let sets: [&[&'static str]; 5] = [
            &["</p>", "\n</p>", "\n<p=", "\n</f>"],
            &["</a>"],
            &["\n<p", "\n\"x"],
            &["<a", "[b", "\""],
            &["<", "<<b"],
        ];
        let alphabet = [
            "<", "/", "p", "a", "f", ">", "=", "\n", "\"", "\\", "\u{1}", "é", "x", "[",
        ];
        for list in sets {
            let m = Markers::new(list);
            for n in 0..alphabet.len().pow(4) {
                let mut text = String::new();
                let mut k = n;
                for _ in 0..4 {
                    text.push_str(alphabet[k % alphabet.len()]);
                    k /= alphabet.len();
                }
                // and, for some, after a long run that holds no marker start (the long-input
                // path: find, then escape)
                let long = format!("{}{text}", "x\u{e9}\\\u{1}".repeat(FIND_MIN / 4));
                let texts = if n % 5 == 0 {
                    vec![text, long]
                } else {
                    vec![text]
                };
                for text in texts {
                    let (mut got, mut want) = (String::from("x"), String::from("x"));
                    let found = escape_to_marker(&text, &m, &mut got);
                    assert_eq!(found, m.find(&text), "{list:?} {text:?}");
                    let (Found::Marker { at: end, .. } | Found::Partial { safe: end }) = found;
                    push_json_str_body(&mut want, &text[..end]);
                    assert_eq!(got, want, "{list:?} {text:?}");
                }
            }
        }
    }

    #[test]
    fn scalars() {
        assert_eq!(conv(Kind::Integer, " 42 "), "42");
        assert_eq!(conv(Kind::Integer, "+007"), "7");
        assert_eq!(conv(Kind::Integer, "-0"), "0");
        assert_eq!(conv(Kind::Integer, "-12"), "-12");
        assert_eq!(conv(Kind::Integer, "1.5"), "\"1.5\"");
        assert_eq!(conv(Kind::Integer, "12a"), "\"12a\"");
        assert_eq!(conv(Kind::Integer, "None"), "null");
        assert_eq!(conv(Kind::Number, "1.50"), "1.5");
        assert_eq!(conv(Kind::Number, "1e5"), "100000.0");
        assert_eq!(conv(Kind::Number, "1e16"), "1e+16");
        assert_eq!(conv(Kind::Number, ".5"), "0.5");
        assert_eq!(conv(Kind::Number, "5."), "5.0");
        assert_eq!(conv(Kind::Number, "-0.0"), "-0.0");
        assert_eq!(conv(Kind::Number, "17"), "17");
        assert_eq!(conv(Kind::Number, "1e400"), "\"1e400\"");
        assert_eq!(conv(Kind::Number, "inf"), "\"inf\"");
        assert_eq!(conv(Kind::Number, "."), "\".\"");
        assert_eq!(conv(Kind::Number, "1e"), "\"1e\"");
        assert_eq!(conv(Kind::Bool, "True"), "true");
        assert_eq!(conv(Kind::Bool, " FALSE\n"), "false");
        assert_eq!(conv(Kind::Bool, "yes"), "\"yes\"");
        assert_eq!(conv(Kind::Bool, "NULL"), "null");
    }

    #[test]
    fn json_values() {
        assert_eq!(
            conv(
                Kind::Json,
                r#" {"a":1,"b" : [true,false,null,1.0E2,-0,"x\u00e9\ud83c\udf89"]} "#
            ),
            r#"{"a": 1, "b": [true, false, null, 100.0, 0, "xé🎉"]}"#
        );
        assert_eq!(conv(Kind::Json, "[]"), "[]");
        assert_eq!(conv(Kind::Json, "{}"), "{}");
        assert_eq!(conv(Kind::Json, "[[], {}, [{}]]"), "[[], {}, [{}]]");
        assert_eq!(
            conv(Kind::Json, r#"{"a": 1, "b": 2, "a": 3}"#),
            r#"{"a": 3, "b": 2}"#
        );
        assert_eq!(conv(Kind::Json, "\"\\ud800x\""), "\"\u{FFFD}x\"");
        assert_eq!(conv(Kind::Json, "5"), "5");
        for bad in [
            "[1,]",
            "{\"a\"}",
            "{'a': 1}",
            "[1] x",
            "01",
            "NaN",
            "[1e999]",
            "\"a\nb\"",
            "tru",
            "",
            "{\"a\":1,}",
            "[",
            "{",
        ] {
            assert_eq!(conv(Kind::Json, bad), {
                let mut s = String::new();
                push_json_str(&mut s, bad);
                s
            });
        }
    }

    #[allow(clippy::unreadable_literal)] // the values as Python's repr writes them
    #[test]
    fn float_repr_table() {
        let table: &[(f64, &str)] = &[
            (0.0, "0.0"),
            (-0.0, "-0.0"),
            (1.0, "1.0"),
            (1.5, "1.5"),
            (0.1, "0.1"),
            (100000.0, "100000.0"),
            (1e15, "1000000000000000.0"),
            (9999999999999998.0, "9999999999999998.0"),
            (1e16, "1e+16"),
            (1.5e16, "1.5e+16"),
            (123456789012345678.0, "1.2345678901234568e+17"),
            (1e-4, "0.0001"),
            (1.5e-4, "0.00015"),
            (1e-5, "1e-05"),
            (-2.5e-7, "-2.5e-07"),
            (1e100, "1e+100"),
            (1.7976931348623157e308, "1.7976931348623157e+308"),
            (5e-324, "5e-324"),
            (0.30000000000000004, "0.30000000000000004"),
            (123.456, "123.456"),
            // an exact tie between two 17-digit strings: Python rounds half to even
            (1801514316094494.0 + 0.25, "1801514316094494.2"),
            (f64::INFINITY, "inf"),
            (f64::NEG_INFINITY, "-inf"),
            (f64::NAN, "nan"),
        ];
        for (f, want) in table {
            assert_eq!(float_repr(*f), *want, "{f:e}");
        }
    }

    #[test]
    fn deep_nesting_does_not_overflow() {
        let depth = 200_000;
        let mut s = String::new();
        for _ in 0..depth {
            s.push_str("{\"a\":[");
        }
        for _ in 0..depth {
            s.push_str("]}");
        }
        let out = normalize_json(&s).unwrap_or_default();
        assert_eq!(out.len(), depth * "{\"a\": [".len() + depth * 2);
        assert!(out.starts_with("{\"a\": [{\"a\": ["));
        // Unbalanced deep input fails cleanly.
        assert!(normalize_json(&s[..s.len() - 1]).is_none());
    }
}
