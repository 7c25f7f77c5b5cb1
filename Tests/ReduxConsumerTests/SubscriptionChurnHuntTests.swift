import Dispatch
import ReduxConsumer
import ReduxConsumerTestSupport
import Testing

/// One consumer whose subscription is cancelled and renewed from several threads, on one store or
/// hopping between two, while other threads dispatch, churn its members and feed it by hand:
/// removal stays final (guarantee 1), each member hears one chain of values (guarantee 3), and
/// the counts come back to their baseline (guarantee 6).
struct SubscriptionChurnHuntTests {
    struct Call: Equatable, Sendable, CustomStringConvertible {
        let old: Int
        let new: Int
        var description: String { "\(old)→\(new)" }
    }

    /// A member's calls, and whether any started after its removal returned.
    final class MemberLog: Sendable {
        let calls = Recorder<Call>()
        private let state = Lock((isRemoved: false, lateCalls: 0))

        func call(_ old: Int, _ new: Int) {
            state.withLock { if $0.isRemoved { $0.lateCalls += 1 } }
            calls.append(Call(old: old, new: new))
        }

        func removed() {
            state.withLock { $0.isRemoved = true }
        }

        var lateCalls: Int {
            state.withLock { $0.lateCalls }
        }

        /// Where the chain breaks: pairs whose `new` is not the next call's `old`.
        var breaks: [String] {
            let calls = calls.values
            return zip(calls, calls.dropFirst()).filter { $0.new != $1.old }.prefix(5).map { "\($0) then \($1)" }
        }
    }

    enum Delivery: String, Sendable, CaseIterable, CustomTestStringConvertible {
        case inPlace, onQueue
        var testDescription: String { rawValue }
    }

    /// Same store: three threads subscribe and cancel handles of their own (the subscription
    /// ends whenever all let go), one of the consumer's callbacks cancels a handle now and then,
    /// while two threads dispatch and one adds and removes members.
    @Test(arguments: Delivery.allCases)
    func renewedFromThreeThreadsOnOneStore(_ delivery: Delivery) {
        let queue = DispatchQueue(label: "subscription-churn-one-store")
        let store = makeStore()
        let consumer = StateConsumer<AppState>(deliveringOn: delivery == .onQueue ? queue : nil)
        let steady = [MemberLog(), MemberLog()]
        consumer.add(\.counter, options: .instantly) { old, new in steady[0].call(old, new) }
        consumer.add(\.counter) { old, new in steady[1].call(old, new) }
        let cancelledInside = Lock<Subscription?>(nil)
        consumer.add(\.counter) { _, new in
            guard new.isMultiple(of: 13) else { return }
            cancelledInside.withLock { handle in
                defer { handle = nil }
                return handle
            }?.cancel()
        }
        let churned = Lock<[MemberLog]>([])
        let isRunning = Lock(true)
        let dispatches = scaled(6_000, sanitized: 600)
        let finished = finishesWithoutDeadlock(within: scaled(120, sanitized: 600)) {
            let dispatchers = (0..<2).map { _ in
                spawn { for _ in 0..<dispatches { store.dispatch(CounterAction.increment) } }
            }
            let renewers = (0..<3).map { thread in
                spawn {
                    while isRunning.withLock({ $0 }) {
                        let handle = store.subscribe(consumer)
                        if thread == 2 {
                            let previous = cancelledInside.withLock { slot in
                                defer { slot = handle }
                                return slot
                            }
                            previous?.cancel()
                        } else {
                            handle.cancel()
                        }
                    }
                }
            }
            let churner = spawn {
                Self.churnMembers(of: consumer, seed: 0x5C_0001, into: churned, while: isRunning)
            }
            for thread in dispatchers { thread.wait() }
            isRunning.withLock { $0 = false }
            for thread in renewers { thread.wait() }
            churner.wait()
        }
        guard finished else { return }
        cancelledInside.withLock { $0 }?.cancel()
        queue.sync {}
        #expect(store.subscriberCount == 0)
        #expect(consumer.count == 3)
        let subscription = store.subscribe(consumer)
        store.dispatch(CounterAction.increment)
        queue.sync {}
        let final = store.state.counter
        #expect(final == 2 * dispatches + 1)
        for (index, log) in steady.enumerated() {
            let calls = log.calls.values
            #expect(log.breaks.isEmpty, "steady \(index): \(log.breaks)")
            #expect(calls.dropFirst().allSatisfy { $0.old < $0.new }, "steady \(index)")
            #expect(calls.last?.new == final, "steady \(index): \(calls.suffix(3)), counter \(final)")
        }
        for (index, log) in churned.withLock({ $0 }).enumerated() {
            #expect(log.lateCalls == 0, "churned \(index): \(log.calls.values.suffix(3))")
            #expect(log.breaks.isEmpty, "churned \(index): \(log.breaks)")
            #expect(log.calls.values.allSatisfy { $0.old < $0.new }, "churned \(index)")
        }
        subscription.cancel()
        #expect(store.subscriberCount == 0)
    }

    /// Two stores: the consumer hops between them, one thread cancelling and another subscribing
    /// it to either store or feeding it by hand, while both stores are dispatched to and members
    /// come and go; one callback cancels the subscription from inside now and then.
    @Test(arguments: Delivery.allCases)
    func hoppingBetweenTwoStoresAndFedByHand(_ delivery: Delivery) {
        let queue = DispatchQueue(label: "subscription-churn-two-stores")
        let stores = [makeStore(), makeStore(AppState(counter: 1_000_000))]
        let consumer = StateConsumer<AppState>(deliveringOn: delivery == .onQueue ? queue : nil)
        let steady = [MemberLog(), MemberLog()]
        consumer.add(\.counter, options: .instantly) { old, new in steady[0].call(old, new) }
        consumer.add(\.counter) { old, new in steady[1].call(old, new) }
        // The subscription in force, if any: whoever takes it out ends it, and only then may the
        // consumer be subscribed again or fed by hand (one thread at a time holds that right).
        let current = Lock<Subscription?>(nil)
        let isFree = Lock(true)
        let isRunning = Lock(true)
        consumer.add(\.counter) { _, new in
            guard new.isMultiple(of: 11), isRunning.withLock({ $0 }) else { return }
            let handle = current.withLock { slot in
                defer { slot = nil }
                return slot
            }
            guard let handle else { return }
            handle.cancel()
            isFree.withLock { $0 = true }
        }
        let churned = Lock<[MemberLog]>([])
        let dispatches = scaled(4_000, sanitized: 400)
        let finished = finishesWithoutDeadlock(within: scaled(120, sanitized: 600)) {
            let dispatchers = stores.map { store in
                spawn { for _ in 0..<dispatches { store.dispatch(CounterAction.increment) } }
            }
            // Takes the subscription in force and cancels it.
            let canceller = spawn {
                while isRunning.withLock({ $0 }) {
                    let handle = current.withLock { slot in
                        defer { slot = nil }
                        return slot
                    }
                    guard let handle else { continue }
                    handle.cancel()
                    isFree.withLock { $0 = true }
                }
            }
            // Claims the free consumer and subscribes it to a store, or feeds it by hand.
            let subscribers = (0..<2).map { thread in
                spawn {
                    var random = SplitMix64(seed: 0x5C_1000 + UInt64(thread))
                    while isRunning.withLock({ $0 }) {
                        let claimed = isFree.withLock { free in
                            defer { free = false }
                            return free
                        }
                        guard claimed else { continue }
                        if random.next() % 4 == 0 {
                            consumer.consume(newState: AppState(counter: Int(random.next() % 1_000)))
                        }
                        let handle = stores[Int(random.next() % 2)].subscribe(consumer)
                        current.withLock { $0 = handle }
                    }
                }
            }
            let churner = spawn {
                Self.churnMembers(of: consumer, seed: 0x5C_0002, into: churned, while: isRunning)
            }
            for thread in dispatchers { thread.wait() }
            isRunning.withLock { $0 = false }
            canceller.wait()
            for thread in subscribers { thread.wait() }
            churner.wait()
        }
        guard finished else { return }
        current.withLock { $0 }?.cancel()
        queue.sync {}
        #expect(stores.allSatisfy { $0.subscriberCount == 0 })
        #expect(consumer.count == 3)
        let subscription = stores[1].subscribe(consumer)
        stores[1].dispatch(CounterAction.set(-1))
        queue.sync {}
        for (index, log) in steady.enumerated() {
            let calls = log.calls.values
            #expect(log.breaks.isEmpty, "steady \(index): \(log.breaks)")
            #expect(calls.last?.new == -1, "steady \(index): \(calls.suffix(3))")
        }
        for (index, log) in churned.withLock({ $0 }).enumerated() {
            #expect(log.lateCalls == 0, "churned \(index): \(log.calls.values.suffix(3))")
            #expect(log.breaks.isEmpty, "churned \(index): \(log.breaks)")
        }
        subscription.cancel()
        #expect(stores.allSatisfy { $0.subscriberCount == 0 })
    }

    /// Two threads cancel the same subscription at once while a third subscribes the consumer
    /// again: the new subscription is on (its member hears the next state), and counted once.
    @Test(arguments: Delivery.allCases)
    func aDoubleCancelRacingANewSubscriptionLeavesTheNewOneOn(_ delivery: Delivery) {
        let queue = DispatchQueue(label: "subscription-churn-double-cancel")
        let store = makeStore()
        let consumer = StateConsumer<AppState>(deliveringOn: delivery == .onQueue ? queue : nil)
        let log = MemberLog()
        consumer.add(\.counter) { old, new in log.call(old, new) }
        let rounds = scaled(2_000, sanitized: 200)
        let failures = Lock<[String]>([])
        let finished = finishesWithoutDeadlock(within: scaled(120, sanitized: 600)) {
            var handle = store.subscribe(consumer)
            for round in 0..<rounds {
                let old = handle
                let next = Lock<Subscription?>(nil)
                let threads = (0..<3).map { thread in
                    spawn {
                        if thread == 2 {
                            next.withLock { $0 = store.subscribe(consumer) }
                        } else {
                            old.cancel()
                        }
                    }
                }
                for thread in threads { thread.wait() }
                guard let renewed = next.withLock({ $0 }) else { continue }
                handle = renewed
                let before = log.calls.count
                store.dispatch(CounterAction.set(-round - 1))
                queue.sync {}
                if store.subscriberCount != 1 {
                    failures.withLock { $0.append("round \(round): \(store.subscriberCount) subscribers") }
                }
                if log.calls.last?.new != -round - 1 || log.calls.count == before {
                    failures.withLock {
                        $0.append("round \(round): last call \(String(describing: log.calls.last))")
                    }
                }
            }
            handle.cancel()
        }
        guard finished else { return }
        queue.sync {}
        #expect(failures.withLock { $0 }.prefix(5).isEmpty, "\(failures.withLock { $0.prefix(5) })")
        #expect(log.breaks.isEmpty, "\(log.breaks)")
        #expect(store.subscriberCount == 0)
        #expect(consumer.count == 1)
    }

    /// A subscription cancelled while its store is busy on another thread (its removal queued
    /// there), with the consumer subscribed to another store by a third thread right after: the
    /// call the first store posted to the consumer's queue is dropped all the same before
    /// `cancel()` returns (guarantee 1), whichever store the consumer joins next.
    @Test func aCallPendingOnTheQueueIsDroppedWhenTheConsumerJoinsAnotherStoreAtOnce() {
        let rounds = scaled(300, sanitized: 60)
        var lateRounds: [Int] = []
        var raced = 0
        for round in 0..<rounds {
            let queue = DispatchQueue(label: "subscription-churn-join-elsewhere")
            let first = makeStore()
            let second = makeStore(AppState(counter: 1_000_000))
            let consumer = StateConsumer<AppState>(deliveringOn: queue)
            let heard = Recorder<Call>()
            consumer.add(\.counter) { old, new in heard.append(Call(old: old, new: new)) }
            let subscription = first.subscribe(consumer)
            let entered = DispatchSemaphore(value: 0)
            let release = DispatchSemaphore(value: 0)
            let blocker = first.subscribe { _, new in
                guard new.counter == 1 else { return }
                entered.signal()
                release.wait()
            }
            let elsewhere = Slot<Subscription?>(nil)
            let joinedBeforeCancelReturned = Slot(false)
            let finished = finishesWithoutDeadlock(within: 30) {
                queue.suspend()
                // The consumer's call for counter 1 is posted to its (suspended) queue; the closure
                // subscriber after it holds the first store's drain.
                let busy = spawn { first.dispatch(CounterAction.increment) }
                entered.wait()
                let cancelReturned = Slot(false)
                let joiner = spawn {
                    // Once the subscription has ended (its count dropped), the consumer is free.
                    spin { first.subscriberCount == 1 }
                    joinedBeforeCancelReturned.value = !cancelReturned.value
                    elsewhere.value = second.subscribe(consumer)
                }
                subscription.cancel()
                cancelReturned.value = true
                joiner.wait()
                queue.resume()
                queue.sync {}
                release.signal()
                busy.wait()
            }
            guard finished else { return }
            if joinedBeforeCancelReturned.value { raced += 1 }
            if heard.values.contains(where: { $0.new < 1_000_000 }) { lateRounds.append(round) }
            second.dispatch(CounterAction.increment)
            queue.sync {}
            #expect(heard.values.last?.new == 1_000_001, "round \(round): \(heard.values)")
            elsewhere.value?.cancel()
            blocker.cancel()
            #expect(first.subscriberCount == 0 && second.subscriberCount == 0)
        }
        #expect(
            lateRounds.isEmpty,
            "the first store's call was made after cancel() returned in rounds \(lateRounds.prefix(10)) (\(lateRounds.count) of \(rounds), \(raced) raced)"
        )
    }

    /// A subscription cancelled while its store's thread is inside one of the consumer's callbacks
    /// (the removal waits for it) and the consumer subscribed to another store meanwhile: the call
    /// the first store posted to a member's actor, not begun when `cancel()` returns, never begins
    /// (guarantee 1).
    @Test func aCallPendingOnAnActorIsDroppedWhenTheConsumerJoinedAnotherStoreDuringTheCancel() async {
        let first = makeStore()
        let second = makeStore(AppState(counter: 1_000_000))
        let consumer = StateConsumer<AppState>()
        let heard = Recorder<Call>()
        let reached = Signal()
        consumer.add(\.counter, on: SuspendableActor.shared) { @SuspendableActor old, new in
            heard.append(Call(old: old, new: new))
            if new == 1_000_001 { reached.fire() }
        }
        let inCallback = DispatchSemaphore(value: 0)
        let leaveCallback = DispatchSemaphore(value: 0)
        consumer.add(\.counter) { _, new in
            guard new == 1 else { return }
            inCallback.signal()
            leaveCallback.wait()
        }
        let subscription = first.subscribe(consumer)
        // Holds the first store's drain after the consumer's calls, so that its queued removal
        // waits.
        let inBlocker = DispatchSemaphore(value: 0)
        let leaveBlocker = DispatchSemaphore(value: 0)
        let blocker = first.subscribe { _, new in
            guard new.counter == 1 else { return }
            inBlocker.signal()
            leaveBlocker.wait()
        }
        let elsewhere = Slot<Subscription?>(nil)
        let heardAfterCancel = Slot<[Call]>([])
        let finished = await finishesWithoutDeadlock(within: 60) {
            let choreography = Signal()
            // On a thread of its own: it blocks, and the actor's calls need the task pool.
            _ = spawn {
                let jobs = SuspendableActor.executor.jobCount
                SuspendableActor.queue.suspend()
                // Posts the actor member's call for counter 1, then waits in the second member's
                // callback; the call is taken and waits on the actor's suspended queue.
                let busy = spawn { first.dispatch(CounterAction.increment) }
                inCallback.wait()
                spin { SuspendableActor.executor.jobCount > jobs }
                let canceller = spawn { subscription.cancel() }
                // The subscription has ended (its count dropped): the consumer may join another
                // store, while `cancel()` waits for the callback in progress.
                spin { first.subscriberCount == 1 }
                elsewhere.value = second.subscribe(consumer)
                leaveCallback.signal()
                inBlocker.wait()
                canceller.wait()
                // `cancel()` returned; the first store's removal is still queued behind the blocker.
                SuspendableActor.queue.resume()
                SuspendableActor.queue.sync {}
                heardAfterCancel.value = heard.values
                leaveBlocker.signal()
                busy.wait()
                second.dispatch(CounterAction.increment)
                choreography.fire()
            }
            await choreography.wait()
            await reached.wait()
        }
        guard finished else { return }
        #expect(heardAfterCancel.value.isEmpty, "called after cancel() returned: \(heardAfterCancel.value)")
        let calls = heard.values
        #expect(zip(calls, calls.dropFirst()).allSatisfy { $0.new == $1.old }, "\(calls)")
        elsewhere.value?.cancel()
        blocker.cancel()
        #expect(first.subscriberCount == 0 && second.subscriberCount == 0)
        #expect(consumer.count == 2)
    }

    /// Adds members to `consumer`, each with a log kept in `logs`, and removes them again (by
    /// `remove(_:)` or by their token) while `isRunning` holds, then removes the rest.
    static func churnMembers(
        of consumer: StateConsumer<AppState>, seed: UInt64, into logs: Lock<[MemberLog]>, while isRunning: Lock<Bool>
    ) {
        var random = SplitMix64(seed: seed)
        var live: [(token: ConsumerToken, log: MemberLog)] = []
        while isRunning.withLock({ $0 }) {
            if live.count < 2 || random.next() % 2 == 0, live.count < 5 {
                let log = MemberLog()
                logs.withLock { $0.append(log) }
                live.append((consumer.add(\.counter) { old, new in log.call(old, new) }, log))
            } else {
                let member = live.remove(at: Int(random.next() % UInt64(live.count)))
                if random.next() % 2 == 0 { consumer.remove(member.token) } else { member.token.cancel() }
                member.log.removed()
            }
        }
        for member in live {
            member.token.cancel()
            member.log.removed()
        }
    }
}

/// A global actor whose jobs run on a queue the tests can suspend, to keep a call posted to it
/// pending.
@globalActor
actor SuspendableActor {
    static let shared = SuspendableActor()
    static let queue = DispatchQueue(label: "SuspendableActor")
    static let executor = QueueExecutor(queue: queue)

    nonisolated var unownedExecutor: UnownedSerialExecutor {
        Self.executor.asUnownedSerialExecutor()
    }
}

/// Runs an actor's jobs on `queue`, counting them.
final class QueueExecutor: SerialExecutor {
    private let queue: DispatchQueue
    private let jobs = Lock(0)

    init(queue: DispatchQueue) {
        self.queue = queue
    }

    /// How many jobs were enqueued so far.
    var jobCount: Int {
        jobs.withLock { $0 }
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        jobs.withLock { $0 += 1 }
        queue.async { [self] in job.runSynchronously(on: asUnownedSerialExecutor()) }
    }
}
