//! Arrays of 65536 elements or more in private, function or workgroup memory, refused with the
//! variable named: Tint (the WGSL compiler of Chrome and Dawn) rejects such an array count outside
//! storage memory, though naga takes it. (A uniform buffer holding one is made a read-only
//! storage buffer by `layout.rs`, like other uniform blocks WGSL's uniform rules refuse.)
//!
//! Before and after: the module is unchanged; such a variable is an error. Variables the lowering
//! adds itself (a `var` for a phi of an array value, a copy of one to index dynamically) are not
//! checked.

use spirv::{Op, StorageClass};

use crate::Options;
use crate::error::{Error, Location};
use crate::id_hash::IdMap;
use crate::spirv::{Id, Module, Type};

/// The most elements of an array Tint takes outside storage memory.
pub const TINT_MAX_COUNT: u32 = 65535;

pub fn run(module: &mut Module, _options: &Options) -> Result<(), Error> {
    let module = &*module;
    let mut longest = Longest { module, known: IdMap::default() };
    for global in &module.globals {
        if let Some(count) = longest.too_long(global.class, global.pointee) {
            let at = Location {
                word_offset: Some(global.offset),
                result_id: Some(global.id),
                opcode: Some(Op::Variable),
                ..Location::default()
            };
            return Err(refusal(module, global.id, global.class, count, at));
        }
    }
    for (f, function) in module.functions.iter().enumerate() {
        for inst in function.insts.iter().filter(|inst| inst.op == Op::Variable) {
            let pointee = match inst.ty().and_then(|ty| module.type_def(ty)) {
                Some(Type::Pointer { pointee, .. }) => *pointee,
                _ => continue,
            };
            if let (Some(count), Some(id)) = (longest.too_long(StorageClass::Function, pointee), inst.result()) {
                return Err(refusal(module, id, StorageClass::Function, count, module.location_of(f, inst)));
            }
        }
    }
    Ok(())
}

/// The largest element count of the arrays in each type, nested ones included, found once per
/// type: struct types can share members at every level.
struct Longest<'m> {
    module: &'m Module,
    known: IdMap<Id, Option<u32>>,
}

impl Longest<'_> {
    /// That count for `ty`, if Tint rejects it in memory of `class`.
    fn too_long(&mut self, class: StorageClass, ty: Id) -> Option<u32> {
        match class {
            StorageClass::Private | StorageClass::Function | StorageClass::Workgroup => self.of(ty),
            _ => None,
        }
        .filter(|&count| count > TINT_MAX_COUNT)
    }

    fn of(&mut self, ty: Id) -> Option<u32> {
        if let Some(&known) = self.known.get(&ty) {
            return known;
        }
        let longest = match self.module.type_def(ty) {
            Some(Type::Array { element, .. }) => array_count(self.module, ty).max(self.of(*element)),
            Some(Type::Struct { members }) => members.iter().filter_map(|&member| self.of(member)).max(),
            _ => None,
        };
        self.known.insert(ty, longest);
        longest
    }
}

/// The element count of the array type `ty`, if it is one of a count known here.
pub fn array_count(module: &Module, ty: Id) -> Option<u32> {
    match module.type_def(ty)? {
        Type::Array { length, .. } => module.const_u32(*length),
        _ => None,
    }
}

fn refusal(module: &Module, id: Id, class: StorageClass, count: u32, at: Location) -> Error {
    let name = module.name(id).map_or(format!("%{id}"), |name| format!("`{name}`"));
    Error::unsupported(
        format!(
            "variable {name} in {class:?} memory holds an array of {count} elements: Tint (the WGSL compiler \
             of Chrome's WebGPU) takes at most {TINT_MAX_COUNT} outside storage buffers"
        ),
        at,
    )
}
