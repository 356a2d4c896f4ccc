//! Where local variables are declared. The lowering declares each `var` at the start of a scope
//! (a SPIR-V function's own variables, phis, values that outlive their scope); here each moves
//! into the innermost scope holding every use of it, and down to the assignment that first gives
//! it a value, where that is the first thing to mention it: `var i = 0i;`, not `var i: i32;`
//! and, statements later, `i = 0i;`.

use crate::name_hash::{NameMap, NameSet};

use super::ast::{Expr, Name, NameFilter, Stmt};

/// Moves each of the first `declared` statements, `var`s uninitialized or initialized without
/// effect, down to the statement that first mentions the variable when that assigns it (its
/// initial value then unused): `var x: T = value;`. Not past a `continue` (of the loop whose body
/// `stmts` are) when `in_continuing` says the loop's `continuing` mentions the variable: WGSL
/// forbids skipping such a declaration. A variable written once, there, is a `let`, unless what
/// follows `stmts` writes it too (`written_after`: a loop's `continuing`). One walk over the
/// statements finds every variable's first mention, so the cost does not grow with variables
/// times statements.
pub(crate) fn initialize_at_first_assignment(
    stmts: &mut Vec<Stmt>,
    declared: usize,
    in_continuing: &dyn Fn(&str) -> bool,
    written_after: &dyn Fn(&str) -> bool,
) {
    let (first, _) = walk_mentions(stmts, declared, false);
    initialize(stmts, &first, in_continuing, written_after);
}

/// [`initialize_at_first_assignment`] of a function's top list (nothing follows it), given the
/// walk of all of it ([`MentionWalk::top`]), which finds for [`sink`] too how the statements
/// mention each declaration that stays: on a long function, a walk of all of it that `sink` then
/// need not repeat.
pub(crate) fn initialize_function_body(stmts: &mut Vec<Stmt>, declared: usize, walk: MentionWalk) -> TopMentions {
    // The lowering's walk found the list's declarations before the list was done.
    debug_assert_eq!(walk.declared, declared);
    let (first, mentions) = walk.finish();
    // No loop holds the list, so no `continue` leaves its statements: none need be looked for.
    let moved = initialize(stmts, &first, &|_| false, &|_| false);
    TopMentions(staying(mentions, &moved))
}

/// For each of the `var`s a list starts with, the index of the first statement after them that
/// mentions it, if one does.
type FirstMentions = Vec<Option<usize>>;

/// How the statements after a list's declarations mention one of them: the first to, and
/// whether another does too.
#[derive(Clone, Copy, Debug)]
enum Mention {
    Never,
    Once(usize),
    Several(usize),
}

impl Mention {
    fn first(self) -> Option<usize> {
        match self {
            Mention::Never => None,
            Mention::Once(index) | Mention::Several(index) => Some(index),
        }
    }
}

/// For each `var` a function's top list starts with once [`initialize_function_body`] is done,
/// how the statements after them mention it.
pub(crate) struct TopMentions(Vec<Mention>);

/// The mentions of the declarations that stay when those `moved` (by declaration; none if
/// empty) leave the list: only declarations move out, all before the statements that mention
/// them, which each move up by that many.
fn staying(mentions: Vec<Mention>, moved: &[bool]) -> Vec<Mention> {
    let shift = moved.iter().filter(|&&moved| moved).count();
    if shift == 0 {
        return mentions;
    }
    mentions
        .into_iter()
        .zip(moved)
        .filter(|&(_, &moved)| !moved)
        .map(|(mention, _)| match mention {
            Mention::Never => Mention::Never,
            Mention::Once(index) => Mention::Once(index - shift),
            Mention::Several(index) => Mention::Several(index - shift),
        })
        .collect()
}

/// For each of the first `declared` statements, the statement after them that first mentions
/// its variable, if any; and how the statements after all of them mention it. The walk ends once
/// every variable has been mentioned (`until_settled`: and by two statements after the
/// declarations, when nothing more can change): usually a few statements in. A variable whose
/// first mention is the value of a later one of them (`var b = a;`, the copy an
/// OpCompositeInsert of a loaded variable makes) is read before anything assigns it, so it gets
/// no first mention: it stays where it is, holding its initial value.
fn walk_mentions(stmts: &[Stmt], declared: usize, until_settled: bool) -> (FirstMentions, Vec<Mention>) {
    // Most scopes declare nothing: then neither the filter need be made nor a statement walked.
    if declared == 0 {
        return (Vec::new(), Vec::new());
    }
    let mut walk = MentionWalk::new(stmts, declared, until_settled);
    walk.walk(stmts);
    walk.finish()
}

/// [`walk_mentions`], taking the statements as they come: the lowering walks a function's top
/// list while it makes it, each statement as soon as it is final, when it is still in the cache
/// (walked after, the whole of a long function's tree came from memory again: a third of the
/// walk's time).
pub(crate) struct MentionWalk {
    /// The declared variables, by name, to their index, and a filter of their names to pass each
    /// identifier through before looking it up.
    vars: NameMap<Name, usize>,
    filter: NameFilter,
    declared: usize,
    until_settled: bool,
    first: FirstMentions,
    mentions: Vec<Mention>,
    unmentioned: usize,
    unsettled: usize,
    /// The index of the next statement to walk.
    next: usize,
}

impl MentionWalk {
    /// The walk of a list whose first `declared` statements, of `stmts`, declare.
    fn new(stmts: &[Stmt], declared: usize, until_settled: bool) -> MentionWalk {
        let mut filter = NameFilter::default();
        let mut vars = NameMap::default();
        for (at, stmt) in stmts[..declared].iter().enumerate() {
            if let Stmt::Var { name, .. } = stmt.unnoted() {
                filter.insert(name);
                vars.insert(name.clone(), at);
            }
        }
        let unmentioned = vars.len();
        MentionWalk {
            vars,
            filter,
            declared,
            until_settled,
            first: vec![None; declared],
            mentions: vec![Mention::Never; declared],
            unmentioned,
            unsettled: unmentioned,
            next: 1,
        }
    }

    /// The walk of a function's top list (for [`initialize_function_body`]).
    pub(crate) fn top(stmts: &[Stmt], declared: usize) -> MentionWalk {
        MentionWalk::new(stmts, declared, true)
    }

    /// Walks the statements of `stmts`, the list's first ones, not walked yet.
    pub(crate) fn walk(&mut self, stmts: &[Stmt]) {
        let Self { vars, filter, declared, until_settled, first, mentions, unmentioned, unsettled, next } = self;
        for (index, stmt) in stmts.iter().enumerate().skip(*next) {
            if *unmentioned == 0 && (!*until_settled || *unsettled == 0) {
                break;
            }
            stmt.for_each_ident(&mut |ident| {
                if filter.may_hold(ident)
                    && let Some(&at) = vars.get(ident)
                {
                    if first[at].is_none() {
                        first[at] = Some(index);
                        *unmentioned -= 1;
                    }
                    if index >= *declared {
                        mentions[at] = match mentions[at] {
                            Mention::Never => Mention::Once(index),
                            Mention::Once(only) if only != index => {
                                *unsettled -= 1;
                                Mention::Several(only)
                            }
                            mention => mention,
                        };
                    }
                }
            });
        }
        *next = (*next).max(stmts.len());
    }

    fn finish(self) -> (FirstMentions, Vec<Mention>) {
        let MentionWalk { declared, mut first, mentions, .. } = self;
        for index in &mut first {
            *index = index.filter(|&index| index >= declared);
        }
        (first, mentions)
    }
}

/// [`initialize_at_first_assignment`] of the `var`s `stmts` starts with, one per entry of
/// `first_mentions`, given the statement first mentioning each (from [`walk_mentions`]).
/// Returns which of them moved (by declaration; none if empty).
fn initialize(
    stmts: &mut Vec<Stmt>,
    first_mentions: &[Option<usize>],
    in_continuing: &dyn Fn(&str) -> bool,
    written_after: &dyn Fn(&str) -> bool,
) -> Vec<bool> {
    let declared = first_mentions.len();
    if declared == 0 {
        return Vec::new();
    }
    // A variable that nothing writes after it is initialized (nor takes the address of) is a
    // `let`: a phi that became `a || b`, say. Only scalars, vectors and matrices: dynamic
    // indexing of an array value is not for every WGSL implementation. Such a candidate is known
    // at its first mention; nothing before that writes it, so its writes are counted from there.
    let initializing = |index: usize, name: &str| matches!(stmts[index].unnoted(), Stmt::Assign { target: Expr::Ident(t), value } if **t == *name && !value.mentions(name));
    let plain = ["bool", "i32", "u32", "f32", "f16", "vec", "mat"];
    let is_candidate = |index: usize, blocked: bool, at: usize| {
        let Stmt::Var { name, ty, .. } = stmts[at].unnoted() else { return false };
        let plain = ty.as_ref().is_some_and(|ty| plain.iter().any(|p| ty.starts_with(p)));
        // A loop's `continuing` may write it too.
        plain && !blocked && initializing(index, name) && !written_after(name)
    };
    // The variables in the order of their first mentions.
    let mut by_mention: Vec<(usize, usize)> =
        first_mentions.iter().enumerate().filter_map(|(at, index)| index.map(|index| (index, at))).collect();
    by_mention.sort_unstable();
    // For each variable, its first mention and whether a `continue` before that keeps it where it
    // is; from its first mention on, each candidate's writes (its initializing assignment must be
    // the one). Statements are walked only for what they can tell: while a candidate is
    // undecided, for its writes; for a `continue`, only up to the first mention of a variable
    // the `continuing` mentions, and no further once one is found.
    let mut first: Vec<Option<(usize, bool)>> = vec![None; declared];
    let mut candidates: NameMap<&str, usize> = NameMap::default();
    let mut candidate = vec![false; declared];
    let mut writes = vec![0u32; declared];
    // The candidates not yet written twice.
    let mut undecided = 0;
    fn count(candidates: &NameMap<&str, usize>, name: &str, writes: &mut [u32], undecided: &mut usize) {
        if let Some(&at) = candidates.get(name) {
            writes[at] += 1;
            if writes[at] == 2 {
                *undecided -= 1;
            }
        }
    }
    // Whether a statement before `scanned` may leave by a `continue`.
    let mut continued = false;
    let mut scanned = declared;
    // The statements before `counted` have had their writes counted, or had no candidate to count
    // them for.
    let mut counted = declared;
    let mut by_mention = by_mention.into_iter().peekable();
    while let Some(&(index, _)) = by_mention.peek() {
        for stmt in &stmts[counted..index] {
            if undecided == 0 {
                break;
            }
            stmt.for_each_written(&mut |name| count(&candidates, name, &mut writes, &mut undecided));
        }
        if undecided > 0 {
            // The addresses the statement takes count for the candidates before it; those it
            // first mentions join after (an initializing assignment takes no address of its
            // variable).
            stmts[index].for_each_expr(&mut |expr| {
                expr.for_each_address_taken(&mut |root| count(&candidates, root, &mut writes, &mut undecided))
            });
        }
        while let Some((_, at)) = by_mention.next_if(|&(first_index, _)| first_index == index) {
            let Stmt::Var { name, .. } = stmts[at].unnoted() else { continue };
            let blocked = in_continuing(name) && {
                while !continued && scanned < index {
                    continued = stmts[scanned].may_leave(false, true, false);
                    scanned += 1;
                }
                continued
            };
            first[at] = Some((index, blocked));
            if is_candidate(index, blocked, at) {
                candidates.insert(name, at);
                candidate[at] = true;
                undecided += 1;
            }
        }
        if undecided > 0 {
            stmts[index].for_each_assigned(&mut |name| count(&candidates, name, &mut writes, &mut undecided));
        }
        counted = index + 1;
    }
    // The rest of the statements are counted only until each candidate has a second write.
    for stmt in &stmts[counted..] {
        if undecided == 0 {
            break;
        }
        stmt.for_each_written(&mut |name| count(&candidates, name, &mut writes, &mut undecided));
    }
    // The statements that initialize a variable and become its declaration, as (statement,
    // variable) pairs. A note (`--annotate`) is looked through, so annotating changes nothing
    // else.
    let mut initializes: Vec<(usize, usize)> = Vec::new();
    let mut moved = vec![false; declared];
    for (at, first) in first.into_iter().enumerate() {
        let (Some((index, blocked)), Stmt::Var { name, .. }) = (first, stmts[at].unnoted()) else { continue };
        if blocked {
            continue;
        }
        if initializing(index, name) {
            initializes.push((index, at));
            moved[at] = true;
        }
    }
    if initializes.is_empty() {
        return Vec::new();
    }
    let lets: Vec<bool> = initializes.iter().map(|&(_, at)| candidate[at] && writes[at] == 1).collect();
    drop(candidates);
    // In place: at the top of a huge function a second list would double the peak.
    for ((index, at), is_let) in initializes.into_iter().zip(lets) {
        let Stmt::Var { name, .. } = stmts[at].unnoted() else { continue };
        let name = name.clone();
        let declare = |value: Expr| match is_let {
            true => Stmt::Let { name: name.clone(), ty: None, value },
            false => Stmt::Var { name: name.clone(), ty: None, value: Some(value) },
        };
        let assign = std::mem::replace(&mut stmts[index], Stmt::Break);
        stmts[index] = match assign {
            Stmt::Noted { stmt, note } => match *stmt {
                Stmt::Assign { value, .. } => Stmt::Noted { stmt: Box::new(declare(value)), note },
                other => Stmt::Noted { stmt: Box::new(other), note },
            },
            Stmt::Assign { value, .. } => declare(value),
            other => other,
        };
    }
    let mut index = 0;
    stmts.retain(|_| {
        index += 1;
        !moved.get(index - 1).copied().unwrap_or(false)
    });
    moved
}

/// Moves the `var`s declared at the start of each scope (without a value) into the innermost
/// scope holding every statement that mentions them, and there to their first assignment. A
/// variable moves into a nested scope when every mention of it is in that scope: into an `if` arm
/// or a `switch` case, entered at most once each time the variable's own scope is, always (the
/// variable holds its zero value on entry either way); into a loop body, entered once per
/// iteration, only when each iteration assigns it before anything else mentions it, so that no
/// iteration could see the value of the one before. `top`, what [`initialize_function_body`]
/// found, spares a walk of the body when it starts with the declarations that left.
pub(crate) fn sink(body: &mut Vec<Stmt>, top: Option<TopMentions>) {
    let first = sink_into_scopes(body, &|_| false, top);
    initialize(body, &first, &|_| false, &|_| false);
}

/// `sink` for the scopes nested in `stmts`, after moving declarations from `stmts` into them;
/// `used_after` says which variables what follows `stmts` in their scope uses (a loop's
/// `continuing` after its body, a `break if` after the `continuing`): those stay; `known`, how
/// the statements mention the declarations, if found already. Returns, for each declaration
/// that stays at the start of `stmts`, the statement first mentioning it, for [`initialize`]:
/// the walk looking for moves finds them, so that needs no walk of its own.
fn sink_into_scopes(
    stmts: &mut Vec<Stmt>,
    used_after: &dyn Fn(&str) -> bool,
    known: Option<TopMentions>,
) -> FirstMentions {
    let declared = leading_vars(stmts);
    let mut mentions = match known {
        Some(TopMentions(mentions)) if mentions.len() == declared => mentions,
        _ => walk_mentions(stmts, declared, true).1,
    };
    let moves = moves(stmts, &mentions, used_after);
    // Most lists move nothing: then none need be rebuilt (a long function's is the whole of it).
    if !moves.is_empty() {
        // Into their new scopes, keeping their order; then out of this one.
        let mut moved = vec![false; stmts.len()];
        for &(at, index, scope) in moves.iter().rev() {
            let declaration = stmts[at].clone();
            stmts[index].unnoted_mut().lists_mut()[scope].insert(0, declaration);
            moved[at] = true;
        }
        let mut index = 0;
        stmts.retain(|_| {
            index += 1;
            !moved[index - 1]
        });
        // Nested scopes gain or lose no mention of what stays here.
        mentions = staying(mentions, &moved);
    }
    for stmt in stmts.iter_mut() {
        let stmt = stmt.unnoted_mut();
        if let Stmt::Loop { body, continuing, break_if } = stmt {
            // What the `continuing` and `break if` mention and write matters only to a list that
            // declares something (sinking never adds declarations to the list it starts from).
            if leading_vars(body) == 0 {
                sink_into_scopes(body, &|_| false, None);
            } else {
                let in_continuing = names_in(continuing, None);
                let in_break_if = names_in(&[], break_if.as_ref());
                let used_by_continuing = |name: &str| in_continuing.contains(name) || in_break_if.contains(name);
                let first = sink_into_scopes(body, &used_by_continuing, None);
                let mut written = NameSet::default();
                continuing.iter().for_each(|stmt| stmt.for_each_written(&mut |name| _ = written.insert(name)));
                let written_by_continuing = |name: &str| written.contains(name);
                initialize(body, &first, &used_by_continuing, &written_by_continuing);
            }
            if leading_vars(continuing) == 0 {
                sink_into_scopes(continuing, &|_| false, None);
            } else {
                let in_break_if = names_in(&[], break_if.as_ref());
                let used_by_break_if = |name: &str| in_break_if.contains(name);
                let first = sink_into_scopes(continuing, &used_by_break_if, None);
                initialize(continuing, &first, &|_| false, &|_| false);
            }
            continue;
        }
        stmt.for_each_list_mut(&mut |list| {
            let first = sink_into_scopes(list, &|_| false, None);
            initialize(list, &first, &|_| false, &|_| false);
        });
    }
    mentions.into_iter().map(Mention::first).collect()
}

/// Every identifier the statements and the expression mention.
fn names_in<'a>(stmts: &'a [Stmt], expr: Option<&'a Expr>) -> NameSet<&'a str> {
    let mut names = NameSet::default();
    stmts.iter().for_each(|s| s.for_each_ident(&mut |i| _ = names.insert(i)));
    expr.iter().for_each(|e| e.for_each_ident(&mut |i| _ = names.insert(i)));
    names
}

/// The declarations at the start of `stmts` that can move into a scope of one statement, given
/// how the statements mention each: as (declaration, statement, which of its lists
/// `Stmt::lists_mut` gives).
fn moves(stmts: &[Stmt], mentions: &[Mention], used_after: &dyn Fn(&str) -> bool) -> Vec<(usize, usize, usize)> {
    let mut moves = Vec::new();
    for (at, &mention) in mentions.iter().enumerate() {
        let (Mention::Once(index), Stmt::Var { name, .. }) = (mention, stmts[at].unnoted()) else { continue };
        if used_after(name) {
            continue;
        }
        if let Some(scope) = scope_to_move_into(stmts[index].unnoted(), name) {
            moves.push((at, index, scope));
        }
    }
    moves
}

/// The one scope of `stmt` (as `Stmt::lists_mut` numbers them) that holds every mention of `name`, if
/// the declaration of `name` can move there.
fn scope_to_move_into(stmt: &Stmt, name: &str) -> Option<usize> {
    let holds = |stmts: &[Stmt]| stmts.iter().any(|s| mentions(s, name));
    match stmt {
        Stmt::If { condition, accept, reject } => match (condition.mentions(name), holds(accept), holds(reject)) {
            (false, true, false) => Some(0),
            (false, false, true) => Some(1),
            _ => None,
        },
        Stmt::Switch { selector, cases } => {
            let mut holding = cases.iter().enumerate().filter(|(_, case)| holds(&case.body));
            match (selector.mentions(name), holding.next(), holding.next()) {
                (false, Some((case, _)), None) => Some(case),
                _ => None,
            }
        }
        // The continuing and its `break if` are inside the body's scope.
        Stmt::Loop { body, continuing, break_if } => {
            let in_continuing = holds(continuing) || break_if.as_ref().is_some_and(|c| c.mentions(name));
            assigned_first(body, name, in_continuing).then_some(0)
        }
        _ => None,
    }
}

/// Whether the first statement of the loop `body` that mentions `name` assigns it (from a value
/// that does not mention it), with no `continue` before it if the `continuing` mentions it.
fn assigned_first(body: &[Stmt], name: &str, in_continuing: bool) -> bool {
    for stmt in body {
        if mentions(stmt, name) {
            return matches!(stmt.unnoted(), Stmt::Assign { target: Expr::Ident(t), value } if **t == *name && !value.mentions(name));
        }
        if in_continuing && stmt.may_leave(false, true, false) {
            return false;
        }
    }
    false
}

fn mentions(stmt: &Stmt, name: &str) -> bool {
    let mut found = false;
    stmt.for_each_ident(&mut |ident| found |= ident == name);
    found
}

/// The number of `var`s without a value that `stmts` starts with.
fn leading_vars(stmts: &[Stmt]) -> usize {
    stmts.iter().take_while(|s| matches!(s.unnoted(), Stmt::Var { value: None, .. })).count()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::wgsl::ast::{BinaryOp, Function, Literal};
    use crate::wgsl::print;

    fn var(name: &str) -> Stmt {
        Stmt::Var { name: name.into(), ty: Some("u32".into()), value: None }
    }

    fn set(name: &str, value: u32) -> Stmt {
        Stmt::Assign { target: Expr::ident(name), value: Expr::Literal(Literal::U32(value)) }
    }

    fn read(name: &str) -> Stmt {
        Stmt::Call(Expr::call("use", vec![Expr::ident(name)]))
    }

    fn when(stmts: Vec<Stmt>) -> Stmt {
        Stmt::If { condition: Expr::ident("c"), accept: stmts, reject: vec![] }
    }

    fn forever(body: Vec<Stmt>, continuing: Vec<Stmt>) -> Stmt {
        Stmt::Loop { body, continuing, break_if: Some(Expr::ident("done")) }
    }

    /// The body after `sink`, printed.
    fn sunk(mut body: Vec<Stmt>) -> String {
        sink(&mut body, None);
        let function =
            Function { attributes: vec![], name: "f".into(), params: vec![], result: None, body, exits: vec![] };
        print::function(&function).0
    }

    /// The body after `initialize_at_first_assignment` of its first `declared` statements,
    /// printed.
    fn initialized(body: Vec<Stmt>, declared: usize) -> String {
        initialized_in_loop(body, declared, &|_| true)
    }

    /// [`initialized`] for a loop body whose `continuing` mentions what `in_continuing` says.
    fn initialized_in_loop(mut body: Vec<Stmt>, declared: usize, in_continuing: &dyn Fn(&str) -> bool) -> String {
        initialize_at_first_assignment(&mut body, declared, in_continuing, &|_| false);
        let function =
            Function { attributes: vec![], name: "f".into(), params: vec![], result: None, body, exits: vec![] };
        print::function(&function).0
    }

    #[test]
    fn a_walk_taking_the_statements_as_they_come_finds_what_one_walk_of_all_finds() {
        let copy = Stmt::Var { name: "d".into(), ty: None, value: Some(Expr::ident("a")) };
        let body = vec![var("a"), var("b"), copy, set("b", 1), read("x"), when(vec![read("a")]), read("a"), read("d")];
        let mut pieces = MentionWalk::top(&body, 3);
        for end in [0, 2, 3, 5, 5, body.len()] {
            pieces.walk(&body[..end]);
        }
        let (first, mentions) = pieces.finish();
        let (all_first, all_mentions) = walk_mentions(&body, 3, true);
        assert_eq!(first, all_first);
        assert_eq!(first, [None, Some(3), Some(7)]);
        let mentions: Vec<_> = mentions.iter().chain(&all_mentions).map(|m| format!("{m:?}")).collect();
        assert_eq!(mentions, ["Several(5)", "Once(3)", "Once(7)"].repeat(2));
    }

    #[test]
    fn a_variable_read_by_a_later_declaration_stays_ahead_of_it() {
        // `var b = a;` (an OpCompositeInsert's copy of the loaded `a`) reads `a` before `a = b;`.
        let copy = || Stmt::Var { name: "b".into(), ty: None, value: Some(Expr::ident("a")) };
        let assign_back = || Stmt::Assign { target: Expr::ident("a"), value: Expr::ident("b") };
        let text = initialized(vec![var("a"), copy(), read("b"), assign_back(), read("a")], 2);
        assert!(text.starts_with("fn f() {\n    var a: u32;\n    var b = a;\n    use(b);\n    a = b;"), "{text}");
        // Unread before it is assigned, it moves down to that assignment.
        let other = Stmt::Var { name: "b".into(), ty: None, value: Some(Expr::ident("c")) };
        let text = initialized(vec![var("a"), other, read("b"), assign_back(), read("a")], 2);
        assert!(text.starts_with("fn f() {\n    var b = c;\n    use(b);\n    let a = b;"), "{text}");
    }

    #[test]
    fn a_write_between_or_after_first_mentions_makes_a_var_not_a_let() {
        let take_address = |name: &str| {
            Stmt::Call(Expr::call("f", vec![Expr::unary(crate::wgsl::ast::UnaryOp::AddressOf, Expr::ident(name))]))
        };
        // `a` is written again between the first mentions, `c` after the last, by its address.
        let body =
            vec![var("a"), var("b"), var("c"), set("a", 1), set("a", 2), set("b", 3), set("c", 4), take_address("c")];
        let text = initialized(body, 3);
        assert!(text.contains("var a = 1u;\n    a = 2u;\n    let b = 3u;\n    var c = 4u;\n    f(&c);"), "{text}");
    }

    #[test]
    fn a_continue_keeps_in_place_only_what_the_continuing_mentions() {
        let skip = || Stmt::If { condition: Expr::ident("c"), accept: vec![Stmt::Continue], reject: vec![] };
        let body = vec![var("a"), var("b"), skip(), set("a", 1), set("b", 2), read("a"), read("b")];
        let text = initialized_in_loop(body, 2, &|name| name == "a");
        assert!(text.starts_with("fn f() {\n    var a: u32;\n    if c {"), "{text}");
        assert!(text.contains("a = 1u;\n    let b = 2u;"), "{text}");
        // A `continue` after the first mention keeps nothing in place.
        let body = vec![var("a"), set("a", 1), skip(), read("a")];
        let text = initialized_in_loop(body, 1, &|_| true);
        assert!(text.starts_with("fn f() {\n    let a = 1u;"), "{text}");
    }

    #[test]
    fn a_variable_moves_into_the_one_arm_that_uses_it_and_to_its_first_assignment() {
        let text = sunk(vec![var("x"), read("a"), when(vec![read("b"), set("x", 1), read("x")])]);
        assert!(text.contains("if c {\n        use(b);\n        let x = 1u;\n        use(x);"), "{text}");
        // Read before it is assigned: declared at the start of the arm, holding zero.
        let text = sunk(vec![var("x"), when(vec![read("x"), set("x", 1)])]);
        assert!(text.contains("if c {\n        var x: u32;\n        use(x);"), "{text}");
        // Mentioned by two statements: it stays.
        let text = sunk(vec![var("x"), when(vec![set("x", 1)]), read("x")]);
        assert!(text.starts_with("fn f() {\n    var x: u32;"), "{text}");
    }

    #[test]
    fn a_variable_moves_into_a_loop_only_if_each_iteration_assigns_it_first() {
        let text = sunk(vec![var("x"), forever(vec![set("x", 1), read("x")], vec![])]);
        assert!(text.contains("loop {\n        let x = 1u;"), "{text}");
        // An iteration reading what the one before left: it stays out.
        let text = sunk(vec![var("x"), forever(vec![read("x"), set("x", 1)], vec![])]);
        assert!(text.starts_with("fn f() {\n    var x: u32;"), "{text}");
        // A `continue` before the assignment: fine unless the `continuing` uses the variable.
        let skip = || Stmt::If { condition: Expr::ident("c"), accept: vec![Stmt::Continue], reject: vec![] };
        let text = sunk(vec![var("x"), forever(vec![skip(), set("x", 1), read("x")], vec![])]);
        assert!(text.contains("continue;\n        }\n        let x = 1u;"), "{text}");
        let text = sunk(vec![var("x"), forever(vec![skip(), set("x", 1)], vec![read("x")])]);
        assert!(text.starts_with("fn f() {\n    var x: u32;"), "{text}");
    }

    #[test]
    fn a_variable_the_continuing_uses_stays_in_the_body_scope() {
        // `x` is declared in the body; only the inner `if` of the body mentions it, but so does the
        // `continuing`, which is inside the body's scope.
        let body = vec![var("x"), when(vec![set("x", 1)]), read("y")];
        let text = sunk(vec![forever(body, vec![read("x")])]);
        assert!(text.contains("loop {\n        var x: u32;\n        if c {\n            x = 1u;"), "{text}");
        let less = Expr::binary(BinaryOp::Less, Expr::ident("x"), Expr::Literal(Literal::U32(2)));
        let body = vec![var("x"), when(vec![set("x", 1)])];
        let text = sunk(vec![Stmt::Loop { body, continuing: vec![], break_if: Some(less) }]);
        assert!(text.contains("loop {\n        var x: u32;"), "{text}");
        // Assigned first in the body and again in the `continuing`: a `var`, not a `let`.
        let text = sunk(vec![var("x"), forever(vec![set("x", 1), read("y")], vec![set("x", 2)])]);
        assert!(text.contains("loop {\n        var x = 1u;"), "{text}");
    }
}
