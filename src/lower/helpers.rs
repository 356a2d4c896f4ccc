//! WGSL functions the output declares for SPIR-V instructions WGSL has no builtin for: the
//! inverse of a square matrix (GLSL.std.450 MatrixInverse). Each is declared once per type, on
//! first use.

use super::emit::Emitter;
use crate::wgsl::ast::{self, BinaryOp, Expr, Literal, Stmt, UnaryOp};
use crate::wgsl::names::Namer;

fn index(base: Expr, i: usize) -> Expr {
    Expr::index(base, Expr::Literal(Literal::Abstract(i as i64)))
}

fn mul(a: Expr, b: Expr) -> Expr {
    Expr::binary(BinaryOp::Multiply, a, b)
}

fn sub(a: Expr, b: Expr) -> Expr {
    Expr::binary(BinaryOp::Subtract, a, b)
}

fn add(a: Expr, b: Expr) -> Expr {
    Expr::binary(BinaryOp::Add, a, b)
}

fn neg(a: Expr) -> Expr {
    Expr::unary(UnaryOp::Negate, a)
}

impl Emitter<'_> {
    /// The name of the helper that inverts a `size`x`size` matrix of `scalar` (`f32` or `f16`),
    /// declaring it first if needed. `local` is the calling function's namer, so the name does
    /// not collide with its locals.
    pub(super) fn matrix_inverse(&mut self, size: u32, scalar: &str, local: &Namer) -> String {
        let ty = format!("mat{size}x{size}<{scalar}>");
        if let Some(name) = self.helpers.get(&ty) {
            return name.clone();
        }
        let name = self.namer.fresh(&format!("inverse{size}x{size}_{scalar}"), Some(local));
        self.helpers.insert(ty.clone(), name.clone());
        let m = Expr::ident("m");
        let one = Expr::Literal(if scalar == "f16" { Literal::F16(0x3c00) } else { Literal::F32(1.0f32.to_bits()) });
        let body = match size {
            2 => inverse2(&ty, m, one),
            3 => inverse3(&ty, m, one),
            _ => inverse4(&ty, scalar, m, one),
        };
        self.finish_function(ast::Function {
            attributes: vec![],
            name: name.clone(),
            params: vec![ast::Param { attributes: vec![], name: "m".into(), ty: ty.as_str().into() }],
            result: Some((vec![], ty.into())),
            body,
            exits: Vec::new(),
        });
        name
    }
}

/// The adjugate over the determinant.
fn inverse2(ty: &str, m: Expr, one: Expr) -> Vec<Stmt> {
    let a = |c: usize, r: usize| index(index(m.clone(), c), r);
    let adjugate = Expr::call(ty, vec![a(1, 1), neg(a(0, 1)), neg(a(1, 0)), a(0, 0)]);
    let scale = Expr::binary(BinaryOp::Divide, one, Expr::call("determinant", vec![m.clone()]));
    vec![Stmt::Return(Some(mul(adjugate, scale)))]
}

/// The rows of the inverse of a matrix with columns a, b, c are b×c, c×a and a×b over its
/// determinant.
fn inverse3(ty: &str, m: Expr, one: Expr) -> Vec<Stmt> {
    let cross = |x: usize, y: usize| Expr::call("cross", vec![index(m.clone(), x), index(m.clone(), y)]);
    let rows = Expr::call("transpose", vec![Expr::call(ty, vec![cross(1, 2), cross(2, 0), cross(0, 1)])]);
    let scale = Expr::binary(BinaryOp::Divide, one, Expr::call("determinant", vec![m.clone()]));
    vec![Stmt::Return(Some(mul(rows, scale)))]
}

/// Laplace expansion along the first two and last two rows, with 2x2 sub-determinants. `a(i, j)`
/// reads `m[i][j]`, the transpose; the inverse of the transpose, read back the same way, is the
/// inverse.
fn inverse4(ty: &str, scalar: &str, m: Expr, one: Expr) -> Vec<Stmt> {
    let a = |i: usize, j: usize| index(index(m.clone(), i), j);
    let minor = |r: usize, i: usize, j: usize| sub(mul(a(r, i), a(r + 1, j)), mul(a(r + 1, i), a(r, j)));
    let pairs = [(0, 1), (0, 2), (0, 3), (1, 2), (1, 3), (2, 3)];
    let mut body = Vec::new();
    for (k, (i, j)) in pairs.into_iter().enumerate() {
        body.push(Stmt::Let { name: format!("s{k}").into(), ty: None, value: minor(0, i, j) });
        body.push(Stmt::Let { name: format!("c{k}").into(), ty: None, value: minor(2, i, j) });
    }
    let s = |k: usize| Expr::ident(format!("s{k}"));
    let c = |k: usize| Expr::ident(format!("c{k}"));
    // c_k pairs columns (i, j) of rows 2 and 3; the expansion pairs s_k with c_{5-k}.
    let det = add(
        sub(add(add(sub(mul(s(0), c(5)), mul(s(1), c(4))), mul(s(2), c(3))), mul(s(3), c(2))), mul(s(4), c(1))),
        mul(s(5), c(0)),
    );
    body.push(Stmt::Let { name: "det".into(), ty: None, value: det });
    // Each entry: three products, signs alternating from `first`.
    let entry = |first: bool, terms: [(Expr, Expr); 3]| {
        let [t0, t1, t2] = terms.map(|(x, y)| mul(x, y));
        let sum = add(sub(t0, t1), t2);
        if first { sum } else { neg(sum) }
    };
    let rows = [
        [
            entry(true, [(a(1, 1), c(5)), (a(1, 2), c(4)), (a(1, 3), c(3))]),
            entry(false, [(a(0, 1), c(5)), (a(0, 2), c(4)), (a(0, 3), c(3))]),
            entry(true, [(a(3, 1), s(5)), (a(3, 2), s(4)), (a(3, 3), s(3))]),
            entry(false, [(a(2, 1), s(5)), (a(2, 2), s(4)), (a(2, 3), s(3))]),
        ],
        [
            entry(false, [(a(1, 0), c(5)), (a(1, 2), c(2)), (a(1, 3), c(1))]),
            entry(true, [(a(0, 0), c(5)), (a(0, 2), c(2)), (a(0, 3), c(1))]),
            entry(false, [(a(3, 0), s(5)), (a(3, 2), s(2)), (a(3, 3), s(1))]),
            entry(true, [(a(2, 0), s(5)), (a(2, 2), s(2)), (a(2, 3), s(1))]),
        ],
        [
            entry(true, [(a(1, 0), c(4)), (a(1, 1), c(2)), (a(1, 3), c(0))]),
            entry(false, [(a(0, 0), c(4)), (a(0, 1), c(2)), (a(0, 3), c(0))]),
            entry(true, [(a(3, 0), s(4)), (a(3, 1), s(2)), (a(3, 3), s(0))]),
            entry(false, [(a(2, 0), s(4)), (a(2, 1), s(2)), (a(2, 3), s(0))]),
        ],
        [
            entry(false, [(a(1, 0), c(3)), (a(1, 1), c(1)), (a(1, 2), c(0))]),
            entry(true, [(a(0, 0), c(3)), (a(0, 1), c(1)), (a(0, 2), c(0))]),
            entry(false, [(a(3, 0), s(3)), (a(3, 1), s(1)), (a(3, 2), s(0))]),
            entry(true, [(a(2, 0), s(3)), (a(2, 1), s(1)), (a(2, 2), s(0))]),
        ],
    ];
    let mut columns = Vec::new();
    for (i, row) in rows.into_iter().enumerate() {
        let name: ast::Name = format!("column{i}").into();
        body.push(Stmt::Let {
            name: name.clone(),
            ty: None,
            value: Expr::call(format!("vec4<{scalar}>"), row.to_vec()),
        });
        columns.push(Expr::ident(name));
    }
    let scale = Expr::binary(BinaryOp::Divide, one, Expr::ident("det"));
    body.push(Stmt::Return(Some(mul(Expr::call(ty, columns), scale))));
    body
}
