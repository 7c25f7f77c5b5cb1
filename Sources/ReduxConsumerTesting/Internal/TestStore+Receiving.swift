import ReduxConsumer

/// One `receive` or `receiveGlobal` step, as its synchronous and its async form both describe it:
/// where the action is looked for, how failures name it, how long to wait and where to fail.
struct Reception {
    /// Where the action is looked for.
    enum Source {
        /// The actions dispatched to the store under test, checked with `receive`.
        case store
        /// The actions that reached the global store of a page under test, checked with
        /// `receiveGlobal`.
        case global
    }

    let source: Source
    /// The action expected, as failure messages name it: `refreshed(42)`,
    /// `global action setBadge(42)`.
    let expectation: String
    let timeout: Double
    let site: CallSite

    /// A step that expects `action` itself (compared with `==`).
    init(_ source: Source, _ action: any Action, timeout: Double, at site: CallSite) {
        let name = rendered(action: action)
        self.init(source, expecting: source == .store ? name : "global action \(name)", timeout: timeout, at: site)
    }

    /// A step that expects an action of `type` satisfying a predicate.
    init(_ source: Source, _ type: any Action.Type, timeout: Double, at site: CallSite) {
        let scope = source == .store ? "" : "global "
        self.init(source, expecting: "a \(scope)\(type) action matching the predicate", timeout: timeout, at: site)
    }

    private init(_ source: Source, expecting expectation: String, timeout: Double, at site: CallSite) {
        self.source = source
        self.expectation = expectation
        self.timeout = timeout
        self.site = site
    }
}

/// What the synchronous and the async `receive` and `receiveGlobal` share; they differ only in how
/// they wait between two looks at the store (blocking the thread, or suspending).
extension TestStore {
    /// Starts a receive step: a `receive` (not a `receiveGlobal`) first settles the firings the
    /// last step left.
    func begin(_ reception: Reception) {
        // A step after `finish()`: the test goes on, and its end is checked again.
        isFinished = false
        if reception.source == .store {
            settleFirings(before: "receive(\(reception.expectation))", at: reception.site)
        }
    }

    /// Whether `reception` can stop waiting because the page under test is closed and will reduce
    /// no action any more (global actions may still come).
    func isClosedForReceiving(_ reception: Reception) -> Bool {
        reception.source == .store && subject.isClosed()
    }

    /// Files what the store has completed and returns the index of the action to check next in the
    /// step's source: the first one when exhaustive, the first that matches otherwise; `nil` when
    /// there is none yet. Call it after completing the events.
    func nextCandidate(for reception: Reception, matching isMatch: (any Action) -> Bool) -> Int? {
        absorb(log.take())
        switch (reception.source, exhaustivity) {
        case (.store, .on): return receivedEvents.isEmpty ? nil : 0
        case (.store, .off): return receivedEvents.firstIndex { isMatch($0.action) }
        case (.global, .on): return globalActions.isEmpty ? nil : 0
        case (.global, .off): return globalActions.firstIndex(where: isMatch)
        }
    }

    /// Ends a receive step once it has waited: checks the action at `index` (or reports that none
    /// came within the timeout).
    func end(
        _ reception: Reception,
        at index: Int?,
        matching isMatch: (any Action) -> Bool,
        _ updateExpectedState: ((inout State) -> Void)?
    ) {
        switch reception.source {
        case .store: checkReceived(at: index, reception, matching: isMatch, updateExpectedState)
        case .global: checkGlobal(at: index, reception, matching: isMatch)
        }
    }

    /// Checks the received action at `index` (or reports that none came) and makes it the last
    /// step.
    private func checkReceived(
        at index: Int?,
        _ reception: Reception,
        matching isMatch: (any Action) -> Bool,
        _ updateExpectedState: ((inout State) -> Void)?
    ) {
        guard let index else {
            reportTimeout(reception, in: receivedEvents.map(\.action))
            return
        }
        let event = receivedEvents[index]
        if index > 0 {
            expected = receivedEvents[index - 1].state
        }
        receivedEvents.removeFirst(index + 1)
        let step = "receive(\(rendered(action: event.action)))"
        if isMatch(event.action) {
            check(updateExpectedState, actual: event.state, after: step, at: reception.site)
        } else {
            reportWrongAction(reception, received: rendered(action: event.action))
        }
        expected = event.state
        dueFirings = DueFirings(event.firings.map { DueFiring(firing: $0, cause: step) })
        lastStep = step
    }

    /// Checks the global action at `index` (or reports that none came).
    private func checkGlobal(at index: Int?, _ reception: Reception, matching isMatch: (any Action) -> Bool) {
        guard let index else {
            reportTimeout(reception, in: Array(globalActions))
            return
        }
        let received = globalActions[index]
        globalActions.removeFirst(index + 1)
        if !isMatch(received) {
            reportWrongAction(reception, received: "global action \(rendered(action: received))")
        }
    }

    private func reportTimeout(_ reception: Reception, in queue: [any Action]) {
        let skipped =
            queue.isEmpty
            ? "nothing was received."
            : "received only:\n" + queue.map { "  " + rendered(action: $0) }.joined(separator: "\n")
        let cancelled = Task.isCancelled ? " (the test's task was cancelled)" : ""
        if isClosedForReceiving(reception) {
            reportFailure(
                "Expected to receive \(reception.expectation), but the page is closed (a closed page reduces no action), and \(skipped)",
                at: reception.site
            )
            return
        }
        reportFailure(
            "Expected to receive \(reception.expectation) within \(seconds(reception.timeout))\(cancelled), but \(skipped)",
            at: reception.site
        )
    }

    private func reportWrongAction(_ reception: Reception, received: String) {
        reportFailure(
            "Expected to receive \(reception.expectation), but received \(received) first.", at: reception.site)
    }
}
