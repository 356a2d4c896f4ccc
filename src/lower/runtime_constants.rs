//! An operation whose operands are all constants would be a WGSL constant expression, which
//! shader creation evaluates, and rejects where a float result is infinite or NaN, an i32
//! division overflows or a left shift loses bits (`1.0f / 0.0f`, `sqrt(-1.0f)`,
//! `i32(-2147483648) / -1i`, `45i << 27u`), where SPIR-V leaves the result to run time. An operand
//! computed from constants alone and written out at its use counts as a constant too: `45i <<
//! (59u & 31u)` is a constant expression as well. glslang and spirv-opt fold the operations they
//! can, so what is left with only constant operands is mostly such a case. Its first operand is
//! bound to a `let` first, which makes the expression a run-time one (naga and Tint evaluate
//! `let`s at run time). Operations that cannot fail on finite operands are left as they are.
//!
//! The same holds of overrides: an operation on overrides and constants alone is an override
//! expression, which pipeline creation evaluates and rejects alike (`a << 4u` where the `a` the
//! pipeline sets loses bits), so its first operand is bound too; in a module with overrides the
//! binding is a `var`, unless naga cannot evaluate its value (see `Lower::bind_constant_operand`). OpSpecConstantOp results, which must
//! stay override expressions, are spelled so that they cannot fail (`lower/spec.rs`).

use spirv::{GlslStd450Op as G, Op};

use super::emit::Emitter;
use super::function::{Lower, Value};
use super::spec::is_override_expression;
use crate::error::Error;
use crate::ops;
use crate::spirv::{Def, Id, Inst, Module, Type};
use crate::wgsl::ast::{Expr, Stmt};
use crate::wgsl::override_lets;

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
/// by dividing the most negative i32 by -1 or by shifting bits out to the left, float results by
/// overflowing to infinity or giving NaN.
fn may_fail(module: &Module, inst: &Inst) -> bool {
    if !has_float_result(module, inst) {
        return match inst.op {
            // A constant divisor with a -1 lane (one computed from constants is read from a `var`:
            // `Lower::hide_zero_lanes`).
            Op::SDiv | Op::SRem | Op::SMod => {
                inst.id(1).is_some_and(|divisor| lanes(module, divisor).is_some_and(|l| l.contains(&u32::MAX)))
            }
            Op::ShiftLeftLogical => shift_may_lose_bits(module, inst),
            _ => false,
        };
    }
    match inst.op {
        Op::ExtInst => inst.literal(1).is_some_and(|number| !GLSL_CANNOT_FAIL.iter().any(|&op| op as u32 == number)),
        Op::Bitcast => true,
        op => ops::core_row(op).is_some() && !CANNOT_FAIL.contains(&op),
    }
}

/// Whether `inst` gives a float or a vector of floats.
fn has_float_result(module: &Module, inst: &Inst) -> bool {
    inst.ty()
        .and_then(|ty| module.scalar_of(ty))
        .is_some_and(|(scalar, _)| matches!(module.type_def(scalar), Some(Type::Float { .. })))
}

/// The 32-bit values of a scalar or vector constant's lanes; `None` for anything else, and for
/// an override expression, whose values the pipeline sets.
fn lanes(module: &Module, id: Id) -> Option<Vec<u32>> {
    if is_override_expression(module, id) {
        return None;
    }
    let parts = module.constant(id)?.value.parts();
    let parts = if parts.is_empty() { vec![id] } else { parts };
    parts.into_iter().map(|lane| module.const_u32(lane)).collect()
}

/// Whether `base << shift` loses bits as a constant expression, which WGSL rejects: a lane whose
/// result does not fit its type (the shift written modulo 32, as the lowering writes a constant
/// one). `true` where an operand is not a constant, as one computed from constants.
fn shift_may_lose_bits(module: &Module, inst: &Inst) -> bool {
    let signed = inst
        .ty()
        .and_then(|ty| module.scalar_of(ty))
        .is_some_and(|(scalar, _)| matches!(module.type_def(scalar), Some(Type::Int { signed: true, .. })));
    let (Some(bases), Some(shifts)) =
        (inst.id(0).and_then(|id| lanes(module, id)), inst.id(1).and_then(|id| lanes(module, id)))
    else {
        return true;
    };
    bases.iter().zip(shifts.iter().cycle()).any(|(&base, &shift)| {
        let shift = shift & 31;
        match signed {
            true => i32::try_from(i64::from(base as i32) << shift).is_err(),
            false => u32::try_from(u64::from(base) << shift).is_err(),
        }
    })
}

impl Lower<'_> {
    /// Binds the first operand of `inst` to a `let` if every operand is constant-valued
    /// ([`Lower::is_constant_valued`]) and the operation may fail as a constant expression (or as
    /// an override expression, which pipeline creation evaluates); `take` then reads the `let`.
    pub(super) fn bind_constant_operand(&mut self, e: &mut Emitter, inst: &Inst) -> Result<(), Error> {
        if !self.is_used(inst) || !may_fail(self.module, inst) {
            return Ok(());
        }
        // A float operation on overrides fails only where its result is infinite or NaN, which
        // Vulkan does not promise either (without float controls): it stays an override
        // expression, as readable as the source.
        let with_overrides = !has_float_result(self.module, inst);
        let mut values = value_operands(self.module, inst).peekable();
        let Some(&first) = values.peek() else { return Ok(()) };
        if !values.all(|id| self.is_constant_valued(e, id, with_overrides)) {
            return Ok(());
        }
        let value = match self.module.constant(first).is_some() {
            true => e.constant(first)?,
            // Computed from constants and written out at its use: taken here instead.
            false => self.take(e, first)?,
        };
        let name = self.local_name(e, first);
        // The binding is what makes the operation a run-time one: never inlined.
        self.unnamed.remove(&name);
        // In a module with overrides, wgpu evaluates the operation again when it creates the
        // pipeline, following `let`s (`wgsl/override_lets.rs`), even one of a literal: a `var` is
        // read at run time. Not where naga cannot evaluate the value: it leaves that to run time
        // itself, and a `var` of it panics its SPIR-V writer.
        self.stmts.push(match e.has_spec_constants && override_lets::naga_folds(&value) {
            true => Stmt::Var { name: name.clone(), ty: None, value: Some(value) },
            false => Stmt::Let { name: name.clone(), ty: None, value },
        });
        self.constant_lets.insert(first, name);
        Ok(())
    }

    /// Whether the WGSL of `id` here is a constant expression, or `with_overrides` an override
    /// expression: a constant, or a value written out at its use whose expression names nothing
    /// (but overrides).
    fn is_constant_valued(&self, e: &Emitter, id: Id, with_overrides: bool) -> bool {
        if self.module.constant(id).is_some() {
            return with_overrides || !is_override_expression(self.module, id);
        }
        match self.values.get(&id) {
            Some(Value::Pending { expr, .. } | Value::Named(expr)) => {
                is_evaluated_before_run_time(expr, &|name| with_overrides && e.is_override(name))
            }
            _ => false,
        }
    }
}

/// Whether `expr` is a WGSL constant expression: it names nothing (the lowering writes ordinary
/// constants as literals; a name is a `let`, a variable, a parameter or an override) and calls no
/// builtin that only runs in a shader (`subgroupAdd(1u)` is not one).
pub(super) fn is_constant_expression(expr: &Expr) -> bool {
    is_evaluated_before_run_time(expr, &|_| false)
}

/// Whether `expr` is a constant expression or, where `is_override` names overrides, an override
/// expression: either is evaluated before the shader runs, and fails where it would overflow.
fn is_evaluated_before_run_time(expr: &Expr, is_override: &dyn Fn(&str) -> bool) -> bool {
    !expr.any(&|part| match part {
        Expr::Ident(name) => !is_override(name),
        Expr::Call(call) => call.is_shader_only_builtin(),
        _ => false,
    })
}

/// The operands of `inst` that are values: not an extended instruction's set.
fn value_operands<'m>(module: &'m Module, inst: &'m Inst) -> impl Iterator<Item = Id> + 'm {
    inst.id_operands().filter(move |&id| !matches!(module.def(id), Def::ExtInstSet(_)))
}
