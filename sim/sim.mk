# sim/sim.mk - fabric simulator targets, included by the top-level Makefile (-include sim/sim.mk).
#
#   make sim             build the runner and run the standard scenario suite: sim/out/ (CSV, JSON lines, SVG plots)
#                        and sim/out/summary.md (the targets table: median and worst over seeds SIM_SEED ..
#                        SIM_SEED+SIM_NSEEDS-1, default 1-10; every scenario's files from SIM_SEED). About 40 minutes.
#   make sim-quick       small scenarios with fixed seeds checked against sim/golden/ (PASS/FAIL per scenario);
#                        non-zero exit on any failure. Well under a minute.
#   make sim-scale       the simulator at scale (tools/sim_scale.sh): the scale build checked against the standard one
#                        (the same digest at 1,024 hosts), then perm_ft_8k and t1_blackhole_mp_8k (SIM_SCALE="..."
#                        for others: perm_mp_32k, perm_mp_131k, planedown_mp_8k, allreduce_mp_8k, alltoall_mp_4k,
#                        ...) with wall and CPU time and peak memory. About 6 minutes of CPU, SIM_JOBS runs at once.
#   make sim-quick-asan  the same under AddressSanitizer + UndefinedBehaviorSanitizer
#   make sim-golden      rewrite sim/golden/ from the current run (a deliberate act: commit it with a reason)
#   make sim-seeds       every full-suite scenario on seeds SIM_SEEDS (default 1..10): QP errors, median and worst
#                        max FCT / ideal with the worst seed (tools/sim_seeds.sh; about 50 minutes on 2 cores);
#                        SEEDS_METRICS="rtx_frac bypass_rtts ..." picks other keys of the runner's JSON line
#   make soak            the chaos soak (sim/mrc_soak.c): random seeds over tests/fixtures/mrc_wire.h with heavy loss,
#                        dups, corruption, trims, PSN wrap and planes flapping told and untold, for SOAK_SECONDS (600);
#                        fails on any stall, corruption, out-of-order completion or unexplained QP error. Not in
#                        make test. SOAK_ARGS="--seeds A-B" replays a range instead.
#
# Variables: SIM_SEED (default 1), SIM_NSEEDS (default 10), SIM_ARGS (extra runner flags), SIM_OUT (default sim/out),
# SIM_JOBS (sim-seeds and sim-scale: runs at once, default 1; the output is the same as one at a time; 2 was slower
# on this shared 2-core machine: docs/EVALUATION.md#scale).

SIM_SEED ?= 1
SIM_NSEEDS ?= 10
SIM_OUT  ?= sim/out
SOAK_SECONDS ?= 600
SIM_SEEDS ?= 1 2 3 4 5 6 7 8 9 10
SOAK_ARGS ?=
SIM_ARGS ?=
# sim-seeds and sim-scale: independent runs at once (separate processes; the output is the same as one at a time)
SIM_JOBS ?= 1
# Core capacities for the simulator: 1024 QPs per endpoint (incast, all-to-all), 256 EVs (the path-aware profile of
# the 8-plane radix-64 Clos: 8 x 32 T1s), small send/receive queues (one RDMA Write per flow), MPR up to 8 x 128 PSNs.
SIM_CAPS := -DMRC_MAX_CONNS=1024 -DMRC_MAX_EVS=256 -DMRC_MAX_SQ=8 -DMRC_MAX_RQ=4 -DMRC_MAX_WIMM=4 \
            -DMRC_MAX_MPR_UNITS=8 -DMRC_ENABLE_TRACE
# The scale build (make sim-scale, the scenarios *_8k, *_32k, *_131k): the same runner with endpoints sized for what a
# permutation or a ring uses - 32 QPs per endpoint of up to 128 EVs each (a ring's or an all-to-all's steps in flight
# and lingering: allreduce_mp_8k, alltoall_mp_4k), a pool of 40 blocks (two QPs' 8 x 128-PSN windows), one EV format
# and profile, 2 memory regions - 74 KB per endpoint instead of 20 MB. Its runs are identical to
# mrc_simrun's where both fit (the same digest: docs/EVALUATION.md#scale); scenarios that need more QPs per host or more
# EVs per QP are refused.
SIM_SCALE_CAPS := -DMRC_MAX_CONNS=32 -DMRC_MAX_EVS=128 -DMRC_MAX_SQ=8 -DMRC_MAX_RQ=4 -DMRC_MAX_WIMM=4 \
            -DMRC_MAX_MPR_UNITS=8 -DMRC_POOL_BLOCKS=40 -DMRC_MAX_EV_PROFILES=1 -DMRC_MAX_EV_FMTS=1 -DMRC_MAX_MRS=2 \
            -DMRC_ENABLE_TRACE
SIM_DEPS := sim/mrc_simrun.c sim/mrc_sim.h ports/common/mrc_frame.h $(CORE)

.PHONY: sim sim-quick sim-quick-asan sim-golden soak sim-seeds sim-scale

$(B)/sim:
	@mkdir -p $(B)/sim

$(B)/sim/mrc_simrun: $(SIM_DEPS) | $(B)/sim
	$(CC) $(CSTD) $(WARN) -O2 -g $(SIM_CAPS) -o $@ sim/mrc_simrun.c

$(B)/sim/mrc_simrun_scale: $(SIM_DEPS) | $(B)/sim
	$(CC) $(CSTD) $(WARN) -O2 -g $(SIM_SCALE_CAPS) -o $@ sim/mrc_simrun.c

$(B)/sim/mrc_simrun_asan: $(SIM_DEPS) | $(B)/sim
	$(CC) $(ASANFL) $(SIM_CAPS) -o $@ sim/mrc_simrun.c

$(B)/sim/mrc_soak: sim/mrc_soak.c tests/fixtures/mrc_wire.h $(CORE) | $(B)/sim
	$(CC) $(CSTD) $(WARN) -O2 -g -o $@ sim/mrc_soak.c

sim-seeds: $(B)/sim/mrc_simrun
	SIM_JOBS=$(SIM_JOBS) tools/sim_seeds.sh $(B)/sim/mrc_simrun "$(SIM_SEEDS)" $(SIM_SCENARIOS)

soak: $(B)/sim/mrc_soak
	./$(B)/sim/mrc_soak --seconds $(SOAK_SECONDS) $(SOAK_ARGS)

sim: $(B)/sim/mrc_simrun
	./$(B)/sim/mrc_simrun --suite full --seed $(SIM_SEED) --seeds $(SIM_NSEEDS) --out $(SIM_OUT) $(SIM_ARGS)
	@echo "== $(SIM_OUT)/summary.md"; sed -n '/^## Targets/,/^## Every/p' $(SIM_OUT)/summary.md | sed '$$d'

sim-quick: $(B)/sim/mrc_simrun
	./$(B)/sim/mrc_simrun --suite quick --seed 1 --golden sim/golden --out $(B)/sim/quick $(SIM_ARGS)

sim-scale: $(B)/sim/mrc_simrun $(B)/sim/mrc_simrun_scale
	SIM_JOBS=$(SIM_JOBS) tools/sim_scale.sh ./$(B)/sim/mrc_simrun ./$(B)/sim/mrc_simrun_scale $(SIM_SCALE)

sim-quick-asan: $(B)/sim/mrc_simrun_asan
	ASAN_OPTIONS=abort_on_error=1:detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
	  ./$(B)/sim/mrc_simrun_asan --suite quick --seed 1 --golden sim/golden --out $(B)/sim/quick-asan $(SIM_ARGS)

sim-golden: $(B)/sim/mrc_simrun
	@mkdir -p sim/golden
	./$(B)/sim/mrc_simrun --suite quick --seed 1 --golden sim/golden --update-golden --out $(B)/sim/quick
