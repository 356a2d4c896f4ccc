//! Switches of more clauses than Tint (the WGSL compiler of Chrome and Dawn) takes, split: Tint
//! rejects a switch of more than 16383 clauses, the default's counted (however many selectors
//! each has), though naga takes it, and an `OpSwitch` may have any number of targets. The
//! clauses past the limit go into a second switch on the same selector, in the first's default
//! clause, with the default itself:
//!
//! ```text
//! switch x { case 0: {A} ... case 16381: {B} default: { switch x { case 16382: {C} ... default: {D} } } }
//! ```
//!
//! A value of a case in the first switch runs that case; any other runs the default clause, where
//! the second switch picks its case, or `D`, as the one switch would. A `break` in the second
//! switch leaves it, and with it the default clause, which ends there: it leaves both.

use super::ast::{Expr, Stmt, SwitchCase};

/// The most clauses of a switch Tint takes.
pub const TINT_MAX_CLAUSES: usize = 16383;

/// `switch selector { cases }`, split where it has more clauses than Tint takes. The selector is
/// read again in each switch split off: it must be an expression reading it again gives the same
/// value with no effect (a name, a literal, a path to one).
pub fn switch(selector: Expr, cases: Vec<SwitchCase>) -> Stmt {
    split(selector, cases, TINT_MAX_CLAUSES)
}

fn split(selector: Expr, cases: Vec<SwitchCase>, most: usize) -> Stmt {
    if cases.len() <= most {
        return Stmt::Switch { selector, cases };
    }
    let (mut kept, mut rest) = (Vec::with_capacity(most), Vec::new());
    for case in cases {
        if kept.len() < most - 1 && !case.default { kept.push(case) } else { rest.push(case) }
    }
    let inner = split(selector.clone(), rest, most);
    kept.push(SwitchCase { selectors: Vec::new(), default: true, body: vec![inner] });
    Stmt::Switch { selector, cases: kept }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::wgsl::ast::Literal;

    /// The clause body a value selects: the one statement of each body is `x = n;`, or a switch.
    fn selected(stmt: &Stmt, value: u32) -> u32 {
        let Stmt::Switch { cases, .. } = stmt else { panic!("not a switch: {stmt:?}") };
        let is = |e: &Expr| *e == Expr::Literal(Literal::U32(value));
        let case = cases.iter().find(|c| c.selectors.iter().any(is)).or_else(|| cases.iter().find(|c| c.default));
        match &case.expect("a default").body[..] {
            [Stmt::Assign { value: Expr::Literal(Literal::U32(n)), .. }] => *n,
            [inner @ Stmt::Switch { .. }] => selected(inner, value),
            other => panic!("unexpected body {other:?}"),
        }
    }

    /// `clauses` clauses: clause `i` selects `2i` and `2i + 1` and sets `i`; the default clause,
    /// at `default_at`, selects 1000 too.
    fn cases(clauses: u32, default_at: u32) -> Vec<SwitchCase> {
        (0..clauses)
            .map(|i| {
                let default = i == default_at;
                let mut values = vec![2 * i, 2 * i + 1];
                if default {
                    values = vec![1000];
                }
                SwitchCase {
                    selectors: values.into_iter().map(|v| Expr::Literal(Literal::U32(v))).collect(),
                    default,
                    body: vec![Stmt::Assign { target: Expr::ident("x"), value: Expr::Literal(Literal::U32(i)) }],
                }
            })
            .collect()
    }

    fn clauses_of_every_switch(stmt: &Stmt, counts: &mut Vec<usize>) {
        if let Stmt::Switch { cases, .. } = stmt {
            counts.push(cases.len());
            cases.iter().flat_map(|c| &c.body).for_each(|s| clauses_of_every_switch(s, counts));
        }
    }

    #[test]
    fn a_split_switch_selects_what_the_one_switch_did_with_no_switch_over_the_limit() {
        for clauses in 1..=12 {
            for default_at in 0..clauses {
                let whole = Stmt::Switch { selector: Expr::ident("v"), cases: cases(clauses, default_at) };
                let parts = split(Expr::ident("v"), cases(clauses, default_at), 3);
                let mut counts = Vec::new();
                clauses_of_every_switch(&parts, &mut counts);
                assert!(counts.iter().all(|&n| n <= 3), "{clauses} clauses: {counts:?}");
                assert_eq!(counts.iter().sum::<usize>(), clauses as usize + counts.len() - 1);
                for value in (0..2 * clauses + 2).chain([1000]) {
                    assert_eq!(selected(&parts, value), selected(&whole, value), "{clauses} clauses, value {value}");
                }
            }
        }
    }
}
