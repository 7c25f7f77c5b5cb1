import ReduxConsumer

/// What the synchronous and the async `receive` and `receiveGlobal` share once they have waited:
/// picking the action to check, checking it, and the failures that go with it.
extension TestStore {
    /// The index of the action to check next among `actions`: the first one when exhaustive, the
    /// first that matches otherwise; `nil` when there is none yet.
    func candidate(in actions: [any Action], matching isMatch: (any Action) -> Bool) -> Int? {
        switch exhaustivity {
        case .on: actions.isEmpty ? nil : 0
        case .off: actions.firstIndex(where: isMatch)
        }
    }

    /// Checks the received action at `index` (or reports that none came) and makes it the last
    /// step.
    func checkReceived(
        at index: Int?,
        expecting expectation: String,
        matching isMatch: (any Action) -> Bool,
        timeout: Double,
        at site: CallSite,
        _ updateExpectedState: ((inout State) -> Void)?
    ) {
        guard let index else {
            reportTimeout(expecting: expectation, in: receivedEvents.map(\.action), timeout: timeout, at: site)
            return
        }
        let event = receivedEvents[index]
        if index > 0 {
            expected = receivedEvents[index - 1].state
        }
        receivedEvents.removeFirst(index + 1)
        let step = "receive(\(rendered(action: event.action)))"
        if isMatch(event.action) {
            check(updateExpectedState, actual: event.state, after: step, at: site)
        } else {
            reportWrongAction(expecting: expectation, received: rendered(action: event.action), at: site)
        }
        expected = event.state
        dueFirings = event.firings.map { DueFiring(firing: $0, cause: step) }
        lastStep = step
    }

    /// Checks the global action at `index` (or reports that none came).
    func checkGlobal(
        at index: Int?,
        expecting expectation: String,
        matching isMatch: (any Action) -> Bool,
        timeout: Double,
        at site: CallSite
    ) {
        guard let index else {
            reportTimeout(expecting: expectation, in: globalActions, timeout: timeout, at: site)
            return
        }
        let received = globalActions[index]
        globalActions.removeFirst(index + 1)
        if !isMatch(received) {
            reportWrongAction(expecting: expectation, received: "global action \(rendered(action: received))", at: site)
        }
    }

    private func reportTimeout(
        expecting expectation: String,
        in queue: [any Action],
        timeout: Double,
        at site: CallSite
    ) {
        let skipped =
            queue.isEmpty
            ? "nothing was received."
            : "received only:\n" + queue.map { "  " + rendered(action: $0) }.joined(separator: "\n")
        let cancelled = Task.isCancelled ? " (the test's task was cancelled)" : ""
        reportFailure(
            "Expected to receive \(expectation) within \(seconds(timeout))\(cancelled), but \(skipped)",
            at: site
        )
    }

    private func reportWrongAction(expecting expectation: String, received: String, at site: CallSite) {
        reportFailure("Expected to receive \(expectation), but received \(received) first.", at: site)
    }
}
