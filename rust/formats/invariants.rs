//! Randomised checks of the invariants over every registered format (no external crates): for
//! random texts built from marker pieces, JSON and Python fragments, no panic, and the streamed
//! result is the same for every split and equal to the non-streaming one.

use super::test_support::Rng;
use super::{Format, Parser, Tools};
use crate::event::{Delta, Event, Extracted};

/// Pieces random texts are made of: every format's markers and the syntax inside them.
const PIECES: &[&str] = &[
    "<tool_call>",
    "</tool_call>",
    "<tool_",
    "[TOOL_CALLS]",
    "[ARGS]",
    "<|python_tag|>",
    "<|python_start|>",
    "<|python_end|>",
    "<|channel|>",
    "<|message|>",
    "<|start|>",
    "<|end|>",
    "<|call|>",
    "<|return|>",
    "<|constrain|>",
    "analysis",
    "final",
    "commentary",
    " to=functions.f",
    "json",
    "assistant",
    "<function=f>",
    "</function>",
    "<parameter=a>",
    "</parameter>",
    "<function=",
    "<parameter=",
    "<seed:tool_call>",
    "<minimax:tool_call>",
    "<invoke name=\"f\">",
    "</invoke>",
    "<parameter name=\"a\">",
    "<arg_key>a</arg_key>",
    "<arg_value>",
    "</arg_value>",
    "<steptml:invoke name=\"f\">",
    "<steptml:parameter name=\"a\">",
    "</steptml:parameter>",
    "<｜tool_calls_begin｜><｜tool_call_begin｜>function<｜tool_sep｜>",
    "<｜tool_call_end｜>",
    "<｜DSML｜function_calls>",
    "<｜DSML｜invoke name=\"f\">",
    "<｜DSML｜parameter name=\"a\" string=\"false\">",
    "</｜DSML｜parameter>",
    "</｜DSML｜invoke>",
    "<|eom|>",
    "<|eot|>",
    " to=self",
    "to=user",
    "t",
    "<atem:function_calls>",
    "<atem:invoke name=\"f\">",
    "<atem:parameter name=\"a\">",
    "</atem:parameter>",
    "</atem:invoke>",
    "{",
    "}",
    "[",
    "]",
    "(",
    ")",
    "\"name\"",
    "\"arguments\"",
    "\"parameters\"",
    ": ",
    ":",
    ", ",
    ",",
    "\"f\"",
    "\"g\"",
    "1",
    "-2.5e3",
    "true",
    "null",
    "\"x\\u00e9\\ud83c\\udf89\"",
    "\\",
    "\"",
    "'",
    "'s'",
    " ",
    "\n",
    "a",
    "é",
    "🎉",
    "<",
    ">",
    "|",
    "=",
    "f(",
    "a=",
    "True",
    "None",
    ";",
    "; ",
    "b",
    "x",
    "\t",
    "<start_function_call>",
    "<end_function_call>",
    "<escape>",
    "call:",
    "call:f{",
];

fn valid_text(f: Format, rng: &mut Rng) -> String {
    let name = ["f", "get_weather", "g"][rng.below(3)];
    let args = [
        r#"{"a": 1}"#,
        r"{}",
        r#"{"s": "x\"y\\z\u00e9 🎉", "n": [1, 2.5, true, null, {"k": []}]}"#,
    ][rng.below(3)];
    let body = match f.name() {
        "hermes" => format!(r#"<tool_call>{{"name": "{name}", "arguments": {args}}}</tool_call>"#),
        "mistral" => format!("[TOOL_CALLS]{name}{args}"),
        "llama3_json" => format!(r#"<|python_tag|>{{"name": "{name}", "parameters": {args}}}"#),
        "qwen3_coder" => {
            format!("<tool_call>\n<function={name}>\n<parameter=a>\nx\n</parameter>\n</function>\n</tool_call>")
        }
        "seed_oss" => format!(
            "<seed:tool_call>\n<function={name}>\n<parameter=a>\nx\n</parameter>\n</function>\n</seed:tool_call>"
        ),
        "minimax_m2" => format!(
            "<minimax:tool_call>\n<invoke name=\"{name}\">\n<parameter name=\"a\">x</parameter>\n</invoke>\n</minimax:tool_call>"
        ),
        "glm45" | "glm47" => {
            format!("<tool_call>{name}\n<arg_key>a</arg_key>\n<arg_value>x</arg_value>\n</tool_call>")
        }
        "step3" => format!(
            "<｜tool_calls_begin｜><｜tool_call_begin｜>function<｜tool_sep｜><steptml:invoke name=\"{name}\">\
             <steptml:parameter name=\"a\">x</steptml:parameter></steptml:invoke><｜tool_call_end｜><｜tool_calls_end｜>"
        ),
        "deepseek_v32" => format!(
            "<｜DSML｜function_calls><｜DSML｜invoke name=\"{name}\"><｜DSML｜parameter name=\"a\" string=\"false\">\
             {args}</｜DSML｜parameter></｜DSML｜invoke></｜DSML｜function_calls>"
        ),
        "openai" => format!(
            "<|channel|>commentary to=functions.{name} <|constrain|>json<|message|>{args}<|call|>"
        ),
        "pythonic" => format!("[{name}(a=1, b='x')]"),
        "llama4_pythonic" => format!("<|python_start|>[{name}(a=1)]<|python_end|>"),
        "functiongemma" => format!(
            "<start_function_call>call:{name}{{a:<escape>x\"y é<escape>,n:[1,-2.5e3,{{k:true}}]}}<end_function_call>"
        ),
        _ => String::new(),
    };
    format!("Hi. {body}")
}

fn random_text(f: Format, rng: &mut Rng) -> String {
    let mut s = if rng.below(2) == 0 {
        valid_text(f, rng)
    } else {
        String::new()
    };
    // mutate or extend with random pieces
    for _ in 0..rng.below(12) {
        let piece = PIECES[rng.below(PIECES.len())];
        let at = rng.boundary(&s);
        if rng.below(4) == 0 && at < s.len() {
            let mut end = at + 1;
            while !s.is_char_boundary(end) {
                end += 1;
            }
            s.replace_range(at..end, "");
        } else {
            s.insert_str(at, piece);
        }
    }
    s
}

/// A stream's result, checked on the way (call indices, unfinished markup only when truncated).
#[derive(Debug, PartialEq, Eq)]
pub(super) struct Streamed {
    pub(super) content: String,
    /// The markup of a call the text ended inside (sent as content).
    pub(super) unfinished: String,
    pub(super) reasoning: String,
    /// (name, arguments, ended)
    pub(super) calls: Vec<(String, String, bool)>,
    /// The indices of dropped calls (not calls: they never end, the non-streaming result leaves
    /// them out).
    pub(super) dropped: Vec<usize>,
    pub(super) malformed: bool,
    pub(super) truncated: bool,
}

fn stream(f: Format, text: &str, cuts: &[usize]) -> Streamed {
    stream_with(f, &Tools::default(), text, cuts)
}

/// `text` streamed cut at `cuts` through the `Delta` path (`feed_delta`/`finish_delta`), as the
/// bindings read it.
#[derive(Debug, PartialEq, Eq)]
pub(super) struct DeltaStreamed {
    pub(super) content: String,
    pub(super) reasoning: String,
    /// (id, name, arguments)
    pub(super) calls: Vec<(Option<String>, String, String)>,
    pub(super) malformed: bool,
    pub(super) truncated: bool,
}

impl DeltaStreamed {
    /// Stream == non-stream: `x` (the same text extracted whole) has this content, reasoning and
    /// calls (ids included).
    pub(super) fn assert_extracts_as(&self, x: Extracted, what: &str) {
        assert_eq!(x.content.unwrap_or_default(), self.content, "{what}");
        assert_eq!(x.reasoning.unwrap_or_default(), self.reasoning, "{what}");
        let calls: Vec<_> = x
            .calls
            .into_iter()
            .map(|c| (c.id, c.name, c.arguments))
            .collect();
        assert_eq!(calls, self.calls, "{what}");
    }
}

/// The registered format `name`.
pub(super) fn format_named(name: &str) -> Format {
    Format::from_name(name).unwrap_or_else(|| panic!("{name} not registered"))
}

/// `text` read whole by format `name`, with no tools.
pub(super) fn extract_named(name: &str, text: &str) -> Extracted {
    Parser::extract(format_named(name), &Tools::default(), text)
}

pub(super) fn stream_deltas(f: Format, tools: &Tools, text: &str, cuts: &[usize]) -> DeltaStreamed {
    let mut p = Parser::new(f, tools);
    let mut deltas: Vec<Delta> = Vec::new();
    let mut prev = 0;
    for &c in cuts.iter().chain(std::iter::once(&text.len())) {
        deltas.extend(p.feed_delta(&text[prev..c]));
        prev = c;
    }
    deltas.extend(p.finish_delta());
    let mut s = DeltaStreamed {
        content: String::new(),
        reasoning: String::new(),
        calls: Vec::new(),
        malformed: p.malformed(),
        truncated: p.truncated(),
    };
    for d in deltas {
        s.content.push_str(d.content.as_deref().unwrap_or(""));
        s.reasoning.push_str(d.reasoning.as_deref().unwrap_or(""));
        for c in d.calls {
            if let Some((id, name)) = c.start {
                s.calls.push((id, name, String::new()));
            }
            if let Some(last) = s.calls.last_mut() {
                last.2.push_str(c.args.as_deref().unwrap_or(""));
            }
        }
    }
    s
}

/// Streams `text` to format `f` with `tools`, cut at `cuts`.
pub(super) fn stream_with(f: Format, tools: &Tools, text: &str, cuts: &[usize]) -> Streamed {
    let mut p = Parser::new(f, tools);
    let mut events: Vec<Event> = Vec::new();
    let mut prev = 0;
    for &c in cuts.iter().chain(std::iter::once(&text.len())) {
        events.extend(p.feed(&text[prev..c]));
        prev = c;
    }
    events.extend(p.finish());
    let mut s = Streamed {
        content: String::new(),
        unfinished: String::new(),
        reasoning: String::new(),
        calls: Vec::new(),
        dropped: Vec::new(),
        malformed: p.malformed(),
        truncated: p.truncated(),
    };
    for ev in events {
        match ev {
            Event::Content(t) => {
                assert!(s.unfinished.is_empty(), "content after unfinished markup");
                s.content.push_str(&t);
            }
            Event::Unfinished(t) => s.unfinished.push_str(&t),
            Event::Reasoning(t) => s.reasoning.push_str(&t),
            Event::ToolStart { index, name, .. } => {
                assert_eq!(
                    index,
                    s.calls.len(),
                    "indices start at 0 and increase by one"
                );
                s.calls.push((name, String::new(), false));
            }
            Event::ToolArgs { index, fragment } => s.calls[index].1.push_str(&fragment),
            Event::ToolEnd { index } => s.calls[index].2 = true,
            Event::Dropped { index } => s.dropped.push(index),
        }
    }
    if !s.truncated {
        assert!(s.unfinished.is_empty(), "unfinished markup, not truncated");
        assert!(
            s.calls
                .iter()
                .enumerate()
                .all(|(i, c)| c.2 || s.dropped.contains(&i)),
            "a call never ended, not truncated"
        );
    }
    s
}

fn char_cuts(text: &str, rng: &mut Rng, k: usize) -> Vec<usize> {
    let bounds: Vec<usize> = (1..text.len())
        .filter(|&i| text.is_char_boundary(i))
        .collect();
    if bounds.is_empty() {
        return Vec::new();
    }
    let mut cuts: Vec<usize> = (0..k).map(|_| bounds[rng.below(bounds.len())]).collect();
    cuts.sort_unstable();
    cuts.dedup();
    cuts
}

fn check(f: Format, text: &str, rng: &mut Rng) {
    let whole = stream(f, text, &[]);
    let every: Vec<usize> = (1..text.len())
        .filter(|&i| text.is_char_boundary(i))
        .collect();
    assert_eq!(
        stream(f, text, &every),
        whole,
        "{}: one char per delta differs for {text:?}",
        f.name()
    );
    for k in [1, 3, 8] {
        let cuts = char_cuts(text, rng, k);
        assert_eq!(
            stream(f, text, &cuts),
            whole,
            "{}: split at {cuts:?} differs for {text:?}",
            f.name()
        );
    }
    let x: Extracted = Parser::extract(f, &Tools::default(), text);
    assert_eq!(x.truncated, whole.truncated, "{}: {text:?}", f.name());
    // Malformed, or truncated before any call completed: the caller returns the text whole.
    let fallback = x.malformed || (x.truncated && x.calls.is_empty());
    if !fallback {
        assert_eq!(
            x.content.unwrap_or_default(),
            whole.content,
            "{}: {text:?}",
            f.name()
        );
        let calls: Vec<(String, String)> =
            x.calls.into_iter().map(|c| (c.name, c.arguments)).collect();
        let complete: Vec<(String, String)> = whole
            .calls
            .iter()
            .enumerate()
            .filter(|(i, c)| c.2 && !whole.dropped.contains(i))
            .map(|(_, c)| c)
            .map(|c| (c.0.clone(), c.1.clone()))
            .collect();
        assert_eq!(calls, complete, "{}: {text:?}", f.name());
        for (_, args) in &calls {
            assert!(
                crate::json::is_json(args),
                "{}: bad arguments {args:?}",
                f.name()
            );
        }
    }
}

/// Iterations per format; `TOOLPARSE_FUZZ_ITERATIONS` raises it for a longer local run.
const ITERATIONS: usize = 3000;

#[test]
fn random_texts_are_split_invariant_for_every_format() {
    let n: usize = std::env::var("TOOLPARSE_FUZZ_ITERATIONS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(ITERATIONS);
    let seed = std::env::var("TOOLPARSE_FUZZ_SEED")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(0x9E37_79B9_7F4A_7C15);
    let mut rng = Rng(seed);
    for f in Format::all() {
        for _ in 0..n {
            let text = random_text(f, &mut rng);
            check(f, &text, &mut rng);
        }
    }
}

#[test]
fn valid_outputs_survive_truncation_at_every_offset() {
    let mut rng = Rng(42);
    for f in Format::all() {
        let text = valid_text(f, &mut rng) + " bye";
        for end in (0..=text.len()).filter(|&i| text.is_char_boundary(i)) {
            check(f, &text[..end], &mut rng);
        }
    }
}
