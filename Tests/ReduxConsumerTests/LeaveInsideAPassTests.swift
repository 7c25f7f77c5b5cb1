import Dispatch
import ReduxConsumerTestSupport
import Testing

@testable import ReduxConsumer

/// A consumer whose subscription ends from inside one of its own callbacks leaves its store in
/// the middle of a pass that is still walking its members: until that pass is over, whatever
/// other threads do to the consumer goes through the store, so guarantee 1 holds for them (a
/// removal waits for the call in progress) and nothing touches the members beside the pass.
struct LeaveInsideAPassTests {
    @Test func aRemovalOnAnotherThreadWaitsForTheCallbackThatCancelledTheSubscription() {
        let store = makeStore()
        let consumer = StateConsumer<AppState>()
        let left = DispatchSemaphore(value: 0)
        let proceed = DispatchSemaphore(value: 0)
        let running = Slot(false)
        let removed = Slot(false)
        let lateCalls = Slot(0)
        let subscription = Slot<Subscription?>(nil)
        consumer.add(\.counter) { _, new in
            guard new == 1 else { return }
            running.value = true
            subscription.value?.cancel()
            left.signal()
            proceed.wait()
            running.value = false
        }
        consumer.add(\.counter) { _, _ in
            if removed.value { lateCalls.value += 1 }
        }
        subscription.value = store.subscribe(consumer)
        let runningWhenRemovalReturned = Slot<Bool?>(nil)
        let finished = finishesWithoutDeadlock {
            let busy = spawn { store.dispatch(CounterAction.increment) }
            left.wait()
            let remover = spawn {
                consumer.removeAll()
                runningWhenRemovalReturned.value = running.value
                removed.value = true
            }
            // The removal either returned (the bug), or marked itself on the store and waits for
            // the callback in progress.
            spin { removed.value || store.drain.snapshot.removalMarks.count == 1 }
            proceed.signal()
            busy.wait()
            remover.wait()
            consumer.consume(newState: AppState(counter: 5))
            store.dispatch(CounterAction.increment)
        }
        guard finished else { return }
        #expect(runningWhenRemovalReturned.value == false)
        #expect(lateCalls.value == 0)
        #expect(consumer.count == 0)
    }

    @Test func aConsumerSubscribedElsewhereWhileItLeavesJoinsOnceThePassIsOver() {
        let first = makeStore()
        let second = makeStore(AppState(counter: 100))
        let consumer = StateConsumer<AppState>()
        let left = DispatchSemaphore(value: 0)
        let proceed = DispatchSemaphore(value: 0)
        let subscription = Slot<Subscription?>(nil)
        let heard = Recorder<(Int, Int)>()
        consumer.add(\.counter) { _, new in
            guard new == 1 else { return }
            subscription.value?.cancel()
            left.signal()
            proceed.wait()
        }
        consumer.add(\.counter) { old, new in heard.append((old, new)) }
        subscription.value = first.subscribe(consumer)
        let finished = finishesWithoutDeadlock {
            let busy = spawn { first.dispatch(CounterAction.increment) }
            left.wait()
            let elsewhere = spawn {
                _ = second.subscribe(consumer)
                second.dispatch(CounterAction.set(200))
            }
            elsewhere.wait()
            proceed.signal()
            busy.wait()
            second.dispatch(CounterAction.set(300))
        }
        guard finished else { return }
        // The second member never heard the first store's change (its consumer left before it),
        // and hears the second store's values as one chain, each once.
        let values = heard.values
        #expect(values.first?.0 == 0)
        #expect(values.last?.1 == 300)
        #expect(zip(values, values.dropFirst()).allSatisfy { $0.1 == $1.0 })
        #expect(!values.contains { $0.1 == 1 })
    }

    @Test func aStateFedByHandRightAfterLeavingInsideACallbackIsConsumedAfterThePass() {
        let store = makeStore()
        let consumer = StateConsumer<AppState>()
        let subscription = Slot<Subscription?>(nil)
        let heard = Recorder<(Int, Int)>()
        // Weakly: the consumer keeps its members, which must not keep it.
        consumer.add(\.counter) { [weak consumer] old, new in
            heard.append((old, new))
            guard new == 1 else { return }
            subscription.value?.cancel()
            consumer?.consume(newState: AppState(counter: 7))
            consumer?.consume(newState: AppState(counter: 8))
        }
        subscription.value = store.subscribe(consumer)
        store.dispatch(CounterAction.increment)
        consumer.consume(newState: AppState(counter: 9))
        #expect(heard.values.map { [$0.0, $0.1] } == [[0, 1], [1, 7], [7, 8], [8, 9]])
        #expect(store.subscriberCount == 0)
    }

    @Test func consumersLeavingFromTheirOwnCallbacksWhileOtherThreadsChurnTheirMembers() {
        let consumerCount = 4
        let dispatchesPerThread = scaled(4_000, sanitized: 800)
        let store = makeStore()
        let consumers = (0..<consumerCount).map { _ in StateConsumer<AppState>() }
        let handles = (0..<consumerCount).map { _ in Lock<Subscription?>(nil) }
        let heardLast = (0..<consumerCount).map { _ in Lock(0) }
        for (index, consumer) in consumers.enumerated() {
            consumer.add(\.counter) { _, new in heardLast[index].withLock { $0 = new } }
            // Leaves its store from inside its own callback now and then.
            consumer.add(\.counter) { _, new in
                guard new.isMultiple(of: 7 + index) else { return }
                handles[index].withLock { $0 }?.cancel()
            }
            handles[index].withLock { $0 = store.subscribe(consumer) }
        }
        let probes = Lock<[CallProbe]>([])
        let isDispatching = Lock(true)
        let finished = finishesWithoutDeadlock(within: scaled(60, sanitized: 300)) {
            let dispatchers = (0..<2).map { _ in
                spawn { for _ in 0..<dispatchesPerThread { store.dispatch(CounterAction.increment) } }
            }
            // Subscribes back whichever consumer left.
            let returner = spawn {
                while isDispatching.withLock({ $0 }) {
                    for (index, consumer) in consumers.enumerated()
                    where handles[index].withLock({ $0?.isCancelled != false }) {
                        // Outside the lock: the subscription's first calls run here.
                        let handle = store.subscribe(consumer)
                        handles[index].withLock { $0 = handle }
                    }
                }
            }
            // Adds members and removes them again, each watched by a probe.
            let churners = (0..<2).map { thread in
                spawn {
                    Self.churnMembers(
                        of: consumers, seed: 0x1EA7_0000 + UInt64(thread), into: probes, while: isDispatching
                    ) {
                        consumer, probe in
                        consumer.add(\.counter) { old, new in probe.call(old: old, new: new) }
                    }
                }
            }
            for thread in dispatchers { thread.wait() }
            isDispatching.withLock { $0 = false }
            returner.wait()
            for thread in churners { thread.wait() }
        }
        guard finished else { return }
        #expect(store.state.counter == 2 * dispatchesPerThread)
        // Every consumer, subscribed again if it left, hears the next state.
        for (index, consumer) in consumers.enumerated() where handles[index].withLock({ $0?.isCancelled != false }) {
            let handle = store.subscribe(consumer)
            handles[index].withLock { $0 = handle }
        }
        store.dispatch(CounterAction.set(-1))
        for index in consumers.indices {
            #expect(heardLast[index].withLock { $0 } == -1, "consumer \(index) was not fed")
        }
        for probe in probes.withLock({ $0 }) {
            let report = probe.report
            #expect(report.lateCalls == 0, "\(probe.name): \(report)")
            #expect(report.disorders == 0, "\(probe.name): \(report)")
        }
        for (index, consumer) in consumers.enumerated() {
            #expect(consumer.count == 2)
            handles[index].withLock { $0 }?.cancel()
        }
        #expect(store.subscriberCount == 0)
    }

    @Test func consumersHoppingBetweenTwoStoresAndFedByHandWhileOtherThreadsChurnTheirMembers() {
        let consumerCount = 3
        let dispatchesPerThread = scaled(3_000, sanitized: 600)
        let stores = [makeStore(), makeStore()]
        let consumers = (0..<consumerCount).map { _ in StateConsumer<AppState>() }
        let handles = (0..<consumerCount).map { _ in Lock<Subscription?>(nil) }
        let heardLast = (0..<consumerCount).map { _ in Lock(0) }
        let probes = Lock<[CallProbe]>([])
        let isDispatching = Lock(true)
        for (index, consumer) in consumers.enumerated() {
            consumer.add(\.counter) { _, new in heardLast[index].withLock { $0 = new } }
            consumer.add(\.counter) { _, new in
                guard new.isMultiple(of: 5 + index), isDispatching.withLock({ $0 }) else { return }
                let handle = handles[index].withLock { $0 }
                handle?.cancel()
                // Only now is the consumer free to join another store or be fed by hand.
                handles[index].withLock { if $0 === handle { $0 = nil } }
            }
        }
        let finished = finishesWithoutDeadlock(within: scaled(60, sanitized: 300)) {
            let dispatchers = stores.map { store in
                spawn { for _ in 0..<dispatchesPerThread { store.dispatch(CounterAction.increment) } }
            }
            // Subscribes a consumer that left to one of the stores, or feeds it a state by hand.
            let hopper = spawn {
                var random = SplitMix64(seed: 0x40_9900)
                while isDispatching.withLock({ $0 }) {
                    for (index, consumer) in consumers.enumerated()
                    where handles[index].withLock({ $0 == nil }) {
                        switch random.next() % 3 {
                        case 0: consumer.consume(newState: AppState(counter: Int(random.next() % 1_000)))
                        default:
                            let handle = stores[Int(random.next() % 2)].subscribe(consumer)
                            handles[index].withLock { $0 = handle }
                        }
                    }
                }
            }
            let churner = spawn {
                Self.churnMembers(of: consumers, seed: 0x40_9901, into: probes, while: isDispatching) {
                    consumer, probe in
                    // Values jump between stores and hand-fed states: only lateness is checked.
                    consumer.add(\.name) { _, _ in probe.call(old: 0, new: 1) }
                }
            }
            for thread in dispatchers { thread.wait() }
            isDispatching.withLock { $0 = false }
            hopper.wait()
            churner.wait()
        }
        guard finished else { return }
        for probe in probes.withLock({ $0 }) {
            #expect(probe.report.lateCalls == 0, "\(probe.report)")
        }
        // Each consumer, subscribed to the first store at the end, hears its next state.
        for (index, consumer) in consumers.enumerated() {
            handles[index].withLock { $0 }?.cancel()
            let handle = stores[0].subscribe(consumer)
            handles[index].withLock { $0 = handle }
        }
        stores[0].dispatch(CounterAction.set(-1))
        for index in consumers.indices {
            #expect(heardLast[index].withLock { $0 } == -1, "consumer \(index) was not fed")
            handles[index].withLock { $0 }?.cancel()
        }
        #expect(stores.allSatisfy { $0.subscriberCount == 0 })
    }

    /// Adds members to random consumers, each watched by a probe kept in `probes`, and removes them
    /// again (by `remove(_:)` or by their token) while `isRunning` holds, then removes the rest;
    /// `add` makes a member that reports its calls to the probe.
    private static func churnMembers(
        of consumers: [StateConsumer<AppState>],
        seed: UInt64,
        into probes: Lock<[CallProbe]>,
        while isRunning: Lock<Bool>,
        add: (StateConsumer<AppState>, CallProbe) -> ConsumerToken
    ) {
        var random = SplitMix64(seed: seed)
        var live: [(token: ConsumerToken, consumer: StateConsumer<AppState>, probe: CallProbe)] = []
        while isRunning.withLock({ $0 }) {
            if live.count < 3 || random.next() % 2 == 0, live.count < 6 {
                let consumer = consumers[Int(random.next() % UInt64(consumers.count))]
                let probe = CallProbe("member \(live.count) of seed \(seed)", .forward)
                probes.withLock { $0.append(probe) }
                live.append((add(consumer, probe), consumer, probe))
            } else {
                let member = live.remove(at: Int(random.next() % UInt64(live.count)))
                if random.next() % 2 == 0 { member.consumer.remove(member.token) } else { member.token.cancel() }
                member.probe.removed()
            }
        }
        for member in live {
            member.token.cancel()
            member.probe.removed()
        }
    }
}
