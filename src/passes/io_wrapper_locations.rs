//! Values that share one location through `Component` decorations (GLSL's `layout(location = 0,
//! component = 2)`). WGSL gives each location one value, so such a location becomes one `vec4`
//! of the values' scalar type, each value at its components, the rest unused (zero when
//! written). The rule looks at one stage's declarations only, so that a vertex shader and a
//! fragment shader translated apart still agree: a location is packed when more than one value
//! shares it or a value sits at a component other than 0; it is then always a `vec4`, whatever
//! the components used, since the other stage may use others.

use std::collections::BTreeMap;

use spirv::Op;

use crate::error::{Error, Location};
use crate::spirv::{EntryPoint, IoBinding, IoSource, IoValue, Module, Type};

/// Marks the values of one direction of an entry point's interface that share a location with
/// the component each starts at; the others' `component` becomes `None`. Refuses what one
/// `vec4` cannot hold: overlapping components, floats and integers together, differing
/// interpolation.
pub(super) fn pack(module: &Module, values: &mut [IoValue], entry: &EntryPoint) -> Result<(), Error> {
    let mut at: BTreeMap<(u32, Option<u32>), Vec<usize>> = BTreeMap::new();
    for (i, value) in values.iter().enumerate() {
        if let IoBinding::Location { location, blend_src, .. } = value.binding {
            at.entry((location, blend_src)).or_default().push(i);
        }
    }
    for ((location, _), indices) in at {
        let component = |value: &IoValue| match value.binding {
            IoBinding::Location { component, .. } => component.unwrap_or(0),
            _ => 0,
        };
        let packed = indices.len() > 1 || indices.iter().any(|&i| component(&values[i]) != 0);
        let mut used = [false; 4];
        let mut kind = None;
        for &i in &indices {
            let first = component(&values[i]);
            let refuse = |why: String| {
                let global = match values[i].source {
                    IoSource::Proxy { global, .. } => Some(global),
                    IoSource::Zero => None,
                };
                let at = global.map_or_else(
                    || Location {
                        word_offset: Some(entry.offset),
                        opcode: Some(Op::EntryPoint),
                        ..Location::default()
                    },
                    |id| module.variable_location(id),
                );
                Error::unsupported(format!("`{}` at location {location}, component {first}: {why}", values[i].name), at)
            };
            let (scalar, count) = module.scalar_of(values[i].ty).unwrap_or((values[i].ty, 1));
            let float = matches!(module.type_def(scalar), Some(Type::Float { .. }));
            if packed && *kind.get_or_insert(float) != float {
                return Err(refuse("floats and integers cannot share a location (WGSL gives it one type)".into()));
            }
            for c in first..first + count {
                match used.get_mut(c as usize) {
                    Some(slot) if !*slot => *slot = true,
                    _ => return Err(refuse("it overlaps another value or runs past the 4 components".into())),
                }
            }
            if let IoBinding::Location { component, .. } = &mut values[i].binding {
                *component = packed.then_some(first);
            }
        }
        if packed {
            let interpolation = |i: usize| match &values[i].binding {
                IoBinding::Location { interpolation, .. } => interpolation.clone(),
                _ => None,
            };
            if indices.iter().any(|&i| interpolation(i) != interpolation(indices[0])) {
                return Err(Error::unsupported(
                    format!(
                        "the values sharing location {location} are interpolated differently; WGSL gives a \
                         location one interpolation"
                    ),
                    module.variable_location(match values[indices[0]].source {
                        IoSource::Proxy { global, .. } => global,
                        IoSource::Zero => 0,
                    }),
                ));
            }
        }
    }
    Ok(())
}
