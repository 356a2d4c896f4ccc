//! What an input is (by name, else by contents), who is blamed when our WGSL from broken input
//! fails validation (spirv-val decides), `--validate-input`, `--check` on WGSL, and the progress
//! line staying off stderr when it is not a terminal.

use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::Duration;

use super::*;

/// spirv-val rejects it (`OpIAdd` with a float result, at word 0x34 on line 19); the WGSL made
/// from it fails naga's validation.
const BLAMED_FIXTURE: &str = "invalid/result_type_mismatch.spvasm";

/// Runs the CLI in `dir` with `PATH` set to `path` (`None`: the test's own).
fn run_with_path(dir: &Path, args: &[&str], path: Option<&OsStr>) -> Output {
    let mut command = Command::new(BIN);
    command.args(args).current_dir(dir);
    if let Some(path) = path {
        command.env("PATH", path);
    }
    common::run_with_timeout(command, None, Duration::from_secs(120))
        .unwrap_or_else(|e| panic!("running spv2wgsl {args:?}: {e}"))
}

/// The directory of the real spirv-val, or `None` (with a notice) where it is missing; CI has it.
fn spirv_val_dir() -> Option<PathBuf> {
    let found = common::find_on_path("spirv-val").map(|path| path.parent().unwrap().to_path_buf());
    if found.is_none() {
        assert!(std::env::var_os("CI").is_none(), "CI needs spirv-val (spirv-tools) on the PATH");
        eprintln!("spirv-val is not on the PATH: skipping");
    }
    found
}

/// A directory holding a stand-in `spirv-val` that runs `script` (without reading its input: the
/// PATH the CLI runs with holds nothing else).
fn fake_spirv_val(dir: &TempDir, script: &str) -> PathBuf {
    use std::os::unix::fs::PermissionsExt;
    let bin = dir.join("fake-bin");
    std::fs::create_dir_all(&bin).unwrap();
    let program = bin.join("spirv-val");
    std::fs::write(&program, format!("#!/bin/sh\n{script}\n")).unwrap();
    std::fs::set_permissions(&program, std::fs::Permissions::from_mode(0o755)).unwrap();
    bin
}

const HTML: &[u8] = b"<!DOCTYPE html>\n<html><head><title>404 Not Found</title></head></html>\n";

#[test]
fn a_spirv_name_holding_text_is_not_a_spirv_module() {
    let dir = TempDir::new("cli-not-spirv");
    for name in ["page.spv", "page.spvasm"] {
        std::fs::write(dir.join(name), HTML).unwrap();
        let output = run_in(dir.path(), &[name, "-o", "out.wgsl"]);
        assert_failure(&output, 1);
        assert_stderr_mentions(&output, "not a SPIR-V module", "the name says SPIR-V: what is wrong with it");
        assert_stderr_mentions(&output, "`<!DOCTYPE html>`", "what was found instead");
        assert!(!dir.join("out.wgsl").exists());
    }
    // Some other name: the contents decide, and text is read as WGSL, which this is not.
    std::fs::write(dir.join("page.txt"), HTML).unwrap();
    let output = run_in(dir.path(), &["page.txt", "-o", "out.spv"]);
    assert_failure(&output, 1);
    assert_stderr_mentions(&output, "invalid WGSL at 1:1", "text by its contents is WGSL");
    // --check reports the same for each, and goes on.
    let output = run_in(dir.path(), &["--check", "page.spv", "page.spvasm"]);
    assert_eq!(output.status.code(), Some(1), "{}", describe(&output));
    assert_eq!(stdout_of(&output), "0 passed, 2 failed\n");
    assert_eq!(stderr_of(&output).matches("not a SPIR-V module").count(), 2, "{}", describe(&output));
}

#[test]
fn other_files_that_are_not_what_their_name_says() {
    let dir = TempDir::new("cli-misnamed");
    let binary = common::read_fixture(BINARY_FIXTURE);
    std::fs::write(dir.join("binary.wgsl"), &binary).unwrap();
    std::fs::write(dir.join("latin1.wgsl"), b"// caf\xe9\nfn f() {}\n").unwrap();
    std::fs::write(dir.join("empty.spv"), b"").unwrap();
    std::fs::write(dir.join("random.spv"), [0xde, 0xad, 0xbe, 0xef, 1, 2, 3]).unwrap();
    let cases = [
        ("binary.wgsl", "not WGSL: this is a binary SPIR-V module"),
        ("latin1.wgsl", "not WGSL: the input is not UTF-8 text (byte 0xe9 at offset 6)"),
        ("empty.spv", "malformed SPIR-V: the input is empty"),
        ("random.spv", "not a SPIR-V module: wrong magic number 0xefbeadde"),
    ];
    for (name, message) in cases {
        let output = run_in(dir.path(), &[name]);
        assert_failure(&output, 1);
        assert_stderr_mentions(&output, message, name);
        assert!(output.stdout.is_empty(), "{name}\n{}", describe(&output));
    }
    // Empty standard input: nothing tells it apart, and it is not a module.
    let output = run(&["-"], Some(b""));
    assert_failure(&output, 1);
    assert_stderr_mentions(&output, "<stdin>: error: malformed SPIR-V: the input is empty", "empty stdin");
}

#[test]
fn invalid_input_our_wgsl_fails_on_is_blamed_on_the_input_by_spirv_val() {
    let Some(spirv_val) = spirv_val_dir() else { return };
    let dir = TempDir::new("cli-blame");
    copy_fixtures(&dir, &[(BLAMED_FIXTURE, "broken.spvasm")]);

    let output = run_with_path(dir.path(), &["broken.spvasm", "-o", "out.wgsl"], Some(spirv_val.as_os_str()));
    assert_failure(&output, 1);
    assert_stderr_mentions(&output, "invalid SPIR-V: spirv-val rejects the input: ", "spirv-val's verdict");
    assert_stderr_mentions(&output, "OpIAdd", "the instruction spirv-val names");
    assert!(!dir.join("out.wgsl").exists());

    // spirv-val's `line N` is the Nth instruction: the location is that of the OpIAdd.
    let output = run_with_path(
        dir.path(),
        &["--check", "broken.spvasm", "--message-format", "json"],
        Some(spirv_val.as_os_str()),
    );
    assert_eq!(output.status.code(), Some(1), "{}", describe(&output));
    let objects = json_lines(&stderr_of(&output));
    assert_eq!(objects.len(), 1, "{}", describe(&output));
    assert_eq!(objects[0]["word_offset"], 0x34);
    assert_eq!(objects[0]["opcode"], "OpIAdd");
    assert_eq!((&objects[0]["line"], &objects[0]["column"]), (&19.into(), &1.into()));
}

#[test]
fn an_internal_error_says_whether_spirv_val_checked_the_input() {
    let dir = TempDir::new("cli-blame-unchecked");
    copy_fixtures(&dir, &[(BLAMED_FIXTURE, "broken.spvasm")]);
    // No spirv-val: our bug, as far as anyone can tell, and the message says the input was not checked.
    let nowhere = dir.join("empty-bin");
    std::fs::create_dir_all(&nowhere).unwrap();
    let output = run_with_path(dir.path(), &["broken.spvasm"], Some(nowhere.as_os_str()));
    assert_failure(&output, 3);
    assert_stderr_mentions(&output, "internal error", "still ours");
    assert_stderr_mentions(
        &output,
        "spirv-val was not found, so the input could not be checked",
        "the fixture must still make our WGSL fail validation: if the translator now rejects it, pick another",
    );
    // A spirv-val that accepts it: certainly our bug.
    let accepting = fake_spirv_val(&dir, "exit 0");
    let output = run_with_path(dir.path(), &["broken.spvasm"], Some(accepting.as_os_str()));
    assert_failure(&output, 3);
    assert_stderr_mentions(&output, "spirv-val accepts the input; the generated WGSL does not validate", "checked");
}

#[test]
fn validate_input_runs_spirv_val_first() {
    let Some(spirv_val) = spirv_val_dir() else { return };
    let dir = TempDir::new("cli-validate-input");
    copy_fixtures(&dir, &[(UNDEFINED_ID_FIXTURE, "undefined.spv"), (BINARY_FIXTURE, "good.spv")]);
    let path = Some(spirv_val.as_os_str());
    // Without it our own loader finds the undefined id; with it, spirv-val says so first.
    let ours = run_with_path(dir.path(), &["undefined.spv"], path);
    assert_failure(&ours, 1);
    assert!(!stderr_of(&ours).contains("spirv-val"), "{}", describe(&ours));
    let output = run_with_path(dir.path(), &["--check", "undefined.spv", "good.spv", "--validate-input"], path);
    assert_eq!(output.status.code(), Some(1), "{}", describe(&output));
    assert_eq!(stdout_of(&output), "1 passed, 1 failed\n");
    assert_stderr_mentions(&output, "undefined.spv: error: invalid SPIR-V: spirv-val rejects the input: ", "first");
    assert_stderr_mentions(&output, "%77", "spirv-val's message names the id");

    // Asked for and not there: a usage error, not a silent skip.
    let nowhere = dir.join("empty-bin");
    std::fs::create_dir_all(&nowhere).unwrap();
    let output = run_with_path(dir.path(), &["good.spv", "--validate-input"], Some(nowhere.as_os_str()));
    assert_failure(&output, 2);
    assert_stderr_mentions(&output, "--validate-input needs spirv-val", "why");

    // There and not runnable (not executable): a usage error too, not a translation left unchecked.
    let broken = fake_spirv_val(&dir, "exit 0");
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(broken.join("spirv-val"), std::fs::Permissions::from_mode(0o644)).unwrap();
    }
    let output = run_with_path(dir.path(), &["good.spv", "--validate-input"], Some(broken.as_os_str()));
    assert_failure(&output, 2);
    assert_stderr_mentions(&output, "spirv-val is on the PATH but does not run", "why");
}

/// A WGSL shader that compiles, one that does not (an undeclared name on line 2), and SPIR-V.
fn mixed_tree() -> TempDir {
    let dir = TempDir::new("cli-check-wgsl");
    copy_fixtures(
        &dir,
        &[
            ("wgsl/compute_builtins.wgsl", "shaders/compute.wgsl"),
            (BINARY_FIXTURE, "shaders/storage.comp.spv"),
            ("README.md", "shaders/README.md"),
        ],
    );
    std::fs::create_dir_all(dir.join("shaders/sub")).unwrap();
    std::fs::write(dir.join("shaders/sub/broken.wgsl"), "@compute @workgroup_size(1)\nfn main() { x = 1; }\n").unwrap();
    dir
}

#[test]
fn check_compiles_wgsl_inputs_in_the_same_summary() {
    let dir = mixed_tree();
    let output = run_in(dir.path(), &["--check", "shaders"]);
    assert_eq!(output.status.code(), Some(1), "{}", describe(&output));
    assert_eq!(stdout_of(&output), "2 passed, 1 failed\n", "{}", describe(&output));
    let stderr = stderr_of(&output);
    assert!(stderr.starts_with("shaders/sub/broken.wgsl: error: invalid WGSL at 2:13"), "{stderr}");
    assert_eq!(lines_of(&stderr).len(), 1, "{stderr}");

    // JSON and GitHub formats carry its line and column too.
    let output = run_in(dir.path(), &["--check", "shaders", "--message-format", "json"]);
    let objects = json_lines(&stderr_of(&output));
    assert_eq!((&objects[0]["line"], &objects[0]["column"]), (&2.into(), &13.into()), "{}", describe(&output));

    // --out-dir still takes SPIR-V only: the directory gives its SPIR-V, a WGSL file is refused.
    let output = run_in(dir.path(), &["shaders", "--out-dir", "out"]);
    assert_success(&output);
    assert_eq!(tree(&dir.join("out")).len(), 1, "{}", describe(&output));
    let output = run_in(dir.path(), &["shaders/compute.wgsl", "--out-dir", "out"]);
    assert_failure(&output, 1);
    assert_stderr_mentions(&output, "this is WGSL: --out-dir takes SPIR-V", "why");
}

#[test]
fn check_blames_us_when_spirv_val_rejects_the_spirv_made_from_wgsl() {
    let dir = mixed_tree();
    let rejecting = fake_spirv_val(&dir, "echo 'error: line 7: made-up rejection' >&2\nexit 1");
    let output = run_with_path(dir.path(), &["--check", "shaders/compute.wgsl"], Some(rejecting.as_os_str()));
    assert_failure(&output, 3);
    assert_stderr_mentions(
        &output,
        "internal error (a bug in spv2wgsl, please report it with the input): spirv-val rejects the SPIR-V written: \
         line 7: made-up rejection",
        "the SPIR-V is ours",
    );
    assert_eq!(stdout_of(&output), "0 passed, 1 failed\n");
}

#[test]
fn no_progress_line_when_stderr_is_not_a_terminal() {
    // Many files, stderr a pipe: only the reports, no redrawn line or terminal control codes.
    let dir = shader_tree();
    let output = run_in(dir.path(), &["--check", "shaders", "--jobs", "1"]);
    let stderr = stderr_of(&output);
    assert!(!stderr.contains('\r') && !stderr.contains('\u{1b}') && !stderr.contains(" files, "), "{stderr:?}");
    assert_eq!(lines_of(&stderr).len(), 3, "{stderr}");
}

#[test]
fn the_progress_line_shows_on_a_terminal_for_people_only() {
    // `script` (util-linux) runs the CLI on a pseudo-terminal and copies what it draws.
    let Some(script) = common::find_on_path("script") else {
        eprintln!("script (util-linux) is not on the PATH: skipping");
        return;
    };
    let dir = shader_tree();
    let on_terminal = |flags: &str| {
        let mut command = Command::new(&script);
        command
            .args(["-qec", &format!("'{BIN}' --check shaders --jobs 1 {flags}"), "/dev/null"])
            .current_dir(dir.path());
        let output = common::run_with_timeout(command, None, Duration::from_secs(120)).expect("script runs");
        String::from_utf8_lossy(&output.stdout).into_owned()
    };
    let drawn = on_terminal("");
    assert!(drawn.contains("/5 files, "), "a line counting files is drawn: {drawn:?}");
    assert!(drawn.contains(" failed\r") || drawn.contains(" failed "), "{drawn:?}");
    assert!(drawn.contains("\u{1b}[2K"), "and redrawn in place: {drawn:?}");
    assert!(drawn.trim_end().ends_with("3 passed, 2 failed"), "the summary ends the run: {drawn:?}");
    for format in ["json", "github"] {
        let drawn = on_terminal(&format!("--message-format {format}"));
        assert!(!drawn.contains(" files, "), "no line with {format}: {drawn:?}");
    }
}
