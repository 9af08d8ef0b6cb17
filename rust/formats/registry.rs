//! The registry of formats and reasoning formats, filled at run time from the spec: the built-in
//! format files (embedded in the crate, parsed once at first use) and the formats
//! `toolparse.register_format` adds. An entry is validated and its machine's configuration worked
//! out once, when it is registered; entries live for the whole process (a replaced entry's old
//! data stays leaked: the parsers built from it keep running on it).

use std::collections::HashMap;
use std::sync::{LazyLock, Mutex, PoisonError, RwLock, RwLockReadGuard};

use super::config::{self, leak, Ctor};
use super::spec_check;
use super::spec_file::{
    optional, optional_list, strs, Entry, FormatFile, Reasoning as RawReasoning, SpanMarkup,
};
use super::Spec;
use crate::event::{BlockRule, SpanRule};
use crate::reasoning::{Front, Reasoning, ReasoningSpec};

// BUILTIN (every `<name>.json`, in the order of the names) and REASONING_FILE, embedded by build.rs.
include!(concat!(env!("OUT_DIR"), "/builtin.rs"));

/// A registered format: its spec entry and how its machine is built.
pub struct Registered {
    /// The entry it was made from (the tests work out the configurations from it again).
    #[cfg_attr(not(test), allow(dead_code))]
    pub entry: &'static Entry,
    pub spec: Spec,
    pub ctor: Ctor,
}

#[derive(Default)]
pub struct Registry {
    pub formats: Vec<&'static Registered>,
    pub reasoning: Vec<&'static ReasoningSpec>,
}

static REGISTRY: LazyLock<RwLock<Registry>> = LazyLock::new(|| {
    // The built-in files are checked by the tests: a broken one is a bug of the build.
    RwLock::new(builtins().unwrap_or_else(|e| panic!("python/toolparse/formats: {e}")))
});

/// The registry, for reading.
pub fn read() -> RwLockReadGuard<'static, Registry> {
    REGISTRY.read().unwrap_or_else(PoisonError::into_inner)
}

fn builtins() -> Result<Registry, String> {
    let mut reg = Registry::default();
    let mut entries = Vec::new();
    for (stem, text) in BUILTIN {
        let file: FormatFile =
            serde_json::from_str(text).map_err(|e| format!("{stem}.json: {e}"))?;
        if file.spec.name != *stem {
            return Err(format!(
                "{stem}.json: its spec entry is named {:?}",
                file.spec.name
            ));
        }
        entries.push(leak(file.spec));
    }
    let reasoning: Vec<RawReasoning> =
        serde_json::from_str(REASONING_FILE).map_err(|e| format!("_reasoning.json: {e}"))?;
    for e in reasoning {
        let tool_formats: Vec<&str> = entries.iter().map(|f| f.name.as_str()).collect();
        let spec = reasoning_spec(leak(e), &tool_formats)?;
        reg.add_reasoning(spec, false)?;
    }
    for e in entries {
        let r = registered(e, &reg)?;
        reg.add_format(r, false)?;
    }
    Ok(reg)
}

/// Registers a format (with its reasoning entry, registered first, if any); `replace`: a format
/// (and a reasoning format) of the same name is replaced, else a name or alias already taken is
/// an error. Returns the format's position.
pub fn register(
    entry: Entry,
    reasoning: Option<RawReasoning>,
    replace: bool,
) -> Result<usize, String> {
    let mut reg = REGISTRY.write().unwrap_or_else(PoisonError::into_inner);
    let e = leak(entry);
    // check everything before changing anything
    let mut names: Vec<&str> = reg.formats.iter().map(|f| f.spec.name).collect();
    if !names.contains(&e.name.as_str()) {
        names.push(&e.name);
    }
    let reasoning = match reasoning {
        Some(r) => Some(reasoning_spec(leak(r), &names)?),
        None => None,
    };
    let mut trial = Registry {
        formats: reg.formats.clone(),
        reasoning: reg.reasoning.clone(),
    };
    if let Some(r) = reasoning {
        trial.add_reasoning(r, replace)?;
    }
    let r = registered(e, &trial)?;
    let k = trial.add_format(r, replace)?;
    *reg = trial;
    drop(reg);
    Ok(k)
}

impl Registry {
    /// The first of `names` that another entry than `own` (by canonical name) already uses.
    fn clash<'a>(
        taken: impl Iterator<Item = (&'static str, &'static [&'static str])>,
        own: &str,
        names: &[&'a str],
    ) -> Option<&'a str> {
        let mut used = Vec::new();
        for (name, aliases) in taken {
            if name != own {
                used.push(name);
                used.extend(aliases);
            }
        }
        names.iter().find(|n| used.contains(n)).copied()
    }

    fn add_format(&mut self, r: Registered, replace: bool) -> Result<usize, String> {
        let name = r.spec.name;
        let all: Vec<&str> = std::iter::once(name)
            .chain(r.spec.aliases.iter().copied())
            .collect();
        if spec_check::duplicate(&[(name, all[1..].to_vec())]).is_some() {
            return Err(format!("{name}: an alias repeats a name"));
        }
        let pos = self.formats.iter().position(|f| f.spec.name == name);
        let own = if replace { name } else { "" };
        let taken = self.formats.iter().map(|f| (f.spec.name, f.spec.aliases));
        if let Some(n) = Registry::clash(taken, own, &all) {
            return Err(format!("{name}: name or alias {n:?} is already registered"));
        }
        let r = leak(r);
        Ok(match pos {
            Some(k) => {
                self.formats[k] = r;
                k
            }
            None => {
                self.formats.push(r);
                self.formats.len() - 1
            }
        })
    }

    fn add_reasoning(&mut self, r: ReasoningSpec, replace: bool) -> Result<usize, String> {
        let name = r.name;
        let all: Vec<&str> = std::iter::once(name)
            .chain(r.aliases.iter().copied())
            .collect();
        if spec_check::duplicate(&[(name, all[1..].to_vec())]).is_some() {
            return Err(format!("reasoning {name}: an alias repeats a name"));
        }
        let pos = self.reasoning.iter().position(|s| s.name == name);
        let own = if replace { name } else { "" };
        let taken = self.reasoning.iter().map(|s| (s.name, s.aliases));
        if let Some(n) = Registry::clash(taken, own, &all) {
            return Err(format!(
                "reasoning {name}: name or alias {n:?} is already registered"
            ));
        }
        let r = leak(r);
        Ok(match pos {
            Some(k) => {
                self.reasoning[k] = r;
                k
            }
            None => {
                self.reasoning.push(r);
                self.reasoning.len() - 1
            }
        })
    }
}

/// A format's spec and machine from its (leaked) entry; `reg`: the reasoning formats its
/// `default_reasoning` may name.
fn registered(e: &'static Entry, reg: &Registry) -> Result<Registered, String> {
    let name = e.name.as_str();
    for (key, v) in [
        ("name", name),
        ("family", &e.family),
        ("id_style", &e.id_style),
    ] {
        if v.is_empty() {
            return Err(format!(
                "{name}: {key:?} is missing or not a non-empty string"
            ));
        }
    }
    if !matches!(e.id_style.as_str(), "chatcmpl" | "mistral" | "model") {
        return Err(format!("{name}: unknown id_style {:?}", e.id_style));
    }
    let default_reasoning = optional(e.default_reasoning.as_ref(), "default_reasoning", name)?;
    if !default_reasoning.is_empty() && !reg.reasoning.iter().any(|r| r.name == default_reasoning) {
        return Err(format!(
            "{name}: unknown default_reasoning {default_reasoning:?}"
        ));
    }
    let markers: Vec<(&str, &str)> = e
        .markers
        .iter()
        .map(|(r, v)| (r.as_str(), v.as_str()))
        .collect();
    let spec = Spec {
        name,
        family: &e.family,
        id_style: &e.id_style,
        aliases: strs(&e.aliases).leak(),
        markers: markers.leak(),
        special_tokens: strs(&e.special_tokens).leak(),
        models: strs(&e.models).leak(),
        turn_end: optional(e.turn_end.as_ref(), "turn_end", name)?,
        dropped: optional_list(e.dropped.as_ref(), "dropped", name)?.leak(),
        default_reasoning,
        span_markup: span_markup(e.span_markup.as_ref(), name)?,
    };
    Ok(Registered {
        entry: e,
        spec,
        ctor: config::machine(e)?,
    })
}

/// A format's or reasoning format's optional `span_markup` (`name`: whose, for the errors).
fn span_markup(span: Option<&'static SpanMarkup>, name: &str) -> Result<Option<SpanRule>, String> {
    let Some(s) = span else {
        return Ok(None);
    };
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
    }
    let max = usize::try_from(s.max).ok().filter(|m| *m > 0);
    let Some(max) = max else {
        return Err(format!(
            "{name}: span_markup.max must be a positive integer"
        ));
    };
    Ok(Some(SpanRule {
        open: &s.open,
        close_start: &s.close_start,
        close_end: &s.close_end,
        max,
    }))
}

/// A reasoning format's spec from its (leaked) entry; `formats`: the tool formats its
/// `tool_format` may name.
fn reasoning_spec(e: &'static RawReasoning, formats: &[&str]) -> Result<ReasoningSpec, String> {
    let name = e.name.as_str();
    if name.is_empty() {
        return Err("a reasoning entry without a name".to_owned());
    }
    let aliases: &'static [&'static str] = strs(&e.aliases).leak();
    if let Some(t) = &e.tool_format {
        if !formats.contains(&t.as_str()) {
            return Err(format!("reasoning {name}: unknown tool_format {t:?}"));
        }
        return Ok(ReasoningSpec {
            name,
            aliases,
            tool_format: Some(t),
            ..ReasoningSpec::default()
        });
    }
    let need = |v: &'static Option<String>, key: &str| -> Result<&'static str, String> {
        v.as_deref().filter(|s| !s.is_empty()).ok_or_else(|| {
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
    let call_ends_block = e
        .call_ends_block
        .ok_or_else(|| format!("reasoning {name}: \"call_ends_block\" must be a bool"))?;
    let call_starts = strs(
        e.call_starts
            .as_deref()
            .ok_or_else(|| format!("reasoning {name}: \"call_starts\" is missing"))?,
    );
    let turn_end = optional(e.turn_end.as_ref(), "turn_end", name)?;
    let mut ends = vec![end];
    ends.extend(optional_list(e.also_end.as_ref(), "also_end", name)?);
    // the turn-end tag ends a block too
    if !turn_end.is_empty() && !ends.contains(&turn_end) {
        ends.push(turn_end);
    }
    let mut starts = vec![start];
    starts.extend(optional_list(e.also_start.as_ref(), "also_start", name)?);
    Ok(ReasoningSpec {
        name,
        aliases,
        start,
        end,
        started,
        call_starts: call_starts.leak(),
        call_ends_block,
        tool_format: None,
        ends: ends.leak(),
        starts: starts.leak(),
        trim: e.trim,
        content_prefix: e.content_prefix.as_deref().unwrap_or_default(),
        turn_end,
        off_when_disabled: e.markers_off_when_disabled,
        content_end: optional(e.content_end.as_ref(), "content_end", name)?,
        content_lstrip: optional(e.content_lstrip.as_ref(), "content_lstrip", name)?,
        label: optional(e.label.as_ref(), "label", name)?,
        dropped: optional_list(e.dropped.as_ref(), "dropped", name)?.leak(),
        stray_end_text: e.stray_end_text,
        blocks_anywhere: e.blocks_anywhere,
        span_markup: span_markup(e.span_markup.as_ref(), &format!("reasoning {name}"))?,
    })
}

/// What the front of reasoning format `r` scans for inside a block when paired with tool format
/// `f` (None: no tool format): `[ends..., starts..., call starts...]`, without empty or repeated
/// call markers. Worked out once per pair (keyed by the entries, which live forever).
pub fn scan_list(r: &'static ReasoningSpec, f: Option<&'static Spec>) -> &'static [&'static str] {
    type Key = (usize, usize);
    static SCANS: LazyLock<Mutex<HashMap<Key, &'static [&'static str]>>> =
        LazyLock::new(Mutex::default);
    let key = (
        std::ptr::from_ref(r) as usize,
        f.map_or(0, |f| std::ptr::from_ref(f) as usize),
    );
    let mut scans = SCANS.lock().unwrap_or_else(PoisonError::into_inner);
    scans.entry(key).or_insert_with(|| {
        let mut calls: Vec<&'static str> = Vec::new();
        if r.call_ends_block {
            match f {
                None => calls.extend(r.call_starts),
                // What a call of the format may begin with (an XML function may stand without
                // its wrapper; glm's calls have no other start).
                Some(f) => {
                    for role in ["call_start", "section_start", "function_start"] {
                        calls.extend(f.marker(role));
                    }
                }
            }
        }
        let mut list: Vec<&'static str> = r.ends.iter().chain(r.starts).copied().collect();
        for c in calls {
            if !c.is_empty() && !list.contains(&c) {
                list.push(c);
            }
        }
        list.leak()
    })
}

impl Reasoning {
    /// A reasoning format by its name or one of its aliases.
    pub fn lookup(name: &str) -> Option<Reasoning> {
        let reg = read();
        let all = &reg.reasoning;
        all.iter()
            .position(|s| s.name == name)
            .or_else(|| all.iter().position(|s| s.aliases.contains(&name)))
            .map(Reasoning)
    }

    pub fn spec(self) -> &'static ReasoningSpec {
        read().reasoning[self.0]
    }

    pub fn name(self) -> &'static str {
        self.spec().name
    }

    pub fn names() -> Vec<&'static str> {
        read().reasoning.iter().map(|s| s.name).collect()
    }

    /// Every reasoning format's spec entry, in the registry's order.
    pub fn all() -> Vec<&'static ReasoningSpec> {
        read().reasoning.clone()
    }

    /// The rule of the blocks that open anywhere in the content (`blocks_anywhere`), for the
    /// tool format `format` (None: no tool format); None for other formats.
    pub fn blocks(self, format: Option<&'static Spec>) -> Option<BlockRule> {
        let spec = self.spec();
        if !spec.blocks_anywhere {
            return None;
        }
        Some(BlockRule {
            scan: scan_list(spec, format),
            ends: spec.ends.len(),
            starts: spec.starts,
            label: spec.label,
            trim: spec.trim,
        })
    }

    /// The front for this reasoning format paired with the tool format `format` (None: no tool
    /// format); None when the front is transparent (the tool machine separates the reasoning
    /// itself).
    pub fn front(self, format: Option<&'static Spec>, started: Option<bool>) -> Option<Front> {
        let spec = self.spec();
        Front::new(spec, || scan_list(spec, format), started)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::formats::{Format, Parser, Tools};

    /// A built-in format's entry, read again from its embedded file.
    fn builtin(name: &str) -> Entry {
        let (_, text) = BUILTIN.iter().find(|(n, _)| *n == name).expect("built-in");
        serde_json::from_str::<FormatFile>(text)
            .expect("parses")
            .spec
    }

    fn calls(f: Format, text: &str) -> Vec<(String, String)> {
        let x = Parser::extract(f, &Tools::default(), text);
        x.calls.into_iter().map(|c| (c.name, c.arguments)).collect()
    }

    /// A copy of hermes registered under another name parses as hermes; a name taken is
    /// refused unless replaced; a replaced format's old parsers keep the old entry.
    #[test]
    fn a_registered_copy_parses_as_the_original() {
        let text = "Hi <tool_call>{\"name\": \"f\", \"arguments\": {\"a\": 1}}</tool_call>";
        let hermes = Format::from_name("hermes").expect("hermes");
        let mut e = builtin("hermes");
        e.name = "rust_copy_hermes".to_owned();
        e.aliases = vec!["rust_copy_alias".to_owned()];
        let f = Format::register(e, None, false).expect("registers");
        assert_eq!(f.name(), "rust_copy_hermes");
        assert_eq!(Format::lookup("rust_copy_alias"), Some(f));
        assert_eq!(calls(f, text), calls(hermes, text));
        assert_eq!(calls(f, text).len(), 1);
        // taken: the name, an alias of another format, the name again without replace
        for (name, alias) in [
            ("hermes", ""),
            ("x_rust", "qwen25"),
            ("rust_copy_hermes", ""),
        ] {
            let mut e = builtin("hermes");
            e.name = name.to_owned();
            e.aliases = [alias]
                .into_iter()
                .filter(|a| !a.is_empty())
                .map(str::to_owned)
                .collect();
            let err = Format::register(e, None, false).expect_err("refused");
            assert!(err.contains("already registered"), "{err}");
        }
        // replaced with other markers: new lookups get them, the old handle keeps the old entry
        let mut e = builtin("hermes");
        e.name = "rust_copy_hermes".to_owned();
        e.aliases.clear();
        e.markers.insert("call_start".to_owned(), "<c>".to_owned());
        e.markers.insert("call_end".to_owned(), "</c>".to_owned());
        let g = Format::register(e, None, true).expect("replaces");
        assert_eq!(g, f);
        assert_eq!(Format::lookup("rust_copy_alias"), None);
        let short = "Hi <c>{\"name\": \"f\", \"arguments\": {\"a\": 1}}</c>";
        assert_eq!(calls(g, short), calls(hermes, text));
        assert!(calls(g, text).is_empty());
        assert_eq!(calls(f, text).len(), 1);
        // a family rule broken: nothing registered
        let mut e = builtin("qwen3_coder");
        e.name = "rust_broken".to_owned();
        e.aliases.clear();
        e.markers.remove("parameter_end");
        assert!(Format::register(e, None, false).is_err());
        assert_eq!(Format::from_name("rust_broken"), None);
    }
}
