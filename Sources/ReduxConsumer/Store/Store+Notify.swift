import ReduxConsumerAtomics

extension Store {
    /// Notifies everyone of the action just reduced: closure subscribers and consumers in the
    /// order they subscribed (each consumer's fired members together, in the order they were
    /// added), then the action listeners.
    ///
    /// - Complexity: One evaluation per distinct selection, one call per closure subscriber and
    ///   per fired member, one per listener; nothing per consumer whose values did not change.
    /// - Parameter old: The state before the action, when there are closure subscribers (an
    ///   untyped pointer: an `Optional<State>` would cost a metadata lookup per dispatch here).
    // The check for anyone to notify inline, the pass not: a store with no one to notify pays
    // no call.
    @inline(__always)
    func notify(_ core: StoreCore<State>, old: UnsafeMutableRawPointer?, action: any Action) {
        guard
            !core.closures.isEmpty || (core.withEngine { $0.nodeCount } ?? 0) > 0 || !core.listeners.isEmpty
                || core.hasEffects
        else { return }
        notifyEveryone(core, old: old, action: action)
    }

    @inline(never)
    private func notifyEveryone(_ core: StoreCore<State>, old: UnsafeMutableRawPointer?, action: any Action) {
        // The engine is read through `withEngine` each time, unretained: a plain load.
        let hasClosures = !core.closures.isEmpty
        let hasNodes = (core.withEngine { $0.nodeCount } ?? 0) > 0
        // Published before anyone hears of the action: a callback that tells another thread must
        // let that thread read the new state. (With no one to notify, it waits for the job's end.)
        drain.publishIfNeeded()
        let state = core.state
        let wasNotifying = core.isNotifying
        core.isNotifying = true
        // For the whole pass: a closure subscribed or a listener added during it waits (pending)
        // for the next action, whichever part of the pass added it.
        core.closures.beginIteration()
        core.listeners.beginIteration()
        core.withEngine { $0.holdsInstantCalls = true }
        let wasCallingConsumers = core.isCallingConsumers
        core.isCallingConsumers = true
        let runs = hasNodes ? core.withEngine { $0.evaluate(UnsafeMutableRawPointer(state)) } ?? 0 : 0
        if hasClosures, let old {
            notifyClosures(core, old: old.assumingMemoryBound(to: State.self), new: state, consumerRuns: runs)
        } else if runs > 0 {
            core.withEngine { $0.deliverRuns(state: UnsafeMutableRawPointer(state)) }
        }
        // Read again: a consumer subscribed during the pass may have brought the engine.
        core.withEngine { $0.endPass() }
        core.isCallingConsumers = wasCallingConsumers
        if !core.listeners.isEmpty || core.hasEffects {
            // A page hears a forwarded global action as the action itself: its listeners, its
            // `actions` sequence and its effects never see the wrapper that routes it past the
            // page's middleware.
            let action = (action as? ForwardedAction)?.action ?? action
            if !core.listeners.isEmpty {
                notifyListeners(core, action: action)
            }
            if core.hasEffects {
                for effect in core.effects {
                    if let start = effect.start(action) { launch(start) }
                }
            }
        }
        core.closures.endIteration()
        core.listeners.endIteration()
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
        old: UnsafeMutablePointer<State>,
        new: UnsafeMutablePointer<State>,
        consumerRuns runs: Int
    ) {
        let end = core.closures.slotCount
        guard runs > 0, let engine = core.engine else {
            // No consumer to interleave with (the common case of many closure subscribers): a
            // plain loop over the slots, at one published call level, where naming the next call
            // ends the previous one (nothing but this loop runs between two calls).
            let level = drain.beginCalls()
            callClosures(
                core, upTo: end, old: old, new: new, at: level,
                barrierIsCompilerOnly: rc_light_barrier_is_compiler_only() != 0)
            drain.endCalls(level)
            return
        }
        var slot = 0
        var run = 0
        engine.withRunDelivery(state: UnsafeMutableRawPointer(core.state)) { deliverRun in
            while slot < end || run < runs {
                if run < runs, slot == end || engine.runOrder(at: run) < core.closures.identifier(atSlot: slot) {
                    deliverRun(run)
                    run += 1
                    continue
                }
                callClosure(core, atSlot: slot, old: old, new: new)
                slot += 1
            }
        }
    }

    /// Calls the closure subscribers in slots `0..<end`, skipping removed ones, at `level`, with
    /// the kind of barrier chosen once per pass.
    @inline(__always)
    private func callClosures(
        _ core: StoreCore<State>,
        upTo end: Int,
        old: UnsafeMutablePointer<State>,
        new: UnsafeMutablePointer<State>,
        at level: Drain.CallLevel,
        barrierIsCompilerOnly: Bool
    ) {
        guard end > 0 else { return }
        // The slots' buffer, read once: during a pass the list is iterated (`beginIteration`), so
        // its slots never move; a removal only empties one in place, and the list is never
        // copied, so that write never moves the buffer either (debug builds check both).
        let first = core.closures.entries.withUnsafeBufferPointer { $0.baseAddress.unsafelyUnwrapped }
        Self.callClosures(
            from: first, to: first + end, old: old, new: new, drain: drain, at: level,
            barrierIsCompilerOnly: barrierIsCompilerOnly, checkingSlotsOf: core)
    }

    /// The loop in a function of its own, with a copy for each kind of barrier: with nothing else
    /// live around it, a pointer walks the slots and the call level's words stay in registers.
    @inline(never)
    private static func callClosures(
        from first: UnsafePointer<SlotList<Unmanaged<AnyObject>>.Entry>,
        to last: UnsafePointer<SlotList<Unmanaged<AnyObject>>.Entry>,
        old: UnsafeMutablePointer<State>,
        new: UnsafeMutablePointer<State>,
        drain: Drain,
        at level: Drain.CallLevel,
        barrierIsCompilerOnly: Bool,
        checkingSlotsOf core: StoreCore<State>
    ) {
        // Calls the closure subscribers in the slots from `first` up to `last`, skipping removed
        // ones; inlined twice below, each copy with its barrier known.
        @inline(__always)
        func callEach(compilerBarrierOnly: Bool) {
            var cursor = first
            repeat {
                assert(
                    core.closures.entries.withUnsafeBufferPointer { $0.baseAddress } == UnsafePointer(first),
                    "closure subscribers' slots moved during a pass")
                // Read the slot afresh: a callback may have cancelled a later subscriber.
                if let entry = cursor.pointee.element,
                    drain.willCallNext(
                        tag: UInt(bitPattern: entry.toOpaque()), at: level, barrierIsCompilerOnly: compilerBarrierOnly)
                {
                    call(entry, old: old, new: new)
                }
                cursor += 1
            } while cursor != last
        }
        if barrierIsCompilerOnly {
            callEach(compilerBarrierOnly: true)
        } else {
            callEach(compilerBarrierOnly: false)
        }
    }

    /// Calls the closure subscriber in `slot`, unless it was removed.
    @inline(__always)
    private func callClosure(
        _ core: StoreCore<State>, atSlot slot: Int, old: UnsafeMutablePointer<State>, new: UnsafeMutablePointer<State>
    ) {
        // Read the slot afresh: a callback may have cancelled a later subscriber. Borrowed, not
        // retained: `core.subscribers` owns it, and one cancelled during the pass waits in
        // `core.retired` until the pass is over.
        guard let entry = core.closures[slot: slot], drain.willCall(tag: UInt(bitPattern: entry.toOpaque()), member: 0)
        else { return }
        Self.call(entry, old: old, new: new)
        drain.didCall()
    }

    /// Calls the closure subscriber `entry`, borrowed.
    @inline(__always)
    private static func call(
        _ entry: Unmanaged<AnyObject>, old: UnsafeMutablePointer<State>, new: UnsafeMutablePointer<State>
    ) {
        // Retyped without a check (debug builds check): only `Subscriber<State>`s are inserted in
        // `closures`.
        assert(entry.takeUnretainedValue() is Subscriber<State>, "a closure subscriber of another type")
        let subscriber = Unmanaged<Subscriber<State>>.fromOpaque(entry.toOpaque())
        subscriber._withUnsafeGuaranteedRef { call($0.callback, &old.pointee, &new.pointee) }
    }

    /// Calls a closure subscriber with both states in place: `inout` arguments are passed by
    /// address, while `pointee` itself would be copied (and everything in it retained) per call.
    private static func call(
        _ callback: (State, State) -> Void,
        _ old: inout State,
        _ new: inout State
    ) {
        callback(old, new)
    }

    private func notifyListeners(_ core: StoreCore<State>, action: any Action) {
        let end = core.listeners.slotCount
        for slot in 0..<end {
            // Read afresh: a listener may have cancelled a later one. The copy keeps the closure
            // alive while it runs, even if it cancels itself.
            if let listener = core.listeners[slot: slot], drain.willCall(tag: listener.tag, member: 0) {
                listener.callback(action)
                drain.didCall()
            }
        }
    }
}
