//! Tests of the `spv2wgsl` binary: input from a file or standard input,
//! output to a file or standard output, the options, the exit codes (0 ok,
//! 1 input cannot be translated, 2 usage error, 3 internal error), and that a
//! failure never panics and never leaves an output file (or a temporary one)
//! behind.

mod common;

use std::path::Path;
use std::process::{Command, Output};
use std::time::Duration;

use common::TempDir;

const BIN: &str = env!("CARGO_BIN_EXE_spv2wgsl");

/// A valid binary fixture and a valid assembly fixture.
const BINARY_FIXTURE: &str = "glsl/compute_storage_runtime_array.comp.spv";
const ASSEMBLY_FIXTURE: &str = "spvasm/storage_nonwritable_members.spvasm";
/// Two compute entry points, `scale_values` (64x1x1) and `reset_counter` (1x1x1).
const MULTI_ENTRY_FIXTURE: &str = "spvasm/multi_entry_point.spvasm";

fn run(args: &[&str], stdin: Option<&[u8]>) -> Output {
    let mut command = Command::new(BIN);
    command.args(args);
    common::run_with_timeout(command, stdin, Duration::from_secs(60))
        .unwrap_or_else(|e| panic!("running spv2wgsl {args:?}: {e}"))
}

/// Runs the CLI on a fixture with `-o out` and any extra flags.
fn run_fixture_to(fixture: &str, out: &Path, flags: &[&str]) -> Output {
    let input = common::fixture(fixture);
    let mut args = vec![path_arg(&input)];
    args.extend_from_slice(flags);
    args.extend(["-o", path_arg(out)]);
    run(&args, None)
}

fn path_arg(path: &Path) -> &str {
    path.to_str().expect("test paths are UTF-8")
}

fn stdout_of(output: &Output) -> String {
    String::from_utf8(output.stdout.clone()).expect("stdout is UTF-8")
}

fn stderr_of(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

fn describe(output: &Output) -> String {
    format!(
        "status: {}\n--- stderr:\n{}\n--- stdout:\n{}",
        output.status,
        stderr_of(output),
        String::from_utf8_lossy(&output.stdout)
    )
}

/// Exit code 0, and nothing that looks like a panic.
fn assert_success(output: &Output) {
    assert_eq!(
        output.status.code(),
        Some(0),
        "expected success\n{}",
        describe(output)
    );
    assert_no_panic(output);
}

fn assert_no_panic(output: &Output) {
    let stderr = stderr_of(output);
    assert!(
        !stderr.contains("panicked")
            && !stderr.contains("RUST_BACKTRACE")
            && output.status.code() != Some(101),
        "spv2wgsl panicked\n{}",
        describe(output)
    );
}

/// Exit code `code`, a message on stderr, no panic.
fn assert_failure(output: &Output, code: i32) {
    assert_eq!(
        output.status.code(),
        Some(code),
        "expected exit code {code}\n{}",
        describe(output)
    );
    assert_no_panic(output);
    assert!(
        !stderr_of(output).trim().is_empty(),
        "expected a message on stderr\n{}",
        describe(output)
    );
}

/// Nothing, not even a temporary file, is left in `dir` after a failed run.
fn assert_nothing_left(dir: &TempDir, context: &str) {
    assert!(dir.entries().is_empty(), "{context}: files left behind: {:?}", dir.entries());
}

/// The failure message on stderr contains `needle`; `why` says what it should name.
fn assert_stderr_mentions(output: &Output, needle: &str, why: &str) {
    assert!(stderr_of(output).contains(needle), "{why}\n{}", describe(output));
}

/// What the library makes of a fixture with default options.
fn library_wgsl(relative: &str) -> String {
    spv2wgsl::translate(
        &common::read_fixture(relative),
        &spv2wgsl::Options::default(),
    )
    .unwrap_or_else(|e| panic!("the library cannot translate {relative}: {e}"))
    .wgsl
}

/// The CLI's WGSL equals the library's, up to trailing whitespace.
fn assert_same_wgsl(cli: &str, library: &str) {
    assert_eq!(
        cli.trim_end(),
        library.trim_end(),
        "the CLI's WGSL differs from the library's"
    );
}

fn assert_valid_wgsl(wgsl: &str, label: &str) -> naga::Module {
    let (module, problems) = common::validate_wgsl(wgsl, label);
    assert!(
        problems.is_empty(),
        "invalid WGSL from the CLI:\n{}\n--- WGSL:\n{wgsl}",
        problems.join("\n")
    );
    module.expect("naga accepted the module")
}

// ---------------------------------------------------------------------------
// Successful runs

#[test]
fn file_in_file_out() {
    let dir = TempDir::new("cli-file");
    let out = dir.join("out.wgsl");
    let output = run_fixture_to(BINARY_FIXTURE, &out, &[]);
    assert_success(&output);
    assert!(
        output.stdout.is_empty(),
        "with -o nothing goes to stdout\n{}",
        describe(&output)
    );
    let wgsl = std::fs::read_to_string(&out).expect("the output file exists");
    assert_valid_wgsl(&wgsl, "file_in_file_out");
    assert_same_wgsl(&wgsl, &library_wgsl(BINARY_FIXTURE));
    assert_eq!(
        dir.entries(),
        vec!["out.wgsl".to_string()],
        "only the output file is left in its directory"
    );
}

#[test]
fn assembly_file_in_file_out() {
    let dir = TempDir::new("cli-asm");
    let out = dir.join("out.wgsl");
    let output = run_fixture_to(ASSEMBLY_FIXTURE, &out, &[]);
    assert_success(&output);
    let wgsl = std::fs::read_to_string(&out).expect("the output file exists");
    assert_valid_wgsl(&wgsl, "assembly_file_in_file_out");
    assert_same_wgsl(&wgsl, &library_wgsl(ASSEMBLY_FIXTURE));
}

#[test]
fn existing_output_file_is_replaced_on_success() {
    let dir = TempDir::new("cli-replace");
    let out = dir.join("out.wgsl");
    std::fs::write(&out, "old contents\n").unwrap();
    let output = run_fixture_to(BINARY_FIXTURE, &out, &[]);
    assert_success(&output);
    let wgsl = std::fs::read_to_string(&out).unwrap();
    assert!(
        !wgsl.contains("old contents"),
        "the old output was not replaced:\n{wgsl}"
    );
    assert_same_wgsl(&wgsl, &library_wgsl(BINARY_FIXTURE));
    assert_eq!(dir.entries(), vec!["out.wgsl".to_string()]);
}

#[test]
fn binary_on_stdin_with_dash_to_stdout() {
    let input = common::read_fixture(BINARY_FIXTURE);
    let output = run(&["-"], Some(&input));
    assert_success(&output);
    let wgsl = stdout_of(&output);
    assert_valid_wgsl(&wgsl, "stdin_dash");
    assert_same_wgsl(&wgsl, &library_wgsl(BINARY_FIXTURE));
}

#[test]
fn assembly_on_stdin_without_arguments_to_stdout() {
    let input = common::read_fixture(ASSEMBLY_FIXTURE);
    let output = run(&[], Some(&input));
    assert_success(&output);
    let wgsl = stdout_of(&output);
    assert_valid_wgsl(&wgsl, "stdin_no_args");
    assert_same_wgsl(&wgsl, &library_wgsl(ASSEMBLY_FIXTURE));
}

#[test]
fn stdin_to_output_file() {
    let dir = TempDir::new("cli-stdin-file");
    let out = dir.join("out.wgsl");
    let input = common::read_fixture(BINARY_FIXTURE);
    let output = run(&["-", "-o", path_arg(&out)], Some(&input));
    assert_success(&output);
    assert_same_wgsl(
        &std::fs::read_to_string(&out).expect("the output file exists"),
        &library_wgsl(BINARY_FIXTURE),
    );
}

#[test]
fn no_validate_still_translates_valid_input_identically() {
    for fixture in [BINARY_FIXTURE, ASSEMBLY_FIXTURE] {
        let path = common::fixture(fixture);
        let validated = run(&[path_arg(&path)], None);
        assert_success(&validated);
        let unvalidated = run(&[path_arg(&path), "--no-validate"], None);
        assert_success(&unvalidated);
        assert_eq!(
            stdout_of(&unvalidated),
            stdout_of(&validated),
            "{fixture}: --no-validate changed the WGSL of a valid module"
        );
    }
}

#[test]
fn both_entry_points_without_entry_point_option() {
    let output = run(&[path_arg(&common::fixture(MULTI_ENTRY_FIXTURE))], None);
    assert_success(&output);
    let module = assert_valid_wgsl(&stdout_of(&output), "both_entry_points");
    let mut names: Vec<&str> = module
        .entry_points
        .iter()
        .map(|e| e.name.as_str())
        .collect();
    names.sort();
    assert_eq!(names, ["reset_counter", "scale_values"]);
}

#[test]
fn entry_point_option_selects_one_entry_point() {
    for (selected, other, size) in [
        ("scale_values", "reset_counter", [64, 1, 1]),
        ("reset_counter", "scale_values", [1, 1, 1]),
    ] {
        let output = run(
            &[
                path_arg(&common::fixture(MULTI_ENTRY_FIXTURE)),
                "--entry-point",
                selected,
            ],
            None,
        );
        assert_success(&output);
        let wgsl = stdout_of(&output);
        let module = assert_valid_wgsl(&wgsl, selected);
        assert_eq!(
            module.entry_points.len(),
            1,
            "--entry-point {selected} should leave one entry point:\n{wgsl}"
        );
        let entry = &module.entry_points[0];
        assert_eq!(entry.name, selected);
        assert_eq!(entry.stage, naga::ShaderStage::Compute);
        assert_eq!(entry.workgroup_size, size, "workgroup size of {selected}");
        assert!(
            !wgsl.contains(other),
            "--entry-point {selected} still mentions {other}:\n{wgsl}"
        );

        // The same through the library.
        let options = spv2wgsl::Options { entry_point: Some(selected.to_string()), ..Default::default() };
        let library = spv2wgsl::translate(&common::read_fixture(MULTI_ENTRY_FIXTURE), &options)
            .unwrap_or_else(|e| panic!("library, entry point {selected}: {e}"));
        assert_same_wgsl(&wgsl, &library.wgsl);
    }
}

#[test]
fn unknown_entry_point_is_an_error() {
    let dir = TempDir::new("cli-no-entry");
    let out = dir.join("out.wgsl");
    let output = run(
        &[
            path_arg(&common::fixture(MULTI_ENTRY_FIXTURE)),
            "--entry-point",
            "no_such_entry",
            "-o",
            path_arg(&out),
        ],
        None,
    );
    // The input cannot be translated (a missing file, an unknown entry point): exit 1.
    assert_failure(&output, 1);
    assert_stderr_mentions(&output, "no_such_entry", "the message should name the entry point");
    assert_nothing_left(&dir, "after the failure");
}

#[test]
fn version_and_help() {
    let version = run(&["--version"], None);
    assert_success(&version);
    assert!(
        stdout_of(&version).contains(env!("CARGO_PKG_VERSION")),
        "--version should print {}\n{}",
        env!("CARGO_PKG_VERSION"),
        describe(&version)
    );

    let help = run(&["--help"], None);
    assert_success(&help);
    let text = stdout_of(&help);
    for option in ["-o", "--no-validate", "--entry-point"] {
        assert!(
            text.contains(option),
            "--help should mention {option}\n{}",
            describe(&help)
        );
    }
}

// ---------------------------------------------------------------------------
// Usage errors

#[test]
fn usage_errors_exit_2() {
    let input = common::fixture(BINARY_FIXTURE);
    let input = path_arg(&input);
    let cases: [&[&str]; 4] = [
        &["--definitely-not-an-option"],
        &[input, "--definitely-not-an-option"],
        &[input, "-o"],
        &[input, "--entry-point"],
    ];
    for args in cases {
        let output = run(args, None);
        assert_failure(&output, 2);
        assert!(
            output.stdout.is_empty(),
            "{args:?}: a usage error prints nothing on stdout\n{}",
            describe(&output)
        );
    }
}

#[test]
fn two_inputs_are_a_usage_error() {
    let input = common::fixture(BINARY_FIXTURE);
    let output = run(&[path_arg(&input), path_arg(&input)], None);
    assert_failure(&output, 2);
}

// ---------------------------------------------------------------------------
// Inputs that cannot be translated

/// An invalid fixture and the words (any one, case-insensitive) its error
/// message must contain to name the problem.
struct BadInput {
    fixture: &'static str,
    any_of: &'static [&'static str],
    all_of: &'static [&'static str],
}

const BAD_INPUTS: &[BadInput] = &[
    BadInput {
        fixture: "invalid/wrong_magic.spv",
        any_of: &["magic"],
        all_of: &[],
    },
    BadInput {
        fixture: "invalid/truncated.spv",
        any_of: &[
            "truncat",
            "end of",
            "unexpected end",
            "incomplete",
            "too short",
            "eof",
            "missing",
        ],
        all_of: &[],
    },
    BadInput {
        fixture: "invalid/truncated_header.spv",
        any_of: &[
            "header",
            "truncat",
            "too short",
            "end of",
            "incomplete",
            "eof",
        ],
        all_of: &[],
    },
    BadInput {
        fixture: "invalid/undefined_id.spv",
        any_of: &[
            "undefined",
            "not defined",
            "not been defined",
            "never defined",
            "no definition",
            "unknown",
        ],
        all_of: &["77"],
    },
    BadInput {
        fixture: "invalid/undefined_id.spvasm",
        any_of: &[
            "undefined",
            "not defined",
            "not been defined",
            "never defined",
            "no definition",
            "unknown",
        ],
        all_of: &["77"],
    },
    // Found by mutating fixtures: each once crashed the CLI or produced invalid WGSL.
    BadInput {
        fixture: "invalid/word_count_past_the_end.spv",
        any_of: &["truncated"],
        all_of: &["4100 words"],
    },
    BadInput {
        fixture: "invalid/workgroup_size_out_of_range.spv",
        any_of: &["workgroup size"],
        all_of: &["16384"],
    },
    BadInput {
        fixture: "invalid/constant_index_out_of_bounds.spv",
        any_of: &["out of bounds"],
        all_of: &["11141121"],
    },
];

fn assert_names_problem(output: &Output, bad: &BadInput) {
    let message = stderr_of(output).to_lowercase();
    assert!(
        bad.any_of.iter().any(|word| message.contains(word)),
        "{}: the message should say what is wrong (one of {:?})\n{}",
        bad.fixture,
        bad.any_of,
        describe(output)
    );
    for word in bad.all_of {
        assert!(
            message.contains(word),
            "{}: the message should mention {word:?}\n{}",
            bad.fixture,
            describe(output)
        );
    }
}

#[test]
fn bad_inputs_exit_1_and_leave_no_output_file() {
    for bad in BAD_INPUTS {
        let dir = TempDir::new("cli-bad");
        let out = dir.join("out.wgsl");
        let output = run_fixture_to(bad.fixture, &out, &[]);
        assert_failure(&output, 1);
        assert_names_problem(&output, bad);
        assert!(!out.exists(), "{}: an output file was created", bad.fixture);
        assert_nothing_left(&dir, bad.fixture);
    }
}

#[test]
fn bad_inputs_on_stdin_exit_1_and_print_nothing() {
    for bad in BAD_INPUTS {
        let output = run(&["-"], Some(&common::read_fixture(bad.fixture)));
        assert_failure(&output, 1);
        assert_names_problem(&output, bad);
        assert!(
            output.stdout.is_empty(),
            "{}: nothing may reach stdout on failure\n{}",
            bad.fixture,
            describe(&output)
        );
    }
}

#[test]
fn bad_inputs_fail_without_validation_too() {
    for bad in BAD_INPUTS {
        let dir = TempDir::new("cli-bad-noval");
        let out = dir.join("out.wgsl");
        let output = run_fixture_to(bad.fixture, &out, &["--no-validate"]);
        assert_failure(&output, 1);
        assert_nothing_left(&dir, bad.fixture);
    }
}

#[test]
fn existing_output_file_is_untouched_on_failure() {
    let previous = "// previous output, must survive a failed run\n";
    for bad in BAD_INPUTS {
        let dir = TempDir::new("cli-keep");
        let out = dir.join("out.wgsl");
        std::fs::write(&out, previous).unwrap();
        let output = run_fixture_to(bad.fixture, &out, &[]);
        assert_failure(&output, 1);
        assert_eq!(
            std::fs::read_to_string(&out).unwrap(),
            previous,
            "{}: the existing output was changed",
            bad.fixture
        );
        assert_eq!(
            dir.entries(),
            vec!["out.wgsl".to_string()],
            "{}: files left behind",
            bad.fixture
        );
    }
}

#[test]
fn library_reports_bad_inputs_as_user_errors() {
    for bad in BAD_INPUTS {
        let bytes = common::read_fixture(bad.fixture);
        match spv2wgsl::translate(&bytes, &spv2wgsl::Options::default()) {
            Ok(translation) => panic!(
                "{}: translated although invalid:\n{}",
                bad.fixture, translation.wgsl
            ),
            Err(error) => {
                assert_eq!(error.exit_code(), 1, "{}: {error}", bad.fixture);
                let message = error.to_string();
                assert!(
                    !message.trim().is_empty(),
                    "{}: empty error message",
                    bad.fixture
                );
                assert!(
                    !message.trim_end().contains('\n'),
                    "{}: Display should be one line: {message:?}",
                    bad.fixture
                );
            }
        }
    }
}

/// The expected `LINE:COL` of the error in `invalid/syntax_error.spvasm`,
/// from its `; expect-error-at: LINE:COL` line (regen.sh checks that spirv-as
/// reports the same place).
fn expected_syntax_error_location() -> String {
    let text = String::from_utf8(common::read_fixture("invalid/syntax_error.spvasm")).unwrap();
    text.lines()
        .find_map(|line| line.strip_prefix("; expect-error-at:"))
        .map(|location| location.trim().to_string())
        .expect("syntax_error.spvasm states its expected error location")
}

#[test]
fn assembly_syntax_error_reports_line_and_column() {
    let location = expected_syntax_error_location();
    let dir = TempDir::new("cli-syntax");
    let out = dir.join("out.wgsl");
    let output = run_fixture_to("invalid/syntax_error.spvasm", &out, &[]);
    assert_failure(&output, 1);
    assert_stderr_mentions(&output, &location, &format!("the message should point at {location}"));
    assert_nothing_left(&dir, "after the failure");

    let piped = run(
        &[],
        Some(&common::read_fixture("invalid/syntax_error.spvasm")),
    );
    assert_failure(&piped, 1);
    assert_stderr_mentions(&piped, &location, &format!("from stdin too, the message should point at {location}"));
    assert!(piped.stdout.is_empty());

    let error = spv2wgsl::translate(
        &common::read_fixture("invalid/syntax_error.spvasm"),
        &spv2wgsl::Options::default(),
    )
    .expect_err("a syntax error cannot translate");
    assert_eq!(error.exit_code(), 1, "{error}");
}

#[test]
fn missing_input_file_is_an_error() {
    let dir = TempDir::new("cli-missing");
    let missing = dir.join("does-not-exist.spv");
    let out = dir.join("out.wgsl");
    let output = run(&[path_arg(&missing), "-o", path_arg(&out)], None);
    // The input cannot be translated (a missing file, an unknown entry point): exit 1.
    assert_failure(&output, 1);
    assert_stderr_mentions(&output, "does-not-exist.spv", "the message should name the file");
    assert_nothing_left(&dir, "after the failure");
}

#[test]
fn unwritable_output_location_is_an_error() {
    let dir = TempDir::new("cli-unwritable");
    let out = dir.join("no-such-directory").join("out.wgsl");
    let output = run_fixture_to(BINARY_FIXTURE, &out, &[]);
    // The output cannot be written: exit 1.
    assert_failure(&output, 1);
    assert!(!out.exists());
    assert_nothing_left(&dir, "after the failure");
}

#[test]
fn empty_input_is_an_error() {
    let output = run(&["-"], Some(b""));
    assert_failure(&output, 1);
    assert!(output.stdout.is_empty());
}

// ---------------------------------------------------------------------------
// Resources: the binding map, binding overrides, specialization constants

/// Combined image samplers at (0,0)..(0,4) and (1,0), (1,1): their samplers
/// take the next free bindings, (0,5).. and (1,2)..
const COMBINED_SAMPLERS_FIXTURE: &str = "glsl/texture_sampling.frag.spv";
/// A uniform buffer at (0,0) and a push-constant block `push`.
const PUSH_CONSTANT_FIXTURE: &str = "glsl/push_constants.vert.spv";
/// Spec constants with SpecIds 0 (workgroup size x), 1 (int COUNT), 2 (uint
/// MASK), 3 (float SCALE), 4 (bool ENABLED).
const SPEC_CONSTANT_FIXTURE: &str = "glsl/spec_constants.comp.spv";

/// `"key": value` of one line of the binding-map JSON, as text.
fn json_field<'a>(line: &'a str, key: &str) -> Option<&'a str> {
    let start = line.find(&format!("\"{key}\": "))? + key.len() + 4;
    let rest = &line[start..];
    let end = if rest.starts_with('{') { rest.find('}')? + 1 } else { rest.find([',', '}'])? };
    Some(rest[..end].trim())
}

/// `(group, binding, name)` of every `@group(G) @binding(B) var NAME` line.
fn wgsl_resources(wgsl: &str) -> Vec<(String, String, String)> {
    let mut resources: Vec<(String, String, String)> = wgsl
        .lines()
        .filter_map(|line| {
            let group = line.strip_prefix("@group(")?.split(')').next()?.to_string();
            let binding = line.split("@binding(").nth(1)?.split(')').next()?.to_string();
            let name = line.split("var").nth(1)?.split(['>', ' ']).find(|s| !s.is_empty() && !s.starts_with('<'))?;
            Some((group, binding, name.trim_end_matches(':').to_string()))
        })
        .collect();
    resources.sort();
    resources
}

#[test]
fn binding_map_lists_every_resource_and_marks_assigned_ones() {
    let dir = TempDir::new("cli-binding-map");
    let (out, map) = (dir.join("out.wgsl"), dir.join("bindings.json"));
    let output = run_fixture_to(COMBINED_SAMPLERS_FIXTURE, &out, &["--binding-map", path_arg(&map)]);
    assert_success(&output);
    let wgsl = std::fs::read_to_string(&out).expect("the WGSL was written");
    let json = std::fs::read_to_string(&map).expect("the binding map was written");
    assert!(json.starts_with("[\n") && json.ends_with("]\n"), "not a JSON array:\n{json}");
    let entries: Vec<&str> = json.lines().filter(|l| l.trim_start().starts_with('{')).collect();

    // One entry per resource variable of the WGSL, at the same group and binding.
    let mut listed: Vec<(String, String, String)> = entries
        .iter()
        .map(|e| {
            let field = |key| json_field(e, key).unwrap_or_else(|| panic!("no {key} in {e}")).to_string();
            (field("group"), field("binding"), field("name").trim_matches('"').to_string())
        })
        .collect();
    listed.sort();
    assert_eq!(listed, wgsl_resources(&wgsl), "binding map:\n{json}\nWGSL:\n{wgsl}");

    // The sampler split from `albedo` (set 0, binding 0) is ours, at the next free binding.
    let sampler = entries.iter().find(|e| e.contains("\"name\": \"albedo_sampler\"")).expect("albedo_sampler is listed");
    assert_eq!(json_field(sampler, "group"), Some("0"));
    assert_eq!(json_field(sampler, "binding"), Some("5"));
    assert_eq!(json_field(sampler, "type"), Some("\"sampler\""));
    assert_eq!(json_field(sampler, "assigned"), Some("true"));
    assert_eq!(json_field(sampler, "origin"), Some("\"combined_image_sampler\""));
    assert_eq!(json_field(sampler, "original"), Some("{\"set\": 0, \"binding\": 0, \"name\": \"albedo\"}"));
    // The texture keeps the combined sampler's binding and is not ours.
    let texture = entries.iter().find(|e| e.contains("\"name\": \"albedo\"")).expect("albedo is listed");
    assert_eq!(json_field(texture, "binding"), Some("0"));
    assert_eq!(json_field(texture, "type"), Some("\"texture_2d<f32>\""));
    assert_eq!(json_field(texture, "assigned"), Some("false"));
    assert_stderr_mentions(&output, "@group(0) @binding(5)", "a warning says where the split sampler went");
}

#[test]
fn binding_map_is_not_written_when_translation_fails() {
    let dir = TempDir::new("cli-binding-map-failure");
    let map = dir.join("bindings.json");
    let input = common::fixture("invalid/truncated.spv");
    let output = run(&[path_arg(&input), "--binding-map", path_arg(&map), "-o", path_arg(&dir.join("out.wgsl"))], None);
    assert_failure(&output, 1);
    assert_nothing_left(&dir, "a failed translation");
}

#[test]
fn sampler_binding_moves_the_split_sampler() {
    let dir = TempDir::new("cli-sampler-binding");
    let out = dir.join("out.wgsl");
    let output = run_fixture_to(COMBINED_SAMPLERS_FIXTURE, &out, &["--sampler-binding", "0:0=2:7", "--sampler-binding", "1:1=1:9"]);
    assert_success(&output);
    let wgsl = std::fs::read_to_string(&out).expect("the WGSL was written");
    assert_valid_wgsl(&wgsl, "sampler-binding");
    assert!(wgsl.contains("@group(2) @binding(7) var albedo_sampler: sampler;"), "{wgsl}");
    assert!(wgsl.contains("@group(1) @binding(9) var skies_sampler: sampler;"), "{wgsl}");
    // The others still follow the rule; the moved one leaves its slot free.
    assert!(wgsl.contains("@group(0) @binding(5) var layers_sampler: sampler;"), "{wgsl}");
}

#[test]
fn sampler_binding_mistakes_are_errors() {
    for (flag, code, needle) in [
        // The target is the texture `layers`' binding.
        ("0:0=0:1", 1, "already uses"),
        // Nothing is bound at set 5, binding 5.
        ("5:5=0:9", 1, "no combined image sampler"),
        ("0:0", 2, "SET:BINDING=GROUP:BINDING"),
        ("0:x=1:1", 2, "not a number"),
    ] {
        let dir = TempDir::new("cli-sampler-binding-error");
        let output = run_fixture_to(COMBINED_SAMPLERS_FIXTURE, &dir.join("out.wgsl"), &["--sampler-binding", flag]);
        assert_failure(&output, code);
        assert_stderr_mentions(&output, needle, &format!("--sampler-binding {flag}"));
        assert_nothing_left(&dir, flag);
    }
}

#[test]
fn push_constants_become_a_uniform_buffer_where_asked() {
    let dir = TempDir::new("cli-push-constants");
    let out = dir.join("out.wgsl");
    // By default: group 0, the next free binding.
    let output = run_fixture_to(PUSH_CONSTANT_FIXTURE, &out, &[]);
    assert_success(&output);
    let wgsl = std::fs::read_to_string(&out).expect("the WGSL was written");
    assert!(wgsl.contains("@group(0) @binding(1) var<uniform> push: Push;"), "{wgsl}");
    let output = run_fixture_to(PUSH_CONSTANT_FIXTURE, &out, &["--push-constant-binding", "3:0"]);
    assert_success(&output);
    let wgsl = std::fs::read_to_string(&out).expect("the WGSL was written");
    assert_valid_wgsl(&wgsl, "push-constant-binding");
    assert!(wgsl.contains("@group(3) @binding(0) var<uniform> push: Push;"), "{wgsl}");
    // Where the camera buffer is: a collision.
    let output = run_fixture_to(PUSH_CONSTANT_FIXTURE, &dir.join("other.wgsl"), &["--push-constant-binding", "0:0"]);
    assert_failure(&output, 1);
    assert_stderr_mentions(&output, "already uses", "a colliding push-constant binding");
}

#[test]
fn override_gives_spec_constants_values() {
    let dir = TempDir::new("cli-override");
    let out = dir.join("out.wgsl");
    let output = run_fixture_to(SPEC_CONSTANT_FIXTURE, &out, &["--override", "1=10", "--override", "0=32", "--override", "4=false"]);
    assert_success(&output);
    let wgsl = std::fs::read_to_string(&out).expect("the WGSL was written");
    let module = assert_valid_wgsl(&wgsl, "override");
    assert_eq!(module.entry_points[0].workgroup_size, [32, 2, 1]);
    // Overridden ones are constants; COUNT * 2 folds; the others stay overridable.
    for gone in ["@id(0)", "@id(1)", "@id(4)"] {
        assert!(!wgsl.contains(gone), "{gone} should be folded:\n{wgsl}");
    }
    assert!(wgsl.contains("f32(20i)"), "COUNT * 2 with COUNT = 10:\n{wgsl}");
    assert!(wgsl.contains("@id(2) override MASK: u32 = 255u;"), "{wgsl}");
    assert!(wgsl.contains("@id(3) override SCALE: f32 = 1.5f;"), "{wgsl}");
    // Without --override, all of them are overrides.
    let plain = library_wgsl(SPEC_CONSTANT_FIXTURE);
    for id in 0..5 {
        assert!(plain.contains(&format!("@id({id}) override")), "SpecId {id}:\n{plain}");
    }
}

#[test]
fn override_mistakes_are_errors() {
    for (flag, code, needle) in [
        ("1=abc", 1, "not a 32-bit signed integer"),
        ("2=-1", 1, "not a 32-bit unsigned integer"),
        ("4=maybe", 1, "true or false"),
        ("99=1", 1, "no specialization constant has SpecId 99"),
        ("1", 2, "ID=VALUE"),
        ("x=1", 2, "not a SpecId"),
    ] {
        let dir = TempDir::new("cli-override-error");
        let output = run_fixture_to(SPEC_CONSTANT_FIXTURE, &dir.join("out.wgsl"), &["--override", flag]);
        assert_failure(&output, code);
        assert_stderr_mentions(&output, needle, &format!("--override {flag}"));
        assert_nothing_left(&dir, flag);
    }
}

#[test]
fn strict_uniformity_changes_nothing_for_uniform_code() {
    // Derivatives in straight-line fragment code are uniform: no diagnostic, no error.
    let dir = TempDir::new("cli-strict-uniformity");
    let out = dir.join("out.wgsl");
    let output = run_fixture_to("glsl/derivatives.frag.spv", &out, &["--strict-uniformity"]);
    assert_success(&output);
    let wgsl = std::fs::read_to_string(&out).expect("the WGSL was written");
    assert!(!wgsl.contains("diagnostic"), "{wgsl}");
    assert_same_wgsl(&wgsl, &library_wgsl("glsl/derivatives.frag.spv"));
}
