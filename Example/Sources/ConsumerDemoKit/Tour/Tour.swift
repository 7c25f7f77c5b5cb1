import ReduxConsumer
import ReduxConsumerDiff

/// The built-in scenario `consumer-demo` runs without arguments: the library's whole story in a
/// screenful, deterministic so it doubles as a golden test.
///
/// 1. A global store with a `StateConsumer` on ReSwift-Consumer's counter, name and works, and the logging
///    middleware printing each action's diff; then a `ConsumerBag` removes the consumers.
/// 2. ReSwift-Consumer's `MainVc`: a page store built from the global state, consuming a global and a page
///    property, released with its owner; the global store's subscriber count shows it.
struct Tour {
    let console: Console
    let format: DiffFormat
    /// Middleware installed after the logger, innermost: `record` adds its recorder here.
    var middleware: [Middleware<AppState>] = []

    func run() -> ExitStatus {
        let logger = ActionLogger<AppState>(format: format) { [console] entry in
            Self.printDiff(entry.diff, label: "diff", format: entry.format, console: console)
        }
        let store = Store(initialState: AppState(), reducer: appReducer, middleware: [logger.middleware] + middleware)
        console.line(console.bold("consumer-demo \(demoVersion): a tour of ReduxConsumer"))
        consumers(store)
        page(store)
        console.line()
        console.line("final state:")
        for line in stateDump(store.state) { console.line(line) }
        console.line()
        console.line("Next: consumer-demo run Example/scripts/tour.txt, or consumer-demo --help")
        return .success
    }

    private func consumers(_ store: Store<AppState>) {
        heading(
            "1. Consumers fire only for what they select",
            "A StateConsumer selects counter, name and works (ReSwift-Consumer's CounterViewController),",
            "and a Derived summary of name and works, computed only when one of them changes;",
            "the logging middleware (ActionLogger) prints the diff of every action."
        )
        let bag = ConsumerBag()
        let consumer = StateConsumer<AppState>()
        consumer.add(\.counter) { [console] old, new in
            console.line(Self.labeled("consumer", "counter: \(old) → \(new)"))
        }.store(in: bag)
        consumer.add(\.name) { [console] old, new in
            console.line(Self.labeled("consumer", "name: \(valueText(old)) → \(valueText(new))"))
        }.store(in: bag)
        consumer.add(\.works) { [console] old, new in
            console.line(Self.labeled("consumer", "works: \(valueText(old)) → \(valueText(new))"))
        }.store(in: bag)
        // A value derived from two fields: computed again only when `name` or `works` changed,
        // however many consumers watch it, and heard only when the summary itself changed.
        let computations = Lock(0)
        let summary = Derived(\AppState.name, \.works) { name, works in
            computations.withLock { $0 += 1 }
            return "\(name ?? "nobody") has \(works.count) work\(works.count == 1 ? "" : "s")"
        }
        consumer.add(summary) { [console] old, new in
            console.line(Self.labeled("derived", "summary: \(valueText(old)) → \(valueText(new))"))
        }.store(in: bag)
        store.subscribe(consumer).store(in: bag)

        dispatch(.increment, to: store)
        dispatch(.rename("Kim"), to: store)
        dispatch(.addWork("write tests"), to: store)
        dispatch(.login("alice"), to: store)
        dispatch(.set(1), to: store)
        note("No consumer selects auth, and set(1) changed nothing: the consumers stayed quiet.")
        note("The summary was computed \(computations.withLock { $0 }) times: first, then after rename and addWork.")
        let before = store.subscriberCount
        bag.removeAll()
        note("bag.removeAll(): global subscribers \(before) → \(store.subscriberCount)")
    }

    private func page(_ store: Store<AppState>) {
        heading(
            "2. A page store lives as long as its owner (ReSwift-Consumer's MainVc)",
            "MainVc opens a PageStore<MainState, AppState> whose count starts at 10 because alice",
            "is logged in; it consumes AppState.foreground and MainState.count, and sends global",
            "changes to the global store."
        )
        let before = store.subscriberCount
        var mainVc: MainScreen? = MainScreen(appStore: store, console: console, format: format)
        note("MainVc opened: global subscribers \(before) → \(store.subscriberCount)")
        dispatch(.setForeground(true), to: store)
        if let page = mainVc?.page {
            console.line("  > page.dispatch(.\(MainAction.increment))")
            page.dispatch(MainAction.increment)
            let action = AppAction.setForeground(false)
            console.line("  > page.dispatchGlobal(.\(action))")
            page.dispatchGlobal(action)
        }
        let open = store.subscriberCount
        console.line("  > mainVc = nil")
        mainVc = nil
        note("MainVc released: global subscribers \(open) → \(store.subscriberCount)")
        dispatch(.setForeground(true), to: store)
        note("Only the diff: no consumer is left to hear it.")
    }

    private func heading(_ title: String, _ lines: String...) {
        console.line()
        console.line(console.bold(title))
        for line in lines { console.line("   " + line) }
        console.line()
    }

    private func note(_ text: String) {
        console.line("  " + text)
    }

    private func dispatch(_ action: AppAction, to store: Store<AppState>) {
        console.line("  > store.dispatch(.\(action))")
        store.dispatch(action)
    }

    /// `text` after a label column, under a `>` line.
    static func labeled(_ label: String, _ text: String) -> String {
        "      " + leftAligned(label, width: 10) + text
    }

    /// A diff under a label: the first change beside it, the others aligned below.
    static func printDiff(_ diff: StateDiff, label: String, format: DiffFormat, console: Console) {
        guard !diff.isEmpty else {
            console.line(labeled(label, console.dim("(no change)")))
            return
        }
        for (index, line) in changeLines(diff, format: format).enumerated() {
            console.line(labeled(index == 0 ? label : "", line))
        }
    }
}
