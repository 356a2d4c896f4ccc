//! Layout decorations only on the types of buffers.
//!
//! naga gives every struct member an `Offset` and every array an `ArrayStride`, values included:
//! the struct `frexp` returns has its exponent at offset 12 after a `vec3<f32>`, which no buffer
//! layout allows. Vulkan lays out only the `Uniform`, `StorageBuffer`, `PushConstant` and
//! `PhysicalStorageBuffer` storage classes; elsewhere these decorations say nothing (and recent
//! Vulkan rules forbid them). They are removed from every type no such variable holds.
//!
//! Before: naga's decorations. After: `Offset`, `ArrayStride`, `MatrixStride`, `ColMajor` and
//! `RowMajor` only on types a buffer variable's type reaches.

use std::collections::HashSet;

use rspirv::dr::{Module, Operand};
use spirv::{Decoration, Op, StorageClass, Word};

use super::module_edit::global_def;

const LAID_OUT: &[StorageClass] = &[
    StorageClass::Uniform,
    StorageClass::StorageBuffer,
    StorageClass::PushConstant,
    StorageClass::PhysicalStorageBuffer,
];

const LAYOUT: &[Decoration] = &[
    Decoration::Offset,
    Decoration::ArrayStride,
    Decoration::MatrixStride,
    Decoration::ColMajor,
    Decoration::RowMajor,
];

pub fn run(module: &mut Module) {
    let mut buffer_types = HashSet::new();
    let mut pending: Vec<Word> = module
        .types_global_values
        .iter()
        .filter(|inst| inst.class.opcode == Op::TypePointer)
        .filter_map(|inst| match inst.operands.as_slice() {
            [Operand::StorageClass(class), Operand::IdRef(pointee)] if LAID_OUT.contains(class) => Some(*pointee),
            _ => None,
        })
        .collect();
    while let Some(ty) = pending.pop() {
        if !buffer_types.insert(ty) {
            continue;
        }
        if let Some(inst) = global_def(module, ty)
            && matches!(inst.class.opcode, Op::TypeStruct | Op::TypeArray | Op::TypeRuntimeArray)
        {
            let parts = inst.operands.iter().filter_map(Operand::id_ref_any);
            // An array's length is a constant, not a type: it is skipped as it has no decorations.
            pending.extend(parts);
        }
    }
    module.annotations.retain(|inst| {
        let layout = match (inst.class.opcode, inst.operands.as_slice()) {
            (Op::MemberDecorate, [_, _, Operand::Decoration(decoration), ..]) => LAYOUT.contains(decoration),
            (Op::Decorate, [_, Operand::Decoration(decoration), ..]) => LAYOUT.contains(decoration),
            _ => false,
        };
        let target = inst.operands.first().and_then(Operand::id_ref_any);
        !layout || target.is_some_and(|target| buffer_types.contains(&target))
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_lose_their_offsets_and_buffers_keep_theirs() {
        let source = "struct S { a: vec3f, b: f32 }\n\
                      @group(0) @binding(0) var<storage, read_write> buffer: array<S, 2>;\n\
                      struct Value { c: vec3f, d: array<f32, 3> }\n\
                      @compute @workgroup_size(1) fn main() {\n\
                        let r = frexp(vec3(1.5));\n\
                        var v = Value(r.fract, array(1.0, 2.0, f32(r.exp.x)));\n\
                        buffer[0] = S(v.c, v.d[2]);\n\
                      }\n";
        let (mut module, _) = crate::reverse::tests::naga_output(source, (1, 3));
        let offsets = |module: &Module| {
            module
                .annotations
                .iter()
                .filter(|inst| inst.operands.get(2) == Some(&Operand::Decoration(Decoration::Offset)))
                .filter_map(|inst| inst.operands.first().and_then(Operand::id_ref_any))
                .collect::<HashSet<Word>>()
                .len()
        };
        // S, Value, the frexp result, and the buffer's block.
        assert_eq!(offsets(&module), 4);
        run(&mut module);
        assert_eq!(offsets(&module), 2, "S and the block keep theirs");
        let strides = module
            .annotations
            .iter()
            .filter(|inst| inst.operands.get(1) == Some(&Operand::Decoration(Decoration::ArrayStride)))
            .count();
        assert_eq!(strides, 1, "only the buffer's array keeps its stride");
    }
}
