import ReduxConsumer

/// The state of one request, in its own page store: it lives as long as the request.
struct RequestState: Equatable, Sendable {
    let id: Int
    /// The backend's answer, once it came.
    var answer: Int?
}

/// What happens to one request.
enum RequestAction: Action, Equatable {
    /// Asks the backend (an effect does).
    case fetch
    /// The backend answered.
    case answered(Int)
}

let requestReducer = Reducer<RequestState> { (state, action: RequestAction) in
    switch action {
    case .fetch: break
    case .answered(let value): state.answer = value
    }
}

/// Calls the backend for `.fetch` and sends its answer back to the page. Closing the page cancels
/// the call.
func backendCall(_ backend: Backend) -> Effect<RequestState> {
    Effect.on(RequestAction.self, when: { $0 == .fetch }) { _, context in
        guard let id = context.state?.id else { return }
        let answer = try await backend.fetch(id)
        await context.send(RequestAction.answered(answer))
    }
}
