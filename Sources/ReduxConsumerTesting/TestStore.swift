import ReduxConsumer
import ReduxConsumerDiff

/// A store for tests: it runs a reducer, its middleware and its consumers as a unit, and fails the
/// test, with a diff of exactly what differed, whenever the store did something the test did not
/// say.
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
/// - ``receive(_:timeout:fileID:filePath:line:column:_:)`` checks the next action that middleware
///   (or a consumer) dispatched to the store, in the order they were reduced, waiting for it if it
///   is dispatched later from another thread.
/// - ``receiveGlobal(_:timeout:fileID:filePath:line:column:)`` checks the next action that reached
///   the global store of a page under test.
/// - ``assertFired(_:old:new:fileID:filePath:line:column:)`` checks a consumer callback that the
///   last step caused (see ``probe(_:named:)``).
/// - ``finish(fileID:filePath:line:column:)`` ends the test: nothing may be left unasserted.
///
/// ## Exhaustivity
/// By default (``Exhaustivity/on``) the test must account for everything:
/// - The closure given to `send` and `receive` is applied to the state after the previous step;
///   the result must equal the actual state, so every field the action changed must be set.
/// - Every action dispatched by middleware must be received, and every action that reached the
///   global store must be received with `receiveGlobal`, before the next `send` and before
///   `finish()`.
/// - Every firing of a probed consumer must be asserted before the next `send`, `receive` or
///   `finish()`; so a consumer that fires when it should not is a failure.
///
/// With ``Exhaustivity/off`` (integration tests) only what the test names is checked:
/// - The closure is applied to the *actual* state after the action; the step fails only if that
///   changes something, that is if a field the closure sets does not already have the value it
///   sets. Set absolute values (`$0.count = 11`, not `$0.count += 1`).
/// - `receive` and `receiveGlobal` skip the actions that do not match until one does; actions
///   never received are not failures.
/// - `assertFired` looks for a matching firing among those of the last step; firings never asserted
///   are not failures.
///
/// After every step the test store continues from the actual state, so one wrong expectation is
/// reported once, not at every later step.
///
/// ## Failure messages
/// A state mismatch has one line per differing path, with both values in the notation of
/// ``StateDiff``: `~` marks a value that differs, `+` one only the actual state has (an element
/// too many, an optional that should be `nil`), `-` one only the expected state has; `(none)`
/// stands for the missing side. Received actions, global actions and consumer firings left
/// unasserted are listed one per line.
///
/// ## Pages
/// ``init(global:initialState:reducer:middleware:fileID:filePath:line:column:)`` tests a page
/// store the way ``PageStore`` runs it: the page's initial state is built from a global store made
/// for the test (a stub global state), and the actions the page's middleware dispatches to that
/// global store are recorded for ``receiveGlobal(_:timeout:fileID:filePath:line:column:)``.
///
/// ## Threads
/// A test store belongs to the test that created it and is not `Sendable`. Its store is a real
/// ``Store``: middleware may dispatch from any thread, and `receive` waits for those actions, up to
/// its timeout, without polling. Actions still in flight when ``finish(fileID:filePath:line:column:)``
/// runs are not waited for; receive them first.
///
/// Failures are reported to Swift Testing when a Swift Testing test is running (so
/// `withKnownIssue` can expect them), otherwise to XCTest, at the file and line of the assertion.
public final class TestStore<State: Equatable & Sendable> {
    /// How much a test must assert; see the type's documentation for the exact rules.
    public enum Exhaustivity: Sendable, Hashable {
        /// Every state change, received action and probed consumer firing must be asserted.
        case on
        /// Only what the test names is checked.
        case off
    }

    /// How much the test must assert; ``Exhaustivity/on`` by default.
    ///
    /// Change it at any point; it applies from the next step on.
    public var exhaustivity = Exhaustivity.on

    /// Consumers of the state under test, fed by the store after every action.
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
        store.state
    }

    private let store: Store<State>
    let log: EventLog<State>
    /// The state after the last step: what the next exhaustive closure starts from.
    var expected: State
    /// Actions dispatched to the store and not yet asserted, oldest first.
    var receivedEvents: [EventLog<State>.Event] = []
    /// Actions that reached the global store and not yet asserted, oldest first.
    var globalActions: [any Action] = []
    /// Probed consumer firings caused by the last step and not yet asserted.
    var dueFirings: [EventLog<State>.Firing] = []
    /// The last step, as failure messages name it: `send(increment)`.
    var lastStep = "init"
    var probeNames: [Int: String] = [:]
    private var isFinished = false
    private let creationSite: CallSite
    private var subscriptions: [Subscription] = []
    /// The action listener on the global store of a page under test; cancelled by `finish()`, or
    /// on release.
    private var globalRecording: Subscription?

    /// Creates a test store around a store built from `initialState`, `reducer` and `middleware`,
    /// exactly as `Store(initialState:reducer:middleware:)` would build it.
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
    ///   - fileID: Where the store was created; a store released without
    ///     ``finish(fileID:filePath:line:column:)`` reports what was left unasserted there.
    ///   - filePath: See `fileID`.
    ///   - line: See `fileID`.
    ///   - column: See `fileID`.
    public init(
        initialState: State,
        reducer: Reducer<State>,
        middleware: [Middleware<State>] = [],
        fileID: StaticString = #fileID,
        filePath: StaticString = #filePath,
        line: UInt = #line,
        column: UInt = #column
    ) {
        let log = EventLog<State>()
        let store = Store(
            initialState: initialState,
            reducer: recording(reducer, into: log),
            middleware: [sendMarker(log)] + middleware
        )
        let consumer = StateConsumer<State>()
        // The consumer first, then the log: an action is finished once every consumer has run.
        subscriptions = [store.subscribe(consumer), store.subscribe { _, _ in log.didNotify() }]
        self.store = store
        self.log = log
        self.consumer = consumer
        expected = initialState
        creationSite = CallSite(fileID: fileID, filePath: filePath, line: line, column: column)
    }

    /// Creates a test store for a page, mirroring
    /// ``PageStore/init(global:initialState:reducer:middleware:deliveringOn:diagnostics:)``: the
    /// page's state is built from `global`'s current state, and every action that reaches `global`
    /// from now on is recorded for ``receiveGlobal(_:timeout:fileID:filePath:line:column:)``.
    ///
    /// Give it a global store made for the test, holding a stub global state; the page's
    /// middleware dispatches to it as it would to the app's store:
    ///
    /// ```swift
    /// let appStore = Store(initialState: AppState(foreground: true), reducer: appReducer)
    /// let store = TestStore(
    ///     global: appStore,
    ///     initialState: { app in MainState(count: app.foreground ? 10 : 0) },
    ///     reducer: mainReducer,
    ///     middleware: [mainMiddleware(global: appStore)]
    /// )
    /// ```
    ///
    /// The test store records `global`'s actions with an action listener
    /// (``Store/observeActions(_:)``), so it sees the actions the global store reduced, after its
    /// subscribers ran. The listener is removed by ``finish(fileID:filePath:line:column:)`` or when
    /// the test store is released: nothing stays on `global` (its ``Store/subscriberCount`` is back
    /// where it was).
    ///
    /// - Parameters:
    ///   - global: The global store the page reads and dispatches to.
    ///   - initialState: Builds the page's initial state from the global state; called once.
    ///   - reducer: The page's reducer.
    ///   - middleware: The page's middleware, outermost first.
    ///   - fileID: Where the store was created; see ``init(initialState:reducer:middleware:fileID:filePath:line:column:)``.
    ///   - filePath: See `fileID`.
    ///   - line: See `fileID`.
    ///   - column: See `fileID`.
    public convenience init<GlobalState: Sendable>(
        global: Store<GlobalState>,
        initialState: (GlobalState) -> State,
        reducer: Reducer<State>,
        middleware: [Middleware<State>] = [],
        fileID: StaticString = #fileID,
        filePath: StaticString = #filePath,
        line: UInt = #line,
        column: UInt = #column
    ) {
        self.init(
            initialState: initialState(global.state),
            reducer: reducer,
            middleware: middleware,
            fileID: fileID,
            filePath: filePath,
            line: line,
            column: column
        )
        let log = self.log
        globalRecording = global.observeActions { log.didReduceGlobal($0) }
    }

    deinit {
        globalRecording?.cancel()
        for subscription in subscriptions { subscription.cancel() }
        guard !isFinished else { return }
        absorb(log.take())
        settle(before: "the TestStore was released without finish()", at: creationSite)
    }

    /// Sends `action` to the store, as the screen would, and checks the state right after that
    /// action was reduced.
    ///
    /// `updateExpectedState` describes the change: with ``Exhaustivity/on`` it is applied to the
    /// state after the previous step and the result must equal the actual state; with
    /// ``Exhaustivity/off`` it is applied to the actual state and must change nothing. Omit it when
    /// the action changes nothing. Actions that middleware dispatches in response are reduced
    /// after the sent one and are checked with `receive`.
    ///
    /// ```swift
    /// store.send(MainAction.increment) { $0.count = 11 }
    /// ```
    ///
    /// With ``Exhaustivity/on``, received actions, global actions and probed firings left
    /// unasserted from earlier steps are reported here first.
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
        absorb(log.take())
        settle(before: step, at: site)
        store.dispatch(SentAction(action: action))
        var actual = expected
        var firings: [EventLog<State>.Firing] = []
        for event in log.take() {
            guard event.origin == .sent, let state = event.state else {
                absorb([event])
                continue
            }
            actual = state
            firings += event.firings
        }
        check(updateExpectedState, actual: actual, after: step, at: site)
        expected = actual
        dueFirings = firings
        lastStep = step
    }

    /// Ends the test: with ``Exhaustivity/on``, reports every received action, global action and
    /// probed consumer firing that was not asserted.
    ///
    /// Call it last. It does not wait for work still in flight on other threads: `receive` what
    /// the test expects first. A test store released without `finish()` makes the same checks
    /// when it deinitialises and reports them where it was created. For a page under test, it
    /// stops recording the global store's actions and removes its listener from that store.
    ///
    /// - Parameters:
    ///   - fileID: Where a failure is reported; leave the default.
    ///   - filePath: See `fileID`.
    ///   - line: See `fileID`.
    ///   - column: See `fileID`.
    public func finish(
        fileID: StaticString = #fileID,
        filePath: StaticString = #filePath,
        line: UInt = #line,
        column: UInt = #column
    ) {
        globalRecording?.cancel()
        absorb(log.take())
        settle(before: "finish()", at: CallSite(fileID: fileID, filePath: filePath, line: line, column: column))
        isFinished = true
    }
}

@available(*, unavailable)
extension TestStore: Sendable {}
