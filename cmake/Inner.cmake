# SPDX-License-Identifier: LGPL-3.0-or-later
# Inner build: client library, CLI, unit tests and e2e test programs.
set(NTIRPC_PREFIX "" CACHE PATH "prefix holding include/ntirpc and lib/libntirpc.so")
if(NOT NTIRPC_PREFIX)
  message(FATAL_ERROR "SPARSE_INNER needs -DNTIRPC_PREFIX=<staging prefix>")
endif()

set(CMAKE_C_STANDARD 11)
set(CMAKE_C_EXTENSIONS ON)
add_compile_options(-Wall -Wextra -Wno-unused-parameter -Wno-sign-compare
                    -D_GNU_SOURCE)

find_library(NTIRPC_LIBRARY ntirpc PATHS ${NTIRPC_PREFIX}/lib
             ${NTIRPC_PREFIX}/lib64 NO_DEFAULT_PATH REQUIRED)
set(NTIRPC_INCLUDE_DIR ${NTIRPC_PREFIX}/include/ntirpc)
set(CMAKE_BUILD_RPATH ${NTIRPC_PREFIX}/lib)

find_package(PkgConfig REQUIRED)
pkg_check_modules(CHECK REQUIRED IMPORTED_TARGET check)

enable_testing()
foreach(dir tools tests/unit tests/e2e bench)
  if(EXISTS ${CMAKE_CURRENT_SOURCE_DIR}/${dir}/CMakeLists.txt)
    add_subdirectory(${dir})
  endif()
endforeach()
