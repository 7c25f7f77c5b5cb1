import Dispatch
import ReduxConsumer
import ReduxConsumerTestSupport
import Testing

/// Consumers with options (`deliveringOn:`, `isEqual:`, derived values): guarantee 3 where a
/// queued call is dropped or merged away.
struct OptionsHuntTests {
    private struct Call: Equatable, Sendable {
        let old: Int
        let new: Int
    }

    /// Blocks a serial queue until `release` is called; returns once the block is running.
    private static func hold(_ queue: DispatchQueue) -> @Sendable () -> Void {
        let started = DispatchSemaphore(value: 0)
        let gate = DispatchSemaphore(value: 0)
        queue.async {
            started.signal()
            gate.wait()
        }
        started.wait()
        return { gate.signal() }
    }

    /// Runs after everything posted to `queue` so far.
    private static func flush(_ queue: DispatchQueue) {
        queue.sync {}
    }

    /// A queued call dropped by `Subscription.cancel()` leaves its member's value where the
    /// member last heard it: subscribed again, the member hears the change it missed, with `old`
    /// its starting value (guarantee 3, and "a consumer that comes back to a store hears what
    /// changed while it was away").
    @Test func aQueuedCallDroppedByCancellingTheSubscriptionIsHeardOnReturn() {
        let queue = DispatchQueue(label: "options-hunt.cancel")
        let store = makeStore()
        let consumer = StateConsumer<AppState>(deliveringOn: queue)
        let calls = Recorder<Call>()
        consumer.add(\.counter) { old, new in calls.append(Call(old: old, new: new)) }
        let subscription = store.subscribe(consumer)
        let release = Self.hold(queue)
        store.dispatch(CounterAction.set(1))
        subscription.cancel()  // drops the pending call 0 → 1
        release()
        Self.flush(queue)
        #expect(calls.values.isEmpty)

        let again = store.subscribe(consumer)
        store.dispatch(CounterAction.set(2))
        Self.flush(queue)
        let values = calls.values
        #expect(values.first?.old == 0, "the first call's old is the member's starting value: \(values)")
        #expect(values.last?.new == 2)
        again.cancel()
    }

    /// The same when the store goes: the consumer keeps its members and their last *heard* values,
    /// and fed by hand it reports the change its dropped call carried.
    @Test func aQueuedCallDroppedWhenTheStoreGoesIsHeardWhenFedByHand() {
        let queue = DispatchQueue(label: "options-hunt.store-gone")
        let consumer = StateConsumer<AppState>(deliveringOn: queue)
        let calls = Recorder<Call>()
        consumer.add(\.counter) { old, new in calls.append(Call(old: old, new: new)) }
        let release: @Sendable () -> Void
        do {
            let store = makeStore()
            store.subscribe(consumer)
            release = Self.hold(queue)
            store.dispatch(CounterAction.set(1))
        }
        release()
        Self.flush(queue)
        consumer.consume(newState: AppState(counter: 2))
        Self.flush(queue)
        Self.flush(queue)
        let values = calls.values
        #expect(values.first?.old == 0, "the first call's old is the member's starting value: \(values)")
        #expect(values.last?.new == 2)
    }

    /// An `isEqual:` member on a queue whose merged change came back to a value `isEqual` calls
    /// the same is not called; its next call's `old` is still the value it was last given, not
    /// the one the dropped change ended at (README: `isEqual` compares with the last *delivered*
    /// value; guarantee 3).
    @Test func anIsEqualMemberWhoseMergedChangeCameBackKeepsItsLastDeliveredOld() {
        let queue = DispatchQueue(label: "options-hunt.is-equal")
        let store = makeStore()
        let consumer = StateConsumer<AppState>(deliveringOn: queue)
        let calls = Recorder<Call>()
        // Tens count as the same value: 0 and 5 are the same, 12 is not.
        consumer.add(\.counter, isEqual: { $0 / 10 == $1 / 10 }) { old, new in
            calls.append(Call(old: old, new: new))
        }
        store.subscribe(consumer)
        let release = Self.hold(queue)
        store.dispatch(CounterAction.set(12))  // posted: 0 → 12
        store.dispatch(CounterAction.set(5))  // merged: 0 → 5, the same as 0: not called
        release()
        Self.flush(queue)
        #expect(calls.values.isEmpty)
        store.dispatch(CounterAction.set(23))
        Self.flush(queue)
        #expect(calls.values == [Call(old: 0, new: 23)])
    }

    /// The same for a member on an actor: its call, posted and not begun when the subscription
    /// ends (the actor is busy), is dropped, and the member hears the change when it comes back.
    @Test func anIsolatedCallDroppedByCancellingTheSubscriptionIsHeardOnReturn() async {
        let store = makeStore()
        let consumer = StateConsumer<AppState>()
        let calls = Recorder<Call>()
        let reached = Signal()
        consumer.add(\.counter, on: TestActor.shared) { @TestActor old, new in
            calls.append(Call(old: old, new: new))
            if new == 2 { reached.fire() }
        }
        let subscription = store.subscribe(consumer)
        // On the actor: the call posted for 0 → 1 cannot begin before the cancellation drops it.
        await TestActor.shared.run {
            store.dispatch(CounterAction.set(1))
            subscription.cancel()
        }
        let again = store.subscribe(consumer)
        store.dispatch(CounterAction.set(2))
        guard await finishesWithoutDeadlock({ await reached.wait() }) else { return }
        #expect(calls.values == [Call(old: 0, new: 2)])
        again.cancel()
    }

    /// `removeAll()` removes the members added before it, and only those (guarantee 1): a member
    /// on an actor added while the removal waits for a callback running on another thread keeps
    /// its `.instantly` call, even when the removal drops its consumer's pending calls after the
    /// call was posted.
    @Test func aMemberAddedWhileRemoveAllWaitsKeepsItsPendingInstantCall() async {
        let store = makeStore()
        let consumer = StateConsumer<AppState>()
        let entered = DispatchSemaphore(value: 0)
        let proceed = DispatchSemaphore(value: 0)
        let calls = Recorder<Call>()
        let reached = Signal()
        consumer.add(\.counter) { new in
            guard new == 1 else { return }
            entered.signal()
            proceed.wait()
            // Added after `removeAll()` decided: it survives, and starts from this pass's state.
            consumer.add(\.counter, options: .instantly, on: TestActor.shared) { @TestActor old, new in
                calls.append(Call(old: old, new: new))
                reached.fire()
            }
        }
        let subscription = store.subscribe(consumer)
        // A dropped call never comes: then the wait ends with a timeout (reported as a deadlock).
        // Generous: the whole suite blocks pool threads in parallel, slowly under sanitizers.
        let finished = await finishesWithoutDeadlock(within: 60) {
            // The actor is busy meanwhile: every call posted to it waits.
            // Its pool thread blocks on plain threads only: the dispatch and the removal never need the pool.
            await TestActor.shared.run {
                let dispatching = spawn { store.dispatch(CounterAction.set(1)) }
                entered.wait()
                let removing = spawn { consumer.removeAll() }
                spin { consumer.count == 0 }  // removeAll decided, and waits for the callback
                proceed.signal()
                dispatching.wait()
                removing.wait()
            }
            await reached.wait()
        }
        guard finished else { return }
        #expect(calls.values == [Call(old: 1, new: 1)])
        subscription.cancel()
        consumer.removeAll()
    }

    /// A consumer on a held queue, whose pending calls were dropped as its subscription ended,
    /// comes back: the calls of its catch-up are made in the order its members were added, not in
    /// the order of the calls dropped (guarantee 2).
    @Test func aQueuedConsumerThatComesBackIsCalledInMemberOrder() {
        let queue = DispatchQueue(label: "options-hunt.order")
        let store = makeStore()
        let consumer = StateConsumer<AppState>(deliveringOn: queue)
        let calls = Recorder<String>()
        consumer.add(\.counter) { old, new in calls.append("counter \(old) → \(new)") }
        consumer.add(\.name) { old, new in calls.append("name \(old ?? "nil") → \(new ?? "nil")") }
        let subscription = store.subscribe(consumer)
        let release = Self.hold(queue)
        // Posted in the opposite order: the name first.
        store.dispatch(CounterAction.rename("x"))
        store.dispatch(CounterAction.set(1))
        subscription.cancel()
        let again = store.subscribe(consumer)
        release()
        Self.flush(queue)
        #expect(calls.values == ["counter 0 → 1", "name nil → x"])
        again.cancel()
    }
}
