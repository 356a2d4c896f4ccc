//! WebGPU vertex shaders have no writable storage: a storage buffer a vertex entry point reaches
//! is declared `read`. One a vertex shader writes is refused; one another entry point writes is
//! refused too, since one WGSL variable serves every entry point (`--entry-point` translates
//! them one at a time). Storage textures alike: one a vertex shader reaches must be `read`.

use spirv::{AccessQualifier, ExecutionModel, Op};

use crate::error::Error;
use crate::id_hash::IdSet;
use crate::spirv::{Global, Id, Module, Type};

pub(super) struct VertexStorage {
    /// The globals (by index) vertex entry points reach.
    reached: Vec<bool>,
    /// The globals written from functions vertex entry points reach, and from any.
    written_by_vertex: IdSet<Id>,
    written: IdSet<Id>,
}

impl VertexStorage {
    pub(super) fn new(module: &Module) -> VertexStorage {
        let vertex = module.entry_points.iter().filter(|e| e.model == ExecutionModel::Vertex);
        let roots: Vec<usize> = vertex.filter_map(|entry| module.function_index(entry.function)).collect();
        let vertex_functions = module.reachable_from(&roots);
        // What the other entry points write is asked only about what a vertex entry point reaches.
        let written = match vertex_functions.is_empty() {
            true => IdSet::default(),
            false => written_globals(module, &module.entry_functions()),
        };
        VertexStorage {
            reached: module.globals_used_in(&vertex_functions),
            written_by_vertex: written_globals(module, &vertex_functions),
            written,
        }
    }

    /// Whether a vertex entry point reaches global `g`.
    pub(super) fn reaches(&self, g: usize) -> bool {
        self.reached[g]
    }

    /// Refuses a storage buffer a vertex entry point reaches, if anything writes it.
    pub(super) fn check(&self, module: &Module, global: &Global) -> Result<(), Error> {
        let message = if self.written_by_vertex.contains(&global.id) {
            "a vertex shader writes a storage buffer, which WebGPU does not allow"
        } else if self.written.contains(&global.id) {
            "a storage buffer that a vertex shader reads and another entry point writes: WebGPU gives vertex \
             shaders only read-only storage, and one WGSL variable serves both (translate them one at a time \
             with --entry-point)"
        } else {
            return Ok(());
        };
        Err(Error::unsupported(message, module.variable_location(global.id)))
    }

    /// Refuses a storage texture a vertex entry point reaches that is not read-only: another
    /// entry point writes it (a vertex shader writing one is refused up front, `stage_rules`).
    pub(super) fn check_texture(&self, module: &Module, g: usize) -> Result<(), Error> {
        let global = &module.globals[g];
        let Some(Type::Image(image)) = module.type_def(global.pointee) else {
            return Ok(());
        };
        if !self.reached[g] || image.sampled != 2 || image.access == Some(AccessQualifier::ReadOnly) {
            return Ok(());
        }
        Err(Error::unsupported(
            "a storage texture that a vertex shader reads and another entry point writes: WebGPU gives vertex \
             shaders only read-only storage textures, and one WGSL variable serves both (translate them one at \
             a time with --entry-point)",
            module.variable_location(global.id),
        ))
    }
}

/// The globals the instructions of `functions` write memory in.
fn written_globals(module: &Module, functions: &[usize]) -> IdSet<Id> {
    let root = |mut id: Id| {
        for _ in 0..64 {
            match module.value_inst(id) {
                Some(inst) if matches!(inst.op, Op::AccessChain | Op::InBoundsAccessChain | Op::CopyObject) => {
                    id = inst.id(0).unwrap_or(0);
                }
                _ => return id,
            }
        }
        id
    };
    let instructions = functions.iter().flat_map(|&f| module.functions[f].insts.iter());
    instructions
        .filter(|inst| {
            matches!(inst.op, Op::Store | Op::CopyMemory)
                || (crate::passes::atomics::is_atomic(inst.op) && inst.op != Op::AtomicLoad)
        })
        .filter_map(|inst| inst.id(0).map(root))
        .collect()
}
