//! Helper functions for the subgroup operations WGSL lacks, computed exactly from those it has:
//! clustered reductions and the scans other than of addition and multiplication loop over the
//! lanes of the subgroup (or cluster), shuffling each lane's value and combining those of the
//! active lanes that count; subgroup masks are bit ranges of invocation ids. Each helper is
//! declared once, on first use.
//!
//! Every active invocation runs the loop the same number of times (its cluster's size, or one
//! past the highest active lane), so the shuffles of one iteration read lanes that are all still
//! in it: a shuffle reading an inactive lane gives an indeterminate value, which the ballot of
//! active lanes leaves out.

use super::emit::Emitter;
use crate::wgsl::ast::{self, BinaryOp, Expr, Literal, Stmt, UnaryOp};
use crate::wgsl::names::Namer;

/// How two values of a reduction combine.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Combine {
    Add,
    Mul,
    Min,
    Max,
    And,
    Or,
    Xor,
}

/// Which lanes a loop over the subgroup combines: those of the invocation's cluster, or those up
/// to it (with or without its own).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum LaneLoop {
    Clustered,
    Inclusive,
    Exclusive,
}

fn u32_literal(value: u32) -> Expr {
    Expr::Literal(Literal::U32(value))
}

fn ident(name: &str) -> Expr {
    Expr::ident(name)
}

fn binary(op: BinaryOp, a: Expr, b: Expr) -> Expr {
    Expr::binary(op, a, b)
}

fn let_(name: &str, value: Expr) -> Stmt {
    Stmt::Let { name: name.into(), ty: None, value }
}

/// The value `x` combined with itself by `combine` leaves alone, of scalar type `scalar`; `Err`
/// with the reason where there is none WGSL can write. An infinity is the bits of a `let`
/// (`infinity_bits`, which the caller declares): Tint rejects a constant infinity.
fn identity(combine: Combine, scalar: &str) -> Result<Expr, String> {
    let float = || Expr::call("bitcast<f32>", vec![ident("infinity_bits")]);
    Ok(match (combine, scalar) {
        (Combine::Add | Combine::Or | Combine::Xor, "u32") | (Combine::Max, "u32") => u32_literal(0),
        (Combine::Mul, "u32") => u32_literal(1),
        (Combine::Min | Combine::And, "u32") => u32_literal(u32::MAX),
        (Combine::Add | Combine::Or | Combine::Xor, "i32") => Expr::Literal(Literal::I32(0)),
        (Combine::Mul, "i32") => Expr::Literal(Literal::I32(1)),
        (Combine::Min, "i32") => Expr::Literal(Literal::I32(i32::MAX)),
        (Combine::Max, "i32") => Expr::Literal(Literal::I32(i32::MIN)),
        (Combine::And, "i32") => Expr::Literal(Literal::I32(-1)),
        // -0.0 leaves every sum alone, +0.0 and -0.0 included.
        (Combine::Add, "f32") => Expr::Literal(Literal::F32((-0.0f32).to_bits())),
        (Combine::Mul, "f32") => Expr::Literal(Literal::F32(1.0f32.to_bits())),
        (Combine::Min | Combine::Max, "f32") => float(),
        (Combine::Add, "f16") => Expr::Literal(Literal::F16(0x8000)),
        (Combine::Mul, "f16") => Expr::Literal(Literal::F16(0x3c00)),
        _ => return Err(format!("WGSL has no such subgroup operation, and none on {scalar} to build it from")),
    })
}

fn combined(combine: Combine, a: Expr, b: Expr) -> Expr {
    match combine {
        Combine::Add => binary(BinaryOp::Add, a, b),
        Combine::Mul => binary(BinaryOp::Multiply, a, b),
        Combine::Min => Expr::call("min", vec![a, b]),
        Combine::Max => Expr::call("max", vec![a, b]),
        Combine::And => binary(BinaryOp::And, a, b),
        Combine::Or => binary(BinaryOp::Or, a, b),
        Combine::Xor => binary(BinaryOp::Xor, a, b),
    }
}

/// Bit `lane` of the 128-bit ballot `mask`.
fn has_lane(mask: Expr, lane: Expr) -> Expr {
    let word = Expr::index(mask, binary(BinaryOp::Divide, lane.clone(), u32_literal(32)));
    let shifted = binary(BinaryOp::ShiftRight, word, binary(BinaryOp::Modulo, lane, u32_literal(32)));
    binary(BinaryOp::NotEqual, binary(BinaryOp::And, shifted, u32_literal(1)), u32_literal(0))
}

impl Emitter<'_> {
    /// The helper combining `value` (of WGSL type `ty`) over the lanes `kind` names:
    /// `fn(value, id)`, or `fn(value, id, cluster_size)` for a cluster.
    pub(super) fn lane_loop(
        &mut self,
        kind: LaneLoop,
        combine: Combine,
        ty: &str,
        local: &Namer,
    ) -> Result<String, String> {
        let key = format!("{kind:?} {combine:?} {ty}");
        if let Some(name) = self.helpers.get(&key) {
            return Ok(name.clone());
        }
        let scalar = ty.rsplit('<').next().unwrap_or(ty).trim_end_matches('>');
        let mut start = identity(combine, scalar)?;
        if scalar != ty {
            start = Expr::call(ty, vec![start]);
        }
        let type_name = ty.replace(['<', '>'], "_").trim_end_matches('_').to_string();
        let base = format!(
            "subgroup_{}_{}_{type_name}",
            format!("{kind:?}").to_lowercase(),
            format!("{combine:?}").to_lowercase()
        );
        let name = self.namer.fresh(&base, Some(local));
        self.helpers.insert(key, name.clone());
        let (value, id) = (ident("value"), ident("id"));
        let mut body =
            vec![let_("active_lanes", Expr::call("subgroupBallot", vec![Expr::Literal(Literal::Bool(true))]))];
        if scalar == "f32" && matches!(combine, Combine::Min | Combine::Max) {
            let infinity = if combine == Combine::Min { f32::INFINITY } else { f32::NEG_INFINITY };
            body.push(let_("infinity_bits", u32_literal(infinity.to_bits())));
        }
        let lane = match kind {
            LaneLoop::Clustered => {
                let offset = binary(BinaryOp::Subtract, ident("cluster_size"), u32_literal(1));
                let first = binary(BinaryOp::And, id.clone(), Expr::unary(UnaryOp::BitNot, offset));
                body.push(let_("first_lane", first));
                body.push(let_("count", ident("cluster_size")));
                binary(BinaryOp::Add, ident("first_lane"), ident("i"))
            }
            _ => {
                let highest = Expr::call("subgroupMax", vec![id.clone()]);
                body.push(let_("count", binary(BinaryOp::Add, highest, u32_literal(1))));
                ident("i")
            }
        };
        body.push(Stmt::Var { name: "result".into(), ty: Some(ty.into()), value: Some(start) });
        body.push(Stmt::Var { name: "i".into(), ty: Some("u32".into()), value: Some(u32_literal(0)) });
        let mut included = has_lane(ident("active_lanes"), ident("lane"));
        match kind {
            LaneLoop::Clustered => {}
            LaneLoop::Inclusive => {
                included =
                    binary(BinaryOp::LogicalAnd, included, binary(BinaryOp::LessEqual, ident("lane"), id.clone()))
            }
            LaneLoop::Exclusive => {
                included = binary(BinaryOp::LogicalAnd, included, binary(BinaryOp::Less, ident("lane"), id.clone()))
            }
        }
        let loop_body = vec![
            Stmt::If {
                condition: binary(BinaryOp::GreaterEqual, ident("i"), ident("count")),
                accept: vec![Stmt::Break],
                reject: vec![],
            },
            let_("lane", lane),
            let_("other", Expr::call("subgroupShuffle", vec![value, ident("lane")])),
            Stmt::If {
                condition: included,
                accept: vec![Stmt::Assign {
                    target: ident("result"),
                    value: combined(combine, ident("result"), ident("other")),
                }],
                reject: vec![],
            },
        ];
        let next = Stmt::Assign { target: ident("i"), value: binary(BinaryOp::Add, ident("i"), u32_literal(1)) };
        body.push(Stmt::Loop { body: loop_body, continuing: vec![next], break_if: None });
        body.push(Stmt::Return(Some(ident("result"))));
        let param = |name: &str, ty: &str| ast::Param { attributes: vec![], name: name.into(), ty: ty.into() };
        let mut params = vec![param("value", ty), param("id", "u32")];
        if kind == LaneLoop::Clustered {
            params.push(param("cluster_size", "u32"));
        }
        self.finish_function(ast::Function {
            attributes: vec![],
            name: name.clone(),
            params,
            result: Some((vec![], ty.into())),
            body,
            exits: Vec::new(),
        });
        Ok(name)
    }

    /// The helper `fn(low: u32, high: u32) -> vec4<u32>`: the 128-bit subgroup mask with the bits
    /// from `low` up to (not including) `high` set.
    pub(super) fn subgroup_mask_helper(&mut self, local: &Namer) -> String {
        const KEY: &str = "subgroup_mask";
        if let Some(name) = self.helpers.get(KEY) {
            return name.clone();
        }
        let name = self.namer.fresh(KEY, Some(local));
        self.helpers.insert(KEY.into(), name.clone());
        let words = |value: u32| Expr::call("vec4<u32>", vec![u32_literal(value)]);
        // The bits at or above `limit` in each word (which starts at bit `word_start`).
        let at_or_above = |limit: &str| {
            let limit = Expr::call("vec4<u32>", vec![ident(limit)]);
            let shift =
                binary(BinaryOp::And, binary(BinaryOp::Subtract, limit.clone(), ident("word_start")), words(31));
            let partial = binary(BinaryOp::ShiftLeft, words(u32::MAX), shift);
            let word_end = binary(BinaryOp::Add, ident("word_start"), words(32));
            let below_end = Expr::call(
                "select",
                vec![Expr::call("vec4<u32>", vec![]), partial, binary(BinaryOp::Less, limit.clone(), word_end)],
            );
            Expr::call(
                "select",
                vec![below_end, words(u32::MAX), binary(BinaryOp::LessEqual, limit, ident("word_start"))],
            )
        };
        let starts = [0, 32, 64, 96].map(u32_literal).to_vec();
        let body = vec![
            let_("word_start", Expr::call("vec4<u32>", starts)),
            let_("low_bits", at_or_above("low")),
            let_("high_bits", at_or_above("high")),
            Stmt::Return(Some(binary(
                BinaryOp::And,
                ident("low_bits"),
                Expr::unary(UnaryOp::BitNot, ident("high_bits")),
            ))),
        ];
        let param = |name: &str| ast::Param { attributes: vec![], name: name.into(), ty: "u32".into() };
        self.finish_function(ast::Function {
            attributes: vec![],
            name: name.clone(),
            params: vec![param("low"), param("high")],
            result: Some((vec![], "vec4<u32>".into())),
            body,
            exits: Vec::new(),
        });
        name
    }
}
