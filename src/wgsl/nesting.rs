//! How deeply a function's statements and expressions nest, as Tint counts it: Tint (the WGSL
//! compiler of Chrome and Dawn) rejects a function nested 127 levels deep, and counts more levels
//! than braces. WGSL that naga accepts but Tint rejects would not run on most WebGPU
//! implementations, so such a function is refused instead (`lower/emit.rs`).
//!
//! Tint's counting, measured with `tint` on nests of each statement: a statement in a function's
//! body is at statement depth 1; the body of an `if`, `else`, `for`, `while` or `loop` is 2 deeper
//! than the statement, `continuing` and a switch case 3 deeper, and each `else if` of a chain adds
//! 1 to the bodies after it. An expression's own nesting (parentheses, calls, indices) adds to a
//! second count, which each of those statements raises by 1 (by 2 for `continuing` and a switch
//! case).

use super::ast::{Expr, For, Init, Stmt};

/// The first depth Tint rejects, of a statement and of an expression in its count.
pub const TINT_LIMIT: usize = 127;

/// Why a function nests too deeply, for the error.
pub fn too_deep(body: &[Stmt]) -> Option<String> {
    list(body, Depth { statement: 1, expression: 0 }).err()
}

/// Where a list of statements is: its statements' depth, and what an expression in them starts
/// from.
#[derive(Clone, Copy)]
struct Depth {
    statement: usize,
    expression: usize,
}

impl Depth {
    fn below(self, statement: usize, expression: usize) -> Depth {
        Depth { statement: self.statement + statement, expression: self.expression + expression }
    }
}

fn list(stmts: &[Stmt], at: Depth) -> Result<(), String> {
    if !stmts.is_empty() && at.statement >= TINT_LIMIT {
        return Err(format!(
            "its statements nest deeper than Tint (the WGSL compiler of Chrome's WebGPU) takes: {} levels as it \
             counts them, where it stops at {} (an `if`, `for`, `while` or `loop` counts 2, a switch case or \
             `continuing` 3)",
            at.statement,
            TINT_LIMIT - 1
        ));
    }
    stmts.iter().try_for_each(|stmt| statement(stmt, at))
}

fn statement(stmt: &Stmt, at: Depth) -> Result<(), String> {
    match stmt {
        Stmt::Let { value, .. } | Stmt::Call(value) | Stmt::Return(Some(value)) => expression(value, at),
        Stmt::Var { value, .. } => value.iter().try_for_each(|value| expression(value, at)),
        Stmt::Assign { target, value } => [target, value].into_iter().try_for_each(|e| expression(e, at)),
        Stmt::If { condition, accept, reject } => if_chain(condition, accept, reject, at),
        Stmt::Loop { body, continuing, break_if } => {
            list(body, at.below(2, 1))?;
            list(continuing, at.below(3, 2))?;
            break_if.iter().try_for_each(|condition| expression(condition, at.below(3, 2)))
        }
        Stmt::Switch { selector, cases } => {
            expression(selector, at)?;
            cases.iter().try_for_each(|case| list(&case.body, at.below(3, 2)))
        }
        Stmt::For(for_loop) => {
            let For { init, condition, update, body } = &**for_loop;
            match init {
                Some(Init::Var(_, value)) => expression(value, at)?,
                Some(Init::Assign(target, value)) => [target, value].into_iter().try_for_each(|e| expression(e, at))?,
                None => {}
            }
            expression(condition, at)?;
            let (target, value) = update.parts();
            [Some(target), value].into_iter().flatten().try_for_each(|e| expression(e, at))?;
            list(body, at.below(2, 1))
        }
        Stmt::While { condition, body } => {
            expression(condition, at)?;
            list(body, at.below(2, 1))
        }
        Stmt::Noted { stmt, .. } => statement(stmt, at),
        Stmt::Break | Stmt::Continue | Stmt::Return(None) | Stmt::Discard => Ok(()),
    }
}

/// `if a {} else if b {} else {}`, printed as one chain where an `else` holds a lone `if`
/// (`print.rs`): each link makes the bodies after it one level deeper.
fn if_chain(condition: &Expr, accept: &[Stmt], reject: &[Stmt], at: Depth) -> Result<(), String> {
    let (mut condition, mut accept, mut reject) = (condition, accept, reject);
    let mut links = 0;
    loop {
        expression(condition, at)?;
        list(accept, at.below(2 + links, 1))?;
        match reject {
            [Stmt::If { condition: next, accept: next_accept, reject: next_reject }] => {
                (condition, accept, reject) = (next, next_accept, next_reject);
                links += 1;
            }
            _ => return list(reject, at.below(2 + links, 1)),
        }
    }
}

/// Counts every level of the tree, which is at least as many as Tint counts (a chain of
/// operators of one precedence, for one, it parses without nesting).
fn expression(expr: &Expr, at: Depth) -> Result<(), String> {
    // Statements reach the limit first (`list`), so the room is at least 2.
    let room = TINT_LIMIT - at.expression;
    if expr.deeper_than(room) {
        return Err(format!(
            "an expression in it nests deeper than Tint (the WGSL compiler of Chrome's WebGPU) takes: the \
             statements around it leave room for {} levels",
            room - 1
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::wgsl::ast::{BinaryOp, Literal, SwitchCase};

    fn x() -> Expr {
        Expr::ident("x")
    }

    fn assign() -> Stmt {
        Stmt::Assign { target: x(), value: Expr::Literal(Literal::U32(1)) }
    }

    /// `n` of the statement `wrap` makes around `inner`.
    fn nest(n: usize, inner: Stmt, wrap: impl Fn(Vec<Stmt>) -> Stmt) -> Vec<Stmt> {
        (0..n).fold(vec![inner], |body, _| vec![wrap(body)])
    }

    fn if_(body: Vec<Stmt>) -> Stmt {
        Stmt::If { condition: x(), accept: body, reject: vec![] }
    }

    fn loop_(body: Vec<Stmt>) -> Stmt {
        Stmt::Loop { body, continuing: vec![], break_if: None }
    }

    fn continuing(body: Vec<Stmt>) -> Stmt {
        Stmt::Loop { body: vec![Stmt::Break], continuing: body, break_if: None }
    }

    fn switch(body: Vec<Stmt>) -> Stmt {
        Stmt::Switch { selector: x(), cases: vec![SwitchCase { selectors: vec![], default: true, body }] }
    }

    fn else_if(body: Vec<Stmt>) -> Stmt {
        Stmt::If { condition: x(), accept: vec![], reject: vec![if_(body)] }
    }

    /// `((x + 1u) + 1u) ...`, `n` levels of operators.
    fn sum(n: usize) -> Expr {
        (0..n).fold(x(), |e, _| Expr::binary(BinaryOp::Add, e, Expr::Literal(Literal::U32(1))))
    }

    // The numbers are the largest nests `tint` accepted, and one more the smallest it rejected.
    #[test]
    fn statements_nest_as_deep_as_tint_takes_and_no_deeper() {
        for (wrap, most) in
            [(if_ as fn(Vec<Stmt>) -> Stmt, 62), (loop_, 62), (continuing, 41), (switch, 41), (else_if, 41)]
        {
            assert_eq!(too_deep(&nest(most, assign(), wrap)), None, "{most} levels");
            assert!(too_deep(&nest(most + 1, assign(), wrap)).is_some(), "{} levels", most + 1);
        }
    }

    #[test]
    fn a_chain_of_else_ifs_counts_one_level_a_link() {
        let chain = |links: usize| {
            let last = Stmt::If { condition: x(), accept: vec![assign()], reject: vec![] };
            vec![(0..links).fold(last, |next, _| Stmt::If { condition: x(), accept: vec![], reject: vec![next] })]
        };
        assert_eq!(too_deep(&chain(123)), None);
        assert!(too_deep(&chain(124)).is_some());
    }

    #[test]
    fn an_expression_shares_its_count_with_the_statements_around_it() {
        let assign_sum = |n| Stmt::Assign { target: x(), value: sum(n) };
        assert_eq!(too_deep(&[assign_sum(126)]), None);
        assert!(too_deep(&[assign_sum(127)]).is_some());
        assert_eq!(too_deep(&nest(30, assign_sum(96), if_)), None);
        assert!(too_deep(&nest(30, assign_sum(97), if_)).is_some());
        assert_eq!(too_deep(&nest(20, assign_sum(86), switch)), None);
        assert!(too_deep(&nest(20, assign_sum(87), switch)).is_some());
    }
}
