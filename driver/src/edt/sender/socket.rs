//! The application's side of the socket (Linux net/ipv4/tcp.c and the open/close calls):
//! - `write`, `write_at`, `send_nonblocking`, `sendmsg`: `tcp_sendmsg_locked` (skbs of
//!   `size_goal`, `forced_push`, `tcp_push`, `tcp_push_one`, `sk_stream_memory_free`);
//! - `mark_push`: `tcp_mark_push`; `size_goal`: `tcp_xmit_size_goal` / `tcp_bound_to_half_wnd`;
//! - `set_sndbuf`: `sk_setsockopt(SO_SNDBUF)`; `wmem_queued`: `sk_wmem_queued`;
//! - `notsent_bytes`: `tcp_notsent_lowat`'s unsent count; `tcp_info`: `tcp_get_info`;
//! - `connect`: `tcp_v4_connect` -> `tcp_connect`; `accept`: `tcp_conn_request`;
//!   `close`: `tcp_close` (SYN_SENT: straight to TCP_CLOSE).

use super::*;

impl TcpSender {
    /// Unsent bytes the application has written (Linux notsent bytes).
    pub fn notsent_bytes(&self) -> u64 {
        self.write_seq
            .saturating_sub(self.snd_nxt.min(self.write_seq))
    }

    /// Bytes held by the sender: written and not yet acknowledged.
    pub fn buffered_bytes(&self) -> u64 {
        self.write_seq
            .saturating_sub(self.snd_una.min(self.write_seq))
    }

    /// Earliest timer deadline, if any.
    pub fn next_timer_ns(&self) -> Option<u64> {
        [self.retrans_timer.deadline(), self.pacing_timer.deadline()]
            .into_iter()
            .flatten()
            .min()
    }

    /// Timers that fired before their exact deadline (0 unless there is a bug).
    pub fn early_timer_fires(&self) -> u64 {
        self.retrans_timer.early_fires + self.pacing_timer.early_fires
    }

    /// The application writes `n` more bytes (Linux `tcp_sendmsg`, which first checks
    /// whether the flow was application-limited).
    ///
    /// The bytes go into skbs as `tcp_sendmsg_locked` builds them: appended to the unsent
    /// tail skb while it is shorter than size_goal (which clears its PSH), else into new
    /// skbs of size_goal; a full skb is pushed with PSH when the unpushed data exceeds half
    /// the peer's largest window (`forced_push`); at the end `tcp_push` marks the tail skb
    /// PSH (no MSG_MORE).
    pub fn write(&mut self, n: u64) {
        self.sendmsg(n, None, None);
    }

    /// A non-blocking `send` at `now` (Linux `tcp_sendmsg_locked` with MSG_DONTWAIT): bytes
    /// are copied while a new skb may be started (`sk_stream_memory_free`: the send queue
    /// under sk_sndbuf and unsent bytes under `notsent_lowat`); full skbs are sent as they
    /// fill (`tcp_push_one`, or all that cwnd allows on a forced push), and appending to the
    /// unsent rest of a partly sent skb needs no check. Returns the bytes accepted. The
    /// completions `port` reports meanwhile are consumed here, so the port must serve this
    /// sender alone (the packetdrill runner's does).
    pub fn send_nonblocking(
        &mut self,
        now: u64,
        n: u64,
        notsent_lowat: u64,
        port: &mut dyn TxPort,
    ) -> u64 {
        self.now_ns = self.now_ns.max(now);
        self.sendmsg(n, Some(notsent_lowat), Some((now, port)))
    }

    /// `tcp_sendmsg_locked`. `lowat`: stop (non-blocking) where a new skb is refused;
    /// `io`: send while writing as Linux does (else everything goes at the next `xmit`).
    pub(super) fn sendmsg(
        &mut self,
        n: u64,
        lowat: Option<u64>,
        mut io: Option<(u64, &mut dyn TxPort)>,
    ) -> u64 {
        if self.fin_queued {
            return 0;
        }
        self.check_app_limited();
        let size_goal = self.size_goal();
        let mut left = n;
        let mut copied = 0;
        while left > 0 {
            let tail_start = self
                .skb_ends
                .range(..self.write_seq)
                .next_back()
                .map_or(0, |(&k, _)| k)
                .max(self.snd_nxt);
            let mut copy = if self.write_seq > self.snd_nxt {
                size_goal.saturating_sub(self.write_seq - tail_start)
            } else {
                0
            };
            // the tail skb's PSH goes with its end as it grows, except that the first copy
            // of a write clears it (`if (!copied) tcp_flags &= ~TCPHDR_PSH`)
            let mut psh = false;
            if copy == 0 {
                // new_segment
                if let Some(lowat) = lowat {
                    if self.wmem_queued() >= self.sndbuf || self.notsent_bytes() >= lowat {
                        break; // wait_for_space: a non-blocking call returns
                    }
                }
                self.skb_ends.entry(self.write_seq).or_insert(false);
                copy = size_goal;
                self.slow_start_after_idle_check(); // tcp_skb_entail
            } else {
                psh = self.skb_ends.remove(&self.write_seq).unwrap_or(false) && copied > 0;
            }
            let c = copy.min(left);
            self.write_seq += c;
            left -= c;
            copied += c;
            if psh {
                self.skb_ends.insert(self.write_seq, true);
            }
            if left == 0 {
                break;
            }
            // the skb is full: forced_push marks it and pushes all; else tcp_push_one
            let forced = self.write_seq > self.pushed_seq + (self.max_window >> 1);
            if forced {
                self.mark_push();
            }
            if let Some((now, port)) = io.as_mut() {
                self.xmit_inner(*now, &mut **port, !forced);
                // what left by now has left (a tun device frees its skbs at once: TSQ sees
                // none queued); the port is this sender's alone
                for c in port.poll(*now) {
                    self.on_completion(&c);
                }
            }
        }
        if copied > 0 {
            self.mark_push(); // tcp_push without MSG_MORE
        }
        copied
    }

    /// [`Self::write`] at time `now` (the idle check of `tcp_skb_entail` reads the clock).
    pub fn write_at(&mut self, now: u64, n: u64) {
        self.now_ns = self.now_ns.max(now);
        self.write(n);
    }

    /// Linux `tcp_mark_push` on the write queue's tail skb (which ends at write_seq).
    pub(super) fn mark_push(&mut self) {
        self.skb_ends.insert(self.write_seq, true);
        self.pushed_seq = self.write_seq;
    }

    /// Linux `tcp_xmit_size_goal`: the payload of one write-queue skb: the device's GSO
    /// limit (`sk_gso_max_size` = 65536 - (MAX_TCP_HEADER 320 + 1), `sk_dst_gso_max_size`),
    /// at most half the peer's largest window (`tcp_bound_to_half_wnd`), in whole MSS.
    pub fn size_goal(&self) -> u64 {
        const GSO_MAX: u64 = 65_536 - 321;
        let half = if self.max_window > 536 {
            self.max_window >> 1
        } else {
            self.max_window
        };
        let goal = if half > 0 && GSO_MAX > half {
            half.max(68 - 20 - if self.ts_ok { 12 } else { 0 })
        } else {
            GSO_MAX
        };
        (goal / self.mss.max(1)).max(1) * self.mss
    }

    /// The application is done: send FIN after the data.
    pub fn close(&mut self) {
        if self.state == ConnState::SynSent && !self.passive {
            // Linux tcp_close in SYN_SENT: straight to TCP_CLOSE, nothing sent, no SYN retry
            self.state = ConnState::Closed;
            self.aborted = true;
            self.retrans_timer.cancel();
            return;
        }
        self.fin_queued = true;
    }

    /// The connection is over: done, reset or timed out.
    pub fn is_finished(&self) -> bool {
        matches!(
            self.state,
            ConnState::Done | ConnState::Reset | ConnState::TimedOut
        )
    }

    /// SYN retransmissions so far.
    pub fn syn_retransmits(&self) -> u32 {
        self.syn_retries
    }

    /// The send buffer (Linux `sk_sndbuf`, bytes of memory): tcp_wmem[1] (16 KB) at first,
    /// grown by [`Self::sndbuf_expand`], never shrunk.
    pub fn sndbuf_bytes(&self) -> u64 {
        self.sndbuf
    }

    /// setsockopt(SO_SNDBUF, `val`) (Linux `sk_setsockopt`): sk_sndbuf = 2 x min(val,
    /// wmem_max 212992), at least SOCK_MIN_SNDBUF (4608), and locked against
    /// `tcp_sndbuf_expand`.
    pub fn set_sndbuf(&mut self, val: u64) {
        self.sndbuf = (val.min(212_992) * 2).max(4608);
        self.sndbuf_locked = true;
    }

    /// Memory the send queue holds (Linux `sk_wmem_queued`). The application writes in
    /// 64 KB chunks, which Linux keeps in GSO-sized skbs of page fragments whose truesize is
    /// close to their payload; this model counts the payload.
    pub fn wmem_queued(&self) -> u64 {
        self.buffered_bytes()
    }

    /// Active open: post the SYN.
    pub fn connect(&mut self, now: u64, port: &mut dyn TxPort) {
        self.state = ConnState::SynSent;
        self.stats.syn_sent_ns = now;
        self.post_syn(now, port);
    }

    /// Passive open (Linux `tcp_conn_request` + `tcp_rcv_state_process`): take the peer's SYN
    /// `syn` (a frame) and post our SYN-ACK; the connection is established when the peer's
    /// ACK of it arrives (`on_frame`). A frame that is not a SYN is an error and changes
    /// nothing.
    pub fn accept(
        &mut self,
        now: u64,
        syn: &[u8],
        port: &mut dyn TxPort,
    ) -> Result<(), crate::edt::EdtError> {
        let seg = frame::parse(syn)?;
        if seg.flags & (tcp_flags::SYN | tcp_flags::ACK | tcp_flags::RST) != tcp_flags::SYN {
            return Err(crate::edt::EdtError::BadFrame(
                "accept needs a SYN without ACK or RST",
            ));
        }
        self.take_peer_syn(&seg);
        self.passive = true;
        self.state = ConnState::SynSent;
        self.stats.syn_sent_ns = now;
        self.post_syn(now, port);
        Ok(())
    }

    /// The `tcp_info` view (Linux `tcp_get_info`).
    pub fn tcp_info(&self) -> TcpInfo {
        let ca_state = match self.ca_state {
            CaState::Open => 0,
            CaState::Disorder => 1,
            CaState::Recovery => 3,
            CaState::Loss => 4,
        };
        TcpInfo {
            ca_state,
            snd_cwnd: self.cc_state.cwnd,
            snd_ssthresh: self.cc_state.ssthresh.min(0x7fff_ffff),
            // icsk_rto is kept in jiffies (usecs_to_jiffies rounds up): whole ticks
            rto_us: crate::edt::timer::deadline_round_up(0, self.rto_ns(), self.cfg.tick_ns) / 1000,
            unacked: self.rtx.len() as u64,
            sacked: self.sacked_out + self.reno_sacked,
            lost: self.lost_out,
            retrans: self
                .rtx
                .iter()
                .filter(|s| s.tx_count > 1 && !s.sacked && !s.lost)
                .count() as u64,
            total_retrans: self.stats.retrans_segs,
            rtt_us: self.rtt.srtt(),
            rttvar_us: self.rtt.mdev_us >> 2,
            min_rtt_us: self.min_rtt_us,
            snd_mss: self.mss,
            notsent_bytes: self.notsent_bytes(),
            delivered: self.delivered,
            reordering: self.reordering,
            reord_seen: self.reord_seen,
        }
    }
}
