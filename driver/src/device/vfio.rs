//! `vfio`: a real card behind vfio-pci.
//!
//! Opening goes: check `/dev/vfio/vfio`, find the device in sysfs, check it is bound to vfio-pci and that
//! its IOMMU group is viable (each with its own error and fix), then open container, group and device
//! with vfio-ioctls (no KVM), check BAR0 is large enough and mappable, set Memory Space and Bus Master in
//! the command register (read back to check every config write), and map BAR0 from the device fd at the
//! region's offset with memmap2.
//!
//! DMA memory: anonymous mappings (memmap2) mapped into the IOMMU with `vfio_dma_map` at IOVAs from a
//! bump allocator. Once mapped, the card may read and write it at any time, so it is touched only through
//! raw pointers with volatile accesses, never through a Rust reference.

use std::fs;
use std::io;
use std::os::unix::io::AsRawFd;
use std::path::{Path, PathBuf};
use std::sync::atomic::{fence, Ordering};
use std::sync::Arc;
use std::time::Duration;

use memmap2::{MmapOptions, MmapRaw};
use vfio_ioctls::{VfioContainer, VfioDevice, VfioError};

use super::{Backend, DeviceError, DmaRegion, PciAddress, DMA_ALIGN};
use crate::contract;
use crate::regs::Bar0;

/// VFIO region index of BAR0 (`VFIO_PCI_BAR0_REGION_INDEX`).
const BAR0_INDEX: u32 = vfio_bindings::bindings::vfio::VFIO_PCI_BAR0_REGION_INDEX;
/// VFIO region index of the config space (`VFIO_PCI_CONFIG_REGION_INDEX`).
const CONFIG_INDEX: u32 = vfio_bindings::bindings::vfio::VFIO_PCI_CONFIG_REGION_INDEX;
/// Region flag: may be mmap'ed.
const REGION_FLAG_MMAP: u32 = vfio_bindings::bindings::vfio::VFIO_REGION_INFO_FLAG_MMAP;
/// PCI command register offset in config space and its bits.
const PCI_COMMAND: u64 = 0x04;
const PCI_COMMAND_MEMORY: u16 = 1 << 1;
const PCI_COMMAND_MASTER: u16 = 1 << 2;
/// First IOVA handed out (above the 32-bit MMIO/MSI holes).
const IOVA_BASE: u64 = 1 << 32;

/// Where the VFIO container device lives.
pub const VFIO_CONTAINER_PATH: &str = "/dev/vfio/vfio";

/// Drivers a device of the IOMMU group may be bound to and still leave the group viable.
const VIABLE_DRIVERS: &[&str] = &["vfio-pci", "pci-stub", "pcieport"];

/// One DMA region: the mapping (kept alive while the IOMMU maps it) and its IOVA.
struct VfioDma {
    map: MmapRaw,
    iova: u64,
}

/// A card opened through VFIO.
pub struct VfioBackend {
    addr: PciAddress,
    bar0: MmapRaw,
    dma: Vec<Option<VfioDma>>,
    next_iova: u64,
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
    let driver = link_name(&dev.join("driver")).unwrap_or_else(|| "none".to_string());
    if driver != "vfio-pci" {
        return Err(DeviceError::NotBoundToVfio {
            addr: addr.to_string(),
            driver,
        });
    }
    let group: u32 = link_name(&dev.join("iommu_group"))
        .and_then(|g| g.parse().ok())
        .ok_or_else(|| DeviceError::NoVfio {
            path: dev.join("iommu_group").display().to_string(),
        })?;
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
fn map_vfio_err(e: VfioError, group: u32) -> DeviceError {
    match e {
        VfioError::OpenContainer(io) => open_err(VFIO_CONTAINER_PATH, io),
        VfioError::OpenGroup(io, g) => open_err(&format!("/dev/vfio/{g}"), io),
        VfioError::GroupViable => DeviceError::GroupNotViable { group },
        other => DeviceError::Io {
            context: format!("VFIO setup of IOMMU group {group} failed ({other})"),
            source: io::Error::other(other.to_string()),
        },
    }
}

fn open_err(path: &str, e: io::Error) -> DeviceError {
    match e.kind() {
        io::ErrorKind::PermissionDenied => DeviceError::PermissionDenied {
            path: path.to_string(),
        },
        io::ErrorKind::NotFound => DeviceError::NoVfio {
            path: path.to_string(),
        },
        _ => DeviceError::Io {
            context: format!("cannot open {path}"),
            source: e,
        },
    }
}

impl VfioBackend {
    /// Open the card at `addr`. See the module docs for the steps and their errors.
    pub fn open(addr: PciAddress) -> Result<Self, DeviceError> {
        Self::open_at(addr, Path::new("/sys"), Path::new(VFIO_CONTAINER_PATH))
    }

    /// [`VfioBackend::open`] with the sysfs root and container path given (tests).
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

        let size = device.get_region_size(BAR0_INDEX);
        if size < contract::BAR0_SIZE as u64 {
            return Err(DeviceError::BarTooSmall {
                size,
                need: contract::BAR0_SIZE as u64,
            });
        }
        if device.get_region_flags(BAR0_INDEX) & REGION_FLAG_MMAP == 0 {
            return Err(DeviceError::Io {
                context: format!(
                    "BAR0 of {addr} cannot be mmap'ed: is it a memory BAR and is the IOMMU on?"
                ),
                source: io::Error::from(io::ErrorKind::Unsupported),
            });
        }

        enable_bus_master(&device, &addr)?;

        let bar0 = MmapOptions::new()
            .offset(device.get_region_offset(BAR0_INDEX))
            .len(contract::BAR0_SIZE)
            .map_raw(device.as_raw_fd())
            .map_err(|e| DeviceError::Io {
                context: format!("cannot mmap BAR0 of {addr}"),
                source: e,
            })?;

        let me = Self {
            addr,
            bar0,
            dma: Vec::new(),
            next_iova: IOVA_BASE,
            device,
            container,
        };
        // All ones: the read was not claimed (link down, card in reset, bitstream not loaded).
        if me.regs().cap.magic.read() == u32::MAX {
            return Err(DeviceError::Io {
                context: format!("BAR0 of {addr} reads all ones: the card does not answer (link down or bitstream not loaded); reload the bitstream and rescan the bus"),
                source: io::Error::from(io::ErrorKind::NotConnected),
            });
        }
        Ok(me)
    }

    /// The typed register block over the mapped BAR0 (volatile cells).
    pub fn regs(&self) -> &Bar0 {
        // SAFETY: the mapping is BAR0_SIZE bytes (== size_of::<Bar0>(), checked at compile time in regs.rs),
        // page-aligned, and lives as long as `self`. Bar0 is made only of volatile cells (UnsafeCell
        // inside), so a shared reference to device memory is sound: every access is a volatile load/store.
        unsafe { &*(self.bar0.as_ptr() as *const Bar0) }
    }

    #[inline]
    fn reg_ptr(&self, offset: usize) -> *mut u32 {
        assert!(
            offset & 3 == 0 && offset + 4 <= contract::BAR0_SIZE,
            "BAR0 offset {offset:#x} out of range"
        );
        // Pointer arithmetic only (wrapping_add is safe); the access happens in read32/write32.
        self.bar0.as_mut_ptr().wrapping_add(offset) as *mut u32
    }

    fn region(&self, region: &DmaRegion, offset: usize, len: usize) -> *mut u8 {
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
}

/// Set Memory Space and Bus Master in the command register and read it back.
fn enable_bus_master(device: &VfioDevice, addr: &PciAddress) -> Result<(), DeviceError> {
    let mut cmd = [0u8; 2];
    device.region_read(CONFIG_INDEX, &mut cmd, PCI_COMMAND);
    let want = u16::from_le_bytes(cmd) | PCI_COMMAND_MEMORY | PCI_COMMAND_MASTER;
    device.region_write(CONFIG_INDEX, &want.to_le_bytes(), PCI_COMMAND);
    let mut back = [0u8; 2];
    device.region_read(CONFIG_INDEX, &mut back, PCI_COMMAND);
    let got = u16::from_le_bytes(back);
    if got & (PCI_COMMAND_MEMORY | PCI_COMMAND_MASTER) != PCI_COMMAND_MEMORY | PCI_COMMAND_MASTER {
        return Err(DeviceError::Io {
            context: format!(
                "setting Bus Master on {addr} did not stick (command register reads {got:#06x} after writing {want:#06x}): check `dmesg` for VFIO errors"
            ),
            source: io::Error::from(io::ErrorKind::Other),
        });
    }
    Ok(())
}

/// Copy `src` to device-visible memory at `dst` with volatile stores (8 bytes at a time where aligned).
///
/// # Safety
/// `dst..dst+src.len()` must be inside one live mapping.
unsafe fn volatile_copy_to(dst: *mut u8, src: &[u8]) {
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
unsafe fn volatile_copy_from(src: *const u8, dst: &mut [u8]) {
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

impl Backend for VfioBackend {
    fn describe(&self) -> String {
        format!("vfio {}", self.addr)
    }

    #[inline]
    fn read32(&mut self, offset: usize) -> u32 {
        let p = self.reg_ptr(offset);
        // SAFETY: `p` is 4-byte aligned and inside the BAR0 mapping (checked in reg_ptr), which lives as
        // long as `self`; MMIO is only ever accessed with volatile loads/stores.
        unsafe { p.read_volatile() }
    }

    #[inline]
    fn write32(&mut self, offset: usize, value: u32) {
        let p = self.reg_ptr(offset);
        // Every earlier DMA store must be visible before the card sees this (doorbell) write.
        fence(Ordering::Release);
        // SAFETY: as in read32.
        unsafe { p.write_volatile(value) }
    }

    fn dma_alloc(&mut self, len: usize) -> Result<DmaRegion, DeviceError> {
        if len == 0 {
            return Err(DeviceError::DmaAlloc {
                len,
                why: "zero length".into(),
            });
        }
        let size = len.div_ceil(DMA_ALIGN) * DMA_ALIGN;
        let map: MmapRaw = MmapOptions::new()
            .len(size)
            .populate()
            .map_anon()
            .map_err(|e| DeviceError::DmaAlloc {
                len,
                why: format!("mmap failed: {e}"),
            })?
            .into();
        let iova = self.next_iova;
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

    fn dma_free(&mut self, region: DmaRegion) -> Result<(), DeviceError> {
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

    #[inline]
    fn dma_write(&mut self, region: &DmaRegion, offset: usize, data: &[u8]) {
        let p = self.region(region, offset, data.len());
        // SAFETY: region() checked that [offset, offset+len) is inside a live DMA mapping.
        unsafe { volatile_copy_to(p, data) }
    }

    #[inline]
    fn dma_read(&mut self, region: &DmaRegion, offset: usize, buf: &mut [u8]) {
        let p = self.region(region, offset, buf.len());
        // SAFETY: as in dma_write.
        unsafe { volatile_copy_from(p, buf) }
    }

    #[inline]
    fn dma_read_u32(&mut self, region: &DmaRegion, offset: usize) -> u32 {
        let p = self.region(region, offset, 4);
        assert!(offset & 3 == 0, "unaligned DMA u32 read");
        // SAFETY: inside a live DMA mapping (checked), 4-byte aligned (page-aligned base + offset % 4 == 0).
        u32::from_le(unsafe { (p as *const u32).read_volatile() })
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
}

impl Drop for VfioBackend {
    fn drop(&mut self) {
        // Unmap every DMA region from the IOMMU before its memory is released.
        for d in self.dma.iter().flatten() {
            let _ = self.container.vfio_dma_unmap(d.iova, d.map.len());
        }
        // Stop the card mastering host memory before the mappings go away.
        let mut cmd = [0u8; 2];
        self.device.region_read(CONFIG_INDEX, &mut cmd, PCI_COMMAND);
        let off = u16::from_le_bytes(cmd) & !PCI_COMMAND_MASTER;
        self.device
            .region_write(CONFIG_INDEX, &off.to_le_bytes(), PCI_COMMAND);
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
    fn no_dev_vfio_is_reported_with_the_fix() {
        let t = tempdir::Dir::new();
        let e = VfioBackend::open_at(addr(), t.path(), &t.path().join("no/vfio"))
            .err()
            .unwrap();
        assert!(matches!(e, DeviceError::NoVfio { .. }), "{e}");
        assert!(e.to_string().contains("modprobe vfio-pci"), "{e}");
    }

    #[test]
    fn this_machine_without_vfio_gives_a_clear_error() {
        if Path::new(VFIO_CONTAINER_PATH).exists() {
            return; // a machine with VFIO: nothing to check here
        }
        let e = VfioBackend::open(addr()).err().unwrap();
        assert!(matches!(e, DeviceError::NoVfio { .. }), "{e}");
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

    #[test]
    fn clock_tai_is_sane() {
        let a = clock_tai_ns();
        let b = clock_tai_ns();
        assert!(a > 1_500_000_000 * 1_000_000_000 && b >= a);
    }
}
