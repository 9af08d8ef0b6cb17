//! JSON tool calls after a start marker: `START {call} END` (hermes, granite4, longcat,
//! internlm, gigachat3) or `START [{call}, ...] END` (jamba, `hunyuan_a13b`, granite,
//! `phi4_mini_json`, xlam). Formats that differ only in their markers, their shape and their call
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
//!   (`arguments` = "`json_object_or_json_string`").
//! - `tentative` (`call.tentative`): a start marker is something prose may hold
//!   (`phi4_mini_json`'s `functools`, xlam's `[` and fences): until a call has started, what
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
//! - `forms` (`call.shape` = "`list_or_name_then_args`", mistral): after the start marker and
//!   whitespace, the first character decides the call's form: `[` a JSON array of calls, `{` one
//!   call object (both bodies as above), else the function's name followed by its arguments
//!   object, `NAME{...}` (see below). Such calls have no end marker: a call ends where its JSON
//!   ends, and what follows is text (a start marker cut off by the end of the text included).
//!
//! After a body, whitespace and then a start marker begin another body (the previous end marker
//! missing); whitespace and then an end marker close it; anything else is content.
//! - `after` (`calls` = "newline", object bodies): what is read after a body, the markers and
//!   then `{`: a section holds call objects one per line, with no marker of their own
//!   (`<tool_calls>\n{A}\n{B}\n</tool_calls>`), so whitespace and then `{` begin another call
//!   object of the same section.
//!
//! The name form (mistral v11 and later): `START NAME{...}`, `START NAME ARGS {...}` with the
//! optional separator `args` (`[ARGS]`), and `START NAME ID_MARKER ID ARGS {...}` when the
//! format has a call-id marker (`[CALL_ID]`; mistral-common's `_decode_tool_call_v11_with_call_id`,
//! Mistral Small 3.2, Magistral, Devstral). A name is ASCII letters, digits, `_`, `-`, `.`. The id
//! is the call's id: ASCII letters and digits (mistral-common and vLLM accept 9 of them; any length
//! from 1 to [`ID_MAX`] is taken here); whitespace may surround it as it may the name, and the
//! separator after it may be missing as after a name. An empty id, a longer one, or another
//! character before the separator or `{` is malformed markup (the output falls back to content).
//! An id an earlier call of the output already has is not reused (the emitter's rule for every
//! model-given id): that call gets a generated one. The arguments object is streamed as written.
//!
//! Hold-back is bounded (see `scan`): in the forms shape, a name longer than [`NAME_MAX`]
//! characters, or a run of more than [`WS_MAX`] whitespace characters after the start marker,
//! around a name or an id, or after the separator, is malformed markup.

use super::between::{self, after_call, settle, stream_args, text_until, After, Args, Next};
use super::region::{Region, RegionStep};
use super::Machine;
use crate::event::Emitter;
use crate::json::{CallKeys, Calls, JsonScanner};
use crate::scan::{expect, ws_len, Expect, Markers, NAME_MAX, WS_MAX};

/// The longest call id accepted in the name form, in characters.
pub const ID_MAX: usize = 64;

/// How one tagged-JSON format writes its calls (built from its spec entry by `formats::config`, at run time).
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
    /// Whether a start marker may be followed by a list, an object or a name and its arguments
    /// (then calls have no end marker).
    pub forms: bool,
    /// The name form: the optional separator before the arguments (`[ARGS]`).
    pub args: Markers,
    /// What may follow a name: the separator, then the call-id marker if the format has one.
    pub after_name: Markers,
    /// What is read after a body: `markers`, then (`calls` = "newline") `{`, another call
    /// object of the same section.
    pub after: Markers,
}

/// In `after_name`: the call-id marker.
const CALL_ID: usize = 1;

#[derive(Debug)]
enum State {
    /// Plain text, looking for a start marker.
    Text,
    /// `forms`: after the start marker, which form follows? (`raw` is the markup read so far,
    /// `ws` the whitespace, capped by `WS_MAX`.)
    Form { raw: String, ws: usize },
    /// Inside the start marker's JSON.
    Body(Region),
    /// The name form: the function name.
    Name { raw: String, name: String },
    /// The name form: after the name and the call-id marker, the id the model gave the call.
    Id(CallId),
    /// The name form: the arguments object, streamed as written.
    Args(JsonScanner),
    /// After a complete body: whitespace (kept: it is content if text follows without an end
    /// marker), then an end marker (which may be missing).
    After { ws: String },
    /// After malformed markup: everything is content.
    Fallback,
}

/// The name form's call after its call-id marker: the markup read so far, the name, the id so
/// far, and the whitespace read before it (capped by `WS_MAX`).
#[derive(Debug)]
struct CallId {
    raw: String,
    name: String,
    id: String,
    ws: usize,
}

/// What a transition did: where the loop goes on, and the state it moves to (`None`: it stays).
type Moved = between::Moved<State>;

pub struct TaggedJson {
    tags: &'static Tags,
    st: State,
}

fn is_name_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.')
}

fn fail(raw: &str, out: &mut Emitter) -> State {
    out.malformed = true;
    out.content(raw);
    State::Fallback
}

/// Where the arguments open after a name or an id (`after`: the text that follows it): `None`
/// to wait for more text, else the bytes up to `{` and whether `{` is there. Whitespace past
/// `WS_MAX` (before or after the separator) is not: it ends right after the first character
/// over the cap.
fn args_open(after: &str, args: &Markers) -> Option<(usize, bool)> {
    let w = ws_len(after);
    if w > WS_MAX {
        return Some((WS_MAX + 1, false));
    }
    match expect(after, args) {
        Expect::Marker { end, .. } => {
            let w = ws_len(&after[end..]);
            if w > WS_MAX {
                return Some((end + WS_MAX + 1, false));
            }
            if end + w == after.len() {
                return None; // hold the separator and what follows until `{` is seen
            }
            Some((end + w, after[end + w..].starts_with('{')))
        }
        Expect::Wait { .. } => None,
        Expect::Other { at } => Some((at, after[at..].starts_with('{'))),
    }
}

/// The name form's arguments after a name or an id, `skipped` the text read before them: with
/// `call` (the id and the name) the call starts and its arguments follow; without it (no `{`,
/// an empty name or id) the markup read is malformed.
fn start_call(
    raw: &mut String,
    skipped: &str,
    call: Option<(Option<String>, String)>,
    out: &mut Emitter,
) -> State {
    let Some((id, name)) = call else {
        raw.push_str(skipped);
        return fail(raw, out);
    };
    out.tool_start(id, name);
    State::Args(JsonScanner::new())
}

impl TaggedJson {
    pub fn new(tags: &'static Tags) -> Self {
        TaggedJson {
            tags,
            st: State::Text,
        }
    }

    /// After start marker `m` (`i` is past it): what follows (its body, or with `forms` the
    /// choice of the call's form), from where.
    fn opened(&self, m: &str, i: usize) -> Moved {
        if self.tags.forms {
            let raw = m.to_owned();
            return (Next::Go(i), Some(State::Form { raw, ws: 0 }));
        }
        let k = self.skip(m);
        (Next::Go(i - m.len() + k), Some(self.body(&m[..k])))
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

    /// Plain text up to a start marker; the content's wrappers in it are markup, dropped.
    fn on_text(&self, input: &str, mut i: usize, out: &mut Emitter) -> Moved {
        let Some(which) = text_until(&self.tags.text, input, &mut i, out) else {
            return (Next::Hold(i), None);
        };
        // (a wrapper of the content is markup, dropped)
        if which >= self.tags.markers.list.len() - self.tags.ends {
            return (Next::Go(i), None);
        }
        self.opened(self.tags.text.list[which], i)
    }
}

/// `forms`: after the start marker and whitespace, the first character decides the call's
/// form.
fn on_form(
    tags: &Tags,
    raw: &mut String,
    ws: &mut usize,
    input: &str,
    i: usize,
    out: &mut Emitter,
) -> Moved {
    let rest = &input[i..];
    // (At most one character past the cap is read: then it is malformed.)
    let n = ws_len(rest).min(WS_MAX + 1 - *ws);
    raw.push_str(&rest[..n]);
    *ws += n;
    let c = match rest[n..].chars().next() {
        _ if *ws > WS_MAX => ' ',
        Some(c) => c,
        None => return (Next::Hold(input.len()), None),
    };
    let raw = std::mem::take(raw);
    let st = match c {
        '[' => State::Body(Region::new(Calls::array(tags.keys), &raw, false)),
        '{' => State::Body(Region::new(Calls::object(tags.keys, false), &raw, false)),
        c if is_name_char(c) => State::Name {
            raw,
            name: String::new(),
        },
        _ => fail(&raw, out),
    };
    (Next::Go(i + n), Some(st))
}

/// The name form: the function's name, then the arguments (or the call-id marker).
fn on_name(
    tags: &Tags,
    raw: &mut String,
    name: &mut String,
    input: &str,
    mut i: usize,
    out: &mut Emitter,
) -> Moved {
    let rest = &input[i..];
    // (At most one character past the cap is read: then it is malformed.)
    let n = rest.len() - rest.trim_start_matches(is_name_char).len();
    let n = n.min(NAME_MAX + 1 - name.len());
    name.push_str(&rest[..n]);
    raw.push_str(&rest[..n]);
    i += n;
    let after = &rest[n..];
    if name.len() > NAME_MAX {
        return (Next::Go(i), Some(fail(raw, out)));
    }
    if after.is_empty() {
        return (Next::Hold(input.len()), None);
    }
    // Between the name and the arguments: whitespace and the optional separator, or the
    // call-id marker and the id (whitespace past the cap: see `args_open`).
    match expect(after, &tags.after_name) {
        _ if ws_len(after) > WS_MAX => {}
        Expect::Marker {
            which: CALL_ID,
            end,
        } if !name.is_empty() => {
            raw.push_str(&after[..end]);
            let st = State::Id(CallId {
                raw: std::mem::take(raw),
                name: std::mem::take(name),
                id: String::new(),
                ws: 0,
            });
            return (Next::Go(i + end), Some(st));
        }
        Expect::Wait { .. } => return (Next::Hold(i), None),
        _ => {}
    }
    let Some((skip, open)) = args_open(after, &tags.args) else {
        return (Next::Hold(i), None);
    };
    let call = (open && !name.is_empty()).then(|| (None, std::mem::take(name)));
    let st = start_call(raw, &after[..skip], call, out);
    (Next::Go(i + skip), Some(st))
}

/// The name form: the call's id after its marker, then the arguments.
fn on_id(tags: &Tags, cid: &mut CallId, input: &str, mut i: usize, out: &mut Emitter) -> Moved {
    let mut rest = &input[i..];
    if cid.id.is_empty() {
        let w = ws_len(rest).min(WS_MAX + 1 - cid.ws);
        cid.raw.push_str(&rest[..w]);
        i += w;
        cid.ws += w;
        rest = &rest[w..];
        if cid.ws > WS_MAX {
            return (Next::Go(i), Some(fail(&cid.raw, out)));
        }
    }
    // (At most one character past the cap is read: then it is malformed.)
    let n = rest.len()
        - rest
            .trim_start_matches(|c: char| c.is_ascii_alphanumeric())
            .len();
    let n = n.min(ID_MAX + 1 - cid.id.len());
    cid.id.push_str(&rest[..n]);
    cid.raw.push_str(&rest[..n]);
    i += n;
    let after = &rest[n..];
    if cid.id.len() <= ID_MAX && after.is_empty() {
        return (Next::Hold(input.len()), None);
    }
    // Between the id and the arguments: whitespace and the optional separator.
    let (skip, open) = if cid.id.len() > ID_MAX {
        (0, false)
    } else {
        match args_open(after, &tags.args) {
            Some(o) => o,
            None => return (Next::Hold(i), None),
        }
    };
    let call = (open && !cid.id.is_empty()).then(|| {
        (
            Some(std::mem::take(&mut cid.id)),
            std::mem::take(&mut cid.name),
        )
    });
    let st = start_call(&mut cid.raw, &after[..skip], call, out);
    (Next::Go(i + skip), Some(st))
}

impl Machine for TaggedJson {
    fn step(&mut self, input: &str, mut i: usize, out: &mut Emitter) -> Next {
        let tags = self.tags;
        let moved = match &mut self.st {
            State::Body(region) => match region.feed(&input[i..], out) {
                RegionStep::More => (Next::Hold(input.len()), None),
                // After calls, their end marker may follow; after the forms' calls (no end
                // marker) what follows is text.
                RegionStep::Done(n) if region.is_call() && !tags.forms => {
                    let ws = String::new();
                    (Next::Go(i + n), Some(State::After { ws }))
                }
                RegionStep::Failed(n) if out.malformed => (Next::Go(i + n), Some(State::Fallback)),
                // A tentative body that held no call went back to content; one that failed
                // before a call started is text: scanning goes on from the offending character.
                RegionStep::Done(n) | RegionStep::Failed(n) => (Next::Go(i + n), Some(State::Text)),
            },
            State::Text => self.on_text(input, i, out),
            // The driver makes the rest content.
            State::Fallback => (Next::Hold(i), None),
            State::After { ws } => match after_call(ws, input, &mut i, &tags.after, out) {
                // (newline sections) another call object: its `{` is read again, by the body
                After::Marker(which) if which == tags.markers.list.len() => {
                    (Next::Go(i - 1), Some(self.body("")))
                }
                // Another call with the previous one's end marker missing.
                After::Marker(which) if which >= tags.ends => {
                    self.opened(tags.markers.list[which], i)
                }
                After::Wait => (Next::Hold(i), None),
                // The end marker; or none (or whitespace past the cap): the whitespace
                // starts the text, and so does what follows.
                After::Marker(_) | After::Text => (Next::Go(i), Some(State::Text)),
            },
            State::Form { raw, ws } => on_form(tags, raw, ws, input, i, out),
            State::Name { raw, name } => on_name(tags, raw, name, input, i, out),
            State::Id(cid) => on_id(tags, cid, input, i, out),
            State::Args(sc) => match stream_args(sc, &input[i..], out) {
                Args::Ended(n) => (Next::Go(i + n), Some(State::Text)),
                Args::Open => (Next::Hold(input.len()), None),
                Args::Broken(n) => (Next::Go(i + n), Some(State::Fallback)),
            },
        };
        settle(&mut self.st, moved)
    }

    fn finish(&mut self, rest: &str, out: &mut Emitter) {
        match &mut self.st {
            State::Body(region) => region.finish(rest, out),
            State::Text | State::Fallback => out.content(rest),
            // Cut off before the arguments (in the name or the id): the call's markup so far.
            State::Form { raw, .. } | State::Name { raw, .. } | State::Id(CallId { raw, .. }) => {
                raw.push_str(rest);
                out.truncate(raw);
            }
            State::Args(_) => out.truncate(""),
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

    /// `text` is content whole, no call read from it (`malformed`: as malformed markup).
    fn all_content(name: &str, text: &str, malformed: bool) {
        let want = (Some(text.to_owned()), vec![], malformed, false);
        assert_eq!(check(name, text), want, "{name}: {text:?}");
    }

    #[test]
    fn generated_tags() {
        assert_eq!(GRANITE_TAGS.markers.list, ["<|tool_call|>", "<tool_call>"]);
        assert_eq!(GRANITE_TAGS.ends, 0);
        // (not a newline section: after a body, only the markers)
        assert_eq!(GRANITE_TAGS.after.list, GRANITE_TAGS.markers.list);
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
            all_content("xlam", text, false);
        }
        let r = check("xlam", r#"Hi [{"name": "f", "arguments": {"a": tru}}]"#);
        assert!(r.2 && r.1.is_empty());
    }

    #[test]
    fn phi4_functools_is_a_word_until_calls_follow() {
        all_content(
            "phi4_mini_json",
            "import functools; functools[] then functools[{",
            false,
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
        all_content("jamba", "<tool_calls>[]</tool_calls>", true);
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
        // citation spans are markup too (the spec's `span_markup`, as cohere_melody reads them)
        let text = "<|START_RESPONSE|>It is <co>sunny</co: 0:[1]>.<|END_RESPONSE|>";
        assert_eq!(
            check("cohere_command3", text),
            (Some("It is sunny.".to_owned()), vec![], false, false)
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

/// The forms shape (mistral): the name form, its ids, and splits.
#[cfg(test)]
mod mistral_forms {
    use super::ID_MAX;
    use crate::event::Extracted;
    use crate::formats::invariants::{stream_deltas, DeltaStreamed};
    use crate::formats::test_support::Rng;
    use crate::formats::{Format, Parser, Tools};

    fn extract(text: &str) -> Extracted {
        let f = Format::from_name("mistral").unwrap_or_else(|| panic!("mistral not registered"));
        Parser::extract(f, &Tools::default(), text)
    }

    /// Streams `text` cut at `cuts`: (content, [(id, name, args)], malformed, truncated).
    fn stream(text: &str, cuts: &[usize]) -> DeltaStreamed {
        let f = Format::from_name("mistral").unwrap_or_else(|| panic!("mistral not registered"));
        stream_deltas(f, &Tools::default(), text, cuts)
    }

    fn boundaries(s: &str) -> Vec<usize> {
        (0..=s.len()).filter(|&k| s.is_char_boundary(k)).collect()
    }

    const TWO: &str = "Sure.[TOOL_CALLS]get_weather[CALL_ID]abc123DEF[ARGS]{\"city\": \"東京\"}\
        [TOOL_CALLS]get_time[CALL_ID]Z9y8X7w6V[ARGS]{}";

    #[test]
    fn model_given_ids_are_the_call_ids() {
        let x = extract(TWO);
        assert!(!x.malformed);
        assert_eq!(x.content.as_deref(), Some("Sure."));
        let calls: Vec<_> = x
            .calls
            .iter()
            .map(|c| (c.id.as_deref(), c.name.as_str(), c.arguments.as_str()))
            .collect();
        assert_eq!(
            calls,
            [
                (Some("abc123DEF"), "get_weather", "{\"city\": \"東京\"}"),
                (Some("Z9y8X7w6V"), "get_time", "{}"),
            ]
        );
        // without [CALL_ID] nothing changes: no id
        let x = extract("[TOOL_CALLS]f[ARGS]{\"a\": 1}[TOOL_CALLS]g{}");
        assert!(x.calls.iter().all(|c| c.id.is_none()));
        assert_eq!(x.calls.len(), 2);
        // whitespace around the id, `[ARGS]` missing after it
        let x = extract("[TOOL_CALLS]f [CALL_ID] a1 [ARGS] {}[TOOL_CALLS]g[CALL_ID]b2{}");
        assert!(!x.malformed);
        let ids: Vec<_> = x.calls.iter().map(|c| c.id.as_deref()).collect();
        assert_eq!(ids, [Some("a1"), Some("b2")]);
        // an id given twice: the second call gets a generated one
        let x = extract("[TOOL_CALLS]f[CALL_ID]a1{}[TOOL_CALLS]g[CALL_ID]a1{}");
        let ids: Vec<_> = x.calls.iter().map(|c| c.id.as_deref()).collect();
        assert_eq!(ids, [Some("a1"), None]);
    }

    #[test]
    fn bad_ids_are_malformed() {
        let long = format!("[TOOL_CALLS]f[CALL_ID]{}[ARGS]{{}}", "a".repeat(ID_MAX + 1));
        let at_cap = format!("[TOOL_CALLS]f[CALL_ID]{}[ARGS]{{}}", "a".repeat(ID_MAX));
        assert!(!extract(&at_cap).malformed);
        for bad in [
            "[TOOL_CALLS]f[CALL_ID][ARGS]{}",
            "[TOOL_CALLS]f[CALL_ID]{}",
            "[TOOL_CALLS]f[CALL_ID]ab-cd[ARGS]{}",
            "[TOOL_CALLS]f[CALL_ID]ab_cd[ARGS]{}",
            "[TOOL_CALLS]f[CALL_ID]ab cd[ARGS]{}",
            "[TOOL_CALLS]f[CALL_ID]é[ARGS]{}",
            "[TOOL_CALLS][CALL_ID]abc[ARGS]{}",
            "[TOOL_CALLS]f[CALL_ID]abc[ARGS]x",
            long.as_str(),
        ] {
            let x = extract(bad);
            assert!(x.malformed, "{bad:?}");
            assert!(x.calls.is_empty(), "{bad:?}");
            let s = stream(bad, &boundaries(bad));
            assert_eq!(s.content, bad, "{bad:?}");
            assert!(s.malformed, "{bad:?}");
        }
        // cut off by the end of the text in the id: truncated, not malformed
        for cut in [
            "[TOOL_CALLS]f[CALL_ID]abc",
            "[TOOL_CALLS]f[CALL_ID]abc[ARGS]",
        ] {
            let x = extract(cut);
            assert!(x.truncated && !x.malformed && x.calls.is_empty(), "{cut:?}");
        }
    }

    #[test]
    fn every_split_agrees() {
        let long = format!("[TOOL_CALLS]f[CALL_ID]{}[ARGS]{{}}", "a".repeat(ID_MAX + 1));
        let texts = [
            TWO,
            "[TOOL_CALLS]f [CALL_ID] a1 [ARGS] {}[TOOL_CALLS]g[CALL_ID]b2{}",
            "[TOOL_CALLS]f[CALL_ID]ab-cd[ARGS]{}",
            "[TOOL_CALLS]f[CALL_ID]abc",
            long.as_str(),
        ];
        for t in texts {
            let whole = stream(t, &[]);
            let x = extract(t);
            if !x.malformed && !x.truncated {
                whole.assert_extracts_as(x, &format!("{t:?}"));
            }
            for k in boundaries(t) {
                assert_eq!(stream(t, &[k]), whole, "{t:?} cut at {k}");
            }
            assert_eq!(stream(t, &boundaries(t)), whole, "{t:?} one char at a time");
        }
    }

    #[test]
    fn random_texts_are_split_invariant() {
        const PIECES: &[&str] = &[
            "[TOOL_CALLS]",
            "[ARGS]",
            "[CALL_ID]",
            "[CALL",
            "f",
            "get_x",
            "abc123DEF",
            "9",
            "-",
            " ",
            "{",
            "}",
            "\"a\"",
            ": ",
            "1",
            "[",
            "]",
        ];
        let mut rng = Rng(0x2545_F491_4F6C_DD1D);
        for _ in 0..3000 {
            let mut t = if rng.below(2) == 0 {
                TWO.to_owned()
            } else {
                String::new()
            };
            for _ in 0..rng.below(10) {
                rng.insert_piece(&mut t, PIECES);
            }
            let whole = stream(&t, &[]);
            assert_eq!(stream(&t, &boundaries(&t)), whole, "{t:?}");
            let b = boundaries(&t);
            let cut = b[rng.below(b.len())];
            assert_eq!(stream(&t, &[cut]), whole, "{t:?} {cut}");
        }
    }
}
