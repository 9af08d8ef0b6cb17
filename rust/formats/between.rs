//! Between calls: the arms the families share. The text outside calls, read up to the next
//! marker ([`text_until`], every family). The markup after a call, read alike by `xml_params`,
//! `xml_elements`, functiongemma and `tagged_json` ([`after_call`]): after a call stand whitespace,
//! then one of the family's markers (the next call's start, the block's end, ...); whitespace
//! before other text is content, and so is that text. A run past
//! [`WS_MAX`](crate::scan::WS_MAX) is content too, as if other text stood where it passes the cap.
//! Where only markup may follow a call (functionary, `named_json`), other text is malformed
//! ([`markup_after_call`]). Every machine's `feed` is the same loop ([`drive`]) around its one
//! transition, `step`.

use crate::event::Emitter;
use crate::json::JsonScanner;
use crate::scan::{expect_capped, trailing_ws, Expect, Found, Markers};
use crate::Step;

/// What one transition did: `Go(j)`, it read up to `j` and the loop goes on from there (in the
/// state it left); `Hold(j)`, it can decide nothing more now: `input[j..]` is held back and given
/// again with the next delta.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Next {
    Go(usize),
    Hold(usize),
}

/// What a transition did, and the state it leads to (`None`: the state stays).
pub type Moved<S> = (Next, Option<S>);

/// A transition's `Next`, with the state it leads to (if any) put in place.
pub fn settle<S>(st: &mut S, (next, to): Moved<S>) -> Next {
    if let Some(s) = to {
        *st = s;
    }
    next
}

/// The loop every machine's `feed` runs: `step(i)` is one transition from position `i`, called
/// until the input is used up or a transition holds; the result is how much of `input` was
/// consumed.
pub fn drive(input: &str, mut step: impl FnMut(usize) -> Next) -> usize {
    let mut i = 0;
    while i < input.len() {
        match step(i) {
            Next::Go(j) => i = j,
            Next::Hold(j) => return j,
        }
    }
    input.len()
}

/// The text arm every machine opens `feed` with: sends the text of `input[*i..]` before the next
/// of `markers` as content and moves `i` past it. `Some(which)`: marker `which` followed, and `i`
/// is past it too; `None`: no marker, what is left from `i` is held back (it may still become
/// one).
pub fn text_until(
    markers: &Markers,
    input: &str,
    i: &mut usize,
    out: &mut Emitter,
) -> Option<usize> {
    let (at, which) = match markers.find(&input[*i..]) {
        Found::Marker { at, which } => (at, Some(which)),
        Found::Partial { safe } => (safe, None),
    };
    out.content(&input[*i..*i + at]);
    *i += at + which.map_or(0, |w| markers.list[w].len());
    which
}

/// How a call's JSON arguments went in one feed (read by [`stream_args`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Args {
    /// The object ended after `n` bytes: the call ended.
    Ended(usize),
    /// All of the input was arguments; the object goes on.
    Open,
    /// Not JSON after `n` bytes: the output is malformed.
    Broken(usize),
}

/// Streams a call's arguments object from `input` through `sc` (`tagged_json`, `named_json`): what
/// the scanner takes goes out as arguments, as it comes; its end ends the call, an error marks
/// the output malformed.
pub fn stream_args(sc: &mut JsonScanner, input: &str, out: &mut Emitter) -> Args {
    match sc.feed(input.as_bytes()) {
        Step::Done(n) => {
            out.args(&input[..n]);
            out.tool_end();
            Args::Ended(n)
        }
        Step::NeedMore => {
            out.args(input);
            Args::Open
        }
        Step::Error(n) => {
            out.args(&input[..n]);
            out.malformed = true;
            Args::Broken(n)
        }
    }
}

/// What the text after a call holds (read by [`after_call`]; the position read from has moved
/// past what was read).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum After {
    /// Marker `which` follows the whitespace, and the position is past it (the whitespace and the
    /// marker are now at the end of the held text: the markup of the next call, content if its
    /// name fails).
    Marker(usize),
    /// Only whitespace (or whitespace and a marker's prefix): the whitespace was read into the
    /// held text; wait for more.
    Wait,
    /// Other text at the position: the held whitespace and the input before it were sent as
    /// content; plain text follows.
    Text,
}

/// Reads the text after a call (`input[*i..]`), `ws` holding the whitespace read since the call
/// ended (a run past [`WS_MAX`](crate::scan::WS_MAX) reads as other text where it passes the cap,
/// as after `tagged_json`'s bodies: it is content, and so is what follows).
pub fn after_call(
    ws: &mut String,
    input: &str,
    i: &mut usize,
    markers: &Markers,
    out: &mut Emitter,
) -> After {
    // (`ws` holds whitespace only, ASCII: bytes are characters)
    let held = ws.len();
    read_after(ws, input, i, markers, held, out)
}

/// [`after_call`] where only markup may follow the call (functionary, `named_json`): other text, or
/// whitespace past the cap, is malformed markup. `After::Text`: the held text and the input before
/// the position were sent as content and the output is malformed. The cap counts the whitespace
/// at the end of `ws` (it may hold a marker read before, as `named_json`'s fence).
pub fn markup_after_call(
    ws: &mut String,
    input: &str,
    i: &mut usize,
    markers: &Markers,
    out: &mut Emitter,
) -> After {
    let held = trailing_ws(ws);
    let after = read_after(ws, input, i, markers, held, out);
    if after == After::Text {
        out.malformed = true;
    }
    after
}

fn read_after(
    ws: &mut String,
    input: &str,
    i: &mut usize,
    markers: &Markers,
    held: usize,
    out: &mut Emitter,
) -> After {
    let rest = &input[*i..];
    let (n, after) = match expect_capped(rest, markers, held) {
        Expect::Marker { which, end } => (end, After::Marker(which)),
        Expect::Wait { ws: n } => (n, After::Wait),
        Expect::Other { at } => (at, After::Text),
    };
    ws.push_str(&rest[..n]);
    *i += n;
    if after == After::Text {
        out.content(ws);
        ws.clear();
    }
    after
}

/// The end of the output after a call, `rest` being what was held back: whitespace and a cut-off
/// block end are markup; the cut-off start of the next call (one of `next`, and of none of the
/// other `markers`) is a truncated call.
pub fn finish_after_call(rest: &str, markers: &Markers, next: &[&str], out: &mut Emitter) {
    let call = next.iter().any(|m| m.starts_with(rest));
    let other = markers
        .list
        .iter()
        .any(|m| !next.contains(m) && m.starts_with(rest));
    if !rest.is_empty() && call && !other {
        out.truncate(rest);
    }
}
