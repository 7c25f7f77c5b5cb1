import Dispatch
import Foundation
import ReduxConsumer
import ReduxConsumerTestSupport
import Testing

/// Bad or extreme input to the public API: never a crash, a hang or lost data.
struct BadInputTests {
    // MARK: wait(until:timeout:)

    /// "timeout: The longest to wait, in seconds": an infinite one means waiting as long as it
    /// takes (it used to trap converting the timeout to nanoseconds, in the wait's timer task).
    @Test func waitWithInfiniteTimeoutDoesNotCrash() async throws {
        let store = makeStore(AppState(counter: 1))
        let state = try await store.wait(until: { $0.counter == 1 }, timeout: .infinity)
        #expect(state.counter == 1)
        // A timer task, had one started, runs before the test ends.
        for _ in 0..<200 { await Task.detached(priority: .background) {}.value }
    }

    /// A long but finite timeout (about 31,700 years) is still a valid number of seconds.
    @Test func waitWithHugeFiniteTimeoutDoesNotCrash() async throws {
        let store = makeStore(AppState(counter: 1))
        let state = try await store.wait(until: { $0.counter == 1 }, timeout: 1e12)
        #expect(state.counter == 1)
        for _ in 0..<200 { await Task.detached(priority: .background) {}.value }
    }

    /// "Checks the current state first": a zero or negative timeout still returns a matching state.
    @Test(arguments: [0.0, -1.0, -Double.infinity])
    func waitWithNonPositiveTimeoutReturnsAMatchingCurrentState(timeout: Double) async throws {
        let store = makeStore(AppState(counter: 7))
        let state = try await store.wait(until: { $0.counter == 7 }, timeout: timeout)
        #expect(state.counter == 7)
        #expect(store.subscriberCount == 0)
    }

    @Test(arguments: [0.0, -1.0, -Double.infinity, Double.nan])
    func waitWithNonPositiveOrNaNTimeoutTimesOutWithoutTouchingTheState(timeout: Double) async {
        let store = makeStore(AppState(counter: 7))
        do {
            _ = try await store.wait(until: { $0.counter == 8 }, timeout: timeout)
            Issue.record("no error")
        } catch let error as StoreWaitError {
            guard case .timedOut = error else {
                Issue.record("\(error)")
                return
            }
            #expect(error.description.contains("did not match"))
        } catch {
            Issue.record("\(error)")
        }
        #expect(store.state == AppState(counter: 7))
        // The wait's subscription is removed (eventually on the store's thread; store is idle here).
        #expect(store.subscriberCount == 0)
    }

    // MARK: ConsumeOptions

    @Test func instantlyAndPulseTogether() {
        let store = makeStore()
        let consumer = StateConsumer<AppState>()
        let subscription = store.subscribe(consumer)
        let seen = Recorder<Change<Int>>()
        let token = consumer.add(\.counter, options: [.instantly, .pulse]) { old, new in
            seen.append(Change(old: old, new: new))
        }
        #expect(seen.values.map(\.new) == [0])  // instantly, inside add
        #expect(seen.values.map(\.old) == [0])
        store.dispatch(CounterAction.rename("x"))  // counter unchanged: pulse fires
        store.dispatch(CounterAction.increment)
        #expect(seen.values.map(\.new) == [0, 0, 1])
        #expect(seen.values.map(\.old) == [0, 0, 0])
        token.cancel()
        subscription.cancel()
    }

    @Test func unknownOptionBitsAreHarmless() {
        let store = makeStore()
        let consumer = StateConsumer<AppState>()
        let subscription = store.subscribe(consumer)
        let seen = Recorder<Int>()
        let token = consumer.add(\.counter, options: ConsumeOptions(rawValue: -1)) { (new: Int) in seen.append(new) }
        store.dispatch(CounterAction.rename("x"))
        store.dispatch(CounterAction.increment)
        #expect(seen.values == [0, 0, 1])
        token.cancel()
        subscription.cancel()
    }

    // MARK: Huge numbers of members

    @Test func aHundredThousandMembersOnOneConsumerEachFireOnce() {
        let store = makeStore()
        let consumer = StateConsumer<AppState>()
        let subscription = store.subscribe(consumer)
        let fired = Lock(0)
        let count = 100_000
        var tokens: [ConsumerToken] = []
        tokens.reserveCapacity(count + 1000)
        for _ in 0..<count {
            tokens.append(consumer.add(\.counter) { (_: Int) in fired.withLock { $0 += 1 } })
        }
        for index in 0..<1000 {
            tokens.append(consumer.add({ $0.counter + index }) { (_: Int) in fired.withLock { $0 += 1 } })
        }
        #expect(consumer.count == count + 1000)
        store.dispatch(CounterAction.increment)
        #expect(fired.withLock { $0 } == count + 1000)
        for token in tokens { token.cancel() }
        #expect(consumer.count == 0)
        store.dispatch(CounterAction.increment)
        #expect(fired.withLock { $0 } == count + 1000)
        subscription.cancel()
    }

    // MARK: Chains and fan-out

    /// A fan-out is not a chain: many actions dispatched while processing one action are each one
    /// step from it, so none may be dropped.
    @Test func aMiddlewareFanningOutPastTheChainLimitLosesNothing() {
        let diagnostics = Recorder<String>()
        let burst = Store<AppState>.chainLimit * 2
        let middleware: Middleware<AppState> = { dispatch, _ in
            { next in
                { action in
                    if case CounterAction.rename("burst") = action {
                        for _ in 0..<burst { dispatch(CounterAction.increment) }
                    }
                    next(action)
                }
            }
        }
        let store = Store(
            initialState: AppState(), reducer: appReducer, middleware: [middleware], diagnostics: diagnostics.append)
        store.dispatch(CounterAction.rename("burst"))
        #expect(store.state.counter == burst)
        #expect(diagnostics.values.isEmpty, "\(diagnostics.values.first ?? "")")
    }

    @Test func aConsumerFanningOutPastTheChainLimitLosesNothing() {
        let diagnostics = Recorder<String>()
        let store = Store(initialState: AppState(), reducer: appReducer, diagnostics: diagnostics.append)
        let burst = Store<AppState>.chainLimit * 2
        let consumer = StateConsumer<AppState>()
        let subscription = store.subscribe(consumer)
        let token = consumer.add(\.name) { [weak store] (new: String?) in
            guard new == "burst" else { return }
            for _ in 0..<burst { store?.dispatch(CounterAction.increment) }
        }
        store.dispatch(CounterAction.rename("burst"))
        #expect(store.state.counter == burst)
        #expect(diagnostics.values.isEmpty, "\(diagnostics.values.first ?? "")")
        token.cancel()
        subscription.cancel()
    }

    // MARK: Effects with odd ids

    @Test func effectIdsOfDifferentTypesDoNotCancelEachOther() async {
        let done = Recorder<String>()
        let effect = Effect<AppState>.on(
            CounterAction.self,
            id: { action -> (any Hashable & Sendable)? in
                switch action {
                case .set(let n): return n  // Int
                case .rename(let name): return name  // String? (nil: no id)
                default: return nil
                }
            },
            operation: { action, _ in
                await Task.yield()
                done.append("\(action)")
            })
        let store = Store(initialState: AppState(), reducer: appReducer, effects: [effect])
        store.cancelEffects(id: "never used")
        store.cancelEffects(id: Double.nan)
        store.dispatch(CounterAction.set(1))
        store.dispatch(CounterAction.rename("1"))
        store.dispatch(CounterAction.rename(nil))
        store.dispatch(CounterAction.rename(nil))
        await store.effectsIdle()
        #expect(done.values.count == 4, "\(done.values)")
        #expect(store.state.name == nil)
    }

    @Test func cancellingAnUnusedIdLeavesRunningEffectsAlone() async {
        let done = Recorder<Int>()
        let effect = Effect<AppState>.on(
            CounterAction.self, id: { _ in "a" },
            operation: { action, context in
                if case .set(let n) = action {
                    await context.send(CounterAction.addWork("\(n)"))
                    done.append(n)
                }
            })
        let store = Store(initialState: AppState(), reducer: appReducer, effects: [effect])
        store.dispatch(CounterAction.set(1))
        store.cancelEffects(id: "b")
        store.cancelEffects(id: 0)
        await store.effectsIdle()
        #expect(done.values == [1])
        #expect(store.state.works == ["1"])
    }

    // MARK: Streams

    @Test(arguments: [StreamBuffering.unbounded, .coalescing])
    func aStreamReaderFarBehindGetsConsistentChanges(buffering: StreamBuffering) async {
        let store = makeStore()
        var iterator = store.changes(of: \.counter, options: .instantly, buffering: buffering).makeAsyncIterator()
        let first = await iterator.next()
        #expect(first == Change(old: 0, new: 0))
        let total = 5_000
        for _ in 0..<total { store.dispatch(CounterAction.increment) }
        var last = 0
        var elements = 0
        while last < total, let change = await iterator.next() {
            #expect(change.old == last)
            #expect(change.new > change.old)
            last = change.new
            elements += 1
        }
        #expect(last == total)
        if buffering == .unbounded { #expect(elements == total) }
    }

    @Test func anActionsStreamUnboundedKeepsEveryAction() async {
        let store = makeStore()
        var iterator = store.actions(buffering: .unbounded).makeAsyncIterator()
        // The iteration subscribes on the first `next`: start it with one action sent from a task.
        let sender = Task { await store.send(CounterAction.set(-1)) }
        _ = await iterator.next()
        await sender.value
        let total = 3_000
        for index in 0..<total { store.dispatch(CounterAction.set(index)) }
        var got: [Int] = []
        while got.count < total, let action = await iterator.next() {
            if case CounterAction.set(let n) = action { got.append(n) }
        }
        #expect(got == Array(0..<total))
    }

    // MARK: ConsumerBag from many threads

    @Test func aConsumerBagUsedFromManyThreadsCancelsEverything() {
        let store = makeStore()
        let consumer = StateConsumer<AppState>()
        let subscription = store.subscribe(consumer)
        let bag = ConsumerBag()
        let fired = Lock(0)
        DispatchQueue.concurrentPerform(iterations: 8) { thread in
            for index in 0..<500 {
                consumer.add(\.counter) { (_: Int) in fired.withLock { $0 += 1 } }.store(in: bag)
                if thread == 0 && index % 100 == 0 { _ = bag.count }
                if thread == 1 && index == 250 { store.dispatch(CounterAction.increment) }
            }
        }
        #expect(bag.count == 4_000)
        #expect(consumer.count == 4_000)
        DispatchQueue.concurrentPerform(iterations: 4) { _ in bag.removeAll() }
        #expect(bag.isEmpty)
        #expect(consumer.count == 0)
        let before = fired.withLock { $0 }
        store.dispatch(CounterAction.increment)
        #expect(fired.withLock { $0 } == before)
        subscription.cancel()
    }

    // MARK: PageStore.forwardActions

    @Test func forwardActionsManyTimesThenAfterClose() {
        let global = makeStore()
        let diagnostics = Recorder<String>()
        let page = PageStore(
            global: global, initialState: { _ in AppState() }, reducer: appReducer, diagnostics: diagnostics.append)
        let baseline = global.subscriberCount
        for _ in 0..<500 { page.forwardActions { $0 is CounterAction } }
        #expect(global.subscriberCount == baseline + 500)
        global.dispatch(CounterAction.increment)
        #expect(page.state.counter == 500)  // one listener per call: forwarded once per call
        #expect(global.state.counter == 1)
        page.close()
        #expect(global.subscriberCount == baseline)
        page.forwardActions { _ in true }
        #expect(global.subscriberCount == baseline)
        #expect(diagnostics.values.contains { $0.contains("forwardActions(where:) after close()") })
        global.dispatch(CounterAction.increment)
        #expect(page.state.counter == 500)
        #expect(global.state.counter == 2)
    }
}
