extension Store {
    /// Adds an effect after creation (see ``Effect``); it starts with the next action.
    ///
    /// - Parameter effect: The effect.
    public func addEffect(_ effect: Effect<State>) {
        perform(.dispatch) { store in
            let core = store.core.value
            core.effects.append(effect)
            core.hasEffects = true
        }
    }

    /// Cancels the running effect named `id`, if any (see ``Effect/on(_:when:id:operation:catch:)``).
    ///
    /// - Parameter id: The effect's `id`.
    public func cancelEffects(id: some Hashable & Sendable) {
        effects.cancel(id: EffectID(id))
    }

    /// Waits until no effect of this store runs: for a graceful shutdown, or a test.
    ///
    /// Effects started while waiting are waited for too, as long as one is running; follow-up
    /// effects that an effect's action starts begin before that effect ends, so they are included.
    public func effectsIdle() async {
        await effects.idle()
    }

    /// Waits as ``effectsIdle()`` does, without keeping the store alive while it waits (the store's
    /// release cancels its effects, which ends the wait): for a test store that gives up waiting.
    package var effectsIdleWithoutTheStore: @Sendable () async -> Void {
        let runner = effects
        return { await runner.idle() }
    }

    /// What the running effects were started by (the action, as `String(describing:)` shows it),
    /// oldest first: for test stores and diagnostics.
    package var runningEffects: [String] {
        effects.runningNames
    }

    /// Starts an effect's operation in a task of its own.
    func launch(_ start: Effect<State>.Start) {
        guard let token = effects.begin(id: start.id, name: start.name) else { return }
        let runner = effects
        let context = EffectContext(store: WeakStore(value: self), runner: runner, token: token)
        let diagnose = diagnose
        let name = "\(description): the effect started by \(start.name)"
        let task = Task {
            defer { runner.end(token) }
            do {
                try await start.operation(context)
            } catch is CancellationError {
                return
            } catch {
                guard !Task.isCancelled else { return }
                if let handle = start.handle {
                    if let action = handle(error) { await context.send(action) }
                } else {
                    diagnose("\(name) threw \(error), and has no `catch:` handler")
                }
            }
        }
        runner.attach(task, to: token)
    }
}
