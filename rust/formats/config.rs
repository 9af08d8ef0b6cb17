//! A format's machine, configured from its spec entry at run time: one function per family
//! works out the family's style, tags or frame (the twins of `reference/__init__.py`'s
//! `_machine` and the `style_of` functions), once per registration. A configuration holds
//! `&'static` data: the entry it is made from is leaked once per registration (the built-in
//! formats at first use; a replaced format's old entry stays leaked), so the machines read
//! `&'static str` markers as they always did.

use super::spec_file::{Call, Entry};
use super::{
    functionary, functiongemma, inkling, llama3_json, muse, named_json, openai, pythonic,
    tagged_json, xml_elements, xml_params, Machine, Tools,
};
use crate::json::CallKeys;
use crate::scan::Markers;

/// How a format's machine is built for a request's tools.
pub type Ctor = Box<dyn Fn(&Tools) -> Box<dyn Machine> + Send + Sync>;

/// Leaks a value: a configuration lives as long as the process.
pub fn leak<T>(v: T) -> &'static T {
    Box::leak(Box::new(v))
}

fn list(v: Vec<&'static str>) -> &'static [&'static str] {
    v.leak()
}

fn markers(v: Vec<&'static str>) -> Markers {
    Markers::new(list(v))
}

fn owned(s: String) -> &'static str {
    s.leak()
}

fn some_markers(m: Option<&'static str>) -> Option<Markers> {
    m.map(|m| markers(vec![m]))
}

fn strs(v: &'static [String]) -> &'static [&'static str] {
    list(v.iter().map(String::as_str).collect())
}

fn keys(
    list: Option<&'static Vec<String>>,
    key: &str,
    name: &str,
) -> Result<&'static [&'static str], String> {
    list.map(|v| strs(v))
        .ok_or_else(|| format!("{name}: {key:?} is missing or not a list"))
}

/// The constructor of a format's machine, from its (leaked) spec entry.
pub fn machine(e: &'static Entry) -> Result<Ctor, String> {
    Ok(match e.family.as_str() {
        "tagged_json" => {
            let tags = leak(tagged_json(e)?);
            Box::new(move |_| Box::new(tagged_json::TaggedJson::new(tags)))
        }
        "pythonic" => {
            let style = leak(pythonic(e)?);
            Box::new(move |_| Box::new(pythonic::Pythonic::new(style)))
        }
        "named_json" => {
            let style = leak(named_json(e)?);
            Box::new(move |t| Box::new(named_json::NamedJson::new(style, t)))
        }
        "openai" => {
            // beam: harmony messages whose tool bodies are XML parameters
            let xml = match e.marker("parameter_start") {
                Some(_) => Some(leak(xml_params(e)?)),
                None => None,
            };
            let frame = leak(harmony_frame(e, xml)?);
            Box::new(move |t| openai::new(frame, t))
        }
        "xml_params" => {
            let style = leak(xml_params(e)?);
            Box::new(move |t| xml_params::new(style, t))
        }
        // muse: headers and recipients around ATEM calls, which are XML parameters
        "muse" => {
            let frame = leak(muse(e, leak(xml_params(e)?))?);
            Box::new(move |t| muse::new(frame, t))
        }
        "xml_elements" => {
            let style = leak(xml_elements(e)?);
            Box::new(move |t| xml_elements::new(style, t))
        }
        "inkling" => {
            let style = leak(inkling(e)?);
            Box::new(move |_| Box::new(inkling::Inkling::new(style)))
        }
        "llama3_json" => {
            let style = leak(llama3_json(e)?);
            Box::new(move |t| llama3_json::new(style, t))
        }
        "functiongemma" => {
            let style = leak(functiongemma(e)?);
            Box::new(move |t| Box::new(functiongemma::FunctionGemma::new(style, t)))
        }
        "functionary" => {
            let style = leak(functionary(e)?);
            Box::new(move |t| Box::new(functionary::Functionary::new(style, t)))
        }
        other => return Err(format!("{}: unknown family {other:?}", e.name)),
    })
}

pub fn tagged_json(e: &'static Entry) -> Result<tagged_json::Tags, String> {
    let name = &e.name;
    let call = &e.call;
    // The end markers (`call_end`, `call_end_2`, ...), then the start markers (`call_start`,
    // `call_start_2`, ...).
    let (ends, starts) = (e.spellings("call_end"), e.spellings("call_start"));
    if starts.is_empty() {
        return Err(format!("{name}: no call_start"));
    }
    let all: Vec<&str> = ends.iter().chain(&starts).copied().collect();
    let shape = call.shape.as_deref();
    // Plain text is scanned for the start markers, then the content's wrappers.
    let mut text: Vec<&str> = starts.clone();
    text.extend(
        ["text_start", "text_end"]
            .iter()
            .filter_map(|r| e.marker(r)),
    );
    // A list, an object, or a name and its arguments (mistral): the optional separator before
    // the arguments, then the call-id marker.
    let forms = shape == Some("list_or_name_then_args");
    let args: Vec<&str> = e.marker("args_start").into_iter().collect();
    if forms && args.is_empty() {
        return Err(format!("{name}: no args_start"));
    }
    let mut after_name = args.clone();
    after_name.extend(e.marker("call_id"));
    // After a body: the markers, then in a newline section (object bodies) the next call
    // object's `{`.
    let mut after = all.clone();
    if e.calls == "newline" && shape != Some("array") {
        after.push("{");
    }
    Ok(tagged_json::Tags {
        markers: markers(all),
        after: markers(after),
        ends: ends.len(),
        array: shape == Some("array"),
        keys: CallKeys {
            name: keys(call.name_keys.as_ref(), "name_keys", name)?,
            args: keys(call.args_keys.as_ref(), "args_keys", name)?,
            strings: e.arguments == "json_object_or_json_string",
            by_name: call.keyed_by_name,
            id: call.id_keys.as_ref().map_or(&[], |v| strs(v)),
        },
        tentative: call.tentative,
        text: markers(text),
        forms,
        args: markers(args),
        after_name: markers(after_name),
    })
}

pub fn pythonic(e: &'static Entry) -> Result<pythonic::Style, String> {
    let start = e.marker("section_start");
    let mut triggers: Vec<&str> = start.into_iter().collect();
    triggers.extend(e.marker("list_start"));
    if triggers.is_empty() {
        return Err(format!(
            "{}: a pythonic format needs a section or list start",
            e.name
        ));
    }
    Ok(pythonic::Style {
        triggers: markers(triggers),
        start,
        end: some_markers(e.marker("section_end")),
        list: e.calls == "list",
    })
}

pub fn named_json(e: &'static Entry) -> Result<named_json::Style, String> {
    let name = &e.name;
    let mut starts = vec![e.need("section_start")?];
    starts.extend(e.marker("section_start_alt"));
    let mut ends = vec![e.need("section_end")?];
    ends.extend(e.marker("section_end_alt"));
    let (cs, ce) = (e.need("call_start")?, e.need("call_end")?);
    let mut seps: Vec<&str> = e.marker("name_start").into_iter().collect();
    seps.push(e.need("args_start")?);
    let fields: Vec<Markers> = seps
        .iter()
        .map(|s| markers([&[*s, cs, ce][..], &ends].concat()))
        .collect();
    let between = [&[cs][..], &ends].concat();
    let fence = e.marker("args_end");
    let mut close = vec![ce, cs];
    close.extend(fence);
    close.extend(&ends);
    if e.call.id_field && e.marker("name_start").is_none() {
        return Err(format!("{name}: call.id_field needs the marker name_start"));
    }
    let drop_between = match e.call.between_calls.as_deref() {
        None | Some("whitespace") => false,
        Some("dropped") => true,
        Some(v) => return Err(format!("{name}: call.between_calls {v:?}")),
    };
    Ok(named_json::Style {
        section: markers(starts),
        between: markers(between),
        fields: fields.leak(),
        close: markers(close),
        fence: fence.is_some(),
        id: e.id_style == "model",
        id_field: e.call.id_field,
        drop_between,
    })
}

/// The section starts (`call_start`, then its other spellings `call_start_N`) and the function
/// starts (`function_start`, `function_start_alt`, then `function_lead`) of an XML-parameter
/// entry, with the tag after the lead.
type Heads = (Vec<&'static str>, Vec<&'static str>, Option<&'static str>);

fn xml_starts(e: &'static Entry) -> Result<Heads, String> {
    let name = &e.name;
    let section = e.marker("call_start");
    let alts: Vec<&str> = e
        .markers
        .iter()
        .filter(|(r, _)| r.starts_with("call_start_"))
        .map(|(_, v)| v.as_str())
        .collect();
    if section.is_none() && !alts.is_empty() {
        return Err(format!("{name}: call_start_N without call_start"));
    }
    let mut sections: Vec<&str> = section.into_iter().collect();
    sections.extend(&alts);
    let function = e.need("function_start")?;
    // Another spelling of the function start (step3 without `function<｜tool_sep｜>`).
    let mut functions = vec![function];
    functions.extend(e.marker("function_start_alt"));
    // The start of the function start after which the name may stand repeated (step3's
    // `<｜tool_call_begin｜>function<｜tool_sep｜>NAME\n<steptml:invoke ...`), and the rest of the
    // function start (its tag).
    let lead = e.marker("function_lead");
    let lead_tag = match lead {
        Some(l) => match function.strip_prefix(l) {
            Some(tag) if !tag.is_empty() && !l.is_empty() => Some(tag),
            _ => {
                return Err(format!(
                    "{name}: function_lead is not a proper start of function_start"
                ))
            }
        },
        None => None,
    };
    functions.extend(lead);
    Ok((sections, functions, lead_tag))
}

/// The heads of a parameter (`parameter_string*`, then `parameter_json*`, then
/// `parameter_name_end`), with how many make a string.
fn xml_heads(e: &'static Entry) -> Result<(Vec<&'static str>, usize), String> {
    let head = e.need("parameter_name_end")?;
    let string_attr = e.marker("parameter_string").is_some();
    let mut heads = Vec::new();
    if string_attr {
        heads.extend(e.spellings("parameter_string"));
    }
    let strings = heads.len();
    if string_attr {
        e.need("parameter_json")?;
        heads.extend(e.spellings("parameter_json"));
    }
    if !heads.contains(&head) {
        heads.push(head);
    }
    Ok((heads, strings))
}

/// Where a value starts (`value_start`, `value_type_start`) and where its type ends.
fn xml_values(e: &'static Entry) -> Result<(Option<Markers>, Option<Markers>), String> {
    let name = &e.name;
    let value_start = match (e.marker("value_start"), e.marker("value_type_start")) {
        (Some(m), Some(t)) => Some(markers(vec![m, t])),
        (Some(m), None) => Some(markers(vec![m])),
        (None, None) => None,
        (None, Some(_)) => return Err(format!("{name}: value_type_start without value_start")),
    };
    let value_type_end = match (e.marker("value_type_start"), e.marker("value_type_end")) {
        (Some(_), Some(m)) => Some(markers(vec![m])),
        (None, None) => None,
        _ => {
            return Err(format!(
                "{name}: value_type_start and value_type_end go together"
            ))
        }
    };
    Ok((value_start, value_type_end))
}

/// The XML-parameter style of an `xml_params` entry (and of muse's and beam's bodies).
pub fn xml_params(e: &'static Entry) -> Result<xml_params::Style, String> {
    let name = &e.name;
    let call: &'static Call = &e.call;
    let section_end = e.marker("call_end");
    let (sections, functions, lead_tag) = xml_starts(e)?;
    // Markup that may stand between calls (step3's `<｜tool_sep｜>`).
    let call_sep = e.marker("call_sep");
    // A section may hold one JSON call object instead of functions (dots).
    let json = match &call.name_keys {
        Some(n) => Some(CallKeys {
            name: strs(n),
            args: keys(call.args_keys.as_ref(), "args_keys", name)?,
            strings: false,
            by_name: false,
            id: &[],
        }),
        None => None,
    };
    let function_end = e.need("function_end")?;
    let param = e.need("parameter_start")?;
    let param_end = e.need("parameter_end")?;
    let name_end = match e.need("function_name_end")? {
        "\n" => xml_params::NameEnd::Line,
        // A tag must start with a character that ends a name.
        tag if tag.starts_with(['>', '<', '{', '}', '"', '\'', ' ', '\t', '\r']) => {
            xml_params::NameEnd::Tag(tag)
        }
        other => return Err(format!("{name}: function_name_end {other:?}")),
    };
    let strip = match call.value_newlines.as_deref() {
        Some("strip_one") => true,
        Some("keep") => false,
        other => return Err(format!("{name}: call.value_newlines {other:?}")),
    };
    let many = match call.calls_per_section.as_deref() {
        Some("many") => true,
        Some("one") => false,
        other => return Err(format!("{name}: call.calls_per_section {other:?}")),
    };
    let mut text: Vec<&str> = sections.clone();
    // A bare function starts a call too, unless the section is required (kimi_k3).
    if call.section_required && sections.is_empty() {
        return Err(format!("{name}: call.section_required without call_start"));
    }
    if !call.section_required {
        text.extend(&functions);
    }
    // Then the content's wrappers (kimi_k3's channel markers: dropped).
    let wrappers: Vec<&str> = ["text_start", "text_end", "text_end_2"]
        .iter()
        .filter_map(|r| e.marker(r))
        .collect();
    text.extend(&wrappers);
    let mut body = vec![param, function_end];
    body.extend(section_end);
    let head = e.need("parameter_name_end")?;
    let (heads, strings) = xml_heads(e)?;
    let (value, after_function) = value_ends(
        e,
        strip,
        [param, param_end, function_end],
        section_end,
        &functions,
    )?;
    let item_end = e.marker("item_end");
    let typing = match e.arguments.as_str() {
        "xml_parameters_json_or_string" => xml_params::Typing::Json,
        "xml_parameters_json_unless_schema_string" => xml_params::Typing::JsonUnlessString,
        _ => xml_params::Typing::Schema,
    };
    let mut end: Vec<&str> = section_end.into_iter().collect();
    end.extend(item_end);
    end.extend(call_sep);
    if many {
        end.extend(&functions);
    }
    let (value_start, value_type_end) = xml_values(e)?;
    Ok(xml_params::Style {
        text: markers(text),
        sections: sections.len(),
        function: markers(functions),
        name_end,
        self_close: e.marker("function_self_close"),
        body: markers(body),
        quoted: head.starts_with('"'),
        heads: markers(heads),
        string_attr: e.marker("parameter_string").is_some(),
        strings,
        attrs_end: some_markers(e.marker("function_attrs_end")),
        wrappers: wrappers.len(),
        unescape: call.unescape_attributes,
        value_start,
        value_type_end,
        value: markers(value),
        strip,
        after_function: markers(after_function),
        end: markers(end),
        item_end,
        call_sep,
        lead: e.marker("function_lead"),
        lead_tag: some_markers(lead_tag),
        json,
        typing,
        doubled_names: call.doubled_names.as_deref() == Some("collapse"),
        cdata: call.cdata,
        python_values: call.python_values,
    })
}

/// The ends of an XML parameter value (`Style::value`) and what must follow a function end
/// inside a value for it to close the value and the call (`Style::after_function`): the section
/// end (or, newline-stripping styles, the function end itself); without a section, the next
/// function start (or the end of the output).
type ValueEnds = (Vec<&'static str>, Vec<&'static str>);

fn value_ends(
    e: &'static Entry,
    strip: bool,
    [param, param_end, function_end]: [&'static str; 3],
    section_end: Option<&'static str>,
    functions: &[&'static str],
) -> Result<ValueEnds, String> {
    if e.call.value_end_optional && strip {
        return Err(format!(
            "{}: call.value_end_optional is for value_newlines keep",
            e.name
        ));
    }
    let value = if strip {
        vec![
            param_end,
            owned(format!("\n{param_end}")),
            owned(format!("\n{param}")),
            owned(format!("\n{function_end}")),
        ]
    } else if e.call.value_end_optional {
        // glm47: a last value whose end is missing closes at the function end
        vec![param_end, function_end]
    } else {
        vec![param_end]
    };
    let after_function = match section_end {
        Some(end) => vec![end],
        None if strip => vec![function_end],
        None => functions.to_vec(),
    };
    Ok((value, after_function))
}

pub fn muse(e: &'static Entry, atem: &'static xml_params::Style) -> Result<muse::Frame, String> {
    let name = &e.name;
    let frame = ["start", "message", "end", "end_turn"]
        .map(|r| e.need(r))
        .into_iter()
        .collect::<Result<Vec<_>, _>>()?;
    let recipients = e
        .call
        .recipients
        .as_ref()
        .ok_or_else(|| format!("{name}: no call.recipients"))?;
    Ok(muse::Frame {
        markers: markers(frame),
        role: e
            .call
            .role
            .as_deref()
            .ok_or_else(|| format!("{name}: no call.role"))?,
        reasoning: strs(&recipients.reasoning),
        content: strs(&recipients.content),
        atem,
    })
}

pub fn xml_elements(e: &'static Entry) -> Result<xml_elements::Style, String> {
    let ns = e.need("namespace")?;
    let (start, end) = (e.need("call_start")?, e.need("call_end")?);
    let (invoke, invoke_end) = (e.need("invoke_start")?, e.need("invoke_end")?);
    let open = owned(format!("{ns}<"));
    Ok(xml_elements::Style {
        text: markers(vec![start]),
        invoke: markers(vec![invoke]),
        after: markers(vec![invoke, end]),
        tag: markers(vec![open]),
        inner: markers(vec![open, ns]),
        open,
        invoke_end,
    })
}

pub fn inkling(e: &'static Entry) -> Result<inkling::Style, String> {
    // Header and content scan for every marker; a thinking block for its own opener, the call
    // opener and the end markers (see `formats/inkling.rs`).
    let roles = [
        "message_start",
        "text_start",
        "tool_text_start",
        "tool_error_start",
        "thinking_start",
        "call_start",
        "end",
        "end_sampling",
    ];
    let blocks = roles
        .iter()
        .map(|r| e.need(r))
        .collect::<Result<Vec<_>, _>>()?;
    let thinking = blocks[4..].to_vec();
    Ok(inkling::Style {
        blocks: markers(blocks),
        thinking: markers(thinking),
        keys: CallKeys {
            name: keys(e.call.name_keys.as_ref(), "name_keys", &e.name)?,
            args: keys(e.call.args_keys.as_ref(), "args_keys", &e.name)?,
            strings: e.arguments == "json_object_or_json_string",
            by_name: false,
            id: &[],
        },
    })
}

/// The frame of an `openai` family entry (the twin of `reference/openai.py`'s `frame_of`);
/// `xml`: the style of its XML-parameter bodies (beam).
pub fn harmony_frame(
    e: &'static Entry,
    xml: Option<&'static xml_params::Style>,
) -> Result<openai::Frame, String> {
    let call: &'static Call = &e.call;
    let frame = super::spec_check::FRAME_ROLES
        .map(|r| e.need(r))
        .into_iter()
        .collect::<Result<Vec<_>, _>>()?;
    let join = match call.reasoning_join.as_deref() {
        None | Some("\n") => "\n",
        Some("") => "",
        Some(other) => return Err(format!("{}: call.reasoning_join {other:?}", e.name)),
    };
    Ok(openai::Frame {
        markers: markers(frame),
        prefix: call.name_prefix.as_deref().unwrap_or("functions."),
        xml,
        join,
    })
}

pub fn llama3_json(e: &'static Entry) -> Result<llama3_json::Style, String> {
    Ok(llama3_json::Style {
        text: markers(vec![e.need("call_start")?, e.need("object_start")?]),
        separator: e.need("separator")?,
    })
}

pub fn functiongemma(e: &'static Entry) -> Result<functiongemma::Style, String> {
    let escaped = match e.call.escaped.as_deref() {
        None | Some("typed") => false,
        Some("string") => true,
        Some(other) => return Err(format!("{}: call.escaped {other:?}", e.name)),
    };
    Ok(functiongemma::Style {
        start: markers(vec![e.need("call_start")?]),
        prefix: e.need("name_start")?,
        escape: markers(vec![e.need("string")?]),
        end: markers(vec![e.need("call_end")?]),
        escaped_strings: escaped,
        key_spaces: e.call.key_spaces,
    })
}

/// The style of a `functionary` family entry (the twin of `reference/functionary.py`'s
/// `style_of`).
pub fn functionary(e: &'static Entry) -> Result<functionary::Style, String> {
    let name = &e.name;
    let call = &e.call;
    // no raw_code: no function's call carries raw code (an inferred format, whose template's
    // renders cannot show one)
    let raw = call.raw_code.as_ref();
    let raw_field = |key: &str, v: &'static str| -> Result<&'static str, String> {
        if v.is_empty() {
            return Err(format!(
                "{name}: call.raw_code.{key} must be a non-empty string"
            ));
        }
        Ok(v)
    };
    let (call_start, raw_marker) = (e.need("call_start")?, e.marker("call_start_raw"));
    let (raw_name, raw_key, raw_by_header) = match raw {
        Some(raw) => {
            let by_header = match raw_field("start", &raw.start)? {
                "marker" if raw_marker.is_some() => false,
                "header" => true,
                other => return Err(format!("{name}: call.raw_code.start {other:?}")),
            };
            (
                raw_field("name", &raw.name)?,
                raw_field("key", &raw.key)?,
                by_header,
            )
        }
        None if raw_marker.is_some() => {
            return Err(format!(
                "{name}: the marker call_start_raw without call.raw_code"
            ))
        }
        None => ("", "", false),
    };
    let loose_headers = match call.bad_header.as_deref() {
        Some("text") => true,
        Some("malformed") => false,
        other => return Err(format!("{name}: call.bad_header {other:?}")),
    };
    if call.content_recipient.as_deref() == Some("") {
        return Err(format!("{name}: call.content_recipient must be a string"));
    }
    let mut text = vec![call_start];
    text.extend(raw_marker);
    Ok(functionary::Style {
        text: markers(text),
        call_start,
        name_end: e.need("name_end")?,
        call_end: some_markers(e.marker("call_end")),
        raw_name,
        raw_key,
        raw_by_header,
        content_recipient: call.content_recipient.as_deref(),
        starts_with_header: call.starts_with_header,
        loose_headers,
    })
}
