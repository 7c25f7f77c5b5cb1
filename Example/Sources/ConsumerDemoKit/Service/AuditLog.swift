/// Where answered requests are recorded: a dependency of the service, injected so that tests can
/// stall it.
protocol AuditLog: Sendable {
    /// Records that request `id` was answered.
    func write(_ id: Int) async throws
    /// The ids recorded so far.
    var entries: [Int] { get async }
}

/// The audit log, simulated: a write takes a latency.
actor SimulatedAuditLog: AuditLog {
    private(set) var entries: [Int] = []
    let latencyMicroseconds: Int

    init(latencyMicroseconds: Int) {
        self.latencyMicroseconds = latencyMicroseconds
    }

    func write(_ id: Int) async throws {
        try await simulateLatency(microseconds: latencyMicroseconds)
        entries.append(id)
    }
}
