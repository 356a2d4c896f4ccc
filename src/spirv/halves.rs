//! Loading a large module on two threads: the declarations and the first half of the functions
//! on the caller's, the declarations again and the second half on another, the second half's
//! functions then appended to the first's module. rspirv's parse is about a third of a mixed
//! module's translation, and the thread that builds naga's IR later (`naga_ir/worker.rs`) has
//! nothing to do yet.
//!
//! The result is the module the one-thread read gives, or nothing, and the caller reads it on one
//! thread: each half is read as the one-thread read reads those instructions, from the same state
//! (the declarations read, no function open), so where both halves are read without error and
//! define no id twice between them, the one-thread read would have read the same. Any error, or
//! an id defined in both halves, and the one-thread read says what and where.

use std::thread;

use spirv::Op;

use super::load::{Read, read};
use super::module::Def;

/// The words of functions from which a module is read in halves (1 MiB): below, the second
/// thread costs about what it saves (mixed 1 MB: 37.5 ms either way).
const FROM: usize = 256 << 10;

/// `words` read in halves, as `load::read` reads it whole (its instructions at `offsets`,
/// parsed by rspirv as `stream`); `None` where the module is too small, its declarations too
/// large, or the one-thread read must say why it is not read.
pub(super) fn read_in_halves(words: &[u32], stream: &[u32], offsets: &[u32]) -> Option<Read> {
    read_in_halves_from(words, stream, offsets, FROM)
}

/// [`read_in_halves`] from `from` words of functions.
fn read_in_halves_from(words: &[u32], stream: &[u32], offsets: &[u32], from: usize) -> Option<Read> {
    let (first, split) = halves(words, offsets, from)?;
    // The declarations, then the second half: rspirv's stream and where each instruction is.
    let (declarations_end, split_at) = (offsets[first] as usize, offsets[split] as usize);
    let second_stream = [&stream[..declarations_end], &stream[split_at..]].concat();
    let second_offsets = [&offsets[..first], &offsets[split..]].concat();
    thread::scope(|scope| {
        let second = thread::Builder::new()
            .name("loading".into())
            .spawn_scoped(scope, || read(words, &second_stream, &second_offsets))
            .ok()?;
        let first_half = read(words, &stream[..split_at], &offsets[..split]);
        let second_half = second.join().ok()?;
        appended(first_half.ok()?, second_half.ok()?)
    })
}

/// The index of the first OpFunction and of the one that begins the second half (the first at or
/// past the middle of the functions' words), if the module is worth reading in halves: functions
/// of `from` words or more, with declarations of at most a quarter of that (read twice), and
/// nothing between its functions (where a module has something there, the halves would not read
/// it as one thread does).
fn halves(words: &[u32], offsets: &[u32], from: usize) -> Option<(usize, usize)> {
    let opcode = |i: usize| words[offsets[i] as usize] & 0xffff;
    let (function, end) = (Op::Function as u32, Op::FunctionEnd as u32);
    let first = (0..offsets.len()).find(|&i| opcode(i) == function)?;
    let declarations = offsets[first] as usize;
    let functions = words.len() - declarations;
    if functions < from || declarations > functions / 4 {
        return None;
    }
    let mut inside = false;
    for i in first..offsets.len() {
        match opcode(i) {
            op if op == function && !inside => inside = true,
            op if op == end => inside = false,
            _ if inside => {}
            _ => return None,
        }
    }
    let middle = offsets.partition_point(|&at| (at as usize) < declarations + functions / 2);
    let split = (middle..offsets.len()).find(|&i| opcode(i) == function)?;
    Some((first, split))
}

/// The module of `first` with the functions of `second` after its own, and their definitions;
/// `None` if an id is defined in both.
fn appended(mut first: Read, second: Read) -> Option<Read> {
    let base = first.module.functions.len();
    let shifted = |function: u32| function + base as u32;
    for (def, defined) in second.module.defs.into_iter().zip(&mut first.module.defs) {
        let def = match def {
            Def::Function(index) => Def::Function(base + index),
            Def::Param { function, ty } => Def::Param { function: shifted(function), ty },
            Def::Value { function, inst, ty } => Def::Value { function: shifted(function), inst, ty },
            Def::Label { function, block } => Def::Label { function: shifted(function), block },
            // The declarations, which both halves read.
            _ => continue,
        };
        if !matches!(defined, Def::None) {
            return None;
        }
        *defined = def;
    }
    first.module.functions.extend(second.module.functions);
    Some(first)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::spirv::load::{instruction_offsets, load, read};

    /// A module of `count` functions, each adding two constants.
    fn functions(count: u32) -> Vec<u32> {
        let mut text = String::from(
            "OpCapability Shader\nOpMemoryModel Logical GLSL450\n%void = OpTypeVoid\n%fn = OpTypeFunction %void\n\
             %u32 = OpTypeInt 32 0\n%one = OpConstant %u32 1\n",
        );
        for f in 0..count {
            text += &format!(
                "%f{f} = OpFunction %void None %fn\n%l{f} = OpLabel\n%s{f} = OpIAdd %u32 %one %one\nOpReturn\nOpFunctionEnd\n"
            );
        }
        crate::read_words(text.as_bytes()).expect("assembles")
    }

    /// The word offsets of the instructions `op` in `words`.
    fn instructions(words: &[u32], op: Op) -> Vec<usize> {
        let (offsets, _) = instruction_offsets(words);
        offsets.into_iter().map(|at| at as usize).filter(|&at| words[at] & 0xffff == op as u32).collect()
    }

    /// `words` read in halves from 16 words of functions, and read whole.
    fn both(words: &[u32]) -> (Option<Read>, Result<Read, crate::Error>) {
        let (offsets, _) = instruction_offsets(words);
        (read_in_halves_from(words, words, &offsets, 16), read(words, words, &offsets))
    }

    #[test]
    fn a_module_read_in_halves_is_the_module_read_whole() {
        let words = functions(8);
        let (halves, whole) = both(&words);
        let (halves, whole) = (halves.expect("read in halves").module, whole.expect("read whole").module);
        assert_eq!(halves.functions.len(), 8);
        assert_eq!(format!("{:?}", halves.functions), format!("{:?}", whole.functions));
        assert_eq!(format!("{:?}", halves.defs), format!("{:?}", whole.defs));
    }

    #[test]
    fn an_id_defined_in_both_halves_is_left_to_the_one_thread_read() {
        // The last function's sum gets the id of the first's.
        let mut words = functions(8);
        let sums = instructions(&words, Op::IAdd);
        words[sums[7] + 2] = words[sums[0] + 2];
        let (halves, _) = both(&words);
        assert!(halves.is_none());
        let error = load(&words).expect_err("defined twice").to_string();
        assert!(error.contains("defined twice"), "{error}");
    }

    #[test]
    fn a_module_with_anything_between_its_functions_is_left_to_the_one_thread_read() {
        // An OpName after the last function: the second half would read it, and the first
        // half's module keep none of it.
        let mut words = functions(8);
        let f0 = words[instructions(&words, Op::Function)[0] + 2];
        words.extend_from_slice(&[3 << 16 | Op::Name as u32, f0, u32::from(b'f')]);
        let (halves, whole) = both(&words);
        assert!(halves.is_none());
        assert_eq!(whole.expect("read whole").module.name(f0), Some("f"));
    }
}
