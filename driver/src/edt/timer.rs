//! Timer deadlines on a coarse tick.
//!
//! Linux keeps TCP timers (RTO, TLP, delayed ACK) on jiffies. A timeout converted to ticks by
//! rounding down fires early; rounding up only fires late by less than one tick
//! (shared/seeds/tlp-timer-granularity.txt). Every timer here goes through
//! [`deadline_round_up`], so none ever fires before `now + timeout`.

/// Default tick: 1 ms, Linux with HZ=1000.
pub const DEFAULT_TICK_NS: u64 = 1_000_000;

/// The first tick boundary at or after `now + timeout`: the earliest time a tick-based timer
/// armed at `now` for `timeout` may fire. With `tick_ns` <= 1 the deadline is exact.
pub fn deadline_round_up(now: u64, timeout: u64, tick_ns: u64) -> u64 {
    let exact = now.saturating_add(timeout);
    if tick_ns <= 1 {
        return exact;
    }
    exact.div_ceil(tick_ns).saturating_mul(tick_ns)
}

/// A one-shot timer. `fire_due` answers true only at or after the deadline.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Timer {
    deadline: Option<u64>,
    /// `now + timeout` before rounding: firing before this would be early.
    exact: u64,
    /// Times a timer fired before its exact deadline (must stay 0; tests check it).
    pub early_fires: u64,
}

impl Timer {
    pub fn arm(&mut self, now: u64, timeout: u64, tick_ns: u64) {
        self.deadline = Some(deadline_round_up(now, timeout, tick_ns));
        self.exact = now.saturating_add(timeout);
    }
    pub fn arm_at(&mut self, deadline: u64) {
        self.deadline = Some(deadline);
        self.exact = deadline;
    }
    pub fn cancel(&mut self) {
        self.deadline = None;
    }
    pub fn deadline(&self) -> Option<u64> {
        self.deadline
    }
    /// True (and disarms) if the timer has a deadline and `now` has reached it.
    pub fn fire_due(&mut self, now: u64) -> bool {
        match self.deadline {
            Some(d) if now >= d => {
                if now < self.exact {
                    self.early_fires += 1;
                }
                self.deadline = None;
                true
            }
            _ => false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table() {
        // (now, timeout, tick, expected): by hand, ceil((now+timeout)/tick)*tick.
        let cases = [
            // TLP seed case: 10 ms timeout armed 0.3 ms into a 10 ms (HZ=100) jiffy must not
            // fire at the 10 ms boundary (9.7 ms later) but at 20 ms.
            (300_000, 10_000_000, 10_000_000, 20_000_000),
            // exactly on a boundary: no extra tick
            (0, 10_000_000, 1_000_000, 10_000_000),
            // 1 ns past a boundary: next boundary
            (1, 10_000_000, 1_000_000, 11_000_000),
            // tick of 1 ns = exact (hrtimer)
            (7, 5, 1, 12),
        ];
        for (now, timeout, tick, want) in cases {
            assert_eq!(deadline_round_up(now, timeout, tick), want);
        }
    }
}
