import Dispatch
import ReduxConsumer

extension TestStore {
    /// Checks the next action dispatched to the store (by an effect, middleware, a consumer or
    /// another task) and the state right after it was reduced, suspending until it comes.
    ///
    /// The form chosen in async tests, and the one to use for the actions effects send:
    ///
    /// ```swift
    /// await store.send(SearchAction.query("swift")) { $0.isSearching = true }
    /// await store.receive(SearchAction.results(["Swift"])) {
    ///     $0.isSearching = false
    ///     $0.results = ["Swift"]
    /// }
    /// ```
    ///
    /// The rules are those of ``receive(_:timeout:fileID:filePath:line:column:_:)``; only the wait
    /// differs: it suspends, never blocking a thread, so the effect that will send the action gets
    /// the cooperative pool's threads, however few there are. It returns as soon as the action is
    /// reduced and its consumers have run, and fails, naming the action expected, if it has not
    /// come within `timeout` seconds (or the test's task is cancelled).
    ///
    /// The default timeout, 10 seconds, is longer than the synchronous form's: an effect shares
    /// the cooperative pool with every test running in parallel, which may keep it waiting for a
    /// thread, and a passing test never waits the timeout out.
    ///
    /// - Parameters:
    ///   - action: The action expected, compared with `==`.
    ///   - timeout: The longest to wait, in seconds, for an action dispatched later: at most a
    ///     day (`.infinity` waits that long); negative or NaN does not wait.
    ///   - fileID: Where a failure is reported; leave the default.
    ///   - filePath: See `fileID`.
    ///   - line: See `fileID`.
    ///   - column: See `fileID`.
    ///   - isolation: The caller's isolation; leave the default.
    ///   - updateExpectedState: Changes the expected state the way the action should.
    public func receive<ReceivedAction: Action & Equatable>(
        _ action: ReceivedAction,
        timeout: Double = 10,
        fileID: StaticString = #fileID,
        filePath: StaticString = #filePath,
        line: UInt = #line,
        column: UInt = #column,
        isolation: isolated (any Actor)? = #isolation,
        _ updateExpectedState: ((inout State) -> Void)? = nil
    ) async {
        let site = CallSite(fileID: fileID, filePath: filePath, line: line, column: column)
        let reception = Reception(.store, action, timeout: timeout, at: site)
        await receive(reception, matching: { $0 as? ReceivedAction == action }, updateExpectedState)
    }

    /// Checks that the next action dispatched to the store is of `type` and satisfies `isMatch`,
    /// suspending until it comes: the async form of
    /// ``receive(_:where:timeout:fileID:filePath:line:column:_:)``.
    ///
    /// ```swift
    /// await store.receive(SearchAction.self, where: { if case .failed = $0 { true } else { false } }) {
    ///     $0.isSearching = false
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - type: The type of the action expected.
    ///   - isMatch: Decides whether an action of that type is the one expected; `{ _ in true }`
    ///     accepts any.
    ///   - timeout: The longest to wait, in seconds, for an action dispatched later: at most a
    ///     day (`.infinity` waits that long); negative or NaN does not wait.
    ///   - fileID: Where a failure is reported; leave the default.
    ///   - filePath: See `fileID`.
    ///   - line: See `fileID`.
    ///   - column: See `fileID`.
    ///   - isolation: The caller's isolation; leave the default.
    ///   - updateExpectedState: Changes the expected state the way the action should.
    public func receive<ReceivedAction: Action>(
        _ type: ReceivedAction.Type,
        where isMatch: (ReceivedAction) -> Bool,
        timeout: Double = 10,
        fileID: StaticString = #fileID,
        filePath: StaticString = #filePath,
        line: UInt = #line,
        column: UInt = #column,
        isolation: isolated (any Actor)? = #isolation,
        _ updateExpectedState: ((inout State) -> Void)? = nil
    ) async {
        let site = CallSite(fileID: fileID, filePath: filePath, line: line, column: column)
        let reception = Reception(.store, ReceivedAction.self, timeout: timeout, at: site)
        await receive(reception, matching: { ($0 as? ReceivedAction).map(isMatch) ?? false }, updateExpectedState)
    }

    /// Checks the next action that reached the global store of a page under test, suspending
    /// until it comes: the async form of ``receiveGlobal(_:timeout:fileID:filePath:line:column:)``.
    ///
    /// ```swift
    /// await store.send(MainAction.refresh) { $0.isRefreshing = true }
    /// await store.receive(MainAction.refreshed(42)) { … }
    /// await store.receiveGlobal(AppAction.setBadge(42))
    /// ```
    ///
    /// - Parameters:
    ///   - action: The global action expected, compared with `==`.
    ///   - timeout: The longest to wait, in seconds, for an action dispatched later: at most a
    ///     day (`.infinity` waits that long); negative or NaN does not wait.
    ///   - fileID: Where a failure is reported; leave the default.
    ///   - filePath: See `fileID`.
    ///   - line: See `fileID`.
    ///   - column: See `fileID`.
    ///   - isolation: The caller's isolation; leave the default.
    public func receiveGlobal<GlobalAction: Action & Equatable>(
        _ action: GlobalAction,
        timeout: Double = 10,
        fileID: StaticString = #fileID,
        filePath: StaticString = #filePath,
        line: UInt = #line,
        column: UInt = #column,
        isolation: isolated (any Actor)? = #isolation
    ) async {
        let site = CallSite(fileID: fileID, filePath: filePath, line: line, column: column)
        let reception = Reception(.global, action, timeout: timeout, at: site)
        await receive(reception, matching: { $0 as? GlobalAction == action })
    }

    /// Checks that the next action that reached the global store of a page under test is of
    /// `type` and satisfies `isMatch`, suspending until it comes: the async form of
    /// ``receiveGlobal(_:where:timeout:fileID:filePath:line:column:)``.
    ///
    /// - Parameters:
    ///   - type: The type of the global action expected.
    ///   - isMatch: Decides whether an action of that type is the one expected; `{ _ in true }`
    ///     accepts any.
    ///   - timeout: The longest to wait, in seconds, for an action dispatched later: at most a
    ///     day (`.infinity` waits that long); negative or NaN does not wait.
    ///   - fileID: Where a failure is reported; leave the default.
    ///   - filePath: See `fileID`.
    ///   - line: See `fileID`.
    ///   - column: See `fileID`.
    ///   - isolation: The caller's isolation; leave the default.
    public func receiveGlobal<GlobalAction: Action>(
        _ type: GlobalAction.Type,
        where isMatch: (GlobalAction) -> Bool,
        timeout: Double = 10,
        fileID: StaticString = #fileID,
        filePath: StaticString = #filePath,
        line: UInt = #line,
        column: UInt = #column,
        isolation: isolated (any Actor)? = #isolation
    ) async {
        let site = CallSite(fileID: fileID, filePath: filePath, line: line, column: column)
        let reception = Reception(.global, GlobalAction.self, timeout: timeout, at: site)
        await receive(reception, matching: { ($0 as? GlobalAction).map(isMatch) ?? false })
    }

    /// The steps `receive` and `receiveGlobal` take, waiting, suspended, for the action to check
    /// (see ``nextCandidate(for:matching:)``) up to the step's timeout or until the task is
    /// cancelled.
    private func receive(
        _ reception: Reception,
        matching isMatch: (any Action) -> Bool,
        isolation: isolated (any Actor)? = #isolation,
        _ updateExpectedState: ((inout State) -> Void)? = nil
    ) async {
        begin(reception)
        let start = DispatchTime.now().uptimeNanoseconds
        let limit = nanoseconds(reception.timeout)
        var index: Int?
        var wasClosed = false
        while true {
            await completeEvents()
            index = nextCandidate(for: reception, matching: isMatch)
            let elapsed = DispatchTime.now().uptimeNanoseconds - start
            if index != nil || elapsed >= limit || Task.isCancelled || wasClosed {
                break
            }
            // A closed page reduces nothing more: one last look, then no wait.
            wasClosed = isClosedForReceiving(reception)
            if !wasClosed { await log.news(withinNanoseconds: limit - elapsed) }
        }
        end(reception, at: index, matching: isMatch, updateExpectedState)
    }
}
