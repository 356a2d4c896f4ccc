//! Arbitrary bytes to `translate` (validation included): any result is fine, a panic is not.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let _ = spv2wgsl::translate(data, &spv2wgsl::Options::default());
});
