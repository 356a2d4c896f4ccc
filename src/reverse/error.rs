//! Errors of the reverse path (WGSL to SPIR-V) and their rendering: WGSL problems carry byte
//! spans into the source, shown with codespan-reporting like the forward path's listings.

use std::ops::Range;

use codespan_reporting::diagnostic::{Diagnostic, Label};
use codespan_reporting::files::SimpleFile;
use codespan_reporting::term::{self, termcolor::WriteColor};

/// A labelled byte range of the WGSL source.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SpanLabel {
    /// Byte range in the WGSL source.
    pub span: Range<usize>,
    /// What the range shows.
    pub message: String,
}

/// Everything that can stop a WGSL to SPIR-V translation.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The WGSL does not parse or does not validate.
    #[error("invalid WGSL{}: {message}", at_line_column(*.line_column))]
    Wgsl {
        /// naga's message, in one line.
        message: String,
        /// 1-based line and column (in bytes) of the first label.
        line_column: Option<(u32, u32)>,
        /// The first label is the culprit; the others give context.
        labels: Vec<SpanLabel>,
        /// Further explanation, one line each.
        notes: Vec<String>,
    },

    /// `--entry-point` names no entry point of the module.
    #[error("no entry point named `{name}` (the module has: {available})")]
    NoSuchEntryPoint {
        /// The name asked for.
        name: String,
        /// The entry points there are, comma-separated.
        available: String,
    },

    /// Valid WGSL that Vulkan SPIR-V cannot express or that we do not lower yet.
    #[error("cannot translate: {message}")]
    Unsupported {
        /// What cannot be expressed, in one line.
        message: String,
    },

    /// Our own bug: the SPIR-V we produced breaks a rule we promise.
    #[error("internal error (a bug in spv2wgsl, please report it with the input): {message}")]
    Internal {
        /// What broke, in one line.
        message: String,
    },
}

fn at_line_column(line_column: Option<(u32, u32)>) -> String {
    line_column.map_or_else(String::new, |(line, column)| format!(" at {line}:{column}"))
}

impl Error {
    /// The CLI's exit code: 1 for input that cannot be translated, 3 for our bugs.
    pub fn exit_code(&self) -> i32 {
        match self {
            Error::Internal { .. } => 3,
            _ => 1,
        }
    }

    /// An [`Error::Unsupported`].
    pub fn unsupported(message: impl Into<String>) -> Self {
        Error::Unsupported { message: message.into() }
    }

    /// An [`Error::Internal`].
    pub fn internal(message: impl Into<String>) -> Self {
        Error::Internal { message: message.into() }
    }
}

/// Writes `error` about the WGSL file named `path` with contents `source`.
pub fn render(error: &Error, path: &str, source: &str, out: &mut dyn WriteColor) -> std::io::Result<()> {
    let file = SimpleFile::new(path, source);
    let mut diagnostic = Diagnostic::error().with_message(error.to_string());
    match error {
        Error::Wgsl { labels, notes, .. } => {
            let in_bounds = labels.iter().filter(|label| {
                label.span.end <= source.len()
                    && source.is_char_boundary(label.span.start)
                    && source.is_char_boundary(label.span.end)
            });
            let labels = in_bounds.enumerate().map(|(i, label)| {
                let style = if i == 0 { Label::primary } else { Label::secondary };
                style((), label.span.clone()).with_message(label.message.clone())
            });
            diagnostic = diagnostic.with_labels(labels.collect()).with_notes(notes.clone());
        }
        Error::Internal { .. } => {
            diagnostic =
                diagnostic.with_notes(vec!["this is a bug in spv2wgsl: please report it with the input file".into()]);
        }
        _ => {}
    }
    term::emit_to_write_style(out, &term::Config::default(), &file, &diagnostic).map_err(std::io::Error::other)
}
