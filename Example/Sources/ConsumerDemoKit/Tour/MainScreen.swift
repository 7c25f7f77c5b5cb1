import ReduxConsumer
import ReduxConsumerDiff

/// ReSwift-Consumer's `MainVc`: a screen that owns a page store, consumes one global property and one page
/// property, and takes them all away when it goes.
///
/// It holds the page, the page holds the consumers, and the consumers hold the screen weakly (the
/// `owner:` form of `add`), so releasing the screen releases everything.
final class MainScreen: Sendable {
    let page: PageStore<MainState, AppState>
    private let console: Console

    init(appStore: Store<AppState>, console: Console, format: DiffFormat) {
        let logger = ActionLogger<MainState>(format: format) { entry in
            Tour.printDiff(entry.diff, label: "page diff", format: entry.format, console: console)
        }
        page = PageStore(
            global: appStore,
            initialState: MainState.init(global:),
            reducer: mainReducer,
            middleware: [logger.middleware]
        )
        self.console = console
        page.globalConsumer.add(\.foreground, owner: self) { screen, old, new in
            screen.show("AppState.foreground: \(old) → \(new)")
        }
        page.consumer.add(\.count, owner: self) { screen, old, new in
            screen.show("MainState.count: \(old) → \(new)")
        }
    }

    deinit {
        console.line(Tour.labeled("MainVc", "deinit: its page store and consumers go with it"))
    }

    private func show(_ text: String) {
        console.line(Tour.labeled("MainVc", text))
    }
}
