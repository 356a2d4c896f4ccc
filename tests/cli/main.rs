//! Tests of the `spv2wgsl` binary: input from a file or standard input,
//! output to a file or standard output, the options, the exit codes (0 ok,
//! 1 input cannot be translated, 2 usage error, 3 internal error), and that a
//! failure never panics and never leaves an output file (or a temporary one)
//! behind.

#[path = "../common/mod.rs"]
mod common;
mod inputs;

use std::path::Path;
use std::process::{Command, Output};
use std::time::Duration;

use common::TempDir;
use spv2wgsl::message_format::FileDiagnostic;

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
    assert_eq!(output.status.code(), Some(0), "expected success\n{}", describe(output));
    assert_no_panic(output);
}

fn assert_no_panic(output: &Output) {
    let stderr = stderr_of(output);
    assert!(
        !stderr.contains("panicked") && !stderr.contains("RUST_BACKTRACE") && output.status.code() != Some(101),
        "spv2wgsl panicked\n{}",
        describe(output)
    );
}

/// Exit code `code`, a message on stderr, no panic.
fn assert_failure(output: &Output, code: i32) {
    assert_eq!(output.status.code(), Some(code), "expected exit code {code}\n{}", describe(output));
    assert_no_panic(output);
    assert!(!stderr_of(output).trim().is_empty(), "expected a message on stderr\n{}", describe(output));
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
    spv2wgsl::translate(&common::read_fixture(relative), &spv2wgsl::Options::default())
        .unwrap_or_else(|e| panic!("the library cannot translate {relative}: {e}"))
        .wgsl
}

/// The CLI's WGSL equals the library's, up to trailing whitespace.
fn assert_same_wgsl(cli: &str, library: &str) {
    assert_eq!(cli.trim_end(), library.trim_end(), "the CLI's WGSL differs from the library's");
}

fn assert_valid_wgsl(wgsl: &str, label: &str) -> naga::Module {
    let (module, problems) = common::validate_wgsl(wgsl, label);
    assert!(problems.is_empty(), "invalid WGSL from the CLI:\n{}\n--- WGSL:\n{wgsl}", problems.join("\n"));
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
    assert!(output.stdout.is_empty(), "with -o nothing goes to stdout\n{}", describe(&output));
    let wgsl = std::fs::read_to_string(&out).expect("the output file exists");
    assert_valid_wgsl(&wgsl, "file_in_file_out");
    assert_same_wgsl(&wgsl, &library_wgsl(BINARY_FIXTURE));
    assert_eq!(dir.entries(), vec!["out.wgsl".to_string()], "only the output file is left in its directory");
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
    assert!(!wgsl.contains("old contents"), "the old output was not replaced:\n{wgsl}");
    assert_same_wgsl(&wgsl, &library_wgsl(BINARY_FIXTURE));
    assert_eq!(dir.entries(), vec!["out.wgsl".to_string()]);
}

#[test]
fn output_through_a_symbolic_link_keeps_the_link() {
    // `-o /dev/stdout` and `-o /dev/null` are links or devices: renaming a finished file over
    // them, as ordinary outputs are written, would replace them.
    let dir = TempDir::new("cli-link");
    let target = dir.join("target.wgsl");
    std::fs::write(&target, "old contents\n").unwrap();
    let link = dir.join("link.wgsl");
    std::os::unix::fs::symlink(&target, &link).unwrap();
    let out = dir.join("out.wgsl");
    let output = run_fixture_to(BINARY_FIXTURE, &out, &["--binding-map", path_arg(&link)]);
    assert_success(&output);
    assert!(std::fs::symlink_metadata(&link).unwrap().file_type().is_symlink(), "the link was replaced");
    let written = std::fs::read_to_string(&target).unwrap();
    assert!(written.starts_with('[') && written.contains("\"group\": 0"), "{written}");
    let output = run_fixture_to(BINARY_FIXTURE, &link, &[]);
    assert_success(&output);
    assert!(std::fs::symlink_metadata(&link).unwrap().file_type().is_symlink(), "the link was replaced");
    assert_same_wgsl(&std::fs::read_to_string(&target).unwrap(), &library_wgsl(BINARY_FIXTURE));
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
    assert_same_wgsl(&std::fs::read_to_string(&out).expect("the output file exists"), &library_wgsl(BINARY_FIXTURE));
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
fn annotate_names_the_spirv_origin_and_source_line_of_statements() {
    // The same GLSL compiled with OpLine (-g) and with NonSemantic.Shader.DebugInfo.100 (-gVS).
    for (fixture, source) in [
        ("glsl/annotated_lines.comp.spv", "glsl/annotated_lines.comp"),
        ("glsl/annotated_lines_nonsemantic.comp.spv", "glsl/annotated_lines_nonsemantic.comp"),
    ] {
        let path = common::fixture(fixture);
        let plain = run(&[path_arg(&path)], None);
        assert_success(&plain);
        let annotated = run(&[path_arg(&path), "--annotate"], None);
        assert_success(&annotated);
        let text = stdout_of(&annotated);
        // The GLSL source: line 10 doubles the value, line 11 tests it, line 14 stores it back.
        let line_of = |needle: &str| {
            text.lines()
                .find(|l| l.contains(needle))
                .unwrap_or_else(|| panic!("{fixture}: no line with `{needle}` in\n{text}"))
        };
        assert!(line_of("* 2u").ends_with(&format!("// OpStore, {source}:10")), "{fixture}:\n{text}");
        assert!(line_of("if doubled > 10u").contains(&format!("{source}:11")), "{fixture}:\n{text}");
        assert!(line_of("data.values[id] = doubled").ends_with(&format!("{source}:14")), "{fixture}:\n{text}");
        assert!(line_of("let id").contains("// %"), "a declaration names its SPIR-V id\n{text}");
        // The variable is declared by the store that first gives it a value, and named after it.
        assert!(line_of("var doubled = ").ends_with(&format!("// OpStore, {source}:10")), "{fixture}:\n{text}");
        // The notes are the only difference.
        let stripped: String = text.lines().map(|l| l.split(" // ").next().unwrap_or(l).to_string() + "\n").collect();
        assert_eq!(stripped, stdout_of(&plain), "{fixture}");
    }
}

#[test]
fn both_entry_points_without_entry_point_option() {
    let output = run(&[path_arg(&common::fixture(MULTI_ENTRY_FIXTURE))], None);
    assert_success(&output);
    let module = assert_valid_wgsl(&stdout_of(&output), "both_entry_points");
    let mut names: Vec<&str> = module.entry_points.iter().map(|e| e.name.as_str()).collect();
    names.sort();
    assert_eq!(names, ["reset_counter", "scale_values"]);
}

#[test]
fn entry_functions_are_the_entry_points_unless_they_share_a_function() {
    // Each entry point's function is the entry point, inputs or not.
    let wgsl = library_wgsl(MULTI_ENTRY_FIXTURE);
    assert!(!wgsl.contains("_inner"), "{wgsl}");
    assert!(wgsl.contains("fn scale_values(@builtin(global_invocation_id) gid: vec3<u32>)"), "{wgsl}");
    // Two entry points of one function keep one function and a wrapper each.
    let shared = ARRAY_SIZED_BY_SPEC_CONSTANT.replace(
        "OpEntryPoint GLCompute %main \"main\"",
        "OpEntryPoint GLCompute %main \"a\"\nOpEntryPoint GLCompute %main \"b\"",
    );
    let output = run(&["--override", "7=1"], Some(shared.as_bytes()));
    assert_success(&output);
    let wgsl = stdout_of(&output);
    let module = assert_valid_wgsl(&wgsl, "two entry points of one function");
    assert_eq!(module.entry_points.len(), 2, "{wgsl}");
    assert_eq!(wgsl.matches("a_inner();").count(), 2, "{wgsl}");
}

/// One variable passed twice by pointer (the parameters decorated Aliased), to a function that
/// stores through one and loads through the other: valid SPIR-V, but WGSL forbids the call.
const ALIASED_POINTER_ARGUMENTS: &str = r#"
               OpCapability Shader
               OpMemoryModel Logical GLSL450
               OpEntryPoint GLCompute %main "main"
               OpExecutionMode %main LocalSize 1 1 1
               OpName %x "x"
               OpDecorate %a Aliased
               OpDecorate %b Aliased
       %void = OpTypeVoid
         %fn = OpTypeFunction %void
       %uint = OpTypeInt 32 0
   %ptr_uint = OpTypePointer Function %uint
     %fn_two = OpTypeFunction %uint %ptr_uint %ptr_uint
     %uint_7 = OpConstant %uint 7
      %store = OpFunction %uint None %fn_two
          %a = OpFunctionParameter %ptr_uint
          %b = OpFunctionParameter %ptr_uint
         %l1 = OpLabel
               OpStore %b %uint_7
          %v = OpLoad %uint %a
               OpReturnValue %v
               OpFunctionEnd
       %main = OpFunction %void None %fn
         %l2 = OpLabel
          %x = OpVariable %ptr_uint Function
               OpStore %x %uint_7
          %r = OpFunctionCall %uint %store %x %x
               OpReturn
               OpFunctionEnd
"#;

#[test]
fn one_variable_passed_twice_by_pointer_is_refused() {
    let output = run(&[], Some(ALIASED_POINTER_ARGUMENTS.as_bytes()));
    assert_failure(&output, 1);
    assert_stderr_mentions(&output, "passes `x` twice by pointer", "the message names the variable");
    assert_stderr_mentions(&output, "OpFunctionCall", "the message points at the call");
}

/// A library module (Linkage capability, no entry point), as a front end writes for separate
/// compilation. Not Vulkan SPIR-V, so it is no fixture (those pass spirv-val for Vulkan).
const LIBRARY_MODULE: &str = r#"
               OpCapability Shader
               OpCapability Linkage
               OpMemoryModel Logical GLSL450
               OpName %scale "scale"
               OpName %bump "bump"
               OpName %counter "counter"
               OpDecorate %scale LinkageAttributes "scale" Export
      %float = OpTypeFloat 32
       %uint = OpTypeInt 32 0
       %void = OpTypeVoid
    %fscale = OpTypeFunction %float %float %float
  %ptr_fn_u = OpTypePointer Function %uint
  %ptr_pr_u = OpTypePointer Private %uint
     %fbump = OpTypeFunction %void %ptr_fn_u
     %uint_1 = OpConstant %uint 1
    %counter = OpVariable %ptr_pr_u Private
      %scale = OpFunction %float None %fscale
          %a = OpFunctionParameter %float
          %b = OpFunctionParameter %float
         %l1 = OpLabel
          %m = OpFMul %float %a %b
          %c = OpLoad %uint %counter
          %d = OpIAdd %uint %c %uint_1
               OpStore %counter %d
               OpReturnValue %m
               OpFunctionEnd
       %bump = OpFunction %void None %fbump
          %p = OpFunctionParameter %ptr_fn_u
         %l2 = OpLabel
          %v = OpLoad %uint %p
          %w = OpIAdd %uint %v %uint_1
               OpStore %p %w
               OpReturn
               OpFunctionEnd
"#;

#[test]
fn a_library_module_translates_to_its_functions() {
    let output = run(&[], Some(LIBRARY_MODULE.as_bytes()));
    assert_success(&output);
    let wgsl = stdout_of(&output);
    let module = assert_valid_wgsl(&wgsl, "library module");
    assert!(module.entry_points.is_empty(), "{wgsl}");
    // `scale` multiplies and counts its calls in a private global; `bump` adds 1 through a pointer.
    assert!(wgsl.contains("var<private> counter: u32;"), "{wgsl}");
    assert!(wgsl.contains("counter = counter + 1u;\n    return p_12 * p_13;"), "{wgsl}");
    assert!(wgsl.contains("fn bump(p_18: ptr<function, u32>) {\n    *p_18 = *p_18 + 1u;"), "{wgsl}");
}

#[test]
fn entry_point_option_selects_one_entry_point() {
    for (selected, other, size) in
        [("scale_values", "reset_counter", [64, 1, 1]), ("reset_counter", "scale_values", [1, 1, 1])]
    {
        let output = run(&[path_arg(&common::fixture(MULTI_ENTRY_FIXTURE)), "--entry-point", selected], None);
        assert_success(&output);
        let wgsl = stdout_of(&output);
        let module = assert_valid_wgsl(&wgsl, selected);
        assert_eq!(module.entry_points.len(), 1, "--entry-point {selected} should leave one entry point:\n{wgsl}");
        let entry = &module.entry_points[0];
        assert_eq!(entry.name, selected);
        assert_eq!(entry.stage, naga::ShaderStage::Compute);
        assert_eq!(entry.workgroup_size, size, "workgroup size of {selected}");
        assert!(!wgsl.contains(other), "--entry-point {selected} still mentions {other}:\n{wgsl}");

        // The same through the library.
        let options = spv2wgsl::Options { entry_point: Some(selected.to_string()), ..Default::default() };
        let library = spv2wgsl::translate(&common::read_fixture(MULTI_ENTRY_FIXTURE), &options)
            .unwrap_or_else(|e| panic!("library, entry point {selected}: {e}"));
        assert_same_wgsl(&wgsl, &library.wgsl);
    }
}

/// A vertex, a fragment and a geometry shader: WGSL has no geometry stage.
const MIXED_STAGES_FIXTURE: &str = "spvasm/io_multi_entry_points.spvasm";

#[test]
fn a_stage_wgsl_lacks_is_skipped_with_a_warning_and_an_error_when_alone() {
    let output = run(&[path_arg(&common::fixture(MIXED_STAGES_FIXTURE))], None);
    assert_success(&output);
    assert_stderr_mentions(&output, "skipped entry point `gs`", "the skipped geometry shader should be named");
    let module = assert_valid_wgsl(&stdout_of(&output), "mixed stages");
    assert_eq!(module.entry_points.len(), 2);

    let output = run(&[path_arg(&common::fixture(MIXED_STAGES_FIXTURE)), "--entry-point", "gs"], None);
    assert_failure(&output, 1);
    assert_stderr_mentions(&output, "Geometry", "the message should say which stage WGSL lacks");
}

#[test]
fn unknown_entry_point_is_an_error() {
    let dir = TempDir::new("cli-no-entry");
    let out = dir.join("out.wgsl");
    let output = run(
        &[path_arg(&common::fixture(MULTI_ENTRY_FIXTURE)), "--entry-point", "no_such_entry", "-o", path_arg(&out)],
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
        assert!(text.contains(option), "--help should mention {option}\n{}", describe(&help));
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
        assert!(output.stdout.is_empty(), "{args:?}: a usage error prints nothing on stdout\n{}", describe(&output));
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
    BadInput { fixture: "invalid/wrong_magic.spv", any_of: &["magic"], all_of: &[] },
    BadInput {
        fixture: "invalid/truncated.spv",
        any_of: &["truncat", "end of", "unexpected end", "incomplete", "too short", "eof", "missing"],
        all_of: &[],
    },
    BadInput {
        fixture: "invalid/truncated_header.spv",
        any_of: &["header", "truncat", "too short", "end of", "incomplete", "eof"],
        all_of: &[],
    },
    BadInput {
        fixture: "invalid/undefined_id.spv",
        any_of: &["undefined", "not defined", "not been defined", "never defined", "no definition", "unknown"],
        all_of: &["77"],
    },
    BadInput {
        fixture: "invalid/undefined_id.spvasm",
        any_of: &["undefined", "not defined", "not been defined", "never defined", "no definition", "unknown"],
        all_of: &["77"],
    },
    // Found by mutating fixtures: each once crashed the CLI or produced invalid WGSL.
    BadInput { fixture: "invalid/word_count_past_the_end.spv", any_of: &["truncated"], all_of: &["4100 words"] },
    BadInput { fixture: "invalid/workgroup_size_out_of_range.spv", any_of: &["workgroup size"], all_of: &["16384"] },
    BadInput { fixture: "invalid/cyclic_pointer_type.spvasm", any_of: &["not a type declared before"], all_of: &[] },
    BadInput {
        fixture: "invalid/self_containing_constant.spvasm",
        any_of: &["not a constant declared before"],
        all_of: &[],
    },
    BadInput { fixture: "invalid/huge_interface_array.spvasm", any_of: &["locations"], all_of: &["4211081214"] },
    BadInput {
        fixture: "invalid/vector_component_out_of_range.spvasm",
        any_of: &["constant index 5 is out of bounds"],
        all_of: &[],
    },
    BadInput {
        fixture: "invalid/matrix_with_huge_column_count.spvasm",
        any_of: &["matrix columns"],
        all_of: &["536870914"],
    },
    BadInput {
        fixture: "invalid/spec_constant_op_with_constant.spv",
        any_of: &["does not allow"],
        all_of: &["opspecconstantop"],
    },
    BadInput { fixture: "invalid/huge_relaid_out_array_copy.spv", any_of: &["element by element"], all_of: &["65536"] },
    BadInput {
        fixture: "invalid/workgroup_initializer_not_null.spvasm",
        any_of: &["must be opconstantnull"],
        all_of: &["workgroup"],
    },
    BadInput { fixture: "invalid/irreducible_cycle.spvasm", any_of: &["irreducible"], all_of: &["cycle"] },
    BadInput {
        // Stores and loads of locals whose values form a cycle: translating must end.
        fixture: "invalid/forwarding_cycle.spv",
        any_of: &["cannot translate"],
        all_of: &[],
    },
    BadInput { fixture: "invalid/constant_index_out_of_bounds.spv", any_of: &["out of bounds"], all_of: &["11141121"] },
];

/// Forty modules made by mutating words of the GLSL fixtures, each rejected by spirv-val and each
/// failing in a different way (malformed words, bad ids, bad types, bad control flow, ...).
#[test]
fn every_mutated_module_is_rejected_with_a_message() {
    let mutants = common::fixture_files(&["invalid/mutated"], &[".spv"]);
    assert!(mutants.len() >= 40, "expected the mutated modules, found {}", mutants.len());
    for mutant in mutants {
        let dir = TempDir::new("mutant");
        let out = dir.path().join("out.wgsl");
        let output = run_fixture_to(&mutant, &out, &[]);
        assert_failure(&output, 1);
        assert!(stderr_of(&output).contains("error:"), "{mutant}: no error message\n{}", describe(&output));
        assert_nothing_left(&dir, &mutant);
    }
}

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
        assert!(message.contains(word), "{}: the message should mention {word:?}\n{}", bad.fixture, describe(output));
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

/// A binary module in a file is not kept through the translation but read again for the report
/// of a failure: the report is the one the same bytes give on stdin, name aside, listing and
/// located definition included (the assembly inputs are assembled to binary files for this).
#[test]
fn a_failure_in_a_binary_file_is_reported_as_the_same_bytes_on_stdin() {
    let dir = TempDir::new("cli-reread");
    for bad in BAD_INPUTS {
        let bytes = match bad.fixture.ends_with(".spvasm") {
            true => {
                let text = String::from_utf8(common::read_fixture(bad.fixture)).unwrap();
                // Some fail to assemble: nothing binary to try.
                let Ok(assembly) = spv2wgsl::spirv::assemble::assemble(&text) else { continue };
                assembly.words.iter().flat_map(|word| word.to_le_bytes()).collect()
            }
            false => common::read_fixture(bad.fixture),
        };
        let file = dir.join("input.spv");
        std::fs::write(&file, &bytes).unwrap();
        let from_file = run(&[path_arg(&file)], None);
        let from_stdin = run(&["-"], Some(&bytes));
        assert_failure(&from_file, 1);
        assert_eq!(
            stderr_of(&from_file).replace(path_arg(&file), "<stdin>"),
            stderr_of(&from_stdin),
            "{}",
            bad.fixture
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
        assert_eq!(dir.entries(), vec!["out.wgsl".to_string()], "{}: files left behind", bad.fixture);
    }
}

#[test]
fn library_reports_bad_inputs_as_user_errors() {
    for bad in BAD_INPUTS {
        let bytes = common::read_fixture(bad.fixture);
        match spv2wgsl::translate(&bytes, &spv2wgsl::Options::default()) {
            Ok(translation) => panic!("{}: translated although invalid:\n{}", bad.fixture, translation.wgsl),
            Err(error) => {
                assert_eq!(error.exit_code(), 1, "{}: {error}", bad.fixture);
                let message = error.to_string();
                assert!(!message.trim().is_empty(), "{}: empty error message", bad.fixture);
                assert!(!message.trim_end().contains('\n'), "{}: Display should be one line: {message:?}", bad.fixture);
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

    let piped = run(&[], Some(&common::read_fixture("invalid/syntax_error.spvasm")));
    assert_failure(&piped, 1);
    assert_stderr_mentions(&piped, &location, &format!("from stdin too, the message should point at {location}"));
    assert!(piped.stdout.is_empty());

    let error =
        spv2wgsl::translate(&common::read_fixture("invalid/syntax_error.spvasm"), &spv2wgsl::Options::default())
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
// WGSL to SPIR-V

/// A fragment shader with struct I/O, and a module with three entry points.
const WGSL_FIXTURE: &str = "wgsl/fragment_struct_io.wgsl";
const WGSL_MULTI_ENTRY_FIXTURE: &str = "wgsl/multiple_entry_points.wgsl";

/// What the library makes of a WGSL fixture with these options.
fn library_spirv(relative: &str, options: &spv2wgsl::reverse::Options) -> spv2wgsl::reverse::Compiled {
    let source = String::from_utf8(common::read_fixture(relative)).expect("UTF-8");
    spv2wgsl::reverse::compile(&source, options)
        .unwrap_or_else(|e| panic!("the library cannot compile {relative}: {e}"))
}

/// The module's words, checking the magic number.
fn spirv_words(bytes: &[u8]) -> Vec<u32> {
    assert!(bytes.len() >= 20 && bytes.len().is_multiple_of(4), "not a SPIR-V binary: {} bytes", bytes.len());
    let words: Vec<u32> = bytes.chunks_exact(4).map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]])).collect();
    assert_eq!(words[0], 0x0723_0203, "little-endian SPIR-V magic");
    words
}

fn assert_spirv_val(file: &Path, environment: &str) {
    let mut command = Command::new("spirv-val");
    command.arg("--target-env").arg(environment).arg(file);
    let output =
        common::run_with_timeout(command, None, Duration::from_secs(60)).expect("spirv-val runs (install spirv-tools)");
    assert!(output.status.success(), "spirv-val --target-env {environment}:\n{}", describe(&output));
}

#[test]
fn wgsl_in_spirv_out() {
    let dir = TempDir::new("cli-wgsl-spv");
    let out = dir.join("out.spv");
    let output = run_fixture_to(WGSL_FIXTURE, &out, &[]);
    assert_success(&output);
    let bytes = std::fs::read(&out).expect("the output file exists");
    let words = spirv_words(&bytes);
    assert_eq!(words[1], 0x0001_0300, "SPIR-V 1.3 by default");
    assert_eq!(bytes, library_spirv(WGSL_FIXTURE, &Default::default()).to_bytes());
    assert_spirv_val(&out, "vulkan1.1");
    assert_eq!(dir.entries(), vec!["out.spv".to_string()]);
}

#[test]
fn wgsl_to_spvasm_by_extension_or_option_and_back() {
    let dir = TempDir::new("cli-wgsl-spvasm");
    let out = dir.join("out.spvasm");
    let by_extension = run_fixture_to(WGSL_FIXTURE, &out, &[]);
    assert_success(&by_extension);
    let text = std::fs::read_to_string(&out).expect("the output file exists");
    assert!(text.contains("OpEntryPoint Fragment"), "assembly text expected:\n{text}");
    assert_eq!(text, library_spirv(WGSL_FIXTURE, &Default::default()).disassemble());

    let input = common::fixture(WGSL_FIXTURE);
    let by_option = run(&[path_arg(&input), "--to", "spvasm"], None);
    assert_success(&by_option);
    assert_eq!(stdout_of(&by_option), text, "--to spvasm on stdout gives the same text");

    // The assembly is SPIR-V input for the forward path.
    let back = dir.join("back.wgsl");
    let output = run(&[path_arg(&out), "-o", path_arg(&back)], None);
    assert_success(&output);
    assert_valid_wgsl(&std::fs::read_to_string(&back).unwrap(), "spvasm_back_to_wgsl");
}

#[test]
fn to_option_overrides_the_extension() {
    let dir = TempDir::new("cli-to");
    let out = dir.join("out.txt");
    let output = run_fixture_to(WGSL_FIXTURE, &out, &["--to", "spirv"]);
    assert_success(&output);
    spirv_words(&std::fs::read(&out).unwrap());

    let out = dir.join("looks-like-binary.spv");
    let output = run_fixture_to(WGSL_FIXTURE, &out, &["--to", "spvasm"]);
    assert_success(&output);
    assert!(std::fs::read_to_string(&out).unwrap().starts_with("; SPIR-V"));
}

#[test]
fn wgsl_on_stdin_gives_binary_spirv_on_stdout() {
    let input = common::read_fixture(WGSL_FIXTURE);
    let output = run(&["-"], Some(&input));
    assert_success(&output);
    assert_eq!(output.stdout, library_spirv(WGSL_FIXTURE, &Default::default()).to_bytes());
}

#[test]
fn spirv_version_option() {
    let dir = TempDir::new("cli-version");
    for (version, word, environment) in [("1.0", 0x0001_0000, "vulkan1.0"), ("1.6", 0x0001_0600, "vulkan1.3")] {
        let out = dir.join(&format!("out-{version}.spv"));
        let output = run_fixture_to(WGSL_FIXTURE, &out, &["--spirv-version", version]);
        assert_success(&output);
        assert_eq!(spirv_words(&std::fs::read(&out).unwrap())[1], word, "--spirv-version {version}");
        assert_spirv_val(&out, environment);
    }
    for bad in ["1.7", "2.0", "1", "one"] {
        let out = dir.join("bad.spv");
        let output = run_fixture_to(WGSL_FIXTURE, &out, &["--spirv-version", bad]);
        assert_failure(&output, 2);
        assert!(!out.exists(), "--spirv-version {bad}: nothing is written");
    }
}

#[test]
fn no_debug_names_option() {
    let input = common::fixture(WGSL_FIXTURE);
    let named = run(&[path_arg(&input), "--to", "spvasm"], None);
    let unnamed = run(&[path_arg(&input), "--to", "spvasm", "--no-debug-names"], None);
    assert_success(&named);
    assert_success(&unnamed);
    assert!(stdout_of(&named).contains("OpName"), "names by default");
    let unnamed = stdout_of(&unnamed);
    assert!(!unnamed.contains("OpName") && !unnamed.contains("OpMemberName"), "{unnamed}");
}

#[test]
fn entry_point_option_with_wgsl_input() {
    let input = common::fixture(WGSL_MULTI_ENTRY_FIXTURE);
    let output = run(&[path_arg(&input), "--to", "spvasm", "--entry-point", "cs_main"], None);
    assert_success(&output);
    let text = stdout_of(&output);
    let entry_points: Vec<&str> = text.lines().filter(|l| l.starts_with("OpEntryPoint")).collect();
    assert_eq!(entry_points.len(), 1, "{text}");
    assert!(entry_points[0].contains("\"cs_main\""), "{text}");

    let dir = TempDir::new("cli-wgsl-entry");
    let out = dir.join("out.spv");
    let output = run_fixture_to(WGSL_MULTI_ENTRY_FIXTURE, &out, &["--entry-point", "nope"]);
    assert_failure(&output, 1);
    assert_stderr_mentions(&output, "nope", "the message should name the entry point");
    assert_stderr_mentions(&output, "vs_main, fs_main, cs_main", "and list the ones there are");
    assert_nothing_left(&dir, "after the failure");
}

#[test]
fn wgsl_syntax_error_reports_line_and_column() {
    let dir = TempDir::new("cli-wgsl-syntax");
    let input = dir.join("broken.wgsl");
    let out = dir.join("out.spv");
    std::fs::write(&input, "@fragment\nfn main() -> @location(0) vec4f {\n  return vec4f(1.0) +;\n}\n").unwrap();
    let output = run(&[path_arg(&input), "-o", path_arg(&out)], None);
    assert_failure(&output, 1);
    assert_stderr_mentions(&output, "broken.wgsl:3:22", "the message should point at line 3, column 22");
    assert_stderr_mentions(&output, "return vec4f(1.0) +;", "and show the line");
    assert!(!out.exists());
    assert_eq!(dir.entries(), vec!["broken.wgsl".to_string()], "nothing else is left behind");
}

#[test]
fn invalid_wgsl_is_reported_with_its_span() {
    // Parses, but WGSL forbids a nested struct in entry-point I/O.
    let source = "struct Inner { @location(0) a: vec4f }\n\
                  struct Outer { inner: Inner, @builtin(position) p: vec4f }\n\
                  @vertex fn main() -> Outer { var o: Outer; return o; }\n";
    let output = run(&["-", "--to", "spirv"], Some(source.as_bytes()));
    assert_failure(&output, 1);
    assert_stderr_mentions(&output, "<stdin>:2:1", "the message should point at the struct");
    assert!(output.stdout.is_empty());
}

#[test]
fn a_direction_the_input_cannot_go_is_a_usage_error() {
    let dir = TempDir::new("cli-direction");
    let cases: [(&str, &str, &[&str]); 6] = [
        (WGSL_FIXTURE, "out.wgsl", &[]),
        (WGSL_FIXTURE, "out.spv", &["--to", "wgsl"]),
        (WGSL_FIXTURE, "out.spv", &["--no-validate"]),
        (BINARY_FIXTURE, "out.spv", &[]),
        (BINARY_FIXTURE, "out.wgsl", &["--spirv-version", "1.4"]),
        (ASSEMBLY_FIXTURE, "out.wgsl", &["--no-debug-names"]),
    ];
    for (fixture, out, flags) in cases {
        let out = dir.join(out);
        let output = run_fixture_to(fixture, &out, flags);
        assert_failure(&output, 2);
        assert_nothing_left(&dir, &format!("{fixture} -o {} {flags:?}", out.display()));
    }
}

#[test]
fn help_mentions_the_wgsl_options() {
    let help = run(&["--help"], None);
    assert_success(&help);
    let text = stdout_of(&help);
    for option in ["--to", "--spirv-version", "--no-debug-names", "spvasm"] {
        assert!(text.contains(option), "--help should mention {option}\n{}", describe(&help));
    }
}

// ---------------------------------------------------------------------------
// Many inputs: --check, --out-dir, --jobs, --message-format, --deny-warnings, --color

/// Exits 1: `%77` is used but never defined. `spirv-dis --raw-id --offsets` shows the culprit as
/// `%14 = OpFMul %6 %13 %77 ; 0x00000194` (byte 0x194 = word 101) in function `%1`, block `%11`.
const UNDEFINED_ID_FIXTURE: &str = "invalid/undefined_id.spv";
const UNDEFINED_ID_ASSEMBLY_FIXTURE: &str = "invalid/undefined_id.spvasm";
const WRONG_MAGIC_FIXTURE: &str = "invalid/wrong_magic.spv";

/// Runs the CLI with `dir` as the working directory, so paths in its messages are relative.
fn run_in(dir: &Path, args: &[&str]) -> Output {
    let mut command = Command::new(BIN);
    command.args(args).current_dir(dir);
    common::run_with_timeout(command, None, Duration::from_secs(120))
        .unwrap_or_else(|e| panic!("running spv2wgsl {args:?}: {e}"))
}

/// Copies fixtures into `dir` under new relative names, creating directories as needed.
fn copy_fixtures(dir: &TempDir, files: &[(&str, &str)]) {
    for (fixture, name) in files {
        let path = dir.join(name);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, common::read_fixture(fixture)).unwrap();
    }
}

/// Every file under `root`, relative and sorted, with its contents.
fn tree(root: &Path) -> Vec<(String, Vec<u8>)> {
    let mut files = Vec::new();
    let mut pending = vec![root.to_path_buf()];
    while let Some(dir) = pending.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                pending.push(path);
            } else {
                let relative = path.strip_prefix(root).unwrap().to_string_lossy().into_owned();
                files.push((relative, std::fs::read(&path).unwrap()));
            }
        }
    }
    files.sort();
    files
}

/// Three shaders that translate (one with a warning: a geometry entry point is skipped), two that
/// do not, and a file that is not SPIR-V, in `shaders/` and below.
fn shader_tree() -> TempDir {
    let dir = TempDir::new("cli-check");
    copy_fixtures(
        &dir,
        &[
            (BINARY_FIXTURE, "shaders/storage.comp.spv"),
            (ASSEMBLY_FIXTURE, "shaders/nested/members.spvasm"),
            (MIXED_STAGES_FIXTURE, "shaders/stages.spvasm"),
            (UNDEFINED_ID_FIXTURE, "shaders/nested/undefined.spv"),
            (WRONG_MAGIC_FIXTURE, "shaders/zz/magic.spv"),
            ("README.md", "shaders/README.md"),
        ],
    );
    dir
}

fn lines_of(text: &str) -> Vec<&str> {
    text.lines().collect()
}

#[test]
fn check_reports_each_problem_in_path_order_and_a_summary() {
    let dir = shader_tree();
    let before = tree(dir.path());
    let output = run_in(dir.path(), &["--check", "shaders"]);
    assert_eq!(output.status.code(), Some(1), "{}", describe(&output));
    assert_no_panic(&output);
    assert_eq!(stdout_of(&output), "3 passed, 2 failed\n");
    let stderr = stderr_of(&output);
    let lines = lines_of(&stderr);
    assert_eq!(lines.len(), 3, "one line per failure and per warning:\n{stderr}");
    assert!(
        lines[0].starts_with("shaders/nested/undefined.spv: error: invalid SPIR-V: %77 is used but never defined"),
        "{stderr}"
    );
    assert_eq!(
        lines[1],
        "shaders/stages.spvasm: warning: skipped entry point `gs`: WGSL has no Geometry stage (at word 0x18, OpEntryPoint)"
    );
    assert!(lines[2].starts_with("shaders/zz/magic.spv: error: malformed SPIR-V:"), "{stderr}");
    assert!(lines[2].contains("magic"), "{stderr}");
    assert_eq!(tree(dir.path()), before, "--check writes nothing");

    // Files and directories mix; the good ones alone pass.
    let output = run_in(
        dir.path(),
        &["--check", "shaders/storage.comp.spv", "shaders/nested/members.spvasm", "shaders/stages.spvasm"],
    );
    assert_success(&output);
    assert_eq!(stdout_of(&output), "3 passed, 0 failed\n");
    assert_eq!(lines_of(&stderr_of(&output)).len(), 1, "the warning is still shown\n{}", describe(&output));
}

#[test]
fn deny_warnings_fails_the_input_with_the_warning() {
    let dir = shader_tree();
    let output = run_in(dir.path(), &["--check", "shaders", "--deny-warnings"]);
    assert_eq!(output.status.code(), Some(1), "{}", describe(&output));
    assert_eq!(stdout_of(&output), "2 passed, 3 failed\n");
    assert!(
        stderr_of(&output).contains(
            "shaders/stages.spvasm: error: skipped entry point `gs`: WGSL has no Geometry stage \
             (at word 0x18, OpEntryPoint) (warnings are denied)"
        ),
        "{}",
        describe(&output)
    );

    // One file: exit 1 and no output file, where without the option it translates.
    let out = dir.join("stages.wgsl");
    let output = run_fixture_to(MIXED_STAGES_FIXTURE, &out, &["--deny-warnings"]);
    assert_failure(&output, 1);
    assert_stderr_mentions(&output, "skipped entry point `gs`", "the denied warning should be shown");
    assert!(!out.exists(), "a denied warning leaves no output file");
    let output = run(&[path_arg(&common::fixture(MIXED_STAGES_FIXTURE)), "--deny-warnings"], None);
    assert_failure(&output, 1);
    assert!(output.stdout.is_empty(), "nothing on stdout either\n{}", describe(&output));
    assert_success(&run_fixture_to(MIXED_STAGES_FIXTURE, &out, &[]));
    assert!(out.exists());
}

#[test]
fn check_output_is_the_same_for_any_number_of_jobs() {
    let dir = shader_tree();
    for format in ["human", "json", "github"] {
        let sequential = run_in(dir.path(), &["--check", "shaders", "--jobs", "1", "--message-format", format]);
        for jobs in ["2", "4", "16"] {
            let parallel = run_in(dir.path(), &["--check", "shaders", "--jobs", jobs, "--message-format", format]);
            assert_eq!(parallel.status.code(), sequential.status.code(), "{format}, --jobs {jobs}");
            assert_eq!(stdout_of(&parallel), stdout_of(&sequential), "{format}, --jobs {jobs}");
            assert_eq!(stderr_of(&parallel), stderr_of(&sequential), "{format}, --jobs {jobs}");
        }
    }
}

/// The lines of `--message-format json` output as JSON values, each checked to read back as a
/// `FileDiagnostic` that writes the very same line.
fn json_lines(stderr: &str) -> Vec<serde_json::Value> {
    stderr
        .lines()
        .map(|line| {
            let diagnostic: FileDiagnostic =
                serde_json::from_str(line).unwrap_or_else(|e| panic!("not a diagnostic ({e}): {line}"));
            assert_eq!(serde_json::to_string(&diagnostic).unwrap(), line, "read back and written again");
            serde_json::from_str(line).unwrap()
        })
        .collect()
}

#[test]
fn json_lines_parse_and_carry_the_location() {
    let dir = TempDir::new("cli-json");
    // A file name that JSON must escape.
    let odd_name = "odd \"name\" \\ here.spv";
    copy_fixtures(
        &dir,
        &[
            (UNDEFINED_ID_FIXTURE, odd_name),
            (UNDEFINED_ID_ASSEMBLY_FIXTURE, "text.spvasm"),
            (MIXED_STAGES_FIXTURE, "stages.spvasm"),
        ],
    );
    let output = run_in(dir.path(), &["--check", odd_name, "text.spvasm", "stages.spvasm", "--message-format", "json"]);
    assert_eq!(output.status.code(), Some(1), "{}", describe(&output));
    assert_eq!(stdout_of(&output), "1 passed, 2 failed\n");
    let stderr = stderr_of(&output);
    let objects = json_lines(&stderr);
    assert_eq!(objects.len(), 3, "{stderr}");
    let keys =
        ["file", "severity", "message", "result_id", "word_offset", "opcode", "function", "block", "line", "column"];
    for (line, object) in stderr.lines().zip(&objects) {
        let positions: Vec<usize> = keys.iter().map(|key| line.find(&format!("\"{key}\":")).unwrap()).collect();
        assert!(positions.is_sorted(), "every key, in this order: {line}");
        assert_eq!(object.as_object().unwrap().len(), keys.len(), "no other key: {line}");
    }

    let binary = &objects[0];
    assert_eq!(binary["file"], odd_name);
    assert_eq!(binary["severity"], "error");
    assert!(binary["message"].as_str().unwrap().contains("%77 is used but never defined"), "{stderr}");
    assert_eq!(binary["word_offset"], 101);
    assert_eq!(binary["opcode"], "OpFMul");
    assert_eq!(binary["result_id"], 14);
    assert_eq!(binary["function"], 1);
    assert_eq!(binary["block"], 11);
    assert_eq!(binary["line"], serde_json::Value::Null);

    // The assembler's error points at the `%77` in the text.
    let source = String::from_utf8(common::read_fixture(UNDEFINED_ID_ASSEMBLY_FIXTURE)).unwrap();
    let (line, column) = source
        .lines()
        .enumerate()
        .find_map(|(i, l)| (!l.trim_start().starts_with(';')).then(|| l.find("%77")).flatten().map(|c| (i + 1, c + 1)))
        .unwrap();
    let assembly = &objects[1];
    assert_eq!(assembly["file"], "text.spvasm");
    assert_eq!(assembly["line"], line);
    assert_eq!(assembly["column"], column);

    // A warning carries the same location as an error would: the skipped `OpEntryPoint` is at
    // word 0x18, on line 15 of the text.
    let warning = &objects[2];
    assert_eq!(warning["file"], "stages.spvasm");
    assert_eq!(warning["severity"], "warning");
    assert_eq!(warning["message"], "skipped entry point `gs`: WGSL has no Geometry stage (at word 0x18, OpEntryPoint)");
    assert_eq!(warning["word_offset"], 0x18);
    assert_eq!(warning["opcode"], "OpEntryPoint");
    assert_eq!((&warning["line"], &warning["column"]), (&15.into(), &1.into()));
}

#[test]
fn github_annotations_escape_what_the_runner_reads_as_syntax() {
    let dir = TempDir::new("cli-github");
    let odd_name = "a,b:c%d.spv";
    copy_fixtures(
        &dir,
        &[
            (UNDEFINED_ID_FIXTURE, odd_name),
            (UNDEFINED_ID_ASSEMBLY_FIXTURE, "text.spvasm"),
            (MIXED_STAGES_FIXTURE, "stages.spvasm"),
        ],
    );
    let output =
        run_in(dir.path(), &["--check", odd_name, "text.spvasm", "stages.spvasm", "--message-format", "github"]);
    assert_eq!(output.status.code(), Some(1), "{}", describe(&output));
    let stderr = stderr_of(&output);
    let lines = lines_of(&stderr);
    assert_eq!(lines.len(), 3, "{stderr}");
    // `%` is escaped everywhere; `,` and `:` only in properties such as the file name.
    assert_eq!(
        lines[0],
        "::error file=a%2Cb%3Ac%25d.spv::invalid SPIR-V: %2577 is used but never defined (at word 0x65, %2514 = OpFMul, in function %251, block %2511)"
    );
    assert!(
        lines[1].starts_with(
            "::error file=text.spvasm,line=34,col=37::assembly error at 34:37: `%2577` is used but never defined"
        ),
        "{stderr}"
    );
    assert_eq!(
        lines[2],
        "::warning file=stages.spvasm,line=15,col=1::skipped entry point `gs`: WGSL has no Geometry stage (at word 0x18, OpEntryPoint)"
    );
}

#[test]
fn message_format_applies_to_a_single_file_too() {
    let output = run(&[path_arg(&common::fixture(UNDEFINED_ID_FIXTURE)), "--message-format", "json"], None);
    assert_failure(&output, 1);
    assert!(output.stdout.is_empty());
    let stderr = stderr_of(&output);
    let objects = json_lines(&stderr);
    assert_eq!(objects.len(), 1, "one JSON line:\n{stderr}");
    assert_eq!(objects[0]["word_offset"], 101);

    let output = run(&["-", "--message-format", "github", "--to", "spirv"], Some(b"fn f( {"));
    assert_failure(&output, 1);
    assert!(stderr_of(&output).starts_with("::error file=<stdin>,line=1,col="), "{}", describe(&output));
}

#[test]
fn batch_writes_what_single_file_runs_write_for_any_number_of_jobs() {
    let dir = TempDir::new("cli-batch");
    let fixtures = [
        BINARY_FIXTURE,
        ASSEMBLY_FIXTURE,
        MULTI_ENTRY_FIXTURE,
        MIXED_STAGES_FIXTURE,
        "glsl/compute_storage_runtime_array.comp.be.spv",
        "glsl/control_flow_loops.comp.opt.spv",
    ];
    let inputs: Vec<String> = fixtures.iter().map(|f| path_arg(&common::fixture(f)).to_string()).collect();
    let mut outputs = Vec::new();
    let mut stderrs = Vec::new();
    for jobs in ["1", "4"] {
        let out_dir = dir.join(&format!("out-{jobs}"));
        let mut args: Vec<&str> = inputs.iter().map(String::as_str).collect();
        args.extend(["--out-dir", path_arg(&out_dir), "--jobs", jobs]);
        let output = run(&args, None);
        assert_success(&output);
        assert!(output.stdout.is_empty(), "{}", describe(&output));
        stderrs.push(stderr_of(&output));
        outputs.push(tree(&out_dir));
    }
    assert_eq!(outputs[0], outputs[1], "--jobs 1 and --jobs 4 wrote different files");
    assert_eq!(stderrs[0], stderrs[1], "--jobs 1 and --jobs 4 reported differently");
    assert!(stderrs[0].contains("skipped entry point `gs`"), "the warning is reported:\n{}", stderrs[0]);
    let names: Vec<&str> = outputs[0].iter().map(|(name, _)| name.as_str()).collect();
    assert_eq!(
        names,
        [
            "compute_storage_runtime_array.comp.be.wgsl",
            "compute_storage_runtime_array.comp.wgsl",
            "control_flow_loops.comp.opt.wgsl",
            "io_multi_entry_points.wgsl",
            "multi_entry_point.wgsl",
            "storage_nonwritable_members.wgsl"
        ]
    );
    for (fixture, input) in fixtures.iter().zip(&inputs) {
        let single = dir.join("single.wgsl");
        assert_success(&run(&[input, "-o", path_arg(&single)], None));
        let name = spv2wgsl::batch::output_name(Path::new(input));
        let batch = &outputs[0].iter().find(|(n, _)| *n == name).unwrap().1;
        assert_eq!(
            batch,
            &std::fs::read(&single).unwrap(),
            "{fixture}: the batch output differs from the single-file one"
        );
        assert_valid_wgsl(&String::from_utf8(batch.clone()).unwrap(), fixture);
    }
}

#[test]
fn batch_writes_nothing_for_an_input_that_fails() {
    let dir = TempDir::new("cli-batch-fail");
    copy_fixtures(
        &dir,
        &[
            (BINARY_FIXTURE, "in/good.spv"),
            (UNDEFINED_ID_FIXTURE, "in/bad.spv"),
            (MIXED_STAGES_FIXTURE, "in/warns.spvasm"),
        ],
    );
    let previous = b"// an earlier translation of bad.spv\n";
    std::fs::create_dir(dir.join("out")).unwrap();
    std::fs::write(dir.join("out/bad.wgsl"), previous).unwrap();
    let output = run_in(dir.path(), &["in/bad.spv", "in/good.spv", "in/warns.spvasm", "--out-dir", "out"]);
    assert_failure(&output, 1);
    assert_stderr_mentions(&output, "%77 is used but never defined", "the failure is reported");
    assert_stderr_mentions(&output, "in/bad.spv", "with its file");
    let written = tree(&dir.join("out"));
    let names: Vec<&str> = written.iter().map(|(name, _)| name.as_str()).collect();
    assert_eq!(names, ["bad.wgsl", "good.wgsl", "warns.wgsl"], "no temporary file is left");
    assert_eq!(written[0].1, previous, "the failed input's old output is untouched");

    // With warnings denied, the input with a warning writes nothing either.
    std::fs::remove_dir_all(dir.join("out")).unwrap();
    let output = run_in(dir.path(), &["in", "--out-dir", "out", "--deny-warnings"]);
    assert_failure(&output, 1);
    let names: Vec<String> = tree(&dir.join("out")).into_iter().map(|(name, _)| name).collect();
    assert_eq!(names, ["good.wgsl"]);
}

#[test]
fn batch_usage_errors_exit_2_and_write_nothing() {
    let dir = TempDir::new("cli-batch-usage");
    copy_fixtures(&dir, &[(BINARY_FIXTURE, "a/shader.spv"), (ASSEMBLY_FIXTURE, "b/shader.spvasm")]);
    let cases: [&[&str]; 6] = [
        // Two inputs would write out/shader.wgsl.
        &["a/shader.spv", "b/shader.spvasm", "--out-dir", "out"],
        &["a", "b", "--out-dir", "out"],
        &["-", "--out-dir", "out"],
        &["--check"],
        &["--check", "a", "-o", "out.wgsl"],
        &["--check", "a", "--no-validate"],
    ];
    for args in cases {
        let output = run_in(dir.path(), args);
        assert_failure(&output, 2);
        assert!(output.stdout.is_empty(), "{args:?}\n{}", describe(&output));
        assert_eq!(dir.entries(), ["a", "b"], "{args:?}: something was written");
    }
    let output = run_in(dir.path(), &["a/shader.spv", "b/shader.spvasm", "--out-dir", "out"]);
    assert_stderr_mentions(
        &output,
        "a/shader.spv and b/shader.spvasm would both write shader.wgsl",
        "the clash should be named",
    );
}

const ESCAPE: &str = "\u{1b}[";

#[test]
fn diagnostics_are_colored_only_when_asked_or_on_a_terminal() {
    let dir = shader_tree();
    let bad = common::fixture(UNDEFINED_ID_FIXTURE);
    let runs: [(&str, Output); 6] = [
        ("--check", run_in(dir.path(), &["--check", "shaders", "--color", "always"])),
        ("single file", run(&[path_arg(&bad), "--color", "always"], None)),
        ("--out-dir", run_in(dir.path(), &["shaders", "--out-dir", "out", "--color", "always"])),
        ("--check, auto", run_in(dir.path(), &["--check", "shaders"])),
        ("single file, auto", run(&[path_arg(&bad)], None)),
        ("--check, never", run_in(dir.path(), &["--check", "shaders", "--color", "never"])),
    ];
    for (what, output) in &runs[..3] {
        assert!(stderr_of(output).contains(ESCAPE), "{what} with --color always:\n{}", describe(output));
    }
    // The tests' stderr is a pipe, not a terminal.
    for (what, output) in &runs[3..] {
        assert!(!stderr_of(output).contains(ESCAPE), "{what}:\n{}", describe(output));
        assert!(!stderr_of(output).is_empty(), "{what}: the failures are still reported");
    }
    for format in ["json", "github"] {
        let output = run_in(dir.path(), &["--check", "shaders", "--color", "always", "--message-format", format]);
        assert!(!stderr_of(&output).contains(ESCAPE), "{format} is never colored:\n{}", describe(&output));
    }
}

#[test]
fn help_shows_the_three_uses() {
    let help = run(&["--help"], None);
    assert_success(&help);
    let text = stdout_of(&help);
    for needle in [
        "--check",
        "--out-dir",
        "--jobs",
        "--message-format",
        "--deny-warnings",
        "--color",
        "spv2wgsl --check shaders/",
        "--out-dir gen/",
    ] {
        assert!(text.contains(needle), "--help should mention {needle}\n{text}");
    }
}
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
    let read_back: Vec<spv2wgsl::Binding> = serde_json::from_str(&json).expect("the binding map reads back");
    assert_eq!(spv2wgsl::binding_map::to_json(&read_back), json, "read back and written again");
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
    let sampler =
        entries.iter().find(|e| e.contains("\"name\": \"albedo_sampler\"")).expect("albedo_sampler is listed");
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
    let output = run_fixture_to(
        COMBINED_SAMPLERS_FIXTURE,
        &out,
        &["--sampler-binding", "0:0=2:7", "--sampler-binding", "1:1=1:9"],
    );
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
    let output = run_fixture_to(
        SPEC_CONSTANT_FIXTURE,
        &out,
        &["--override", "1=10", "--override", "0=32", "--override", "4=false"],
    );
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
fn override_of_a_shared_spec_id_is_read_as_its_first_32_bit_constant() {
    // SpecId 3: an int (read first), a uint reading the same bits, and a bool.
    let dir = TempDir::new("cli-override-shared");
    let out = dir.join("out.wgsl");
    let output = run_fixture_to("exec/compute/shared_spec_ids.spvasm", &out, &["--override", "3=-5"]);
    assert_success(&output);
    let wgsl = std::fs::read_to_string(&out).expect("the WGSL was written");
    assert_valid_wgsl(&wgsl, "shared override");
    for value in ["= 4294967291u;", "= -5i;", "select(1u, 9u, true)"] {
        assert!(wgsl.contains(value), "{value}:\n{wgsl}");
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

/// A uniform block whose array is sized by `COUNT + 1`, `COUNT` having SpecId 7 and default 3.
const ARRAY_SIZED_BY_SPEC_CONSTANT: &str = r#"
               OpCapability Shader
               OpMemoryModel Logical GLSL450
               OpEntryPoint GLCompute %main "main"
               OpExecutionMode %main LocalSize 1 1 1
               OpName %COUNT "COUNT"
               OpName %Block "Block"
               OpName %Out "Out"
               OpDecorate %COUNT SpecId 7
               OpDecorate %array ArrayStride 16
               OpMemberDecorate %Block 0 Offset 0
               OpDecorate %Block Block
               OpDecorate %block DescriptorSet 0
               OpDecorate %block Binding 0
               OpMemberDecorate %Out 0 Offset 0
               OpDecorate %Out Block
               OpDecorate %out DescriptorSet 0
               OpDecorate %out Binding 1
       %void = OpTypeVoid
     %fnvoid = OpTypeFunction %void
       %uint = OpTypeInt 32 0
      %float = OpTypeFloat 32
    %v4float = OpTypeVector %float 4
     %uint_0 = OpConstant %uint 0
     %uint_1 = OpConstant %uint 1
      %COUNT = OpSpecConstant %uint 3
     %length = OpSpecConstantOp %uint IAdd %COUNT %uint_1
      %array = OpTypeArray %v4float %length
      %Block = OpTypeStruct %array
  %ptr_Block = OpTypePointer Uniform %Block
      %block = OpVariable %ptr_Block Uniform
        %Out = OpTypeStruct %v4float
    %ptr_Out = OpTypePointer StorageBuffer %Out
        %out = OpVariable %ptr_Out StorageBuffer
%ptr_u_v4float = OpTypePointer Uniform %v4float
%ptr_s_v4float = OpTypePointer StorageBuffer %v4float
       %main = OpFunction %void None %fnvoid
      %entry = OpLabel
          %p = OpAccessChain %ptr_u_v4float %block %uint_0 %uint_1
          %v = OpLoad %v4float %p
          %q = OpAccessChain %ptr_s_v4float %out %uint_0
               OpStore %q %v
               OpReturn
               OpFunctionEnd
"#;

#[test]
fn an_array_sized_by_a_spec_constant_takes_the_default_with_a_warning_naming_the_override() {
    let output = run(&[], Some(ARRAY_SIZED_BY_SPEC_CONSTANT.as_bytes()));
    assert_success(&output);
    let wgsl = stdout_of(&output);
    assert_valid_wgsl(&wgsl, "array sized by a spec constant's default");
    assert!(wgsl.contains("array<vec4<f32>, 4>"), "COUNT + 1 with COUNT's default 3:\n{wgsl}");
    assert_stderr_mentions(&output, "its length is fixed at 4", "the length chosen");
    assert_stderr_mentions(&output, "--override 7=VALUE (`COUNT`) sets another", "the flag that sets another");
    let output = run(&["--override", "7=4"], Some(ARRAY_SIZED_BY_SPEC_CONSTANT.as_bytes()));
    assert_success(&output);
    assert!(!String::from_utf8_lossy(&output.stderr).contains("warning"), "no warning with --override");
    let wgsl = stdout_of(&output);
    assert_valid_wgsl(&wgsl, "array sized by an overridden spec constant");
    assert!(wgsl.contains("array<vec4<f32>, 5>"), "COUNT + 1 with COUNT = 4:\n{wgsl}");
    let output = run(&["--deny-warnings"], Some(ARRAY_SIZED_BY_SPEC_CONSTANT.as_bytes()));
    assert_failure(&output, 1);
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

#[test]
fn draw_parameters_are_refused_unless_emulated_at_a_binding_the_option_may_choose() {
    let dir = TempDir::new("cli-draw-parameters");
    let out = dir.join("out.wgsl");
    let vertex = "exec/render/draw_parameters.vert.spv";
    let output = run_fixture_to(vertex, &out, &[]);
    assert_failure(&output, 1);
    assert_stderr_mentions(&output, "builtin BaseVertex", "the builtin WebGPU lacks");
    assert_stderr_mentions(&output, "--emulate-draw-parameters", "the option that emulates it");
    let output = run_fixture_to(vertex, &out, &["--emulate-draw-parameters", "--draw-parameters-binding", "1:7"]);
    assert_success(&output);
    let wgsl = std::fs::read_to_string(&out).expect("the WGSL was written");
    assert_valid_wgsl(&wgsl, "emulated draw parameters");
    assert!(wgsl.contains("@group(1) @binding(7) var<uniform> draw_parameters: DrawParameters;"), "{wgsl}");
    assert!(wgsl.contains("draw_parameters.base_vertex"), "{wgsl}");
    assert_stderr_mentions(&output, "draw-parameters uniform buffer", "the warning naming the binding");
    // The binding option alone is a usage error.
    let output = run_fixture_to(vertex, &out, &["--draw-parameters-binding", "1:7"]);
    assert_failure(&output, 2);
}
