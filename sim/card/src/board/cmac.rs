//! The CMAC's TX AXI-Stream as the Alveo board core sees it (the `cmac_usplus_0` IP of
//! board/common/rtl/tsnic_alveo_mac.v, its AXIS user interface), in front of the [`Wire`] model.
//!
//! What the model takes from AMD PG203 (UltraScale+ Devices Integrated 100G Ethernet Subsystem,
//! v3.1):
//! - **The bus.** 512 bits at about 322 MHz ("Features": "512-bit segmented local bus (LBUS)/AXI4-Stream
//!   (AXIS) user interface at ~322 MHz"): one beat carries 64 bytes, 165 Gb/s, so on a busy line the
//!   CMAC holds the bus back most of the time. The board's clock is gt_txusrclk2 at 322.265625 MHz
//!   (tsnic_alveo_top.v `MAC_PERIOD_FX`).
//! - **No gaps inside a packet.** Once a packet has started, a cycle without data while the CMAC is
//!   ready under-runs its buffer and the packet is not sent whole ("Invalid Cycles", its table of
//!   invalid TX segmented LBUS cycles: cycle 7, an idle cycle with tx_rdyout asserted during a
//!   packet, and cycle 9, an idle segment inside a packet; the AXIS user interface, "Features", is
//!   the same 512-bit bus: the model takes PG203's LBUS rules for it).
//!   Counted in [`CmacStats::gaps`]; the tests require none.
//! - **Its ready.** tready follows the fill level of the CMAC's TX buffer and reacts a cycle late:
//!   PG203 "tx_rdyout" lets up to four writes through after tx_rdyout falls (the buffer has room
//!   beyond its threshold), so the model computes tready at each edge from the buffer as that edge
//!   left it, and lowers it while more than the threshold of line time is queued ahead of the line
//!   (the [`Wire`] model's two bus words: 128 bytes, 10.24 ns at 100G). On an idle line tready is
//!   high; behind a busy one it is low for the cycles the line needs beyond the bus's (about two in
//!   five for long frames).
//! - **A fixed latency.** From the serialiser's view everything happens [`CmacConfig::latency_ps`]
//!   later than the AXIS handshake: a frame's first beat reaches the line's serialiser that long after
//!   its handshake, and its start on the line is then as the wire model has it (at once on an idle
//!   line, else when the previous frame's gap ends; 8-octet start columns, deficit idle count). The
//!   latency's value is not in the PG203 sections the model was written from (a card must measure
//!   it, docs/BOARDS.md "Departure stamp"): it is a setting, 0 by default; the tests set a non-zero
//!   one and the matching CTRL_TX_LAT_COMP_NS.
//!
//! Not modelled: the LBUS segments behind the AXIS front end, alignment markers (they take
//! 1/16384 of the line), pause frames, the RX side (idle in the board co-simulation).

use crate::ffi::{PortsIn, PortsOut};
use crate::wire::Wire;

/// The CMAC's settings.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct CmacConfig {
    /// From a frame's first-beat handshake on tx_axis to its first beat at the line's serialiser,
    /// ps (its start on an idle line). Not from PG203: measure it on a card.
    pub latency_ps: u64,
}

/// What the CMAC model saw.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct CmacStats {
    /// MAC clock cycles.
    pub cycles: u64,
    /// Cycles with tready low.
    pub not_ready: u64,
    /// Cycles with tvalid high and tready low (the card held back).
    pub held: u64,
    /// Beats taken.
    pub beats: u64,
    /// Cycles inside a packet with tready high and no beat (an under-run, PG203 "Invalid Cycles").
    pub gaps: u64,
}

/// The CMAC's TX AXI-Stream: ready, the in-packet check, the latency; the [`Wire`] serialises.
#[derive(Debug, Clone)]
pub struct Cmac {
    cfg: CmacConfig,
    /// tready for the next cycle (computed at the last edge).
    ready: bool,
    in_packet: bool,
    stats: CmacStats,
}

impl Cmac {
    /// An idle CMAC (ready).
    pub fn new(cfg: CmacConfig) -> Self {
        Cmac {
            cfg,
            ready: true,
            in_packet: false,
            stats: CmacStats::default(),
        }
    }

    /// A packet has started and not ended on tx_axis.
    pub fn in_packet(&self) -> bool {
        self.in_packet
    }

    /// Append what a kept board card keeps ([`crate::state`]): tready as computed at the last edge
    /// and whether a packet is open. The counters belong to the observing process.
    pub(crate) fn save_state(&self, e: &mut crate::state::Enc) {
        e.bool(self.ready);
        e.bool(self.in_packet);
    }

    /// Load what [`Cmac::save_state`] wrote.
    pub(crate) fn restore_state(
        &mut self,
        d: &mut crate::state::Dec<'_>,
    ) -> Result<(), crate::state::StateError> {
        self.ready = d.bool("CMAC tready")?;
        self.in_packet = d.bool("CMAC packet open")?;
        Ok(())
    }

    /// The settings.
    pub fn config(&self) -> &CmacConfig {
        &self.cfg
    }

    /// Counters.
    pub fn stats(&self) -> CmacStats {
        self.stats
    }

    /// The serialiser's time for the MAC edge at `now_ps`.
    pub fn line_time(&self, now_ps: u64) -> u64 {
        now_ps + self.cfg.latency_ps
    }

    /// Drive the wire's inputs for the MAC edge at `now_ps`: its line-start reports are taken and
    /// dropped (the CMAC has none for the card), tready is the CMAC's own.
    pub fn drive(&self, wire: &Wire, inp: &mut PortsIn, now_ps: u64) {
        wire.drive(inp, self.line_time(now_ps));
        inp.m_axis_tx_tready = u64::from(self.ready);
    }

    /// The handshake of the MAC edge at `now_ps` (`inp` as driven, `out` the card's stream before
    /// the edge): checks, then the beat to the wire, then tready for the next cycle.
    pub fn clock(
        &mut self,
        wire: &mut Wire,
        inp: &PortsIn,
        out: &PortsOut,
        cycle: u64,
        now_ps: u64,
    ) {
        let ready = inp.m_axis_tx_tready == 1;
        let valid = out.m_axis_tx_tvalid == 1;
        self.stats.cycles += 1;
        if !ready {
            self.stats.not_ready += 1;
            if valid {
                self.stats.held += 1;
            }
        } else if valid {
            self.stats.beats += 1;
            self.in_packet = out.m_axis_tx_tlast == 0;
        } else if self.in_packet {
            self.stats.gaps += 1;
        }
        let t = self.line_time(now_ps);
        wire.clock(inp, out, cycle, t);
        let mut next = PortsIn::default();
        wire.drive(&mut next, t);
        self.ready = next.m_axis_tx_tready == 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ffi::set_wide_byte;
    use crate::wire::LineRate;

    /// Frames of `len` bytes offered back to back at 322.265625 MHz (period 102400/33 ps).
    fn run(len: usize, frames: usize, latency_ps: u64) -> (Cmac, Wire) {
        let mut c = Cmac::new(CmacConfig { latency_ps });
        let mut w = Wire::new(LineRate::G100, 64);
        let (mut fi, mut pos, mut k) = (0usize, 0usize, 0u64);
        while fi < frames {
            let now = k * 102_400 / 33;
            let mut inp = PortsIn::default();
            c.drive(&w, &mut inp, now);
            let n = (len - pos).min(64);
            let mut out = PortsOut {
                m_axis_tx_tvalid: 1,
                m_axis_tx_tlast: u64::from(pos + n == len),
                m_axis_tx_tkeep: if n == 64 { u64::MAX } else { (1u64 << n) - 1 },
                ..PortsOut::default()
            };
            for i in 0..n {
                set_wide_byte(&mut out.m_axis_tx_tdata, i, (fi + i) as u8);
            }
            c.clock(&mut w, &inp, &out, k, now);
            if inp.m_axis_tx_tready == 1 {
                pos += n;
                if pos == len {
                    pos = 0;
                    fi += 1;
                }
            }
            k += 1;
        }
        (c, w)
    }

    #[test]
    fn back_to_back_frames_fill_the_line_and_ready_paces_the_bus() {
        let (c, w) = run(1500, 200, 0);
        let f = w.frames();
        assert_eq!(f.len(), 200);
        assert_eq!(w.stats().underruns, 0);
        assert_eq!(c.stats().gaps, 0);
        // back to back on the line: each starts when the previous one's gap ends
        for p in f.windows(2).skip(1) {
            assert_eq!(p[1].start_ps, p[0].end_ps);
        }
        // 1500 bytes: 24 beats (3.1 ns each) against 1524 octets (121.9 ns) of line: ready low
        // about 40 % of the time
        let s = c.stats();
        let low = s.not_ready as f64 / s.cycles as f64;
        assert!((0.35..0.45).contains(&low), "tready low {low}");
    }

    #[test]
    fn latency_moves_the_line_start_of_an_idle_line_only_by_itself() {
        let (_, a) = run(60, 1, 0);
        let (_, b) = run(60, 1, 40_000);
        assert_eq!(b.frames()[0].start_ps, a.frames()[0].start_ps + 40_000);
    }

    #[test]
    fn a_gap_inside_a_packet_is_counted() {
        let mut c = Cmac::new(CmacConfig::default());
        let mut w = Wire::new(LineRate::G100, 64);
        for (k, (valid, last)) in [(1, 0), (0, 0), (1, 1)].iter().enumerate() {
            let now = k as u64 * 3103;
            let mut inp = PortsIn::default();
            c.drive(&w, &mut inp, now);
            let out = PortsOut {
                m_axis_tx_tvalid: *valid,
                m_axis_tx_tlast: *last,
                m_axis_tx_tkeep: u64::MAX,
                ..PortsOut::default()
            };
            c.clock(&mut w, &inp, &out, k as u64, now);
        }
        assert_eq!(c.stats().gaps, 1);
    }
}
