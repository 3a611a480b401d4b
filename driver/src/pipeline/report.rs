//! Stage 5, the report sink: the `--report` summary built as completions come, and the per-frame list
//! kept on disk, not in memory.
//!
//! [`ReportBuilder`] gives the [`Report`] that [`Report::new`] gives for the same completions (a test
//! checks it field for field): counts per status and queue, exact percentiles ([`Histogram`]),
//! departure-order figures (earliest departure on the line, delay, what a late frame waited for,
//! simulated-time error, achieved rate) fed in departure order. Each frame's line of the report is a
//! fixed-size record written at its job position in an unlinked temporary file (sparse: frames come in
//! completion order) and turned into JSON, in job order, when the report is written. So the report
//! keeps its shape (summary, then `frames`), and its memory does not grow with the job.

use std::fs::File;
use std::io::{Read, Seek, SeekFrom, Write};

use crate::contract::Status;
use crate::push::{
    frame_wire_ps, sub_ns, ClockMap, FrameReport, FrameResult, JobFrame, QueueReport, Report,
    ReportContext,
};

use super::histogram::Histogram;

/// Bytes of one spooled frame record.
const REC: usize = 72;

/// The per-frame list on disk.
struct Spool {
    f: File,
    /// Records written: one past the highest job position.
    end: u64,
}

impl Spool {
    fn new() -> std::io::Result<Spool> {
        static N: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
        let n = N.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let path =
            std::env::temp_dir().join(format!("tsnic-report-{}-{n}.frames", std::process::id()));
        let f = std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .create_new(true)
            .open(&path)?;
        // Unlinked at once: the space goes back when the process ends, whatever happens.
        std::fs::remove_file(&path)?;
        Ok(Spool { f, end: 0 })
    }

    fn put(&mut self, seq: u64, f: &FrameReport) -> std::io::Result<()> {
        use std::os::unix::fs::FileExt;
        let mut b = [0u8; REC];
        b[0] = 1; // present
        b[1] = match f.status {
            "UNFINISHED" => 255,
            s => Status::ALL
                .iter()
                .find(|x| x.name() == s)
                .map_or(0, |x| *x as u8),
        };
        b[2] = u8::from(f.capped);
        b[3] = match f.waited_for {
            None => 0,
            Some("line") => 1,
            Some(_) => 2,
        };
        b[4] = u8::from(f.error_ns.is_some())
            | u8::from(f.earliest_ns.is_some()) << 1
            | u8::from(f.delay_ns.is_some()) << 2
            | u8::from(f.sim_error_ns.is_some()) << 3;
        b[6..8].copy_from_slice(&f.queue.to_le_bytes());
        b[8..12].copy_from_slice(&f.len.to_le_bytes());
        b[16..24].copy_from_slice(&f.index.to_le_bytes());
        b[24..32].copy_from_slice(&f.launch_ns.to_le_bytes());
        b[32..40].copy_from_slice(&f.depart_ns.to_le_bytes());
        b[40..48].copy_from_slice(&f.error_ns.unwrap_or(0).to_le_bytes());
        b[48..56].copy_from_slice(&f.earliest_ns.unwrap_or(0).to_le_bytes());
        b[56..64].copy_from_slice(&f.delay_ns.unwrap_or(0).to_le_bytes());
        b[64..72].copy_from_slice(&f.sim_error_ns.unwrap_or(0).to_le_bytes());
        self.f.write_all_at(&b, seq * REC as u64)?;
        self.end = self.end.max(seq + 1);
        Ok(())
    }

    /// Every record in job order, to `each` (a hole, which no frame left, is skipped).
    fn for_each(
        &mut self,
        sim_ok: bool,
        each: &mut dyn FnMut(&FrameReport) -> std::io::Result<()>,
    ) -> std::io::Result<()> {
        self.f.seek(SeekFrom::Start(0))?;
        let mut r = std::io::BufReader::with_capacity(1 << 16, &self.f);
        let mut b = [0u8; REC];
        let u64_at = |b: &[u8; REC], o: usize| {
            u64::from_le_bytes(b[o..o + 8].try_into().unwrap_or_default())
        };
        for _ in 0..self.end {
            r.read_exact(&mut b)?;
            if b[0] != 1 {
                continue;
            }
            let has = |bit: u8| b[4] & (1 << bit) != 0;
            let fr = FrameReport {
                index: u64_at(&b, 16),
                queue: u16::from_le_bytes([b[6], b[7]]),
                len: u32::from_le_bytes([b[8], b[9], b[10], b[11]]),
                launch_ns: u64_at(&b, 24),
                status: match b[1] {
                    255 => "UNFINISHED",
                    c => Status::from_code(c).map_or("?", |s| s.name()),
                },
                depart_ns: u64_at(&b, 32),
                capped: b[2] != 0,
                error_ns: has(0).then(|| u64_at(&b, 40) as i64),
                earliest_ns: has(1).then(|| u64_at(&b, 48)),
                delay_ns: has(2).then(|| u64_at(&b, 56) as i64),
                sim_error_ns: (has(3) && sim_ok).then(|| u64_at(&b, 64) as i64),
                waited_for: match b[3] {
                    1 => Some("line"),
                    2 => Some("card"),
                    _ => None,
                },
            };
            each(&fr)?;
        }
        Ok(())
    }
}

/// The report, built one completion at a time.
pub struct ReportBuilder {
    r: Report,
    line_rate_bps: Option<u64>,
    wire_recorded: bool,
    tol: i64,
    err: Histogram,
    err_sent: Histogram,
    delay: Histogram,
    sim: Histogram,
    sim_sent: Histogram,
    clock: ClockMap,
    line_free_ps: u128,
    wire: u64,
    first_depart: u64,
    /// The last frame on the wire in departure order: (departure, job position, its bits).
    last: (u64, u64, u64),
    /// Bits (frame + FCS) of every frame on the wire.
    bits: u64,
    /// Per-queue counts indexed by queue number (merged into the report's map at the end: no map
    /// look-up per frame).
    queues: Vec<QueueReport>,
    spool: Option<Spool>,
}

impl ReportBuilder {
    /// A report for a job run in `ctx` (its `wire_start_ps` only says whether the wire is recorded:
    /// the start times come with each frame, [`ReportBuilder::departed`]). `frames`: keep the
    /// per-frame list (in a temporary file).
    pub fn new(ctx: &ReportContext, frames: bool) -> std::io::Result<ReportBuilder> {
        Ok(ReportBuilder {
            r: Report::empty(ctx),
            line_rate_bps: ctx.line_rate_bps,
            wire_recorded: ctx.wire_start_ps.is_some(),
            tol: ctx.clk_period_ps.div_ceil(1000).max(1) as i64,
            err: Histogram::default(),
            err_sent: Histogram::default(),
            delay: Histogram::default(),
            sim: Histogram::default(),
            sim_sent: Histogram::default(),
            clock: ClockMap::default(),
            line_free_ps: 0,
            wire: 0,
            first_depart: u64::MAX,
            last: (0, 0, 0),
            bits: 0,
            queues: Vec::new(),
            spool: if frames { Some(Spool::new()?) } else { None },
        })
    }

    /// Departure errors of the frames on the wire so far (for `--plot`).
    pub fn errors(&self) -> &Histogram {
        &self.err
    }

    /// The counts of queue `q`.
    #[inline]
    fn queue(v: &mut Vec<QueueReport>, q: u16) -> &mut QueueReport {
        let i = usize::from(q);
        if i >= v.len() {
            v.resize(i + 1, QueueReport::default());
        }
        &mut v[i]
    }

    /// True when [`ReportBuilder::departed`] must get the frames in departure order: only the line
    /// figures (earliest departure, delay, what a late frame waited for) depend on it.
    pub fn needs_departure_order(&self) -> bool {
        self.line_rate_bps.is_some()
    }

    /// The PHC-to-simulation map taken when posting started.
    pub fn started(&mut self, clock: &ClockMap) {
        self.clock = *clock;
    }

    /// A completion, in any order. A frame on the wire must also come to [`ReportBuilder::departed`],
    /// in departure order.
    #[inline]
    pub fn completed(&mut self, seq: u64, f: &FrameResult) -> std::io::Result<()> {
        let r = &mut self.r;
        r.packets += 1;
        match f.status {
            Status::Sent => r.sent += 1,
            Status::SentLate => r.sent_late += 1,
            Status::DroppedLate => r.dropped_late += 1,
            Status::DroppedHorizon => r.dropped_horizon += 1,
            Status::Rejected => r.rejected += 1,
            Status::Flushed => r.flushed += 1,
            Status::DmaError => r.dma_error += 1,
        }
        r.capped += f.capped as u64;
        let q = Self::queue(&mut self.queues, f.queue);
        q.packets += 1;
        if f.on_wire() {
            q.sent += 1;
            self.err.add(f.error_ns());
            if f.status == Status::Sent {
                self.err_sent.add(f.error_ns());
            }
            if f.depart_ns < f.launch_ns && !f.capped {
                r.early += 1;
            }
        } else {
            q.not_sent += 1;
            if let Some(s) = &mut self.spool {
                s.put(seq, &FrameReport::of(f, false))?;
            }
        }
        Ok(())
    }

    /// A frame on the wire, in departure order (ties in job order), with its start on the simulated
    /// line (ps) when the wire is recorded.
    #[inline]
    pub fn departed(
        &mut self,
        seq: u64,
        f: &FrameResult,
        wire_start_ps: Option<u64>,
    ) -> std::io::Result<()> {
        // The frame's report line: built only when the report keeps the per-frame list.
        let mut fr = self.spool.as_ref().map(|_| FrameReport::of(f, true));
        if let Some(rate) = self.line_rate_bps {
            let earliest_ps = (u128::from(f.launch_ns) * 1000).max(self.line_free_ps);
            let earliest = (earliest_ps / 1000).min(u64::MAX as u128) as u64;
            let delay = sub_ns(f.depart_ns, earliest);
            self.delay.add(delay);
            if let Some(fr) = &mut fr {
                fr.earliest_ns = Some(earliest);
                fr.delay_ns = Some(delay);
            }
            if f.error_ns() > self.tol {
                self.r.late += 1;
                let waited = if delay <= self.tol {
                    self.r.late_busy_line += 1;
                    "line"
                } else {
                    self.r.late_card += 1;
                    "card"
                };
                if let Some(fr) = &mut fr {
                    fr.waited_for = Some(waited);
                }
            }
            self.line_free_ps =
                u128::from(f.depart_ns) * 1000 + u128::from(frame_wire_ps(f.len, rate));
        } else if f.error_ns() > self.tol {
            self.r.late += 1;
        }
        if let (Some(start_ps), Some(sa)) = (wire_start_ps, self.clock.sim_before_ns) {
            let launch_sim_ps = 1000
                * (i128::from(sa) + i128::from(f.launch_ns) - i128::from(self.clock.sample_phc_ns));
            let e = (i128::from(start_ps) - launch_sim_ps).div_euclid(1000);
            let e = e.clamp(i64::MIN as i128, i64::MAX as i128) as i64;
            if let Some(fr) = &mut fr {
                fr.sim_error_ns = Some(e);
            }
            self.sim.add(e);
            if f.status == Status::Sent {
                self.sim_sent.add(e);
            }
        }
        // Order-free: the first and last departures and the bits but the last frame's are the same
        // whatever order the frames come in (only the line figures above need departure order).
        self.first_depart = self.first_depart.min(f.depart_ns);
        let bits = (u64::from(f.len) + 4) * 8;
        if self.wire == 0 || (f.depart_ns, seq) >= (self.last.0, self.last.1) {
            self.last = (f.depart_ns, seq, bits);
        }
        self.wire += 1;
        self.bits += bits;
        if let (Some(s), Some(fr)) = (&mut self.spool, &fr) {
            s.put(seq, fr)?;
        }
        Ok(())
    }

    /// A frame without a completion (not posted, or the card gave none back).
    pub fn unfinished(&mut self, seq: u64, f: &JobFrame) -> std::io::Result<()> {
        self.r.packets += 1;
        self.r.unfinished += 1;
        let q = Self::queue(&mut self.queues, f.queue);
        q.packets += 1;
        q.not_sent += 1;
        if let Some(s) = &mut self.spool {
            s.put(
                seq,
                &FrameReport {
                    index: f.index,
                    queue: f.queue,
                    len: f.len,
                    launch_ns: f.launch_ns,
                    status: "UNFINISHED",
                    depart_ns: 0,
                    capped: false,
                    error_ns: None,
                    earliest_ns: None,
                    delay_ns: None,
                    sim_error_ns: None,
                    waited_for: None,
                },
            )?;
        }
        Ok(())
    }

    /// The summary, once every frame came: `end` is the clock map at the end of the run (PHC steps,
    /// rate), `wire_frames` the frames the recorded wire carried (None: not recorded).
    pub fn finish(&mut self, end: &ClockMap, wire_frames: Option<u64>) -> Report {
        let r = &mut self.r;
        for (q, c) in self.queues.iter().enumerate() {
            if c.packets > 0 {
                r.queues.insert(q as u16, c.clone());
            }
        }
        r.error_ns = self.err.stats();
        r.error_sent_ns = self.err_sent.stats();
        if self.line_rate_bps.is_some() && self.wire > 0 {
            r.delay_ns = self.delay.stats();
        }
        let c = end;
        r.sim_error_ns = None;
        r.sim_error_sent_ns = None;
        r.sim_clock = match (wire_frames.filter(|_| self.wire_recorded), c.sim_before_ns, c.sim_after_ns) {
            _ if self.wire == 0 => "not measured: no frame went on the wire".into(),
            (_, None, _) | (_, _, None) => "not a simulated card".into(),
            (None, _, _) => "not measured: the wire was not recorded".into(),
            (Some(w), _, _) if w != self.wire => format!(
                "not measured: the wire carried {w} frames, the completions say {}",
                self.wire
            ),
            _ if c.phc_steps > 0 => format!(
                "not measured: the PHC was stepped {} time(s) during the run",
                c.phc_steps
            ),
            _ if !c.rate_nominal => {
                "not measured: the PHC's period or frequency trim was not nominal during the run (adjusted)".into()
            }
            (Some(_), Some(sa), Some(sb)) => {
                r.sim_error_ns = self.sim.stats();
                r.sim_error_sent_ns = self.sim_sent.stats();
                format!(
                    "PHC latched by a register read during simulated {sa}..{sb} ns, mapped at its start: each figure is at most {} ns above the true error, never below; nominal PHC rate, no steps",
                    sb - sa
                )
            }
        };
        r.duration_ns = 0;
        r.achieved_gbps = None;
        r.achieved_mpps = None;
        r.no_rate = None;
        if self.wire >= 2 {
            let span = self.last.0 - self.first_depart;
            r.duration_ns = span;
            if span > 0 {
                let n = (self.wire - 1) as f64;
                r.achieved_mpps = Some(n / span as f64 * 1e3);
                r.achieved_gbps = Some((self.bits - self.last.2) as f64 / span as f64);
            } else {
                r.no_rate = Some(format!(
                    "no rate: all {} frames on the wire have one departure time",
                    self.wire
                ));
            }
        } else {
            r.no_rate = Some(match self.wire {
                0 => "no rate: no frame went on the wire".to_string(),
                _ => {
                    "no rate: one frame went on the wire (a rate needs two departures)".to_string()
                }
            });
        }
        r.clone()
    }

    /// True when the simulated-time figures hold (after [`ReportBuilder::finish`]).
    fn sim_ok(&self) -> bool {
        self.r.sim_error_ns.is_some()
    }

    /// Write the report as [`Report::write_json`] does, the frames from the temporary file.
    pub fn write_json(
        &mut self,
        report: &Report,
        out: &mut dyn Write,
        with_frames: bool,
    ) -> std::io::Result<()> {
        let sim_ok = self.sim_ok();
        match (&mut self.spool, with_frames) {
            (Some(s), true) => {
                let mut first = true;
                report.write_json_frames(out, &mut |out| {
                    s.for_each(sim_ok, &mut |f| {
                        out.write_all(if first { b"\n    " } else { b",\n    " })?;
                        first = false;
                        serde_json::to_writer(&mut *out, f).map_err(std::io::Error::other)
                    })
                })
            }
            _ => report.write_json(out, false),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::push::{Outcome, ReportContext};
    use proptest::prelude::*;

    fn status(i: u8) -> Status {
        Status::ALL[(i % 7) as usize]
    }

    proptest! {
        /// The streamed report equals today's [`Report::new`] over the same completions: the summary
        /// field for field and the JSON with every frame, byte for byte; with and without a line rate
        /// and a recorded wire, with unfinished frames.
        #[test]
        fn streamed_report_equals_the_whole_job_one(
            rows in proptest::collection::vec((0u8..14, 0u64..3000, 0u64..5000, 60u32..1600, any::<bool>()), 1..300),
            unfinished in 0usize..5,
            line_rate in any::<bool>(),
            wire in any::<bool>(),
            scrambled in any::<bool>(),
        ) {
            let results: Vec<FrameResult> = rows.iter().enumerate().map(|(i, &(s, l, d, len, capped))| FrameResult {
                index: i as u64,
                queue: (i % 3) as u16,
                len,
                launch_ns: 1_000_000 + l,
                status: status(s),
                depart_ns: 1_000_000 + d,
                reason: 0,
                capped,
            }).collect();
            let n = results.len();
            let unf: Vec<JobFrame> = (0..unfinished).map(|k| JobFrame { index: (n + k) as u64, queue: 1, len: 60, launch_ns: 5 }).collect();
            // departure order and (sim) each frame's start on the line
            let mut order: Vec<usize> = (0..n).filter(|&i| results[i].on_wire()).collect();
            order.sort_by_key(|&i| (results[i].depart_ns, i));
            let starts: Vec<u64> = order.iter().map(|&i| results[i].depart_ns * 1000 + 37).collect();
            let clock = ClockMap { sample_phc_ns: 999_000, sim_before_ns: wire.then_some(5_000), sim_after_ns: wire.then_some(5_004), phc_steps: 0, rate_nominal: true };
            let ctx = ReportContext {
                t0_ns: 1_000_000, lead_ns: 30_000, backend: "b".into(),
                line_rate_bps: line_rate.then_some(10_000_000_000), clk_period_ps: 3103,
                wire_start_ps: wire.then(|| starts.clone()),
            };
            let out = Outcome { results: results.clone(), start_phc_ns: 0, end_phc_ns: 0, doorbells: 0, loop_wall_ns: 0, clock, unfinished: unf.clone() };
            let old = Report::new(&out, &ctx);
            let mut b = ReportBuilder::new(&ctx, true).unwrap();
            b.started(&clock);
            // completions in a scrambled (not job) order
            let mut comp: Vec<usize> = (0..n).collect();
            comp.sort_by_key(|&i| (i * 7919) % n);
            for &i in &comp { b.completed(i as u64, &results[i]).unwrap(); }
            // Without a line rate nothing needs departure order: the frames may come in completion
            // order (as the command line's sinks give them when there is no --pcap and no wire).
            let mut dep: Vec<(usize, u64)> = order.iter().copied().zip(starts.iter().copied()).collect();
            if scrambled && !line_rate {
                prop_assert!(!b.needs_departure_order());
                dep.sort_by_key(|&(i, _)| (i * 7919) % n);
            }
            for &(i, start) in &dep {
                b.departed(i as u64, &results[i], wire.then_some(start)).unwrap();
            }
            for (k, f) in unf.iter().enumerate() { b.unfinished((n + k) as u64, f).unwrap(); }
            let new = b.finish(&clock, wire.then_some(order.len() as u64));
            let (mut a, mut c) = (Vec::new(), Vec::new());
            old.write_json(&mut a, true).unwrap();
            b.write_json(&new, &mut c, true).unwrap();
            prop_assert_eq!(String::from_utf8(a).unwrap(), String::from_utf8(c).unwrap());
            prop_assert_eq!(old.table(), new.table());
        }
    }
}
