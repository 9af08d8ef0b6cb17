//! Calls written as a header (the function's name, or a call id holding it), a separator and
//! the JSON arguments, between call markers inside a section:
//!
//! * `deepseek_v3`: `<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>NAME\n```json\n{...}\n```<｜tool▁call▁end｜>...<｜tool▁calls▁end｜>`
//! * `deepseek_v31`: `<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>NAME<｜tool▁sep｜>{...}<｜tool▁call▁end｜>...<｜tool▁calls▁end｜>`
//! * `kimi_k2`: `<|tool_calls_section_begin|><|tool_call_begin|>functions.NAME:IDX<|tool_call_argument_begin|>{...}<|tool_call_end|>...<|tool_calls_section_end|>`
//!
//! The rules (the same for every format of the family, configured by [`Style`]):
//!
//! * Text outside a section is content (before it, and after its end marker); so is a section
//!   with no call in it, unless the style drops text between calls (below).
//! * In a section, between calls, only whitespace may stand; anything else is malformed markup
//!   (the peers report no call for `<｜tool▁calls▁begin｜>foo<｜tool▁sep｜>...`). With
//!   `drop_between` (`kimi_k2`, the spec's `call.between_calls: "dropped"`) the section holds only
//!   calls: other text in it, outside a call, is dropped (the calls around it are kept, as
//!   SGLang's `kimi_k2` reads them), and a section with no call in it is markup.
//! * A call's header is split into fields by the style's separators (`deepseek_v3`: a type, then
//!   the name; the others: the name alone). Fields are trimmed of whitespace; the name must be
//!   non-empty and hold no whitespace; the header is at most [`HEADER_MAX`] characters. Another
//!   call marker inside the header is malformed.
//! * With `id` (`kimi_k2`) the header is the model's call id, `functions.NAME:IDX` or `NAME:IDX`
//!   (the name is the part before the first `:`, without `functions.`); it is the call's id. A
//!   bare counter (`IDX` alone) names the one tool the request offers; with any other number of
//!   tools it is malformed. An id an earlier call of the output already has is not reused: that
//!   call gets a generated one.
//! * The arguments are a JSON object, streamed as written; an end marker right after the
//!   separator is a call with no arguments (`{}`, as vLLM's `kimi_k2`). After the object: whitespace,
//!   the style's fence (`deepseek_v3`'s closing code fence, optional), then the call's end marker
//!   (the section's end or the next call's start also close it). Anything else is malformed, and
//!   so is a whitespace run past [`WS_MAX`] (in a section, before the arguments, after them).
//! * A section left open at the end of the text keeps its complete calls; the text ending inside
//!   a call's markup or arguments is truncation.

use std::collections::HashSet;

use super::between::{self, markup_after_call, settle, stream_args, text_until, After, Args, Next};
use super::{Machine, Tools};
use crate::event::Emitter;
use crate::json::JsonScanner;
use crate::scan::{
    expect, expect_capped, is_ws, trailing_ws, ws_len, Expect, Found, Markers, WS_MAX,
};

/// The longest call header accepted, in characters.
pub const HEADER_MAX: usize = 256;

/// The markers of one format of the family (built from its spec entry by `formats::config`, at run time).
#[derive(Debug)]
pub struct Style {
    /// The section's start markers (its spelling, and the alternative one some checkpoints
    /// write: `kimi_k2`'s singular `<|tool_call_section_begin|>`).
    pub section: Markers,
    /// In a section, between calls: `[call_start, section_end...]`.
    pub between: Markers,
    /// The header's fields in order, each `[separator, call_start, call_end, section_end...]`;
    /// the last one is the name (or the call id).
    pub fields: &'static [Markers],
    /// After the arguments: `[call_end, call_start]`, the fence when the format closes its
    /// arguments with one, then the section's end markers.
    pub close: Markers,
    /// Whether `close` holds the fence (at [`FENCE`]).
    pub fence: bool,
    /// The header is the model's call id, `[functions.]NAME:IDX` (`id_style` "model").
    pub id: bool,
    /// The header's first field (before `name_start`) is the model's call id (Solar's
    /// `<|tool_call:begin|>ID<|tool_call:name|>NAME`, the spec's `call.id_field`).
    pub id_field: bool,
    /// The section holds only calls: text in it outside a call is dropped, and a section with no
    /// call in it is markup (the spec's `call.between_calls: "dropped"`).
    pub drop_between: bool,
}

const CALL_END: usize = 0;
const CALL_START: usize = 1;
const FENCE: usize = 2;

#[derive(Debug)]
enum State {
    /// Plain text, looking for the section's start.
    Text,
    /// In a section, before a call (`open`: no call yet in this section). `raw` is the markup
    /// read and not yet emitted (the section's start, whitespace).
    Section {
        raw: String,
        open: bool,
    },
    /// In a call's header.
    Header(Header),
    /// After the header: whitespace, then the arguments.
    Open {
        raw: String,
        id: Option<String>,
        name: String,
    },
    /// The arguments object, streamed as written.
    Args(JsonScanner),
    /// After the arguments: whitespace (kept for content if the markup turns out malformed),
    /// the fence, the end marker.
    Close {
        fence: bool,
        ws: String,
    },
    Fallback,
}

/// A call's header being read: field `field`, its text so far, the first field's text once read,
/// the header's length in characters, the markup read (`raw`).
#[derive(Debug)]
struct Header {
    raw: String,
    field: usize,
    text: String,
    first: String,
    chars: usize,
}

/// What a transition did: where the loop goes on, and the state it moves to (`None`: it stays).
type Moved = between::Moved<State>;

pub struct NamedJson {
    style: &'static Style,
    st: State,
    names: Names,
}

/// What names a call besides its header: the ids the model gave earlier calls, and the
/// request's only tool (names a `kimi_k2` call whose id is a bare counter).
struct Names {
    ids: HashSet<String>,
    only_tool: Option<String>,
}

impl NamedJson {
    pub fn new(style: &'static Style, tools: &Tools) -> Self {
        let only_tool = if tools.functions.len() == 1 {
            tools.functions.keys().next().cloned()
        } else {
            None
        };
        NamedJson {
            style,
            st: State::Text,
            names: Names {
                ids: HashSet::new(),
                only_tool,
            },
        }
    }
}

impl Names {
    /// The call's id from the header's first field (`id_field`): `None` (a generated id) when it
    /// is empty, holds whitespace, or an earlier call of the output has it.
    fn field_id(&mut self, field: &str) -> Option<String> {
        let id = field.trim_matches(is_ws);
        if id.is_empty() || id.contains(is_ws) {
            return None;
        }
        self.ids.insert(id.to_owned()).then(|| id.to_owned())
    }

    /// The call's id and name from the header's last field; `None` when it is not one.
    fn header(&mut self, style: &Style, field: &str) -> Option<(Option<String>, String)> {
        let h = field.trim_matches(is_ws);
        if !style.id {
            return valid_name(h).then(|| (None, h.to_owned()));
        }
        let name = match h.split_once(':') {
            Some((pre, idx)) if is_index(idx) => {
                let name = pre.strip_prefix("functions.").unwrap_or(pre);
                if !valid_name(name) {
                    return None;
                }
                name.to_owned()
            }
            None if is_index(h) => self.only_tool.clone()?,
            _ => return None,
        };
        let id = self.ids.insert(h.to_owned()).then(|| h.to_owned());
        Some((id, name))
    }
}

fn valid_name(name: &str) -> bool {
    !name.is_empty() && !name.contains(is_ws)
}

fn is_index(s: &str) -> bool {
    !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit())
}

fn fail(raw: &str, out: &mut Emitter) -> State {
    out.malformed = true;
    out.content(raw);
    State::Fallback
}

/// In a section, before a call, `raw` starting the markup a malformed call falls back to.
fn to_section(raw: String, open: bool) -> State {
    State::Section { raw, open }
}

/// In a call's header, `raw` its markup so far (the call's start marker last).
fn to_header(raw: String) -> State {
    State::Header(Header {
        raw,
        field: 0,
        text: String::new(),
        first: String::new(),
        chars: 0,
    })
}

/// Plain text up to a section's start.
fn on_text(style: &Style, input: &str, mut i: usize, out: &mut Emitter) -> Moved {
    let Some(which) = text_until(&style.section, input, &mut i, out) else {
        return (Next::Hold(i), None);
    };
    let raw = style.section.list[which].to_owned();
    (Next::Go(i), Some(to_section(raw, true)))
}

/// In a section, between calls: whitespace, then the next call's start or the section's end.
/// A section that holds only calls (`drop_between`) is read by [`drop_between`].
fn on_section(
    style: &Style,
    raw: &mut String,
    open: bool,
    input: &str,
    i: usize,
    out: &mut Emitter,
) -> Moved {
    if style.drop_between {
        return drop_between(style, raw, open, input, i);
    }
    let rest = &input[i..];
    match expect_capped(rest, &style.between, trailing_ws(raw)) {
        Expect::Marker { which: 0, end } => {
            raw.push_str(&rest[..end]);
            (Next::Go(i + end), Some(to_header(std::mem::take(raw))))
        }
        Expect::Marker { end, .. } => {
            // The section's end. A section with no call in it is content.
            if open {
                raw.push_str(&rest[..end]);
                out.content(raw);
            }
            (Next::Go(i + end), Some(State::Text))
        }
        Expect::Wait { ws } => {
            raw.push_str(&rest[..ws]);
            (Next::Hold(i + ws), None)
        }
        Expect::Other { at } => {
            // Other text, or whitespace past the cap: malformed markup.
            raw.push_str(&rest[..at]);
            (Next::Go(i + at), Some(fail(raw, out)))
        }
    }
}

/// In a section that holds only calls: text outside a call is dropped, up to the next call's
/// start or the section's end.
fn drop_between(style: &Style, raw: &mut String, open: bool, input: &str, i: usize) -> Moved {
    match style.between.find(&input[i..]) {
        Found::Marker { at, which } => {
            let m = style.between.list[which];
            let next = Next::Go(i + at + m.len());
            if which != 0 {
                return (next, Some(State::Text));
            }
            // (the markup a malformed first call falls back to starts at the section's)
            let mut raw = if open {
                std::mem::take(raw)
            } else {
                String::new()
            };
            raw.push_str(m);
            (next, Some(to_header(raw)))
        }
        // A possible marker's start is held back.
        Found::Partial { safe } => (Next::Hold(i + safe), None),
    }
}

/// A call's header: its fields up to their separators, the last one naming the call.
fn on_header(
    h: &mut Header,
    style: &Style,
    names: &mut Names,
    input: &str,
    mut i: usize,
    out: &mut Emitter,
) -> Moved {
    let rest = &input[i..];
    let stops = &style.fields[h.field];
    let (take, found) = match stops.find(rest) {
        Found::Marker { at, which } => (at, Some(which)),
        Found::Partial { safe } => (safe, None),
    };
    h.text.push_str(&rest[..take]);
    h.raw.push_str(&rest[..take]);
    h.chars += rest[..take].chars().count();
    i += take;
    if h.chars > HEADER_MAX {
        return (Next::Go(i), Some(fail(&h.raw, out)));
    }
    match found {
        None => (Next::Hold(i), None),
        Some(0) => {
            let m = stops.list[0];
            h.raw.push_str(m);
            i += m.len();
            if h.field + 1 < style.fields.len() {
                if h.field == 0 {
                    h.first = std::mem::take(&mut h.text);
                }
                h.field += 1;
                h.text.clear();
                return (Next::Go(i), None);
            }
            let raw = std::mem::take(&mut h.raw);
            let st = match names.header(style, &h.text) {
                Some((_, name)) if style.id_field => {
                    let id = names.field_id(&h.first);
                    State::Open { raw, id, name }
                }
                Some((id, name)) => State::Open { raw, id, name },
                None => fail(&raw, out),
            };
            (Next::Go(i), Some(st))
        }
        // Another call marker inside the header.
        Some(_) => (Next::Go(i), Some(fail(&h.raw, out))),
    }
}

/// After the header: whitespace, then the arguments object, or the call's end (no arguments).
fn on_open(
    style: &Style,
    raw: &mut String,
    id: &mut Option<String>,
    name: &mut String,
    input: &str,
    mut i: usize,
    out: &mut Emitter,
) -> Moved {
    let ws = ws_len(&input[i..]);
    // (the header ends with its separator: the whitespace after it is the run)
    let over = trailing_ws(raw) + ws > WS_MAX;
    raw.push_str(&input[i..i + ws]);
    i += ws;
    if over {
        // Whitespace past the cap: malformed markup, as a header too long is.
        return (Next::Go(i), Some(fail(raw, out)));
    }
    let after = &input[i..];
    if after.is_empty() {
        return (Next::Hold(i), None);
    }
    if after.starts_with('{') {
        out.tool_start(id.take(), std::mem::take(name));
        return (Next::Go(i), Some(State::Args(JsonScanner::new())));
    }
    match expect(after, &style.close) {
        Expect::Marker {
            which: CALL_END,
            end,
        } => {
            // No arguments at all: an empty object.
            out.tool_start(id.take(), std::mem::take(name));
            out.args("{}");
            out.tool_end();
            (Next::Go(i + end), Some(to_section(String::new(), false)))
        }
        Expect::Wait { .. } => (Next::Hold(i), None),
        _ => (Next::Go(i), Some(fail(raw, out))),
    }
}

/// After the arguments: whitespace, the fence, then the call's end (or the next call's start,
/// or the section's end).
fn on_close(
    style: &Style,
    fence: &mut bool,
    ws: &mut String,
    input: &str,
    mut i: usize,
    out: &mut Emitter,
) -> Moved {
    let st = match markup_after_call(ws, input, &mut i, &style.close, out) {
        After::Marker(CALL_END) => to_section(String::new(), false),
        After::Marker(CALL_START) => to_header(std::mem::take(ws)),
        // (The fence stays in the held text.)
        After::Marker(FENCE) if style.fence && *fence => fail(ws, out), // a second fence
        After::Marker(FENCE) if style.fence => {
            *fence = true;
            return (Next::Go(i), None);
        }
        // The section's end.
        After::Marker(_) => State::Text,
        After::Wait => return (Next::Hold(i), None),
        After::Text => State::Fallback,
    };
    (Next::Go(i), Some(st))
}

impl Machine for NamedJson {
    fn step(&mut self, input: &str, i: usize, out: &mut Emitter) -> Next {
        let style = self.style;
        let moved = match &mut self.st {
            State::Text => on_text(style, input, i, out),
            State::Section { raw, open } => on_section(style, raw, *open, input, i, out),
            State::Header(h) => on_header(h, style, &mut self.names, input, i, out),
            State::Open { raw, id, name } => on_open(style, raw, id, name, input, i, out),
            State::Args(sc) => match stream_args(sc, &input[i..], out) {
                Args::Ended(n) => {
                    let ws = String::new();
                    (Next::Go(i + n), Some(State::Close { fence: false, ws }))
                }
                Args::Open => (Next::Hold(input.len()), None),
                Args::Broken(n) => (Next::Go(i + n), Some(State::Fallback)),
            },
            State::Close { fence, ws } => on_close(style, fence, ws, input, i, out),
            // The driver makes the rest content.
            State::Fallback => (Next::Hold(i), None),
        };
        settle(&mut self.st, moved)
    }

    fn finish(&mut self, rest: &str, out: &mut Emitter) {
        match &mut self.st {
            State::Section { raw, open } => {
                // A section left open after complete calls keeps them; the text ending inside
                // its start or the next call's start marker is truncation.
                let next_call = !rest.is_empty() && self.style.between.list[0].starts_with(rest);
                if *open || next_call {
                    raw.push_str(rest);
                    out.truncate(raw);
                }
            }
            State::Text | State::Fallback => out.content(rest),
            State::Header(Header { raw, .. }) | State::Open { raw, .. } => {
                raw.push_str(rest);
                out.truncate(raw);
            }
            State::Args(_) => out.truncate(""),
            // The call is complete: what is held is (part of) its end marker.
            State::Close { .. } => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use std::collections::HashMap;

    use super::*;
    use crate::event::Extracted;
    use crate::formats::invariants::{
        extract_named as extract, format_named as format, stream_deltas, DeltaStreamed,
    };

    /// Streams `text` cut at `cuts`: (content, [(id, name, args)], malformed, truncated).
    fn stream(name: &str, tools: &Tools, text: &str, cuts: &[usize]) -> DeltaStreamed {
        stream_deltas(format(name), tools, text, cuts)
    }

    fn boundaries(s: &str) -> Vec<usize> {
        (0..=s.len()).filter(|&k| s.is_char_boundary(k)).collect()
    }

    fn calls(x: &Extracted) -> Vec<(Option<&str>, &str, &str)> {
        x.calls
            .iter()
            .map(|c| (c.id.as_deref(), c.name.as_str(), c.arguments.as_str()))
            .collect()
    }

    const V3: &str = "Sure.<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>get_weather\n\
        ```json\n{\"city\": \"東京\"}\n```<｜tool▁call▁end｜>\n<｜tool▁call▁begin｜>function<｜tool▁sep｜>\
        get_time\n```json\n{}\n```<｜tool▁call▁end｜><｜tool▁calls▁end｜> After.";
    const V31: &str = "Hi<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>foo<｜tool▁sep｜>{\"x\":1}\
        <｜tool▁call▁end｜><｜tool▁call▁begin｜>bar<｜tool▁sep｜>{\"y\": [2]}<｜tool▁call▁end｜><｜tool▁calls▁end｜>";
    const KIMI: &str =
        "I'll check. <|tool_calls_section_begin|>\n<|tool_call_begin|>functions.get_weather:0 \
        <|tool_call_argument_begin|>{\"city\": \"Beijing\"} <|tool_call_end|>\n<|tool_call_begin|>\
        get_news:1<|tool_call_argument_begin|>{}<|tool_call_end|>\n<|tool_calls_section_end|>";

    #[test]
    fn the_three_formats() {
        let x = extract("deepseek_v3", V3);
        let flags = (x.malformed, x.truncated, x.content.as_deref());
        assert_eq!(flags, (false, false, Some("Sure. After.")));
        assert_eq!(
            calls(&x),
            [
                (None, "get_weather", "{\"city\": \"東京\"}"),
                (None, "get_time", "{}")
            ]
        );
        let x = extract("deepseek_v31", V31);
        assert!(!x.malformed);
        assert_eq!(x.content.as_deref(), Some("Hi"));
        assert_eq!(
            calls(&x),
            [(None, "foo", "{\"x\":1}"), (None, "bar", "{\"y\": [2]}")]
        );
        let x = extract("kimi_k2", KIMI);
        assert!(!x.malformed);
        assert_eq!(x.content.as_deref(), Some("I'll check. "));
        assert_eq!(
            calls(&x),
            [
                (
                    Some("functions.get_weather:0"),
                    "get_weather",
                    "{\"city\": \"Beijing\"}"
                ),
                (Some("get_news:1"), "get_news", "{}"),
            ]
        );
    }

    #[test]
    fn kimi_ids() {
        let s = "<|tool_calls_section_begin|><|tool_call_begin|>functions.f:0<|tool_call_argument_begin|>{}<|tool_call_end|>\
            <|tool_call_begin|>functions.f:0<|tool_call_argument_begin|><|tool_call_end|><|tool_calls_section_end|>";
        let x = extract("kimi_k2", s);
        assert!(!x.malformed);
        // a repeated id is not reused; a call with no arguments has `{}`
        assert_eq!(
            calls(&x),
            [(Some("functions.f:0"), "f", "{}"), (None, "f", "{}")]
        );
        // a bare counter names the request's only tool
        let bare = "<|tool_calls_section_begin|><|tool_call_begin|>3<|tool_call_argument_begin|>{\"a\": 1}<|tool_call_end|>";
        assert!(extract("kimi_k2", bare).malformed);
        let one = Tools::new(HashMap::from([("only".to_owned(), HashMap::new())]));
        let s = stream("kimi_k2", &one, bare, &[]);
        assert!(!s.malformed);
        assert_eq!(
            s.calls,
            [(
                Some("3".to_owned()),
                "only".to_owned(),
                "{\"a\": 1}".to_owned()
            )]
        );
        for bad in [
            "functions.invalid.0",
            "functions.f:x",
            "functions.:0",
            "f g:0",
            ":0",
            "",
        ] {
            let t = format!("<|tool_calls_section_begin|><|tool_call_begin|>{bad}<|tool_call_argument_begin|>{{}}<|tool_call_end|>");
            let x = extract("kimi_k2", &t);
            assert!(x.malformed && x.calls.is_empty(), "{bad:?}");
        }
    }

    #[test]
    fn kimi_singular_section_markers() {
        // Some Kimi K2 checkpoints write `tool_call_section` (vLLM accepted both spellings)
        let s = "a<|tool_call_section_begin|><|tool_call_begin|>functions.ping:0<|tool_call_argument_begin|>{}\
            <|tool_call_end|><|tool_call_section_end|>b<|tool_calls_section_begin|><|tool_call_begin|>f:1\
            <|tool_call_argument_begin|>{}<|tool_call_section_end|>";
        let x = extract("kimi_k2", s);
        assert!(!x.malformed && !x.truncated);
        assert_eq!(x.content.as_deref(), Some("ab"));
        assert_eq!(
            calls(&x),
            [
                (Some("functions.ping:0"), "ping", "{}"),
                (Some("f:1"), "f", "{}")
            ]
        );
        let whole = stream("kimi_k2", &Tools::default(), s, &[]);
        assert_eq!(
            stream("kimi_k2", &Tools::default(), s, &boundaries(s)),
            whole
        );
    }

    #[test]
    fn malformed_and_truncated() {
        for (fmt, bad) in [
            ("deepseek_v31", "<｜tool▁calls▁begin｜>foo<｜tool▁sep｜>{\"x\":1}<｜tool▁calls▁end｜>"),
            ("deepseek_v31", "<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>foo<｜tool▁sep｜>{\"x\":1]<｜tool▁call▁end｜>"),
            ("deepseek_v31", "<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>foo<｜tool▁sep｜>x<｜tool▁call▁end｜>"),
            ("deepseek_v31", "<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>foo<｜tool▁call▁end｜>"),
            ("deepseek_v31", "<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>a b<｜tool▁sep｜>{}<｜tool▁call▁end｜>"),
            ("deepseek_v31", "<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>f<｜tool▁sep｜>{} x<｜tool▁call▁end｜>"),
            ("deepseek_v3", "<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>f\n```json\n{}\n```\n```<｜tool▁call▁end｜>"),
        ] {
            let x = extract(fmt, bad);
            assert!(x.malformed, "{bad:?}");
            let s = stream(fmt, &Tools::default(), bad, &boundaries(bad));
            assert!(s.malformed, "{bad:?}");
            assert!(s.content.len() <= bad.len(), "{bad:?}");
        }
        let long = format!(
            "<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>{}",
            "a".repeat(HEADER_MAX + 1)
        );
        assert!(extract("deepseek_v31", &long).malformed);
        let at_cap = format!("{}<｜tool▁sep｜>{{}}", &long[..long.len() - 1]);
        assert!(!extract("deepseek_v31", &at_cap).malformed);
        for (cut, complete) in [
            ("Text<｜tool▁calls▁begin｜>", 0),
            ("<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>fo", 0),
            ("<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>foo<｜tool▁sep｜>{\"x\"", 0),
            ("<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>f<｜tool▁sep｜>{}<｜tool▁call▁end｜><｜tool▁ca", 1),
            ("<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>f<｜tool▁sep｜>{}<｜tool▁call▁end｜><｜tool▁call▁begin｜>g", 1),
        ] {
            let x = extract("deepseek_v31", cut);
            assert!(x.truncated && !x.malformed, "{cut:?}");
            assert_eq!(x.calls.len(), complete, "{cut:?}");
        }
        // a section left open after complete calls: no truncation
        let x = extract(
            "deepseek_v31",
            "<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>f<｜tool▁sep｜>{}<｜tool▁call▁end｜>\n",
        );
        assert!(!x.truncated && !x.malformed && x.calls.len() == 1);
    }

    #[test]
    fn every_split_agrees() {
        for (fmt, t) in [
            ("deepseek_v3", V3),
            ("deepseek_v31", V31),
            ("kimi_k2", KIMI),
            (
                "deepseek_v31",
                "<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>f<｜tool▁sep｜>{} x<｜tool▁call▁end｜>",
            ),
            ("deepseek_v31", "<｜tool▁calls▁begin｜> x"),
        ] {
            let tools = Tools::default();
            let whole = stream(fmt, &tools, t, &[]);
            for k in boundaries(t) {
                assert_eq!(stream(fmt, &tools, t, &[k]), whole, "{t:?} cut at {k}");
            }
            assert_eq!(stream(fmt, &tools, t, &boundaries(t)), whole, "{t:?}");
        }
    }
}
