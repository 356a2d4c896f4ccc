//! Names of module-scope declarations made on first use (structs, `override`s, helpers) are claimed
//! before any function body is lowered. A local named while its function is lowered is kept
//! unique against the module's names taken so far; a struct or override declared later in the
//! same function with that name would be shadowed by the local (`var Pair: f32;` then
//! `Pair(1.0f, 2.0f)` naming the struct).

use super::emit::Emitter;
use super::non_finite::is_non_finite;
use crate::spirv::{ConstValue, Def, Id, Type};

impl Emitter<'_> {
    /// Claims the names of the struct types and specialization constants the functions'
    /// instructions and signatures reach, in the order they are met.
    pub(super) fn claim_late_names(&mut self, functions: &[usize]) {
        let module = self.module;
        // By id: ids index the module's definitions densely, and a flag per id costs less than
        // hashing each type and constant every instruction mentions. Results and parameters,
        // most ids, claim nothing: seen from the start, so that each costs one look.
        let mut seen: Vec<bool> = module.defs.iter().map(is_value).collect();
        let mut pending = Vec::new();
        // Initializers the entry points store (`entry_initializers.rs`), read there or not.
        for &(_, init) in &self.moved_initializers.clone() {
            self.claim_from(init, &mut seen, &mut pending);
        }
        for &f in functions {
            let function = &module.functions[f];
            for id in std::iter::once(function.result_type).chain(function.params.iter().map(|p| p.ty)) {
                self.claim_from(id, &mut seen, &mut pending);
            }
            for inst in &function.insts {
                // Most instructions' type and operands were met before or are values: each
                // costs this look, and only the others go on the list.
                for id in inst.ty().into_iter().chain(inst.id_operands()) {
                    if seen.get(id as usize) == Some(&false) {
                        self.claim_from(id, &mut seen, &mut pending);
                    }
                }
            }
        }
    }

    /// Claims `id` and what it refers to, depth first, so that names are claimed in the order
    /// a reader meets them; each id once, none that is `seen`.
    fn claim_from(&mut self, id: Id, seen: &mut [bool], pending: &mut Vec<Id>) {
        pending.push(id);
        while let Some(id) = pending.pop() {
            // An id past the definitions claims nothing.
            if let Some(seen) = seen.get_mut(id as usize)
                && !std::mem::replace(seen, true)
            {
                self.claim(id, pending);
            }
        }
    }

    /// Claims `id`'s name if it is declared on first use; pushes what it refers to.
    fn claim(&mut self, id: Id, pending: &mut Vec<Id>) {
        let module = self.module;
        match module.def(id) {
            Def::Type(ty) => match &**ty {
                Type::Struct { members } => {
                    let base = self.struct_base_name(id);
                    self.claim_name(id, &base);
                    pending.extend(members.iter().rev());
                }
                Type::Array { element, .. } | Type::RuntimeArray { element } => pending.push(*element),
                Type::Pointer { pointee, .. } => pending.push(*pointee),
                _ => {}
            },
            Def::Constant(constant) => {
                if let Some(base) = self.override_base_name(id) {
                    self.claim_name(id, &base);
                }
                // A function reads an infinite or NaN float through a helper.
                if let (ConstValue::Scalar(bits), Some(&Type::Float { width })) =
                    (&constant.value, module.type_def(constant.ty))
                    && is_non_finite(width, *bits)
                {
                    self.float_from_bits(width);
                }
                pending.push(constant.ty);
                pending.extend(constant.value.parts().iter().rev());
            }
            // An initializer stored at the start of the entry points (`entry_initializers.rs`).
            &Def::Global(g) => pending.extend(module.globals[g].initializer),
            _ => {}
        }
    }
}

/// An instruction's result or a parameter.
fn is_value(def: &Def) -> bool {
    matches!(def, Def::Value { .. } | Def::Param { .. })
}
