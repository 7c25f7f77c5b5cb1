import ReduxConsumer
import ReduxConsumerTestSupport
import Testing

/// `addMiddleware` builds only the new middleware: every factory runs once, so what a middleware
/// keeps in its outer closures lives as long as the store, and the earlier-added stays outer.
struct AddMiddlewareTests {
    /// A middleware tagged `tag` that records its factory's calls (`factory tag`, `next tag`) and,
    /// for each action, `tag` with the number of actions it has seen, kept in its outer closure.
    private func counting(_ tag: String, into log: Recorder<String>) -> Middleware<AppState> {
        { _, _ in
            log.append("factory \(tag)")
            return { next in
                log.append("next \(tag)")
                let seen = Recorder<Int>()
                return { action in
                    seen.append(0)
                    log.append("\(tag) \(seen.values.count)")
                    next(action)
                }
            }
        }
    }

    @Test func eachFactoryRunsOnceAndKeepsItsStateAcrossLaterAdds() {
        let factories = Recorder<String>()
        let actions = Recorder<String>()
        let log = Recorder<String>()
        let store = makeStore(middleware: [counting("a", into: log)])
        store.dispatch(CounterAction.increment)
        store.addMiddleware(counting("b", into: log))
        store.dispatch(CounterAction.increment)
        store.addMiddleware(counting("c", into: log))
        store.dispatch(CounterAction.increment)
        for entry in log.values {
            if entry.hasPrefix("factory ") || entry.hasPrefix("next ") {
                factories.append(entry)
            } else {
                actions.append(entry)
            }
        }

        #expect(factories.values == ["factory a", "next a", "factory b", "next b", "factory c", "next c"])
        // Earlier-added outer; each counts every action it saw, across the later adds.
        #expect(actions.values == ["a 1", "a 2", "b 1", "a 3", "b 2", "c 1"])
        #expect(store.state.counter == 3)
    }

    @Test func initTimeMiddlewareFactoriesRunOnceOutermostFirstInTheChain() {
        let log = Recorder<String>()
        let store = makeStore(middleware: [counting("a", into: log), counting("b", into: log)])
        store.dispatch(CounterAction.increment)
        store.addMiddleware(counting("c", into: log))
        store.dispatch(CounterAction.increment)

        let factoryCalls = log.values.filter { $0.hasPrefix("factory ") }
        #expect(factoryCalls.sorted() == ["factory a", "factory b", "factory c"])
        #expect(
            log.values.filter { !$0.hasPrefix("factory ") && !$0.hasPrefix("next ") } == [
                "a 1", "b 1", "a 2", "b 2", "c 1",
            ])
    }

    /// A growth check by call counts: `n` adds call `n` factories, not `n × (n + 1) / 2`.
    @Test func addingManyMiddlewareCallsEachFactoryOnce() {
        let calls = Recorder<Int>()
        let store = makeStore()
        let count = 200
        for index in 0..<count {
            store.addMiddleware { _, _ in
                calls.append(index)
                return { next in { next($0) } }
            }
        }
        store.dispatch(CounterAction.increment)

        #expect(calls.values == Array(0..<count))
        #expect(store.state.counter == 1)
    }

    /// A middleware's `next` kept and called later reaches the middleware added after it: `next`
    /// is the rest of the chain as it is when called.
    @Test func keptNextOfAnEarlierMiddlewareGoesThroughALaterOne() {
        let kept = Lock<DispatchFunction?>(nil)
        let keeping: Middleware<AppState> = { _, _ in
            { next in
                kept.withLock { $0 = next }
                return next
            }
        }
        let seen = Recorder<String>()
        let store = makeStore(middleware: [keeping])
        store.addMiddleware { _, _ in
            { next in
                { action in
                    seen.append("\(action)")
                    next(action)
                }
            }
        }
        kept.withLock { $0 }?(CounterAction.set(7))

        #expect(seen.values == ["set(7)"])
        #expect(store.state.counter == 7)
    }

    /// A middleware's `next`, kept in the state (a screen's state that holds a way to send on),
    /// goes with the store: the end of the chain it leads to does not hold the store's drain,
    /// which holds the published state (a cycle that LeakSanitizer found when it did).
    @Test(arguments: [false, true])
    func aNextKeptInTheStateGoesWithTheStore(addedLater: Bool) {
        final class KeptNext: Sendable {
            let next = Lock<DispatchFunction?>(nil)
        }
        struct Keeping: Sendable {
            var kept: KeptNext?
        }
        struct Keep: Action {}
        let released = WeakKeptNext()
        do {
            let kept = KeptNext()
            released.value = kept
            let saveNext: Middleware<Keeping> = { _, _ in
                { next in
                    kept.next.withLock { $0 = next }
                    return next
                }
            }
            let reducer = Reducer<Keeping> { (state, _: Keep) in state.kept = kept }
            let store =
                addedLater
                ? Store(initialState: Keeping(), reducer: reducer)
                : Store(initialState: Keeping(), reducer: reducer, middleware: [saveNext])
            if addedLater { store.addMiddleware(saveNext) }
            store.dispatch(Keep())
            #expect(store.state.kept === kept)
        }
        #expect(released.value == nil)
    }
}

/// A weak reference to the kept `next`'s holder, read after the store went (one thread).
private final class WeakKeptNext: @unchecked Sendable {
    // @unchecked: single-threaded test only.
    weak var value: AnyObject?
}
