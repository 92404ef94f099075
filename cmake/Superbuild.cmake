# SPDX-License-Identifier: LGPL-3.0-or-later
# Superbuild: fetch + verify + unpack + patch + overlay, then build ntirpc,
# Ganesha (with FSAL_SPARSE) and our inner project into one staging prefix.
include(ExternalProject)

set(SPARSE_SOURCE_CACHE "$ENV{HOME}/.cache/nfs-sparse/sources" CACHE PATH
    "where the verified Debian source tarballs are kept between builds")
option(SPARSE_SANITIZE "build everything with ASan and UBSan" OFF)
# SPARSE_FUZZ: ntirpc + Ganesha + FSAL_SPARSE built by clang with libFuzzer's
# coverage (fuzzer-no-link), ASan and UBSan, and only the in-process
# coverage-guided harness on top (tests/fuzz/inproc, docs/testing.md).
# Its own build tree (scripts/build.sh --fuzz: build-fuzz/).
option(SPARSE_FUZZ "clang libFuzzer variant: Ganesha + the in-process harness" OFF)
# SPARSE_FUZZ_INPROC: the normal build's CI test fuzz/inproc builds that
# variant (build-fuzz/) and runs it for 75 s; OFF: it is skipped unless
# SPARSE_FUZZ_INPROC=1 is in the test's environment.
option(SPARSE_FUZZ_INPROC "CI: build the libFuzzer variant and run fuzz/inproc" OFF)

set(DEPS_DIR ${CMAKE_BINARY_DIR}/_deps)
set(STAGE ${CMAKE_BINARY_DIR}/stage)
file(STRINGS cmake/sources.pins _pins REGEX "^nfs-ganesha ")
string(REGEX MATCH "^nfs-ganesha +([^ ]+)" _m "${_pins}")
set(GANESHA_VERSION ${CMAKE_MATCH_1})
file(STRINGS cmake/sources.pins _pins REGEX "^ntirpc ")
string(REGEX MATCH "^ntirpc +([^ ]+)" _m "${_pins}")
set(NTIRPC_VERSION ${CMAKE_MATCH_1})

# Re-run this configure step when patches, pins or our src/ tree change,
# so the overlay links and patch set are always current.
file(GLOB_RECURSE _watched CONFIGURE_DEPENDS
     ${CMAKE_SOURCE_DIR}/patches/*.patch ${CMAKE_SOURCE_DIR}/src/*)
set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS
             ${CMAKE_SOURCE_DIR}/cmake/sources.pins
             ${CMAKE_SOURCE_DIR}/patches/series
             ${CMAKE_SOURCE_DIR}/patches/ntirpc/series ${_watched})

function(run_step)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "step failed (${rc}): ${ARGN}")
  endif()
endfunction()

run_step(${CMAKE_SOURCE_DIR}/scripts/install-deps.sh)
run_step(${CMAKE_SOURCE_DIR}/cmake/fetch-sources.sh ${SPARSE_SOURCE_CACHE})
run_step(${CMAKE_SOURCE_DIR}/cmake/prepare-sources.sh ${SPARSE_SOURCE_CACHE}
         ${DEPS_DIR} ${CMAKE_SOURCE_DIR})

if(NOT CMAKE_BUILD_TYPE)
  set(CMAKE_BUILD_TYPE RelWithDebInfo)
endif()
set(san_flags "")
set(san_link_flags "")
set(ganesha_san_define "")
if(SPARSE_SANITIZE)
  set(san_flags "-fsanitize=address,undefined -fno-omit-frame-pointer")
  # Ganesha dlopen()s FSALs with RTLD_DEEPBIND unless SANITIZE_ADDRESS is
  # defined; ASan refuses DEEPBIND.
  set(ganesha_san_define "-DSANITIZE_ADDRESS")
endif()

set(compiler_args "")
if(SPARSE_FUZZ)
  find_program(SPARSE_FUZZ_CC NAMES clang-14 clang REQUIRED)
  find_program(SPARSE_FUZZ_CXX NAMES clang++-14 clang++ REQUIRED)
  set(compiler_args -DCMAKE_C_COMPILER=${SPARSE_FUZZ_CC}
                    -DCMAKE_CXX_COMPILER=${SPARSE_FUZZ_CXX})
  set(san_flags "-fsanitize=fuzzer-no-link,address,undefined -fno-omit-frame-pointer")
  set(ganesha_san_define "-DSANITIZE_ADDRESS")
  # clang links its static ASan runtime into executables only: shared
  # libraries (libntirpc, libganesha_nfsd built with --no-undefined, the
  # FSALs) take the shared runtime, and so does the harness
  execute_process(COMMAND ${SPARSE_FUZZ_CC} -print-file-name=libclang_rt.asan-x86_64.so
                  OUTPUT_VARIABLE asan_so OUTPUT_STRIP_TRAILING_WHITESPACE)
  get_filename_component(asan_dir "${asan_so}" DIRECTORY)
  set(san_link_flags "-shared-libsan -Wl,-rpath,${asan_dir}")
endif()

string(STRIP "${san_flags} ${san_link_flags}" san_ld_flags)
set(common_args
  ${compiler_args}
  -DCMAKE_BUILD_TYPE=${CMAKE_BUILD_TYPE}
  -DCMAKE_INSTALL_PREFIX=${STAGE}
  -DCMAKE_INSTALL_RPATH=${STAGE}/lib
  -DCMAKE_C_FLAGS=${san_flags}
  -DCMAKE_EXE_LINKER_FLAGS=${san_ld_flags}
  -DCMAKE_SHARED_LINKER_FLAGS=${san_ld_flags}
  -DCMAKE_MODULE_LINKER_FLAGS=${san_ld_flags})

ExternalProject_Add(ntirpc
  SOURCE_DIR ${DEPS_DIR}/ntirpc-${NTIRPC_VERSION}
  BINARY_DIR ${CMAKE_BINARY_DIR}/ntirpc
  INSTALL_DIR ${STAGE}
  CMAKE_ARGS ${common_args} -DUSE_GSS=OFF -DUSE_LTTNG=OFF
  DOWNLOAD_COMMAND "" UPDATE_COMMAND ""
  # make decides: a re-unpacked (re-patched) tree is rebuilt and installed
  BUILD_ALWAYS ON)

# What Ganesha is built with: the FSALs we serve or compare against (SPARSE,
# VFS, MEM), the Ceph path (FSAL_CEPH, the RADOS recovery backends with
# ganesha-rados-grace, RADOS URLs in the configuration: librados-dev and
# libcephfs-dev, docs/cluster.md) and nothing that needs libraries we do not
# ship.  ON means required: a missing library stops the configure step.
set(ganesha_args
  -DUSE_SYSTEM_NTIRPC=ON -DNTIRPC_PREFIX=${STAGE}
  -DUSE_FSAL_SPARSE=ON -DUSE_FSAL_VFS=ON -DUSE_FSAL_MEM=ON
  -DUSE_FSAL_PROXY_V4=OFF -DUSE_FSAL_PROXY_V3=OFF -DUSE_FSAL_LUSTRE=OFF
  -DUSE_FSAL_LIZARDFS=OFF -DUSE_FSAL_KVSFS=OFF -DUSE_FSAL_CEPH=ON
  -DUSE_FSAL_GPFS=OFF -DUSE_FSAL_GLUSTER=OFF -DUSE_FSAL_RGW=OFF
  -DUSE_FSAL_SAUNAFS=OFF -DUSE_FSAL_NULL=OFF
  -DUSE_DBUS=ON -DUSE_9P=OFF -DUSE_RADOS_RECOV=ON -DRADOS_URLS=ON
  -D_MSPAC_SUPPORT=OFF -DUSE_NFSIDMAP=OFF -DUSE_LTTNG=OFF -DUSE_GSS=OFF
  -DUSE_MONITORING=OFF -DUSE_GUI_ADMIN_TOOLS=OFF -DUSE_ADMIN_TOOLS=OFF
  -DUSE_NFS_RDMA=OFF -DUSE_UNWIND=OFF -DUSE_LEGACY_PYTHON_INSTALL=OFF
  -DUSE_MAN_PAGE=OFF -DALLOCATOR=libc)

ExternalProject_Add(ganesha
  SOURCE_DIR ${DEPS_DIR}/nfs-ganesha-${GANESHA_VERSION}/src
  BINARY_DIR ${CMAKE_BINARY_DIR}/ganesha
  INSTALL_DIR ${STAGE}
  CMAKE_ARGS ${common_args} ${ganesha_args}
             "-DCMAKE_C_FLAGS=${san_flags} ${ganesha_san_define}"
  DOWNLOAD_COMMAND "" UPDATE_COMMAND ""
  BUILD_ALWAYS ON
  DEPENDS ntirpc)

# Our client, CLI, unit and e2e test programs: this same tree, inner mode.
ExternalProject_Add(inner
  SOURCE_DIR ${CMAKE_SOURCE_DIR}
  BINARY_DIR ${CMAKE_BINARY_DIR}/inner
  CMAKE_ARGS -DSPARSE_INNER=ON -DCMAKE_BUILD_TYPE=${CMAKE_BUILD_TYPE}
             ${compiler_args} -DSPARSE_FUZZ=${SPARSE_FUZZ}
             -DSPARSE_FUZZ_INPROC=${SPARSE_FUZZ_INPROC}
             -DGANESHA_PREFIX=${STAGE}
             -DGANESHA_INCLUDE=${DEPS_DIR}/nfs-ganesha-${GANESHA_VERSION}/src/include
             -DGANESHA_CONFIG_INCLUDE=${CMAKE_BINARY_DIR}/ganesha/include
             -DCMAKE_C_FLAGS=${san_flags}
             -DCMAKE_EXE_LINKER_FLAGS=${san_ld_flags}
  BUILD_ALWAYS ON
  INSTALL_COMMAND ""
  DEPENDS ganesha)

# `ctest --test-dir <build>` runs the inner project's tests (no
# enable_testing() here: it would overwrite this file).
file(WRITE ${CMAKE_BINARY_DIR}/CTestTestfile.cmake
     "subdirs(\"${CMAKE_BINARY_DIR}/inner\")\n")
