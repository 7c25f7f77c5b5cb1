#!/usr/bin/env python3
"""Compares two consumer-bench binaries on S1-S7: alternates them, each scenario run alone
(`--filter ... --json`), for ROUNDS rounds (default 3), and prints a Markdown table of the best
and the median per scenario with the ratio NEW/OLD. Progress goes to standard error.

Usage: compare-engines.py OLD_BINARY NEW_BINARY [ROUNDS]

Build each binary with `swift build -c release --product consumer-bench` in a checkout of the
commit to compare (e.g. a `git worktree`), and copy `.build/release/consumer-bench` aside."""
import json, subprocess, sys, statistics
old, new = sys.argv[1], sys.argv[2]
rounds = int(sys.argv[3]) if len(sys.argv) > 3 else 3
scenarios = [("S1", "no subscribers"), ("S2", "S2"), ("S3", "S3"), ("S4", "S4"), ("S5", "S5"), ("S6", "S6"), ("S7", "S7")]
results = {s: {"old": [], "new": []} for s, _ in scenarios}
def run(binary, flt):
    out = subprocess.run([binary, "--filter", flt, "--json"], capture_output=True, text=True).stdout
    for line in out.splitlines():
        try:
            obj = json.loads(line)
        except Exception:
            continue
        return obj["ns_per_op"]
for r in range(rounds):
    for sid, flt in scenarios:
        for name, binary in (("old", old), ("new", new)):
            results[sid][name].append(run(binary, flt))
        print(f"round {r+1} {sid}: old {results[sid]['old'][-1]:.1f} new {results[sid]['new'][-1]:.1f}", file=sys.stderr, flush=True)
print("| scenario | previous engine (best of %d) | this engine (best of %d) | ratio | medians |" % (rounds, rounds))
print("| --- | ---: | ---: | ---: | --- |")
for sid, _ in scenarios:
    o, n = min(results[sid]["old"]), min(results[sid]["new"])
    print(f"| {sid} | {o:,.1f} ns | {n:,.1f} ns | {n/o:.2f}× | {statistics.median(results[sid]['old']):,.1f} / {statistics.median(results[sid]['new']):,.1f} |")
