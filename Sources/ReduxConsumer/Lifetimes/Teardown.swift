/// What ends with a store: async sequences to finish, effects to cancel, waits to end. The store
/// runs it when it is released, a page when it closes.
final class Teardown: Sendable {
    private let state = Lock(State())

    private struct State {
        var isDone = false
        var lastID: UInt64 = 0
        var handlers: [UInt64: @Sendable () -> Void] = [:]
    }

    /// Registers `handler`; returns its identifier for ``remove(_:)``, or `nil` when the teardown
    /// happened already (then `handler` runs at once, on the calling thread).
    @discardableResult
    func add(_ handler: @escaping @Sendable () -> Void) -> UInt64? {
        let id = state.withLock { state -> UInt64? in
            guard !state.isDone else { return nil }
            state.lastID += 1
            state.handlers[state.lastID] = handler
            return state.lastID
        }
        if id == nil { handler() }
        return id
    }

    /// Forgets a handler that is no longer needed.
    func remove(_ id: UInt64) {
        let handler = state.withLock { $0.handlers.removeValue(forKey: id) }
        withExtendedLifetime(handler) {}
    }

    /// Whether the teardown has happened.
    var isDone: Bool {
        state.withLock { $0.isDone }
    }

    /// Runs every handler once, in the order they were added; later handlers run at once.
    func run() {
        let handlers = state.withLock { state -> [@Sendable () -> Void] in
            guard !state.isDone else { return [] }
            state.isDone = true
            defer { state.handlers = [:] }
            return state.handlers.sorted { $0.key < $1.key }.map(\.value)
        }
        for handler in handlers {
            handler()
        }
    }
}
