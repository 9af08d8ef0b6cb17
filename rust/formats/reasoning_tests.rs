//! The reasoning front, alone and run by the driver with a tool format's machine.

use crate::event::{Emitter, Event};
use crate::formats::Format;
use crate::reasoning::*;

fn run(r: &str, f: Option<&str>, started: Option<bool>, chunks: &[&str]) -> (String, String) {
    let r = Reasoning::lookup(r).unwrap_or_else(|| panic!("{r}"));
    let f = f.map(|n| Format::from_name(n).unwrap_or_else(|| panic!("{n}")));
    let mut front = r
        .front(f.map(Format::spec), started)
        .unwrap_or_else(|| panic!("front"));
    let mut out = Emitter::new();
    let mut machine = String::new();
    let mut done = false;
    for c in chunks {
        if done {
            machine.push_str(c);
        } else if let Some(rest) = front.feed(c, &mut out) {
            machine.push_str(&rest);
            done = true;
        }
    }
    if !done {
        machine.push_str(&front.finish(&mut out));
    }
    let reasoning: String = out
        .take()
        .into_iter()
        .map(|e| match e {
            Event::Reasoning(s) => s,
            other => panic!("{other:?}"),
        })
        .collect();
    (reasoning, machine)
}

#[test]
fn block_then_text_under_every_split() {
    let text = "\n<think>a<b</think>\nc";
    for i in 0..=text.len() {
        if !text.is_char_boundary(i) {
            continue;
        }
        let parts = [&text[..i], &text[i..]];
        let (r, m) = run("qwen3", Some("hermes"), Some(false), &parts);
        assert_eq!((r.as_str(), m.as_str()), ("a<b", "\nc"), "split at {i}");
        let (r, m) = run("qwen3", Some("hermes"), Some(true), &parts);
        assert_eq!((r.as_str(), m.as_str()), ("\na<b", "\nc"), "split at {i}");
    }
}

#[test]
fn call_start_ends_the_block() {
    let (r, m) = run(
        "qwen3",
        Some("hermes"),
        None,
        &["x<tool", "_call>{}</think>"],
    );
    assert_eq!((r.as_str(), m.as_str()), ("x", "<tool_call>{}</think>"));
    let (r, m) = run("qwen3", None, None, &["x<tool_call>y"]);
    assert_eq!((r.as_str(), m.as_str()), ("x", "<tool_call>y"));
}

#[test]
fn no_block_and_unclosed_block() {
    let (r, m) = run("qwen3", Some("hermes"), Some(false), &["  hi</think>"]);
    assert_eq!((r.as_str(), m.as_str()), ("", "  hi</think>"));
    let (r, m) = run("deepseek_r1", None, None, &["<think>a<think>b</thi"]);
    assert_eq!((r.as_str(), m.as_str()), ("ab</thi", ""));
    let ws = " ".repeat(LEAD_CAP + 1);
    let (r, m) = run("mistral", None, None, &[&ws, "[THINK]"]);
    assert_eq!((r.as_str(), m), ("", format!("{ws}[THINK]")));
}

#[test]
fn alternates_trim_and_prefix() {
    // granite's other spelling of both markers
    let (r, m) = run(
        "granite",
        None,
        None,
        &["Here's my thought process: a Here's my ", "response: b"],
    );
    assert_eq!((r.as_str(), m.as_str()), (" a ", " b"));
    // gemma4: the longer opener waits until the text shows which it is
    for parts in [
        &["<|channel>", "thought\nr<channel|>c"][..],
        &["<|channel>thought\nr<channel|>c"],
    ] {
        let (r, m) = run("gemma4", None, None, parts);
        assert_eq!((r.as_str(), m.as_str()), ("r", "c"));
    }
    // trim: a short run of whitespace that ends the reasoning is dropped, a longer one kept
    let (r, m) = run("kimi_k2", None, None, &["a \n", "\t</think>c"]);
    assert_eq!((r.as_str(), m.as_str()), ("a", "c"));
    let ws = " ".repeat(TRAIL_CAP + 1);
    let (r, m) = run(
        "kimi_k2",
        None,
        None,
        &["a", &ws[..10], &ws[10..], "</think>c"],
    );
    assert_eq!((r, m.as_str()), (format!("a{ws}"), "c"));
    let (r, m) = run("kimi_k2", None, None, &["a  b  "]);
    assert_eq!((r.as_str(), m.as_str()), ("a  b", ""));
    // prefix: nothing is reasoning; the prefix is content before the output
    let r = Reasoning::lookup("minimax-append-think").unwrap_or_else(|| panic!("alias"));
    let mut front = r.front(None, None).unwrap_or_else(|| panic!("front"));
    let mut out = Emitter::new();
    assert_eq!(
        front.feed("a</think>b", &mut out).as_deref(),
        Some("a</think>b")
    );
    assert_eq!(out.take(), vec![Event::Content("<think>".to_owned())]);
}

#[test]
fn names_and_transparent_harmony() {
    assert_eq!(
        Reasoning::lookup("deepseek-r1").map(Reasoning::name),
        Some("deepseek_r1")
    );
    let gptoss = Reasoning::lookup("gpt-oss");
    assert_eq!(gptoss.map(Reasoning::name), Some("openai_gptoss"));
    assert!(gptoss.and_then(|r| r.front(None, None)).is_none());
    assert_eq!(
        gptoss.and_then(Format::of_reasoning).map(Format::name),
        Some("openai")
    );
    assert!(Reasoning::lookup("nope").is_none());
    for s in Reasoning::all() {
        assert_eq!(Reasoning::lookup(s.name).map(Reasoning::name), Some(s.name));
    }
}

/// The driver with a front: every single cut and one char per delta give the whole text's
/// result, which non-streaming gives too.
#[test]
fn driver_is_split_invariant() {
    use crate::formats::{Parser, Setup, Tools};
    let call = r#"<tool_call>{"name": "f", "arguments": {"a": 1}}</tool_call>"#;
    let texts = [
        format!("<think>a</think>\n{call}"),
        format!(" <think>é<b{call}x"),
        format!("plan</think>ok{call}</think>"),
        "<thi".to_owned(),
        "<think>never closed </th".to_owned(),
    ];
    for (fmt, r) in [
        (Some("hermes"), "qwen3"),
        (None, "deepseek_r1"),
        (Some("hermes"), "glm45"),
    ] {
        for started in [None, Some(true), Some(false)] {
            let setup = Setup {
                format: fmt.and_then(Format::from_name),
                reasoning: Reasoning::lookup(r),
                started,
            };
            for text in &texts {
                let tools = Tools::default();
                let whole = Parser::replay_with(setup, &tools, &[text.as_str()]);
                let chars: Vec<String> = text.chars().map(String::from).collect();
                assert_eq!(
                    Parser::replay_with(setup, &tools, &chars),
                    whole,
                    "{text:?}"
                );
                for i in (0..=text.len()).filter(|&i| text.is_char_boundary(i)) {
                    let parts = [&text[..i], &text[i..]];
                    assert_eq!(
                        Parser::replay_with(setup, &tools, &parts),
                        whole,
                        "{text:?} {i}"
                    );
                }
                let x = Parser::extract_with(setup, &tools, text);
                if !x.malformed && !x.truncated {
                    assert_eq!(x, whole, "{text:?}");
                }
            }
        }
    }
}

/// Malformed or cut markup after a think block, empty or not: the fallback content is the
/// text after the block (what a reasoning parser then a tool parser give), the reasoning kept.
#[test]
fn fallback_after_a_block_is_the_text_after_it() {
    use crate::formats::{Format, Parser, Setup, Tools};
    let setup = Setup {
        format: Format::from_name("hermes"),
        reasoning: Reasoning::lookup("qwen3"),
        started: None,
    };
    let bad = "<tool_call>{bad}</tool_call>";
    let cut = r#"<tool_call>{"name": "f", "arguments": {"a"#;
    for (block, reasoning) in [("<think></think>", None), ("<think>r</think>", Some("r"))] {
        for tail in [bad, cut] {
            let text = format!("{block}{tail}");
            let x = Parser::extract_with(setup, &Tools::default(), &text);
            assert!(x.malformed || x.truncated, "{text:?}");
            assert_eq!(x.content.as_deref(), Some(tail), "{text:?}");
            assert_eq!(x.reasoning.as_deref(), reasoning, "{text:?}");
        }
    }
    // no reasoning format: the caller gives back the original text; the core says malformed
    let x = Parser::extract_with(
        Setup {
            reasoning: None,
            ..setup
        },
        &Tools::default(),
        bad,
    );
    assert!(x.malformed && x.reasoning.is_none());
}

/// An end marker outside a block is markup, dropped from content; a bare call start at the
/// end is a cut before the call began: not content, truncated. Streaming one char per delta
/// gives the same.
#[test]
fn markup_outside_a_block_and_a_bare_call_start() {
    use crate::formats::{Parser, Setup, Tools};
    let call = r#"<tool_call>{"name": "f", "arguments": {}}</tool_call>"#;
    let done = format!("<think>I should check.\n{call}\n</think>\n\nDone.");
    let cases = [
        (
            Some("hermes"),
            Some("qwen3"),
            done.as_str(),
            Some("\n\n\nDone."),
            false,
        ),
        (
            None,
            Some("qwen3"),
            "reasoning</think>A</think>B",
            Some("AB"),
            false,
        ),
        (
            None,
            Some("minimax_m3"),
            "</mm:think>answer",
            Some("answer"),
            false,
        ),
        (
            Some("mistral"),
            None,
            "...check.[TOOL_CALLS]",
            Some("...check."),
            true,
        ),
        (
            Some("hermes"),
            Some("qwen3"),
            "r</think>\n\n<tool_call>",
            None,
            true,
        ),
        (
            Some("qwen3_coder"),
            None,
            "Hi <tool_call>\n",
            Some("Hi "),
            true,
        ),
    ];
    for (f, r, text, content, truncated) in cases {
        let setup = Setup {
            format: f.and_then(Format::from_name),
            reasoning: r.and_then(Reasoning::lookup),
            started: None,
        };
        let tools = Tools::default();
        let x = Parser::extract_with(setup, &tools, text);
        assert_eq!(x.content.as_deref(), content, "{text:?}");
        assert_eq!(x.truncated, truncated, "{text:?}");
        let chars: Vec<String> = text.chars().map(String::from).collect();
        let s = Parser::replay_with(setup, &tools, &chars);
        assert_eq!(s.content, x.content, "{text:?}");
    }
}

/// plamo3: the turn-end tag ends a block and is dropped from content in every state; with
/// thinking disabled the markers are off (text), the turn end still dropped.
#[test]
fn turn_end_and_markers_off_when_disabled() {
    use crate::formats::{Parser, Setup, Tools};
    let (b, e, t) = (
        "<|plamo:begin_think:plamo|>",
        "<|plamo:end_think:plamo|>",
        "<|plamo:tag|>",
    );
    let cases = [
        (
            None,
            None,
            format!("r{t}c"),
            Some("c".to_owned()),
            Some("r"),
        ),
        (
            None,
            None,
            format!("r{e}a{t}b{t}"),
            Some("ab".to_owned()),
            Some("r"),
        ),
        (
            None,
            Some(false),
            format!("{b}t{e}c{t}"),
            Some(format!("{b}t{e}c")),
            None,
        ),
        (Some("plamo3"), None, format!("x{t}"), None, Some("x")),
        (
            Some("plamo3"),
            Some(false),
            format!("{e}x{t}"),
            Some(format!("{e}x")),
            None,
        ),
    ];
    for (f, started, text, content, reasoning) in cases {
        let setup = Setup {
            format: f.and_then(Format::from_name),
            reasoning: Reasoning::lookup("plamo3"),
            started,
        };
        let tools = Tools::default();
        let x = Parser::extract_with(setup, &tools, &text);
        assert_eq!(x.content, content, "{text:?}");
        assert_eq!(x.reasoning.as_deref(), reasoning, "{text:?}");
        let chars: Vec<String> = text.chars().map(String::from).collect();
        let s = Parser::replay_with(setup, &tools, &chars);
        assert_eq!(
            (s.content, s.reasoning),
            (x.content, x.reasoning),
            "{text:?}"
        );
    }
    // the tool format alone drops its turn end
    let plamo = Format::from_name("plamo3").unwrap_or_else(|| panic!("plamo3"));
    let x = Parser::extract(plamo, &Tools::default(), &format!("a{t}b"));
    assert_eq!(x.content.as_deref(), Some("ab"));
}

/// Framing as data: `hunyuan_a13b`'s markers hold the `<answer>` wrapper and its closing marker
/// is dropped; `granite_thinking_parser` drops the newlines that open the content after the
/// end marker (the hand-over point is after them). Every split gives the same.
#[test]
fn content_end_and_content_lstrip() {
    use crate::formats::{Parser, Setup, Tools};
    let cases = [
        (
            "hunyuan_a13b",
            "<think>\nr\n</think>\n<answer>\nc\n</answer>",
            Some("c"),
            Some("r"),
            Some(28),
        ),
        (
            "hunyuan_a13b",
            "<think>\n\n</think>\n<answer>\nc\n</answer>",
            Some("c"),
            None,
            Some(27),
        ),
        (
            "granite_thinking_parser",
            "r</think>\n\nc\n",
            Some("c\n"),
            Some("r"),
            Some(11),
        ),
        (
            "granite_thinking_parser",
            "r</think>\n\n",
            None,
            Some("r"),
            Some(11),
        ),
        (
            "granite_thinking_parser",
            "r</think>\n c",
            Some(" c"),
            Some("r"),
            Some(10),
        ),
    ];
    for (r, text, content, reasoning, from) in cases {
        let setup = Setup {
            format: None,
            reasoning: Reasoning::lookup(r),
            started: None,
        };
        let tools = Tools::default();
        let x = Parser::extract_with(setup, &tools, text);
        assert_eq!(x.content.as_deref(), content, "{text:?}");
        assert_eq!(x.reasoning.as_deref(), reasoning, "{text:?}");
        for i in 0..=text.len() {
            let mut p = Parser::with(setup, &tools);
            p.push(&text[..i]);
            p.push(&text[i..]);
            let s = p.into_extracted();
            assert_eq!(
                (&s.content, &s.reasoning),
                (&x.content, &x.reasoning),
                "{i}"
            );
        }
        let mut p = Parser::with(setup, &tools);
        p.push(text);
        p.finish();
        assert_eq!(p.machine_from(), from, "{text:?}");
    }
}

/// gemma4's label: `thought` and a newline at the start of a block are markup, and a block
/// whose whole reasoning is `thought` is empty; other text is reasoning as written. Every
/// split gives the same.
#[test]
fn label_at_the_start_of_a_block() {
    use crate::formats::{Parser, Setup, Tools};
    let cases = [
        (
            None,
            "<|channel>thought<channel|>Answer",
            Some("Answer"),
            None,
        ),
        (None, "<|channel>thought", None, None),
        (
            None,
            "<|channel>thoughtful<channel|>x",
            Some("x"),
            Some("thoughtful"),
        ),
        (Some(true), "thought\nr<channel|>x", Some("x"), Some("r")),
        (Some(true), "thought<channel|>x", Some("x"), None),
        (Some(true), "though<channel|>x", Some("x"), Some("though")),
    ];
    for (started, text, content, reasoning) in cases {
        let setup = Setup {
            format: None,
            reasoning: Reasoning::lookup("gemma4"),
            started,
        };
        let tools = Tools::default();
        let x = Parser::extract_with(setup, &tools, text);
        assert_eq!(x.content.as_deref(), content, "{text:?}");
        assert_eq!(x.reasoning.as_deref(), reasoning, "{text:?}");
        for i in (0..=text.len()).filter(|&i| text.is_char_boundary(i)) {
            let s = Parser::replay_with(setup, &tools, &[&text[..i], &text[i..]]);
            assert_eq!(
                (&s.content, &s.reasoning),
                (&x.content, &x.reasoning),
                "{i}"
            );
        }
    }
}

/// The hand-over point: the byte offset where the machine's raw text starts, the same under
/// every split, and `fed - handover_chars()` is that offset in characters.
#[test]
fn hand_over_point_under_every_split() {
    use crate::formats::{Parser, Setup, Tools};
    let call = r#"<tool_call>{"name": "f", "arguments": {"a": 1}}</tool_call>"#;
    let cases = [
        (
            format!("<think>é</think>\n{call}"),
            Some(false),
            Some("é</think>".len() + 7),
        ),
        (format!("ü ö<b{call}x"), Some(true), Some("ü ö<b".len())),
        ("plan</think>ok".to_owned(), None, Some(12)),
        ("  ×ok".to_owned(), Some(false), Some(0)),
        ("<think>never é closed </th".to_owned(), None, None),
    ];
    let setup = |started| Setup {
        format: Format::from_name("hermes"),
        reasoning: Reasoning::lookup("qwen3"),
        started,
    };
    let tools = Tools::default();
    for (text, started, want) in &cases {
        let splits = (0..=text.len()).filter(|&i| text.is_char_boundary(i));
        for i in splits {
            let mut p = Parser::with(setup(*started), &tools);
            let mut fed = (0, 0); // bytes, chars
            let mut at: Option<(usize, usize)> = None;
            for part in [&text[..i], &text[i..]] {
                p.feed(part);
                fed = (fed.0 + part.len(), fed.1 + part.chars().count());
                if at.is_none() {
                    at = p.machine_from().map(|b| (b, fed.1 - p.handover_chars()));
                }
            }
            assert_eq!(p.machine_from().is_some(), want.is_some(), "{text:?} {i}");
            p.finish();
            let at = at.or_else(|| p.machine_from().map(|b| (b, fed.1 - p.handover_chars())));
            let (b, c) = at.unwrap_or((usize::MAX, usize::MAX));
            let whole = want.unwrap_or(text.len());
            assert_eq!(b, whole, "{text:?} split at {i}");
            assert_eq!(c, text[..whole].chars().count(), "{text:?} split at {i}");
        }
    }
    let mut p = Parser::new(
        Format::from_name("hermes").unwrap_or_else(|| panic!()),
        &tools,
    );
    assert_eq!((p.machine_from(), p.handover_chars()), (Some(0), 0));
    p.feed("x");
    assert_eq!(p.machine_from(), Some(0));
}

/// (tool format, reasoning format, text, content, reasoning)
type Case<'a> = (
    Option<&'a str>,
    &'a str,
    String,
    Option<&'a str>,
    Option<&'a str>,
);

/// (issue 30) gemma4's blocks anywhere (`blocks_anywhere`), `minimax_m3`'s stray end tag
/// (`stray_end_text`) and cohere's response markup and framing newline (`also_end`, `dropped`,
/// `span_markup` on the reasoning entry): every cut gives the whole text's result, which
/// non-streaming gives too.
#[test]
fn blocks_anywhere_stray_end_and_framing() {
    use crate::formats::{Parser, Setup, Tools};
    let g4 = "<|tool_call>call:f{a:1}<tool_call|>";
    let cases: Vec<Case<'_>> = vec![
        (
            None,
            "gemma4",
            "Before\n<|channel>thought\nabc \n<channel|>\nrest".to_owned(),
            Some("Before\n\nrest"),
            Some("abc"),
        ),
        (
            Some("gemma4"),
            "gemma4",
            format!("a<|channel>thought\nplan {g4}b<|channel>x<channel|>"),
            Some("ab"),
            Some("planx"),
        ),
        (
            None,
            "minimax_m3",
            "XXX</mm:think>YYY".to_owned(),
            Some("XXX</mm:think>YYY"),
            None,
        ),
        (
            None,
            "minimax_m3",
            " </mm:think>YYY</mm:think>".to_owned(),
            Some("YYY</mm:think>"),
            None,
        ),
        (
            None,
            "cohere_command3",
            "<|START_THINKING|>p<co>q</co: 0:[1]><|END_THINKING|>\n<|START_RESPONSE|>A<|END_RESPONSE|>"
                .to_owned(),
            Some("A"),
            Some("pq"),
        ),
        (
            Some("cohere_command4"),
            "cohere_command4",
            "<|START_THINKING|>p<|END_THINKING|>\n".to_owned(),
            Some("\n"),
            Some("p"),
        ),
    ];
    for (fmt, r, text, content, reasoning) in cases {
        let setup = Setup {
            format: fmt.and_then(Format::from_name),
            reasoning: Reasoning::lookup(r),
            started: None,
        };
        let tools = Tools::default();
        let x = Parser::extract_with(setup, &tools, &text);
        assert_eq!(
            (x.content.as_deref(), x.reasoning.as_deref()),
            (content, reasoning),
            "{text:?}"
        );
        for i in (0..=text.len()).filter(|&i| text.is_char_boundary(i)) {
            let parts = [&text[..i], &text[i..]];
            assert_eq!(
                Parser::replay_with(setup, &tools, &parts),
                x,
                "{text:?} {i}"
            );
        }
    }
}
