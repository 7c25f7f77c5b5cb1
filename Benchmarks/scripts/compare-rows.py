#!/usr/bin/env python3
"""Compares consumer-bench binaries on the rows of one family (N1, N2, N3, P1...): runs each
binary's `--filter FAMILY --json` in turn for ROUNDS rounds and prints, for every row and binary,
the median time per dispatch, the median in-run ratio to the floor and the median growth from
the row with a tenth of the selectors (each round's growth in brackets). Progress goes to
standard error.

Usage: compare-rows.py FAMILY ROUNDS BINARY [BINARY ...]

Build each binary with `swift build -c release --product consumer-bench` in a checkout of the
commit to compare, and copy `.build/release/consumer-bench` aside."""
import json, subprocess, sys, statistics, collections

family, rounds, binaries = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
times = {b: collections.defaultdict(list) for b in binaries}
vs_floor = {b: collections.defaultdict(list) for b in binaries}
growth = {b: collections.defaultdict(list) for b in binaries}
rows = []
for r in range(rounds):
    for binary in binaries:
        out = subprocess.run([binary, "--filter", family, "--json"], capture_output=True, text=True).stdout
        for line in out.splitlines():
            if not line.startswith("{"):
                continue
            report = json.loads(line)
            title = report["title"]
            if title not in rows:
                rows.append(title)
            times[binary][title].append(report["ns_per_op"])
            vs_floor[binary][title].append(report.get("vs_floor", 0))
            growth[binary][title].append(report.get("growth", 0))
    print(f"round {r + 1}", file=sys.stderr, flush=True)
print("row | " + " | ".join(f"{b}: ns, vs floor, growth" for b in binaries))
for title in rows:
    cells = []
    for b in binaries:
        each = " ".join(f"{g:.1f}" for g in growth[b][title])
        cells.append(
            f"{statistics.median(times[b][title]):10.0f} {statistics.median(vs_floor[b][title]):5.2f}x "
            f"g{statistics.median(growth[b][title]):5.2f} [{each}]")
    print(f"{title[:48]:48s} | " + " | ".join(cells))
