import ReduxConsumer

/// An action sent by the test, wrapped so the test store's outermost middleware can tell it from
/// actions that middleware dispatches; that middleware unwraps it, so no user code ever sees it.
struct SentAction: Action {
    let action: any Action
}

/// The reducer under test, followed by a record of each action it reduced and the state it left.
func recording<State>(_ reducer: Reducer<State>, into log: EventLog<State>) -> Reducer<State> {
    Reducer { state, action in
        reducer(&state, action)
        log.didReduce(action, into: state)
    }
}

/// The test store's outermost middleware: unwraps sent actions and marks what they reduce as sent.
///
/// Everything the inner middleware dispatches re-enters the chain after the sent action has gone
/// through, so only the sent action (or what middleware passes to `next` in its place, right away)
/// is reduced while the mark is set.
func sendMarker<State>(_ log: EventLog<State>) -> Middleware<State> {
    { _, _ in
        { next in
            { action in
                guard let sent = action as? SentAction else {
                    next(action)
                    return
                }
                log.beginSend()
                next(sent.action)
                log.endSend()
            }
        }
    }
}
