import Dispatch
import ReduxConsumer
import ReduxConsumerTestSupport
import Testing

/// A middleware that keeps its `next` (ReSwift's delayed-action and buffering pattern) and calls it
/// from the store's own reducer, callbacks or listeners: the action joins the store's queue and
/// runs right after the current one, through the rest of the chain, as a dispatch made there
/// would. Never inside the reducer or the callbacks of another action. (Found by translating
/// ReSwift's middleware tests.)
struct KeptNextTests {
    /// Keeps the `next` it is given in `kept`; passes every action on.
    private static func keeping(_ kept: Slot<DispatchFunction?>) -> Middleware<AppState> {
        { _, _ in
            { next in
                kept.value = next
                return { action in next(action) }
            }
        }
    }

    @Test func aKeptNextCalledFromAConsumerRunsAfterTheAction() {
        let kept = Slot<DispatchFunction?>(nil)
        let store = makeStore(middleware: [Self.keeping(kept)])
        let log = Recorder<String>()
        let consumer = StateConsumer<AppState>()
        consumer.add(\.counter) { old, new in
            log.append("a \(old)→\(new)")
            if new == 1 { kept.value?(CounterAction.set(2)) }
        }
        consumer.add(\.counter) { old, new in log.append("b \(old)→\(new)") }
        let subscription = store.subscribe(consumer)
        store.dispatch(CounterAction.set(1))
        #expect(log.values == ["a 0→1", "b 0→1", "a 1→2", "b 1→2"])
        subscription.cancel()
    }

    @Test func aKeptNextCalledFromASubscriberRunsAfterTheAction() {
        let kept = Slot<DispatchFunction?>(nil)
        let store = makeStore(middleware: [Self.keeping(kept)])
        let log = Recorder<String>()
        let first = store.subscribe { old, new in
            log.append("first \(old.counter)→\(new.counter)")
            if new.counter == 1 { kept.value?(CounterAction.set(2)) }
        }
        let second = store.subscribe { old, new in log.append("second \(old.counter)→\(new.counter)") }
        store.dispatch(CounterAction.set(1))
        #expect(log.values == ["first 0→1", "second 0→1", "first 1→2", "second 1→2"])
        first.cancel()
        second.cancel()
    }

    @Test func aKeptNextCalledFromAListenerRunsAfterTheAction() {
        let kept = Slot<DispatchFunction?>(nil)
        let store = makeStore(middleware: [Self.keeping(kept)])
        let log = Recorder<String>()
        let first = store.observeActions { action in
            log.append("first \(action)")
            if case CounterAction.set(1)? = action as? CounterAction { kept.value?(CounterAction.set(2)) }
            log.append("first returned")
        }
        let second = store.observeActions { action in log.append("second \(action)") }
        store.dispatch(CounterAction.set(1))
        #expect(
            log.values == [
                "first set(1)", "first returned", "second set(1)", "first set(2)", "first returned", "second set(2)",
            ])
        first.cancel()
        second.cancel()
    }

    @Test func aKeptNextCalledFromTheReducerRunsAfterIt() {
        let kept = Slot<DispatchFunction?>(nil)
        let log = Recorder<String>()
        let reducer = Reducer<AppState> { (state, action: CounterAction) in
            guard case .set(let value) = action else { return }
            log.append("reduce \(value) begins")
            if value == 1 { kept.value?(CounterAction.set(2)) }
            state.counter = value
            log.append("reduce \(value) ends")
        }
        let store = Store(initialState: AppState(), reducer: reducer, middleware: [Self.keeping(kept)])
        store.dispatch(CounterAction.set(1))
        #expect(log.values == ["reduce 1 begins", "reduce 1 ends", "reduce 2 begins", "reduce 2 ends"])
        #expect(store.state.counter == 2)
    }

    /// The kept `next` of an outer middleware runs the inner ones too, as the store's processing
    /// of the action: after the current action, one action at a time.
    @Test func aKeptNextRunsTheInnerMiddlewareInTheStoresOrder() {
        let kept = Slot<DispatchFunction?>(nil)
        let log = Recorder<String>()
        let inner: Middleware<AppState> = { _, getState in
            { next in
                { action in
                    log.append("inner \(action) at \(getState()?.counter ?? -1)")
                    next(action)
                }
            }
        }
        let store = makeStore(middleware: [Self.keeping(kept), inner])
        let subscription = store.subscribe { _, new in
            log.append("heard \(new.counter)")
            if new.counter == 1 { kept.value?(CounterAction.set(2)) }
            log.append("returned")
        }
        store.dispatch(CounterAction.set(1))
        #expect(
            log.values == ["inner set(1) at 0", "heard 1", "returned", "inner set(2) at 1", "heard 2", "returned"])
        subscription.cancel()
    }

    /// A middleware may still call `next` several times while it runs (ReSwift's contract): each
    /// call reduces at once.
    @Test func nextCalledTwiceWhileTheChainRunsReducesTwiceAtOnce() {
        let log = Recorder<String>()
        let twice: Middleware<AppState> = { _, getState in
            { next in
                { action in
                    next(action)
                    log.append("after first \(getState()?.counter ?? -1)")
                    next(action)
                    log.append("after second \(getState()?.counter ?? -1)")
                }
            }
        }
        let store = makeStore(middleware: [twice])
        store.dispatch(CounterAction.increment)
        #expect(log.values == ["after first 1", "after second 2"])
    }

    /// A kept `next` called from every callback is a chain like a dispatch on every change: it
    /// stops at the chain limit with a diagnostic, instead of recursing.
    @Test func aKeptNextCalledOnEveryChangeStopsAtTheChainLimit() {
        let kept = Slot<DispatchFunction?>(nil)
        let diagnostics = Recorder<String>()
        let store = Store(
            initialState: AppState(), reducer: appReducer, middleware: [Self.keeping(kept)],
            diagnostics: diagnostics.append)
        let subscription = store.subscribe { _, _ in kept.value?(CounterAction.increment) }
        store.dispatch(CounterAction.increment)
        #expect(store.state.counter == Store<AppState>.chainLimit + 1)
        #expect(diagnostics.values.count == 1)
        #expect(diagnostics.values.first?.contains("chain") == true)
        subscription.cancel()
    }
}
