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
    ///   - timeout: The longest to wait, in seconds, for an action dispatched later.
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
        await receive(
            rendered(action: action),
            matching: { $0 as? ReceivedAction == action },
            timeout: timeout,
            at: CallSite(fileID: fileID, filePath: filePath, line: line, column: column),
            updateExpectedState
        )
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
    ///   - timeout: The longest to wait, in seconds, for an action dispatched later.
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
        await receive(
            "a \(ReceivedAction.self) action matching the predicate",
            matching: { ($0 as? ReceivedAction).map(isMatch) ?? false },
            timeout: timeout,
            at: CallSite(fileID: fileID, filePath: filePath, line: line, column: column),
            updateExpectedState
        )
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
    ///   - timeout: The longest to wait, in seconds, for an action dispatched later.
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
        await receiveGlobal(
            "global action \(rendered(action: action))",
            matching: { $0 as? GlobalAction == action },
            timeout: timeout,
            at: CallSite(fileID: fileID, filePath: filePath, line: line, column: column)
        )
    }

    /// Checks that the next action that reached the global store of a page under test is of
    /// `type` and satisfies `isMatch`, suspending until it comes: the async form of
    /// ``receiveGlobal(_:where:timeout:fileID:filePath:line:column:)``.
    ///
    /// - Parameters:
    ///   - type: The type of the global action expected.
    ///   - isMatch: Decides whether an action of that type is the one expected; `{ _ in true }`
    ///     accepts any.
    ///   - timeout: The longest to wait, in seconds, for an action dispatched later.
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
        await receiveGlobal(
            "a global \(GlobalAction.self) action matching the predicate",
            matching: { ($0 as? GlobalAction).map(isMatch) ?? false },
            timeout: timeout,
            at: CallSite(fileID: fileID, filePath: filePath, line: line, column: column)
        )
    }

    private func receiveGlobal(
        _ expectation: String,
        matching isMatch: (any Action) -> Bool,
        timeout: Double,
        at site: CallSite,
        isolation: isolated (any Actor)? = #isolation
    ) async {
        let index = await waitForAction(matching: isMatch, timeout: timeout) { globalActions }
        checkGlobal(at: index, expecting: expectation, matching: isMatch, timeout: timeout, at: site)
    }

    private func receive(
        _ expectation: String,
        matching isMatch: (any Action) -> Bool,
        timeout: Double,
        at site: CallSite,
        isolation: isolated (any Actor)? = #isolation,
        _ updateExpectedState: ((inout State) -> Void)?
    ) async {
        settleFirings(before: "receive(\(expectation))", at: site)
        let index = await waitForAction(matching: isMatch, timeout: timeout) { receivedEvents.map(\.action) }
        checkReceived(
            at: index, expecting: expectation, matching: isMatch, timeout: timeout, at: site, updateExpectedState)
    }

    /// Waits, suspended, for the action to check next among `actions()` (see
    /// ``candidate(in:matching:)``). Returns its index, or `nil` after `timeout` seconds or when the
    /// task is cancelled.
    private func waitForAction(
        matching isMatch: (any Action) -> Bool,
        timeout: Double,
        isolation: isolated (any Actor)? = #isolation,
        in actions: () -> [any Action]
    ) async -> Int? {
        let start = DispatchTime.now().uptimeNanoseconds
        let limit = nanoseconds(timeout)
        while true {
            await completeEvents()
            absorb(log.take())
            if let index = candidate(in: actions(), matching: isMatch) {
                return index
            }
            let elapsed = DispatchTime.now().uptimeNanoseconds - start
            if elapsed >= limit || Task.isCancelled {
                return nil
            }
            await log.news(withinNanoseconds: limit - elapsed)
        }
    }
}
