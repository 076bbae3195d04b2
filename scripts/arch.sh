# arch.sh: what differs between the architectures the rig builds and
# boots, sourced by the host scripts. RIG_ARCH (make ARCH=...) is one of
#   x86_64   the host's own: build/, results/
#   arm64    QEMU virt, GICv3 (ITS for MSI-X), PL011 console
#   riscv64  QEMU virt, AIA (APLIC and IMSIC for MSI-X), 16550 console
#   ppc64le  QEMU pseries, XIVE, hvc console
#   arm      32-bit: QEMU virt, GICv2 and v2m, PL011 console (KUnit and
#            text: arm's NR_CPUS of 32 keeps its rows one small record)
# Cross builds and their results go to build/ARCH and results/ARCH.
#   karch, cross     the kernel's ARCH= and CROSS_COMPILE=
#   kimage           the image QEMU boots, in the kernel's build folder
#   qemu             QEMU's binary
#   debarch, suite   Debian's name and release for busybox-static of the
#                    architecture (riscv64 is a release architecture
#                    from trixie on)
#   klog             the guest's device for the whole kernel log
#   known_warn       the message of a warning that 6.12 gives there under
#                    the rig, stock and patched alike: boots go on after a
#                    warning (panic_on_warn=0), boot.sh counts this one and
#                    fails on any other (README, "Other architectures")

rig_arch=${RIG_ARCH:-x86_64}
suite=bookworm known_warn=
case $rig_arch in
x86_64)
	karch=x86 cross= kimage=vmlinux qemu=qemu-system-x86_64
	debarch=amd64 klog=/dev/ttyS1 ;;
arm64)
	karch=arm64 cross=aarch64-linux-gnu- kimage=arch/arm64/boot/Image
	qemu=qemu-system-aarch64 debarch=arm64 klog=/dev/hvc0
	known_warn='Dying CPU not properly vacated!' ;;
riscv64)
	karch=riscv cross=riscv64-linux-gnu- kimage=arch/riscv/boot/Image
	qemu=qemu-system-riscv64 debarch=riscv64 suite=trixie klog=/dev/hvc0
	known_warn='Dying CPU not properly vacated!' ;;
ppc64le)
	karch=powerpc cross=powerpc64le-linux-gnu- kimage=vmlinux
	qemu=qemu-system-ppc64 debarch=ppc64el klog=/dev/hvc1 ;;
arm)
	karch=arm cross=arm-linux-gnueabihf- kimage=arch/arm/boot/zImage
	qemu=qemu-system-arm debarch=armhf klog=/dev/hvc0 ;;
*)
	echo "unknown ARCH=$rig_arch (x86_64, arm64, riscv64, ppc64le or arm)" >&2
	exit 2 ;;
esac
