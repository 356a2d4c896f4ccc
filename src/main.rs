//! The `spv2wgsl` command: reads a file or stdin, translates, writes a file or stdout. Only this
//! file does I/O; everything else is the library.

use std::io::{IsTerminal, Read, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::{Parser, ValueEnum};
use codespan_reporting::term::termcolor::{ColorChoice, StandardStream};
use spv2wgsl::ResourceBinding;

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
    /// Write the resource bindings (group, binding, WGSL name and type, the SPIR-V set, binding
    /// and name they came from, whether spv2wgsl assigned them) to FILE as JSON.
    #[arg(long, value_name = "FILE")]
    binding_map: Option<PathBuf>,
    /// Bind the sampler split from the combined image sampler at SET:BINDING (or the comparison
    /// twin of the sampler there) at GROUP:BINDING instead of the next free binding. Repeatable.
    #[arg(long, value_name = "SET:BINDING=GROUP:BINDING", value_parser = parse_sampler_binding)]
    sampler_binding: Vec<(ResourceBinding, ResourceBinding)>,
    /// Bind the uniform buffer that replaces push constants at GROUP:BINDING (default: group 0,
    /// the next free binding).
    #[arg(long, value_name = "GROUP:BINDING")]
    push_constant_binding: Option<ResourceBinding>,
    /// Give the specialization constant with SpecId ID this value (true/false, an integer or a
    /// number); it becomes a constant instead of a WGSL `override`. Repeatable.
    #[arg(long = "override", value_name = "ID=VALUE", value_parser = parse_override)]
    overrides: Vec<(u32, String)>,
    /// Fail where WGSL's uniformity analysis rejects derivatives or implicit-lod sampling that
    /// SPIR-V allowed, instead of turning the check off with a diagnostic directive.
    #[arg(long)]
    strict_uniformity: bool,
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
        sampler_bindings: cli.sampler_binding,
        push_constant_binding: cli.push_constant_binding,
        overrides: cli.overrides,
        strict_uniformity: cli.strict_uniformity,
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
    let map_written = match &cli.binding_map {
        Some(path) => write_atomically(path, spv2wgsl::binding_map::to_json(&translation.bindings).as_bytes()),
        None => Ok(()),
    };
    let written = map_written.and_then(|()| match &cli.output {
        Some(path) if path != stdin_name => write_atomically(path, translation.wgsl.as_bytes()),
        _ => std::io::stdout().write_all(translation.wgsl.as_bytes()),
    });
    match written {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: cannot write the output: {e}");
            ExitCode::from(1)
        }
    }
}

fn parse_sampler_binding(text: &str) -> Result<(ResourceBinding, ResourceBinding), String> {
    let (source, target) = text.split_once('=').ok_or_else(|| format!("`{text}` is not SET:BINDING=GROUP:BINDING"))?;
    Ok((source.parse()?, target.parse()?))
}

fn parse_override(text: &str) -> Result<(u32, String), String> {
    let (id, value) = text.split_once('=').ok_or_else(|| format!("`{text}` is not ID=VALUE"))?;
    let id = id.trim().parse().map_err(|_| format!("`{id}` is not a SpecId (a number)"))?;
    Ok((id, value.to_string()))
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
