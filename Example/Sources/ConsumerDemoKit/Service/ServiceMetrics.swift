import Dispatch
import ReduxConsumer

/// What an operator watches on the global store, gathered through the store's own extension
/// points and nothing else:
///
/// - a **middleware** counts every action by name, samples the queue depth when an action begins,
///   and times the whole action (`next` returns once the reducer ran and every subscriber heard);
/// - a **subscriber** subscribed before any other marks the moment the reducer is done, which
///   splits that time into reducer latency and notification latency (the subscribers, the action
///   listeners and starting effects).
///
/// Queue depth is counted at the service's edge: every send to the global store calls
/// ``willSend()`` first, and the middleware counts the actions it begins; the difference, when an
/// action begins, is how many actions were sent and not begun yet, that one included. The store runs one action at a time, so the lock is never contended
/// by the store itself; it is there for readers on other threads.
final class ServiceMetrics: Sendable {
    private let state = Lock(Counters())

    private struct Counters {
        var dispatches: [String: Int] = [:]
        var sent = 0
        var begun = 0
        var depth = DepthStatistics()
        var reducer = LatencyHistogram()
        var notification = LatencyHistogram()
        var reducerEnd: UInt64?
    }

    /// Counts a send about to be made to the global store (the queue grows by one).
    func willSend() {
        state.withLock { $0.sent += 1 }
    }

    /// Adds the middleware and the subscriber to `store`; call it right after creating the store,
    /// so that the middleware is the innermost (only the reducer runs inside it) and the
    /// subscriber is the first.
    func attach(to store: Store<ServiceState>) {
        store.addMiddleware(middleware)
        store.subscribe { [state] _, _ in
            let reduced = now()
            state.withLock { $0.reducerEnd = reduced }
        }
    }

    private var middleware: Middleware<ServiceState> {
        { [state] _, _ in
            { next in
                { action in
                    let start = now()
                    state.withLock { counters in
                        counters.dispatches[(action as? ServiceAction)?.name ?? "\(type(of: action))", default: 0] += 1
                        counters.depth.record(max(0, counters.sent - counters.begun))
                        counters.begun += 1
                        counters.reducerEnd = nil
                    }
                    next(action)
                    let end = now()
                    state.withLock { counters in
                        let reduced = counters.reducerEnd ?? end
                        counters.reducer.record(reduced - start)
                        counters.notification.record(end - reduced)
                    }
                }
            }
        }
    }

    /// The metrics so far.
    var snapshot: Snapshot {
        state.withLock { counters in
            Snapshot(
                dispatches: counters.dispatches,
                reducerLatency: counters.reducer.summary,
                notificationLatency: counters.notification.summary,
                queueDepth: counters.depth.summary
            )
        }
    }

    /// The metrics at one moment, as the JSON summary shows them.
    struct Snapshot: Equatable, Sendable, Codable {
        /// Actions begun, by name.
        var dispatches: [String: Int]
        var reducerLatency: LatencyHistogram.Summary
        var notificationLatency: LatencyHistogram.Summary
        var queueDepth: DepthStatistics.Summary
    }
}

/// Nanoseconds on a monotonic clock.
private func now() -> UInt64 {
    DispatchTime.now().uptimeNanoseconds
}
