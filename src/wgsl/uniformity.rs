//! WGSL's uniformity rules: derivatives, implicit-level-of-detail sampling, barriers and subgroup
//! operations only in control flow the uniformity analysis proves uniform. SPIR-V has no such
//! rule, so a translated shader may break it; then the output needs `diagnostic(off,
//! derivative_uniformity)` (or `subgroup_uniformity`), or, for a barrier, which no diagnostic
//! covers, the shader cannot be translated.
//!
//! naga does not check the rule the way Tint does, so this is our own analysis of the syntax
//! tree. It errs on the side of finding a problem. Uniform values are literals, overrides, uniform
//! buffers, `let`s of uniform values bound in uniform control flow, and function `var`s whose
//! every assignment is of a uniform value in uniform control flow (found by a fixpoint that starts
//! from all of them and drops those that break it), and an entry point's workgroup id and count.
//! Anything else (private variables, other inputs, parameters, storage, `var`s whose address is
//! taken) is non-uniform. A condition on a
//! non-uniform value makes its branches non-uniform, and a non-uniform `return`, `break` or
//! `continue` makes the rest of its function or loop non-uniform. Control reconverges after an
//! `if`, `switch` or loop that no non-uniform `return` leaves, as in WGSL.

use std::collections::HashMap;

use crate::name_hash::{NameMap, NameSet};

use super::ast::{Attribute, BinaryOp, Expr, Function, Global, GlobalKind, Init, Name, Param, Stmt, UnaryOp};

/// Builtins that need uniform control flow.
const NEEDS_UNIFORMITY: &[&str] = &[
    "textureSample",
    "textureSampleBias",
    "textureSampleCompare",
    "dpdx",
    "dpdy",
    "fwidth",
    "dpdxCoarse",
    "dpdyCoarse",
    "fwidthCoarse",
    "dpdxFine",
    "dpdyFine",
    "fwidthFine",
];

/// Subgroup builtins: WGSL's `subgroup_uniformity` check wants them in uniform control flow, where
/// SPIR-V's non-uniform operations need not be (they act on the active invocations, as WGSL's
/// do); the output then turns the check off.
const SUBGROUP_BUILTINS: &[&str] = &[
    "subgroupAdd",
    "subgroupAll",
    "subgroupAnd",
    "subgroupAny",
    "subgroupBallot",
    "subgroupBroadcast",
    "subgroupBroadcastFirst",
    "subgroupElect",
    "subgroupExclusiveAdd",
    "subgroupExclusiveMul",
    "subgroupInclusiveAdd",
    "subgroupInclusiveMul",
    "subgroupMax",
    "subgroupMin",
    "subgroupMul",
    "subgroupOr",
    "subgroupShuffle",
    "subgroupShuffleDown",
    "subgroupShuffleUp",
    "subgroupShuffleXor",
    "subgroupXor",
    "quadBroadcast",
    "quadSwapDiagonal",
    "quadSwapX",
    "quadSwapY",
];

/// Builtins WGSL requires in uniform control flow with no way to turn the check off.
pub(super) const BARRIERS: &[&str] = &["workgroupBarrier", "storageBarrier", "textureBarrier", "workgroupUniformLoad"];

/// What the analysis found: whether some derivative or implicit-level-of-detail sample, and
/// whether some barrier, may be in control flow WGSL cannot prove uniform.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct Verdict {
    pub breaks_derivatives: bool,
    pub breaks_barriers: bool,
    /// Whether some subgroup builtin may be in control flow WGSL cannot prove uniform.
    pub breaks_subgroups: bool,
}

/// The analysis, fed one function at a time as the emitter lowers it, so that no function's tree
/// has to outlive its printing. Each function leaves a summary (what it calls, and what it calls
/// in non-uniform control flow); whether a call of one of the module's own functions needs
/// uniformity is settled over the summaries at the end.
#[derive(Default)]
pub struct Analysis {
    /// Globals whose values are uniform: uniform buffers, constants, overrides.
    uniform_globals: NameSet<String>,
    /// The module's own functions, whose results are taken as non-uniform. Each name is held
    /// once and shared by the summaries and the printed functions' lists of calls.
    functions: NameSet<Name>,
    summaries: Vec<Summary>,
    /// Whether the function last added calls a barrier in control flow WGSL cannot prove
    /// uniform (its summary is then the last).
    last_breaks_barriers: bool,
}

/// The calls of one function that matter here: of the module's functions and of builtins that
/// need uniformity.
struct Summary {
    name: Name,
    calls: Vec<Name>,
    nonuniform_calls: Vec<Name>,
}

/// Every name `function` calls: its own functions, builtins and constructors. The lowering
/// finds them as it inlines (`inline_lets::Found::calls`); this walk is for the functions it
/// writes itself and those rewritten after.
pub fn callees(function: &Function) -> NameSet<Name> {
    let mut callees = NameSet::default();
    for stmt in &function.body {
        stmt.for_each_call(&mut |name| {
            if !callees.contains(name) {
                callees.insert(Name::from(name));
            }
        });
    }
    callees
}

impl Analysis {
    /// Declares a global before the functions that read it are added.
    pub fn global(&mut self, global: &Global) {
        let uniform = match &global.kind {
            GlobalKind::Var { space } => space == "uniform",
            GlobalKind::Const | GlobalKind::Override => true,
        };
        if uniform {
            self.uniform_globals.insert(global.name.clone());
        }
    }

    /// Declares one of the module's functions, before any function calling it is added; returns
    /// the shared copy of its name.
    pub fn declare_function(&mut self, name: &str) -> Name {
        if let Some(shared) = self.functions.get(name) {
            return shared.clone();
        }
        let shared = Name::from(name);
        self.functions.insert(shared.clone());
        shared
    }

    /// The shared copy of a function's name, or a new one for a builtin's.
    fn shared(&self, name: &str) -> Name {
        self.functions.get(name).cloned().unwrap_or_else(|| name.into())
    }

    /// Analyses one function, given every name it calls (or more: [`callees`]); returns the
    /// module's functions it calls.
    pub fn function(&mut self, function: &Function, callees: &NameSet<Name>) -> Vec<Name> {
        // Each callee is judged once, not at each of its calls: a function makes many calls of
        // few builtins and constructors, and the list of builtins is compared name by name.
        let calls: NameSet<&str> = callees
            .iter()
            .map(|name| &**name)
            .filter(|name| is_uniformity_builtin(name) || self.functions.contains(*name))
            .collect();
        self.last_breaks_barriers = false;
        if calls.is_empty() {
            return Vec::new();
        }
        let nonuniform_calls = nonuniform_calls(function, &self.uniform_globals, &self.functions);
        self.last_breaks_barriers = nonuniform_calls.iter().any(|c| BARRIERS.contains(c));
        let calls: Vec<Name> = calls.into_iter().map(|c| self.shared(c)).collect();
        let callees = calls.iter().filter(|&c| self.functions.contains(c)).cloned().collect();
        self.summaries.push(Summary {
            name: self.shared(&function.name),
            calls,
            nonuniform_calls: nonuniform_calls.into_iter().map(|c| self.shared(c)).collect(),
        });
        callees
    }

    /// Whether the function last added calls a barrier in control flow WGSL cannot prove
    /// uniform.
    pub fn last_breaks_barriers(&self) -> bool {
        self.last_breaks_barriers
    }

    /// Forgets the function last added, when it breaks barriers, to add it again rewritten.
    pub fn forget_last(&mut self) {
        if self.last_breaks_barriers {
            self.summaries.pop();
            self.last_breaks_barriers = false;
        }
    }

    /// The module's own functions.
    pub fn functions(&self) -> &NameSet<Name> {
        &self.functions
    }

    pub fn verdict(&self) -> Verdict {
        Verdict {
            breaks_derivatives: self.breaks(NEEDS_UNIFORMITY),
            breaks_barriers: self.breaks(BARRIERS),
            breaks_subgroups: self.breaks(SUBGROUP_BUILTINS),
        }
    }

    /// Whether a call of one of `needs` may be in control flow WGSL cannot prove uniform.
    fn breaks(&self, needs: &[&str]) -> bool {
        // Functions that (directly or through calls) need uniform control flow: those calling one
        // of `needs`, then their callers, each function once (a call chain costs its length).
        let mut callers: NameMap<&str, Vec<&str>> = NameMap::default();
        let mut needing: NameSet<&str> = NameSet::default();
        let mut found = Vec::new();
        for summary in &self.summaries {
            for call in &summary.calls {
                if needs.contains(&&**call) {
                    if needing.insert(&summary.name) {
                        found.push(&*summary.name);
                    }
                } else {
                    callers.entry(call).or_default().push(&summary.name);
                }
            }
        }
        while let Some(function) = found.pop() {
            for &caller in callers.get(function).into_iter().flatten() {
                if needing.insert(caller) {
                    found.push(caller);
                }
            }
        }
        let needs = |name: &str| needs.contains(&name) || needing.contains(name);
        self.summaries.iter().any(|s| s.nonuniform_calls.iter().any(|c| needs(c)))
    }
}

/// Whether `expr` calls a builtin whose result depends on which invocations run it together
/// (derivatives, implicit-level-of-detail sampling, subgroup operations): one that SPIR-V runs
/// in every invocation must not move to where only some run it, as the right of `&&` or `||`.
pub(crate) fn depends_on_active_invocations(expr: &Expr) -> bool {
    expr.any(&|part| {
        matches!(part, Expr::Call(call)
            if NEEDS_UNIFORMITY.contains(&&*call.callee) || SUBGROUP_BUILTINS.contains(&&*call.callee))
    })
}

fn is_uniformity_builtin(name: &str) -> bool {
    NEEDS_UNIFORMITY.contains(&name) || BARRIERS.contains(&name) || SUBGROUP_BUILTINS.contains(&name)
}

/// The calls `relevant` accepts that `function` makes in control flow WGSL cannot prove uniform.
fn nonuniform_calls<'a>(
    function: &'a Function,
    globals: &'a NameSet<String>,
    functions: &'a NameSet<Name>,
) -> NameSet<&'a str> {
    // Optimistically every `var` is uniform; drop the ones an assignment proves otherwise.
    // Uniform parameters are never assigned, so they stay.
    let mut vars: NameSet<&str> = uniform_params(function).collect();
    declared_vars(&function.body, &mut vars);
    loop {
        let mut scope = Scope {
            globals,
            uniform: vars.clone(),
            tainted: NameSet::default(),
            nonuniform_calls: NameSet::default(),
            functions,
            uniform_exits: HashMap::new(),
            trials: 0,
            trial_log: Vec::new(),
        };
        scope.block(&function.body, true);
        if !scope.tainted.iter().any(|t| vars.contains(t)) {
            return scope.nonuniform_calls;
        }
        vars.retain(|v| !scope.tainted.contains(v));
    }
}

/// The parameters WGSL takes as uniform: an entry point's workgroup id and count.
fn uniform_params(function: &Function) -> impl Iterator<Item = &str> {
    let entry_point = function.attributes.iter().any(|a| matches!(a, Attribute::Stage(_)));
    let uniform = |param: &&Param| {
        param.attributes.iter().any(|a| matches!(a, Attribute::Builtin("workgroup_id" | "num_workgroups")))
    };
    function.params.iter().filter(move |_| entry_point).filter(uniform).map(|param| param.name.as_str())
}

fn declared_vars<'a>(stmts: &'a [Stmt], vars: &mut NameSet<&'a str>) {
    for stmt in stmts {
        stmt.for_each_stmt(&mut |s| {
            if let Stmt::Var { name, .. } = s {
                vars.insert(name);
            }
        });
    }
}

/// The expressions of a statement itself, not of the statements nested in it.
fn stmt_exprs(stmt: &Stmt) -> impl Iterator<Item = &Expr> {
    let (first, second) = match stmt.unnoted() {
        Stmt::Let { value, .. } | Stmt::Call(value) => (Some(value), None),
        Stmt::Var { value, .. } | Stmt::Return(value) => (value.as_ref(), None),
        Stmt::Assign { target, value } => (Some(target), Some(value)),
        Stmt::If { condition, .. } => (Some(condition), None),
        Stmt::Loop { break_if, .. } => (break_if.as_ref(), None),
        Stmt::Switch { selector, .. } => (Some(selector), None),
        Stmt::For(l) => (Some(&l.condition), l.update.parts().1),
        Stmt::While { condition, .. } => (Some(condition), None),
        Stmt::Break | Stmt::Continue | Stmt::Discard | Stmt::Noted { .. } => (None, None),
    };
    first.into_iter().chain(second)
}

/// The variable an assignment target or `&` operand names: `v`, `v.x`, `v[i]`, `*v`.
pub(super) fn root(expr: &Expr) -> Option<&str> {
    match expr {
        Expr::Ident(name) => Some(name),
        Expr::Member(member) => root(&member.base),
        Expr::Index(operands) => root(&operands[0]),
        Expr::Unary(UnaryOp::Deref, base) => root(base),
        _ => None,
    }
}

/// Variables whose address an expression takes (a callee may then write anything to them).
fn addressed<'a>(expr: &'a Expr, out: &mut Vec<&'a str>) {
    match expr {
        Expr::Unary(UnaryOp::AddressOf, operand) => out.extend(root(operand)),
        _ => expr.operands().iter().for_each(|operand| addressed(operand, out)),
    }
}

/// Builtins and constructors whose result is uniform when their arguments are.
fn is_pure_builtin(name: &str) -> bool {
    !name.starts_with("texture")
        && !name.starts_with("atomic")
        && !name.starts_with("subgroup")
        && !name.starts_with("quad")
        && !NEEDS_UNIFORMITY.contains(&name)
}

struct Scope<'a> {
    /// The module's uniform globals: kept apart from `uniform` so that no walk copies them.
    globals: &'a NameSet<String>,
    /// The function's names whose values are uniform.
    uniform: NameSet<&'a str>,
    /// Variables assigned something non-uniform, or in non-uniform control flow.
    tainted: NameSet<&'a str>,
    /// Calls of the module's functions and of builtins needing uniformity made in non-uniform
    /// control flow.
    nonuniform_calls: NameSet<&'a str>,
    /// The module's own functions, whose results are taken as non-uniform.
    functions: &'a NameSet<Name>,
    /// Whether each loop (by address) has only uniform exits, found once per walk of the
    /// function so nested loops are not walked exponentially often.
    uniform_exits: HashMap<*const Stmt, bool>,
    /// How many trial walks of loops are under way, and the names each made uniform, which are
    /// forgotten when it ends: undoing them costs what the trial added, where copying `uniform`
    /// for each loop would cost every name before it.
    trials: usize,
    trial_log: Vec<&'a str>,
}

impl<'a> Scope<'a> {
    fn is_uniform(&self, expr: &Expr) -> bool {
        match expr {
            Expr::Literal(_) => true,
            Expr::Ident(name) => self.uniform.contains(&**name) || self.globals.contains(&**name),
            Expr::Unary(..) | Expr::Member(_) | Expr::Binary(..) | Expr::Index(_) => {
                expr.operands().iter().all(|operand| self.is_uniform(operand))
            }
            Expr::Call(call) => {
                !self.functions.contains(&*call.callee)
                    && is_pure_builtin(&call.callee)
                    && call.args.iter().all(|a| self.is_uniform(a))
            }
        }
    }

    /// Notes the calls that matter in `expr`, made in non-uniform control flow.
    fn note_calls(&mut self, expr: &'a Expr) {
        let functions = self.functions;
        let found = &mut self.nonuniform_calls;
        expr.for_each_call(&mut |name| {
            if is_uniformity_builtin(name) || functions.contains(name) {
                found.insert(name);
            }
        });
    }

    /// Notes the calls in the right operand of a `&&` or `||` whose left operand is not
    /// uniform: whether they run depends on it, which is non-uniform control flow.
    fn note_short_circuited_calls(&mut self, expr: &'a Expr) {
        let mut conditional = Vec::new();
        expr.walk(&mut |part| {
            if let Expr::Binary(BinaryOp::LogicalAnd | BinaryOp::LogicalOr, operands) = part {
                conditional.push(operands);
            }
        });
        for operands in conditional {
            if !self.is_uniform(&operands[0]) {
                self.note_calls(&operands[1]);
            }
        }
    }

    /// Notes the statement's own expressions: calls in non-uniform flow, addresses taken.
    fn visit(&mut self, stmt: &'a Stmt, uniform_flow: bool) {
        for expr in stmt_exprs(stmt) {
            if uniform_flow {
                self.note_short_circuited_calls(expr);
            } else {
                self.note_calls(expr);
            }
            let mut taken = Vec::new();
            addressed(expr, &mut taken);
            self.tainted.extend(taken);
        }
    }

    /// Walks a block entered in `uniform_flow`; returns whether control flow is still uniform
    /// after it (a non-uniform exit makes what follows non-uniform).
    fn block(&mut self, stmts: &'a [Stmt], mut uniform_flow: bool) -> bool {
        for stmt in stmts {
            uniform_flow = self.stmt(stmt, uniform_flow);
        }
        uniform_flow
    }

    fn stmt(&mut self, stmt: &'a Stmt, uniform_flow: bool) -> bool {
        // A note (`--annotate`) changes nothing.
        if let Stmt::Noted { stmt, .. } = stmt {
            return self.stmt(stmt, uniform_flow);
        }
        self.visit(stmt, uniform_flow);
        match stmt {
            Stmt::Let { name, value, .. } => {
                if uniform_flow && self.is_uniform(value) && self.uniform.insert(name) && self.trials > 0 {
                    self.trial_log.push(name);
                }
            }
            Stmt::Var { name, value, .. } => {
                if !uniform_flow || value.as_ref().is_some_and(|v| !self.is_uniform(v)) {
                    self.tainted.insert(name);
                }
            }
            Stmt::Assign { target, value } => {
                let index_uniform = match target {
                    Expr::Index(operands) => self.is_uniform(&operands[1]),
                    _ => true,
                };
                if !(uniform_flow && index_uniform && self.is_uniform(value)) {
                    self.tainted.extend(root(target));
                }
            }
            Stmt::Call(_) | Stmt::Return(_) | Stmt::Break | Stmt::Continue | Stmt::Discard | Stmt::Noted { .. } => {}
            Stmt::If { condition, accept, reject } => {
                let inner = uniform_flow && self.is_uniform(condition);
                let after_accept = self.block(accept, inner);
                let after_reject = self.block(reject, inner);
                // Under a non-uniform condition the arms are non-uniform, but control
                // reconverges after the `if` unless an arm leaves early.
                let exits = accept.iter().chain(reject).any(exits);
                return uniform_flow && if inner { after_accept && after_reject } else { !exits };
            }
            Stmt::Switch { selector, cases } => {
                let inner = uniform_flow && self.is_uniform(selector);
                let mut after = true;
                for case in cases {
                    after &= self.block(&case.body, inner);
                }
                // Control reconverges after the switch unless a case leaves it by more than a
                // `break`.
                let exits = cases.iter().flat_map(|c| &c.body).any(|s| s.may_leave(false, true, true));
                return uniform_flow && (!exits || (inner && after));
            }
            // Made only after this analysis (`for_loops.rs`); taken, to err on the safe side,
            // as loops that may exit non-uniformly.
            Stmt::For(l) => {
                self.note_calls(&l.condition);
                match &l.init {
                    Some(Init::Var(name, _)) => _ = self.tainted.insert(name),
                    Some(Init::Assign(target, _)) => self.tainted.extend(root(target)),
                    None => {}
                }
                self.tainted.extend(root(l.update.parts().0));
                self.block(&l.body, false);
                return uniform_flow && !returns(stmt);
            }
            Stmt::While { condition, body } => {
                self.note_calls(condition);
                self.block(body, false);
                return uniform_flow && !returns(stmt);
            }
            Stmt::Loop { body, continuing, break_if } => {
                // A loop is uniform if every way out of it is decided uniformly; a first walk
                // finds out, and a second checks the body under that answer.
                let key: *const Stmt = stmt;
                let uniform_exits = match self.uniform_exits.get(&key) {
                    Some(&known) => known,
                    None => {
                        // The trial's findings other than the answer are dropped afterwards.
                        let tainted = std::mem::take(&mut self.tainted);
                        let nonuniform_calls = std::mem::take(&mut self.nonuniform_calls);
                        let log_start = self.trial_log.len();
                        self.trials += 1;
                        let exits_uniformly = self.block(body, true)
                            && self.block(continuing, true)
                            && break_if.as_ref().is_none_or(|c| self.is_uniform(c));
                        self.trials -= 1;
                        for name in self.trial_log.drain(log_start..) {
                            self.uniform.remove(name);
                        }
                        (self.tainted, self.nonuniform_calls) = (tainted, nonuniform_calls);
                        self.uniform_exits.insert(key, exits_uniformly);
                        exits_uniformly
                    }
                };
                let inner = uniform_flow && uniform_exits;
                self.block(body, inner);
                self.block(continuing, inner);
                if let Some(condition) = break_if
                    && !inner
                {
                    self.note_calls(condition);
                }
                // Control reconverges after the loop, as after an `if`, unless a non-uniform
                // exit of it leaves the function.
                return uniform_flow && (inner || !returns(stmt));
            }
        }
        uniform_flow
    }
}

/// Whether a statement may leave its block early (return, break, continue).
fn exits(stmt: &Stmt) -> bool {
    stmt.may_leave(true, true, true)
}

fn returns(stmt: &Stmt) -> bool {
    stmt.any(&|s| matches!(s, Stmt::Return(_)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::wgsl::ast::{BinaryOp, Global, Literal};

    fn ident(name: &str) -> Expr {
        Expr::ident(name)
    }

    fn sample() -> Stmt {
        Stmt::Assign {
            target: ident("color"),
            value: Expr::call("textureSample", vec![ident("t"), ident("s"), ident("uv")]),
        }
    }

    fn if_then(condition: Expr, accept: Vec<Stmt>) -> Stmt {
        Stmt::If { condition, accept, reject: vec![] }
    }

    fn positive(name: &str) -> Expr {
        Expr::binary(BinaryOp::Greater, ident(name), Expr::Literal(Literal::F32(0)))
    }

    fn function(name: &str, body: Vec<Stmt>) -> Function {
        Function { attributes: vec![], name: name.into(), params: vec![], result: None, body, exits: vec![] }
    }

    /// The verdict on the given functions, with a uniform buffer `params` and a private `input`.
    fn verdict(functions: Vec<Function>) -> Verdict {
        let global = |name: &str, space: &str| Global {
            attributes: vec![],
            kind: GlobalKind::Var { space: space.into() },
            name: name.into(),
            ty: Some("f32".into()),
            init: None,
        };
        let mut analysis = Analysis::default();
        analysis.global(&global("params", "uniform"));
        analysis.global(&global("input", "private"));
        for f in &functions {
            analysis.declare_function(&f.name);
        }
        for f in &functions {
            analysis.function(f, &callees(f));
        }
        analysis.verdict()
    }

    #[test]
    fn a_barrier_after_an_early_return_on_a_private_value_is_non_uniform() {
        let barrier = Stmt::Call(Expr::call("workgroupBarrier", vec![]));
        let early_return = if_then(positive("input"), vec![Stmt::Return(None)]);
        assert!((verdict(vec![function("main", vec![early_return, barrier.clone()])])).breaks_barriers);
        // A non-uniform `if` that does not leave early reconverges before the barrier.
        let store = if_then(positive("input"), vec![sample()]);
        assert!(!(verdict(vec![function("main", vec![store, barrier.clone()])])).breaks_barriers);
        let uniform_return = if_then(positive("params"), vec![Stmt::Return(None)]);
        assert!(!(verdict(vec![function("main", vec![uniform_return, barrier])])).breaks_barriers);
        // Sampling is another rule: a barrier-free module never breaks this one.
        assert!(!(verdict(vec![function("main", vec![if_then(positive("input"), vec![sample()])])])).breaks_barriers);
    }

    #[test]
    fn control_reconverges_after_a_loop_unless_a_non_uniform_return_leaves_it() {
        let barrier = Stmt::Call(Expr::call("workgroupBarrier", vec![]));
        let leaving = |exit: Stmt| Stmt::Loop {
            body: vec![if_then(positive("input"), vec![exit])],
            continuing: vec![],
            break_if: None,
        };
        // As Tint judges it: a non-uniform `break` ends only the loop's uniformity.
        assert!(!(verdict(vec![function("main", vec![leaving(Stmt::Break), barrier.clone()])])).breaks_barriers);
        assert!((verdict(vec![function("main", vec![leaving(Stmt::Return(None)), barrier.clone()])])).breaks_barriers);
        // Inside the loop, what follows the non-uniform `break` stays non-uniform.
        let barrier_after_break = Stmt::Loop {
            body: vec![if_then(positive("input"), vec![Stmt::Break]), barrier],
            continuing: vec![],
            break_if: None,
        };
        assert!((verdict(vec![function("main", vec![barrier_after_break])])).breaks_barriers);
    }

    #[test]
    fn a_switch_reconverges_after_its_own_breaks_and_notes_hide_no_exit() {
        let barrier = Stmt::Call(Expr::call("workgroupBarrier", vec![]));
        let switch_on_input = |exit: Stmt| Stmt::Switch {
            selector: ident("input"),
            cases: vec![crate::wgsl::ast::SwitchCase {
                selectors: vec![],
                default: true,
                body: vec![if_then(positive("input"), vec![exit]), sample()],
            }],
        };
        assert!(
            !(verdict(vec![function("main", vec![switch_on_input(Stmt::Break), barrier.clone()])])).breaks_barriers
        );
        assert!(
            (verdict(vec![function("main", vec![switch_on_input(Stmt::Return(None)), barrier.clone()])]))
                .breaks_barriers
        );
        // `--annotate` wraps control statements in notes: a return inside one still counts.
        let noted_return =
            Stmt::Noted { stmt: Box::new(if_then(positive("params"), vec![Stmt::Return(None)])), note: "n".into() };
        let body = vec![if_then(positive("input"), vec![noted_return]), barrier];
        assert!((verdict(vec![function("main", body)])).breaks_barriers);
    }

    #[test]
    fn an_entry_points_workgroup_id_and_count_are_uniform_other_parameters_not() {
        let barrier = Stmt::Call(Expr::call("workgroupBarrier", vec![]));
        let param = |name: &str, builtin: &'static str| Param {
            attributes: vec![Attribute::Builtin(builtin)],
            name: name.into(),
            ty: "u32".into(),
        };
        let under = |name: &str| if_then(positive(name), vec![barrier.clone()]);
        let uniform_ids = |stage: Vec<Attribute>| {
            let mut f = function("main", vec![under("group"), under("count")]);
            f.params = vec![param("group", "workgroup_id"), param("count", "num_workgroups")];
            f.attributes = stage;
            f
        };
        // As a function of the module, its parameters could be given anything.
        assert!(verdict(vec![uniform_ids(vec![])]).breaks_barriers);
        assert!(!verdict(vec![uniform_ids(vec![Attribute::Stage("compute")])]).breaks_barriers);
        let mut local = function("main", vec![under("index")]);
        local.params = vec![param("index", "local_invocation_index")];
        local.attributes = vec![Attribute::Stage("compute")];
        assert!(verdict(vec![local]).breaks_barriers);
    }

    #[test]
    fn sampling_under_a_private_value_is_non_uniform() {
        let m = verdict(vec![function("main", vec![if_then(positive("input"), vec![sample()])])]);
        assert!(m.breaks_derivatives);
    }

    #[test]
    fn sampling_under_uniform_buffer_values_and_their_lets_is_uniform() {
        let body = vec![
            Stmt::Let {
                name: "scale".into(),
                ty: None,
                value: Expr::binary(BinaryOp::Multiply, ident("params"), ident("params")),
            },
            if_then(positive("scale"), vec![sample()]),
            if_then(positive("params"), vec![sample()]),
            sample(),
        ];
        assert!(!(verdict(vec![function("main", body)])).breaks_derivatives);
    }

    #[test]
    fn sampling_right_of_a_non_uniform_short_circuit_is_non_uniform() {
        let sampled = || Expr::call("textureSampleCompare", vec![ident("t"), ident("s"), ident("uv"), ident("r")]);
        let assign = |op, left: &str| Stmt::Assign {
            target: ident("hit"),
            value: Expr::binary(op, positive(left), Expr::binary(BinaryOp::Greater, sampled(), ident("params"))),
        };
        for op in [BinaryOp::LogicalAnd, BinaryOp::LogicalOr] {
            assert!((verdict(vec![function("main", vec![assign(op, "input")])])).breaks_derivatives);
            assert!(!(verdict(vec![function("main", vec![assign(op, "params")])])).breaks_derivatives);
        }
    }

    #[test]
    fn a_non_uniform_return_makes_the_rest_non_uniform() {
        let body = vec![if_then(positive("input"), vec![Stmt::Return(None)]), sample()];
        assert!((verdict(vec![function("main", body)])).breaks_derivatives);
        let body = vec![if_then(positive("params"), vec![Stmt::Return(None)]), sample()];
        assert!(!(verdict(vec![function("main", body)])).breaks_derivatives);
    }

    #[test]
    fn loops_with_non_uniform_exits_are_non_uniform() {
        let exit_on =
            |condition: Expr| Stmt::Loop { body: vec![sample()], continuing: vec![], break_if: Some(condition) };
        assert!((verdict(vec![function("main", vec![exit_on(positive("input"))])])).breaks_derivatives);
        assert!(!(verdict(vec![function("main", vec![exit_on(positive("params"))])])).breaks_derivatives);
    }

    /// `var i = init; loop { if i >= 5 { break; } sample; continuing { i = i + step; } }`
    fn counted_loop(init: Expr, step: Expr) -> Vec<Stmt> {
        let five = Expr::Literal(Literal::I32(5));
        vec![
            Stmt::Var { name: "i".into(), ty: None, value: Some(init) },
            Stmt::Loop {
                body: vec![
                    if_then(Expr::binary(BinaryOp::GreaterEqual, ident("i"), five), vec![Stmt::Break]),
                    sample(),
                ],
                continuing: vec![Stmt::Assign {
                    target: ident("i"),
                    value: Expr::binary(BinaryOp::Add, ident("i"), step),
                }],
                break_if: None,
            },
        ]
    }

    #[test]
    fn variables_assigned_only_uniform_values_are_uniform() {
        let one = || Expr::Literal(Literal::I32(1));
        let uniform = counted_loop(Expr::Literal(Literal::I32(0)), one());
        assert!(!(verdict(vec![function("main", uniform)])).breaks_derivatives);
        let from_input = counted_loop(ident("input"), one());
        assert!((verdict(vec![function("main", from_input)])).breaks_derivatives);
        let stepped_by_input = counted_loop(Expr::Literal(Literal::I32(0)), ident("input"));
        assert!((verdict(vec![function("main", stepped_by_input)])).breaks_derivatives);
        // A callee given the variable's address may write anything to it.
        let mut passed = counted_loop(Expr::Literal(Literal::I32(0)), one());
        passed.push(Stmt::Call(Expr::call("f", vec![Expr::unary(UnaryOp::AddressOf, ident("i"))])));
        assert!((verdict(vec![function("main", passed)])).breaks_derivatives);
    }

    #[test]
    fn deeply_nested_loops_are_walked_in_linear_time() {
        let mut body = vec![sample()];
        for _ in 0..200 {
            body = vec![Stmt::Loop { body, continuing: vec![], break_if: Some(positive("params")) }];
        }
        assert!(!(verdict(vec![function("main", body)])).breaks_derivatives);
    }

    #[test]
    fn a_chain_of_helpers_passes_the_need_up_to_its_first_caller() {
        // Callers come before callees, as SPIR-V modules usually order them.
        let call = |name: &str| Stmt::Call(Expr::call(name, vec![]));
        let chain = |main: Stmt| {
            let mut functions = vec![function("main", vec![main])];
            for i in 0..5 {
                functions.push(function(&format!("h{i}"), vec![call(&format!("h{}", i + 1))]));
            }
            functions.push(function("h5", vec![sample()]));
            functions
        };
        assert!(verdict(chain(if_then(positive("input"), vec![call("h0")]))).breaks_derivatives);
        // Called in uniform control flow, the same chain is fine.
        assert!(!verdict(chain(call("h0"))).breaks_derivatives);
    }

    #[test]
    fn helpers_that_sample_need_uniform_calls() {
        let helper = function("helper", vec![sample()]);
        let call = Stmt::Call(Expr::call("helper", vec![]));
        let main = function("main", vec![if_then(positive("input"), vec![call])]);
        assert!((verdict(vec![helper, main])).breaks_derivatives);
    }

    #[test]
    fn explicit_level_sampling_needs_no_uniformity() {
        let level = Stmt::Assign {
            target: ident("color"),
            value: Expr::call(
                "textureSampleLevel",
                vec![ident("t"), ident("s"), ident("uv"), Expr::Literal(Literal::F32(0))],
            ),
        };
        let m = verdict(vec![function("main", vec![if_then(positive("input"), vec![level])])]);
        assert!(!m.breaks_derivatives);
    }
}
