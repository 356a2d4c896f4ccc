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
//!
//! A phi whose value is also used after the loop is read into a `var` declared before it
//! (`var p: T;` ... `loop { p = v; ..`), which the same rewrite removes, when besides:
//! - the loop has no `break if`, so it leaves only from its body, where `v` still holds `p`;
//! - `p` is written nowhere else and not mentioned before the loop, `v` nowhere but in the loop,
//!   and both are declared in the list holding the loop, so that `v`'s scope covers every use
//!   of `p`. `v`, renamed `p` in its declaration and the loop, takes the place of `p`'s.

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

fn in_list(stmts: &mut Vec<Stmt>, vars: &NameSet<Name>, renames: &mut NameMap<Name, Name>) {
    // Where the list mentions the names of `p = v;` candidates, found once, when first asked.
    let mut extents = None;
    // The declarations of the `var`s that took a phi variable's place, dropped at the end.
    let mut dropped = Vec::new();
    for index in 0..stmts.len() {
        let stmt = stmts[index].unnoted_mut();
        stmt.for_each_list_mut(&mut |list| in_list(list, vars, renames));
        let Stmt::Loop { body, continuing, break_if } = stmt else { continue };
        // The value's reads become the variable's once it takes the value's name.
        while let Some((at, value, var)) = snapshot(body, continuing, break_if.as_ref(), vars, renames) {
            body.remove(at);
            renames.insert(var, value);
        }
        if carried_candidates(&stmts[index], vars).next().is_none() {
            continue;
        }
        let extents = extents.get_or_insert_with(|| Extents::of(stmts, vars));
        while let Some(carried) = carried_out(&stmts[index], index, vars, renames, extents) {
            // The variable is mentioned only by its declaration and the loop, where it is
            // renamed in place: the rest of the function mentions the value, whose name it takes.
            let Stmt::Loop { body, continuing, .. } = stmts[index].unnoted_mut() else { unreachable!() };
            body.remove(carried.at);
            let rename = NameMap::from_iter([(carried.var, carried.value)]);
            continuing.iter_mut().for_each(|s| rename_stmt(s, &rename));
            rename_stmt(&mut stmts[carried.var_declaration], &rename);
            dropped.push(carried.value_declaration);
        }
    }
    if !dropped.is_empty() {
        dropped.sort_unstable();
        let mut index = 0;
        stmts.retain(|_| {
            index += 1;
            dropped.binary_search(&(index - 1)).is_err()
        });
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
        let mut assignments = continuing.iter().enumerate().filter(|(_, s)| assigns(s, var));
        let (Some((k, _)), None) = (assignments.next(), assignments.next()) else { return None };
        let written_elsewhere = continuing.iter().any(|s| !assigns(s, var) && writes(s, var));
        let read_after =
            continuing[k + 1..].iter().any(|s| mentions(s, name)) || break_if.is_some_and(|c| c.mentions(name));
        (!in_body && !written_elsewhere && !read_after).then(|| (at, name.clone(), var.clone()))
    })
}

/// The `p = v;` statements at the top of the body of `stmt`, a loop without `break if`, of two
/// `var`s whose address is never taken, as (their index, `p`, `v`).
fn carried_candidates<'a>(
    stmt: &'a Stmt,
    vars: &'a NameSet<Name>,
) -> impl Iterator<Item = (usize, &'a Name, &'a Name)> {
    let body = match stmt.unnoted() {
        Stmt::Loop { body, break_if: None, .. } => &body[..],
        _ => &[],
    };
    body.iter().enumerate().filter_map(|(at, s)| match s.unnoted() {
        Stmt::Assign { target: Expr::Ident(value), value: Expr::Ident(var) }
            if vars.contains(value) && vars.contains(var) =>
        {
            Some((at, value, var))
        }
        _ => None,
    })
}

/// For the names in the `p = v;` candidates of a list's loops: the index of each one's
/// declaration in the list and whether it has a value, the first and last
/// statements of the list mentioning it, and how many statements of the list write it.
struct Extents {
    declarations: NameMap<Name, (usize, bool)>,
    mentions: NameMap<Name, (usize, usize)>,
    writers: NameMap<Name, usize>,
}

impl Extents {
    fn of(stmts: &[Stmt], vars: &NameSet<Name>) -> Extents {
        let mut names = NameSet::default();
        for stmt in stmts {
            for (_, value, var) in carried_candidates(stmt, vars) {
                names.insert(value.clone());
                names.insert(var.clone());
            }
        }
        let mut extents =
            Extents { declarations: NameMap::default(), mentions: NameMap::default(), writers: NameMap::default() };
        for (index, stmt) in stmts.iter().enumerate() {
            if let Stmt::Var { name, value, .. } = stmt.unnoted()
                && names.contains(name)
            {
                extents.declarations.insert(name.clone(), (index, value.is_some()));
            }
            stmt.for_each_ident(&mut |name| {
                if let Some(name) = names.get(name) {
                    extents
                        .mentions
                        .entry(name.clone())
                        .and_modify(|(_, last)| *last = index)
                        .or_insert((index, index));
                }
            });
            let mut written = NameSet::default();
            stmt.for_each_assigned(&mut |name| {
                if let Some(name) = names.get(name) {
                    written.insert(name.clone());
                }
            });
            for name in written {
                *extents.writers.entry(name).or_default() += 1;
            }
        }
        extents
    }
}

/// A `p = v;` that may go: its index in the loop body, `p` and `v`, and the indices of their
/// declarations in the loop's list.
struct Carried {
    at: usize,
    value: Name,
    var: Name,
    value_declaration: usize,
    var_declaration: usize,
}

/// The first `p = v;` of the body of the loop `stmt`, at `index` in its list, that may go, as
/// described above.
fn carried_out(
    stmt: &Stmt,
    index: usize,
    vars: &NameSet<Name>,
    renames: &NameMap<Name, Name>,
    extents: &Extents,
) -> Option<Carried> {
    let Stmt::Loop { body, continuing, .. } = stmt.unnoted() else { return None };
    carried_candidates(stmt, vars).find_map(|(at, value, var)| {
        if renames.contains_key(value) || renames.contains_key(var) {
            return None;
        }
        // Both declared before the loop in its list, `p` without a value; `p` not mentioned
        // before the loop nor written but by it, `v` mentioned by no other statement of the list.
        let declared = |name: &Name| extents.declarations.get(name).filter(|(at, _)| *at < index);
        let (Some(&(value_declaration, false)), Some(&(var_declaration, _))) = (declared(value), declared(var)) else {
            return None;
        };
        let (first, _) = *extents.mentions.get(value)?;
        if first < index || extents.mentions.get(var) != Some(&(index, index)) || extents.writers.get(value) != Some(&1)
        {
            return None;
        }
        // In the loop, the variable holds the value until its one assignment in the
        // `continuing`; the value is written only first, by `p = v;`, and not read after that
        // assignment.
        let mut assignments = continuing.iter().enumerate().filter(|(_, s)| assigns(s, var));
        let (Some((k, _)), None) = (assignments.next(), assignments.next()) else { return None };
        let in_body = body.iter().enumerate().any(|(i, s)| i != at && (mentions(s, var) || writes(s, value)));
        let before = body[..at].iter().any(|s| mentions(s, value));
        let in_continuing = continuing.iter().any(|s| (!assigns(s, var) && writes(s, var)) || writes(s, value))
            || continuing[k + 1..].iter().any(|s| mentions(s, value));
        (!in_body && !before && !in_continuing).then(|| Carried {
            at,
            value: value.clone(),
            var: var.clone(),
            value_declaration,
            var_declaration,
        })
    })
}

fn assigns(stmt: &Stmt, var: &str) -> bool {
    matches!(stmt.unnoted(), Stmt::Assign { target: Expr::Ident(target), .. } if **target == *var)
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::wgsl::print;

    fn ident(name: &str) -> Expr {
        Expr::ident(name)
    }

    fn assign(target: &str, value: Expr) -> Stmt {
        Stmt::Assign { target: ident(target), value }
    }

    fn var(name: &str, value: Option<Expr>) -> Stmt {
        Stmt::Var { name: name.into(), ty: Some("u32".into()), value }
    }

    /// `var s: u32; [before] var s_phi = 0u; loop { s = s_phi; [body] continuing { s_phi = s + 1u;
    /// [continuing] } [break_if] } [after]`, elided, as text.
    fn elided(before: Vec<Stmt>, body: Vec<Stmt>, continuing: Vec<Stmt>, break_if: Option<Expr>) -> String {
        let step = Expr::binary(super::super::ast::BinaryOp::Add, ident("s"), ident("one"));
        let mut list = vec![var("s", None)];
        list.extend(before);
        list.push(var("s_phi", Some(ident("zero"))));
        let mut loop_body = vec![assign("s", ident("s_phi"))];
        loop_body.extend(body);
        let mut loop_continuing = vec![assign("s_phi", step)];
        loop_continuing.extend(continuing);
        list.push(Stmt::Loop { body: loop_body, continuing: loop_continuing, break_if });
        list.push(Stmt::Return(Some(ident("s"))));
        let mut function =
            Function { attributes: vec![], name: "h".into(), params: vec![], result: None, body: list, exits: vec![] };
        let vars = ["s", "s_phi", "t"].into_iter().map(Name::from).collect();
        elide(&mut function, &vars);
        print::function(&function).0
    }

    #[test]
    fn a_phi_used_after_its_loop_is_read_from_its_variable_where_nothing_tells_them_apart() {
        let exit = Stmt::If { condition: ident("done"), accept: vec![Stmt::Break], reject: vec![] };
        let text = elided(vec![], vec![exit.clone()], vec![], None);
        assert!(
            text.contains("var s: u32 = zero;") && text.contains("s = s + one;") && !text.contains("s_phi"),
            "{text}"
        );
        // Left by a `break if`, after the assignment, the loop leaves the two apart.
        let text = elided(vec![], vec![], vec![], Some(ident("done")));
        assert!(text.contains("s = s_phi;"), "{text}");
        // So does a read of the value after the assignment, a write of it, or a read before
        // the loop (of its zero value).
        let read_after = assign("t", ident("s"));
        for (before, body, continuing) in [
            (vec![], vec![exit.clone()], vec![read_after.clone()]),
            (vec![], vec![exit.clone(), assign("s", ident("one"))], vec![]),
            (vec![read_after], vec![exit], vec![]),
        ] {
            let text = elided(before, body, continuing, None);
            assert!(text.contains("s = s_phi;"), "{text}");
        }
    }
}
