import Dispatch
import Foundation
import ReduxConsumer
import ReduxConsumerTestSupport
import Testing

/// Promises of the README and the DocC articles that no other suite proved, or proved only on the
/// happy path. Each test quotes the sentence it proves.
@Suite("Promise audit")
struct PromiseAuditTests {
    // MARK: Members on an actor

    /// SwiftConcurrency.md, "Call consumers on an actor": "An actor that falls behind gets a
    /// member's pending changes merged (the first `old`, the latest `new`): no backlog of stale
    /// updates." (UsingItInAnApp.md says the same of the main actor.)
    @Test func anActorThatFallsBehindGetsAMembersPendingChangesMerged() async {
        let store = makeStore()
        let consumer = StateConsumer<AppState>()
        let calls = Recorder<String>()
        let last = AsyncStream.makeStream(of: Void.self)
        let total = 50
        consumer.add(\.counter, on: AuditActor.shared) { @AuditActor old, new in
            calls.append("\(old)→\(new)")
            if new == total { last.continuation.yield() }
        }
        let subscription = store.subscribe(consumer)
        let finished = await finishesWithoutDeadlock(within: 30) {
            await onAThreadOfItsOwn {
                // The actor is busy (its queue held) while the store makes every change.
                let holding = DispatchSemaphore(value: 0)
                let release = DispatchSemaphore(value: 0)
                AuditActor.queue.async {
                    holding.signal()
                    release.wait()
                }
                holding.wait()
                for _ in 0..<total { store.dispatch(CounterAction.increment) }
                release.signal()
            }
            var iterator = last.stream.makeAsyncIterator()
            _ = await iterator.next()
        }
        guard finished else { return }
        // Guarantee 3's form: at most one call taken before the actor came back, and one merged
        // call waiting beside it; never a backlog, the chain kept, the last value the latest.
        let values = calls.values
        #expect(values.count <= 2, "\(values)")
        #expect(values.first?.hasPrefix("0→") == true)
        #expect(values.last?.hasSuffix("→\(total)") == true)
        subscription.cancel()
    }

    /// SwiftConcurrency.md: "Calls are posted to the actor as the store's thread sees the changes,
    /// and made there in order, each with `old` equal to the previous call's `new`." And
    /// Guarantees.md, G3: "The chain holds across subscriptions too: a consumer unsubscribed and
    /// subscribed again, on any threads, starts from the last value each member heard." A member
    /// on an actor, its consumer leaving and coming back on two threads while a third dispatches.
    @Test func anActorMembersChainHoldsWhileItsConsumerComesAndGoesOnTwoThreads() async {
        let store = makeStore()
        let consumer = StateConsumer<AppState>()
        let calls = Recorder<Change<Int>>()
        let total = scaled(2_000, sanitized: 400)
        let reached = AsyncStream.makeStream(of: Void.self)
        consumer.add(\.counter, on: AuditActor.shared) { @AuditActor old, new in
            calls.append(Change(old: old, new: new))
            if new == total { reached.continuation.yield() }
        }
        store.subscribe(consumer).cancel()  // the member starts from 0
        let subscriptions = Recorder<Subscription>()
        let finished = await finishesWithoutDeadlock(within: 60) {
            await onAThreadOfItsOwn {
                let dispatching = spawn { for _ in 0..<total { store.dispatch(CounterAction.increment) } }
                let churning = (0..<2).map { _ in
                    spawn {
                        for _ in 0..<scaled(200, sanitized: 50) {
                            let subscription = store.subscribe(consumer)
                            subscription.cancel()
                        }
                    }
                }
                dispatching.wait()
                for thread in churning { thread.wait() }
                subscriptions.append(store.subscribe(consumer))
            }
            var iterator = reached.stream.makeAsyncIterator()
            _ = await iterator.next()
        }
        guard finished else {
            Issue.record("last calls: \(calls.values.suffix(4)), state \(store.state.counter)")
            return
        }
        let changes = calls.values
        #expect(changes.first?.old == 0)
        #expect(changes.last?.new == total)
        #expect(zip(changes, changes.dropFirst()).allSatisfy { $0.new == $1.old }, "\(changes.prefix(20))")
        #expect(changes.allSatisfy { $0.old < $0.new })
        for subscription in subscriptions.values { subscription.cancel() }
    }

    /// README, "Consumers": "With `options: .instantly` it also fires once at that first value,
    /// with `old == new` …, once in its life: subscribing the consumer again does not repeat it."
    /// (SwiftConcurrency.md: a member on an actor follows the consumer rules.) The form with `on:`.
    @Test func anInstantlyMemberOnAnActorFiresOnceInItsLife() async {
        let store = makeStore()
        let consumer = StateConsumer<AppState>()
        let calls = Recorder<String>()
        let called = AsyncStream.makeStream(of: Void.self)
        consumer.add(\.counter, options: .instantly, on: AuditActor.shared) { @AuditActor old, new in
            calls.append("\(old)→\(new)")
            called.continuation.yield()
        }
        var iterator = called.stream.makeAsyncIterator()
        let first = store.subscribe(consumer)
        _ = await iterator.next()
        first.cancel()
        let second = store.subscribe(consumer)
        store.dispatch(CounterAction.increment)
        _ = await iterator.next()
        #expect(calls.values == ["0→0", "0→1"])
        second.cancel()
    }

    /// UsingItInAnApp.md: "A closure isolated to no actor is accepted too: it runs off every actor,
    /// on the global concurrent executor, with the same order and removal rules." Checked under
    /// four dispatching threads: each call's `old` is the previous call's `new`, no call runs on
    /// the actor given, and none begins once the removal returned.
    @Test func aClosureIsolatedToNoActorKeepsTheOrderAndRemovalRulesUnderThreads() async {
        let store = makeStore()
        let consumer = StateConsumer<AppState>()
        let total = scaled(4_000, sanitized: 800)
        let calls = Recorder<Change<Int>>()
        let onTheActor = Recorder<Int>()
        let removed = Slot(false)
        let callsAfterRemoval = Recorder<Int>()
        let reached = AsyncStream.makeStream(of: Void.self)
        let callback: @Sendable (Int, Int) -> Void = { old, new in
            if removed.value { callsAfterRemoval.append(new) }
            if AuditActor.isOnItsQueue { onTheActor.append(new) }
            calls.append(Change(old: old, new: new))
            if new == total { reached.continuation.yield() }
        }
        // Formed in this nonisolated test: the closure is isolated to no actor.
        let token = consumer.add(\.counter, on: AuditActor.shared) { old, new in callback(old, new) }
        let subscription = store.subscribe(consumer)
        let finished = await finishesWithoutDeadlock(within: 60) {
            await onAThreadOfItsOwn {
                let threads = (0..<4).map { _ in
                    spawn { for _ in 0..<(total / 4) { store.dispatch(CounterAction.increment) } }
                }
                for thread in threads { thread.wait() }
            }
            var iterator = reached.stream.makeAsyncIterator()
            _ = await iterator.next()
            // Removal while threads dispatch again: nothing begins after it returned.
            await onAThreadOfItsOwn {
                let threads = (0..<2).map { _ in
                    spawn { for _ in 0..<(total / 4) { store.dispatch(CounterAction.increment) } }
                }
                token.cancel()
                removed.value = true
                for thread in threads { thread.wait() }
            }
        }
        guard finished else { return }
        let changes = calls.values
        #expect(changes.first?.old == 0)
        #expect(changes.contains { $0.new == total })
        #expect(zip(changes, changes.dropFirst()).allSatisfy { $0.new == $1.old }, "the chain of old and new")
        #expect(changes.allSatisfy { $0.old < $0.new }, "in the store's order")
        #expect(onTheActor.values.isEmpty, "off every actor")
        #expect(callsAfterRemoval.values.isEmpty)
        #expect(consumer.count == 0)
        subscription.cancel()
    }

    // MARK: No user code under a library lock

    /// Where user code runs while a store processes an action.
    enum UserCode: String, CaseIterable, Sendable {
        case reducer, middleware, closureSelector, isEqual, derivedFunction, memberCallback
        case closureSubscriber, actionListener, effectWhen
    }

    /// Guarantees.md, G4: "Reducers, middleware, selectors, `isEqual` and callbacks run with no
    /// library lock held." And "reads never wait." While user code of one store waits for another
    /// thread, that thread reads the first store's state and uses a second store fully: a consumer
    /// with a key path, a derived value shared with the first store and an `owner:` member, a
    /// closure subscriber, a listener, a page with forwarding and a global consumer, dispatches,
    /// and removal of everything. Were any library lock (of the store, of the shared derived
    /// value, or global) held around that user code, the other thread would never finish.
    @Test(arguments: UserCode.allCases)
    func userCodeOfOneStoreHoldsNoLockThatAnotherThreadNeeds(place: UserCode) {
        let blocked = BlockOnce(place)
        let shared = Derived(\AppState.counter) { counter in
            blocked.here(.derivedFunction)
            return counter * 2
        }
        let middleware: Middleware<AppState> = { _, _ in
            { next in
                { action in
                    blocked.here(.middleware)
                    next(action)
                }
            }
        }
        let reducer = Reducer<AppState> { (state, action: CounterAction) in
            blocked.here(.reducer)
            appReducer(&state, action)
        }
        let effect = Effect<AppState>.on(
            CounterAction.self,
            when: { _ in
                blocked.here(.effectWhen)
                return false
            },
            operation: { _, _ in })
        let store = Store(initialState: AppState(), reducer: reducer, middleware: [middleware], effects: [effect])
        blocked.store.value = store
        blocked.shared.value = shared
        // The store's reducer, middleware and effect hold `blocked`, which holds the store: the
        // cycle is broken when the test ends (LeakSanitizer checks it).
        defer {
            blocked.store.value = nil
            blocked.shared.value = nil
        }
        let consumer = StateConsumer<AppState>()
        consumer.add({ state in
            blocked.here(.closureSelector)
            return state.counter
        }) { _, _ in }
        consumer.add(
            \.counter,
            isEqual: { old, new in
                blocked.here(.isEqual)
                return old == new
            }
        ) { _, _ in }
        consumer.add(shared) { _, _ in }
        consumer.add(\.counter) { _, _ in blocked.here(.memberCallback) }
        let subscriptions = [
            store.subscribe(consumer),
            store.subscribe { _, _ in blocked.here(.closureSubscriber) },
            store.observeActions { _ in blocked.here(.actionListener) },
        ]
        blocked.arm()
        let finished = finishesWithoutDeadlock(within: 30) { store.dispatch(CounterAction.increment) }
        guard finished else { return }
        #expect(blocked.outcome.value == true, "\(place): the other thread finished while the user code waited")
        #expect(store.state.counter == 1)
        for subscription in subscriptions { subscription.cancel() }
    }

    // MARK: The state read from callbacks

    /// Guarantees.md, "Threads and re-entrancy": "`Store/state` never waits: from another thread
    /// it is the state after the last action reduced (published before any subscriber hears of
    /// it), and from inside the store's own middleware and callbacks it is the state being
    /// processed." Checked while four threads dispatch.
    @Test func middlewareAndCallbacksReadTheStateBeingProcessedWhileOtherThreadsDispatch() {
        let mismatches = Recorder<String>()
        let storeSlot = Slot<Store<AppState>?>(nil)
        let middleware: Middleware<AppState> = { _, _ in
            { next in
                { action in
                    let before = storeSlot.value?.state.counter
                    next(action)
                    let after = storeSlot.value?.state.counter
                    if let before, let after, after != before + 1 {
                        mismatches.append("middleware: \(before) before next, \(after) after")
                    }
                }
            }
        }
        let store = makeStore(middleware: [middleware])
        storeSlot.value = store
        let consumer = StateConsumer<AppState>()
        consumer.add(\.counter) { _, new in
            let read = store.state.counter
            if read != new { mismatches.append("member: called with \(new), read \(read)") }
        }
        let subscriptions = [
            store.subscribe(consumer),
            store.subscribe { _, new in
                let read = store.state.counter
                if read != new.counter { mismatches.append("subscriber: called with \(new.counter), read \(read)") }
            },
        ]
        let perThread = scaled(1_000, sanitized: 200)
        let finished = finishesWithoutDeadlock(within: 60) {
            let threads = (0..<4).map { _ in
                spawn { for _ in 0..<perThread { store.dispatch(CounterAction.increment) } }
            }
            for thread in threads { thread.wait() }
        }
        guard finished else { return }
        #expect(mismatches.values.isEmpty, "\(mismatches.values.prefix(5))")
        #expect(store.state.counter == 4 * perThread)
        for subscription in subscriptions { subscription.cancel() }
        storeSlot.value = nil
    }

    // MARK: Derived values

    /// DerivedValues.md: "The function must be pure: it runs on whatever thread processes the
    /// store, outside any lock, at most once per state." And README, "Derived values":
    /// "`StateConsumer`s, page consumers (`page.globalConsumer`) and the async change sequences of
    /// one store all share it." A consumer, a page's global consumer and a stream watch one derived
    /// value while two threads dispatch: one computation per state in all.
    @Test func aDerivedValueRunsOncePerStateForConsumersPagesAndStreamsAlike() async {
        let runs = Recorder<Int>()
        let doubled = Derived(\AppState.counter) { counter in
            runs.append(counter)
            return counter * 2
        }
        let store = makeStore()
        let consumer = StateConsumer<AppState>()
        consumer.add(doubled) { _, _ in }
        let subscription = store.subscribe(consumer)
        let page = PageStore(global: store, initialState: { $0 }, reducer: appReducer)
        page.globalConsumer.add(doubled) { _, _ in }
        let total = scaled(1_000, sanitized: 200)
        let listening = AsyncStream.makeStream(of: Void.self)
        let reader = Task {
            var last = -1
            for await change in store.changes(of: doubled, options: .instantly, buffering: .unbounded) {
                if change.old == change.new { listening.continuation.yield() }
                last = change.new
                if change.new == 2 * total { break }
            }
            return last
        }
        var started = listening.stream.makeAsyncIterator()
        _ = await started.next()
        let finished = await finishesWithoutDeadlock(within: 60) {
            await onAThreadOfItsOwn {
                let threads = (0..<2).map { _ in
                    spawn { for _ in 0..<(total / 2) { store.dispatch(CounterAction.increment) } }
                }
                for thread in threads { thread.wait() }
            }
        }
        guard finished else { return }
        #expect(await reader.value == 2 * total)
        #expect(runs.values.sorted() == Array(0...total), "one computation per state, the first included")
        subscription.cancel()
        page.close()
    }

    /// DerivedValues.md, "Sharing": "Build a derived value once and keep it, as a `let` on the type
    /// that owns the feature; copies of it share its identity. Two derived values built separately
    /// are two selectors, each computed on its own, even with the same inputs and function."
    @Test func copiesOfADerivedValueShareItsComputationAndSeparateOnesDoNot() {
        let runs = Recorder<String>()
        let count: @Sendable (String, Int) -> Int = { name, counter in
            runs.append(name)
            return counter
        }
        let first = Derived(\AppState.counter) { count("first", $0) }
        let copy = first
        let second = Derived(\AppState.counter) { count("second", $0) }
        let store = makeStore()
        let consumer = StateConsumer<AppState>()
        let fired = Recorder<String>()
        consumer.add(first) { new in fired.append("first \(new)") }
        consumer.add(copy) { new in fired.append("copy \(new)") }
        consumer.add(second) { new in fired.append("second \(new)") }
        let subscription = store.subscribe(consumer)
        store.dispatch(CounterAction.increment)
        store.dispatch(CounterAction.increment)
        #expect(runs.values.filter { $0 == "first" }.count == 3, "the original and its copy: one computation a state")
        #expect(runs.values.filter { $0 == "second" }.count == 3, "the one built separately: its own")
        #expect(fired.values == ["first 1", "copy 1", "second 1", "first 2", "copy 2", "second 2"])
        subscription.cancel()
    }

    /// DerivedValues.md, "Sharing": "Each store keeps its own last inputs and output for each
    /// derived value it has seen, as long as a consumer or another derived value uses it." Once
    /// nothing uses it, the store lets the output go (while the store and the derived value live).
    @Test func aStoreLetsADerivedValuesOutputGoOnceNothingUsesIt() {
        let watch = LeakWatch()
        let boxed = Derived(\AppState.counter) { watch.track(Boxed($0)) }
        let store = makeStore()
        let consumer = StateConsumer<AppState>()
        let subscription = store.subscribe(consumer)
        let token = consumer.add(boxed) { _, _ in }
        store.dispatch(CounterAction.increment)
        token.cancel()
        store.dispatch(CounterAction.increment)
        store.dispatch(CounterAction.increment)
        #expect(watch.survivors.isEmpty, "\(watch.survivors.count) outputs kept for a derived value nobody uses")
        subscription.cancel()
        withExtendedLifetime(boxed) {}
    }

    /// The same through another derived value: when the member on the outer value goes, neither
    /// value is used, and the store keeps neither output.
    @Test func aStoreLetsGoOfAnInnerDerivedValueWithTheOuterOne() {
        let watch = LeakWatch()
        let inner = Derived(\AppState.counter) { watch.track(Boxed($0)) }
        let outer = Derived(inner) { watch.track(Boxed($0.value + 1)) }
        let store = makeStore()
        let consumer = StateConsumer<AppState>()
        let subscription = store.subscribe(consumer)
        let token = consumer.add(outer) { _, _ in }
        store.dispatch(CounterAction.increment)
        token.cancel()
        store.dispatch(CounterAction.increment)
        #expect(watch.survivors.isEmpty, "\(watch.survivors) kept")
        subscription.cancel()
        withExtendedLifetime((inner, outer)) {}
    }

    // MARK: Code samples

    /// SwiftConcurrency.md, "Effects": the search example, as written: "`await
    /// store.send(SearchAction.query("swift"))  // cancels the search for "swi": the latest wins`"
    /// and "`print(store.state.results)  // the results for "swift"`". The search for "swi" is
    /// still running (it ends only when cancelled) when "swift" is sent.
    @Test func theSearchEffectExampleLetsTheLatestQueryWin() async {
        let started = AsyncStream.makeStream(of: String.self)
        let api = SlowPrefixAPI(started: started.continuation)
        let store = Store(initialState: SearchState(), reducer: searchReducer, effects: [searchEffect(api)])
        let finished = await finishesWithoutDeadlock(within: 60) {
            var starts = started.stream.makeAsyncIterator()
            await store.send(SearchAction.query("swi"))
            #expect(await starts.next() == "swi")
            await store.send(SearchAction.query("swift"))  // cancels the search for "swi": the latest wins
            await store.effectsIdle()
        }
        guard finished else { return }
        #expect(store.state.results == ["SWIFT"])
        #expect(store.state.error == nil, "a cancelled search is no failure")
    }

    /// Guarantees.md, "The lifetime rule for tokens", its example: "`store.subscribe { _, new in
    /// print("counter is \(new.counter)") }  // dropped: still subscribed`" and "`bag.removeAll()
    /// // the member and the consumer's subscription end here; the closure stays`".
    @Test func theBagExampleEndsTheMemberAndTheSubscriptionButNotTheDroppedClosure() {
        let store = makeStore()
        let consumer = StateConsumer<AppState>()
        let printed = Recorder<String>()
        let bag = ConsumerBag()
        consumer.add(\.counter) { old, new in printed.append("counter: \(old) → \(new)") }.store(in: bag)
        store.subscribe(consumer).store(in: bag)
        store.subscribe { _, new in printed.append("counter is \(new.counter)") }  // dropped: still subscribed
        store.dispatch(CounterAction.increment)
        #expect(printed.values == ["counter: 0 → 1", "counter is 1"])

        bag.removeAll()  // the member and the consumer's subscription end here; the closure stays
        store.dispatch(CounterAction.increment)
        #expect(printed.values == ["counter: 0 → 1", "counter is 1", "counter is 2"])
        #expect(consumer.count == 0)
        #expect(store.subscriberCount == 1)
    }

    // MARK: Effects

    /// SwiftConcurrency.md, "Effects": "Without an `id`, each runs to its end." Two runs of one
    /// effect without an id overlap, and both send their result.
    @Test func effectsWithoutAnIdEachRunToTheirEnd() async {
        let started = AsyncStream.makeStream(of: Int.self)
        let gates = [Signal(), Signal()]
        let effect = Effect<AppState>.on(
            CounterAction.self,
            when: { if case .set = $0 { true } else { false } },
            operation: { action, context in
                guard case .set(let value) = action else { return }
                started.continuation.yield(value)
                await gates[value].wait()
                await context.send(CounterAction.addWork("done \(value)"))
            })
        let store = Store(initialState: AppState(), reducer: appReducer, effects: [effect])
        let finished = await finishesWithoutDeadlock(within: 60) {
            await store.send(CounterAction.set(0))
            await store.send(CounterAction.set(1))
            var starts = started.stream.makeAsyncIterator()
            let first = await starts.next()
            let second = await starts.next()
            #expect(Set([first, second]) == [0, 1], "both run at once")
            gates[1].fire()
            gates[0].fire()
            await store.effectsIdle()
        }
        guard finished else { return }
        #expect(Set(store.state.works) == ["done 0", "done 1"])
    }

    /// SwiftConcurrency.md, "Effects": "``Store/cancelEffects(id:)`` (and
    /// ``PageStore/cancelEffects(id:)``) cancels it at any time." The page's form, which no other
    /// suite calls.
    @Test func aPageCancelsItsEffectsById() async {
        let started = AsyncStream.makeStream(of: Void.self)
        let effect = Effect<AppState>.on(
            CounterAction.self,
            when: { $0 == .increment },
            id: { _ in "slow" },
            operation: { _, context in
                started.continuation.yield()
                try await Task.sleep(for: .seconds(3_600))  // a request that never answers
                await context.send(CounterAction.rename("answered"))
            })
        let global = makeStore()
        let page = PageStore(global: global, initialState: { _ in AppState() }, reducer: appReducer, effects: [effect])
        let finished = await finishesWithoutDeadlock(within: 60) {
            await page.send(CounterAction.increment)
            var starts = started.stream.makeAsyncIterator()
            _ = await starts.next()
            page.cancelEffects(id: "slow")
            await page.effectsIdle()
        }
        guard finished else { return }
        #expect(page.state.name == nil)
        #expect(page.state.counter == 1)
        page.close()
    }

    /// SwiftConcurrency.md, "Call consumers on an actor" (and UsingItInAnApp.md, of the main
    /// actor): "An actor that falls behind gets a member's pending changes merged (the first
    /// `old`, the latest `new`): no backlog of stale updates." The actor is held for the whole
    /// burst of 50 changes: one call, `0→50`. (It was called twice, `0→1` then `1→50`: the task
    /// that makes the calls took the change before it hopped to the actor, so the changes posted
    /// while the actor was busy could not merge into it.)
    @Test func anActorHeldForAWholeBurstGetsOneMergedCall() async {
        let store = makeStore()
        let consumer = StateConsumer<AppState>()
        let calls = Recorder<String>()
        let last = AsyncStream.makeStream(of: Void.self)
        consumer.add(\.counter, on: HeldActor.shared) { @HeldActor old, new in
            calls.append("\(old)→\(new)")
            if new == 50 { last.continuation.yield() }
        }
        let subscription = store.subscribe(consumer)
        let arrived = await onAThreadOfItsOwn {
            let holding = DispatchSemaphore(value: 0)
            let release = DispatchSemaphore(value: 0)
            HeldActor.queue.async {
                holding.signal()
                release.wait()
            }
            holding.wait()  // the actor is busy from here…
            store.dispatch(CounterAction.increment)
            // The call for 0→1 reaches the busy actor (its job is enqueued there).
            let arrived = waitCountingFairTime(for: HeldActor.executor.jobArrived, seconds: 30)
            for _ in 1..<50 { store.dispatch(CounterAction.increment) }
            release.signal()  // …to here
            return arrived
        }
        #expect(arrived)
        var iterator = last.stream.makeAsyncIterator()
        _ = await iterator.next()
        #expect(calls.values == ["0→50"])
        subscription.cancel()
    }

    // MARK: Figures

    /// README, "Guarantees" 4 (and Guarantees.md, G4): "A chain of actions … stops at
    /// `Store.chainLimit` (10,000) with a diagnostic naming the action it dropped."
    @Test func theChainLimitIsTenThousand() {
        #expect(Store<AppState>.chainLimit == 10_000)
    }

    // MARK: Waiting

    /// SwiftConcurrency.md, "Wait for a state": "``Store/wait(until:timeout:)`` returns the first
    /// state that satisfies a predicate: the current state if it does, otherwise the first new one
    /// that does." Checked while two threads dispatch: the state returned is the first one that
    /// satisfied it, not a later one.
    @Test func aWaitReturnsTheFirstMatchingStateWhileThreadsDispatch() async throws {
        let store = makeStore()
        let target = scaled(500, sanitized: 100)
        let finished = await finishesWithoutDeadlock(within: 60) {
            let waiter = Task { try await store.wait(until: { $0.counter >= target }, timeout: 60) }
            // Counted once it listens: only then may the threads begin.
            while store.subscriberCount == 0 { await Task.yield() }
            await onAThreadOfItsOwn {
                let threads = (0..<2).map { _ in
                    spawn { for _ in 0..<target { store.dispatch(CounterAction.increment) } }
                }
                for thread in threads { thread.wait() }
            }
            let state = try? await waiter.value
            #expect(state?.counter == target)
        }
        guard finished else { return }
        #expect(store.subscriberCount == 0, "its subscription is gone when it returns")
    }
}

// MARK: - Fixtures

/// A global actor whose jobs run on a serial queue of its own, which a test can hold.
@globalActor
private actor AuditActor {
    static let shared = AuditActor()
    static let queue: DispatchQueue = {
        let queue = DispatchQueue(label: "PromiseAuditTests.AuditActor")
        queue.setSpecific(key: auditQueueKey, value: true)
        return queue
    }()
    static let executor = SignallingQueueExecutor(queue: queue)

    nonisolated var unownedExecutor: UnownedSerialExecutor {
        Self.executor.asUnownedSerialExecutor()
    }

    /// Whether the calling code runs on the actor's queue.
    static var isOnItsQueue: Bool {
        DispatchQueue.getSpecific(key: auditQueueKey) == true
    }
}

private let auditQueueKey = DispatchSpecificKey<Bool>()

/// The same, for the one test that watches its jobs arrive.
@globalActor
private actor HeldActor {
    static let shared = HeldActor()
    static let queue = DispatchQueue(label: "PromiseAuditTests.HeldActor")
    static let executor = SignallingQueueExecutor(queue: queue)

    nonisolated var unownedExecutor: UnownedSerialExecutor {
        Self.executor.asUnownedSerialExecutor()
    }
}

/// Blocks the first user code of one kind that runs once armed, while another thread uses the
/// library (see ``PromiseAuditTests/userCodeOfOneStoreHoldsNoLockThatAnotherThreadNeeds(place:)``).
private final class BlockOnce: @unchecked Sendable {
    // @unchecked: `armed` is only reached under `lock`; the slots lock themselves.
    private let place: PromiseAuditTests.UserCode
    private let lock = NSLock()
    private var armed = false
    let outcome = Slot<Bool?>(nil)
    let store = Slot<Store<AppState>?>(nil)
    let shared = Slot<Derived<AppState, Int>?>(nil)

    init(_ place: PromiseAuditTests.UserCode) {
        self.place = place
    }

    func arm() {
        lock.withLock { armed = true }
    }

    func here(_ place: PromiseAuditTests.UserCode) {
        guard place == self.place,
            lock.withLock({ () -> Bool in
                defer { armed = false }
                return armed
            })
        else { return }
        guard let store = store.value, let shared = shared.value else { return }
        let done = spawn { useTheLibraryElsewhere(reading: store, sharing: shared) }
        outcome.value = done.wait(timeout: .now() + 30) == .success
    }
}

/// Reads `store`'s state and uses a second store in every way, `shared` included.
private func useTheLibraryElsewhere(reading store: Store<AppState>, sharing shared: Derived<AppState, Int>) {
    _ = store.state
    final class Owner: Sendable {}
    let owner = Owner()
    let other = makeStore()
    let consumer = StateConsumer<AppState>()
    let bag = ConsumerBag()
    let seen = Recorder<Int>()
    consumer.add(\.counter) { _, new in seen.append(new) }.store(in: bag)
    consumer.add(shared) { _, new in seen.append(new) }.store(in: bag)
    consumer.add(\.counter, owner: owner) { _, _, new in seen.append(new) }.store(in: bag)
    other.subscribe(consumer).store(in: bag)
    other.subscribe { _, new in seen.append(new.counter) }.store(in: bag)
    other.observeActions { _ in seen.append(-1) }.store(in: bag)
    let page = PageStore(global: other, initialState: { $0 }, reducer: appReducer)
    page.forwardActions { $0 is CounterAction }
    page.globalConsumer.add(shared) { _, new in seen.append(new) }.store(in: bag)
    page.consumer.add(\.counter) { _, new in seen.append(new) }.store(in: bag)
    other.dispatch(CounterAction.increment)
    page.dispatch(CounterAction.increment)
    page.dispatchGlobal(CounterAction.increment)
    bag.removeAll()
    page.close()
    withExtendedLifetime(owner) {}
}

/// An output whose life a test watches.
private final class Boxed: Equatable, Sendable {
    let value: Int

    init(_ value: Int) {
        self.value = value
    }

    static func == (left: Boxed, right: Boxed) -> Bool {
        left.value == right.value
    }
}

// The search example of SwiftConcurrency.md, "Effects", as written there.

private enum SearchAction: Action, Equatable {
    case query(String)
    case results([String])
    case failed(String)
}

private struct SearchState: Sendable {
    var results: [String] = []
    var error: String?
}

private let searchReducer = Reducer<SearchState> { (state, action: SearchAction) in
    switch action {
    case .query: state.error = nil
    case .results(let results): state.results = results
    case .failed(let message): state.error = message
    }
}

private protocol SearchAPI: Sendable {
    func search(_ text: String) async throws -> [String]
}

private func searchEffect(_ api: any SearchAPI) -> Effect<SearchState> {
    Effect.on(
        SearchAction.self,
        when: { if case .query = $0 { true } else { false } },
        id: { _ in "search" }
    ) { action, context in
        guard case .query(let text) = action else { return }
        let results = try await api.search(text)
        await context.send(SearchAction.results(results))
    } catch: { error in
        SearchAction.failed("\(error)")
    }
}

/// A backend whose search for "swi" answers only when cancelled (then with `CancellationError`).
private struct SlowPrefixAPI: SearchAPI {
    let started: AsyncStream<String>.Continuation

    func search(_ text: String) async throws -> [String] {
        started.yield(text)
        if text == "swi" { try await Task.sleep(for: .seconds(3_600)) }
        return [text.uppercased()]
    }
}
