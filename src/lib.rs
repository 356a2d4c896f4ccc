//! spv2wgsl: translates Vulkan SPIR-V into WGSL that WebGPU accepts, and WGSL back into Vulkan
//! SPIR-V.
//!
//! [`translate`] takes a SPIR-V module, binary (either byte order) or assembly text, and returns
//! the WGSL, validated with naga, with any [`Translation::warnings`]. An input that cannot be
//! translated gives an [`Error`] that says what and where ([`Location`]); the library never panics
//! on bad input.
//!
//! ```
//! let spirv = "
//!                OpCapability Shader
//!                OpMemoryModel Logical GLSL450
//!                OpEntryPoint GLCompute %main \"main\"
//!                OpExecutionMode %main LocalSize 64 1 1
//!        %void = OpTypeVoid
//!          %fn = OpTypeFunction %void
//!        %main = OpFunction %void None %fn
//!       %entry = OpLabel
//!                OpReturn
//!                OpFunctionEnd
//! ";
//! let translation = spv2wgsl::translate(spirv.as_bytes(), &spv2wgsl::Options::default())?;
//! assert!(translation.wgsl.contains("@compute @workgroup_size(64, 1, 1)\nfn main()"));
//! assert!(translation.warnings.is_empty());
//!
//! // A broken module is an error that points at the culprit.
//! let broken = spirv.replace("%void None %fn", "%void None %undefined");
//! let error = spv2wgsl::translate(broken.as_bytes(), &spv2wgsl::Options::default()).unwrap_err();
//! assert!(error.to_string().contains("`%undefined` is used but never defined"), "{error}");
//! assert_eq!(error.exit_code(), 1); // the input's problem, not a bug in spv2wgsl
//! # Ok::<(), spv2wgsl::Error>(())
//! ```
//!
//! In a `build.rs`, [`batch`] finds every shader under a directory, names the outputs and
//! translates on all cores; [`message_format`] reports errors as a person, a tool (JSON) or
//! GitHub Actions wants them.
//!
//! The pipeline reads one way: bytes, then [`spirv::load`] into a [`spirv::Module`], then the passes
//! in the order `run_passes` lists them, then [`lower::lower`] into a WGSL syntax tree, then
//! [`wgsl::print`] and validation with naga ([`wgsl::validate`]).
//! The reverse direction, WGSL to Vulkan SPIR-V, is [`reverse::compile`].

#![warn(missing_docs)]

pub mod batch;
pub mod binding_map;
pub mod diagnostics;
pub mod error;
mod id_hash;
pub mod message_format;
mod name_hash;
pub mod panics;
pub mod reverse;

// The stages' internals are public for the tests, the fuzz targets and `--dump-after`, not as a
// stable API: each file's `//!` paragraph documents it as a whole.
#[allow(missing_docs)]
pub mod builtins;
#[allow(missing_docs)]
pub mod lower;
#[allow(missing_docs)]
pub mod ops;
#[allow(missing_docs)]
pub mod passes;
#[allow(missing_docs)]
pub mod spirv;
#[allow(missing_docs)]
pub mod wgsl;

pub use binding_map::{Binding, BindingOrigin, Original, ResourceBinding};
pub use error::{Error, Location, Warning};

// The README's Rust examples compile as doc tests.
#[doc = include_str!("../README.md")]
#[cfg(doctest)]
pub struct ReadmeExamples;

/// How to translate. The default validates the output, keeps every entry point WGSL can express,
/// and refuses `gl_PointSize` values other than 1.0.
#[derive(Debug, Clone)]
pub struct Options {
    /// Validate the WGSL with naga before returning it (on by default).
    pub validate: bool,
    /// Translate only the entry point with this name.
    pub entry_point: Option<String>,
    /// Drop writes of gl_PointSize other than 1.0 (with a warning) instead of failing.
    pub ignore_point_size: bool,
    /// End statements with a comment naming the SPIR-V result id (or opcode) they come from and,
    /// where the module records it (`OpLine`), the source file and line.
    pub annotate: bool,
    /// Where to bind the sampler split from the combined image sampler (or the comparison twin of
    /// the sampler) at a SPIR-V set and binding: `(source, target)` pairs. Others follow the
    /// rule in `docs/bindings.md`.
    pub sampler_bindings: Vec<(ResourceBinding, ResourceBinding)>,
    /// Where to bind the uniform buffer that replaces push constants.
    pub push_constant_binding: Option<ResourceBinding>,
    /// Read `BaseVertex`, `BaseInstance` and `DrawIndex`, which WebGPU lacks, from a uniform
    /// buffer the application fills (`docs/builtins.md`) instead of failing.
    pub emulate_draw_parameters: bool,
    /// Where to bind that buffer.
    pub draw_parameters_binding: Option<ResourceBinding>,
    /// Refuse input whose derivatives or implicit-lod sampling WGSL's uniformity analysis rejects,
    /// instead of emitting `diagnostic(off, derivative_uniformity)`.
    pub strict_uniformity: bool,
    /// Values for specialization constants, by SpecId: these become ordinary constants instead
    /// of WGSL `override`s. The text is read as the constant's type (`true`, `-3`, `0.5`).
    pub overrides: Vec<(u32, String)>,
    /// Use a second thread on a module of many functions: to read the second half of its
    /// functions while the first is read, and to build and validate naga's IR of them
    /// (`validate`) while the lowering goes on. Faster under an allocator that frees across
    /// threads cheaply, such as mimalloc, which the command uses (a fifth less time on large
    /// modules of many functions); slower under glibc's malloc, which gives the thread an arena
    /// of its own: off by default.
    pub second_thread: bool,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            validate: true,
            entry_point: None,
            ignore_point_size: false,
            annotate: false,
            sampler_bindings: Vec::new(),
            push_constant_binding: None,
            emulate_draw_parameters: false,
            draw_parameters_binding: None,
            overrides: Vec::new(),
            strict_uniformity: false,
            second_thread: false,
        }
    }
}

/// The result of a translation.
#[derive(Debug, Clone)]
pub struct Translation {
    /// The WGSL module's text.
    pub wgsl: String,
    /// Things the user should know that did not stop the translation, each with the instruction
    /// it is about where there is one: a skipped entry point, a dropped `gl_PointSize`, an
    /// execution mode WGSL has no equivalent for.
    pub warnings: Vec<Warning>,
    /// Every resource binding of the WGSL, in (group, binding) order.
    pub bindings: Vec<Binding>,
}

/// Translates a SPIR-V module (binary in either byte order, or assembly text) into WGSL.
///
/// The module must be valid Vulkan SPIR-V (as `spirv-val` checks it). The error says whether the
/// input is at fault ([`Error::exit_code`] 1: malformed, invalid, or beyond what WGSL can express)
/// or we are ([`Error::Internal`], exit code 3: for example WGSL that naga rejects).
pub fn translate(input: &[u8], options: &Options) -> Result<Translation, Error> {
    let translation = read_words(input).and_then(|words| translate_words(words, Vec::new(), options));
    translation.map_err(|error| diagnostics::locate_definition(error, input))
}

/// [`translate`] for a caller done with the input: its bytes are freed with the words once the
/// module is loaded from them, which takes the input's size off the peak memory. An error naming
/// only a result id is not located in the input, as [`translate`] does: given the input again,
/// [`diagnostics::locate_definition`] does it.
pub fn translate_owned(input: Vec<u8>, options: &Options) -> Result<Translation, Error> {
    translate_words(read_words(&input)?, input, options)
}

/// Translates the module's `words`; `input`, the bytes they were read from if the caller handed
/// them over (else empty), is freed with them. A panic is a bug of ours: it becomes an internal
/// error that says where, so that the command still exits with code 3 and writes no output.
fn translate_words(words: Vec<u32>, input: Vec<u8>, options: &Options) -> Result<Translation, Error> {
    panics::without_panicking(|| translate_unguarded(words, input, options))
        .unwrap_or_else(|panic| Err(Error::internal(format!("the translator panicked: {panic}"))))
}

fn translate_unguarded(words: Vec<u32>, input: Vec<u8>, options: &Options) -> Result<Translation, Error> {
    let ir = options.validate.then(|| wgsl::naga_ir::Ir::validating(options.second_thread));
    let Lowered { ast, mut warnings, bindings, ir } = lower(words, input, options, ir)?;
    let text = wgsl::print::print(&ast);
    if options.validate {
        warnings.extend(wgsl::validate::validate_module(&ast, &text, ir.is_ok())?);
    }
    Ok(Translation { wgsl: text, warnings, bindings })
}

/// For the test that proves naga's IR built from the syntax tree equal to what naga's WGSL
/// front end reads in the printed text (`tests/naga_ir.rs`): the two compared, for `input`.
pub fn naga_ir_check(input: &[u8], options: &Options) -> Result<wgsl::naga_ir::Check, Error> {
    let ir = Some(wgsl::naga_ir::Ir::here(true));
    let Lowered { ast, ir, .. } = lower(read_words(input)?, Vec::new(), options, ir)?;
    Ok(wgsl::naga_ir::check(&ast, ir))
}

/// A module lowered: its WGSL syntax tree (each function already printed), the warnings and the
/// bindings found on the way, and what became of naga's IR of it (built with the `Ir`
/// given, if any): the parts kept, or none where they were validated.
struct Lowered {
    ast: wgsl::ast::Module,
    warnings: Vec<Warning>,
    bindings: Vec<Binding>,
    ir: wgsl::naga_ir::Result<Vec<wgsl::naga_ir::Part>>,
}

/// Loads `words` and lowers the module; `input` is freed with the words.
fn lower(words: Vec<u32>, input: Vec<u8>, options: &Options, ir: Option<wgsl::naga_ir::Ir>) -> Result<Lowered, Error> {
    // The words (and the input) go as soon as they are loaded, not before: the module says all
    // they say. Freed before, they made glibc's allocator put the module's tables, which the
    // passes grow, where growing copies them. With a second thread (meant for an allocator like
    // mimalloc, which does not), reading a large module is where the memory peaks, the second
    // half having a stream and a table of definitions of its own: the input's bytes go first.
    let input = (!options.second_thread).then_some(input);
    let mut module = spirv::load::load_on(&words, options.second_thread)?;
    drop((words, input));
    run_passes(&mut module, options)?;
    let lower::Emitted { mut ast, bindings, uniformity, warnings, ir } = lower::lower(&mut module, options, ir)?;
    module.warnings.extend(warnings);
    if uniformity.breaks_barriers {
        return Err(Error::unsupported(
            "a barrier in control flow WGSL cannot prove uniform (after a branch or early return that \
             depends on the invocation): WGSL requires barriers in uniform control flow, with no way \
             to turn that check off",
            Location::default(),
        ));
    }
    if uniformity.breaks_derivatives {
        if options.strict_uniformity {
            return Err(Error::unsupported(
                "derivatives or implicit-level-of-detail sampling in control flow WGSL cannot prove uniform \
                 (without --strict-uniformity the output turns that check off)",
                Location::default(),
            ));
        }
        ast.diagnostics.push("off, derivative_uniformity");
        module.warnings.push(Warning::new(
            "derivatives or implicit-level-of-detail sampling happen in control flow WGSL cannot prove uniform; \
             the output turns that check off with `diagnostic(off, derivative_uniformity)` \
             (--strict-uniformity makes this an error)",
            Location::default(),
        ));
    }
    if uniformity.breaks_subgroups {
        // SPIR-V's subgroup operations act on the active invocations wherever they are, as WGSL's
        // do: the check is for portability only.
        ast.diagnostics.push("off, subgroup_uniformity");
    }
    // Done with the module: validation takes memory of its own.
    let warnings = std::mem::take(&mut module.warnings);
    // Done with the module: the last part of the IR is validated now, in memory of its own.
    drop(module);
    let ir = match ir {
        Some(ir) => ir.finish(&ast),
        None => Err(wgsl::naga_ir::Unsupported("not validated")),
    };
    Ok(Lowered { ast, warnings, bindings, ir })
}

/// The passes, in their order: each states what holds before and after it at the top of its file.
pub(crate) fn run_passes(module: &mut spirv::Module, options: &Options) -> Result<(), Error> {
    passes::entry_points::run(module, options)?;
    passes::stage_rules::run(module, options)?;
    passes::ptr_access_chains::run(module, options)?;
    passes::spec_constants::run(module, options)?;
    passes::single_value_phis::run(module, options)?;
    passes::global_params::run(module, options)?;
    passes::value_params::run(module, options)?;
    passes::argument_copies::run(module, options)?;
    passes::single_store_locals::run(module, options)?;
    passes::structurize::run(module, options)?;
    passes::draw_parameters::run(module, options)?;
    passes::io_wrapper::run(module, options)?;
    passes::signedness::run(module, options)?;
    passes::handles::run(module, options)?;
    passes::bindings::run(module, options)?;
    passes::layout::run(module, options)?;
    passes::atomics::run(module, options)?;
    passes::array_counts::run(module, options)?;
    passes::parameter_counts::run(module, options)?;
    Ok(())
}

/// Whether the input is SPIR-V assembly text rather than a binary module: text whose first token
/// is a comment (`;`), a result id (`%`) or an opcode (`Op...`). Other text (an HTML error page
/// saved as `.spv`) is not SPIR-V at all, and [`translate`] says so.
pub fn is_assembly(input: &[u8]) -> bool {
    let start = std::str::from_utf8(input).map(str::trim_start).unwrap_or_default();
    start.starts_with([';', '%']) || start.starts_with("Op")
}

/// The module's words in host order, assembling text input first.
pub fn read_words(input: &[u8]) -> Result<Vec<u32>, Error> {
    if is_assembly(input) {
        let text = std::str::from_utf8(input).unwrap_or_default();
        return Ok(spirv::assemble::assemble(text)?.words);
    }
    spirv::load::words_from_bytes(input)
}
