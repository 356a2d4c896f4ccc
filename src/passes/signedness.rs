//! Signedness rectifier: SPIR-V decides integer signedness by opcode, WGSL by type.
//!
//! Before: operands of an integer instruction may be `i32` or `u32` in any mix (`OpSDiv %uint
//! %a_int %b_uint`). After: every operand has the type WGSL's operator needs for the opcode's
//! reading (from the tables in `ops.rs`), and the instruction's result type is what WGSL
//! computes; where that differs from the declared type, an `OpBitcast` back to it now defines the
//! original result id, so users are untouched. Constant operands are re-typed rather than cast.

use std::collections::HashMap;

use spirv::Op;

use crate::error::Error;
use crate::ops::{self, ShiftBase, Sign};
use crate::spirv::{ConstValue, Constant, Def, ExtSet, Function, Id, Inst, Module, Operand, Type};
use crate::Options;

pub fn run(module: &mut Module, _options: &Options) -> Result<(), Error> {
    let mut retyped_constants = HashMap::new();
    for f in 0..module.functions.len() {
        for b in 0..module.functions[f].blocks.len() {
            let old = std::mem::take(&mut module.functions[f].blocks[b].insts);
            let mut new = Vec::with_capacity(old.len());
            for index in old {
                let mut rectifier = Rectifier { module, function: f, out: &mut new, constants: &mut retyped_constants };
                rectifier.instruction(index);
            }
            module.functions[f].blocks[b].insts = new;
        }
    }
    Ok(())
}

/// What an integer operand must be read as.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Want {
    Signed,
    Unsigned,
    /// As the declared result type.
    Result,
    /// As the first operand.
    First,
}

struct Rectifier<'a> {
    module: &'a mut Module,
    function: usize,
    out: &'a mut Vec<usize>,
    constants: &'a mut HashMap<(Id, bool), Id>,
}

/// The signedness rule of an instruction, and where its value operands start.
fn rule(module: &Module, inst: &Inst) -> Option<(Sign, usize)> {
    if inst.op == Op::ExtInst {
        let set = inst.id(0)?;
        if !matches!(module.def(set), Def::ExtInstSet(ExtSet::GlslStd450)) {
            return None;
        }
        return ops::glsl_row(inst.literal(1)?).map(|row| (row.sign, 2));
    }
    ops::core_row(inst.op).map(|row| (row.sign, 0))
}

impl Rectifier<'_> {
    fn func(&mut self) -> &mut Function {
        &mut self.module.functions[self.function]
    }

    fn instruction(&mut self, index: usize) {
        let inst = self.module.functions[self.function].insts[index].clone();
        let Some((sign, first)) = rule(self.module, &inst) else {
            self.out.push(index);
            return;
        };
        let result_signed = inst.ty.and_then(|ty| int_signedness(self.module, ty));
        let first_signed = inst.id(first).and_then(|id| self.value_signedness(id));
        let mut operands = inst.operands.clone();
        for (position, operand) in operands.iter_mut().enumerate().skip(first) {
            let Operand::IdRef(id) = operand else { continue };
            let Some(have) = self.value_signedness(*id) else { continue };
            let want = match want_for(sign, inst.op, position - first) {
                Want::Signed => true,
                Want::Unsigned => false,
                Want::Result => result_signed.unwrap_or(have),
                Want::First => first_signed.unwrap_or(have),
            };
            if want != have {
                *id = self.cast_operand(*id, want);
            }
        }
        self.func().insts[index].operands = operands;
        // The signedness WGSL computes the result in, when the opcode fixes it.
        let computed = match sign {
            Sign::Signed | Sign::Shift(ShiftBase::Signed) => Some(true),
            Sign::Unsigned | Sign::Shift(ShiftBase::Unsigned) => Some(false),
            _ => None,
        };
        match (computed, result_signed, inst.result, inst.ty) {
            (Some(computed), Some(declared), Some(result), Some(ty)) if computed != declared => {
                let wgsl_ty = with_signedness(self.module, ty, computed);
                let fresh = self.module.add_def(Def::Value { function: self.function, inst: index, ty: wgsl_ty });
                let inst = &mut self.func().insts[index];
                inst.result = Some(fresh);
                inst.ty = Some(wgsl_ty);
                self.out.push(index);
                self.push_bitcast(result, ty, fresh);
            }
            _ => self.out.push(index),
        }
    }

    fn value_signedness(&self, id: Id) -> Option<bool> {
        let ty = self.module.type_of(id).ok()?;
        int_signedness(self.module, ty)
    }

    /// `id` read with the other signedness: a re-typed constant, or a new `OpBitcast`.
    fn cast_operand(&mut self, id: Id, signed: bool) -> Id {
        if let Some(constant) = self.retyped_constant(id, signed) {
            return constant;
        }
        let ty = self.module.type_of(id).expect("integer operands have types");
        let target = with_signedness(self.module, ty, signed);
        let fresh = self.module.bound;
        self.push_bitcast(fresh, target, id);
        fresh
    }

    /// Appends `%result = OpBitcast %ty %value` to the block being rebuilt, defining `%result`
    /// (which may be fresh, equal to `module.bound`, or an existing id being redefined).
    fn push_bitcast(&mut self, result: Id, ty: Id, value: Id) {
        let index = self.func().insts.len();
        self.func().insts.push(Inst {
            op: Op::Bitcast,
            ty: Some(ty),
            result: Some(result),
            operands: vec![Operand::IdRef(value)],
            offset: 0,
        });
        let def = Def::Value { function: self.function, inst: index, ty };
        if result == self.module.bound {
            self.module.add_def(def);
        } else {
            self.module.defs[result as usize] = def;
        }
        self.out.push(index);
    }

    /// The same bits as a constant of the other signedness, declared once per constant.
    fn retyped_constant(&mut self, id: Id, signed: bool) -> Option<Id> {
        let constant = self.module.constant(id)?.clone();
        if constant.spec_id.is_some() {
            return None;
        }
        if let Some(&done) = self.constants.get(&(id, signed)) {
            return Some(done);
        }
        let value = match &constant.value {
            ConstValue::Composite(parts) => {
                let parts = parts.clone();
                let mut retyped = Vec::with_capacity(parts.len());
                for part in parts {
                    retyped.push(self.retyped_constant(part, signed)?);
                }
                ConstValue::Composite(retyped)
            }
            other => other.clone(),
        };
        let ty = with_signedness(self.module, constant.ty, signed);
        let new = self.module.add_def(Def::Constant(Constant { ty, value, spec_id: None }));
        self.module.declarations.push(new);
        self.constants.insert((id, signed), new);
        Some(new)
    }
}

/// What the operand at `position` (counting value operands only) must be read as.
pub(crate) fn want_for(sign: Sign, op: Op, position: usize) -> Want {
    // Bit-field offsets and counts are unsigned in WGSL whatever the base.
    let count_operands = match op {
        Op::BitFieldInsert => 2,
        Op::BitFieldSExtract | Op::BitFieldUExtract => 1,
        _ => usize::MAX,
    };
    if position >= count_operands {
        return Want::Unsigned;
    }
    match sign {
        Sign::None | Sign::AsResult => Want::Result,
        Sign::Signed => Want::Signed,
        Sign::Unsigned => Want::Unsigned,
        Sign::AsFirst => Want::First,
        Sign::Shift(_) if position == 1 => Want::Unsigned,
        Sign::Shift(ShiftBase::AsResult) => Want::Result,
        Sign::Shift(ShiftBase::Signed) => Want::Signed,
        Sign::Shift(ShiftBase::Unsigned) => Want::Unsigned,
    }
}

/// Whether an integer scalar or vector type is signed; `None` for other types.
pub fn int_signedness(module: &Module, ty: Id) -> Option<bool> {
    let (scalar, _) = module.scalar_of(ty)?;
    match module.def(scalar) {
        Def::Type(Type::Int { signed, .. }) => Some(*signed),
        _ => None,
    }
}

/// The integer scalar or vector type like `ty` but with the given signedness.
pub fn with_signedness(module: &mut Module, ty: Id, signed: bool) -> Id {
    match module.def(ty).clone() {
        Def::Type(Type::Int { width, .. }) => module.intern_type(Type::Int { width, signed }),
        Def::Type(Type::Vector { component, count }) => {
            let component = with_signedness(module, component, signed);
            module.intern_type(Type::Vector { component, count })
        }
        _ => ty,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn operand_rules() {
        let shift = Sign::Shift(ShiftBase::Signed);
        assert!(want_for(shift, Op::ShiftRightArithmetic, 0) == Want::Signed);
        assert!(want_for(shift, Op::ShiftRightArithmetic, 1) == Want::Unsigned);
        assert!(want_for(Sign::AsResult, Op::BitFieldInsert, 1) == Want::Result);
        assert!(want_for(Sign::AsResult, Op::BitFieldInsert, 2) == Want::Unsigned);
        assert!(want_for(Sign::Signed, Op::BitFieldSExtract, 0) == Want::Signed);
        assert!(want_for(Sign::Signed, Op::BitFieldSExtract, 2) == Want::Unsigned);
        assert!(want_for(Sign::AsFirst, Op::IEqual, 1) == Want::First);
    }
}
