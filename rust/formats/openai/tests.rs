use super::*;
use crate::event::Extracted;
use crate::formats::invariants::{stream_deltas, DeltaStreamed};
use crate::formats::test_support::Rng;
use crate::formats::{Format, Parser};
use std::sync::LazyLock;

/// The format under test.
fn openai() -> Format {
    Format::from_name("openai").unwrap_or_else(|| panic!("openai not registered"))
}

fn extract(text: &str) -> Extracted {
    Parser::extract(openai(), &Tools::default(), text)
}

/// Streams `text` cut at `cuts`.
fn stream(text: &str, cuts: &[usize]) -> DeltaStreamed {
    stream_deltas(openai(), &Tools::default(), text, cuts)
}

fn boundaries(s: &str) -> Vec<usize> {
    (0..=s.len()).filter(|&k| s.is_char_boundary(k)).collect()
}

const TWO_CALLS: &str = "<|channel|>analysis<|message|>Need weather.<|end|>\
    <|start|>assistant<|channel|>commentary to=functions.get_weather <|constrain|>json\
    <|message|>{\"city\": \"東京\", \"n\": [1, 2.5, null]}<|call|>\
    <|start|>assistant to=functions.get_time<|channel|>commentary json<|message|>{}<|call|>";

#[test]
fn routes_channels_and_calls() {
    let x = extract(TWO_CALLS);
    assert!(!x.malformed);
    assert_eq!(x.reasoning.as_deref(), Some("Need weather."));
    assert_eq!(x.content, None);
    assert_eq!(x.calls.len(), 2);
    assert_eq!(x.calls[0].name, "get_weather");
    assert_eq!(
        x.calls[0].arguments,
        "{\"city\": \"東京\", \"n\": [1, 2.5, null]}"
    );
    assert_eq!(x.calls[1].name, "get_time");
    assert_eq!(x.calls[1].arguments, "{}");
}

#[test]
fn every_split_agrees() {
    let texts = [
        TWO_CALLS,
        "<|channel|>analysis<|message|>think<|end|><|start|>assistant<|channel|>final<|message|>Hi <b>!<|return|>",
        " to=functions.f<|channel|>commentary<|message|>{\"a\": 1}",
        "plain <|text",
        "<|channel|>commentary to=functions.f<|message|>{\"a\": \"<|call|>\"}<|call|>",
        "<|channel|>commentary to=functions.f<|message|>{\"a\": <|call|>",
        "<|channel|>analysis<|message|>hello<|end|><|start|>assistant<|channel|>commentary to=python<|message|>print(\"hello\")<|call|>",
        "<|channel|>analysis<|message|>a <|call|> b <|channel|>final x y z<|end|>\
         <|start|>assistant<|channel|>final<|message|>c <|start|>user d",
    ];
    for t in texts {
        let whole = stream(t, &[]);
        for k in boundaries(t) {
            assert_eq!(stream(t, &[k]), whole, "{t:?} cut at {k}");
        }
        let all: Vec<usize> = boundaries(t);
        assert_eq!(stream(t, &all), whole, "{t:?} one char at a time");
    }
}

#[test]
fn random_texts_are_split_invariant() {
    const PIECES: &[&str] = &[
        "<|start|>",
        "<|channel|>",
        "<|message|>",
        "<|end|>",
        "<|call|>",
        "<|return|>",
        "<|constrain|>",
        "<|",
        "<|chan",
        "assistant",
        "analysis",
        "final",
        "commentary",
        " to=functions.f",
        "to=functions.g",
        " to=browser.search",
        " to=python",
        "user",
        "<|start|>assistant",
        " json",
        "to=",
        "{",
        "}",
        "[",
        "]",
        "\"a\"",
        ": ",
        ", ",
        "1",
        "true",
        "\"x\\\"é🎉\"",
        " ",
        "\n",
        "t",
        "x",
        "é",
    ];
    let mut rng = Rng(0x2545_F491_4F6C_DD1D);
    for _ in 0..4000 {
        // pieces inserted anywhere into two calls, or into nothing
        let mut t = String::new();
        if rng.below(2) == 0 {
            t.push_str(TWO_CALLS);
        }
        for _ in 0..rng.below(14) {
            rng.insert_piece(&mut t, PIECES);
        }
        let b = boundaries(&t);
        let whole = stream(&t, &[]);
        assert_eq!(stream(&t, &b), whole, "{t:?}");
        let cuts = [b[rng.below(b.len())], b[rng.below(b.len())]];
        let cuts = [cuts[0].min(cuts[1]), cuts[0].max(cuts[1])];
        assert_eq!(stream(&t, &cuts), whole, "{t:?} {cuts:?}");
        let x = extract(&t);
        // (truncated texts: rust/formats/invariants.rs)
        if !x.malformed && !x.truncated {
            whole.assert_extracts_as(x, &format!("{t:?}"));
            for (_, _, a) in &whole.calls {
                assert!(crate::json::is_json(a) && a.starts_with('{'), "{t:?}");
            }
        }
    }
}

#[test]
fn header_parse() {
    assert_eq!(
        parse("<|channel|>final", false, FNS),
        Some(Route::Body(Sink::Content))
    );
    assert_eq!(
        parse("<|channel|>analysis", false, FNS),
        Some(Route::Body(Sink::Reasoning))
    );
    let builtin = "assistant<|channel|>analysis to=browser.search";
    assert_eq!(
        parse(builtin, true, FNS),
        Some(Route::Body(Sink::Reasoning))
    );
    // a built-in tool outside the analysis channel: dropped
    for elsewhere in [
        "assistant<|channel|>commentary to=python",
        "assistant to=container.exec<|channel|>final",
        "assistant to=browser.open",
    ] {
        assert_eq!(
            parse(elsewhere, true, FNS),
            Some(Route::Body(Sink::Dropped)),
            "{elsewhere}"
        );
    }
    let call = "assistant to=functions.a.b<|channel|>commentary<|constrain|>json";
    assert_eq!(parse(call, true, FNS), Some(Route::Tool("a.b".into())));
    assert_eq!(
        parse(" to=functions.f json", false, FNS),
        Some(Route::Tool("f".into()))
    );
    assert_eq!(
        parse("assistant", true, FNS),
        Some(Route::Body(Sink::Content))
    );
    for bad in [
        "<|channel|>",
        "<|channel|>other",
        "<|channel|>commentaryto=functions.f",
        "<|channel|>commentary to=functions.",
        "<|channel|>commentary to=",
        "to=functions.a<|channel|>commentary to=functions.b",
        "<|channel|>final<|channel|>final",
        "<|channel|>commentary o=functions.f <|constrain|>json",
    ] {
        assert_eq!(parse(bad, false, FNS), None, "{bad:?}");
    }
    for bad in [
        "user<|channel|>final",
        "assistantto=functions.f<|channel|>commentary",
        "",
    ] {
        assert_eq!(parse(bad, true, FNS), None, "{bad:?}");
    }
}

#[test]
fn missing_end_marker_and_truncation() {
    let x = extract("<|channel|>commentary to=functions.f<|message|>{\"a\": 1} \n");
    assert!(!x.malformed);
    assert_eq!(x.calls[0].arguments, "{\"a\": 1}");
    for cut in [
        "<|channel|>commentary to=functions.f<|message|>{\"a\": 1",
        "<|channel|>commentary to=functions.f<|message|>",
        "<|channel|>commentary to=functions.f",
    ] {
        let x = extract(cut);
        assert!(x.truncated && !x.malformed && x.calls.is_empty(), "{cut:?}");
    }
    // After a complete call, the unfinished one's header is not content.
    let x = extract(
        "<|channel|>commentary to=functions.f<|message|>{}<|call|>\
         <|start|>assistant<|channel|>commentary to=functions.g <|constrain|>js",
    );
    assert!(x.truncated && !x.malformed, "{x:?}");
    assert_eq!((x.calls.len(), x.content), (1, None));
    assert!(extract("<|channel|>commentary to=functions.f<|message|>hi<|call|>").malformed);
    let x = extract("<|channel|>final<|message|>Hello");
    assert_eq!(x.content.as_deref(), Some("Hello"));
    let x = extract("<|channel|>analysis<|message|>a<|end|><|start|>assistant<|chan");
    assert!(!x.malformed);
    assert_eq!(x.content.as_deref(), Some("<|start|>assistant<|chan"));
    // a header naming a function, cut off: a call that never began; its markup is dropped and
    // the analysis stays reasoning only
    let x = extract(
        "<|channel|>analysis<|message|>a<|end|><|start|>assistant<|channel|>commentary \
         to=functions.f <|constrain|>json",
    );
    assert!(!x.malformed && x.truncated && x.calls.is_empty());
    assert_eq!((x.content, x.reasoning.as_deref()), (None, Some("a")));
}

#[test]
fn builtin_recipient_is_reasoning_after_a_newline() {
    let text = "<|channel|>analysis<|message|>The user wants hello<|end|>\
        <|start|>assistant<|channel|>analysis to=python<|message|>print(\"hello\")<|call|>";
    let x = extract(text);
    assert!(!x.malformed);
    assert!(x.calls.is_empty());
    assert_eq!(x.content, None);
    assert_eq!(
        x.reasoning.as_deref(),
        Some("The user wants hello\nprint(\"hello\")")
    );
    // on the commentary channel the message is dropped (vLLM's IGNORE): neither content nor
    // reasoning; this replaces the rule that made every built-in message reasoning
    let x = extract(&text.replace("analysis to=python", "commentary to=python"));
    assert!(!x.malformed);
    assert!(x.calls.is_empty());
    assert_eq!(x.content, None);
    assert_eq!(x.reasoning.as_deref(), Some("The user wants hello"));
    // an empty reasoning message adds no separator
    let x = extract(
        "<|channel|>analysis<|message|><|end|><|start|>assistant<|channel|>analysis<|message|>b",
    );
    assert_eq!(x.reasoning.as_deref(), Some("b"));
}

#[test]
fn quoted_markers_are_body_text() {
    let text = "<|channel|>analysis<|message|>The tag <|call|> ends a call; \
        <|channel|>final starts the answer, <|start|>user a user.<|end|>\
        <|start|>assistant<|channel|>final<|message|>Hi <|message|> there<|return|>";
    let x = extract(text);
    assert!(!x.malformed);
    assert_eq!(
        x.reasoning.as_deref(),
        Some(
            "The tag <|call|> ends a call; <|channel|>final starts the answer, \
             <|start|>user a user."
        )
    );
    assert_eq!(x.content.as_deref(), Some("Hi <|message|> there"));
}

/// The checks on a quoted header reject only headers `parse` rejects.
#[test]
fn quote_checks_reject_only_what_parse_rejects() {
    const PIECES: &[&str] = &[
        "<|channel|>",
        "<|constrain|>",
        "assistant",
        "assistan",
        "analysis",
        "commentary",
        "final",
        "fin",
        "to=functions.f",
        "to=python",
        "to=",
        "json",
        "user",
        " ",
        "\t",
        "<",
        "x",
    ];
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    let mut valid = 0;
    for _ in 0..20_000 {
        let role = rng.below(2) == 0;
        let mut h = String::new();
        let mut c = Checks::default();
        let mut ok = true;
        if !role {
            h.push_str(FNS.markers.list[CHANNEL]);
            ok = c.marker(CHANNEL);
        }
        for _ in 0..rng.below(7) {
            let p = PIECES[rng.below(PIECES.len())];
            h.push_str(p);
            ok = ok
                && match FNS.markers.starts(p) {
                    Some(w) => c.marker(w),
                    None => c.text(p, role),
                };
        }
        let parsed = parse(&h, role, FNS);
        if !ok {
            assert_eq!(parsed, None, "{h:?} role={role}");
        } else if parsed.is_some() {
            valid += 1;
        }
    }
    assert!(valid > 100, "{valid}");
}

/// The markers of the family's frames are their spec entries' (`build.rs` writes them).
#[test]
fn frames_use_the_spec_markers() {
    let roles = crate::formats::spec_check::FRAME_ROLES;
    for (name, frame) in [("openai", FNS), ("beam", BEAM)] {
        let spec = Format::from_name(name).expect("known format").spec();
        let want: Vec<_> = roles.iter().map(|r| spec.marker(r)).collect();
        let got: Vec<_> = frame.markers.list.iter().map(|m| Some(*m)).collect();
        assert_eq!(got, want, "{name}");
    }
}

/// The frames of openai (`functions.` names a function) and of beam (any recipient does).
static FNS: &LazyLock<Frame> = &crate::formats::OPENAI_FRAME;
static BEAM: &LazyLock<Frame> = &crate::formats::BEAM_FRAME;

fn beam_extract(text: &str) -> Extracted {
    let f = Format::from_name("beam").unwrap_or_else(|| panic!("beam not registered"));
    Parser::extract(f, &Tools::default(), text)
}

#[test]
fn beam_header_names_any_recipient() {
    // beam: every recipient is a function; no `functions.` prefix, no built-in tools.
    let call = "assistant to=get_weather<|channel|>analysis <|constrain|>xml";
    assert_eq!(
        parse(call, true, BEAM),
        Some(Route::Tool("get_weather".into()))
    );
    assert_eq!(
        parse(" to=browser.search<|channel|>analysis", false, BEAM),
        Some(Route::Tool("browser.search".into()))
    );
    assert_eq!(parse("<|channel|>analysis to=", false, BEAM), None);
}

#[test]
fn beam_calls_reasoning_and_content() {
    let text = "<|channel|>analysis<|message|>a<|end|><|start|>assistant<|channel|>analysis\
                <|message|>b<|end|><|start|>assistant to=f<|channel|>analysis <|constrain|>xml\
                <|message|><rfl:parameter name=\"x\">\n1\n<rfl:parameter name=\"y\">\nz\n\
                </rfl:parameter><|call|>";
    let x = beam_extract(text);
    // Reasoning messages are joined with nothing between them (SGLang's beam reasoning).
    assert_eq!(x.reasoning.as_deref(), Some("ab"));
    assert_eq!(x.calls.len(), 1);
    assert_eq!(x.calls[0].name, "f");
    // A parameter whose closing tag is missing ends where the next one starts.
    assert_eq!(x.calls[0].arguments, r#"{"x": "1", "y": "z"}"#);
    assert!(!x.malformed);
    let answer = "<|channel|>final<|message|>hi<|return|>";
    assert_eq!(beam_extract(answer).content.as_deref(), Some("hi"));
    // A value the message ends inside (no closing tag, no newline) is malformed (the caller
    // then returns the whole text as content).
    let cut =
        " to=f<|channel|>analysis <|constrain|>xml<|message|><rfl:parameter name=\"x\">\n1<|call|>";
    let x = beam_extract(cut);
    assert!(x.malformed && x.calls.is_empty());
}
