//! The `spv2wgsl` command: reads a file or stdin, translates, writes a file or stdout. Only this
//! file does I/O; everything else is the library.

use std::io::{IsTerminal, Read, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::{Parser, ValueEnum};
use codespan_reporting::term::termcolor::{ColorChoice, StandardStream};

const EXAMPLES: &str = "\
Examples:
  spv2wgsl shader.frag.spv -o shader.frag.wgsl     translate a file
  spv2wgsl shader.spvasm                           assembly text in, WGSL to stdout
  glslangValidator -V s.comp -o /dev/stdout | spv2wgsl - -o s.wgsl
  spv2wgsl multi.spv --entry-point main_vs         keep one entry point

Exit codes: 0 translated, 1 the input cannot be translated, 2 usage error, 3 internal error (a bug).";

/// Translate Vulkan SPIR-V to WGSL for WebGPU.
#[derive(Parser)]
#[command(version, about, after_help = EXAMPLES)]
struct Cli {
    /// SPIR-V binary (either byte order) or SPIR-V assembly text; `-` or nothing reads stdin.
    input: Option<PathBuf>,
    /// Where to write the WGSL; stdout if omitted. Nothing is written if translation fails.
    #[arg(short, long, value_name = "FILE")]
    output: Option<PathBuf>,
    /// Translate only the entry point with this name.
    #[arg(long, value_name = "NAME")]
    entry_point: Option<String>,
    /// Skip validating the generated WGSL with naga.
    #[arg(long)]
    no_validate: bool,
    /// Drop gl_PointSize writes of values other than 1.0 with a warning instead of failing.
    #[arg(long)]
    ignore_point_size: bool,
    /// Color diagnostics.
    #[arg(long, value_enum, default_value_t = Color::Auto)]
    color: Color,
}

#[derive(Clone, Copy, ValueEnum)]
enum Color {
    Auto,
    Always,
    Never,
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let color = match cli.color {
        Color::Always => ColorChoice::Always,
        Color::Never => ColorChoice::Never,
        Color::Auto if std::io::stderr().is_terminal() => ColorChoice::Auto,
        Color::Auto => ColorChoice::Never,
    };
    let stdin_name = Path::new("-");
    let input_path = cli.input.as_deref().unwrap_or(stdin_name);
    let shown_path = if input_path == stdin_name { "<stdin>".to_string() } else { input_path.display().to_string() };
    let input = match read_input(input_path) {
        Ok(bytes) => bytes,
        Err(e) => {
            eprintln!("error: cannot read {shown_path}: {e}");
            return ExitCode::from(1);
        }
    };
    let options = spv2wgsl::Options {
        validate: !cli.no_validate,
        entry_point: cli.entry_point,
        ignore_point_size: cli.ignore_point_size,
    };
    let translation = match spv2wgsl::translate(&input, &options) {
        Ok(t) => t,
        Err(error) => {
            let mut stderr = StandardStream::stderr(color);
            if spv2wgsl::diagnostics::render(&error, &shown_path, &input, &mut stderr).is_err() {
                eprintln!("error: {error}");
            }
            return ExitCode::from(error.exit_code() as u8);
        }
    };
    for warning in &translation.warnings {
        eprintln!("warning: {warning}");
    }
    let written = match &cli.output {
        Some(path) if path != stdin_name => write_atomically(path, translation.wgsl.as_bytes()),
        _ => std::io::stdout().write_all(translation.wgsl.as_bytes()),
    };
    match written {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: cannot write the output: {e}");
            ExitCode::from(1)
        }
    }
}

fn read_input(path: &Path) -> std::io::Result<Vec<u8>> {
    let mut bytes = Vec::new();
    if path == Path::new("-") {
        std::io::stdin().read_to_end(&mut bytes)?;
    } else {
        bytes = std::fs::read(path)?;
    }
    Ok(bytes)
}

/// Writes to a temporary file beside `path` and renames it, so `path` is either untouched or
/// complete, never half-written.
fn write_atomically(path: &Path, contents: &[u8]) -> std::io::Result<()> {
    let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    let temporary = path.with_file_name(format!(".{name}.{}.tmp", std::process::id()));
    let result = std::fs::write(&temporary, contents).and_then(|()| std::fs::rename(&temporary, path));
    if result.is_err() {
        let _ = std::fs::remove_file(&temporary);
    }
    result
}
