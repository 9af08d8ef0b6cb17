//! Runs the crate's `Parser` over every sample of the format files in a folder, `passes` times:
//! `extract` (non-streaming) or `stream` (4-byte deltas, cut at character boundaries).
//! `measure.sh` counts its instructions under callgrind.
//!
//! Usage: `toolparse-callgrind FORMATS_DIR extract|stream PASSES`

use toolparse::{Format, Parser, Tools};

/// Every sample of the format files in `dir` (sorted by file name), with its format.
fn samples(dir: &str) -> Result<Vec<(Format, String)>, String> {
    let mut paths: Vec<_> = std::fs::read_dir(dir)
        .map_err(|e| format!("{dir}: {e}"))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .collect();
    paths.sort();
    let mut work = Vec::new();
    for p in paths {
        let Some(stem) = p.file_stem().and_then(|s| s.to_str()) else {
            continue;
        };
        if stem.starts_with('_') || p.extension().is_none_or(|x| x != "json") {
            continue;
        }
        let text = std::fs::read_to_string(&p).map_err(|e| format!("{}: {e}", p.display()))?;
        let doc: serde_json::Value =
            serde_json::from_str(&text).map_err(|e| format!("{}: {e}", p.display()))?;
        let format = Format::from_name(stem).ok_or_else(|| format!("{stem}: not a format"))?;
        for s in doc["samples"].as_array().into_iter().flatten() {
            if let Some(s) = s.as_str() {
                work.push((format, s.to_owned()));
            }
        }
    }
    Ok(work)
}

/// Streams `text` in deltas of 4 bytes (longer where a character would be cut); returns how many
/// events came out.
fn stream(format: Format, tools: &Tools, text: &str) -> usize {
    let mut p = Parser::new(format, tools);
    let mut events = 0;
    let mut i = 0;
    while i < text.len() {
        let mut j = (i + 4).min(text.len());
        while !text.is_char_boundary(j) {
            j += 1;
        }
        events += p.feed(&text[i..j]).len();
        i = j;
    }
    events + p.finish().len()
}

fn main() -> Result<(), String> {
    let args: Vec<String> = std::env::args().collect();
    let [_, dir, mode, passes] = args.as_slice() else {
        return Err("usage: toolparse-callgrind FORMATS_DIR extract|stream PASSES".into());
    };
    let passes: usize = passes.parse().map_err(|e| format!("passes: {e}"))?;
    let work = samples(dir)?;
    let tools = Tools::default();
    let mut sum = 0usize;
    for _ in 0..passes {
        for (format, text) in &work {
            sum += match mode.as_str() {
                "extract" => Parser::extract(*format, &tools, text).calls.len(),
                "stream" => stream(*format, &tools, text),
                _ => return Err(format!("{mode}: neither extract nor stream")),
            };
        }
    }
    eprintln!("{} samples, {sum}", work.len());
    Ok(())
}
