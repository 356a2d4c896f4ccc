//! The Vulkan runs happen in worker processes, so that a driver crash costs one case, not the
//! test process.
//!
//! A Vulkan driver can die on a valid module: lavapipe (Mesa 22.3) takes SIGSEGV inside
//! `vkCreateComputePipelines` on fuzz/random_spirv.py's seed 4510 after
//! `spirv-opt --eliminate-dead-branches --merge-return`. In the test process that would end every
//! case after it, which loses a campaign of thousands of seeds. So every ash run goes to a worker:
//! this test binary started again with `WORKER` in its environment, which discovers the same cases,
//! opens the device once and serves one case after another. The parent writes a case's name on a
//! line of the worker's stdin; the worker answers on its stdout with `buffer B HEX` and `target HEX`
//! lines then `done`, or with `error HEX` (the device's message), the bytes in hex.
//!
//! Workers are kept and reused, at most one per test thread, so the device is opened once per
//! thread rather than once per case: starting a worker (discovery and device) takes about as long
//! as running a typical case, so a process per case would nearly double a run. A worker that dies
//! of a signal takes only the case it was running with it: that case gets `Failure::Crash`, naming
//! the signal (`main.rs` then, where the case has `cpu` lines, treats the device as no reference,
//! as when it cannot build the pipeline; the case fails otherwise), and the next case starts a
//! fresh worker. A worker that panics or exits is a harness
//! bug (`Failure::Worker`): its case fails. `Workers::finish` ends the workers after the run.

use std::collections::HashMap;
use std::fmt::Write as _;
use std::io::{self, BufRead, BufReader, BufWriter, Write};
use std::os::unix::process::ExitStatusExt;
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::sync::Mutex;

use crate::case::Case;
use crate::compare::Outputs;
use crate::vulkan::Vulkan;

/// The environment variable that makes the test binary a worker.
const WORKER: &str = "SPV2WGSL_VULKAN_WORKER";

pub fn is_worker() -> bool {
    std::env::var_os(WORKER).is_some()
}

/// Why a Vulkan run gave no outputs.
pub enum Failure {
    /// The device could not run the case and said why.
    Device(String),
    /// The worker died of a signal while running it: the driver crashed.
    Crash(String),
    /// The worker failed otherwise (it panicked, could not start, wrote nonsense): a harness bug.
    Worker(String),
}

impl std::fmt::Display for Failure {
    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        match self {
            Failure::Device(problem) | Failure::Worker(problem) => f.write_str(problem),
            Failure::Crash(problem) => write!(f, "the Vulkan run crashed: {problem}"),
        }
    }
}

/// A case run on the device: a compute dispatch or a draw.
fn run(vulkan: &Vulkan, case: &Case) -> Result<Outputs, String> {
    match case.render {
        None => vulkan.run_compute(case),
        Some(_) => vulkan.run_render(case),
    }
}

/// The worker's `main`: serves requests for `cases` until its stdin ends.
pub fn serve(cases: HashMap<String, Case>) {
    let vulkan = Vulkan::new().unwrap_or_else(|reason| panic!("the Vulkan worker has no device: {reason}"));
    let mut out = BufWriter::new(io::stdout().lock());
    for name in io::stdin().lines() {
        let name = name.expect("the Vulkan worker cannot read its stdin");
        let case = cases.get(&name).unwrap_or_else(|| panic!("the Vulkan worker has no case {name:?}"));
        let reply = match run(&vulkan, case) {
            Ok(outputs) => {
                let mut reply = String::new();
                for (binding, bytes) in &outputs.buffers {
                    let _ = writeln!(reply, "buffer {binding} {}", hex(bytes));
                }
                for pixels in &outputs.targets {
                    let _ = writeln!(reply, "target {}", hex(pixels));
                }
                reply + "done\n"
            }
            Err(problem) => format!("error {}\n", hex(problem.as_bytes())),
        };
        out.write_all(reply.as_bytes()).and_then(|()| out.flush()).expect("the Vulkan worker cannot answer");
    }
}

/// A running worker and the two ends of its pipes.
struct Worker {
    child: Child,
    requests: ChildStdin,
    replies: BufReader<ChildStdout>,
}

/// The workers not running a case at the moment.
pub struct Workers {
    idle: Mutex<Vec<Worker>>,
}

impl Workers {
    pub fn new() -> Workers {
        Workers { idle: Mutex::new(Vec::new()) }
    }

    /// Ends every worker: each sees its stdin end, closes its device and exits.
    pub fn finish(&self) {
        let workers = std::mem::take(&mut *self.idle.lock().unwrap_or_else(|poisoned| poisoned.into_inner()));
        for Worker { mut child, requests, .. } in workers {
            drop(requests);
            let _ = child.wait();
        }
    }

    /// Runs `case` on the device in an idle worker, or a new one.
    pub fn run(&self, case: &Case) -> Result<Outputs, Failure> {
        let idle = self.idle.lock().unwrap_or_else(|poisoned| poisoned.into_inner()).pop();
        let mut worker = match idle {
            Some(worker) => worker,
            None => Worker::start().map_err(|e| Failure::Worker(format!("cannot start a Vulkan worker: {e}")))?,
        };
        match worker.request(&case.name) {
            Ok(reply) => {
                self.idle.lock().unwrap_or_else(|poisoned| poisoned.into_inner()).push(worker);
                reply.map_err(Failure::Device)
            }
            Err(lost) => Err(worker.end(lost)),
        }
    }
}

impl Worker {
    fn start() -> io::Result<Worker> {
        let mut child = Command::new(std::env::current_exe()?)
            .env(WORKER, "1")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()?;
        let requests = child.stdin.take().expect("piped");
        let replies = BufReader::new(child.stdout.take().expect("piped"));
        Ok(Worker { child, requests, replies })
    }

    /// The worker's answer for the case `name`; `Err` when the worker is lost (it died, or its
    /// reply makes no sense: the line).
    fn request(&mut self, name: &str) -> Result<Result<Outputs, String>, Option<String>> {
        writeln!(self.requests, "{name}").and_then(|()| self.requests.flush()).map_err(|_| None)?;
        let mut outputs = Outputs { buffers: Vec::new(), targets: Vec::new() };
        loop {
            let mut line = String::new();
            if self.replies.read_line(&mut line).map_err(|_| None)? == 0 {
                return Err(None);
            }
            let line = line.trim_end();
            let bytes = |text: &str| unhex(text).ok_or_else(|| Some(line.to_string()));
            match line.split_once(' ').unwrap_or((line, "")) {
                ("done", "") => return Ok(Ok(outputs)),
                ("error", message) => return Ok(Err(String::from_utf8_lossy(&bytes(message)?).into_owned())),
                ("target", pixels) => outputs.targets.push(bytes(pixels)?),
                ("buffer", rest) => {
                    let (binding, contents) = rest.split_once(' ').ok_or_else(|| Some(line.to_string()))?;
                    let binding = binding.parse().map_err(|_| Some(line.to_string()))?;
                    outputs.buffers.push((binding, bytes(contents)?));
                }
                _ => return Err(Some(line.to_string())),
            }
        }
    }

    /// Ends a lost worker and says what became of it.
    fn end(mut self, nonsense: Option<String>) -> Failure {
        if let Some(line) = nonsense {
            let _ = self.child.kill();
            let _ = self.child.wait();
            return Failure::Worker(format!("the Vulkan worker answered {line:?}"));
        }
        match self.child.wait() {
            Ok(status) if status.signal().is_some() => {
                Failure::Crash(format!("the driver killed the process running it ({status})"))
            }
            Ok(status) => Failure::Worker(format!("the Vulkan worker ended ({status}); its stderr says why")),
            Err(e) => Failure::Worker(format!("the Vulkan worker is lost: {e}")),
        }
    }
}

fn hex(bytes: &[u8]) -> String {
    let mut text = String::with_capacity(bytes.len() * 2);
    for byte in bytes {
        let _ = write!(text, "{byte:02x}");
    }
    text
}

/// `None` for anything but pairs of hex digits.
fn unhex(text: &str) -> Option<Vec<u8>> {
    (0..text.len()).step_by(2).map(|i| u8::from_str_radix(text.get(i..i + 2)?, 16).ok()).collect()
}
