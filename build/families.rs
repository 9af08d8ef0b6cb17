//! One generator per family: each writes the statics its machine is configured by (its style,
//! tags or frame, from the spec entry) into `statics` and returns the expression that builds the
//! machine.

use std::fmt::Write as _;

use crate::spec::{Call, Entry};

/// `upper` is the format's name as a Rust identifier (`HERMES`).
pub fn machine(statics: &mut String, e: &Entry, upper: &str) -> Result<String, String> {
    match e.family.as_str() {
        "tagged_json" => tagged_json(statics, e, upper),
        "pythonic" => pythonic(statics, e, upper),
        "named_json" => named_json(statics, e, upper),
        // beam (openai family): harmony messages whose tool bodies are XML parameters
        "openai" if e.marker("parameter_start").is_some() => {
            let style = xml_params(statics, e, upper)?;
            harmony_frame(statics, e, upper, Some(&style))
        }
        "openai" => harmony_frame(statics, e, upper, None),
        "xml_params" => Ok(format!(
            "xml_params::new(&{}, tools)",
            xml_params(statics, e, upper)?
        )),
        // muse: headers and recipients around ATEM calls, which are XML parameters
        "muse" => {
            let style = xml_params(statics, e, upper)?;
            muse(statics, e, upper, &style)
        }
        "xml_elements" => xml_elements(statics, e, upper),
        "inkling" => inkling(statics, e, upper),
        "llama3_json" => llama3_json(statics, e, upper),
        "functiongemma" => functiongemma(statics, e, upper),
        "functionary" => functionary(statics, e, upper),
        other => Err(format!("{}: unknown family {other:?}", e.name)),
    }
}

fn keys<'a>(list: Option<&'a Vec<String>>, key: &str, name: &str) -> Result<&'a [String], String> {
    list.map(Vec::as_slice)
        .ok_or_else(|| format!("{name}: {key:?} is missing or not a list"))
}

fn some_markers(m: Option<&str>) -> String {
    match m {
        Some(m) => format!("Some(Markers::new(&[{m:?}]))"),
        None => "None".to_owned(),
    }
}

fn tagged_json(statics: &mut String, e: &Entry, upper: &str) -> Result<String, String> {
    let name = &e.name;
    let call = &e.call;
    // The end markers (`call_end`, `call_end_2`, ...), then the start markers (`call_start`,
    // `call_start_2`, ...).
    let (ends, starts) = (e.spellings("call_end"), e.spellings("call_start"));
    if starts.is_empty() {
        return Err(format!("{name}: no call_start"));
    }
    let list: Vec<&str> = ends.iter().chain(&starts).copied().collect();
    let shape = call.shape.as_deref();
    let strings_ok = e.arguments == "json_object_or_json_string";
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
    writeln!(
        statics,
        "pub(crate) static {upper}_TAGS: tagged_json::Tags = tagged_json::Tags {{ \
         markers: Markers::new(&{list:?}), ends: {}, array: {}, \
         keys: crate::json::CallKeys {{ name: &{:?}, args: &{:?}, strings: {strings_ok}, \
         by_name: {}, id: &{:?} }}, tentative: {}, \
         text: Markers::new(&{text:?}), forms: {forms}, args: Markers::new(&{args:?}), \
         after_name: Markers::new(&{after_name:?}) }};",
        ends.len(),
        shape == Some("array"),
        keys(call.name_keys.as_ref(), "name_keys", name)?,
        keys(call.args_keys.as_ref(), "args_keys", name)?,
        call.keyed_by_name,
        call.id_keys.clone().unwrap_or_default(),
        call.tentative,
    )
    .map_err(|e| e.to_string())?;
    Ok(format!(
        "Box::new(tagged_json::TaggedJson::new(&{upper}_TAGS))"
    ))
}

fn pythonic(statics: &mut String, e: &Entry, upper: &str) -> Result<String, String> {
    let start = e.marker("section_start");
    let mut triggers: Vec<&str> = start.into_iter().collect();
    triggers.extend(e.marker("list_start"));
    if triggers.is_empty() {
        return Err(format!(
            "{}: a pythonic format needs a section or list start",
            e.name
        ));
    }
    writeln!(
        statics,
        "pub(crate) static {upper}_STYLE: pythonic::Style = pythonic::Style {{ \
         triggers: Markers::new(&{triggers:?}), start: {start:?}, end: {}, list: {} }};",
        some_markers(e.marker("section_end")),
        e.calls == "list"
    )
    .map_err(|e| e.to_string())?;
    Ok(format!("Box::new(pythonic::Pythonic::new(&{upper}_STYLE))"))
}

fn named_json(statics: &mut String, e: &Entry, upper: &str) -> Result<String, String> {
    let name = &e.name;
    let mut starts = vec![e.need("section_start")?];
    starts.extend(e.marker("section_start_alt"));
    let mut ends = vec![e.need("section_end")?];
    ends.extend(e.marker("section_end_alt"));
    let (cs, ce) = (e.need("call_start")?, e.need("call_end")?);
    let mut seps: Vec<&str> = e.marker("name_start").into_iter().collect();
    seps.push(e.need("args_start")?);
    let fields: Vec<String> = seps
        .iter()
        .map(|s| format!("Markers::new(&{:?})", [&[*s, cs, ce][..], &ends].concat()))
        .collect();
    let between = [&[cs][..], &ends].concat();
    let fence = e.marker("args_end");
    let mut close = vec![ce, cs];
    close.extend(fence);
    close.extend(&ends);
    let drop_between = match e.call.between_calls.as_deref() {
        None | Some("whitespace") => false,
        Some("dropped") => true,
        Some(v) => return Err(format!("{name}: call.between_calls {v:?}")),
    };
    writeln!(
        statics,
        "pub(crate) static {upper}_STYLE: named_json::Style = named_json::Style {{ \
         section: Markers::new(&{starts:?}), between: Markers::new(&{between:?}), \
         fields: &[{}], close: Markers::new(&{close:?}), fence: {}, id: {}, \
         drop_between: {drop_between} }};",
        fields.join(", "),
        fence.is_some(),
        e.id_style == "model"
    )
    .map_err(|e| e.to_string())?;
    Ok(format!(
        "Box::new(named_json::NamedJson::new(&{upper}_STYLE, tools))"
    ))
}

/// The XML-parameter style of an `xml_params` entry (and of muse's and beam's bodies), written
/// into `statics`; returns the static's name.
fn xml_params(statics: &mut String, e: &Entry, upper: &str) -> Result<String, String> {
    let name = &e.name;
    let call = &e.call;
    let section = e.marker("call_start");
    let section_end = e.marker("call_end");
    // Other spellings of the section start (`call_start_2`, `call_start_3`, ...).
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
    // The function lead after which the name may stand repeated, and the rest of the function
    // start (its tag).
    let (lead, lead_tag) = function_lead(e, function)?;
    functions.extend(lead);
    // Markup that may stand between calls (step3's `<｜tool_sep｜>`).
    let call_sep = e.marker("call_sep");
    // A section may hold one JSON call object instead of functions (dots).
    let json_call = section_json_call(call, name)?;
    let function_end = e.need("function_end")?;
    let param = e.need("parameter_start")?;
    let param_end = e.need("parameter_end")?;
    let (name_end, strip, many) = xml_switches(e)?;
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
    let string_attr = e.marker("parameter_string").is_some();
    let (heads, strings) = parameter_heads(e, head)?;
    let (value, after_function) = value_ends(
        name,
        call,
        strip,
        [param, param_end, function_end],
        section_end,
        &functions,
    )?;
    let item_end = e.marker("item_end");
    let typing = match e.arguments.as_str() {
        "xml_parameters_json_or_string" => "Json",
        "xml_parameters_json_unless_schema_string" => "JsonUnlessString",
        _ => "Schema",
    };
    let doubled = call.doubled_names.as_deref() == Some("collapse");
    let mut end: Vec<&str> = section_end.into_iter().collect();
    end.extend(item_end);
    end.extend(call_sep);
    if many {
        end.extend(&functions);
    }
    let (value_start, value_type_end) = value_markers(e)?;
    writeln!(
        statics,
        "pub(crate) static {upper}_STYLE: xml_params::Style = xml_params::Style {{ \
         text: Markers::new(&{text:?}), sections: {}, function: Markers::new(&{functions:?}), \
         name_end: xml_params::NameEnd::{name_end}, self_close: {:?}, body: Markers::new(&{body:?}), \
         quoted: {}, heads: Markers::new(&{heads:?}), string_attr: {string_attr}, \
         strings: {strings}, attrs_end: {}, wrappers: {}, unescape: {}, \
         value_start: {value_start}, value_type_end: {value_type_end}, value: Markers::new(&{value:?}), strip: {strip}, \
         after_function: Markers::new(&{after_function:?}), end: Markers::new(&{end:?}), \
         item_end: {item_end:?}, call_sep: {call_sep:?}, lead: {lead:?}, lead_tag: {}, json: {json_call}, \
         typing: xml_params::Typing::{typing}, \
         doubled_names: {doubled}, cdata: {}, python_values: {} }};",
        sections.len(),
        e.marker("function_self_close"),
        head.starts_with('"'),
        some_markers(e.marker("function_attrs_end")),
        wrappers.len(),
        call.unescape_attributes,
        some_markers(lead_tag),
        call.cdata,
        call.python_values,
    )
    .map_err(|e| e.to_string())?;
    Ok(format!("{upper}_STYLE"))
}

/// The ends of an XML parameter value (`Style::value`) and what must follow a function end
/// inside a value for it to close the value and the call (`Style::after_function`): the section
/// end (or, newline-stripping styles, the function end itself); without a section, the next
/// function start (or the end of the output).
fn value_ends<'a>(
    name: &str,
    call: &Call,
    strip: bool,
    [param, param_end, function_end]: [&'a str; 3],
    section_end: Option<&'a str>,
    functions: &[&'a str],
) -> Result<(Vec<String>, Vec<&'a str>), String> {
    if call.value_end_optional && strip {
        return Err(format!(
            "{name}: call.value_end_optional is for value_newlines keep"
        ));
    }
    let value = if strip {
        vec![
            param_end.to_owned(),
            format!("\n{param_end}"),
            format!("\n{param}"),
            format!("\n{function_end}"),
        ]
    } else if call.value_end_optional {
        // glm47: a last value whose end is missing closes at the function end
        vec![param_end.to_owned(), function_end.to_owned()]
    } else {
        vec![param_end.to_owned()]
    };
    let after_function = match section_end {
        Some(e) => vec![e],
        None if strip => vec![function_end],
        None => functions.to_vec(),
    };
    Ok((value, after_function))
}

/// The function lead of an `xml_params` entry, after which the name may stand repeated (step3's
/// `<｜tool_call_begin｜>function<｜tool_sep｜>NAME\n<steptml:invoke ...`), and the rest of the
/// function start (its tag); both `None` without one.
fn function_lead<'a>(
    e: &'a Entry,
    function: &'a str,
) -> Result<(Option<&'a str>, Option<&'a str>), String> {
    let Some(lead) = e.marker("function_lead") else {
        return Ok((None, None));
    };
    match function.strip_prefix(lead) {
        Some(tag) if !tag.is_empty() && !lead.is_empty() => Ok((Some(lead), Some(tag))),
        _ => Err(format!(
            "{}: function_lead is not a proper start of function_start",
            e.name
        )),
    }
}

/// The keys of the JSON call object a section may hold instead of functions (dots), as Rust.
fn section_json_call(call: &Call, name: &str) -> Result<String, String> {
    Ok(match &call.name_keys {
        Some(n) => format!(
            "Some(crate::json::CallKeys {{ name: &{n:?}, args: &{:?}, strings: false, \
             by_name: false, id: &[] }})",
            keys(call.args_keys.as_ref(), "args_keys", name)?
        ),
        None => "None".to_owned(),
    })
}

/// An `xml_params` entry's switches: how a function name ends (`NameEnd`'s variant), whether one
/// newline is stripped around values, whether a section holds many calls.
fn xml_switches(e: &Entry) -> Result<(String, bool, bool), String> {
    let (name, call) = (&e.name, &e.call);
    let name_end = match e.need("function_name_end")? {
        "\n" => "Line".to_owned(),
        // A tag must start with a character that ends a name.
        tag if tag.starts_with(['>', '<', '{', '}', '"', '\'', ' ', '\t', '\r']) => {
            format!("Tag({tag:?})")
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
    Ok((name_end, strip, many))
}

/// The parameter heads: those that make a string (`parameter_string`, `parameter_string_2`,
/// ...), then those that make JSON (`parameter_json`, ...), then `head` if not among them; and
/// how many make a string.
fn parameter_heads<'a>(e: &'a Entry, head: &'a str) -> Result<(Vec<&'a str>, usize), String> {
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

/// The markers before a typed value and after its type (`value_start`, `value_type_start`,
/// `value_type_end`), as Rust `Option<Markers>` expressions.
fn value_markers(e: &Entry) -> Result<(String, String), String> {
    let name = &e.name;
    let value_start = match (e.marker("value_start"), e.marker("value_type_start")) {
        (Some(m), Some(t)) => format!("Some(Markers::new(&[{m:?}, {t:?}]))"),
        (Some(m), None) => format!("Some(Markers::new(&[{m:?}]))"),
        (None, None) => "None".to_owned(),
        (None, Some(_)) => return Err(format!("{name}: value_type_start without value_start")),
    };
    let value_type_end = match (e.marker("value_type_start"), e.marker("value_type_end")) {
        (Some(_), Some(m)) => format!("Some(Markers::new(&[{m:?}]))"),
        (None, None) => "None".to_owned(),
        _ => {
            return Err(format!(
                "{name}: value_type_start and value_type_end go together"
            ))
        }
    };
    Ok((value_start, value_type_end))
}

fn muse(statics: &mut String, e: &Entry, upper: &str, style: &str) -> Result<String, String> {
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
    writeln!(
        statics,
        "pub(crate) static {upper}_FRAME: muse::Frame = muse::Frame {{ \
         markers: Markers::new(&{frame:?}), role: {:?}, reasoning: &{:?}, \
         content: &{:?}, atem: &{style} }};",
        e.call
            .role
            .as_deref()
            .ok_or_else(|| format!("{name}: no call.role"))?,
        recipients.reasoning,
        recipients.content,
    )
    .map_err(|e| e.to_string())?;
    Ok(format!("muse::new(&{upper}_FRAME, tools)"))
}

fn xml_elements(statics: &mut String, e: &Entry, upper: &str) -> Result<String, String> {
    let ns = e.need("namespace")?;
    let (start, end) = (e.need("call_start")?, e.need("call_end")?);
    let (invoke, invoke_end) = (e.need("invoke_start")?, e.need("invoke_end")?);
    let open = format!("{ns}<");
    writeln!(
        statics,
        "pub(crate) static {upper}_STYLE: xml_elements::Style = xml_elements::Style {{ \
         text: Markers::new(&[{start:?}]), invoke: Markers::new(&[{invoke:?}]), \
         after: Markers::new(&[{invoke:?}, {end:?}]), tag: Markers::new(&[{open:?}]), \
         inner: Markers::new(&[{open:?}, {ns:?}]), open: {open:?}, \
         invoke_end: {invoke_end:?} }};"
    )
    .map_err(|e| e.to_string())?;
    Ok(format!("xml_elements::new(&{upper}_STYLE, tools)"))
}

fn inkling(statics: &mut String, e: &Entry, upper: &str) -> Result<String, String> {
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
    writeln!(
        statics,
        "pub(crate) static {upper}_STYLE: inkling::Style = inkling::Style {{ \
         blocks: Markers::new(&{blocks:?}), thinking: Markers::new(&{:?}), \
         keys: crate::json::CallKeys {{ name: &{:?}, args: &{:?}, strings: {}, \
         by_name: false, id: &[] }} }};",
        &blocks[4..],
        keys(e.call.name_keys.as_ref(), "name_keys", &e.name)?,
        keys(e.call.args_keys.as_ref(), "args_keys", &e.name)?,
        e.arguments == "json_object_or_json_string",
    )
    .map_err(|e| e.to_string())?;
    Ok(format!("Box::new(inkling::Inkling::new(&{upper}_STYLE))"))
}

/// The frame of an `openai` family entry (the twin of `reference/openai.py`'s `frame_of`);
/// `xml`: the static of its XML-parameter bodies (beam).
fn harmony_frame(
    statics: &mut String,
    e: &Entry,
    upper: &str,
    xml: Option<&str>,
) -> Result<String, String> {
    let call: &Call = &e.call;
    let markers = crate::spec_check::FRAME_ROLES
        .map(|r| e.need(r))
        .into_iter()
        .collect::<Result<Vec<_>, _>>()?;
    let prefix = call.name_prefix.as_deref().unwrap_or("functions.");
    let join = match call.reasoning_join.as_deref() {
        None | Some("\n") => "\n",
        Some("") => "",
        Some(other) => return Err(format!("{}: call.reasoning_join {other:?}", e.name)),
    };
    writeln!(
        statics,
        "pub(crate) static {upper}_FRAME: openai::Frame = openai::Frame {{ \
         markers: Markers::new(&{markers:?}), prefix: {prefix:?}, xml: {}, join: {join:?} }};",
        match xml {
            Some(x) => format!("Some(&{x})"),
            None => "None".to_owned(),
        }
    )
    .map_err(|e| e.to_string())?;
    Ok(format!("openai::new(&{upper}_FRAME, tools)"))
}

fn llama3_json(statics: &mut String, e: &Entry, upper: &str) -> Result<String, String> {
    let text = [e.need("call_start")?, e.need("object_start")?];
    writeln!(
        statics,
        "pub(crate) static {upper}_STYLE: llama3_json::Style = llama3_json::Style {{ \
         text: Markers::new(&{text:?}), separator: {:?} }};",
        e.need("separator")?
    )
    .map_err(|e| e.to_string())?;
    Ok(format!("llama3_json::new(&{upper}_STYLE, tools)"))
}

fn functiongemma(statics: &mut String, e: &Entry, upper: &str) -> Result<String, String> {
    let escaped = match e.call.escaped.as_deref() {
        None | Some("typed") => false,
        Some("string") => true,
        Some(other) => return Err(format!("{}: call.escaped {other:?}", e.name)),
    };
    writeln!(
        statics,
        "pub(crate) static {upper}_STYLE: functiongemma::Style = functiongemma::Style {{ \
         start: Markers::new(&[{:?}]), prefix: {:?}, escape: Markers::new(&[{:?}]), \
         end: Markers::new(&[{:?}]), escaped_strings: {escaped}, key_spaces: {} }};",
        e.need("call_start")?,
        e.need("name_start")?,
        e.need("string")?,
        e.need("call_end")?,
        e.call.key_spaces,
    )
    .map_err(|e| e.to_string())?;
    Ok(format!(
        "Box::new(functiongemma::FunctionGemma::new(&{upper}_STYLE, tools))"
    ))
}

/// The style of a `functionary` family entry (the twin of `reference/functionary.py`'s
/// `style_of`).
fn functionary(statics: &mut String, e: &Entry, upper: &str) -> Result<String, String> {
    let name = &e.name;
    let call = &e.call;
    let raw = call
        .raw_code
        .as_ref()
        .ok_or_else(|| format!("{name}: no call.raw_code object"))?;
    let raw_field = |key: &str, v: &str| -> Result<String, String> {
        if v.is_empty() {
            return Err(format!(
                "{name}: call.raw_code.{key} must be a non-empty string"
            ));
        }
        Ok(v.to_owned())
    };
    let (call_start, raw_marker) = (e.need("call_start")?, e.marker("call_start_raw"));
    let raw_by_header = match raw_field("start", &raw.start)?.as_str() {
        "marker" if raw_marker.is_some() => false,
        "header" => true,
        other => return Err(format!("{name}: call.raw_code.start {other:?}")),
    };
    let loose = match call.bad_header.as_deref() {
        Some("text") => true,
        Some("malformed") => false,
        other => return Err(format!("{name}: call.bad_header {other:?}")),
    };
    if call.content_recipient.as_deref() == Some("") {
        return Err(format!("{name}: call.content_recipient must be a string"));
    }
    let recipient = call.content_recipient.as_deref();
    let mut text = vec![call_start];
    text.extend(raw_marker);
    writeln!(
        statics,
        "pub(crate) static {upper}_STYLE: functionary::Style = functionary::Style {{ \
         text: Markers::new(&{text:?}), call_start: {call_start:?}, name_end: {:?}, \
         call_end: {}, raw_name: {:?}, raw_key: {:?}, raw_by_header: {raw_by_header}, \
         content_recipient: {recipient:?}, starts_with_header: {}, loose_headers: {loose} }};",
        e.need("name_end")?,
        some_markers(e.marker("call_end")),
        raw_field("name", &raw.name)?,
        raw_field("key", &raw.key)?,
        call.starts_with_header,
    )
    .map_err(|e| e.to_string())?;
    Ok(format!(
        "Box::new(functionary::Functionary::new(&{upper}_STYLE, tools))"
    ))
}
