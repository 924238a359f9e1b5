//! Batches of splits read out of order by several readers, handed on in plan order: a split's
//! batches go on once every earlier split's have, and a split read elsewhere only once it has
//! ended (so a reader that fails halfway can be replaced without rows handed on twice).

use std::collections::VecDeque;

/// The batches of one split.
#[derive(Debug)]
struct Slot<B> {
    batches: VecDeque<B>,
    /// Every batch has come.
    done: bool,
    /// Its batches may go on before it ends (it is read where a failure ends the whole read).
    streamed: bool,
}

/// The batches of a read's splits, put back in plan order.
#[derive(Debug)]
pub struct InOrder<B> {
    slots: Vec<Slot<B>>,
    /// The first split whose batches have not all gone on.
    next: usize,
}

impl<B> InOrder<B> {
    /// Order for `splits` splits, none of them read yet.
    pub fn new(splits: usize) -> Self {
        Self {
            slots: (0..splits)
                .map(|_| Slot {
                    batches: VecDeque::new(),
                    done: false,
                    streamed: false,
                })
                .collect(),
            next: 0,
        }
    }

    /// Lets split `split`'s batches go on as they come, before it ends.
    pub fn stream(&mut self, split: usize) {
        if let Some(slot) = self.slots.get_mut(split) {
            slot.streamed = true;
        }
    }

    /// A batch of split `split` (after its earlier batches). `false`: there is no such split
    /// or it has ended.
    pub fn push(&mut self, split: usize, batch: B) -> bool {
        match self.slots.get_mut(split) {
            Some(slot) if !slot.done && split >= self.next => {
                slot.batches.push_back(batch);
                true
            }
            _ => false,
        }
    }

    /// Split `split` has no more batches.
    pub fn finish(&mut self, split: usize) {
        if let Some(slot) = self.slots.get_mut(split) {
            slot.done = true;
        }
    }

    /// Forgets what came of split `split` (its reader failed) so that it can be read again;
    /// `false` when some of its batches already went on (it was streamed), or it has ended.
    pub fn discard(&mut self, split: usize) -> bool {
        match self.slots.get_mut(split) {
            Some(slot) if !(slot.done || (slot.streamed && split <= self.next)) => {
                slot.batches.clear();
                true
            }
            _ => false,
        }
    }

    /// The next batch in plan order, when it may go on.
    pub fn pop(&mut self) -> Option<B> {
        loop {
            let slot = self.slots.get_mut(self.next)?;
            if !(slot.done || slot.streamed) {
                return None;
            }
            if let Some(batch) = slot.batches.pop_front() {
                return Some(batch);
            }
            if !slot.done {
                return None;
            }
            self.next += 1;
        }
    }

    /// Whether every split has ended and all its batches went on.
    pub fn is_done(&self) -> bool {
        self.next == self.slots.len()
    }

    /// Splits whose batches have all gone on.
    pub fn splits_done(&self) -> usize {
        self.next
    }
}

#[cfg(test)]
mod tests {
    use super::InOrder;

    fn drain(order: &mut InOrder<&'static str>) -> Vec<&'static str> {
        std::iter::from_fn(|| order.pop()).collect()
    }

    #[test]
    fn splits_that_end_out_of_order_go_on_in_plan_order() {
        let mut order = InOrder::new(3);
        assert!(order.push(2, "c1"));
        order.finish(2);
        assert!(order.push(1, "b1"));
        assert_eq!(drain(&mut order), Vec::<&str>::new());
        order.finish(1);
        assert_eq!(
            drain(&mut order),
            Vec::<&str>::new(),
            "split 0 has not ended"
        );
        assert!(order.push(0, "a1"));
        assert!(order.push(0, "a2"));
        order.finish(0);
        assert_eq!(drain(&mut order), ["a1", "a2", "b1", "c1"]);
        assert!(order.is_done());
        assert!(!order.push(1, "late"), "a split that went on takes no more");
    }

    #[test]
    fn a_streamed_split_goes_on_batch_by_batch_and_cannot_be_discarded_once_started() {
        let mut order = InOrder::new(2);
        order.stream(0);
        order.push(0, "a1");
        assert_eq!(drain(&mut order), ["a1"]);
        assert!(!order.discard(0), "a1 went on already");
        order.push(1, "b1");
        assert_eq!(
            drain(&mut order),
            Vec::<&str>::new(),
            "split 1 waits for split 0"
        );
        order.push(0, "a2");
        order.finish(0);
        assert_eq!(
            drain(&mut order),
            ["a2"],
            "split 1 is not streamed: it waits to end"
        );
        assert!(order.discard(1), "its reader failed");
        order.push(1, "b1 again");
        order.finish(1);
        assert_eq!(drain(&mut order), ["b1 again"]);
        assert_eq!(order.splits_done(), 2);
        assert!(order.is_done());
    }

    #[test]
    fn no_splits_is_done_at_once() {
        let mut order = InOrder::<()>::new(0);
        assert!(order.is_done());
        assert!(order.pop().is_none());
        assert!(!order.push(0, ()));
    }
}
