//! Llama 3.x JSON tool calls: an optional `<|python_tag|>`, then `{"name": N, "parameters": {...}}`
//! objects separated by `;`. A call may also stand inside plain text: a `{` in text starts a
//! tentative object that becomes a call only if it has a name and an arguments member; otherwise
//! it was content all along.

use super::between::{text_until, Next};
use super::region::{Region, RegionStep};
use super::{Machine, Tools};
use crate::event::Emitter;
use crate::json::{Calls, CALL_KEYS};
use crate::scan::{ws_len, Markers};

/// A format's markers (from its spec entry, by `formats::config`, at run time).
#[derive(Debug)]
pub struct Style {
    /// The call start (`<|python_tag|>`), then the start of an object in text (`{`).
    pub text: Markers,
    /// Between calls.
    pub separator: &'static str,
}

pub fn new(style: &'static Style, _: &Tools) -> Box<dyn Machine> {
    Box::new(Llama3Json {
        st: State::Text,
        style,
    })
}

#[derive(Debug)]
enum State {
    Text,
    /// A call object; `tentative` objects found in text fall back to content quietly.
    Call(Region),
    /// After a call: whitespace, then `;` and another call, or text.
    After,
    /// After `;`: whitespace, then the next call.
    Next,
    Fallback,
}

pub struct Llama3Json {
    st: State,
    style: &'static Style,
}

impl Machine for Llama3Json {
    fn step(&mut self, input: &str, mut i: usize, out: &mut Emitter) -> Next {
        let (text, separator) = (&self.style.text, self.style.separator);
        let rest = &input[i..];
        match &mut self.st {
            State::Text => match text_until(text, input, &mut i, out) {
                Some(0) => {
                    let (tag, bare) = (text.list[0], false);
                    self.st = State::Call(Region::new(Calls::object(CALL_KEYS, bare), tag, bare));
                }
                Some(which) => {
                    // The call object's `{`: read again, by the region.
                    i -= text.list[which].len();
                    self.st = State::Call(Region::new(Calls::object(CALL_KEYS, true), "", true));
                }
                None => return Next::Hold(i),
            },
            State::Call(region) => match region.feed(rest, out) {
                RegionStep::More => return Next::Hold(input.len()),
                RegionStep::Done(n) => {
                    i += n;
                    self.st = if region.is_call() {
                        State::After
                    } else {
                        State::Text
                    };
                }
                RegionStep::Failed(n) => {
                    i += n;
                    self.st = if out.malformed {
                        State::Fallback
                    } else {
                        State::Text
                    };
                }
            },
            State::After => {
                // Whitespace goes to content, where the emitter drops it unless text follows.
                let ws = ws_len(rest);
                out.content(&rest[..ws]);
                i += ws;
                if rest[ws..].starts_with(separator) {
                    i += separator.len();
                    self.st = State::Next;
                } else if ws < rest.len() {
                    self.st = State::Text;
                }
            }
            State::Next => {
                let ws = ws_len(rest);
                i += ws;
                if ws == rest.len() {
                    return Next::Hold(input.len());
                }
                self.st = State::Call(Region::new(Calls::object(CALL_KEYS, false), "", false));
            }
            // The driver makes the rest content.
            State::Fallback => return Next::Hold(i),
        }
        Next::Go(i)
    }

    fn finish(&mut self, rest: &str, out: &mut Emitter) {
        match &mut self.st {
            State::Text | State::Fallback | State::After => out.content(rest),
            State::Call(region) => region.finish(rest, out),
            State::Next => {}
        }
    }
}
