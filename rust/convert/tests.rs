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

/// Sources accepted by `ast.literal_eval`, with the oracle's JSON (generated from
/// `CASES` in `tests/test_convert.py`).
const CASES: &[(&str, &str)] = &[
    ("0", "0"),
    ("1", "1"),
    ("-1", "-1"),
    ("+1", "1"),
    ("- 1", "-1"),
    ("-\n1", "-1"),
    ("-(1)", "-1"),
    ("-((1))", "-1"),
    ("-( (1) )", "-1"),
    ("+(0x10)", "16"),
    ("1_000_000", "1000000"),
    ("00", "0"),
    ("0_0", "0"),
    ("-0", "0"),
    ("007.5", "7.5"),
    ("0x_1f", "31"),
    ("0XdeadBEEF", "3735928559"),
    ("-0x10", "-16"),
    ("0o17", "15"),
    ("0O1_7", "15"),
    ("0b1_01", "5"),
    ("-0b0", "0"),
    (
        "123456789012345678901234567890",
        "123456789012345678901234567890",
    ),
    (
        "0xffffffffffffffffffffffffffffffffffffffff",
        "1461501637330902918203684832716283019655932542975",
    ),
    (
        "-0o77777777777777777777777777777777777777777777777777",
        "-1427247692705959881058285969449495136382746623",
    ),
    ("1.5", "1.5"),
    ("1.", "1.0"),
    (".5", "0.5"),
    ("-.5", "-0.5"),
    ("1e5", "100000.0"),
    ("1E5", "100000.0"),
    ("1e+5", "100000.0"),
    ("1e-5", "1e-05"),
    ("1_0.5e-3", "0.0105"),
    ("1.5E-3_0", "1.5e-30"),
    ("-0.0", "-0.0"),
    ("0.0", "0.0"),
    ("1e16", "1e+16"),
    ("1.5e16", "1.5e+16"),
    ("9999999999999998.0", "9999999999999998.0"),
    ("0.0001", "0.0001"),
    ("0.00001", "1e-05"),
    ("123456789012345678.0", "1.2345678901234568e+17"),
    ("1e308", "1e+308"),
    ("5e-324", "5e-324"),
    ("2.2250738585072014e-308", "2.2250738585072014e-308"),
    ("0e0", "0.0"),
    ("1.e5", "100000.0"),
    ("0_1.5", "1.5"),
    ("0123e1", "1230.0"),
    ("-1.5e-7", "-1.5e-07"),
    ("3.141592653589793", "3.141592653589793"),
    ("0.1", "0.1"),
    ("1e22", "1e+22"),
    ("1e23", "1e+23"),
    ("1_000.000_1", "1000.0001"),
    ("-(1.5)", "-1.5"),
    ("True", "true"),
    ("False", "false"),
    ("None", "null"),
    ("(True)", "true"),
    ("'abc'", "\"abc\""),
    ("\"abc\"", "\"abc\""),
    ("''", "\"\""),
    ("\"\"", "\"\""),
    ("''''''", "\"\""),
    ("\"\"\"\"\"\"", "\"\""),
    ("'a\"b'", "\"a\\\"b\""),
    ("\"a'b\"", "\"a'b\""),
    ("'''a''b'''", "\"a''b\""),
    ("\"\"\"x\"y\"\"z\"\"\"", "\"x\\\"y\\\"\\\"z\""),
    ("'''a\nb'''", "\"a\\nb\""),
    ("'''a\r\nb\rc'''", "\"a\\nb\\nc\""),
    ("'''\\''''", "\"'\""),
    ("r'''\\''''", "\"\\\\'\""),
    ("'a' 'b'", "\"ab\""),
    ("'a''b'", "\"ab\""),
    ("'a' \"b\"", "\"ab\""),
    ("'a'\n'b'", "\"ab\""),
    ("'a'\\\n'b'", "\"ab\""),
    ("'a' r'\\d'", "\"a\\\\d\""),
    ("'a'r'b'", "\"ab\""),
    ("u'x'", "\"x\""),
    ("U'x'", "\"x\""),
    ("R'\\n'", "\"\\\\n\""),
    ("r'\\\\'", "\"\\\\\\\\\""),
    ("r'a\\'b'", "\"a\\\\'b\""),
    ("r\"\\\"\"", "\"\\\\\\\"\""),
    ("r'''a\nb\\\n'''", "\"a\\nb\\\\\\n\""),
    ("'é漢😀'", "\"é漢😀\""),
    ("'\u{2028}\u{85}'", "\"\u{2028}\u{85}\""),
    (
        "'\\t\\n\\r\\b\\f\\v\\a'",
        "\"\\t\\n\\r\\b\\f\\u000b\\u0007\"",
    ),
    ("'\\\\'", "\"\\\\\""),
    ("'\\''", "\"'\""),
    ("'\\\"'", "\"\\\"\""),
    ("\"\\'\"", "\"'\""),
    ("'\u{1}\u{1f}\u{7f}\t'", "\"\\u0001\\u001f\u{7f}\\t\""),
    ("'\\x41\\xe9\\xFF'", "\"Aéÿ\""),
    ("'\\u00e9\\u20AC'", "\"é€\""),
    ("'\\U0001F600\\U0010FFFF'", "\"😀\u{10ffff}\""),
    ("'\\101\\0\\1234\\777'", "\"A\\u0000S4ǿ\""),
    ("'\\08'", "\"\\u00008\""),
    ("'\\7\\77\\777\\7777'", "\"\\u0007?ǿǿ7\""),
    ("'\\d\\8\\9\\z\\ '", "\"\\\\d\\\\8\\\\9\\\\z\\\\ \""),
    ("'a\\\nb'", "\"ab\""),
    ("'a\\\r\nb'", "\"ab\""),
    ("'\\ud83d\\ude00'", "\"��\""),
    ("'\\udfff'", "\"�\""),
    ("'\"'", "\"\\\"\""),
    ("'\\x00'", "\"\\u0000\""),
    ("'}]),:'", "\"}]),:\""),
    ("('a' 'b')", "\"ab\""),
    ("['a'\n'b', 'c']", "[\"ab\", \"c\"]"),
    ("{'a' 'b': 'c'}", "{\"ab\": \"c\"}"),
    ("'''''' ''", "\"\""),
    ("'' ''", "\"\""),
    ("'' '''x'''", "\"x\""),
    ("[]", "[]"),
    ("[1]", "[1]"),
    ("[1, 2, 3]", "[1, 2, 3]"),
    ("[1, 2,]", "[1, 2]"),
    ("[ 1 , 2 , ]", "[1, 2]"),
    ("[\n 1 ,\n\t2\n]", "[1, 2]"),
    ("[1,\\\n2]", "[1, 2]"),
    ("[1,\u{c}2]", "[1, 2]"),
    ("[[[]]]", "[[[]]]"),
    ("[[1, [2]], [3]]", "[[1, [2]], [3]]"),
    ("()", "[]"),
    ("(1)", "1"),
    ("(1,)", "[1]"),
    ("(1, 2)", "[1, 2]"),
    ("(1, 2,)", "[1, 2]"),
    ("((1, 2), 3)", "[[1, 2], 3]"),
    ("((1), 2)", "[1, 2]"),
    ("(((1)))", "1"),
    ("((1,),)", "[[1]]"),
    ("[()]", "[[]]"),
    ("[(), (1,), ((),)]", "[[], [1], [[]]]"),
    ("(('a',),)", "[[\"a\"]]"),
    ("( 'x' )", "\"x\""),
    ("(\n'long' 'string'\n)", "\"longstring\""),
    ("([1], {'a': (2)})", "[[1], {\"a\": 2}]"),
    ("{}", "{}"),
    ("{ }", "{}"),
    ("{'a': 1}", "{\"a\": 1}"),
    ("{'a': 1,}", "{\"a\": 1}"),
    ("{'a':1,'b':[2,3]}", "{\"a\": 1, \"b\": [2, 3]}"),
    (
        "{1: 2, 1.5: 3, None: 5, -1: 6, False: 7}",
        "{\"1\": 2, \"1.5\": 3, \"null\": 5, \"-1\": 6, \"false\": 7}",
    ),
    ("{(1): 2}", "{\"1\": 2}"),
    ("{('a'): 1}", "{\"a\": 1}"),
    ("{((-1)): 2}", "{\"-1\": 2}"),
    ("{-(1): 2}", "{\"-1\": 2}"),
    ("{-0.0: 1}", "{\"-0.0\": 1}"),
    ("{0x10: 'a'}", "{\"16\": \"a\"}"),
    ("{'k': ()}", "{\"k\": []}"),
    ("{'a': [1, {'b': (2,)}],}", "{\"a\": [1, {\"b\": [2]}]}"),
    ("{'a':{'b':{}}}", "{\"a\": {\"b\": {}}}"),
    ("{'\\n\"': '\\t'}", "{\"\\n\\\"\": \"\\t\"}"),
    ("[True, False, None]", "[true, false, null]"),
    ("{True: None}", "{\"true\": null}"),
    ("[-1, +2, -3.5, - 4]", "[-1, 2, -3.5, -4]"),
    ("[1,(2),((3,)),(((4),),)]", "[1, 2, [3], [[4]]]"),
    ("(-1)", "-1"),
    ("(-1,)", "[-1]"),
];

/// Sources that must be rejected (`ERRORS` in `tests/test_convert.py`, without the
/// over-long ones, which `big_ints` covers).
const ERRORS: &[&str] = &[
    "",
    " ",
    "x",
    "f()",
    "none",
    "inf",
    "nan",
    "[inf]",
    "Truex",
    "True'x'",
    "1+2",
    "[1+2]",
    "[1 - 2]",
    "[1 2]",
    "[1+2j]",
    "[*x]",
    "{(1, 2)}",
    "{1: 2, 3}",
    "{[1]: 2}",
    "{{}: 2}",
    "{(1, 2): 3}",
    "{(): 1}",
    "{(1,): 2}",
    "{'a' 1}",
    "{'a':}",
    "{'a': 1 'b': 2}",
    "{,}",
    "[,]",
    "(,)",
    "[1,,2]",
    "(1,,)",
    "[1, 2",
    "[1, 2)",
    "(1]",
    "{'a': 1]",
    "]",
    ")",
    "}",
    "()()",
    "(1)(2)",
    "[1][0]",
    "[1 if 1 else 2]",
    "f'x'",
    "F'x'",
    "rf'x'",
    "ur'x'",
    "'a' b'x'",
    "'a' f'x'",
    "'a' x",
    "'a' ru'x'",
    "[True x]",
    "[None.x]",
    "[1 .real]",
    "[x.y]",
    "'abc",
    "'''abc''",
    "'''abc",
    "\"abc'",
    "'\\",
    "'\\x4'",
    "'\\x4g'",
    "'\\u00e'",
    "'\\U0011000'",
    "'\\U00110000'",
    "'\\N{DASH}'",
    "'\\N'",
    "'a\0'",
    "r'a\0'",
    "'\\\0'",
    "r'\\'",
    "r'''\\'''",
    "--1",
    "-+1",
    "-(-1)",
    "-True",
    "-None",
    "-'a'",
    "-[1]",
    "-(1,)",
    "-(1",
    "-((1)",
    "- x",
    "0123",
    "0_1",
    "1__0",
    "1_",
    "1_.5",
    "1._5",
    "1.5_",
    "1e",
    "1e+",
    "1e_5",
    "1e5_",
    "0x",
    "0x_",
    "0x1_",
    "0x__1",
    "0b2",
    "0b12",
    "0o8",
    "0xg",
    "1x",
    "1..5",
    "1.5.5",
    "[1.e]",
    "[.]",
    "[.e5]",
    "[1,\\ 2]",
    "1 \\ 2",
    "[\\]",
    "\\",
    "[1]\\",
    "[\u{b}1]",
    "[\u{a0}1]",
    "(1 2)",
];

/// Python accepts these; the converter rejects them (comments are not supported).
const UNSUPPORTED: &[&str] = &["[1 # comment\n]", "[1, # c\n 2]", "# c\n1"];

/// Duplicate keys are written as they come (Python merges equal keys first); beyond
/// `ast.literal_eval` (what models write and the peers read): sets are lists in source order,
/// JSON's `null`/`true`/`false` are read, a raw line end in a one-line string is kept.
const DEVIATIONS: &[(&str, &str)] = &[
    ("{1: 'a', 1: 'b'}", "{\"1\": \"a\", \"1\": \"b\"}"),
    ("{1: 'a', True: 'b'}", "{\"1\": \"a\", \"true\": \"b\"}"),
    ("{'urgent', 'bug'}", "[\"urgent\", \"bug\"]"),
    ("{1, 2}", "[1, 2]"),
    ("{1}", "[1]"),
    ("{1,}", "[1]"),
    ("{(1)}", "[1]"),
    ("{None, True, 1.5, -2}", "[null, true, 1.5, -2]"),
    ("[{3, 1}, ({2},)]", "[[3, 1], [[2]]]"),
    ("({1: 2},)", "[{\"1\": 2}]"),
    ("(({1},),)", "[[[1]]]"),
    ("{(1): {2}, 3: 4}", "{\"1\": [2], \"3\": 4}"),
    ("{True: 1}", "{\"true\": 1}"),
    (
        "{'a': null, 'b': true, 'c': false}",
        "{\"a\": null, \"b\": true, \"c\": false}",
    ),
    ("[null, true, false, None]", "[null, true, false, null]"),
    ("{null: 1}", "{\"null\": 1}"),
    ("true", "true"),
    ("'abc\n'", "\"abc\\n\""),
    ("'a\rb'", "\"a\\rb\""),
    ("'\rb'", "\"\\rb\""),
    ("'a\r\nb'", "\"a\\r\\nb\""),
    ("\"l1\nl2\"", "\"l1\\nl2\""),
];

/// Valid literals whose value has no JSON form: read to their end, flagged by `no_json`.
const NO_JSON: &[&str] = &[
    "b'x'",
    "B'x'",
    "rb'x'",
    "br'x\\\\'",
    "1j",
    "[1j]",
    "[1.5J, 2]",
    "1e3j",
    "...",
    "[...]",
    "-...",
    "1e400",
    "-1e400",
    "[1e999]",
    "{'a': [1, b'z']}",
    "{b'k': 1}",
    "{1j}",
];

#[test]
fn no_json_values() {
    for &src in NO_JSON {
        for pieces in splits(src) {
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
    for &(src, _) in CASES.iter().chain(DEVIATIONS) {
        let mut conv = PyLiteral::new();
        let mut out = String::new();
        let _ = conv.feed(src, &mut out);
        let _ = conv.finish(&mut out);
        assert!(!conv.no_json(), "{src:?}");
    }
}

#[test]
fn cases() {
    for &(src, expected) in CASES {
        for pieces in splits(src) {
            assert_eq!(
                run(&pieces),
                (expected.to_string(), Ok(src.len())),
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
                (expected.to_string(), Ok(total - 1)),
                "{pieces:?}"
            );
        }
    }
}

#[test]
fn errors() {
    for &src in ERRORS {
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
    for &src in UNSUPPORTED {
        for pieces in splits(src) {
            assert!(rejected(src, &run(&pieces).1), "{pieces:?}");
        }
    }
    for &(src, expected) in DEVIATIONS {
        for pieces in splits(src) {
            assert_eq!(run(&pieces), (expected.to_string(), Ok(src.len())));
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
    for &(src, _) in CASES {
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
