//! Structure-aware mutation of real modules: the input picks a fixture and a list of word edits
//! (flip bits, overwrite, insert, delete, swap), always keeping the five header words intact, so
//! the loader gets past the header and the mutations reach the passes and the emitter.
#![no_main]

use libfuzzer_sys::fuzz_target;

const SEEDS: &[&[u8]] = &[
    include_bytes!("../../fixtures/glsl/control_flow_switch.comp.opt.spv"),
    include_bytes!("../../fixtures/glsl/control_flow_loops.comp.spv"),
    include_bytes!("../../fixtures/glsl/control_flow_early_return.comp.opt.spv"),
    include_bytes!("../../fixtures/glsl/control_flow_discard.frag.spv"),
    include_bytes!("../../fixtures/glsl/compute_structs.comp.spv"),
    include_bytes!("../../fixtures/glsl/fragment_builtins.frag.spv"),
    include_bytes!("../../fixtures/glsl/conversions.comp.spv"),
    include_bytes!("../../fixtures/glsl/function_params_in_out_inout.comp.opt.spv"),
];

fuzz_target!(|data: &[u8]| {
    let Some((&pick, edits)) = data.split_first() else { return };
    let seed = SEEDS[usize::from(pick) % SEEDS.len()];
    let mut words: Vec<u32> = seed.chunks_exact(4).map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect();
    for edit in edits.chunks_exact(7) {
        let body = words.len() - 5;
        if body == 0 {
            break;
        }
        let at = 5 + usize::from(u16::from_le_bytes([edit[1], edit[2]])) % body;
        let value = u32::from_le_bytes([edit[3], edit[4], edit[5], edit[6]]);
        match edit[0] % 5 {
            0 => words[at] ^= 1 << (value % 32),
            1 => words[at] = value,
            2 => words.insert(at, value),
            3 => {
                words.remove(at);
            }
            _ => {
                let other = 5 + value as usize % body;
                words.swap(at, other);
            }
        }
    }
    let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
    let _ = spv2wgsl::translate(&bytes, &spv2wgsl::Options::default());
});
