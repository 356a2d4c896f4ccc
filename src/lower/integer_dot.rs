//! Integer dot products (SPV_KHR_integer_dot_product, core in SPIR-V 1.6): OpSDot, OpUDot,
//! OpSUDot and their accumulating, saturating forms.
//!
//! On vectors of 32-bit integers the product wraps like WGSL's `dot`, whatever the signedness (the
//! bits of a wrapping sum of products do not depend on it). On 32-bit scalars holding four packed
//! 8-bit integers (`PackedVectorFormat4x8Bit`), WGSL's `dot4I8Packed` and `dot4U8Packed` compute
//! the signed and unsigned forms exactly; the mixed one is a `dot` of the unpacked vectors. The
//! saturating forms add the accumulator with saturation; the SPIR-V result is undefined if the dot
//! product itself overflows, so only the final addition needs care. The signedness pass leaves
//! these instructions alone: the operand types WGSL wants depend on the form.

use spirv::Op;

use super::emit::Emitter;
use super::function::Lower;
use super::spec::flip_signedness;
use crate::error::Error;
use crate::passes::signedness::int_signedness;
use crate::spirv::{Id, Inst};
use crate::wgsl::ast::{BinaryOp, Expr, Literal};

pub(super) fn is_integer_dot(op: Op) -> bool {
    matches!(op, Op::SDot | Op::UDot | Op::SUDot | Op::SDotAccSat | Op::UDotAccSat | Op::SUDotAccSat)
}

impl Lower<'_> {
    pub(super) fn integer_dot(&mut self, e: &mut Emitter, inst: &Inst) -> Result<(), Error> {
        let (a_id, b_id) = (self.operand(inst, 0)?, self.operand(inst, 1)?);
        let a_ty = self.module.type_of(a_id)?;
        // Which operands are read as signed, and whether the result is.
        let (a_signed, b_signed) = match inst.op {
            Op::SDot | Op::SDotAccSat => (true, true),
            Op::UDot | Op::UDotAccSat => (false, false),
            _ => (true, false),
        };
        let packed = self.module.scalar_of(a_ty).is_some_and(|(_, count)| count == 1);
        let a = self.take(e, a_id)?;
        let b = self.take(e, b_id)?;
        let dot = if packed {
            let a = self.with_signedness(e, a, a_ty, false)?;
            let b = self.with_signedness(e, b, self.module.type_of(b_id)?, false)?;
            match (a_signed, b_signed) {
                (true, true) => Expr::call("dot4I8Packed", vec![a, b]),
                (false, false) => Expr::call("dot4U8Packed", vec![a, b]),
                _ => Expr::call(
                    "dot",
                    vec![
                        Expr::call("unpack4xI8", vec![a]),
                        Expr::call("bitcast<vec4<i32>>", vec![Expr::call("unpack4xU8", vec![b])]),
                    ],
                ),
            }
        } else {
            // Both as the first operand's type: the wrapping sum has the same bits either way.
            let b = self.with_signedness(
                e,
                b,
                self.module.type_of(b_id)?,
                int_signedness(self.module, a_ty) == Some(true),
            )?;
            Expr::call("dot", vec![a, b])
        };
        // The type WGSL computes the dot product in.
        let computed_signed = if packed { a_signed } else { int_signedness(self.module, a_ty) == Some(true) };
        let result_ty = self.result_type(inst)?;
        let result_signed = a_signed;
        let value = if matches!(inst.op, Op::SDotAccSat | Op::UDotAccSat | Op::SUDotAccSat) {
            let dot = Self::with_signedness_of(dot, computed_signed, result_signed);
            let accumulator = self.operand(inst, 2)?;
            let accumulator = self.take(e, accumulator)?;
            let accumulator =
                self.with_signedness(e, accumulator, self.module.type_of(self.operand(inst, 2)?)?, result_signed)?;
            let sum = self.saturating_add(e, inst, dot, accumulator, result_signed)?;
            Self::with_signedness_of(sum, result_signed, int_signedness(self.module, result_ty) == Some(true))
        } else {
            Self::with_signedness_of(dot, computed_signed, int_signedness(self.module, result_ty) == Some(true))
        };
        self.define(e, inst, value, false)
    }

    /// `value` of integer type `ty` read with the given signedness.
    fn with_signedness(&mut self, e: &mut Emitter, value: Expr, ty: Id, signed: bool) -> Result<Expr, Error> {
        let have = int_signedness(self.module, ty) == Some(true);
        if have == signed {
            return Ok(value);
        }
        Ok(Expr::call(format!("bitcast<{}>", flip_signedness(&e.ty(ty)?, signed)), vec![value]))
    }

    /// A 32-bit scalar computed as signed or not, as the other.
    fn with_signedness_of(value: Expr, have: bool, want: bool) -> Expr {
        match (have, want) {
            (false, true) => Expr::call("bitcast<i32>", vec![value]),
            (true, false) => Expr::call("bitcast<u32>", vec![value]),
            _ => value,
        }
    }

    /// `a + b` clamped to the range of 32-bit integers of the given signedness.
    fn saturating_add(&mut self, e: &Emitter, inst: &Inst, a: Expr, b: Expr, signed: bool) -> Result<Expr, Error> {
        let id = self.result(inst)?;
        let a = self.temporary(e, id, "dot", a);
        let b = self.temporary(e, id, "accumulator", b);
        let sum = self.temporary(e, id, "sum", Expr::binary(BinaryOp::Add, a.clone(), b.clone()));
        if !signed {
            // The sum wrapped exactly when it is below an operand.
            let wrapped = Expr::binary(BinaryOp::Less, sum.clone(), a);
            return Ok(Expr::call("select", vec![sum, Expr::Literal(Literal::U32(u32::MAX)), wrapped]));
        }
        // Overflow: both operands have the sign the sum lacks; it saturates towards their sign.
        let sign_flipped = |x: Expr| Expr::binary(BinaryOp::Xor, x, sum.clone());
        let overflow = Expr::binary(
            BinaryOp::Less,
            Expr::binary(BinaryOp::And, sign_flipped(a.clone()), sign_flipped(b)),
            Expr::Literal(Literal::I32(0)),
        );
        let negative = Expr::binary(BinaryOp::Less, a, Expr::Literal(Literal::I32(0)));
        let limit = Expr::call(
            "select",
            vec![Expr::Literal(Literal::I32(i32::MAX)), Expr::Literal(Literal::I32(i32::MIN)), negative],
        );
        Ok(Expr::call("select", vec![sum, limit, overflow]))
    }
}
