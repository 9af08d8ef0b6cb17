//! The typed reader of the format files (`python/toolparse/formats/`, embedded in the crate, and
//! the specs `toolparse.register_format` hands over): serde structs for a format's spec entry and
//! a reasoning entry. The files' other fields (samples, test cases, notes...) are Python's;
//! `_schema.json` describes them all.

use std::collections::BTreeMap;

use serde::de::IgnoredAny;
use serde::Deserialize;

/// A format file: the core reads only its spec entry.
#[derive(Deserialize)]
pub struct FormatFile {
    pub spec: Entry,
}

/// One format's spec entry.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Entry {
    pub name: String,
    pub family: String,
    pub id_style: String,
    pub aliases: Vec<String>,
    /// role -> marker, in the order of the roles
    pub markers: BTreeMap<String, String>,
    pub call: Call,
    pub arguments: String,
    pub calls: String,
    pub special_tokens: Vec<String>,
    pub models: Vec<String>,
    pub turn_end: Option<String>,
    pub dropped: Option<Vec<String>>,
    pub default_reasoning: Option<String>,
    pub span_markup: Option<SpanMarkup>,
    // Python's (the integrations, the grammar, the docs)
    #[allow(dead_code)]
    pub content: IgnoredAny,
    #[allow(dead_code)]
    pub grammar: IgnoredAny,
    #[allow(dead_code)]
    pub end_optional: Option<IgnoredAny>,
    #[allow(dead_code)]
    pub keep_special_tokens: Option<IgnoredAny>,
    #[allow(dead_code)]
    pub spaces_between_special_tokens: Option<IgnoredAny>,
    /// the special tokens may carry a per-checkpoint suffix (`toolparse.with_token_suffix`
    /// derives the suffixed variant; the variant is an ordinary format here)
    #[allow(dead_code)]
    pub token_suffix: Option<IgnoredAny>,
}

impl Entry {
    pub fn marker(&self, role: &str) -> Option<&str> {
        self.markers.get(role).map(String::as_str)
    }

    /// A marker the family needs.
    pub fn need(&self, role: &str) -> Result<&str, String> {
        self.marker(role)
            .ok_or_else(|| format!("{}: no {role}", self.name))
    }

    /// The markers of the roles `prefix` and `prefix_*` (`call_start`, `call_start_2`...), in
    /// the order of the roles.
    pub fn spellings(&self, prefix: &str) -> Vec<&str> {
        self.markers
            .iter()
            .filter(|(r, _)| *r == prefix || r.starts_with(&format!("{prefix}_")))
            .map(|(_, v)| v.as_str())
            .collect()
    }
}

/// Where a call's name and arguments sit, and the family's switches.
#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
pub struct Call {
    #[allow(dead_code)]
    pub shape: Option<String>,
    pub name_keys: Option<Vec<String>>,
    pub args_keys: Option<Vec<String>>,
    pub id_keys: Option<Vec<String>>,
    #[serde(default)]
    pub tentative: bool,
    #[serde(default)]
    pub keyed_by_name: bool,
    pub name_prefix: Option<String>,
    pub value_newlines: Option<String>,
    #[serde(default)]
    pub value_end_optional: bool,
    #[serde(default)]
    pub python_values: bool,
    pub calls_per_section: Option<String>,
    pub between_calls: Option<String>,
    #[serde(default)]
    pub cdata: bool,
    pub escaped: Option<String>,
    #[serde(default)]
    pub key_spaces: bool,
    #[serde(default)]
    pub unescape_attributes: bool,
    #[serde(default)]
    pub section_required: bool,
    pub role: Option<String>,
    pub recipients: Option<Recipients>,
    pub doubled_names: Option<String>,
    pub reasoning_join: Option<String>,
    pub raw_code: Option<RawCode>,
    pub bad_header: Option<String>,
    pub content_recipient: Option<String>,
    #[serde(default)]
    pub starts_with_header: bool,
    #[serde(default)]
    pub id_field: bool,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Recipients {
    pub reasoning: Vec<String>,
    pub content: Vec<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawCode {
    pub name: String,
    pub key: String,
    pub start: String,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SpanMarkup {
    pub open: String,
    pub close_start: String,
    pub close_end: String,
    pub max: u64,
}

/// One reasoning format's entry (`_reasoning.json`).
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Reasoning {
    pub name: String,
    pub aliases: Vec<String>,
    pub start: Option<String>,
    pub end: Option<String>,
    pub started: Option<bool>,
    pub unclosed: Option<String>,
    pub call_ends_block: Option<bool>,
    pub call_starts: Option<Vec<String>>,
    pub tool_format: Option<String>,
    pub also_start: Option<Vec<String>>,
    pub also_end: Option<Vec<String>>,
    #[serde(default)]
    pub trim: bool,
    pub content_prefix: Option<String>,
    pub turn_end: Option<String>,
    #[serde(default)]
    pub markers_off_when_disabled: bool,
    pub content_end: Option<String>,
    pub content_lstrip: Option<String>,
    pub label: Option<String>,
    pub dropped: Option<Vec<String>>,
    #[serde(default)]
    pub stray_end_text: bool,
    #[serde(default)]
    pub blocks_anywhere: bool,
    pub span_markup: Option<SpanMarkup>,
    // the servers' (SGLang's think_end_token)
    #[allow(dead_code)]
    pub end_token: Option<IgnoredAny>,
    #[allow(dead_code)]
    pub end_token_id: Option<IgnoredAny>,
    /// Python's, as on a format entry
    #[allow(dead_code)]
    pub token_suffix: Option<IgnoredAny>,
}

/// A non-empty string that may be absent (empty then).
pub fn optional<'a>(v: Option<&'a String>, key: &str, name: &str) -> Result<&'a str, String> {
    match v {
        None => Ok(""),
        Some(s) if s.is_empty() => Err(format!("{name}: {key:?} must be a non-empty string")),
        Some(s) => Ok(s),
    }
}

/// A list of non-empty strings that may be absent (empty then).
pub fn optional_list<'a>(
    v: Option<&'a Vec<String>>,
    key: &str,
    name: &str,
) -> Result<Vec<&'a str>, String> {
    let list: Vec<&str> = v.into_iter().flatten().map(String::as_str).collect();
    if list.iter().any(|s| s.is_empty()) {
        return Err(format!("{name}: {key:?} holds an empty string"));
    }
    Ok(list)
}

/// The strings of a list, borrowed.
pub fn strs(v: &[String]) -> Vec<&str> {
    v.iter().map(String::as_str).collect()
}
