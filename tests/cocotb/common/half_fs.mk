# $(call half_fs,PERIOD_PS,PPM): the half period in fs (rounded) of a clock whose nominal period is
# PERIOD_PS ps and whose rate is off by PPM: what the MAC-domain benches' Verilog tops toggle at.
half_fs = $(shell python3 -c "print(round($(1) / (1.0 + $(2) * 1e-6) * 500))")
