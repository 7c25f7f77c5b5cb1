import Dispatch
import ReduxConsumer

/// Timings of one variant of a scenario: nanoseconds per operation over the repetitions.
struct Timing {
    var samples: [Double] = []

    /// The median time per operation: the figure every ratio uses (robust to a noisy neighbour).
    var median: Double {
        let sorted = samples.sorted()
        guard !sorted.isEmpty else { return .nan }
        let middle = sorted.count / 2
        return sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
    }

    /// The fastest repetition: what the code costs when nothing else runs.
    var min: Double { samples.min() ?? .nan }
}

/// One thing to time: `run` performs `operations` operations per call.
struct Variant {
    let operations: Int
    let run: () -> Void
}

/// Times `variants` in the same process, interleaved: one warm-up round, then `repetitions`
/// rounds in which every variant runs once. Interleaving spreads a noisy neighbour (two cores,
/// other builds) over all variants alike, so in-run ratios stay meaningful.
func measure(repetitions: Int, _ variants: [Variant]) -> [Timing] {
    for variant in variants {
        variant.run()
    }
    var timings = Array(repeating: Timing(), count: variants.count)
    for _ in 0..<repetitions {
        for (index, variant) in variants.enumerated() {
            let start = DispatchTime.now().uptimeNanoseconds
            variant.run()
            let elapsed = DispatchTime.now().uptimeNanoseconds - start
            timings[index].samples.append(Double(elapsed) / Double(variant.operations))
        }
    }
    return timings
}

/// Counts callbacks, so the optimizer cannot drop them and the scenarios can check them.
///
/// Only touched from callbacks, which a store runs one at a time (its drain orders them), or from
/// a single benchmark thread.
final class Sink: @unchecked Sendable {
    // @unchecked: callbacks that touch it never run concurrently (see above).
    var calls = 0
    var checksum = 0

    @inline(never)
    func record(_ value: Int) {
        calls &+= 1
        checksum &+= value
    }

    func reset() {
        calls = 0
        checksum = 0
    }
}

/// Dispatches one-field actions to a bench store and counts them, so a scenario can check the
/// final state and the callbacks against the number of actions it sent.
final class Dispatcher {
    let store: Store<BenchState>
    private(set) var dispatched = 0

    init(_ store: Store<BenchState>) {
        self.store = store
    }

    /// A variant that dispatches `count` actions, each setting the next field to a new value.
    func variant(dispatching count: Int) -> Variant {
        Variant(operations: count) { [self] in
            for _ in 0..<count {
                dispatched &+= 1
                store.dispatch(SetField(field: dispatched % BenchState.fieldCount, value: dispatched))
            }
        }
    }
}
