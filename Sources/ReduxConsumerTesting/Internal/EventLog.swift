import ReduxConsumer

/// What a test store saw happen, recorded from the store's threads and read by the test.
///
/// The test store's reducer, middleware and consumers write here, on whatever thread processes the
/// store; the test store takes the finished events out and waits for more. An event is finished
/// once every consumer of its state has run, so a test that has taken an event also sees the
/// consumer firings that event caused.
final class EventLog<State: Sendable>: Sendable {
    /// Where an action came from.
    enum Origin: Sendable {
        /// The test sent it with `send`.
        case sent
        /// Middleware (or anything else) dispatched it to the store under test.
        case received
        /// It reached the global store of a page under test.
        case global
    }

    /// One probed consumer callback: which probe, and the old and new values it got.
    struct Firing: Sendable {
        let probeID: Int
        let old: any Sendable
        let new: any Sendable
    }

    /// One action that reached a reducer, with the state it left and the probes it fired.
    struct Event: Sendable {
        let action: any Action
        let origin: Origin
        /// The page state after the action; `nil` for a global action.
        let state: State?
        var firings: [Firing] = []
    }

    private struct Contents {
        var finished: [Event] = []
        /// Reduced, but their consumers have not all run yet; oldest first.
        var reduced: [Event] = []
        var isSending = false
    }

    private let contents = ConditionLock(Contents())

    /// Marks the actions reduced until ``endSend()`` as sent by the test.
    func beginSend() {
        contents.withLock { $0.isSending = true }
    }

    /// Ends what ``beginSend()`` started.
    func endSend() {
        contents.withLock { $0.isSending = false }
    }

    /// Called by the reducer under test after it reduced `action` into `state`.
    func didReduce(_ action: any Action, into state: State) {
        contents.withLock { contents in
            let origin: Origin = contents.isSending ? .sent : .received
            contents.reduced.append(Event(action: action, origin: origin, state: state))
        }
    }

    /// Called by a probed consumer: the firing belongs to the action whose consumers are running.
    func didFire(probeID: Int, old: any Sendable, new: any Sendable) {
        contents.withLock { contents in
            guard !contents.reduced.isEmpty else { return }
            contents.reduced[0].firings.append(Firing(probeID: probeID, old: old, new: new))
        }
    }

    /// Called after every consumer of the oldest reduced action has run.
    func didNotify() {
        contents.withLock { contents in
            guard !contents.reduced.isEmpty else { return }
            contents.finished.append(contents.reduced.removeFirst())
        }
        contents.broadcast()
    }

    /// Called when the global store of a page under test has reduced `action`.
    func didReduceGlobal(_ action: any Action) {
        contents.withLock { $0.finished.append(Event(action: action, origin: .global, state: nil)) }
        contents.broadcast()
    }

    /// Takes the finished events, oldest first, waiting until there is at least one or `deadline`
    /// has passed; without a deadline it does not wait.
    func take(waitingUntil deadline: Deadline? = nil) -> [Event] {
        let takeAll = { (contents: inout Contents) -> [Event] in
            defer { contents.finished.removeAll() }
            return contents.finished
        }
        guard let deadline else {
            return contents.withLock(takeAll)
        }
        return contents.withLock(waitingUntil: { !$0.finished.isEmpty }, deadline: deadline, takeAll)
    }
}
