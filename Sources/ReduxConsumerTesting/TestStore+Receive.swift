import ReduxConsumer

extension TestStore {
    /// Checks the next action dispatched to the store (by middleware, an effect, a consumer or
    /// another thread) and the state right after it was reduced.
    ///
    /// Received actions are checked in the order they were reduced. If none is there yet, this
    /// waits until one is reduced or `timeout` seconds have passed, whichever comes first; an
    /// action already reduced returns at once. With ``Exhaustivity/off``, actions that are not
    /// `action` are skipped until it comes.
    ///
    /// The wait blocks the calling thread: this is the form for synchronous tests, where
    /// middleware dispatches at once or from a Dispatch queue or a thread of its own. In an async
    /// test, `await` ``receive(_:timeout:fileID:filePath:line:column:isolation:_:)`` instead (it is
    /// chosen there): it suspends while it waits, so effects and tasks that dispatch the action
    /// get the cooperative pool's threads.
    ///
    /// ```swift
    /// store.send(MainAction.refresh) { $0.isRefreshing = true }
    /// store.receive(MainAction.refreshed(42), timeout: 5) {
    ///     $0.isRefreshing = false
    ///     $0.count = 42
    /// }
    /// ```
    ///
    /// For actions that are not `Equatable`, use ``receive(_:where:timeout:fileID:filePath:line:column:_:)``.
    ///
    /// - Parameters:
    ///   - action: The action expected, compared with `==`.
    ///   - timeout: The longest to wait, in seconds, for an action dispatched later: at most a
    ///     day (`.infinity` waits that long); negative or NaN does not wait.
    ///   - fileID: Where a failure is reported; leave the default.
    ///   - filePath: See `fileID`.
    ///   - line: See `fileID`.
    ///   - column: See `fileID`.
    ///   - updateExpectedState: Changes the expected state the way the action should; see
    ///     ``send(_:fileID:filePath:line:column:_:)``.
    public func receive<ReceivedAction: Action & Equatable>(
        _ action: ReceivedAction,
        timeout: Double = 1,
        fileID: StaticString = #fileID,
        filePath: StaticString = #filePath,
        line: UInt = #line,
        column: UInt = #column,
        _ updateExpectedState: ((inout State) -> Void)? = nil
    ) {
        let site = CallSite(fileID: fileID, filePath: filePath, line: line, column: column)
        let reception = Reception(.store, action, timeout: timeout, at: site)
        receive(reception, matching: { $0 as? ReceivedAction == action }, updateExpectedState)
    }

    /// Checks that the next action dispatched to the store is of `type` and satisfies `isMatch`,
    /// and checks the state right after it was reduced.
    ///
    /// The form for actions that are not `Equatable`, or to match an enum case whatever its
    /// payload; otherwise the same as ``receive(_:timeout:fileID:filePath:line:column:_:)``.
    ///
    /// ```swift
    /// store.receive(MainAction.self, where: { if case .failed = $0 { true } else { false } }) {
    ///     $0.isRefreshing = false
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
    ///   - updateExpectedState: Changes the expected state the way the action should.
    public func receive<ReceivedAction: Action>(
        _ type: ReceivedAction.Type,
        where isMatch: (ReceivedAction) -> Bool,
        timeout: Double = 1,
        fileID: StaticString = #fileID,
        filePath: StaticString = #filePath,
        line: UInt = #line,
        column: UInt = #column,
        _ updateExpectedState: ((inout State) -> Void)? = nil
    ) {
        let site = CallSite(fileID: fileID, filePath: filePath, line: line, column: column)
        let reception = Reception(.store, ReceivedAction.self, timeout: timeout, at: site)
        receive(reception, matching: { ($0 as? ReceivedAction).map(isMatch) ?? false }, updateExpectedState)
    }

    /// Checks the next action that reached the global store of a page under test, typically one
    /// the page's middleware dispatched there.
    ///
    /// Global actions are checked in the order the global store reduced them, independently of
    /// the page's received actions; this waits for them as `receive` does. The global state is
    /// the global store's own: read it from the store given to
    /// ``init(global:initialState:reducer:middleware:fileID:filePath:line:column:)``.
    ///
    /// ```swift
    /// store.send(MainAction.sendToBackground)
    /// store.receiveGlobal(AppAction.enterBackground)
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
    public func receiveGlobal<GlobalAction: Action & Equatable>(
        _ action: GlobalAction,
        timeout: Double = 1,
        fileID: StaticString = #fileID,
        filePath: StaticString = #filePath,
        line: UInt = #line,
        column: UInt = #column
    ) {
        let site = CallSite(fileID: fileID, filePath: filePath, line: line, column: column)
        let reception = Reception(.global, action, timeout: timeout, at: site)
        receive(reception, matching: { $0 as? GlobalAction == action })
    }

    /// Checks that the next action that reached the global store of a page under test is of
    /// `type` and satisfies `isMatch`.
    ///
    /// The form for global actions that are not `Equatable`; otherwise the same as
    /// ``receiveGlobal(_:timeout:fileID:filePath:line:column:)``.
    ///
    /// ```swift
    /// store.receiveGlobal(AnalyticsEvent.self, where: { $0.name == "refresh" })
    /// ```
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
    public func receiveGlobal<GlobalAction: Action>(
        _ type: GlobalAction.Type,
        where isMatch: (GlobalAction) -> Bool,
        timeout: Double = 1,
        fileID: StaticString = #fileID,
        filePath: StaticString = #filePath,
        line: UInt = #line,
        column: UInt = #column
    ) {
        let site = CallSite(fileID: fileID, filePath: filePath, line: line, column: column)
        let reception = Reception(.global, GlobalAction.self, timeout: timeout, at: site)
        receive(reception, matching: { ($0 as? GlobalAction).map(isMatch) ?? false })
    }

    /// The steps `receive` and `receiveGlobal` take, waiting, blocking the calling thread, for the
    /// action to check (see ``nextCandidate(for:matching:)``) up to the step's timeout.
    private func receive(
        _ reception: Reception,
        matching isMatch: (any Action) -> Bool,
        _ updateExpectedState: ((inout State) -> Void)? = nil
    ) {
        begin(reception)
        let deadline = Deadline(secondsFromNow: reception.timeout)
        var index: Int?
        var wasClosed = false
        while true {
            completeEventsNow()
            index = nextCandidate(for: reception, matching: isMatch)
            if index != nil || deadline.hasPassed || wasClosed {
                break
            }
            // A closed page reduces nothing more: one last look, then no wait.
            wasClosed = isClosedForReceiving(reception)
            if !wasClosed { log.waitForNews(until: deadline) }
        }
        end(reception, at: index, matching: isMatch, updateExpectedState)
    }
}
