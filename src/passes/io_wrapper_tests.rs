//! The I/O rules that show in errors, warnings and the plan rather than in a fixture's WGSL.

use crate::spirv::{IoBinding, IoPlan, IoSource, Module, Type, WorkgroupDimension};
use crate::{Options, translate};

/// A module with one entry point of `model` (interface `interface`), the execution modes,
/// decorations and variables given, and `body` as the whole of `main`.
fn shader(model: &str, interface: &str, modes: &str, decorations: &str, variables: &str, body: &str) -> String {
    format!(
        "OpCapability Shader\n\
         OpCapability Geometry\n\
         OpMemoryModel Logical GLSL450\n\
         OpEntryPoint {model} %main \"main\" {interface}\n\
         {modes}\n\
         {decorations}\n\
         %void = OpTypeVoid\n\
         %fn = OpTypeFunction %void\n\
         %float = OpTypeFloat 32\n\
         %int = OpTypeInt 32 1\n\
         %uint = OpTypeInt 32 0\n\
         %v4float = OpTypeVector %float 4\n\
         %uint_1 = OpConstant %uint 1\n\
         %uint_2 = OpConstant %uint 2\n\
         %int_0 = OpConstant %int 0\n\
         %int_1 = OpConstant %int 1\n\
         %float_1 = OpConstant %float 1\n\
         %float_2 = OpConstant %float 2\n\
         %ptr_out_float = OpTypePointer Output %float\n\
         %ptr_out_int = OpTypePointer Output %int\n\
         %ptr_out_v4 = OpTypePointer Output %v4float\n\
         %ptr_in_int = OpTypePointer Input %int\n\
         {variables}\n\
         %main = OpFunction %void None %fn\n\
         %entry = OpLabel\n\
         {body}\n\
         OpReturn\n\
         OpFunctionEnd\n"
    )
}

/// glslang's gl_PerVertex block with position and point size, `%per_vertex`.
const PER_VERTEX_DECORATIONS: &str = "OpMemberDecorate %PerVertex 0 BuiltIn Position\n\
    OpMemberDecorate %PerVertex 1 BuiltIn PointSize\n\
    OpDecorate %PerVertex Block";
const PER_VERTEX: &str = "%PerVertex = OpTypeStruct %v4float %float\n\
    %ptr_out_pv = OpTypePointer Output %PerVertex\n\
    %per_vertex = OpVariable %ptr_out_pv Output";

/// A vertex shader storing `value` to gl_PointSize.
fn point_size(value: &str) -> String {
    let body = format!("%ps = OpAccessChain %ptr_out_float %per_vertex %int_1\nOpStore %ps {value}");
    shader("Vertex", "%per_vertex", "", PER_VERTEX_DECORATIONS, PER_VERTEX, &body)
}

fn error(text: &str) -> String {
    translate(text.as_bytes(), &Options::default()).expect_err("the translation should fail").to_string()
}

/// The module after the passes up to `io_wrapper`.
fn planned(text: &str) -> Module {
    let words = crate::spirv::assemble::assemble(text).expect("assembles").words;
    let mut module = crate::spirv::load::load(&words).expect("loads");
    let options = Options::default();
    super::super::entry_points::run(&mut module, &options).expect("entry points");
    super::super::structurize::run(&mut module, &options).expect("structurizes");
    super::run(&mut module, &options).expect("plans");
    module
}

fn plan(module: &Module) -> &IoPlan {
    module.entry_points[0].io.as_ref().expect("a plan")
}

#[test]
fn point_size_other_than_one_is_an_error_or_with_the_option_a_warning() {
    let two = point_size("%float_2");
    assert!(error(&two).contains("gl_PointSize"), "{}", error(&two));
    let options = Options { ignore_point_size: true, ..Options::default() };
    let translation = translate(two.as_bytes(), &options).expect("translates with --ignore-point-size");
    assert!(translation.warnings.iter().any(|w| w.message.contains("gl_PointSize")), "{:?}", translation.warnings);
    let one = translate(point_size("%float_1").as_bytes(), &Options::default()).expect("1.0 is accepted");
    assert!(one.warnings.is_empty(), "{:?}", one.warnings);
    assert!(!one.wgsl.contains("@builtin(point"), "{}", one.wgsl);
}

#[test]
fn an_unused_position_is_synthesised_not_copied() {
    // The block is declared and only its point size (1.0) written: the position is undefined.
    let module = planned(&point_size("%float_1"));
    let outputs = &plan(&module).outputs;
    assert_eq!(outputs.len(), 1, "{outputs:?}");
    assert_eq!(outputs[0].source, IoSource::Zero);
    assert!(matches!(outputs[0].binding, IoBinding::BuiltIn { name: "position", .. }));
}

#[test]
fn builtins_wgsl_lacks_are_errors_naming_the_builtin_and_stage() {
    let layer = shader(
        "Vertex",
        "%layer",
        "",
        "OpDecorate %layer BuiltIn Layer",
        "%layer = OpVariable %ptr_out_int Output",
        "OpStore %layer %int_1",
    );
    let message = error(&layer);
    assert!(message.contains("Layer") && message.contains("vertex shader output"), "{message}");
    let depth_in = shader(
        "Fragment",
        "%depth",
        "OpExecutionMode %main OriginUpperLeft",
        "OpDecorate %depth BuiltIn FragDepth",
        "%ptr_in_float = OpTypePointer Input %float\n%depth = OpVariable %ptr_in_float Input",
        "%d = OpLoad %float %depth",
    );
    let message = error(&depth_in);
    assert!(message.contains("fragment shader input") && message.contains("frag_depth"), "{message}");
}

#[test]
fn a_builtin_of_the_wrong_shape_is_an_error() {
    let text = shader(
        "Fragment",
        "%mask",
        "OpExecutionMode %main OriginUpperLeft",
        "OpDecorate %mask BuiltIn SampleMask",
        "%arr2 = OpTypeArray %int %uint_2\n%ptr_out_arr2 = OpTypePointer Output %arr2\n%mask = OpVariable %ptr_out_arr2 Output",
        "%m0 = OpAccessChain %ptr_out_int %mask %int_0\nOpStore %m0 %int_1",
    );
    let message = error(&text);
    assert!(message.contains("array<i32, 2>") && message.contains("sample_mask"), "{message}");
}

#[test]
fn signed_builtins_keep_their_type_and_get_wgsl_s_at_the_interface() {
    let text = shader(
        "Vertex",
        "%index",
        "",
        "OpDecorate %index BuiltIn VertexIndex",
        "%index = OpVariable %ptr_in_int Input",
        "%i = OpLoad %int %index",
    );
    let module = planned(&text);
    let input = &plan(&module).inputs[0];
    assert!(matches!(module.ty(input.ty), Ok(Type::Int { signed: true, .. })));
    assert!(matches!(module.ty(input.wgsl_ty), Ok(Type::Int { signed: false, .. })));
    let wgsl = translate(text.as_bytes(), &Options::default()).expect("translates").wgsl;
    // Read from the parameter where it is loaded: no private copy.
    assert!(wgsl.contains("@builtin(vertex_index) vertex_index: u32"), "{wgsl}");
    assert!(!wgsl.contains("var<private>"), "{wgsl}");
}

#[test]
fn execution_modes_wgsl_lacks_are_warned_about_or_rejected() {
    let fragment = |mode: &str| {
        shader(
            "Fragment",
            "%out",
            &format!("OpExecutionMode %main {mode}"),
            "OpDecorate %out Location 0",
            "%out = OpVariable %ptr_out_float Output",
            "OpStore %out %float_1",
        )
    };
    let early = translate(fragment("EarlyFragmentTests").as_bytes(), &Options::default()).expect("translates");
    assert!(early.warnings.iter().any(|w| w.message.contains("EarlyFragmentTests")), "{:?}", early.warnings);
    let upper = translate(fragment("OriginUpperLeft").as_bytes(), &Options::default()).expect("translates");
    assert!(upper.warnings.is_empty(), "{:?}", upper.warnings);
    assert!(error(&fragment("OriginLowerLeft")).contains("OriginLowerLeft"));
}

#[test]
fn a_value_alone_at_a_component_other_than_0_is_packed_into_a_vec4() {
    let text = shader(
        "Fragment",
        "%out",
        "OpExecutionMode %main OriginUpperLeft",
        "OpDecorate %out Location 0\nOpDecorate %out Component 2",
        "%out = OpVariable %ptr_out_float Output",
        "OpStore %out %float_1",
    );
    let wgsl = translate(text.as_bytes(), &Options::default()).expect("translates").wgsl;
    assert!(wgsl.contains("-> @location(0) vec4<f32>"), "{wgsl}");
    assert!(wgsl.contains("return vec4<f32>(0.0f, 0.0f, out_location_0, 0.0f);"), "{wgsl}");
}

#[test]
fn unused_inputs_are_dropped_and_outputs_at_locations_kept() {
    let text = shader(
        "Fragment",
        "%unused_in %unused_out",
        "OpExecutionMode %main OriginUpperLeft",
        "OpDecorate %unused_in Location 0\nOpDecorate %unused_in Flat\nOpDecorate %unused_out Location 1",
        "%unused_in = OpVariable %ptr_in_int Input\n%unused_out = OpVariable %ptr_out_float Output",
        "",
    );
    let module = planned(&text);
    assert!(plan(&module).inputs.is_empty());
    assert!(
        matches!(plan(&module).outputs[..], [ref out] if matches!(out.binding, IoBinding::Location { location: 1, .. }))
    );
}

#[test]
fn point_size_writes_are_followed_through_copies_and_whole_block_stores() {
    let through_copy = "%ps = OpAccessChain %ptr_out_float %per_vertex %int_1\n\
        %copy = OpCopyObject %ptr_out_float %ps\n\
        OpStore %copy %float_2";
    let text = shader("Vertex", "%per_vertex", "", PER_VERTEX_DECORATIONS, PER_VERTEX, through_copy);
    assert!(error(&text).contains("gl_PointSize"), "{}", error(&text));
    let whole = |size: &str| {
        let variables =
            format!("{PER_VERTEX}\n%ones = OpConstantComposite %v4float %float_1 %float_1 %float_1 %float_1");
        let body = format!("%block = OpCompositeConstruct %PerVertex %ones {size}\nOpStore %per_vertex %block");
        shader("Vertex", "%per_vertex", "", PER_VERTEX_DECORATIONS, &variables, &body)
    };
    assert!(error(&whole("%float_2")).contains("gl_PointSize"));
    let one = translate(whole("%float_1").as_bytes(), &Options::default()).expect("1.0 in a whole-block store");
    assert!(one.wgsl.contains("@builtin(position)") && one.wgsl.contains("per_vertex.member_0"), "{}", one.wgsl);
}

#[test]
fn the_workgroup_size_comes_from_local_size_id_or_the_decorated_constant() {
    let compute = |modes: &str, decorations: &str, variables: &str| {
        let text = shader("GLCompute", "", modes, decorations, variables, "");
        plan(&planned(&text)).workgroup_size.map(|size| {
            size.map(|d| match d {
                WorkgroupDimension::Literal(d) => d,
                WorkgroupDimension::Constant(id) => panic!("%{id} is no specialization constant"),
            })
        })
    };
    let by_id = compute("OpExecutionModeId %main LocalSizeId %uint_2 %uint_1 %uint_2", "", "");
    assert_eq!(by_id, Some([2, 1, 2]));
    let decorated = compute(
        "OpExecutionMode %main LocalSize 64 1 1",
        "OpDecorate %size BuiltIn WorkgroupSize",
        "%v3uint = OpTypeVector %uint 3\n%size = OpConstantComposite %v3uint %uint_2 %uint_2 %uint_1",
    );
    assert_eq!(decorated, Some([2, 2, 1]), "the decorated constant wins over LocalSize");
}

/// A fragment shader writing `a` and `b` (types `a_ty`, `b_ty`) at location 0, components 0 and
/// `b_component`.
fn shared_location(a_ty: &str, b_ty: &str, b_component: u32) -> String {
    let decorations = format!(
        "OpDecorate %a Location 0\nOpDecorate %b Location 0\nOpDecorate %b Component {b_component}\n\
         OpDecorate %a Component 0"
    );
    let variables = format!("%a = OpVariable {a_ty} Output\n%b = OpVariable {b_ty} Output");
    shader("Fragment", "%a %b", "OpExecutionMode %main OriginUpperLeft", &decorations, &variables, "")
}

#[test]
fn values_sharing_a_location_are_packed_at_their_components() {
    let module = planned(&shared_location("%ptr_out_float", "%ptr_out_float", 2));
    let components: Vec<Option<u32>> = plan(&module)
        .outputs
        .iter()
        .map(|v| match v.binding {
            IoBinding::Location { location: 0, component, .. } => component,
            _ => panic!("{:?}", v.binding),
        })
        .collect();
    assert_eq!(components, [Some(0), Some(2)]);
}

#[test]
fn values_sharing_a_location_must_fit_one_vec4_of_one_kind() {
    let overlapping = error(&shared_location("%ptr_out_v4", "%ptr_out_float", 3));
    assert!(overlapping.contains("overlaps another value"), "{overlapping}");
    let mixed = error(&shared_location("%ptr_out_float", "%ptr_out_int", 1));
    assert!(mixed.contains("floats and integers cannot share a location"), "{mixed}");
}
