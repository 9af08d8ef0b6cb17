use super::*;
use crate::event::Extracted;
use crate::formats::test_support::{char_bounds, feed_cut, Rng};
use crate::formats::{Format, Parser};

fn tools() -> Tools {
    let params = [
        ("s", &["string"][..]),
        ("n", &["integer"]),
        ("x", &["number"]),
        ("b", &["boolean"]),
        ("o", &["object"]),
        ("a", &["array"]),
        ("u", &["integer", "null"]),
        ("v", &["string", "integer"]),
    ];
    Tools::new(
        [(
            "f".to_owned(),
            params
                .into_iter()
                .map(|(k, v)| {
                    (
                        k.to_owned(),
                        v.iter().map(std::string::ToString::to_string).collect(),
                    )
                })
                .collect(),
        )]
        .into_iter()
        .collect(),
    )
}

fn extract(text: &str) -> Extracted {
    let f = Format::from_name("qwen3_coder").unwrap_or_else(|| panic!("not registered"));
    Parser::extract(f, &tools(), text)
}

/// Streams `text` one character at a time; returns (content, [(name, args)], malformed or
/// truncated).
fn stream_chars(text: &str) -> (String, Vec<(String, String)>, bool) {
    let f = Format::from_name("qwen3_coder").unwrap_or_else(|| panic!("not registered"));
    let mut p = Parser::new(f, &tools());
    let events = feed_cut(&mut p, text, &char_bounds(text));
    let x = Extracted::from_events(events, p.malformed(), p.truncated());
    (
        x.content.unwrap_or_default(),
        x.calls.into_iter().map(|c| (c.name, c.arguments)).collect(),
        x.malformed || x.truncated,
    )
}

#[test]
fn typed_call() {
    let text = "Hi\n<tool_call>\n<function=f>\n<parameter=s>\nline1\nline2\n</parameter>\n\
                <parameter=n>\n-07\n</parameter>\n<parameter=x>\n1e5\n</parameter>\n\
                <parameter=b>\nTrue\n</parameter>\n<parameter=o>\n{\"k\":[1,2]}\n</parameter>\n\
                <parameter=z>\n\"q\"\n</parameter>\n</function>\n</tool_call>";
    let x = extract(text);
    assert!(!x.malformed);
    assert_eq!(x.content.as_deref(), Some("Hi\n"));
    assert_eq!(x.calls.len(), 1);
    assert_eq!(
        x.calls[0].arguments,
        r#"{"s": "line1\nline2", "n": -7, "x": 100000.0, "b": true, "o": {"k": [1, 2]}, "z": "\"q\""}"#
    );
    let (content, calls, malformed) = stream_chars(text);
    assert!(!malformed);
    assert_eq!(content, "Hi\n");
    assert_eq!(calls[0].1, x.calls[0].arguments);
}

#[test]
fn other_styles() {
    let cases: &[(&str, &str, &str)] = &[
        (
            "seed_oss",
            "<seed:tool_call>\n<function=f>\n<parameter=n>\n1\n</parameter>\n</function>\n</seed:tool_call>",
            r#"{"n": 1}"#,
        ),
        (
            "minimax_m2",
            "<minimax:tool_call>\n<invoke name=\"f\">\n<parameter name=\"s\">a\nb</parameter>\n\
             <parameter name=\"n\">2</parameter>\n</invoke>\n<invoke name=\"f\">\n</invoke>\n</minimax:tool_call>",
            r#"{"s": "a\nb", "n": 2}"#,
        ),
        (
            "glm45",
            "<tool_call>f\n<arg_key>s</arg_key>\n<arg_value> x </arg_value>\n</tool_call>\n<tool_call>f\n</tool_call>",
            r#"{"s": " x "}"#,
        ),
        (
            "glm47",
            "<tool_call>f<arg_key>n</arg_key><arg_value>3</arg_value></tool_call><tool_call>f</tool_call>",
            r#"{"n": 3}"#,
        ),
        (
            "step3",
            "<｜tool_calls_begin｜><｜tool_call_begin｜>function<｜tool_sep｜><steptml:invoke name=\"f\">\
             <steptml:parameter name=\"b\">True</steptml:parameter></steptml:invoke><｜tool_call_end｜>\
             <｜tool_call_begin｜>function<｜tool_sep｜><steptml:invoke name=\"f\"></steptml:invoke>\
             <｜tool_call_end｜><｜tool_calls_end｜>",
            r#"{"b": true}"#,
        ),
        (
            "deepseek_v32",
            "<｜DSML｜function_calls><｜DSML｜invoke name=\"f\"><｜DSML｜parameter name=\"n\" \
             string=\"true\">1</｜DSML｜parameter><｜DSML｜parameter name=\"s\" string=\"false\">\
             [1]</｜DSML｜parameter></｜DSML｜invoke><｜DSML｜invoke name=\"f\"></｜DSML｜invoke>\
             </｜DSML｜function_calls>",
            r#"{"n": "1", "s": [1]}"#,
        ),
    ];
    for (name, text, want) in cases {
        let f = Format::from_name(name).unwrap_or_else(|| panic!("{name} not registered"));
        let x = Parser::extract(f, &tools(), text);
        assert!(!x.malformed && !x.truncated, "{name}: {x:?}");
        let mut calls = x.calls.iter().map(|c| c.arguments.as_str());
        let first = calls.next();
        assert_eq!(first, Some(*want), "{name}");
        if *name != "seed_oss" {
            assert_eq!(calls.next(), Some("{}"), "{name}");
        }
        let mut p = Parser::new(f, &tools());
        let events = feed_cut(&mut p, text, &char_bounds(text));
        let y = Extracted::from_events(events, p.malformed(), p.truncated());
        assert_eq!(y.calls.len(), x.calls.len(), "{name}");
        assert_eq!(y.calls[0].arguments, *want, "{name}");
    }
}

#[test]
fn newlines_stripped_once() {
    let x = extract("<function=f>\n<parameter=s>\n\nv\n\n</parameter>\n</function>");
    assert_eq!(x.calls[0].arguments, r#"{"s": "\nv\n"}"#);
    let x = extract(
        "<function=f>\n<parameter=s>\n</parameter>\n<parameter=t>\n\n</parameter>\n</function>",
    );
    assert_eq!(x.calls[0].arguments, r#"{"s": "", "t": ""}"#);
    let x = extract("<function=f>\n<parameter=s>\na\n<parameter=n>\n1\n</function>");
    assert_eq!(x.calls[0].arguments, r#"{"s": "a", "n": 1}"#);
    assert!(!x.malformed);
}

#[test]
fn malformed_and_truncated() {
    for text in [
        "<tool_call>\n<function=f>\n<parameter=s>\nabc",
        "<tool_call>\n<function=f>\n<parameter=s",
        "a <tool_call>\n<function=f",
        "<function=f>\n<parameter=n>\n1\n</parameter>\n",
    ] {
        let x = extract(text);
        assert!(
            x.truncated && !x.malformed && x.calls.is_empty(),
            "{text:?} {x:?}"
        );
        assert!(stream_chars(text).2, "{text:?}");
    }
    let x = extract("<tool_call>\n<function=f>\njunk\n</function>");
    assert!(x.malformed);
    let two = "a <tool_call>\n<function=f>\n</function>\n</tool_call>\n<tool_call>\n<function=g";
    let x = extract(two);
    assert!(x.truncated && !x.malformed, "{x:?}");
    assert_eq!(x.content.as_deref(), Some("a "));
    assert_eq!(x.calls.len(), 1);
    let x = extract("x <tool_call>{\"name\": 1}</tool_call> <function=a b>");
    assert!(!x.malformed);
    assert_eq!(
        x.content.as_deref(),
        Some("x <tool_call>{\"name\": 1}</tool_call> <function=a b>")
    );
    let x = extract("<tool_call>\n<function=f>\n<parameter=n>\n1\n</parameter>\n</tool_call>");
    assert!(!x.malformed);
    assert_eq!(x.calls[0].arguments, r#"{"n": 1}"#);
}
#[test]
fn closing_tag_inside_a_value() {
    let head = "<function=f>\n<parameter=s>\n";
    let spaces = " ".repeat(WS_CAP);
    let long = format!(r#"{{"s": "a</parameter> {spaces}</function>"}}"#);
    let cases: &[(String, &str)] = &[
        // not followed by markup: the tag is value text
        (
            format!("{head}a</parameter>b\n</parameter>\n</function>"),
            r#"{"s": "a</parameter>b"}"#,
        ),
        (
            format!("{head}x\n</parameter>\ny\n</parameter>\n</function>"),
            r#"{"s": "x\n</parameter>\ny"}"#,
        ),
        // the leading newline of a value that starts with a tag that is text is stripped
        (
            format!("{head}</parameter>x\n</parameter>\n</function>"),
            r#"{"s": "</parameter>x"}"#,
        ),
        (
            format!("{head}f {{\n</function>\n}}\n</parameter>\n</function>"),
            r#"{"s": "f {\n</function>\n}"}"#,
        ),
        // followed by markup (after at most WS_CAP bytes of whitespace): it closes
        (
            format!("{head}a</parameter><parameter=n>1</parameter></function>"),
            r#"{"s": "a", "n": 1}"#,
        ),
        (
            format!("{head}a</parameter>{spaces}</function>"),
            r#"{"s": "a"}"#,
        ),
        (
            format!("{head}a</parameter> {spaces}</function>\n</parameter>\n</function>"),
            &long,
        ),
        // the implicit end `\n</function>` before `</tool_call>` or the end of the output
        (
            format!("<tool_call>{head}abc\n</function>\n</tool_call>"),
            r#"{"s": "abc"}"#,
        ),
        (format!("{head}abc\n</function>\n"), r#"{"s": "abc"}"#),
        // unions are typed at close
        (
            "<function=f>\n<parameter=u>\n42\n</parameter>\n<parameter=v>\n5\n</parameter>\n\
             <parameter=v>\nx5\n</parameter>\n<parameter=u>\nNone\n</parameter>\n</function>"
                .to_owned(),
            r#"{"u": 42, "v": 5, "v": "x5", "u": null}"#,
        ),
    ];
    for (text, want) in cases {
        let x = extract(text);
        assert!(!x.malformed, "{text:?}");
        assert_eq!(x.calls.len(), 1, "{text:?}");
        assert_eq!(x.calls[0].arguments, *want, "{text:?}");
        let (content, calls, malformed) = stream_chars(text);
        assert!(!malformed && content.is_empty(), "{text:?}");
        assert_eq!(calls[0].1, *want, "{text:?}");
    }
    // At the end of the output a held tag closes the value; the call is cut off.
    let text = format!("{head}V</parameter>\n");
    let x = extract(&text);
    assert!(x.truncated && !x.malformed && x.calls.is_empty());
    let every: Vec<usize> = (1..text.len()).collect();
    let (_, calls, cut) = stream_cuts(&text, &every);
    assert!(cut);
    assert_eq!(calls[0].1, r#"{"s": "V""#);
}

/// Streams `text` cut at `cuts`; returns (content, [(name, args)], malformed or truncated).
fn stream_cuts(text: &str, cuts: &[usize]) -> (String, Vec<(String, String)>, bool) {
    let f = Format::from_name("qwen3_coder").unwrap_or_else(|| panic!("not registered"));
    let mut p = Parser::new(f, &tools());
    let events = feed_cut(&mut p, text, cuts);
    let mut content = String::new();
    let mut calls: Vec<(String, String)> = Vec::new();
    for ev in events {
        match ev {
            crate::event::Event::Content(t) => content.push_str(&t),
            crate::event::Event::ToolStart { index, name, .. } => {
                assert_eq!(index, calls.len());
                calls.push((name, String::new()));
            }
            crate::event::Event::ToolArgs { index, fragment } => calls[index].1.push_str(&fragment),
            _ => {}
        }
    }
    (content, calls, p.malformed() || p.truncated())
}

#[test]
fn random_texts_are_split_invariant() {
    const PIECES: &[&str] = &[
        "<tool_call>",
        "</tool_call>",
        "<tool_call>\n<function=f>\n",
        "<function=f>",
        "<function=",
        "</function>",
        "\n</function>",
        "<parameter=s>",
        "<parameter=n>",
        "<parameter=x>",
        "<parameter=b>",
        "<parameter=o>",
        "<parameter=u>",
        "<parameter=v>",
        "<parameter=",
        "</parameter>x",
        "</parameter> \n",
        "\n</function>x",
        "</parameter>",
        "\n</parameter>\n",
        "\n<parameter=a>\n",
        "\n",
        "\n\n",
        " ",
        "a",
        "é",
        "🎉",
        "\"",
        "\\",
        "<",
        ">",
        "/",
        "=",
        "{\"k\": [1, 2.5e3]}",
        "[]",
        "1",
        "-0",
        "1.50",
        "True",
        "null",
        "x",
        "\t",
        "\u{1}",
    ];
    let valid = "Hi <tool_call>\n<function=f>\n<parameter=s>\nv\"\\\n</parameter>\n\
                 <parameter=n>\n12\n</parameter>\n<parameter=o>\n{\"a\": []}\n</parameter>\n\
                 </function>\n</tool_call>\n<function=g>\n</function> bye";
    let mut rng = Rng(0x2545_F491_4F6C_DD1D);
    for round in 0..3000 {
        let mut s = String::from(if round % 2 == 0 { valid } else { "" });
        rng.edits(&mut s, PIECES, 14);
        let whole = stream_cuts(&s, &[]);
        let every = char_bounds(&s);
        assert_eq!(stream_cuts(&s, &every), whole, "{s:?}");
        if !every.is_empty() {
            let cuts: Vec<usize> = {
                let mut c: Vec<usize> = (0..5).map(|_| every[rng.below(every.len())]).collect();
                c.sort_unstable();
                c.dedup();
                c
            };
            assert_eq!(stream_cuts(&s, &cuts), whole, "{s:?} {cuts:?}");
        }
        let x = extract(&s);
        assert_eq!(x.malformed || x.truncated, whole.2, "{s:?}");
        // (truncated texts: rust/formats/invariants.rs)
        if !whole.2 {
            assert_eq!(x.content.unwrap_or_default(), whole.0, "{s:?}");
            let calls: Vec<(String, String)> =
                x.calls.into_iter().map(|c| (c.name, c.arguments)).collect();
            assert_eq!(calls, whole.1, "{s:?}");
            for (_, args) in &calls {
                assert!(
                    crate::json::is_json(args),
                    "bad arguments {args:?} in {s:?}"
                );
            }
        }
    }
}

/// The style switches of the XML-like formats, on the formats that use them.
fn extract_as(fmt: &str, text: &str) -> Extracted {
    let f = Format::from_name(fmt).unwrap_or_else(|| panic!("{fmt} not registered"));
    Parser::extract(f, &tools(), text)
}

fn calls(x: &Extracted) -> Vec<(&str, &str)> {
    x.calls
        .iter()
        .map(|c| (c.name.as_str(), c.arguments.as_str()))
        .collect()
}

#[test]
fn name_ends_at_a_tag() {
    // hy_v3: `<tool_sep>` ends the name; a name cut inside the tag waits for the rest
    let text = "<tool_calls>\n<tool_call>f<tool_sep>\n<arg_key>n</arg_key>\n<arg_value>7\
                </arg_value>\n</tool_call>\n</tool_calls>";
    let x = extract_as("hy_v3", text);
    assert_eq!(calls(&x), [("f", "{\"n\": 7}")]);
    assert_eq!(x.content, None);
    // without the tag the name ends at `<` of something else: not a call
    let text = "<tool_calls><tool_call>f<arg_key>n</arg_key></tool_call></tool_calls>";
    let x = extract_as("hy_v3", text);
    assert!(x.calls.is_empty());
}

#[test]
fn several_section_starts() {
    // deepseek_v4: `call_start_2`, `call_start_3` open the section too
    for start in [
        "<｜DSML｜tool_calls>",
        "<｜DSML｜toolcalls>",
        "<｜DSML｜tool>",
    ] {
        let text = format!(
            "a{start}\n<｜DSML｜invoke name=\"f\">\n<｜DSML｜parameter name=\"n\" \
             string=\"false\">7</｜DSML｜parameter>\n</｜DSML｜invoke>\n</｜DSML｜tool_calls>"
        );
        let x = extract_as("deepseek_v4", &text);
        assert_eq!(calls(&x), [("f", "{\"n\": 7}")], "{start}");
        assert_eq!(x.content.as_deref(), Some("a"));
    }
}

#[test]
fn value_type_element() {
    // k2_horizon: the type picks a union's member; an unknown parameter takes the type
    let cases = [
        ("v", "integer", "12", "{\"v\": 12}"),
        ("v", "string", "12", "{\"v\": \"12\"}"),
        ("n", "string", "12", "{\"n\": 12}"),
        ("zz", "number", "2.5", "{\"zz\": 2.5}"),
        ("zz", "any", "2.5", "{\"zz\": \"2.5\"}"),
        ("zz", "", "2.5", "{\"zz\": \"2.5\"}"),
    ];
    for (key, ty, value, want) in cases {
        let text = format!(
            "<ifm|tool_calls>\n<ifm|tool_call>f\n<ifm|arg_key>{key}</ifm|arg_key>\n\
             <ifm|arg_type>{ty}</ifm|arg_type>\n<ifm|arg_value>{value}</ifm|arg_value>\n\
             </ifm|tool_call>\n</ifm|tool_calls>"
        );
        let x = extract_as("k2_horizon", &text);
        assert_eq!(calls(&x), [("f", want)], "{key} {ty}");
    }
    // a type past NAME_MAX is malformed
    let text = format!(
        "<ifm|tool_call>f\n<ifm|arg_key>zz</ifm|arg_key><ifm|arg_type>{}",
        "t".repeat(NAME_MAX + 1)
    );
    assert!(extract_as("k2_horizon", &text).malformed);
}

#[test]
fn self_closing_function() {
    // deepseek_v4: `<｜DSML｜invoke name="f"/>` is a call without arguments
    let text = "<｜DSML｜tool_calls>\n<｜DSML｜invoke name=\"f\"/>\n<｜DSML｜invoke name=\"g\">\
                </｜DSML｜invoke>\n</｜DSML｜tool_calls>";
    let x = extract_as("deepseek_v4", text);
    assert_eq!(calls(&x), [("f", "{}"), ("g", "{}")]);
    assert_eq!(x.content, None);
    // a blank name before it is not a call
    let text = "<｜DSML｜invoke name=\" \"/>";
    assert!(extract_as("deepseek_v4", text).calls.is_empty());
}

#[test]
fn xtml_attributes_heads_and_channels() {
    // kimi_k3: attributes after the name are skipped to `<|sep|>`; the type attribute types
    // the value (no type: a string); names and keys are attribute-escaped; the channel
    // markers around the content are dropped; a call outside the tools channel is text
    let arg = |k: &str, ty: &str, v: &str| {
        let head = if ty.is_empty() {
            String::new()
        } else {
            format!(" type=\"{ty}\"")
        };
        format!("<|open|>argument key=\"{k}\"{head}<|sep|>{v}<|close|>argument<|sep|>")
    };
    let text = format!(
        "<|open|>response<|sep|>Hi<|close|>response<|sep|><|open|>tools<|sep|>\
         <|open|>call tool=\"a&amp;b\" index=\"1\"<|sep|>{}{}{}{}{}<|close|>call<|sep|>\
         <|open|>call tool=\"g\" index=\"2\"<|sep|><|close|>call<|sep|><|close|>tools<|sep|>\
         <|close|>message<|sep|>",
        arg("s", "string", "12"),
        arg("k&quot;1", "number", "1.50"),
        arg("o", "object", "{\"x\":[true,null]}"),
        arg("bad", "array", "[1,"),
        arg("t", "", "7"),
    );
    let x = extract_as("kimi_k3", &text);
    assert_eq!(
        calls(&x),
        [
            (
                "a&b",
                "{\"s\": \"12\", \"k\\\"1\": 1.5, \"o\": {\"x\": [true, null]}, \"bad\": \"[1,\", \
                 \"t\": \"7\"}"
            ),
            ("g", "{}")
        ]
    );
    assert_eq!(x.content.as_deref(), Some("Hi"));
    assert!(!x.malformed && !x.truncated);
    let bare = "<|open|>call tool=\"f\" index=\"1\"<|sep|><|close|>call<|sep|>";
    assert!(extract_as("kimi_k3", bare).calls.is_empty());
    // attributes that run into other markup, or past NAME_MAX, are malformed
    let open = "<|open|>tools<|sep|><|open|>call tool=\"f\" index=\"1\"";
    assert!(extract_as("kimi_k3", &format!("{open}<|open|>argument")).malformed);
    let long = format!(
        "{open}{}<|sep|><|close|>call<|sep|>",
        " ".repeat(NAME_MAX + 1)
    );
    assert!(extract_as("kimi_k3", &long).malformed);
}
