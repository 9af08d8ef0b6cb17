//! What the randomised tests share: a small xorshift generator (no external crates) and the
//! random edits their texts are built with.

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
}
