//! Inside a value: its text streamed or kept for its type, a CDATA section unwrapped, and the
//! closing tag that ends it, once what follows the tag confirms it.

use super::text::{loose_null, py_container, value_text};
use super::{go, hold, stay, Call, Outcome, State, Typing, ValueEnd, WS_CAP};
use crate::event::Emitter;
use crate::params::{self, Kind};
use crate::scan::{expect, Expect, Found, Markers};

/// Where a value stands with a CDATA section (styles with [`Style::cdata`](super::Style::cdata)).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Cdata {
    /// At the value's start: `<![CDATA[` may come.
    Maybe,
    /// Inside the section: everything up to `]]>` is the value.
    In,
    /// No section (or it ended): the value goes on as usual.
    No,
}

const CDATA_START: &str = "<![CDATA[";
static CDATA_END: Markers = Markers::new(&["]]>"]);

/// Where a value stands with respect to its optional leading newline.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Lead {
    /// Not dealt with yet.
    Start,
    /// The value starts with a candidate end marker, kept whole: if that marker turns out to be
    /// value text, a newline it starts with is the leading newline and is stripped.
    Kept,
    /// Past the start of the value (or the style keeps values verbatim).
    Body,
}

/// Whether a candidate closing tag closes the value, from the text after it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Close {
    Yes,
    /// Its text is part of the value.
    No,
    /// Not known yet: hold the tag and what follows it.
    Wait,
}

/// Whether a closing tag followed by `after` closes the value: `after` must be whitespace (at
/// most [`WS_CAP`] bytes) and then one of `follow`, or (at the end of the output) whitespace and
/// perhaps the cut-off start of one of `follow`.
fn closes(after: &str, follow: &Markers, eof: bool) -> Close {
    match expect(after, follow) {
        Expect::Marker { which, end } if end - follow.list[which].len() <= WS_CAP => Close::Yes,
        Expect::Wait { ws } if ws <= WS_CAP => {
            if eof {
                Close::Yes
            } else {
                Close::Wait
            }
        }
        _ => Close::No,
    }
}

/// A value being read (the state `Value`). `lead`: where it stands with its optional leading
/// newline. `buf`: the raw text of a typed value (string values are sent as they come).
/// `sniff`: the value's kind is JSON-or-string and its first non-whitespace character has not
/// come yet (one that cannot start JSON text makes it a string, streamed from then on).
#[derive(Debug)]
pub(super) struct Value {
    kind: Kind,
    lead: Lead,
    buf: String,
    sniff: bool,
    cdata: Cdata,
}

impl Value {
    /// Sends value text `s` (see [`value_text`]).
    fn text(&mut self, s: &str, out: &mut Emitter) {
        value_text(&mut self.kind, &mut self.sniff, &mut self.buf, s, out);
    }

    /// Sends the value's end: the closing quote of a string, or the typed value as JSON text.
    fn end(&self, typing: Typing, python: bool, out: &mut Emitter) {
        if self.kind == Kind::Str {
            out.args("\"");
            return;
        }
        let mut s = String::new();
        if typing != Typing::Schema && loose_null(&self.buf) {
            // `json.loads` reads only `null` as null: `None`, `NULL` are text.
            params::push_json_str(&mut s, &self.buf);
        } else {
            params::convert(self.kind, &self.buf, &mut s);
            // A value that is not JSON may be a Python literal (`{'a': True}`): typed by the
            // schema, an object or array is read as one.
            if python && s.starts_with('"') {
                if let Some(j) = py_container(self.kind, &self.buf) {
                    s = j;
                }
            }
        }
        out.args(&s);
    }
}

impl Call {
    /// Writes parameter `name`'s key (and the opening quote of a string) and starts its value.
    pub(super) fn open_value(&mut self, name: &str, kind: Kind, out: &mut Emitter) -> State {
        let mut s = String::with_capacity(name.len() + 8);
        if self.params > 0 {
            s.push_str(", ");
        }
        params::push_json_str(&mut s, name);
        s.push_str(": ");
        if kind == Kind::Str {
            s.push('"');
        }
        out.args(&s);
        self.params += 1;
        State::Value(Value {
            kind,
            lead: if self.style.strip {
                Lead::Start
            } else {
                Lead::Body
            },
            buf: String::new(),
            sniff: kind == Kind::Json && self.style.typing != Typing::Schema,
            cdata: if self.style.cdata {
                Cdata::Maybe
            } else {
                Cdata::No
            },
        })
    }

    /// Inside a value: a CDATA section, the leading newline, then the text up to an end marker.
    pub(super) fn on_value(&mut self, v: &mut Value, rest: &str, out: &mut Emitter) -> Outcome {
        let ends = &self.style.value;
        if v.cdata == Cdata::Maybe && v.lead != Lead::Start {
            if rest.starts_with(CDATA_START) {
                v.cdata = Cdata::In;
                return stay(CDATA_START.len());
            }
            if CDATA_START.starts_with(rest) {
                return hold(0); // a possible start: wait for more
            }
            v.cdata = Cdata::No;
        }
        if v.cdata == Cdata::In {
            // Everything up to `]]>` is the value, as written.
            return match CDATA_END.find(rest) {
                Found::Marker { at, .. } => {
                    v.text(&rest[..at], out);
                    v.cdata = Cdata::No;
                    v.lead = Lead::Body;
                    stay(at + 3)
                }
                Found::Partial { safe } => {
                    v.text(&rest[..safe], out);
                    hold(safe)
                }
            };
        }
        if v.lead == Lead::Start {
            // One leading newline is stripped, unless it begins an end marker.
            if ends.starts(rest).is_some() {
                v.lead = Lead::Kept;
                return stay(0);
            }
            if ends.could_start(rest) {
                return hold(0);
            }
            v.lead = Lead::Body;
            return stay(usize::from(rest.starts_with('\n')));
        }
        // The text before the end marker (or before a possible one) is sent: a string's escaped
        // in the same pass that looks for the marker.
        let found = if v.kind == Kind::Str {
            out.args_with(|f| params::escape_to_marker(rest, ends, f))
        } else {
            let found = ends.find(rest);
            let (Found::Marker { at: end, .. } | Found::Partial { safe: end }) = found;
            v.text(&rest[..end], out);
            found
        };
        match found {
            Found::Marker { at, which } => self.value_end(v, rest, at, which, out),
            Found::Partial { safe } => hold(safe),
        }
    }

    /// End marker `which` of the value stands at `rest[at..]`: it closes the value (and what
    /// it ends: the parameter, or the function), or is value text, or must wait for what follows.
    fn value_end(
        &mut self,
        v: &mut Value,
        rest: &str,
        at: usize,
        which: usize,
        out: &mut Emitter,
    ) -> Outcome {
        let style = self.style;
        if at > 0 {
            v.lead = Lead::Body;
        }
        let m = style.value.list[which];
        let after = &rest[at + m.len()..];
        let role = style.value_role(which);
        let close = match role {
            ValueEnd::Param => closes(after, &style.body, self.eof),
            ValueEnd::Function => closes(after, &style.after_function, self.eof),
            ValueEnd::NextParam => Close::Yes,
        };
        match close {
            Close::Wait => return hold(at),
            Close::No => {
                // The tag is value text (less the leading newline, if it is one).
                let text = match v.lead {
                    Lead::Kept => m.strip_prefix('\n').unwrap_or(m),
                    _ => m,
                };
                v.text(text, out);
                v.lead = Lead::Body;
                return stay(at + m.len());
            }
            Close::Yes => v.end(style.typing, style.python_values, out),
        }
        let end = at + m.len();
        match role {
            ValueEnd::Param => go(end, State::Body),
            ValueEnd::NextParam => go(
                end,
                State::Param {
                    name: String::new(),
                },
            ),
            ValueEnd::Function => {
                Self::close(out);
                go(end, self.after())
            }
        }
    }
}
