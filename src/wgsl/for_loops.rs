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

/// Rewrites the loops of `stmts`, and of every list nested in them. `exits` pairs each
/// `if c { break; }` condition the lowering wrote with the exact condition for going on.
pub(crate) fn rewrite(stmts: &mut Vec<Stmt>, exits: &[(Expr, Expr)]) {
    for stmt in stmts.iter_mut() {
        stmt.unnoted_mut().for_each_list_mut(&mut |list| rewrite(list, exits));
    }
    let mut index = 0;
    while index < stmts.len() {
        if rewrite_loop(stmts, index, exits) {
            // The statement before the loop went into its header.
            stmts.remove(index - 1);
        } else {
            index += 1;
        }
    }
}

/// Rewrites the loop at `index` of `stmts`, if it has the shape; returns whether the statement
/// before it became the `for` statement's initializer.
fn rewrite_loop(stmts: &mut [Stmt], index: usize, exits: &[(Expr, Expr)]) -> bool {
    let Some(Header { condition, update, init }) = header(stmts, index, exits) else { return false };
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

/// What a `for` or `while` header of the loop at `index` holds, if the loop has the shape.
struct Header {
    condition: Expr,
    update: Option<Update>,
    init: Option<Init>,
}

fn header(stmts: &[Stmt], index: usize, exits: &[(Expr, Expr)]) -> Option<Header> {
    let Stmt::Loop { body, continuing, break_if: None } = stmts[index].unnoted() else { return None };
    let Some(Stmt::If { condition, accept, reject }) = body.first().map(Stmt::unnoted) else { return None };
    if !matches!(accept[..], [Stmt::Break]) || !reject.is_empty() {
        return None;
    }
    let condition = negation(condition, exits);
    let update = match &continuing[..] {
        [] => return Some(Header { condition, update: None, init: None }),
        [update] => update_of(update.unnoted())?,
        _ => return None,
    };
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
    let mentioned_after = stmts[index + 1..].iter().any(|s| {
        let mut found = false;
        s.for_each_ident(&mut |ident| found |= ident == variable);
        found
    });
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
fn negation(condition: &Expr, exits: &[(Expr, Expr)]) -> Expr {
    if let Some((_, go_on)) = exits.iter().find(|(c, _)| c == condition) {
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

/// A `continuing` that is one assignment of a variable, as a `for` statement's update.
fn update_of(stmt: &Stmt) -> Option<Update> {
    let Stmt::Assign { target: target @ Expr::Ident(name), value } = stmt else { return None };
    let one = |e: &Expr| matches!(e, Expr::Literal(Literal::I32(1) | Literal::U32(1)));
    Some(match value {
        Expr::Binary(op, operands) if matches!(&operands[0], Expr::Ident(l) if l == name) => match op {
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
    })
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
