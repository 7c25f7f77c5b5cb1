import Dispatch
import ReduxConsumer
import ReduxConsumerTestSupport
import Testing

/// Guarantee 1 through the public API, at the two edges of the drain's removal protocol: a removal
/// waits for the removed callback running on another thread, except when that thread waits for
/// the remover; and removals made where no pass can be waited for (first-state delivery, queues).
struct RemovalTests {
    /// With the removed member alone on its key path (a pass calls it from its group's copy of the
    /// callback), or between two others on the same key path (a pass calls the group's members at
    /// one published level, naming each call with its member).
    @Test(arguments: [false, true])
    func aRemovalWaitsForTheRemovedCallbackRunningOnAnotherThread(sharesItsGroup: Bool) {
        let store = makeStore()
        let consumer = StateConsumer<AppState>()
        let watch = CallWatch()
        consumer.add(\.name) { _ in }
        if sharesItsGroup { consumer.add(\.counter) { _ in } }
        let others = sharesItsGroup ? 3 : 1
        // The remover has made its decision once the count drops: it then waits for the call.
        let token = consumer.add(\.counter) { _ in watch.call(untilRemoverDecided: { consumer.count == others }) }
        if sharesItsGroup { consumer.add(\.counter) { _ in } }
        let subscription = store.subscribe(consumer)
        let report = watch.removingWhileCalled(by: store) { token.cancel() }
        #expect(report == CallWatch.Report(calls: 1, runningAtRemoval: false, lateCalls: 0))
        subscription.cancel()
    }

    /// The same for a closure subscriber, which a pass calls in a loop that publishes its level
    /// once and each call with one store.
    @Test func aCancelledClosureSubscriptionWaitsForItsCallRunningOnAnotherThread() {
        let store = makeStore()
        let watch = CallWatch()
        let before = store.subscribe { _, _ in }
        let subscription = store.subscribe { _, _ in
            watch.call(untilRemoverDecided: { store.subscriberCount == 2 })
        }
        let after = store.subscribe { _, _ in }
        let report = watch.removingWhileCalled(by: store) { subscription.cancel() }
        #expect(report == CallWatch.Report(calls: 1, runningAtRemoval: false, lateCalls: 0))
        before.cancel()
        after.cancel()
    }

    /// A removal waits for its own callback only: cancelling a closure subscriber whose call has
    /// returned, while the pass calls the next one on another thread, returns at once (that next
    /// callback waits for the cancel here, so waiting for it would never end).
    @Test func cancellingAClosureSubscriberCalledAlreadyDoesNotWaitForTheNextOne() {
        let store = makeStore()
        let inSecond = DispatchSemaphore(value: 0)
        let cancelled = DispatchSemaphore(value: 0)
        let calls = Recorder<String>()
        let first = store.subscribe { _, _ in calls.append("first") }
        let second = store.subscribe { _, _ in
            calls.append("second")
            inSecond.signal()
            cancelled.wait()
        }
        guard removeFirst(while: store, callsSecond: inSecond, then: cancelled, { first.cancel() }) else { return }
        second.cancel()
        store.dispatch(CounterAction.increment)
        #expect(calls.values == ["first", "second"])
        #expect(store.subscriberCount == 0)
    }

    /// Removing a member of a group whose call has returned, while the pass calls the next member
    /// on another thread, returns at once (that member waits for the removal here).
    @Test func removingAMemberOfAGroupCalledAlreadyDoesNotWaitForTheNextOne() {
        let store = makeStore()
        let consumer = StateConsumer<AppState>()
        let inSecond = DispatchSemaphore(value: 0)
        let removed = DispatchSemaphore(value: 0)
        let calls = Recorder<String>()
        let first = consumer.add(\.counter) { _ in calls.append("first") }
        consumer.add(\.counter) { _ in
            calls.append("second")
            inSecond.signal()
            removed.wait()
        }
        let subscription = store.subscribe(consumer)
        guard removeFirst(while: store, callsSecond: inSecond, then: removed, { first.cancel() }) else { return }
        subscription.cancel()
        consumer.removeAll()
        #expect(calls.values == ["first", "second"])
        #expect(consumer.count == 0)
    }

    @Test func aRemovalWaitsForTheRemovedQueuedCallbackRunningOnItsQueue() {
        let store = makeStore()
        let queue = DispatchQueue(label: "removal-tests")
        let consumer = StateConsumer<AppState>(deliveringOn: queue)
        let entered = DispatchSemaphore(value: 0)
        let watch = CallWatch()
        consumer.add(\.name) { _ in }
        let token = consumer.add(\.counter) { _ in
            watch.begin()
            entered.signal()
            spin { consumer.count == 1 }
            watch.end()
        }
        let subscription = store.subscribe(consumer)
        let finished = finishesWithoutDeadlock {
            store.dispatch(CounterAction.increment)
            entered.wait()
            // A second call waits on the queue; it may start before the removal drops it, never after.
            store.dispatch(CounterAction.increment)
            token.cancel()
            watch.removed()
            store.dispatch(CounterAction.increment)
            queue.sync {}
        }
        guard finished else { return }
        let report = watch.report
        #expect(!report.runningAtRemoval && report.lateCalls == 0, "\(report)")
        #expect((1...2).contains(report.calls))
        subscription.cancel()
    }

    /// Two callbacks, on two threads, each removing the other: a removal finds the other remover
    /// waiting for it (parked) and returns at once, while the callback it removed is still running;
    /// no deadlock, and neither is called again.
    @Test func twoCallbacksOnTwoThreadsRemovingEachOtherBothReturn() {
        let left = makeStore()
        let right = makeStore()
        let leftConsumer = StateConsumer<AppState>()
        let rightConsumer = StateConsumer<AppState>()
        let inLeft = DispatchSemaphore(value: 0)
        let inRight = DispatchSemaphore(value: 0)
        let calls = Recorder<String>()
        let tokens = Lock<(left: ConsumerToken?, right: ConsumerToken?)>((nil, nil))
        let log = Recorder<String>()
        leftConsumer.add(\.name) { _ in }
        rightConsumer.add(\.name) { _ in }
        let leftToken = leftConsumer.add(\.counter) { _ in
            calls.append("left")
            inLeft.signal()
            inRight.wait()
            tokens.withLock { $0.right }?.cancel()
            log.append("left removed right")
            log.append("left returns")
        }
        let rightToken = rightConsumer.add(\.counter) { _ in
            calls.append("right")
            inRight.signal()
            inLeft.wait()
            tokens.withLock { $0.left }?.cancel()
            log.append("right removed left")
            log.append("right returns")
        }
        tokens.withLock { $0 = (leftToken, rightToken) }
        let subscriptions = [left.subscribe(leftConsumer), right.subscribe(rightConsumer)]
        let finished = finishesWithoutDeadlock {
            let threads = [left, right].map { store in spawn { store.dispatch(CounterAction.increment) } }
            for thread in threads { thread.wait() }
        }
        guard finished else { return }
        // Which removal returns first, and whether the other then waits for its callback, is up to
        // timing; that both return is the point.
        #expect(Set(log.values) == ["left removed right", "left returns", "right removed left", "right returns"])
        left.dispatch(CounterAction.increment)
        right.dispatch(CounterAction.increment)
        #expect(calls.values.sorted() == ["left", "right"])
        #expect(leftConsumer.count == 1 && rightConsumer.count == 1)
        for subscription in subscriptions { subscription.cancel() }
    }

    @Test func aMemberRemovedInsideTheFirstStateDeliveryIsNotCalled() {
        let store = makeStore(AppState(counter: 3))
        let consumer = StateConsumer<AppState>()
        let calls = Recorder<String>()
        let victim = Lock<ConsumerToken?>(nil)
        consumer.add(\.counter, options: .instantly) { old, new in
            calls.append("remover \(old)→\(new)")
            victim.withLock { $0 }?.cancel()
        }
        victim.withLock { $0 = consumer.add(\.counter, options: .instantly) { _ in calls.append("victim") } }
        let subscription = store.subscribe(consumer)
        store.dispatch(CounterAction.increment)
        #expect(calls.values == ["remover 3→3", "remover 3→4"])
        #expect(consumer.count == 1)
        subscription.cancel()
    }

    /// A reducer subscribes a consumer whose members wait for their first state (the subscription
    /// waits until the reducer returned), then removes one of them (a removal takes effect at once):
    /// the removed member is never called, not even by the first delivery.
    @Test func aWaitingMemberRemovedBeforeItsFirstDeliveryIsNotCalled() {
        let waiting = StateConsumer<AppState>()
        let calls = Recorder<String>()
        waiting.add(\.counter, options: .instantly) { old, new in calls.append("kept \(old)→\(new)") }
        let victim = waiting.add(\.counter, options: .instantly) { _ in calls.append("victim") }
        let subscriptions = Lock<[Subscription]>([])
        let slot = Lock<Store<AppState>?>(nil)
        let store = Store(
            initialState: AppState(),
            reducer: Reducer { (state: inout AppState, action: any Action) in
                appReducer(&state, action)
                guard case .rename("open")? = action as? CounterAction, let store = slot.withLock({ $0 }) else {
                    return
                }
                subscriptions.withLock { $0.append(store.subscribe(waiting)) }
                victim.cancel()
                calls.append("cancel returned")
            })
        slot.withLock { $0 = store }
        store.dispatch(CounterAction.increment)
        store.dispatch(CounterAction.rename("open"))
        store.dispatch(CounterAction.increment)
        #expect(calls.values == ["cancel returned", "kept 1→1", "kept 1→2"])
        #expect(waiting.count == 1)
        for subscription in subscriptions.withLock({ $0 }) { subscription.cancel() }
        #expect(store.subscriberCount == 0)
        slot.withLock { $0 = nil }
    }

    /// Releasing a page is one of the removals of guarantee 1: once the owner's last reference is
    /// dropped, the page's consumers are never called again, even when the global store is
    /// forwarding an action to the page on another thread at that moment.
    @Test func aReleasedPageIsNotCalledForAnActionForwardedWhileItWasReleased() {
        let global = makeStore()
        let calls = Recorder<String>()
        let inPredicate = DispatchSemaphore(value: 0)
        let hasReleaseReturned = Lock(false)
        let holder = Lock<PageStore<AppState, AppState>?>(
            PageStore(global: global, initialState: { $0 }, reducer: appReducer))
        weak let weakPage = holder.withLock { $0 }
        _ = holder.withLock { $0 }?.globalConsumer  // subscribed to the global store on first use
        let subscribed = global.subscriberCount
        holder.withLock { $0 }?.forwardActions { action in
            // The forwarding listener runs on the dispatching thread. It goes on once the page's
            // release has begun (its global subscription is gone) or has returned: a release must
            // wait for a call in progress, so waiting for it to return could deadlock.
            if case CounterAction.rename("forwarded")? = action as? CounterAction {
                inPredicate.signal()
                spin { global.subscriberCount < subscribed || hasReleaseReturned.withLock { $0 } }
            }
            return true
        }
        holder.withLock { $0 }?.consumer.add(\.name) { new in
            calls.append("\(new ?? "nil")\(hasReleaseReturned.withLock { $0 } ? " after the release returned" : "")")
        }
        let finished = finishesWithoutDeadlock {
            let dispatcher = spawn { global.dispatch(CounterAction.rename("forwarded")) }
            inPredicate.wait()
            // The owner drops its only reference to the page.
            let page = holder.withLock { holder in
                defer { holder = nil }
                return holder
            }
            _ = consume page
            hasReleaseReturned.withLock { $0 = true }
            dispatcher.wait()
        }
        guard finished else { return }
        #expect(!calls.values.contains { $0.hasSuffix("after the release returned") }, "\(calls.values)")
        #expect(weakPage == nil)
        #expect(global.subscriberCount == 0)
    }

    enum QueuedRemoval: String, CaseIterable, Sendable {
        case token, removeAll, subscription, bag, pageClose
    }

    /// An add made from inside another store's work while the consumer's store is busy on a
    /// third thread is queued behind that work (it does not wait); removing its member (by token,
    /// or with `removeAll`) before it runs cancels it: the member is never admitted, never called
    /// (not even its `.instantly` call) and not counted.
    @Test(arguments: [false, true])
    func anAddQueuedBehindAnotherThreadIsCancelledByItsRemoval(removingAll: Bool) {
        let store = makeStore()
        let other = makeStore()
        let consumer = StateConsumer<AppState>()
        let entered = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        let calls = CallCounter()
        let counts = Recorder<Int>()
        // Another consumer holds the store busy: the one under test has no call in progress, so
        // its removals need not wait.
        let blocker = StateConsumer<AppState>()
        blocker.add(\.counter) { _ in
            entered.signal()
            release.wait()
        }
        let blockerSubscription = store.subscribe(blocker)
        let earlier = CallCounter()
        consumer.add(\.counter) { _ in earlier.increment() }
        let subscription = store.subscribe(consumer)
        let otherSubscription = other.subscribe { _, _ in
            // Inside `other`'s work while `store` is busy on the dispatcher's thread: queued.
            let token = consumer.add(\.name, options: .instantly) { _ in calls.increment() }
            counts.append(consumer.count)
            if removingAll {
                consumer.removeAll()
            } else {
                token.cancel()
            }
            counts.append(consumer.count)
        }
        let finished = finishesWithoutDeadlock {
            let dispatcher = spawn { store.dispatch(CounterAction.increment) }
            entered.wait()
            other.dispatch(CounterAction.increment)
            release.signal()
            dispatcher.wait()
        }
        guard finished else { return }
        store.dispatch(CounterAction.rename("late"))
        store.dispatch(CounterAction.rename("later"))
        #expect(calls.value == 0)
        // `removeAll` also reached the member whose call the pass had not made yet.
        #expect(earlier.value == (removingAll ? 0 : 1))
        #expect(counts.values == [2, removingAll ? 0 : 1])
        #expect(consumer.count == (removingAll ? 0 : 1))
        subscription.cancel()
        blockerSubscription.cancel()
        otherSubscription.cancel()
        #expect(store.subscriberCount == 0)
    }

    /// Calls waiting on a queue when their member is removed are dropped: the callback never runs.
    @Test(arguments: QueuedRemoval.allCases)
    func pendingQueuedCallsAreDroppedByTheirRemoval(_ removal: QueuedRemoval) {
        let store = makeStore()
        let queue = DispatchQueue(label: "removal-tests.pending")
        let calls = CallCounter()
        let page = PageStore(global: store, initialState: { $0 }, reducer: appReducer, deliveringOn: queue)
        let consumer = removal == .pageClose ? page.globalConsumer : StateConsumer<AppState>(deliveringOn: queue)
        let bag = ConsumerBag()
        let token = consumer.add(\.counter) { _ in calls.increment() }
        token.store(in: bag)
        let subscription = removal == .pageClose ? nil : store.subscribe(consumer)
        queue.suspend()
        store.dispatch(CounterAction.increment)
        store.dispatch(CounterAction.increment)
        switch removal {
        case .token: token.cancel()
        case .bag: bag.removeAll()
        case .removeAll: consumer.removeAll()
        case .subscription: subscription?.cancel()
        case .pageClose: page.close()
        }
        queue.resume()
        queue.sync {}
        #expect(calls.value == 0)
        subscription?.cancel()
        page.close()
        #expect(store.subscriberCount == 0)
    }
}

/// Whether a callback was running when its removal returned, and whether it started afterwards.
private final class CallWatch: Sendable {
    struct Report: Equatable {
        var calls = 0
        var runningAtRemoval = false
        var lateCalls = 0
    }

    private let state = Lock((report: Report(), isRunning: false, isRemoved: false))
    private let entered = DispatchSemaphore(value: 0)

    /// The watched callback's body: begins, lets the remover go, and ends once `decided` says the
    /// removal made its decision (it then waits for this call).
    func call(untilRemoverDecided decided: () -> Bool) {
        begin()
        entered.signal()
        spin(until: decided)
        end()
    }

    /// Dispatches to `store` on another thread and, once the watched callback runs, removes it
    /// here with `remove`; then dispatches again. The report, or `nil` after a deadlock (which the
    /// watchdog has reported).
    func removingWhileCalled(
        by store: Store<AppState>,
        sourceLocation: SourceLocation = #_sourceLocation,
        _ remove: @escaping @Sendable () -> Void
    ) -> Report? {
        let finished = finishesWithoutDeadlock(sourceLocation: sourceLocation) { [self] in
            let dispatcher = spawn { store.dispatch(CounterAction.increment) }
            entered.wait()
            remove()
            removed()
            dispatcher.wait()
        }
        guard finished else { return nil }
        store.dispatch(CounterAction.increment)
        return report
    }

    func begin() {
        state.withLock { state in
            state.report.calls += 1
            state.isRunning = true
            if state.isRemoved { state.report.lateCalls += 1 }
        }
    }

    func end() {
        state.withLock { $0.isRunning = false }
    }

    /// Call once the removal returned.
    func removed() {
        state.withLock { state in
            state.isRemoved = true
            state.report.runningAtRemoval = state.isRunning
        }
    }

    var report: Report {
        state.withLock { $0.report }
    }
}

/// Dispatches to `store` on another thread and, once its pass runs the second callback (it
/// signals `inSecond`), removes the first one here with `removal`, then lets the second finish
/// (`release`). Returns whether that ended, rather than deadlocking (a failure is recorded then).
private func removeFirst(
    while store: Store<AppState>,
    callsSecond inSecond: DispatchSemaphore,
    then release: DispatchSemaphore,
    _ removal: @escaping @Sendable () -> Void,
    sourceLocation: SourceLocation = #_sourceLocation
) -> Bool {
    finishesWithoutDeadlock(sourceLocation: sourceLocation) {
        let dispatcher = spawn { store.dispatch(CounterAction.increment) }
        inSecond.wait()
        removal()
        release.signal()
        dispatcher.wait()
    }
}
