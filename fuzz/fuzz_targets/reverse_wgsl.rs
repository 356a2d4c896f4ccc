//! Arbitrary text to the reverse path (WGSL to SPIR-V): an error is fine, a panic is not.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|text: &str| {
    let _ = spv2wgsl::reverse::compile(text, &spv2wgsl::reverse::Options::default());
});
