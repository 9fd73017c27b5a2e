#!/usr/bin/env bash
# Fuzz the compiler's entry point (bytes in, tokens or one diagnostic out).
#   fuzz/run.sh [SECONDS]        needs a nightly toolchain and `cargo install cargo-fuzz`
# Seeds the corpus with the project's models; crashers land in fuzz/artifacts/
# and belong in compiler/tests/crashers/ (replayed by `cargo test`) once fixed.
set -euo pipefail
cd "$(dirname "$0")"
mkdir -p corpus/compile
cp ../tests/models/*.tflite ../tests/ui/fixtures/*.tflite corpus/compile/
cargo +nightly fuzz run compile -- -max_total_time="${1:-1800}" -timeout=10 -rss_limit_mb=2048 -max_len=262144 -print_final_stats=1
