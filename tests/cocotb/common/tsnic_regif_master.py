"""Drives the Corundum-style register interface of docs/DATAPATH.md from a cocotb bench.

`*_en` is held until the block answers with a one-cycle `*_ack`; a block that does not own the address
never acks: the master gives up after `timeout` cycles and returns None (the AXI-Lite bridge would
then answer 0 / OKAY).
"""

from cocotb.triggers import RisingEdge, ReadOnly


class RegIfMaster:
    def __init__(self, dut, clk, prefix="reg", timeout=64):
        self.dut = dut
        self.clk = clk
        self.p = prefix
        self.timeout = timeout
        self._sig("wr_en").value = 0
        self._sig("rd_en").value = 0
        self._sig("wr_addr").value = 0
        self._sig("rd_addr").value = 0
        self._sig("wr_data").value = 0
        self._sig("wr_strb").value = 0

    def _sig(self, name):
        return getattr(self.dut, f"{self.p}_{name}")

    async def write(self, addr, data, strb=0xF):
        """Returns True when acknowledged, False on timeout (nobody owns the address)."""
        self._sig("wr_addr").value = addr
        self._sig("wr_data").value = data & 0xFFFFFFFF
        self._sig("wr_strb").value = strb
        self._sig("wr_en").value = 1
        ok = False
        for _ in range(self.timeout):
            await RisingEdge(self.clk)
            await ReadOnly()
            if self._sig("wr_ack").value:
                ok = True
                break
        await RisingEdge(self.clk)
        self._sig("wr_en").value = 0
        return ok

    async def read(self, addr):
        """Returns the data, or None on timeout."""
        self._sig("rd_addr").value = addr
        self._sig("rd_en").value = 1
        val = None
        for _ in range(self.timeout):
            await RisingEdge(self.clk)
            await ReadOnly()
            if self._sig("rd_ack").value:
                val = int(self._sig("rd_data").value)
                break
        await RisingEdge(self.clk)
        self._sig("rd_en").value = 0
        return val
