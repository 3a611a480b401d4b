#!/usr/bin/env bash
# make test-vm: the vfio backend against a real kernel.
#
# Boots Debian's kernel (linux-image-amd64, downloaded with `apt-get download` and unpacked into
# target/vm, never installed on this machine) in qemu-system-x86_64 -M q35 with an emulated Intel IOMMU
# and QEMU's `edu` PCI device, from an initramfs built here (busybox-static, the vfio modules, the
# `tsnic` CLI and the `vfio_edu` test program of the driver's generic VFIO layer). The guest's init
# (tests/vm/init.sh) binds edu to vfio-pci and runs the checks; each prints `ok ...` or `FAIL ...`.
#
#   tests/vm/run.sh [--bench] [--kvm]
#     --bench   also print the emulated figures (interrupt-to-wakeup latency, BAR0 read/write cost)
#     --kvm     use KVM instead of TCG (/dev/kvm here is a slow software virtualisation: its guest did
#               not reach init within 150 s on 2026-12-01, so TCG is the default)
#   TSNIC_VM_TIMEOUT   seconds (build included) before the VMs are killed (default 150)
#
# Last line: `test-vm: N passed, M failed`. Exit status non-zero on any failure, a missing result, a
# pass count other than EXPECTED_CHECKS (below), or a
# timeout. Leaves nothing behind: the per-run directory and the VM process go in the EXIT trap; the
# downloaded kernel and the release build stay under target/ as cached build artefacts.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
CACHE=$ROOT/target/vm
ACCEL=tcg
BENCH=0
TIMEOUT=${TSNIC_VM_TIMEOUT:-150}
for a in "$@"; do
  case $a in
    --bench) BENCH=1 ;;
    --kvm) ACCEL=kvm ;;
    -h|--help) sed -n '2,18p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "test-vm: unknown argument $a (see --help)" >&2; exit 2 ;;
  esac
done

for tool in qemu-system-x86_64 busybox apt-get dpkg-deb; do
  command -v "$tool" >/dev/null || { echo "test-vm: $tool is missing: run \`make apt-deps\` (installs qemu-system-x86 and busybox-static)" >&2; exit 1; }
done

START=$(date +%s)
mkdir -p "$CACHE"
WORK=$(mktemp -d "$CACHE/run.XXXXXX")
QEMU_PID=
cleanup() {
  if [ -n "$QEMU_PID" ] && kill -0 "$QEMU_PID" 2>/dev/null; then
    kill "$QEMU_PID" 2>/dev/null || true
    wait "$QEMU_PID" 2>/dev/null || true
  fi
  rm -rf "$WORK"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# ---- 1. Debian's kernel and the vfio modules (cached in target/vm/kernel) ---------------------------
KDIR=$CACHE/kernel
if [ ! -f "$KDIR/vmlinuz" ]; then
  echo "test-vm: downloading Debian's linux-image-amd64 (once; unpacked into $KDIR, not installed)"
  DEB=$WORK/deb
  mkdir -p "$DEB"
  # apt-get download writes as the _apt user when it can; a root-owned dir makes it fall back quietly.
  (cd "$DEB" && apt-get download -q linux-image-amd64 2>&1 | grep -v '^W: Download is performed unsandboxed' || true)
  META=$(ls "$DEB"/linux-image-amd64_*.deb 2>/dev/null | head -1)
  [ -n "$META" ] || { echo "test-vm: apt-get download linux-image-amd64 failed: run \`apt-get update\` and retry" >&2; exit 1; }
  # The metapackage depends on the versioned image package, e.g. linux-image-6.1.0-57-amd64.
  IMG=$(dpkg-deb -f "$META" Depends | tr ',' '\n' | sed -n 's/^ *\(linux-image-[0-9][^ (]*\).*/\1/p' | head -1)
  [ -n "$IMG" ] || { echo "test-vm: cannot find the kernel package linux-image-amd64 depends on" >&2; exit 1; }
  (cd "$DEB" && apt-get download -q "$IMG" 2>&1 | grep -v '^W: Download is performed unsandboxed' || true)
  PKG=$(ls "$DEB/${IMG}"_*.deb | head -1)
  X=$WORK/x
  mkdir -p "$X"
  dpkg-deb --fsys-tarfile "$PKG" | tar -x -C "$X" --wildcards \
    './boot/vmlinuz-*' './lib/modules/*/kernel/drivers/vfio/*' './lib/modules/*/kernel/virt/lib/irqbypass.ko*'
  rm -rf "$KDIR.tmp" && mkdir -p "$KDIR.tmp/modules"
  cp "$X"/boot/vmlinuz-* "$KDIR.tmp/vmlinuz"
  find "$X/lib/modules" -name '*.ko*' -exec cp {} "$KDIR.tmp/modules/" \;
  echo "$IMG $(dpkg-deb -f "$PKG" Version)" > "$KDIR.tmp/VERSION"
  rm -rf "$KDIR" && mv "$KDIR.tmp" "$KDIR"
fi
for m in vfio vfio_iommu_type1 vfio_virqfd irqbypass vfio-pci-core vfio-pci; do
  [ -f "$KDIR/modules/$m.ko" ] || { echo "test-vm: module $m.ko missing from $KDIR/modules (the kernel package changed? rm -r $KDIR and retry)" >&2; exit 1; }
done

# ---- 2. The programs (built without the simulator: no Verilator needed) ----------------------------
# The checks use the debug build `make test-rust` already made (cli_driver); the figures (--bench) a
# release build, so they measure the access and not unoptimised code around it.
if [ "$BENCH" = 1 ]; then PROFILE=(--release); BIN=$ROOT/target/release; else PROFILE=(); BIN=$ROOT/target/debug; fi
echo "test-vm: building tsnic and vfio_edu (${PROFILE[*]:-debug}, --no-default-features)"
cargo build -q "${PROFILE[@]}" --locked -p tsnic --no-default-features --bin tsnic --example vfio_edu \
  --manifest-path "$ROOT/Cargo.toml"

# ---- 3. The initramfs ---------------------------------------------------------------------------
R=$WORK/root
mkdir -p "$R"/{bin,dev,proc,sys,tmp,lib/modules,lib64}
cp "$(command -v busybox)" "$R/bin/busybox"
cp "$ROOT/tests/vm/init.sh" "$R/init"
chmod 755 "$R/init"
cp "$KDIR"/modules/*.ko "$R/lib/modules/"
for b in tsnic examples/vfio_edu; do
  strip -o "$R/bin/$(basename "$b")" "$BIN/$b" 2>/dev/null || cp "$BIN/$b" "$R/bin/"
  # The shared libraries the binary needs, at the paths the loader looks for them.
  for lib in $(ldd "$BIN/$b" | grep -o '/[^ ]*'); do
    mkdir -p "$R$(dirname "$lib")"
    cp -L "$lib" "$R$lib"
  done
done
echo "$BENCH" > "$R/bench"
(cd "$R" && find . | busybox cpio -o -H newc 2>/dev/null | gzip -1) > "$WORK/initrd.gz"

# ---- 4. The VMs -------------------------------------------------------------------------------------
# Boot 1 (`main`): edu at 00:0a.0 on the root complex (the main checks); behind a PCIe-to-PCI bridge a
# second edu shares an IOMMU group with a PCI serial card that the kernel's 8250_pci driver claims (the
# not-viable check); a third edu alone behind another bridge, which the kernel can reset (secondary
# bus reset), for VFIO_DEVICE_RESET. Boot 2 (`noiommu`): the same machine without the IOMMU (the no-IOMMU-group check).
case $ACCEL in
  tcg) MACHINE=(-M q35 -accel tcg -cpu max) ;;
  # This host's KVM refuses the ARCH_CAPABILITIES MSR that -cpu host passes through: leave it out.
  kvm) MACHINE=(-M q35,kernel-irqchip=split -accel kvm -cpu host,-arch-capabilities) ;;
esac
CONSOLE=$WORK/console.log
: > "$CONSOLE"
TIMED_OUT=0
DEADLINE=$((START + TIMEOUT))
boot() { # boot NAME KERNEL-ARGS QEMU-ARGS...
  local name=$1 args=$2
  shift 2
  : > "$WORK/console-$name.log"
  : > "$WORK/qemu-$name.err"
  qemu-system-x86_64 "${MACHINE[@]}" -m 512M -smp 1 -nodefaults -no-user-config -display none \
    "$@" \
    -device edu,bus=pcie.0,addr=0x0a \
    -device pcie-pci-bridge,id=br0,bus=pcie.0,addr=0x0b \
    -device edu,bus=br0,addr=0x01 \
    -device pci-serial,bus=br0,addr=0x02 \
    -device pcie-pci-bridge,id=br1,bus=pcie.0,addr=0x0c \
    -device edu,bus=br1,addr=0x01 \
    -kernel "$KDIR/vmlinuz" -initrd "$WORK/initrd.gz" \
    -append "console=ttyS0 quiet loglevel=3 panic=-1 tsnic_vm=$name $args" \
    -serial "file:$WORK/console-$name.log" -no-reboot 2>"$WORK/qemu-$name.err" &
  QEMU_PID=$!
  while kill -0 "$QEMU_PID" 2>/dev/null && [ "$(date +%s)" -lt "$DEADLINE" ]; do
    sleep 0.1
  done
  if kill -0 "$QEMU_PID" 2>/dev/null; then
    TIMED_OUT=1
    kill "$QEMU_PID" 2>/dev/null || true
  fi
  wait "$QEMU_PID" 2>/dev/null || true
  QEMU_PID=
  tr -d '\r' < "$WORK/console-$name.log" >> "$CONSOLE"
  if [ "$TIMED_OUT" = 0 ] && ! grep -q "^TSNIC-VM-DONE $name" "$WORK/console-$name.log"; then
    echo "FAIL the $name guest stopped before finishing its checks; QEMU said: $(head -c 2000 "$WORK/qemu-$name.err" | head -3)" >> "$CONSOLE"
    echo "console tail of the $name guest:"
    tail -20 "$WORK/console-$name.log"
  fi
}
boot main "intel_iommu=on" -device intel-iommu,intremap=on
[ "$TIMED_OUT" = 0 ] && boot noiommu ""

# ---- 5. The verdict --------------------------------------------------------------------------------
grep -E '^(ok |FAIL|bench|vfio-edu:)' "$CONSOLE" || true
PASSED=$(grep -c '^ok ' "$CONSOLE" || true)
FAILED=$(grep -c '^FAIL' "$CONSOLE" || true)
ELAPSED=$(($(date +%s) - START))
if [ "$TIMED_OUT" = 1 ]; then
  echo "FAIL the VMs did not finish within ${TIMEOUT} s (TSNIC_VM_TIMEOUT); console tail:"
  tail -20 "$CONSOLE"
  FAILED=$((FAILED + 1))
fi
# The number of checks is pinned: a guest that skipped a check (or a check that stopped printing `ok`)
# must not pass on the others. Adding or removing a check in init.sh or examples/vfio_edu.rs means
# updating this number in the same commit.
EXPECTED_CHECKS=58
if [ "$TIMED_OUT" = 0 ] && [ "$FAILED" = 0 ] && [ "$PASSED" != "$EXPECTED_CHECKS" ]; then
  echo "FAIL $PASSED checks passed where $EXPECTED_CHECKS are expected: a check was skipped, or one was added or removed without updating EXPECTED_CHECKS in tests/vm/run.sh"
  FAILED=$((FAILED + 1))
fi
echo "test-vm: $PASSED passed, $FAILED failed (${ELAPSED} s, $ACCEL)"
[ "$FAILED" = 0 ] && [ "$PASSED" = "$EXPECTED_CHECKS" ]
