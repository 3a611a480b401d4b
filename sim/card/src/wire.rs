//! The MAC and the wire: takes the core's AXI-Stream TX and serializes frames at line rate.
//!
//! Time is kept in integer picoseconds (a byte lasts 800 ps at 10 Gb/s, 320 ps at 25 Gb/s, 80 ps at
//! 100 Gb/s; a 250 MHz cycle is 4000 ps), so the model is exact and deterministic.
//!
//! A frame occupies the wire for preamble+SFD (8 bytes), its bytes (padded to 60), FCS (4 bytes) and the
//! inter-frame gap (12 bytes); frames never overlap. The MAC has a small FIFO: it accepts a beat while
//! less than two bus words' worth of wire time is queued ahead of it (the rest of the frame on the
//! wire and its gap included), which throttles a bus faster than the line to line rate and lets a
//! 512-bit bus at 250 MHz (one frame per beat at most) keep 100G busy with minimum-size frames.
//! A frame starts on the wire (preamble) at its first beat's clock edge on an idle line, or when the
//! previous frame's gap ends, the gap being the one a real MAC's reconciliation sublayer leaves (below).
//! A beat that arrives after its first byte was due on the wire is an
//! **underrun** (a real MAC would abort the frame): it is counted, and the co-simulation tests require
//! none.
//!
//! The MAC reports each frame's start on the line back to the core (tsnic_core `TX_MAC_LAG`): in the
//! cycle after it takes a frame's first beat it drives `s_mac_tx_lag_valid` with the time from that
//! beat's clock edge to the frame's preamble (`start_ps - first_beat_ps`, whole ns: 0 on an idle line,
//! up to the FIFO's depth on a busy one), so the card's departure stamp is the frame's start on the
//! line, as a MAC that counts its own cycles would report it.
//!
//! **Start alignment and deficit idle count.** On 10G (XGMII) and 25G (25GMII) the Start control
//! character, which takes the preamble's first octet, goes only in lane 0 of a 4-octet column (on a
//! 64-bit XGMII: lane 0 or lane 4), IEEE 802.3 clause 46.3.1.4 (802.3by extends the clause-46 RS to
//! 25GMII). The RS keeps the line at full rate with a deficit idle count (DIC, the standard's second
//! method): to align the next start it removes idles from the gap (1..3) while the count of removed
//! idles stays within 0..3, else it adds idles up to the next column (the count drops by as many, not
//! below 0), so the gap is 9..15 octets and 12 on average. On 100G the 64B/66B PCS has one start
//! block only, with the Start in the first octet of an 8-octet block (clause 82.2.18.2.3, block type
//! 0x78), so starts go on 8-octet columns; the model applies the same rule with a count of 0..7
//! (gap 5..19 octets, 12 on average, which keeps 148.8 Mpps at 60 bytes as a CMAC does; the
//! standard's clause-81 text for the 100G count is not checked here). The decision is taken at the
//! frame's end, over the minimum gap, as tsnic_xgmii_tx does: a frame whose first beat comes later
//! than that starts at its first beat (an idle line) and leaves the count as it was. Columns count from
//! the start of the busy period's first frame, which begins at its first beat's edge: the co-simulated
//! MAC is clocked by the core (a 4 ns cycle is 5 octets at 10G, no whole number of columns), as on a
//! board the gate runs on the MAC's clock so that an idle-line start is in lane 0 at a fixed latency.

use crate::ffi::{wide_byte, PortsIn, PortsOut};

/// Preamble and start-of-frame delimiter, bytes.
pub const PREAMBLE: u64 = 8;
/// Frame check sequence, bytes.
pub const FCS: u64 = 4;
/// Inter-frame gap, bytes.
pub const IFG: u64 = 12;
/// Shortest frame without FCS: shorter frames are padded by the MAC.
pub const MIN_FRAME: u64 = 60;

/// Line rate of the wire.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum LineRate {
    /// 10 Gb/s.
    #[default]
    G10,
    /// 25 Gb/s.
    G25,
    /// 100 Gb/s.
    G100,
}

impl LineRate {
    /// Duration of one byte in ps.
    pub fn byte_ps(self) -> u64 {
        match self {
            LineRate::G10 => 800,
            LineRate::G25 => 320,
            LineRate::G100 => 80,
        }
    }
    /// Bits per second.
    pub fn bits_per_s(self) -> u64 {
        8_000_000_000_000 / self.byte_ps()
    }
    /// Parse `10`, `25`, `100` (optionally with `g`/`G`).
    pub fn parse(s: &str) -> Option<LineRate> {
        match s.trim_end_matches(['g', 'G']) {
            "10" => Some(LineRate::G10),
            "25" => Some(LineRate::G25),
            "100" => Some(LineRate::G100),
            _ => None,
        }
    }
    /// Wire time of a frame of `len` bytes (without FCS), preamble to end of the nominal 12-octet gap,
    /// in ps (the gap after the deficit idle count is 12 octets on average: [`LineRate::dic_max`]).
    pub fn frame_ps(self, len: u64) -> u64 {
        (PREAMBLE + len.max(MIN_FRAME) + FCS + IFG) * self.byte_ps()
    }
    /// Octets per column: a frame's Start goes only in the first octet of one (10G and 25G: 4,
    /// IEEE 802.3 46.3.1.4; 100G: 8, the 64B/66B start block of 82.2.18.2.3).
    pub fn column_octets(self) -> u64 {
        match self {
            LineRate::G10 | LineRate::G25 => 4,
            LineRate::G100 => 8,
        }
    }
    /// Most idles the deficit idle count may have removed (column - 1): a gap is never shorter than
    /// `IFG - dic_max` octets.
    pub fn dic_max(self) -> u64 {
        self.column_octets() - 1
    }
    /// The gap after a frame of `len` bytes that started at a column boundary, with the deficit idle
    /// count `dic` before it: (gap in octets, the count after it). IEEE 802.3 46.3.1.4: the 12-octet
    /// gap is shortened to the previous column boundary while the count of removed idles stays within
    /// 0..=dic_max, else lengthened to the next one (the count drops by the idles added, not below 0).
    pub fn dic_gap(self, len: u64, dic: u64) -> (u64, u64) {
        let col = self.column_octets();
        let r = (PREAMBLE + len.max(MIN_FRAME) + FCS + IFG) % col;
        if r == 0 {
            (IFG, dic)
        } else if dic + r <= self.dic_max() {
            (IFG - r, dic + r)
        } else {
            (IFG + col - r, dic.saturating_sub(col - r))
        }
    }
}

/// One frame as it went out.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WireFrame {
    /// The frame's bytes as the core sent them (no FCS).
    pub bytes: Vec<u8>,
    /// Core clock cycle of the first beat's handshake.
    pub first_beat_cycle: u64,
    /// Simulated time of the first beat's handshake, ps since the simulation started.
    pub first_beat_ps: u64,
    /// When the preamble starts on the wire, ps: the first beat's edge on an idle line.
    pub start_ps: u64,
    /// When the wire is free again (end of the inter-frame gap after the deficit idle count: the
    /// earliest start of the next frame), ps.
    pub end_ps: u64,
    /// `tuser` was set on some beat (errored frame).
    pub errored: bool,
}

/// Counters of the wire model.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct WireStats {
    /// Frames sent.
    pub frames: u64,
    /// Frame bytes sent (no preamble, FCS, gap, padding).
    pub bytes: u64,
    /// Beats that came after their first byte was due on the wire.
    pub underruns: u64,
    /// Beats with a bad `tkeep` (a hole, or a partial word before `tlast`).
    pub keep_errors: u64,
}

struct InFlight {
    bytes: Vec<u8>,
    first_beat_cycle: u64,
    first_beat_ps: u64,
    start_ps: u64,
    errored: bool,
}

/// The MAC/wire model.
pub struct Wire {
    rate: LineRate,
    bus_bytes: u64,
    free_ps: u64,
    /// Deficit idle count (IEEE 802.3 46.3.1.4): idles removed from gaps so far, not yet repaid.
    dic: u64,
    cur: Option<InFlight>,
    frames: Vec<WireFrame>,
    stats: WireStats,
    record: bool,
    looped: Option<Vec<WireFrame>>,
    /// Line-start reports owed to the core (ns after the first beat), oldest first.
    lags: std::collections::VecDeque<u64>,
}

impl Wire {
    /// A wire at `rate` behind a `bus_bytes`-wide AXI-Stream.
    pub fn new(rate: LineRate, bus_bytes: usize) -> Self {
        Wire {
            rate,
            bus_bytes: bus_bytes as u64,
            free_ps: 0,
            dic: 0,
            cur: None,
            frames: Vec::new(),
            stats: WireStats::default(),
            record: true,
            looped: None,
            lags: std::collections::VecDeque::new(),
        }
    }

    /// The line rate.
    pub fn rate(&self) -> LineRate {
        self.rate
    }

    /// Keep the frames' bytes (default) or only count them (long benchmarks).
    pub fn set_recording(&mut self, on: bool) {
        self.record = on;
    }

    /// Also keep a copy of every frame for the loopback to the RX side (on) or not (off, default).
    pub(crate) fn set_loop(&mut self, on: bool) {
        self.looped = if on { Some(Vec::new()) } else { None };
    }

    /// Take the frames kept for the loopback.
    pub(crate) fn take_looped(&mut self) -> Vec<WireFrame> {
        self.looped.as_mut().map(std::mem::take).unwrap_or_default()
    }

    /// Frames recorded so far, in wire order.
    pub fn frames(&self) -> &[WireFrame] {
        &self.frames
    }

    /// Take the recorded frames out.
    pub fn take_frames(&mut self) -> Vec<WireFrame> {
        std::mem::take(&mut self.frames)
    }

    /// Counters.
    pub fn stats(&self) -> WireStats {
        self.stats
    }

    /// True while a frame is being accepted or the wire is still busy at `now_ps`.
    pub fn busy(&self, now_ps: u64) -> bool {
        self.cur.is_some() || now_ps < self.free_ps || !self.lags.is_empty()
    }

    /// Wire time the MAC may hold queued ahead of the present: two bus words.
    fn fifo_ps(&self) -> u64 {
        2 * self.bus_bytes * self.rate.byte_ps()
    }

    /// Append the state a persistent card keeps (see [`crate::state`]): when the line is free, a frame
    /// being taken, the counters. Recorded frames belong to the observing process and are not kept.
    pub(crate) fn save_state(&self, e: &mut crate::state::Enc) {
        e.u64(self.free_ps);
        e.u64(self.dic);
        for v in [
            self.stats.frames,
            self.stats.bytes,
            self.stats.underruns,
            self.stats.keep_errors,
        ] {
            e.u64(v);
        }
        e.bool(self.cur.is_some());
        if let Some(f) = &self.cur {
            e.bytes(&f.bytes);
            e.u64(f.first_beat_cycle);
            e.u64(f.first_beat_ps);
            e.u64(f.start_ps);
            e.bool(f.errored);
        }
        e.u64(self.lags.len() as u64);
        for &l in &self.lags {
            e.u64(l);
        }
    }

    /// Load what [`Wire::save_state`] wrote.
    pub(crate) fn restore_state(
        &mut self,
        d: &mut crate::state::Dec<'_>,
    ) -> Result<(), crate::state::StateError> {
        self.free_ps = d.u64("wire free time")?;
        self.dic = d.u64("deficit idle count")?.min(self.rate.dic_max());
        self.stats = WireStats {
            frames: d.u64("wire counters")?,
            bytes: d.u64("wire counters")?,
            underruns: d.u64("wire counters")?,
            keep_errors: d.u64("wire counters")?,
        };
        self.cur = if d.bool("frame in flight")? {
            Some(InFlight {
                bytes: d.bytes("frame in flight")?.to_vec(),
                first_beat_cycle: d.u64("frame in flight")?,
                first_beat_ps: d.u64("frame in flight")?,
                start_ps: d.u64("frame in flight")?,
                errored: d.bool("frame in flight")?,
            })
        } else {
            None
        };
        let n = d.u64("line-start reports owed")?;
        self.lags.clear();
        for _ in 0..n.min(1 << 16) {
            self.lags.push_back(d.u64("line-start reports owed")?);
        }
        self.frames.clear();
        Ok(())
    }

    /// Drive `tready` for the cycle whose clock edge is at `now_ps`.
    pub fn drive(&self, inp: &mut PortsIn, now_ps: u64) {
        // When the wire has taken everything accepted so far (for a frame in progress, its bytes so far).
        let queued_until = match &self.cur {
            None => self.free_ps,
            Some(f) => f.start_ps + (PREAMBLE + f.bytes.len() as u64) * self.rate.byte_ps(),
        };
        inp.m_axis_tx_tready = (queued_until.saturating_sub(now_ps) < self.fifo_ps()) as u64;
        // the oldest line-start report owed (taken at this cycle's edge)
        inp.s_mac_tx_lag_valid = !self.lags.is_empty() as u64;
        inp.s_mac_tx_lag_ns = self.lags.front().copied().unwrap_or(0);
    }

    /// Take the beat of the cycle, if any.
    pub fn clock(&mut self, inp: &PortsIn, out: &PortsOut, cycle: u64, now_ps: u64) {
        if inp.s_mac_tx_lag_valid == 1 {
            self.lags.pop_front();
        }
        if !(out.m_axis_tx_tvalid == 1 && inp.m_axis_tx_tready == 1) {
            return;
        }
        let keep = out.m_axis_tx_tkeep;
        let mask = |n: u64| if n >= 64 { u64::MAX } else { (1u64 << n) - 1 };
        let full = mask(self.bus_bytes);
        let n = (keep & full).trailing_ones() as u64;
        let last = out.m_axis_tx_tlast == 1;
        if keep & full != mask(n) || (!last && n != self.bus_bytes) || n == 0 {
            self.stats.keep_errors += 1;
        }
        let free_ps = self.free_ps;
        if self.cur.is_none() {
            // an idle line: at the first beat; a busy one: when the gap (after the DIC) ends
            let start_ps = now_ps.max(free_ps);
            // whole ns, rounded down: the PHC the core adds it to counts whole ns
            self.lags
                .push_back(((start_ps - now_ps) / 1000).min(u64::from(u16::MAX)));
        }
        let f = self.cur.get_or_insert_with(|| InFlight {
            bytes: Vec::new(),
            first_beat_cycle: cycle,
            first_beat_ps: now_ps,
            start_ps: now_ps.max(free_ps),
            errored: false,
        });
        let offset = f.bytes.len() as u64;
        let due = f.start_ps + (PREAMBLE + offset) * self.rate.byte_ps();
        if now_ps > due {
            self.stats.underruns += 1;
        }
        for i in 0..n as usize {
            f.bytes.push(wide_byte(&out.m_axis_tx_tdata, i));
        }
        f.errored |= out.m_axis_tx_tuser & 1 == 1;
        if last {
            let f = self.cur.take().expect("in flight");
            let len = f.bytes.len() as u64;
            let (gap, dic) = self.rate.dic_gap(len, self.dic);
            let end_ps =
                f.start_ps + (PREAMBLE + len.max(MIN_FRAME) + FCS + gap) * self.rate.byte_ps();
            self.dic = dic;
            self.free_ps = end_ps;
            self.stats.frames += 1;
            self.stats.bytes += len;
            let wf = WireFrame {
                bytes: f.bytes,
                first_beat_cycle: f.first_beat_cycle,
                first_beat_ps: f.first_beat_ps,
                start_ps: f.start_ps,
                end_ps,
                errored: f.errored,
            };
            if let Some(l) = &mut self.looped {
                l.push(wf.clone());
            }
            if self.record {
                self.frames.push(wf);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ffi::set_wide_byte;

    /// Streams frames into the wire as fast as it accepts them: (frames, cycles used).
    fn stream(wire: &mut Wire, period_ps: u64, frames: &[Vec<u8>], gaps: &[u64]) -> u64 {
        let bus = wire.bus_bytes as usize;
        let mut inp = PortsIn::default();
        let mut out = PortsOut::default();
        let (mut fi, mut pos, mut cycle) = (0usize, 0usize, 0u64);
        let mut wait_until = gaps.first().copied().unwrap_or(0);
        while fi < frames.len() {
            let now = cycle * period_ps;
            let f = &frames[fi];
            out.m_axis_tx_tvalid = (cycle >= wait_until) as u64;
            let n = (f.len() - pos).min(bus);
            out.m_axis_tx_tdata = [0; 8];
            for i in 0..n {
                set_wide_byte(&mut out.m_axis_tx_tdata, i, f[pos + i]);
            }
            out.m_axis_tx_tkeep = if n == 64 { u64::MAX } else { (1u64 << n) - 1 };
            out.m_axis_tx_tlast = (pos + n == f.len()) as u64;
            wire.drive(&mut inp, now);
            wire.clock(&inp, &out, cycle, now);
            if out.m_axis_tx_tvalid == 1 && inp.m_axis_tx_tready == 1 {
                pos += n;
                if pos == f.len() {
                    fi += 1;
                    pos = 0;
                    wait_until = cycle + 1 + gaps.get(fi).copied().unwrap_or(0);
                }
            }
            cycle += 1;
            assert!(cycle < 100_000_000);
        }
        cycle
    }

    fn frame(len: usize, seed: u8) -> Vec<u8> {
        (0..len)
            .map(|i| (i as u8).wrapping_mul(7).wrapping_add(seed))
            .collect()
    }

    #[test]
    fn back_to_back_min_frames_at_10g_never_overlap_and_keep_line_rate() {
        let mut w = Wire::new(LineRate::G10, 8);
        let frames: Vec<Vec<u8>> = (0..100).map(|i| frame(60, i as u8)).collect();
        stream(&mut w, 4000, &frames, &[]);
        let got = w.frames();
        assert_eq!(got.len(), 100);
        for (g, f) in got.iter().zip(&frames) {
            assert_eq!(&g.bytes, f);
            // 84 octets is a whole number of 4-octet columns: the gap stays 12, the count 0
            assert_eq!(g.end_ps - g.start_ps, 84 * 800);
        }
        for p in got.windows(2) {
            // Back to back: the next preamble starts exactly when the gap ends.
            assert_eq!(p[1].start_ps, p[0].end_ps);
            assert!(p[1].first_beat_ps <= p[1].start_ps);
        }
        assert_eq!(w.stats().underruns, 0);
        assert_eq!(w.stats().keep_errors, 0);
    }

    /// Gaps (octets after the FCS) between back-to-back frames of one length, from the wire.
    fn gaps(w: &Wire) -> Vec<u64> {
        let b = w.rate.byte_ps();
        w.frames()
            .windows(2)
            .map(|p| {
                let end_fcs = p[0].start_ps + (PREAMBLE + p[0].bytes.len() as u64 + FCS) * b;
                (p[1].start_ps - end_fcs) / b
            })
            .collect()
    }

    /// IEEE 802.3 46.3.1.4 (deficit idle count, 0..3) on back-to-back frames at 10G: every start in
    /// lane 0 of a 4-octet column, gaps of 12 octets on average, never shorter than 9. The expected
    /// sequences are the standard's rule worked by hand: frame + preamble + FCS + 12 octets is
    /// 85/86/87 octets for 61/62/63 bytes, 1/2/3 octets past a column:
    /// - 61: remove 1 idle while the count stays <= 3 (11, 11, 11: count 3), then add 3 (15: count 0);
    /// - 62: remove 2 (10: count 2), then 2 + 2 > 3: add 2 (14: count 0);
    /// - 63: remove 3 (9: count 3), then add 1 three times (13, 13, 13: count 2, 1, 0).
    #[test]
    fn deficit_idle_count_at_10g_aligns_starts_and_keeps_the_12_octet_average() {
        for (len, pattern) in [
            (60usize, vec![12u64]),
            (61, vec![11, 11, 11, 15]),
            (62, vec![10, 14]),
            (63, vec![9, 13, 13, 13]),
            (64, vec![12]),
            (1514, vec![10, 14]),
        ] {
            let mut w = Wire::new(LineRate::G10, 8);
            let frames: Vec<Vec<u8>> = (0..400).map(|i| frame(len, i as u8)).collect();
            stream(&mut w, 4000, &frames, &[]);
            assert_eq!(w.frames().len(), 400);
            assert_eq!(w.stats().underruns, 0);
            let t0 = w.frames()[0].start_ps;
            for f in w.frames() {
                // a 4-octet column is 3.2 ns: lane 0 or lane 4 of a 64-bit XGMII word
                assert_eq!((f.start_ps - t0) % 3200, 0, "{len}: start off a column");
            }
            let g = gaps(&w);
            for (i, gap) in g.iter().enumerate() {
                assert_eq!(*gap, pattern[i % pattern.len()], "{len}: gap {i} of {g:?}");
                assert!((9..=15).contains(gap));
            }
            // the deficit: idles removed so far minus idles added, never beyond 3 nor below 0
            let mut deficit = 0i64;
            for gap in &g {
                deficit = (deficit + 12 - *gap as i64).max(0);
                assert!((0..=3).contains(&deficit), "{len}: deficit {deficit}");
            }
            // average over whole patterns: 12 octets exactly
            let n = g.len() / pattern.len() * pattern.len();
            assert_eq!(g[..n].iter().sum::<u64>(), 12 * n as u64, "{len}");
            // the line rate holds: 400 frames in 400 x (frame + 20) octets, up to one pattern's swing
            let span = w.frames().last().unwrap().start_ps - t0;
            let nominal = 399 * LineRate::G10.frame_ps(len as u64);
            assert!(
                span.abs_diff(nominal) <= 3 * 800,
                "{len}: {span} vs {nominal}"
            );
        }
    }

    /// A frame whose first beat comes after the gap is over starts at its first beat and leaves the
    /// count alone; the next back-to-back frames go on from it.
    #[test]
    fn idle_line_start_keeps_the_count() {
        let mut w = Wire::new(LineRate::G10, 8);
        // two 63-byte frames back to back (count 3 after the first gap), a pause, then two more
        stream(
            &mut w,
            4000,
            &[frame(63, 0), frame(63, 1), frame(63, 2), frame(63, 3)],
            &[0, 0, 100, 0],
        );
        let f = w.frames();
        assert_eq!(gaps(&w)[0], 9);
        assert_eq!(f[2].start_ps, f[2].first_beat_ps);
        // count 3 + 3 > 3 after the second frame, 2 after the third: 13, as the pattern goes on
        assert_eq!(gaps(&w)[2], 13);
    }

    /// 100G: starts on 8-octet blocks (802.3 82.2.18.2.3), count 0..7. 60 bytes: 84 octets, 4 past
    /// a block: remove 4 (gap 8, count 4), then 4 + 4 > 7: add 4 (gap 16, count 0).
    #[test]
    fn deficit_idle_count_at_100g_on_8_octet_blocks() {
        let mut w = Wire::new(LineRate::G100, 64);
        let frames: Vec<Vec<u8>> = (0..200).map(|i| frame(60, i as u8)).collect();
        stream(&mut w, 4000, &frames, &[]);
        let t0 = w.frames()[0].start_ps;
        for f in w.frames() {
            assert_eq!((f.start_ps - t0) % 640, 0);
        }
        for (i, gap) in gaps(&w).iter().enumerate() {
            assert_eq!(*gap, [8, 16][i % 2], "gap {i}");
        }
    }

    #[test]
    fn line_rate_at_100g_with_512_bit_bus() {
        // 250 MHz, 512 bits: 60-byte frames need 6.72 ns of wire, the bus offers a beat every 4 ns,
        // so the wire (not the bus) is the limit: 148.8 Mpps.
        let mut w = Wire::new(LineRate::G100, 64);
        let frames: Vec<Vec<u8>> = (0..1000).map(|i| frame(60, i as u8)).collect();
        stream(&mut w, 4000, &frames, &[]);
        let f = w.frames();
        let span = f.last().unwrap().end_ps - f[0].start_ps;
        let mpps = 1000.0 / (span as f64 * 1e-12) / 1e6;
        // the deficit idle count keeps the 12-octet average gap: 148.81 Mpps, as without it
        assert!((mpps - 148.81).abs() < 0.01, "{mpps}");
        for p in f.windows(2) {
            assert_eq!(p[1].start_ps, p[0].end_ps);
        }
        assert_eq!(w.stats().underruns, 0);
        let jumbo = vec![frame(9000, 1), frame(1514, 2)];
        let mut w = Wire::new(LineRate::G100, 64);
        stream(&mut w, 4000, &jumbo, &[]);
        assert_eq!(w.stats().underruns, 0);
        assert_eq!(w.frames()[0].bytes, jumbo[0]);
    }

    #[test]
    fn slow_bus_underruns_are_counted() {
        // 64-bit bus at 250 MHz is 16 Gb/s: too slow for 25G.
        let mut w = Wire::new(LineRate::G25, 8);
        stream(&mut w, 4000, &[frame(1514, 0)], &[]);
        assert!(w.stats().underruns > 0);
    }

    #[test]
    fn idle_line_frame_starts_at_its_first_beat() {
        let mut w = Wire::new(LineRate::G10, 8);
        stream(&mut w, 4000, &[frame(100, 0), frame(100, 1)], &[10, 1000]);
        let f = w.frames();
        assert_eq!(f[0].first_beat_cycle, 10);
        assert_eq!(f[0].start_ps, 40_000);
        assert_eq!(f[0].first_beat_ps, 40_000);
        assert!(f[1].start_ps > f[0].end_ps);
        assert_eq!(f[1].start_ps, f[1].first_beat_ps);
    }

    #[test]
    fn deterministic() {
        let frames: Vec<Vec<u8>> = (0..50).map(|i| frame(60 + i * 13, i as u8)).collect();
        let run = || {
            let mut w = Wire::new(LineRate::G10, 8);
            stream(&mut w, 4000, &frames, &[3, 0, 7]);
            w.take_frames()
        };
        assert_eq!(run(), run());
    }

    #[test]
    fn rates() {
        assert_eq!(LineRate::G10.bits_per_s(), 10_000_000_000);
        assert_eq!(LineRate::G100.bits_per_s(), 100_000_000_000);
        assert_eq!(LineRate::parse("25g"), Some(LineRate::G25));
        assert_eq!(LineRate::parse("40"), None);
        // 100G minimum frames: 84 bytes * 80 ps = 6.72 ns -> 148.8 Mpps.
        assert_eq!(LineRate::G100.frame_ps(60), 6720);
    }
}
