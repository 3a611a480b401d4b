//! The PI servo that locks the PHC to the host clock (linuxptp's `pi.c`), and the `phc2sys`-like sync
//! loop that drives it through the register operations of [`super`].

use super::{adjfine, adjtime, measure_offset, OffsetSample, PhcError, MAX_ADJFINE_PPB};
use crate::device::Backend;

/// Servo state after a sample (linuxptp's `servo_state`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub enum ServoState {
    /// Collecting the first samples.
    Unlocked,
    /// Step the clock by -offset and set the frequency.
    Jump,
    /// Adjust the frequency only.
    Locked,
}

/// A [`PiServo`]'s learnt state (`drift` in the servo's sense, ppb; `count` samples taken, 2 once
/// it has locked).
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct ServoMemory {
    /// Frequency estimate, ppb (linuxptp's drift: the clock runs -drift).
    pub drift: f64,
    /// Samples taken (2: locked).
    pub count: u32,
    /// The first sample's offset, ns.
    pub offset0: i64,
    /// The first sample's local time, ns.
    pub local0: u64,
    /// No update yet (the first may step).
    pub first_update: bool,
}

/// A PI servo with linuxptp's `pi.c` behaviour and default constants (hardware time stamping):
/// kp = min(0.7 * T^-0.3, 0.7 / T), ki = min(0.3 * T^0.4, 0.3 / T) for a sample interval T in seconds;
/// the second sample estimates the frequency error from the first two offsets; a first offset above
/// `first_step_threshold_ns` (default 20 us, as phc2sys) steps the clock.
#[derive(Debug, Clone)]
pub struct PiServo {
    kp: f64,
    ki: f64,
    max_ppb: f64,
    drift: f64,
    count: u32,
    offset0: i64,
    local0: u64,
    first_update: bool,
    /// Step when the first locked offset exceeds this (0: never).
    pub first_step_threshold_ns: u64,
    /// Step (and restart) whenever the offset exceeds this (0: never).
    pub step_threshold_ns: u64,
}

impl PiServo {
    /// A servo for samples every `interval_s` seconds, starting from frequency `start_ppb` (the trim in
    /// force, in the clock's sense: positive runs the clock fast).
    pub fn new(interval_s: f64, start_ppb: f64, max_ppb: f64) -> Self {
        let kp = (0.7 * interval_s.powf(-0.3)).min(0.7 / interval_s);
        let ki = (0.3 * interval_s.powf(0.4)).min(0.3 / interval_s);
        Self {
            kp,
            ki,
            max_ppb,
            drift: -start_ppb, // linuxptp's drift is in the servo's sense: the clock runs -freq
            count: 0,
            offset0: 0,
            local0: 0,
            first_update: true,
            first_step_threshold_ns: 20_000,
            step_threshold_ns: 0,
        }
    }

    /// True when the next sample may step the clock ([`ServoState::Jump`]): the one after the
    /// first of a fresh servo with `first_step_threshold_ns` set, or any with `step_threshold_ns`.
    pub fn may_jump(&self) -> bool {
        self.step_threshold_ns > 0
            || (self.first_update && self.first_step_threshold_ns > 0 && self.count == 1)
    }

    /// What the servo has learnt (frequency, samples taken, first sample), for the next command's
    /// clock ([`PiServo::restore`]).
    pub fn memory(&self) -> ServoMemory {
        ServoMemory {
            drift: self.drift,
            count: self.count,
            offset0: self.offset0,
            local0: self.local0,
            first_update: self.first_update,
        }
    }

    /// Carry on from `m` (the constants and thresholds stay this servo's).
    pub fn restore(&mut self, m: &ServoMemory) {
        self.drift = if m.drift.is_finite() {
            m.drift.clamp(-self.max_ppb, self.max_ppb)
        } else {
            self.drift
        };
        self.count = m.count.min(2);
        self.offset0 = m.offset0;
        self.local0 = m.local0;
        self.first_update = m.first_update;
    }

    /// Proportional and integral constants in use.
    pub fn constants(&self) -> (f64, f64) {
        (self.kp, self.ki)
    }

    /// Feed one offset (clock minus reference, ns) taken at local time `local_ns`; returns the frequency
    /// to set **on the clock** in ppb (phc2sys sets `-ppb` of pi.c's output; this returns that already)
    /// and the state (on [`ServoState::Jump`] step the clock by `-offset`, then set the frequency).
    pub fn sample(&mut self, offset_ns: i64, local_ns: u64) -> (f64, ServoState) {
        let offset = offset_ns as f64;
        let (ppb, state) = match self.count {
            0 => {
                self.offset0 = offset_ns;
                self.local0 = local_ns;
                self.count = 1;
                (self.drift, ServoState::Unlocked)
            }
            1 => {
                if self.local0 >= local_ns {
                    self.count = 0;
                    (self.drift, ServoState::Unlocked)
                } else {
                    let df = (offset_ns - self.offset0) as f64 / (local_ns - self.local0) as f64;
                    self.drift += (1e9 - self.drift) * df;
                    self.drift = self.drift.clamp(-self.max_ppb, self.max_ppb);
                    let step = (self.first_update
                        && self.first_step_threshold_ns > 0
                        && offset.abs() > self.first_step_threshold_ns as f64)
                        || (self.step_threshold_ns > 0
                            && offset.abs() > self.step_threshold_ns as f64);
                    self.count = 2;
                    (
                        self.drift,
                        if step {
                            ServoState::Jump
                        } else {
                            ServoState::Locked
                        },
                    )
                }
            }
            _ => {
                if self.step_threshold_ns > 0 && offset.abs() > self.step_threshold_ns as f64 {
                    self.count = 0;
                    (self.drift, ServoState::Unlocked)
                } else {
                    let ki_term = self.ki * offset;
                    let mut ppb = self.kp * offset + self.drift + ki_term;
                    if ppb < -self.max_ppb {
                        ppb = -self.max_ppb;
                    } else if ppb > self.max_ppb {
                        ppb = self.max_ppb;
                    } else {
                        self.drift += ki_term;
                    }
                    (ppb, ServoState::Locked)
                }
            }
        };
        if state != ServoState::Unlocked {
            self.first_update = false;
        }
        (-ppb, state)
    }
}

/// One step of the sync loop, for reporting.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
pub struct SyncStep {
    /// The measurement.
    pub sample: OffsetSample,
    /// Servo state.
    pub state: ServoState,
    /// Frequency written, ppb.
    pub freq_ppb: i64,
}

/// Readings per sample in [`sync`]; the one with the shortest delay is used (`phc2sys -N`).
pub const SYNC_TRIES: u32 = 5;

/// Lock the PHC to the backend's host clock like phc2sys: every `interval_ns`, measure, run the servo,
/// step or trim. Calls `each` after every sample (print it, or stop by returning false).
pub fn sync(
    b: &mut dyn Backend,
    servo: &mut PiServo,
    interval_ns: u64,
    samples: u64,
    mut each: impl FnMut(&SyncStep) -> bool,
) -> Result<Vec<SyncStep>, PhcError> {
    let mut log = Vec::new();
    for _ in 0..samples {
        let s = measure_offset(b, SYNC_TRIES);
        let (ppb, state) = servo.sample(s.offset_ns, s.host_ns);
        let freq_ppb = (ppb.round() as i64).clamp(-MAX_ADJFINE_PPB, MAX_ADJFINE_PPB);
        match state {
            ServoState::Unlocked => {}
            ServoState::Jump => {
                adjfine(b, freq_ppb)?;
                adjtime(b, -s.offset_ns);
            }
            ServoState::Locked => adjfine(b, freq_ppb)?,
        }
        let step = SyncStep {
            sample: s,
            state,
            freq_ppb,
        };
        log.push(step);
        if !each(&step) {
            break;
        }
        b.wait_ns(interval_ns)?;
    }
    Ok(log)
}
