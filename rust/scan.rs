//! Marker scanning across delta boundaries.
//!
//! A format looks for its markers in plain text. Text before a marker is safe to emit; a suffix of
//! the input that is a proper prefix of some marker is held back (it may still become that marker
//! when the next delta arrives), so hold-back is bounded by the longest marker.
//!
//! Where a machine must see a token whole before it can emit anything (a function name, the
//! whitespace between markup tokens, a call object's members before its name), the token is
//! capped: past the cap the markup is malformed and the text is content, as for any other
//! malformed markup. The caps count characters (Unicode scalar values, so the Python twin counts
//! the same), at the same place in the text however it was split into deltas:
//! - [`NAME_MAX`]: a function name, a keyword or a JSON key of a call object, as written;
//! - [`WS_MAX`]: one run of whitespace between markup tokens (not inside argument values);
//! - [`HOLD_MAX`]: the text of a JSON call region read before its call starts (members such as
//!   `"arguments"` may come before `"name"`), its start marker included.

/// The longest function name, keyword or call-object key read, in characters as written (escapes
/// count as written). OpenAI function names have at most 64.
pub const NAME_MAX: usize = 256;

/// The longest run of whitespace read between markup tokens, in characters.
pub const WS_MAX: usize = 4096;

/// The most text of a JSON call region held before its call starts (1 Mi characters).
pub const HOLD_MAX: usize = 1 << 20;

/// Whitespace as JSON and the formats understand it.
pub fn is_ws(c: char) -> bool {
    matches!(c, ' ' | '\t' | '\n' | '\r')
}

/// The byte offset of the `n`th character of `s` (`s.len()` when it has fewer).
pub fn char_end(s: &str, n: usize) -> usize {
    s.char_indices().nth(n).map_or(s.len(), |(b, _)| b)
}

/// A set of marker strings looked for together.
#[derive(Debug, Clone, Copy)]
pub struct Markers {
    pub list: &'static [&'static str],
}

/// Result of looking for markers in `input`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Found {
    /// Marker `which` starts at byte `at`.
    Marker { at: usize, which: usize },
    /// No marker; `input[..safe]` can never be part of one, `input[safe..]` might still become one.
    Partial { safe: usize },
}

impl Markers {
    pub const fn new(list: &'static [&'static str]) -> Self {
        Markers { list }
    }

    /// Finds the earliest marker in `input` (the longest one when several start at the same byte;
    /// while a longer one may still follow, the input from there is held back).
    pub fn find(&self, input: &str) -> Found {
        find_in(self.list, input)
    }

    /// What starts at the beginning of `rest` (a candidate position of [`Markers::find`]).
    pub fn at(&self, rest: &[u8]) -> At {
        at_in(self.list, rest)
    }

    /// Whether some marker starts with byte `b`.
    pub fn starts_with_byte(&self, b: u8) -> bool {
        self.list.iter().any(|m| m.as_bytes().first() == Some(&b))
    }

    /// Whether `input` (the start of some text) is a proper prefix of a marker.
    pub fn could_start(&self, input: &str) -> bool {
        self.list
            .iter()
            .any(|m| m.len() > input.len() && m.starts_with(input))
    }

    /// The marker `input` starts with, if any (the longest).
    pub fn starts(&self, input: &str) -> Option<usize> {
        let mut best: Option<usize> = None;
        for (i, m) in self.list.iter().enumerate() {
            if input.starts_with(m) && best.is_none_or(|b| self.list[b].len() < m.len()) {
                best = Some(i);
            }
        }
        best
    }
}

/// [`Markers::find`] over any list of markers (a list made at run time, such as the markup a
/// parser drops from content).
pub fn find_in(list: &[&str], input: &str) -> Found {
    let bytes = input.as_bytes();
    let mut from = 0;
    while let Some(at) = next_candidate(list, bytes, from) {
        match at_in(list, &bytes[at..]) {
            At::Marker(which) => return Found::Marker { at, which },
            At::Partial => return Found::Partial { safe: at },
            At::None => from = at + 1,
        }
    }
    Found::Partial { safe: input.len() }
}

/// [`Markers::at`] over any list of markers.
fn at_in(list: &[&str], rest: &[u8]) -> At {
    let mut best: Option<usize> = None;
    let mut partial = false;
    for (i, m) in list.iter().enumerate() {
        // one pass per marker: a full match, or the input ends inside the marker
        let m = m.as_bytes();
        let same = m.iter().zip(rest).take_while(|(a, b)| a == b).count();
        if same == m.len() {
            if best.is_none_or(|b| list[b].len() < m.len()) {
                best = Some(i);
            }
        } else if same == rest.len() {
            partial = true;
        }
    }
    // A marker that a longer one extends (xlam's `[` and `[TOOL_CALLS]`) waits until
    // the input shows which of them it is.
    match (best, partial) {
        (_, true) => At::Partial,
        (Some(which), false) => At::Marker(which),
        (None, false) => At::None,
    }
}

/// Next byte position at or after `from` where some marker's first byte occurs.
fn next_candidate(list: &[&str], bytes: &[u8], from: usize) -> Option<usize> {
    let hay = bytes.get(from..)?;
    let mut firsts = [0u8; 3];
    let mut n = 0;
    for m in list {
        let Some(&b) = m.as_bytes().first() else {
            continue;
        };
        if !firsts[..n].contains(&b) {
            if n == 3 {
                return hay
                    .iter()
                    .position(|c| list.iter().any(|m| m.as_bytes().first() == Some(c)))
                    .map(|p| p + from);
            }
            firsts[n] = b;
            n += 1;
        }
    }
    let p = match n {
        0 => None,
        1 => memchr::memchr(firsts[0], hay),
        2 => memchr::memchr2(firsts[0], firsts[1], hay),
        _ => memchr::memchr3(firsts[0], firsts[1], firsts[2], hay),
    };
    p.map(|p| p + from)
}

/// Removes every marker of `list` from `s` (the earliest first, the longest at a place): the
/// markup a parser drops wherever it stands in content, applied to a whole text at once.
pub fn strip_all(list: &[&str], s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut pos = 0;
    loop {
        match find_in(list, &s[pos..]) {
            Found::Marker { at, which } => {
                out.push_str(&s[pos..pos + at]);
                pos += at + list[which].len();
            }
            Found::Partial { .. } => {
                // (a suffix that could still become a marker is text: the text is whole)
                out.push_str(&s[pos..]);
                return out;
            }
        }
    }
}

/// What a candidate position of [`Markers::find`] holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum At {
    /// Marker `which` starts here (the longest, and no longer one may still follow).
    Marker(usize),
    /// The input ends inside a marker starting here: wait for more.
    Partial,
    /// No marker starts here.
    None,
}

/// Length of the leading JSON whitespace of `s`.
pub fn ws_len(s: &str) -> usize {
    s.len() - s.trim_start_matches(is_ws).len()
}

/// What `input` (after leading whitespace is skipped) holds with respect to `markers`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Expect {
    /// Marker `which` follows the whitespace; `end` is the byte after it.
    Marker { which: usize, end: usize },
    /// Only whitespace, or whitespace and a proper prefix of a marker: wait for more text.
    /// `ws` bytes of whitespace may be consumed.
    Wait { ws: usize },
    /// Something else starts at byte `at`.
    Other { at: usize },
}

/// Expects optional whitespace and then one of `markers` at the start of `input`.
pub fn expect(input: &str, markers: &Markers) -> Expect {
    let ws = ws_len(input);
    let rest = &input[ws..];
    if rest.is_empty() {
        return Expect::Wait { ws };
    }
    // A longer marker may still follow (xlam's ```` ``` ```` and ```` ```json ````): wait.
    if markers.could_start(rest) {
        return Expect::Wait { ws };
    }
    if let Some(which) = markers.starts(rest) {
        return Expect::Marker {
            which,
            end: ws + markers.list[which].len(),
        };
    }
    Expect::Other { at: ws }
}

/// The whitespace at the end of `s` (markup read since its last marker), in bytes (whitespace is
/// ASCII: bytes are characters).
pub fn trailing_ws(s: &str) -> usize {
    s.len() - s.trim_end_matches(is_ws).len()
}

/// [`expect`] where the whitespace continues a run of `held` characters read before `input`
/// (markup between tokens, capped by [`WS_MAX`]): a run that passes the cap before a marker is
/// `Other` at its end, as if other text stood there.
pub fn expect_capped(input: &str, markers: &Markers, held: usize) -> Expect {
    let e = expect(input, markers);
    let ws = match e {
        Expect::Marker { which, end } => end - markers.list[which].len(),
        Expect::Wait { ws } => ws,
        Expect::Other { .. } => return e,
    };
    if held + ws > WS_MAX {
        Expect::Other { at: ws }
    } else {
        e
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const M: Markers = Markers::new(&["<tool_call>", "</tool_call>"]);

    #[test]
    fn finds_and_holds() {
        assert_eq!(M.find("ab<tool_call>x"), Found::Marker { at: 2, which: 0 });
        assert_eq!(M.find("ab</tool_call>"), Found::Marker { at: 2, which: 1 });
        assert_eq!(M.find("ab<tool"), Found::Partial { safe: 2 });
        assert_eq!(M.find("a<b <x"), Found::Partial { safe: 6 });
        assert_eq!(M.find("a<b <"), Found::Partial { safe: 4 });
        assert_eq!(M.find(""), Found::Partial { safe: 0 });
    }

    #[test]
    fn a_marker_a_longer_one_extends_waits() {
        let m = Markers::new(&["[", "[TOOL_CALLS]", "```", "```json"]);
        assert_eq!(m.find("ab["), Found::Partial { safe: 2 });
        assert_eq!(m.find("ab[TOOL"), Found::Partial { safe: 2 });
        assert_eq!(m.find("ab[1"), Found::Marker { at: 2, which: 0 });
        assert_eq!(m.find("ab[TOOL_CALLS]"), Found::Marker { at: 2, which: 1 });
        assert_eq!(expect(" ```", &m), Expect::Wait { ws: 1 });
        assert_eq!(expect(" ```\n", &m), Expect::Marker { which: 2, end: 4 });
        assert_eq!(expect("```json", &m), Expect::Marker { which: 3, end: 7 });
    }

    #[test]
    fn multibyte_markers() {
        let m = Markers::new(&["<｜tool▁calls▁begin｜>"]);
        let s = "héllo <｜tool▁ca";
        match m.find(s) {
            Found::Partial { safe } => assert_eq!(&s[safe..], "<｜tool▁ca"),
            other @ Found::Marker { .. } => panic!("{other:?}"),
        }
    }

    #[test]
    fn expect_capped_ends_a_long_run() {
        let ws = " ".repeat(WS_MAX);
        assert_eq!(
            expect_capped(&format!("{ws}</tool_call>"), &M, 0),
            Expect::Marker {
                which: 1,
                end: WS_MAX + 12
            }
        );
        let input = format!("{ws}</tool_call>");
        assert_eq!(expect_capped(&input, &M, 1), Expect::Other { at: WS_MAX });
        assert_eq!(expect_capped("  ", &M, WS_MAX - 2), Expect::Wait { ws: 2 });
        assert_eq!(expect_capped("  ", &M, WS_MAX - 1), Expect::Other { at: 2 });
        assert_eq!(expect_capped(" x", &M, WS_MAX), Expect::Other { at: 1 });
        assert_eq!(trailing_ws("<a> \n"), 2);
    }

    #[test]
    fn expect_marker() {
        assert_eq!(
            expect("  </tool_call>x", &M),
            Expect::Marker { which: 1, end: 14 }
        );
        assert_eq!(expect("  </to", &M), Expect::Wait { ws: 2 });
        assert_eq!(expect(" x", &M), Expect::Other { at: 1 });
    }
}
