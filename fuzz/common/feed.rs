//! What the fuzz targets share (each includes this file with `#[path]`).

use toolparse::{Event, Parser};

/// The events of `p` fed `text` in the deltas `cuts` (ascending char boundaries) make, then
/// finished.
pub fn feed_cut(p: &mut Parser, text: &str, cuts: &[usize]) -> Vec<Event> {
    let mut events = Vec::new();
    let mut prev = 0;
    for &c in cuts.iter().chain(std::iter::once(&text.len())) {
        events.extend(p.feed(&text[prev..c]));
        prev = c;
    }
    events.extend(p.finish());
    events
}

/// Every char boundary strictly inside `text`: the cuts of one char per delta.
pub fn char_bounds(text: &str) -> Vec<usize> {
    (1..text.len())
        .filter(|&i| text.is_char_boundary(i))
        .collect()
}
