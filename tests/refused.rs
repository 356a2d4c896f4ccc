//! Valid SPIR-V that WGSL cannot express. Every `.spvasm` file under `fixtures/refused/` (a
//! file dropped in is a case) must be refused with an `Unsupported` error (exit code 1), never
//! translated and never an internal error, with a message containing each of its
//! `; refused: TEXT` lines: what the feature is and why WGSL lacks it.

mod common;

use common::Failures;

fn check(relative: &str, failures: &mut Failures) {
    let bytes = common::read_fixture(relative);
    let text = String::from_utf8_lossy(&bytes);
    let needles: Vec<&str> = text.lines().filter_map(|line| line.strip_prefix("; refused:")).map(str::trim).collect();
    if needles.is_empty() {
        failures.add(relative, "no `; refused: TEXT` line says what the message must contain");
        return;
    }
    match spv2wgsl::translate(&bytes, &spv2wgsl::Options::default()) {
        Ok(translation) => failures.add(relative, format!("translated, but should be refused:\n{}", translation.wgsl)),
        Err(error @ spv2wgsl::Error::Unsupported { .. }) => {
            let message = error.to_string();
            for needle in needles.iter().filter(|needle| !message.contains(*needle)) {
                failures.add(relative, format!("the message does not mention `{needle}`: {message}"));
            }
        }
        Err(other) => failures.add(relative, format!("expected a refusal (exit code 1), got: {other}")),
    }
}

#[test]
fn every_refused_fixture_is_refused_with_its_reason() {
    let mut failures = Failures::new();
    let cases = common::fixture_files(&["refused"], &[".spvasm"]);
    assert!(!cases.is_empty(), "no fixtures under fixtures/refused");
    for relative in &cases {
        check(relative, &mut failures);
    }
    failures.finish(cases.len());
}
