//! One table per fact about an operation: how WGSL spells it, and how it reads the signedness of
//! its integer operands. The `signedness` pass and the emitter both read these rows.

use spirv::{GlslStd450Op as GLOp, Op};

use crate::wgsl::ast::{BinaryOp, UnaryOp};

/// How WGSL writes an operation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Spelling {
    Binary(BinaryOp),
    Unary(UnaryOp),
    /// A builtin function taking the operands in order.
    Builtin(&'static str),
    /// A value conversion to the result type: `f32(x)`, `vec3<u32>(v)`.
    Convert,
    /// Lowered by a function of its own in the emitter (no single WGSL operator does it).
    Custom,
}

/// How an operation reads the signedness of its integer operands (SPIR-V decides it by opcode,
/// WGSL by type).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Sign {
    /// No integer operands, or signedness does not matter beyond matching the result (float ops).
    None,
    /// Operands are read as the result type: two's complement makes the bits identical.
    AsResult,
    /// Integer operands are read as signed; an integer result is signed in WGSL.
    Signed,
    /// Integer operands are read as unsigned; an integer result is unsigned in WGSL.
    Unsigned,
    /// Operands must match each other (comparisons for equality): read as the first one.
    AsFirst,
    /// A shift: the base is read as the result (logical left), signed (arithmetic right) or
    /// unsigned (logical right); WGSL wants the amount unsigned.
    Shift(ShiftBase),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ShiftBase {
    AsResult,
    Signed,
    Unsigned,
}

pub struct OpRow {
    pub op: Op,
    pub spelling: Spelling,
    pub sign: Sign,
}

const fn row(op: Op, spelling: Spelling, sign: Sign) -> OpRow {
    OpRow { op, spelling, sign }
}

use BinaryOp as B;
use Sign as S;
use Spelling::{Binary, Builtin, Convert, Custom, Unary};

/// Core instructions that map to one WGSL operator, builtin or conversion.
pub static CORE: &[OpRow] = &[
    row(Op::FAdd, Binary(B::Add), S::None),
    row(Op::IAdd, Binary(B::Add), S::AsResult),
    row(Op::FSub, Binary(B::Subtract), S::None),
    row(Op::ISub, Binary(B::Subtract), S::AsResult),
    row(Op::FMul, Binary(B::Multiply), S::None),
    row(Op::IMul, Binary(B::Multiply), S::AsResult),
    row(Op::FDiv, Binary(B::Divide), S::None),
    row(Op::SDiv, Binary(B::Divide), S::Signed),
    row(Op::UDiv, Binary(B::Divide), S::Unsigned),
    // WGSL `%` truncates: the sign follows the dividend, as OpFRem and OpSRem define.
    row(Op::FRem, Binary(B::Modulo), S::None),
    row(Op::SRem, Binary(B::Modulo), S::Signed),
    row(Op::UMod, Binary(B::Modulo), S::Unsigned),
    // The result takes the divisor's sign: exact code, see `wgsl/instruction.rs`.
    row(Op::SMod, Custom, S::Signed),
    row(Op::FMod, Custom, S::None),
    row(Op::VectorTimesScalar, Binary(B::Multiply), S::None),
    row(Op::MatrixTimesScalar, Binary(B::Multiply), S::None),
    row(Op::VectorTimesMatrix, Binary(B::Multiply), S::None),
    row(Op::MatrixTimesVector, Binary(B::Multiply), S::None),
    row(Op::MatrixTimesMatrix, Binary(B::Multiply), S::None),
    row(Op::BitwiseAnd, Binary(B::And), S::AsResult),
    row(Op::BitwiseOr, Binary(B::Or), S::AsResult),
    row(Op::BitwiseXor, Binary(B::Xor), S::AsResult),
    row(Op::ShiftLeftLogical, Binary(B::ShiftLeft), S::Shift(ShiftBase::AsResult)),
    row(Op::ShiftRightLogical, Binary(B::ShiftRight), S::Shift(ShiftBase::Unsigned)),
    row(Op::ShiftRightArithmetic, Binary(B::ShiftRight), S::Shift(ShiftBase::Signed)),
    row(Op::IEqual, Binary(B::Equal), S::AsFirst),
    row(Op::INotEqual, Binary(B::NotEqual), S::AsFirst),
    row(Op::SLessThan, Binary(B::Less), S::Signed),
    row(Op::SLessThanEqual, Binary(B::LessEqual), S::Signed),
    row(Op::SGreaterThan, Binary(B::Greater), S::Signed),
    row(Op::SGreaterThanEqual, Binary(B::GreaterEqual), S::Signed),
    row(Op::ULessThan, Binary(B::Less), S::Unsigned),
    row(Op::ULessThanEqual, Binary(B::LessEqual), S::Unsigned),
    row(Op::UGreaterThan, Binary(B::Greater), S::Unsigned),
    row(Op::UGreaterThanEqual, Binary(B::GreaterEqual), S::Unsigned),
    // WGSL does not promise IEEE NaN behaviour, so ordered and unordered compare alike.
    row(Op::FOrdEqual, Binary(B::Equal), S::None),
    row(Op::FUnordEqual, Binary(B::Equal), S::None),
    row(Op::FOrdNotEqual, Binary(B::NotEqual), S::None),
    row(Op::FUnordNotEqual, Binary(B::NotEqual), S::None),
    row(Op::FOrdLessThan, Binary(B::Less), S::None),
    row(Op::FUnordLessThan, Binary(B::Less), S::None),
    row(Op::FOrdLessThanEqual, Binary(B::LessEqual), S::None),
    row(Op::FUnordLessThanEqual, Binary(B::LessEqual), S::None),
    row(Op::FOrdGreaterThan, Binary(B::Greater), S::None),
    row(Op::FUnordGreaterThan, Binary(B::Greater), S::None),
    row(Op::FOrdGreaterThanEqual, Binary(B::GreaterEqual), S::None),
    row(Op::FUnordGreaterThanEqual, Binary(B::GreaterEqual), S::None),
    row(Op::LogicalEqual, Binary(B::Equal), S::None),
    row(Op::LogicalNotEqual, Binary(B::NotEqual), S::None),
    row(Op::LogicalAnd, Binary(B::LogicalAnd), S::None),
    row(Op::LogicalOr, Binary(B::LogicalOr), S::None),
    row(Op::LogicalNot, Unary(UnaryOp::Not), S::None),
    row(Op::FNegate, Unary(UnaryOp::Negate), S::None),
    row(Op::SNegate, Unary(UnaryOp::Negate), S::Signed),
    row(Op::Not, Unary(UnaryOp::BitNot), S::AsResult),
    row(Op::ConvertFToS, Convert, S::Signed),
    row(Op::ConvertFToU, Convert, S::Unsigned),
    row(Op::ConvertSToF, Convert, S::Signed),
    row(Op::ConvertUToF, Convert, S::Unsigned),
    row(Op::FConvert, Convert, S::None),
    row(Op::SConvert, Convert, S::Signed),
    row(Op::UConvert, Convert, S::Unsigned),
    row(Op::Dot, Builtin("dot"), S::None),
    row(Op::Transpose, Builtin("transpose"), S::None),
    row(Op::Any, Builtin("any"), S::None),
    row(Op::All, Builtin("all"), S::None),
    row(Op::DPdx, Builtin("dpdx"), S::None),
    row(Op::DPdy, Builtin("dpdy"), S::None),
    row(Op::Fwidth, Builtin("fwidth"), S::None),
    row(Op::DPdxFine, Builtin("dpdxFine"), S::None),
    row(Op::DPdyFine, Builtin("dpdyFine"), S::None),
    row(Op::FwidthFine, Builtin("fwidthFine"), S::None),
    row(Op::DPdxCoarse, Builtin("dpdxCoarse"), S::None),
    row(Op::DPdyCoarse, Builtin("dpdyCoarse"), S::None),
    row(Op::FwidthCoarse, Builtin("fwidthCoarse"), S::None),
    row(Op::QuantizeToF16, Builtin("quantizeToF16"), S::None),
    row(Op::BitReverse, Builtin("reverseBits"), S::AsResult),
    row(Op::BitCount, Builtin("countOneBits"), S::AsResult),
    row(Op::BitFieldInsert, Builtin("insertBits"), S::AsResult),
    row(Op::BitFieldSExtract, Builtin("extractBits"), S::Signed),
    row(Op::BitFieldUExtract, Builtin("extractBits"), S::Unsigned),
];

pub struct ExtRow {
    pub op: GLOp,
    pub name: &'static str,
    pub sign: Sign,
}

const fn ext(op: GLOp, name: &'static str, sign: Sign) -> ExtRow {
    ExtRow { op, name, sign }
}

/// GLSL.std.450 instructions that are one WGSL builtin with the same operands.
pub static GLSL_STD_450: &[ExtRow] = &[
    // Round's tie direction is implementation-defined; WGSL rounds ties to even.
    ext(GLOp::Round, "round", S::None),
    ext(GLOp::RoundEven, "round", S::None),
    ext(GLOp::Trunc, "trunc", S::None),
    ext(GLOp::FAbs, "abs", S::None),
    ext(GLOp::SAbs, "abs", S::Signed),
    ext(GLOp::FSign, "sign", S::None),
    ext(GLOp::SSign, "sign", S::Signed),
    ext(GLOp::Floor, "floor", S::None),
    ext(GLOp::Ceil, "ceil", S::None),
    ext(GLOp::Fract, "fract", S::None),
    ext(GLOp::Radians, "radians", S::None),
    ext(GLOp::Degrees, "degrees", S::None),
    ext(GLOp::Sin, "sin", S::None),
    ext(GLOp::Cos, "cos", S::None),
    ext(GLOp::Tan, "tan", S::None),
    ext(GLOp::Asin, "asin", S::None),
    ext(GLOp::Acos, "acos", S::None),
    ext(GLOp::Atan, "atan", S::None),
    ext(GLOp::Sinh, "sinh", S::None),
    ext(GLOp::Cosh, "cosh", S::None),
    ext(GLOp::Tanh, "tanh", S::None),
    ext(GLOp::Asinh, "asinh", S::None),
    ext(GLOp::Acosh, "acosh", S::None),
    ext(GLOp::Atanh, "atanh", S::None),
    ext(GLOp::Atan2, "atan2", S::None),
    ext(GLOp::Pow, "pow", S::None),
    ext(GLOp::Exp, "exp", S::None),
    ext(GLOp::Log, "log", S::None),
    ext(GLOp::Exp2, "exp2", S::None),
    ext(GLOp::Log2, "log2", S::None),
    ext(GLOp::Sqrt, "sqrt", S::None),
    ext(GLOp::InverseSqrt, "inverseSqrt", S::None),
    ext(GLOp::Determinant, "determinant", S::None),
    ext(GLOp::FMin, "min", S::None),
    ext(GLOp::UMin, "min", S::Unsigned),
    ext(GLOp::SMin, "min", S::Signed),
    ext(GLOp::FMax, "max", S::None),
    ext(GLOp::UMax, "max", S::Unsigned),
    ext(GLOp::SMax, "max", S::Signed),
    ext(GLOp::FClamp, "clamp", S::None),
    ext(GLOp::UClamp, "clamp", S::Unsigned),
    ext(GLOp::SClamp, "clamp", S::Signed),
    ext(GLOp::NMin, "min", S::None),
    ext(GLOp::NMax, "max", S::None),
    ext(GLOp::NClamp, "clamp", S::None),
    ext(GLOp::FMix, "mix", S::None),
    ext(GLOp::Step, "step", S::None),
    ext(GLOp::SmoothStep, "smoothstep", S::None),
    ext(GLOp::Fma, "fma", S::None),
    ext(GLOp::Ldexp, "ldexp", S::Signed),
    ext(GLOp::PackSnorm4x8, "pack4x8snorm", S::None),
    ext(GLOp::PackUnorm4x8, "pack4x8unorm", S::None),
    ext(GLOp::PackSnorm2x16, "pack2x16snorm", S::None),
    ext(GLOp::PackUnorm2x16, "pack2x16unorm", S::None),
    ext(GLOp::PackHalf2x16, "pack2x16float", S::None),
    ext(GLOp::UnpackSnorm2x16, "unpack2x16snorm", S::None),
    ext(GLOp::UnpackUnorm2x16, "unpack2x16unorm", S::None),
    ext(GLOp::UnpackHalf2x16, "unpack2x16float", S::None),
    ext(GLOp::UnpackSnorm4x8, "unpack4x8snorm", S::None),
    ext(GLOp::UnpackUnorm4x8, "unpack4x8unorm", S::None),
    ext(GLOp::Length, "length", S::None),
    ext(GLOp::Distance, "distance", S::None),
    ext(GLOp::Cross, "cross", S::None),
    ext(GLOp::Normalize, "normalize", S::None),
    ext(GLOp::FaceForward, "faceForward", S::None),
    ext(GLOp::Reflect, "reflect", S::None),
    ext(GLOp::Refract, "refract", S::None),
    ext(GLOp::FindILsb, "firstTrailingBit", S::AsResult),
    ext(GLOp::FindSMsb, "firstLeadingBit", S::Signed),
    ext(GLOp::FindUMsb, "firstLeadingBit", S::Unsigned),
    ext(GLOp::ModfStruct, "modf", S::None),
    ext(GLOp::FrexpStruct, "frexp", S::None),
];

pub fn core_row(op: Op) -> Option<&'static OpRow> {
    CORE.iter().find(|row| row.op == op)
}

pub fn glsl_row(instruction: u32) -> Option<&'static ExtRow> {
    GLSL_STD_450.iter().find(|row| row.op as u32 == instruction)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_opcode_has_one_row() {
        for (i, a) in CORE.iter().enumerate() {
            assert!(CORE[i + 1..].iter().all(|b| b.op != a.op), "Op{:?} twice", a.op);
        }
        for (i, a) in GLSL_STD_450.iter().enumerate() {
            assert!(GLSL_STD_450[i + 1..].iter().all(|b| b.op != a.op), "{:?} twice", a.op);
        }
    }

    #[test]
    fn division_and_comparison_signedness_follows_the_opcode() {
        assert_eq!(core_row(Op::SDiv).unwrap().sign, Sign::Signed);
        assert_eq!(core_row(Op::UDiv).unwrap().sign, Sign::Unsigned);
        assert_eq!(core_row(Op::ULessThan).unwrap().sign, Sign::Unsigned);
        assert_eq!(core_row(Op::IEqual).unwrap().sign, Sign::AsFirst);
        assert_eq!(core_row(Op::ShiftRightArithmetic).unwrap().sign, Sign::Shift(ShiftBase::Signed));
        assert_eq!(glsl_row(GLOp::SMax as u32).unwrap().sign, Sign::Signed);
        assert_eq!(core_row(Op::SMod).unwrap().spelling, Spelling::Custom, "SMod needs exact code, not `%`");
    }
}
