//! A module whose structs or globals were declared after some of its functions were built, put
//! in the order naga's front end gives it. The text has every declaration before the functions,
//! and the front end lowers them first (`front::wgsl::index`): their types and global
//! expressions come before any a function registers. The builder registers each as it meets it,
//! so a late declaration's come after those of the functions built before it (and a late
//! struct's after those of the globals).
//!
//! The declarations are built again, alone, in text order; then the functions' types (those not
//! registered by a declaration), the global expressions the functions appended and the
//! functions themselves are carried over in the order they were built, their handles mapped.
//! Globals, overrides and functions keep their handles: functions declare none, and the
//! declarations come in text order in both.

use naga::{Expression, Handle, Span, Type, TypeInner};

use super::{Builder, Result, Unsupported};
use crate::wgsl::ast::Module;

impl Builder {
    /// The module built, in the front end's order.
    pub(super) fn into_module(self, ast: &Module) -> Result<naga::Module> {
        if !self.late {
            return Ok(self.module);
        }
        let mut fresh = Builder::declaring(ast, self.declarations)?;
        let old = self.module;
        let mut module = std::mem::take(&mut fresh.module);
        // The old types in order: each one's handles are mapped before it.
        let mut types = Vec::with_capacity(old.types.len());
        for (_, ty) in old.types.iter() {
            let inner = mapped_type(&ty.inner, &types);
            types.push(module.types.insert(Type { name: ty.name.clone(), inner }, Span::UNDEFINED));
        }
        // The new handle of each global expression a function appended, by its old index: found
        // without a search for each workgroup size (entry points may be many).
        let mut moved = vec![None; old.global_expressions.len()];
        for &handle in &self.function_expressions {
            // A workgroup size given by an override, whose handle is the same.
            let expression @ Expression::Override(_) = old.global_expressions[handle].clone() else {
                return Err(Unsupported("a function's global expression"));
            };
            moved[handle.index()] = Some(module.global_expressions.append(expression, Span::UNDEFINED));
        }
        for mut function in old.functions.into_inner() {
            map_function(&mut function, &types);
            module.functions.append(function, Span::UNDEFINED);
        }
        for mut entry_point in old.entry_points {
            map_function(&mut entry_point.function, &types);
            for size in entry_point.workgroup_size_overrides.iter_mut().flatten().flatten() {
                let mapped = moved.get(size.index()).copied().flatten();
                *size = mapped.ok_or(Unsupported("a workgroup size the entry point did not append"))?;
            }
            module.entry_points.push(entry_point);
        }
        // Only the predeclared types (results of atomics) are made by the builder.
        module.special_types = old.special_types;
        for ty in module.special_types.predeclared_types.values_mut() {
            *ty = types[ty.index()];
        }
        Ok(module)
    }
}

/// `inner` with its type handles mapped by `types` (old handle index to new handle).
fn mapped_type(inner: &TypeInner, types: &[Handle<Type>]) -> TypeInner {
    let mut inner = inner.clone();
    match &mut inner {
        TypeInner::Pointer { base, .. } | TypeInner::Array { base, .. } | TypeInner::BindingArray { base, .. } => {
            *base = types[base.index()]
        }
        TypeInner::Struct { members, .. } => {
            for member in members {
                member.ty = types[member.ty.index()];
            }
        }
        _ => {}
    }
    inner
}

/// A function's type handles (of its arguments, result, locals and expressions) mapped.
fn map_function(function: &mut naga::Function, types: &[Handle<Type>]) {
    let map = |ty: &mut Handle<Type>| *ty = types[ty.index()];
    function.arguments.iter_mut().for_each(|argument| map(&mut argument.ty));
    function.result.iter_mut().for_each(|result| map(&mut result.ty));
    function.local_variables.iter_mut().for_each(|(_, local)| map(&mut local.ty));
    for (_, expression) in function.expressions.iter_mut() {
        match expression {
            Expression::ZeroValue(ty)
            | Expression::Compose { ty, .. }
            | Expression::AtomicResult { ty, .. }
            | Expression::WorkGroupUniformLoadResult { ty }
            | Expression::SubgroupOperationResult { ty } => map(ty),
            _ => {}
        }
    }
}
