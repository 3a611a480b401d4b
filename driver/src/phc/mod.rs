//! The card's PTP hardware clock, in layers:
//!
//! - this module: the register operations (get, set, adjtime, adjfine, period, offset measurement
//!   against the host clock) on any [`Backend`];
//! - [`servo`]: a PI servo that locks the PHC to the host's `CLOCK_TAI` the way linuxptp's `phc2sys`
//!   does, and the sync loop driving it through the register operations;
//! - the model of `hdl/rtl/tsnic_phc.v` the `mem` backend plugs in lives with the backends
//!   ([`crate::device::phc_model`], re-exported here as [`PhcModel`]), so `device` does not import
//!   `phc`; `phc` imports `device` only.

use thiserror::Error;

use crate::contract::reg;
use crate::device::{Backend, DeviceError};
use crate::regs::{PhcCmd, PhcStatus};

pub mod servo;

pub use crate::device::phc_model::{PhcModel, INCR_LATENCY, SECONDS_VIEW_LATENCY};
pub use servo::{sync, PiServo, ServoMemory, ServoState, SyncStep, SYNC_TRIES};

/// PHC errors.
#[derive(Debug, Error)]
pub enum PhcError {
    /// A backend error.
    #[error(transparent)]
    Device(#[from] DeviceError),
    /// A frequency trim out of range.
    #[error("frequency trim {ppb} ppb is outside +/-{max} ppb: use a trim within it")]
    FreqOutOfRange {
        /// Asked.
        ppb: i64,
        /// Limit.
        max: i64,
    },
    /// A time past [`PHC_MAX_NS`].
    #[error("{what} ({ns} ns) is past the latest time the driver handles, 2^63 - 1 = {max} ns (TAI 2262-04-11; the card's 64-bit ns counter would wrap at 2^64, and time differences are signed 64-bit ns): use a time up to {max} ns, e.g. `tsnic phc set --host` for the host's TAI", max = PHC_MAX_NS)]
    BeyondRange {
        /// What it is (e.g. `the new time`).
        what: String,
        /// The time.
        ns: u64,
    },
    /// A nominal period the 16.48 register cannot hold.
    #[error("nominal period {0} ns is outside (0, 65536) ns")]
    BadPeriod(f64),
}

/// Latest PHC time the driver sets, steps to or schedules at: 2^63 - 1 ns (TAI 2262-04-11). The card
/// counts 64-bit ns and would wrap to 0 at 2^64, but the driver's time differences, the offsets of
/// `phc sync`, and Linux's own time (ktime_t) are signed 64-bit ns: this keeps every one of them exact,
/// and leaves 292 years before the counter could wrap.
pub const PHC_MAX_NS: u64 = i64::MAX as u64;

/// Check a time the clock is to be set or stepped to (`what` names it in the error).
pub fn check_time(ns: u64, what: &str) -> Result<(), PhcError> {
    if ns > PHC_MAX_NS {
        return Err(PhcError::BeyondRange {
            what: what.to_string(),
            ns,
        });
    }
    Ok(())
}

/// Largest frequency trim the driver writes (PHC_ADJFINE_PPB is a signed 32-bit register; 1% keeps the
/// clock sane, like the max_adj of common PHC drivers).
pub const MAX_ADJFINE_PPB: i64 = 10_000_000;

/// A PHC reading: whole ns and the fraction (bits 47:16 of the 48-bit fraction).
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub struct PhcTime {
    /// TAI ns.
    pub ns: u64,
    /// Fraction of a ns, units of 2^-32 ns.
    pub frac32: u32,
    /// Seconds view of the same snapshot.
    pub sec: u64,
    /// ns within the second of the same snapshot.
    pub nsec: u32,
}

/// Read the PHC (TIME_LO latches the snapshot; the rest read that snapshot).
pub fn get(b: &mut dyn Backend) -> PhcTime {
    let lo = b.read32(reg::PHC_TIME_LO) as u64;
    let hi = b.read32(reg::PHC_TIME_HI) as u64;
    let frac32 = b.read32(reg::PHC_TIME_FNS);
    let sec =
        (b.read32(reg::PHC_SEC_LO) as u64) | ((b.read32(reg::PHC_SEC_HI) as u64 & 0xffff) << 32);
    let nsec = b.read32(reg::PHC_NSEC);
    PhcTime {
        ns: lo | (hi << 32),
        frac32,
        sec,
        nsec,
    }
}

/// Read only the ns (three fewer register reads than [`get`]).
pub fn get_ns(b: &mut dyn Backend) -> u64 {
    let lo = b.read32(reg::PHC_TIME_LO) as u64;
    let hi = b.read32(reg::PHC_TIME_HI) as u64;
    lo | (hi << 32)
}

/// Step the clock to `ns` (fraction cleared).
pub fn set(b: &mut dyn Backend, ns: u64) {
    b.write32(reg::PHC_SET_LO, ns as u32);
    b.write32(reg::PHC_SET_HI, (ns >> 32) as u32);
    b.write32(reg::PHC_CMD, PhcCmd::SET.bits());
}

/// Add `delta_ns` atomically (adjtime), fraction kept.
pub fn adjtime(b: &mut dyn Backend, delta_ns: i64) {
    let d = delta_ns as u64;
    b.write32(reg::PHC_ADJ_LO, d as u32);
    b.write32(reg::PHC_ADJ_HI, (d >> 32) as u32);
    b.write32(reg::PHC_CMD, PhcCmd::ADJ.bits());
}

/// Set the frequency trim in ppb (adjfine): increment = period + trunc(period * ppb / 10^9).
pub fn adjfine(b: &mut dyn Backend, ppb: i64) -> Result<(), PhcError> {
    if ppb.abs() > MAX_ADJFINE_PPB {
        return Err(PhcError::FreqOutOfRange {
            ppb,
            max: MAX_ADJFINE_PPB,
        });
    }
    b.write32(reg::PHC_ADJFINE_PPB, ppb as i32 as u32);
    Ok(())
}

/// The frequency trim in force, ppb.
pub fn freq(b: &mut dyn Backend) -> i64 {
    b.read32(reg::PHC_ADJFINE_PPB) as i32 as i64
}

/// The nominal increment per clock, 16.48 fixed-point ns.
pub fn period(b: &mut dyn Backend) -> u64 {
    (b.read32(reg::PHC_PERIOD_LO) as u64) | ((b.read32(reg::PHC_PERIOD_HI) as u64) << 32)
}

/// Set the nominal increment (16.48 fixed-point ns): LO is staged, HI applies.
pub fn set_period(b: &mut dyn Backend, period_1648: u64) {
    b.write32(reg::PHC_PERIOD_LO, period_1648 as u32);
    b.write32(reg::PHC_PERIOD_HI, (period_1648 >> 32) as u32);
}

/// ns as 16.48 fixed point (rounded).
pub fn period_from_ns(ns: f64) -> Result<u64, PhcError> {
    if !(ns > 0.0 && ns < 65536.0) {
        return Err(PhcError::BadPeriod(ns));
    }
    Ok((ns * (1u64 << 48) as f64).round() as u64)
}

/// Steps (SET/ADJ) since reset.
pub fn step_count(b: &mut dyn Backend) -> u32 {
    b.read32(reg::PHC_STEP_COUNT)
}

/// True while a new increment or the seconds view is being computed.
pub fn busy(b: &mut dyn Backend) -> bool {
    PhcStatus::from_bits_truncate(b.read32(reg::PHC_STATUS)).contains(PhcStatus::BUSY)
}

/// One offset measurement against the host clock: `phc - host` at host time `host_ns`, and the delay of
/// the reading (host time spent around the TIME_LO read that latched the PHC). Best of `tries` readings (shortest delay), as
/// `phc2sys -N` does.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub struct OffsetSample {
    /// PHC minus host, ns.
    pub offset_ns: i64,
    /// Host time of the sample (middle of the reading), ns.
    pub host_ns: u64,
    /// Host time the reading took, ns.
    pub delay_ns: u64,
}

/// Measure the PHC against the backend's host clock.
pub fn measure_offset(b: &mut dyn Backend, tries: u32) -> OffsetSample {
    let mut best: Option<OffsetSample> = None;
    for _ in 0..tries.max(1) {
        // Bracket only the TIME_LO read: it latches the snapshot, so its round trip is the window the
        // PHC was sampled in (TIME_HI then reads the latched snapshot, outside the window).
        let t1 = b.now_ns();
        let lo = b.read32(reg::PHC_TIME_LO) as u64;
        let t2 = b.now_ns();
        let phc = lo | ((b.read32(reg::PHC_TIME_HI) as u64) << 32);
        let delay = t2.saturating_sub(t1);
        let mid = t1 + delay / 2;
        let s = OffsetSample {
            offset_ns: phc.wrapping_sub(mid) as i64,
            host_ns: mid,
            delay_ns: delay,
        };
        if best.is_none_or(|b| s.delay_ns < b.delay_ns) {
            best = Some(s);
        }
    }
    best.expect("at least one try")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::device::mem::MemBackend;

    /// A mem backend whose PHC block is the RTL model at 156.25 MHz (6.4 ns).
    fn card() -> MemBackend {
        MemBackend::new_identity().with_hook(Box::new(PhcModel::new(32, 5)))
    }

    #[test]
    fn nominal_period_matches_the_rtl_rounding() {
        let m = PhcModel::new(32, 5);
        assert_eq!(m.inc(), (((32u128 << 48) + 2) / 5) as u64);
        let m = PhcModel::new(512, 165);
        assert_eq!(m.inc(), (((512u128 << 48) + 82) / 165) as u64);
    }

    #[test]
    fn effective_increment_is_exact_and_saturates() {
        let p = 6u64 << 48;
        assert_eq!(PhcModel::effective_inc(p, 0), p);
        assert_eq!(
            PhcModel::effective_inc(p, 1000),
            p + (p as u128 * 1000 / 1_000_000_000) as u64
        );
        assert_eq!(
            PhcModel::effective_inc(p, (-1000i32) as u32),
            p - (p as u128 * 1000 / 1_000_000_000) as u64
        );
        // trunc toward zero for negative trims too
        assert_eq!(PhcModel::effective_inc(3, (-1i32) as u32), 3);
        assert_eq!(PhcModel::effective_inc(u64::MAX, i32::MAX as u32), u64::MAX);
        assert_eq!(PhcModel::effective_inc(1 << 40, i32::MIN as u32), 0);
    }

    const P64: u64 = 1_801_439_850_948_198; // 6.4 ns in 16.48, rounded as the RTL does

    /// ns after `cycles` cycles of increment `inc` from a whole ns with fraction 0.
    fn after(cycles: u64, inc: u64) -> u64 {
        ((cycles as u128 * inc as u128) >> 48) as u64
    }

    #[test]
    fn get_set_adjtime_through_registers() {
        let mut b = card();
        set(&mut b, 1_000_000_000_123);
        let t = get(&mut b);
        assert_eq!(t.ns, 1_000_000_000_123);
        assert_eq!(t.frac32, 0);
        assert_eq!((t.sec, t.nsec), (1000, 123));
        b.wait_ns(64_000).unwrap(); // exactly 10_000 cycles of 6.4 ns
                                    // 6.4 ns is not exact in 16.48: the RTL's clock is a hair slow, and so is the model.
        assert_eq!(get_ns(&mut b), 1_000_000_000_123 + after(10_000, P64));
        assert_eq!(after(10_000, P64), 63_999);
        let base = get_ns(&mut b);
        adjtime(&mut b, -5_000);
        assert_eq!(get_ns(&mut b), base - 5_000);
        adjtime(&mut b, 1 << 40);
        assert_eq!(get_ns(&mut b), base - 5_000 + (1 << 40));
        assert_eq!(step_count(&mut b), 3);
        assert!(busy(&mut b), "seconds view is recomputed after a step");
        b.wait_ns(1_000).unwrap();
        assert!(!busy(&mut b));
    }

    #[test]
    fn adjfine_applies_after_the_rtl_latency() {
        let mut b = card();
        set(&mut b, 0);
        adjfine(&mut b, 1_000_000).unwrap(); // +1000 ppm
        assert_eq!(freq(&mut b), 1_000_000);
        assert!(busy(&mut b));
        // 130 cycles later (832 ns) the old increment is still in force
        b.wait_ns(832).unwrap();
        assert_eq!(get_ns(&mut b), after(130, P64));
        assert!(busy(&mut b));
        b.wait_ns(64).unwrap(); // cycle 140: 131 old increments, 9 new ones
        let new_inc = PhcModel::effective_inc(P64, 1_000_000);
        let t = (131u128 * P64 as u128 + 9 * new_inc as u128) >> 48;
        assert_eq!(get_ns(&mut b), t as u64);
        assert!(!busy(&mut b));
        // 1 ms at +1000 ppm gains 1 us
        let t0 = get_ns(&mut b);
        b.wait_ns(1_000_000).unwrap();
        let gained = get_ns(&mut b) - t0;
        assert!((1_000_999..=1_001_001).contains(&gained), "{gained}");
        assert!(adjfine(&mut b, MAX_ADJFINE_PPB + 1).is_err());
    }

    #[test]
    fn period_is_staged_until_hi() {
        let mut b = card();
        let p = period(&mut b);
        let p8 = period_from_ns(8.0).unwrap();
        b.write32(reg::PHC_PERIOD_LO, p8 as u32);
        assert_eq!(period(&mut b), p, "LO alone changes nothing");
        set_period(&mut b, p8);
        assert_eq!(period(&mut b), p8);
        assert!(period_from_ns(0.0).is_err());
    }

    #[test]
    fn servo_constants_match_linuxptp() {
        let s = PiServo::new(1.0, 0.0, 1e7);
        assert_eq!(s.constants(), (0.7, 0.3));
        let (kp, ki) = PiServo::new(0.125, 0.0, 1e7).constants();
        assert!(
            (kp - 0.7 * 0.125f64.powf(-0.3)).abs() < 1e-12
                && (ki - 0.3 * 0.125f64.powf(0.4)).abs() < 1e-12
        );
    }

    /// Run the sync loop against the RTL model with the host clock off by `ppb`, return the offsets.
    fn lock(
        host_err_ppb: f64,
        interval_ns: u64,
        samples: u64,
        step_at: Option<(u64, i64)>,
    ) -> Vec<SyncStep> {
        lock_on(card(), host_err_ppb, interval_ns, samples, step_at)
    }

    fn lock_on(
        mut b: MemBackend,
        host_err_ppb: f64,
        interval_ns: u64,
        samples: u64,
        step_at: Option<(u64, i64)>,
    ) -> Vec<SyncStep> {
        let t = b.true_ns();
        b.host_clock_model()
            .unwrap()
            .set_freq_error_ppb(t, host_err_ppb);
        let start = freq(&mut b) as f64;
        let mut servo = PiServo::new(interval_ns as f64 / 1e9, start, MAX_ADJFINE_PPB as f64);
        let mut log = Vec::new();
        let mut n = 0u64;
        while n < samples {
            let chunk = match step_at {
                Some((k, _)) if n < k => k - n,
                _ => samples - n,
            };
            log.extend(sync(&mut b, &mut servo, interval_ns, chunk, |_| true).unwrap());
            n += chunk;
            if let Some((k, d)) = step_at {
                if n == k {
                    let t = b.true_ns();
                    b.host_clock_model().unwrap().step(t, d);
                }
            }
        }
        log
    }

    fn worst_after(log: &[SyncStep], from: usize) -> i64 {
        log[from..]
            .iter()
            .map(|s| s.sample.offset_ns.abs())
            .max()
            .unwrap()
    }

    #[test]
    fn servo_locks_within_50ns_at_plus_and_minus_100ppm() {
        for err in [100_000.0, -100_000.0, 0.0, 37_123.4] {
            let log = lock(err, 1_000_000_000, 120, None);
            assert_eq!(
                log[1].state,
                ServoState::Jump,
                "the first offset (the PHC starts at 0) is stepped"
            );
            let w = worst_after(&log, 30);
            assert!(
                w < 50,
                "{err} ppb: worst offset after 30 s = {w} ns: {:?}",
                &log[25..35]
            );
            // The trim converges on the error the host clock has against the card's oscillator.
            let f = log.last().unwrap().freq_ppb as f64;
            assert!((f - err).abs() < 5.0, "{err}: trim {f}");
        }
    }

    #[test]
    fn servo_locks_with_pcie_like_read_delay_and_jitter() {
        // Each register read takes 1000 ns plus up to 100 ns of jitter that falls on either side of
        // the moment the PHC is sampled, so every offset measurement is off by up to +/-50 ns; the
        // best of 5 readings (shortest delay) and the PI filter keep the offset under 50 ns.
        for err in [100_000.0, -100_000.0] {
            let b = card().with_read_latency(1000, 100);
            let log = lock_on(b, err, 1_000_000_000, 300, None);
            let w = worst_after(&log, 30);
            assert!(w < 50, "{err} ppb: worst offset after 30 s = {w} ns");
            eprintln!("read jitter, {err} ppb: worst |offset| after 30 s: {w} ns");
            assert!(log[30..].iter().all(|s| s.sample.delay_ns >= 990));
        }
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(48))]
        /// Any host-clock frequency error within +/-100 ppm, any starting PHC time and trim, any read
        /// jitter up to 100 ns: after 30 one-second samples the offset is under 50 ns and stays there
        /// for the remaining 90.
        #[test]
        fn servo_settles_for_any_error_within_100ppm(
            err_ppb in -100_000.0f64..=100_000.0,
            start_ns in 0u64..1u64 << 62,
            start_trim in -200_000i64..=200_000,
            jitter in 0u64..=100,
        ) {
            let mut b = card().with_read_latency(1000, jitter);
            set(&mut b, start_ns);
            adjfine(&mut b, start_trim).unwrap();
            let log = lock_on(b, err_ppb, 1_000_000_000, 120, None);
            let w = worst_after(&log, 30);
            proptest::prop_assert!(w < 50, "worst {} ns after 30 s", w);
        }
    }

    #[test]
    fn servo_locks_with_a_fast_interval_too() {
        let log = lock(-100_000.0, 10_000_000, 2000, None);
        let w = worst_after(&log, 1000);
        assert!(w < 50, "worst {w}");
    }

    #[test]
    fn servo_relocks_after_a_host_step() {
        let log = lock(100_000.0, 1_000_000_000, 200, Some((100, 3_000)));
        let w = worst_after(&log, 160);
        assert!(w < 50, "worst after re-lock {w}: {:?}", &log[100..110]);
        // A 3 us step is below the first-step threshold after the first update: slewed, not stepped.
        assert!(log[100..].iter().all(|s| s.state == ServoState::Locked));
    }
}
