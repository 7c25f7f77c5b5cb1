import ReduxConsumer
import ReduxConsumerDiff
import ReduxConsumerTestSupport
import Testing

struct ActionLoggerTests {
    /// A store whose logger writes every entry to the returned recorder.
    private func makeLoggedStore(
        _ logger: (_ log: @escaping @Sendable (ActionLogger<AppState>.Entry) -> Void) -> ActionLogger<AppState>
    ) -> (Store<AppState>, Recorder<String>) {
        let entries = Recorder<String>()
        let logger = logger { entries.append($0.description) }
        return (makeStore(middleware: [logger.middleware]), entries)
    }

    @Test func logsEachActionWithTheChangesItCaused() {
        let (store, entries) = makeLoggedStore { ActionLogger(log: $0) }
        store.dispatch(CounterAction.increment)
        store.dispatch(CounterAction.rename("Kim"))
        store.dispatch(CounterAction.addWork("write tests"))
        store.dispatch(CounterAction.rename("Lee"))
        let expected = """
            action increment
              ~ counter: 0 → 1
            action rename(Optional("Kim"))
              + name: "Kim"
            action addWork("write tests")
              + works[0]: "write tests"
            action rename(Optional("Lee"))
              ~ name: "Kim" → "Lee"
            """
        #expect(entries.values.joined(separator: "\n") == expected)
    }

    @Test func oneActionWithSeveralChangesIsOneEntry() {
        struct Reset: Action {}
        let reducer = Reducer<AppState> { (state, _: Reset) in state = AppState() }
        let entries = Recorder<String>()
        let logger = ActionLogger<AppState> { entries.append($0.description) }
        let store = Store(
            initialState: AppState(counter: 3, name: "Kim", works: ["a", "b"]),
            reducer: reducer,
            middleware: [logger.middleware]
        )
        store.dispatch(Reset())
        let expected = """
            action Reset()
              ~ counter: 3 → 0
              - name: "Kim"
              - works[0]: "a"
              - works[1]: "b"
            """
        #expect(entries.values == [expected])
    }

    @Test func unchangedStateIsLoggedAsNoChangeByDefault() {
        let (store, entries) = makeLoggedStore { ActionLogger(log: $0) }
        store.dispatch(CounterAction.set(0))
        #expect(entries.values == ["action set(0) (no change)"])
    }

    @Test func unchangedStateIsOmittedWhenAsked() {
        let (store, entries) = makeLoggedStore { ActionLogger(omitsUnchangedState: true, log: $0) }
        store.dispatch(CounterAction.set(0))
        store.dispatch(CounterAction.set(2))
        store.dispatch(CounterAction.set(2))
        #expect(entries.values == ["action set(2)\n  ~ counter: 0 → 2"])
    }

    @Test func filteredActionsAreReducedButNotLogged() {
        let (store, entries) = makeLoggedStore { log in
            ActionLogger(where: { ($0 as? CounterAction) != .increment }, log: log)
        }
        store.dispatch(CounterAction.increment)
        store.dispatch(CounterAction.decrement)
        #expect(store.state.counter == 0)
        #expect(entries.values == ["action decrement\n  ~ counter: 1 → 0"])
    }

    @Test func formatCutsLongValuesAndColorsLines() {
        let format = DiffFormat(maxValueLength: 8, usesColor: true)
        let (store, entries) = makeLoggedStore { ActionLogger(format: format, log: $0) }
        store.dispatch(CounterAction.addWork("a long piece of work"))
        store.dispatch(CounterAction.set(0))
        let expected = [
            "\u{1B}[1maction addWork(\"a long piece of work\")\u{1B}[0m\n"
                + "  \u{1B}[32m+ works[0]: \"a long…\u{1B}[0m",
            "\u{1B}[1maction set(0) (no change)\u{1B}[0m",
        ]
        #expect(entries.values == expected)
    }

    @Test func actionsDispatchedFromCallbacksAreLoggedAfterTheActionThatCausedThem() {
        let (store, entries) = makeLoggedStore { ActionLogger(log: $0) }
        let consumer = StateConsumer<AppState>()
        consumer.add(\.counter) { _, new in
            if new == 1 { store.dispatch(CounterAction.addWork("follow-up")) }
        }
        let subscription = store.subscribe(consumer)
        store.dispatch(CounterAction.increment)
        let expected = """
            action increment
              ~ counter: 0 → 1
            action addWork("follow-up")
              + works[0]: "follow-up"
            """
        #expect(entries.values.joined(separator: "\n") == expected)
        subscription.cancel()
    }

    @Test func loggerInnermostSeesOnlyWhatReachesTheReducer() {
        let swallowDecrement: Middleware<AppState> = { _, _ in
            { next in
                { action in
                    if (action as? CounterAction) != .decrement { next(action) }
                }
            }
        }
        let entries = Recorder<String>()
        let logger = ActionLogger<AppState> { entries.append($0.description) }
        let store = makeStore(middleware: [swallowDecrement, logger.middleware])
        store.dispatch(CounterAction.decrement)
        store.dispatch(CounterAction.increment)
        #expect(entries.values == ["action increment\n  ~ counter: 0 → 1"])
    }

    @Test func entryExposesTheActionAndTheStructuredDiff() throws {
        let entries = Recorder<ActionLogger<AppState>.Entry>()
        let store = makeStore(middleware: [ActionLogger { entries.append($0) }.middleware])
        store.dispatch(CounterAction.rename("Kim"))
        let entry = try #require(entries.values.first)
        #expect(entry.action as? CounterAction == .rename("Kim"))
        #expect(entry.diff.changes.map(\.path.description) == ["name"])
        #expect(entry.diff.changes.first?.kind == .added)
    }

    private struct Note: Action, CustomStringConvertible {
        var description: String
    }

    @Test func lineBreaksInAnActionDescriptionAreEscapedOnTheActionLine() {
        let entry = ActionLogger<Int>.Entry(action: Note(description: "a\n  ~ b\r"), diff: StateDiff(from: 1, to: 1))
        #expect(entry.description == #"action a\n  ~ b\r (no change)"#)
    }
}
