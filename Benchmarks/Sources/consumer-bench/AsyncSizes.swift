/// How big the async and derived-selector scenarios (S8–S11) are: the full run, or the
/// seconds-long CI smoke run. Kept apart from ``Sizes`` so these scenarios scale on their own.
struct AsyncSizes {
    var repetitions: Int
    /// S8: sends (and dispatches) per timed sample.
    var sends: Int
    /// S9: actions dispatched while one task reads the stream; memory is also sampled at a tenth.
    var streamActions: Int
    /// S9: timed rounds (each round dispatches `streamActions` three times).
    var streamRepetitions: Int
    /// S10: tasks, and sends per task.
    var tasks: Int
    var sendsPerTask: Int
    /// S10: timed rounds.
    var concurrentRepetitions: Int
    /// S11: numbers of consumers, each spread evenly over the ten derived selectors.
    var derivedConsumers: [Int]
    /// S11: rounds of the derivation's mixing loop, from 0 (a sum of the three inputs) upward.
    var derivationCosts: [Int]
    /// S11: dispatches per timed sample at the cheapest cost (fewer for the closure consumers at
    /// the higher costs, so that each sample takes about as long).
    var derivedDispatches: Int
    /// S11: about how long one sample of the closure consumers takes, in nanoseconds.
    var sampleNanoseconds: Double

    init(quick: Bool) {
        self = quick ? .quick : .full
    }

    private init(
        repetitions: Int, sends: Int, streamActions: Int, streamRepetitions: Int, tasks: Int, sendsPerTask: Int,
        concurrentRepetitions: Int, derivedConsumers: [Int], derivationCosts: [Int], derivedDispatches: Int,
        sampleNanoseconds: Double
    ) {
        self.repetitions = repetitions
        self.sends = sends
        self.streamActions = streamActions
        self.streamRepetitions = streamRepetitions
        self.tasks = tasks
        self.sendsPerTask = sendsPerTask
        self.concurrentRepetitions = concurrentRepetitions
        self.derivedConsumers = derivedConsumers
        self.derivationCosts = derivationCosts
        self.derivedDispatches = derivedDispatches
        self.sampleNanoseconds = sampleNanoseconds
    }

    static let full = AsyncSizes(
        repetitions: 9,
        sends: 1_000_000,
        streamActions: 1_000_000,
        streamRepetitions: 5,
        tasks: 1_000,
        sendsPerTask: 1_000,
        concurrentRepetitions: 5,
        derivedConsumers: [1_000, 10],
        derivationCosts: [0, 1, 4, 16, 64, 256, 1_024],
        derivedDispatches: 20_000,
        sampleNanoseconds: 50e6
    )

    static let quick = AsyncSizes(
        repetitions: 3,
        sends: 20_000,
        streamActions: 20_000,
        streamRepetitions: 1,
        tasks: 100,
        sendsPerTask: 100,
        concurrentRepetitions: 2,
        derivedConsumers: [1_000, 10],
        derivationCosts: [0, 16],
        derivedDispatches: 500,
        sampleNanoseconds: 2e6
    )
}
