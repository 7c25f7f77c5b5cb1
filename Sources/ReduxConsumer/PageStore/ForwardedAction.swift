/// A global action forwarded into a page store: it reaches the page's reducer but skips the page's
/// middleware, so a page middleware that talks to the global store can never bounce a forwarded
/// action back into it.
struct ForwardedAction: Action {
    let action: any Action
}

extension Reducer {
    /// The reducer a page store runs: nothing once the page is closed, and forwarded actions
    /// unwrapped, so the page's own reducer sees the global action itself.
    func forPage(isClosed: @escaping @Sendable () -> Bool) -> Reducer<State> {
        Reducer { state, action in
            guard !isClosed() else { return }
            if let forwarded = action as? ForwardedAction {
                self(&state, forwarded.action)
            } else {
                self(&state, action)
            }
        }
    }
}

/// Wraps a page middleware: forwarded actions go straight on to the reducer, and nothing reaches the
/// middleware once the page is closed (an action queued before `close()` must not start side effects).
func pageMiddleware<State>(
    _ middleware: @escaping Middleware<State>,
    isClosed: @escaping @Sendable () -> Bool
) -> Middleware<State> {
    { dispatch, getState in
        { next in
            let wrapped = middleware(dispatch, getState)(next)
            return { action in
                if action is ForwardedAction {
                    next(action)
                } else if !isClosed() {
                    wrapped(action)
                }
            }
        }
    }
}
