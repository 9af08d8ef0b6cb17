use super::*;

#[test]
fn whitespace_around_calls_is_not_content() {
    let mut e = Emitter::new();
    e.content("\n ");
    e.tool_start(None, "f".into());
    e.args("{}");
    e.tool_end();
    e.content("\n");
    e.finish();
    let x = Extracted::from_events(e.take(), e.malformed, e.truncated);
    assert_eq!(x.content, None);
    assert_eq!(x.calls.len(), 1);
}

#[test]
fn whitespace_only_output_is_content() {
    let mut e = Emitter::new();
    e.content("  \n");
    e.content(" ");
    e.finish();
    assert_eq!(e.take(), vec![Event::Content("  \n ".into())]);
}

#[test]
fn leading_whitespace_of_real_content_is_kept() {
    let mut e = Emitter::new();
    e.content(" ");
    assert!(e.events.is_empty());
    e.content(" a ");
    assert_eq!(e.take(), vec![Event::Content("  a ".into())]);
}

#[test]
fn delta_merges_fragments() {
    let d = Delta::from_events(vec![
        Event::Content("a".into()),
        Event::ToolStart {
            index: 0,
            id: None,
            name: "f".into(),
        },
        Event::ToolArgs {
            index: 0,
            fragment: "{".into(),
        },
        Event::ToolEnd { index: 0 },
    ])
    .unwrap_or_default();
    assert_eq!(d.content.as_deref(), Some("a"));
    assert_eq!(d.calls.len(), 1);
    assert_eq!(d.calls[0].args.as_deref(), Some("{"));
    assert!(Delta::from_events(vec![]).is_none());
}

/// The reasoning a [`Label`] emits for `parts` fed in a block it opened (or not: `open`), then
/// closed.
fn label_reasoning(label: &'static str, trim: bool, open: bool, parts: &[&str]) -> String {
    let mut e = Emitter::new();
    let mut l = Label::new(label, trim);
    if open {
        l.open();
    }
    for p in parts {
        l.emit(p, &mut e);
    }
    l.close(&mut e);
    e.finish();
    e.take()
        .into_iter()
        .map(|ev| match ev {
            Event::Reasoning(s) => s,
            other => panic!("not reasoning: {other:?}"),
        })
        .collect()
}

#[test]
fn label_and_newline_at_the_start_are_markup() {
    assert_eq!(
        label_reasoning("thought", false, true, &["thou", "ght\nHi"]),
        "Hi"
    );
    assert_eq!(
        label_reasoning("thought", false, true, &["thought", "\n", "A"]),
        "A"
    );
}

#[test]
fn label_alone_is_an_empty_block() {
    assert_eq!(
        label_reasoning("thought", false, true, &["thou", "ght"]),
        ""
    );
}

#[test]
fn other_text_is_reasoning_as_written() {
    assert_eq!(
        label_reasoning("thought", false, true, &["tho", "se"]),
        "those"
    );
    assert_eq!(
        label_reasoning("thought", false, true, &["thought", "x"]),
        "thoughtx"
    );
    assert_eq!(label_reasoning("thought", false, true, &["thou"]), "thou");
    // not at the start of a block, or no label: nothing is markup
    assert_eq!(
        label_reasoning("thought", false, false, &["thought\nA"]),
        "thought\nA"
    );
    assert_eq!(
        label_reasoning("", false, true, &["thought\nA"]),
        "thought\nA"
    );
    // the label is markup once per block
    assert_eq!(
        label_reasoning("thought", false, true, &["thought\nthought\n"]),
        "thought\n"
    );
}

#[test]
fn trim_drops_the_ending_whitespace_only() {
    assert_eq!(label_reasoning("", true, true, &["a ", " \n"]), "a");
    assert_eq!(label_reasoning("", true, true, &["a  ", "b\n"]), "a  b");
    assert_eq!(label_reasoning("", false, true, &["a ", " \n"]), "a  \n");
    let long = " ".repeat(TRAIL_CAP + 1);
    assert_eq!(
        label_reasoning("", true, true, &["a", &long]),
        format!("a{long}")
    );
}

#[test]
fn label_and_trim_under_every_split() {
    let text = "thought\nA b \n";
    for i in 0..=text.len() {
        for j in i..=text.len() {
            let parts = [&text[..i], &text[i..j], &text[j..]];
            assert_eq!(
                label_reasoning("thought", true, true, &parts),
                "A b",
                "{parts:?}"
            );
        }
    }
}
