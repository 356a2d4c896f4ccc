//! Many inputs in one call: finding the SPIR-V files under directories, naming each one's output,
//! and running work over the inputs on all cores while handing the results back in input order,
//! so a parallel run prints and writes exactly what a sequential one does.
//!
//! This is the one part of the library that touches the file system (to list directories); it
//! reads and writes no file contents.
//!
//! ```
//! use std::path::PathBuf;
//! use spv2wgsl::batch;
//!
//! let inputs = [PathBuf::from("shaders/sky.frag.spv"), PathBuf::from("tone_map.spvasm")];
//! assert_eq!(batch::output_names(&inputs).unwrap(), ["sky.frag.wgsl", "tone_map.wgsl"]);
//!
//! // The work runs on all cores; the results come back in input order.
//! let mut done = Vec::new();
//! let name_length = |path: &PathBuf| path.as_os_str().len();
//! batch::run_in_order(&inputs, batch::default_jobs(), name_length, |index, length| {
//!     done.push((index, length))
//! });
//! assert_eq!(done, [(0, 20), (1, 15)]);
//! ```
//!
//! The README has a `build.rs` that translates every shader under a directory with these.

use std::num::NonZeroUsize;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc;

/// The file name endings of SPIR-V inputs found in directories, longest first so `.spvasm` is not
/// mistaken for `.spv`.
pub const SPIRV_EXTENSIONS: [&str; 2] = [".spvasm", ".spv"];

/// The inputs named by `paths`: a directory stands for every `.spv` and `.spvasm` file under it
/// (recursively, in sorted path order; symbolic links to directories are not followed, so a
/// link cycle cannot loop); any other path is an input itself, whatever its name, and is kept in
/// the order given (a path that does not exist fails later, when it is read).
pub fn spirv_files(paths: &[PathBuf]) -> Result<Vec<PathBuf>, ListError> {
    shader_files(paths, &SPIRV_EXTENSIONS)
}

/// [`spirv_files`], with the file name endings looked for in directories given (`.wgsl` too, for
/// example).
pub fn shader_files(paths: &[PathBuf], extensions: &[&str]) -> Result<Vec<PathBuf>, ListError> {
    let mut inputs = Vec::new();
    for path in paths {
        if path.is_dir() {
            let mut found = Vec::new();
            collect_files(path, extensions, &mut found)?;
            found.sort();
            inputs.extend(found);
        } else {
            inputs.push(path.clone());
        }
    }
    Ok(inputs)
}

/// A directory that could not be listed.
#[derive(Debug, thiserror::Error)]
#[error("cannot list {}: {error}", .directory.display())]
pub struct ListError {
    /// The directory, or one under it.
    pub directory: PathBuf,
    /// Why it could not be listed.
    pub error: std::io::Error,
}

/// Every file under `root` whose name ends in one of `extensions`, in no particular order.
fn collect_files(root: &Path, extensions: &[&str], found: &mut Vec<PathBuf>) -> Result<(), ListError> {
    let mut pending = vec![root.to_path_buf()];
    while let Some(directory) = pending.pop() {
        let failed = |error| ListError { directory: directory.clone(), error };
        for entry in std::fs::read_dir(&directory).map_err(failed)? {
            let entry = entry.map_err(failed)?;
            let path = entry.path();
            if entry.file_type().map_err(failed)?.is_dir() {
                pending.push(path);
            } else if has_extension(&path, extensions) && path.is_file() {
                found.push(path);
            }
        }
    }
    Ok(())
}

fn has_extension(path: &Path, extensions: &[&str]) -> bool {
    let name = path.file_name().unwrap_or_default().to_string_lossy();
    extensions.iter().any(|extension| name.ends_with(extension))
}

/// The name of an input's output file: its file name without `.spv`/`.spvasm`, plus `.wgsl`
/// (`shader.frag.spv` gives `shader.frag.wgsl`).
pub fn output_name(input: &Path) -> String {
    let name = input.file_name().unwrap_or_default().to_string_lossy();
    let stem = SPIRV_EXTENSIONS.iter().find_map(|extension| name.strip_suffix(extension)).unwrap_or(&name);
    format!("{stem}.wgsl")
}

/// Two inputs that would write the same output file.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{} and {} would both write {output}", .first.display(), .second.display())]
pub struct SameOutput {
    /// The earlier of the two inputs.
    pub first: PathBuf,
    /// The later one.
    pub second: PathBuf,
    /// The output file name they share.
    pub output: String,
}

/// [`output_name`] of each input, or the first two inputs that would write the same file.
pub fn output_names(inputs: &[PathBuf]) -> Result<Vec<String>, SameOutput> {
    let names: Vec<String> = inputs.iter().map(|input| output_name(input)).collect();
    let mut order: Vec<usize> = (0..names.len()).collect();
    order.sort_by(|&a, &b| names[a].cmp(&names[b]).then(a.cmp(&b)));
    for pair in order.windows(2) {
        let (first, second) = (pair[0], pair[1]);
        if names[first] == names[second] {
            return Err(SameOutput {
                first: inputs[first].clone(),
                second: inputs[second].clone(),
                output: names[first].clone(),
            });
        }
    }
    Ok(names)
}

/// How many inputs to work on at once by default: one per core.
pub fn default_jobs() -> NonZeroUsize {
    std::thread::available_parallelism().unwrap_or(NonZeroUsize::MIN)
}

/// Runs `work` on every item, on up to `jobs` threads, and calls `done(index, result)` on the
/// calling thread for each item in input order, each as soon as it and every item before it have
/// finished. What `done` sees is therefore the same for any number of jobs.
pub fn run_in_order<T, R, Work, Done>(items: &[T], jobs: NonZeroUsize, work: Work, mut done: Done)
where
    T: Sync,
    R: Send,
    Work: Fn(&T) -> R + Sync,
    Done: FnMut(usize, R),
{
    let workers = jobs.get().min(items.len());
    if workers <= 1 {
        for (index, item) in items.iter().enumerate() {
            done(index, work(item));
        }
        return;
    }
    let next = AtomicUsize::new(0);
    let (sender, receiver) = mpsc::channel();
    std::thread::scope(|scope| {
        for _ in 0..workers {
            let sender = sender.clone();
            let (next, work) = (&next, &work);
            scope.spawn(move || {
                loop {
                    let index = next.fetch_add(1, Ordering::Relaxed);
                    let Some(item) = items.get(index) else { break };
                    // The receiver only goes away if `done` panicked; stop quietly then.
                    if sender.send((index, work(item))).is_err() {
                        break;
                    }
                }
            });
        }
        drop(sender);
        // Results that arrived before some earlier one, by index.
        let mut waiting: Vec<Option<R>> = (0..items.len()).map(|_| None).collect();
        let mut next_done = 0;
        for (index, result) in receiver {
            waiting[index] = Some(result);
            while let Some(result) = waiting.get_mut(next_done).and_then(Option::take) {
                done(next_done, result);
                next_done += 1;
            }
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    fn jobs(n: usize) -> NonZeroUsize {
        NonZeroUsize::new(n).unwrap()
    }

    #[test]
    fn results_come_back_in_input_order_for_any_number_of_jobs() {
        let items: Vec<u64> = (0..200).collect();
        // Early items take longest, so they finish last when run in parallel.
        let work = |&n: &u64| {
            std::thread::sleep(std::time::Duration::from_micros((200 - n) * 20));
            n * n
        };
        for count in [1, 2, 4, 7, 500] {
            let mut seen = Vec::new();
            run_in_order(&items, jobs(count), work, |index, square| seen.push((index, square)));
            let expected: Vec<(usize, u64)> = items.iter().map(|&n| (n as usize, n * n)).collect();
            assert_eq!(seen, expected, "with {count} jobs");
        }
    }

    #[test]
    fn no_items_calls_nothing() {
        let mut calls = 0;
        run_in_order(&[] as &[u8], jobs(4), |_| (), |_, ()| calls += 1);
        assert_eq!(calls, 0);
    }

    #[test]
    fn work_runs_on_several_threads() {
        let items: Vec<u32> = (0..64).collect();
        let threads = std::sync::Mutex::new(std::collections::BTreeSet::new());
        let work = |_: &u32| {
            threads.lock().unwrap().insert(format!("{:?}", std::thread::current().id()));
            std::thread::sleep(std::time::Duration::from_millis(2));
        };
        run_in_order(&items, jobs(4), work, |_, ()| {});
        assert!(threads.lock().unwrap().len() > 1, "all 64 items ran on one thread");
    }

    #[test]
    fn output_names_drop_the_spirv_extension_only() {
        for (input, expected) in [
            ("dir/shader.frag.spv", "shader.frag.wgsl"),
            ("shader.spvasm", "shader.wgsl"),
            ("a/b/compute", "compute.wgsl"),
            ("weird.spv.bin", "weird.spv.bin.wgsl"),
        ] {
            assert_eq!(output_name(Path::new(input)), expected, "{input}");
        }
    }

    #[test]
    fn two_inputs_with_one_output_name_are_refused() {
        let inputs: Vec<PathBuf> = ["x/a.spv", "b.spv", "y/a.spvasm", "a.spv"].iter().map(PathBuf::from).collect();
        let clash = output_names(&inputs).unwrap_err();
        assert_eq!(
            clash,
            SameOutput {
                first: PathBuf::from("x/a.spv"),
                second: PathBuf::from("y/a.spvasm"),
                output: "a.wgsl".into()
            }
        );
        assert_eq!(clash.to_string(), "x/a.spv and y/a.spvasm would both write a.wgsl");
        let distinct: Vec<PathBuf> = ["a.spv", "b.spvasm"].iter().map(PathBuf::from).collect();
        assert_eq!(output_names(&distinct).unwrap(), ["a.wgsl", "b.wgsl"]);
    }

    #[test]
    fn directories_give_their_spirv_files_sorted_and_files_stay_as_given() {
        let root = std::env::temp_dir().join(format!("spv2wgsl-batch-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&root);
        for file in ["b.spv", "a.spvasm", "notes.txt", "sub/c.spv", "sub/deeper/a0.spv", "z.wgsl"] {
            let path = root.join(file);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, b"").unwrap();
        }
        let given = vec![root.join("z.wgsl"), root.clone(), root.join("missing.spv")];
        let found = spirv_files(&given).unwrap();
        let with_wgsl = shader_files(std::slice::from_ref(&root), &[".wgsl", ".spv"]).unwrap();
        let _ = std::fs::remove_dir_all(&root);
        let relative = |found: Vec<PathBuf>| -> Vec<String> {
            found.iter().map(|path| path.strip_prefix(&root).unwrap().to_string_lossy().replace('\\', "/")).collect()
        };
        assert_eq!(relative(found), ["z.wgsl", "a.spvasm", "b.spv", "sub/c.spv", "sub/deeper/a0.spv", "missing.spv"]);
        assert_eq!(relative(with_wgsl), ["b.spv", "sub/c.spv", "sub/deeper/a0.spv", "z.wgsl"]);
    }
}
