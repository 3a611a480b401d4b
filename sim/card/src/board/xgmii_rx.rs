//! The SUME's receive side in front of the board core: the 10G line and what tsnic_xgmii_rx makes of
//! it, as the board core's RX inputs take it with RX_SOF_IN = 1 (64-bit `s_axis_rx_*` and the
//! start-of-frame pulse `rx_sof` / `rx_sof_lane4`, on the MAC clock). The XGMII itself is not
//! modelled: this stands in for the PCS and tsnic_xgmii_rx, at their interface to the board core.
//!
//! - **Line start.** On a 64-bit XGMII a frame's Start (/S/, the preamble's first octet) is in
//!   lane 0 or lane 4 (IEEE 802.3 46.3.1.4); the word carrying it is sampled at a MAC clock edge, so
//!   a frame starts on the line only at a half-word boundary of the MAC clock (`mac_phase_ps + j *
//!   period / 2`). A frame injected at `at_ps` starts at the first such boundary at or after
//!   `max(at_ps, end of the previous frame's gap)` (0..3.2 ns later): that is its true arrival,
//!   [`RxArrival::start_ps`]. The gap is the nominal 12 octets before that rounding (12..15 octets;
//!   no deficit idle count on this side).
//! - **Start of frame.** The /S/ word is the one sampled at the boundary's edge (lane 0) or half a
//!   word before it (lane 4); `rx_sof` pulses one MAC cycle later with `rx_sof_lane4` for a lane-4
//!   start, as tsnic_xgmii_rx's registered sof does. tsnic_mac_rx's stamp (its `SOF_DELAY_FX` of
//!   one period, half a period for lane 4) is then the PHC at the true arrival: the model has no
//!   PCS latency (RX_LAT_COMP_NS 0 compensates nothing).
//! - **Beats.** Beat `j` (payload bytes 8j..8j+7) leaves [`XGMII_RX_LATENCY`] cycles after the word
//!   holding payload+FCS byte `min(8j + 12, len + 4)` (tsnic_xgmii_rx sends a beat once 13 bytes are
//!   held, so the FCS can be stripped at /T/, the frame's last beats at /T/), one beat per cycle,
//!   `tuser` (bad frame: flagged, or shorter than 64 bytes with FCS) on the `tlast` beat. The board
//!   core takes every beat (`s_axis_rx_tready` is 1 with MAC_DOMAIN = 1).

use std::collections::VecDeque;

use super::ffi::BoardIn;
use crate::rx::{RxArrival, RxFrame, RxStats};
use crate::wire::{FCS, PREAMBLE};

/// MAC cycles from the XGMII word that completes a beat's bytes to the beat on `s_axis_rx_*`:
/// tsnic_xgmii_rx's frame logic (one register) and its five-cycle CRC-verdict delay (pend, d1..d4).
pub const XGMII_RX_LATENCY: u64 = 6;

/// Bytes per beat and per XGMII word.
const WORD: usize = 8;

/// Byte time at 10 Gb/s, ps.
const BYTE_PS: u64 = 800;

struct Started {
    frame: RxFrame,
    /// The frame's start on the line (the /S/ octet), ps.
    start_ps: u64,
    /// The edge at which the /S/ word is sampled, ps.
    word_ps: u64,
    /// Payload bytes handed over.
    pos: usize,
    first_beat: Option<(u64, u64)>,
    end_ps: u64,
}

/// The 10G line and tsnic_xgmii_rx, at the board core's RX inputs (see the module doc).
pub struct XgmiiRx {
    period_ps: u64,
    phase_ps: u64,
    pending: VecDeque<RxFrame>,
    free_ps: u64,
    /// Frames whose start of frame has pulsed, oldest first (beats come from the front).
    started: VecDeque<Started>,
    arrivals: Vec<RxArrival>,
    stats: RxStats,
    now_ps: u64,
}

impl XgmiiRx {
    /// The line in front of a MAC clocked every `period_ps` from `phase_ps` (8 bytes a cycle: 6400
    /// ps at 10 Gb/s).
    pub fn new(period_ps: u64, phase_ps: u64) -> XgmiiRx {
        XgmiiRx {
            period_ps,
            phase_ps,
            pending: VecDeque::new(),
            free_ps: 0,
            started: VecDeque::new(),
            arrivals: Vec::new(),
            stats: RxStats::default(),
            now_ps: 0,
        }
    }

    /// Queue a frame (kept in time order; equal times: injection order).
    pub fn inject(&mut self, frame: RxFrame) {
        if frame.at_ps < self.now_ps {
            self.stats.late_injections += 1;
        }
        let pos = self
            .pending
            .iter()
            .position(|f| f.at_ps > frame.at_ps)
            .unwrap_or(self.pending.len());
        self.pending.insert(pos, frame);
    }

    /// The first half-word boundary at or after `t` (and at or after the MAC's first edge).
    fn boundary(&self, t: u64) -> u64 {
        let half = self.period_ps / 2;
        let d = t.saturating_sub(self.phase_ps);
        self.phase_ps + d.div_ceil(half) * half
    }

    /// Where the next frame not yet started would start, and its /S/ word's edge, if one waits:
    /// never so early that its start of frame is already past at `now_ps`.
    fn next_start(&self, now_ps: u64) -> Option<(u64, u64)> {
        let f = self.pending.front()?;
        let half = self.period_ps / 2;
        // the sof edge (the /S/ word's edge + one period) must not be before now
        let mut b = self.boundary(
            f.at_ps
                .max(self.free_ps)
                .max(now_ps.saturating_sub(self.period_ps)),
        );
        let lane4 = (b - self.phase_ps) / half % 2 == 1;
        let mut w = if lane4 { b - half } else { b };
        if w + self.period_ps < now_ps {
            b += half;
            w = b;
        }
        Some((b, w))
    }

    /// A frame is on its way to the core, or one starts before `limit_ps`.
    pub fn busy_before(&self, limit_ps: u64) -> bool {
        !self.started.is_empty()
            || self
                .next_start(self.now_ps)
                .is_some_and(|(b, _)| b < limit_ps)
    }

    /// Frames waiting (not yet started) and those on their way.
    pub fn queued(&self) -> usize {
        self.pending.len() + self.started.len()
    }

    /// Append what a kept card keeps of an idle RX line ([`crate::state`]; nothing queued): when the
    /// line is free again and the time of the last edge. Counters and arrival records belong to the
    /// observing process.
    pub(crate) fn save_state(&self, e: &mut crate::state::Enc) {
        e.u64(self.free_ps);
        e.u64(self.now_ps);
    }

    /// Load what [`XgmiiRx::save_state`] wrote.
    pub(crate) fn restore_state(
        &mut self,
        d: &mut crate::state::Dec<'_>,
    ) -> Result<(), crate::state::StateError> {
        self.free_ps = d.u64("RX line free time")?;
        self.now_ps = d.u64("RX line time")?;
        Ok(())
    }

    /// Take the records of the frames handed to the core.
    pub fn take_arrivals(&mut self) -> Vec<RxArrival> {
        std::mem::take(&mut self.arrivals)
    }

    /// Counters.
    pub fn stats(&self) -> RxStats {
        self.stats
    }

    /// The edge at which beat `j` of `s` may leave.
    fn beat_due_ps(&self, s: &Started, j: usize) -> u64 {
        let len = s.frame.bytes.len();
        let last = (j + 1) * WORD >= len;
        let need = if last {
            len + FCS as usize
        } else {
            (j * WORD + 12).min(len + FCS as usize)
        };
        let at = s.start_ps + (PREAMBLE + need as u64) * BYTE_PS;
        let word = s.word_ps + (at - s.word_ps) / self.period_ps * self.period_ps;
        word + XGMII_RX_LATENCY * self.period_ps
    }

    /// Drive the RX inputs for the MAC edge at `now_ps`.
    pub fn drive(&mut self, inp: &mut BoardIn, now_ps: u64) {
        self.now_ps = now_ps;
        inp.rx_sof = 0;
        inp.rx_sof_lane4 = 0;
        inp.rx_tvalid = 0;
        if let Some((b, w)) = self.next_start(now_ps) {
            if w + self.period_ps <= now_ps {
                let frame = self.pending.pop_front().expect("pending");
                let len = frame.bytes.len() as u64;
                self.free_ps = b + crate::wire::LineRate::G10.frame_ps(len);
                inp.rx_sof = 1;
                inp.rx_sof_lane4 = u64::from(w != b);
                self.started.push_back(Started {
                    frame,
                    start_ps: b,
                    word_ps: w,
                    pos: 0,
                    first_beat: None,
                    end_ps: self.free_ps,
                });
            }
        }
        let Some(s) = self.started.front() else {
            return;
        };
        let j = s.pos / WORD;
        if self.beat_due_ps(s, j) > now_ps {
            return;
        }
        let len = s.frame.bytes.len();
        let n = (len - s.pos).min(WORD);
        let mut word = 0u64;
        for i in 0..n {
            word |= u64::from(s.frame.bytes[s.pos + i]) << (8 * i);
        }
        inp.rx_tdata = [0; crate::ffi::WIDE_WORDS];
        inp.rx_tdata[0] = word;
        inp.rx_tkeep = (1u64 << n) - 1;
        let last = s.pos + n == len;
        inp.rx_tlast = u64::from(last);
        inp.rx_tuser = u64::from(last && (s.frame.bad || len + (FCS as usize) < 64));
        inp.rx_tvalid = 1;
    }

    /// Take the beat of the MAC edge at `now_ps` (cycle `mac_cycle`), if any: the core always takes it.
    pub fn clock(&mut self, inp: &BoardIn, mac_cycle: u64, now_ps: u64) {
        if inp.rx_tvalid != 1 {
            return;
        }
        let s = self.started.front_mut().expect("a beat without a frame");
        if s.first_beat.is_none() {
            s.first_beat = Some((now_ps, mac_cycle));
        }
        let len = s.frame.bytes.len();
        s.pos += (len - s.pos).min(WORD);
        if s.pos == len {
            let s = self.started.pop_front().expect("started");
            let (first_beat_ps, first_beat_cycle) = s.first_beat.expect("first beat");
            self.stats.frames += 1;
            self.stats.bytes += len as u64;
            self.arrivals.push(RxArrival {
                len,
                start_ps: s.start_ps,
                first_beat_ps,
                first_beat_cycle,
                end_ps: s.end_ps,
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn frame(len: usize, seed: u8, at_ps: u64, bad: bool) -> RxFrame {
        RxFrame {
            bytes: (0..len).map(|i| (i as u8).wrapping_add(seed)).collect(),
            at_ps,
            bad,
        }
    }

    /// Lane alignment, sof one cycle after the /S/ word, beats in order and whole, gaps kept.
    #[test]
    fn starts_on_half_words_sof_a_cycle_after_and_beats_whole() {
        let (p, phase) = (6400u64, 1700u64);
        let mut rx = XgmiiRx::new(p, phase);
        // 1: on a lane-0 boundary; 2: 100 ps after one (lane 4, 3.1 ns later); 3: behind 2, bad
        let t1 = phase + 100 * p;
        let t2 = phase + 200 * p + 100;
        rx.inject(frame(60, 1, t1, false));
        rx.inject(frame(61, 2, t2, false));
        rx.inject(frame(1514, 3, t2, true));
        let mut inp = BoardIn::default();
        let mut sofs = Vec::new();
        let mut beats: Vec<(u64, u64, u64, u64, u64)> = Vec::new();
        for k in 0..2000u64 {
            let now = phase + k * p;
            rx.drive(&mut inp, now);
            if inp.rx_sof == 1 {
                sofs.push((now, inp.rx_sof_lane4));
            }
            if inp.rx_tvalid == 1 {
                beats.push((
                    now,
                    inp.rx_tdata[0],
                    inp.rx_tkeep,
                    inp.rx_tlast,
                    inp.rx_tuser,
                ));
            }
            rx.clock(&inp, k, now);
        }
        let a = rx.take_arrivals();
        assert_eq!(
            a.iter().map(|f| f.len).collect::<Vec<_>>(),
            vec![60, 61, 1514]
        );
        assert_eq!(a[0].start_ps, t1);
        assert_eq!(a[1].start_ps, phase + 200 * p + p / 2);
        // frame 3 after frame 2's 8 + 61 + 4 + 12 = 85 octets, rounded up to a half word
        let free = a[1].start_ps + 85 * 800;
        assert_eq!(a[2].start_ps, rx.boundary(free));
        assert!(a[2].start_ps - free < p / 2);
        assert_eq!(
            sofs,
            vec![
                (t1 + p, 0),
                (a[1].start_ps - p / 2 + p, 1),
                (
                    rx.boundary(free) - (rx.boundary(free) - phase) / (p / 2) % 2 * (p / 2) + p,
                    (rx.boundary(free) - phase) / (p / 2) % 2
                )
            ]
        );
        // bytes back whole, in order, one beat per cycle, tuser only on frame 3's last beat
        let mut bytes = Vec::new();
        for b in &beats {
            let n = b.2.trailing_ones() as usize;
            bytes.extend((0..n).map(|i| (b.1 >> (8 * i)) as u8));
        }
        let want: Vec<u8> = [
            frame(60, 1, 0, false),
            frame(61, 2, 0, false),
            frame(1514, 3, 0, true),
        ]
        .iter()
        .flat_map(|f| f.bytes.clone())
        .collect();
        assert_eq!(bytes, want);
        assert!(beats.windows(2).all(|w| w[1].0 > w[0].0));
        assert_eq!(beats.iter().filter(|b| b.3 == 1).count(), 3);
        assert_eq!(beats.iter().filter(|b| b.4 == 1).count(), 1);
        assert_eq!(beats.last().unwrap().4, 1);
        // a first beat comes at least two cycles after its sof (tsnic_mac_rx's stamp is ready)
        for (f, s) in a.iter().zip(&sofs) {
            assert!(f.first_beat_ps >= s.0 + 2 * p, "{f:?} sof {}", s.0);
        }
        // the last beat of frame 1 not before its FCS has arrived plus the pipeline
        let last1 = beats.iter().find(|b| b.3 == 1).unwrap().0;
        assert!(last1 >= t1 + (8 + 64) * 800 + XGMII_RX_LATENCY * p - p);
        assert_eq!(rx.stats().late_injections, 0);
    }
}
