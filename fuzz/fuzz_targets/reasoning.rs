//! Every reasoning format, alone or paired with any tool format, on arbitrary text: no panic; the
//! streamed result is the same for the whole text, one char per delta and splits chosen by the
//! input; stream == non-stream when well formed; without a tool format nothing but markup is
//! dropped.
#![no_main]

#[path = "../common/feed.rs"]
mod feed;

use libfuzzer_sys::fuzz_target;
use toolparse::formats::Setup;
use toolparse::{Format, Parser, Reasoning, Tools};

fn run(setup: Setup, text: &str, cuts: &[usize]) -> feed::Run {
    feed::run(&mut Parser::with(setup, &Tools::default()), text, cuts)
}

fuzz_target!(|data: &[u8]| {
    let [r_sel, f_sel, flags, rest @ ..] = data else {
        return;
    };
    let text = String::from_utf8_lossy(rest);
    let names = Reasoning::names();
    let Some(&name) = names.get(*r_sel as usize % names.len().max(1)) else {
        return;
    };
    let Some(reasoning) = Reasoning::lookup(name) else {
        return;
    };
    let formats: Vec<Format> = Format::all().collect();
    // f_sel 0 (and every len+1-th value): no tool format
    let format = (*f_sel as usize % (formats.len() + 1))
        .checked_sub(1)
        .map(|i| formats[i]);
    let started = [None, Some(true), Some(false)][*flags as usize % 3];
    let setup = Setup {
        format,
        reasoning: Some(reasoning),
        started,
    };
    let bounds = feed::char_bounds(&text);
    let whole = run(setup, &text, &[]);
    assert_eq!(run(setup, &text, &bounds), whole, "one char per delta");
    let step = (*flags as usize / 3 % 7) + 1;
    let some: Vec<usize> = bounds.iter().copied().step_by(step).collect();
    assert_eq!(run(setup, &text, &some), whole, "every {step} chars");
    let x = Parser::extract_with(setup, &Tools::default(), &text);
    assert_eq!(x.truncated, whole.4);
    if !x.malformed && !x.truncated {
        assert_eq!(x.content.unwrap_or_default(), whole.0);
        assert_eq!(x.reasoning.unwrap_or_default(), whole.1);
        let calls: Vec<(String, String)> =
            x.calls.into_iter().map(|c| (c.name, c.arguments)).collect();
        assert_eq!(calls, feed::ended(&whole));
    }
    if format.is_none() {
        let prefix = reasoning.spec().content_prefix.len();
        assert!(
            whole.0.len() + whole.1.len() <= text.len() + prefix,
            "nothing but markup dropped"
        );
    }
});
