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
//!
//! The checks that look beyond the loop's `continuing` and the body's first statements answer
//! from what the walk of `inline_lets::inline` counted of each name (`Uses`), kept bounds through
//! the renames here: a variable mentioned, in all the function, only where the loop is known to
//! mention it is mentioned nowhere else, one assigned only by `p = v;` is written nowhere else,
//! one whose first mention comes after the loop's start is not mentioned before it. Where the
//! counts do not tell, the statements are walked.

use crate::name_hash::{NameMap, NameSet};

use super::ast::{Expr, Function, Init, Name, Stmt, Update};
use super::inline_lets::Uses;

/// Rewrites every loop of `function` as described above, given the function's `var`s whose
/// address is never taken and what was counted of its names (which `inline_lets::inline` has
/// just found).
pub(crate) fn elide(function: &mut Function, vars: &NameSet<Name>, uses: Uses) {
    // No candidate, nothing to rename: the loops need not be visited.
    if vars.is_empty() {
        return;
    }
    let mut elider = Elider {
        vars,
        uses,
        read_straight: NameSet::default(),
        renames: NameMap::default(),
        position: 0,
        carried: Vec::new(),
    };
    elider.list(&mut function.body);
    if !elider.renames.is_empty() {
        function.body.iter_mut().for_each(|s| rename_stmt(s, &Renames::All(&elider.renames)));
    }
}

struct Elider<'a> {
    vars: &'a NameSet<Name>,
    uses: Uses,
    /// The variables read straight in place of a `let p = v;`: each takes the name `p`.
    read_straight: NameSet<Name>,
    /// Those of them renamed by a walk of the whole function at the end: those whose mentions and
    /// declaration were not all found, or whose new name may be asked about before then.
    renames: NameMap<Name, Name>,
    /// The position (`Uses::position`) of the statement last visited.
    position: u32,
    /// The variables renamed `p` for a `p = v;` carried out of their loop, in the order renamed.
    carried: Vec<Name>,
}

/// What the checks of one list ask of it beyond a loop: its declarations, and the statements
/// mentioning or writing a name, as they were when its first loop with a `p = v;` candidate was
/// reached (as the rewrite has always taken them, so that the same loops are rewritten).
#[derive(Default)]
struct ListFacts {
    /// The index in the list of the last `var` declaring each of the function's variables, and
    /// whether it has a value; found once asked.
    declarations: Option<NameMap<Name, (usize, bool)>>,
    /// How many variables were renamed for a carried `p = v;` (`Elider::carried`) when the
    /// list's first loop with a candidate was reached.
    since: Option<usize>,
    /// The variables renamed since then, with the index of the statement of the list where
    /// they were: it still counts as mentioning and writing them.
    renamed: Vec<(usize, Name)>,
}

impl ListFacts {
    fn declarations(&mut self, stmts: &[Stmt], vars: &NameSet<Name>) -> &NameMap<Name, (usize, bool)> {
        self.declarations.get_or_insert_with(|| {
            let mut declarations = NameMap::default();
            for (index, stmt) in stmts.iter().enumerate() {
                if let Stmt::Var { name, value, .. } = stmt.unnoted()
                    && vars.contains(name)
                {
                    declarations.insert(name.clone(), (index, value.is_some()));
                }
            }
            declarations
        })
    }

    fn renamed_in(&self, index: usize, name: &str) -> bool {
        self.renamed.iter().any(|(at, renamed)| *at == index && **renamed == *name)
    }
}

/// A `let p = v;` that may go: its index in the loop body, `p`, `v`, and whether `v` is
/// mentioned nowhere but in the `let` and the loop's `continuing` and `break if`.
struct Snapshot {
    at: usize,
    value: Name,
    var: Name,
    alone: bool,
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

impl Elider<'_> {
    fn list(&mut self, stmts: &mut Vec<Stmt>) {
        let mut facts = ListFacts::default();
        // The declarations of the `var`s that took a phi variable's place, dropped at the end.
        let mut dropped = Vec::new();
        for index in 0..stmts.len() {
            let number = Uses::position(stmts[index].unnoted(), &mut self.position);
            let carried_before = self.carried.len();
            stmts[index].unnoted_mut().for_each_list_mut(&mut |list| self.list(list));
            if let Stmt::Loop { .. } = stmts[index].unnoted() {
                self.in_loop(stmts, index, number, &mut facts, &mut dropped);
            }
            if let Some(since) = facts.since
                && self.carried.len() > carried_before
            {
                let renamed = self.carried[since.max(carried_before)..].iter().map(|name| (index, name.clone()));
                facts.renamed.extend(renamed);
            }
        }
        if !dropped.is_empty() {
            dropped.sort_unstable();
            dropped.dedup();
            let mut dropped = dropped.into_iter().peekable();
            let mut index = 0;
            stmts.retain(|_| {
                index += 1;
                dropped.next_if_eq(&(index - 1)).is_none()
            });
        }
    }

    /// Rewrites the loop at `index` of `stmts`, at position `number`.
    fn in_loop(
        &mut self,
        stmts: &mut [Stmt],
        index: usize,
        number: u32,
        facts: &mut ListFacts,
        dropped: &mut Vec<usize>,
    ) {
        // The value's reads become the variable's once it takes the value's name.
        while let Some(snapshot) = self.snapshot(&stmts[index]) {
            self.drop_snapshot(stmts, index, snapshot, facts);
        }
        if carried_candidates(&stmts[index], self.vars).next().is_none() {
            return;
        }
        facts.since.get_or_insert(self.carried.len());
        facts.declarations(stmts, self.vars);
        while let Some(carried) = self.carried_out(stmts, index, number, facts) {
            // The variable is mentioned only by its declaration and the loop, where it is
            // renamed in place: the rest of the function mentions the value, whose name it takes.
            let Stmt::Loop { body, continuing, .. } = stmts[index].unnoted_mut() else { unreachable!() };
            body.remove(carried.at);
            let rename = Renames::One(&carried.var, &carried.value);
            continuing.iter_mut().for_each(|s| rename_stmt(s, &rename));
            rename_stmt(&mut stmts[carried.var_declaration], &rename);
            self.uses.rename(&carried.var, &carried.value);
            facts.renamed.push((carried.var_declaration, carried.var.clone()));
            self.carried.push(carried.var);
            dropped.push(carried.value_declaration);
        }
    }

    /// The first `let p = v;` of the body of the loop `stmt` that may go.
    fn snapshot(&self, stmt: &Stmt) -> Option<Snapshot> {
        let Stmt::Loop { body, continuing, break_if } = stmt.unnoted() else { return None };
        body.iter().enumerate().find_map(|(at, stmt)| {
            let Stmt::Let { name, value: Expr::Ident(var), .. } = stmt.unnoted() else { return None };
            // A variable takes one name: a loop the structurizer wrote twice (a block reached from
            // two cases, say) keeps its second snapshot, which reads the renamed variable.
            if !self.vars.contains(var) || self.read_straight.contains(var) {
                return None;
            }
            // One assignment in the `continuing` changes it; nothing after that reads the value.
            let k = only_assignment(continuing, var)?;
            let written_elsewhere = continuing.iter().any(|s| !assigns(s, var) && writes(s, var));
            let read_after = continuing[k + 1..].iter().any(|s| mentions(s, name))
                || break_if.as_ref().is_some_and(|c| c.mentions(name));
            if written_elsewhere || read_after {
                return None;
            }
            // The body mentions the variable only here.
            let alone = self.mentioned_only_in(var, std::slice::from_ref(stmt), continuing, break_if.as_ref());
            let in_body = !alone && body.iter().enumerate().any(|(i, s)| i != at && mentions(s, var));
            (!in_body).then(|| Snapshot { at, value: name.clone(), var: var.clone(), alone })
        })
    }

    /// Drops the `let p = v;` of `snapshot` from the loop at `index` of `stmts`, `v` taking the
    /// name `p`: at once, where `v` is mentioned only in the loop and declared once, in the list,
    /// and `p` is declared only by the `let` (so that no check asks about either name again);
    /// else by the walk at the end.
    fn drop_snapshot(&mut self, stmts: &mut [Stmt], index: usize, snapshot: Snapshot, facts: &mut ListFacts) {
        let Snapshot { at, value, var, alone } = snapshot;
        let Stmt::Loop { body, .. } = stmts[index].unnoted_mut() else { unreachable!() };
        body.remove(at);
        self.read_straight.insert(var.clone());
        let declared_once = |name: &str| self.uses.get(name).is_some_and(|count| count.declarations == 1);
        let declaration = (alone && declared_once(&var) && declared_once(&value))
            .then(|| facts.declarations(stmts, self.vars).get(&var).map(|&(at, _)| at))
            .flatten()
            .filter(|&at| at < index && matches!(stmts[at].unnoted(), Stmt::Var { name, .. } if *name == var));
        let Some(declaration) = declaration else {
            self.renames.insert(var, value);
            return;
        };
        let rename = Renames::One(&var, &value);
        let (before, rest) = stmts.split_at_mut(index);
        rename_stmt(&mut before[declaration], &rename);
        let Stmt::Loop { continuing, break_if, .. } = rest[0].unnoted_mut() else { unreachable!() };
        continuing.iter_mut().for_each(|s| rename_stmt(s, &rename));
        break_if.iter_mut().for_each(|c| rename_expr(c, &rename));
        self.uses.rename(&var, &value);
    }

    /// Whether `name` is mentioned, in the whole function, only in `body` (some of a loop's),
    /// `continuing` and `break_if`.
    fn mentioned_only_in(&self, name: &str, body: &[Stmt], continuing: &[Stmt], break_if: Option<&Expr>) -> bool {
        let mut known = 0;
        let mut count = |ident: &str| known += u32::from(ident == name);
        body.iter().chain(continuing).for_each(|s| s.for_each_ident(&mut count));
        break_if.iter().for_each(|e| e.for_each_ident(&mut count));
        self.uses.get(name).is_some_and(|uses| uses.mentions == known)
    }

    /// The first `p = v;` of the body of the loop at `index` of `stmts`, at position `number`,
    /// that may go, as described above.
    fn carried_out(&self, stmts: &[Stmt], index: usize, number: u32, facts: &ListFacts) -> Option<Carried> {
        let Stmt::Loop { body, continuing, .. } = stmts[index].unnoted() else { return None };
        let declarations = facts.declarations.as_ref()?;
        carried_candidates(&stmts[index], self.vars).find_map(|(at, value, var)| {
            if self.read_straight.contains(value) || self.read_straight.contains(var) {
                return None;
            }
            // Both declared before the loop in its list, `p` without a value.
            let declared = |name: &Name| declarations.get(name).filter(|(at, _)| *at < index);
            let (Some(&(value_declaration, false)), Some(&(var_declaration, _))) = (declared(value), declared(var))
            else {
                return None;
            };
            // In the loop, the variable holds the value until its one assignment in the
            // `continuing`; the value is written only first, by `p = v;`, and not read after that
            // assignment.
            let k = only_assignment(continuing, var)?;
            let in_continuing = continuing.iter().any(|s| (!assigns(s, var) && writes(s, var)) || writes(s, value))
                || continuing[k + 1..].iter().any(|s| mentions(s, value));
            if in_continuing || body[..at].iter().any(|s| mentions(s, value)) {
                return None;
            }
            // `v` mentioned by no other statement of the body or the list.
            let assignment = std::slice::from_ref(&body[at]);
            let var_alone = self.mentioned_only_in(var, assignment, continuing, None)
                || !(body.iter().enumerate().any(|(i, s)| i != at && mentions(s, var))
                    || any_but(stmts, index, |j, s| facts.renamed_in(j, var) || mentions(s, var)));
            // `p` written by no other statement of the body or the list.
            let value_written_once = self.uses.get(value).is_some_and(|uses| uses.assignments == 1) // `p = v;`
                || !(body.iter().enumerate().any(|(i, s)| i != at && writes(s, value))
                    || any_but(stmts, index, |j, s| facts.renamed_in(j, value) || assigns_anywhere(s, value)));
            // `p` not mentioned before the loop in its list.
            let value_after = self.uses.get(value).is_some_and(|uses| uses.first_mention >= number)
                || !(0..index).rev().any(|j| facts.renamed_in(j, value) || mentions(&stmts[j], value));
            (var_alone && value_written_once && value_after).then(|| Carried {
                at,
                value: value.clone(),
                var: var.clone(),
                value_declaration,
                var_declaration,
            })
        })
    }
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

/// Whether a statement of `stmts` but the one at `index` satisfies `f` (given its index and
/// it), those nearest first.
fn any_but(stmts: &[Stmt], index: usize, f: impl Fn(usize, &Stmt) -> bool) -> bool {
    (0..index).rev().chain(index + 1..stmts.len()).any(|at| f(at, &stmts[at]))
}

/// The index of the one statement of `stmts` that assigns `var`, if only one does.
fn only_assignment(stmts: &[Stmt], var: &str) -> Option<usize> {
    let mut assignments = stmts.iter().enumerate().filter(|(_, s)| assigns(s, var));
    match (assignments.next(), assignments.next()) {
        (Some((k, _)), None) => Some(k),
        _ => None,
    }
}

fn assigns(stmt: &Stmt, var: &str) -> bool {
    matches!(stmt.unnoted(), Stmt::Assign { target: Expr::Ident(target), .. } if **target == *var)
}

fn mentions(stmt: &Stmt, name: &str) -> bool {
    let mut found = false;
    stmt.for_each_ident(&mut |ident| found |= ident == name);
    found
}

/// Whether `stmt`, or a statement in it, assigns `name` (the root of its target).
fn assigns_anywhere(stmt: &Stmt, name: &str) -> bool {
    let mut found = false;
    stmt.for_each_assigned(&mut |written| found |= written == name);
    found
}

fn writes(stmt: &Stmt, name: &str) -> bool {
    let mut found = false;
    stmt.for_each_written(&mut |written| found |= written == name);
    found
}

/// Names, and the names they take.
enum Renames<'a> {
    /// One name: compared, not hashed.
    One(&'a Name, &'a Name),
    All(&'a NameMap<Name, Name>),
}

/// Renames, through `stmt`, every identifier and declaration `renames` maps.
fn rename_stmt(stmt: &mut Stmt, renames: &Renames) {
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

fn rename_name(name: &mut Name, renames: &Renames) {
    let new = match renames {
        Renames::One(from, to) => (*name == **from).then_some(*to),
        Renames::All(renames) => renames.get(name),
    };
    if let Some(new) = new {
        *name = new.clone();
    }
}

fn rename_expr(expr: &mut Expr, renames: &Renames) {
    match expr {
        Expr::Ident(name) => rename_name(name, renames),
        _ => expr.operands_mut().iter_mut().for_each(|operand| rename_expr(operand, renames)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::wgsl::ast::BinaryOp;
    use crate::wgsl::inline_lets::{self, Counts};
    use crate::wgsl::print;

    fn ident(name: &str) -> Expr {
        Expr::ident(name)
    }

    fn plus_one(name: &str) -> Expr {
        Expr::binary(BinaryOp::Add, ident(name), ident("one"))
    }

    fn assign(target: &str, value: Expr) -> Stmt {
        Stmt::Assign { target: ident(target), value }
    }

    fn var(name: &str, value: Option<Expr>) -> Stmt {
        Stmt::Var { name: name.into(), ty: Some("u32".into()), value }
    }

    fn let_(name: &str, value: Expr) -> Stmt {
        Stmt::Let { name: name.into(), ty: None, value }
    }

    fn exit_if(condition: Expr) -> Stmt {
        Stmt::If { condition, accept: vec![Stmt::Break], reject: vec![] }
    }

    fn loop_(body: Vec<Stmt>, continuing: Vec<Stmt>) -> Stmt {
        Stmt::Loop { body, continuing, break_if: None }
    }

    /// `body` as a function's, elided, as text: with what the walk of `inline_lets::inline` counts
    /// of its names, and again with nothing counted (every check walking the statements), which
    /// must rewrite it alike.
    fn elided_body(body: Vec<Stmt>) -> String {
        let elided = |counted: bool| {
            let mut function = Function {
                attributes: vec![],
                name: "h".into(),
                params: vec![],
                result: None,
                body: body.clone(),
                exits: vec![],
            };
            // Nothing inlined: no unnamed value is counted.
            let found = inline_lets::inline(&mut function, Counts::default(), &|_| false);
            elide(&mut function, &found.vars, if counted { found.uses } else { Uses::none() });
            print::function(&function).0
        };
        let text = elided(true);
        assert_eq!(text, elided(false));
        text
    }

    /// `var s: u32; [before] var s_phi = 0u; loop { s = s_phi; [body] continuing { s_phi = s + 1u;
    /// [continuing] } [break_if] } [after]`, elided, as text.
    fn elided(before: Vec<Stmt>, body: Vec<Stmt>, continuing: Vec<Stmt>, break_if: Option<Expr>) -> String {
        let mut list = vec![var("s", None), var("t", None)];
        list.extend(before);
        list.push(var("s_phi", Some(ident("zero"))));
        let mut loop_body = vec![assign("s", ident("s_phi"))];
        loop_body.extend(body);
        let mut loop_continuing = vec![assign("s_phi", plus_one("s"))];
        loop_continuing.extend(continuing);
        list.push(Stmt::Loop { body: loop_body, continuing: loop_continuing, break_if });
        list.push(Stmt::Return(Some(ident("s"))));
        elided_body(list)
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

    fn has_word(text: &str, word: &str) -> bool {
        text.split(|c: char| !c.is_alphanumeric() && c != '_').any(|w| w == word)
    }

    /// `var v = 0u; loop { let p = v; [body] continuing { v = p + 1u; } }`.
    fn counted_loop(v: &str, p: &str, body: Vec<Stmt>) -> Vec<Stmt> {
        let mut loop_body = vec![let_(p, ident(v)), exit_if(ident(p))];
        loop_body.extend(body);
        vec![var(v, Some(ident("zero"))), loop_(loop_body, vec![assign(v, plus_one(p))])]
    }

    #[test]
    fn a_phi_is_read_from_its_variable_unless_a_nested_statement_also_mentions_the_variable() {
        let text = elided_body(counted_loop("v", "p", vec![]));
        assert!(
            text.contains("var p: u32 = zero;") && text.contains("p = p + one;") && !has_word(&text, "v"),
            "{text}"
        );
        // Mentioned in a loop nested in the body, the variable may change before the value's last read.
        let nested = loop_(vec![exit_if(ident("v"))], vec![]);
        let text = elided_body(counted_loop("v", "p", vec![nested, Stmt::Call(ident("p"))]));
        assert!(text.contains("let p = v;"), "{text}");
    }

    #[test]
    fn a_loop_written_twice_reads_its_variable_once_and_keeps_its_second_snapshot() {
        // Both copies read `v`, declared once: the first reads it straight, the second keeps its
        // `let`, which reads the variable as renamed.
        let [declaration, copy] = <[Stmt; 2]>::try_from(counted_loop("v", "p", vec![])).ok().unwrap();
        let case = |body| crate::wgsl::ast::SwitchCase { selectors: vec![ident("one")], default: false, body };
        let switch = Stmt::Switch {
            selector: ident("k"),
            cases: vec![case(vec![copy.clone()]), crate::wgsl::ast::SwitchCase { default: true, ..case(vec![copy]) }],
        };
        let text = elided_body(vec![declaration, switch]);
        assert_eq!(text.matches("let p = p;").count(), 1, "{text}");
        assert!(text.contains("var p: u32 = zero;") && !has_word(&text, "v"), "{text}");
    }

    #[test]
    fn a_value_read_just_before_its_loop_keeps_its_own_variable() {
        // The statement, or the `let`, right before the loop reads the value's zero, not the
        // variable's first value: their positions are the nearest to the loop's.
        for read in [assign("t", ident("x")), let_("y", ident("x"))] {
            let body = vec![
                var("t", None),
                var("x", None),
                var("x_phi", Some(ident("zero"))),
                read,
                loop_(vec![assign("x", ident("x_phi")), exit_if(ident("x"))], vec![assign("x_phi", plus_one("x"))]),
                Stmt::Return(Some(ident("x"))),
            ];
            let text = elided_body(body);
            assert!(text.contains("x = x_phi;"), "{text}");
        }
    }

    /// Loops nested `depth` deep, each counting `i{depth}` and carrying `x{depth}` out, then
    /// written to `t`: `var x: u32; var i_phi = 0u; var x_phi = start; loop { let i = i_phi;
    /// x = x_phi; .. [nested] .. continuing { i_phi = i + 1u; x_phi = x + 1u; } } t = x;`.
    fn nest(depth: usize) -> Vec<Stmt> {
        let [i, x] = [format!("i{depth}"), format!("x{depth}")];
        let [i_phi, x_phi] = [format!("{i}_phi"), format!("{x}_phi")];
        let mut body = vec![let_(&i, ident(&i_phi)), assign(&x, ident(&x_phi)), exit_if(ident(&i))];
        if depth > 1 {
            body.push(Stmt::If { condition: ident(&x), accept: nest(depth - 1), reject: vec![] });
        }
        let continuing = vec![assign(&i_phi, plus_one(&i)), assign(&x_phi, plus_one(&x))];
        vec![
            var(&x, None),
            var(&i_phi, Some(ident("zero"))),
            var(&x_phi, Some(ident("start"))),
            loop_(body, continuing),
            assign("t", ident(&x)),
        ]
    }

    #[test]
    fn loops_nested_in_loops_each_read_their_variables_straight() {
        let mut body = vec![var("t", None)];
        body.extend(nest(3));
        let text = elided_body(body);
        assert!(!text.contains("_phi") && !text.contains("let "), "{text}");
        assert!(
            text.contains("        if x3 {\n            var i2: u32 = zero;\n            var x2: u32 = start;"),
            "{text}"
        );
    }
}
