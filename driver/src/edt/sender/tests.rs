//! Scripted conversations with one sender: a card that departs frames when told, and ACKs
//! built by hand, so each Linux rule is checked on the exact segments it is about.
use super::*;

const ISS: u32 = 1000;
const PEER_ISS: u32 = 5000;

/// A card that keeps what was posted and departs it when the test says so.
#[derive(Default)]
struct Port {
    posted: Vec<TxRequest>,
    departed: usize,
}

impl TxPort for Port {
    fn post(&mut self, _now: u64, req: TxRequest) {
        self.posted.push(req);
    }
    fn next_event_ns(&self) -> Option<u64> {
        None
    }
    fn poll(&mut self, _now: u64) -> Vec<Completion> {
        Vec::new()
    }
    fn line_rate_bps(&self) -> u64 {
        10_000_000_000
    }
    fn describe(&self) -> String {
        "test port".into()
    }
}

impl Port {
    /// Depart everything posted so far (at its launch time, or `now` if later).
    fn depart(&mut self, s: &mut TcpSender, now: u64) {
        while self.departed < self.posted.len() {
            let r = &self.posted[self.departed];
            s.on_completion(&Completion {
                cookie: r.cookie,
                launch_ns: r.launch_ns,
                depart_ns: r.launch_ns.max(now),
                status: TxStatus::Sent,
            });
            self.departed += 1;
        }
    }
    /// Stream offsets of the data segments posted so far, in order.
    fn data_offsets(&self) -> Vec<u64> {
        self.posted
            .iter()
            .filter_map(|r| frame::parse(&r.frame).ok())
            .filter(|p| p.payload_len > 0)
            .map(|p| u64::from(p.seq.wrapping_sub(ISS + 1)))
            .collect()
    }
}

fn ends() -> Endpoints {
    Endpoints {
        src_mac: [2, 0, 0, 0, 0, 1],
        dst_mac: [2, 0, 0, 0, 0, 2],
        src_ip: [10, 0, 0, 1],
        dst_ip: [10, 0, 0, 2],
        src_port: 40000,
        dst_port: 5001,
    }
}

fn peer_frame(flags: u8, ack_off: u64, opts: SegOptions) -> Vec<u8> {
    let e = ends();
    let back = Endpoints {
        src_mac: e.dst_mac,
        dst_mac: e.src_mac,
        src_ip: e.dst_ip,
        dst_ip: e.src_ip,
        src_port: e.dst_port,
        dst_port: e.src_port,
    };
    let seq = if flags & tcp_flags::SYN != 0 {
        PEER_ISS
    } else {
        PEER_ISS + 1
    };
    // 65535 unscaled in the SYN-ACK; 65535 << 7 (8 MB) after.
    frame::build(&back, seq, seq_of(ISS, ack_off), flags, 65535, &opts, &[])
}

/// An ACK for stream offset `ack_off` with SACK blocks given as stream offsets.
fn ack(s: &mut TcpSender, p: &mut Port, now: u64, ack_off: u64, sacks: &[(u64, u64)]) {
    let opts = SegOptions {
        sack: sacks
            .iter()
            .map(|&(l, r)| (seq_of(ISS, l), seq_of(ISS, r)))
            .collect(),
        ..Default::default()
    };
    s.on_frame(now, &peer_frame(tcp_flags::ACK, ack_off, opts), p);
}

/// Passive open: a SYN is answered with a SYN-ACK carrying only the options the SYN
/// offered; the peer's ACK establishes (window scaled, RTT from the SYN-ACK); a frame that
/// is not a plain SYN is refused and changes nothing.
#[test]
fn accept_answers_a_syn_with_its_options() {
    let mut s = TcpSender::new(SenderConfig::new(ends(), ISS, CcKind::Cubic), 1 << 48);
    let mut p = Port::default();
    let ack_only = peer_frame(tcp_flags::ACK, 0, SegOptions::default());
    assert!(s.accept(0, &ack_only, &mut p).is_err());
    assert!(s.accept(0, &[1, 2, 3], &mut p).is_err());
    assert_eq!((s.state, p.posted.len()), (ConnState::Closed, 0));
    let syn = SegOptions {
        mss: Some(1000),
        sack_permitted: true,
        ..Default::default()
    };
    s.accept(0, &peer_frame(tcp_flags::SYN, 0, syn), &mut p)
        .unwrap();
    let synack = frame::parse(&p.posted[0].frame).unwrap();
    assert_eq!(synack.flags, tcp_flags::SYN | tcp_flags::ACK);
    assert_eq!((synack.seq, synack.ack), (ISS, PEER_ISS + 1));
    assert_eq!(synack.options.mss, Some(1460));
    assert!(synack.options.sack_permitted);
    assert_eq!(
        synack.options.wscale, None,
        "the SYN offered no window scale"
    );
    assert_eq!(
        synack.options.timestamps, None,
        "the SYN offered no timestamps"
    );
    p.depart(&mut s, 0);
    s.on_frame(
        30_000_000,
        &peer_frame(tcp_flags::ACK, 0, SegOptions::default()),
        &mut p,
    );
    assert_eq!(s.state, ConnState::Established);
    assert_eq!(s.mss, 1000);
    assert_eq!(s.snd_wnd, 65535, "no window scale: the ACK's window as is");
    assert_eq!(s.tcp_info().rtt_us, 30_000);
    assert_eq!(p.posted.len(), 1, "no ACK of an ACK");
}

/// A connection established at 100 us (SYN-ACK RTT 100 us), SACK on, window scale 7.
fn established(cc: CcKind) -> (TcpSender, Port) {
    let mut cfg = SenderConfig::new(ends(), ISS, cc);
    cfg.tick_ns = 1_000; // fine timer ticks: deadlines below are exact
    let mut s = TcpSender::new(cfg, 1 << 48);
    let mut p = Port::default();
    s.connect(0, &mut p);
    p.depart(&mut s, 0);
    let opts = SegOptions {
        mss: Some(1460),
        wscale: Some(7),
        sack_permitted: true,
        ..Default::default()
    };
    let synack = peer_frame(tcp_flags::SYN | tcp_flags::ACK, 0, opts);
    s.on_frame(100_000, &synack, &mut p);
    assert_eq!(s.state, ConnState::Established);
    p.depart(&mut s, 100_000);
    (s, p)
}

/// Write and send `segs` full segments at `now`, and depart them.
fn send(s: &mut TcpSender, p: &mut Port, now: u64, segs: u64) {
    s.write(segs * s.mss);
    s.xmit(now, p);
    p.depart(s, now);
}

/// PSH of each data frame posted so far, in order.
fn data_psh(p: &Port) -> Vec<bool> {
    p.posted
        .iter()
        .filter_map(|r| frame::parse(&r.frame).ok())
        .filter(|f| f.payload_len > 0)
        .map(|f| f.flags & tcp_flags::PSH != 0)
        .collect()
}

#[test]
fn psh_as_linux_sets_it_per_skb_and_tso_packet() {
    // tcp_push marks the write's tail skb; __tcp_transmit_skb forces PSH on a GSO packet
    // of more than one segment; GSO leaves it on the last segment only; a one-segment
    // packet cut from the head of an skb (tso_fragment) carries none.
    let (mut s, mut p) = established(CcKind::Cubic);
    send(&mut s, &mut p, 200_000, 3);
    assert_eq!(
        data_psh(&p),
        vec![false, false, true],
        "one 3-segment TSO packet"
    );
    // cwnd 4 with 3 out: one more segment of a 3-segment write goes alone, no PSH (its
    // skb's PSH stays on the unsent rest); the rest goes as one packet with PSH
    s.cc_state.cwnd = 4;
    send(&mut s, &mut p, 300_000, 3);
    assert_eq!(data_psh(&p)[3..], [false]);
    s.cc_state.cwnd = 10;
    s.xmit(300_000, &mut p);
    p.depart(&mut s, 300_000);
    assert_eq!(data_psh(&p)[4..], [false, true]);
    // cwnd 2: one segment per packet (tcp_cwnd_test: half of cwnd), none at the end of
    // the skb; then the write's last segment alone: PSH (its skb was pushed)
    let (mut s, mut p) = established(CcKind::Cubic);
    s.cc_state.cwnd = 2;
    send(&mut s, &mut p, 200_000, 3);
    s.cc_state.cwnd = 3;
    s.xmit(200_000, &mut p);
    assert_eq!(data_psh(&p), vec![false, false, true]);
}

#[test]
fn without_sack_three_duplicate_acks_retransmit_the_head() {
    // tcp_add_reno_sack counts each duplicate ACK as a delivered segment (Disorder,
    // tcp_try_keep_open); the third marks the head lost (tcp_newreno_mark_lost) and
    // starts recovery; PRR lets the one retransmission out (in flight 4 - 3 - 1 = 0).
    let mut cfg = SenderConfig::new(ends(), ISS, CcKind::Cubic);
    cfg.tick_ns = 1_000;
    let mut s = TcpSender::new(cfg, 1 << 48);
    let mut p = Port::default();
    s.connect(0, &mut p);
    p.depart(&mut s, 0);
    let opts = SegOptions {
        mss: Some(1460),
        wscale: Some(7),
        ..Default::default()
    };
    s.on_frame(
        100_000,
        &peer_frame(tcp_flags::SYN | tcp_flags::ACK, 0, opts),
        &mut p,
    );
    p.depart(&mut s, 100_000);
    ack(&mut s, &mut p, 150_000, 0, &[]); // the scaled window: an update, no data out
    send(&mut s, &mut p, 200_000, 4);
    let before = p.data_offsets().len();
    ack(&mut s, &mut p, 300_000, 0, &[]);
    assert_eq!(s.ca_state(), CaState::Disorder);
    assert_eq!((s.tcp_info().ca_state, s.tcp_info().sacked), (1, 1));
    ack(&mut s, &mut p, 301_000, 0, &[]);
    assert_eq!(p.data_offsets().len(), before, "nothing new to send");
    ack(&mut s, &mut p, 302_000, 0, &[]);
    assert_eq!(s.ca_state(), CaState::Recovery);
    assert_eq!(s.cc_state.ssthresh, 7);
    assert_eq!(
        p.data_offsets()[before..],
        [0],
        "fast retransmit of the head"
    );
    // a window update is not a duplicate ACK
    let (mut s, mut p) = established(CcKind::Cubic);
    s.sack_ok = false;
    send(&mut s, &mut p, 200_000, 4);
    let e = ends();
    let back = Endpoints {
        src_mac: e.dst_mac,
        dst_mac: e.src_mac,
        src_ip: e.dst_ip,
        dst_ip: e.src_ip,
        src_port: e.dst_port,
        dst_port: e.src_port,
    };
    let f = |w| {
        frame::build(
            &back,
            PEER_ISS + 1,
            seq_of(ISS, 0),
            tcp_flags::ACK,
            w,
            &SegOptions::default(),
            &[],
        )
    };
    for w in [60000, 61000, 62000] {
        s.on_frame(300_000, &f(w), &mut p);
    }
    assert_eq!(s.ca_state(), CaState::Open);
}

#[test]
fn cwnd_restarts_after_an_idle_rto() {
    // tcp_slow_start_after_idle_check at tcp_skb_entail: nothing out, idle > RTO:
    // tcp_cwnd_restart halves cwnd per RTO idle, never below the initial window.
    for (idle_rtos, setting, cc, want) in [
        (1.5, true, CcKind::Cubic, 18),
        (2.5, true, CcKind::Cubic, 10),
        (0.9, true, CcKind::Cubic, 36),
        (2.5, false, CcKind::Cubic, 36),
        (2.5, true, CcKind::Bbr, 36),
    ] {
        let (mut s, mut p) = established(cc);
        s.cfg.slow_start_after_idle = setting;
        send(&mut s, &mut p, 200_000, 2);
        let mss = s.mss;
        ack(&mut s, &mut p, 300_000, 2 * mss, &[]);
        s.cc_state.cwnd = 36;
        let rto = s.rto_ns();
        s.write_at(200_000 + (rto as f64 * idle_rtos) as u64, 100);
        assert_eq!(
            s.cc_state.cwnd, want,
            "{idle_rtos} RTOs idle, {setting} {cc:?}"
        );
    }
}

#[test]
fn a_zero_window_is_probed_with_backoff() {
    // tcp_check_probe_timer / tcp_send_probe0: with data waiting on a zero window and
    // nothing out, an ACK with sequence snd_una - 1 after the RTO, then at doubled
    // intervals (tcp_probe0_when); a window update stops it and the data goes.
    let (mut s, mut p) = established(CcKind::Cubic);
    // window 0
    let e = ends();
    let back = Endpoints {
        src_mac: e.dst_mac,
        dst_mac: e.src_mac,
        src_ip: e.dst_ip,
        dst_ip: e.src_ip,
        src_port: e.dst_port,
        dst_port: e.src_port,
    };
    let f = frame::build(
        &back,
        PEER_ISS + 1,
        seq_of(ISS, 0),
        tcp_flags::ACK,
        0,
        &SegOptions::default(),
        &[],
    );
    s.on_frame(150_000, &f, &mut p);
    let n = p.posted.len();
    s.write_at(200_000, 1000);
    s.xmit(200_000, &mut p);
    assert_eq!(p.posted.len(), n, "nothing fits a zero window");
    let base = s.rto_ns().max(super::super::rtt::RTO_MIN_US * 1000);
    let mut at = 200_000;
    for k in 0..3u32 {
        let d = s.next_timer_ns().expect("the probe timer");
        assert_eq!(d, at + (base << k), "probe {k}");
        s.on_timers(d, &mut p);
        let probe = frame::parse(&p.posted.last().unwrap().frame).unwrap();
        assert_eq!(
            (probe.seq, probe.payload_len, probe.flags),
            (ISS, 0, tcp_flags::ACK)
        );
        at = d;
    }
    assert_eq!(p.data_offsets().len(), 0);
    ack(&mut s, &mut p, at + 1_000, 0, &[]);
    assert_eq!(p.data_offsets(), vec![0], "the window opened");
}

#[test]
fn reordering_degree_grows_and_lets_sacks_raise_cwnd() {
    // tcp_check_sack_reordering: a segment delivered below the highest SACKed one sets
    // the degree to the distance (from that segment's start, tcp_highest_sack_seq);
    // beyond the default 3, tcp_may_raise_cwnd lets a SACK grow cwnd.
    let (mut s, mut p) = established(CcKind::Cubic);
    send(&mut s, &mut p, 200_000, 10);
    let m = s.mss;
    ack(&mut s, &mut p, 300_000, 0, &[(9 * m, 10 * m)]);
    assert_eq!((s.reordering, s.reord_seen, s.cc_state.cwnd), (3, 0, 10));
    ack(
        &mut s,
        &mut p,
        300_000,
        0,
        &[(3 * m, 4 * m), (9 * m, 10 * m)],
    );
    assert_eq!((s.reordering, s.reord_seen, s.cc_state.cwnd), (6, 1, 11));
    ack(&mut s, &mut p, 300_000, 10 * m, &[]);
    assert_eq!((s.reordering, s.reord_seen, s.cc_state.cwnd), (10, 2, 19));
}

#[test]
fn a_sack_only_ack_does_not_grow_cwnd() {
    // tcp_cong_control -> tcp_may_raise_cwnd: cong_avoid needs FLAG_DATA_ACKED.
    let (mut s, mut p) = established(CcKind::Cubic);
    send(&mut s, &mut p, 200_000, 10);
    let mss = s.mss;
    ack(&mut s, &mut p, 300_000, 0, &[(4 * mss, 5 * mss)]);
    assert_eq!(s.cc_state.cwnd, 10, "SACK-only ACK");
    ack(&mut s, &mut p, 301_000, mss, &[(4 * mss, 5 * mss)]);
    assert_eq!(s.cc_state.cwnd, 11, "cumulative ACK of one segment");
}

#[test]
fn app_limited_is_checked_when_the_application_writes() {
    // tcp_rate_check_app_limited: nothing unsent, nothing on the card, cwnd not full.
    let (mut s, mut p) = established(CcKind::Cubic);
    assert!(!s.is_app_limited());
    s.write(100);
    assert!(s.is_app_limited(), "idle flow writing: app-limited");
    let (mut s, mut p2) = established(CcKind::Cubic);
    s.write(5 * s.mss);
    s.xmit(200_000, &mut p2);
    // Five segments on the card, not yet departed: not app-limited (sk_wmem_alloc).
    s.app_limited_until = 0;
    s.write(100);
    assert!(!s.is_app_limited(), "frames still on the card");
    p2.depart(&mut s, 200_000);
    // cwnd 10 > 5 in flight, the 100 bytes are less than one MSS: app-limited.
    s.write(100);
    assert!(s.is_app_limited());
    // cwnd full: not app-limited.
    let (mut s, _) = established(CcKind::Cubic);
    send(&mut s, &mut p, 200_000, 10);
    s.app_limited_until = 0;
    s.write(100);
    assert!(!s.is_app_limited(), "cwnd-limited");
}

#[test]
fn rto_in_recovery_keeps_ssthresh_and_repeated_rtos_do_not_drive_it_to_2() {
    // tcp_enter_loss: ssthresh is cut only in Open/Disorder, after recovery, or in Loss
    // before any RTO retransmission.
    let (mut s, mut p) = established(CcKind::Cubic);
    send(&mut s, &mut p, 200_000, 10);
    // Segments 3..9 SACKed (7 >= DUPTHRESH, so no reordering window): 0..2 lost.
    let mss = s.mss;
    ack(&mut s, &mut p, 400_000, 0, &[(3 * mss, 10 * mss)]);
    assert_eq!(s.ca_state(), CaState::Recovery);
    let ss = s.cc_state.ssthresh;
    assert_eq!(ss, 7, "CUBIC: 10 * 717 / 1024");
    for n in 1..=3 {
        while s.stats.rto_fires < n {
            let d = s.next_timer_ns().expect("a timer is armed");
            s.on_timers(d, &mut p);
        }
        assert_eq!(s.ca_state(), CaState::Loss);
        assert_eq!(s.cc_state.ssthresh, ss, "RTO {n} cut ssthresh again");
        assert_eq!(s.cc_state.cwnd, 1, "cwnd = in flight (0) + 1");
    }
    // An RTO after snd_una moved in Loss cuts again (a new window: icsk_retransmits 0).
    let mut q = Port::default();
    let (mut s, _) = established(CcKind::Cubic);
    send(&mut s, &mut q, 200_000, 10);
    while s.stats.rto_fires < 1 {
        let d = s.next_timer_ns().unwrap();
        s.on_timers(d, &mut q);
    }
    assert_eq!(s.cc_state.ssthresh, 7, "first RTO from Open: 10 -> 7");
    let rto_at = s.next_timer_ns().unwrap();
    q.depart(&mut s, rto_at);
    let mss = s.mss;
    ack(&mut s, &mut q, rto_at - 1, mss, &[]);
    assert_eq!(s.ca_state(), CaState::Loss);
    let cwnd = s.cc_state.cwnd;
    while s.stats.rto_fires < 2 {
        let d = s.next_timer_ns().unwrap();
        s.on_timers(d, &mut q);
    }
    assert_eq!(s.cc_state.ssthresh, cubic_ss(cwnd));
}

fn cubic_ss(cwnd: u64) -> u64 {
    super::super::cc::cubic::cubic_ssthresh(cwnd)
}

#[test]
fn rack_timer_armed_on_an_advancing_ack_is_not_overwritten() {
    // Linux clears FLAG_SET_XMIT_TIMER when tcp_rack_mark_lost arms the REO timer.
    let (mut s, mut p) = established(CcKind::Cubic);
    send(&mut s, &mut p, 200_000, 10);
    let mss = s.mss;
    // Cumulative ACK of 0..1 and a SACK of 3: segment 2 is within the reordering window
    // (min_rtt / 4 = 25 us), so RACK arms its timer on this advancing ACK.
    let now = 300_000;
    ack(&mut s, &mut p, now, 2 * mss, &[(3 * mss, 4 * mss)]);
    assert_eq!(s.retrans_pending, RetransPending::Reo);
    // tx 200 us + rack rtt 100 us + reo_wnd 25 us, + 2 ms (TCP_TIMEOUT_MIN_US).
    assert_eq!(
        s.next_timer_ns(),
        Some(200_000 + 100_000 + 25_000 + 2_000_000)
    );
    let d = s.next_timer_ns().unwrap();
    let before = p.data_offsets().len();
    s.on_timers(d, &mut p);
    assert_eq!(s.stats.rack_marked_lost, 1);
    assert_eq!(s.ca_state(), CaState::Recovery);
    assert_eq!(p.data_offsets()[before..].first(), Some(&(2 * mss)));
}

#[test]
fn loss_probe_rearms_on_each_send_and_needs_a_sent_probe() {
    let (mut s, mut p) = established(CcKind::Cubic);
    send(&mut s, &mut p, 200_000, 4);
    // PTO = 2 x srtt (100 us) + TCP_TIMEOUT_MIN_US, from the send.
    assert_eq!(s.retrans_pending, RetransPending::Tlp);
    assert_eq!(s.next_timer_ns(), Some(200_000 + 200_000 + 2_000_000));
    // Another send 1 ms later moves the probe (tcp_write_xmit -> tcp_schedule_loss_probe).
    send(&mut s, &mut p, 1_200_000, 2);
    assert_eq!(s.next_timer_ns(), Some(1_200_000 + 200_000 + 2_000_000));
    // A probe that cannot be sent (the last segment still on the card, no new data)
    // records no tlp_high_seq and counts no probe.
    let (mut s, mut p) = established(CcKind::Cubic);
    s.write(4 * s.mss);
    s.xmit(200_000, &mut p); // posted, never departed
    let d = s.next_timer_ns().unwrap();
    s.on_timers(d, &mut p);
    assert_eq!(s.stats.tlp_probes, 0);
    assert_eq!(s.tlp_high_seq, None);
    assert_eq!(s.retrans_pending, RetransPending::Rto);
}

#[test]
fn send_buffer_counts_truesize_and_never_shrinks() {
    // tcp_sndbuf_expand at establishment: 2 (CUBIC) x max(cwnd 10, 10, 4) x 4352 B.
    let (mut s, mut p) = established(CcKind::Cubic);
    assert_eq!(s.sndbuf_bytes(), 2 * 10 * SNDBUF_PER_MSS);
    let (b, _) = established(CcKind::Bbr);
    assert_eq!(b.sndbuf_bytes(), 3 * 10 * SNDBUF_PER_MSS);
    // An RTO drops cwnd to 1: the buffer stays.
    send(&mut s, &mut p, 200_000, 10);
    while s.stats.rto_fires == 0 {
        let d = s.next_timer_ns().unwrap();
        s.on_timers(d, &mut p);
    }
    assert_eq!(s.cc_state.cwnd, 1);
    assert_eq!(s.sndbuf_bytes(), 2 * 10 * SNDBUF_PER_MSS);
}

#[test]
fn a_short_tail_waits_for_the_card_and_for_the_previous_short_segment() {
    let (mut s, mut p) = established(CcKind::Cubic);
    let mss = s.mss;
    s.write(mss + 100);
    s.xmit(200_000, &mut p);
    // The full segment goes; the 100-byte tail is corked behind it (tcp_should_autocork).
    assert_eq!(p.data_offsets(), vec![0]);
    p.depart(&mut s, 200_000);
    s.xmit(201_000, &mut p);
    assert_eq!(p.data_offsets(), vec![0, mss], "card empty: the tail goes");
    p.depart(&mut s, 201_000);
    // Another short write: Nagle/Minshall holds it while the first short one is unacked...
    s.write(100);
    s.xmit(202_000, &mut p);
    assert_eq!(p.data_offsets().len(), 2);
    // ...and the ACK releases it.
    ack(&mut s, &mut p, 300_000, mss + 100, &[]);
    s.xmit(300_000, &mut p);
    assert_eq!(p.data_offsets(), vec![0, mss, mss + 100]);
    // A FIN pushes a short tail out at once.
    let (mut s, mut p) = established(CcKind::Cubic);
    s.write(mss + 100);
    s.close();
    s.xmit(200_000, &mut p);
    assert_eq!(p.data_offsets(), vec![0, mss]);
}

#[test]
fn rate_sample_comes_from_the_segment_sent_last() {
    // tcp_rate_skb_delivered: a burst shares one `delivered` snapshot; of the segments
    // one ACK delivers, the sample is the one sent last (then the higher end), and first_tx
    // moves to each later-sent one. (Picking the highest `delivered` took the first of the
    // burst and left first_tx behind.)
    let r = |d| TxRate {
        delivered: d,
        delivered_ns: 0,
        first_tx_ns: 0,
        app_limited: false,
    };
    let mut rs = None;
    let mut first_tx = 0;
    rate_skb_delivered(&mut rs, &mut first_tx, r(5), 1_000, 100);
    rate_skb_delivered(&mut rs, &mut first_tx, r(5), 3_000, 300);
    rate_skb_delivered(&mut rs, &mut first_tx, r(5), 2_000, 200);
    rate_skb_delivered(&mut rs, &mut first_tx, r(5), 3_000, 250);
    let a = rs.unwrap();
    assert_eq!((a.tx_ns, a.end, first_tx), (3_000, 300, 3_000));
    // Same transmit time: the higher end sequence wins.
    rate_skb_delivered(&mut rs, &mut first_tx, r(5), 3_000, 400);
    assert_eq!(rs.unwrap().end, 400);
}

#[test]
fn app_limited_waits_for_lost_segments_to_be_retransmitted() {
    // tcp_rate_check_app_limited: lost_out <= retrans_out.
    let (mut s, mut p) = established(CcKind::Cubic);
    send(&mut s, &mut p, 200_000, 4);
    // marked lost as RACK marks it (out of the time-ordered list, counted in lost_out)
    s.tsorted.remove(&s.rtx[1]);
    s.rtx[1].lost = true;
    s.lost_out += 1;
    s.app_limited_until = 0;
    s.write(100);
    assert!(
        !s.is_app_limited(),
        "a lost segment waits for its retransmission"
    );
    s.rtx[1].lost = false;
    s.lost_out -= 1;
    s.tsorted.insert(&s.rtx[1]);
    s.write(100);
    assert!(s.is_app_limited());
}

#[test]
fn first_ten_segments_leave_unpaced() {
    // The clock starts pacing once 10 data segments were counted.
    let (mut s, mut p) = established(CcKind::Cubic);
    send(&mut s, &mut p, 200_000, 10);
    let launches: Vec<u64> = p.posted[2..].iter().map(|r| r.launch_ns).collect();
    assert!(launches.iter().all(|&l| l == 200_000), "{launches:?}");
}

/// Launch times of six 20-segment writes at one instant with cwnd 100.
fn launches_of_a_burst(cc: CcKind, fq: bool, max_rate: u64) -> Vec<u64> {
    let (mut s, mut p) = established(cc);
    s.cfg.fq = fq;
    s.cfg.max_pacing_rate = max_rate;
    s.cc_state.cwnd = 100;
    // an RTT of 1 ms (the handshake's was ~0): a pacing rate whose gaps are visible
    for _ in 0..8 {
        s.rtt.sample(1000, 0, 0);
    }
    s.update_pacing_rate();
    // writes at one instant: later bursts' stamps show whether earlier ones advanced the
    // clock (a burst shares one launch time; TSQ lets a few bursts out per call)
    for _ in 0..6 {
        send(&mut s, &mut p, 200_000, 20);
    }
    p.posted[2..].iter().map(|r| r.launch_ns).collect()
}

#[test]
fn without_fq_only_bbr_and_max_rate_flows_are_paced() {
    // sk_pacing_status: SK_PACING_FQ paces every flow; without fq only SK_PACING_NEEDED ones
    // (bbr_init, SO_MAX_PACING_RATE); an unpaced flow's tcp_wstamp_ns stays at now.
    let later = |l: &[u64]| l.iter().filter(|&&t| t > 200_000).count();
    let unpaced = launches_of_a_burst(CcKind::Cubic, false, u64::MAX);
    assert!(unpaced.len() > 40, "a second burst left: {unpaced:?}");
    assert_eq!(later(&unpaced), 0, "{unpaced:?}");
    let fq = launches_of_a_burst(CcKind::Cubic, true, u64::MAX);
    assert!(later(&fq) > 0, "{fq:?}");
    assert!(later(&launches_of_a_burst(CcKind::Cubic, false, 1_000_000)) > 0);
    assert!(later(&launches_of_a_burst(CcKind::Bbr, false, u64::MAX)) > 0);
}

#[test]
fn close_in_syn_sent_is_silent_and_a_late_syn_ack_gets_a_reset() {
    // Linux tcp_close in SYN_SENT: TCP_CLOSE, nothing sent, no SYN retransmission; the
    // SYN-ACK that arrives later meets no socket: <SEQ=SEG.ACK><CTL=RST> (RFC 9293 3.10.7.1).
    let mut cfg = SenderConfig::new(ends(), ISS, CcKind::Cubic);
    cfg.tick_ns = 1_000;
    let mut s = TcpSender::new(cfg, 1 << 48);
    let mut p = Port::default();
    s.connect(0, &mut p);
    p.depart(&mut s, 0);
    s.close();
    assert_eq!(p.posted.len(), 1, "close() sent nothing");
    s.on_timers(5_000_000_000, &mut p);
    assert_eq!(p.posted.len(), 1, "no SYN retransmission after close()");
    let synack = peer_frame(tcp_flags::SYN | tcp_flags::ACK, 0, SegOptions::default());
    s.on_frame(100_000, &synack, &mut p);
    assert_eq!(p.posted.len(), 2);
    let r = frame::parse(&p.posted[1].frame).unwrap();
    assert_eq!(
        (r.flags, r.seq, r.payload_len),
        (tcp_flags::RST, ISS + 1, 0)
    );
    // a reset is never answered
    let rst = peer_frame(tcp_flags::RST, 0, SegOptions::default());
    s.on_frame(200_000, &rst, &mut p);
    assert_eq!(p.posted.len(), 2);
}

#[test]
fn syn_and_pure_ack_share_one_control_path() {
    let (s, p) = established(CcKind::Cubic);
    // SYN, then the handshake's ACK: both control frames, counted by the card port.
    assert_eq!(p.posted.len(), 2);
    let syn = frame::parse(&p.posted[0].frame).unwrap();
    assert_eq!(syn.flags, tcp_flags::SYN);
    assert_eq!(syn.options.mss, Some(1460));
    let a = frame::parse(&p.posted[1].frame).unwrap();
    assert_eq!(a.flags, tcp_flags::ACK);
    assert_eq!(a.ack, PEER_ISS + 1);
    assert_eq!(a.seq, ISS + 1);
    assert!(s.posted.is_empty(), "both completions consumed");
}

#[test]
fn an_rto_leaves_segments_sent_within_rack_rtt_unmarked() {
    // Linux tcp_timeout_mark_lost: the head and every segment sent at least rack.rtt ago are
    // lost; one sent more recently is not (tcp_rack_skb_timeout(tp, skb, 0) > 0).
    let (mut s, mut p) = established(CcKind::Cubic);
    send(&mut s, &mut p, 200_000, 4);
    let mss = s.mss;
    ack(&mut s, &mut p, 300_000, mss, &[]); // rack.rtt = 100 us
                                            // the loss probe (no new data: the last segment again); the RTO is re-armed from it
    let d = s.next_timer_ns().unwrap();
    s.on_timers(d, &mut p);
    p.depart(&mut s, d);
    assert_eq!(s.stats.tlp_probes, 1);
    assert_eq!(s.retrans_pending, RetransPending::Rto);
    let rto_at = s.next_timer_ns().unwrap();
    // one new segment 50 us before the RTO (the pending RTO and the probe out keep the timer)
    send(&mut s, &mut p, rto_at - 50_000, 1);
    assert_eq!(s.next_timer_ns(), Some(rto_at));
    s.on_timers(rto_at, &mut p);
    assert_eq!(s.stats.rto_fires, 1);
    let lost: Vec<bool> = s.rtx.iter().map(|x| x.lost).collect();
    // segment 1 (the head) was lost and is retransmitted at once; 2 and 3 are lost; 4 was
    // sent 50 us ago, less than rack.rtt: still in flight
    assert_eq!(lost, [false, true, true, false]);
    assert_eq!(p.data_offsets().last(), Some(&mss));
    assert_eq!(s.in_flight(), 2);
    assert_eq!(s.cc_state.cwnd, 2, "cwnd = in flight (segment 4) + 1");
}

#[test]
fn retransmitting_the_head_rearms_the_rto() {
    // Linux tcp_xmit_retransmit_queue: when the head is retransmitted the RTO is re-armed
    // from now (unless the RACK reordering timer is pending).
    let (mut s, mut p) = established(CcKind::Cubic);
    send(&mut s, &mut p, 200_000, 10);
    let mss = s.mss;
    // the loss probe goes (segment 9 again) and arms the RTO from its time
    let d = s.next_timer_ns().unwrap();
    s.on_timers(d, &mut p);
    p.depart(&mut s, d);
    assert_eq!(s.stats.tlp_probes, 1);
    assert_eq!(s.retrans_pending, RetransPending::Rto);
    // 10 ms later a SACK of 3..9 without a cumulative ACK (tcp_ack re-arms nothing): 0..2
    // lost, Recovery, the head retransmitted
    let now = 10_000_000;
    ack(&mut s, &mut p, now, 0, &[(3 * mss, 10 * mss)]);
    assert_eq!(s.ca_state(), CaState::Recovery);
    assert_eq!(p.data_offsets()[11], 0, "the head is retransmitted");
    assert_eq!(s.retrans_pending, RetransPending::Rto);
    let d = s.next_timer_ns().unwrap();
    let rto = s.rto_ns();
    // from now, pushed back by the pacing delay of what was just sent (tcp_reset_xmit_timer)
    assert!(d >= now + rto && d <= now + rto + 1_000_000, "{d}");
}

#[test]
fn an_ack_of_retransmitted_data_samples_rtt_from_its_timestamp_echo() {
    // tcp_ack_update_rtt: Karn forbids a sample from the ACK's timing when retransmitted data
    // is acknowledged, but a cumulative ACK's TSecr gives one (tcp_rtt_tsopt_us(tp, 1): whole
    // ms of the 1 ms TS clock, at least 1), and with it the RTO backoff is reset (RFC 6298).
    let mut cfg = SenderConfig::new(ends(), ISS, CcKind::Cubic);
    cfg.tick_ns = 1_000;
    let mut s = TcpSender::new(cfg, 1 << 48);
    let mut p = Port::default();
    s.connect(0, &mut p);
    p.depart(&mut s, 0);
    let ts = |val: u32, ecr: u32| SegOptions {
        mss: Some(1460),
        wscale: Some(7),
        sack_permitted: true,
        timestamps: Some((val, ecr)),
        sack: vec![],
    };
    let synack = peer_frame(tcp_flags::SYN | tcp_flags::ACK, 0, ts(7, 1));
    s.on_frame(100_000, &synack, &mut p);
    p.depart(&mut s, 100_000);
    send(&mut s, &mut p, 200_000, 2);
    while s.stats.rto_fires < 1 {
        let d = s.next_timer_ns().unwrap();
        s.on_timers(d, &mut p);
        p.depart(&mut s, d);
    }
    assert_eq!(s.rto_backoff, 1);
    let rto_at = s.stats.rtt_ns.len();
    // the retransmitted head left at the RTO; its TSval is what the ACK echoes
    let head = frame::parse(&p.posted.last().unwrap().frame).unwrap();
    assert_eq!(head.seq, seq_of(ISS, 0));
    let (tsval, _) = head.options.timestamps.unwrap();
    let now = u64::from(tsval) * 1_000_000 + 2_500_000; // 2.5 ms after that TS tick
    let mut opts = ts(8, tsval);
    opts.mss = None;
    opts.wscale = None;
    opts.sack_permitted = false;
    s.on_frame(now, &peer_frame(tcp_flags::ACK, 2 * s.mss, opts), &mut p);
    assert_eq!(s.snd_una, 2 * s.mss);
    assert_eq!(
        s.stats.rtt_ns.len(),
        rto_at + 1,
        "one sample, from the echo"
    );
    assert_eq!(s.stats.rtt_ns.last(), Some(&2_000_000), "2 whole ms");
    assert_eq!(s.rto_backoff, 0);
}

#[test]
fn a_loss_probe_that_repaired_a_loss_reduces_cwnd_once() {
    // Linux tcp_process_tlp_ack: after a retransmitted probe, an ACK beyond tlp_high_seq
    // means the probe repaired a loss: tcp_init_cwnd_reduction (ssthresh from the module),
    // CWR, tcp_end_cwnd_reduction (cwnd = ssthresh), then Open. A D-SACK of the probe (the
    // original arrived too: FLAG_DSACK_TLP) ends the episode without a reduction.
    for dsack in [false, true] {
        let (mut s, mut p) = established(CcKind::Cubic);
        let mss = s.mss;
        send(&mut s, &mut p, 200_000, 4);
        let d = s.next_timer_ns().unwrap();
        s.on_timers(d, &mut p); // no new data: the probe retransmits segment 3
        p.depart(&mut s, d);
        assert_eq!((s.stats.tlp_probes, s.tlp_high_seq), (1, Some(4 * mss)));
        send(&mut s, &mut p, d + 100_000, 2); // new data after the probe
        let sacks: &[(u64, u64)] = if dsack { &[(3 * mss, 4 * mss)] } else { &[] };
        ack(&mut s, &mut p, d + 200_000, 4 * mss, sacks); // at tlp_high_seq
        assert_eq!(s.tlp_high_seq.is_none(), dsack);
        let cwnd = s.cc_state.cwnd;
        ack(&mut s, &mut p, d + 300_000, 6 * mss, &[]); // beyond it
        assert_eq!(s.tlp_high_seq, None);
        assert_eq!(s.ca_state(), CaState::Open);
        if dsack {
            assert_eq!(s.stats.tlp_recoveries, 0);
            assert!(s.cc_state.in_slow_start() && s.cc_state.cwnd >= cwnd);
        } else {
            assert_eq!(s.stats.tlp_recoveries, 1);
            assert_eq!(s.cc_state.ssthresh, cubic_ss(cwnd));
            assert_eq!(s.cc_state.cwnd, cubic_ss(cwnd));
        }
    }
}

/// Drive the timers until the first RTO has fired (the loss probe goes first); its time.
fn until_rto(s: &mut TcpSender, p: &mut Port) -> u64 {
    loop {
        let d = s.next_timer_ns().unwrap();
        s.on_timers(d, p);
        p.depart(s, d);
        if s.stats.rto_fires == 1 {
            return d;
        }
    }
}

#[test]
fn frto_undoes_an_rto_when_original_data_is_acknowledged() {
    // Linux tcp_process_loss with tcp_frto = 2 (RFC 5682 3.1 step 3b): after an RTO, an ACK
    // that acknowledges never-retransmitted data sent before it (FLAG_ORIG_SACK_ACKED) proves
    // the RTO spurious: tcp_try_undo_loss(sk, true) restores cwnd and ssthresh
    // (tcp_undo_cwnd_reduction), unmarks the lost segments and goes back to Open.
    let (mut s, mut p) = established(CcKind::Cubic);
    send(&mut s, &mut p, 200_000, 10);
    let mss = s.mss;
    let rto_at = until_rto(&mut s, &mut p);
    assert_eq!(s.ca_state(), CaState::Loss);
    assert_eq!(s.cc_state.ssthresh, 7);
    let posted = p.data_offsets().len();
    // the late ACK of the originals 0..4 (0 was retransmitted at the RTO, 1..4 never)
    ack(&mut s, &mut p, rto_at + 100_000, 5 * mss, &[]);
    assert_eq!(s.stats.loss_undos, 1);
    assert_eq!(s.ca_state(), CaState::Open);
    assert!(s.cc_state.ssthresh > 1000, "ssthresh back to infinite");
    assert!(s.cc_state.cwnd >= 10, "cwnd back to prior_cwnd");
    assert_eq!(s.tcp_info().lost, 0);
    assert!(
        p.data_offsets()[posted..].iter().all(|&o| o >= 10 * mss),
        "no retransmission of 5..9 after the undo"
    );
}

#[test]
fn frto_sends_new_data_on_the_first_ack_after_an_rto() {
    // RFC 5682 3.1 step 2b (tcp_process_loss -> REXMIT_NEW): the first ACK that advances
    // without proving the RTO spurious sends new data, not the next lost segment; a SACK
    // after that (step 3a) calls the loss real and retransmissions follow.
    let (mut s, mut p) = established(CcKind::Cubic);
    let mss = s.mss;
    s.write(40 * mss);
    s.xmit(200_000, &mut p); // cwnd 10: 0..9 (+ the probe sends 10)
    p.depart(&mut s, 200_000);
    let rto_at = until_rto(&mut s, &mut p);
    let snd_nxt = s.snd_nxt;
    let posted = p.data_offsets().len();
    // the ACK of the retransmitted head only
    ack(&mut s, &mut p, rto_at + 100_000, mss, &[]);
    assert_eq!(s.ca_state(), CaState::Loss);
    assert_eq!(s.stats.loss_undos, 0);
    let sent: Vec<u64> = p.data_offsets()[posted..].to_vec();
    assert!(
        !sent.is_empty() && sent.iter().all(|&o| o >= snd_nxt),
        "{sent:?}"
    );
    // a SACK of new data: the loss was real, the lost segments go again
    let posted = p.data_offsets().len();
    let top = s.snd_nxt;
    ack(&mut s, &mut p, rto_at + 200_000, mss, &[(top - mss, top)]);
    assert_eq!(s.stats.loss_undos, 0);
    assert_eq!(p.data_offsets()[posted..].first(), Some(&mss));
}
