//! The reader of a `{"name": ..., "arguments": ...}` tool-call object (and of a list of them),
//! built on the resumable scanner and string decoder of the parent module.

use std::ops::ControlFlow;

use super::{JsonScanner, StrDecoder};
use crate::event::Emitter;
use crate::scan::{char_end, ws_len, NAME_MAX, WS_MAX};
use crate::Step;

/// Checks decoded string-argument text as (part of) one JSON object with optional surrounding
/// whitespace; returns the byte offset of the first character that breaks it.
fn first_bad(text: &str, opened: &mut bool, sc: &mut JsonScanner) -> Option<usize> {
    if !*opened {
        let lead = ws_len(text);
        if lead == text.len() {
            return None;
        }
        if !text[lead..].starts_with('{') {
            return Some(lead);
        }
        *opened = true;
    }
    let tail = if sc.is_done() {
        0
    } else {
        match sc.feed(text.as_bytes()) {
            Step::Done(k) => k,
            Step::NeedMore => return None,
            Step::Error(k) => return Some(k),
        }
    };
    let ws = ws_len(&text[tail..]);
    (tail + ws < text.len()).then_some(tail + ws)
}

/// Whether a function name is blank: empty or only whitespace as Python's `str.isspace` sees it
/// (Unicode `White_Space` plus U+001C..U+001F). A blank name is malformed markup, not a call (the
/// `ToolCall` model refuses it).
pub fn is_blank(name: &str) -> bool {
    name.chars()
        .all(|c| c.is_whitespace() || ('\u{1c}'..='\u{1f}').contains(&c))
}

/// Which member of a call object a key names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Member {
    Name,
    Args,
    /// The call's own id (a JSON string), where the format writes one (cohere's
    /// `tool_call_id`).
    Id,
    Other,
}

/// Keys that name the function and its arguments (a format's spec entry gives them: `call`'s
/// `name_keys` and `args_keys`, and `arguments`, which says whether the arguments may be a JSON
/// string holding the object).
#[derive(Debug, Clone, Copy)]
pub struct CallKeys {
    pub name: &'static [&'static str],
    pub args: &'static [&'static str],
    /// Whether the arguments may be a JSON string holding the JSON object
    /// (`"arguments": "{\"a\": 1}"`); when not, a string there is malformed.
    pub strings: bool,
    /// Whether the call is `{NAME: {...}}` (apertus): the object's one key is the function's
    /// name and its value the arguments; `name` and `args` are then unused. A second key is
    /// malformed.
    pub by_name: bool,
    /// The keys that hold the call's own id (a JSON string; anything else there is skipped).
    pub id: &'static [&'static str],
}

impl CallKeys {
    fn member(&self, key: &str) -> Member {
        if self.name.contains(&key) {
            Member::Name
        } else if self.args.contains(&key) {
            Member::Args
        } else if self.id.contains(&key) {
            Member::Id
        } else {
            Member::Other
        }
    }
}

pub const CALL_KEYS: CallKeys = CallKeys {
    name: &["name"],
    args: &["arguments", "parameters"],
    strings: true,
    by_name: false,
    id: &[],
};

#[derive(Debug, Clone, Copy)]
enum CState {
    /// Before the opening `{`.
    Open,
    KeyOrClose,
    Key,
    /// A key (a JSON string, decoded into `buf`).
    KeyStr,
    Colon(Member),
    Value(Member),
    /// The function's name, read like a key.
    Name,
    /// The call's id (a JSON string), read like a name.
    Id,
    /// The arguments object, passed through as written (scanned by `sc`).
    ArgsRaw,
    /// Arguments given as a JSON string holding JSON: decoded (by `dec`), then validated (by
    /// `sc`).
    ArgsStr,
    /// String arguments that stopped being JSON: read to the end of the string, then fail.
    BadStr,
    /// Another member's value, skipped (scanned by `sc`).
    Skip,
    CommaOrClose,
    Done,
}

/// What one transition did: `Continue(j)`, the object goes on at `j`; `Break(step)`, the feed
/// ends with `step`.
type Flow = ControlFlow<Step, usize>;

/// Reads one `{"name": N, "arguments": {...}}` object (keys in any order, other keys skipped) and
/// emits the call: its start as soon as the name is read (see `name_starts`; otherwise once the
/// name is known and the arguments begin), the arguments as they arrive, its end when the object
/// closes. Arguments seen before the name are held until the name arrives.
///
/// Keys and the name are capped at [`NAME_MAX`] characters as written, a whitespace run between
/// tokens at [`WS_MAX`]: past a cap the object is an error there (see `scan`). Whitespace inside
/// the arguments is theirs, streamed as written; what is held before the name is capped by the
/// region reading the object (`formats::Region`, `HOLD_MAX`).
#[derive(Debug, Clone)]
pub struct CallObject {
    st: CState,
    keys: CallKeys,
    /// When set, an object without an arguments member is not a call (plain JSON in text).
    require_args: bool,
    name: Option<String>,
    /// The call's own id, when the object gave one before the call started.
    id: Option<String>,
    seen_args: bool,
    held_args: String,
    started: bool,
    /// Whether the object turned out to be a call (valid once `Done`).
    pub is_call: bool,
    /// The length of the whitespace run being read between tokens (capped by `WS_MAX`).
    ws: usize,
    /// The characters of the key or name being read, as written (capped by `NAME_MAX`).
    read: usize,
    /// The decoder of the JSON string being read (a key, the name, the id, string arguments).
    dec: StrDecoder,
    /// The key, name or id decoded so far.
    buf: String,
    /// The scanner of the JSON value being read (the arguments, or a value skipped).
    sc: JsonScanner,
    /// Whether the object in string arguments has begun.
    opened: bool,
}

/// Feeds a key or a name (a JSON string body) to `dec`; `read` counts its characters as written.
/// Past `NAME_MAX` of them without the closing quote it is an error, right after the first
/// character over the cap, wherever the text was split.
fn feed_name(dec: &mut StrDecoder, read: &mut usize, rest: &str, buf: &mut String) -> Step {
    let end = char_end(rest, NAME_MAX + 1 - *read);
    match dec.feed(&rest[..end], buf) {
        Step::NeedMore => {
            *read += rest[..end].chars().count();
            if *read > NAME_MAX {
                Step::Error(end)
            } else {
                Step::NeedMore
            }
        }
        r => r,
    }
}

impl CallObject {
    pub fn new(keys: CallKeys, require_args: bool) -> Self {
        CallObject {
            st: CState::Open,
            keys,
            require_args,
            name: None,
            id: None,
            seen_args: false,
            held_args: String::new(),
            started: false,
            is_call: false,
            ws: 0,
            read: 0,
            dec: StrDecoder::new(),
            buf: String::new(),
            sc: JsonScanner::new(),
            opened: false,
        }
    }

    /// Whether the call start has been emitted (after that nothing can be taken back).
    pub fn started(&self) -> bool {
        self.started
    }

    /// Whether the call may start as soon as its name is read, before its arguments: when the
    /// object is a call whatever follows (`require_args` is off) and its id, where the format
    /// writes one, came first (as the templates write it); otherwise it starts with the
    /// arguments, so a later id is still the call's.
    fn name_starts(&self) -> bool {
        !self.require_args && (self.keys.id.is_empty() || self.id.is_some())
    }

    fn start(&mut self, out: &mut Emitter) {
        if !self.started {
            if let Some(name) = self.name.clone() {
                self.started = true;
                out.tool_start(self.id.take(), name);
                let held = std::mem::take(&mut self.held_args);
                out.args(&held);
            }
        }
    }

    fn args_out(&mut self, s: &str, out: &mut Emitter) {
        if self.started {
            out.args(s);
        } else {
            self.held_args.push_str(s);
        }
    }

    /// Reads `s`: one transition per state, until one ends the feed.
    pub fn feed(&mut self, s: &str, out: &mut Emitter) -> Step {
        let mut i = 0;
        while i < s.len() {
            let flow = match self.st {
                CState::Open
                | CState::KeyOrClose
                | CState::Key
                | CState::Colon(_)
                | CState::Value(_)
                | CState::CommaOrClose => self.on_token(s.as_bytes()[i], i, out),
                CState::KeyStr | CState::Name | CState::Id => {
                    let rest = &s[i..];
                    match feed_name(&mut self.dec, &mut self.read, rest, &mut self.buf) {
                        Step::Done(k) => self.on_string(i + k, out),
                        Step::Error(k) => Flow::Break(Step::Error(i + k)),
                        Step::NeedMore => Flow::Break(Step::NeedMore),
                    }
                }
                CState::ArgsRaw => self.on_args_raw(s, i, out),
                CState::ArgsStr => self.on_args_str(s, i, out),
                CState::BadStr => {
                    let mut sink = String::new();
                    Flow::Break(match self.dec.feed(&s[i..], &mut sink) {
                        Step::NeedMore => Step::NeedMore,
                        Step::Done(k) | Step::Error(k) => Step::Error(i + k),
                    })
                }
                CState::Skip => match self.sc.feed(&s.as_bytes()[i..]) {
                    Step::Done(k) => self.go(CState::CommaOrClose, i + k),
                    Step::NeedMore => Flow::Break(Step::NeedMore),
                    Step::Error(k) => Flow::Break(Step::Error(i + k)),
                },
                CState::Done => Flow::Break(Step::Done(i)),
            };
            match flow {
                Flow::Continue(j) => i = j,
                Flow::Break(step) => return step,
            }
        }
        // A number being skipped may end only with the next byte; everything else waits too.
        Step::NeedMore
    }

    /// Moves to `st`, going on at `j`.
    fn go(&mut self, st: CState, j: usize) -> Flow {
        self.st = st;
        Flow::Continue(j)
    }

    /// Begins reading a JSON string (in state `st`: a key, the name or the id).
    fn string(&mut self, st: CState, j: usize) -> Flow {
        self.read = 0;
        self.dec = StrDecoder::new();
        self.buf.clear();
        self.go(st, j)
    }

    /// States `Open`, `KeyOrClose`, `Key`, `Colon`, `Value` and `CommaOrClose`: whitespace (one
    /// run, capped by `WS_MAX`), then the token the state expects at `i` (`b`).
    fn on_token(&mut self, b: u8, i: usize, out: &mut Emitter) -> Flow {
        if matches!(b, b' ' | b'\t' | b'\n' | b'\r') {
            self.ws += 1;
            if self.ws > WS_MAX {
                return Flow::Break(Step::Error(i));
            }
            return Flow::Continue(i + 1);
        }
        self.ws = 0;
        match (self.st, b) {
            (CState::Open, b'{') => self.go(CState::KeyOrClose, i + 1),
            (CState::KeyOrClose | CState::Key, b'"') => self.string(CState::KeyStr, i + 1),
            (CState::CommaOrClose, b',') => self.go(CState::Key, i + 1),
            (CState::KeyOrClose | CState::CommaOrClose, b'}') => {
                Flow::Break(self.close(i + 1, out))
            }
            (CState::Colon(m), b':') => self.go(CState::Value(m), i + 1),
            (CState::Value(m), _) => self.on_value(m, b, i, out),
            _ => Flow::Break(Step::Error(i)),
        }
    }

    /// State `Value`: the value of member `m` begins at `i` (with `b`).
    fn on_value(&mut self, m: Member, b: u8, i: usize, out: &mut Emitter) -> Flow {
        match (m, b) {
            (Member::Name, b'"') => self.string(CState::Name, i + 1),
            (Member::Args, b'{') => {
                self.seen_args = true;
                self.start(out);
                self.sc = JsonScanner::new();
                self.go(CState::ArgsRaw, i)
            }
            (Member::Args, b'"') if self.keys.strings => {
                self.seen_args = true;
                self.start(out);
                self.dec = StrDecoder::new();
                self.sc = JsonScanner::new();
                self.opened = false;
                self.go(CState::ArgsStr, i + 1)
            }
            (Member::Id, b'"') => self.string(CState::Id, i + 1),
            (Member::Id | Member::Other, _) => {
                self.sc = JsonScanner::new();
                self.go(CState::Skip, i)
            }
            _ => Flow::Break(Step::Error(i)),
        }
    }

    /// States `KeyStr`, `Name` and `Id`: the string (in `buf`) ended at `j`.
    fn on_string(&mut self, j: usize, out: &mut Emitter) -> Flow {
        match self.st {
            CState::KeyStr => self.on_key_str(j),
            CState::Name => self.on_name(j, out),
            _ => self.on_id(j),
        }
    }

    /// State `KeyStr`: the key names a member (or, `{NAME: {...}}`, the function).
    fn on_key_str(&mut self, j: usize) -> Flow {
        let key = &self.buf;
        if self.keys.by_name {
            // `{NAME: {...}}`: the key names the function, once; a blank one is malformed (at the
            // end of the key, wherever the text was split).
            if self.name.is_some() || is_blank(key) {
                return Flow::Break(Step::Error(j));
            }
            self.name = Some(std::mem::take(&mut self.buf));
            return self.go(CState::Colon(Member::Args), j);
        }
        let m = self.keys.member(key);
        let dup = match m {
            Member::Name => self.name.is_some(),
            Member::Args => self.seen_args,
            Member::Id | Member::Other => false,
        };
        if dup {
            // at the end of the key, wherever the text was split
            return Flow::Break(Step::Error(j));
        }
        self.go(CState::Colon(m), j)
    }

    /// State `Name`: the function's name; a blank one is malformed.
    fn on_name(&mut self, j: usize, out: &mut Emitter) -> Flow {
        if is_blank(&self.buf) {
            return Flow::Break(Step::Error(j));
        }
        self.name = Some(std::mem::take(&mut self.buf));
        self.st = CState::CommaOrClose;
        if self.seen_args || self.name_starts() {
            self.start(out);
        }
        Flow::Continue(j)
    }

    /// State `Id`: before the call started it is the call's id (the first one given; a blank one
    /// is none); after, it is too late to say.
    fn on_id(&mut self, j: usize) -> Flow {
        if !self.started && self.id.is_none() && !is_blank(&self.buf) {
            self.id = Some(std::mem::take(&mut self.buf));
        }
        self.go(CState::CommaOrClose, j)
    }

    /// State `ArgsRaw`: the arguments object, sent (or held) as it comes.
    fn on_args_raw(&mut self, s: &str, i: usize, out: &mut Emitter) -> Flow {
        let rest = &s[i..];
        match self.sc.feed(rest.as_bytes()) {
            Step::Done(k) => {
                self.args_out(&rest[..k], out);
                self.go(CState::CommaOrClose, i + k)
            }
            Step::NeedMore => {
                self.args_out(rest, out);
                Flow::Break(Step::NeedMore)
            }
            Step::Error(k) => {
                self.args_out(&rest[..k], out);
                Flow::Break(Step::Error(i + k))
            }
        }
    }

    /// State `ArgsStr`: string arguments, decoded and checked as one JSON object. What was valid
    /// is emitted before any error, and the error takes the rest of the string with it, so the
    /// result does not depend on where text was split.
    fn on_args_str(&mut self, s: &str, i: usize, out: &mut Emitter) -> Flow {
        let mut text = String::new();
        let r = self.dec.feed(&s[i..], &mut text);
        let bad = first_bad(&text, &mut self.opened, &mut self.sc);
        let (opened, done) = (self.opened, self.sc.is_done());
        if let Some(b) = bad {
            self.args_out(&text[..b], out);
            return Flow::Break(match r {
                Step::NeedMore => {
                    self.st = CState::BadStr;
                    Step::NeedMore
                }
                Step::Done(k) | Step::Error(k) => Step::Error(i + k),
            });
        }
        self.args_out(&text, out);
        match r {
            Step::Done(k) => {
                if opened && !done {
                    return Flow::Break(Step::Error(i + k - 1));
                }
                if !opened {
                    self.args_out("{}", out);
                }
                self.go(CState::CommaOrClose, i + k)
            }
            Step::NeedMore => Flow::Break(Step::NeedMore),
            Step::Error(k) => Flow::Break(Step::Error(i + k)),
        }
    }

    fn close(&mut self, i: usize, out: &mut Emitter) -> Step {
        self.st = CState::Done;
        if self.name.is_none() || (self.require_args && !self.seen_args) {
            self.is_call = false;
            if self.started {
                return Step::Error(i - 1);
            }
            return Step::Done(i);
        }
        self.is_call = true;
        self.start(out);
        if !self.seen_args {
            out.args("{}");
        }
        out.tool_end();
        Step::Done(i)
    }
}

#[derive(Debug, Clone)]
enum LState {
    Open,
    ItemOrClose,
    Item(Box<CallObject>),
    CommaOrClose,
    Done,
}

/// Reads tool-call objects: either one object, or a JSON array of them (`[{...}, {...}]`).
#[derive(Debug, Clone)]
pub struct Calls {
    st: LState,
    array: bool,
    keys: CallKeys,
    require_args: bool,
    started: bool,
    /// The length of the whitespace run being read between calls (capped by `WS_MAX`).
    ws: usize,
}

impl Calls {
    /// One call object.
    pub fn object(keys: CallKeys, require_args: bool) -> Self {
        Calls {
            st: LState::Item(Box::new(CallObject::new(keys, require_args))),
            array: false,
            keys,
            require_args,
            started: false,
            ws: 0,
        }
    }

    /// A JSON array of call objects.
    pub fn array(keys: CallKeys) -> Self {
        Calls {
            st: LState::Open,
            array: true,
            keys,
            require_args: false,
            started: false,
            ws: 0,
        }
    }

    /// Whether anything has been emitted (after that nothing can be taken back).
    pub fn started(&self) -> bool {
        self.started || matches!(&self.st, LState::Item(c) if c.started())
    }

    /// Whether the (single) object read was a call; arrays hold only calls.
    pub fn is_call(&self) -> bool {
        self.array || self.started
    }

    pub fn feed(&mut self, s: &str, out: &mut Emitter) -> Step {
        let bytes = s.as_bytes();
        let mut i = 0;
        while i < bytes.len() {
            let next = match &mut self.st {
                LState::Item(obj) => match obj.feed(&s[i..], out) {
                    Step::Done(k) => {
                        i += k;
                        self.started |= obj.is_call;
                        if !obj.is_call && self.array {
                            return Step::Error(i - 1);
                        }
                        if self.array {
                            LState::CommaOrClose
                        } else {
                            self.st = LState::Done;
                            return Step::Done(i);
                        }
                    }
                    other => {
                        self.started |= obj.started();
                        return match other {
                            Step::Error(k) => Step::Error(i + k),
                            _ => Step::NeedMore,
                        };
                    }
                },
                LState::Done => return Step::Done(i),
                st => {
                    let b = bytes[i];
                    i += 1;
                    if matches!(b, b' ' | b'\t' | b'\n' | b'\r') {
                        self.ws += 1;
                        if self.ws > WS_MAX {
                            return Step::Error(i - 1);
                        }
                        continue;
                    }
                    self.ws = 0;
                    match (&*st, b) {
                        (LState::Open, b'[') => LState::ItemOrClose,
                        (LState::ItemOrClose | LState::CommaOrClose, b']') => {
                            self.st = LState::Done;
                            return Step::Done(i);
                        }
                        (LState::ItemOrClose, b'{') | (LState::CommaOrClose, b',') => {
                            if b == b'{' {
                                i -= 1;
                            }
                            LState::Item(Box::new(CallObject::new(self.keys, self.require_args)))
                        }
                        _ => return Step::Error(i - 1),
                    }
                }
            };
            self.st = next;
        }
        Step::NeedMore
    }
}

#[cfg(test)]
mod calls_tests {
    use super::*;
    use crate::event::Extracted;

    #[test]
    fn array_of_calls() {
        let s = r#"[{"name": "a", "arguments": {}}, {"name": "b", "arguments": {"x": [1]}}] tail"#;
        let mut e = Emitter::new();
        let mut c = Calls::array(CALL_KEYS);
        let r = c.feed(s, &mut e);
        assert_eq!(r, Step::Done(s.len() - 5));
        let x = Extracted::from_events(e.take(), false, e.truncated);
        assert_eq!(x.calls.len(), 2);
        assert_eq!(x.calls[1].arguments, r#"{"x": [1]}"#);
        assert!(!x.malformed);
    }

    #[test]
    fn array_rejects_trailing_comma() {
        let mut e = Emitter::new();
        let mut c = Calls::array(CALL_KEYS);
        assert!(matches!(
            c.feed(r#"[{"name": "a"},]"#, &mut e),
            Step::Error(_)
        ));
    }
}
