//! Reporting what became of each input, in the format the user asked for: for people (one line,
//! or the codespan listing of [`crate::diagnostics`]), as JSON lines for tools, or as GitHub
//! Actions annotations. The JSON is written by hand: it is flat, and a dependency for it would
//! cost more than these few lines.
//!
//! ```
//! use spv2wgsl::message_format::{Diagnostic, Format, Reporter, json};
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
//! let warning = Diagnostic::warning("skipped entry point `gs`", false);
//! assert_eq!(
//!     json("b.spv", &warning),
//!     r#"{"file":"b.spv","severity":"warning","message":"skipped entry point `gs`","result_id":null,"word_offset":null,"opcode":null,"function":null,"block":null,"line":null,"column":null}"#
//! );
//! ```

use codespan_reporting::term::termcolor::{Color, ColorSpec, WriteColor};

use crate::error::{Error, Location};
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

/// How bad a diagnostic is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
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

/// One thing to tell the user about one input.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Diagnostic {
    /// An error, or a warning.
    pub severity: Severity,
    /// One line.
    pub message: String,
    /// Where in the SPIR-V, as far as known (all `None` for a warning or an I/O error).
    pub location: Location,
    /// 1-based line and column in the input's text (SPIR-V assembly or WGSL), when known.
    pub line_column: Option<(u32, u32)>,
}

impl Diagnostic {
    /// An error that is not about a place in the input, such as a file that cannot be read.
    pub fn error(message: impl Into<String>) -> Self {
        Diagnostic {
            severity: Severity::Error,
            message: message.into(),
            location: Location::default(),
            line_column: None,
        }
    }

    /// A translation's warning; `denied` (by `--deny-warnings`) makes it an error.
    pub fn warning(message: &str, denied: bool) -> Self {
        let (severity, message) = match denied {
            true => (Severity::Error, format!("{message} (warnings are denied)")),
            false => (Severity::Warning, message.to_string()),
        };
        Diagnostic { severity, ..Diagnostic::error(message) }
    }

    /// A failed translation of `input`. For assembly text, the line is that of the culprit.
    pub fn from_error(error: &Error, input: &[u8]) -> Self {
        let location = error.location().cloned().unwrap_or_default();
        let line_column = match error {
            Error::Assembly(assembly) => Some((assembly.line, assembly.column)),
            _ if crate::is_assembly(input) => location
                .word_offset
                .and_then(|offset| crate::diagnostics::assembly_line(input, offset))
                .map(|line| (line, 1)),
            _ => None,
        };
        Diagnostic { location, line_column, ..Diagnostic::error(error.to_string()) }
    }

    /// A failed translation of WGSL to SPIR-V.
    pub fn from_reverse_error(error: &reverse::Error) -> Self {
        let line_column = match error {
            reverse::Error::Wgsl { line_column, .. } => *line_column,
            _ => None,
        };
        Diagnostic { line_column, ..Diagnostic::error(error.to_string()) }
    }

    /// Whether it points at a place in the input, which a listing can show.
    fn has_place(&self) -> bool {
        self.line_column.is_some() || self.location.word_offset.is_some()
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
            Ok(translation) => translation
                .warnings
                .iter()
                .try_for_each(|warning| self.diagnostic(out, file, &Diagnostic::warning(warning, self.deny_warnings))),
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

/// One JSON object on one line, with every key present (`null` when not known):
///
/// `{"file":"a.spv","severity":"error","message":"...","result_id":7,"word_offset":42,
/// "opcode":"OpIAdd","function":4,"block":5,"line":null,"column":null}`
///
/// `word_offset` counts words from the start of the module (the header is words 0 to 4); `line`
/// and `column` are 1-based, in the input's text.
pub fn json(file: &str, diagnostic: &Diagnostic) -> String {
    let location = &diagnostic.location;
    let number = |value: Option<u32>| value.map_or("null".to_string(), |n| n.to_string());
    let fields = [
        ("file", json_string(file)),
        ("severity", json_string(diagnostic.severity.name())),
        ("message", json_string(&diagnostic.message)),
        ("result_id", number(location.result_id)),
        ("word_offset", number(location.word_offset)),
        ("opcode", location.opcode.map_or("null".to_string(), |op| json_string(&format!("Op{op:?}")))),
        ("function", number(location.function)),
        ("block", number(location.block)),
        ("line", number(diagnostic.line_column.map(|(line, _)| line))),
        ("column", number(diagnostic.line_column.map(|(_, column)| column))),
    ];
    let fields: Vec<String> = fields.iter().map(|(key, value)| format!("\"{key}\":{value}")).collect();
    format!("{{{}}}", fields.join(","))
}

/// A JSON string literal: quotes, backslashes and control characters escaped.
fn json_string(text: &str) -> String {
    let mut quoted = String::with_capacity(text.len() + 2);
    quoted.push('"');
    for c in text.chars() {
        match c {
            '"' => quoted.push_str("\\\""),
            '\\' => quoted.push_str("\\\\"),
            '\n' => quoted.push_str("\\n"),
            '\r' => quoted.push_str("\\r"),
            '\t' => quoted.push_str("\\t"),
            c if c < ' ' => quoted.push_str(&format!("\\u{:04x}", c as u32)),
            c => quoted.push(c),
        }
    }
    quoted.push('"');
    quoted
}

/// A GitHub Actions workflow command, `::error file=F,line=L,col=C::MESSAGE` (or `::warning`),
/// which the runner shows as an annotation on the file. Escaped as the runner expects: `%`, CR
/// and LF everywhere, and `:` and `,` in the properties too.
pub fn github(file: &str, diagnostic: &Diagnostic) -> String {
    let mut properties = vec![format!("file={}", github_escape(file, true))];
    if let Some((line, column)) = diagnostic.line_column {
        properties.push(format!("line={line}"));
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

    #[test]
    fn json_has_every_field_and_null_for_the_unknown() {
        assert_eq!(
            json("a.spv", &located()),
            r#"{"file":"a.spv","severity":"error","message":"cannot translate: it","result_id":7,"word_offset":42,"opcode":"OpIAdd","function":4,"block":5,"line":null,"column":null}"#
        );
        let warning = Diagnostic { line_column: Some((3, 9)), ..Diagnostic::warning("dropped", false) };
        assert_eq!(
            json("b.spvasm", &warning),
            r#"{"file":"b.spvasm","severity":"warning","message":"dropped","result_id":null,"word_offset":null,"opcode":null,"function":null,"block":null,"line":3,"column":9}"#
        );
    }

    #[test]
    fn json_strings_escape_quotes_backslashes_and_control_characters() {
        assert_eq!(json_string("a\"b\\c"), r#""a\"b\\c""#);
        assert_eq!(json_string("line\nnext\r\ttab"), r#""line\nnext\r\ttab""#);
        assert_eq!(json_string("\u{1}\u{1f}"), r#""\u0001\u001f""#);
        assert_eq!(json_string("é `%1` ✓"), "\"é `%1` ✓\"");
    }

    #[test]
    fn github_escapes_percent_and_line_breaks_and_property_separators() {
        let diagnostic =
            Diagnostic { line_column: Some((12, 3)), ..Diagnostic::error("100% wrong\r\nsecond line: here, there") };
        assert_eq!(
            github("dir,1/a:b%.spvasm", &diagnostic),
            "::error file=dir%2C1/a%3Ab%25.spvasm,line=12,col=3::100%25 wrong%0D%0Asecond line: here, there"
        );
        assert_eq!(github("a.spv", &Diagnostic::warning("dropped", false)), "::warning file=a.spv::dropped");
    }

    #[test]
    fn a_denied_warning_is_an_error_that_says_so() {
        let denied = Diagnostic::warning("skipped entry point `gs`", true);
        assert_eq!(denied.severity, Severity::Error);
        assert_eq!(denied.message, "skipped entry point `gs` (warnings are denied)");
    }

    #[test]
    fn human_lines_are_colored_only_when_the_output_takes_colors() {
        let warning = Diagnostic::warning("dropped", false);
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
        assert_eq!(Diagnostic::from_error(&error, syntax.as_bytes()).line_column, Some((3, 13)), "{error}");

        // An error found after assembly, by word offset: line 15 is `OpEntryPoint Geometry %gs "gs"`.
        let text = include_bytes!("../fixtures/spvasm/io_multi_entry_points.spvasm");
        let options = crate::Options { entry_point: Some("gs".into()), ..crate::Options::default() };
        let error = crate::translate(text, &options).unwrap_err();
        let diagnostic = Diagnostic::from_error(&error, text);
        assert_eq!(diagnostic.line_column, Some((15, 1)), "{error}");
        assert_eq!(diagnostic.location.opcode, Some(spirv::Op::EntryPoint));
    }
}
