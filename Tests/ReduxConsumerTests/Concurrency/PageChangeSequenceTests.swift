import ReduxConsumer
import ReduxConsumerTestSupport
import Testing

/// The `PageStore` forms of `changes(of:)`: page state and global state, each finishing when the
/// page closes or is released.
struct PageChangeSequenceTests {
    @Test func pageStateChangesFinishWhenThePageCloses() async {
        let diagnostics = Recorder<String>()
        let page = PageStore(
            global: makeRootStore(), initialState: { _ in MainState() }, reducer: mainReducer,
            diagnostics: diagnostics.append)
        var counts = page.changes(of: \.count, options: .instantly, buffering: .unbounded).makeAsyncIterator()
        var parities = page.changes(
            of: { $0.count.isMultiple(of: 2) }, options: .instantly, buffering: .unbounded
        ).makeAsyncIterator()
        let isLarge = Derived(\MainState.count) { $0 > 12 }
        var larges = page.changes(of: isLarge, options: .instantly, buffering: .unbounded).makeAsyncIterator()
        #expect(await counts.next() == Change(old: 10, new: 10))
        #expect(await parities.next() == Change(old: true, new: true))
        #expect(await larges.next() == Change(old: false, new: false))

        await page.send(MainAction.increment)
        await page.send(MainAction.set(13))  // odd again: no parity element
        page.close()
        await page.send(MainAction.set(20))  // ignored after close()

        #expect(await take(2, from: &counts) == [Change(old: 10, new: 11), Change(old: 11, new: 13)])
        #expect(await counts.next() == nil)
        #expect(await parities.next() == Change(old: true, new: false))
        #expect(await parities.next() == nil)
        #expect(await larges.next() == Change(old: false, new: true))
        #expect(await larges.next() == nil)
        #expect(diagnostics.values.count == 1)
    }

    @Test func globalChangesFollowTheGlobalStateAndFinishWhenThePageCloses() async {
        let global = makeRootStore()
        let start = global.subscriberCount
        let page = PageStore(global: global, initialState: { _ in MainState() }, reducer: mainReducer)
        var users = page.globalChanges(of: \.auth.user, options: .instantly, buffering: .unbounded)
            .makeAsyncIterator()
        let isLoggedIn = Derived(\RootState.auth.user) { $0 != nil }
        var logins = page.globalChanges(of: isLoggedIn, options: .instantly, buffering: .unbounded)
            .makeAsyncIterator()
        var nameLengths = page.globalChanges(
            of: { $0.auth.user?.count ?? 0 }, options: .instantly, buffering: .unbounded
        ).makeAsyncIterator()
        #expect(await users.next() == Change(old: nil, new: nil))
        #expect(await logins.next() == Change(old: false, new: false))
        #expect(await nameLengths.next() == Change(old: 0, new: 0))
        #expect(global.subscriberCount == start + 3)

        await global.send(AuthAction.logIn("son"))
        await page.sendGlobal(LifecycleAction.enterForeground)  // not watched: no element
        await page.sendGlobal(AuthAction.logOut)
        page.close()
        #expect(global.subscriberCount == start)

        #expect(await take(2, from: &users) == [Change(old: nil, new: "son"), Change(old: "son", new: nil)])
        #expect(await users.next() == nil)
        #expect(await take(2, from: &logins) == [Change(old: false, new: true), Change(old: true, new: false)])
        #expect(await logins.next() == nil)
        #expect(await take(2, from: &nameLengths) == [Change(old: 0, new: 3), Change(old: 3, new: 0)])
        #expect(await nameLengths.next() == nil)
    }

    @Test func globalChangesFinishWhenThePageIsReleased() async {
        let global = makeRootStore()
        let start = global.subscriberCount
        var page: PageStore<MainState, RootState>? = PageStore(
            global: global, initialState: { _ in MainState() }, reducer: mainReducer)
        var users = page!.globalChanges(of: \.auth.user, options: .instantly).makeAsyncIterator()
        #expect(await users.next() == Change(old: nil, new: nil))

        weak let weakPage = page
        page = nil
        #expect(weakPage == nil)
        #expect(await users.next() == nil)
        #expect(global.subscriberCount == start)
    }

    @Test func globalChangesOfAClosedPageFinishAtOnce() async {
        let global = makeRootStore()
        let start = global.subscriberCount
        let page = PageStore(global: global, initialState: { _ in MainState() }, reducer: mainReducer)
        page.close()
        var users = page.globalChanges(of: \.auth.user, options: .instantly).makeAsyncIterator()
        #expect(await users.next() == nil)
        #expect(global.subscriberCount == start)
    }

    @Test func cancellingAReaderOfGlobalChangesRemovesItsGlobalSubscription() async {
        let global = makeRootStore()
        let start = global.subscriberCount
        let page = PageStore(global: global, initialState: { _ in MainState() }, reducer: mainReducer)
        let users = page.globalChanges(of: \.auth.user, options: .instantly)
        let (subscribed, signal) = AsyncStream<Void>.makeStream()
        let reader = Task {
            for await _ in users { signal.yield() }
        }
        for await _ in subscribed { break }
        #expect(global.subscriberCount == start + 1)

        reader.cancel()
        await reader.value
        #expect(global.subscriberCount == start)
        #expect(!page.isClosed)  // the page goes on without it
    }
}
