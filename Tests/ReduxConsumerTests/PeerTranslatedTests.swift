import Dispatch
import Foundation
import ReduxConsumer
import ReduxConsumerTestSupport
import Testing

// Translations of the peers' own test suites (ReSwift's `ReSwiftTests/*.swift`, ReSwift-Consumer's
// `Example/Tests/PredictConsumerTests.swift`) to this library's API. Each test names the peer test
// it comes from. Where this library deliberately differs (README, "Coming from ReSwift or
// ReSwift-Consumer", "Consumers", "Tokens and lifetimes", "Threads and re-entrancy"), the test
// checks the documented behaviour and says so.
//
// ReSwift's `StoreSubscriber.newState(state:)` is called at subscription and then for every state
// (skipping repeats only when asked or when the selected value is Equatable). Its translations:
// - "called at subscription, then on change"       → a member with `.instantly`;
// - "called at subscription, then on every state"  → a member with `[.instantly, .pulse]`;
// - "`skipRepeats { … }` / `skip(when:)` / `only(when:)`" → a member with `isEqual:`.

// MARK: - Fixtures (ReSwift's TestFakes.swift)

private struct TestAppState: Sendable, Equatable {
    var testValue: Int? = nil
}

private struct TestStringAppState: Sendable, Equatable {
    var testValue = "Initial"
}

private struct NonEquatable: Sendable {
    var testValue = "Initial"
}

private struct TestNonEquatable: Sendable {
    var testValue = NonEquatable()
}

private struct TestCustomAppState: Sendable {
    struct TestCustomSubstate: Sendable {
        var value: Int
    }
    var substate: TestCustomSubstate

    init(substateValue value: Int = 0) {
        substate = TestCustomSubstate(value: value)
    }
}

private struct OtherState: Sendable {
    var name: String?
    var age: Int?
}

private struct TestComplexAppState: Sendable {
    var testValue: Int?
    var otherState: OtherState?
}

private struct NoOpAction: Action {}
private struct TracerAction: Action {}

private struct SetValueAction: Action {
    let value: Int?
    init(_ value: Int?) { self.value = value }
}

private struct SetValueStringAction: Action {
    var value: String
    init(_ value: String) { self.value = value }
}

private struct SetCustomSubstateAction: Action {
    var value: Int
    init(_ value: Int) { self.value = value }
}

private struct SetNonEquatableAction: Action {
    var value: NonEquatable
    init(_ value: NonEquatable) { self.value = value }
}

private struct SetOtherStateAction: Action {
    var otherState: OtherState
}

private let testReducer: @Sendable (any Action, TestAppState?) -> TestAppState = { action, state in
    var state = state ?? TestAppState()
    if let action = action as? SetValueAction {
        state.testValue = action.value
    }
    return state
}

private let testValueStringReducer: @Sendable (any Action, TestStringAppState?) -> TestStringAppState = {
    action, state in
    var state = state ?? TestStringAppState()
    if let action = action as? SetValueStringAction {
        state.testValue = action.value
    }
    return state
}

private let testCustomAppStateReducer: @Sendable (any Action, TestCustomAppState?) -> TestCustomAppState = {
    action, state in
    var state = state ?? TestCustomAppState()
    if let action = action as? SetCustomSubstateAction {
        state.substate.value = action.value
    }
    return state
}

private let testNonEquatableReducer: @Sendable (any Action, TestNonEquatable?) -> TestNonEquatable = {
    action, state in
    var state = state ?? TestNonEquatable()
    if let action = action as? SetNonEquatableAction {
        state.testValue = action.value
    }
    return state
}

private let testComplexAppStateReducer: @Sendable (any Action, TestComplexAppState?) -> TestComplexAppState = {
    action, state in
    var state = state ?? TestComplexAppState()
    switch action {
    case let action as SetValueAction: state.testValue = action.value
    case let action as SetOtherStateAction: state.otherState = action.otherState
    default: break
    }
    return state
}

// MARK: Middleware fakes (ReSwift's StoreMiddlewareTests.swift / MiddlewareFakes.swift)

private let firstMiddleware: Middleware<TestStringAppState> = { _, _ in
    { next in
        { action in
            if var action = action as? SetValueStringAction {
                action.value += " First Middleware"
                next(action)
            } else {
                next(action)
            }
        }
    }
}

private let secondMiddleware: Middleware<TestStringAppState> = { _, _ in
    { next in
        { action in
            if var action = action as? SetValueStringAction {
                action.value += " Second Middleware"
                next(action)
            } else {
                next(action)
            }
        }
    }
}

private let dispatchingMiddleware: Middleware<TestStringAppState> = { dispatch, _ in
    { next in
        { action in
            if let action = action as? SetValueAction {
                dispatch(SetValueStringAction("\(action.value ?? 0)"))
            }
            next(action)
        }
    }
}

private let stateAccessingMiddleware: Middleware<TestStringAppState> = { dispatch, getState in
    { next in
        { action in
            let appState = getState()
            let stringAction = action as? SetValueStringAction
            // avoid endless recursion by checking if we've dispatched exactly this action
            if appState?.testValue == "OK" && stringAction?.value != "Not OK" {
                dispatch(SetValueStringAction("Not OK"))
                next(NoOpAction())  // and swallow the current one
            } else {
                next(action)
            }
        }
    }
}

// MARK: Helpers

/// An object whose release is observable through a weak reference.
private final class Probe: Sendable {}

/// A user-land thunk, as ReSwift-Thunk's `Thunk<State>`.
private struct Thunk<State: Sendable>: Action {
    let body: @Sendable (_ dispatch: @escaping DispatchFunction, _ getState: @escaping GetState<State>) -> Void
}

private func createThunkMiddleware<State: Sendable>() -> Middleware<State> {
    { dispatch, getState in
        { next in
            { action in
                if let thunk = action as? Thunk<State> {
                    thunk.body(dispatch, getState)
                } else {
                    next(action)
                }
            }
        }
    }
}

// MARK: - Suite

@Suite struct PeerTranslatedTests {

    // MARK: StoreTests.swift

    /// ReSwift `StoreTests.testInit`: a store given no state builds it from an init action.
    @Test func storeInitDispatchesStoreInitWhenStateIsNil() {
        let actions = Recorder<String>()
        let reducer: @Sendable (any Action, TestAppState?) -> TestAppState = { action, state in
            actions.append(String(describing: type(of: action)))
            return testReducer(action, state)
        }
        let store = Store(reSwiftReducer: reducer, state: nil)
        #expect(actions.values == ["StoreInit"])
        #expect(store.state == TestAppState())

        store.dispatch(SetValueAction(1))
        #expect(actions.values == ["StoreInit", "SetValueAction"])
        #expect(store.state.testValue == 1)
    }

    /// ReSwift `StoreTests.testDeinit`: a store deinitialises when no reference is held — here also
    /// with middleware, a closure subscriber, a subscribed consumer and an action listener, whose
    /// handles the test keeps ("tokens … do not keep their store alive").
    @Test func storeDeinitialisesWhenNoReferenceIsHeld() {
        weak var weakStore: Store<TestAppState>?
        weak var weakConsumer: StateConsumer<TestAppState>?
        var handles: [Subscription] = []
        let heard = Recorder<Int?>()
        do {
            let logging: Middleware<TestAppState> = { _, _ in { next in { action in next(action) } } }
            let store = Store(reSwiftReducer: testReducer, state: TestAppState(), middleware: [logging])
            let consumer = StateConsumer<TestAppState>()
            consumer.add(\.testValue) { _, new in heard.append(new) }
            handles.append(store.subscribe(consumer))
            handles.append(store.subscribe { _, _ in })
            handles.append(store.observeActions { _ in })
            store.dispatch(SetValueAction(1))
            weakStore = store
            weakConsumer = consumer
        }
        #expect(heard.values == [1])
        #expect(weakStore == nil, "the store outlived its last reference")
        #expect(weakConsumer == nil, "the consumer outlived the store that kept it")
        for handle in handles { handle.cancel() }  // harmless once the store is gone
    }

    // MARK: StoreSubscriptionTests.swift

    /// ReSwift `StoreSubscriptionTests.testDoesNotCaptureStrongly`. Deliberate difference: ReSwift
    /// holds subscribers weakly; here "a store keeps a subscribed `StateConsumer` alive until the
    /// subscription ends".
    @Test func storeKeepsASubscribedConsumerUntilTheSubscriptionEnds() {
        let store = Store(reSwiftReducer: testReducer, state: TestAppState())
        let heard = Recorder<Int?>()
        weak var weakConsumer: StateConsumer<TestAppState>?
        let subscription: Subscription
        do {
            let consumer = StateConsumer<TestAppState>()
            consumer.add(\.testValue) { _, new in heard.append(new) }
            subscription = store.subscribe(consumer)
            weakConsumer = consumer
        }
        #expect(store.subscriberCount == 1)
        #expect(weakConsumer != nil)
        store.dispatch(SetValueAction(1))
        #expect(heard.values == [1])

        subscription.cancel()
        #expect(store.subscriberCount == 0)
        #expect(weakConsumer == nil, "the store kept the consumer after the subscription ended")
        store.dispatch(SetValueAction(2))
        #expect(heard.values == [1])
    }

    /// ReSwift `StoreSubscriptionTests.testRemoveSubscribers`. Deliberate difference: ReSwift
    /// drops a subscriber when it is deallocated; here "keeping or dropping a token changes
    /// nothing; a registration lasts until it is cancelled".
    @Test func subscribersAreRemovedByCancelNotByDroppingTheHandle() {
        let store = Store(reSwiftReducer: testReducer, state: TestAppState())
        let received1 = Recorder<Int?>()
        let received2 = Recorder<Int?>()
        let dropped = Recorder<Int?>()
        let subscription1 = store.subscribe { _, new in received1.append(new.testValue) }
        let subscription2 = store.subscribe { _, new in received2.append(new.testValue) }
        _ = store.subscribe { _, new in dropped.append(new.testValue) }

        store.dispatch(SetValueAction(3))
        #expect(store.subscriberCount == 3)
        #expect(received1.last == 3)
        #expect(received2.last == 3)

        subscription1.cancel()
        store.dispatch(SetValueAction(5))
        #expect(store.subscriberCount == 2)
        #expect(received1.values == [3])
        #expect(received2.last == 5)

        subscription2.cancel()
        store.dispatch(SetValueAction(8))
        #expect(store.subscriberCount == 1)
        #expect(received2.values == [3, 5])
        #expect(dropped.values == [3, 5, 8], "a dropped handle must not end the subscription")
    }

    /// ReSwift `StoreSubscriptionTests.testDuplicateSubscription`. Deliberate difference: ReSwift
    /// replaces the first subscription (and delivers an initial state per subscribe); here
    /// subscribing twice is "harmless …: fed once, counted once", and `.instantly` fires "once in
    /// its life".
    @Test func duplicateSubscriptionIsFedOnce() {
        let store = Store(reSwiftReducer: testReducer, state: TestAppState())
        let consumer = StateConsumer<TestAppState>()
        let received = Recorder<Int?>()
        consumer.add(\.testValue, options: .instantly) { _, new in received.append(new) }

        let first = store.subscribe(consumer)
        let second = store.subscribe(consumer)
        #expect(received.count == 1)
        #expect(store.subscriberCount == 1)

        for _ in 0..<4 {
            store.dispatch(SetValueAction(3))
        }
        #expect(received.values == [nil, 3])
        first.cancel()
        second.cancel()
        #expect(store.subscriberCount == 0)
    }

    /// ReSwift `StoreSubscriptionTests.testDispatchInitialValue` (and the old Quick spec
    /// "dispatches initial value upon subscription"): with `.instantly` as README's migration table
    /// says; a closure subscriber is documented not to be called at subscription.
    @Test func dispatchesInitialValueUponSubscription() {
        let store = Store(reSwiftReducer: testReducer, state: TestAppState())
        let consumer = StateConsumer<TestAppState>()
        let received = Recorder<String>()
        consumer.add(\.testValue, options: .instantly) { old, new in received.append("\(old as Any)→\(new as Any)") }
        let closureStates = Recorder<Int?>()

        let subscription = store.subscribe(consumer)
        let closureSubscription = store.subscribe { _, new in closureStates.append(new.testValue) }
        #expect(received.values == ["nil→nil"])
        #expect(closureStates.values.isEmpty)

        store.dispatch(SetValueAction(3))
        #expect(received.values == ["nil→nil", "nil→Optional(3)"])
        #expect(closureStates.values == [3])
        subscription.cancel()
        closureSubscription.cancel()
    }

    /// ReSwift `StoreSubscriptionTests.testAllowDispatchWithinObserver`, with a closure subscriber
    /// (ReSwift's `DispatchingSubscriber`): the nested dispatch is queued, runs right after, and
    /// the outer `dispatch` has returned only when it is done.
    @Test func allowsDispatchingFromWithinAClosureSubscriber() {
        let store = Store(reSwiftReducer: testReducer, state: TestAppState())
        let seen = Recorder<Int?>()
        let subscription = store.subscribe { [weak store] _, new in
            seen.append(new.testValue)
            if new.testValue != 5 {
                store?.dispatch(SetValueAction(5))
            }
        }
        store.dispatch(SetValueAction(2))
        #expect(store.state.testValue == 5)
        #expect(seen.values == [2, 5])
        subscription.cancel()
    }

    /// ReSwift `StoreSubscriptionTests.testAllowDispatchWithinObserver`, with a consumer member.
    @Test func allowsDispatchingFromWithinAConsumer() {
        let store = Store(reSwiftReducer: testReducer, state: TestAppState())
        let consumer = StateConsumer<TestAppState>()
        let seen = Recorder<String>()
        consumer.add(\.testValue) { [weak store] old, new in
            seen.append("\(old ?? -1)→\(new ?? -1)")
            if new != 5 {
                store?.dispatch(SetValueAction(5))
            }
        }
        let subscription = store.subscribe(consumer)
        store.dispatch(SetValueAction(2))
        #expect(store.state.testValue == 5)
        #expect(seen.values == ["-1→2", "2→5"])
        subscription.cancel()
    }

    /// ReSwift `StoreSubscriptionTests.testDontDispatchToUnsubscribers`. Same four values as in
    /// ReSwift (5, 10, 25, 20): `.instantly` gives the first; the re-subscription gives 25 because
    /// "a consumer that comes back to a store hears what changed while it was away".
    @Test func doesNotNotifyAfterUnsubscribingAndCatchesUpWhenSubscribedAgain() {
        let store = Store(reSwiftReducer: testReducer, state: TestAppState())
        let consumer = StateConsumer<TestAppState>()
        let received = Recorder<String>()
        consumer.add(\.testValue, options: .instantly) { old, new in received.append("\(old ?? -1)→\(new ?? -1)") }

        store.dispatch(SetValueAction(5))
        let first = store.subscribe(consumer)
        store.dispatch(SetValueAction(10))
        first.cancel()
        // missed while not subscribed:
        store.dispatch(SetValueAction(15))
        store.dispatch(SetValueAction(25))
        let second = store.subscribe(consumer)
        store.dispatch(SetValueAction(20))

        #expect(received.values == ["5→5", "5→10", "10→25", "25→20"])
        second.cancel()
    }

    /// ReSwift `StoreSubscriptionTests.testIgnoreIdenticalSubscribers` and
    /// `testIgnoreIdenticalSubstateSubscribers`.
    @Test func ignoresIdenticalSubscribers() {
        let store = Store(reSwiftReducer: testReducer, state: TestAppState())
        let consumer = StateConsumer<TestAppState>()
        consumer.add(\.testValue) { _, _ in }
        let handles = [store.subscribe(consumer), store.subscribe(consumer)]
        #expect(store.subscriberCount == 1)

        let selecting = StateConsumer<TestAppState>()
        selecting.add({ $0.testValue }) { _, _ in }
        let more = [store.subscribe(selecting), store.subscribe(selecting)]
        #expect(store.subscriberCount == 2)
        for handle in handles + more { handle.cancel() }
        #expect(store.subscriberCount == 0)
    }

    /// ReSwift `StoreSubscriptionTests.testNewStateModifyingSubscriptionsDoesNotDiscardNewSubscription`
    /// (#325): a subscriber that subscribes another one and dispatches during its callback loses
    /// neither subscription.
    @Test func subscribingAndDispatchingInsideACallbackKeepsBothSubscriptions() {
        let store = Store(reSwiftReducer: testReducer, state: TestAppState())
        let consumer2 = StateConsumer<TestAppState>()
        let heard2 = Recorder<String>()
        consumer2.add(\.testValue) { old, new in heard2.append("\(old ?? -1)→\(new ?? -1)") }
        let subscription2 = Slot<Subscription?>(nil)

        let consumer1 = StateConsumer<TestAppState>()
        let heard1 = Recorder<Int?>()
        consumer1.add(\.testValue) { [weak store] _, new in
            heard1.append(new)
            guard new == 1, let store else { return }
            subscription2.value = store.subscribe(consumer2)
            store.dispatch(SetValueAction(2))
        }
        let subscription1 = store.subscribe(consumer1)

        store.dispatch(SetValueAction(1))
        #expect(store.subscriberCount == 2)
        #expect(store.state.testValue == 2)
        #expect(heard1.values == [1, 2])
        #expect(heard2.values == ["1→2"], "consumer2 starts from the state it was fed at subscription")

        store.dispatch(SetValueAction(3))
        #expect(heard1.values == [1, 2, 3])
        #expect(heard2.values == ["1→2", "2→3"])
        subscription1.cancel()
        subscription2.value?.cancel()
        #expect(store.subscriberCount == 0)
    }

    /// ReSwift `StoreSubscriptionTests.testRetainCycle_OriginalSubscription`: a subscriber told of
    /// every state (`[.instantly, .pulse]`), unsubscribed, hears nothing more, and everything it
    /// held is freed with the store.
    @Test func retainCycleOriginalSubscription() {
        weak var weakStore: Store<TestAppState>?
        weak var weakProbe: Probe?
        let received = Recorder<Int?>()
        do {
            let store = Store(reSwiftReducer: testReducer, state: TestAppState())
            let consumer = StateConsumer<TestAppState>()
            let probe = Probe()
            weakProbe = probe
            #expect(received.count == 0)
            #expect(store.subscriberCount == 0)

            consumer.add(\.self, options: [.instantly, .pulse]) { _, new in
                withExtendedLifetime(probe) { received.append(new.testValue) }
            }
            let subscription = store.subscribe(consumer)
            #expect(received.count == 1)
            store.dispatch(TracerAction())
            #expect(received.count == 2)
            subscription.cancel()

            #expect(store.subscriberCount == 0)
            store.dispatch(TracerAction())
            #expect(received.count == 2)
            weakStore = store
        }
        #expect(weakStore == nil)
        #expect(weakProbe == nil)
    }

    /// ReSwift `StoreSubscriptionTests.testRetainCycle_TransformedSubscription`: the same with a
    /// selected sub-state and no skipping of repeats (`.pulse`).
    @Test func retainCycleTransformedSubscription() {
        weak var weakStore: Store<TestAppState>?
        weak var weakProbe: Probe?
        let received = Recorder<Int?>()
        do {
            let store = Store(reSwiftReducer: testReducer, state: TestAppState())
            let consumer = StateConsumer<TestAppState>()
            let probe = Probe()
            weakProbe = probe
            consumer.add({ $0.testValue }, options: [.instantly, .pulse]) { _, new in
                withExtendedLifetime(probe) { received.append(new) }
            }
            let subscription = store.subscribe(consumer)
            #expect(received.count == 1)
            store.dispatch(TracerAction())
            #expect(received.count == 2)
            subscription.cancel()
            #expect(store.subscriberCount == 0)
            store.dispatch(TracerAction())
            #expect(received.count == 2)
            weakStore = store
        }
        #expect(weakStore == nil)
        #expect(weakProbe == nil)
    }

    /// ReSwift `StoreSubscriptionTests.testRetainCycle_*`, closure-subscriber form: once cancelled,
    /// the store no longer holds the callback (nor what it captured), even while the store lives.
    @Test func cancelledClosureSubscriberIsReleasedWhileTheStoreLives() {
        let store = Store(reSwiftReducer: testReducer, state: TestAppState())
        weak var weakProbe: Probe?
        let received = Recorder<Int?>()
        let subscription: Subscription
        do {
            let probe = Probe()
            weakProbe = probe
            subscription = store.subscribe { _, new in withExtendedLifetime(probe) { received.append(new.testValue) } }
        }
        store.dispatch(TracerAction())
        #expect(received.count == 1)
        #expect(weakProbe != nil)
        subscription.cancel()
        #expect(weakProbe == nil, "the store kept a cancelled subscriber's callback")
        store.dispatch(TracerAction())
        #expect(received.count == 1)
    }

    // MARK: StoreSubscriberTests.swift

    /// ReSwift `StoreSubscriberTests.testAllowsSelectorClosure`.
    @Test func allowsSelectorClosure() {
        let store = Store(reSwiftReducer: testReducer, state: TestAppState())
        let consumer = StateConsumer<TestAppState>()
        let received = Recorder<Int?>()
        consumer.add({ $0.testValue }) { (new: Int?) in received.append(new) }
        let subscription = store.subscribe(consumer)

        store.dispatch(SetValueAction(3))
        #expect(received.last == .some(3))
        store.dispatch(SetValueAction(nil))
        #expect(received.last == .some(.none))
        #expect(received.count == 2)
        subscription.cancel()
    }

    /// ReSwift `StoreSubscriberTests.testAllowsSelectorKeyPath`.
    @Test func allowsSelectorKeyPath() {
        let store = Store(reSwiftReducer: testReducer, state: TestAppState())
        let consumer = StateConsumer<TestAppState>()
        let received = Recorder<Int?>()
        consumer.add(\.testValue) { (new: Int?) in received.append(new) }
        let subscription = store.subscribe(consumer)

        store.dispatch(SetValueAction(3))
        #expect(received.last == .some(3))
        store.dispatch(SetValueAction(nil))
        #expect(received.last == .some(.none))
        #expect(received.count == 2)
        subscription.cancel()
    }

    /// ReSwift `StoreSubscriberTests.testComplexStateSelector`: a tuple selection, which is not
    /// `Equatable`, so with `isEqual:`.
    @Test func complexStateSelector() {
        let store = Store(reSwiftReducer: testComplexAppStateReducer, state: TestComplexAppState())
        let consumer = StateConsumer<TestComplexAppState>()
        let received = Slot<(Int?, String?)>((nil, nil))
        let calls = Recorder<Int>()
        consumer.add(
            { ($0.testValue, $0.otherState?.name) },
            isEqual: { $0.0 == $1.0 && $0.1 == $1.1 }
        ) { _, new in
            received.value = new
            calls.append(1)
        }
        let subscription = store.subscribe(consumer)

        store.dispatch(SetValueAction(5))
        store.dispatch(SetOtherStateAction(otherState: OtherState(name: "TestName", age: 99)))
        #expect(received.value.0 == 5)
        #expect(received.value.1 == "TestName")
        #expect(calls.count == 2)
        subscription.cancel()
    }

    /// ReSwift `StoreSubscriberTests.testUnchangedStateWithRegularSubstateSelection` and
    /// `testUnchangedStateWithKeyPath` (`skipRepeats { $0 == $1 }` → `isEqual:`).
    @Test func unchangedSubstateWithExplicitEqualityIsNotDelivered() {
        let store = Store(reSwiftReducer: testReducer, state: TestAppState(testValue: 3))
        let consumer = StateConsumer<TestAppState>()
        let byClosure = Recorder<Int?>()
        let byKeyPath = Recorder<Int?>()
        consumer.add({ $0.testValue }, isEqual: { $0 == $1 }, options: .instantly) { _, new in byClosure.append(new) }
        consumer.add(\.testValue, isEqual: { $0 == $1 }, options: .instantly) { _, new in byKeyPath.append(new) }
        let subscription = store.subscribe(consumer)
        #expect(byClosure.values == [3])
        #expect(byKeyPath.values == [3])

        store.dispatch(SetValueAction(3))
        #expect(byClosure.values == [3])
        #expect(byKeyPath.values == [3])
        subscription.cancel()
    }

    /// ReSwift `StoreSubscriberTests.testUnchangedStateDefaultSkipRepeatsWithRegularSubstateSelection`
    /// and `…WithKeyPath` (`skipRepeats()` on an `Equatable` value → the default `==`).
    @Test func unchangedEquatableSubstateIsNotDeliveredByDefault() {
        let store = Store(reSwiftReducer: testValueStringReducer, state: TestStringAppState())
        let consumer = StateConsumer<TestStringAppState>()
        let byClosure = Recorder<String>()
        let byKeyPath = Recorder<String>()
        consumer.add({ $0.testValue }, options: .instantly) { _, new in byClosure.append(new) }
        consumer.add(\.testValue, options: .instantly) { _, new in byKeyPath.append(new) }
        let subscription = store.subscribe(consumer)
        #expect(byClosure.values == ["Initial"])
        #expect(byKeyPath.values == ["Initial"])

        store.dispatch(SetValueStringAction("Initial"))
        #expect(byClosure.values == ["Initial"])
        #expect(byKeyPath.values == ["Initial"])
        subscription.cancel()
    }

    /// ReSwift `StoreSubscriberTests.testSkipsStateUpdatesForCustomEqualityChecks…`,
    /// `testSkipWhen…` and `testOnlyWhen…` (regular selection and key path): a non-`Equatable`
    /// sub-state with a custom equality.
    @Test func customEqualitySkipsStateUpdates() {
        let store = Store(reSwiftReducer: testCustomAppStateReducer, state: TestCustomAppState(substateValue: 5))
        let consumer = StateConsumer<TestCustomAppState>()
        let skipRepeats = Recorder<Int>()
        let skipWhen = Recorder<Int>()
        let onlyWhen = Recorder<Int>()
        consumer.add({ $0.substate }, isEqual: { $0.value == $1.value }, options: .instantly) { _, new in
            skipRepeats.append(new.value)
        }
        consumer.add(\.substate, isEqual: { $0.value == $1.value }, options: .instantly) { _, new in
            skipWhen.append(new.value)
        }
        consumer.add(\.substate, isEqual: { !($0.value != $1.value) }, options: .instantly) { _, new in
            onlyWhen.append(new.value)
        }
        let subscription = store.subscribe(consumer)
        #expect(skipRepeats.values == [5])
        #expect(skipWhen.values == [5])
        #expect(onlyWhen.values == [5])

        store.dispatch(SetCustomSubstateAction(5))
        #expect(skipRepeats.values == [5])
        #expect(skipWhen.values == [5])
        #expect(onlyWhen.values == [5])

        store.dispatch(SetCustomSubstateAction(6))
        #expect(skipRepeats.values == [5, 6])
        #expect(skipWhen.values == [5, 6])
        #expect(onlyWhen.values == [5, 6])
        subscription.cancel()
    }

    /// ReSwift `StoreSubscriberTests.testPassesOnDuplicateSubstateUpdatesByDefault…`: a
    /// non-`Equatable` selection hears every state. Here `.pulse` says so, and `isEqual` is then
    /// not consulted.
    @Test func nonEquatableSubstateWithPulsePassesOnDuplicates() {
        let store = Store(reSwiftReducer: testNonEquatableReducer, state: TestNonEquatable())
        let consumer = StateConsumer<TestNonEquatable>()
        let received = Recorder<String>()
        let isEqualCalls = Recorder<Int>()
        consumer.add(
            \.testValue,
            isEqual: { _, _ in
                isEqualCalls.append(1)
                return true
            },
            options: [.instantly, .pulse]
        ) { _, new in received.append(new.testValue) }
        let subscription = store.subscribe(consumer)
        #expect(received.values == ["Initial"])

        store.dispatch(SetNonEquatableAction(NonEquatable()))
        #expect(received.values == ["Initial", "Initial"])
        #expect(isEqualCalls.count == 0)
        subscription.cancel()
    }

    /// ReSwift `StoreSubscriberTests.testPassesOnDuplicateSubstateWhenSkipsFalse…` and
    /// `testPassesOnDuplicateStateUpdatesInCustomizedStore` (`automaticallySkipsRepeats: false`
    /// → `.pulse`), selected value and whole state.
    @Test func pulsePassesOnDuplicateStates() {
        let store = Store(reSwiftReducer: testValueStringReducer, state: TestStringAppState())
        let consumer = StateConsumer<TestStringAppState>()
        let substate = Recorder<String>()
        let whole = Recorder<String>()
        consumer.add(\.testValue, options: [.instantly, .pulse]) { _, new in substate.append(new) }
        consumer.add(\.self, options: [.instantly, .pulse]) { _, new in whole.append(new.testValue) }
        let subscription = store.subscribe(consumer)
        #expect(substate.values == ["Initial"])
        #expect(whole.values == ["Initial"])

        store.dispatch(SetValueStringAction("Initial"))
        #expect(substate.values == ["Initial", "Initial"])
        #expect(whole.values == ["Initial", "Initial"])
        subscription.cancel()
    }

    /// ReSwift `StoreSubscriberTests.testSkipsStateUpdatesForEquatableStateByDefault`: the whole
    /// `Equatable` state, unchanged, is not delivered again.
    @Test func skipsStateUpdatesForEquatableStateByDefault() {
        let store = Store(reSwiftReducer: testValueStringReducer, state: TestStringAppState())
        let consumer = StateConsumer<TestStringAppState>()
        let received = Recorder<String>()
        consumer.add(\.self, options: .instantly) { _, new in received.append(new.testValue) }
        let subscription = store.subscribe(consumer)
        #expect(received.values == ["Initial"])

        store.dispatch(SetValueStringAction("Initial"))
        #expect(received.values == ["Initial"])
        store.dispatch(SetValueStringAction("New"))
        #expect(received.values == ["Initial", "New"])
        subscription.cancel()
    }

    /// ReSwift `StoreSubscriberTests.testSkipsStateUpdatesForEquatableSubStateByDefault…`: an
    /// `Equatable` value nested in a non-`Equatable` one (closure and key path).
    @Test func skipsStateUpdatesForEquatableSubStateByDefault() {
        let store = Store(reSwiftReducer: testNonEquatableReducer, state: TestNonEquatable())
        let consumer = StateConsumer<TestNonEquatable>()
        let byClosure = Recorder<String>()
        let byKeyPath = Recorder<String>()
        consumer.add({ $0.testValue.testValue }, options: .instantly) { _, new in byClosure.append(new) }
        consumer.add(\.testValue.testValue, options: .instantly) { _, new in byKeyPath.append(new) }
        let subscription = store.subscribe(consumer)
        #expect(byClosure.values == ["Initial"])
        #expect(byKeyPath.values == ["Initial"])

        store.dispatch(SetValueStringAction("Initial"))
        store.dispatch(SetNonEquatableAction(NonEquatable()))
        #expect(byClosure.values == ["Initial"])
        #expect(byKeyPath.values == ["Initial"])
        subscription.cancel()
    }

    // MARK: IncompleteSubscriptionTests.swift

    /// ReSwift `IncompleteSubscriptionTests.testPassesOnRootState` and `testPassesOnRootStateChange`.
    @Test func passesOnRootStateAndItsChange() {
        let store = Store(reSwiftReducer: testValueStringReducer, state: TestStringAppState())
        let instant = StateConsumer<TestStringAppState>()
        let instantValues = Recorder<String>()
        instant.add(\.self, options: .instantly) { new in instantValues.append(new.testValue) }
        let plain = StateConsumer<TestStringAppState>()
        let plainValues = Recorder<String>()
        plain.add(\.self) { new in plainValues.append(new.testValue) }
        let subscriptions = [store.subscribe(instant), store.subscribe(plain)]
        #expect(instantValues.values == ["Initial"])
        #expect(plainValues.values.isEmpty)

        store.dispatch(SetValueStringAction("New"))
        #expect(instantValues.last == "New")
        #expect(plainValues.values == ["New"])
        for subscription in subscriptions { subscription.cancel() }
    }

    // MARK: AutomaticallySkipRepeatsTests.swift

    private struct PersonState: Sendable, Equatable {
        let age: Int
        let name: String
    }

    private struct ChangeAge: Action {
        let newAge: Int
    }

    private static let personReducer: @Sendable (any Action, PersonState?) -> PersonState = { action, state in
        let state = state ?? PersonState(age: 29, name: "Daniel")
        if let change = action as? ChangeAge {
            return PersonState(age: change.newAge, name: state.name)
        }
        return state
    }

    /// ReSwift `AutomaticallySkipRepeatsTests.testInitialSubscription`,
    /// `testDispatchUnrelatedActionWithExplicitSkipRepeats` and `…WithoutExplicitSkipRepeats`.
    @Test func automaticallySkipsRepeatsOfASelectedEquatableValue() {
        let store = Store(reSwiftReducer: Self.personReducer, state: nil)
        let consumer = StateConsumer<PersonState>()
        let implicit = Recorder<String>()
        let explicit = Recorder<String>()
        consumer.add({ $0.name }, options: .instantly) { new in implicit.append(new) }
        consumer.add({ $0.name }, isEqual: { $0 == $1 }, options: .instantly) { _, new in explicit.append(new) }
        let subscription = store.subscribe(consumer)
        #expect(implicit.count == 1)
        #expect(explicit.count == 1)

        store.dispatch(ChangeAge(newAge: 30))
        #expect(store.state.age == 30)
        #expect(implicit.values == ["Daniel"])
        #expect(explicit.values == ["Daniel"])
        subscription.cancel()
    }

    // MARK: EquatableStateTests.swift

    private struct FakeSubstate: Sendable, Equatable {
        var uuid = UUID().uuidString
        var testValue = 0
    }

    private struct FakeAppState: Sendable, Equatable {
        var subState1 = FakeSubstate()
        var substate2 = FakeSubstate()
    }

    private enum FakeSubstateAction: Action {
        case one, two
    }

    /// ReSwift `EquatableStateTests.testEquatableStateSubscription`.
    @Test func equatableSubstateSubscription() {
        let reducer = Reducer<FakeAppState> { (state, action: FakeSubstateAction) in
            switch action {
            case .one:
                state.subState1.uuid = UUID().uuidString
                state.subState1.testValue += 1
            case .two:
                state.substate2.uuid = UUID().uuidString
                state.substate2.testValue += 1
            }
        }
        let store = Store(initialState: FakeAppState(), reducer: reducer)
        let subscriber1 = StateConsumer<FakeAppState>()
        let subscriber2 = StateConsumer<FakeAppState>()
        let count1 = Recorder<Int>()
        let count2 = Recorder<Int>()
        subscriber1.add(\.subState1, options: .instantly) { new in count1.append(new.testValue) }
        subscriber2.add(\.substate2, options: .instantly) { new in count2.append(new.testValue) }
        let subscriptions = [store.subscribe(subscriber1), store.subscribe(subscriber2)]

        store.dispatch(FakeSubstateAction.one)
        #expect(count1.count == 2)
        #expect(count2.count == 1)
        for subscription in subscriptions { subscription.cancel() }
    }

    // MARK: StoreMiddlewareTests.swift

    /// ReSwift `StoreMiddlewareTests.testDecorateDispatch`: middleware run outermost first.
    @Test func middlewareCanDecorateDispatch() {
        let store = Store(
            reSwiftReducer: testValueStringReducer, state: TestStringAppState(),
            middleware: [firstMiddleware, secondMiddleware])
        let consumer = StateConsumer<TestStringAppState>()
        let received = Recorder<String>()
        consumer.add(\.testValue, options: .instantly) { new in received.append(new) }
        let subscription = store.subscribe(consumer)

        store.dispatch(SetValueStringAction("OK"))
        #expect(store.state.testValue == "OK First Middleware Second Middleware")
        #expect(received.values == ["Initial", "OK First Middleware Second Middleware"])
        subscription.cancel()
    }

    /// ReSwift `StoreMiddlewareTests.testCanDispatch`. Documented difference in timing: the
    /// middleware's dispatch is queued and runs right after the current action (ReSwift runs it
    /// re-entrantly, before); the outer `dispatch` returns after both.
    @Test func middlewareCanDispatch() {
        let reduced = Recorder<String>()
        let reducer: @Sendable (any Action, TestStringAppState?) -> TestStringAppState = { action, state in
            reduced.append(String(describing: type(of: action)))
            return testValueStringReducer(action, state)
        }
        let store = Store(
            reSwiftReducer: reducer, state: TestStringAppState(),
            middleware: [firstMiddleware, secondMiddleware, dispatchingMiddleware])
        let consumer = StateConsumer<TestStringAppState>()
        consumer.add(\.testValue) { _, _ in }
        let subscription = store.subscribe(consumer)

        store.dispatch(SetValueAction(10))
        #expect(store.state.testValue == "10 First Middleware Second Middleware")
        #expect(reduced.values == ["SetValueAction", "SetValueStringAction"])
        subscription.cancel()
    }

    /// ReSwift `StoreMiddlewareTests.testMiddlewareCanAccessState`.
    @Test func middlewareCanAccessState() {
        let store = Store(
            reSwiftReducer: testValueStringReducer, state: TestStringAppState(testValue: "OK"),
            middleware: [stateAccessingMiddleware])
        store.dispatch(SetValueStringAction("Action That Won't Go Through"))
        #expect(store.state.testValue == "Not OK")
    }

    /// ReSwift's `getState` contract inside a middleware: before `next` the state before the
    /// action, after `next` the reduced one; `nil` once the store is gone.
    @Test func getStateInMiddlewareSeesTheStateBeforeAndAfterNext() {
        let seen = Recorder<String>()
        let keptGetState = Slot<GetState<TestAppState>?>(nil)
        let watching: Middleware<TestAppState> = { _, getState in
            keptGetState.value = getState
            return { next in
                { action in
                    seen.append("before \(getState()?.testValue ?? -1)")
                    next(action)
                    seen.append("after \(getState()?.testValue ?? -1)")
                }
            }
        }
        do {
            let store = Store(reSwiftReducer: testReducer, state: TestAppState(testValue: 1), middleware: [watching])
            store.dispatch(SetValueAction(2))
            #expect(seen.values == ["before 1", "after 2"])
            #expect(keptGetState.value?()?.testValue == 2)
        }
        #expect(keptGetState.value != nil)
        #expect(keptGetState.value?() == nil, "getState must return nil once the store is gone")
    }

    /// ReSwift `StoreMiddlewareTests.testCanMutateMiddlewareAfterInit` (adding part; this library
    /// has no removal of middleware): `addMiddleware` takes effect from the next action, as the
    /// innermost middleware.
    @Test func canAddMiddlewareAfterInit() {
        let order = Recorder<String>()
        func middleware(_ name: String) -> Middleware<TestStringAppState> {
            { _, _ in
                { next in
                    { action in
                        order.append(name)
                        next(action)
                    }
                }
            }
        }
        let store = Store(
            reSwiftReducer: testValueStringReducer, state: TestStringAppState(), middleware: [middleware("outer")])
        store.dispatch(SetValueStringAction(""))
        #expect(order.values == ["outer"])

        store.addMiddleware(middleware("added"))
        store.dispatch(SetValueStringAction("x"))
        #expect(order.values == ["outer", "outer", "added"])
        #expect(store.state.testValue == "x")
    }

    // MARK: StoreDispatchTests.swift

    /// ReSwift `StoreDispatchTests.testThrowsExceptionWhenReducersDispatch`. Deliberate
    /// difference: no trap; "a dispatch … made from inside a reducer runs right after it".
    @Test func dispatchFromAReducerIsQueuedAfterIt() {
        let storeBox = Slot<Store<TestAppState>?>(nil)
        let reduced = Recorder<Int?>()
        let reducer: @Sendable (any Action, TestAppState?) -> TestAppState = { action, state in
            let next = testReducer(action, state)
            if let action = action as? SetValueAction {
                reduced.append(action.value)
                if action.value == 10 {
                    storeBox.value?.dispatch(SetValueAction(20))
                    reduced.append(-1)  // the nested dispatch returned before it ran
                }
            }
            return next
        }
        let store = Store(reSwiftReducer: reducer, state: TestAppState())
        storeBox.value = store
        store.dispatch(SetValueAction(10))
        #expect(reduced.values == [10, -1, 20])
        #expect(store.state.testValue == 20)
        storeBox.value = nil
    }

    /// ReSwift `StoreDispatchTests.testAcceptsActionCreators` and `ThunksTests.testThunk`: an
    /// action creator is a user-land thunk middleware here.
    @Test func acceptsActionCreatorsThroughAThunkMiddleware() {
        let store = Store(
            reSwiftReducer: testReducer, state: TestAppState(), middleware: [createThunkMiddleware()])
        store.dispatch(SetValueAction(5))
        store.dispatch(
            Thunk<TestAppState> { dispatch, getState in
                dispatch(SetValueAction(getState()!.testValue! * 2))
            })
        #expect(store.state.testValue == 10)
    }

    /// ReSwift `ThunksTests.testAction` and `testThunk`: the middleware called by hand.
    @Test func thunkMiddlewarePassesActionsAndRunsThunks() {
        let middleware: Middleware<TestAppState> = createThunkMiddleware()
        let nextCalls = Recorder<Int>()
        let bodyCalls = Recorder<Int>()
        let chain = middleware({ _ in }, { nil })({ _ in nextCalls.append(1) })
        chain(NoOpAction())
        #expect(nextCalls.count == 1)
        chain(Thunk<TestAppState> { _, _ in bodyCalls.append(1) })
        #expect(nextCalls.count == 1)
        #expect(bodyCalls.count == 1)
    }

    /// ReSwift `StoreDispatchTests.testAcceptsAsyncActionCreators`: an action dispatched later from
    /// another thread reaches the subscriber (completion signal, no sleep).
    @Test func acceptsAsyncActionCreators() {
        let store = Store(reSwiftReducer: testReducer, state: TestAppState())
        let consumer = StateConsumer<TestAppState>()
        let done = DispatchSemaphore(value: 0)
        let received = Recorder<Int?>()
        consumer.add(\.testValue) { [weak store] _, new in
            received.append(new)
            #expect(store?.state.testValue == 5)
            done.signal()
        }
        let subscription = store.subscribe(consumer)
        DispatchQueue.global().async { [store] in
            store.dispatch(SetValueAction(5))
        }
        #expect(done.wait(timeout: .now() + 10) == .success)
        #expect(received.values == [5])
        subscription.cancel()
    }

    /// ReSwift `StoreDispatchTests.testCallsCalbackOnce` ("calls the callback once state update from
    /// async action is complete") → `Store.wait(until:timeout:)`.
    @Test func waitsForTheStateOfAnAsyncAction() async throws {
        let store = Store(reSwiftReducer: testReducer, state: TestAppState())
        DispatchQueue.global().async { [store] in
            store.dispatch(SetValueAction(5))
        }
        let state = try await store.wait(until: { $0.testValue == 5 }, timeout: 10)
        #expect(state.testValue == 5)
        #expect(store.state.testValue == 5)
    }

    // MARK: ReSwift-Consumer: PredictConsumerTests.swift

    /// ReSwift-Consumer `PredictConsumerTests.testPrediction`: a "predict" member fed by hand.
    /// Deliberate difference: the first state does not fire (ReSwift-Consumer fires with
    /// `old == nil`) unless `.instantly`, which fires with `old == new`.
    @Test func predictConsumerFedByHand() {
        struct State: Sendable {
            let count: Int
            let map: [Int: String]
        }
        let a = State(count: 1, map: [1: "a", 2: "b", 3: "c"])
        let b = State(count: 2, map: [1: "a"])
        let consumer = StateConsumer<State>()
        let instant = Recorder<String>()
        let plain = Recorder<String>()
        consumer.add(\.map, isEqual: { $0 == $1 }, options: .instantly) { old, new in
            instant.append("\(old.count)→\(new.count)")
            #expect(old == a.map || new == b.map)
        }
        consumer.add({ $0.map }, isEqual: { $0 == $1 }) { old, new in plain.append("\(old.count)→\(new.count)") }

        consumer.consume(newState: a)
        #expect(instant.values == ["3→3"])
        #expect(plain.values.isEmpty)

        consumer.consume(newState: State(count: 5, map: a.map))
        #expect(instant.values == ["3→3"])
        #expect(plain.values.isEmpty)

        consumer.consume(newState: b)
        #expect(instant.values == ["3→3", "3→1"])
        #expect(plain.values == ["3→1"])
    }

    /// ReSwift-Consumer / ReSwift #519: a consumer that dispatches from its callback must not make
    /// another consumer's `old` stale.
    @Test func oldValuesStayFreshWhenAnotherConsumerDispatches() {
        let store = Store(reSwiftReducer: testReducer, state: TestAppState(testValue: 0))
        let dispatcher = StateConsumer<TestAppState>()
        dispatcher.add(\.testValue) { [weak store] _, new in
            if let new, new < 3 { store?.dispatch(SetValueAction(new + 1)) }
        }
        let watcher = StateConsumer<TestAppState>()
        let pairs = Recorder<String>()
        watcher.add(\.testValue) { old, new in pairs.append("\(old ?? -1)→\(new ?? -1)") }
        let subscriptions = [store.subscribe(dispatcher), store.subscribe(watcher)]

        store.dispatch(SetValueAction(1))
        #expect(store.state.testValue == 3)
        #expect(pairs.values == ["0→1", "1→2", "2→3"])
        for subscription in subscriptions { subscription.cancel() }
    }

    // MARK: Unsubscribing and adding inside a callback

    /// ReSwift's "unsubscribe inside newState": a subscriber cancelled by an earlier one during a
    /// pass is not called, "not later in a pass in progress" (guarantee 1), and one that cancels
    /// itself hears nothing more.
    @Test func unsubscribingInsideACallback() {
        let store = Store(reSwiftReducer: testReducer, state: TestAppState())
        let log = Recorder<String>()
        let laterBox = Slot<Subscription?>(nil)
        let selfBox = Slot<Subscription?>(nil)
        let first = store.subscribe { _, new in
            log.append("first \(new.testValue ?? -1)")
            laterBox.value?.cancel()
        }
        selfBox.value = store.subscribe { _, new in
            log.append("self \(new.testValue ?? -1)")
            selfBox.value?.cancel()
        }
        laterBox.value = store.subscribe { _, new in log.append("later \(new.testValue ?? -1)") }
        #expect(store.subscriberCount == 3)

        store.dispatch(SetValueAction(1))
        store.dispatch(SetValueAction(2))
        #expect(log.values == ["first 1", "self 1", "first 2"])
        #expect(store.subscriberCount == 1)
        first.cancel()
    }

    /// The same for consumer members: one removed inside a callback is "not called again, not even
    /// later in the same pass".
    @Test func removingMembersInsideACallback() {
        let store = Store(reSwiftReducer: testReducer, state: TestAppState())
        let consumer = StateConsumer<TestAppState>()
        let log = Recorder<String>()
        let laterToken = Slot<ConsumerToken?>(nil)
        let selfToken = Slot<ConsumerToken?>(nil)
        consumer.add(\.testValue) { [weak consumer] _, new in
            log.append("first \(new ?? -1)")
            if let token = laterToken.value { consumer?.remove(token) }
        }
        selfToken.value = consumer.add(\.testValue) { _, new in
            log.append("self \(new ?? -1)")
            selfToken.value?.cancel()
        }
        laterToken.value = consumer.add(\.testValue) { _, new in log.append("later \(new ?? -1)") }
        let subscription = store.subscribe(consumer)

        store.dispatch(SetValueAction(1))
        store.dispatch(SetValueAction(2))
        #expect(log.values == ["first 1", "self 1", "first 2"])
        #expect(consumer.count == 1)
        subscription.cancel()
    }

    /// ReSwift #325-style mutation during `newState`: a member added inside a callback "starts with
    /// the next state (its `.instantly` call comes at the end of the pass in progress …, never
    /// inside `add`)".
    @Test func membersAddedInsideACallbackStartWithTheNextState() {
        let store = Store(reSwiftReducer: testReducer, state: TestAppState())
        let consumer = StateConsumer<TestAppState>()
        let log = Recorder<String>()
        let added = Slot(false)
        consumer.add(\.testValue) { [weak consumer] _, new in
            log.append("adder \(new ?? -1)")
            guard !added.value, let consumer else { return }
            added.value = true
            consumer.add(\.testValue) { old, new in log.append("plain \(old ?? -1)→\(new ?? -1)") }
            consumer.add(\.testValue, options: .instantly) { old, new in log.append("instant \(old ?? -1)→\(new ?? -1)")
            }
            log.append("adder done")
        }
        consumer.add(\.testValue) { _, new in log.append("second \(new ?? -1)") }
        let subscription = store.subscribe(consumer)

        store.dispatch(SetValueAction(1))
        #expect(log.values == ["adder 1", "adder done", "second 1", "instant 1→1"])
        store.dispatch(SetValueAction(2))
        #expect(
            log.values == [
                "adder 1", "adder done", "second 1", "instant 1→1",
                "adder 2", "second 2", "plain 1→2", "instant 1→2",
            ])
        subscription.cancel()
    }

    // MARK: Order and threads

    /// ReSwift notifies subscribers in subscription order; here "subscribers are called in the order
    /// they subscribed (closure subscribers and consumers alike) …; action listeners come last".
    @Test func subscribersAreCalledInSubscriptionOrderAndListenersLast() {
        let store = Store(reSwiftReducer: testReducer, state: TestAppState())
        let log = Recorder<String>()
        let listener = store.observeActions { _ in log.append("listener") }
        let a = store.subscribe { _, _ in log.append("closure A") }
        let consumer = StateConsumer<TestAppState>()
        consumer.add(\.testValue) { _, _ in log.append("consumer member 1") }
        consumer.add(\.testValue) { _, _ in log.append("consumer member 2") }
        let c = store.subscribe(consumer)
        let b = store.subscribe { _, _ in log.append("closure B") }

        store.dispatch(SetValueAction(1))
        #expect(log.values == ["closure A", "consumer member 1", "consumer member 2", "closure B", "listener"])
        for subscription in [listener, a, c, b] { subscription.cancel() }
    }

    /// ReSwift's "dispatch from any thread" (its synchronized dispatch): every subscriber hears
    /// every action once, in one order.
    @Test func concurrentDispatchesAreHeardOnceEachInOrder() {
        let finished = finishesWithoutDeadlock {
            let seen = Recorder<Int>()
            let reducerStore = Store(
                initialState: 0,
                reducer: Reducer<Int> { (state, _: NoOpAction) in state += 1 })
            let subscription = reducerStore.subscribe { old, new in
                seen.append(new)
                #expect(new == old + 1)
            }
            DispatchQueue.concurrentPerform(iterations: 4) { _ in
                for _ in 0..<250 {
                    reducerStore.dispatch(NoOpAction())
                }
            }
            #expect(reducerStore.state == 1000)
            #expect(seen.values == Array(1...1000))
            subscription.cancel()
        }
        #expect(finished)
    }

    // MARK: Edge cases of the same behaviours (probes)

    /// Subscription docs: a registration lasts "until `cancel()` is called … or until its store is
    /// gone". A consumer that outlives its store is then free to join another store (ReSwift: a
    /// subscriber can always subscribe to a new store), whether or not its handle was cancelled.
    @Test(arguments: [true, false])
    func consumerOutlivingItsStoreCanJoinAnotherStore(cancelsTheHandle: Bool) {
        let consumer = StateConsumer<TestAppState>()
        let heard = Recorder<String>()
        consumer.add(\.testValue) { old, new in heard.append("\(old ?? -1)→\(new ?? -1)") }
        weak var weakStore: Store<TestAppState>?
        let handle: Subscription
        do {
            let store = Store(reSwiftReducer: testReducer, state: TestAppState(testValue: 1))
            handle = store.subscribe(consumer)
            store.dispatch(SetValueAction(2))
            weakStore = store
        }
        #expect(weakStore == nil, "the consumer does not keep its store alive")
        if cancelsTheHandle {
            handle.cancel()  // ReSwift's `unsubscribe`, after the store is gone: does nothing
        }
        let other = Store(reSwiftReducer: testReducer, state: TestAppState(testValue: 7))
        let subscription = other.subscribe(consumer)
        other.dispatch(SetValueAction(8))
        subscription.cancel()
        #expect(heard.values == ["1→2", "2→7", "7→8"])
        #expect(other.subscriberCount == 0)
    }

    /// The same, fed by hand afterwards: "fed either by a store or by hand (`consume(newState:)`),
    /// not both" — once the store is gone, only the hand is left.
    @Test func consumerOutlivingItsStoreCanBeFedByHand() {
        let consumer = StateConsumer<TestAppState>()
        let heard = Recorder<Int?>()
        consumer.add(\.testValue) { _, new in heard.append(new) }
        do {
            let store = Store(reSwiftReducer: testReducer, state: TestAppState(testValue: 1))
            store.subscribe(consumer)
        }
        consumer.consume(newState: TestAppState(testValue: 2))
        #expect(heard.values == [2])
    }

    /// After `cancel()`, the consumer is free: fed by hand, or subscribed to another store, it
    /// compares with the last values it saw.
    @Test func cancelledConsumerMovesToAnotherStoreOrToTheHand() {
        let first = Store(reSwiftReducer: testReducer, state: TestAppState(testValue: 1))
        let second = Store(reSwiftReducer: testReducer, state: TestAppState(testValue: 5))
        let consumer = StateConsumer<TestAppState>()
        let heard = Recorder<String>()
        consumer.add(\.testValue, options: .instantly) { old, new in heard.append("\(old ?? -1)→\(new ?? -1)") }

        let a = first.subscribe(consumer)
        #expect(heard.values == ["1→1"])
        a.cancel()
        let b = second.subscribe(consumer)
        #expect(heard.values == ["1→1", "1→5"])
        second.dispatch(SetValueAction(6))
        b.cancel()
        consumer.consume(newState: TestAppState(testValue: 6))
        consumer.consume(newState: TestAppState(testValue: 9))
        #expect(heard.values == ["1→1", "1→5", "5→6", "6→9"])
    }

    /// `Subscription.cancel()`: "Calling it again does nothing" — even when the consumer has a
    /// second handle.
    @Test func cancellingOneHandleTwiceKeepsTheOtherHandlesSubscription() {
        let store = Store(reSwiftReducer: testReducer, state: TestAppState())
        let consumer = StateConsumer<TestAppState>()
        let heard = Recorder<Int?>()
        consumer.add(\.testValue) { _, new in heard.append(new) }
        let first = store.subscribe(consumer)
        let second = store.subscribe(consumer)
        first.cancel()
        first.cancel()
        #expect(first.isCancelled)
        #expect(store.subscriberCount == 1)
        store.dispatch(SetValueAction(1))
        #expect(heard.values == [1])
        second.cancel()
        #expect(store.subscriberCount == 0)
    }

    /// Subscribing and cancelling inside a callback (ReSwift: subscribe + unsubscribe in
    /// `newState`): closure subscribers and listeners are never called, nothing stays counted.
    @Test func subscribeThenCancelInsideACallbackNeverCallsClosuresOrListeners() {
        let store = Store(reSwiftReducer: testReducer, state: TestAppState())
        let heard = Recorder<String>()
        let once = Slot(false)
        let outer = store.subscribe { [weak store] _, _ in
            guard let store, !once.value else { return }
            once.value = true
            store.subscribe { _, _ in heard.append("closure") }.cancel()
            store.observeActions { _ in heard.append("listener") }.cancel()
        }
        store.dispatch(SetValueAction(1))
        store.dispatch(SetValueAction(2))
        #expect(heard.values.isEmpty)
        #expect(store.subscriberCount == 1)
        outer.cancel()
        #expect(store.subscriberCount == 0)
    }

    /// Guarantee 1, "Removal is final … not later in a pass in progress": a consumer subscribed and
    /// at once unsubscribed inside another subscriber's callback is fed at once (documented) and
    /// never called after `cancel()` returned.
    @Test func consumerSubscribedAndCancelledInsideACallbackIsNeverCalled() {
        let store = Store(reSwiftReducer: testReducer, state: TestAppState(testValue: 0))
        let heard = Recorder<String>()
        let cancelled = Slot(false)
        let consumer = StateConsumer<TestAppState>()
        consumer.add(\.testValue, options: .instantly) { old, new in
            heard.append("instant \(old ?? -1)→\(new ?? -1), after cancel returned: \(cancelled.value)")
        }
        let outer = store.subscribe { [weak store] _, new in
            guard let store, new.testValue == 1 else { return }
            let subscription = store.subscribe(consumer)
            subscription.cancel()
            cancelled.value = true
        }
        store.dispatch(SetValueAction(1))
        // "Subscribing a consumer feeds it the store's current state at once": inside `subscribe`.
        #expect(heard.values == ["instant 1→1, after cancel returned: false"])
        store.dispatch(SetValueAction(2))
        #expect(heard.values.count == 1)
        #expect(store.subscriberCount == 1)
        outer.cancel()
    }

    /// The same for a plain member whose value changed while the consumer was away: it catches up
    /// inside `subscribe`, and hears nothing after `cancel()`.
    @Test func consumerSubscribedAndCancelledInsideACallbackHearsNoCatchUp() {
        let store = Store(reSwiftReducer: testReducer, state: TestAppState(testValue: 0))
        let heard = Recorder<String>()
        let cancelled = Slot(false)
        let consumer = StateConsumer<TestAppState>()
        consumer.add(\.testValue) { old, new in
            heard.append("\(old ?? -1)→\(new ?? -1), after cancel returned: \(cancelled.value)")
        }
        consumer.consume(newState: TestAppState(testValue: 100))  // the member has seen 100
        let outer = store.subscribe { [weak store] _, new in
            guard let store, new.testValue == 1 else { return }
            let subscription = store.subscribe(consumer)
            subscription.cancel()
            cancelled.value = true
        }
        store.dispatch(SetValueAction(1))
        // The catch-up comes at once, inside `subscribe`; nothing after `cancel()`.
        #expect(heard.values == ["100→1, after cancel returned: false"])
        store.dispatch(SetValueAction(2))
        #expect(heard.values.count == 1)
        outer.cancel()
    }

    /// Guarantee 1 for members: an `.instantly` member added inside a callback and removed before
    /// the pass ends must not get its held first call.
    @Test func instantMemberAddedAndRemovedInsideACallbackIsNeverCalled() {
        let store = Store(reSwiftReducer: testReducer, state: TestAppState(testValue: 0))
        let consumer = StateConsumer<TestAppState>()
        let heard = Recorder<String>()
        let removed = Slot(false)
        consumer.add(\.testValue) { [weak consumer] _, new in
            guard let consumer, new == 1 else { return }
            let token = consumer.add(\.testValue, options: .instantly) { old, new in
                heard.append("instant \(old ?? -1)→\(new ?? -1), after remove returned: \(removed.value)")
            }
            token.cancel()
            removed.value = true
        }
        let subscription = store.subscribe(consumer)
        store.dispatch(SetValueAction(1))
        store.dispatch(SetValueAction(2))
        #expect(heard.values.isEmpty)
        #expect(consumer.count == 1)
        subscription.cancel()
    }

    /// `Store.subscribe(_:)` docs: "a closure subscribed from inside one of this store's actions
    /// starts with the action after it"; `observeActions`: "A listener added from inside one of this
    /// store's actions starts with the next action." Here from a middleware, before `next`.
    @Test func closureAndListenerSubscribedFromAMiddlewareStartWithTheNextAction() {
        let heard = Recorder<String>()
        let storeSlot = Slot<Store<TestAppState>?>(nil)
        let handles = Recorder<Subscription>()
        let subscribing: Middleware<TestAppState> = { _, _ in
            { next in
                { action in
                    if let action = action as? SetValueAction, action.value == 1, let store = storeSlot.value {
                        handles.append(store.subscribe { _, new in heard.append("closure \(new.testValue ?? -1)") })
                        handles.append(store.observeActions { _ in heard.append("listener") })
                    }
                    next(action)
                }
            }
        }
        let store = Store(reSwiftReducer: testReducer, state: TestAppState(), middleware: [subscribing])
        storeSlot.value = store
        store.dispatch(SetValueAction(1))
        #expect(heard.values.isEmpty, "subscribed during action 1, called for action 1")
        store.dispatch(SetValueAction(2))
        #expect(heard.values.suffix(2) == ["closure 2", "listener"])
        for handle in handles.values { handle.cancel() }
        storeSlot.value = nil
        #expect(store.subscriberCount == 0)
    }

    /// The same from a reducer: README, "a subscription … made from inside a reducer runs right
    /// after it", and "A closure subscribed … during an action is first called with the next action".
    @Test func closureSubscribedFromAReducerStartsWithTheNextAction() {
        let heard = Recorder<String>()
        let storeSlot = Slot<Store<TestAppState>?>(nil)
        let handles = Recorder<Subscription>()
        let reducer: @Sendable (any Action, TestAppState?) -> TestAppState = { action, state in
            if let action = action as? SetValueAction, action.value == 1, let store = storeSlot.value {
                handles.append(store.subscribe { _, new in heard.append("closure \(new.testValue ?? -1)") })
            }
            return testReducer(action, state)
        }
        let store = Store(reSwiftReducer: reducer, state: TestAppState())
        storeSlot.value = store
        store.dispatch(SetValueAction(1))
        #expect(heard.values.isEmpty, "subscribed during action 1, called for action 1")
        store.dispatch(SetValueAction(2))
        #expect(heard.values.last == "closure 2")
        for handle in handles.values { handle.cancel() }
        storeSlot.value = nil
    }

    /// Control: from a subscriber's callback the documented rule holds.
    @Test func closureSubscribedFromACallbackStartsWithTheNextAction() {
        let store = Store(reSwiftReducer: testReducer, state: TestAppState())
        let heard = Recorder<String>()
        let handles = Recorder<Subscription>()
        let outer = store.subscribe { [weak store] _, new in
            guard let store, new.testValue == 1 else { return }
            handles.append(store.subscribe { _, new in heard.append("closure \(new.testValue ?? -1)") })
            handles.append(store.observeActions { _ in heard.append("listener") })
        }
        store.dispatch(SetValueAction(1))
        #expect(heard.values.isEmpty)
        store.dispatch(SetValueAction(2))
        #expect(heard.values == ["closure 2", "listener"])
        for handle in handles.values + [outer] { handle.cancel() }
    }

    /// ReSwift semantics for a middleware that calls `next` twice or not at all: each reduction
    /// notifies (with fresh `old` values), a swallowed action notifies nobody.
    @Test func middlewareCallingNextTwiceOrNeverNotifiesPerReduction() {
        struct Twice: Action {}
        struct Swallowed: Action {}
        let twiceMiddleware: Middleware<Int> = { _, _ in
            { next in
                { action in
                    if action is Swallowed { return }
                    if action is Twice {
                        next(action)
                        next(action)
                    } else {
                        next(action)
                    }
                }
            }
        }
        let store = Store(
            initialState: 0, reducer: Reducer<Int> { state, action in if action is Twice { state += 1 } },
            middleware: [twiceMiddleware])
        let pairs = Recorder<String>()
        let consumerPairs = Recorder<String>()
        let listened = Recorder<String>()
        let closure = store.subscribe { old, new in pairs.append("\(old)→\(new)") }
        let consumer = StateConsumer<Int>()
        consumer.add(\.self) { old, new in consumerPairs.append("\(old)→\(new)") }
        let consumed = store.subscribe(consumer)
        let listener = store.observeActions { action in listened.append("\(type(of: action))") }

        store.dispatch(Twice())
        store.dispatch(Swallowed())
        #expect(store.state == 2)
        #expect(pairs.values == ["0→1", "1→2"])
        #expect(consumerPairs.values == ["0→1", "1→2"])
        #expect(listened.values == ["Twice", "Twice"])
        for subscription in [closure, consumed, listener] { subscription.cancel() }
    }

    /// Closure subscribers' `old` across queued dispatches (from a consumer, a middleware and a
    /// reducer): every `old` is the previous `new` (guarantee 3).
    @Test func closureSubscriberOldValuesAreMonotonicAcrossQueuedDispatches() {
        struct Bump: Action {}
        let storeSlot = Slot<Store<Int>?>(nil)
        let bumping: Middleware<Int> = { dispatch, getState in
            { next in
                { action in
                    next(action)
                    if getState() == 1 { dispatch(Bump()) }  // → 2
                }
            }
        }
        let reducer = Reducer<Int> { state, action in
            guard action is Bump else { return }
            state += 1
            if state == 3 { storeSlot.value?.dispatch(Bump()) }  // → 4
        }
        let store = Store(initialState: 0, reducer: reducer, middleware: [bumping])
        storeSlot.value = store
        let pairs = Recorder<String>()
        let first = store.subscribe { old, new in pairs.append("\(old)→\(new)") }
        let consumer = StateConsumer<Int>()
        consumer.add(\.self) { [weak store] _, new in if new == 2 { store?.dispatch(Bump()) } }  // → 3
        let second = store.subscribe(consumer)
        let third = store.subscribe { old, new in pairs.append("third \(old)→\(new)") }

        store.dispatch(Bump())
        #expect(store.state == 4)
        #expect(
            pairs.values == [
                "0→1", "third 0→1", "1→2", "third 1→2", "2→3", "third 2→3", "3→4", "third 3→4",
            ])
        for subscription in [first, second, third] { subscription.cancel() }
        storeSlot.value = nil
    }

    /// Middleware docs: "`next` may also be called later from any thread (a delayed action): the
    /// action then joins the store's queue."
    @Test func middlewareCallingNextLaterFromAnotherThread() {
        struct Delayed: Action {}
        let delaying: Middleware<TestAppState> = { _, _ in
            { next in
                { action in
                    if action is Delayed {
                        DispatchQueue.global().async { next(SetValueAction(42)) }
                    } else {
                        next(action)
                    }
                }
            }
        }
        let store = Store(reSwiftReducer: testReducer, state: TestAppState(), middleware: [delaying])
        let consumer = StateConsumer<TestAppState>()
        let done = DispatchSemaphore(value: 0)
        let heard = Recorder<String>()
        consumer.add(\.testValue) { old, new in
            heard.append("\(old ?? -1)→\(new ?? -1)")
            done.signal()
        }
        let listened = Recorder<String>()
        let listenerDone = DispatchSemaphore(value: 0)
        let listener = store.observeActions { action in
            listened.append("\(type(of: action))")
            listenerDone.signal()
        }
        let subscription = store.subscribe(consumer)
        store.dispatch(Delayed())
        #expect(done.wait(timeout: .now() + 10) == .success)
        #expect(listenerDone.wait(timeout: .now() + 10) == .success)
        #expect(store.state.testValue == 42)
        #expect(heard.values == ["-1→42"])
        subscription.cancel()
        listener.cancel()
        #expect(listened.values == ["SetValueAction"])
    }

    /// Guarantee 4: a chain of dispatches from callbacks "stops at `Store.chainLimit` (10,000) with a
    /// diagnostic naming the action it dropped"; the store keeps working afterwards.
    @Test func runawayChainStopsWithADiagnostic() {
        struct Loop: Action {}
        let reports = Recorder<String>()
        let store = Store(
            initialState: 0, reducer: Reducer<Int> { (state, _: Loop) in state += 1 },
            diagnostics: { reports.append($0) })
        let subscription = store.subscribe { [weak store] _, _ in store?.dispatch(Loop()) }
        store.dispatch(Loop())
        #expect(reports.count == 1)
        #expect(reports.values.first?.contains("Loop") == true)
        #expect(store.state == Store<Int>.chainLimit + 1)
        subscription.cancel()
        store.dispatch(Loop())
        #expect(store.state == Store<Int>.chainLimit + 2)
    }

    /// `observeActions` hears the action the reducer reduced — after the middleware changed it.
    @Test func actionListenersHearTheActionAsReduced() {
        let store = Store(
            reSwiftReducer: testValueStringReducer, state: TestStringAppState(),
            middleware: [firstMiddleware, secondMiddleware])
        let heard = Recorder<String>()
        let listener = store.observeActions { action in
            heard.append((action as? SetValueStringAction)?.value ?? "other")
        }
        store.dispatch(SetValueStringAction("OK"))
        #expect(heard.values == ["OK First Middleware Second Middleware"])
        listener.cancel()
    }

    /// `.instantly` on a member added while subscribed: "this happens inside `add`"; a member
    /// added while subscribed "starts from the value at the moment it is added".
    @Test func membersAddedWhileSubscribedStartFromTheCurrentValue() {
        let store = Store(reSwiftReducer: testReducer, state: TestAppState(testValue: 1))
        let consumer = StateConsumer<TestAppState>()
        let subscription = store.subscribe(consumer)
        store.dispatch(SetValueAction(2))
        let heard = Recorder<String>()
        consumer.add(\.testValue, options: .instantly) { old, new in heard.append("instant \(old ?? -1)→\(new ?? -1)") }
        #expect(heard.values == ["instant 2→2"])
        consumer.add(\.testValue) { old, new in heard.append("plain \(old ?? -1)→\(new ?? -1)") }
        store.dispatch(SetValueAction(2))
        store.dispatch(SetValueAction(3))
        #expect(heard.values == ["instant 2→2", "instant 2→3", "plain 2→3"])
        subscription.cancel()
    }

    /// Tokens and lifetimes: a bag cancels everything when emptied or released; an `owner:` member
    /// "is inert from the moment its owner is released".
    @Test func bagsAndOwnersEndRegistrations() {
        let store = Store(reSwiftReducer: testReducer, state: TestAppState())
        let consumer = StateConsumer<TestAppState>()
        let heard = Recorder<String>()
        var bag: ConsumerBag? = ConsumerBag()
        consumer.add(\.testValue) { _, new in heard.append("bagged \(new ?? -1)") }.store(in: bag!)
        store.subscribe(consumer).store(in: bag!)
        store.subscribe { _, new in heard.append("closure \(new.testValue ?? -1)") }.store(in: bag!)
        #expect(store.subscriberCount == 2)
        store.dispatch(SetValueAction(1))
        bag = nil
        #expect(store.subscriberCount == 0)
        #expect(consumer.count == 0)
        store.dispatch(SetValueAction(2))
        #expect(heard.values == ["bagged 1", "closure 1"])

        var owner: Probe? = Probe()
        let subscription = store.subscribe(consumer)
        consumer.add(\.testValue, owner: owner!) { _, _, new in heard.append("owned \(new ?? -1)") }
        #expect(consumer.count == 1)
        store.dispatch(SetValueAction(3))
        owner = nil
        #expect(consumer.count == 0)
        store.dispatch(SetValueAction(4))
        #expect(heard.values == ["bagged 1", "closure 1", "owned 3"])
        subscription.cancel()
    }

    /// Guarantee 1, "Removal is final": once `cancel()` returns on one thread, the callback is never
    /// started again while another thread dispatches.
    @Test func cancelFromAnotherThreadIsFinal() {
        let finished = finishesWithoutDeadlock(within: 60) {
            for _ in 0..<200 {
                let store = Store(initialState: 0, reducer: Reducer<Int> { (state, _: NoOpAction) in state += 1 })
                let cancelled = Slot(false)
                let late = Recorder<Int>()
                let started = DispatchSemaphore(value: 0)
                let subscription = store.subscribe { _, new in
                    if new == 1 { started.signal() }
                    if cancelled.value { late.append(new) }
                }
                let consumer = StateConsumer<Int>()
                consumer.add(\.self) { _, new in if cancelled.value { late.append(-new) } }
                let consumed = store.subscribe(consumer)
                DispatchQueue.concurrentPerform(iterations: 2) { index in
                    if index == 0 {
                        for _ in 0..<300 { store.dispatch(NoOpAction()) }
                    } else {
                        started.wait()
                        subscription.cancel()
                        consumed.cancel()
                        cancelled.value = true
                    }
                }
                #expect(late.values.isEmpty)
                if !late.values.isEmpty { break }
            }
        }
        #expect(finished)
    }

    // MARK: ReSwift-Consumer's page controller (RePageController / MainVc)

    private struct MainState: Sendable, Equatable {
        var count: Int
    }

    private enum MainAction: Action {
        case increment
    }

    private final class Screen: Sendable {
        let page: PageStore<MainState, TestAppState>
        let log: Recorder<String>

        init(appStore: Store<TestAppState>, log: Recorder<String>) {
            self.log = log
            page = PageStore(
                global: appStore,
                initialState: { app in MainState(count: app.testValue ?? 0) },
                reducer: Reducer<MainState> { (state, _: MainAction) in state.count += 1 }
            )
            page.globalConsumer.add(\.testValue, owner: self) { screen, old, new in
                screen.log.append("global \(old ?? -1)→\(new ?? -1)")
            }
            page.consumer.add(\.count, owner: self) { screen, old, new in
                screen.log.append("page \(old)→\(new)")
            }
        }
    }

    /// ReSwift-Consumer's `MainVc` with `RePageController`: a page consumes the global and its own
    /// state, and leaves the global store as it found it when its owner goes.
    @Test func pageStoreLivesAsLongAsItsOwner() {
        let appStore = Store(reSwiftReducer: testReducer, state: TestAppState(testValue: 10))
        let log = Recorder<String>()
        let baseline = appStore.subscriberCount
        weak var weakScreen: Screen?
        do {
            let screen = Screen(appStore: appStore, log: log)
            weakScreen = screen
            #expect(screen.page.state.count == 10)
            #expect(appStore.subscriberCount == baseline + 1)
            appStore.dispatch(SetValueAction(11))
            screen.page.dispatch(MainAction.increment)
            screen.page.dispatchGlobal(SetValueAction(12))
            #expect(log.values == ["global 10→11", "page 10→11", "global 11→12"])
        }
        #expect(weakScreen == nil)
        #expect(appStore.subscriberCount == baseline)
        appStore.dispatch(SetValueAction(13))
        #expect(log.values == ["global 10→11", "page 10→11", "global 11→12"])
    }

    /// `close()`: "Later dispatches are ignored and reported …, never a crash."
    @Test func closedPageIgnoresAndReportsDispatches() {
        let appStore = Store(reSwiftReducer: testReducer, state: TestAppState(testValue: 0))
        let reports = Recorder<String>()
        let page = PageStore<MainState, TestAppState>(
            global: appStore,
            initialState: { _ in MainState(count: 0) },
            reducer: Reducer<MainState> { (state, _: MainAction) in state.count += 1 },
            diagnostics: { reports.append($0) }
        )
        let heard = Recorder<Int>()
        page.consumer.add(\.count) { new in heard.append(new) }
        page.globalConsumer.add(\.testValue) { _ in heard.append(-1) }
        page.dispatch(MainAction.increment)
        #expect(heard.values == [1])
        #expect(appStore.subscriberCount == 1)

        page.close()
        #expect(page.isClosed)
        #expect(appStore.subscriberCount == 0)
        page.dispatch(MainAction.increment)
        page.dispatchGlobal(SetValueAction(5))
        #expect(page.state.count == 1)
        #expect(appStore.state.testValue == 0)
        #expect(heard.values == [1])
        #expect(reports.count == 2)
    }

    /// `forwardActions`: forwarded actions "reach the page's reducer after the global store reduced
    /// them and notified its subscribers".
    @Test func forwardedGlobalActionsReachThePageAfterGlobalSubscribers() {
        let appStore = Store(reSwiftReducer: testReducer, state: TestAppState(testValue: 0))
        let log = Recorder<String>()
        let page = PageStore<MainState, TestAppState>(
            global: appStore,
            initialState: { _ in MainState(count: 0) },
            reducer: Reducer<MainState> { state, action in
                if let action = action as? SetValueAction {
                    log.append("page reducer \(action.value ?? -1)")
                    state.count = action.value ?? 0
                }
            }
        )
        page.forwardActions { $0 is SetValueAction }
        let subscription = appStore.subscribe { _, new in log.append("global subscriber \(new.testValue ?? -1)") }

        appStore.dispatch(SetValueAction(7))
        #expect(page.state.count == 7)
        #expect(log.values == ["global subscriber 7", "page reducer 7"])
        subscription.cancel()
        page.close()
        #expect(appStore.subscriberCount == 0)
    }
}
