# Open and lock state between the kernel client and a host client
# (t_state.sh, guest/state.sh): a read delegation recalled by the host's
# nfs42 writing the file; flock/fcntl against linux_lock's write lock.
add_executable(linux_lock ${CMAKE_CURRENT_SOURCE_DIR}/linux_lock.c)
target_link_libraries(linux_lock PRIVATE nfs42c)
sparse_linux_test(state t_state.sh ARGS deleg,locks TIMEOUT 600
  HARNESS_ARGS --nfsv4-opts "Delegations = true$<SEMICOLON>"
               --export-opts "Delegations = Read$<SEMICOLON>"
  ENV SPARSE_LINUX_LOCK=$<TARGET_FILE:linux_lock>)
