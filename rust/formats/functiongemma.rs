//! FunctionGemma tool calls:
//!
//! ```text
//! <start_function_call>call:NAME{key:<escape>text<escape>,n:42,o:{k:<escape>v<escape>},l:[1,2]}<end_function_call>
//! ```
//!
//! repeated for parallel calls. The arguments are converted to JSON text written like
//! `json.dumps(obj, ensure_ascii=False)` as they arrive, keys in the order they appear.
//!
//! The rules (configured by [`Style`], built from the spec entry by `formats::config`, at run time):
//!
//! * Text outside calls is content. A call is the start marker, `call:`, the name, then the
//!   arguments object; its closing `}` completes the call, and the end marker after it (after
//!   optional whitespace) is optional.
//! * The name runs to `{`; it must be non-empty, at most [`NAME_CAP`] characters, and hold no
//!   whitespace, `<`, `>`, `}`, `[`, `]`, `,`, `:` or quotes. Anything else after the start
//!   marker than `call:NAME{` is malformed markup.
//! * An object holds `key:value` members; a key is at most [`NAME_CAP`] characters of anything but
//!   whitespace and `:,{}[]<`; with `key_spaces` (gemma4: `call.key_spaces` in its spec entry) a
//!   bare key may hold whitespace, without the whitespace around it (`{key with space:1.5e-05}`,
//!   as vLLM's and SGLang's gemma4 parsers read a key up to its `:`) (a key written as a JSON string `"k"` loses its quotes; a key between escape markers,
//!   `<|"|>3<|"|>` as vLLM's gemma4 tests write a map's key, is read whole up to its closing
//!   marker, at most [`NAME_CAP`] characters). Members are
//!   separated by `,`; a missing comma is tolerated (vLLM's streaming test writes
//!   `city:<escape>NYC<escape>unit:<escape>celsius<escape>`), and so is a trailing one.
//!   Whitespace may stand between members and around values. Nested objects and arrays (`[v,...]`)
//!   are followed on an explicit stack (no recursion on model data).
//! * A value is a string between escape markers (`<escape>...<escape>`), a nested object or array,
//!   or a bare word (what llama.cpp parses as a raw JSON value): a run of characters up to
//!   whitespace or one of `,}]<`.
//! * Escaped and bare values alike: a value that is a JSON number, `true`, `false` or `null` is
//!   written as that JSON value (normalised as `json.dumps(json.loads(v))` writes it); anything
//!   else is a string; a bare `None` is null too (Gemma 4's chat template writes a null value
//!   with Jinja's `{{ argument }}`, which prints Python's `None`). vLLM's own tests pin this for escaped values (`count:<escape>42<escape>` is
//!   `42`, `enabled:<escape>true<escape>` is `true`), and llama.cpp's for bare ones (`value:25`).
//!   With `escaped_strings` (gemma4: `call.escaped` is `"string"` in its spec entry) an escaped
//!   value is always a string, as in vLLM's and SGLang's gemma4 parsers and Gemma 4's template
//!   (which escapes strings only); bare values are still converted.
//!   vLLM also parses an escaped `{...}` or `[...]` as JSON; we do not (it stays a string): the
//!   FunctionGemma template writes objects and arrays bare, and deciding it would hold the whole
//!   value back. A string streams character by character: a value is held only while it can
//!   still be such a scalar (at most [`SCALAR_CAP`] characters; a longer one is a string).
//!   A top-level parameter the request's tool schema types as a string only (`"type": "string"`)
//!   is always a string (`zip:<escape>10001<escape>` stays `"10001"`), streamed from its start.
//! * Malformed markup inside a call (an empty value, a stray character between members, an
//!   unknown `<` in place of a value, an unbalanced bracket) makes the rest content. The text
//!   ending inside a call is truncation: the call is unfinished.

use super::between::{self, after_call, settle, text_until, After, Next};
use super::{Machine, Tools};
use crate::event::Emitter;
use crate::params::{normalize_json, push_json_str, push_json_str_body, Kind};
use crate::scan::{is_ws, Found, Markers};

/// The longest function name or key accepted, in characters.
pub const NAME_CAP: usize = 256;
/// The longest value held back while it may still be a JSON number or literal.
pub const SCALAR_CAP: usize = 64;

/// The markers of one format of the family (built from its spec entry by `formats::config`, at run time).
#[derive(Debug)]
pub struct Style {
    /// `[call_start]`.
    pub start: Markers,
    /// What follows the start marker before the name (`call:`).
    pub prefix: &'static str,
    /// `[string delimiter]` (`<escape>`).
    pub escape: Markers,
    /// `[call_end]`.
    pub end: Markers,
    /// A value between escape markers is always a string (gemma4: its template escapes only
    /// strings); otherwise it is typed like a bare word (functiongemma).
    pub escaped_strings: bool,
    /// A bare key may hold whitespace (gemma4); otherwise whitespace ends it (functiongemma).
    pub key_spaces: bool,
}

/// An open object (`obj`) or array, with the members written so far.
#[derive(Debug, Clone, Copy)]
struct Frame {
    obj: bool,
    n: usize,
}

#[derive(Debug)]
enum State {
    /// Plain text, looking for the start marker.
    Text,
    /// After the start marker: the prefix and the name. `raw` is the markup read so far.
    Head { raw: String },
    /// In an object, reading a key (leading whitespace skipped); `}` may close the object.
    Key { key: String },
    /// A key written between escape markers (`<|"|>3<|"|>:`), read up to its closing marker;
    /// then [`State::Key`] again, holding it quoted (the quotes are dropped at its `:`).
    EscKey { key: String },
    /// A value is expected (an array's first value may be `]`).
    Value,
    /// In a scalar value (`escaped`: between escape markers, else a bare word). `raw`: the text
    /// held while it may be a JSON number or literal; `streaming`: it is a string, sent as it
    /// comes (its opening quote was sent).
    Scalar {
        raw: String,
        streaming: bool,
        escaped: bool,
    },
    /// After a value: `,`, the close of the open object or array, or (in an object) a key.
    Next,
    /// After the call's closing `}`: whitespace, then the optional end marker. `ws`: the
    /// whitespace read, content if other text follows.
    After { ws: String },
    /// After malformed markup: everything is content.
    Fallback,
}

/// What the transitions read and write besides the state: the style, the tools' parameter
/// types, the open objects and arrays, and the call.
struct Reader {
    style: &'static Style,
    tools: Tools,
    stack: Vec<Frame>,
    /// The current call's function name.
    func: String,
    /// The value being read belongs to a parameter the tool's schema types as a string only.
    string_param: bool,
}

pub struct FunctionGemma {
    st: State,
    reader: Reader,
}

/// What a transition did: where the loop goes on, and the state it moved to (`None`: the state
/// stays).
type Turn = between::Moved<State>;

/// The transition moved to `st`; the loop goes on from `at`.
fn go(at: usize, st: State) -> Turn {
    (Next::Go(at), Some(st))
}

/// Malformed markup: everything from here is content.
fn fail(out: &mut Emitter) -> State {
    out.malformed = true;
    State::Fallback
}

impl FunctionGemma {
    pub fn new(style: &'static Style, tools: &Tools) -> FunctionGemma {
        FunctionGemma {
            st: State::Text,
            reader: Reader {
                style,
                tools: tools.clone(),
                stack: Vec::new(),
                func: String::new(),
                string_param: false,
            },
        }
    }
}

impl Reader {
    /// A scalar value starts: a string at once when its parameter is typed as a string, or when
    /// it is escaped and the style makes escaped values strings.
    fn scalar(&mut self, escaped: bool, out: &mut Emitter) -> State {
        let typed_string = std::mem::take(&mut self.string_param);
        let streaming = typed_string || (escaped && self.style.escaped_strings);
        if streaming {
            out.args("\"");
        }
        State::Scalar {
            raw: String::new(),
            streaming,
            escaped,
        }
    }

    /// Opens a value in the current container: in an array, its separator and count.
    fn begin_value(&mut self, out: &mut Emitter) {
        if let Some(top) = self.stack.last_mut() {
            if !top.obj {
                if top.n > 0 {
                    out.args(", ");
                }
                top.n += 1;
            }
        }
    }

    /// Closes the innermost object or array; the call when it was the arguments object.
    fn close(&mut self, out: &mut Emitter) -> State {
        if let Some(top) = self.stack.pop() {
            out.args(if top.obj { "}" } else { "]" });
        }
        if self.stack.is_empty() {
            out.tool_end();
            State::After { ws: String::new() }
        } else {
            State::Next
        }
    }

    /// Plain text up to the start marker.
    fn on_text(&self, input: &str, mut i: usize, out: &mut Emitter) -> Turn {
        let start = &self.style.start;
        match text_until(start, input, &mut i, out) {
            Some(which) => go(
                i,
                State::Head {
                    raw: start.list[which].to_owned(),
                },
            ),
            None => (Next::Hold(i), None),
        }
    }

    /// After the start marker: the prefix and the name, up to the arguments' `{`; anything else
    /// is malformed markup, sent as content.
    fn on_head(&mut self, raw: &mut String, input: &str, i: usize, out: &mut Emitter) -> Turn {
        let (style, rest) = (self.style, &input[i..]);
        let brace = rest.find('{');
        let take = brace.unwrap_or(rest.len());
        raw.push_str(&rest[..take]);
        let body = &raw[style.start.list[0].len()..];
        let np = style.prefix.len();
        let ok = match body.strip_prefix(style.prefix) {
            Some(name) => {
                !name.contains(name_stop)
                    && name.chars().count() <= NAME_CAP
                    && (brace.is_none() || !name.is_empty())
            }
            None => body.len() < np && style.prefix.starts_with(body) && brace.is_none(),
        };
        if !ok {
            out.content(raw);
            return (Next::Hold(i + take), Some(fail(out)));
        }
        let Some(_) = brace else {
            return (Next::Hold(input.len()), None);
        };
        let name = body[np..].to_owned();
        self.func.clone_from(&name);
        out.tool_start(None, name);
        out.args("{");
        self.stack.clear();
        self.stack.push(Frame { obj: true, n: 0 });
        go(i + take + 1, State::Key { key: String::new() })
    }

    /// In an object, reading a key (leading whitespace skipped) up to its `:`; `}` may close
    /// the object, and an escape marker opens a key written between escape markers.
    fn on_key(&mut self, key: &mut String, input: &str, i: usize, out: &mut Emitter) -> Turn {
        let (style, rest) = (self.style, &input[i..]);
        if key.is_empty() {
            // whitespace before a key is not part of it
            let t = rest.trim_start_matches(is_ws);
            if t.len() < rest.len() {
                return (Next::Go(i + rest.len() - t.len()), None);
            }
        }
        let Some(p) = rest.find(|c| key_stop(c, style.key_spaces)) else {
            key.push_str(rest);
            let over = key.chars().count() > NAME_CAP;
            return (Next::Hold(input.len()), over.then(|| fail(out)));
        };
        key.push_str(&rest[..p]);
        let c = rest.as_bytes()[p];
        if key.chars().count() > NAME_CAP {
            return go(i + p, fail(out));
        }
        if key.is_empty() && c == b'}' {
            return go(i + p + 1, self.close(out));
        }
        if key.is_empty() && c == b'<' {
            let at = &rest[p..];
            if let Some(which) = style.escape.starts(at) {
                let esc = State::EscKey { key: String::new() };
                return go(i + p + style.escape.list[which].len(), esc);
            }
            if style.escape.could_start(at) {
                return (Next::Hold(i + p), None);
            }
        }
        if key.is_empty() || c != b':' {
            return go(i + p, fail(out));
        }
        go(i + p + 1, self.member(key, out))
    }

    /// A key and its `:` are read: writes the key (its separator first), and whether the value
    /// is a parameter typed as a string only.
    fn member(&mut self, key: &mut String, out: &mut Emitter) -> State {
        let whole = std::mem::take(key);
        // whitespace between a key and its `:` is not part of it
        let k = whole.trim_end_matches(is_ws);
        let k = match k.strip_prefix('"').and_then(|k| k.strip_suffix('"')) {
            Some(inner) => inner,
            None => k,
        };
        let mut s = String::with_capacity(k.len() + 6);
        if let Some(top) = self.stack.last_mut() {
            if top.n > 0 {
                s.push_str(", ");
            }
            top.n += 1;
        }
        push_json_str(&mut s, k);
        s.push_str(": ");
        out.args(&s);
        self.string_param = self.stack.len() == 1
            && matches!(
                self.tools.functions.get(&self.func).and_then(|p| p.get(k)),
                Some(Kind::Str)
            );
        State::Value
    }

    /// A key written between escape markers, read whole up to its closing marker; then
    /// [`State::Key`] again, holding it quoted.
    fn on_esc_key(&self, key: &mut String, input: &str, i: usize, out: &mut Emitter) -> Turn {
        let escape = &self.style.escape;
        let rest = &input[i..];
        let (take, close) = match escape.find(rest) {
            Found::Marker { at, which } => (at, Some(escape.list[which].len())),
            Found::Partial { safe } => (safe, None),
        };
        key.push_str(&rest[..take]);
        if key.chars().count() > NAME_CAP {
            return go(i + take, fail(out));
        }
        let Some(len) = close else {
            return (Next::Hold(i + take), None);
        };
        let quoted = format!("\"{key}\"");
        go(i + take + len, State::Key { key: quoted })
    }

    /// A value is expected: an escaped string, a nested object or array, or a bare word (an
    /// array's first value may be `]`).
    fn on_value(&mut self, input: &str, i: usize, out: &mut Emitter) -> Turn {
        let (escape, rest) = (&self.style.escape, &input[i..]);
        let Some(c) = rest.chars().next() else {
            return (Next::Hold(i), None);
        };
        if is_ws(c) {
            return (Next::Go(i + 1), None);
        }
        match c {
            '<' if escape.starts(rest).is_some() => {
                self.begin_value(out);
                go(i + escape.list[0].len(), self.scalar(true, out))
            }
            '<' if escape.could_start(rest) => (Next::Hold(i), None),
            '{' | '[' => {
                self.string_param = false;
                self.begin_value(out);
                let obj = c == '{';
                out.args(if obj { "{" } else { "[" });
                self.stack.push(Frame { obj, n: 0 });
                go(
                    i + 1,
                    if obj {
                        State::Key { key: String::new() }
                    } else {
                        State::Value
                    },
                )
            }
            ']' if self.stack.last().is_some_and(|t| !t.obj && t.n == 0) => {
                go(i + 1, self.close(out))
            }
            '<' | ',' | '}' | ']' | ':' => go(i, fail(out)),
            _ => {
                self.begin_value(out);
                go(i, self.scalar(false, out))
            }
        }
    }

    /// After a value: `,`, the close of the open object or array, or (in an object) a key.
    fn on_next(&mut self, input: &str, i: usize, out: &mut Emitter) -> Turn {
        let Some(c) = input[i..].chars().next() else {
            return (Next::Hold(i), None);
        };
        let obj = self.stack.last().is_some_and(|t| t.obj);
        if is_ws(c) {
            (Next::Go(i + 1), None)
        } else if c == ',' {
            let st = if obj {
                State::Key { key: String::new() }
            } else {
                State::Value
            };
            go(i + 1, st)
        } else if (obj && c == '}') || (!obj && c == ']') {
            go(i + 1, self.close(out))
        } else if obj && !key_stop(c, self.style.key_spaces) {
            // A missing comma: the next key.
            go(i, State::Key { key: String::new() })
        } else {
            go(i, fail(out))
        }
    }

    /// In a scalar value (`escaped`: between escape markers, else a bare word): its text up to its
    /// end, held or streamed (see [`scalar_text`]).
    fn on_scalar(
        &self,
        raw: &mut String,
        streaming: &mut bool,
        escaped: bool,
        input: &str,
        i: usize,
        out: &mut Emitter,
    ) -> Turn {
        let (escape, rest) = (&self.style.escape, &input[i..]);
        // the value's text ends at `at`, the value at `end`
        let (at, end) = if escaped {
            match escape.find(rest) {
                Found::Marker { at, which } => (at, at + escape.list[which].len()),
                Found::Partial { safe } => {
                    scalar_text(raw, streaming, &rest[..safe], out);
                    return (Next::Hold(i + safe), None);
                }
            }
        } else {
            let Some(p) = rest.find(bare_stop) else {
                scalar_text(raw, streaming, rest, out);
                return (Next::Hold(input.len()), None);
            };
            (p, p)
        };
        scalar_text(raw, streaming, &rest[..at], out);
        scalar_end(raw, *streaming, escaped, out);
        go(i + end, State::Next)
    }
}

/// Whether `s` may still grow into a JSON number, `true`, `false`, `null` or `None` (a left-to-right
/// check that, once failed, fails for every longer text).
pub fn scalar_prefix(s: &str) -> bool {
    if ["true", "false", "null", "None"]
        .iter()
        .any(|l| l.starts_with(s))
    {
        return true;
    }
    let b = s.as_bytes();
    let digits = |mut i: usize| {
        while b.get(i).is_some_and(u8::is_ascii_digit) {
            i += 1;
        }
        i
    };
    let mut i = usize::from(b.first() == Some(&b'-'));
    match b.get(i) {
        None => return true,
        Some(b'0') => i += 1,
        Some(c) if c.is_ascii_digit() => i = digits(i),
        Some(_) => return false,
    }
    if b.get(i) == Some(&b'.') {
        i = digits(i + 1);
    }
    if matches!(b.get(i), Some(b'e' | b'E')) {
        i += 1;
        if matches!(b.get(i), Some(b'+' | b'-')) {
            i += 1;
        }
        i = digits(i);
    }
    i == b.len()
}

/// Characters that end a name or a key (`{` ends a name, `:` a key; the others are malformed).
fn name_stop(c: char) -> bool {
    is_ws(c)
        || matches!(
            c,
            '<' | '>' | '{' | '}' | '[' | ']' | ',' | ':' | '"' | '\''
        )
}

fn key_stop(c: char, spaces: bool) -> bool {
    (!spaces && is_ws(c)) || matches!(c, ':' | ',' | '{' | '}' | '[' | ']' | '<')
}

fn bare_stop(c: char) -> bool {
    is_ws(c) || matches!(c, ',' | '}' | ']' | '<')
}

/// Scalar text: held while it may be a JSON scalar, else sent as string text.
fn scalar_text(raw: &mut String, streaming: &mut bool, s: &str, out: &mut Emitter) {
    if s.is_empty() {
        return;
    }
    if *streaming {
        out.args_with(|f| push_json_str_body(f, s));
        return;
    }
    raw.push_str(s);
    if !scalar_prefix(raw) || raw.len() > SCALAR_CAP {
        *streaming = true;
        let held = std::mem::take(raw);
        out.args_with(|f| {
            f.push('"');
            push_json_str_body(f, &held);
        });
    }
}

/// The end of a scalar value (`escaped`: it stood between escape markers).
fn scalar_end(raw: &str, streaming: bool, escaped: bool, out: &mut Emitter) {
    if streaming {
        out.args("\"");
    } else if !escaped && raw == "None" {
        // Python's null, as Gemma 4's template writes a null value (`{{ argument }}`).
        out.args("null");
    } else if let Some(j) = normalize_json(raw) {
        out.args(&j);
    } else {
        out.args_with(|f| push_json_str(f, raw));
    }
}

impl Machine for FunctionGemma {
    fn step(&mut self, input: &str, mut i: usize, out: &mut Emitter) -> Next {
        let r = &mut self.reader;
        let moved = match &mut self.st {
            State::Text => r.on_text(input, i, out),
            // The driver makes the rest content.
            State::Fallback => (Next::Hold(i), None),
            State::Head { raw } => r.on_head(raw, input, i, out),
            State::Key { key } => r.on_key(key, input, i, out),
            State::EscKey { key } => r.on_esc_key(key, input, i, out),
            State::Value => r.on_value(input, i, out),
            State::Scalar {
                raw,
                streaming,
                escaped,
            } => r.on_scalar(raw, streaming, *escaped, input, i, out),
            State::Next => r.on_next(input, i, out),
            State::After { ws } => match after_call(ws, input, &mut i, &r.style.end, out) {
                After::Wait => (Next::Hold(i), None),
                // The end marker; or none: the whitespace started the text.
                After::Marker(_) | After::Text => go(i, State::Text),
            },
        };
        settle(&mut self.st, moved)
    }

    fn finish(&mut self, rest: &str, out: &mut Emitter) {
        match &mut self.st {
            State::Head { raw } => {
                raw.push_str(rest);
                out.truncate(raw);
            }
            State::After { ws } => {
                ws.push_str(rest);
                out.content(ws);
            }
            State::Text | State::Fallback => out.content(rest),
            _ => out.truncate(""),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::formats::{Format, Parser, Tools};

    fn extract(text: &str) -> (Option<String>, Vec<(String, String)>, bool) {
        let f = Format::from_name("functiongemma").expect("registered");
        let x = Parser::extract(f, &Tools::default(), text);
        let calls = x
            .calls
            .iter()
            .map(|c| (c.name.clone(), c.arguments.clone()));
        (x.content.clone(), calls.collect(), x.malformed)
    }

    #[test]
    fn converts_values() {
        let text = "Hi <start_function_call>call:f{s:<escape>a\"b<escape>,n:<escape>42<escape>,\
                    o:{k:[1,true,null,<escape>x<escape>]},e:[],w:word}<end_function_call>";
        let (content, calls, malformed) = extract(text);
        assert_eq!(content.as_deref(), Some("Hi "));
        assert!(!malformed);
        let want =
            r#"{"s": "a\"b", "n": 42, "o": {"k": [1, true, null, "x"]}, "e": [], "w": "word"}"#;
        assert_eq!(calls, vec![("f".to_owned(), want.to_owned())]);
    }

    /// gemma4 (`key_spaces`): a bare key runs to its `:` and may hold whitespace, at any depth,
    /// without the whitespace around it; functiongemma's keys end at whitespace. Every split
    /// gives the same.
    #[test]
    fn keys_with_spaces() {
        let tools = Tools::default();
        let g4 = Format::from_name("gemma4").expect("registered");
        let text = "<|tool_call>call:f{key with space:1.5e-05, o:{ inner key :<|\"|>x y<|\"|>}}\
                    <tool_call|>";
        let x = Parser::extract(g4, &tools, text);
        let want = r#"{"key with space": 1.5e-05, "o": {"inner key": "x y"}}"#;
        let calls: Vec<(&str, &str)> = x
            .calls
            .iter()
            .map(|c| (c.name.as_str(), c.arguments.as_str()))
            .collect();
        assert_eq!(calls, vec![("f", want)]);
        assert!(!x.malformed && x.content.is_none());
        let chars: Vec<String> = text.chars().map(String::from).collect();
        let s = Parser::replay(g4, &tools, &chars);
        assert_eq!((&s.calls, &s.content), (&x.calls, &x.content));
        let (_, calls, malformed) =
            extract("<start_function_call>call:f{a b:1}<end_function_call>");
        assert!(calls.is_empty() && malformed);
    }

    #[test]
    fn malformed_and_truncated() {
        let (_, calls, malformed) = extract("<start_function_call>call:f{a:}<end_function_call>");
        assert!(calls.is_empty() && malformed);
        let text = "<start_function_call>call:f{}<start_function_call>call:g{a:[1";
        let (_, calls, malformed) = extract(text);
        assert_eq!(calls, vec![("f".to_owned(), "{}".to_owned())]);
        assert!(!malformed);
    }

    #[test]
    fn scalar_prefixes() {
        for s in [
            "", "-", "0", "-0.5e+", "12", "1.", "1e5", "tr", "null", "f", "No", "None",
        ] {
            assert!(scalar_prefix(s), "{s}");
        }
        for s in ["01", "a", "1x", "truex", "--1", "1.5.", " 1", "1e5e"] {
            assert!(!scalar_prefix(s), "{s}");
        }
    }
}
