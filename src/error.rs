//! Error types: what went wrong and where, for every stage of the translation.
//!
//! Errors about the input carry a [`Location`] (word offset, opcode, result id, function, block)
//! so the CLI can show the offending instruction; errors that are our own bugs say so.

use crate::spirv::Id;

/// Where in the SPIR-V input something went wrong.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Location {
    /// Offset of the instruction's first word (the header is words 0..5).
    pub word_offset: Option<u32>,
    /// The instruction's opcode.
    pub opcode: Option<spirv::Op>,
    /// The instruction's result id (`%42`), if it has one.
    pub result_id: Option<Id>,
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
