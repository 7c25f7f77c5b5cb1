import Dispatch
import Foundation
import ReduxConsumerTestSupport
import Testing

@testable import ReduxConsumer

// Review of 55815c7: actor members take their call on the actor (`DeliveryGate.takeAndBegin`),
// and a second `ConsumerBag.removeAll()` waits for an emptying in progress on another thread.
//
// `GateAndBagReviewTests` holds what passes; `GateAndBagReviewDefectTests` the reproducers of
// defects found (they fail, by design, until the defects are fixed).

@Suite("Gate and bag review")
struct GateAndBagReviewTests {
    // MARK: Actor gate

    /// Guarantee 2: "members of one consumer [are] called in the order they were added for one
    /// state", with the members of one consumer spread over two actors and no actor at all, three
    /// threads dispatching. Every member selects the counter, so every state changes them all:
    /// when a member hears `new == v`, every member added before it has heard `v` or later. And
    /// guarantee 3: each member's calls chain, the values grow, and each hears the last state.
    @Test(arguments: [UInt64(1), 2, 3])
    func membersOnSeveralActorsAreCalledInTheOrderTheyWereAdded(seed: UInt64) async {
        var random = SplitMix64(seed: seed)
        let store = makeStore()
        let consumer = StateConsumer<AppState>()
        let memberCount = 6
        let total = scaled(600, sanitized: 150)
        // heard[i]: the last `new` member i heard; violations of the order, and of the chain.
        let log = Lock((heard: [Int](repeating: 0, count: memberCount), disorders: [String]()))
        let reached = AsyncStream.makeStream(of: Int.self)
        let record: @Sendable (Int, Int, Int) -> Void = { index, old, new in
            log.withLock { log in
                if old != log.heard[index] || new <= old {
                    log.disorders.append("member \(index): \(old)→\(new) after \(log.heard[index])")
                }
                for earlier in 0..<index where log.heard[earlier] < new {
                    log.disorders.append(
                        "member \(index) heard \(new) before member \(earlier) (at \(log.heard[earlier]))")
                }
                log.heard[index] = new
            }
            if new == total { reached.continuation.yield(index) }
        }
        var tokens: [ConsumerToken] = []
        for index in 0..<memberCount {
            switch random.next() % 3 {
            case 0:
                tokens.append(
                    consumer.add(\.counter, on: ReviewActorX.shared) { @ReviewActorX old, new in record(index, old, new)
                    })
            case 1:
                tokens.append(
                    consumer.add({ $0.counter }, on: ReviewActorY.shared) { @ReviewActorY old, new in
                        record(index, old, new)
                    })
            default:
                // Formed in this nonisolated test: isolated to no actor, run on the global executor.
                tokens.append(consumer.add(\.counter, on: ReviewActorX.shared) { old, new in record(index, old, new) })
            }
        }
        let subscription = store.subscribe(consumer)
        let finished = await finishesWithoutDeadlock(within: 60) {
            await onAThreadOfItsOwn {
                let threads = (0..<3).map { part in
                    spawn {
                        for _ in 0..<(total / 3 + (part < total % 3 ? 1 : 0)) {
                            store.dispatch(CounterAction.increment)
                        }
                    }
                }
                for thread in threads { thread.wait() }
            }
            var seen = Set<Int>()
            for await index in reached.stream {
                seen.insert(index)
                if seen.count == memberCount { break }
            }
        }
        guard finished else { return }
        let disorders = log.withLock { $0.disorders }
        #expect(disorders.isEmpty, "\(disorders.prefix(5))")
        subscription.cancel()
        withExtendedLifetime(tokens) {}
    }

    /// Guarantee 1: a member on an actor removed while its call waits for the actor (looked at by
    /// the pump, not taken yet) is never called once the removal returned; guarantee 3: the
    /// members that stay keep their chain and hear the last state. Removals come from a thread of
    /// their own at random moments while another dispatches; some members are on a held actor, so
    /// that their calls wait there.
    @Test(arguments: [UInt64(11), 12, 13, 14])
    func membersRemovedWhileTheirCallWaitsForTheActorAreNeverCalledAfter(seed: UInt64) async {
        var random = SplitMix64(seed: seed)
        let store = makeStore()
        let consumer = StateConsumer<AppState>()
        let total = scaled(400, sanitized: 100)
        let memberCount = 8
        let probes = (0..<memberCount).map { CallProbe("member \($0)", .forward) }
        let reached = AsyncStream.makeStream(of: Int.self)
        var tokens: [ConsumerToken] = []
        for index in 0..<memberCount {
            let probe = probes[index]
            let call: @Sendable (Int, Int) -> Void = { old, new in
                probe.call(old: old, new: new)
                if new == total { reached.continuation.yield(index) }
            }
            switch index % 3 {
            case 0: tokens.append(consumer.add(\.counter, on: ReviewActorX.shared) { @ReviewActorX in call($0, $1) })
            case 1: tokens.append(consumer.add(\.counter, on: ReviewActorY.shared) { @ReviewActorY in call($0, $1) })
            default: tokens.append(consumer.add(\.counter, on: ReviewActorX.shared) { call($0, $1) })
            }
        }
        let allTokens = tokens
        let removed = (0..<memberCount).filter { _ in random.next() % 2 == 0 }
        let removalPoints = removed.map { _ in Int(random.next() % UInt64(total)) }
        let subscription = store.subscribe(consumer)
        let finished = await finishesWithoutDeadlock(within: 60) {
            await onAThreadOfItsOwn {
                let progress = Lock(0)
                let dispatcher = spawn {
                    for _ in 0..<total {
                        // Now and then the actor Y is held while changes pile up behind it.
                        store.dispatch(CounterAction.increment)
                        progress.withLock { $0 += 1 }
                    }
                }
                let remover = spawn {
                    for (member, point) in zip(removed, removalPoints).sorted(by: { $0.1 < $1.1 }) {
                        spin { progress.withLock { $0 } >= point }
                        allTokens[member].cancel()
                        probes[member].removed()
                    }
                }
                dispatcher.wait()
                remover.wait()
            }
            let survivors = Set(0..<memberCount).subtracting(removed)
            var seen = Set<Int>()
            if !survivors.isEmpty {
                for await index in reached.stream {
                    seen.insert(index)
                    if seen.isSuperset(of: survivors) { break }
                }
            }
        }
        guard finished else { return }
        for probe in probes {
            let report = probe.report
            #expect(report.lateCalls == 0, "\(probe.name) was called after its removal returned: \(report)")
            #expect(report.disorders == 0, "\(probe.name)'s chain broke: \(report)")
        }
        subscription.cancel()
    }

    /// An owner-form member on an actor whose owner goes while its calls wait: the pump discards
    /// the call its wrapper did not make (`discardIfNext`) and goes on; the members after it, on
    /// the same actor and on another, still hear every change in order and the last state.
    @Test func aMemberWhoseOwnerWentDoesNotHoldBackTheMembersAfterIt() async {
        final class Owner: Sendable {}
        let store = makeStore()
        let consumer = StateConsumer<AppState>()
        let total = scaled(300, sanitized: 80)
        let owners = Lock<[Owner]>((0..<4).map { _ in Owner() })
        let ownerCalls = Recorder<Int>()
        let after = [CallProbe("after, on X", .forward), CallProbe("after, on Y", .forward)]
        let reached = AsyncStream.makeStream(of: Int.self)
        var tokens: [ConsumerToken] = []
        for owner in owners.withLock({ $0 }) {
            tokens.append(
                consumer.add(\.counter, owner: owner, on: ReviewActorX.shared) { @ReviewActorX _, _, new in
                    ownerCalls.append(new)
                })
        }
        tokens.append(
            consumer.add(\.counter, on: ReviewActorX.shared) { @ReviewActorX old, new in
                after[0].call(old: old, new: new)
                if new == total { reached.continuation.yield(0) }
            })
        tokens.append(
            consumer.add(\.counter, on: ReviewActorY.shared) { @ReviewActorY old, new in
                after[1].call(old: old, new: new)
                if new == total { reached.continuation.yield(1) }
            })
        let subscription = store.subscribe(consumer)
        let finished = await finishesWithoutDeadlock(within: 60) {
            await onAThreadOfItsOwn {
                for step in 0..<total {
                    if step % (total / 5) == 0 { _ = owners.withLock { $0.popLast() } }
                    store.dispatch(CounterAction.increment)
                }
            }
            var seen = Set<Int>()
            for await index in reached.stream {
                seen.insert(index)
                if seen.count == 2 { break }
            }
        }
        guard finished else { return }
        for probe in after {
            #expect(probe.report.disorders == 0, "\(probe.name): \(probe.report)")
            #expect(probe.report.last == total)
        }
        subscription.cancel()
        withExtendedLifetime(tokens) {}
    }

    /// The `.instantly` call of a member on an actor, added while other threads dispatch: its
    /// first call is `v→v` (made although nothing changed, even if changes merged into it), and
    /// the chain goes on from there.
    @Test func anInstantCallOnAnActorStartsTheChainWhileThreadsDispatch() async {
        let store = makeStore()
        let consumer = StateConsumer<AppState>()
        let total = scaled(300, sanitized: 80)
        let calls = Recorder<Change<Int>>()
        let reached = AsyncStream.makeStream(of: Void.self)
        let subscription = store.subscribe(consumer)
        let finished = await finishesWithoutDeadlock(within: 60) {
            let token = await onAThreadOfItsOwn { () -> ConsumerToken in
                let dispatcher = spawn { for _ in 0..<total { store.dispatch(CounterAction.increment) } }
                spin { store.state.counter >= total / 3 }
                let token = consumer.add(\.counter, options: .instantly, on: ReviewActorY.shared) {
                    @ReviewActorY old, new in
                    calls.append(Change(old: old, new: new))
                    if new == total { reached.continuation.yield() }
                }
                dispatcher.wait()
                return token
            }
            var iterator = reached.stream.makeAsyncIterator()
            _ = await iterator.next()
            token.cancel()
        }
        guard finished else { return }
        let values = calls.values
        #expect(values.first.map { $0.old <= $0.new } == true, "\(values.prefix(3))")
        for (earlier, later) in zip(values, values.dropFirst()) {
            #expect(later.old == earlier.new && later.new > later.old, "\(earlier) then \(later)")
        }
        subscription.cancel()
    }

    /// A consumer released while calls of its actor members wait for the actors (`close()`):
    /// nothing is called once the release returned, and no pump is left running (the next run of
    /// the loop would hang otherwise).
    @Test func aConsumerReleasedWhileCallsWaitForTheActorsCallsNothingAfter() async {
        let store = makeStore()
        let rounds = scaled(40, sanitized: 10)
        let lateCalls = Lock(0)
        let finished = await finishesWithoutDeadlock(within: 60) {
            await onAThreadOfItsOwn {
                for _ in 0..<rounds {
                    let released = Flag()
                    var consumer: StateConsumer<AppState>? = StateConsumer<AppState>()
                    let note: @Sendable () -> Void = { if released.isSet { lateCalls.withLock { $0 += 1 } } }
                    consumer!.add(\.counter, on: ReviewActorX.shared) { @ReviewActorX _, _ in note() }
                    consumer!.add(\.counter, on: ReviewActorY.shared) { @ReviewActorY _, _ in note() }
                    consumer!.add(\.counter, on: ReviewActorX.shared) { _, _ in note() }
                    let subscription = store.subscribe(consumer!)
                    let dispatcher = spawn { for _ in 0..<20 { store.dispatch(CounterAction.increment) } }
                    spin { store.state.counter % 20 >= 5 || store.state.counter % 20 == 0 }
                    subscription.cancel()  // withdraws the waiting calls, waits for one in progress
                    released.set()
                    consumer = nil
                    dispatcher.wait()
                }
            }
        }
        guard finished else { return }
        #expect(lateCalls.withLock { $0 } == 0)
    }

    // MARK: Bag

    /// Guarantee 1 for the bag: two threads empty one bag whose tokens' members are on actors and
    /// on a queue while a third dispatches; each emptying returns only once nothing of the bag is
    /// called any more; nothing deadlocks, and no emptying is left waiting.
    @Test func twoEmptyingsOfABagOfActorMembersWhileAThreadDispatches() async {
        let store = makeStore()
        let rounds = scaled(30, sanitized: 8)
        let finished = await finishesWithoutDeadlock(within: 60) {
            let late = await onAThreadOfItsOwn { () -> [CallProbe.Report] in
                var late: [CallProbe.Report] = []
                for _ in 0..<rounds {
                    let bag = ConsumerBag()
                    let consumer = StateConsumer<AppState>()
                    let queued = StateConsumer<AppState>(deliveringOn: DispatchQueue(label: "review.bag"))
                    let probes = (0..<4).map { CallProbe("bag member \($0)", .forward) }
                    consumer.add(\.counter, on: ReviewActorX.shared) { @ReviewActorX in probes[0].call(old: $0, new: $1)
                    }
                    .store(in: bag)
                    consumer.add(\.counter, on: ReviewActorY.shared) { probes[1].call(old: $0, new: $1) }.store(in: bag)
                    queued.add(\.counter) { probes[2].call(old: $0, new: $1) }.store(in: bag)
                    consumer.add(\.counter) { probes[3].call(old: $0, new: $1) }.store(in: bag)
                    store.subscribe(consumer).store(in: bag)
                    store.subscribe(queued).store(in: bag)
                    let dispatcher = spawn { for _ in 0..<30 { store.dispatch(CounterAction.increment) } }
                    let emptiers = (0..<2).map { _ in
                        spawn {
                            bag.removeAll()
                            for probe in probes { probe.removed() }
                        }
                    }
                    for thread in emptiers + [dispatcher] { thread.wait() }
                    #expect(bag.waitingEmptyings == 0)
                    late += probes.map(\.report).filter { $0.lateCalls > 0 }
                }
                return late
            }
            #expect(late.isEmpty, "\(late)")
        }
        _ = finished
    }

    /// A bag emptied from inside a callback of one of its own members (on a queue) while another
    /// thread empties it and waits for that callback: the parked callback lets the other emptying
    /// give way, and both return.
    @Test func aBagEmptiedFromInsideItsOwnMembersCallbackWhileAnotherThreadEmptiesIt() async {
        let store = makeStore()
        let bag = ConsumerBag()
        let consumer = StateConsumer<AppState>(deliveringOn: DispatchQueue(label: "review.inside"))
        let entered = DispatchSemaphore(value: 0)
        let go = DispatchSemaphore(value: 0)
        consumer.add(\.counter) { _, _ in
            entered.signal()
            go.wait()
            bag.removeAll()
        }
        .store(in: bag)
        store.subscribe(consumer).store(in: bag)
        await finishesWithoutDeadlock(within: 10) {
            await onAThreadOfItsOwn {
                store.dispatch(CounterAction.increment)
                entered.wait()
                let emptier = spawn { bag.removeAll() }
                spin { bag.isEmpty }
                go.signal()
                emptier.wait()
            }
        }
    }

    /// A `removeAll()` nested inside a cancellation on the emptying thread (a `Cancellable` that
    /// empties its own bag) while a later emptying on another thread waits for the outer one: the
    /// later one took nothing, so it is no longer registered while it waits, and the nested call
    /// does not wait for it; both return.
    @Test func aNestedRemoveAllDoesNotWaitForALaterEmptyingThatWaitsForItsThread() async {
        let bag = ConsumerBag()
        let started = DispatchSemaphore(value: 0)
        let proceed = DispatchSemaphore(value: 0)
        bag.insert(
            ReviewCancellable {
                started.signal()
                proceed.wait()
            })
        bag.insert(ReviewCancellable { bag.removeAll() })
        await finishesWithoutDeadlock(within: 10) {
            await onAThreadOfItsOwn {
                let first = spawn { bag.removeAll() }
                started.wait()
                let second = spawn { bag.removeAll() }
                spin { bag.waitingEmptyings == 1 }  // the second waits for the first
                proceed.signal()
                first.wait()
                second.wait()
            }
        }
    }

    /// Items inserted into a bag while it is being emptied, from inside a cancellation on the
    /// emptying thread: they stay for the next emptying (the emptying takes what the bag held when
    /// it began); a second emptying then cancels them, and no semaphore is left waiting.
    @Test func anItemInsertedDuringAnEmptyingStaysForTheNextOne() {
        let bag = ConsumerBag()
        let cancelled = Lock(0)
        bag.insert(
            ReviewCancellable {
                bag.insert(ReviewCancellable { cancelled.withLock { $0 += 1 } })
            })
        bag.removeAll()
        #expect(bag.count == 1)
        bag.removeAll()
        #expect(bag.isEmpty && cancelled.withLock { $0 } == 1 && bag.waitingEmptyings == 0)
    }

    /// Two bags, each holding an item whose cancellation empties the other (a parent's and a
    /// child's teardown), emptied on two threads at once: a nested emptying does not wait for the
    /// other thread's emptying, which may be waiting for it. (It did for a while, and both
    /// deadlocked.)
    @Test func twoBagsThatEmptyEachOtherFromTheirCancellationsOnTwoThreads() async {
        let first = ConsumerBag()
        let second = ConsumerBag()
        let inFirst = DispatchSemaphore(value: 0)
        let inSecond = DispatchSemaphore(value: 0)
        let go = DispatchSemaphore(value: 0)
        first.insert(
            ReviewCancellable {
                inFirst.signal()
                go.wait()
            })
        first.insert(ReviewCancellable { second.removeAll() })
        second.insert(
            ReviewCancellable {
                inSecond.signal()
                go.wait()
            })
        second.insert(ReviewCancellable { first.removeAll() })
        await finishesWithoutDeadlock(within: 30) {
            await onAThreadOfItsOwn {
                let a = spawn { first.removeAll() }
                let b = spawn { second.removeAll() }
                inFirst.wait()
                inSecond.wait()
                go.signal()
                go.signal()
                a.wait()
                b.wait()
            }
        }
    }

    /// The same with the library's own items and user deinit code only: a session bag and a
    /// request bag, each holding a closure subscription whose closure is the last owner
    /// of an object that empties the other bag in its deinit (a request that tears its session
    /// down, a session that tears its request down). Each bag also holds a subscription whose call
    /// is in progress, so both emptyings are still cancelling when the other reaches its nested
    /// `removeAll()`: neither waits for the other.
    @Test func twoBagsEmptiedAtOnceWhoseSubscriptionsReleaseObjectsThatEmptyTheOtherBag() async {
        let busy = [makeStore(), makeStore()]
        let idle = [makeStore(), makeStore()]
        let bags = [ConsumerBag(), ConsumerBag()]
        let entered = DispatchSemaphore(value: 0)
        let go = DispatchSemaphore(value: 0)
        for side in 0..<2 {
            busy[side].subscribe { _, _ in
                entered.signal()
                go.wait()
            }
            .store(in: bags[side])
            let other = bags[1 - side]
            idle[side].subscribe(subscriberOwning(RunsOnDeinit { other.removeAll() })).store(in: bags[side])
        }
        await finishesWithoutDeadlock(within: 30) {
            await onAThreadOfItsOwn {
                let dispatchers = busy.map { store in spawn { store.dispatch(CounterAction.increment) } }
                entered.wait()
                entered.wait()
                let emptiers = bags.map { bag in spawn { bag.removeAll() } }  // each waits for a busy call
                spin { bags.allSatisfy(\.isEmpty) }  // both took their items
                go.signal()
                go.signal()
                for thread in emptiers + dispatchers { thread.wait() }
            }
        }
        // Until here: an optimized build releases a store after its last use, and the idle stores'
        // release would release the objects their subscribers own, emptying the bags early.
        withExtendedLifetime((busy, idle, bags)) {}
    }

    /// Guarantees.md G3: for actors, a batch is taken once the pump is on the actor of its first
    /// call; "the later calls of a batch are made with what they had when it was taken". A member
    /// on a busy actor whose call is second in its batch gets at most one call from that batch
    /// beside the merged one, and the chain holds (`0→50`, or `0→k` then `k→50`).
    @Test func aMemberSecondInItsBatchOnABusyActorGetsAtMostOneCallBesideTheMergedOne() async {
        let store = makeStore()
        let consumer = StateConsumer<AppState>()
        let calls = Recorder<Change<Int>>()
        let total = 50
        let last = AsyncStream.makeStream(of: Void.self)
        consumer.add(\.counter, on: ReviewActorX.shared) { @ReviewActorX _, _ in }
        consumer.add({ $0.counter }, on: ReviewHeldActor.shared) { @ReviewHeldActor old, new in
            calls.append(Change(old: old, new: new))
            if new == total { last.continuation.yield() }
        }
        let subscription = store.subscribe(consumer)
        let finished = await finishesWithoutDeadlock(within: 30) {
            let arrived = await onAThreadOfItsOwn {
                let holding = DispatchSemaphore(value: 0)
                let release = DispatchSemaphore(value: 0)
                ReviewHeldActor.queue.async {
                    holding.signal()
                    release.wait()
                }
                holding.wait()  // the actor is busy from here…
                store.dispatch(CounterAction.increment)
                let arrived = waitCountingFairTime(for: ReviewHeldActor.executor.jobArrived, seconds: 30)
                for _ in 1..<total { store.dispatch(CounterAction.increment) }
                release.signal()  // …to here
                return arrived
            }
            #expect(arrived)
            var iterator = last.stream.makeAsyncIterator()
            _ = await iterator.next()
        }
        guard finished else { return }
        let values = calls.values
        #expect((1...2).contains(values.count), "\(values)")
        #expect(values.first?.old == 0 && values.last?.new == total, "\(values)")
        #expect(zip(values, values.dropFirst()).allSatisfy { $0.new == $1.old }, "\(values)")
        subscription.cancel()
    }
}

// MARK: - Fixtures

/// A closure subscriber that is the only owner of `object` (released when its subscription is
/// cancelled).
private func subscriberOwning(_ object: RunsOnDeinit) -> @Sendable (AppState, AppState) -> Void {
    // The closure uses the box for real: an optimized build drops a capture whose only use is
    // `withExtendedLifetime(object) {}`, and the object went at once (the test then hung).
    let box = OwningBox(object)
    return { _, _ in box.calls.withLock { $0 += 1 } }
}

/// Holds an object for a closure that counts its calls.
private final class OwningBox: Sendable {
    let object: RunsOnDeinit
    let calls = Lock(0)

    init(_ object: RunsOnDeinit) {
        self.object = object
    }
}

/// A `Cancellable` that runs a closure.
private struct ReviewCancellable: Cancellable {
    let body: @Sendable () -> Void

    init(_ body: @escaping @Sendable () -> Void) {
        self.body = body
    }

    func cancel() {
        body()
    }
}

private final class Flag: Sendable {
    private let value = Lock(false)
    func set() { value.withLock { $0 = true } }
    var isSet: Bool { value.withLock { $0 } }
}

@globalActor
private actor ReviewActorX {
    static let shared = ReviewActorX()
}

@globalActor
private actor ReviewActorY {
    static let shared = ReviewActorY()
}

/// A global actor whose jobs run on a serial queue a test can hold, signalling each job's arrival.
@globalActor
private actor ReviewHeldActor {
    static let shared = ReviewHeldActor()
    static let queue = DispatchQueue(label: "GateAndBagReviewTests.ReviewHeldActor")
    static let executor = SignallingQueueExecutor(queue: queue)

    nonisolated var unownedExecutor: UnownedSerialExecutor {
        Self.executor.asUnownedSerialExecutor()
    }
}
