//! What WebGPU forbids in a shader stage, refused up front with the instruction named: WGSL has
//! barriers in compute shaders only; vertex shaders may not write storage textures (WebGPU gives
//! them no writable storage), and subgroup operations exist in compute and fragment shaders
//! only. (Writable storage buffers in vertex shaders are checked where buffers are declared.)
//!
//! Before and after: the module is unchanged; an instruction a stage cannot have is an error.

use spirv::{ExecutionModel, Op};

use crate::Options;
use crate::error::Error;
use crate::spirv::Module;

/// OpGroupNonUniform* (opcodes 333 to 366, and the rotate) and the SPV_KHR_shader_ballot and
/// SPV_KHR_subgroup_vote instructions.
fn is_subgroup(op: Op) -> bool {
    (Op::GroupNonUniformElect as u32..=Op::GroupNonUniformQuadSwap as u32).contains(&(op as u32))
        || matches!(
            op,
            Op::GroupNonUniformRotateKHR
                | Op::SubgroupBallotKHR
                | Op::SubgroupFirstInvocationKHR
                | Op::SubgroupAllKHR
                | Op::SubgroupAnyKHR
                | Op::SubgroupAllEqualKHR
                | Op::SubgroupReadInvocationKHR
        )
}

/// Why an instruction cannot be in a shader of the given stage, if it cannot.
fn forbidden(op: Op, model: ExecutionModel) -> Option<&'static str> {
    match model {
        ExecutionModel::GLCompute => None,
        _ if matches!(op, Op::ControlBarrier | Op::MemoryBarrier) => {
            Some("WGSL has barriers (workgroupBarrier, storageBarrier, textureBarrier) in compute shaders only")
        }
        ExecutionModel::Vertex if op == Op::ImageWrite => Some(
            "WebGPU vertex shaders cannot write storage textures (write and read_write access are not allowed there)",
        ),
        ExecutionModel::Vertex if is_subgroup(op) => {
            Some("WGSL has subgroup operations in compute and fragment shaders only")
        }
        _ => None,
    }
}

pub fn run(module: &mut Module, _options: &Options) -> Result<(), Error> {
    for entry in &module.entry_points {
        let roots: Vec<usize> = module.function_index(entry.function).into_iter().collect();
        for f in module.reachable_from(&roots) {
            for inst in &module.functions[f].insts {
                if let Some(reason) = forbidden(inst.op, entry.model) {
                    return Err(Error::unsupported(
                        format!("Op{:?} in {:?} shader `{}`: {reason}", inst.op, entry.model, entry.name),
                        module.location_of(f, inst),
                    ));
                }
            }
        }
    }
    Ok(())
}
