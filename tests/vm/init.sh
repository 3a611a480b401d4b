#!/bin/busybox sh
# The init of the VM of `make test-vm` (tests/vm/run.sh packs it as /init). Each check prints
# `ok <what>` or `FAIL <what>: <why>` on the console; `TSNIC-VM-DONE` marks the end.
/bin/busybox --install -s /bin
export PATH=/bin
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev

ok() { echo "ok   $*"; }
fail() { echo "FAIL $*"; }
MODE=main
for w in $(cat /proc/cmdline); do case $w in tsnic_vm=*) MODE=${w#tsnic_vm=} ;; esac; done
finish() {
  echo "TSNIC-VM-DONE $MODE"
  sync
  poweroff -f
}

# expect_err WHAT TEXT CMD...: CMD must fail and say TEXT.
expect_err() {
  what=$1 text=$2
  shift 2
  out=$("$@" 2>&1) && { fail "$what: \`$*\` succeeded: $out"; return 1; }
  case $out in
    *"$text"*) ok "$what: $out" ;;
    *) fail "$what: \`$*\` said: $out (wanted: $text)"; return 1 ;;
  esac
}

driver_of() { d=$(readlink "/sys/bus/pci/devices/$1/driver" 2>/dev/null) && echo "${d##*/}" || echo none; }
group_of() { g=$(readlink "/sys/bus/pci/devices/$1/iommu_group" 2>/dev/null) && echo "${g##*/}" || echo none; }
bind_vfio() {
  echo vfio-pci > "/sys/bus/pci/devices/$1/driver_override"
  echo "$1" > /sys/bus/pci/drivers_probe
}

# ---- modules, in dependency order (the .deb has no modules.dep) ----
for m in vfio vfio_iommu_type1 vfio_virqfd irqbypass vfio-pci-core vfio-pci; do
  err=$(insmod "/lib/modules/$m.ko" 2>&1) || { fail "insmod $m: $err"; finish; }
done
[ -c /dev/vfio/vfio ] && ok "vfio modules loaded, /dev/vfio/vfio present" || { fail "no /dev/vfio/vfio"; finish; }

# ---- find the devices ----
EDU= EDU2= EDU3= SERIAL=
ids() { echo "$(cat "/sys/bus/pci/devices/$1/vendor"):$(cat "/sys/bus/pci/devices/$1/device")"; }
for d in /sys/bus/pci/devices/*; do [ "$(ids "${d##*/}")" = 0x1b36:0x0002 ] && SERIAL=${d##*/}; done
bus_of() { echo "${1%:*}"; }
for d in /sys/bus/pci/devices/*; do
  a=${d##*/}
  [ "$(ids "$a")" = 0x1234:0x11e8 ] || continue
  case $a in
    0000:00:*) EDU=$a ;;                                          # on the root complex
    *) if [ "$(bus_of "$a")" = "$(bus_of "$SERIAL")" ]; then EDU2=$a; else EDU3=$a; fi ;;
  esac
done
if [ "$MODE" = noiommu ]; then
  # ---- error path: no IOMMU (this boot has no intel-iommu device) ----
  [ -n "$EDU" ] && [ "$(group_of "$EDU")" = none ] && ok "without an IOMMU edu at $EDU has no IOMMU group" \
    || fail "noiommu boot: edu ($EDU) not found or it has an IOMMU group"
  expect_err "no IOMMU group: the error names the fix" \
    "PCI device $EDU has no IOMMU group: the IOMMU is off; enable VT-d/AMD-Vi in the firmware and boot with intel_iommu=on" \
    tsnic info --backend "vfio:$EDU"
  finish
fi
[ -n "$EDU" ] && [ "$(group_of "$EDU")" != none ] \
  && ok "edu at $EDU in IOMMU group $(group_of "$EDU")" \
  || { fail "edu device or its IOMMU group not found (is intel_iommu=on?)"; finish; }

# ---- error path: not bound to vfio-pci ----
expect_err "unbound device: the error names the binding fix" \
  "not bound to vfio-pci (driver: none): run \`echo $EDU > /sys/bus/pci/devices/$EDU/driver/unbind; echo vfio-pci > /sys/bus/pci/devices/$EDU/driver_override" \
  tsnic info --backend "vfio:$EDU"

bind_vfio "$EDU"
[ "$(driver_of "$EDU")" = vfio-pci ] && ok "edu bound to vfio-pci" || fail "binding $EDU to vfio-pci: driver is $(driver_of "$EDU")"

# ---- the tsnic CLI on a device that is not a tsnic card ----
expect_err "tsnic info on edu: not a tsnic card, with its identity" \
  "is not a tsnic card (identity: PCI 1234:11e8, BAR0 word 0 reads 0x010000ed" \
  tsnic info --backend "vfio:$EDU"

# ---- the generic VFIO layer on edu: DMA, interrupts, bus mastering, BAR0 ----
# has_reset ADDR: yes if the kernel lists a reset method for the device (what VFIO_DEVICE_RESET uses).
has_reset() { [ -s "/sys/bus/pci/devices/$1/reset_method" ] && echo yes || echo no; }
R=$(has_reset "$EDU")
if [ "$(cat /bench)" = 1 ]; then vfio_edu "$EDU" --reset "$R" --bench; else vfio_edu "$EDU" --reset "$R"; fi
rc=$?
[ $rc = 0 ] && ok "vfio_edu $EDU (reset method: $R) exited 0" || fail "vfio_edu $EDU exited $rc"

# ---- a third edu alone behind its own bridge: the kernel can reset it (secondary bus reset) ----
if [ -n "$EDU3" ]; then
  bind_vfio "$EDU3"
  R=$(has_reset "$EDU3")
  [ "$R" = yes ] && ok "edu at $EDU3 has a reset method ($(cat "/sys/bus/pci/devices/$EDU3/reset_method"))" \
    || fail "edu at $EDU3 alone behind a bridge lists no reset method"
  vfio_edu "$EDU3" --reset "$R" > /tmp/edu3.log
  rc=$?
  # Its checks count too, tagged with its address.
  sed "s/^\(ok  \|FAIL\) /\1 [$EDU3] /" /tmp/edu3.log
  [ $rc = 0 ] && ok "vfio_edu $EDU3 (reset method: $R) exited 0" || fail "vfio_edu $EDU3 exited $rc"
else
  fail "third edu (alone behind a bridge) not found"
fi

# ---- error path: IOMMU group not viable (edu2 shares a group with a serial card bound to `serial`) ----
if [ -n "$EDU2" ] && [ -n "$SERIAL" ] && [ "$(group_of "$EDU2")" = "$(group_of "$SERIAL")" ]; then
  G=$(group_of "$EDU2")
  bind_vfio "$EDU2"
  if [ "$(driver_of "$SERIAL")" = none ]; then
    fail "the serial card in group $G has no driver: cannot make the group non-viable"
  else
    expect_err "group not viable (serial card bound to $(driver_of "$SERIAL")): the error names the fix" \
      "IOMMU group $G is not viable: every device in /sys/kernel/iommu_groups/$G/devices must be bound to vfio-pci (or have no driver)" \
      tsnic info --backend "vfio:$EDU2"
    # The fix the message names: release the other device; then the group opens.
    echo "$SERIAL" > "/sys/bus/pci/devices/$SERIAL/driver/unbind"
    expect_err "after unbinding the serial card the group opens (edu2 is then refused as not a tsnic card)" \
      "is not a tsnic card" tsnic info --backend "vfio:$EDU2"
  fi
else
  fail "second edu ($EDU2) and serial card ($SERIAL) not found in one IOMMU group"
fi

# ---- error path: no such device ----
expect_err "no such device: the error names lspci" "check the address with \`lspci -D\`" \
  tsnic info --backend vfio:0000:00:1f.7

finish
