extension Store {
    /// Notifies everyone of the action just reduced: closure subscribers and consumers in the
    /// order they subscribed (each consumer's fired members together, in the order they were
    /// added), then the action listeners.
    ///
    /// - Complexity: One evaluation per distinct selection, one call per closure subscriber and
    ///   per fired member, one per listener; nothing per consumer whose values did not change.
    func notify(_ core: StoreCore<State>, old: State, action: any Action) {
        let engine = host.engine.value
        let hasClosures = !core.closures.isEmpty
        guard hasClosures || engine.nodeCount > 0 || !core.listeners.isEmpty else { return }
        let state = core.state
        let wasNotifying = core.isNotifying
        core.isNotifying = true
        let runs = engine.nodeCount > 0 ? engine.evaluate(UnsafeMutableRawPointer(state)) : []
        if hasClosures {
            let new = state.pointee
            notifyClosures(core, old: old, new: new, consumerRuns: runs, engine: engine)
        } else {
            for run in runs {
                engine.deliver(run, state: UnsafeMutableRawPointer(state))
            }
        }
        engine.endPass()
        if !core.listeners.isEmpty {
            notifyListeners(core, action: action)
        }
        core.isNotifying = wasNotifying
        if !wasNotifying, !core.retired.isEmpty {
            // Released after the pass, outside any access: a deinit may cancel another subscription.
            let retired = core.retired
            core.retired = []
            withExtendedLifetime(retired) {}
        }
    }

    /// Calls the closure subscribers interleaved with the consumers' runs by call order.
    private func notifyClosures(
        _ core: StoreCore<State>,
        old: State,
        new: State,
        consumerRuns runs: [SelectionEngine.Run],
        engine: SelectionEngine
    ) {
        core.closures.beginIteration()
        let end = core.closures.slotCount
        var slot = 0
        var run = 0
        while slot < end || run < runs.count {
            if run < runs.count, slot == end || runs[run].order < core.closures.identifier(atSlot: slot) {
                engine.deliver(runs[run], state: UnsafeMutableRawPointer(core.state))
                run += 1
                continue
            }
            // Read the slot afresh: a callback may have cancelled a later subscriber. Borrowed, not
            // retained: `core.subscribers` owns it, and one cancelled during the pass waits in
            // `core.retired` until the pass is over.
            if let subscriber = core.closures[slot: slot],
                drain.willCall(tag: UInt(bitPattern: subscriber.toOpaque()), member: 0)
            {
                subscriber._withUnsafeGuaranteedRef { $0.callback(old, new) }
                drain.didCall()
            }
            slot += 1
        }
        core.closures.endIteration()
    }

    private func notifyListeners(_ core: StoreCore<State>, action: any Action) {
        core.listeners.beginIteration()
        let end = core.listeners.slotCount
        for slot in 0..<end {
            // Read afresh: a listener may have cancelled a later one. The copy keeps the closure
            // alive while it runs, even if it cancels itself.
            if let listener = core.listeners[slot: slot], drain.willCall(tag: listener.tag, member: 0) {
                listener.callback(action)
                drain.didCall()
            }
        }
        core.listeners.endIteration()
    }
}
