//! Reporting what became of each input, in the format the user asked for: for people (one line,
//! or the codespan listing of [`crate::diagnostics`]), as JSON lines for tools, or as GitHub
//! Actions annotations. The JSON is [`FileDiagnostic`] through serde.
//!
//! ```
//! use spv2wgsl::message_format::{Diagnostic, Format, Reporter, json};
//! use spv2wgsl::{Location, Warning};
//! use codespan_reporting::term::termcolor::Buffer;
//!
//! let input = b"not SPIR-V at all";
//! let result = spv2wgsl::translate(input, &spv2wgsl::Options::default());
//! let reporter = Reporter { format: Format::Github, ..Reporter::default() };
//! assert!(reporter.failed(&result));
//! let mut out = Buffer::no_color();
//! reporter.translation(&mut out, "a.spv", input, &result).unwrap();
//! let annotation = String::from_utf8(out.into_inner()).unwrap();
//! assert!(annotation.starts_with("::error file=a.spv::malformed SPIR-V"), "{annotation}");
//!
//! let at = Location { word_offset: Some(27), opcode: Some(spirv::Op::EntryPoint), ..Location::default() };
//! let warning = Diagnostic::from_warning(&Warning::new("skipped entry point `gs`", at), false, None);
//! assert_eq!(
//!     json("b.spv", &warning),
//!     r#"{"file":"b.spv","severity":"warning","message":"skipped entry point `gs` (at word 0x1b, OpEntryPoint)","result_id":null,"word_offset":27,"opcode":"OpEntryPoint","function":null,"block":null,"line":null,"column":null}"#
//! );
//! ```

use codespan_reporting::term::termcolor::{Color, ColorSpec, WriteColor};
use serde::{Deserialize, Serialize};

use crate::error::{Error, Location, Warning};
use crate::{Translation, reverse};

/// How diagnostics are written.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Format {
    /// For people: `FILE: error: MESSAGE`, or a listing of the input (see [`Reporter::listing`]).
    #[default]
    Human,
    /// One JSON object per diagnostic per line; see [`json`].
    Json,
    /// GitHub Actions workflow commands (`::error file=...::message`); see [`github`].
    Github,
}

/// How bad a diagnostic is: `"error"` or `"warning"` in JSON.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    /// The input was not translated.
    Error,
    /// The input was translated, but something was dropped or changed on the way.
    Warning,
}

impl Severity {
    /// `error` or `warning`, as every format spells it.
    pub fn name(self) -> &'static str {
        match self {
            Severity::Error => "error",
            Severity::Warning => "warning",
        }
    }
}

/// One thing to tell the user about one input. In JSON, its fields in this order, the
/// location's flattened into it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Diagnostic {
    /// An error, or a warning.
    pub severity: Severity,
    /// One line.
    pub message: String,
    /// Where in the SPIR-V, as far as known (all `None` for an I/O error).
    #[serde(flatten)]
    pub location: Location,
    /// 1-based line in the input's text (SPIR-V assembly or WGSL), when known.
    pub line: Option<u32>,
    /// 1-based column in that line, when known.
    pub column: Option<u32>,
}

/// One line of the JSON format: a diagnostic and the file it is about, every key present (`null`
/// when not known), in this order:
///
/// `{"file":"a.spv","severity":"error","message":"...","result_id":7,"word_offset":42,
/// "opcode":"OpIAdd","function":4,"block":5,"line":null,"column":null}`
///
/// `word_offset` counts words from the start of the module (the header is words 0 to 4); `line`
/// and `column` are 1-based, in the input's text.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FileDiagnostic {
    /// The input, as the user named it (`<stdin>` for standard input).
    pub file: String,
    /// What to say about it.
    #[serde(flatten)]
    pub diagnostic: Diagnostic,
}

impl Diagnostic {
    /// An error that is not about a place in the input, such as a file that cannot be read.
    pub fn error(message: impl Into<String>) -> Self {
        Diagnostic {
            severity: Severity::Error,
            message: message.into(),
            location: Location::default(),
            line: None,
            column: None,
        }
    }

    /// A translation's warning; `denied` (by `--deny-warnings`) makes it an error. `line` is that
    /// of the warning's instruction in assembly text (see [`crate::diagnostics::assembly_lines`]).
    pub fn from_warning(warning: &Warning, denied: bool, line: Option<u32>) -> Self {
        let (severity, message) = match denied {
            true => (Severity::Error, format!("{warning} (warnings are denied)")),
            false => (Severity::Warning, warning.to_string()),
        };
        let column = line.map(|_| 1);
        Diagnostic { severity, message, location: warning.location.clone(), line, column }
    }

    /// A failed translation of `input`. For assembly text, the line is that of the culprit.
    pub fn from_error(error: &Error, input: &[u8]) -> Self {
        let location = error.location().cloned().unwrap_or_default();
        let (line, column) = match error {
            Error::Assembly(assembly) => (Some(assembly.line), Some(assembly.column)),
            _ => {
                let line = location.word_offset.and_then(|offset| crate::diagnostics::assembly_line(input, offset));
                (line, line.map(|_| 1))
            }
        };
        Diagnostic { location, line, column, ..Diagnostic::error(error.to_string()) }
    }

    /// A failed translation of WGSL to SPIR-V.
    pub fn from_reverse_error(error: &reverse::Error) -> Self {
        let (line, column) = match error {
            reverse::Error::Wgsl { line_column: Some((line, column)), .. } => (Some(*line), Some(*column)),
            _ => (None, None),
        };
        Diagnostic { line, column, ..Diagnostic::error(error.to_string()) }
    }

    /// Whether it points at a place in the input, which a listing can show.
    fn has_place(&self) -> bool {
        self.line.is_some() || self.location.word_offset.is_some()
    }
}

/// Writes diagnostics about inputs, all in one format.
#[derive(Debug, Clone, Copy, Default)]
pub struct Reporter {
    /// How every diagnostic is written.
    pub format: Format,
    /// In the human format, show an error that points into the input with the input around it
    /// (the codespan listing) rather than as one line.
    pub listing: bool,
    /// Warnings are errors: they are reported as such and the input fails.
    pub deny_warnings: bool,
}

impl Reporter {
    /// Whether the translation failed, counting warnings as failures when they are denied.
    pub fn failed(&self, result: &Result<Translation, Error>) -> bool {
        match result {
            Ok(translation) => self.deny_warnings && !translation.warnings.is_empty(),
            Err(_) => true,
        }
    }

    /// Reports the translation of `file` (whose contents are `input`): its error, or its warnings.
    pub fn translation(
        &self,
        out: &mut dyn WriteColor,
        file: &str,
        input: &[u8],
        result: &Result<Translation, Error>,
    ) -> std::io::Result<()> {
        match result {
            Ok(translation) => {
                let lines = match translation.warnings.is_empty() {
                    true => Vec::new(),
                    false => crate::diagnostics::assembly_lines(input),
                };
                translation.warnings.iter().try_for_each(|warning| {
                    let line = crate::diagnostics::line_of(&lines, warning.location.word_offset);
                    self.diagnostic(out, file, &Diagnostic::from_warning(warning, self.deny_warnings, line))
                })
            }
            Err(error) => {
                let diagnostic = Diagnostic::from_error(error, input);
                if self.shows_listing(&diagnostic) {
                    crate::diagnostics::render(error, file, input, out)
                } else {
                    self.diagnostic(out, file, &diagnostic)
                }
            }
        }
    }

    /// Reports a failed translation of the WGSL file `file` (whose contents are `source`).
    pub fn reverse_error(
        &self,
        out: &mut dyn WriteColor,
        file: &str,
        source: &str,
        error: &reverse::Error,
    ) -> std::io::Result<()> {
        let diagnostic = Diagnostic::from_reverse_error(error);
        if self.shows_listing(&diagnostic) {
            reverse::render(error, file, source, out)
        } else {
            self.diagnostic(out, file, &diagnostic)
        }
    }

    fn shows_listing(&self, diagnostic: &Diagnostic) -> bool {
        self.format == Format::Human && self.listing && diagnostic.has_place()
    }

    /// Writes one diagnostic about `file` as one line.
    pub fn diagnostic(&self, out: &mut dyn WriteColor, file: &str, diagnostic: &Diagnostic) -> std::io::Result<()> {
        match self.format {
            Format::Human => human(out, file, diagnostic),
            Format::Json => writeln!(out, "{}", json(file, diagnostic)),
            Format::Github => writeln!(out, "{}", github(file, diagnostic)),
        }
    }
}

/// `FILE: error: MESSAGE`, the severity in color when `out` takes colors.
fn human(out: &mut dyn WriteColor, file: &str, diagnostic: &Diagnostic) -> std::io::Result<()> {
    let color = match diagnostic.severity {
        Severity::Error => Color::Red,
        Severity::Warning => Color::Yellow,
    };
    write!(out, "{file}: ")?;
    out.set_color(ColorSpec::new().set_fg(Some(color)).set_bold(true))?;
    write!(out, "{}", diagnostic.severity.name())?;
    out.reset()?;
    writeln!(out, ": {}", diagnostic.message)
}

/// The [`FileDiagnostic`] of `diagnostic` about `file`, as one line of JSON.
pub fn json(file: &str, diagnostic: &Diagnostic) -> String {
    let line = FileDiagnostic { file: file.to_string(), diagnostic: diagnostic.clone() };
    // Strings, numbers and nulls under string keys: there is nothing serde_json could refuse.
    serde_json::to_string(&line).expect("a diagnostic serializes")
}

/// A GitHub Actions workflow command, `::error file=F,line=L,col=C::MESSAGE` (or `::warning`),
/// which the runner shows as an annotation on the file. Escaped as the runner expects: `%`, CR
/// and LF everywhere, and `:` and `,` in the properties too.
pub fn github(file: &str, diagnostic: &Diagnostic) -> String {
    let mut properties = vec![format!("file={}", github_escape(file, true))];
    if let Some(line) = diagnostic.line {
        properties.push(format!("line={line}"));
    }
    if let Some(column) = diagnostic.column {
        properties.push(format!("col={column}"));
    }
    format!("::{} {}::{}", diagnostic.severity.name(), properties.join(","), github_escape(&diagnostic.message, false))
}

fn github_escape(text: &str, property: bool) -> String {
    let mut escaped = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '%' => escaped.push_str("%25"),
            '\r' => escaped.push_str("%0D"),
            '\n' => escaped.push_str("%0A"),
            ':' if property => escaped.push_str("%3A"),
            ',' if property => escaped.push_str("%2C"),
            c => escaped.push(c),
        }
    }
    escaped
}

#[cfg(test)]
mod tests {
    use super::*;
    use codespan_reporting::term::termcolor::Buffer;

    fn located() -> Diagnostic {
        Diagnostic {
            location: Location {
                word_offset: Some(42),
                opcode: Some(spirv::Op::IAdd),
                result_id: Some(7),
                function: Some(4),
                block: Some(5),
            },
            ..Diagnostic::error("cannot translate: it")
        }
    }

    fn warning(message: &str) -> Warning {
        Warning::new(message, Location::default())
    }

    #[test]
    fn json_has_every_field_and_null_for_the_unknown() {
        assert_eq!(
            json("a.spv", &located()),
            r#"{"file":"a.spv","severity":"error","message":"cannot translate: it","result_id":7,"word_offset":42,"opcode":"OpIAdd","function":4,"block":5,"line":null,"column":null}"#
        );
        let warning = Diagnostic::from_warning(&warning("dropped"), false, Some(3));
        assert_eq!(
            json("b.spvasm", &warning),
            r#"{"file":"b.spvasm","severity":"warning","message":"dropped","result_id":null,"word_offset":null,"opcode":null,"function":null,"block":null,"line":3,"column":1}"#
        );
    }

    #[test]
    fn json_escapes_every_string_and_reads_back_the_same() {
        let tricky = Diagnostic::error("a\"b\\c line\nnext\r\ttab \u{1}\u{1f} é `%1` ✓");
        let line = json("dir/\"quoted\"\u{7f}.spv", &tricky);
        assert!(line.contains(r#""message":"a\"b\\c line\nnext\r\ttab \u0001\u001f é `%1` ✓""#), "{line}");
        assert!(!line.contains('\n'), "one line: {line}");
        let back: FileDiagnostic = serde_json::from_str(&line).unwrap();
        assert_eq!(back, FileDiagnostic { file: "dir/\"quoted\"\u{7f}.spv".into(), diagnostic: tricky });
        let back: FileDiagnostic = serde_json::from_str(&json("a.spv", &located())).unwrap();
        assert_eq!(back.diagnostic, located());
    }

    #[test]
    fn an_unknown_opcode_name_is_refused_when_read_back() {
        let line = json("a.spv", &located()).replace("OpIAdd", "OpNoSuchThing");
        let error = serde_json::from_str::<FileDiagnostic>(&line).unwrap_err();
        assert!(error.to_string().contains("`OpNoSuchThing` is not a SPIR-V opcode"), "{error}");
    }

    #[test]
    fn github_escapes_percent_and_line_breaks_and_property_separators() {
        let diagnostic = Diagnostic {
            line: Some(12),
            column: Some(3),
            ..Diagnostic::error("100% wrong\r\nsecond line: here, there")
        };
        assert_eq!(
            github("dir,1/a:b%.spvasm", &diagnostic),
            "::error file=dir%2C1/a%3Ab%25.spvasm,line=12,col=3::100%25 wrong%0D%0Asecond line: here, there"
        );
        let dropped = Diagnostic::from_warning(&warning("dropped"), false, None);
        assert_eq!(github("a.spv", &dropped), "::warning file=a.spv::dropped");
    }

    #[test]
    fn a_denied_warning_is_an_error_that_says_so_and_where() {
        let at = Location { word_offset: Some(27), opcode: Some(spirv::Op::EntryPoint), ..Location::default() };
        let denied = Diagnostic::from_warning(&Warning::new("skipped entry point `gs`", at.clone()), true, None);
        assert_eq!(denied.severity, Severity::Error);
        assert_eq!(denied.message, "skipped entry point `gs` (at word 0x1b, OpEntryPoint) (warnings are denied)");
        assert_eq!(denied.location, at);
    }

    #[test]
    fn human_lines_are_colored_only_when_the_output_takes_colors() {
        let warning = Diagnostic::from_warning(&warning("dropped"), false, None);
        let mut plain = Buffer::no_color();
        human(&mut plain, "a.spv", &warning).unwrap();
        assert_eq!(String::from_utf8(plain.into_inner()).unwrap(), "a.spv: warning: dropped\n");
        let mut colored = Buffer::ansi();
        human(&mut colored, "a.spv", &warning).unwrap();
        let colored = String::from_utf8(colored.into_inner()).unwrap();
        assert!(colored.contains("\u{1b}[") && colored.contains("warning"), "{colored:?}");
    }

    #[test]
    fn errors_in_assembly_text_point_at_their_line() {
        let syntax = "OpCapability Shader\nOpMemoryModel Logical GLSL450\n%x = OpIAdd %int %a %b\n";
        let error = crate::translate(syntax.as_bytes(), &crate::Options::default()).unwrap_err();
        let diagnostic = Diagnostic::from_error(&error, syntax.as_bytes());
        assert_eq!((diagnostic.line, diagnostic.column), (Some(3), Some(13)), "{error}");

        // An error found after assembly, by word offset: line 15 is `OpEntryPoint Geometry %gs "gs"`.
        let text = include_bytes!("../fixtures/spvasm/io_multi_entry_points.spvasm");
        let options = crate::Options { entry_point: Some("gs".into()), ..crate::Options::default() };
        let error = crate::translate(text, &options).unwrap_err();
        let diagnostic = Diagnostic::from_error(&error, text);
        assert_eq!((diagnostic.line, diagnostic.column), (Some(15), Some(1)), "{error}");
        assert_eq!(diagnostic.location.opcode, Some(spirv::Op::EntryPoint));
    }

    #[test]
    fn warnings_in_assembly_text_point_at_their_line() {
        // Without --entry-point the geometry shader on line 15 is skipped with a warning.
        let text = include_bytes!("../fixtures/spvasm/io_multi_entry_points.spvasm");
        let result = crate::translate(text, &crate::Options::default());
        let reporter = Reporter { format: Format::Json, ..Reporter::default() };
        let mut out = Buffer::no_color();
        reporter.translation(&mut out, "m.spvasm", text, &result).unwrap();
        let out = String::from_utf8(out.into_inner()).unwrap();
        let lines: Vec<FileDiagnostic> = out.lines().map(|line| serde_json::from_str(line).unwrap()).collect();
        let skipped = lines.iter().find(|l| l.diagnostic.message.contains("`gs`")).expect(&out);
        assert_eq!((skipped.diagnostic.line, skipped.diagnostic.column), (Some(15), Some(1)), "{out}");
        assert_eq!(skipped.diagnostic.location.opcode, Some(spirv::Op::EntryPoint));
        assert_eq!(skipped.diagnostic.severity, Severity::Warning);
    }
}
