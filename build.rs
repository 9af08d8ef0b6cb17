//! Embeds the format spec (`python/toolparse/formats/`: one `<name>.json` per format and
//! `_reasoning.json`, the files Python reads at import) in the crate: writes the list of the
//! files, each by `include_str!`, which `rust/formats/registry.rs` includes and parses once, at
//! first use. Nothing else is generated: a format's machine is configured from its entry at run
//! time (`rust/formats/config.rs`).

// A build script fails by panicking, with the reason.
#![allow(clippy::expect_used)]

use std::env;
use std::fmt::Write as _;
use std::fs;
use std::path::Path;

const SPEC: &str = "python/toolparse/formats";
const REASONING_FILE: &str = "_reasoning.json";

fn main() {
    // a directory: cargo reruns when a file is added to it or removed
    println!("cargo:rerun-if-changed={SPEC}");
    println!("cargo:rerun-if-changed=build.rs");
    let root = env::var("CARGO_MANIFEST_DIR").expect("CARGO_MANIFEST_DIR");
    let dir = Path::new(&root).join(SPEC);
    let mut paths = Vec::new();
    for item in fs::read_dir(&dir).unwrap_or_else(|e| panic!("{SPEC}: {e}")) {
        let path = item.unwrap_or_else(|e| panic!("{SPEC}: {e}")).path();
        let stem = path
            .file_stem()
            .and_then(|s| s.to_str())
            .unwrap_or_default()
            .to_owned();
        // a name starting with `_` is not a format
        if path.extension().is_some_and(|x| x == "json") && !stem.starts_with('_') {
            println!("cargo:rerun-if-changed={}", path.display());
            paths.push((stem, path));
        }
    }
    paths.sort();
    let mut code = String::from(
        "/// Every built-in format file (`<name>.json`), in the order of the names.\n\
         pub(crate) static BUILTIN: &[(&str, &str)] = &[\n",
    );
    for (stem, path) in &paths {
        writeln!(
            code,
            "    ({stem:?}, include_str!({:?})),",
            path.display().to_string()
        )
        .expect("write");
    }
    let reasoning = dir.join(REASONING_FILE);
    println!("cargo:rerun-if-changed={}", reasoning.display());
    writeln!(
        code,
        "];\n\n/// `_reasoning.json`.\nstatic REASONING_FILE: &str = include_str!({:?});",
        reasoning.display().to_string()
    )
    .expect("write");
    let out = Path::new(&env::var("OUT_DIR").expect("OUT_DIR")).join("builtin.rs");
    fs::write(&out, code).unwrap_or_else(|e| panic!("{}: {e}", out.display()));
}
