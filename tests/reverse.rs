//! Tests of the reverse path, WGSL to Vulkan SPIR-V. Every `.wgsl` file under `fixtures/wgsl` is
//! a case (dropping a file in adds one), with its expectations in its own comments:
//! - `// interface ENTRY: CLASS DECORATIONS TYPE`, one line per `Input`/`Output` variable the
//!   entry point must list, read back from the module: the storage class, the decorations (the
//!   builtin or location first, then the others in alphabetical order) and the pointee type in
//!   WGSL spelling (`array<u32, 1>` for Vulkan's sample mask);
//! - `// min-spirv: 1.N`: the lowest SPIR-V version the shader can be written for;
//! - `// round-trip-fails: TEXT`: the translation back to WGSL is expected to fail with a message
//!   containing TEXT (up to any parenthesis), for a known gap of the forward path;
//! - `// round-trip-loses: invariant`: the translation back drops `@invariant` from `position`,
//!   a known gap of the forward path.
//!
//! For each fixture and each SPIR-V version from its minimum to 1.6, the module must pass
//! `spirv-val` for the matching Vulkan environment, list exactly the expected interface, and
//! write every output before each return of an entry point. Translated back to WGSL with our
//! forward path, it must validate with naga and Tint and keep the entry points' interfaces.

mod common;

use std::collections::{BTreeMap, BTreeSet};
use std::process::Command;
use std::time::Duration;

use common::{Failures, TempDir};
use rspirv::dr::{self, Operand};
use spirv::{Op, StorageClass, Word};
use spv2wgsl::reverse::{self, Options};

/// Each SPIR-V version and the Vulkan environment spirv-val checks it for.
const ENVIRONMENTS: &[((u8, u8), &str)] = &[
    ((1, 0), "vulkan1.1"),
    ((1, 1), "vulkan1.1"),
    ((1, 2), "vulkan1.1"),
    ((1, 3), "vulkan1.1"),
    ((1, 4), "vulkan1.1spv1.4"),
    ((1, 5), "vulkan1.2"),
    ((1, 6), "vulkan1.3"),
];

/// A WGSL fixture and the expectations its comments state.
struct Fixture {
    name: String,
    source: String,
    /// Entry point name to its expected interface lines.
    interface: BTreeMap<String, BTreeSet<String>>,
    min_version: (u8, u8),
    round_trip_fails: Option<String>,
    round_trip_loses_invariant: bool,
}

fn fixtures() -> Vec<Fixture> {
    let names = common::fixture_files(&["wgsl"], &[".wgsl"]);
    assert!(!names.is_empty(), "no fixtures under fixtures/wgsl");
    names.iter().map(|name| read_fixture(name)).collect()
}

fn read_fixture(name: &str) -> Fixture {
    let source = String::from_utf8(common::read_fixture(name)).expect("fixtures are UTF-8");
    let mut fixture = Fixture {
        name: name.to_string(),
        source: source.clone(),
        interface: BTreeMap::new(),
        min_version: (1, 0),
        round_trip_fails: None,
        round_trip_loses_invariant: false,
    };
    for line in source.lines() {
        let Some(comment) = line.trim().strip_prefix("// ") else {
            continue;
        };
        if let Some(rest) = comment.strip_prefix("interface ") {
            let (entry, variable) = rest.split_once(": ").unwrap_or_else(|| panic!("{name}: bad line {line:?}"));
            fixture.interface.entry(entry.to_string()).or_default().insert(variable.to_string());
        } else if let Some(version) = comment.strip_prefix("min-spirv: 1.") {
            fixture.min_version = (1, version.parse().unwrap_or_else(|_| panic!("{name}: bad line {line:?}")));
        } else if comment.starts_with("round-trip-loses: invariant") {
            fixture.round_trip_loses_invariant = true;
        } else if let Some(text) = comment.strip_prefix("round-trip-fails: ") {
            let text = text.split(" (").next().unwrap_or(text);
            fixture.round_trip_fails = Some(text.to_string());
        }
    }
    assert!(!fixture.interface.is_empty(), "{name} states no `// interface` lines");
    fixture
}

fn compile(source: &str, version: (u8, u8)) -> Result<reverse::Compiled, reverse::Error> {
    reverse::compile(source, &Options { spirv_version: version, ..Options::default() })
}

fn spirv_val(words: &[u32], environment: &str, label: &str) -> Result<(), String> {
    let dir = TempDir::new("spirv-val");
    let file = dir.join(&format!("{}.spv", label.replace(['/', '.'], "_")));
    let bytes: Vec<u8> = words.iter().flat_map(|word| word.to_le_bytes()).collect();
    std::fs::write(&file, bytes).map_err(|e| format!("cannot write {}: {e}", file.display()))?;
    let mut command = Command::new("spirv-val");
    command.arg("--target-env").arg(environment).arg(&file);
    let output = common::run_with_timeout(command, None, Duration::from_secs(60))
        .map_err(|e| format!("cannot run spirv-val (install spirv-tools): {e}"))?;
    if output.status.success() {
        return Ok(());
    }
    Err(format!(
        "spirv-val --target-env {environment} rejects it:\n{}{}",
        String::from_utf8_lossy(&output.stderr),
        String::from_utf8_lossy(&output.stdout)
    ))
}

// ---------------------------------------------------------------------------
// Reading the module

/// The module read back by rspirv. Its loader (0.13) cannot place `OpExecutionModeId` (the
/// `LocalSizeId` of a workgroup size from overrides) nor a module-scope `OpExtInst` (a recorded
/// storage texel format): the former are taken out of the words and put back into the execution
/// modes, the latter left out (see [`recorded_texel_formats`]).
fn load(words: &[u32]) -> dr::Module {
    let mut kept = words[..5].to_vec();
    let mut modes = Vec::new();
    let mut at = 5;
    let mut in_function = false;
    while at < words.len() {
        let count = (words[at] >> 16) as usize;
        assert!(count > 0 && at + count <= words.len(), "a malformed instruction at word {at}");
        let opcode = words[at] & 0xFFFF;
        in_function |= opcode == Op::Function as u32;
        if opcode == Op::ExecutionModeId as u32 {
            modes.push(words[at..at + count].to_vec());
        } else if in_function || opcode != Op::ExtInst as u32 {
            kept.extend_from_slice(&words[at..at + count]);
        }
        at += count;
    }
    let mut module = dr::load_words(&kept).expect("rspirv reads the module back");
    for mode in modes {
        let execution_mode = spirv::ExecutionMode::from_u32(mode[2]).expect("an execution mode");
        let mut operands = vec![Operand::IdRef(mode[1]), Operand::ExecutionMode(execution_mode)];
        operands.extend(mode[3..].iter().map(|&id| Operand::IdRef(id)));
        module.execution_modes.push(dr::Instruction::new(Op::ExecutionModeId, None, None, operands));
    }
    module
}

/// A type in WGSL spelling.
fn spell_type(module: &dr::Module, id: Word) -> String {
    let Some(inst) = module.types_global_values.iter().find(|inst| inst.result_id == Some(id)) else {
        return format!("%{id}?");
    };
    let literal = |i: usize| match inst.operands.get(i) {
        Some(&Operand::LiteralBit32(n)) => n,
        _ => 0,
    };
    let id_operand = |i: usize| match inst.operands.get(i) {
        Some(&Operand::IdRef(id)) => id,
        _ => 0,
    };
    match inst.class.opcode {
        Op::TypeBool => "bool".into(),
        Op::TypeFloat => format!("f{}", literal(0)),
        Op::TypeInt if literal(1) == 1 => format!("i{}", literal(0)),
        Op::TypeInt => format!("u{}", literal(0)),
        Op::TypeVector => format!("vec{}<{}>", literal(1), spell_type(module, id_operand(0))),
        Op::TypeArray => {
            let length = module.types_global_values.iter().find(|c| c.result_id == Some(id_operand(1))).and_then(|c| {
                match c.operands.first() {
                    Some(&Operand::LiteralBit32(n)) => Some(n),
                    _ => None,
                }
            });
            format!("array<{}, {}>", spell_type(module, id_operand(0)), length.unwrap_or(0))
        }
        other => format!("Op{other:?}"),
    }
}

/// The storage class and pointee type of a global variable.
fn variable(module: &dr::Module, id: Word) -> Option<(StorageClass, Word)> {
    let inst = module.types_global_values.iter().find(|inst| inst.result_id == Some(id))?;
    let Some(&Operand::StorageClass(class)) = inst.operands.first() else {
        return None;
    };
    let pointer = module.types_global_values.iter().find(|p| p.result_id == inst.result_type)?;
    match pointer.operands.get(1) {
        Some(&Operand::IdRef(pointee)) => Some((class, pointee)),
        _ => None,
    }
}

/// `Location(0)`, `BuiltIn(SampleMask)`, `Flat`: a decoration with its operands.
fn spell_decoration(inst: &dr::Instruction) -> String {
    let mut operands = inst.operands.iter().skip(1);
    let name = match operands.next() {
        Some(Operand::Decoration(decoration)) => format!("{decoration:?}"),
        other => format!("{other:?}"),
    };
    let arguments: Vec<String> = operands
        .map(|operand| match operand {
            Operand::BuiltIn(builtin) => format!("{builtin:?}"),
            Operand::LiteralBit32(n) => n.to_string(),
            other => format!("{other:?}"),
        })
        .collect();
    if arguments.is_empty() { name } else { format!("{name}({})", arguments.join(", ")) }
}

struct EntryPoint {
    name: String,
    function: Word,
    interface: Vec<Word>,
}

fn entry_points(module: &dr::Module) -> Vec<EntryPoint> {
    module
        .entry_points
        .iter()
        .map(|inst| EntryPoint {
            name: match inst.operands.get(2) {
                Some(Operand::LiteralString(name)) => name.clone(),
                _ => String::new(),
            },
            function: match inst.operands.get(1) {
                Some(&Operand::IdRef(function)) => function,
                _ => 0,
            },
            interface: inst.operands.iter().skip(3).filter_map(Operand::id_ref_any).collect(),
        })
        .collect()
}

/// Each entry point's `Input`/`Output` variables, spelt like the fixtures' `interface` lines.
fn interface_lines(module: &dr::Module) -> BTreeMap<String, BTreeSet<String>> {
    let mut lines = BTreeMap::new();
    for entry in entry_points(module) {
        let set: &mut BTreeSet<String> = lines.entry(entry.name.clone()).or_default();
        for &id in &entry.interface {
            let Some((class @ (StorageClass::Input | StorageClass::Output), pointee)) = variable(module, id) else {
                continue;
            };
            let is_slot = |inst: &dr::Instruction| {
                matches!(
                    inst.operands.get(1),
                    Some(Operand::Decoration(
                        spirv::Decoration::BuiltIn | spirv::Decoration::Location | spirv::Decoration::Index
                    ))
                )
            };
            let (slot, others): (Vec<&dr::Instruction>, Vec<&dr::Instruction>) = module
                .annotations
                .iter()
                .filter(|inst| inst.class.opcode == Op::Decorate && inst.operands.first() == Some(&Operand::IdRef(id)))
                .partition(|inst| is_slot(inst));
            let slot = slot.into_iter().map(spell_decoration);
            let mut others: Vec<String> = others.into_iter().map(spell_decoration).collect();
            others.sort();
            let words: Vec<String> = [format!("{class:?}")]
                .into_iter()
                .chain(slot)
                .chain(others)
                .chain([spell_type(module, pointee)])
                .collect();
            set.insert(words.join(" "));
        }
    }
    lines
}

/// Problems with the rule that each return of an entry point follows a store to every output:
/// the store is in the returning block, to the variable or to an access chain into it.
fn unwritten_outputs(module: &dr::Module) -> Vec<String> {
    let mut problems = Vec::new();
    for entry in entry_points(module) {
        let outputs: Vec<Word> = entry
            .interface
            .iter()
            .copied()
            .filter(|&id| variable(module, id).is_some_and(|(class, _)| class == StorageClass::Output))
            .collect();
        let Some(function) = module.functions.iter().find(|f| f.def_id() == Some(entry.function)) else {
            problems.push(format!("{}: no function %{}", entry.name, entry.function));
            continue;
        };
        let chains: BTreeMap<Word, Word> = function
            .all_inst_iter()
            .filter(|inst| inst.class.opcode == Op::AccessChain)
            .filter_map(|inst| Some((inst.result_id?, inst.operands.first()?.id_ref_any()?)))
            .collect();
        for block in &function.blocks {
            if block.instructions.last().map(|inst| inst.class.opcode) != Some(Op::Return) {
                continue;
            }
            let stored: BTreeSet<Word> = block
                .instructions
                .iter()
                .filter(|inst| inst.class.opcode == Op::Store)
                .filter_map(|inst| inst.operands.first()?.id_ref_any())
                .map(|pointer| chains.get(&pointer).copied().unwrap_or(pointer))
                .collect();
            for output in &outputs {
                if !stored.contains(output) {
                    let label = block.label_id().unwrap_or_default();
                    problems.push(format!("{}: block %{label} returns without writing %{output}", entry.name));
                }
            }
        }
    }
    problems
}

// ---------------------------------------------------------------------------
// Round trip

/// An entry point's interface as naga sees it: stage, workgroup size, and each bound value with
/// its type, in a canonical order.
fn wgsl_interfaces(module: &naga::Module) -> BTreeMap<String, Vec<String>> {
    let mut interfaces = BTreeMap::new();
    for entry in &module.entry_points {
        let mut values = Vec::new();
        let mut add = |binding: Option<&naga::Binding>, ty: naga::Handle<naga::Type>, direction: &str| {
            let mut pending = vec![(binding.cloned(), ty)];
            if binding.is_none()
                && let naga::TypeInner::Struct { members, .. } = &module.types[ty].inner
            {
                pending = members.iter().map(|m| (m.binding.clone(), m.ty)).collect();
            }
            for (binding, ty) in pending {
                values.push(format!(
                    "{direction} {} {}",
                    spell_binding(binding, entry.stage, direction == "in"),
                    spell_naga_type(module, ty)
                ));
            }
        };
        for argument in &entry.function.arguments {
            add(argument.binding.as_ref(), argument.ty, "in");
        }
        if let Some(result) = &entry.function.result {
            add(result.binding.as_ref(), result.ty, "out");
        }
        values.sort();
        values.insert(0, format!("{:?} {:?}", entry.stage, entry.workgroup_size));
        interfaces.insert(entry.name.clone(), values);
    }
    interfaces
}

/// A binding, without what Vulkan cannot record: interpolation where nothing is interpolated
/// (vertex inputs, fragment outputs), the sampling of flat values (which WGSL lets be written
/// several ways), and invariance of an input.
fn spell_binding(binding: Option<naga::Binding>, stage: naga::ShaderStage, input: bool) -> String {
    let interpolated = match stage {
        naga::ShaderStage::Vertex => !input,
        naga::ShaderStage::Fragment => input,
        _ => false,
    };
    match binding {
        Some(naga::Binding::Location { location, interpolation, sampling, blend_src, .. }) => {
            let (interpolation, sampling) = match interpolation {
                _ if !interpolated => (None, None),
                Some(naga::Interpolation::Flat) => (interpolation, None),
                _ => (interpolation, sampling),
            };
            format!("location({location}) {interpolation:?} {sampling:?} blend_src {blend_src:?}")
        }
        Some(naga::Binding::BuiltIn(naga::BuiltIn::Position { .. })) if input => "position".into(),
        other => format!("{other:?}"),
    }
}

fn spell_naga_type(module: &naga::Module, ty: naga::Handle<naga::Type>) -> String {
    match &module.types[ty].inner {
        naga::TypeInner::Array { base, size, .. } => {
            format!("array<{}, {size:?}>", spell_naga_type(module, *base))
        }
        other => format!("{other:?}"),
    }
}

/// Translates the SPIR-V back to WGSL and checks it; `Err` describes what went wrong.
fn round_trip(fixture: &Fixture, compiled: &reverse::Compiled) -> Result<(), String> {
    let translation = spv2wgsl::translate(&compiled.to_bytes(), &spv2wgsl::Options::default());
    let wgsl = match (translation, &fixture.round_trip_fails) {
        (Ok(translation), None) => translation.wgsl,
        (Err(error), Some(expected)) if error.to_string().contains(expected.as_str()) => {
            return Ok(());
        }
        (Err(error), _) => return Err(format!("the translation back to WGSL fails: {error}")),
        (Ok(_), Some(expected)) => {
            return Err(format!(
                "the translation back to WGSL now succeeds (expected it to fail with `{expected}`): \
                 remove the `round-trip-fails` line"
            ));
        }
    };
    let (module, problems) = common::validate_wgsl(&wgsl, &fixture.name);
    if !problems.is_empty() {
        return Err(format!("{}\n--- WGSL:\n{wgsl}", problems.join("\n")));
    }
    let (original, _) = reverse::parse::parse(&fixture.source).map_err(|e| e.to_string())?;
    let mut before = wgsl_interfaces(&original);
    let after = module.map(|m| wgsl_interfaces(&m)).unwrap_or_default();
    if fixture.round_trip_loses_invariant {
        if before == after {
            return Err("the round trip now keeps @invariant: remove the `round-trip-loses` line".into());
        }
        for value in before.values_mut().flatten() {
            *value = value.replace("Position { invariant: true }", "Position { invariant: false }");
        }
    }
    if before != after {
        return Err(format!(
            "the entry points changed:\n  before: {before:#?}\n  after: {after:#?}\n--- WGSL:\n{wgsl}"
        ));
    }
    Ok(())
}

// ---------------------------------------------------------------------------
// Tests

#[test]
fn every_wgsl_fixture_lowers_to_valid_vulkan_spirv_with_the_stated_interface() {
    let fixtures = fixtures();
    let mut failures = Failures::new();
    let mut cases = 0;
    for fixture in &fixtures {
        for &(version, environment) in ENVIRONMENTS.iter().filter(|(v, _)| *v >= fixture.min_version) {
            cases += 1;
            let case = format!("{} (SPIR-V {}.{})", fixture.name, version.0, version.1);
            let compiled = match compile(&fixture.source, version) {
                Ok(compiled) => compiled,
                Err(error) => {
                    failures.add(&case, format!("does not compile: {error}"));
                    continue;
                }
            };
            let words = compiled.words();
            if compile(&fixture.source, version).map(|again| again.words()).ok() != Some(words.clone()) {
                failures.add(&case, "compiling twice gives different words");
            }
            if let Err(problem) = spirv_val(&words, environment, &case) {
                failures.add(&case, format!("{problem}\n--- SPIR-V:\n{}", compiled.disassemble()));
            }
            let module = load(&words);
            if module.header.as_ref().map(|h| h.version()) != Some(version) {
                failures.add(&case, "the header states another version");
            }
            let actual = interface_lines(&module);
            if actual != fixture.interface {
                failures.add(&case, format!("interface\n  expected: {:#?}\n  actual: {actual:#?}", fixture.interface));
            }
            for problem in unwritten_outputs(&module) {
                failures.add(&case, problem);
            }
        }
    }
    failures.finish(cases);
}

#[test]
fn every_wgsl_fixture_round_trips_through_the_forward_path() {
    let fixtures = fixtures();
    let mut failures = Failures::new();
    for fixture in &fixtures {
        let version = fixture.min_version.max(Options::default().spirv_version);
        match compile(&fixture.source, version) {
            Ok(compiled) => {
                if let Err(problem) = round_trip(fixture, &compiled) {
                    failures.add(&fixture.name, problem);
                }
            }
            Err(error) => failures.add(&fixture.name, format!("does not compile: {error}")),
        }
    }
    failures.finish(fixtures.len());
}

fn module_of(fixture: &str, options: &Options) -> dr::Module {
    let source = String::from_utf8(common::read_fixture(fixture)).expect("UTF-8");
    let compiled = reverse::compile(&source, options).unwrap_or_else(|e| panic!("{fixture}: {e}"));
    load(&compiled.words())
}

fn interface_of<'a>(module: &dr::Module, entries: &'a [EntryPoint], name: &str) -> (&'a EntryPoint, Vec<StorageClass>) {
    let entry = entries.iter().find(|e| e.name == name).unwrap_or_else(|| panic!("no entry point {name}"));
    let classes = entry.interface.iter().map(|&id| variable(module, id).expect("a global variable").0).collect();
    (entry, classes)
}

#[test]
fn from_spirv_1_4_the_interface_lists_every_used_global() {
    let buffer_users = |version| {
        let module =
            module_of("wgsl/multiple_entry_points.wgsl", &Options { spirv_version: version, ..Options::default() });
        let entries = entry_points(&module);
        ["vs_main", "fs_main", "cs_main"].map(|name| {
            let (_, classes) = interface_of(&module, &entries, name);
            classes.contains(&StorageClass::StorageBuffer)
        })
    };
    assert_eq!(buffer_users((1, 3)), [false; 3], "before 1.4 only Input and Output variables are listed");
    assert_eq!(buffer_users((1, 4)), [false, false, true], "from 1.4 the compute shader lists its buffer");
}

#[test]
fn the_sample_mask_is_read_and_written_through_element_zero() {
    let module = module_of("wgsl/sample_mask.wgsl", &Options::default());
    let entries = entry_points(&module);
    let (entry, _) = interface_of(&module, &entries, "main");
    let masks: Vec<Word> = entry
        .interface
        .iter()
        .copied()
        .filter(|&id| {
            module.annotations.iter().any(|inst| {
                inst.operands.first() == Some(&Operand::IdRef(id))
                    && inst.operands.get(2) == Some(&Operand::BuiltIn(spirv::BuiltIn::SampleMask))
            })
        })
        .collect();
    assert_eq!(masks.len(), 2, "one sample mask in, one out");
    let zero = |id: Word| {
        module.types_global_values.iter().any(|c| {
            c.result_id == Some(id) && c.class.opcode == Op::Constant && c.operands == [Operand::LiteralBit32(0)]
        })
    };
    let mut accesses = 0;
    for inst in module.functions.iter().flat_map(|f| f.all_inst_iter()) {
        let Some(&Operand::IdRef(base)) = inst.operands.first() else {
            continue;
        };
        if !masks.contains(&base) {
            continue;
        }
        assert_eq!(inst.class.opcode, Op::AccessChain, "the mask is only reached through an access chain");
        let index = inst.operands.get(1).and_then(Operand::id_ref_any).expect("an index");
        assert!(zero(index) && inst.operands.len() == 2, "the access chain picks element 0");
        accesses += 1;
    }
    assert_eq!(accesses, 2, "one read of the input, one write of the output");
}

#[test]
fn writing_frag_depth_sets_depth_replacing() {
    let depth_replacing = |fixture| {
        let module = module_of(fixture, &Options::default());
        module
            .execution_modes
            .iter()
            .any(|inst| inst.operands.get(1) == Some(&Operand::ExecutionMode(spirv::ExecutionMode::DepthReplacing)))
    };
    assert!(depth_replacing("wgsl/frag_depth.wgsl"));
    assert!(!depth_replacing("wgsl/sample_mask.wgsl"));
}

#[test]
fn debug_names_can_be_left_out() {
    let names = |debug_names| {
        let module = module_of("wgsl/fragment_struct_io.wgsl", &Options { debug_names, ..Options::default() });
        module.debug_names.len()
    };
    assert!(names(true) > 0, "names are written by default");
    assert_eq!(names(false), 0, "no OpName or OpMemberName without debug names");
}

#[test]
fn entry_point_option_keeps_one_entry_point() {
    let options = Options { entry_point: Some("fs_main".into()), ..Options::default() };
    let module = module_of("wgsl/multiple_entry_points.wgsl", &options);
    let names: Vec<String> = entry_points(&module).into_iter().map(|e| e.name).collect();
    assert_eq!(names, ["fs_main"]);
    let words: Vec<u32> = rspirv::binary::Assemble::assemble(&module);
    spirv_val(&words, "vulkan1.1", "entry_point_option").unwrap();
}

#[test]
fn nested_io_structs_are_a_wgsl_error_with_a_span() {
    let source = "struct Inner { @location(0) a: vec4f }\n\
                  struct Outer { inner: Inner, @builtin(position) p: vec4f }\n\
                  @vertex fn main() -> Outer { var o: Outer; return o; }\n";
    let error = reverse::compile(source, &Options::default()).expect_err("WGSL forbids nested I/O structs");
    assert_eq!(error.exit_code(), 1);
    let reverse::Error::Wgsl { line_column: Some((2, _)), .. } = error else {
        panic!("expected a WGSL error on line 2, got {error:?}");
    };
}

/// The declarations (`OpSpecConstant...`) decorated `SpecId`, by OpName: opcode and id.
fn spec_ids(module: &dr::Module) -> BTreeMap<String, (Op, u32)> {
    let name_of = |id: Word| {
        module.debug_names.iter().find_map(|inst| match inst.operands.as_slice() {
            [Operand::IdRef(target), Operand::LiteralString(name)] if *target == id => Some(name.clone()),
            _ => None,
        })
    };
    module
        .annotations
        .iter()
        .filter_map(|inst| match inst.operands.as_slice() {
            [Operand::IdRef(target), Operand::Decoration(spirv::Decoration::SpecId), Operand::LiteralBit32(id)] => {
                let declaration = module.types_global_values.iter().find(|d| d.result_id == Some(*target))?;
                Some((name_of(*target)?, (declaration.class.opcode, *id)))
            }
            _ => None,
        })
        .collect()
}

#[test]
fn overrides_become_specialization_constants_and_come_back_as_the_same_overrides() {
    let source = String::from_utf8(common::read_fixture("wgsl/overrides.wgsl")).expect("UTF-8");
    let compiled = reverse::compile(&source, &Options::default()).expect("compiles");
    let module = load(&compiled.words());
    // @id kept, the lowest free ids given in declaration order, computed ones not settable.
    let expected = [
        ("scale", Op::SpecConstant, 1234),
        ("enabled", Op::SpecConstantTrue, 7),
        ("disabled", Op::SpecConstantFalse, 0),
        ("width", Op::SpecConstant, 1),
        ("offset", Op::SpecConstant, 2),
        ("stride", Op::SpecConstant, 3),
    ];
    let expected: BTreeMap<String, (Op, u32)> =
        expected.iter().map(|&(name, op, id)| (name.to_string(), (op, id))).collect();
    assert_eq!(spec_ids(&module), expected);
    let reported: Vec<(Option<&str>, Option<u32>, bool)> =
        compiled.spec_constants.iter().map(|c| (c.name.as_deref(), c.spec_id, c.assigned)).collect();
    assert_eq!(
        reported,
        [
            (Some("scale"), Some(1234), false),
            (Some("enabled"), Some(7), false),
            (Some("disabled"), Some(0), true),
            (Some("width"), Some(1), true),
            (Some("offset"), Some(2), true),
            (Some("stride"), Some(3), true),
            (Some("cells"), None, false),
            (Some("signed_width"), None, false),
            (Some("chosen"), None, false),
            (Some("narrow"), None, false),
        ]
    );

    // Back to WGSL: the settable ones are the same overrides, with their ids and defaults (a
    // missing default comes back as zero).
    let back = spv2wgsl::translate(&compiled.to_bytes(), &spv2wgsl::Options::default()).expect("translates back");
    let (naga_module, problems) = common::validate_wgsl(&back.wgsl, "overrides round trip");
    assert!(problems.is_empty(), "{problems:?}\n{}", back.wgsl);
    let naga_module = naga_module.expect("parsed");
    let overrides: BTreeMap<String, (Option<u16>, String)> = naga_module
        .overrides
        .iter()
        .filter_map(|(_, o)| {
            let init = match naga_module.global_expressions[o.init?] {
                naga::Expression::Literal(literal) => format!("{literal:?}"),
                ref other => format!("{other:?}"),
            };
            Some((o.name.clone()?, (o.id, init)))
        })
        .collect();
    let settable = [
        ("scale", 1234, "F32(1.5)"),
        ("enabled", 7, "Bool(true)"),
        ("disabled", 0, "Bool(false)"),
        ("width", 1, "U32(4)"),
        ("offset", 2, "I32(-3)"),
        ("stride", 3, "F16(0.25)"),
    ];
    for (name, id, init) in settable {
        assert_eq!(overrides.get(name), Some(&(Some(id), init.to_string())), "{name} in\n{}", back.wgsl);
    }
    assert!(back.wgsl.contains("@workgroup_size(width, 2"), "{}", back.wgsl);
}

/// Whether the module sets its workgroup size through the `WorkgroupSize` builtin, and through
/// `LocalSizeId`.
fn workgroup_size_kinds(source: &str, version: (u8, u8)) -> (bool, bool) {
    let compiled =
        reverse::compile(source, &Options { spirv_version: version, ..Options::default() }).expect("compiles");
    let module = load(&compiled.words());
    let builtin = module
        .annotations
        .iter()
        .any(|inst| inst.operands.get(2) == Some(&Operand::BuiltIn(spirv::BuiltIn::WorkgroupSize)));
    let local_size_id = module
        .execution_modes
        .iter()
        .any(|inst| inst.operands.get(1) == Some(&Operand::ExecutionMode(spirv::ExecutionMode::LocalSizeId)));
    (builtin, local_size_id)
}

#[test]
fn a_workgroup_size_from_overrides_is_local_size_id_from_1_6_and_the_builtin_before() {
    let source = "override size = 8u;\n\
                  @group(0) @binding(0) var<storage, read_write> out: array<u32>;\n\
                  @compute @workgroup_size(size, size / 2u) fn main(@builtin(local_invocation_index) i: u32) { out[i] = i; }\n";
    assert_eq!(workgroup_size_kinds(source, (1, 0)), (true, false));
    assert_eq!(workgroup_size_kinds(source, (1, 5)), (true, false));
    assert_eq!(workgroup_size_kinds(source, (1, 6)), (false, true));

    // The builtin is the module's: every compute entry point must share it.
    let two = format!("{source}@compute @workgroup_size(4) fn other() {{ out[0] = 1u; }}\n");
    let error = reverse::compile(&two, &Options::default()).expect_err("two sizes, one builtin");
    assert!(error.to_string().contains("WorkgroupSize builtin"), "{error}");
    assert_eq!(workgroup_size_kinds(&two, (1, 6)), (false, true));
    // Either entry point alone is fine.
    for (name, builtin) in [("main", true), ("other", false)] {
        let options = Options { entry_point: Some(name.into()), ..Options::default() };
        let compiled = reverse::compile(&two, &options).unwrap_or_else(|e| panic!("{name}: {e}"));
        let uses_builtin = compiled
            .module
            .annotations
            .iter()
            .any(|inst| inst.operands.get(2) == Some(&Operand::BuiltIn(spirv::BuiltIn::WorkgroupSize)));
        assert_eq!(uses_builtin, builtin, "{name}");
        spirv_val(&compiled.words(), "vulkan1.1", name).unwrap();
    }
}

#[test]
fn overrides_computed_with_operations_specialization_constants_lack_are_refused() {
    let float = "override scale: f32 = 2.0;\noverride doubled = scale * 2.0;\n\
                 @group(0) @binding(0) var<storage, read_write> out: f32;\n\
                 @compute @workgroup_size(1) fn main() { out = doubled; }\n";
    let error = reverse::compile(float, &Options::default()).expect_err("OpFMul is for kernels");
    assert_eq!(error.exit_code(), 1);
    assert!(error.to_string().contains("override `doubled`: Multiply on Float"), "{error}");

    let with_id = "override base: u32 = 2u;\n@id(3) override next = base + 1u;\n\
                   @group(0) @binding(0) var<storage, read_write> out: u32;\n\
                   @compute @workgroup_size(1) fn main() { out = next; }\n";
    let error = reverse::compile(with_id, &Options::default()).expect_err("settable or computed");
    assert!(error.to_string().contains("override `next` has @id(3)"), "{error}");
}

/// The module-scope `StorageTexelFormat` records: (image type, format) pairs.
fn recorded_texel_formats(words: &[u32]) -> Vec<(Word, String)> {
    let mut records = Vec::new();
    let mut strings = BTreeMap::new();
    let mut at = 5;
    while at < words.len() {
        let count = (words[at] >> 16) as usize;
        let instruction = &words[at..at + count];
        match instruction[0] & 0xFFFF {
            op if op == Op::Function as u32 => break,
            op if op == Op::String as u32 => {
                let bytes: Vec<u8> = instruction[2..].iter().flat_map(|w| w.to_le_bytes()).collect();
                let text = bytes.split(|&b| b == 0).next().unwrap_or_default();
                strings.insert(instruction[1], String::from_utf8_lossy(text).into_owned());
            }
            op if op == Op::ExtInst as u32 => records.push((instruction[5], instruction[6])),
            _ => {}
        }
        at += count;
    }
    records.into_iter().map(|(image, name)| (image, strings.get(&name).cloned().unwrap_or_default())).collect()
}

#[test]
fn bgra8unorm_storage_textures_are_recorded_and_come_back() {
    for version in [(1, 3), (1, 6)] {
        let source = String::from_utf8(common::read_fixture("wgsl/bgra8unorm_storage.wgsl")).expect("UTF-8");
        let options = Options { spirv_version: version, ..Options::default() };
        let words = reverse::compile(&source, &options).expect("compiles").words();
        let module = load(&words);
        let records = recorded_texel_formats(&words);
        assert_eq!(records.len(), 2, "one record per image type (2D, 2D array): {records:?}");
        for (image, format) in &records {
            assert_eq!(format, "bgra8unorm");
            let image = module.types_global_values.iter().find(|inst| inst.result_id == Some(*image)).expect("a type");
            assert_eq!(image.operands.get(6), Some(&Operand::ImageFormat(spirv::ImageFormat::Unknown)));
        }
        let capabilities: Vec<&Operand> = module.capabilities.iter().map(|inst| &inst.operands[0]).collect();
        for needed in
            [spirv::Capability::StorageImageReadWithoutFormat, spirv::Capability::StorageImageWriteWithoutFormat]
        {
            assert!(capabilities.contains(&&Operand::Capability(needed)), "{needed:?} in {capabilities:?}");
        }
        let back =
            spv2wgsl::translate(&words.iter().flat_map(|w| w.to_le_bytes()).collect::<Vec<u8>>(), &Default::default())
                .expect("translates back");
        assert!(back.wgsl.contains("texture_storage_2d<bgra8unorm, read>"), "{}", back.wgsl);
        assert!(back.wgsl.contains("texture_storage_2d_array<bgra8unorm, write>"), "{}", back.wgsl);
    }
}
