//! Randomised checks of the invariants over every reasoning format (no external crates), in the
//! style of `formats/invariants.rs`: random texts built from the reasoning format's markers, the
//! paired tool format's markers and a complete call; no panic; the streamed result is the same for
//! the whole text, one char per delta and random cuts; non-streaming equals it when well formed;
//! without a tool format nothing but markup is dropped.

use crate::event::{Event, Extracted};
use crate::formats::test_support::Rng;
use crate::formats::{Format, Parser, Setup, Tools};
use crate::reasoning::Reasoning;

const FILLER: &[&str] = &[
    "a", " ", "\n", "\t", "é", "🎉", "<", ">", "|", "/", "[", "]", "{", "}", "\"", ":", "1",
    "think",
];

/// A complete call per tool format, where the check knows one.
const CALLS: &[(&str, &str)] = &[
    (
        "hermes",
        r#"<tool_call>{"name": "f", "arguments": {"a": 1}}</tool_call>"#,
    ),
    ("mistral", r#"[TOOL_CALLS]f[ARGS]{"a": 1}"#),
    (
        "qwen3_coder",
        "<tool_call>\n<function=f>\n<parameter=a>\nx\n</parameter>\n</function>\n</tool_call>",
    ),
    (
        "kimi_k2",
        "<|tool_calls_section_begin|><|tool_call_begin|>functions.f:0<|tool_call_argument_begin|>\
         {\"a\": 1}<|tool_call_end|><|tool_calls_section_end|>",
    ),
    (
        "minimax_m2",
        "<minimax:tool_call>\n<invoke name=\"f\">\n<parameter name=\"a\">x</parameter>\n</invoke>\n\
         </minimax:tool_call>",
    ),
    (
        "glm45",
        "<tool_call>f\n<arg_key>a</arg_key>\n<arg_value>x</arg_value>\n</tool_call>",
    ),
    (
        "seed_oss",
        "<seed:tool_call>\n<function=f>\n<parameter=a>\nx\n</parameter>\n</function>\n\
         </seed:tool_call>",
    ),
];

/// The pieces a text for this pairing is made of.
fn pieces(r: Reasoning, f: Option<Format>) -> Vec<&'static str> {
    let spec = r.spec();
    let mut out: Vec<&'static str> = FILLER.to_vec();
    for m in spec.starts.iter().chain(spec.ends).chain(spec.call_starts) {
        out.push(m);
        // a proper prefix: a marker that never completes
        let mut cut = m.len() / 2;
        while !m.is_char_boundary(cut) {
            cut -= 1;
        }
        out.push(&m[..cut]);
    }
    if let Some(f) = f {
        out.extend(f.spec().markers.iter().map(|(_, m)| *m));
        if let Some((_, call)) = CALLS.iter().find(|(n, _)| *n == f.name()) {
            out.push(call);
            out.push(call);
        }
    }
    out
}

fn random_text(pieces: &[&str], rng: &mut Rng) -> String {
    (0..rng.below(14))
        .map(|_| pieces[rng.below(pieces.len())])
        .collect()
}

fn cuts<'a>(text: &'a str, rng: &mut Rng, k: usize) -> Vec<&'a str> {
    let bounds: Vec<usize> = (1..text.len())
        .filter(|&i| text.is_char_boundary(i))
        .collect();
    let mut at: Vec<usize> = (0..k)
        .filter(|_| !bounds.is_empty())
        .map(|_| bounds[rng.below(bounds.len())])
        .collect();
    at.sort_unstable();
    at.dedup();
    let mut out = Vec::new();
    let mut prev = 0;
    for c in at.into_iter().chain(std::iter::once(text.len())) {
        out.push(&text[prev..c]);
        prev = c;
    }
    out
}

/// The streamed events folded: (content, reasoning, [(name, arguments)]).
fn stream(setup: Setup, chunks: &[&str]) -> (String, String, Vec<(String, String)>) {
    let mut p = Parser::with(setup, &Tools::default());
    let mut events: Vec<Event> = Vec::new();
    for c in chunks {
        events.extend(p.feed(c));
    }
    events.extend(p.finish());
    let (mut content, mut reasoning, mut calls) = (String::new(), String::new(), Vec::new());
    for ev in events {
        match ev {
            Event::Content(t) | Event::Unfinished(t) => content.push_str(&t),
            Event::Reasoning(t) => reasoning.push_str(&t),
            Event::ToolStart { index, name, .. } => {
                assert_eq!(index, calls.len());
                calls.push((name, String::new()));
            }
            Event::ToolArgs { index, fragment } => calls[index].1.push_str(&fragment),
            Event::ToolEnd { .. } | Event::Dropped { .. } => {}
        }
    }
    (content, reasoning, calls)
}

fn check(setup: Setup, text: &str, rng: &mut Rng) {
    let whole = stream(setup, &[text]);
    let chars: Vec<String> = text.chars().map(String::from).collect();
    let chars: Vec<&str> = chars.iter().map(String::as_str).collect();
    assert_eq!(
        stream(setup, &chars),
        whole,
        "{setup:?} one char per delta: {text:?}"
    );
    for k in [1, 2, 5] {
        let parts = cuts(text, rng, k);
        assert_eq!(stream(setup, &parts), whole, "{setup:?} {parts:?}");
    }
    let x: Extracted = Parser::extract_with(setup, &Tools::default(), text);
    if !x.malformed && !x.truncated {
        assert_eq!(
            x.content.clone().unwrap_or_default(),
            whole.0,
            "{setup:?} {text:?}"
        );
        assert_eq!(
            x.reasoning.clone().unwrap_or_default(),
            whole.1,
            "{setup:?} {text:?}"
        );
        let calls: Vec<(String, String)> =
            x.calls.into_iter().map(|c| (c.name, c.arguments)).collect();
        assert_eq!(calls, whole.2, "{setup:?} {text:?}");
    }
    if setup.format.is_none() {
        let r = setup.reasoning.map(Reasoning::spec);
        let prefix = r.map_or(0, |s| s.content_prefix.len());
        // nothing lost but markup: what is kept is the text less markers (and trimmed runs)
        assert!(
            whole.0.len() + whole.1.len() <= text.len() + prefix,
            "{setup:?} {text:?}"
        );
        if r.is_some_and(|s| !s.trim && s.content_prefix.is_empty())
            && !text.contains(['<', '[', 'H', '◁', '|'])
        {
            // no marker can occur: every character is reasoning or content
            assert_eq!(
                whole.0.len() + whole.1.len(),
                text.len(),
                "{setup:?} {text:?}"
            );
        }
    }
}

/// Iterations per pairing; `TOOLPARSE_FUZZ_ITERATIONS` raises it for a longer local run.
const ITERATIONS: usize = 150;

#[test]
fn random_texts_are_split_invariant_for_every_reasoning_format() {
    let n: usize = std::env::var("TOOLPARSE_FUZZ_ITERATIONS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(ITERATIONS);
    let mut rng = Rng(0x2545_F491_4F6C_DD1D);
    let formats: Vec<Format> = Format::all().collect();
    for spec in Reasoning::all() {
        if spec.tool_format.is_some() {
            continue;
        }
        let r = Reasoning::lookup(spec.name).unwrap_or_else(|| panic!("{}", spec.name));
        // no tool format, the reasoning format's namesake (if registered), and one more
        let mut pairs = vec![None, Format::from_name(spec.name)];
        pairs.push(Some(formats[rng.below(formats.len())]));
        pairs.dedup();
        for f in pairs {
            let pieces = pieces(r, f);
            for started in [None, Some(true), Some(false)] {
                let setup = Setup {
                    format: f,
                    reasoning: Some(r),
                    started,
                };
                for _ in 0..n {
                    let text = random_text(&pieces, &mut rng);
                    check(setup, &text, &mut rng);
                }
            }
        }
    }
}
