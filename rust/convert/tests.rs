use super::*;

mod numbers;

/// Feed `pieces` then finish: the output and `Ok(offset)` of the end of the literal (or of
/// the whole text) / `Err(offset)` of the error, as byte offsets into the whole text.
fn run(pieces: &[&str]) -> (String, Result<usize, usize>) {
    let mut conv = PyLiteral::new();
    let mut out = String::new();
    let mut base = 0;
    for piece in pieces {
        match conv.feed(piece, &mut out) {
            Step::NeedMore => base += piece.len(),
            Step::Done(n) => return (out, Ok(base + n)),
            Step::Error(n) => return (out, Err(base + n)),
        }
    }
    match conv.finish(&mut out) {
        Step::Done(0) => (out, Ok(base)),
        Step::Error(0) => (out, Err(base)),
        other => panic!("finish returned {other:?}"),
    }
}

/// Whole, every split in two at a char boundary, and one char at a time.
fn splits(src: &str) -> Vec<Vec<&str>> {
    let mut all = vec![vec![src]];
    for (i, _) in src.char_indices().skip(1) {
        all.push(vec![&src[..i], &src[i..]]);
    }
    let mut chars = Vec::new();
    let mut rest = src;
    while let Some(c) = rest.chars().next() {
        let (a, b) = rest.split_at(c.len_utf8());
        chars.push(a);
        rest = b;
    }
    all.push(chars);
    all
}

fn chunks(src: &str, size: usize) -> Vec<&str> {
    let mut pieces = Vec::new();
    let mut start = 0;
    while start < src.len() {
        let mut end = (start + size).min(src.len());
        while !src.is_char_boundary(end) {
            end += 1;
        }
        pieces.push(&src[start..end]);
        start = end;
    }
    pieces
}

/// Rejected: an error, or the literal ends before non-whitespace text.
fn rejected(src: &str, result: &Result<usize, usize>) -> bool {
    match result {
        Err(_) => true,
        Ok(n) => !src[*n..].trim().is_empty(),
    }
}

/// The case tables both languages test (`tests/fixtures/convert_cases.json`, its `about` says
/// what each one holds).
const TABLES: &str = include_str!("../../tests/fixtures/convert_cases.json");

/// The table `name`'s entries: a source, or `[source, expected JSON]` as `(source, expected)`.
fn table(name: &str) -> Vec<(String, String)> {
    let tables: serde_json::Value = serde_json::from_str(TABLES).expect("valid JSON");
    let text = |v: &serde_json::Value| v.as_str().expect("a string").to_string();
    let rows: Vec<(String, String)> = tables[name]
        .as_array()
        .expect("a table")
        .iter()
        .map(|row| match row.as_array() {
            Some(pair) => (text(&pair[0]), text(&pair[1])),
            None => (text(row), String::new()),
        })
        .collect();
    assert!(!rows.is_empty(), "table {name} is empty");
    rows
}

#[test]
fn no_json_values() {
    for (src, _) in table("no_json") {
        for pieces in splits(&src) {
            let mut conv = PyLiteral::new();
            let mut out = String::new();
            let mut step = Step::NeedMore;
            for p in &pieces {
                step = conv.feed(p, &mut out);
                assert_eq!(step, Step::NeedMore, "{pieces:?}");
            }
            if step == Step::NeedMore {
                step = conv.finish(&mut out);
            }
            assert_eq!(step, Step::Done(0), "{pieces:?}");
            assert!(conv.no_json(), "{pieces:?}");
        }
    }
    for (src, _) in table("cases").into_iter().chain(table("deviations")) {
        let mut conv = PyLiteral::new();
        let mut out = String::new();
        let _ = conv.feed(&src, &mut out);
        let _ = conv.finish(&mut out);
        assert!(!conv.no_json(), "{src:?}");
    }
}

#[test]
fn cases() {
    for (src, expected) in table("cases") {
        let src = src.as_str();
        for pieces in splits(src) {
            assert_eq!(
                run(&pieces),
                (expected.clone(), Ok(src.len())),
                "{pieces:?}"
            );
        }
        // the literal ends where the next token starts
        let with_paren = format!("{src})");
        let spaced = format!("{src} )");
        for pieces in [
            vec![with_paren.as_str()],
            vec![src, ")"],
            splits(&spaced).pop().unwrap(),
        ] {
            let total: usize = pieces.iter().map(|p| p.len()).sum();
            assert_eq!(
                run(&pieces),
                (expected.clone(), Ok(total - 1)),
                "{pieces:?}"
            );
        }
    }
}

#[test]
fn errors() {
    for (src, _) in table("errors") {
        let src = src.as_str();
        let first = run(&[src]).1;
        assert!(rejected(src, &first), "{src:?} accepted: {first:?}");
        for pieces in splits(src) {
            // the same verdict at the same offset for every split
            assert_eq!(run(&pieces).1, first, "{pieces:?}");
        }
    }
}

#[test]
fn unsupported_and_deviations() {
    for (src, _) in table("unsupported") {
        for pieces in splits(&src) {
            assert!(rejected(&src, &run(&pieces).1), "{pieces:?}");
        }
    }
    for (src, expected) in table("deviations") {
        for pieces in splits(&src) {
            assert_eq!(run(&pieces), (expected.clone(), Ok(src.len())));
        }
    }
}

#[test]
fn feed_after_end() {
    let mut out = String::new();
    let mut conv = PyLiteral::new();
    assert_eq!(conv.feed("[1] , 2", &mut out), Step::Done(4));
    assert_eq!(conv.feed("xyz", &mut out), Step::Done(0));
    assert_eq!(conv.finish(&mut out), Step::Done(0));
    assert_eq!(out, "[1]");
    let mut conv = PyLiteral::default();
    assert_eq!(conv.feed("[1 x", &mut out), Step::Error(3));
    assert_eq!(conv.feed("]", &mut out), Step::Error(0));
    assert_eq!(conv.finish(&mut out), Step::Error(0));
}

#[test]
fn done_offsets_are_bytes() {
    let mut out = String::new();
    let mut conv = PyLiteral::new();
    assert_eq!(conv.feed("'é' ", &mut out), Step::NeedMore);
    assert_eq!(conv.feed(" \n", &mut out), Step::NeedMore);
    assert_eq!(conv.feed("\u{a0})", &mut out), Step::Done(0)); // U+00A0 is not whitespace
    assert_eq!(out, "\"é\"");
    let mut out = String::new();
    let mut conv = PyLiteral::new();
    assert_eq!(conv.feed("12", &mut out), Step::NeedMore);
    assert_eq!(out, ""); // a number is written once complete
    assert_eq!(conv.feed("3,", &mut out), Step::Done(1));
    assert_eq!(out, "123");
    let mut conv = PyLiteral::new();
    assert_eq!(conv.feed("['漢', x]", &mut out), Step::Error(9));
}

#[test]
fn strings_stream() {
    let body: String = "abc é漢😀 \\n \\x41 \\' ".repeat(1000);
    let src = format!("'{body}'");
    let mut conv = PyLiteral::new();
    let mut out = String::new();
    let mut silent = 0;
    let pieces = chunks(&src, 4);
    for piece in &pieces {
        let before = out.len();
        assert_eq!(conv.feed(piece, &mut out), Step::NeedMore);
        if out.len() == before {
            silent += 1;
        }
    }
    assert_eq!(conv.feed(")", &mut out), Step::Done(0));
    // every feed wrote something, except ones that ended inside an escape
    assert!(silent < pieces.len() / 10, "{silent} of {}", pieces.len());
    let expected = "abc é漢😀 \\n A ' ".repeat(1000);
    assert_eq!(out, format!("\"{expected}\""));
}

#[test]
fn undecided_paren_holds_only_until_known() {
    let mut conv = PyLiteral::new();
    let mut out = String::new();
    assert_eq!(conv.feed("('abc", &mut out), Step::NeedMore);
    assert_eq!(out, ""); // tuple or group: not known yet
    assert_eq!(conv.feed("def',", &mut out), Step::NeedMore);
    assert_eq!(out, "[\"abcdef\"");
    assert_eq!(conv.feed(" 'x", &mut out), Step::NeedMore);
    assert_eq!(out, "[\"abcdef\", \"x"); // known now: streams again
}

#[test]
fn deep_nesting() {
    let n = 100_000;
    let cases = [
        (
            "[".repeat(n) + &"]".repeat(n),
            "[".repeat(n) + &"]".repeat(n),
        ),
        ("(".repeat(n) + "1" + &")".repeat(n), "1".to_string()),
        (
            "(".repeat(n) + "1," + &"),".repeat(n - 1) + ")",
            "[".repeat(n) + "1" + &"]".repeat(n),
        ),
        (
            "{'a': ".repeat(n) + "1" + &"}".repeat(n),
            "{\"a\": ".repeat(n) + "1" + &"}".repeat(n),
        ),
        (
            "-".to_string() + &"(".repeat(n) + "1" + &")".repeat(n),
            "-1".to_string(),
        ),
    ];
    for (src, expected) in &cases {
        assert_eq!(run(&[src]), (expected.clone(), Ok(src.len())));
        assert_eq!(run(&chunks(src, 7)), (expected.clone(), Ok(src.len())));
    }
    let bad = "[".repeat(n) + &"]".repeat(n - 1) + ")";
    assert!(rejected(&bad, &run(&[&bad]).1));
}

#[test]
fn never_panics_on_prefixes_and_bytes() {
    // every prefix of every case, fed whole and char by char, gives an answer
    for (src, _) in table("cases") {
        for (i, _) in src.char_indices() {
            let prefix = &src[..i];
            let whole = run(&[prefix]);
            assert_eq!(run(&splits(prefix).pop().unwrap()), whole, "{prefix:?}");
        }
    }
    let weird = [
        "\u{0}",
        "'\u{0}'",
        "\u{feff}1",
        "[\u{2028}]",
        "'\\",
        "(",
        "-(",
        "{(",
        "r",
        "u'",
    ];
    for src in weird {
        for pieces in splits(src) {
            let _ = run(&pieces);
        }
    }
}
