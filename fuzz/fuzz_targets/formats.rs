//! Every format on arbitrary text: no panic, and the streamed result is the same for the whole
//! text, one char per delta, and splits chosen by the input; stream == non-stream when well formed;
//! truncated output keeps exactly the streamed calls that ended.
#![no_main]

#[path = "../common/feed.rs"]
mod feed;

use libfuzzer_sys::fuzz_target;
use toolparse::{Format, Parser, Tools};

fn run(f: Format, text: &str, cuts: &[usize]) -> feed::Run {
    feed::run(&mut Parser::new(f, &Tools::default()), text, cuts)
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
    let ended = feed::ended(&whole);
    if !x.malformed && !x.truncated {
        assert_eq!(x.content.unwrap_or_default(), whole.0);
        assert_eq!(calls, ended);
    } else if !x.malformed {
        // truncated: the complete calls are the streamed calls that ended
        assert_eq!(calls, ended);
    }
});
