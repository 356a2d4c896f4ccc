//! Loading: word counts, id bounds, replicated composites, recorded texel formats.

use super::*;

#[test]
fn magic_is_checked_in_both_byte_orders() {
    let mut bytes = vec![0u8; 20];
    bytes[..4].copy_from_slice(&MAGIC.to_be_bytes());
    assert_eq!(words_from_bytes(&bytes).unwrap()[0], MAGIC);
    bytes[..4].copy_from_slice(&MAGIC.to_le_bytes());
    assert_eq!(words_from_bytes(&bytes).unwrap()[0], MAGIC);
    bytes[0] = 0;
    assert!(words_from_bytes(&bytes).unwrap_err().to_string().contains("wrong magic"));
}

#[test]
fn functions_and_definitions_are_loaded_with_room_for_casts() {
    // Sixteen instructions and twenty-two ids (the bound): room for two more of each.
    let mut text = String::from(
        "OpCapability Shader\nOpMemoryModel Logical GLSL450\nOpEntryPoint GLCompute %main \"main\"\n\
         OpExecutionMode %main LocalSize 1 1 1\n%void = OpTypeVoid\n%fn = OpTypeFunction %void\n\
         %int = OpTypeInt 32 1\n%one = OpConstant %int 1\n%main = OpFunction %void None %fn\n%entry = OpLabel\n",
    );
    for i in 0..15 {
        text += &format!("%x{i} = OpIAdd %int %one %one\n");
    }
    text += "OpReturn\nOpFunctionEnd\n";
    let words = crate::spirv::assemble::assemble(&text).unwrap().words;
    let module = load(&words).unwrap();
    let insts = &module.functions[0].insts;
    assert_eq!((insts.len(), module.defs.len()), (16, 22));
    assert!(insts.capacity() >= 18, "{}", insts.capacity());
    assert!(module.defs.capacity() >= 24, "{}", module.defs.capacity());
}

#[test]
fn word_count_past_the_end_is_reported_as_truncation() {
    // Header, then OpCapability claiming 3 words where only 2 remain.
    let words = [MAGIC, 0x0001_0000, 0, 10, 0, (3 << 16) | 17, 1];
    let error = load(&words).unwrap_err();
    assert!(error.to_string().contains("truncated"), "{error}");
    assert_eq!(error.location().unwrap().word_offset, Some(5));
}

#[test]
fn a_switch_on_a_64_bit_integer_is_refused_when_loaded() {
    let text = "OpCapability Shader\nOpCapability Int64\nOpMemoryModel Logical GLSL450\n\
        OpEntryPoint GLCompute %main \"main\"\nOpExecutionMode %main LocalSize 1 1 1\n\
        %void = OpTypeVoid\n%fn = OpTypeFunction %void\n%u64 = OpTypeInt 64 0\n\
        %big = OpConstant %u64 0x100000000\n\
        %main = OpFunction %void None %fn\n%entry = OpLabel\nOpSelectionMerge %merge None\n\
        OpSwitch %big %merge 0x100000000 %case\n%case = OpLabel\nOpBranch %merge\n\
        %merge = OpLabel\nOpReturn\nOpFunctionEnd\n";
    let words = crate::spirv::assemble::assemble(text).unwrap().words;
    let error = load(&words).unwrap_err();
    assert!(error.to_string().contains("a 64-bit literal"), "{error}");
    assert_eq!(error.exit_code(), 1);
}

#[test]
fn an_instruction_s_result_or_result_type_of_id_0_is_refused() {
    let text = "OpCapability Shader\nOpMemoryModel Logical GLSL450\n\
        OpEntryPoint GLCompute %main \"main\"\nOpExecutionMode %main LocalSize 1 1 1\n\
        %void = OpTypeVoid\n%fn = OpTypeFunction %void\n%float = OpTypeFloat 32\n\
        %two = OpConstant %float 2\n%main = OpFunction %void None %fn\n%entry = OpLabel\n\
        %x = OpFMul %float %two %two\nOpReturn\nOpFunctionEnd\n";
    let words = crate::spirv::assemble::assemble(text).unwrap().words;
    assert!(load(&words).is_ok());
    let fmul = words.iter().position(|&word| word == (5 << 16) | Op::FMul as u32).unwrap();
    // The result type, then the result.
    for operand in [1, 2] {
        let mut words = words.clone();
        words[fmul + operand] = 0;
        let error = load(&words).unwrap_err();
        assert!(error.to_string().contains("id %0: ids start at 1"), "{error}");
        assert_eq!(error.location().unwrap().word_offset, Some(fmul as u32));
    }
}

#[test]
fn an_array_length_must_be_a_constant_declared_before_the_array() {
    let module = |declarations: &str| {
        format!(
            "OpCapability Shader\nOpMemoryModel Logical GLSL450\n%float = OpTypeFloat 32\n\
             %uint = OpTypeInt 32 0\n{declarations}\n"
        )
    };
    let before = module("%four = OpConstant %uint 4\n%arr = OpTypeArray %float %four");
    assert!(load(&crate::spirv::assemble::assemble(&before).unwrap().words).is_ok());
    // A mutated module named an id never defined (spirv-val: "requires a previous definition").
    for declarations in
        ["%arr = OpTypeArray %float %four\n%four = OpConstant %uint 4", "%arr = OpTypeArray %float %uint"]
    {
        let words = crate::spirv::assemble::assemble(&module(declarations)).unwrap().words;
        let error = load(&words).unwrap_err();
        assert!(error.to_string().contains("is not a constant declared before it"), "{error}");
    }
}

#[test]
fn a_task_shader_loads_and_is_refused_for_its_stage() {
    // OpEmitMeshTasksEXT ends its block: loading must not take the function as unfinished.
    let text = "OpCapability MeshShadingEXT\nOpExtension \"SPV_EXT_mesh_shader\"\n\
        OpMemoryModel Logical GLSL450\nOpEntryPoint TaskEXT %main \"main\"\n\
        OpExecutionMode %main LocalSize 1 1 1\n%void = OpTypeVoid\n%fn = OpTypeFunction %void\n\
        %uint = OpTypeInt 32 0\n%one = OpConstant %uint 1\n\
        %main = OpFunction %void None %fn\n%entry = OpLabel\nOpEmitMeshTasksEXT %one %one %one\n\
        OpFunctionEnd\n";
    let words = crate::spirv::assemble::assemble(text).unwrap().words;
    assert!(load(&words).is_ok());
    let error = crate::translate(text.as_bytes(), &crate::Options::default()).unwrap_err();
    assert!(error.to_string().contains("TaskEXT shader, a stage WGSL does not have"), "{error}");
    assert_eq!(error.exit_code(), 1);
}

/// SPIRV-Tools 2023.1 (which fixtures/regen.sh runs) predates SPV_EXT_replicated_composites,
/// so these are tested here rather than as `.spvasm` fixtures.
#[test]
fn replicated_composites_repeat_their_part() {
    let text = "OpCapability Shader\nOpCapability ReplicatedCompositesEXT\n\
        OpExtension \"SPV_EXT_replicated_composites\"\nOpMemoryModel Logical GLSL450\n\
        OpEntryPoint GLCompute %main \"main\"\nOpExecutionMode %main LocalSize 1 1 1\n\
        OpDecorate %s SpecId 0\nOpDecorate %buf DescriptorSet 0\nOpDecorate %buf Binding 0\n\
        OpDecorate %B Block\nOpMemberDecorate %B 0 Offset 0\nOpMemberDecorate %B 1 Offset 16\n\
        OpMemberDecorate %B 2 Offset 32\n%void = OpTypeVoid\n%fn = OpTypeFunction %void\n\
        %u = OpTypeInt 32 0\n%v4 = OpTypeVector %u 4\n%u0 = OpConstant %u 0\n%u1 = OpConstant %u 1\n\
        %u2 = OpConstant %u 2\n%u7 = OpConstant %u 7\n%s = OpSpecConstant %u 3\n\
        %c = OpConstantCompositeReplicateEXT %v4 %u7\n%sc = OpSpecConstantCompositeReplicateEXT %v4 %s\n\
        %B = OpTypeStruct %v4 %v4 %v4\n%pb = OpTypePointer StorageBuffer %B\n\
        %pv = OpTypePointer StorageBuffer %v4\n%pu = OpTypePointer StorageBuffer %u\n\
        %buf = OpVariable %pb StorageBuffer\n%main = OpFunction %void None %fn\n%entry = OpLabel\n\
        %p0 = OpAccessChain %pv %buf %u0\nOpStore %p0 %c\n%p1 = OpAccessChain %pv %buf %u1\n\
        OpStore %p1 %sc\n%px = OpAccessChain %pu %buf %u0 %u0\n%x = OpLoad %u %px\n\
        %r = OpCompositeConstructReplicateEXT %v4 %x\n%p2 = OpAccessChain %pv %buf %u2\n\
        OpStore %p2 %r\nOpReturn\nOpFunctionEnd\n";
    let translation = crate::translate(text.as_bytes(), &crate::Options::default()).unwrap();
    let wgsl = translation.wgsl;
    assert!(wgsl.contains("= vec4<u32>(7u);"), "{wgsl}");
    assert!(wgsl.contains("= vec4<u32>(spec_constant_0);"), "{wgsl}");
    assert!(wgsl.contains("= vec4<u32>(global_"), "{wgsl}");
}

/// A module with an `Unknown`-format storage image whose recorded format is `format`.
fn recorded(format: &str) -> String {
    format!(
        "OpCapability Shader\nOpCapability StorageImageWriteWithoutFormat\n\
         OpExtension \"SPV_KHR_non_semantic_info\"\n%set = OpExtInstImport \"{STORAGE_TEXEL_FORMAT_SET}\"\n\
         OpMemoryModel Logical GLSL450\nOpEntryPoint GLCompute %main \"main\"\n\
         OpExecutionMode %main LocalSize 1 1 1\n%name = OpString \"{format}\"\n\
         %void = OpTypeVoid\n%fn = OpTypeFunction %void\n%float = OpTypeFloat 32\n\
         %image = OpTypeImage %float 2D 0 0 0 2 Unknown\n%record = OpExtInst %void %set 1 %image %name\n\
         %main = OpFunction %void None %fn\n%entry = OpLabel\nOpReturn\nOpFunctionEnd\n"
    )
}

#[test]
fn a_recorded_storage_texel_format_is_the_image_types() {
    let words = crate::spirv::assemble::assemble(&recorded("bgra8unorm")).unwrap().words;
    let module = load(&words).unwrap();
    let formats: Vec<Option<&str>> = module
        .defs
        .iter()
        .filter_map(|def| match def {
            Def::Type(ty) => match &**ty {
                Type::Image(image) => Some(image.texel_format),
                _ => None,
            },
            _ => None,
        })
        .collect();
    assert_eq!(formats, [Some("bgra8unorm")]);
    let words = crate::spirv::assemble::assemble(&recorded("rgba8unorm")).unwrap().words;
    let error = load(&words).unwrap_err();
    assert!(error.to_string().contains("records only [\"bgra8unorm\"]"), "{error}");
    assert_eq!(error.exit_code(), 1);
}

#[test]
fn absurd_id_bound_is_refused() {
    let words = [MAGIC, 0x0001_0000, 0, u32::MAX, 0];
    assert!(load(&words).unwrap_err().to_string().contains("implausibly large"));
}
