/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* Copyright (C) 2026 The nfs-sparse authors */

/*
 * The change attribute FSAL_SPARSE reports (RFC 8881 5.8.1.4: it must
 * change whenever the object does).  It is made of ctime/mtime, which
 * the kernel may keep only to the clock tick (ext4 and XFS before Linux
 * 6.13; tmpfs gives a directory the removed file's time), so two changes
 * within one tick could give one value and a client would miss the
 * second.  This module remembers, for recently seen objects, the last
 * value reported and whether the server changed the object since: a
 * change made through the FSAL (sparse_change_touch) always reports a
 * value above the last one, and a value never goes back below one
 * reported.  Free of Ganesha headers, unit tested (check_sparse_change).
 *
 * What it cannot do: see a change made by a local process within the tick
 * of the last report, or remember more than SPARSE_CHANGE_WAYS objects of
 * one set (sets are picked by a hash of the object; the least recently
 * seen is forgotten, after which its value follows ctime/mtime again).
 */

#ifndef SPARSE_CHANGE_H
#define SPARSE_CHANGE_H

#include <stdint.h>

#define SPARSE_CHANGE_SETS 16384 /* a power of two */
#define SPARSE_CHANGE_WAYS 4

/* The server changed object (dev, ino), or is about to: the next value
 * reported for it is above the last.
 */
void sparse_change_touch(uint64_t dev, uint64_t ino);

/*
 * The change attribute to report for object (dev, ino) whose ctime/mtime
 * make `raw` (nanoseconds, the larger of the two): raw, or above it when
 * raw would not show a change the server made, or would go below a value
 * reported before.
 */
uint64_t sparse_change_report(uint64_t dev, uint64_t ino, uint64_t raw);

/* Forget everything (unit tests). */
void sparse_change_reset(void);

#endif /* SPARSE_CHANGE_H */
