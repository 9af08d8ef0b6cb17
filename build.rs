//! Reads the format spec (`python/toolparse/formats/`: one `<name>.json` per format and
//! `_reasoning.json`, the files Python reads at import) and generates the Rust registry from it: a
//! const table of specs and one constructor per format, included by `rust/formats/mod.rs`. Nothing
//! is read at run time.

// A build script fails by panicking, with the reason.
#![allow(clippy::expect_used)]

use std::env;
use std::fmt::Write as _;
use std::fs;
use std::path::Path;

use serde_json::{Map, Value};

#[path = "rust/formats/spec_check.rs"]
mod spec_check;

const SPEC: &str = "python/toolparse/formats";
const REASONING_FILE: &str = "_reasoning.json";

fn main() {
    // a directory: cargo reruns when any file in it changes
    println!("cargo:rerun-if-changed={SPEC}");
    println!("cargo:rerun-if-changed=build.rs");
    let root = env::var("CARGO_MANIFEST_DIR").expect("CARGO_MANIFEST_DIR");
    let dir = Path::new(&root).join(SPEC);
    let formats = read_formats(&dir).unwrap_or_else(|e| panic!("{SPEC}: {e}"));
    let code = generate(&formats).unwrap_or_else(|e| panic!("{SPEC}: {e}"));
    let out = Path::new(&env::var("OUT_DIR").expect("OUT_DIR")).join("formats.rs");
    fs::write(&out, code).unwrap_or_else(|e| panic!("{}: {e}", out.display()));
    let path = dir.join(REASONING_FILE);
    let text = fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let reasoning: Value =
        serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let reasoning = reasoning
        .as_array()
        .unwrap_or_else(|| panic!("{}: not a list", path.display()));
    let code = generate_reasoning(reasoning, &formats).unwrap_or_else(|e| panic!("{SPEC}: {e}"));
    let out = Path::new(&env::var("OUT_DIR").expect("OUT_DIR")).join("reasoning.rs");
    fs::write(&out, code).unwrap_or_else(|e| panic!("{}: {e}", out.display()));
}

/// The spec entries of the format files (`<name>.json`; a name starting with `_` is not a
/// format), in the order of their names, as `toolparse.spec` reads them.
fn read_formats(dir: &Path) -> Result<Vec<Value>, String> {
    let mut paths = Vec::new();
    for item in fs::read_dir(dir).map_err(|e| e.to_string())? {
        let path = item.map_err(|e| e.to_string())?.path();
        let stem = path.file_stem().and_then(|s| s.to_str()).unwrap_or_default();
        if path.extension().is_some_and(|x| x == "json") && !stem.starts_with('_') {
            paths.push((stem.to_owned(), path));
        }
    }
    paths.sort();
    let mut formats = Vec::new();
    for (stem, path) in paths {
        let text = fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
        let doc: Value = serde_json::from_str(&text).map_err(|e| format!("{stem}.json: {e}"))?;
        let entry = doc
            .get("spec")
            .filter(|e| e.get("name").and_then(Value::as_str) == Some(stem.as_str()))
            .ok_or_else(|| format!("{stem}.json: no \"spec\" entry named {stem:?}"))?;
        formats.push(entry.clone());
    }
    Ok(formats)
}

/// The REASONING table: one `ReasoningSpec` per entry of the spec's "reasoning" list, with what
/// its front scans for inside a block when paired with each tool format (none first).
fn generate_reasoning(entries: &[Value], formats: &[Value]) -> Result<String, String> {
    let mut names: Vec<(&str, Vec<&str>)> = Vec::new();
    let mut table = String::new();
    for (k, entry) in entries.iter().enumerate() {
        let e = entry
            .as_object()
            .ok_or_else(|| format!("reasoning entry {k} is not an object"))?;
        let name = string(e, "name", k)?;
        let aliases = strings(e, "aliases", name)?;
        names.push((name, aliases.clone()));
        if let Some(n) = spec_check::duplicate(&names) {
            return Err(format!(
                "reasoning {name}: name or alias {n:?} is given twice"
            ));
        }
        let tool_format = e.get("tool_format").and_then(Value::as_str);
        if let Some(t) = tool_format {
            if !formats
                .iter()
                .any(|f| f.get("name").and_then(Value::as_str) == Some(t))
            {
                return Err(format!("reasoning {name}: unknown tool_format {t:?}"));
            }
            writeln!(
                table,
                "    ReasoningSpec {{ name: {name:?}, aliases: &{aliases:?}, start: \"\", end: \"\", \
                 started: false, call_starts: &[], tool_format: Some({t:?}), scan: &[], \
                 ends: &[], starts: &[], trim: false, content_prefix: \"\", turn_end: \"\", \
                 off_when_disabled: false, content_end: \"\", content_lstrip: \"\", label: \"\", \
                 dropped: &[] }},"
            )
            .map_err(|e| e.to_string())?;
            continue;
        }
        let start = string(e, "start", k)?;
        let end = string(e, "end", k)?;
        let started = e
            .get("started")
            .and_then(Value::as_bool)
            .ok_or_else(|| format!("reasoning {name}: \"started\" must be a bool"))?;
        if e.get("unclosed").and_then(Value::as_str) != Some("reasoning") {
            return Err(format!(
                "reasoning {name}: \"unclosed\" must be \"reasoning\""
            ));
        }
        let call_ends = e
            .get("call_ends_block")
            .and_then(Value::as_bool)
            .ok_or_else(|| format!("reasoning {name}: \"call_ends_block\" must be a bool"))?;
        let call_starts = strings(e, "call_starts", name)?;
        let turn_end = optional_string(e, "turn_end", name)?;
        let content_end = optional_string(e, "content_end", name)?;
        let content_lstrip = optional_string(e, "content_lstrip", name)?;
        let label = optional_string(e, "label", name)?;
        let dropped = optional_strings(e, "dropped", name)?;
        let off_when_disabled = match e.get("markers_off_when_disabled") {
            None => false,
            Some(v) => v.as_bool().ok_or_else(|| {
                format!("reasoning {name}: \"markers_off_when_disabled\" must be a bool")
            })?,
        };
        let mut ends = vec![end];
        ends.extend(optional_strings(e, "also_end", name)?);
        // the turn-end tag ends a block too
        if !turn_end.is_empty() && !ends.contains(&turn_end) {
            ends.push(turn_end);
        }
        let mut starts = vec![start];
        starts.extend(optional_strings(e, "also_start", name)?);
        let trim = match e.get("trim") {
            None => false,
            Some(v) => v
                .as_bool()
                .ok_or_else(|| format!("reasoning {name}: \"trim\" must be a bool"))?,
        };
        let content_prefix = match e.get("content_prefix") {
            None => "",
            Some(v) => v
                .as_str()
                .ok_or_else(|| format!("reasoning {name}: \"content_prefix\" must be a string"))?,
        };
        let mut scan = Vec::new();
        let own: Vec<&str> = if call_ends {
            call_starts.clone()
        } else {
            Vec::new()
        };
        scan.push(scan_list(&starts, &ends, &own));
        for f in formats {
            let mut calls = Vec::new();
            if call_ends {
                // What a call of the format may begin with (an XML function may stand without
                // its wrapper; glm's calls have no other start).
                for role in ["call_start", "section_start", "function_start"] {
                    if let Some(m) = f
                        .get("markers")
                        .and_then(|m| m.get(role))
                        .and_then(Value::as_str)
                    {
                        calls.push(m);
                    }
                }
            }
            scan.push(scan_list(&starts, &ends, &calls));
        }
        let scan: Vec<String> = scan.iter().map(|l| format!("&{l:?}")).collect();
        writeln!(
            table,
            "    ReasoningSpec {{ name: {name:?}, aliases: &{aliases:?}, start: {start:?}, \
             end: {end:?}, started: {started}, call_starts: &{call_starts:?}, tool_format: None, \
             scan: &[{}], ends: &{ends:?}, starts: &{starts:?}, trim: {trim}, \
             content_prefix: {content_prefix:?}, turn_end: {turn_end:?}, \
             off_when_disabled: {off_when_disabled}, content_end: {content_end:?}, \
             content_lstrip: {content_lstrip:?}, label: {label:?}, dropped: &{dropped:?} }},",
            scan.join(", ")
        )
        .map_err(|e| e.to_string())?;
    }
    for f in formats {
        let r = f.get("default_reasoning").and_then(Value::as_str);
        if let Some(r) = r {
            if !names.iter().any(|(n, _)| *n == r) {
                let name = f.get("name").and_then(Value::as_str).unwrap_or_default();
                return Err(format!("{name}: unknown default_reasoning {r:?}"));
            }
        }
    }
    Ok(format!(
        "// Generated by build.rs from {SPEC}; do not edit.\n\n\
         /// Every reasoning format's spec entry, in the spec's order.\n\
         pub static REASONING: &[ReasoningSpec] = &[\n{table}];\n"
    ))
}

/// `[ends..., starts..., call starts...]`, without empty or repeated call markers.
fn scan_list<'a>(starts: &[&'a str], ends: &[&'a str], calls: &[&'a str]) -> Vec<&'a str> {
    let mut list: Vec<&'a str> = ends.iter().chain(starts).copied().collect();
    for c in calls {
        if !c.is_empty() && !list.contains(c) {
            list.push(c);
        }
    }
    list
}

fn generate(formats: &[Value]) -> Result<String, String> {
    let mut names = Vec::new();
    let mut specs = String::new();
    let mut registry = String::new();
    let mut ctors = String::new();
    let mut statics = String::new();
    for (k, entry) in formats.iter().enumerate() {
        let e = entry
            .as_object()
            .ok_or_else(|| format!("entry {k} is not an object"))?;
        let name = string(e, "name", k)?;
        let family = string(e, "family", k)?;
        let id_style = string(e, "id_style", k)?;
        if !matches!(id_style, "chatcmpl" | "mistral" | "model") {
            return Err(format!("{name}: unknown id_style {id_style:?}"));
        }
        let aliases = strings(e, "aliases", name)?;
        names.push((name, aliases.clone()));
        if let Some(n) = spec_check::duplicate(&names) {
            return Err(format!("{name}: name or alias {n:?} is given twice"));
        }
        let markers = e
            .get("markers")
            .and_then(Value::as_object)
            .ok_or_else(|| format!("{name}: no \"markers\" object"))?;
        let mut pairs = Vec::new();
        for (key, v) in markers {
            let v = v
                .as_str()
                .ok_or_else(|| format!("{name}: marker {key:?} is not a string"))?;
            pairs.push(format!("({key:?}, {v:?})"));
        }
        let marker = |key: &str| markers.get(key).and_then(Value::as_str);
        writeln!(
            specs,
            "    Spec {{ name: {name:?}, family: {family:?}, id_style: {id_style:?}, \
             aliases: &{aliases:?}, markers: &[{}], special_tokens: &{:?}, models: &{:?}, \
             turn_end: {:?}, dropped: &{:?}, default_reasoning: {:?}, span_markup: {} }},",
            pairs.join(", "),
            strings(e, "special_tokens", name)?,
            strings(e, "models", name)?,
            optional_string(e, "turn_end", name)?,
            optional_strings(e, "dropped", name)?,
            optional_string(e, "default_reasoning", name)?,
            span_markup(e, name)?,
        )
        .map_err(|e| e.to_string())?;
        let ctor = format!("ctor_{k}");
        let upper: String = name
            .chars()
            .map(|c| {
                if c.is_ascii_alphanumeric() {
                    c.to_ascii_uppercase()
                } else {
                    '_'
                }
            })
            .collect();
        writeln!(registry, "    ({name:?}, {ctor}),").map_err(|e| e.to_string())?;
        let body = match family {
            "tagged_json" => {
                // The end markers (`call_end`, `call_end_2`, ...), then the start markers
                // (`call_start`, `call_start_2`, ...).
                let roles = |prefix: &str| -> Vec<(&str, &str)> {
                    let mut v: Vec<(&str, &str)> = markers
                        .iter()
                        .filter(|(r, _)| *r == prefix || r.starts_with(&format!("{prefix}_")))
                        .filter_map(|(r, v)| Some((r.as_str(), v.as_str()?)))
                        .collect();
                    v.sort_unstable();
                    v
                };
                let (ends, starts) = (roles("call_end"), roles("call_start"));
                if starts.is_empty() {
                    return Err(format!("{name}: no call_start"));
                }
                let list: Vec<&str> = ends.iter().chain(&starts).map(|(_, v)| *v).collect();
                let call = e.get("call").and_then(Value::as_object);
                let shape = call.and_then(|c| c.get("shape")).and_then(Value::as_str);
                let keys = |key: &str| -> Result<Vec<&str>, String> {
                    call.map(|c| strings(c, key, name))
                        .unwrap_or_else(|| Err(format!("{name}: no \"call\" object")))
                };
                let tentative = call.and_then(|c| c.get("tentative")) == Some(&Value::Bool(true));
                let strings_ok = e.get("arguments").and_then(Value::as_str)
                    == Some("json_object_or_json_string");
                let by_name = call.and_then(|c| c.get("keyed_by_name")) == Some(&Value::Bool(true));
                // Plain text is scanned for the start markers, then the content's wrappers.
                let mut text: Vec<&str> = starts.iter().map(|(_, v)| *v).collect();
                text.extend(["text_start", "text_end"].iter().filter_map(|r| marker(r)));
                // A list, an object, or a name and its arguments (mistral): the optional
                // separator before the arguments, then the call-id marker.
                let forms = shape == Some("list_or_name_then_args");
                let args: Vec<&str> = marker("args_start").into_iter().collect();
                if forms && args.is_empty() {
                    return Err(format!("{name}: no args_start"));
                }
                let mut after_name = args.clone();
                after_name.extend(marker("call_id"));
                writeln!(
                    statics,
                    "pub(crate) static {upper}_TAGS: tagged_json::Tags = tagged_json::Tags {{ \
                     markers: Markers::new(&{list:?}), ends: {}, array: {}, \
                     keys: crate::json::CallKeys {{ name: &{:?}, args: &{:?}, strings: {strings_ok}, \
                     by_name: {by_name}, id: &{:?} }}, tentative: {tentative}, \
                     text: Markers::new(&{text:?}), forms: {forms}, args: Markers::new(&{args:?}), \
                     after_name: Markers::new(&{after_name:?}) }};",
                    ends.len(),
                    shape == Some("array"),
                    keys("name_keys")?,
                    keys("args_keys")?,
                    call.and_then(|c| c.get("id_keys"))
                        .map(|_| keys("id_keys"))
                        .transpose()?
                        .unwrap_or_default(),
                )
                .map_err(|e| e.to_string())?;
                format!("Box::new(tagged_json::TaggedJson::new(&{upper}_TAGS))")
            }
            "pythonic" => {
                let start = marker("section_start");
                let end = marker("section_end");
                let mut triggers: Vec<&str> = start.into_iter().collect();
                triggers.extend(marker("list_start"));
                if triggers.is_empty() {
                    return Err(format!(
                        "{name}: a pythonic format needs a section or list start"
                    ));
                }
                let calls = string(e, "calls", k)?;
                writeln!(
                    statics,
                    "pub(crate) static {upper}_STYLE: pythonic::Style = pythonic::Style {{ \
                     triggers: Markers::new(&{triggers:?}), start: {start:?}, \
                     end: {}, list: {} }};",
                    match end {
                        Some(m) => format!("Some(Markers::new(&[{m:?}]))"),
                        None => "None".to_owned(),
                    },
                    calls == "list"
                )
                .map_err(|e| e.to_string())?;
                format!("Box::new(pythonic::Pythonic::new(&{upper}_STYLE))")
            }
            "named_json" => {
                let need = |key: &str| marker(key).ok_or_else(|| format!("{name}: no {key}"));
                let mut starts = vec![need("section_start")?];
                starts.extend(marker("section_start_alt"));
                let mut ends = vec![need("section_end")?];
                ends.extend(marker("section_end_alt"));
                let (cs, ce) = (need("call_start")?, need("call_end")?);
                let mut seps: Vec<&str> = marker("name_start").into_iter().collect();
                seps.push(need("args_start")?);
                let fields: Vec<String> = seps
                    .iter()
                    .map(|s| format!("Markers::new(&{:?})", [&[*s, cs, ce][..], &ends].concat()))
                    .collect();
                let between = [&[cs][..], &ends].concat();
                let fence = marker("args_end");
                let mut close = vec![ce, cs];
                close.extend(fence);
                close.extend(&ends);
                let call = e.get("call").and_then(Value::as_object);
                let drop_between = match call.and_then(|c| c.get("between_calls")) {
                    None => false,
                    Some(v) => match v.as_str() {
                        Some("whitespace") => false,
                        Some("dropped") => true,
                        _ => return Err(format!("{name}: call.between_calls {v}")),
                    },
                };
                writeln!(
                    statics,
                    "pub(crate) static {upper}_STYLE: named_json::Style = named_json::Style {{ \
                     section: Markers::new(&{starts:?}), between: Markers::new(&{between:?}), \
                     fields: &[{}], close: Markers::new(&{close:?}), fence: {}, id: {}, \
                     drop_between: {drop_between} }};",
                    fields.join(", "),
                    fence.is_some(),
                    id_style == "model"
                )
                .map_err(|e| e.to_string())?;
                format!("Box::new(named_json::NamedJson::new(&{upper}_STYLE, tools))")
            }
            // muse: headers and recipients around ATEM calls, which are XML parameters.
            // beam (openai family): harmony messages whose tool bodies are XML parameters.
            "xml_params" | "muse" | "openai"
                if family != "openai" || marker("parameter_start").is_some() =>
            {
                let need = |role: &str| marker(role).ok_or_else(|| format!("{name}: no {role}"));
                let section = marker("call_start");
                let section_end = marker("call_end");
                // Other spellings of the section start (`call_start_2`, `call_start_3`, ...).
                let mut sections: Vec<&str> = section.into_iter().collect();
                let mut alts: Vec<(&str, &str)> = markers
                    .iter()
                    .filter(|(r, _)| r.starts_with("call_start_"))
                    .filter_map(|(r, v)| Some((r.as_str(), v.as_str()?)))
                    .collect();
                alts.sort_unstable();
                if section.is_none() && !alts.is_empty() {
                    return Err(format!("{name}: call_start_N without call_start"));
                }
                sections.extend(alts.iter().map(|(_, v)| *v));
                let function = need("function_start")?;
                // Another spelling of the function start (step3 without `function<｜tool_sep｜>`).
                let mut functions = vec![function];
                functions.extend(marker("function_start_alt"));
                // The start of the function start after which the name may stand repeated
                // (step3's `<｜tool_call_begin｜>function<｜tool_sep｜>NAME\n<steptml:invoke ...`),
                // and the rest of the function start (its tag).
                let lead = marker("function_lead");
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
                // Markup that may stand between calls (step3's `<｜tool_sep｜>`).
                let call_sep = marker("call_sep");
                // A section may hold one JSON call object instead of functions (dots).
                let json_call = match e.get("call").and_then(Value::as_object) {
                    Some(c) if c.contains_key("name_keys") => format!(
                        "Some(crate::json::CallKeys {{ name: &{:?}, args: &{:?}, strings: false, \
                         by_name: false, id: &[] }})",
                        strings(c, "name_keys", name)?,
                        strings(c, "args_keys", name)?
                    ),
                    _ => "None".to_owned(),
                };
                let function_end = need("function_end")?;
                let param = need("parameter_start")?;
                let param_end = need("parameter_end")?;
                let name_end = match need("function_name_end")? {
                    "\n" => "Line".to_owned(),
                    // A tag must start with a character that ends a name.
                    tag if tag.starts_with(['>', '<', '{', '}', '"', '\'', ' ', '\t', '\r']) => {
                        format!("Tag({tag:?})")
                    }
                    other => return Err(format!("{name}: function_name_end {other:?}")),
                };
                let call = e.get("call").and_then(Value::as_object);
                let switch = |key: &str| call.and_then(|c| c.get(key)).and_then(Value::as_str);
                let strip = match switch("value_newlines") {
                    Some("strip_one") => true,
                    Some("keep") => false,
                    other => return Err(format!("{name}: call.value_newlines {other:?}")),
                };
                let many = match switch("calls_per_section") {
                    Some("many") => true,
                    Some("one") => false,
                    other => return Err(format!("{name}: call.calls_per_section {other:?}")),
                };
                let mut text: Vec<&str> = sections.clone();
                // A bare function starts a call too, unless the section is required (kimi_k3).
                let required =
                    call.and_then(|c| c.get("section_required")) == Some(&Value::Bool(true));
                if required && sections.is_empty() {
                    return Err(format!("{name}: call.section_required without call_start"));
                }
                if !required {
                    text.extend(&functions);
                }
                // Then the content's wrappers (kimi_k3's channel markers: dropped).
                let wrappers: Vec<&str> = ["text_start", "text_end", "text_end_2"]
                    .iter()
                    .filter_map(|r| marker(r))
                    .collect();
                text.extend(&wrappers);
                let unescape =
                    call.and_then(|c| c.get("unescape_attributes")) == Some(&Value::Bool(true));
                let mut body = vec![param, function_end];
                body.extend(section_end);
                let head = need("parameter_name_end")?;
                let string_attr = marker("parameter_string").is_some();
                let mut heads = Vec::new();
                // The heads that make a string (`parameter_string`, `parameter_string_2`, ...),
                // then those that make JSON (`parameter_json`, `parameter_json_2`, ...).
                let spellings = |role: &str| -> Vec<&str> {
                    let mut v: Vec<(&str, &str)> = markers
                        .iter()
                        .filter(|(r, _)| r.starts_with(&format!("{role}_")))
                        .filter_map(|(r, v)| Some((r.as_str(), v.as_str()?)))
                        .collect();
                    v.sort_unstable();
                    v.into_iter().map(|(_, v)| v).collect()
                };
                if string_attr {
                    heads.push(need("parameter_string")?);
                    heads.extend(spellings("parameter_string"));
                }
                let strings = heads.len();
                if string_attr {
                    heads.push(need("parameter_json")?);
                    heads.extend(spellings("parameter_json"));
                }
                if !heads.contains(&head) {
                    heads.push(head);
                }
                let value: Vec<String> = if strip {
                    vec![
                        param_end.to_owned(),
                        format!("\n{param_end}"),
                        format!("\n{param}"),
                        format!("\n{function_end}"),
                    ]
                } else {
                    vec![param_end.to_owned()]
                };
                let item_end = marker("item_end");
                let typing = match e.get("arguments").and_then(Value::as_str) {
                    Some("xml_parameters_json_or_string") => "Json",
                    Some("xml_parameters_json_unless_schema_string") => "JsonUnlessString",
                    _ => "Schema",
                };
                let doubled = switch("doubled_names") == Some("collapse");
                // A value written as `<![CDATA[...]]>` is unwrapped (minicpm5).
                let cdata = call.and_then(|c| c.get("cdata")) == Some(&Value::Bool(true));
                let mut end: Vec<&str> = section_end.into_iter().collect();
                end.extend(item_end);
                end.extend(call_sep);
                if many {
                    end.extend(&functions);
                }
                writeln!(
                    statics,
                    "pub(crate) static {upper}_STYLE: xml_params::Style = xml_params::Style {{ \
                     text: Markers::new(&{text:?}), sections: {}, function: Markers::new(&{functions:?}), \
                     name_end: xml_params::NameEnd::{name_end}, self_close: {:?}, body: Markers::new(&{body:?}), \
                     quoted: {}, heads: Markers::new(&{heads:?}), string_attr: {string_attr}, \
                     strings: {strings}, attrs_end: {}, wrappers: {}, unescape: {unescape}, \
                     value_start: {}, value_type_end: {}, value: Markers::new(&{value:?}), strip: {strip}, \
                     after_function: Markers::new(&[{:?}]), end: Markers::new(&{end:?}), \
                     item_end: {item_end:?}, call_sep: {call_sep:?}, lead: {lead:?}, lead_tag: {}, json: {json_call}, \
                     typing: xml_params::Typing::{typing}, \
                     doubled_names: {doubled}, cdata: {cdata} }};",
                    sections.len(),
                    marker("function_self_close"),
                    head.starts_with('"'),
                    match marker("function_attrs_end") {
                        Some(m) => format!("Some(Markers::new(&[{m:?}]))"),
                        None => "None".to_owned(),
                    },
                    wrappers.len(),
                    match (marker("value_start"), marker("value_type_start")) {
                        (Some(m), Some(t)) => format!("Some(Markers::new(&[{m:?}, {t:?}]))"),
                        (Some(m), None) => format!("Some(Markers::new(&[{m:?}]))"),
                        (None, None) => "None".to_owned(),
                        (None, Some(_)) => {
                            return Err(format!("{name}: value_type_start without value_start"))
                        }
                    },
                    match (marker("value_type_start"), marker("value_type_end")) {
                        (Some(_), Some(m)) => format!("Some(Markers::new(&[{m:?}]))"),
                        (None, None) => "None".to_owned(),
                        _ => return Err(format!("{name}: value_type_start and value_type_end go together")),
                    },
                    section_end.unwrap_or(function_end),
                    match lead_tag {
                        Some(t) => format!("Some(Markers::new(&[{t:?}]))"),
                        None => "None".to_owned(),
                    },
                )
                .map_err(|e| e.to_string())?;
                if family == "xml_params" {
                    format!("xml_params::new(&{upper}_STYLE, tools)")
                } else if family == "openai" {
                    harmony_frame(
                        &mut statics,
                        e,
                        name,
                        &upper,
                        Some(&format!("&{upper}_STYLE")),
                    )?
                } else {
                    let frame = ["start", "message", "end", "end_turn"]
                        .map(need)
                        .into_iter()
                        .collect::<Result<Vec<_>, _>>()?;
                    let recipients = call
                        .and_then(|c| c.get("recipients"))
                        .and_then(Value::as_object)
                        .ok_or_else(|| format!("{name}: no call.recipients"))?;
                    writeln!(
                        statics,
                        "pub(crate) static {upper}_FRAME: muse::Frame = muse::Frame {{ \
                         markers: Markers::new(&{frame:?}), role: {:?}, reasoning: &{:?}, \
                         content: &{:?}, atem: &{upper}_STYLE }};",
                        switch("role").ok_or_else(|| format!("{name}: no call.role"))?,
                        self::strings(recipients, "reasoning", name)?,
                        self::strings(recipients, "content", name)?,
                    )
                    .map_err(|e| e.to_string())?;
                    format!("muse::new(&{upper}_FRAME, tools)")
                }
            }
            "xml_elements" => {
                let need = |role: &str| marker(role).ok_or_else(|| format!("{name}: no {role}"));
                let ns = need("namespace")?;
                let (start, end) = (need("call_start")?, need("call_end")?);
                let (invoke, invoke_end) = (need("invoke_start")?, need("invoke_end")?);
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
                format!("xml_elements::new(&{upper}_STYLE, tools)")
            }
            "inkling" => {
                // Header and content scan for every marker; a thinking block for its own
                // opener, the call opener and the end markers (see `formats/inkling.rs`).
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
                    .map(|r| marker(r).ok_or_else(|| format!("{name}: no {r}")))
                    .collect::<Result<Vec<_>, _>>()?;
                let call = e
                    .get("call")
                    .and_then(Value::as_object)
                    .ok_or_else(|| format!("{name}: no \"call\" object"))?;
                writeln!(
                    statics,
                    "pub(crate) static {upper}_STYLE: inkling::Style = inkling::Style {{ \
                     blocks: Markers::new(&{blocks:?}), thinking: Markers::new(&{:?}), \
                     keys: crate::json::CallKeys {{ name: &{:?}, args: &{:?}, strings: {}, \
                     by_name: false, id: &[] }} }};",
                    &blocks[4..],
                    strings(call, "name_keys", name)?,
                    strings(call, "args_keys", name)?,
                    e.get("arguments").and_then(Value::as_str)
                        == Some("json_object_or_json_string"),
                )
                .map_err(|e| e.to_string())?;
                format!("Box::new(inkling::Inkling::new(&{upper}_STYLE))")
            }
            "openai" => harmony_frame(&mut statics, e, name, &upper, None)?,
            "llama3_json" => format!("{family}::new(tools)"),
            "functiongemma" => {
                let need = |key: &str| marker(key).ok_or_else(|| format!("{name}: no {key}"));
                writeln!(
                    statics,
                    "pub(crate) static {upper}_STYLE: functiongemma::Style = functiongemma::Style {{ \
                     start: Markers::new(&[{:?}]), prefix: {:?}, escape: Markers::new(&[{:?}]), \
                     end: Markers::new(&[{:?}]), escaped_strings: {}, key_spaces: {} }};",
                    need("call_start")?,
                    need("name_start")?,
                    need("string")?,
                    need("call_end")?,
                    match e.get("call").and_then(|c| c.get("escaped")).and_then(Value::as_str) {
                        None | Some("typed") => false,
                        Some("string") => true,
                        Some(other) => return Err(format!("{name}: call.escaped {other:?}")),
                    },
                    match e.get("call").and_then(|c| c.get("key_spaces")) {
                        None => false,
                        Some(v) => v
                            .as_bool()
                            .ok_or_else(|| format!("{name}: call.key_spaces must be a bool"))?,
                    }
                )
                .map_err(|e| e.to_string())?;
                format!("Box::new(functiongemma::FunctionGemma::new(&{upper}_STYLE, tools))")
            }
            "functionary" => functionary_style(&mut statics, e, name, &upper)?,
            other => return Err(format!("{name}: unknown family {other:?}")),
        };
        writeln!(
            ctors,
            "#[allow(unused_variables)]\nfn {ctor}(tools: &Tools) -> Box<dyn Machine> {{\n    {body}\n}}\n"
        )
        .map_err(|e| e.to_string())?;
    }
    Ok(format!(
        "// Generated by build.rs from {SPEC}; do not edit.\n\n\
         /// Every format's spec entry, in the spec's order (the registry's order too).\n\
         pub static SPECS: &[Spec] = &[\n{specs}];\n\n\
         /// Every format: its name and how to build its machine (from its spec entry).\n\
         const REGISTRY: &[(&str, Ctor)] = &[\n{registry}];\n\n{statics}\n{ctors}"
    ))
}

/// The style of a `functionary` family entry (the twin of `reference/functionary.py`'s
/// `style_of`), written into `statics`; returns the constructor's body.
fn functionary_style(
    statics: &mut String,
    e: &Map<String, Value>,
    name: &str,
    upper: &str,
) -> Result<String, String> {
    let markers = e.get("markers").and_then(Value::as_object);
    let marker = |key: &str| markers.and_then(|m| m.get(key)).and_then(Value::as_str);
    let need = |key: &str| marker(key).ok_or_else(|| format!("{name}: no {key}"));
    let call = e
        .get("call")
        .and_then(Value::as_object)
        .ok_or_else(|| format!("{name}: no \"call\" object"))?;
    let raw = call
        .get("raw_code")
        .and_then(Value::as_object)
        .ok_or_else(|| format!("{name}: no call.raw_code object"))?;
    let raw_field = |key: &str| {
        raw.get(key)
            .and_then(Value::as_str)
            .filter(|s| !s.is_empty())
            .ok_or_else(|| format!("{name}: call.raw_code.{key} must be a non-empty string"))
    };
    let (call_start, raw_marker) = (need("call_start")?, marker("call_start_raw"));
    let raw_by_header = match raw_field("start")? {
        "marker" if raw_marker.is_some() => false,
        "header" => true,
        other => return Err(format!("{name}: call.raw_code.start {other:?}")),
    };
    let flag = |key: &str| match call.get(key) {
        None => Ok(false),
        Some(v) => v
            .as_bool()
            .ok_or_else(|| format!("{name}: call.{key} must be a bool")),
    };
    let loose = match call.get("bad_header").and_then(Value::as_str) {
        Some("text") => true,
        Some("malformed") => false,
        other => return Err(format!("{name}: call.bad_header {other:?}")),
    };
    let recipient = match call.get("content_recipient") {
        None => None,
        Some(v) => Some(
            v.as_str()
                .filter(|s| !s.is_empty())
                .ok_or_else(|| format!("{name}: call.content_recipient must be a string"))?,
        ),
    };
    let mut text = vec![call_start];
    text.extend(raw_marker);
    writeln!(
        statics,
        "pub(crate) static {upper}_STYLE: functionary::Style = functionary::Style {{ \
         text: Markers::new(&{text:?}), call_start: {call_start:?}, name_end: {:?}, \
         call_end: {}, raw_name: {:?}, raw_key: {:?}, raw_by_header: {raw_by_header}, \
         content_recipient: {recipient:?}, starts_with_header: {}, loose_headers: {loose} }};",
        need("name_end")?,
        match marker("call_end") {
            Some(m) => format!("Some(Markers::new(&[{m:?}]))"),
            None => "None".to_owned(),
        },
        raw_field("name")?,
        raw_field("key")?,
        flag("starts_with_header")?,
    )
    .map_err(|e| e.to_string())?;
    Ok(format!(
        "Box::new(functionary::Functionary::new(&{upper}_STYLE, tools))"
    ))
}

fn string<'a>(e: &'a Map<String, Value>, key: &str, k: usize) -> Result<&'a str, String> {
    e.get(key)
        .and_then(Value::as_str)
        .filter(|s| !s.is_empty())
        .ok_or_else(|| format!("entry {k}: {key:?} is missing or not a non-empty string"))
}

/// A non-empty string that may be absent (empty then).
fn optional_string<'a>(
    e: &'a Map<String, Value>,
    key: &str,
    name: &str,
) -> Result<&'a str, String> {
    match e.get(key) {
        None => Ok(""),
        Some(v) => v
            .as_str()
            .filter(|s| !s.is_empty())
            .ok_or_else(|| format!("{name}: {key:?} must be a non-empty string")),
    }
}

/// A list of non-empty strings that may be absent (empty then).
fn optional_strings<'a>(
    e: &'a Map<String, Value>,
    key: &str,
    name: &str,
) -> Result<Vec<&'a str>, String> {
    if e.get(key).is_none() {
        return Ok(Vec::new());
    }
    let list = strings(e, key, name)?;
    if list.iter().any(|s| s.is_empty()) {
        return Err(format!("{name}: {key:?} holds an empty string"));
    }
    Ok(list)
}

/// The frame of an `openai` family entry (the twin of `reference/openai.py`'s `frame_of`), written
/// to `statics`; returns the expression that builds its machine.
fn harmony_frame(
    statics: &mut String,
    e: &Map<String, Value>,
    name: &str,
    upper: &str,
    xml: Option<&str>,
) -> Result<String, String> {
    let call = e.get("call").and_then(Value::as_object);
    let switch = |key: &str| call.and_then(|c| c.get(key)).and_then(Value::as_str);
    let prefix = switch("name_prefix").unwrap_or("functions.");
    let join = match switch("reasoning_join") {
        None | Some("\n") => "\n",
        Some("") => "",
        Some(other) => return Err(format!("{name}: call.reasoning_join {other:?}")),
    };
    writeln!(
        statics,
        "pub(crate) static {upper}_FRAME: openai::Frame = openai::Frame {{ \
         prefix: {prefix:?}, xml: {}, join: {join:?} }};",
        match xml {
            Some(x) => format!("Some({x})"),
            None => "None".to_owned(),
        }
    )
    .map_err(|e| e.to_string())?;
    Ok(format!("openai::new(&{upper}_FRAME, tools)"))
}

fn strings<'a>(e: &'a Map<String, Value>, key: &str, name: &str) -> Result<Vec<&'a str>, String> {
    let list = e
        .get(key)
        .and_then(Value::as_array)
        .ok_or_else(|| format!("{name}: {key:?} is missing or not a list"))?;
    list.iter()
        .map(|v| {
            v.as_str()
                .ok_or_else(|| format!("{name}: {key:?} holds a non-string"))
        })
        .collect()
}

/// A format's optional `span_markup` (`{"open", "close_start", "close_end", "max"}`) as a
/// `Option<SpanRule>` expression.
fn span_markup(e: &Map<String, Value>, name: &str) -> Result<String, String> {
    let Some(v) = e.get("span_markup") else {
        return Ok("None".to_owned());
    };
    let o = v
        .as_object()
        .ok_or_else(|| format!("{name}: \"span_markup\" must be an object"))?;
    let mut parts = Vec::new();
    for key in ["open", "close_start", "close_end"] {
        let s = o
            .get(key)
            .and_then(Value::as_str)
            .filter(|s| !s.is_empty())
            .ok_or_else(|| format!("{name}: span_markup.{key} must be a non-empty string"))?;
        parts.push(format!("{key}: {s:?}"));
    }
    let max = o
        .get("max")
        .and_then(Value::as_u64)
        .filter(|&m| m > 0)
        .ok_or_else(|| format!("{name}: span_markup.max must be a positive integer"))?;
    Ok(format!(
        "Some(crate::event::SpanRule {{ {}, max: {max} }})",
        parts.join(", ")
    ))
}
