//! Error types: what went wrong and where, for every stage of the translation.
//!
//! Errors about the input carry a [`Location`] (word offset, opcode, result id, function, block)
//! so the CLI can show the offending instruction; errors that are our own bugs say so. Warnings
//! carry a [`Location`] too.

use serde::{Deserialize, Serialize};

use crate::spirv::Id;

/// Where in the SPIR-V input something went wrong. Serialized as the keys `result_id`,
/// `word_offset`, `opcode` (`"OpIAdd"`), `function`, `block`, in that order, `null` where unknown.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Location {
    /// The instruction's result id (`%42`), if it has one.
    pub result_id: Option<Id>,
    /// Offset of the instruction's first word (the header is words 0..5).
    pub word_offset: Option<u32>,
    /// The instruction's opcode.
    #[serde(with = "opcode_name")]
    pub opcode: Option<spirv::Op>,
    /// The function the instruction is in (its result id), when it is in one.
    pub function: Option<Id>,
    /// The block the instruction is in (its label's id), when it is in one.
    pub block: Option<Id>,
}

impl std::fmt::Display for Location {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let mut parts = Vec::new();
        if let Some(offset) = self.word_offset {
            parts.push(format!("at word {offset:#x}"));
        }
        match (self.result_id, self.opcode) {
            (Some(id), Some(op)) => parts.push(format!("%{id} = Op{op:?}")),
            (None, Some(op)) => parts.push(format!("Op{op:?}")),
            (Some(id), None) => parts.push(format!("%{id}")),
            (None, None) => {}
        }
        if let Some(function) = self.function {
            parts.push(format!("in function %{function}"));
        }
        if let Some(block) = self.block {
            parts.push(format!("block %{block}"));
        }
        write!(f, "{}", parts.join(", "))
    }
}

/// An opcode as its assembly name, `OpIAdd`.
mod opcode_name {
    use serde::{Deserialize, Deserializer, Serializer, de::Error};

    pub fn serialize<S: Serializer>(opcode: &Option<spirv::Op>, serializer: S) -> Result<S::Ok, S::Error> {
        match opcode {
            Some(op) => serializer.collect_str(&format_args!("Op{op:?}")),
            None => serializer.serialize_none(),
        }
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Option<spirv::Op>, D::Error> {
        let Some(name) = Option::<String>::deserialize(deserializer)? else { return Ok(None) };
        let instruction = name.strip_prefix("Op").and_then(crate::spirv::assemble::opcode_named);
        instruction.map(|i| Some(i.opcode)).ok_or_else(|| D::Error::custom(format!("`{name}` is not a SPIR-V opcode")))
    }
}

/// Something the user should know that did not stop the translation (a skipped entry point, a
/// dropped `gl_PointSize`), and the instruction it is about where there is one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Warning {
    /// What happened, in one line.
    pub message: String,
    /// The instruction it is about (all `None` when it is about the module as a whole).
    pub location: Location,
}

impl Warning {
    /// A warning about the instruction at `location`.
    pub fn new(message: impl Into<String>, location: Location) -> Self {
        Warning { message: message.into(), location }
    }
}

impl std::fmt::Display for Warning {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}{}", self.message, at_suffix(&self.location))
    }
}

/// Everything that can stop a translation.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The bytes are not a SPIR-V module we can read (bad magic, truncated, malformed words).
    #[error("malformed SPIR-V: {message}{}", at_suffix(.location))]
    Malformed {
        /// What is wrong, in one line.
        message: String,
        /// Where, as far as the words could be read.
        location: Location,
    },

    /// SPIR-V assembly text that does not assemble.
    #[error("assembly error at {}:{}: {}", .0.line, .0.column, .0.message)]
    Assembly(#[from] crate::spirv::assemble::AssembleError),

    /// A well-formed module that breaks a SPIR-V rule we rely on (undefined id, wrong operand kind).
    #[error("invalid SPIR-V: {message}{}", at_suffix(.location))]
    Invalid {
        /// Which rule is broken, in one line.
        message: String,
        /// The instruction that breaks it.
        location: Location,
    },

    /// Valid SPIR-V that WGSL cannot express, or that we do not translate yet.
    #[error("cannot translate: {message}{}", at_suffix(.location))]
    Unsupported {
        /// What cannot be expressed, in one line.
        message: String,
        /// The instruction that needs it.
        location: Location,
    },

    /// Our own bug: the WGSL we produced does not validate, or an invariant broke.
    #[error("internal error (a bug in spv2wgsl, please report it with the input): {message}")]
    Internal {
        /// What broke, in one line.
        message: String,
        /// The generated WGSL, when the failure is in it.
        wgsl: Option<String>,
    },
}

fn at_suffix(location: &Location) -> String {
    let text = location.to_string();
    if text.is_empty() { text } else { format!(" ({text})") }
}

impl Error {
    /// The CLI's exit code: 1 for input that cannot be translated, 3 for our bugs.
    pub fn exit_code(&self) -> i32 {
        match self {
            Error::Internal { .. } => 3,
            _ => 1,
        }
    }

    /// The SPIR-V location the error points at, if any.
    pub fn location(&self) -> Option<&Location> {
        match self {
            Error::Malformed { location, .. }
            | Error::Invalid { location, .. }
            | Error::Unsupported { location, .. } => Some(location),
            _ => None,
        }
    }

    /// The location, to fill in.
    pub(crate) fn location_mut(&mut self) -> Option<&mut Location> {
        match self {
            Error::Malformed { location, .. }
            | Error::Invalid { location, .. }
            | Error::Unsupported { location, .. } => Some(location),
            _ => None,
        }
    }

    /// An [`Error::Invalid`].
    pub fn invalid(message: impl Into<String>, location: Location) -> Self {
        Error::Invalid { message: message.into(), location }
    }

    /// An [`Error::Unsupported`].
    pub fn unsupported(message: impl Into<String>, location: Location) -> Self {
        Error::Unsupported { message: message.into(), location }
    }

    /// An [`Error::Internal`] without WGSL.
    pub fn internal(message: impl Into<String>) -> Self {
        Error::Internal { message: message.into(), wgsl: None }
    }
}

/// A result whose error is [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;
