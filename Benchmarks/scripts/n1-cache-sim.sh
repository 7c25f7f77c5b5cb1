#!/usr/bin/env bash
# Counts, deterministically, what one N1-shaped dispatch costs beyond the cache: instructions and
# simulated misses of a 512 KB last-level data cache (this machine's second-level cache per core),
# per dispatch, under callgrind.
#
# Timed runs of 10,000 selectors move by 10-30% from one process to the next on this machine, far
# more than the changes they are meant to judge; the instruction and miss counts do not move.
#
# Usage: n1-cache-sim.sh CHECKOUT [CHECKOUT ...]
#   Builds a small driver (release, against each CHECKOUT's ReduxConsumer) in a temporary
#   directory and prints, for each configuration below and each checkout, the instructions and
#   simulated data misses per dispatch. A configuration is "N kind layout period dispatches":
#   N selectors on distinct `Int` slots; kind `c` (closure selectors) or `k` (key paths `\.slots[i]`);
#   layout `1` (one consumer with N members) or `n` (N consumers with one member each); one slot
#   in `period` changes per dispatch (1: all fire, as N1's 100% rows).
#
# Needs valgrind. Set CONFIGS to measure other configurations.
#
# MODE=time times the same drivers instead, without valgrind: for each configuration, ROUNDS
# (default 3) rounds that run each checkout's driver in turn for SECONDS_PER_RUN (default 1.5)
# seconds of batched dispatches, printing each run's median and minimum nanoseconds per dispatch
# (the configuration's last field is ignored). Timings move by 10-40% between processes here:
# compare checkouts only within one such run.
set -euo pipefail

CONFIGS=${CONFIGS:-"1000 c 1 1 10|10000 c 1 1 2|1000 c n 1 10|10000 c n 1 2|1000 k 1 1 3|10000 k 1 1 1|1000 k n 1 3|10000 k n 1 1|10000 c 1 10 4|10000 c 1 100 4"}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

drivers=()
for checkout in "$@"; do
    checkout=$(cd "$checkout" && pwd)
    dir="$work/driver$((${#drivers[@]} + 1))"
    mkdir -p "$dir/Sources/driver"
    cat > "$dir/Package.swift" <<EOF
// swift-tools-version:6.0
import PackageDescription
let package = Package(
    name: "driver",
    dependencies: [.package(path: "$checkout")],
    targets: [
        .executableTarget(
            name: "driver", dependencies: [.product(name: "ReduxConsumer", package: "$(basename "$checkout" | tr "[:upper:]" "[:lower:]")")])
    ]
)
EOF
    cat > "$dir/Sources/driver/main.swift" <<'EOF'
import Dispatch
import ReduxConsumer

struct Slots: Sendable { var slots: [Int] }
enum Bump: Action { case round(Int) }
final class Sink: @unchecked Sendable {
    var total = 0
    @inline(never) func record(_ step: Int) { total &+= step }
}

let arguments = CommandLine.arguments
let (count, kind, layout) = (Int(arguments[1])!, arguments[2], arguments[3])
let (period, dispatches) = (Int(arguments[4])!, Int(arguments[5])!)
let reducer = Reducer<Slots> { (state, action: Bump) in
    guard case .round(let round) = action else { return }
    var slot = (period - round % period) % period
    while slot < state.slots.count {
        state.slots[slot] &+= 1
        slot += period
    }
}
let store = Store(initialState: Slots(slots: Array(repeating: 0, count: count)), reducer: reducer)
let sink = Sink()
var subscriptions: [Subscription] = []
func add(_ index: Int, to consumer: StateConsumer<Slots>) {
    if kind == "c" {
        consumer.add({ $0.slots[index] }) { old, new in sink.record(new - old) }
    } else {
        consumer.add(\Slots.slots[index]) { old, new in sink.record(new - old) }
    }
}
if layout == "n" {
    for index in 0..<count {
        let consumer = StateConsumer<Slots>()
        subscriptions.append(store.subscribe(consumer))
        add(index, to: consumer)
    }
} else {
    let consumer = StateConsumer<Slots>()
    subscriptions.append(store.subscribe(consumer))
    for index in 0..<count { add(index, to: consumer) }
}
// What callgrind counts (`--toggle-collect`): these dispatches, not the set-up or the warm-up
// (a loop of the top-level code: a function with the same body could be folded into this one).
@inline(never) func measuredDispatches(_ count: Int, from first: Int) {
    for round in first..<(first + count) { store.dispatch(Bump.round(round)) }
}
for round in 1...3 { store.dispatch(Bump.round(round)) }
if arguments.count > 6, let seconds = Double(arguments[6]) {
    // Timed: batches of about 200,000 selector evaluations, for `seconds`, after a warm-up.
    let batch = max(1, 200_000 / count)
    var next = 4
    measuredDispatches(batch, from: next)
    next += batch
    var samples: [Double] = []
    let end = DispatchTime.now().uptimeNanoseconds + UInt64(seconds * 1e9)
    while DispatchTime.now().uptimeNanoseconds < end {
        let start = DispatchTime.now().uptimeNanoseconds
        measuredDispatches(batch, from: next)
        next += batch
        samples.append(Double(DispatchTime.now().uptimeNanoseconds - start) / Double(batch))
    }
    samples.sort()
    print("median \(Int(samples[samples.count / 2])) min \(Int(samples[0])) ns per dispatch")
} else {
    measuredDispatches(dispatches, from: 4)
    print(sink.total)
}
EOF
    (cd "$dir" && swift build -c release >/dev/null)
    strip --strip-debug -o "$dir/driver-stripped" "$dir/.build/release/driver"
    drivers+=("$dir/driver-stripped")
done

IFS='|' read -ra configs <<< "$CONFIGS"
if [[ ${MODE:-cache} == time ]]; then
    for config in "${configs[@]}"; do
        for round in $(seq "${ROUNDS:-3}"); do
            for index in "${!drivers[@]}"; do
                echo "$config: round $round [$((index + 1))] $("${drivers[$index]}" $config "${SECONDS_PER_RUN:-1.5}")"
            done
        done
    done
    exit 0
fi
for config in "${configs[@]}"; do
    read -r _ _ _ _ dispatches <<< "$config"
    line="$config:"
    for index in "${!drivers[@]}"; do
        log="$work/callgrind.log"
        valgrind --tool=callgrind --cache-sim=yes --D1=65536,8,64 --LL=524288,8,64 \
            --toggle-collect='*measuredDispatches*' --callgrind-out-file="$work/out" \
            "${drivers[$index]}" $config > /dev/null 2> "$log"
        instructions=$(awk '/I +refs:/ { gsub(",", "", $4); print $4 }' "$log")
        misses=$(awk '/LLd misses:/ { gsub(",", "", $4); print $4 }' "$log")
        line+=$(printf '  [%s] %s instructions, %s misses per dispatch' "$((index + 1))" \
            "$((instructions / dispatches))" "$((misses / dispatches))")
    done
    echo "$line"
done
