//! JSON tool calls after a start marker: `START {call} END` (hermes, granite4, longcat,
//! internlm, gigachat3) or `START [{call}, ...] END` (jamba, hunyuan_a13b, granite,
//! phi4_mini_json, xlam). Formats that differ only in their markers, their shape and their call
//! keys share this machine, configured by [`Tags`] from the spec entry:
//! - `markers`: the end markers (roles `call_end`, `call_end_2`, ... in the spec), then the
//!   start markers (`call_start`, `call_start_2`, ...): a format may have several spellings,
//!   e.g. granite's `<|tool_call|>` and `<tool_call>`, xlam's ```` ```json ````, `[TOOL_CALLS]`
//!   and a bare `[`. An end marker may be missing; without one, text after the body is content.
//!   Where a string is both (xlam's ```` ``` ````), after a body it is the end marker. A start
//!   marker that is the body's own opening bracket (xlam's `[`) is left for the body to read.
//! - `array`: the body is a JSON array of call objects (`call.shape` = "array").
//! - `keys`: the keys that name the function and hold its arguments (`call.name_keys`,
//!   `call.args_keys`) and whether the arguments may be a JSON string holding the object
//!   (`arguments` = "json_object_or_json_string").
//! - `tentative` (`call.tentative`): a start marker is something prose may hold
//!   (phi4_mini_json's `functools`, xlam's `[` and fences): until a call has started, what
//!   follows it may turn out not to be calls, and then the marker and what was read are text
//!   (not malformed markup), an empty list included, and scanning goes on after them.
//! - `text`: what plain text is scanned for: the start markers, then markers that only wrap
//!   the content (cohere's `<|START_RESPONSE|>` ... `<|END_RESPONSE|>`, roles `text_start`,
//!   `text_end`): those are markup, dropped wherever they stand in the text.
//! - `keys.by_name` (`call.keyed_by_name`): a call is `{NAME: {...}}` (apertus), not an object
//!   with name and arguments keys.
//! - `keys.id` (`call.id_keys`): a key whose string value, given before the call starts, is the
//!   call's id (cohere's `tool_call_id`; spec `id_style` "model").
//!
//! After a body, whitespace and then a start marker begin another body (the previous end marker
//! missing); whitespace and then an end marker close it; anything else is content.

use super::{Machine, Region, RegionStep};
use crate::event::Emitter;
use crate::json::{CallKeys, Calls};
use crate::scan::{expect, Expect, Found, Markers, WS_MAX};

/// How one tagged-JSON format writes its calls (built from its spec entry by `build.rs`).
#[derive(Debug)]
pub struct Tags {
    /// The end markers, then the start markers.
    pub markers: Markers,
    /// How many of `markers` are end markers.
    pub ends: usize,
    /// Whether the body is a JSON array of calls rather than one call object.
    pub array: bool,
    /// The call object's keys.
    pub keys: CallKeys,
    /// Whether a start marker not followed by calls is text (else malformed markup).
    pub tentative: bool,
    /// What plain text is scanned for: the start markers, then the content's wrapper markers
    /// (dropped).
    pub text: Markers,
}

#[derive(Debug)]
enum State {
    /// Plain text, looking for a start marker.
    Text,
    /// Inside the start marker's JSON.
    Body(Region),
    /// After a complete body: whitespace (kept: it is content if text follows without an end
    /// marker), then an end marker (which may be missing).
    After { ws: String },
    /// After malformed markup: everything is content.
    Fallback,
}

pub struct TaggedJson {
    tags: &'static Tags,
    st: State,
}

impl TaggedJson {
    pub fn new(tags: &'static Tags) -> Self {
        TaggedJson {
            tags,
            st: State::Text,
        }
    }

    /// How many bytes of start marker `m` the body does not read itself (its own `[` it does).
    fn skip(&self, m: &str) -> usize {
        if self.tags.array && m == "[" {
            0
        } else {
            m.len()
        }
    }

    fn body(&self, opener: &str) -> State {
        let calls = if self.tags.array {
            Calls::array(self.tags.keys)
        } else {
            Calls::object(self.tags.keys, false)
        };
        State::Body(Region::new(calls, opener, self.tags.tentative))
    }
}

impl Machine for TaggedJson {
    fn feed(&mut self, input: &str, out: &mut Emitter) -> usize {
        let mut i = 0;
        while i < input.len() {
            let rest = &input[i..];
            match &mut self.st {
                State::Text => match self.tags.text.find(rest) {
                    Found::Marker { at, which }
                        if which >= self.tags.markers.list.len() - self.tags.ends =>
                    {
                        // A wrapper of the content: markup, dropped.
                        out.content(&rest[..at]);
                        i += at + self.tags.text.list[which].len();
                    }
                    Found::Marker { at, which } => {
                        out.content(&rest[..at]);
                        let m = self.tags.text.list[which];
                        let k = self.skip(m);
                        i += at + k;
                        self.st = self.body(&m[..k]);
                    }
                    Found::Partial { safe } => {
                        out.content(&rest[..safe]);
                        return i + safe;
                    }
                },
                State::Body(region) => match region.feed(rest, out) {
                    RegionStep::More => return input.len(),
                    RegionStep::Done(n) => {
                        i += n;
                        // A tentative body that held no call went back to content.
                        self.st = if region.is_call() {
                            State::After { ws: String::new() }
                        } else {
                            State::Text
                        };
                    }
                    RegionStep::Failed(n) => {
                        i += n;
                        // A tentative body that failed before a call started is text: scanning
                        // goes on from the offending character.
                        self.st = if out.malformed {
                            State::Fallback
                        } else {
                            State::Text
                        };
                    }
                },
                State::After { ws } => match expect(rest, &self.tags.markers) {
                    // Whitespace past the cap after a call: it is text, and so is what follows.
                    Expect::Marker { which, end }
                        if ws.len() + end - self.tags.markers.list[which].len() > WS_MAX =>
                    {
                        let n = end - self.tags.markers.list[which].len();
                        ws.push_str(&rest[..n]);
                        out.content(ws);
                        i += n;
                        self.st = State::Text;
                    }
                    Expect::Wait { ws: n } if ws.len() + n > WS_MAX => {
                        ws.push_str(&rest[..n]);
                        out.content(ws);
                        i += n;
                        self.st = State::Text;
                    }
                    Expect::Marker { which, end } if which >= self.tags.ends => {
                        // Another call with the previous one's end marker missing.
                        let m = self.tags.markers.list[which];
                        let k = self.skip(m);
                        i += end - m.len() + k;
                        self.st = self.body(&m[..k]);
                    }
                    Expect::Marker { end, .. } => {
                        i += end;
                        self.st = State::Text;
                    }
                    Expect::Wait { ws: n } => {
                        ws.push_str(&rest[..n]);
                        return i + n;
                    }
                    Expect::Other { at } => {
                        // No end marker: the whitespace starts the text.
                        ws.push_str(&rest[..at]);
                        out.content(ws);
                        i += at;
                        self.st = State::Text;
                    }
                },
                // The driver makes the rest content.
                State::Fallback => return i,
            }
        }
        input.len()
    }

    fn finish(&mut self, rest: &str, out: &mut Emitter) {
        match &mut self.st {
            State::Text | State::Fallback => out.content(rest),
            State::Body(region) => region.finish(rest, out),
            // A truncated end marker: the call is complete, the rest is its markup.
            State::After { .. } => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::event::Extracted;
    use crate::formats::{
        Format, Parser, Tools, GRANITE_TAGS, INTERNLM_TAGS, PHI4_MINI_JSON_TAGS, XLAM_TAGS,
    };

    /// (content, calls, malformed, truncated), the same whole, split anywhere in two, and one
    /// char at a time.
    type Run = (Option<String>, Vec<(String, String)>, bool, bool);

    fn run(name: &str, pieces: &[&str]) -> Run {
        let f = Format::from_name(name).expect("registered");
        let x: Extracted = Parser::replay(f, &Tools::default(), pieces);
        let calls = x.calls.into_iter().map(|c| (c.name, c.arguments)).collect();
        (x.content, calls, x.malformed, x.truncated)
    }

    fn check(name: &str, text: &str) -> Run {
        let whole = run(name, &[text]);
        let chars: Vec<&str> = text
            .char_indices()
            .map(|(i, c)| &text[i..i + c.len_utf8()])
            .collect();
        assert_eq!(run(name, &chars), whole, "char by char: {text:?}");
        for (i, _) in text.char_indices().skip(1) {
            assert_eq!(
                run(name, &[&text[..i], &text[i..]]),
                whole,
                "at {i}: {text:?}"
            );
        }
        whole
    }

    fn call(name: &str, args: &str) -> (String, String) {
        (name.to_owned(), args.to_owned())
    }

    #[test]
    fn generated_tags() {
        assert_eq!(GRANITE_TAGS.markers.list, ["<|tool_call|>", "<tool_call>"]);
        assert_eq!(GRANITE_TAGS.ends, 0);
        assert!(GRANITE_TAGS.array && !GRANITE_TAGS.keys.strings);
        assert_eq!(INTERNLM_TAGS.ends, 1);
        assert_eq!(INTERNLM_TAGS.keys.args, ["parameters", "arguments"]);
        assert!(PHI4_MINI_JSON_TAGS.tentative);
        assert_eq!(
            XLAM_TAGS.markers.list[..XLAM_TAGS.ends],
            ["```", "</tool_call>"]
        );
    }

    #[test]
    fn xlam_wrappers_and_text() {
        let c = r#"[{"name": "f", "arguments": {"a": 1}}]"#;
        for text in [
            c.to_owned(),
            format!("```json\n{c}\n```"),
            format!("```\n{c}\n```"),
            format!("[TOOL_CALLS]{c}"),
            format!("<tool_call>{c}</tool_call>"),
        ] {
            let r = check("xlam", &text);
            assert_eq!(
                r,
                (None, vec![call("f", r#"{"a": 1}"#)], false, false),
                "{text}"
            );
        }
        for text in [
            "[1] and []",
            "```python\nx = [1]\n```",
            r#"[{"a": 1}] x"#,
            "[TOOL_CALLS]",
        ] {
            assert_eq!(
                check("xlam", text),
                (Some(text.to_owned()), vec![], false, false)
            );
        }
        let r = check("xlam", r#"Hi [{"name": "f", "arguments": {"a": tru}}]"#);
        assert!(r.2 && r.1.is_empty());
    }

    #[test]
    fn phi4_functools_is_a_word_until_calls_follow() {
        let text = "import functools; functools[] then functools[{";
        assert_eq!(
            check("phi4_mini_json", text),
            (Some(text.to_owned()), vec![], false, false)
        );
        let r = check(
            "phi4_mini_json",
            r#"functools[{"name": "f", "arguments": {}}] ok"#,
        );
        assert_eq!(
            r,
            (Some(" ok".to_owned()), vec![call("f", "{}")], false, false)
        );
    }

    #[test]
    fn empty_list_after_a_marker_is_malformed() {
        let text = "<tool_calls>[]</tool_calls>";
        assert_eq!(
            check("jamba", text),
            (Some(text.to_owned()), vec![], true, false)
        );
    }

    #[test]
    fn strings_as_the_spec_says() {
        let obj = r#"{"name": "f", "arguments": "{\"a\": 1}"}"#;
        let r = check("granite4", &format!("<tool_call>{obj}</tool_call>"));
        assert_eq!(r.1, vec![call("f", r#"{"a": 1}"#)]);
        let r = check("jamba", &format!("<tool_calls>[{obj}]</tool_calls>"));
        assert!(r.2 && r.1.is_empty());
    }

    #[test]
    fn apertus_calls_are_keyed_by_name() {
        let text = r#"Hi <|tools_prefix|>[{"f": {"a": 1}}, {"g": {}}]<|tools_suffix|>"#;
        assert_eq!(
            check("apertus", text),
            (
                Some("Hi ".to_owned()),
                vec![call("f", r#"{"a": 1}"#), call("g", "{}")],
                false,
                false
            )
        );
        // one key per call, not blank, whose value is an object
        for bad in [
            r#"<|tools_prefix|>[{"f": {}, "g": {}}]<|tools_suffix|>"#,
            r#"<|tools_prefix|>[{" ": {}}]<|tools_suffix|>"#,
            r#"<|tools_prefix|>[{"f": "{}"}]<|tools_suffix|>"#,
            r#"<|tools_prefix|>[{"name": "f", "arguments": {}, "x": 1}]<|tools_suffix|>"#,
        ] {
            let r = check("apertus", bad);
            assert!(r.2 && r.1.is_empty(), "{bad}");
        }
    }

    #[test]
    fn cohere_wrappers_are_dropped() {
        let text = "<|START_RESPONSE|>It is <co>sunny</co: 0:[1]>.<|END_RESPONSE|>";
        assert_eq!(
            check("cohere_command3", text),
            (
                Some("It is <co>sunny</co: 0:[1]>.".to_owned()),
                vec![],
                false,
                false
            )
        );
        let text = "<|START_TEXT|>Hi<|END_TEXT|><|START_ACTION|>[{\"tool_call_id\": \"0\", \
                    \"tool_name\": \"f\", \"parameters\": {\"q\": 1}}]<|END_ACTION|>";
        assert_eq!(
            check("cohere_command4", text),
            (
                Some("Hi".to_owned()),
                vec![call("f", r#"{"q": 1}"#)],
                false,
                false
            )
        );
        // the model's call ids (a string given before the call started)
        let text = r#"<|START_ACTION|>[{"tool_call_id": "0", "tool_name": "f", "parameters": {}}, {"tool_name": "g", "parameters": {}, "tool_call_id": "1"}]<|END_ACTION|>"#;
        let f = Format::from_name("cohere_command3").expect("registered");
        let x = Parser::replay(f, &Tools::default(), &[text]);
        let ids: Vec<Option<String>> = x.calls.into_iter().map(|c| c.id).collect();
        assert_eq!(ids, [Some("0".to_owned()), None]);
        // the other preset's wrapper is text
        let text = "<|START_TEXT|>Hi<|END_TEXT|>";
        assert_eq!(check("cohere_command3", text).0, Some(text.to_owned()));
    }

    #[test]
    fn several_start_markers() {
        for start in ["<|action_start|><|plugin|>", "<|action_start|> <|plugin|>"] {
            let text = format!(r#"{start}{{"name": "f", "parameters": {{"a": 1}}}}<|action_end|>"#);
            assert_eq!(check("internlm", &text).1, vec![call("f", r#"{"a": 1}"#)]);
        }
        let text = "<|message_sep|>\n\nfunction call<|role_sep|>\n{\"name\": \"f\", \"arguments\": {}}</s>";
        assert_eq!(
            check("gigachat3", text),
            (None, vec![call("f", "{}")], false, false)
        );
    }
}
