import Dispatch
import ReduxConsumer
import ReduxConsumerTestSupport
import Testing

@globalActor
actor TestActor {
    static let shared = TestActor()
}

/// What an isolated callback saw, kept on the test actor.
@TestActor
final class ActorLog {
    var changes: [(old: Int, new: Int)] = []
}

struct IsolatedConsumerTests {
    @Test func callbacksRunOnTheirActorInOrderWithOldEqualToThePreviousNew() async {
        let store = makeStore()
        let consumer = StateConsumer<AppState>()
        let log = ActorLog()
        let done = AsyncStream.makeStream(of: Void.self)
        let total = 10_000
        consumer.add(\.counter, on: TestActor.shared) { @TestActor old, new in
            TestActor.shared.assertIsolated()
            log.changes.append((old, new))
            if new == total { done.continuation.yield() }
        }
        let subscription = store.subscribe(consumer)
        // The last change reaches the actor only once every dispatch was made: awaiting it (not
        // joining the threads) keeps the pool free.
        let finished = await finishesWithoutDeadlock {
            for _ in 0..<4 {
                _ = spawn { for _ in 0..<(total / 4) { store.dispatch(CounterAction.increment) } }
            }
            var iterator = done.stream.makeAsyncIterator()
            _ = await iterator.next()
        }
        guard finished else { return }
        let changes = await log.changes
        #expect(changes.first?.old == 0)
        #expect(changes.last?.new == total)
        #expect(zip(changes, changes.dropFirst()).allSatisfy { $0.new == $1.old })
        #expect(changes.allSatisfy { $0.old < $0.new })
        subscription.cancel()
    }

    @Test func aRemovedIsolatedMemberIsNeverCalledAgain() async {
        let store = makeStore()
        let consumer = StateConsumer<AppState>()
        let calls = Recorder<Int>()
        let token = consumer.add(\.counter, on: TestActor.shared) { @TestActor _, new in calls.append(new) }
        let subscription = store.subscribe(consumer)
        // Changes posted to the actor and not begun there yet are dropped by the removal.
        await TestActor.shared.run {
            store.dispatch(CounterAction.increment)
            consumer.remove(token)
        }
        store.dispatch(CounterAction.increment)
        await TestActor.shared.run {}
        #expect(calls.values.isEmpty)
        #expect(consumer.count == 0)
        subscription.cancel()
    }

    @Test func theOwnerFormHoldsItsOwnerWeakly() async {
        @TestActor final class Screen {
            var text = ""
        }
        let store = makeStore()
        let consumer = StateConsumer<AppState>()
        var screen: Screen? = Screen()
        weak let weakScreen = screen
        let called = AsyncStream.makeStream(of: Void.self)
        consumer.add(\.counter, owner: screen!, on: TestActor.shared) { @TestActor screen, _, new in
            screen.text = "\(new)"
            called.continuation.yield()
        }
        let subscription = store.subscribe(consumer)
        store.dispatch(CounterAction.increment)
        var iterator = called.stream.makeAsyncIterator()
        _ = await iterator.next()
        #expect(await screen?.text == "1")
        screen = nil
        #expect(weakScreen == nil)
        #expect(consumer.count == 0)
        subscription.cancel()
    }

    /// The same form for a derived value (the README: `owner:` and delivery on an actor work as
    /// with key paths).
    @Test func theOwnerFormOfADerivedValueHoldsItsOwnerWeakly() async {
        @TestActor final class Screen {
            var text = ""
        }
        let doubled = Derived(\AppState.counter) { $0 * 2 }
        let store = makeStore()
        let consumer = StateConsumer<AppState>()
        var screen: Screen? = Screen()
        weak let weakScreen = screen
        let called = AsyncStream.makeStream(of: Void.self)
        consumer.add(doubled, owner: screen!, on: TestActor.shared) { @TestActor screen, old, new in
            screen.text = "\(old)→\(new)"
            called.continuation.yield()
        }
        let subscription = store.subscribe(consumer)
        store.dispatch(CounterAction.increment)
        var iterator = called.stream.makeAsyncIterator()
        _ = await iterator.next()
        #expect(await screen?.text == "0→2")
        screen = nil
        #expect(weakScreen == nil)
        #expect(consumer.count == 0)
        subscription.cancel()
    }

    /// A closure isolated to no actor, given with `on:`, is allowed: a removal made on that actor
    /// while the closure runs returns once it ends, and the call ends without the actor (it ended
    /// there once it came back, and the removal holding the actor waited for that: a deadlock).
    @Test(arguments: [false, true])
    func aNonisolatedCallbackRemovedFromItsActorWhileItRunsLetsTheRemovalReturn(ownerForm: Bool) async {
        // Its jobs run on a queue: a plain thread holds it, and the test needs no pool thread
        // but the one its callback runs on.
        actor Holder {
            let executor: QueueExecutor
            init(queue: DispatchQueue) { executor = QueueExecutor(queue: queue) }
            nonisolated var unownedExecutor: UnownedSerialExecutor { executor.asUnownedSerialExecutor() }
        }
        final class Owner: Sendable {}
        let queue = DispatchQueue(label: "IsolatedConsumerTests.holder")
        let holder = Holder(queue: queue)
        let owner = Owner()
        let store = makeStore()
        let consumer = StateConsumer<AppState>()
        let entered = DispatchSemaphore(value: 0)
        let proceed = DispatchSemaphore(value: 0)
        let calls = Recorder<Int>()
        // Nonisolated: formed in this nonisolated test, the closures are isolated to no actor.
        let callback: @Sendable (Int) -> Void = { new in
            calls.append(new)
            entered.signal()
            // Bounded: were the removal to deadlock, this thread would come back to the pool.
            _ = proceed.wait(timeout: .now() + 30)
        }
        let token =
            ownerForm
            ? consumer.add(\.counter, owner: owner, on: holder) { _, _, new in callback(new) }
            : consumer.add(\.counter, on: holder) { _, new in callback(new) }
        let subscription = store.subscribe(consumer)
        let finished = await finishesWithoutDeadlock(within: 30) {
            await onAThreadOfItsOwn {
                store.dispatch(CounterAction.increment)
                entered.wait()
                // On the actor (its queue) while the call runs.
                queue.sync {
                    proceed.signal()
                    consumer.remove(token)
                }
            }
        }
        guard finished else { return }
        store.dispatch(CounterAction.increment)
        #expect(calls.values == [1])
        #expect(consumer.count == 0)
        subscription.cancel()
        withExtendedLifetime((owner, holder)) {}
    }
}

extension TestActor {
    /// Runs `body` on the actor, after everything enqueued on it before.
    func run(_ body: @Sendable () -> Void) {
        body()
    }
}
