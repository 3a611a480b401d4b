# Constraints of tsnic's clock-domain-crossing modules, applied to every instance found in the
# synthesized netlist (read with `read_xdc -unmanaged`, after the board XDC). What each module needs is
# in its header (hdl/rtl/tsnic_cdc_*.v, tsnic_td_*.v); in short:
#   - synchronizer flops carry ASYNC_REG (set in the RTL);
#   - tsnic_cdc_async_fifo: the Gray pointers reach the other side's first synchronizer within the
#     faster clock's period (set_max_delay -datapath_only), and so do LUT-RAM read paths mem -> m_data;
#   - tsnic_cdc_bus: the held word and the request/acknowledge toggles, one period of the capturing clock;
#   - tsnic_cdc_sync: a level, false path into the first flop;
#   - tsnic_td_sink: from tsnic_td_source's registers, one period of the sink's clock.
# A design without one of these modules gets no constraint for it, but within an instance every cell
# pattern below must match (tsnic_need): a pattern that matches nothing (a register renamed in the
# RTL, or by synthesis) would leave that crossing timed as a path between unrelated clocks, which
# build.tcl's timing check then refuses, naming the clocks but not the cause. So it stops here instead,
# naming the instance and the pattern. The registers that cross clocks anywhere in each board's core
# are listed, and checked to be inside these modules, by board/cdc_check.py (make test).

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
    set cells [get_cells -quiet -hierarchical -filter "ORIG_REF_NAME == $ref || REF_NAME == $ref"]
    puts "cdc.tcl: [llength $cells] instance(s) of $ref"
    return $cells
}

# the cells matching one or more patterns (the first that matches anything); an error if none does
proc tsnic_need {inst args} {
    foreach pat $args {
        set cells [get_cells -quiet $pat]
        if {[llength $cells] > 0} { return $cells }
    }
    error "cdc.tcl: in $inst no cell matches [join $args { or }]: its clock crossing would stay\
unconstrained (renamed register? see the module's header and board/common/vivado/cdc.tcl)"
}

# the smallest clock period of the cells; an error if no clock reaches them
proc tsnic_need_period {inst cells} {
    set p [tsnic_min_period $cells]
    if {$p == 0} {
        error "cdc.tcl: no clock reaches the crossing registers of $inst (unconstrained clock?)"
    }
    return $p
}

set tsnic_cdc_found 0

foreach inst [tsnic_cells_of tsnic_cdc_async_fifo] {
    incr tsnic_cdc_found
    set s_gray [tsnic_need $inst "$inst/s_gray_reg_reg\[*\]"]
    set m_gray [tsnic_need $inst "$inst/m_gray_reg_reg\[*\]"]
    set m_sync [tsnic_need $inst "$inst/m_wr_gray_sync1_reg_reg\[*\]"]
    set s_sync [tsnic_need $inst "$inst/s_rd_gray_sync1_reg_reg\[*\]"]
    set p [tsnic_need_period $inst [concat $s_gray $m_gray]]
    set_max_delay -datapath_only -from $s_gray -to $m_sync $p
    set_max_delay -datapath_only -from $m_gray -to $s_sync $p
    # LUT-RAM storage only (block RAM reads are clocked on the read side)
    set mem [get_cells -quiet -filter {PRIMITIVE_SUBGROUP == LUTRAM || PRIMITIVE_GROUP == DMEM} "$inst/mem_reg*"]
    if {[llength $mem] > 0} {
        set m_data [tsnic_need $inst "$inst/m_data_reg_reg\[*\]"]
        set_max_delay -datapath_only -from $mem -to $m_data $p
    }
}

foreach inst [tsnic_cells_of tsnic_cdc_bus] {
    incr tsnic_cdc_found
    set s_data [tsnic_need $inst "$inst/s_data_reg_reg\[*\]" "$inst/s_data_reg_reg"]
    set m_data [tsnic_need $inst "$inst/m_data_reg_reg\[*\]" "$inst/m_data_reg_reg"]
    set req [tsnic_need $inst "$inst/req_reg_reg"]
    set ack [tsnic_need $inst "$inst/ack_reg_reg"]
    set req_sync [tsnic_need $inst "$inst/req_sync1_reg_reg"]
    set ack_sync [tsnic_need $inst "$inst/ack_sync1_reg_reg"]
    set m_p [tsnic_need_period $inst $m_data]
    set s_p [tsnic_need_period $inst $s_data]
    set_max_delay -datapath_only -from $s_data -to $m_data $m_p
    set_max_delay -datapath_only -from $req -to $req_sync $m_p
    set_max_delay -datapath_only -from $ack -to $ack_sync $s_p
}

foreach inst [tsnic_cells_of tsnic_cdc_sync] {
    incr tsnic_cdc_found
    set sync1 [tsnic_need $inst "$inst/sync1_reg_reg\[*\]" "$inst/sync1_reg_reg"]
    set_false_path -to [get_pins -filter {REF_PIN_NAME == D} -of_objects $sync1]
}

# tsnic_td_sink: every path into it from tsnic_td_source's registers crosses (its header: td_toggle to
# sync1_reg/neg1_reg, the sample td_ns/td_fns/td_step/td_inc into the registers that capture it:
# s1_target_reg, s1_hard_reg, s1_step_reg, s1_dinc_reg, last_inc_reg, last_step_reg, as
# board/cdc_check.py lists them); no other path does. So all of the source's registers to all of the
# sink's, one period of the sink's clock: no register name to go stale.
foreach inst [tsnic_cells_of tsnic_td_sink] {
    incr tsnic_cdc_found
    tsnic_need $inst "$inst/sync1_reg_reg"
    tsnic_need $inst "$inst/neg1_reg_reg"
    set sink [get_cells -quiet -filter {IS_SEQUENTIAL} "$inst/*"]
    if {[llength $sink] == 0} { error "cdc.tcl: no registers in $inst" }
    set p [tsnic_need_period $inst $sink]
    foreach src [tsnic_cells_of tsnic_td_source] {
        set td [get_cells -quiet -filter {IS_SEQUENTIAL} "$src/*"]
        if {[llength $td] == 0} { error "cdc.tcl: no registers in $src" }
        set_max_delay -datapath_only -from $td -to $sink $p
    }
}

# every board's core crosses clocks (PCIe user clock and MAC clock): finding no crossing module at all
# means the lookup itself failed (hierarchy flattened away ORIG_REF_NAME?)
if {$tsnic_cdc_found == 0} {
    error "cdc.tcl: no instance of any tsnic CDC module found: no crossing would be constrained"
}
