// Exit tests need a child process: not available on iOS, tvOS, watchOS or visionOS.
#if os(macOS) || os(Linux) || os(FreeBSD) || os(OpenBSD) || os(Windows)
    import Foundation
    import ReduxConsumer
    import ReduxConsumerTestSupport
    import Testing

    /// Guarantee 7: each misuse stops the program with a message that names what was wrong.
    ///
    /// Each stop runs in a child process (an exit test) that builds everything it needs, writes the
    /// descriptions of the objects involved to standard error (`names: …`), then misuses them; the
    /// test checks that the process failed and that the stop's message names every one of them.
    struct MisuseTests {
        @Test func consumerSubscribedToASecondStoreStopsNamingBothStores() async {
            let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
                let first = makeStore()
                let second = makeStore()
                let consumer = StateConsumer<AppState>()
                announce(first.description, second.description)
                let subscription = first.subscribe(consumer)
                withExtendedLifetime(subscription) {
                    _ = second.subscribe(consumer)
                }
            }
            expectStop(result, saying: "a consumer belongs to one store at a time")
        }

        @Test func consumingByHandWhileSubscribedStopsNamingTheStore() async {
            let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
                let store = makeStore()
                let consumer = StateConsumer<AppState>()
                announce(store.description)
                let subscription = store.subscribe(consumer)
                withExtendedLifetime(subscription) {
                    consumer.consume(newState: AppState(counter: 1))
                }
            }
            expectStop(result, saying: "consume(newState:) was called while the consumer is subscribed to")
        }

        @Test func readingAStoresStateInsideItsOwnReducerStopsNamingTheStore() async {
            let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
                let holder = Lock<Store<AppState>?>(nil)
                let store = Store(
                    initialState: AppState(),
                    reducer: Reducer<AppState> { (state, _: CounterAction) in
                        state.counter = (holder.withLock { $0 }?.state.counter ?? 0) + 1
                    }
                )
                holder.withLock { $0 = store }
                announce(store.description)
                store.dispatch(CounterAction.increment)
            }
            expectStop(result, saying: ".state was read inside the store's own reducer")
        }

        @Test func creatingAPageInsideItsGlobalStoresReducerStopsNamingTheGlobalStore() async {
            let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
                let holder = Lock<Store<AppState>?>(nil)
                let global = Store(
                    initialState: AppState(),
                    reducer: Reducer<AppState> { (state, _: CounterAction) in
                        if let global = holder.withLock({ $0 }) {
                            _ = PageStore(global: global, initialState: { $0 }, reducer: appReducer)
                        }
                        state.counter += 1
                    }
                )
                holder.withLock { $0 = global }
                announce(global.description)
                global.dispatch(CounterAction.increment)
            }
            expectStop(result, saying: "was created inside the reducer of its global store")
        }

        @available(macOS 15.0, *)
        @Test func isolatedCallbackOnAnotherActorThanOnStopsNamingBothActors() async {
            let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
                let consumer = StateConsumer<AppState>()
                announce("\(TestActor.self)", "\(MainActor.self)")
                consumer.add(\.counter, on: MainActor.shared) { @TestActor _, _ in }
            }
            expectStop(result, saying: "the callback is isolated to TestActor, not to MainActor given in `on:`")
        }
    }

    /// Writes what the stop's message must name to standard error, one `names: …` line each,
    /// before the misuse.
    private func announce(_ names: String...) {
        for name in names {
            FileHandle.standardError.write(Data("names: \(name)\n".utf8))
        }
    }

    /// Expects the child's stop message to contain `phrase` and every announced name.
    private func expectStop(
        _ result: ExitTest.Result?, saying phrase: String, sourceLocation: SourceLocation = #_sourceLocation
    ) {
        guard let result else { return }  // #expect already recorded the wrong exit
        let lines = String(decoding: result.standardErrorContent, as: UTF8.self).split(separator: "\n")
        let names = lines.filter { $0.hasPrefix("names: ") }.map { String($0.dropFirst("names: ".count)) }
        guard
            let message = lines.first(where: { $0.contains("Precondition failed: ") || $0.contains("Fatal error: ") })
                .map(String.init)
        else {
            Issue.record(
                "no stop message on standard error:\n\(lines.joined(separator: "\n"))", sourceLocation: sourceLocation)
            return
        }
        #expect(!names.isEmpty, sourceLocation: sourceLocation)
        #expect(message.contains(phrase), "\(message)", sourceLocation: sourceLocation)
        for name in names {
            #expect(
                message.contains(name), "the message does not name \(name): \(message)", sourceLocation: sourceLocation)
        }
    }
#endif
