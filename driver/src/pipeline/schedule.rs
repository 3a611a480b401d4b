//! Stage 2, the schedule: the source's frames in launch-time order, each with its absolute launch
//! time on the card's PHC.
//!
//! **Hold window.** The input may be out of order by at most `window` frames: the schedule keeps up
//! to `window` frames read ahead, ordered on (launch time, input order) ([`NearlySorted`]: a FIFO while
//! the input is in order, a heap for the frames that are not), and gives out the
//! smallest. The order given out is exactly the input sorted by (launch time, input order) (what
//! `tsnic push` always posted) as long as no frame arrives after a later one was given out; one that
//! does is beyond the window and refused, with the row or packet it is and the fix (`sort`). Memory:
//! `window` frames (a trace row costs ~100 bytes, its bytes are generated when posted).
//!
//! **Times.** Absolute (`--absolute`: the input's times are TAI ns of the card's PHC) or relative:
//! time 0 ([`Schedule::set_time_zero`], the PHC at start plus a lead) plus the row's time (`push`),
//! or plus the packet's time since the first packet (`replay`). A capture whose timestamp goes
//! backwards (a merged capture) is sent with the packet before it, in capture order
//! ([`Config::clamp_backwards`]): its schedule is monotone by construction and needs no window.
//!
//! Every frame's launch time is checked against the PHC's range and the hold limit as soon as time 0
//! is known (the frames read ahead) or as it is read (the rest).

use std::cmp::{Ordering, Reverse};
use std::collections::BinaryHeap;

use thiserror::Error;

use super::source::{InputError, Raw, Source};
use crate::push::JobFrame;

/// How the schedule maps input times to launch times.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Config {
    /// Frames the input may be out of order by (`usize::MAX`: any, the whole input is held).
    pub window: usize,
    /// The input's times are absolute TAI ns of the card's PHC.
    pub absolute: bool,
    /// Relative times count from the first frame's time (a capture's timestamps), not from 0.
    pub from_first: bool,
    /// A time earlier than the frame before it is due with that frame (input order kept, warned).
    pub clamp_backwards: bool,
    /// Refuse a launch time more than this after the PHC at the start.
    pub hold_limit_ns: u64,
    /// How a relative capture schedule is re-timed (`replay --speed/--pps/--mbps`).
    pub retime: Retime,
}

/// A replay's timing: the capture's own, or re-timed. Each frame's time is computed from its own
/// input time (or position) and its pass, never accumulated from the frame before: pass `k` sends
/// frame `i` at `k * P + r_i` after time 0, with `r_i` below and the pass period `P = r_last + gap`
/// (`r_last` the last frame's time in the first pass), so a long or looped schedule does not drift.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Retime {
    /// `r_i = t_i - t_0`; gap: the pass's mean gap, `round(r_last / (n - 1))` (1 us for one frame).
    #[default]
    Capture,
    /// `--speed num/den`: `r_i = round((t_i - t_0) * den / num)`; gap as for the capture's timing.
    Speed {
        /// Numerator of the speed factor.
        num: u64,
        /// Denominator.
        den: u64,
    },
    /// `--pps N`: `r_i = round(i * 10^9 / N)`; gap `round(10^9 / N)`.
    Pps(u64),
    /// `--mbps N`: `r_i = round(B_i * 1000 / N)`, `B_i` the frame bits (frame + FCS) before frame
    /// `i` in its pass; gap: the last frame's bits at N Mb/s.
    Mbps(u64),
}

/// Where the passes of a looped replay start.
#[derive(Debug, Clone, Copy, Default)]
struct Passes {
    number: u32,
    /// Start of the current pass, relative to time 0.
    base: u64,
    /// The first pass's period, once it is over.
    period: Option<u64>,
    /// The current pass's frames, last re-timed time, bits so far, last frame's bits.
    frames: u64,
    last_r: u64,
    bits: u128,
    last_bits: u128,
}

fn div_round(a: u128, b: u128) -> u64 {
    ((a + b / 2) / b.max(1)).min(u64::MAX as u128) as u64
}

impl Passes {
    /// The re-timed time of a frame at input time `rel` (since the pass's first), position `pos`,
    /// length `len`, from time 0.
    fn place(&mut self, rt: Retime, rel: u64, pos: u64, len: u32) -> u64 {
        let r = match rt {
            Retime::Capture => rel,
            Retime::Speed { num, den } => {
                div_round(u128::from(rel) * u128::from(den), u128::from(num))
            }
            Retime::Pps(n) => div_round(u128::from(pos) * 1_000_000_000, u128::from(n)),
            Retime::Mbps(n) => div_round(self.bits * 1000, u128::from(n)),
        };
        let bits = (u128::from(len) + 4) * 8;
        self.bits += bits;
        self.last_bits = bits;
        self.frames += 1;
        self.last_r = r;
        self.base.saturating_add(r)
    }

    /// The next pass starts one period after this one (the period is the first pass's).
    fn start_next(&mut self, rt: Retime) {
        let period = *self.period.get_or_insert_with(|| {
            let gap = match rt {
                Retime::Pps(n) => div_round(1_000_000_000, u128::from(n)),
                Retime::Mbps(n) => div_round(self.last_bits * 1000, u128::from(n)),
                _ if self.frames > 1 => {
                    div_round(u128::from(self.last_r), u128::from(self.frames - 1))
                }
                _ => 1000,
            };
            self.last_r.saturating_add(gap.max(1))
        });
        self.base = self.base.saturating_add(period);
        self.frames = 0;
        self.bits = 0;
        self.last_r = 0;
    }
}

/// A frame the schedule gives out.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Held {
    /// As the source read it.
    pub raw: Raw,
    /// The job frame, its launch time absolute (valid once time 0 is set).
    pub job: JobFrame,
    /// The frame's bytes when the input carries them ([`Raw::has_bytes`]).
    pub data: Vec<u8>,
}

/// Why the schedule refused a frame.
#[derive(Debug, Error)]
pub enum ScheduleError {
    /// The source refused it.
    #[error(transparent)]
    Input(#[from] InputError),
    /// The frame is out of order by more than the hold window.
    #[error("{name}: {what} launches at {time} ns, before {prev_what} ({prev_time} ns), which the hold window of {window} frame(s) had already let go: the input is out of launch-time order by more than the window; sort it by launch time (for a trace: keep the header line first, then `sort -t, -k1,1n` the rows) or raise --hold-window")]
    OutOfOrder {
        /// Input name.
        name: String,
        /// `line N` / `packet N`.
        what: String,
        /// Its time as the input gives it.
        time: u64,
        /// The frame given out before it.
        prev_what: String,
        /// That frame's time.
        prev_time: u64,
        /// The window.
        window: usize,
    },
    /// Time 0 plus the frame's time does not fit in 64 bits.
    #[error("{name}: {what}: time 0 ({t0} ns) plus {rel} ns overflows 64 bits")]
    Overflow {
        /// Input name.
        name: String,
        /// `line N` / `packet N`.
        what: String,
        /// Time 0.
        t0: u64,
        /// The frame's relative time.
        rel: u64,
    },
    /// The frame launches further after the start than the hold limit.
    #[error("{name}: {what} launches at {launch_ns} ns, {} ns after the card's PHC at the start ({phc_ns} ns), beyond the hold limit of {limit_ns} ns: check the time base (`--absolute` times are TAI ns of the card's PHC: `tsnic phc get`) or raise --hold-limit", launch_ns - phc_ns)]
    HoldTooLong {
        /// Input name.
        name: String,
        /// `line N` / `packet N`.
        what: String,
        /// Launch time.
        launch_ns: u64,
        /// PHC at the start.
        phc_ns: u64,
        /// The limit.
        limit_ns: u64,
    },
    /// The launch time is past what the driver schedules at.
    #[error("{name}: {what} launches at {launch_ns} ns, past the latest time the driver schedules at ({} ns = 2^63 - 1, TAI 2262-04-11): check the time base (`--absolute` times are TAI ns of the card's PHC: `tsnic phc get`)", crate::phc::PHC_MAX_NS)]
    TimeRange {
        /// Input name.
        name: String,
        /// `line N` / `packet N`.
        what: String,
        /// Launch time.
        launch_ns: u64,
    },
}

struct Entry {
    key: u64,
    held: Held,
}

impl PartialEq for Entry {
    fn eq(&self, o: &Self) -> bool {
        self.cmp(o) == Ordering::Equal
    }
}
impl Eq for Entry {}
impl PartialOrd for Entry {
    fn partial_cmp(&self, o: &Self) -> Option<Ordering> {
        Some(self.cmp(o))
    }
}
impl Ord for Entry {
    fn cmp(&self, o: &Self) -> Ordering {
        (self.key, self.held.raw.seq).cmp(&(o.key, o.held.raw.seq))
    }
}

/// A min-queue for input that is mostly in order: items in order go to a FIFO (O(1)), the few out
/// of order to a heap; the smallest of both comes out first. The same order as one heap, at the cost
/// of a FIFO for sorted input.
#[derive(Debug)]
pub struct NearlySorted<T: Ord> {
    fifo: std::collections::VecDeque<T>,
    heap: BinaryHeap<Reverse<T>>,
}

impl<T: Ord> Default for NearlySorted<T> {
    fn default() -> Self {
        NearlySorted {
            fifo: Default::default(),
            heap: BinaryHeap::new(),
        }
    }
}

impl<T: Ord> NearlySorted<T> {
    /// Add an item.
    pub fn push(&mut self, x: T) {
        match self.fifo.back() {
            Some(b) if x < *b => self.heap.push(Reverse(x)),
            _ => self.fifo.push_back(x),
        }
    }
    /// Take the smallest item.
    pub fn pop(&mut self) -> Option<T> {
        let from_heap = match (self.fifo.front(), self.heap.peek()) {
            (Some(f), Some(Reverse(h))) => h < f,
            (None, Some(_)) => true,
            _ => false,
        };
        if from_heap {
            self.heap.pop().map(|r| r.0)
        } else {
            self.fifo.pop_front()
        }
    }
    /// Items held.
    pub fn len(&self) -> usize {
        self.fifo.len() + self.heap.len()
    }
    /// True when nothing is held.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// Every item, in no particular order.
    pub fn iter(&self) -> impl Iterator<Item = &T> {
        self.fifo.iter().chain(self.heap.iter().map(|r| &r.0))
    }
    /// Take every item, in no particular order.
    pub fn take_all(&mut self) -> Vec<T> {
        let mut v: Vec<T> = self.fifo.drain(..).collect();
        v.extend(
            std::mem::take(&mut self.heap)
                .into_vec()
                .into_iter()
                .map(|r| r.0),
        );
        v
    }
}

/// Timestamps that went backwards: how many, and the first (packet, ns before the one before it).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Backwards {
    /// Frames whose time is before the previous frame's.
    pub count: u64,
    /// The first: (its index, how far back, ns).
    pub first: Option<(u64, u64)>,
}

/// Stage 2: the hold window and the time map.
pub struct Schedule<'a> {
    src: Box<dyn Source + 'a>,
    cfg: Config,
    heap: NearlySorted<Entry>,
    eof: bool,
    /// The input was refused part way ([`Schedule::end_input`]).
    cut: bool,
    /// Key and frame of the last frame given out.
    last_out: Option<(u64, Raw)>,
    /// Time of the first frame (relative `from_first`).
    first_time: Option<u64>,
    /// Previous frame's raw time and clamped key (clamp_backwards).
    prev: Option<(u64, u64)>,
    backwards: Backwards,
    /// Time 0 and the PHC at the start, once set.
    zero: Option<(u64, u64)>,
    /// The passes of a looped replay.
    pass: Passes,
    pool: Vec<Vec<u8>>,
    read: u64,
    /// Frames given out straight from the input may leave their bytes in the source's buffer
    /// ([`Schedule::set_lending`]).
    lend: bool,
    /// The buffer a lending read is given (for a frame the source cannot lend), kept between reads.
    spare: Vec<u8>,
    /// Frames read in one go with their bytes lent ([`Source::next_lent_batch`]), the first not
    /// given out yet, and where their bytes are in the source's block.
    batch: Vec<Raw>,
    batch_offs: Vec<u32>,
    /// The frames of the batch, placed; `ready[ready_at..]` not given out yet (read but not
    /// counted as read: a job cut short reports them no more than frames never read).
    ready: Vec<Held>,
    ready_at: usize,
    /// The schedule refused the frame after the last of `ready`: given out after them.
    ready_err: Option<ScheduleError>,
    /// The frame given out last is `batch[batch_at - 1]`, its bytes at this offset of the block.
    batch_lent: Option<usize>,
}

/// Frames a lending schedule reads from its source in one go (at most).
pub const BATCH: usize = 64;

impl<'a> Schedule<'a> {
    /// Schedule the frames of `src`.
    pub fn new(src: Box<dyn Source + 'a>, cfg: Config) -> Schedule<'a> {
        Schedule {
            src,
            cfg,
            heap: NearlySorted::default(),
            eof: false,
            cut: false,
            last_out: None,
            first_time: None,
            prev: None,
            backwards: Backwards::default(),
            zero: None,
            pass: Passes::default(),
            pool: Vec::new(),
            read: 0,
            lend: false,
            spare: Vec::new(),
            batch: Vec::with_capacity(BATCH),
            batch_offs: Vec::with_capacity(BATCH),
            ready: Vec::with_capacity(BATCH),
            ready_at: 0,
            ready_err: None,
            batch_lent: None,
        }
    }

    /// The input's name for messages.
    pub fn name(&self) -> &str {
        self.src.name()
    }

    /// What the source changed in the frames it read (warnings).
    pub fn notes(&self) -> Vec<String> {
        self.src.notes()
    }

    /// Let a frame given out straight from the input (the fast lane: a window of 0, nothing held)
    /// leave its bytes in the source's buffer ([`Raw::lent`]), to be copied from there by the post:
    /// [`Schedule::lent`] gives them until the next [`Schedule::next_frame`]. Only for a caller
    /// that posts each frame before it asks for the next (the loop's own thread, not `--threads`).
    pub fn set_lending(&mut self, on: bool) {
        self.lend = on;
    }

    /// The bytes of the frame last given out lent ([`Raw::lent`]); empty when none is.
    #[inline]
    pub fn lent(&mut self) -> &[u8] {
        match (self.batch_lent, self.ready_at.checked_sub(1)) {
            (Some(off), Some(i)) => {
                let len = self.batch[i].len as usize;
                self.src.lent_block().get(off..off + len).unwrap_or(&[])
            }
            _ => self.src.lent(),
        }
    }

    /// Frames read from the input so far.
    pub fn read(&self) -> u64 {
        self.read
    }

    /// True once the whole input was read.
    pub fn at_end(&self) -> bool {
        self.eof && !self.cut
    }

    /// Read no more input (it was refused): the frames held are still given out, in order.
    pub fn end_input(&mut self) {
        self.eof = true;
        self.cut = true;
    }

    /// Timestamps that went backwards so far.
    pub fn backwards(&self) -> Backwards {
        self.backwards
    }

    /// Frames read ahead and not given out yet.
    pub fn held(&self) -> impl Iterator<Item = &Held> {
        self.heap.iter().map(|e| &e.held)
    }

    /// Give a frame's buffer back for the next read.
    pub fn recycle(&mut self, mut v: Vec<u8>) {
        if v.capacity() > 0 && self.pool.len() < 4096 {
            v.clear();
            self.pool.push(v);
        }
    }

    /// Read ahead until `n` frames are held or the input ends.
    pub fn prime(&mut self, n: usize) -> Result<(), ScheduleError> {
        while !self.eof && self.heap.len() < n {
            if let Some(e) = self.read_one(false)? {
                self.heap.push(e);
            }
        }
        Ok(())
    }

    /// Set time 0 (relative schedules; ignored for absolute ones) and the PHC at the start, and check
    /// every frame read so far against them.
    pub fn set_time_zero(&mut self, t0: u64, phc_ns: u64) -> Result<(), ScheduleError> {
        self.zero = Some((t0, phc_ns));
        let mut entries = self.heap.take_all();
        entries.sort();
        let mut err = None;
        for mut e in entries {
            if err.is_none() {
                if let Err(x) = self.place(&mut e) {
                    err = Some(x);
                }
            }
            self.heap.push(e);
        }
        match err {
            Some(e) => Err(e),
            None => Ok(()),
        }
    }

    /// The next frame in launch-time order, or `None` when the input is done.
    pub fn next_frame(&mut self) -> Result<Option<Held>, ScheduleError> {
        if self.cfg.window == 0 && self.heap.is_empty() && !self.eof {
            // The fast lane of an input taken in order (a replay, a window of 0): nothing is held, so
            // the frame just read is the next one; it does not go through the window at all.
            if self.lend {
                if let Some(h) = self.read_batched()? {
                    return Ok(Some(h));
                }
            }
            if let Some(e) = self.read_one(self.lend)? {
                self.last_out = Some((e.key, e.held.raw));
                return Ok(Some(e.held));
            }
        }
        while !self.eof && self.heap.len() <= self.cfg.window {
            if let Some(e) = self.read_one(false)? {
                self.heap.push(e);
            }
        }
        let Some(e) = self.heap.pop() else {
            return Ok(None);
        };
        self.last_out = Some((e.key, e.held.raw));
        Ok(Some(e.held))
    }

    /// [`Schedule::next_frame`] into `out` (None when the input is done). A frame of a batch
    /// read ahead goes there straight from the batch, not through a returned value: a struct
    /// returned and copied at once costs a store-forwarding stall per frame.
    #[inline]
    pub fn next_frame_into(&mut self, out: &mut Option<Held>) -> Result<(), ScheduleError> {
        if self.ready_at < self.ready.len()
            && self.lend
            && self.cfg.window == 0
            && self.heap.is_empty()
            && !self.eof
        {
            let i = self.ready_at;
            self.ready_at += 1;
            self.read += 1;
            self.batch_lent = Some(self.batch_offs[i] as usize);
            *out = Some(std::mem::take(&mut self.ready[i]));
            return Ok(());
        }
        *out = self.next_frame()?;
        Ok(())
    }

    /// The frames of the batch read ahead (reading the next batch when this one is given out),
    /// not given out yet, placed, with the block their bytes are lent in and each one's offset
    /// there: for a caller that posts them where they are, then says how many it took
    /// ([`Schedule::take_ready`]); frame `i`'s bytes are `block[offs[i]..][..len]`. The same
    /// frames, in the same order, as [`Schedule::next_frame_into`] would give one at a time,
    /// without moving each into the caller's slot. Empty when there is none this way (no lending,
    /// a hold window, or the source gives no batch now, or the next read is an error): then use
    /// [`Schedule::next_frame_into`].
    #[inline]
    pub fn ready_lent(&mut self) -> (&[Held], &[u32], &[u8]) {
        if !(self.lend && self.cfg.window == 0 && self.heap.is_empty() && !self.eof) {
            return (&[], &[], &[]);
        }
        if self.ready_at == self.ready.len() && (self.ready_err.is_some() || !self.fill_ready()) {
            return (&[], &[], &[]);
        }
        let block = self.src.lent_block();
        (
            &self.ready[self.ready_at..],
            &self.batch_offs[self.ready_at..],
            block,
        )
    }

    /// The first `n` frames of [`Schedule::ready_lent`] were taken (posted in place): counted as
    /// read and given out.
    #[inline]
    pub fn take_ready(&mut self, n: usize) {
        debug_assert!(self.ready_at + n <= self.ready.len());
        self.ready_at += n;
        self.read += n as u64;
        self.batch_lent = None;
    }

    /// Every frame held (read and not given out), in launch order, emptying the window: the frames a
    /// job cut short never posted.
    pub fn drain_held(&mut self) -> Vec<Held> {
        let mut v: Vec<Held> = self.heap.take_all().into_iter().map(|e| e.held).collect();
        v.sort_by_key(|h| h.raw.seq);
        v
    }

    /// Read the next frame of the input and place it (None at the end of the input); the caller holds
    /// it or gives it out.
    #[inline]
    fn read_one(&mut self, lend: bool) -> Result<Option<Entry>, ScheduleError> {
        // A lending read whose last frame was not lent (it straddled the source's block: its bytes
        // were copied into `spare`, which went with it) takes a recycled buffer, not a new one: the
        // recycled ones would otherwise pile up in the pool, up to 4096 frames' worth (6 MB of
        // 1500-byte frames, reached after some 170,000 frames: a peak that grew with the input).
        let mut data = if lend && self.spare.capacity() > 0 {
            std::mem::take(&mut self.spare)
        } else {
            self.pool.pop().unwrap_or_default()
        };
        let got = if lend {
            self.src.next_lent(&mut data)?
        } else {
            self.src.next(&mut data)?
        };
        let Some(raw) = got else {
            self.recycle(data);
            self.eof = true;
            return Ok(None);
        };
        self.batch_lent = None;
        if raw.lent {
            // The bytes stayed in the source's buffer: `data` was not used, keep it for the next.
            self.spare = data;
            data = Vec::new();
        } else if !raw.has_bytes {
            self.recycle(data);
            data = Vec::new();
        }
        self.admit(raw, data).map(Some)
    }

    /// The next frame of a batch read from the source with its bytes lent
    /// ([`Source::next_lent_batch`]) and placed in one go, reading the next batch once this one is
    /// given out (None: the source gives none this way now: read one with [`Schedule::read_one`]).
    /// A frame the schedule refuses ends the batch before it: the frames before it are given out,
    /// then its error.
    #[inline]
    fn read_batched(&mut self) -> Result<Option<Held>, ScheduleError> {
        if self.ready_at == self.ready.len() {
            if let Some(e) = self.ready_err.take() {
                self.read += 1;
                return Err(e);
            }
            if !self.fill_ready() {
                return Ok(None);
            }
            if self.ready.is_empty() {
                return self.read_batched();
            }
        }
        let i = self.ready_at;
        self.ready_at += 1;
        self.read += 1;
        self.batch_lent = Some(self.batch_offs[i] as usize);
        Ok(Some(std::mem::take(&mut self.ready[i])))
    }

    /// Read a batch from the source and place its frames into `ready` (frames, times and checks as
    /// [`Schedule::admit`] makes them, one after the other). False when the source gave none.
    fn fill_ready(&mut self) -> bool {
        self.batch.clear();
        self.batch_offs.clear();
        self.ready.clear();
        self.ready_at = 0;
        self.batch_lent = None;
        if !self
            .src
            .next_lent_batch(&mut self.batch, &mut self.batch_offs, BATCH)
        {
            return false;
        }
        let raws = std::mem::take(&mut self.batch);
        for raw in &raws {
            let placed = self
                .key_of(raw)
                .and_then(|key| Ok((key, self.launch_of(key, raw)?)));
            let (key, launch) = match placed {
                Ok(k) => k,
                Err(e) => {
                    self.ready_err = Some(e);
                    break;
                }
            };
            self.last_out = Some((key, *raw));
            self.ready.push(Held {
                raw: *raw,
                job: JobFrame {
                    index: raw.index,
                    queue: raw.queue,
                    len: raw.len,
                    launch_ns: launch,
                },
                data: Vec::new(),
            });
        }
        self.batch = raws;
        true
    }

    /// Place a frame just read (times, pass, order check) and make its entry.
    #[inline]
    fn admit(&mut self, raw: Raw, data: Vec<u8>) -> Result<Entry, ScheduleError> {
        self.read += 1;
        let key = self.key_of(&raw)?;
        let mut e = Entry {
            key,
            held: Held {
                raw,
                job: JobFrame {
                    index: raw.index,
                    queue: raw.queue,
                    len: raw.len,
                    launch_ns: key,
                },
                data,
            },
        };
        if self.zero.is_some() {
            self.place(&mut e)?;
        }
        Ok(e)
    }

    /// A frame's key (its launch time relative to time 0: times, pass), checked against the last
    /// frame given out.
    #[inline]
    fn key_of(&mut self, raw: &Raw) -> Result<u64, ScheduleError> {
        if raw.pass != self.pass.number {
            // A new pass over the input: it starts one pass period after the one before.
            self.pass.start_next(self.cfg.retime);
            self.pass.number = raw.pass;
            self.first_time = None;
            self.prev = None;
        }
        let first = *self.first_time.get_or_insert(raw.time_ns);
        let mut key = if self.cfg.from_first && !self.cfg.absolute {
            raw.time_ns.saturating_sub(first)
        } else {
            raw.time_ns
        };
        if self.cfg.clamp_backwards {
            if let Some((prev_time, prev_key)) = self.prev {
                // (counted in the first pass: the others repeat it)
                if raw.time_ns < prev_time && raw.pass == 0 {
                    self.backwards.count += 1;
                    self.backwards
                        .first
                        .get_or_insert((raw.index, prev_time - raw.time_ns));
                }
                key = key.max(prev_key);
            }
            self.prev = Some((raw.time_ns, key));
        }
        if self.cfg.from_first && !self.cfg.absolute {
            key = self.pass.place(self.cfg.retime, key, raw.pos, raw.len);
        }
        if let Some((k, prev)) = &self.last_out {
            if (key, raw.seq) < (*k, prev.seq) {
                return Err(ScheduleError::OutOfOrder {
                    name: self.src.name().to_string(),
                    what: raw.what(),
                    time: raw.time_ns,
                    prev_what: prev.what(),
                    prev_time: prev.time_ns,
                    window: self.cfg.window,
                });
            }
        }
        Ok(key)
    }

    /// Compute the frame's absolute launch time from time 0 and check it.
    fn place(&self, e: &mut Entry) -> Result<(), ScheduleError> {
        e.held.job.launch_ns = self.launch_of(e.key, &e.held.raw)?;
        Ok(())
    }

    /// The absolute launch time of a frame of key `key` (the key itself before time 0 is set),
    /// checked against the PHC's range and the hold limit.
    #[inline]
    fn launch_of(&self, key: u64, raw: &Raw) -> Result<u64, ScheduleError> {
        let Some((t0, phc)) = self.zero else {
            return Ok(key);
        };
        let what = || raw.what();
        let name = || self.src.name().to_string();
        let launch = if self.cfg.absolute {
            key
        } else {
            t0.checked_add(key).ok_or_else(|| ScheduleError::Overflow {
                name: name(),
                what: what(),
                t0,
                rel: key,
            })?
        };
        if launch.saturating_sub(phc) > self.cfg.hold_limit_ns {
            return Err(ScheduleError::HoldTooLong {
                name: name(),
                what: what(),
                launch_ns: launch,
                phc_ns: phc,
                limit_ns: self.cfg.hold_limit_ns,
            });
        }
        if launch > crate::phc::PHC_MAX_NS {
            return Err(ScheduleError::TimeRange {
                name: name(),
                what: what(),
                launch_ns: launch,
            });
        }
        Ok(launch)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pipeline::source::CsvSource;
    use crate::trace::Limits;

    fn sched(text: &'static str, window: usize) -> Schedule<'static> {
        let src = CsvSource::new(text.as_bytes(), "t.csv".into(), Limits::for_card(4, 9000));
        Schedule::new(
            Box::new(src),
            Config {
                window,
                absolute: false,
                from_first: false,
                clamp_backwards: false,
                hold_limit_ns: u64::MAX,
                retime: Retime::Capture,
            },
        )
    }

    fn drain(s: &mut Schedule<'_>) -> Result<Vec<(u64, u64)>, ScheduleError> {
        s.set_time_zero(1000, 0)?;
        let mut v = Vec::new();
        while let Some(h) = s.next_frame()? {
            v.push((h.job.launch_ns, h.job.index));
        }
        Ok(v)
    }

    #[test]
    fn within_the_window_the_order_is_the_sorted_one() {
        let t = "launch_ns,queue,len\n30,0,60\n10,1,60\n20,0,60\n10,0,60\n40,0,60\n";
        let got = drain(&mut sched(t, 3)).unwrap();
        assert_eq!(
            got,
            vec![(1010, 1), (1010, 3), (1020, 2), (1030, 0), (1040, 4)]
        );
    }

    #[test]
    fn beyond_the_window_it_is_refused_naming_the_row_and_sort() {
        let t = "launch_ns,queue,len\n30,0,60\n40,0,60\n50,0,60\n10,0,60\n";
        let e = drain(&mut sched(t, 1)).unwrap_err().to_string();
        assert!(
            e.contains("t.csv: line 5 launches at 10 ns") && e.contains("sort"),
            "{e}"
        );
        assert!(drain(&mut sched(t, 3)).is_ok());
    }

    fn looped(text: &'static str, passes: u32, limit: u64, retime: Retime) -> Schedule<'static> {
        use crate::pipeline::source::{Looped, Source};
        let open = move || -> Box<dyn Source> {
            Box::new(CsvSource::new(
                text.as_bytes(),
                "c".into(),
                Limits::default(),
            ))
        };
        let src = Looped::new(open(), Box::new(move || Ok(open())), passes, limit);
        Schedule::new(
            Box::new(src),
            Config {
                window: 0,
                absolute: false,
                from_first: true,
                clamp_backwards: true,
                hold_limit_ns: u64::MAX,
                retime,
            },
        )
    }

    /// Pass k sends frame i at T0 + k * P + round(r_i), computed, never accumulated: a one-hour
    /// looped schedule (3000 passes of 1.2 s, at speed 1.25 and 0.8) is exact to the nanosecond at
    /// its last frame, with irregular gaps whose division by the speed does not come out even.
    #[test]
    fn looped_and_retimed_schedules_do_not_drift() {
        let t = "launch_ns,queue,len\n1000,0,60\n1333,0,61\n500000001,0,70\n1200000000,0,1500\n";
        let times = [1000u64, 1333, 500_000_001, 1_200_000_000];
        for (num, den) in [(125u64, 100u64), (4, 5), (1, 1)] {
            let mut s = looped(t, 3000, u64::MAX, Retime::Speed { num, den });
            s.set_time_zero(7, 0).unwrap();
            // the test's own arithmetic: exact rationals
            let r = |i: usize| {
                ((times[i] - times[0]) as u128 * den as u128 * 2 + num as u128) / (2 * num as u128)
            };
            let gap = (r(3) * 2 + 3) / 6; // round(r_last / (n - 1))
            let p = r(3) + gap;
            let mut n = 0u64;
            while let Some(h) = s.next_frame().unwrap() {
                let (k, i) = ((n / 4) as u128, (n % 4) as usize);
                assert_eq!(
                    u128::from(h.job.launch_ns),
                    7 + k * p + r(i),
                    "pass {k} frame {i}"
                );
                n += 1;
            }
            assert_eq!(n, 12_000);
            assert!(2999 * p + r(3) >= 3_600_000_000_000, "at least an hour");
        }
        // --pps and --mbps: position and bits, the pass period one interval more; --limit counts all
        let mut s = looped(t, 3, 10, Retime::Pps(3));
        s.set_time_zero(0, 0).unwrap();
        let mut got = Vec::new();
        while let Some(h) = s.next_frame().unwrap() {
            got.push(h.job.launch_ns);
        }
        let third = |i: u64| (i * 1_000_000_000 * 2 + 3) / 6;
        let want: Vec<u64> = (0..10)
            .map(|n| (n / 4) * (third(3) + third(1)) + third(n % 4))
            .collect();
        assert_eq!(got, want);
        let mut s = looped(t, 2, u64::MAX, Retime::Mbps(10));
        s.set_time_zero(0, 0).unwrap();
        let mut got = Vec::new();
        while let Some(h) = s.next_frame().unwrap() {
            got.push(h.job.launch_ns);
        }
        // bits before each frame: 0, 512, 1032, 1624; the last frame 1504 * 8 = 12032 bits
        let r = [0u64, 51_200, 103_200, 162_400];
        let p = 162_400 + 1_203_200;
        assert_eq!(
            got,
            vec![
                r[0],
                r[1],
                r[2],
                r[3],
                p + r[0],
                p + r[1],
                p + r[2],
                p + r[3]
            ]
        );
    }

    #[test]
    fn backwards_capture_times_are_clamped_and_counted() {
        let t = "launch_ns,queue,len\n100,0,60\n90,0,60\n120,0,60\n";
        let src = CsvSource::new(t.as_bytes(), "c".into(), Limits::default());
        let mut s = Schedule::new(
            Box::new(src),
            Config {
                window: 0,
                absolute: false,
                from_first: true,
                clamp_backwards: true,
                hold_limit_ns: u64::MAX,
                retime: Retime::Capture,
            },
        );
        assert_eq!(
            drain(&mut s).unwrap(),
            vec![(1000, 0), (1000, 1), (1020, 2)]
        );
        assert_eq!(
            s.backwards(),
            Backwards {
                count: 1,
                first: Some((1, 10))
            }
        );
    }
}
