//! The receive side of the MAC/wire model: frames that arrive on the wire enter the core's RX
//! AXI-Stream (`s_axis_rx_*`).
//!
//! A frame is injected with the simulated time its preamble starts arriving ([`RxPort::inject`]);
//! frames never overlap on the line: a frame starts at `max(its time, end of the previous frame's
//! inter-frame gap)`. Beat `k` of a frame is handed to the core in the first cycle at or after the
//! time its last byte has been received (`start + (preamble + bytes up to the end of beat k) * byte
//! time`), as a MAC hands over words once it has them. So the core's arrival stamp (PHC at the first
//! beat) is the preamble plus the first bus word after the frame started arriving, rounded up to a
//! core cycle. tuser[0] carries the bad-frame flag on every beat. The core is always ready (it
//! drops and counts what it cannot keep); a cycle with `tready` low would simply hold the beat.

use std::collections::VecDeque;

use crate::ffi::{set_wide_byte, PortsIn, PortsOut};
use crate::wire::{LineRate, PREAMBLE};

/// A frame waiting to arrive.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RxFrame {
    /// The frame's bytes without FCS.
    pub bytes: Vec<u8>,
    /// When its preamble starts arriving, ps (the line may push it later).
    pub at_ps: u64,
    /// The MAC flags it bad (FCS error).
    pub bad: bool,
}

/// One frame as the core took it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RxArrival {
    /// Frame length in bytes.
    pub len: usize,
    /// When its preamble started arriving on the line, ps.
    pub start_ps: u64,
    /// Simulated time of the first beat's handshake at the core, ps.
    pub first_beat_ps: u64,
    /// Core clock cycle of that handshake.
    pub first_beat_cycle: u64,
    /// When the line was free again (end of the inter-frame gap), ps.
    pub end_ps: u64,
}

/// Counters of the RX side.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct RxStats {
    /// Frames handed to the core.
    pub frames: u64,
    /// Their bytes.
    pub bytes: u64,
    /// Frames injected after their arrival time had already passed (they start late: the line
    /// cannot go back in time). The loopback needs a delay longer than the longest frame's wire
    /// time, since a TX frame is known whole only at its last beat.
    pub late_injections: u64,
}

struct Cur {
    frame: RxFrame,
    start_ps: u64,
    pos: usize,
    first_beat: Option<(u64, u64)>,
}

/// The RX MAC/line model.
pub struct RxPort {
    rate: LineRate,
    bus_bytes: usize,
    pending: VecDeque<RxFrame>,
    free_ps: u64,
    cur: Option<Cur>,
    arrivals: Vec<RxArrival>,
    stats: RxStats,
    now_ps: u64,
}

impl RxPort {
    /// An RX line at `rate` in front of a `bus_bytes`-wide AXI-Stream.
    pub fn new(rate: LineRate, bus_bytes: usize) -> Self {
        RxPort {
            rate,
            bus_bytes,
            pending: VecDeque::new(),
            free_ps: 0,
            cur: None,
            arrivals: Vec::new(),
            stats: RxStats::default(),
            now_ps: 0,
        }
    }

    /// Queue a frame to arrive at `at_ps`. Frames are kept in time order (equal times: injection order).
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

    /// Wire time of a frame on the line, preamble to the end of its gap, ps.
    fn frame_ps(&self, len: usize) -> u64 {
        self.rate.frame_ps(len as u64)
    }

    /// When the next frame not yet started will start arriving, if any.
    pub fn next_start_ps(&self) -> Option<u64> {
        self.pending.front().map(|f| f.at_ps.max(self.free_ps))
    }

    /// A frame is being handed over, or one starts before `limit_ps`.
    pub fn busy_before(&self, limit_ps: u64) -> bool {
        self.cur.is_some() || self.next_start_ps().is_some_and(|t| t < limit_ps)
    }

    /// A frame is being handed to the core.
    pub fn in_progress(&self) -> bool {
        self.cur.is_some()
    }

    /// Frames waiting (not yet started) and the one in progress.
    pub fn queued(&self) -> usize {
        self.pending.len() + usize::from(self.cur.is_some())
    }

    /// Frames taken by the core so far, in order (then cleared by [`RxPort::take_arrivals`]).
    pub fn arrivals(&self) -> &[RxArrival] {
        &self.arrivals
    }

    /// Append what a kept card keeps of an idle RX line ([`crate::state`]; nothing queued): when the
    /// line is free again and the time of the last edge. Counters and arrival records belong to the
    /// observing process.
    pub(crate) fn save_state(&self, e: &mut crate::state::Enc) {
        e.u64(self.free_ps);
        e.u64(self.now_ps);
    }

    /// Load what [`RxPort::save_state`] wrote.
    pub(crate) fn restore_state(
        &mut self,
        d: &mut crate::state::Dec<'_>,
    ) -> Result<(), crate::state::StateError> {
        self.free_ps = d.u64("RX line free time")?;
        self.now_ps = d.u64("RX line time")?;
        Ok(())
    }

    /// Take the recorded arrivals.
    pub fn take_arrivals(&mut self) -> Vec<RxArrival> {
        std::mem::take(&mut self.arrivals)
    }

    /// Counters.
    pub fn stats(&self) -> RxStats {
        self.stats
    }

    /// Drive the RX stream for the cycle whose clock edge is at `now_ps`.
    pub fn drive(&mut self, inp: &mut PortsIn, now_ps: u64) {
        self.now_ps = now_ps;
        if self.cur.is_none() {
            if let Some(start) = self.next_start_ps() {
                if start <= now_ps {
                    let frame = self.pending.pop_front().expect("pending");
                    self.free_ps = start + self.frame_ps(frame.bytes.len());
                    self.cur = Some(Cur {
                        frame,
                        start_ps: start,
                        pos: 0,
                        first_beat: None,
                    });
                }
            }
        }
        inp.s_axis_rx_tvalid = 0;
        let Some(c) = &self.cur else {
            return;
        };
        let len = c.frame.bytes.len();
        let n = (len - c.pos).min(self.bus_bytes);
        let received = c.start_ps + (PREAMBLE + (c.pos + n) as u64) * self.rate.byte_ps();
        if received > now_ps {
            return;
        }
        inp.s_axis_rx_tdata = [0; crate::ffi::WIDE_WORDS];
        for i in 0..n {
            set_wide_byte(&mut inp.s_axis_rx_tdata, i, c.frame.bytes[c.pos + i]);
        }
        inp.s_axis_rx_tkeep = if n >= 64 { u64::MAX } else { (1u64 << n) - 1 };
        inp.s_axis_rx_tlast = u64::from(c.pos + n == len);
        inp.s_axis_rx_tuser = [u64::from(c.frame.bad), 0];
        inp.s_axis_rx_tvalid = 1;
    }

    /// Take the handshake of the cycle, if any.
    pub fn clock(&mut self, inp: &PortsIn, out: &PortsOut, cycle: u64, now_ps: u64) {
        if !(inp.s_axis_rx_tvalid == 1 && out.s_axis_rx_tready == 1) {
            return;
        }
        let c = self.cur.as_mut().expect("a beat without a frame");
        if c.first_beat.is_none() {
            c.first_beat = Some((now_ps, cycle));
        }
        let n = (c.frame.bytes.len() - c.pos).min(self.bus_bytes);
        c.pos += n;
        if c.pos == c.frame.bytes.len() {
            let c = self.cur.take().expect("current");
            let (first_beat_ps, first_beat_cycle) = c.first_beat.expect("first beat");
            self.stats.frames += 1;
            self.stats.bytes += c.frame.bytes.len() as u64;
            self.arrivals.push(RxArrival {
                len: c.frame.bytes.len(),
                start_ps: c.start_ps,
                first_beat_ps,
                first_beat_cycle,
                end_ps: self.free_ps,
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frames_arrive_in_order_without_overlap_and_at_line_pace() {
        let mut rx = RxPort::new(LineRate::G10, 8);
        rx.inject(RxFrame {
            bytes: vec![1; 100],
            at_ps: 500_000,
            bad: false,
        });
        rx.inject(RxFrame {
            bytes: vec![2; 60],
            at_ps: 0,
            bad: true,
        });
        rx.inject(RxFrame {
            bytes: vec![3; 60],
            at_ps: 0,
            bad: false,
        });
        let (mut inp, mut out) = (PortsIn::default(), PortsOut::default());
        out.s_axis_rx_tready = 1;
        let mut beats = Vec::new();
        for cycle in 0..40_000u64 {
            let now = cycle * 4000;
            rx.drive(&mut inp, now);
            if inp.s_axis_rx_tvalid == 1 {
                beats.push((
                    now,
                    inp.s_axis_rx_tdata[0] as u8,
                    inp.s_axis_rx_tuser[0],
                    inp.s_axis_rx_tlast,
                ));
            }
            rx.clock(&inp, &out, cycle, now);
        }
        let a = rx.take_arrivals();
        assert_eq!(
            a.iter().map(|f| f.len).collect::<Vec<_>>(),
            vec![60, 60, 100]
        );
        // the second 60-byte frame starts after the first one's gap: 8 + 60 + 4 + 12 bytes at 0.8 ns
        assert_eq!(a[1].start_ps, 84 * 800);
        assert_eq!(a[2].start_ps, 500_000);
        // first beat once preamble + 8 bytes are in, rounded up to a cycle
        assert_eq!(a[0].first_beat_ps, (16 * 800u64).div_ceil(4000) * 4000);
        // beats never ahead of the bytes: 100 bytes, last beat after preamble + 100 bytes
        let last = beats.iter().rev().find(|b| b.1 == 1).unwrap();
        assert!(last.0 >= 500_000 + 108 * 800);
        assert!(beats.iter().filter(|b| b.1 == 2).all(|b| b.2 == 1));
        assert_eq!(rx.stats().frames, 3);
    }
}
