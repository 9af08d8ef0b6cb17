//! What the randomised tests share: a small xorshift generator (no external crates), the
//! random edits their texts are built with, and a parser fed a text in given deltas.

use crate::event::Event;
use crate::formats::Parser;

/// A xorshift64 generator; the same seed gives the same texts on every run.
pub(crate) struct Rng(pub(crate) u64);

impl Rng {
    pub(crate) fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    /// A number in `0..n`.
    pub(crate) fn below(&mut self, n: usize) -> usize {
        usize::try_from(self.next() % n as u64).unwrap_or(0)
    }

    /// A random char boundary of `s`: a byte position in `0..=s.len()` moved back to one.
    pub(crate) fn boundary(&mut self, s: &str) -> usize {
        let mut at = self.below(s.len() + 1);
        while !s.is_char_boundary(at) {
            at -= 1;
        }
        at
    }

    /// Inserts one of `pieces` at a random char boundary of `s` (the place drawn first).
    pub(crate) fn insert_piece(&mut self, s: &mut String, pieces: &[&str]) {
        let at = self.boundary(s);
        s.insert_str(at, pieces[self.below(pieces.len())]);
    }

    /// Random edits of `s`, fewer than `most` (how many drawn first), each at a random char
    /// boundary (the place drawn first): one time in four the char there is removed (if there is
    /// one), else one of `pieces` is inserted.
    pub(crate) fn edits(&mut self, s: &mut String, pieces: &[&str], most: usize) {
        for _ in 0..self.below(most) {
            let at = self.boundary(s);
            let remove = self.below(4) == 0;
            match s[at..].chars().next() {
                Some(c) if remove => s.replace_range(at..at + c.len_utf8(), ""),
                _ => s.insert_str(at, pieces[self.below(pieces.len())]),
            }
        }
    }
}

/// The events of `p` fed `text` in deltas that end at `cuts` (ascending char boundaries) and at
/// its end, then finished.
pub(crate) fn feed_cut(p: &mut Parser, text: &str, cuts: &[usize]) -> Vec<Event> {
    let starts = std::iter::once(0).chain(cuts.iter().copied());
    let ends = cuts.iter().copied().chain(std::iter::once(text.len()));
    let mut events: Vec<Event> = starts
        .zip(ends)
        .flat_map(|(a, b)| p.feed(&text[a..b]))
        .collect();
    events.extend(p.finish());
    events
}

/// Every char boundary strictly inside `text`: the cuts of one char per delta.
pub(crate) fn char_bounds(text: &str) -> Vec<usize> {
    (1..text.len())
        .filter(|&i| text.is_char_boundary(i))
        .collect()
}
