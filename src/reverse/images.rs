//! Image instructions Vulkan restricts more than naga's writer knows.
//!
//! - `OpImageQuerySizeLod` only takes sampled, single-sample images
//!   (VUID-StandaloneSpirv-OpImageQuerySizeLod-04659); naga writes it for `textureNumLayers` of a
//!   storage texture array. On storage and multisampled images it becomes `OpImageQuerySize`,
//!   which has no level: such images have one.
//! - `bgra8unorm` storage textures have no SPIR-V format: naga declares them `Unknown` (what
//!   Vulkan takes with `StorageImageWriteWithoutFormat`), and reading one needs
//!   `StorageImageReadWithoutFormat`, which naga never declares. So that the format comes back on
//!   the way to WGSL, it is recorded in a non-semantic instruction (drivers ignore it),
//!   `StorageTexelFormat %image_type "bgra8unorm"` of the set `NonSemantic.spv2wgsl.StorageTexelFormat`
//!   (`SPV_KHR_non_semantic_info` before SPIR-V 1.6), which our forward path reads.
//!
//! Before: naga's function bodies. After: every size query is one Vulkan allows; the module
//! declares the capability when it reads an image without a format, and records the WGSL format
//! of each `Unknown`-format storage image.

use rspirv::dr::{Instruction, Module, Operand};
use spirv::{Capability, ImageFormat, Op, Word};

use super::declarations;
use super::error::Error;
use super::module_edit::{fresh_id, global_def, require_capability, result_types};
use crate::spirv::STORAGE_TEXEL_FORMAT_SET;

/// SPIR-V 1.6, where non-semantic instruction sets need no extension.
const NON_SEMANTIC_CORE_FROM: u32 = 0x0001_0600;

/// `bgra8_storage`: whether the WGSL has a `bgra8unorm` storage texture, the only kind naga
/// declares with the `Unknown` format.
pub fn run(module: &mut Module, bgra8_storage: bool) -> Result<(), Error> {
    vulkan_restrictions(module);
    record_texel_formats(module, bgra8_storage)
}

fn vulkan_restrictions(module: &mut Module) {
    let types = result_types(module);
    let image_type = |module: &Module, image: Word| -> Option<ImageTypeInfo> {
        let inst = global_def(module, *types.get(&image)?)?;
        match (inst.class.opcode, inst.operands.as_slice()) {
            (
                Op::TypeImage,
                [
                    _,
                    _,
                    _,
                    _,
                    Operand::LiteralBit32(ms),
                    Operand::LiteralBit32(sampled),
                    Operand::ImageFormat(format),
                    ..,
                ],
            ) => Some(ImageTypeInfo { multisampled: *ms == 1, storage: *sampled == 2, format: *format }),
            _ => None,
        }
    };
    let mut reads_without_format = false;
    let mut rewritten: Vec<(usize, usize, usize)> = Vec::new();
    for (f, function) in module.functions.iter().enumerate() {
        for (b, block) in function.blocks.iter().enumerate() {
            for (i, inst) in block.instructions.iter().enumerate() {
                let Some(image) = inst.operands.first().and_then(Operand::id_ref_any) else {
                    continue;
                };
                match inst.class.opcode {
                    Op::ImageQuerySizeLod if image_type(module, image).is_some_and(|t| t.storage || t.multisampled) => {
                        rewritten.push((f, b, i));
                    }
                    Op::ImageRead | Op::ImageSparseRead => {
                        reads_without_format |=
                            image_type(module, image).is_some_and(|t| t.format == ImageFormat::Unknown);
                    }
                    _ => {}
                }
            }
        }
    }
    for (f, b, i) in rewritten {
        let inst = &mut module.functions[f].blocks[b].instructions[i];
        *inst = Instruction::new(Op::ImageQuerySize, inst.result_type, inst.result_id, inst.operands[..1].to_vec());
    }
    if reads_without_format {
        require_capability(module, Capability::StorageImageReadWithoutFormat);
    }
}

/// Records `bgra8unorm` on each storage image type of the `Unknown` format.
fn record_texel_formats(module: &mut Module, bgra8_storage: bool) -> Result<(), Error> {
    let unknown: Vec<Word> = module
        .types_global_values
        .iter()
        .filter(|inst| {
            inst.class.opcode == Op::TypeImage
                && inst.operands.get(5) == Some(&Operand::LiteralBit32(2))
                && inst.operands.get(6) == Some(&Operand::ImageFormat(ImageFormat::Unknown))
        })
        .filter_map(|inst| inst.result_id)
        .collect();
    if unknown.is_empty() {
        return Ok(());
    }
    if !bgra8_storage {
        return Err(Error::internal("naga declared a storage image without a format for no bgra8unorm texture"));
    }
    let version = module.header.as_ref().map_or(0, |header| header.version);
    if version < NON_SEMANTIC_CORE_FROM {
        let extension = Instruction::new(
            Op::Extension,
            None,
            None,
            vec![Operand::LiteralString("SPV_KHR_non_semantic_info".into())],
        );
        module.extensions.push(extension);
    }
    let set = fresh_id(module)?;
    let import = Instruction::new(
        Op::ExtInstImport,
        None,
        Some(set),
        vec![Operand::LiteralString(STORAGE_TEXEL_FORMAT_SET.into())],
    );
    module.ext_inst_imports.push(import);
    let name = fresh_id(module)?;
    let string = Instruction::new(Op::String, None, Some(name), vec![Operand::LiteralString("bgra8unorm".into())]);
    module.debug_string_source.push(string);
    let void = declarations::type_id(module, Op::TypeVoid, Vec::new())?;
    for image in unknown {
        let id = fresh_id(module)?;
        let operands =
            vec![Operand::IdRef(set), Operand::LiteralExtInstInteger(1), Operand::IdRef(image), Operand::IdRef(name)];
        module.types_global_values.push(Instruction::new(Op::ExtInst, Some(void), Some(id), operands));
    }
    declarations::sort(module);
    Ok(())
}

struct ImageTypeInfo {
    multisampled: bool,
    storage: bool,
    format: ImageFormat,
}
