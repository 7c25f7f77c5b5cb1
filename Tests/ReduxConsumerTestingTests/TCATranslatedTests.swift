import Dispatch
import Foundation
import ReduxConsumer
import ReduxConsumerTesting
import Testing

// Translations of TCA's own test-store suites (pointfreeco/swift-composable-architecture,
// `Tests/ComposableArchitectureTests/TestStoreTests.swift`, `TestStoreNonExhaustiveTests.swift`,
// `EffectTests.swift`) to `TestStore`. Each test names the TCA test it comes from.
//
// How TCA maps here:
// - A reducer's `.send(…)`/`.merge(.send…)`/`.concatenate(.send…)` (synchronous follow-ups) is a
//   middleware that dispatches after `next`: those actions run right after the sent one, in order.
// - A `.run { send in … }` effect is an `Effect`; TCA's test schedulers and clocks are `Gate`s the
//   test opens, and a test that must know an effect is done awaits a signal the effect gives.
// - `.cancellable(id:)` is an effect `id` ("latest wins"); `.cancel(id:)` is another effect with the
//   same `id`, or `PageStore.cancelEffects(id:)`; a dismissed store is a closed page.
// - `receive(\.case)` and `receive { predicate }` are `receive(Type.self, where:)`.
// - `exhaustivity = .off` and `.off(showSkippedAssertions: true)` are both `.off` here.
// Not translated: dependencies (`withDependencies`), `skipReceivedActions`, `skipInFlightEffects`,
// `assert`, `XCTModify`, `TestStoreTask` and Combine publishers (no equivalent API).
//
// Documented differences, tested as documented:
// - `store.state` "is the current state of the store: after the last action reduced, asserted or
//   not" (TCA's is the state after the last asserted step).

// MARK: - Fixtures

private enum ConcatAction: Action, Equatable {
    case a, b1, b2, b3, c1, c2, c3, d
}

private struct Nothing: Equatable, Sendable {}

private let noChange = Reducer<Nothing> { _, _ in }

/// A middleware that dispatches `followUps`, in order, after each `trigger` was reduced: TCA's
/// `return .concatenate(.send(…), …)`.
private func sending<State, A: Action & Equatable>(_ followUps: [A], after trigger: A) -> Middleware<State> {
    { dispatch, _ in
        { next in
            { action in
                next(action)
                if action as? A == trigger {
                    for followUp in followUps { dispatch(followUp) }
                }
            }
        }
    }
}

private enum TapAction: Action, Equatable {
    case tap
    case response(Int)
}

private struct Changing: Equatable, Sendable {
    var count = 0
    var isChanging = false
}

private enum ChangingAction: Action, Equatable {
    case increment
    case changed(from: Int, to: Int)
}

private enum NoopAction: Action, Equatable {
    case noop, finished
}

private enum LetterAction: Action, Equatable {
    case a, b, c, d
}

private enum DelegateAction: Action, Equatable {
    enum Delegate: Equatable, Sendable { case success(Int) }
    case tap
    case delegate(Delegate)
}

/// TCA's `Counter` of the non-exhaustive tests.
private struct CounterState: Equatable, Sendable {
    var count = 0
    var isEven = true
}

private enum CounterAction: Action, Equatable {
    case increment, decrement
}

private let counterReducer = Reducer<CounterState> { (state, action: CounterAction) in
    switch action {
    case .increment: state.count += 1
    case .decrement: state.count -= 1
    }
    state.isEven.toggle()
}

/// TCA's `NonExhaustiveReceive`: `onAppear` resets, then `.merge(.send(.response1(42)),
/// .send(.response2("Hello")))`.
private struct ReceiveState: Equatable, Sendable {
    var count = 0
    var int = 0
    var string = ""
}

private enum ReceiveAction: Action, Equatable {
    case onAppear
    case response1(Int)
    case response2(String)
}

private let receiveReducer = Reducer<ReceiveState> { (state, action: ReceiveAction) in
    switch action {
    case .onAppear:
        state = ReceiveState()
    case .response1(let int):
        state.count += 1
        state.int = int
    case .response2(let string):
        state.count += 1
        state.string = string
    }
}

private func makeReceiveStore() -> TestStore<ReceiveState> {
    TestStore(
        initialState: ReceiveState(),
        reducer: receiveReducer,
        middleware: [sending([ReceiveAction.response1(42), .response2("Hello")], after: ReceiveAction.onAppear)]
    )
}

private func isResponse1(_ action: ReceiveAction) -> Bool {
    if case .response1 = action { true } else { false }
}

private func isResponse2(_ action: ReceiveAction) -> Bool {
    if case .response2 = action { true } else { false }
}

/// TCA's `KrzysztofExample`.
private struct Person: Equatable, Sendable {
    var name = "Krzysztof"
    var surname = "Zabłocki"
    var age = 33
    var mood = 0
}

private enum PersonAction: Action, Equatable {
    case changeIdentity(name: String, surname: String)
    case changeAge(Int)
    case changeMood(Int)
    case advanceAgeAndMoodAfterDelay
}

private let personReducer = Reducer<Person> { (state, action: PersonAction) in
    switch action {
    case .changeIdentity(let name, let surname):
        state.name = name
        state.surname = surname
    case .changeAge(let age): state.age = age
    case .changeMood(let mood): state.mood = mood
    case .advanceAgeAndMoodAfterDelay: break
    }
}

private enum ResponseAction: Action, Equatable {
    case tap, response1, response2
}

/// Signals an effect gives and the test awaits, one per `signal()`, in order.
private final class Signals: Sendable {
    private let gates = (0..<8).map { _ in Gate() }
    private let counts = Lock((given: 0, awaited: 0))

    func signal() {
        let index = counts.withLock { counts in
            defer { counts.given += 1 }
            return counts.given
        }
        gates[index].open()
    }

    /// Waits for the next signal.
    func next() async {
        let index = counts.withLock { counts in
            defer { counts.awaited += 1 }
            return counts.awaited
        }
        await gates[index].wait()
    }
}

private enum AppAct: Action, Equatable { case background }
private enum PageAct: Action, Equatable { case saved, start, step, done }

private struct PageState: Equatable, Sendable {
    var isPaused = false
    var saved = false
    var steps = 0
}

private let pageReducer = Reducer<PageState> { state, action in
    switch action {
    case AppAct.background: state.isPaused = true
    case PageAct.saved: state.saved = true
    case PageAct.step, PageAct.done: state.steps += 1
    default: break
    }
}

private func makeGlobal() -> Store<Int> {
    Store(initialState: 0, reducer: Reducer<Int> { _, _ in })
}

// MARK: - Suite

struct TCATranslatedTests {

    // MARK: TestStoreTests.swift

    /// `testEffectConcatenation`: an effect sends `b1` then `c1` once its clock advances; each has two
    /// synchronous follow-ups; a second effect never ends until `d` cancels it (by its id).
    @Test func effectConcatenation() async {
        let clock = Gate()
        let neverEnded = Flag()
        let store = TestStore(
            initialState: Nothing(),
            reducer: noChange,
            middleware: [
                sending([ConcatAction.b2, .b3], after: ConcatAction.b1),
                sending([ConcatAction.c2, .c3], after: ConcatAction.c1),
            ],
            effects: [
                Effect.on(ConcatAction.self, when: { $0 == .a }) { _, context in
                    await clock.wait()
                    await context.send(ConcatAction.b1)
                    await context.send(ConcatAction.c1)
                },
                Effect.on(ConcatAction.self, when: { $0 == .a }, id: { _ in 1 }) { _, _ in
                    await Gate().wait()  // `Task.never()`: ends only when cancelled
                    neverEnded.set()
                },
                // `.cancel(id: 1)`: an effect with the same id replaces the running one.
                Effect.on(ConcatAction.self, when: { $0 == .d }, id: { _ in 1 }) { _, _ in },
            ]
        )
        await store.send(ConcatAction.a)
        clock.open()
        await store.receive(ConcatAction.b1, timeout: patience)
        await store.receive(ConcatAction.b2, timeout: patience)
        await store.receive(ConcatAction.b3, timeout: patience)
        await store.receive(ConcatAction.c1, timeout: patience)
        await store.receive(ConcatAction.c2, timeout: patience)
        await store.receive(ConcatAction.c3, timeout: patience)
        await store.send(ConcatAction.d)
        await store.finish(timeout: patience)
        #expect(neverEnded.isSet)
    }

    /// `testAsync`.
    @Test func async() async {
        let store = TestStore(
            initialState: 0,
            reducer: Reducer<Int> { (state, action: TapAction) in
                if case .response(let number) = action { state = number }
            },
            effects: [
                Effect.on(TapAction.self, when: { $0 == .tap }) { _, context in
                    await context.send(TapAction.response(42))
                }
            ]
        )
        await store.send(TapAction.tap)
        await store.receive(TapAction.response(42), timeout: patience) { $0 = 42 }
        await store.finish(timeout: patience)
    }

    /// `testExpectedStateEquality`: a wrong expectation fails, at `send` and at `receive`.
    @Test func expectedStateEquality() {
        let announce: Middleware<Changing> = { dispatch, getState in
            { next in
                { action in
                    next(action)
                    if action as? ChangingAction == .increment, let state = getState() {
                        dispatch(ChangingAction.changed(from: state.count, to: state.count + 1))
                    }
                }
            }
        }
        let store = TestStore(
            initialState: Changing(),
            reducer: Reducer<Changing> { (state, action: ChangingAction) in
                switch action {
                case .increment:
                    state.isChanging = true
                case .changed(let from, let to):
                    state.isChanging = false
                    if state.count == from { state.count = to }
                }
            },
            middleware: [announce]
        )
        store.send(ChangingAction.increment) { $0.isChanging = true }
        store.receive(ChangingAction.changed(from: 0, to: 1)) {
            $0.isChanging = false
            $0.count = 1
        }

        expectFailure("State mismatch after send(increment):\n  ~ isChanging: expected false, actual true") {
            store.send(ChangingAction.increment) { $0.isChanging = false }
        }
        let expected = """
            State mismatch after receive(changed(from: 1, to: 2)):
              ~ count: expected 1100, actual 2
              ~ isChanging: expected true, actual false
            """
        expectFailure(expected) {
            store.receive(ChangingAction.changed(from: 1, to: 2)) {
                $0.isChanging = true
                $0.count = 1100
            }
        }
        store.finish()
    }

    /// `testExpectedStateEqualityMustModify`. TCA fails a closure that modifies nothing ("Expected
    /// state to change, but no change occurred"). The README is silent; this test store compares
    /// states only, so a closure that sets the value the state already has passes.
    @Test func closureThatChangesNothingIsComparedOnly() {
        let store = TestStore(
            initialState: Changing(),
            reducer: Reducer<Changing> { _, _ in },
            middleware: [sending([NoopAction.finished], after: NoopAction.noop)]
        )
        store.send(NoopAction.noop)
        store.receive(NoopAction.finished)
        store.send(NoopAction.noop) { $0.count = 0 }
        store.receive(NoopAction.finished) { $0.count = 0 }
        store.finish()
    }

    /// `testReceiveActionMatchingPredicate`.
    @Test func receiveActionMatchingPredicate() {
        let store = TestStore(
            initialState: 0,
            reducer: Reducer<Int> { _, _ in },
            middleware: [sending([NoopAction.finished], after: NoopAction.noop)]
        )
        let predicateCalled = Flag()
        store.send(NoopAction.noop)
        store.receive(
            NoopAction.self,
            where: { action in
                predicateCalled.set()
                return action == .finished
            })
        #expect(predicateCalled.isSet)

        store.send(NoopAction.noop)
        expectFailure("Expected to receive noop, but received finished first.") {
            store.receive(NoopAction.noop)
        }

        store.send(NoopAction.noop)
        expectFailure("Expected to receive a NoopAction action matching the predicate, but received finished first.") {
            store.receive(NoopAction.self, where: { $0 == .noop })
        }
        store.finish()
    }

    /// `testStateAccess`. Documented difference: `store.state` is "after the last action reduced,
    /// asserted or not", so the synchronous follow-ups are in it at once; each step's closure still
    /// starts from the state after the previous step.
    @Test func stateAccess() {
        let store = TestStore(
            initialState: 0,
            reducer: Reducer<Int> { (count, _: LetterAction) in count += 1 },
            middleware: [sending([LetterAction.b, .c, .d], after: LetterAction.a)]
        )
        store.send(LetterAction.a) {
            #expect($0 == 0)
            $0 = 1
            #expect(store.state == 4)
        }
        #expect(store.state == 4)
        store.receive(LetterAction.b) {
            #expect($0 == 1)
            $0 = 2
        }
        store.receive(LetterAction.c) {
            #expect($0 == 2)
            $0 = 3
        }
        store.receive(LetterAction.d) {
            #expect($0 == 3)
            $0 = 4
        }
        #expect(store.state == 4)
        store.finish()
    }

    /// `testReceiveCaseKeyPathWithValue`: a case with a payload, matched by predicate.
    @Test func receiveCaseWithValue() {
        let store = TestStore(
            initialState: 0,
            reducer: Reducer<Int> { _, _ in },
            middleware: [sending([DelegateAction.delegate(.success(42))], after: DelegateAction.tap)]
        )
        store.send(DelegateAction.tap)
        store.receive(DelegateAction.self, where: { $0 == .delegate(.success(42)) })

        store.send(DelegateAction.tap)
        let message =
            "Expected to receive a DelegateAction action matching the predicate, but received "
            + "\(DelegateAction.delegate(.success(42))) first."
        expectFailure(message) {
            store.receive(DelegateAction.self, where: { $0 == .delegate(.success(43)) })
        }
        store.finish()
    }

    /// `testDismissCancelsEffects`: a page closed (TCA's `dismiss`) cancels its running effects,
    /// which `finish()` then does not report.
    @Test func closingThePageCancelsItsEffects() async {
        let cancelled = Flag()
        let store = TestStore(
            global: Store(initialState: 0, reducer: Reducer<Int> { _, _ in }),
            initialState: { _ in Nothing() },
            reducer: noChange,
            effects: [
                Effect.on(NoopAction.self) { _, _ in
                    if await !Gate().wait() { cancelled.set() }
                }
            ]
        )
        await store.send(NoopAction.noop)
        store.close()
        await store.finish(timeout: patience)
        #expect(cancelled.isSet)
    }

    /// `testDismissedStoreSend`: sending to a dismissed (closed) page fails.
    @Test func sendingToAClosedPageFails() async {
        let store = TestStore(
            global: Store(initialState: 0, reducer: Reducer<Int> { _, _ in }),
            initialState: { _ in Nothing() },
            reducer: noChange
        )
        store.close()
        await expectFailure("send(noop) after close(): a closed page ignores every action.") {
            await store.send(NoopAction.noop)
        }
        await store.finish()
    }

    /// TCA's `.cancel(id:)` from outside the reducer: `PageStore.cancelEffects(id:)` ends the
    /// effect, and `finish()` has nothing to report.
    @Test func cancellingAnEffectByIdEndsIt() async {
        let cancelled = Flag()
        let store = TestStore(
            global: Store(initialState: 0, reducer: Reducer<Int> { _, _ in }),
            initialState: { _ in Nothing() },
            reducer: noChange,
            effects: [
                Effect.on(NoopAction.self, id: { _ in "timer" }) { _, _ in
                    if await !Gate().wait() { cancelled.set() }
                }
            ]
        )
        await store.send(NoopAction.noop)
        store.page(global: Int.self).cancelEffects(id: "timer")
        await store.finish(timeout: patience)
        #expect(cancelled.isSet)
    }

    // MARK: TestStoreNonExhaustiveTests.swift

    /// `testIgnoreReceiveActions_NonExhaustive` and `testIgnoreInFlightEffects_NonExhaustive`: a
    /// non-exhaustive test store may end (here released without `finish()`) with actions not
    /// received and effects still running.
    @Test func nonExhaustiveStoreIgnoresUnreceivedActionsAndRunningEffects() async {
        let gate = Gate()
        do {
            let store = TestStore(
                initialState: 0,
                reducer: Reducer<Int> { _, _ in },
                middleware: [sending([NoopAction.finished], after: NoopAction.noop)],
                effects: [Effect.on(NoopAction.self, when: { $0 == .noop }) { _, _ in await gate.wait() }]
            )
            store.exhaustivity = .off
            await store.send(NoopAction.noop)
        }
        do {
            let store = TestStore(
                initialState: 0,
                reducer: Reducer<Int> { _, _ in },
                middleware: [sending([NoopAction.finished], after: NoopAction.noop)],
                effects: [Effect.on(NoopAction.self, when: { $0 == .noop }) { _, _ in await gate.wait() }]
            )
            store.exhaustivity = .off
            await store.send(NoopAction.noop)
            await store.finish(timeout: patience)
        }
        gate.open()
    }

    /// `testNonExhaustiveSend_PartialExhaustive` / `_NonExhaustive` / `_Prefix`.
    @Test func nonExhaustiveSendChecksOnlyWhatTheClosureSets() {
        let store = TestStore(initialState: CounterState(), reducer: counterReducer)
        store.exhaustivity = .off
        store.send(CounterAction.increment) { $0.count = 1 }
        store.send(CounterAction.increment) { $0.isEven = true }
        store.send(CounterAction.increment) {
            $0.count = 3
            $0.isEven = false
        }
        store.finish()
    }

    /// `testNonExhaustiveSend_PartialExhaustive_BadAssertion`.
    @Test func nonExhaustiveSendStillFailsOnAWrongValue() {
        let store = TestStore(initialState: CounterState(), reducer: counterReducer)
        store.exhaustivity = .off
        let expected = """
            State mismatch after send(increment) (non-exhaustive: only the fields the closure sets are checked):
              ~ count: expected 0, actual 1
            """
        expectFailure(expected) {
            store.send(CounterAction.increment) { $0.count = 0 }
        }
        store.finish()
    }

    /// `testSend_SkipReceivedActions`: sending with a follow-up not received.
    @Test func nonExhaustiveSendSkipsUnreceivedActions() {
        struct State: Equatable, Sendable {
            var count = 0
            var isLoggedIn = false
        }
        enum LoginAction: Action, Equatable {
            case decrement, increment
            case loggedInResponse(Bool)
        }
        let store = TestStore(
            initialState: State(),
            reducer: Reducer<State> { (state, action: LoginAction) in
                switch action {
                case .decrement: state.count -= 1
                case .increment: state.count += 1
                case .loggedInResponse(let response): state.isLoggedIn = response
                }
            },
            middleware: [sending([LoginAction.loggedInResponse(true)], after: LoginAction.increment)]
        )
        store.exhaustivity = .off
        store.send(LoginAction.increment) { $0.count = 1 }
        store.send(LoginAction.decrement) { $0.count = 0 }
        #expect(store.state == State(count: 0, isLoggedIn: true))
        store.finish()

        // `testSend_SkipReceivedActions_BadAssertion`.
        let strict = TestStore(
            initialState: State(),
            reducer: Reducer<State> { (state, action: LoginAction) in
                switch action {
                case .decrement: state.count -= 1
                case .increment: state.count += 1
                case .loggedInResponse(let response): state.isLoggedIn = response
                }
            },
            middleware: [sending([LoginAction.loggedInResponse(true)], after: LoginAction.increment)]
        )
        strict.exhaustivity = .off
        strict.send(LoginAction.increment) { $0.count = 1 }
        let expected = """
            State mismatch after receive(loggedInResponse(true)) (non-exhaustive: only the fields the closure sets are checked):
              ~ count: expected 2, actual 1
            """
        expectFailure(expected) {
            strict.receive(LoginAction.loggedInResponse(true)) {
                $0.count = 2
                $0.isLoggedIn = true
            }
        }
        strict.finish()
    }

    /// `testMultipleSendsWithAssertionOnLast`.
    @Test func multipleSendsWithAssertionOnLast() {
        let store = TestStore(initialState: CounterState(), reducer: counterReducer)
        store.exhaustivity = .off
        store.send(CounterAction.increment)
        #expect(store.state == CounterState(count: 1, isEven: false))
        store.send(CounterAction.increment)
        #expect(store.state == CounterState(count: 2, isEven: true))
        store.send(CounterAction.increment) { $0.count = 3 }
        #expect(store.state == CounterState(count: 3, isEven: false))
        store.finish()
    }

    /// `testReceive_StateChange`. Documented difference in `store.state` (see the file's header):
    /// the follow-ups are reduced before `send` returns.
    @Test func nonExhaustiveReceiveChecksOnlyWhatTheClosureSets() {
        let store = makeReceiveStore()
        store.exhaustivity = .off
        store.send(ReceiveAction.onAppear)
        #expect(store.state == ReceiveState(count: 2, int: 42, string: "Hello"))
        store.receive(ReceiveAction.response1(42)) { $0.int = 42 }
        store.receive(ReceiveAction.response2("Hello")) { $0.string = "Hello" }
        store.finish()
    }

    /// `testReceive_SkipAction`.
    @Test func nonExhaustiveReceiveSkipsAnAction() {
        let store = makeReceiveStore()
        store.exhaustivity = .off
        store.send(ReceiveAction.onAppear)
        store.receive(ReceiveAction.response2("Hello")) {
            $0.count = 2
            $0.string = "Hello"
        }
        store.finish()
    }

    /// `testSendWithUnreceivedAction`.
    @Test func nonExhaustiveSendWithUnreceivedActions() {
        let store = makeReceiveStore()
        store.exhaustivity = .off
        store.send(ReceiveAction.onAppear)
        store.send(ReceiveAction.onAppear)
        #expect(store.state == ReceiveState(count: 2, int: 42, string: "Hello"))
        store.finish()
    }

    /// `testSendWithUnreceivedActions_SkipsActions`: an effect's answers left unreceived between
    /// sends; the effect signals once its answer was reduced.
    @Test func nonExhaustiveSendSkipsAnEffectsUnreceivedActions() async {
        let answered = Signals()
        let store = TestStore(
            initialState: 0,
            reducer: Reducer<Int> { (state, action: TapAction) in
                switch action {
                case .tap: state += 1
                case .response(let number): state = number
                }
            },
            effects: [
                Effect.on(TapAction.self, when: { $0 == .tap }) { _, context in
                    guard let state = context.state else { return }
                    await context.send(TapAction.response(state + 42))
                    answered.signal()
                }
            ]
        )
        store.exhaustivity = .off
        await store.send(TapAction.tap)
        await answered.next()
        #expect(store.state == 43)
        await store.send(TapAction.tap)
        await answered.next()
        #expect(store.state == 86)
        await store.finish(timeout: patience)
    }

    /// `testCasePathReceive_NonExhaustive` and `testCasePathReceive_Exhaustive`.
    @Test func receiveByCase() {
        let loose = makeReceiveStore()
        loose.exhaustivity = .off
        loose.send(ReceiveAction.onAppear)
        loose.receive(ReceiveAction.self, where: isResponse1) { $0.int = 42 }
        loose.receive(ReceiveAction.self, where: isResponse2) { $0.string = "Hello" }
        loose.finish()

        let strict = makeReceiveStore()
        strict.send(ReceiveAction.onAppear)
        strict.receive(ReceiveAction.self, where: isResponse1) {
            $0.count = 1
            $0.int = 42
        }
        strict.receive(ReceiveAction.self, where: isResponse2) {
            $0.count = 2
            $0.string = "Hello"
        }
        strict.finish()
    }

    /// `testCasePathReceive_Exhaustive_NonEquatable` / `testPredicateReceive_Exhaustive_NonEquatable`.
    @Test func receiveANonEquatableActionByCase() {
        struct NonEquatable: Sendable {}
        enum Tap: Action {
            case tap
            case response(NonEquatable)
        }
        let respond: Middleware<Int> = { dispatch, _ in
            { next in
                { action in
                    next(action)
                    if case .tap? = action as? Tap { dispatch(Tap.response(NonEquatable())) }
                }
            }
        }
        let store = TestStore(initialState: 0, reducer: Reducer<Int> { _, _ in }, middleware: [respond])
        store.send(Tap.tap)
        store.receive(Tap.self, where: { if case .response = $0 { true } else { false } })
        store.finish()
    }

    /// `testCasePathReceive_SkipReceivedAction`.
    @Test func nonExhaustiveReceiveByCaseSkipsAnAction() {
        let store = makeReceiveStore()
        store.exhaustivity = .off
        store.send(ReceiveAction.onAppear)
        store.receive(ReceiveAction.self, where: isResponse2) { $0.string = "Hello" }
        store.finish()
    }

    /// `testCasePathReceive_WrongAction`: the sent action is never "received"; the failed receive
    /// takes nothing, so the two follow-ups are still received after it.
    @Test func nonExhaustiveReceiveOfTheSentActionFailsAndLeavesTheRest() {
        let store = makeReceiveStore()
        store.exhaustivity = .off
        store.send(ReceiveAction.onAppear)
        let expected = """
            Expected to receive a ReceiveAction action matching the predicate within 0.05 seconds, but received only:
              response1(42)
              response2("Hello")
            """
        expectFailure(expected) {
            store.receive(ReceiveAction.self, where: { $0 == .onAppear }, timeout: 0.05)
        }
        store.receive(ReceiveAction.self, where: isResponse1)
        store.receive(ReceiveAction.self, where: isResponse2)
        store.finish()
    }

    /// `testCasePathReceive_ReceivedExtraAction`: an action skipped on the way is gone.
    @Test func nonExhaustiveReceiveDoesNotComeBackForASkippedAction() {
        let store = makeReceiveStore()
        store.exhaustivity = .off
        store.send(ReceiveAction.onAppear)
        store.receive(ReceiveAction.self, where: isResponse2)
        expectFailure(
            "Expected to receive a ReceiveAction action matching the predicate within 0.05 seconds, but nothing was received."
        ) {
            store.receive(ReceiveAction.self, where: isResponse2, timeout: 0.05)
        }
        store.finish()
    }

    /// `testReceiveNonExhaustiveWithTimeout` and `…MultipleMatching`: an effect's actions, the
    /// first skipped.
    @Test func nonExhaustiveReceiveWaitsForTheMatchingEffectAction() async {
        let store = TestStore(
            initialState: Nothing(),
            reducer: noChange,
            effects: [
                Effect.on(ResponseAction.self, when: { $0 == .tap }) { _, context in
                    await context.send(ResponseAction.response1)
                    await context.send(ResponseAction.response2)
                    await context.send(ResponseAction.response2)
                }
            ]
        )
        store.exhaustivity = .off
        await store.send(ResponseAction.tap)
        await store.receive(ResponseAction.response2, timeout: patience)
        await store.receive(ResponseAction.response2, timeout: patience)
        await store.finish(timeout: patience)
    }

    /// `testReceiveNonExhaustiveWithTimeoutMultipleNonMatching`.
    @Test func nonExhaustiveReceiveFailsWhenOnlyOtherEffectActionsCome() async {
        let sent = Signals()
        let store = TestStore(
            initialState: Nothing(),
            reducer: noChange,
            effects: [
                Effect.on(ResponseAction.self, when: { $0 == .tap }) { _, context in
                    await context.send(ResponseAction.response1)
                    await context.send(ResponseAction.response1)
                    sent.signal()
                }
            ]
        )
        store.exhaustivity = .off
        await store.send(ResponseAction.tap)
        await sent.next()
        let expected = """
            Expected to receive response2 within 0.05 seconds, but received only:
              response1
              response1
            """
        await expectFailure(expected) {
            await store.receive(ResponseAction.response2, timeout: 0.05)
        }
        await store.finish(timeout: patience)
    }

    /// `testNonExhaustive_ShowSkippedAssertions_ExpectedStateToChange`.
    @Test func nonExhaustiveClosureThatChangesNothingPasses() {
        let store = TestStore(initialState: 0, reducer: Reducer<Int> { _, _ in })
        store.exhaustivity = .off
        store.send(NoopAction.noop) { $0 = 0 }
        store.finish()
    }

    /// `testKrzysztofExample1` and `testKrzysztofExample2`.
    @Test func krzysztofExamples1And2() {
        let first = TestStore(initialState: Person(), reducer: personReducer)
        first.exhaustivity = .off
        first.send(PersonAction.changeIdentity(name: "Marek", surname: "Ignored")) { $0.name = "Marek" }
        first.finish()

        let second = TestStore(initialState: Person(), reducer: personReducer)
        second.exhaustivity = .off
        second.send(PersonAction.changeIdentity(name: "Adam", surname: "Stern"))
        second.send(PersonAction.changeIdentity(name: "Piotr", surname: "Galiszewski"))
        second.send(PersonAction.changeIdentity(name: "Merowing", surname: "Info")) {
            $0.name = "Merowing"
            $0.surname = "Info"
        }
        second.finish()
    }

    /// `testKrzysztofExample3`: after a delay the effect sends two actions concurrently (`async
    /// let`); the test receives one of them, whatever their order.
    @Test func krzysztofExample3() async {
        let clock = Gate()
        let store = TestStore(
            initialState: Person(),
            reducer: personReducer,
            effects: [
                Effect.on(PersonAction.self, when: { $0 == .advanceAgeAndMoodAfterDelay }) { _, context in
                    guard let state = context.state else { return }
                    await clock.wait()
                    async let changeAge: Void = context.send(PersonAction.changeAge(state.age + 1))
                    async let changeMood: Void = context.send(PersonAction.changeMood(state.mood + 1))
                    _ = await (changeAge, changeMood)
                }
            ]
        )
        store.exhaustivity = .off
        await store.send(PersonAction.advanceAgeAndMoodAfterDelay)
        clock.open()
        await store.receive(PersonAction.changeAge(34), timeout: patience) { $0.age = 34 }
        #expect(store.state.age == 34)
        await store.finish(timeout: patience)
    }

    // MARK: EffectTests.swift

    /// `testConcatenate`: one effect's actions arrive in the order it sends them.
    @Test func effectActionsArriveInTheOrderSent() async {
        let clock = Gate()
        let store = TestStore(
            initialState: 0,
            reducer: Reducer<Int> { (state, action: TapAction) in
                if case .response(let number) = action { state = number }
            },
            effects: [
                Effect.on(TapAction.self, when: { $0 == .tap }) { _, context in
                    await clock.wait()
                    for count in 1...3 { await context.send(TapAction.response(count)) }
                }
            ]
        )
        await store.send(TapAction.tap)
        clock.open()
        for count in 1...3 {
            await store.receive(TapAction.response(count), timeout: patience) { $0 = count }
        }
        await store.finish(timeout: patience)
    }

    /// `testMerge`: three effects of one action run at once; each answers when its own clock
    /// advances.
    @Test func mergedEffectsAnswerAsTheirClocksAdvance() async {
        let clocks = [Gate(), Gate(), Gate()]
        let store = TestStore(
            initialState: 0,
            reducer: Reducer<Int> { (state, action: TapAction) in
                if case .response(let number) = action { state = number }
            },
            effects: (1...3).map { count in
                Effect.on(TapAction.self, when: { $0 == .tap }) { _, context in
                    await clocks[count - 1].wait()
                    await context.send(TapAction.response(count))
                }
            }
        )
        await store.send(TapAction.tap)
        for count in 1...3 {
            clocks[count - 1].open()
            await store.receive(TapAction.response(count), timeout: patience) { $0 = count }
        }
        await store.finish(timeout: patience)
    }

    /// `testDoubleCancelInFlight`: two effects with the same id started by one action; the second
    /// cancels the first ("latest wins"), whose later send is ignored ("sends after cancellation
    /// are ignored"): exactly one answer.
    @Test func aReplacedEffectsLaterSendIsIgnored() async {
        let clock = Gate()
        let store = TestStore(
            initialState: 0,
            reducer: Reducer<Int> { (state, action: TapAction) in
                if case .response(let number) = action { state = number }
            },
            effects: [
                Effect.on(TapAction.self, when: { $0 == .tap }, id: { _ in "id" }) { _, context in
                    await clock.wait()
                    await context.send(TapAction.response(1))
                },
                Effect.on(TapAction.self, when: { $0 == .tap }, id: { _ in "id" }) { _, context in
                    await context.send(TapAction.response(42))
                },
            ]
        )
        await store.send(TapAction.tap)
        await store.receive(TapAction.response(42), timeout: patience) { $0 = 42 }
        clock.open()
        await store.finish(timeout: patience)
    }
    // MARK: Beyond TCA: what the mappings above rely on

    /// TCA's parent-to-child action with an effect: a forwarded global action reaches the page's
    /// reducer, is received as itself, and starts the page's effect, whose action is received next.
    @Test func aForwardedGlobalActionStartsThePagesEffect() async {
        let store = TestStore(
            global: makeGlobal(),
            initialState: { _ in PageState() },
            reducer: pageReducer,
            effects: [Effect.on(AppAct.self) { _, context in await context.send(PageAct.saved) }]
        )
        store.page(global: Int.self).forwardActions { $0 is AppAct }
        await store.sendGlobal(AppAct.background)
        await store.receive(AppAct.background, timeout: patience) { $0.isPaused = true }
        await store.receive(PageAct.saved, timeout: patience) { $0.saved = true }
        await store.finish(timeout: patience)
    }

    /// A page consumer that dispatches when it sees a change: the action it dispatched must be
    /// received, and is.
    @Test func anActionAConsumerDispatchesIsReceived() {
        let store = TestStore(global: makeGlobal(), initialState: { _ in PageState() }, reducer: pageReducer)
        let page = store.page(global: Int.self)
        page.consumer.add(\.steps) { [weak page] _, new in
            if new == 1 { page?.dispatch(PageAct.done) }
        }
        store.send(PageAct.step) { $0.steps = 1 }
        store.receive(PageAct.done) { $0.steps = 2 }
        store.finish()
    }

    /// TCA's `.send` followed by a `.run`: a follow-up action (from middleware) starts an effect;
    /// the async `finish` waits for it.
    @Test func anEffectStartedByAFollowUpActionIsWaitedFor() async {
        let clock = Gate()
        let store = TestStore(
            initialState: PageState(),
            reducer: pageReducer,
            middleware: [sending([PageAct.step], after: PageAct.start)],
            effects: [
                Effect.on(PageAct.self, when: { $0 == .step }) { _, context in
                    await clock.wait()
                    await context.send(PageAct.done)
                }
            ]
        )
        await store.send(PageAct.start)
        await store.receive(PageAct.step) { $0.steps = 1 }
        clock.open()
        await store.receive(PageAct.done, timeout: patience) { $0.steps = 2 }
        await store.finish(timeout: patience)
    }
}
