#!/usr/bin/env python3
"""Compares consumer-bench binaries on the rows of one or more families (N1, N2, N3, P1, S1...):
runs each binary's `--filter FAMILY --json` in turn, family by family, for ROUNDS rounds and
prints, for every row and binary, the median time per operation, then the medians of the row's
in-run ratios that it reports: to the floor, the growth from the row with a tenth of the
selectors, and, for N consumers, the ratio to one consumer with as many members (each round's
value in brackets). Progress goes to standard error.

Usage: compare-rows.py FAMILY[,FAMILY...] ROUNDS BINARY [BINARY ...]

Build each binary with `swift build -c release --product consumer-bench` in a checkout of the
commit to compare, and copy `.build/release/consumer-bench` aside."""
import json, subprocess, sys, statistics, collections

families, rounds, binaries = sys.argv[1].split(","), int(sys.argv[2]), sys.argv[3:]
ratios = [("vs_floor", "floor"), ("growth", "growth"), ("vs_1_consumer", "vs 1 consumer")]
values = {b: collections.defaultdict(lambda: collections.defaultdict(list)) for b in binaries}
rows = []
for r in range(rounds):
    for family in families:
        for binary in binaries:
            out = subprocess.run([binary, "--filter", family, "--json"], capture_output=True, text=True).stdout
            for line in out.splitlines():
                if not line.startswith("{"):
                    continue
                report = json.loads(line)
                title = f"{report['scenario']} {report['title']}"
                if title not in rows:
                    rows.append(title)
                values[binary][title]["ns_per_op"].append(report["ns_per_op"])
                for key, _ in ratios:
                    if key in report:
                        values[binary][title][key].append(report[key])
    print(f"round {r + 1}", file=sys.stderr, flush=True)
print("row | " + " | ".join(f"{b}: ns, " + ", ".join(label for _, label in ratios) for b in binaries))
for title in rows:
    cells = []
    for b in binaries:
        row = values[b][title]
        cell = f"{statistics.median(row['ns_per_op']):10.0f}"
        for key, label in ratios:
            if row[key]:
                each = "/".join(f"{v:.2f}" for v in row[key])
                cell += f" {label} {statistics.median(row[key]):.2f}× [{each}]"
        cells.append(cell)
    print(f"{title[:60]:60s} | " + " | ".join(cells))
