//! `--emulate-draw-parameters`: the uniform buffer WebGPU's missing draw parameters are read from.
//!
//! WebGPU has no `BaseVertex`, `BaseInstance` or `DrawIndex` builtin. With the option, they come
//! from a uniform buffer the application fills before each draw (as Dawn does for its own
//! first-vertex offsets): `struct DrawParameters { base_vertex: i32, base_instance: u32,
//! draw_index: u32 }`. `VertexIndex` and `InstanceIndex` need nothing: Vulkan's and WebGPU's
//! both count from the draw's first vertex (or base vertex) and first instance.
//!
//! Before: vertex inputs may carry those builtins. After: if the option is on and some input
//! does, `Module::draw_parameters` is a new `Uniform` variable of that struct, listed in
//! `Module::new_bindings` for the `bindings` pass; `io_wrapper` makes each such input read its
//! member. Without the option, `io_wrapper` refuses them, naming it.

use spirv::{BuiltIn, Decoration, StorageClass};

use crate::Options;
use crate::error::Error;
use crate::spirv::{BindingOrigin, Def, Module, NewBinding, Type};

/// The members of the buffer, in order: the builtin each holds, its name, and whether it is
/// signed (a base vertex may be negative in an indexed draw).
pub const MEMBERS: [(BuiltIn, &str, bool); 3] = [
    (BuiltIn::BaseVertex, "base_vertex", true),
    (BuiltIn::BaseInstance, "base_instance", false),
    (BuiltIn::DrawIndex, "draw_index", false),
];

/// The member of the buffer that holds `builtin`, if it is a draw parameter.
pub fn member(builtin: BuiltIn) -> Option<u32> {
    MEMBERS.iter().position(|(b, ..)| *b == builtin).map(|i| i as u32)
}

pub fn run(module: &mut Module, options: &Options) -> Result<(), Error> {
    if !options.emulate_draw_parameters {
        return Ok(());
    }
    let reader = module
        .globals
        .iter()
        .find(|g| g.class == StorageClass::Input && module.decorations(g.id).builtin.and_then(member).is_some());
    // An error about the buffer points at the first variable that reads it.
    let Some(offset) = reader.map(|g| g.offset) else { return Ok(()) };
    let members: Vec<_> =
        MEMBERS.iter().map(|&(_, _, signed)| module.intern_type(Type::Int { width: 32, signed })).collect();
    let block = module.add_def(Def::of_type(Type::Struct { members }));
    module.declarations.push(block);
    module.names.insert(block, "DrawParameters".into());
    module.decorations.entry(block).or_default().add(Decoration::Block, None, None);
    for (i, &(_, name, _)) in MEMBERS.iter().enumerate() {
        let i = i as u32;
        module.member_names.insert((block, i), name.into());
        module.member_decorations.entry((block, i)).or_default().add(Decoration::Offset, Some(4 * i), None);
    }
    let buffer = module.add_global(StorageClass::Uniform, block, offset);
    module.names.insert(buffer, "draw_parameters".into());
    module.new_bindings.push(NewBinding { variable: buffer, source: buffer, origin: BindingOrigin::DrawParameters });
    module.draw_parameters = Some(buffer);
    Ok(())
}
