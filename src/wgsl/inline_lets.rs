//! `let`s the lowering bound because their value had several uses in SPIR-V, or was a call's
//! result, left with one use, in the statement after them (or after `let`s that go into that
//! statement too): `let x_21 = a >= b;` before
//! `let x_29 = x_21 || c;` (glslang's `||`, once its branch became an expression), or
//! `let x_456 = f(L);` before `Lo = Lo + x_456;`. Such a `let` goes into its use when that
//! changes nothing:
//! - the use is in the statement's own expressions (not a nested statement, not a `break if`),
//!   where it is evaluated once, when the `let` would have been;
//! - what the statement evaluates before the use has no effect (no call of the module's functions,
//!   no atomic), so memory the value reads is as it was;
//! - a value with an effect (a call) runs after what comes before its use, which must then read
//!   only the function's own values (`let`s, parameters, `var`s whose address is never taken,
//!   which no call can write), and not in the right operand of `&&` or `||`, which may not run.
//!
//! Only unnamed values (`x_12`): a name from the source says what the value is. Not constants:
//! bound, they make their use a run-time expression rather than one evaluated when the shader is
//! created (`lower/runtime_constants.rs`).

use std::cell::OnceCell;

use crate::id_hash::IdMap;
use crate::name_hash::{NameMap, NameSet};

use super::ast::{BinaryOp, Expr, Function, Init, Literal, Name, Stmt, UnaryOp};
use super::names::unnamed_id;
use super::uniformity::depends_on_active_invocations;

/// Deeper expressions than the lowering would inline are left bound.
const MAX_DEPTH: usize = 32;

/// What [`inline`] finds on its way, for the passes after it, which would each walk the function
/// again to find it. Inlining moves expressions but adds or drops none of them (no call, no
/// `var`), so it holds after.
pub(crate) struct Found {
    /// The function's `var`s whose address is never taken, for `loop_phis::elide`.
    pub(crate) vars: NameSet<Name>,
    /// What the walk counted of each name, for `loop_phis::elide`.
    pub(crate) uses: Uses,
    /// Every function, builtin and constructor the function calls, for the uniformity analysis.
    pub(crate) calls: NameSet<Name>,
}

/// Inlines, through `function`'s body, the `let`s of the unnamed values as described above:
/// `counts` holds a zero entry for each (the lowering makes it as it names them, so that no second
/// table of the names is built here; each identifier then costs one lookup). `has_effect` says
/// whether evaluating an expression has an effect.
pub(crate) fn inline(function: &mut Function, counts: Counts, has_effect: &dyn Fn(&Expr) -> bool) -> Found {
    // The declared names, gathered as they come: a set of them is made only if a value with an
    // effect asks which values are the function's own. Room for the unnamed ones at least, where
    // doubling copied the list again and again.
    let mut declared: Vec<Name> = Vec::with_capacity(counts.len() + function.params.len());
    let mut uses = Uses { counts, others: NameMap::default(), other_counts: Vec::new() };
    for param in function.params.iter().filter(|param| !param.ty.starts_with("ptr<")) {
        let name = Name::from(param.name.as_str());
        uses.entry(&name).declarations += 1;
        declared.push(name);
    }
    let mut found = Mentions { uses, position: 0, addressed: NameSet::default(), calls: NameSet::default() };
    let mut vars = NameSet::default();
    let mut position = 0;
    // One walk of the statements, and of each one's own expressions, finds the declarations,
    // the mentions, the assignments, the addresses taken and the callees.
    for stmt in &function.body {
        stmt.for_each_stmt(&mut |s| {
            // A note's statement is walked next.
            if let Stmt::Noted { .. } = s {
                return;
            }
            found.position = Uses::position(s, &mut position);
            match s {
                Stmt::Let { name, .. } | Stmt::Var { name, .. } => {
                    found.uses.entry(name).declarations += 1;
                    declared.push(name.clone());
                }
                // Made only later (`for_loops.rs`), so not met here: its body's assignments, counted
                // again, keep the count an upper bound.
                Stmt::For(l) => {
                    if let Some(Init::Var(name, _)) = &l.init {
                        found.uses.entry(name).declarations += 1;
                    }
                    s.for_each_assigned(&mut |root| found.uses.entry(root).assignments += 1);
                }
                _ => {}
            }
            if let Stmt::Var { name, .. } = s {
                vars.insert(name.clone());
            }
            match s {
                Stmt::Assign { target, value } => {
                    found.target(target);
                    found.expr(value);
                }
                _ => s.for_each_own_expr(&mut |e| found.expr(e)),
            }
        });
    }
    let Mentions { uses, addressed, calls, .. } = found;
    let own = Own { declared, names: OnceCell::new(), addressed };
    list(&mut function.body, &uses.counts, &own, has_effect);
    vars.retain(|v| !own.addressed.contains(v));
    Found { vars, uses, calls }
}

/// What the walk of a function's expressions in [`inline`] gathers: the uses of each name (at
/// `position`, that of the statement walked), the roots of the references whose address is
/// taken, the callees.
struct Mentions {
    uses: Uses,
    position: u32,
    addressed: NameSet<Name>,
    calls: NameSet<Name>,
}

impl Mentions {
    /// Gathers from `expr` and the expressions nested in it.
    fn expr(&mut self, expr: &Expr) {
        match expr {
            Expr::Ident(ident) => {
                self.mention(ident);
                return;
            }
            Expr::Literal(_) => return,
            Expr::Unary(UnaryOp::AddressOf, reference) => {
                if let Some(root) = reference.root() {
                    self.addressed.insert(Name::from(root));
                }
            }
            // Looked up before it is inserted: most calls are of a callee met before.
            Expr::Call(call) if !self.calls.contains(&*call.callee) => _ = self.calls.insert(call.callee.clone()),
            _ => {}
        }
        expr.operands().iter().for_each(|operand| self.expr(operand));
    }

    /// Gathers from `target`, an assignment's, counting the assignment to its root (as
    /// `Expr::root` finds it) as the mention of it is counted.
    fn target(&mut self, target: &Expr) {
        match target {
            Expr::Ident(ident) => self.mention(ident).assignments += 1,
            Expr::Member(access) => self.target(&access.base),
            Expr::Index(operands) => {
                self.target(&operands[0]);
                self.expr(&operands[1]);
            }
            _ => self.expr(target),
        }
    }

    /// Counts a mention of `name` by the statement walked. Inlined into the walk, which calls it
    /// for every identifier: the call cost a third of what the counting adds to the walk.
    #[inline(always)]
    fn mention(&mut self, name: &str) -> &mut Count {
        let count = self.uses.entry(name);
        if count.mentions == 0 {
            count.first_mention = self.position;
        }
        count.mentions += 1;
        count
    }
}

/// For each unnamed value, how often it is declared (by `let`s, and parameters of the same name)
/// and mentioned in the function. A name is an unnamed value's own, declared once
/// (`Namer::fresh_name`); one declared twice would have its mentions counted together, so it is
/// left alone. A value is in scope from its `let` to the end of its list (and, in a loop's body,
/// in its `continuing` and `break if`), so one mentioned once is mentioned once after its `let`;
/// inlining moves a value's mentions from its `let` to its use and so keeps every count, however
/// the lists are visited.
///
/// Names of the form `x_<id>` are kept by id, as `Namer` keeps them: nearly every unnamed value
/// has one, every identifier of the function is looked up, and an id costs far less to hash and
/// compare than text. The others (an `x_<id>` taken by another name, numbered on) by name.
#[derive(Default)]
pub(crate) struct Counts {
    by_id: IdMap<u32, Count>,
    by_name: NameMap<Name, Count>,
}

impl Counts {
    /// Room for `values` unnamed values.
    pub(crate) fn with_capacity(values: usize) -> Counts {
        Counts { by_id: IdMap::with_capacity_and_hasher(values, Default::default()), by_name: NameMap::default() }
    }

    /// How many unnamed values are counted.
    fn len(&self) -> usize {
        self.by_id.len() + self.by_name.len()
    }

    /// Counts `x_<id>` from zero, keyed by the id the caller has rather than read back from text.
    pub(crate) fn add_unnamed(&mut self, id: u32) {
        self.by_id.insert(id, Count::default());
    }

    /// Counts `name`, an unnamed value's, from zero.
    pub(crate) fn add(&mut self, name: &Name) {
        match unnamed_id(name) {
            Some(id) => _ = self.by_id.insert(id, Count::default()),
            None => _ = self.by_name.insert(name.clone(), Count::default()),
        }
    }

    fn get(&self, name: &str) -> Option<&Count> {
        match unnamed_id(name) {
            Some(id) => self.by_id.get(&id),
            None => self.by_name.get(name),
        }
    }

    fn get_mut(&mut self, name: &str) -> Option<&mut Count> {
        match unnamed_id(name) {
            Some(id) => self.by_id.get_mut(&id),
            None => self.by_name.get_mut(name),
        }
    }

    /// Stops counting `name`: its `let` is never inlined.
    pub(crate) fn remove(&mut self, name: &str) {
        match unnamed_id(name) {
            Some(id) => _ = self.by_id.remove(&id),
            None => _ = self.by_name.remove(name),
        }
    }
}

/// What the walk of a function counts of one name. Inlining moves a value's mentions into the
/// next statement kept and drops nothing but the `let`s inlined, so that after it the counts are
/// upper bounds and `first_mention` a lower bound.
#[derive(Default, Clone, Copy)]
pub(crate) struct Count {
    /// By `let`s, `var`s, `for` initializers, and parameters.
    pub(crate) declarations: u32,
    /// As an identifier.
    pub(crate) mentions: u32,
    /// As the variable an assignment writes (the root of its target).
    pub(crate) assignments: u32,
    /// The position ([`Uses::position`]) of the first statement mentioning it.
    pub(crate) first_mention: u32,
}

/// What the walk of a function in [`inline`] counts of each of its names (`Count`): the unnamed
/// values' in their `Counts`, those of the other names beside them (by index in `other_counts`).
pub(crate) struct Uses {
    counts: Counts,
    others: NameMap<Name, usize>,
    other_counts: Vec<Count>,
}

impl Uses {
    /// No name counted: every question about one goes unanswered.
    #[cfg(test)]
    pub(crate) fn none() -> Uses {
        Uses { counts: Counts::default(), others: NameMap::default(), other_counts: Vec::new() }
    }

    /// The position of `stmt`'s own expressions, given `position`, that of the statement before it
    /// in the order the walk takes (`Stmt::for_each_stmt`, notes left out), which it advances. A
    /// `let` shares the position of the statement after it, between that one's and the one's
    /// before: inlining may move its value into that statement (never into a loop), and no other
    /// statement moves, so that a position compares alike with a loop's before inlining and after.
    #[inline]
    pub(crate) fn position(stmt: &Stmt, position: &mut u32) -> u32 {
        if let Stmt::Let { .. } = stmt {
            return *position;
        }
        *position += 2;
        *position - 1
    }

    pub(crate) fn get(&self, name: &str) -> Option<&Count> {
        self.counts.get(name).or_else(|| self.others.get(name).map(|&at| &self.other_counts[at]))
    }

    /// The count of `name`, from zero if it has none yet.
    #[inline]
    fn entry(&mut self, name: &str) -> &mut Count {
        // An unnamed value's, as nearly every name is, looked up where the walk asks: the call
        // cost a fifth as much again.
        match self.counts.get_mut(name) {
            Some(count) => count,
            None => Self::other(&mut self.others, &mut self.other_counts, name),
        }
    }

    /// The count of `name`, not an unnamed value's, in `counts` at its index in `others`.
    fn other<'a>(others: &mut NameMap<Name, usize>, counts: &'a mut Vec<Count>, name: &str) -> &'a mut Count {
        let at = match others.get(name) {
            Some(&at) => at,
            None => {
                others.insert(Name::from(name), counts.len());
                counts.push(Count::default());
                counts.len() - 1
            }
        };
        &mut counts[at]
    }

    /// Counts what `from`, renamed `to` in some places, is counted for as `to`'s too: both counts
    /// stay bounds. Unless both are counted, `to` is counted no longer.
    pub(crate) fn rename(&mut self, from: &str, to: &str) {
        match (self.get(from).copied(), self.get(to).is_some()) {
            (Some(from), true) => {
                let to = self.entry(to);
                to.declarations += from.declarations;
                to.mentions += from.mentions;
                to.assignments += from.assignments;
                to.first_mention = to.first_mention.min(from.first_mention);
            }
            _ => {
                self.counts.remove(to);
                self.others.remove(to);
            }
        }
    }
}

/// The names of the function's own values (declared, and as a set once asked), and those whose
/// address is taken.
struct Own {
    declared: Vec<Name>,
    names: OnceCell<NameSet<Name>>,
    addressed: NameSet<Name>,
}

impl Own {
    /// Whether no call can change what `name` holds.
    fn is_own(&self, name: &str) -> bool {
        let names = self.names.get_or_init(|| self.declared.iter().cloned().collect());
        names.contains(name) && !self.addressed.contains(name)
    }
}

/// Inlines through `stmts` and the lists nested in them, innermost first.
fn list(stmts: &mut Vec<Stmt>, counts: &Counts, own: &Own, has_effect: &dyn Fn(&Expr) -> bool) {
    for stmt in stmts.iter_mut() {
        stmt.unnoted_mut().for_each_list_mut(&mut |nested| list(nested, counts, own, has_effect));
    }
    // Last to first, so that a `let` whose use is past other `let`s that go into the same
    // statement goes in too (`let x_5 = color; let x_6 = f(); color = x_5 * x_6;` becomes
    // `color = color * f();`): an inlined `let` is dropped at the end, and the statement it went
    // into, with what went in, is the next one for the `let` before it.
    let mut inlined = Vec::new();
    let mut next = stmts.len().saturating_sub(1);
    for index in (0..next).rev() {
        if try_inline(stmts, index, next, counts, own, has_effect) {
            inlined.push(index);
        } else {
            next = index;
        }
    }
    if inlined.is_empty() {
        return;
    }
    let mut index = 0;
    let mut inlined = inlined.into_iter().rev().peekable();
    stmts.retain(|_| {
        index += 1;
        inlined.next_if_eq(&(index - 1)).is_none()
    });
}

/// Inlines the `let` at `index` into the statement at `next`, the first one after it not
/// inlined, if it may; returns whether it did. A value mentioned once whose mention is not in that
/// statement (but in a loop's `continuing`) stays. The value moves into its use, and the `let`
/// keeps a placeholder until it is dropped: nothing is copied.
fn try_inline(
    stmts: &mut [Stmt],
    index: usize,
    next: usize,
    counts: &Counts,
    own: &Own,
    has_effect: &dyn Fn(&Expr) -> bool,
) -> bool {
    let (head, tail) = stmts.split_at_mut(index + 1);
    let Stmt::Let { name, ty: None, value } = head[index].unnoted_mut() else { return false };
    // Only unnamed values are counted.
    if !counts.get(name).is_some_and(|count| count.declarations <= 1 && count.mentions == 1) {
        return false;
    }
    // A constant's `let` is what makes its use a run-time expression (`lower/runtime_constants.rs`).
    let value_has_effect = has_effect(value);
    if !value_has_effect && !value.any(&|e| matches!(e, Expr::Ident(_))) {
        return false;
    }
    let next = tail[next - index - 1].unnoted_mut();
    let either_order = matches!(next, Stmt::Assign { .. });
    let mut parts = own_exprs(next);
    // A derivative or subgroup operation must run in every invocation that ran the `let`.
    let unconditional = value_has_effect || depends_on_active_invocations(value);
    if !may_inline(&parts, name, value_has_effect, unconditional, either_order, own, has_effect) {
        return false;
    }
    if parts.iter().any(|part| deeper_than_inlined(part, MAX_DEPTH, name, value)) {
        return false;
    }
    // Mentioned once in the whole function, so once in `parts`.
    let mut value = Some(std::mem::replace(value, Expr::Literal(Literal::Bool(false))));
    for part in parts.iter_mut() {
        replace(part, name, &mut value);
    }
    true
}

/// Whether a value with an effect or not (`value_has_effect`), which must be evaluated wherever
/// the `let` was or not (`unconditional`), may go where `name` is used in `parts`, a statement's
/// own expressions (an assignment's two sides, `either_order`, are taken to come in either order).
fn may_inline(
    parts: &[&mut Expr],
    name: &str,
    value_has_effect: bool,
    unconditional: bool,
    either_order: bool,
    own: &Own,
    has_effect: &dyn Fn(&Expr) -> bool,
) -> bool {
    // What is evaluated before the use, judged as it is found: whether any of it has an effect,
    // and whether all of it reads only the function's own values.
    let mut any_effect = false;
    let mut only_own = true;
    let mut before = |e: &Expr| {
        any_effect = any_effect || has_effect(e);
        only_own = only_own && reads_only_own(e, own);
    };
    let mut conditional = None;
    for (at, part) in parts.iter().enumerate() {
        if part.mentions(name) {
            conditional = evaluated_before(part, name, false, &mut before);
            if either_order {
                parts[at + 1..].iter().for_each(|p| before(p));
            }
            break;
        }
        before(part);
    }
    let Some(conditional) = conditional else { return false };
    if any_effect || (conditional && unconditional) {
        return false;
    }
    !value_has_effect || only_own
}

/// A statement's own expressions, each evaluated once, in order; none for a loop, whose
/// `break if` is evaluated each iteration.
fn own_exprs(stmt: &mut Stmt) -> Vec<&mut Expr> {
    match stmt {
        Stmt::Let { value, .. }
        | Stmt::Var { value: Some(value), .. }
        | Stmt::Call(value)
        | Stmt::Return(Some(value)) => {
            vec![value]
        }
        Stmt::Assign { target, value } => vec![target, value],
        Stmt::If { condition, .. } => vec![condition],
        Stmt::Switch { selector, .. } => vec![selector],
        _ => Vec::new(),
    }
}

/// Walks `expr` in evaluation order up to the identifier `name`, giving `before` what is
/// evaluated before it; returns, if `name` is found, whether it is evaluated only conditionally
/// (in the right operand of `&&` or `||`).
fn evaluated_before(expr: &Expr, name: &str, conditional: bool, before: &mut impl FnMut(&Expr)) -> Option<bool> {
    match expr {
        Expr::Ident(ident) if **ident == *name => Some(conditional),
        Expr::Ident(_) => {
            before(expr);
            None
        }
        Expr::Literal(_) => None,
        Expr::Unary(..) | Expr::Member(_) | Expr::Index(_) => {
            expr.operands().iter().find_map(|operand| evaluated_before(operand, name, conditional, before))
        }
        Expr::Binary(op, operands) => {
            let [left, right] = &**operands;
            evaluated_before(left, name, conditional, before).or_else(|| {
                let short_circuit = matches!(op, BinaryOp::LogicalAnd | BinaryOp::LogicalOr);
                evaluated_before(right, name, conditional || short_circuit, before)
            })
        }
        Expr::Call(call) => {
            // The callee runs after its arguments: if one holds `name`, it has not run yet. (The
            // arguments are walked once, not searched for `name` first: in a nest of calls, that
            // search would walk each level again at every level above it.)
            let found = call.args.iter().find_map(|arg| evaluated_before(arg, name, conditional, before));
            if found.is_none() {
                before(expr);
            }
            found
        }
    }
}

/// Whether `expr` reads only the function's own values, which no call can change, and calls
/// nothing but constructors and conversions spelled with a type (`vec3<f32>(..)`,
/// `bitcast<u32>(..)`), which compute from their operands alone.
fn reads_only_own(expr: &Expr, own: &Own) -> bool {
    !expr.any(&|e| match e {
        Expr::Ident(name) => !own.is_own(name),
        Expr::Call(call) => !call.callee.contains('<'),
        Expr::Unary(UnaryOp::Deref, _) => true,
        _ => false,
    })
}

/// [`Expr::deeper_than`] of `expr` with the identifier `name` replaced by `value`, without
/// replacing it.
fn deeper_than_inlined(expr: &Expr, limit: usize, name: &str, value: &Expr) -> bool {
    if limit == 0 {
        return true;
    }
    match expr {
        Expr::Ident(ident) if **ident == *name => value.deeper_than(limit),
        _ => expr.operands().iter().any(|e| deeper_than_inlined(e, limit - 1, name, value)),
    }
}

/// `expr` with the identifier `name` replaced by `value`, which is taken at the first mention.
fn replace(expr: &mut Expr, name: &str, value: &mut Option<Expr>) {
    match expr {
        Expr::Ident(ident) if **ident == *name => {
            if let Some(value) = value.take() {
                *expr = value;
            }
        }
        _ => expr.operands_mut().iter_mut().for_each(|operand| replace(operand, name, value)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::wgsl::ast::Literal;
    use crate::wgsl::print;

    fn ident(name: &str) -> Expr {
        Expr::ident(name)
    }

    fn call(name: &str, args: Vec<Expr>) -> Expr {
        Expr::call(name, args)
    }

    fn let_(name: &str, value: Expr) -> Stmt {
        Stmt::Let { name: name.into(), ty: None, value }
    }

    fn plus(a: Expr, b: Expr) -> Expr {
        Expr::binary(BinaryOp::Add, a, b)
    }

    /// The body after inlining, with `f` and `g` the module's functions (calls with an effect),
    /// `acc` a `var` of the function, `glob` a global.
    fn inlined(body: Vec<Stmt>) -> String {
        let mut body = body;
        body.insert(0, Stmt::Var { name: "acc".into(), ty: Some("f32".into()), value: None });
        let mut function =
            Function { attributes: vec![], name: "h".into(), params: vec![], result: None, body, exits: vec![] };
        // `x_3_1` is value 3's name where a name from the source took `x_3`.
        let mut unnamed = Counts::default();
        ["x_1", "x_2", "x_3_1"].into_iter().for_each(|name| unnamed.add(&Name::from(name)));
        let has_effect = |e: &Expr| e.any(&|e| matches!(e, Expr::Call(c) if &*c.callee == "f" || &*c.callee == "g"));
        inline(&mut function, unnamed, &has_effect);
        print::function(&function).0
    }

    #[test]
    fn a_chain_of_lets_used_once_next_becomes_one_expression() {
        let body = vec![
            let_("x_1", Expr::binary(BinaryOp::Less, ident("a"), ident("b"))),
            let_("x_2", Expr::binary(BinaryOp::LogicalOr, ident("x_1"), ident("c"))),
            Stmt::If { condition: ident("x_2"), accept: vec![Stmt::Break], reject: vec![] },
        ];
        assert!(inlined(body).contains("    if a < b || c {"));
        // A name from the source stays.
        let body = vec![let_("named", ident("a")), Stmt::Return(Some(ident("named")))];
        assert!(inlined(body).contains("let named = a;"));
        // So does a constant, whose `let` keeps its use from being evaluated at shader creation.
        let constant = Expr::Literal(Literal::F32(1.0f32.to_bits()));
        let body = vec![let_("x_1", constant), Stmt::Return(Some(call("quantizeToF16", vec![ident("x_1")])))];
        assert!(inlined(body).contains("let x_1 = 1.0f;"));
    }

    #[test]
    fn an_unnamed_value_numbered_past_a_taken_name_is_inlined_and_the_taken_name_stays() {
        let body = vec![
            let_("x_3", ident("a")),
            let_("x_3_1", plus(ident("b"), ident("x_3"))),
            Stmt::Return(Some(ident("x_3_1"))),
        ];
        let text = inlined(body);
        assert!(text.contains("let x_3 = a;"), "{text}");
        assert!(text.contains("return b + x_3;"), "{text}");
    }

    #[test]
    fn a_call_goes_where_its_result_is_used_only_past_the_function_s_own_values() {
        // `acc` is the function's own: the call cannot change it.
        let body = vec![
            let_("x_1", call("f", vec![])),
            Stmt::Assign { target: ident("acc"), value: plus(ident("acc"), ident("x_1")) },
        ];
        assert!(inlined(body).contains("acc = acc + f();"));
        // A global read before the use could be what the call writes.
        let body = vec![
            let_("x_1", call("f", vec![])),
            Stmt::Assign { target: ident("acc"), value: plus(ident("glob"), ident("x_1")) },
        ];
        assert!(inlined(body).contains("let x_1 = f();"));
        // A constructor computes from its operands alone; a builtin may read what the call writes.
        for (callee, text) in [("vec3<f32>", "acc = vec3<f32>(acc) + f();"), ("textureLoad", "let x_1 = f();")] {
            let body = vec![
                let_("x_1", call("f", vec![])),
                Stmt::Assign { target: ident("acc"), value: plus(call(callee, vec![ident("acc")]), ident("x_1")) },
            ];
            assert!(inlined(body).contains(text), "{callee}");
        }
        // Nor past another call, nor into the operand of `||` that may not run.
        let body = vec![let_("x_1", call("f", vec![])), Stmt::Call(call("g", vec![call("g", vec![]), ident("x_1")]))];
        assert!(inlined(body).contains("let x_1 = f();"));
        let either = Expr::binary(BinaryOp::LogicalOr, ident("acc"), ident("x_1"));
        let body = vec![let_("x_1", call("f", vec![])), Stmt::Return(Some(either))];
        assert!(inlined(body).contains("let x_1 = f();"));
    }

    #[test]
    fn a_subgroup_or_derivative_value_does_not_move_into_an_operand_that_may_not_run() {
        for callee in ["subgroupAdd", "dpdx"] {
            let right = |operand| Expr::binary(BinaryOp::LogicalAnd, ident("c"), operand);
            let body = vec![let_("x_1", call(callee, vec![ident("a")])), Stmt::Return(Some(right(ident("x_1"))))];
            assert!(inlined(body).contains(&format!("let x_1 = {callee}(a);")), "{callee}");
            // Where it runs unconditionally all the same, it goes.
            let body =
                vec![let_("x_1", call(callee, vec![ident("a")])), Stmt::Return(Some(plus(ident("x_1"), ident("a"))))];
            assert!(inlined(body).contains(&format!("return {callee}(a) + a;")), "{callee}");
        }
    }

    #[test]
    fn a_read_does_not_move_past_a_call_and_a_value_used_twice_or_later_stays() {
        let read = Expr::index(ident("glob"), Expr::Literal(Literal::I32(0)));
        let body = vec![let_("x_1", read.clone()), Stmt::Return(Some(plus(call("g", vec![]), ident("x_1"))))];
        assert!(inlined(body).contains("let x_1 = glob[0i];"));
        let body = vec![let_("x_1", read.clone()), Stmt::Return(Some(plus(ident("x_1"), call("g", vec![]))))];
        assert!(inlined(body).contains("return glob[0i] + g();"));
        let body = vec![let_("x_1", read.clone()), Stmt::Return(Some(plus(ident("x_1"), ident("x_1"))))];
        assert!(inlined(body).contains("let x_1 = glob[0i];"));
        let body = vec![let_("x_1", read), Stmt::Call(call("g", vec![])), Stmt::Return(Some(ident("x_1")))];
        assert!(inlined(body).contains("let x_1 = glob[0i];"));
    }

    #[test]
    fn a_let_goes_past_the_lets_that_go_into_its_use_before_it() {
        // `x_2` goes into the return first; `x_1`'s read is then still evaluated before `g()`.
        let read = Expr::index(ident("glob"), Expr::Literal(Literal::I32(0)));
        let body = vec![
            let_("x_1", read.clone()),
            let_("x_2", call("g", vec![])),
            Stmt::Return(Some(plus(ident("x_1"), ident("x_2")))),
        ];
        assert!(inlined(body).contains("    return glob[0i] + g();"));
        // Two calls keep their order: `x_2`'s may go in, but then `x_1`'s would run after it.
        let body = vec![
            let_("x_1", call("f", vec![])),
            let_("x_2", call("g", vec![])),
            Stmt::Return(Some(plus(ident("x_2"), ident("x_1")))),
        ];
        let text = inlined(body);
        assert!(text.contains("let x_1 = f();") && text.contains("return g() + x_1;"), "{text}");
        // Nor does a read move past a call that the use evaluates first.
        let body = vec![
            let_("x_1", read),
            let_("x_2", call("g", vec![])),
            Stmt::Return(Some(plus(ident("x_2"), ident("x_1")))),
        ];
        assert!(inlined(body).contains("let x_1 = glob[0i];"));
    }
}
