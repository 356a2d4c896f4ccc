//! Arbitrary text to the assembler, and through it to `translate`: a panic is the only failure.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|text: &str| {
    if spv2wgsl::spirv::assemble::assemble(text).is_ok() {
        let _ = spv2wgsl::translate(text.as_bytes(), &spv2wgsl::Options::default());
    }
});
