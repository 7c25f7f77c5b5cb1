import ReduxConsumer

/// What a test store saw happen, recorded from the store's threads and read by the test.
///
/// The test store's reducer, middleware and probes write here, on whatever thread processes the
/// store; the test store takes the complete events out and waits for more.
///
/// An event is *complete* once every consumer of its state has run, so a test that has taken an
/// event also sees the probe firings that event caused. The store processes one action at a time,
/// reduction then consumers, so an event is complete as soon as anything after it goes through the
/// store: the next action's reduction, or a ``Barrier`` the test store sends (see
/// ``didPassBarrier()``). Until then a firing belongs to the last event reduced.
final class EventLog<State: Sendable>: Sendable {
    /// Where an action came from.
    enum Origin: Sendable {
        /// The test sent it with `send`.
        case sent
        /// Middleware, an effect, a forwarded global action or another thread dispatched it.
        case received
    }

    /// One probed consumer callback: which probe, and the old and new values it got.
    struct Firing: Sendable {
        let probeID: Int
        let old: any Sendable
        let new: any Sendable
    }

    /// One action that reached the reducer under test, with the state it left and the probes it
    /// fired.
    struct Event: Sendable {
        let action: any Action
        let origin: Origin
        let state: State
        var firings: [Firing] = []
    }

    /// What the test store takes at once: complete events, and the global store's actions.
    struct News {
        var events: [Event] = []
        var globalActions: [any Action] = []
    }

    private struct Contents {
        /// Reduced and not taken yet, oldest first; the first `completeCount` are complete.
        var events: [Event] = []
        var completeCount = 0
        var globalActions: [any Action] = []
        /// Firings that belong to no action: a probe's `.instantly` call, made when it is added.
        var looseFirings: [Firing] = []
        /// Probes added with `.instantly` whose first firing has not come yet.
        var instantProbes: Set<Int> = []
        var isSending = false
        /// The async wait in progress (at most one: a test store is used by one task at a time).
        var wait: (id: UInt64, continuation: CheckedContinuation<Void, Never>?)?
        var lastWaitID: UInt64 = 0

        var hasNews: Bool {
            !events.isEmpty || !globalActions.isEmpty
        }

        /// Ends the async wait in progress, if any; returns its continuation to resume.
        mutating func endWait() -> CheckedContinuation<Void, Never>? {
            defer { wait?.continuation = nil }
            return wait?.continuation
        }
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

    /// Called by the reducer under test after it reduced `action` into `state`: every earlier
    /// event is complete.
    func didReduce(_ action: any Action, into state: State) {
        let waiter = contents.withLock { contents in
            let origin: Origin = contents.isSending ? .sent : .received
            contents.completeCount = contents.events.count
            contents.events.append(Event(action: action, origin: origin, state: state))
            return contents.endWait()
        }
        contents.broadcast()
        waiter?.resume()
    }

    /// Called by the test store's middleware when a ``Barrier`` reaches it: everything reduced
    /// before it has been through its consumers.
    func didPassBarrier() {
        contents.withLock { $0.completeCount = $0.events.count }
    }

    /// Marks every event complete without a barrier: for a closed page, whose consumers are gone.
    func completeAll() {
        didPassBarrier()
    }

    /// Whether an event may still be waiting for its consumers.
    var hasIncompleteEvents: Bool {
        contents.withLock { $0.completeCount < $0.events.count }
    }

    /// Expects the first firing of `probeID` to be its `.instantly` call, made as it is added.
    func expectInstantFiring(of probeID: Int) {
        contents.withLock { _ = $0.instantProbes.insert(probeID) }
    }

    /// Called by a probe: the firing belongs to the action whose consumers are running.
    func didFire(probeID: Int, old: any Sendable, new: any Sendable) {
        contents.withLock { contents in
            let firing = Firing(probeID: probeID, old: old, new: new)
            if contents.instantProbes.remove(probeID) == nil, contents.completeCount < contents.events.count {
                contents.events[contents.events.count - 1].firings.append(firing)
            } else {
                contents.looseFirings.append(firing)
            }
        }
    }

    /// Called when the global store of a page under test has reduced `action` and notified its
    /// subscribers.
    func didReduceGlobal(_ action: any Action) {
        let waiter = contents.withLock { contents in
            contents.globalActions.append(action)
            return contents.endWait()
        }
        contents.broadcast()
        waiter?.resume()
    }

    /// Takes the complete events and the global actions, oldest first.
    func take() -> News {
        contents.withLock { contents in
            let news = News(
                events: Array(contents.events.prefix(contents.completeCount)),
                globalActions: contents.globalActions
            )
            contents.events.removeFirst(contents.completeCount)
            contents.completeCount = 0
            contents.globalActions.removeAll()
            return news
        }
    }

    /// Takes the firings that belong to no action.
    func takeLooseFirings() -> [Firing] {
        contents.withLock { contents in
            defer { contents.looseFirings.removeAll() }
            return contents.looseFirings
        }
    }

    /// Blocks the calling thread until something was reduced (complete or not) and not taken,
    /// or `deadline` has passed.
    func waitForNews(until deadline: Deadline) {
        contents.withLock(waitingUntil: \.hasNews, deadline: deadline) { _ in }
    }

    /// Suspends, without blocking a thread, until something was reduced (complete or not) and not
    /// taken, `nanoseconds` have passed, or the task is cancelled.
    func news(withinNanoseconds nanoseconds: UInt64) async {
        let id = contents.withLock { contents -> UInt64 in
            contents.lastWaitID += 1
            contents.wait = (contents.lastWaitID, nil)
            return contents.lastWaitID
        }
        let timer = Task { [self] in
            guard (try? await Task.sleep(nanoseconds: nanoseconds)) != nil else { return }
            endWait(id)
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let isOver = contents.withLock { contents -> Bool in
                    guard !contents.hasNews, contents.wait?.id == id else { return true }
                    contents.wait?.continuation = continuation
                    return false
                }
                if isOver { continuation.resume() }
            }
        } onCancel: {
            endWait(id)
        }
        timer.cancel()
        contents.withLock { contents in
            if contents.wait?.id == id { contents.wait = nil }
        }
    }

    /// Ends the async wait `id` if it is still in progress (its timer ran out, its task was
    /// cancelled); a wait that has not suspended yet sees that it is over when it tries.
    private func endWait(_ id: UInt64) {
        let waiter = contents.withLock { contents -> CheckedContinuation<Void, Never>? in
            guard contents.wait?.id == id else { return nil }
            defer { contents.wait = nil }
            return contents.wait?.continuation
        }
        waiter?.resume()
    }
}
