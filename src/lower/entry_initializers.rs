//! Module-scope initializers WGSL cannot write as one: a `var<private>` initializer must be a
//! constant or override expression, which cannot be infinite or NaN (`non_finite.rs`). Such a
//! variable is declared without one, and each entry point whose functions use it stores the
//! value first thing. A private variable belongs to one invocation and nothing reads it before
//! the entry point starts, so the store is exactly the initialization.

use super::emit::Emitter;
use crate::error::Error;
use crate::spirv::EntryPoint;
use crate::wgsl::ast::{Expr, Stmt};

impl Emitter<'_> {
    /// The stores of the moved initializers of the globals `entry` uses or returns, in
    /// declaration order.
    pub(super) fn entry_initializer_stores(&mut self, entry: &EntryPoint) -> Result<Vec<Stmt>, Error> {
        if self.moved_initializers.is_empty() {
            return Ok(Vec::new());
        }
        let module = self.module;
        let roots: Vec<usize> = module.function_index(entry.function).into_iter().collect();
        let used = module.globals_used_in(&module.reachable_from(&roots));
        let mut stores = Vec::new();
        for (global, init) in self.moved_initializers.clone() {
            // An output's proxy is returned even if no function touches it.
            let used = module.global_index(global).is_some_and(|g| used[g]) || entry.interface.contains(&global);
            if used {
                let target = Expr::ident(self.names.get(&global).cloned().unwrap_or_default());
                stores.push(Stmt::Assign { target, value: self.constant(init)? });
            }
        }
        Ok(stores)
    }
}
