//! What the fuzz targets share (each includes this file with `#[path]`).

use toolparse::{Event, Parser};

/// What a run streamed: (content, reasoning, [(name, arguments, ended)], malformed, truncated).
pub type Run = (String, String, Vec<(String, String, bool)>, bool, bool);

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

/// What `p` streams for `text` fed in the deltas `cuts`, put together as a client would.
pub fn run(p: &mut Parser, text: &str, cuts: &[usize]) -> Run {
    let (mut content, mut reasoning, mut calls) = (String::new(), String::new(), Vec::new());
    for ev in feed_cut(p, text, cuts) {
        match ev {
            // The markup of a call the text ended inside: a stream sends it as content.
            Event::Content(t) | Event::Unfinished(t) => content.push_str(&t),
            Event::Reasoning(t) => reasoning.push_str(&t),
            Event::ToolStart { name, .. } => calls.push((name, String::new(), false)),
            Event::ToolArgs { index, fragment } => calls[index].1.push_str(&fragment),
            Event::ToolEnd { index } => calls[index].2 = true,
            // A call dropped after it started never ends; the non-streaming result leaves it out.
            Event::Dropped { .. } => {}
        }
    }
    (content, reasoning, calls, p.malformed(), p.truncated())
}

/// The calls of a run that ended, as (name, arguments).
pub fn ended(run: &Run) -> Vec<(String, String)> {
    run.2
        .iter()
        .filter(|c| c.2)
        .map(|c| (c.0.clone(), c.1.clone()))
        .collect()
}
