//! Loop-header phis read straight from their variable. The lowering gives a loop header's phi a
//! `var` that the loop's `continuing` assigns for the next iteration, and reads it once per
//! iteration into a `let` (`let i = i_phi;`), so that the assignment never changes a value still
//! in use. Where nothing reads the value after that assignment, the `let` is not needed: the body
//! reads the variable, which then takes the value's name (`var i = 0i; loop { if i >= n ..
//! continuing { i = i + 1i; } }`, which `for_loops.rs` then makes a `for`).
//!
//! For `let p = v;` among the statements of a loop body, where `v` is a `var` of the function
//! whose address is never taken (so no call can change it), the rewrite is exact when:
//! - the loop changes `v` only by one assignment at the top level of its `continuing`, and the
//!   body mentions `v` nowhere else: `v` holds `p` until that assignment;
//! - nothing after that assignment (later statements of the `continuing`, its `break if`)
//!   mentions `p`.

use crate::name_hash::{NameMap, NameSet};

use super::ast::{Expr, Function, Init, Name, Stmt, Update};

/// Rewrites every loop of `function` as described above, given the function's `var`s whose
/// address is never taken (which `inline_lets::inline` has just found).
pub(crate) fn elide(function: &mut Function, vars: &NameSet<Name>) {
    // No candidate, nothing to rename: the loops need not be visited.
    if vars.is_empty() {
        return;
    }
    // Each variable read straight, to the name of the value it held.
    let mut renames = NameMap::default();
    in_list(&mut function.body, vars, &mut renames);
    if !renames.is_empty() {
        function.body.iter_mut().for_each(|s| rename_stmt(s, &renames));
    }
}

fn in_list(stmts: &mut [Stmt], vars: &NameSet<Name>, renames: &mut NameMap<Name, Name>) {
    for stmt in stmts {
        let stmt = stmt.unnoted_mut();
        stmt.for_each_list_mut(&mut |list| in_list(list, vars, renames));
        if let Stmt::Loop { body, continuing, break_if } = stmt {
            // The value's reads become the variable's once it takes the value's name.
            while let Some((at, value, var)) = snapshot(body, continuing, break_if.as_ref(), vars, renames) {
                body.remove(at);
                renames.insert(var, value);
            }
        }
    }
}

/// The first `let p = v;` of the loop body that may go, as (its index, `p`, `v`).
fn snapshot(
    body: &[Stmt],
    continuing: &[Stmt],
    break_if: Option<&Expr>,
    vars: &NameSet<Name>,
    renames: &NameMap<Name, Name>,
) -> Option<(usize, Name, Name)> {
    body.iter().enumerate().find_map(|(at, stmt)| {
        let Stmt::Let { name, value: Expr::Ident(var), .. } = stmt.unnoted() else { return None };
        // A variable takes one name: a loop the structurizer wrote twice (a block reached from
        // two cases, say) keeps its second snapshot, which reads the renamed variable.
        if !vars.contains(var) || renames.contains_key(var) {
            return None;
        }
        // The body mentions the variable only here.
        let in_body = body.iter().enumerate().any(|(i, s)| i != at && mentions(s, var));
        // One assignment in the `continuing` changes it; nothing after that reads the value.
        let assigns = |s: &Stmt| matches!(s.unnoted(), Stmt::Assign { target: Expr::Ident(t), .. } if t == var);
        let mut assignments = continuing.iter().enumerate().filter(|(_, s)| assigns(s));
        let (Some((k, _)), None) = (assignments.next(), assignments.next()) else { return None };
        let written_elsewhere = continuing.iter().any(|s| !assigns(s) && writes(s, var));
        let read_after =
            continuing[k + 1..].iter().any(|s| mentions(s, name)) || break_if.is_some_and(|c| c.mentions(name));
        (!in_body && !written_elsewhere && !read_after).then(|| (at, name.clone(), var.clone()))
    })
}

fn mentions(stmt: &Stmt, name: &str) -> bool {
    let mut found = false;
    stmt.for_each_ident(&mut |ident| found |= ident == name);
    found
}

fn writes(stmt: &Stmt, name: &str) -> bool {
    let mut found = false;
    stmt.for_each_written(&mut |written| found |= written == name);
    found
}

/// Renames, through `stmt`, every identifier and declaration `renames` maps.
fn rename_stmt(stmt: &mut Stmt, renames: &NameMap<Name, Name>) {
    match stmt {
        Stmt::Let { name, value, .. } => {
            rename_name(name, renames);
            rename_expr(value, renames);
        }
        Stmt::Var { name, value, .. } => {
            rename_name(name, renames);
            value.iter_mut().for_each(|v| rename_expr(v, renames));
        }
        Stmt::Assign { target, value } => {
            rename_expr(target, renames);
            rename_expr(value, renames);
        }
        Stmt::Call(expr) | Stmt::Return(Some(expr)) => rename_expr(expr, renames),
        Stmt::If { condition, .. } => rename_expr(condition, renames),
        Stmt::Switch { selector, .. } => rename_expr(selector, renames),
        Stmt::Loop { break_if, .. } => break_if.iter_mut().for_each(|c| rename_expr(c, renames)),
        Stmt::While { condition, .. } => rename_expr(condition, renames),
        Stmt::For(l) => {
            match &mut l.init {
                Some(Init::Var(name, value)) => {
                    rename_name(name, renames);
                    rename_expr(value, renames);
                }
                Some(Init::Assign(target, value)) => {
                    rename_expr(target, renames);
                    rename_expr(value, renames);
                }
                None => {}
            }
            rename_expr(&mut l.condition, renames);
            match &mut l.update {
                Update::Increment(target) | Update::Decrement(target) => rename_expr(target, renames),
                Update::Compound(target, _, value) | Update::Assign(target, value) => {
                    rename_expr(target, renames);
                    rename_expr(value, renames);
                }
            }
        }
        Stmt::Noted { stmt, .. } => return rename_stmt(stmt, renames),
        Stmt::Break | Stmt::Continue | Stmt::Return(None) | Stmt::Discard => {}
    }
    stmt.for_each_list_mut(&mut |list| list.iter_mut().for_each(|s| rename_stmt(s, renames)));
}

fn rename_name(name: &mut Name, renames: &NameMap<Name, Name>) {
    if let Some(new) = renames.get(name) {
        *name = new.clone();
    }
}

fn rename_expr(expr: &mut Expr, renames: &NameMap<Name, Name>) {
    match expr {
        Expr::Ident(name) => rename_name(name, renames),
        _ => expr.operands_mut().iter_mut().for_each(|operand| rename_expr(operand, renames)),
    }
}
