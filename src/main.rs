//! The `spv2wgsl` command: reads files or stdin, translates SPIR-V to WGSL or WGSL to SPIR-V,
//! writes files or stdout, and reports what happened. Only this file does I/O on file contents;
//! everything else, the parallel batch and the report formats included, is the library.

use std::io::{IsTerminal, Read, Write};
use std::num::NonZeroUsize;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::{CommandFactory, Parser, ValueEnum};
use codespan_reporting::term::termcolor::{Buffer, BufferWriter, BufferedStandardStream, ColorChoice};
use spv2wgsl::ResourceBinding;
use spv2wgsl::batch;
use spv2wgsl::message_format::{Diagnostic, Format, Reporter};

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

  In CI, translate and validate everything, write nothing:
  spv2wgsl --check shaders/ --deny-warnings --message-format github

The direction follows the input (SPIR-V or WGSL) and the output's extension (.wgsl, .spv,
.spvasm); --to overrides the extension. WGSL input without either gives binary SPIR-V.
--check and --out-dir take SPIR-V only.

Exit codes: 0 translated, 1 an input cannot be translated (or a warning was denied), 2 usage
error, 3 internal error (a bug).";

/// Translate Vulkan SPIR-V to WGSL for WebGPU, and WGSL to Vulkan SPIR-V.
#[derive(Parser)]
#[command(version, about, after_help = EXAMPLES)]
struct Cli {
    /// SPIR-V binary (either byte order), SPIR-V assembly text, or WGSL; `-` or nothing reads
    /// stdin. Several inputs, or directories (every .spv and .spvasm under them), with --out-dir
    /// or --check.
    inputs: Vec<PathBuf>,
    /// Where to write the translation; stdout if omitted. Nothing is written if translation fails.
    #[arg(short, long, value_name = "FILE", conflicts_with_all = ["out_dir", "check"])]
    output: Option<PathBuf>,
    /// Write DIR/<name>.wgsl for each SPIR-V input (name: the file name without .spv/.spvasm).
    #[arg(long, value_name = "DIR", conflicts_with = "check")]
    out_dir: Option<PathBuf>,
    /// Translate and validate every input, write nothing: one line per problem and a summary.
    #[arg(long, conflicts_with = "no_validate")]
    check: bool,
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
    if cli.check || cli.out_dir.is_some() {
        return many(&cli, color);
    }
    if cli.inputs.len() > 1 {
        usage_error("several inputs need --out-dir DIR (or --check)");
    }
    one(&cli, color)
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
        overrides: cli.overrides.clone(),
        strict_uniformity: cli.strict_uniformity,
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
fn one(cli: &Cli, color: ColorChoice) -> ExitCode {
    // Buffered: a module can have thousands of warnings, and each unbuffered write is a system
    // call. Flushed before the output is written, and on return.
    let mut stderr = BufferedStandardStream::stderr(color);
    let reporter = reporter(cli, true);
    let stdin_name = Path::new("-");
    let input_path = cli.inputs.first().map_or(stdin_name, PathBuf::as_path);
    let shown_path = if input_path == stdin_name { "<stdin>".to_string() } else { input_path.display().to_string() };
    let input = match read_input(input_path) {
        Ok(bytes) => bytes,
        Err(e) => {
            let diagnostic = Diagnostic::error(format!("cannot read the input: {e}"));
            let _ = reporter.diagnostic(&mut stderr, &shown_path, &diagnostic);
            return ExitCode::from(1);
        }
    };
    let from_wgsl = spv2wgsl::reverse::is_wgsl(&input);
    let target = target(cli, from_wgsl);
    if let Some(problem) = usage_problem(cli, from_wgsl, target) {
        usage_error(problem);
    }
    let translated = if from_wgsl {
        to_spirv(cli, target, &input, &shown_path, &mut stderr, &reporter)
    } else {
        to_wgsl(cli, &input, &shown_path, &mut stderr, &reporter)
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

/// `--check` or `--out-dir`: every SPIR-V input, in parallel, reported in input order.
fn many(cli: &Cli, color: ColorChoice) -> ExitCode {
    if cli.inputs.is_empty() || cli.inputs.iter().any(|input| input == Path::new("-")) {
        usage_error("--check and --out-dir take files and directories, not stdin");
    }
    if let Some(problem) = usage_problem(cli, false, cli.to.unwrap_or(Target::Wgsl)) {
        usage_error(problem);
    }
    let reporter = reporter(cli, !cli.check);
    let stderr = BufferWriter::stderr(color);
    let fail_early = |file: &Path, message: String| {
        let mut report = stderr.buffer();
        let _ = reporter.diagnostic(&mut report, &file.display().to_string(), &Diagnostic::error(message));
        let _ = stderr.print(&report);
        ExitCode::from(1)
    };
    let inputs = match batch::spirv_files(&cli.inputs) {
        Ok(inputs) => inputs,
        Err(e) => {
            return fail_early(&e.directory, format!("cannot list the directory: {}", e.error));
        }
    };
    let outputs: Vec<Option<PathBuf>> = match &cli.out_dir {
        None => vec![None; inputs.len()],
        Some(dir) => match batch::output_names(&inputs) {
            Ok(names) => names.iter().map(|name| Some(dir.join(name))).collect(),
            Err(clash) => usage_error(clash),
        },
    };
    if let Some(dir) = &cli.out_dir
        && let Err(e) = std::fs::create_dir_all(dir)
    {
        return fail_early(dir, format!("cannot create the output directory: {e}"));
    }
    let options = forward_options(cli);
    let jobs = cli.jobs.unwrap_or_else(batch::default_jobs);
    let files: Vec<(PathBuf, Option<PathBuf>)> = inputs.into_iter().zip(outputs).collect();
    let work = |(input, output): &(PathBuf, Option<PathBuf>)| {
        translate_file(input, output.as_deref(), &options, &reporter, stderr.buffer())
    };
    let (mut passed, mut failed, mut worst) = (0, 0, 0);
    batch::run_in_order(&files, jobs, work, |_, (report, code)| {
        let _ = stderr.print(&report);
        match code {
            0 => passed += 1,
            _ => failed += 1,
        }
        worst = worst.max(code);
    });
    if cli.check {
        println!("{passed} passed, {failed} failed");
    }
    ExitCode::from(worst)
}

/// Translates one SPIR-V file, writing the WGSL to `output` if there is one and it succeeded.
/// Returns what to print about it and its exit code.
fn translate_file(
    input: &Path,
    output: Option<&Path>,
    options: &spv2wgsl::Options,
    reporter: &Reporter,
    mut report: Buffer,
) -> (Buffer, u8) {
    let file = input.display().to_string();
    let code = match std::fs::read(input) {
        Err(e) => {
            let diagnostic = Diagnostic::error(format!("cannot read the input: {e}"));
            let _ = reporter.diagnostic(&mut report, &file, &diagnostic);
            1
        }
        Ok(bytes) if spv2wgsl::reverse::is_wgsl(&bytes) => {
            let diagnostic = Diagnostic::error("this is WGSL: --check and --out-dir take SPIR-V");
            let _ = reporter.diagnostic(&mut report, &file, &diagnostic);
            1
        }
        Ok(bytes) => {
            let result = spv2wgsl::translate(&bytes, options);
            let _ = reporter.translation(&mut report, &file, &bytes, &result);
            let failed = reporter.failed(&result);
            match (result, output) {
                (Err(error), _) => error.exit_code() as u8,
                _ if failed => 1,
                (Ok(translation), Some(path)) => match write_atomically(path, translation.wgsl.as_bytes()) {
                    Ok(()) => 0,
                    Err(e) => {
                        let message = format!("cannot write {}: {e}", path.display());
                        let _ = reporter.diagnostic(&mut report, &file, &Diagnostic::error(message));
                        1
                    }
                },
                (Ok(_), None) => 0,
            }
        }
    };
    (report, code)
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
        let forward_only = [("--no-validate", cli.no_validate), ("--ignore-point-size", cli.ignore_point_size)];
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

/// SPIR-V (binary or assembly) to WGSL; on failure the error is reported and the exit code returned.
fn to_wgsl(
    cli: &Cli,
    input: &[u8],
    shown_path: &str,
    stderr: &mut BufferedStandardStream,
    reporter: &Reporter,
) -> Result<Vec<u8>, ExitCode> {
    let result = spv2wgsl::translate(input, &forward_options(cli));
    // A report that cannot be written to stderr has nowhere else to go.
    let _ = reporter.translation(stderr, shown_path, input, &result);
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
    let defaults = spv2wgsl::reverse::Options::default();
    let options = spv2wgsl::reverse::Options {
        spirv_version: cli.spirv_version.unwrap_or(defaults.spirv_version),
        debug_names: !cli.no_debug_names,
        entry_point: cli.entry_point.clone(),
    };
    // `is_wgsl` only accepts UTF-8.
    let source = String::from_utf8_lossy(input);
    let compiled = spv2wgsl::reverse::compile(&source, &options).map_err(|error| {
        let _ = reporter.reverse_error(stderr, shown_path, &source, &error);
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
