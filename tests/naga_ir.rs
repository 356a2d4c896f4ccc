//! Validation builds naga's IR straight from the syntax tree (`src/wgsl/naga_ir.rs`) instead of
//! having naga's WGSL front end read the printed text. That is only sound if the two are the same
//! module: here every fixture, every execution fixture and (where it is there) the shared corpus
//! is translated, and wherever the builder takes the module, its IR must equal naga's reading of
//! the text (`Debug` of the two, which leaves spans out), and naga's validator must judge it the
//! same compacted (as the front end's) and as built (as validation takes it). The builder must
//! also take the benchmark's shapes, for which it exists, the texture fixtures, and fixtures
//! whose `main` is printed before the functions it calls. `fuzz/random_spirv.sh` and
//! `fuzz/differential.sh` run the fixtures' check with their random programs among the fixtures.

mod common;

#[path = "../benches/throughput/generate.rs"]
mod generate;

use std::path::Path;

use spv2wgsl::wgsl::naga_ir::Check;

/// Checks `input`; returns whether the builder took it (else why not), and the problem if the two
/// differ.
fn check(name: &str, input: &[u8]) -> Result<Result<(), &'static str>, String> {
    let Ok(check) = spv2wgsl::naga_ir_check(input, &spv2wgsl::Options::default()) else {
        // Refused inputs have tests of their own.
        return Ok(Err("not translated"));
    };
    match check {
        Check::Equal { .. } => Ok(Ok(())),
        Check::Refused(why) => Ok(Err(why)),
        Check::TextRejected(error) => Err(format!("{name}: naga rejects the text: {error}")),
        Check::Differs { built, parsed } => {
            Err(format!("{name}: the IR differs from the text's\n{}", first_difference(&built, &parsed)))
        }
        Check::VerdictDiffers(error) => {
            Err(format!("{name}: naga's validator judges the IR as built and compacted differently: {error}"))
        }
    }
}

/// The first differing line of two `Debug` dumps, with the lines before it.
fn first_difference(built: &str, parsed: &str) -> String {
    let (built, parsed): (Vec<&str>, Vec<&str>) = (built.lines().collect(), parsed.lines().collect());
    let at = built.iter().zip(&parsed).position(|(a, b)| a != b).unwrap_or(built.len().min(parsed.len()));
    let context = built[at.saturating_sub(12)..at].join("\n");
    format!(
        "{context}\nbuilt:  {}\nparsed: {}",
        built.get(at).copied().unwrap_or("(end)"),
        parsed.get(at).copied().unwrap_or("(end)")
    )
}

fn check_all(inputs: impl Iterator<Item = (String, Vec<u8>)>) -> (usize, usize) {
    let mut failures = common::Failures::new();
    let (mut taken, mut all) = (0, 0);
    let mut refusals: Vec<(&str, usize)> = Vec::new();
    for (name, input) in inputs {
        all += 1;
        match check(&name, &input) {
            Ok(Ok(())) => taken += 1,
            Ok(Err(why)) => match refusals.iter_mut().find(|(w, _)| *w == why) {
                Some((_, count)) => *count += 1,
                None => refusals.push((why, 1)),
            },
            Err(problem) => failures.add(&name, problem),
        }
    }
    failures.finish(all);
    refusals.sort_by_key(|&(_, count)| std::cmp::Reverse(count));
    eprintln!("naga IR built and equal to the text's for {taken} of {all} inputs; left to the text: {refusals:?}");
    (taken, all)
}

#[test]
fn the_ir_equals_the_texts_on_every_fixture() {
    // `exec` holds, while `fuzz/differential.sh` or `fuzz/random_spirv.sh` runs, its random
    // programs too: those scripts run this test on them.
    let names = common::fixture_files(&["glsl", "hlsl", "spvasm", "unstructured", "exec"], &[".spv", ".spvasm"]);
    let inputs = names.into_iter().map(|name| {
        let input = common::read_fixture(&name);
        (name, input)
    });
    let (taken, all) = check_all(inputs);
    // Many fixtures use subgroups or overrides, which the builder leaves to the text.
    assert!(taken * 10 >= all, "the builder took only {taken} of {all} fixtures");
}

/// Asserts that the builder takes each fixture, and that its IR equals the text's.
fn assert_taken(fixtures: &[&str]) {
    for name in fixtures {
        let check = spv2wgsl::naga_ir_check(&common::read_fixture(name), &spv2wgsl::Options::default());
        assert!(matches!(check, Ok(Check::Equal { .. })), "{name}: {check:?}");
    }
}

#[test]
fn the_builder_takes_the_texture_fixtures() {
    // Textures and samplers are the corpus's most common shape: a refusal of them would pass the
    // equality tests unseen, and cost every such module the text's validation.
    let fixtures = [
        "glsl/texture_sampling.frag.spv",
        "glsl/texture_shapes.frag.spv",
        "glsl/texture_shapes.frag.opt.spv",
        "glsl/texture_depth_compare.frag.spv",
        "glsl/texture_depth_plain.frag.spv",
        "glsl/texture_integer_sampling.frag.spv",
        "glsl/texture_1d.frag.spv",
        "glsl/texture_nonuniform_sampling.frag.spv",
        "glsl/texture_multisampled.frag.spv",
        "glsl/storage_images.comp.spv",
        "glsl/image_shapes.comp.spv",
        "hlsl/textures.frag.hlsl.spv",
        "exec/compute/texture_gather_offsets_integer_sample.comp.spv",
    ];
    assert_taken(&fixtures);
}

#[test]
fn the_builder_takes_callers_printed_before_their_callees() {
    // glslang puts `main` first and the lowering prints functions in SPIR-V's order; the front end
    // lowers callees first. A refusal here would pass the equality tests unseen.
    let fixtures = [
        "glsl/function_overloads.comp.spv",
        "glsl/function_params_in_out_inout.comp.spv",
        "glsl/texture_helper_functions.frag.spv",
    ];
    assert_taken(&fixtures);
}

#[test]
fn the_builder_takes_overrides() {
    // SPIR-V's specialization constants become overrides, common in Vulkan shaders: initialized
    // by literals and by other overrides, used in functions, in workgroup sizes and as the size
    // of a workgroup array; and `var<private>`s with initializers (a literal, zero values, vectors
    // of scalars, splats). A refusal here would pass the equality tests unseen.
    let fixtures = [
        "glsl/io_workgroup_size_id.comp.spv",
        "glsl/spec_constants.comp.spv",
        "spvasm/io_output_shapes.spvasm",
        "spvasm/private_initializers_and_override_sized_array.spvasm",
        "spvasm/late_declarations_shadowed_by_locals.spvasm",
        "spvasm/overrides_private_initializer.spvasm",
        "spvasm/spec_constant_ops.spvasm",
        "exec/compute/shared_spec_ids.spvasm",
        "exec/compute/spec_constant_composite_ops.spvasm",
        "exec/compute/spec_constants.comp.spv",
        "exec/compute/spec_sized_arrays.comp.spv",
        "exec/compute/spec_workgroup_size.comp.spv",
    ];
    assert_taken(&fixtures);
}

#[test]
fn the_builder_takes_constructions_of_one_member() {
    // `S(x)` of a struct of one member and `array<f32, 1>(x)`: naga's front end composes them as
    // it does with more; refused, they would pass the equality tests unseen.
    assert_taken(&["glsl/construct_one_member.comp.spv"]);
}

#[test]
fn the_builder_takes_declarations_made_after_a_function() {
    // The lowering declares a struct or an override where a function first needs it, after
    // functions already built; the text has it before them all, and so has naga's IR: types and
    // global expressions put back in that order (`naga_ir/reorder.rs`). Between them: a struct
    // after a function's types, the compare-exchange's predeclared result type and an override
    // workgroup size; an override after that size; an entry point's output struct after a helper;
    // a struct after the globals. A refusal here would pass the equality tests unseen.
    let fixtures = [
        "spvasm/late_declarations_after_functions.spvasm",
        "spvasm/io_multi_entry_points.spvasm",
        "spvasm/names_reserved_words.spvasm",
        "spvasm/output_initializer_non_finite.spvasm",
    ];
    assert_taken(&fixtures);
}

#[test]
fn the_builder_takes_what_enable_directives_allow() {
    // `@builtin(clip_distances)` and `@blend_src`, which the front end reads only under their
    // `enable` directives. A refusal here would pass the equality tests unseen.
    let fixtures =
        ["glsl/io_dual_source_blend.frag.spv", "glsl/io_vertex_builtins.vert.spv", "hlsl/io_vertex.vert.hlsl.spv"];
    assert_taken(&fixtures);
}

#[test]
fn the_builder_takes_the_atomic_fixtures() {
    // Between them: every read-modify-write builtin as a statement and as a value, atomicLoad (also
    // as a statement) and atomicStore, the compare-exchange with its `.old_value` and `.exchanged`
    // (its result struct met twice), i32 and u32, in structs, arrays, storage and workgroup
    // memory. A refusal would pass the equality tests unseen.
    let fixtures = [
        "glsl/atomics.comp.spv",
        "spvasm/atomics_signedness.spvasm",
        "spvasm/atomic_result_stored.spvasm",
        "spvasm/atomics_workgroup_i32_statements.spvasm",
        "hlsl/buffers.comp.hlsl.spv",
        "exec/compute/atomics_storage.comp.spv",
        "exec/compute/atomics_workgroup.comp.spv",
        "exec/compute/atomics_return_sum.comp.spv",
    ];
    assert_taken(&fixtures);
}

#[test]
fn the_ir_equals_the_texts_on_the_shared_corpus() {
    let corpus = std::env::var_os("SPV2WGSL_CORPUS")
        .map_or_else(|| common::repo_root().join("../shared/corpus"), std::path::PathBuf::from);
    if !corpus.is_dir() {
        eprintln!("note: no shared corpus at {}; skipped", corpus.display());
        return;
    }
    let mut files = Vec::new();
    walk(&corpus, &mut files);
    let inputs = files.into_iter().map(|path| {
        let input = std::fs::read(&path).expect("read a corpus file");
        (path.display().to_string(), input)
    });
    check_all(inputs);
}

fn walk(dir: &Path, files: &mut Vec<std::path::PathBuf>) {
    for entry in std::fs::read_dir(dir).expect("list the corpus") {
        let path = entry.expect("a corpus entry").path();
        if path.is_dir() {
            walk(&path, files);
        } else if path.extension().is_some_and(|e| e == "spv" || e == "spvasm") {
            files.push(path);
        }
    }
}

#[test]
fn the_builder_takes_the_benchmarks_shapes() {
    let shapes = [
        ("mixed", generate::mixed(64 << 10)),
        // Three parts or so (`naga_ir/incremental.rs`), with stubs of functions of earlier parts.
        ("mixed in parts", generate::mixed(600 << 10)),
        ("one function", generate::one_function(64 << 10)),
        ("one block", generate::one_block(2_000)),
        ("entry points", generate::entry_points(64 << 10)),
        ("resources", generate::resources(64 << 10)),
    ];
    for (name, words) in shapes {
        let check = spv2wgsl::naga_ir_check(&generate::to_bytes(&words), &spv2wgsl::Options::default());
        let in_parts = name == "mixed in parts";
        assert!(matches!(check, Ok(Check::Equal { parts }) if (parts > 1) == in_parts), "{name}: {check:?}");
    }
}
