/// How big the scaling scenarios (N1–N3, P1–P3) are: the full run, about a minute, or the
/// seconds-long smoke run. Apart from ``Sizes`` so that other scenarios' sizes stay as they are.
struct ScalingSizes {
    /// The selector counts of N1 and N2, each ten times the one before (the growth column).
    var selectorCounts: [Int]
    /// The periods of N1: one selector in `period` fires per dispatch (100 → 1%).
    var firingPeriods: [Int]
    /// The closure selector counts of N3, all firing on every dispatch.
    var manyGroupCounts: [Int]
    /// Live pages of P1, each watching one global key path.
    var watchingPages: Int
    /// Idle pages of P2 and P3 (no consumers at all).
    var idlePages: Int
    var budget: TimeBudget

    static let full = ScalingSizes(
        selectorCounts: [10, 100, 1_000, 10_000],
        firingPeriods: [100, 10, 1],
        manyGroupCounts: [10, 25, 50, 100, 200],
        watchingPages: 1_000,
        idlePages: 10_000,
        budget: TimeBudget(
            nanosecondsPerRound: 30_000_000, repetitions: 7, singleSampleAbove: 100_000_000, maxOperations: 200_000)
    )

    static let quick = ScalingSizes(
        selectorCounts: [10, 100, 1_000],
        firingPeriods: [100, 10, 1],
        manyGroupCounts: [10, 25, 50, 100, 200],
        watchingPages: 100,
        idlePages: 1_000,
        budget: TimeBudget(
            nanosecondsPerRound: 1_000_000, repetitions: 2, singleSampleAbove: 20_000_000, maxOperations: 10_000)
    )
}
