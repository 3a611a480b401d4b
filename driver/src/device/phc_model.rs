//! A pure-Rust model of `hdl/rtl/tsnic_phc.v` (same register semantics, same 16.48 arithmetic, same
//! increment latency) that plugs into the `mem` backend as a [`RegHook`], so the PHC register
//! operations and the servo ([`crate::phc`]) can be tested against a clock that behaves like the RTL
//! without a simulator. It speaks registers only: nothing here uses `crate::phc`.

use crate::contract::reg;
use crate::device::mem::RegHook;
use crate::regs::{PhcCmd, PhcStatus};

/// Cycles after a PERIOD_HI or ADJFINE_PPB write before the new increment is used (tsnic_phc_incr).
pub const INCR_LATENCY: u64 = 131;
/// Cycles the seconds view is recomputed after a step (tsnic_phc_div).
pub const SECONDS_VIEW_LATENCY: u64 = 65;

/// A model of `hdl/rtl/tsnic_phc.v`: {ns, 48-bit fraction} grows by `inc` (16.48) every clock of period
/// `num/den` ns of true time; inc = period + trunc(period * ppb / 10^9), saturated, applied
/// [`INCR_LATENCY`] cycles after the write; SET/ADJ act at once; TIME_LO latches the snapshot.
#[derive(Debug, Clone)]
pub struct PhcModel {
    num: u64,
    den: u64,
    cycle: u64,
    ns: u64,
    fns: u64,
    period: u64,
    period_lo_stage: u32,
    ppb: u32,
    inc: u64,
    pending: Option<(u64, u64)>, // (cycle it applies, new inc)
    sv_busy_until: u64,
    set: u64,
    adj: u64,
    step_count: u32,
    snap: (u64, u32),
}

impl PhcModel {
    /// A clock of nominal period `num/den` ns (the RTL parameters PERIOD_NUM/PERIOD_DEN), out of reset.
    pub fn new(num: u64, den: u64) -> Self {
        let period = (((num as u128) << 48) + (den as u128 >> 1)) / den as u128;
        let period = period as u64;
        Self {
            num,
            den,
            cycle: 0,
            ns: 0,
            fns: 0,
            period,
            period_lo_stage: period as u32,
            ppb: 0,
            inc: period,
            pending: None,
            sv_busy_until: 0,
            set: 0,
            adj: 0,
            step_count: 0,
            snap: (0, 0),
        }
    }

    /// The increment the RTL computes: period + trunc(period * ppb / 10^9), saturated to [0, 2^64-1].
    pub fn effective_inc(period: u64, ppb: u32) -> u64 {
        let neg = (ppb as i32) < 0;
        let mag = (ppb as i32).unsigned_abs() as u128;
        let q = (period as u128 * mag) / 1_000_000_000u128;
        if neg {
            (period as u128).checked_sub(q).map_or(0, |v| v as u64)
        } else {
            (period as u128 + q).min(u64::MAX as u128) as u64
        }
    }

    /// The clock cycle in progress at true time `t` ns.
    fn cycle_at(&self, t: u64) -> u64 {
        ((t as u128 * self.den as u128) / self.num as u128) as u64
    }

    fn add_cycles(&mut self, n: u64, inc: u64) {
        let total = (((self.ns as u128) << 48) | self.fns as u128) + n as u128 * inc as u128;
        self.ns = (total >> 48) as u64;
        self.fns = (total & ((1u128 << 48) - 1)) as u64;
    }

    /// Run the clock up to true time `t`.
    pub fn advance_to(&mut self, t: u64) {
        let target = self.cycle_at(t);
        if target <= self.cycle {
            return;
        }
        if let Some((at, new_inc)) = self.pending {
            if at <= target {
                let n = at.saturating_sub(self.cycle);
                self.add_cycles(n, self.inc);
                self.cycle += n;
                self.inc = new_inc;
                self.pending = None;
            }
        }
        let n = target - self.cycle;
        self.add_cycles(n, self.inc);
        self.cycle = target;
    }

    /// Time now (after [`PhcModel::advance_to`]): ns and 48-bit fraction.
    pub fn time(&self) -> (u64, u64) {
        (self.ns, self.fns)
    }

    /// The increment in force.
    pub fn inc(&self) -> u64 {
        self.inc
    }

    fn start_incr(&mut self) {
        self.pending = Some((
            self.cycle + INCR_LATENCY,
            Self::effective_inc(self.period, self.ppb),
        ));
    }
}

impl RegHook for PhcModel {
    fn read32(&mut self, offset: usize, now_ns: u64) -> Option<u32> {
        self.advance_to(now_ns);
        let v = match offset {
            reg::PHC_TIME_LO => {
                self.snap = (self.ns, (self.fns >> 16) as u32);
                self.ns as u32
            }
            reg::PHC_TIME_HI => (self.snap.0 >> 32) as u32,
            reg::PHC_TIME_FNS => self.snap.1,
            reg::PHC_SET_LO => self.set as u32,
            reg::PHC_SET_HI => (self.set >> 32) as u32,
            reg::PHC_ADJ_LO => self.adj as u32,
            reg::PHC_ADJ_HI => (self.adj >> 32) as u32,
            reg::PHC_CMD => 0,
            reg::PHC_PERIOD_LO => self.period as u32,
            reg::PHC_PERIOD_HI => (self.period >> 32) as u32,
            reg::PHC_ADJFINE_PPB => self.ppb,
            reg::PHC_STATUS => {
                (self.pending.is_some() || self.cycle < self.sv_busy_until) as u32
                    * PhcStatus::BUSY.bits()
            }
            reg::PHC_STEP_COUNT => self.step_count,
            reg::PHC_SEC_LO => (self.snap.0 / 1_000_000_000) as u32,
            reg::PHC_SEC_HI => ((self.snap.0 / 1_000_000_000) >> 32) as u32 & 0xffff,
            reg::PHC_NSEC => (self.snap.0 % 1_000_000_000) as u32,
            _ => return None,
        };
        Some(v)
    }

    fn write32(&mut self, offset: usize, value: u32, now_ns: u64) -> bool {
        self.advance_to(now_ns);
        match offset {
            reg::PHC_SET_LO => self.set = (self.set & !0xffff_ffff) | value as u64,
            reg::PHC_SET_HI => self.set = (self.set & 0xffff_ffff) | ((value as u64) << 32),
            reg::PHC_ADJ_LO => self.adj = (self.adj & !0xffff_ffff) | value as u64,
            reg::PHC_ADJ_HI => self.adj = (self.adj & 0xffff_ffff) | ((value as u64) << 32),
            reg::PHC_CMD => {
                let cmd = PhcCmd::from_bits_truncate(value);
                if cmd.contains(PhcCmd::SET) {
                    self.ns = self.set;
                    self.fns = 0;
                } else if cmd.contains(PhcCmd::ADJ) {
                    self.ns = self.ns.wrapping_add(self.adj);
                }
                if !cmd.is_empty() {
                    self.step_count = self.step_count.wrapping_add(1);
                    self.sv_busy_until = self.cycle + SECONDS_VIEW_LATENCY;
                }
            }
            reg::PHC_PERIOD_LO => self.period_lo_stage = value,
            reg::PHC_PERIOD_HI => {
                self.period = ((value as u64) << 32) | self.period_lo_stage as u64;
                self.start_incr();
            }
            reg::PHC_ADJFINE_PPB => {
                self.ppb = value;
                self.start_incr();
            }
            r if (reg::PHC_BASE..reg::PHC_NSEC + 4).contains(&r) => {} // read-only: ignored
            _ => return false,
        }
        true
    }
}
