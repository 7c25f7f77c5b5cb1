/// How big each scenario is: the full run, or the seconds-long CI smoke run.
struct Sizes {
    var repetitions: Int
    var s1Dispatches: Int
    var s2Subscribers: Int
    var s2Dispatches: Int
    var consumers: Int
    var s3Dispatches: Int
    var s4Dispatches: Int
    var s5Samples: Int
    var s6Cycles: Int
    var s7Actions: Int
    var memoryConsumers: Int
    var replayActions: Int
    var replayRepetitions: Int
    /// Collection sizes of the diff family (D1–D6).
    var diffSizes: [Int]
    /// Diffs per timed sample for one append and one change; "all changed" diffs about
    /// `diffElementsPerSample` elements per sample instead.
    var diffsPerSample: Int
    var diffElementsPerSample: Int

    static let full = Sizes(
        repetitions: 9,
        s1Dispatches: 1_000_000,
        s2Subscribers: 3_000,
        s2Dispatches: 1_000,
        consumers: 1_000,
        s3Dispatches: 5_000,
        s4Dispatches: 2_000,
        s5Samples: 1_000_000,
        s6Cycles: 10_000,
        s7Actions: 500_000,
        memoryConsumers: 100_000,
        replayActions: 1_000_000,
        replayRepetitions: 5,
        diffSizes: [1_000, 10_000, 100_000],
        diffsPerSample: 200,
        diffElementsPerSample: 100_000
    )

    static let quick = Sizes(
        repetitions: 3,
        s1Dispatches: 10_000,
        s2Subscribers: 300,
        s2Dispatches: 50,
        consumers: 1_000,
        s3Dispatches: 500,
        s4Dispatches: 200,
        s5Samples: 100_000,
        s6Cycles: 1_000,
        s7Actions: 20_000,
        memoryConsumers: 10_000,
        replayActions: 20_000,
        replayRepetitions: 2,
        diffSizes: [1_000, 10_000],
        diffsPerSample: 20,
        diffElementsPerSample: 10_000
    )
}
