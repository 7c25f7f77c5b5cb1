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
        /// The running effects with an `id`, by the `id`'s hash: an `id` is a user value, hashed
        /// and compared outside the lock (see ``named(_:_:)``).
        var named: [Int: Named] = [:]
        var lastStamp: UInt64 = 0
        var idleWaiters: [CheckedContinuation<Void, Never>] = []
        var isClosed = false
    }

    private struct Running {
        let id: EffectID?
        let hash: Int
        let name: String
        var task: Task<Void, Never>?
        var isCancelled = false
    }

    /// The running effects whose `id`s share a hash, one per `id`; `stamp` changes with every
    /// change of `entries` (and is never 0, the stamp of no entries).
    private struct Named {
        var entries: [(id: EffectID, token: UInt64)] = []
        var stamp: UInt64 = 0
    }

    /// Runs `body` under the lock with the token of the running effect named `id` (`nil` if none),
    /// and returns what it returns. The `id` is hashed and compared with the running ones outside
    /// the lock (user code), then the lock is taken again: if what was compared changed
    /// meanwhile, it starts over.
    private func named<Result>(
        _ id: EffectID,
        _ body: (inout State, _ hash: Int, _ token: UInt64?) -> Result
    ) -> Result {
        let hash = id.hashValue
        while true {
            let (entries, stamp) = state.withLock { state in
                (state.named[hash]?.entries ?? [], state.named[hash]?.stamp ?? 0)
            }
            let token = entries.first { $0.id == id }?.token
            let result = state.withLock { state -> Result? in
                guard (state.named[hash]?.stamp ?? 0) == stamp else { return nil }
                return body(&state, hash, token)
            }
            if let result { return result }
        }
    }

    /// Registers an effect about to start; cancels the running one with the same `id`. Returns the
    /// new effect's token, or `nil` if the store is closed (nothing starts).
    func begin(id: EffectID?, name: String) -> UInt64? {
        guard let id else {
            return state.withLock { state -> UInt64? in
                guard !state.isClosed else { return nil }
                state.lastToken += 1
                state.running[state.lastToken] = Running(id: nil, hash: 0, name: name)
                return state.lastToken
            }
        }
        let (token, replaced) = named(id) { state, hash, previous -> (UInt64?, Task<Void, Never>?) in
            guard !state.isClosed else { return (nil, nil) }
            state.lastToken += 1
            let token = state.lastToken
            state.lastStamp += 1
            var named = state.named.removeValue(forKey: hash) ?? Named()
            var replaced: Task<Void, Never>?
            if let previous, let index = named.entries.firstIndex(where: { $0.token == previous }) {
                state.running[previous]?.isCancelled = true
                replaced = state.running[previous]?.task
                named.entries[index].token = token
            } else {
                named.entries.append((id, token))
            }
            named.stamp = state.lastStamp
            state.named[hash] = named
            state.running[token] = Running(id: id, hash: hash, name: name)
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
            if running.id != nil, var named = state.named.removeValue(forKey: running.hash) {
                if let index = named.entries.firstIndex(where: { $0.token == token }) {
                    ended.1 = named.entries.remove(at: index).id
                    state.lastStamp += 1
                    named.stamp = state.lastStamp
                }
                if !named.entries.isEmpty { state.named[running.hash] = named }
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
        let task = named(id) { state, _, token -> Task<Void, Never>? in
            guard let token else { return nil }
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
