#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-3.0-or-later
# Copyright (C) 2026 The nfs-sparse authors
#
# fsal_opens_check.sh [SRC_DIR]: every open of FSAL_SPARSE is O_NONBLOCK
# (issue #26 item 5): no FSAL_SPARSE source but sparse_open.c calls open(2)
# or a relative itself; the others go through sparse_open.h's calls, which
# add O_NONBLOCK, so that an open that would break a lease answers
# NFS4ERR_DELAY instead of sleeping in the kernel's __break_lease.  (Files
# that include sparse_int.h fail to build on a raw call as well: the
# header poisons them; this check covers the ones that do not.)
set -euo pipefail

src=${1:-$(cd "$(dirname "$0")/../../src/FSAL/FSAL_SPARSE" && pwd)}
bad=0
checked=0
for f in "$src"/*.c "$src"/*.h; do
	case "$(basename "$f")" in sparse_open.c | sparse_open.h) continue ;; esac
	checked=$((checked + 1))
	# comments and string literals out, then the calls
	hits=$(python3 - "$f" <<'PY'
import re, sys
text = open(sys.argv[1]).read()
text = re.sub(r'/\*.*?\*/', lambda m: '\n' * m.group(0).count('\n'), text, flags=re.S)
text = re.sub(r'//[^\n]*', '', text)
text = re.sub(r'"(\\.|[^"\\])*"', '""', text)
call = re.compile(r'(?<![\w.>])(open|openat|openat2|open_by_handle_at|creat|fopen|freopen|fdopen|opendir)\s*\(|syscall\s*\(\s*SYS_(open|openat|openat2|open_by_handle_at|creat)\b')
for n, line in enumerate(text.split('\n'), 1):
    if call.search(line):
        print(f"{sys.argv[1]}:{n}: {line.strip()}")
PY
)
	if [ -n "$hits" ]; then
		echo "$hits" >&2
		bad=$((bad + 1))
	fi
done
if [ "$bad" -ne 0 ]; then
	echo "FAIL: $bad FSAL_SPARSE files open files without sparse_open.h (O_NONBLOCK)" >&2
	exit 1
fi
[ "$checked" -gt 10 ] || { echo "FAIL: only $checked files found in $src" >&2; exit 1; }
echo "ok: $checked FSAL_SPARSE sources, every open through sparse_open.h"
