//! `vfio`: a real card behind vfio-pci. (Being written.)

use super::{Backend, DeviceError, DmaRegion, PciAddress};

/// A card opened through VFIO.
pub struct VfioBackend {
    addr: PciAddress,
}

impl VfioBackend {
    /// Open the card at `addr`.
    pub fn open(addr: PciAddress) -> Result<Self, DeviceError> {
        let _ = addr;
        Err(DeviceError::NoVfio {
            path: "/dev/vfio/vfio".into(),
        })
    }
}

impl Backend for VfioBackend {
    fn describe(&self) -> String {
        format!("vfio {}", self.addr)
    }
    fn read32(&mut self, _offset: usize) -> u32 {
        unimplemented!()
    }
    fn write32(&mut self, _offset: usize, _value: u32) {
        unimplemented!()
    }
    fn dma_alloc(&mut self, len: usize) -> Result<DmaRegion, DeviceError> {
        Err(DeviceError::DmaAlloc {
            len,
            why: "not yet".into(),
        })
    }
    fn dma_free(&mut self, _region: DmaRegion) -> Result<(), DeviceError> {
        Ok(())
    }
    fn dma_write(&mut self, _region: &DmaRegion, _offset: usize, _data: &[u8]) {
        unimplemented!()
    }
    fn dma_read(&mut self, _region: &DmaRegion, _offset: usize, _buf: &mut [u8]) {
        unimplemented!()
    }
    fn now_ns(&mut self) -> u64 {
        0
    }
    fn wait_ns(&mut self, _ns: u64) -> Result<(), DeviceError> {
        Ok(())
    }
}
