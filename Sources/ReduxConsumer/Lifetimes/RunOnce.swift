import Dispatch

/// Runs one ending (a subscription's cancellation, a page's close) once, for whoever asks first.
///
/// A later ask on another thread returns only once that ending is done: the first one may still
/// be waiting for a callback running on a third thread, and no caller may return before the
/// registration has ended (guarantee 1). It waits parked, since the first one may be waiting for a
/// callback this thread is running; an ask from inside the ending itself, on its thread, returns
/// at once instead of waiting for itself.
final class RunOnce<Work: Sendable>: Sendable {
    private let state: Lock<RunState>

    private enum RunState {
        case pending(Work)
        /// The ending runs on the thread `by` names (its context's identity); later asks wait on
        /// their semaphores.
        case running(by: ObjectIdentifier, waiters: [DispatchSemaphore])
        case done
    }

    /// What an ask does once it has looked at the state.
    private enum Turn {
        case run(Work)
        case wait(DispatchSemaphore)
        case done
    }

    init(_ work: Work) {
        state = Lock(.pending(work))
    }

    /// Runs `body` with the work if nobody asked before; otherwise returns once the first ask is
    /// done (at once from inside it). `body` runs outside the lock.
    func run(_ body: (Work) -> Void) {
        let context = ThreadContext.current
        let thread = ObjectIdentifier(context)
        let turn = state.withLock { state -> Turn in
            switch state {
            case .pending(let work):
                state = .running(by: thread, waiters: [])
                return .run(work)
            case .running(let runner, var waiters):
                guard runner != thread else { return .done }
                let semaphore = DispatchSemaphore(value: 0)
                waiters.append(semaphore)
                state = .running(by: runner, waiters: waiters)
                return .wait(semaphore)
            case .done:
                return .done
            }
        }
        switch turn {
        case .run(let work):
            body(work)
            let waiters = state.withLock { state -> [DispatchSemaphore] in
                defer { state = .done }
                guard case .running(_, let waiters) = state else { return [] }
                return waiters
            }
            for waiter in waiters {
                waiter.signal()
            }
        case .wait(let semaphore):
            context.parked { semaphore.wait() }
        case .done:
            break
        }
    }

    /// Whether somebody asked already.
    var hasStarted: Bool {
        state.withLock {
            if case .pending = $0 { false } else { true }
        }
    }

    /// How many asks wait for the first one to finish (for tests).
    var waitingCount: Int {
        state.withLock {
            if case .running(_, let waiters) = $0 { waiters.count } else { 0 }
        }
    }
}
