import ReduxConsumer

/// The seed's counter state (ReSwift-Consumer's README).
package struct AppState: Equatable, Sendable, Codable {
    package var counter = 0
    package var name: String?
    package var works: [String] = []

    package init(counter: Int = 0, name: String? = nil, works: [String] = []) {
        self.counter = counter
        self.name = name
        self.works = works
    }
}

package enum CounterAction: Action, Equatable, Codable {
    case increment
    case decrement
    case set(Int)
    case rename(String?)
    case addWork(String)
    case clearWorks
}

package let appReducer = Reducer<AppState> { (state, action: CounterAction) in
    switch action {
    case .increment: state.counter += 1
    case .decrement: state.counter -= 1
    case .set(let value): state.counter = value
    case .rename(let name): state.name = name
    case .addWork(let work): state.works.append(work)
    case .clearWorks: state.works.removeAll()
    }
}

package func makeStore(_ state: AppState = AppState(), middleware: [Middleware<AppState>] = []) -> Store<AppState> {
    Store(initialState: state, reducer: appReducer, middleware: middleware)
}

/// Collects values from callbacks that may run on any thread.
package final class Recorder<Value: Sendable>: Sendable {
    private let lock = Lock<[Value]>([])

    package init() {}

    package func append(_ value: Value) {
        lock.withLock { $0.append(value) }
    }

    package var values: [Value] {
        lock.withLock { $0 }
    }

    package var count: Int {
        lock.withLock { $0.count }
    }

    package var last: Value? {
        lock.withLock { $0.last }
    }
}
