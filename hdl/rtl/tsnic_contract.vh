// Generated from hdl/contract/tsnic.toml by hdl/contract/gen_contract.py. Do not edit: run `make gen`.
`ifndef TSNIC_CONTRACT_VH
`define TSNIC_CONTRACT_VH

`define TSNIC_MAGIC 32'h54534E43
`define TSNIC_VERSION 32'h00010000
`define TSNIC_BAR0_SIZE 1048576

// status
`define TSNIC_STATUS_SENT 8'd1
`define TSNIC_STATUS_SENT_LATE 8'd2
`define TSNIC_STATUS_DROPPED_LATE 8'd3
`define TSNIC_STATUS_DROPPED_HORIZON 8'd4
`define TSNIC_STATUS_FLUSHED 8'd5
`define TSNIC_STATUS_REJECTED 8'd6

// reject_reason
`define TSNIC_REJECT_NONE 8'd0
`define TSNIC_REJECT_ZERO_LEN 8'd1
`define TSNIC_REJECT_OVERSIZE 8'd2
`define TSNIC_REJECT_OUTSIDE_WINDOW 8'd3
`define TSNIC_REJECT_BAD_FLAGS 8'd4

// late_policy
`define TSNIC_LATE_POLICY_SEND 1'd0
`define TSNIC_LATE_POLICY_DROP 1'd1

// horizon_policy
`define TSNIC_HORIZON_POLICY_DROP 1'd0
`define TSNIC_HORIZON_POLICY_CAP 1'd1

// rx_status
`define TSNIC_RX_STATUS_OK 8'd1
`define TSNIC_RX_STATUS_BAD_FCS 8'd2
`define TSNIC_RX_STATUS_TOO_LONG 8'd3
`define TSNIC_RX_STATUS_TRUNCATED 8'd4
`define TSNIC_RX_STATUS_BAD_DESC 8'd5

// feature bit positions
`define TSNIC_FEATURE_LATE_POLICY_BIT 0
`define TSNIC_FEATURE_HORIZON_POLICY_BIT 1
`define TSNIC_FEATURE_PHC_ADJFINE_BIT 2
`define TSNIC_FEATURE_PPS_OUT_BIT 3
`define TSNIC_FEATURE_IRQ_MODERATION_BIT 4
`define TSNIC_FEATURE_RX_PATH_BIT 5

// descriptor_flag bit positions
`define TSNIC_DESC_FLAG_ASAP_BIT 0

// completion_flag bit positions
`define TSNIC_CPL_FLAG_CAPPED_BIT 0
`define TSNIC_CPL_FLAG_PHASE_BIT 31

// rx_completion_flag bit positions
`define TSNIC_RXC_FLAG_STEERED_BIT 0
`define TSNIC_RXC_FLAG_PHASE_BIT 31

// descriptor: 32 bytes; _LSB is the bit position in the little-endian record
`define TSNIC_DESC_SIZE 32
`define TSNIC_DESC_BITS 256
`define TSNIC_DESC_ADDR_LSB 0
`define TSNIC_DESC_ADDR_W 64
`define TSNIC_DESC_LEN_LSB 64
`define TSNIC_DESC_LEN_W 32
`define TSNIC_DESC_COOKIE_LSB 96
`define TSNIC_DESC_COOKIE_W 32
`define TSNIC_DESC_LAUNCH_NS_LSB 128
`define TSNIC_DESC_LAUNCH_NS_W 64
`define TSNIC_DESC_FLAGS_LSB 192
`define TSNIC_DESC_FLAGS_W 32
`define TSNIC_DESC_RESERVED_LSB 224
`define TSNIC_DESC_RESERVED_W 32

// completion: 32 bytes; _LSB is the bit position in the little-endian record
`define TSNIC_CPL_SIZE 32
`define TSNIC_CPL_BITS 256
`define TSNIC_CPL_DEPART_NS_LSB 0
`define TSNIC_CPL_DEPART_NS_W 64
`define TSNIC_CPL_LAUNCH_NS_LSB 64
`define TSNIC_CPL_LAUNCH_NS_W 64
`define TSNIC_CPL_COOKIE_LSB 128
`define TSNIC_CPL_COOKIE_W 32
`define TSNIC_CPL_RING_INDEX_LSB 160
`define TSNIC_CPL_RING_INDEX_W 16
`define TSNIC_CPL_QUEUE_LSB 176
`define TSNIC_CPL_QUEUE_W 16
`define TSNIC_CPL_STATUS_LSB 192
`define TSNIC_CPL_STATUS_W 8
`define TSNIC_CPL_REASON_LSB 200
`define TSNIC_CPL_REASON_W 8
`define TSNIC_CPL_LEN_LSB 208
`define TSNIC_CPL_LEN_W 16
`define TSNIC_CPL_FLAGS_LSB 224
`define TSNIC_CPL_FLAGS_W 32

// rx_descriptor: 16 bytes; _LSB is the bit position in the little-endian record
`define TSNIC_RXD_SIZE 16
`define TSNIC_RXD_BITS 128
`define TSNIC_RXD_ADDR_LSB 0
`define TSNIC_RXD_ADDR_W 64
`define TSNIC_RXD_LEN_LSB 64
`define TSNIC_RXD_LEN_W 32
`define TSNIC_RXD_RESERVED_LSB 96
`define TSNIC_RXD_RESERVED_W 32

// rx_completion: 32 bytes; _LSB is the bit position in the little-endian record
`define TSNIC_RXC_SIZE 32
`define TSNIC_RXC_BITS 256
`define TSNIC_RXC_ARRIVAL_NS_LSB 0
`define TSNIC_RXC_ARRIVAL_NS_W 64
`define TSNIC_RXC_LEN_LSB 64
`define TSNIC_RXC_LEN_W 16
`define TSNIC_RXC_FRAME_LEN_LSB 80
`define TSNIC_RXC_FRAME_LEN_W 16
`define TSNIC_RXC_RING_INDEX_LSB 96
`define TSNIC_RXC_RING_INDEX_W 16
`define TSNIC_RXC_QUEUE_LSB 112
`define TSNIC_RXC_QUEUE_W 16
`define TSNIC_RXC_STATUS_LSB 128
`define TSNIC_RXC_STATUS_W 8
`define TSNIC_RXC_STEER_ENTRY_LSB 136
`define TSNIC_RXC_STEER_ENTRY_W 8
`define TSNIC_RXC_RESERVED0_LSB 144
`define TSNIC_RXC_RESERVED0_W 16
`define TSNIC_RXC_RESERVED1_LSB 160
`define TSNIC_RXC_RESERVED1_W 32
`define TSNIC_RXC_RESERVED2_LSB 192
`define TSNIC_RXC_RESERVED2_W 32
`define TSNIC_RXC_FLAGS_LSB 224
`define TSNIC_RXC_FLAGS_W 32

// block CAP: Identity and capabilities: read these first; nothing here is writable.
`define TSNIC_CAP_BASE 32'h00000
`define TSNIC_CAP_MAGIC 32'h00000
`define TSNIC_CAP_MAGIC_OFF 0
`define TSNIC_CAP_VERSION 32'h00004
`define TSNIC_CAP_VERSION_OFF 4
`define TSNIC_CAP_NUM_QUEUES 32'h00008
`define TSNIC_CAP_NUM_QUEUES_OFF 8
`define TSNIC_CAP_CLK_FREQ_HZ 32'h0000C
`define TSNIC_CAP_CLK_FREQ_HZ_OFF 12
`define TSNIC_CAP_SLOT_NS 32'h00010
`define TSNIC_CAP_SLOT_NS_OFF 16
`define TSNIC_CAP_SLOTS 32'h00014
`define TSNIC_CAP_SLOTS_OFF 20
`define TSNIC_CAP_HORIZON_NS_LO 32'h00018
`define TSNIC_CAP_HORIZON_NS_LO_OFF 24
`define TSNIC_CAP_HORIZON_NS_HI 32'h0001C
`define TSNIC_CAP_HORIZON_NS_HI_OFF 28
`define TSNIC_CAP_FEATURES 32'h00020
`define TSNIC_CAP_FEATURES_OFF 32
`define TSNIC_CAP_RING_LOG2_MAX 32'h00024
`define TSNIC_CAP_RING_LOG2_MAX_OFF 36
`define TSNIC_CAP_MAX_FRAME_LEN 32'h00028
`define TSNIC_CAP_MAX_FRAME_LEN_OFF 40
`define TSNIC_CAP_TX_DATA_WIDTH 32'h0002C
`define TSNIC_CAP_TX_DATA_WIDTH_OFF 44
`define TSNIC_CAP_NODES 32'h00030
`define TSNIC_CAP_NODES_OFF 48
`define TSNIC_CAP_QUEUE_BASE 32'h00034
`define TSNIC_CAP_QUEUE_BASE_OFF 52
`define TSNIC_CAP_QUEUE_STRIDE 32'h00038
`define TSNIC_CAP_QUEUE_STRIDE_OFF 56

// block CTRL: Global control.
`define TSNIC_CTRL_BASE 32'h00100
`define TSNIC_CTRL_CONTROL 32'h00100
`define TSNIC_CTRL_CONTROL_OFF 0
`define TSNIC_CTRL_CONTROL_ENABLE_BIT 0
`define TSNIC_CTRL_CONTROL_RESET_BIT 1
`define TSNIC_CTRL_STATUS 32'h00104
`define TSNIC_CTRL_STATUS_OFF 4
`define TSNIC_CTRL_STATUS_RUNNING_BIT 0
`define TSNIC_CTRL_STATUS_RESET_BUSY_BIT 1
`define TSNIC_CTRL_LOOKAHEAD_NS 32'h00108
`define TSNIC_CTRL_LOOKAHEAD_NS_OFF 8
`define TSNIC_CTRL_TX_LAT_COMP_NS 32'h0010C
`define TSNIC_CTRL_TX_LAT_COMP_NS_OFF 12
`define TSNIC_CTRL_IRQ_CTRL 32'h00110
`define TSNIC_CTRL_IRQ_CTRL_OFF 16
`define TSNIC_CTRL_IRQ_CTRL_ENABLE_BIT 0
`define TSNIC_CTRL_IRQ_MOD_COUNT 32'h00114
`define TSNIC_CTRL_IRQ_MOD_COUNT_OFF 20
`define TSNIC_CTRL_IRQ_MOD_TIME_NS 32'h00118
`define TSNIC_CTRL_IRQ_MOD_TIME_NS_OFF 24
`define TSNIC_CTRL_IRQ_STATUS 32'h0011C
`define TSNIC_CTRL_IRQ_STATUS_OFF 28

// block PHC: PTP hardware clock: TAI time as u64 ns plus a 48-bit fraction of a ns.
`define TSNIC_PHC_BASE 32'h00200
`define TSNIC_PHC_TIME_LO 32'h00200
`define TSNIC_PHC_TIME_LO_OFF 0
`define TSNIC_PHC_TIME_HI 32'h00204
`define TSNIC_PHC_TIME_HI_OFF 4
`define TSNIC_PHC_TIME_FNS 32'h00208
`define TSNIC_PHC_TIME_FNS_OFF 8
`define TSNIC_PHC_SET_LO 32'h00210
`define TSNIC_PHC_SET_LO_OFF 16
`define TSNIC_PHC_SET_HI 32'h00214
`define TSNIC_PHC_SET_HI_OFF 20
`define TSNIC_PHC_ADJ_LO 32'h00218
`define TSNIC_PHC_ADJ_LO_OFF 24
`define TSNIC_PHC_ADJ_HI 32'h0021C
`define TSNIC_PHC_ADJ_HI_OFF 28
`define TSNIC_PHC_CMD 32'h00220
`define TSNIC_PHC_CMD_OFF 32
`define TSNIC_PHC_CMD_SET_BIT 0
`define TSNIC_PHC_CMD_ADJ_BIT 1
`define TSNIC_PHC_PERIOD_LO 32'h00224
`define TSNIC_PHC_PERIOD_LO_OFF 36
`define TSNIC_PHC_PERIOD_HI 32'h00228
`define TSNIC_PHC_PERIOD_HI_OFF 40
`define TSNIC_PHC_ADJFINE_PPB 32'h0022C
`define TSNIC_PHC_ADJFINE_PPB_OFF 44
`define TSNIC_PHC_STATUS 32'h00230
`define TSNIC_PHC_STATUS_OFF 48
`define TSNIC_PHC_STATUS_BUSY_BIT 0
`define TSNIC_PHC_STEP_COUNT 32'h00234
`define TSNIC_PHC_STEP_COUNT_OFF 52
`define TSNIC_PHC_SEC_LO 32'h00238
`define TSNIC_PHC_SEC_LO_OFF 56
`define TSNIC_PHC_SEC_HI 32'h0023C
`define TSNIC_PHC_SEC_HI_OFF 60
`define TSNIC_PHC_NSEC 32'h00240
`define TSNIC_PHC_NSEC_OFF 64

// block CPL: Completion ring: one ring for all queues, written by the card, consumed by the host.
`define TSNIC_CPL_BASE 32'h00300
`define TSNIC_CPL_BASE_LO 32'h00300
`define TSNIC_CPL_BASE_LO_OFF 0
`define TSNIC_CPL_BASE_HI 32'h00304
`define TSNIC_CPL_BASE_HI_OFF 4
`define TSNIC_CPL_SIZE_LOG2 32'h00308
`define TSNIC_CPL_SIZE_LOG2_OFF 8
`define TSNIC_CPL_CTRL 32'h0030C
`define TSNIC_CPL_CTRL_OFF 12
`define TSNIC_CPL_PROD 32'h00310
`define TSNIC_CPL_PROD_OFF 16
`define TSNIC_CPL_CONS 32'h00314
`define TSNIC_CPL_CONS_OFF 20

// block CNT: Global 64-bit counters. Reading _LO latches _HI.
`define TSNIC_CNT_BASE 32'h00400
`define TSNIC_CNT_POSTED_LO 32'h00400
`define TSNIC_CNT_POSTED_LO_OFF 0
`define TSNIC_CNT_POSTED_HI 32'h00404
`define TSNIC_CNT_POSTED_HI_OFF 4
`define TSNIC_CNT_SENT_LO 32'h00408
`define TSNIC_CNT_SENT_LO_OFF 8
`define TSNIC_CNT_SENT_HI 32'h0040C
`define TSNIC_CNT_SENT_HI_OFF 12
`define TSNIC_CNT_SENT_LATE_LO 32'h00410
`define TSNIC_CNT_SENT_LATE_LO_OFF 16
`define TSNIC_CNT_SENT_LATE_HI 32'h00414
`define TSNIC_CNT_SENT_LATE_HI_OFF 20
`define TSNIC_CNT_DROPPED_LATE_LO 32'h00418
`define TSNIC_CNT_DROPPED_LATE_LO_OFF 24
`define TSNIC_CNT_DROPPED_LATE_HI 32'h0041C
`define TSNIC_CNT_DROPPED_LATE_HI_OFF 28
`define TSNIC_CNT_DROPPED_HORIZON_LO 32'h00420
`define TSNIC_CNT_DROPPED_HORIZON_LO_OFF 32
`define TSNIC_CNT_DROPPED_HORIZON_HI 32'h00424
`define TSNIC_CNT_DROPPED_HORIZON_HI_OFF 36
`define TSNIC_CNT_FLUSHED_LO 32'h00428
`define TSNIC_CNT_FLUSHED_LO_OFF 40
`define TSNIC_CNT_FLUSHED_HI 32'h0042C
`define TSNIC_CNT_FLUSHED_HI_OFF 44
`define TSNIC_CNT_REJECTED_LO 32'h00430
`define TSNIC_CNT_REJECTED_LO_OFF 48
`define TSNIC_CNT_REJECTED_HI 32'h00434
`define TSNIC_CNT_REJECTED_HI_OFF 52
`define TSNIC_CNT_TX_BYTES_LO 32'h00438
`define TSNIC_CNT_TX_BYTES_LO_OFF 56
`define TSNIC_CNT_TX_BYTES_HI 32'h0043C
`define TSNIC_CNT_TX_BYTES_HI_OFF 60

// block Q: Per-queue TX ring, policies and counters (one block per queue).
`define TSNIC_Q_BASE 32'h80000
`define TSNIC_Q_STRIDE 128
`define TSNIC_Q_STRIDE_LOG2 7
`define TSNIC_Q_MAX_COUNT 4096
`define TSNIC_Q_BASE_LO 0  // offset inside one queue's block
`define TSNIC_Q_BASE_HI 4  // offset inside one queue's block
`define TSNIC_Q_SIZE_LOG2 8  // offset inside one queue's block
`define TSNIC_Q_CTRL 12  // offset inside one queue's block
`define TSNIC_Q_CTRL_ENABLE_BIT 0
`define TSNIC_Q_CTRL_LATE_POLICY_BIT 1
`define TSNIC_Q_CTRL_HORIZON_POLICY_BIT 2
`define TSNIC_Q_CTRL_FLUSH_BIT 3
`define TSNIC_Q_PROD 16  // offset inside one queue's block
`define TSNIC_Q_CONS 20  // offset inside one queue's block
`define TSNIC_Q_WIN_BASE_LO 24  // offset inside one queue's block
`define TSNIC_Q_WIN_BASE_HI 28  // offset inside one queue's block
`define TSNIC_Q_WIN_LEN_LO 32  // offset inside one queue's block
`define TSNIC_Q_WIN_LEN_HI 36  // offset inside one queue's block
`define TSNIC_Q_STATUS 40  // offset inside one queue's block
`define TSNIC_Q_STATUS_ENABLED_BIT 0
`define TSNIC_Q_STATUS_FLUSH_BUSY_BIT 1
`define TSNIC_Q_QUOTA 44  // offset inside one queue's block
`define TSNIC_Q_CNT_POSTED 64  // offset inside one queue's block
`define TSNIC_Q_CNT_SENT 68  // offset inside one queue's block
`define TSNIC_Q_CNT_SENT_LATE 72  // offset inside one queue's block
`define TSNIC_Q_CNT_DROPPED_LATE 76  // offset inside one queue's block
`define TSNIC_Q_CNT_DROPPED_HORIZON 80  // offset inside one queue's block
`define TSNIC_Q_CNT_FLUSHED 84  // offset inside one queue's block
`define TSNIC_Q_CNT_REJECTED 88  // offset inside one queue's block

// block RX: RX global: enable, arrival-time compensation, the 5-tuple steering table, global RX counters (32-bit, wrap).
`define TSNIC_RX_BASE 32'h01000
`define TSNIC_RX_CTRL 32'h01000
`define TSNIC_RX_CTRL_OFF 0
`define TSNIC_RX_CTRL_ENABLE_BIT 0
`define TSNIC_RX_NUM_QUEUES 32'h01004
`define TSNIC_RX_NUM_QUEUES_OFF 4
`define TSNIC_RX_STEER_ENTRIES 32'h01008
`define TSNIC_RX_STEER_ENTRIES_OFF 8
`define TSNIC_RX_MAX_FRAME_LEN 32'h0100C
`define TSNIC_RX_MAX_FRAME_LEN_OFF 12
`define TSNIC_RX_LAT_COMP_NS 32'h01010
`define TSNIC_RX_LAT_COMP_NS_OFF 16
`define TSNIC_RX_DEFAULT_QUEUE 32'h01014
`define TSNIC_RX_DEFAULT_QUEUE_OFF 20
`define TSNIC_RX_BUF_BYTES 32'h01018
`define TSNIC_RX_BUF_BYTES_OFF 24
`define TSNIC_RX_STEER_INDEX 32'h01020
`define TSNIC_RX_STEER_INDEX_OFF 32
`define TSNIC_RX_STEER_SRC_IP 32'h01024
`define TSNIC_RX_STEER_SRC_IP_OFF 36
`define TSNIC_RX_STEER_DST_IP 32'h01028
`define TSNIC_RX_STEER_DST_IP_OFF 40
`define TSNIC_RX_STEER_PORTS 32'h0102C
`define TSNIC_RX_STEER_PORTS_OFF 44
`define TSNIC_RX_STEER_CTRL 32'h01030
`define TSNIC_RX_STEER_CTRL_OFF 48
`define TSNIC_RX_STEER_CTRL_PROTO_BIT 0
`define TSNIC_RX_STEER_CTRL_PROTO_W 8
`define TSNIC_RX_STEER_CTRL_QUEUE_BIT 8
`define TSNIC_RX_STEER_CTRL_QUEUE_W 16
`define TSNIC_RX_STEER_CTRL_VALID_BIT 31
`define TSNIC_RX_STEER_CMD 32'h01034
`define TSNIC_RX_STEER_CMD_OFF 52
`define TSNIC_RX_STEER_CMD_WRITE_BIT 0
`define TSNIC_RX_STEER_CMD_READ_BIT 1
`define TSNIC_RX_CNT_FRAMES 32'h01040
`define TSNIC_RX_CNT_FRAMES_OFF 64
`define TSNIC_RX_CNT_BYTES 32'h01044
`define TSNIC_RX_CNT_BYTES_OFF 68
`define TSNIC_RX_CNT_DROP_DISABLED 32'h01048
`define TSNIC_RX_CNT_DROP_DISABLED_OFF 72
`define TSNIC_RX_CNT_DROP_FULL 32'h0104C
`define TSNIC_RX_CNT_DROP_FULL_OFF 76
`define TSNIC_RX_CNT_BAD_FCS 32'h01050
`define TSNIC_RX_CNT_BAD_FCS_OFF 80
`define TSNIC_RX_CNT_TOO_LONG 32'h01054
`define TSNIC_RX_CNT_TOO_LONG_OFF 84
`define TSNIC_RX_CNT_STEERED 32'h01058
`define TSNIC_RX_CNT_STEERED_OFF 88

// block RXQ: Per-RX-queue descriptor ring, completion ring and counters. Completion i answers descriptor i.
`define TSNIC_RXQ_BASE 32'h02000
`define TSNIC_RXQ_STRIDE 64
`define TSNIC_RXQ_STRIDE_LOG2 6
`define TSNIC_RXQ_MAX_COUNT 256
`define TSNIC_RXQ_DESC_BASE_LO 0  // offset inside one queue's block
`define TSNIC_RXQ_DESC_BASE_HI 4  // offset inside one queue's block
`define TSNIC_RXQ_CPL_BASE_LO 8  // offset inside one queue's block
`define TSNIC_RXQ_CPL_BASE_HI 12  // offset inside one queue's block
`define TSNIC_RXQ_SIZE_LOG2 16  // offset inside one queue's block
`define TSNIC_RXQ_CTRL 20  // offset inside one queue's block
`define TSNIC_RXQ_CTRL_ENABLE_BIT 0
`define TSNIC_RXQ_PROD 24  // offset inside one queue's block
`define TSNIC_RXQ_CONS 28  // offset inside one queue's block
`define TSNIC_RXQ_STATUS 32  // offset inside one queue's block
`define TSNIC_RXQ_STATUS_ENABLED_BIT 0
`define TSNIC_RXQ_STATUS_BUSY_BIT 1
`define TSNIC_RXQ_CNT_FRAMES 36  // offset inside one queue's block
`define TSNIC_RXQ_CNT_BYTES 40  // offset inside one queue's block
`define TSNIC_RXQ_CNT_DROP_NOBUF 44  // offset inside one queue's block
`define TSNIC_RXQ_CNT_ERRORS 48  // offset inside one queue's block

`endif
