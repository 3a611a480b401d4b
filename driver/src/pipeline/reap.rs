//! Stage 4, reap: completions taken from the completion ring, matched to the frames in flight
//! (stage 3's table), their buffers given back to their rings, and each result handed to the sinks
//! (stage 5) at once: nothing about a completed frame stays in this stage.

use crate::contract::{Completion, Status};
use crate::device::Backend;
use crate::push::{FrameResult, PushError};

use super::post::Post;
use super::sink::Sink;

/// Stage 4: the completion records of one poll.
pub struct Reap {
    cpls: Vec<Completion>,
    bytes: Vec<u8>,
}

impl Default for Reap {
    fn default() -> Self {
        Reap {
            cpls: Vec::with_capacity(1024),
            bytes: Vec::with_capacity(9600),
        }
    }
}

/// The result of frame `f` as completion `c` says.
#[inline]
pub fn result(c: &Completion, f: &super::post::InFlight) -> Result<FrameResult, PushError> {
    result_of(c, f).ok_or_else(|| unknown_status(c, f))
}

/// [`result`], None for a status code the contract does not know (small enough to come back in
/// registers: no large `Result` through memory per frame).
#[inline(always)]
fn result_of(c: &Completion, f: &super::post::InFlight) -> Option<FrameResult> {
    Some(FrameResult {
        index: f.job.index,
        queue: f.job.queue,
        len: f.job.len,
        launch_ns: f.job.launch_ns,
        status: Status::from_code(c.status)?,
        depart_ns: c.depart_ns,
        reason: c.reason,
        capped: c.flags & crate::contract::CPL_FLAG_CAPPED != 0,
    })
}

#[cold]
fn unknown_status(c: &Completion, f: &super::post::InFlight) -> PushError {
    PushError::Job(format!(
        "completion with unknown status code {} for frame {}",
        c.status, f.job.index
    ))
}

impl Reap {
    /// Take every completion there is and hand each result to `sink`. Returns how many.
    pub fn take(
        &mut self,
        b: &mut dyn Backend,
        post: &mut Post,
        sink: &mut dyn Sink,
    ) -> Result<u64, PushError> {
        self.cpls.clear();
        post.poll(b, &mut self.cpls, 1024)?;
        if let Some((report, departed)) = sink.counts_only() {
            // The report alone: each result straight to it (what `Outputs::completed` does then).
            let out = |e: std::io::Error| {
                PushError::Output(format!("cannot write the report's frame list: {e}"))
            };
            for c in &self.cpls {
                let Some((_, f)) = post.take_in_flight_opt(c) else {
                    return Err(PushError::Unmatched {
                        queue: c.queue,
                        cookie: c.cookie,
                    });
                };
                let Some(r) = result_of(c, &f) else {
                    return Err(unknown_status(c, &f));
                };
                report.completed(f.seq, &r).map_err(out)?;
                if r.on_wire() {
                    *departed += 1;
                    report.departed(f.seq, &r, None).map_err(out)?;
                }
            }
            return Ok(self.cpls.len() as u64);
        }
        let want_bytes = sink.wants_bytes();
        for c in &self.cpls {
            let Some((qp, f)) = post.take_in_flight_opt(c) else {
                return Err(PushError::Unmatched {
                    queue: c.queue,
                    cookie: c.cookie,
                });
            };
            let Some(r) = result_of(c, &f) else {
                return Err(unknown_status(c, &f));
            };
            // The buffer went back to its ring in `poll` but nothing was posted since: its bytes are
            // still the frame's.
            if want_bytes {
                self.bytes.clear();
                if r.on_wire() {
                    post.queues[qp].read_buffer(b, c.cookie, &mut self.bytes, r.len as usize);
                }
            }
            sink.completed(f.seq, &r, &self.bytes)
                .map_err(PushError::Output)?;
        }
        Ok(self.cpls.len() as u64)
    }
}
