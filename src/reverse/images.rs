//! Image instructions Vulkan restricts more than naga's writer knows.
//!
//! - `OpImageQuerySizeLod` only takes sampled, single-sample images
//!   (VUID-StandaloneSpirv-OpImageQuerySizeLod-04659); naga writes it for `textureNumLayers` of a
//!   storage texture array. On storage and multisampled images it becomes `OpImageQuerySize`,
//!   which has no level: such images have one.
//! - Reading a storage image whose format is `Unknown` (`bgra8unorm`, which SPIR-V has no format
//!   for) needs `StorageImageReadWithoutFormat`, which naga never declares.
//!
//! Before: naga's function bodies. After: every size query is one Vulkan allows, and the module
//! declares the capability when it reads an image without a format.

use rspirv::dr::{Instruction, Module, Operand};
use spirv::{Capability, ImageFormat, Op, Word};

use super::module_edit::{global_def, require_capability, result_types};

pub fn run(module: &mut Module) {
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

struct ImageTypeInfo {
    multisampled: bool,
    storage: bool,
    format: ImageFormat,
}
