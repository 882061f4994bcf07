# Sourced by scripts/test-sanitized and scripts/fuzz: the one sanitized build
# directory they share. clang, ASan + UBSan on everything, and libFuzzer's
# coverage instrumentation on the revline libraries (-DREVLINE_FUZZ=ON), so the
# same objects serve the sanitized suite and the fuzzers: one build, not two.
# Sets $sanitized_build. Environment: REVLINE_ASAN_BUILD_DIR (default build-asan).
sanitized_build=${REVLINE_ASAN_BUILD_DIR:-build-asan}
for tool in clang clang++; do
  command -v "$tool" >/dev/null || {
    echo "$(basename "$0"): $tool not found; the sanitized build uses clang (apt-get install clang libclang-rt-14-dev, or run scripts/setup)" >&2
    exit 1
  }
done
if [ -f "$sanitized_build/CMakeCache.txt" ] && ! grep -q '^REVLINE_FUZZ:BOOL=ON' "$sanitized_build/CMakeCache.txt"; then
  echo "$(basename "$0"): $sanitized_build was configured by an older revline (without -DREVLINE_FUZZ=ON); reconfiguring it" >&2
  rm -rf "$sanitized_build"
fi
# -O1 -g1, as the sanitizers' authors recommend: line tables are all a report
# needs, and it compiles about a third faster than -O2 -g (measured on
# lsp/review_scheduler.cpp: 19.8 s against 31.6 s), which is most of CI's time.
if [ ! -f "$sanitized_build/CMakeCache.txt" ]; then
  CC=clang CXX=clang++ cmake -S . -B "$sanitized_build" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O1 -g1 -DNDEBUG" \
    -DREVLINE_SANITIZE=ON -DREVLINE_FUZZ=ON ${REVLINE_CMAKE_ARGS:-} >/dev/null
fi
