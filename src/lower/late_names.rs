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
        // hashing each type and constant every instruction mentions.
        let mut seen = vec![false; module.defs.len()];
        // Initializers the entry points store (`entry_initializers.rs`), read there or not.
        let mut pending: Vec<Id> = self.moved_initializers.iter().map(|&(_, init)| init).collect();
        for &f in functions {
            let function = &module.functions[f];
            pending.push(function.result_type);
            pending.extend(function.params.iter().map(|p| p.ty));
            for inst in &function.insts {
                // Only what may claim a name goes on the list, so that most instructions, whose
                // type and operands were met before or are values, cost no more than this look.
                let unseen = |id: &Id| {
                    seen.get(*id as usize) == Some(&false)
                        && !matches!(module.def(*id), Def::Value { .. } | Def::Param { .. })
                };
                pending.extend(inst.ty.into_iter().chain(inst.id_operands()).filter(unseen));
                // Depth first, so names are claimed in the order a reader meets them.
                pending.reverse();
                while let Some(id) = pending.pop() {
                    // Results and parameters, most ids, claim nothing: kept out of the set.
                    if matches!(module.def(id), Def::Value { .. } | Def::Param { .. }) {
                        continue;
                    }
                    // An id past the definitions claims nothing.
                    if let Some(seen) = seen.get_mut(id as usize)
                        && !std::mem::replace(seen, true)
                    {
                        self.claim(id, &mut pending);
                    }
                }
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
