use super::*;
use crate::event::{Emitter, Event, Extracted};
use crate::scan::{NAME_MAX, WS_MAX};

fn scan_all(s: &str) -> Step {
    let mut sc = JsonScanner::new();
    sc.feed(s.as_bytes())
}

#[test]
fn scanner_validates() {
    assert!(is_json(
        r#"{"a": [1, -2.5e+3, true, false, null, "x\u00e9\n", {}, []]}"#
    ));
    assert!(is_json(" 12 "));
    assert!(!is_json("{\"a\": 01}"));
    assert!(!is_json("{\"a\": 1,}"));
    assert!(!is_json("[1 2]"));
    assert!(!is_json("{\"a\" 1}"));
    assert!(!is_json("\"\u{1}\""));
    assert!(!is_json("{} x"));
    assert_eq!(scan_all("{\"a\":1} tail"), Step::Done(7));
}

#[test]
fn scanner_resumes_at_every_split() {
    let doc = r#"{"k": ["v\"\\\ud83c\udf89", 10.5e-2, {"n": null}], "t": true}"#;
    for cut in 0..=doc.len() {
        let mut sc = JsonScanner::new();
        let a = sc.feed(&doc.as_bytes()[..cut]);
        let b = sc.feed(&doc.as_bytes()[cut..]);
        if cut == doc.len() {
            assert_eq!(a, Step::Done(doc.len()));
        } else {
            assert_eq!(a, Step::NeedMore, "cut {cut}");
            assert_eq!(b, Step::Done(doc.len() - cut));
        }
    }
}

#[test]
fn deep_nesting_does_not_overflow() {
    let depth = 200_000;
    let s = "[".repeat(depth) + &"]".repeat(depth);
    assert!(is_json(&s));
    assert!(!is_json(&"[".repeat(depth)));
}

#[test]
fn decoder_joins_surrogates_across_splits() {
    let s = r#"a\"\ud83c\udf89\u00e9\ud800x""#;
    for cut in 0..=s.len() {
        let mut d = StrDecoder::new();
        let mut out = String::new();
        let a = d.feed(&s[..cut], &mut out);
        let b = d.feed(&s[cut..], &mut out);
        assert!(matches!(a, Step::NeedMore) || cut == s.len());
        if cut < s.len() {
            assert_eq!(b, Step::Done(s.len() - cut));
        }
        assert_eq!(out, "a\"🎉é\u{FFFD}x");
    }
}

fn call(s: &str, require_args: bool) -> (Step, Extracted) {
    let mut e = Emitter::new();
    let mut c = CallObject::new(CALL_KEYS, require_args);
    let r = c.feed(s, &mut e);
    (r, Extracted::from_events(e.take(), false, e.truncated))
}

#[test]
fn call_object_orders_and_forms() {
    let (r, x) = call(r#"{"arguments": {"a": 1}, "name": "f"}"#, false);
    assert!(matches!(r, Step::Done(_)));
    assert_eq!(x.calls[0].name, "f");
    assert_eq!(x.calls[0].arguments, r#"{"a": 1}"#);
    let (_, x) = call(
        r#"{"name": "f", "arguments": "{\"a\": \"\u00e9\"}"}"#,
        false,
    );
    assert_eq!(x.calls[0].arguments, "{\"a\": \"é\"}");
    let (_, x) = call(r#"{"name": "f"}"#, false);
    assert_eq!(x.calls[0].arguments, "{}");
    let (r, x) = call(r#"{"name": "f"}"#, true);
    assert_eq!(r, Step::Done(13));
    assert!(x.calls.is_empty());
    let (r, _) = call(r#"{"name": "f", "arguments": "{\"a\": 1} x"}"#, false);
    assert!(matches!(r, Step::Error(_)));
    let (r, _) = call(r#"{"name": "f", "arguments": [1]}"#, false);
    assert!(matches!(r, Step::Error(_)));
}

#[test]
fn call_object_caps_names_and_whitespace() {
    // at the cap: a call; one past it: an error at the same byte however the text is split
    let name = |k: usize| format!(r#"{{"name": "{}", "arguments": {{}}}}"#, "é".repeat(k));
    let (r, x) = call(&name(NAME_MAX), false);
    assert!(matches!(r, Step::Done(_)));
    assert_eq!(x.calls.len(), 1);
    let ws = |k: usize| format!(r#"{{"name":{}"f", "arguments": {{}}}}"#, " ".repeat(k));
    assert!(matches!(call(&ws(WS_MAX), false).0, Step::Done(_)));
    for (text, at) in [
        (name(NAME_MAX + 1), 10 + 2 * (NAME_MAX + 1)),
        (ws(WS_MAX + 1), 8 + WS_MAX),
    ] {
        assert_eq!(call(&text, false).0, Step::Error(at));
        for cut in [1, 9, 10, 11, 100, at - 1, at, at + 1] {
            if !text.is_char_boundary(cut) {
                continue;
            }
            let mut e = Emitter::new();
            let mut c = CallObject::new(CALL_KEYS, false);
            let r = match c.feed(&text[..cut], &mut e) {
                Step::NeedMore => match c.feed(&text[cut..], &mut e) {
                    Step::Error(k) => Step::Error(cut + k),
                    other => other,
                },
                other => other,
            };
            assert_eq!(r, Step::Error(at), "cut {cut}");
        }
    }
}

#[test]
fn call_object_streams_arguments() {
    let s = r#"{"name": "f", "arguments": {"a": "xyz"}}"#;
    let mut e = Emitter::new();
    let mut c = CallObject::new(CALL_KEYS, false);
    let mut evs = Vec::new();
    let mut feeds_with_args = 0;
    for ch in s.char_indices() {
        let piece = &s[ch.0..ch.0 + ch.1.len_utf8()];
        let r = c.feed(piece, &mut e);
        assert!(matches!(r, Step::NeedMore | Step::Done(1)));
        let got = e.take();
        if got.iter().any(|ev| matches!(ev, Event::ToolArgs { .. })) {
            feeds_with_args += 1;
        }
        evs.extend(got);
    }
    assert!(matches!(&evs[0], Event::ToolStart { name, .. } if name == "f"));
    assert_eq!(feeds_with_args, r#"{"a": "xyz"}"#.len());
}
