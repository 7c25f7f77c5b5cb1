import Dispatch
import Foundation
import ReduxConsumer
import ReduxConsumerTestSupport
import Testing

struct PageLifetimeTests {
    @Test func releasedOwnersFreeEverythingTheyRegistered() {
        let global = makeRootStore()
        let start = global.subscriberCount
        let log = Recorder<String>()

        for round in 0..<10_000 {
            var screen: MainScreen? = MainScreen(global: global, log: log)
            screen?.page.forwardActions { $0 is AuthAction }
            weak let weakScreen = screen
            weak let weakPage = screen?.page
            weak let weakConsumer = screen?.page.consumer
            weak let weakGlobalConsumer = screen?.page.globalConsumer
            screen?.page.dispatch(MainAction.increment)
            global.dispatch(round.isMultiple(of: 2) ? LifecycleAction.enterForeground : .enterBackground)

            screen = nil

            guard weakScreen == nil, weakPage == nil, weakConsumer == nil, weakGlobalConsumer == nil else {
                Issue.record("round \(round): something outlived its owner")
                return
            }
        }

        #expect(global.subscriberCount == start)
        let delivered = log.values.count
        #expect(delivered == 20_000)
        global.dispatch(LifecycleAction.enterForeground)
        global.dispatch(LifecycleAction.enterBackground)
        global.dispatch(AuthAction.logOut)
        #expect(log.values.count == delivered)
    }

    @Test func aPageReleasedInsideAGlobalCallbackStopsThere() {
        let global = makeRootStore()
        let start = global.subscriberCount
        let log = Recorder<String>()
        let holder = Lock<MainScreen?>(MainScreen(global: global, log: log))
        weak let weakScreen = holder.withLock { $0 }
        let releasing = StateConsumer<RootState>()
        releasing.add(\.foreground) { _ in holder.withLock { $0 = nil } }
        let subscription = global.subscribe(releasing)

        global.dispatch(LifecycleAction.enterForeground)
        global.dispatch(LifecycleAction.enterBackground)

        #expect(weakScreen == nil)
        #expect(global.subscriberCount == start + 1)
        #expect(log.values == ["foreground: false → true"])
        subscription.cancel()
    }

    @Test func aPageCreatedInsideAGlobalCallbackStartsWithTheNextAction() {
        let global = makeRootStore()
        let log = Recorder<String>()
        let holder = Lock<MainScreen?>(nil)
        let opening = StateConsumer<RootState>()
        opening.add(\.auth.user) { _, _ in holder.withLock { $0 = MainScreen(global: global, log: log) } }
        let subscription = global.subscribe(opening)

        global.dispatch(AuthAction.logIn("son"))
        global.dispatch(LifecycleAction.enterForeground)

        #expect(holder.withLock { $0?.page.state } == MainState(count: 10))
        #expect(log.values == ["foreground: false → true"])
        holder.withLock { $0 = nil }
        subscription.cancel()
    }

    @Test func pagesComeAndGoWhileTheGlobalStoreIsDispatchedFromOtherThreads() {
        let global = makeRootStore()
        let start = global.subscriberCount
        let lateCalls = CallCounter()
        let leftovers = Lock<[WeakReference]>([])
        let group = DispatchGroup()

        for thread in 0..<2 {
            run(in: group) {
                for round in 0..<2_000 {
                    let action: any Action =
                        round.isMultiple(of: 3)
                        ? AuthAction.logIn("user\(thread)")
                        : round.isMultiple(of: 2) ? LifecycleAction.enterForeground : LifecycleAction.enterBackground
                    global.dispatch(action)
                }
            }
        }
        for _ in 0..<2 {
            run(in: group) {
                for round in 0..<300 {
                    let owner = ClosableOwner()
                    let page = PageStore(global: global, initialState: { _ in MainState() }, reducer: mainReducer)
                    page.forwardActions { $0 is AuthAction }
                    page.globalConsumer.add(\.foreground, owner: owner) { owner, _, _ in
                        if owner.isClosed { lateCalls.increment() }
                    }
                    page.consumer.add(\.count, owner: owner) { owner, _, _ in
                        if owner.isClosed { lateCalls.increment() }
                    }
                    page.dispatch(MainAction.increment)
                    page.dispatchGlobal(round.isMultiple(of: 2) ? AuthAction.logOut : LifecycleAction.enterForeground)
                    if round.isMultiple(of: 2) {
                        page.close()
                        owner.close()
                    }
                    leftovers.withLock { $0 += [WeakReference(page), WeakReference(owner)] }
                }
            }
        }
        group.wait()

        #expect(leftovers.withLock { $0.allSatisfy { $0.object == nil } })
        #expect(global.subscriberCount == start)
        #expect(lateCalls.value == 0)
    }

    private func run(in group: DispatchGroup, _ body: @escaping @Sendable () -> Void) {
        group.enter()
        Thread {
            body()
            group.leave()
        }
        .start()
    }
}

/// An owner that knows whether its page was closed, to catch callbacks that come too late.
private final class ClosableOwner: Sendable {
    private let closed = Lock(false)

    var isClosed: Bool {
        closed.withLock { $0 }
    }

    func close() {
        closed.withLock { $0 = true }
    }
}

private struct WeakReference {
    weak var object: AnyObject?

    init(_ object: AnyObject) {
        self.object = object
    }
}
