//! Fixture tests. Every `.spv` and `.spvasm` file under `fixtures/glsl`,
//! `fixtures/hlsl` and `fixtures/spvasm` (found by walking the folders: dropping a file in is
//! enough to add a case) is translated with default options, and then:
//! - the translation must succeed, and be the same when repeated;
//! - the WGSL is snapshot-tested with insta, one snapshot per fixture, named
//!   after the fixture's path (`tests/snapshots/fixtures__glsl__NAME.snap`);
//!   review new or changed ones with `cargo insta review`, or accept them all
//!   with `INSTA_UPDATE=always cargo test --test fixtures`;
//! - naga must parse and validate the WGSL (WebGPU capabilities), and Tint
//!   must accept it when `tint` is on the PATH (`SPV2WGSL_REQUIRE_TINT=1`
//!   makes a missing Tint a failure);
//! - the WGSL keeps the module's entry points (names, stages, workgroup
//!   sizes) and resource bindings, plus the bindings the translation says it
//!   assigned (split combined image samplers, push constants);
//! - the binding map lists exactly the WGSL's resource variables, by name;
//! - a big-endian fixture (`NAME.be.spv`) translates exactly like its
//!   little-endian twin (`NAME.spv`).
//!
//! All failures are collected and reported together, each under its fixture.

mod common;

use std::panic::{self, AssertUnwindSafe};

use common::{Failures, TintOutcome};

const FIXTURE_DIRS: &[&str] = &["glsl", "hlsl", "spvasm", "unstructured"];
const FIXTURE_SUFFIXES: &[&str] = &[".spv", ".spvasm"];

/// Translates with default options, turning a panic into an error.
fn translate(bytes: &[u8]) -> Result<spv2wgsl::Translation, String> {
    let outcome = panic::catch_unwind(AssertUnwindSafe(|| spv2wgsl::translate(bytes, &spv2wgsl::Options::default())));
    match outcome {
        Ok(Ok(translation)) => Ok(translation),
        Ok(Err(error)) => Err(format!("translation failed (exit code {}): {error}", error.exit_code())),
        Err(payload) => Err(format!("translate panicked: {}", common::panic_message(payload.as_ref()))),
    }
}

/// Compares the WGSL with its snapshot; `Err` carries insta's complaint.
fn check_snapshot(relative: &str, wgsl: &str) -> Result<(), String> {
    let mut settings = insta::Settings::clone_current();
    settings.set_input_file(common::fixture(relative));
    settings.set_description(format!("WGSL translated from fixtures/{relative} with default options"));
    settings.set_omit_expression(true);
    let outcome = panic::catch_unwind(AssertUnwindSafe(|| {
        settings.bind(|| insta::assert_snapshot!(relative, wgsl));
    }));
    outcome.map_err(|payload| format!("snapshot: {}", common::panic_message(payload.as_ref())))
}

#[derive(Default)]
struct TintTally {
    accepted: usize,
    unavailable: bool,
}

fn check_fixture(relative: &str, failures: &mut Failures, tint: &mut TintTally) {
    let bytes = common::read_fixture(relative);
    let translation = match translate(&bytes) {
        Ok(translation) => translation,
        Err(problem) => {
            failures.add(relative, problem);
            return;
        }
    };
    let wgsl = translation.wgsl.clone();
    if wgsl.trim().is_empty() {
        failures.add(relative, "the translation is empty");
        return;
    }

    match translate(&bytes) {
        Ok(again) if again.wgsl == wgsl => {}
        Ok(_) => failures.add(relative, "translating the same input twice gave different WGSL"),
        Err(problem) => failures.add(relative, format!("the second translation failed: {problem}")),
    }

    if let Err(problem) = check_snapshot(relative, &wgsl) {
        failures.add(relative, problem);
    }

    match common::naga_validate(&wgsl) {
        Ok(module) => match common::spirv_facts(&bytes) {
            Some(mut facts) => {
                // Bindings the translation made (a split sampler, a push-constant buffer).
                let assigned = translation.bindings.iter().filter(|b| b.assigned);
                facts.bindings.extend(assigned.map(|b| (b.binding.group, b.binding.binding)));
                for problem in common::compare_interface(&facts, &module) {
                    failures.add(relative, problem);
                }
                for problem in binding_map_problems(&translation, &module) {
                    failures.add(relative, problem);
                }
            }
            None => failures.add(relative, "the test cannot read the fixture's entry points (not SPIR-V?)"),
        },
        Err(problem) => failures.add(relative, format!("{problem}\n--- WGSL:\n{wgsl}")),
    }
    match common::tint_validate(&wgsl, relative) {
        Ok(TintOutcome::Accepted) => tint.accepted += 1,
        Ok(TintOutcome::Unavailable) => tint.unavailable = true,
        Err(problem) => failures.add(relative, problem),
    }

    if let Some(stem) = relative.strip_suffix(".be.spv") {
        let twin = format!("{stem}.spv");
        match translate(&common::read_fixture(&twin)) {
            Ok(little) if little.wgsl == wgsl => {}
            Ok(_) => failures.add(relative, format!("the big-endian module translates differently from {twin}")),
            Err(problem) => failures.add(relative, format!("its little-endian twin {twin} fails: {problem}")),
        }
    }
}

/// The binding map names every resource variable of the WGSL at its group and
/// binding, and nothing else.
fn binding_map_problems(translation: &spv2wgsl::Translation, module: &naga::Module) -> Vec<String> {
    let mut wgsl: Vec<(u32, u32, String)> = module
        .global_variables
        .iter()
        .filter_map(|(_, global)| {
            let binding = global.binding.as_ref()?;
            Some((binding.group, binding.binding, global.name.clone().unwrap_or_default()))
        })
        .collect();
    wgsl.sort();
    let map: Vec<(u32, u32, String)> =
        translation.bindings.iter().map(|b| (b.binding.group, b.binding.binding, b.name.clone())).collect();
    if map == wgsl {
        Vec::new()
    } else {
        vec![format!("the binding map {map:?} differs from the WGSL's resources {wgsl:?}")]
    }
}

#[test]
fn every_fixture_translates_to_valid_wgsl() {
    let fixtures = common::fixture_files(FIXTURE_DIRS, FIXTURE_SUFFIXES);
    assert!(
        FIXTURE_DIRS.iter().all(|dir| fixtures.iter().any(|f| f.starts_with(&format!("{dir}/")))),
        "expected fixtures under each of fixtures/{FIXTURE_DIRS:?}, found {fixtures:?}"
    );

    let mut failures = Failures::new();
    let mut tint = TintTally::default();
    for relative in &fixtures {
        check_fixture(relative, &mut failures, &mut tint);
    }

    if tint.unavailable {
        eprintln!("note: tint is not on the PATH; the WGSL was checked with naga only");
    } else {
        eprintln!("tint accepted {} of {} translations", tint.accepted, fixtures.len());
    }
    failures.finish(fixtures.len());
}

/// A snapshot whose fixture was renamed or deleted would otherwise linger
/// unnoticed: every `fixtures__*.snap` must name an existing fixture.
#[test]
fn every_fixture_snapshot_has_its_fixture() {
    let snapshots = common::repo_root().join("tests").join("snapshots");
    let Ok(entries) = std::fs::read_dir(&snapshots) else {
        return; // No snapshot accepted yet: nothing can be stale.
    };
    let fixtures = common::fixture_files(FIXTURE_DIRS, FIXTURE_SUFFIXES);
    let mut orphans = Vec::new();
    for entry in entries {
        let name = entry.expect("directory entry").file_name().to_string_lossy().into_owned();
        let Some(stem) = name.strip_prefix("fixtures__").and_then(|n| n.strip_suffix(".snap")) else {
            continue;
        };
        // insta writes `/` in a snapshot name as `__`.
        let relative = stem.replace("__", "/");
        if !fixtures.contains(&relative) {
            orphans.push(name);
        }
    }
    assert!(orphans.is_empty(), "snapshots without a fixture (delete them, or restore the fixture): {orphans:?}");
}
