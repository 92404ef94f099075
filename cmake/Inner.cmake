# SPDX-License-Identifier: LGPL-3.0-or-later
# Inner build: client library, CLI, unit tests and e2e test programs.
# None of them needs libntirpc: the client does its own XDR and RPC.

set(CMAKE_C_STANDARD 11)
set(CMAKE_C_EXTENSIONS ON)
add_compile_options(-Wall -Wextra -Wno-unused-parameter -Wno-sign-compare
                    -D_GNU_SOURCE)

# SPARSE_TOOLS_ONLY: the client library, nfs42 and sparse-stats alone,
# with their install rules (the nfs-sparse-tools package); no tests.
option(SPARSE_TOOLS_ONLY "build and install only tools/" OFF)
if(SPARSE_TOOLS_ONLY)
  add_subdirectory(tools)
  return()
endif()

# SPARSE_FUZZ: the clang libFuzzer variant builds only the in-process
# harness (its Ganesha is instrumented; nothing else is needed there).
option(SPARSE_FUZZ "build only the in-process libFuzzer harness" OFF)
if(SPARSE_FUZZ)
  enable_testing()
  add_subdirectory(tests/fuzz/inproc)
  return()
endif()

find_package(PkgConfig REQUIRED)
pkg_check_modules(CHECK REQUIRED IMPORTED_TARGET check)

enable_testing()
foreach(dir tools tests/unit tests/e2e tests/ceph tests/fuzz tests/linux tests/package tests/patches bench)
  if(EXISTS ${CMAKE_CURRENT_SOURCE_DIR}/${dir}/CMakeLists.txt)
    add_subdirectory(${dir})
  endif()
endforeach()
