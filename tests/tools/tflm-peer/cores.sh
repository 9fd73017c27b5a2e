# The cores the peer is built for: TFLM's make target for each, the compiler flags of TFLM's own
# target file (so the harness links with the library it built), and the QEMU board with its memory
# map (the boards our firmware tests run on). Sourced by setup.sh and run.sh: `peer_core CORE`.
peer_core() {
  PREFIX=arm-none-eabi- QEMU=qemu-system-arm KERNELS=cmsis_nn STARTUP=startup_arm.c SECTIONS=sections_arm.ld
  VEC_ORIGIN= ARENA_SIZE_DEFAULT=1572864
  case $1 in
    m4)  MAKE_TARGET=cortex_m_generic TARGET_ARCH=cortex-m4+fp
         ARCH="-mcpu=cortex-m4 -mfpu=fpv4-sp-d16 -mfloat-abi=hard -mthumb"
         MACHINE=mps2-an386 CODE_ORIGIN=0x00000000 RAM_ORIGIN=0x20000000 RAM_LENGTH=4M ;;
    m3)  MAKE_TARGET=cortex_m_generic TARGET_ARCH=cortex-m3
         ARCH="-mcpu=cortex-m3 -mfloat-abi=soft -mthumb"
         MACHINE=mps2-an385 CODE_ORIGIN=0x00000000 RAM_ORIGIN=0x20000000 RAM_LENGTH=4M ;;
    # Armv6-M code on the M3 board: the micro:bit our M0 firmware runs on holds neither TFLM's
    # interpreter nor these models, and an instruction count does not depend on the board.
    m0)  MAKE_TARGET=cortex_m_generic TARGET_ARCH=cortex-m0plus
         ARCH="-mcpu=cortex-m0plus -mfloat-abi=soft -mthumb"
         MACHINE=mps2-an385 CODE_ORIGIN=0x00000000 RAM_ORIGIN=0x20000000 RAM_LENGTH=4M ;;
    m7)  MAKE_TARGET=cortex_m_generic TARGET_ARCH=cortex-m7+fp
         ARCH="-mcpu=cortex-m7 -mfpu=auto -mfloat-abi=hard -mthumb"
         MACHINE=mps2-an500 CODE_ORIGIN=0x00000000 RAM_ORIGIN=0x20000000 RAM_LENGTH=4M ;;
    # Secure aliases: the an505 and an547 start in the Secure state.
    m33) MAKE_TARGET=cortex_m_generic TARGET_ARCH=cortex-m33
         ARCH="-mcpu=cortex-m33 -mfpu=auto -mfloat-abi=hard -mthumb"
         MACHINE=mps2-an505 CODE_ORIGIN=0x10000000 RAM_ORIGIN=0x38000000 RAM_LENGTH=4M ;;
    # The M55 with Helium (CMSIS-NN's MVE kernels): the vector table in the ITCM at 0, where the
    # core fetches it, code in the 4 MB SRAM, data in the 512 KB DTCM.
    m55) MAKE_TARGET=cortex_m_generic TARGET_ARCH=cortex-m55
         ARCH="-mcpu=cortex-m55 -mfpu=auto -mfloat-abi=hard -mthumb"
         MACHINE=mps3-an547 VEC_ORIGIN=0x00000000 CODE_ORIGIN=0x21000000 RAM_ORIGIN=0x20000000 RAM_LENGTH=512K
         ARENA_SIZE_DEFAULT=393216 ;;
    # TFLM's reference kernels (CMSIS-NN is Arm only), built by Debian's bare-metal RISC-V gcc with
    # picolibc's C headers and the header-only parts of the arm-none-eabi libstdc++ headers (no
    # RISC-V C++ library is packaged; TFLM needs only its templates).
    rv32) MAKE_TARGET=riscv32_generic TARGET_ARCH=riscv32 KERNELS=
         PREFIX=riscv64-unknown-elf- QEMU=qemu-system-riscv32 STARTUP=startup_rv32.c SECTIONS=sections_rv32.ld
         ARCH="-march=rv32imc -mabi=ilp32 -mcmodel=medany --specs=picolibc.specs"
         MACHINE=virt CODE_ORIGIN=0x80000000 RAM_ORIGIN=0x80400000 RAM_LENGTH=4M ;;
    *) echo "unknown core '$1' (m0 m3 m4 m7 m33 m55 rv32)" >&2; return 1 ;;
  esac
  CXX_STD_INCLUDES=
  if [ "$1" = rv32 ]; then
    local v; v=$(ls /usr/include/newlib/c++ 2>/dev/null | head -1)
    [ -n "$v" ] || { echo "rv32 needs libstdc++-arm-none-eabi-newlib's headers" >&2; return 1; }
    CXX_STD_INCLUDES="-isystem /usr/include/newlib/c++/$v -isystem /usr/include/newlib/c++/$v/arm-none-eabi"
  fi
}
