//! Subgroup operations (OpGroupNonUniform*, and the SPV_KHR_subgroup_vote and
//! SPV_KHR_shader_ballot instructions) as WGSL's subgroup builtins (`enable subgroups;`).
//!
//! WGSL has them at subgroup scope only, on numbers (not booleans), with inclusive and exclusive
//! scans of addition and multiplication only. The rest is built exactly from what it has:
//! booleans travel as 0 or 1; ballot bit queries, `AllEqual` and `Elect` come from ballots,
//! broadcasts and scans; clustered reductions and the other scans loop over the subgroup's lanes
//! with shuffles (`subgroup_emulation.rs`); operations relative to the invocation's own lane read
//! its id from a private variable the entry point sets (`io_wrapper`).

use spirv::{GroupOperation, Op};

use super::emit::Emitter;
use super::function::Lower;
use super::spec::flip_signedness;
use super::subgroup_emulation::{Combine, LaneLoop};
use crate::error::Error;
use crate::passes::signedness::int_signedness;
use crate::spirv::{ConstValue, Id, Inst, Module, Operand, Type};
use crate::wgsl::ast::{BinaryOp, COMPONENTS, Expr, Literal};

/// Subgroup arithmetic: the opcode, the WGSL names for reduce, inclusive and exclusive scan
/// (empty where WGSL lacks it), the signedness the operands are read with, and how two values
/// combine (for the operations built from shuffles).
struct Reduction {
    op: Op,
    names: [&'static str; 3],
    signed: Option<bool>,
    combine: Combine,
}

const fn r(op: Op, names: [&'static str; 3], signed: Option<bool>, combine: Combine) -> Reduction {
    Reduction { op, names, signed, combine }
}

const ADD: [&str; 3] = ["subgroupAdd", "subgroupInclusiveAdd", "subgroupExclusiveAdd"];
const MUL: [&str; 3] = ["subgroupMul", "subgroupInclusiveMul", "subgroupExclusiveMul"];
const MIN: [&str; 3] = ["subgroupMin", "", ""];
const MAX: [&str; 3] = ["subgroupMax", "", ""];
const AND: [&str; 3] = ["subgroupAnd", "", ""];
const OR: [&str; 3] = ["subgroupOr", "", ""];
const XOR: [&str; 3] = ["subgroupXor", "", ""];

/// The logical operations work on booleans as 0 or 1 with the bitwise ones.
static REDUCTIONS: &[Reduction] = &[
    r(Op::GroupNonUniformIAdd, ADD, None, Combine::Add),
    r(Op::GroupNonUniformFAdd, ADD, None, Combine::Add),
    r(Op::GroupNonUniformIMul, MUL, None, Combine::Mul),
    r(Op::GroupNonUniformFMul, MUL, None, Combine::Mul),
    r(Op::GroupNonUniformSMin, MIN, Some(true), Combine::Min),
    r(Op::GroupNonUniformUMin, MIN, Some(false), Combine::Min),
    r(Op::GroupNonUniformFMin, MIN, None, Combine::Min),
    r(Op::GroupNonUniformSMax, MAX, Some(true), Combine::Max),
    r(Op::GroupNonUniformUMax, MAX, Some(false), Combine::Max),
    r(Op::GroupNonUniformFMax, MAX, None, Combine::Max),
    r(Op::GroupNonUniformBitwiseAnd, AND, None, Combine::And),
    r(Op::GroupNonUniformBitwiseOr, OR, None, Combine::Or),
    r(Op::GroupNonUniformBitwiseXor, XOR, None, Combine::Xor),
    r(Op::GroupNonUniformLogicalAnd, AND, None, Combine::And),
    r(Op::GroupNonUniformLogicalOr, OR, None, Combine::Or),
    r(Op::GroupNonUniformLogicalXor, XOR, None, Combine::Xor),
];

/// The opcodes of the reductions, which SPIR-V numbers together.
const REDUCTION_OPCODES: std::ops::RangeInclusive<u32> =
    Op::GroupNonUniformIAdd as u32..=Op::GroupNonUniformLogicalXor as u32;

/// Simple ones: the WGSL builtin taking the operands after the scope as they are, booleans as
/// 0 or 1 where WGSL takes numbers only (`true`).
static DIRECT: &[(Op, &str, bool)] = &[
    (Op::GroupNonUniformAll, "subgroupAll", false),
    (Op::GroupNonUniformAny, "subgroupAny", false),
    (Op::GroupNonUniformBallot, "subgroupBallot", false),
    (Op::GroupNonUniformBroadcastFirst, "subgroupBroadcastFirst", true),
    (Op::GroupNonUniformShuffle, "subgroupShuffle", true),
    (Op::GroupNonUniformShuffleXor, "subgroupShuffleXor", true),
    (Op::GroupNonUniformShuffleUp, "subgroupShuffleUp", true),
    (Op::GroupNonUniformShuffleDown, "subgroupShuffleDown", true),
];

/// SPV_KHR_subgroup_vote and SPV_KHR_shader_ballot instructions, which have no scope operand, as
/// the GroupNonUniform instruction that does the same at subgroup scope.
static KHR: &[(Op, Op)] = &[
    (Op::SubgroupAllKHR, Op::GroupNonUniformAll),
    (Op::SubgroupAnyKHR, Op::GroupNonUniformAny),
    (Op::SubgroupAllEqualKHR, Op::GroupNonUniformAllEqual),
    (Op::SubgroupBallotKHR, Op::GroupNonUniformBallot),
    (Op::SubgroupFirstInvocationKHR, Op::GroupNonUniformBroadcastFirst),
    (Op::SubgroupReadInvocationKHR, Op::GroupNonUniformBroadcast),
];

pub(super) fn is_subgroup(op: Op) -> bool {
    REDUCTIONS.iter().any(|row| row.op == op)
        || DIRECT.iter().any(|(o, ..)| *o == op)
        || KHR.iter().any(|(o, _)| *o == op)
        || matches!(
            op,
            Op::GroupNonUniformElect
                | Op::GroupNonUniformBroadcast
                | Op::GroupNonUniformAllEqual
                | Op::GroupNonUniformBallotBitCount
                | Op::GroupNonUniformBallotFindLSB
                | Op::GroupNonUniformBallotFindMSB
                | Op::GroupNonUniformInverseBallot
                | Op::GroupNonUniformBallotBitExtract
                | Op::GroupNonUniformQuadBroadcast
                | Op::GroupNonUniformQuadSwap
        )
}

/// Whether the WGSL for `inst` reads the invocation's id in its subgroup, which the entry point
/// then provides (`io_wrapper`).
pub(crate) fn needs_invocation_id(module: &Module, inst: &Inst) -> bool {
    let operation = || group_operation(inst);
    match inst.op {
        Op::GroupNonUniformInverseBallot => true,
        Op::GroupNonUniformBallotBitCount => operation() != Some(GroupOperation::Reduce),
        Op::GroupNonUniformQuadBroadcast => inst.id(2).is_none_or(|index| !is_plain_constant(module, index)),
        // Asked of every instruction of an entry point: most are no reduction, told by the range.
        op if !REDUCTION_OPCODES.contains(&(op as u32)) => false,
        op => REDUCTIONS.iter().find(|row| row.op == op).is_some_and(|row| match operation() {
            Some(GroupOperation::Reduce) => false,
            Some(GroupOperation::InclusiveScan) => row.names[1].is_empty(),
            Some(GroupOperation::ExclusiveScan) => row.names[2].is_empty(),
            _ => true,
        }),
    }
}

/// The group operation of a GroupNonUniform instruction (after its scope).
fn group_operation(inst: &Inst) -> Option<GroupOperation> {
    match inst.operands.get(1) {
        Some(Operand::GroupOperation(operation)) => Some(*operation),
        _ => None,
    }
}

/// A constant known when the shader is written (not an `override`).
fn is_plain_constant(module: &Module, id: Id) -> bool {
    module.constant(id).is_some_and(|c| c.spec_id.is_none() && !matches!(c.value, ConstValue::Op { .. }))
}

fn u32_literal(value: u32) -> Expr {
    Expr::Literal(Literal::U32(value))
}

/// A value with booleans turned to 0 or 1 (WGSL's subgroup builtins take numbers only), and the
/// component count to turn the result back with; `None` when it was a number.
struct Carried {
    value: Expr,
    boolean: Option<u32>,
}

impl Carried {
    /// The result of an operation on the carried value, as the original type.
    fn back(&self, result: Expr) -> Expr {
        match self.boolean {
            Some(count) => Expr::binary(BinaryOp::NotEqual, result, u32s(count, 0)),
            None => result,
        }
    }
}

/// `value` as `u32` (or a vector of `count` of them).
fn u32s(count: u32, value: u32) -> Expr {
    if count == 1 { u32_literal(value) } else { Expr::call(format!("vec{count}<u32>"), vec![u32_literal(value)]) }
}

impl Lower<'_> {
    pub(super) fn subgroup(&mut self, e: &mut Emitter, inst: &Inst) -> Result<(), Error> {
        // The KHR instructions read as their GroupNonUniform twins, with a stand-in for the scope.
        let twin;
        let inst = match KHR.iter().find(|(op, _)| *op == inst.op) {
            Some(&(_, op)) => {
                let operands = std::iter::once(Operand::Other).chain(inst.operands.iter().copied()).collect();
                twin = Inst::new(op, inst.ty(), inst.result(), operands, inst.offset);
                &twin
            }
            None => {
                // Scope 3 is Subgroup; WGSL has no workgroup-wide versions.
                let scope = self.operand(inst, 0)?;
                if self.module.const_u32(scope) != Some(3) {
                    return Err(Error::unsupported(
                        format!("Op{:?} at other than subgroup scope: WGSL has subgroup operations only", inst.op),
                        self.location(inst),
                    ));
                }
                inst
            }
        };
        e.enable("subgroups");
        let expr = if let Some(row) = REDUCTIONS.iter().find(|row| row.op == inst.op) {
            self.reduction(e, inst, row)?
        } else if let Some(&(_, name, numbers_only)) = DIRECT.iter().find(|(op, ..)| *op == inst.op) {
            let carried = if numbers_only { self.carried(e, self.operand(inst, 1)?)? } else { self.as_is(e, inst)? };
            let mut args = vec![carried.value.clone()];
            for i in 2..inst.operands.len() {
                args.push(self.take(e, self.operand(inst, i)?)?);
            }
            carried.back(Expr::call(name, args))
        } else {
            self.built(e, inst)?
        };
        self.define(e, inst, expr, false)
    }

    /// The first value operand as it is.
    fn as_is(&mut self, e: &mut Emitter, inst: &Inst) -> Result<Carried, Error> {
        Ok(Carried { value: self.take(e, self.operand(inst, 1)?)?, boolean: None })
    }

    /// Value `id`, booleans as 0 or 1.
    fn carried(&mut self, e: &mut Emitter, id: Id) -> Result<Carried, Error> {
        let value = self.take(e, id)?;
        self.carry(value, id)
    }

    /// [`Lower::carried`] for a value that will be written more than once.
    fn carried_shared(&mut self, e: &mut Emitter, id: Id) -> Result<Carried, Error> {
        let value = self.take_shared(e, id)?;
        self.carry(value, id)
    }

    fn carry(&self, value: Expr, id: Id) -> Result<Carried, Error> {
        let (scalar, count) = self.module.scalar_of(self.module.type_of(id)?).unwrap_or((0, 1));
        if !matches!(self.module.type_def(scalar), Some(Type::Bool)) {
            return Ok(Carried { value, boolean: None });
        }
        Ok(Carried { value: Expr::call("select", vec![u32s(count, 0), u32s(count, 1), value]), boolean: Some(count) })
    }

    /// The invocation's id in its subgroup, from the private variable the entry point sets.
    fn invocation_id(&self, e: &Emitter, inst: &Inst) -> Result<Expr, Error> {
        let name = self.module.subgroup_invocation_id.and_then(|global| e.names.get(&global));
        name.map(|name| Expr::ident(name.clone())).ok_or_else(|| {
            Error::unsupported(
                format!("Op{:?} needs the invocation's id in its subgroup, which only an entry point has", inst.op),
                self.location(inst),
            )
        })
    }

    fn reduction(&mut self, e: &mut Emitter, inst: &Inst, row: &Reduction) -> Result<Expr, Error> {
        let operation =
            group_operation(inst).ok_or_else(|| Error::invalid("missing group operation", self.location(inst)))?;
        let name = match operation {
            GroupOperation::Reduce => row.names[0],
            GroupOperation::InclusiveScan => row.names[1],
            GroupOperation::ExclusiveScan => row.names[2],
            GroupOperation::ClusteredReduce => "",
            _ => {
                return Err(Error::unsupported(
                    format!("Op{:?} with {operation:?}: WGSL has no partitioned subgroup operations", inst.op),
                    self.location(inst),
                ));
            }
        };
        let value_id = self.operand(inst, 2)?;
        let value_ty = self.module.type_of(value_id)?;
        let logical = matches!(
            inst.op,
            Op::GroupNonUniformLogicalAnd | Op::GroupNonUniformLogicalOr | Op::GroupNonUniformLogicalXor
        );
        let scalar_bool = logical && self.module.scalar_of(value_ty).is_some_and(|(_, n)| n == 1);
        if scalar_bool && operation == GroupOperation::Reduce && inst.op != Op::GroupNonUniformLogicalXor {
            // subgroupAll and subgroupAny take a scalar boolean.
            let name = if inst.op == Op::GroupNonUniformLogicalAnd { "subgroupAll" } else { "subgroupAny" };
            return Ok(Expr::call(name, vec![self.take(e, value_id)?]));
        }
        let carried = self.carried(e, value_id)?;
        let mut value = carried.value.clone();
        let have = int_signedness(self.module, value_ty);
        let want = row.signed.or(self.result_type(inst).ok().and_then(|t| int_signedness(self.module, t)));
        if let (Some(have), Some(want)) = (have, want)
            && have != want
        {
            value = Expr::call(format!("bitcast<{}>", flip_signedness(&e.ty(value_ty)?, want)), vec![value]);
        }
        let expr = if name.is_empty() {
            // WGSL lacks it: a loop over the lanes.
            let ty = match (carried.boolean, want) {
                (Some(1), _) => "u32".to_string(),
                (Some(count), _) => format!("vec{count}<u32>"),
                (None, Some(signed)) => flip_signedness(&e.ty(value_ty)?, signed),
                (None, None) => e.ty(value_ty)?.to_string(),
            };
            let kind = match operation {
                GroupOperation::InclusiveScan => LaneLoop::Inclusive,
                GroupOperation::ExclusiveScan => LaneLoop::Exclusive,
                _ => LaneLoop::Clustered,
            };
            let mut args = vec![value, self.invocation_id(e, inst)?];
            if kind == LaneLoop::Clustered {
                let size = self.operand(inst, 3)?;
                if !self.module.const_u32(size).is_some_and(u32::is_power_of_two) {
                    return Err(Error::invalid(
                        "a cluster size that is not a constant power of two",
                        self.location(inst),
                    ));
                }
                args.push(self.take(e, size)?);
            }
            let helper = e.lane_loop(kind, row.combine, &ty, &self.namer).map_err(|why| {
                Error::unsupported(format!("Op{:?} with {operation:?}: {why}", inst.op), self.location(inst))
            })?;
            Expr::call(helper, args)
        } else {
            Expr::call(name, vec![value])
        };
        let mut expr = carried.back(expr);
        let result_ty = self.result_type(inst)?;
        if let (Some(computed), Some(declared)) = (want, int_signedness(self.module, result_ty))
            && computed != declared
        {
            expr = e.bitcast(result_ty, expr)?;
        }
        Ok(expr)
    }

    /// Operations WGSL lacks, from the ones it has.
    fn built(&mut self, e: &mut Emitter, inst: &Inst) -> Result<Expr, Error> {
        Ok(match inst.op {
            // The active invocation with the lowest id is the one with no active invocation
            // below it (naga lacks `subgroupElect`).
            Op::GroupNonUniformElect => {
                Expr::binary(BinaryOp::Equal, Expr::call("subgroupExclusiveAdd", vec![u32_literal(1)]), u32_literal(0))
            }
            Op::GroupNonUniformBroadcast => {
                // WGSL broadcasts from a constant lane; any other lane is a shuffle.
                let lane = self.operand(inst, 2)?;
                let constant = self.module.constant(lane).is_some() && !e.is_override_expression(lane);
                let name = if constant { "subgroupBroadcast" } else { "subgroupShuffle" };
                let carried = self.carried(e, self.operand(inst, 1)?)?;
                let lane = self.take(e, lane)?;
                carried.back(Expr::call(name, vec![carried.value.clone(), lane]))
            }
            Op::GroupNonUniformAllEqual => {
                let value_id = self.operand(inst, 1)?;
                let carried = self.carried_shared(e, value_id)?;
                let vector = self.module.scalar_of(self.module.type_of(value_id)?).is_some_and(|(_, n)| n > 1);
                let first = Expr::call("subgroupBroadcastFirst", vec![carried.value.clone()]);
                let mut same = Expr::binary(BinaryOp::Equal, carried.value, first);
                if vector {
                    same = Expr::call("all", vec![same]);
                }
                Expr::call("subgroupAll", vec![same])
            }
            Op::GroupNonUniformQuadBroadcast => {
                let carried = self.carried(e, self.operand(inst, 1)?)?;
                let index_id = self.operand(inst, 2)?;
                let index = self.take(e, index_id)?;
                let moved = if is_plain_constant(self.module, index_id) {
                    Expr::call("quadBroadcast", vec![carried.value.clone(), index])
                } else {
                    // The lane `index` of this invocation's quad.
                    let quad = Expr::binary(BinaryOp::And, self.invocation_id(e, inst)?, u32_literal(!3));
                    let lane = Expr::binary(BinaryOp::Add, quad, Expr::call("u32", vec![index]));
                    Expr::call("subgroupShuffle", vec![carried.value.clone(), lane])
                };
                carried.back(moved)
            }
            Op::GroupNonUniformQuadSwap => {
                let direction = self.operand(inst, 2)?;
                let name = match self.module.const_u32(direction) {
                    Some(0) => "quadSwapX",
                    Some(1) => "quadSwapY",
                    Some(2) => "quadSwapDiagonal",
                    _ => {
                        return Err(Error::invalid("a quad swap direction that is not 0, 1 or 2", self.location(inst)));
                    }
                };
                let carried = self.carried(e, self.operand(inst, 1)?)?;
                carried.back(Expr::call(name, vec![carried.value.clone()]))
            }
            Op::GroupNonUniformBallotBitCount => {
                let ballot = self.take_shared(e, self.operand(inst, 2)?)?;
                // The bits of the invocations counted: all, or those up to this one.
                let counted = match group_operation(inst) {
                    Some(GroupOperation::Reduce) => ballot,
                    Some(operation @ (GroupOperation::InclusiveScan | GroupOperation::ExclusiveScan)) => {
                        let id = self.invocation_id(e, inst)?;
                        let end = match operation {
                            GroupOperation::InclusiveScan => Expr::binary(BinaryOp::Add, id, u32_literal(1)),
                            _ => id,
                        };
                        let mask = Expr::call(e.subgroup_mask_helper(&self.namer), vec![u32_literal(0), end]);
                        let counted = Expr::binary(BinaryOp::And, ballot, mask);
                        let name = self.namer.fresh_name("counted", Some(&e.namer));
                        self.stmts.push(crate::wgsl::ast::Stmt::Let { name: name.clone(), ty: None, value: counted });
                        Expr::ident(name)
                    }
                    _ => {
                        return Err(Error::invalid(
                            "a ballot bit count with a clustered or partitioned operation",
                            self.location(inst),
                        ));
                    }
                };
                let counts =
                    COMPONENTS.iter().map(|c| Expr::call("countOneBits", vec![Expr::member(counted.clone(), *c)]));
                let sum = counts.reduce(|a, b| Expr::binary(BinaryOp::Add, a, b)).unwrap_or(u32_literal(0));
                self.as_result(e, inst, sum)?
            }
            Op::GroupNonUniformBallotFindLSB | Op::GroupNonUniformBallotFindMSB => {
                let ballot = self.take_shared(e, self.operand(inst, 1)?)?;
                let lowest = inst.op == Op::GroupNonUniformBallotFindLSB;
                let bit = if lowest { "firstTrailingBit" } else { "firstLeadingBit" };
                // The first (or last) word with a bit set decides; check the others first.
                let mut order: Vec<usize> = (0..4).collect();
                if lowest {
                    order.reverse();
                }
                let mut found = u32_literal(u32::MAX);
                for i in order {
                    let word = Expr::member(ballot.clone(), COMPONENTS[i]);
                    let mut here = Expr::call(bit, vec![word.clone()]);
                    if i > 0 {
                        here = Expr::binary(BinaryOp::Add, u32_literal(32 * i as u32), here);
                    }
                    found =
                        Expr::call("select", vec![found, here, Expr::binary(BinaryOp::NotEqual, word, u32_literal(0))]);
                }
                self.as_result(e, inst, found)?
            }
            Op::GroupNonUniformBallotBitExtract | Op::GroupNonUniformInverseBallot => {
                let ballot = self.take(e, self.operand(inst, 1)?)?;
                let index = match inst.op {
                    Op::GroupNonUniformInverseBallot => self.invocation_id(e, inst)?,
                    _ => Expr::call("u32", vec![self.take_shared(e, self.operand(inst, 2)?)?]),
                };
                let word = Expr::index(ballot, Expr::binary(BinaryOp::Divide, index.clone(), u32_literal(32)));
                let bit = Expr::binary(
                    BinaryOp::ShiftLeft,
                    u32_literal(1),
                    Expr::binary(BinaryOp::Modulo, index, u32_literal(32)),
                );
                Expr::binary(BinaryOp::NotEqual, Expr::binary(BinaryOp::And, word, bit), u32_literal(0))
            }
            _ => {
                return Err(Error::unsupported(
                    format!("Op{:?} has no WGSL counterpart", inst.op),
                    self.location(inst),
                ));
            }
        })
    }

    /// A `u32` value as the instruction's integer result type.
    fn as_result(&mut self, e: &mut Emitter, inst: &Inst, value: Expr) -> Result<Expr, Error> {
        let ty = self.result_type(inst)?;
        Ok(if int_signedness(self.module, ty) == Some(true) { e.bitcast(ty, value)? } else { value })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_reduction_lies_in_the_range_that_tells_them_apart() {
        assert_eq!(REDUCTION_OPCODES.clone().count(), REDUCTIONS.len());
        assert!(REDUCTIONS.iter().all(|row| REDUCTION_OPCODES.contains(&(row.op as u32))));
    }
}
