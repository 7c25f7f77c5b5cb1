import Dispatch

/// How long the scaling scenarios may time each variant: the number of operations per round
/// follows from a calibration run, so a row costs about the same whatever the engine's speed.
///
/// Scaling rows span five orders of magnitude (a 10-selector dispatch takes well under a
/// microsecond, a 10,000-selector one on a quadratic engine seconds); fixed operation counts would
/// either make the fast rows noise or the slow ones take minutes.
struct TimeBudget {
    /// The time one variant should take per round.
    var nanosecondsPerRound: Double
    /// Rounds after the warm-up, as in ``measure(repetitions:_:)``.
    var repetitions: Int
    /// A variant whose single operation takes longer than this is timed once, by its calibration
    /// run, and reported as one sample: the run stays bounded on an engine that is far off target.
    var singleSampleAbove: Double
    /// The most operations per round.
    var maxOperations: Int
}

/// The timing of one variant measured within a ``TimeBudget``.
struct BudgetedTiming {
    var timing: Timing
    /// Operations per round.
    var operations: Int

    /// Whether the variant was too slow for more than its one calibration run.
    var isSingleSample: Bool { timing.samples.count == 1 }
}

/// Times `variants` (each `run(n)` performs `n` operations) within `budget`: calibrates each one,
/// then times them interleaved with ``measure(repetitions:_:)``, each at its own operation count.
func measure(within budget: TimeBudget, _ variants: [(_ operations: Int) -> Void]) -> [BudgetedTiming] {
    var results: [BudgetedTiming] = []
    var timed: [(index: Int, variant: Variant)] = []
    for (index, run) in variants.enumerated() {
        let (nsPerOp, operations) = calibrate(run, within: budget)
        if nsPerOp > budget.singleSampleAbove {
            results.append(BudgetedTiming(timing: Timing(samples: [nsPerOp]), operations: operations))
        } else {
            let operations = min(budget.maxOperations, max(1, Int(budget.nanosecondsPerRound / nsPerOp)))
            results.append(BudgetedTiming(timing: Timing(), operations: operations))
            timed.append((index, Variant(operations: operations) { run(operations) }))
        }
    }
    let timings = measure(repetitions: budget.repetitions, timed.map(\.variant))
    for (position, entry) in timed.enumerated() {
        results[entry.index].timing = timings[position]
    }
    return results
}

/// Runs `run` with growing operation counts until one run takes a quarter of the budget (or one
/// operation exceeds ``TimeBudget/singleSampleAbove``); returns the last time per operation and
/// the operations it took.
private func calibrate(
    _ run: (Int) -> Void, within budget: TimeBudget
) -> (nsPerOp: Double, operations: Int) {
    let target = budget.nanosecondsPerRound / 4
    var operations = 1
    while true {
        let start = DispatchTime.now().uptimeNanoseconds
        run(operations)
        let elapsed = Double(DispatchTime.now().uptimeNanoseconds - start)
        let nsPerOp = elapsed / Double(operations)
        if elapsed >= target || nsPerOp > budget.singleSampleAbove || operations >= budget.maxOperations {
            return (nsPerOp, operations)
        }
        let estimate = Int(target / max(nsPerOp, 1) * 1.2)
        operations = min(budget.maxOperations, max(operations * 2, estimate))
    }
}
