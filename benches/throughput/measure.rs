//! Running one tool on one input in a child process, and what that cost: time and peak memory.
//!
//! Every measurement runs in a child that is this benchmark binary again (`--child ...`), small
//! and fresh. A library tool runs inside it: the child times the translation alone (repeated
//! while short, the median kept) and reports its own peak resident set (`VmHWM`). A command-line
//! tool is run by the child as its own child and measured whole, start-up and file I/O
//! included, from `wait4`: its peak then includes the few megabytes of the process it was started
//! from (Linux counts the parent's resident set at `exec`), which the benchmark prints as the idle
//! figure. The parent, holding every input's name and the generated modules, never starts a
//! measured process itself, so its size never leaks into a figure.
//!
//! Time is CPU time (user + system) unless `--wall` is given. The tools are single-threaded but
//! for ours with validation on a module of many functions, which builds and validates naga's IR
//! of them on a second thread while it lowers (`Options::second_thread`): there CPU time
//! counts both threads' work and `--wall` what a user waits for. Elsewhere the two agree on an idle machine, and on a
//! shared one CPU time still measures the work.

use std::fs::File;
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

/// What one tool is, and how it runs.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Tool {
    /// `spv2wgsl::translate`, validating the WGSL (the default).
    Ours,
    /// `spv2wgsl::translate` with `validate: false`.
    OursNoValidate,
    /// naga: `front::spv` + `valid::Validator` + `back::wgsl`.
    Naga,
    /// rspirv's parser alone, `rspirv::binary::parse_words` with a consumer that drops each
    /// instruction (the words read from the bytes first, as every tool does): the floor of any
    /// translator that parses through rspirv.
    Floor,
    /// The `spv2wgsl` executable: `spv2wgsl IN -o OUT`.
    OursCli,
    /// The `naga` executable: `naga IN OUT`.
    NagaCli,
}

pub const TOOLS: [Tool; 6] = [Tool::Ours, Tool::OursNoValidate, Tool::Naga, Tool::Floor, Tool::OursCli, Tool::NagaCli];

impl Tool {
    pub fn name(self) -> &'static str {
        match self {
            Tool::Ours => "spv2wgsl",
            Tool::OursNoValidate => "spv2wgsl-no-validate",
            Tool::Naga => "naga",
            Tool::Floor => "rspirv-parse",
            Tool::OursCli => "spv2wgsl-cli",
            Tool::NagaCli => "naga-cli",
        }
    }

    /// Runs the tool once on the file at `input` (read beforehand as `bytes`), writing any output
    /// into `scratch`.
    fn run(self, bytes: &[u8], input: &str, scratch: &Path) -> Result<Cost, String> {
        match self {
            Tool::Ours | Tool::OursNoValidate => {
                let options = spv2wgsl::Options {
                    validate: self == Tool::Ours,
                    // As the command, under the same allocator (`main.rs`).
                    second_thread: cfg!(feature = "mimalloc"),
                    ..Default::default()
                };
                timed(|| spv2wgsl::translate(bytes, &options).map(drop).map_err(|e| e.to_string()))
            }
            // As the naga CLI does for SPIR-V in and WGSL out.
            Tool::Naga => timed(|| {
                let module = naga::front::spv::parse_u8_slice(bytes, &Default::default()).map_err(|e| e.to_string())?;
                let flags = naga::valid::ValidationFlags::all();
                let info = naga::valid::Validator::new(flags, naga::valid::Capabilities::all())
                    .validate(&module)
                    .map_err(|e| format!("{:?}", e.into_inner()))?;
                naga::back::wgsl::write_string(&module, &info, naga::back::wgsl::WriterFlags::empty())
                    .map(drop)
                    .map_err(|e| e.to_string())
            }),
            Tool::Floor => timed(|| {
                let words = spv2wgsl::spirv::load::words_from_bytes(bytes).map_err(|e| e.to_string())?;
                rspirv::binary::parse_words(&words, &mut Nothing).map_err(|e| e.to_string())
            }),
            Tool::OursCli | Tool::NagaCli => {
                let program = if self == Tool::OursCli { env!("CARGO_BIN_EXE_spv2wgsl") } else { "naga" };
                let mut command = Command::new(program);
                command.arg(input);
                if self == Tool::OursCli {
                    command.arg("-o");
                }
                command.arg(scratch.join("out.wgsl"));
                run_process(command, scratch)
            }
        }
    }
}

/// A consumer of rspirv's parser that keeps nothing.
struct Nothing;

impl rspirv::binary::Consumer for Nothing {
    fn initialize(&mut self) -> rspirv::binary::ParseAction {
        rspirv::binary::ParseAction::Continue
    }
    fn finalize(&mut self) -> rspirv::binary::ParseAction {
        rspirv::binary::ParseAction::Continue
    }
    fn consume_header(&mut self, _: rspirv::dr::ModuleHeader) -> rspirv::binary::ParseAction {
        rspirv::binary::ParseAction::Continue
    }
    fn consume_instruction(&mut self, _: rspirv::dr::Instruction) -> rspirv::binary::ParseAction {
        rspirv::binary::ParseAction::Continue
    }
}

/// What a tool cost on an input.
#[derive(Clone, Copy)]
pub struct Cost {
    pub time: Duration,
    /// Peak resident set, bytes.
    pub peak: u64,
}

static WALL: AtomicBool = AtomicBool::new(false);

/// Times by the wall clock from now on, here and in the children.
pub fn use_wall_clock() {
    WALL.store(true, Ordering::Relaxed);
}

pub fn wall_clock() -> bool {
    WALL.load(Ordering::Relaxed)
}

/// CPU time this process has used so far.
fn cpu_time() -> Duration {
    let mut now = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: `clock_gettime` only writes the timespec it is given.
    unsafe { libc::clock_gettime(libc::CLOCK_PROCESS_CPUTIME_ID, &mut now) };
    Duration::new(now.tv_sec as u64, now.tv_nsec as u32)
}

/// Runs `work` in this process and times it by the clock in use; the peak is the process's.
fn timed(work: impl FnOnce() -> Result<(), String>) -> Result<Cost, String> {
    let (wall, cpu) = (Instant::now(), cpu_time());
    work()?;
    let time = if wall_clock() { wall.elapsed() } else { cpu_time().saturating_sub(cpu) };
    Ok(Cost { time, peak: own_peak() })
}

/// This process's peak resident set so far (`VmHWM`).
fn own_peak() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    let kilobytes = status
        .lines()
        .find_map(|line| line.strip_prefix("VmHWM:"))
        .and_then(|rest| rest.trim().trim_end_matches("kB").trim().parse::<u64>().ok());
    kilobytes.unwrap_or(0) * 1024
}

/// A short run is repeated until this much time has passed (at most `MAX_RUNS` runs).
const MIN_TOTAL: Duration = Duration::from_millis(20);
const MAX_RUNS: usize = 20;

/// The child side: `--child [--wall] TOOL FILE SCRATCH`, or `--child [--wall] idle`. Prints the
/// median time of the runs in nanoseconds and the peak resident set in bytes.
pub fn child(args: &[String]) -> ! {
    let outcome = (|| -> Result<Cost, String> {
        let args = match args {
            [first, rest @ ..] if first == "--wall" => {
                use_wall_clock();
                rest
            }
            _ => args,
        };
        if let [idle] = args
            && idle == "idle"
        {
            return Ok(Cost { time: Duration::ZERO, peak: own_peak() });
        }
        let [tool, input, scratch] = args else {
            return Err("usage: --child [--wall] TOOL FILE SCRATCH".into());
        };
        let tool = TOOLS.into_iter().find(|t| t.name() == tool).ok_or_else(|| format!("unknown tool {tool}"))?;
        // A command-line tool reads the file itself; held here, it would count in its peak.
        let bytes = match tool {
            Tool::OursCli | Tool::NagaCli => Vec::new(),
            _ => std::fs::read(input).map_err(|e| format!("{input}: {e}"))?,
        };
        let mut runs = Vec::new();
        let started = Instant::now();
        while runs.is_empty() || (started.elapsed() < MIN_TOTAL && runs.len() < MAX_RUNS) {
            runs.push(tool.run(&bytes, input, Path::new(scratch))?);
        }
        runs.sort_by_key(|run| run.time);
        let peak = runs.iter().map(|run| run.peak).max().unwrap_or(0);
        Ok(Cost { time: runs[runs.len() / 2].time, peak })
    })();
    match outcome {
        Ok(cost) => {
            println!("{} {}", cost.time.as_nanos(), cost.peak);
            std::process::exit(0)
        }
        Err(message) => {
            eprintln!("{message}");
            std::process::exit(1)
        }
    }
}

/// Runs `tool` on the file at `input` in a child process. `Err` carries the start of the tool's
/// complaint. `scratch` is a directory for the tools' output.
pub fn measure(tool: Tool, input: &Path, scratch: &Path) -> Result<Cost, String> {
    let mut command = child_command();
    command.arg(tool.name()).arg(input).arg(scratch);
    parse_cost(command)
}

/// The peak memory of a child that does nothing: the floor under every figure.
pub fn idle_peak() -> Result<u64, String> {
    let mut command = child_command();
    command.arg("idle");
    parse_cost(command).map(|cost| cost.peak)
}

fn child_command() -> Command {
    let mut command = Command::new(std::env::current_exe().unwrap_or_else(|_| "throughput".into()));
    command.arg("--child");
    if wall_clock() {
        command.arg("--wall");
    }
    command
}

fn parse_cost(mut command: Command) -> Result<Cost, String> {
    let output = command.stdin(Stdio::null()).output().map_err(|e| format!("cannot run the child: {e}"))?;
    if !output.status.success() {
        return Err(first_line(&String::from_utf8_lossy(&output.stderr)));
    }
    let stdout = String::from_utf8_lossy(&output.stdout);
    let numbers: Vec<u64> = stdout.split_whitespace().filter_map(|n| n.parse().ok()).collect();
    match numbers[..] {
        [nanos, peak] => Ok(Cost { time: Duration::from_nanos(nanos), peak }),
        _ => Err(format!("the child printed {stdout:?}")),
    }
}

fn first_line(text: &str) -> String {
    let line = text.lines().find(|l| !l.trim().is_empty()).unwrap_or("(no message)");
    line.chars().take(100).collect()
}

/// Runs `command` to completion, its output going to files in `scratch`; its CPU (or wall) time
/// and peak resident set come from `wait4`.
fn run_process(mut command: Command, scratch: &Path) -> Result<Cost, String> {
    let stderr_path = scratch.join("stderr");
    let file = |path: &Path| File::create(path).map(Stdio::from).map_err(|e| e.to_string());
    command.stdin(Stdio::null()).stdout(file(&scratch.join("stdout"))?).stderr(file(&stderr_path)?);
    let start = Instant::now();
    let child = command.spawn().map_err(|e| format!("cannot run {:?}: {e}", command.get_program()))?;
    let mut status = 0;
    // SAFETY: `rusage` is plain data that `wait4` fills in; the pid is our own child's, which
    // std has not waited for.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    let waited = unsafe { libc::wait4(child.id() as libc::pid_t, &mut status, 0, &mut usage) };
    let wall = start.elapsed();
    if waited < 0 {
        return Err(format!("wait4: {}", std::io::Error::last_os_error()));
    }
    if !libc::WIFEXITED(status) || libc::WEXITSTATUS(status) != 0 {
        let how = if libc::WIFSIGNALED(status) { "crashed" } else { "failed" };
        let stderr = std::fs::read_to_string(&stderr_path).unwrap_or_default();
        return Err(format!("{how}: {}", first_line(&stderr)));
    }
    let seconds = |t: libc::timeval| Duration::new(t.tv_sec as u64, t.tv_usec as u32 * 1000);
    let time = if wall_clock() { wall } else { seconds(usage.ru_utime) + seconds(usage.ru_stime) };
    // Linux reports ru_maxrss in kilobytes.
    Ok(Cost { time, peak: usage.ru_maxrss as u64 * 1024 })
}
