//! The configurations of some built-in formats, worked out from their spec entries, for the
//! families' tests (which check a style against the spec, or run a machine on one directly).

use std::sync::LazyLock;

use super::config;
use super::spec_file::Entry;
use super::{inkling, llama3_json, openai, pythonic, tagged_json, xml_params, Format};

fn entry(name: &str) -> &'static Entry {
    Format::from_name(name)
        .unwrap_or_else(|| panic!("{name}: not a built-in format"))
        .entry()
        .entry
}

fn ok<T>(name: &str, r: Result<T, String>) -> T {
    r.unwrap_or_else(|e| panic!("{name}: {e}"))
}

macro_rules! styles {
    ($($id:ident: $ty:ty = $f:ident($name:literal);)*) => {
        $(pub(crate) static $id: LazyLock<$ty> =
            LazyLock::new(|| ok($name, config::$f(entry($name))));)*
    };
}

styles! {
    GRANITE_TAGS: tagged_json::Tags = tagged_json("granite");
    INTERNLM_TAGS: tagged_json::Tags = tagged_json("internlm");
    PHI4_MINI_JSON_TAGS: tagged_json::Tags = tagged_json("phi4_mini_json");
    XLAM_TAGS: tagged_json::Tags = tagged_json("xlam");
    MISTRAL_TAGS: tagged_json::Tags = tagged_json("mistral");
    LFM2_STYLE: pythonic::Style = pythonic("lfm2");
    LLAMA4_PYTHONIC_STYLE: pythonic::Style = pythonic("llama4_pythonic");
    OLMO3_STYLE: pythonic::Style = pythonic("olmo3");
    PYTHONIC_STYLE: pythonic::Style = pythonic("pythonic");
    INKLING_STYLE: inkling::Style = inkling("inkling");
    LLAMA3_JSON_STYLE: llama3_json::Style = llama3_json("llama3_json");
    QWEN3_CODER_STYLE: xml_params::Style = xml_params("qwen3_coder");
}

pub(crate) static OPENAI_FRAME: LazyLock<openai::Frame> =
    LazyLock::new(|| ok("openai", config::harmony_frame(entry("openai"), None)));

pub(crate) static BEAM_FRAME: LazyLock<openai::Frame> = LazyLock::new(|| {
    let e = entry("beam");
    let xml = config::leak(ok("beam", config::xml_params(e)));
    ok("beam", config::harmony_frame(e, Some(xml)))
});
