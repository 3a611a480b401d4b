//! `vfio`: a tsnic card behind vfio-pci, on top of the generic VFIO layer ([`super::vfio_pci`]).
//!
//! Opening goes: [`VfioPci::open`] (checks `/dev/vfio/vfio`, the sysfs entry, the binding and the IOMMU
//! group, each with its own error and fix; opens container, group and device), then the card's identity:
//! BAR0 is mapped and its first word must read the contract's magic ("TSNC"), otherwise the error says
//! this is not a tsnic card and what it is (PCI IDs and the word read). Then Memory Space and Bus Master
//! are set (read back), and, unless polling was asked for (`vfio:ADDR,poll`), the card's interrupt is
//! routed to an eventfd (MSI-X vector 0, else MSI, else INTx) so [`Backend::wait_irq`] blocks on it.
//!
//! DMA memory: see [`VfioPci::dma_alloc`]; once mapped, the card may read and write it at any time, so it
//! is touched only through raw pointers with volatile accesses, never through a Rust reference.

use std::io;
use std::path::Path;
use std::time::Duration;

use super::vfio_pci::{Bar, IrqKind, VfioPci};
use super::{Backend, DeviceError, DmaRegion, PciAddress};
use crate::contract;
use crate::regs::Bar0;

pub use super::vfio_pci::{check_sysfs, VFIO_CONTAINER_PATH};

/// How completion waits learn that the card raised its interrupt.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum IrqMode {
    /// Block on the interrupt's eventfd (MSI-X, MSI or INTx through VFIO).
    #[default]
    Interrupt,
    /// No interrupt routing: `wait_irq` sleeps for its timeout and callers poll the card's registers.
    Poll,
}

/// A card opened through VFIO.
pub struct VfioBackend {
    // Field order is drop order: the BAR mapping goes before the device.
    bar0: Bar,
    irq: Option<IrqKind>,
    pci: VfioPci,
}

impl VfioBackend {
    /// Open the card at `addr` with its interrupt routed. See the module docs for the steps and errors.
    pub fn open(addr: PciAddress) -> Result<Self, DeviceError> {
        Self::open_with(addr, IrqMode::Interrupt)
    }

    /// Open the card at `addr` with the given interrupt mode.
    pub fn open_with(addr: PciAddress, mode: IrqMode) -> Result<Self, DeviceError> {
        Self::open_at(
            addr,
            mode,
            Path::new("/sys"),
            Path::new(VFIO_CONTAINER_PATH),
        )
    }

    /// [`VfioBackend::open_with`] with the sysfs root and container path given (tests).
    ///
    /// On any error after the device was opened, the [`VfioPci`] is dropped, which releases it again.
    pub fn open_at(
        addr: PciAddress,
        mode: IrqMode,
        sysfs: &Path,
        container_path: &Path,
    ) -> Result<Self, DeviceError> {
        let mut pci = VfioPci::open_at(addr, sysfs, container_path)?;
        let bar0 = map_and_identify(&pci)?;
        pci.enable_bus_master()?;
        let irq = match mode {
            IrqMode::Poll => None,
            IrqMode::Interrupt => Some(pci.enable_irqs(1).map_err(|e| DeviceError::Io {
                context: format!("{e}; to run without interrupts open `vfio:{addr},poll`"),
                source: io::Error::other("interrupt routing failed"),
            })?),
        };
        Ok(Self { bar0, irq, pci })
    }

    /// The typed register block over the mapped BAR0 (volatile cells).
    pub fn regs(&self) -> &Bar0 {
        // SAFETY: the mapping is BAR0_SIZE bytes (== size_of::<Bar0>(), checked at compile time in regs.rs;
        // map_and_identify maps exactly that), page-aligned, and lives as long as `self`. Bar0 is made only
        // of volatile cells (UnsafeCell inside), so a shared reference to device memory is sound: every
        // access is a volatile load/store.
        unsafe { &*(self.bar0.as_ptr() as *const Bar0) }
    }

    /// The generic VFIO device under this card.
    pub fn pci(&mut self) -> &mut VfioPci {
        &mut self.pci
    }

    /// The interrupt mechanism in use (`None`: polling mode).
    pub fn irq_kind(&self) -> Option<IrqKind> {
        self.irq
    }
}

/// What a tsnic card reads in BAR0 word 0, for the error of a device that is something else.
fn identity(pci: &VfioPci, word0: Option<u32>) -> DeviceError {
    let (vendor, device) = pci.ids();
    DeviceError::NotTsnic {
        addr: pci.addr().to_string(),
        vendor,
        device,
        word0: match word0 {
            Some(w) => format!("{w:#010x}"),
            None => "unreadable".into(),
        },
    }
}

/// Map BAR0 and check the card's identity (the magic in word 0), then its size.
fn map_and_identify(pci: &VfioPci) -> Result<Bar, DeviceError> {
    let size = pci.bar_size(0);
    let want = contract::BAR0_SIZE as u64;
    let probe_len = size.min(want) as usize;
    let bar = if probe_len >= 4 {
        pci.map_bar(0, probe_len).ok()
    } else {
        None
    };
    let Some(bar) = bar else {
        return Err(identity(pci, None));
    };
    let magic = bar.read32(contract::reg::CAP_MAGIC);
    // All ones: the read was not claimed (link down, card in reset, bitstream not loaded).
    if magic == u32::MAX {
        return Err(DeviceError::Io {
            context: format!("BAR0 of {} reads all ones: the card does not answer (link down or bitstream not loaded); reload the bitstream and rescan the bus", pci.addr()),
            source: io::Error::from(io::ErrorKind::NotConnected),
        });
    }
    if magic != contract::MAGIC {
        return Err(identity(pci, Some(magic)));
    }
    if size < want {
        return Err(DeviceError::BarTooSmall { size, need: want });
    }
    Ok(bar)
}

impl Backend for VfioBackend {
    fn describe(&self) -> String {
        match self.irq {
            Some(k) => format!("vfio {} ({k} interrupt)", self.pci.addr()),
            None => format!("vfio {} (polling)", self.pci.addr()),
        }
    }

    #[inline]
    fn read32(&mut self, offset: usize) -> u32 {
        self.bar0.read32(offset)
    }

    #[inline]
    fn write32(&mut self, offset: usize, value: u32) {
        // A release point (fence inside): every earlier DMA store is visible before this doorbell.
        self.bar0.write32(offset, value)
    }

    fn dma_alloc(&mut self, len: usize) -> Result<DmaRegion, DeviceError> {
        self.pci.dma_alloc(len)
    }

    fn dma_free(&mut self, region: DmaRegion) -> Result<(), DeviceError> {
        self.pci.dma_free(region)
    }

    #[inline]
    fn dma_write(&mut self, region: &DmaRegion, offset: usize, data: &[u8]) {
        self.pci.dma_write(region, offset, data)
    }

    #[inline]
    fn dma_read(&mut self, region: &DmaRegion, offset: usize, buf: &mut [u8]) {
        self.pci.dma_read(region, offset, buf)
    }

    #[inline]
    fn dma_read_u32(&mut self, region: &DmaRegion, offset: usize) -> u32 {
        self.pci.dma_read_u32(region, offset)
    }

    #[inline]
    fn dma_read_valid(
        &mut self,
        region: &DmaRegion,
        offset: usize,
        rec: usize,
        phase_bit: u32,
        phase: bool,
        out: &mut [u8],
    ) -> usize {
        self.pci
            .dma_read_valid(region, offset, rec, phase_bit, phase, out)
    }

    fn now_ns(&mut self) -> u64 {
        clock_tai_ns()
    }

    fn wait_ns(&mut self, ns: u64) -> Result<(), DeviceError> {
        if ns >= 100_000 {
            std::thread::sleep(Duration::from_nanos(ns));
        } else {
            let end = clock_tai_ns().saturating_add(ns);
            while clock_tai_ns() < end {
                std::hint::spin_loop();
            }
        }
        Ok(())
    }

    /// Blocks on the interrupt's eventfd; in polling mode sleeps for the timeout and returns false.
    /// The card's moderation (IRQ_MOD_COUNT / IRQ_MOD_TIME_NS) decides how often it fires; the caller
    /// clears IRQ_STATUS after each wakeup (for INTx the line is re-armed at the next wait).
    fn has_irq(&self) -> bool {
        self.irq.is_some()
    }

    fn wait_irq(&mut self, timeout_ns: u64) -> Result<bool, DeviceError> {
        if self.irq.is_none() {
            self.wait_ns(timeout_ns)?;
            return Ok(false);
        }
        self.pci.unmask_irq()?;
        self.pci.wait_irq(0, Duration::from_nanos(timeout_ns))
    }
}

/// The host's `CLOCK_TAI` in ns.
pub fn clock_tai_ns() -> u64 {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `ts` is a valid, writable timespec; CLOCK_TAI exists on every Linux since 3.10.
    let rc = unsafe { libc::clock_gettime(libc::CLOCK_TAI, &mut ts) };
    if rc != 0 {
        return 0;
    }
    ts.tv_sec as u64 * 1_000_000_000 + ts.tv_nsec as u64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn no_dev_vfio_is_reported_with_the_fix() {
        let dir = std::env::temp_dir().join(format!("tsnic-vfio-none-{}", std::process::id()));
        let e = VfioBackend::open_at(
            "0000:01:00.0".parse().unwrap(),
            IrqMode::Poll,
            &dir,
            &dir.join("no/vfio"),
        )
        .err()
        .unwrap();
        assert!(matches!(e, DeviceError::NoVfio { .. }), "{e}");
        assert!(e.to_string().contains("modprobe vfio-pci"), "{e}");
    }

    #[test]
    fn this_machine_without_vfio_gives_a_clear_error() {
        if Path::new(VFIO_CONTAINER_PATH).exists() {
            return; // a machine with VFIO: the VM test (`make test-vm`) covers it
        }
        let e = VfioBackend::open("0000:01:00.0".parse().unwrap())
            .err()
            .unwrap();
        assert!(matches!(e, DeviceError::NoVfio { .. }), "{e}");
    }

    #[test]
    fn not_a_tsnic_card_names_what_it_is() {
        let e = DeviceError::NotTsnic {
            addr: "0000:00:03.0".into(),
            vendor: 0x1234,
            device: 0x11e8,
            word0: "0x010000ed".into(),
        };
        let m = e.to_string();
        assert!(
            m.contains("not a tsnic card (identity: PCI 1234:11e8"),
            "{m}"
        );
        assert!(
            m.contains("0x010000ed") && m.contains("lspci -D -nn"),
            "{m}"
        );
    }

    #[test]
    fn clock_tai_is_sane() {
        let a = clock_tai_ns();
        let b = clock_tai_ns();
        assert!(a > 1_500_000_000 * 1_000_000_000 && b >= a);
    }
}
