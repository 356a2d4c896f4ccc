//! Float constants that are infinite or NaN. WGSL has no literal for them, and a constant
//! expression that evaluates to one is an error (Tint rejects `bitcast<f32>(0x7f800000u)` as a
//! value f32 cannot represent; naga lets it through). Inside functions such a constant is read
//! through a helper, `f32_from_bits(0x7f800000u)`, whose call is a runtime expression. Where WGSL
//! needs a constant or override expression (an `override`'s default, an override expression, a
//! module-scope initializer) there is no spelling: the initializer of a module-scope variable is
//! stored at the start of each entry point instead (`entry_initializers.rs`), the rest is refused.

use super::emit::Emitter;
use crate::error::{Error, Location};
use crate::spirv::{ConstValue, Id, Module, Type};
use crate::wgsl::ast::{self, Expr, Literal, Stmt};

/// Whether a float of `width` bits with these bits is infinite or NaN.
pub(super) fn is_non_finite(width: u32, bits: u64) -> bool {
    match width {
        16 => (bits >> 10) & 0x1f == 0x1f,
        32 => !f32::from_bits(bits as u32).is_finite(),
        _ => false,
    }
}

/// Whether constant `id`, or a constant it is built from, is an infinite or NaN float.
pub(super) fn contains_non_finite(module: &Module, id: Id) -> bool {
    let mut pending = vec![id];
    let mut seen = crate::id_hash::IdSet::default();
    while let Some(id) = pending.pop() {
        let Some(constant) = module.constant(id) else { continue };
        if !seen.insert(id) {
            continue;
        }
        match &constant.value {
            ConstValue::Scalar(bits) => {
                if let Some(Type::Float { width }) = module.type_def(constant.ty)
                    && is_non_finite(*width, *bits)
                {
                    return true;
                }
            }
            value => pending.extend(value.parts()),
        }
    }
    false
}

impl Emitter<'_> {
    /// The helper that makes a float of `width` bits from its bits, declared on first need.
    pub(super) fn float_from_bits(&mut self, width: u32) -> String {
        let scalar = if width == 16 { "f16" } else { "f32" };
        let key = format!("{scalar}_from_bits");
        if let Some(name) = self.helpers.get(&key) {
            return name.clone();
        }
        let name = self.namer.fresh(&key, None);
        self.helpers.insert(key, name.clone());
        if width == 16 {
            self.enable("f16");
        }
        let bits = Expr::ident("bits");
        // An f16 from the low half of a u32 (naga has no `bitcast<vec2<f16>>`), converted
        // through f32 exactly.
        let value = match width {
            16 => Expr::call("f16", vec![Expr::member(Expr::call("unpack2x16float", vec![bits]), "x")]),
            _ => Expr::call("bitcast<f32>", vec![bits]),
        };
        self.finish_function(ast::Function {
            attributes: vec![],
            name: name.clone(),
            params: vec![ast::Param { attributes: vec![], name: "bits".into(), ty: "u32".into() }],
            result: Some((vec![], scalar.into())),
            body: vec![Stmt::Return(Some(value))],
            exits: Vec::new(),
        });
        name
    }

    /// An infinite or NaN float constant: a call of the helper, which must have been declared
    /// before function bodies (`late_names.rs`); where it was not, the constant is only read
    /// where WGSL wants a constant expression.
    pub(super) fn non_finite_float(&mut self, width: u32, bits: u64) -> Result<Expr, Error> {
        let key = if width == 16 { "f16_from_bits" } else { "f32_from_bits" };
        match self.helpers.get(key) {
            Some(name) if !self.in_constant_expression => {
                Ok(Expr::call(name.as_str(), vec![Expr::Literal(Literal::Bits(bits as u32))]))
            }
            _ => Err(Error::unsupported(
                "a float constant that is infinite or NaN in an override's default or an override expression: \
                 WGSL has no literal for infinities and NaNs, and constant and override expressions must be finite",
                Location::default(),
            )),
        }
    }
}
