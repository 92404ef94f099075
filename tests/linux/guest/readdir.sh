# Guest: READDIR reply size (patch 0130) seen from the Linux client, on a
# fresh vers=4.2 mount each. The client asks file handles and attributes
# ("plus") only in its first READDIR (65448 bytes) of a directory it does
# not stat, and looks up by name every entry that came in a later one
# before removing it. $1 files in readdir/rm (about 53 KB of entries, so
# one reply when replies fill the client's maxcount; about 150 entries fit
# Ganesha 6.5's 32 KiB): rm -r sends no LOOKUP, one REMOVE per name
# (98 LOOKUPs with 32 KiB replies). $2 files in readdir/ls: ls -l reads
# them all in at most 3 READDIRs (65448 bytes, then the client's larger
# sizes: 2; 32 KiB replies: 4).
nrm=$1 nls=$2
M=/mnt/rd
d=$M/readdir
nfs_mount 4.2 $M
stat $d/ls >/dev/null
ls0=$(mstat_ops $M READDIR)
check_eq "ls -l: every file listed" "$(ls -l $d/ls | grep -c ' hdr_')" "$nls"
rd=$(($(mstat_ops $M READDIR) - ls0))
check "ls -l of $nls files: at most 3 READDIRs ($rd)" test $rd -le 3
umount $M
nfs_mount 4.2 $M
stat $d/rm >/dev/null
lk0=$(mstat_ops $M LOOKUP) rm0=$(mstat_ops $M REMOVE)
rm -r $d/rm
check "rm -r: gone" test ! -e $d/rm
check_eq "rm -r of $nrm files: LOOKUPs" "$(($(mstat_ops $M LOOKUP) - lk0))" 0
check_eq "rm -r of $nrm files: REMOVEs (the directory too)" \
	"$(($(mstat_ops $M REMOVE) - rm0))" $((nrm + 1))
umount $M
g_done
