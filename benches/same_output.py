#!/usr/bin/env python3
"""Checks that two spv2wgsl binaries translate every input alike: the guard for changes that must
not change the output (speed work, moves of code).

    benches/same_output.py OLD_BINARY NEW_BINARY [DIR_OR_FILE ...] [--random N] [--jobs N]

Inputs: every .spv and .spvasm under the given directories (default: fixtures/ and
../shared/corpus), and with --random N, N random programs of each stage (fuzz/random_programs.py,
compiled by glslangValidator, plain and through spirv-opt -O). Generated benchmark modules can be
added as a directory: `cargo bench --bench throughput -- --write DIR`.

Each input is translated by both binaries in two ways: the default (validated), and with
`--annotate --no-validate`. The WGSL (stdout), the messages (stderr) and the exit code must be the
same; the first differences are shown and the script exits 1.
"""
import concurrent.futures
import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MODES = [[], ["--annotate", "--no-validate"]]


def inputs_under(path):
    if os.path.isfile(path):
        return [path]
    # A missing directory (the default corpus seen from a worktree elsewhere) must not pass as
    # "no differences".
    if not os.path.isdir(path):
        sys.exit(f"{path}: no such file or directory")
    found = []
    for folder, _, files in os.walk(path):
        found.extend(os.path.join(folder, f) for f in files if f.endswith((".spv", ".spvasm")))
    return sorted(found)


def random_programs(count, dir):
    """Random GLSL programs of each stage, compiled as the differential test compiles them."""
    found = []
    for stage in ["compute", "fragment", "vertex"]:
        out = os.path.join(dir, stage)
        os.makedirs(out)
        subprocess.run([sys.executable, os.path.join(ROOT, "fuzz/random_programs.py"), "0", str(count), out, stage],
                       check=True)
        for name in sorted(os.listdir(out)):
            source = os.path.join(out, name)
            spv = source + ".spv"
            subprocess.run(["glslangValidator", "-V", "--target-env", "vulkan1.1", source, "-o", spv],
                           check=True, stdout=subprocess.DEVNULL)
            subprocess.run(["spirv-opt", "-O", "--target-env=vulkan1.1", spv, "-o", source + ".opt.spv"], check=True)
            found += [spv, source + ".opt.spv"]
    return found


def run(binary, path, mode):
    done = subprocess.run([binary, path, *mode], capture_output=True, timeout=600)
    # The input's path appears in messages; both binaries are given the same one.
    return done.returncode, done.stdout, done.stderr


def compare(old, new, path):
    differences = []
    for mode in MODES:
        a, b = run(old, path, mode), run(new, path, mode)
        if a != b:
            what = [name for name, x, y in zip(["exit code", "WGSL", "messages"], a, b) if x != y]
            differences.append(f"{path} {' '.join(mode) or '(default)'}: {', '.join(what)} differ "
                               f"(exit {a[0]} vs {b[0]})")
    return differences


def main():
    args = sys.argv[1:]
    jobs, count, paths = os.cpu_count() or 1, 0, []
    while args:
        arg = args.pop(0)
        if arg == "--jobs":
            jobs = int(args.pop(0))
        elif arg == "--random":
            count = int(args.pop(0))
        else:
            paths.append(arg)
    if len(paths) < 2:
        sys.exit(__doc__)
    old, new, dirs = paths[0], paths[1], paths[2:] or [os.path.join(ROOT, "fixtures"),
                                                        os.path.join(ROOT, "../shared/corpus")]
    with tempfile.TemporaryDirectory() as scratch:
        files = [f for d in dirs for f in inputs_under(d)]
        if count:
            files += random_programs(count, scratch)
        # Largest first, so the long ones do not finish last alone.
        files.sort(key=lambda f: -os.path.getsize(f))
        with concurrent.futures.ThreadPoolExecutor(jobs) as pool:
            results = list(pool.map(lambda f: compare(old, new, f), files))
    differences = [d for r in results for d in r]
    for line in differences[:20]:
        print(line)
    print(f"{len(files)} inputs, {len(MODES)} ways each: {len(differences)} differences")
    sys.exit(1 if differences else 0)


if __name__ == "__main__":
    main()
