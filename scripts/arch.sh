# arch.sh: what differs between the architectures the rig builds and
# boots, sourced by the host scripts. RIG_ARCH (make ARCH=...) is one of
#   x86_64   the host's own: build/, results/
#   arm64    QEMU virt, GICv3 (ITS for MSI-X), PL011 console
#   riscv64  QEMU virt, AIA (APLIC and IMSIC for MSI-X), 16550 console
#   ppc64le  QEMU pseries, XIVE, hvc console
#   arm      32-bit: QEMU virt, GICv2 and v2m, PL011 console (KUnit and
#            text: arm's NR_CPUS of 32 keeps its rows one small record)
#   mips64el QEMU loongson3-virt (Loongson-3A4000, up to 16 vCPUs), 16550
#            console (KUnit and text: mips prints no per-CPU row of its own)
# Cross builds and their results go to build/ARCH and results/ARCH.
#   karch, cross     the kernel's ARCH= and CROSS_COMPILE=
#   kimage           the image QEMU boots, in the kernel's build folder
#   qemu             QEMU's binary
#   debarch, suite   Debian's name and release for busybox-static of the
#                    architecture (riscv64 is a release architecture
#                    from trixie on)
#   klog             the guest's device for the whole kernel log
#   max_cpus         the most vCPUs that come up whole here: make check and
#                    make compare lower larger counts to it (lib.sh)

rig_arch=${RIG_ARCH:-x86_64}
suite=bookworm max_cpus=4096
case $rig_arch in
x86_64)
	karch=x86 cross= kimage=vmlinux qemu=qemu-system-x86_64
	debarch=amd64 klog=/dev/ttyS1 ;;	# q35 with x2APIC: 4096 vCPUs
arm64)
	karch=arm64 cross=aarch64-linux-gnu- kimage=arch/arm64/boot/Image
	qemu=qemu-system-aarch64 debarch=arm64 klog=/dev/hvc0
	max_cpus=256 ;;	# virt with GICv3 takes 512; 512 not booted in 20 min
riscv64)
	karch=riscv cross=riscv64-linux-gnu- kimage=arch/riscv/boot/Image
	qemu=qemu-system-riscv64 debarch=riscv64 suite=trixie klog=/dev/hvc0
	max_cpus=32 ;;	# above, the last harts fail to come online (README)
ppc64le)
	karch=powerpc cross=powerpc64le-linux-gnu- kimage=vmlinux
	qemu=qemu-system-ppc64 debarch=ppc64el klog=/dev/hvc1
	max_cpus=384 ;;	# pseries takes 4096; 512 not booted in 34 min
arm)
	karch=arm cross=arm-linux-gnueabihf- kimage=arch/arm/boot/zImage
	qemu=qemu-system-arm debarch=armhf klog=/dev/hvc0
	max_cpus=8 ;;	# GICv2
mips64el)
	karch=mips cross=mips64el-linux-gnuabi64- kimage=vmlinux
	qemu=qemu-system-mips64el debarch=mips64el klog=/dev/hvc0
	max_cpus=1 ;;	# with 2 or 4, 6.12 stopped early in boot (docs/architectures.md)
*)
	echo "unknown ARCH=$rig_arch (x86_64, arm64, riscv64, ppc64le, arm or mips64el)" >&2
	exit 2 ;;
esac
