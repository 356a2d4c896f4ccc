//! Throughput of spv2wgsl against naga, side by side, on the same inputs.
//!
//! ```sh
//! cargo bench --bench throughput                  # everything (naga takes a minute on 25 MB)
//! cargo bench --bench throughput -- --quick       # naga only on inputs under 2 MB
//! cargo bench --bench throughput -- --only generated --sizes 1,25 --no-naga
//! cargo bench --bench throughput -- --write DIR   # just write the generated modules
//! ```
//!
//! Inputs: the fixtures (`fixtures/{glsl,spvasm,unstructured}`), the shared corpus when present
//! (`../shared/corpus`, or `--corpus DIR`), and generated modules (`generate.rs`) of 0.1, 1, 5 and
//! 25 MB, of many entry points (0.2, 0.8 and 3.2 MB) and of many functions over buffers of their
//! own (0.1, 0.4 and 1.6 MB: naga takes 2 s and 2 GB on the last). Assembly text is assembled
//! beforehand, so every tool reads the same binary. Each tool runs on each input in its own process
//! (`measure.rs`), which gives its peak memory; the library tools time the translation alone,
//! the command-line tools the whole process.
//!
//! Options: `--quick`, `--no-naga` (skip naga entirely), `--only fixtures,corpus,generated`,
//! `--sizes MB,MB,..`, `--one-block N,N,..` (also modules of one block of N instructions),
//! `--one-function MB,MB,..` (also modules of every shape in one function),
//! `--entry-points MB,MB,..` (modules of many small entry points; 0.2, 0.8 and 3.2 unless given),
//! `--resources MB,MB,..` (modules of many functions over buffers of their own; 0.1, 0.4, 1.6),
//! `--totals` (no per-input rows for the fixtures and the corpus), `--corpus DIR`, `--write DIR`,
//! `--wall` (wall-clock times instead of CPU times; see `measure.rs`).

mod generate;
mod measure;

use std::path::{Path, PathBuf};
use std::time::Duration;

use measure::{Cost, TOOLS, Tool};

/// The command's allocator (`src/cli/main.rs`), for every tool: our library's figures are then
/// what the command does, and naga's library and rspirv's parse, measured under the same one,
/// are compared like for like. naga's own command keeps its allocator (the CLI columns).
#[cfg(feature = "mimalloc")]
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

const MB: f64 = 1e6;

/// naga's cost grows much faster than the input; `--quick` skips it above this size.
const QUICK_LIMIT: usize = 2_000_000;

#[derive(Clone, Copy, PartialEq, Eq)]
enum Group {
    Fixtures,
    Corpus,
    Generated,
}

impl Group {
    fn name(self) -> &'static str {
        match self {
            Group::Fixtures => "fixtures",
            Group::Corpus => "corpus",
            Group::Generated => "generated",
        }
    }
}

struct Input {
    group: Group,
    name: String,
    path: PathBuf,
    bytes: usize,
}

struct Settings {
    quick: bool,
    naga: bool,
    naga_cli: bool,
    groups: Vec<Group>,
    sizes: Vec<f64>,
    one_block: Vec<usize>,
    one_function: Vec<f64>,
    entry_points: Vec<f64>,
    resources: Vec<f64>,
    rows: bool,
    corpus: PathBuf,
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).filter(|a| a != "--bench").collect();
    if args.first().map(String::as_str) == Some("--child") {
        measure::child(&args[1..]);
    }
    if let Err(message) = run(&args) {
        eprintln!("throughput: {message}");
        std::process::exit(2);
    }
}

fn run(args: &[String]) -> Result<(), String> {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let mut settings = Settings {
        quick: false,
        naga: true,
        naga_cli: on_path("naga"),
        groups: vec![Group::Fixtures, Group::Corpus, Group::Generated],
        sizes: vec![0.1, 1.0, 5.0, 25.0],
        one_block: Vec::new(),
        one_function: Vec::new(),
        entry_points: vec![0.2, 0.8, 3.2],
        // naga's cost grows with functions times globals: 2 s and 2 GB at 1.6 MB.
        resources: vec![0.1, 0.4, 1.6],
        rows: true,
        corpus: root.join("../shared/corpus"),
    };
    let mut args = args.iter();
    let mut write = None;
    while let Some(arg) = args.next() {
        let mut value = || args.next().cloned().ok_or_else(|| format!("{arg} needs a value"));
        match arg.as_str() {
            "--quick" => settings.quick = true,
            "--wall" => measure::use_wall_clock(),
            "--no-naga" => (settings.naga, settings.naga_cli) = (false, false),
            "--totals" => settings.rows = false,
            "--only" => {
                settings.groups = value()?
                    .split(',')
                    .map(|g| {
                        [Group::Fixtures, Group::Corpus, Group::Generated]
                            .into_iter()
                            .find(|group| group.name() == g)
                            .ok_or_else(|| format!("unknown group {g}"))
                    })
                    .collect::<Result<_, _>>()?
            }
            "--sizes" => settings.sizes = numbers(&value()?)?,
            "--one-block" => settings.one_block = numbers(&value()?)?.into_iter().map(|n| n as usize).collect(),
            "--one-function" => settings.one_function = numbers(&value()?)?,
            "--entry-points" => settings.entry_points = numbers(&value()?)?,
            "--resources" => settings.resources = numbers(&value()?)?,
            "--corpus" => settings.corpus = PathBuf::from(value()?),
            "--write" => write = Some(PathBuf::from(value()?)),
            other => {
                return Err(format!("unknown argument {other} (see benches/throughput/main.rs)"));
            }
        }
    }
    let scratch = std::env::temp_dir().join(format!("spv2wgsl-bench-{}", std::process::id()));
    let inputs_dir = write.clone().unwrap_or_else(|| scratch.join("inputs"));
    std::fs::create_dir_all(&inputs_dir).map_err(|e| format!("{}: {e}", inputs_dir.display()))?;
    let inputs = collect_inputs(&settings, &root, &inputs_dir)?;
    if write.is_some() {
        for input in inputs.iter().filter(|i| i.group == Group::Generated) {
            println!("{} ({} bytes)", input.path.display(), input.bytes);
        }
        return Ok(());
    }
    let outcome = bench(&settings, &inputs, &scratch);
    let _ = std::fs::remove_dir_all(&scratch);
    outcome
}

fn numbers(list: &str) -> Result<Vec<f64>, String> {
    list.split(',').map(|n| n.trim().parse().map_err(|_| format!("not a number: {n}"))).collect()
}

fn on_path(program: &str) -> bool {
    std::env::var_os("PATH").is_some_and(|path| std::env::split_paths(&path).any(|dir| dir.join(program).is_file()))
}

/// Every input of the selected groups, as binary files (assembly text assembled into `dir`).
fn collect_inputs(settings: &Settings, root: &Path, dir: &Path) -> Result<Vec<Input>, String> {
    let mut inputs = Vec::new();
    for &group in &settings.groups {
        match group {
            Group::Fixtures => {
                for sub in ["glsl", "spvasm", "unstructured"] {
                    let base = root.join("fixtures");
                    inputs.extend(shader_files(group, &base, &base.join(sub), dir)?);
                }
            }
            Group::Corpus if settings.corpus.is_dir() => {
                inputs.extend(shader_files(group, &settings.corpus, &settings.corpus, dir)?);
            }
            Group::Corpus => eprintln!("no corpus at {}: skipped", settings.corpus.display()),
            Group::Generated => {
                let mut modules = Vec::new();
                for &size in &settings.sizes {
                    modules.push((format!("generated/mixed {size} MB"), generate::mixed((size * MB) as usize)));
                }
                for &size in &settings.one_function {
                    let words = generate::one_function((size * MB) as usize);
                    modules.push((format!("generated/one function {size} MB"), words));
                }
                for &size in &settings.entry_points {
                    let words = generate::entry_points((size * MB) as usize);
                    modules.push((format!("generated/entry points {size} MB"), words));
                }
                for &size in &settings.resources {
                    let words = generate::resources((size * MB) as usize);
                    modules.push((format!("generated/resources {size} MB"), words));
                }
                for &count in &settings.one_block {
                    modules.push((format!("generated/one block of {count}"), generate::one_block(count)));
                }
                for (name, words) in modules {
                    let path = dir.join(format!("{}.spv", name.replace(['/', ' '], "_")));
                    let bytes = generate::to_bytes(&words);
                    std::fs::write(&path, &bytes).map_err(|e| format!("{}: {e}", path.display()))?;
                    inputs.push(Input { group, name, path, bytes: bytes.len() });
                }
            }
        }
    }
    Ok(inputs)
}

/// The `.spv` and `.spvasm` files under `start`, named relative to `base`, sorted.
fn shader_files(group: Group, base: &Path, start: &Path, dir: &Path) -> Result<Vec<Input>, String> {
    let mut files = Vec::new();
    let mut pending = vec![start.to_path_buf()];
    while let Some(folder) = pending.pop() {
        for entry in std::fs::read_dir(&folder).map_err(|e| format!("{}: {e}", folder.display()))? {
            let path = entry.map_err(|e| e.to_string())?.path();
            if path.is_dir() {
                pending.push(path);
            } else if path.extension().is_some_and(|e| e == "spv" || e == "spvasm") {
                files.push(path);
            }
        }
    }
    files.sort();
    let mut inputs = Vec::new();
    for path in files {
        let name = path.strip_prefix(base).unwrap_or(&path).to_string_lossy().into_owned();
        let path = if path.extension().is_some_and(|e| e == "spvasm") {
            let text = std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
            let Ok(assembly) = spv2wgsl::spirv::assemble::assemble(&text) else {
                eprintln!("{name}: does not assemble, skipped");
                continue;
            };
            let out = dir.join(format!("{}-{}.spv", group.name(), name.replace('/', "_")));
            std::fs::write(&out, generate::to_bytes(&assembly.words)).map_err(|e| format!("{}: {e}", out.display()))?;
            out
        } else {
            path
        };
        let bytes = std::fs::metadata(&path).map_err(|e| e.to_string())?.len() as usize;
        inputs.push(Input { group, name, path, bytes });
    }
    Ok(inputs)
}

/// One input's results, in `TOOLS` order; `None` for a tool not run.
type Row = [Option<Result<Cost, String>>; TOOLS.len()];

fn bench(settings: &Settings, inputs: &[Input], scratch: &Path) -> Result<(), String> {
    let idle = measure::idle_peak()?;
    println!("machine: {}; {} cores", cpu_model(), std::thread::available_parallelism().map_or(1, |n| n.get()));
    let clock = if measure::wall_clock() { "wall-clock" } else { "CPU (user + system)" };
    println!(
        "times: {clock}; library tools time the translation alone (median of runs lasting 20+ ms), CLI tools the whole process"
    );
    println!("peak: resident set of the process; the benchmark binary alone is {:.1} MB", idle as f64 / MB);
    for &group in &settings.groups {
        let members: Vec<usize> = (0..inputs.len()).filter(|&i| inputs[i].group == group).collect();
        if members.is_empty() {
            continue;
        }
        println!("\n## {} ({} inputs)\n", group.name(), members.len());
        header();
        let show_rows = settings.rows || group == Group::Generated;
        let mut rows = Vec::new();
        for &i in &members {
            let input = &inputs[i];
            let row: Row = TOOLS.map(|tool| {
                let naga = matches!(tool, Tool::Naga | Tool::NagaCli);
                let skip = (tool == Tool::Naga && !settings.naga)
                    || (tool == Tool::NagaCli && !settings.naga_cli)
                    || (naga && settings.quick && input.bytes > QUICK_LIMIT);
                (!skip).then(|| measure::measure(tool, &input.path, scratch))
            });
            if show_rows {
                print_row(&input.name, input.bytes, &row);
            }
            rows.push((i, row));
        }
        totals(group, inputs, &rows);
        if group == Group::Generated {
            failures(inputs, &rows);
            linearity(inputs, &rows, idle);
        }
    }
    Ok(())
}

fn cpu_model() -> String {
    let info = std::fs::read_to_string("/proc/cpuinfo").unwrap_or_default();
    info.lines()
        .find_map(|line| {
            line.strip_prefix("model name").map(|rest| rest.trim_start_matches([' ', '\t', ':']).to_string())
        })
        .unwrap_or_else(|| "unknown CPU".into())
}

fn header() {
    println!(
        "{:<44} {:>9} | {:^22} | {:^22} | {:^22} | {:^8} | {:^17} | {:^20}",
        "",
        "size",
        "spv2wgsl",
        "spv2wgsl no-validate",
        "naga spv+valid+wgsl",
        "rspirv",
        "CLI process",
        "naga ÷ spv2wgsl"
    );
    println!(
        "{:<44} {:>9} | {:>8} {:>6} {:>6} | {:>8} {:>6} {:>6} | {:>8} {:>6} {:>6} | {:>8} | {:>8} {:>8} | {:>6} {:>6} {:>6}",
        "input",
        "KB",
        "ms",
        "MB/s",
        "MB",
        "ms",
        "MB/s",
        "MB",
        "ms",
        "MB/s",
        "MB",
        "parse ms",
        "spv2wgsl",
        "naga",
        "lib",
        "no-val",
        "CLI"
    );
}

fn ms(time: Duration) -> String {
    let ms = time.as_secs_f64() * 1e3;
    match ms {
        ms if ms < 10.0 => format!("{ms:.3}"),
        ms if ms < 1000.0 => format!("{ms:.1}"),
        ms => format!("{ms:.0}"),
    }
}

fn rate(bytes: usize, time: Duration) -> String {
    format!("{:.1}", bytes as f64 / MB / time.as_secs_f64().max(1e-9))
}

/// Time, MB/s and peak MB for the tool at `index`, or why not.
fn cells(bytes: usize, result: &Option<Result<Cost, String>>) -> String {
    match result {
        None => format!("{:>8} {:>6} {:>6}", "-", "", ""),
        Some(Err(_)) => format!("{:>8} {:>6} {:>6}", "fail", "", ""),
        Some(Ok(cost)) => format!("{:>8} {:>6} {:>6.1}", ms(cost.time), rate(bytes, cost.time), cost.peak as f64 / MB),
    }
}

fn time_of(row: &Row, tool: Tool) -> Option<Duration> {
    let index = TOOLS.iter().position(|&t| t == tool)?;
    row[index].as_ref()?.as_ref().ok().map(|cost| cost.time)
}

fn ratio(a: Option<Duration>, b: Option<Duration>) -> String {
    match (a, b) {
        (Some(a), Some(b)) => match a.as_secs_f64() / b.as_secs_f64().max(1e-9) {
            r if r < 10.0 => format!("{r:.2}"),
            r => format!("{r:.1}"),
        },
        _ => "-".into(),
    }
}

fn time_cell(row: &Row, tool: Tool) -> String {
    let index = TOOLS.iter().position(|&t| t == tool).unwrap_or(0);
    match &row[index] {
        None => "-".into(),
        Some(Err(_)) => "fail".into(),
        Some(Ok(cost)) => ms(cost.time),
    }
}

fn print_row(name: &str, bytes: usize, row: &Row) {
    let chars: Vec<char> = name.chars().collect();
    let name: String = if chars.len() > 44 {
        std::iter::once('…').chain(chars[chars.len() - 43..].iter().copied()).collect()
    } else {
        name.into()
    };
    println!(
        "{name:<44} {:>9.1} | {} | {} | {} | {:>8} | {:>8} {:>8} | {:>6} {:>6} {:>6}",
        bytes as f64 / 1e3,
        cells(bytes, &row[0]),
        cells(bytes, &row[1]),
        cells(bytes, &row[2]),
        time_cell(row, Tool::Floor),
        time_cell(row, Tool::OursCli),
        time_cell(row, Tool::NagaCli),
        ratio(time_of(row, Tool::Naga), time_of(row, Tool::Ours)),
        ratio(time_of(row, Tool::Naga), time_of(row, Tool::OursNoValidate)),
        ratio(time_of(row, Tool::NagaCli), time_of(row, Tool::OursCli)),
    );
    use std::io::Write;
    let _ = std::io::stdout().flush();
}

/// Sums over the inputs every tool that ran translated, and how many each tool failed.
fn totals(group: Group, inputs: &[Input], rows: &[(usize, Row)]) {
    let complete: Vec<&(usize, Row)> =
        rows.iter().filter(|(_, row)| row.iter().all(|r| !matches!(r, Some(Err(_))))).collect();
    let bytes: usize = complete.iter().map(|(i, _)| inputs[*i].bytes).sum();
    let mut total: Row = std::array::from_fn(|_| None);
    for (t, slot) in total.iter_mut().enumerate() {
        let costs: Vec<Cost> = complete.iter().filter_map(|(_, row)| row[t].as_ref()?.as_ref().ok().copied()).collect();
        // A tool skipped on some of the inputs (`--quick`) has no comparable total.
        if !costs.is_empty() && costs.len() == complete.len() {
            let time = costs.iter().map(|c| c.time).sum();
            let peak = costs.iter().map(|c| c.peak).max().unwrap_or(0);
            *slot = Some(Ok(Cost { time, peak }));
        }
    }
    println!("{}", "-".repeat(180));
    print_row(&format!("total: {} of {} inputs", complete.len(), rows.len()), bytes, &total);
    let failed: Vec<String> = TOOLS
        .iter()
        .enumerate()
        .map(|(t, tool)| (tool, rows.iter().filter(|(_, row)| matches!(row[t], Some(Err(_)))).count()))
        .filter(|(_, n)| *n > 0)
        .map(|(tool, n)| format!("{} {n}", tool.name()))
        .collect();
    if !failed.is_empty() {
        println!(
            "failed in {}: {} (totals are over the inputs every tool translated; their peak MB is the largest)",
            group.name(),
            failed.join(", ")
        );
    }
}

fn failures(inputs: &[Input], rows: &[(usize, Row)]) {
    for (i, row) in rows {
        for (t, result) in row.iter().enumerate() {
            if let Some(Err(why)) = result {
                println!("{}: {} {why}", inputs[*i].name, TOOLS[t].name());
            }
        }
    }
}

/// Per generated module: milliseconds per MB (the cost is linear when this stays flat), memory
/// above the idle process per input byte, and the goals of issue 24: without validation at most
/// twice rspirv's parse, and naga's time over ours at least 1, with and without validation.
fn linearity(inputs: &[Input], rows: &[(usize, Row)], idle: u64) {
    println!("\n{:<44} {:>9} | {:^29} | {:^13} | {:^25}", "", "", "ms per MB", "(peak-idle)÷size", "goals");
    println!(
        "{:<44} {:>9} | {:>6} {:>7} {:>6} {:>6} | {:>6} {:>6} | {:>8} {:>9} {:>8}",
        "input", "KB", "ours", "no-val", "naga", "parse", "ours", "no-val", "nv÷parse", "naga÷ours", "naga÷nv"
    );
    println!("{:<44} {:>9} | {:>29} | {:>13} | {:>8} {:>9} {:>8}", "", "", "", "", "<= 2", ">= 1", ">= 1");
    let mut met = [0; 3];
    let mut measured = [0; 3];
    for (i, row) in rows {
        let input = &inputs[*i];
        let size = input.bytes as f64 / MB;
        let per_mb = |tool| time_of(row, tool).map_or("-".into(), |t| format!("{:.1}", t.as_secs_f64() * 1e3 / size));
        let memory = |t: usize| match &row[t] {
            Some(Ok(cost)) => format!("{:.1}", cost.peak.saturating_sub(idle) as f64 / input.bytes as f64),
            _ => "-".into(),
        };
        let goals = [
            (Tool::OursNoValidate, Tool::Floor, 2.0, false),
            (Tool::Naga, Tool::Ours, 1.0, true),
            (Tool::Naga, Tool::OursNoValidate, 1.0, true),
        ];
        for (g, &(a, b, goal, at_least)) in goals.iter().enumerate() {
            if let (Some(a), Some(b)) = (time_of(row, a), time_of(row, b)) {
                let ratio = a.as_secs_f64() / b.as_secs_f64().max(1e-9);
                measured[g] += 1;
                met[g] += usize::from(if at_least { ratio >= goal } else { ratio <= goal });
            }
        }
        println!(
            "{:<44} {:>9.1} | {:>6} {:>7} {:>6} {:>6} | {:>6} {:>6} | {:>8} {:>9} {:>8}",
            input.name,
            input.bytes as f64 / 1e3,
            per_mb(Tool::Ours),
            per_mb(Tool::OursNoValidate),
            per_mb(Tool::Naga),
            per_mb(Tool::Floor),
            memory(0),
            memory(1),
            ratio(time_of(row, Tool::OursNoValidate), time_of(row, Tool::Floor)),
            ratio(time_of(row, Tool::Naga), time_of(row, Tool::Ours)),
            ratio(time_of(row, Tool::Naga), time_of(row, Tool::OursNoValidate)),
        );
    }
    println!(
        "goals met: no-validate within 2x of the parse on {} of {}; naga's time over ours at least 1 on {} of {} with validation, {} of {} without",
        met[0], measured[0], met[1], measured[1], met[2], measured[2]
    );
    // Linear cost: the largest mixed module costs per MB what the 1 MB one does (within 2x).
    let mixed: Vec<&(usize, Row)> =
        rows.iter().filter(|(i, _)| inputs[*i].name.contains("mixed") && inputs[*i].bytes >= 1_000_000).collect();
    if let (Some((small, small_row)), Some((large, large_row))) =
        (mixed.iter().min_by_key(|(i, _)| inputs[*i].bytes), mixed.iter().max_by_key(|(i, _)| inputs[*i].bytes))
        && small != large
    {
        let per_mb =
            |row: &Row, i: usize, tool| time_of(row, tool).map(|t| t.as_secs_f64() / (inputs[i].bytes as f64 / MB));
        let growth = |tool| match (per_mb(large_row, *large, tool), per_mb(small_row, *small, tool)) {
            (Some(large), Some(small)) => format!("{:.2}", large / small),
            _ => "-".into(),
        };
        println!(
            "time per MB, {} ÷ {}: spv2wgsl {}, no-validate {}, naga {}",
            inputs[*large].name,
            inputs[*small].name,
            growth(Tool::Ours),
            growth(Tool::OursNoValidate),
            growth(Tool::Naga)
        );
    }
}
