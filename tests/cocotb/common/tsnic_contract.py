"""Generated from hdl/contract/tsnic.toml by hdl/contract/gen_contract.py. Do not edit: run `make gen`."""

import struct

MAGIC = 0x54534e43
VERSION = 0x00010000
BAR0_SIZE = 0x100000

STATUS_SENT = 1
STATUS_SENT_LATE = 2
STATUS_DROPPED_LATE = 3
STATUS_DROPPED_HORIZON = 4
STATUS_FLUSHED = 5
STATUS_REJECTED = 6
STATUS_DMA_ERROR = 7

REJECT_NONE = 0
REJECT_ZERO_LEN = 1
REJECT_OVERSIZE = 2
REJECT_OUTSIDE_WINDOW = 3
REJECT_BAD_FLAGS = 4
REJECT_PK_BAD_TYPE = 5
REJECT_PK_TRUNCATED = 6
REJECT_PK_TOO_EARLY = 7

LATE_POLICY_SEND = 0
LATE_POLICY_DROP = 1

HORIZON_POLICY_DROP = 0
HORIZON_POLICY_CAP = 1

RX_STATUS_OK = 1
RX_STATUS_BAD_FCS = 2
RX_STATUS_TOO_LONG = 3
RX_STATUS_TRUNCATED = 4
RX_STATUS_BAD_DESC = 5

PK_TYPE_FRAME = 1
PK_TYPE_BASE = 2

STATUS_NAMES = {1: "SENT", 2: "SENT_LATE", 3: "DROPPED_LATE", 4: "DROPPED_HORIZON", 5: "FLUSHED", 6: "REJECTED", 7: "DMA_ERROR"}
RX_STATUS_NAMES = {1: "OK", 2: "BAD_FCS", 3: "TOO_LONG", 4: "TRUNCATED", 5: "BAD_DESC"}

FEATURE_LATE_POLICY = 1 << 0
FEATURE_HORIZON_POLICY = 1 << 1
FEATURE_PHC_ADJFINE = 1 << 2
FEATURE_PPS_OUT = 1 << 3
FEATURE_IRQ_MODERATION = 1 << 4
FEATURE_RX_PATH = 1 << 5
FEATURE_PACKED_TX = 1 << 6

DESC_FLAG_ASAP = 1 << 0

CPL_FLAG_CAPPED = 1 << 0
CPL_FLAG_PACKED = 1 << 1
CPL_FLAG_PHASE = 1 << 31

RXC_FLAG_STEERED = 1 << 0
RXC_FLAG_PHASE = 1 << 31

PK_FLAG_ASAP = 1 << 0

CAP_BASE = 0x0
CAP_MAGIC = 0x0
CAP_VERSION = 0x4
CAP_NUM_QUEUES = 0x8
CAP_CLK_FREQ_HZ = 0xc
CAP_SLOT_NS = 0x10
CAP_SLOTS = 0x14
CAP_HORIZON_NS_LO = 0x18
CAP_HORIZON_NS_HI = 0x1c
CAP_FEATURES = 0x20
CAP_RING_LOG2_MAX = 0x24
CAP_MAX_FRAME_LEN = 0x28
CAP_TX_DATA_WIDTH = 0x2c
CAP_NODES = 0x30
CAP_QUEUE_BASE = 0x34
CAP_QUEUE_STRIDE = 0x38

CTRL_BASE = 0x100
CTRL_CONTROL = 0x100
CTRL_CONTROL_ENABLE = 0x1
CTRL_CONTROL_RESET = 0x2
CTRL_STATUS = 0x104
CTRL_STATUS_RUNNING = 0x1
CTRL_STATUS_RESET_BUSY = 0x2
CTRL_LOOKAHEAD_NS = 0x108
CTRL_TX_LAT_COMP_NS = 0x10c
CTRL_IRQ_CTRL = 0x110
CTRL_IRQ_CTRL_ENABLE = 0x1
CTRL_IRQ_MOD_COUNT = 0x114
CTRL_IRQ_MOD_TIME_NS = 0x118
CTRL_IRQ_STATUS = 0x11c

PHC_BASE = 0x200
PHC_TIME_LO = 0x200
PHC_TIME_HI = 0x204
PHC_TIME_FNS = 0x208
PHC_SET_LO = 0x210
PHC_SET_HI = 0x214
PHC_ADJ_LO = 0x218
PHC_ADJ_HI = 0x21c
PHC_CMD = 0x220
PHC_CMD_SET = 0x1
PHC_CMD_ADJ = 0x2
PHC_PERIOD_LO = 0x224
PHC_PERIOD_HI = 0x228
PHC_ADJFINE_PPB = 0x22c
PHC_STATUS = 0x230
PHC_STATUS_BUSY = 0x1
PHC_STEP_COUNT = 0x234
PHC_SEC_LO = 0x238
PHC_SEC_HI = 0x23c
PHC_NSEC = 0x240

CPL_BASE = 0x300
CPL_BASE_LO = 0x300
CPL_BASE_HI = 0x304
CPL_SIZE_LOG2 = 0x308
CPL_CTRL = 0x30c
CPL_PROD = 0x310
CPL_CONS = 0x314

CNT_BASE = 0x400
CNT_POSTED_LO = 0x400
CNT_POSTED_HI = 0x404
CNT_SENT_LO = 0x408
CNT_SENT_HI = 0x40c
CNT_SENT_LATE_LO = 0x410
CNT_SENT_LATE_HI = 0x414
CNT_DROPPED_LATE_LO = 0x418
CNT_DROPPED_LATE_HI = 0x41c
CNT_DROPPED_HORIZON_LO = 0x420
CNT_DROPPED_HORIZON_HI = 0x424
CNT_FLUSHED_LO = 0x428
CNT_FLUSHED_HI = 0x42c
CNT_REJECTED_LO = 0x430
CNT_REJECTED_HI = 0x434
CNT_TX_BYTES_LO = 0x438
CNT_TX_BYTES_HI = 0x43c
CNT_DMA_ERROR_LO = 0x440
CNT_DMA_ERROR_HI = 0x444

FLASH_BASE = 0x800
FLASH_CAP = 0x800
FLASH_CAP_BOARD_ID = 0xff
FLASH_CAP_WRITABLE = 0x100
FLASH_CAP_SIZE_LOG2 = 0xff0000
FLASH_CAP_IMAGE_GOLDEN = 0x1000000
FLASH_CMD = 0x804
FLASH_CMD_OP = 0xf
FLASH_ADDR = 0x808
FLASH_LEN = 0x80c
FLASH_STATUS = 0x810
FLASH_STATUS_BUSY = 0x1
FLASH_STATUS_ERROR = 0x2
FLASH_STATUS_RD_EMPTY = 0x4
FLASH_STATUS_WR_FULL = 0x8
FLASH_STATUS_RD_LEVEL = 0xff00
FLASH_STATUS_WR_LEVEL = 0xff0000
FLASH_DATA = 0x814
FLASH_JEDEC_ID = 0x818
FLASH_SR = 0x81c
FLASH_DATA_SR = 0x820
FLASH_BOOT_WBSTAR = 0x824
FLASH_BOOT_STATUS = 0x828
FLASH_BOOT_STATUS_FALLBACK = 0x1
FLASH_BOOT_STATUS_GOLDEN_CHOSE_SLOT = 0x2
FLASH_BOOT_STATUS_TRIED_SLOT = 0xc
FLASH_BOOT_STATUS_BOOTSTS = 0xffff0000
FLASH_CLK_DIV = 0x82c

MAC_BASE = 0x600
MAC_TD_STATUS = 0x604
MAC_TD_STATUS_TX_LOCKED = 0x1
MAC_TD_STATUS_RX_LOCKED = 0x2
MAC_PHY_STATUS = 0x608
MAC_PHY_STATUS_REFCLK_READY = 0x1
MAC_PHY_STATUS_REFCLK_ERROR = 0x2
MAC_PHY_STATUS_REFCLK_ERROR_CODE = 0xf0
MAC_LINK_STATUS = 0x60c
MAC_LINK_STATUS_BOARD = 0x1
MAC_LINK_STATUS_PCIE_LINK_UP = 0x2
MAC_LINK_STATUS_MAC_RX_UP = 0x4
MAC_LINK_STATUS_MAC_KIND = 0x30
MAC_LINK_STATUS_PCIE_LTSSM = 0x3f00
MAC_LINK_STATUS_PCIE_SPEED = 0x70000
MAC_LINK_STATUS_PCIE_WIDTH = 0x1f00000

Q_BASE = 0x80000
Q_STRIDE = 0x80
Q_BASE_LO = 0x0
Q_BASE_HI = 0x4
Q_SIZE_LOG2 = 0x8
Q_CTRL = 0xc
Q_CTRL_ENABLE = 0x1
Q_CTRL_LATE_POLICY = 0x2
Q_CTRL_HORIZON_POLICY = 0x4
Q_CTRL_FLUSH = 0x8
Q_CTRL_FORMAT = 0x10
Q_PROD = 0x10
Q_CONS = 0x14
Q_WIN_BASE_LO = 0x18
Q_WIN_BASE_HI = 0x1c
Q_WIN_LEN_LO = 0x20
Q_WIN_LEN_HI = 0x24
Q_STATUS = 0x28
Q_STATUS_ENABLED = 0x1
Q_STATUS_FLUSH_BUSY = 0x2
Q_QUOTA = 0x2c
Q_CNT_POSTED = 0x40
Q_CNT_SENT = 0x44
Q_CNT_SENT_LATE = 0x48
Q_CNT_DROPPED_LATE = 0x4c
Q_CNT_DROPPED_HORIZON = 0x50
Q_CNT_FLUSHED = 0x54
Q_CNT_REJECTED = 0x58
Q_CNT_DMA_ERROR = 0x5c

RX_BASE = 0x1000
RX_CTRL = 0x1000
RX_CTRL_ENABLE = 0x1
RX_NUM_QUEUES = 0x1004
RX_STEER_ENTRIES = 0x1008
RX_MAX_FRAME_LEN = 0x100c
RX_LAT_COMP_NS = 0x1010
RX_DEFAULT_QUEUE = 0x1014
RX_BUF_BYTES = 0x1018
RX_STEER_ET_RULES = 0x101c
RX_STEER_INDEX = 0x1020
RX_STEER_SRC_IP = 0x1024
RX_STEER_DST_IP = 0x1028
RX_STEER_PORTS = 0x102c
RX_STEER_CTRL = 0x1030
RX_STEER_CTRL_PROTO = 0xff
RX_STEER_CTRL_QUEUE = 0xffff00
RX_STEER_CTRL_VALID = 0x80000000
RX_STEER_CMD = 0x1034
RX_STEER_CMD_WRITE = 0x1
RX_STEER_CMD_READ = 0x2
RX_STEER_CMD_ET_WRITE = 0x4
RX_STEER_CMD_ET_READ = 0x8
RX_STEER_ET = 0x1038
RX_STEER_ET_ETHERTYPE = 0xffff
RX_STEER_ET_QUEUE = 0xff0000
RX_STEER_ET_VALID = 0x80000000
RX_CNT_FRAMES = 0x1040
RX_CNT_BYTES = 0x1044
RX_CNT_DROP_DISABLED = 0x1048
RX_CNT_DROP_FULL = 0x104c
RX_CNT_BAD_FCS = 0x1050
RX_CNT_TOO_LONG = 0x1054
RX_CNT_STEERED = 0x1058
RX_CNT_DROP_MAC = 0x105c

RXQ_BASE = 0x2000
RXQ_STRIDE = 0x40
RXQ_DESC_BASE_LO = 0x0
RXQ_DESC_BASE_HI = 0x4
RXQ_CPL_BASE_LO = 0x8
RXQ_CPL_BASE_HI = 0xc
RXQ_SIZE_LOG2 = 0x10
RXQ_CTRL = 0x14
RXQ_CTRL_ENABLE = 0x1
RXQ_PROD = 0x18
RXQ_CONS = 0x1c
RXQ_STATUS = 0x20
RXQ_STATUS_ENABLED = 0x1
RXQ_STATUS_BUSY = 0x2
RXQ_CNT_FRAMES = 0x24
RXQ_CNT_BYTES = 0x28
RXQ_CNT_DROP_NOBUF = 0x2c
RXQ_CNT_ERRORS = 0x30

DESC_SIZE = 32
DESC_FIELDS = ('addr', 'len', 'cookie', 'launch_ns', 'flags', 'reserved')
_DESC_FMT = struct.Struct('<QIIQII')


def pack_descriptor(**fields) -> bytes:
    """Pack a descriptor record; fields not given are 0."""
    unknown = set(fields) - set(DESC_FIELDS)
    if unknown:
        raise KeyError(f"unknown descriptor fields: {sorted(unknown)}")
    return _DESC_FMT.pack(*(fields.get(n, 0) for n in DESC_FIELDS))


def unpack_descriptor(data: bytes) -> dict:
    """Unpack a descriptor record into a dict of its fields."""
    return dict(zip(DESC_FIELDS, _DESC_FMT.unpack(bytes(data[:DESC_SIZE]))))


CPL_SIZE = 32
CPL_FIELDS = ('depart_ns', 'launch_ns', 'cookie', 'ring_index', 'queue', 'status', 'reason', 'len', 'flags')
_CPL_FMT = struct.Struct('<QQIHHBBHI')


def pack_completion(**fields) -> bytes:
    """Pack a completion record; fields not given are 0."""
    unknown = set(fields) - set(CPL_FIELDS)
    if unknown:
        raise KeyError(f"unknown completion fields: {sorted(unknown)}")
    return _CPL_FMT.pack(*(fields.get(n, 0) for n in CPL_FIELDS))


def unpack_completion(data: bytes) -> dict:
    """Unpack a completion record into a dict of its fields."""
    return dict(zip(CPL_FIELDS, _CPL_FMT.unpack(bytes(data[:CPL_SIZE]))))


RXD_SIZE = 16
RXD_FIELDS = ('addr', 'len', 'reserved')
_RXD_FMT = struct.Struct('<QII')


def pack_rx_descriptor(**fields) -> bytes:
    """Pack a rx_descriptor record; fields not given are 0."""
    unknown = set(fields) - set(RXD_FIELDS)
    if unknown:
        raise KeyError(f"unknown rx_descriptor fields: {sorted(unknown)}")
    return _RXD_FMT.pack(*(fields.get(n, 0) for n in RXD_FIELDS))


def unpack_rx_descriptor(data: bytes) -> dict:
    """Unpack a rx_descriptor record into a dict of its fields."""
    return dict(zip(RXD_FIELDS, _RXD_FMT.unpack(bytes(data[:RXD_SIZE]))))


RXC_SIZE = 32
RXC_FIELDS = ('arrival_ns', 'len', 'frame_len', 'ring_index', 'queue', 'status', 'steer_entry', 'reserved0', 'reserved1', 'reserved2', 'flags')
_RXC_FMT = struct.Struct('<QHHHHBBHIII')


def pack_rx_completion(**fields) -> bytes:
    """Pack a rx_completion record; fields not given are 0."""
    unknown = set(fields) - set(RXC_FIELDS)
    if unknown:
        raise KeyError(f"unknown rx_completion fields: {sorted(unknown)}")
    return _RXC_FMT.pack(*(fields.get(n, 0) for n in RXC_FIELDS))


def unpack_rx_completion(data: bytes) -> dict:
    """Unpack a rx_completion record into a dict of its fields."""
    return dict(zip(RXC_FIELDS, _RXC_FMT.unpack(bytes(data[:RXC_SIZE]))))


PKR_SIZE = 8
PKR_FIELDS = ('len', 'kind', 'flags', 'launch_off')
_PKR_FMT = struct.Struct('<HBBI')


def pack_pk_record(**fields) -> bytes:
    """Pack a pk_record record; fields not given are 0."""
    unknown = set(fields) - set(PKR_FIELDS)
    if unknown:
        raise KeyError(f"unknown pk_record fields: {sorted(unknown)}")
    return _PKR_FMT.pack(*(fields.get(n, 0) for n in PKR_FIELDS))


def unpack_pk_record(data: bytes) -> dict:
    """Unpack a pk_record record into a dict of its fields."""
    return dict(zip(PKR_FIELDS, _PKR_FMT.unpack(bytes(data[:PKR_SIZE]))))


PKB_SIZE = 16
PKB_FIELDS = ('len', 'kind', 'flags', 'reserved', 'base_ns')
_PKB_FMT = struct.Struct('<HBBIQ')


def pack_pk_base_record(**fields) -> bytes:
    """Pack a pk_base_record record; fields not given are 0."""
    unknown = set(fields) - set(PKB_FIELDS)
    if unknown:
        raise KeyError(f"unknown pk_base_record fields: {sorted(unknown)}")
    return _PKB_FMT.pack(*(fields.get(n, 0) for n in PKB_FIELDS))


def unpack_pk_base_record(data: bytes) -> dict:
    """Unpack a pk_base_record record into a dict of its fields."""
    return dict(zip(PKB_FIELDS, _PKB_FMT.unpack(bytes(data[:PKB_SIZE]))))
