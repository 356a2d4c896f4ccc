//! Sizes Tint (the WGSL compiler of Chrome and Dawn) rejects in WGSL that naga takes, checked where
//! the lowering writes them: WGSL that naga accepts but Tint rejects would not run on most WebGPU
//! implementations, so such a module is refused instead.
//!
//! - An array constructor of more than 32767 elements (`lower/emit.rs` for constants,
//!   `lower/instruction.rs` for `OpCompositeConstruct`). WGSL allows arrays that long (Tint takes
//!   counts up to 65535 outside storage memory, `passes/array_counts.rs`) and their zero value
//!   `array<T, N>()`, but has no other way to spell a value of that many elements.
//! - A struct of more than 16383 members (`lower/emit.rs`).

/// The most elements of an array constructor Tint takes.
pub const TINT_MAX_ELEMENTS: usize = 32767;

/// The most members of a struct Tint takes.
pub const TINT_MAX_MEMBERS: usize = 16383;

/// Why an array constructor of `count` elements cannot be written, if Tint rejects it; `what`
/// names the array.
pub fn too_many_elements(count: usize, what: impl FnOnce() -> String) -> Option<String> {
    (count > TINT_MAX_ELEMENTS).then(|| {
        format!(
            "{} is an array of {count} elements, which WGSL can only write as a constructor of them all: Tint \
             (the WGSL compiler of Chrome's WebGPU) takes at most {TINT_MAX_ELEMENTS} elements in an array \
             constructor",
            what()
        )
    })
}

/// Why a struct of `count` members cannot be declared, if Tint rejects it.
pub fn too_many_members(count: usize) -> Option<String> {
    (count > TINT_MAX_MEMBERS).then(|| {
        format!(
            "{count} members in WGSL: Tint (the WGSL compiler of Chrome's WebGPU) takes at most \
             {TINT_MAX_MEMBERS}"
        )
    })
}
