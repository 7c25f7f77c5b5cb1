import Dispatch

/// An ending (a subscription's cancellation, a page's close) that runs once, for whoever asks
/// first: its state, kept under its owner's lock and run by ``Lock/runOnce(_:_:)``.
///
/// A later ask on another thread returns only once that ending is done: the first one may still
/// be waiting for a callback running on a third thread, and no caller may return before the
/// registration has ended (guarantee 1). It waits parked, since the first one may be waiting for a
/// callback this thread is running; an ask from inside the ending itself, on its thread, returns
/// at once instead of waiting for itself.
struct RunOnce<Work> {
    private enum Phase {
        case pending(Work)
        /// The ending runs on the thread `by` names (its context's identity); later asks wait on
        /// their semaphores.
        case running(by: ObjectIdentifier, waiters: [DispatchSemaphore])
        case done
    }

    /// What an ask does once it has looked at the state.
    enum Turn {
        case run(Work)
        case wait(DispatchSemaphore)
        case done
    }

    private var phase: Phase

    init(_ work: Work) {
        phase = .pending(work)
    }

    /// An ask from `thread`: the first one runs the work, later ones wait for it (or return at
    /// once from its own thread, or once it is done).
    mutating func ask(by thread: ObjectIdentifier) -> Turn {
        switch phase {
        case .pending(let work):
            phase = .running(by: thread, waiters: [])
            return .run(work)
        case .running(let runner, var waiters):
            guard runner != thread else { return .done }
            let semaphore = DispatchSemaphore(value: 0)
            waiters.append(semaphore)
            phase = .running(by: runner, waiters: waiters)
            return .wait(semaphore)
        case .done:
            return .done
        }
    }

    /// The work has run: returns the asks waiting for it, to signal after the lock.
    mutating func finish() -> [DispatchSemaphore] {
        defer { phase = .done }
        guard case .running(_, let waiters) = phase else { return [] }
        return waiters
    }

    /// Whether somebody asked already.
    var hasStarted: Bool {
        if case .pending = phase { false } else { true }
    }

    /// Whether the work has run to its end.
    var isDone: Bool {
        if case .done = phase { true } else { false }
    }

    /// How many asks wait for the first one to finish.
    var waitingCount: Int {
        if case .running(_, let waiters) = phase { waiters.count } else { 0 }
    }
}

extension Lock {
    /// Runs `body` with the work of the ending at `ending` in the protected value if nobody asked
    /// before; otherwise returns once the first ask is done (at once from inside it). `body` runs
    /// outside the lock.
    func runOnce<Work>(_ ending: WritableKeyPath<Value, RunOnce<Work>>, _ body: (Work) -> Void) {
        let context = ThreadContext.current
        let thread = ObjectIdentifier(context)
        switch withLock({ $0[keyPath: ending].ask(by: thread) }) {
        case .run(let work):
            // Others asking meanwhile wait for this thread.
            context.runOnceDepth += 1
            body(work)
            assert(context.runOnceDepth > 0, "a run-once work ended on a thread that was not running one")
            context.runOnceDepth -= 1
            for waiter in withLock({ $0[keyPath: ending].finish() }) {
                waiter.signal()
            }
        case .wait(let semaphore):
            context.parked { semaphore.wait() }
        case .done:
            break
        }
    }
}
