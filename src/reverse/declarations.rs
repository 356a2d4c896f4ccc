//! Module-scope declarations the fix-ups need: scalar, vector and matrix types and constants,
//! found among naga's or added, and the order SPIR-V requires of them.
//!
//! SPIR-V forbids two declarations of one non-aggregate type, so types are looked up by their
//! operands before one is added; constants are reused the same way. New declarations go at the
//! end of the module's types and values; [`sort`] then puts every declaration after what it
//! refers to.

use std::collections::{HashMap, HashSet};

use rspirv::dr::{Instruction, Module, Operand};
use spirv::{Capability, Op, Word};

use super::error::Error;
use super::module_edit::{fresh_id, require_capability};

/// A scalar as SPIR-V declares it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scalar {
    Bool,
    Float(u32),
    Int { width: u32, signed: bool },
}

impl Scalar {
    pub fn of(scalar: naga::Scalar) -> Result<Scalar, Error> {
        let width = u32::from(scalar.width) * 8;
        Ok(match scalar.kind {
            naga::ScalarKind::Bool => Scalar::Bool,
            naga::ScalarKind::Float => Scalar::Float(width),
            naga::ScalarKind::Sint => Scalar::Int { width, signed: true },
            naga::ScalarKind::Uint => Scalar::Int { width, signed: false },
            naga::ScalarKind::AbstractInt | naga::ScalarKind::AbstractFloat => {
                return Err(Error::internal("an abstract number survived naga's front end"));
            }
        })
    }
}

/// Finds or adds the type `opcode operands` (a non-aggregate type: one declaration per module).
pub fn type_id(module: &mut Module, opcode: Op, operands: Vec<Operand>) -> Result<Word, Error> {
    let existing =
        module.types_global_values.iter().find(|inst| inst.class.opcode == opcode && inst.operands == operands);
    if let Some(id) = existing.and_then(|inst| inst.result_id) {
        return Ok(id);
    }
    if opcode == Op::TypeFloat && operands.first() == Some(&Operand::LiteralBit32(16)) {
        require_capability(module, Capability::Float16);
    }
    let id = fresh_id(module)?;
    module.types_global_values.push(Instruction::new(opcode, None, Some(id), operands));
    Ok(id)
}

pub fn scalar_type(module: &mut Module, scalar: Scalar) -> Result<Word, Error> {
    match scalar {
        Scalar::Bool => type_id(module, Op::TypeBool, Vec::new()),
        Scalar::Float(width) => type_id(module, Op::TypeFloat, vec![Operand::LiteralBit32(width)]),
        Scalar::Int { width, signed } => {
            type_id(module, Op::TypeInt, vec![Operand::LiteralBit32(width), Operand::LiteralBit32(u32::from(signed))])
        }
    }
}

/// The SPIR-V type of a naga scalar, vector or matrix.
pub fn value_type(module: &mut Module, inner: &naga::TypeInner) -> Result<Word, Error> {
    match *inner {
        naga::TypeInner::Scalar(scalar) => scalar_type(module, Scalar::of(scalar)?),
        naga::TypeInner::Vector { size, scalar } => {
            let component = scalar_type(module, Scalar::of(scalar)?)?;
            type_id(module, Op::TypeVector, vec![Operand::IdRef(component), Operand::LiteralBit32(size as u32)])
        }
        naga::TypeInner::Matrix { columns, rows, scalar } => {
            let column = value_type(module, &naga::TypeInner::Vector { size: rows, scalar })?;
            type_id(module, Op::TypeMatrix, vec![Operand::IdRef(column), Operand::LiteralBit32(columns as u32)])
        }
        ref other => Err(Error::internal(format!("{other:?} is not a scalar, vector or matrix"))),
    }
}

/// Finds or adds the constant `opcode %ty operands` (`OpConstant`, `OpConstantTrue`, ...).
pub fn constant(module: &mut Module, opcode: Op, ty: Word, operands: Vec<Operand>) -> Result<Word, Error> {
    let existing = module
        .types_global_values
        .iter()
        .find(|inst| inst.class.opcode == opcode && inst.result_type == Some(ty) && inst.operands == operands);
    if let Some(id) = existing.and_then(|inst| inst.result_id) {
        return Ok(id);
    }
    let id = fresh_id(module)?;
    module.types_global_values.push(Instruction::new(opcode, Some(ty), Some(id), operands));
    Ok(id)
}

/// The opcode and operands of a scalar literal's constant: 16-bit floats in the low half of
/// their word, as SPIR-V stores literals narrower than 32 bits.
pub fn literal(value: naga::Literal) -> Result<(Op, Vec<Operand>), Error> {
    use naga::Literal as L;
    Ok(match value {
        L::Bool(true) => (Op::ConstantTrue, Vec::new()),
        L::Bool(false) => (Op::ConstantFalse, Vec::new()),
        L::F32(v) => (Op::Constant, vec![Operand::LiteralBit32(v.to_bits())]),
        L::F16(v) => (Op::Constant, vec![Operand::LiteralBit32(u32::from(v.to_bits()))]),
        L::U32(v) => (Op::Constant, vec![Operand::LiteralBit32(v)]),
        L::I32(v) => (Op::Constant, vec![Operand::LiteralBit32(v as u32)]),
        other => return Err(Error::unsupported(format!("the literal {other:?} in an override expression"))),
    })
}

/// Puts every module-scope declaration after the declarations it refers to, keeping the
/// existing order wherever it already is one.
pub fn sort(module: &mut Module) {
    let declarations = std::mem::take(&mut module.types_global_values);
    let position: HashMap<Word, usize> =
        declarations.iter().enumerate().filter_map(|(i, inst)| Some((inst.result_id?, i))).collect();
    let mut placed = HashSet::new();
    let mut order = Vec::with_capacity(declarations.len());
    for start in 0..declarations.len() {
        // Depth first, iteratively: a chain of types can be long.
        let mut stack = vec![(start, false)];
        while let Some((i, expanded)) = stack.pop() {
            if placed.contains(&i) {
                continue;
            }
            if expanded {
                placed.insert(i);
                order.push(i);
                continue;
            }
            stack.push((i, true));
            let inst = &declarations[i];
            let uses = inst.result_type.into_iter().chain(inst.operands.iter().filter_map(Operand::id_ref_any));
            for dependency in uses.filter_map(|id| position.get(&id)).rev() {
                if !placed.contains(dependency) {
                    stack.push((*dependency, false));
                }
            }
        }
    }
    let mut slots: Vec<Option<Instruction>> = declarations.into_iter().map(Some).collect();
    module.types_global_values = order.into_iter().filter_map(|i| slots[i].take()).collect();
}

/// Replaces every use of `old` by `new` (operands, result types, decorations, names).
pub fn replace_uses(module: &mut Module, old: Word, new: Word) {
    let rewrite = |inst: &mut Instruction| {
        if inst.result_type == Some(old) {
            inst.result_type = Some(new);
        }
        for operand in &mut inst.operands {
            match operand {
                Operand::IdRef(id) | Operand::IdMemorySemantics(id) | Operand::IdScope(id) if *id == old => *id = new,
                _ => {}
            }
        }
    };
    module.all_inst_iter_mut().for_each(rewrite);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn declarations_follow_what_they_use() {
        let mut module = rspirv::dr::Module::new();
        module.header = Some(rspirv::dr::ModuleHeader::new(10));
        let int =
            Instruction::new(Op::TypeInt, None, Some(1), vec![Operand::LiteralBit32(32), Operand::LiteralBit32(0)]);
        let vector = Instruction::new(Op::TypeVector, None, Some(2), vec![Operand::IdRef(1), Operand::LiteralBit32(2)]);
        let zero = Instruction::new(Op::Constant, Some(1), Some(3), vec![Operand::LiteralBit32(0)]);
        let pair =
            Instruction::new(Op::ConstantComposite, Some(2), Some(4), vec![Operand::IdRef(3), Operand::IdRef(3)]);
        module.types_global_values = vec![pair, vector, zero, int];
        sort(&mut module);
        let ids: Vec<Word> = module.types_global_values.iter().filter_map(|inst| inst.result_id).collect();
        assert_eq!(ids, [1, 2, 3, 4]);
    }

    #[test]
    fn types_are_found_before_they_are_added() {
        let mut module = rspirv::dr::Module::new();
        module.header = Some(rspirv::dr::ModuleHeader::new(10));
        let uint = scalar_type(&mut module, Scalar::Int { width: 32, signed: false }).unwrap();
        let again = scalar_type(&mut module, Scalar::Int { width: 32, signed: false }).unwrap();
        assert_eq!(uint, again);
        assert_eq!(module.types_global_values.len(), 1);
        scalar_type(&mut module, Scalar::Float(16)).unwrap();
        assert_eq!(module.capabilities.len(), 1, "16-bit floats declare Float16");
    }
}
