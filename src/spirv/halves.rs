//! Loading a large module on two threads: the declarations and the first half of the functions
//! on the caller's, the declarations again and the second half on another, the second half's
//! functions then appended to the first's module. rspirv's parse is about a third of a
//! translation without validation, and the thread that builds naga's IR later
//! (`naga_ir/worker.rs`) has nothing to do yet. The halves meet where the middle falls: between
//! two functions, or inside a block of one long function, which the second half goes on with.
//!
//! The result is the module the one-thread read gives, or nothing, and the caller reads it on one
//! thread: each half is read as the one-thread read reads those instructions, from the same state
//! (the declarations read, and no function open, or the function and its block open, which the
//! second half opens by reading their OpFunction and OpLabel again), so where both halves are read
//! without error, the first stops where the second starts, and they define no id twice between
//! them, the one-thread read would have read the same. Any error, or an id defined in both halves,
//! and the one-thread read says what and where.

use std::thread;

use spirv::Op;

use super::load::{Open, Read, is_terminator, read, read_part};
use super::module::{Block, Def};

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
    read_split(words, stream, offsets, first, split)
}

/// Where the second half begins.
#[derive(Clone, Copy, Debug)]
struct Split {
    /// The index of its first instruction.
    at: usize,
    /// Inside a function: the indices of the function's OpFunction and of the OpLabel of the block
    /// open there, which the second half reads first.
    within: Option<(usize, usize)>,
}

/// `words` read in two halves that meet at `split`, `first` being the index of the first
/// OpFunction.
fn read_split(words: &[u32], stream: &[u32], offsets: &[u32], first: usize, split: Split) -> Option<Read> {
    // The second half's stream: the declarations, the function and block it goes on with, then
    // its own instructions; and where each of those instructions is in `words`.
    let again: Vec<usize> = split.within.map_or(Vec::new(), |(function, label)| vec![function, label]);
    let (declarations_end, split_at) = (offsets[first] as usize, offsets[split.at] as usize);
    let mut pieces = vec![&stream[..declarations_end]];
    pieces.extend(again.iter().map(|&i| {
        let at = offsets[i] as usize;
        &stream[at..at + (stream[at] >> 16) as usize]
    }));
    pieces.push(&stream[split_at..]);
    let second_stream = pieces.concat();
    let second_offsets: Vec<u32> = offsets[..first]
        .iter()
        .chain(again.iter().map(|&i| &offsets[i]))
        .chain(&offsets[split.at..])
        .copied()
        .collect();
    thread::scope(|scope| {
        let second = thread::Builder::new()
            .name("loading".into())
            .spawn_scoped(scope, || read(words, &second_stream, &second_offsets))
            .ok()?;
        // All the offsets: the read sizes a function's lists by its instructions (`begin_function`),
        // so the function the second half goes on with is allocated whole, not grown to take the
        // rest.
        let first_half = read_part(words, &stream[..split_at], offsets);
        let second_half = second.join().ok()?;
        let (first_half, open) = first_half.ok()?;
        // The first half stops where the second goes on: outside a function, or in the last
        // block of the last function. (The second half opens a block with the OpLabel read again,
        // but only to go on reading: the first half's block keeps its own label.)
        let last = first_half.module.functions.len().checked_sub(1);
        let block = last.map(|f| &first_half.module.functions[f].blocks).and_then(|blocks| blocks.len().checked_sub(1));
        if open != split.within.and(last.map(|function| Open { function, block })) {
            return None;
        }
        appended(first_half, second_half.ok()?, split.within.is_some())
    })
}

/// The index of the first OpFunction and where the second half begins (the first place it can at
/// or past the middle of the functions' words), if the module is worth reading in halves:
/// functions of `from` words or more, with declarations of at most a quarter of that (read
/// twice).
fn halves(words: &[u32], offsets: &[u32], from: usize) -> Option<(usize, Split)> {
    let first = first_function(words, offsets)?;
    let declarations = offsets[first] as usize;
    let functions = words.len() - declarations;
    if functions < from || declarations > functions / 4 {
        return None;
    }
    let middle = offsets.partition_point(|&at| (at as usize) < declarations + functions / 2);
    Some((first, split_from(words, offsets, first, middle)?))
}

/// The index of the first OpFunction of `words`, whose instructions are at `offsets`.
fn first_function(words: &[u32], offsets: &[u32]) -> Option<usize> {
    (0..offsets.len()).find(|&i| words[offsets[i] as usize] & 0xffff == Op::Function as u32)
}

/// The first place at or past instruction `from` where the second half can begin: an OpFunction,
/// or inside a block. The functions from instruction `first` are followed as the read follows
/// them (an OpLabel or OpFunctionEnd inside an open block is read as one of its instructions);
/// `None` where anything is between functions, which the halves would not read as one thread
/// does.
fn split_from(words: &[u32], offsets: &[u32], first: usize, from: usize) -> Option<Split> {
    let (function, end, label) = (Op::Function as u32, Op::FunctionEnd as u32, Op::Label as u32);
    // The OpFunction of the function being read, and the OpLabel of its open block.
    let (mut inside, mut open): (Option<usize>, Option<usize>) = (None, None);
    let mut split = None;
    for i in first..offsets.len() {
        let op = words[offsets[i] as usize] & 0xffff;
        if split.is_none() && i >= from {
            split = match (inside, open) {
                (None, _) if op == function => Some(Split { at: i, within: None }),
                (Some(function), Some(label)) => Some(Split { at: i, within: Some((function, label)) }),
                _ => None,
            };
        }
        match (inside, open) {
            (None, _) if op == function => inside = Some(i),
            (None, _) => return None,
            (Some(_), Some(_)) if Op::from_u32(op).is_some_and(is_terminator) => open = None,
            (Some(_), Some(_)) => {}
            (Some(_), None) if op == label => open = Some(i),
            (Some(_), None) if op == end => inside = None,
            (Some(_), None) => {}
        }
    }
    split
}

/// The module of `first` with the functions of `second` after its own, and their definitions;
/// where `continued`, the second's first function is the rest of the first's last, and its first
/// block the rest of that function's last. `None` if an id is defined in both.
fn appended(mut first: Read, second: Read, continued: bool) -> Option<Read> {
    let base = first.module.functions.len().checked_sub(usize::from(continued))?;
    // Where the continued function's instructions and blocks from the second half go.
    let (insts, blocks) = match first.module.functions.last().filter(|_| continued) {
        Some(last) => (last.insts.len(), last.blocks.len().checked_sub(1)?),
        None => (0, 0),
    };
    let continues = |function: u32| continued && function == 0;
    let shifted = |function: u32| function + base as u32;
    for (def, defined) in second.module.defs.into_iter().zip(&mut first.module.defs) {
        let def = match def {
            // The continued function and block, read again by the second half.
            Def::Function(0) | Def::Label { function: 0, block: 0 } if continued => continue,
            Def::Function(index) => Def::Function(base + index),
            Def::Param { function, ty } => Def::Param { function: shifted(function), ty },
            Def::Value { function, inst, ty } => {
                let inst = if continues(function) { inst + insts as u32 } else { inst };
                Def::Value { function: shifted(function), inst, ty }
            }
            Def::Label { function, block } => {
                let block = if continues(function) { block + blocks as u32 } else { block };
                Def::Label { function: shifted(function), block }
            }
            // The declarations, which both halves read.
            _ => continue,
        };
        if !matches!(defined, Def::None) {
            return None;
        }
        *defined = def;
    }
    let mut functions = second.module.functions.into_iter();
    if continued {
        let rest = functions.next()?;
        let last = first.module.functions.last_mut()?;
        let shift = |index: usize| if index == usize::MAX { index } else { index + insts };
        let mut rest_blocks = rest.blocks.into_iter().map(|mut block| {
            block.insts.iter_mut().for_each(|index| *index = shift(*index));
            Block { merge: block.merge.map(shift), terminator: shift(block.terminator), ..block }
        });
        let open = last.blocks.last_mut()?;
        let goes_on = rest_blocks.next()?;
        open.insts.extend(goes_on.insts);
        // A later merge instruction replaces an earlier, as in the one-thread read.
        open.merge = goes_on.merge.or(open.merge);
        open.terminator = goes_on.terminator;
        last.blocks.extend(rest_blocks);
        last.insts.extend(rest.insts);
        last.params.extend(rest.params);
    }
    first.module.functions.extend(functions);
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

    /// A module of `count` functions of four blocks each: a selection, its arms and its merge;
    /// `between` (with `{f}` for the function's number) between the last two.
    fn branching_functions(count: u32, between: &str) -> Vec<u32> {
        let mut text = String::from(
            "OpCapability Shader\nOpMemoryModel Logical GLSL450\n%void = OpTypeVoid\n%fn = OpTypeFunction %void\n\
             %u32 = OpTypeInt 32 0\n%bool = OpTypeBool\n%one = OpConstant %u32 1\n",
        );
        for f in 0..count {
            text += &format!(
                "%f{f} = OpFunction %void None %fn\n%entry{f} = OpLabel\n%a{f} = OpIAdd %u32 %one %one\n\
                 %c{f} = OpULessThan %bool %a{f} %one\nOpSelectionMerge %merge{f} None\n\
                 OpBranchConditional %c{f} %then{f} %else{f}\n%then{f} = OpLabel\n%b{f} = OpIAdd %u32 %a{f} %one\n\
                 OpBranch %merge{f}\n%else{f} = OpLabel\nOpBranch %merge{f}\n{between}%merge{f} = OpLabel\n\
                 %d{f} = OpIMul %u32 %a{f} %a{f}\n%e{f} = OpIMul %u32 %d{f} %d{f}\nOpReturn\nOpFunctionEnd\n",
                between = between.replace("{f}", &f.to_string())
            );
        }
        crate::read_words(text.as_bytes()).expect("assembles")
    }

    /// `words` read in halves that meet at each place they can.
    fn at_every_split(words: &[u32]) -> Vec<(Split, Option<Read>)> {
        let (offsets, _) = instruction_offsets(words);
        let first = first_function(words, &offsets).expect("a function");
        let mut splits: Vec<Split> =
            (first..offsets.len()).filter_map(|from| split_from(words, &offsets, first, from)).collect();
        splits.dedup_by_key(|split| split.at);
        splits.into_iter().map(|split| (split, read_split(words, words, &offsets, first, split))).collect()
    }

    #[test]
    fn halves_meeting_between_functions_or_inside_a_block_are_the_module_read_whole() {
        let words = branching_functions(2, "");
        let (_, whole) = both(&words);
        let whole = whole.expect("read whole").module;
        let (mut between, mut inside) = (0, 0);
        for (split, halves) in at_every_split(&words) {
            let halves = halves.expect("read in halves").module;
            assert_eq!(format!("{:?}", halves.functions), format!("{:?}", whole.functions), "{split:?}");
            assert_eq!(format!("{:?}", halves.defs), format!("{:?}", whole.defs), "{split:?}");
            match split.within {
                None => between += 1,
                Some(_) => inside += 1,
            }
        }
        // Both functions' OpFunction, and every instruction of a block after its OpLabel.
        assert_eq!((between, inside), (2, 2 * 10));
    }

    #[test]
    fn a_parameter_between_blocks_stays_its_function_s_in_halves() {
        // Not valid SPIR-V, but read: the validator's message names it.
        let words = branching_functions(1, "%p{f} = OpFunctionParameter %u32\n");
        let (_, whole) = both(&words);
        let whole = whole.expect("read whole").module;
        assert_eq!(whole.functions[0].params.len(), 1);
        for (split, halves) in at_every_split(&words) {
            let halves = halves.expect("read in halves").module;
            assert_eq!(format!("{:?}", halves.functions), format!("{:?}", whole.functions), "{split:?}");
        }
    }

    #[test]
    fn a_split_where_the_first_half_does_not_stop_is_refused() {
        let words = branching_functions(1, "");
        let (offsets, _) = instruction_offsets(&words);
        let first = first_function(&words, &offsets).expect("a function");
        let labels: Vec<usize> =
            (first..offsets.len()).filter(|&i| words[offsets[i] as usize] & 0xffff == Op::Label as u32).collect();
        // At the merge block's OpLabel, where no block is open.
        let closed = Split { at: labels[3], within: Some((first, labels[2])) };
        assert!(read_split(&words, &words, &offsets, first, closed).is_none());
        // Inside a function, as if between two.
        let open = Split { at: labels[3] + 1, within: None };
        assert!(read_split(&words, &words, &offsets, first, open).is_none());
    }

    #[test]
    fn an_id_defined_twice_in_a_function_split_in_halves_is_left_to_the_one_thread_read() {
        // The last product gets the id of the first sum.
        let mut words = branching_functions(1, "");
        let (adds, products) = (instructions(&words, Op::IAdd), instructions(&words, Op::IMul));
        words[products[1] + 2] = words[adds[0] + 2];
        for (split, halves) in at_every_split(&words) {
            assert!(halves.is_none(), "{split:?}");
        }
        let error = load(&words).expect_err("defined twice").to_string();
        assert!(error.contains("defined twice"), "{error}");
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
