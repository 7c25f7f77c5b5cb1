import ReduxConsumer

/// The bookkeeping behind the steps: filing events, settling what a step left behind, comparing
/// states, and the failures that go with them.
extension TestStore {
    /// Files finished events away for `receive` and `receiveGlobal`.
    func absorb(_ events: [EventLog<State>.Event]) {
        for event in events {
            switch event.origin {
            case .global: globalActions.append(event.action)
            case .sent, .received: receivedEvents.append(event)
            }
        }
    }

    /// Before a new step: reports (when exhaustive) and drops everything left unasserted.
    func settle(before step: String, at site: CallSite) {
        settleFirings(before: step, at: site)
        if exhaustivity == .on {
            reportUnasserted(receivedEvents.map(\.action), kind: "received", before: step, at: site)
            reportUnasserted(globalActions, kind: "global", before: step, at: site)
        }
        if let state = receivedEvents.last?.state {
            expected = state
        }
        receivedEvents.removeAll()
        globalActions.removeAll()
    }

    /// Before a new step: reports (when exhaustive) and drops the probed firings left unasserted.
    func settleFirings(before step: String, at site: CallSite) {
        if exhaustivity == .on, !dueFirings.isEmpty {
            let count = dueFirings.count == 1 ? "1 consumer firing" : "\(dueFirings.count) consumer firings"
            let lines = dueFirings.map { firing in
                "  \(probeName(firing.probeID)): \(rendered(firing.old)) → \(rendered(firing.new))"
            }
            reportFailure(
                "The test did not assert \(count) caused by \(lastStep) before \(step):\n"
                    + lines.joined(separator: "\n"),
                at: site
            )
        }
        dueFirings.removeAll()
    }

    /// Checks the actual state of a step against the expected change.
    func check(
        _ updateExpectedState: ((inout State) -> Void)?,
        actual: State,
        after step: String,
        at site: CallSite
    ) {
        var expectedState = exhaustivity == .on ? expected : actual
        updateExpectedState?(&expectedState)
        guard expectedState != actual else { return }
        let header =
            exhaustivity == .on
            ? "State mismatch after \(step):"
            : "State mismatch after \(step) (non-exhaustive: only the fields the closure sets are checked):"
        let lines = mismatchLines(expected: expectedState, actual: actual).map { "  " + $0 }
        reportFailure(([header] + lines).joined(separator: "\n"), at: site)
    }

    func probeName(_ id: Int) -> String {
        probeNames[id] ?? "probe \(id)"
    }

    private func reportUnasserted(_ actions: [any Action], kind: String, before step: String, at site: CallSite) {
        guard !actions.isEmpty else { return }
        let count = actions.count == 1 ? "1 \(kind) action" : "\(actions.count) \(kind) actions"
        let lines = actions.map { "  " + rendered(action: $0) }
        reportFailure(
            "The test did not assert \(count) before \(step):\n" + lines.joined(separator: "\n"),
            at: site
        )
    }
}
