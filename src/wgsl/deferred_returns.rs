//! Early returns before barriers. WGSL accepts a barrier only where its uniformity analysis proves
//! control flow uniform, and a `return` that depends on the invocation (the bounds check at the
//! top of a tiled compute kernel) makes the rest of the function non-uniform. SPIR-V allows it:
//! the invocations that have returned take no part in later barriers.
//!
//! When a function breaks the rule that way, its returns are deferred: a `return` nested in
//! control flow sets a flag instead (and leaves the loop or switch it is in), and from there on
//! the statements others could observe (writes to storage or workgroup memory, atomics, texture
//! stores, calls of the module's functions) run only while the flag is clear. Everything else,
//! barriers and the loops around them included, runs as before, so an invocation that has
//! returned goes on computing values nobody reads and waits at the barriers the others reach,
//! which changes nothing they see. A construct holding no barrier runs whole under the flag, so
//! no invocation loops where it would not have. The rewrite is kept only if it leaves every
//! barrier of the function in control flow WGSL proves uniform (`lower/emit.rs` checks).

use crate::name_hash::NameSet;

use super::ast::{Expr, Function, Global, GlobalKind, Literal, Name, Stmt, SwitchCase, UnaryOp};
use super::uniformity::{BARRIERS, root};

/// The body of `function` with its returns deferred, or `None` where the rewrite does not apply
/// (a function returning a value, or a value others could observe computed where it cannot be
/// put under the flag). `functions` are the module's own.
pub(crate) fn defer(function: &Function, globals: &[Global], functions: &NameSet<Name>) -> Option<Vec<Stmt>> {
    if function.result.is_some() {
        return None;
    }
    let rewriter = Rewriter { flag: flag_name(function), private: private_names(function, globals), functions };
    let body = returns_for_trailing_ifs(function.body.clone());
    let (mut body, _) = rewriter.list(&body, Place { top: true, breakable: false }, false)?;
    let declaration =
        Stmt::Var { name: rewriter.flag.clone(), ty: None, value: Some(Expr::Literal(Literal::Bool(false))) };
    body.insert(0, declaration);
    Some(body)
}

/// The variables whose writes are the invocation's own: the function's `var`s, private
/// globals, and parameters pointing to function or private memory.
fn private_names(function: &Function, globals: &[Global]) -> NameSet<String> {
    let mut private: NameSet<String> = globals
        .iter()
        .filter(|g| matches!(&g.kind, GlobalKind::Var { space } if space == "private"))
        .map(|g| g.name.clone())
        .collect();
    let pointers =
        function.params.iter().filter(|p| p.ty.starts_with("ptr<function") || p.ty.starts_with("ptr<private"));
    private.extend(pointers.map(|p| p.name.clone()));
    for stmt in &function.body {
        stmt.for_each_stmt(&mut |s| {
            if let Stmt::Var { name, .. } = s {
                private.insert(name.to_string());
            }
        });
    }
    private
}

/// The same body with its barriers out of the `if`s that end it: `if c { A }`, where `A` holds a
/// barrier, becomes `if !c { return; } A`, which is the same at the end of a function (the form
/// optimizers give the early return). Names are unique in a function, so `A`'s declarations can
/// move out to the function's scope.
fn returns_for_trailing_ifs(mut body: Vec<Stmt>) -> Vec<Stmt> {
    let holds_barrier = |stmts: &[Stmt]| stmts.iter().any(|s| s.any(&has_barrier));
    loop {
        let Some(Stmt::If { condition, accept, reject }) = body.last().map(Stmt::unnoted) else { return body };
        let (barrier_arm, other_arm, leave_if) = if holds_barrier(accept) && !holds_barrier(reject) {
            (accept, reject, Expr::unary(UnaryOp::Not, condition.clone()))
        } else if holds_barrier(reject) && !holds_barrier(accept) {
            (reject, accept, condition.clone())
        } else {
            return body;
        };
        let mut leave = other_arm.clone();
        leave.push(Stmt::Return(None));
        let rest = barrier_arm.clone();
        body.pop();
        body.push(Stmt::If { condition: leave_if, accept: leave, reject: vec![] });
        body.extend(rest);
    }
}

/// `returned`, or `returned_N` if the function already uses that name.
fn flag_name(function: &Function) -> Name {
    let mut used: NameSet<String> = function.params.iter().map(|p| p.name.clone()).collect();
    for stmt in &function.body {
        stmt.for_each_stmt(&mut |s| {
            if let Stmt::Let { name, .. } | Stmt::Var { name, .. } = s {
                used.insert(name.to_string());
            }
        });
        stmt.for_each_ident(&mut |ident| {
            used.insert(ident.to_string());
        });
        stmt.for_each_call(&mut |name| {
            used.insert(name.to_string());
        });
    }
    let mut name = "returned".to_string();
    let mut counter = 1;
    while used.contains(&name) {
        name = format!("returned_{counter}");
        counter += 1;
    }
    name.into()
}

/// Where a statement list is: the function's own body (whose returns all invocations take), and
/// whether a `break` there leaves a loop or switch.
#[derive(Clone, Copy)]
struct Place {
    top: bool,
    breakable: bool,
}

struct Rewriter<'a> {
    flag: Name,
    private: NameSet<String>,
    functions: &'a NameSet<Name>,
}

impl Rewriter<'_> {
    /// Rewrites a statement list entered with the flag perhaps set (`deferred`); also returns
    /// whether the list may set the flag.
    fn list(&self, stmts: &[Stmt], place: Place, mut deferred: bool) -> Option<(Vec<Stmt>, bool)> {
        let mut out = Vec::with_capacity(stmts.len());
        // Statements others could observe, waiting to go under one `if !flag`.
        let mut held: Vec<Stmt> = Vec::new();
        let mut sets_flag = false;
        for stmt in stmts {
            let inner = stmt.unnoted();
            match inner {
                Stmt::Return(Some(_)) => return None,
                Stmt::Return(None) if place.top => {
                    self.flush(&mut held, &mut out);
                    out.push(stmt.clone());
                }
                Stmt::Return(None) => {
                    self.flush(&mut held, &mut out);
                    out.push(Stmt::Assign {
                        target: Expr::Ident(self.flag.clone()),
                        value: Expr::Literal(Literal::Bool(true)),
                    });
                    if place.breakable {
                        out.push(Stmt::Break);
                    } else {
                        deferred = true;
                    }
                    sets_flag = true;
                }
                Stmt::If { .. } | Stmt::Loop { .. } | Stmt::Switch { .. } | Stmt::For(_) | Stmt::While { .. } => {
                    if deferred
                        && !inner.any(&|s| has_barrier(s) || matches!(s, Stmt::Return(_)))
                        && !inner.may_leave(true, true, false)
                    {
                        // Whole under the flag: its own declarations stay inside it.
                        held.push(stmt.clone());
                        continue;
                    }
                    let (rebuilt, inner_sets) = self.compound(inner, place, deferred)?;
                    self.flush(&mut held, &mut out);
                    out.push(renote(stmt, rebuilt));
                    if inner_sets {
                        sets_flag = true;
                        if !place.breakable {
                            deferred = true;
                        } else if !matches!(inner, Stmt::If { .. }) {
                            // A `break` in a nested loop or switch left only that: leave this one too.
                            let exit = Stmt::If {
                                condition: Expr::Ident(self.flag.clone()),
                                accept: vec![Stmt::Break],
                                reject: vec![],
                            };
                            out.push(exit);
                        }
                    }
                }
                Stmt::Let { value, .. } | Stmt::Var { value: Some(value), .. } => {
                    if deferred && self.has_effect(value) {
                        return None;
                    }
                    self.flush(&mut held, &mut out);
                    out.push(stmt.clone());
                }
                Stmt::Assign { target, value } if deferred => {
                    let private = root(target).is_some_and(|r| self.private.contains(r));
                    if !private || self.has_effect(value) {
                        held.push(stmt.clone());
                    } else {
                        self.flush(&mut held, &mut out);
                        out.push(stmt.clone());
                    }
                }
                Stmt::Call(call) if deferred && !is_barrier(call) => held.push(stmt.clone()),
                _ => {
                    self.flush(&mut held, &mut out);
                    out.push(stmt.clone());
                }
            }
        }
        self.flush(&mut held, &mut out);
        Some((out, sets_flag))
    }

    /// An `if`, loop or switch rewritten inside; its own expressions must have no effect others
    /// could observe, since every invocation evaluates them.
    fn compound(&self, stmt: &Stmt, place: Place, deferred: bool) -> Option<(Stmt, bool)> {
        let nested = Place { top: false, breakable: true };
        match stmt {
            Stmt::If { condition, accept, reject } => {
                if deferred && self.has_effect(condition) {
                    return None;
                }
                // A return in an arm leaves the loop or switch around the `if`, if any.
                let arms = Place { top: false, breakable: place.breakable };
                let (accept, a) = self.list(accept, arms, deferred)?;
                let (reject, r) = self.list(reject, arms, deferred)?;
                Some((Stmt::If { condition: condition.clone(), accept, reject }, a || r))
            }
            Stmt::Loop { body, continuing, break_if } => {
                if continuing.iter().any(|s| s.any(&|s| matches!(s, Stmt::Return(_))))
                    || (deferred && break_if.as_ref().is_some_and(|c| self.has_effect(c)))
                {
                    return None;
                }
                let (body, b) = self.list(body, nested, deferred)?;
                let (continuing, _) = self.list(continuing, nested, deferred)?;
                Some((Stmt::Loop { body, continuing, break_if: break_if.clone() }, b))
            }
            Stmt::Switch { selector, cases } => {
                if deferred && self.has_effect(selector) {
                    return None;
                }
                let mut sets = false;
                let mut rebuilt = Vec::with_capacity(cases.len());
                for case in cases {
                    let (body, s) = self.list(&case.body, nested, deferred)?;
                    sets |= s;
                    rebuilt.push(SwitchCase { body, ..case.clone() });
                }
                Some((Stmt::Switch { selector: selector.clone(), cases: rebuilt }, sets))
            }
            // `for` and `while` statements are made only after this rewrite (`for_loops.rs`).
            _ => None,
        }
    }

    /// Puts the held statements under `if !flag`.
    fn flush(&self, held: &mut Vec<Stmt>, out: &mut Vec<Stmt>) {
        if held.is_empty() {
            return;
        }
        let condition = Expr::unary(UnaryOp::Not, Expr::Ident(self.flag.clone()));
        out.push(Stmt::If { condition, accept: std::mem::take(held), reject: vec![] });
    }

    /// Whether evaluating `expr` may have an effect others could observe: an atomic, a texture
    /// store, a call of one of the module's functions.
    fn has_effect(&self, expr: &Expr) -> bool {
        let mut effect = false;
        expr.for_each_call(&mut |name| {
            effect |= name.starts_with("atomic") || name == "textureStore" || self.functions.contains(name);
        });
        effect
    }
}

/// `rebuilt` in place of the statement `stmt` notes, keeping the note.
fn renote(stmt: &Stmt, rebuilt: Stmt) -> Stmt {
    match stmt {
        Stmt::Noted { note, stmt: inner } => Stmt::Noted { stmt: Box::new(renote(inner, rebuilt)), note: note.clone() },
        _ => rebuilt,
    }
}

fn is_barrier(call: &Expr) -> bool {
    let mut barrier = false;
    call.for_each_call(&mut |name| barrier |= BARRIERS.contains(&name));
    barrier
}

/// Whether the statement itself (not those nested in it) calls a barrier.
fn has_barrier(stmt: &Stmt) -> bool {
    match stmt {
        Stmt::Let { value, .. } | Stmt::Call(value) | Stmt::Assign { value, .. } => is_barrier(value),
        Stmt::Var { value: Some(value), .. } => is_barrier(value),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::wgsl::ast::{BinaryOp, Param};
    use crate::wgsl::print;

    fn ident(name: &str) -> Expr {
        Expr::ident(name)
    }

    fn call(name: &str) -> Stmt {
        Stmt::Call(Expr::call(name, vec![]))
    }

    fn store(target: &str, value: u32) -> Stmt {
        Stmt::Assign { target: ident(target), value: Expr::Literal(Literal::U32(value)) }
    }

    /// `if id > 3u { stmts }`: a condition only some invocations meet.
    fn when_high(stmts: Vec<Stmt>) -> Stmt {
        Stmt::If {
            condition: Expr::binary(BinaryOp::Greater, ident("id"), Expr::Literal(Literal::U32(3))),
            accept: stmts,
            reject: vec![],
        }
    }

    fn forever(body: Vec<Stmt>) -> Stmt {
        Stmt::Loop { body, continuing: vec![], break_if: None }
    }

    /// The rewritten function as WGSL, with `buffer` a storage global and `counter` private.
    fn deferred(body: Vec<Stmt>) -> Option<String> {
        let function = Function {
            attributes: vec![],
            name: "f".into(),
            params: vec![Param { attributes: vec![], name: "id".into(), ty: "u32".into() }],
            result: None,
            body,
            exits: vec![],
        };
        let global = |name: &str, space: &str| Global {
            attributes: vec![],
            kind: GlobalKind::Var { space: space.into() },
            name: name.into(),
            ty: Some("u32".into()),
            init: None,
        };
        let globals = [global("buffer", "storage, read_write"), global("counter", "private")];
        let body = defer(&function, &globals, &NameSet::from_iter(["helper".into()]))?;
        Some(print::function(&Function { body, ..function }).0)
    }

    #[test]
    fn a_return_sets_the_flag_and_what_others_see_waits_for_it() {
        let body = vec![
            when_high(vec![Stmt::Return(None)]),
            Stmt::Let { name: "x".into(), ty: None, value: ident("buffer") },
            store("counter", 1),
            store("buffer", 2),
            call("helper"),
            call("workgroupBarrier"),
            store("buffer", 3),
        ];
        let expected = "fn f(id: u32) {
    var returned = false;
    if id > 3u {
        returned = true;
    }
    let x = buffer;
    counter = 1u;
    if !returned {
        buffer = 2u;
        helper();
    }
    workgroupBarrier();
    if !returned {
        buffer = 3u;
    }
}
";
        assert_eq!(deferred(body).as_deref(), Some(expected));
    }

    #[test]
    fn a_return_in_a_loop_leaves_it_and_one_in_a_switch_leaves_the_loop_after_it() {
        let switch = Stmt::Switch {
            selector: ident("id"),
            cases: vec![SwitchCase { selectors: vec![], default: true, body: vec![Stmt::Return(None)] }],
        };
        let body = vec![
            forever(vec![when_high(vec![Stmt::Return(None)]), call("workgroupBarrier")]),
            forever(vec![switch, store("buffer", 1)]),
        ];
        let expected = "fn f(id: u32) {
    var returned = false;
    loop {
        if id > 3u {
            returned = true;
            break;
        }
        workgroupBarrier();
    }
    loop {
        switch id {
            default: {
                returned = true;
                break;
            }
        }
        if returned {
            break;
        }
        if !returned {
            buffer = 1u;
        }
    }
}
";
        assert_eq!(deferred(body).as_deref(), Some(expected));
    }

    #[test]
    fn a_construct_without_barriers_runs_whole_under_the_flag() {
        let body = vec![
            when_high(vec![Stmt::Return(None)]),
            forever(vec![when_high(vec![Stmt::Break]), store("counter", 1)]),
            forever(vec![call("workgroupBarrier"), when_high(vec![Stmt::Break])]),
        ];
        let expected = "fn f(id: u32) {
    var returned = false;
    if id > 3u {
        returned = true;
    }
    if !returned {
        loop {
            if id > 3u {
                break;
            }
            counter = 1u;
        }
    }
    loop {
        workgroupBarrier();
        if id > 3u {
            break;
        }
    }
}
";
        assert_eq!(deferred(body).as_deref(), Some(expected));
    }

    #[test]
    fn an_if_holding_the_barriers_at_the_end_is_an_early_return() {
        let body = vec![when_high(vec![
            Stmt::Let { name: "x".into(), ty: None, value: ident("id") },
            call("workgroupBarrier"),
            store("buffer", 1),
        ])];
        let expected = "fn f(id: u32) {
    var returned = false;
    if !(id > 3u) {
        returned = true;
    }
    let x = id;
    workgroupBarrier();
    if !returned {
        buffer = 1u;
    }
}
";
        assert_eq!(deferred(body).as_deref(), Some(expected));
    }

    #[test]
    fn values_with_effects_that_cannot_wait_are_refused() {
        let returning = || when_high(vec![Stmt::Return(None)]);
        let atomic = Expr::call("atomicAdd", vec![ident("buffer"), Expr::Literal(Literal::U32(1))]);
        assert_eq!(deferred(vec![returning(), Stmt::Let { name: "old".into(), ty: None, value: atomic }]), None);
        let helper = Expr::call("helper", vec![]);
        assert_eq!(deferred(vec![returning(), Stmt::Let { name: "y".into(), ty: None, value: helper }]), None);
        // The same before any return runs as it is.
        let atomic = Expr::call("atomicAdd", vec![ident("buffer"), Expr::Literal(Literal::U32(1))]);
        assert!(deferred(vec![Stmt::Let { name: "old".into(), ty: None, value: atomic }, returning()]).is_some());
    }

    #[test]
    fn the_flag_takes_a_name_the_function_does_not_use() {
        let body = vec![
            Stmt::Let { name: "returned".into(), ty: None, value: ident("id") },
            when_high(vec![Stmt::Return(None)]),
        ];
        assert!(deferred(body).unwrap().contains("var returned_1 = false;"));
    }
}
