import Dispatch
import Foundation
import ReduxConsumer
import ReduxConsumerTestSupport
import Testing

/// Guarantee 1 for a consumer fed by hand, or whose store is gone, removed by its token while one
/// of its callbacks runs on another thread: the removal returns once that call has returned, also
/// when the consumer itself was released first (the token outlives it; the call does too, on its
/// queue or actor).
struct ReleasedConsumerTokenTests {
    /// How the consumer's call was started.
    enum Feed: CaseIterable, Sendable {
        /// By ``StateConsumer/consume(newState:)``.
        case byHand
        /// By a store whose last reference the call itself lets go (with the consumer's).
        case byAStoreGoneDuringTheCall
    }

    /// An in-place member of a consumer fed by hand on another thread: the feeding thread runs the
    /// call, and the token's removal waits for it.
    @Test func aHandFedConsumersTokenWaitsForTheCallRunningOnTheFeedingThread() {
        let consumer = StateConsumer<AppState>()
        let held = HeldCall()
        let token = consumer.add(\.counter) { _ in held.call() }
        // The first state starts the member; the next one calls it.
        consumer.consume(newState: AppState())
        let finished = finishesWithoutDeadlock {
            let feeder = spawn { consumer.consume(newState: AppState(counter: 1)) }
            held.entered.wait()
            held.remove { token.cancel() }
            feeder.wait()
        }
        guard finished else { return }
        consumer.consume(newState: AppState(counter: 2))
        #expect(held.report == HeldCall.Report(calls: 1, runningAtReturn: false, lateCalls: 0))
        #expect(consumer.count == 0)
    }

    /// A consumer with a queue, released while its callback runs there: `cancel()` on its token
    /// (what a `ConsumerBag` emptied or released does) waits for that call. Before the fix it
    /// returned at once, the call still running, because the token found no consumer to ask.
    @Test(arguments: Feed.allCases)
    func aReleasedQueuedConsumersTokenWaitsForTheCallRunningOnItsQueue(feed: Feed) {
        let queue = DispatchQueue(label: "Hunt42Tests.released")
        let watch = LeakWatch()
        let held = HeldCall()
        let consumer = Slot<StateConsumer<AppState>?>(watch.track(StateConsumer<AppState>(deliveringOn: queue)))
        let store = Slot<Store<AppState>?>(feed == .byHand ? nil : makeStore())
        let bag = ConsumerBag()
        let dispatched = DispatchSemaphore(value: 0)
        consumer.value?.add(\.counter) { _ in
            if feed == .byAStoreGoneDuringTheCall {
                // The last references to the store and to the consumer go, on the queue, in the call
                // (once the dispatching thread let go of its own).
                dispatched.wait()
                store.value = nil
                consumer.value = nil
            }
            held.call()
        }.store(in: bag)
        if let subscribed = store.value, let consumer = consumer.value {
            subscribed.subscribe(consumer)
        } else {
            consumer.value?.consume(newState: AppState())
        }
        let survivors = Slot<[String]>([])
        let finished = finishesWithoutDeadlock {
            switch feed {
            case .byHand: consumer.value?.consume(newState: AppState(counter: 1))
            case .byAStoreGoneDuringTheCall:
                store.value?.dispatch(CounterAction.increment)
                dispatched.signal()
            }
            held.entered.wait()
            consumer.value = nil
            survivors.value = watch.survivors
            held.remove { bag.removeAll() }
            queue.sync {}
        }
        guard finished else { return }
        #expect(survivors.value.isEmpty, "the consumer must be gone before its token is cancelled")
        #expect(held.report == HeldCall.Report(calls: 1, runningAtReturn: false, lateCalls: 0))
    }

    /// The same for a member on an actor (one whose jobs run on a queue, so no thread of the
    /// cooperative pool is held while the call runs), released with its hand-fed consumer.
    @available(macOS 15.0, iOS 18.0, tvOS 18.0, watchOS 11.0, visionOS 2.0, *)
    @Test func aReleasedConsumersTokenWaitsForItsMemberRunningOnItsActor() async {
        let watch = LeakWatch()
        let held = HeldCall()
        let consumer = Slot<StateConsumer<AppState>?>(watch.track(StateConsumer<AppState>()))
        let token = consumer.value!.add(\.counter, on: QueueActor.shared) { @QueueActor _, _ in held.call() }
        consumer.value?.consume(newState: AppState())
        let survivors = Slot<[String]>([])
        let finished = await finishesWithoutDeadlock(within: 30) {
            await onAThreadOfItsOwn {
                consumer.value?.consume(newState: AppState(counter: 1))
                held.entered.wait()
                consumer.value = nil
                survivors.value = watch.survivors
                held.remove { token.cancel() }
            }
        }
        guard finished else { return }
        #expect(survivors.value.isEmpty, "the consumer must be gone before its token is cancelled")
        #expect(held.report == HeldCall.Report(calls: 1, runningAtReturn: false, lateCalls: 0))
    }
}

/// What a member added with `add(_:on:)` captured is released where the last reference to its
/// closure goes: by a removal, on the remover's thread, or by the task that delivers the actor's
/// calls, not on the actor. That is sound: the closure is `@Sendable` (the compiler checks its
/// captures at the call, and a closure isolated to a global actor may capture only what it may
/// send or what belongs to that actor's region), and Swift lets a `Sendable` value's last
/// reference go on any thread; a class that must be torn down on its actor says so with an
/// `isolated deinit`, which the runtime honours wherever the release happens. These tests pin what
/// the library does: a removal made off the actor frees the member itself, without waiting for or
/// hopping to the actor, and a call pending on a busy actor is dropped, never made, and freed.
struct IsolatedMemberReleaseTests {
    @available(macOS 15.0, iOS 18.0, tvOS 18.0, watchOS 11.0, visionOS 2.0, *)
    @Test func aMemberOnAnActorRemovedOffItsActorIsFreedByTheRemovalOnTheRemoversThread() async {
        let consumer = StateConsumer<AppState>()
        let freedOn = Slot<ObjectIdentifier?>(nil)
        let token = Self.add(to: consumer, ReleaseWitness { freedOn.value = ObjectIdentifier(Thread.current) })
        consumer.consume(newState: AppState())
        let seen = Slot<(remover: ObjectIdentifier?, freedBeforeReturn: ObjectIdentifier?)>((nil, nil))
        let finished = await finishesWithoutDeadlock(within: 30) {
            await onAThreadOfItsOwn {
                token.cancel()
                seen.value = (ObjectIdentifier(Thread.current), freedOn.value)
            }
        }
        guard finished else { return }
        #expect(seen.value.freedBeforeReturn != nil, "the removal did not free the member")
        #expect(seen.value.freedBeforeReturn == seen.value.remover)
    }

    @available(macOS 15.0, iOS 18.0, tvOS 18.0, watchOS 11.0, visionOS 2.0, *)
    @Test func aCallPendingOnABusyActorWhenItsMemberIsRemovedIsDroppedAndFreed() async {
        let consumer = StateConsumer<AppState>()
        let freed = DispatchSemaphore(value: 0)
        let calls = Recorder<Int>()
        let token = Self.add(to: consumer, ReleaseWitness { freed.signal() }) { calls.append($0) }
        consumer.consume(newState: AppState())
        let finished = await finishesWithoutDeadlock(within: 30) {
            await onAThreadOfItsOwn {
                let busy = DispatchSemaphore(value: 0)
                let leave = DispatchSemaphore(value: 0)
                QueueActor.queue.async {
                    busy.signal()
                    leave.wait()
                }
                busy.wait()
                // Posted to the actor, which cannot begin it.
                consumer.consume(newState: AppState(counter: 1))
                token.cancel()
                leave.signal()
                freed.wait()
            }
        }
        guard finished else { return }
        consumer.consume(newState: AppState(counter: 2))
        #expect(calls.values.isEmpty)
    }

    /// Adds a member on ``QueueActor`` whose closure alone holds `witness`.
    @available(macOS 15.0, iOS 18.0, tvOS 18.0, watchOS 11.0, visionOS 2.0, *)
    private static func add(
        to consumer: StateConsumer<AppState>,
        _ witness: ReleaseWitness,
        calls: @escaping @Sendable (Int) -> Void = { _ in }
    ) -> ConsumerToken {
        consumer.add(\.counter, on: QueueActor.shared) { @QueueActor _, new in
            witness.touch()
            calls(new)
        }
    }
}

/// Runs `released` when freed.
private final class ReleaseWitness: Sendable {
    private let released: @Sendable () -> Void

    init(_ released: @escaping @Sendable () -> Void) {
        self.released = released
    }

    deinit {
        released()
    }

    func touch() {}
}

/// A store released on one thread (its `deinit` frees its consumers) while another thread adds a
/// member with `.instantly` to a consumer subscribed to it (the add calls the member at once with
/// the store's state, holding the store's drain): no crash or use after free (run it under
/// ThreadSanitizer and AddressSanitizer), no double call, and no call after a removal returned.
///
/// Either the add reaches the store first, and the member is called with the store's state
/// (`old == new`), then with the next state fed by hand; or the store's consumers were freed
/// first, and the member starts with, and is called once at, that state fed by hand. A member
/// added before stays on its chain; the consumer is free to be fed by hand at once; the store is
/// freed. A member whose add was queued (made inside another store's callback while the store was
/// busy) and removed by its token at once is never called after that removal returned.
struct StoreDeinitRacingInstantAddTests {
    /// Where a racing call is made from.
    enum Origin: CaseIterable, Sendable {
        /// A thread of its own, inside no library work: it waits for a busy drain.
        case plainThread
        /// A closure subscriber of another store: it queues its work behind a busy drain.
        case anotherStoresCallback
    }

    struct Outcome: Equatable, CustomStringConvertible {
        var added: [Call] = []
        var steady: [Call] = []
        var lateCalls = 0
        var count = -1
        var survivors: [String] = []

        var description: String {
            "added \(added), steady \(steady), late \(lateCalls), count \(count), survivors \(survivors)"
        }
    }

    struct Call: Equatable, Sendable, CustomStringConvertible {
        let old: Int
        let new: Int
        var description: String { "\(old)→\(new)" }
    }

    @Test(
        arguments: Origin.allCases,
        [(Origin.plainThread, false), (.anotherStoresCallback, false), (.anotherStoresCallback, true)])
    func aStoreReleasedWhileAnInstantAddRunsEndsCleanly(release: Origin, add: (origin: Origin, cancelsAtOnce: Bool))
        async
    {
        let rounds = scaled(200, sanitized: 40)
        let outcomes = Recorder<Outcome>()
        // Suspended, not blocked: its six cases would otherwise hold the cooperative pool's threads
        // for seconds, and a test whose effects need the pool (TestStoreEffectTests) waited for them.
        let finished = await finishesWithoutDeadlock(within: scaled(30, sanitized: 120)) {
            await onAThreadOfItsOwn {
                for round in 0..<rounds {
                    outcomes.append(
                        Self.race(
                            base: 100 * round, release: release, add: add.origin, cancelsAtOnce: add.cancelsAtOnce))
                }
            }
        }
        guard finished else { return }
        let unexpected = outcomes.values.enumerated().filter {
            !Self.isExpected($0.element, base: 100 * $0.offset, cancelledAtOnce: add.cancelsAtOnce)
        }
        #expect(unexpected.isEmpty, "\(unexpected.prefix(5).map { "round \($0.offset): \($0.element)" })")
    }

    /// Races one store's release against an `.instantly` add to its consumer (removed at once by
    /// its token when `cancelsAtOnce`), then feeds the consumer by hand (`base + 10`), removes the
    /// added member and feeds it again (`base + 20`).
    private static func race(base: Int, release: Origin, add: Origin, cancelsAtOnce: Bool) -> Outcome {
        let watch = LeakWatch()
        let consumer = StateConsumer<AppState>()
        let added = Recorder<Call>()
        let steady = Recorder<Call>()
        let removal = Lock((isRemoved: false, lateCalls: 0))
        consumer.add(\.counter) { old, new in steady.append(Call(old: old, new: new)) }
        let store = Slot<Store<AppState>?>(watch.track(makeStore(AppState(counter: base))))
        store.value?.subscribe(consumer)
        let token = Slot<ConsumerToken?>(nil)
        let ready = Lock(0)
        let start: @Sendable () -> Void = {
            ready.withLock { $0 += 1 }
            spin { ready.withLock { $0 == 2 } }
        }
        let isReleasing = Slot(false)
        let releaser = spawn {
            on(release) {
                start()
                isReleasing.value = true
                store.value = nil
            }
        }
        let adder = spawn {
            on(add) {
                start()
                token.value = consumer.add(\.counter, options: .instantly) { old, new in
                    removal.withLock { if $0.isRemoved { $0.lateCalls += 1 } }
                    added.append(Call(old: old, new: new))
                    // Called inside the add, it holds the store's drain: it lets the release begin
                    // and go as far as it can meanwhile.
                    spin { isReleasing.value }
                    var yields = 0
                    spin {
                        yields += 1
                        return yields > 100
                    }
                }
                guard cancelsAtOnce else { return }
                token.value?.cancel()
                removal.withLock { $0.isRemoved = true }
            }
        }
        releaser.wait()
        adder.wait()
        // Free of the store: fed by hand at once (a misuse would stop the program).
        consumer.consume(newState: AppState(counter: base + 10))
        token.value?.cancel()
        removal.withLock { $0.isRemoved = true }
        consumer.consume(newState: AppState(counter: base + 20))
        return Outcome(
            added: added.values,
            steady: steady.values,
            lateCalls: removal.withLock { $0.lateCalls },
            count: consumer.count,
            survivors: watch.survivors
        )
    }

    /// Runs `body` on this thread, inside no library work, or inside a closure subscriber of
    /// another store.
    private static func on(_ origin: Origin, _ body: @escaping @Sendable () -> Void) {
        switch origin {
        case .plainThread:
            body()
        case .anotherStoresCallback:
            let other = makeStore()
            let subscription = other.subscribe { _, _ in body() }
            other.dispatch(CounterAction.increment)
            subscription.cancel()
        }
    }

    private static func isExpected(_ outcome: Outcome, base: Int, cancelledAtOnce: Bool) -> Bool {
        let fed = base + 10
        let calls =
            cancelledAtOnce
            ? [[], [Call(old: base, new: base)]]
            : [[Call(old: base, new: base), Call(old: base, new: fed)], [Call(old: fed, new: fed)]]
        return calls.contains(outcome.added)
            && outcome.steady == [Call(old: base, new: fed), Call(old: fed, new: base + 20)]
            && outcome.lateCalls == 0 && outcome.count == 1 && outcome.survivors.isEmpty
    }
}

/// A global actor whose jobs run on a queue of its own, not on the cooperative pool: its members'
/// calls may block without starving the pool.
@globalActor
actor QueueActor {
    static let shared = QueueActor()
    /// The queue its jobs run on: a test holds the actor by holding it.
    static let queue = DispatchQueue(label: "Hunt42Tests.QueueActor")
    private let executor = QueueExecutor(queue: queue)

    nonisolated var unownedExecutor: UnownedSerialExecutor {
        executor.asUnownedSerialExecutor()
    }
}

/// A callback's first call, held running on its thread while the test removes the callback on
/// another, and what the removal's return found.
///
/// The call ends once the removal has returned (a removal that does not wait for it, the fault
/// looked for) or, when the removal waits as it must, after a window of 100 ms of processor
/// yields, long enough for the removal to have returned if it were not waiting (it returns within
/// microseconds then). The window bounds how long the call stays running, and a correct removal
/// returns after it whatever its length; it is measured on the clock, not in yields: on a loaded
/// machine 20,000 yields took tens of seconds, and the threads those calls held (two feeding the
/// tests of the cooperative pool, the shared `QueueActor`'s queue) starved other suites' watchdogs.
private final class HeldCall: Sendable {
    struct Report: Equatable {
        var calls = 0
        /// Whether the call was still running when the removal returned.
        var runningAtReturn = false
        /// Calls started after the removal returned.
        var lateCalls = 0
    }

    /// Signalled once the first call runs.
    let entered = DispatchSemaphore(value: 0)
    private let state = Lock((report: Report(), isRunning: false, isRemoving: false, hasReturned: false))
    private static let windowNanoseconds: UInt64 = 100_000_000

    /// The callback's body.
    func call() {
        let isFirst = state.withLock { state -> Bool in
            state.report.calls += 1
            if state.hasReturned { state.report.lateCalls += 1 }
            guard state.report.calls == 1 else { return false }
            state.isRunning = true
            return true
        }
        guard isFirst else { return }
        entered.signal()
        spin { state.withLock { $0.isRemoving } }
        let start = DispatchTime.now().uptimeNanoseconds
        spin {
            DispatchTime.now().uptimeNanoseconds - start > Self.windowNanoseconds || state.withLock { $0.hasReturned }
        }
        state.withLock { $0.isRunning = false }
    }

    /// Makes the removal, once the first call runs.
    func remove(_ removal: () -> Void) {
        state.withLock { $0.isRemoving = true }
        removal()
        state.withLock { state in
            state.hasReturned = true
            state.report.runningAtReturn = state.isRunning
        }
    }

    var report: Report {
        state.withLock { $0.report }
    }
}
