//! `OpPtrAccessChain` (variable pointers, as clspv writes it): an access chain that first steps
//! `Element` elements on from the array element its base points to. WGSL has no pointer
//! arithmetic, but where the base is an access chain whose last index picks an array element, the
//! step is that index plus `Element`: the instruction becomes an `OpAccessChain` from the base's
//! own base, its last index replaced by an `OpIAdd` of it and `Element` (two's complement, as
//! `Element` counts signed; an `OpISub` for a negative constant). With `Element` a constant 0, it
//! is an `OpAccessChain` on the base, whatever the base is. Any other (a non-zero step from a
//! variable, a parameter, a pointer chosen at run time or a struct member) is refused.
//!
//! Before: any `OpPtrAccessChain` or `OpInBoundsPtrAccessChain`.
//! After: none; the access chains they became read as any other.

use spirv::Op;

use crate::Options;
use crate::error::Error;
use crate::spirv::{Id, Inst, Module, Operand, Type};

pub fn run(module: &mut Module, _options: &Options) -> Result<(), Error> {
    for f in 0..module.functions.len() {
        if !module.functions[f].insts.iter().any(|inst| is_ptr_access_chain(inst.op)) {
            continue;
        }
        for b in 0..module.functions[f].blocks.len() {
            let old = std::mem::take(&mut module.functions[f].blocks[b].insts);
            let mut out = Vec::with_capacity(old.len());
            for index in old {
                if is_ptr_access_chain(module.functions[f].insts[index].op) {
                    rewrite(module, f, index, &mut out)?;
                }
                out.push(index);
            }
            module.functions[f].blocks[b].insts = out;
        }
    }
    Ok(())
}

fn is_ptr_access_chain(op: Op) -> bool {
    matches!(op, Op::PtrAccessChain | Op::InBoundsPtrAccessChain)
}

/// Makes instruction `index` of function `f` an `OpAccessChain`, appending to `out` the
/// instruction that moves its last index, if it needs one.
fn rewrite(module: &mut Module, f: usize, index: usize, out: &mut Vec<usize>) -> Result<(), Error> {
    let inst = &module.functions[f].insts[index];
    let location = module.location_of(f, inst);
    let ids: Vec<Id> = inst.id_operands().collect();
    let [base, element, rest @ ..] = ids.as_slice() else {
        return Err(Error::invalid("OpPtrAccessChain without a base and an element", location));
    };
    let operands: Vec<Id> = if module.is_fixed_zero(*element) {
        [*base].into_iter().chain(rest.iter().copied()).collect()
    } else {
        let Some((chain_base, leading, last)) = array_element_chain(module, *base) else {
            return Err(Error::unsupported(
                "OpPtrAccessChain stepping from a pointer that is not to an element of an array reached by an \
                 access chain: WGSL has no pointer arithmetic",
                location,
            ));
        };
        let ty = module.type_of(last)?;
        // A constant step back is a subtraction, `i - 1u` rather than `i + 4294967295u`.
        let (op, step) = match negative_constant(module, *element) {
            Some(back) => (Op::ISub, module.index_constant(back)),
            None => (Op::IAdd, *element),
        };
        let moved = module.push_inst(f, out, op, Some(ty), vec![last, step], None);
        [chain_base].into_iter().chain(leading).chain([moved]).chain(rest.iter().copied()).collect()
    };
    let inst = &mut module.functions[f].insts[index];
    inst.op = match inst.op {
        Op::InBoundsPtrAccessChain => Op::InBoundsAccessChain,
        _ => Op::AccessChain,
    };
    inst.operands = operands.into_iter().map(Operand::IdRef).collect();
    Ok(())
}

/// How far back a signed 32-bit constant `id` steps, if it is negative.
fn negative_constant(module: &Module, id: Id) -> Option<u32> {
    let signed = matches!(module.type_def(module.value_type(id)?)?, Type::Int { width: 32, signed: true });
    let value = module.const_u32(id)? as i32;
    (signed && value < 0).then(|| value.unsigned_abs())
}

/// The base, the indices but the last, and the last index of the access chain `pointer` is
/// (through copies), where that last index picks an element of an array.
fn array_element_chain(module: &Module, mut pointer: Id) -> Option<(Id, Vec<Id>, Id)> {
    // Bounded: an invalid module may copy a pointer from itself.
    for _ in 0..64 {
        let inst: &Inst = module.value_inst(pointer)?;
        match inst.op {
            Op::CopyObject => pointer = inst.id(0)?,
            Op::AccessChain | Op::InBoundsAccessChain => {
                let ids: Vec<Id> = inst.id_operands().collect();
                let (&base, indices) = ids.split_first()?;
                let (&last, leading) = indices.split_last()?;
                let mut ty = pointee(module, base)?;
                for &index in leading {
                    ty = part(module, ty, index)?;
                }
                return matches!(module.type_def(ty), Some(Type::Array { .. } | Type::RuntimeArray { .. }))
                    .then(|| (base, leading.to_vec(), last));
            }
            _ => return None,
        }
    }
    None
}

/// The type `pointer` points to.
fn pointee(module: &Module, pointer: Id) -> Option<Id> {
    match module.type_def(module.value_type(pointer)?)? {
        Type::Pointer { pointee, .. } => Some(*pointee),
        _ => None,
    }
}

/// The type of the part of a `ty` that access-chain index `index` picks.
fn part(module: &Module, ty: Id, index: Id) -> Option<Id> {
    Some(match module.type_def(ty)? {
        Type::Struct { members } => *members.get(module.const_u32(index)? as usize)?,
        Type::Array { element, .. } | Type::RuntimeArray { element } => *element,
        Type::Vector { component, .. } => *component,
        Type::Matrix { column, .. } => *column,
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use crate::Options;

    fn translate(body: &str) -> Result<String, crate::Error> {
        let text = format!(
            "OpCapability Shader
               OpCapability VariablePointersStorageBuffer
               OpMemoryModel Logical GLSL450
               OpEntryPoint GLCompute %main \"main\"
               OpExecutionMode %main LocalSize 1 1 1
               OpDecorate %words ArrayStride 4
               OpDecorate %Data Block
               OpMemberDecorate %Data 0 Offset 0
               OpMemberDecorate %Data 1 Offset 16
               OpDecorate %data DescriptorSet 0
               OpDecorate %data Binding 0
               OpDecorate %ptr_uint ArrayStride 4
       %void = OpTypeVoid
         %fn = OpTypeFunction %void
       %uint = OpTypeInt 32 0
        %int = OpTypeInt 32 1
     %uint_0 = OpConstant %uint 0
     %uint_1 = OpConstant %uint 1
     %uint_2 = OpConstant %uint 2
      %int_3 = OpConstant %int 3
     %int_m1 = OpConstant %int -1
      %words = OpTypeRuntimeArray %uint
       %Data = OpTypeStruct %uint %words
   %ptr_Data = OpTypePointer StorageBuffer %Data
   %ptr_uint = OpTypePointer StorageBuffer %uint
       %data = OpVariable %ptr_Data StorageBuffer
       %main = OpFunction %void None %fn
      %entry = OpLabel
{body}
               OpReturn
               OpFunctionEnd
"
        );
        crate::translate(text.as_bytes(), &Options::default()).map(|t| t.wgsl)
    }

    /// `base` (an access chain into `%data`) stepped by `element`, then 1 stored there: the WGSL
    /// must hold `store`.
    fn assert_stores(base: &str, element: &str, store: &str) {
        let body = format!(
            "%p = OpAccessChain %ptr_uint %data {base}
             %q = OpPtrAccessChain %ptr_uint %p {element}
             OpStore %q %uint_1"
        );
        let wgsl = translate(&body).unwrap();
        assert!(wgsl.contains(store), "{wgsl}");
    }

    #[test]
    fn a_step_from_an_array_element_adds_to_its_index() {
        assert_stores("%uint_1 %uint_2", "%int_3", ".member_1[2u + 3u] = 1u;");
    }

    #[test]
    fn a_step_back_counts_signed() {
        assert_stores("%uint_1 %uint_2", "%int_m1", ".member_1[2u - 1u] = 1u;");
    }

    #[test]
    fn a_step_of_zero_is_the_base() {
        assert_stores("%uint_0", "%uint_0", ".member_0 = 1u;");
    }

    #[test]
    fn a_step_from_a_member_is_refused() {
        let error = translate(
            "%p = OpAccessChain %ptr_uint %data %uint_0
             %q = OpPtrAccessChain %ptr_uint %p %uint_1
             OpStore %q %uint_2",
        )
        .unwrap_err();
        assert!(error.to_string().contains("not to an element of an array"), "{error}");
    }
}
