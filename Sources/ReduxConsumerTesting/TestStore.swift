import ReduxConsumer
import ReduxConsumerDiff

/// A store for tests: it runs a reducer, its middleware, its effects and its consumers as a unit,
/// and fails the test, with a diff of exactly what differed, whenever the store did something the
/// test did not say.
///
/// ```swift
/// @Test func incrementUpdatesTheCount() {
///     let store = TestStore(initialState: MainState(count: 10), reducer: mainReducer)
///     store.send(MainAction.increment) { $0.count = 11 }
///     store.finish()
/// }
/// ```
///
/// A wrong expectation fails at the `send` line and shows only the paths that differ:
///
/// ```text
/// State mismatch after send(increment):
///   ~ count: expected 11, actual 12
/// ```
///
/// ## Steps
/// A test is a sequence of steps, each an assertion about one action:
/// - ``send(_:fileID:filePath:line:column:_:)`` dispatches an action, as the screen would, and
///   checks the state right after that action was reduced.
/// - ``receive(_:timeout:fileID:filePath:line:column:_:)`` checks the next action that middleware,
///   an effect or a consumer dispatched to the store, in the order they were reduced, waiting for
///   it if it is dispatched later.
/// - ``receiveGlobal(_:timeout:fileID:filePath:line:column:)`` checks the next action that reached
///   the global store of a page under test.
/// - ``assertFired(_:old:new:fileID:filePath:line:column:)`` checks a consumer callback that the
///   last step caused (see `probe(_:named:isEqual:options:)`).
/// - ``finish(fileID:filePath:line:column:)`` ends the test: nothing may be left unasserted.
///
/// In an async test the same calls are awaited, and wait without blocking a thread:
///
/// ```swift
/// @Test func searchShowsTheResults() async {
///     let store = TestStore(initialState: SearchState(), reducer: searchReducer, effects: [search])
///     await store.send(SearchAction.query("swift")) { $0.isSearching = true }
///     await store.receive(SearchAction.results(["Swift"])) {
///         $0.isSearching = false
///         $0.results = ["Swift"]
///     }
///     await store.finish()
/// }
/// ```
///
/// ## Exhaustivity
/// By default (``Exhaustivity/on``) the test must account for everything:
/// - The closure given to `send` and `receive` is applied to the state after the previous step;
///   the result must equal the actual state, so every field the action changed must be set.
/// - Every action dispatched by middleware or an effect must be received, and every action that
///   reached the global store must be received with `receiveGlobal`, before the next `send` and
///   before `finish()`.
/// - Every firing of a probed consumer must be asserted before the next `send`, `receive` or
///   `finish()`; so a consumer that fires when it should not is a failure.
/// - No effect may still be running at `finish()` (the async `finish` waits for them first); the
///   failure names the action that started each one.
///
/// With ``Exhaustivity/off`` (integration tests) only what the test names is checked:
/// - The closure is applied to the *actual* state after the action; the step fails only if that
///   changes something, that is if a field the closure sets does not already have the value it
///   sets. Set absolute values (`$0.count = 11`, not `$0.count += 1`).
/// - `receive` and `receiveGlobal` skip the actions that do not match until one does; actions
///   never received are not failures.
/// - `assertFired` looks for a matching firing among those of the last step; firings never asserted
///   are not failures.
/// - Effects still running at `finish()` are not failures, and the async `finish` does not wait.
///
/// After every step the test store continues from the actual state, so one wrong expectation is
/// reported once, not at every later step.
///
/// ## Failure messages
/// A state mismatch has one line per differing path, with both values in the notation of
/// ``StateDiff``: `~` marks a value that differs, `+` one only the actual state has (an element
/// too many, an optional that should be `nil`), `-` one only the expected state has; `(none)`
/// stands for the missing side. Received actions, global actions, consumer firings left
/// unasserted and effects left running are listed one per line.
///
/// ## Pages
/// ``init(global:initialState:reducer:middleware:effects:fileID:filePath:line:column:)`` tests a
/// real ``PageStore`` built from a global store made for the test (a stub global state): the
/// page's forwarding, ``close()``, the global actions its middleware dispatches (checked with
/// `receiveGlobal`) and the global actions the test sends (``sendGlobal(_:fileID:filePath:line:column:)``)
/// all behave as in the app.
///
/// ## Threads
/// A test store belongs to the test that created it and is not `Sendable`. Its store is a real
/// store: middleware and effects may dispatch from any thread or task, and `receive` waits for
/// those actions, up to its timeout, without polling. The synchronous `receive` blocks the calling
/// thread while it waits; the async one suspends.
///
/// Failures are reported to Swift Testing when a Swift Testing test is running (so
/// `withKnownIssue` can expect them), otherwise to XCTest, at the file and line of the assertion.
public final class TestStore<State: Equatable & Sendable> {
    /// How much a test must assert; see the type's documentation for the exact rules.
    public enum Exhaustivity: Sendable, Hashable {
        /// Every state change, received action, probed consumer firing and running effect must be
        /// asserted.
        case on
        /// Only what the test names is checked.
        case off
    }

    /// How much the test must assert; ``Exhaustivity/on`` by default.
    ///
    /// Change it at any point; it applies from the next step on.
    public var exhaustivity = Exhaustivity.on

    /// Consumers of the state under test, fed by the store after every action; for a page, the
    /// page's own ``PageStore/consumer``.
    ///
    /// Bind the screen (or view model) under test here, as it binds to ``PageStore/consumer`` in
    /// the app; its callbacks run synchronously, before `send` returns.
    ///
    /// ```swift
    /// let screen = MainScreenModel()
    /// screen.bind(to: store.consumer)
    /// store.send(MainAction.increment) { $0.count = 11 }
    /// #expect(screen.countText == "11")
    /// ```
    public let consumer: StateConsumer<State>

    /// The current state of the store: after the last action reduced, asserted or not.
    public var state: State {
        subject.state()
    }

    let subject: Subject<State>
    let log: EventLog<State>
    /// The state after the last step: what the next exhaustive closure starts from.
    var expected: State
    /// Actions dispatched to the store and not yet asserted, oldest first.
    var receivedEvents = ReceivedQueue<EventLog<State>.Event>()
    /// Actions that reached the global store and not yet asserted, oldest first.
    var globalActions = ReceivedQueue<any Action>()
    /// Probed consumer firings not yet asserted: those of the last step, and `.instantly` calls.
    var dueFirings = DueFirings()
    /// The last step, as failure messages name it: `send(increment)`.
    var lastStep = "init"
    var probeNames: [Int: String] = [:]
    var isFinished = false
    let creationSite: CallSite
    private let subscriptions: [Subscription]
    /// The action listener on the global store of a page under test; cancelled by `finish()`, or
    /// on release.
    var globalRecording: Subscription?

    /// A probed consumer firing due for assertion, with the step that caused it.
    struct DueFiring {
        let firing: EventLog<State>.Firing
        let cause: String
    }

    /// Creates a test store around a store built from `initialState`, `reducer`, `middleware` and
    /// `effects`, exactly as `Store(initialState:reducer:middleware:effects:)` would build it.
    ///
    /// ```swift
    /// let store = TestStore(initialState: AppState(), reducer: appReducer, middleware: [logging])
    /// ```
    ///
    /// - Parameters:
    ///   - initialState: The state before any action.
    ///   - reducer: The reducer under test.
    ///   - middleware: The middleware under test, outermost first. A test store adds one middleware
    ///     of its own outside them, invisible to them, to tell sent actions from dispatched ones.
    ///   - effects: The effects under test (see ``Effect``); the actions they send are checked with
    ///     `receive`.
    ///   - fileID: Where the store was created; a store released without
    ///     ``finish(fileID:filePath:line:column:)`` reports what was left unasserted there.
    ///   - filePath: See `fileID`.
    ///   - line: See `fileID`.
    ///   - column: See `fileID`.
    public convenience init(
        initialState: State,
        reducer: Reducer<State>,
        middleware: [Middleware<State>] = [],
        effects: [Effect<State>] = [],
        fileID: StaticString = #fileID,
        filePath: StaticString = #filePath,
        line: UInt = #line,
        column: UInt = #column
    ) {
        let instrumented = Instrumented(reducer, middleware)
        let store = Store(
            initialState: initialState,
            reducer: instrumented.reducer,
            middleware: instrumented.middleware,
            effects: effects
        )
        let consumer = StateConsumer<State>()
        self.init(
            subject: Subject(store: store),
            log: instrumented.log,
            consumer: consumer,
            subscriptions: [store.subscribe(consumer)],
            site: CallSite(fileID: fileID, filePath: filePath, line: line, column: column)
        )
    }

    init(
        subject: Subject<State>,
        log: EventLog<State>,
        consumer: StateConsumer<State>,
        subscriptions: [Subscription],
        site: CallSite
    ) {
        self.subject = subject
        self.log = log
        self.consumer = consumer
        self.subscriptions = subscriptions
        expected = subject.state()
        creationSite = site
    }

    deinit {
        globalRecording?.cancel()
        for subscription in subscriptions { subscription.cancel() }
        guard !isFinished else { return }
        completeEventsNow()
        absorb(log.take())
        let step = "the TestStore was released without finish()"
        settle(before: step, at: creationSite)
        reportRunningEffects("when \(step)", at: creationSite)
    }

    /// Sends `action` to the store, as the screen would, and checks the state right after that
    /// action was reduced.
    ///
    /// `updateExpectedState` describes the change: with ``Exhaustivity/on`` it is applied to the
    /// state after the previous step and the result must equal the actual state; with
    /// ``Exhaustivity/off`` it is applied to the actual state and must change nothing. Omit it when
    /// the action changes nothing. Actions that middleware or effects dispatch in response are
    /// reduced after the sent one and are checked with `receive`.
    ///
    /// ```swift
    /// store.send(MainAction.increment) { $0.count = 11 }
    /// ```
    ///
    /// With ``Exhaustivity/on``, received actions, global actions and probed firings left
    /// unasserted from earlier steps are reported here first. Sending to a closed page fails.
    ///
    /// - Parameters:
    ///   - action: The action to send.
    ///   - fileID: Where a failure is reported; leave the default.
    ///   - filePath: See `fileID`.
    ///   - line: See `fileID`.
    ///   - column: See `fileID`.
    ///   - updateExpectedState: Changes the expected state the way the action should.
    public func send(
        _ action: any Action,
        fileID: StaticString = #fileID,
        filePath: StaticString = #filePath,
        line: UInt = #line,
        column: UInt = #column,
        _ updateExpectedState: ((inout State) -> Void)? = nil
    ) {
        let site = CallSite(fileID: fileID, filePath: filePath, line: line, column: column)
        let step = "send(\(rendered(action: action)))"
        guard beginSend(step, at: site) else { return }
        subject.dispatch(SentAction(action: action))
        completeEventsNow()
        endSend(step, at: site, updateExpectedState)
    }

    /// Ends the test: with ``Exhaustivity/on``, reports every received action, global action and
    /// probed consumer firing that was not asserted, and every effect still running.
    ///
    /// Call it last, once the test has `receive`d what it expects. Effects still running are
    /// waited for up to `timeout`, blocking the calling thread (an effect whose last action was
    /// received may still be winding down on its own thread); in an async test, `await`
    /// ``finish(timeout:fileID:filePath:line:column:isolation:)``, which waits without blocking. A
    /// test store released without `finish()` makes the same checks when it deinitialises and
    /// reports them where it was created. Steps taken after `finish()` are checked as usual, and what
    /// they leave unasserted is reported by the next `finish()` or when the test store is released.
    /// For a page under test, it stops recording the global store's actions and removes its listener
    /// from that store.
    ///
    /// - Parameters:
    ///   - timeout: The longest to wait, in seconds, for effects still running to end; 1 by
    ///     default, as for the synchronous ``receive(_:timeout:fileID:filePath:line:column:_:)``,
    ///     and at most a day; negative or NaN does not wait.
    ///   - fileID: Where a failure is reported; leave the default.
    ///   - filePath: See `fileID`.
    ///   - line: See `fileID`.
    ///   - column: See `fileID`.
    public func finish(
        timeout: Double = 1,
        fileID: StaticString = #fileID,
        filePath: StaticString = #filePath,
        line: UInt = #line,
        column: UInt = #column
    ) {
        var waited: Double?
        if exhaustivity == .on, timeout > 0, !subject.runningEffects().isEmpty, !effectsEnd(within: timeout) {
            waited = timeout
        }
        completeEventsNow()
        let site = CallSite(fileID: fileID, filePath: filePath, line: line, column: column)
        endTest(at: site, step: "finish()", waited: waited)
    }
}

@available(*, unavailable)
extension TestStore: Sendable {}
