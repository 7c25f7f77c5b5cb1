import ReduxConsumer

/// The seed's counter state (ReSwift-Consumer's README).
struct AppState: Equatable, Sendable {
    var counter = 0
    var name: String?
    var works: [String] = []
}

enum CounterAction: Action, Equatable {
    case increment
    case decrement
    case set(Int)
    case rename(String?)
    case addWork(String)
    case clearWorks
}

let appReducer = Reducer<AppState> { (state, action: CounterAction) in
    switch action {
    case .increment: state.counter += 1
    case .decrement: state.counter -= 1
    case .set(let value): state.counter = value
    case .rename(let name): state.name = name
    case .addWork(let work): state.works.append(work)
    case .clearWorks: state.works.removeAll()
    }
}

func makeStore(_ state: AppState = AppState(), middleware: [Middleware<AppState>] = []) -> Store<AppState> {
    Store(initialState: state, reducer: appReducer, middleware: middleware)
}

/// Collects values from callbacks that may run on any thread.
final class Recorder<Value: Sendable>: Sendable {
    private let lock = Lock<[Value]>([])

    func append(_ value: Value) {
        lock.withLock { $0.append(value) }
    }

    var values: [Value] {
        lock.withLock { $0 }
    }
}
