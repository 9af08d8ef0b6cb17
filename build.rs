//! Reads the format spec (`python/toolparse/formats/`: one `<name>.json` per format and
//! `_reasoning.json`, the files Python reads at import) through its typed reader
//! (`build/spec.rs`) and generates the Rust registry from it: a const table of specs and one
//! constructor per format (its machine's configuration written by its family's generator,
//! `build/families.rs`), included by `rust/formats/mod.rs`. Nothing is read at run time.

// A build script fails by panicking, with the reason.
#![allow(clippy::expect_used)]

use std::env;
use std::fmt::Write as _;
use std::fs;
use std::path::Path;

#[path = "build/families.rs"]
mod families;
#[path = "build/spec.rs"]
mod spec;
#[path = "rust/formats/spec_check.rs"]
mod spec_check;

use spec::{optional, optional_list, strs, Entry, FormatFile, Reasoning, SpanMarkup};

const SPEC: &str = "python/toolparse/formats";
const REASONING_FILE: &str = "_reasoning.json";

fn main() {
    // a directory: cargo reruns when any file in it changes
    println!("cargo:rerun-if-changed={SPEC}");
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-changed=build");
    let root = env::var("CARGO_MANIFEST_DIR").expect("CARGO_MANIFEST_DIR");
    let dir = Path::new(&root).join(SPEC);
    let formats = read_formats(&dir).unwrap_or_else(|e| panic!("{SPEC}: {e}"));
    let code = generate(&formats).unwrap_or_else(|e| panic!("{SPEC}: {e}"));
    let out = Path::new(&env::var("OUT_DIR").expect("OUT_DIR")).join("formats.rs");
    fs::write(&out, code).unwrap_or_else(|e| panic!("{}: {e}", out.display()));
    let path = dir.join(REASONING_FILE);
    let text = fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let reasoning: Vec<Reasoning> =
        serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let code = generate_reasoning(&reasoning, &formats).unwrap_or_else(|e| panic!("{SPEC}: {e}"));
    let out = Path::new(&env::var("OUT_DIR").expect("OUT_DIR")).join("reasoning.rs");
    fs::write(&out, code).unwrap_or_else(|e| panic!("{}: {e}", out.display()));
}

/// The spec entries of the format files (`<name>.json`; a name starting with `_` is not a
/// format), in the order of their names, as `toolparse.spec` reads them.
fn read_formats(dir: &Path) -> Result<Vec<Entry>, String> {
    let mut paths = Vec::new();
    for item in fs::read_dir(dir).map_err(|e| e.to_string())? {
        let path = item.map_err(|e| e.to_string())?.path();
        let stem = path
            .file_stem()
            .and_then(|s| s.to_str())
            .unwrap_or_default();
        if path.extension().is_some_and(|x| x == "json") && !stem.starts_with('_') {
            paths.push((stem.to_owned(), path));
        }
    }
    paths.sort();
    let mut formats = Vec::new();
    for (stem, path) in paths {
        let text = fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
        let file: FormatFile =
            serde_json::from_str(&text).map_err(|e| format!("{stem}.json: {e}"))?;
        if file.spec.name != stem {
            return Err(format!(
                "{stem}.json: its spec entry is named {:?}",
                file.spec.name
            ));
        }
        formats.push(file.spec);
    }
    Ok(formats)
}

/// The REASONING table: one `ReasoningSpec` per entry of `_reasoning.json`, with what its front
/// scans for inside a block when paired with each tool format (none first).
fn generate_reasoning(entries: &[Reasoning], formats: &[Entry]) -> Result<String, String> {
    let mut names: Vec<(&str, Vec<&str>)> = Vec::new();
    let mut table = String::new();
    for e in entries {
        let name = e.name.as_str();
        if name.is_empty() {
            return Err("a reasoning entry without a name".to_owned());
        }
        let aliases = strs(&e.aliases);
        names.push((name, aliases.clone()));
        if let Some(n) = spec_check::duplicate(&names) {
            return Err(format!(
                "reasoning {name}: name or alias {n:?} is given twice"
            ));
        }
        if let Some(t) = &e.tool_format {
            if !formats.iter().any(|f| &f.name == t) {
                return Err(format!("reasoning {name}: unknown tool_format {t:?}"));
            }
            writeln!(
                table,
                "    ReasoningSpec {{ name: {name:?}, aliases: &{aliases:?}, start: \"\", end: \"\", \
                 started: false, call_starts: &[], tool_format: Some({t:?}), scan: &[], \
                 ends: &[], starts: &[], trim: false, content_prefix: \"\", turn_end: \"\", \
                 off_when_disabled: false, content_end: \"\", content_lstrip: \"\", label: \"\", \
                 dropped: &[], stray_end_text: false, blocks_anywhere: false, span_markup: None }},"
            )
            .map_err(|e| e.to_string())?;
            continue;
        }
        table.push_str(&reasoning_row(e, formats)?);
    }
    for f in formats {
        if let Some(r) = &f.default_reasoning {
            if !names.iter().any(|(n, _)| n == r) {
                return Err(format!("{}: unknown default_reasoning {r:?}", f.name));
            }
        }
    }
    Ok(format!(
        "// Generated by build.rs from {SPEC}; do not edit.\n\n\
         /// Every reasoning format's spec entry, in the spec's order.\n\
         pub static REASONING: &[ReasoningSpec] = &[\n{table}];\n"
    ))
}

/// The `ReasoningSpec` of a reasoning format with its own markers.
fn reasoning_row(e: &Reasoning, formats: &[Entry]) -> Result<String, String> {
    let name = e.name.as_str();
    let need = |v: &Option<String>, key: &str| -> Result<String, String> {
        v.clone().filter(|s| !s.is_empty()).ok_or_else(|| {
            format!("reasoning {name}: {key:?} is missing or not a non-empty string")
        })
    };
    let start = need(&e.start, "start")?;
    let end = need(&e.end, "end")?;
    let started = e
        .started
        .ok_or_else(|| format!("reasoning {name}: \"started\" must be a bool"))?;
    if e.unclosed.as_deref() != Some("reasoning") {
        return Err(format!(
            "reasoning {name}: \"unclosed\" must be \"reasoning\""
        ));
    }
    let call_ends = e
        .call_ends_block
        .ok_or_else(|| format!("reasoning {name}: \"call_ends_block\" must be a bool"))?;
    let call_starts = strs(
        e.call_starts
            .as_deref()
            .ok_or_else(|| format!("reasoning {name}: \"call_starts\" is missing"))?,
    );
    let turn_end = optional(e.turn_end.as_ref(), "turn_end", name)?;
    let content_end = optional(e.content_end.as_ref(), "content_end", name)?;
    let content_lstrip = optional(e.content_lstrip.as_ref(), "content_lstrip", name)?;
    let label = optional(e.label.as_ref(), "label", name)?;
    let dropped = optional_list(e.dropped.as_ref(), "dropped", name)?;
    let mut ends = vec![end.as_str()];
    ends.extend(optional_list(e.also_end.as_ref(), "also_end", name)?);
    // the turn-end tag ends a block too
    if !turn_end.is_empty() && !ends.contains(&turn_end) {
        ends.push(turn_end);
    }
    let mut starts = vec![start.as_str()];
    starts.extend(optional_list(e.also_start.as_ref(), "also_start", name)?);
    let content_prefix = e.content_prefix.as_deref().unwrap_or_default();
    let own: Vec<&str> = if call_ends {
        call_starts.clone()
    } else {
        Vec::new()
    };
    let mut scan = vec![scan_list(&starts, &ends, &own)];
    for f in formats {
        let mut calls = Vec::new();
        if call_ends {
            // What a call of the format may begin with (an XML function may stand without its
            // wrapper; glm's calls have no other start).
            for role in ["call_start", "section_start", "function_start"] {
                calls.extend(f.marker(role));
            }
        }
        scan.push(scan_list(&starts, &ends, &calls));
    }
    let scan: Vec<String> = scan.iter().map(|l| format!("&{l:?}")).collect();
    Ok(format!(
        "    ReasoningSpec {{ name: {name:?}, aliases: &{:?}, start: {start:?}, \
         end: {end:?}, started: {started}, call_starts: &{call_starts:?}, tool_format: None, \
         scan: &[{}], ends: &{ends:?}, starts: &{starts:?}, trim: {}, \
         content_prefix: {content_prefix:?}, turn_end: {turn_end:?}, \
         off_when_disabled: {}, content_end: {content_end:?}, \
         content_lstrip: {content_lstrip:?}, label: {label:?}, dropped: &{dropped:?}, \
         stray_end_text: {}, blocks_anywhere: {}, span_markup: {} }},\n",
        e.aliases,
        scan.join(", "),
        e.trim,
        e.markers_off_when_disabled,
        e.stray_end_text,
        e.blocks_anywhere,
        span_markup(e.span_markup.as_ref(), name)?,
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

/// The SPECS table, the REGISTRY and each format's constructor.
fn generate(formats: &[Entry]) -> Result<String, String> {
    let mut names = Vec::new();
    let mut specs = String::new();
    let mut registry = String::new();
    let mut ctors = String::new();
    let mut statics = String::new();
    for (k, e) in formats.iter().enumerate() {
        let name = e.name.as_str();
        for (key, v) in [
            ("name", name),
            ("family", &e.family),
            ("id_style", &e.id_style),
        ] {
            if v.is_empty() {
                return Err(format!(
                    "entry {k}: {key:?} is missing or not a non-empty string"
                ));
            }
        }
        if !matches!(e.id_style.as_str(), "chatcmpl" | "mistral" | "model") {
            return Err(format!("{name}: unknown id_style {:?}", e.id_style));
        }
        names.push((name, strs(&e.aliases)));
        if let Some(n) = spec_check::duplicate(&names) {
            return Err(format!("{name}: name or alias {n:?} is given twice"));
        }
        let pairs: Vec<String> = e
            .markers
            .iter()
            .map(|(r, v)| format!("({r:?}, {v:?})"))
            .collect();
        writeln!(
            specs,
            "    Spec {{ name: {name:?}, family: {:?}, id_style: {:?}, \
             aliases: &{:?}, markers: &[{}], special_tokens: &{:?}, models: &{:?}, \
             turn_end: {:?}, dropped: &{:?}, default_reasoning: {:?}, span_markup: {} }},",
            e.family,
            e.id_style,
            e.aliases,
            pairs.join(", "),
            e.special_tokens,
            e.models,
            optional(e.turn_end.as_ref(), "turn_end", name)?,
            optional_list(e.dropped.as_ref(), "dropped", name)?,
            optional(e.default_reasoning.as_ref(), "default_reasoning", name)?,
            span_markup(e.span_markup.as_ref(), name)?,
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
        let body = families::machine(&mut statics, e, &upper)?;
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

/// A format's or reasoning format's optional `span_markup` as a `Option<SpanRule>` expression.
fn span_markup(span: Option<&SpanMarkup>, name: &str) -> Result<String, String> {
    let Some(s) = span else {
        return Ok("None".to_owned());
    };
    let mut parts = Vec::new();
    for (key, v) in [
        ("open", &s.open),
        ("close_start", &s.close_start),
        ("close_end", &s.close_end),
    ] {
        if v.is_empty() {
            return Err(format!(
                "{name}: span_markup.{key} must be a non-empty string"
            ));
        }
        parts.push(format!("{key}: {v:?}"));
    }
    if s.max == 0 {
        return Err(format!(
            "{name}: span_markup.max must be a positive integer"
        ));
    }
    Ok(format!(
        "Some(crate::event::SpanRule {{ {}, max: {} }})",
        parts.join(", "),
        s.max
    ))
}
