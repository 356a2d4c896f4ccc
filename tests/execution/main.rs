//! Execution tests: the WGSL we produce must compute what the SPIR-V
//! computed. Every SPIR-V binary under `fixtures/exec/compute` is a test, so is every
//! `fixtures/spvasm` module with `exec:` lines, and
//! so is every vertex binary under `fixtures/exec/render` with its fragment
//! partner (`NAME.vert*.spv` + `NAME.frag*.spv`). A test:
//! 1. reads its setup from the `exec:` lines of the shader sources
//!    (`case.rs` lists them);
//! 2. translates each module with `spv2wgsl::translate` and validates the
//!    WGSL with naga and Tint (where installed);
//! 3. runs the SPIR-V on a Vulkan device through ash (in a worker process, `worker.rs`, so that
//!    a driver crash costs that case alone), and the WGSL through wgpu on the same device, with
//!    the same inputs;
//! 4. compares every storage buffer and render target (`compare.rs`), and, where the case
//!    states results worked out on the CPU (`cpu` lines), both runs with those.
//!
//!
//! Every WGSL compute shader under `fixtures/exec/compute` (`NAME.wgsl`, with `// exec:` lines) is
//! a test of the reverse path: the WGSL runs through wgpu (the reference), our SPIR-V for it
//! (`spv2wgsl::reverse::compile`) runs on the Vulkan device, and our forward path's WGSL for that
//! SPIR-V runs through wgpu again; all three must compute the same.
//!
//! One wgpu device serves the whole process. Without a Vulkan device the tests
//! fail under CI (`CI=true`) and are otherwise reported as ignored, after a
//! notice saying what to install. lavapipe (Mesa's CPU driver) is enough;
//! set `NODEVICE_SELECT=1` if Mesa's device-select layer gets in the way.
//!
//! A shader marked `pending AREA` runs like any other, except that a
//! "cannot translate" error is reported as ignored: it becomes a full test as
//! soon as the translator supports it. A shader marked `known-bug TEXT`
//! shows a translation bug: its failure is reported as ignored, and its
//! passing fails until the line goes. Run one test with
//! `cargo test --test execution -- NAME`.

#[path = "../common/mod.rs"]
mod common;

mod case;
mod compare;
mod values;
mod vulkan;
mod webgpu;
mod worker;

use std::collections::HashMap;
use std::panic::{self, AssertUnwindSafe};
use std::sync::{Once, OnceLock};

use libtest_mimic::{Arguments, Completion, Failed, Trial};

use case::{Case, Module, Source, Stage};
use worker::Failure;

/// The Vulkan workers and the wgpu device opened on the same device.
struct Gpu {
    vulkan: worker::Workers,
    webgpu: webgpu::WebGpu,
}

static GPU: OnceLock<Result<Gpu, String>> = OnceLock::new();

fn gpu() -> &'static Result<Gpu, String> {
    GPU.get_or_init(|| {
        // Opened here to find the device wgpu must use (and whether there is one); the workers
        // open their own.
        let vulkan = vulkan::Vulkan::new()?;
        let webgpu = webgpu::WebGpu::new(&vulkan.device_name)?;
        Ok(Gpu { vulkan: worker::Workers::new(), webgpu })
    })
}

fn under_ci() -> bool {
    std::env::var("CI").is_ok_and(|v| v == "true" || v == "1")
}

const INSTALL_HINT: &str = "install Mesa's Vulkan drivers and the Vulkan loader \
     (Debian/Ubuntu: apt-get install mesa-vulkan-drivers libvulkan1)";

fn main() {
    if worker::is_worker() {
        let cases = discover().into_iter().filter_map(|(name, built)| Some((name, built.ok()?)));
        worker::serve(cases.collect::<HashMap<_, _>>());
        return;
    }
    let arguments = Arguments::from_args();
    let trials = discover().into_iter().map(|(name, built)| trial(name, built)).collect();
    let conclusion = libtest_mimic::run(&arguments, trials);
    if let Some(Ok(gpu)) = GPU.get() {
        gpu.vulkan.finish();
    }
    conclusion.exit();
}

/// Every case by name: one per compute binary, per `.spvasm` with `exec:` lines, per WGSL compute
/// shader and per render pair.
fn discover() -> Vec<(String, Result<Case, String>)> {
    let mut cases = Vec::new();
    for binary in common::fixture_files(&["exec/compute"], &[".spv"]) {
        let name = display_name(&binary);
        let built = load_module(&binary, Stage::Compute)
            .and_then(|(module, source)| case::build(name.clone(), vec![module], &[source]));
        cases.push((name, built));
    }
    // The structurizer's shape fixtures are compute shaders too: those with `exec:` lines run.
    for source in common::fixture_files(&["spvasm"], &[".spvasm"]) {
        let Ok(text) = std::fs::read_to_string(common::fixture(&source)) else { continue };
        if !text.lines().any(|line| line.trim_start().starts_with("; exec:")) {
            continue;
        }
        let name = source.strip_suffix(".spvasm").unwrap_or(&source).to_string();
        let built = spv2wgsl::spirv::assemble::assemble(&text)
            .map_err(|e| format!("{source}: does not assemble: {e:?}"))
            .and_then(|assembly| {
                let spirv = assembly.words.iter().flat_map(|w| w.to_le_bytes()).collect();
                let module = Module { stage: Stage::Compute, path: source.clone(), spirv };
                case::build(name.clone(), vec![module], &[Source::read(source.clone(), &text)])
            });
        cases.push((name, built));
    }
    for source in common::fixture_files(&["exec/compute"], &[".wgsl"]) {
        let name = source.strip_prefix("exec/").unwrap_or(&source).to_string();
        let built = load_wgsl(&source)
            .and_then(|(text, module, directives)| case::build_wgsl(name.clone(), module, &directives, text));
        cases.push((name, built));
    }
    for binary in common::fixture_files(&["exec/render"], &[".spv"]) {
        if !binary.contains(".vert.") {
            if !binary.contains(".frag.") {
                cases.push((display_name(&binary), Err(format!("{binary}: neither .vert nor .frag"))));
            }
            continue;
        }
        let partner = binary.replacen(".vert.", ".frag.", 1);
        let name = display_name(&binary.replacen(".vert", "", 1));
        let built = load_module(&binary, Stage::Vertex).and_then(|(vertex, vertex_source)| {
            let (fragment, fragment_source) = load_module(&partner, Stage::Fragment)?;
            case::build(name.clone(), vec![vertex, fragment], &[vertex_source, fragment_source])
        });
        cases.push((name, built));
    }
    cases
}

/// `exec/compute/x.comp.opt.spv` -> `compute/x.comp.opt`.
fn display_name(binary: &str) -> String {
    let name = binary.strip_prefix("exec/").unwrap_or(binary);
    name.strip_suffix(".spv").unwrap_or(name).to_string()
}

/// A binary and the `exec:` lines of its source.
fn load_module(binary: &str, stage: Stage) -> Result<(Module, Source), String> {
    let source = case::source_of(binary).ok_or_else(|| format!("{binary}: not a .spv file"))?;
    let text = std::fs::read_to_string(common::fixture(&source))
        .map_err(|e| format!("{binary}: cannot read its source {source}: {e}"))?;
    let spirv = std::fs::read(common::fixture(binary)).map_err(|e| format!("cannot read {binary}: {e}"))?;
    let module = Module { stage, path: binary.to_string(), spirv };
    Ok((module, Source::read(source, &text)))
}

/// A WGSL compute shader, the module of our SPIR-V for it, and its `exec:` lines.
fn load_wgsl(source: &str) -> Result<(String, Module, Source), String> {
    let text = std::fs::read_to_string(common::fixture(source)).map_err(|e| format!("cannot read {source}: {e}"))?;
    let compiled = panic::catch_unwind(AssertUnwindSafe(|| {
        spv2wgsl::reverse::compile(&text, &spv2wgsl::reverse::Options::default())
    }))
    .map_err(|payload| format!("{source}: reverse::compile panicked: {}", common::panic_message(payload.as_ref())))?
    .map_err(|error| format!("{source}: does not compile to SPIR-V: {error}"))?;
    let module = Module { stage: Stage::Compute, path: source.to_string(), spirv: compiled.to_bytes() };
    let directives = Source::read(source.to_string(), &text);
    Ok((text, module, directives))
}

fn trial(name: String, built: Result<Case, String>) -> Trial {
    Trial::ignorable_test(name, move || {
        let case = built.map_err(Failed::from)?;
        let outcome = run(&case);
        match (&case.known_bug, outcome) {
            (None, outcome) => outcome.map_err(|problem| Failed::from(format!("{}: {problem}", case.name))),
            (Some(bug), Err(problem)) => {
                let first_line = problem.lines().next().unwrap_or_default().to_string();
                Ok(Completion::ignored_with(format!("known bug: {bug}; {first_line}")))
            }
            (Some(_), Ok(Completion::Ignored { reason })) => Ok(Completion::Ignored { reason }),
            (Some(bug), Ok(Completion::Completed)) => {
                Err(Failed::from(format!("{}: marked `known-bug {bug}` but passes now: remove the line", case.name)))
            }
        }
    })
}

fn run(case: &Case) -> Result<Completion, String> {
    let gpu = match gpu() {
        Ok(gpu) => gpu,
        Err(reason) if under_ci() => {
            return Err(format!("no usable Vulkan device under CI ({reason}); .ci/run must {INSTALL_HINT}"));
        }
        Err(reason) => {
            static NOTICE: Once = Once::new();
            NOTICE.call_once(|| {
                eprintln!(
                    "note: execution tests skipped: no usable Vulkan device ({reason}); to run them, {INSTALL_HINT}"
                );
            });
            return Ok(Completion::ignored_with("no Vulkan device"));
        }
    };

    if let Some(wgsl) = &case.wgsl {
        return run_wgsl(gpu, case, wgsl);
    }
    // The reference runs first, so even a shader we cannot translate yet
    // proves its Vulkan side works.
    let device_run = match case.vulkan_fails {
        // The stated results stand in for the device's.
        Some(_) => Ok(stated_outputs(case)),
        None => gpu.vulkan.run(case),
    };
    // With `cpu` lines, the device must also compute the CPU model's results; where it cannot
    // build the pipeline, crashes or computes something else (a driver bug, see DESIGN.md), the
    // model is the reference.
    let reference = match device_run {
        // A device run the CPU model disagrees with is no reference, even one that wrote nothing.
        Ok(outputs) => match compare::against_cpu(case, &outputs, "SPIR-V") {
            Ok(()) => {
                compare::check_reference(case, &outputs)?;
                Reference::Device(outputs)
            }
            Err(problem) => {
                Reference::Cpu(format!("the SPIR-V run differs from the CPU model: {problem}"), Some(outputs))
            }
        },
        Err(Failure::Device(problem)) if !case.cpu.is_empty() => {
            Reference::Cpu(format!("the SPIR-V run failed: {problem}"), None)
        }
        Err(Failure::Crash(problem)) if !case.cpu.is_empty() => {
            Reference::Cpu(format!("the SPIR-V run crashed: {problem}"), None)
        }
        Err(failure) => return Err(failure.to_string()),
    };

    let mut wgsl = Vec::new();
    let mut bindings = Vec::new();
    for module in &case.modules {
        match translate(module, case) {
            Ok(translation) => {
                wgsl.push(translation.wgsl);
                bindings.extend(translation.bindings);
            }
            Err(TranslateError::Unsupported(message)) if case.pending.is_some() => {
                let area = case.pending.as_deref().unwrap_or_default();
                return Ok(Completion::ignored_with(format!("pending {area}: {message}")));
            }
            Err(TranslateError::Unsupported(message) | TranslateError::Other(message)) => {
                return Err(format!("{}: {message}", module.path));
            }
        }
    }
    for (module, text) in case.modules.iter().zip(&wgsl) {
        let (_, problems) = common::validate_wgsl(text, &module.path);
        if !problems.is_empty() {
            return Err(format!("{}: {}\n--- WGSL:\n{text}", module.path, problems.join("\n")));
        }
    }

    // Running it would lose the shared device for every test after this one.
    if let Some(reason) = &case.webgpu_fails {
        return Ok(Completion::ignored_with(format!("webgpu-fails: {reason}")));
    }
    let actual = match case.render {
        None => gpu.webgpu.run_compute(case, &wgsl[0], &bindings),
        Some(_) => gpu.webgpu.run_render(case, &wgsl[0], &wgsl[1], &bindings),
    };
    let outcome = actual.and_then(|actual| match &reference {
        Reference::Device(reference) => compare::compare(case, reference, &actual).map(|()| Completion::Completed),
        // Reported as ignored: the WGSL is right, but the test was not the differential one.
        Reference::Cpu(device_problem, device) => {
            let first_line = device_problem.lines().next().unwrap_or_default();
            match compare::against_cpu(case, &actual, "WGSL") {
                Ok(()) => Ok(Completion::ignored_with(format!(
                    "the WGSL run matches the CPU model, but the device is no reference: {first_line}"
                ))),
                // Both runs giving the same other result is the device's doing (seen: lavapipe
                // mishandling loops where invocations diverge, whatever program expresses them).
                Err(_) if device.as_ref().is_some_and(|device| compare::compare(case, device, &actual).is_ok()) => {
                    Ok(Completion::ignored_with(format!(
                        "the device computes the same for the SPIR-V and the WGSL, but not what the CPU model does: {first_line}"
                    )))
                }
                Err(problem) => Err(format!("{problem}\n(and the device is no reference: {device_problem})")),
            }
        }
    });
    outcome.map_err(|problem| {
        let listings: Vec<String> =
            case.modules.iter().zip(&wgsl).map(|(m, text)| format!("--- WGSL of {}:\n{text}", m.path)).collect();
        format!("{problem}\n{}", listings.join("\n"))
    })
}

/// What the WGSL run is compared with.
enum Reference {
    /// The SPIR-V run on the device.
    Device(compare::Outputs),
    /// The case's `cpu` lines, because of what the device did (said here), with what it computed.
    Cpu(String, Option<compare::Outputs>),
}

/// A WGSL case: the WGSL through wgpu is the reference; our SPIR-V on the Vulkan device and our
/// forward path's WGSL for it through wgpu must match it.
fn run_wgsl(gpu: &Gpu, case: &Case, wgsl: &str) -> Result<Completion, String> {
    let reference = match case.webgpu_fails {
        Some(_) => stated_outputs(case),
        None => gpu.webgpu.run_compute(case, wgsl, &[])?,
    };
    compare::check_reference(case, &reference)?;
    let ours = gpu.vulkan.run(case).map_err(|failure| failure.to_string())?;
    compare::compare(case, &reference, &ours).map_err(|problem| format!("our SPIR-V: {problem}"))?;
    let module = &case.modules[0];
    let back = translate(module, case).map_err(
        |(TranslateError::Unsupported(message) | TranslateError::Other(message))| {
            format!("our SPIR-V does not translate back: {message}")
        },
    )?;
    let (_, problems) = common::validate_wgsl(&back.wgsl, &module.path);
    if !problems.is_empty() {
        return Err(format!("the WGSL back: {}\n--- WGSL:\n{}", problems.join("\n"), back.wgsl));
    }
    let actual = gpu.webgpu.run_compute(case, &back.wgsl, &back.bindings)?;
    compare::compare(case, &reference, &actual)
        .map(|()| Completion::Completed)
        .map_err(|problem| format!("the WGSL back: {problem}\n--- WGSL:\n{}", back.wgsl))
}

/// The results the `expect` lines state, standing in for a run that cannot happen.
fn stated_outputs(case: &Case) -> compare::Outputs {
    let buffers =
        case.expect.iter().map(|(b, words)| (*b, words.iter().flat_map(|w| w.to_le_bytes()).collect())).collect();
    compare::Outputs { buffers, targets: Vec::new() }
}

enum TranslateError {
    Unsupported(String),
    Other(String),
}

fn translate(module: &Module, case: &Case) -> Result<spv2wgsl::Translation, TranslateError> {
    let options = spv2wgsl::Options { emulate_draw_parameters: case.emulate_draw_parameters, ..Default::default() };
    let outcome = panic::catch_unwind(AssertUnwindSafe(|| spv2wgsl::translate(&module.spirv, &options)));
    match outcome {
        Ok(Ok(translation)) => Ok(translation),
        Ok(Err(error @ spv2wgsl::Error::Unsupported { .. })) => Err(TranslateError::Unsupported(error.to_string())),
        Ok(Err(error)) => Err(TranslateError::Other(format!("translation failed: {error}"))),
        Err(payload) => {
            Err(TranslateError::Other(format!("translate panicked: {}", common::panic_message(payload.as_ref()))))
        }
    }
}
