//! Mistral: `[TOOL_CALLS]` followed by a JSON array of calls (before v11), or by
//! `name{...}` / `name[ARGS]{...}` (v11 and later), repeated.
//!
//! Newer tokenizers (v11 with call ids: Mistral Small 3.2, Magistral, Devstral) let the model
//! write the call's id: `[TOOL_CALLS]name[CALL_ID]id[ARGS]{...}` (mistral-common's
//! `_decode_tool_call_v11_with_call_id`; its chat templates render `name + '[CALL_ID]' + id +
//! '[ARGS]' + arguments`). That id is the call's id (no id is generated for it). An id is ASCII
//! letters and digits (mistral-common and vLLM accept 9 of them; any length from 1 to [`ID_MAX`]
//! is taken here); whitespace may surround it as it may the name, and `[ARGS]` after it may be
//! missing as after a name. An empty id, a longer one, or another character before `[ARGS]`/`{`
//! is malformed markup: the output falls back to content. An id an earlier call of the output
//! already has is not reused (ids must tell calls apart): that call gets a generated one.
//!
//! Hold-back is bounded (see `scan`): a name longer than [`NAME_MAX`] characters, or a run of more
//! than [`WS_MAX`] whitespace characters after `[TOOL_CALLS]`, around a name or an id, or after
//! `[ARGS]`, is malformed markup (the output falls back to content). The JSON form is a `Region`.

use std::collections::HashSet;

use super::{Machine, Region, RegionStep, Tools};
use crate::event::Emitter;
use crate::json::{Calls, JsonScanner, CALL_KEYS};
use crate::scan::{expect, ws_len, Expect, Found, Markers, NAME_MAX, WS_MAX};
use crate::Step;

pub(super) const BOT: Markers = Markers::new(&["[TOOL_CALLS]"]);
pub(super) const ARGS: Markers = Markers::new(&["[ARGS]"]);
/// What may follow a name: `[ARGS]`, or `[CALL_ID]` and the id.
pub(super) const AFTER_NAME: Markers = Markers::new(&["[ARGS]", "[CALL_ID]"]);
const CALL_ID: usize = 1;

/// The longest call id accepted, in characters.
pub const ID_MAX: usize = 64;

pub fn new(_: &Tools) -> Box<dyn Machine> {
    Box::new(Mistral {
        st: State::Text,
        ids: HashSet::new(),
        ws: 0,
    })
}

#[derive(Debug)]
enum State {
    Text,
    /// After `[TOOL_CALLS]`: which form follows? (`raw` is the markup read so far.)
    Form {
        raw: String,
    },
    /// Pre-v11: a JSON array (or a single object) of calls.
    Json(Region),
    /// v11+: the function name.
    Name {
        raw: String,
        name: String,
    },
    /// v11+: after `name[CALL_ID]`, the id the model gave the call.
    Id {
        raw: String,
        name: String,
        id: String,
    },
    /// v11+: the arguments object, streamed as written.
    Args(JsonScanner),
    Fallback,
}

pub struct Mistral {
    st: State,
    /// The ids the model gave earlier calls.
    ids: HashSet<String>,
    /// Form, Id: the whitespace read so far (capped by `WS_MAX`).
    ws: usize,
}

fn is_name_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.')
}

/// Where the arguments open after a name or an id (`after`: the text that follows it): `None`
/// to wait for more text, else the bytes up to `{` and whether `{` is there. Whitespace past
/// `WS_MAX` (before or after `[ARGS]`) is not: it ends right after the first character over the
/// cap.
fn args_open(after: &str) -> Option<(usize, bool)> {
    let w = ws_len(after);
    if w > WS_MAX {
        return Some((WS_MAX + 1, false));
    }
    match expect(after, &ARGS) {
        Expect::Marker { end, .. } => {
            let w = ws_len(&after[end..]);
            if w > WS_MAX {
                return Some((end + WS_MAX + 1, false));
            }
            if end + w == after.len() {
                return None; // hold `[ARGS]` and what follows until `{` is seen
            }
            Some((end + w, after[end + w..].starts_with('{')))
        }
        Expect::Wait { .. } => None,
        Expect::Other { at } => Some((at, after[at..].starts_with('{'))),
    }
}

impl Machine for Mistral {
    fn feed(&mut self, input: &str, out: &mut Emitter) -> usize {
        let mut i = 0;
        while i < input.len() {
            let rest = &input[i..];
            match &mut self.st {
                State::Text => match BOT.find(rest) {
                    Found::Marker { at, .. } => {
                        out.content(&rest[..at]);
                        i += at + BOT.list[0].len();
                        self.ws = 0;
                        self.st = State::Form {
                            raw: BOT.list[0].to_owned(),
                        };
                    }
                    Found::Partial { safe } => {
                        out.content(&rest[..safe]);
                        return i + safe;
                    }
                },
                State::Form { raw } => {
                    // (At most one character past the cap is read: then it is malformed.)
                    let ws = ws_len(rest).min(WS_MAX + 1 - self.ws);
                    raw.push_str(&rest[..ws]);
                    i += ws;
                    self.ws += ws;
                    let c = match rest[ws..].chars().next() {
                        _ if self.ws > WS_MAX => ' ',
                        Some(c) => c,
                        None => return input.len(),
                    };
                    let raw = std::mem::take(raw);
                    self.st = match c {
                        '[' => State::Json(Region::new(Calls::array(CALL_KEYS), &raw, false)),
                        '{' => {
                            State::Json(Region::new(Calls::object(CALL_KEYS, false), &raw, false))
                        }
                        c if is_name_char(c) => State::Name {
                            raw,
                            name: String::new(),
                        },
                        _ => {
                            out.malformed = true;
                            out.content(&raw);
                            State::Fallback
                        }
                    };
                }
                State::Json(region) => match region.feed(rest, out) {
                    RegionStep::More => return input.len(),
                    RegionStep::Done(n) => {
                        i += n;
                        self.st = State::Text;
                    }
                    RegionStep::Failed(n) => {
                        i += n;
                        self.st = State::Fallback;
                    }
                },
                State::Name { raw, name } => {
                    // (At most one character past the cap is read: then it is malformed.)
                    let n = rest.len() - rest.trim_start_matches(is_name_char).len();
                    let n = n.min(NAME_MAX + 1 - name.len());
                    name.push_str(&rest[..n]);
                    raw.push_str(&rest[..n]);
                    i += n;
                    let after = &rest[n..];
                    if name.len() > NAME_MAX {
                        out.malformed = true;
                        out.content(raw);
                        self.st = State::Fallback;
                        continue;
                    }
                    if after.is_empty() {
                        return input.len();
                    }
                    // Between the name and the arguments: whitespace and an optional `[ARGS]`,
                    // or `[CALL_ID]` and the id (whitespace past the cap: see `args_open`).
                    match expect(after, &AFTER_NAME) {
                        _ if ws_len(after) > WS_MAX => {}
                        Expect::Marker {
                            which: CALL_ID,
                            end,
                        } if !name.is_empty() => {
                            raw.push_str(&after[..end]);
                            i += end;
                            self.ws = 0;
                            self.st = State::Id {
                                raw: std::mem::take(raw),
                                name: std::mem::take(name),
                                id: String::new(),
                            };
                            continue;
                        }
                        Expect::Wait { .. } => return i,
                        _ => {}
                    }
                    let Some((skip, open)) = args_open(after) else {
                        return i;
                    };
                    if !open || name.is_empty() {
                        raw.push_str(&after[..skip]);
                        out.malformed = true;
                        out.content(raw);
                        i += skip;
                        self.st = State::Fallback;
                        continue;
                    }
                    out.tool_start(None, std::mem::take(name));
                    i += skip;
                    self.st = State::Args(JsonScanner::new());
                }
                State::Id { raw, name, id } => {
                    let mut rest = rest;
                    if id.is_empty() {
                        let w = ws_len(rest).min(WS_MAX + 1 - self.ws);
                        raw.push_str(&rest[..w]);
                        i += w;
                        self.ws += w;
                        rest = &rest[w..];
                        if self.ws > WS_MAX {
                            out.malformed = true;
                            out.content(raw);
                            self.st = State::Fallback;
                            continue;
                        }
                    }
                    // (At most one character past the cap is read: then it is malformed.)
                    let n = rest.len()
                        - rest
                            .trim_start_matches(|c: char| c.is_ascii_alphanumeric())
                            .len();
                    let n = n.min(ID_MAX + 1 - id.len());
                    id.push_str(&rest[..n]);
                    raw.push_str(&rest[..n]);
                    i += n;
                    let after = &rest[n..];
                    if id.len() <= ID_MAX && after.is_empty() {
                        return input.len();
                    }
                    // Between the id and the arguments: whitespace and an optional `[ARGS]`.
                    let (skip, open) = if id.len() > ID_MAX {
                        (0, false)
                    } else {
                        match args_open(after) {
                            Some(o) => o,
                            None => return i,
                        }
                    };
                    if !open || id.is_empty() {
                        raw.push_str(&after[..skip]);
                        out.malformed = true;
                        out.content(raw);
                        i += skip;
                        self.st = State::Fallback;
                        continue;
                    }
                    let id = std::mem::take(id);
                    let id = self.ids.insert(id.clone()).then_some(id);
                    out.tool_start(id, std::mem::take(name));
                    i += skip;
                    self.st = State::Args(JsonScanner::new());
                }
                State::Args(sc) => match sc.feed(rest.as_bytes()) {
                    Step::Done(n) => {
                        out.args(&rest[..n]);
                        out.tool_end();
                        i += n;
                        self.st = State::Text;
                    }
                    Step::NeedMore => {
                        out.args(rest);
                        return input.len();
                    }
                    Step::Error(n) => {
                        out.args(&rest[..n]);
                        out.malformed = true;
                        i += n;
                        self.st = State::Fallback;
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
            // Cut off before the arguments (in the name or the id): the call's markup so far.
            State::Form { raw } | State::Name { raw, .. } | State::Id { raw, .. } => {
                raw.push_str(rest);
                out.truncate(raw);
            }
            State::Json(region) => region.finish(rest, out),
            State::Args(_) => out.truncate(""),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::event::{Delta, Extracted};
    use crate::formats::{Format, Parser};

    fn extract(text: &str) -> Extracted {
        let f = Format::from_name("mistral").unwrap_or_else(|| panic!("mistral not registered"));
        Parser::extract(f, &Tools::default(), text)
    }

    /// Streams `text` cut at `cuts`: (content, [(id, name, args)], malformed).
    type Streamed = (String, Vec<(Option<String>, String, String)>, bool);

    fn stream(text: &str, cuts: &[usize]) -> Streamed {
        let f = Format::from_name("mistral").unwrap_or_else(|| panic!("mistral not registered"));
        let mut p = Parser::new(f, &Tools::default());
        let mut deltas: Vec<Delta> = Vec::new();
        let mut prev = 0;
        for &c in cuts.iter().chain(std::iter::once(&text.len())) {
            deltas.extend(p.feed_delta(&text[prev..c]));
            prev = c;
        }
        deltas.extend(p.finish_delta());
        let (mut content, mut calls) = (String::new(), Vec::new());
        for d in deltas {
            content.push_str(d.content.as_deref().unwrap_or(""));
            for c in d.calls {
                if let Some((id, name)) = c.start {
                    calls.push((id, name, String::new()));
                }
                if let Some(last) = calls.last_mut() {
                    last.2.push_str(c.args.as_deref().unwrap_or(""));
                }
            }
        }
        (content, calls, p.malformed())
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
            assert_eq!(s.0, bad, "{bad:?}");
            assert!(s.2, "{bad:?}");
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
                assert_eq!(x.content.unwrap_or_default(), whole.0, "{t:?}");
                let calls: Vec<_> = x
                    .calls
                    .into_iter()
                    .map(|c| (c.id, c.name, c.arguments))
                    .collect();
                assert_eq!(calls, whole.1, "{t:?}");
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
        let mut seed: u64 = 0x2545_F491_4F6C_DD1D;
        let mut rnd = |n: usize| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            (seed % n as u64) as usize
        };
        for _ in 0..3000 {
            let mut t = if rnd(2) == 0 {
                TWO.to_owned()
            } else {
                String::new()
            };
            for _ in 0..rnd(10) {
                let mut at = rnd(t.len() + 1);
                while !t.is_char_boundary(at) {
                    at -= 1;
                }
                t.insert_str(at, PIECES[rnd(PIECES.len())]);
            }
            let whole = stream(&t, &[]);
            assert_eq!(stream(&t, &boundaries(&t)), whole, "{t:?}");
            let b = boundaries(&t);
            let cut = b[rnd(b.len())];
            assert_eq!(stream(&t, &[cut]), whole, "{t:?} {cut}");
        }
    }
}
