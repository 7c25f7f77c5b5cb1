import Observation
import ReduxConsumer
import Testing

// The code of the README's and the DocC article's "Using it in an app", compiled and run. `Label`
// stands in for a UIKit or AppKit label; everything else is as shown.

/// The guide's types, in a namespace of their own: the test target has other `AppState`s.
enum AppGuide {
    struct AppState: Equatable, Sendable {
        var counter = 0
    }

    enum CounterAction: Action {
        case increment
    }

    static let appReducer = Reducer<AppState> { (state, action: CounterAction) in
        switch action {
        case .increment: state.counter += 1
        }
    }

    struct MainState: Equatable, Sendable {
        var count = 0
    }

    enum MainAction: Action {
        case increment
    }

    static let mainReducer = Reducer<MainState> { (state, action: MainAction) in
        switch action {
        case .increment: state.count += 1
        }
    }

    /// A label whose every new text the test can await.
    @MainActor final class Label {
        let texts = AsyncStream.makeStream(of: String.self)
        var text = "" {
            didSet { texts.continuation.yield(text) }
        }
    }

    @available(macOS 15.0, iOS 18.0, tvOS 18.0, watchOS 11.0, visionOS 2.0, *)
    @MainActor final class CounterScreen {
        let label = Label()
        let bag = ConsumerBag()

        init(store: Store<AppState>) {
            let consumer = StateConsumer<AppState>()
            consumer.add(\.counter, on: MainActor.shared) { @MainActor [label] old, new in
                label.text = "\(new)"
            }.store(in: bag)
            store.subscribe(consumer).store(in: bag)
        }
    }

    @available(macOS 15.0, iOS 18.0, tvOS 18.0, watchOS 11.0, visionOS 2.0, *)
    @MainActor final class MainScreen {
        let page: PageStore<MainState, AppState>
        let countLabel = Label()

        init(appStore: Store<AppState>) {
            page = PageStore(global: appStore, initialState: { _ in MainState() }, reducer: mainReducer)
            page.consumer.add(\.count, owner: self, on: MainActor.shared) { @MainActor screen, old, new in
                screen.countLabel.text = "\(new)"
            }
        }

        func tap() {
            page.dispatch(MainAction.increment)
        }
    }

    @available(macOS 15.0, iOS 18.0, tvOS 18.0, watchOS 11.0, visionOS 2.0, *)
    @MainActor @Observable final class CounterModel {
        private(set) var counter = 0
        @ObservationIgnored private let bag = ConsumerBag()

        init(store: Store<AppState>) {
            let consumer = StateConsumer<AppState>()
            consumer.add(\.counter, owner: self, options: .instantly, on: MainActor.shared) {
                @MainActor model, _, new in
                model.counter = new
            }.store(in: bag)
            store.subscribe(consumer).store(in: bag)
        }
    }
}

extension AppGuide {
    @MainActor struct UsingItInAnAppTests {
        @Test func aMainActorCallbackUpdatesTheLabelOnTheMainActor() async {
            guard #available(macOS 15.0, iOS 18.0, tvOS 18.0, watchOS 11.0, visionOS 2.0, *) else { return }
            let store = Store(initialState: AppState(), reducer: appReducer)
            let screen = CounterScreen(store: store)
            var texts = screen.label.texts.stream.makeAsyncIterator()
            Task.detached {
                for _ in 0..<3 { store.dispatch(CounterAction.increment) }
            }
            // A main actor that falls behind gets changes merged: values rise to the last one.
            var seen: [Int] = []
            while seen.last != 3, let text = await texts.next() {
                seen.append(Int(text) ?? -1)
            }
            #expect(seen == seen.sorted() && Set(seen).count == seen.count && seen.last == 3)
        }

        @Test func theOwnerFormUpdatesTheScreen() async {
            guard #available(macOS 15.0, iOS 18.0, tvOS 18.0, watchOS 11.0, visionOS 2.0, *) else { return }
            let screen = MainScreen(appStore: Store(initialState: AppState(), reducer: appReducer))
            var texts = screen.countLabel.texts.stream.makeAsyncIterator()
            screen.tap()
            #expect(await texts.next() == "1")
            screen.tap()
            #expect(await texts.next() == "2")
        }

        @Test func theOwnerFormDoesNotKeepTheScreenAlive() {
            guard #available(macOS 15.0, iOS 18.0, tvOS 18.0, watchOS 11.0, visionOS 2.0, *) else { return }
            let appStore = Store(initialState: AppState(), reducer: appReducer)
            var screen: MainScreen? = MainScreen(appStore: appStore)
            weak let weakScreen = screen
            _ = screen?.page.globalConsumer  // the page becomes a global subscriber on first use
            #expect(appStore.subscriberCount == 1)
            screen = nil
            #expect(weakScreen == nil)
            #expect(appStore.subscriberCount == 0)  // its page and consumers went with it
        }

        @Test func anObservableModelIsFedByAConsumer() async {
            guard #available(macOS 15.0, iOS 18.0, tvOS 18.0, watchOS 11.0, visionOS 2.0, *) else { return }
            let store = Store(initialState: AppState(counter: 41), reducer: appReducer)
            let model = CounterModel(store: store)
            #expect(model.counter == 0)  // the first call is posted to the main actor, which runs this test
            #expect(await nextValue(of: model) == 41)  // `.instantly`: the store's value when subscribed
            let next = Task { await nextValue(of: model) }
            store.dispatch(CounterAction.increment)
            #expect(await next.value == 42)
        }
    }

    /// The value of `model.counter` after its next change, observed as SwiftUI observes a model.
    @available(macOS 15.0, iOS 18.0, tvOS 18.0, watchOS 11.0, visionOS 2.0, *)
    @MainActor static func nextValue(of model: CounterModel) async -> Int {
        let (changes, continuation) = AsyncStream.makeStream(of: Int.self)
        withObservationTracking {
            _ = model.counter
        } onChange: {
            Task { @MainActor in continuation.yield(model.counter) }
        }
        var iterator = changes.makeAsyncIterator()
        return await iterator.next() ?? -1
    }
}
