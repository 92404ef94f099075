# SPDX-License-Identifier: LGPL-3.0-or-later
# Inner build: client library, CLI, unit tests and e2e test programs.
# None of them needs libntirpc: the client does its own XDR and RPC.

set(CMAKE_C_STANDARD 11)
set(CMAKE_C_EXTENSIONS ON)
add_compile_options(-Wall -Wextra -Wno-unused-parameter -Wno-sign-compare
                    -D_GNU_SOURCE)

find_package(PkgConfig REQUIRED)
pkg_check_modules(CHECK REQUIRED IMPORTED_TARGET check)

enable_testing()
foreach(dir tools tests/unit tests/e2e tests/fuzz tests/linux bench)
  if(EXISTS ${CMAKE_CURRENT_SOURCE_DIR}/${dir}/CMakeLists.txt)
    add_subdirectory(${dir})
  endif()
endforeach()
