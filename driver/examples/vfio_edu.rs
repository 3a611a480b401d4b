//! The generic VFIO layer against a real kernel: QEMU's `edu` PCI device behind vfio-pci.
//!
//! Run inside the VM of `make test-vm` (tests/vm/run.sh), as root, with the device bound to vfio-pci:
//!
//! ```text
//! vfio_edu 0000:00:03.0 [--bench] [--reset yes|no]
//! ```
//!
//! Every check prints `ok <name>` or `FAIL <name>: <why>`; the last line is `vfio-edu: N passed, M
//! failed` and the exit status is non-zero if any failed. With `--bench` it also prints figures: the
//! interrupt-to-wakeup latency (write edu's interrupt-raise register, block in `wait_irq` until the
//! eventfd fires) and the cost of a BAR0 read and write through the mmap. `--reset yes|no` says whether
//! the kernel lists a reset method for the device (sysfs `reset_method`); the reset check then insists
//! that `VFIO_DEVICE_RESET` agrees.
//!
//! The edu device (QEMU docs/specs/edu.rst): BAR0 is 1 MiB; 0x00 identity (0x010000ed for edu 1.0),
//! 0x04 liveness (reads back the complement of what was written), 0x24 interrupt status, 0x60 raise,
//! 0x64 acknowledge, 0x80/0x88/0x90/0x98 DMA source/destination/count/command; the DMA engine's buffer
//! is device addresses 0x40000..0x41000 (a transfer must end before 0x41000), and it decodes 28 address bits by default, so the IOVAs used
//! here are below 2^28. Its interrupt is MSI when the driver enables MSI, else INTx.

use std::process::ExitCode;
use std::time::{Duration, Instant};

use tsnic::device::vfio::{IrqMode, VfioBackend};
use tsnic::device::vfio_pci::{IrqKind, VfioPci, PCI_COMMAND, PCI_COMMAND_MASTER};
use tsnic::device::{DeviceError, PciAddress};

const EDU_VENDOR: u16 = 0x1234;
const EDU_DEVICE: u16 = 0x11e8;
const EDU_IDENT: usize = 0x00;
const EDU_LIVENESS: usize = 0x04;
const EDU_IRQ_STATUS: usize = 0x24;
const EDU_IRQ_RAISE: usize = 0x60;
const EDU_IRQ_ACK: usize = 0x64;
const EDU_DMA_SRC: usize = 0x80;
const EDU_DMA_DST: usize = 0x88;
const EDU_DMA_CNT: usize = 0x90;
const EDU_DMA_CMD: usize = 0x98;
const DMA_CMD_START: u32 = 1;
const DMA_CMD_TO_RAM: u32 = 2;
const DMA_CMD_IRQ: u32 = 4;
/// The interrupt-status bit edu sets when a DMA transfer that asked for one completes.
const DMA_IRQ_BIT: u32 = 0x100;
/// edu's DMA buffer in its own address space.
const EDU_BUF: u64 = 0x40000;
const EDU_BUF_LEN: usize = 4096;
/// Bytes per transfer: edu (QEMU 7.2) rejects a range that ends exactly at its buffer's end, and such a
/// rejection aborts QEMU, so the largest transfer it takes is one byte short of the buffer.
const XFER: usize = EDU_BUF_LEN - 1;
/// IOVA window inside edu's 28-bit DMA mask.
const IOVA_BASE: u64 = 0x0100_0000;
const IOVA_END: u64 = 1 << 28;
/// edu's DMA timer fires 100 ms of virtual time after the command: allow for a slow TCG guest.
const IRQ_TIMEOUT: Duration = Duration::from_secs(10);

struct Checks {
    passed: u32,
    failed: u32,
}

impl Checks {
    fn check(&mut self, name: &str, r: Result<String, String>) -> bool {
        match r {
            Ok(detail) if detail.is_empty() => {
                println!("ok   {name}");
                self.passed += 1;
                true
            }
            Ok(detail) => {
                println!("ok   {name}: {detail}");
                self.passed += 1;
                true
            }
            Err(why) => {
                println!("FAIL {name}: {why}");
                self.failed += 1;
                false
            }
        }
    }
}

fn e2s(e: DeviceError) -> String {
    e.to_string()
}

/// Wait for edu's interrupt, check the status bit, acknowledge it. Returns the wait time.
fn take_irq(
    pci: &VfioPci,
    bar: &tsnic::device::vfio_pci::Bar,
    bit: u32,
) -> Result<Duration, String> {
    let t0 = Instant::now();
    let fired = pci.wait_irq(0, IRQ_TIMEOUT).map_err(e2s)?;
    let waited = t0.elapsed();
    if !fired {
        return Err(format!("no interrupt within {IRQ_TIMEOUT:?}"));
    }
    let st = bar.read32(EDU_IRQ_STATUS);
    bar.write32(EDU_IRQ_ACK, st);
    pci.unmask_irq().map_err(e2s)?;
    if st & bit == 0 {
        return Err(format!(
            "interrupt fired but status reads {st:#x}, wanted bit {bit:#x}"
        ));
    }
    Ok(waited)
}

/// One DMA transfer of `len` bytes, waiting for its completion interrupt.
fn dma(
    pci: &VfioPci,
    bar: &tsnic::device::vfio_pci::Bar,
    src: u64,
    dst: u64,
    len: usize,
    to_ram: bool,
) -> Result<Duration, String> {
    bar.write64(EDU_DMA_SRC, src);
    bar.write64(EDU_DMA_DST, dst);
    bar.write64(EDU_DMA_CNT, len as u64);
    let dir = if to_ram { DMA_CMD_TO_RAM } else { 0 };
    bar.write32(EDU_DMA_CMD, DMA_CMD_START | dir | DMA_CMD_IRQ);
    let waited = take_irq(pci, bar, DMA_IRQ_BIT)?;
    if bar.read32(EDU_DMA_CMD) & DMA_CMD_START != 0 {
        return Err("interrupt came but the DMA command still reads running".into());
    }
    Ok(waited)
}

/// Route edu's INTx to the eventfd and check the masking cycle: an interrupt arrives; after the device
/// is acknowledged a second one stays masked until `unmask_irq`, then arrives.
fn intx(pci: &mut VfioPci, bar: &tsnic::device::vfio_pci::Bar) -> Result<String, String> {
    if pci.irq_count(IrqKind::Intx) == 0 {
        return Err("edu offers no INTx through VFIO".into());
    }
    pci.enable_irqs_as(IrqKind::Intx, 1).map_err(e2s)?;
    bar.write32(EDU_IRQ_RAISE, 0x4);
    if !pci.wait_irq(0, IRQ_TIMEOUT).map_err(e2s)? {
        return Err("first INTx did not arrive".into());
    }
    bar.write32(EDU_IRQ_ACK, bar.read32(EDU_IRQ_STATUS));
    bar.write32(EDU_IRQ_RAISE, 0x4);
    if pci.wait_irq(0, Duration::from_millis(50)).map_err(e2s)? {
        return Err("second INTx arrived while VFIO had the line masked".into());
    }
    pci.unmask_irq().map_err(e2s)?;
    if !pci.wait_irq(0, IRQ_TIMEOUT).map_err(e2s)? {
        return Err("the INTx pending while masked did not arrive after unmask_irq".into());
    }
    bar.write32(EDU_IRQ_ACK, bar.read32(EDU_IRQ_STATUS));
    pci.unmask_irq().map_err(e2s)?;
    Ok("arrives, stays masked until unmask_irq, then arrives".into())
}

/// Interrupt-to-wakeup latency, two ways:
/// - blocked: this thread sleeps in `wait_irq`; a second thread waits 300 us (so the first is asleep in
///   ppoll), takes a timestamp and writes edu's raise register; the figure is from that timestamp to
///   the waiter running again (MSI through the IOMMU's interrupt remapping, the kernel's VFIO handler,
///   the eventfd, the scheduler);
/// - same thread: write the raise register, then `wait_irq` (on one vCPU the interrupt is taken right
///   after the write, so this is the kernel's handling plus the eventfd read, with no sleep).
fn bench_irq(pci: &VfioPci, bar: &tsnic::device::vfio_pci::Bar) {
    use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
    const N: usize = 200;
    let base = Instant::now();
    let raised_at = AtomicU64::new(0);
    let go = AtomicBool::new(false);
    let stop = AtomicBool::new(false);
    let mut blocked = Vec::with_capacity(N);
    std::thread::scope(|s| {
        s.spawn(|| {
            while !stop.load(Ordering::Acquire) {
                if !go.swap(false, Ordering::AcqRel) {
                    std::hint::spin_loop();
                    std::thread::yield_now();
                    continue;
                }
                std::thread::sleep(Duration::from_micros(300));
                raised_at.store(base.elapsed().as_nanos() as u64, Ordering::Release);
                bar.write32(EDU_IRQ_RAISE, 0x2);
            }
        });
        for _ in 0..N {
            go.store(true, Ordering::Release);
            match pci.wait_irq(0, IRQ_TIMEOUT) {
                Ok(true) => {
                    let woke = base.elapsed().as_nanos() as u64;
                    let t0 = raised_at.load(Ordering::Acquire);
                    blocked.push(woke.saturating_sub(t0) as f64 / 1e3);
                }
                _ => break,
            }
            let st = bar.read32(EDU_IRQ_STATUS);
            bar.write32(EDU_IRQ_ACK, st);
        }
        stop.store(true, Ordering::Release);
    });
    let mut direct = Vec::with_capacity(N);
    for _ in 0..N {
        let t0 = Instant::now();
        bar.write32(EDU_IRQ_RAISE, 0x2);
        match pci.wait_irq(0, IRQ_TIMEOUT) {
            Ok(true) => direct.push(t0.elapsed().as_secs_f64() * 1e6),
            _ => break,
        }
        let st = bar.read32(EDU_IRQ_STATUS);
        bar.write32(EDU_IRQ_ACK, st);
    }
    for (name, mut v) in [("blocked waiter", blocked), ("same thread", direct)] {
        if v.len() < N {
            println!(
                "bench irq-to-wakeup ({name}): lost an interrupt after {} samples",
                v.len()
            );
            continue;
        }
        v.sort_by(|a, b| a.total_cmp(b));
        println!(
            "bench irq-to-wakeup ({name}): n={N} median {:.1} us p90 {:.1} us p99 {:.1} us max {:.1} us",
            percentile(&v, 0.5),
            percentile(&v, 0.9),
            percentile(&v, 0.99),
            v[v.len() - 1]
        );
    }
}

fn percentile(sorted: &[f64], p: f64) -> f64 {
    let i = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[i.min(sorted.len() - 1)]
}

fn run(addr: PciAddress, bench: bool, expect_reset: Option<bool>, c: &mut Checks) {
    // 1. Container, group, device.
    let mut pci = match VfioPci::open(addr) {
        Ok(p) => p,
        Err(e) => {
            c.check("open container, group and device", Err(e2s(e)));
            return;
        }
    };
    c.check(
        "open container, group and device",
        Ok(format!("IOMMU group {}", pci.group())),
    );
    let (v, d) = pci.ids();
    c.check(
        "config space reads edu's PCI IDs",
        if (v, d) == (EDU_VENDOR, EDU_DEVICE) {
            Ok(format!("{v:04x}:{d:04x}"))
        } else {
            Err(format!("{v:04x}:{d:04x}"))
        },
    );

    // 2. Reset (when the kernel offers one for the device; `--reset yes|no` is what sysfs says).
    let reset = pci.reset();
    c.check(
        "VFIO device reset",
        match (&reset, expect_reset) {
            (Err(e), _) => Err(e.to_string()),
            (Ok(true), Some(false)) => Err("reset done, but sysfs lists no reset method".into()),
            (Ok(false), Some(true)) => {
                Err("sysfs lists a reset method, but VFIO_DEVICE_RESET says none".into())
            }
            (Ok(true), _) => Ok("done".into()),
            (Ok(false), _) => Ok(
                "the kernel offers no reset method for this device (no FLR/PM/bus reset): skipped"
                    .into(),
            ),
        },
    );

    // 3. BAR0 mmap: identity and liveness.
    let size = pci.bar_size(0);
    let bar = match pci.map_bar(0, size as usize) {
        Ok(b) => b,
        Err(e) => {
            c.check("mmap BAR0", Err(e2s(e)));
            return;
        }
    };
    c.check("mmap BAR0", Ok(format!("{size:#x} bytes")));
    let id = bar.read32(EDU_IDENT);
    c.check(
        "BAR0 identity register reads 0x010000ed",
        if id == 0x0100_00ed {
            Ok(String::new())
        } else {
            Err(format!("reads {id:#010x}"))
        },
    );
    bar.write32(EDU_LIVENESS, 0x1234_5678);
    let live = bar.read32(EDU_LIVENESS);
    c.check(
        "BAR0 write then read (liveness register complements)",
        if live == !0x1234_5678u32 {
            Ok(String::new())
        } else {
            Err(format!("reads {live:#010x}"))
        },
    );

    // 4. Bus mastering through the config region.
    let bm = pci.enable_bus_master().map_err(e2s).and_then(|_| {
        let cmd = pci.config_read16(PCI_COMMAND);
        if cmd & PCI_COMMAND_MASTER != 0 {
            Ok(format!("command register {cmd:#06x}"))
        } else {
            Err(format!("command register {cmd:#06x}"))
        }
    });
    c.check("enable bus mastering", bm);

    // 5. Interrupts routed to an eventfd.
    let kind = pci.enable_irqs(1);
    let kind_ok = c.check(
        "route the interrupt to an eventfd (VFIO_DEVICE_SET_IRQS)",
        kind.as_ref()
            .map(|k| format!("{k}"))
            .map_err(|e| e.to_string()),
    );
    if kind_ok {
        let k = pci.irq_kind();
        c.check(
            "MSI chosen (edu has MSI, no MSI-X)",
            if k == Some(IrqKind::Msi) {
                Ok(String::new())
            } else {
                Err(format!("{k:?}"))
            },
        );
        c.check(
            "wait_irq times out when nothing fires",
            match pci.wait_irq(0, Duration::from_millis(20)) {
                Ok(false) => Ok(String::new()),
                Ok(true) => Err("woke without an interrupt".into()),
                Err(e) => Err(e2s(e)),
            },
        );
        bar.write32(EDU_IRQ_RAISE, 0x1);
        c.check(
            "interrupt raised by the device arrives through the eventfd",
            take_irq(&pci, &bar, 0x1).map(|w| format!("woke after {w:?}")),
        );
    }

    // 6. DMA host -> device -> host through the IOMMU.
    pci.set_iova_window(IOVA_BASE, IOVA_END);
    let bufs = pci
        .dma_alloc(EDU_BUF_LEN)
        .and_then(|a| pci.dma_alloc(EDU_BUF_LEN).map(|b| (a, b)));
    match bufs {
        Err(e) => {
            c.check("map two DMA buffers", Err(e2s(e)));
        }
        Ok((src, dst)) => {
            c.check(
                "map two DMA buffers",
                Ok(format!("IOVAs {:#x}, {:#x}", src.iova(), dst.iova())),
            );
            let pattern: Vec<u8> = (0..EDU_BUF_LEN)
                .map(|i| (i as u32).wrapping_mul(2_654_435_761).to_le_bytes()[3] ^ i as u8)
                .collect();
            pci.dma_write(&src, 0, &pattern);
            pci.dma_write(&dst, 0, &[0xa5; EDU_BUF_LEN]);
            if kind_ok {
                let t = dma(&pci, &bar, src.iova(), EDU_BUF, XFER, false);
                c.check(
                    "edu DMA host memory -> device (completion interrupt)",
                    t.map(|w| format!("{w:?}")),
                );
                let t = dma(&pci, &bar, EDU_BUF, dst.iova(), XFER, true);
                c.check(
                    "edu DMA device -> host memory (completion interrupt)",
                    t.map(|w| format!("{w:?}")),
                );
                let mut back = vec![0u8; EDU_BUF_LEN];
                pci.dma_read(&dst, 0, &mut back);
                // The first XFER bytes came back; the last byte of dst was never written by the device.
                let diff = back[..XFER].iter().zip(&pattern).position(|(a, b)| a != b);
                c.check(
                    "DMA round trip is byte-exact (4095 bytes; the byte after them untouched)",
                    match diff {
                        None if back[XFER] == 0xa5 => Ok(String::new()),
                        None => Err(format!(
                            "byte {XFER} after the transfer changed to {:#04x}",
                            back[XFER]
                        )),
                        Some(i) => Err(format!(
                            "first difference at byte {i}: {:#04x} != {:#04x}",
                            back[i], pattern[i]
                        )),
                    },
                );
                // Completion records as the card writes them (8 of 32 bytes, the first 5 with the
                // phase bit in their last dword), carried by the device's DMA into `dst`, read as
                // the completion ring reads them: the 5 written ones, byte for byte, none after.
                let phase = tsnic::contract::CPL_FLAG_PHASE;
                let mut recs = vec![0u8; 8 * 32];
                for (k, r) in recs.chunks_exact_mut(32).enumerate() {
                    for (j, b) in r[..28].iter_mut().enumerate() {
                        *b = (k * 31 + j * 7) as u8;
                    }
                    let w: u32 = if k < 5 { phase | k as u32 } else { k as u32 };
                    r[28..].copy_from_slice(&w.to_le_bytes());
                }
                pci.dma_write(&src, 0, &recs);
                let moved = dma(&pci, &bar, src.iova(), EDU_BUF, recs.len(), false)
                    .and_then(|_| dma(&pci, &bar, EDU_BUF, dst.iova(), recs.len(), true));
                let mut out = vec![0u8; recs.len()];
                c.check(
                    "completion records the device wrote: read up to the first without its phase bit",
                    moved.and_then(|_| {
                        match pci.dma_read_valid(&dst, 0, 32, phase, true, &mut out) {
                            5 if out[..160] == recs[..160] => Ok(String::new()),
                            5 => Err("5 records, but not the bytes written".into()),
                            n => Err(format!("{n} records where 5 carry the phase bit")),
                        }
                    }),
                );
            }
            let freed = pci
                .dma_free(src)
                .and_then(|_| pci.dma_free(dst))
                .map_err(e2s);
            c.check(
                "unmap the DMA buffers",
                freed.and_then(|_| {
                    if pci.dma_mapped() == 0 {
                        Ok(String::new())
                    } else {
                        Err(format!("{} still mapped", pci.dma_mapped()))
                    }
                }),
            );
        }
    }

    // 6b. INTx, edu's other interrupt: VFIO masks the line on each delivery; unmask_irq re-arms it.
    if kind_ok {
        c.check(
            "INTx routed to the eventfd, masked per delivery, re-armed by unmask_irq",
            intx(&mut pci, &bar),
        );
        // Back to MSI for the figures.
        c.check(
            "back to MSI",
            pci.enable_irqs_as(IrqKind::Msi, 1)
                .map(|_| String::new())
                .map_err(e2s),
        );
    }

    // 7. Figures (emulated: QEMU TCG, not hardware).
    if bench && kind_ok {
        bench_irq(&pci, &bar);
        // 51 batches of 1000 accesses; the median batch (the host is shared: single batches get preempted).
        const BATCHES: usize = 51;
        const N: u32 = 1000;
        let (mut rd, mut wr) = (Vec::new(), Vec::new());
        let mut all_ident = true;
        for _ in 0..BATCHES {
            let t0 = Instant::now();
            let mut acc = 0u32;
            for _ in 0..N {
                acc = acc.wrapping_add(bar.read32(EDU_IDENT));
            }
            rd.push(t0.elapsed().as_secs_f64() * 1e9 / N as f64);
            // The sum proves every read reached the device (N times the identity, mod 2^32).
            all_ident &= acc == 0x0100_00edu32.wrapping_mul(N);
            let t0 = Instant::now();
            for i in 0..N {
                bar.write32(EDU_LIVENESS, i);
            }
            wr.push(t0.elapsed().as_secs_f64() * 1e9 / N as f64);
        }
        rd.sort_by(|a, b| a.total_cmp(b));
        wr.sort_by(|a, b| a.total_cmp(b));
        println!(
            "bench bar0: {BATCHES} batches of {N}: read median {:.0} ns/op (min {:.0}), write median {:.0} ns/op (min {:.0}); every read returned the identity: {all_ident}",
            percentile(&rd, 0.5), rd[0], percentile(&wr, 0.5), wr[0]
        );
    }

    // 8. Release on drop, then the device opens again.
    drop(bar);
    drop(pci);
    c.check(
        "reopen after drop (group released)",
        VfioPci::open(addr).map(|_| String::new()).map_err(e2s),
    );

    // 9. The tsnic backend refuses edu with its identity, and releases the device after that error.
    let e = VfioBackend::open_with(addr, IrqMode::Interrupt).err();
    c.check(
        "tsnic backend: not a tsnic card (identity ...)",
        match e {
            Some(e @ DeviceError::NotTsnic { .. }) => Ok(e.to_string()),
            Some(e) => Err(format!("wrong error: {e}")),
            None => Err("opened edu as a tsnic card".into()),
        },
    );
    c.check(
        "reopen after the backend's error (released)",
        VfioPci::open(addr).map(|_| String::new()).map_err(e2s),
    );
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let bench = args.iter().any(|a| a == "--bench");
    let expect_reset = match args.iter().position(|a| a == "--reset") {
        None => None,
        Some(i) => match args.get(i + 1).map(String::as_str) {
            Some("yes") => Some(true),
            Some("no") => Some(false),
            _ => {
                eprintln!("vfio_edu: --reset takes yes or no (whether sysfs lists a reset method)");
                return ExitCode::from(2);
            }
        },
    };
    let Some(addr) = args
        .iter()
        .enumerate()
        .find(|(i, a)| !a.starts_with("--") && (*i == 0 || args[i - 1] != "--reset"))
        .map(|(_, a)| a)
    else {
        eprintln!("usage: vfio_edu DDDD:BB:DD.F [--bench] [--reset yes|no]   (QEMU's edu device bound to vfio-pci)");
        return ExitCode::from(2);
    };
    let addr: PciAddress = match addr.parse() {
        Ok(a) => a,
        Err(e) => {
            eprintln!("vfio_edu: {e}");
            return ExitCode::from(2);
        }
    };
    let mut c = Checks {
        passed: 0,
        failed: 0,
    };
    run(addr, bench, expect_reset, &mut c);
    println!("vfio-edu: {} passed, {} failed", c.passed, c.failed);
    if c.failed == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}
