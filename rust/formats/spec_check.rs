//! Checks on the format spec shared by `build.rs` (which includes this file by path) and the
//! crate's tests: the spec refuses a name or alias given twice.

/// The first name that occurs twice among every format's name and aliases, if any.
pub fn duplicate<'a>(entries: &[(&'a str, Vec<&'a str>)]) -> Option<&'a str> {
    let mut seen = std::collections::HashSet::new();
    entries
        .iter()
        .flat_map(|(name, aliases)| std::iter::once(*name).chain(aliases.iter().copied()))
        .find(|n| !seen.insert(*n))
}
