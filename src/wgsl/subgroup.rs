//! Subgroup operations (OpGroupNonUniform*) as WGSL's subgroup builtins (`enable subgroups;`).
//! WGSL has them at subgroup scope only; ballot bit queries, `AllEqual` and `Elect`, which WGSL
//! (or naga) lacks, are built from the ballot, broadcasts and scans.

use spirv::{GroupOperation, Op};

use super::ast::{BinaryOp, Expr, Literal};
use super::emit::Emitter;
use super::function::{COMPONENTS, Lower};
use super::spec::flip_signedness;
use crate::error::Error;
use crate::passes::signedness::int_signedness;
use crate::spirv::{Inst, Operand, Type};

/// Subgroup arithmetic: the opcode, the WGSL names for reduce, inclusive and exclusive scan
/// (empty where WGSL lacks it), and the signedness the operands are read with.
struct Reduction {
    op: Op,
    names: [&'static str; 3],
    signed: Option<bool>,
}

const fn r(op: Op, names: [&'static str; 3], signed: Option<bool>) -> Reduction {
    Reduction { op, names, signed }
}

const ADD: [&str; 3] = ["subgroupAdd", "subgroupInclusiveAdd", "subgroupExclusiveAdd"];
const MUL: [&str; 3] = ["subgroupMul", "subgroupInclusiveMul", "subgroupExclusiveMul"];

static REDUCTIONS: &[Reduction] = &[
    r(Op::GroupNonUniformIAdd, ADD, None),
    r(Op::GroupNonUniformFAdd, ADD, None),
    r(Op::GroupNonUniformIMul, MUL, None),
    r(Op::GroupNonUniformFMul, MUL, None),
    r(Op::GroupNonUniformSMin, ["subgroupMin", "", ""], Some(true)),
    r(Op::GroupNonUniformUMin, ["subgroupMin", "", ""], Some(false)),
    r(Op::GroupNonUniformFMin, ["subgroupMin", "", ""], None),
    r(Op::GroupNonUniformSMax, ["subgroupMax", "", ""], Some(true)),
    r(Op::GroupNonUniformUMax, ["subgroupMax", "", ""], Some(false)),
    r(Op::GroupNonUniformFMax, ["subgroupMax", "", ""], None),
    r(Op::GroupNonUniformBitwiseAnd, ["subgroupAnd", "", ""], None),
    r(Op::GroupNonUniformBitwiseOr, ["subgroupOr", "", ""], None),
    r(Op::GroupNonUniformBitwiseXor, ["subgroupXor", "", ""], None),
    r(Op::GroupNonUniformLogicalAnd, ["subgroupAll", "", ""], None),
    r(Op::GroupNonUniformLogicalOr, ["subgroupAny", "", ""], None),
];

/// Simple ones: the WGSL builtin taking the operands after the scope as they are.
static DIRECT: &[(Op, &str)] = &[
    (Op::GroupNonUniformAll, "subgroupAll"),
    (Op::GroupNonUniformAny, "subgroupAny"),
    (Op::GroupNonUniformBroadcastFirst, "subgroupBroadcastFirst"),
    (Op::GroupNonUniformBallot, "subgroupBallot"),
    (Op::GroupNonUniformShuffle, "subgroupShuffle"),
    (Op::GroupNonUniformShuffleXor, "subgroupShuffleXor"),
    (Op::GroupNonUniformShuffleUp, "subgroupShuffleUp"),
    (Op::GroupNonUniformShuffleDown, "subgroupShuffleDown"),
    (Op::GroupNonUniformQuadBroadcast, "quadBroadcast"),
];

pub(super) fn is_subgroup(op: Op) -> bool {
    REDUCTIONS.iter().any(|row| row.op == op)
        || DIRECT.iter().any(|(o, _)| *o == op)
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
                | Op::GroupNonUniformQuadSwap
                | Op::GroupNonUniformLogicalXor
        )
}

fn u32_literal(value: u32) -> Expr {
    Expr::Literal(Literal::U32(value))
}

impl Lower<'_> {
    pub(super) fn subgroup(&mut self, e: &mut Emitter, inst: &Inst) -> Result<(), Error> {
        // Scope 3 is Subgroup; WGSL has no workgroup-wide versions.
        let scope = self.operand(inst, 0)?;
        if self.module.const_u32(scope) != Some(3) {
            return Err(Error::unsupported(
                format!("Op{:?} at other than subgroup scope: WGSL has subgroup operations only", inst.op),
                self.location(inst),
            ));
        }
        e.enable("subgroups");
        let expr = if let Some(row) = REDUCTIONS.iter().find(|row| row.op == inst.op) {
            self.reduction(e, inst, row)?
        } else if let Some((_, name)) = DIRECT.iter().find(|(op, _)| *op == inst.op) {
            let args =
                (1..inst.operands.len()).map(|i| self.take(e, self.operand(inst, i)?)).collect::<Result<_, _>>()?;
            Expr::call(*name, args)
        } else {
            self.built(e, inst)?
        };
        self.define(e, inst, expr, false)
    }

    fn reduction(&mut self, e: &mut Emitter, inst: &Inst, row: &Reduction) -> Result<Expr, Error> {
        let operation = match inst.operands.get(1) {
            Some(Operand::GroupOperation(g)) => *g,
            _ => {
                return Err(Error::invalid("missing group operation", self.location(inst)));
            }
        };
        let name = match operation {
            GroupOperation::Reduce => row.names[0],
            GroupOperation::InclusiveScan => row.names[1],
            GroupOperation::ExclusiveScan => row.names[2],
            _ => "",
        };
        if name.is_empty() {
            return Err(Error::unsupported(
                format!("Op{:?} with {operation:?}: WGSL has no such subgroup operation", inst.op),
                self.location(inst),
            ));
        }
        let value_id = self.operand(inst, 2)?;
        let value_ty = self.module.type_of(value_id)?;
        let mut value = self.take(e, value_id)?;
        let have = int_signedness(self.module, value_ty);
        let want = row.signed.or(self.result_type(inst).ok().and_then(|t| int_signedness(self.module, t)));
        if let (Some(have), Some(want)) = (have, want)
            && have != want
        {
            value = Expr::call(format!("bitcast<{}>", flip_signedness(&e.ty(value_ty)?, want)), vec![value]);
        }
        let mut expr = Expr::call(name, vec![value]);
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
        let arg = |lower: &mut Self, e: &mut Emitter, i: usize| -> Result<Expr, Error> {
            lower.take(e, lower.operand(inst, i)?)
        };
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
                Expr::call(name, vec![arg(self, e, 1)?, arg(self, e, 2)?])
            }
            Op::GroupNonUniformAllEqual => {
                let value = self.take_shared(e, self.operand(inst, 1)?)?;
                let vector =
                    matches!(self.module.ty(self.module.type_of(self.operand(inst, 1)?)?)?, Type::Vector { .. });
                let mut same =
                    Expr::binary(BinaryOp::Equal, value.clone(), Expr::call("subgroupBroadcastFirst", vec![value]));
                if vector {
                    same = Expr::call("all", vec![same]);
                }
                Expr::call("subgroupAll", vec![same])
            }
            Op::GroupNonUniformLogicalXor => {
                let operation = inst.operands.get(1);
                if operation != Some(&Operand::GroupOperation(GroupOperation::Reduce)) {
                    return Err(Error::unsupported(
                        "a logical-xor scan: WGSL has no such subgroup operation",
                        self.location(inst),
                    ));
                }
                let bit = Expr::call("select", vec![u32_literal(0), u32_literal(1), arg(self, e, 2)?]);
                Expr::binary(BinaryOp::NotEqual, Expr::call("subgroupXor", vec![bit]), u32_literal(0))
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
                Expr::call(name, vec![arg(self, e, 1)?])
            }
            Op::GroupNonUniformBallotBitCount => {
                if inst.operands.get(1) != Some(&Operand::GroupOperation(GroupOperation::Reduce)) {
                    return Err(Error::unsupported(
                        "counting ballot bits below each invocation (a scan) is not supported yet",
                        self.location(inst),
                    ));
                }
                let ballot = self.take_shared(e, self.operand(inst, 2)?)?;
                let counts =
                    COMPONENTS.iter().map(|c| Expr::call("countOneBits", vec![Expr::member(ballot.clone(), *c)]));
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
            Op::GroupNonUniformBallotBitExtract => {
                let ballot = self.take(e, self.operand(inst, 1)?)?;
                let index = self.take_shared(e, self.operand(inst, 2)?)?;
                let index = Expr::call("u32", vec![index]);
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
                    format!("Op{:?} needs the invocation's index in the subgroup (not supported yet)", inst.op),
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
