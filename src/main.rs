//! The `spv2wgsl` command: reads a file or stdin, translates SPIR-V to WGSL or WGSL to SPIR-V,
//! writes a file or stdout. Only this file does I/O; everything else is the library.

use std::io::{IsTerminal, Read, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::{CommandFactory, Parser, ValueEnum};
use codespan_reporting::term::termcolor::{ColorChoice, StandardStream};

const EXAMPLES: &str = "\
Examples:
  spv2wgsl shader.frag.spv -o shader.frag.wgsl     translate a file
  spv2wgsl shader.spvasm                           assembly text in, WGSL to stdout
  glslangValidator -V s.comp -o /dev/stdout | spv2wgsl - -o s.wgsl
  spv2wgsl multi.spv --entry-point main_vs         keep one entry point
  spv2wgsl shader.wgsl -o shader.spv               WGSL in, Vulkan SPIR-V out
  spv2wgsl shader.wgsl --to spvasm                 WGSL in, SPIR-V assembly on stdout

The direction follows the input (SPIR-V or WGSL) and the output's extension (.wgsl, .spv,
.spvasm); --to overrides the extension. WGSL input without either gives binary SPIR-V.

Exit codes: 0 translated, 1 the input cannot be translated, 2 usage error, 3 internal error (a bug).";

/// Translate Vulkan SPIR-V to WGSL for WebGPU, and WGSL to Vulkan SPIR-V.
#[derive(Parser)]
#[command(version, about, after_help = EXAMPLES)]
struct Cli {
    /// SPIR-V binary (either byte order), SPIR-V assembly text, or WGSL; `-` or nothing reads stdin.
    input: Option<PathBuf>,
    /// Where to write the translation; stdout if omitted. Nothing is written if translation fails.
    #[arg(short, long, value_name = "FILE")]
    output: Option<PathBuf>,
    /// What to write, whatever the output's extension says.
    #[arg(long, value_enum, value_name = "FORMAT")]
    to: Option<Target>,
    /// Translate only the entry point with this name.
    #[arg(long, value_name = "NAME")]
    entry_point: Option<String>,
    /// Skip validating the generated WGSL with naga.
    #[arg(long)]
    no_validate: bool,
    /// Drop gl_PointSize writes of values other than 1.0 with a warning instead of failing.
    #[arg(long)]
    ignore_point_size: bool,
    /// End each statement with a comment naming its SPIR-V id and, when the module has line
    /// information (glslangValidator -g), the source file and line.
    #[arg(long)]
    annotate: bool,
    /// SPIR-V version to write (WGSL input): 1.0 to 1.6.
    #[arg(long, value_name = "MAJOR.MINOR", value_parser = parse_spirv_version)]
    spirv_version: Option<(u8, u8)>,
    /// Write no OpName debug names (WGSL input).
    #[arg(long)]
    no_debug_names: bool,
    /// Color diagnostics.
    #[arg(long, value_enum, default_value_t = Color::Auto)]
    color: Color,
}

#[derive(Clone, Copy, PartialEq, ValueEnum)]
enum Target {
    /// WGSL text.
    Wgsl,
    /// A SPIR-V binary module.
    Spirv,
    /// SPIR-V assembly text.
    Spvasm,
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
    let shown_path = if input_path == stdin_name {
        "<stdin>".to_string()
    } else {
        input_path.display().to_string()
    };
    let input = match read_input(input_path) {
        Ok(bytes) => bytes,
        Err(e) => {
            eprintln!("error: cannot read {shown_path}: {e}");
            return ExitCode::from(1);
        }
    };
    let from_wgsl = spv2wgsl::reverse::is_wgsl(&input);
    let target = target(&cli, from_wgsl);
    if let Some(problem) = usage_problem(&cli, from_wgsl, target) {
        Cli::command()
            .error(clap::error::ErrorKind::ArgumentConflict, problem)
            .exit();
    }
    let translated = if from_wgsl {
        to_spirv(&cli, target, &input, &shown_path, color)
    } else {
        to_wgsl(&cli, &input, &shown_path, color)
    };
    let output = match translated {
        Ok(bytes) => bytes,
        Err(code) => return code,
    };
    let written = match &cli.output {
        Some(path) if path != stdin_name => write_atomically(path, &output),
        _ => std::io::stdout().write_all(&output),
    };
    match written {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: cannot write the output: {e}");
            ExitCode::from(1)
        }
    }
}

/// `--to`, else the output's extension, else the other language than the input's.
fn target(cli: &Cli, from_wgsl: bool) -> Target {
    let extension = cli
        .output
        .as_deref()
        .and_then(Path::extension)
        .and_then(|e| e.to_str());
    let by_extension = extension.and_then(|extension| match extension {
        "wgsl" => Some(Target::Wgsl),
        "spv" => Some(Target::Spirv),
        "spvasm" => Some(Target::Spvasm),
        _ => None,
    });
    cli.to.or(by_extension).unwrap_or(if from_wgsl {
        Target::Spirv
    } else {
        Target::Wgsl
    })
}

/// A direction the input cannot go, or an option of the other direction.
fn usage_problem(cli: &Cli, from_wgsl: bool, target: Target) -> Option<String> {
    if from_wgsl {
        let forward_only = [
            ("--no-validate", cli.no_validate),
            ("--ignore-point-size", cli.ignore_point_size),
        ];
        if target == Target::Wgsl {
            return Some("the input is WGSL: it translates to SPIR-V (-o FILE.spv, -o FILE.spvasm or --to spirv|spvasm)".into());
        }
        let misplaced = forward_only.iter().find(|(_, given)| *given);
        return misplaced.map(|(option, _)| format!("{option} applies to SPIR-V input only"));
    }
    if target != Target::Wgsl {
        return Some(
            "the input is SPIR-V: it translates to WGSL (-o FILE.wgsl or --to wgsl)".into(),
        );
    }
    let reverse_only = [
        ("--spirv-version", cli.spirv_version.is_some()),
        ("--no-debug-names", cli.no_debug_names),
    ];
    let misplaced = reverse_only.iter().find(|(_, given)| *given);
    misplaced.map(|(option, _)| format!("{option} applies to WGSL input only"))
}

fn parse_spirv_version(text: &str) -> Result<(u8, u8), String> {
    let version = text
        .split_once('.')
        .and_then(|(major, minor)| Some((major.parse().ok()?, minor.parse().ok()?)));
    version
        .filter(|version| spv2wgsl::reverse::SPIRV_VERSIONS.contains(version))
        .ok_or_else(|| format!("`{text}` is not a SPIR-V version from 1.0 to 1.6"))
}

/// SPIR-V (binary or assembly) to WGSL; on failure the error is printed and the exit code returned.
fn to_wgsl(
    cli: &Cli,
    input: &[u8],
    shown_path: &str,
    color: ColorChoice,
) -> Result<Vec<u8>, ExitCode> {
    let options = spv2wgsl::Options {
        validate: !cli.no_validate,
        entry_point: cli.entry_point.clone(),
        ignore_point_size: cli.ignore_point_size,
        annotate: cli.annotate,
    };
    let translation = spv2wgsl::translate(input, &options).map_err(|error| {
        let mut stderr = StandardStream::stderr(color);
        if spv2wgsl::diagnostics::render(&error, shown_path, input, &mut stderr).is_err() {
            eprintln!("error: {error}");
        }
        ExitCode::from(error.exit_code() as u8)
    })?;
    for warning in &translation.warnings {
        eprintln!("warning: {warning}");
    }
    Ok(translation.wgsl.into_bytes())
}

/// WGSL to SPIR-V, binary or assembly; on failure the error is printed and the exit code returned.
fn to_spirv(
    cli: &Cli,
    target: Target,
    input: &[u8],
    shown_path: &str,
    color: ColorChoice,
) -> Result<Vec<u8>, ExitCode> {
    let defaults = spv2wgsl::reverse::Options::default();
    let options = spv2wgsl::reverse::Options {
        spirv_version: cli.spirv_version.unwrap_or(defaults.spirv_version),
        debug_names: !cli.no_debug_names,
        entry_point: cli.entry_point.clone(),
    };
    // `is_wgsl` only accepts UTF-8.
    let source = String::from_utf8_lossy(input);
    let compiled = spv2wgsl::reverse::compile(&source, &options).map_err(|error| {
        let mut stderr = StandardStream::stderr(color);
        if spv2wgsl::reverse::render(&error, shown_path, &source, &mut stderr).is_err() {
            eprintln!("error: {error}");
        }
        ExitCode::from(error.exit_code() as u8)
    })?;
    Ok(match target {
        Target::Spvasm => compiled.disassemble().into_bytes(),
        _ => compiled.to_bytes(),
    })
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
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let temporary = path.with_file_name(format!(".{name}.{}.tmp", std::process::id()));
    let result =
        std::fs::write(&temporary, contents).and_then(|()| std::fs::rename(&temporary, path));
    if result.is_err() {
        let _ = std::fs::remove_file(&temporary);
    }
    result
}
