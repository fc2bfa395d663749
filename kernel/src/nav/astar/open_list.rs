//! The grid search's open list: `f` keys quantised to integers, a binary
//! heap with lazy deletion and a one-entry fast lane in front of it.

/// `f` as an open-list key: the nearest multiple of [`super::F_QUANTUM`] (`f` is
/// non-negative, so adding one half and truncating rounds it; `f64::round`
/// would be a library call).
#[inline]
pub(super) fn f_key(f: f64) -> u64 {
    (f * (1u64 << 24) as f64 + 0.5) as u64
}

/// An open-list entry: the `f` key, the tie-break on `g`, and the cell.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Entry {
    f: u64,
    /// The high half of `g`'s float bits, complemented: the bits of a
    /// non-negative float order like the float, so a lower `tie` is a
    /// larger `g` (to 20 significant bits; closer ties fall to heap order).
    tie: u32,
    pub(super) cell: u32,
}

impl Entry {
    /// Ranks above every real entry: pads the heap so the last parent
    /// always has two children.
    const SENTINEL: Self = Self {
        f: u64::MAX,
        tie: u32::MAX,
        cell: u32::MAX,
    };

    pub(super) fn new(f: f64, g: f64, cell: usize) -> Self {
        Self {
            f: f_key(f),
            tie: !((g.to_bits() >> 32) as u32),
            cell: cell as u32,
        }
    }

    /// The order of the open list: lower `f`, then higher `g`, as one
    /// integer (compared without branches).
    #[inline]
    pub(super) fn rank(&self) -> u128 {
        (u128::from(self.f) << 32) | u128::from(self.tie)
    }
}

/// The open list: a binary heap with lazy deletion, and a one-entry fast
/// lane in front of it.
///
/// A cell reached again more cheaply is pushed again; the dearer entry left
/// behind is skipped when it surfaces because its cell is closed by then (no
/// per-cell heap positions to keep up to date on every move). A successor
/// that outranks every open entry — on open ground, the next step straight
/// on — waits in `next` and is expanded without touching the heap.
#[derive(Clone, Debug, Default)]
pub(super) struct OpenList {
    /// Ranks at most every heap entry.
    next: Option<Entry>,
    heap: Heap,
}

impl OpenList {
    pub(super) fn clear(&mut self) {
        self.next = None;
        self.heap.clear();
    }

    pub(super) fn reserve(&mut self, entries: usize) {
        self.heap.reserve(entries);
    }

    pub(super) fn push(&mut self, entry: Entry) {
        let rank = entry.rank();
        match self.next {
            Some(next) if rank < next.rank() => {
                self.next = Some(entry);
                self.heap.push(next);
            }
            Some(_) => self.heap.push(entry),
            None if self.heap.top().is_none_or(|top| rank < top.rank()) => {
                self.next = Some(entry);
            }
            None => self.heap.push(entry),
        }
    }

    pub(super) fn pop(&mut self) -> Option<Entry> {
        self.next.take().or_else(|| self.heap.pop())
    }
}

/// A binary min-heap of entries by rank.
///
/// A pop moves the hole down to a leaf along the smaller children, one
/// branch-free comparison per level, then lifts the heap's last entry into
/// it (Floyd's bottom-up variant: the lift rarely climbs more than a level).
#[derive(Clone, Debug, Default)]
struct Heap {
    /// The heap in `items[..len]`, then [`Entry::SENTINEL`] at `items[len]`.
    items: Vec<Entry>,
    len: usize,
}

impl Heap {
    pub(super) fn clear(&mut self) {
        self.len = 0;
        self.items.clear();
        self.items.push(Entry::SENTINEL);
    }

    pub(super) fn reserve(&mut self, entries: usize) {
        self.items
            .reserve((entries + 1).saturating_sub(self.items.len()));
    }

    pub(super) fn top(&self) -> Option<&Entry> {
        (self.len > 0).then(|| &self.items[0])
    }

    pub(super) fn push(&mut self, entry: Entry) {
        self.items.push(Entry::SENTINEL);
        self.len += 1;
        self.lift(self.len - 1, entry);
    }

    /// Places `entry` at the hole `pos` or above it.
    pub(super) fn lift(&mut self, mut pos: usize, entry: Entry) {
        let rank = entry.rank();
        while pos > 0 {
            let parent = (pos - 1) / 2;
            if rank >= self.items[parent].rank() {
                break;
            }
            self.items[pos] = self.items[parent];
            pos = parent;
        }
        self.items[pos] = entry;
    }

    pub(super) fn pop(&mut self) -> Option<Entry> {
        if self.len == 0 {
            return None;
        }
        let top = self.items[0];
        self.len -= 1;
        let last = self.items[self.len];
        self.items.truncate(self.len + 1);
        self.items[self.len] = Entry::SENTINEL;
        if self.len > 0 {
            let mut pos = 0;
            loop {
                let left = 2 * pos + 1;
                if left >= self.len {
                    break;
                }
                // `left + 1` is at most `len`: the sentinel, never smaller.
                let right_smaller = self.items[left + 1].rank() < self.items[left].rank();
                let child = left + usize::from(right_smaller);
                self.items[pos] = self.items[child];
                pos = child;
            }
            self.lift(pos, last);
        }
        Some(top)
    }
}
