# READDIR replies up to the client's maxcount (patch 0130) with the kernel
# client: rm -r without LOOKUPs, ls -l in few READDIRs (t_readdir.sh).
sparse_linux_test(readdir t_readdir.sh TIMEOUT 300)
