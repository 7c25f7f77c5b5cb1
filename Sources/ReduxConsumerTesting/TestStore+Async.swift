import ReduxConsumer

extension TestStore {
    /// Sends `action` to the store and checks the state right after that action was reduced, as
    /// ``send(_:fileID:filePath:line:column:_:)`` does, suspending instead of blocking while the
    /// store is busy on another thread (an effect sending, say).
    ///
    /// The form chosen in async tests:
    ///
    /// ```swift
    /// await store.send(SearchAction.query("swift")) { $0.isSearching = true }
    /// ```
    ///
    /// Effects the action starts begin after it was reduced and run on their own; the actions they
    /// send are checked with ``receive(_:timeout:fileID:filePath:line:column:isolation:_:)``.
    ///
    /// - Parameters:
    ///   - action: The action to send.
    ///   - fileID: Where a failure is reported; leave the default.
    ///   - filePath: See `fileID`.
    ///   - line: See `fileID`.
    ///   - column: See `fileID`.
    ///   - isolation: The caller's isolation; leave the default.
    ///   - updateExpectedState: Changes the expected state the way the action should.
    public func send(
        _ action: any Action,
        fileID: StaticString = #fileID,
        filePath: StaticString = #filePath,
        line: UInt = #line,
        column: UInt = #column,
        isolation: isolated (any Actor)? = #isolation,
        _ updateExpectedState: ((inout State) -> Void)? = nil
    ) async {
        let site = CallSite(fileID: fileID, filePath: filePath, line: line, column: column)
        let step = "send(\(rendered(action: action)))"
        guard beginSend(step, at: site) else { return }
        await subject.send(SentAction(action: action))
        await completeEvents()
        endSend(step, at: site, updateExpectedState)
    }

    /// Ends the test after waiting, up to `timeout` seconds, for the store's effects to end; then
    /// makes the checks of ``finish(fileID:filePath:line:column:)``.
    ///
    /// With ``Exhaustivity/on`` an effect still running after the wait fails the test, named by
    /// the action that started it, and so do the actions the effects sent that the test did not
    /// receive:
    ///
    /// ```text
    /// 1 effect was still running at finish() after waiting 10 seconds, started by:
    ///   query("swift")
    /// ```
    ///
    /// The wait suspends; it never blocks a thread. With ``Exhaustivity/off`` it does not wait.
    /// The effects of a closed page were cancelled: they are waited for (so that their
    /// cancellation handlers have run when this returns) but never reported.
    ///
    /// ```swift
    /// await store.send(SearchAction.query("swift")) { $0.isSearching = true }
    /// await store.receive(SearchAction.results(["Swift"])) { … }
    /// await store.finish()
    /// ```
    ///
    /// - Parameters:
    ///   - timeout: The longest to wait, in seconds, for the effects to end; 10 by default, as
    ///     for the async ``receive(_:timeout:fileID:filePath:line:column:isolation:_:)``, and at
    ///     most a day (`.infinity` waits that long); negative or NaN does not wait.
    ///   - fileID: Where a failure is reported; leave the default.
    ///   - filePath: See `fileID`.
    ///   - line: See `fileID`.
    ///   - column: See `fileID`.
    ///   - isolation: The caller's isolation; leave the default.
    public func finish(
        timeout: Double = 10,
        fileID: StaticString = #fileID,
        filePath: StaticString = #filePath,
        line: UInt = #line,
        column: UInt = #column,
        isolation: isolated (any Actor)? = #isolation
    ) async {
        var waited: Double?
        if exhaustivity == .on, !subject.runningEffects().isEmpty {
            let idle = subject.effectsIdle
            if await !finishes(within: timeout, idle) {
                waited = timeout
            }
        }
        await completeEvents()
        let site = CallSite(fileID: fileID, filePath: filePath, line: line, column: column)
        endTest(at: site, step: "finish()", waited: waited)
    }
}
