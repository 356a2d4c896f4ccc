//! Specialization constants that share a SpecId, which SPIR-V allows: the one value given for the
//! id sets each of them, read as its own type (the same 32 bits as an integer or a float, a bool
//! true when they are not zero). WGSL allows one `override` per `@id`, so one constant of the
//! id, the first of 32 bits or else the first, is the `@id` override, and each other one is an
//! override computed from it: the same value; the same bits as the other integer type (`u32(x)`,
//! which keeps them and which wgpu evaluates in pipeline constants, unlike `bitcast`) or through
//! a `bitcast` to or from a float; or a comparison with zero (`x != 0.0f` reads -0.0 as false,
//! where its bits are not zero: the one value `bitcast` would be needed for). Without
//! specialization each constant keeps its own default, so their defaults must agree under that
//! reading; constants whose defaults disagree, or of another width, are refused.

use super::emit::Emitter;
use crate::error::{Error, Location};
use crate::passes::spec_constants::bit_width as width;
use crate::spirv::{ConstValue, Id, Module, Type};
use crate::wgsl::ast::{BinaryOp, Expr};

/// A constant's default as the 32 bits (or bool) the API value would be.
fn default_bits(module: &Module, id: Id) -> Option<u64> {
    match module.constant(id)?.value {
        ConstValue::Scalar(bits) => Some(bits),
        ConstValue::Bool(b) => Some(u64::from(b)),
        _ => None,
    }
}

impl Emitter<'_> {
    /// The override of `id`, a constant whose SpecId another constant, `primary`, declares.
    pub(super) fn shared_spec_id_override(&mut self, id: Id, primary: Id) -> Result<Expr, Error> {
        let module = self.module;
        let at = Location { result_id: Some(id), ..Location::default() };
        let (Some(constant), Some(primary_constant)) = (module.constant(id), module.constant(primary)) else {
            return Err(Error::internal("a shared SpecId without its constants"));
        };
        let spec_id = constant.spec_id.unwrap_or_default();
        let is_bool = width(module, id).is_none();
        // The primary is a bool only if no constant of the id has 32 bits.
        if !is_bool && width(module, id) != width(module, primary) {
            return Err(Error::unsupported(
                format!(
                    "specialization constants %{primary} and %{id} share SpecId {spec_id} but differ in width: \
                     WGSL has one override per id, and one value cannot be both"
                ),
                at,
            ));
        }
        let (own, theirs) = (default_bits(module, id), default_bits(module, primary));
        let agree = match (own, theirs) {
            (Some(own), Some(theirs)) if is_bool => own == u64::from(theirs != 0),
            (Some(own), Some(theirs)) => own == theirs,
            _ => false,
        };
        if !agree {
            return Err(Error::unsupported(
                format!(
                    "specialization constants %{primary} and %{id} share SpecId {spec_id} but their defaults differ: \
                     WGSL has one override per id, whose default cannot be both"
                ),
                at,
            ));
        }
        let source = self.override_ident(primary)?;
        let ty = self.ty(constant.ty)?;
        let value = if constant.ty == primary_constant.ty {
            source
        } else if is_bool {
            // The API's 32 bits are true when not zero.
            let zero = self.constant_bits(primary_constant.ty, 0)?;
            Expr::binary(BinaryOp::NotEqual, source, zero)
        } else if matches!(module.type_def(constant.ty), Some(Type::Int { .. }))
            && matches!(module.type_def(primary_constant.ty), Some(Type::Int { .. }))
        {
            // Between i32 and u32 WGSL's conversion keeps the bits (and wgpu evaluates it in
            // pipeline constants, unlike `bitcast`).
            Expr::call(ty.clone(), vec![source])
        } else {
            Expr::call(format!("bitcast<{ty}>"), vec![source])
        };
        let base = self.override_base_name(id).unwrap_or_default();
        Ok(self.declare_override(id, &base, vec![], ty, value))
    }
}
