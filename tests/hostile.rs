//! Modules built to exhaust the translator: each must give a translation or a clear error, never
//! a stack overflow or a hang. They are generated here rather than stored, being large.

mod common;

use spv2wgsl::{Error, Options, translate};

const HEADER: &str = "\
OpCapability Shader
OpMemoryModel Logical GLSL450
OpEntryPoint GLCompute %main \"main\"
OpExecutionMode %main LocalSize 1 1 1
OpDecorate %buf DescriptorSet 0
OpDecorate %buf Binding 0
OpDecorate %S Block
OpMemberDecorate %S 0 Offset 0
%void = OpTypeVoid
%fn = OpTypeFunction %void
%bool = OpTypeBool
%uint = OpTypeInt 32 0
%S = OpTypeStruct %uint
%pS = OpTypePointer StorageBuffer %S
%buf = OpVariable %pS StorageBuffer
%pu = OpTypePointer StorageBuffer %uint
%u0 = OpConstant %uint 0
%u1 = OpConstant %uint 1
%main = OpFunction %void None %fn
%entry = OpLabel
%p = OpAccessChain %pu %buf %u0
%v0 = OpLoad %uint %p
";

/// naga's validator is far slower than the translation on modules this size: these tests are
/// about the translator.
fn unvalidated() -> Options {
    Options { validate: false, ..Options::default() }
}

#[test]
fn a_long_chain_of_single_use_values_is_split_into_lets() {
    let n = 100_000;
    let mut asm = String::from(HEADER);
    for i in 1..=n {
        asm += &format!("%v{i} = OpIAdd %uint %v{} %u1\n", i - 1);
    }
    asm += &format!("OpStore %p %v{n}\nOpReturn\nOpFunctionEnd\n");
    let wgsl = translate(asm.as_bytes(), &unvalidated()).expect("translates").wgsl;
    // Every addition is kept, spread over `let`s of bounded depth.
    assert_eq!(wgsl.matches("+ 1u").count(), n);
    assert!(wgsl.matches("let ").count() > n / 64, "expected the chain to be cut into lets");
}

#[test]
fn selections_nested_beyond_the_limit_are_refused() {
    let depth = 100_000;
    let mut asm = String::from(HEADER);
    asm += "%c = OpIEqual %bool %v0 %u0\n";
    for i in 0..depth {
        asm += &format!("OpSelectionMerge %m{i} None\nOpBranchConditional %c %b{i} %m{i}\n%b{i} = OpLabel\n");
    }
    asm += "OpStore %p %u1\n";
    for i in (0..depth).rev() {
        asm += &format!("OpBranch %m{i}\n%m{i} = OpLabel\n");
    }
    asm += "OpReturn\nOpFunctionEnd\n";
    match translate(asm.as_bytes(), &unvalidated()) {
        Err(error @ Error::Unsupported { .. }) => assert!(error.to_string().contains("nested"), "{error}"),
        other => panic!("expected a nesting error, got {:?}", other.map(|t| t.wgsl.len())),
    }
}

/// `depth` constructs, each made by `open` and `close` (given its level), around a store.
fn nested(depth: usize, open: impl Fn(usize) -> String, close: impl Fn(usize) -> String) -> String {
    let mut asm = String::from(HEADER);
    asm += "%c = OpIEqual %bool %v0 %u0\n";
    asm.extend((0..depth).map(&open));
    asm += "OpStore %p %u1\n";
    asm.extend((0..depth).rev().map(&close));
    asm + "OpReturn\nOpFunctionEnd\n"
}

/// Runs `f` on a thread with a stack of 64 MB. naga's validator and WGSL front end, built for
/// debugging as the tests are, take about 75 KB of stack for each level a block nests in
/// another, more than a test thread's 2 MB holds at Tint's depth; built for release, far less.
fn on_a_large_stack<T: Send>(f: impl FnOnce() -> T + Send) -> T {
    std::thread::scope(|scope| {
        let thread = std::thread::Builder::new().stack_size(64 << 20).spawn_scoped(scope, f).expect("a thread");
        thread.join().unwrap_or_else(|panic| std::panic::resume_unwind(panic))
    })
}

/// Tint counts a loop two levels and a switch case three, and takes 126 (`wgsl/nesting.rs`):
/// the deepest nest it takes translates, valid for naga and Tint, and one level more is refused.
#[test]
fn control_flow_nests_as_deep_as_tint_takes_and_no_deeper() {
    let loop_open = |i| {
        format!(
            "OpBranch %h{i}\n%h{i} = OpLabel\nOpLoopMerge %m{i} %k{i} None\nOpBranchConditional %c %b{i} %m{i}\n%b{i} = OpLabel\n"
        )
    };
    let loop_close = |i| format!("OpBranch %k{i}\n%k{i} = OpLabel\nOpBranch %h{i}\n%m{i} = OpLabel\n");
    let switch_open = |i| format!("OpSelectionMerge %m{i} None\nOpSwitch %v0 %m{i} 1 %b{i}\n%b{i} = OpLabel\n");
    let switch_close = |i| format!("OpBranch %m{i}\n%m{i} = OpLabel\n");
    let cases: [(&str, usize, String, String); 2] = [
        ("loops", 62, nested(62, loop_open, loop_close), nested(63, loop_open, loop_close)),
        ("switches", 41, nested(41, switch_open, switch_close), nested(42, switch_open, switch_close)),
    ];
    for (what, depth, deepest, deeper) in cases {
        let wgsl = on_a_large_stack(|| translate(deepest.as_bytes(), &Options::default()))
            .unwrap_or_else(|e| panic!("{depth} {what}: {e}"))
            .wgsl;
        let (_, problems) = on_a_large_stack(|| common::validate_wgsl(&wgsl, what));
        assert!(problems.is_empty(), "{depth} {what}: {problems:?}");
        match translate(deeper.as_bytes(), &Options::default()) {
            Err(error @ Error::Unsupported { .. }) => assert!(error.to_string().contains("Tint"), "{error}"),
            other => panic!("{} {what}: expected a nesting error, got {:?}", depth + 1, other.map(|t| t.wgsl.len())),
        }
    }
}

#[test]
fn a_switch_with_many_cases_translates() {
    let cases = 20_000;
    let mut asm = String::from(HEADER);
    let mut switch = String::from("OpSelectionMerge %merge None\nOpSwitch %v0 %merge");
    let mut bodies = String::new();
    for i in 0..cases {
        switch += &format!(" {} %case{i}", i + 1);
        bodies += &format!("%case{i} = OpLabel\n%r{i} = OpIAdd %uint %v0 %u1\nOpStore %p %r{i}\nOpBranch %merge\n");
    }
    asm += &format!("{switch}\n{bodies}%merge = OpLabel\nOpReturn\nOpFunctionEnd\n");
    let wgsl = translate(asm.as_bytes(), &unvalidated()).expect("translates").wgsl;
    assert_eq!(wgsl.matches("case ").count(), cases);
}

#[test]
fn a_chain_of_switch_fall_throughs_is_bounded() {
    // Each case falls into the next: lowering by duplication would emit n^2/2 blocks.
    let cases = 5_000;
    let mut asm = String::from(HEADER);
    let mut switch = String::from("OpSelectionMerge %merge None\nOpSwitch %v0 %merge");
    let mut bodies = String::new();
    for i in 0..cases {
        switch += &format!(" {} %case{i}", i + 1);
        let next = if i + 1 < cases { format!("%case{}", i + 1) } else { "%merge".into() };
        bodies += &format!("%case{i} = OpLabel\nOpStore %p %u{}\nOpBranch {next}\n", i % 2);
    }
    asm += &format!("{switch}\n{bodies}%merge = OpLabel\nOpReturn\nOpFunctionEnd\n");
    match translate(asm.as_bytes(), &unvalidated()) {
        Ok(_) => {}
        Err(error @ Error::Unsupported { .. }) => assert!(error.to_string().contains("duplicated"), "{error}"),
        Err(other) => panic!("unexpected error: {other}"),
    }
}

#[test]
fn types_nested_beyond_the_limit_are_refused() {
    // array<array<...<u32, 1>..., 1>, 1> nested 100k deep, then used.
    let depth = 100_000;
    let mut asm = String::from(HEADER.split("%main = OpFunction").next().unwrap_or_default());
    asm += "%t0 = OpTypeArray %uint %u1\n";
    for i in 1..depth {
        asm += &format!("%t{i} = OpTypeArray %t{} %u1\n", i - 1);
    }
    asm += &format!("%pt = OpTypePointer Private %t{}\n%g = OpVariable %pt Private\n", depth - 1);
    asm += "%main = OpFunction %void None %fn\n%entry = OpLabel\n%x = OpLoad %t99999 %g\nOpStore %g %x\nOpReturn\nOpFunctionEnd\n";
    match translate(asm.as_bytes(), &unvalidated()) {
        Err(error @ Error::Unsupported { .. }) => assert!(error.to_string().contains("nested"), "{error}"),
        other => panic!("expected a nesting error, got {:?}", other.map(|t| t.wgsl.len())),
    }
}

// The shapes below once took time quadratic in the module: each test would run for minutes.

#[test]
fn many_vertex_entry_points_each_reading_a_buffer_of_its_own() {
    // Each writable storage buffer asked whether any vertex shader reaches it (a walk per vertex
    // entry point) and whether anything writes it (a walk of the module).
    let n = 20_000;
    let mut asm = String::from("OpCapability Shader\nOpMemoryModel Logical GLSL450\n");
    for i in 0..n {
        asm += &format!("OpEntryPoint Vertex %e{i} \"e{i}\" %position\n");
    }
    asm += "OpDecorate %position BuiltIn Position\nOpDecorate %S Block\nOpMemberDecorate %S 0 Offset 0\n";
    for i in 0..n {
        asm += &format!("OpDecorate %b{i} DescriptorSet 0\nOpDecorate %b{i} Binding {i}\n");
    }
    asm += "%void = OpTypeVoid\n%fn = OpTypeFunction %void\n%float = OpTypeFloat 32\n%v4 = OpTypeVector %float 4\n\
            %uint = OpTypeInt 32 0\n%u0 = OpConstant %uint 0\n%S = OpTypeStruct %v4\n%pS = OpTypePointer StorageBuffer %S\n\
            %pv = OpTypePointer StorageBuffer %v4\n%po = OpTypePointer Output %v4\n%position = OpVariable %po Output\n";
    for i in 0..n {
        asm += &format!("%b{i} = OpVariable %pS StorageBuffer\n");
    }
    for i in 0..n {
        asm += &format!(
            "%e{i} = OpFunction %void None %fn\n%l{i} = OpLabel\n%p{i} = OpAccessChain %pv %b{i} %u0\n\
             %x{i} = OpLoad %v4 %p{i}\nOpStore %position %x{i}\nOpReturn\nOpFunctionEnd\n"
        );
    }
    let wgsl = translate(asm.as_bytes(), &unvalidated()).expect("translates").wgsl;
    assert_eq!(wgsl.matches("@vertex").count(), n);
    // Only read by vertex shaders, every buffer is read-only in WGSL.
    assert_eq!(wgsl.matches("var<storage, read> ").count(), n);
}

#[test]
fn many_compute_entry_points_each_with_a_buffer_of_its_own_at_one_binding() {
    // Legal (WGSL checks bindings per entry point), and once a table of every global per entry
    // point: 8,000 of them took 80 MB.
    let n = 20_000;
    let mut asm = String::from("OpCapability Shader\nOpMemoryModel Logical GLSL450\n");
    for i in 0..n {
        asm += &format!("OpEntryPoint GLCompute %e{i} \"e{i}\"\nOpExecutionMode %e{i} LocalSize 1 1 1\n");
    }
    asm += "OpDecorate %S Block\nOpMemberDecorate %S 0 Offset 0\n";
    for i in 0..n {
        asm += &format!("OpDecorate %b{i} DescriptorSet 0\nOpDecorate %b{i} Binding 0\n");
    }
    asm += "%void = OpTypeVoid\n%fn = OpTypeFunction %void\n%uint = OpTypeInt 32 0\n%u0 = OpConstant %uint 0\n\
            %S = OpTypeStruct %uint\n%pS = OpTypePointer StorageBuffer %S\n%pu = OpTypePointer StorageBuffer %uint\n";
    for i in 0..n {
        asm += &format!("%b{i} = OpVariable %pS StorageBuffer\n");
    }
    for i in 0..n {
        asm += &format!(
            "%e{i} = OpFunction %void None %fn\n%l{i} = OpLabel\n%p{i} = OpAccessChain %pu %b{i} %u0\n\
             OpStore %p{i} %u0\nOpReturn\nOpFunctionEnd\n"
        );
    }
    let wgsl = translate(asm.as_bytes(), &unvalidated()).expect("translates").wgsl;
    assert_eq!(wgsl.matches("@compute").count(), n);
    assert_eq!(wgsl.matches("@group(0) @binding(0) var<storage, read_write> ").count(), n);
}

#[test]
fn a_merge_with_many_phis_each_used_once() {
    // Taking each pending single-use value searched the list of those pending.
    let n = 50_000;
    let mut asm = String::from(HEADER);
    asm += "%c = OpIEqual %bool %v0 %u0\nOpSelectionMerge %m None\nOpBranchConditional %c %t %m\n%t = OpLabel\n";
    for i in 0..n {
        asm += &format!("%a{i} = OpIAdd %uint %v0 %u{}\n", i % 2);
    }
    asm += "OpBranch %m\n%m = OpLabel\n";
    for i in 0..n {
        asm += &format!("%f{i} = OpPhi %uint %a{i} %t %v0 %entry\n");
    }
    asm += "%s0 = OpCopyObject %uint %v0\n";
    for i in 0..n {
        asm += &format!("%s{} = OpIAdd %uint %s{i} %f{i}\n", i + 1);
    }
    asm += &format!("OpStore %p %s{n}\nOpReturn\nOpFunctionEnd\n");
    let wgsl = translate(asm.as_bytes(), &unvalidated()).expect("translates").wgsl;
    // Every phi is a variable assigned in the branch.
    assert!(wgsl.matches("var ").count() >= n, "{} vars", wgsl.matches("var ").count());
}

#[test]
fn many_uniform_blocks_of_one_member() {
    // Member decorations are keyed by (struct, member): member 0 of every struct shared a bucket.
    let n = 20_000;
    let mut asm = String::from(HEADER.split("%void = OpTypeVoid").next().unwrap_or_default());
    for i in 0..n {
        asm += &format!(
            "OpDecorate %T{i} Block\nOpMemberDecorate %T{i} 0 Offset 0\nOpDecorate %g{i} DescriptorSet 1\nOpDecorate %g{i} Binding {i}\n"
        );
    }
    asm += "%void = OpTypeVoid\n%fn = OpTypeFunction %void\n%bool = OpTypeBool\n%uint = OpTypeInt 32 0\n%S = OpTypeStruct %uint\n\
            %pS = OpTypePointer StorageBuffer %S\n%buf = OpVariable %pS StorageBuffer\n%pu = OpTypePointer StorageBuffer %uint\n\
            %qu = OpTypePointer Uniform %uint\n%u0 = OpConstant %uint 0\n";
    for i in 0..n {
        asm += &format!(
            "%T{i} = OpTypeStruct %uint\n%pT{i} = OpTypePointer Uniform %T{i}\n%g{i} = OpVariable %pT{i} Uniform\n"
        );
    }
    asm +=
        "%main = OpFunction %void None %fn\n%entry = OpLabel\n%p = OpAccessChain %pu %buf %u0\n%v0 = OpLoad %uint %p\n";
    for i in 0..n {
        asm += &format!(
            "%q{i} = OpAccessChain %qu %g{i} %u0\n%l{i} = OpLoad %uint %q{i}\n%v{} = OpIAdd %uint %v{i} %l{i}\n",
            i + 1
        );
    }
    asm += &format!("OpStore %p %v{n}\nOpReturn\nOpFunctionEnd\n");
    let wgsl = translate(asm.as_bytes(), &unvalidated()).expect("translates").wgsl;
    assert_eq!(wgsl.matches("var<uniform> ").count(), n);
}

#[test]
fn many_combined_image_samplers() {
    // Each split sampler's binding was found by scanning every binding taken and every binding
    // made, and each unused sampler was dropped by a pass over all of them.
    let n = 20_000;
    let mut asm = String::from(
        "OpCapability Shader\nOpMemoryModel Logical GLSL450\nOpEntryPoint Fragment %main \"main\" %out\n\
         OpExecutionMode %main OriginUpperLeft\nOpDecorate %out Location 0\n",
    );
    for i in 0..n {
        asm += &format!("OpDecorate %t{i} DescriptorSet {}\nOpDecorate %t{i} Binding {}\n", i % 4, i / 4);
    }
    asm += "%void = OpTypeVoid\n%fn = OpTypeFunction %void\n%float = OpTypeFloat 32\n%int = OpTypeInt 32 1\n\
            %v2 = OpTypeVector %float 2\n%v2i = OpTypeVector %int 2\n%v4 = OpTypeVector %float 4\n%i0 = OpConstant %int 0\n\
            %f0 = OpConstant %float 0\n%uv = OpConstantComposite %v2 %f0 %f0\n%uvi = OpConstantComposite %v2i %i0 %i0\n\
            %img = OpTypeImage %float 2D 0 0 0 1 Unknown\n%si = OpTypeSampledImage %img\n\
            %psi = OpTypePointer UniformConstant %si\n%po = OpTypePointer Output %v4\n%out = OpVariable %po Output\n\
            %zero = OpConstantNull %v4\n";
    for i in 0..n {
        asm += &format!("%t{i} = OpVariable %psi UniformConstant\n");
    }
    asm += "%main = OpFunction %void None %fn\n%entry = OpLabel\n%a0 = OpCopyObject %v4 %zero\n";
    for i in 0..n {
        // Even ones are sampled (their sampler is kept), odd ones only fetched from (it is not).
        asm += &format!("%s{i} = OpLoad %si %t{i}\n");
        asm += &if i % 2 == 0 {
            format!("%c{i} = OpImageSampleImplicitLod %v4 %s{i} %uv\n")
        } else {
            format!("%m{i} = OpImage %img %s{i}\n%c{i} = OpImageFetch %v4 %m{i} %uvi Lod %i0\n")
        };
        asm += &format!("%a{} = OpFAdd %v4 %a{i} %c{i}\n", i + 1);
    }
    asm += &format!("OpStore %out %a{n}\nOpReturn\nOpFunctionEnd\n");
    let wgsl = translate(asm.as_bytes(), &unvalidated()).expect("translates").wgsl;
    assert_eq!(wgsl.matches(": texture_2d<f32>;").count(), n);
    assert_eq!(wgsl.matches(": sampler;").count(), n / 2);
}

#[test]
fn many_overrides_read_along_a_chain_of_functions() {
    // The uniformity analysis copied every uniform global (overrides among them) into its set of
    // uniform names for each function that calls another: 20,000 of each took 9 s.
    let n = 20_000;
    let mut asm = String::from(HEADER.split("%void = OpTypeVoid").next().unwrap_or_default());
    for i in 0..n {
        asm += &format!("OpDecorate %s{i} SpecId {i}\n");
    }
    asm += "%void = OpTypeVoid\n%fn = OpTypeFunction %void\n%uint = OpTypeInt 32 0\n%S = OpTypeStruct %uint\n\
            %pS = OpTypePointer StorageBuffer %S\n%buf = OpVariable %pS StorageBuffer\n%pu = OpTypePointer StorageBuffer %uint\n\
            %fu = OpTypeFunction %uint %uint\n%u0 = OpConstant %uint 0\n";
    for i in 0..n {
        asm += &format!("%s{i} = OpSpecConstant %uint {i}\n");
    }
    // Each function adds its override to what the next returns; the last returns its argument.
    for i in 0..n {
        asm += &format!("%f{i} = OpFunction %uint None %fu\n%x{i} = OpFunctionParameter %uint\n%l{i} = OpLabel\n");
        asm += &if i + 1 < n {
            format!("%y{i} = OpFunctionCall %uint %f{} %x{i}\n%w{i} = OpIAdd %uint %y{i} %s{i}\n", i + 1)
        } else {
            format!("%w{i} = OpCopyObject %uint %x{i}\n")
        };
        asm += &format!("OpReturnValue %w{i}\nOpFunctionEnd\n");
    }
    asm += "%main = OpFunction %void None %fn\n%entry = OpLabel\n%p = OpAccessChain %pu %buf %u0\n\
            %r = OpFunctionCall %uint %f0 %u0\nOpStore %p %r\nOpReturn\nOpFunctionEnd\n";
    let wgsl = translate(asm.as_bytes(), &unvalidated()).expect("translates").wgsl;
    // The last override is read by no function, so it is not declared.
    assert_eq!(wgsl.matches("override ").count(), n - 1);
    // The chain and the entry point (no I/O, so no wrapper).
    assert_eq!(wgsl.matches("fn ").count(), n + 1);
}

/// A compute shader storing `%result` (declared among `constants`, over spec constant `%s0`).
fn storing_a_spec_constant(constants: &str) -> String {
    let mut asm = String::from(HEADER.split("%void = OpTypeVoid").next().unwrap_or_default());
    asm += "OpDecorate %s0 SpecId 0\n%void = OpTypeVoid\n%fn = OpTypeFunction %void\n%uint = OpTypeInt 32 0\n\
            %v2 = OpTypeVector %uint 2\n%S = OpTypeStruct %uint\n%pS = OpTypePointer StorageBuffer %S\n\
            %buf = OpVariable %pS StorageBuffer\n%pu = OpTypePointer StorageBuffer %uint\n%u0 = OpConstant %uint 0\n\
            %u1 = OpConstant %uint 1\n%s0 = OpSpecConstant %uint 7\n";
    asm += constants;
    asm += "%main = OpFunction %void None %fn\n%entry = OpLabel\n%p = OpAccessChain %pu %buf %u0\n\
            OpStore %p %result\nOpReturn\nOpFunctionEnd\n";
    asm
}

#[test]
fn a_long_chain_of_specialization_constant_operations() {
    // Spelled inline, the chain recursed once per link and overflowed the stack.
    let n = 100_000;
    let mut constants = String::new();
    for i in 1..=n {
        constants += &format!("%s{i} = OpSpecConstantOp %uint IAdd %s{} %u1\n", i - 1);
    }
    constants += &format!("%result = OpSpecConstantOp %uint IAdd %s{n} %u1\n");
    let wgsl = translate(storing_a_spec_constant(&constants).as_bytes(), &unvalidated()).expect("translates").wgsl;
    // Every addition is kept, in overrides of bounded depth.
    assert_eq!(wgsl.matches("+ 1u").count(), n + 1);
    assert!(wgsl.matches("override ").count() > n / 64, "expected the chain to be cut into overrides");
}

#[test]
fn specialization_constant_operations_reading_each_link_twice() {
    // Spelled inline, each link doubled the expression: 2^40 additions.
    let n = 40;
    let mut constants = String::new();
    for i in 1..=n {
        constants += &format!("%s{i} = OpSpecConstantOp %uint IAdd %s{0} %s{0}\n", i - 1);
    }
    constants += &format!("%result = OpSpecConstantOp %uint IAdd %s{n} %u0\n");
    let wgsl = translate(storing_a_spec_constant(&constants).as_bytes(), &Options::default()).expect("translates").wgsl;
    // The spec constant, and an override for each link read twice: all but the last, which
    // `%result` reads once and which is spelled where it is stored.
    assert_eq!(wgsl.matches("override ").count(), n);
    assert!(wgsl.contains("= spec_constant_0 + spec_constant_0;"), "{wgsl}");
    assert!(wgsl.len() < 10_000, "{} bytes", wgsl.len());
}

#[test]
fn vector_specialization_constant_operations_too_large_to_spell_are_refused() {
    // WGSL overrides are scalars: a vector operation can only be spelled out where it is used.
    let n = 40;
    let mut constants = String::from("%w0 = OpSpecConstantComposite %v2 %s0 %s0\n");
    for i in 1..=n {
        constants += &format!("%w{i} = OpSpecConstantOp %v2 IAdd %w{0} %w{0}\n", i - 1);
    }
    constants += &format!("%result = OpSpecConstantOp %uint CompositeExtract %w{n} 0\n");
    let error = translate(storing_a_spec_constant(&constants).as_bytes(), &unvalidated()).map(|_| ()).unwrap_err();
    assert!(matches!(error, Error::Unsupported { .. }), "{error}");
    assert!(error.to_string().contains("would be written out with more than 32 levels"), "{error}");
}

#[test]
fn composite_constants_reusing_their_parts_beyond_the_limit_are_refused() {
    // Twelve levels of arrays of four, each made of four copies of the level below: 4^12 terms
    // from 12 declarations (170 MB of WGSL and 1.1 GB before they were refused).
    let mut asm = String::from(HEADER.split("%main = OpFunction").next().unwrap_or_default());
    asm += "%u4 = OpConstant %uint 4\n%T0 = OpTypeArray %uint %u4\n%k0 = OpConstantComposite %T0 %u0 %u0 %u0 %u0\n";
    let levels = 12;
    for k in 1..levels {
        asm += &format!(
            "%T{k} = OpTypeArray %T{0} %u4\n%k{k} = OpConstantComposite %T{k} %k{0} %k{0} %k{0} %k{0}\n",
            k - 1
        );
    }
    asm += &format!(
        "%pf = OpTypePointer Function %T{0}\n%main = OpFunction %void None %fn\n%entry = OpLabel\n\
                     %local = OpVariable %pf Function\nOpStore %local %k{0}\nOpReturn\nOpFunctionEnd\n",
        levels - 1
    );
    let error = translate(asm.as_bytes(), &unvalidated()).map(|_| ()).unwrap_err();
    assert!(matches!(error, Error::Unsupported { .. }), "{error}");
    assert!(error.to_string().contains("reuse other constants"), "{error}");
}

#[test]
fn a_long_chain_of_unused_bitcasts() {
    // Unused casts were dropped one link per walk of the function: 100,000 links took 26 s.
    let n = 100_000;
    let (declarations, body) = HEADER.split_at(HEADER.find("%main = OpFunction").unwrap_or_default());
    let mut asm = format!("{declarations}%float = OpTypeFloat 32\n{body}%f0 = OpBitcast %float %v0\n");
    for i in 1..=n {
        let ty = if i % 2 == 0 { "float" } else { "uint" };
        asm += &format!("%f{i} = OpBitcast %{ty} %f{}\n", i - 1);
    }
    asm += "OpStore %p %u1\nOpReturn\nOpFunctionEnd\n";
    let wgsl = translate(asm.as_bytes(), &unvalidated()).expect("translates").wgsl;
    // Nothing reads the chain, so none of it is written.
    assert!(!wgsl.contains("bitcast"), "{wgsl}");
    assert!(wgsl.contains("= 1u;"), "{wgsl}");
}

#[test]
fn many_entry_points_sharing_a_long_chain_of_functions() {
    // Each entry point's inputs were found by walking every instruction it reaches: 8,000 entry
    // points over one chain of 8,000 functions walked it 8,000 times.
    let n = 8_000;
    let mut asm = String::from("OpCapability Shader\nOpMemoryModel Logical GLSL450\n");
    for e in 0..n {
        asm += &format!("OpEntryPoint GLCompute %e{e} \"e{e}\" %gid\nOpExecutionMode %e{e} LocalSize 1 1 1\n");
    }
    asm += "OpDecorate %gid BuiltIn GlobalInvocationId\nOpDecorate %buf DescriptorSet 0\nOpDecorate %buf Binding 0\n\
            OpDecorate %S Block\nOpMemberDecorate %S 0 Offset 0\n%void = OpTypeVoid\n%fn = OpTypeFunction %void\n\
            %uint = OpTypeInt 32 0\n%v3 = OpTypeVector %uint 3\n%pin = OpTypePointer Input %v3\n%gid = OpVariable %pin Input\n\
            %S = OpTypeStruct %uint\n%pS = OpTypePointer StorageBuffer %S\n%buf = OpVariable %pS StorageBuffer\n\
            %pu = OpTypePointer StorageBuffer %uint\n%fu = OpTypeFunction %uint %uint\n%u0 = OpConstant %uint 0\n\
            %u1 = OpConstant %uint 1\n";
    for i in 0..n {
        asm += &format!("%f{i} = OpFunction %uint None %fu\n%x{i} = OpFunctionParameter %uint\n%l{i} = OpLabel\n");
        asm += &if i + 1 < n {
            format!("%y{i} = OpFunctionCall %uint %f{} %x{i}\n%w{i} = OpIAdd %uint %y{i} %u1\n", i + 1)
        } else {
            format!("%w{i} = OpIAdd %uint %x{i} %u1\n")
        };
        asm += &format!("OpReturnValue %w{i}\nOpFunctionEnd\n");
    }
    for e in 0..n {
        asm += &format!(
            "%e{e} = OpFunction %void None %fn\n%le{e} = OpLabel\n%g{e} = OpLoad %v3 %gid\n\
             %gx{e} = OpCompositeExtract %uint %g{e} 0\n%r{e} = OpFunctionCall %uint %f0 %gx{e}\n\
             %q{e} = OpAccessChain %pu %buf %u0\nOpStore %q{e} %r{e}\nOpReturn\nOpFunctionEnd\n"
        );
    }
    let wgsl = translate(asm.as_bytes(), &unvalidated()).expect("translates").wgsl;
    // Every entry point reads its invocation id.
    assert_eq!(wgsl.matches("@builtin(global_invocation_id)").count(), n);
}

#[test]
fn many_counted_loops_in_a_row() {
    // Each loop asked every statement after it whether they mention its counter, and searched
    // every exit the lowering recorded for its own: 8,000 loops in a row took 1.4 s, 32,000 over 20.
    let n = 20_000;
    let mut asm = String::from(HEADER);
    for k in 0..n {
        let before = if k == 0 { "%entry".to_string() } else { format!("%m{}", k - 1) };
        asm += &format!(
            "OpBranch %h{k}\n%h{k} = OpLabel\n%i{k} = OpPhi %uint %u0 {before} %next{k} %c{k}\n%go{k} = OpULessThan %bool %i{k} %v0\n\
             OpLoopMerge %m{k} %c{k} None\nOpBranchConditional %go{k} %c{k} %m{k}\n\
             %c{k} = OpLabel\n%next{k} = OpIAdd %uint %i{k} %u1\nOpBranch %h{k}\n%m{k} = OpLabel\n"
        );
    }
    asm += "OpStore %p %u1\nOpReturn\nOpFunctionEnd\n";
    let wgsl = translate(asm.as_bytes(), &unvalidated()).expect("translates").wgsl;
    // Every loop is written as the counted loop it is.
    assert_eq!(wgsl.matches("for (").count(), n, "{}", &wgsl[..wgsl.len().min(2000)]);
}

// Tint's limits that naga lacks: at each, the module translates to WGSL naga and Tint accept; one
// past it, it is refused, naming the instruction (the limits are in `docs/refused.md`).

/// `at_limit` translates, valid for naga and Tint; `past_limit` is refused, naming Tint and the
/// instruction (`needle`).
fn at_tint_limit_and_past_it(what: &str, at_limit: &str, past_limit: &str, needle: &str) {
    let wgsl = translate(at_limit.as_bytes(), &Options::default()).unwrap_or_else(|e| panic!("{what}: {e}")).wgsl;
    let (_, problems) = common::validate_wgsl(&wgsl, what);
    assert!(problems.is_empty(), "{what}: {problems:?}");
    match translate(past_limit.as_bytes(), &Options::default()) {
        Err(error @ Error::Unsupported { .. }) => {
            let message = error.to_string();
            assert!(message.contains("Tint") && message.contains(needle), "{what}: {message}");
        }
        other => panic!("{what}: expected a refusal, got {:?}", other.map(|t| t.wgsl)),
    }
}

/// A compute shader calling `%f`, a function of `n` float parameters that stores the last.
fn float_parameters(n: usize) -> String {
    let mut asm = String::from(HEADER.split("%main = OpFunction").next().unwrap_or_default());
    asm += "%float = OpTypeFloat 32\n%f1 = OpConstant %float 1\n%pf = OpTypePointer StorageBuffer %float\n";
    asm += &format!("%fnf = OpTypeFunction %void{}\n", " %float".repeat(n));
    asm += "%f = OpFunction %void None %fnf\n";
    asm.extend((0..n).map(|i| format!("%x{i} = OpFunctionParameter %float\n")));
    asm += &format!(
        "%fl = OpLabel\n%fp = OpAccessChain %pu %buf %u0\n%fx = OpConvertFToU %uint %x{}\nOpStore %fp %fx\nOpReturn\nOpFunctionEnd\n",
        n - 1
    );
    asm += &format!(
        "%main = OpFunction %void None %fn\n%entry = OpLabel\n%r = OpFunctionCall %void %f{}\nOpReturn\nOpFunctionEnd\n",
        " %f1".repeat(n)
    );
    asm
}

/// A fragment shader calling `%f`, a function of `images` combined image sampler parameters (each
/// two in WGSL: the image and its sampler) and `floats` float ones, which samples the first.
fn combined_image_sampler_parameters(images: usize, floats: usize) -> String {
    let mut asm = String::from(
        "OpCapability Shader\nOpMemoryModel Logical GLSL450\nOpEntryPoint Fragment %main \"main\" %out %t\n\
         OpExecutionMode %main OriginUpperLeft\nOpDecorate %out Location 0\nOpDecorate %t DescriptorSet 0\n\
         OpDecorate %t Binding 0\n%void = OpTypeVoid\n%fn = OpTypeFunction %void\n%float = OpTypeFloat 32\n\
         %v2 = OpTypeVector %float 2\n%v4 = OpTypeVector %float 4\n%img = OpTypeImage %float 2D 0 0 0 1 Unknown\n\
         %si = OpTypeSampledImage %img\n%psi = OpTypePointer UniformConstant %si\n%t = OpVariable %psi UniformConstant\n\
         %po = OpTypePointer Output %v4\n%out = OpVariable %po Output\n%f0 = OpConstant %float 0\n\
         %c = OpConstantComposite %v2 %f0 %f0\n",
    );
    asm += &format!(
        "%fnf = OpTypeFunction %v4{}{}\n%f = OpFunction %v4 None %fnf\n",
        " %psi".repeat(images),
        " %float".repeat(floats)
    );
    asm.extend((0..images).map(|i| format!("%s{i} = OpFunctionParameter %psi\n")));
    asm.extend((0..floats).map(|i| format!("%x{i} = OpFunctionParameter %float\n")));
    asm += "%fl = OpLabel\n%ld = OpLoad %si %s0\n%r = OpImageSampleImplicitLod %v4 %ld %c\nOpReturnValue %r\nOpFunctionEnd\n";
    asm + &format!(
        "%main = OpFunction %void None %fn\n%e = OpLabel\n%v = OpFunctionCall %v4 %f{}{}\nOpStore %out %v\nOpReturn\nOpFunctionEnd\n",
        " %t".repeat(images),
        " %f0".repeat(floats)
    )
}

/// Counted in WGSL, where a combined image sampler parameter is two (SPIR-V itself takes at most
/// 255 parameters).
#[test]
fn functions_of_as_many_parameters_as_tint_takes_and_no_more() {
    let past_limit = combined_image_sampler_parameters(128, 0);
    at_tint_limit_and_past_it("255 floats", &float_parameters(255), &past_limit, "= OpFunction");
    at_tint_limit_and_past_it(
        "127 samplers, a float",
        &combined_image_sampler_parameters(127, 1),
        &past_limit,
        "= OpFunction",
    );
}

/// A compute shader storing element `v0` of an array `%c` of `n` floats, made by `op`: an
/// `OpConstantComposite` or `OpSpecConstantComposite` of constants, or an `OpCompositeConstruct`
/// of values read from the buffer among them.
fn array_value(n: usize, op: &str) -> String {
    let mut asm = String::from(HEADER.split("%main = OpFunction").next().unwrap_or_default());
    asm += &format!(
        "%float = OpTypeFloat 32\n%f1 = OpConstant %float 1\n%un = OpConstant %uint {n}\n%A = OpTypeArray %float %un\n\
         %pA = OpTypePointer Function %A\n%pf = OpTypePointer Function %float\n"
    );
    let parts: String = (0..n).map(|i| if i % 2 == 0 { " %x" } else { " %f1" }).collect();
    let array = format!("%c = {op} %A{parts}\n");
    let body = "%main = OpFunction %void None %fn\n%entry = OpLabel\n%v = OpVariable %pA Function\n\
                %p = OpAccessChain %pu %buf %u0\n%v0 = OpLoad %uint %p\n";
    asm += &match op {
        "OpCompositeConstruct" => format!("{body}%x = OpConvertUToF %float %v0\n{array}"),
        _ => format!("%x = OpConstant %float 2\n{array}{body}"),
    };
    asm + "OpStore %v %c\n%q = OpAccessChain %pf %v %v0\n%y = OpLoad %float %q\n%r = OpConvertFToU %uint %y\n\
           OpStore %p %r\nOpReturn\nOpFunctionEnd\n"
}

#[test]
fn array_values_of_as_many_elements_as_tint_constructs_and_no_more() {
    for (op, needle) in [
        ("OpConstantComposite", "constant %"),
        ("OpSpecConstantComposite", "constant %"),
        ("OpCompositeConstruct", "= OpCompositeConstruct"),
    ] {
        at_tint_limit_and_past_it(op, &array_value(32767, op), &array_value(32768, op), needle);
    }
}

/// A compute shader storing the last member of a storage buffer, a struct of `n` integers, the
/// first at offset `first` (WGSL adds a member before it to pad).
fn struct_of_members(n: usize, first: usize) -> String {
    let mut asm = String::from(
        "OpCapability Shader\nOpMemoryModel Logical GLSL450\nOpEntryPoint GLCompute %main \"main\" %buf\n\
         OpExecutionMode %main LocalSize 1 1 1\nOpDecorate %buf DescriptorSet 0\nOpDecorate %buf Binding 0\nOpDecorate %S Block\n",
    );
    asm.extend((0..n).map(|i| format!("OpMemberDecorate %S {i} Offset {}\n", first + 4 * i)));
    asm += &format!(
        "%void = OpTypeVoid\n%fn = OpTypeFunction %void\n%uint = OpTypeInt 32 0\n%S = OpTypeStruct{}\n\
         %pS = OpTypePointer StorageBuffer %S\n%buf = OpVariable %pS StorageBuffer\n%pu = OpTypePointer StorageBuffer %uint\n\
         %last = OpConstant %uint {}\n",
        " %uint".repeat(n),
        n - 1
    );
    asm + "%main = OpFunction %void None %fn\n%entry = OpLabel\n%p = OpAccessChain %pu %buf %last\nOpStore %p %last\n\
           OpReturn\nOpFunctionEnd\n"
}

/// SPIR-V itself takes at most 16383 members, as Tint: only padding can pass the limit.
#[test]
fn structs_of_as_many_members_as_tint_takes_and_no_more() {
    at_tint_limit_and_past_it("struct", &struct_of_members(16383, 0), &struct_of_members(16383, 16), "= OpTypeStruct");
}

/// A switch on `v0 + 1` with `targets` cases besides the default, each storing a value of its own.
fn switch_of_targets(targets: usize) -> String {
    let asm = String::from(HEADER);
    let mut switch = String::from("%s = OpIAdd %uint %v0 %u1\nOpSelectionMerge %merge None\nOpSwitch %s %merge");
    let mut bodies = String::new();
    for i in 0..targets {
        switch += &format!(" {i} %case{i}");
        bodies +=
            &format!("%case{i} = OpLabel\n%r{i} = OpIAdd %uint %v0 %u{}\nOpStore %p %r{i}\nOpBranch %merge\n", i % 2);
    }
    asm + &format!("{switch}\n{bodies}%merge = OpLabel\nOpReturn\nOpFunctionEnd\n")
}

/// Tint takes 16383 clauses, the default's counted: one more is a second switch in the default
/// clause of the first (`wgsl/switch_clauses.rs`), its selector bound to a `let` read by both.
#[test]
fn a_switch_of_more_clauses_than_tint_takes_is_split() {
    for (targets, switches) in [(16382, 1), (16383, 2), (32766, 3)] {
        let wgsl = translate(switch_of_targets(targets).as_bytes(), &Options::default())
            .unwrap_or_else(|e| panic!("{targets} targets: {e}"))
            .wgsl;
        // naga validated it in `translate`; its WGSL front end is slow on switches this long.
        common::tint_validate(&wgsl, "switch").unwrap_or_else(|e| panic!("{targets} targets: {e}"));
        assert_eq!(wgsl.matches("switch ").count(), switches, "{targets} targets");
        assert_eq!(wgsl.matches("case ").count(), targets);
        assert_eq!(wgsl.matches("default").count(), switches);
    }
}
