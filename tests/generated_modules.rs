//! The benchmark's generated modules (`benches/throughput/generate.rs`) are what it claims:
//! deterministic, valid for Vulkan (spirv-val, when on the PATH), and translated by both
//! spv2wgsl (into WGSL that naga and Tint accept) and naga's own SPIR-V front end. Sizes are kept
//! small here; the benchmark builds the big ones with the same code.

mod common;

#[path = "../benches/throughput/generate.rs"]
mod generate;

use std::process::Command;
use std::time::Duration;

/// Checks the module `words` and returns spv2wgsl's WGSL for it.
fn check(name: &str, words: &[u32]) -> String {
    let bytes = generate::to_bytes(words);
    if common::find_on_path("spirv-val").is_some() {
        let dir = common::TempDir::new(name);
        let path = dir.join(&format!("{name}.spv"));
        std::fs::write(&path, &bytes).expect("write the module");
        let mut command = Command::new("spirv-val");
        command.arg("--target-env").arg("vulkan1.1").arg(&path);
        let output = common::run_with_timeout(command, None, Duration::from_secs(120)).expect("run spirv-val");
        assert!(
            output.status.success(),
            "spirv-val rejects {name}:\n{}{}",
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        );
    }
    let translation = spv2wgsl::translate(&bytes, &spv2wgsl::Options::default())
        .unwrap_or_else(|e| panic!("spv2wgsl cannot translate {name}: {e}"));
    let (_, problems) = common::validate_wgsl(&translation.wgsl, name);
    assert!(problems.is_empty(), "{name}: {}", problems.join("\n"));
    let options = naga::front::spv::Options::default();
    let module =
        naga::front::spv::parse_u8_slice(&bytes, &options).unwrap_or_else(|e| panic!("naga cannot read {name}: {e}"));
    naga::valid::Validator::new(naga::valid::ValidationFlags::all(), common::webgpu_capabilities())
        .validate(&module)
        .unwrap_or_else(|e| panic!("naga rejects its own reading of {name}: {e:?}"));
    translation.wgsl
}

#[test]
fn a_mixed_module_is_valid_and_both_translators_accept_it() {
    let words = generate::mixed(100_000);
    let bytes = words.len() * 4;
    assert!((100_000..120_000).contains(&bytes), "asked for 100 kB, got {bytes} bytes");
    check("mixed_100k", &words);
}

#[test]
fn a_one_function_module_is_valid_and_both_translators_accept_it() {
    check("one_function_60k", &generate::one_function(60_000));
}

#[test]
fn a_one_block_module_is_valid_and_both_translators_accept_it() {
    check("one_block_2000", &generate::one_block(2000));
}

#[test]
fn a_module_of_many_entry_points_is_valid_and_both_translators_accept_it() {
    let wgsl = check("entry_points_60k", &generate::entry_points(60_000));
    // Every entry point is kept: main0 and upwards, each with its own `@compute` wrapper.
    let entry_points = wgsl.matches("@compute").count();
    assert!(entry_points > 50, "{entry_points} entry points");
    assert!(wgsl.contains(&format!("fn main{}(", entry_points - 1)));
}

#[test]
fn a_module_of_many_resources_is_valid_and_both_translators_accept_it() {
    let wgsl = check("resources_60k", &generate::resources(60_000));
    // One buffer per function besides the common one, the last in set (n - 1) % 4 at binding
    // (n - 1) / 4 + 1.
    let functions = wgsl.matches("var<storage, read_write>").count() - 1;
    assert!(functions > 50, "{functions} functions");
    let last = format!("@group({}) @binding({})", (functions - 1) % 4, (functions - 1) / 4 + 1);
    assert!(wgsl.contains(&last), "no {last}");
}

#[test]
fn generation_is_deterministic() {
    assert_eq!(generate::mixed(50_000), generate::mixed(50_000));
    assert_eq!(generate::one_function(50_000), generate::one_function(50_000));
    assert_eq!(generate::one_block(500), generate::one_block(500));
    assert_eq!(generate::entry_points(20_000), generate::entry_points(20_000));
    assert_eq!(generate::resources(20_000), generate::resources(20_000));
}

#[test]
fn a_module_over_256_kib_of_wgsl_is_validated_in_parts() {
    // Functions over buffers of their own: each part carries the buffers its functions name, and
    // the part of the entry point the stubs of the functions it calls.
    let bytes = generate::to_bytes(&generate::resources(300_000));
    let translation = spv2wgsl::translate(&bytes, &spv2wgsl::Options::default()).expect("validates in parts");
    assert!(translation.wgsl.len() > 256 << 10, "{} bytes of WGSL", translation.wgsl.len());
    // No function is long enough to be checked by its signature only.
    assert!(translation.warnings.is_empty(), "{:?}", translation.warnings);
    // naga's IR built and validated on a thread of its own, as the command does it.
    let threaded = spv2wgsl::Options { second_thread: true, ..Default::default() };
    let on_a_thread = spv2wgsl::translate(&bytes, &threaded).expect("validates in parts on a thread");
    assert_eq!(on_a_thread.wgsl, translation.wgsl);
    assert!(on_a_thread.warnings.is_empty(), "{:?}", on_a_thread.warnings);
}

#[test]
fn large_modules_translate_the_same_on_two_threads() {
    // Past 1 MiB of functions: read in halves on two threads (meeting between two functions, or
    // inside a block of one long function), naga's IR built and validated on the second while
    // the lowering goes on.
    let shapes = [
        ("mixed", generate::mixed(1_200_000)),
        ("one function", generate::one_function(1_200_000)),
        ("one block", generate::one_block(70_000)),
    ];
    for (shape, words) in shapes {
        assert!(words.len() > 1 << 18, "{shape}: {} words", words.len());
        let bytes = generate::to_bytes(&words);
        let one = spv2wgsl::translate(&bytes, &spv2wgsl::Options::default()).expect("translates on one thread");
        let threaded = spv2wgsl::Options { second_thread: true, ..Default::default() };
        let two = spv2wgsl::translate(&bytes, &threaded).expect("translates on two threads");
        assert_eq!(two.wgsl, one.wgsl, "{shape}");
        assert_eq!(format!("{:?}", two.warnings), format!("{:?}", one.warnings), "{shape}");
    }
}
