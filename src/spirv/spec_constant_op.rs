//! OpSpecConstantOp, decoded by us rather than by rspirv.
//!
//! rspirv's parser reads an OpSpecConstantOp's operation by the grammar of that opcode, one
//! operand per grammar entry: a `*` operand gets one word, so an OpVectorShuffle of several
//! components or an OpCompositeExtract with two indices is "extra operands" to it, and an
//! operation it cannot parse there (OpConstant) makes it panic. So rspirv parses a copy of the
//! words in which each OpSpecConstantOp stands as an OpSpecConstantComposite of the same length
//! (its words all read as ids), and [`decode`] reads the original instruction from the words.

use std::borrow::Cow;

use rspirv::dr::{self, Operand};
use spirv::Op;

use crate::error::{Error, Location};

/// The operations OpSpecConstantOp may perform (SPIR-V 1.6, section 3.3.7, Shader and Kernel).
const ALLOWED: &[Op] = &[
    Op::SConvert,
    Op::UConvert,
    Op::FConvert,
    Op::SNegate,
    Op::Not,
    Op::IAdd,
    Op::ISub,
    Op::IMul,
    Op::UDiv,
    Op::SDiv,
    Op::UMod,
    Op::SRem,
    Op::SMod,
    Op::ShiftRightLogical,
    Op::ShiftRightArithmetic,
    Op::ShiftLeftLogical,
    Op::BitwiseOr,
    Op::BitwiseXor,
    Op::BitwiseAnd,
    Op::VectorShuffle,
    Op::CompositeExtract,
    Op::CompositeInsert,
    Op::LogicalOr,
    Op::LogicalAnd,
    Op::LogicalNot,
    Op::LogicalEqual,
    Op::LogicalNotEqual,
    Op::Select,
    Op::IEqual,
    Op::INotEqual,
    Op::ULessThan,
    Op::SLessThan,
    Op::UGreaterThan,
    Op::SGreaterThan,
    Op::ULessThanEqual,
    Op::SLessThanEqual,
    Op::UGreaterThanEqual,
    Op::SGreaterThanEqual,
    Op::QuantizeToF16,
    Op::ConvertFToS,
    Op::ConvertSToF,
    Op::ConvertFToU,
    Op::ConvertUToF,
    Op::ConvertPtrToU,
    Op::ConvertUToPtr,
    Op::GenericCastToPtr,
    Op::PtrCastToGeneric,
    Op::Bitcast,
    Op::FNegate,
    Op::FAdd,
    Op::FSub,
    Op::FMul,
    Op::FDiv,
    Op::FRem,
    Op::FMod,
    Op::AccessChain,
    Op::InBoundsAccessChain,
    Op::PtrAccessChain,
    Op::InBoundsPtrAccessChain,
];

/// How many leading operands of `op` are ids; the rest are literals (component selectors and
/// composite indices). Every other allowed operation takes ids only.
fn leading_ids(op: Op) -> usize {
    match op {
        Op::CompositeExtract => 1,
        Op::VectorShuffle | Op::CompositeInsert => 2,
        _ => usize::MAX,
    }
}

/// The words rspirv is given: `words` itself, or a copy with each OpSpecConstantOp (at one of
/// `offsets`) standing as an OpSpecConstantComposite.
pub fn parseable<'a>(words: &'a [u32], offsets: &[u32]) -> Cow<'a, [u32]> {
    if !offsets.iter().any(|&at| is_at(words, at)) {
        return Cow::Borrowed(words);
    }
    let mut copy = words.to_vec();
    for &at in offsets.iter().filter(|&&at| is_at(words, at)) {
        copy[at as usize] = (words[at as usize] & 0xffff_0000) | Op::SpecConstantComposite as u32;
    }
    Cow::Owned(copy)
}

/// The OpSpecConstantOp at word `at`, decoded: result type and id, then the operation and its
/// operands as rspirv would give them.
pub fn decode(words: &[u32], at: usize, location: &Location) -> Result<dr::Instruction, Error> {
    let count = (words[at] >> 16) as usize;
    let malformed = |message: String| Error::Malformed { message, location: location.clone() };
    let Some(&[result_type, result, operation]) = words.get(at + 1..at + 4).filter(|_| count >= 4) else {
        return Err(malformed("OpSpecConstantOp without a result type, result id and operation".into()));
    };
    let op = Op::from_u32(operation)
        .filter(|op| ALLOWED.contains(op))
        .ok_or_else(|| malformed(format!("OpSpecConstantOp with operation {operation}, which it does not allow")))?;
    let mut operands = vec![Operand::LiteralSpecConstantOpInteger(op)];
    for (position, &word) in words[at + 4..at + count].iter().enumerate() {
        operands.push(if position < leading_ids(op) { Operand::IdRef(word) } else { Operand::LiteralBit32(word) });
    }
    Ok(dr::Instruction::new(Op::SpecConstantOp, Some(result_type), Some(result), operands))
}

/// Whether the instruction at word `at` is an OpSpecConstantOp (which rspirv saw as a stand-in).
pub fn is_at(words: &[u32], at: u32) -> bool {
    words[at as usize] & 0xffff == Op::SpecConstantOp as u32
}

/// rspirv's instructions parsed from [`parseable`] words, each at the matching one of `offsets`,
/// with the OpSpecConstantOps decoded again (those that fail to decode stay stand-ins).
pub fn restore_all(words: &[u32], offsets: &[u32], insts: &mut [dr::Instruction]) {
    for (&at, inst) in offsets.iter().zip(insts) {
        if is_at(words, at)
            && let Ok(decoded) = decode(words, at as usize, &Location::default())
        {
            *inst = decoded;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_operation_with_too_few_words_is_malformed_not_a_panic() {
        // OpSpecConstantOp claiming 3 words, followed by more words of the module.
        let words = [(3 << 16) | Op::SpecConstantOp as u32, 1, 2, Op::IAdd as u32, 5, 6];
        let error = decode(&words, 0, &Location::default()).unwrap_err();
        assert!(error.to_string().contains("without a result type"), "{error}");
        let words = [(5 << 16) | Op::SpecConstantOp as u32, 1, 2, Op::Constant as u32, 5];
        assert!(decode(&words, 0, &Location::default()).unwrap_err().to_string().contains("does not allow"));
    }
}
