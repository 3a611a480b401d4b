//! Stage 5, the sinks: where each completed frame goes. [`Collect`] keeps every result in memory (the
//! library's [`crate::push::run`], whose callers want the list); [`Outputs`] is the command line's:
//! the report ([`super::report`]), its histograms ([`super::histogram`]) and the `--pcap` capture,
//! each fed as frames complete, so their memory does not grow with the job.
//!
//! The capture and the report's line figures need the frames on the wire in departure order;
//! completions come in the order the card writes them, which is that order on one wire, but
//! [`Outputs`] does not rely on it: it keeps the last [`DEPART_WINDOW`] frames on the wire ordered on
//! (departure, job order) and lets the earliest go. On the simulated card each frame is matched
//! with the one the recorded wire carried in that place (its bytes and its start on the line).

use std::cmp::Ordering;
use std::collections::VecDeque;

use crate::capture::PcapNgOut;
use crate::push::{ClockMap, FrameResult, JobFrame, Report};

use super::report::ReportBuilder;
use super::schedule::NearlySorted;

/// Stage 5: what a completed (or unfinished) frame is handed to.
pub trait Sink {
    /// The sink wants the bytes of each frame that went on the wire (read back from its buffer).
    fn wants_bytes(&self) -> bool {
        false
    }
    /// Posting starts; `clock` relates the PHC to simulated time.
    fn started(&mut self, _clock: &ClockMap) {}
    /// Frame `seq` (input position) completed as `r`; `bytes` are its posted bytes when asked for.
    fn completed(&mut self, seq: u64, r: &FrameResult, bytes: &[u8]) -> Result<(), String>;
    /// Frame `seq` has no completion: never posted, or the card gave none back.
    fn unfinished(&mut self, seq: u64, f: &JobFrame) -> Result<(), String>;
    /// When this sink only counts (the report alone, which needs no departure order, no bytes):
    /// the report, and the count of frames it took on the wire, for the reap to hand each
    /// completion to straight ([`ReportBuilder::completed`], then [`ReportBuilder::departed`] for
    /// a frame on the wire, as [`Sink::completed`] would), with no call through this trait per
    /// frame. None: every completion goes to [`Sink::completed`].
    fn counts_only(&mut self) -> Option<(&mut ReportBuilder, &mut u64)> {
        None
    }
}

/// Every result in memory, by input position (for [`crate::push::run`]).
#[derive(Debug, Default)]
pub struct Collect {
    /// Result of input position i.
    pub results: Vec<Option<FrameResult>>,
    /// Frames without completion, with their input position.
    pub unfinished: Vec<(u64, JobFrame)>,
}

impl Sink for Collect {
    fn completed(&mut self, seq: u64, r: &FrameResult, _bytes: &[u8]) -> Result<(), String> {
        let i = seq as usize;
        if i >= self.results.len() {
            self.results.resize(i + 1, None);
        }
        self.results[i] = Some(*r);
        Ok(())
    }
    fn unfinished(&mut self, seq: u64, f: &JobFrame) -> Result<(), String> {
        self.unfinished.push((seq, *f));
        Ok(())
    }
}

/// Frames on the wire held for departure order at most.
pub const DEPART_WINDOW: usize = 1024;

struct Departed {
    seq: u64,
    r: FrameResult,
    bytes: Vec<u8>,
}

impl PartialEq for Departed {
    fn eq(&self, o: &Self) -> bool {
        self.cmp(o) == Ordering::Equal
    }
}
impl Eq for Departed {}
impl PartialOrd for Departed {
    fn partial_cmp(&self, o: &Self) -> Option<Ordering> {
        Some(self.cmp(o))
    }
}
impl Ord for Departed {
    fn cmp(&self, o: &Self) -> Ordering {
        (self.r.depart_ns, self.seq).cmp(&(o.r.depart_ns, o.seq))
    }
}

/// Takes the frames the recorded wire carried since the last call: (start on the line ps, bytes).
pub type WireTake = Box<dyn FnMut() -> Vec<(u64, Vec<u8>)>>;

/// The command line's sinks: report, histograms, `--pcap`.
pub struct Outputs {
    /// The report being built.
    pub report: ReportBuilder,
    pcap: Option<PcapNgOut>,
    wire: Option<WireTake>,
    check_tags: bool,
    heap: NearlySorted<Departed>,
    /// Let go in departure order, waiting for their frame on the recorded wire.
    waiting: VecDeque<Departed>,
    wire_q: VecDeque<(u64, Vec<u8>)>,
    wire_frames: u64,
    departed: u64,
    pool: Vec<Vec<u8>>,
}

impl Outputs {
    /// Sinks for the report, and `pcap` when asked; `wire` takes the recorded wire (sim); `check_tags`:
    /// each frame on the wire must carry its own trace row index (push).
    pub fn new(
        report: ReportBuilder,
        pcap: Option<PcapNgOut>,
        wire: Option<WireTake>,
        check_tags: bool,
    ) -> Outputs {
        Outputs {
            report,
            pcap,
            wire,
            check_tags,
            heap: NearlySorted::default(),
            waiting: VecDeque::new(),
            wire_q: VecDeque::new(),
            wire_frames: 0,
            departed: 0,
            pool: Vec::new(),
        }
    }

    fn release(&mut self, d: Departed) -> Result<(), String> {
        if self.wire.is_some() {
            self.waiting.push_back(d);
            self.match_wire()
        } else {
            self.emit(d, None)
        }
    }

    fn match_wire(&mut self) -> Result<(), String> {
        if let Some(take) = &mut self.wire {
            if !self.waiting.is_empty() {
                let got = take();
                self.wire_frames += got.len() as u64;
                self.wire_q.extend(got);
            }
        }
        while !self.waiting.is_empty() && !self.wire_q.is_empty() {
            let (Some(d), Some((start_ps, bytes))) =
                (self.waiting.pop_front(), self.wire_q.pop_front())
            else {
                break;
            };
            if bytes.len() != d.r.len as usize {
                return Err(format!(
                    "the wire does not match the completions: wire frame {} is {} bytes, but the completion in that place (frame {}) says {}",
                    self.departed,
                    bytes.len(),
                    d.r.index,
                    d.r.len
                ));
            }
            let d = Departed { bytes, ..d };
            self.emit(d, Some(start_ps))?;
        }
        Ok(())
    }

    fn emit(&mut self, d: Departed, start_ps: Option<u64>) -> Result<(), String> {
        self.departed += 1;
        self.report
            .departed(d.seq, &d.r, start_ps)
            .map_err(|e| format!("cannot write the report's frame list: {e}"))?;
        if let Some(w) = &mut self.pcap {
            if self.check_tags {
                match crate::trace::parse_frame(&d.bytes) {
                    Some(tag) if tag.index == d.r.index => {}
                    _ => {
                        return Err(format!(
                            "the wire frame at {} ns is not trace row {}: the card reordered or corrupted it",
                            d.r.depart_ns, d.r.index
                        ))
                    }
                }
            }
            w.write(d.r.depart_ns, &d.bytes)
                .map_err(|e| e.to_string())?;
        }
        let mut b = d.bytes;
        if b.capacity() > 0 && self.pool.len() < DEPART_WINDOW {
            b.clear();
            self.pool.push(b);
        }
        Ok(())
    }

    /// Everything still held let go, the capture closed, the report's summary made. `cut`: the job did
    /// not run to its end (frames on the wire without completion, or completions without their wire
    /// frame, are then expected and only warned about). Returns the report and warnings.
    pub fn finish(&mut self, end: &ClockMap, cut: bool) -> Result<(Report, Vec<String>), String> {
        let mut warnings = Vec::new();
        while let Some(d) = self.heap.pop() {
            self.release(d)?;
        }
        if let Some(take) = &mut self.wire {
            let got = take();
            self.wire_frames += got.len() as u64;
            self.wire_q.extend(got);
            self.match_wire()?;
        }
        let mut wire_frames = None;
        if self.wire.is_some() {
            wire_frames = Some(self.wire_frames);
            let (w, c) = (self.wire_frames, self.departed + self.waiting.len() as u64);
            if w != c {
                let msg = format!("the wire carried {w} frames but the card completed {c} as sent");
                if !cut {
                    return Err(format!("the wire does not match the completions: {msg}"));
                }
                warnings.push(format!(
                    "--pcap of the partial run: {msg}; the capture holds the {} matched in order",
                    self.departed
                ));
            }
            // Completions whose wire frame never showed (a cut run): counted in the report all the same.
            while let Some(d) = self.waiting.pop_front() {
                self.report
                    .departed(d.seq, &d.r, None)
                    .map_err(|e| e.to_string())?;
            }
        }
        if let Some(w) = self.pcap.take() {
            w.finish().map_err(|e| e.to_string())?;
        }
        Ok((self.report.finish(end, wire_frames), warnings))
    }
}

impl Sink for Outputs {
    fn wants_bytes(&self) -> bool {
        self.pcap.is_some() && self.wire.is_none()
    }
    fn started(&mut self, clock: &ClockMap) {
        self.report.started(clock);
    }
    fn completed(&mut self, seq: u64, r: &FrameResult, bytes: &[u8]) -> Result<(), String> {
        self.report
            .completed(seq, r)
            .map_err(|e| format!("cannot write the report's frame list: {e}"))?;
        if r.on_wire() {
            if self.pcap.is_none() && self.wire.is_none() && !self.report.needs_departure_order() {
                // Nothing here needs departure order (no capture, no wire to match, no line
                // figures): the report takes the frame at once, no bytes kept, no window.
                self.departed += 1;
                return self
                    .report
                    .departed(seq, r, None)
                    .map_err(|e| format!("cannot write the report's frame list: {e}"));
            }
            let mut b = self.pool.pop().unwrap_or_default();
            b.extend_from_slice(bytes);
            self.heap.push(Departed {
                seq,
                r: *r,
                bytes: b,
            });
            if self.heap.len() > DEPART_WINDOW {
                if let Some(d) = self.heap.pop() {
                    self.release(d)?;
                }
            }
        }
        Ok(())
    }
    fn unfinished(&mut self, seq: u64, f: &JobFrame) -> Result<(), String> {
        self.report
            .unfinished(seq, f)
            .map_err(|e| format!("cannot write the report's frame list: {e}"))
    }
    #[inline]
    fn counts_only(&mut self) -> Option<(&mut ReportBuilder, &mut u64)> {
        // As `completed`'s first case: nothing here needs departure order or bytes.
        if self.pcap.is_none() && self.wire.is_none() && !self.report.needs_departure_order() {
            Some((&mut self.report, &mut self.departed))
        } else {
            None
        }
    }
}
