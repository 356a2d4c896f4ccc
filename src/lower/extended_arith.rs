//! OpIAddCarry, OpISubBorrow, OpUMulExtended and OpSMulExtended: SPIR-V's two-word results,
//! computed exactly with 32-bit WGSL arithmetic (WGSL has neither carry flags nor wide multiplies).
//!
//! The signedness pass hands these instructions `u32` operands (the table reads all four as
//! unsigned words); the lowering builds the result struct `{low, high}` and bitcasts each word
//! to the struct's member type when that is `i32`.

use spirv::Op;

use super::emit::Emitter;
use super::function::Lower;
use crate::error::Error;
use crate::spirv::{Inst, Type};
use crate::wgsl::ast::{BinaryOp, Expr, Literal, Stmt};
use crate::wgsl::names::unnamed_base;

use BinaryOp::{Add, And, Less, Multiply, ShiftRight, Subtract};

impl Lower<'_> {
    pub(super) fn extended_arith(&mut self, e: &mut Emitter, inst: &Inst) -> Result<(), Error> {
        let struct_ty = inst.ty().ok_or_else(|| Error::invalid("missing result type", self.location(inst)))?;
        let member = match self.module.ty(struct_ty)? {
            Type::Struct { members } if members.len() == 2 && members[0] == members[1] => members[0],
            _ => {
                return Err(Error::invalid(
                    "the result must be a struct of two members of one type",
                    self.location(inst),
                ));
            }
        };
        let (scalar, count) = self.module.scalar_of(member).unwrap_or((member, 1));
        let member_signed = matches!(self.module.type_def(scalar), Some(Type::Int { signed: true, .. }));
        // The temporaries are named after the result, which keeps its own name for a `let`.
        let id = self.result(inst)?;
        let base = self.module.name(id).map(str::to_string).unwrap_or_else(|| unnamed_base(id));
        let words = Words { base, count };
        let a = self.take_shared(e, self.operand(inst, 0)?)?;
        let b = self.take_shared(e, self.operand(inst, 1)?)?;
        let (low, high) = match inst.op {
            Op::IAddCarry => {
                let sum = self.temp(e, &words, "sum", Expr::binary(Add, a.clone(), b));
                // The sum wrapped exactly when it is below either operand.
                let carry = words.select(Expr::binary(Less, sum.clone(), a));
                (sum, carry)
            }
            Op::ISubBorrow => (Expr::binary(Subtract, a.clone(), b.clone()), words.select(Expr::binary(Less, a, b))),
            Op::UMulExtended => (Expr::binary(Multiply, a.clone(), b.clone()), self.mul_high(e, &words, a, b)),
            _ => {
                // The unsigned high word, less b for a negative a and a for a negative b (mod 2^32).
                let high = self.mul_high(e, &words, a.clone(), b.clone());
                let a_sign = Expr::binary(ShiftRight, a.clone(), words.literal(31));
                let b_sign = Expr::binary(ShiftRight, b.clone(), words.literal(31));
                let corrected = Expr::binary(
                    Subtract,
                    Expr::binary(Subtract, high, Expr::binary(Multiply, b.clone(), a_sign)),
                    Expr::binary(Multiply, a.clone(), b_sign),
                );
                (Expr::binary(Multiply, a, b), corrected)
            }
        };
        let as_member = |word: Expr| {
            if member_signed { Expr::call(format!("bitcast<{}>", words.of_type("i32")), vec![word]) } else { word }
        };
        let value = Expr::call(e.ty(struct_ty)?, vec![as_member(low), as_member(high)]);
        self.define(e, inst, value, false)
    }

    /// The high word of the 64-bit product of two u32 words, from 16-bit halves whose partial
    /// products fit in 32 bits.
    fn mul_high(&mut self, e: &Emitter, words: &Words, a: Expr, b: Expr) -> Expr {
        let low_half = |x: Expr| Expr::binary(And, x, words.literal(0xffff));
        let high_half = |x: Expr| Expr::binary(ShiftRight, x, words.literal(16));
        let a_lo = self.temp(e, words, "a_lo", low_half(a.clone()));
        let a_hi = self.temp(e, words, "a_hi", high_half(a));
        let b_lo = self.temp(e, words, "b_lo", low_half(b.clone()));
        let b_hi = self.temp(e, words, "b_hi", high_half(b));
        let lo_lo = Expr::binary(Multiply, a_lo.clone(), b_lo.clone());
        let lo_hi = self.temp(e, words, "lo_hi", Expr::binary(Multiply, a_lo, b_hi.clone()));
        let hi_lo = self.temp(e, words, "hi_lo", Expr::binary(Multiply, a_hi.clone(), b_lo));
        // At most 3 * 0xffff: the carry out of the low word's upper half.
        let middle =
            Expr::binary(Add, Expr::binary(Add, high_half(lo_lo), low_half(lo_hi.clone())), low_half(hi_lo.clone()));
        let middle = self.temp(e, words, "mid", middle);
        let sum = [high_half(lo_hi), high_half(hi_lo), high_half(middle)];
        sum.into_iter().fold(Expr::binary(Multiply, a_hi, b_hi), |acc, part| Expr::binary(Add, acc, part))
    }

    /// `let <base>_<what> = value;`, returning the name.
    fn temp(&mut self, e: &Emitter, words: &Words, what: &str, value: Expr) -> Expr {
        let name = self.namer.fresh_name(&format!("{}_{what}", words.base), Some(&e.namer));
        self.stmts.push(Stmt::Let { name: name.clone(), ty: None, value });
        Expr::ident(name)
    }
}

/// The shape of the words being computed: scalar or a vector of `count`.
struct Words {
    /// Name prefix for the temporaries.
    base: String,
    count: u32,
}

impl Words {
    /// `scalar`, or the vector of `count` of them.
    fn of_type(&self, scalar: &str) -> String {
        if self.count == 1 { scalar.to_string() } else { format!("vec{}<{scalar}>", self.count) }
    }

    /// A u32 constant of this shape: WGSL's bitwise operators and shifts do not splat scalars.
    fn literal(&self, value: u32) -> Expr {
        let literal = Expr::Literal(Literal::U32(value));
        if self.count == 1 { literal } else { Expr::call(self.of_type("u32"), vec![literal]) }
    }

    /// 1 where `condition` holds, else 0.
    fn select(&self, condition: Expr) -> Expr {
        Expr::call("select", vec![self.literal(0), self.literal(1), condition])
    }
}
