import ReduxConsumer

extension TestStore {
    /// Creates a test store for a real ``PageStore``, built exactly as
    /// ``PageStore/init(global:initialState:reducer:middleware:effects:deliveringOn:diagnostics:)``
    /// builds it: the page's state starts from `global`'s current state, its consumers are the
    /// page's own, and its forwarding, ``close()`` and effects are the page's.
    ///
    /// Give it a global store made for the test, holding a stub global state; the page's
    /// middleware and effects dispatch to it as they would to the app's store:
    ///
    /// ```swift
    /// let appStore = Store(initialState: AppState(foreground: true), reducer: appReducer)
    /// let store = TestStore(
    ///     global: appStore,
    ///     initialState: { app in MainState(count: app.foreground ? 10 : 0) },
    ///     reducer: mainReducer,
    ///     middleware: [mainMiddleware(global: appStore)]
    /// )
    /// ```
    ///
    /// Every action that reaches `global` from now on, other than those the test sends with
    /// ``sendGlobal(_:fileID:filePath:line:column:)``, is recorded for
    /// ``receiveGlobal(_:timeout:fileID:filePath:line:column:)``. Global actions the page forwards
    /// (``PageStore/forwardActions(where:)``, set up on ``page(global:)``) reach the page's reducer
    /// and are checked with `receive`, like any action the page did not get from `send`.
    ///
    /// The test store records `global`'s actions with an action listener
    /// (``Store/observeActions(_:)``), removed by ``finish(fileID:filePath:line:column:)`` or when
    /// the test store is released; the page's own subscription to `global` goes with the page,
    /// when the test store is released or the page closed.
    ///
    /// - Parameters:
    ///   - global: The global store the page reads and dispatches to.
    ///   - initialState: Builds the page's initial state from the global state; called once.
    ///   - reducer: The page's reducer.
    ///   - middleware: The page's middleware, outermost first.
    ///   - effects: The page's effects (see ``Effect``), cancelled when the page closes.
    ///   - fileID: Where the store was created; see
    ///     ``init(initialState:reducer:middleware:effects:fileID:filePath:line:column:)``.
    ///   - filePath: See `fileID`.
    ///   - line: See `fileID`.
    ///   - column: See `fileID`.
    public convenience init<GlobalState: Sendable>(
        global: Store<GlobalState>,
        initialState: (GlobalState) -> State,
        reducer: Reducer<State>,
        middleware: [Middleware<State>] = [],
        effects: [Effect<State>] = [],
        fileID: StaticString = #fileID,
        filePath: StaticString = #filePath,
        line: UInt = #line,
        column: UInt = #column
    ) {
        let instrumented = Instrumented(reducer, middleware)
        let page = PageStore(
            global: global,
            initialState: initialState,
            reducer: instrumented.reducer,
            middleware: instrumented.middleware,
            effects: effects
        )
        self.init(
            subject: Subject(page: page),
            log: instrumented.log,
            consumer: page.consumer,
            subscriptions: [],
            site: CallSite(fileID: fileID, filePath: filePath, line: line, column: column)
        )
        let log = instrumented.log
        globalRecording = global.observeActions { log.didReduceGlobal($0) }
    }

    /// The page under test, for what a screen does with its page beyond sending actions: bind to
    /// its ``PageStore/globalConsumer``, set up ``PageStore/forwardActions(where:)``.
    ///
    /// ```swift
    /// let page = store.page(global: AppState.self)
    /// page.forwardActions { $0 is AppAction }
    /// screen.bind(to: page)
    /// ```
    ///
    /// Send the page's actions through the test store (``send(_:fileID:filePath:line:column:_:)``,
    /// ``sendGlobal(_:fileID:filePath:line:column:)``), so that they are checked as steps; an
    /// action dispatched on the page directly is one the test must `receive`.
    ///
    /// - Parameter global: The page's global state type, as given to
    ///   ``init(global:initialState:reducer:middleware:effects:fileID:filePath:line:column:)``.
    ///   A test store made for a plain store, or another global state type, stops the program
    ///   with a message saying so.
    /// - Returns: The page.
    public func page<GlobalState>(global: GlobalState.Type = GlobalState.self) -> PageStore<State, GlobalState> {
        guard let page = subject.page as? PageStore<State, GlobalState> else {
            let made = subject.page.map { "for \(type(of: $0))" } ?? "for a plain Store<\(State.self)>"
            stopOnMisuse("TestStore.page(global: \(GlobalState.self).self): this test store was made \(made).")
        }
        return page
    }

    /// Sends `action` to the global store through the page under test, as the page's owner would
    /// with ``PageStore/dispatchGlobal(_:)``: for a global change the page must react to.
    ///
    /// The action is not recorded for `receiveGlobal` (the test sent it). What the page does in
    /// response is checked with the next steps: a forwarded action with `receive`, a consumer of
    /// the global state with the screen bound to it.
    ///
    /// ```swift
    /// store.page(global: AppState.self).forwardActions { $0 is AppAction }
    /// store.sendGlobal(AppAction.enterBackground)
    /// store.receive(AppAction.enterBackground) { $0.isPaused = true }
    /// ```
    ///
    /// With ``Exhaustivity/on``, what earlier steps left unasserted is reported here first; a
    /// test store made for a plain store, or a closed page, fails.
    ///
    /// - Parameters:
    ///   - action: The global action.
    ///   - fileID: Where a failure is reported; leave the default.
    ///   - filePath: See `fileID`.
    ///   - line: See `fileID`.
    ///   - column: See `fileID`.
    public func sendGlobal(
        _ action: any Action,
        fileID: StaticString = #fileID,
        filePath: StaticString = #filePath,
        line: UInt = #line,
        column: UInt = #column
    ) {
        let site = CallSite(fileID: fileID, filePath: filePath, line: line, column: column)
        let step = "sendGlobal(\(rendered(action: action)))"
        guard let operations = pageOperations(for: step, at: site), beginSend(step, at: site) else { return }
        guard operations.dispatchGlobal(action) else { return reportClosedWhileSending(step, at: site) }
        completeEventsNow()
        endSendGlobal(action, step: step)
    }

    /// Sends `action` to the global store through the page under test, suspending instead of
    /// blocking while a store is busy on another thread: the async form of
    /// ``sendGlobal(_:fileID:filePath:line:column:)``.
    ///
    /// - Parameters:
    ///   - action: The global action.
    ///   - fileID: Where a failure is reported; leave the default.
    ///   - filePath: See `fileID`.
    ///   - line: See `fileID`.
    ///   - column: See `fileID`.
    ///   - isolation: The caller's isolation; leave the default.
    public func sendGlobal(
        _ action: any Action,
        fileID: StaticString = #fileID,
        filePath: StaticString = #filePath,
        line: UInt = #line,
        column: UInt = #column,
        isolation: isolated (any Actor)? = #isolation
    ) async {
        let site = CallSite(fileID: fileID, filePath: filePath, line: line, column: column)
        let step = "sendGlobal(\(rendered(action: action)))"
        guard let operations = pageOperations(for: step, at: site), beginSend(step, at: site) else { return }
        guard await operations.sendGlobal(action) else { return reportClosedWhileSending(step, at: site) }
        await completeEvents()
        endSendGlobal(action, step: step)
    }

    /// Closes the page under test, as its owner would when it is done (see ``PageStore/close()``):
    /// its consumers, forwarding and subscriptions end, its running effects are cancelled, and
    /// later `send`s fail the test.
    ///
    /// The effects of a closed page are not reported by `finish()`; the async
    /// ``finish(timeout:fileID:filePath:line:column:isolation:)`` waits for them to wind down.
    ///
    /// ```swift
    /// await store.send(SearchAction.query("swift")) { $0.isSearching = true }
    /// store.close()
    /// await store.finish()
    /// ```
    ///
    /// - Parameters:
    ///   - fileID: Where a failure is reported (a test store made for a plain store); leave the
    ///     default.
    ///   - filePath: See `fileID`.
    ///   - line: See `fileID`.
    ///   - column: See `fileID`.
    public func close(
        fileID: StaticString = #fileID,
        filePath: StaticString = #filePath,
        line: UInt = #line,
        column: UInt = #column
    ) {
        let site = CallSite(fileID: fileID, filePath: filePath, line: line, column: column)
        guard let operations = pageOperations(for: "close()", at: site) else { return }
        // Firings of the actions before the close belong to them: complete those first.
        completeEventsNow()
        operations.close()
    }

    /// The page's operations, or `nil` after reporting that this test store has no page.
    private func pageOperations(for step: String, at site: CallSite) -> Subject<State>.PageOperations? {
        guard let operations = subject.pageOperations else {
            reportFailure(
                "\(step) needs a page: make the test store with TestStore(global:initialState:reducer:…).",
                at: site
            )
            return nil
        }
        return operations
    }

    /// Reports a global send that the page ignored because it closed (on another thread, say)
    /// after ``beginSend(_:at:)`` found it open.
    private func reportClosedWhileSending(_ step: String, at site: CallSite) {
        reportFailure(
            "\(step): the page closed before the action was sent; a closed page ignores every action.", at: site)
        lastStep = step
    }

    /// The end of a `sendGlobal`: files what the global action caused, minus the action itself.
    private func endSendGlobal(_ action: any Action, step: String) {
        let news = log.take()
        receivedEvents += news.events
        var global = news.globalActions
        if let own = global.firstIndex(where: { isSameAction($0, action) }) {
            global.remove(at: own)
        }
        globalActions += global
        dueFirings.removeAll()
        lastStep = step
    }
}

/// Whether `lhs` is `rhs` as far as anyone can tell: the same type, and equal when the type is
/// `Equatable` (two equal values are interchangeable, so it does not matter which one is dropped).
private func isSameAction(_ lhs: any Action, _ rhs: any Action) -> Bool {
    guard type(of: lhs) == type(of: rhs) else { return false }
    guard let lhs = lhs as? any Equatable else { return true }
    return lhs.isEqual(toValueOfUnknownType: rhs)
}

extension Equatable {
    fileprivate func isEqual(toValueOfUnknownType other: Any) -> Bool {
        other as? Self == self
    }
}
