//! The reverse path: WGSL to Vulkan SPIR-V, with entry-point parameters and results lowered into
//! `Input`/`Output` variables (seed 000, "Translation scheme for WGSL AST to SPIR-V").
//!
//! ```
//! let wgsl = "@fragment fn main(@location(0) color: vec4f) -> @location(0) vec4f { return color; }";
//! let spirv = spv2wgsl::reverse::compile(wgsl, &spv2wgsl::reverse::Options::default())?;
//! assert_eq!(spirv.words()[0], 0x0723_0203); // the SPIR-V magic number
//! // The parameter and the result became `Input` and `Output` variables.
//! let text = spirv.disassemble();
//! assert!(text.contains("Input") && text.contains("Output"), "{text}");
//! // `spirv.to_bytes()` is the binary module, ready for a `.spv` file.
//! # Ok::<(), spv2wgsl::reverse::Error>(())
//! ```
//!
//! The steps, in the order [`compile`] runs them: [`parse`] (naga's WGSL front end and
//! validator), [`plan`] (our statement of the I/O lowering: which variables each entry point gets,
//! with which decorations), [`backend`] (naga's SPIR-V writer), then fix-ups on the words read
//! back with rspirv: [`conform`] (naga's variables match the plan, or it is an internal error),
//! [`sample_mask`] (Vulkan's one-element arrays), [`interface_list`] (`OpEntryPoint` operands).

pub mod error;

// The steps: public for the tests, documented by their `//!` paragraphs rather than item by item.
#[allow(missing_docs)]
pub mod backend;
#[allow(missing_docs)]
pub mod conform;
#[allow(missing_docs)]
pub mod declarations;
#[allow(missing_docs)]
pub mod explicit_layout;
#[allow(missing_docs)]
pub mod frexp_result;
#[allow(missing_docs)]
pub mod images;
#[allow(missing_docs)]
pub mod interface_list;
#[allow(missing_docs)]
pub mod module_edit;
#[allow(missing_docs)]
pub mod overrides;
#[allow(missing_docs)]
pub mod parse;
#[allow(missing_docs)]
pub mod plan;
#[allow(missing_docs)]
pub mod pointer_arguments;
#[allow(missing_docs)]
pub mod sample_mask;
#[allow(missing_docs)]
pub mod specialize;
#[allow(missing_docs)]
pub mod uniform_layout;
#[allow(missing_docs)]
pub mod workgroup_zeroing;

use rspirv::binary::{Assemble, Disassemble};

pub use error::{Error, render};

/// How to translate WGSL to SPIR-V.
#[derive(Debug, Clone)]
pub struct Options {
    /// SPIR-V version (major, minor): 1.0 to 1.6.
    pub spirv_version: (u8, u8),
    /// Write `OpName`s for functions, variables, types and members.
    pub debug_names: bool,
    /// Translate only the entry point with this name.
    pub entry_point: Option<String>,
}

impl Default for Options {
    fn default() -> Self {
        Options { spirv_version: (1, 3), debug_names: true, entry_point: None }
    }
}

/// The SPIR-V versions the reverse path writes.
pub const SPIRV_VERSIONS: &[(u8, u8)] = &[(1, 0), (1, 1), (1, 2), (1, 3), (1, 4), (1, 5), (1, 6)];

/// A translated module.
#[derive(Debug, Clone)]
pub struct Compiled {
    /// The module as rspirv's data representation, for further editing.
    pub module: rspirv::dr::Module,
    /// The WGSL's overrides as the module's specialization constants, in declaration order.
    pub spec_constants: Vec<crate::binding_map::SpecConstant>,
}

impl Compiled {
    /// The binary module's words, header included.
    pub fn words(&self) -> Vec<u32> {
        self.module.assemble()
    }

    /// The binary module, little-endian.
    pub fn to_bytes(&self) -> Vec<u8> {
        self.words().iter().flat_map(|word| word.to_le_bytes()).collect()
    }

    /// SPIR-V assembly text.
    pub fn disassemble(&self) -> String {
        self.module.disassemble()
    }
}

/// Translates WGSL source into a Vulkan SPIR-V module. A panic is a bug of ours (or naga's): it
/// becomes an internal error that says where, not a crash.
pub fn compile(source: &str, options: &Options) -> Result<Compiled, Error> {
    crate::panics::without_panicking(|| compile_unguarded(source, options))
        .unwrap_or_else(|panic| Err(Error::internal(format!("the compiler panicked: {panic}"))))
}

fn compile_unguarded(source: &str, options: &Options) -> Result<Compiled, Error> {
    if !SPIRV_VERSIONS.contains(&options.spirv_version) {
        let (major, minor) = options.spirv_version;
        return Err(Error::unsupported(format!("SPIR-V {major}.{minor}: the versions written are 1.0 to 1.6")));
    }
    let (mut module, mut info) = parse::parse(source)?;
    let rewritten = pointer_arguments::run(&mut module) | frexp_result::run(&mut module);
    let specialization = overrides::take(&mut module, &info)?;
    if rewritten || specialization.is_some() {
        info = parse::revalidate(&module)?;
    }
    if let Some(specialization) = &specialization {
        overrides::place(&mut module, specialization);
    }
    let only = match &options.entry_point {
        Some(name) => Some(entry_point_index(&module, name)?),
        None => None,
    };
    let plans = plan::plan(&module, &info, only)?;
    let words = backend::write(&module, &info, options, only)?;
    let mut spirv = rspirv::dr::load_words(&words)
        .map_err(|error| Error::internal(format!("cannot read back naga's SPIR-V: {error}")))?;
    let arrays_of_one = conform::run(&mut spirv, &plans)?;
    sample_mask::run(&mut spirv, &arrays_of_one)?;
    images::run(&mut spirv, has_bgra8_storage(&module))?;
    uniform_layout::run(&mut spirv)?;
    explicit_layout::run(&mut spirv);
    frexp_result::drop_int16(&mut spirv);
    if let Some(specialization) = &specialization {
        specialize::run(&mut spirv, specialization)?;
    }
    workgroup_zeroing::run(&mut spirv)?;
    interface_list::run(&mut spirv);
    let spec_constants = specialization.map(|s| s.report()).unwrap_or_default();
    Ok(Compiled { module: spirv, spec_constants })
}

fn has_bgra8_storage(module: &naga::Module) -> bool {
    module.types.iter().any(|(_, ty)| {
        matches!(
            ty.inner,
            naga::TypeInner::Image {
                class: naga::ImageClass::Storage { format: naga::StorageFormat::Bgra8Unorm, .. },
                ..
            }
        )
    })
}

fn entry_point_index(module: &naga::Module, name: &str) -> Result<usize, Error> {
    module.entry_points.iter().position(|entry| entry.name == name).ok_or_else(|| {
        let names: Vec<&str> = module.entry_points.iter().map(|entry| entry.name.as_str()).collect();
        Error::NoSuchEntryPoint { name: name.to_string(), available: names.join(", ") }
    })
}

/// Whether `input` is WGSL source rather than a SPIR-V binary or SPIR-V assembly text: text (a
/// binary's words always hold NUL bytes) whose first token is not an assembly comment (`;`), a
/// result id (`%`) or an opcode (`Op...`).
pub fn is_wgsl(input: &[u8]) -> bool {
    let Ok(text) = std::str::from_utf8(input) else {
        return false;
    };
    if text.chars().any(|c| c.is_control() && !c.is_whitespace()) {
        return false;
    }
    let start = text.trim_start();
    !start.is_empty() && !start.starts_with([';', '%']) && !start.starts_with("Op")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// naga's module for `source`, read back before any fix-up, and the plan for it.
    pub(super) fn naga_output(source: &str, spirv_version: (u8, u8)) -> (rspirv::dr::Module, Vec<plan::EntryPlan>) {
        let options = Options { spirv_version, ..Options::default() };
        let (module, info) = parse::parse(source).expect("valid WGSL");
        let plans = plan::plan(&module, &info, None).expect("a plan");
        let words = backend::write(&module, &info, &options, None).expect("naga writes it");
        (rspirv::dr::load_words(words).expect("rspirv reads it"), plans)
    }

    #[test]
    fn wgsl_is_told_apart_from_spirv_binary_and_assembly() {
        assert!(is_wgsl(b"// a shader\n@compute @workgroup_size(1) fn main() {}"));
        assert!(is_wgsl(b"\n  struct S { a: f32 }"));
        assert!(!is_wgsl(b"; SPIR-V\n; Version: 1.3\nOpCapability Shader"));
        assert!(!is_wgsl(b"OpCapability Shader"));
        assert!(!is_wgsl(b"%1 = OpTypeVoid"));
        assert!(!is_wgsl(&[0x03, 0x02, 0x23, 0x07, 0, 0, 1, 0]));
        assert!(!is_wgsl(b"   "));
    }

    #[test]
    fn a_version_outside_1_0_to_1_6_is_refused() {
        let options = Options { spirv_version: (1, 7), ..Options::default() };
        let error = compile("@compute @workgroup_size(1) fn main() {}", &options).unwrap_err();
        assert!(matches!(error, Error::Unsupported { .. }), "{error}");
    }

    #[test]
    fn an_unknown_entry_point_names_the_ones_there_are() {
        let options = Options { entry_point: Some("nope".into()), ..Options::default() };
        let source = "@compute @workgroup_size(1) fn a() {}\n@compute @workgroup_size(1) fn b() {}";
        let error = compile(source, &options).unwrap_err();
        assert_eq!(error.to_string(), "no entry point named `nope` (the module has: a, b)");
    }
}
