//! An operation whose operands are all constants would be a WGSL constant expression, which
//! shader creation evaluates, and rejects where a float result is infinite or NaN or an i32
//! division overflows (`1.0f / 0.0f`, `sqrt(-1.0f)`, `i32(-2147483648) / -1i`), where SPIR-V
//! leaves the result to run time. glslang and spirv-opt fold the
//! operations they can, so what is left with only constant operands is mostly such a case. Its
//! first constant operand is bound to a `let` first, which makes the expression a run-time one
//! (naga and Tint evaluate `let`s at run time). Operations that cannot fail on finite operands
//! are left as they are.

use spirv::{GlslStd450Op as G, Op};

use super::emit::Emitter;
use super::function::Lower;
use crate::error::Error;
use crate::ops;
use crate::spirv::{ConstValue, Def, Inst, Module, Type};
use crate::wgsl::ast::Stmt;

/// Core operations whose WGSL spelling cannot fail on finite constants.
const CANNOT_FAIL: &[Op] = &[
    Op::Transpose,
    Op::ConvertSToF,
    Op::ConvertUToF,
    Op::SConvert,
    Op::UConvert,
    Op::FNegate,
    Op::Not,
    Op::BitwiseAnd,
    Op::BitwiseOr,
    Op::BitwiseXor,
    Op::ShiftLeftLogical,
    Op::ShiftRightLogical,
    Op::ShiftRightArithmetic,
    Op::BitCount,
    Op::BitReverse,
    Op::Any,
    Op::All,
    Op::LogicalAnd,
    Op::LogicalOr,
    Op::LogicalNot,
    Op::LogicalEqual,
    Op::LogicalNotEqual,
    Op::IEqual,
    Op::INotEqual,
    Op::SLessThan,
    Op::SLessThanEqual,
    Op::SGreaterThan,
    Op::SGreaterThanEqual,
    Op::ULessThan,
    Op::ULessThanEqual,
    Op::UGreaterThan,
    Op::UGreaterThanEqual,
    Op::FOrdEqual,
    Op::FOrdNotEqual,
    Op::FOrdLessThan,
    Op::FOrdLessThanEqual,
    Op::FOrdGreaterThan,
    Op::FOrdGreaterThanEqual,
    Op::FUnordEqual,
    Op::FUnordNotEqual,
    Op::FUnordLessThan,
    Op::FUnordLessThanEqual,
    Op::FUnordGreaterThan,
    Op::FUnordGreaterThanEqual,
];

/// GLSL.std.450 instructions whose WGSL spelling cannot fail on finite constants.
const GLSL_CANNOT_FAIL: &[G] = &[
    G::Round,
    G::RoundEven,
    G::Trunc,
    G::FAbs,
    G::SAbs,
    G::FSign,
    G::SSign,
    G::Floor,
    G::Ceil,
    G::Fract,
    G::Radians,
    G::Sin,
    G::Cos,
    G::Tanh,
    G::Asinh,
    G::Atan,
    G::FMin,
    G::UMin,
    G::SMin,
    G::FMax,
    G::UMax,
    G::SMax,
    G::FClamp,
    G::UClamp,
    G::SClamp,
    G::NMin,
    G::NMax,
    G::NClamp,
    G::Step,
    G::FindILsb,
    G::FindSMsb,
    G::FindUMsb,
    G::PackSnorm4x8,
    G::PackUnorm4x8,
    G::PackSnorm2x16,
    G::PackUnorm2x16,
    G::UnpackSnorm4x8,
    G::UnpackUnorm4x8,
    G::UnpackSnorm2x16,
    G::UnpackUnorm2x16,
];

/// Whether the WGSL of `inst` may fail to evaluate as a constant expression: integer results
/// only by dividing the most negative i32 by -1, float results by overflowing to infinity or
/// giving NaN.
fn may_fail(module: &Module, inst: &Inst) -> bool {
    let float_result = inst
        .ty()
        .and_then(|ty| module.scalar_of(ty))
        .is_some_and(|(scalar, _)| matches!(module.type_def(scalar), Some(Type::Float { .. })));
    if !float_result {
        // A divisor with a -1 lane (a splat or a composite of constants).
        let minus_one = |id| {
            let lanes = module.constant(id).map(|c| c.value.parts()).unwrap_or_default();
            let mut lanes = if lanes.is_empty() { vec![id] } else { lanes };
            lanes.retain(|&lane| module.const_u32(lane) == Some(u32::MAX));
            !lanes.is_empty()
        };
        return matches!(inst.op, Op::SDiv | Op::SRem | Op::SMod) && inst.id(1).is_some_and(minus_one);
    }
    match inst.op {
        Op::ExtInst => inst.literal(1).is_some_and(|number| !GLSL_CANNOT_FAIL.iter().any(|&op| op as u32 == number)),
        Op::Bitcast => true,
        op => ops::core_row(op).is_some() && !CANNOT_FAIL.contains(&op),
    }
}

impl Lower<'_> {
    /// Binds the first operand of `inst` to a `let` if it and every other operand is an ordinary
    /// constant and the operation may fail as a constant expression; `take` then reads the `let`.
    pub(super) fn bind_constant_operand(&mut self, e: &mut Emitter, inst: &Inst) -> Result<(), Error> {
        if !self.is_used(inst) || !may_fail(self.module, inst) {
            return Ok(());
        }
        let module = self.module;
        // An extended instruction's set is not a value.
        let mut values = inst.id_operands().filter(|&id| !matches!(module.def(id), Def::ExtInstSet(_))).peekable();
        let Some(&first) = values.peek() else { return Ok(()) };
        // Not specialization constants or operations on them: those are override expressions.
        let ordinary =
            |id| module.constant(id).is_some_and(|c| c.spec_id.is_none() && !matches!(c.value, ConstValue::Op { .. }));
        if !values.all(ordinary) {
            return Ok(());
        }
        let value = e.constant(first)?;
        let name = self.local_name(e, first);
        self.stmts.push(Stmt::Let { name: name.clone(), ty: None, value });
        self.constant_lets.insert(first, name);
        Ok(())
    }
}
