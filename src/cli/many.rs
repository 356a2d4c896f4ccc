//! `--check` and `--out-dir`: many inputs, translated on all cores, each one's report printed
//! whole and in input order (a run prints and writes what `--jobs 1` does), a progress line on a
//! terminal meanwhile, and for `--check` a summary. `--check` takes WGSL too: it is compiled to
//! SPIR-V, which `spirv-val` checks when it is on the `PATH`.

use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use codespan_reporting::term::termcolor::{Buffer, BufferWriter, ColorChoice};
use spv2wgsl::batch;
use spv2wgsl::message_format::{Diagnostic, Format, Reporter};

use crate::input::{self, Language};
use crate::progress::Progress;
use crate::spirv_val::{self, SpirvVal, Verdict};
use crate::{Cli, Target, forward_options, reporter, reverse_options, usage_error, usage_problem, write_atomically};

/// Every input, in parallel, reported in input order; the worst exit code.
pub fn run(cli: &Cli, color: ColorChoice, spirv_val: Option<&SpirvVal>) -> ExitCode {
    if cli.inputs.is_empty() || cli.inputs.iter().any(|input| input == Path::new("-")) {
        usage_error("--check and --out-dir take files and directories, not stdin");
    }
    // --check takes both languages, so the options of either; --out-dir writes WGSL only.
    if cli.out_dir.is_some()
        && let Some(problem) = usage_problem(cli, false, cli.to.unwrap_or(Target::Wgsl))
    {
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
    let extensions: &[&str] = if cli.check { &input::CHECKED_EXTENSIONS } else { &batch::SPIRV_EXTENSIONS };
    let inputs = match batch::shader_files(&cli.inputs, extensions) {
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
    let jobs = cli.jobs.unwrap_or_else(batch::default_jobs);
    let options = forward_options(cli);
    // Inputs translated side by side keep the cores busy: a second thread each would contend.
    let options = spv2wgsl::Options { second_thread: options.second_thread && jobs.get() == 1, ..options };
    let job = Job {
        check: cli.check,
        validate_input: cli.validate_input,
        options,
        reverse_options: reverse_options(cli),
        reporter,
        spirv_val,
    };
    let files: Vec<(PathBuf, Option<PathBuf>)> = inputs.into_iter().zip(outputs).collect();
    let work = |(input, output): &(PathBuf, Option<PathBuf>)| job.file(input, output.as_deref(), stderr.buffer());
    // Tools reading JSON or annotations want their lines only.
    let shown = std::io::stderr().is_terminal() && reporter.format == Format::Human;
    let mut progress = Progress::on_stderr(files.len(), shown);
    let (mut passed, mut failed, mut worst) = (0, 0, 0);
    batch::run_in_order(&files, jobs, work, |_, (report, code)| {
        progress.done(code != 0, || {
            let _ = stderr.print(&report);
        });
        match code {
            0 => passed += 1,
            _ => failed += 1,
        }
        worst = worst.max(code);
    });
    progress.finish();
    if cli.check {
        println!("{passed} passed, {failed} failed");
    }
    ExitCode::from(worst)
}

/// What each input is done with.
struct Job<'a> {
    check: bool,
    validate_input: bool,
    options: spv2wgsl::Options,
    reverse_options: spv2wgsl::reverse::Options,
    reporter: Reporter,
    spirv_val: Option<&'a SpirvVal>,
}

impl Job<'_> {
    /// Translates one file, writing the WGSL to `output` if there is one and it succeeded.
    /// Returns what to print about it and its exit code.
    fn file(&self, input: &Path, output: Option<&Path>, mut report: Buffer) -> (Buffer, u8) {
        let file = input.display().to_string();
        let code = match std::fs::read(input) {
            Err(e) => self.error(&mut report, &file, format!("cannot read the input: {e}")),
            Ok(bytes) => match input::language(Some(input), &bytes) {
                Language::Wgsl if self.check => self.check_wgsl(&mut report, &file, &bytes),
                Language::Wgsl => self.error(&mut report, &file, "this is WGSL: --out-dir takes SPIR-V".into()),
                Language::Spirv => self.spirv(&mut report, &file, &bytes, output),
            },
        };
        (report, code)
    }

    /// Reports an error about `file`; exit code 1.
    fn error(&self, report: &mut Buffer, file: &str, message: String) -> u8 {
        let _ = self.reporter.diagnostic(report, file, &Diagnostic::error(message));
        1
    }

    fn spirv(&self, report: &mut Buffer, file: &str, bytes: &[u8], output: Option<&Path>) -> u8 {
        let result = spirv_val::translate(bytes, &self.options, self.spirv_val, self.validate_input);
        let _ = self.reporter.translation(report, file, bytes, &result);
        let failed = self.reporter.failed(&result);
        match (result, output) {
            (Err(error), _) => error.exit_code() as u8,
            _ if failed => 1,
            (Ok(translation), Some(path)) => match write_atomically(path, translation.wgsl.as_bytes()) {
                Ok(()) => 0,
                Err(e) => self.error(report, file, format!("cannot write {}: {e}", path.display())),
            },
            (Ok(_), None) => 0,
        }
    }

    /// WGSL compiled to SPIR-V, with the checks the reverse path makes (naga's validation of the
    /// input, our I/O plan matched), and `spirv-val`'s on the result where it is on the `PATH`:
    /// SPIR-V it rejects is our bug.
    fn check_wgsl(&self, report: &mut Buffer, file: &str, bytes: &[u8]) -> u8 {
        let source = match input::wgsl_text(bytes) {
            Ok(source) => source,
            Err(problem) => return self.error(report, file, problem),
        };
        let compiled = spv2wgsl::reverse::compile(source, &self.reverse_options);
        let verdict = match (&compiled, self.spirv_val) {
            (Ok(compiled), Some(spirv_val)) => spirv_val.check(&compiled.words()),
            _ => Ok(Verdict::Accepts),
        };
        let error = match (compiled, verdict) {
            (Err(error), _) => error,
            (Ok(_), Ok(Verdict::Accepts)) => return 0,
            (Ok(_), Ok(Verdict::Rejects(message, _))) => {
                spv2wgsl::reverse::Error::internal(format!("spirv-val rejects the SPIR-V written: {message}"))
            }
            (Ok(_), Err(e)) => return self.error(report, file, format!("spirv-val could not be run: {e}")),
        };
        let _ = self.reporter.reverse_error(report, file, source, &error);
        error.exit_code() as u8
    }
}
