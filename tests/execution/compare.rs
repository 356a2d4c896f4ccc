//! Comparing what the WGSL computed with what the SPIR-V computed: storage
//! buffers word by word (bit for bit unless the case allows f32 ULPs), render
//! targets pixel by pixel (exact for integer formats, within the case's
//! tolerance for unorm and float ones). A failure names the first differing
//! element, its index and both values.

use crate::case::{Case, ChannelKind, TexelFormat};

/// What a run leaves behind.
#[derive(Debug)]
pub struct Outputs {
    /// Every storage buffer's bytes, by binding.
    pub buffers: Vec<(u32, Vec<u8>)>,
    /// Every colour attachment's pixels, rows top to bottom, by location.
    pub targets: Vec<Vec<u8>>,
}

fn words(bytes: &[u8]) -> Vec<u32> {
    bytes.chunks_exact(4).map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect()
}

/// A word in every reading a shader might have meant.
fn show(word: u32) -> String {
    format!("0x{word:08x} (i32 {}, u32 {word}, f32 {:e})", word as i32, f32::from_bits(word))
}

/// Distance between two f32s in units in the last place (bit patterns
/// mapped to a monotonic integer line, so -0.0 and 0.0 are 0 apart).
fn ulp_distance(a: u32, b: u32) -> u64 {
    let line = |w: u32| -> i64 { if w & 0x8000_0000 != 0 { -i64::from(w & 0x7FFF_FFFF) } else { i64::from(w) } };
    line(a).abs_diff(line(b))
}

/// Fails when the reference run left an all-zero buffer untouched or drew
/// nothing: the comparison would then prove nothing.
pub fn check_reference(case: &Case, reference: &Outputs) -> Result<(), String> {
    for (binding, bytes) in &reference.buffers {
        let initial = case.initial_contents(*binding).unwrap_or_default();
        if initial.iter().all(|w| *w == 0) && bytes.iter().all(|b| *b == 0) {
            return Err(format!(
                "the SPIR-V run left storage buffer {binding} all zero: the test checks nothing there"
            ));
        }
    }
    for (location, pixels) in reference.targets.iter().enumerate() {
        if pixels.iter().all(|b| *b == 0) {
            return Err(format!("the SPIR-V run drew nothing into target {location}"));
        }
    }
    Ok(())
}

/// Checks a run's storage buffers against the case's `cpu` lines, if any.
pub fn against_cpu(case: &Case, outputs: &Outputs, run: &str) -> Result<(), String> {
    for (binding, stated) in &case.cpu {
        let Some((_, got)) = outputs.buffers.iter().find(|(b, _)| b == binding) else {
            return Err(format!("the {run} run has no storage buffer {binding}"));
        };
        compare_words(*binding, "the CPU model", stated, run, &words(got), 0)?;
    }
    Ok(())
}

pub fn compare(case: &Case, reference: &Outputs, actual: &Outputs) -> Result<(), String> {
    for (binding, expected) in &reference.buffers {
        let Some((_, got)) = actual.buffers.iter().find(|(b, _)| b == binding) else {
            return Err(format!("the WGSL run has no storage buffer {binding}"));
        };
        match case.expect.get(binding) {
            Some(stated) => compare_words(*binding, "the stated result", stated, "WGSL", &words(got), 0)?,
            None => {
                let ulp = case.ulp.get(binding).copied().unwrap_or(0);
                compare_words(*binding, "SPIR-V", &words(expected), "WGSL", &words(got), ulp)?
            }
        }
    }
    let render = case.render.as_ref();
    for (location, (expected, got)) in reference.targets.iter().zip(&actual.targets).enumerate() {
        let render = render.expect("only render pairs have targets");
        let format = render.targets[location];
        compare_pixels(location, format, render.width, expected, got, case.tolerance)?;
    }
    Ok(())
}

fn compare_words(
    binding: u32,
    reference_name: &str,
    reference: &[u32],
    actual_name: &str,
    actual: &[u32],
    ulp: u32,
) -> Result<(), String> {
    if reference.len() != actual.len() {
        return Err(format!(
            "storage buffer {binding}: {reference_name} has {} words, {actual_name} {}",
            reference.len(),
            actual.len()
        ));
    }
    let differs = |(a, b): (&u32, &u32)| a != b && ulp_distance(*a, *b) > u64::from(ulp);
    let count = reference.iter().zip(actual).filter(|pair| differs(*pair)).count();
    match reference.iter().zip(actual).position(differs) {
        None => Ok(()),
        Some(index) => Err(format!(
            "storage buffer {binding}, element {index} (byte {}) differs{}:\n  {reference_name:>18}: {}\n  {actual_name:>18}: {}\n  ({count} of {} elements differ)",
            index * 4,
            if ulp > 0 { format!(" by more than {ulp} ULP") } else { String::new() },
            show(reference[index]),
            show(actual[index]),
            reference.len()
        )),
    }
}

fn compare_pixels(
    location: usize,
    format: TexelFormat,
    width: u32,
    reference: &[u8],
    actual: &[u8],
    tolerance: u32,
) -> Result<(), String> {
    let info = format.info();
    let texel = info.bytes_per_texel as usize;
    let channels = |bytes: &[u8]| -> Vec<u32> {
        match info.channel {
            ChannelKind::Unorm8 => bytes.iter().map(|b| u32::from(*b)).collect(),
            ChannelKind::Unorm16 => bytes.chunks(2).map(|c| u32::from(u16::from_le_bytes([c[0], c[1]]))).collect(),
            ChannelKind::Float32 | ChannelKind::Integer32 => words(bytes),
        }
    };
    let close = |a: u32, b: u32| match info.channel {
        ChannelKind::Unorm8 | ChannelKind::Unorm16 => a.abs_diff(b) <= tolerance,
        ChannelKind::Float32 => ulp_distance(a, b) <= u64::from(tolerance),
        ChannelKind::Integer32 => a == b,
    };
    let differs = |(a, b): (&[u8], &[u8])| channels(a).into_iter().zip(channels(b)).any(|(x, y)| !close(x, y));
    let pairs = || reference.chunks(texel).zip(actual.chunks(texel));
    let count = pairs().filter(|p| differs(*p)).count();
    let Some(index) = pairs().position(differs) else {
        return Ok(());
    };
    let (x, y) = (index % width as usize, index / width as usize);
    let flipped = is_vertical_flip(reference, actual, width as usize * texel);
    Err(format!(
        "target {location} ({}), pixel ({x}, {y}) differs{}:\n  SPIR-V: {:?}\n    WGSL: {:?}\n  ({count} of {} pixels differ){}",
        info.name,
        if tolerance > 0 && info.channel != ChannelKind::Integer32 {
            format!(" by more than {tolerance}")
        } else {
            String::new()
        },
        channels(&reference[index * texel..][..texel]),
        channels(&actual[index * texel..][..texel]),
        reference.len() / texel,
        if flipped {
            "\n  The WGSL image is the SPIR-V image upside down: Vulkan's clip space has y pointing down, \
             WebGPU's up, so a translation must negate the position's y."
        } else {
            ""
        }
    ))
}

fn is_vertical_flip(reference: &[u8], actual: &[u8], row_bytes: usize) -> bool {
    reference.chunks(row_bytes).zip(actual.chunks(row_bytes).rev()).all(|(a, b)| a == b)
}
