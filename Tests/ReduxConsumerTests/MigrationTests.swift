import Dispatch
import ReduxConsumer
import ReduxConsumerTestSupport
import Testing

/// One test per row of the README's table "Coming from ReSwift or ReSwift-Consumer": the
/// ReduxConsumer form on the right behaves as the row says, differences included. When the table
/// changes, this suite changes with it.
struct MigrationTests {
    /// `Store<State>(reducer:state:middleware:)` → `Store(initialState:reducer:middleware:)`, or
    /// `Store(reSwiftReducer:state:middleware:)` for an unchanged reducer: "a `nil` state is built
    /// from a `StoreInit` action, as ReSwift does with `ReSwiftInit`".
    @Test func storeInitialisersTakeAStateOrBuildItWithStoreInit() {
        let seen = Recorder<String>()
        let reSwiftReducer: @Sendable (any Action, AppState?) -> AppState = { action, state in
            seen.append("\(type(of: action)), state \(state == nil ? "nil" : "given")")
            var state = state ?? AppState(counter: 100)
            if let action = action as? CounterAction, action == .increment {
                state.counter += 1
            }
            return state
        }

        let built = Store(reSwiftReducer: reSwiftReducer, state: nil)
        #expect(built.state.counter == 100)
        #expect(seen.values == ["StoreInit, state nil"])
        built.dispatch(CounterAction.increment)
        #expect(built.state.counter == 101)
        #expect(seen.values == ["StoreInit, state nil", "CounterAction, state given"])

        let given = Store(reSwiftReducer: reSwiftReducer, state: AppState(counter: 7))
        #expect(given.state.counter == 7)
        #expect(seen.values.count == 2, "a given state does not ask the reducer for one")

        let native = Store(initialState: AppState(counter: 3), reducer: appReducer, middleware: [])
        native.dispatch(CounterAction.increment)
        #expect(native.state.counter == 4)
    }

    /// `Action` protocol, `Reducer` function → `Action` (`Sendable`), `Reducer<State>` typed per
    /// action enum, `combine`, `scope(\.child, …)`: "actions of other types pass by a typed reducer
    /// untouched".
    @Test func typedReducersCombineScopeAndLetOtherActionsPass() {
        struct Settings: Equatable, Sendable {
            var volume = 0
        }
        struct State: Equatable, Sendable {
            var app = AppState()
            var settings = Settings()
        }
        enum SettingsAction: Action {
            case setVolume(Int)
        }
        enum Unrelated: Action {
            case ping
        }
        let reducer = Reducer<State>.combine(
            .scope(\.app, appReducer),
            .scope(
                \.settings,
                Reducer<Settings> { (settings, action: SettingsAction) in
                    switch action {
                    case .setVolume(let volume): settings.volume = volume
                    }
                }
            )
        )
        let store = Store(initialState: State(), reducer: reducer)

        store.dispatch(CounterAction.increment)
        store.dispatch(SettingsAction.setVolume(5))
        #expect(store.state == State(app: AppState(counter: 1), settings: Settings(volume: 5)))

        store.dispatch(Unrelated.ping)
        #expect(store.state == State(app: AppState(counter: 1), settings: Settings(volume: 5)))
    }

    /// `Middleware<State>` → "the same closure shape, `@Sendable`; `addMiddleware(_:)` after
    /// creation": a middleware gets `dispatch` and `getState`, wraps `next`, can swallow actions;
    /// one added later is the innermost and takes effect from the next action.
    @Test func middlewareKeepsReSwiftsShapeAndCanBeAddedLater() {
        let seen = Recorder<String>()
        let logging: Middleware<AppState> = { _, getState in
            { next in
                { action in
                    seen.append("outer before \(action), counter \(getState()?.counter ?? -1)")
                    next(action)
                    seen.append("outer after, counter \(getState()?.counter ?? -1)")
                }
            }
        }
        let swallowDecrement: Middleware<AppState> = { _, _ in
            { next in
                { action in
                    seen.append("inner \(action)")
                    if let action = action as? CounterAction, action == .decrement { return }
                    next(action)
                }
            }
        }
        let store = makeStore(middleware: [logging])
        store.dispatch(CounterAction.increment)
        store.addMiddleware(swallowDecrement)
        store.dispatch(CounterAction.decrement)

        #expect(store.state.counter == 1)
        #expect(
            seen.values == [
                "outer before increment, counter 0", "outer after, counter 1",
                "outer before decrement, counter 1", "inner decrement", "outer after, counter 1",
            ]
        )
    }

    /// `store.subscribe(self)` + `newState(state:)` → a `StateConsumer` whose members use
    /// `.instantly`, then `store.subscribe(consumer)`: "called at once with the current state,
    /// like `newState`; then only for what changed".
    @Test func instantMembersReplaceNewState() {
        let store = makeStore(AppState(counter: 7, name: "Kim"))
        let consumer = StateConsumer<AppState>()
        let seen = Recorder<String>()
        consumer.add(\.counter, options: .instantly) { old, new in seen.append("counter \(old)→\(new)") }
        consumer.add(\.name, options: .instantly) { old, new in seen.append("name \(old ?? "nil")→\(new ?? "nil")") }

        let subscription = store.subscribe(consumer)
        #expect(seen.values == ["counter 7→7", "name Kim→Kim"])

        store.dispatch(CounterAction.addWork("unwatched"))
        store.dispatch(CounterAction.increment)
        #expect(seen.values == ["counter 7→7", "name Kim→Kim", "counter 7→8"])
        subscription.cancel()
    }

    /// `store.subscribe { old, new in … }`: "not called at subscription; called after *every*
    /// action, even one that changed nothing".
    @Test func closureSubscribersHearEveryActionButNotTheSubscription() {
        let store = makeStore(AppState(counter: 7))
        let seen = Recorder<String>()
        let subscription = store.subscribe { old, new in seen.append("\(old.counter)→\(new.counter)") }
        #expect(seen.values.isEmpty)

        store.dispatch(CounterAction.set(7))
        store.dispatch(CounterAction.increment)
        #expect(seen.values == ["7→7", "7→8"])
        subscription.cancel()
    }

    /// `store.subscribe(self)` twice → `store.subscribe(consumer)` twice: "harmless, as in ReSwift:
    /// fed once, counted once; it stays subscribed until every returned handle is cancelled".
    @Test func subscribingAConsumerTwiceIsHarmless() {
        let store = makeStore()
        let consumer = StateConsumer<AppState>()
        let seen = Recorder<String>()
        consumer.add(\.counter) { old, new in seen.append("\(old)→\(new)") }

        let first = store.subscribe(consumer)
        let second = store.subscribe(consumer)
        #expect(store.subscriberCount == 1)
        store.dispatch(CounterAction.increment)
        #expect(seen.values == ["0→1"])

        first.cancel()
        #expect(store.subscriberCount == 1)
        store.dispatch(CounterAction.increment)
        #expect(seen.values == ["0→1", "1→2"])

        second.cancel()
        #expect(store.subscriberCount == 0)
        store.dispatch(CounterAction.increment)
        #expect(seen.values == ["0→1", "1→2"])
    }

    /// A middleware that only watches actions → `store.observeActions { action in … }`: "called
    /// after each reduced action, after the subscribers" (an action a middleware swallowed is not
    /// reduced, so not heard).
    @Test func actionListenersComeAfterTheSubscribers() {
        let swallowDecrement: Middleware<AppState> = { _, _ in
            { next in
                { action in
                    if let action = action as? CounterAction, action == .decrement { return }
                    next(action)
                }
            }
        }
        let store = makeStore(middleware: [swallowDecrement])
        let seen = Recorder<String>()
        let listener = store.observeActions { action in seen.append("listener \(action)") }
        let subscriber = store.subscribe { _, new in seen.append("subscriber \(new.counter)") }

        store.dispatch(CounterAction.increment)
        store.dispatch(CounterAction.decrement)

        #expect(seen.values == ["subscriber 1", "listener increment"])
        listener.cancel()
        subscriber.cancel()
    }

    /// `StateConsumer.add({ $0.counter }, onCounterChanged)` → `consumer.add(\.counter) { old, new
    /// in … }` (key paths or closures, `{ new in }` and `{ old, new, state in }` too): "a new member
    /// starts from the value it first sees and does **not** fire for it (ReSwift-Consumer fires
    /// with `old = nil`); add `.instantly` for that first call, with `old == new`".
    @Test func newMembersStartFromTheFirstValueTheySee() {
        let consumer = StateConsumer<AppState>()
        let seen = Recorder<String>()
        consumer.add(\.counter) { old, new in seen.append("key path \(old)→\(new)") }
        consumer.add({ $0.counter }) { old, new in seen.append("closure \(old)→\(new)") }
        consumer.add(\.counter) { new in seen.append("new-only \(new)") }
        consumer.add(\.counter) { old, new, state in seen.append("with state \(old)→\(new) (\(state.counter))") }
        consumer.add(\.counter, options: .instantly) { old, new in seen.append("instantly \(old)→\(new)") }

        consumer.consume(newState: AppState(counter: 3))
        #expect(seen.values == ["instantly 3→3"])

        consumer.consume(newState: AppState(counter: 4))
        #expect(
            seen.values == [
                "instantly 3→3", "key path 3→4", "closure 3→4", "new-only 4", "with state 3→4 (4)", "instantly 3→4",
            ]
        )
    }

    /// "predict" consumers → `consumer.add(\.value, isEqual: { … }) { old, new in … }`: "`isEqual`
    /// replaces `==`; its `old` is the last value *delivered*".
    @Test func isEqualReplacesEqualityAndComparesWithTheLastDeliveredValue() {
        let consumer = StateConsumer<AppState>()
        let close = Recorder<String>()
        let never = Recorder<String>()
        consumer.add(\.counter, isEqual: { abs($0 - $1) <= 1 }) { old, new in close.append("\(old)→\(new)") }
        consumer.add(\.counter, isEqual: { _, _ in false }) { old, new in never.append("\(old)→\(new)") }

        for counter in [0, 1, 2, 2, 3] {
            consumer.consume(newState: AppState(counter: counter))
        }

        // 1 is close to 0 (no call); 2 is compared with 0, the last delivered value, not with 1.
        #expect(close.values == ["0→2"])
        // `==` is not consulted: equal values fire too.
        #expect(never.values == ["0→1", "1→2", "2→2", "2→3"])
    }

    /// `consumeInstantly` → `consumer.add(\.value, options: .instantly) { … }`: "fires once in the
    /// member's life, at its first state; not again on a later subscription".
    @Test func instantlyFiresOnceInAMembersLife() {
        let store = makeStore(AppState(counter: 7))
        let consumer = StateConsumer<AppState>()
        let seen = Recorder<String>()
        consumer.add(\.counter, options: .instantly) { old, new in seen.append("\(old)→\(new)") }

        store.subscribe(consumer).cancel()
        #expect(seen.values == ["7→7"])

        let again = store.subscribe(consumer)
        #expect(seen.values == ["7→7"])
        store.dispatch(CounterAction.increment)
        #expect(seen.values == ["7→7", "7→8"])
        again.cancel()
    }

    /// `ConsumerBag` → `ConsumerBag`, plus `token.store(in: bag)`: "the bag cancels everything when
    /// it is emptied or released".
    @Test func bagsCancelEverythingWhenEmptiedOrReleased() {
        let store = makeStore()
        let consumer = StateConsumer<AppState>()
        let seen = Recorder<String>()
        let bag = ConsumerBag()
        consumer.add(\.counter) { _, new in seen.append("emptied bag \(new)") }.store(in: bag)
        store.subscribe { _, new in seen.append("emptied bag subscriber \(new.counter)") }.store(in: bag)
        var released: ConsumerBag? = ConsumerBag()
        if let released {
            consumer.add(\.counter) { _, new in seen.append("released bag \(new)") }.store(in: released)
        }
        let subscription = store.subscribe(consumer)

        store.dispatch(CounterAction.increment)
        bag.removeAll()
        store.dispatch(CounterAction.increment)
        released = nil
        store.dispatch(CounterAction.increment)

        #expect(
            seen.values == [
                "emptied bag subscriber 1", "emptied bag 1", "released bag 1", "released bag 2",
            ]
        )
        #expect(consumer.count == 0)
        #expect(store.subscriberCount == 1)
        subscription.cancel()
    }

    /// `RePageController`, `PageStoreSubscriber` → `PageStore<PageState, AppState>`: "lives exactly
    /// as long as its owner".
    @Test func pageStoresLiveExactlyAsLongAsTheirOwner() {
        let global = makeRootStore()
        let log = Recorder<String>()
        var screen: MainScreen? = MainScreen(global: global, log: log)
        weak let page = screen?.page
        #expect(global.subscriberCount == 1)

        screen?.page.dispatch(MainAction.increment)
        global.dispatch(LifecycleAction.enterForeground)
        #expect(log.values == ["count: 0 → 1", "foreground: false → true"])

        screen = nil
        #expect(page == nil)
        #expect(global.subscriberCount == 0)
        global.dispatch(LifecycleAction.enterBackground)
        #expect(log.values == ["count: 0 → 1", "foreground: false → true"])
    }

    /// Callbacks on `DispatchQueue.main.async` → "synchronous by default;
    /// `StateConsumer(deliveringOn: .main)` to hop": "a queue that falls behind gets merged
    /// changes" (the first `old`, the latest `new`). A private serial queue stands in for `.main`.
    @Test func callbacksAreSynchronousUnlessAQueueIsGiven() {
        let store = makeStore()
        let synchronous = StateConsumer<AppState>()
        let seen = Recorder<String>()
        synchronous.add(\.counter) { old, new in seen.append("sync \(old)→\(new)") }
        let queue = DispatchQueue(label: "MigrationTests.delivery")
        let hopping = StateConsumer<AppState>(deliveringOn: queue)
        hopping.add(\.counter) { old, new in seen.append("queue \(old)→\(new)") }
        let subscriptions = [store.subscribe(synchronous), store.subscribe(hopping)]

        queue.suspend()
        store.dispatch(CounterAction.increment)
        #expect(seen.values == ["sync 0→1"], "called before dispatch returned")
        store.dispatch(CounterAction.increment)
        store.dispatch(CounterAction.increment)
        queue.resume()
        queue.sync {}

        #expect(seen.values == ["sync 0→1", "sync 1→2", "sync 2→3", "queue 0→3"])
        for subscription in subscriptions { subscription.cancel() }
    }
}
