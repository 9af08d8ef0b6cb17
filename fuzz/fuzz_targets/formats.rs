//! Every format on arbitrary text: no panic, and the streamed result is the same for the whole
//! text, one char per delta, and splits chosen by the input; stream == non-stream when well formed;
//! truncated output keeps exactly the streamed calls that ended.
#![no_main]

#[path = "../common/feed.rs"]
mod feed;

use libfuzzer_sys::fuzz_target;
use toolparse::{Event, Format, Parser, Tools};

/// (content, reasoning, [(name, arguments, ended)], malformed, truncated)
type Run = (String, String, Vec<(String, String, bool)>, bool, bool);

fn run(f: Format, text: &str, cuts: &[usize]) -> Run {
    let mut p = Parser::new(f, &Tools::default());
    let events = feed::feed_cut(&mut p, text, cuts);
    let (mut content, mut reasoning, mut calls) = (String::new(), String::new(), Vec::new());
    for ev in events {
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

fuzz_target!(|data: &[u8]| {
    let Some((&sel, rest)) = data.split_first() else {
        return;
    };
    let Some((&stride, rest)) = rest.split_first() else {
        return;
    };
    let text = String::from_utf8_lossy(rest);
    let formats: Vec<Format> = Format::all().collect();
    let f = formats[sel as usize % formats.len()];
    let bounds = feed::char_bounds(&text);
    let whole = run(f, &text, &[]);
    assert_eq!(run(f, &text, &bounds), whole, "one char per delta");
    let step = (stride as usize % 7) + 1;
    let some: Vec<usize> = bounds.iter().copied().step_by(step).collect();
    assert_eq!(run(f, &text, &some), whole, "every {step} chars");
    let x = Parser::extract(f, &Tools::default(), &text);
    assert_eq!(x.truncated, whole.4);
    let calls: Vec<(String, String)> = x.calls.into_iter().map(|c| (c.name, c.arguments)).collect();
    let ended: Vec<(String, String)> = whole
        .2
        .iter()
        .filter(|c| c.2)
        .map(|c| (c.0.clone(), c.1.clone()))
        .collect();
    if !x.malformed && !x.truncated {
        assert_eq!(x.content.unwrap_or_default(), whole.0);
        assert_eq!(calls, ended);
    } else if !x.malformed {
        // truncated: the complete calls are the streamed calls that ended
        assert_eq!(calls, ended);
    }
});
