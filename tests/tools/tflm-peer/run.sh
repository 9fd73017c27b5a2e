#!/bin/bash
# Usage: run.sh CORE MODEL.tflite [OPS]
#   CORE: m0 m3 m4 m7 m33 m55 rv32 (cores.sh); MODEL.input.bin and MODEL.output.bin beside the model;
#   OPS: the model's builtin operators, comma-separated (else MODEL.json's "ops", else a default set).
# Builds (or reuses) a TFLM firmware for the model on that core (setup.sh CORE first), runs one Invoke()
# between bench_start()/bench_stop() under QEMU with the instruction counter and, on the M4, the
# Cortex-M4 cycle estimator (zero wait states), on the M55 the project's Cortex-M55 one
# (tests/tools/qemu_m55cycles.c), and prints ONE JSON line:
#   status (ok = output 0 bit-exact), insns, cycles (M4 and M55, else null), arena_used (TFLM's
#   arena_used_bytes()), flash_total (code + constants + initialized data; the test vectors are
#   in a section of their own and not counted), ram_static (.data + .bss without the arena array).
# Env: TFLMB (scratch, default /tmp/tflmb), ARENA_SIZE (bytes; default per board).
set -uo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
SHARED_TOOLS=${SHARED_TOOLS:-$HERE/../../../../shared/tools}
. "$HERE/cores.sh"
CORE=${1:?usage: run.sh CORE MODEL.tflite [OPS]}
peer_core "$CORE" || exit 1
TFLMB=${TFLMB:-${TMPDIR:-/tmp}/tflmb}
T=$TFLMB/tflm
D=$T/tensorflow/lite/micro/tools/make/downloads
ARENA_SIZE=${ARENA_SIZE:-$ARENA_SIZE_DEFAULT}

MODEL=$(readlink -f "${2:?usage: run.sh CORE MODEL.tflite [OPS]}"); NAME=$(basename "$MODEL" .tflite); MDIR=$(dirname "$MODEL")
IN=$MDIR/$NAME.input.bin; EXP=$MDIR/$NAME.output.bin; OPS_SRC=${3:-$MDIR/$NAME.json}
fail(){ printf '{"model":"%s","core":"%s","status":"%s","error":"%s"}\n' "$NAME" "$CORE" "$1" "$2"; exit 1; }
[ -f "$MODEL" ] && [ -f "$IN" ] && [ -f "$EXP" ] || fail missing-files "need $NAME.tflite, .input.bin, .output.bin"
LIB=$(ls "$T"/gen/${MAKE_TARGET}_${TARGET_ARCH}_release*/lib/libtensorflow-microlite.a 2>/dev/null | head -1)
[ -f "$LIB" ] || fail no-lib "run $HERE/setup.sh $CORE first (no TFLM library for $TARGET_ARCH under $T/gen)"
plugin(){ # $1 source, $2 output
  if [ ! -f "$2" ] || [ "$1" -nt "$2" ]; then gcc -O2 -shared -fPIC -fvisibility=hidden -o "$2" "$1" || fail plugin-build "$1"; fi
}
INSNS_SO=$TFLMB/libinsncount.so; CYCLES_SO=
plugin "$SHARED_TOOLS/qemu-insncount/insncount.c" "$INSNS_SO"
case $CORE in
  m4) CYCLES_SO=$TFLMB/libm4cycles.so; plugin "$SHARED_TOOLS/qemu-m4cycles/m4cycles.c" "$CYCLES_SO";;
  m55) CYCLES_SO=$TFLMB/libm55cycles.so; plugin "$HERE/../qemu_m55cycles.c" "$CYCLES_SO";;
esac

W=$TFLMB/fw/$CORE/$NAME; mkdir -p "$W"; ELF=$W/fw.elf
# TFLM's own flags (Makefile CXXFLAGS + the target's PLATFORM_FLAGS, BUILD_TYPE=release); the harness
# is compiled at TFLM's CORE_OPTIMIZATION_LEVEL (-Os); the library was built by TFLM's Makefile.
CXXFLAGS="-std=c++17 -fno-rtti -fno-exceptions -fno-threadsafe-statics -fno-unwind-tables -fno-asynchronous-unwind-tables \
 -ffunction-sections -fdata-sections -fmessage-length=0 -DTF_LITE_STATIC_MEMORY -DTF_LITE_DISABLE_X86_NEON \
 -DKERNELS_OPTIMIZED_FOR_SPEED -DNDEBUG -DTF_LITE_STRIP_ERROR_STRINGS -funsigned-char -fomit-frame-pointer -Os $ARCH \
 -DARENA_SIZE=$ARENA_SIZE $CXX_STD_INCLUDES"
[ -n "$KERNELS" ] && CXXFLAGS="$CXXFLAGS -DCMSIS_NN"
[ "$CORE" = rv32 ] && CXXFLAGS="$CXXFLAGS -DTF_LITE_USE_GLOBAL_CMATH_FUNCTIONS -DTF_LITE_USE_GLOBAL_MIN -DTF_LITE_USE_GLOBAL_MAX -DTF_LITE_MCU_DEBUG_LOG"
INC="-I$W -I$HERE/fw -I$T -I$D/flatbuffers/include -I$D/gemmlowp -I$D/ruy -I$D/cmsis_nn/Include -I$D/cmsis/CMSIS/Core/Include"

SRCS="$MODEL $IN $EXP $OPS_SRC ARENA_SIZE=$ARENA_SIZE"
stale=0
for f in "$LIB" "$MODEL" "$IN" "$EXP" "$HERE"/fw/* "$HERE/run.sh" "$HERE/cores.sh" "$HERE/gen_ops.py"; do
  [ "$f" -nt "$ELF" ] && stale=1
done
[ -f "$ELF" ] || stale=1
[ "$(cat "$W/srcs.txt" 2>/dev/null)" = "$SRCS" ] || stale=1   # same NAME from another folder, other ops or arena
if [ $stale = 1 ]; then
  OPS=$(python3 "$HERE/gen_ops.py" "$OPS_SRC" "$W/ops.h") || fail gen-ops "$OPS_SRC"
  echo "$OPS" > "$W/ops.txt"
  if [ -n "$VEC_ORIGIN" ]; then VECTORS="VECTORS (rx) : ORIGIN = $VEC_ORIGIN, LENGTH = 1K"; else VECTORS="REGION_ALIAS(\"VECTORS\", FLASH);"; fi
  { echo "MEMORY {"; echo "  FLASH (rx) : ORIGIN = $CODE_ORIGIN, LENGTH = 4M"; echo "  RAM (rwx) : ORIGIN = $RAM_ORIGIN, LENGTH = $RAM_LENGTH"
    [ -n "$VEC_ORIGIN" ] && echo "  $VECTORS"; echo "}"; [ -z "$VEC_ORIGIN" ] && echo "$VECTORS"; } > "$W/memory.ld"
  cat > "$W/data.S" <<ASM
  .section .rodata.model,"a"
  .balign 16
  .global g_model
g_model: .incbin "$MODEL"
  .section .testvec,"a"
  .balign 16
  .global g_input
g_input: .incbin "$IN"
  .global g_input_end
g_input_end:
  .balign 16
  .global g_expected
g_expected: .incbin "$EXP"
  .global g_expected_end
g_expected_end:
ASM
  ( set -e
    ${PREFIX}g++ $CXXFLAGS $INC -c "$HERE/fw/main.cc" -o "$W/main.o"
    ${PREFIX}gcc $ARCH -Os -ffunction-sections -I"$HERE/fw" -c "$HERE/fw/$STARTUP" -o "$W/startup.o"
    ${PREFIX}gcc $ARCH -c "$W/data.S" -o "$W/data.o"
    # RV32: linked by gcc (no C++ library to link; startup_rv32.c has the few symbols it would give)
    if [ "$CORE" = rv32 ]; then LIBC="-lc -lm -lgcc"; LD="-mno-relax"; LINK=gcc; else LIBC="--specs=nano.specs --specs=nosys.specs -lm"; LD=; LINK=g++; fi
    ${PREFIX}$LINK $ARCH -nostartfiles $LD -L"$W" -T "$HERE/fw/$SECTIONS" -Wl,--gc-sections -Wl,-Map="$W/fw.map" \
      -o "$ELF" "$W/startup.o" "$W/main.o" "$W/data.o" "$LIB" $LIBC
  ) > "$W/build.log" 2>&1 || fail compile-error "$(grep -m1 -i error "$W/build.log" | tr '"\\' "''" | cut -c1-300)"
  echo "$SRCS" > "$W/srcs.txt"
fi

SYMS=$(${PREFIX}nm "$ELF")
START=0x$(echo "$SYMS" | awk '$3=="bench_start"{print $1}'); STOP=0x$(echo "$SYMS" | awk '$3=="bench_stop"{print $1}')
QEMU_RUN="timeout 600 $QEMU -M $MACHINE -nographic -monitor none -serial none -semihosting-config enable=on,target=native"
[ "$MACHINE" = virt ] && QEMU_RUN="$QEMU_RUN -bios none"
$QEMU_RUN -plugin "$INSNS_SO,start=$START,stop=$STOP,out=$W/insns.txt" -kernel "$ELF" > "$W/run.out" 2>&1; RC=$?
CYC=
if [ -n "$CYCLES_SO" ]; then
  $QEMU_RUN -plugin "$CYCLES_SO,start=$START,stop=$STOP,out=$W/cycles.txt" -kernel "$ELF" > "$W/run-cycles.out" 2>&1
fi

case $RC in 0) ST=ok;; 2) ST=mismatch;; 3) ST=fault;; 4) ST=abort;; 5) ST=allocate-failed;; 6) ST=invoke-failed;; 7) ST=size-mismatch;; 8) ST=resolver-failed;; 124) ST=timeout;; *) ST="exit-$RC";; esac
get(){ grep -o "$1=[0-9]*" "$2" 2>/dev/null | head -1 | cut -d= -f2; }
INS=$(get region "$W/insns.txt"); [ -n "$CYCLES_SO" ] && CYC=$(get region "$W/cycles.txt")
AR=$(get arena_used_bytes "$W/run.out")
# flash: every loaded section but the test vectors; RAM: .data + .bss less the arena array
eval "$(${PREFIX}size -A "$ELF" | awk '$1 ~ /^\./ {n=$1; gsub(/[^A-Za-z0-9]/,"_",n); print "S" n "=" $2}')"
FLASH=$(( ${S_isr_vector:-0} + ${S_text:-0} + ${S_rodata:-0} + ${S_ARM_extab:-0} + ${S_ARM_exidx:-0} + ${S_preinit_array:-0} + ${S_init_array:-0} + ${S_fini_array:-0} + ${S_data:-0} + ${S_tdata:-0} ))
RAM=$(( ${S_data:-0} + ${S_tdata:-0} + ${S_bss:-0} - ARENA_SIZE ))
printf '{"model":"%s","core":"%s","status":"%s","insns":%s,"cycles":%s,"arena_used":%s,"flash_total":%s,"ram_static":%s,"model_bytes":%s,"ops":"%s"}\n' \
  "$NAME" "$CORE" "$ST" "${INS:-null}" "${CYC:-null}" "${AR:-null}" "$FLASH" "$RAM" "$(stat -c %s "$MODEL")" "$(cat "$W/ops.txt" 2>/dev/null)"
[ "$ST" = ok ]
