//! Namespaced XML-element tool calls, configured by a [`Style`] that `formats::config` builds from
//! the format's spec entry. MiniMax-M3 is the model: every structural tag carries the namespace
//! `]<]minimax[>[` (`NS` below):
//!
//! ```text
//! NS<tool_call>
//! NS<invoke name="create_order">
//! NS<user_id>42NS</user_id>
//! NS<items>NS<item>NS<sku>b1NS</sku>NS</item>NS</items>
//! NS</invoke>
//! NS</tool_call>
//! ```
//!
//! Each `<invoke>` is one call. A parameter is an element named after it; an element holding
//! elements is an object, or an array when its schema says so (the chat template writes list
//! items as `<item>`; an array's item names are not looked at). Values are typed by the tool's
//! JSON Schema: the function's schema tree ([`SchemaNode`]s, built once per parser by the facade)
//! or, without one, the parameter types of [`Tools`] (top-level parameters typed, nested ones
//! strings and objects). Arguments are written like `json.dumps(obj, ensure_ascii=False)`, keys in
//! the order they first appear.
//!
//! Conversion (vLLM's `minimax_m3` parser's rules):
//! - an element without elements is its text, kept verbatim: a string where the schema admits a
//!   string or gives no type, else converted by [`crate::params`] (trimmed, typed); an empty (or
//!   whitespace only) element whose schema is an array or an object and admits no string is `[]`
//!   or `{}` (the template writes an empty list or dict so);
//! - an element with elements: an array schema makes a list of its elements' values, each typed
//!   by `items`; otherwise an object (typed by the schema's `properties`, then
//!   `additionalProperties`, when the schema is an object; untyped otherwise) in which a name
//!   given twice or more collects its values into a list at its first place;
//! - text around the elements of an element, when it is not whitespace only, is kept under the
//!   field `$text` (`$` is prepended while an element has that name); in an array it is one more
//!   item;
//! - an array or object schema is the first `array` / `object` alternative of the schema: its
//!   `type`, else `items` (array) or `properties` / `additionalProperties` (object) when it has no
//!   `type`, else its `anyOf` / `oneOf` branches in order.
//!
//! Streaming: the call starts, with `{`, when its name is complete. A parameter whose schema is a
//! single string type streams as it arrives (only a possible marker prefix is held back); the
//! others are sent when they close (their elements are kept in the state meanwhile, not held
//! back); `}` is sent when `NS</invoke>` closes the call. vLLM sends the whole arguments at that
//! point instead, which lets it collect a parameter written twice into a list; here a parameter
//! written twice at the top level is written twice (a JSON parser keeps the last value), and an
//! element inside a string parameter that streams is malformed (vLLM makes the parameter an
//! object). Below the top level, names given twice collect into lists as in vLLM.
//!
//! Decisions on the loose points:
//! - only the block start `NS<tool_call>` starts calls (an `NS<invoke>` outside a block is
//!   content, as in vLLM); a block start not followed by `NS<invoke name=` (after whitespace) is
//!   content; the block may hold several invokes (whitespace between them is markup) and its end
//!   `NS</tool_call>` may be missing; text after the block is content (vLLM drops it);
//! - the function name may be written `"N"`, `'N'` or bare (`name=N>`); a blank name, or one
//!   holding `<`, `>`, a newline (or, bare, a quote or whitespace), is not a call: its markup is
//!   content; a name longer than [`NAME_MAX`] characters too;
//! - inside the call, text between parameters that is not whitespace, a closing tag that does not
//!   close the open element, `NS` not followed by `<`, a blank element name, an element name (or
//!   closing tag) longer than [`NAME_MAX`] characters and an element deeper than [`DEPTH_MAX`]
//!   are malformed: the rest is content (vLLM keeps the parameters before such an element);
//! - the end of the output inside a call is truncation: the call is not complete (vLLM converts
//!   what it has).
//!
//! The conversion recurses once per element level, at most [`DEPTH_MAX`] deep.

use std::collections::HashMap;

use super::between::{after_call, finish_after_call, text_until, After, Next};
use super::{Machine, SchemaNode, Tools};
use crate::event::Emitter;
use crate::json::is_blank;
use crate::params::{self, Kind};
use crate::scan::{expect, expect_capped, trailing_ws, Expect, Found, Markers, NAME_MAX};

/// The deepest element (a parameter is at depth 1), as vLLM's `MAX_ELEMENT_DEPTH`; deeper is
/// malformed.
pub const DEPTH_MAX: usize = 128;

/// The field that keeps the text of an element that also holds elements.
const TEXT_FIELD: &str = "$text";

/// A schema node's container kinds.
pub const NONE: u8 = 0;
pub const OBJECT: u8 = 1;
pub const ARRAY: u8 = 2;

/// A format's markers (built at run time from the spec entry by `formats::config`).
#[derive(Debug)]
pub struct Style {
    /// `[call_start]`.
    pub text: Markers,
    /// `[invoke_start]`.
    pub invoke: Markers,
    /// `[invoke_start, call_end]`.
    pub after: Markers,
    /// `[namespace <]`.
    pub tag: Markers,
    /// `[namespace <, namespace]`.
    pub inner: Markers,
    /// `namespace <`.
    pub open: &'static str,
    pub invoke_end: &'static str,
}

/// One element of the open call.
#[derive(Debug, Default)]
struct Elem {
    name: String,
    text: String,
    children: Vec<usize>,
}

/// A field of an object being written: an element, or the text around an element's elements.
#[derive(Clone, Copy)]
enum Field<'a> {
    Elem(usize),
    Text(&'a str),
}

/// What ends a function name (`"` quoted, `'` quoted, or bare).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Quote {
    Double,
    Single,
    Bare,
}

impl Quote {
    fn stops(self, b: u8) -> bool {
        match self {
            Quote::Double => matches!(b, b'<' | b'>' | b'\n' | b'"'),
            Quote::Single => matches!(b, b'<' | b'>' | b'\n' | b'\''),
            Quote::Bare => matches!(b, b'<' | b'>' | b'\n' | b'"' | b'\'' | b' ' | b'\t' | b'\r'),
        }
    }

    fn byte(self) -> Option<u8> {
        match self {
            Quote::Double => Some(b'"'),
            Quote::Single => Some(b'\''),
            Quote::Bare => None,
        }
    }
}

#[derive(Debug)]
enum State {
    /// Plain text, looking for the block start.
    Text,
    /// After the block start (`raw`: the markup so far), expecting an invoke.
    Block { raw: String },
    /// Reading a function name.
    Name(FuncName),
    /// Inside a call, between its parameters.
    Body,
    /// After `NS<`: an element's name or a closing tag, up to `>`.
    Tag { tag: String, chars: usize },
    /// Inside an element: its text, up to the next `NS`.
    Inner,
    /// After a call (`ws`: the whitespace read).
    After { ws: String },
    /// Malformed markup: the driver makes the rest content.
    Fallback,
}

/// A function name being read (state `Name`).
#[derive(Debug)]
struct FuncName {
    /// The markup before it: content if it is not a call.
    raw: String,
    /// What ends it: None until seen.
    quote: Option<Quote>,
    name: String,
    /// Its characters so far (capped by [`NAME_MAX`]).
    chars: usize,
}

impl FuncName {
    /// A function name begins, after the markup `raw`.
    fn begin(raw: String) -> State {
        State::Name(FuncName {
            raw,
            quote: None,
            name: String::new(),
            chars: 0,
        })
    }

    /// Not a call: the markup read was content.
    fn not_a_call(mut self, out: &mut Emitter) -> State {
        self.raw.push_str(&self.name);
        out.content(&self.raw);
        State::Text
    }
}

pub struct XmlElements {
    style: &'static Style,
    tools: Tools,
    st: State,
    func: String,
    elems: Vec<Elem>,
    stack: Vec<usize>,
    /// The open call's schema nodes when its function has no schema tree (from its parameter
    /// types); empty when it has one (`tools.schemas` then).
    flat: Vec<SchemaNode>,
    /// Parameters written in the open call.
    params: usize,
    /// The open parameter is a string sent as it arrives.
    streaming: bool,
}

pub fn new(style: &'static Style, tools: &Tools) -> Box<dyn Machine> {
    Box::new(XmlElements {
        style,
        tools: tools.clone(),
        st: State::Text,
        func: String::new(),
        elems: Vec::new(),
        stack: Vec::new(),
        flat: Vec::new(),
        params: 0,
        streaming: false,
    })
}

fn blank(s: &str) -> bool {
    s.bytes().all(|b| matches!(b, b' ' | b'\t' | b'\n' | b'\r'))
}

/// Malformed markup at `i`: the rest is content.
fn malformed(out: &mut Emitter, i: usize) -> (Next, State) {
    out.malformed = true;
    (Next::Hold(i), State::Fallback)
}

/// A tag's start (`NS<`) was read up to `j`.
fn tag_at(j: usize) -> (Next, State) {
    let tag = String::new();
    (Next::Go(j), State::Tag { tag, chars: 0 })
}

impl Machine for XmlElements {
    fn step(&mut self, input: &str, mut i: usize, out: &mut Emitter) -> Next {
        let style = self.style;
        let (next, st) = match std::mem::replace(&mut self.st, State::Fallback) {
            State::Text => match text_until(&style.text, input, &mut i, out) {
                Some(which) => {
                    let raw = style.text.list[which].to_owned();
                    (Next::Go(i), State::Block { raw })
                }
                None => (Next::Hold(i), State::Text),
            },
            State::Block { raw } => on_block(style, raw, input, i, out),
            State::Name(f) => self.on_name(f, input, i, out),
            State::Body => match expect(&input[i..], &style.tag) {
                Expect::Marker { end, .. } => tag_at(i + end),
                Expect::Wait { ws } => (Next::Hold(i + ws), State::Body),
                // Text between the parameters: malformed.
                Expect::Other { at } => malformed(out, i + at),
            },
            State::Tag { tag, chars } => self.on_tag(tag, chars, input, i, out),
            State::Inner => self.on_inner(input, i, out),
            State::After { mut ws } => {
                match after_call(&mut ws, input, &mut i, &style.after, out) {
                    // The next call: the whitespace before it is content if it is not one.
                    After::Marker(0) => (Next::Go(i), FuncName::begin(ws)),
                    After::Wait => (Next::Hold(i), State::After { ws }),
                    // The block's end; or none: the whitespace started the text.
                    After::Marker(_) | After::Text => (Next::Go(i), State::Text),
                }
            }
            State::Fallback => (Next::Hold(i), State::Fallback),
        };
        self.st = st;
        next
    }

    fn finish(&mut self, rest: &str, out: &mut Emitter) {
        match std::mem::replace(&mut self.st, State::Fallback) {
            State::Text | State::Fallback => out.content(rest),
            State::Block { mut raw } => {
                // Cut off before the call started: its markup so far.
                raw.push_str(rest);
                out.truncate(&raw);
            }
            State::Name(FuncName { mut raw, name, .. }) => {
                raw.push_str(&name);
                raw.push_str(rest);
                out.truncate(&raw);
            }
            // Cut off inside the call (its end never came): the call is unfinished.
            State::Body | State::Tag { .. } | State::Inner => out.truncate(""),
            State::After { .. } => {
                let after = &self.style.after;
                finish_after_call(rest, after, &after.list[..1], out);
            }
        }
    }
}

/// State `Block`: after the block start, whitespace and an invoke's start begin a call; anything
/// else makes the block start content.
fn on_block(
    style: &Style,
    mut raw: String,
    input: &str,
    i: usize,
    out: &mut Emitter,
) -> (Next, State) {
    match expect_capped(&input[i..], &style.invoke, trailing_ws(&raw)) {
        Expect::Marker { end, .. } => {
            raw.push_str(&input[i..i + end]);
            (Next::Go(i + end), FuncName::begin(raw))
        }
        Expect::Wait { ws } => {
            raw.push_str(&input[i..i + ws]);
            (Next::Hold(i + ws), State::Block { raw })
        }
        Expect::Other { at } => {
            // Not a call (other text, or whitespace past the cap): the block start was content.
            raw.push_str(&input[i..i + at]);
            out.content(&raw);
            (Next::Go(i + at), State::Text)
        }
    }
}

impl XmlElements {
    /// State `Name`: its quote, then the function name up to its end; a complete one starts the
    /// call.
    fn on_name(
        &mut self,
        mut f: FuncName,
        input: &str,
        mut i: usize,
        out: &mut Emitter,
    ) -> (Next, State) {
        let bytes = input.as_bytes();
        let Some(quote) = f.quote else {
            let q = match bytes[i] {
                b'"' => Quote::Double,
                b'\'' => Quote::Single,
                _ => Quote::Bare,
            };
            if q != Quote::Bare {
                f.raw.push_str(&input[i..=i]);
                i += 1;
            }
            f.quote = Some(q);
            return (Next::Go(i), State::Name(f));
        };
        let n = input.len();
        let stop = bytes[i..].iter().position(|&b| quote.stops(b));
        let t = stop.map_or(n, |p| i + p);
        f.name.push_str(&input[i..t]);
        f.chars += input[i..t].chars().count();
        if f.chars > NAME_MAX {
            // A name past the cap: not a call.
            return (Next::Go(t), f.not_a_call(out));
        }
        if stop.is_none() {
            return (Next::Hold(n), State::Name(f));
        }
        let end = match quote.byte() {
            Some(q) if bytes[t] == q => {
                if t + 1 == n {
                    // The quote at the end of the input: `>` may follow.
                    return (Next::Hold(t), State::Name(f));
                }
                if bytes[t + 1] == b'>' {
                    2
                } else {
                    0
                }
            }
            Some(_) => 0,
            None => usize::from(bytes[t] == b'>'),
        };
        if end == 0 || is_blank(&f.name) {
            // Not a call: the markup was content; text goes on at the stop character.
            return (Next::Go(t), f.not_a_call(out));
        }
        self.call_start(f.name, out);
        (Next::Go(t + end), State::Body)
    }

    /// The call to `name` starts.
    fn call_start(&mut self, name: String, out: &mut Emitter) {
        self.elems.clear();
        self.stack.clear();
        self.flat = if self.tools.schemas.contains_key(&name) {
            Vec::new()
        } else {
            flat_nodes(&self.tools, &name)
        };
        self.params = 0;
        out.tool_start(None, name.clone());
        out.args("{");
        self.func = name;
    }

    /// State `Tag`: the tag up to `>`; a complete one opens or closes an element.
    fn on_tag(
        &mut self,
        mut tag: String,
        mut chars: usize,
        input: &str,
        i: usize,
        out: &mut Emitter,
    ) -> (Next, State) {
        let n = input.len();
        let p = memchr::memchr(b'>', &input.as_bytes()[i..]);
        let t = p.map_or(n, |p| i + p);
        tag.push_str(&input[i..t]);
        chars += input[i..t].chars().count();
        if chars > NAME_MAX + 1 {
            return malformed(out, t);
        }
        if p.is_none() {
            return (Next::Hold(n), State::Tag { tag, chars });
        }
        match self.tag(&tag, out) {
            Some(st) => (Next::Go(t + 1), st),
            None => malformed(out, t + 1),
        }
    }

    /// State `Inner`: an element's text up to the next `NS` (a streaming string's goes out as it
    /// comes, another's is kept).
    fn on_inner(&mut self, input: &str, i: usize, out: &mut Emitter) -> (Next, State) {
        let inner = &self.style.inner;
        let found = inner.find(&input[i..]);
        let at = match found {
            Found::Marker { at, .. } => at,
            Found::Partial { safe } => safe,
        };
        let text = &input[i..i + at];
        if self.streaming {
            out.args_with(|o| params::push_json_str_body(o, text));
        } else if let Some(e) = self.stack.last().and_then(|&e| self.elems.get_mut(e)) {
            e.text.push_str(text);
        }
        match found {
            Found::Partial { .. } => (Next::Hold(i + at), State::Inner),
            // The namespace not followed by a tag.
            Found::Marker { which, .. } if which != 0 => {
                malformed(out, i + at + inner.list[which].len())
            }
            Found::Marker { which, .. } => tag_at(i + at + inner.list[which].len()),
        }
    }

    /// A complete tag (its text between `NS<` and `>`): the next state, or None if malformed.
    fn tag(&mut self, tag: &str, out: &mut Emitter) -> Option<State> {
        if let Some(closed) = tag.strip_prefix('/') {
            let Some(&open) = self.stack.last() else {
                // At the top: only the call's end.
                let end = self.style.invoke_end;
                let is_end = end
                    .strip_prefix(self.style.open)
                    .and_then(|e| e.strip_suffix('>'))
                    == Some(tag);
                if !is_end {
                    return None;
                }
                out.args("}");
                out.tool_end();
                return Some(State::After { ws: String::new() });
            };
            if self.elems.get(open).map(|e| e.name.as_str()) != Some(closed) {
                // A closing tag of another element.
                return None;
            }
            self.stack.pop();
            if self.stack.is_empty() {
                self.param_end(open, out);
                return Some(State::Body);
            }
            return Some(State::Inner);
        }
        // (an element inside a string parameter that streams is malformed too)
        if is_blank(tag) || self.stack.len() >= DEPTH_MAX || self.streaming {
            return None;
        }
        let e = self.elems.len();
        self.elems.push(Elem {
            name: tag.to_owned(),
            ..Elem::default()
        });
        match self.stack.last().and_then(|&p| self.elems.get_mut(p)) {
            Some(parent) => parent.children.push(e),
            None => self.param_start(tag, out),
        }
        self.stack.push(e);
        Some(State::Inner)
    }

    /// The open call's schema nodes.
    fn nodes(&self) -> &[SchemaNode] {
        match self.tools.schemas.get(&self.func) {
            Some(nodes) => nodes,
            None => &self.flat,
        }
    }

    /// The node of parameter `name`.
    fn param_node(&self, name: &str) -> Option<usize> {
        let root = self.nodes().first()?;
        match root.children.get(name) {
            Some(&k) => k,
            None => root.other,
        }
    }

    /// A parameter opens: a string one starts streaming.
    fn param_start(&mut self, name: &str, out: &mut Emitter) {
        let nd = self.param_node(name).and_then(|k| self.nodes().get(k));
        self.streaming = nd.is_some_and(|nd| nd.container == NONE && nd.kind == Kind::Str);
        if self.streaming {
            let first = self.params == 0;
            out.args_with(|o| {
                if !first {
                    o.push_str(", ");
                }
                params::push_json_str(o, name);
                o.push_str(": \"");
            });
            self.params += 1;
        }
    }

    /// Parameter element `e` closes: the end of its string, or its whole value.
    fn param_end(&mut self, e: usize, out: &mut Emitter) {
        if self.streaming {
            out.args("\"");
            self.streaming = false;
        } else {
            let name = self.elems.get(e).map_or("", |e| e.name.as_str());
            let mut v = String::new();
            if self.params > 0 {
                v.push_str(", ");
            }
            params::push_json_str(&mut v, name);
            v.push_str(": ");
            self.value(Field::Elem(e), self.nodes(), self.param_node(name), &mut v);
            out.args(&v);
            self.params += 1;
        }
        self.elems.clear();
    }

    fn field_name<'a>(&'a self, f: &Field<'a>, text_name: &'a str) -> &'a str {
        match f {
            Field::Elem(e) => self.elems.get(*e).map_or("", |e| e.name.as_str()),
            Field::Text(_) => text_name,
        }
    }

    /// An object of `fields` (a repeated name collects its values into a list, at its first
    /// place), typed by object node `node` (None: untyped). `text_name` names the text field.
    fn object_named(
        &self,
        fields: &[Field],
        text_name: &str,
        nodes: &[SchemaNode],
        node: Option<usize>,
        out: &mut String,
    ) {
        let nd = node.and_then(|k| nodes.get(k));
        let mut order: Vec<(&str, Vec<String>)> = Vec::new();
        let mut at: HashMap<&str, usize> = HashMap::new();
        for f in fields {
            let name = self.field_name(f, text_name);
            let sub = nd.and_then(|nd| match nd.children.get(name) {
                Some(&k) => k,
                None => nd.other,
            });
            let mut v = String::new();
            self.value(*f, nodes, sub, &mut v);
            match at.get(name) {
                Some(&k) => order[k].1.push(v),
                None => {
                    at.insert(name, order.len());
                    order.push((name, vec![v]));
                }
            }
        }
        out.push('{');
        for (k, (name, vals)) in order.iter().enumerate() {
            if k > 0 {
                out.push_str(", ");
            }
            params::push_json_str(out, name);
            out.push_str(": ");
            if let [v] = vals.as_slice() {
                out.push_str(v);
            } else {
                out.push('[');
                out.push_str(&vals.join(", "));
                out.push(']');
            }
        }
        out.push('}');
    }

    /// The JSON text of field `f`, typed by `node` (None: untyped).
    fn value(&self, f: Field, nodes: &[SchemaNode], node: Option<usize>, out: &mut String) {
        let nd = node.and_then(|k| nodes.get(k));
        let (text, children): (&str, &[usize]) = match f {
            Field::Text(t) => (t, &[]),
            Field::Elem(e) => match self.elems.get(e) {
                Some(e) => (e.text.as_str(), e.children.as_slice()),
                None => ("", &[]),
            },
        };
        if children.is_empty() {
            match nd {
                None => params::push_json_str(out, text),
                Some(nd) if nd.container != NONE && !nd.string_ok && blank(text) => {
                    // The template writes [] and {} as an empty element.
                    out.push_str(if nd.container == ARRAY { "[]" } else { "{}" });
                }
                Some(nd) => params::convert(nd.kind, text, out),
            }
            return;
        }
        let mut fields: Vec<Field> = children.iter().map(|&c| Field::Elem(c)).collect();
        let mut text_name = TEXT_FIELD.to_owned();
        if !blank(text) {
            while fields
                .iter()
                .any(|f| self.field_name(f, "") == text_name.as_str())
            {
                text_name.insert(0, '$');
            }
            fields.push(Field::Text(text));
        }
        match nd {
            Some(nd) if nd.container == ARRAY => {
                out.push('[');
                for (k, f) in fields.iter().enumerate() {
                    if k > 0 {
                        out.push_str(", ");
                    }
                    self.value(*f, nodes, nd.other, out);
                }
                out.push(']');
            }
            Some(nd) if nd.container == OBJECT => {
                self.object_named(&fields, &text_name, nodes, node, out);
            }
            _ => self.object_named(&fields, &text_name, nodes, None, out),
        }
    }
}

/// The nodes of a function known only by its parameters' kinds: a root object whose parameters
/// are leaves (their children untyped).
fn flat_nodes(tools: &Tools, func: &str) -> Vec<SchemaNode> {
    let mut root = SchemaNode {
        kind: Kind::Str,
        string_ok: true,
        container: OBJECT,
        children: HashMap::new(),
        other: None,
    };
    let mut out = Vec::new();
    if let Some(params) = tools.functions.get(func) {
        for (name, &kind) in params {
            root.children.insert(name.clone(), Some(out.len() + 1));
            out.push(SchemaNode {
                kind,
                string_ok: true,
                container: NONE,
                children: HashMap::new(),
                other: None,
            });
        }
    }
    out.insert(0, root);
    out
}

#[cfg(test)]
mod tests;
