# Constraints of tsnic's clock-domain-crossing modules, applied to every instance found in the
# synthesized netlist (read with `read_xdc -unmanaged`, after the board XDC). What each module needs is
# in its header (hdl/rtl/tsnic_cdc_*.v, tsnic_td_*.v); in short:
#   - synchronizer flops carry ASYNC_REG (set in the RTL);
#   - tsnic_cdc_async_fifo: the Gray pointers reach the other side's first synchronizer within the
#     faster clock's period (set_max_delay -datapath_only), and so do LUT-RAM read paths mem -> m_data;
#   - tsnic_cdc_bus: the held word and the request/acknowledge toggles, one period of the capturing clock;
#   - tsnic_cdc_sync: a level, false path into the first flop;
#   - tsnic_td_sink: the sample registers of tsnic_td_source, one period of the sink's clock.
# Every step is -quiet: a design without one of these modules gets no constraint for it.

# the smallest period of the clocks reaching a set of cells (0 if none)
proc tsnic_min_period {cells} {
    set best 0
    foreach clk [get_clocks -quiet -of_objects $cells] {
        set p [get_property PERIOD $clk]
        if {$best == 0 || $p < $best} { set best $p }
    }
    return $best
}

proc tsnic_cells_of {ref} {
    return [get_cells -quiet -hierarchical -filter "ORIG_REF_NAME == $ref || REF_NAME == $ref"]
}

foreach inst [tsnic_cells_of tsnic_cdc_async_fifo] {
    set s_gray [get_cells -quiet "$inst/s_gray_reg_reg\[*\]"]
    set m_gray [get_cells -quiet "$inst/m_gray_reg_reg\[*\]"]
    set m_sync [get_cells -quiet "$inst/m_wr_gray_sync1_reg_reg\[*\]"]
    set s_sync [get_cells -quiet "$inst/s_rd_gray_sync1_reg_reg\[*\]"]
    set p [tsnic_min_period [concat $s_gray $m_gray]]
    if {$p == 0} { continue }
    set_max_delay -quiet -datapath_only -from $s_gray -to $m_sync $p
    set_max_delay -quiet -datapath_only -from $m_gray -to $s_sync $p
    set mem [get_cells -quiet -filter {PRIMITIVE_SUBGROUP == LUTRAM || PRIMITIVE_GROUP == DMEM} "$inst/mem_reg*"]
    set m_data [get_cells -quiet "$inst/m_data_reg_reg\[*\]"]
    if {[llength $mem] > 0} {
        set_max_delay -quiet -datapath_only -from $mem -to $m_data $p
    }
}

foreach inst [tsnic_cells_of tsnic_cdc_bus] {
    set s_data [get_cells -quiet "$inst/s_data_reg_reg\[*\]"]
    set m_data [get_cells -quiet "$inst/m_data_reg_reg\[*\]"]
    set req [get_cells -quiet "$inst/req_reg_reg"]
    set ack [get_cells -quiet "$inst/ack_reg_reg"]
    set m_p [tsnic_min_period $m_data]
    set s_p [tsnic_min_period $s_data]
    if {$m_p != 0} {
        set_max_delay -quiet -datapath_only -from $s_data -to $m_data $m_p
        set_max_delay -quiet -datapath_only -from $req -to [get_cells -quiet "$inst/req_sync1_reg_reg"] $m_p
    }
    if {$s_p != 0} {
        set_max_delay -quiet -datapath_only -from $ack -to [get_cells -quiet "$inst/ack_sync1_reg_reg"] $s_p
    }
}

foreach inst [tsnic_cells_of tsnic_cdc_sync] {
    set_false_path -quiet -to [get_pins -quiet "$inst/sync1_reg_reg\[*\]/D"]
    set_false_path -quiet -to [get_pins -quiet "$inst/sync1_reg_reg/D"]
}

foreach inst [tsnic_cells_of tsnic_td_sink] {
    set cap [get_cells -quiet "$inst/cap_*_reg*"]
    set sync [get_cells -quiet [list "$inst/sync1_reg_reg" "$inst/neg1_reg_reg"]]
    set p [tsnic_min_period $cap]
    if {$p == 0} { continue }
    foreach src [tsnic_cells_of tsnic_td_source] {
        set td [get_cells -quiet "$src/td_*_reg*"]
        set_max_delay -quiet -datapath_only -from $td -to [concat $cap $sync] $p
    }
}
