//! `subgroup_invocation_id` and `subgroup_id` in a compute shader whose workgroup has more than
//! one dimension, which naga does not accept as entry-point builtins there (WGSL and Tint do).
//! The wrapper computes them instead, from what the SPIR-V guarantees about them, at its start,
//! where every invocation of each subgroup is active:
//! - the invocation id is the number of active invocations of the subgroup with a lower id,
//!   `subgroupExclusiveAdd(1u)` (exact when the invocations of a partly filled subgroup take the
//!   lowest ids, as every implementation does);
//! - the subgroup id is any numbering of the workgroup's subgroups from 0 up, the same in each
//!   invocation of a subgroup: the first invocation of each subgroup takes the next number from
//!   a workgroup counter and shares it with `subgroupBroadcastFirst`. The numbering may differ
//!   from the device's own, which the SPIR-V does not promise either. (The first invocation is
//!   the one no other precedes, since naga lacks `subgroupElect`.)

use super::emit::Emitter;
use crate::spirv::{IoBinding, IoPlan, IoValue, WorkgroupDimension};
use crate::wgsl::ast::{self, BinaryOp, Expr, Literal, Stmt, UnaryOp};

impl Emitter<'_> {
    /// Statements that bind `name` to the value of input `value` where the wrapper computes it
    /// rather than taking a parameter; `None` where it takes one.
    pub(super) fn computed_input(&mut self, plan: &IoPlan, value: &IoValue, name: &str) -> Option<Vec<Stmt>> {
        let IoBinding::BuiltIn { name: builtin @ ("subgroup_invocation_id" | "subgroup_id"), .. } = value.binding
        else {
            return None;
        };
        let multidimensional = plan
            .workgroup_size
            .is_some_and(|[_, y, z]| [y, z].iter().any(|d| matches!(d, WorkgroupDimension::Literal(n) if *n > 1)));
        if !multidimensional {
            return None;
        }
        self.enable("subgroups");
        let one = || Expr::Literal(Literal::U32(1));
        if builtin == "subgroup_invocation_id" {
            let value = Expr::call("subgroupExclusiveAdd", vec![one()]);
            return Some(vec![Stmt::Let { name: name.into(), ty: None, value }]);
        }
        let counter = self.subgroup_counter();
        let numbered = Expr::call("atomicAdd", vec![Expr::unary(UnaryOp::AddressOf, Expr::ident(counter)), one()]);
        let shared = Expr::call("subgroupBroadcastFirst", vec![Expr::ident(name)]);
        Some(vec![
            Stmt::Var { name: name.into(), ty: Some("u32".into()), value: None },
            Stmt::If {
                condition: Expr::binary(
                    BinaryOp::Equal,
                    Expr::call("subgroupExclusiveAdd", vec![one()]),
                    Expr::Literal(Literal::U32(0)),
                ),
                accept: vec![Stmt::Assign { target: Expr::ident(name), value: numbered }],
                reject: vec![],
            },
            Stmt::Assign { target: Expr::ident(name), value: shared },
        ])
    }

    /// The workgroup counter subgroups take their numbers from, declared on first need.
    fn subgroup_counter(&mut self) -> String {
        if let Some(name) = self.helpers.get("subgroup counter") {
            return name.clone();
        }
        let name = self.namer.fresh("subgroup_counter", None);
        self.helpers.insert("subgroup counter".into(), name.clone());
        self.out.globals.push(ast::Global {
            attributes: vec![],
            kind: ast::GlobalKind::Var { space: "workgroup".into() },
            name: name.clone(),
            ty: Some("atomic<u32>".into()),
            init: None,
        });
        name
    }
}
