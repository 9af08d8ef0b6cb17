use super::*;
use crate::event::Extracted;
use crate::formats::invariants::{stream_with, Streamed};
use crate::formats::{Format, Parser};
use std::collections::HashMap;

fn format(name: &str) -> Format {
    Format::from_name(name).unwrap_or_else(|| panic!("{name} not registered"))
}

/// Tools with one function `get_weather(city: string, days: integer)`.
fn weather_tools() -> Tools {
    let mut params = HashMap::new();
    params.insert("city".to_owned(), vec!["string".to_owned()]);
    params.insert("days".to_owned(), vec!["integer".to_owned()]);
    let mut f = HashMap::new();
    f.insert("get_weather".to_owned(), params);
    Tools::new(f)
}

fn extract(name: &str, tools: &Tools, text: &str) -> Extracted {
    Parser::extract(format(name), tools, text)
}

fn boundaries(s: &str) -> Vec<usize> {
    (0..=s.len()).filter(|&k| s.is_char_boundary(k)).collect()
}

/// Every split in two and one character at a time give the non-streaming result.
fn check_splits(name: &str, tools: &Tools, text: &str) {
    let x = extract(name, tools, text);
    let calls: Vec<(String, String, bool)> = x
        .calls
        .iter()
        .map(|c| (c.name.clone(), c.arguments.clone(), true))
        .collect();
    let want = (
        x.content.clone().unwrap_or_default(),
        x.reasoning.clone().unwrap_or_default(),
        calls,
        x.malformed,
    );
    let got = |s: Streamed| (s.content, s.reasoning, s.calls, s.malformed);
    let f = format(name);
    for k in boundaries(text) {
        assert_eq!(
            got(stream_with(f, tools, text, &[k])),
            want,
            "cut at {k}: {text:?}"
        );
    }
    let every = boundaries(text);
    assert_eq!(got(stream_with(f, tools, text, &every)), want, "{text:?}");
}

const TURN: &str = " to=self<|message|>Need the weather.<|eom|>\
    <|start|>assistant to=get_weather<|message|><atem:function_calls>\n\
    <atem:invoke name=\"get_weather.get_weather\">\n\
    <atem:parameter name=\"city\">東京</atem:parameter>\n\
    <atem:parameter name=\"days\">3</atem:parameter>\n\
    </atem:invoke>\n</atem:function_calls><|eom|>";

#[test]
fn routes_reasoning_and_calls() {
    let x = extract("muse", &weather_tools(), TURN);
    assert!(!x.malformed);
    assert_eq!(x.reasoning.as_deref(), Some("Need the weather."));
    assert_eq!(x.content, None);
    assert_eq!(x.calls.len(), 1);
    // `get_weather.get_weather` is the registered bare name.
    assert_eq!(x.calls[0].name, "get_weather");
    assert_eq!(x.calls[0].arguments, "{\"city\": \"東京\", \"days\": 3}");
    check_splits("muse", &weather_tools(), TURN);
}

#[test]
fn muse_keeps_schema_strings_and_glimmer_decodes_them() {
    let text = "<|start|>assistant to=get_weather<|message|>\
        <atem:invoke name=\"get_weather\"><atem:parameter name=\"city\">123</atem:parameter>\
        <atem:parameter name=\"days\">{\"a\":1}</atem:parameter></atem:invoke><|eom|>";
    let tools = weather_tools();
    let m = extract("muse", &tools, text);
    assert_eq!(
        m.calls[0].arguments,
        "{\"city\": \"123\", \"days\": {\"a\": 1}}"
    );
    let g = extract("muse_glimmer", &tools, text);
    assert_eq!(
        g.calls[0].arguments,
        "{\"city\": 123, \"days\": {\"a\": 1}}"
    );
    check_splits("muse", &tools, text);
    check_splits("muse_glimmer", &tools, text);
}

#[test]
fn recipients_differ_between_the_profiles() {
    let text =
        "<|message|>thinking<|eom|><|start|>assistant to=commentary<|message|>Working.<|eom|>\
        <|start|>assistant to=user<|message|>Done.<|eot|>";
    let m = extract("muse", &Tools::default(), text);
    assert_eq!(m.reasoning.as_deref(), Some("thinking"));
    assert_eq!(m.content.as_deref(), Some("Working.Done."));
    let g = extract("muse_glimmer", &Tools::default(), text);
    assert_eq!(g.reasoning, None);
    // glimmer: a bare header is content; commentary is a tool channel whose text is content.
    assert_eq!(g.content.as_deref(), Some("thinkingWorking.Done."));
    check_splits("muse", &Tools::default(), text);
    check_splits("muse_glimmer", &Tools::default(), text);
}

#[test]
fn a_header_without_the_end_marker_ends_the_reasoning() {
    let text = " to=self<|message|>plan to=functions.f<|message|>\
        <atem:invoke name=\"f\"><atem:parameter name=\"q\">x</atem:parameter></atem:invoke>";
    let x = extract("muse", &Tools::default(), text);
    assert!(!x.malformed);
    assert_eq!(x.reasoning.as_deref(), Some("plan"));
    assert_eq!(x.calls.len(), 1);
    assert_eq!(x.calls[0].arguments, "{\"q\": \"x\"}");
    check_splits("muse", &Tools::default(), text);
}

#[test]
fn quoted_invokes_outside_tool_channels_are_text() {
    let text = " to=self<|message|>I could write <atem:invoke name=\"f\"></atem:invoke><|eom|>\
        <|start|>assistant to=user<|message|>No call.<|eot|>";
    let x = extract("muse", &Tools::default(), text);
    assert!(x.calls.is_empty());
    assert_eq!(x.content.as_deref(), Some("No call."));
    check_splits("muse", &Tools::default(), text);
}

#[test]
fn plain_text_and_malformed_and_truncated() {
    let x = extract("muse", &Tools::default(), "Just text, to be sure.");
    assert_eq!(x.content.as_deref(), Some("Just text, to be sure."));
    check_splits("muse", &Tools::default(), "Just text, to be sure.");
    // A header that is not one: content, malformed.
    let bad = "<|start|>user<|message|>hi<|eom|>";
    let x = extract("muse", &Tools::default(), bad);
    assert!(x.malformed);
    assert_eq!(x.content.as_deref(), Some(bad));
    // A tool body that ends inside a call.
    let bad = "<|start|>assistant to=f<|message|><atem:invoke name=\"f\"><|eom|>";
    let x = extract("muse", &Tools::default(), bad);
    assert!(x.malformed);
    assert!(x.calls.is_empty());
    // Truncated after a complete call: the call is kept.
    let cut = "<|start|>assistant to=f<|message|><atem:invoke name=\"f\"></atem:invoke>\
        <atem:invoke name=\"g\"><atem:parameter name=\"a\">1";
    let x = extract("muse", &Tools::default(), cut);
    assert!(x.truncated);
    assert_eq!(x.calls.len(), 1);
    assert_eq!(x.calls[0].arguments, "{}");
}

#[test]
fn tail_start_holds_only_a_possible_header() {
    assert_eq!(tail_start("abc"), 3);
    assert_eq!(tail_start("abc t"), 3);
    assert_eq!(tail_start("abc to=x.y"), 3);
    assert_eq!(tail_start("goto=x"), 2);
    assert_eq!(tail_start("a  \t"), 1);
    assert_eq!(tail_header(" to=user"), (0, Some("user")));
    assert_eq!(tail_header("  "), (0, None));
    assert_eq!(tail_header(" to="), (4, None));
    let long = format!("to={}", "a".repeat(NAME_MAX + 1));
    assert_eq!(tail_start(&long), long.len());
}
