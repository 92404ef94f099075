#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-3.0-or-later
# Copyright (C) 2026 The nfs-sparse authors
"""The matrix of docs/stateids.md, from the tables the tests use.

stateid-matrix-doc.py [--check] [DOC]

Reads tests/e2e/stateid_matrix_rfc.txt (the RFC's answers, sections,
why cells differ), tests/e2e/stateid_matrix.txt (ours: what
e2e_proto_stateid_matrix requires of our server) and
tests/linux/stateid_matrix_knfsd.txt (knfsd's: what the run of the same
test against knfsd in the linux lane's guest printed, linux/knfsd_matrix)
and writes the part of DOC (docs/stateids.md) between its two markers.
--check: exit 1 when DOC is not what it would write (ctest docs/stateids).
"""
import sys
from pathlib import Path

TOP = Path(__file__).resolve().parent.parent
BEGIN = "<!-- matrix: scripts/stateid-matrix-doc.py writes from here -->"
END = "<!-- end of the matrix -->"
KIND_TEXT = {
    "open_r": "open, read only",
    "open_w": "open, write only",
    "open_rw": "open, read and write",
    "lock": "lock",
    "deleg_r": "read delegation",
    "deleg_w": "write delegation",
    "anon": "anonymous (all zeros)",
    "bypass": "READ bypass (all ones)",
    "current": "current stateid, none set",
    "old": "open, an older seqid",
    "closed": "open, closed",
    "other_cl": "another client's open",
    "other_file": "an open of another file",
    "layout": "layout",
    "open_w_dr": "open, write only, another client's open denying reads",
    "revoked": "a revoked read delegation",
}


def grid(path):
    """(kinds, {op: [answers]}) of a table file."""
    kinds, rows = None, {}
    for line in Path(path).read_text().splitlines():
        words = line.split()
        if not words:
            continue
        if words[0] == "#" and len(words) > 2 and words[1] == "op":
            kinds = words[2:]
            continue
        if words[0][0] in "#@!":
            continue
        rows[words[0]] = words[1:]
    if kinds is None:
        sys.exit(f"{path}: no '# op kind...' header")
    for op, cells in rows.items():
        if len(cells) != len(kinds):
            sys.exit(f"{path}: row {op} has {len(cells)} cells, not {len(kinds)}")
    return kinds, rows


def notes(path):
    """({op: sections}, {(op, kind): why})"""
    sections, why = {}, {}
    for line in Path(path).read_text().splitlines():
        if line.startswith("@"):
            op, text = line[1:].split(" ", 1)
            sections[op] = text
        elif line.startswith("! "):
            op, kind, text = line[2:].split(" ", 2)
            why[(op, kind)] = text
    return sections, why


def render():
    rfc_path = TOP / "tests/e2e/stateid_matrix_rfc.txt"
    kinds, rfc = grid(rfc_path)
    k2, ours = grid(TOP / "tests/e2e/stateid_matrix.txt")
    k3, knfsd = grid(TOP / "tests/linux/stateid_matrix_knfsd.txt")
    if k2 != kinds or k3 != kinds or set(ours) != set(rfc) or set(knfsd) != set(rfc):
        sys.exit("the three tables do not have the same rows and columns")
    sections, why = notes(rfc_path)
    out = [BEGIN, ""]
    differ = 0
    for op, cells in rfc.items():
        out += [f"### {op}", "", sections.get(op, ""), "",
                "| stateid | RFC | knfsd | ours | why they differ (or differed) |",
                "| --- | --- | --- | --- | --- |"]
        for i, kind in enumerate(kinds):
            r, k, o = cells[i], knfsd[op][i], ours[op][i]
            agree = o == k and o in r.split("|")
            text = why.get((op, kind), "")
            if not agree and not text:
                # a reason for a whole row or column ("*")
                text = why.get((op, "*"), why.get(("*", kind), ""))
            if not agree:
                differ += 1
                if not text:
                    text = "(not explained yet)"
            mark = "" if agree else " **≠**"
            out.append(f"| {KIND_TEXT.get(kind, kind)} | {r.replace('|', ' or ')} "
                       f"| {k} | {o}{mark} | {text} |")
        out.append("")
    out.insert(2, f"{len(rfc)} operations x {len(kinds)} kinds of stateid: "
               f"{len(rfc) * len(kinds)} cells, {differ} where ours, knfsd's "
               "and the RFC's answers do not all agree (**≠**).\n")
    out.append(END)
    return "\n".join(out)


def main():
    args = sys.argv[1:]
    check = "--check" in args
    args = [a for a in args if a != "--check"]
    doc = Path(args[0]) if args else TOP / "docs/stateids.md"
    text = doc.read_text()
    try:
        head, rest = text.split(BEGIN, 1)
        _, tail = rest.split(END, 1)
    except ValueError:
        sys.exit(f"{doc}: the matrix markers are missing")
    new = head + render() + tail
    if check:
        if new != text:
            sys.exit(f"{doc}: the matrix is not what {sys.argv[0]} writes "
                     "from the tables: run it")
        return
    doc.write_text(new)


if __name__ == "__main__":
    main()
