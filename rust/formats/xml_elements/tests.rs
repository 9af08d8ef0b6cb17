use std::collections::HashMap;

use crate::event::Event;
use crate::formats::{Format, Parser, RawSchemaNode, Tools};

const NS: &str = "]<]minimax[>[";

fn el(name: &str, body: &str) -> String {
    format!("{NS}<{name}>{body}{NS}</{name}>")
}

fn block(name: &str, params: &str) -> String {
    format!("{NS}<tool_call>\n{NS}<invoke name=\"{name}\">{params}{NS}</invoke>\n{NS}</tool_call>")
}

fn format() -> Format {
    Format::from_name("minimax_m3").expect("minimax_m3")
}

/// `create_order(user_id`: integer, tags: array of string, shipping: {zip: integer})
fn tools() -> Tools {
    let node = |types: &[&str], container: u8, children: &[(&str, i64)], other: i64| {
        let t: Vec<String> = types.iter().map(std::string::ToString::to_string).collect();
        let c: HashMap<String, i64> = children.iter().map(|(k, v)| (k.to_string(), *v)).collect();
        (t, container, c, other) as RawSchemaNode
    };
    let nodes = vec![
        node(&[], 1, &[("user_id", 1), ("tags", 2), ("shipping", 4)], -1),
        node(&["integer"], 0, &[], -1),
        node(&["array"], 2, &[], 3),
        node(&["string"], 0, &[], -1),
        node(&["object"], 1, &[("zip", 5)], -1),
        node(&["integer"], 0, &[], -1),
    ];
    let mut schemas = HashMap::new();
    schemas.insert("create_order".to_owned(), nodes);
    Tools::with_schemas(HashMap::new(), schemas)
}

#[test]
fn nested_elements_follow_the_schema_tree() {
    let params = el("user_id", "007")
        + &el("tags", &(el("item", "a") + &el("item", "b")))
        + &el("shipping", &el("zip", "018956"))
        + &el("free", &(el("t", "x") + &el("t", "y")));
    let text = format!("Sure. {}", block("create_order", &params));
    let x = Parser::extract(format(), &tools(), &text);
    assert!(!x.malformed && !x.truncated);
    assert_eq!(x.content.as_deref(), Some("Sure. "));
    assert_eq!(x.calls.len(), 1);
    assert_eq!(
        x.calls[0].arguments,
        r#"{"user_id": 7, "tags": ["a", "b"], "shipping": {"zip": 18956}, "free": {"t": ["x", "y"]}}"#
    );
    // Every split gives the same arguments.
    for cut in 1..text.len() {
        if !text.is_char_boundary(cut) {
            continue;
        }
        let mut p = Parser::new(format(), &tools());
        let mut events = p.feed(&text[..cut]);
        events.extend(p.feed(&text[cut..]));
        events.extend(p.finish());
        let args: String = events
            .iter()
            .filter_map(|e| match e {
                Event::ToolArgs { fragment, .. } => Some(fragment.as_str()),
                _ => None,
            })
            .collect();
        assert_eq!(args, x.calls[0].arguments, "cut at {cut}");
    }
}

#[test]
fn empty_elements_and_mixed_text() {
    let note = format!("hi {} there", el("k", "v"));
    let params = el("tags", "") + &el("shipping", "") + &el("note", &note);
    let x = Parser::extract(format(), &tools(), &block("create_order", &params));
    assert_eq!(
        x.calls[0].arguments,
        r#"{"tags": [], "shipping": {}, "note": {"k": "v", "$text": "hi  there"}}"#
    );
}

#[test]
fn malformed_and_truncated_markup() {
    for bad in [
        format!("{NS}<a>1{NS}</b>"),
        format!("junk{}", el("a", "1")),
        format!("{NS}<a>1{NS}x"),
        format!("{NS}<   >1{NS}</   >"),
    ] {
        let x = Parser::extract(format(), &Tools::default(), &block("f", &bad));
        assert!(x.malformed, "{bad}");
    }
    let deep =
        (0..=crate::formats::xml_elements::DEPTH_MAX).fold("v".to_owned(), |b, _| el("n", &b));
    let x = Parser::extract(format(), &Tools::default(), &block("f", &deep));
    assert!(x.malformed);
    let ok = (0..crate::formats::xml_elements::DEPTH_MAX).fold("v".to_owned(), |b, _| el("n", &b));
    let x = Parser::extract(format(), &Tools::default(), &block("f", &ok));
    assert!(!x.malformed && x.calls.len() == 1);
    let whole = block("f", &el("a", "1"));
    let stop = whole.find("</invoke>").map_or(0, |p| p + "</invoke>".len());
    for cut in 1..stop {
        let x = Parser::extract(format(), &Tools::default(), &whole[..cut]);
        assert!(x.calls.is_empty(), "{cut}");
        assert!(!x.malformed, "{cut}");
    }
}

#[test]
fn a_string_parameter_streams_as_it_arrives() {
    let mut nodes = HashMap::new();
    nodes.insert("content".to_owned(), vec!["string".to_owned()]);
    let mut functions = HashMap::new();
    functions.insert("write".to_owned(), nodes);
    let tools = Tools::new(functions);
    let mut p = Parser::new(format(), &tools);
    p.feed(&format!(
        "{NS}<tool_call>{NS}<invoke name='write'>{NS}<content>ab"
    ));
    let ev = p.feed("c\"d");
    assert!(
        matches!(ev.as_slice(), [Event::ToolArgs { fragment, .. }] if fragment == "c\\\"d"),
        "{ev:?}"
    );
}
