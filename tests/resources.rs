//! Resources WGSL cannot express must be refused with a message that says why, never with
//! WGSL that does not validate; those it expresses with a conversion must validate. Each case is
//! a small SPIR-V assembly module.

mod common;

use spv2wgsl::{Error, Options};

/// A fragment shader `main` with the given declarations (after the common types) and body
/// (inside the entry block, before `OpReturn`).
fn fragment(declarations: &str, body: &str) -> String {
    fragment_with("", declarations, body)
}

/// `fragment` with decorations too. Each handle variable without a binding gets the next free
/// one at set 0, as Vulkan requires.
fn fragment_with(decorations: &str, declarations: &str, body: &str) -> String {
    let handles = declarations.lines().filter(|line| line.contains("OpVariable") && line.ends_with("UniformConstant"));
    let unbound: Vec<&str> = handles
        .filter_map(|line| line.split_whitespace().next())
        .filter(|variable| !decorations.contains(&format!("OpDecorate {variable} Binding")))
        .collect();
    let bindings: String = unbound
        .iter()
        .enumerate()
        .map(|(i, variable)| {
            format!("OpDecorate {variable} DescriptorSet 0\nOpDecorate {variable} Binding {}\n", 16 + i)
        })
        .collect();
    let decorations = format!("{decorations}\n{bindings}");
    format!(
        "OpCapability Shader
OpCapability ImageQuery
OpCapability SampledBuffer
OpMemoryModel Logical GLSL450
OpEntryPoint Fragment %main \"main\"
OpExecutionMode %main OriginUpperLeft
{decorations}
%void = OpTypeVoid
%fn = OpTypeFunction %void
%float = OpTypeFloat 32
%int = OpTypeInt 32 1
%uint = OpTypeInt 32 0
%v2float = OpTypeVector %float 2
%v3float = OpTypeVector %float 3
%v4float = OpTypeVector %float 4
%v4int = OpTypeVector %int 4
%float_0 = OpConstant %float 0
%float_1 = OpConstant %float 1
%int_0 = OpConstant %int 0
%uint_0 = OpConstant %uint 0
%uint_1 = OpConstant %uint 1
%uint_2 = OpConstant %uint 2
%uv = OpConstantComposite %v2float %float_0 %float_0
%sampler = OpTypeSampler
%ptr_sampler = OpTypePointer UniformConstant %sampler
{declarations}
%main = OpFunction %void None %fn
%entry = OpLabel
{body}
OpReturn
OpFunctionEnd
"
    )
}

/// Translates and expects an `Unsupported` error mentioning each of `needles`.
fn assert_refused(spvasm: &str, needles: &[&str]) {
    match spv2wgsl::translate(spvasm.as_bytes(), &Options::default()) {
        Err(error @ Error::Unsupported { .. }) => {
            let message = error.to_string();
            for needle in needles {
                assert!(message.contains(needle), "the message should mention `{needle}`: {message}");
            }
        }
        Err(other) => panic!("expected an `Unsupported` error, got: {other}"),
        Ok(translation) => panic!("expected an error, got WGSL:\n{}", translation.wgsl),
    }
}

/// Translates and expects WGSL that naga and Tint accept and that contains each of `needles`.
fn assert_translated(spvasm: &str, needles: &[&str]) {
    let wgsl = match spv2wgsl::translate(spvasm.as_bytes(), &Options::default()) {
        Ok(translation) => translation.wgsl,
        Err(error) => panic!("expected a translation, got: {error}"),
    };
    let (_, problems) = common::validate_wgsl(&wgsl, "resources");
    assert!(problems.is_empty(), "{problems:?}\n{wgsl}");
    for needle in needles {
        assert!(wgsl.contains(needle), "the WGSL should contain `{needle}`:\n{wgsl}");
    }
}

#[test]
fn f16_textures_are_read_as_f32_and_converted() {
    // SPV_AMD_gpu_shader_half_float_fetch: an f16 texture, sampled with an f16 coordinate and
    // level, fetched, and compared. spirv-val rejects f16 sampled types for Vulkan, but glslang
    // emits them (GL_AMD_gpu_shader_half_float_fetch) and WGSL can read them.
    let declarations = "%half = OpTypeFloat 16
%v2half = OpTypeVector %half 2
%v4half = OpTypeVector %half 4
%v2int = OpTypeVector %int 2
%half_0 = OpConstant %half 0
%uv_half = OpConstantComposite %v2half %half_0 %half_0
%coord = OpConstantComposite %v2int %int_0 %int_0
%image = OpTypeImage %half 2D 0 0 0 1 Unknown
%depth = OpTypeImage %half 2D 1 0 0 1 Unknown
%sampled = OpTypeSampledImage %image
%sampled_depth = OpTypeSampledImage %depth
%ptr_image = OpTypePointer UniformConstant %image
%ptr_depth = OpTypePointer UniformConstant %depth
%texture = OpVariable %ptr_image UniformConstant
%shadow = OpVariable %ptr_depth UniformConstant
%smp = OpVariable %ptr_sampler UniformConstant
%cmp = OpVariable %ptr_sampler UniformConstant
%ptr_v4half = OpTypePointer Private %v4half
%ptr_half = OpTypePointer Private %half
%texels = OpVariable %ptr_v4half Private
%depth_value = OpVariable %ptr_half Private";
    let body = "%t = OpLoad %image %texture
%s = OpLoad %sampler %smp
%si = OpSampledImage %sampled %t %s
%level = OpImageSampleExplicitLod %v4half %si %uv_half Lod %half_0
%fetched = OpImageFetch %v4half %t %coord Lod %int_0
%sum = OpFAdd %v4half %level %fetched
%d = OpLoad %depth %shadow
%c = OpLoad %sampler %cmp
%sd = OpSampledImage %sampled_depth %d %c
%compared = OpImageSampleDrefImplicitLod %half %sd %uv %float_1
OpStore %texels %sum
OpStore %depth_value %compared";
    let decorations = "OpCapability Float16
OpCapability Float16ImageAMD
OpExtension \"SPV_AMD_gpu_shader_half_float_fetch\"";
    let names = "OpName %texture \"tex\"\nOpName %smp \"smp\"";
    let spvasm = fragment_with(names, declarations, body).replacen(
        "OpCapability Shader",
        &format!("OpCapability Shader\n{decorations}"),
        1,
    );
    assert_translated(
        &spvasm,
        &[
            "texture_2d<f32>",
            "vec4<f16>(textureSampleLevel(tex, smp, vec2<f32>(vec2<f16>(0.0h)), f32(0.0h)))",
            "vec4<f16>(textureLoad(tex, vec2<i32>(0i), 0i))",
            "f16(textureSampleCompare(",
        ],
    );
}

#[test]
fn arrays_of_textures_need_binding_arrays() {
    let declarations = "%image = OpTypeImage %float 2D 0 0 0 1 Unknown
%images = OpTypeArray %image %uint_2
%ptr_images = OpTypePointer UniformConstant %images
%ptr_image = OpTypePointer UniformConstant %image
%textures = OpVariable %ptr_images UniformConstant";
    let body = "%first = OpAccessChain %ptr_image %textures %uint_0
%loaded = OpLoad %image %first
%texel = OpImageFetch %v4float %loaded %int_0 Lod %int_0";
    assert_refused(&fragment(declarations, body), &["array of textures", "binding arrays"]);
}

#[test]
fn integer_textures_are_sampled_at_the_nearest_texel_with_a_warning() {
    let declarations = "%image = OpTypeImage %int 2D 0 0 0 1 Unknown
%sampled = OpTypeSampledImage %image
%ptr_image = OpTypePointer UniformConstant %image
%texture = OpVariable %ptr_image UniformConstant
%smp = OpVariable %ptr_sampler UniformConstant";
    let body = "%t = OpLoad %image %texture
%s = OpLoad %sampler %smp
%si = OpSampledImage %sampled %t %s
%texel = OpImageSampleImplicitLod %v4int %si %uv
OpStore %kept %texel";
    let declarations =
        format!("{declarations}\n%ptr_kept = OpTypePointer Private %v4int\n%kept = OpVariable %ptr_kept Private");
    let module = fragment(&declarations, body);
    let translation = spv2wgsl::translate(module.as_bytes(), &Options::default()).expect("translates");
    assert!(translation.wgsl.contains("textureLoad("), "{}", translation.wgsl);
    assert!(
        translation.warnings.iter().any(|w| w.message.contains("clamp-to-edge") && w.message.contains("level 0")),
        "{:?}",
        translation.warnings
    );
    // A cube map has no texel to load without choosing a face.
    let cube = module
        .replace("%image = OpTypeImage %int 2D", "%image = OpTypeImage %int Cube")
        .replace(
            "%kept = OpVariable",
            "%dir = OpConstantComposite %v3float %float_1 %float_0 %float_0\n%kept = OpVariable",
        )
        .replace(
            "%texel = OpImageSampleImplicitLod %v4int %si %uv",
            "%texel = OpImageSampleImplicitLod %v4int %si %dir",
        );
    assert_refused(&cube, &["OpImageSampleImplicitLod", "integer texture that is a cube map"]);
}

#[test]
fn a_sampler_parameter_used_with_and_without_depth_reference_is_refused() {
    // A helper takes the sampler and uses it both ways; a parameter cannot be split in two.
    let declarations = "%image = OpTypeImage %float 2D 0 0 0 1 Unknown
%sampled = OpTypeSampledImage %image
%ptr_image = OpTypePointer UniformConstant %image
%texture = OpVariable %ptr_image UniformConstant
%smp = OpVariable %ptr_sampler UniformConstant
%helper_fn = OpTypeFunction %float %image %sampler
%helper = OpFunction %float None %helper_fn
%t = OpFunctionParameter %image
%s = OpFunctionParameter %sampler
%helper_entry = OpLabel
%si = OpSampledImage %sampled %t %s
%plain = OpImageSampleExplicitLod %v4float %si %uv Lod %float_0
%x = OpCompositeExtract %float %plain 0
%compared = OpImageSampleDrefExplicitLod %float %si %uv %x Lod %float_0
OpReturnValue %compared
OpFunctionEnd";
    let body = "%lt = OpLoad %image %texture
%ls = OpLoad %sampler %smp
%r = OpFunctionCall %float %helper %lt %ls";
    assert_refused(
        &fragment(declarations, body),
        &[
            "used without a depth reference",
            "OpImageSampleExplicitLod",
            "used with one",
            "OpImageSampleDrefExplicitLod",
        ],
    );
}

#[test]
fn depth_comparison_only_at_level_zero() {
    // Level 0 is a fixed Lod of 0, or fixed gradients of 0 (the level they select); an
    // overridable 0 is no fixed level.
    let declarations = "%image = OpTypeImage %float 2D 1 0 0 1 Unknown
%sampled = OpTypeSampledImage %image
%ptr_image = OpTypePointer UniformConstant %image
%texture = OpVariable %ptr_image UniformConstant
%smp = OpVariable %ptr_sampler UniformConstant
%null_v2 = OpConstantNull %v2float
%half = OpConstant %float 0.5
%small = OpConstantComposite %v2float %float_0 %half
%spec_0 = OpSpecConstant %float 0
%Buf = OpTypeStruct %float
%ptr_Buf = OpTypePointer StorageBuffer %Buf
%ptr_float = OpTypePointer StorageBuffer %float
%buf = OpVariable %ptr_Buf StorageBuffer";
    let sample = |operands: &str| {
        let body = format!(
            "%t = OpLoad %image %texture
%s = OpLoad %sampler %smp
%si = OpSampledImage %sampled %t %s
%compared = OpImageSampleDrefExplicitLod %float %si %uv %float_0 {operands}
%result = OpAccessChain %ptr_float %buf %uint_0
OpStore %result %compared"
        );
        fragment_with(&format!("{BUFFER_DECORATIONS}\nOpDecorate %spec_0 SpecId 3"), declarations, &body)
    };
    for level_zero in ["Lod %float_0", "Grad %uv %null_v2"] {
        assert_translated(&sample(level_zero), &["= textureSampleCompareLevel(", "vec2<f32>(0.0f), 0.0f);"]);
    }
    for other in ["Lod %float_1", "Grad %uv %small", "Lod %spec_0"] {
        assert_refused(&sample(other), &["depth comparison at a level other than 0"]);
    }
}

#[test]
fn storage_images_need_a_wgsl_texel_format() {
    // Without a format (`StorageImageWriteWithoutFormat`): WGSL needs one. (`Rgba16`, the
    // `rgba16unorm` of WebGPU's texture-formats-tier1, translates.)
    let declarations = "%image = OpTypeImage %float 2D 0 0 0 2 Unknown
%ptr_image = OpTypePointer UniformConstant %image
%texture = OpVariable %ptr_image UniformConstant
%v2int = OpTypeVector %int 2
%coord = OpConstantComposite %v2int %int_0 %int_0
%color = OpConstantComposite %v4float %float_0 %float_0 %float_0 %float_1";
    let body = "%t = OpLoad %image %texture
OpImageWrite %t %coord %color";
    assert_refused(&fragment(declarations, body), &["format Unknown", "no WGSL storage texel format"]);
}

#[test]
fn texel_buffers_have_no_wgsl_counterpart() {
    let declarations = "%image = OpTypeImage %float Buffer 0 0 0 1 Unknown
%ptr_image = OpTypePointer UniformConstant %image
%texture = OpVariable %ptr_image UniformConstant";
    let body = "%t = OpLoad %image %texture
%texel = OpImageFetch %v4float %t %int_0";
    assert_refused(&fragment(declarations, body), &["texel buffers"]);
}

#[test]
fn level_of_detail_queries_have_no_wgsl_counterpart() {
    let declarations = "%image = OpTypeImage %float 2D 0 0 0 1 Unknown
%sampled = OpTypeSampledImage %image
%ptr_image = OpTypePointer UniformConstant %image
%texture = OpVariable %ptr_image UniformConstant
%smp = OpVariable %ptr_sampler UniformConstant";
    let body = "%t = OpLoad %image %texture
%s = OpLoad %sampler %smp
%si = OpSampledImage %sampled %t %s
%lod = OpImageQueryLod %v2float %si %uv";
    assert_refused(&fragment(declarations, body), &["OpImageQueryLod"]);
}

/// Decorations of a buffer `buf` of struct type `Buf`, bound at (0, 0).
const BUFFER_DECORATIONS: &str = "OpDecorate %Buf Block
OpDecorate %buf DescriptorSet 0
OpDecorate %buf Binding 0
OpMemberDecorate %Buf 0 Offset 0";

#[test]
fn array_strides_smaller_than_the_element_are_refused() {
    let decorations = format!("{BUFFER_DECORATIONS}\nOpDecorate %vecs ArrayStride 8");
    let declarations = "%vecs = OpTypeArray %v3float %uint_2
%Buf = OpTypeStruct %vecs
%ptr_Buf = OpTypePointer StorageBuffer %Buf
%ptr_v3 = OpTypePointer StorageBuffer %v3float
%buf = OpVariable %ptr_Buf StorageBuffer";
    let body = "%p = OpAccessChain %ptr_v3 %buf %uint_0 %uint_1
%v = OpLoad %v3float %p";
    assert_refused(&fragment_with(&decorations, declarations, body), &["array stride of 8 bytes", "at least 12"]);
}

#[test]
fn a_uniform_buffer_without_16_byte_array_strides_is_read_only_storage() {
    let decorations = format!("{BUFFER_DECORATIONS}\nOpDecorate %floats ArrayStride 4");
    let declarations = "%floats = OpTypeArray %float %uint_2
%Buf = OpTypeStruct %floats
%ptr_Buf = OpTypePointer Uniform %Buf
%ptr_float = OpTypePointer Uniform %float
%buf = OpVariable %ptr_Buf Uniform";
    let body = "%p = OpAccessChain %ptr_float %buf %uint_0 %uint_1
%v = OpLoad %float %p
OpStore %kept %v";
    let declarations =
        format!("{declarations}\n%ptr_kept = OpTypePointer Private %float\n%kept = OpVariable %ptr_kept Private");
    let module = fragment_with(&decorations, &declarations, body);
    let translation = spv2wgsl::translate(module.as_bytes(), &Options::default()).expect("translates");
    assert!(translation.wgsl.contains("var<storage, read> global_"), "{}", translation.wgsl);
    let warned = |w: &spv2wgsl::Warning| {
        w.message.contains("is a read-only storage buffer, which the application binds as such")
            && w.message.contains("array stride of 4 bytes")
    };
    assert!(translation.warnings.iter().any(warned), "{:?}", translation.warnings);
}

/// A vertex shader `main` with `body` (after `%p` points at `buf`'s member) in its entry block,
/// and a compute shader `fill` that writes the storage buffer `out`. Both buffers are writable in
/// SPIR-V.
fn vertex_and_compute(body: &str) -> String {
    format!(
        "OpCapability Shader
OpMemoryModel Logical GLSL450
OpEntryPoint Vertex %main \"main\" %position
OpEntryPoint GLCompute %fill \"fill\"
OpExecutionMode %fill LocalSize 1 1 1
OpName %Buf \"Buf\"
OpName %buf \"buf\"
OpName %out \"out\"
OpDecorate %position BuiltIn Position
OpDecorate %Buf Block
OpMemberDecorate %Buf 0 Offset 0
OpDecorate %buf DescriptorSet 0
OpDecorate %buf Binding 0
OpDecorate %out DescriptorSet 0
OpDecorate %out Binding 1
%void = OpTypeVoid
%fn = OpTypeFunction %void
%float = OpTypeFloat 32
%uint = OpTypeInt 32 0
%v4float = OpTypeVector %float 4
%uint_0 = OpConstant %uint 0
%float_1 = OpConstant %float 1
%one = OpConstantComposite %v4float %float_1 %float_1 %float_1 %float_1
%Buf = OpTypeStruct %float
%ptr_Buf = OpTypePointer StorageBuffer %Buf
%ptr_float = OpTypePointer StorageBuffer %float
%ptr_out = OpTypePointer Output %v4float
%buf = OpVariable %ptr_Buf StorageBuffer
%out = OpVariable %ptr_Buf StorageBuffer
%position = OpVariable %ptr_out Output
%main = OpFunction %void None %fn
%entry = OpLabel
%p = OpAccessChain %ptr_float %buf %uint_0
{body}
OpReturn
OpFunctionEnd
%fill = OpFunction %void None %fn
%fill_entry = OpLabel
%q = OpAccessChain %ptr_float %out %uint_0
OpStore %q %float_1
OpReturn
OpFunctionEnd
"
    )
}

#[test]
fn vertex_shaders_cannot_write_storage_buffers() {
    let module = vertex_and_compute("OpStore %p %float_1\nOpStore %position %one");
    assert_refused(&module, &["vertex shader writes a storage buffer"]);
}

#[test]
fn a_storage_buffer_a_vertex_shader_only_reads_becomes_read_only() {
    // `out`, written by the compute shader only, stays writable.
    let body = "%x = OpLoad %float %p\n%v = OpCompositeConstruct %v4float %x %x %x %float_1\nOpStore %position %v";
    let wgsl = spv2wgsl::translate(vertex_and_compute(body).as_bytes(), &Options::default()).expect("translates").wgsl;
    assert!(wgsl.contains("@group(0) @binding(0) var<storage, read> buf: Buf;"), "{wgsl}");
    assert!(wgsl.contains("@group(0) @binding(1) var<storage, read_write> out: Buf;"), "{wgsl}");
}

#[test]
fn a_struct_that_holds_atomics_is_loaded_and_stored_member_by_member() {
    // WGSL loads and stores atomics only one by one: the whole struct goes member by member.
    let module = "OpCapability Shader
OpMemoryModel Logical GLSL450
OpEntryPoint GLCompute %main \"main\"
OpExecutionMode %main LocalSize 1 1 1
OpDecorate %Buf Block
OpMemberDecorate %Buf 0 Offset 0
OpMemberDecorate %Buf 1 Offset 4
OpDecorate %buf DescriptorSet 0
OpDecorate %buf Binding 0
%void = OpTypeVoid
%fn = OpTypeFunction %void
%uint = OpTypeInt 32 0
%uint_0 = OpConstant %uint 0
%uint_1 = OpConstant %uint 1
%Buf = OpTypeStruct %uint %uint
%ptr_Buf = OpTypePointer StorageBuffer %Buf
%ptr_uint = OpTypePointer StorageBuffer %uint
%buf = OpVariable %ptr_Buf StorageBuffer
%main = OpFunction %void None %fn
%entry = OpLabel
%p = OpAccessChain %ptr_uint %buf %uint_0
%old = OpAtomicIAdd %uint %p %uint_1 %uint_0 %uint_1
%whole = OpLoad %Buf %buf
%changed = OpCompositeInsert %Buf %old %whole 1
OpStore %buf %changed
OpReturn
OpFunctionEnd
";
    let wgsl = spv2wgsl::translate(module.as_bytes(), &Options::default()).expect("translates").wgsl;
    let old = wgsl.find("atomicAdd(&global_3.member_0, 1u)").expect("the atomic add");
    let load =
        wgsl.find("(atomicLoad(&global_3.member_0), global_3.member_1)").expect("the struct built of its members");
    let store = wgsl.find("atomicStore(&global_3.member_0, ").expect("the atomic member stored atomically");
    let plain = wgsl.find("global_3.member_1 = ").expect("the other member stored plainly");
    assert!(old < load && load < store && load < plain, "{wgsl}");
}

#[test]
fn a_sampler_at_an_images_binding_gets_a_binding_of_its_own() {
    // Vulkan reads a combined image sampler descriptor through an image and a sampler variable at
    // one binding (HLSL `register(t3)` with `register(s3)`); WGSL needs two bindings.
    let decorations = "OpName %smp \"smp\"
OpDecorate %texture DescriptorSet 1
OpDecorate %texture Binding 3
OpDecorate %smp DescriptorSet 1
OpDecorate %smp Binding 3
OpDecorate %other DescriptorSet 1
OpDecorate %other Binding 4";
    let declarations = "%image = OpTypeImage %float 2D 0 0 0 1 Unknown
%sampled = OpTypeSampledImage %image
%ptr_image = OpTypePointer UniformConstant %image
%texture = OpVariable %ptr_image UniformConstant
%other = OpVariable %ptr_image UniformConstant
%smp = OpVariable %ptr_sampler UniformConstant";
    let body = "%t = OpLoad %image %texture
%o = OpLoad %image %other
%s = OpLoad %sampler %smp
%si = OpSampledImage %sampled %t %s
%texel = OpImageSampleImplicitLod %v4float %si %uv
%oi = OpSampledImage %sampled %o %s
%texel2 = OpImageSampleImplicitLod %v4float %oi %uv";
    let module = fragment_with(decorations, declarations, body);
    let translation = spv2wgsl::translate(module.as_bytes(), &Options::default()).expect("translates");
    let wgsl = &translation.wgsl;
    assert!(wgsl.contains("@group(1) @binding(3) var global_") && wgsl.contains(": texture_2d<f32>;"), "{wgsl}");
    assert!(wgsl.contains("@group(1) @binding(5) var smp: sampler;"), "{wgsl}");
    let smp = translation.bindings.iter().find(|b| b.name == "smp").expect("the sampler is bound");
    assert!(smp.assigned);
    assert_eq!(smp.origin, Some(spv2wgsl::BindingOrigin::SharedWithImage));
    assert_eq!(smp.original, spv2wgsl::Original { set: Some(1), binding: Some(3), name: Some("smp".into()) });
    let moved =
        |w: &&spv2wgsl::Warning| w.message.contains("sampler `smp`") && w.message.contains("@group(1) @binding(5)");
    let warning = translation.warnings.iter().find(moved).unwrap_or_else(|| panic!("{:?}", translation.warnings));
    // The warning points at the sampler variable that moved.
    assert_eq!(warning.location.opcode, Some(spirv::Op::Variable), "{warning}");
    assert!(warning.location.word_offset.is_some() && warning.location.result_id.is_some(), "{warning}");
}

#[test]
fn resources_one_entry_point_uses_at_one_binding_get_bindings_of_their_own() {
    // Two views of one storage buffer (Vulkan aliasing): all but the first declared move, and
    // the binding map says where they came from.
    let module = "OpCapability Shader
OpMemoryModel Logical GLSL450
OpEntryPoint GLCompute %main \"main\"
OpExecutionMode %main LocalSize 1 1 1
OpName %floats \"floats\"
OpName %words \"words\"
OpDecorate %Floats Block
OpMemberDecorate %Floats 0 Offset 0
OpDecorate %Words Block
OpMemberDecorate %Words 0 Offset 0
OpDecorate %float_array ArrayStride 4
OpDecorate %uint_array ArrayStride 4
OpDecorate %floats DescriptorSet 1
OpDecorate %floats Binding 2
OpDecorate %words DescriptorSet 1
OpDecorate %words Binding 2
%void = OpTypeVoid
%fn = OpTypeFunction %void
%float = OpTypeFloat 32
%uint = OpTypeInt 32 0
%uint_0 = OpConstant %uint 0
%uint_1 = OpConstant %uint 1
%float_array = OpTypeRuntimeArray %float
%uint_array = OpTypeRuntimeArray %uint
%Floats = OpTypeStruct %float_array
%Words = OpTypeStruct %uint_array
%ptr_Floats = OpTypePointer StorageBuffer %Floats
%ptr_Words = OpTypePointer StorageBuffer %Words
%ptr_float = OpTypePointer StorageBuffer %float
%ptr_uint = OpTypePointer StorageBuffer %uint
%floats = OpVariable %ptr_Floats StorageBuffer
%words = OpVariable %ptr_Words StorageBuffer
%main = OpFunction %void None %fn
%entry = OpLabel
%p = OpAccessChain %ptr_float %floats %uint_0 %uint_0
%x = OpLoad %float %p
%bits = OpBitcast %uint %x
%q = OpAccessChain %ptr_uint %words %uint_0 %uint_1
OpStore %q %bits
OpReturn
OpFunctionEnd
";
    let translation = spv2wgsl::translate(module.as_bytes(), &Options::default()).expect("translates");
    let wgsl = &translation.wgsl;
    assert!(wgsl.contains("@group(1) @binding(2) var<storage, read_write> floats: "), "{wgsl}");
    assert!(wgsl.contains("@group(1) @binding(3) var<storage, read_write> words: "), "{wgsl}");
    let words = translation.bindings.iter().find(|b| b.name == "words").expect("`words` is bound");
    assert!(words.assigned);
    assert_eq!(words.origin, Some(spv2wgsl::BindingOrigin::Aliased));
    assert_eq!(words.original, spv2wgsl::Original { set: Some(1), binding: Some(2), name: Some("words".into()) });
    let moved = |w: &&spv2wgsl::Warning| {
        w.message.contains("`words`, which shared `floats`'s binding (set 1, binding 2)")
            && w.message.contains("@group(1) @binding(3)")
    };
    let warning = translation.warnings.iter().find(moved).unwrap_or_else(|| panic!("{:?}", translation.warnings));
    assert_eq!(warning.location.opcode, Some(spirv::Op::Variable), "{warning}");
}

#[test]
fn entry_points_may_use_different_resources_at_one_binding() {
    // `buf` is the vertex shader's, `out` the compute shader's: WGSL checks bindings per entry point.
    let body = "%x = OpLoad %float %p\n%v = OpCompositeConstruct %v4float %x %x %x %float_1\nOpStore %position %v";
    let module = vertex_and_compute(body).replace("OpDecorate %out Binding 1", "OpDecorate %out Binding 0");
    let wgsl = spv2wgsl::translate(module.as_bytes(), &Options::default()).expect("translates").wgsl;
    assert!(wgsl.contains("@group(0) @binding(0) var<storage, read> buf: Buf;"), "{wgsl}");
    assert!(wgsl.contains("@group(0) @binding(0) var<storage, read_write> out: Buf;"), "{wgsl}");
}
