import ReduxConsumer

/// The service's slow dependency, simulated: it answers after a latency, except for every
/// `slowEvery`-th request, which hangs until it is cancelled. It counts its calls, so that a run
/// can check that every call ended one way or the other.
final class Backend: Sendable {
    /// How many calls started, answered, and were cancelled.
    struct Calls: Equatable, Sendable, Codable {
        var started = 0
        var answered = 0
        var cancelled = 0
    }

    let latencyMicroseconds: Int
    let slowEvery: Int
    private let counts = Lock(Calls())

    /// - Parameters:
    ///   - latencyMicroseconds: How long an answer takes; 0 answers after a yield.
    ///   - slowEvery: Every `slowEvery`-th request (ids `slowEvery - 1`, `2 × slowEvery - 1`, …)
    ///     hangs until cancelled; 0 for none.
    init(latencyMicroseconds: Int, slowEvery: Int) {
        self.latencyMicroseconds = latencyMicroseconds
        self.slowEvery = slowEvery
    }

    var calls: Calls { counts.withLock { $0 } }

    /// Whether the call for request `id` hangs.
    func isSlow(_ id: Int) -> Bool {
        slowEvery > 0 && id % slowEvery == slowEvery - 1
    }

    /// The answer for request `id`, after the latency; throws `CancellationError` if cancelled.
    func fetch(_ id: Int) async throws -> Int {
        counts.withLock { $0.started += 1 }
        try await withTaskCancellationHandler {
            try await simulateLatency(microseconds: isSlow(id) ? 3_600_000_000 : latencyMicroseconds)
        } onCancel: {
            counts.withLock { $0.cancelled += 1 }
        }
        counts.withLock { $0.answered += 1 }
        return id * 2
    }
}

/// Sleeps (or only yields, for 0), throwing `CancellationError` when cancelled.
func simulateLatency(microseconds: Int) async throws {
    if microseconds > 0 {
        try await Task.sleep(nanoseconds: UInt64(microseconds) * 1_000)
    } else {
        await Task.yield()
        try Task.checkCancellation()
    }
}
