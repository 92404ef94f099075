# SPDX-License-Identifier: LGPL-3.0-or-later
# MDCACHE directory updates in parallel (issue #10, patch 0060): the
# consistency cases with the default MDCACHE, with every backend call
# delayed, and with the patch turned off; and the timing pair that shows
# creates in one directory overlap (and do not with the option off).
set(mdc_e2e_dir ${CMAKE_CURRENT_SOURCE_DIR})
sparse_e2e_test(e2e_mdcache_dir
  SOURCES ${mdc_e2e_dir}/e2e_mdcache_dir.c TIMEOUT 240)
sparse_e2e_run(e2e_mdcache_dir_latency e2e_mdcache_dir ARGS all 100
  HARNESS_ARGS --fsal-opts
    "Test_Hooks { Metadata_Latency_Ms = 2$<SEMICOLON> Latency_Scope = ALL$<SEMICOLON> }"
  TIMEOUT 240)
sparse_e2e_run(e2e_mdcache_dir_off e2e_mdcache_dir ARGS all 200
  HARNESS_ARGS --conf-extra "MDCACHE { Parallel_Dir_Updates = false$<SEMICOLON> }"
  TIMEOUT 240)
sparse_e2e_run(e2e_mdcache_parallel e2e_mdcache_dir ARGS parallel
  HARNESS_ARGS --fsal-opts
    "Test_Hooks { Metadata_Latency_Ms = 100$<SEMICOLON> Latency_Scope = ALL$<SEMICOLON> }"
  TIMEOUT 120)
sparse_e2e_run(e2e_mdcache_serial e2e_mdcache_dir ARGS serial
  HARNESS_ARGS --fsal-opts
    "Test_Hooks { Metadata_Latency_Ms = 100$<SEMICOLON> Latency_Scope = ALL$<SEMICOLON> }"
    --conf-extra "MDCACHE { Parallel_Dir_Updates = false$<SEMICOLON> }"
  TIMEOUT 120)
# Deterministic races (Test_Hooks Stall_Dir holds one backend call back after
# it has its result): each case fails with one safeguard of patch 0060
# taken out (docs/testing.md).
sparse_e2e_run(e2e_mdcache_race e2e_mdcache_dir ARGS race
  HARNESS_ARGS --fsal-opts
    "Test_Hooks { Stall_Dir = \"@STALL_DIR@\"$<SEMICOLON> Stall_Ms = 1500$<SEMICOLON> }"
  TIMEOUT 120)
# The upcall race (case 5 of e2e_mdcache_race) on FSAL_MEM, whose
# Test_Hooks (patch 0064) remove a name "from another node" and send the
# directory's invalidate, invalidate_close or update upcall while a lookup
# of it is held back; _off: the same under Ganesha 6.5's lock (the hook's
# upcall then waits for the lookup, no deadlock).
set(mdc_mem_hooks
  "Test_Hooks { Stall_Dir = \"@STALL_DIR@\"$<SEMICOLON> Stall_Ms = 1500$<SEMICOLON> }")
sparse_e2e_run(e2e_mdcache_upcall_mem e2e_mdcache_dir ARGS upcall
  HARNESS_ARGS --fsal MEM --fsal-opts "${mdc_mem_hooks}"
  TIMEOUT 120)
sparse_e2e_run(e2e_mdcache_upcall_mem_off e2e_mdcache_dir ARGS upcall locked
  HARNESS_ARGS --fsal MEM --fsal-opts "${mdc_mem_hooks}"
    --conf-extra "MDCACHE { Parallel_Dir_Updates = false$<SEMICOLON> }"
  TIMEOUT 120)
