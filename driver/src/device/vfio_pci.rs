//! The generic VFIO layer: one PCI device behind vfio-pci, with nothing tsnic-specific in it.
//!
//! [`VfioPci::open`] checks `/dev/vfio/vfio` and the device's sysfs entry (bound to vfio-pci, an IOMMU
//! group, the group viable: each failure is its own [`DeviceError`] whose message names the fix), then
//! opens container, group and device with vfio-ioctls (no KVM). On the open device it offers:
//!
//! - **config space** through the VFIO config region ([`VfioPci::config_read`], [`VfioPci::config_write`]),
//!   with [`VfioPci::enable_bus_master`] setting Memory Space + Bus Master and reading them back;
//! - **BARs** mapped from the device fd ([`VfioPci::map_bar`] gives a [`Bar`] with volatile 32-bit reads
//!   and writes, bounds-checked);
//! - **DMA memory**: anonymous mappings entered into the IOMMU at IOVAs from a bump allocator whose base the
//!   caller may set ([`VfioPci::set_iova_window`]; a device with a narrow DMA mask needs low IOVAs);
//! - **interrupts**: MSI-X vectors (or MSI, or INTx when that is all the device has) routed through
//!   `VFIO_DEVICE_SET_IRQS` to eventfds, and [`VfioPci::wait_irq`] blocking on one with a timeout;
//! - **reset**: `VFIO_DEVICE_RESET` when the kernel offers one for the device.
//!
//! Dropping a `VfioPci` (also one left half set up by an error) turns off Bus Master, disables the
//! interrupts (closing the eventfds), unmaps every DMA region from the IOMMU before its memory goes back to
//! the OS, then closes device, group and container in that order.

use std::fs;
use std::io;
use std::os::unix::io::AsRawFd;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use memmap2::{MmapOptions, MmapRaw};
use vfio_bindings::bindings::vfio as vb;
use vfio_ioctls::{VfioContainer, VfioDevice, VfioError};
use vmm_sys_util::eventfd::{EventFd, EFD_NONBLOCK};

use super::{DeviceError, DmaRegion, PciAddress, DMA_ALIGN};

/// VFIO region index of the config space.
const CONFIG_INDEX: u32 = vb::VFIO_PCI_CONFIG_REGION_INDEX;
/// Region flag: may be mmap'ed.
const REGION_FLAG_MMAP: u32 = vb::VFIO_REGION_INFO_FLAG_MMAP;
/// PCI command register offset in config space and its bits.
pub const PCI_COMMAND: u64 = 0x04;
/// Command register: Memory Space enable.
pub const PCI_COMMAND_MEMORY: u16 = 1 << 1;
/// Command register: Bus Master enable.
pub const PCI_COMMAND_MASTER: u16 = 1 << 2;
/// `VFIO_DEVICE_RESET` = `_IO(VFIO_TYPE, VFIO_BASE + 11)`.
const VFIO_DEVICE_RESET: libc::c_ulong =
    ((vb::VFIO_TYPE as libc::c_ulong) << 8) | (vb::VFIO_BASE as libc::c_ulong + 11);

/// Where the VFIO container device lives.
pub const VFIO_CONTAINER_PATH: &str = "/dev/vfio/vfio";

/// Drivers a device of the IOMMU group may be bound to and still leave the group viable.
const VIABLE_DRIVERS: &[&str] = &["vfio-pci", "pci-stub", "pcieport"];

/// Default first IOVA handed out (above the 32-bit MMIO/MSI holes).
pub const DEFAULT_IOVA_BASE: u64 = 1 << 32;

/// Which interrupt mechanism the device's vectors go through.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum IrqKind {
    /// Legacy level interrupt (one vector; VFIO masks it on delivery, [`VfioPci::unmask_irq`] re-arms it).
    Intx,
    /// MSI.
    Msi,
    /// MSI-X.
    Msix,
}

impl IrqKind {
    fn index(self) -> u32 {
        match self {
            IrqKind::Intx => vb::VFIO_PCI_INTX_IRQ_INDEX,
            IrqKind::Msi => vb::VFIO_PCI_MSI_IRQ_INDEX,
            IrqKind::Msix => vb::VFIO_PCI_MSIX_IRQ_INDEX,
        }
    }
}

impl std::fmt::Display for IrqKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            IrqKind::Intx => "INTx",
            IrqKind::Msi => "MSI",
            IrqKind::Msix => "MSI-X",
        })
    }
}

/// Interrupt vectors routed to eventfds.
struct Irqs {
    kind: IrqKind,
    fds: Vec<EventFd>,
}

/// One DMA region: the mapping (kept alive while the IOMMU maps it) and its IOVA.
struct VfioDma {
    map: MmapRaw,
    iova: u64,
}

/// A memory BAR mapped into this process. Accesses are volatile and bounds-checked.
pub struct Bar {
    map: MmapRaw,
}

impl Bar {
    /// Length of the mapping in bytes.
    pub fn len(&self) -> usize {
        self.map.len()
    }
    /// True for an empty mapping (never made by [`VfioPci::map_bar`]).
    pub fn is_empty(&self) -> bool {
        self.map.len() == 0
    }
    /// Base address of the mapping (for typed register views over it).
    pub fn as_ptr(&self) -> *mut u8 {
        self.map.as_mut_ptr()
    }

    #[inline]
    fn ptr32(&self, offset: usize) -> *mut u32 {
        assert!(
            offset & 3 == 0 && offset.checked_add(4).is_some_and(|e| e <= self.map.len()),
            "BAR offset {offset:#x} out of range or unaligned"
        );
        // Pointer arithmetic only; the access happens in read32/write32.
        self.map.as_mut_ptr().wrapping_add(offset) as *mut u32
    }

    /// Read the 32-bit register at byte `offset` (4-byte aligned; panics outside the BAR: a driver bug).
    #[inline]
    pub fn read32(&self, offset: usize) -> u32 {
        let p = self.ptr32(offset);
        // SAFETY: aligned and inside the live mapping (checked in ptr32); device memory is only ever
        // accessed with volatile loads and stores, never through a reference.
        unsafe { p.read_volatile() }
    }

    /// Write the 32-bit register at byte `offset`. A release point: earlier memory writes (DMA buffers)
    /// are visible to the device before this write reaches it.
    #[inline]
    pub fn write32(&self, offset: usize, value: u32) {
        let p = self.ptr32(offset);
        std::sync::atomic::fence(std::sync::atomic::Ordering::Release);
        // SAFETY: as in read32.
        unsafe { p.write_volatile(value) }
    }

    /// Read the 64-bit register at byte `offset` as two 32-bit reads (low word first).
    pub fn read64(&self, offset: usize) -> u64 {
        self.read32(offset) as u64 | ((self.read32(offset + 4) as u64) << 32)
    }

    /// Write the 64-bit register at byte `offset` as two 32-bit writes (low word first).
    pub fn write64(&self, offset: usize, value: u64) {
        self.write32(offset, value as u32);
        self.write32(offset + 4, (value >> 32) as u32);
    }
}

/// A PCI device opened through VFIO. See the module docs.
pub struct VfioPci {
    addr: PciAddress,
    group: u32,
    irqs: Option<Irqs>,
    dma: Vec<Option<VfioDma>>,
    next_iova: u64,
    iova_end: u64,
    bus_master: bool,
    // Field order is drop order: the device (and with it the group) goes before the container.
    device: VfioDevice,
    container: Arc<VfioContainer>,
}

/// Checks done from sysfs before any VFIO call: returns the IOMMU group number.
///
/// `sysfs` is `/sys` on a real machine; tests point it at a fake tree.
pub fn check_sysfs(sysfs: &Path, addr: &PciAddress) -> Result<u32, DeviceError> {
    let dev = sysfs.join("bus/pci/devices").join(addr.to_string());
    if !dev.exists() {
        return Err(DeviceError::NoSuchDevice {
            addr: addr.to_string(),
        });
    }
    // No group first: without an IOMMU vfio-pci cannot even bind, so this is the root cause to report.
    let group: u32 = match link_name(&dev.join("iommu_group")) {
        None => {
            return Err(DeviceError::NoIommuGroup {
                addr: addr.to_string(),
            })
        }
        Some(g) => g.parse().map_err(|_| DeviceError::NoIommuGroup {
            addr: addr.to_string(),
        })?,
    };
    let driver = link_name(&dev.join("driver")).unwrap_or_else(|| "none".to_string());
    if driver != "vfio-pci" {
        return Err(DeviceError::NotBoundToVfio {
            addr: addr.to_string(),
            driver,
        });
    }
    let members = sysfs
        .join("kernel/iommu_groups")
        .join(group.to_string())
        .join("devices");
    let entries = fs::read_dir(&members).map_err(|e| DeviceError::Io {
        context: format!("cannot list IOMMU group {group} ({})", members.display()),
        source: e,
    })?;
    for entry in entries.flatten() {
        let member: PathBuf = entry.path();
        match link_name(&member.join("driver")) {
            None => {}
            Some(d) if VIABLE_DRIVERS.contains(&d.as_str()) => {}
            Some(_) => return Err(DeviceError::GroupNotViable { group }),
        }
    }
    Ok(group)
}

/// The last path component a symlink points to (`.../drivers/vfio-pci` -> `vfio-pci`).
fn link_name(link: &Path) -> Option<String> {
    let target = fs::read_link(link).ok()?;
    Some(target.file_name()?.to_string_lossy().into_owned())
}

/// Map vfio-ioctls errors onto ours, with the fix.
pub(crate) fn map_vfio_err(e: VfioError, group: u32) -> DeviceError {
    match e {
        VfioError::OpenContainer(io) => open_err(VFIO_CONTAINER_PATH, io),
        VfioError::OpenGroup(io, g) => open_err(&format!("/dev/vfio/{g}"), io),
        VfioError::GroupViable => DeviceError::GroupNotViable { group },
        other => DeviceError::Io {
            context: format!("VFIO setup of IOMMU group {group} failed ({other}): check `dmesg` for the kernel's reason"),
            source: io::Error::other(other.to_string()),
        },
    }
}

pub(crate) fn open_err(path: &str, e: io::Error) -> DeviceError {
    match e.kind() {
        io::ErrorKind::PermissionDenied => DeviceError::PermissionDenied {
            path: path.to_string(),
        },
        io::ErrorKind::NotFound => DeviceError::NoVfio {
            path: path.to_string(),
        },
        _ if e.raw_os_error() == Some(libc::EBUSY) => DeviceError::Io {
            context: format!("{path} is busy: another process has the device open (find it with `fuser {path}`) and must close it first"),
            source: e,
        },
        _ => DeviceError::Io {
            context: format!("cannot open {path}"),
            source: e,
        },
    }
}

impl VfioPci {
    /// Open the PCI device at `addr` through VFIO.
    pub fn open(addr: PciAddress) -> Result<Self, DeviceError> {
        Self::open_at(addr, Path::new("/sys"), Path::new(VFIO_CONTAINER_PATH))
    }

    /// [`VfioPci::open`] with the sysfs root and container path given (tests).
    pub fn open_at(
        addr: PciAddress,
        sysfs: &Path,
        container_path: &Path,
    ) -> Result<Self, DeviceError> {
        match fs::metadata(container_path) {
            Ok(_) => {}
            Err(e) if e.kind() == io::ErrorKind::PermissionDenied => {
                return Err(DeviceError::PermissionDenied {
                    path: container_path.display().to_string(),
                })
            }
            Err(_) => {
                return Err(DeviceError::NoVfio {
                    path: container_path.display().to_string(),
                })
            }
        }
        let group = check_sysfs(sysfs, &addr)?;
        let group_path = format!("/dev/vfio/{group}");
        if let Err(e) = fs::OpenOptions::new()
            .read(true)
            .write(true)
            .open(&group_path)
        {
            return Err(open_err(&group_path, e));
        }

        let container = Arc::new(VfioContainer::new(None).map_err(|e| map_vfio_err(e, group))?);
        let dev_path = sysfs.join("bus/pci/devices").join(addr.to_string());
        let device = VfioDevice::new(&dev_path, container.clone(), false)
            .map_err(|e| map_vfio_err(e, group))?;
        Ok(Self {
            addr,
            group,
            irqs: None,
            dma: Vec::new(),
            next_iova: DEFAULT_IOVA_BASE,
            iova_end: u64::MAX,
            bus_master: false,
            device,
            container,
        })
    }

    /// The device's PCI address.
    pub fn addr(&self) -> PciAddress {
        self.addr
    }

    /// The device's IOMMU group.
    pub fn group(&self) -> u32 {
        self.group
    }

    /// Read `buf.len()` bytes of config space at `offset`.
    pub fn config_read(&self, offset: u64, buf: &mut [u8]) {
        self.device.region_read(CONFIG_INDEX, buf, offset);
    }

    /// Write config space at `offset`.
    pub fn config_write(&self, offset: u64, data: &[u8]) {
        self.device.region_write(CONFIG_INDEX, data, offset);
    }

    /// Read a 16-bit config register.
    pub fn config_read16(&self, offset: u64) -> u16 {
        let mut b = [0u8; 2];
        self.config_read(offset, &mut b);
        u16::from_le_bytes(b)
    }

    /// Write a 16-bit config register.
    pub fn config_write16(&self, offset: u64, v: u16) {
        self.config_write(offset, &v.to_le_bytes());
    }

    /// PCI vendor and device ID from config space.
    pub fn ids(&self) -> (u16, u16) {
        (self.config_read16(0), self.config_read16(2))
    }

    /// Set Memory Space and Bus Master in the command register and check that both stuck.
    pub fn enable_bus_master(&mut self) -> Result<(), DeviceError> {
        let want = self.config_read16(PCI_COMMAND) | PCI_COMMAND_MEMORY | PCI_COMMAND_MASTER;
        self.config_write16(PCI_COMMAND, want);
        self.bus_master = true;
        let got = self.config_read16(PCI_COMMAND);
        if got & (PCI_COMMAND_MEMORY | PCI_COMMAND_MASTER)
            != PCI_COMMAND_MEMORY | PCI_COMMAND_MASTER
        {
            return Err(DeviceError::Io {
                context: format!(
                    "setting Bus Master on {} did not stick (command register reads {got:#06x} after writing {want:#06x}): check `dmesg` for VFIO errors",
                    self.addr
                ),
                source: io::Error::from(io::ErrorKind::Other),
            });
        }
        Ok(())
    }

    /// Clear Bus Master: the device may no longer read or write host memory.
    pub fn disable_bus_master(&mut self) {
        let off = self.config_read16(PCI_COMMAND) & !PCI_COMMAND_MASTER;
        self.config_write16(PCI_COMMAND, off);
        self.bus_master = false;
    }

    /// Reset the device with `VFIO_DEVICE_RESET`. `Ok(false)`: the kernel offers no reset method for
    /// this device (no FLR, PM or bus reset; `cat /sys/bus/pci/devices/ADDR/reset_method` shows which
    /// it has). The kernel saves the config space around the reset and restores it, so the command
    /// register (Bus Master) reads as before; the device's own state is what the reset clears.
    pub fn reset(&mut self) -> Result<bool, DeviceError> {
        // SAFETY: VFIO_DEVICE_RESET takes no argument; the fd is the open VFIO device.
        let rc = unsafe { libc::ioctl(self.device.as_raw_fd(), VFIO_DEVICE_RESET as _) };
        // Whatever happened, track Bus Master from the register itself (Drop clears it if set).
        self.bus_master = self.config_read16(PCI_COMMAND) & PCI_COMMAND_MASTER != 0;
        if rc == 0 {
            return Ok(true);
        }
        let e = io::Error::last_os_error();
        match e.raw_os_error() {
            // vfio-pci: EINVAL when the device has no reset method, ENOTTY when none applies.
            Some(libc::EINVAL) | Some(libc::ENOTTY) => Ok(false),
            Some(libc::EAGAIN) => Err(DeviceError::Io {
                context: format!(
                    "VFIO reset of {} could not take the device lock (another reset or a sibling device in use): retry",
                    self.addr
                ),
                source: e,
            }),
            _ => Err(DeviceError::Io {
                context: format!("VFIO reset of {} failed: check `dmesg`", self.addr),
                source: e,
            }),
        }
    }

    /// Size of BAR `index` in bytes (0: no such BAR).
    pub fn bar_size(&self, index: u32) -> u64 {
        self.device.get_region_size(index)
    }

    /// Map `len` bytes of memory BAR `index` (0..=5) into this process.
    pub fn map_bar(&self, index: u32, len: usize) -> Result<Bar, DeviceError> {
        let size = self.device.get_region_size(index);
        if len == 0 || (len as u64) > size {
            return Err(DeviceError::BarTooSmall {
                size,
                need: len as u64,
            });
        }
        if self.device.get_region_flags(index) & REGION_FLAG_MMAP == 0 {
            return Err(DeviceError::Io {
                context: format!(
                    "BAR{index} of {} cannot be mmap'ed: is it a memory BAR and is the IOMMU on?",
                    self.addr
                ),
                source: io::Error::from(io::ErrorKind::Unsupported),
            });
        }
        let map = MmapOptions::new()
            .offset(self.device.get_region_offset(index))
            .len(len)
            .map_raw(self.device.as_raw_fd())
            .map_err(|e| DeviceError::Io {
                context: format!("cannot mmap BAR{index} of {}", self.addr),
                source: e,
            })?;
        Ok(Bar { map })
    }

    /// Hand out IOVAs from `[base, end)` from now on (`base` rounded up to [`DMA_ALIGN`]). A device whose
    /// DMA engine decodes fewer than 64 address bits needs a window below its limit.
    pub fn set_iova_window(&mut self, base: u64, end: u64) {
        self.next_iova = base.div_ceil(DMA_ALIGN as u64) * DMA_ALIGN as u64;
        self.iova_end = end;
    }

    /// Allocate `len` bytes of zeroed memory (rounded up to [`DMA_ALIGN`]) and map it into the IOMMU.
    pub fn dma_alloc(&mut self, len: usize) -> Result<DmaRegion, DeviceError> {
        if len == 0 {
            return Err(DeviceError::DmaAlloc {
                len,
                why: "zero length".into(),
            });
        }
        let size = len.div_ceil(DMA_ALIGN) * DMA_ALIGN;
        let iova = self.next_iova;
        if iova
            .checked_add(size as u64)
            .is_none_or(|end| end > self.iova_end)
        {
            return Err(DeviceError::DmaAlloc {
                len,
                why: format!(
                    "the IOVA window ends at {:#x}: free regions or widen the window",
                    self.iova_end
                ),
            });
        }
        let map: MmapRaw = MmapOptions::new()
            .len(size)
            .populate()
            .map_anon()
            .map_err(|e| DeviceError::DmaAlloc {
                len,
                why: format!("mmap failed: {e}"),
            })?
            .into();
        // SAFETY: `map` is a fresh private mapping of `size` bytes that no Rust reference points into;
        // from here on it is touched only through raw pointers with volatile accesses, and it stays
        // mapped (owned by `self.dma`) until `vfio_dma_unmap` succeeds in dma_free or Drop.
        unsafe { self.container.vfio_dma_map(iova, size, map.as_mut_ptr()) }.map_err(|e| {
            DeviceError::DmaAlloc {
                len,
                why: format!(
                    "IOMMU map failed ({e}): raise the locked-memory limit (`ulimit -l unlimited`)"
                ),
            }
        })?;
        self.next_iova += size as u64;
        let id = self.dma.len();
        self.dma.push(Some(VfioDma { map, iova }));
        Ok(DmaRegion::new(id, iova, size))
    }

    /// Unmap a region from the IOMMU, then free its memory.
    pub fn dma_free(&mut self, region: DmaRegion) -> Result<(), DeviceError> {
        let Some(slot) = self.dma.get_mut(region.id()) else {
            return Ok(());
        };
        if let Some(d) = slot.as_ref() {
            self.container
                .vfio_dma_unmap(d.iova, d.map.len())
                .map_err(|e| DeviceError::Io {
                    context: format!("IOMMU unmap of {:#x} failed", d.iova),
                    source: io::Error::other(e.to_string()),
                })?;
        }
        // Only after the unmap succeeded may the memory go back to the OS.
        *slot = None;
        Ok(())
    }

    /// Regions currently mapped into the IOMMU.
    pub fn dma_mapped(&self) -> usize {
        self.dma.iter().flatten().count()
    }

    /// Host pointer to `len` bytes at `offset` of `region` (panics outside it: a driver bug).
    fn region_ptr(&self, region: &DmaRegion, offset: usize, len: usize) -> *mut u8 {
        let d = self
            .dma
            .get(region.id())
            .and_then(|d| d.as_ref())
            .expect("DMA region freed or foreign");
        assert!(
            offset
                .checked_add(len)
                .is_some_and(|end| end <= d.map.len()),
            "DMA access out of region"
        );
        d.map.as_mut_ptr().wrapping_add(offset)
    }

    /// Copy `data` into `region` at `offset` (volatile stores).
    pub fn dma_write(&self, region: &DmaRegion, offset: usize, data: &[u8]) {
        let p = self.region_ptr(region, offset, data.len());
        // SAFETY: region_ptr checked that [offset, offset+len) is inside a live DMA mapping.
        unsafe { volatile_copy_to(p, data) }
    }

    /// Copy from `region` at `offset` into `buf` (volatile loads).
    pub fn dma_read(&self, region: &DmaRegion, offset: usize, buf: &mut [u8]) {
        let p = self.region_ptr(region, offset, buf.len());
        // SAFETY: as in dma_write.
        unsafe { volatile_copy_from(p, buf) }
    }

    /// Read a little-endian u32 from `region` at a 4-byte aligned `offset` with one access.
    pub fn dma_read_u32(&self, region: &DmaRegion, offset: usize) -> u32 {
        assert!(offset & 3 == 0, "unaligned DMA u32 read");
        let p = self.region_ptr(region, offset, 4);
        // SAFETY: inside a live DMA mapping (checked), 4-byte aligned (page-aligned base + offset % 4 == 0).
        u32::from_le(unsafe { (p as *const u32).read_volatile() })
    }

    /// [`crate::device::Backend::dma_read_valid`]: the written records of a ring from `offset`,
    /// each record's last dword (volatile) read before the rest, then the records in one copy.
    pub fn dma_read_valid(
        &self,
        region: &DmaRegion,
        offset: usize,
        rec: usize,
        phase_bit: u32,
        phase: bool,
        out: &mut [u8],
    ) -> usize {
        let max = out.len() / rec.max(4);
        if max == 0 {
            return 0;
        }
        assert!(
            offset & 3 == 0 && rec & 3 == 0,
            "unaligned DMA records ({rec} bytes at {offset})"
        );
        let p = self.region_ptr(region, offset, max * rec);
        let mut n = 0;
        while n < max {
            // SAFETY: inside a live DMA mapping (region_ptr checked `max * rec` bytes), 4-byte
            // aligned (page-aligned base, offset and record size multiples of 4).
            let w = u32::from_le(unsafe {
                (p.wrapping_add(n * rec + rec - 4) as *const u32).read_volatile()
            });
            if (w & phase_bit != 0) != phase {
                break;
            }
            n += 1;
        }
        if n > 0 {
            // The phase dwords were read first; the records must not be read before them.
            std::sync::atomic::fence(std::sync::atomic::Ordering::Acquire);
            // SAFETY: as above, `n * rec <= max * rec` bytes of the mapping, and of `out`.
            unsafe { volatile_copy_from(p, &mut out[..n * rec]) }
        }
        n
    }

    /// Interrupt vectors the device offers for `kind` (0: none).
    pub fn irq_count(&self, kind: IrqKind) -> u32 {
        self.device
            .get_irq_info(kind.index())
            .map_or(0, |i| i.count)
    }

    /// Route `vectors` interrupt vectors to eventfds: MSI-X if the device has enough MSI-X vectors, else
    /// MSI, else INTx (one vector). Returns the mechanism used. Replaces an earlier routing.
    pub fn enable_irqs(&mut self, vectors: u32) -> Result<IrqKind, DeviceError> {
        let kind = [IrqKind::Msix, IrqKind::Msi, IrqKind::Intx]
            .into_iter()
            .find(|k| self.irq_count(*k) >= vectors.max(1))
            .ok_or_else(|| DeviceError::Io {
                context: format!(
                    "{} offers no MSI-X, MSI or INTx with {vectors} vectors: use polling mode",
                    self.addr
                ),
                source: io::Error::from(io::ErrorKind::Unsupported),
            })?;
        self.enable_irqs_as(kind, vectors)?;
        Ok(kind)
    }

    /// Route `vectors` vectors of `kind` to fresh eventfds.
    pub fn enable_irqs_as(&mut self, kind: IrqKind, vectors: u32) -> Result<(), DeviceError> {
        self.disable_irqs();
        let fds = (0..vectors.max(1))
            .map(|_| EventFd::new(EFD_NONBLOCK))
            .collect::<Result<Vec<_>, _>>()
            .map_err(|e| DeviceError::Io {
                context: "cannot create an eventfd for the interrupt".into(),
                source: e,
            })?;
        self.device
            .enable_irq(kind.index(), fds.iter().collect())
            .map_err(|e| DeviceError::Io {
                context: format!(
                    "cannot route {kind} of {} to eventfds ({e}): check `dmesg`, or use polling mode",
                    self.addr
                ),
                source: io::Error::other(e.to_string()),
            })?;
        self.irqs = Some(Irqs { kind, fds });
        Ok(())
    }

    /// The interrupt mechanism in use, if any.
    pub fn irq_kind(&self) -> Option<IrqKind> {
        self.irqs.as_ref().map(|i| i.kind)
    }

    /// Stop interrupt delivery and close the eventfds.
    pub fn disable_irqs(&mut self) {
        if let Some(irqs) = self.irqs.take() {
            let _ = self.device.disable_irq(irqs.kind.index());
            drop(irqs.fds);
        }
    }

    /// INTx only: re-arm the line after the device's interrupt was acknowledged (VFIO masks it on every
    /// delivery). MSI and MSI-X need nothing: this is a no-op for them.
    pub fn unmask_irq(&self) -> Result<(), DeviceError> {
        match &self.irqs {
            Some(i) if i.kind == IrqKind::Intx => self
                .device
                .unmask_irq(vb::VFIO_PCI_INTX_IRQ_INDEX)
                .map_err(|e| DeviceError::Io {
                    context: format!("cannot unmask INTx of {}", self.addr),
                    source: io::Error::other(e.to_string()),
                }),
            _ => Ok(()),
        }
    }

    /// Block until interrupt `vector` fires or `timeout` passes. True if it fired (every interrupt since
    /// the last wait is consumed). Errors if no interrupts are routed.
    pub fn wait_irq(&self, vector: usize, timeout: Duration) -> Result<bool, DeviceError> {
        let fd = self
            .irqs
            .as_ref()
            .and_then(|i| i.fds.get(vector))
            .ok_or_else(|| {
                DeviceError::OutOfRange(format!(
                    "interrupt vector {vector} of {} is not routed: call enable_irqs first",
                    self.addr
                ))
            })?;
        let deadline = Instant::now() + timeout;
        loop {
            match fd.read() {
                Ok(_) => return Ok(true),
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => {}
                Err(e) => {
                    return Err(DeviceError::Io {
                        context: "reading the interrupt eventfd failed".into(),
                        source: e,
                    })
                }
            }
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return Ok(false);
            }
            let mut pfd = libc::pollfd {
                fd: fd.as_raw_fd(),
                events: libc::POLLIN,
                revents: 0,
            };
            let ts = libc::timespec {
                tv_sec: left.as_secs() as libc::time_t,
                tv_nsec: left.subsec_nanos() as libc::c_long,
            };
            // SAFETY: one valid pollfd, a valid timespec, no signal mask.
            let rc = unsafe { libc::ppoll(&mut pfd, 1, &ts, std::ptr::null()) };
            if rc < 0 {
                let e = io::Error::last_os_error();
                if e.kind() != io::ErrorKind::Interrupted {
                    return Err(DeviceError::Io {
                        context: "waiting on the interrupt eventfd failed".into(),
                        source: e,
                    });
                }
            }
        }
    }
}

impl Drop for VfioPci {
    fn drop(&mut self) {
        // Stop the device mastering host memory before the mappings go away.
        if self.bus_master {
            self.disable_bus_master();
        }
        self.disable_irqs();
        // Unmap every DMA region from the IOMMU before its memory is released.
        for d in self.dma.iter().flatten() {
            let _ = self.container.vfio_dma_unmap(d.iova, d.map.len());
        }
        self.dma.clear();
    }
}

/// Copy `src` to device-visible memory at `dst` with volatile stores (8 bytes at a time where aligned).
///
/// # Safety
/// `dst..dst+src.len()` must be inside one live mapping.
pub(crate) unsafe fn volatile_copy_to(dst: *mut u8, src: &[u8]) {
    let mut i = 0;
    while i < src.len() && (dst as usize + i) & 7 != 0 {
        // SAFETY: i < src.len(), inside the mapping by the caller's contract.
        unsafe { dst.add(i).write_volatile(src[i]) };
        i += 1;
    }
    while i + 8 <= src.len() {
        let w = u64::from_ne_bytes(src[i..i + 8].try_into().expect("8 bytes"));
        // SAFETY: 8-byte aligned (loop above) and inside the mapping.
        unsafe { (dst.add(i) as *mut u64).write_volatile(w) };
        i += 8;
    }
    while i < src.len() {
        // SAFETY: inside the mapping.
        unsafe { dst.add(i).write_volatile(src[i]) };
        i += 1;
    }
}

/// Copy from device-visible memory at `src` into `dst` with volatile loads.
///
/// # Safety
/// `src..src+dst.len()` must be inside one live mapping.
pub(crate) unsafe fn volatile_copy_from(src: *const u8, dst: &mut [u8]) {
    let mut i = 0;
    while i < dst.len() && (src as usize + i) & 7 != 0 {
        // SAFETY: inside the mapping by the caller's contract.
        dst[i] = unsafe { src.add(i).read_volatile() };
        i += 1;
    }
    while i + 8 <= dst.len() {
        // SAFETY: 8-byte aligned and inside the mapping.
        let w = unsafe { (src.add(i) as *const u64).read_volatile() };
        dst[i..i + 8].copy_from_slice(&w.to_ne_bytes());
        i += 8;
    }
    while i < dst.len() {
        // SAFETY: inside the mapping.
        dst[i] = unsafe { src.add(i).read_volatile() };
        i += 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::contract;
    use std::os::unix::fs::symlink;

    fn addr() -> PciAddress {
        "0000:01:00.0".parse().unwrap()
    }

    /// A fake sysfs with the device bound to `driver` in IOMMU group 7, plus `others` in the group.
    fn fake_sysfs(driver: Option<&str>, others: &[(&str, Option<&str>)]) -> tempdir::Dir {
        let t = tempdir::Dir::new();
        let root = t.path();
        let devs = root.join("bus/pci/devices");
        let group = root.join("kernel/iommu_groups/7/devices");
        fs::create_dir_all(&devs).unwrap();
        fs::create_dir_all(&group).unwrap();
        let mut all = vec![("0000:01:00.0", driver)];
        all.extend_from_slice(others);
        for (a, drv) in all {
            let d = root.join("devices").join(a);
            fs::create_dir_all(&d).unwrap();
            symlink(&d, devs.join(a)).unwrap();
            symlink(&d, group.join(a)).unwrap();
            symlink(root.join("kernel/iommu_groups/7"), d.join("iommu_group")).unwrap();
            if let Some(drv) = drv {
                let dd = root.join("bus/pci/drivers").join(drv);
                fs::create_dir_all(&dd).unwrap();
                symlink(&dd, d.join("driver")).unwrap();
            }
        }
        t
    }

    /// Minimal temporary directory (no extra crate).
    mod tempdir {
        use std::path::{Path, PathBuf};
        pub struct Dir(PathBuf);
        impl Dir {
            pub fn new() -> Self {
                use std::sync::atomic::{AtomicU32, Ordering};
                static N: AtomicU32 = AtomicU32::new(0);
                let p = std::env::temp_dir().join(format!(
                    "tsnic-vfio-test-{}-{}",
                    std::process::id(),
                    N.fetch_add(1, Ordering::Relaxed)
                ));
                let _ = std::fs::remove_dir_all(&p);
                std::fs::create_dir_all(&p).unwrap();
                Dir(p)
            }
            pub fn path(&self) -> &Path {
                &self.0
            }
        }
        impl Drop for Dir {
            fn drop(&mut self) {
                let _ = std::fs::remove_dir_all(&self.0);
            }
        }
    }

    #[test]
    fn missing_device() {
        let t = fake_sysfs(Some("vfio-pci"), &[]);
        let other: PciAddress = "0000:02:00.0".parse().unwrap();
        let e = check_sysfs(t.path(), &other).unwrap_err();
        assert!(matches!(e, DeviceError::NoSuchDevice { .. }), "{e}");
        assert!(e.to_string().contains("lspci -D"));
    }

    #[test]
    fn no_iommu_group_says_turn_the_iommu_on() {
        let t = fake_sysfs(Some("vfio-pci"), &[]);
        fs::remove_file(t.path().join("devices/0000:01:00.0/iommu_group")).unwrap();
        let e = check_sysfs(t.path(), &addr()).unwrap_err();
        assert!(matches!(e, DeviceError::NoIommuGroup { .. }), "{e}");
        let m = e.to_string();
        assert!(
            m.contains("intel_iommu=on") && m.contains("0000:01:00.0"),
            "{m}"
        );
        // Also when it is bound to another driver: the missing IOMMU is the first thing to fix.
        let t = fake_sysfs(Some("ixgbe"), &[]);
        fs::remove_file(t.path().join("devices/0000:01:00.0/iommu_group")).unwrap();
        let e = check_sysfs(t.path(), &addr()).unwrap_err();
        assert!(matches!(e, DeviceError::NoIommuGroup { .. }), "{e}");
    }

    #[test]
    fn busy_group_says_who_to_ask() {
        let e = open_err("/dev/vfio/7", io::Error::from_raw_os_error(libc::EBUSY));
        assert!(e.to_string().contains("fuser /dev/vfio/7"), "{e}");
    }

    #[test]
    fn bound_to_another_driver() {
        let t = fake_sysfs(Some("ixgbe"), &[]);
        let e = check_sysfs(t.path(), &addr()).unwrap_err();
        match &e {
            DeviceError::NotBoundToVfio { driver, .. } => assert_eq!(driver, "ixgbe"),
            _ => panic!("{e}"),
        }
        assert!(e.to_string().contains("driver_override"), "{e}");
        let t = fake_sysfs(None, &[]);
        let e = check_sysfs(t.path(), &addr()).unwrap_err();
        assert!(
            matches!(&e, DeviceError::NotBoundToVfio { driver, .. } if driver == "none"),
            "{e}"
        );
    }

    #[test]
    fn group_not_viable() {
        let t = fake_sysfs(Some("vfio-pci"), &[("0000:01:00.1", Some("ixgbe"))]);
        let e = check_sysfs(t.path(), &addr()).unwrap_err();
        assert!(matches!(e, DeviceError::GroupNotViable { group: 7 }), "{e}");
        assert!(e.to_string().contains("/sys/kernel/iommu_groups/7/devices"));
    }

    #[test]
    fn viable_group() {
        let t = fake_sysfs(
            Some("vfio-pci"),
            &[("0000:01:00.1", None), ("0000:00:01.0", Some("pcieport"))],
        );
        assert_eq!(check_sysfs(t.path(), &addr()).unwrap(), 7);
    }

    #[test]
    fn permission_denied_maps_to_its_fix() {
        let e = open_err(
            "/dev/vfio/7",
            io::Error::from(io::ErrorKind::PermissionDenied),
        );
        assert!(matches!(e, DeviceError::PermissionDenied { .. }));
        assert!(e.to_string().contains("ulimit -l"));
        let e = map_vfio_err(
            VfioError::OpenGroup(io::Error::from(io::ErrorKind::PermissionDenied), "7".into()),
            7,
        );
        assert!(
            matches!(e, DeviceError::PermissionDenied { ref path } if path == "/dev/vfio/7"),
            "{e}"
        );
        let e = map_vfio_err(VfioError::GroupViable, 7);
        assert!(matches!(e, DeviceError::GroupNotViable { group: 7 }));
    }

    #[test]
    fn bar_too_small_and_all_ones_say_what_is_wrong() {
        let e = DeviceError::BarTooSmall {
            size: 0x1000,
            need: contract::BAR0_SIZE as u64,
        };
        assert!(
            e.to_string()
                .contains("BAR0 is 0x1000 bytes, the register map needs 0x100000"),
            "{e}"
        );
        assert!(e.to_string().contains("wrong bitstream"));
    }

    #[test]
    fn volatile_copies_round_trip_at_every_alignment() {
        let map: MmapRaw = MmapOptions::new().len(4096).map_anon().unwrap().into();
        for start in 0..9 {
            for len in [0usize, 1, 7, 8, 9, 31, 32, 33, 100] {
                let src: Vec<u8> = (0..len).map(|i| (i * 7 + start) as u8).collect();
                let mut back = vec![0u8; len];
                // SAFETY: start + len <= 109 < 4096, inside the live mapping; no references into it.
                unsafe {
                    volatile_copy_to(map.as_mut_ptr().add(start), &src);
                    volatile_copy_from(map.as_mut_ptr().add(start), &mut back);
                }
                assert_eq!(src, back);
            }
        }
    }
}
