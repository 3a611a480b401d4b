//! A tiny deterministic random number generator (SplitMix64).
//!
//! Whatever draws random numbers in the driver (BBR's random start of its gain cycle) and in the
//! simulations (loss and reordering in `crate::netsim`, initial sequence numbers in the EDT
//! closed loop) must give the same result for the same seed on every machine and every run, so
//! the driver carries its own generator instead of depending on an external crate whose stream
//! could change between versions.

/// SplitMix64: 64 bits of state, one multiply-xorshift mix per draw. Good enough statistics for
/// loss and reordering decisions and randomized protocol choices; not for cryptography.
#[derive(Debug, Clone)]
pub struct SeededRng {
    state: u64,
}

impl SeededRng {
    /// A generator whose whole output stream is fixed by `seed`.
    pub fn new(seed: u64) -> Self {
        SeededRng { state: seed }
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.state = self.state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A uniform draw in [0, 1).
    pub fn next_f64(&mut self) -> f64 {
        // 53 random bits -> the mantissa of a double in [0, 1).
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }

    /// True with probability `p` (p <= 0 never, p >= 1 always).
    pub fn chance(&mut self, p: f64) -> bool {
        p > 0.0 && self.next_f64() < p
    }

    /// A uniform integer in [0, n]; 0 when n is 0.
    pub fn below_or_eq(&mut self, n: u64) -> u64 {
        if n == 0 {
            0
        } else if n == u64::MAX {
            self.next_u64()
        } else {
            self.next_u64() % (n + 1)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn same_seed_same_stream() {
        let mut a = SeededRng::new(42);
        let mut b = SeededRng::new(42);
        for _ in 0..100 {
            assert_eq!(a.next_u64(), b.next_u64());
        }
    }

    #[test]
    fn chance_edges() {
        let mut r = SeededRng::new(1);
        assert!((0..1000).all(|_| !r.chance(0.0)));
        assert!((0..1000).all(|_| r.chance(1.0)));
        let hits = (0..100_000).filter(|_| r.chance(0.1)).count();
        assert!((9_000..11_000).contains(&hits), "{hits}");
    }
}
