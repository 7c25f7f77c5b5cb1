import ReduxConsumer

/// The bookkeeping behind the steps: completing and filing events, settling what a step left
/// behind, comparing states, and the failures that go with them.
extension TestStore {
    /// Makes every event reduced so far complete (its consumers have run), blocking the calling
    /// thread while the store finishes the work queued before it.
    func completeEventsNow() {
        guard log.hasIncompleteEvents else { return }
        if !subject.isClosed() {
            subject.dispatch(Barrier())
        }
        completeIfClosed()
    }

    /// Makes every event reduced so far complete, suspending (never blocking) while the store
    /// finishes the work queued before it.
    func completeEvents(isolation: isolated (any Actor)? = #isolation) async {
        guard log.hasIncompleteEvents else { return }
        if !subject.isClosed() {
            await subject.send(Barrier())
        }
        completeIfClosed()
    }

    /// Completes every event of a closed page, whose consumers are gone: checked after the barrier
    /// too, since a page that another thread closed after the check above dropped the barrier.
    private func completeIfClosed() {
        if subject.isClosed() {
            log.completeAll()
        }
    }

    /// Files complete events and global actions away for `receive` and `receiveGlobal`.
    func absorb(_ news: EventLog<State>.News) {
        receivedEvents += news.events
        globalActions += news.globalActions
    }

    /// The first half of a `send`: settles the last step; `false` (after reporting) if the page is
    /// closed and the action cannot be sent.
    func beginSend(_ step: String, at site: CallSite) -> Bool {
        // A step after `finish()`: the test goes on, and its end is checked again.
        isFinished = false
        absorb(log.take())
        settle(before: step, at: site)
        guard !subject.isClosed() else {
            reportFailure("\(step) after close(): a closed page ignores every action.", at: site)
            return false
        }
        return true
    }

    /// The second half of a `send`, once the store has processed the sent action and the events
    /// are complete: checks the state the sent action left, and keeps its firings.
    func endSend(_ step: String, at site: CallSite, _ updateExpectedState: ((inout State) -> Void)?) {
        let news = log.take()
        var actual = expected
        var firings: [EventLog<State>.Firing] = []
        var isReduced = false
        for event in news.events {
            guard event.origin == .sent else {
                receivedEvents.append(event)
                continue
            }
            actual = event.state
            firings += event.firings
            isReduced = true
        }
        globalActions += news.globalActions
        // A page that closed (on another thread, say) after `beginSend` found it open ignored the
        // action: a mismatch says so.
        let closing = !isReduced && subject.isClosed() ? "the page closed before the action was reduced" : nil
        check(updateExpectedState, actual: actual, after: step, because: closing, at: site)
        expected = actual
        lastStep = step
        dueFirings = DueFirings(firings.map { DueFiring(firing: $0, cause: step) })
    }

    /// What `finish()` does once events are complete (and, for the async one, effects waited for).
    func endTest(at site: CallSite, step: String, waited timeout: Double? = nil) {
        globalRecording?.cancel()
        absorb(log.take())
        settle(before: step, at: site)
        let waited = timeout.map { " after waiting \(seconds($0))" } ?? ""
        reportRunningEffects("at \(step)\(waited)", at: site)
        isFinished = true
    }

    /// Before a new step: reports (when exhaustive) and drops everything left unasserted.
    func settle(before step: String, at site: CallSite) {
        settleFirings(before: step, at: site)
        if exhaustivity == .on {
            reportUnasserted(receivedEvents.map(\.action), kind: "received", before: step, at: site)
            reportUnasserted(Array(globalActions), kind: "global", before: step, at: site)
        }
        if let state = receivedEvents.last?.state {
            expected = state
        }
        receivedEvents.removeAll()
        globalActions.removeAll()
    }

    /// Before a new step: reports (when exhaustive) and drops the probed firings left unasserted,
    /// one failure per step that caused some.
    func settleFirings(before step: String, at site: CallSite) {
        dueFirings += log.takeLooseFirings().map { DueFiring(firing: $0, cause: lastStep) }
        if exhaustivity == .on {
            var causes: [String] = []
            for due in dueFirings where !causes.contains(due.cause) {
                causes.append(due.cause)
            }
            for cause in causes {
                let firings = dueFirings.filter { $0.cause == cause }.map(\.firing)
                let count = firings.count == 1 ? "1 consumer firing" : "\(firings.count) consumer firings"
                let lines = firings.map { firing in
                    "  \(probeName(firing.probeID)): \(rendered(firing.old)) → \(rendered(firing.new))"
                }
                reportFailure(
                    "The test did not assert \(count) caused by \(cause) before \(step):\n"
                        + lines.joined(separator: "\n"),
                    at: site
                )
            }
        }
        dueFirings.removeAll()
    }

    /// Reports (when exhaustive) the effects still running, by the actions that started them; a
    /// closed page's effects are cancelled, and not reported while they wind down.
    ///
    /// - Parameter moment: When, for the message: `at finish()`.
    func reportRunningEffects(_ moment: String, at site: CallSite) {
        guard exhaustivity == .on, !subject.isClosed() else { return }
        let running = subject.runningEffects()
        guard !running.isEmpty else { return }
        let count = running.count == 1 ? "1 effect was" : "\(running.count) effects were"
        reportFailure(
            "\(count) still running \(moment), started by:\n"
                + running.map { "  " + $0 }.joined(separator: "\n"),
            at: site
        )
    }

    /// Checks the actual state of a step against the expected change.
    ///
    /// - Parameter cause: Why the state may not have changed, for the message.
    func check(
        _ updateExpectedState: ((inout State) -> Void)?,
        actual: State,
        after step: String,
        because cause: String? = nil,
        at site: CallSite
    ) {
        var expectedState = exhaustivity == .on ? expected : actual
        updateExpectedState?(&expectedState)
        guard expectedState != actual else { return }
        let notes =
            (cause.map { [$0] } ?? [])
            + (exhaustivity == .on ? [] : ["non-exhaustive: only the fields the closure sets are checked"])
        let header = "State mismatch after \(step)" + (notes.isEmpty ? "" : " (\(notes.joined(separator: "; ")))") + ":"
        let lines = mismatchLines(expected: expectedState, actual: actual).map { "  " + $0 }
        reportFailure(([header] + lines).joined(separator: "\n"), at: site)
    }

    func probeName(_ id: Int) -> String {
        probeNames[id] ?? "probe \(id)"
    }

    /// `1 second`, `10 seconds`, `0.05 seconds`.
    func seconds(_ value: Double) -> String {
        let number = value == value.rounded() && abs(value) < 1e9 ? "\(Int(value))" : "\(value)"
        return value == 1 ? "1 second" : "\(number) seconds"
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
