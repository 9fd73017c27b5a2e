#!/bin/bash
# Builds TFLM's library (libtensorflow-microlite.a, release) for each core named (default: m4), with
# CMSIS-NN's kernels on Arm and TFLM's reference kernels on RV32, from fetched repositories, offline.
# Usage: MIRRORS=DIR ./setup.sh [m0 m3 m4 m7 m33 m55 rv32]   (DIR holds owner+name/repo bare mirrors)
# Scratch: $TFLMB (default /tmp/tflmb). About 10 minutes per core on 2 cores.
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/cores.sh"
TFLMB=${TFLMB:-${TMPDIR:-/tmp}/tflmb}
M=${MIRRORS:?set MIRRORS to the folder that holds the fetched repositories (owner+name/repo)}
TFLM_COMMIT=${TFLM_COMMIT:-90b983c2b3f1480642e040bbd2ddb37b998f3424}
mkdir -p "$TFLMB"; cd "$TFLMB"
if [ ! -d tflm ]; then
  mkdir tflm; git --git-dir=$M/tensorflow+tflite-micro/repo archive $TFLM_COMMIT | tar -x -C tflm
fi
D=tflm/tensorflow/lite/micro/tools/make/downloads; mkdir -p $D
ex(){ [ -d $D/$2 ] || { mkdir -p $D/$2; git --git-dir=$M/$1/repo archive $3 | tar -x -C $D/$2; echo "extracted $1@$3 -> $2" >&2; }; }
# The pins of TFLM's own download scripts at this commit (ext_libs/*_download.sh, third_party_downloads.inc).
ex ARM-software+CMSIS_6       cmsis              5782d6f8057906d360f4b95ec08a2354afe5c9b9
ex ARM-software+Cortex_DFP    cmsis/Cortex_DFP   c2c70a97a20fb355815e2ead3d4a40e35a4a3cdf
ex ARM-software+CMSIS-NN      cmsis_nn           4ab83cc3cc98fb85ed6dafb55e8ca02f1628dcae
ex google+gemmlowp            gemmlowp           719139ce755a0f31cbf1c37f7f98adcc7fc9f425
ex google+ruy                 ruy                d37128311b445e758136b8602d1bbd2a755e115d
if [ ! -d $D/flatbuffers ]; then
  ex google+flatbuffers flatbuffers v25.9.23
  (cd $D/flatbuffers && rm -f $(find . -name BUILD -o -name BUILD.bazel) && patch -s -p1 --ignore-whitespace < ../../flatbuffers.patch)
fi
if [ ! -d $D/kissfft ]; then
  ex mborgerding+kissfft kissfft v130
  (cd $D/kissfft && patch -s -p1 --ignore-whitespace < "$TFLMB/tflm/third_party/kissfft/kissfft.patch")
fi
mkdir -p $D/pigweed   # only used by tests; an empty folder satisfies its download rule
# RV32 only: the printf TFLM's RISC-V target compiles; its toolchain download is Debian's gcc instead.
if [[ " ${*:-m4} " == *" rv32 "* ]]; then
  ex eyalroz+printf eyalroz_printf f8ed5a9bd9fa8384430973465e94aa14c925872d
  mkdir -p $D/riscv_toolchain
fi
# TFLM's Makefile runs generate_cc_arrays.py (numpy, PIL) at parse time for its test targets.
[ -x venv/bin/python ] || { python3 -m venv venv; venv/bin/pip install -q numpy pillow; }
export PATH=$TFLMB/venv/bin:$PATH
cd tflm
for core in ${*:-m4}; do
  peer_core "$core"
  args=(TARGET=$MAKE_TARGET TARGET_ARCH=$TARGET_ARCH BUILD_TYPE=release TOOLCHAIN=gcc TARGET_TOOLCHAIN_ROOT=/usr/bin/)
  [ -n "$KERNELS" ] && args+=(OPTIMIZED_KERNEL_DIR=$KERNELS)
  [ "$core" = m4 ] && args+=(FPU=fpv4-sp-d16)
  [ "$core" = rv32 ] && args+=("RISCV_EXTRA_CFLAGS=--specs=picolibc.specs $CXX_STD_INCLUDES")
  echo "== $core: TFLM ${args[*]}" >&2
  nice make -j${JOBS:-2} -f tensorflow/lite/micro/tools/make/Makefile "${args[@]}" \
    MICRO_LITE_EXAMPLE_TESTS= MICRO_LITE_INTEGRATION_TESTS= MICRO_LITE_GEN_MUTABLE_OP_RESOLVER_TEST= \
    OLD_MICRO_LITE_BENCHMARKS= MICRO_LITE_BENCHMARKS= MICRO_LITE_LAYER_BY_LAYER_OUTPUT= microlite
done
