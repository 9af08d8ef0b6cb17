//! The text of a call: attribute values unescaped, the tool a written name stands for, and value
//! text sent as a string or kept for its type.

use super::{params, Emitter, Kind, Style, Tools};

/// An attribute value with its escapes undone (`&quot;` before `&amp;`, as the peers do).
pub(super) fn unescape(s: &str) -> String {
    s.replace("&quot;", "\"").replace("&amp;", "&")
}

/// The tool name for a function name as written (see [`Style::doubled_names`]).
pub(super) fn tool_name(style: &Style, tools: &Tools, name: &str) -> String {
    let known = |n: &str| tools.functions.contains_key(n);
    if style.doubled_names && !known(name) {
        if let Some((head, tail)) = name.split_once('.') {
            if head == tail && known(head) {
                return head.to_owned();
            }
        }
    }
    name.to_owned()
}

/// Sends value text: escaped at once for a string, kept for a typed value. A JSON-or-string
/// value being sniffed becomes a string (its text so far sent) at its first non-whitespace
/// character if that cannot start JSON text (`json.loads` would fail: the peers keep the text).
pub(super) fn value_text(
    kind: &mut Kind,
    sniff: &mut bool,
    buf: &mut String,
    s: &str,
    out: &mut Emitter,
) {
    if s.is_empty() {
        return;
    }
    if *kind == Kind::Str {
        out.args_with(|fragment| params::push_json_str_body(fragment, s));
        return;
    }
    buf.push_str(s);
    if !*sniff {
        return;
    }
    // What came before is whitespace (else the sniff is over).
    if let Some(c) = s.trim_start_matches(crate::scan::is_ws).chars().next() {
        *sniff = false;
        if !JSON_STARTS.contains(c) {
            *kind = Kind::Str;
            out.args_with(|fragment| {
                fragment.push('"');
                params::push_json_str_body(fragment, buf);
            });
            buf.clear();
        }
    }
}

/// Whether `raw` is a spelling of null other than `null` that [`params::convert`] reads as null
/// (`None`, `NULL`, ...).
pub(super) fn loose_null(raw: &str) -> bool {
    let t = raw.trim_matches(crate::scan::is_ws);
    t != "null" && (t.eq_ignore_ascii_case("null") || t.eq_ignore_ascii_case("none"))
}

/// The characters JSON text can start with (`json.loads` also reads `NaN` and `Infinity`).
pub(super) const JSON_STARTS: &str = "{[\"-0123456789tfnNI";

/// The JSON text of `raw` read as a Python literal (`{'units': 'metric', 'alerts': True}`, as
/// the Seed-OSS and `MiniCPM5` chat templates write a list or object with Jinja's `{{ value }}`),
/// if it is one whose value is an object or an array that `kind` admits (an object or array
/// type, or a type we do not know); else `None`. Written like
/// `json.dumps(ast.literal_eval(raw), ensure_ascii=False)` ([`crate::convert::PyLiteral`]).
pub(super) fn py_container(kind: Kind, raw: &str) -> Option<String> {
    let (object, array) = match kind {
        Kind::Json => (true, true),
        Kind::Union(m) => {
            let other = m & params::T_OTHER != 0;
            (
                other || m & params::T_OBJECT != 0,
                other || m & params::T_ARRAY != 0,
            )
        }
        _ => return None,
    };
    let t = raw.trim_matches(crate::scan::is_ws);
    if !t.starts_with(['{', '[', '(']) {
        return None;
    }
    let mut lit = crate::convert::PyLiteral::new();
    let mut out = String::new();
    match lit.feed(t, &mut out) {
        crate::Step::NeedMore => {}
        crate::Step::Done(n) if n == t.len() => {}
        _ => return None,
    }
    if !matches!(lit.finish(&mut out), crate::Step::Done(_)) || lit.no_json() {
        return None;
    }
    let fits = (object && out.starts_with('{')) || (array && out.starts_with('['));
    fits.then_some(out)
}
