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
                writeln!(
                    statics,
                    "pub(crate) static {upper}_STYLE: named_json::Style = named_json::Style {{ \
                     section: Markers::new(&{starts:?}), between: Markers::new(&{between:?}), \
                     fields: &[{}], close: Markers::new(&{close:?}), fence: {}, id: {} }};",
                    fields.join(", "),
                    fence.is_some(),
                    id_style == "model"
                )
                .map_err(|e| e.to_string())?;
                format!("Box::new(named_json::NamedJson::new(&{upper}_STYLE, tools))")
            }
            "functiongemma" => {
                let need = |key: &str| marker(key).ok_or_else(|| format!("{name}: no {key}"));
                writeln!(
                    statics,
                    "pub(crate) static {upper}_STYLE: functiongemma::Style = functiongemma::Style {{ \
                     start: Markers::new(&[{:?}]), prefix: {:?}, escape: Markers::new(&[{:?}]), \
                     end: Markers::new(&[{:?}]) }};",
                    need("call_start")?,
                    need("name_start")?,
                    need("string")?,
                    need("call_end")?
                )
                .map_err(|e| e.to_string())?;
                format!("Box::new(functiongemma::FunctionGemma::new(&{upper}_STYLE, tools))")
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
