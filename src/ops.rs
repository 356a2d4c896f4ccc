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

/// How WGSL must see an integer operand or result. SPIR-V decides signedness by opcode and lets
/// operand types mix `i32` and `u32`; WGSL decides it by type and wants them to match.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Int {
    /// As the declared result type: two's complement gives the same bits either way.
    AsResult,
    Signed,
    Unsigned,
    /// As the first operand: the operands only have to match each other (IEqual).
    AsFirst,
    /// WGSL takes either (indices, levels, coordinates): left as it is.
    Either,
}

/// The signedness rule of an operation: how it reads each integer operand (the last entry repeats
/// for the operands after it) and the type WGSL computes an integer result in (`AsResult`: the
/// declared type; `Signed`/`Unsigned`: a result declared otherwise is bitcast back to it).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct IntRule {
    pub operands: &'static [Int],
    pub result: Int,
}

impl IntRule {
    /// The rule for the value operand at `position` (0 = the first value operand).
    pub fn operand(&self, position: usize) -> Int {
        self.operands.get(position).or(self.operands.last()).copied().unwrap_or(Int::Either)
    }
}

const fn int(operands: &'static [Int], result: Int) -> IntRule {
    IntRule { operands, result }
}

use Int::{AsFirst, AsResult, Signed as S, Unsigned as U};

/// No integer operands or result.
const FLOAT: IntRule = int(&[], AsResult);
/// Operands read as the result; the bits do not depend on signedness (add, and, not, ...).
const SAME: IntRule = int(&[AsResult], AsResult);
const SIGNED: IntRule = int(&[S], S);
const UNSIGNED: IntRule = int(&[U], U);
/// IEqual, INotEqual: the operands must match each other, the result is a bool.
const EQUALITY: IntRule = int(&[AsFirst], AsResult);

pub struct OpRow {
    pub op: Op,
    pub spelling: Spelling,
    pub int: IntRule,
}

const fn row(op: Op, spelling: Spelling, int: IntRule) -> OpRow {
    OpRow { op, spelling, int }
}

use BinaryOp as B;
use Spelling::{Binary, Builtin, Convert, Custom, Unary};

/// Core instructions that map to one WGSL operator, builtin or conversion, or that have a lowering
/// of their own (`Custom`) but still a signedness rule.
pub static CORE: &[OpRow] = &[
    row(Op::FAdd, Binary(B::Add), FLOAT),
    row(Op::IAdd, Binary(B::Add), SAME),
    row(Op::FSub, Binary(B::Subtract), FLOAT),
    row(Op::ISub, Binary(B::Subtract), SAME),
    row(Op::FMul, Binary(B::Multiply), FLOAT),
    row(Op::IMul, Binary(B::Multiply), SAME),
    row(Op::FDiv, Binary(B::Divide), FLOAT),
    // x / 0 and INT_MIN / -1 are undefined in SPIR-V; WGSL defines both as x.
    row(Op::SDiv, Binary(B::Divide), SIGNED),
    row(Op::UDiv, Binary(B::Divide), UNSIGNED),
    // WGSL `%` truncates: the sign follows the dividend, as OpFRem and OpSRem define. x % 0 and
    // INT_MIN % -1 are undefined in SPIR-V; WGSL defines both as 0.
    row(Op::FRem, Binary(B::Modulo), FLOAT),
    row(Op::SRem, Binary(B::Modulo), SIGNED),
    row(Op::UMod, Binary(B::Modulo), UNSIGNED),
    // The result takes the divisor's sign: exact code, see `lower/instruction.rs`.
    row(Op::SMod, Custom, SIGNED),
    row(Op::FMod, Custom, FLOAT),
    row(Op::VectorTimesScalar, Binary(B::Multiply), FLOAT),
    row(Op::MatrixTimesScalar, Binary(B::Multiply), FLOAT),
    row(Op::VectorTimesMatrix, Binary(B::Multiply), FLOAT),
    row(Op::MatrixTimesVector, Binary(B::Multiply), FLOAT),
    row(Op::MatrixTimesMatrix, Binary(B::Multiply), FLOAT),
    row(Op::BitwiseAnd, Binary(B::And), SAME),
    row(Op::BitwiseOr, Binary(B::Or), SAME),
    row(Op::BitwiseXor, Binary(B::Xor), SAME),
    // WGSL wants the shift amount unsigned and uses its low 5 bits; SPIR-V leaves shifts by 32
    // or more undefined.
    row(Op::ShiftLeftLogical, Binary(B::ShiftLeft), int(&[AsResult, U], AsResult)),
    row(Op::ShiftRightLogical, Binary(B::ShiftRight), int(&[U, U], U)),
    row(Op::ShiftRightArithmetic, Binary(B::ShiftRight), int(&[S, U], S)),
    row(Op::IEqual, Binary(B::Equal), EQUALITY),
    row(Op::INotEqual, Binary(B::NotEqual), EQUALITY),
    row(Op::SLessThan, Binary(B::Less), SIGNED),
    row(Op::SLessThanEqual, Binary(B::LessEqual), SIGNED),
    row(Op::SGreaterThan, Binary(B::Greater), SIGNED),
    row(Op::SGreaterThanEqual, Binary(B::GreaterEqual), SIGNED),
    row(Op::ULessThan, Binary(B::Less), UNSIGNED),
    row(Op::ULessThanEqual, Binary(B::LessEqual), UNSIGNED),
    row(Op::UGreaterThan, Binary(B::Greater), UNSIGNED),
    row(Op::UGreaterThanEqual, Binary(B::GreaterEqual), UNSIGNED),
    // WGSL does not promise IEEE NaN behaviour, so ordered and unordered compare alike.
    row(Op::FOrdEqual, Binary(B::Equal), FLOAT),
    row(Op::FUnordEqual, Binary(B::Equal), FLOAT),
    row(Op::FOrdNotEqual, Binary(B::NotEqual), FLOAT),
    row(Op::FUnordNotEqual, Binary(B::NotEqual), FLOAT),
    row(Op::FOrdLessThan, Binary(B::Less), FLOAT),
    row(Op::FUnordLessThan, Binary(B::Less), FLOAT),
    row(Op::FOrdLessThanEqual, Binary(B::LessEqual), FLOAT),
    row(Op::FUnordLessThanEqual, Binary(B::LessEqual), FLOAT),
    row(Op::FOrdGreaterThan, Binary(B::Greater), FLOAT),
    row(Op::FUnordGreaterThan, Binary(B::Greater), FLOAT),
    row(Op::FOrdGreaterThanEqual, Binary(B::GreaterEqual), FLOAT),
    row(Op::FUnordGreaterThanEqual, Binary(B::GreaterEqual), FLOAT),
    row(Op::LogicalEqual, Binary(B::Equal), FLOAT),
    row(Op::LogicalNotEqual, Binary(B::NotEqual), FLOAT),
    row(Op::LogicalAnd, Binary(B::LogicalAnd), FLOAT),
    row(Op::LogicalOr, Binary(B::LogicalOr), FLOAT),
    row(Op::LogicalNot, Unary(UnaryOp::Not), FLOAT),
    row(Op::FNegate, Unary(UnaryOp::Negate), FLOAT),
    // WGSL has no unary minus for u32; -INT_MIN wraps to INT_MIN in both.
    row(Op::SNegate, Unary(UnaryOp::Negate), SIGNED),
    row(Op::Not, Unary(UnaryOp::BitNot), SAME),
    row(Op::ConvertFToS, Convert, SIGNED),
    row(Op::ConvertFToU, Convert, UNSIGNED),
    row(Op::ConvertSToF, Convert, SIGNED),
    row(Op::ConvertUToF, Convert, UNSIGNED),
    row(Op::FConvert, Convert, FLOAT),
    row(Op::SConvert, Convert, SIGNED),
    row(Op::UConvert, Convert, UNSIGNED),
    row(Op::Dot, Builtin("dot"), FLOAT),
    row(Op::Transpose, Builtin("transpose"), FLOAT),
    row(Op::Any, Builtin("any"), FLOAT),
    row(Op::All, Builtin("all"), FLOAT),
    row(Op::DPdx, Builtin("dpdx"), FLOAT),
    row(Op::DPdy, Builtin("dpdy"), FLOAT),
    row(Op::Fwidth, Builtin("fwidth"), FLOAT),
    row(Op::DPdxFine, Builtin("dpdxFine"), FLOAT),
    row(Op::DPdyFine, Builtin("dpdyFine"), FLOAT),
    row(Op::FwidthFine, Builtin("fwidthFine"), FLOAT),
    row(Op::DPdxCoarse, Builtin("dpdxCoarse"), FLOAT),
    row(Op::DPdyCoarse, Builtin("dpdyCoarse"), FLOAT),
    row(Op::FwidthCoarse, Builtin("fwidthCoarse"), FLOAT),
    row(Op::QuantizeToF16, Builtin("quantizeToF16"), FLOAT),
    row(Op::BitReverse, Builtin("reverseBits"), SAME),
    // The count does not depend on how the base is read; the result may be declared either way.
    row(Op::BitCount, Builtin("countOneBits"), SAME),
    // Offsets and counts are u32 in WGSL whatever the base.
    row(Op::BitFieldInsert, Builtin("insertBits"), int(&[AsResult, AsResult, U], AsResult)),
    row(Op::BitFieldSExtract, Builtin("extractBits"), int(&[S, U], S)),
    row(Op::BitFieldUExtract, Builtin("extractBits"), int(&[U, U], U)),
    // Two-word results built from 32-bit arithmetic on unsigned words, see
    // `lower/extended_arith.rs`; for SMulExtended that lowering applies the operands' signs itself.
    row(Op::IAddCarry, Custom, UNSIGNED),
    row(Op::ISubBorrow, Custom, UNSIGNED),
    row(Op::UMulExtended, Custom, UNSIGNED),
    row(Op::SMulExtended, Custom, UNSIGNED),
];

/// Instructions lowered elsewhere whose integer results WGSL computes as `u32` whatever SPIR-V
/// declares (`textureDimensions` and friends); their integer operands (levels) may be either.
pub static UNSIGNED_RESULTS: &[Op] =
    &[Op::ImageQuerySize, Op::ImageQuerySizeLod, Op::ImageQueryLevels, Op::ImageQuerySamples, Op::ArrayLength];

pub struct ExtRow {
    pub op: GLOp,
    pub name: &'static str,
    pub int: IntRule,
}

const fn ext(op: GLOp, name: &'static str, int: IntRule) -> ExtRow {
    ExtRow { op, name, int }
}

/// GLSL.std.450 instructions that are one WGSL builtin with the same operands.
pub static GLSL_STD_450: &[ExtRow] = &[
    // Round's tie direction is implementation-defined; WGSL rounds ties to even.
    ext(GLOp::Round, "round", FLOAT),
    ext(GLOp::RoundEven, "round", FLOAT),
    ext(GLOp::Trunc, "trunc", FLOAT),
    ext(GLOp::FAbs, "abs", FLOAT),
    // abs(INT_MIN) is INT_MIN in both.
    ext(GLOp::SAbs, "abs", SIGNED),
    ext(GLOp::FSign, "sign", FLOAT),
    ext(GLOp::SSign, "sign", SIGNED),
    ext(GLOp::Floor, "floor", FLOAT),
    ext(GLOp::Ceil, "ceil", FLOAT),
    ext(GLOp::Fract, "fract", FLOAT),
    ext(GLOp::Radians, "radians", FLOAT),
    ext(GLOp::Degrees, "degrees", FLOAT),
    ext(GLOp::Sin, "sin", FLOAT),
    ext(GLOp::Cos, "cos", FLOAT),
    ext(GLOp::Tan, "tan", FLOAT),
    ext(GLOp::Asin, "asin", FLOAT),
    ext(GLOp::Acos, "acos", FLOAT),
    ext(GLOp::Atan, "atan", FLOAT),
    ext(GLOp::Sinh, "sinh", FLOAT),
    ext(GLOp::Cosh, "cosh", FLOAT),
    ext(GLOp::Tanh, "tanh", FLOAT),
    ext(GLOp::Asinh, "asinh", FLOAT),
    ext(GLOp::Acosh, "acosh", FLOAT),
    ext(GLOp::Atanh, "atanh", FLOAT),
    ext(GLOp::Atan2, "atan2", FLOAT),
    ext(GLOp::Pow, "pow", FLOAT),
    ext(GLOp::Exp, "exp", FLOAT),
    ext(GLOp::Log, "log", FLOAT),
    ext(GLOp::Exp2, "exp2", FLOAT),
    ext(GLOp::Log2, "log2", FLOAT),
    ext(GLOp::Sqrt, "sqrt", FLOAT),
    ext(GLOp::InverseSqrt, "inverseSqrt", FLOAT),
    ext(GLOp::Determinant, "determinant", FLOAT),
    ext(GLOp::FMin, "min", FLOAT),
    ext(GLOp::UMin, "min", UNSIGNED),
    ext(GLOp::SMin, "min", SIGNED),
    ext(GLOp::FMax, "max", FLOAT),
    ext(GLOp::UMax, "max", UNSIGNED),
    ext(GLOp::SMax, "max", SIGNED),
    ext(GLOp::FClamp, "clamp", FLOAT),
    ext(GLOp::UClamp, "clamp", UNSIGNED),
    ext(GLOp::SClamp, "clamp", SIGNED),
    ext(GLOp::NMin, "min", FLOAT),
    ext(GLOp::NMax, "max", FLOAT),
    ext(GLOp::NClamp, "clamp", FLOAT),
    ext(GLOp::FMix, "mix", FLOAT),
    ext(GLOp::Step, "step", FLOAT),
    ext(GLOp::SmoothStep, "smoothstep", FLOAT),
    ext(GLOp::Fma, "fma", FLOAT),
    // WGSL's exponent is i32.
    ext(GLOp::Ldexp, "ldexp", int(&[S], AsResult)),
    // The packed word is u32 in WGSL; SPIR-V allows any 32-bit integer.
    ext(GLOp::PackSnorm4x8, "pack4x8snorm", int(&[], U)),
    ext(GLOp::PackUnorm4x8, "pack4x8unorm", int(&[], U)),
    ext(GLOp::PackSnorm2x16, "pack2x16snorm", int(&[], U)),
    ext(GLOp::PackUnorm2x16, "pack2x16unorm", int(&[], U)),
    ext(GLOp::PackHalf2x16, "pack2x16float", int(&[], U)),
    ext(GLOp::UnpackSnorm2x16, "unpack2x16snorm", int(&[U], AsResult)),
    ext(GLOp::UnpackUnorm2x16, "unpack2x16unorm", int(&[U], AsResult)),
    ext(GLOp::UnpackHalf2x16, "unpack2x16float", int(&[U], AsResult)),
    ext(GLOp::UnpackSnorm4x8, "unpack4x8snorm", int(&[U], AsResult)),
    ext(GLOp::UnpackUnorm4x8, "unpack4x8unorm", int(&[U], AsResult)),
    ext(GLOp::Length, "length", FLOAT),
    ext(GLOp::Distance, "distance", FLOAT),
    ext(GLOp::Cross, "cross", FLOAT),
    ext(GLOp::Normalize, "normalize", FLOAT),
    ext(GLOp::FaceForward, "faceForward", FLOAT),
    ext(GLOp::Reflect, "reflect", FLOAT),
    ext(GLOp::Refract, "refract", FLOAT),
    // The lowest set bit is at the same place however the value is read; -1 when none is.
    ext(GLOp::FindILsb, "firstTrailingBit", SAME),
    // SPIR-V lets the result's signedness differ from the operand's.
    ext(GLOp::FindSMsb, "firstLeadingBit", SIGNED),
    ext(GLOp::FindUMsb, "firstLeadingBit", UNSIGNED),
    ext(GLOp::ModfStruct, "modf", FLOAT),
    ext(GLOp::FrexpStruct, "frexp", FLOAT),
];

/// The row of `op`, looked up by opcode: every instruction of a module asks, most of them for
/// an opcode the table lacks, which a scan of the table would only learn at its end.
pub fn core_row(op: Op) -> Option<&'static OpRow> {
    static BY_OPCODE: std::sync::OnceLock<Vec<Option<&'static OpRow>>> = std::sync::OnceLock::new();
    let table = BY_OPCODE.get_or_init(|| {
        let mut table = vec![None; CORE.iter().map(|row| row.op as usize + 1).max().unwrap_or(0)];
        for row in CORE {
            table[row.op as usize] = Some(row);
        }
        table
    });
    table.get(op as usize).copied().flatten()
}

pub fn glsl_row(instruction: u32) -> Option<&'static ExtRow> {
    GLSL_STD_450.iter().find(|row| row.op as u32 == instruction)
}

/// Instructions WGSL has no counterpart for, with why: a refusal names the reason.
static LACKING: &[(&[Op], &str)] = &[
    (&[Op::IsHelperInvocationEXT], "WGSL cannot ask whether an invocation is a helper invocation"),
    (&[Op::BeginInvocationInterlockEXT, Op::EndInvocationInterlockEXT], "WGSL has no fragment shader interlock"),
    (&[Op::ReadClockKHR], "WGSL has no shader clock"),
    (&[Op::EmitVertex, Op::EndPrimitive, Op::EmitStreamVertex, Op::EndStreamPrimitive], "WGSL has no geometry shaders"),
    (&[Op::EmitMeshTasksEXT, Op::SetMeshOutputsEXT], "WGSL has no mesh or task shaders"),
    (
        &[
            Op::GroupAll,
            Op::GroupAny,
            Op::GroupBroadcast,
            Op::GroupIAdd,
            Op::GroupFAdd,
            Op::GroupFMin,
            Op::GroupUMin,
            Op::GroupSMin,
            Op::GroupFMax,
            Op::GroupUMax,
            Op::GroupSMax,
        ],
        "WGSL has no workgroup-wide group operations",
    ),
    (&[Op::FragmentMaskFetchAMD, Op::FragmentFetchAMD], "WGSL cannot read the fragment mask of a multisampled texture"),
    (&[Op::ImageSampleFootprintNV], "WGSL has no texture footprint queries"),
    (&[Op::GroupNonUniformPartitionNV], "WGSL has no subgroup partitions"),
    (&[Op::ConvertUToPtr, Op::ConvertPtrToU], "WGSL has no pointers made from integers"),
    (
        &[
            Op::TraceRayKHR,
            Op::ExecuteCallableKHR,
            Op::ReportIntersectionKHR,
            Op::IgnoreIntersectionKHR,
            Op::TerminateRayKHR,
            Op::RayQueryInitializeKHR,
            Op::RayQueryProceedKHR,
            Op::RayQueryGetIntersectionTypeKHR,
        ],
        "WGSL has no ray tracing",
    ),
    (
        &[Op::CooperativeMatrixLoadKHR, Op::CooperativeMatrixStoreKHR, Op::CooperativeMatrixMulAddKHR],
        "WGSL has no cooperative matrices",
    ),
];

/// Why WGSL has no counterpart for `op`, where that is known.
pub fn lacking(op: Op) -> Option<&'static str> {
    LACKING.iter().find(|(ops, _)| ops.contains(&op)).map(|&(_, why)| why)
}

/// Why WGSL has no counterpart for the GLSL.std.450 instruction `instruction`, where known.
pub fn glsl_lacking(instruction: u32) -> Option<&'static str> {
    use spirv::GlslStd450Op as G;
    match spirv::GlslStd450Op::from_u32(instruction)? {
        G::InterpolateAtCentroid | G::InterpolateAtSample | G::InterpolateAtOffset => {
            Some("WGSL has no interpolation functions: a fragment input is interpolated only as its declaration says")
        }
        G::PackDouble2x32 | G::UnpackDouble2x32 => Some("WGSL has no f64"),
        _ => None,
    }
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

    /// The sign-specific opcodes say so in their names: `SDiv`, `ULessThan`, `FindSMsb`,
    /// `BitFieldUExtract`, `ConvertFToU`. Their rows must read and compute with that signedness.
    #[test]
    fn signed_and_unsigned_opcodes_follow_their_names() {
        let named = |name: &str, letter: char| {
            let marked = |prefix: &str| {
                name.strip_prefix(prefix)
                    .and_then(|rest| rest.strip_prefix(letter))
                    .is_some_and(|rest| rest.starts_with(|c: char| c.is_ascii_uppercase()))
            };
            marked("")
                || marked("Find")
                || marked("BitField")
                || name.ends_with(&format!("To{letter}"))
                || name.starts_with(&format!("Convert{letter}To"))
        };
        let rules = CORE
            .iter()
            .map(|row| (format!("{:?}", row.op), row.int))
            .chain(GLSL_STD_450.iter().map(|row| (format!("{:?}", row.op), row.int)));
        let mut seen = 0;
        for (name, rule) in rules {
            for (letter, sign) in [('S', Int::Signed), ('U', Int::Unsigned)] {
                // Its lowering works on unsigned words and applies the signs itself.
                if named(&name, letter) && name != "SMulExtended" {
                    seen += 1;
                    let float_operand = name.starts_with("ConvertF");
                    assert!(
                        float_operand || rule.operand(0) == sign,
                        "{name} reads its first operand as {:?}",
                        rule.operand(0)
                    );
                    let float_result =
                        name.ends_with("ToF") || name.contains("LessThan") || name.contains("GreaterThan");
                    assert!(float_result || rule.result == sign, "{name} computes its result as {:?}", rule.result);
                }
            }
        }
        assert!(seen >= 30, "only {seen} sign-specific opcodes found");
    }

    #[test]
    fn operand_rules_repeat_the_last_entry() {
        let rule = core_row(Op::ShiftRightArithmetic).unwrap().int;
        assert_eq!((rule.operand(0), rule.operand(1), rule.operand(5)), (Int::Signed, Int::Unsigned, Int::Unsigned));
        assert_eq!(core_row(Op::FAdd).unwrap().int.operand(0), Int::Either, "no rule: left as it is");
        assert_eq!(core_row(Op::SMod).unwrap().spelling, Spelling::Custom, "SMod needs exact code, not `%`");
    }
}
