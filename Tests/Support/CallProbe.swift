import ReduxConsumer

/// Watches one registration's calls, from any thread: every `old` is the previous call's `new`,
/// values step forward, and no call starts after ``removed()`` (called once the removal returned).
package final class CallProbe: Sendable {
    /// How consecutive values must relate.
    package enum Step: Sendable {
        /// `new == old + 1`: a callback that hears every state.
        case exact
        /// `new > old`: a callback whose changes may be merged (a `deliveringOn:` consumer).
        case forward
    }

    /// What a probe saw.
    package struct Report: Equatable, Sendable {
        /// Calls made.
        package var calls = 0
        /// The last `new`, if any call was made.
        package var last: Int?
        /// Calls whose `old` was not the previous call's `new`, or whose step broke ``Step``.
        package var disorders = 0
        /// Calls that started after the removal returned.
        package var lateCalls = 0

        package init(calls: Int = 0, last: Int? = nil, disorders: Int = 0, lateCalls: Int = 0) {
            self.calls = calls
            self.last = last
            self.disorders = disorders
            self.lateCalls = lateCalls
        }
    }

    /// What the probe watches, for failure messages.
    package let name: String
    private let step: Step
    private let state = Lock((report: Report(), isRemoved: false))

    package init(_ name: String, _ step: Step = .exact) {
        self.name = name
        self.step = step
    }

    /// Records a call; call it first thing in the callback.
    package func call(old: Int, new: Int) {
        state.withLock { state in
            if state.isRemoved { state.report.lateCalls += 1 }
            let isInStep =
                switch step {
                case .exact: new == old + 1
                case .forward: new > old
                }
            if !isInStep || state.report.last.map({ $0 != old }) == true { state.report.disorders += 1 }
            state.report.calls += 1
            state.report.last = new
        }
    }

    /// Notes that the removal returned: from now on, any call is late.
    package func removed() {
        state.withLock { $0.isRemoved = true }
    }

    /// What the probe saw so far.
    package var report: Report {
        state.withLock { $0.report }
    }
}
