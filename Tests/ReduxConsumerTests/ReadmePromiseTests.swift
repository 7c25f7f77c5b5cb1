import Dispatch
import Foundation
import ReduxConsumer
import ReduxConsumerTestSupport
import Testing

private struct Boom: Error, CustomStringConvertible {
    var description: String { "boom" }
}

private final class Owner: Sendable {}

/// Waits, without blocking a pool thread, until `condition` holds (polled with yields).
private func until(_ condition: () -> Bool) async {
    while !condition() { await Task.yield() }
}

/// Claims of README.md and the DocC articles that no other suite proves (or proves only weakly).
struct ReadmePromiseTests {
    // MARK: When a late member's first call comes

    /// README: "Action listeners are called after every subscriber, once the pass is over: a member
    /// added in a listener is added between actions, and its `.instantly` call comes inside `add`,
    /// with the state the action made."
    @Test func anInstantlyMemberAddedInAnActionListenerFiresInsideAdd() {
        let store = makeStore()
        let consumer = StateConsumer<AppState>()
        let seen = Recorder<String>()
        consumer.add(\.counter) { old, new in seen.append("member \(old)→\(new)") }
        let subscription = store.subscribe(consumer)
        let closure = store.subscribe { old, new in seen.append("subscriber \(old.counter)→\(new.counter)") }
        let added = Box(false)
        let listener = store.observeActions { _ in
            guard !added.value else { return }
            added.value = true
            seen.append("listener")
            consumer.add(\.name, options: .instantly) { old, new in
                seen.append("late \(old ?? "nil")→\(new ?? "nil")")
            }
            seen.append("add returned")
        }
        store.dispatch(CounterAction.increment)
        store.dispatch(CounterAction.rename("a"))
        #expect(
            seen.values == [
                "member 0→1", "subscriber 0→1", "listener", "late nil→nil", "add returned",
                "late nil→a", "subscriber 1→1",
            ])
        listener.cancel()
        closure.cancel()
        subscription.cancel()
    }

    /// README: "A subscription made inside a reducer runs right after the reducer returns: the
    /// consumer's first feed is the state that reducer made, before that action's subscribers are
    /// called, and it is not called again for that action."
    @Test func aSubscriptionMadeInAReducerIsFedTheStateItMadeBeforeThatActionsSubscribers() {
        let consumer = StateConsumer<AppState>()
        let seen = Recorder<String>()
        consumer.add(\.counter, options: .instantly) { old, new in seen.append("member \(old)→\(new)") }
        let subscription = Box<Subscription?>(nil)
        let store = Box<Store<AppState>?>(nil)
        store.value = Store(
            initialState: AppState(),
            reducer: Reducer<AppState> { state, action in
                appReducer(&state, action)
                guard subscription.value == nil, let store = store.value else { return }
                subscription.value = store.subscribe(consumer)
                seen.append("subscribe returned")
            })
        let closure = store.value?.subscribe { old, new in seen.append("subscriber \(old.counter)→\(new.counter)") }
        store.value?.dispatch(CounterAction.increment)
        store.value?.dispatch(CounterAction.increment)
        #expect(
            seen.values == [
                "subscribe returned", "member 1→1", "subscriber 0→1", "subscriber 1→2", "member 1→2",
            ])
        closure?.cancel()
        subscription.value?.cancel()
        store.value = nil
    }

    // MARK: Async sequences

    /// SwiftConcurrency.md: "Each iteration is a subscription of its own, made when the iteration
    /// asks for its first element … Changes before that are not in the sequence."
    @Test func aSequenceSubscribesWhenItsIterationAsksForItsFirstElement() async {
        let store = makeStore()
        let changes = store.changes(of: \.counter)
        await store.send(CounterAction.increment)  // made, not iterated: not in the sequence
        #expect(store.subscriberCount == 0)
        var iterator = changes.makeAsyncIterator()
        let sender = Task {
            await until { store.subscriberCount == 1 }
            await store.send(CounterAction.increment)
        }
        #expect(await iterator.next() == Change(old: 1, new: 2))
        await sender.value
    }

    /// SwiftConcurrency.md: "Each iteration is a subscription of its own … and counted in
    /// `Store/subscriberCount`."
    @Test func twoIterationsOfOneSequenceAreTwoSubscriptions() async {
        let store = makeStore()
        let changes = store.changes(of: \.counter, options: .instantly)
        var first = changes.makeAsyncIterator()
        var second = changes.makeAsyncIterator()
        #expect(await first.next() == Change(old: 0, new: 0))
        #expect(await second.next() == Change(old: 0, new: 0))
        #expect(store.subscriberCount == 2)
        await store.send(CounterAction.increment)
        #expect(await first.next() == Change(old: 0, new: 1))
        #expect(await second.next() == Change(old: 0, new: 1))
    }

    /// SwiftConcurrency.md: "`StreamBuffering/coalescing`, the default for changes and states … Changes
    /// that arrive while the reader is busy are merged into it, keeping its `old` and taking the
    /// latest `new`."
    @Test func statesCoalesceByDefaultKeepingTheFirstOldAndTheLatestNew() async {
        let store = makeStore()
        var states = store.states.makeAsyncIterator()
        let sender = Task {
            await until { store.subscriberCount == 1 }
            await store.send(CounterAction.increment)
        }
        let first = await states.next()
        #expect(first?.old.counter == 0)
        #expect(first?.new.counter == 1)
        await sender.value
        for _ in 0..<3 { store.dispatch(CounterAction.increment) }  // the reader is behind
        let merged = await states.next()
        #expect(merged?.old.counter == 1)
        #expect(merged?.new.counter == 4)
    }

    /// SwiftConcurrency.md: "(Actions with `.coalescing` keep the latest action only.)"
    @Test func coalescedActionsKeepTheLatestActionOnly() async {
        let store = makeStore()
        var actions = store.actions(buffering: .coalescing).makeAsyncIterator()
        let sender = Task {
            await until { store.subscriberCount == 1 }
            await store.send(CounterAction.set(1))
        }
        #expect(await actions.next() as? CounterAction == .set(1))
        await sender.value
        for value in 2...4 { store.dispatch(CounterAction.set(value)) }  // the reader is behind
        #expect(await actions.next() as? CounterAction == .set(4))
        store.dispatch(CounterAction.set(5))
        #expect(await actions.next() as? CounterAction == .set(5))
    }

    /// SwiftConcurrency.md: "A reader gets fewer, larger steps, never a stale or repeated value";
    /// "A `StoreStream` follows the consumer rules: an element only when the value changed".
    /// A value that changes and comes back while the reader is behind is no change.
    @Test func aValueThatComesBackWhileTheReaderIsBehindIsNoElement() async {
        let store = makeStore()
        var changes = store.changes(of: \.counter, options: .instantly).makeAsyncIterator()
        #expect(await changes.next() == Change(old: 0, new: 0))
        store.dispatch(CounterAction.set(1))
        store.dispatch(CounterAction.set(0))  // back where the reader last was
        let reader = Task {
            var changes = changes
            return await changes.next()
        }
        for _ in 0..<200 { await Task.yield() }
        await store.send(CounterAction.set(7))
        let next = await reader.value
        #expect(next == Change(old: 0, new: 7))
    }

    /// SwiftConcurrency.md: "The sequence finishes (the loop ends) when its store is released …
    /// It does not keep its store alive." — with the reader already waiting in `next()`.
    @Test func aReaderWaitingForAnElementFinishesWhenItsStoreIsReleased() async {
        await finishesWithoutDeadlock(within: scaled(60, sanitized: 300)) {
            var store: Store<AppState>? = makeStore()
            weak let weakStore = store
            let changes = store!.changes(of: \.counter)
            let reader = Task {
                var iterator = changes.makeAsyncIterator()
                return await iterator.next()
            }
            await until { (weakStore?.subscriberCount ?? 0) == 1 }
            store = nil
            // The job that subscribed the reader may still hold the store for a moment after the
            // count changed; the sequence itself must not (the watchdog fails a store kept alive).
            await until { weakStore == nil }
            #expect(await reader.value == nil)
        }
    }

    /// SwiftConcurrency.md: "The sequence finishes (the loop ends) when … its page closed" — for a
    /// page's `actions` and `states`, which PageChangeSequenceTests does not cover.
    @Test func aPagesActionsAndStatesFinishWhenThePageCloses() async {
        await finishesWithoutDeadlock(within: scaled(60, sanitized: 300)) {
            let page = PageStore(global: makeStore(), initialState: { $0 }, reducer: appReducer)
            let heard = Recorder<String>()
            let actionReader = Task {
                var count = 0
                for await action in page.actions {
                    heard.append("\(action)")
                    count += 1
                }
                return count
            }
            let stateReader = Task {
                var count = 0
                for await _ in page.states {
                    heard.append("state")
                    count += 1
                }
                return count
            }
            var sent = 0
            while heard.values.filter({ $0 == "state" }).isEmpty || heard.values.filter({ $0 != "state" }).isEmpty,
                sent < 100_000
            {
                await page.send(CounterAction.increment)
                sent += 1
                await Task.yield()
            }
            page.close()
            #expect(await actionReader.value >= 1)
            #expect(await stateReader.value >= 1)
        }
    }

    // MARK: Waiting for a state

    /// SwiftConcurrency.md: "A wait is a call on its store, so it keeps the store alive until it
    /// returns: releasing the store does not end it" — it ends with its timeout, and the store
    /// goes then.
    @Test func aWaitKeepsItsStoreUntilItReturns() async {
        var store: Store<AppState>? = makeStore()
        weak let weakStore = store
        let hasReturned = Lock(false)
        let waiter = Task { [store] () async throws -> AppState? in
            defer { hasReturned.withLock { $0 = true } }
            return try await store?.wait(until: { $0.counter == 99 }, timeout: 0.2)
        }
        // Or returned already: on a loaded machine the timeout may pass before this task looks.
        await until { (weakStore?.subscriberCount ?? 0) == 1 || hasReturned.withLock { $0 } }
        store = nil
        await #expect(throws: StoreWaitError.timedOut(after: 0.2)) { _ = try await waiter.value }
        #expect(weakStore == nil)
    }

    /// SwiftConcurrency.md: "… `StoreWaitError/storeGone` when the store is released (or its page
    /// closed) first … `PageStore/wait(until:timeout:)` does the same for a page's state."
    @Test func aPageWaitThrowsStoreGoneWhenThePageCloses() async {
        let page = PageStore(global: makeStore(), initialState: { $0 }, reducer: appReducer)
        let started = Signal()
        let waiter = Task { () async throws -> AppState in
            started.fire()
            // Long: under a sanitizer, the task that closes the page may wait seconds for a thread.
            return try await page.wait(until: { $0.counter == 99 }, timeout: 120)
        }
        await started.wait()
        for _ in 0..<100 { await Task.yield() }
        page.close()
        await #expect(throws: StoreWaitError.storeGone) { _ = try await waiter.value }
        // A wait on a page closed already throws at once.
        await #expect(throws: StoreWaitError.storeGone) {
            _ = try await page.wait(until: { $0.counter == 99 }, timeout: 5)
        }
    }

    // MARK: Send

    /// SwiftConcurrency.md: "Once called, the action is processed even if the task is cancelled
    /// meanwhile."
    @Test func aSendIsProcessedEvenIfItsTaskIsCancelled() async {
        let store = makeStore()
        let alreadyCancelled = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            await store.send(CounterAction.increment)
        }
        await alreadyCancelled.value
        #expect(store.state.counter == 1)

        // Cancelled while the store is busy on another thread and the send is queued.
        let entered = Signal()
        let release = DispatchSemaphore(value: 0)
        let subscription = store.subscribe { _, new in
            if new.counter == 2 {
                entered.fire()
                release.wait()
            }
        }
        let busy = spawn { store.dispatch(CounterAction.increment) }
        await entered.wait()
        let queued = Task { await store.send(CounterAction.set(10)) }
        for _ in 0..<100 { await Task.yield() }
        queued.cancel()
        release.signal()
        await queued.value
        #expect(store.state.counter == 10)
        await withCheckedContinuation { done in
            DispatchQueue.global().async {
                busy.wait()
                done.resume()
            }
        }
        subscription.cancel()
    }

    // MARK: Effects

    /// SwiftConcurrency.md: "An effect starts after its action was reduced and the store's
    /// subscribers and action listeners were notified, in a task of its own."
    @Test func anEffectStartsAfterTheSubscribersAndListenersWereNotified() async {
        let order = Recorder<String>()
        let effect = Effect<AppState>.on(CounterAction.self) { _, context in
            order.append("effect sees \(context.state?.counter ?? -1)")
        }
        let store = Store(initialState: AppState(), reducer: appReducer, effects: [effect])
        let subscription = store.subscribe { _, new in order.append("subscriber \(new.counter)") }
        let listener = store.observeActions { _ in order.append("listener") }
        await store.send(CounterAction.increment)
        await store.effectsIdle()
        #expect(order.values == ["subscriber 1", "listener", "effect sees 1"])
        subscription.cancel()
        listener.cancel()
    }

    /// SwiftConcurrency.md: "Every effect is cancelled when its store is released … `EffectContext`
    /// does not keep the store alive: once it is gone, `EffectContext/state` is `nil` and sends are
    /// ignored."
    @Test func releasingTheStoreCancelsItsEffectsAndTheirContextLetsGo() async {
        let started = Signal()
        let ended = Signal()
        let seen = Lock<(isCancelled: Bool, hasState: Bool)?>(nil)
        let effect = Effect<AppState>.on(CounterAction.self, when: { $0 == .increment }) { _, context in
            started.fire()
            try? await Task.sleep(nanoseconds: 600_000_000_000)  // ends when cancelled
            await context.send(CounterAction.increment)  // ignored
            seen.withLock { $0 = (Task.isCancelled, context.state != nil) }
            ended.fire()
        }
        var store: Store<AppState>? = Store(initialState: AppState(), reducer: appReducer, effects: [effect])
        weak let weakStore = store
        await store!.send(CounterAction.increment)
        await started.wait()
        store = nil
        #expect(weakStore == nil)
        await ended.wait()
        #expect(seen.withLock { $0?.isCancelled } == true)
        #expect(seen.withLock { $0?.hasState } == false)
    }

    /// SwiftConcurrency.md: "Every effect is cancelled when its store is released, or its page closed
    /// or released."
    @Test func releasingAPageCancelsItsEffects() async {
        let started = Signal()
        let ended = Signal()
        let wasCancelled = Lock(false)
        let effect = Effect<AppState>.on(CounterAction.self) { _, _ in
            started.fire()
            try? await Task.sleep(nanoseconds: 600_000_000_000)  // ends when cancelled
            wasCancelled.withLock { $0 = Task.isCancelled }
            ended.fire()
        }
        let global = makeStore()
        var page: PageStore<AppState, AppState>? = PageStore(
            global: global, initialState: { $0 }, reducer: appReducer, effects: [effect])
        weak let weakPage = page
        await page!.send(CounterAction.increment)
        await started.wait()
        page = nil
        #expect(weakPage == nil)
        await ended.wait()
        #expect(wasCancelled.withLock { $0 })
    }

    /// SwiftConcurrency.md: "An error thrown after cancellation is ignored."
    @Test func anErrorThrownAfterCancellationIsIgnored() async {
        let diagnostics = Recorder<String>()
        let handled = Recorder<String>()
        let started = Signal()
        let effect = Effect<AppState>.on(CounterAction.self, when: { $0 == .increment }, id: { _ in "job" }) { _, _ in
            started.fire()
            try? await Task.sleep(nanoseconds: 600_000_000_000)  // ends when cancelled
            throw Boom()
        }
        let handledEffect = Effect<AppState>.on(CounterAction.self, when: { $0 == .decrement }, id: { _ in "other" }) {
            _, _ in
            started.fire()
            try? await Task.sleep(nanoseconds: 600_000_000_000)
            throw Boom()
        } catch: { error in
            handled.append("\(error)")
            return CounterAction.set(99)
        }
        let store = Store(
            initialState: AppState(), reducer: appReducer, effects: [effect, handledEffect],
            diagnostics: { diagnostics.append($0) })
        await store.send(CounterAction.increment)
        await started.wait()
        store.cancelEffects(id: "job")
        await store.effectsIdle()
        await store.send(CounterAction.decrement)
        await started.wait()
        store.cancelEffects(id: "other")
        await store.effectsIdle()
        #expect(diagnostics.values.isEmpty)
        #expect(handled.values.isEmpty)
        #expect(store.state.counter == 0)
    }

    /// SwiftConcurrency.md: "Another error goes to the `catch:` handler, which turns it into an
    /// action for the store (or `nil`, for none)."
    @Test func aHandlerThatReturnsNilSendsNothingAndReportsNothing() async {
        let diagnostics = Recorder<String>()
        let heard = Recorder<String>()
        let effect = Effect<AppState>.on(CounterAction.self) { _, _ in
            throw Boom()
        } catch: { _ in
            nil
        }
        let store = Store(
            initialState: AppState(), reducer: appReducer, effects: [effect], diagnostics: { diagnostics.append($0) })
        let listener = store.observeActions { heard.append("\($0)") }
        await store.send(CounterAction.increment)
        await store.effectsIdle()
        #expect(heard.values == ["increment"])
        #expect(diagnostics.values.isEmpty)
        listener.cancel()
    }

    /// SwiftConcurrency.md: "or later with `Store/addEffect(_:)` (it starts with the next action)" —
    /// added from a subscriber while an action is notified.
    @Test func anEffectAddedDuringAnActionStartsWithTheNextOne() async {
        let starts = Recorder<CounterAction>()
        let effect = Effect<AppState>.on(CounterAction.self) { action, _ in starts.append(action) }
        let store = makeStore()
        let subscription = store.subscribe { [weak store] _, new in
            if new.counter == 1 { store?.addEffect(effect) }
        }
        await store.send(CounterAction.increment)
        await store.send(CounterAction.set(5))
        await store.effectsIdle()
        #expect(starts.values == [.set(5)])
        subscription.cancel()
    }

    /// SwiftConcurrency.md: "`Store/effectsIdle()` … returns once no effect of the store runs,
    /// including effects started while it waits."
    @Test func effectsIdleWaitsForEffectsStartedWhileItWaits() async {
        let firstStarted = Signal()
        let secondStarted = Signal()
        let gates = Lock<(open: Set<Int>, waiting: [Int: CheckedContinuation<Void, Never>])>(([], [:]))
        @Sendable func pass(_ gate: Int) async {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let isOpen = gates.withLock { gates -> Bool in
                    if gates.open.contains(gate) { return true }
                    gates.waiting[gate] = continuation
                    return false
                }
                if isOpen { continuation.resume() }
            }
        }
        @Sendable func open(_ gate: Int) {
            gates.withLock { gates -> CheckedContinuation<Void, Never>? in
                gates.open.insert(gate)
                return gates.waiting.removeValue(forKey: gate)
            }?.resume()
        }
        let effect = Effect<AppState>.on(CounterAction.self) { action, _ in
            guard case .set(let gate) = action else { return }
            if gate == 1 { firstStarted.fire() } else { secondStarted.fire() }
            await pass(gate)
        }
        let store = Store(initialState: AppState(), reducer: appReducer, effects: [effect])
        await store.send(CounterAction.set(1))
        await firstStarted.wait()
        let idle = Lock(false)
        let waiter = Task {
            await store.effectsIdle()
            idle.withLock { $0 = true }
        }
        for _ in 0..<50 { await Task.yield() }
        await store.send(CounterAction.set(2))  // started while effectsIdle waits
        await secondStarted.wait()
        open(1)
        for _ in 0..<200 { await Task.yield() }
        #expect(!idle.withLock { $0 })
        open(2)
        await waiter.value
        #expect(idle.withLock { $0 })
    }

    // MARK: Pages

    /// SwiftConcurrency.md: "A page has `PageStore/send(_:isolation:)` for its own actions and
    /// `PageStore/sendGlobal(_:isolation:)` for the global store; after `PageStore/close()` both
    /// ignore the action and report it to the page's diagnostics."
    @Test func sendAndSendGlobalAfterCloseAreIgnoredAndReported() async {
        let global = makeStore()
        let diagnostics = Recorder<String>()
        let page = PageStore(
            global: global, initialState: { $0 }, reducer: appReducer, diagnostics: { diagnostics.append($0) })
        page.close()
        await page.send(CounterAction.increment)
        await page.sendGlobal(CounterAction.increment)
        #expect(page.state.counter == 0)
        #expect(global.state.counter == 0)
        #expect(diagnostics.values.count == 2)
        #expect(diagnostics.values.first?.contains("send(") == true)
        #expect(diagnostics.values.last?.contains("sendGlobal(") == true)
        #expect(diagnostics.values.allSatisfy { $0.contains("after close() was ignored") })
    }

    /// README: "`consumer` and `globalConsumer` are made on first use: a page that watches nothing
    /// global is no subscriber of the global store and adds nothing to its dispatches."
    @Test func aPageThatWatchesNothingGlobalIsNoSubscriberOfTheGlobalStore() {
        let global = makeStore()
        let start = global.subscriberCount
        let page = PageStore(global: global, initialState: { $0 }, reducer: appReducer)
        let seen = Recorder<Int>()
        let token = page.consumer.add(\.counter) { _, new in seen.append(new) }
        page.dispatch(CounterAction.increment)
        global.dispatch(CounterAction.increment)
        #expect(global.subscriberCount == start)
        #expect(seen.values == [1])
        _ = page.globalConsumer
        #expect(global.subscriberCount == start + 1)
        page.close()
        #expect(global.subscriberCount == start)
        token.cancel()
    }

    /// README: "a `PageStore` keeps its global store (its `global` property) alive for as long as
    /// the page itself lives, closed or not."
    @Test func aPageKeepsItsGlobalStoreAliveClosedOrNot() {
        var global: Store<AppState>? = makeStore()
        weak let weakGlobal = global
        var page: PageStore<AppState, AppState>? = PageStore(global: global!, initialState: { $0 }, reducer: appReducer)
        global = nil
        #expect(weakGlobal != nil)
        page!.close()
        #expect(weakGlobal != nil)
        #expect(page!.global.state.counter == 0)
        page = nil
        #expect(weakGlobal == nil)
    }

    /// README: "`page.forwardActions { $0 is AuthAction }` listens to the global store
    /// (`Store.observeActions`, removed when the page goes; nothing to install)."
    @Test func forwardingIsRemovedWhenThePageClosesOrGoes() {
        let global = makeStore()
        let start = global.subscriberCount
        let closed = PageStore(global: global, initialState: { $0 }, reducer: appReducer)
        closed.forwardActions { $0 is CounterAction }
        var released: PageStore<AppState, AppState>? = PageStore(
            global: global, initialState: { $0 }, reducer: appReducer)
        released!.forwardActions { $0 is CounterAction }
        #expect(global.subscriberCount == start + 2)
        global.dispatch(CounterAction.increment)
        #expect(closed.state.counter == 1)
        #expect(released!.state.counter == 1)
        closed.close()
        released = nil
        #expect(global.subscriberCount == start)
        global.dispatch(CounterAction.increment)
        #expect(closed.state.counter == 1)
    }

    // MARK: Consumers

    /// README: "An `owner:` member is inert from the moment its owner is released" and "not from a
    /// `deliveringOn:` queue (pending calls are dropped)".
    @Test func aPendingQueuedCallOfAnOwnerMemberIsDroppedWhenItsOwnerGoes() {
        let queue = DispatchQueue(label: "readme-owner")
        let consumer = StateConsumer<AppState>(deliveringOn: queue)
        var owner: Owner? = Owner()
        let calls = Recorder<Int>()
        consumer.add(\.counter, owner: owner!) { _, _, new in calls.append(new) }
        let store = makeStore()
        let subscription = store.subscribe(consumer)
        let blocked = DispatchSemaphore(value: 0)
        queue.async { blocked.wait() }
        store.dispatch(CounterAction.increment)  // pending on the blocked queue
        owner = nil
        blocked.signal()
        queue.sync {}
        #expect(calls.values.isEmpty)
        subscription.cancel()
    }

    /// README: "A `deliveringOn:` consumer whose queue falls behind gets each member's pending
    /// changes merged — the first `old`, the latest `new` — never a stale or repeated value";
    /// "A member fires only when its selected value changed".
    @Test func aQueuedMemberWhoseValueComesBackWhileTheQueueIsBehindDoesNotFire() {
        let queue = DispatchQueue(label: "readme-merge")
        let consumer = StateConsumer<AppState>(deliveringOn: queue)
        let calls = Recorder<String>()
        consumer.add(\.counter) { old, new in calls.append("\(old)→\(new)") }
        let store = makeStore()
        let subscription = store.subscribe(consumer)
        let blocked = DispatchSemaphore(value: 0)
        queue.async { blocked.wait() }
        store.dispatch(CounterAction.set(1))
        store.dispatch(CounterAction.set(0))  // back where the member last was
        blocked.signal()
        queue.sync {}
        store.dispatch(CounterAction.set(2))
        queue.sync {}
        #expect(calls.values == ["0→2"])
        subscription.cancel()
    }

    /// README ("Threads and re-entrancy"): "`store.state` never waits: from another thread it is the
    /// state after the last action reduced (published before any subscriber hears of it)".
    @Test func theStateIsPublishedBeforeAnySubscriberHearsOfIt() {
        finishesWithoutDeadlock {
            let store = makeStore()
            let inside = DispatchSemaphore(value: 0)
            let release = DispatchSemaphore(value: 0)
            let consumer = StateConsumer<AppState>()
            consumer.add(\.counter) { _, _ in
                inside.signal()
                release.wait()
            }
            let subscription = store.subscribe(consumer)
            let dispatcher = spawn { store.dispatch(CounterAction.increment) }
            inside.wait()
            #expect(store.state.counter == 1)  // read while the consumer is being called
            release.signal()
            dispatcher.wait()
            subscription.cancel()
        }
    }

    // MARK: Derived values

    /// README: "Per store, it keeps its last inputs and output"; DerivedValues.md: "Each store keeps
    /// its own last inputs and output for each derived value it has seen".
    @Test func oneDerivedValueKeepsItsOwnMemoInEachStore() {
        let runs = Lock(0)
        let doubled = Derived(\AppState.counter) { counter in
            runs.withLock { $0 += 1 }
            return counter * 2
        }
        let first = makeStore(AppState(counter: 1))
        let second = makeStore(AppState(counter: 100))
        let firstSeen = Recorder<String>()
        let secondSeen = Recorder<String>()
        let firstConsumer = StateConsumer<AppState>()
        let secondConsumer = StateConsumer<AppState>()
        firstConsumer.add(doubled, options: .instantly) { old, new in firstSeen.append("\(old)→\(new)") }
        secondConsumer.add(doubled, options: .instantly) { old, new in secondSeen.append("\(old)→\(new)") }
        let subscriptions = [first.subscribe(firstConsumer), second.subscribe(secondConsumer)]
        let runsAfterSubscribing = runs.withLock { $0 }
        first.dispatch(CounterAction.increment)
        second.dispatch(CounterAction.increment)
        first.dispatch(CounterAction.rename("x"))  // no input changed
        second.dispatch(CounterAction.rename("y"))  // no input changed
        #expect(firstSeen.values == ["2→2", "2→4"])
        #expect(secondSeen.values == ["200→200", "200→202"])
        #expect(runs.withLock { $0 } == runsAfterSubscribing + 2)
        for subscription in subscriptions { subscription.cancel() }
    }

    /// README: "its output is compared once (with `==`, or a consumer's `isEqual`) before any of them
    /// fires"; "`isEqual` compares with that same last *delivered* value".
    @Test func aDerivedValueWithIsEqualComparesWithTheLastDeliveredOutput() {
        let doubled = Derived(\AppState.counter) { $0 * 2 }
        let store = makeStore()
        let consumer = StateConsumer<AppState>()
        let seen = Recorder<String>()
        consumer.add(doubled, isEqual: { abs($0 - $1) < 3 }) { old, new in seen.append("\(old)→\(new)") }
        let subscription = store.subscribe(consumer)
        store.dispatch(CounterAction.set(1))  // 2: within 3 of the delivered 0
        store.dispatch(CounterAction.set(2))  // 4: 4 from the delivered 0: fires
        store.dispatch(CounterAction.set(3))  // 6: within 3 of the delivered 4
        #expect(seen.values == ["0→4"])
        subscription.cancel()
    }
}
