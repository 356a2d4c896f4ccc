//! The exponent of `frexp` on `f16` values is an `i32`, as WGSL says; naga types it `i16` (the
//! float's width), which SPIR-V's `FrexpStruct` rejects (it wants a 32-bit exponent) and which
//! WGSL cannot express on the way back.
//!
//! Before: a validated module whose `frexp` results of `f16`s have `i16` exponents, and whose
//! `i16` literals are abstract integers naga made `i16` to meet them (WGSL has no `i16`). After:
//! those exponents and literals are `i32`; the module must be validated again.
//! [`drop_int16`] removes `i16` types naga declares without using them, with their `Int16`
//! capability (a device feature).

use naga::{Literal, Scalar, ScalarKind, StructMember, TypeInner};
use rspirv::dr::Operand;
use spirv::{Capability, Op};

/// Returns whether anything changed.
pub fn run(module: &mut naga::Module) -> bool {
    let results: Vec<naga::Handle<naga::Type>> = module
        .special_types
        .predeclared_types
        .iter()
        .filter(|(kind, _)| matches!(kind, naga::PredeclaredType::FrexpResult { scalar, .. } if scalar.width == 2))
        .map(|(_, &ty)| ty)
        .collect();
    if results.is_empty() {
        return false;
    }
    for result in results {
        let ty = module.types[result].clone();
        let TypeInner::Struct { members, .. } = &ty.inner else { continue };
        let [fract, exp] = members.as_slice() else { continue };
        // The exponent's type becomes `i32` where it stands (the struct refers to it, and must
        // come after it); named when the unnamed `i32` type is there already.
        let wide = match module.types[exp.ty].inner {
            TypeInner::Vector { size, .. } => TypeInner::Vector { size, scalar: Scalar::I32 },
            _ => TypeInner::Scalar(Scalar::I32),
        };
        let unnamed = naga::Type { name: None, inner: wide.clone() };
        let exponent = match module.types.get(&unnamed) {
            None => unnamed,
            Some(_) => naga::Type { name: Some("frexp_exponent".into()), inner: wide.clone() },
        };
        if module.types[exp.ty] != exponent {
            module.types.replace(exp.ty, exponent);
        }
        let (fract_size, exp_size, exp_align) = match wide {
            TypeInner::Vector { size, .. } => {
                let count = size as u32;
                (2 * count, 4 * count, if count == 2 { 8 } else { 16 })
            }
            _ => (2, 4, 4),
        };
        let offset = fract_size.next_multiple_of(exp_align);
        let members = vec![fract.clone(), StructMember { offset, ..exp.clone() }];
        let span = (offset + exp_size).next_multiple_of(exp_align);
        module.types.replace(result, naga::Type { name: ty.name, inner: TypeInner::Struct { members, span } });
    }
    let functions =
        module.functions.iter_mut().map(|(_, f)| f).chain(module.entry_points.iter_mut().map(|e| &mut e.function));
    for function in functions {
        for (_, expression) in function.expressions.iter_mut() {
            match expression {
                naga::Expression::Literal(Literal::I16(value)) => {
                    *expression = naga::Expression::Literal(Literal::I32(i32::from(*value)));
                }
                naga::Expression::As { kind: ScalarKind::Sint, convert, .. } if *convert == Some(2) => {
                    *convert = Some(4)
                }
                _ => {}
            }
        }
    }
    true
}

/// Removes 16-bit integer types nothing uses, and `Int16` when none is left.
pub fn drop_int16(module: &mut rspirv::dr::Module) {
    let int16 = |inst: &rspirv::dr::Instruction| {
        inst.class.opcode == Op::TypeInt && inst.operands.first() == Some(&Operand::LiteralBit32(16))
    };
    let mut unused: Vec<u32> =
        module.types_global_values.iter().filter(|i| int16(i)).filter_map(|i| i.result_id).collect();
    // Vectors of them first.
    let vectors: Vec<u32> = module
        .types_global_values
        .iter()
        .filter(|inst| {
            inst.class.opcode == Op::TypeVector
                && inst.operands.first().and_then(Operand::id_ref_any).is_some_and(|c| unused.contains(&c))
        })
        .filter_map(|inst| inst.result_id)
        .collect();
    unused.splice(0..0, vectors);
    for id in unused {
        let used = module.all_inst_iter().any(|inst| {
            inst.result_type == Some(id)
                || (!matches!(inst.class.opcode, Op::Name | Op::Decorate)
                    && inst.operands.iter().any(|o| o.id_ref_any() == Some(id)))
        });
        if !used {
            module.types_global_values.retain(|inst| inst.result_id != Some(id));
            module.debug_names.retain(|inst| inst.operands.first() != Some(&Operand::IdRef(id)));
        }
    }
    if !module.types_global_values.iter().any(int16) {
        module.capabilities.retain(|inst| inst.operands.first() != Some(&Operand::Capability(Capability::Int16)));
    }
}
