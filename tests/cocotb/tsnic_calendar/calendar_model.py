"""Reference model and scoreboard for tsnic_calendar.

The model states what the calendar must do, independent of how it is built:

* classify(entry, phc, horizon, phc_prev) - what the insert-time policies decide: late against the
  PHC of the handshake cycle, beyond the horizon against the PHC of the cycle before (the calendar
  registers phc_ns + HORIZON_NS), late first;
* release_status(entry, phc) - the status of an entry released at PHC time phc;
* Scoreboard - every accepted entry must come out exactly once, never early
  (launch <= phc + lookahead at the release decision, and <= the previous cycle's phc + lookahead:
  the calendar compares with a registered copy), with the status its policies give, and in
  launch_ns order against every entry that was already inside the calendar when the release was
  decided (ties of one queue in posting order), with no exception;
* optionally (delay_bound set) within the documented delay after the entry became due: due_k is the
  bench cycle at which its PHC model first has phc + lookahead >= launch (the accept cycle if that
  is already so), and the release must come within delay_bound(k - due_k, releases in between).
Round-robin order of ties between queues is checked by the tests that know the whole set of
entries (expected_tie_order, tie_groups_in_order).
"""

from __future__ import annotations

import heapq
from collections import deque
from dataclasses import dataclass, field

import tsnic_contract as C

SENT = C.STATUS_SENT
SENT_LATE = C.STATUS_SENT_LATE
DROPPED_LATE = C.STATUS_DROPPED_LATE
DROPPED_HORIZON = C.STATUS_DROPPED_HORIZON
FLUSHED = C.STATUS_FLUSHED
LATE_SEND = C.LATE_POLICY_SEND
LATE_DROP = C.LATE_POLICY_DROP
HOR_DROP = C.HORIZON_POLICY_DROP
HOR_CAP = C.HORIZON_POLICY_CAP

MASK64 = (1 << 64) - 1


@dataclass
class Entry:
    seq: int
    queue: int
    handle: int
    launch: int
    late_policy: int = LATE_SEND
    horizon_policy: int = HOR_DROP
    # filled in when accepted
    phc_class: int = 0          # PHC value the insert was classified against (late)
    phc_hclass: int = 0         # ... and the one its horizon was checked against (the cycle before)
    accept_k: int = 0           # bench cycle of the handshake
    eff: int = 0                # effective launch (capped or not)
    capped: bool = False
    urgent: int = 0             # insert-time verdict: 0, DROPPED_LATE or DROPPED_HORIZON
    rel_idx: int = -1           # position in the scoreboard's release log


def classify(e: Entry, phc: int, horizon: int, phc_prev: int | None = None) -> None:
    """Insert-time policy decision (the design's, stated independently): late against phc (the PHC
    of the handshake cycle), beyond the horizon against phc_prev (the PHC of the cycle before)."""
    if phc_prev is None:
        phc_prev = phc
    e.phc_class = phc
    e.phc_hclass = phc_prev
    e.eff, e.capped, e.urgent = e.launch, False, 0
    if e.launch < phc:
        if e.late_policy == LATE_DROP:
            e.urgent = DROPPED_LATE
    elif e.launch > phc_prev + horizon:
        if e.horizon_policy == HOR_DROP:
            e.urgent = DROPPED_HORIZON
        else:
            e.eff, e.capped = (phc_prev + horizon) & MASK64, True


def release_status(e: Entry, phc: int) -> int:
    if e.eff < phc:
        return SENT_LATE if e.late_policy == LATE_SEND else DROPPED_LATE
    return SENT


class ScoreboardError(AssertionError):
    pass


@dataclass
class Scoreboard:
    horizon: int
    lookahead: int
    outstanding: dict = field(default_factory=dict)     # handle -> Entry
    heap: list = field(default_factory=list)            # (eff, seq, handle) of eligible entries
    pending: deque = field(default_factory=deque)       # (k, handle) not yet eligible for order
    ties: dict = field(default_factory=dict)            # (queue, eff) -> deque of seq (posting order)
    flushing: dict = field(default_factory=dict)        # queue -> flush start cycle
    released: list = field(default_factory=list)        # (handle, status, launch, capped, k)
    counts: dict = field(default_factory=dict)
    accepted: int = 0
    # release delay check: phc_inc (ns per cycle, constant) and slack (cycles); None = off
    delay_inc: int | None = None
    delay_slack: int = 0
    rel_k: list = field(default_factory=list)           # cycle of every release, in order
    max_delay: int = 0          # worst k - due_k seen (cycles)
    max_excess: int = -(1 << 62)   # worst (k - due_k) - 2 * releases in between

    def accept(self, e: Entry, phc: int, k: int, phc_prev: int | None = None) -> None:
        if e.handle in self.outstanding:
            raise ScoreboardError(f"bench reused handle {e.handle} while outstanding")
        classify(e, phc, self.horizon, phc_prev)
        e.accept_k = k
        self.outstanding[e.handle] = e
        self.accepted += 1
        if not e.urgent:
            self.pending.append((k, e.handle))
            self.ties.setdefault((e.queue, e.eff), deque()).append(e.seq)

    def _promote(self, k: int) -> None:
        # entries accepted at least one edge before the release decision are "inside"
        while self.pending and self.pending[0][0] <= k - 2:
            _, h = self.pending.popleft()
            e = self.outstanding.get(h)
            if e is not None:
                heapq.heappush(self.heap, (e.eff, e.seq, h))

    def _min_eligible(self):
        skipped = []
        found = None
        while self.heap:
            eff, seq, h = self.heap[0]
            e = self.outstanding.get(h)
            if e is None or e.seq != seq:
                heapq.heappop(self.heap)
                continue
            if e.queue in self.flushing:
                skipped.append(heapq.heappop(self.heap))
                continue
            found = e
            break
        for item in skipped:
            heapq.heappush(self.heap, item)
        return found

    def flush_start(self, queue: int, k: int) -> None:
        self.flushing[queue] = k

    def flush_done(self, k: int) -> int:
        """Flush finished: every entry of the queue accepted before its start must have left."""
        assert len(self.flushing) == 1, f"flush_done with flushes {self.flushing}"
        queue, start = next(iter(self.flushing.items()))
        left = [e for e in self.outstanding.values() if e.queue == queue and e.accept_k <= start]
        if left:
            raise ScoreboardError(f"flush of queue {queue} done at cycle {k} but {len(left)} entries "
                                  f"remain, e.g. handle {left[0].handle}")
        del self.flushing[queue]
        return queue

    def release(self, handle: int, queue: int, status: int, launch: int, capped: bool,
                phc_dec: int, k: int, phc_dec_prev: int | None = None) -> None:
        """One entry on the release port; its release was decided against phc_dec (phc_dec_prev: the
        PHC of the cycle before the decision). Order is checked against this model alone: the DUT
        has no forced (out-of-order) release to report since issue 16."""
        self._promote(k)
        e = self.outstanding.get(handle)
        if e is None:
            raise ScoreboardError(f"cycle {k}: released handle {handle} (queue {queue}, status {status}) "
                                  "is not outstanding (duplicate or never inserted)")
        if e.queue != queue:
            raise ScoreboardError(f"cycle {k}: handle {handle} queue {queue} != inserted {e.queue}")
        self.counts[status] = self.counts.get(status, 0) + 1
        if status == FLUSHED:
            if e.queue not in self.flushing:
                raise ScoreboardError(f"cycle {k}: handle {handle} FLUSHED but queue {queue} not flushing")
        elif e.urgent:
            if status != e.urgent:
                raise ScoreboardError(f"cycle {k}: handle {handle} launch {e.launch} phc {e.phc_class} "
                                      f"expected insert-time status {e.urgent}, got {status}")
        else:
            if launch != e.eff or bool(capped) != e.capped:
                raise ScoreboardError(f"cycle {k}: handle {handle} launch/capped {launch}/{capped}, "
                                      f"expected {e.eff}/{e.capped}")
            exp = release_status(e, phc_dec)
            if status != exp:
                raise ScoreboardError(f"cycle {k}: handle {handle} launch {e.eff} released at phc {phc_dec} "
                                      f"status {status}, expected {exp}")
            if e.eff > phc_dec + self.lookahead:
                raise ScoreboardError(f"cycle {k}: EARLY: handle {handle} launch {e.eff} released at "
                                      f"phc {phc_dec} + lookahead {self.lookahead}")
            # the calendar decides with the previous cycle's phc + lookahead (registered): a release
            # is never earlier than that either (no release at all in a PHC step's cycle)
            if phc_dec_prev is not None and e.eff > phc_dec_prev + self.lookahead:
                raise ScoreboardError(f"cycle {k}: EARLY (registered time): handle {handle} launch {e.eff} "
                                      f"released with the previous cycle's phc {phc_dec_prev} + lookahead "
                                      f"{self.lookahead}")
            # Order (guarantees 3/4), with no exception: no entry inside with a smaller launch_ns,
            # posting order within a queue.
            m = self._min_eligible()
            if m is not None and m.eff < e.eff:
                raise ScoreboardError(f"cycle {k}: ORDER: handle {handle} launch {e.eff} released while "
                                      f"handle {m.handle} (queue {m.queue}) launch {m.eff} is inside")
            tq = self.ties.get((e.queue, e.eff))
            if tq is None or tq[0] != e.seq:
                raise ScoreboardError(f"cycle {k}: POSTING ORDER: handle {handle} queue {e.queue} "
                                      f"launch {e.eff} overtook an earlier entry of its queue")
        if self.delay_inc is not None:
            if status != FLUSHED:
                self._check_delay(e, k)
            self.rel_k.append(k)
        e.rel_idx = len(self.released)
        self._forget(e)
        self.released.append((handle, status, launch, capped, k))

    def due_k(self, e: Entry) -> int:
        """Bench cycle at which e became due (PHC model: phc_class at accept_k, +delay_inc per cycle)."""
        t = e.eff if not e.urgent else 0
        gap = t - self.lookahead - e.phc_class
        if gap <= 0:
            return e.accept_k
        return e.accept_k + -(-gap // self.delay_inc)

    def _check_delay(self, e: Entry, k: int) -> None:
        """Documented bound (docs/CALENDAR.md, Release delay): with the PHC running at a constant rate,
        no flush and the release port always ready, an entry leaves at most 2 * R + slack cycles after
        it became due, R = releases in between (the output is busy at least every other cycle while
        something is due: a split slot costs one cycle per entry before its walk)."""
        dk = self.due_k(e)
        d = k - dk
        # releases strictly after dk and before k (self.rel_k is sorted)
        lo, hi = 0, len(self.rel_k)
        while lo < hi:
            mid = (lo + hi) // 2
            if self.rel_k[mid] <= dk:
                lo = mid + 1
            else:
                hi = mid
        r = len(self.rel_k) - lo
        self.max_delay = max(self.max_delay, d)
        self.max_excess = max(self.max_excess, d - 2 * r)
        if d > 2 * r + self.delay_slack:
            raise ScoreboardError(f"cycle {k}: DELAY: handle {e.handle} queue {e.queue} launch {e.eff} due at "
                                  f"cycle {dk}, released {d} cycles later with {r} releases in between "
                                  f"(bound 2 * {r} + {self.delay_slack})")

    def _forget(self, e: Entry) -> None:
        del self.outstanding[e.handle]
        tq = self.ties.get((e.queue, e.eff))
        if tq is not None:
            try:
                tq.remove(e.seq)
            except ValueError:
                pass
            if not tq:
                del self.ties[(e.queue, e.eff)]


def tie_groups_in_order(groups: dict) -> int:
    """groups: launch -> entries of that launch_ns in posting order (all in the calendar together when
    their slot is loaded), released. Every group must leave in
    expected_tie_order. Returns the number of groups checked."""
    for launch, es in groups.items():
        got = [e.handle for e in sorted(es, key=lambda e: e.rel_idx)]
        if any(e.rel_idx < 0 for e in es):
            raise ScoreboardError(f"TIE ORDER at launch {launch}: not every entry released")
        exp = expected_tie_order(es)
        if got != exp:
            raise ScoreboardError(f"TIE ORDER at launch {launch}: released {got}, round robin {exp}")
    return len(groups)


def expected_tie_order(entries: list[Entry]) -> list[int]:
    """Handles of entries with one launch time, in the calendar's tie order: round r holds each
    queue's r-th entry (posting order within the queue), queues in the order they posted (arrival
    order of their entries); all entries present together."""
    rank = {}
    keyed = []
    for pos, e in enumerate(entries):
        r = rank.get((e.queue, e.launch), 0)
        rank[(e.queue, e.launch)] = r + 1
        keyed.append((e.launch, r, pos, e.handle))
    keyed.sort()
    return [h for _, _, _, h in keyed]
