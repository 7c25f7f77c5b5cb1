import ReduxConsumer

/// An action sent by the test, wrapped so the test store's outermost middleware can tell it from
/// actions that middleware dispatches; that middleware unwraps it, so no user code ever sees it.
struct SentAction: Action {
    let action: any Action
}

/// A marker the test store sends through the store to learn that everything before it has been
/// processed, consumers included (the store processes actions one at a time, in order). Its
/// outermost middleware stops it there: no user code ever sees it, and nothing is reduced.
struct Barrier: Action {}

/// The reducer under test, followed by a record of each action it reduced and the state it left.
func recording<State>(_ reducer: Reducer<State>, into log: EventLog<State>) -> Reducer<State> {
    Reducer { state, action in
        reducer(&state, action)
        log.didReduce(action, into: state)
    }
}

/// The test store's outermost middleware: unwraps sent actions and marks what they reduce as sent,
/// and stops barriers, noting that they passed.
///
/// Everything the inner middleware dispatches re-enters the chain after the sent action has gone
/// through, so only the sent action (or what middleware passes to `next` in its place, right away)
/// is reduced while the mark is set.
func sendMarker<State>(_ log: EventLog<State>) -> Middleware<State> {
    { _, _ in
        { next in
            { action in
                if action is Barrier {
                    log.didPassBarrier()
                    return
                }
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

/// The reducer and middleware under test as a test store builds its store (plain or page) from
/// them: the reducer records into `log`, and ``sendMarker(_:)`` is the outermost middleware.
struct Instrumented<State: Sendable> {
    let log: EventLog<State>
    let reducer: Reducer<State>
    let middleware: [Middleware<State>]

    init(_ reducer: Reducer<State>, _ middleware: [Middleware<State>]) {
        let log = EventLog<State>()
        self.log = log
        self.reducer = recording(reducer, into: log)
        self.middleware = [sendMarker(log)] + middleware
    }
}
