# Front door of the rig. Everything it builds goes to build/ and results/.
#
#   make compare   build stock and patched 7.3, boot both at $(CPUS) vCPUs
#                  and print the table of bytes, buffer, vmalloc, read time;
#                  stock against stock at $(AA_CPUS) for the timing's noise;
#                  CSV and plot in results/compare/
#   make check     the tests of CI; ends with the table of its stages'
#                  wall and CPU times and "N passed, N failed, N skipped"
#   make check-full  make check, the debug kernel (KASAN, lockdep,
#                  kmemleak) and the cross-built arm64 kernels
#   make check-big the check and parsers suites of both kernels at
#                  $(BIG_CPUS) vCPUs (above 255: q35, x2APIC, intel-iommu)
#
# Kernel sources: Debian's linux-source-7.3 from trixie-backports, fetched
# into build/debian by `make deps`, which also installs
# what is missing (as root). Read times: CLOCK=icount (deterministic
# instruction clock, single-threaded TCG), host (multi-threaded TCG, host
# clock) or auto: icount up to 64 vCPUs, host above (too slow to boot).

CPUS ?= 8 64
AA_CPUS ?= 8
export AA_CPUS
CLOCK ?= auto
export CLOCK
CHECK_CPUS ?= 1 8 64 255
TIMING_CPUS ?= 1 8 64
CHURN_CPUS ?= 64
BIG_CPUS ?= 512
export CHECK_CPUS TIMING_CPUS CHURN_CPUS

# ARCH: x86_64 (the host's own, default), arm64, riscv64, ppc64le, arm or
# mips64el (scripts/arch.sh): cross-built with Debian's compilers into
# build/ARCH, booted in QEMU, results in results/ARCH. The kernel's own
# ARCH= is set by the scripts, so this one is not passed on.
ARCH ?= x86_64
RIG_ARCH := $(ARCH)
export RIG_ARCH
unexport ARCH
MAKEOVERRIDES :=
ifeq ($(RIG_ARCH),x86_64)
B := build
else
B := build/$(RIG_ARCH)
export BUILD := $(CURDIR)/$(B)
export RESULTS := $(CURDIR)/results/$(RIG_ARCH)
endif
FRAGMENTS := config/base.config config/$(RIG_ARCH).config

.PHONY: all deps src kernels debug-kernel initramfs compare stages-start check check-full check-big x86-rows profile export-patches checkpatch build-series clean

all: compare

deps:
	@scripts/stage.sh deps scripts/deps.sh

src: deps
	@BUILD=$(CURDIR)/build scripts/stage.sh "extract and patch sources" scripts/prepare-src.sh
	@[ $(B) = build ] || { mkdir -p $(B) && ln -sfn ../src $(B)/src; }

kernels: src
	@scripts/stage.sh "build stock kernel ($(RIG_ARCH))" scripts/build-kernel.sh $(B)/src/stock $(B)/stock $(FRAGMENTS)
	@scripts/stage.sh "build patched kernel ($(RIG_ARCH))" scripts/build-kernel.sh --seed $(B)/stock $(B)/src/patched $(B)/patched $(FRAGMENTS) config/patched.config

# The patched kernel again with KASAN, lockdep and kmemleak, for make
# check-full.
debug-kernel: src
	@scripts/stage.sh "build debug kernel ($(RIG_ARCH))" scripts/build-kernel.sh $(B)/src/patched $(B)/debug $(FRAGMENTS) config/patched.config config/debug.config

# It carries the test module of every kernel built so far, so it comes
# after the kernels in the prerequisites below (made in order).
initramfs: src
	@scripts/stage.sh "initramfs ($(RIG_ARCH))" scripts/mkinitramfs.sh $(B)/initramfs.cpio.gz

compare: kernels initramfs
	@scripts/compare.sh $(CPUS)

# make check: the tests of CI, on stock and patched. make check-full
# adds the debug kernel (KASAN, lockdep, kmemleak: the rig names each of
# their reports, and none under churn) and, on x86_64, the kernels of
# CHECK_ARCHS (arm64), cross-built, for check.sh's cross part. Both end
# with the table of every stage's wall and CPU time (results/stages.tsv,
# begun anew by stages-start, which must come first).
CHECK_ARCHS ?= arm64
export CHECK_ARCHS
export STAGES := $(CURDIR)/results/stages.tsv
stages-start:
	@mkdir -p results && : > $(STAGES)

check: stages-start kernels initramfs
	@scripts/check.sh

ifeq ($(RIG_ARCH),x86_64)
check-full: stages-start kernels debug-kernel initramfs
	@for a in $(CHECK_ARCHS); do $(MAKE) --no-print-directory kernels initramfs ARCH=$$a || exit 1; done
	@CHECK_PARTS="series rig text churn timing debug cross" scripts/check.sh
else
check-full: check
endif

# The machines of the 2003 report and up: a 512-vCPU pair takes about half
# an hour here (README, "Beyond 255 vCPUs"), more than make check's CI
# budget leaves, so it has its own target. Text of stock against patched,
# the one-page bound, vmalloc() on a fragmented machine.
check-big: kernels initramfs
	@RESULTS=$(CURDIR)/results/big CHECK_PARTS=text CHECK_CPUS="$(BIG_CPUS)" scripts/check.sh

# The rows of /proc/interrupts behind x86 options that the rig's kernels
# leave out (MCE, Hyper-V, KVM, posted MSI; config/x86-rows.config): stock
# and patched built again with them in build/x86-rows, booted with the
# check and parsers suites at 8 and 64 vCPUs, their text compared.
X86_ROWS := $(CURDIR)/$(B)/x86-rows
x86-rows: src
	@scripts/stage.sh "build stock kernel with the x86 rows" scripts/build-kernel.sh $(B)/src/stock $(X86_ROWS)/stock $(FRAGMENTS) config/x86-rows.config
	@scripts/stage.sh "build patched kernel with the x86 rows" scripts/build-kernel.sh --seed $(X86_ROWS)/stock $(B)/src/patched $(X86_ROWS)/patched $(FRAGMENTS) config/patched.config config/x86-rows.config
	@ln -sfn ../src $(X86_ROWS)/src
	@BUILD=$(X86_ROWS) scripts/stage.sh "initramfs with the x86 rows" scripts/mkinitramfs.sh $(X86_ROWS)/initramfs.cpio.gz
	@BUILD=$(X86_ROWS) RESULTS=$(CURDIR)/results/x86-rows CHECK_PARTS=text CHECK_CPUS="8 64" scripts/check.sh

# Where the instructions of a read go: stock and patched built again with
# the function profiler (config/profile.config) in build/profile, booted
# under -icount at $(PROFILE_CPUS) vCPUs with the profile suite.
PROFILE_CPUS ?= 64
export PROFILE_CPUS
PROFILE := $(CURDIR)/$(B)/profile
profile: src
	@scripts/stage.sh "build stock kernel with the function profiler" scripts/build-kernel.sh $(B)/src/stock $(PROFILE)/stock $(FRAGMENTS) config/profile.config
	@scripts/stage.sh "build patched kernel with the function profiler" scripts/build-kernel.sh --seed $(PROFILE)/stock $(B)/src/patched $(PROFILE)/patched $(FRAGMENTS) config/patched.config config/profile.config
	@ln -sfn ../src $(PROFILE)/src
	@BUILD=$(PROFILE) scripts/stage.sh "initramfs for the profile" scripts/mkinitramfs.sh $(PROFILE)/initramfs.cpio.gz
	@BUILD=$(PROFILE) scripts/stage.sh profile scripts/profile.sh

# The maintainer loop: commit in build/src/patched, then turn the commits
# since "base" back into patches/ and the series.
export-patches:
	@scripts/export-patches.sh

checkpatch: src
	@scripts/checkpatch.sh

# Every prefix of the series compiles (-Werror), links and boots, with
# CONFIG_SMP=y and =n; on another architecture SMP only, compiled and
# linked, not booted (SERIES_BOOT=y boots them: make initramfs ARCH=...).
ifeq ($(RIG_ARCH),x86_64)
build-series: kernels initramfs
	@scripts/stage.sh "build and boot every prefix of the series" scripts/build-series.sh
else
build-series: src
	@scripts/stage.sh "build every prefix of the series" scripts/build-series.sh
endif

clean:
	rm -rf $(B) results
