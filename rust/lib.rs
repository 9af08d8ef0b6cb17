//! toolparse: streaming tool-call parsers for LLM output.
//!
//! The core is pure Rust: every format is a state machine (`formats/<name>.rs`) that is fed the
//! model's text delta by delta and emits [`event::Event`]s. Work is linear in the text: no delta
//! re-scans earlier text, and only a bounded suffix that could still become a marker is held back.
//! The Python binding lives in `python.rs` (and its `python/models.rs`, which builds the facade's
//! delta models) alone, behind the `python` feature.

pub mod convert;
pub mod event;
pub mod formats;
pub mod json;
pub mod params;
pub mod reasoning;
pub mod scan;

#[cfg(feature = "python")]
mod python;

pub use event::{Delta, DeltaCall, Emitter, Event, Extracted};
pub use formats::{Format, Parser, Tools};
pub use reasoning::Reasoning;

/// Outcome of feeding text to an incremental sub-scanner.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Step {
    /// All input consumed; the value is not finished yet.
    NeedMore,
    /// The value ended; the first `n` bytes of this input belong to it, the rest does not.
    Done(usize),
    /// The input is invalid at byte offset `n` of this input.
    Error(usize),
}
