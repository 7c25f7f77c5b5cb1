import Dispatch
import ReduxConsumer

/// The task reading S9's stream, and what it saw, for the main thread to check once it is done.
private final class StreamReader: @unchecked Sendable {
    // @unchecked: the counters are written only by the reading task before it signals `done`, and
    // read by the main thread only after waiting for `done` (the semaphore orders the two).
    /// Elements read after the starting one.
    var elements = 0
    /// Elements whose `old` was not the previous element's `new`.
    var brokenLinks = 0
    /// Values the elements jumped over: merged changes when coalescing, lost ones when not.
    var skipped = 0
    /// The last element's `new`.
    var last = 0
    private let ready = DispatchSemaphore(value: 0)
    private let done = DispatchSemaphore(value: 0)

    /// Starts a task reading the changes of field `f0` of `store` until it sees `final`, and
    /// returns once the task has subscribed (it has read the `.instantly` starting element).
    init(_ store: Store<BenchState>, buffering: StreamBuffering, until final: Int) {
        let stream = store.changes(of: BenchState.keyPaths[0], options: .instantly, buffering: buffering)
        Task.detached { [self] in
            var previous: Int?
            for await change in stream {
                guard let known = previous else {
                    previous = change.new
                    ready.signal()
                    continue
                }
                if change.old != known { brokenLinks += 1 }
                skipped += change.new - change.old - 1
                elements += 1
                previous = change.new
                if change.new == final { break }
            }
            last = previous ?? -1
            done.signal()
        }
        ready.wait()
    }

    /// Waits until the reader has seen the final value or its stream ended; `false` on timeout.
    func finished() -> Bool {
        done.wait(timeout: .now() + .seconds(120)) == .success
    }
}

/// What S9's dispatcher is compared with, and the two stream modes.
private enum Listener: Equatable {
    /// Nobody listens: the plain dispatch loop.
    case nobody
    /// One synchronous key-path consumer of `f0` (S3-style), counting its callbacks.
    case consumer
    /// One async sequence of the changes of `f0`, read by one task.
    case stream(StreamBuffering)
}

/// One round of S9: `actions` dispatches from this thread, each changing `f0`.
private struct StreamRound {
    /// Nanoseconds per action of the dispatch loop alone.
    var dispatchNs: Double
    /// CPU nanoseconds the dispatching thread used per action (the time it waited for a core on a
    /// busy machine left out).
    var dispatchCPUNs: Double
    /// Nanoseconds per delivered element, from the first dispatch until the reader saw the last
    /// value (the dispatch loop's time when there is no reader).
    var deliveryNs: Double
    var elements: Int
    /// The highest resident memory sampled during the round, above the level before it (only when
    /// asked to sample).
    var residentGrowth: Int?
    var failure: String?

    init(actions: Int, listener: Listener, samplingEvery interval: Int? = nil) {
        let store = Store(initialState: BenchState(), reducer: benchReducer)
        let sink = Sink()
        let consumer = StateConsumer<BenchState>()
        var subscription: Subscription?
        var reader: StreamReader?
        switch listener {
        case .nobody: break
        case .consumer:
            consumer.add(BenchState.keyPaths[0]) { _, new in sink.record(new) }
            subscription = store.subscribe(consumer)
        case .stream(let buffering):
            reader = StreamReader(store, buffering: buffering, until: actions)
        }
        if interval != nil {
            releaseFreeMemory()
        }
        let before = interval == nil ? nil : residentBytes()
        var peak = before ?? 0
        let start = DispatchTime.now().uptimeNanoseconds
        let cpuStart = threadCPUNanoseconds()
        if let interval {
            for value in 1...actions {
                store.dispatch(SetField(field: 0, value: value))
                if value % interval == 0 { peak = max(peak, residentBytes() ?? 0) }
            }
        } else {
            for value in 1...actions {
                store.dispatch(SetField(field: 0, value: value))
            }
        }
        let dispatched = DispatchTime.now().uptimeNanoseconds
        dispatchCPUNs = Double(threadCPUNanoseconds() - cpuStart) / Double(actions)
        let isFinished = reader?.finished() ?? true
        let delivered = DispatchTime.now().uptimeNanoseconds
        if let before {
            peak = max(peak, residentBytes() ?? 0)
            residentGrowth = peak - before
        }
        subscription?.cancel()
        // A reader that timed out may still be running: its counters are not read then.
        elements = isFinished ? reader?.elements ?? sink.calls : 0
        dispatchNs = Double(dispatched - start) / Double(actions)
        deliveryNs = Double(delivered - start) / Double(max(1, elements))
        failure = Self.check(store, reader: reader, isFinished: isFinished, listener: listener, actions: actions)
        if failure == nil, listener == .consumer, sink.calls != actions {
            failure = "the consumer heard \(sink.calls) of \(actions) changes"
        }
    }

    private static func check(
        _ store: Store<BenchState>, reader: StreamReader?, isFinished: Bool, listener: Listener, actions: Int
    ) -> String? {
        if store.state.f0 != actions { return "the store ended at \(store.state.f0), not \(actions)" }
        guard let reader else { return nil }
        guard isFinished else { return "the reader never saw the final value \(actions)" }
        if reader.last != actions { return "the stream ended at \(reader.last), not \(actions)" }
        if reader.brokenLinks != 0 { return "\(reader.brokenLinks) elements' old was not the previous new" }
        if listener == .stream(.unbounded), reader.elements != actions || reader.skipped != 0 {
            return "unbounded: \(reader.elements) of \(actions) changes delivered, \(reader.skipped) lost"
        }
        if store.subscriberCount != 0 { return "the stream's consumer was not removed when the reader stopped" }
        return nil
    }
}

/// S9: one `changes(of:)` stream read by one task while the main thread dispatches actions that
/// each change the watched value. Unbounded: cost per delivered change and nothing lost.
/// Coalescing: the dispatcher's slowdown against the same loop without a stream (and with an
/// S3-style consumer), the chain of old and new values, and resident memory at two sizes.
func changeStream(_ sizes: AsyncSizes) -> [Report] {
    let actions = sizes.streamActions
    let interval = max(1, actions / 128)
    // Memory first, coalescing before unbounded: the allocator's free pages are handed back before
    // each round, but the unbounded buffer's could still hide a coalescing growth.
    var memory: [(key: String, value: Double)] = []
    var failure: String?
    for (mode, buffering) in [("coalescing", StreamBuffering.coalescing), ("unbounded", .unbounded)] {
        for size in [actions / 10, actions] {
            let round = StreamRound(actions: size, listener: .stream(buffering), samplingEvery: interval)
            memory.append(("\(mode)_peak_growth_MB_at_\(size / 1_000)k", Double(round.residentGrowth ?? -1) / 1e6))
            failure = failure ?? round.failure
        }
    }
    let listeners: [Listener] = [.nobody, .consumer, .stream(.coalescing), .stream(.unbounded)]
    var rounds = Array(repeating: [StreamRound](), count: listeners.count)
    for repetition in 0...sizes.streamRepetitions {
        for (index, listener) in listeners.enumerated() {
            let round = StreamRound(actions: actions, listener: listener)
            failure = failure ?? round.failure
            // Repetition 0 warms up.
            if repetition > 0 { rounds[index].append(round) }
        }
    }
    let dispatch = rounds.map { Timing(samples: $0.map(\.dispatchNs)) }
    let dispatchCPU = rounds.map { Timing(samples: $0.map(\.dispatchCPUNs)).median }
    let delivery = rounds.map { Timing(samples: $0.map(\.deliveryNs)) }
    let elements = rounds.map { $0.map(\.elements).sorted()[$0.count / 2] }
    let plain = dispatch[0].median
    let withConsumer = dispatch[1].median
    let unbounded = Report(
        scenario: "S9",
        title: "changes(of:) stream, unbounded, \(actions) actions",
        nsPerOp: delivery[3].median,
        minNsPerOp: delivery[3].min,
        ratios: [
            ("dispatcher_vs_no_stream", dispatch[3].median / plain),
            ("dispatcher_cpu_vs_no_stream", dispatchCPU[3] / dispatchCPU[0]),
        ],
        figures: [
            ("dispatcher_ns_per_action", dispatch[3].median), ("no_stream_ns", plain),
            ("dispatcher_cpu_ns", dispatchCPU[3]), ("no_stream_cpu_ns", dispatchCPU[0]),
            ("delivered", Double(elements[3])),
        ] + memory.filter { $0.key.hasPrefix("unbounded") },
        target: "≤ 1,000 ns per delivered change, none lost",
        failure: failure
    ).meeting(delivery[3].median <= 1_000)
    let coalescing = Report(
        scenario: "S9",
        title: "changes(of:) stream, coalescing, \(actions) actions",
        nsPerOp: dispatch[2].median,
        minNsPerOp: dispatch[2].min,
        ratios: [
            ("dispatcher_vs_no_stream", dispatch[2].median / plain),
            ("dispatcher_vs_S3_style_consumer", dispatch[2].median / withConsumer),
            ("dispatcher_cpu_vs_no_stream", dispatchCPU[2] / dispatchCPU[0]),
            ("dispatcher_cpu_vs_S3_style_consumer", dispatchCPU[2] / dispatchCPU[1]),
        ],
        figures: [
            ("no_stream_ns", plain), ("S3_style_consumer_ns", withConsumer),
            ("dispatcher_cpu_ns", dispatchCPU[2]), ("S3_style_consumer_cpu_ns", dispatchCPU[1]),
            ("delivered", Double(elements[2])), ("ns_per_delivered", delivery[2].median),
        ] + memory.filter { $0.key.hasPrefix("coalescing") },
        target: "dispatcher ≤ 1.5× an S3-style consumer; chain kept; flat memory",
        failure: failure
    ).meeting(dispatch[2].median <= 1.5 * withConsumer && isFlat(memory, prefix: "coalescing"))
    return [unbounded, coalescing]
}

/// Whether the peak growths of resident memory named `prefix…` stay within a megabyte of each
/// other: memory that does not grow with the number of actions.
private func isFlat(_ memory: [(key: String, value: Double)], prefix: String) -> Bool {
    let growths = memory.filter { $0.key.hasPrefix(prefix) }.map(\.value)
    guard let low = growths.min(), let high = growths.max() else { return true }
    return high - low <= 1
}
