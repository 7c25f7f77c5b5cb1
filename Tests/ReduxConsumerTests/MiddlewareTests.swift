import Dispatch
import ReduxConsumer
import ReduxConsumerTestSupport
import Testing

struct MiddlewareTests {
    @Test func middlewareSeesTheActionBeforeTheReducerAndTheStateAfter() {
        let log = Recorder<String>()
        let logging: Middleware<AppState> = { _, getState in
            { next in
                { action in
                    log.append("before \(action): \(getState()?.counter ?? -1)")
                    next(action)
                    log.append("after: \(getState()?.counter ?? -1)")
                }
            }
        }
        let store = makeStore(middleware: [logging])
        store.dispatch(CounterAction.increment)
        #expect(log.values == ["before increment: 0", "after: 1"])
    }

    @Test func middlewareRunsOutermostFirst() {
        let order = Recorder<String>()
        func tagging(_ tag: String) -> Middleware<AppState> {
            { _, _ in
                { next in
                    { action in
                        order.append(tag)
                        next(action)
                    }
                }
            }
        }
        let store = makeStore(middleware: [tagging("outer"), tagging("inner")])
        store.dispatch(CounterAction.increment)
        #expect(order.values == ["outer", "inner"])
    }

    @Test func middlewareCanSwallowAndTransformActions() {
        let filter: Middleware<AppState> = { _, _ in
            { next in
                { action in
                    switch action as? CounterAction {
                    case .decrement?: return
                    case .set(let value)?: next(CounterAction.set(min(value, 100)))
                    default: next(action)
                    }
                }
            }
        }
        let store = makeStore(middleware: [filter])
        store.dispatch(CounterAction.decrement)
        #expect(store.state.counter == 0)
        store.dispatch(CounterAction.set(1_000))
        #expect(store.state.counter == 100)
    }

    @Test func middlewareCanDelayAnActionToAnotherThread() {
        let delivered = DispatchSemaphore(value: 0)
        let delay: Middleware<AppState> = { _, _ in
            { next in
                { action in
                    DispatchQueue.global().async { next(action) }
                }
            }
        }
        let store = makeStore(middleware: [delay])
        let subscription = store.subscribe { _, _ in delivered.signal() }
        guard
            finishesWithoutDeadlock({
                store.dispatch(CounterAction.increment)
                delivered.wait()
            })
        else { return }
        #expect(store.state.counter == 1)
        subscription.cancel()
    }

    @Test func middlewareAddedAfterCreationSeesLaterActions() {
        let store = makeStore()
        store.dispatch(CounterAction.increment)
        let seen = Recorder<String>()
        store.addMiddleware { _, _ in
            { next in
                { action in
                    seen.append("\(action)")
                    next(action)
                }
            }
        }
        store.dispatch(CounterAction.rename("Kim"))
        #expect(seen.values == [#"rename(Optional("Kim"))"#])
        #expect(store.state == AppState(counter: 1, name: "Kim"))
    }

    @Test func getStateIsNilOnceTheStoreIsGone() {
        let getter = Lock<GetState<AppState>?>(nil)
        let capture: Middleware<AppState> = { _, getState in
            getter.withLock { $0 = getState }
            return { next in next }
        }
        do {
            let store = makeStore(AppState(counter: 3), middleware: [capture])
            withExtendedLifetime(store) {
                #expect(getter.withLock { $0 }?()?.counter == 3)
            }
        }
        #expect(getter.withLock { $0 }?() == nil)
    }
}
