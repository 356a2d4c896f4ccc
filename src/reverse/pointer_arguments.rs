//! Pointer arguments that point into part of a variable (`f(&s.member)`, `f(&a[i])`) pass through
//! a whole variable of their own: copied in before the call and back out after it.
//!
//! SPIR-V's logical addressing lets a pointer argument only be a memory object declaration (a
//! variable or a pointer parameter), and naga's writer panics on anything else. WGSL allows
//! pointer parameters only in the `function` and `private` address spaces, both private to the
//! invocation, and its alias analysis forbids the callee to reach the same memory another way
//! while it writes through the parameter: so the copy is exactly the pointer's meaning.
//!
//! Before: a validated module. After: every pointer argument of every call is a variable or a
//! pointer parameter; a new `function` variable (in the caller) or `private` variable (module
//! scope) stands for each argument that was not. The module must be validated again.

use naga::{AddressSpace, Block, Expression, Handle, Span, Statement, TypeInner};

/// Returns whether anything changed.
pub fn run(module: &mut naga::Module) -> bool {
    // Parameter types by function, read before the functions are borrowed mutably.
    let parameters: Vec<Vec<Handle<naga::Type>>> =
        module.functions.iter().map(|(_, f)| f.arguments.iter().map(|a| a.ty).collect()).collect();
    let mut functions: Vec<&mut naga::Function> = module.functions.iter_mut().map(|(_, f)| f).collect();
    functions.extend(module.entry_points.iter_mut().map(|entry| &mut entry.function));
    let mut changed = false;
    for function in functions {
        let mut body = std::mem::take(&mut function.body);
        let mut rewriter = Rewriter {
            types: &module.types,
            globals: &mut module.global_variables,
            parameters: &parameters,
            function,
            changed: false,
        };
        rewriter.block(&mut body);
        rewriter.function.body = body;
        changed |= rewriter.changed;
    }
    changed
}

struct Rewriter<'a> {
    types: &'a naga::UniqueArena<naga::Type>,
    globals: &'a mut naga::Arena<naga::GlobalVariable>,
    parameters: &'a [Vec<Handle<naga::Type>>],
    function: &'a mut naga::Function,
    changed: bool,
}

impl Rewriter<'_> {
    fn block(&mut self, block: &mut Block) {
        let old = std::mem::take(block);
        for (mut statement, span) in old.span_into_iter() {
            match &mut statement {
                Statement::Block(inner) => self.block(inner),
                Statement::If { accept, reject, .. } => {
                    self.block(accept);
                    self.block(reject);
                }
                Statement::Loop { body, continuing, .. } => {
                    self.block(body);
                    self.block(continuing);
                }
                Statement::Switch { cases, .. } => cases.iter_mut().for_each(|case| self.block(&mut case.body)),
                _ => {}
            }
            let Statement::Call { function, arguments, .. } = &mut statement else {
                block.push(statement, span);
                continue;
            };
            let mut copy_back = Vec::new();
            for (argument, &ty) in arguments.iter_mut().zip(&self.parameters[function.index()]) {
                let TypeInner::Pointer { base, space } = self.types[ty].inner else {
                    continue;
                };
                if !matches!(
                    self.function.expressions[*argument],
                    Expression::Access { .. } | Expression::AccessIndex { .. }
                ) {
                    continue;
                }
                self.changed = true;
                let whole = self.whole_variable(base, space, span);
                let value = self.emit(Expression::Load { pointer: *argument }, span, block);
                block.push(Statement::Store { pointer: whole, value }, span);
                copy_back.push((*argument, whole));
                *argument = whole;
            }
            block.push(statement, span);
            for (part, whole) in copy_back {
                let value = self.emit(Expression::Load { pointer: whole }, span, block);
                block.push(Statement::Store { pointer: part, value }, span);
            }
        }
    }

    /// A pointer to a new variable of type `ty` in `space` (`function` or `private`).
    fn whole_variable(&mut self, ty: Handle<naga::Type>, space: AddressSpace, span: Span) -> Handle<Expression> {
        let name = Some("argument".to_string());
        let expression = if space == AddressSpace::Function {
            let local = naga::LocalVariable { name, ty, init: None };
            Expression::LocalVariable(self.function.local_variables.append(local, span))
        } else {
            let global = naga::GlobalVariable {
                name,
                space,
                binding: None,
                ty,
                init: None,
                memory_decorations: Default::default(),
            };
            Expression::GlobalVariable(self.globals.append(global, span))
        };
        self.function.expressions.append(expression, span)
    }

    /// Appends `expression` and emits it at the end of `block`.
    fn emit(&mut self, expression: Expression, span: Span, block: &mut Block) -> Handle<Expression> {
        let before = self.function.expressions.len();
        let handle = self.function.expressions.append(expression, span);
        block.push(Statement::Emit(self.function.expressions.range_from(before)), span);
        handle
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The shapes naga's writer panicked on: a pointer into a struct member, an array element and
    /// a vector component's struct, in the private and function address spaces, read and written.
    const SOURCE: &str = "struct S { arr: array<i32, 4>, v: vec4f }\n\
                          var<private> P: S;\n\
                          fn store(p: ptr<private, array<i32, 4>>) { *p = array<i32, 4>(1, 2, 3, 4); }\n\
                          fn load(p: ptr<function, vec4f>) -> f32 { return (*p).y; }\n\
                          fn both(p: ptr<function, i32>) { *p += 1; }\n\
                          @compute @workgroup_size(1) fn main() {\n\
                            store(&P.arr);\n\
                            var locals: array<S, 2>;\n\
                            let y = load(&locals[1].v);\n\
                            both(&locals[0].arr[2]);\n\
                            var whole = 1;\n\
                            both(&whole);\n\
                          }\n";

    #[test]
    fn partial_pointer_arguments_pass_through_whole_variables() {
        let (mut module, _) = crate::reverse::parse::parse(SOURCE).expect("valid WGSL");
        let privates = module.global_variables.len();
        assert!(run(&mut module));
        crate::reverse::parse::revalidate(&module).expect("still valid");
        assert_eq!(module.global_variables.len(), privates + 1, "one private copy for `store(&P.arr)`");
        let main = &module.entry_points[0].function;
        assert_eq!(main.local_variables.len(), 2 + 2, "two locals of the shader, two copies");
        // `both(&whole)` passes the variable itself.
        let calls: Vec<_> = main
            .body
            .iter()
            .filter_map(|s| match s {
                Statement::Call { arguments, .. } => Some(main.expressions[arguments[0]].clone()),
                _ => None,
            })
            .collect();
        assert_eq!(calls.len(), 4);
        assert!(matches!(calls[0], Expression::GlobalVariable(_)));
        assert!(calls[1..].iter().all(|e| matches!(e, Expression::LocalVariable(_))), "{calls:?}");
    }
}
