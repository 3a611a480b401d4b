"""The PCIe side of the board benches: cocotbext-pcie's RootComplex and its Xilinx hard-block model
(UltraScalePlusPcieDevice, Gen3 x16 at 512 bits; or, with width=256, UltraScalePcieDevice, Gen3 x8 at
256 bits: the Gen3 block whose AXI-Stream layout pcie3_7x shares), wired to a bench wrapper that has the hard block's port names and widths
(s_axis_cq_*, m_axis_cc_*, m_axis_rq_*, s_axis_rc_*, cfg_max_payload, cfg_max_read_req,
cfg_function_status, cfg_interrupt_msix_*). The model drives clk (250 MHz) and rst.

Configuration the endpoint expects (tsnic_board_core.v): Gen3 x16, 512 bits, straddle off,
dword alignment, client tags, no extended tags, MSI-X table/PBA in BAR0 at 0x20000 / 0x28000.
"""

import logging

import cocotb
from cocotb.triggers import FallingEdge, Timer
from cocotbext.axi import AxiStreamBus
from cocotbext.pcie.core import RootComplex
from cocotbext.pcie.xilinx.us import UltraScalePcieDevice, UltraScalePlusPcieDevice
from cocotbext.pcie.xilinx.us.tlp import Tlp_us, ErrorCode

from tsnic_pcie_framing import FramingChecker

BAR0_SIZE = 1 << 20
MSIX_TABLE = 0x20000
MSIX_PBA = 0x28000


class PcieHost:
    def __init__(self, dut, msix_vectors=4, max_payload_size=512, width=512):
        self.dut = dut
        self.width = width
        self.rc = RootComplex()
        common = dict(
            pcie_generation=3, user_clk_frequency=250e6, alignment="dword", rc_straddle=False,
            pf_count=1, max_payload_size=max_payload_size, enable_client_tag=True, enable_extended_tag=False,
            enable_parity=False, enable_rx_msg_interface=False, enable_sriov=False,
            enable_extended_configuration=False,
            pf0_msi_enable=False, pf0_msix_enable=True, pf0_msix_table_size=msix_vectors - 1,
            pf0_msix_table_bir=0, pf0_msix_table_offset=MSIX_TABLE, pf0_msix_pba_bir=0,
            pf0_msix_pba_offset=MSIX_PBA,
            user_clk=dut.clk, user_reset=dut.rst,
            rq_bus=AxiStreamBus.from_prefix(dut, "m_axis_rq"),
            rc_bus=AxiStreamBus.from_prefix(dut, "s_axis_rc"),
            cq_bus=AxiStreamBus.from_prefix(dut, "s_axis_cq"),
            cc_bus=AxiStreamBus.from_prefix(dut, "m_axis_cc"),
            cfg_max_payload=dut.cfg_max_payload,
            cfg_max_read_req=dut.cfg_max_read_req,
            cfg_function_status=dut.cfg_function_status,
            cfg_interrupt_msix_enable=dut.cfg_interrupt_msix_enable,
            cfg_interrupt_msix_mask=dut.cfg_interrupt_msix_mask,
            cfg_interrupt_msix_address=dut.cfg_interrupt_msix_address,
            cfg_interrupt_msix_data=dut.cfg_interrupt_msix_data,
            cfg_interrupt_msix_int=dut.cfg_interrupt_msix_int,
            cfg_interrupt_msix_sent=dut.cfg_interrupt_msix_sent,
            cfg_interrupt_msix_fail=dut.cfg_interrupt_msix_fail,
        )
        # link status outputs, where the bench wrapper has them (tsnic_board_core's MAC_LINK_STATUS)
        for name in ("user_lnk_up", "cfg_negotiated_width", "cfg_current_speed"):
            if hasattr(dut, name):
                common[name] = getattr(dut, name)
        if width == 512:
            self.dev = UltraScalePlusPcieDevice(
                pcie_link_width=16, cq_straddle=False, cc_straddle=False, rq_straddle=False,
                rc_4tlp_straddle=False, **common)
        else:
            self.dev = UltraScalePcieDevice(pcie_link_width=8, **common)
        self.rc.make_port().connect(self.dev)
        # the hard block's four interface models log every TLP at INFO (~18,000 lines, 8 MB, for
        # tsnic_pcie_us at one width), formatted for no one: warnings only
        for port in (self.dev.rq_sink, self.dev.rc_source, self.dev.cq_source, self.dev.cc_sink):
            if port.log is not dut._log:
                port.log.setLevel(logging.WARNING)
        # completions the model drops because its completion buffer is full (it only logs them)
        self.cpl_dropped = 0
        host = self

        class _Drops(logging.Handler):
            def emit(self, record):
                if "No space in RX completion buffer" in record.getMessage():
                    host.cpl_dropped += 1

        self.dev.log.addHandler(_Drops())
        # the RQ/CC tuser framing fields, beat by beat (raises at the first wrong one)
        self.framing = FramingChecker(dut, width)
        self.dev.functions[0].configure_bar(0, BAR0_SIZE)
        self.pdev = None
        self.bar0 = None
        self.msix_count = [0] * msix_vectors
        self.poison = None          # callable(tlp) -> bool: completions to poison on their way in
        self.time_out = None        # callable(tlp) -> bool: completions to lose; the requester then sees
                                    # the hard block's completion-timeout report (RC error code 1001)
        self.cpl_latency_ns = 0     # > 0: every completion reaches the hard block this much later (a
                                    # host's read latency, so that many requests are in flight)

    async def init(self, msix=True, master=True):
        await FallingEdge(self.dut.rst)
        await Timer(100, "ns")
        await self.rc.enumerate()
        self.pdev = self.rc.find_device(self.dev.functions[0].pcie_id)
        await self.pdev.enable_device()
        if master:
            await self.pdev.set_master()
        if msix:
            n = await self.pdev.alloc_irq_vectors(1, len(self.msix_count))
            assert n == len(self.msix_count), f"MSI-X: {n} vectors"
            for k in range(n):
                self.pdev.request_irq(k, self._irq_handler(k))
        self.bar0 = self.pdev.bar_window[0]
        # completion poisoning hook: the model turns an EP completion into the RC error code 0001
        orig = self.dev.upstream_port.rx_handler

        async def recv(tlp):
            if tlp.fmt_type.name.startswith("CPL"):
                if self.poison is not None and self.poison(tlp):
                    tlp.ep = True
                if self.time_out is not None and self.time_out(tlp):
                    # what the hard block hands the user after its completion timer expires: a
                    # descriptor-only RC "completion" with error code 1001, request completed
                    t = Tlp_us(tlp)
                    t.error_code = ErrorCode.TIMEOUT
                    t.request_completed = True
                    t.data = bytearray()
                    t.length = 0
                    self.dev.active_request[tlp.tag] = None     # the hard block frees the tag
                    self.dev.rc_queue.put_nowait(t)
                    return
                if self.cpl_latency_ns:
                    cocotb.start_soon(late(tlp, self.cpl_latency_ns))     # same delay: order kept
                    return
            await orig(tlp)

        async def late(tlp, ns):
            await Timer(ns, "ns")
            await orig(tlp)

        self.dev.upstream_port.rx_handler = recv

    def _irq_handler(self, k):
        async def handler():
            self.msix_count[k] += 1
        return handler

    def mem(self, size):
        region = self.rc.mem_pool.alloc_region(size)
        return region, region.get_absolute_address(0)
