//! The type of each expression of a function being built, resolved once, in order, and kept:
//! naga's type resolution of an expression needs its operands' types, and the builder asks for
//! types as the front end's lowering does (`function.rs`).

use naga::proc::{ResolveContext, TypeResolution};
use naga::{Arena, Expression, Handle, Type, TypeInner};

use super::{Result, Unsupported};
use crate::name_hash::NameMap;

/// The types of a function's expressions so far.
///
/// A function's expressions have few distinct types, and a `TypeResolution` is five times a
/// `u32`: each distinct type is kept once, and each expression holds its index.
pub(super) struct Resolutions {
    /// The index in `distinct` of each expression's type, by the expression's index.
    of: Vec<u32>,
    distinct: Vec<Distinct>,
    /// The index in `distinct` of each module type met as a resolution, by the type's index
    /// (`u32::MAX` where none): a lookup without a hash.
    by_handle: Vec<u32>,
    /// The index in `distinct` of each scalar and vector type met as a value, by its slot
    /// (`scalar_or_vector_slot`; `u32::MAX` where none): most values are one, found so without
    /// hashing or comparing a `TypeInner`.
    by_slot: [u32; SLOTS],
    /// The index in `distinct` of each other type met as a value, keyed by the fast hash of names
    /// (std's was a third of the building's time here).
    by_value: NameMap<TypeInner, u32>,
    /// The indices in `distinct` of the last few other value types met: most values have the
    /// type of a value met just before (an operand's, or the pointer and the pointer to its
    /// element in turn), found so without a hash.
    recent: Vec<u32>,
    /// Where in `recent` the next type looked up by hash goes, once it is full.
    next_recent: usize,
}

/// A type expressions of the function have, and the module's type for it once a declaration
/// registered it.
struct Distinct {
    resolution: TypeResolution,
    declared: Option<Handle<Type>>,
}

impl Resolutions {
    pub(super) fn new() -> Resolutions {
        Resolutions {
            of: Vec::new(),
            distinct: Vec::new(),
            by_handle: Vec::new(),
            by_slot: [u32::MAX; SLOTS],
            by_value: NameMap::default(),
            recent: Vec::new(),
            next_recent: 0,
        }
    }

    /// The type of `handle`, resolving every expression of `expressions` up to it first.
    // Inlined into the builder (as `index` and `get`): compiled apart, with naga's resolution
    // generic over the closure, building took about 1% more.
    #[inline]
    pub(super) fn resolve(
        &mut self,
        context: &ResolveContext,
        expressions: &Arena<Expression>,
        handle: Handle<Expression>,
    ) -> Result<&TypeResolution> {
        for expr in expressions.range_from(self.of.len()) {
            let (of, distinct) = (&self.of, &self.distinct);
            let resolution = context
                .resolve(&expressions[expr], |h| Ok(&distinct[of[h.index()] as usize].resolution))
                .map_err(|_| Unsupported("type resolution"))?;
            let index = self.index(resolution);
            self.of.push(index);
            if expr == handle {
                break;
            }
        }
        self.get(handle).ok_or(Unsupported("type resolution"))
    }

    /// The index in `distinct` of `resolution`, kept there if it is new.
    #[inline]
    fn index(&mut self, resolution: TypeResolution) -> u32 {
        let next = self.distinct.len() as u32;
        let index = match resolution {
            TypeResolution::Handle(handle) => {
                if self.by_handle.len() <= handle.index() {
                    self.by_handle.resize(handle.index() + 1, u32::MAX);
                }
                let slot = &mut self.by_handle[handle.index()];
                if *slot == u32::MAX {
                    *slot = next;
                }
                *slot
            }
            TypeResolution::Value(ref inner) if let Some(slot) = scalar_or_vector_slot(inner) => {
                let slot = &mut self.by_slot[slot];
                if *slot == u32::MAX {
                    *slot = next;
                }
                *slot
            }
            TypeResolution::Value(ref inner) => {
                let distinct = &self.distinct;
                let is_inner = |&index: &u32| matches!(&distinct[index as usize].resolution, TypeResolution::Value(recent) if recent == inner);
                match self.recent.iter().copied().find(is_inner) {
                    Some(index) => index,
                    None => {
                        // Looked up by reference: a key is cloned only when it is new.
                        let index = match self.by_value.get(inner) {
                            Some(&index) => index,
                            None => {
                                self.by_value.insert(inner.clone(), next);
                                next
                            }
                        };
                        if self.recent.len() < RECENT {
                            self.recent.push(index);
                        } else {
                            self.recent[self.next_recent] = index;
                            self.next_recent = (self.next_recent + 1) % RECENT;
                        }
                        index
                    }
                }
            }
        };
        if index == next {
            self.distinct.push(Distinct { resolution, declared: None });
        }
        index
    }

    /// The type of `handle`, if it is resolved.
    #[inline]
    pub(super) fn get(&self, handle: Handle<Expression>) -> Option<&TypeResolution> {
        self.of.get(handle.index()).map(|&i| &self.distinct[i as usize].resolution)
    }

    /// The module's type for the type of `handle`, resolved: a value's is registered with
    /// `ensure` once per distinct type (registering it again would find the same handle).
    pub(super) fn declared(
        &mut self,
        handle: Handle<Expression>,
        ensure: impl FnOnce(TypeInner) -> Handle<Type>,
    ) -> Result<Handle<Type>> {
        let index = *self.of.get(handle.index()).ok_or(Unsupported("type resolution"))? as usize;
        let distinct = &mut self.distinct[index];
        Ok(match (&distinct.resolution, distinct.declared) {
            (TypeResolution::Handle(handle), _) => *handle,
            (_, Some(declared)) => declared,
            (TypeResolution::Value(inner), None) => *distinct.declared.insert(ensure(inner.clone())),
        })
    }
}

/// How many of the other value types met last `Resolutions::recent` keeps.
const RECENT: usize = 4;

/// The slots of `Resolutions::by_slot`: a scalar or a vector of 2, 3 or 4, of each scalar kind and
/// width of 1, 2, 4 or 8 bytes.
const SLOTS: usize = 4 * 6 * 4;

/// The slot of a scalar or vector type in `Resolutions::by_slot`, `None` for any other type.
fn scalar_or_vector_slot(inner: &TypeInner) -> Option<usize> {
    let (shape, scalar) = match *inner {
        TypeInner::Scalar(scalar) => (0, scalar),
        TypeInner::Vector { size, scalar } => (size as usize - 1, scalar),
        _ => return None,
    };
    let width = match scalar.width {
        1 => 0,
        2 => 1,
        4 => 2,
        8 => 3,
        _ => return None,
    };
    // naga's six kinds, in their order; a kind a later naga adds takes the hashed path.
    let kind = Some(scalar.kind as usize).filter(|&kind| kind < 6)?;
    Some((shape * 6 + kind) * 4 + width)
}

#[cfg(test)]
mod tests {
    use naga::{Scalar, ScalarKind, TypeInner, VectorSize};

    use super::{SLOTS, scalar_or_vector_slot};

    #[test]
    fn each_scalar_and_vector_type_has_a_slot_of_its_own() {
        let kinds = [
            ScalarKind::Sint,
            ScalarKind::Uint,
            ScalarKind::Float,
            ScalarKind::Bool,
            ScalarKind::AbstractInt,
            ScalarKind::AbstractFloat,
        ];
        let mut taken = [false; SLOTS];
        for kind in kinds {
            for width in [1, 2, 4, 8] {
                let scalar = Scalar { kind, width };
                let vectors =
                    [VectorSize::Bi, VectorSize::Tri, VectorSize::Quad].map(|size| TypeInner::Vector { size, scalar });
                for inner in std::iter::once(TypeInner::Scalar(scalar)).chain(vectors) {
                    let slot = scalar_or_vector_slot(&inner).expect("a slot");
                    assert!(!std::mem::replace(&mut taken[slot], true), "{inner:?} shares slot {slot}");
                }
            }
        }
        let matrix = TypeInner::Matrix { columns: VectorSize::Bi, rows: VectorSize::Bi, scalar: Scalar::F32 };
        assert_eq!(scalar_or_vector_slot(&matrix), None);
    }
}
