//! An instruction's operands: up to three in place, more on the heap. Nearly every instruction
//! of a function has three operands or fewer, so loading one allocates nothing for them (an
//! allocation per instruction was a tenth of loading, and as much again to free).

use std::ops::{Deref, DerefMut};

use super::module::Operand;

/// How many operands are kept in place.
const INLINE: usize = 3;

/// A list of operands that reads as a slice.
#[derive(Clone)]
pub struct Operands(Repr);

#[derive(Clone)]
enum Repr {
    Inline { len: u8, items: [Operand; INLINE] },
    Heap(Box<[Operand]>),
}

// In place they take what a boxed slice and its heap block took together, less.
const _: () = assert!(std::mem::size_of::<Operands>() <= 32);

impl Default for Operands {
    fn default() -> Self {
        Operands(Repr::Inline { len: 0, items: [Operand::Other; INLINE] })
    }
}

impl Deref for Operands {
    type Target = [Operand];
    fn deref(&self) -> &[Operand] {
        match &self.0 {
            Repr::Inline { len, items } => &items[..usize::from(*len)],
            Repr::Heap(items) => items,
        }
    }
}

impl DerefMut for Operands {
    fn deref_mut(&mut self) -> &mut [Operand] {
        match &mut self.0 {
            Repr::Inline { len, items } => &mut items[..usize::from(*len)],
            Repr::Heap(items) => items,
        }
    }
}

impl<'a> IntoIterator for &'a Operands {
    type Item = &'a Operand;
    type IntoIter = std::slice::Iter<'a, Operand>;
    fn into_iter(self) -> Self::IntoIter {
        self.iter()
    }
}

impl<'a> IntoIterator for &'a mut Operands {
    type Item = &'a mut Operand;
    type IntoIter = std::slice::IterMut<'a, Operand>;
    fn into_iter(self) -> Self::IntoIter {
        self.iter_mut()
    }
}

impl Operands {
    /// The operands `convert` makes of `items`, one each. Built straight from the slice: stepping
    /// an iterator through `collect` cost as much again (this runs for every instruction loaded).
    pub fn converted<T>(items: &[T], convert: impl Fn(&T) -> Operand) -> Self {
        if items.len() > INLINE {
            return Operands(Repr::Heap(items.iter().map(convert).collect()));
        }
        let mut inline = [Operand::Other; INLINE];
        for (slot, item) in inline.iter_mut().zip(items) {
            *slot = convert(item);
        }
        Operands(Repr::Inline { len: items.len() as u8, items: inline })
    }
}

impl From<&[Operand]> for Operands {
    fn from(operands: &[Operand]) -> Self {
        Operands::converted(operands, |&operand| operand)
    }
}

impl From<Vec<Operand>> for Operands {
    fn from(operands: Vec<Operand>) -> Self {
        if operands.len() <= INLINE {
            Operands::from(&operands[..])
        } else {
            Operands(Repr::Heap(operands.into_boxed_slice()))
        }
    }
}

impl<const N: usize> From<[Operand; N]> for Operands {
    fn from(operands: [Operand; N]) -> Self {
        Operands::from(&operands[..])
    }
}

impl FromIterator<Operand> for Operands {
    fn from_iter<I: IntoIterator<Item = Operand>>(iter: I) -> Self {
        let mut iter = iter.into_iter();
        // A list known to be long is allocated once at its length, not grown from the first few.
        if iter.size_hint().0 > INLINE {
            return Operands(Repr::Heap(iter.collect()));
        }
        let mut items = [Operand::Other; INLINE];
        for (len, slot) in items.iter_mut().enumerate() {
            match iter.next() {
                Some(operand) => *slot = operand,
                None => return Operands(Repr::Inline { len: len as u8, items }),
            }
        }
        match iter.next() {
            None => Operands(Repr::Inline { len: INLINE as u8, items }),
            Some(next) => Operands(Repr::Heap(items.into_iter().chain([next]).chain(iter).collect())),
        }
    }
}

impl PartialEq for Operands {
    fn eq(&self, other: &Self) -> bool {
        **self == **other
    }
}

impl std::fmt::Debug for Operands {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_and_long_lists_read_back_as_given() {
        for len in 0..7 {
            let list: Vec<Operand> = (0..len).map(Operand::LiteralBit32).collect();
            assert_eq!(&*Operands::from(&list[..]), &list[..]);
            assert_eq!(&*list.iter().copied().collect::<Operands>(), &list[..]);
            assert_eq!(&*Operands::from(list.clone()), &list[..]);
            let numbers: Vec<u32> = (0..len).collect();
            assert_eq!(&*Operands::converted(&numbers, |&n| Operand::LiteralBit32(n)), &list[..]);
        }
        let mut operands = Operands::from([Operand::IdRef(1), Operand::IdRef(2)]);
        operands[1] = Operand::IdRef(3);
        assert_eq!(&*operands, &[Operand::IdRef(1), Operand::IdRef(3)]);
    }
}
