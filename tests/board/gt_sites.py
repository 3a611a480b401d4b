"""GT sites of the four cards, one table per part: for the PCIe lanes and the Ethernet lanes tsnic uses,
the quad, the channel of each lane with its package pins (rx_p, rx_n, tx_p, tx_n) and the reference-clock
pin. Every row is transcribed from the source named in it (Corundum's fpga/mqnic constraint files, whose
comments give each GT pin's MGT name, GT*E*_CHANNEL and GT*E*_COMMON site, from AMD's package files);
tests/board/test_gt_placement.py checks the XDCs, the IP scripts and the placement against it."""

# part -> {"pcie" | "eth": {source, quad (GT*_COMMON site), refclk (pin, MGTREFCLK name), lanes: [(channel, rx_p, rx_n, tx_p, tx_n)]}}
PARTS = {
    "xcu50-fsvh2104-2-e": {  # alveo u50
        "pcie": {
            "source": "Corundum fpga/mqnic/Alveo/fpga_100g/fpga_au50.xdc at 37f26075",
            "quads": ['X1Y0', 'X1Y1', 'X1Y2', 'X1Y3'],  # GT*_COMMON sites of the lanes
            "refclk": ("AF9", "MGTREFCLK0P_225"),
            # lane: (channel, rx_p, rx_n, tx_p, tx_n)  MGT pin name of rx_p
            "lanes": [
                ("X1Y15", "AL2", "AL1", "Y5", "Y4"),  # 0: MGTYRXP3_227
                ("X1Y14", "AM4", "AM3", "AA7", "AA6"),  # 1: MGTYRXP2_227
                ("X1Y13", "AK4", "AK3", "AB5", "AB4"),  # 2: MGTYRXP1_227
                ("X1Y12", "AN2", "AN1", "AC7", "AC6"),  # 3: MGTYRXP0_227
                ("X1Y11", "AP4", "AP3", "AD5", "AD4"),  # 4: MGTYRXP3_226
                ("X1Y10", "AR2", "AR1", "AF5", "AF4"),  # 5: MGTYRXP2_226
                ("X1Y9", "AT4", "AT3", "AE7", "AE6"),  # 6: MGTYRXP1_226
                ("X1Y8", "AU2", "AU1", "AH5", "AH4"),  # 7: MGTYRXP0_226
                ("X1Y7", "AV4", "AV3", "AG7", "AG6"),  # 8: MGTYRXP3_225
                ("X1Y6", "AW2", "AW1", "AJ7", "AJ6"),  # 9: MGTYRXP2_225
                ("X1Y5", "BA2", "BA1", "AL7", "AL6"),  # 10: MGTYRXP1_225
                ("X1Y4", "BC2", "BC1", "AM9", "AM8"),  # 11: MGTYRXP0_225
                ("X1Y3", "AY4", "AY3", "AN7", "AN6"),  # 12: MGTYRXP3_224
                ("X1Y2", "BB4", "BB3", "AP9", "AP8"),  # 13: MGTYRXP2_224
                ("X1Y1", "BD4", "BD3", "AR7", "AR6"),  # 14: MGTYRXP1_224
                ("X1Y0", "BE6", "BE5", "AT9", "AT8"),  # 15: MGTYRXP0_224
            ],
        },
        "eth": {
            "source": "Corundum fpga/mqnic/Alveo/fpga_100g/fpga_au50.xdc at 37f26075",
            "quads": ['X0Y7'],  # GT*_COMMON sites of the lanes
            "refclk": ("N36", "MGTREFCLK0P_131"),
            # lane: (channel, rx_p, rx_n, tx_p, tx_n)  MGT pin name of rx_p
            "lanes": [
                ("X0Y28", "J45", "J46", "D42", "D43"),  # 0: MGTYRXP0_131
                ("X0Y29", "G45", "G46", "C40", "C41"),  # 1: MGTYRXP1_131
                ("X0Y30", "F43", "F44", "B42", "B43"),  # 2: MGTYRXP2_131
                ("X0Y31", "E45", "E46", "A40", "A41"),  # 3: MGTYRXP3_131
            ],
        },
    },
    "xcu280-fsvh2892-2L-e": {  # alveo u280
        "pcie": {
            "source": "Corundum fpga/mqnic/Alveo/fpga_100g/fpga_au280.xdc at 37f26075",
            "quads": ['X1Y0', 'X1Y1', 'X1Y2', 'X1Y3'],  # GT*_COMMON sites of the lanes
            "refclk": ("AR15", "MGTREFCLK0P_225"),
            # lane: (channel, rx_p, rx_n, tx_p, tx_n)  MGT pin name of rx_p
            "lanes": [
                ("X1Y15", "AL2", "AL1", "AL11", "AL10"),  # 0: MGTYRXP3_227
                ("X1Y14", "AM4", "AM3", "AM9", "AM8"),  # 1: MGTYRXP2_227
                ("X1Y13", "AN6", "AN5", "AN11", "AN10"),  # 2: MGTYRXP1_227
                ("X1Y12", "AN2", "AN1", "AP9", "AP8"),  # 3: MGTYRXP0_227
                ("X1Y11", "AP4", "AP3", "AR11", "AR10"),  # 4: MGTYRXP3_226
                ("X1Y10", "AR2", "AR1", "AR7", "AR6"),  # 5: MGTYRXP2_226
                ("X1Y9", "AT4", "AT3", "AT9", "AT8"),  # 6: MGTYRXP1_226
                ("X1Y8", "AU2", "AU1", "AU11", "AU10"),  # 7: MGTYRXP0_226
                ("X1Y7", "AV4", "AV3", "AU7", "AU6"),  # 8: MGTYRXP3_225
                ("X1Y6", "AW6", "AW5", "AV9", "AV8"),  # 9: MGTYRXP2_225
                ("X1Y5", "AW2", "AW1", "AW11", "AW10"),  # 10: MGTYRXP1_225
                ("X1Y4", "AY4", "AY3", "AY9", "AY8"),  # 11: MGTYRXP0_225
                ("X1Y3", "BA6", "BA5", "BA11", "BA10"),  # 12: MGTYRXP3_224
                ("X1Y2", "BA2", "BA1", "BB9", "BB8"),  # 13: MGTYRXP2_224
                ("X1Y1", "BB4", "BB3", "BC11", "BC10"),  # 14: MGTYRXP1_224
                ("X1Y0", "BC2", "BC1", "BC7", "BC6"),  # 15: MGTYRXP0_224
            ],
        },
        "eth": {
            "source": "Corundum fpga/mqnic/Alveo/fpga_100g/fpga_au280.xdc at 37f26075",
            "quads": ['X0Y10'],  # GT*_COMMON sites of the lanes
            "refclk": ("R40", "MGTREFCLK1P_134"),
            # lane: (channel, rx_p, rx_n, tx_p, tx_n)  MGT pin name of rx_p
            "lanes": [
                ("X0Y40", "L53", "L54", "L48", "L49"),  # 0: MGTYRXP0_134
                ("X0Y41", "K51", "K52", "L44", "L45"),  # 1: MGTYRXP1_134
                ("X0Y42", "J53", "J54", "K46", "K47"),  # 2: MGTYRXP2_134
                ("X0Y43", "H51", "H52", "J48", "J49"),  # 3: MGTYRXP3_134
            ],
        },
    },
    "xcu250-figd2104-2L-e": {  # alveo u250
        "pcie": {
            "source": "Corundum fpga/mqnic/AU250/fpga_100g/fpga.xdc at 858dc5ac (the last before its AU200 merge, 18ac7cc4)",
            "quads": ['X1Y4', 'X1Y5', 'X1Y6', 'X1Y7'],  # GT*_COMMON sites of the lanes
            "refclk": ("AM11", "MGTREFCLK0P_226"),
            # lane: (channel, rx_p, rx_n, tx_p, tx_n)  MGT pin name of rx_p
            "lanes": [
                ("X1Y31", "AF2", "AF1", "AF7", "AF6"),  # 0: MGTYRXP3_227
                ("X1Y30", "AG4", "AG3", "AG9", "AG8"),  # 1: MGTYRXP2_227
                ("X1Y29", "AH2", "AH1", "AH7", "AH6"),  # 2: MGTYRXP1_227
                ("X1Y28", "AJ4", "AJ3", "AJ9", "AJ8"),  # 3: MGTYRXP0_227
                ("X1Y27", "AK2", "AK1", "AK7", "AK6"),  # 4: MGTYRXP3_226
                ("X1Y26", "AL4", "AL3", "AL9", "AL8"),  # 5: MGTYRXP2_226
                ("X1Y25", "AM2", "AM1", "AM7", "AM6"),  # 6: MGTYRXP1_226
                ("X1Y24", "AN4", "AN3", "AN9", "AN8"),  # 7: MGTYRXP0_226
                ("X1Y23", "AP2", "AP1", "AP7", "AP6"),  # 8: MGTYRXP3_225
                ("X1Y22", "AR4", "AR3", "AR9", "AR8"),  # 9: MGTYRXP2_225
                ("X1Y21", "AT2", "AT1", "AT7", "AT6"),  # 10: MGTYRXP1_225
                ("X1Y20", "AU4", "AU3", "AU9", "AU8"),  # 11: MGTYRXP0_225
                ("X1Y19", "AV2", "AV1", "AV7", "AV6"),  # 12: MGTYRXP3_224
                ("X1Y18", "AW4", "AW3", "BB5", "BB4"),  # 13: MGTYRXP2_224
                ("X1Y17", "BA2", "BA1", "BD5", "BD4"),  # 14: MGTYRXP1_224
                ("X1Y16", "BC2", "BC1", "BF5", "BF4"),  # 15: MGTYRXP0_224
            ],
        },
        "eth": {
            "source": "Corundum fpga/mqnic/AU250/fpga_100g/fpga.xdc at 858dc5ac (the last before its AU200 merge, 18ac7cc4)",
            "quads": ['X1Y11'],  # GT*_COMMON sites of the lanes
            "refclk": ("K11", "MGTREFCLK1P_231"),
            # lane: (channel, rx_p, rx_n, tx_p, tx_n)  MGT pin name of rx_p
            "lanes": [
                ("X1Y44", "N4", "N3", "N9", "N8"),  # 0: MGTYRXP0_231
                ("X1Y45", "M2", "M1", "M7", "M6"),  # 1: MGTYRXP1_231
                ("X1Y46", "L4", "L3", "L9", "L8"),  # 2: MGTYRXP2_231
                ("X1Y47", "K2", "K1", "K7", "K6"),  # 3: MGTYRXP3_231
            ],
        },
    },
    "xc7vx690tffg1761-3": {  # netfpga sume
        "pcie": {
            "source": "Corundum fpga/mqnic/NetFPGA_SUME/fpga/fpga.xdc at 37f26075",
            "quads": ['X1Y4', 'X1Y5'],  # GT*_COMMON sites of the lanes
            "refclk": ("AB8", "MGTREFCLK1P_115"),
            # lane: (channel, rx_p, rx_n, tx_p, tx_n)  MGT pin name of rx_p
            "lanes": [
                ("X1Y23", "Y4", "Y3", "W2", "W1"),  # 0: MGTHTXP3_115
                ("X1Y22", "AA6", "AA5", "AA2", "AA1"),  # 1: MGTHTXP2_115
                ("X1Y21", "AB4", "AB3", "AC2", "AC1"),  # 2: MGTHTXP1_115
                ("X1Y20", "AC6", "AC5", "AE2", "AE1"),  # 3: MGTHTXP0_115
                ("X1Y19", "AD4", "AD3", "AG2", "AG1"),  # 4: MGTHTXP3_114
                ("X1Y18", "AE6", "AE5", "AH4", "AH3"),  # 5: MGTHTXP2_114
                ("X1Y17", "AF4", "AF3", "AJ2", "AJ1"),  # 6: MGTHTXP1_114
                ("X1Y16", "AG6", "AG5", "AK4", "AK3"),  # 7: MGTHTXP0_114
            ],
        },
        "eth": {
            "source": "Corundum fpga/mqnic/NetFPGA_SUME/fpga/fpga.xdc at 37f26075",
            "quads": ['X1Y9'],  # GT*_COMMON sites of the lanes
            "refclk": ("E10", "MGTREFCLK0P_118"),
            # lane: (channel, rx_p, rx_n, tx_p, tx_n)  MGT pin name of rx_p
            "lanes": [
                ("X1Y39", "A6", "A5", "B4", "B3"),  # 0: MGTHRXP3_119
            ],
        },
    },
}
