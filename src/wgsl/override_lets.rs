//! `let`s of constant composites read by member become `var`s, in a module with overrides.
//! There wgpu 30 processes overrides by evaluating again every function expression made of
//! constants and overrides alone, and it follows `let`s while doing so: `let a = 558u; let r =
//! vec2<u32>(a, 3u);` makes `r` a constant too. Such a composite bound to a `let` and read by
//! member (`r.x`) then breaks the function: its validation fails after the processing
//! ("Expression can't be introduced - it's already in scope"), or its SPIR-V writer panics
//! ("Expression is not cached"). A `var` is read at run time.
//!
//! A `let` whose value calls a builtin naga cannot evaluate as a constant (`bitcast`, `modf`,
//! `mix`, the packings...) stays: naga leaves the value to run time, and a `var` initialized by
//! it where it reads an override would panic naga's SPIR-V writer ("Expression is not cached").

use crate::name_hash::NameSet;

use super::ast::{Expr, Function, Name, Stmt};

/// Makes `var`s of the `let`s of `function` described above, given which names are overrides
/// and which are the module's functions (a call of one runs in the shader).
pub(crate) fn make_vars(
    function: &mut Function,
    is_override: &dyn Fn(&str) -> bool,
    is_function: &dyn Fn(&str) -> bool,
) {
    let mut read_by_member = NameSet::default();
    for stmt in &function.body {
        stmt.for_each_expr(&mut |expr| {
            expr.walk(&mut |part| {
                let base = match part {
                    Expr::Member(access) => &access.base,
                    Expr::Index(operands) => &operands[0],
                    _ => return,
                };
                composed_names(base, &mut |name| _ = read_by_member.insert(name.clone()));
            })
        });
    }
    let mut finder = Finder { is_override, is_function, read_by_member, constant_lets: NameSet::default() };
    finder.list(&mut function.body);
}

/// The names a value read by member is made of: the name itself (`r` of `r.x`), or the names a
/// composite built at the read is made of (`m` of `array<mat2x2<f32>, 2>(m, n)[1][0]`, which
/// breaks the function as `m[1][0]` does), through members and elements of either.
fn composed_names(base: &Expr, found: &mut dyn FnMut(&Name)) {
    match base {
        Expr::Ident(name) => found(name),
        Expr::Member(access) => composed_names(&access.base, found),
        Expr::Index(operands) => composed_names(&operands[0], found),
        Expr::Call(call) => call.args.iter().for_each(|arg| composed_names(arg, found)),
        _ => {}
    }
}

/// Whether naga's constant evaluation can evaluate every call in `expr`: it leaves a call of
/// the builtins below to run time (naga 30: `proc::constant_evaluator`, its "unimplemented"
/// math functions and `bitcast`), and with it the expression around it.
pub(crate) fn naga_folds(expr: &Expr) -> bool {
    !expr.any(&|part| matches!(part, Expr::Call(call) if naga_cannot_fold(&call.callee)))
}

fn naga_cannot_fold(callee: &str) -> bool {
    const BUILTINS: &[&str] = &[
        "modf",
        "frexp",
        "ldexp",
        "faceForward",
        "reflect",
        "refract",
        "mix",
        "smoothstep",
        "transpose",
        "determinant",
        "quantizeToF16",
        "extractBits",
        "insertBits",
    ];
    const PREFIXES: &[&str] = &["bitcast<", "pack", "unpack"];
    BUILTINS.contains(&callee) || PREFIXES.iter().any(|prefix| callee.starts_with(prefix))
}

struct Finder<'a> {
    is_override: &'a dyn Fn(&str) -> bool,
    is_function: &'a dyn Fn(&str) -> bool,
    /// The names read by member or index somewhere in the function (`r` of `r.x`, `r[i]`).
    read_by_member: NameSet<Name>,
    /// The `let`s seen so far whose values wgpu evaluates at pipeline creation.
    constant_lets: NameSet<Name>,
}

impl Finder<'_> {
    /// The statements in order, so that a `let` is seen before its uses.
    fn list(&mut self, stmts: &mut [Stmt]) {
        for stmt in stmts {
            let stmt = stmt.unnoted_mut();
            if let Stmt::Let { name, ty, value } = stmt
                && self.is_evaluated_at_pipeline_creation(value)
                && naga_folds(value)
            {
                match self.read_by_member.contains(name) {
                    true => {
                        let (name, ty, value) = (name.clone(), ty.take(), std::mem::replace(value, Expr::ident("")));
                        *stmt = Stmt::Var { name, ty, value: Some(value) };
                    }
                    false => _ = self.constant_lets.insert(name.clone()),
                }
            }
            stmt.for_each_list_mut(&mut |list| self.list(list));
        }
    }

    /// Whether `expr` is made of literals, overrides and the `let`s found so far, with no call
    /// that runs in the shader.
    fn is_evaluated_at_pipeline_creation(&self, expr: &Expr) -> bool {
        !expr.any(&|part| match part {
            Expr::Ident(name) => !(self.is_override)(name) && !self.constant_lets.contains(name),
            Expr::Call(call) => (self.is_function)(&call.callee) || call.is_shader_only_builtin(),
            _ => false,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::wgsl::ast::{BinaryOp, Literal};
    use crate::wgsl::print;

    fn let_(name: &str, value: Expr) -> Stmt {
        Stmt::Let { name: name.into(), ty: None, value }
    }

    fn u32(value: u32) -> Expr {
        Expr::Literal(Literal::U32(value))
    }

    fn xor(left: Expr, right: Expr) -> Expr {
        Expr::binary(BinaryOp::Xor, left, right)
    }

    /// `body` as a function's with `k` an override and `helper` a function, rewritten, as text.
    fn rewritten(body: Vec<Stmt>) -> String {
        let mut function =
            Function { attributes: vec![], name: "f".into(), params: vec![], result: None, body, exits: vec![] };
        make_vars(&mut function, &|name| name == "k", &|name| name == "helper");
        print::function(&function).0
    }

    fn vec2(parts: Vec<Expr>) -> Expr {
        Expr::call("vec2<u32>", parts)
    }

    fn member(base: &str, name: &str) -> Expr {
        Expr::member(Expr::ident(base), name)
    }

    #[test]
    fn constant_composites_read_by_member_become_vars() {
        let text = rewritten(vec![
            let_("a", u32(558)),
            let_("h", xor(Expr::ident("a"), u32(3))),
            let_("r", vec2(vec![Expr::ident("h"), u32(3)])),
            let_("x", Expr::index(Expr::ident("buf"), u32(0))),
            let_("y", xor(Expr::ident("x"), member("r", "x"))),
            let_("t", vec2(vec![Expr::ident("x"), u32(1)])),
            let_("q", vec2(vec![u32(5), Expr::ident("k")])),
            // Read by member of a composite built around it.
            let_("m", vec2(vec![u32(7), u32(8)])),
            let_(
                "z",
                Expr::index(
                    Expr::index(Expr::call("array<vec2<u32>, 2>", vec![Expr::ident("m"), Expr::ident("m")]), u32(1)),
                    u32(0),
                ),
            ),
            Stmt::Call(Expr::call("g", vec![member("t", "x"), Expr::ident("q")])),
            Stmt::If {
                condition: Expr::ident("k"),
                accept: vec![
                    let_("s", vec2(vec![Expr::call("select", vec![u32(1), u32(2), Expr::ident("k")]), u32(1)])),
                    Stmt::Call(Expr::call("g", vec![Expr::index(Expr::ident("s"), Expr::ident("x"))])),
                ],
                reject: vec![],
            },
        ]);
        // `h` is a constant made of `a`, and `r` of `h`; `s` of an override; `m` is read by
        // member of an array made of it. `t` is read at run time; `q` is never read by member.
        for expected in [
            "let a = 558u;",
            "let h = a ^ 3u;",
            "var r = vec2<u32>(h, 3u);",
            "let y = x ^ r.x;",
            "let t = vec2<u32>(x, 1u);",
            "let q = vec2<u32>(5u, k);",
            "var s = vec2<u32>(select(1u, 2u, k), 1u);",
            "var m = vec2<u32>(7u, 8u);",
        ] {
            assert!(text.contains(expected), "{expected} in {text}");
        }
    }

    #[test]
    fn values_read_at_run_time_keep_their_lets() {
        let text = rewritten(vec![
            let_("a", vec2(vec![Expr::call("subgroupAdd", vec![u32(1)])])),
            let_("b", vec2(vec![Expr::call("helper", vec![u32(1)])])),
            let_("c", vec2(vec![Expr::call("abs", vec![Expr::ident("k")])])),
            // naga cannot evaluate these as constants: it leaves them, and `e` made of `d`, to
            // run time.
            let_("d", vec2(vec![Expr::call("bitcast<u32>", vec![Expr::ident("k")])])),
            let_("e", vec2(vec![member("d", "x"), u32(1)])),
            let_("f", Expr::call("modf", vec![Expr::ident("k")])),
            Stmt::Call(Expr::call(
                "g",
                ["a", "b", "c", "d", "e"].iter().map(|name| member(name, "x")).chain([member("f", "whole")]).collect(),
            )),
        ]);
        for expected in [
            "let a = vec2<u32>(subgroupAdd(1u));",
            "let b = vec2<u32>(helper(1u));",
            "var c = vec2<u32>(abs(k));",
            "let d = vec2<u32>(bitcast<u32>(k));",
            "let e = vec2<u32>(d.x, 1u);",
            "let f = modf(k);",
        ] {
            assert!(text.contains(expected), "{expected} in {text}");
        }
    }
}
