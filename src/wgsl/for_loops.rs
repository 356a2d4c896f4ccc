//! Loops as a person writes them: the last change to a function before it is printed, once it has
//! been analysed (the analyses see only `loop`).
//!
//! WGSL defines `for (init; condition; update) { body }` as
//! `init; loop { if !condition { break; } body  continuing { update } }`, and `while` as the same
//! without `init` and `update`. So a `loop` whose body starts with `if c { break; }` becomes
//! - `while !c { rest }` when it has no `continuing`;
//! - `for (init; !c; update) { rest }` when its `continuing` is one assignment of a variable `i`
//!   (no `break if`) that reads nothing the rest of the body declares (out of the update's scope
//!   in a `for`). `init` is the statement just before the loop when that assigns `i`, or declares
//!   it and nothing after the loop mentions `i` (the `for` would take it out of scope); else the
//!   header has none.
//!
//! `!c` must mean exactly what `c` does not: the lowering records, for every `if c { break; }` it
//! writes, the condition it negated (`i < n` for `i >= n` between integers, but `!(x >= 1.0f)`
//! between floats, where NaN makes `x < 1.0f` differ); any other `c` is negated plainly. The
//! update is written `i++`, `i--` or `i op= e` where it is `i = i + 1`, `i = i - 1` or
//! `i = i op e`.

use super::ast::{BinaryOp, Expr, For, Init, Literal, Stmt, UnaryOp, Update};
use crate::name_hash::{NameMap, NameSet};

/// Rewrites the loops of `stmts`, and of every list nested in them. `exits` pairs each
/// `if c { break; }` condition the lowering wrote with the exact condition for going on.
pub(crate) fn rewrite(stmts: &mut Vec<Stmt>, exits: &[(Expr, Expr)]) {
    rewrite_list(stmts, &Exits::new(exits));
}

fn rewrite_list(stmts: &mut Vec<Stmt>, exits: &Exits) {
    for stmt in stmts.iter_mut() {
        stmt.unnoted_mut().for_each_list_mut(&mut |list| rewrite_list(list, exits));
    }
    // Most lists hold no loop: they are left as they are rather than moved into a new one.
    if !stmts.iter().any(|s| matches!(s.unnoted(), Stmt::Loop { .. })) {
        return;
    }
    let mentioned_after = loop_variables_mentioned_after(stmts);
    // Into a new list, so that a loop taking the statement before it (the last one pushed) into
    // its header costs one pop, not a shift of every statement after it.
    let mut out = Vec::with_capacity(stmts.len());
    for (stmt, mentioned_after) in std::mem::take(stmts).into_iter().zip(mentioned_after) {
        out.push(stmt);
        if rewrite_loop(&mut out, mentioned_after, exits) {
            let the_loop = out.pop();
            out.pop();
            out.extend(the_loop);
        }
    }
    *stmts = out;
}

/// Rewrites the loop that ends `stmts`, if it has the shape; returns whether the statement
/// before it became the `for` statement's initializer.
fn rewrite_loop(stmts: &mut [Stmt], mentioned_after: bool, exits: &Exits) -> bool {
    let index = stmts.len() - 1;
    let Some(Header { condition, update, init }) = header(stmts, mentioned_after, exits) else { return false };
    let Stmt::Loop { body, .. } = stmts[index].unnoted_mut() else { return false };
    let mut body = std::mem::take(body);
    body.remove(0);
    let took_init = init.is_some();
    *stmts[index].unnoted_mut() = match update {
        Some(update) => Stmt::For(Box::new(For { init, condition, update, body })),
        None => Stmt::While { condition, body },
    };
    took_init
}

/// For each statement of `stmts`, whether it is a loop updating one variable in its `continuing`
/// that a later statement of `stmts` mentions. One walk from the end, from the first such loop
/// on: asking each loop for the statements after it would be quadratic in a list of loops.
fn loop_variables_mentioned_after(stmts: &[Stmt]) -> Vec<bool> {
    let mut after = vec![false; stmts.len()];
    let Some(first) = stmts.iter().position(|s| updated_variable(s).is_some()) else { return after };
    // Only the loops' variables are looked for: a set of every name mentioned would grow with
    // the list.
    let variables: NameSet<&str> = stmts[first..].iter().filter_map(updated_variable).collect();
    let mut mentioned = NameSet::default();
    for (index, stmt) in stmts.iter().enumerate().skip(first).rev() {
        if let Some(variable) = updated_variable(stmt) {
            after[index] = mentioned.contains(variable);
        }
        if mentioned.len() < variables.len() {
            stmt.for_each_ident(&mut |ident| {
                if variables.contains(ident) {
                    mentioned.insert(ident);
                }
            });
        }
    }
    after
}

/// The variable a loop's `continuing` assigns, when that is all it does.
fn updated_variable(stmt: &Stmt) -> Option<&str> {
    let Stmt::Loop { continuing, break_if: None, .. } = stmt.unnoted() else { return None };
    variable_update(continuing).map(|(_, name, _)| name)
}

/// The target, its name and the value of the one assignment of a variable that is all
/// `continuing` does.
fn variable_update(continuing: &[Stmt]) -> Option<(&Expr, &str, &Expr)> {
    let [update] = continuing else { return None };
    let Stmt::Assign { target: target @ Expr::Ident(name), value } = update.unnoted() else { return None };
    Some((target, name, value))
}

/// What a `for` or `while` header of the loop at `index` holds, if the loop has the shape.
struct Header {
    condition: Expr,
    update: Option<Update>,
    init: Option<Init>,
}

/// The header of the loop that ends `stmts`; `mentioned_after` says whether a statement after it
/// mentions the variable its `continuing` updates.
fn header(stmts: &[Stmt], mentioned_after: bool, exits: &Exits) -> Option<Header> {
    let index = stmts.len() - 1;
    let Stmt::Loop { body, continuing, break_if: None } = stmts[index].unnoted() else { return None };
    let Some(Stmt::If { condition, accept, reject }) = body.first().map(Stmt::unnoted) else { return None };
    if !matches!(accept[..], [Stmt::Break]) || !reject.is_empty() {
        return None;
    }
    let condition = negation(condition, exits);
    if continuing.is_empty() {
        return Some(Header { condition, update: None, init: None });
    }
    let update = update_of(variable_update(continuing)?);
    let (target, value) = update.parts();
    let variable = target.root()?;
    // The update is outside the body's scope in a `for`.
    let declared_in_body = body[1..].iter().any(|s| match s.unnoted() {
        Stmt::Let { name, .. } | Stmt::Var { name, .. } => {
            **name == *variable || value.is_some_and(|v| v.mentions(name))
        }
        _ => false,
    });
    if declared_in_body {
        return None;
    }
    let init = match index.checked_sub(1).map(|before| stmts[before].unnoted()) {
        Some(Stmt::Var { name, value: Some(value), .. }) if **name == *variable && !mentioned_after => {
            Some(Init::Var(name.clone(), value.clone()))
        }
        Some(Stmt::Assign { target: target @ Expr::Ident(name), value }) if **name == *variable => {
            Some(Init::Assign(target.clone(), value.clone()))
        }
        _ => None,
    };
    Some(Header { condition, update: Some(update), init })
}

/// The condition under which an `if c { break; }` goes on: what the lowering recorded, or `c`
/// negated by hand (plainly where that is exact: `!x` is `x`, `a == b` is `a != b`).
fn negation(condition: &Expr, exits: &Exits) -> Expr {
    if let Some(go_on) = exits.go_on(condition) {
        return go_on.clone();
    }
    match condition {
        Expr::Unary(UnaryOp::Not, inner) => Expr::clone(inner),
        Expr::Literal(Literal::Bool(b)) => Expr::Literal(Literal::Bool(!b)),
        Expr::Binary(op @ (BinaryOp::Equal | BinaryOp::NotEqual), operands) => {
            let flipped = if *op == BinaryOp::Equal { BinaryOp::NotEqual } else { BinaryOp::Equal };
            Expr::Binary(flipped, operands.clone())
        }
        _ => Expr::unary(UnaryOp::Not, condition.clone()),
    }
}

/// The exits the lowering recorded, found by the names their condition mentions (a loop's own
/// variable tells its exit apart): a search of them all for each loop would be quadratic.
struct Exits<'a> {
    exits: &'a [(Expr, Expr)],
    by_names: NameMap<String, Vec<usize>>,
}

impl<'a> Exits<'a> {
    fn new(exits: &'a [(Expr, Expr)]) -> Exits<'a> {
        let mut by_names: NameMap<String, Vec<usize>> = NameMap::default();
        for (index, (condition, _)) in exits.iter().enumerate() {
            by_names.entry(names_of(condition)).or_default().push(index);
        }
        Exits { exits, by_names }
    }

    /// The condition for going on recorded with the first exit whose condition is `condition`.
    fn go_on(&self, condition: &Expr) -> Option<&'a Expr> {
        let indices = self.by_names.get(&names_of(condition))?;
        indices.iter().map(|&i| &self.exits[i]).find(|(c, _)| c == condition).map(|(_, go_on)| go_on)
    }
}

/// The names `condition` mentions, in order, one per line (no name holds a line break).
fn names_of(condition: &Expr) -> String {
    let mut names = String::new();
    condition.for_each_ident(&mut |ident| {
        names.push_str(ident);
        names.push('\n');
    });
    names
}

/// The assignment of a variable that is all a `continuing` does, as a `for` statement's update.
fn update_of((target, name, value): (&Expr, &str, &Expr)) -> Update {
    let one = |e: &Expr| matches!(e, Expr::Literal(Literal::I32(1) | Literal::U32(1)));
    match value {
        Expr::Binary(op, operands) if matches!(&operands[0], Expr::Ident(l) if **l == *name) => match op {
            BinaryOp::Add if one(&operands[1]) => Update::Increment(target.clone()),
            BinaryOp::Subtract if one(&operands[1]) => Update::Decrement(target.clone()),
            BinaryOp::Add
            | BinaryOp::Subtract
            | BinaryOp::Multiply
            | BinaryOp::Divide
            | BinaryOp::Modulo
            | BinaryOp::And
            | BinaryOp::Or
            | BinaryOp::Xor
            | BinaryOp::ShiftLeft
            | BinaryOp::ShiftRight => Update::Compound(target.clone(), *op, operands[1].clone()),
            _ => Update::Assign(target.clone(), value.clone()),
        },
        _ => Update::Assign(target.clone(), value.clone()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::wgsl::ast::Function;
    use crate::wgsl::print;

    fn int(value: i32) -> Expr {
        Expr::Literal(Literal::I32(value))
    }

    fn ident(name: &str) -> Expr {
        Expr::ident(name)
    }

    fn assign(name: &str, value: Expr) -> Stmt {
        Stmt::Assign { target: ident(name), value }
    }

    fn exit_if(condition: Expr) -> Stmt {
        Stmt::If { condition, accept: vec![Stmt::Break], reject: vec![] }
    }

    fn body() -> Stmt {
        Stmt::Call(Expr::call("work", vec![ident("i")]))
    }

    /// The statements rewritten, printed as a function's body.
    fn rewritten(mut stmts: Vec<Stmt>, exits: &[(Expr, Expr)]) -> String {
        rewrite(&mut stmts, exits);
        let f =
            Function { attributes: vec![], name: "f".into(), params: vec![], result: None, body: stmts, exits: vec![] };
        print::function(&f).0
    }

    fn counted(exit: Expr, update: Stmt) -> Stmt {
        Stmt::Loop { body: vec![exit_if(exit), body()], continuing: vec![update], break_if: None }
    }

    #[test]
    fn a_counted_loop_is_a_for_statement_with_the_recorded_condition() {
        let stop = Expr::binary(BinaryOp::GreaterEqual, ident("i"), int(8));
        let go_on = Expr::binary(BinaryOp::Less, ident("i"), int(8));
        let init = Stmt::Var { name: "i".into(), ty: None, value: Some(int(0)) };
        let step = assign("i", Expr::binary(BinaryOp::Add, ident("i"), int(1)));
        let text = rewritten(vec![init, counted(stop.clone(), step.clone())], &[(stop.clone(), go_on)]);
        assert!(text.contains("    for (var i = 0i; i < 8i; i++) {\n        work(i);\n    }\n"), "{text}");
        // Without a recorded condition (floats, say), `!` says it exactly.
        let text = rewritten(vec![counted(stop.clone(), step)], &[]);
        assert!(text.contains("for (; !(i >= 8i); i++) {"), "{text}");
    }

    #[test]
    fn a_variable_used_after_the_loop_keeps_its_declaration_outside() {
        let stop = Expr::unary(UnaryOp::Not, ident("more"));
        let init = Stmt::Var { name: "i".into(), ty: None, value: Some(int(0)) };
        let step = assign("i", Expr::binary(BinaryOp::Multiply, ident("i"), int(2)));
        let text = rewritten(vec![init, counted(stop, step), Stmt::Return(Some(ident("i")))], &[]);
        assert!(text.contains("    var i = 0i;\n    for (; more; i *= 2i) {"), "{text}");
        // An assignment before the loop is its initializer either way.
        let stop = Expr::unary(UnaryOp::Not, ident("more"));
        let step = assign("i", Expr::binary(BinaryOp::Subtract, ident("i"), int(1)));
        let text = rewritten(vec![assign("i", int(9)), counted(stop, step), Stmt::Return(Some(ident("i")))], &[]);
        assert!(text.contains("    for (i = 9i; more; i--) {"), "{text}");
    }

    #[test]
    fn loops_of_other_shapes_stay_loops_or_become_while() {
        let stop = || Expr::unary(UnaryOp::Not, ident("more"));
        // No continuing: a `while`.
        let plain = Stmt::Loop { body: vec![exit_if(stop()), body()], continuing: vec![], break_if: None };
        assert!(rewritten(vec![plain], &[]).contains("while more {\n        work(i);\n    }"));
        // The update reads what the body declares, out of its scope in a `for`.
        let declared = Stmt::Let { name: "step".into(), ty: None, value: int(2) };
        let step = assign("i", Expr::binary(BinaryOp::Add, ident("i"), ident("step")));
        let reads_body = Stmt::Loop { body: vec![exit_if(stop()), declared], continuing: vec![step], break_if: None };
        assert!(rewritten(vec![reads_body], &[]).contains("loop {"));
        // A `break if`, or no exit first: loops.
        let step = || assign("i", Expr::binary(BinaryOp::Add, ident("i"), int(1)));
        let break_if = Stmt::Loop { body: vec![exit_if(stop())], continuing: vec![step()], break_if: Some(ident("x")) };
        assert!(rewritten(vec![break_if], &[]).contains("loop {"));
        let later = Stmt::Loop { body: vec![body(), exit_if(stop())], continuing: vec![step()], break_if: None };
        assert!(rewritten(vec![later], &[]).contains("loop {"));
    }
}
