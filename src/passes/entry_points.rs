//! Entry-point selection: keeps the entry points WGSL can express (and only the one asked for
//! with `--entry-point`), warning about the ones dropped.
//!
//! After: every entry is a vertex, fragment or compute shader. There are none only in a module
//! that had none (a library module, whose functions are all translated): one whose entry points
//! are all of stages WGSL lacks is refused.

use spirv::ExecutionModel;

use crate::Options;
use crate::error::{Error, Location, Warning};
use crate::spirv::Module;

pub fn run(module: &mut Module, options: &Options) -> Result<(), Error> {
    if let Some(wanted) = &options.entry_point {
        let available: Vec<String> = module.entry_points.iter().map(|e| e.name.clone()).collect();
        module.entry_points.retain(|e| &e.name == wanted);
        if module.entry_points.is_empty() {
            return Err(Error::unsupported(
                format!("no entry point named `{wanted}` (the module has: {})", available.join(", ")),
                Location::default(),
            ));
        }
    }
    let mut rejected = Vec::new();
    module.entry_points.retain(|e| {
        let kept = matches!(e.model, ExecutionModel::Vertex | ExecutionModel::Fragment | ExecutionModel::GLCompute);
        if !kept {
            rejected.push((e.name.clone(), e.model, e.offset));
        }
        kept
    });
    for (name, model, offset) in &rejected {
        let at = Location { word_offset: Some(*offset), opcode: Some(spirv::Op::EntryPoint), ..Location::default() };
        module.warnings.push(Warning::new(format!("skipped entry point `{name}`: WGSL has no {model:?} stage"), at));
    }
    if module.entry_points.is_empty()
        && let Some((name, model, offset)) = rejected.first()
    {
        return Err(Error::unsupported(
            format!("entry point `{name}` is a {model:?} shader, a stage WGSL does not have"),
            Location { word_offset: Some(*offset), opcode: Some(spirv::Op::EntryPoint), ..Location::default() },
        ));
    }
    Ok(())
}
