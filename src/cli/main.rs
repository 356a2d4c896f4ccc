//! The `spv2wgsl` command: reads files or stdin, translates SPIR-V to WGSL or WGSL to SPIR-V,
//! writes files or stdout, and reports what happened. The CLI's files (this one, `many.rs` for
//! `--check` and `--out-dir`, `input.rs`, `spirv_val.rs`, `progress.rs`) are the only code that
//! reads and writes files and runs processes; the translation, the parallel batch and the report
//! formats are the library.

mod input;
mod many;
mod progress;
mod spirv_val;

use std::io::{IsTerminal, Write};
use std::num::NonZeroUsize;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::{CommandFactory, Parser, ValueEnum};
use codespan_reporting::term::termcolor::{BufferedStandardStream, ColorChoice};
use spv2wgsl::ResourceBinding;
use spv2wgsl::message_format::{Diagnostic, Format, Reporter};

use input::Language;
use spirv_val::SpirvVal;

/// The translation allocates and frees many small nodes (syntax trees, tables, naga's IR); mimalloc
/// takes 10% to 25% less time than glibc's malloc on modules from about 400 KB, for 10% to 31% more
/// peak memory, is even from 16 KB, and costs about 0.15 ms more per process below
/// (docs/performance.md, phase 10). Behind the default feature `mimalloc`; the library sets no
/// allocator.
#[cfg(feature = "mimalloc")]
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

const EXAMPLES: &str = "\
Examples:
  spv2wgsl shader.frag.spv -o shader.frag.wgsl     translate a file
  spv2wgsl shader.spvasm                           assembly text in, WGSL to stdout
  glslangValidator -V s.comp -o /dev/stdout | spv2wgsl - -o s.wgsl
  spv2wgsl multi.spv --entry-point main_vs         keep one entry point
  spv2wgsl shader.wgsl -o shader.spv               WGSL in, Vulkan SPIR-V out
  spv2wgsl shader.wgsl --to spvasm                 WGSL in, SPIR-V assembly on stdout

  In a build script, many files at once, on all cores:
  spv2wgsl shaders/*.spv --out-dir gen/            writes gen/<name>.wgsl for each input
  spv2wgsl shaders/ --out-dir gen/                 every .spv and .spvasm under shaders/

  In CI, translate and validate everything (SPIR-V and WGSL), write nothing:
  spv2wgsl --check shaders/ --deny-warnings --message-format github --validate-input

The direction follows the input (SPIR-V or WGSL: .spv and .spvasm files are SPIR-V, .wgsl files
WGSL, others and stdin by their contents) and the output's extension (.wgsl, .spv, .spvasm);
--to overrides the extension. WGSL input without either gives binary SPIR-V. --out-dir takes
SPIR-V only; --check takes both.

Exit codes: 0 translated, 1 an input cannot be translated (or a warning was denied), 2 usage
error, 3 internal error (a bug).";

/// Translate Vulkan SPIR-V to WGSL for WebGPU, and WGSL to Vulkan SPIR-V.
#[derive(Parser)]
#[command(version, about, after_help = EXAMPLES)]
struct Cli {
    /// SPIR-V binary (either byte order), SPIR-V assembly text, or WGSL; `-` or nothing reads
    /// stdin. Several inputs, or directories (every .spv and .spvasm under them, and .wgsl with
    /// --check), with --out-dir or --check.
    inputs: Vec<PathBuf>,
    /// Where to write the translation; stdout if omitted. Nothing is written if translation fails.
    #[arg(short, long, value_name = "FILE", conflicts_with_all = ["out_dir", "check"])]
    output: Option<PathBuf>,
    /// Write DIR/<name>.wgsl for each SPIR-V input (name: the file name without .spv/.spvasm).
    #[arg(long, value_name = "DIR", conflicts_with = "check")]
    out_dir: Option<PathBuf>,
    /// Translate and validate every input, write nothing: one line per problem and a summary.
    /// WGSL inputs are compiled to SPIR-V, which spirv-val checks when it is on the PATH.
    #[arg(long, conflicts_with_all = ["no_validate", "to"])]
    check: bool,
    /// Check each SPIR-V input with spirv-val (SPIRV-Tools, on the PATH) before translating it:
    /// invalid input fails with spirv-val's message.
    #[arg(long)]
    validate_input: bool,
    /// How many inputs to translate at once with --out-dir or --check [default: one per core].
    #[arg(long, value_name = "N")]
    jobs: Option<NonZeroUsize>,
    /// How to write errors and warnings (on stderr).
    #[arg(long, value_enum, value_name = "FORMAT", default_value_t = MessageFormat::Human)]
    message_format: MessageFormat,
    /// Treat warnings as errors: the input fails and nothing is written for it.
    #[arg(long)]
    deny_warnings: bool,
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
    /// Write the resource bindings (group, binding, WGSL name and type, the SPIR-V set, binding
    /// and name they came from, whether spv2wgsl assigned them) to FILE as JSON; for WGSL input,
    /// the specialization constants (each override's SpecId, type and default).
    #[arg(long, value_name = "FILE", conflicts_with_all = ["out_dir", "check"])]
    binding_map: Option<PathBuf>,
    /// Bind the sampler split from the combined image sampler at SET:BINDING (or the comparison
    /// twin of the sampler there) at GROUP:BINDING instead of the next free binding. Repeatable.
    #[arg(long, value_name = "SET:BINDING=GROUP:BINDING", value_parser = parse_sampler_binding)]
    sampler_binding: Vec<(ResourceBinding, ResourceBinding)>,
    /// Bind the uniform buffer that replaces push constants at GROUP:BINDING (default: group 0,
    /// the next free binding).
    #[arg(long, value_name = "GROUP:BINDING")]
    push_constant_binding: Option<ResourceBinding>,
    /// Read BaseVertex, BaseInstance and DrawIndex (which WebGPU lacks) from a uniform buffer the
    /// application fills before each draw, instead of failing (see docs/builtins.md).
    #[arg(long)]
    emulate_draw_parameters: bool,
    /// Bind that uniform buffer at GROUP:BINDING (default: group 0, the next free binding).
    #[arg(long, value_name = "GROUP:BINDING", requires = "emulate_draw_parameters")]
    draw_parameters_binding: Option<ResourceBinding>,
    /// Give the specialization constant with SpecId ID this value (true/false, an integer or a
    /// number); it becomes a constant instead of a WGSL `override`. Repeatable.
    #[arg(long = "override", value_name = "ID=VALUE", value_parser = parse_override)]
    overrides: Vec<(u32, String)>,
    /// Fail where WGSL's uniformity analysis rejects derivatives or implicit-lod sampling that
    /// SPIR-V allowed, instead of turning the check off with a diagnostic directive.
    #[arg(long)]
    strict_uniformity: bool,
    /// SPIR-V version to write (WGSL input): 1.0 to 1.6.
    #[arg(long, value_name = "MAJOR.MINOR", value_parser = parse_spirv_version)]
    spirv_version: Option<(u8, u8)>,
    /// Write no OpName debug names (WGSL input).
    #[arg(long)]
    no_debug_names: bool,
    /// Color diagnostics (auto: when stderr is a terminal).
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

#[derive(Clone, Copy, ValueEnum)]
enum MessageFormat {
    /// For people: the offending instruction in context, or one line per problem with --check.
    Human,
    /// One JSON object per diagnostic per line.
    Json,
    /// GitHub Actions annotations (`::error file=...::message`).
    Github,
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let color = match cli.color {
        Color::Always => ColorChoice::Always,
        Color::Never => ColorChoice::Never,
        Color::Auto if std::io::stderr().is_terminal() => ColorChoice::Auto,
        Color::Auto => ColorChoice::Never,
    };
    let spirv_val = SpirvVal::find();
    if cli.validate_input {
        match &spirv_val {
            None => usage_error("--validate-input needs spirv-val (SPIRV-Tools) on the PATH"),
            Some(spirv_val) => {
                if let Err(error) = spirv_val.runs() {
                    usage_error(format!("--validate-input: spirv-val is on the PATH but does not run: {error}"))
                }
            }
        }
    }
    if cli.check || cli.out_dir.is_some() {
        return many::run(&cli, color, spirv_val.as_ref());
    }
    if cli.inputs.len() > 1 {
        usage_error("several inputs need --out-dir DIR (or --check)");
    }
    one(&cli, color, spirv_val.as_ref())
}

/// Exits with code 2 and clap's usage message.
fn usage_error(problem: impl std::fmt::Display) -> ! {
    Cli::command().error(clap::error::ErrorKind::ArgumentConflict, problem).exit()
}

fn reporter(cli: &Cli, listing: bool) -> Reporter {
    let format = match cli.message_format {
        MessageFormat::Human => Format::Human,
        MessageFormat::Json => Format::Json,
        MessageFormat::Github => Format::Github,
    };
    Reporter { format, listing, deny_warnings: cli.deny_warnings }
}

fn forward_options(cli: &Cli) -> spv2wgsl::Options {
    spv2wgsl::Options {
        validate: !cli.no_validate,
        entry_point: cli.entry_point.clone(),
        ignore_point_size: cli.ignore_point_size,
        annotate: cli.annotate,
        sampler_bindings: cli.sampler_binding.clone(),
        push_constant_binding: cli.push_constant_binding,
        emulate_draw_parameters: cli.emulate_draw_parameters,
        draw_parameters_binding: cli.draw_parameters_binding,
        overrides: cli.overrides.clone(),
        strict_uniformity: cli.strict_uniformity,
        // The allocator the command is built with decides (`Options::second_thread`).
        second_thread: cfg!(feature = "mimalloc"),
    }
}

fn reverse_options(cli: &Cli) -> spv2wgsl::reverse::Options {
    let defaults = spv2wgsl::reverse::Options::default();
    spv2wgsl::reverse::Options {
        spirv_version: cli.spirv_version.unwrap_or(defaults.spirv_version),
        debug_names: !cli.no_debug_names,
        entry_point: cli.entry_point.clone(),
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

/// One input, from a file or stdin, to a file or stdout, in either direction.
fn one(cli: &Cli, color: ColorChoice, spirv_val: Option<&SpirvVal>) -> ExitCode {
    // Buffered: a module can have thousands of warnings, and each unbuffered write is a system
    // call. Flushed before the output is written, and on return.
    let mut stderr = BufferedStandardStream::stderr(color);
    let reporter = reporter(cli, true);
    let stdin_name = Path::new("-");
    let input_path = cli.inputs.first().map_or(stdin_name, PathBuf::as_path);
    let shown_path = if input_path == stdin_name { "<stdin>".to_string() } else { input_path.display().to_string() };
    let input = match input::read(input_path) {
        Ok(bytes) => bytes,
        Err(e) => {
            let diagnostic = Diagnostic::error(format!("cannot read the input: {e}"));
            let _ = reporter.diagnostic(&mut stderr, &shown_path, &diagnostic);
            return ExitCode::from(1);
        }
    };
    let named = (input_path != stdin_name).then_some(input_path);
    let from_wgsl = input::language(named, &input) == Language::Wgsl;
    let target = target(cli, from_wgsl);
    if let Some(problem) = usage_problem(cli, from_wgsl, target) {
        usage_error(problem);
    }
    let translated = if from_wgsl {
        to_spirv(cli, target, &input, &shown_path, &mut stderr, &reporter)
    } else {
        to_wgsl(cli, input, named, &shown_path, &mut stderr, &reporter, spirv_val)
    };
    let output = match translated {
        Ok(bytes) => bytes,
        Err(code) => return code,
    };
    let _ = stderr.flush();
    let written = match &cli.output {
        Some(path) if path != stdin_name => write_atomically(path, &output),
        _ => std::io::stdout().write_all(&output),
    };
    match written {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            let diagnostic = Diagnostic::error(format!("cannot write the output: {e}"));
            let _ = reporter.diagnostic(&mut stderr, &shown_path, &diagnostic);
            ExitCode::from(1)
        }
    }
}

/// `--to`, else the output's extension, else the other language than the input's.
fn target(cli: &Cli, from_wgsl: bool) -> Target {
    let extension = cli.output.as_deref().and_then(Path::extension).and_then(|e| e.to_str());
    let by_extension = extension.and_then(|extension| match extension {
        "wgsl" => Some(Target::Wgsl),
        "spv" => Some(Target::Spirv),
        "spvasm" => Some(Target::Spvasm),
        _ => None,
    });
    cli.to.or(by_extension).unwrap_or(if from_wgsl { Target::Spirv } else { Target::Wgsl })
}

/// A direction the input cannot go, or an option of the other direction.
fn usage_problem(cli: &Cli, from_wgsl: bool, target: Target) -> Option<String> {
    if from_wgsl {
        let forward_only = [
            ("--no-validate", cli.no_validate),
            ("--ignore-point-size", cli.ignore_point_size),
            ("--emulate-draw-parameters", cli.emulate_draw_parameters),
        ];
        if target == Target::Wgsl {
            return Some(
                "the input is WGSL: it translates to SPIR-V (-o FILE.spv, -o FILE.spvasm or --to spirv|spvasm)".into(),
            );
        }
        let misplaced = forward_only.iter().find(|(_, given)| *given);
        return misplaced.map(|(option, _)| format!("{option} applies to SPIR-V input only"));
    }
    if target != Target::Wgsl {
        return Some("the input is SPIR-V: it translates to WGSL (-o FILE.wgsl or --to wgsl)".into());
    }
    let reverse_only = [("--spirv-version", cli.spirv_version.is_some()), ("--no-debug-names", cli.no_debug_names)];
    let misplaced = reverse_only.iter().find(|(_, given)| *given);
    misplaced.map(|(option, _)| format!("{option} applies to WGSL input only"))
}

fn parse_spirv_version(text: &str) -> Result<(u8, u8), String> {
    let version = text.split_once('.').and_then(|(major, minor)| Some((major.parse().ok()?, minor.parse().ok()?)));
    version
        .filter(|version| spv2wgsl::reverse::SPIRV_VERSIONS.contains(version))
        .ok_or_else(|| format!("`{text}` is not a SPIR-V version from 1.0 to 1.6"))
}

/// SPIR-V (binary or assembly) to WGSL, from the file at `path` or else stdin; on failure the
/// error is reported and the exit code returned.
fn to_wgsl(
    cli: &Cli,
    input: Vec<u8>,
    path: Option<&Path>,
    shown_path: &str,
    stderr: &mut BufferedStandardStream,
    reporter: &Reporter,
    spirv_val: Option<&SpirvVal>,
) -> Result<Vec<u8>, ExitCode> {
    let options = forward_options(cli);
    // A binary module in a regular file can be read again for a report: it is not kept through
    // the translation. Assembly text is (a report of a warning lists its line), and stdin, a pipe
    // or a device are read once.
    let (result, input) = match path {
        Some(path) if !spv2wgsl::is_assembly(&input) && std::fs::metadata(path).is_ok_and(|m| m.is_file()) => {
            spirv_val::translate_file(input, path, &options, spirv_val, cli.validate_input)
        }
        _ => (spirv_val::translate(&input, &options, spirv_val, cli.validate_input), input),
    };
    // A report that cannot be written to stderr has nowhere else to go.
    let _ = reporter.translation(stderr, shown_path, &input, &result);
    let failed = reporter.failed(&result);
    match result {
        Err(error) => Err(ExitCode::from(error.exit_code() as u8)),
        Ok(_) if failed => Err(ExitCode::from(1)),
        Ok(translation) => {
            if let Some(path) = &cli.binding_map
                && let Err(e) = write_atomically(path, spv2wgsl::binding_map::to_json(&translation.bindings).as_bytes())
            {
                eprintln!("error: cannot write the binding map: {e}");
                return Err(ExitCode::from(1));
            }
            Ok(translation.wgsl.into_bytes())
        }
    }
}

/// WGSL to SPIR-V, binary or assembly; on failure the error is reported and the exit code returned.
fn to_spirv(
    cli: &Cli,
    target: Target,
    input: &[u8],
    shown_path: &str,
    stderr: &mut BufferedStandardStream,
    reporter: &Reporter,
) -> Result<Vec<u8>, ExitCode> {
    let source = input::wgsl_text(input).map_err(|problem| {
        let _ = reporter.diagnostic(stderr, shown_path, &Diagnostic::error(problem));
        ExitCode::from(1)
    })?;
    let compiled = spv2wgsl::reverse::compile(source, &reverse_options(cli)).map_err(|error| {
        let _ = reporter.reverse_error(stderr, shown_path, source, &error);
        ExitCode::from(error.exit_code() as u8)
    })?;
    if let Some(path) = &cli.binding_map
        && let Err(e) =
            write_atomically(path, spv2wgsl::binding_map::spec_constants_to_json(&compiled.spec_constants).as_bytes())
    {
        eprintln!("error: cannot write the binding map: {e}");
        return Err(ExitCode::from(1));
    }
    Ok(match target {
        Target::Spvasm => compiled.disassemble().into_bytes(),
        _ => compiled.to_bytes(),
    })
}

/// Writes to a temporary file beside `path` and renames it, so `path` is either untouched or
/// complete, never half-written. A symbolic link or a path that is not a regular file
/// (`/dev/stdout`, `/dev/null`, a pipe) is written in place: renaming over it would replace the
/// link or the device with a file.
fn write_atomically(path: &Path, contents: &[u8]) -> std::io::Result<()> {
    if std::fs::symlink_metadata(path).is_ok_and(|m| !m.is_file()) {
        return std::fs::write(path, contents);
    }
    let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    let temporary = path.with_file_name(format!(".{name}.{}.tmp", std::process::id()));
    let result = std::fs::write(&temporary, contents).and_then(|()| std::fs::rename(&temporary, path));
    if result.is_err() {
        let _ = std::fs::remove_file(&temporary);
    }
    result
}
