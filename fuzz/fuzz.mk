# fuzz/fuzz.mk - fuzzing and coverage targets, included by the top-level Makefile (include fuzz/fuzz.mk).
#
#   make fuzz-smoke    fuzz-replay, then fuzz-short (about 2 min).
#   make fuzz-replay   build every harness with replay_main.c (ASan + UBSan at -O0, strict warnings: 2 s each) and
#                      replay the committed corpora and regression inputs. Part of `make test`.
#   make fuzz-short    when clang's libFuzzer runtime is present, build the libFuzzer binaries and run each for
#                      FUZZ_SMOKE_SECONDS from its corpus. Part of `make check`.
#   make fuzz          libFuzzer campaign: FUZZ_SECONDS per harness (default 60), corpus in build/fuzz/corpus/<t>
#                      seeded from fuzz/corpus/<t>, -dict=fuzz/mrc.dict, crashes in build/fuzz/artifacts/
#   make fuzz-afl      AFL++ persistent-mode binaries and their CMPLOG twins (installs Debian's afl++ as root when
#                      missing); runs each harness for AFL_SECONDS when set, else prints the afl-fuzz command lines
#   make cover         llvm-cov line/function coverage of mrc.h: the unit and scenario tests plus every corpus
#                      (committed, regression, build/fuzz/corpus and the campaign's build/campaign/corpus)
#   make fuzz-corpus   regenerate fuzz/corpus/<t> from recorded traffic (fuzz/gen_corpus.c)
#   make fuzz-fast-check  the harnesses that drive mrc_endpoint_recv/poll_tx built with tests/fixtures/mrc_fastcheck.h
#                      (every call runs the general code and the fast paths and compares them byte for byte): the
#                      corpora replayed, then, with libFuzzer, FC_FUZZ_SECONDS each from an empty corpus and from the committed
#                      one (hostile input must take the fast paths exactly as it takes the general code). In make check.
#   make fuzz-pending  replay fuzz/regress-pending/<t> (reported core bugs awaiting a fix) with -DFZ_STRICT, which
#                      turns off the harnesses' run-time workarounds for those bugs; says which inputs still fail and
#                      which now pass (move those to fuzz/regress/<t>). Not part of fuzz-smoke: failing is expected.
#
# Variables: FUZZ_SECONDS, FUZZ_SMOKE_SECONDS (5), AFL_SECONDS, AFL_TARGETS (default: all), FUZZ_CAPS (extra -D capacities),
# FUZZ_CORE_DIR (directory holding the mrc.h under test, default .), CLANG, LLVM_PROFDATA, LLVM_COV.

FUZZ_TARGETS       := decode responder pair sack ev nscc
FB                 := $(B)/fuzz
FUZZ_SECONDS       ?= 60
FUZZ_SMOKE_SECONDS ?= 5
FUZZ_CORE_DIR      ?= .
FUZZ_CAPS          ?=
AFL_SECONDS        ?=
AFL_CC             ?= afl-clang-fast
AFL_TARGETS        ?= $(FUZZ_TARGETS)
LLVM_PROFDATA      ?= llvm-profdata
LLVM_COV           ?= llvm-cov

FUZZ_DEFS   := -DFUZZING_BUILD_MODE_UNSAFE_FOR_PRODUCTION -I$(FUZZ_CORE_DIR) $(FUZZ_CAPS)
FUZZ_DEPS   := fuzz/fuzz_common.h fuzz/nocov.txt $(FUZZ_CORE_DIR)/mrc.h
# oracle-only functions get no coverage/CMP tracing in libFuzzer builds (fuzz/nocov.txt)
FUZZ_NOCOV  := -fsanitize-coverage-ignorelist=fuzz/nocov.txt
FUZZ_SAN    := -fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer
# the replayer builds with clang when there is one (as CI has), else with $(CC)
FUZZ_CC     := $(shell command -v $(CLANG) >/dev/null 2>&1 && echo $(CLANG) || echo $(CC))
FUZZ_ENV    := ASAN_OPTIONS=abort_on_error=1:detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1

.PHONY: fuzz-smoke fuzz-short fuzz fuzz-afl cover fuzz-corpus fuzz-replay fuzz-pending fuzz-fast-check

$(FB):
	@mkdir -p $(FB)

# ---- replay binaries: harness + replay_main.c, sanitizers, the project's strict warnings --------------------------
# (-O0: a replayer runs a few dozen small inputs, and builds in 2 s instead of 11 s at -O1 with the sanitizers)
$(FB)/replay_%: fuzz/fuzz_%.c fuzz/replay_main.c $(FUZZ_DEPS) | $(FB)
	$(FUZZ_CC) $(CSTD) $(WARN) -O0 -g $(FUZZ_SAN) $(FUZZ_DEFS) -o $@ fuzz/fuzz_$*.c fuzz/replay_main.c

# ---- libFuzzer binaries ----------------------------------------------------------------------------------------
$(FB)/fuzz_%: fuzz/fuzz_%.c $(FUZZ_DEPS) | $(FB)
	$(CLANG) $(CSTD) $(WARN) -O1 -g -fsanitize=fuzzer $(FUZZ_NOCOV) $(FUZZ_SAN) $(FUZZ_DEFS) -o $@ fuzz/fuzz_$*.c

# strict replayers: every known-bug workaround off (fuzz-pending)
$(FB)/strict_%: fuzz/fuzz_%.c fuzz/replay_main.c $(FUZZ_DEPS) | $(FB)
	$(FUZZ_CC) $(CSTD) $(WARN) -O1 -g $(FUZZ_SAN) $(FUZZ_DEFS) -DFZ_STRICT -o $@ fuzz/fuzz_$*.c fuzz/replay_main.c

fuzz-pending: $(FUZZ_TARGETS:%=$(FB)/strict_%)
	@n=0; for t in $(FUZZ_TARGETS); do [ -d fuzz/regress-pending/$$t ] || continue; \
	  for f in fuzz/regress-pending/$$t/*; do [ -f "$$f" ] || continue; n=$$((n + 1)); \
	    if $(FUZZ_ENV) ./$(FB)/strict_$$t "$$f" > $(FB)/pending.log 2>&1; then \
	      echo "pending $$t $$(basename $$f): now PASSES (fixed? move it to fuzz/regress/$$t/)"; \
	    else echo "pending $$t $$(basename $$f): still fails: $$(grep -m1 -E 'oracle violated|runtime error|ERROR: AddressSanitizer' $(FB)/pending.log)"; fi; \
	  done; done; echo "fuzz-pending: $$n inputs"

# ---- the fast paths against the general code under fuzzing (tests/fixtures/mrc_fastcheck.h; docs/PROTOCOL.md P22) --
FC_FUZZ_TARGETS ?= responder pair sack ev
FC_FUZZ_SECONDS ?= 6
# zeroed locals keep struct padding identical between the two runs of a call (clang 14 wants the extra flag)
FC_ZERO := $(shell printf '' | $(FUZZ_CC) -x c -ftrivial-auto-var-init=zero -c - -o /dev/null 2>/dev/null \
             && echo -ftrivial-auto-var-init=zero || echo -ftrivial-auto-var-init=zero \
             -enable-trivial-auto-var-init-zero-knowing-it-will-be-removed-from-clang)
FC_DEFS := -DMRC_FASTCHECK $(FC_ZERO)
$(FB)/fcreplay_%: fuzz/fuzz_%.c fuzz/replay_main.c $(FUZZ_DEPS) tests/fixtures/mrc_fastcheck.h | $(FB)
	$(FUZZ_CC) $(CSTD) $(WARN) -O1 -g $(FUZZ_SAN) $(FUZZ_DEFS) $(FC_DEFS) -o $@ fuzz/fuzz_$*.c fuzz/replay_main.c
fuzz-fast-check: $(FC_FUZZ_TARGETS:%=$(FB)/fcreplay_%)
	@set -e; for t in $(FC_FUZZ_TARGETS); do \
	  dirs="fuzz/corpus/$$t"; [ -d fuzz/regress/$$t ] && dirs="$$dirs fuzz/regress/$$t"; \
	  printf 'fast-check replay %-10s ' $$t; $(FUZZ_ENV) ./$(FB)/fcreplay_$$t $$dirs; \
	done
	@if printf 'int LLVMFuzzerTestOneInput(const unsigned char *d, unsigned long n);\nint LLVMFuzzerTestOneInput(const unsigned char *d, unsigned long n) { (void)d; (void)n; return 0; }\n' \
	    | $(CLANG) -x c -fsanitize=fuzzer - -o $(FB)/.probe_libfuzzer >/dev/null 2>&1; then \
	  for t in $(FC_FUZZ_TARGETS); do \
	    $(CLANG) $(CSTD) $(WARN) -O1 -g -fsanitize=fuzzer $(FUZZ_NOCOV) $(FUZZ_SAN) $(FUZZ_DEFS) $(FC_DEFS) \
	      -o $(FB)/fcfuzz_$$t fuzz/fuzz_$$t.c || exit 1; \
	    for from in empty corpus; do \
	      rm -rf $(FB)/fc/$$t-$$from; mkdir -p $(FB)/fc/$$t-$$from $(FB)/artifacts; \
	      seeds=""; [ $$from = corpus ] && seeds=fuzz/corpus/$$t; \
	      printf 'fast-check libFuzzer %-10s from %-6s %ss: ' $$t $$from $(FC_FUZZ_SECONDS); \
	      $(FUZZ_ENV) ./$(FB)/fcfuzz_$$t -max_total_time=$(FC_FUZZ_SECONDS) -dict=fuzz/mrc.dict -print_final_stats=1 \
	        -artifact_prefix=$(FB)/artifacts/fc-$$t- $(FB)/fc/$$t-$$from $$seeds > $(FB)/fc/$$t-$$from.log 2>&1 \
	        || { tail -40 $(FB)/fc/$$t-$$from.log; echo "fuzz-fast-check: $$t FAILED (log: $(FB)/fc/$$t-$$from.log)"; exit 1; }; \
	      grep -E 'stat::number_of_executed_units' $(FB)/fc/$$t-$$from.log | awk '{printf "%s %s\n", $$1, $$2}'; \
	    done; \
	  done; \
	else echo "fuzz-fast-check: skip libFuzzer runs ($(CLANG) -fsanitize=fuzzer unavailable; Debian: libclang-rt-14-dev)"; fi
	@echo "fuzz-fast-check: ok ($(words $(FC_FUZZ_TARGETS)) harnesses)"

$(FB)/gen_corpus: fuzz/gen_corpus.c $(FUZZ_DEPS) tests/fixtures/mrc_wire.h | $(FB)
	$(FUZZ_CC) $(CSTD) $(WARN) -O1 -g $(FUZZ_DEFS) -o $@ fuzz/gen_corpus.c

fuzz-replay: $(FUZZ_TARGETS:%=$(FB)/replay_%)
	@set -e; for t in $(FUZZ_TARGETS); do \
	  dirs="fuzz/corpus/$$t"; for d in fuzz/regress/$$t fuzz/regress-pending/$$t; do [ -d $$d ] && dirs="$$dirs $$d"; done; \
	  printf 'replay %-10s ' $$t; $(FUZZ_ENV) ./$(FB)/replay_$$t $$dirs; \
	done; echo "fuzz-replay: ok ($(words $(FUZZ_TARGETS)) harnesses)"

fuzz-smoke: fuzz-replay fuzz-short

fuzz-short: | $(FB)
	@if printf 'int LLVMFuzzerTestOneInput(const unsigned char *d, unsigned long n);\nint LLVMFuzzerTestOneInput(const unsigned char *d, unsigned long n) { (void)d; (void)n; return 0; }\n' \
	    | $(CLANG) -x c -fsanitize=fuzzer - -o $(FB)/.probe_libfuzzer >/dev/null 2>&1; then \
	  for t in $(FUZZ_TARGETS); do \
	    $(CLANG) $(CSTD) $(WARN) -O1 -g -fsanitize=fuzzer $(FUZZ_NOCOV) $(FUZZ_SAN) $(FUZZ_DEFS) -o $(FB)/fuzz_$$t fuzz/fuzz_$$t.c \
	      || exit 1; \
	    rm -rf $(FB)/smoke/$$t; mkdir -p $(FB)/smoke/$$t $(FB)/artifacts; \
	    printf 'libFuzzer %-10s %ss: ' $$t $(FUZZ_SMOKE_SECONDS); \
	    $(FUZZ_ENV) ./$(FB)/fuzz_$$t -max_total_time=$(FUZZ_SMOKE_SECONDS) -dict=fuzz/mrc.dict -print_final_stats=1 \
	      -artifact_prefix=$(FB)/artifacts/$$t- $(FB)/smoke/$$t fuzz/corpus/$$t > $(FB)/smoke/$$t.log 2>&1 \
	      || { tail -40 $(FB)/smoke/$$t.log; echo "fuzz-short: $$t FAILED (log: $(FB)/smoke/$$t.log)"; exit 1; }; \
	    grep -E 'stat::number_of_executed_units|stat::average_exec_per_sec' $(FB)/smoke/$$t.log | \
	      awk '{printf "%s %s  ", $$1, $$2} END {print ""}'; \
	  done; \
	else echo "fuzz-short: skip libFuzzer runs ($(CLANG) -fsanitize=fuzzer unavailable; Debian: libclang-rt-14-dev)"; fi
	@echo "fuzz-short: ok ($(words $(FUZZ_TARGETS)) harnesses)"

fuzz: $(FUZZ_TARGETS:%=$(FB)/fuzz_%)
	@set -e; mkdir -p $(FB)/artifacts; for t in $(FUZZ_TARGETS); do \
	  mkdir -p $(FB)/corpus/$$t; \
	  echo "== fuzz $$t: $(FUZZ_SECONDS) s"; \
	  $(FUZZ_ENV) ./$(FB)/fuzz_$$t -max_total_time=$(FUZZ_SECONDS) -dict=fuzz/mrc.dict -print_final_stats=1 \
	    -artifact_prefix=$(FB)/artifacts/$$t- \
	    $(FB)/corpus/$$t fuzz/corpus/$$t 2>&1 | grep -E '^stat::|ERROR|SUMMARY|oracle violated|Test unit' || true; \
	  if ls $(FB)/artifacts/$$t-* >/dev/null 2>&1; then echo "fuzz: $$t found crashes: $(FB)/artifacts/$$t-*"; exit 1; fi; \
	done

# ---- AFL++ -----------------------------------------------------------------------------------------------------
AFL_FLAGS := $(CSTD) -O2 -g -fsanitize=fuzzer $(FUZZ_DEFS)

fuzz-afl:
	@if ! command -v $(AFL_CC) >/dev/null 2>&1; then \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
	    echo "fuzz-afl: installing Debian's afl++"; \
	    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends afl++ >/dev/null 2>&1 || true; \
	  fi; \
	fi; \
	if ! command -v $(AFL_CC) >/dev/null 2>&1; then \
	  echo "fuzz-afl: skip ($(AFL_CC) not found; Debian: apt-get install afl++)"; exit 0; fi; \
	set -e; mkdir -p $(FB)/afl; \
	for t in $(AFL_TARGETS); do \
	  AFL_QUIET=1 $(AFL_CC) $(AFL_FLAGS) -o $(FB)/afl_$$t fuzz/fuzz_$$t.c; \
	  AFL_QUIET=1 AFL_LLVM_CMPLOG=1 $(AFL_CC) $(AFL_FLAGS) -o $(FB)/afl_$${t}_cmplog fuzz/fuzz_$$t.c; \
	done; \
	for t in $(AFL_TARGETS); do \
	  cmd="afl-fuzz -i fuzz/corpus/$$t -o $(FB)/afl/$$t -c ./$(FB)/afl_$${t}_cmplog -x fuzz/mrc.dict"; \
	  if [ -n "$(AFL_SECONDS)" ]; then \
	    echo "== $$cmd -V $(AFL_SECONDS) -- ./$(FB)/afl_$$t"; \
	    AFL_NO_UI=1 AFL_SKIP_CPUFREQ=1 AFL_I_DONT_CARE_ABOUT_MISSING_CRASHES=1 AFL_NO_AFFINITY=1 \
	      $$cmd -V $(AFL_SECONDS) -- ./$(FB)/afl_$$t > $(FB)/afl/$$t.log 2>&1 || true; \
	    grep -E '^(execs_done|execs_per_sec|corpus_count|saved_crashes|saved_hangs|bitmap_cvg)' \
	      $(FB)/afl/$$t/default/fuzzer_stats | tr '\n' ' '; echo; \
	  else echo "$$cmd -- ./$(FB)/afl_$$t"; fi; \
	done

# ---- coverage ----------------------------------------------------------------------------------------------------
# The white-box test modules carry static copies of the core (tests/test.h); llvm-cov report counts those copies
# apart, which lowers its line figure, so the recipe also counts the lines of the annotated source, where every copy
# is merged (the same figure as with the single-unit suite before: 6049 of 6156 lines on the committed corpora).
COVER_FL := $(CSTD) -O1 -g -fprofile-instr-generate -fcoverage-mapping

cover: | $(FB)
	@command -v $(CLANG) >/dev/null && command -v $(LLVM_PROFDATA) >/dev/null && command -v $(LLVM_COV) >/dev/null || \
	  { echo "make cover needs $(CLANG), $(LLVM_PROFDATA) and $(LLVM_COV) (Debian: apt-get install clang llvm)"; exit 1; }
	@set -e; rm -rf $(FB)/cover; mkdir -p $(FB)/cover; \
	$(CLANG) $(COVER_FL) -o $(FB)/cover/mrc_test $(TEST_SRCS); \
	LLVM_PROFILE_FILE=$(FB)/cover/test.profraw ./$(FB)/cover/mrc_test > $(FB)/cover/test.log 2>&1 || \
	  { tail -5 $(FB)/cover/test.log; exit 1; }; \
	tail -1 $(FB)/cover/test.log; objs="$(FB)/cover/mrc_test"; \
	for t in $(FUZZ_TARGETS); do \
	  $(CLANG) $(COVER_FL) $(FUZZ_DEFS) -o $(FB)/cover/replay_$$t fuzz/fuzz_$$t.c fuzz/replay_main.c; \
	  dirs=fuzz/corpus/$$t; for d in fuzz/regress/$$t fuzz/regress-pending/$$t $(FB)/corpus/$$t $(B)/campaign/corpus/$$t; do \
	    [ -d $$d ] && dirs="$$dirs $$d"; done; \
	  printf 'cover %-10s ' $$t; LLVM_PROFILE_FILE=$(FB)/cover/$$t.profraw ./$(FB)/cover/replay_$$t $$dirs; \
	  objs="$$objs -object $(FB)/cover/replay_$$t"; \
	done; \
	$(LLVM_PROFDATA) merge -o $(FB)/cover/all.profdata $(FB)/cover/*.profraw; \
	$(LLVM_COV) report $$objs -instr-profile=$(FB)/cover/all.profdata $(FUZZ_CORE_DIR)/mrc.h 2>/dev/null; \
	$(LLVM_COV) show $$objs -instr-profile=$(FB)/cover/all.profdata -show-line-counts-or-regions \
	  $(FUZZ_CORE_DIR)/mrc.h > $(FB)/cover/mrc.h.txt 2>/dev/null; \
	awk -F'|' 'NF >= 3 && $$1 ~ /^ *[0-9]+ *$$/ { c = $$2; gsub(/ /, "", c); if (c != "") { n++; if (c == "0") z++ } } \
	  END { printf "cover: mrc.h lines run, every copy of the core merged: %d of %d (%.2f%%)\n", n - z, n, \
	  100 * (n - z) / n }' $(FB)/cover/mrc.h.txt; \
	echo "cover: annotated source in $(FB)/cover/mrc.h.txt (lines marked 0 were never run)"

fuzz-corpus: $(FB)/gen_corpus
	@for t in $(FUZZ_TARGETS); do mkdir -p fuzz/corpus/$$t; rm -f fuzz/corpus/$$t/seed-*; done
	./$(FB)/gen_corpus fuzz/corpus
