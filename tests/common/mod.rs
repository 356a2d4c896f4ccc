//! Helpers shared by the integration tests: locating fixtures, temporary
//! directories, checking WGSL with naga (in-process) and Tint (when it is on
//! the PATH), reading the facts a SPIR-V module states about itself (entry
//! points, workgroup sizes, resource bindings), and collecting failures so a
//! test over many fixtures reports all of them at once.
//!
//! Each test binary (`tests/*.rs`) includes this with `mod common;` and uses
//! only part of it, hence the `dead_code` allowance.
#![allow(dead_code)]

use std::any::Any;
use std::collections::BTreeSet;
use std::fmt::Display;
use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::sync::OnceLock;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

// ---------------------------------------------------------------------------
// Fixtures

/// The repository root (the crate's manifest directory).
pub fn repo_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// `fixtures/` in the repository.
pub fn fixtures_dir() -> PathBuf {
    repo_root().join("fixtures")
}

/// The absolute path of a fixture given relative to `fixtures/`, e.g.
/// `fixture("invalid/truncated.spv")`.
pub fn fixture(relative: &str) -> PathBuf {
    fixtures_dir().join(relative)
}

/// Reads a fixture given relative to `fixtures/`; panics with the path if it
/// cannot be read.
pub fn read_fixture(relative: &str) -> Vec<u8> {
    let path = fixture(relative);
    std::fs::read(&path).unwrap_or_else(|e| panic!("cannot read fixture {}: {e}", path.display()))
}

/// Every file under `fixtures/<dir>` (searched recursively) for each of
/// `dirs` whose name ends with one of `suffixes`, as `/`-separated paths
/// relative to `fixtures/` (e.g. `glsl/foo.comp.spv`), sorted.
pub fn fixture_files(dirs: &[&str], suffixes: &[&str]) -> Vec<String> {
    let root = fixtures_dir();
    let mut found = Vec::new();
    for dir in dirs {
        let start = root.join(dir);
        assert!(start.is_dir(), "fixture directory {} is missing", start.display());
        walk(&start, &mut |path| {
            let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
            if suffixes.iter().any(|s| name.ends_with(s)) {
                let relative = path.strip_prefix(&root).expect("walked path lies under fixtures/");
                let parts: Vec<String> =
                    relative.components().map(|c| c.as_os_str().to_string_lossy().into_owned()).collect();
                found.push(parts.join("/"));
            }
        });
    }
    found.sort();
    found
}

fn walk(dir: &Path, visit: &mut dyn FnMut(&Path)) {
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("cannot list {}: {e}", dir.display()))
        .map(|entry| entry.expect("directory entry").path())
        .collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            walk(&path, visit);
        } else {
            visit(&path);
        }
    }
}

// ---------------------------------------------------------------------------
// Temporary directories

/// A fresh directory under the system temporary directory, removed (with its
/// contents) when dropped.
pub struct TempDir {
    path: PathBuf,
}

/// `text` with everything but ASCII letters, digits, `-` and `_` replaced by `_`, for file names.
fn file_safe(text: &str) -> String {
    text.chars().map(|c| if c.is_ascii_alphanumeric() || c == '-' || c == '_' { c } else { '_' }).collect()
}

impl TempDir {
    /// Creates a new, empty, uniquely named directory; `label` only makes the
    /// name easier to recognise.
    pub fn new(label: &str) -> TempDir {
        static COUNTER: AtomicUsize = AtomicUsize::new(0);
        let label = file_safe(label);
        let nanos = SystemTime::now().duration_since(UNIX_EPOCH).map(|d| d.subsec_nanos()).unwrap_or(0);
        loop {
            let n = COUNTER.fetch_add(1, Ordering::Relaxed);
            let path =
                std::env::temp_dir().join(format!("spv2wgsl-test-{label}-{}-{n}-{nanos:09}", std::process::id()));
            match std::fs::create_dir(&path) {
                Ok(()) => return TempDir { path },
                Err(e) if e.kind() == io::ErrorKind::AlreadyExists => continue,
                Err(e) => panic!("cannot create temporary directory {}: {e}", path.display()),
            }
        }
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    pub fn join(&self, name: &str) -> PathBuf {
        self.path.join(name)
    }

    /// The names of the entries in the directory, sorted.
    pub fn entries(&self) -> Vec<String> {
        let mut names: Vec<String> = std::fs::read_dir(&self.path)
            .unwrap_or_else(|e| panic!("cannot list {}: {e}", self.path.display()))
            .map(|entry| entry.expect("directory entry").file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        names
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.path);
    }
}

// ---------------------------------------------------------------------------
// WGSL validation

/// The capabilities a WebGPU implementation may offer: naga's defaults and
/// `SHADER_FLOAT16_IN_FLOAT32` (naga gates `pack2x16float`,
/// `unpack2x16float` and `quantizeToF16` behind it, but they are core WGSL),
/// plus the optional features WGSL can `enable` (`f16`,
/// `dual_source_blending`, `clip_distances`, `subgroups`, `primitive_index`) and the WebGPU
/// features naga has as capabilities (cube-array textures, multisampled shading, the 16-bit
/// normalized storage formats of texture-formats-tier1). A shader
/// still has to `enable` an extension to use it.
pub fn webgpu_capabilities() -> naga::valid::Capabilities {
    use naga::valid::Capabilities as C;
    C::default()
        | C::SHADER_FLOAT16_IN_FLOAT32
        | C::SHADER_FLOAT16
        | C::DUAL_SOURCE_BLENDING
        | C::CLIP_DISTANCES
        | C::SUBGROUP
        | C::PRIMITIVE_INDEX
        | C::CUBE_ARRAY_TEXTURES
        | C::MULTISAMPLED_SHADING
        | C::STORAGE_TEXTURE_16BIT_NORM_FORMATS
        // naga's own type for frexp's exponent of f16 values (i16; WGSL says i32).
        | C::SHADER_INT16
}

/// Parses and validates WGSL with naga (all validation flags, WebGPU
/// capabilities). The error is a readable report with the source listing.
///
/// naga has the subgroup builtins but not yet the `subgroups` enable-extension
/// WGSL requires for them (gfx-rs/wgpu issue 5555), so that line is dropped
/// before naga reads the text; Tint checks it is there.
pub fn naga_validate(wgsl: &str) -> Result<naga::Module, String> {
    // naga 30 implements subgroups but cannot parse their `enable`, which
    // WGSL and Tint require (gfx-rs/wgpu issue 5555): blank it out for naga.
    const SUBGROUPS: &str = "enable subgroups;";
    let wgsl = &wgsl.replacen(SUBGROUPS, &" ".repeat(SUBGROUPS.len()), 1);
    let module = naga::front::wgsl::parse_str(wgsl)
        .map_err(|e| format!("naga cannot parse the WGSL:\n{}", e.emit_to_string(wgsl)))?;
    let mut validator = naga::valid::Validator::new(naga::valid::ValidationFlags::all(), webgpu_capabilities());
    validator
        .subgroup_stages(naga::valid::ShaderStages::all())
        .subgroup_operations(naga::valid::SubgroupOperationSet::all());
    validator.validate(&module).map_err(|e| format!("naga rejects the WGSL:\n{}", e.emit_to_string(wgsl)))?;
    Ok(module)
}

/// Where the `tint` executable is: `$SPV2WGSL_TINT` if set, else the first
/// `tint` on the PATH, else `None`. Looked up once.
pub fn tint_path() -> Option<&'static Path> {
    static TINT: OnceLock<Option<PathBuf>> = OnceLock::new();
    TINT.get_or_init(|| {
        if let Some(explicit) = std::env::var_os("SPV2WGSL_TINT") {
            return Some(PathBuf::from(explicit));
        }
        find_on_path("tint")
    })
    .as_deref()
}

/// The first executable file named `name` in a directory of the PATH.
pub fn find_on_path(name: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path).map(|dir| dir.join(name)).find(|candidate| is_executable(candidate))
}

fn is_executable(path: &Path) -> bool {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::metadata(path).map(|m| m.is_file() && m.permissions().mode() & 0o111 != 0).unwrap_or(false)
    }
    #[cfg(not(unix))]
    {
        path.is_file()
    }
}

/// What Tint made of a WGSL module.
pub enum TintOutcome {
    /// `tint FILE --format wgsl` exited 0.
    Accepted,
    /// Tint is not installed (and `SPV2WGSL_REQUIRE_TINT` is not set).
    Unavailable,
}

/// Runs `tint FILE --format wgsl` on the WGSL (written to a temporary file
/// named after `label`). `Err` carries Tint's exit status and output. Without
/// Tint this is `Ok(Unavailable)`, unless `SPV2WGSL_REQUIRE_TINT` is set, in
/// which case it is an error.
pub fn tint_validate(wgsl: &str, label: &str) -> Result<TintOutcome, String> {
    let Some(tint) = tint_path() else {
        if std::env::var_os("SPV2WGSL_REQUIRE_TINT").is_some() {
            return Err("SPV2WGSL_REQUIRE_TINT is set but tint is not on the PATH".to_string());
        }
        return Ok(TintOutcome::Unavailable);
    };
    let dir = TempDir::new("tint");
    let file_name = file_safe(label);
    let file = dir.join(&format!("{file_name}.wgsl"));
    std::fs::write(&file, wgsl).map_err(|e| format!("cannot write {}: {e}", file.display()))?;
    let mut command = Command::new(tint);
    command.arg(&file).arg("--format").arg("wgsl");
    let output = run_with_timeout(command, None, Duration::from_secs(120))
        .map_err(|e| format!("cannot run {}: {e}", tint.display()))?;
    if output.status.success() {
        Ok(TintOutcome::Accepted)
    } else {
        Err(format!(
            "tint rejects the WGSL ({}):\n{}{}",
            output.status,
            String::from_utf8_lossy(&output.stderr),
            String::from_utf8_lossy(&output.stdout)
        ))
    }
}

/// naga, then Tint where available. Returns every problem found (empty when
/// the WGSL is accepted), and naga's module when naga accepted it.
pub fn validate_wgsl(wgsl: &str, label: &str) -> (Option<naga::Module>, Vec<String>) {
    let mut problems = Vec::new();
    let module = match naga_validate(wgsl) {
        Ok(module) => Some(module),
        Err(e) => {
            problems.push(e);
            None
        }
    };
    if let Err(e) = tint_validate(wgsl, label) {
        problems.push(e);
    }
    (module, problems)
}

// ---------------------------------------------------------------------------
// Processes

/// Runs a command, feeding `stdin` (or nothing) to it and capturing its
/// output; kills it and fails after `timeout`.
pub fn run_with_timeout(mut command: Command, stdin: Option<&[u8]>, timeout: Duration) -> io::Result<Output> {
    command.stdin(if stdin.is_some() { Stdio::piped() } else { Stdio::null() });
    command.stdout(Stdio::piped()).stderr(Stdio::piped());
    let mut child = command.spawn()?;

    let writer = match (child.stdin.take(), stdin) {
        (Some(mut pipe), Some(bytes)) => {
            let bytes = bytes.to_vec();
            // The child may exit without reading everything: ignore broken pipes.
            Some(std::thread::spawn(move || {
                let _ = pipe.write_all(&bytes);
            }))
        }
        _ => None,
    };
    let mut stdout_pipe = child.stdout.take().expect("piped stdout");
    let mut stderr_pipe = child.stderr.take().expect("piped stderr");
    let stdout_reader = std::thread::spawn(move || {
        let mut buffer = Vec::new();
        let _ = stdout_pipe.read_to_end(&mut buffer);
        buffer
    });
    let stderr_reader = std::thread::spawn(move || {
        let mut buffer = Vec::new();
        let _ = stderr_pipe.read_to_end(&mut buffer);
        buffer
    });

    let deadline = Instant::now() + timeout;
    let status = loop {
        if let Some(status) = child.try_wait()? {
            break status;
        }
        if Instant::now() >= deadline {
            let _ = child.kill();
            let _ = child.wait();
            return Err(io::Error::new(io::ErrorKind::TimedOut, format!("still running after {timeout:?}")));
        }
        std::thread::sleep(Duration::from_millis(10));
    };
    if let Some(writer) = writer {
        let _ = writer.join();
    }
    let stdout = stdout_reader.join().unwrap_or_default();
    let stderr = stderr_reader.join().unwrap_or_default();
    Ok(Output { status, stdout, stderr })
}

// ---------------------------------------------------------------------------
// Facts stated by a SPIR-V module

/// What a SPIR-V module (binary or assembly) says about its interface, read
/// independently of the library so the tests can compare its output with it.
#[derive(Debug, Default)]
pub struct SpirvFacts {
    pub entry_points: Vec<EntryPointFact>,
    /// `(DescriptorSet, Binding)` of every id decorated with both.
    pub bindings: BTreeSet<(u32, u32)>,
    /// Whether some id is decorated `BuiltIn WorkgroupSize` (which overrides
    /// `LocalSize`).
    pub has_workgroup_size_builtin: bool,
}

#[derive(Debug)]
pub struct EntryPointFact {
    pub name: String,
    /// `None` for an execution model WGSL has no stage for.
    pub stage: Option<naga::ShaderStage>,
    pub local_size: Option<[u32; 3]>,
}

const MAGIC: u32 = 0x0723_0203;
const OP_ENTRY_POINT: u32 = 15;
const OP_EXECUTION_MODE: u32 = 16;
const OP_DECORATE: u32 = 71;
const EXECUTION_MODE_LOCAL_SIZE: u32 = 17;
const DECORATION_BUILTIN: u32 = 11;
const DECORATION_BINDING: u32 = 33;
const DECORATION_DESCRIPTOR_SET: u32 = 34;
const BUILTIN_WORKGROUP_SIZE: u32 = 25;

fn stage_of_model(model: u32) -> Option<naga::ShaderStage> {
    match model {
        0 => Some(naga::ShaderStage::Vertex),
        4 => Some(naga::ShaderStage::Fragment),
        5 => Some(naga::ShaderStage::Compute),
        _ => None,
    }
}

fn stage_of_model_name(model: &str) -> Option<naga::ShaderStage> {
    match model {
        "Vertex" => Some(naga::ShaderStage::Vertex),
        "Fragment" => Some(naga::ShaderStage::Fragment),
        "GLCompute" => Some(naga::ShaderStage::Compute),
        _ => None,
    }
}

/// Reads the facts from a binary (either byte order) or, when the bytes do not
/// start with the SPIR-V magic number, from assembly text. `None` when the
/// input is neither.
pub fn spirv_facts(bytes: &[u8]) -> Option<SpirvFacts> {
    if bytes.len() >= 4 {
        let first = [bytes[0], bytes[1], bytes[2], bytes[3]];
        if u32::from_le_bytes(first) == MAGIC {
            return binary_facts(bytes, u32::from_le_bytes);
        }
        if u32::from_be_bytes(first) == MAGIC {
            return binary_facts(bytes, u32::from_be_bytes);
        }
    }
    std::str::from_utf8(bytes).ok().map(assembly_facts)
}

#[derive(Default)]
struct FactsBuilder {
    entry_points: Vec<(u32, String, Option<naga::ShaderStage>)>,
    local_sizes: Vec<(u32, [u32; 3])>,
    sets: Vec<(u32, u32)>,
    bindings: Vec<(u32, u32)>,
    has_workgroup_size_builtin: bool,
}

impl FactsBuilder {
    fn finish(self) -> SpirvFacts {
        let entry_points = self
            .entry_points
            .into_iter()
            .map(|(id, name, stage)| EntryPointFact {
                name,
                stage,
                local_size: self.local_sizes.iter().find(|(target, _)| *target == id).map(|(_, size)| *size),
            })
            .collect();
        let bindings = self
            .sets
            .iter()
            .filter_map(|(id, set)| {
                self.bindings.iter().find(|(target, _)| target == id).map(|(_, binding)| (*set, *binding))
            })
            .collect();
        SpirvFacts { entry_points, bindings, has_workgroup_size_builtin: self.has_workgroup_size_builtin }
    }
}

fn binary_facts(bytes: &[u8], word_of: fn([u8; 4]) -> u32) -> Option<SpirvFacts> {
    if !bytes.len().is_multiple_of(4) || bytes.len() < 20 {
        return None;
    }
    let words: Vec<u32> = bytes.chunks_exact(4).map(|c| word_of([c[0], c[1], c[2], c[3]])).collect();
    let mut facts = FactsBuilder::default();
    let mut at = 5;
    while at < words.len() {
        let count = (words[at] >> 16) as usize;
        let opcode = words[at] & 0xFFFF;
        if count == 0 || at + count > words.len() {
            return None;
        }
        let operands = &words[at + 1..at + count];
        match opcode {
            OP_ENTRY_POINT if operands.len() >= 3 => {
                facts.entry_points.push((operands[1], literal_string(&operands[2..]), stage_of_model(operands[0])));
            }
            OP_EXECUTION_MODE if operands.len() >= 5 && operands[1] == EXECUTION_MODE_LOCAL_SIZE => {
                facts.local_sizes.push((operands[0], [operands[2], operands[3], operands[4]]));
            }
            OP_DECORATE if operands.len() >= 3 => match operands[1] {
                DECORATION_DESCRIPTOR_SET => facts.sets.push((operands[0], operands[2])),
                DECORATION_BINDING => facts.bindings.push((operands[0], operands[2])),
                DECORATION_BUILTIN if operands[2] == BUILTIN_WORKGROUP_SIZE => facts.has_workgroup_size_builtin = true,
                _ => {}
            },
            _ => {}
        }
        at += count;
    }
    Some(facts.finish())
}

/// A SPIR-V literal string: bytes packed low-order first into each word,
/// ending at the first NUL.
fn literal_string(words: &[u32]) -> String {
    let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).take_while(|&b| b != 0).collect();
    String::from_utf8_lossy(&bytes).into_owned()
}

fn assembly_facts(text: &str) -> SpirvFacts {
    let mut facts = FactsBuilder::default();
    let mut ids: Vec<String> = Vec::new();
    let mut id_of = |name: &str| -> u32 {
        match ids.iter().position(|known| known == name) {
            Some(index) => index as u32,
            None => {
                ids.push(name.to_string());
                (ids.len() - 1) as u32
            }
        }
    };
    for line in text.lines() {
        let tokens = assembly_tokens(line);
        let tokens: Vec<&str> = tokens.iter().map(String::as_str).collect();
        // Instructions with a result id are written `%id = OpName ...`.
        let tokens = match tokens.as_slice() {
            [_, "=", rest @ ..] => rest,
            all => all,
        };
        match tokens {
            ["OpEntryPoint", model, id, name, ..] => {
                let name = name.trim_matches('"').to_string();
                facts.entry_points.push((id_of(id), name, stage_of_model_name(model)));
            }
            ["OpExecutionMode", id, "LocalSize", x, y, z, ..] => {
                if let (Some(x), Some(y), Some(z)) = (parse_literal(x), parse_literal(y), parse_literal(z)) {
                    facts.local_sizes.push((id_of(id), [x, y, z]));
                }
            }
            ["OpDecorate", id, "DescriptorSet", value, ..] => {
                if let Some(value) = parse_literal(value) {
                    facts.sets.push((id_of(id), value));
                }
            }
            ["OpDecorate", id, "Binding", value, ..] => {
                if let Some(value) = parse_literal(value) {
                    facts.bindings.push((id_of(id), value));
                }
            }
            ["OpDecorate", _, "BuiltIn", "WorkgroupSize", ..] => facts.has_workgroup_size_builtin = true,
            _ => {}
        }
    }
    facts.finish()
}

/// Splits a line of assembly into tokens, keeping quoted strings whole and
/// dropping a `;` comment.
fn assembly_tokens(line: &str) -> Vec<String> {
    let mut tokens = Vec::new();
    let mut current = String::new();
    let mut in_string = false;
    let mut chars = line.chars();
    while let Some(c) = chars.next() {
        if in_string {
            current.push(c);
            if c == '\\' {
                if let Some(escaped) = chars.next() {
                    current.push(escaped);
                }
            } else if c == '"' {
                in_string = false;
            }
        } else if c == '"' {
            in_string = true;
            current.push(c);
        } else if c == ';' {
            break;
        } else if c.is_whitespace() {
            if !current.is_empty() {
                tokens.push(std::mem::take(&mut current));
            }
        } else {
            current.push(c);
        }
    }
    if !current.is_empty() {
        tokens.push(current);
    }
    tokens
}

fn parse_literal(token: &str) -> Option<u32> {
    match token.strip_prefix("0x").or_else(|| token.strip_prefix("0X")) {
        Some(hex) => u32::from_str_radix(hex, 16).ok(),
        None => token.parse().ok(),
    }
}

/// Compares naga's view of translated WGSL with what the SPIR-V module states:
/// the same entry points (names, stages, compute workgroup sizes) and the same
/// `(group, binding)` pairs. Returns the differences.
pub fn compare_interface(facts: &SpirvFacts, module: &naga::Module) -> Vec<String> {
    let mut problems = Vec::new();
    let expected: Vec<&EntryPointFact> = facts.entry_points.iter().filter(|e| e.stage.is_some()).collect();
    if expected.len() != module.entry_points.len() {
        problems.push(format!(
            "the SPIR-V has {} entry point(s) ({}), the WGSL has {} ({})",
            expected.len(),
            expected.iter().map(|e| e.name.as_str()).collect::<Vec<_>>().join(", "),
            module.entry_points.len(),
            module.entry_points.iter().map(|e| e.name.as_str()).collect::<Vec<_>>().join(", ")
        ));
    }
    for fact in expected {
        // A name WGSL reserves or cannot spell is sanitised, as the README says.
        let name = spv2wgsl::wgsl::names::sanitize(&fact.name);
        let Some(entry) = module.entry_points.iter().find(|e| e.name == name) else {
            problems.push(format!("the WGSL has no entry point named `{name}`"));
            continue;
        };
        if Some(entry.stage) != fact.stage {
            problems.push(format!(
                "entry point `{}` is {:?} in the WGSL but {:?} in the SPIR-V",
                fact.name, entry.stage, fact.stage
            ));
        }
        if let (Some(size), false) = (fact.local_size, facts.has_workgroup_size_builtin)
            && entry.workgroup_size != size
        {
            problems.push(format!(
                "entry point `{}` has workgroup size {:?} in the WGSL but {:?} in the SPIR-V",
                fact.name, entry.workgroup_size, size
            ));
        }
    }
    let wgsl_bindings: BTreeSet<(u32, u32)> = module
        .global_variables
        .iter()
        .filter_map(|(_, global)| global.binding.as_ref().map(|b| (b.group, b.binding)))
        .collect();
    if wgsl_bindings != facts.bindings {
        problems.push(format!(
            "resource bindings (group, binding) differ: SPIR-V {:?}, WGSL {:?}",
            facts.bindings, wgsl_bindings
        ));
    }
    problems
}

// ---------------------------------------------------------------------------
// Collecting failures

/// Failures gathered over many cases (fixtures), reported together at the end.
#[derive(Default)]
pub struct Failures {
    entries: Vec<(String, String)>,
}

impl Failures {
    pub fn new() -> Failures {
        Failures::default()
    }

    /// Records that `case` failed, with what went wrong.
    pub fn add(&mut self, case: &str, what: impl Display) {
        self.entries.push((case.to_string(), what.to_string()));
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Panics listing every failure, grouped by case, if there was any.
    /// `total` is the number of cases checked, for the summary line.
    pub fn finish(self, total: usize) {
        if self.entries.is_empty() {
            return;
        }
        let mut cases: Vec<&str> = Vec::new();
        for (case, _) in &self.entries {
            if !cases.contains(&case.as_str()) {
                cases.push(case);
            }
        }
        let mut report = format!("{} of {total} cases failed: {}\n", cases.len(), cases.join(", "));
        for case in &cases {
            report.push_str(&format!("\n---- {case}\n"));
            for (_, what) in self.entries.iter().filter(|(c, _)| c == case) {
                report.push_str(what.trim_end());
                report.push('\n');
            }
        }
        panic!("{report}");
    }
}

/// The message of a caught panic.
pub fn panic_message(payload: &(dyn Any + Send)) -> String {
    if let Some(message) = payload.downcast_ref::<&str>() {
        (*message).to_string()
    } else if let Some(message) = payload.downcast_ref::<String>() {
        message.clone()
    } else {
        "(panic with a non-string payload)".to_string()
    }
}
