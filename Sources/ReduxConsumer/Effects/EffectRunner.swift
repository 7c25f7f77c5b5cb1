/// The effects running for one store: their tasks, by identity and by `id`, and the tasks waiting
/// for none to run.
final class EffectRunner: Sendable {
    private let state: Lock<State>

    /// A runner, closed already when `isClosed` (then no effect starts).
    init(isClosed: Bool = false) {
        state = Lock(State(isClosed: isClosed))
    }

    private struct State {
        var lastToken: UInt64 = 0
        var running: [UInt64: Running] = [:]
        var tokenByID: [EffectID: UInt64] = [:]
        var idleWaiters: [CheckedContinuation<Void, Never>] = []
        var isClosed = false
    }

    private struct Running {
        let id: EffectID?
        let name: String
        var task: Task<Void, Never>?
        var isCancelled = false
    }

    /// Registers an effect about to start; cancels the running one with the same `id`. Returns the
    /// new effect's token, or `nil` if the store is closed (nothing starts).
    func begin(id: EffectID?, name: String) -> UInt64? {
        let (token, replaced) = state.withLock { state -> (UInt64?, Task<Void, Never>?) in
            guard !state.isClosed else { return (nil, nil) }
            state.lastToken += 1
            let token = state.lastToken
            var replaced: Task<Void, Never>?
            if let id {
                if let previous = state.tokenByID[id] {
                    state.running[previous]?.isCancelled = true
                    replaced = state.running[previous]?.task
                }
                state.tokenByID[id] = token
            }
            state.running[token] = Running(id: id, name: name)
            return (token, replaced)
        }
        replaced?.cancel()
        return token
    }

    /// Hands over the task of the effect `token` (cancelled at once if it was cancelled already).
    func attach(_ task: Task<Void, Never>, to token: UInt64) {
        let cancel = state.withLock { state -> Bool in
            guard state.running[token] != nil else { return false }
            state.running[token]?.task = task
            return state.running[token]?.isCancelled ?? false
        }
        if cancel { task.cancel() }
    }

    /// The effect `token` is over.
    func end(_ token: UInt64) {
        // The ended effect and its `id` key are released after the lock: an `id` is a user value,
        // whose last copy may run a user deinit.
        var ended: (Running?, EffectID?)
        let waiters = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            guard let running = state.running.removeValue(forKey: token) else { return [] }
            ended.0 = running
            if let id = running.id, let index = state.tokenByID.index(forKey: id), state.tokenByID[index].value == token
            {
                ended.1 = state.tokenByID.remove(at: index).key
            }
            guard state.running.isEmpty else { return [] }
            defer { state.idleWaiters = [] }
            return state.idleWaiters
        }
        withExtendedLifetime(ended) {}
        for waiter in waiters { waiter.resume() }
    }

    /// Whether the effect `token` was cancelled (`false` once it ended).
    func isCancelled(_ token: UInt64) -> Bool {
        state.withLock { $0.running[token]?.isCancelled ?? false }
    }

    /// Cancels the running effect named `id`, if any.
    func cancel(id: EffectID) {
        let task = state.withLock { state -> Task<Void, Never>? in
            guard let token = state.tokenByID[id] else { return nil }
            state.running[token]?.isCancelled = true
            return state.running[token]?.task
        }
        task?.cancel()
    }

    /// Cancels every running effect and starts no more.
    func close() {
        let tasks = state.withLock { state -> [Task<Void, Never>] in
            state.isClosed = true
            for token in state.running.keys { state.running[token]?.isCancelled = true }
            return state.running.values.compactMap(\.task)
        }
        for task in tasks { task.cancel() }
    }

    /// Waits until no effect runs.
    func idle() async {
        await withCheckedContinuation { (waiter: CheckedContinuation<Void, Never>) in
            let isIdle = state.withLock { state -> Bool in
                guard !state.running.isEmpty else { return true }
                state.idleWaiters.append(waiter)
                return false
            }
            if isIdle { waiter.resume() }
        }
    }

    /// What runs now, by the action that started it: for test stores and diagnostics.
    var runningNames: [String] {
        state.withLock { state in state.running.sorted { $0.key < $1.key }.map(\.value.name) }
    }
}
