//! The flash model on the Verilated card's pins: [`SimFlash`] plugs a [`ModelCard`] (the NOR part and
//! the FPGA's configuration logic) into `tsnic_sim::SimCard::attach_flash`, so `tsnic flash --backend
//! sim` drives the flash controller RTL (`tsnic_flash_ctrl.v`) and the RTL drives the part through its
//! quad-SPI pins ([`QspiPins`]) and its ICAP port ([`IcapPort`] below).
//!
//! Time: the part's clock follows the card's simulated time (`now_ps` of every cycle), so program and
//! erase times pass at their datasheet values also while the card's idle fast-forward skips the
//! cycles between the controller's busy polls.
//!
//! Reconfiguration: an IPROG written to the ICAP (sync word, WBSTAR, CMD = IPROG) runs the
//! configuration model ([`config::iprog`]): the image at the warm-boot address configures, or the
//! FPGA falls back to golden. The card then holds the core in reset as a freshly configured design
//! starts, and the core's startup ICAP reads of WBSTAR and BOOTSTS see the model's result. The core
//! in the co-simulation is a user image (GOLDEN=0): the golden image's selector runs in the Rust model
//! ([`config`]), so FLASH_BOOT_STATUS bits 3:1 (what golden's selector tried) stay 0 here.

use std::sync::{Arc, Mutex, MutexGuard};

use tsnic_sim::{FlashIn, FlashOut, FlashPins};

use super::config;
use super::model::ModelCard;
use super::nor::NorFlash;
use super::pins::QspiPins;

/// Configuration words and registers of the ICAP the controller uses (UG570; UG470 is the same).
mod icap {
    pub const SYNC: u32 = 0xAA99_5566;
    pub const REG_CMD: u32 = 0x04;
    pub const REG_WBSTAR: u32 = 0x10;
    pub const REG_BOOTSTS: u32 = 0x16;
    pub const CMD_IPROG: u32 = 0x0F;
    pub const CMD_DESYNC: u32 = 0x0D;
}

/// The configuration port as the core sees it: type-1 packets after the sync word; reads of WBSTAR
/// and BOOTSTS answered from the running configuration; an IPROG command recorded.
#[derive(Debug, Default)]
pub struct IcapPort {
    synced: bool,
    /// Register the next written word goes to (after a type-1 write header).
    write_reg: Option<u32>,
    /// Register a type-1 read header selected.
    read_reg: Option<u32>,
    wbstar_written: u32,
    /// Words written while CSIB was low (tests).
    pub words: u64,
    iprog: Option<u32>,
}

impl IcapPort {
    /// One enabled cycle: CSIB, RDWRB and the written word in, the word read out.
    fn cycle(&mut self, csib: bool, rdwrb: bool, word: u32, wbstar: u32, bootsts: u32) -> u32 {
        if !csib && !rdwrb {
            self.words += 1;
            self.write(word);
        }
        match self.read_reg {
            Some(icap::REG_WBSTAR) => wbstar,
            Some(icap::REG_BOOTSTS) => bootsts,
            _ => 0,
        }
    }

    fn write(&mut self, w: u32) {
        if !self.synced {
            self.synced = w == icap::SYNC;
            return;
        }
        if let Some(reg) = self.write_reg.take() {
            match reg {
                icap::REG_WBSTAR => self.wbstar_written = w,
                icap::REG_CMD if w == icap::CMD_IPROG => self.iprog = Some(self.wbstar_written),
                icap::REG_CMD if w == icap::CMD_DESYNC => self.synced = false,
                _ => {}
            }
            return;
        }
        // type-1 packet header: bits 31:29 = 001, 28:27 opcode (01 read, 10 write), 17:13 register,
        // 10:0 word count
        if w >> 29 == 1 {
            let reg = (w >> 13) & 0x1F;
            let count = w & 0x7FF;
            match (w >> 27) & 3 {
                1 => self.read_reg = Some(reg),
                2 if count > 0 => self.write_reg = Some(reg),
                _ => {}
            }
        }
    }
}

struct Inner {
    card: ModelCard,
    qspi: QspiPins,
    icap: IcapPort,
    last_ps: Option<u64>,
    rem_ps: u64,
    reconfigure: bool,
    reconfigurations: u64,
}

/// The flash side of a simulated card, shared between the card's pins and the command that owns it
/// (which saves the flash file when done).
#[derive(Clone)]
pub struct SimFlash(Arc<Mutex<Inner>>);

impl SimFlash {
    /// Around `card` (its part moves onto the pins until [`SimFlash::into_card`]).
    pub fn new(mut card: ModelCard) -> SimFlash {
        let chip = std::mem::replace(&mut card.chip, NorFlash::mt25qu01g());
        SimFlash(Arc::new(Mutex::new(Inner {
            card,
            qspi: QspiPins::new(chip, 0),
            icap: IcapPort::default(),
            last_ps: None,
            rem_ps: 0,
            reconfigure: false,
            reconfigurations: 0,
        })))
    }

    fn lock(&self) -> MutexGuard<'_, Inner> {
        // a panic while the lock was held leaves plain data behind: keep using it
        self.0.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The pins to attach to the card.
    pub fn pins(&self) -> Box<dyn FlashPins> {
        Box::new(self.clone())
    }

    /// BOOT_WBSTAR / BOOTSTS the core should read at startup (the model's running configuration).
    pub fn boot_words(&self) -> (u32, u32) {
        let g = self.lock();
        (
            g.card.running.state.wbstar,
            u32::from(g.card.running.state.bootsts),
        )
    }

    /// Reconfigurations (IPROGs) the model carried out.
    pub fn reconfigurations(&self) -> u64 {
        self.lock().reconfigurations
    }

    /// The model card back, its part returned from the pins. The card's own handle must be gone
    /// (the simulated card closed or the pins detached); otherwise `self` comes back unchanged.
    pub fn into_card(self) -> Result<ModelCard, SimFlash> {
        match Arc::try_unwrap(self.0) {
            Ok(m) => {
                let Inner { mut card, qspi, .. } =
                    m.into_inner().unwrap_or_else(|e| e.into_inner());
                card.chip = qspi.chip;
                Ok(card)
            }
            Err(arc) => Err(SimFlash(arc)),
        }
    }
}

impl FlashPins for SimFlash {
    fn cycle(&mut self, now_ps: u64, pins: &FlashOut) -> FlashIn {
        let mut g = self.lock();
        let g = &mut *g;
        // advance the part to the card's time (skipped cycles included)
        let last = *g.last_ps.get_or_insert(now_ps);
        let elapsed = now_ps.saturating_sub(last) + g.rem_ps;
        g.last_ps = Some(now_ps);
        g.rem_ps = elapsed % 1000;
        if elapsed >= 1000 {
            let _ = g.qspi.chip.advance(elapsed / 1000);
        }
        let dq_i = g.qspi.cycle(
            pins.qspi_clk & 1 != 0,
            pins.qspi_cs_n & 1 != 0,
            (pins.qspi_dq_o & 0xF) as u8,
            (pins.qspi_dq_oe & 0xF) as u8,
        );
        let (wbstar, bootsts) = (
            g.card.running.state.wbstar,
            u32::from(g.card.running.state.bootsts),
        );
        let icap_o = g.icap.cycle(
            pins.icap_csib & 1 != 0,
            pins.icap_rdwrb & 1 != 0,
            pins.icap_i as u32,
            wbstar,
            bootsts,
        );
        if let Some(addr) = g.icap.iprog.take() {
            g.card.running = config::iprog(&g.qspi.chip, &g.card.layout, addr);
            g.icap = IcapPort::default();
            g.reconfigure = true;
            g.reconfigurations += 1;
        }
        FlashIn {
            qspi_dq_i: u64::from(dq_i & 0xF),
            icap_ce: 1,
            icap_o: u64::from(icap_o),
        }
    }

    fn take_reconfigure(&mut self) -> bool {
        std::mem::take(&mut self.lock().reconfigure)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write(p: &mut IcapPort, words: &[u32]) {
        for &w in words {
            p.cycle(false, false, w, 0, 0);
        }
    }

    #[test]
    fn iprog_sequence_is_recognised_only_after_sync() {
        let mut p = IcapPort::default();
        // without the sync word nothing counts
        write(
            &mut p,
            &[0x3002_0001, 0x0123_0000, 0x3000_8001, icap::CMD_IPROG],
        );
        assert_eq!(p.iprog, None);
        write(
            &mut p,
            &[
                0xFFFF_FFFF,
                icap::SYNC,
                0x2000_0000,
                0x3002_0001,
                0x0200_0000,
                0x3000_8001,
                icap::CMD_IPROG,
            ],
        );
        assert_eq!(p.iprog, Some(0x0200_0000));
    }

    #[test]
    fn reads_answer_the_selected_register() {
        let mut p = IcapPort::default();
        write(&mut p, &[0xFFFF_FFFF, icap::SYNC, 0x2000_0000, 0x2802_C001]);
        assert_eq!(p.cycle(false, true, 0, 0x111, 0x2), 0x2);
        write(&mut p, &[0x2802_0001]);
        assert_eq!(p.cycle(false, true, 0, 0x111, 0x2), 0x111);
        write(&mut p, &[0x3000_8001, icap::CMD_DESYNC, 0x3002_0001]);
        assert!(!p.synced);
    }
}
