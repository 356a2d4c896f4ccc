//! Decorations of an id or a struct member, gathered into fields as the translation reads them.

use spirv::{BuiltIn, Decoration as D};

/// The decorations of an id or of a struct member, gathered into fields.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Decorations {
    pub location: Option<u32>,
    pub component: Option<u32>,
    pub index: Option<u32>,
    pub binding: Option<u32>,
    pub set: Option<u32>,
    pub builtin: Option<BuiltIn>,
    pub offset: Option<u32>,
    pub array_stride: Option<u32>,
    pub matrix_stride: Option<u32>,
    pub spec_id: Option<u32>,
    pub row_major: bool,
    pub block: bool,
    pub buffer_block: bool,
    pub non_writable: bool,
    pub non_readable: bool,
    pub flat: bool,
    pub no_perspective: bool,
    pub centroid: bool,
    pub sample: bool,
    pub invariant: bool,
}

impl Decorations {
    /// Records one decoration; ones that do not change the translation are ignored.
    pub fn add(&mut self, decoration: D, value: Option<u32>, builtin: Option<BuiltIn>) {
        match decoration {
            D::Location => self.location = value,
            D::Component => self.component = value,
            D::Index => self.index = value,
            D::Binding => self.binding = value,
            D::DescriptorSet => self.set = value,
            D::BuiltIn => self.builtin = builtin,
            D::Offset => self.offset = value,
            D::ArrayStride => self.array_stride = value,
            D::MatrixStride => self.matrix_stride = value,
            D::SpecId => self.spec_id = value,
            D::RowMajor => self.row_major = true,
            D::ColMajor => self.row_major = false,
            D::Block => self.block = true,
            D::BufferBlock => self.buffer_block = true,
            D::NonWritable => self.non_writable = true,
            D::NonReadable => self.non_readable = true,
            D::Flat => self.flat = true,
            D::NoPerspective => self.no_perspective = true,
            D::Centroid => self.centroid = true,
            D::Sample => self.sample = true,
            D::Invariant => self.invariant = true,
            _ => {}
        }
    }

    /// Adds the decorations `other` has (a decoration group's) to these.
    pub fn merge(&mut self, other: &Decorations) {
        let values = [
            (&mut self.location, other.location),
            (&mut self.component, other.component),
            (&mut self.index, other.index),
            (&mut self.binding, other.binding),
            (&mut self.set, other.set),
            (&mut self.offset, other.offset),
            (&mut self.array_stride, other.array_stride),
            (&mut self.matrix_stride, other.matrix_stride),
            (&mut self.spec_id, other.spec_id),
        ];
        for (mine, theirs) in values {
            *mine = theirs.or(*mine);
        }
        self.builtin = other.builtin.or(self.builtin);
        let flags = [
            (&mut self.row_major, other.row_major),
            (&mut self.block, other.block),
            (&mut self.buffer_block, other.buffer_block),
            (&mut self.non_writable, other.non_writable),
            (&mut self.non_readable, other.non_readable),
            (&mut self.flat, other.flat),
            (&mut self.no_perspective, other.no_perspective),
            (&mut self.centroid, other.centroid),
            (&mut self.sample, other.sample),
            (&mut self.invariant, other.invariant),
        ];
        for (mine, theirs) in flags {
            *mine |= theirs;
        }
    }
}

pub(super) static NO_DECORATIONS: Decorations = Decorations {
    location: None,
    component: None,
    index: None,
    binding: None,
    set: None,
    builtin: None,
    offset: None,
    array_stride: None,
    matrix_stride: None,
    spec_id: None,
    row_major: false,
    block: false,
    buffer_block: false,
    non_writable: false,
    non_readable: false,
    flat: false,
    no_perspective: false,
    centroid: false,
    sample: false,
    invariant: false,
};
