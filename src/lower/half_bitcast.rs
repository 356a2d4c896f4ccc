//! OpBitcast. Between 32-bit types it is WGSL's `bitcast`. Between f16 pairs and 32-bit words
//! (`vec2<f16>` and `u32`, `vec4<f16>` and `vec2<u32>`, or the `i32`/`f32` forms) WGSL's
//! `bitcast` would do, but naga does not accept it: the halves go through `pack2x16float` and
//! `unpack2x16float` instead, which convert each f16 to f32 and back exactly (component 0 is
//! the low half in both, as in WGSL's `bitcast`). NaN payloads may not survive, which WGSL
//! does not promise for any float operation either.

use super::emit::Emitter;
use super::function::Lower;
use crate::error::Error;
use crate::spirv::{Id, Inst, Type};
use crate::wgsl::ast::Expr;

impl Lower<'_> {
    pub(super) fn bitcast(&mut self, e: &mut Emitter, inst: &Inst) -> Result<(), Error> {
        let source = self.operand(inst, 0)?;
        let to = self.result_type(inst)?;
        let from = self.module.type_of(source)?;
        let (expr, depth) = match (self.half_count(from), self.half_count(to)) {
            (Some(_), None) => {
                let halves = self.take_shared(e, source)?;
                let words = self.pack_halves(halves, from);
                (self.words_as(e, words, to)?, None)
            }
            (None, Some(halves)) => {
                let words = self.take_shared(e, source)?;
                let words = self.words_as_u32(words, from);
                let unpacked = (0..halves / 2).map(|i| unpack(component(&words, i, halves / 2)));
                let floats = match halves {
                    2 => unpacked.collect::<Vec<_>>().remove(0),
                    _ => Expr::call("vec4<f32>", unpacked.collect()),
                };
                (Expr::call(e.ty(to)?, vec![floats]), None)
            }
            _ => {
                let (value, depth) = self.take_measured(e, source)?;
                (e.bitcast(to, value)?, Some(depth + 1))
            }
        };
        self.define_measured(e, inst, expr, depth, false)
    }

    /// For a vector of 2 or 4 f16, its length.
    fn half_count(&self, ty: Id) -> Option<u32> {
        let (scalar, count) = self.module.scalar_of(ty)?;
        (matches!(self.module.type_def(scalar), Some(Type::Float { width: 16 })) && count % 2 == 0).then_some(count)
    }

    /// `u32` (or `vec2<u32>`) words holding the halves of `value`, a `vec2<f16>` (`vec4<f16>`).
    fn pack_halves(&self, value: Expr, ty: Id) -> Expr {
        let pack = |pair: Expr| Expr::call("pack2x16float", vec![Expr::call("vec2<f32>", vec![pair])]);
        match self.half_count(ty) {
            Some(2) => pack(value),
            _ => {
                Expr::call("vec2<u32>", vec![pack(Expr::member(value.clone(), "xy")), pack(Expr::member(value, "zw"))])
            }
        }
    }

    /// `u32` words as type `to` (of as many 32-bit components).
    fn words_as(&mut self, e: &mut Emitter, words: Expr, to: Id) -> Result<Expr, Error> {
        let (scalar, _) = self.module.scalar_of(to).unwrap_or((to, 1));
        match self.module.type_def(scalar) {
            Some(Type::Int { signed: false, .. }) => Ok(words),
            _ => e.bitcast(to, words),
        }
    }

    /// A 32-bit value of type `from` as `u32` words.
    fn words_as_u32(&self, value: Expr, from: Id) -> Expr {
        let (scalar, count) = self.module.scalar_of(from).unwrap_or((from, 1));
        if matches!(self.module.type_def(scalar), Some(Type::Int { signed: false, .. })) {
            return value;
        }
        let ty = if count == 1 { "u32".to_string() } else { format!("vec{count}<u32>") };
        Expr::call(format!("bitcast<{ty}>"), vec![value])
    }
}

fn unpack(word: Expr) -> Expr {
    Expr::call("unpack2x16float", vec![word])
}

/// Component `i` of `words`, a scalar when there is one word.
fn component(words: &Expr, i: u32, count: u32) -> Expr {
    match count {
        1 => words.clone(),
        _ => Expr::member(words.clone(), ["x", "y"][i as usize]),
    }
}
