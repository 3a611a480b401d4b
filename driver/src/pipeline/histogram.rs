//! Stage 5, the histogram sink: exact percentiles over every frame in bounded memory.
//!
//! Counts at 1 ns resolution: a dense array for -32768..32768 ns (512 KiB, allocated on the first
//! value), and a map for values outside it (one entry per distinct outlying value). The nearest-rank
//! percentiles it gives are exactly [`ErrorStats::of`]'s over the same values (a test checks it).

use std::collections::BTreeMap;

use crate::push::ErrorStats;

/// Half the span of the dense part, ns.
const HALF: i64 = 1 << 15;

/// Exact counts of i64 values (departure errors, delays, ns).
#[derive(Debug, Clone)]
pub struct Histogram {
    dense: Vec<u64>,
    over: BTreeMap<i64, u64>,
    n: u64,
    /// Smallest and largest value so far (`i64::MAX` and `i64::MIN` while empty).
    min: i64,
    max: i64,
}

impl Default for Histogram {
    fn default() -> Self {
        Histogram {
            dense: Vec::new(),
            over: BTreeMap::new(),
            n: 0,
            min: i64::MAX,
            max: i64::MIN,
        }
    }
}

impl Histogram {
    /// Count one value: a bin increment for the values of the dense part (one range check, no
    /// branch on the first value), the map for the others.
    #[inline]
    pub fn add(&mut self, v: i64) {
        self.min = self.min.min(v);
        self.max = self.max.max(v);
        self.n += 1;
        // Below -HALF wraps to a large index, as does anything while `dense` is not allocated.
        let i = (v as u64).wrapping_add(HALF as u64) as usize;
        match self.dense.get_mut(i) {
            Some(c) => *c += 1,
            None => self.add_outside(v),
        }
    }

    /// A value outside the dense part, or the first of the dense part (which allocates it).
    #[cold]
    fn add_outside(&mut self, v: i64) {
        if (-HALF..HALF).contains(&v) {
            if self.dense.is_empty() {
                self.dense = vec![0; 2 * HALF as usize];
            }
            self.dense[(v + HALF) as usize] += 1;
        } else {
            *self.over.entry(v).or_insert(0) += 1;
        }
    }

    /// Values counted.
    pub fn len(&self) -> u64 {
        self.n
    }

    /// True when nothing was counted.
    pub fn is_empty(&self) -> bool {
        self.n == 0
    }

    /// Smallest and largest value (None: empty).
    pub fn range(&self) -> Option<(i64, i64)> {
        (self.n > 0).then_some((self.min, self.max))
    }

    /// Every distinct value with its count, ascending.
    pub fn iter(&self) -> impl Iterator<Item = (i64, u64)> + '_ {
        let below = self.over.range(..-HALF).map(|(&v, &c)| (v, c));
        let dense = self
            .dense
            .iter()
            .enumerate()
            .filter(|(_, &c)| c > 0)
            .map(|(i, &c)| (i as i64 - HALF, c));
        let above = self.over.range(HALF..).map(|(&v, &c)| (v, c));
        below.chain(dense).chain(above)
    }

    /// Nearest-rank min / p50 / p99 / p99.9 / max, as [`ErrorStats::of`]; None when empty.
    pub fn stats(&self) -> Option<ErrorStats> {
        if self.n == 0 {
            return None;
        }
        let rank = |permille: u64| (permille * self.n).div_ceil(1000).clamp(1, self.n);
        let ranks = [rank(500), rank(990), rank(999)];
        let mut out = [0i64; 3];
        let mut k = 0;
        let mut seen = 0u64;
        for (v, c) in self.iter() {
            seen += c;
            while k < 3 && seen >= ranks[k] {
                out[k] = v;
                k += 1;
            }
            if k == 3 {
                break;
            }
        }
        Some(ErrorStats {
            min: self.min,
            p50: out[0],
            p99: out[1],
            p999: out[2],
            max: self.max,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// The histogram's percentiles equal the sorted-vector ones, for values inside and outside the
        /// dense part.
        #[test]
        fn percentiles_equal_the_sorted_ones(
            v in proptest::collection::vec(prop_oneof![-100i64..100, -40_000i64..40_000, any::<i64>()], 1..3000)
        ) {
            let mut h = Histogram::default();
            for &x in &v {
                h.add(x);
            }
            let mut s = v.clone();
            prop_assert_eq!(h.stats(), Some(ErrorStats::of(&mut s)));
            prop_assert_eq!(h.len(), v.len() as u64);
            prop_assert_eq!(h.iter().map(|(_, c)| c).sum::<u64>(), v.len() as u64);
        }
    }

    #[test]
    fn empty_has_no_stats() {
        assert_eq!(Histogram::default().stats(), None);
    }
}
