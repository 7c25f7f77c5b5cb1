#!/usr/bin/env bash
# Times `consumer-demo run` (release build) on generated scripts, with the diffs written to a file:
# add-work scripts of 10,000 and 100,000 lines (goal: the 100,000-line run in <= 10 s, and at most
# 12x the 10,000-line run), a mixed 40,000-line script and 10,000 increments. Prints one line per
# script (the best of REPEATS runs by wall-clock time, 5 by default, the scripts taking turns, with
# that run's CPU time) and the growth ratio. The scripts and outputs live in a temporary directory
# that is removed at the end; nothing is committed.
# Usage: Benchmarks/scripts/time-demo-run.sh  (from the package root; REPEATS=9 for more runs)
set -euo pipefail
repeats="${REPEATS:-5}"

swift build -c release --product consumer-demo >/dev/null
demo="$(swift build -c release --show-bin-path)/consumer-demo"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

# add-work "work 0", add-work "work 1", ...
add_work_script() {
    awk -v lines="$1" 'BEGIN { for (i = 0; i < lines; i++) printf "add-work \"work %d\"\n", i }'
}

# A seeded mix of every command; remove-work only names a work that exists.
mixed_script() {
    awk -v lines="$1" 'BEGIN {
        seed = 12345; works = 0
        for (i = 0; i < lines; i++) {
            seed = (seed * 1103515245 + 12345) % 2147483648
            pick = seed % 10
            if (pick < 4) { printf "add-work \"task %d\"\n", i; works++ }
            else if (pick < 6) print "increment"
            else if (pick == 6 && works > 0) { printf "remove-work %d\n", (seed / 10) % works; works-- }
            else if (pick == 7) printf "rename \"user %d\"\n", i % 100
            else if (pick == 8) print (i % 2 ? "login alice" : "logout")
            else print (i % 2 ? "foreground on" : "foreground off")
        }
    }'
}

# "WALL CPU": milliseconds of wall-clock and of CPU (user + system) time of one run of
# `consumer-demo run $1`, its output written to $work/$2.
milliseconds() {
    local TIMEFORMAT='%R %U %S'
    { time "$demo" run "$1" >"$work/$2" 2>/dev/null; } 2>&1 |
        awk '{ printf "%d %d\n", $1 * 1000, ($2 + $3) * 1000 }'
}

# The pair with the smaller wall-clock time of "WALL CPU" pairs $1 and $2 ($1 may be empty).
least() {
    if [[ -z "$1" || "${2%% *}" -lt "${1%% *}" ]]; then echo "$2"; else echo "$1"; fi
}

# One line for a "WALL CPU" pair: seconds and microseconds per script line.
report() {
    local name="$1" lines="$2" wall="${3%% *}" cpu="${3##* }"
    awk -v name="$name" -v lines="$lines" -v wall="$wall" -v cpu="$cpu" 'BEGIN {
        printf "%-27s %7d lines  %6.2f s  %6.1f us/line  (cpu %.2f s)\n",
            name, lines, wall / 1000, wall * 1000 / lines, cpu / 1000
    }'
}

add_work_script 10000 >"$work/add-work-10k.txt"
add_work_script 100000 >"$work/add-work-100k.txt"
mixed_script 40000 >"$work/mixed-40k.txt"
awk 'BEGIN { for (i = 0; i < 10000; i++) print "increment" }' >"$work/increment-10k.txt"

if ! "$demo" run "$work/mixed-40k.txt" >/dev/null; then
    echo "error: the mixed script has an error; fix mixed_script" >&2
    exit 1
fi

# The two add-work sizes take turns, so that a busy neighbour slows both alike; the best of
# $repeats runs of each is kept.
small_ms="" large_ms="" mixed_ms="" increment_ms=""
for ((run = 0; run < repeats; run++)); do
    small_ms=$(least "$small_ms" "$(milliseconds "$work/add-work-10k.txt" out-10k.txt)")
    large_ms=$(least "$large_ms" "$(milliseconds "$work/add-work-100k.txt" out-100k.txt)")
    mixed_ms=$(least "$mixed_ms" "$(milliseconds "$work/mixed-40k.txt" out-mixed.txt)")
    increment_ms=$(least "$increment_ms" "$(milliseconds "$work/increment-10k.txt" out-increment.txt)")
done
if [[ "$(grep -c '^       + works\[' "$work/out-100k.txt")" -ne 100000 ]]; then
    echo "error: the 100,000-line run did not print 100,000 added works" >&2
    exit 1
fi

report "consumer-demo run add-work" 10000 "$small_ms"
report "consumer-demo run add-work" 100000 "$large_ms"
awk -v small="${small_ms%% *}" -v large="${large_ms%% *}" \
    'BEGIN { printf "growth 10k -> 100k lines: %.1fx (goal <= 12x; 100k goal <= 10 s)\n", large / small }'
report "consumer-demo run mixed" 40000 "$mixed_ms"
report "consumer-demo run increment" 10000 "$increment_ms"
