#!/usr/bin/env bash
# Builds the libFuzzer targets (CMake preset `fuzz`, Clang) and fuzzes each for FUZZ_SECONDS, after replaying
# every saved regression input. Fails if a regression input or a fuzzing run crashes, hangs or leaks.
#   bash scripts/fuzz.sh [--regressions-only] [target ...]     (default: every target in tests/fuzz/)
# Environment:
#   FUZZ_SECONDS  seconds of fuzzing per target (default 30; `npm run fuzz` uses 600)
#   FUZZ_RUNS     an exec budget per target instead (-runs=N), e.g. for a deterministic CI step
#   FUZZ_BUILD=0  skip the build (e.g. when another fuzz.sh is running against the same build)
#   JOBS          build parallelism (default 2)
# Working corpora live in build/fuzz/corpus/<target>/ (kept between runs), crashes in build/fuzz/crashes/<target>/,
# libFuzzer's output in build/fuzz/logs/<target>.log. Seeds: tests/fuzz/corpus/<target>/ plus inputs derived
# from tests/golden/ by scripts/fuzz-seeds.mjs into build/fuzz/seeds/<target>/.
set -euo pipefail
cd "$(dirname "$0")/.."

FUZZ_SECONDS=${FUZZ_SECONDS:-30}
JOBS=${JOBS:-2}
regressions_only=0
targets=()
for arg in "$@"; do
  case $arg in
    --regressions-only) regressions_only=1 ;;
    -h | --help) sed -n '2,13p' "$0"; exit 0 ;;
    *) targets+=("$arg") ;;
  esac
done
if [[ ${#targets[@]} -eq 0 ]]; then
  for src in tests/fuzz/fuzz_*.cpp; do targets+=("$(basename "$src" .cpp)"); done
fi

# Inputs larger than this are truncated: the checkpoint targets need the golden files (about 41 KB).
max_len() {
  case $1 in
    fuzz_safetensors | fuzz_model_load | fuzz_stream_load) echo 65536 ;;
    fuzz_config_json | fuzz_tokenizer) echo 32768 ;;  # room for JSON nested deep enough to matter (~10,000 levels)
    fuzz_train_step) echo 1024 ;;
    *) echo 4096 ;;
  esac
}
dict() {
  case $1 in
    fuzz_safetensors) echo tests/fuzz/safetensors.dict ;;
    fuzz_config_json) echo tests/fuzz/json.dict ;;
    fuzz_stream_load) echo tests/fuzz/safetensors.dict ;;
    fuzz_model_load) cat tests/fuzz/json.dict tests/fuzz/safetensors.dict > build/fuzz/model_load.dict
                     echo build/fuzz/model_load.dict ;;
    *) echo "" ;;
  esac
}

if [[ ${FUZZ_BUILD:-1} != 0 ]]; then
  echo "==> building the fuzz targets (preset fuzz)"
  if ! command -v clang++ > /dev/null; then
    echo "fuzz.sh: clang++ not found; the fuzz targets need Clang with libFuzzer (Debian: apt-get install clang)" >&2
    exit 1
  fi
  nice -n 5 cmake --preset fuzz > /dev/null
  nice -n 5 cmake --build --preset fuzz -j "$JOBS" --target "${targets[@]}"
fi
bin=build/fuzz/tests/fuzz
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1}

failed=()
echo "==> regression inputs (tests/fuzz/regressions/<target>/)"
for t in "${targets[@]}"; do
  mapfile -t inputs < <(find "tests/fuzz/regressions/$t" -type f ! -name '.gitkeep' ! -name '*.md' 2> /dev/null | sort)
  [[ ${#inputs[@]} -eq 0 ]] && continue
  mkdir -p build/fuzz/logs
  # Given files (not directories), libFuzzer runs each once and stops at the first crash.
  if nice -n 5 "$bin/$t" -timeout=10 -rss_limit_mb=2048 "${inputs[@]}" > "build/fuzz/logs/$t.regressions.log" 2>&1; then
    echo "$t: ${#inputs[@]} regression inputs pass"
  else
    echo "$t: a regression input FAILS (see build/fuzz/logs/$t.regressions.log):" >&2
    grep -E '^==[0-9]+==ERROR|runtime error|Running: |fuzz property' "build/fuzz/logs/$t.regressions.log" | tail -4 >&2 || true
    failed+=("$t (regression)")
  fi
done

if [[ $regressions_only == 0 ]]; then
  node scripts/fuzz-seeds.mjs build/fuzz/seeds > /dev/null
  budget=(-max_total_time="$FUZZ_SECONDS")
  [[ -n ${FUZZ_RUNS:-} ]] && budget=(-runs="$FUZZ_RUNS")
  echo "==> fuzzing: ${budget[*]} per target"
  printf '%-18s %12s %10s  %s\n' target execs execs/s result
  for t in "${targets[@]}"; do
    corpus=build/fuzz/corpus/$t crashes=build/fuzz/crashes/$t log=build/fuzz/logs/$t.log
    mkdir -p "$corpus" "$crashes" build/fuzz/logs
    seeds=()
    for d in "tests/fuzz/corpus/$t" "build/fuzz/seeds/$t"; do [[ -d $d ]] && seeds+=("$d"); done
    d=$(dict "$t")
    rc=0
    nice -n 5 "$bin/$t" "$corpus" "${seeds[@]}" "${budget[@]}" -max_len="$(max_len "$t")" -timeout=10 \
      -rss_limit_mb=2048 -print_final_stats=1 -artifact_prefix="$crashes/" ${d:+-dict="$d"} > "$log" 2>&1 || rc=$?
    execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
    rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -1)
    if [[ $rc -eq 0 ]]; then
      result=ok
    else
      artifact=$(sed -n 's/.*Test unit written to \(.*\)$/\1/p' "$log" | tail -1)
      result="FAILED (exit $rc): ${artifact:-see $log}"
      failed+=("$t")
    fi
    printf '%-18s %12s %10s  %s\n' "$t" "${execs:-?}" "${rate:-?}" "$result"
  done
fi

if [[ ${#failed[@]} -gt 0 ]]; then
  echo "fuzz.sh: failures in: ${failed[*]} (logs in build/fuzz/logs/; how to turn a crash into a regression: tests/fuzz/README.md)" >&2
  exit 1
fi
echo "fuzz.sh: all clean"
