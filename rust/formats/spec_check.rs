//! Checks on the format spec shared by the registry (`registry.rs`) and the crate's tests: the
//! spec refuses a name or alias given twice; the roles of a harmony frame's markers.

/// The roles of a harmony frame's markers, in the order of the machine's indices (`START`,
/// `CHANNEL`, ...): `config.rs` puts a frame's markers in this order and the family's tests
/// check them against the spec.
pub const FRAME_ROLES: [&str; 7] = [
    "start",
    "channel",
    "message",
    "end",
    "call",
    "return",
    "constrain",
];

/// The first name that occurs twice among every format's name and aliases, if any.
pub fn duplicate<'a>(entries: &[(&'a str, Vec<&'a str>)]) -> Option<&'a str> {
    let mut seen = std::collections::HashSet::new();
    entries
        .iter()
        .flat_map(|(name, aliases)| std::iter::once(*name).chain(aliases.iter().copied()))
        .find(|n| !seen.insert(*n))
}
