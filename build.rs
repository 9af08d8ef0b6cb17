//! Reads the format spec (`python/toolparse/formats.json`, the file Python reads at import) and
//! generates the Rust registry from it: a const table of specs and one constructor per format,
//! included by `rust/formats/mod.rs`. Nothing is read at run time.

// A build script fails by panicking, with the reason.
#![allow(clippy::expect_used)]

use std::env;
use std::fmt::Write as _;
use std::fs;
use std::path::Path;

use serde_json::{Map, Value};

#[path = "rust/formats/spec_check.rs"]
mod spec_check;

const SPEC: &str = "python/toolparse/formats.json";

fn main() {
    println!("cargo:rerun-if-changed={SPEC}");
    println!("cargo:rerun-if-changed=build.rs");
    let root = env::var("CARGO_MANIFEST_DIR").expect("CARGO_MANIFEST_DIR");
    let text =
        fs::read_to_string(Path::new(&root).join(SPEC)).unwrap_or_else(|e| panic!("{SPEC}: {e}"));
    let spec: Value = serde_json::from_str(&text).unwrap_or_else(|e| panic!("{SPEC}: {e}"));
    let formats = spec
        .get("formats")
        .and_then(Value::as_array)
        .unwrap_or_else(|| panic!("{SPEC}: no \"formats\" list"));
    let code = generate(formats).unwrap_or_else(|e| panic!("{SPEC}: {e}"));
    let out = Path::new(&env::var("OUT_DIR").expect("OUT_DIR")).join("formats.rs");
    fs::write(&out, code).unwrap_or_else(|e| panic!("{}: {e}", out.display()));
    let reasoning = spec
        .get("reasoning")
        .and_then(Value::as_array)
        .unwrap_or_else(|| panic!("{SPEC}: no \"reasoning\" list"));
    let code = generate_reasoning(reasoning, formats).unwrap_or_else(|e| panic!("{SPEC}: {e}"));
    let out = Path::new(&env::var("OUT_DIR").expect("OUT_DIR")).join("reasoning.rs");
    fs::write(&out, code).unwrap_or_else(|e| panic!("{}: {e}", out.display()));
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
                 started: false, call_starts: &[], tool_format: Some({t:?}), scan: &[] }},"
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
        let mut scan = Vec::new();
        let own: Vec<&str> = if call_ends {
            call_starts.clone()
        } else {
            Vec::new()
        };
        scan.push(scan_list(start, end, &own));
        for f in formats {
            let mut calls = Vec::new();
            if call_ends {
                for role in ["call_start", "section_start"] {
                    if let Some(m) = f
                        .get("markers")
                        .and_then(|m| m.get(role))
                        .and_then(Value::as_str)
                    {
                        calls.push(m);
                    }
                }
            }
            scan.push(scan_list(start, end, &calls));
        }
        let scan: Vec<String> = scan.iter().map(|l| format!("&{l:?}")).collect();
        writeln!(
            table,
            "    ReasoningSpec {{ name: {name:?}, aliases: &{aliases:?}, start: {start:?}, \
             end: {end:?}, started: {started}, call_starts: &{call_starts:?}, tool_format: None, \
             scan: &[{}] }},",
            scan.join(", ")
        )
        .map_err(|e| e.to_string())?;
    }
    Ok(format!(
        "// Generated by build.rs from {SPEC}; do not edit.\n\n\
         /// Every reasoning format's spec entry, in the spec's order.\n\
         pub static REASONING: &[ReasoningSpec] = &[\n{table}];\n"
    ))
}

/// `[end, start, call starts...]`, without empty or repeated markers.
fn scan_list<'a>(start: &'a str, end: &'a str, calls: &[&'a str]) -> Vec<&'a str> {
    let mut list = vec![end, start];
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
             aliases: &{aliases:?}, markers: &[{}], special_tokens: &{:?}, models: &{:?} }},",
            pairs.join(", "),
            strings(e, "special_tokens", name)?,
            strings(e, "models", name)?,
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
                let start = marker("call_start").ok_or_else(|| format!("{name}: no call_start"))?;
                let mut list = vec![start];
                list.extend(marker("call_end"));
                let shape = e
                    .get("call")
                    .and_then(|c| c.get("shape"))
                    .and_then(Value::as_str);
                writeln!(
                    statics,
                    "pub(crate) static {upper}_TAGS: tagged_json::Tags = tagged_json::Tags {{ \
                     markers: Markers::new(&{list:?}), array: {} }};",
                    shape == Some("array")
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
            "llama3_json" | "mistral" | "openai" | "qwen3_coder" => format!("{family}::new(tools)"),
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

fn string<'a>(e: &'a Map<String, Value>, key: &str, k: usize) -> Result<&'a str, String> {
    e.get(key)
        .and_then(Value::as_str)
        .filter(|s| !s.is_empty())
        .ok_or_else(|| format!("entry {k}: {key:?} is missing or not a non-empty string"))
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
